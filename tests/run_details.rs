//! Per-night detail kept for a while, the history forever: once a run's reports are out,
//! the rows of runs older than `keep_run_details_days` are deleted, and the file stops
//! growing once the window is full; the color history, the acknowledgements, the runs'
//! summaries and the latest finished run's rows stay, and `report --run` and `runs` say
//! which runs' rows are gone.
//!
//! Nights on successive dates: each night is screened, then every time the database holds
//! is moved a day into the past, so that each night's observations fall on the day the
//! simulator served (the service's dates are those of its calendar, ending on today).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::common::{Workspace, background, calendar_ending_on_today, config};
use ratewatch::sim::SimConfig;

/// Nights screened, one simulated day each.
const NIGHTS: i64 = 7;
/// Rows of the portfolio.
const ROWS: u64 = 2_000;

/// Moves every time the database at `db` holds `days` days into the past: the runs, the
/// ratings' first sightings and their confirmations, the acknowledgements.
fn days_pass(db: &Path, days: i64) {
    let back = format!("'-{days} days'");
    let shift =
        |column: &str| format!("{column} = strftime('%Y-%m-%dT%H:%M:%SZ', {column}, {back})");
    let sql = format!(
        "UPDATE runs SET {}, {}, {}, {};
         UPDATE ratings SET {};
         UPDATE rating_confirmations SET {};
         UPDATE acks SET {};",
        shift("started_at"),
        shift("finished_at"),
        shift("delivered_at"),
        shift("details_pruned_at"),
        shift("observed_at"),
        shift("confirmed_at"),
        shift("acked_at"),
    );
    Connection::open(db).unwrap().execute_batch(&sql).unwrap();
}

fn read_only(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// Every row `sql` gives, each as its columns' text joined by `|`.
fn rows(db: &Path, sql: &str) -> Vec<String> {
    let conn = read_only(db);
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into(),
                    rusqlite::types::ValueRef::Blob(_) => "BLOB".to_string(),
                })
            })
            .collect::<rusqlite::Result<Vec<_>>>()
            .map(|v| v.join("|"))
    })
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

fn count(db: &Path, sql: &str) -> i64 {
    read_only(db).query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The database's bytes on disk, its write-ahead log included.
fn size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    std::fs::metadata(db).unwrap().len() + std::fs::metadata(wal).map_or(0, |m| m.len())
}

/// What the history says, by run and company (the service's UUID: the internal keys and
/// the ratings' ids follow the order answers came in): the color periods, the color
/// changes, the acknowledgements and the runs' summaries. Times are left out: two
/// databases screened one after the other see the same nights a few seconds apart.
fn history(db: &Path) -> Vec<(&'static str, Vec<String>)> {
    [
        (
            "color_periods",
            "SELECT company_id, color, first_run_id, last_run_id, valid_to IS NULL
             FROM color_periods ORDER BY company_id, first_run_id",
        ),
        (
            "color_changes",
            "SELECT company_id, from_color, to_color, run_id, direction
             FROM color_changes ORDER BY company_id, run_id",
        ),
        (
            "acknowledgements",
            "SELECT company_id, color, ended_how, ended_run_id, in_force
             FROM acknowledgements ORDER BY id",
        ),
        (
            "runs",
            "SELECT id, status, rows_total, rows_rated, alerts FROM runs ORDER BY id",
        ),
        (
            "run_colors",
            "SELECT run_id, color, rows, new_rows FROM run_colors ORDER BY run_id, color",
        ),
        (
            "run_alerts",
            "SELECT a.run_id, c.company_id, a.kind, a.listed, a.acked
             FROM run_alerts a JOIN companies c ON c.id = a.company
             ORDER BY a.run_id, c.company_id",
        ),
    ]
    .into_iter()
    .map(|(what, sql)| (what, rows(db, sql)))
    .collect()
}

/// The first line where two answers differ, if any.
fn first_difference(a: &[String], b: &[String]) -> Option<String> {
    let at = a.iter().zip(b).position(|(x, y)| x != y);
    match at {
        Some(i) => Some(format!("line {i}: {} against {}", a[i], b[i])),
        None if a.len() != b.len() => Some(format!("{} lines against {}", a.len(), b.len())),
        None => None,
    }
}

#[test]
fn a_two_day_window_stops_the_file_growing_and_keeps_the_history_and_the_latest_rows() {
    let sim = background(SimConfig {
        calendar: calendar_ending_on_today(NIGHTS),
        ..config()
    });
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), ROWS, &mut buf).unwrap();
    // The same nights into two databases: one keeps two days of rows (the flag), the
    // other every row (its ratewatch.toml).
    let (window, forever) = (Workspace::new(), Workspace::new());
    forever.write("ratewatch.toml", b"keep_run_details_days = 0\n");
    let files = [&window, &forever].map(|ws| ws.write("portfolio.csv", &buf));
    let mut sizes = Vec::new();
    for night in 1..=NIGHTS {
        sim.server.set_day(night);
        for (ws, file) in [&window, &forever].into_iter().zip(&files) {
            if night > 1 {
                days_pass(&ws.db(), 1);
            }
            let mut screen = ws.screen(&sim, file);
            if std::ptr::eq(ws, &window) {
                screen.args(["--keep-run-details-days", "2"]);
            }
            let out = screen.run();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "night {night}: {out:?}"
            );
        }
        sizes.push((size(&window.db()), size(&forever.db())));
        if night == 2 {
            // A red company acknowledged in both: its acknowledgement outlives the rows.
            let red = rows(
                &window.db(),
                "SELECT company_id FROM latest_results WHERE color = 'red' ORDER BY line LIMIT 1",
            );
            for ws in [&window, &forever] {
                ws.ratewatch(["ack", &red[0], "--note", "paid in advance"])
                    .db(ws.db())
                    .assert()
                    .success();
            }
        }
    }

    // The rows of the runs started more than two days before the last are gone; the two
    // latest are there, the latest finished run whole.
    let (db, all) = (window.db(), forever.db());
    let with_rows =
        "SELECT group_concat(run_id) FROM (SELECT DISTINCT run_id FROM run_rows ORDER BY 1)";
    assert_eq!(rows(&db, with_rows), [format!("{},{NIGHTS}", NIGHTS - 1)]);
    let pruned = rows(
        &db,
        "SELECT id FROM runs WHERE details_pruned_at IS NOT NULL ORDER BY id",
    );
    let expected: Vec<String> = (1..NIGHTS - 1).map(|n| n.to_string()).collect();
    assert_eq!(pruned, expected);
    // No stretch of rows held by those runs alone is left.
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM run_row_spans s
             WHERE NOT EXISTS (SELECT 1 FROM runs k
                               WHERE k.portfolio = s.portfolio AND k.details_pruned_at IS NULL
                                 AND k.id BETWEEN s.first_run_id AND s.last_run_id)"
        ),
        0
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(DISTINCT run_id) FROM run_companies WHERE change <> 'gone'"
        ),
        2
    );
    assert_eq!(
        count(&all, "SELECT count(DISTINCT run_id) FROM run_rows"),
        NIGHTS
    );
    assert_eq!(
        count(
            &all,
            "SELECT count(*) FROM runs WHERE details_pruned_at IS NOT NULL"
        ),
        0
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM latest_results"),
        ROWS as i64
    );
    let latest = "SELECT line, ref, status, company_id, color, change, alert_kind
                  FROM latest_results ORDER BY line";
    assert_eq!(
        first_difference(&rows(&db, latest), &rows(&all, latest)),
        None,
        "latest_results answers as if nothing were deleted"
    );
    // The color history, the acknowledgements and every run's summary, whole.
    let (kept, whole) = (history(&db), history(&all));
    for ((what, kept), (_, whole)) in kept.iter().zip(&whole) {
        assert_eq!(first_difference(kept, whole), None, "{what}");
    }
    assert!(
        kept[1].1.len() > 10 && kept[2].1.len() == 1,
        "nights with color changes and an acknowledgement: {:?}",
        kept[2]
    );

    // A night adds what changed: 40 bytes a row at most, with every row kept (from the
    // third night, the first two having written the file's first pages).
    let grown = |to: fn(&(u64, u64)) -> u64, from: usize| {
        to(&sizes[NIGHTS as usize - 1]) - to(&sizes[from])
    };
    let nightly = grown(|s| s.1, 2) / (NIGHTS as u64 - 3) / ROWS;
    assert!(
        nightly <= 40,
        "{nightly} B per row per night: bytes after each night, with a two-day window and \
         keeping every row: {sizes:?}"
    );
    // Once the window is full (night 3 deletes night 1's rows, night 4 writes into its
    // pages), a night adds the history it brings and no rows: less than a night adds to
    // the database that keeps every row.
    let (kept, whole) = (grown(|s| s.0, 3), grown(|s| s.1, 3));
    assert!(
        kept < whole,
        "bytes after each night, with a two-day window and keeping every row: {sizes:?}"
    );
    // A run whose rows are gone: `report --run` says so and since when, and writes nothing.
    let out = window
        .ratewatch(["report", "--run", "1", "--out"])
        .arg(window.path("old"))
        .db(&db)
        .run();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("run 1's rows are no longer kept: they were deleted on 20")
            && stderr.contains("keep_run_details_days"),
        "{stderr}"
    );
    assert!(!window.path("old/report.csv").exists());
    // Nor does a trial of the alert rules on it pass for a quiet night.
    let trial = window
        .ratewatch(["alerts", "test", "--run", "1"])
        .db(&db)
        .run();
    let said = String::from_utf8_lossy(&trial.stderr);
    assert_eq!(trial.status.code(), Some(2), "{said}");
    assert!(said.contains("run 1's rows are no longer kept"), "{said}");
    assert!(
        !String::from_utf8_lossy(&trial.stdout).contains("quiet night"),
        "{trial:?}"
    );
    let kept = window
        .ratewatch(["report", "--run", &NIGHTS.to_string(), "--out"])
        .arg(window.path("latest"))
        .db(&db)
        .run();
    assert!(kept.status.success(), "{kept:?}");
    forever
        .ratewatch(["report", "--run", "1", "--out"])
        .arg(forever.path("old"))
        .db(&all)
        .assert()
        .success();
    // `runs` lists every run with its counts, and says whose rows are gone.
    let listed: Value =
        serde_json::from_slice(&window.ratewatch(["runs", "--json"]).db(&db).run().stdout).unwrap();
    let listed = listed["runs"].as_array().unwrap();
    assert_eq!(listed.len(), NIGHTS as usize);
    for run in listed {
        let id = run["id"].as_i64().unwrap();
        assert_eq!(run["rows"], ROWS, "run {id}");
        assert_eq!(
            run["details_pruned_at"].is_string(),
            id < NIGHTS - 1,
            "run {id}: {run}"
        );
    }
    let table = window.ratewatch(["runs"]).db(&db).run();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains(&format!(
            "Runs {}: their rows are no longer kept (keep_run_details_days)",
            expected.join(", ")
        )),
        "{table}"
    );
}

#[test]
fn the_default_window_is_ninety_days_and_zero_keeps_every_run_s_rows() {
    let sim = background(config());
    let ws = Workspace::new();
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), 50, &mut buf).unwrap();
    let file = ws.write("portfolio.csv", &buf);
    let db = ws.db();
    let night = |env: Option<&str>| {
        let mut screen = ws.screen(&sim, &file);
        if let Some(days) = env {
            screen.env("RATEWATCH_KEEP_RUN_DETAILS_DAYS", days);
        }
        let out = screen.run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    };
    let kept = || rows(&db, "SELECT DISTINCT run_id FROM run_rows ORDER BY 1");
    // Run 1, then run 2 89 days later: nothing is deleted within 90 days.
    night(None);
    days_pass(&db, 89);
    night(None);
    assert_eq!(kept(), ["1", "2"]);
    // Run 3 two days later: run 1, 91 days before it, loses its rows; run 2 keeps them.
    days_pass(&db, 2);
    night(None);
    assert_eq!(kept(), ["2", "3"]);
    // 0 (the variable) keeps every run's rows, however old.
    days_pass(&db, 400);
    night(Some("0"));
    assert_eq!(kept(), ["2", "3", "4"]);
}
