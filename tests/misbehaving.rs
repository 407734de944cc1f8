//! A real service that misbehaves: a wrong address, a proxy answering 404 or HTML to
//! everything, a spent quota, a product not bought, a key refused mid-run, a company
//! that disappears, a color nobody announced, names and colors written to drive a
//! terminal. None of it may end as a quiet night, none of it may spoil what the database
//! already knew, and none of it may reach a person's screen or report as it was sent.
//!
//! Most tests put a small server in front of the simulator: it forwards what the test
//! leaves alone and answers the rest as a misbehaving service or proxy would.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use ratewatch::error::ExitCode;
use ratewatch::sim::server::DEFAULT_SEED;
use ratewatch::sim::{SimConfig, dataset::Dataset};
use rusqlite::Connection;
use serde_json::Value;

use crate::common::wait::wait_until;
use crate::common::{
    Background, KEY, Ratewatch, Reply, Seen, Workspace, background, ratewatch, read_request,
    recording, write_reply,
};
use crate::common::{after_heading, color_period_bounds_from_ratings, listed_alerts};

fn sim(seed: u64) -> Background {
    background(SimConfig {
        seed,
        per_country: 5_000,
        key: KEY.into(),
        ..SimConfig::default()
    })
}

/// A server in front of the simulator, on a runtime of its own.
struct Front {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Front {
    fn new(answer: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Front {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (base, seen) = runtime.block_on(recording(move |_, seen| answer(seen)));
        Front {
            base,
            seen,
            _runtime: runtime,
        }
    }

    /// Requests received whose path contains `part`.
    fn count(&self, part: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.target.contains(part))
            .count()
    }
}

/// The simulator's own answer to a request, as the real service would give it.
fn forward(sim: &str, seen: &Seen) -> Reply {
    let addr = sim.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut request = format!(
        "GET {} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n",
        seen.target
    );
    if let Some(key) = seen.header("apikey") {
        request.push_str(&format!("apikey: {key}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split_once(' ').unwrap().1.to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .filter(|(n, _)| n == "content-type" || n == "retry-after")
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

fn reply(status: &str, content_type: &str, body: &str) -> Reply {
    Reply {
        status: status.into(),
        headers: vec![("content-type".into(), content_type.into())],
        body: body.as_bytes().to_vec(),
    }
}

fn not_found_json() -> Reply {
    reply(
        "404 Not Found",
        "application/json",
        r#"{"detail": "Not found."}"#,
    )
}

fn not_found_html() -> Reply {
    reply(
        "404 Not Found",
        "text/html",
        "<html><head><title>404 Not Found</title></head><body>nginx</body></html>",
    )
}

fn is_lookup(seen: &Seen) -> bool {
    seen.target.contains("/lookups/")
}

fn is_rating(seen: &Seen) -> bool {
    seen.target.contains("/ratings")
}

/// `ratewatch screen` in the workspace against `base`, failing at once where it would retry.
fn screen(ws: &Workspace, base: &str, portfolio: &Path) -> Ratewatch {
    let mut cmd = ws.screen_at(base, portfolio);
    cmd.args(["--retries", "0"]);
    cmd
}

/// A workspace with a portfolio of `rows` screened once against the simulator: a
/// database that has run before.
fn screened_once(rows: u64) -> (Background, Workspace, PathBuf) {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, rows);
    screen(&ws, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    (sim, ws, file)
}

/// A server in front of `sim` that answers what `answer` gives and forwards the rest.
fn front(
    sim: &Background,
    answer: impl Fn(&Seen) -> Option<Reply> + Send + Sync + 'static,
) -> Front {
    let target = sim.server.base_url();
    Front::new(move |seen| answer(seen).unwrap_or_else(|| forward(&target, seen)))
}

/// A portfolio of the simulator's companies, by identifier.
fn portfolio(ws: &Workspace, sim: &Background, rows: u64) -> PathBuf {
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), rows, &mut buf).unwrap();
    ws.write("book.csv", &buf)
}

/// Every row of a table, as text, to tell whether anything changed.
fn dump(db: &Path, table: &str) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY 1"))
        .unwrap();
    let columns = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..columns)
            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
            .collect::<Vec<_>>()
            .join("|"))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn count(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_wrong_base_url_exits_4_within_seconds_and_leaves_the_database_as_it_was() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    // On a fresh database first: 4, not 1. The address is named without its credentials.
    let wrong = format!(
        "{}/api/",
        sim.server.base_url().replace("http://", "http://u:s3cr3t@")
    );
    screen(&ws, &wrong, &file)
        .assert()
        .code(4)
        .stdout("")
        .stderr(predicate::str::contains("http://***@127.0.0.1:"))
        .stderr(predicate::str::contains("/api/v2/lookups/countries"))
        .stderr(predicate::str::contains("check --base-url"))
        .stderr(predicate::str::contains("s3cr3t").not());
    screen(&ws, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let (resolutions, ratings, runs) = (
        dump(&ws.db(), "resolutions"),
        dump(&ws.db(), "ratings"),
        dump(&ws.db(), "runs"),
    );
    // Then on a database that has run before, with lookup lists kept: still 4.
    let started = Instant::now();
    screen(&ws, &wrong, &file)
        .assert()
        .code(4)
        .stdout("")
        .stderr(predicate::str::contains(
            "did not answer as the rating service",
        ));
    // Within seconds, as it says: a wrong address is not waited on or tried again row by
    // row. It takes well under a second; the bound, far above, only catches a run that
    // goes on trying.
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert_eq!(dump(&ws.db(), "resolutions"), resolutions);
    assert_eq!(dump(&ws.db(), "ratings"), ratings);
    assert_eq!(dump(&ws.db(), "runs"), runs, "no run was even started");
}

#[test]
fn html_to_everything_is_not_the_service_even_with_a_kept_copy_of_the_lookups() {
    let (_sim, ws, file) = screened_once(10);
    for answer in [
        not_found_html as fn() -> Reply,
        || reply("200 OK", "text/html", "<html>Sign in to continue</html>"),
        || reply("200 OK", "application/json", ""),
        || reply("200 OK", "application/json", "null"),
        || reply("200 OK", "application/json", r#"{"results": []}"#),
    ] {
        let front = Front::new(move |_| answer());
        let out = screen(&ws, &front.base, &file).run();
        assert_eq!(out.status.code(), Some(4), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{}/v2/lookups/countries", front.base))
                && err.contains("check --base-url"),
            "{err}"
        );
        assert_eq!(front.count("/transactor"), 0, "no search after the canary");
    }
}

#[test]
fn a_proxy_answering_404_to_every_search_and_rating_stops_the_run_with_nothing_recorded() {
    let (sim, ws, file) = screened_once(60);
    let before: Vec<Vec<String>> = ["resolutions", "ratings", "run_companies", "companies"]
        .iter()
        .map(|t| dump(&ws.db(), t))
        .collect();
    let front = front(&sim, |seen| (!is_lookup(seen)).then(not_found_json));
    screen(&ws, &front.base, &file)
        .assert()
        .code(4)
        .stdout("")
        .stderr(predicate::str::contains(
            "the service answered 'not found' to every request",
        ));
    let asked = front.count("/v2/") - front.count("/lookups/");
    assert!(
        asked < 60,
        "stopped before a request for each of the 60 rows: {asked} requests"
    );
    let after: Vec<Vec<String>> = ["resolutions", "ratings", "run_companies", "companies"]
        .iter()
        .map(|t| dump(&ws.db(), t))
        .collect();
    assert_eq!(after, before, "the cache and the history are as they were");
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM run_rows WHERE run_id = 2 AND status = 'unresolved'"
        ),
        0
    );
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM runs WHERE id = 2 AND status = 'failed'"
        ),
        1
    );
    // The next good night needs no repair.
    screen(&ws, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM run_rows WHERE run_id = 3 AND status = 'rated'"
        ),
        60
    );
}

#[test]
fn a_404_page_that_is_not_the_services_fails_the_row_instead_of_unmatching_it() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 30);
    let front = front(&sim, |seen| is_rating(seen).then(not_found_html));
    // In-process: what is checked is the run's outcome, report and summary.
    let night = ws.screen_in_process(&front.base, &file, &["--retries", "0"]);
    assert_eq!(night.exit_code(), ExitCode::Partial, "{night:?}");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "failed"), "{rows:?}");
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap()
            .contains("without the service's JSON error"),
        "{night:?}"
    );
    let text = &night.summary;
    assert!(
        after_heading(text).starts_with("NOTHING SCREENED"),
        "{night:?}"
    );
    assert!(!text.contains("Nothing flagged"), "{night:?}");
}

#[test]
fn a_spent_quota_stops_the_run_at_once_and_the_next_run_resumes_it() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    let answered = AtomicU64::new(0);
    let front = front(&sim, move |seen| {
        (is_rating(seen) && answered.fetch_add(1, Ordering::SeqCst) >= 10).then(|| Reply {
            status: "429 Too Many Requests".into(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("retry-after".into(), "86400".into()),
            ],
            body: br#"{"detail": "Request was throttled."}"#.to_vec(),
        })
    });
    let started = Instant::now();
    let out = screen(&ws, &front.base, &file)
        .args(["--concurrency", "1"])
        .run();
    // No waiting for the day the service asks for: the run stops at once. It takes about
    // a second; the bound, far above, is still a day short of what waiting would take.
    let took = started.elapsed();
    assert!(took < Duration::from_secs(60), "{took:?}: {out:?}");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = stdout(&out);
    assert!(
        after_heading(&text).starts_with("STOPPED: the service's rate limit asks to wait until "),
        "{text}"
    );
    assert!(text.contains("the next run resumes them"), "{text}");
    // Said in the log too, without -v: a cron mail shows why the run stopped.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("longer than --max-wait"),
        "{out:?}"
    );
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let left: Vec<&Value> = rows.iter().filter(|r| r["status"] != "rated").collect();
    assert!(left.len() > 20, "{rows:?}");
    assert!(left.iter().all(|r| {
        r["error"]
            .as_str()
            .unwrap()
            .starts_with("not screened: rate limit: the service asked to wait until")
    }));
    assert_eq!(front.count("/ratings"), 11, "one refused call, then none");
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM runs WHERE status = 'interrupted'"
        ),
        1
    );

    let next = screen(&ws, &sim.server.base_url(), &file).run();
    assert!(next.status.code().is_some_and(|c| c < 2), "{next:?}");
    assert!(String::from_utf8_lossy(&next.stderr).contains("resuming interrupted run 1"));
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM runs"), 1);
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "rated"));
    // Calls add up across both processes: every rating the simulator answered, and the
    // one refused by the front.
    let calls: Value = serde_json::from_str(
        &Connection::open(ws.db())
            .unwrap()
            .query_row("SELECT calls FROM runs WHERE id = 1", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        calls["rating"],
        sim.server.stats().calls(ratewatch::sim::Endpoint::Rating) + 1,
        "{calls}"
    );
}

#[test]
fn a_403_that_is_not_about_the_key_stops_the_run_and_says_what_to_do() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 30);
    let front = front(&sim, |seen| {
        (!is_lookup(seen)).then(|| {
            reply(
                "403 Forbidden",
                "application/json",
                r#"{"detail": "The rating package is not enabled for this account."}"#,
            )
        })
    });
    screen(&ws, &front.base, &file)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("does not include this product"));
    assert_eq!(front.count("/transactor"), 1, "one refused call, then none");
}

#[test]
fn a_key_refused_mid_run_still_prints_the_alerts_found_before() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 30);
    let target = sim.server.base_url();
    let ratings = Arc::new(AtomicU64::new(0));
    let answered = ratings.clone();
    let front = Front::new(move |seen| {
        if !is_rating(seen) {
            return forward(&target, seen);
        }
        if answered.fetch_add(1, Ordering::SeqCst) >= 5 {
            return reply(
                "401 Unauthorized",
                "application/json",
                r#"{"detail": "You couldn't be authenticated."}"#,
            );
        }
        // Red, whatever the simulator says: an alert found before the refusal.
        let mut answer = forward(&target, seen);
        let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
        json["ratingColor"] = "red".into();
        answer.body = json.to_string().into_bytes();
        answer
    });
    let out = screen(&ws, &front.base, &file)
        .args(["--concurrency", "1"])
        .run();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("5 alerts"), "{text}");
    assert_eq!(text.matches("red (first screening)").count(), 5, "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused the API key"));
}

#[test]
fn reports_that_cannot_be_written_still_leave_the_summary_in_the_mail() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let blocker = ws.write("out", b"a file where the folder should be");
    let out = screen(&ws, &sim.server.base_url(), &file).run();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("20 rows — 20 rated"), "{text}");
    assert!(
        !text.contains("reports:"),
        "no pointer to files not written: {text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the reports"));
    assert_eq!(
        std::fs::read(&blocker).unwrap(),
        b"a file where the folder should be"
    );
}

#[test]
fn a_company_the_service_no_longer_knows_is_reported_gone_once_with_its_last_color() {
    let before = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let data = Dataset::new(DEFAULT_SEED, 5_000);
    let company = data.companies().nth(7).unwrap();
    let uuid = data.uuid(company);
    let color = data.rating(company, 1).color.to_string();
    // The known company first, then rows by identifier that prove the service answers.
    let mut csv = format!("ref,country,company_id,service,id\nGONE,FR,{uuid},,\n");
    for (i, r) in data.companies().skip(100).take(25).enumerate() {
        let id = &data.external_ids(r)[0];
        let country = ratewatch::sim::catalog::RATED[r.country].code;
        csv.push_str(&format!(
            "R{i},{country},,{},{}\n",
            id.external_service, id.external_id
        ));
    }
    let file = ws.write("book.csv", csv.as_bytes());
    screen(&ws, &before.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));

    // Then the service forgets that one company, and only it.
    let forgotten = uuid.to_string();
    let after = front(&before, move |seen| {
        seen.target.contains(&forgotten).then(not_found_json)
    });
    let out = screen(&ws, &after.base, &file).run();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let gone = rows.iter().find(|r| r["ref"] == "GONE").unwrap();
    assert_eq!(gone["status"], "unresolved", "{gone}");
    assert_eq!(gone["change"], "gone", "{gone}");
    assert_eq!(gone["color"], color.as_str(), "{gone}");
    assert_eq!(gone["alert"], true);
    assert!(
        gone["error"].as_str().unwrap().starts_with(&format!(
            "gone: the service no longer knows this company (last seen {color} on "
        )),
        "{gone}"
    );
    let text = stdout(&out);
    let line = text.lines().find(|l| l.contains("GONE")).unwrap();
    assert!(line.contains(&format!("{color} → gone")), "{text}");

    // The history says when it was last seen.
    let history = ratewatch(["history", &uuid.to_string()]).db(ws.db()).run();
    let text = stdout(&history);
    assert!(
        text.contains("gone: run 2 (")
            && text.contains("no longer knows this company; last seen 20"),
        "{text}"
    );

    // News once: the next night it is a row with no match, not an alert again.
    screen(&ws, &after.base, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let gone = rows.iter().find(|r| r["ref"] == "GONE").unwrap();
    assert_eq!(gone["status"], "unresolved", "{gone}");
    assert_eq!(gone["alert"], false, "{gone}");
    assert_eq!(gone["change"], Value::Null, "{gone}");
}

#[test]
fn a_color_nobody_announced_is_an_alert_when_first_seen() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 25);
    let target = sim.server.base_url();
    let front = Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        if is_rating(seen) {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            json["ratingColor"] = "Orange".into();
            answer.body = json.to_string().into_bytes();
        }
        answer
    });
    let out = screen(&ws, &front.base, &file).run();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    // One alert per company, with every ref that holds it: 25 rows, 23 companies, of
    // which the first 20 are listed (`max_listed`), the rest counted.
    assert!(
        text.contains("\n23 alerts, worst first; 20 listed"),
        "{text}"
    );
    assert_eq!(text.matches("unknown color orange").count(), 20, "{text}");
    assert!(text.contains("  … and 3 more in the reports\n"), "{text}");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(
        rows.iter()
            .all(|r| r["color"] == "orange" && r["alert"] == true)
    );
}

#[test]
fn a_portfolio_that_lost_most_of_its_rows_is_said_first_or_refused() {
    let (sim, ws, file) = screened_once(30);
    let text = std::fs::read_to_string(&file).unwrap();
    let cut: String = text.lines().take(11).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, cut).unwrap();
    screen(&ws, &sim.server.base_url(), &file)
        .arg("--fail-on-shrink")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("more than half are gone"));
    let out = screen(&ws, &sim.server.base_url(), &file).run();
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    assert!(
        after_heading(&stdout(&out))
            .starts_with("SHRUNK: the portfolio has 10 rows against 30 in run 1 of book"),
        "{}",
        stdout(&out)
    );
    // Against the last finished run: run 2 had 10 rows, so 10 again is no news.
    let quiet = screen(&ws, &sim.server.base_url(), &file).run();
    assert!(!stdout(&quiet).contains("SHRUNK"));
}

#[test]
fn lookup_lists_that_are_passingly_unavailable_fall_back_on_the_kept_copy_and_say_so() {
    let (sim, ws, file) = screened_once(10);
    let front = front(&sim, |seen| {
        is_lookup(seen).then(|| reply("503 Service Unavailable", "text/html", "<html>busy</html>"))
    });
    let out = screen(&ws, &front.base, &file).run();
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    assert!(
        after_heading(&stdout(&out)).starts_with(
            "NOTE: the service's lookup lists could not be fetched (the service answered HTTP 503"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_few_not_found_and_nothing_else_are_not_believed() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 6);
    let front = front(&sim, |seen| (!is_lookup(seen)).then(not_found_json));
    let out = screen(&ws, &front.base, &file).run();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = stdout(&out);
    assert!(
        after_heading(&text).starts_with("NOTE: the service answered 'not found' to all "),
        "{text}"
    );
    assert!(text.contains("NOTHING SCREENED"), "{text}");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "failed"), "{rows:?}");
    assert_eq!(
        count(&ws.db(), "SELECT count(*) FROM resolutions"),
        0,
        "nothing cached"
    );
}

#[test]
fn a_call_budget_reaches_every_row_over_successive_nights() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 200);
    let reached = |db: &Path| {
        count(
            db,
            "SELECT count(DISTINCT line) FROM run_rows WHERE status = 'rated'",
        )
    };
    let mut nights = 0;
    while nights == 0 || reached(&ws.db()) < 200 {
        nights += 1;
        assert!(nights <= 5, "five nights of 150 calls reach every row");
        let out = screen(&ws, &sim.server.base_url(), &file)
            .args(["--max-calls", "150"])
            .run();
        let text = stdout(&out);
        if out.status.code() == Some(3) {
            assert!(
                text.contains("not screened: call budget reached (--max-calls)"),
                "{text}"
            );
            assert!(!text.contains("network error"), "{text}");
        }
    }
    assert!(nights >= 3, "the budget did bind: {nights} nights");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let left: Vec<&Value> = rows.iter().filter(|r| r["status"] == "failed").collect();
    assert!(left.iter().all(|r| {
        r["error"]
            .as_str()
            .unwrap()
            .starts_with("not screened: call budget reached")
    }));
}

/// What a hostile service puts in a name: a screen clear, a right-to-left override and an
/// isolate; in a city, an override.
const EVIL_NAME: &str = "Evil\u{1b}[2J\u{202e}Corp\u{2066}";

/// An escape sequence that hides everything printed after it.
const EVIL_COLOR: &str = "\u{1b}[8m";

/// A server in front of `sim` that names every company [`EVIL_NAME`] and rates it `color`.
fn hostile(sim: &Background, color: String) -> Front {
    let target = sim.server.base_url();
    Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        let company = seen.target.contains("/transactor/");
        if answer.status.starts_with("200") && (is_rating(seen) || company) {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            if company {
                json["Name"] = EVIL_NAME.into();
                json["Address"]["City"] = "Par\u{202e}is".into();
            } else {
                json["ratingColor"] = color.clone().into();
            }
            answer.body = json.to_string().into_bytes();
        }
        answer
    })
}

/// Fails when `text` carries, raw or escaped as JSON writes it, a character that drives a
/// terminal or reorders what a person reads.
fn assert_harmless(what: &str, text: &str) {
    for bad in ['\u{1b}', '\u{9b}', '\u{7}', '\u{202e}', '\u{2066}'] {
        assert!(
            !text.contains(bad),
            "{what} carries U+{:04X}: {text:?}",
            bad as u32
        );
    }
    let lower = text.to_lowercase();
    for escaped in ["\\u001b", "\\u202e", "\\u2066"] {
        assert!(!lower.contains(escaped), "{what} carries {escaped}: {text}");
    }
}

/// Every listing that shows a company, its color or the run, each harmless.
fn listings_are_harmless(ws: &Workspace, company_id: &str) -> String {
    let mut said = String::new();
    for args in [
        &["runs"][..],
        &["runs", "--json"],
        &["runs", "--csv"],
        &["history", company_id],
        &["history", company_id, "--json"],
        &["changes", "--since", "2000-01-01"],
        &["alerts", "test"],
        &["ack", company_id, "--note", "seen\u{1b}[2J"],
        &["acks"],
        &["acks", "--json"],
        &["acks", "--csv"],
        &["acks", "--all"],
        &["audit"],
        &["audit", "--json"],
        &["audit", "--csv"],
    ] {
        let out = ws.ratewatch(args).db(ws.db()).run();
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {out:?}"
        );
        let text = stdout(&out);
        assert_harmless(&format!("`ratewatch {}`", args.join(" ")), &text);
        assert_harmless(
            &format!("`ratewatch {}` (stderr)", args.join(" ")),
            &String::from_utf8_lossy(&out.stderr),
        );
        said.push_str(&text);
    }
    said
}

/// The webhook's bodies of run 1, as text: the JSON document, the Slack message and the
/// Teams card.
fn webhook_bodies(ws: &Workspace) -> Vec<(&'static str, String)> {
    use ratewatch::deliver::Message;
    use ratewatch::deliver::webhook::{Format, MAX_POSTED};
    let store = ratewatch::store::Store::open_read_only(&ws.db()).unwrap();
    let run = store.run_info(1).unwrap();
    let rules = ratewatch::alerts::Rules {
        max_listed: MAX_POSTED,
        ..Default::default()
    };
    let recorded = ratewatch::store::Verdicts::Recorded;
    let digest = store.alert_digest(1, &rules, recorded).unwrap();
    let heading = ratewatch::digest::Heading {
        started_at: run.started_at,
        portfolio: run.portfolio.clone(),
        run_id: run.id,
        report: None,
    };
    let message = Message {
        run,
        digest,
        heading,
        delivery_id: ratewatch::deliver::new_delivery_id(),
        page: None,
        reader: Default::default(),
    };
    [Format::Json, Format::Slack, Format::Teams]
        .map(|f| (f.as_str(), String::from_utf8(f.body(&message)).unwrap()))
        .to_vec()
}

#[test]
fn a_name_and_a_color_that_would_drive_the_terminal_reach_no_output_as_they_were() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 6);
    let front = hostile(&sim, EVIL_COLOR.into());
    let out = screen(&ws, &front.base, &file).run();
    assert_eq!(
        out.status.code(),
        Some(1),
        "an unknown color is an alert: {out:?}"
    );
    let text = stdout(&out);
    assert_harmless("the summary", &text);
    // The color is reported, in a form that hides nothing after it: the alerts follow.
    let colors = text.lines().find(|l| l.starts_with("colors: ")).unwrap();
    assert!(colors.ends_with(" ??8m"), "{text}");
    assert!(text.contains("worst first:"), "{text}");
    assert!(text.contains("unknown color ??8m"), "{text}");
    assert!(text.contains("Evil [2JCorp"), "{text}");

    for name in ["report.csv", "report.json", "report.html"] {
        let file = std::fs::read_to_string(ws.path("out").join(name)).unwrap();
        assert_harmless(name, &file);
        assert!(file.contains("Evil [2JCorp"), "{name}: {file}");
    }
    let report = ws.report();
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["color"] == "??8m"), "{rows:?}");
    // Found by identifier, so named by the hostile answer (searches by name are not).
    let by_id: Vec<&Value> = rows.iter().filter(|r| r["service"].is_string()).collect();
    assert!(!by_id.is_empty());
    assert!(
        by_id.iter().all(|r| r["company_name"] == "Evil [2JCorp"),
        "{rows:#?}"
    );
    assert_eq!(report["run"]["by_color"]["??8m"], rows.len());
    // Stored clean: no later listing can print it raw.
    let stored = |sql: &str| {
        count(
            &ws.db(),
            &format!("SELECT count(*) FROM companies WHERE {sql}"),
        )
    };
    assert!(stored("name = 'Evil [2JCorp' AND city = 'Paris'") > 0);
    assert_eq!(
        stored("instr(name || city, char(27)) OR instr(name || city, char(8238))"),
        0
    );
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM ratings WHERE color <> '??8m'"
        ),
        0
    );

    let company_id = by_id[0]["company_id"].as_str().unwrap().to_string();
    let said = listings_are_harmless(&ws, &company_id);
    assert!(
        said.contains("??8M"),
        "a column of its own in `runs`: {said}"
    );
    assert!(
        said.contains("Evil [2JCorp: acknowledged at ??8m"),
        "{said}"
    );
    for (format, body) in webhook_bodies(&ws) {
        assert_harmless(&format!("the webhook's {format} body"), &body);
        assert!(body.contains("Evil [2JCorp"), "{format}: {body}");
    }
}

#[test]
fn what_an_older_version_stored_raw_is_shown_harmless_everywhere() {
    let (_sim, ws, _file) = screened_once(6);
    let raw = "char(27) || '[2J' || char(8238) || 'Old' || char(8294) || char(155) || '31m'";
    let conn = Connection::open(ws.db()).unwrap();
    conn.execute_batch(&format!(
        "UPDATE companies SET name = 'Acme' || {raw}, city = 'Lyon' || {raw};
         UPDATE ratings SET color = char(27) || '[8m' || color;
         UPDATE run_colors SET color = char(27) || '[8m' || color;
         UPDATE runs SET portfolio = 'book' || char(27) || ']0;owned' || char(7);
         UPDATE run_row_spans SET portfolio = 'book' || char(27) || ']0;owned' || char(7);"
    ))
    .unwrap();
    drop(conn);

    let out = ws
        .ratewatch(["report", "--run", "1", "--out", "again"])
        .db(ws.db())
        .run();
    assert!(out.status.success(), "{out:?}");
    assert_harmless("the summary of `ratewatch report`", &stdout(&out));
    assert!(stdout(&out).contains("colors: "), "{}", stdout(&out));
    for name in ["report.csv", "report.json", "report.html"] {
        let file = std::fs::read_to_string(ws.path("again").join(name)).unwrap();
        assert_harmless(name, &file);
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path("again/report.json")).unwrap())
            .unwrap();
    let rows = report["rows"].as_array().unwrap();
    let company_id = rows
        .iter()
        .find_map(|r| r["company_id"].as_str())
        .unwrap()
        .to_string();
    let said = listings_are_harmless(&ws, &company_id);
    assert!(said.contains("Acme [2JOld 31m"), "{said}");
    for (format, body) in webhook_bodies(&ws) {
        assert_harmless(&format!("the webhook's {format} body"), &body);
    }
}

#[test]
fn a_color_of_100_000_characters_is_cut_and_the_mail_stays_small() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 6);
    let huge = format!("{EVIL_COLOR}{}", "x".repeat(100_000));
    let front = hostile(&sim, huge);
    let out = screen(&ws, &front.base, &file).run();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert_harmless("the summary", &text);
    assert!(text.len() < 8_000, "{} bytes: {text}", text.len());
    assert!(text.contains("unknown color ??8mxxxx"), "{text}");
    let report = ws.report();
    for row in report["rows"].as_array().unwrap() {
        let color = row["color"].as_str().unwrap();
        assert!(
            color.chars().count() <= 33 && color.ends_with('…'),
            "{color}"
        );
    }
    assert!(count(&ws.db(), "SELECT max(length(color)) FROM ratings") <= 33);
    let runs = ws.ratewatch(["runs"]).db(ws.db()).run();
    assert!(stdout(&runs).len() < 2_000, "{}", stdout(&runs));
}

#[test]
fn answers_for_another_company_or_country_fail_their_rows_and_are_never_stored() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 12);
    let target = sim.server.base_url();
    // A gateway that mixes up answers: every rating is the same other company's, black.
    let swapped = "00000000-0000-4000-8000-000000000001";
    let front = Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        if is_rating(seen) {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            json["companyId"] = swapped.into();
            json["ratingColor"] = "black".into();
            answer.body = json.to_string().into_bytes();
        }
        answer
    });
    let out = screen(&ws, &front.base, &file).run();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        !text.contains("black"),
        "no row colored by another's answer: {text}"
    );
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM ratings"), 0);
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let rated: Vec<_> = rows
        .iter()
        .filter(|r| r["company_id"].is_string())
        .collect();
    assert!(!rated.is_empty(), "the searches were answered: {text}");
    for row in rated {
        assert_eq!(row["status"], "failed", "{row}");
        let error = row["error"].as_str().unwrap();
        assert!(error.contains("answer is for another company"), "{error}");
        assert!(error.contains(swapped), "{error}");
    }

    // Searches answered with companies of another country.
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 12);
    let target = sim.server.base_url();
    let front = Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        if seen.target.contains("/transactor") && answer.status.starts_with("200") {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            let relocate = |c: &mut Value| c["Address"]["CountryCode"] = "US".into();
            match json.as_array_mut() {
                Some(found) => found.iter_mut().for_each(relocate),
                None => relocate(&mut json),
            }
            answer.body = json.to_string().into_bytes();
        }
        answer
    });
    let out = screen(&ws, &front.base, &file).run();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM ratings"), 0);
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM companies"), 0);
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    for row in rows.iter().filter(|r| r["status"] != "invalid") {
        assert_eq!(row["status"], "failed", "{row}");
        let error = row["error"].as_str().unwrap();
        assert!(error.contains("answer is for another country"), "{error}");
    }
}

/// A server in front of a simulator that never answers some requests, on a runtime of its
/// own.
struct Hanging {
    base: String,
    /// Requests received.
    seen: Arc<AtomicU64>,
    _runtime: tokio::runtime::Runtime,
}

/// A server in front of `sim` that accepts every connection and reads every request, but
/// never answers those `hangs(request, how many came before)` picks: a service that
/// stopped answering. The rest are forwarded.
fn hanging(
    sim: &Background,
    hangs: impl Fn(&Seen, u64) -> bool + Send + Sync + 'static,
) -> Hanging {
    use tokio::io::AsyncReadExt;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let target = sim.server.base_url();
    let hangs = Arc::new(hangs);
    let seen = Arc::new(AtomicU64::new(0));
    let received = seen.clone();
    let base = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(crate::common::loopback())
            .await
            .unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (target, hangs, seen) = (target.clone(), hangs.clone(), seen.clone());
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut stream).await else {
                        return;
                    };
                    if hangs(&request, seen.fetch_add(1, Ordering::SeqCst)) {
                        // Held open, never answered, until the client gives up.
                        let _ = stream.read(&mut [0u8; 64]).await;
                        return;
                    }
                    let reply = tokio::task::spawn_blocking(move || forward(&target, &request))
                        .await
                        .unwrap();
                    write_reply(&mut stream, &reply).await;
                });
            }
        });
        base
    });
    Hanging {
        base,
        seen: received,
        _runtime: runtime,
    }
}

/// How long a run against a service gone silent may take to give up: it is told to after
/// 3 s of silence (`--max-silence 3`, requests timing out after 1 s) and does in about 5;
/// past two minutes it would be holding the night, which is what these tests rule out.
const GIVES_UP: Duration = Duration::from_secs(120);

#[test]
fn a_service_that_stops_answering_after_a_first_good_answer_ends_the_night_resumable() {
    let (sim, ws, file) = screened_once(40);
    sim.server.set_day(3);
    // Lookups and the first five ratings answered; then nothing, ever.
    let front = hanging(&sim, |seen, n| is_rating(seen) && n >= 7);
    let out = ws
        .screen_at(&front.base, &file)
        .args(["--timeout", "1", "--retries", "1", "--max-silence", "3"])
        .spawn()
        .finish_within(GIVES_UP, "giving up on the silence");
    let text = &out.stdout;
    assert_eq!(out.code(), Some(3), "{out:?}");
    assert!(
        after_heading(text).starts_with("STOPPED: service not answering (no answer for "),
        "{text}"
    );
    let report = ws.report();
    assert_eq!(report["run"]["status"], "interrupted");
    let rows = report["rows"].as_array().unwrap();
    let waiting = rows
        .iter()
        .filter(|r| {
            r["error"]
                .as_str()
                .is_some_and(|e| e.starts_with("not screened: service not answering"))
        })
        .count();
    assert!(waiting > 20, "{text}");
    let rated: std::collections::HashSet<_> = rows
        .iter()
        .filter(|r| r["status"] == "rated")
        .map(|r| r["company_id"].to_string())
        .collect();
    assert_eq!(
        rated.len(),
        5,
        "the answers before the silence are kept: {out:?}"
    );
    // The service is back: the next run resumes with the rows not screened.
    let next = ws.screen(&sim, &file).run();
    assert!(matches!(next.status.code(), Some(0 | 1)), "{next:?}");
    assert_eq!(ws.report()["run"]["by_status"]["rated"], 40);
}

#[test]
fn a_service_that_never_answers_is_unreachable_and_records_nothing() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 10);
    let front = hanging(&sim, |_, _| true);
    let out = ws
        .screen_at(&front.base, &file)
        .args(["--timeout", "1", "--retries", "1", "--max-silence", "3"])
        .spawn()
        .finish_within(GIVES_UP, "giving up on the silence");
    assert_eq!(out.code(), Some(4), "{out:?}");
    assert!(
        out.stderr.contains("could not reach the service"),
        "{out:?}"
    );
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM ratings"), 0);
}

/// The service's clock far off this machine's (its requestDate in 2000 for some answers,
/// in 2099 for others): what ratewatch observes is dated by its own clock. Staleness is
/// judged on the run's start, the windows of `changes` hold what the runs saw now, the
/// warning says so, and the service's time is kept for the record only.
#[test]
fn a_service_clock_decades_off_dates_nothing_and_is_warned_about() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    // Companies whose id ends in 0–3 were last recalculated in 2024: stale by any clock
    // but one of 2000.
    let old = |company: &str| company.ends_with(['0', '1', '2', '3']);
    let answered = Arc::new(AtomicU64::new(0));
    let target = sim.server.base_url();
    let counter = answered.clone();
    let front = Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        if seen.target.contains("/companies/") && answer.status.starts_with("200") {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            let n = counter.fetch_add(1, Ordering::Relaxed);
            json["requestDate"] = if n.is_multiple_of(2) {
                "2000-01-01T00:00:00.000000Z"
            } else {
                "2099-01-01T00:00:00.000000Z"
            }
            .into();
            if old(json["companyId"].as_str().unwrap()) {
                json["lastRefreshDate"] = "2024-06-03T01:00:00".into();
                json["lastChangeDate"] = "2024-06-03T00:00:00".into();
            }
            answer.body = json.to_string().into_bytes();
        }
        answer
    });
    let night = |day: i64| {
        sim.server.set_day(day);
        // Whole seconds, as times are kept.
        let before = jiff::Timestamp::now().strftime("'%Y-%m-%dT%H:%M:%SZ'");
        let out = screen(&ws, &front.base, &file).run();
        let after = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second() + 1)
            .unwrap()
            .strftime("'%Y-%m-%dT%H:%M:%SZ'");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            stderr.contains("more than a day from this machine's clock"),
            "warned: {stderr}"
        );
        // Observed, and confirmed, by this machine's clock.
        let run = "(SELECT max(id) FROM runs)";
        let seen = count(
            &ws.db(),
            &format!("SELECT count(*) FROM ratings WHERE first_run_id = {run}"),
        ) + count(
            &ws.db(),
            &format!("SELECT count(*) FROM rating_confirmations WHERE last_run_id = {run}"),
        );
        assert!(seen > 20, "{seen}");
        let outside = format!(
            "SELECT (SELECT count(*) FROM ratings WHERE first_run_id = {run}
                        AND observed_at NOT BETWEEN {before} AND {after})
                  + (SELECT count(*) FROM rating_confirmations WHERE last_run_id = {run}
                        AND confirmed_at NOT BETWEEN {before} AND {after})"
        );
        assert_eq!(count(&ws.db(), &outside), 0);
    };
    night(1);
    assert!(answered.load(Ordering::Relaxed) > 20);
    let report = ws.report();
    let rated: Vec<&Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "rated")
        .collect();
    assert!(rated.len() > 20);
    assert!(rated.iter().any(|r| old(r["company_id"].as_str().unwrap())));
    for r in &rated {
        assert_eq!(r["stale"], old(r["company_id"].as_str().unwrap()), "{r}");
    }
    // The service's time of the run, for the record.
    let kept: String = Connection::open(ws.db())
        .unwrap()
        .query_row("SELECT service_time FROM runs WHERE id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(
        ["2000-01-01T00:00:00Z", "2099-01-01T00:00:00Z"].contains(&kept.as_str()),
        "{kept}"
    );

    // A month of the simulator later: color changes, seen now.
    night(30);
    let changes = |args: &[&str]| -> Vec<Value> {
        let out = ratewatch(["changes", "--json"])
            .db(ws.db())
            .args(args)
            .assert()
            .code(0);
        let listed: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        listed["changes"].as_array().unwrap().clone()
    };
    let this_week = changes(&[]);
    assert!(!this_week.is_empty(), "the default window holds them");
    assert_eq!(this_week.len(), changes(&["--since", "2000-01-01"]).len());
    assert!(changes(&["--since", "2098-12-31"]).is_empty());
    assert!(changes(&["--since", "1999-12-31", "--until", "2000-01-02"]).is_empty());
    assert!(this_week.iter().all(|c| c["run_id"] == 2), "{this_week:?}");
    // Judged on the second run's start too.
    for r in ws.report()["rows"].as_array().unwrap() {
        if r["status"] == "rated" {
            assert_eq!(r["stale"], old(r["company_id"].as_str().unwrap()), "{r}");
        }
    }
}

#[test]
fn ratings_the_service_dates_in_2099_are_said_and_age_from_the_night_they_were_seen() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    // Companies whose id ends in 0–3: the service dates their rating in 2099.
    let ahead = |company: &str| company.ends_with(['0', '1', '2', '3']);
    let target = sim.server.base_url();
    let front = Front::new(move |seen| {
        let mut answer = forward(&target, seen);
        if seen.target.contains("/companies/") && answer.status.starts_with("200") {
            let mut json: Value = serde_json::from_slice(&answer.body).unwrap();
            if json["companyId"].as_str().is_some_and(ahead) {
                json["lastRefreshDate"] = "2099-01-01T00:00:00".into();
                json["lastChangeDate"] = "2099-01-01T00:00:00".into();
            }
            answer.body = json.to_string().into_bytes();
        }
        answer
    });
    // A rating is used without a call for a day and a half (red: a day).
    ws.write("ratewatch.toml", b"rating_max_age = 36\n");
    let run = |at: &str| {
        let out = screen(&ws, &front.base, &file).run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{at}: {out:?}");
        stdout(&out)
    };
    // The rows whose rating the service dates ahead, by ref and company.
    let ahead_rows = |report: &Value| -> Vec<Value> {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["status"] == "rated" && r["company_id"].as_str().is_some_and(ahead))
            .cloned()
            .collect()
    };
    let asked = |company: &str| {
        front
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| is_rating(s) && s.target.contains(company))
            .count()
    };

    // The first night: said, counted, with examples by ref.
    let before = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let summary = run("first night");
    let after = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second() + 1)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let report = ws.report();
    let rows = ahead_rows(&report);
    assert!(rows.len() >= 3, "{}", rows.len());
    let companies: std::collections::BTreeSet<&str> = rows
        .iter()
        .map(|r| r["company_id"].as_str().unwrap())
        .collect();
    let note = summary
        .lines()
        .find(|l| l.starts_with("CLOCK: "))
        .unwrap_or_else(|| panic!("no CLOCK line: {summary}"));
    assert!(
        note.starts_with(&format!(
            "CLOCK: the service dated {} ratings more than a day ahead of this machine's clock",
            companies.len()
        )),
        "{note}"
    );
    assert!(
        rows.iter().any(|r| note.contains(&format!(
            "e.g. {} (lastRefreshDate 2099-01-01T00:00:00Z)",
            r["ref"].as_str().unwrap()
        ))),
        "{note}"
    );
    // Taken as of the night: fresh, since then, and the service's date kept as given.
    for r in &rows {
        for date in ["last_refresh_date", "last_change_date"] {
            let at = r[date].as_str().unwrap();
            assert!(before.as_str() <= at && at <= after.as_str(), "{date}: {r}");
        }
        assert_eq!(r["stale"], false, "{r}");
    }
    let kept = count(
        &ws.db(),
        "SELECT count(DISTINCT company) FROM ratings
         WHERE last_refresh_date = '2099-01-01T00:00:00Z'
           AND last_change_date = '2099-01-01T00:00:00Z'",
    );
    assert_eq!(kept, companies.len() as i64);

    // A night later: the ratings are a night old, by the run that saw them, so the greens
    // are reused (red is asked every night)...
    crate::common::a_night_passes(&ws.db());
    let calls: Vec<usize> = companies.iter().map(|c| asked(c)).collect();
    run("second night");
    let report = ws.report();
    for r in ahead_rows(&report) {
        let company = r["company_id"].as_str().unwrap();
        let i = companies.iter().position(|c| *c == company).unwrap();
        if r["color"] == "red" {
            assert_eq!(r["reused"], false, "{r}");
        } else {
            assert_eq!(r["reused"], true, "{r}");
            assert_eq!(r["rating_age_hours"], 24, "{r}");
            assert_eq!(asked(company), calls[i], "reused without a call: {r}");
        }
    }
    // ... and a night later still, older than their day and a half: asked again.
    crate::common::a_night_passes(&ws.db());
    let calls: Vec<usize> = companies.iter().map(|c| asked(c)).collect();
    run("third night");
    for (i, company) in companies.iter().enumerate() {
        assert_eq!(asked(company), calls[i] + 1, "{company}");
    }

    // A month later the service still says 2099: the same ratings, now stale, in the
    // reports and in the views alike. (The color periods are worked out again from the
    // times so moved.)
    Connection::open(ws.db())
        .unwrap()
        .execute_batch(&format!(
            "UPDATE runs SET started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '-31 days'),
                             finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', finished_at, '-31 days');
             UPDATE ratings SET observed_at = strftime('%Y-%m-%dT%H:%M:%SZ', observed_at, '-31 days');
             UPDATE rating_confirmations
                SET confirmed_at = strftime('%Y-%m-%dT%H:%M:%SZ', confirmed_at, '-31 days');
             DELETE FROM color_period_bounds;
             {}",
            color_period_bounds_from_ratings()
        ))
        .unwrap();
    let summary = run("a month later");
    assert!(summary.contains("CLOCK: the service dated"), "{summary}");
    let report = ws.report();
    let rows = ahead_rows(&report);
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["stale"], true, "{r}");
    }
    let dated_ahead = "FROM portfolio_now p JOIN latest_ratings l ON l.company = p.company
                       WHERE p.status = 'rated' AND l.last_refresh_date = '2099-01-01T00:00:00Z'";
    let (seen, fresh_forever) = (
        count(&ws.db(), &format!("SELECT count(*) {dated_ahead}")),
        count(
            &ws.db(),
            &format!("SELECT count(*) {dated_ahead} AND (p.stale = 0 OR p.days_in_color < 31)"),
        ),
    );
    assert!(seen > 0);
    assert_eq!(fresh_forever, 0, "stale, and in their color for a month");
}

#[test]
fn sigterm_while_the_lookups_hang_stops_at_once_with_nothing_recorded() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 10);
    let front = hanging(&sim, |_, _| true);
    let mut child = ws.screen_at(&front.base, &file).spawn();
    // The lookups asked, and hanging: the service has their request.
    wait_until("the run's first request", || {
        front.seen.load(Ordering::SeqCst) > 0 || child.ended()
    });
    assert!(!child.ended(), "ended before the signal: {}", child.said());
    child.signal(libc::SIGTERM);
    // At once: the lookups would hang until their timeout (30 s by default) and the
    // silence's end. The stop takes a moment; the bound only catches waiting for them.
    let out = child.finish_within(Duration::from_secs(60), "stopping at SIGTERM");
    assert_eq!(out.code(), Some(3), "{out:?}");
    assert!(
        out.stderr
            .contains("STOPPED: stopped by SIGTERM before any row was screened"),
        "{out:?}"
    );
    assert_eq!(count(&ws.db(), "SELECT count(*) FROM runs"), 0);
}

#[test]
fn a_night_no_call_reached_is_unreachable_even_with_kept_lookups_and_spends_no_call() {
    let (_sim, ws, file) = screened_once(30);
    // A port nobody listens on: every connection refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = ws
        .screen_at(&base, &file)
        .args(["--retries", "1", "--retry-delay-ms", "10"])
        .run();
    let text = stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{text}\n{stderr}");
    assert!(
        stderr.contains("service unreachable: not one request"),
        "{stderr}"
    );
    assert!(
        text.contains("NOTE: the service's lookup lists could not be fetched"),
        "the kept lists were used: {text}"
    );
    let calls: String = Connection::open(ws.db())
        .unwrap()
        .query_row("SELECT calls FROM runs WHERE id = 2", [], |r| r.get(0))
        .unwrap();
    assert_eq!(calls, "{}", "no answer, no call spent");
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM runs WHERE id = 2 AND status = 'failed'"
        ),
        1
    );
}

/// The company of the same country next to the one holding the identifier an identifier
/// search asks for, as a proxy that mixes up answers would give it; `None` for any other
/// request.
fn neighbour_of_the_asked(data: &Dataset, seen: &Seen) -> Option<Reply> {
    let path = seen.target.split('?').next()?;
    let mut parts = path.trim_start_matches("/v2/transactor/").split('/');
    if !path.starts_with("/v2/transactor/") {
        return None;
    }
    let (country, service, id) = (parts.next()?, parts.next()?, parts.next()?);
    let country = Dataset::country_index(&country.to_uppercase())?;
    let id = percent_encoding::percent_decode_str(id)
        .decode_utf8()
        .ok()?;
    let r = data.find_external(country, service, &id)?;
    let other = ratewatch::sim::CompanyRef {
        country,
        n: (r.n + 1) % data.per_country(),
    };
    let body = serde_json::to_string(&data.company(other)).unwrap();
    Some(reply("200 OK", "application/json", &body))
}

#[test]
fn an_identifier_answered_with_another_company_fails_its_row_and_the_next_night_rates_the_right_one()
 {
    let sim = sim(DEFAULT_SEED);
    let data = sim.server.dataset().clone();
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 30);
    // The truth: each identifier row's company, as the honest service finds it.
    let truth = |report: &Value| -> Vec<(String, Value)> {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ref"].as_str().unwrap().to_string(),
                    r["company_id"].clone(),
                )
            })
            .collect()
    };
    let honest = Workspace::new();
    screen(&honest, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let right = truth(&honest.report());

    // A proxy answering every identifier search with the next company of the same country.
    let mixed = {
        let data = data.clone();
        front(&sim, move |seen| neighbour_of_the_asked(&data, seen))
    };
    let out = screen(&ws, &mixed.base, &file).run();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let report = ws.report();
    let by_id: Vec<&Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["service"].is_string())
        .collect();
    assert!(by_id.len() >= 10, "{report}");
    for row in &by_id {
        assert_eq!(row["status"], "failed", "{row}");
        assert!(row["company_id"].is_null(), "{row}");
        let error = row["error"].as_str().unwrap();
        assert!(error.contains("answer is for another company"), "{error}");
        assert!(error.contains("the search asked for"), "{error}");
    }
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM resolutions WHERE search_key LIKE 'id|%'"
        ),
        0,
        "a mismatch is never cached"
    );

    // The next night, the service honest: every row is its own company.
    screen(&ws, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(truth(&ws.report()), right);

    // A cache written before answers were checked, holding the wrong company for some
    // identifiers: those are searched again, and rated as the right company.
    let conn = Connection::open(ws.db()).unwrap();
    let wronged = conn
        .execute(
            "UPDATE resolutions SET company = (SELECT max(id) FROM companies WHERE id <> resolutions.company)
             WHERE search_key LIKE 'id|%' AND company IS NOT NULL AND company % 2 = 0",
            [],
        )
        .unwrap();
    drop(conn);
    assert!(wronged >= 3, "{wronged}");
    let before = sim
        .server
        .stats()
        .calls(ratewatch::sim::Endpoint::CompanyById);
    screen(&ws, &sim.server.base_url(), &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let searched = sim
        .server
        .stats()
        .calls(ratewatch::sim::Endpoint::CompanyById)
        - before;
    assert_eq!(
        searched, wronged as u64,
        "only the wrong answers are searched again"
    );
    assert_eq!(truth(&ws.report()), right);
}

/// A night whose reports could not be written told nobody its news: the next night tells
/// it, judged against what was last delivered of each company, whether that next night
/// screens the file under its portfolio's name or under another.
#[test]
fn news_a_night_could_not_deliver_is_told_the_next_night_under_any_portfolio_name() {
    let sim = sim(DEFAULT_SEED);
    let nights = |night3: &[&str]| {
        sim.server.set_day(1);
        let ws = Workspace::new();
        let file = portfolio(&ws, &sim, 200);
        screen(&ws, &sim.server.base_url(), &file)
            .assert()
            .code(predicate::in_iter([0, 1]));
        sim.server.set_day(6);
        std::fs::rename(ws.path("out"), ws.path("night-1")).unwrap();
        let blocker = ws.write("out", b"a file where the folder should be");
        screen(&ws, &sim.server.base_url(), &file).assert().code(4);
        std::fs::remove_file(blocker).unwrap();
        screen(&ws, &sim.server.base_url(), &file)
            .args(night3)
            .assert()
            .code(predicate::in_iter([0, 1]));
        listed_alerts(&ws.db(), 3)
    };
    let same_name = nights(&[]);
    let news: Vec<_> = same_name.iter().filter(|a| a.2.is_some()).collect();
    assert!(
        news.len() >= 3,
        "five days apart, colors move: {same_name:?}"
    );
    let other_name = nights(&["--portfolio-name", "customers"]);
    assert_eq!(
        other_name, same_name,
        "judged against what was delivered, whatever the portfolio's name"
    );
}

/// An ERP that dates its exports makes a new file name each night: screened under the
/// portfolio whose refs it holds, with a NOTE, so its news is judged against that
/// portfolio's nights. Another file, or a name given, is a portfolio of its own.
#[test]
fn a_dated_export_of_the_same_customers_is_screened_as_their_portfolio() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let book = std::fs::read(portfolio(&ws, &sim, 50)).unwrap();
    let night1 = ws.write("cust-2026-11-25.csv", &book);
    screen(&ws, &sim.server.base_url(), &night1)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let night2 = ws.write("cust-2026-11-26.csv", &book);
    let out = screen(&ws, &sim.server.base_url(), &night2).run();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("NOTE: cust-2026-11-26 screened as portfolio cust-2026-11-25: its name but for the date, and 100% of its refs are that portfolio's"),
        "{text}"
    );
    assert_eq!(
        count(
            &ws.db(),
            "SELECT count(*) FROM runs WHERE portfolio = 'cust-2026-11-25'"
        ),
        2
    );
    // Other customers under a dated name, and a name given: portfolios of their own.
    let other = String::from_utf8(book.clone())
        .unwrap()
        .replace("\nR", "\nX");
    let night3 = ws.write("cust-2026-11-27.csv", other.as_bytes());
    screen(&ws, &sim.server.base_url(), &night3)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let night4 = ws.write("cust-2026-11-28.csv", &book);
    let out = screen(&ws, &sim.server.base_url(), &night4)
        .args(["--portfolio-name", "given"])
        .run();
    assert!(!stdout(&out).contains("screened as portfolio"), "{out:?}");
    let names: Vec<String> = {
        let conn = Connection::open(ws.db()).unwrap();
        let mut stmt = conn
            .prepare("SELECT portfolio FROM runs ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        names,
        [
            "cust-2026-11-25",
            "cust-2026-11-25",
            "cust-2026-11-27",
            "given"
        ]
    );
}

#[test]
fn a_german_team_reads_its_spent_quota_night_in_german_and_the_record_stays_english() {
    let sim = sim(DEFAULT_SEED);
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let answered = AtomicU64::new(0);
    let front = front(&sim, move |seen| {
        (is_rating(seen) && answered.fetch_add(1, Ordering::SeqCst) >= 5).then(|| Reply {
            status: "429 Too Many Requests".into(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("retry-after".into(), "86400".into()),
            ],
            body: br#"{"detail": "Request was throttled."}"#.to_vec(),
        })
    });
    let out = screen(&ws, &front.base, &file)
        .args([
            "--concurrency",
            "1",
            "--locale",
            "de",
            "--time-zone",
            "Europe/Berlin",
        ])
        .run();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = stdout(&out);
    // Why the night stopped, first, in German, the time to wait for in Berlin's.
    let first = text.lines().nth(1).unwrap();
    assert!(
        first.starts_with("ANGEHALTEN: das Kontingent des Dienstes verlangt, bis "),
        "{text}"
    );
    let line = first;
    assert!(
        line.contains(" CET zu warten, länger als --max-wait (")
            || line.contains(" CEST zu warten, länger als --max-wait ("),
        "{text}"
    );
    assert!(
        line.ends_with(
            "der nächste Lauf dieses Portfolios setzt mit den nicht geprüften Zeilen fort"
        ),
        "{text}"
    );
    assert!(!text.contains("STOPPED"), "{text}");
    // The record, for programs and later readers: English, UTC.
    let notes = ws.report()["run"]["notes"].clone();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .starts_with("STOPPED: the service's rate limit asks to wait until "),
        "{notes}"
    );
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().any(|r| r["error"].as_str().is_some_and(|e| {
        e.starts_with("not screened: rate limit: the service asked to wait until")
    })));
    let stored: String = Connection::open(ws.db())
        .unwrap()
        .query_row("SELECT notes FROM runs", [], |r| r.get(0))
        .unwrap();
    assert!(
        stored.contains("STOPPED: the service's rate limit"),
        "{stored}"
    );
}
