//! What a run's alerts say to a person, the same in every channel (the summary, report.html,
//! the email, the chat webhooks, `alerts test`): one heading line, the alerts listed one per
//! line with the carried columns that `[alerts] show` names, what each kind puts at stake,
//! the standing red and black as one line per color, and the changes that are only counted.
//!
//! The store reads a run's digest (`Store::alert_digest`, by the rules of `[alerts]`); the
//! channels lay it out. The words and numbers are made here once, so a mail, a Slack
//! message and the summary never disagree.

use jiff::Timestamp;

use crate::links::PageUrl;
use crate::locale::{Arg, Currency, Reader};
use crate::model::{AlertKind, Color, RowStatus};
use crate::text::printable;

/// A count given to a message, choosing its plural form.
fn n(count: u64) -> Arg<'static> {
    count.into()
}

/// A text given to a message.
fn s<'a>(text: impl Into<String>) -> Arg<'a> {
    Arg::from(text.into())
}

/// An amount as the reader writes it, with the currency its column's header names.
pub fn amount_in(r: &Reader, amount: f64, column: Option<&str>) -> String {
    r.locale
        .amount(amount, column.and_then(Currency::of_header))
}

/// The line every listed mail and message opens with: when, which portfolio, which run,
/// and where its report.html is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// The run's start (its day in UTC is shown).
    pub started_at: Timestamp,
    pub portfolio: String,
    pub run_id: i64,
    /// The path of the run's report.html, when the reports are written to files.
    pub report: Option<String>,
}

impl Heading {
    /// `ratewatch 2026-11-26 · customers · run 34 · /var/lib/ratewatch/reports/2026-11-26/report.html`,
    /// in English and UTC: the webhook's JSON carries it for programs.
    pub fn line(&self) -> String {
        self.said(&Reader::default())
    }

    /// The line as the reader reads it: `ratewatch 27/11/2026 02:00 CET · clients ·
    /// passage 34`.
    pub fn said(&self, r: &Reader) -> String {
        let mut line = r.locale.text(
            "heading",
            &[
                ("when", s(r.moment(self.started_at))),
                ("portfolio", s(printable(&self.portfolio))),
                ("run", s(self.run_id.to_string())),
            ],
        );
        if let Some(report) = &self.report {
            line.push_str(" · ");
            line.push_str(&printable(report));
        }
        line
    }
}

/// One company listed as an alert.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertLine {
    pub kind: AlertKind,
    /// The service's id of the company.
    pub company_id: String,
    /// The refs of the rows that hold the company (`C-1001, C-1002`), or `line N`.
    pub refs: String,
    pub company: String,
    pub country: Option<String>,
    pub color: Option<Color>,
    pub previous: Option<Color>,
    pub last_refresh_date: Option<Timestamp>,
    /// The carried columns that `[alerts] show` names, as the company's first row has
    /// them: (header, value), in the order of the setting.
    pub shown: Vec<(String, String)>,
    /// The amount at stake: the amount column summed over the company's rows in the run;
    /// `None` when no amount column is named or no row holds a readable amount.
    pub amount: Option<f64>,
}

impl AlertLine {
    /// What the alert says about the color: `yellow → red`, or `red` with why it is listed.
    pub fn movement(&self, r: &Reader) -> String {
        let l = r.locale;
        let now = self.color.as_ref().map_or("?".to_string(), |c| l.color(c));
        let said = |id| l.text(id, &[("now", s(now.clone()))]);
        match (self.kind, &self.previous) {
            (AlertKind::Gone, _) => said("move-gone"),
            (AlertKind::Unknown, _) => said("move-unknown"),
            (AlertKind::Still, _) => said("move-still"),
            (_, Some(before)) => format!("{} → {now}", l.color(before)),
            (_, None) => said("move-first"),
        }
    }

    /// Why it is listed, in words: `into red`, or `red at first screening` for a company
    /// red or black when first rated, which is no news of a change.
    pub fn kind_said(&self, r: &Reader) -> String {
        match (self.kind, &self.previous) {
            (AlertKind::Red | AlertKind::Black, None) => r.locale.text(
                "at-first-screening",
                &[("color", s(r.locale.color(&kind_color(self.kind))))],
            ),
            (kind, _) => r.locale.kind(kind),
        }
    }

    /// A company that came into red or black by a change tonight: listed whatever the cap.
    pub fn is_new_red_or_black(&self) -> bool {
        matches!(self.kind, AlertKind::Red | AlertKind::Black) && self.previous.is_some()
    }

    /// The value shown for a column: for the amount column, the company's amount summed
    /// over its rows (`150 000`); for another, the first row's text as written.
    pub fn shown_value(&self, r: &Reader, header: &str, amount_column: Option<&str>) -> String {
        if amount_column.is_some_and(|c| same_column(c, header))
            && let Some(amount) = self.amount
        {
            return amount_in(r, amount, amount_column);
        }
        self.shown
            .iter()
            .find(|(h, _)| h == header)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
}

/// The color a kind of alert names (`red` for into red).
fn kind_color(kind: AlertKind) -> Color {
    Color::parse(kind.as_str())
}

/// Whether two headers name the same column, as `[alerts]` compares them.
pub fn same_column(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The alerts of one kind: how many the rules made, and what they put at stake.
#[derive(Debug, Clone, PartialEq)]
pub struct KindTotal {
    pub kind: AlertKind,
    /// Alerts of this kind that are news or listed again, whether or not the cap left room
    /// for each of them.
    pub count: u64,
    /// Of which first screenings (red or black at a company's first rating).
    pub first_screenings: u64,
    pub amount: Option<f64>,
}

/// Standing red or black companies, said in one line: how many, what is at stake, and the
/// largest few.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub color: Color,
    pub count: u64,
    pub amount: Option<f64>,
    /// The largest by amount (or the first in the file, without an amount), a few.
    pub top: Vec<AlertLine>,
}

/// How many of a standing color's companies its line names.
pub const STANDING_TOP: usize = 3;

/// What a run's alerts say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertDigest {
    /// The alerts listed one per line: every new red and black, then the others worst
    /// first and, within a kind, largest amount first, up to `[alerts] max_listed`.
    pub listed: Vec<AlertLine>,
    /// Every alert the rules list (news, and standing ones listed again): the run's
    /// `alerts`. Those beyond [`AlertDigest::listed`] are counted.
    pub listed_total: u64,
    /// The listed alerts by kind, worst first.
    pub kinds: Vec<KindTotal>,
    /// Standing red and black not listed one by one, one entry per color (black first).
    pub standing: Vec<Standing>,
    /// Changes the rules count without listing them (`improved = "count"`), by kind.
    pub counted: Vec<(AlertKind, u64)>,
    /// Alerts an acknowledgement took out of the list.
    pub acked: u64,
    /// Companies whose color changed, and companies rated, when the share is a storm.
    pub storm: Option<(u64, u64)>,
    /// Companies whose color changed in the run, alerts or not: a night whose changes the
    /// rules left out is not a night without change.
    pub changed: u64,
    /// The headers of the carried columns shown with each alert (`[alerts] show`).
    pub columns: Vec<String>,
    /// The header of the amount column, when one is named.
    pub amount_column: Option<String>,
    /// The run's figures, for the channels that say them (`Store::figures`); `None` when
    /// they were not read.
    pub figures: Option<Figures>,
}

impl AlertDigest {
    /// Listed alerts the cap left out of the lines: counted, and in the reports.
    pub fn unlisted(&self) -> u64 {
        self.listed_total.saturating_sub(self.listed.len() as u64)
    }

    /// Standing companies not listed one by one.
    pub fn standing_total(&self) -> u64 {
        self.standing.iter().map(|s| s.count).sum()
    }

    /// The line that heads the listed alerts: `181 alerts, worst first; 20 listed: 12 black
    /// at first screening (1 204 000 at stake), 169 red (3 into red, 166 at first
    /// screening; …)`: a first screening is never called a change.
    pub fn totals_line(&self, r: &Reader) -> String {
        let l = r.locale;
        let mut line = l.text("alerts-worst-first", &[("count", n(self.listed_total))]);
        if self.unlisted() > 0 {
            line.push_str("; ");
            line.push_str(&l.text("listed-count", &[("count", n(self.listed.len() as u64))]));
        }
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .filter(|k| k.count > 0)
            .map(|k| {
                let first = k.first_screenings.min(k.count);
                let stake = k.amount.map(|a| {
                    let amount = amount_in(r, a, self.amount_column.as_deref());
                    l.text("at-stake", &[("amount", s(amount))])
                });
                if first == 0 {
                    let mut part = l.kind_count(k.count, k.kind);
                    if let Some(stake) = stake {
                        part.push_str(&format!(" ({stake})"));
                    }
                    return part;
                }
                let color = kind_color(k.kind);
                if first == k.count {
                    let colored = l.color_count(first, &color);
                    let mut part = l.text("at-first-screening", &[("color", s(colored))]);
                    if let Some(stake) = stake {
                        part.push_str(&format!(" ({stake})"));
                    }
                    return part;
                }
                let stake = stake.map(|s| format!("; {s}")).unwrap_or_default();
                l.text(
                    "kind-mixed",
                    &[
                        ("colored", s(l.color_count(k.count, &color))),
                        ("changed", s(l.kind_count(k.count - first, k.kind))),
                        ("first", n(first)),
                        ("stake", s(stake)),
                    ],
                )
            })
            .collect();
        if self.amount_column.is_some() || self.kinds.len() > 1 || self.unlisted() > 0 {
            line.push_str(": ");
            line.push_str(&kinds.join(", "));
        }
        line
    }

    /// `still red: 187 companies, 4 210 000 at stake (Encours (€)); largest: C-1001 Zhao
    /// Robotique SA (300 000), …` — one line per standing color.
    pub fn standing_lines(&self, r: &Reader) -> Vec<String> {
        let l = r.locale;
        let column = self.amount_column.as_deref();
        self.standing
            .iter()
            .filter(|st| st.count > 0)
            .map(|st| {
                let mut line = l.text(
                    "still-line",
                    &[("color", s(l.color(&st.color))), ("count", n(st.count))],
                );
                if let (Some(amount), Some(column)) = (st.amount, column) {
                    line.push_str(", ");
                    line.push_str(&l.text(
                        "at-stake-of",
                        &[
                            ("amount", s(amount_in(r, amount, Some(column)))),
                            ("column", s(printable(column))),
                        ],
                    ));
                }
                if !st.top.is_empty() {
                    let by = l.word(if st.amount.is_some() {
                        "standing-largest"
                    } else {
                        "standing-first"
                    });
                    let named: Vec<String> = st
                        .top
                        .iter()
                        .map(|a| {
                            // Its first ref: the line stays one a mail shows whole.
                            let first = a.refs.split(", ").next().unwrap_or_default();
                            let mut who = printable(first);
                            if !a.company.is_empty() {
                                who.push(' ');
                                who.push_str(&printable(&a.company));
                            }
                            if let Some(amount) = a.amount {
                                who.push_str(&format!(" ({})", amount_in(r, amount, column)));
                            }
                            who
                        })
                        .collect();
                    line.push_str(&format!("; {by}: {}", named.join(", ")));
                }
                line
            })
            .collect()
    }

    /// `counted, not listed: 3 changed to or from white, 8 improved`, when any.
    pub fn counted_line(&self, r: &Reader) -> Option<String> {
        let l = r.locale;
        let parts: Vec<String> = self
            .counted
            .iter()
            .filter(|(_, count)| *count > 0)
            .map(|(kind, count)| match kind {
                AlertKind::Changed => l.text("counted-white", &[("count", n(*count))]),
                AlertKind::White => format!("{} {}", l.number(*count as f64), l.kind(*kind)),
                kind => l.kind_count(*count, *kind),
            })
            .collect();
        (!parts.is_empty()).then(|| l.text("counted-line", &[("list", s(parts.join(", ")))]))
    }
}

/// A run's red and black and its rows not screened, each figure defined once and said in
/// the same words by every channel (the summary, report.html, the page, the mail, Slack,
/// Teams) and by the trend:
///
/// - **red**, **black**: rated rows of that color;
/// - **came into red (black)**: rated rows whose company turned that color in the run by a
///   change of color, never at its first screening (the trend's bars);
/// - **at risk**: the amount column summed over the red and black rated rows, every one of
///   them (the trend's amount at risk);
/// - what of it the alerts hold, and what they leave out, in words: rows under
///   `[alerts] min_exposure`, companies acknowledged;
/// - the rows not screened, by status, with the amount they hold, and the failed ones
///   named, largest amount first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub red: u64,
    pub black: u64,
    pub new_red: u64,
    pub new_black: u64,
    /// `None` without an amount column, or for a run that kept no amounts.
    pub at_risk: Option<f64>,
    /// The header of the amount column (`[alerts] amount`, else `min_exposure`'s).
    pub amount_column: Option<String>,
    /// `[alerts] min_exposure` as it applied to the run: (column, value).
    pub threshold: Option<(String, f64)>,
    /// Red and black companies the alerts hold, listed or standing, and their amount.
    pub alerted: Share,
    /// Red and black companies an acknowledgement took out of the alerts.
    pub acknowledged: Share,
    /// Red and black rows no alert holds: under the threshold, or left out by the rules.
    pub left_out: Share,
    /// Rows not screened, by status ([`NOT_SCREENED`] order), zero counts left out.
    pub not_screened: Vec<NotScreened>,
    /// Failed rows, largest amount first (the file's order without amounts), at most
    /// `[alerts] max_listed`.
    pub failed: Vec<FailedRow>,
}

/// How many, and the amount they hold (`None`: no amount column, or none readable).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Share {
    pub count: u64,
    pub amount: Option<f64>,
}

impl Share {
    /// Adds one, holding `amount` when it is read.
    pub fn add(&mut self, amount: Option<f64>) {
        self.count += 1;
        if let Some(amount) = amount {
            *self.amount.get_or_insert(0.0) += amount;
        }
    }
}

/// The statuses of rows not screened, in the order every channel says them.
pub const NOT_SCREENED: [RowStatus; 5] = [
    RowStatus::Unresolved,
    RowStatus::Ambiguous,
    RowStatus::Invalid,
    RowStatus::Ignored,
    RowStatus::Failed,
];

/// Rows of one status that were not screened, and the amount they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct NotScreened {
    pub status: RowStatus,
    pub rows: Share,
}

/// A row that failed, as a partial night names it.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedRow {
    pub line: u64,
    pub reference: Option<String>,
    /// The company's name, the row's name, or its registry identifier (`SIREN 552100554`).
    pub what: Option<String>,
    pub amount: Option<f64>,
    pub error: Option<String>,
}

impl Figures {
    /// Rows not screened, every status together.
    pub fn not_screened_total(&self) -> Share {
        let mut total = Share::default();
        for n in &self.not_screened {
            total.count += n.rows.count;
            if let Some(amount) = n.rows.amount {
                *total.amount.get_or_insert(0.0) += amount;
            }
        }
        total
    }

    /// Failed rows in all, named or not.
    pub fn failed_total(&self) -> u64 {
        self.not_screened
            .iter()
            .find(|n| n.status == RowStatus::Failed)
            .map_or(0, |n| n.rows.count)
    }

    /// ` (Encours (€))`, or nothing without an amount column.
    fn of_column(&self) -> String {
        self.amount_column
            .as_deref()
            .map(|c| format!(" ({})", printable(c)))
            .unwrap_or_default()
    }

    /// An amount of the amount column, as the reader writes it.
    fn amount(&self, r: &Reader, amount: f64) -> String {
        amount_in(r, amount, self.amount_column.as_deref())
    }

    /// `at risk: 198 red and 12 black rows, 4 405 397 (Encours (€)); came into red tonight:
    /// 10 rows, into black: 2 (color changes, not first screenings)`; `None` when no row is
    /// red or black (then "no red or black company" says it).
    pub fn at_risk_line(&self, r: &Reader) -> Option<String> {
        if self.red + self.black == 0 {
            return None;
        }
        let l = r.locale;
        let mut line = l.text(
            "at-risk",
            &[
                ("red", n(self.red)),
                ("black", n(self.black)),
                ("total", n(self.red + self.black)),
            ],
        );
        if let Some(amount) = self.at_risk {
            line.push_str(&format!(", {}{}", self.amount(r, amount), self.of_column()));
        }
        line.push_str("; ");
        line.push_str(&l.text(
            "came-into",
            &[("red", n(self.new_red)), ("black", n(self.new_black))],
        ));
        Some(line)
    }

    /// What the alerts leave out of the red and black, said when anything can be:
    /// `the alerts hold 3 809 536 of it and leave out 114 red or black rows under 50 000
    /// (Encours (€), [alerts] min_exposure), 475 861, and 5 acknowledged companies, 120 000`
    pub fn left_out_line(&self, r: &Reader) -> Option<String> {
        if self.red + self.black == 0 {
            return None;
        }
        let l = r.locale;
        let amount = |share: &Share| {
            share
                .amount
                .filter(|_| self.at_risk.is_some())
                .map(|a| format!(", {}", self.amount(r, a)))
                .unwrap_or_default()
        };
        let mut parts = Vec::new();
        let rows = l.text("red-or-black-rows", &[("count", n(self.left_out.count))]);
        match &self.threshold {
            Some((column, value)) if self.left_out.count > 0 => parts.push(format!(
                "{}{}",
                l.text(
                    "left-under",
                    &[
                        ("rows", s(rows)),
                        ("value", s(amount_in(r, *value, Some(column)))),
                        ("column", s(printable(column))),
                    ],
                ),
                amount(&self.left_out)
            )),
            None if self.left_out.count > 0 => parts.push(format!(
                "{}{}",
                l.text("left-by-rules", &[("rows", s(rows))]),
                amount(&self.left_out)
            )),
            _ => {}
        }
        if self.acknowledged.count > 0 {
            parts.push(format!(
                "{}{}",
                l.text(
                    "acknowledged-companies",
                    &[("count", n(self.acknowledged.count))]
                ),
                amount(&self.acknowledged)
            ));
        }
        if parts.is_empty() {
            return None;
        }
        let parts = s(parts.join(&format!(", {} ", l.word("and"))));
        Some(match (self.at_risk, self.alerted.amount) {
            (Some(_), held) => l.text(
                "left-out-held",
                &[
                    ("amount", s(self.amount(r, held.unwrap_or(0.0)))),
                    ("parts", parts),
                ],
            ),
            _ => l.text("left-out", &[("parts", parts)]),
        })
    }

    /// `not screened: 2 unresolved (30 000), 1 ambiguous, 5 invalid (200 000), 1 failed
    /// (10 000): 9 rows, 240 000 (Encours (€))`; `None` when every row was screened.
    pub fn not_screened_line(&self, r: &Reader) -> Option<String> {
        let total = self.not_screened_total();
        if total.count == 0 {
            return None;
        }
        let l = r.locale;
        let parts: Vec<String> = self
            .not_screened
            .iter()
            .filter(|ns| ns.rows.count > 0)
            .map(|ns| {
                let mut part = format!(
                    "{} {}",
                    l.number(ns.rows.count as f64),
                    l.row_status(ns.status)
                );
                if let Some(amount) = ns.rows.amount {
                    part.push_str(&format!(" ({})", self.amount(r, amount)));
                }
                part
            })
            .collect();
        let mut line = l.text(
            "not-screened",
            &[("parts", s(parts.join(", "))), ("count", n(total.count))],
        );
        if let Some(amount) = total.amount {
            line.push_str(&format!(", {}{}", self.amount(r, amount), self.of_column()));
        }
        Some(line)
    }

    /// The line over the failed rows named: `3 failed rows, largest first, retried next
    /// run:`; `None` when none failed.
    pub fn failed_heading(&self, r: &Reader) -> Option<String> {
        let total = self.failed_total();
        (total > 0 && !self.failed.is_empty()).then(|| {
            let order = r.locale.word(match self.amount_column {
                Some(_) => "order-largest",
                None => "order-file",
            });
            r.locale.text(
                "failed-heading",
                &[("count", n(total)), ("order", s(order))],
            )
        })
    }

    /// Failed rows beyond those named.
    pub fn failed_unnamed(&self) -> u64 {
        self.failed_total().saturating_sub(self.failed.len() as u64)
    }

    /// `… and 12 more in the reports`, when some failed rows are not named.
    pub fn failed_more_line(&self, r: &Reader) -> Option<String> {
        let more = self.failed_unnamed();
        (more > 0).then(|| r.locale.text("more-in-reports", &[("count", n(more))]))
    }
}

/// Where a row is: `C-1042 (line 43)`, or `line 43` without a ref.
pub fn row_at(r: &Reader, reference: Option<&str>, line: u64) -> String {
    let line = s(line.to_string());
    match reference {
        Some(reference) => r
            .locale
            .text("row-at-line", &[("ref", s(reference)), ("line", line)]),
        None => r.locale.text("row-line", &[("line", line)]),
    }
}

impl FailedRow {
    /// `C-1042 (line 43) Acme SA: 120 000 — service error 503`
    pub fn line_text(&self, r: &Reader, amount_column: Option<&str>) -> String {
        let mut text = row_at(
            r,
            self.reference.as_deref().map(printable).as_deref(),
            self.line,
        );
        if let Some(what) = &self.what {
            text.push(' ');
            text.push_str(&printable(what));
        }
        if let Some(amount) = self.amount {
            text.push_str(&format!(": {}", amount_in(r, amount, amount_column)));
        }
        if let Some(error) = &self.error {
            text.push_str(" — ");
            text.push_str(&printable(error));
        }
        text
    }
}

/// An amount for people in any locale: rounded to the unit, thousands set apart by spaces
/// (`4 210 000`), neither a French nor an English decimal mark to misread.
pub fn format_amount(amount: f64) -> String {
    let rounded = amount.round();
    let negative = rounded < 0.0;
    let digits = format!("{:.0}", rounded.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if negative {
        out.push('-');
    }
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(d);
    }
    out
}

/// The alerts as a text table (the summary, `alerts test`, the email's plain part): a line
/// per company in the order given, with the refs that hold it and the columns shown; and
/// its page, when `page_url` says where `ratewatch serve` is.
pub fn alert_table(
    r: &Reader,
    digest: &AlertDigest,
    lines: &[AlertLine],
    page: Option<&PageUrl>,
) -> String {
    let amount_column = digest.amount_column.as_deref();
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|a| {
            let mut cells = vec![
                a.refs.clone(),
                a.company.clone(),
                a.country.clone().unwrap_or_else(|| "-".into()),
                a.movement(r),
                a.kind_said(r),
            ];
            for column in &digest.columns {
                cells.push(a.shown_value(r, column, amount_column));
            }
            cells.push(refreshed(r, a.last_refresh_date));
            if let Some(page) = page {
                cells.push(page.company(&a.company_id));
            }
            cells.iter().map(|c| printable(c)).collect()
        })
        .collect();
    let mut headers: Vec<String> = ["ref", "company", "country", "color", "alert"]
        .iter()
        .map(|c| r.locale.word(&format!("column-{c}")))
        .collect();
    headers.extend(digest.columns.iter().map(|c| printable(c).to_uppercase()));
    headers.push(r.locale.word("column-refreshed"));
    if page.is_some() {
        headers.push(r.locale.word("column-page"));
    }
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    crate::text::render(&headers, &rows)
}

/// The day the service last recalculated the rating, in the reader's zone (`2026-11-20`
/// in UTC), or `-`.
pub fn refreshed(r: &Reader, date: Option<Timestamp>) -> String {
    date.map_or("-".to_string(), |d| r.date(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Figures {
        Figures {
            red: 198,
            black: 12,
            new_red: 10,
            new_black: 2,
            at_risk: Some(4_405_397.0),
            amount_column: Some("Encours (€)".into()),
            threshold: Some(("Encours (€)".into(), 50_000.0)),
            alerted: Share {
                count: 90,
                amount: Some(3_809_536.0),
            },
            acknowledged: Share {
                count: 5,
                amount: Some(120_000.0),
            },
            left_out: Share {
                count: 114,
                amount: Some(475_861.0),
            },
            not_screened: vec![
                NotScreened {
                    status: RowStatus::Unresolved,
                    rows: Share {
                        count: 2,
                        amount: Some(30_000.0),
                    },
                },
                NotScreened {
                    status: RowStatus::Failed,
                    rows: Share {
                        count: 3,
                        amount: Some(10_000.0),
                    },
                },
            ],
            failed: vec![FailedRow {
                line: 43,
                reference: Some("C-1042".into()),
                what: Some("Acme SA".into()),
                amount: Some(9_000.0),
                error: Some("HTTP 503".into()),
            }],
        }
    }

    #[test]
    fn the_figures_say_what_is_at_risk_and_what_the_alerts_leave_out_in_words() {
        let f = figures();
        assert_eq!(
            f.at_risk_line(crate::locale::english()).unwrap(),
            "at risk: 198 red and 12 black rows, 4 405 397 (Encours (€)); came into red tonight: 10 rows, into black: 2 (color changes, not first screenings)"
        );
        assert_eq!(
            f.left_out_line(crate::locale::english()).unwrap(),
            "the alerts hold 3 809 536 of it and leave out 114 red or black rows under 50 000 (Encours (€), [alerts] min_exposure), 475 861, and 5 acknowledged companies, 120 000"
        );
        // What the alerts hold and leave out adds up to what is at risk.
        let parts = [f.alerted, f.acknowledged, f.left_out];
        let sum: f64 = parts.iter().filter_map(|s| s.amount).sum();
        assert_eq!(Some(sum), f.at_risk);
        assert_eq!(
            f.not_screened_line(crate::locale::english()).unwrap(),
            "not screened: 2 unresolved (30 000), 3 failed (10 000): 5 rows, 40 000 (Encours (€))"
        );
        assert_eq!(
            f.failed_heading(crate::locale::english()).unwrap(),
            "3 failed rows, largest first, retried next run:"
        );
        assert_eq!(
            f.failed[0].line_text(crate::locale::english(), None),
            "C-1042 (line 43) Acme SA: 9 000 — HTTP 503"
        );
        assert_eq!(f.failed_unnamed(), 2);
        // Without amounts, filters or failures: the counts alone, nothing left out.
        let bare = Figures {
            red: 1,
            new_red: 1,
            not_screened: vec![NotScreened {
                status: RowStatus::Ignored,
                rows: Share {
                    count: 1,
                    amount: None,
                },
            }],
            ..Figures::default()
        };
        assert_eq!(
            bare.at_risk_line(crate::locale::english()).unwrap(),
            "at risk: 1 red and 0 black row; came into red tonight: 1 row, into black: 0 (color changes, not first screenings)"
        );
        assert_eq!(bare.left_out_line(crate::locale::english()), None);
        assert_eq!(
            bare.not_screened_line(crate::locale::english()).unwrap(),
            "not screened: 1 ignored: 1 row"
        );
        assert_eq!(bare.failed_heading(crate::locale::english()), None);
        assert_eq!(
            Figures::default().at_risk_line(crate::locale::english()),
            None
        );
        assert_eq!(
            Figures::default().not_screened_line(crate::locale::english()),
            None
        );
    }

    #[test]
    fn a_first_screening_is_never_called_a_change() {
        let total = |count, first_screenings| KindTotal {
            kind: AlertKind::Red,
            count,
            first_screenings,
            amount: None,
        };
        let line = |k: KindTotal| {
            AlertDigest {
                listed_total: k.count,
                kinds: vec![k],
                amount_column: Some("E".into()),
                ..AlertDigest::default()
            }
            .totals_line(crate::locale::english())
        };
        let said = |k| line(k).split_once(": ").unwrap().1.to_string();
        assert_eq!(said(total(174, 174)), "174 red at first screening");
        assert_eq!(said(total(3, 0)), "3 into red");
        assert_eq!(
            said(total(5, 2)),
            "5 red (3 into red, 2 at first screening)"
        );
    }

    #[test]
    fn amounts_are_rounded_and_grouped_by_spaces() {
        assert_eq!(format_amount(0.0), "0");
        assert_eq!(format_amount(999.5), "1 000");
        assert_eq!(format_amount(4_210_000.0), "4 210 000");
        assert_eq!(format_amount(-12_345.4), "-12 345");
        assert_eq!(format_amount(120.0), "120");
    }

    #[test]
    fn the_amount_column_shows_the_company_s_total_and_others_the_first_row() {
        let mut line = AlertLine {
            kind: AlertKind::Red,
            company_id: "x".into(),
            refs: "C-1, C-2".into(),
            company: "Zhao".into(),
            country: None,
            color: Some(Color::Red),
            previous: None,
            last_refresh_date: None,
            shown: vec![
                ("Encours (€)".into(), "120 000,00".into()),
                ("Commercial".into(), "M. Dupont".into()),
            ],
            amount: Some(150_000.0),
        };
        assert_eq!(
            line.shown_value(
                crate::locale::english(),
                "Encours (€)",
                Some("encours (€) ")
            ),
            "150 000"
        );
        assert_eq!(
            line.shown_value(crate::locale::english(), "Commercial", Some("Encours (€)")),
            "M. Dupont"
        );
        assert_eq!(
            line.shown_value(crate::locale::english(), "Encours (€)", None),
            "120 000,00"
        );
        line.amount = None;
        assert_eq!(
            line.shown_value(crate::locale::english(), "Encours (€)", Some("Encours (€)")),
            "120 000,00"
        );
        assert!(
            !line.is_new_red_or_black(),
            "a first screening is not a change"
        );
        assert_eq!(
            line.kind_said(crate::locale::english()),
            "red at first screening"
        );
        line.previous = Some(Color::Yellow);
        assert!(line.is_new_red_or_black());
        assert_eq!(line.kind_said(crate::locale::english()), "into red");
    }
}
