//! A run's figures ([`Figures`]), read once for every channel: its red and black and what
//! they put at risk as the trend counts them (`run_colors`, through `color_trend`), what
//! of them the alerts hold (`run_alerts`) and leave out, and the rows it did not screen
//! with the amount they hold, the failed ones named largest first.

use rusqlite::params;

use super::database::Store;
use super::sql::{StoreError, extra_columns};
use crate::alerts::Rules;
use crate::digest::{FailedRow, Figures, NOT_SCREENED, NotScreened, Share};
use crate::model::RowStatus;

/// The red and black companies the run's alerts hold, by whether an acknowledgement took
/// them out: how many and their amount (`run_alerts.amount`, over the same rows as the
/// trend's). A company gone is no rated row, so holds nothing at risk.
const ALERTED: &str = "SELECT a.acked, count(*), sum(a.amount)
     FROM run_alerts a
     JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
     JOIN ratings r        ON r.id = rc.rating_id
     WHERE a.run_id = ?1 AND a.kind <> 'gone' AND r.color IN ('red', 'black')
     GROUP BY a.acked";

/// The rated rows of the run that a red or black company's alert holds: one pass over the
/// run's rows against the few companies with an alert. The others of the red and black are
/// those the alerts leave out.
const HELD: &str = "SELECT count(*) FROM run_rows rr
     WHERE rr.run_id = ?1 AND rr.status = 'rated'
       AND rr.company IN (SELECT a.company FROM run_alerts a
                          JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
                          JOIN ratings r        ON r.id = rc.rating_id
                          WHERE a.run_id = ?1 AND a.kind <> 'gone'
                            AND r.color IN ('red', 'black'))";

/// The rows not screened: a range of `run_rows`' primary key, their inputs joined.
const NOT_RATED: &str = "SELECT rr.status, rr.line, i.ref,
            coalesce(c.name, i.name,
                     CASE WHEN i.external_id IS NOT NULL
                          THEN coalesce(i.service || ' ', '') || i.external_id END),
            rr.error, i.extra, rr.extra_unreliable
     FROM run_rows rr
     JOIN inputs i         ON i.id = rr.input_id
     LEFT JOIN companies c ON c.id = rr.company
     WHERE rr.run_id = ?1 AND rr.status <> 'rated'
     ORDER BY rr.line";

impl Store {
    /// The figures of run `run_id` by `rules` as they apply to its portfolio (its carried
    /// columns): the amounts are read from the amount column by the parser of
    /// `min_exposure`; the failed rows named are at most `rules.max_listed`.
    pub fn figures(&self, run_id: i64, rules: &Rules) -> Result<Figures, StoreError> {
        let ctx = format!("reading the figures of run {run_id}");
        let at = |e| StoreError::at(ctx.clone())(e);
        let info = self.run_info(run_id)?;
        let (rules, _) = rules.for_columns(&info.extra_columns);
        // The run as its trend draws it: the same rows, the same amounts.
        let trend = self.color_trend(run_id, 1)?.pop();
        let of = |list: &[(String, u64)], color: &str| {
            list.iter().find(|(c, _)| c == color).map_or(0, |(_, n)| *n)
        };
        let mut figures = Figures {
            amount_column: rules.amount_column().map(str::to_string),
            threshold: rules
                .min_exposure
                .as_ref()
                .map(|m| (m.column.clone(), m.value)),
            ..Figures::default()
        };
        if let Some(run) = &trend {
            figures.red = of(&run.by_color, "red");
            figures.black = of(&run.by_color, "black");
            figures.new_red = of(&run.new_by_color, "red");
            figures.new_black = of(&run.new_by_color, "black");
            figures.at_risk = (!run.amount_by_color.is_empty()).then(|| {
                run.amount_by_color
                    .iter()
                    .filter(|(c, _)| c == "red" || c == "black")
                    .map(|(_, a)| a)
                    .sum()
            });
        }
        let mut alerted = self.conn.prepare(ALERTED).map_err(at)?;
        let mut rows = alerted.query([run_id]).map_err(at)?;
        while let Some(r) = rows.next().map_err(at)? {
            let share = Share {
                count: r.get::<_, i64>(1).map_err(at)? as u64,
                amount: r.get(2).map_err(at)?,
            };
            match r.get::<_, bool>(0).map_err(at)? {
                true => figures.acknowledged = share,
                false => figures.alerted = share,
            }
        }
        drop(rows);
        // Without a threshold, and with rules that alert on every red and black, each red
        // or black company has its alert: nothing is left out, and no row need be read.
        let may_leave_out = rules.min_exposure.is_some()
            || !rules.into_red
            || rules.improved == crate::alerts::Listing::Off;
        let red_or_black = figures.red + figures.black;
        if may_leave_out && red_or_black > 0 {
            let held: i64 = self
                .conn
                .query_row(HELD, [run_id], |r| r.get(0))
                .map_err(at)?;
            figures.left_out.count = red_or_black.saturating_sub(held as u64);
        }
        // An alert's amount is its company's rows' (as the trend's is): what is at risk
        // and not in an alert is left out, to the unit.
        figures.left_out.amount = figures.at_risk.map(|at_risk| {
            let held = [figures.alerted.amount, figures.acknowledged.amount];
            (at_risk - held.iter().flatten().sum::<f64>()).max(0.0)
        });
        // The rows are read for their amounts and to name the failed ones; else the run's
        // counts say it all.
        if rules.amount_column().is_some() || info.rows_with(RowStatus::Failed) > 0 {
            (figures.not_screened, figures.failed) = self.not_screened(run_id, &rules)?;
        } else {
            figures.not_screened = NOT_SCREENED
                .iter()
                .map(|status| NotScreened {
                    status: *status,
                    rows: Share {
                        count: info.rows_with(*status),
                        amount: None,
                    },
                })
                .filter(|n| n.rows.count > 0)
                .collect();
        }
        Ok(figures)
    }

    /// The run's rows not screened by status, with the amount they hold, and its failed
    /// rows, largest amount first, at most `rules.max_listed`: one pass over the rows,
    /// holding the few largest only.
    fn not_screened(
        &self,
        run_id: i64,
        rules: &Rules,
    ) -> Result<(Vec<NotScreened>, Vec<FailedRow>), StoreError> {
        let ctx = format!("reading the rows run {run_id} did not screen");
        let at = |e| StoreError::at(ctx.clone())(e);
        let mut by_status: Vec<NotScreened> = NOT_SCREENED
            .iter()
            .map(|status| NotScreened {
                status: *status,
                rows: Share::default(),
            })
            .collect();
        let named = rules.max_listed.max(1);
        let mut failed: Vec<FailedRow> = Vec::new();
        // Largest first, then the file's order; a row without an amount after any with.
        let order = |a: &FailedRow, b: &FailedRow| {
            b.amount
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&a.amount.unwrap_or(f64::NEG_INFINITY))
                .then(a.line.cmp(&b.line))
        };
        let mut stmt = self.conn.prepare(NOT_RATED).map_err(at)?;
        let mut rows = stmt.query(params![run_id]).map_err(at)?;
        while let Some(r) = rows.next().map_err(at)? {
            let status: String = r.get(0).map_err(at)?;
            let Some(status) = RowStatus::parse(&status) else {
                continue;
            };
            let amount = rules.amount_of(
                &extra_columns(r.get(5).map_err(at)?),
                r.get::<_, i64>(6).map_err(at)? != 0,
            );
            if let Some(n) = by_status.iter_mut().find(|n| n.status == status) {
                n.rows.add(amount);
            }
            if status != RowStatus::Failed {
                continue;
            }
            failed.push(FailedRow {
                line: r.get::<_, i64>(1).map_err(at)? as u64,
                reference: r.get(2).map_err(at)?,
                what: r.get(3).map_err(at)?,
                amount,
                error: r.get(4).map_err(at)?,
            });
            if failed.len() >= 2 * named {
                failed.sort_by(order);
                failed.truncate(named);
            }
        }
        failed.sort_by(order);
        failed.truncate(named);
        by_status.retain(|n| n.rows.count > 0);
        Ok((by_status, failed))
    }
}
