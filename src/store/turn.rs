//! A write beside a screening run asks the run for its turn, and the run gives way.
//!
//! A run keeps its write transaction open from one commit to the next (one to fifteen
//! seconds, see `writer`): fewer, larger commits write each index page once for many rows.
//! SQLite's own wait cannot get past that: a busy timeout only polls, and the run begins
//! its next transaction the moment it commits, so `ack` beside a run used to find the
//! database locked nearly every time it looked and gave up after its wait.
//!
//! So a decision (`ack`, `review`, a form of `ratewatch serve`) first locks `<db>.turn`
//! beside the database ([`Turn::take`], through `Store::decision_conn`), and keeps it until
//! its store closes. The run looks at that file on every tick of its commits
//! ([`Watch::asked`]): while it is locked, the run commits at once and waits, its records
//! queued in memory and its questions held, until the lock is released
//! ([`Watch::wait_done`]). The run writes nothing else differently: a run nobody asks keeps
//! its long transactions, and a kill still loses at most the one open.
//!
//! The lock is the operating system's (`flock`), released however a process ends. A run
//! creates the file; with no file, no run has ever watched the database and a decision
//! asks nobody. Other programs that write the database know nothing of it: they get
//! SQLite's wait alone.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::sql::StoreError;

/// How often a lock held by another is tried again.
const POLL: Duration = Duration::from_millis(2);

/// `<db>.turn`, beside the real file as `<db>.lock` is.
fn turn_path(db: &Path) -> PathBuf {
    super::lock::beside(db, ".turn")
}

/// A decision's turn to write, held until dropped.
#[derive(Debug)]
pub(super) struct Turn {
    /// `<db>.turn`, locked; `None` when no run watches the database.
    _held: Option<File>,
}

impl Turn {
    /// Takes the turn, waiting up to `wait` for another decision that holds it; the run
    /// beside, if any, commits at its next tick and waits until this turn is dropped.
    pub(super) fn take(db: &Path, wait: Duration) -> Result<Turn, StoreError> {
        let path = turn_path(db);
        let file = match File::open(&path) {
            Ok(file) => file,
            // No run has watched this database: there is nobody to ask.
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Turn { _held: None }),
            Err(e) => return Err(cannot("open", &path, e)),
        };
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Turn { _held: Some(file) }),
                Err(TryLockError::WouldBlock) if started.elapsed() < wait => {
                    std::thread::sleep(POLL);
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(StoreError::Locked {
                        context: "waiting for the turn to write".into(),
                        holder: "another ratewatch command (`ack`, `review` or a form of \
                                 `ratewatch serve`)",
                        waited: wait,
                    });
                }
                Err(TryLockError::Error(e)) => return Err(cannot("lock", &path, e)),
            }
        }
    }
}

fn cannot(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Lock(format!("cannot {what} {}: {e}", path.display()))
}

/// A run's side of the turn: the file it looks at for a decision asking.
#[derive(Debug)]
pub(super) struct Watch {
    file: File,
}

impl Watch {
    /// Creates `<db>.turn` if need be and watches it; `None` (logged) if it cannot, and
    /// then a decision beside the run has only SQLite's wait.
    pub(super) fn start(db: &Path) -> Option<Watch> {
        let path = turn_path(db);
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .inspect_err(|e| {
                tracing::warn!(
                    "cannot open {}: `ack` and `review` beside this run may find the database locked: {e}",
                    path.display()
                );
            })
            .ok()
            .map(|file| Watch { file })
    }

    /// Whether a decision holds the turn (it is writing, or waiting for the run to commit).
    pub(super) fn asked(&self) -> bool {
        match self.file.try_lock_shared() {
            Ok(()) => {
                // Held a moment only, or it would shut every decision out.
                if let Err(e) = self.file.unlock() {
                    tracing::warn!("releasing a look at the turn: {e}");
                }
                false
            }
            Err(TryLockError::WouldBlock) => true,
            Err(TryLockError::Error(e)) => {
                tracing::warn!("looking whether a write beside the run waits: {e}");
                false
            }
        }
    }

    /// Waits, up to `wait`, until the decision holding the turn has released it; whether
    /// it did.
    pub(super) fn wait_done(&self, wait: Duration) -> bool {
        let started = Instant::now();
        while self.asked() {
            if started.elapsed() >= wait {
                return false;
            }
            std::thread::sleep(POLL);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_sees_a_decision_ask_for_the_turn_until_it_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let nobody = Turn::take(&db, Duration::ZERO).unwrap();
        assert!(nobody._held.is_none(), "no run watches: nobody to ask");
        assert!(!turn_path(&db).exists(), "a decision creates no file");
        drop(nobody);

        let watch = Watch::start(&db).unwrap();
        assert!(!watch.asked());
        let turn = Turn::take(&db, Duration::ZERO).unwrap();
        assert!(turn._held.is_some());
        assert!(watch.asked());
        assert!(!watch.wait_done(Duration::from_millis(20)));
        let released = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drop(turn);
        });
        assert!(watch.wait_done(Duration::from_secs(10)));
        released.join().unwrap();
        assert!(!watch.asked(), "looking takes nothing");
        drop(Turn::take(&db, Duration::ZERO).unwrap());
    }

    #[test]
    fn a_decision_waits_for_another_s_turn_and_past_its_wait_says_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let _watch = Watch::start(&db).unwrap();
        let first = Turn::take(&db, Duration::ZERO).unwrap();
        let refused = Turn::take(&db, Duration::from_millis(20)).unwrap_err();
        assert!(matches!(refused, StoreError::Locked { .. }), "{refused:?}");
        let said = refused.to_string();
        assert!(
            said.contains("another ratewatch command") && said.contains("try again"),
            "{said}"
        );
        let waiting = {
            let db = db.clone();
            std::thread::spawn(move || Turn::take(&db, Duration::from_secs(10)).map(drop))
        };
        std::thread::sleep(Duration::from_millis(30));
        drop(first);
        waiting.join().unwrap().expect("taken once released");
    }
}
