//! Other ratewatch commands beside a screening in progress: every one waits its turn for
//! the database (or, for `sync-history`, for the run's lock), none of them breaks the
//! run, and what they decide is kept.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::after_heading;
use crate::common::{KEY, Workspace, rows_by_ref};

/// `ratewatch ARGS… --db DB` in the workspace, with the test key.
fn ratewatch(ws: &Workspace, args: &[&str]) -> std::process::Output {
    ws.ratewatch(args)
        .db(ws.db())
        .env("RATEWATCH_API_KEY", KEY)
        .run()
}

#[test]
fn ack_review_and_sync_history_in_a_loop_never_break_a_screening() {
    let (sim, ws, file) = crate::common::a_slow_night();
    let base = sim.server.base_url();

    sim.server.set_day(5);
    let mut run = ws.screen(&sim, &file).args(["--concurrency", "2"]).spawn();
    let (mut acked, mut rounds) = (Vec::new(), 0);
    while !run.ended() && rounds < 200 {
        rounds += 1;
        let reference = format!("R{:07}", 1 + (rounds * 7) % 240);
        let ack = ratewatch(&ws, &["ack", &reference, "--note", "beside a run"]);
        // A row that is not rated has no company to acknowledge (exit 1, said so).
        assert!(matches!(ack.status.code(), Some(0 | 1)), "ack: {ack:?}");
        if ack.status.success() {
            acked.push(reference);
        }
        let review = ratewatch(&ws, &["review"]);
        assert!(
            matches!(review.status.code(), Some(0 | 1)),
            "review: {review:?}"
        );
        if rounds % 4 == 0 {
            // A sync takes the run's lock: it is refused while a run holds it, saying so,
            // and never touches the run.
            let sync = ratewatch(&ws, &["sync-history", "--base-url", &base]);
            let refused = sync.status.code() == Some(2)
                && String::from_utf8_lossy(&sync.stderr).contains("in use by another run");
            assert!(sync.status.success() || refused, "sync-history: {sync:?}");
        }
    }
    let out = run.finish();
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert!(
        matches!(out.code(), Some(0 | 1)),
        "the screening ran to its end beside {rounds} rounds: {stdout}\n{stderr}"
    );
    assert!(rounds >= 2, "the run was too short to meet the others");
    assert!(
        !acked.is_empty(),
        "some acknowledgement was made during the run"
    );
    assert!(
        after_heading(stdout).starts_with("ratewatch run 2 of p"),
        "{stdout}"
    );

    // Kept, unless the run saw the company change color after it was acknowledged.
    let acks: Value = serde_json::from_slice(&ratewatch(&ws, &["acks", "--json"]).stdout).unwrap();
    let rows = rows_by_ref(&ws.report());
    let acked: Vec<String> = acked
        .iter()
        .map(|r| rows[r]["company_id"].as_str().unwrap().to_string())
        .collect();
    crate::common::assert_acks_kept_unless_changed(&ws, &acks, &acked);
    assert_eq!(integrity(&ws.db()), "ok");
}

/// What once failed: a screening of 5,000 rows at 120 ms a call keeps its write
/// transaction open nearly all the time, and half the `ack` beside it gave up after their
/// 10 s, exit 4. Here 1,500 rows at 120 ms a call and 16 requests in flight (the same
/// stream of commits, eleven seconds at the least rather than a minute): twelve `ack`, a
/// `review ignore` then `revoke` every fourth and an acknowledgement on the page every
/// third all get in within moments while the run goes on; and the run counts what the
/// same night counts beside nothing.
#[test]
fn twelve_acks_and_reviews_beside_a_screening_all_get_in_and_change_no_count() {
    let (sim, ws, file) = crate::common::a_first_night(Duration::from_millis(120), 1_500, 128);
    let mut companies: Vec<String> = rows_by_ref(&ws.report())
        .into_values()
        .filter(|r| r["status"] == "rated")
        .filter_map(|r| r["company_id"].as_str().map(str::to_string))
        .collect();
    companies.sort();
    companies.dedup();
    let refs: Vec<String> = rows_by_ref(&ws.report()).into_keys().take(12).collect();

    // The same night beside nothing, at the same time, on a copy of the database.
    let alone = Workspace::new();
    rusqlite::Connection::open(ws.db())
        .unwrap()
        .execute("VACUUM INTO ?1", [alone.db().to_str().unwrap()])
        .unwrap();
    let alone_file = alone.write("p.csv", &std::fs::read(&file).unwrap());
    sim.server.set_day(5);
    let control = alone
        .screen(&sim, &alone_file)
        .args(["--concurrency", "16"])
        .spawn();
    let mut run = ws.screen(&sim, &file).args(["--concurrency", "16"]).spawn();
    let page = crate::serve::Pages::of(&ws);
    let csrf = page.csrf();
    // Once the run writes its rows: it holds its transaction from then on.
    let reader = rusqlite::Connection::open(ws.db()).unwrap();
    while reader
        .query_row("SELECT count(*) FROM run_rows WHERE run_id = 2", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap_or(0)
        == 0
    {
        assert!(!run.ended(), "the run ended first");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut waited = Vec::new();
    for (i, company) in companies.iter().step_by(97).take(12).enumerate() {
        if i % 3 == 1 {
            let other = &companies[i * 97 + 1];
            let done = page.post(
                "/ack",
                &[
                    ("csrf", csrf.as_str()),
                    ("company", other),
                    ("note", "on the page beside a run"),
                    ("until", ""),
                    ("back", "/"),
                ],
                &[],
            );
            let location = done.headers["location"].to_str().unwrap();
            assert!(location.starts_with("/?said="), "the page: {location}");
        }
        let asked = Instant::now();
        let ack = ratewatch(&ws, &["ack", company, "--note", "beside a run"]);
        waited.push(asked.elapsed());
        assert_eq!(ack.status.code(), Some(0), "ack {i} {company}: {ack:?}");
        if i % 4 == 0 {
            let reference = refs[i].as_str();
            for args in [
                ["review", "ignore", reference],
                ["review", "revoke", reference],
            ] {
                let review = ratewatch(&ws, &args);
                assert_eq!(review.status.code(), Some(0), "{args:?}: {review:?}");
            }
        }
    }
    assert!(
        !run.ended(),
        "every one of them met the run going (after {waited:?})"
    );
    let out = run.finish();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "the screening ran to its end: {out:?}"
    );
    let control = control.finish();
    assert!(matches!(control.status.code(), Some(0 | 1)), "{control:?}");
    // Each waited for a commit at most, never for the run's end.
    waited.sort();
    assert!(waited[11] < Duration::from_secs(5), "{waited:?}");

    let counts = |ws: &Workspace| {
        let runs: Value =
            serde_json::from_slice(&ratewatch(ws, &["runs", "--json", "--limit", "1"]).stdout)
                .unwrap();
        let run = runs["runs"][0].clone();
        assert_eq!(
            (run["id"].as_i64(), run["status"].as_str()),
            (Some(2), Some("complete"))
        );
        [
            run["rows"].clone(),
            run["by_status"].clone(),
            run["by_color"].clone(),
        ]
    };
    let counted = counts(&ws);
    assert_eq!(counted[0], 1_500);
    assert_eq!(counted, counts(&alone), "the same night beside nothing");
    let acks: Value = serde_json::from_slice(&ratewatch(&ws, &["acks", "--json"]).stdout).unwrap();
    let acked: Vec<String> = companies.iter().step_by(97).take(12).cloned().collect();
    crate::common::assert_acks_kept_unless_changed(&ws, &acks, &acked);
    let decisions: Value =
        serde_json::from_slice(&ratewatch(&ws, &["review", "list", "--json"]).stdout).unwrap();
    assert_eq!(
        decisions["decisions"],
        serde_json::json!([]),
        "every one revoked"
    );
    assert_eq!(integrity(&ws.db()), "ok");
}

fn integrity(db: &Path) -> String {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// Another program holding the write lock past the command's wait (it knows nothing of a
/// run's turn): `ack` says the database is busy and to try again, exit 2, not that the
/// database is unusable (exit 4); once it is free, the same command gets in.
#[test]
fn an_ack_locked_out_past_its_wait_exits_2_and_says_to_try_again() {
    let (_sim, ws, _) = crate::common::a_slow_night();
    let company = rows_by_ref(&ws.report())
        .into_values()
        .find_map(|r| r["company_id"].as_str().map(str::to_string))
        .unwrap();
    let other = rusqlite::Connection::open(ws.db()).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let ack = ratewatch(&ws, &["ack", &company]);
    let said = String::from_utf8_lossy(&ack.stderr);
    assert_eq!(ack.status.code(), Some(2), "{ack:?}");
    assert!(
        said.contains("recording an acknowledgement: a screening run, or another program, writing the database did not let this command in within 10 s; try again in a moment"),
        "{said}"
    );
    other.execute_batch("COMMIT").unwrap();
    let ack = ratewatch(&ws, &["ack", &company]);
    assert_eq!(ack.status.code(), Some(0), "{ack:?}");
}
