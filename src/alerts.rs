//! What is worth a person's attention after a run: the kinds of alert in the order of their
//! severity, and the rules (`[alerts]` in ratewatch.toml) that say which of them alert,
//! which are listed and which only counted, how often a standing one is listed again,
//! which rows matter enough, and which of the portfolio's own columns (the amount at
//! stake, its owner) every alert shows.
//!
//! Plain data and pure decisions only: the store applies them to a run's rows in one pass
//! (see `store::alert_log`), and the reports read what it recorded.

pub use crate::model::AlertKind;
use crate::model::Color;
use crate::toml_table::{Mistake, Table};

/// How often a standing alert (still red, still black) is listed again one by one. Between
/// listings, the standing ones of each color are said in one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Repeat {
    /// Listed when it began only; said in its color's line afterwards.
    #[default]
    Never,
    /// Listed again once a week.
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

/// Whether a kind of change alerts, and if so whether each is listed or only counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// Not an alert.
    Off,
    /// Counted in one line, not listed: improvements a team wants to know of, not read.
    Count,
    /// Listed, a line each.
    List,
}

impl Listing {
    fn parse(value: &toml::Value) -> Option<Listing> {
        match value {
            toml::Value::Boolean(true) => Some(Listing::List),
            toml::Value::Boolean(false) => Some(Listing::Off),
            toml::Value::String(s) if s == "list" => Some(Listing::List),
            toml::Value::String(s) if s == "count" => Some(Listing::Count),
            toml::Value::String(s) if s == "off" => Some(Listing::Off),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Listing::Off => "off",
            Listing::Count => "count",
            Listing::List => "list",
        }
    }
}

/// Alerts listed one per line by default; the rest are counted by kind, their largest
/// named. Every new red and black is listed whatever the cap.
pub const MAX_LISTED: usize = 20;

/// Only rows whose value in one of the portfolio's own columns is at least this much.
#[derive(Debug, Clone, PartialEq)]
pub struct MinExposure {
    /// The header of the column, as in the file (`Encours EUR`).
    pub column: String,
    pub value: f64,
}

/// The rules of `[alerts]`. The defaults are what a team keeps: every deterioration listed
/// (new red and black always, whatever the cap), improvements and other changes counted,
/// standing red and black in one line per color, at most [`MAX_LISTED`] lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// Deteriorations alert (`deteriorated`), when they climb at least `min_steps`.
    pub deteriorated: bool,
    pub min_steps: u8,
    /// Into red or black (or red or black at a first screening) always alerts.
    pub into_red: bool,
    pub into_white: bool,
    pub improved: Listing,
    /// Other changes to or from white or an unknown color (`white → green`).
    pub changed: Listing,
    pub unknown_color: bool,
    pub gone: bool,
    pub repeat: Repeat,
    /// More than this share of the rated companies changing color in one run is a storm.
    pub storm_share: f64,
    pub min_exposure: Option<MinExposure>,
    /// References always alerted on, whatever `min_exposure` says.
    pub watch: Vec<String>,
    /// Colors whose companies alert whatever `min_exposure` says: a black customer owing
    /// little is still news (an insolvency costs the next order, not only the balance).
    pub always: Vec<Color>,
    /// The carried columns every alert shows (`["Encours (€)", "Commercial"]`).
    pub show: Vec<String>,
    /// The column of the amount at stake (else `min_exposure`'s): alerts are ordered by it
    /// within a kind, and each kind shows its total.
    pub amount: Option<String>,
    /// Alerts listed one per line; the rest are counted (new red and black never are).
    pub max_listed: usize,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            deteriorated: true,
            min_steps: 1,
            into_red: true,
            into_white: true,
            improved: Listing::Count,
            changed: Listing::Count,
            unknown_color: true,
            gone: true,
            repeat: Repeat::Never,
            storm_share: 0.2,
            min_exposure: None,
            watch: Vec::new(),
            always: vec![Color::Black],
            show: Vec::new(),
            amount: None,
            max_listed: MAX_LISTED,
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
            AlertKind::Changed => self.changed != Listing::Off,
            AlertKind::Improved => self.improved != Listing::Off,
            AlertKind::Still => true,
        }
    }

    /// Whether an alert of this kind that is news is listed, a line each (else counted).
    pub fn lists(&self, kind: AlertKind) -> bool {
        match kind {
            AlertKind::Changed => self.changed == Listing::List,
            AlertKind::Improved => self.improved == Listing::List,
            _ => true,
        }
    }

    /// Whether a company now of this color alerts whatever the filters on rows say
    /// (`always`).
    pub fn always_alerts(&self, color: &Color) -> bool {
        self.always.contains(color)
    }

    /// The header of the amount column: `amount`, else `min_exposure`'s column.
    pub fn amount_column(&self) -> Option<&str> {
        self.amount
            .as_deref()
            .or(self.min_exposure.as_ref().map(|m| m.column.as_str()))
    }

    /// The amount in a row's carried columns, when an amount column is named and the row
    /// holds a readable number there (not when the record had more fields than its header).
    pub fn amount_of(&self, extra: &[(String, String)], extra_unreliable: bool) -> Option<f64> {
        amount_in(self.amount_column()?, extra, extra_unreliable)
    }

    /// The rules for a portfolio with these carried columns. A `min_exposure` on a column
    /// the portfolio does not have would silence every alert: it is set aside, and the
    /// note says so (the night is loud, never falsely quiet).
    ///
    /// An amount or shown column the portfolio lacks is set aside too, with a note; the
    /// shown columns take the portfolio's own spelling of their headers.
    pub fn for_columns(&self, columns: &[String]) -> (Rules, Vec<String>) {
        let mut rules = self.clone();
        let mut notes = Vec::new();
        let find = |wanted: &str| {
            columns
                .iter()
                .find(|c| crate::digest::same_column(c, wanted))
                .cloned()
        };
        if let Some(min) = &self.min_exposure
            && find(&min.column).is_none()
        {
            notes.push(format!(
                "NOTE: [alerts] min_exposure reads the column {:?}, which this portfolio does not have: every alert is listed, whatever its exposure",
                min.column.trim()
            ));
            rules.min_exposure = None;
        }
        if let Some(amount) = &self.amount {
            match find(amount) {
                Some(header) => rules.amount = Some(header),
                None => {
                    notes.push(format!(
                        "NOTE: [alerts] amount reads the column {:?}, which this portfolio does not have: alerts show no amount at stake",
                        amount.trim()
                    ));
                    rules.amount = None;
                }
            }
        }
        let (found, missing): (Vec<_>, Vec<_>) = self
            .show
            .iter()
            .map(|c| (c, find(c)))
            .partition(|(_, f)| f.is_some());
        rules.show = found.into_iter().filter_map(|(_, f)| f).collect();
        if !missing.is_empty() {
            let names: Vec<String> = missing
                .iter()
                .map(|(c, _)| format!("{:?}", c.trim()))
                .collect();
            notes.push(format!(
                "[alerts] show names {} that this portfolio does not have; alerts show the others",
                names.join(", ")
            ));
        }
        (rules, notes)
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

/// The amount a row's carried columns hold under `column`, when it reads as one and the
/// record did not have more fields than its header: what the alerts, the totals at stake and
/// `run_rows.amount` read.
pub fn amount_in(column: &str, extra: &[(String, String)], extra_unreliable: bool) -> Option<f64> {
    if extra_unreliable {
        return None;
    }
    extra
        .iter()
        .find(|(header, _)| crate::digest::same_column(header, column))
        .and_then(|(_, v)| parse_amount(v))
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

const RULES: &str = "deteriorated, min_steps, into_red, into_white, improved, changed, unknown_color, gone, repeat, storm_share, min_exposure, watch, always, show, amount, max_listed";

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
                "improved" | "changed" => {
                    let listing = Listing::parse(value)
                        .ok_or_else(|| wrong("\"list\", \"count\" or \"off\" (or true, false)"))?;
                    match key {
                        "improved" => rules.improved = listing,
                        _ => rules.changed = listing,
                    }
                }
                "show" => {
                    let headers = || wrong("a list of column headers, [\"Encours (€)\", …]");
                    rules.show = value
                        .as_array()
                        .ok_or_else(headers)?
                        .iter()
                        .map(|r| r.as_str().map(str::to_string).ok_or_else(headers))
                        .collect::<Result<_, _>>()?;
                }
                "amount" => {
                    let header = value
                        .as_str()
                        .filter(|h| !h.trim().is_empty())
                        .ok_or_else(|| wrong("the header of a column, \"Encours (€)\""))?;
                    rules.amount = Some(header.to_string());
                }
                "max_listed" => {
                    let n = number(value)?;
                    if !(1.0..=10_000.0).contains(&n) || n.fract() != 0.0 {
                        return Err(wrong("a number of lines from 1 to 10000"));
                    }
                    rules.max_listed = n as usize;
                }
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
                "always" => {
                    let colors = || wrong("a list of colors, [\"black\", \"red\"] (or [])");
                    // Named in English, French or German (`rouge`, `schwarz`).
                    rules.always = value
                        .as_array()
                        .ok_or_else(colors)?
                        .iter()
                        .map(|c| c.as_str().and_then(crate::locale::color_named))
                        .map(|c| c.ok_or_else(colors))
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
        assert_eq!(read, (2, Listing::Off, Repeat::Daily, 0.5));
        assert_eq!(rules.watch, ["C-1"]);
        let exposure = MinExposure {
            column: "E".into(),
            value: 5.0,
        };
        assert_eq!(rules.min_exposure, Some(exposure));
        assert_eq!(rules.always, [Color::Black], "black by default");
        let always = Rules::from_table(&table("always = [\"red\", \"BLACK\"]")).unwrap();
        assert_eq!(always.always, [Color::Red, Color::Black]);
        let always = Rules::from_table(&table("always = [\"rouge\", \"Schwarz\"]")).unwrap();
        assert_eq!(always.always, [Color::Red, Color::Black]);
        assert!(always.always_alerts(&Color::Red) && !always.always_alerts(&Color::Green));
        let never = Rules::from_table(&table("always = []")).unwrap();
        assert!(!never.always_alerts(&Color::Black));
        for (text, message) in [
            (
                "storm_share = 2",
                "[alerts] storm_share: expected a share between 0 and 1",
            ),
            ("watch = [1]", "[alerts] watch: expected a list of refs"),
            (
                "always = [\"purple\"]",
                "[alerts] always: expected a list of colors",
            ),
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
        // Improvements and changes to or from white are counted, not listed.
        let listed: Vec<AlertKind> = AlertKind::ALL
            .into_iter()
            .filter(|k| rules.lists(*k))
            .collect();
        assert!(!listed.contains(&AlertKind::Improved) && !listed.contains(&AlertKind::Changed));
        assert_eq!(listed.len(), AlertKind::ALL.len() - 2);
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
        let (kept, notes) = rules.for_columns(&["encours eur ".into()]);
        assert_eq!((kept, notes), (rules.clone(), vec![]));
        let (set_aside, notes) = rules.for_columns(&["Exposure".into()]);
        assert_eq!(set_aside.min_exposure, None);
        assert!(
            notes[0].starts_with("NOTE: [alerts] min_exposure reads the column \"Encours EUR\"")
        );
        let shown = Rules {
            show: vec!["encours eur".into(), "Commercial".into()],
            amount: Some("ENCOURS EUR".into()),
            ..Rules::default()
        };
        let (kept, notes) = shown.for_columns(&["Encours EUR".into()]);
        assert_eq!(kept.show, ["Encours EUR"], "the portfolio's spelling");
        assert_eq!(kept.amount.as_deref(), Some("Encours EUR"));
        assert_eq!(
            notes,
            [
                "[alerts] show names \"Commercial\" that this portfolio does not have; alerts show the others"
            ]
        );
        let (lost, notes) = shown.for_columns(&[]);
        assert_eq!((lost.amount, lost.show.len()), (None, 0));
        assert!(
            notes[0].starts_with("NOTE: [alerts] amount reads the column"),
            "{notes:?}"
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
