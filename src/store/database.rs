//! The [`Store`]: the database opened for writing (created or upgraded first) or for
//! reading only, its connections and how they are set up, and the writer a run records
//! through on a connection of its own.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::migrate::{self, SCHEMA_VERSION};
use super::sql::{StoreError, WAIT};
use super::writer::Writer;
use super::{checkpoint, clock, turn};

/// One state of the database, read until this is dropped ([`Store::snapshot`]).
#[must_use = "the snapshot ends when dropped"]
pub struct Snapshot<'a> {
    _read: rusqlite::Transaction<'a>,
}

/// The ratewatch database.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// Counts the answers its writers saw dated off this machine's clock.
    pub(super) service_clock: clock::ServiceClock,
    /// The companies whose news a resumed run had already delivered before it stopped
    /// (a signal, a spent quota): its verdict lists them no more (see `decide_alerts`).
    /// Kept in memory only: a resumed run that dies again announces them again rather
    /// than never.
    pub(super) delivered_before_resume: (i64, std::collections::HashSet<i64>),
    /// The turn a decision took to write beside a run ([`Store::decision_conn`]); released
    /// as the store closes, after the log is emptied (see `Drop`).
    pub(super) turn: Option<turn::Turn>,
    /// How often a writer's checkpoint thread copies the log ([`checkpoint::EVERY`]; a
    /// test shortens it).
    pub(crate) checkpoint_every: Duration,
}

pub(super) fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(StoreError::at("opening"))?;
    conn.busy_timeout(WAIT)
        .map_err(StoreError::at("setting the busy timeout"))?;
    // Every transaction takes the write lock when it begins, so it waits (the busy
    // timeout) for another writer (`ack`, `review`, `sync-history`, a run) to finish. A
    // deferred one would read first and then fail, without waiting, when it came to write
    // after another connection had committed ("cannot promote read transaction").
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    // WAL lets readers (sqlite3, the cache) work during a run; NORMAL sync is durable
    // against a crash of ratewatch, which is the failure that matters here. The log
    // outlives the connections (see below): it is cut back to 64 MiB when it starts over.
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         PRAGMA synchronous = NORMAL;
         PRAGMA journal_size_limit = 67108864;",
    )
    .map_err(StoreError::at("setting pragmas"))?;
    no_checkpoint_on_close(&conn)?;
    Ok(conn)
}

/// The last connection to close would otherwise copy the log into the database and
/// delete it under an exclusive lock, and a reader opening then (`sqlite3` has no busy
/// timeout) is refused with "database is locked". The log left behind is complete: the
/// next connection reads it, and the checkpoints of the next run copy it.
fn no_checkpoint_on_close(conn: &Connection) -> Result<(), StoreError> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map(|_| ())
        .map_err(StoreError::at("keeping the log on close"))
}

/// A writing store empties the log as it closes (see `checkpoint::on_close`). A decision's
/// turn is released only then: a run beside waits off its screening thread meanwhile,
/// rather than on it, in `BEGIN`, for the copy to end.
impl Drop for Store {
    fn drop(&mut self) {
        checkpoint::on_close(&self.conn);
        drop(self.turn.take());
    }
}

impl Store {
    /// Opens (or creates) the database and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = open_connection(path)?;
        migrate::migrate(&mut conn)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(StoreError::at("switching to WAL"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!("the database could not switch to WAL (journal mode {mode})");
        }
        Ok(Store::over(conn, path))
    }

    /// A store over an opened connection, nothing of a run's yet.
    fn over(conn: Connection, path: &Path) -> Store {
        Store {
            conn,
            path: path.to_path_buf(),
            service_clock: Default::default(),
            delivered_before_resume: Default::default(),
            turn: None,
            checkpoint_every: checkpoint::EVERY,
        }
    }

    /// Opens an existing database for reading only: it is never created, upgraded or
    /// written, and no lock is taken, so this runs beside a screening run without blocking
    /// or slowing it (WAL gives readers a snapshot of what was committed).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing);
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(StoreError::at("opening"))?;
        conn.busy_timeout(WAIT)
            .map_err(StoreError::at("setting the busy timeout"))?;
        no_checkpoint_on_close(&conn)?;
        // Reading commands never upgrade: a database of an earlier schema waits for the
        // next writing one.
        match migrate::check(&conn)? {
            0 => return Err(StoreError::Empty),
            found if found < SCHEMA_VERSION => {
                return Err(StoreError::Older {
                    found,
                    needed: SCHEMA_VERSION,
                });
            }
            _ => {}
        }
        Ok(Store::over(conn, path))
    }

    /// Reads from one state of the database until the snapshot is dropped: a count over a
    /// million rows sees one cache even beside a run that writes, and marks its place in
    /// the log's index once rather than once per question. Deferred, so it takes no lock
    /// until its first read and never the write lock. (A long snapshot keeps the run's
    /// checkpoints from emptying the log meanwhile, so it is for reads of seconds.)
    pub fn snapshot(&self) -> Result<Snapshot<'_>, StoreError> {
        let read = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Deferred,
        )
        .map_err(StoreError::at("starting a read"))?;
        Ok(Snapshot { _read: read })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection for a decision's write (an acknowledgement, a review's decision),
    /// once a screening run beside has given way: the turn is taken on the first write and
    /// kept until the store closes (see `turn`).
    pub(super) fn decision_conn(&mut self) -> Result<&Connection, StoreError> {
        if self.turn.is_none() {
            self.turn = Some(turn::Turn::take(&self.path, WAIT)?);
        }
        Ok(&self.conn)
    }

    /// Keeps the connection's scratch tables (`alerts test`'s verdicts) in memory: for a
    /// run that must still say what it found when the disk is full.
    pub fn scratch_in_memory(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("PRAGMA temp_store = MEMORY;")
            .map_err(StoreError::at("keeping scratch tables in memory"))
    }

    /// Every row of `sql`, each read by `read`.
    pub(super) fn all<T>(
        &self,
        ctx: &str,
        sql: &str,
        params: impl rusqlite::Params,
        read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        self.conn
            .prepare(sql)
            .and_then(|mut s| s.query_map(params, read)?.collect())
            .map_err(StoreError::at(ctx))
    }

    /// The writer for a run's results, on a connection of its own.
    pub fn writer(&self, run_id: i64) -> Result<Writer, StoreError> {
        let conn = open_connection(&self.path)?;
        // The writer's working set (recent companies, their latest ratings, the cache
        // index) stays in memory; 16 MiB holds it for portfolios of a million rows.
        conn.execute_batch("PRAGMA cache_size = -16384;")
            .map_err(StoreError::at("sizing the page cache"))?;
        // A statement that may fail midway keeps the pages it changes as they were, to
        // undo it alone; past 64 KiB SQLite spills them to a temporary file, a write of
        // each page of each batch. The writer's statements are a batch of rows at most,
        // so in memory they stay small, and a failed one rolls the transaction back. (This
        // keeps any sort or temporary index of this connection in memory too: it has none
        // of size, the run's end reads on connections of its own.)
        conn.execute_batch("PRAGMA temp_store = MEMORY;")
            .map_err(StoreError::at("keeping statement journals in memory"))?;
        // Every statement the writer runs stays prepared (a statement pushed out of the
        // cache is compiled again on its next use).
        conn.set_prepared_statement_cache_capacity(128);
        let checkpointer = checkpoint::Checkpointer::start(&self.path, self.checkpoint_every);
        if checkpointer.is_some() {
            // The log starts over every ten seconds or so; the file is cut back when it does
            // (`open_connection`) rather than staying as long as the longest stretch.
            conn.execute_batch("PRAGMA wal_autocheckpoint = 0;")
                .map_err(StoreError::at("handing checkpoints to their thread"))?;
        }
        let turns = turn::Watch::start(&self.path);
        Writer::start(
            conn,
            run_id,
            checkpointer,
            turns,
            self.service_clock.clone(),
        )
    }
}
