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
//! Rating history and change detection happen here, where the history is.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::checkpoint::Checkpointer;
use super::{CachedResolution, StoreError, now_text, time_text};
use crate::api::models::Company;
use crate::model::{self, Candidate, Change, Color, InputRow, RowStatus};

/// A transaction is committed once it is this old: readers see progress, and a crash
/// loses no more than this. Longer transactions write each page of the randomly ordered
/// indexes (company UUIDs, input digests, search keys) once for many rows: a second
/// rather than 200 ms cuts the database writes of a first run by almost two thirds.
const MAX_TRANSACTION: Duration = Duration::from_secs(1);
/// How often the write-ahead log starts over (the checkpoint thread copies it meanwhile):
/// it stays a few seconds of writes long, and the writer copies only the last moment's
/// pages itself.
const LOG_RESTART: Duration = Duration::from_secs(2);
/// Company UUIDs → internal keys remembered; past this the memo starts over.
const COMPANY_MEMO: usize = 100_000;

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
    /// A rating fetched in this run.
    Observation(model::Rating),
    /// A company's latest rating (`ratings.id`), used as it is instead of fetched.
    Reused { company: Uuid, rating: i64 },
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
    /// Whether the run's `service_time` is recorded (by its first rating).
    service_time_known: bool,
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
    ) -> Result<Writer, StoreError> {
        let ctx = "reading what the run has done";
        let known_before: i64 = conn
            .query_row("SELECT coalesce(max(id), 0) FROM companies", [], |r| {
                r.get(0)
            })
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

    /// The cached answer to a search, if any (whatever its age).
    pub fn cached_resolution(&mut self, key: &str) -> Result<Option<CachedResolution>, StoreError> {
        self.begin()?;
        let found = self.lookup_resolution(key)?;
        Ok(found.map(|(hit, internal)| {
            // The row's company will be asked about next: remember its key.
            if let (Some(id), Some(k)) = (hit.company_id, internal) {
                self.remember(id, k);
            }
            hit
        }))
    }

    /// Once the open transaction is old enough, takes the connection away and returns the
    /// work that commits it, to be run on another thread and handed back to
    /// [`Writer::committed`]. Called on a timer, so a quiet moment leaves nothing
    /// uncommitted for long.
    pub fn commit_job(&mut self) -> Option<CommitJob> {
        match self.open {
            Some(started) if started.elapsed() >= self.max_transaction => self.take_commit(),
            _ => None,
        }
    }

    /// Closes the open transaction, if any, and takes the connection away to commit it.
    fn take_commit(&mut self) -> Option<CommitJob> {
        if self.conn.is_none() || self.open.take().is_none() {
            return None;
        }
        Some(CommitJob {
            conn: self.conn.take()?,
            restart_log: self.checkpointer.is_some()
                && self.log_started.elapsed() >= self.log_restart,
        })
    }

    /// Takes the connection back after its commit, then writes what was queued meanwhile.
    pub fn committed(&mut self, done: Committed) -> Result<(), StoreError> {
        self.conn = Some(done.conn);
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

    /// Commits what is written; returns how many records were written in all.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        if !self.is_home() {
            return Err(StoreError::WriterGone(format!(
                "finished while a commit was away; {} records not written",
                self.queued.len()
            )));
        }
        self.commit()?;
        Ok(self.written)
    }

    fn begin(&mut self) -> Result<(), StoreError> {
        if self.open.is_none() {
            self.conn()
                .execute_batch("BEGIN")
                .map_err(StoreError::at("starting a batch"))?;
            self.open = Some(Instant::now());
        }
        Ok(())
    }

    fn rollback(&mut self) {
        if self.open.take().is_some()
            && let Err(e) = self.conn().execute_batch("ROLLBACK")
        {
            tracing::warn!("rolling back a failed batch: {e}");
        }
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        match self.take_commit() {
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
                self.conn()
                    .prepare_cached(
                        "INSERT OR REPLACE INTO resolutions (input_key, outcome, company, candidates, resolved_at)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            key,
                            outcome.as_str(),
                            company,
                            candidates_json(&candidates),
                            now_text()
                        ])
                    })
                    .map(drop)
                    .map_err(StoreError::at("caching a resolution"))
            }
            Record::Observation(rating) => self.observe(&rating),
            Record::Reused { company, rating } => {
                let company = self.company_key(company)?;
                self.record_change(company, rating, Some(rating), Change::Unchanged)
            }
            Record::Gone { company, rating } => {
                let company = self.company_key(company)?;
                self.record_change(company, rating, Some(rating), Change::Gone)
            }
            Record::Row(row) => self.record_row(&row),
        }
    }

    fn lookup_resolution(
        &self,
        key: &str,
    ) -> Result<Option<(CachedResolution, Option<i64>)>, StoreError> {
        let ctx = "reading the resolution cache";
        self.conn()
            .prepare_cached(
                "SELECT r.outcome, c.company_id, r.candidates, r.resolved_at, c.id
                 FROM resolutions r LEFT JOIN companies c ON c.id = r.company
                 WHERE r.input_key = ?1",
            )
            .and_then(|mut s| {
                s.query_row([key], |r| {
                    let outcome: String = r.get(0)?;
                    let company: Option<String> = r.get(1)?;
                    let candidates: Option<String> = r.get(2)?;
                    let at: String = r.get(3)?;
                    let internal: Option<i64> = r.get(4)?;
                    Ok((
                        CachedResolution {
                            outcome: Outcome::parse(&outcome).unwrap_or(Outcome::Unresolved),
                            company_id: company.and_then(|c| Uuid::parse_str(&c).ok()),
                            candidates: candidates
                                .and_then(|c| serde_json::from_str(&c).ok())
                                .unwrap_or_default(),
                            resolved_at: at.parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH),
                        },
                        internal,
                    ))
                })
                .optional()
            })
            .map_err(StoreError::at(ctx))
    }

    /// Whether this run has already rated the company.
    pub fn rated(&mut self, company: Uuid) -> Result<bool, StoreError> {
        self.begin()?;
        Ok(self
            .known_company(company)?
            .is_some_and(|key| self.rated.contains(key)))
    }

    /// Records the company's latest rating as this run's when a run that started at
    /// `since` or later saw it; tells whether it did. Its history is left as it is: no
    /// one has looked again, so nothing is confirmed.
    pub fn reuse_rating(
        &mut self,
        company: Uuid,
        since: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.begin()?;
        let Some(key) = self.known_company(company)? else {
            return Ok(false);
        };
        let recent: Option<i64> = self
            .conn()
            .prepare_cached(
                "SELECT r.id FROM ratings r JOIN runs u ON u.id = r.last_run_id
                 WHERE r.id = (SELECT max(id) FROM ratings WHERE company = ?1)
                   AND u.started_at >= ?2",
            )
            .and_then(|mut s| {
                s.query_row(params![key, time_text(since)], |r| r.get(0))
                    .optional()
            })
            .map_err(StoreError::at("reading the latest rating"))?;
        match recent {
            Some(rating) => self.send(Record::Reused { company, rating }).map(|()| true),
            None => Ok(false),
        }
    }

    /// Records that the service no longer knows a company it had rated, and returns how
    /// it was last seen; `None` when there is no news: it was never rated, this run rated
    /// it, or an earlier run already reported it gone with the same last rating.
    pub fn gone(&mut self, company: Uuid) -> Result<Option<Gone>, StoreError> {
        let ctx = "reading a company's last rating";
        self.begin()?;
        let Some(key) = self.known_company(company)? else {
            return Ok(None);
        };
        let latest: Option<(i64, String, String)> = self
            .conn()
            .prepare_cached(
                "SELECT id, color, confirmed_at FROM ratings WHERE company = ?1 ORDER BY id DESC LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(StoreError::at(ctx))?;
        let Some((rating, color, last_seen)) = latest else {
            return Ok(None);
        };
        let reported_by: Option<i64> = self
            .conn()
            .prepare_cached(
                "SELECT max(run_id) FROM run_companies
                 WHERE company = ?1 AND rating_id = ?2 AND change = 'gone'",
            )
            .and_then(|mut s| s.query_row(params![key, rating], |r| r.get(0)))
            .map_err(StoreError::at(ctx))?;
        match reported_by {
            // Every row of this run that names the company hears the same.
            Some(run) if run == self.run_id => {}
            Some(_) => return Ok(None),
            None if self.rated.contains(key) => return Ok(None),
            None => self.send(Record::Gone { company, rating })?,
        }
        Ok(Some(Gone {
            color: Color::parse(&color),
            last_seen,
        }))
    }

    /// The last run that rated what a row leads to; `None` if none did (never checked, or
    /// a search with no company, which costs nothing while cached). The row is named by its
    /// search's cache key or by its company. Runs, not times: the service's request times
    /// need not be ratewatch's clock, and a run id orders nights without ties.
    pub fn last_checked(
        &mut self,
        key: Option<&str>,
        company: Option<Uuid>,
    ) -> Result<Option<i64>, StoreError> {
        let ctx = "reading when a row was last checked";
        self.begin()?;
        let by_key = |key: &str| {
            self.conn()
                .prepare_cached(
                    "SELECT (SELECT max(last_run_id) FROM ratings WHERE company = r.company)
                     FROM resolutions r WHERE r.input_key = ?1",
                )
                .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
        };
        let by_company = |company: Uuid| {
            self.conn()
                .prepare_cached(
                    "SELECT max(r.last_run_id) FROM ratings r
                     JOIN companies c ON c.id = r.company WHERE c.company_id = ?1",
                )
                .and_then(|mut s| s.query_row([company.to_string()], |r| r.get(0)))
        };
        match (key, company) {
            (Some(key), _) => by_key(key).map(Option::flatten),
            (None, Some(company)) => by_company(company),
            (None, None) => Ok(None),
        }
        .map_err(StoreError::at(ctx))
    }

    /// The internal key of a company the database knows, without recording it.
    fn known_company(&mut self, company: Uuid) -> Result<Option<i64>, StoreError> {
        if let Some(k) = self.companies.get(&company) {
            return Ok(Some(*k));
        }
        let key: Option<i64> = self
            .conn()
            .prepare_cached("SELECT id FROM companies WHERE company_id = ?1")
            .and_then(|mut s| s.query_row([company.to_string()], |r| r.get(0)).optional())
            .map_err(StoreError::at("looking up a company"))?;
        if let Some(k) = key {
            self.remember(company, k);
        }
        Ok(key)
    }

    fn remember(&mut self, company: Uuid, key: i64) {
        if self.companies.len() >= COMPANY_MEMO {
            self.companies.clear();
        }
        self.companies.insert(company, key);
    }

    /// The internal key of a company, recording it (by UUID only) if it is new.
    fn company_key(&mut self, company: Uuid) -> Result<i64, StoreError> {
        if let Some(k) = self.companies.get(&company) {
            return Ok(*k);
        }
        let ctx = "recording a company";
        let now = now_text();
        let key: i64 = self
            .conn()
            .prepare_cached(
                "INSERT INTO companies (company_id, first_seen_at, updated_at) VALUES (?1, ?2, ?2)
                 ON CONFLICT (company_id) DO UPDATE SET company_id = excluded.company_id
                 RETURNING id",
            )
            .and_then(|mut s| s.query_row(params![company.to_string(), now], |r| r.get(0)))
            .map_err(StoreError::at(ctx))?;
        self.remember(company, key);
        Ok(key)
    }

    fn upsert_company(&mut self, c: &Company) -> Result<i64, StoreError> {
        let now = now_text();
        let a = &c.address;
        let key: i64 = self
            .conn()
            .prepare_cached(
                "INSERT INTO companies (company_id, name, country, street_number, street_name, postcode,
                                        city, phone, legal_form, first_seen_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
                 ON CONFLICT (company_id) DO UPDATE SET
                   name = excluded.name, country = excluded.country,
                   street_number = excluded.street_number, street_name = excluded.street_name,
                   postcode = excluded.postcode, city = excluded.city, phone = excluded.phone,
                   legal_form = excluded.legal_form, updated_at = excluded.updated_at
                 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![
                        c.id.to_string(),
                        c.name,
                        a.country_code.to_uppercase(),
                        a.street_number,
                        a.street_name,
                        a.post_code,
                        a.city,
                        c.phone_number,
                        c.legal_form_code,
                        now
                    ],
                    |r| r.get(0),
                )
            })
            .map_err(StoreError::at("recording a company"))?;
        self.remember(c.id, key);
        let mut ids = self
            .conn()
            .prepare_cached(
                "INSERT OR IGNORE INTO company_external_ids (company, service, external_id) VALUES (?1, ?2, ?3)",
            )
            .map_err(StoreError::at("recording identifiers"))?;
        for e in &c.external_ids {
            ids.execute(params![key, e.external_service, e.external_id])
                .map_err(StoreError::at("recording identifiers"))?;
        }
        Ok(key)
    }

    /// Stores the row as given (once, however many runs read it) and its outcome.
    fn record_row(&mut self, row: &RowRecord) -> Result<(), StoreError> {
        let line = row.input.line;
        // The message is only built if a statement fails.
        let ctx = move |source| StoreError::Sql {
            context: format!("recording line {line}"),
            source,
        };
        let i = &row.input;
        let fields = [
            &i.reference,
            &i.country,
            &i.service,
            &i.id,
            &i.name,
            &i.street_number,
            &i.street_name,
            &i.city,
            &i.postcode,
            &i.phone,
            &i.company_id,
        ];
        let mut hasher = Sha256::new();
        for f in fields {
            match f {
                Some(v) => {
                    hasher.update(b"\x1f");
                    hasher.update(v.as_bytes());
                }
                None => hasher.update(b"\x1e"),
            }
        }
        let digest = &hasher.finalize()[..16];
        let existing: Option<i64> = self
            .conn()
            .prepare_cached("SELECT id FROM inputs WHERE digest = ?1")
            .and_then(|mut s| s.query_row([digest], |r| r.get(0)).optional())
            .map_err(ctx)?;
        let input = match existing {
            Some(id) => id,
            None => self
                .conn()
                .prepare_cached(
                    "INSERT INTO inputs (digest, ref, country, service, external_id, name, street_number,
                                         street_name, city, postcode, phone, given_company_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id",
                )
                .and_then(|mut s| {
                    s.query_row(
                        params![
                            digest, fields[0], fields[1], fields[2], fields[3], fields[4],
                            fields[5], fields[6], fields[7], fields[8], fields[9], fields[10]
                        ],
                        |r| r.get(0),
                    )
                })
                .map_err(ctx)?,
        };
        let company = row.company_id.map(|id| self.company_key(id)).transpose()?;
        self.conn()
            .prepare_cached(
                "INSERT OR REPLACE INTO run_rows (run_id, line, input_id, status, company, error, candidates)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    self.run_id,
                    row.input.line as i64,
                    input,
                    row.status.as_str(),
                    company,
                    row.error,
                    candidates_json(&row.candidates),
                ])
            })
            .map(drop)
            .map_err(ctx)
    }

    /// Adds a rating to the history (or confirms the latest one) and records the change.
    fn observe(&mut self, rating: &model::Rating) -> Result<(), StoreError> {
        let ctx = "recording a rating";
        let company = self.company_key(rating.company_id)?;
        let run_id = self.run_id;
        // Each company is observed once per run: the pipeline asks `rated` before it fetches
        // (a resumed run included), and a second observation would break the primary key
        // of run_companies below, loudly, rather than double the history.
        let color = rating.color.as_str();
        let last_change = rating.last_change.map(time_text);
        let last_refresh = rating.last_refresh.map(time_text);
        let observed = rating.requested_at.map(time_text).unwrap_or_else(now_text);
        if !self.service_time_known {
            // The first rating of the run dates it on the service's clock (staleness).
            self.conn()
                .prepare_cached(
                    "UPDATE runs SET service_time = ?2 WHERE id = ?1 AND service_time IS NULL",
                )
                .and_then(|mut s| s.execute(params![run_id, observed]))
                .map_err(StoreError::at(ctx))?;
            self.service_time_known = true;
        }
        let insert = |conn: &Connection| -> Result<i64, StoreError> {
            conn.prepare_cached(
                "INSERT INTO ratings (company, color, last_change_date, last_refresh_date,
                                      observed_at, confirmed_at, first_run_id, last_run_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?6) RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![company, color, last_change, last_refresh, observed, run_id],
                    |r| r.get(0),
                )
            })
            .map_err(StoreError::at(ctx))
        };
        // A company first recorded by this run has no history to compare with.
        if company > self.known_before {
            let id = insert(self.conn())?;
            return self.record_change(company, id, None, Change::New);
        }

        // Most nights most ratings are unchanged: confirming the latest observation in one
        // statement when it matches spares reading it first.
        let confirmed: Option<i64> = self
            .conn()
            .prepare_cached(
                "UPDATE ratings SET confirmed_at = ?5, last_run_id = ?6
                 WHERE id = (SELECT max(id) FROM ratings WHERE company = ?1)
                   AND color = ?2 AND last_change_date IS ?3 AND last_refresh_date IS ?4
                 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![company, color, last_change, last_refresh, observed, run_id],
                    |r| r.get(0),
                )
                .optional()
            })
            .map_err(StoreError::at(ctx))?;
        if let Some(id) = confirmed {
            return self.record_change(company, id, Some(id), Change::Unchanged);
        }
        let latest: Option<(i64, String, Option<String>)> = self
            .conn()
            .prepare_cached(
                "SELECT id, color, last_change_date FROM ratings
                 WHERE company = ?1 ORDER BY id DESC LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row([company], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(StoreError::at(ctx))?;
        let new_id = insert(self.conn())?;
        let previous = latest
            .as_ref()
            .map(|(_, c, lc)| (Color::parse(c), lc.clone()));
        let change = Change::classify(
            previous.as_ref().map(|(c, lc)| (c, lc.as_deref())),
            &rating.color,
            last_change.as_deref(),
        );
        self.record_change(company, new_id, latest.map(|l| l.0), change)
    }

    /// Records what this run observed for a company against its previous observation.
    fn record_change(
        &mut self,
        company: i64,
        rating_id: i64,
        previous_id: Option<i64>,
        change: Change,
    ) -> Result<(), StoreError> {
        let run_id = self.run_id;
        self.conn()
            .prepare_cached(
                "INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run_id,
                    company,
                    rating_id,
                    previous_id,
                    change.as_str()
                ])
            })
            .map_err(StoreError::at("recording a rating"))?;
        self.rated.insert(company);
        Ok(())
    }
}

/// A commit to run away from the screening thread: it holds the writer's connection.
pub struct CommitJob {
    conn: Connection,
    /// Also copy what the checkpoint thread has not yet copied (see [`CommitJob::run`]).
    restart_log: bool,
}

/// A commit done, to hand back to [`Writer::committed`].
pub struct Committed {
    conn: Connection,
    /// Whether the log now starts over.
    result: Result<bool, rusqlite::Error>,
}

impl CommitJob {
    /// Commits. When the log is due to start over, also copies what the checkpoint thread
    /// has not yet copied, so that the next transaction writes the log from its start again:
    /// the log only ever restarts for a transaction that begins when it is wholly copied,
    /// which a writer that begins again straight after each commit never sees otherwise,
    /// and the log would grow for the whole run. (Busy when the thread is copying at that
    /// moment: then the next commit tries again.)
    pub fn run(self) -> Committed {
        let result = self.conn.execute_batch("COMMIT").and_then(|()| {
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
        }
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
