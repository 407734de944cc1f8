//! Copies the write-ahead log into the database file on a thread of its own.
//!
//! SQLite normally checkpoints inside the commit that makes the log long, which would stall
//! the screening thread (and every response waiting on it) for the time of the copy and
//! its syncs. The writer turns that off and this thread checkpoints instead, passively: it
//! never blocks the writer, and it writes nothing but the log's pages.
//!
//! No connection checkpoints as it closes (see `open_connection`): a writing store copies
//! what is left as it closes instead ([`on_close`]), in a way that never locks readers out.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, MAIN_DB};

use super::database::open_connection;

/// How often the log is copied. A page written again in every transaction (the last page
/// of each table a row reaches, the header that holds the file's size) is copied once per
/// checkpoint, not once per transaction: copying every ten seconds rather than every second
/// took a slow first run's writes from 7.5 to 5.5 times its growth (3,000 rows at 8
/// requests at a time; a fast run gains 1 to 2 %). The log holds ten seconds of writes, or
/// a long run's one transaction (see `writer::LOG_RESTART`).
pub(super) const EVERY: Duration = Duration::from_secs(10);

/// How long emptying the log on close waits for a reader still in it.
const EMPTYING_WAITS: Duration = Duration::from_millis(100);

/// The checkpointing thread; stopped when dropped.
pub struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the database at `path` `every` so often ([`EVERY`]); `None`
    /// (logged) if it cannot, and then SQLite's own checkpoints must stay on.
    pub fn start(path: &Path, every: Duration) -> Option<Checkpointer> {
        let conn = open_connection(path)
            .inspect_err(|e| tracing::warn!("checkpoints stay in the writer: {e}"))
            .ok()?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    // A failed checkpoint loses nothing: the pages stay in the log, and the
                    // next checkpoint (or the next connection) copies them.
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::debug!("checkpoint deferred: {e}");
                    }
                }
            })
            .inspect_err(|e| tracing::warn!("checkpoints stay in the writer: {e}"))
            .ok()?;
        Some(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Copies the log into the database as a writing store closes, then empties it, without
/// locking readers out: the database file alone is then complete and on disk, and the next
/// connection to open the database has no log to read back (a reader opening while it does
/// is refused). The copy is passive and holds no writer up (a run beside, as `ack` or
/// `review` closes); emptying the log copies what a reader held back or a writer added
/// meanwhile and waits a moment at most for a reader still in it. A log not emptied stays,
/// whole, for the next connection.
pub(super) fn on_close(conn: &Connection) {
    if conn.is_readonly(MAIN_DB).unwrap_or(true) {
        return;
    }
    let emptied = conn
        .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        .and_then(|()| conn.busy_timeout(EMPTYING_WAITS))
        .and_then(|()| {
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            })
        });
    match emptied {
        Ok(0) => {}
        Ok(_) => tracing::debug!("the log stays for the next connection: a reader is in it"),
        Err(e) => tracing::debug!("the log stays for the next connection: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::OpenFlags;
    use rusqlite::config::DbConfig;

    use super::*;
    use crate::store::database::Store;

    fn log_len(db: &Path) -> Option<u64> {
        std::fs::metadata(db.with_extension("db-wal"))
            .ok()
            .map(|m| m.len())
    }

    /// A reader as `sqlite3` opens one: no busy timeout.
    fn probes(db: &Path) -> i64 {
        let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        conn.busy_timeout(Duration::ZERO).unwrap();
        conn.query_row("SELECT count(*) FROM probe", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_connection_closes_without_copying_the_log_and_the_next_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        drop(Store::open(&db).unwrap());
        let conn = open_connection(&db).unwrap();
        conn.execute_batch("CREATE TABLE probe (n INTEGER); INSERT INTO probe VALUES (1), (2);")
            .unwrap();
        drop(conn);
        // Closing last, it would have copied the log under an exclusive lock and deleted it.
        assert!(log_len(&db).is_some_and(|n| n > 0), "{:?}", log_len(&db));
        assert_eq!(probes(&db), 2);
        let no_checkpoint = |c: &Connection| {
            c.db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE)
                .unwrap()
        };
        assert!(no_checkpoint(&open_connection(&db).unwrap()));
        assert!(no_checkpoint(&Store::open_read_only(&db).unwrap().conn));
    }

    #[test]
    fn a_store_closing_leaves_the_database_file_complete_and_the_log_empty() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let store = Store::open(&db).unwrap();
        store
            .conn
            .execute_batch("CREATE TABLE probe (n INTEGER); INSERT INTO probe VALUES (1), (2);")
            .unwrap();
        drop(store);
        assert_eq!(log_len(&db), Some(0));
        // The database file alone has it all.
        let alone = dir.path().join("alone.db");
        std::fs::copy(&db, &alone).unwrap();
        assert_eq!(probes(&alone), 2);
    }
}
