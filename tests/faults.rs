//! Faults and hostile data: flaky service, rate limits, crashes, concurrent runs, broken
//! input and answers, and the key never leaking. Each must end in a clear message, a
//! correct database and a correct next run.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use predicates::prelude::*;
use ratewatch::error::ExitCode;
use ratewatch::sim::server::DEFAULT_SEED;
use ratewatch::sim::{Endpoint, Faults, SimConfig};
use rusqlite::Connection;
use serde_json::Value;

use crate::common::wait::wait_for;
use crate::common::{Background, KEY, Workspace, background, ratewatch, rows_by_ref};
use crate::common::{after_heading, listed_alerts};

fn sim(faults: Faults) -> Background {
    background(SimConfig {
        seed: DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        faults,
        ..SimConfig::default()
    })
}

/// A generated portfolio of `rows` rows of the simulator's companies.
fn portfolio(ws: &Workspace, sim: &Background, rows: u64) -> std::path::PathBuf {
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), rows, &mut buf).unwrap();
    ws.write("p.csv", &buf)
}

fn count(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn integrity(db: &Path) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_flaky_rate_limited_service_still_gets_every_row_screened_once() {
    let sim = sim(Faults {
        fail_rate: 0.05,
        drop_rate: 0.02,
        slow_rate: 0.01,
        slow: Duration::from_millis(1_500),
        rate_limit: Some(4_000.0),
        ..Faults::default()
    });
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 5_000);
    let fast_retries = [
        "--concurrency",
        "32",
        "--retries",
        "8",
        "--retry-delay-ms",
        "5",
        "--timeout",
        "0.5",
    ];
    // In-process: what is checked is the runs' outcome and what they stored.
    let base = sim.server.base_url();
    let first = ws.screen_in_process(&base, &file, &fast_retries);
    assert!(
        matches!(first.exit_code(), ExitCode::Clean | ExitCode::Attention),
        "{first:?}"
    );
    let report = ws.report();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5_000, "no row lost");
    let lines: HashSet<u64> = rows.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines.len(), 5_000, "no row twice");
    let not_rated: Vec<&Value> = rows.iter().filter(|r| r["status"] != "rated").collect();
    assert!(
        not_rated.is_empty(),
        "{:#?}",
        &not_rated[..not_rated.len().min(3)]
    );
    let stats = sim.server.stats();
    assert!(
        stats.failed > 0 && stats.dropped > 0,
        "the faults happened: {stats:?}"
    );

    let companies: HashSet<&str> = rows
        .iter()
        .map(|r| r["company_id"].as_str().unwrap())
        .collect();
    let db = ws.db();
    assert_eq!(
        count(&db, "SELECT count(*) FROM ratings") as usize,
        companies.len()
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM run_companies") as usize,
        companies.len()
    );

    // The same day again: confirmations only, no new history.
    let second = ws.screen_in_process(&base, &file, &fast_retries);
    assert!(
        matches!(second.exit_code(), ExitCode::Clean | ExitCode::Attention),
        "{second:?}"
    );
    assert_eq!(second.run().id, 2, "{second:?}");
    assert_eq!(
        count(&db, "SELECT count(*) FROM ratings") as usize,
        companies.len()
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM run_rows WHERE run_id = 2 AND status = 'rated'"
        ),
        5_000
    );
}

#[test]
fn a_429_storm_is_waited_out_and_max_rps_avoids_it() {
    let storm = sim(Faults {
        rate_limit: Some(5.0),
        ..Faults::default()
    });
    let ws = Workspace::new();
    let data = storm.server.dataset().clone();
    let mut csv = String::from("country,company_id\n");
    for n in 0..12 {
        let id = data.uuid(ratewatch::sim::CompanyRef { country: 0, n });
        csv.push_str(&format!("FR,{id}\n"));
    }
    let file = ws.write("ids.csv", csv.as_bytes());
    let started = Instant::now();
    ws.screen(&storm, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "rated"), "{rows:#?}");
    let stats = storm.server.stats();
    assert_eq!(
        stats.calls(Endpoint::Rating),
        12,
        "answered rating calls: {stats:?}"
    );
    assert!(
        stats.throttled <= 12,
        "the whole client pauses after a 429: no herd of retries ({stats:?})"
    );
    assert!(started.elapsed() >= Duration::from_secs(1));

    let calm = sim(Faults {
        rate_limit: Some(10.0),
        ..Faults::default()
    });
    let ws = Workspace::new();
    let file = ws.write("ids.csv", csv.as_bytes());
    ws.screen(&calm, &file)
        .args(["--max-rps", "8"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(
        calm.server.stats().throttled,
        0,
        "a known quota is never hit"
    );
}

#[test]
fn the_month_s_call_budget_stops_a_run_and_the_next_run_of_the_month_makes_no_call() {
    let sim = sim(Faults::default());
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    let stdout = |out: &assert_cmd::assert::Assert| {
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let budget_failures = |report: &Value| -> (usize, usize) {
        let rows = report["rows"].as_array().unwrap();
        let failed: Vec<&Value> = rows.iter().filter(|r| r["status"] == "failed").collect();
        let monthly = failed
            .iter()
            .filter(|r| {
                r["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("not screened: call budget reached (--max-calls-per-month 20: ")
            })
            .count();
        (failed.len(), monthly)
    };

    // The first run needs more than the month's 20 calls: it stops at 20.
    let first = ws
        .screen(&sim, &file)
        .args(["--max-calls-per-month", "20"])
        .assert()
        .code(3);
    let text = stdout(&first);
    assert!(
        after_heading(&text).starts_with(
            "BUDGET: 0 of the month's 20 calls (--max-calls-per-month) were already spent; this run may make 20: "
        ),
        "the note comes first: {text}"
    );
    assert!(text.contains("calls: 20 "), "{text}");
    assert!(
        text.contains(
            "not screened: call budget reached (--max-calls-per-month); screened on a later run"
        ),
        "{text}"
    );
    assert_eq!(
        sim.server.stats().total(),
        20,
        "the lookups are two of them"
    );
    let (failed, monthly) = budget_failures(&ws.report());
    assert!(failed > 0);
    assert_eq!(monthly, failed, "every failed row says the month's budget");

    // The next run of the month has nothing left: not one call, every row waits.
    let second = ws
        .screen(&sim, &file)
        .env("RATEWATCH_MAX_CALLS_PER_MONTH", "20")
        .assert()
        .code(3);
    let text = stdout(&second);
    assert!(
        after_heading(&text).starts_with(
            "BUDGET: 20 of the month's 20 calls (--max-calls-per-month) were already spent; this run makes no call: "
        ),
        "{text}"
    );
    assert_eq!(sim.server.stats().total(), 20, "no call at all");
    let report = ws.report();
    assert!(
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["status"] != "rated")
    );
    let (failed, monthly) = budget_failures(&report);
    assert!(failed > 0);
    assert_eq!(monthly, failed);

    // `usage` counts the month's calls as the budget did.
    let usage = ratewatch(["usage", "--json"]).db(ws.db()).assert().code(0);
    let usage: Value = serde_json::from_slice(&usage.get_output().stdout).unwrap();
    assert_eq!(usage["total"]["runs"], 2);
    assert_eq!(usage["total"]["total"], 20);

    // A new database and a spent month: no call, not even for the lookup lists.
    let fresh = Workspace::new();
    let few = portfolio(&fresh, &sim, 5);
    fresh
        .screen(&sim, &few)
        .args(["--max-calls-per-month", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--max-calls-per-month 0 leaves 0 calls this month, too few to fetch the service's lookup lists",
        ));
    assert_eq!(sim.server.stats().total(), 20);

    // A larger budget: --max-calls binds when it is the smaller, and no BUDGET line then.
    let third = ws
        .screen(&sim, &file)
        .args(["--max-calls-per-month", "100", "--max-calls", "10"])
        .assert()
        .code(3);
    let text = stdout(&third);
    assert!(!text.contains("BUDGET"), "{text}");
    assert!(
        text.contains("not screened: call budget reached (--max-calls); screened"),
        "{text}"
    );
    assert_eq!(sim.server.stats().total(), 30);
}

#[test]
fn the_call_budget_stops_calls_and_leaves_rows_for_the_next_run() {
    let sim = sim(Faults::default());
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    // In-process: what is checked is the runs' outcome, summary and reports.
    let base = sim.server.base_url();
    let stopped = ws.screen_in_process(&base, &file, &["--max-calls", "20"]);
    assert_eq!(stopped.exit_code(), ExitCode::Partial, "{stopped:?}");
    assert!(stopped.summary.contains("calls: 20"), "{stopped:?}");
    let stats = sim.server.stats();
    // The lookups are two of the twenty.
    assert_eq!(stats.total(), 20, "{stopped:?}");
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    let budget: Vec<_> = rows.iter().filter(|r| r["status"] == "failed").collect();
    assert!(!budget.is_empty(), "{stopped:?}");
    assert!(
        budget
            .iter()
            .all(|r| r["error"].as_str().unwrap().contains("call budget reached")),
        "{budget:#?}"
    );
    let next = ws.screen_in_process(&base, &file, &[]);
    assert!(
        matches!(next.exit_code(), ExitCode::Clean | ExitCode::Attention),
        "{next:?}"
    );
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "rated"), "{next:?}");
}

/// The seed of the kills' moments: `RATEWATCH_KILL_SEED` to replay a failure (its
/// messages name the seed), a fixed one otherwise.
fn kill_seed() -> u64 {
    let seed = match std::env::var("RATEWATCH_KILL_SEED") {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("RATEWATCH_KILL_SEED: not a number: {text:?}")),
        Err(_) => 20_261_121,
    };
    eprintln!("kills drawn from seed {seed} (RATEWATCH_KILL_SEED={seed} replays them)");
    seed
}

/// Numbers drawn from a seed (SplitMix64).
struct Draws(u64);

impl Draws {
    /// A number below `n`.
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

#[test]
fn kill_9_at_random_moments_then_resume_gives_the_uninterrupted_result() {
    let sim = sim(Faults {
        latency: Duration::from_millis(10),
        ..Faults::default()
    });
    let steady = Workspace::new();
    let crashy = Workspace::new();
    let file = portfolio(&steady, &sim, 600);
    let crash_file = crashy.write("p.csv", &std::fs::read(&file).unwrap());
    let args = ["--concurrency", "4"];
    // Day 1 in both databases, uninterrupted: the same starting history.
    steady
        .screen(&sim, &file)
        .args(args)
        .assert()
        .code(predicate::in_iter([0, 1]));
    crashy
        .screen(&sim, &crash_file)
        .args(args)
        .assert()
        .code(predicate::in_iter([0, 1]));
    sim.server.set_day(9);
    steady
        .screen(&sim, &file)
        .args(args)
        .assert()
        .code(predicate::in_iter([0, 1]));

    // Each kill lands once the simulator has answered a number of requests since the
    // process started, drawn from the seed: by the run's progress, not by the clock,
    // whatever the machine's load, and replayed by the same seed. A night's run takes
    // some seconds and commits each second: a kill may land before anything was committed,
    // between commits, or as the run finishes.
    let seed = kill_seed();
    let mut draws = Draws(seed);
    let answered = || sim.server.stats().total();
    let recorded = |db: &Path| {
        count(
            db,
            "SELECT count(*) FROM runs WHERE status = 'complete' AND id > 1",
        ) > 0
    };
    let (mut kills, mut finished) = (0, false);
    for attempt in 0..6 {
        // The first kill lands before the night's 600 ratings are all answered.
        let at = answered() + draws.below(if attempt == 0 { 550 } else { 650 });
        let mut child = crashy.screen(&sim, &crash_file).args(args).spawn();
        let reached = wait_for(
            format!("the simulator's answer {at}, or the run's end (seed {seed})"),
            || {
                if child.ended() {
                    Some(false)
                } else {
                    (answered() >= at).then_some(true)
                }
            },
        );
        if !reached {
            let ended = child.finish();
            assert!(
                matches!(ended.code(), Some(0 | 1)),
                "(seed {seed}) {ended:?}"
            );
            finished = true;
            break;
        }
        child.kill();
        kills += 1;
        assert_eq!(
            integrity(&crashy.db()),
            "ok",
            "after kill {kills}, at answer {at} (seed {seed})"
        );
        let open = count(
            &crashy.db(),
            "SELECT count(*) FROM runs WHERE status IN ('running', 'interrupted')",
        );
        assert!(open <= 1, "one interrupted run at most (seed {seed})");
        // A kill that landed once the night was recorded (its reports being written)
        // leaves nothing to resume: another run would be another night.
        if kills == 3 || recorded(&crashy.db()) {
            break;
        }
    }
    // A last run completes whatever is left (a kill may also land after the run was
    // recorded complete, while its reports were being written).
    if !finished && !recorded(&crashy.db()) {
        crashy
            .screen(&sim, &crash_file)
            .args(args)
            .assert()
            .code(predicate::in_iter([0, 1]));
    }
    assert!(kills > 0, "the run was never interrupted (seed {seed})");

    type Outcome = (i64, String, Option<String>, Option<String>, Option<String>);
    let results = |db: &Path| -> Vec<Outcome> {
        let conn = Connection::open(db).unwrap();
        let last: i64 = conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))
            .unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT line, status, color, previous_color, change FROM run_results
                 WHERE run_id = ?1 ORDER BY line",
            )
            .unwrap();
        stmt.query_map([last], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    };
    let (want, got) = (results(&steady.db()), results(&crashy.db()));
    assert_eq!(got.len(), 600, "(seed {seed})");
    assert_eq!(
        got, want,
        "same outcome as an uninterrupted run (seed {seed})"
    );
    for sql in [
        "SELECT count(*) FROM ratings",
        "SELECT count(*) FROM color_changes",
        "SELECT count(*) FROM runs WHERE status IN ('complete', 'partial')",
    ] {
        assert_eq!(
            count(&crashy.db(), sql),
            count(&steady.db(), sql),
            "{sql} (seed {seed})"
        );
    }
    assert_eq!(integrity(&crashy.db()), "ok");
}

#[test]
fn a_second_run_on_the_same_database_is_refused_at_once() {
    let sim = sim(Faults::default());
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 10);
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let _held = ratewatch::store::RunLock::acquire(&ws.db()).unwrap();
    // Refused at once rather than waiting: a run that waited for the lock would wait as
    // long as this test holds it, to the test's end. The refusal takes a fraction of a
    // second; a run still there after a minute is killed, and fails the assertion.
    let refused = ws
        .screen(&sim, &file)
        .spawn()
        .finish_within(Duration::from_secs(60), "the refusal");
    assert_eq!(refused.code(), Some(2), "{refused:?}");
    assert!(
        refused.stderr.contains("in use by another run"),
        "{refused:?}"
    );
    assert!(
        refused
            .stderr
            .contains(&format!("process {}", std::process::id())),
        "{refused:?}"
    );
    // Readers are not blocked by a run.
    assert!(count(&ws.db(), "SELECT count(*) FROM latest_ratings") > 0);

    // A second run through another name of the same file is refused too.
    let symlink = ws.path("symlink.db");
    std::os::unix::fs::symlink(ws.db(), &symlink).unwrap();
    let hard_link = ws.path("hard-link.db");
    std::fs::hard_link(ws.db(), &hard_link).unwrap();
    for (db, holder) in [
        (&symlink, format!("process {}", std::process::id())),
        (&hard_link, "another name".to_string()),
    ] {
        ws.screen_on(&sim, &file, db)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("in use by another run"))
            .stderr(predicate::str::contains(holder));
    }
}

#[test]
fn hostile_portfolios_get_a_clear_error_or_a_clean_run() {
    let sim = sim(Faults::default());
    let ws = Workspace::new();
    let empty = ws.write("empty.csv", b"");
    ws.screen(&sim, &empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty.csv: the file is empty"));
    // Nothing to screen is not a quiet night.
    let header_only = ws.write("header.csv", b"country,service,id\r\n");
    ws.screen(&sim, &header_only)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "header.csv: a header and no rows: nothing to screen",
        ));
    assert!(
        !ws.db().exists() || count(&ws.db(), "SELECT count(*) FROM runs") == 0,
        "nothing recorded"
    );
    let no_header = ws.write("noheader.csv", b"FR,SIREN,552100554\n");
    ws.screen(&sim, &no_header)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no `country` column"));
    let twice = ws.write("twice.csv", b"country,Country,name\nFR,FR,x\n");
    ws.screen(&sim, &twice)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("both `country`"));
    let mut big = b"ref,country,name\nBIG,FR,\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 4 * 1024 * 1024));
    big.extend_from_slice(b"\"\nCTL,FR,\"Acme\x1b[2J\x07\"\n");
    let big = ws.write("big.csv", &big);
    // Both rows are invalid: reported, and not a clean night.
    ws.screen(&sim, &big)
        .assert()
        .code(2)
        .stdout(predicate::function(|out: &str| {
            after_heading(out).starts_with("NOTHING SCREENED")
        }))
        .stderr(predicate::str::contains(
            "none of its 2 rows could be screened: every one is invalid",
        ));
    let rows = rows_by_ref(&ws.report());
    assert!(
        rows["BIG"]["error"]
            .as_str()
            .unwrap()
            .starts_with("name: longer than")
    );
    assert!(
        rows["CTL"]["error"]
            .as_str()
            .unwrap()
            .starts_with("name: contains control")
    );
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    assert!(
        csv.len() > 4 * 1024 * 1024,
        "the report keeps what was given"
    );
}

#[test]
fn an_unusable_database_is_a_clear_error_and_left_untouched() {
    let sim = sim(Faults::default());
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 3);
    let foreign = ws.path("other.db");
    Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (1);")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    let screen_on = |db: &Path| ws.screen_on(&sim, &file, db);
    screen_on(&foreign)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("not a ratewatch database"));
    assert_eq!(std::fs::read(&foreign).unwrap(), before);

    let folder = ws.path("a-folder.db");
    std::fs::create_dir(&folder).unwrap();
    screen_on(&folder)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("a-folder.db"));
    assert_eq!(
        sim.server.stats().total(),
        0,
        "no call before the database is usable"
    );
}

#[test]
fn broken_answers_fail_their_rows_with_a_snippet_and_the_next_run_heals() {
    let broken = sim(Faults {
        corrupt_rate: 0.3,
        ..Faults::default()
    });
    let ws = Workspace::new();
    let file = portfolio(&ws, &broken, 200);
    // The lookups may be spoiled too: then there is no kept copy yet, a clear fatal error.
    let first = ws.screen(&broken, &file).args(["--retries", "0"]).run();
    let code = first.status.code().unwrap();
    assert!(code == 3 || code == 4, "{first:?}");
    if code == 3 {
        let rows = ws.report()["rows"].as_array().unwrap().clone();
        let failed: Vec<_> = rows.iter().filter(|r| r["status"] == "failed").collect();
        assert!(!failed.is_empty());
        assert!(failed.iter().all(|r| {
            r["error"]
                .as_str()
                .unwrap()
                .contains("unexpected answer from the service")
        }));
        assert!(
            rows.iter().any(|r| r["status"] == "rated"),
            "the run went on"
        );
    }
    let healthy = background(SimConfig {
        seed: DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        ..SimConfig::default()
    });
    ws.screen(&healthy, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let rows = ws.report()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["status"] == "rated"));
    let companies: HashSet<&str> = rows
        .iter()
        .map(|r| r["company_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        count(&ws.db(), "SELECT count(*) FROM ratings") as usize,
        companies.len()
    );
}

#[test]
fn the_key_appears_nowhere_even_in_debug_logs() {
    let secret = "s3cr3t-KEY-0f-the-live-account";
    let sim = background(SimConfig {
        seed: DEFAULT_SEED,
        per_country: 5_000,
        key: secret.into(),
        faults: Faults {
            fail_rate: 0.05,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 50);
    let out = ws
        .screen(&sim, &file)
        .env("RATEWATCH_API_KEY", secret)
        .env("RUST_LOG", "trace")
        .args(["-vv", "--retry-delay-ms", "1"])
        .run();
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{out:?}");
    let wrong = ws
        .screen(&sim, &file)
        .env("RATEWATCH_API_KEY", format!("{secret}-old"))
        .arg("-vv")
        .run();
    assert_eq!(wrong.status.code(), Some(4), "{wrong:?}");
    let mut haystack = Vec::new();
    for o in [&out, &wrong] {
        haystack.extend_from_slice(&o.stdout);
        haystack.extend_from_slice(&o.stderr);
    }
    assert!(
        !String::from_utf8_lossy(&out.stderr).is_empty(),
        "debug logs were written"
    );
    for entry in std::fs::read_dir(ws.dir.path())
        .unwrap()
        .chain(std::fs::read_dir(ws.path("out")).unwrap())
    {
        let path = entry.unwrap().path();
        if path.is_file() {
            haystack.extend(std::fs::read(&path).unwrap());
        }
    }
    let text = String::from_utf8_lossy(&haystack);
    assert!(!text.contains(secret), "the key leaked");
}

/// `ratewatch screen` in `ws` on a disk that holds no file past `bytes` (the file size
/// limit a full disk amounts to: writes past it fail, as they would with no space left).
fn screen_on_a_full_disk(
    ws: &Workspace,
    sim: &Background,
    file: &Path,
    bytes: u64,
) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = ws.screen(sim, file);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.process().pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // A write past the limit then fails with EFBIG instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.run()
}

/// A disk that fills up during a night: what the database holds of the run is still said
/// on stdout, marked as not recorded, then the error (exit 4); the database stays whole,
/// and the next night announces the news a night without the fault would have.
#[test]
fn a_full_disk_still_says_what_was_found_and_the_next_night_announces_it() {
    let sim = sim(Faults::default());
    let two_nights = |ws: &Workspace, file: &Path| {
        sim.server.set_day(1);
        ws.screen(&sim, file)
            .assert()
            .code(predicate::in_iter([0, 1]));
        sim.server.set_day(6);
    };
    // Without the fault: the second night's news.
    let calm = Workspace::new();
    let file = portfolio(&calm, &sim, 400);
    two_nights(&calm, &file);
    calm.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let news = listed_alerts(&calm.db(), 2);
    assert!(!news.is_empty());

    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 400);
    two_nights(&ws, &file);
    let size = std::fs::metadata(ws.db()).unwrap().len();
    assert!(size > 96 * 1024, "{size}");
    let out = screen_on_a_full_disk(&ws, &sim, &file, 96 * 1024);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(out.status.code(), Some(4), "{stdout}\n{stderr}");
    let said = after_heading(&stdout);
    assert!(
        said.starts_with("NOT RECORDED: the database could not be written"),
        "{stdout}"
    );
    assert!(said.contains("ratewatch run 2 of p (failed)"), "{stdout}");
    assert!(
        stderr.contains("disk I/O error") || stderr.contains("full"),
        "{stderr}"
    );
    assert_eq!(integrity(&ws.db()), "ok");
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(
        listed_alerts(&ws.db(), 3),
        news,
        "the news told the next night"
    );
}
