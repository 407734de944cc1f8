//! Logs on stderr: `--log-format json` gives one JSON object per line; each `screen` logs
//! one line when its run starts and one when it ends, with the fields a log collector
//! needs; and the API key never appears, at any level.

use std::path::Path;

use ratewatch::sim::{CompanyRef, SimConfig};
use serde_json::Value;

use crate::common::{Ratewatch, Workspace, background, config};

const SECRET: &str = "k3y-never-in-a-log";

fn screen(ws: &Workspace, base_url: &str, key: &str, portfolio: &Path, log: &[&str]) -> Ratewatch {
    let mut screen = ws.ratewatch(log);
    screen
        .env("RATEWATCH_API_KEY", key)
        .arg("screen")
        .arg(portfolio)
        .args(["--base-url", base_url, "--quiet"]);
    screen
}

/// Every stderr line as JSON; a line that is not JSON fails the test.
fn json_lines(stderr: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

fn the_one<'a>(lines: &'a [Value], message: &str) -> &'a Value {
    let found: Vec<&Value> = lines.iter().filter(|l| l["message"] == message).collect();
    assert_eq!(found.len(), 1, "one {message:?} line: {lines:#?}");
    found[0]
}

#[test]
fn json_logs_carry_one_start_and_one_end_line_per_run_and_never_the_key() {
    let sim = background(SimConfig {
        key: SECRET.into(),
        ..config()
    });
    let data = sim.server.dataset();
    let ids: Vec<String> = (0..5)
        .map(|n| {
            data.external_ids(CompanyRef { country: 0, n })[0]
                .external_id
                .clone()
        })
        .collect();
    let mut csv = String::from("ref,country,service,id\n");
    for (i, id) in ids.iter().enumerate() {
        csv.push_str(&format!("R{i},fr,SIREN,{id}\n"));
    }
    csv.push_str("BAD,zz,SIREN,1\n");
    let ws = Workspace::new();
    let portfolio = ws.write("book.csv", csv.as_bytes());

    let base_url = sim.server.base_url();
    let out = screen(
        &ws,
        &base_url,
        SECRET,
        &portfolio,
        &["-vv", "--log-format", "json"],
    )
    .assert()
    .code(predicate_ok());
    let stderr = &out.get_output().stderr;
    assert!(!String::from_utf8_lossy(stderr).contains(SECRET));
    let lines = json_lines(stderr);
    let started = the_one(&lines, "run started");
    let finished = the_one(&lines, "run finished");
    assert_eq!(started["level"], "INFO");
    let run_id = started["run_id"].as_i64().unwrap();
    assert_eq!(finished["run_id"], run_id);
    assert_eq!(started["portfolio"], "book");
    assert_eq!(started["db"], "ratewatch.db");
    assert_eq!(started["lines"], 7);
    assert_eq!(finished["status"], "complete");
    assert_eq!(finished["rows"], 6);
    assert_eq!(finished["rated"], 5);
    assert_eq!(finished["invalid"], 1);
    assert_eq!(finished["failed"], 0);
    // Two lookup lists, five searches, five ratings.
    assert_eq!(finished["calls"], 12);
    assert!(finished["duration_ms"].is_u64());
    assert!(finished["alerts"].is_u64());

    // Without -v nothing is logged at info.
    let out = screen(
        &ws,
        &base_url,
        SECRET,
        &portfolio,
        &["--log-format", "json"],
    )
    .assert()
    .code(predicate_ok());
    assert!(json_lines(&out.get_output().stderr).is_empty());
}

#[test]
fn a_run_stopped_by_a_refused_key_still_logs_its_end() {
    let sim = background(SimConfig {
        key: SECRET.into(),
        ..config()
    });
    let company = CompanyRef { country: 0, n: 7 };
    let siren = sim.server.dataset().external_ids(company)[0]
        .external_id
        .clone();
    let ws = Workspace::new();
    let portfolio = ws.write(
        "book.csv",
        format!("ref,country,service,id\nA,fr,SIREN,{siren}\n").as_bytes(),
    );
    let wrong = "wr0ng-key-not-in-logs";
    let out = screen(
        &ws,
        &sim.server.base_url(),
        wrong,
        &portfolio,
        &["-vv", "--log-format", "json"],
    )
    .assert()
    .code(4);
    let stderr = &out.get_output().stderr;
    let text = String::from_utf8_lossy(stderr);
    assert!(!text.contains(wrong) && !text.contains(SECRET), "{text}");
    // The last line is the error for people, not a log line.
    let (logs, error) = text.trim_end().rsplit_once('\n').unwrap();
    assert!(error.starts_with("ratewatch: error:"), "{error}");
    let lines = json_lines(logs.as_bytes());
    the_one(&lines, "run started");
    let finished = the_one(&lines, "run finished");
    assert_eq!(finished["status"], "failed");
    assert!(
        finished["error"]
            .as_str()
            .unwrap()
            .contains("the key was read from the RATEWATCH_API_KEY environment variable"),
        "{finished}"
    );
}

#[test]
fn text_logs_are_one_line_per_event() {
    let ws = Workspace::new();
    let portfolio = ws.write("book.csv", b"ref,country,service,id\nA,zz,SIREN,1\n");
    // Its only row is invalid: nothing screened, exit 2, and still one line each.
    let out = ws
        .ratewatch(["-v", "screen", "--demo", "--quiet"])
        .arg(&portfolio)
        .assert()
        .code(2);
    let text = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let started: Vec<&str> = text.lines().filter(|l| l.contains("run started")).collect();
    assert_eq!(started.len(), 1, "{text}");
    assert!(started[0].contains(" INFO ") && started[0].contains("portfolio=book"));
    assert!(
        !text.contains('\u{1b}'),
        "no escape codes off a terminal: {text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("run finished")).count(),
        1
    );
}

/// A run that screened everything: with or without alerts.
fn predicate_ok() -> impl predicates::Predicate<i32> {
    predicates::ord::lt(2)
}
