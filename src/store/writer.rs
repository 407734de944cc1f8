//! The one writer of a run's results. Records arrive over a bounded channel and are
//! committed in batches: a crash loses at most the batch in flight and never leaves half
//! a row. Rating history and change detection happen here, where the history is.

use std::thread::JoinHandle;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use tokio::sync::mpsc;
use uuid::Uuid;

use super::{StoreError, now_text, time_text};
use crate::api::models::Company;
use crate::model::{self, Candidate, Change, Color, RowStatus};

/// Most records per transaction: large enough to amortize the commit, small enough that
/// a crash loses little and readers see progress.
const BATCH: usize = 2_000;
/// Records waiting for the writer before senders wait (backpressure).
const QUEUE: usize = 4_096;

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

/// One input row's outcome as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRecord {
    pub line: u64,
    pub reference: Option<String>,
    pub country: Option<String>,
    pub service: Option<String>,
    pub external_id: Option<String>,
    pub name: Option<String>,
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
    /// An input row's outcome.
    Row(Box<RowRecord>),
}

/// Sends records to the writer thread.
pub struct Writer {
    tx: mpsc::Sender<Record>,
    thread: JoinHandle<Result<u64, StoreError>>,
}

impl Writer {
    pub(super) fn start(conn: Connection, run_id: i64) -> Result<Writer, StoreError> {
        let (tx, rx) = mpsc::channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("ratewatch-writer".into())
            .spawn(move || write_loop(conn, run_id, rx))
            .map_err(|e| StoreError::WriterGone(e.to_string()))?;
        Ok(Writer { tx, thread })
    }

    /// Queues a record; waits while the queue is full.
    pub async fn send(&self, record: Record) -> Result<(), StoreError> {
        self.tx
            .send(record)
            .await
            .map_err(|_| StoreError::WriterGone("it failed earlier; see the error above".into()))
    }

    /// Commits what is queued and stops; returns how many records were written.
    pub async fn finish(self) -> Result<u64, StoreError> {
        drop(self.tx);
        let thread = self.thread;
        tokio::task::spawn_blocking(move || thread.join())
            .await
            .map_err(|e| StoreError::WriterGone(e.to_string()))?
            .map_err(|_| StoreError::WriterGone("the writer thread panicked".into()))?
    }
}

fn write_loop(
    mut conn: Connection,
    run_id: i64,
    mut rx: mpsc::Receiver<Record>,
) -> Result<u64, StoreError> {
    let mut written = 0u64;
    while let Some(first) = rx.blocking_recv() {
        let tx = conn
            .transaction()
            .map_err(StoreError::at("starting a batch"))?;
        apply(&tx, run_id, first)?;
        let mut n = 1;
        while n < BATCH {
            match rx.try_recv() {
                Ok(record) => {
                    apply(&tx, run_id, record)?;
                    n += 1;
                }
                Err(_) => break,
            }
        }
        tx.commit().map_err(StoreError::at("committing a batch"))?;
        written += n as u64;
    }
    Ok(written)
}

fn apply(tx: &Transaction<'_>, run_id: i64, record: Record) -> Result<(), StoreError> {
    match record {
        Record::Company(c) => upsert_company(tx, &c),
        Record::Resolution {
            key,
            outcome,
            company_id,
            candidates,
        } => {
            if let Some(id) = company_id {
                ensure_company(tx, id)?;
            }
            tx.prepare_cached(
                "INSERT OR REPLACE INTO resolutions (input_key, outcome, company_id, candidates, resolved_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    key,
                    outcome.as_str(),
                    company_id.map(|u| u.to_string()),
                    candidates_json(&candidates),
                    now_text()
                ])
            })
            .map(drop)
            .map_err(StoreError::at("caching a resolution"))
        }
        Record::Observation(rating) => observe(tx, run_id, &rating),
        Record::Row(row) => {
            if let Some(id) = row.company_id {
                ensure_company(tx, id)?;
            }
            tx.prepare_cached(
                "INSERT OR REPLACE INTO run_rows
                   (run_id, line, ref, country, service, external_id, name, status, company_id, error, candidates)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run_id,
                    row.line as i64,
                    row.reference,
                    row.country,
                    row.service,
                    row.external_id,
                    row.name,
                    row.status.as_str(),
                    row.company_id.map(|u| u.to_string()),
                    row.error,
                    candidates_json(&row.candidates),
                ])
            })
            .map(drop)
            .map_err(StoreError::at(format!("recording line {}", row.line)))
        }
    }
}

fn candidates_json(c: &[Candidate]) -> Option<String> {
    (!c.is_empty()).then(|| serde_json::to_string(c).unwrap_or_else(|_| "[]".into()))
}

fn upsert_company(tx: &Transaction<'_>, c: &Company) -> Result<(), StoreError> {
    let now = now_text();
    let id = c.id.to_string();
    let a = &c.address;
    tx.prepare_cached(
        "INSERT INTO companies (id, name, country, street_number, street_name, postcode, city, phone,
                                legal_form, first_seen_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
         ON CONFLICT (id) DO UPDATE SET
           name = excluded.name, country = excluded.country,
           street_number = excluded.street_number, street_name = excluded.street_name,
           postcode = excluded.postcode, city = excluded.city, phone = excluded.phone,
           legal_form = excluded.legal_form, updated_at = excluded.updated_at",
    )
    .and_then(|mut s| {
        s.execute(params![
            id,
            c.name,
            a.country_code.to_uppercase(),
            a.street_number,
            a.street_name,
            a.post_code,
            a.city,
            c.phone_number,
            c.legal_form_code,
            now
        ])
    })
    .map_err(StoreError::at("recording a company"))?;
    let mut ids = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO company_external_ids (company_id, service, external_id) VALUES (?1, ?2, ?3)",
        )
        .map_err(StoreError::at("recording identifiers"))?;
    for e in &c.external_ids {
        ids.execute(params![id, e.external_service, e.external_id])
            .map_err(StoreError::at("recording identifiers"))?;
    }
    Ok(())
}

/// A company known only by its UUID (given in the portfolio) still needs its row.
fn ensure_company(tx: &Transaction<'_>, id: Uuid) -> Result<(), StoreError> {
    let now = now_text();
    tx.prepare_cached(
        "INSERT OR IGNORE INTO companies (id, first_seen_at, updated_at) VALUES (?1, ?2, ?2)",
    )
    .and_then(|mut s| s.execute(params![id.to_string(), now]))
    .map(drop)
    .map_err(StoreError::at("recording a company"))
}

/// Adds a rating to the history (or confirms the latest one) and records the change.
fn observe(tx: &Transaction<'_>, run_id: i64, rating: &model::Rating) -> Result<(), StoreError> {
    let ctx = "recording a rating";
    let company = rating.company_id.to_string();
    ensure_company(tx, rating.company_id)?;
    // Each company is observed once per run; a resumed run has it already.
    let seen: Option<i64> = tx
        .prepare_cached("SELECT 1 FROM run_companies WHERE run_id = ?1 AND company_id = ?2")
        .and_then(|mut s| {
            s.query_row(params![run_id, company], |r| r.get(0))
                .optional()
        })
        .map_err(StoreError::at(ctx))?;
    if seen.is_some() {
        return Ok(());
    }
    let latest: Option<(i64, String, Option<String>, Option<String>)> = tx
        .prepare_cached(
            "SELECT id, color, last_change_date, last_refresh_date FROM ratings
             WHERE company_id = ?1 ORDER BY id DESC LIMIT 1",
        )
        .and_then(|mut s| {
            s.query_row([&company], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()
        })
        .map_err(StoreError::at(ctx))?;
    let color = rating.color.as_str().to_string();
    let last_change = rating.last_change.map(time_text);
    let last_refresh = rating.last_refresh.map(time_text);
    let observed = rating.requested_at.map(time_text).unwrap_or_else(now_text);

    let (rating_id, previous_id, change) = match &latest {
        Some((id, c, lc, lr)) if *c == color && *lc == last_change && *lr == last_refresh => {
            tx.prepare_cached(
                "UPDATE ratings SET confirmed_at = ?2, last_run_id = ?3 WHERE id = ?1",
            )
            .and_then(|mut s| s.execute(params![id, observed, run_id]))
            .map_err(StoreError::at(ctx))?;
            (*id, Some(*id), Change::Unchanged)
        }
        _ => {
            tx.prepare_cached(
                "INSERT INTO ratings (company_id, color, last_change_date, last_refresh_date,
                                      observed_at, confirmed_at, first_run_id, last_run_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?6)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    company,
                    color,
                    last_change,
                    last_refresh,
                    observed,
                    run_id
                ])
            })
            .map_err(StoreError::at(ctx))?;
            let previous = latest
                .as_ref()
                .map(|(_, c, lc, _)| (Color::parse(c), lc.clone()));
            let change = Change::classify(
                previous.as_ref().map(|(c, lc)| (c, lc.as_deref())),
                &rating.color,
                last_change.as_deref(),
            );
            (tx.last_insert_rowid(), latest.map(|l| l.0), change)
        }
    };
    tx.prepare_cached(
        "INSERT INTO run_companies (run_id, company_id, rating_id, previous_rating_id, change)
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
    .map(drop)
    .map_err(StoreError::at(ctx))
}
