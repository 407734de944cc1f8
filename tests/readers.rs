//! Readers of the database beside the nightly runs, as docs/database.md tells an analyst to
//! open it: two read-write readers with a busy timeout of 5 s (Python's
//! `sqlite3.connect(path, timeout=5)`, the shell's `.timeout 5000`) and two read-only ones
//! with none (`sqlite3 -readonly`, `?mode=ro`, Datasette), so that any moment a run locks
//! readers out refuses them at once.

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

/// How a reader opens the database.
#[derive(Clone, Copy)]
struct Opening {
    read_only: bool,
    timeout: Duration,
}

/// Polls the database in a loop, each time as a new reader: opens it as told, counts a
/// view's rows and the finished runs, closes it.
struct Reader {
    stop: Arc<AtomicBool>,
    polls: Arc<AtomicU64>,
    /// The run under way (positive) or last ended (negative), to say when a poll failed.
    run: Arc<AtomicI64>,
    thread: JoinHandle<Vec<Refusal>>,
}

impl Reader {
    fn start(db: PathBuf, opening: Opening) -> Reader {
        let stop = Arc::new(AtomicBool::new(false));
        let polls = Arc::new(AtomicU64::new(0));
        let run = Arc::new(AtomicI64::new(0));
        let (stopped, counted, at) = (stop.clone(), polls.clone(), run.clone());
        let thread = std::thread::spawn(move || {
            let mut refused = Vec::new();
            while !stopped.load(Ordering::Relaxed) {
                if let Err(e) = poll(&db, opening) {
                    let when = match at.load(Ordering::Relaxed) {
                        n if n > 0 => format!("during run {n}"),
                        n => format!("after run {}", -n),
                    };
                    let code = match &e {
                        rusqlite::Error::SqliteFailure(f, _) => f.extended_code,
                        _ => -1,
                    };
                    refused.push(Refusal {
                        recovery: code == ffi::SQLITE_BUSY_RECOVERY,
                        code,
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

/// A poll refused: whether SQLite was rebuilding its shared index of the log, and SQLite's
/// extended code.
struct Refusal {
    recovery: bool,
    code: i32,
    what: String,
}

fn said(refused: &[Refusal]) -> Vec<&str> {
    refused.iter().map(|r| r.what.as_str()).collect()
}

/// What `sqlite3 [-readonly] ratewatch.db '.timeout N' 'SELECT …'` does: (rows in
/// `run_results`, finished runs).
fn poll(db: &Path, opening: Opening) -> rusqlite::Result<(i64, i64)> {
    let access = if opening.read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
    };
    let conn = Connection::open_with_flags(db, access | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(opening.timeout)?;
    let rows = conn.query_row("SELECT count(*) FROM run_results", [], |r| r.get(0))?;
    let runs = conn.query_row(
        "SELECT count(*) FROM runs WHERE status <> 'running'",
        [],
        |r| r.get(0),
    )?;
    Ok((rows, runs))
}

#[test]
fn readers_with_a_timeout_are_never_refused_and_without_one_only_where_sqlite_refuses() {
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
    // The first run creates the database; the readers read it from the second on.
    screen(1);

    let waiting = Opening {
        read_only: false,
        timeout: Duration::from_secs(5),
    };
    let hasty = Opening {
        read_only: true,
        timeout: Duration::ZERO,
    };
    let waiting = [waiting, waiting].map(|o| Reader::start(ws.db(), o));
    let hasty = [hasty, hasty].map(|o| Reader::start(ws.db(), o));
    let every = || waiting.iter().chain(&hasty);
    let mut polls = Vec::new();
    for night in 2..=RUNS + 1 {
        for reader in every() {
            reader.run.store(night, Ordering::Relaxed);
        }
        let started = hasty[0].polls();
        screen(night);
        for reader in every() {
            reader.run.store(-night, Ordering::Relaxed);
        }
        let ended = hasty[0].polls();
        // Across the run's end: its last connection closed as the process exited.
        for reader in every() {
            reader.wait_past(reader.polls(), 20);
        }
        polls.push((night, ended - started));
    }
    let total: u64 = every().map(Reader::polls).sum();
    let [w1, w2] = waiting;
    let [h1, h2] = hasty;
    let mut refused = w1.stop();
    refused.extend(w2.stop());
    assert!(
        refused.is_empty(),
        "{} of {total} polls with a busy timeout were refused: {:#?}",
        refused.len(),
        said(&refused)
    );
    // Without a timeout, two moments SQLite gives that ratewatch cannot take away
    // (docs/database.md): a run opening the database while nothing else has it rebuilds
    // the log's shared index (SQLITE_BUSY_RECOVERY), once a run at most; and between runs,
    // a read-write reader closing last copies the log under an exclusive lock, as SQLite
    // does by default (its own connection's setting, not the file's). A run itself, from
    // its start to its end, never refuses a reader.
    let mut refused = h1.stop();
    refused.extend(h2.stop());
    // Those readers' own closes come at any moment, a run's process starting included (it
    // opens the database only once it has read its settings and file): plain SQLITE_BUSY is
    // theirs wherever it falls, and a rare refusal, not one per poll.
    let unexplained: Vec<&Refusal> = refused
        .iter()
        .filter(|r| !(r.recovery || r.code == ffi::SQLITE_BUSY))
        .collect();
    assert!(
        unexplained.is_empty() && refused.len() as i64 <= 2 * RUNS,
        "{} of {total} polls were refused: {:#?}",
        refused.len(),
        said(&refused)
    );
    for (night, during) in polls {
        assert!(during >= 5, "run {night}: only {during} polls during it");
    }
    assert!(total >= 600, "only {total} polls");
    // Everything every run wrote is read, whatever the runs left in the log.
    assert_eq!(
        poll(&ws.db(), hasty_opening()).unwrap(),
        ((RUNS + 1) * ROWS, RUNS + 1)
    );
}

/// A read-only reader with no busy timeout.
fn hasty_opening() -> Opening {
    Opening {
        read_only: true,
        timeout: Duration::ZERO,
    }
}
