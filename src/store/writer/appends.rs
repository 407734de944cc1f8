//! Rows the run adds and does not read back while it runs: each input row's outcome
//! (`run_row_spans`), each company's outcome in the run (`run_company_ratings`) and the
//! confirmations of unchanged ratings. They wait in memory and are written
//! [`ROWS_PER_STATEMENT`] to a statement, the last few with the commit
//! ([`Appends::write`]), so a commit holds every one recorded before it.
//!
//! One statement per row cost more than its row (see `batch`). A question that reads
//! these tables about a company this run rated first writes what waits.
//!
//! A row's outcome the same as the portfolio's run before made of its line moves that
//! stretch's last run on (one statement each: a nightly run's rows); any other begins a
//! stretch (many to a statement: a first run's rows).

use std::sync::{Arc, LazyLock};

use rusqlite::Connection;
use rusqlite::types::{Null, ToSqlOutput};

use crate::model::{Change, RowStatus};
use crate::store::batch::{ROWS_PER_STATEMENT, Shapes, insert};

/// The run the rows belong to, and where its rows' stretches go on from.
#[derive(Debug, Default)]
pub(super) struct RunKey {
    pub id: i64,
    pub portfolio: String,
    /// The portfolio's run before this one, whose stretches this one may carry on.
    pub previous: Option<i64>,
    /// The portfolio's run after this one, if this one is resumed after it began.
    pub next: Option<i64>,
}

/// An input row's outcome, as `run_rows` shows it.
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

/// A company's outcome in the run, as `run_companies` shows it.
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
    run: Arc<RunKey>,
    rows: Vec<RunRow>,
    /// How many of `rows`, from the first, carry no stretch on: they wait to begin one.
    beginning: usize,
    companies: Vec<RunCompany>,
    /// Ratings seen unchanged: (rating, when, run).
    confirmations: Vec<(i64, String, i64)>,
}

impl Appends {
    pub(super) fn new(run: RunKey) -> Appends {
        Appends {
            run: Arc::new(run),
            ..Appends::default()
        }
    }
    /// Takes the rows waiting, to be written elsewhere; this keeps the run.
    pub(super) fn take(&mut self) -> Appends {
        let mut taken = Appends::new_like(self);
        std::mem::swap(self, &mut taken);
        taken
    }
    fn new_like(other: &Appends) -> Appends {
        Appends {
            run: other.run.clone(),
            ..Appends::default()
        }
    }
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
        *self = Appends::new_like(self);
    }
    /// Writes them in the open transaction of `conn`, in the order they were recorded
    /// within each table: all of them, or (`all` false) only full statements' worth.
    pub(super) fn write(&mut self, conn: &Connection, all: bool) -> rusqlite::Result<()> {
        let run = self.run.clone();
        if let Some(previous) = run.previous {
            // What carries a stretch on is written at once; what begins one waits its turn
            // with the others, asked once.
            let mut extend = conn.prepare_cached(EXTEND_SPAN)?;
            let mut i = self.beginning;
            while i < self.rows.len() {
                let r = &self.rows[i];
                let carried = extend.execute(rusqlite::params![
                    run.id,
                    run.portfolio,
                    r.line,
                    previous,
                    r.input,
                    r.status.as_str(),
                    r.company,
                    r.error,
                    r.candidates,
                    r.country_defaulted,
                    r.extra_unreliable,
                    r.found_by,
                    r.amount,
                ])?;
                if carried == 0 {
                    i += 1;
                } else {
                    self.rows.remove(i);
                }
            }
        }
        let n = insert(conn, &NEW_SPANS, &self.rows, all, |r| {
            [
                // (Owned: the rows' lifetime is not the run's.)
                run.portfolio.clone().into(),
                r.line.into(),
                run.id.into(),
                run.id.into(),
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
        self.beginning = self.rows.len();
        let n = insert(conn, &RUN_COMPANIES, &self.companies, all, |c| {
            // Unchanged, the rating before being the rating itself: both NULL.
            let unchanged = c.change == Change::Unchanged && c.previous == Some(c.rating);
            [
                run.id.into(),
                c.company.into(),
                c.rating.into(),
                c.previous
                    .filter(|_| !unchanged)
                    .map_or_else(null, Into::into),
                if unchanged {
                    null()
                } else {
                    c.change.as_str().into()
                },
            ]
        })?;
        self.companies.drain(..n);
        let n = insert(conn, &CONFIRMATIONS, &self.confirmations, all, |c| {
            [c.0.into(), c.1.as_str().into(), c.2.into()]
        })?;
        self.confirmations.drain(..n);
        Ok(())
    }

    /// Takes back what the run recorded of line `line` before (a resumed run records its
    /// failed lines again): the run leaves the stretch that holds it, which ends at the
    /// portfolio's run before, begins at its run after, is cut in two around it, or goes;
    /// and the line is no longer one its summary named. Written at once, so the rows
    /// waiting are written first.
    pub(super) fn retract(&mut self, conn: &Connection, line: i64) -> rusqlite::Result<()> {
        use rusqlite::params;
        self.write(conn, true)?;
        let run = &self.run;
        let (portfolio, id) = (run.portfolio.as_str(), run.id);
        // The part after the run first, as a stretch of its own.
        conn.prepare_cached(
            "INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id,
                                        status, company, found_by, error, candidates,
                                        country_defaulted, extra_unreliable, amount)
             SELECT portfolio, line, ?4, last_run_id, input_id, status, company, found_by,
                    error, candidates, country_defaulted, extra_unreliable, amount
             FROM run_row_spans
             WHERE portfolio = ?1 AND line = ?2 AND first_run_id <= ?3 AND last_run_id > ?3",
        )?
        .execute(params![portfolio, line, id, run.next])?;
        // Then the stretch that begins at the run goes, and the one before it ends there.
        conn.prepare_cached(
            "DELETE FROM run_row_spans WHERE portfolio = ?1 AND line = ?2 AND first_run_id = ?3",
        )?
        .execute(params![portfolio, line, id])?;
        conn.prepare_cached(
            "UPDATE run_row_spans SET last_run_id = ?4
             WHERE portfolio = ?1 AND line = ?2 AND first_run_id < ?3 AND last_run_id >= ?3",
        )?
        .execute(params![portfolio, line, id, run.previous])?;
        conn.prepare_cached("DELETE FROM run_named_lines WHERE run_id = ?1 AND line = ?2")?
            .execute(params![id, line])?;
        Ok(())
    }
}

/// Carries on the stretch of line `?3` that the run before (`?4`) ends, if this run (`?1`)
/// made the same of the row. `IS` where a field may be NULL.
const EXTEND_SPAN: &str = "UPDATE run_row_spans SET last_run_id = ?1
     WHERE portfolio = ?2 AND line = ?3 AND last_run_id = ?4
       AND input_id = ?5 AND status = ?6 AND company IS ?7 AND error IS ?8
       AND candidates IS ?9 AND country_defaulted = ?10 AND extra_unreliable = ?11
       AND found_by IS ?12 AND amount IS ?13";

fn null<'a>() -> ToSqlOutput<'a> {
    ToSqlOutput::from(Null)
}

/// Stretches begun by the run. (A line given twice was first taken back: [`Appends::retract`].)
static NEW_SPANS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id,
                                    status, company, error, candidates, country_defaulted,
                                    extra_unreliable, found_by, amount)",
        13,
        "",
    )
});
static RUN_COMPANIES: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id,
                                          change)",
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
