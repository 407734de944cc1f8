//! The stdout summary, written for a cron mail read over coffee: a line of counts, then
//! only what needs action — red or black companies and every color change, old → new,
//! with the user's reference first. Nothing flagged: one line saying so, and only when rows
//! were actually rated: a night that screened nothing, stopped early or failed rows says so
//! first, even under `--quiet`. Each alert shows the day the service last recalculated its
//! rating, and ratings not recalculated for too long (stale) are counted in one line.

use std::io;

use super::{Format, Output};
use crate::model::{Change, Color, ResultRow, RowStatus, RunInfo, RunStatus};

/// Whether a run's note makes the night loud (`STOPPED: …`, `NOTE: …`, `SHRUNK: …`).
fn is_loud(note: &str) -> bool {
    note.split_once(':')
        .is_some_and(|(head, _)| !head.is_empty() && head.chars().all(|c| c.is_ascii_uppercase()))
}

/// How the error of a row left out by `--max-calls` begins (`ApiError::CallBudget`).
const BUDGET_ERROR: &str = "not screened: call budget reached";

/// Alerts listed in full, color changes first; the rest are counted and left to the
/// report files, so a scoring change at the service does not turn the mail into a
/// thousand lines.
pub const MAX_LISTED: usize = 50;

pub struct Summary<W: Output> {
    out: W,
    /// Alerts only: no counts, nothing when nothing is flagged.
    quiet: bool,
    /// Where the report files are, for the pointers at the end.
    reports: Vec<String>,
    run: Option<RunInfo>,
    /// Color changes, listed first.
    changes: Vec<Vec<String>>,
    /// Companies red or black without a color change.
    standing: Vec<Vec<String>>,
    alerts: u64,
    /// Failed rows that were not sent because of the call budget.
    over_budget: u64,
    /// Whether it was the month's budget (`--max-calls-per-month`) that left some out.
    over_month_budget: bool,
    /// The reports' threshold of staleness, in days, for the line that counts stale rows.
    stale_after_days: u32,
    /// Rows whose rating is stale.
    stale: u64,
}

impl<W: Output> Summary<W> {
    pub fn new(out: W, quiet: bool, reports: Vec<String>, stale_after_days: u32) -> Self {
        Summary {
            out,
            quiet,
            reports,
            run: None,
            changes: Vec::new(),
            standing: Vec::new(),
            alerts: 0,
            over_budget: 0,
            over_month_budget: false,
            stale_after_days,
            stale: 0,
        }
    }
}

fn count(run: &RunInfo, status: RowStatus) -> u64 {
    run.by_status
        .iter()
        .find(|(s, _)| *s == status)
        .map_or(0, |(_, n)| *n)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

use crate::text::printable;

/// The day the service last recalculated the row's rating (`2026-11-20`), or `-`.
fn refreshed(row: &ResultRow) -> String {
    row.last_refresh_date
        .as_deref()
        .map(|d| d.get(..10).unwrap_or(d))
        .unwrap_or("-")
        .to_string()
}

/// What the alert says about the color: `yellow → red`, or `red` with why it is listed.
fn movement(row: &ResultRow) -> String {
    let now = row
        .color
        .as_ref()
        .map_or("?".to_string(), |c| c.to_string());
    match (row.change, &row.previous_color) {
        (Some(c), Some(before)) if c.is_color_change() => format!("{before} → {now}"),
        (Some(Change::Gone), _) => format!("{now} → gone"),
        (Some(Change::New), _)
            if row
                .color
                .as_ref()
                .is_some_and(|c| c.risk_rank().is_none() && *c != Color::White) =>
        {
            format!("unknown color {now}")
        }
        (Some(Change::New), _) => format!("{now} (first screening)"),
        _ => format!("{now} (still)"),
    }
}

impl<W: Output> Format for Summary<W> {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()> {
        self.run = Some(run.clone());
        Ok(())
    }

    fn row(&mut self, row: &ResultRow) -> io::Result<()> {
        if row.status == RowStatus::Failed
            && let Some(error) = row.error.as_deref()
            && error.starts_with(BUDGET_ERROR)
        {
            self.over_budget += 1;
            self.over_month_budget |= error.contains("--max-calls-per-month");
        }
        if row.stale {
            self.stale += 1;
        }
        if !row.alert {
            return Ok(());
        }
        self.alerts += 1;
        let is_change = row
            .change
            .is_some_and(|c| c.is_color_change() || c == Change::Gone);
        let bucket = if is_change {
            &mut self.changes
        } else {
            &mut self.standing
        };
        if bucket.len() >= MAX_LISTED {
            return Ok(());
        }
        let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let cells = [
            row.reference
                .clone()
                .unwrap_or_else(|| format!("line {}", row.line)),
            row.company_name
                .clone()
                .or_else(|| row.name.clone())
                .unwrap_or_default(),
            or_dash(&row.country),
            movement(row),
            row.change.map(|c| c.as_str()).unwrap_or("").to_string(),
            refreshed(row),
        ];
        bucket.push(cells.iter().map(|c| printable(c)).collect());
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        let run = self
            .run
            .take()
            .unwrap_or_else(|| panic!("begin was not called"));
        let alerts = self.alerts;
        let mut listed = std::mem::take(&mut self.changes);
        let room = MAX_LISTED.saturating_sub(listed.len());
        listed.extend(self.standing.drain(..).take(room));
        let unlisted = alerts - listed.len() as u64;
        let failed = count(&run, RowStatus::Failed);
        let rated = count(&run, RowStatus::Rated);
        let mut text = String::new();
        // What makes the night loud comes first, whatever else follows, even under
        // --quiet; a remark (a note not opening with a word in capitals and a colon, like
        // "columns not used: …") only when a person reads the whole summary.
        for note in &run.notes {
            if self.quiet && !is_loud(note) {
                continue;
            }
            text.push_str(&printable(note));
            text.push('\n');
        }
        if rated == 0 && run.rows > 0 {
            text.push_str(&format!(
                "NOTHING SCREENED: not one of the {} could be rated; see the counts and `error` in the reports\n",
                plural(run.rows, "row", "rows")
            ));
        }
        let state = if run.status == RunStatus::Interrupted {
            format!(
                "STOPPED: {} not screened, the next run resumes them",
                plural(failed, "row", "rows")
            )
        } else if failed > 0 {
            format!(
                "PARTIAL: {} will be retried next run",
                plural(failed, "row failed and", "rows failed and")
            )
        } else {
            run.status.to_string()
        };
        if self.quiet && (failed > 0 || run.status != RunStatus::Complete) {
            text.push_str(&format!(
                "ratewatch run {} of {}: {state}\n",
                run.id, run.portfolio
            ));
        }
        if !self.quiet {
            // `ignored` only when a review ignored rows: most portfolios never do.
            let statuses = RowStatus::ALL
                .iter()
                .filter(|s| **s != RowStatus::Ignored || count(&run, **s) > 0)
                .map(|s| format!("{} {}", count(&run, *s), s.as_str()))
                .collect::<Vec<_>>()
                .join(", ");
            text.push_str(&format!(
                "ratewatch run {} of {} ({state}): {} — {statuses}\n",
                run.id,
                run.portfolio,
                plural(run.rows, "row", "rows"),
            ));
            if !run.by_color.is_empty() {
                let colors = run
                    .by_color
                    .iter()
                    .map(|(c, n)| format!("{n} {c}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                text.push_str(&format!("colors: {colors}\n"));
            }
            if !run.calls.is_empty() {
                let total: u64 = run.calls.iter().map(|(_, n)| n).sum();
                let calls = run
                    .calls
                    .iter()
                    .map(|(e, n)| format!("{n} {e}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                text.push_str(&format!("calls: {total} ({calls})\n"));
            }
            if alerts == 0 && rated > 0 {
                text.push_str("Nothing flagged: no red or black company, no color change.\n");
            }
        }
        if alerts > 0 {
            if !self.quiet {
                text.push_str(&format!(
                    "{} (red or black now, color changed, gone, or a color not known):\n",
                    plural(alerts, "alert", "alerts")
                ));
            }
            let table = crate::text::render(
                &["REF", "COMPANY", "COUNTRY", "COLOR", "CHANGE", "REFRESHED"],
                &listed,
            );
            for line in table.lines() {
                text.push_str("  ");
                text.push_str(line);
                text.push('\n');
            }
            if unlisted > 0 {
                text.push_str(&format!(
                    "  … and {unlisted} more in the reports
"
                ));
            }
        }
        if !self.quiet {
            if self.stale > 0 {
                text.push_str(&format!(
                    "{} not recalculated for more than {} (stale): see `stale` in the reports\n",
                    plural(self.stale, "rating", "ratings"),
                    plural(self.stale_after_days.into(), "day", "days")
                ));
            }
            let ambiguous = count(&run, RowStatus::Ambiguous);
            if ambiguous > 0 {
                text.push_str(&format!(
                    "{} several companies: the candidates are in the reports; add city/postcode or company_id\n",
                    plural(ambiguous, "row matches", "rows match")
                ));
            }
            if self.over_budget > 0 {
                let flag = if self.over_month_budget {
                    "--max-calls-per-month"
                } else {
                    "--max-calls"
                };
                text.push_str(&format!(
                    "{} not screened: call budget reached ({flag}); screened on a later run\n",
                    plural(self.over_budget, "row", "rows")
                ));
            }
            let other_failures = failed - self.over_budget.min(failed);
            if other_failures > 0 {
                text.push_str(&format!(
                    "{} not screened on an API or network error or a rate limit; see `error` in the reports\n",
                    plural(other_failures, "row was", "rows were")
                ));
            }
            if !self.reports.is_empty() {
                text.push_str(&format!("reports: {}\n", self.reports.join(", ")));
            }
        }
        self.out.write_all(text.as_bytes())?;
        self.out.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Color;

    fn run(rows: u64, failed: u64) -> RunInfo {
        RunInfo {
            id: 3,
            rows,
            by_status: RowStatus::ALL
                .iter()
                .map(|s| {
                    (
                        *s,
                        if *s == RowStatus::Failed {
                            failed
                        } else if *s == RowStatus::Rated {
                            rows - failed
                        } else {
                            0
                        },
                    )
                })
                .collect(),
            by_color: vec![("green".into(), rows - failed)],
            ..RunInfo::example()
        }
    }

    fn alert(line: u64, from: Color, to: Color, change: Change) -> ResultRow {
        ResultRow {
            line,
            reference: Some(format!("C-{line}")),
            country: Some("FR".into()),
            service: None,
            id: None,
            name: None,
            status: RowStatus::Rated,
            company_id: None,
            company_name: Some("Acme SA".into()),
            color: Some(to),
            previous_color: Some(from),
            change: Some(change),
            last_change_date: None,
            last_refresh_date: None,
            stale: false,
            alert: true,
            error: None,
            candidates: vec![],
            extra: vec![],
        }
    }

    fn render(run: RunInfo, rows: &[ResultRow], quiet: bool) -> String {
        let mut buf = Vec::new();
        let mut s = Box::new(Summary::new(
            &mut buf,
            quiet,
            vec!["./report.csv".into()],
            30,
        ));
        s.begin(&run).unwrap();
        for r in rows {
            s.row(r).unwrap();
        }
        s.finish().unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn a_quiet_night_is_two_lines_of_counts_and_one_saying_nothing_is_flagged() {
        let text = render(run(120, 0), &[], false);
        assert!(text.starts_with("ratewatch run 3 of customers (complete): 120 rows — 120 rated"));
        assert!(text.contains("Nothing flagged"));
        assert_eq!(render(run(120, 0), &[], true), "");
    }

    #[test]
    fn alerts_show_ref_name_country_and_old_to_new() {
        let rows = [
            alert(2, Color::Yellow, Color::Red, Change::Deteriorated),
            alert(5, Color::Black, Color::Black, Change::Unchanged),
        ];
        let text = render(run(10, 1), &rows, false);
        assert!(text.starts_with(
            "ratewatch run 3 of customers (PARTIAL: 1 row failed and will be retried next run)"
        ));
        assert!(text.contains("2 alerts"));
        let line = text.lines().find(|l| l.contains("C-2")).unwrap();
        assert!(
            line.contains("Acme SA") && line.contains("FR") && line.contains("yellow → red"),
            "{line}"
        );
        assert!(text.contains("black (still)"));
        let mut evil = alert(9, Color::Green, Color::Red, Change::Deteriorated);
        evil.company_name = Some("Acme\u{1b}[2J\r\nSA".into());
        let text = render(run(10, 0), &[evil], false);
        assert!(
            !text.contains('\u{1b}') && text.contains("Acme [2J  SA"),
            "{text}"
        );
        let quiet = render(run(10, 1), &rows, true);
        assert_eq!(
            quiet.lines().count(),
            4,
            "the failed rows, the table's header and two alerts: {quiet}"
        );
        assert!(quiet.starts_with(
            "ratewatch run 3 of customers: PARTIAL: 1 row failed and will be retried next run\n"
        ));
    }

    #[test]
    fn nothing_flagged_only_when_rows_were_rated() {
        // Every row failed: no "Nothing flagged", and the first line says so.
        let text = render(run(40, 40), &[], false);
        assert!(
            text.starts_with("NOTHING SCREENED: not one of the 40 rows"),
            "{text}"
        );
        assert!(!text.contains("Nothing flagged"), "{text}");
        let quiet = render(run(40, 40), &[], true);
        assert!(quiet.starts_with("NOTHING SCREENED"), "{quiet}");
        assert!(quiet.contains("PARTIAL: 40 rows failed"), "{quiet}");
    }

    #[test]
    fn notes_come_first_even_when_quiet() {
        let stopped = RunInfo {
            status: RunStatus::Interrupted,
            notes: vec![
                "STOPPED: the service's rate limit asks to wait until 2026-11-24T00:00:00Z".into(),
            ],
            ..run(10, 6)
        };
        for quiet in [false, true] {
            let text = render(stopped.clone(), &[], quiet);
            assert!(
                text.starts_with(
                    "STOPPED: the service's rate limit asks to wait until 2026-11-24T00:00:00Z\n"
                ),
                "{text}"
            );
            assert!(
                text.contains("STOPPED: 6 rows not screened, the next run resumes them"),
                "{text}"
            );
        }
    }

    #[test]
    fn rows_left_out_by_the_call_budget_are_not_called_errors() {
        let mut over = alert(7, Color::Green, Color::Green, Change::Unchanged);
        over.status = RowStatus::Failed;
        over.alert = false;
        over.error = Some("not screened: call budget reached (--max-calls 5); this row is screened on a later run".into());
        let text = render(run(10, 1), &[over], false);
        assert!(
            text.contains("1 row not screened: call budget reached"),
            "{text}"
        );
        assert!(!text.contains("network error"), "{text}");
    }

    #[test]
    fn a_gone_company_and_an_unknown_color_are_listed_as_news() {
        let gone = alert(4, Color::Red, Color::Red, Change::Gone);
        let mut orange = alert(6, Color::Green, Color::Other("orange".into()), Change::New);
        orange.previous_color = None;
        let text = render(run(10, 0), &[gone, orange], false);
        let line = |r: &str| text.lines().find(|l| l.contains(r)).unwrap().to_string();
        assert!(line("C-4").contains("red → gone"), "{text}");
        assert!(line("C-6").contains("unknown color orange"), "{text}");
    }

    #[test]
    fn each_alert_shows_the_day_its_rating_was_last_recalculated() {
        let mut red = alert(2, Color::Yellow, Color::Red, Change::Deteriorated);
        red.last_refresh_date = Some("2026-11-20T01:47:12Z".into());
        let undated = alert(3, Color::Black, Color::Black, Change::Unchanged);
        let text = render(run(10, 0), &[red, undated], false);
        let header = text.lines().find(|l| l.contains("REF")).unwrap();
        assert!(header.trim_end().ends_with("REFRESHED"), "{header}");
        let line = |r: &str| text.lines().find(|l| l.contains(r)).unwrap().to_string();
        assert!(line("C-2").trim_end().ends_with("2026-11-20"), "{text}");
        assert!(!text.contains("01:47:12"), "the day only: {text}");
        assert!(line("C-3").trim_end().ends_with('-'), "{text}");
    }

    #[test]
    fn stale_ratings_are_counted_in_one_line_except_when_quiet() {
        let green = |line: u64, flagged: bool| ResultRow {
            alert: flagged,
            ..alert(line, Color::Green, Color::Green, Change::Unchanged)
        };
        let stale = |line: u64, flagged: bool| ResultRow {
            last_refresh_date: Some("2026-09-01T01:30:00Z".into()),
            stale: true,
            ..green(line, flagged)
        };
        let rows = [stale(2, false), stale(3, false), stale(4, true)];
        let text = render(run(10, 0), &rows, false);
        assert!(
            text.contains(
                "3 ratings not recalculated for more than 30 days (stale): see `stale` in the reports\n"
            ),
            "{text}"
        );
        assert_eq!(text.matches("stale").count(), 2, "one line: {text}");
        let quiet = render(run(10, 0), &rows, true);
        assert!(!quiet.contains("stale"), "{quiet}");
        assert!(
            quiet.contains("2026-09-01"),
            "the alert keeps its date: {quiet}"
        );

        let one = render(run(10, 0), &rows[..1], false);
        assert!(one.contains("1 rating not recalculated for more than 30 days (stale)"));
        let fresh = render(run(10, 0), &[green(2, false)], false);
        assert!(!fresh.contains("stale"), "{fresh}");
    }

    #[test]
    fn a_flood_of_changes_is_capped() {
        let rows: Vec<_> = (0..300)
            .map(|i| alert(i + 2, Color::Green, Color::Yellow, Change::Deteriorated))
            .collect();
        let text = render(run(300, 0), &rows, false);
        assert!(text.contains("300 alerts"));
        assert!(text.contains("… and 250 more in the reports"));
        assert!(text.lines().count() < MAX_LISTED + 10);
    }
}
