//! Pages used as a person uses them, in headless Chromium ([`crate::common::browser`]):
//! report.html at a phone's width and a desktop's, a form filled, sent and followed through
//! a redirect on a loopback server, and `ratewatch serve`'s pages: an alert acknowledged and
//! a candidate accepted there, as the database and the next run see them.
//!
//! They need Chromium (`apt-get install chromium`; another binary via `CHROMIUM`), so they
//! are ignored by default: `cargo test -- --ignored` runs them. With
//! `RATEWATCH_SCREENSHOTS=DIR` set, the screenshots of `serve`'s pages are kept in DIR
//! (`RATEWATCH_SCREENSHOTS=samples` renews those the README shows).

use std::path::{Path, PathBuf};

use ratewatch::sim::Endpoint;

use crate::common::browser::Browser;
use crate::common::{Reply, Workspace, ratewatch, recording, rows_by_ref, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// Where a screenshot named `name` goes: `RATEWATCH_SCREENSHOTS` when set, else `scratch`.
fn screenshot_path(scratch: &Path, name: &str) -> PathBuf {
    std::env::var_os("RATEWATCH_SCREENSHOTS")
        .map_or_else(|| scratch.to_path_buf(), PathBuf::from)
        .join(name)
}

/// The width and height of the PNG image at `path`, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let png = std::fs::read(path).unwrap();
    assert_eq!(
        &png[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is a PNG",
        path.display()
    );
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn the_samples_report_reads_at_a_phones_width_and_a_desktops() {
    let ws = Workspace::new();
    // The sample exits 3: one of its rows fails on purpose.
    ratewatch(["screen"])
        .in_dir(ws.dir.path())
        .arg(sample())
        .arg("--demo")
        .assert()
        .code(3);
    let report = url::Url::from_file_path(ws.path("report.html")).unwrap();

    let browser = Browser::launch();
    browser.open(report.as_str());
    assert!(
        browser
            .eval("document.title")
            .as_str()
            .unwrap()
            .contains("portfolio"),
        "the title names the portfolio"
    );
    assert!(
        browser.text("h1").contains("portfolio"),
        "so does the heading"
    );

    for width in [375, 1280] {
        browser.set_window_size(width, 800);
        let page = browser.eval(
            "({ inner: window.innerWidth, client: document.documentElement.clientWidth,
                scroll: document.documentElement.scrollWidth,
                height: document.documentElement.scrollHeight })",
        );
        assert_eq!(page["inner"], width, "{page}");
        assert!(
            page["scroll"].as_u64() <= page["client"].as_u64(),
            "the page scrolls sideways at {width} px: {page}"
        );
        let shot = ws.path(&format!("report-{width}.png"));
        browser.screenshot(&shot);
        let (w, h) = png_size(&shot);
        assert_eq!(u64::from(w), u64::from(width), "as wide as the window");
        assert_eq!(
            u64::from(h),
            page["height"].as_u64().unwrap(),
            "the whole page, not the window only"
        );
        assert!(h > 800, "the sample's page is longer than the window");
    }

    // Its search box, typed into as a person would, keeps what was typed and hides rows.
    let search = "input[type=search]";
    let shown = "document.body.innerText.split('\\n').length";
    let lines_before = browser.eval(shown).as_u64().unwrap();
    browser.fill(search, "C-1010");
    assert_eq!(
        browser.eval(&format!("document.querySelector('{search}').value")),
        "C-1010"
    );
    browser.wait_until(
        "the search to hide rows",
        &format!("{shown} < {lines_before}"),
    );
    assert!(browser.text("body").contains("C-1010"));

    // The page is all there is: nothing but its own file was requested, and its own script
    // ran under its own policy.
    let requested = browser.requested();
    assert!(
        requested.iter().all(|r| r == report.as_str()),
        "{requested:?}"
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();
}

/// A loopback site: `/` a search form (with a hidden token, as a form of a site of
/// one's own carries), `/search` answered with a redirect to `/found`, which says what was
/// searched.
fn site(base: &str, seen: &crate::common::Seen) -> Reply {
    let page = |body: String| Reply {
        status: "200 OK".into(),
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
        body: format!("<!doctype html><title>site</title><body>{body}</body>").into_bytes(),
    };
    let (path, query) = seen.target.split_once('?').unwrap_or((&seen.target, ""));
    let field = |name: &str| {
        url::form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    match path {
        "/" => page(
            "<form id=search action=/search>\
               <input type=hidden name=token value=t0k3n>\
               <input name=q><button id=go>Search</button></form>"
                .into(),
        ),
        "/search" => Reply {
            status: "303 See Other".into(),
            headers: vec![(
                "location".into(),
                format!(
                    "{base}/found?q={}",
                    url::form_urlencoded::byte_serialize(field("q").as_bytes()).collect::<String>()
                ),
            )],
            body: Vec::new(),
        },
        "/found" => {
            let q = field("q").replace('&', "&amp;").replace('<', "&lt;");
            page(format!(
                "<h1 id=found>Found: {q}</h1><a id=back href=/>again</a>"
            ))
        }
        // The browser asks for the site's icon; it has none to give.
        "/favicon.ico" => Reply {
            status: "204 No Content".into(),
            headers: Vec::new(),
            body: Vec::new(),
        },
        _ => Reply {
            status: "404 Not Found".into(),
            headers: Vec::new(),
            body: Vec::new(),
        },
    }
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn a_form_is_filled_sent_and_followed_through_its_redirect() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (base, seen) = runtime.block_on(recording(site));
    let browser = Browser::launch();
    browser.open(&format!("{base}/"));

    // Typed and sent with the button.
    browser.fill("input[name=q]", "Zhao Robotique & Fils");
    browser.click("#go");
    let found = browser.wait_for_url("the redirect to /found", |url| url.contains("/found"));
    assert!(found.starts_with(&base), "{found}");
    assert_eq!(browser.text("#found"), "Found: Zhao Robotique & Fils");
    assert_eq!(browser.attribute("#back", "href").as_deref(), Some("/"));
    assert_eq!(browser.attribute("#back", "title"), None);

    // Back by the link, then sent without the button.
    browser.click("#back");
    browser.wait_for("form#search");
    browser.fill("input[name=q]", "C-1001");
    browser.submit("form#search");
    browser.wait_until(
        "the second search's answer",
        "document.getElementById('found')?.innerText === 'Found: C-1001'",
    );

    let targets: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.target.clone())
        .collect();
    let searches: Vec<&String> = targets
        .iter()
        .filter(|t| t.starts_with("/search?"))
        .collect();
    assert_eq!(searches.len(), 2, "{targets:?}");
    assert!(
        searches.iter().all(|t| t.contains("token=t0k3n")),
        "the hidden field goes with the form: {targets:?}"
    );
    let requested = browser.requested();
    assert!(
        requested.iter().all(|r| r.starts_with(&base)),
        "only the site was asked for anything: {requested:?}"
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();
}

/// The output of `ratewatch ARGS --db DB --json` in the workspace, as JSON.
fn json_of(ws: &Workspace, args: &[&str]) -> serde_json::Value {
    let out = ws.ratewatch(args).db(ws.db()).arg("--json").run();
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JavaScript value of the `data-company` of the first row matching `rows` whose cell
/// `cell` reads `text`.
fn company_in_row(rows: &str, cell: &str, text: &str) -> String {
    format!(
        "[...document.querySelectorAll({})].find(tr => tr.querySelector({})?.innerText.trim() === {})?.dataset.company",
        serde_json::Value::from(rows),
        serde_json::Value::from(cell),
        serde_json::Value::from(text)
    )
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn on_serves_pages_an_alert_is_acknowledged_and_a_candidate_accepted_and_the_next_run_follows() {
    let sim = sample_sim();
    let ws = Workspace::new();
    // Every alert listed again each night: an alert not acknowledged would be listed again.
    ws.write("ratewatch.toml", b"[alerts]\nrepeat = \"daily\"\n");
    let by_name = || sim.server.stats().calls(Endpoint::CompaniesByName);
    // Each night searches every name row again, so that the one not searched shows.
    let night = || {
        let before = by_name();
        let out = ws
            .screen(&sim, &sample())
            .arg("--refresh-resolutions")
            .run();
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        (String::from_utf8(out.stdout).unwrap(), by_name() - before)
    };
    let (_, searches) = night();
    let server = ws
        .ratewatch(["serve", "--bind", "127.0.0.1:0"])
        .db(ws.db())
        .serve();
    let shots = |name: &str| screenshot_path(ws.dir.path(), name);
    let browser = Browser::launch();

    // The inbox: C-1004's company, black, acknowledged with a note.
    browser.open(&format!("{}/", server.url));
    browser.wait_for("table.alerts.open");
    let black = browser.eval(&company_in_row(
        "table.alerts.open tr.alert",
        ".refs",
        "C-1004",
    ));
    let black = black
        .as_str()
        .expect("C-1004 to act on in the inbox")
        .to_string();
    let row = format!("table.alerts.open tr[data-company=\"{black}\"]");
    browser.fill(&format!("{row} input[name=note]"), "credit stopped");
    browser.click(&format!("{row} button[type=submit]"));
    browser.wait_for_url("the inbox again, saying what was done", |url| {
        url.contains("said=")
    });
    assert!(
        browser.text("p.said").contains("acknowledged"),
        "{}",
        browser.text("p.said")
    );
    assert_eq!(
        browser.eval(&format!("document.querySelector('{row}') === null")),
        true
    );
    let acked = format!("table.alerts.acked tr[data-company=\"{black}\"]");
    assert_eq!(browser.text(&format!("{acked} .note")), "credit stopped");
    browser.screenshot(&shots("serve-inbox.png"));

    // Its company page, by its link, with the acknowledgement.
    browser.click(&format!("{acked} a"));
    browser.wait_for_url("the company page", |url| url.contains("/company/"));
    browser.wait_for("table.acks");
    assert!(browser.text("table.acks").contains("credit stopped"));
    assert!(browser.text("table.timeline").contains("black"));
    browser.screenshot(&shots("serve-company.png"));

    // The review queue: C-1006's candidate in Bordeaux accepted.
    browser.click("#nav-review");
    let ambiguous = "section[data-ref=\"C-1006\"]";
    browser.wait_for(ambiguous);
    browser.screenshot(&shots("serve-review.png"));
    let chosen = browser.eval(&company_in_row(
        &format!("{ambiguous} tr.candidate"),
        "td:nth-child(2)",
        "Bordeaux",
    ));
    let chosen = chosen
        .as_str()
        .expect("a candidate in Bordeaux")
        .to_string();
    browser.click(&format!(
        "{ambiguous} tr.candidate[data-company=\"{chosen}\"] button[value=accept]"
    ));
    browser.wait_for("tr.decision[data-ref=\"C-1006\"]");
    assert!(
        browser.text("p.said").contains("C-1006"),
        "{}",
        browser.text("p.said")
    );
    assert_eq!(
        browser.eval(&format!("document.querySelector('{ambiguous}') === null")),
        true
    );

    // The portfolio's page, and a search from the box every page has.
    browser.click("a.nav-portfolio");
    browser.wait_for_url("the portfolio page", |url| url.contains("/portfolio"));
    assert_eq!(browser.text("h1"), "portfolio");
    browser.screenshot(&shots("serve-portfolio.png"));
    browser.fill("#search-q", "robotique loire");
    browser.submit("form.search");
    browser.wait_for_url("the search's answer", |url| url.contains("/search?"));
    browser.wait_for("main a[href^=\"/company/\"]");
    assert!(
        browser.text("main").contains("Zhao Robotique Loire"),
        "{}",
        browser.text("main")
    );
    browser.screenshot(&shots("serve-search.png"));

    // Nothing but the server was asked for anything (Chromium draws a date field's icon
    // from a data: address of its own), and no page broke its own policy.
    let requested = browser.requested();
    assert!(
        requested
            .iter()
            .all(|r| r.starts_with(&server.url) || r.starts_with("data:")),
        "{requested:?}"
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();

    // The database has both decisions as the commands read them.
    let acks = json_of(&ws, &["acks"]);
    assert_eq!(acks[0]["company_id"], black.as_str(), "{acks}");
    assert_eq!(acks[0]["note"], "credit stopped");
    let review = json_of(&ws, &["review", "list"]);
    assert_eq!(review["decisions"][0]["ref"], "C-1006", "{review}");
    assert_eq!(review["decisions"][0]["company_id"], chosen.as_str());

    // The next night, the server still running: C-1006 is rated as the company chosen with
    // no search, and the acknowledged company is no longer listed while the others are.
    crate::common::a_night_passes(&ws.db());
    let (summary, searched) = night();
    assert_eq!(searched, searches - 1, "no search for the accepted row");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1006"]["company_id"], chosen.as_str());
    let listed = |reference: &str| {
        summary
            .lines()
            .any(|l| l.starts_with("  ") && l.contains(reference))
    };
    assert!(!listed("C-1004"), "{summary}");
    assert!(listed("C-1010"), "the others are still listed: {summary}");
    assert_eq!(rows["C-1004"]["acknowledged"], true);
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn on_the_inbox_several_rows_ticked_are_acknowledged_with_one_note() {
    let sim = sample_sim();
    let ws = Workspace::new();
    // Two nights: the second lists the changes, and the companies still red or black
    // stand apart, each with a box to tick as the listed alerts have.
    for day in [1, 2] {
        sim.server.set_day(day);
        crate::common::a_night_passes(&ws.db());
        let out = ws.screen(&sim, &sample()).run();
        assert!(matches!(out.status.code(), Some(1 | 3)), "{out:?}");
    }
    let server = ws
        .ratewatch(["serve", "--bind", "127.0.0.1:0"])
        .db(ws.db())
        .serve();
    let browser = Browser::launch();
    browser.open(&format!("{}/", server.url));
    browser.wait_for("table.alerts.standing");
    let ticked: Vec<String> = browser
        .eval(
            "[...document.querySelectorAll('table.alerts tr.alert input[type=checkbox]')]
                 .slice(0, 3).map(box => box.value)",
        )
        .as_array()
        .expect("boxes to tick")
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ticked.len(), 3, "three rows to tick");
    for company in &ticked {
        browser.click(&format!(
            "tr[data-company=\"{company}\"] input[type=checkbox]"
        ));
    }
    browser.fill("form.bulk input[name=note]", "cash on delivery, agreed");
    browser.click("form.bulk button[type=submit]");
    browser.wait_for_url("the inbox again, saying what was done", |url| {
        url.contains("said=")
    });
    assert!(
        browser.text("p.said").contains("3 companies acknowledged"),
        "{}",
        browser.text("p.said")
    );
    for company in &ticked {
        let acked = format!("table.alerts.acked tr[data-company=\"{company}\"]");
        assert_eq!(
            browser.text(&format!("{acked} .note")),
            "cash on delivery, agreed"
        );
        assert_eq!(browser.text(&format!("{acked} .by")), "web page");
        assert_eq!(
            browser.eval(&format!(
                "document.querySelector('table.alerts.open tr[data-company=\"{company}\"], \
                 table.alerts.standing tr[data-company=\"{company}\"]') === null"
            )),
            true,
            "{company} left the rows to act on"
        );
    }
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();

    // One acknowledgement each, with the one note.
    let acks = json_of(&ws, &["acks"]);
    let mut acked: Vec<&str> = acks
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            assert_eq!(a["note"], "cash on delivery, agreed", "{a}");
            a["company_id"].as_str().unwrap()
        })
        .collect();
    acked.sort_unstable();
    let mut expected: Vec<&str> = ticked.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(acked, expected);
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn a_candidate_found_without_its_postcode_is_accepted_and_an_unresolved_ref_is_found() {
    let sim = sample_sim();
    let ws = Workspace::new();
    // C-1 gives a postcode its company is not registered at; C-2 a company the service
    // does not know.
    let company = sim
        .server
        .dataset()
        .company(ratewatch::sim::CompanyRef { country: 0, n: 4 });
    let registered = &company.address.post_code;
    let wrong = format!(
        "{}{}",
        &registered[..4],
        if registered.ends_with('1') { 2 } else { 1 }
    );
    let portfolio = ws.write(
        "export.csv",
        format!(
            "ref,country,name,city,postcode\nC-1,FR,{},{},{wrong}\nC-2,FR,Perrichon Vautrin SARL,Paris,75011\n",
            company.name, company.address.city
        )
        .as_bytes(),
    );
    ws.screen(&sim, &portfolio).assert().code(3);
    let server = ws
        .ratewatch(["serve", "--bind", "127.0.0.1:0"])
        .db(ws.db())
        .serve();
    let browser = Browser::launch();

    // The review page says what was left out, and the candidate is accepted there.
    browser.open(&format!("{}/review", server.url));
    let row = "section[data-ref=\"C-1\"]";
    browser.wait_for(row);
    let said = browser.text(&format!("{row} p.found-without"));
    assert!(
        said.contains(&format!("found without the postcode {wrong}")),
        "{said}"
    );
    let id = company.id.to_string();
    browser.click(&format!(
        "{row} tr.candidate[data-company=\"{id}\"] button[value=accept]"
    ));
    browser.wait_for("tr.decision[data-ref=\"C-1\"]");
    assert_eq!(
        browser.eval(&format!("document.querySelector('{row}') === null")),
        true
    );

    // The unresolved ref, searched from the box every page has: found, with why, and its
    // link leads to its place on the review page.
    browser.fill("#search-q", "C-2");
    browser.submit("form.search");
    browser.wait_for_url("the search's answer", |url| url.contains("/search?"));
    let found = "table.unscreened tr[data-ref=\"C-2\"]";
    browser.wait_for(found);
    assert_eq!(browser.text(&format!("{found} .status")), "unresolved");
    assert!(
        browser
            .text(&format!("{found} .why"))
            .starts_with("no company matches"),
        "{}",
        browser.text(found)
    );
    browser.click(&format!("{found} a.review"));
    browser.wait_for_url("the review page", |url| url.ends_with("/review#ref-C-2"));
    browser.wait_for("section#ref-C-2");
    let requested = browser.requested();
    assert!(
        requested
            .iter()
            .all(|r| r.starts_with(&server.url) || r.starts_with("data:")),
        "{requested:?}"
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();

    // The next run rates C-1 as the company accepted (exit 1 if it is an alert).
    let out = ws.screen(&sim, &portfolio).run();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1"]["status"], "rated");
    assert_eq!(rows["C-1"]["company_id"], id.as_str());
    assert_eq!(rows["C-1"]["found_by"], "review");
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn the_report_reads_in_french_and_its_table_filters_on_the_colors_programs_name() {
    let ws = Workspace::new();
    // The sample exits 3: one of its rows fails on purpose.
    ratewatch(["screen"])
        .in_dir(ws.dir.path())
        .arg(sample())
        .args(["--demo", "--locale", "fr", "--time-zone", "Europe/Paris"])
        .assert()
        .code(3);
    let report = url::Url::from_file_path(ws.path("report.html")).unwrap();
    let browser = Browser::launch();
    browser.open(report.as_str());
    assert_eq!(browser.eval("document.documentElement.lang"), "fr");
    assert!(browser.text("#review h2").contains("À examiner"));
    // A color badge in French words, in the markup and in the table the script builds.
    assert_eq!(
        browser.text("#standing .badge.c-red, #alerts .badge.c-red"),
        "rouge"
    );
    browser.wait_until(
        "the table of every row",
        "document.querySelector('#rows-table[data-ready]') !== null",
    );
    assert!(
        browser.text("#shown").ends_with(" lignes"),
        "{}",
        browser.text("#shown")
    );
    // The filter takes the value programs read; the rows it keeps say it in French.
    browser.eval(
        "(() => { const f = document.getElementById('f-color'); f.value = 'red';
                  f.dispatchEvent(new Event('input')); return true; })()",
    );
    let shown = browser.text("#shown");
    assert!(
        shown.contains(" lignes sur ") && shown.ends_with(" correspondent"),
        "{shown}"
    );
    let badges = browser.eval(
        "Array.from(document.querySelectorAll('#rows-table tbody .badge')).map(b => b.textContent)",
    );
    let badges = badges.as_array().unwrap();
    assert!(
        !badges.is_empty() && badges.iter().all(|b| b == "rouge"),
        "{badges:?}"
    );
    assert_eq!(
        browser.text("#rows-table thead th[data-key=status]"),
        "Statut"
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
    browser.close();
}
