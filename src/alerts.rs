//! What is worth a person's attention after a run: the kinds of alert in the order of their
//! severity, and the rules (`[alerts]` in ratewatch.toml) that say which of them alert,
//! how often a standing one is repeated, and which rows matter enough.
//!
//! Plain data and pure decisions only: the store applies them to a run's rows in one pass
//! (see `store::alerts`), and the reports read what it recorded.

pub use crate::model::AlertKind;
use crate::settings::table::{Mistake, Table};

/// How often a standing alert (still red, still black) is listed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Repeat {
    /// Listed when it began only; counted afterwards.
    Never,
    /// Listed again once a week.
    #[default]
    Weekly,
    /// Listed again once a day.
    Daily,
}

impl Repeat {
    pub fn parse(s: &str) -> Option<Repeat> {
        match s {
            "never" => Some(Repeat::Never),
            "weekly" => Some(Repeat::Weekly),
            "daily" => Some(Repeat::Daily),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Repeat::Never => "never",
            Repeat::Weekly => "weekly",
            Repeat::Daily => "daily",
        }
    }

    /// Seconds after its last listing when a standing alert is listed again; an hour less
    /// than the period, so a nightly cron job that starts a little early still counts as
    /// a day (or a week) later.
    pub fn after_seconds(self) -> Option<i64> {
        const SLACK: i64 = 3600;
        match self {
            Repeat::Never => None,
            Repeat::Weekly => Some(7 * 86_400 - SLACK),
            Repeat::Daily => Some(86_400 - SLACK),
        }
    }
}

/// Only rows whose value in one of the portfolio's own columns is at least this much.
#[derive(Debug, Clone, PartialEq)]
pub struct MinExposure {
    /// The header of the column, as in the file (`Encours EUR`).
    pub column: String,
    pub value: f64,
}

/// The rules of `[alerts]`. The defaults alert as ratewatch always did, except that a
/// standing alert is listed once a week rather than every night.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// Deteriorations alert (`deteriorated`), when they climb at least `min_steps`.
    pub deteriorated: bool,
    pub min_steps: u8,
    /// Into red or black (or red or black at a first screening) always alerts.
    pub into_red: bool,
    pub into_white: bool,
    pub improved: bool,
    /// Other changes to or from white or an unknown color.
    pub changed: bool,
    pub unknown_color: bool,
    pub gone: bool,
    pub repeat: Repeat,
    /// More than this share of the rated companies changing color in one run is a storm.
    pub storm_share: f64,
    pub min_exposure: Option<MinExposure>,
    /// References always alerted on, whatever `min_exposure` says.
    pub watch: Vec<String>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            deteriorated: true,
            min_steps: 1,
            into_red: true,
            into_white: true,
            improved: true,
            changed: true,
            unknown_color: true,
            gone: true,
            repeat: Repeat::Weekly,
            storm_share: 0.2,
            min_exposure: None,
            watch: Vec::new(),
        }
    }
}

impl Rules {
    /// Whether an alert of this kind (climbing `steps`) is one by the rules, before the
    /// filters on rows. A standing alert always is: the repeat rule decides when it is
    /// listed, and it is counted in between.
    pub fn keeps(&self, kind: AlertKind, steps: u8) -> bool {
        let by_steps = self.deteriorated && steps >= self.min_steps.max(1);
        match kind {
            AlertKind::Black | AlertKind::Red => self.into_red || by_steps,
            AlertKind::Deteriorated => by_steps,
            AlertKind::White => self.into_white,
            AlertKind::Gone => self.gone,
            AlertKind::Unknown => self.unknown_color,
            AlertKind::Changed => self.changed,
            AlertKind::Improved => self.improved,
            AlertKind::Still => true,
        }
    }

    /// The rules for a portfolio with these carried columns. A `min_exposure` on a column
    /// the portfolio does not have would silence every alert: it is set aside, and the
    /// note says so (the night is loud, never falsely quiet).
    pub fn for_columns(&self, columns: &[String]) -> (Rules, Option<String>) {
        let Some(min) = &self.min_exposure else {
            return (self.clone(), None);
        };
        let wanted = min.column.trim();
        if columns
            .iter()
            .any(|c| c.trim().eq_ignore_ascii_case(wanted))
        {
            return (self.clone(), None);
        }
        let note = format!(
            "NOTE: [alerts] min_exposure reads the column {wanted:?}, which this portfolio does not have: every alert is listed, whatever its exposure"
        );
        (
            Rules {
                min_exposure: None,
                ..self.clone()
            },
            Some(note),
        )
    }

    /// Whether a row with this reference and these carried columns passes the filters.
    /// A value that is not a number passes: what cannot be read is never silenced. Nor
    /// are carried columns read from a record with more fields than its header
    /// (`extra_unreliable`: an unquoted `120 000,00` split in two): the row passes.
    pub fn row_passes(
        &self,
        reference: Option<&str>,
        extra: &[(String, String)],
        extra_unreliable: bool,
    ) -> bool {
        let Some(min) = &self.min_exposure else {
            return true;
        };
        if extra_unreliable || reference.is_some_and(|r| self.watch.iter().any(|w| w == r)) {
            return true;
        }
        let value = extra
            .iter()
            .find(|(header, _)| header.trim().eq_ignore_ascii_case(min.column.trim()))
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty());
        match value {
            None => false,
            Some(v) => parse_amount(v).is_none_or(|amount| amount >= min.value),
        }
    }
}

/// An amount as spreadsheets write it: `50000`, `50 000,00`, `50.000,00`, `50,000.00`,
/// `€ 50000`; `None` when it is not one.
pub fn parse_amount(text: &str) -> Option<f64> {
    let kept: String = text
        .chars()
        .filter(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | '-'))
        .collect();
    if !kept.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    // The last separator is the decimal one, unless it is repeated earlier (`1.234.567`)
    // or, alone, has exactly three digits after it (`50,000`).
    let normalized = match kept.rfind([',', '.']) {
        Some(i) => {
            let sep = &kept[i..=i];
            let repeated = kept[..i].contains(sep);
            let other_before = kept[..i].contains([',', '.']);
            let decimal = !repeated && (other_before || kept.len() - i - 1 != 3);
            let int: String = kept[..i]
                .chars()
                .filter(|c| *c != ',' && *c != '.')
                .collect();
            let frac = &kept[i + 1..];
            if decimal {
                format!("{int}.{frac}")
            } else {
                format!("{int}{frac}")
            }
        }
        None => kept,
    };
    normalized.parse().ok()
}

const RULES: &str = "deteriorated, min_steps, into_red, into_white, improved, changed, unknown_color, gone, repeat, storm_share, min_exposure, watch";

impl Rules {
    /// The rules of an `[alerts]` table. A rule or a value it does not know is a mistake at
    /// its key: a typo must not silently change what alerts.
    pub fn from_table(table: &Table) -> Result<Rules, Mistake> {
        use toml::Value;
        let mut rules = Rules::default();
        for (key, value) in table {
            let (span, key) = (key.span(), key.get_ref().as_str());
            let wrong = |what: &str| (span.clone(), format!("[alerts] {key}: expected {what}"));
            let flag = |value: &Value| value.as_bool().ok_or_else(|| wrong("true or false"));
            let number = |value: &Value| match value {
                Value::Integer(i) => Ok(*i as f64),
                Value::Float(x) => Ok(*x),
                _ => Err(wrong("a number")),
            };
            let value = value.get_ref();
            match key {
                "deteriorated" => rules.deteriorated = flag(value)?,
                "into_red" => rules.into_red = flag(value)?,
                "into_white" => rules.into_white = flag(value)?,
                "improved" => rules.improved = flag(value)?,
                "changed" => rules.changed = flag(value)?,
                "unknown_color" => rules.unknown_color = flag(value)?,
                "gone" => rules.gone = flag(value)?,
                "min_steps" => {
                    let n = number(value)?;
                    if !(1.0..=3.0).contains(&n) || n.fract() != 0.0 {
                        return Err(wrong("1, 2 or 3 (green → black is 3 steps)"));
                    }
                    rules.min_steps = n as u8;
                }
                "repeat" => {
                    rules.repeat = value
                        .as_str()
                        .and_then(Repeat::parse)
                        .ok_or_else(|| wrong("\"never\", \"weekly\" or \"daily\""))?;
                }
                "storm_share" => {
                    let share = number(value)?;
                    if !(0.0..=1.0).contains(&share) {
                        return Err(wrong("a share between 0 and 1 (0.2 is a fifth)"));
                    }
                    rules.storm_share = share;
                }
                "watch" => {
                    let refs = || wrong("a list of refs, [\"C-1001\", …]");
                    rules.watch = value
                        .as_array()
                        .ok_or_else(refs)?
                        .iter()
                        .map(|r| r.as_str().map(str::to_string).ok_or_else(refs))
                        .collect::<Result<_, _>>()?;
                }
                "min_exposure" => {
                    let shape = || wrong("{ column = \"HEADER\", value = N }");
                    let table = value.as_table().ok_or_else(shape)?;
                    if table.keys().any(|k| k != "column" && k != "value") {
                        return Err(shape());
                    }
                    let column = table
                        .get("column")
                        .and_then(Value::as_str)
                        .ok_or_else(shape)?;
                    let value = number(table.get("value").ok_or_else(shape)?)?;
                    rules.min_exposure = Some(MinExposure {
                        column: column.to_string(),
                        value,
                    });
                }
                other => {
                    return Err((
                        span.clone(),
                        format!("[alerts]: unknown rule `{other}`; the rules are {RULES}"),
                    ));
                }
            }
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Change, Color};

    #[test]
    fn the_rules_are_read_from_their_table_a_wrong_one_named_at_its_key() {
        let table = |text: &str| -> Table { toml::from_str(text).unwrap() };
        let text = "min_steps = 2\nimproved = false\nrepeat = \"daily\"\nstorm_share = 0.5\n\
            watch = [\"C-1\"]\nmin_exposure = { column = \"E\", value = 5 }\n";
        let rules = Rules::from_table(&table(text)).unwrap();
        let read = (
            rules.min_steps,
            rules.improved,
            rules.repeat,
            rules.storm_share,
        );
        assert_eq!(read, (2, false, Repeat::Daily, 0.5));
        assert_eq!(rules.watch, ["C-1"]);
        let exposure = MinExposure {
            column: "E".into(),
            value: 5.0,
        };
        assert_eq!(rules.min_exposure, Some(exposure));
        for (text, message) in [
            (
                "storm_share = 2",
                "[alerts] storm_share: expected a share between 0 and 1",
            ),
            ("watch = [1]", "[alerts] watch: expected a list of refs"),
            ("into_red = 1", "[alerts] into_red: expected true or false"),
            (
                "\nrepaet = 1",
                "[alerts]: unknown rule `repaet`; the rules are deteriorated,",
            ),
        ] {
            let (span, m) = Rules::from_table(&table(text)).unwrap_err();
            assert!(m.starts_with(message), "{m}");
            assert_eq!(&text[span], text.trim().split(' ').next().unwrap());
        }
    }

    fn c(s: &str) -> Color {
        Color::parse(s)
    }

    #[test]
    fn each_change_is_the_kind_of_alert_it_should_be() {
        use AlertKind::*;
        // The color before is there for the reader: the change already says how it moved.
        let of = |change, now: &str, _before: Option<&str>| AlertKind::of(change, &c(now));
        assert_eq!(
            of(Change::Deteriorated, "black", Some("green")),
            Some(Black)
        );
        assert_eq!(of(Change::Deteriorated, "red", Some("yellow")), Some(Red));
        assert_eq!(
            of(Change::Deteriorated, "yellow", Some("green")),
            Some(Deteriorated)
        );
        assert_eq!(of(Change::Changed, "white", Some("green")), Some(White));
        assert_eq!(of(Change::Changed, "red", Some("white")), Some(Red));
        assert_eq!(of(Change::Changed, "green", Some("white")), Some(Changed));
        assert_eq!(of(Change::Changed, "orange", Some("green")), Some(Unknown));
        assert_eq!(of(Change::Improved, "green", Some("red")), Some(Improved));
        assert_eq!(of(Change::Gone, "red", None), Some(Gone));
        assert_eq!(of(Change::New, "red", None), Some(Red));
        assert_eq!(of(Change::New, "orange", None), Some(Unknown));
        assert_eq!(of(Change::New, "green", None), None);
        assert_eq!(of(Change::Unchanged, "black", Some("black")), Some(Still));
        assert_eq!(of(Change::Evolved, "red", Some("red")), Some(Still));
        assert_eq!(of(Change::Unchanged, "yellow", Some("yellow")), None);
        assert!(Black.severity() < Red.severity() && Improved.severity() < Still.severity());
    }

    #[test]
    fn the_default_rules_alert_on_every_change_and_steps_can_narrow_them() {
        let rules = Rules::default();
        for kind in AlertKind::ALL {
            assert!(rules.keeps(kind, 1), "{kind:?}");
        }
        let two = Rules {
            min_steps: 2,
            into_red: false,
            ..Rules::default()
        };
        assert!(!two.keeps(AlertKind::Deteriorated, 1));
        assert!(!two.keeps(AlertKind::Red, 1), "yellow → red is one step");
        assert!(two.keeps(AlertKind::Red, 2), "green → red is two");
        let into_red = Rules {
            deteriorated: false,
            ..Rules::default()
        };
        assert!(into_red.keeps(AlertKind::Red, 1));
        assert!(!into_red.keeps(AlertKind::Deteriorated, 1));
        assert_eq!(
            AlertKind::steps(&c("red"), Some(&c("green"))),
            2,
            "green → red"
        );
        assert_eq!(AlertKind::steps(&c("red"), Some(&c("white"))), 0);
    }

    #[test]
    fn exposure_filters_rows_and_watched_refs_pass_whatever_their_exposure() {
        let rules = Rules {
            min_exposure: Some(MinExposure {
                column: "Encours EUR".into(),
                value: 50_000.0,
            }),
            watch: vec!["C-1".into()],
            ..Rules::default()
        };
        let extra = |v: &str| vec![("Encours EUR".to_string(), v.to_string())];
        assert!(rules.row_passes(Some("C-2"), &extra("60 000,00"), false));
        assert!(!rules.row_passes(Some("C-2"), &extra("49999"), false));
        assert!(rules.row_passes(Some("C-1"), &extra("10"), false));
        assert!(!rules.row_passes(Some("C-2"), &extra(""), false));
        assert!(!rules.row_passes(Some("C-2"), &[], false));
        assert!(
            rules.row_passes(Some("C-2"), &extra("n/a"), false),
            "unreadable passes"
        );
        // `120 000,00` unquoted in a comma-separated file: `120 000` is not the amount.
        assert!(
            rules.row_passes(Some("C-2"), &extra("120 000"), true),
            "a record with too many fields passes"
        );
    }

    #[test]
    fn an_exposure_column_the_portfolio_lacks_is_set_aside_loudly() {
        let rules = Rules {
            min_exposure: Some(MinExposure {
                column: "Encours EUR".into(),
                value: 50_000.0,
            }),
            ..Rules::default()
        };
        let (kept, note) = rules.for_columns(&["encours eur ".into()]);
        assert_eq!((kept, note), (rules.clone(), None));
        let (set_aside, note) = rules.for_columns(&["Exposure".into()]);
        assert_eq!(set_aside.min_exposure, None);
        assert!(
            note.unwrap()
                .starts_with("NOTE: [alerts] min_exposure reads the column \"Encours EUR\"")
        );
    }

    #[test]
    fn amounts_are_read_as_spreadsheets_write_them() {
        assert_eq!(parse_amount("50000"), Some(50_000.0));
        assert_eq!(parse_amount("50 000,50"), Some(50_000.5));
        assert_eq!(parse_amount("50.000,00"), Some(50_000.0));
        assert_eq!(parse_amount("50,000.00"), Some(50_000.0));
        assert_eq!(parse_amount("1.234.567"), Some(1_234_567.0));
        assert_eq!(parse_amount("50,000"), Some(50_000.0));
        assert_eq!(parse_amount("12,5"), Some(12.5));
        assert_eq!(parse_amount("€ 7 500"), Some(7_500.0));
        assert_eq!(parse_amount("-1 200,00"), Some(-1_200.0));
        assert_eq!(parse_amount("n/a"), None);
    }
}
