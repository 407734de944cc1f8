//! The timeline: the history read for people and scripts: the runs, which companies a reference or a
//! name points to, a company's color periods, the color changes seen in a time window,
//! and which portfolio rows hold a company.
//!
//! Read only: nothing here writes, so it runs beside a screening run without blocking it.
//! Each query reaches its rows through an index (see `migrations/upgrade/0002_color_periods.sql`
//! and the plan tests in `tests.rs`); none reads the whole history.

use std::collections::HashMap;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use uuid::Uuid;

use super::database::Store;
use super::sql::{StoreError, extra_columns, read_time};
use crate::model::{Color, RowStatus, RunColors, RunInfo};

/// How many runs the trend of report.html shows: a month of nightly runs.
pub const TREND_RUNS: u64 = 30;

/// The start of `t`'s calendar month in UTC: where a month's calls begin to count.
pub fn month_start(t: Timestamp) -> Timestamp {
    let day = t.to_zoned(jiff::tz::TimeZone::UTC).date().first_of_month();
    day.to_zoned(jiff::tz::TimeZone::UTC)
        .map_or(t, |z| z.timestamp())
}

/// A run's rated rows by color (`run_colors`, counted when the run finishes: see
/// `run_life::count_rows`), for a run not finished, or in a database from before
/// `run_colors`.
const COUNTED_COLORS: &str = "SELECT color, count(*) AS n FROM run_results
     WHERE run_id = ?1 AND status = 'rated' AND color IS NOT NULL
     GROUP BY color ORDER BY n DESC, color";

/// The counts stored when the run finished: a range of `run_colors`' primary key.
pub(super) const STORED_COLORS: &str = "SELECT color, rows AS n FROM run_colors
     WHERE run_id = ?1 ORDER BY n DESC, color";

/// A run's rated rows whose company came into its color in that run through a change
/// (not a first screening), by that color, counted over the run's rows as a finished run's
/// are (`run_life::count_rows`): the trend's news of a night not finished (a finished one
/// has them in `run_colors.new_rows`). Reads the run's rows once.
pub(super) const NEW_COLORS: &str = "SELECT r.color, count(*) AS n
     FROM run_rows rr
     JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = +rr.company
     JOIN ratings r        ON r.id = rc.rating_id
     WHERE rr.run_id = ?1 AND rr.status = 'rated'
       AND rc.change IN ('deteriorated', 'improved', 'changed')
     GROUP BY r.color ORDER BY n DESC, r.color";

/// The runs of a run's trend: the latest `?2` of its portfolio up to and including it, so
/// a past run's report drawn again shows what it showed. Finished runs only (`complete`
/// or `partial`; an interrupted or failed one holds part of the file), and the run
/// itself whatever its state. A range of the index `runs_by_portfolio`, newest first.
pub(super) const TREND: &str = "SELECT id, started_at FROM runs
     WHERE portfolio = (SELECT portfolio FROM runs WHERE id = ?1) AND id <= ?1
       AND (id = ?1 OR status IN ('complete', 'partial'))
     ORDER BY id DESC LIMIT ?2";

/// A company as the database knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompanySummary {
    /// The service's UUID, as stored.
    pub company_id: String,
    /// None for a company only known by the `company_id` a portfolio gave.
    pub name: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
}

/// A portfolio row that holds a company: in its portfolio's latest finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    pub portfolio: String,
    pub reference: Option<String>,
    pub line: u64,
    /// The row's carried columns (header, value), as the file gave them: the amount at
    /// stake is read from them.
    pub extra: Vec<(String, String)>,
    /// The record had more fields than its header: its carried columns may be shifted.
    pub extra_unreliable: bool,
}

/// The calls a run recorded, by endpoint: every process that worked on it added up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCalls {
    pub run_id: i64,
    pub started_at: String,
    pub calls: std::collections::BTreeMap<String, u64>,
}

/// One row of the `color_periods` view: a color a company held, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColorPeriod {
    pub color: Color,
    /// When the color began (the service's lastChangeDate, kept between observations).
    pub valid_from: String,
    /// When the next color began; None for the current one.
    pub valid_to: Option<String>,
    /// When ratewatch first saw this color.
    pub observed_at: String,
    /// When ratewatch last saw it.
    pub confirmed_at: String,
    pub first_run_id: Option<i64>,
    pub last_run_id: Option<i64>,
}

/// A company the service no longer knew, as a run found it (change `gone`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disappearance {
    pub run_id: i64,
    /// When that run started.
    pub noticed_at: String,
    /// When ratewatch last saw the company's rating.
    pub last_seen: String,
}

/// One row of the `color_changes` view, with the company's country.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColorChange {
    pub company: CompanySummary,
    pub from: Color,
    pub to: Color,
    /// When the service says it changed.
    pub changed_at: String,
    /// When ratewatch saw it.
    pub observed_at: String,
    /// The run that saw it; None for a change `sync-history` added (a lookup made
    /// elsewhere showed it).
    pub run_id: Option<i64>,
}

/// The run that says what a portfolio holds: its latest finished one. A run still going,
/// interrupted or failed may hold only part of the file. Each such run's rows are read
/// once, by primary key.
macro_rules! with_holding_runs {
    ($select:literal) => {
        concat!(
            "WITH holding_runs AS (SELECT id AS run_id FROM latest_finished_runs) ",
            $select
        )
    };
}

/// The companies that rows with a reference point to.
pub(super) const BY_REF: &str = with_holding_runs!(
    "SELECT DISTINCT c.company_id, c.name, c.city, c.country
     FROM holding_runs h
     CROSS JOIN run_rows rr ON rr.run_id = h.run_id
     JOIN companies c ON c.id = rr.company
     WHERE rr.input_id IN (SELECT id FROM inputs WHERE ref = ?1)
     ORDER BY c.name, c.company_id"
);

/// The rows holding companies given as a JSON array of UUIDs.
pub(super) const HOLDINGS: &str = with_holding_runs!(
    "SELECT c.company_id, r.portfolio, i.ref, rr.line, i.extra, rr.extra_unreliable
     FROM holding_runs h
     JOIN runs r ON r.id = h.run_id
     CROSS JOIN run_rows rr ON rr.run_id = h.run_id
     JOIN companies c ON c.id = rr.company
     JOIN inputs i ON i.id = rr.input_id
     WHERE rr.company IN (SELECT value FROM json_each(?1))
     ORDER BY r.portfolio, rr.line"
);

/// A company's color periods, by its internal key.
pub(super) const PERIODS: &str =
    "SELECT color, valid_from, valid_to, observed_at, confirmed_at, first_run_id, last_run_id
     FROM color_periods WHERE company = ?1
     ORDER BY valid_from, observed_at";

/// The color changes seen in a window (each company's city and country are read after).
pub(super) const CHANGES: &str =
    "SELECT cc.company_id, cc.name, NULL, NULL, cc.from_color, cc.to_color,
            cc.changed_at, cc.observed_at, cc.run_id
     FROM color_changes cc
     WHERE cc.observed_at >= ?1 AND (?2 IS NULL OR cc.observed_at < ?2)
       AND (?3 IS NULL OR cc.to_color IN (SELECT value FROM json_each(?3)))
     ORDER BY cc.observed_at DESC, cc.name, cc.company_id";

/// A company: its UUID, name, city and country from column `at` on.
pub(super) fn company(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<CompanySummary> {
    Ok(CompanySummary {
        company_id: r.get(at)?,
        name: r.get(at + 1)?,
        city: r.get(at + 2)?,
        country: r.get(at + 3)?,
    })
}

impl Store {
    /// A run's rated rows by color, most common first: counted when it finished, or
    /// counted now for a run still going (or a database from before `run_colors`).
    pub(super) fn colors_of(&self, info: &RunInfo) -> Result<Vec<(String, u64)>, StoreError> {
        let ctx = format!("counting the colors of run {}", info.id);
        let sql = if info.finished_at.is_some() {
            STORED_COLORS
        } else {
            COUNTED_COLORS
        };
        let mut stmt = self
            .conn
            .prepare_cached(sql)
            .map_err(StoreError::at(ctx.clone()))?;
        stmt.query_map([info.id], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .and_then(Iterator::collect)
            .map_err(StoreError::at(ctx))
    }

    /// The trend of run `run_id`'s portfolio: its latest `limit` finished runs up to and
    /// including `run_id`, oldest first, each with its rated rows by color, those that came
    /// into a color that night, and the amount at stake in each color (when `[alerts]`
    /// named an amount column). Nothing after the run is read, so `report --run N` draws it
    /// the same whenever it is asked.
    pub fn color_trend(&self, run_id: i64, limit: u64) -> Result<Vec<RunColors>, StoreError> {
        let ctx = format!("reading the trend of run {run_id}");
        let runs: Vec<(i64, Timestamp)> = self
            .conn
            .prepare(TREND)
            .and_then(|mut s| {
                s.query_map(params![run_id, limit as i64], |r| {
                    Ok((r.get(0)?, read_time(r, 1)?))
                })?
                .collect()
            })
            .map_err(StoreError::at(ctx))?;
        runs.into_iter()
            .rev()
            .map(|(id, started_at)| {
                let info = self.run_info(id)?;
                let (new_by_color, amount_by_color) = match info.finished_at {
                    Some(_) => self.stored_news_of(id)?,
                    None => (self.new_colors_of(id)?, Vec::new()),
                };
                Ok(RunColors {
                    run_id: id,
                    started_at,
                    by_color: info.by_color,
                    new_by_color,
                    amount_by_color,
                })
            })
            .collect()
    }

    /// A finished run's rows that came into each color through a change, most first, and
    /// the amount in each color, as `run_colors` keeps them: a range of its primary key.
    #[allow(clippy::type_complexity)]
    fn stored_news_of(
        &self,
        run_id: i64,
    ) -> Result<(Vec<(String, u64)>, Vec<(String, f64)>), StoreError> {
        let rows: Vec<(String, i64, Option<f64>)> = self.all(
            &format!("reading the news of run {run_id}"),
            "SELECT color, new_rows, amount FROM run_colors WHERE run_id = ?1
             ORDER BY new_rows DESC, color",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let new = rows
            .iter()
            .filter(|(_, n, _)| *n > 0)
            .map(|(c, n, _)| (c.clone(), *n as u64))
            .collect();
        let amounts = rows
            .into_iter()
            .filter_map(|(c, _, a)| Some((c, a?)))
            .collect();
        Ok((new, amounts))
    }

    /// A run's rated rows that came into each color through a change, most first (see
    /// `NEW_COLORS`).
    fn new_colors_of(&self, run_id: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let ctx = format!("counting the color changes of run {run_id}");
        let mut stmt = self
            .conn
            .prepare_cached(NEW_COLORS)
            .map_err(StoreError::at(ctx.clone()))?;
        stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .and_then(Iterator::collect)
            .map_err(StoreError::at(ctx))
    }

    /// The simulated days the database's `--demo` runs served, each with the date (UTC)
    /// of the first run that served it, by day.
    pub fn demo_days(&self) -> Result<Vec<(i64, jiff::civil::Date)>, StoreError> {
        let days: Vec<(i64, String)> = self.all(
            "reading the days of the demo runs",
            "SELECT demo_day, min(started_at) FROM runs WHERE demo_day IS NOT NULL
             GROUP BY demo_day ORDER BY demo_day",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(days
            .into_iter()
            .filter_map(|(day, started)| {
                let at: jiff::Timestamp = started.parse().ok()?;
                Some((day, at.to_zoned(jiff::tz::TimeZone::UTC).date()))
            })
            .collect())
    }

    /// The latest `limit` runs, newest first, as [`Store::run_info`] reads them.
    pub fn recent_runs(&self, limit: u64) -> Result<Vec<RunInfo>, StoreError> {
        let ids: Vec<i64> = self.all(
            "listing the runs",
            "SELECT id FROM runs ORDER BY id DESC LIMIT ?1",
            [limit as i64],
            |r| r.get(0),
        )?;
        ids.into_iter().map(|id| self.run_info(id)).collect()
    }

    /// The calls of the runs started in `[since, until)` (`until`: none for no end), by
    /// start. A run records its calls when it ends, so one in progress, or killed, shows
    /// none yet.
    pub fn calls_by_run(
        &self,
        since: &str,
        until: Option<&str>,
    ) -> Result<Vec<RunCalls>, StoreError> {
        self.all(
            "reading the runs' calls",
            "SELECT id, started_at, calls FROM runs
             WHERE started_at >= ?1 AND (?2 IS NULL OR started_at < ?2)
             ORDER BY started_at, id",
            params![since, until],
            |r| {
                let calls: Option<String> = r.get(2)?;
                Ok(RunCalls {
                    run_id: r.get(0)?,
                    started_at: r.get(1)?,
                    // Written by `finish_run` only, as an object of counts.
                    calls: calls
                        .and_then(|c| serde_json::from_str(&c).ok())
                        .unwrap_or_default(),
                })
            },
        )
    }

    /// The calls of the runs started from `since` on, every endpoint together.
    pub fn calls_since(&self, since: &str) -> Result<u64, StoreError> {
        Ok(self
            .calls_by_run(since, None)?
            .iter()
            .flat_map(|r| r.calls.values())
            .sum())
    }

    /// When the latest complete run of a portfolio that rated a row finished (ISO 8601
    /// UTC), if one ever did: a failed night still tells monitoring when the last good one
    /// was, and a run that rated nobody was not one.
    pub fn last_complete(&self, portfolio: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT max(finished_at) FROM runs
                 WHERE portfolio = ?1 AND status = 'complete' AND rows_rated > 0",
                [portfolio],
                |r| r.get(0),
            )
            .map_err(StoreError::at("reading the last complete run"))
    }

    /// Counts an unfinished run's rows as they stand (the run records its counts only
    /// when it finishes).
    pub(super) fn count_so_far(&self, run: &mut RunInfo) -> Result<(), StoreError> {
        let ctx = format!("counting the rows of run {}", run.id);
        run.by_status = self.rows_by_status(run.id)?;
        run.rows = run.by_status.iter().map(|(_, n)| n).sum();
        // The alerts listed, one per company, as `finish_run` counts them: none until
        // the run's alerts are decided.
        run.alerts = self
            .conn
            .query_row(
                "SELECT count(*) FROM run_alerts WHERE run_id = ?1 AND listed = 1",
                [run.id],
                |r| r.get::<_, i64>(0),
            )
            .map_err(StoreError::at(ctx))? as u64;
        Ok(())
    }

    /// A run's rows recorded so far by status, every status present: one pass over the
    /// run's rows, without the joins of `run_results`, each status counted as it goes
    /// (a GROUP BY would sort every row first).
    pub fn rows_by_status(&self, run_id: i64) -> Result<Vec<(RowStatus, u64)>, StoreError> {
        let ctx = format!("counting the rows of run {run_id}");
        let counts: Vec<String> = RowStatus::ALL
            .iter()
            .map(|s| format!("count(*) FILTER (WHERE status = '{}')", s.as_str()))
            .collect();
        let sql = format!(
            "SELECT {} FROM run_rows WHERE run_id = ?1",
            counts.join(", ")
        );
        let mut stmt = self
            .conn
            .prepare_cached(&sql)
            .map_err(StoreError::at(ctx.clone()))?;
        stmt.query_row([run_id], |r| {
            RowStatus::ALL
                .iter()
                .enumerate()
                .map(|(at, s)| Ok((*s, r.get::<_, i64>(at)? as u64)))
                .collect()
        })
        .map_err(StoreError::at(ctx))
    }

    /// The company with this UUID (as the service writes it, lowercase).
    pub fn company_by_id(&self, company_id: &str) -> Result<Option<CompanySummary>, StoreError> {
        self.of_company(company_id, "looking up a company id", |key| {
            self.conn
                .query_row(
                    "SELECT company_id, name, city, country FROM companies WHERE id = ?1",
                    [key],
                    |r| company(r, 0),
                )
                .optional()
        })
    }

    /// The internal key of the company with this UUID (as text), if the database knows it.
    fn company_key_of(&self, company_id: &str) -> rusqlite::Result<Option<i64>> {
        match Uuid::parse_str(company_id) {
            Ok(uuid) => self.company_key(uuid),
            Err(_) => Ok(None),
        }
    }

    /// What `read` finds of the company with this UUID (as text), given its internal key;
    /// nothing (`T`'s default) when the database does not know it.
    fn of_company<T: Default>(
        &self,
        company_id: &str,
        ctx: &str,
        read: impl FnOnce(i64) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.company_key_of(company_id)
            .and_then(|key| key.map_or_else(|| Ok(T::default()), read))
            .map_err(StoreError::at(ctx))
    }

    /// The companies that rows with this reference point to, in what each portfolio held
    /// at its latest finished run.
    pub fn companies_by_ref(&self, reference: &str) -> Result<Vec<CompanySummary>, StoreError> {
        self.all("looking up a reference", BY_REF, [reference], |r| {
            company(r, 0)
        })
    }

    /// The named companies whose name `matches` accepts, by name. Every name is read: the
    /// caller decides what matching means (case, accents) where SQL could not.
    pub fn companies_named(
        &self,
        mut matches: impl FnMut(&str) -> bool,
    ) -> Result<Vec<CompanySummary>, StoreError> {
        let ctx = "looking up company names";
        let mut stmt = self
            .conn
            .prepare("SELECT company_id, name, city, country FROM companies WHERE name IS NOT NULL")
            .map_err(StoreError::at(ctx))?;
        let mut rows = stmt.query([]).map_err(StoreError::at(ctx))?;
        let mut found = Vec::new();
        while let Some(r) = rows.next().map_err(StoreError::at(ctx))? {
            let name: String = r.get(1).map_err(StoreError::at(ctx))?;
            if matches(&name) {
                found.push(company(r, 0).map_err(StoreError::at(ctx))?);
            }
        }
        found.sort_by(|a, b| (&a.name, &a.company_id).cmp(&(&b.name, &b.company_id)));
        Ok(found)
    }

    /// The rows holding each of these companies (by UUID), in what each portfolio held at
    /// its latest finished run, by portfolio and line. Reads each of those runs' rows
    /// once, however many companies are asked about.
    pub fn holdings(
        &self,
        company_ids: &[&str],
    ) -> Result<HashMap<String, Vec<Holding>>, StoreError> {
        let mut held: HashMap<String, Vec<Holding>> = HashMap::new();
        if company_ids.is_empty() {
            return Ok(held);
        }
        let ctx = "looking up the rows holding companies";
        let mut keys = Vec::with_capacity(company_ids.len());
        for id in company_ids {
            keys.extend(self.company_key_of(id).map_err(StoreError::at(ctx))?);
        }
        let wanted = serde_json::to_string(&keys).unwrap_or_else(|_| "[]".into());
        let mut stmt = self.conn.prepare(HOLDINGS).map_err(StoreError::at(ctx))?;
        let mut rows = stmt.query([wanted]).map_err(StoreError::at(ctx))?;
        while let Some(r) = rows.next().map_err(StoreError::at(ctx))? {
            let get = || -> rusqlite::Result<(String, Holding)> {
                Ok((
                    r.get(0)?,
                    Holding {
                        portfolio: r.get(1)?,
                        reference: r.get(2)?,
                        line: r.get::<_, i64>(3)? as u64,
                        extra: extra_columns(r.get(4)?),
                        extra_unreliable: r.get::<_, i64>(5)? != 0,
                    },
                ))
            };
            let (id, holding) = get().map_err(StoreError::at(ctx))?;
            held.entry(id).or_default().push(holding);
        }
        Ok(held)
    }

    /// Whether the service no longer knows the company: the run that found it gone since
    /// a run last saw its latest rating, if one did.
    pub fn disappearance(&self, company_id: &str) -> Result<Option<Disappearance>, StoreError> {
        self.of_company(company_id, "reading whether a company is gone", |key| {
            self.conn
                .query_row(
                    "SELECT rc.run_id, u.started_at, coalesce(f.confirmed_at, r.observed_at)
                 FROM run_company_ratings rc
                 JOIN ratings r ON r.id = rc.rating_id
                 LEFT JOIN rating_confirmations f ON f.rating = r.id
                 JOIN runs u ON u.id = rc.run_id
                 WHERE rc.company = ?1 AND rc.change = 'gone'
                   AND rc.rating_id = (SELECT latest_rating FROM companies WHERE id = ?1)
                   AND rc.run_id > coalesce(f.last_run_id, r.first_run_id, 0)
                 ORDER BY rc.run_id LIMIT 1",
                    [key],
                    |r| {
                        Ok(Disappearance {
                            run_id: r.get(0)?,
                            noticed_at: r.get(1)?,
                            last_seen: r.get(2)?,
                        })
                    },
                )
                .optional()
        })
    }

    /// A company's color periods, oldest first.
    pub fn color_periods(&self, company_id: &str) -> Result<Vec<ColorPeriod>, StoreError> {
        self.of_company(company_id, "reading a company's color periods", |key| {
            self.conn
                .prepare(PERIODS)?
                .query_map([key], |r| {
                    Ok(ColorPeriod {
                        color: Color::parse(&r.get::<_, String>(0)?),
                        valid_from: r.get(1)?,
                        valid_to: r.get(2)?,
                        observed_at: r.get(3)?,
                        confirmed_at: r.get(4)?,
                        first_run_id: r.get(5)?,
                        last_run_id: r.get(6)?,
                    })
                })?
                .collect()
        })
    }

    /// The color changes ratewatch saw from `since` (included) to `until` (excluded, none:
    /// up to now), newest first, to one of the colors `to` (empty: to any). Times are ISO
    /// 8601 UTC text like the stored ones.
    pub fn color_changes(
        &self,
        since: &str,
        until: Option<&str>,
        to: &[Color],
    ) -> Result<Vec<ColorChange>, StoreError> {
        let ctx = "reading the color changes";
        let to = (!to.is_empty()).then(|| {
            serde_json::to_string(&to.iter().map(Color::as_str).collect::<Vec<_>>())
                .unwrap_or_else(|_| "[]".into())
        });
        let mut changes = self.all(ctx, CHANGES, params![since, until, to], |r| {
            Ok(ColorChange {
                company: company(r, 0)?,
                from: Color::parse(&r.get::<_, String>(4)?),
                to: Color::parse(&r.get::<_, String>(5)?),
                changed_at: r.get(6)?,
                observed_at: r.get(7)?,
                run_id: r.get(8)?,
            })
        })?;
        // Where each company is, read once per company.
        let mut places: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
        for change in &mut changes {
            let id = &change.company.company_id;
            if !places.contains_key(id) {
                let place = self
                    .company_by_id(id)?
                    .map_or((None, None), |c| (c.city, c.country));
                places.insert(id.clone(), place);
            }
            (change.company.city, change.company.country) = places[id].clone();
        }
        Ok(changes)
    }
}
