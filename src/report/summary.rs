//! The stdout summary, written for a cron mail read over coffee: a line of counts, then
//! only what needs action — red or black companies and every color change, old → new,
//! with the user's reference first. Nothing flagged: one line saying so, and only when rows
//! were actually rated: a night that screened nothing, stopped early or failed rows says so
//! first, even under `--quiet`. Each alert shows the day the service last recalculated its
//! rating, and ratings not recalculated for too long (stale) are counted in one line.

use std::io;

use super::{Format, Output};
use crate::digest::{AlertDigest, Heading, alert_table};
use crate::links::PageUrl;
use crate::locale::{Arg, Reader};
use crate::model::{ResultRow, RowStatus, RunInfo, RunStatus};

/// Whether a run's note makes the night loud (`STOPPED: …`, `NOTE: …`, `SHRUNK: …`).
pub(crate) fn is_loud(note: &str) -> bool {
    note.split_once(':').is_some_and(|(head, _)| {
        head.starts_with(|c: char| c.is_ascii_uppercase())
            && head.chars().all(|c| c.is_ascii_uppercase() || c == ' ')
    })
}

/// How the error of a row left out by `--max-calls` begins (`ApiError::CallBudget`).
const BUDGET_ERROR: &str = "not screened: call budget reached";

/// Unresolved and invalid rows named in the summary, each; the rest are counted.
const NAMED_PROBLEMS: usize = 5;

pub struct Summary<W: Output> {
    out: W,
    /// Alerts only: no counts, nothing when nothing is flagged.
    quiet: bool,
    /// Where the report files are, for the pointers at the end.
    reports: Vec<String>,
    run: Option<RunInfo>,
    /// The run's alerts by the rules, worst first (read from the store).
    digest: AlertDigest,
    /// Failed rows that were not sent because of the call budget.
    over_budget: u64,
    /// Whether it was the month's budget (`--max-calls-per-month`) that left some out.
    over_month_budget: bool,
    /// The reports' threshold of staleness, in days, for the line that counts stale rows.
    stale_after_days: u32,
    /// Rows whose rating is stale.
    stale: u64,
    /// The first unresolved and invalid rows, with why.
    unresolved: Vec<String>,
    invalid: Vec<String>,
    /// Rows not screened that the run names tonight (new in their state, or due again),
    /// by reason: how many, and the refs of the first.
    named: Vec<(RowStatus, u64, Vec<String>)>,
    /// Where `ratewatch serve` is reached, for links to its pages.
    page: Option<PageUrl>,
    /// The language and time zone it is written in.
    reader: Reader,
}

impl<W: Output> Summary<W> {
    pub fn new(
        out: W,
        quiet: bool,
        reports: Vec<String>,
        stale_after_days: u32,
        digest: AlertDigest,
        page: Option<PageUrl>,
        reader: Reader,
    ) -> Self {
        Summary {
            out,
            page,
            reader,
            quiet,
            reports,
            run: None,
            digest,
            over_budget: 0,
            over_month_budget: false,
            stale_after_days,
            stale: 0,
            unresolved: Vec::new(),
            invalid: Vec::new(),
            named: [
                RowStatus::Invalid,
                RowStatus::Unresolved,
                RowStatus::Ambiguous,
            ]
            .into_iter()
            .map(|status| (status, 0, Vec::new()))
            .collect(),
        }
    }
}

use crate::text::printable;

/// A count given to a message, choosing its plural form.
fn n(count: u64) -> Arg<'static> {
    count.into()
}

/// A text given to a message.
fn s<'a>(text: impl Into<String>) -> Arg<'a> {
    Arg::from(text.into())
}

/// What a run did not screen, when it did not screen every row: never "Nothing flagged"
/// then, which would speak for rows that failed or that the run never reached.
pub(super) fn unscreened(r: &Reader, run: &RunInfo) -> Option<String> {
    let l = r.locale;
    // Every row but those rated and those a person chose to leave alone (`ignored`).
    let not_screened: u64 = [
        RowStatus::Failed,
        RowStatus::Invalid,
        RowStatus::Unresolved,
        RowStatus::Ambiguous,
    ]
    .into_iter()
    .map(|s| run.rows_with(s))
    .sum();
    if run.screened_nobody() {
        let rows = l.text("rows", &[("count", n(run.rows))]);
        Some(l.text("unscreened-nobody", &[("rows", s(rows))]))
    } else if not_screened > 0 {
        Some(l.text("unscreened-rows", &[("count", n(not_screened))]))
    } else if run.status != RunStatus::Complete {
        let status = l.run_status(run.status);
        Some(l.text("unscreened-run", &[("status", s(status))]))
    } else {
        None
    }
}

/// A row named in the summary: its ref (or line) and why it needs a look.
fn named(r: &Reader, row: &ResultRow) -> String {
    let who = crate::digest::row_at(r, row.reference.as_deref(), row.line);
    match &row.error {
        Some(e) => format!("{who}: {}", r.record(e)),
        None => who,
    }
}

impl<W: Output> Summary<W> {
    /// The rows not screened and what they hold, with the portfolio's page where they are
    /// listed with why, when `page_url` is set.
    fn not_screened_line(&self, digest: &AlertDigest, run: &RunInfo) -> Option<String> {
        let mut line = digest.figures.as_ref()?.not_screened_line(&self.reader)?;
        if let Some(page) = &self.page {
            line.push_str(&format!(" — {}", page.portfolio(&run.portfolio)));
        }
        Some(line)
    }
}

/// The failed rows named, largest amount first, each with what it holds and why it failed;
/// the rest counted.
fn failed_named(r: &Reader, text: &mut String, digest: &AlertDigest) {
    let Some(figures) = &digest.figures else {
        return;
    };
    let Some(heading) = figures.failed_heading(r) else {
        return;
    };
    text.push_str(&heading);
    text.push('\n');
    for row in &figures.failed {
        let line = row.line_text(r, figures.amount_column.as_deref());
        text.push_str(&format!("  {line}\n"));
    }
    if let Some(more) = figures.failed_more_line(r) {
        text.push_str(&format!("  {more}\n"));
    }
}

/// `2 unresolved rows`, `2 lignes non trouvées`: the status is given as its code, for
/// each language to agree its word with the count.
fn rows_of_status(r: &Reader, status: RowStatus, count: u64) -> String {
    r.locale.text(
        "rows-of-status",
        &[("count", n(count)), ("status", s(status.as_str()))],
    )
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
        let first = match row.status {
            RowStatus::Unresolved => Some(&mut self.unresolved),
            RowStatus::Invalid => Some(&mut self.invalid),
            _ => None,
        };
        if let Some(first) = first
            && first.len() < NAMED_PROBLEMS
        {
            first.push(printable(&named(&self.reader, row)));
        }
        if row.named
            && let Some((_, count, refs)) = self.named.iter_mut().find(|(s, ..)| *s == row.status)
        {
            *count += 1;
            if refs.len() < NAMED_PROBLEMS {
                let line = s(row.line.to_string());
                refs.push(printable(&row.reference.clone().unwrap_or_else(|| {
                    self.reader.locale.text("row-line", &[("line", line)])
                })));
            }
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        let run = self
            .run
            .take()
            .unwrap_or_else(|| panic!("begin was not called"));
        let digest = std::mem::take(&mut self.digest);
        let alerts = digest.listed_total;
        let listed = &digest.listed;
        let unlisted = digest.unlisted();
        let failed = run.rows_with(RowStatus::Failed);
        let rated = run.rows_with(RowStatus::Rated);
        let r = &self.reader;
        let l = r.locale;
        let rows = |count: u64| l.text("rows", &[("count", n(count))]);
        let more_in_reports = |count: u64| l.text("more-in-reports", &[("count", n(count))]);
        let mut text = String::new();
        // What makes the night loud comes first, whatever else follows, even under
        // --quiet; a remark (a note not opening with a word in capitals and a colon, like
        // "columns not used: …") only when a person reads the whole summary.
        for note in &run.notes {
            if self.quiet && !is_loud(note) {
                continue;
            }
            text.push_str(&printable(&r.record(note)));
            text.push('\n');
        }
        if let Some((changed, companies)) = digest.storm {
            let storm = l.text(
                "storm",
                &[
                    ("changed", n(changed)),
                    ("companies", n(companies)),
                    ("listed", n(listed.len() as u64)),
                ],
            );
            text.push_str(&format!("{storm}\n"));
        }
        if rated == 0 && run.rows > 0 {
            let line = l.text("nothing-screened", &[("rows", s(rows(run.rows)))]);
            text.push_str(&format!("{line}\n"));
        }
        let state = if run.status == RunStatus::Interrupted {
            l.text("state-stopped", &[("count", n(failed))])
        } else if failed > 0 {
            l.text("state-partial", &[("count", n(failed))])
        } else {
            l.run_status(run.status)
        };
        let (run_id, portfolio) = (s(run.id.to_string()), s(run.portfolio.clone()));
        if self.quiet && (failed > 0 || run.status != RunStatus::Complete) {
            let line = l.text(
                "run-line-quiet",
                &[
                    ("run", run_id.clone()),
                    ("portfolio", portfolio.clone()),
                    ("state", s(state.clone())),
                ],
            );
            text.push_str(&format!("{line}\n"));
            failed_named(r, &mut text, &digest);
        }
        if !self.quiet {
            // `ignored` only when a review ignored rows: most portfolios never do.
            let statuses = RowStatus::ALL
                .iter()
                .filter(|s| **s != RowStatus::Ignored || run.rows_with(**s) > 0)
                .map(|st| l.status_count(run.rows_with(*st), *st))
                .collect::<Vec<_>>()
                .join(", ");
            let line = l.text(
                "run-line",
                &[
                    ("run", run_id),
                    ("portfolio", portfolio),
                    ("state", s(state)),
                    ("rows", s(rows(run.rows))),
                    ("statuses", s(statuses)),
                ],
            );
            text.push_str(&format!("{line}\n"));
            if !run.by_color.is_empty() {
                let colors = run
                    .by_color
                    .iter()
                    .map(|(c, count)| l.color_count(*count, &crate::model::Color::parse(c)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let line = l.text("colors-line", &[("list", s(colors))]);
                text.push_str(&format!("{line}\n"));
            }
            if let Some(line) = digest.figures.as_ref().and_then(|f| f.at_risk_line(r)) {
                text.push_str(&line);
                text.push('\n');
            }
            if let Some(line) = self.not_screened_line(&digest, &run) {
                text.push_str(&line);
                text.push('\n');
            }
            if !run.calls.is_empty() {
                let total: u64 = run.calls.iter().map(|(_, count)| count).sum();
                let calls = run
                    .calls
                    .iter()
                    .map(|(e, count)| format!("{} {e}", l.number(*count as f64)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let line = l.text("calls-line", &[("total", n(total)), ("list", s(calls))]);
                text.push_str(&format!("{line}\n"));
            }
            if alerts == 0 && rated > 0 {
                // "No red or black company, no color change" only when it is so: the rules
                // (a minimum exposure, `improved = false`) may have left some out.
                let red_or_black = run
                    .by_color
                    .iter()
                    .any(|(c, n)| *n > 0 && (c == "red" || c == "black"));
                let untouched =
                    digest.standing_total() + digest.acked + digest.changed == 0 && !red_or_black;
                let line = match (untouched, unscreened(r, &run)) {
                    (true, None) => l.word("nothing-flagged"),
                    (false, None) => l.word("nothing-new-flagged"),
                    (true, Some(u)) => l.text("none-flagged-but", &[("why", s(u))]),
                    (false, Some(u)) => l.text("none-newly-flagged-but", &[("why", s(u))]),
                };
                text.push_str(&format!("{line}\n"));
            }
        }
        if alerts > 0 {
            text.push_str(&digest.totals_line(r));
            text.push_str(":\n");
            for line in alert_table(r, &digest, listed, self.page.as_ref()).lines() {
                text.push_str("  ");
                text.push_str(line);
                text.push('\n');
            }
            if unlisted > 0 {
                text.push_str(&format!("  {}\n", more_in_reports(unlisted)));
            }
        }
        // Customers nobody monitors are named even under --quiet: the night they fall out,
        // and again on the schedule of standing alerts (`run_rows.named`). Without
        // --quiet every one is counted or named below, every night.
        if self.quiet {
            for (status, count, refs) in &self.named {
                if *count == 0 {
                    continue;
                }
                let more = if *count > refs.len() as u64 {
                    ", …"
                } else {
                    ""
                };
                let why = l.word(match status {
                    RowStatus::Invalid => "why-invalid",
                    RowStatus::Unresolved => "why-unresolved",
                    _ => "why-ambiguous",
                });
                let line = l.text(
                    "not-screened-named",
                    &[
                        ("rows", s(rows_of_status(r, *status, *count))),
                        ("refs", s(format!("{}{more}", refs.join(", ")))),
                        ("why", s(why)),
                    ],
                );
                text.push_str(&format!("{line}\n"));
            }
            // A quiet summary that says anything says who is not screened, in one line.
            if !text.is_empty()
                && let Some(line) = self.not_screened_line(&digest, &run)
            {
                text.push_str(&line);
                text.push('\n');
            }
        }
        // Standing red and black, one line per color, and the changes only counted: under
        // --quiet only beside news, never making a quiet night print.
        if !self.quiet || alerts > 0 {
            if let Some(line) = digest.figures.as_ref().and_then(|f| f.left_out_line(r)) {
                text.push_str(&line);
                text.push('\n');
            }
            for line in digest.standing_lines(r) {
                text.push_str(&line);
                text.push('\n');
            }
            if let Some(line) = digest.counted_line(r) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        if !self.quiet {
            if digest.acked > 0 {
                let line = l.text("acked-line", &[("count", n(digest.acked))]);
                text.push_str(&format!("{line}\n"));
            }
            for (status, first) in [
                (RowStatus::Unresolved, &self.unresolved),
                (RowStatus::Invalid, &self.invalid),
            ] {
                if first.is_empty() {
                    continue;
                }
                let more = run.rows_with(status).saturating_sub(first.len() as u64);
                let heading = rows_of_status(r, status, run.rows_with(status));
                text.push_str(&format!("{heading}:\n"));
                for row in first {
                    text.push_str(&format!("  {row}\n"));
                }
                if more > 0 {
                    text.push_str(&format!("  {}\n", more_in_reports(more)));
                }
            }
            if self.stale > 0 {
                let line = l.text(
                    "stale-line",
                    &[
                        ("count", n(self.stale)),
                        ("days", n(self.stale_after_days.into())),
                    ],
                );
                text.push_str(&format!("{line}\n"));
            }
            let ambiguous = run.rows_with(RowStatus::Ambiguous);
            if ambiguous > 0 {
                let line = l.text("ambiguous-line", &[("count", n(ambiguous))]);
                text.push_str(&format!("{line}\n"));
            }
            if self.over_budget > 0 {
                let flag = if self.over_month_budget {
                    "--max-calls-per-month"
                } else {
                    "--max-calls"
                };
                let line = l.text(
                    "budget-line",
                    &[("count", n(self.over_budget)), ("flag", s(flag))],
                );
                text.push_str(&format!("{line}\n"));
            }
            let other_failures = failed - self.over_budget.min(failed);
            if other_failures > 0 {
                let line = l.text("failures-line", &[("count", n(other_failures))]);
                text.push_str(&format!("{line}\n"));
            }
            failed_named(r, &mut text, &digest);
            if !self.reports.is_empty() {
                let line = l.text("reports-line", &[("list", s(self.reports.join(", ")))]);
                text.push_str(&format!("{line}\n"));
            }
        }
        // Every mail opens with one heading line; under --quiet, only a mail that says
        // something.
        if !self.quiet || !text.is_empty() {
            let heading = Heading {
                started_at: run.started_at,
                portfolio: run.portfolio.clone(),
                run_id: run.id,
                // Absolute, for a mail read on another machine than the one it ran on.
                report: self.reports.iter().find(|p| p.ends_with(".html")).map(|p| {
                    match std::path::absolute(p) {
                        Ok(path) => path.display().to_string(),
                        Err(_) => p.clone(),
                    }
                }),
            };
            if let Some(page) = &self.page {
                let line = l.text("inbox-line", &[("url", s(page.inbox()))]);
                text.insert_str(0, &format!("{line}\n"));
            }
            text.insert_str(0, &format!("{}\n", heading.said(r)));
        }
        // The rows' and the run's texts are printable already; this catches the rest
        // (a path, a note) before a terminal or a mail reads it.
        self.out
            .write_all(crate::text::printable_text(&text).as_bytes())?;
        self.out.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{AlertLine, Standing};
    use crate::model::{AlertKind, Color};

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

    fn alert(line: u64, from: Option<Color>, to: Color, kind: AlertKind) -> AlertLine {
        AlertLine {
            kind,
            company_id: format!("company-{line}"),
            refs: format!("C-{line}"),
            company: "Acme SA".into(),
            country: Some("FR".into()),
            color: Some(to),
            previous: from,
            last_refresh_date: None,
            shown: vec![],
            amount: None,
        }
    }

    /// `n` companies gone from green to yellow, on lines 2 onwards.
    fn yellowing(n: u64) -> Vec<AlertLine> {
        (0..n)
            .map(|i| {
                alert(
                    i + 2,
                    Some(Color::Green),
                    Color::Yellow,
                    AlertKind::Deteriorated,
                )
            })
            .collect()
    }

    fn digest(listed: Vec<AlertLine>) -> AlertDigest {
        AlertDigest {
            listed_total: listed.len() as u64,
            listed,
            ..AlertDigest::default()
        }
    }

    fn render_with(run: RunInfo, rows: &[ResultRow], digest: AlertDigest, quiet: bool) -> String {
        let mut buf = Vec::new();
        let mut s = Box::new(Summary::new(
            &mut buf,
            quiet,
            vec!["./report.csv".into()],
            30,
            digest,
            None,
            Reader::default(),
        ));
        s.begin(&run).unwrap();
        for r in rows {
            s.row(r).unwrap();
        }
        s.finish().unwrap();
        let text = String::from_utf8(buf).unwrap();
        // Every summary that says anything opens with its heading; the tests read the rest.
        match text.split_once('\n') {
            Some((heading, rest)) => {
                assert_eq!(
                    heading, "ratewatch 2026-11-21 · customers · run 3",
                    "{text}"
                );
                rest.to_string()
            }
            None => text,
        }
    }

    fn render(run: RunInfo, rows: &[ResultRow], quiet: bool) -> String {
        render_with(run, rows, AlertDigest::default(), quiet)
    }

    fn row(line: u64) -> ResultRow {
        ResultRow {
            reference: Some(format!("C-{line}")),
            ..ResultRow::example(line)
        }
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
        let alerts = digest(vec![
            alert(2, Some(Color::Yellow), Color::Red, AlertKind::Red),
            alert(5, Some(Color::Black), Color::Black, AlertKind::Still),
        ]);
        let text = render_with(run(10, 1), &[], alerts.clone(), false);
        assert!(text.starts_with(
            "ratewatch run 3 of customers (PARTIAL: 1 row failed and will be retried next run)"
        ));
        assert!(text.contains("2 alerts, worst first"), "{text}");
        let line = text.lines().find(|l| l.contains("C-2")).unwrap();
        assert!(
            line.contains("Acme SA")
                && line.contains("FR")
                && line.contains("yellow → red")
                && line.contains("into red"),
            "{line}"
        );
        assert!(text.contains("black (still)"));
        let mut evil = alert(9, Some(Color::Green), Color::Red, AlertKind::Red);
        evil.company = "Acme\u{1b}[2J\r\nSA".into();
        let text = render_with(run(10, 0), &[], digest(vec![evil]), false);
        assert!(
            !text.contains('\u{1b}') && text.contains("Acme [2J  SA"),
            "{text}"
        );
        let quiet = render_with(run(10, 1), &[], alerts, true);
        assert_eq!(
            quiet.lines().count(),
            5,
            "the failed rows, the alerts' count, the table's header and two alerts: {quiet}"
        );
        assert!(quiet.starts_with(
            "ratewatch run 3 of customers: PARTIAL: 1 row failed and will be retried next run\n"
        ));
    }

    #[test]
    fn standing_and_acknowledged_alerts_are_counted_and_a_quiet_night_stays_quiet() {
        let mut top = alert(7, None, Color::Red, AlertKind::Still);
        top.amount = Some(120_000.0);
        let counted = AlertDigest {
            standing: vec![Standing {
                color: Color::Red,
                count: 4,
                amount: Some(310_000.0),
                top: vec![top],
            }],
            acked: 1,
            amount_column: Some("Encours (€)".into()),
            ..AlertDigest::default()
        };
        let text = render_with(run(10, 0), &[], counted.clone(), false);
        assert!(text.contains("Nothing new flagged"), "{text}");
        assert!(
            text.contains(
                "still red: 4 companies, 310 000 at stake (Encours (€)); largest: C-7 Acme SA (120 000)\n"
            ),
            "{text}"
        );
        assert!(text.contains("1 alert acknowledged"), "{text}");
        assert_eq!(render_with(run(10, 0), &[], counted, true), "");
    }

    #[test]
    fn red_companies_or_changes_the_rules_left_out_are_not_called_nothing() {
        let red = RunInfo {
            by_color: vec![("green".into(), 9), ("red".into(), 1)],
            ..run(10, 0)
        };
        let text = render(red, &[], false);
        assert!(text.contains("Nothing new flagged"), "{text}");
        let changed = AlertDigest {
            changed: 1,
            ..AlertDigest::default()
        };
        let text = render_with(run(10, 0), &[], changed, false);
        assert!(text.contains("Nothing new flagged"), "{text}");
    }

    #[test]
    fn a_storm_is_announced_first_and_only_the_worst_are_listed() {
        let stormy = AlertDigest {
            storm: Some((312, 1480)),
            listed_total: 60,
            ..digest(yellowing(10))
        };
        for quiet in [false, true] {
            let text = render_with(run(1480, 0), &[], stormy.clone(), quiet);
            assert!(
                text.starts_with("STORM: 312 of 1480 companies changed color in this run: likely a change of method at the source; the 10 worst are listed"),
                "{text}"
            );
            assert!(text.contains("… and 50 more in the reports"), "{text}");
        }
    }

    #[test]
    fn the_first_unresolved_and_invalid_rows_are_named_with_why() {
        let mut rows = Vec::new();
        for line in 2..10 {
            let mut r = row(line);
            r.status = RowStatus::Unresolved;
            r.error = Some("no company matches".into());
            rows.push(r);
        }
        let mut bad = row(12);
        bad.status = RowStatus::Invalid;
        bad.error = Some("country: \"Frnace\" is not a country code; did you mean FR?".into());
        rows.push(bad);
        let info = RunInfo {
            by_status: RowStatus::ALL
                .iter()
                .map(|s| {
                    let n = match s {
                        RowStatus::Unresolved => 8,
                        RowStatus::Invalid => 1,
                        RowStatus::Rated => 1,
                        _ => 0,
                    };
                    (*s, n)
                })
                .collect(),
            ..run(10, 0)
        };
        let text = render(info, &rows, false);
        assert!(
            text.contains("8 unresolved rows:\n  C-2 (line 2): no company matches\n"),
            "{text}"
        );
        assert!(text.contains("  … and 3 more in the reports"), "{text}");
        assert!(
            text.contains("1 invalid row:\n  C-12 (line 12): country: \"Frnace\" is not a country code; did you mean FR?"),
            "{text}"
        );
    }

    #[test]
    fn a_run_that_rated_nobody_is_never_called_quiet() {
        let mut nobody = run(5, 0);
        nobody.by_status = RowStatus::ALL
            .iter()
            .map(|s| (*s, if *s == RowStatus::Unresolved { 5 } else { 0 }))
            .collect();
        nobody.by_color.clear();
        assert_eq!(
            unscreened(crate::locale::english(), &nobody).as_deref(),
            Some("not one of the 5 rows could be rated (NOTHING SCREENED)")
        );
        let text = render(nobody, &[], true);
        assert!(text.starts_with("NOTHING SCREENED"), "{text}");
        assert!(!text.contains("flagged"), "{text}");
        assert_eq!(unscreened(crate::locale::english(), &run(5, 0)), None);
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
    fn a_run_that_did_not_screen_every_row_never_says_nothing_flagged() {
        // Partial: 2 of 3 rows failed, the one rated is green.
        let text = render(run(3, 2), &[], false);
        assert!(
            text.contains("(PARTIAL: 2 rows failed and will be retried"),
            "{text}"
        );
        assert!(!text.contains("Nothing flagged"), "{text}");
        assert!(
            text.contains("None flagged among the rows screened (no red or black company, no color change), but 2 rows were not screened.\n"),
            "{text}"
        );
        let one = render(run(3, 1), &[], false);
        assert!(one.contains("but 1 row was not screened.\n"), "{one}");
        // Rules that leave changes out say so of the rows screened only.
        let changed = AlertDigest {
            changed: 1,
            ..AlertDigest::default()
        };
        let text = render_with(run(3, 2), &[], changed, false);
        assert!(!text.contains("Nothing new flagged"), "{text}");
        assert!(
            text.contains("None newly flagged among the rows screened (no color change the rules alert on), but 2 rows were not screened.\n"),
            "{text}"
        );
        // Not complete, no row failed: the rows it never reached are not answered for.
        for status in [
            RunStatus::Interrupted,
            RunStatus::Running,
            RunStatus::Failed,
        ] {
            let text = render(
                RunInfo {
                    status,
                    ..run(3, 0)
                },
                &[],
                false,
            );
            assert!(!text.contains("Nothing flagged"), "{text}");
            assert!(
                text.contains(&format!("but the run is {status}: rows may be missing.\n")),
                "{text}"
            );
        }
    }

    #[test]
    fn a_heading_in_capitals_is_loud_whatever_its_words() {
        for loud in [
            "STOPPED: x",
            "CHECK THE FILE: x",
            "EXTRA FIELDS: 1 row",
            "NOTE: x",
        ] {
            assert!(is_loud(loud), "{loud}");
        }
        for remark in [
            "columns not used: x",
            " NOTE: x",
            "Note: x",
            "no colon",
            ": x",
        ] {
            assert!(!is_loud(remark), "{remark}");
        }
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
    fn a_quiet_partial_night_names_its_failed_rows_and_says_who_is_not_screened() {
        use crate::digest::{FailedRow, Figures, NotScreened, Share};
        let failed = |line: u64, amount: f64| FailedRow {
            line,
            reference: Some(format!("C-{line}")),
            what: None,
            amount: Some(amount),
            error: Some("HTTP 503".into()),
        };
        let figures = Figures {
            amount_column: Some("Encours".into()),
            not_screened: vec![NotScreened {
                status: RowStatus::Failed,
                rows: Share {
                    count: 3,
                    amount: Some(60_000.0),
                },
            }],
            failed: vec![failed(9, 40_000.0), failed(4, 15_000.0)],
            ..Figures::default()
        };
        let digest = AlertDigest {
            figures: Some(figures),
            ..AlertDigest::default()
        };
        let quiet = render_with(run(10, 3), &[], digest.clone(), true);
        assert_eq!(
            quiet,
            "ratewatch run 3 of customers: PARTIAL: 3 rows failed and will be retried next run\n\
             3 failed rows, largest first, retried next run:\n  \
             C-9 (line 9): 40 000 — HTTP 503\n  C-4 (line 4): 15 000 — HTTP 503\n  \
             … and 1 more in the reports\n\
             not screened: 3 failed (60 000): 3 rows, 60 000 (Encours)\n"
        );
        let loud = render_with(run(10, 3), &[], digest, false);
        assert!(
            loud.contains("\nnot screened: 3 failed (60 000): 3 rows, 60 000 (Encours)\n"),
            "{loud}"
        );
        assert!(
            loud.contains("  C-9 (line 9): 40 000 — HTTP 503\n"),
            "{loud}"
        );
        // A night with nothing to say stays silent, figures or not.
        let silent = AlertDigest {
            figures: Some(Figures::default()),
            ..AlertDigest::default()
        };
        assert_eq!(render_with(run(10, 0), &[], silent, true), "");
    }

    #[test]
    fn rows_left_out_by_the_call_budget_are_not_called_errors() {
        let mut over = row(7);
        over.status = RowStatus::Failed;
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
        let gone = alert(4, None, Color::Red, AlertKind::Gone);
        let orange = alert(6, None, Color::Other("orange".into()), AlertKind::Unknown);
        let text = render_with(run(10, 0), &[], digest(vec![gone, orange]), false);
        let line = |r: &str| text.lines().find(|l| l.contains(r)).unwrap().to_string();
        assert!(line("C-4").contains("red → gone"), "{text}");
        assert!(line("C-6").contains("unknown color orange"), "{text}");
    }

    #[test]
    fn each_alert_shows_the_day_its_rating_was_last_recalculated() {
        let mut red = alert(2, Some(Color::Yellow), Color::Red, AlertKind::Red);
        red.last_refresh_date = Some(crate::model::time("2026-11-20T01:47:12Z"));
        let undated = alert(3, Some(Color::Black), Color::Black, AlertKind::Still);
        let text = render_with(run(10, 0), &[], digest(vec![red, undated]), false);
        let header = text.lines().find(|l| l.contains("REF")).unwrap();
        assert!(header.trim_end().ends_with("REFRESHED"), "{header}");
        let line = |r: &str| text.lines().find(|l| l.contains(r)).unwrap().to_string();
        assert!(line("C-2").trim_end().ends_with("2026-11-20"), "{text}");
        assert!(!text.contains("01:47:12"), "the day only: {text}");
        assert!(line("C-3").trim_end().ends_with('-'), "{text}");
    }

    #[test]
    fn stale_ratings_are_counted_in_one_line_except_when_quiet() {
        let stale = |line: u64| ResultRow {
            last_refresh_date: Some(crate::model::time("2026-09-01T01:30:00Z")),
            stale: true,
            ..row(line)
        };
        let rows = [stale(2), stale(3), stale(4)];
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

        let one = render(run(10, 0), &rows[..1], false);
        assert!(one.contains("1 rating not recalculated for more than 30 days (stale)"));
        let fresh = render(run(10, 0), &[row(2)], false);
        assert!(!fresh.contains("stale"), "{fresh}");
    }

    #[test]
    fn alerts_beyond_the_lines_are_counted_by_kind() {
        let mut capped = digest(yellowing(20));
        capped.listed_total = 300;
        capped.kinds = vec![crate::digest::KindTotal {
            kind: AlertKind::Deteriorated,
            count: 300,
            first_screenings: 0,
            amount: None,
        }];
        let text = render_with(run(300, 0), &[], capped, false);
        assert!(
            text.contains("300 alerts, worst first; 20 listed: 300 deteriorated:\n"),
            "{text}"
        );
        assert!(text.contains("… and 280 more in the reports"), "{text}");
        assert!(text.lines().count() < 35, "{text}");
    }
}
