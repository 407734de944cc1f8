//! What every part of the store shares: its error ([`StoreError`]), how long a connection
//! waits for another writer, the clock's text, and the readers of the columns that many
//! queries hold (a company's UUID, a time, a row's carried columns).

use std::time::Duration;

use jiff::Timestamp;
use rusqlite::RowIndex;
use rusqlite::types::Type;
use uuid::Uuid;

use crate::model::{Ended, time_text};

/// A storage failure. The message names what was being done; the command adds the path.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{context}: {source}")]
    Sql {
        context: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "it is not a ratewatch database (it has tables of another program); pass another --db, the file was left untouched"
    )]
    Foreign,
    #[error(
        "it was written by a newer ratewatch (schema version {found}, this one knows up to {known}); upgrade ratewatch, the file was left untouched"
    )]
    Newer { found: i64, known: i64 },
    #[error("the database writer stopped: {0}")]
    WriterGone(String),
    #[error(
        "it is in use by another run ({holder}); wait for that run to finish, or use another --db"
    )]
    Busy { holder: String },
    #[error("{0}")]
    Lock(String),
    /// Another writer kept the database past this command's wait: a moment later it is
    /// free again (a run gives a decision its turn within a fraction of a second).
    #[error(
        "{context}: {holder} did not let this command in within {} s; try again in a moment",
        waited.as_secs()
    )]
    Locked {
        context: String,
        holder: &'static str,
        waited: Duration,
    },
    #[error(
        "there is no database there; pass --db PATH (or set RATEWATCH_DB) to the file `ratewatch screen` writes"
    )]
    Missing,
    #[error(
        "it is empty, not yet a ratewatch database; `ratewatch screen` with this --db fills it"
    )]
    Empty,
    #[error(
        "it has schema version {found} and this command needs version {needed}; run a writing command with this --db once (`ratewatch screen`, `ack`, `review`, `sync-history`) to upgrade it: reading commands never write"
    )]
    Older { found: i64, needed: i64 },
    #[error("it has no run {0}; `ratewatch runs` lists the runs it has")]
    NoSuchRun(i64),
    /// The run's rows were deleted, being older than `keep_run_details_days`: its summary
    /// stays, and the color history.
    #[error(
        "run {run}'s rows are no longer kept: they were deleted on {since}, the run being older than keep_run_details_days (90 days unless set); its summary stays (`ratewatch runs`), and every company's color history (`ratewatch history`, `changes`)"
    )]
    DetailsPruned { run: i64, since: String },
}

impl StoreError {
    /// The error of doing `context`: a database still locked by another writer after
    /// [`WAIT`] is said as such, not as a database that cannot be used.
    pub(super) fn at(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
        let context = context.into();
        move |source| match source.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) => StoreError::Locked {
                context,
                holder: "a screening run, or another program, writing the database",
                waited: WAIT,
            },
            _ => StoreError::Sql { context, source },
        }
    }
}

/// How long a connection waits for another writer (SQLite's busy timeout), and a decision
/// for its turn.
pub(super) const WAIT: Duration = Duration::from_secs(10);

/// This machine's clock now, as the store writes every time.
pub fn now_text() -> String {
    time_text(Timestamp::now())
}

/// A company's UUID, as every table and view holds it (text); `at`: the column's name or
/// place.
pub(crate) fn read_uuid(r: &rusqlite::Row<'_>, at: impl RowIndex + Copy) -> rusqlite::Result<Uuid> {
    let text: String = r.get(at)?;
    Uuid::parse_str(&text).map_err(|e| unreadable(r, at, e.into()))
}

/// A time as [`time_text`] stored it; other text is an error, never a guess.
pub(crate) fn read_time(
    r: &rusqlite::Row<'_>,
    at: impl RowIndex + Copy,
) -> rusqlite::Result<Timestamp> {
    let text: String = r.get(at)?;
    parse_time(r, at, &text)
}

/// A time as [`time_text`] stored it, or NULL.
pub(crate) fn read_time_or_null(
    r: &rusqlite::Row<'_>,
    at: impl RowIndex + Copy,
) -> rusqlite::Result<Option<Timestamp>> {
    let text: Option<String> = r.get(at)?;
    text.map(|t| parse_time(r, at, &t)).transpose()
}

fn parse_time(r: &rusqlite::Row<'_>, at: impl RowIndex, text: &str) -> rusqlite::Result<Timestamp> {
    text.parse()
        .map_err(|e: jiff::Error| unreadable(r, at, e.into()))
}

/// The error of column `at`, text that does not read as what it holds: the row is never
/// taken for something else.
pub(crate) fn unreadable(
    r: &rusqlite::Row<'_>,
    at: impl RowIndex,
    error: Box<dyn std::error::Error + Send + Sync>,
) -> rusqlite::Error {
    match at.idx(r.as_ref()) {
        Ok(at) => rusqlite::Error::FromSqlConversionFailure(at, Type::Text, error),
        Err(e) => e,
    }
}

/// How a record ended, from its `ended_at`, `ended_how`, `ended_by` and `ended_note` columns
/// from `first` on (and the run that ended it, when `run_id` names its column); `None` while
/// it is in force.
pub(super) fn read_ended(
    r: &rusqlite::Row<'_>,
    first: usize,
    run_id: Option<usize>,
) -> rusqlite::Result<Option<Ended>> {
    let Some(at) = r.get::<_, Option<String>>(first)? else {
        return Ok(None);
    };
    Ok(Some(Ended {
        at,
        how: r.get(first + 1)?,
        by: r.get(first + 2)?,
        note: r.get(first + 3)?,
        run_id: run_id.map(|i| r.get(i)).transpose()?.flatten(),
    }))
}

/// A row's carried columns from `inputs.extra` (a JSON object), as (header, value) pairs.
pub(super) fn extra_columns(json: Option<String>) -> Vec<(String, String)> {
    json.and_then(|e| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&e).ok())
        .map(|m| {
            m.into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}
