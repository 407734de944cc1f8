//! Rows the run adds and does not read back while it runs: each input row's outcome
//! (`run_rows`), each company's outcome in the run (`run_companies`) and the confirmations
//! of unchanged ratings. They wait in memory and are written [`ROWS_PER_STATEMENT`] to a
//! statement, the last few with the commit ([`Appends::write`]), so a commit holds every
//! one recorded before it.
//!
//! One statement per row cost more than its row (see `batch`). A question that reads
//! these tables about a company this run rated first writes what waits.

use std::sync::LazyLock;

use rusqlite::Connection;
use rusqlite::types::{Null, ToSqlOutput};

use crate::model::{Change, RowStatus};
use crate::store::batch::{ROWS_PER_STATEMENT, Shapes, insert};

/// An input row's outcome, as `run_rows` holds it.
#[derive(Debug)]
pub(super) struct RunRow {
    pub line: i64,
    pub input: i64,
    pub status: RowStatus,
    pub company: Option<i64>,
    pub error: Option<String>,
    pub candidates: Option<String>,
    pub country_defaulted: bool,
    pub extra_unreliable: bool,
    pub found_by: Option<String>,
    /// Its amount, read from the run's amount column.
    pub amount: Option<f64>,
}

/// A company's outcome in the run, as `run_companies` holds it.
#[derive(Debug)]
struct RunCompany {
    company: i64,
    rating: i64,
    previous: Option<i64>,
    change: Change,
}

/// Rows recorded but not yet written; they belong to the open transaction.
#[derive(Debug, Default)]
pub(super) struct Appends {
    rows: Vec<RunRow>,
    companies: Vec<RunCompany>,
    /// Ratings seen unchanged: (rating, when, run).
    confirmations: Vec<(i64, String, i64)>,
}

impl Appends {
    pub(super) fn run_row(&mut self, row: RunRow) {
        self.rows.push(row);
    }
    pub(super) fn run_company(
        &mut self,
        company: i64,
        rating: i64,
        previous: Option<i64>,
        change: Change,
    ) {
        self.companies.push(RunCompany {
            company,
            rating,
            previous,
            change,
        });
    }
    pub(super) fn confirmation(&mut self, rating: i64, at: String, run_id: i64) {
        self.confirmations.push((rating, at, run_id));
    }
    /// Whether a full statement's worth waits for some table.
    pub(super) fn full(&self) -> bool {
        [
            self.rows.len(),
            self.companies.len(),
            self.confirmations.len(),
        ]
        .iter()
        .any(|n| *n >= ROWS_PER_STATEMENT)
    }
    /// Forgets them, with the transaction they belonged to.
    pub(super) fn clear(&mut self) {
        *self = Appends::default();
    }
    /// Writes them in the open transaction of `conn`, in the order they were recorded
    /// within each table: all of them, or (`all` false) only full statements' worth.
    pub(super) fn write(
        &mut self,
        conn: &Connection,
        run_id: i64,
        all: bool,
    ) -> rusqlite::Result<()> {
        let n = insert(conn, &RUN_ROWS, &self.rows, all, |r| {
            [
                run_id.into(),
                r.line.into(),
                r.input.into(),
                r.status.as_str().into(),
                r.company.map_or_else(null, Into::into),
                r.error.as_deref().map_or_else(null, Into::into),
                r.candidates.as_deref().map_or_else(null, Into::into),
                i64::from(r.country_defaulted).into(),
                i64::from(r.extra_unreliable).into(),
                r.found_by.as_deref().map_or_else(null, Into::into),
                r.amount.map_or_else(null, Into::into),
            ]
        })?;
        self.rows.drain(..n);
        let n = insert(conn, &RUN_COMPANIES, &self.companies, all, |c| {
            [
                run_id.into(),
                c.company.into(),
                c.rating.into(),
                c.previous.map_or_else(null, Into::into),
                c.change.as_str().into(),
            ]
        })?;
        self.companies.drain(..n);
        let n = insert(conn, &CONFIRMATIONS, &self.confirmations, all, |c| {
            [c.0.into(), c.1.as_str().into(), c.2.into()]
        })?;
        self.confirmations.drain(..n);
        Ok(())
    }
}

fn null<'a>() -> ToSqlOutput<'a> {
    ToSqlOutput::from(Null)
}

/// A line given twice keeps its last outcome (a resumed run records its failed lines
/// again), as with one statement each.
static RUN_ROWS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT OR REPLACE INTO run_rows (run_id, line, input_id, status, company, error,
                                          candidates, country_defaulted, extra_unreliable,
                                          found_by, amount)",
        11,
        "",
    )
});
static RUN_COMPANIES: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)",
        5,
        "",
    )
});
static CONFIRMATIONS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)",
        3,
        "ON CONFLICT (rating) DO UPDATE SET
           confirmed_at = excluded.confirmed_at, last_run_id = excluded.last_run_id",
    )
});
