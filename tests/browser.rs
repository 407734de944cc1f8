//! Pages used as a person uses them, in headless Chromium ([`crate::common::browser`]):
//! report.html at a phone's width and a desktop's, and a form filled, sent and followed
//! through a redirect on a loopback server.
//!
//! They need Chromium (`apt-get install chromium`; another binary via `CHROMIUM`), so they
//! are ignored by default: `cargo test -- --ignored` runs them. With
//! `RATEWATCH_SCREENSHOTS=DIR` set, the screenshots they take are kept in DIR.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::browser::Browser;
use crate::common::{Reply, Workspace, recording};

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
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    // The sample exits 3: one of its rows fails on purpose.
    Command::cargo_bin("ratewatch")
        .unwrap()
        .env_remove("RATEWATCH_API_KEY")
        .env_remove("RATEWATCH_BASE_URL")
        .current_dir(ws.dir.path())
        .arg("screen")
        .arg(&sample)
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
        let shot = screenshot_path(ws.dir.path(), &format!("report-{width}.png"));
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
