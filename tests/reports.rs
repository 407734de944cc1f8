//! The report files as their readers open them: report.html in a real browser (headless
//! Chromium measures what a person would see, and how soon a large page opens), report.csv
//! as Excel reads it, and reports named after their run.
//!
//! The browser tests need Chromium (`apt-get install chromium`; another binary via the
//! `CHROMIUM` variable), so they are ignored by default: `cargo test -- --ignored` runs them.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use ratewatch::alerts::AlertKind;
use ratewatch::model::{Change, Color, ResultRow, RowStatus, RunColors, RunInfo, RunStatus};
use ratewatch::report::Format;
use ratewatch::report::html::{HtmlReport, csp_source};
use ratewatch::sim::{CompanyRef, SimConfig};
use ratewatch::text::thousands;
use serde_json::Value;

use crate::common::wait::a_second_later;
use crate::common::{Workspace, background, config, ratewatch};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// `screen PORTFOLIO --demo` in the workspace, as the README runs it; returns stdout.
/// The sample exits 3 (one of its rows fails on purpose).
fn demo_screen(ws: &Workspace, portfolio: &Path, extra: &[&str]) -> String {
    demo_screen_exiting(ws, portfolio, extra, 3)
}

fn demo_screen_exiting(ws: &Workspace, portfolio: &Path, extra: &[&str], code: i32) -> String {
    let out = ratewatch(["screen"])
        .in_dir(ws.dir.path())
        .arg(portfolio)
        .arg("--demo")
        .args(extra)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Added to a copy of the report: once the table of every row is built (`rows-ready`),
/// measures the page as laid out, uses its controls as a person would, and leaves the
/// findings as JSON in `<pre id="measured">`.
const MEASURE: &str = r#"
(function () {
  function measure() {
  function box(el) {
    var r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return { top: r.top + window.scrollY, left: r.left, right: r.right, width: r.width,
      height: r.height, display: s.display, visibility: s.visibility, opacity: s.opacity };
  }
  function shown() {
    return Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
      return r.getBoundingClientRect().height > 0;
    }).length;
  }
  function set(id, value) {
    var e = document.getElementById(id);
    e.value = value;
    e.dispatchEvent(new Event('input'));
  }
  var table = document.getElementById('rows-table');
  var red = document.querySelector('#alerts .badge.c-red');
  var out = {
    viewport: window.innerWidth,
    pageWidth: document.documentElement.scrollWidth,
    alerts: Array.prototype.map.call(document.querySelectorAll('#alerts table.listed tbody tr'), function (tr) {
      var b = box(tr);
      b.ref = tr.querySelector('.ref').textContent;
      b.text = tr.innerText;
      return b;
    }),
    standing: Array.prototype.map.call(document.querySelectorAll('#standing tbody tr'), function (tr) {
      return tr.querySelector('.ref').textContent;
    }),
    standingOpen: document.getElementById('standing') ? document.getElementById('standing').open : null,
    standingVisible: document.querySelector('#standing table') ? document.querySelector('#standing table').checkVisibility() : null,
    tableTop: box(table).top,
    controls: box(document.getElementById('controls')),
    headers: document.querySelectorAll('th').length,
    sortButtons: document.querySelectorAll('th button').length,
    redBadge: red ? getComputedStyle(red).backgroundColor : null,
    title: document.title,
    foreign: document.querySelectorAll('img, iframe, object, embed, link, svg image, svg use, svg foreignObject, [href]').length,
    trend: box(document.querySelector('.trend svg')),
    trendCharts: document.querySelectorAll('.trend .chart svg').length,
    trendRuns: Array.prototype.map.call(document.querySelectorAll('.trend-numbers tbody tr'), function (tr) {
      return tr.getAttribute('data-run');
    }),
    sortable: document.querySelectorAll('table.sortable th, #rows-table th').length,
    scripts: document.scripts.length
  };
  out.allShown = shown();
  set('f-status', 'ambiguous');
  out.ambiguousShown = shown();
  set('f-status', '');
  set('f-color', 'red');
  out.redShown = shown();
  set('f-color', '');
  set('q', 'ZHAO robotique');
  out.searchShown = shown();
  set('q', '');
  var line = table.tHead.rows[0].cells[0].querySelector('button');
  line.click();
  line.click();
  out.firstLineAfterSortingDown = table.tBodies[0].rows[0].cells[0].textContent;
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
  }
  document.addEventListener('rows-ready', measure);
})();
"#;

/// Runs headless Chromium on `page` with `args`; its stdout. Fails the test (never hangs)
/// if Chromium is missing, fails or takes over a minute.
fn chromium(page: &Path, args: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let exe = std::env::var_os("CHROMIUM").unwrap_or_else(|| "chromium".into());
    let url = url::Url::from_file_path(page).unwrap();
    let mut child = Process::new(&exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url.as_str())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {exe:?} ({e}): apt-get install chromium"));
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium took over a minute on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "chromium failed: {status}");
    reader.join().unwrap().unwrap()
}

/// The report with `MEASURE` appended, laid out in a window `width` pixels wide.
fn measure(report: &Path, width: u32) -> Value {
    in_browser(report, MEASURE, width, true)
}

/// Lets the page's script finish its work (reading the rows' data) before the DOM is
/// dumped: virtual time runs until the page is idle, up to this many milliseconds.
const UNTIL_IDLE: &str = "--virtual-time-budget=30000";

/// The report with `script` appended, its hash added to the page's policy (so the page's
/// own policy stays in force), laid out in a window `width` pixels wide, until idle or
/// (`idle` false) only until it has loaded: what the script left in `<pre id="measured">`.
fn in_browser(report: &Path, script: &str, width: u32, idle: bool) -> Value {
    let html = std::fs::read_to_string(report).unwrap();
    assert_eq!(html.matches("script-src ").count(), 1);
    let html = html
        .replacen(
            "script-src ",
            &format!("script-src {} ", csp_source(script)),
            1,
        )
        .replacen("</body>", &format!("<script>{script}</script>\n</body>"), 1);
    let copy = report.with_file_name(format!("measured-{width}.html"));
    std::fs::write(&copy, html).unwrap();
    let mut args = vec![
        format!("--window-size={width},1400"),
        "--dump-dom".to_string(),
    ];
    if idle {
        args.push(UNTIL_IDLE.to_string());
    }
    let dom = chromium(&copy, &args);
    let start = dom
        .find("<pre id=\"measured\">")
        .unwrap_or_else(|| panic!("the measuring script did not run:\n{dom}"))
        + "<pre id=\"measured\">".len();
    let end = dom[start..].find("</pre>").unwrap() + start;
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The rows of a report.json's alerts listed tonight, worst first (by their kind), a
/// company's rows together from its first line: the order report.html lists them in.
fn expected_alerts(report: &Value) -> Vec<String> {
    let alerts: Vec<&Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["alert_listed"] == true)
        .collect();
    let first_line = |r: &Value| {
        alerts
            .iter()
            .filter(|a| a["company_id"] == r["company_id"])
            .map(|a| a["line"].as_u64().unwrap())
            .min()
            .unwrap()
    };
    let severity = |r: &Value| {
        ratewatch::alerts::AlertKind::parse(r["alert_kind"].as_str().unwrap())
            .unwrap()
            .severity()
    };
    let mut alerts: Vec<(u8, u64, u64, &Value)> = alerts
        .iter()
        .map(|r| (severity(r), first_line(r), r["line"].as_u64().unwrap(), *r))
        .collect();
    alerts.sort_by_key(|(severity, first, line, _)| (*severity, *first, *line));
    alerts
        .into_iter()
        .map(|(.., r)| r["ref"].as_str().unwrap().to_string())
        .collect()
}

fn assert_visible(alert: &Value, viewport: f64) {
    let what = &alert["ref"];
    assert!(alert["width"].as_f64().unwrap() > 100.0, "{what}: {alert}");
    assert!(alert["height"].as_f64().unwrap() > 10.0, "{what}: {alert}");
    assert_ne!(alert["display"], "none", "{what}");
    assert_eq!(alert["visibility"], "visible", "{what}");
    assert_eq!(alert["opacity"], "1", "{what}");
    assert!(alert["left"].as_f64().unwrap() >= 0.0, "{what}: {alert}");
    assert!(
        alert["right"].as_f64().unwrap() <= viewport,
        "{what} runs off the page: {alert}"
    );
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn the_samples_alerts_are_visible_first_in_a_browser_wide_and_narrow() {
    let ws = Workspace::new();
    demo_screen(&ws, &sample(), &[]);
    let stdout = demo_screen(&ws, &sample(), &[]);
    assert!(stdout.contains("report.html"), "{stdout}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path("report.json")).unwrap()).unwrap();
    let expected = expected_alerts(&report);
    assert!(
        expected.len() >= 2,
        "the second demo run has new red companies (its improvements are counted)"
    );
    // The companies still red or black since the first night: standing, apart and folded.
    let mut standing: Vec<String> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["alert_kind"] == "still" && r["alert_listed"] == false)
        .map(|r| r["ref"].as_str().unwrap().to_string())
        .collect();
    standing.sort();
    assert_eq!(standing.len(), 6, "{standing:?}");

    for width in [1280u32, 500] {
        let m = measure(&ws.path("report.html"), width);
        let viewport = m["viewport"].as_f64().unwrap();
        assert_eq!(viewport, f64::from(width));
        assert!(
            m["pageWidth"].as_f64().unwrap() <= viewport,
            "the page scrolls sideways at {width}px: {m}"
        );
        let alerts = m["alerts"].as_array().unwrap();
        let refs: Vec<&str> = alerts.iter().map(|a| a["ref"].as_str().unwrap()).collect();
        assert_eq!(refs, expected, "at {width}px");
        let mut folded: Vec<String> = serde_json::from_value(m["standing"].clone()).unwrap();
        folded.sort();
        assert_eq!(folded, standing, "at {width}px");
        assert_eq!(m["standingOpen"], false, "folded until opened");
        assert_eq!(m["standingVisible"], false, "folded until opened");
        for a in alerts {
            assert_visible(a, viewport);
            assert!(
                a["top"].as_f64().unwrap() < m["tableTop"].as_f64().unwrap(),
                "alerts come before the table"
            );
        }
        let change = alerts
            .iter()
            .find(|a| a["text"].as_str().unwrap().contains("deteriorated"))
            .expect("a deterioration on day 2");
        assert!(
            change["text"].as_str().unwrap().contains("→"),
            "old → new: {change}"
        );
        assert_eq!(m["redBadge"], "rgb(207, 34, 46)", "red looks red");

        // The page's own script ran under its policy and its controls work.
        assert!(m["controls"]["height"].as_f64().unwrap() > 0.0, "{m}");
        assert_eq!(m["sortButtons"], m["sortable"]);
        assert_eq!(m["allShown"], 25);
        assert_eq!(m["ambiguousShown"], 1);
        let red = report["run"]["by_color"]["red"].as_u64().unwrap();
        assert_eq!(m["redShown"].as_u64().unwrap(), red);
        assert_eq!(m["searchShown"], 3, "C-1001 to C-1003 are Zhao Robotique");
        assert_eq!(m["firstLineAfterSortingDown"], "26");
        assert_eq!(m["foreign"], 0, "nothing but the page itself");
        // The trend of the two runs, drawn inline and within the page, after the alerts.
        assert!(m["trendCharts"].as_u64().unwrap() >= 5, "{m}");
        assert_eq!(m["trendRuns"], serde_json::json!(["2", "1"]));
        let trend = &m["trend"];
        assert!(trend["height"].as_f64().unwrap() > 50.0, "{trend}");
        assert!(trend["right"].as_f64().unwrap() <= viewport, "{trend}");
        assert!(
            trend["top"].as_f64().unwrap() > alerts[0]["top"].as_f64().unwrap(),
            "the alerts lead"
        );
    }
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn hostile_names_stay_text_in_a_browser() {
    let ws = Workspace::new();
    let hostile_ref = "<script>document.title='pwned'</script>\"'&";
    let hostile_name = "\"><img src=x onerror=\"document.title='pwned'\">&amp;";
    let mut csv = String::from("ref,country,service,id,name\n");
    // C-1001's company is red in the demo, so the hostile reference is also an alert.
    csv.push_str(&format!(
        "\"{}\",FR,SIREN,734531544,\n",
        hostile_ref.replace('"', "\"\"")
    ));
    csv.push_str(&format!(
        "C-2,FR,,,\"{}\"\n",
        hostile_name.replace('"', "\"\"")
    ));
    let portfolio = ws.write("hostile.csv", csv.as_bytes());
    let out = demo_screen_exiting(&ws, &portfolio, &[], 1);
    assert!(out.contains("report.html"));

    // The page as shipped, its table built: no injected element, title untouched.
    let dom = chromium(
        &ws.path("report.html"),
        &["--dump-dom".to_string(), UNTIL_IDLE.to_string()],
    );
    assert!(!dom.contains("<img"), "an injected element: {dom}");
    assert!(dom.contains("<title>hostile — ratewatch run 1</title>"));
    // The table the script built from the rows' data shows both as text.
    let table = &dom[dom.find("id=\"rows-table\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert!(
        table.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;\"'&amp;"),
        "{table}"
    );
    assert!(
        table.contains("\"&gt;&lt;img src=x onerror=\"document.title='pwned'\"&gt;&amp;amp;"),
        "{table}"
    );

    let m = measure(&ws.path("report.html"), 1280);
    assert_eq!(m["title"], "hostile — ratewatch run 1");
    assert_eq!(m["foreign"], 0);
    assert_eq!(
        m["scripts"], 3,
        "the page's, its rows' data (never run) and the measuring one"
    );
    let alerts = m["alerts"].as_array().unwrap();
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0]["ref"], hostile_ref, "shown exactly as given");
    assert_visible(&alerts[0], 1280.0);
}

#[test]
fn excel_dialect_keeps_every_carried_identifier_and_long_digit_string_as_text() {
    let ws = Workspace::new();
    // The sample's first company by its SIREN; its SIRET and a KVK carried beside it.
    let file = ws.write(
        "ids.csv",
        "ref,country,SIREN,SIRET,KVK,name,Téléphone,Encours\n\
         00042,FR,734531544,73453154400256,01234567,,0612345678,\"12 345,67\"\n"
            .as_bytes(),
    );
    for (dialect, delimiter) in [("excel", b';'), ("standard", b',')] {
        let out = ratewatch(["screen"])
            .in_dir(ws.dir.path())
            .arg(&file)
            .args(["--demo", "--out", dialect, "--csv-dialect", dialect])
            .run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
        let bytes = std::fs::read(ws.path(&format!("{dialect}/report.csv"))).unwrap();
        let start = if dialect == "excel" { 3 } else { 0 };
        let rows: Vec<Vec<String>> = ::csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .from_reader(&bytes[start..])
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        let cell = |header: &str| {
            let at = rows[0].iter().position(|h| h == header).unwrap();
            rows[1][at].clone()
        };
        assert_eq!(cell("status"), "rated", "{rows:?}");
        let text = |v: &str| match dialect {
            "excel" => format!("=\"{v}\""),
            _ => v.to_string(),
        };
        assert_eq!(cell("ref"), text("00042"));
        assert_eq!(cell("id"), text("734531544"));
        assert_eq!(cell("SIRET"), text("73453154400256"), "not 7,34532E+13");
        assert_eq!(cell("KVK"), text("01234567"), "its leading zero kept");
        assert_eq!(cell("Téléphone"), text("0612345678"));
        assert_eq!(cell("Encours"), "12 345,67", "an amount stays a number");
    }
}

#[test]
fn excel_dialect_and_timestamped_names_from_the_command_line() {
    let ws = Workspace::new();
    let out = ws.path("out");
    let stdout = demo_screen(
        &ws,
        &sample(),
        &[
            "--out",
            out.to_str().unwrap(),
            "--timestamped",
            "--csv-dialect",
            "excel",
        ],
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    let json = out.join(&names[2]);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let started = report["run"]["started_at"].as_str().unwrap();
    let stamp: String = started.chars().filter(|c| *c != '-' && *c != ':').collect();
    for (name, ext) in names.iter().zip(["csv", "html", "json"]) {
        assert_eq!(name, &format!("report-{stamp}.{ext}"));
        assert!(
            stdout.contains(&out.join(name).display().to_string()),
            "the summary says where {name} went: {stdout}"
        );
    }

    let csv = std::fs::read(out.join(&names[0])).unwrap();
    assert!(csv.starts_with("\u{feff}line;ref;country;service;id;".as_bytes()));
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.split_inclusive('\n').all(|l| l.ends_with("\r\n")),
        "CRLF line ends"
    );
    assert_eq!(text.lines().count(), 26);
    let c1009 = text.lines().find(|l| l.contains("C-1009")).unwrap();
    assert!(
        c1009.starts_with("10;\"=\"\"C-1009\"\"\";FR;SIREN;\"=\"\"000000000\"\"\";"),
        "the id keeps its zeros in Excel: {c1009}"
    );

    // A second run keeps the first one's reports (named after its start, to the second:
    // it starts in a later one).
    a_second_later();
    demo_screen(
        &ws,
        &sample(),
        &["--out", out.to_str().unwrap(), "--timestamped"],
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 6);
    ratewatch(["screen", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--csv-dialect <DIALECT>"))
        .stdout(predicate::str::contains("--timestamped"));
}

/// The simulator recalculates each company's rating weekly, on a weekday of the company's
/// own, so on today's simulated day every lastRefreshDate lies in the past week: none is
/// stale by the default 30 days, and a threshold of 2 days splits them by their dates.
#[test]
fn ratings_not_recalculated_within_the_threshold_are_marked_stale() {
    let now = jiff::Timestamp::now();
    let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let day = i64::from((today - ratewatch::sim::dataset::EPOCH).get_days());
    let sim = background(SimConfig { day, ..config() });
    let data = sim.server.dataset();
    let hours = jiff::SignedDuration::from_hours;
    // Companies recalculated within the last day, and others not for over three days:
    // either side of 2 days whenever the run starts in the next hours.
    let (mut recent, mut old) = (Vec::new(), Vec::new());
    for n in 0..500 {
        let company = CompanyRef { country: 0, n };
        let refreshed = data.rating(company, day).last_refresh.instant;
        if refreshed > now - hours(24) && recent.len() < 4 {
            recent.push(company);
        } else if refreshed < now - hours(72) && old.len() < 4 {
            old.push(company);
        }
    }
    assert_eq!((recent.len(), old.len()), (4, 4), "the dataset has both");
    let mut csv = String::from("ref,country,service,id\n");
    for (prefix, companies) in [("NEW", &recent), ("OLD", &old)] {
        for c in companies {
            let id = &data.external_ids(*c)[0];
            csv.push_str(&format!(
                "{prefix}-{},FR,{},{}\n",
                c.n, id.external_service, id.external_id
            ));
        }
    }
    let ws = Workspace::new();
    let file = ws.write("book.csv", csv.as_bytes());
    let screen = |extra: &[&str]| {
        let out = ws
            .screen(&sim, &file)
            .args(extra)
            .assert()
            .code(predicate::in_iter([0, 1]));
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let stale_by_ref = |report: &Value| -> Vec<(String, bool)> {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert_eq!(r["status"], "rated", "{r}");
                assert!(r["last_refresh_date"].is_string(), "{r}");
                let r#ref = r["ref"].as_str().unwrap().to_string();
                (r#ref, r["stale"].as_bool().unwrap())
            })
            .collect()
    };

    // The default: a week-old recalculation is not stale.
    let stdout = screen(&[]);
    assert!(!stdout.contains("stale"), "{stdout}");
    let first = ws.report();
    assert!(stale_by_ref(&first).iter().all(|(_, stale)| !stale));
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(!html.contains("id=\"stale\""));

    // Two days: exactly the companies not recalculated for over three days are stale.
    let stdout = screen(&["--stale-after", "2"]);
    assert!(
        stdout.contains(
            "4 ratings not recalculated for more than 2 days (stale): see `stale` in the reports"
        ),
        "{stdout}"
    );
    let second = ws.report();
    let marked = stale_by_ref(&second);
    assert_eq!(marked.len(), 8);
    for (r#ref, stale) in &marked {
        assert_eq!(*stale, r#ref.starts_with("OLD-"), "{ref}");
    }
    // Judged against the run's start, as the dates say.
    let started: jiff::Timestamp = second["run"]["started_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    for row in second["rows"].as_array().unwrap() {
        let refreshed: jiff::Timestamp =
            row["last_refresh_date"].as_str().unwrap().parse().unwrap();
        assert_eq!(row["stale"], refreshed < started - hours(48), "{row}");
    }
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    assert!(
        csv.starts_with("line,ref,")
            && csv
                .lines()
                .next()
                .unwrap()
                .ends_with(
                    ",last_refresh_date,stale,alert_kind,acknowledged,country_defaulted,extra_unreliable,alert_listed,found_by,color_since"
                )
    );
    for line in csv.lines().skip(1) {
        // `stale`, then `alert_kind`, `acknowledged`, the two marks of how it was read and
        // `alert_listed`, `found_by`, `color_since`.
        let stale = line.rsplit(',').nth(7).unwrap();
        assert_eq!(stale == "true", line.contains(",OLD-"), "{line}");
    }
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(html.contains(
        "<p class=\"notice\" id=\"stale\">4 ratings not recalculated by the service for more than 2 days"
    ));

    // `report` takes the threshold too (here from the environment): the first run's
    // reports written again mark the same ratings.
    ws.ratewatch(["report", "--run", "1", "--out", "out"])
        .db(ws.db())
        .env("RATEWATCH_STALE_AFTER", "2")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "4 ratings not recalculated for more than 2 days (stale)",
        ));
    assert_eq!(stale_by_ref(&ws.report()), marked);
}

#[test]
fn a_timestamped_run_removes_the_reports_of_runs_older_than_keep_reports_days_and_no_other_file() {
    let ws = Workspace::new();
    let out = ws.path("out");
    std::fs::create_dir(&out).unwrap();
    let now = jiff::Timestamp::now();
    let stamp = |days: i64| {
        let then = now - jiff::SignedDuration::from_hours(24 * days);
        then.strftime("%Y%m%dT%H%M%SZ").to_string()
    };
    let (old, recent) = (stamp(31), stamp(29));
    let reports = |stamp: &str| ["csv", "json", "html"].map(|e| format!("report-{stamp}.{e}"));
    // Not reports, whatever their age: other names, a folder and a link named as reports.
    let others = [
        "report.csv".to_string(),
        format!("report-{old}.csv.bak"),
        format!("report-{old}.xlsx"),
        format!("copy of report-{old}.csv"),
        format!("notes-{old}.json"),
    ];
    for name in reports(&old).iter().chain(&reports(&recent)).chain(&others) {
        std::fs::write(out.join(name), name).unwrap();
    }
    let elsewhere = ws.path("elsewhere.csv");
    std::fs::write(&elsewhere, "kept").unwrap();
    let (folder, link) = (stamp(400), stamp(401));
    std::fs::create_dir(out.join(format!("report-{folder}.html"))).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join(format!("report-{link}.csv"))).unwrap();
    let names = |out: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let timestamped = ["--out", out.to_str().unwrap(), "--timestamped"];
    let has_all = |names: &[String], these: &[String]| these.iter().all(|n| names.contains(n));
    let first = names(&out);

    // Untimestamped, a run writes report.* and removes nothing.
    demo_screen(
        &ws,
        &sample(),
        &["--out", out.to_str().unwrap(), "--keep-reports-days", "30"],
    );
    let before = names(&out);
    assert!(has_all(&before, &first), "{before:?}");
    // 0 keeps every report.
    demo_screen(
        &ws,
        &sample(),
        &[&timestamped[..], &["--keep-reports-days", "0"]].concat(),
    );
    let mut kept = names(&out);
    assert_eq!(kept.len(), before.len() + 3, "{kept:?}");
    assert!(has_all(&kept, &before), "{kept:?}");

    // Past 30 days: the reports of the run 31 days old go, and nothing else.
    a_second_later();
    demo_screen(
        &ws,
        &sample(),
        &[&timestamped[..], &["--keep-reports-days", "30"]].concat(),
    );
    let after = names(&out);
    kept.retain(|n| !reports(&old).contains(n));
    assert!(has_all(&after, &kept), "{after:?}");
    let new: Vec<&String> = after.iter().filter(|n| !kept.contains(n)).collect();
    assert_eq!(new.len(), 3, "this run's reports only: {new:?}");
    assert!(
        new.iter()
            .all(|n| n.starts_with("report-") && !n.contains(&old)),
        "{new:?}"
    );
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "kept");
}

/// A large portfolio's page, rendered from plain data through the report's formatter (no
/// simulator, no database): `rows` rows of which every fiftieth is not screened, a few
/// percent red or black (most of them standing alerts), a trend of `nights` nights with
/// each night's news, and tiles of a million rows. Returns the page's path and its rows.
fn large_page(dir: &Path, rows: u64, nights: i64) -> (PathBuf, Vec<ResultRow>) {
    const FIRST: [&str; 12] = [
        "Bianchi", "Dupont", "Müller", "García", "Nowak", "Jansen", "Rossi", "Dubois", "Schmidt",
        "Peeters", "López", "Moreau",
    ];
    const TRADE: [&str; 8] = [
        "Services",
        "Transports",
        "Métallurgie",
        "Logistique",
        "Conseil",
        "Bâtiment",
        "Imprimerie",
        "Négoce",
    ];
    let day = |n: i64| {
        "2026-10-01T02:00:00Z".parse::<jiff::Timestamp>().unwrap()
            + jiff::SignedDuration::from_hours(24 * n)
    };
    let rows: Vec<ResultRow> = (0..rows)
        .map(|i| {
            let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
            let (color, alert) = match h % 100 {
                0..=69 => (Color::Green, None),
                70..=89 => (Color::Yellow, None),
                90..=95 => (Color::Red, Some(AlertKind::Still)),
                96 => (Color::Red, Some(AlertKind::Red)),
                _ => (Color::Black, Some(AlertKind::Still)),
            };
            let status = match h % 50 {
                1 => RowStatus::Failed,
                2 => RowStatus::Ambiguous,
                _ => RowStatus::Rated,
            };
            let rated = status == RowStatus::Rated;
            ResultRow {
                line: i + 2,
                reference: Some(format!("R{:07}", i + 1)),
                country: Some("FR".into()),
                service: Some("SIREN".into()),
                id: Some(format!("{:09}", h % 1_000_000_000)),
                name: None,
                status,
                company_id: rated.then(|| uuid::Uuid::from_u128(h.into())),
                company_name: rated.then(|| {
                    format!(
                        "{} {} {} SA",
                        FIRST[(h % 12) as usize],
                        TRADE[(h / 12 % 8) as usize],
                        FIRST[(h / 96 % 12) as usize]
                    )
                }),
                color: rated.then(|| color.clone()),
                previous_color: rated.then(|| color.clone()),
                change: rated.then_some(Change::Unchanged),
                last_change_date: rated.then(|| day(h as i64 % 300 - 300)),
                last_refresh_date: None,
                stale: false,
                alert: rated && alert.is_some(),
                alert_kind: alert.filter(|_| rated),
                alert_listed: rated && alert == Some(AlertKind::Red),
                acknowledged: false,
                error: (status == RowStatus::Failed).then(|| "HTTP 503 after 3 attempts".into()),
                candidates: Vec::new(),
                extra: Vec::new(),
                country_defaulted: false,
                extra_unreliable: false,
                found_by: None,
                reused: false,
                rating_age_hours: None,
                color_since: None,
                named: false,
            }
        })
        .collect();
    let count = |f: &dyn Fn(&ResultRow) -> bool| rows.iter().filter(|r| f(r)).count() as u64;
    let run = RunInfo {
        id: nights,
        started_at: day(nights),
        finished_at: Some(day(nights)),
        portfolio: "export".into(),
        input_path: "export.csv".into(),
        portfolio_sha256: "ab".repeat(32),
        status: RunStatus::Complete,
        demo_day: None,
        rows: rows.len() as u64,
        by_status: RowStatus::ALL
            .iter()
            .map(|s| (*s, count(&|r| r.status == *s)))
            .collect(),
        // Tiles of a million rows: their numbers must fit a phone.
        by_color: vec![
            ("green".into(), 1_000_000),
            ("yellow".into(), 250_000),
            ("red".into(), 125_000),
            ("black".into(), 12_345),
            ("white".into(), 0),
        ],
        alerts: count(&|r| r.alert_listed),
        calls: vec![("rating".into(), rows.len() as u64)],
        service_time: None,
        extra_columns: Vec::new(),
        notes: Vec::new(),
    };
    // Red moving from 170 to 205 among 100,000, a few new red and black each night.
    let trend: Vec<RunColors> = (1..=nights)
        .map(|n| RunColors {
            run_id: n,
            started_at: day(n),
            by_color: vec![
                ("green".into(), 99_000 - n as u64),
                ("red".into(), 170 + n as u64),
                ("black".into(), 12 + n as u64 / 10),
            ],
            new_by_color: vec![
                ("red".into(), 3 + n as u64 % 4),
                ("black".into(), n as u64 % 3),
            ],
            amount_by_color: Vec::new(),
        })
        .collect();
    let page = dir.join("report.html");
    let mut html = Vec::new();
    let mut report: Box<dyn Format> = Box::new(
        HtmlReport::new(&mut html, "report.csv", dir, 30, trend, None, Vec::new()).unwrap(),
    );
    report.begin(&run).unwrap();
    for row in &rows {
        report.row(row).unwrap();
    }
    // The alerts again, listed first, as the store gives them.
    let mut alerts: Vec<&ResultRow> = rows.iter().filter(|r| r.alert).collect();
    alerts.sort_by_key(|r| (!r.alert_listed, r.line));
    for row in alerts {
        report.alert_row(row).unwrap();
    }
    report.finish().unwrap();
    std::fs::write(&page, html).unwrap();
    (page, rows)
}

/// When the page loaded and first painted, as the browser counts from the navigation.
const TIMING: &str = r#"
window.addEventListener('load', function () {
  var paint = performance.getEntriesByType('paint').filter(function (p) {
    return p.name === 'first-contentful-paint';
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify({
    load: performance.now(),
    paint: paint.length ? paint[0].startTime : null
  });
  document.body.appendChild(pre);
});
"#;

/// Searches, filters, sorts and pages the table of every row once it is built; `REF` and
/// `NAME` are what it searches for.
const SEARCH: &str = r#"
document.addEventListener('rows-ready', function () {
  var table = document.getElementById('rows-table');
  var shown = document.getElementById('shown');
  function refs() {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[1].textContent; });
  }
  function set(id, value) {
    var e = document.getElementById(id);
    e.value = value;
    e.dispatchEvent(new Event('input'));
  }
  var out = { ready: Number(table.getAttribute('data-ready')), first: refs().length, text: shown.textContent };
  set('q', 'REF');
  out.byRef = refs();
  out.byRefText = shown.textContent;
  set('q', 'NAME');
  out.byName = refs().length;
  out.byNameText = shown.textContent;
  set('q', '');
  set('f-status', 'failed');
  out.failedText = shown.textContent;
  set('f-status', '');
  set('f-alert', 'standing');
  out.standingText = shown.textContent;
  set('f-alert', '');
  var line = table.tHead.rows[0].cells[0].querySelector('button');
  line.click();
  line.click();
  out.lastFirst = table.tBodies[0].rows[0].cells[0].textContent;
  document.getElementById('more').click();
  out.afterMore = refs().length;
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"#;

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn a_hundred_thousand_rows_open_in_seconds_and_search_finds_any_row() {
    let dir = tempfile::tempdir().unwrap();
    let (page, rows) = large_page(dir.path(), 100_000, 35);
    let html = std::fs::read_to_string(&page).unwrap();
    let megabytes = html.len() as f64 / 1e6;
    // A row far past the first page, neither an alert nor one to review: only in the data.
    let target = rows
        .iter()
        .rev()
        .find(|r| r.status == RowStatus::Rated && !r.alert)
        .unwrap();
    let reference = target.reference.clone().unwrap();
    let name = target.company_name.clone().unwrap();
    assert!(!html.contains(&reference), "{reference} is not markup");
    assert!(megabytes < 5.0, "{megabytes:.2} MB");

    let timing = in_browser(&page, TIMING, 1280, false);
    let load = timing["load"].as_f64().unwrap();
    let paint = match timing["paint"].as_f64() {
        Some(ms) => format!("first paint at {ms:.0} ms"),
        None => "no first paint reported".to_string(),
    };
    println!("report.html of 100,000 rows: {megabytes:.2} MB, loaded in {load:.0} ms, {paint}");
    assert!(load < 3000.0, "loaded in {load:.0} ms");

    let script = SEARCH
        .replace("REF", &reference.to_lowercase())
        .replace("NAME", &name.to_uppercase());
    let m = in_browser(&page, &script, 1280, true);
    assert_eq!(m["ready"], 100_000);
    assert_eq!(m["first"], 200, "a page of rows, not all of them");
    assert_eq!(m["text"], "100,000 rows · the first 200 shown");
    assert_eq!(m["byRef"], serde_json::json!([reference]), "{m}");
    assert_eq!(m["byRefText"], "1 of 100,000 rows match");
    let named = rows
        .iter()
        .filter(|r| r.company_name.as_deref() == Some(name.as_str()))
        .count();
    assert!(named > 1, "a name that several rows share: {name}");
    assert_eq!(m["byName"].as_u64().unwrap(), named.min(200) as u64, "{m}");
    let count = |f: &dyn Fn(&ResultRow) -> bool| rows.iter().filter(|r| f(r)).count() as u64;
    let failed = count(&|r| r.status == RowStatus::Failed);
    assert!(
        m["failedText"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{} of 100,000 rows match", thousands(failed))),
        "{m}"
    );
    let standing = count(&|r| r.alert && !r.alert_listed);
    assert!(
        m["standingText"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{} of 100,000 rows match", thousands(standing))),
        "{m}"
    );
    assert_eq!(m["lastFirst"], rows.last().unwrap().line.to_string());
    assert_eq!(m["afterMore"], 400);
}

/// The tiles, the trend's charts and their labels as laid out `WIDTH` pixels wide. A
/// headless window is never narrower than 500 pixels (already a phone's layout): a
/// narrower page is had by narrowing the document.
const LAYOUT: &str = r#"
document.addEventListener('rows-ready', function () {
  var root = document.documentElement;
  if (WIDTH < window.innerWidth) root.style.width = WIDTH + 'px';
  var out = {
    viewport: root.getBoundingClientRect().width,
    pageWidth: Math.max(document.body.scrollWidth, document.body.getBoundingClientRect().width),
    tiles: Array.prototype.map.call(document.querySelectorAll('.tile'), function (t) {
      return { text: t.textContent, scroll: t.scrollWidth, client: t.clientWidth,
        number: t.querySelector('b').scrollWidth, room: t.clientWidth };
    }),
    charts: Array.prototype.map.call(document.querySelectorAll('.trend .chart svg'), function (svg) {
      var r = svg.getBoundingClientRect();
      var labels = Array.prototype.map.call(svg.querySelectorAll('text.run'), function (t) {
        var b = t.getBoundingClientRect();
        return [b.left, b.right];
      });
      return { left: r.left, right: r.right, height: r.height, labels: labels };
    }),
    newRed: Array.prototype.filter.call(document.querySelectorAll('.trend rect.new-red'), function (r) {
      return r.getBoundingClientRect().height > 0;
    }).length,
    newBlack: Array.prototype.filter.call(document.querySelectorAll('.trend rect.new-black'), function (r) {
      return r.getBoundingClientRect().height > 0;
    }).length,
    numbers: document.querySelectorAll('.trend-numbers tbody tr').length
  };
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"#;

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn tiles_and_a_trend_of_35_nights_fit_a_phone_and_show_each_nights_news() {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = large_page(dir.path(), 2_000, 35);
    for width in [375u32, 1280] {
        let script = LAYOUT.replace("WIDTH", &width.to_string());
        let m = in_browser(&page, &script, width.max(500), true);
        let viewport = m["viewport"].as_f64().unwrap();
        assert_eq!(viewport, f64::from(width), "{m}");
        assert!(
            m["pageWidth"].as_f64().unwrap() <= viewport,
            "the page scrolls sideways at {width}px: {m}"
        );
        let tiles = m["tiles"].as_array().unwrap();
        assert_eq!(tiles.len(), 5);
        assert!(tiles[0]["text"].as_str().unwrap().contains("1,000,000"));
        for tile in tiles {
            assert!(
                tile["scroll"].as_f64() <= tile["client"].as_f64()
                    && tile["number"].as_f64() <= tile["room"].as_f64(),
                "a tile clips at {width}px: {tile}"
            );
        }
        let charts = m["charts"].as_array().unwrap();
        assert!(charts.len() >= 5, "{m}");
        for chart in charts {
            assert!(chart["left"].as_f64().unwrap() >= 0.0, "{chart}");
            assert!(chart["right"].as_f64().unwrap() <= viewport, "{chart}");
            let labels = chart["labels"].as_array().unwrap();
            assert!(labels.len() >= 2, "{chart}");
            for pair in labels.windows(2) {
                assert!(
                    pair[0][1].as_f64().unwrap() <= pair[1][0].as_f64().unwrap(),
                    "run labels overlap at {width}px: {chart}"
                );
            }
        }
        // Each night's new red (3 to 6) and new black (every third night none).
        assert_eq!(m["newRed"], 35, "{m}");
        assert_eq!(m["newBlack"], 24, "{m}");
        assert_eq!(m["numbers"], 35);
    }
}
