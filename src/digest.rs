//! What a run's alerts say to a person, the same in every channel (the summary, report.html,
//! the email, the chat webhooks, `alerts test`): one heading line, the alerts listed one per
//! line with the carried columns that `[alerts] show` names, what each kind puts at stake,
//! the standing red and black as one line per color, and the changes that are only counted.
//!
//! The store reads a run's digest (`Store::alert_digest`, by the rules of `[alerts]`); the
//! channels lay it out. The words and numbers are made here once, so a mail, a Slack
//! message and the summary never disagree.

use jiff::Timestamp;

use crate::model::{AlertKind, Color};
use crate::text::{plural, printable};

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
    /// `ratewatch 2026-11-26 · customers · run 34 · /var/lib/ratewatch/reports/2026-11-26/report.html`
    pub fn line(&self) -> String {
        let mut line = format!(
            "ratewatch {} · {} · run {}",
            self.started_at.strftime("%Y-%m-%d"),
            printable(&self.portfolio),
            self.run_id
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
    pub fn movement(&self) -> String {
        let now = self
            .color
            .as_ref()
            .map_or("?".to_string(), |c| c.to_string());
        match (self.kind, &self.previous) {
            (AlertKind::Gone, _) => format!("{now} → gone"),
            (AlertKind::Unknown, _) => format!("unknown color {now}"),
            (AlertKind::Still, _) => format!("{now} (still)"),
            (_, Some(before)) => format!("{before} → {now}"),
            (_, None) => format!("{now} (first screening)"),
        }
    }

    /// A company that came into red or black by a change tonight: listed whatever the cap.
    pub fn is_new_red_or_black(&self) -> bool {
        matches!(self.kind, AlertKind::Red | AlertKind::Black) && self.previous.is_some()
    }

    /// The value shown for a column: for the amount column, the company's amount summed
    /// over its rows (`150 000`); for another, the first row's text as written.
    pub fn shown_value(&self, header: &str, amount_column: Option<&str>) -> String {
        if amount_column.is_some_and(|c| same_column(c, header))
            && let Some(amount) = self.amount
        {
            return format_amount(amount);
        }
        self.shown
            .iter()
            .find(|(h, _)| h == header)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
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

    /// The line that heads the listed alerts: `181 alerts, worst first; 20 listed: 12 into
    /// black (12 first screened; 1 204 000 at stake), 169 into red (…)`.
    pub fn totals_line(&self) -> String {
        let mut line = format!(
            "{}, worst first",
            plural(self.listed_total, "alert", "alerts")
        );
        if self.unlisted() > 0 {
            line.push_str(&format!("; {} listed", self.listed.len()));
        }
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .filter(|k| k.count > 0)
            .map(|k| {
                // The kind in a word: its explanation, in parentheses, is the table's.
                let kind = k.kind.describe();
                let kind = kind.split_once(" (").map_or(kind, |(short, _)| short);
                let mut part = format!("{} {kind}", k.count);
                match (k.first_screenings, k.amount) {
                    (0, None) => {}
                    (0, Some(a)) => part.push_str(&format!(" ({} at stake)", format_amount(a))),
                    (n, None) => part.push_str(&format!(" ({n} first screened)")),
                    (n, Some(a)) => part.push_str(&format!(
                        " ({n} first screened; {} at stake)",
                        format_amount(a)
                    )),
                }
                part
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
    pub fn standing_lines(&self) -> Vec<String> {
        self.standing
            .iter()
            .filter(|s| s.count > 0)
            .map(|s| {
                let mut line = format!(
                    "still {}: {}",
                    s.color,
                    plural(s.count, "company", "companies")
                );
                if let (Some(amount), Some(column)) = (s.amount, &self.amount_column) {
                    line.push_str(&format!(
                        ", {} at stake ({})",
                        format_amount(amount),
                        printable(column)
                    ));
                }
                if !s.top.is_empty() {
                    let by = if s.amount.is_some() {
                        "largest"
                    } else {
                        "first"
                    };
                    let named: Vec<String> = s
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
                                who.push_str(&format!(" ({})", format_amount(amount)));
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
    pub fn counted_line(&self) -> Option<String> {
        let parts: Vec<String> = self
            .counted
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| match kind {
                AlertKind::Changed => format!("{n} changed to or from white"),
                kind => format!("{n} {}", kind.describe()),
            })
            .collect();
        (!parts.is_empty()).then(|| format!("counted, not listed: {}", parts.join(", ")))
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
/// per company in the order given, with the refs that hold it and the columns shown.
pub fn alert_table(digest: &AlertDigest, lines: &[AlertLine]) -> String {
    let amount_column = digest.amount_column.as_deref();
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|a| {
            let mut cells = vec![
                a.refs.clone(),
                a.company.clone(),
                a.country.clone().unwrap_or_else(|| "-".into()),
                a.movement(),
                a.kind.describe().to_string(),
            ];
            for column in &digest.columns {
                cells.push(a.shown_value(column, amount_column));
            }
            cells.push(refreshed(a.last_refresh_date));
            cells.iter().map(|c| printable(c)).collect()
        })
        .collect();
    let upper: Vec<String> = digest
        .columns
        .iter()
        .map(|c| printable(c).to_uppercase())
        .collect();
    let mut headers = vec!["REF", "COMPANY", "COUNTRY", "COLOR", "ALERT"];
    headers.extend(upper.iter().map(String::as_str));
    headers.push("REFRESHED");
    crate::text::render(&headers, &rows)
}

/// The day the service last recalculated the rating (`2026-11-20`, UTC), or `-`.
pub fn refreshed(date: Option<Timestamp>) -> String {
    date.map_or("-".to_string(), |d| d.strftime("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            line.shown_value("Encours (€)", Some("encours (€) ")),
            "150 000"
        );
        assert_eq!(
            line.shown_value("Commercial", Some("Encours (€)")),
            "M. Dupont"
        );
        assert_eq!(line.shown_value("Encours (€)", None), "120 000,00");
        line.amount = None;
        assert_eq!(
            line.shown_value("Encours (€)", Some("Encours (€)")),
            "120 000,00"
        );
        assert!(
            !line.is_new_red_or_black(),
            "a first screening is not a change"
        );
        line.previous = Some(Color::Yellow);
        assert!(line.is_new_red_or_black());
    }
}
