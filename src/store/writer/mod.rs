//! The one connection that writes a run's results.
//!
//! Records are applied inside a transaction that stays open for a moment and is then
//! committed with everything that arrived meanwhile: a crash loses at most that moment's
//! work and never half a row, and commits stay few. The pipeline's questions (is this search
//! cached? is this company already rated in this run?) are answered by the same connection,
//! so the answers see every record written before them, committed or not.
//!
//! The screening runtime is single-threaded, so the writer is called directly, without a
//! thread or a channel: a handoff between threads costs more than the SQL it carries.
//! Only the commit leaves the thread ([`Writer::commit_job`]): it writes every page the
//! transaction dirtied, tens of milliseconds on a first run, during which answers would
//! pile up unread. While the connection is away, records queue and are written when it
//! returns; questions wait for it ([`Writer::is_home`]).
//!
//! Split by what it does: this file holds the transaction and commit protocol;
//! `records` writes companies, resolutions and the rating history (where changes are
//! detected, against the history); `questions` answers the pipeline; `inputs` stores the
//! rows as given and their outcomes; `appends` writes, many to a statement, the rows the
//! run does not read back.

mod appends;
mod inputs;
mod questions;
mod records;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};
use uuid::Uuid;

use self::appends::Appends;
use self::inputs::RunRows;
use super::checkpoint::Checkpointer;
use super::keys::{Pending, PendingKeys, pending_limit, search_hash};
use super::{StoreError, now_seconds};
use crate::model::{self, Candidate, Change, Color, Company, InputRow, RowStatus};

/// A transaction is committed once it is this old: readers see progress, and a crash
/// loses no more than this. Longer transactions write each page of the randomly ordered
/// index of company UUIDs once for many rows: a second rather than 200 ms cut the
/// database writes of a first run by almost two thirds. (Input digests and search keys
/// are written in larger batches still: see `keys`.)
const MAX_TRANSACTION: Duration = Duration::from_secs(1);
/// How often the write-ahead log starts over (the checkpoint thread copies it meanwhile,
/// as often): it stays about ten seconds of writes long, and the writer copies only the
/// last moment's pages itself.
const LOG_RESTART: Duration = Duration::from_secs(10);
/// Company UUIDs → internal keys remembered; past this the memo starts over. A company is
/// asked about within moments (its search, its rating, its rows), so a memo of recent
/// ones serves nearly every question; a larger one costs memory for repeats far apart,
/// which the key table answers in one lookup (about 1.6 MB for 50,000).
const COMPANY_MEMO: usize = 50_000;

/// How a resolution ended, as cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Resolved,
    Ambiguous,
    Unresolved,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Resolved => "resolved",
            Outcome::Ambiguous => "ambiguous",
            Outcome::Unresolved => "unresolved",
        }
    }
    pub fn parse(s: &str) -> Option<Outcome> {
        [Outcome::Resolved, Outcome::Ambiguous, Outcome::Unresolved]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// A company the service no longer knows, as ratewatch last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gone {
    pub color: Color,
    /// When its last rating was last confirmed (ISO 8601 UTC).
    pub last_seen: String,
}

/// One input row as given and what became of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowRecord {
    pub input: InputRow,
    pub status: RowStatus,
    pub company_id: Option<Uuid>,
    pub error: Option<String>,
    pub candidates: Vec<Candidate>,
    /// The search that found the company (`SIRET 55210055400013`, `name`, `company_id`,
    /// `review`); `None` when none did.
    pub found_by: Option<String>,
}

/// What the pipeline hands the writer.
#[derive(Debug, Clone)]
pub enum Record {
    /// A company as the service described it (inserted or refreshed).
    Company(Box<Company>),
    /// A resolution to cache under its normalized input.
    Resolution {
        key: String,
        outcome: Outcome,
        company_id: Option<Uuid>,
        candidates: Vec<Candidate>,
    },
    /// A company a review accepted for a row that searches `search_key` in `country`: if
    /// the database knows it without a name, it is described from the candidate the cached
    /// search listed it as.
    Accepted {
        company: Uuid,
        search_key: String,
        country: String,
    },
    /// A rating fetched in this run.
    Observation(model::Rating),
    /// A company's latest rating (`ratings.id`), used as it is instead of fetched; a run
    /// last saw it at `seen_at`.
    Reused {
        company: Uuid,
        rating: i64,
        seen_at: jiff::Timestamp,
    },
    /// A company the service no longer knows, with its last rating (`ratings.id`).
    Gone { company: Uuid, rating: i64 },
    /// An input row's outcome.
    Row(Box<RowRecord>),
}

/// The writer of one run.
pub struct Writer {
    /// `None` while a commit runs on another thread.
    conn: Option<Connection>,
    /// Records sent while the connection was away, written when it returns.
    queued: Vec<Record>,
    run_id: i64,
    /// UUID → internal key of companies already seen.
    companies: HashMap<Uuid, i64>,
    /// Internal keys of the companies this run has rated (a bit each: keys are dense).
    rated: KeySet,
    /// The highest company key before this run: a higher one was recorded by this run, so
    /// it has no rating history to read.
    known_before: i64,
    /// When the open transaction began, if one is open.
    open: Option<Instant>,
    /// Whether the run's `service_time` is recorded (by its first dated rating).
    service_time_known: bool,
    /// Counts the answers the service dated off this machine's clock.
    clock: super::clock::ServiceClock,
    /// Keys of the searches, input rows and companies added since they were last written
    /// to the key tables: written with the commit once there are [`pending_limit`] of them.
    pending: PendingKeys,
    /// Searches this writer found no row for, until their keys could be in the key table.
    missed: Missed,
    /// A batch was rolled back: the writer refuses everything after it.
    failed: bool,
    /// Keys the key tables hold: the next batch's size follows it ([`pending_limit`]).
    keys_stored: u64,
    /// A batch size of its own instead (tests).
    pub(super) pending_limit: Option<usize>,
    /// Row outcomes of the open transaction not yet written: the commit writes them first.
    rows: RunRows,
    /// Likewise the companies' outcomes and confirmations.
    appends: Appends,
    written: u64,
    /// Copies the log into the database meanwhile; stops with the writer.
    checkpointer: Option<Checkpointer>,
    /// When the log last started over, and how often it does.
    log_started: Instant,
    pub(super) log_restart: Duration,
    /// How long a transaction stays open ([`MAX_TRANSACTION`]).
    pub(super) max_transaction: Duration,
}

impl Writer {
    pub(super) fn start(
        conn: Connection,
        run_id: i64,
        checkpointer: Option<Checkpointer>,
        clock: super::clock::ServiceClock,
    ) -> Result<Writer, StoreError> {
        // The key tables are complete: the store this writer comes from caught them up
        // when it opened, and the run's lock kept any other run out since. So they hold
        // as many keys as the three tables have rows, give or take deleted rows.
        let ctx = "reading what the run has done";
        let (known_before, keys_stored): (i64, i64) = conn
            .query_row(
                "SELECT (SELECT coalesce(max(id), 0) FROM companies),
                        (SELECT coalesce(max(id), 0) FROM companies)
                        + (SELECT coalesce(max(id), 0) FROM resolutions)
                        + (SELECT coalesce(max(id), 0) FROM inputs)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(StoreError::at(ctx))?;
        // A resumed run goes on knowing which companies it has rated.
        let mut rated = KeySet::default();
        conn.prepare("SELECT company FROM run_companies WHERE run_id = ?1")
            .and_then(|mut s| {
                s.query_map([run_id], |r| r.get::<_, i64>(0))?
                    .try_for_each(|k| k.map(|k| rated.insert(k)))
            })
            .map_err(StoreError::at(ctx))?;
        Ok(Writer {
            conn: Some(conn),
            queued: Vec::new(),
            run_id,
            companies: HashMap::new(),
            rated,
            known_before,
            open: None,
            service_time_known: false,
            clock,
            pending: PendingKeys::default(),
            missed: Missed::default(),
            failed: false,
            keys_stored: u64::try_from(keys_stored).unwrap_or(0),
            pending_limit: None,
            rows: RunRows::default(),
            appends: Appends::default(),
            written: 0,
            checkpointer,
            log_started: Instant::now(),
            log_restart: LOG_RESTART,
            max_transaction: MAX_TRANSACTION,
        })
    }
    /// Writes a record in the open transaction. If it fails, the whole transaction is
    /// rolled back: the run stops, and the next one redoes that moment's work from a
    /// consistent database rather than keeping half of it. While a commit is away, the
    /// record waits for the connection to return.
    pub fn send(&mut self, record: Record) -> Result<(), StoreError> {
        if self.conn.is_none() {
            self.queued.push(record);
            return Ok(());
        }
        self.begin()?;
        if let Err(e) = self.apply(record) {
            self.rollback();
            return Err(e);
        }
        self.written += 1;
        Ok(())
    }
    /// Whether the connection is here to answer questions (not away committing).
    pub fn is_home(&self) -> bool {
        self.conn.is_some()
    }
    /// The connection. Questions are only asked while it is home (the pipeline waits for
    /// [`Writer::is_home`]); records sent meanwhile are queued instead.
    fn conn(&self) -> &Connection {
        self.conn
            .as_ref()
            .expect("the writer's connection is asked for only while it is home")
    }
    /// Once the open transaction is old enough, takes the connection away and returns the
    /// work that commits it, to be run on another thread and handed back to
    /// [`Writer::committed`]. Called on a timer, so a quiet moment leaves nothing
    /// uncommitted for long.
    pub fn commit_job(&mut self) -> Option<CommitJob> {
        match self.open {
            Some(started) if started.elapsed() >= self.max_transaction => self.take_commit(false),
            _ => None,
        }
    }
    /// Closes the open transaction, if any, and takes the connection away to commit it,
    /// with the pending keys when there are enough of them or `all_keys`.
    fn take_commit(&mut self, all_keys: bool) -> Option<CommitJob> {
        if self.conn.is_none() || self.open.take().is_none() {
            return None;
        }
        let limit = self
            .pending_limit
            .unwrap_or_else(|| pending_limit(self.keys_stored));
        let due = all_keys || self.pending.len() >= limit;
        let keys = due.then(|| std::mem::take(&mut self.pending));
        if due {
            self.missed.clear();
        }
        self.keys_stored += keys.as_ref().map_or(0, |k| k.len() as u64);
        Some(CommitJob {
            // Taken even when empty if all are due: the rows written by the commit may
            // add some.
            // Otherwise the input keys still waiting go along: the rows the commit writes
            // find the inputs this run added through them, and the commit adds its own.
            inputs: match keys {
                Some(_) => Pending::default(),
                None => std::mem::take(&mut self.pending.inputs),
            },
            keys,
            rows: std::mem::take(&mut self.rows),
            appends: std::mem::take(&mut self.appends),
            run_id: self.run_id,
            conn: self.conn.take()?,
            restart_log: self.checkpointer.is_some()
                && self.log_started.elapsed() >= self.log_restart,
        })
    }
    /// Takes the connection back after its commit, then writes what was queued meanwhile.
    pub fn committed(&mut self, done: Committed) -> Result<(), StoreError> {
        self.conn = Some(done.conn);
        self.pending.inputs.extend(done.added);
        // A failed commit was rolled back (see `CommitJob::run`): as after any rollback,
        // nothing more is written.
        self.failed |= done.result.is_err();
        if done.result.map_err(StoreError::at("committing a batch"))? {
            self.log_started = Instant::now();
        }
        for record in std::mem::take(&mut self.queued) {
            self.send(record)?;
        }
        Ok(())
    }
    /// [`Writer::commit_job`] and [`Writer::committed`] on this thread, as the pipeline's
    /// ticker does them on two.
    #[cfg(test)]
    pub(super) fn tick(&mut self) -> Result<(), StoreError> {
        match self.commit_job() {
            Some(job) => self.committed(job.run()),
            None => Ok(()),
        }
    }
    /// Commits what is written, with every pending key; returns how many records were
    /// written in all.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        if !self.is_home() {
            return Err(StoreError::WriterGone(format!(
                "finished while a commit was away; {} records not written",
                self.queued.len()
            )));
        }
        self.begin()?;
        self.commit()?;
        Ok(self.written)
    }
    /// Writes the rows waiting in [`Appends`] that fill whole statements.
    fn write_full_appends(&mut self) -> Result<(), StoreError> {
        if !self.appends.full() {
            return Ok(());
        }
        self.write_appends(false)
    }
    /// Writes the rows waiting in [`Appends`], all of them or whole statements only:
    /// before a question reads their tables, all.
    fn write_appends(&mut self, all: bool) -> Result<(), StoreError> {
        let conn = self
            .conn
            .as_ref()
            .expect("records are applied while the connection is home");
        let written = self.appends.write(conn, self.run_id, all);
        if written.is_err() {
            self.rollback();
        }
        written.map_err(StoreError::at("recording the companies' outcomes"))
    }
    /// Writes the rows waiting in [`Appends`] before a question about a company reads
    /// their tables: only a company this run has rated (or found gone) can have some.
    fn write_appends_about(&mut self, company: i64) -> Result<(), StoreError> {
        if self.rated.contains(company) {
            self.write_appends(true)?;
        }
        Ok(())
    }
    fn begin(&mut self) -> Result<(), StoreError> {
        if self.failed {
            return Err(StoreError::WriterGone(
                "an earlier batch failed and was rolled back; nothing more is written".into(),
            ));
        }
        if self.open.is_none() {
            self.conn()
                // IMMEDIATE: the write lock is taken now, waiting for a concurrent
                // writer (see `open_connection`), rather than failed on later.
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(StoreError::at("starting a batch"))?;
            self.open = Some(Instant::now());
        }
        Ok(())
    }
    fn rollback(&mut self) {
        if self.open.take().is_none() {
            return;
        }
        // What this writer remembers of the batch (companies rated, the run's service
        // time) is gone with it: it answers and writes nothing more, rather than record
        // a row as rated whose rating was rolled back.
        self.failed = true;
        self.rows.clear();
        self.appends.clear();
        self.missed.clear();
        if let Err(e) = self.conn().execute_batch("ROLLBACK") {
            tracing::warn!("rolling back a failed batch: {e}");
        }
        // The rows added in the batch are gone, and so must their pending keys be.
        let kept = self.conn().query_row(
            "SELECT (SELECT coalesce(max(id), 0) FROM resolutions),
                    (SELECT coalesce(max(id), 0) FROM inputs),
                    (SELECT coalesce(max(id), 0) FROM companies)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        );
        match kept {
            Ok((resolution, input, company)) => {
                self.pending.forget_above(resolution, input, company);
                self.companies.retain(|_, key| *key <= company);
            }
            Err(e) => {
                tracing::warn!("reading what a rolled back batch left: {e}");
                self.pending = PendingKeys::default();
            }
        }
    }
    /// Commits the open transaction with every pending key.
    fn commit(&mut self) -> Result<(), StoreError> {
        match self.take_commit(true) {
            Some(job) => self.committed(job.run()),
            None => Ok(()),
        }
    }
    fn apply(&mut self, record: Record) -> Result<(), StoreError> {
        match record {
            Record::Company(c) => self.upsert_company(&c).map(drop),
            Record::Resolution {
                key,
                outcome,
                company_id,
                candidates,
            } => {
                let company = company_id.map(|id| self.company_key(id)).transpose()?;
                // A search this writer missed is not in the key table: only a row added
                // since then can hold it.
                let existing = if self.missed.take(&key) {
                    self.pending_resolution_id(&key)?
                } else {
                    self.resolution_id(&key)?
                };
                // A search asked again keeps its row (and its id); a new one is appended.
                let conn = self.conn();
                // The outcome is not stored: the table computes it from the company (a
                // resolved search) and the candidates (an ambiguous one, `[]` at the least).
                let candidates = (outcome == Outcome::Ambiguous)
                    .then(|| candidates_json(&candidates).unwrap_or_else(|| "[]".into()));
                let company = company.filter(|_| outcome == Outcome::Resolved);
                conn.prepare_cached(
                    "INSERT INTO resolutions (id, input_key, company, candidates, resolved_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (id) DO UPDATE SET company = excluded.company,
                         candidates = excluded.candidates, resolved_at = excluded.resolved_at",
                )
                .and_then(|mut s| {
                    s.execute(params![existing, key, company, candidates, now_seconds()])
                })
                .map_err(StoreError::at("caching a resolution"))?;
                let id = existing.unwrap_or_else(|| conn.last_insert_rowid());
                if existing.is_none() {
                    self.pending.resolutions.insert(search_hash(&key), id);
                }
                Ok(())
            }
            Record::Accepted {
                company,
                search_key,
                country,
            } => self.describe_accepted(company, &search_key, &country),
            Record::Observation(rating) => self.observe(&rating),
            Record::Reused {
                company,
                rating,
                seen_at,
            } => {
                let company = self.company_key(company)?;
                let run_id = self.run_id;
                self.conn()
                    .prepare_cached(
                        "INSERT INTO run_reused_ratings (run_id, company, seen_at)
                         VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut s| {
                        s.execute(params![run_id, company, crate::store::time_text(seen_at)])
                    })
                    .map_err(StoreError::at("recording a reused rating"))?;
                self.record_change(company, rating, Some(rating), Change::Unchanged)
            }
            Record::Gone { company, rating } => {
                let company = self.company_key(company)?;
                self.record_change(company, rating, Some(rating), Change::Gone)
            }
            Record::Row(row) => self.record_row(*row),
        }
    }
}

/// A commit to run away from the screening thread: it holds the writer's connection.
pub struct CommitJob {
    conn: Connection,
    /// Also copy what the checkpoint thread has not yet copied (see [`CommitJob::run`]).
    restart_log: bool,
    /// Keys to write to the key tables in the transaction before it commits.
    keys: Option<PendingKeys>,
    /// When no keys are written: the input keys still waiting, handed back with those of
    /// the inputs the commit adds.
    inputs: Pending,
    /// Row outcomes to write in the transaction before it commits.
    rows: RunRows,
    /// And the other rows waiting ([`Appends`]).
    appends: Appends,
    run_id: i64,
}

/// A commit done, to hand back to [`Writer::committed`].
pub struct Committed {
    conn: Connection,
    /// Whether the log now starts over.
    result: Result<bool, rusqlite::Error>,
    /// The input keys waiting (those the job took and those of the inputs it added) when
    /// it did not write them.
    added: Pending,
}

impl CommitJob {
    /// Commits. When the log is due to start over, also copies what the checkpoint thread
    /// has not yet copied, so that the next transaction writes the log from its start again:
    /// the log only ever restarts for a transaction that begins when it is wholly copied,
    /// which a writer that begins again straight after each commit never sees otherwise,
    /// and the log would grow for the whole run. (Busy when the thread is copying at that
    /// moment: then the next commit tries again.)
    pub fn run(mut self) -> Committed {
        let mut added = self.inputs;
        let appended = self.appends.write(&self.conn, self.run_id, true);
        let keys = appended.and_then(|()| match self.keys {
            Some(mut keys) => self
                .rows
                .write(&self.conn, self.run_id, &mut keys.inputs)
                .and_then(|()| match keys.is_empty() {
                    true => Ok(()),
                    false => keys.write(&self.conn),
                }),
            None => self.rows.write(&self.conn, self.run_id, &mut added),
        });
        let committed = keys.and_then(|()| self.conn.execute_batch("COMMIT"));
        if committed.is_err() {
            // The connection goes back with no transaction open: the batch is undone
            // whole, as a failed record undoes it.
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                tracing::warn!("rolling back a failed commit: {e}");
            }
        }
        let result = committed.and_then(|()| {
            if !self.restart_log {
                return Ok(false);
            }
            self.conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0))
                .map(|busy| busy == 0)
        });
        Committed {
            conn: self.conn,
            result,
            added,
        }
    }
}

/// Searches the writer found no row for since the key table was last written: when one
/// is cached, only the rows added since can already hold it, and the key table is not
/// read again. Few at a time (those in flight), and bounded all the same.
#[derive(Debug, Default)]
struct Missed(HashSet<String>);

impl Missed {
    const MAX: usize = 1_024;
    fn note(&mut self, key: &str) {
        if self.0.len() >= Self::MAX {
            self.0.clear();
        }
        self.0.insert(key.to_string());
    }
    fn take(&mut self, key: &str) -> bool {
        self.0.remove(key)
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// A set of internal keys, one bit each. Keys are row ids handed out one after another, so
/// a million companies take 125 KB, and a lookup costs no query.
#[derive(Debug, Default)]
struct KeySet(Vec<u64>);

impl KeySet {
    fn insert(&mut self, key: i64) {
        let Ok(key) = usize::try_from(key) else {
            return;
        };
        let word = key / 64;
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (key % 64);
    }

    fn contains(&self, key: i64) -> bool {
        usize::try_from(key)
            .ok()
            .and_then(|k| self.0.get(k / 64).map(|w| w & (1 << (k % 64)) != 0))
            .unwrap_or(false)
    }
}

fn candidates_json(c: &[Candidate]) -> Option<String> {
    (!c.is_empty()).then(|| serde_json::to_string(c).unwrap_or_else(|_| "[]".into()))
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn a_key_set_holds_exactly_the_keys_put_in() {
        let mut set = KeySet::default();
        for k in [1, 63, 64, 65, 1_000_003] {
            set.insert(k);
        }
        for k in [1, 63, 64, 65, 1_000_003] {
            assert!(set.contains(k), "{k}");
        }
        for k in [0, 2, 62, 66, 127, 1_000_002, 1_000_004, 5_000_000, -1] {
            assert!(!set.contains(k), "{k}");
        }
        set.insert(-5);
        assert!(
            !set.contains(-5),
            "row ids are never negative; such a key is ignored"
        );
    }
}
