//! The result rows of a run as the reports, the summary and the review read them: each
//! row as given and what became of it (`run_results`, with the run's own marks from
//! `run_rows` and the ratings it reused), streamed in input order or by alert, never held
//! all at once. Read by the columns' names.

use std::collections::HashMap;

use rusqlite::OptionalExtension;
use uuid::Uuid;

use super::database::Store;
use super::periods::period_start;
use super::sql::{StoreError, extra_columns, read_time_or_null, read_uuid, unreadable};
use crate::alerts::AlertKind;
use crate::model::{Change, Color, ResultRow, RowStatus};

impl Store {
    /// Calls `f` with each row's result of a run, in input order, without holding them all.
    pub fn for_each_result<E>(
        &self,
        run_id: i64,
        alerts_only: bool,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        let order = if alerts_only {
            Rows::AlertsByLine
        } else {
            Rows::All
        };
        self.results(run_id, order, f)
    }

    /// Calls `f` with each row of a run that is not rated (ambiguous, unresolved, invalid,
    /// failed, ignored), in input order: what the review and a portfolio's page list.
    pub fn for_each_unrated<E>(
        &self,
        run_id: i64,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.results(run_id, Rows::NotRated, f)
    }

    /// Calls `f` with the rows of the run's alerts (companies in `run_alerts`), grouped by
    /// company as the summary orders them: the listed alerts first, worst first, then the
    /// standing ones (not listed, not acknowledged), then the acknowledged ones; a
    /// company's rows together, in input order. Nothing for a database read before its
    /// alert rules.
    pub fn for_each_alert_row<E>(
        &self,
        run_id: i64,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.results(run_id, Rows::AlertsByCompany, f)
    }

    fn results<E>(
        &self,
        run_id: i64,
        which: Rows,
        mut f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        let ctx = format!("reading the results of run {run_id}");
        let sql = results_sql(which);
        let announced = self.announced_otherwise(run_id)?;
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(StoreError::at(ctx.clone()))?;
        // The run's start, read once for the rows' `rating_age` rather than by each row.
        let started_at: Option<String> = self
            .conn
            .query_row("SELECT started_at FROM runs WHERE id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(StoreError::at(ctx.clone()))?;
        let mut rows = stmt
            .query(rusqlite::params![run_id, started_at])
            .map_err(StoreError::at(ctx.clone()))?;
        while let Some(r) = rows.next().map_err(StoreError::at(ctx.clone()))? {
            let mut row = result_row(r).map_err(StoreError::at(ctx.clone()))?;
            // An alert judged against what was last delivered, not the history's previous
            // observation (see `store::alert_log`): the row says the change it announces.
            if let (Some(company), Some(color)) = (row.company_id, &row.color)
                && let Some(before) = announced.get(&company)
            {
                row.change = Some(Change::classify(
                    before.as_ref().map(|c| (c, None::<i64>)),
                    color,
                    None,
                ));
                row.previous_color = before.clone();
            }
            if let Err(e) = f(row) {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }

    /// The companies of a run whose alert compares with another color than the history's
    /// previous one (a change an undelivered run saw first), with that color: few, read
    /// at once.
    fn announced_otherwise(&self, run_id: i64) -> Result<HashMap<Uuid, Option<Color>>, StoreError> {
        let ctx = format!("reading the alerts of run {run_id}");
        let mut stmt = self
            .conn
            .prepare(
                "SELECT c.company_id, a.previous_color FROM run_alerts a
                 JOIN companies c      ON c.id = a.company
                 JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
                 LEFT JOIN ratings p   ON p.id = rc.previous_rating_id
                 WHERE a.run_id = ?1 AND a.kind <> 'still' AND a.kind <> 'gone'
                   AND a.previous_color IS NOT p.color",
            )
            .map_err(StoreError::at(ctx.clone()))?;
        stmt.query_map([run_id], |r| {
            let color: Option<String> = r.get(1)?;
            Ok((read_uuid(r, 0)?, color.map(|c| Color::parse(&c))))
        })
        .and_then(Iterator::collect)
        .map_err(StoreError::at(ctx))
    }
}

/// The SQL that reads `which` rows of run `?1` (the run's start is `?2`): the columns of
/// [`COLUMNS`] from `run_results`.
pub(super) fn results_sql(which: Rows) -> String {
    let columns = COLUMNS.map(|(name, column)| format!("{column} AS {name}"));
    let columns = columns.join(", ");
    // Whether the row's rating was reused: the view has everything else.
    let by_key = "LEFT JOIN run_reused_ratings z ON z.run_id = v.run_id
                           AND z.company = v.company AND v.status = 'rated'";
    // The run's alerts name their companies: a row whose company is not among them is
    // passed over by a probe of run_alerts' primary key before it is joined to anything
    // (a night's alerts are a few percent of its rows; a list of them would be held in
    // memory).
    let alerted = "EXISTS (SELECT 1 FROM run_alerts a
                           WHERE a.run_id = ?1 AND a.company = v.company)";
    let alerts_by_line = format!("AND v.alert = 1 AND {alerted}");
    match which {
        Rows::All | Rows::AlertsByLine | Rows::NotRated => format!(
            "SELECT {columns}
             FROM run_results v {by_key} WHERE v.run_id = ?1 {} ORDER BY v.line",
            match which {
                Rows::AlertsByLine => alerts_by_line.as_str(),
                Rows::NotRated => "AND v.status <> 'rated'",
                _ => "",
            }
        ),
        // Listed first (worst first and largest amount first, as the summary), then
        // standing, then acked; a company's rows together from its first line. The
        // run's alerts first (a few percent of its companies), each company's rows
        // found through `run_row_spans_by_company`, then a sort of those rows only.
        Rows::AlertsByCompany => {
            let severity: String = AlertKind::ALL
                .iter()
                .map(|k| format!(" WHEN '{}' THEN {}", k.as_str(), k.severity()))
                .collect();
            format!(
                "SELECT {columns}
                 FROM (SELECT v.*, min(v.line) OVER (PARTITION BY v.company) AS first_line
                       FROM run_alerts a
                       CROSS JOIN run_results v ON v.run_id = a.run_id
                                               AND v.company = a.company
                       WHERE a.run_id = ?1 AND v.alert_kind IS NOT NULL) v
                 {by_key}
                 ORDER BY v.alert_listed DESC, v.alert_acked,
                          CASE v.alert_kind{severity} END,
                          (SELECT a.amount FROM run_alerts a
                           WHERE a.run_id = v.run_id AND a.company = v.company) DESC NULLS LAST,
                          v.first_line, v.line"
            )
        }
    }
}

/// Which rows of a run [`Store::results`] reads, in which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rows {
    All,
    AlertsByLine,
    AlertsByCompany,
    /// The rows not rated: what needs a person, or failed.
    NotRated,
}

/// The columns of a result row as [`Store::results`] selects them, in order: (name, what
/// it is). [`result_row`] reads each by its name ([`at`]), never by a number kept in step
/// by hand. `v` is the row in `run_results`, `z` its reused rating.
const COLUMNS: [(&str, &str); 28] = [
    ("line", "v.line"),
    ("ref", "v.ref"),
    ("country", "v.country"),
    ("service", "v.service"),
    ("external_id", "v.external_id"),
    ("name", "v.name"),
    ("status", "v.status"),
    ("company_id", "v.company_id"),
    ("company_name", "v.company_name"),
    ("color", "v.color"),
    ("previous_color", "v.previous_color"),
    ("change", "v.change"),
    ("last_change_date", "v.last_change_date"),
    ("alert", "v.alert"),
    ("error", "v.error"),
    ("candidates", "v.candidates"),
    ("last_refresh_date", "v.last_refresh_date"),
    ("extra", "v.extra"),
    ("alert_kind", "v.alert_kind"),
    ("alert_acked", "v.alert_acked"),
    ("alert_listed", "v.alert_listed"),
    ("country_defaulted", "v.country_defaulted"),
    ("extra_unreliable", "v.extra_unreliable"),
    ("named", "v.named"),
    ("found_by", "v.found_by"),
    // Whether the row's rating was reused, and its age at the run's start.
    ("reused", "z.seen_at IS NOT NULL"),
    ("rating_age", "unixepoch(?2) - unixepoch(z.seen_at)"),
    // Since when the company held the row's color, as `color_periods` dates it.
    ("color_since", period_start!("v.company", "v.rating_id")),
];

/// The place of the column named `name` in [`COLUMNS`], found as the program is compiled
/// (a name not there fails the build): a row is read by name at no cost per row.
macro_rules! at {
    ($name:literal) => {
        const { place($name) }
    };
}

const fn place(name: &str) -> usize {
    let mut i = 0;
    while i < COLUMNS.len() {
        let (a, b) = (COLUMNS[i].0.as_bytes(), name.as_bytes());
        let mut same = a.len() == b.len();
        let mut j = 0;
        while same && j < a.len() {
            same = a[j] == b[j];
            j += 1;
        }
        if same {
            return i;
        }
        i += 1;
    }
    panic!("a result row has no such column")
}

/// A row of [`Store::results`], read by its columns' names.
fn result_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ResultRow> {
    // The columns read only to be parsed are borrowed, not copied.
    let text = |at: usize| -> rusqlite::Result<Option<&str>> {
        r.get_ref(at)?
            .as_str_or_null()
            .map_err(|e| unreadable(r, at, e.into()))
    };
    let flag = |at: usize| -> rusqlite::Result<bool> {
        Ok(r.get::<_, Option<i64>>(at)?.unwrap_or(0) != 0)
    };
    // Never NULL in the schema; said as such if it were.
    let Some(status) = text(at!("status"))? else {
        let null = rusqlite::types::Type::Null;
        return Err(rusqlite::Error::InvalidColumnType(
            at!("status"),
            "status".into(),
            null,
        ));
    };
    // A company or candidates that do not read as written are an error, never left out.
    let company = match text(at!("company_id"))? {
        Some(_) => Some(read_uuid(r, at!("company_id"))?),
        None => None,
    };
    let candidates = text(at!("candidates"))?;
    Ok(ResultRow {
        line: r.get::<_, i64>(at!("line"))? as u64,
        reference: r.get(at!("ref"))?,
        country: r.get(at!("country"))?,
        service: r.get(at!("service"))?,
        id: r.get(at!("external_id"))?,
        name: r.get(at!("name"))?,
        status: RowStatus::parse(status).ok_or_else(|| {
            let unknown = format!("unknown row status {status:?}");
            unreadable(r, at!("status"), unknown.into())
        })?,
        company_id: company,
        company_name: r.get(at!("company_name"))?,
        color: text(at!("color"))?.map(Color::parse),
        previous_color: text(at!("previous_color"))?.map(Color::parse),
        change: text(at!("change"))?.and_then(Change::parse),
        last_change_date: read_time_or_null(r, at!("last_change_date"))?,
        last_refresh_date: read_time_or_null(r, at!("last_refresh_date"))?,
        color_since: read_time_or_null(r, at!("color_since"))?,
        extra: extra_columns(r.get(at!("extra"))?),
        // Judged by the reports against their threshold (`model::Staleness`).
        stale: false,
        alert: r.get::<_, i64>(at!("alert"))? != 0,
        alert_kind: text(at!("alert_kind"))?.and_then(AlertKind::parse),
        acknowledged: flag(at!("alert_acked"))?,
        alert_listed: flag(at!("alert_listed"))?,
        error: r.get(at!("error"))?,
        country_defaulted: flag(at!("country_defaulted"))?,
        extra_unreliable: flag(at!("extra_unreliable"))?,
        named: flag(at!("named"))?,
        found_by: r.get(at!("found_by"))?,
        reused: flag(at!("reused"))?,
        rating_age_hours: r
            .get::<_, Option<i64>>(at!("rating_age"))?
            .map(|seconds| seconds.max(0) as u64 / 3600),
        candidates: candidates
            .map(|c| {
                serde_json::from_str(c).map_err(|e| unreadable(r, at!("candidates"), e.into()))
            })
            .transpose()?
            .unwrap_or_default(),
    })
}
