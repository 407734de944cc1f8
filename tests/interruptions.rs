//! Runs that die before their news is out: killed partway, their reports not written,
//! stopped by a signal. Every change an unbroken series of the same nights announces is
//! announced exactly once all the same, by the run that next gets its summary out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratewatch::sim::server::DEFAULT_SEED;
use ratewatch::sim::{Faults, SimConfig};
use rusqlite::Connection;

use crate::common::after_heading;
use crate::common::wait::{count_now, wait_until};
use crate::common::{Background, KEY, Workspace, background};

const ROWS: usize = 200;

/// Slow enough that a night at one request at a time (a rating a row, its searches
/// cached) lasts some seconds: a kill lands after the run's first commit, a second in,
/// and well before its last.
fn sim() -> Background {
    background(SimConfig {
        seed: DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        faults: Faults {
            latency: Duration::from_millis(20),
            ..Faults::default()
        },
        ..SimConfig::default()
    })
}

/// The first `rows` rows of a portfolio of the simulator's companies, as `name`.
fn portfolio(ws: &Workspace, sim: &Background, rows: usize, name: &str) -> PathBuf {
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), ROWS as u64 + 1, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let kept: Vec<&str> = text.lines().take(rows + 1).collect();
    ws.write(name, format!("{}\n", kept.join("\n")).as_bytes())
}

/// The color changes a run announced: (company, from, to) of its listed alerts that
/// compare with an earlier color.
type Announced = BTreeSet<(String, String, String)>;

fn announced(db: &Path, run_id: i64) -> Announced {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT hex(c.company_id), a.previous_color, r.color
             FROM run_alerts a
             JOIN companies c      ON c.id = a.company
             JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
             JOIN ratings r        ON r.id = rc.rating_id
             WHERE a.run_id = ?1 AND a.listed = 1 AND a.kind <> 'still'
               AND a.previous_color IS NOT NULL",
        )
        .unwrap();
    stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn scalar(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn last_run(db: &Path) -> i64 {
    scalar(db, "SELECT max(id) FROM runs")
}

/// Screens `file` on simulated `day` to its end; the run's id.
fn night(sim: &Background, ws: &Workspace, file: &Path, day: i64) -> i64 {
    sim.server.set_day(day);
    let out = ws.screen(sim, file).args(["--concurrency", "8"]).run();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "day {day}: {out:?}"
    );
    last_run(&ws.db())
}

#[test]
fn changes_found_by_runs_that_died_before_their_news_went_out_are_announced_once() {
    let sim = sim();
    let days = [1, 3, 5, 7];

    // The reference: the same nights, each delivered.
    let steady = Workspace::new();
    let file = portfolio(&steady, &sim, ROWS, "p.csv");
    let mut want = Vec::new();
    for day in days {
        let run = night(&sim, &steady, &file, day);
        want.push(announced(&steady.db(), run));
    }
    assert!(
        want[1..].iter().all(|a| !a.is_empty()),
        "every night after the first announces changes: {want:?}"
    );

    let crashy = Workspace::new();
    let file = portfolio(&crashy, &sim, ROWS, "p.csv");
    let mut got = vec![announced(&crashy.db(), night(&sim, &crashy, &file, 1))];

    // Day 3: the reports cannot be written (a full disk, a file where the folder
    // should be): the summary may go out, but the run is not delivered.
    sim.server.set_day(3);
    std::fs::rename(crashy.path("out"), crashy.path("out.kept")).unwrap();
    let blocker = crashy.write("out", b"");
    let out = crashy.screen(&sim, &file).run();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    std::fs::remove_file(blocker).unwrap();
    std::fs::rename(crashy.path("out.kept"), crashy.path("out")).unwrap();
    // The same night again, from a file that gained a row: a fresh run.
    let grown = portfolio(&crashy, &sim, ROWS + 1, "p.csv");
    let leftover = crashy.write("out/.report.json.4000000.tmp", b"half a report");
    let run = night(&sim, &crashy, &grown, 3);
    assert!(
        !leftover.exists(),
        "a dead run's temporary report is removed"
    );
    let report = crashy.report();
    assert_eq!(report["run"]["status"], "complete");
    let notes = report["run"]["notes"].to_string();
    assert!(
        notes.contains("stopped before its summary and reports went out"),
        "{notes}"
    );
    got.push(announced(&crashy.db(), run));

    // Day 5: killed partway through, then a file that lost its extra row: a fresh run.
    sim.server.set_day(5);
    let mut child = crashy
        .screen(&sim, &grown)
        .args(["--concurrency", "1"])
        .spawn();
    let killed = last_run(&crashy.db()) + 1;
    let rows_of = |db: &Path| {
        count_now(
            db,
            &format!("SELECT count(*) FROM run_rows WHERE run_id = {killed}"),
        )
        .unwrap_or(0)
    };
    wait_until("20 rows settled, or the run's end", || {
        rows_of(&crashy.db()) >= 20 || child.ended()
    });
    assert!(
        !child.ended(),
        "the run ended before the kill: {}",
        child.said()
    );
    child.kill();
    let settled = rows_of(&crashy.db());
    assert!(
        (20..ROWS as i64).contains(&settled),
        "killed partway: {settled} rows settled"
    );
    let file = portfolio(&crashy, &sim, ROWS, "p.csv");
    let run = night(&sim, &crashy, &file, 5);
    assert_ne!(run, killed, "a changed file starts afresh");
    got.push(announced(&crashy.db(), run));

    got.push(announced(&crashy.db(), night(&sim, &crashy, &file, 7)));
    for (i, day) in days.iter().enumerate() {
        assert_eq!(got[i], want[i], "day {day}: the changes announced");
    }
    // And the history holds each change once, as the reference's does.
    let changes = "SELECT count(*) FROM color_changes";
    assert_eq!(scalar(&crashy.db(), changes), scalar(&steady.db(), changes));
}

#[test]
fn sigterm_ends_a_run_with_its_summary_and_the_next_run_resumes_it() {
    let sim = sim();
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, ROWS, "p.csv");
    let mut child = ws.screen(&sim, &file).args(["--concurrency", "1"]).spawn();
    wait_until("10 rows settled, or the run's end", || {
        count_now(&ws.db(), "SELECT count(*) FROM run_rows").is_some_and(|n| n >= 10)
            || child.ended()
    });
    assert!(
        !child.ended(),
        "the run ended before the signal: {}",
        child.said()
    );
    child.signal(libc::SIGTERM);
    let out = child.finish();
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert_eq!(out.code(), Some(3), "{out:?}");
    assert!(
        after_heading(stdout)
            .starts_with("STOPPED: stopped by SIGTERM: the next run of this portfolio resumes"),
        "{out:?}"
    );
    assert!(
        stdout.contains(" not screened, the next run resumes them"),
        "{out:?}"
    );
    assert!(stderr.contains("SIGTERM: stopping the calls"), "{out:?}");
    assert_eq!(
        scalar(
            &ws.db(),
            "SELECT count(*) FROM runs WHERE status = 'interrupted'"
        ),
        1
    );
    let report = ws.report();
    assert_eq!(report["run"]["status"], "interrupted");
    let rated = report["run"]["by_status"]["rated"].as_u64().unwrap();
    assert!(
        (10..ROWS as u64).contains(&rated),
        "stopped partway: {rated} rated: {out:?}"
    );

    let next = ws.screen(&sim, &file).run();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(matches!(next.status.code(), Some(0 | 1)), "{next:?}");
    assert!(
        stderr.contains(&format!(
            "resuming interrupted run 1 of p: {rated} rows already screened"
        )),
        "{stderr}"
    );
    assert_eq!(ws.report()["run"]["by_status"]["rated"], ROWS as u64);
}

#[test]
fn a_run_past_its_max_run_time_stops_its_calls_and_stays_resumable() {
    let sim = sim();
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, ROWS, "p.csv");
    let out = ws
        .screen(&sim, &file)
        .args(["--concurrency", "1", "--max-run-time", "0.5"])
        .run();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        after_heading(&stdout).starts_with("STOPPED: the run reached its --max-run-time (0.5 s)"),
        "{stdout}"
    );
    let report = ws.report();
    assert_eq!(report["run"]["status"], "interrupted");
    assert!(report["run"]["by_status"]["failed"].as_u64().unwrap() > 0);
    let next = ws.screen(&sim, &file).run();
    assert!(matches!(next.status.code(), Some(0 | 1)), "{next:?}");
    assert_eq!(ws.report()["run"]["by_status"]["rated"], ROWS as u64);
}
