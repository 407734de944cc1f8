//! Readers of the database beside the nightly runs, as an analyst's `sqlite3` shell reads
//! it: read-only, one with the busy timeout docs/database.md asks for, one with none, so
//! that any moment a run locks readers out refuses it at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, ffi};

use crate::common::wait::wait_until;
use crate::common::{Workspace, background, config};

/// Rows of the portfolio each run screens.
const ROWS: i64 = 200;
/// Runs screened while the reader polls. A run's end met a poll at the wrong moment about
/// two times in five when its last connection checkpointed as it closed: ten ends fail
/// all but about once in a hundred.
const RUNS: i64 = 10;
/// Between two polls the reader holds no connection, as a shell polling from a loop does:
/// a reader always connected would keep a closing run from locking the database.
const PAUSE: Duration = Duration::from_millis(2);

/// Polls the database in a loop, each time as a new reader: opens it read-only with its
/// busy timeout, counts a view's rows and the finished runs, closes it.
struct Reader {
    stop: Arc<AtomicBool>,
    polls: Arc<AtomicU64>,
    /// The run under way (positive) or last ended (negative), to say when a poll failed.
    run: Arc<AtomicI64>,
    thread: JoinHandle<Vec<Refusal>>,
}

impl Reader {
    fn start(db: PathBuf, timeout: Duration) -> Reader {
        let stop = Arc::new(AtomicBool::new(false));
        let polls = Arc::new(AtomicU64::new(0));
        let run = Arc::new(AtomicI64::new(0));
        let (stopped, counted, at) = (stop.clone(), polls.clone(), run.clone());
        let thread = std::thread::spawn(move || {
            let mut refused = Vec::new();
            while !stopped.load(Ordering::Relaxed) {
                if let Err(e) = poll(&db, timeout) {
                    let when = match at.load(Ordering::Relaxed) {
                        n if n > 0 => format!("during run {n}"),
                        n => format!("after run {}", -n),
                    };
                    refused.push(Refusal {
                        recovery: matches!(&e, rusqlite::Error::SqliteFailure(f, _)
                            if f.extended_code == ffi::SQLITE_BUSY_RECOVERY),
                        what: format!("{when}: {e} ({e:?})"),
                    });
                }
                counted.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(PAUSE);
            }
            refused
        });
        Reader {
            stop,
            polls,
            run,
            thread,
        }
    }

    fn polls(&self) -> u64 {
        self.polls.load(Ordering::Relaxed)
    }

    /// Waits for `n` polls after the `from`th.
    fn wait_past(&self, from: u64, n: u64) {
        wait_until(
            format!("{n} polls of the reader after its {from}th"),
            || self.polls() >= from + n,
        );
    }

    /// The polls refused, and what they were told.
    fn stop(self) -> Vec<Refusal> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// A poll refused, and whether SQLite was rebuilding its shared index of the log.
struct Refusal {
    recovery: bool,
    what: String,
}

fn said(refused: &[Refusal]) -> Vec<&str> {
    refused.iter().map(|r| r.what.as_str()).collect()
}

/// What `sqlite3 -readonly ratewatch.db '.timeout N' 'SELECT …'` does: (rows in
/// `run_results`, finished runs).
fn poll(db: &Path, timeout: Duration) -> rusqlite::Result<(i64, i64)> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(timeout)?;
    let rows = conn.query_row("SELECT count(*) FROM run_results", [], |r| r.get(0))?;
    let runs = conn.query_row(
        "SELECT count(*) FROM runs WHERE status <> 'running'",
        [],
        |r| r.get(0),
    )?;
    Ok((rows, runs))
}

#[test]
fn readers_are_never_refused_during_runs_nor_as_they_end() {
    let sim = background(config());
    let ws = Workspace::new();
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), ROWS as u64, &mut buf).unwrap();
    let file = ws.write("p.csv", &buf);
    let screen = |night: i64| {
        sim.server.set_day(night);
        let out = ws.screen(&sim, &file).run();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "run {night}: {out:?}"
        );
    };
    // The first run creates the database; the reader reads it from the second on.
    screen(1);

    let waiting = Reader::start(ws.db(), Duration::from_secs(5));
    let hasty = Reader::start(ws.db(), Duration::ZERO);
    let mut polls = Vec::new();
    for night in 2..=RUNS + 1 {
        for reader in [&waiting, &hasty] {
            reader.run.store(night, Ordering::Relaxed);
        }
        let started = hasty.polls();
        screen(night);
        for reader in [&waiting, &hasty] {
            reader.run.store(-night, Ordering::Relaxed);
        }
        let ended = hasty.polls();
        // Across the run's end: its last connection closed as the process exited.
        hasty.wait_past(ended, 20);
        waiting.wait_past(waiting.polls(), 5);
        polls.push((night, ended - started));
    }
    let (total, waited) = (hasty.polls(), waiting.polls());
    let refused = waiting.stop();
    assert!(
        refused.is_empty(),
        "{} of {waited} polls with a busy timeout were refused: {:#?}",
        refused.len(),
        said(&refused)
    );
    // Without a timeout, the one refusal SQLite may give: a run opening the database while
    // nothing else has it rebuilds the log's shared index (docs/database.md). Once a run
    // at most, as it starts; nothing else.
    let refused = hasty.stop();
    assert!(
        refused.iter().all(|r| r.recovery) && refused.len() as i64 <= RUNS,
        "{} of {total} polls were refused: {:#?}",
        refused.len(),
        said(&refused)
    );
    for (night, during) in polls {
        assert!(during >= 5, "run {night}: only {during} polls during it");
    }
    assert!(total >= 300, "only {total} polls");
    // Everything every run wrote is read, whatever the runs left in the log.
    assert_eq!(
        poll(&ws.db(), Duration::ZERO).unwrap(),
        ((RUNS + 1) * ROWS, RUNS + 1)
    );
}
