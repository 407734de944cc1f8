//! Domain types every stage shares. The service's wire types (`api::models`) convert into
//! these, so nothing past the client depends on how the service spells its fields.
//!
//! This module holds data and pure rules only: no I/O, no HTTP, no SQL.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

mod refresh;
mod search;

pub use refresh::RefreshAges;
pub use search::{CachedResolution, SearchOutcome};

/// Countries the service returns ratings for (spec section 1).
pub const RATED_COUNTRIES: [&str; 10] =
    ["FR", "GB", "IE", "DE", "ES", "BE", "LU", "NL", "IT", "CN"];

/// A traffic-light rating color.
///
/// The spec lists five values but also mentions an `orange` that no sample returns, so a
/// value outside the five is kept as received (lowercased) instead of failing the parse:
/// a report that silently drops an unknown color would hide exactly what needs a look.
/// Kept as received only while it reads as a short word, though: see [`Color::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Color {
    Green,
    Yellow,
    Red,
    Black,
    White,
    /// A color the spec does not list, as received (lowercased, trimmed) when it is a
    /// short word, else in the bounded form [`Color::parse`] gives it.
    Other(String),
}

/// The longest color kept as received. The five are at most six letters; a longer value
/// is not a color a person needs whole, and it is printed in every summary line that
/// names it.
pub const COLOR_MAX_CHARS: usize = 32;

impl Color {
    /// Parses any string; never fails.
    ///
    /// A value outside the five is kept, lowercased and trimmed, when it reads as a word:
    /// at most [`COLOR_MAX_CHARS`] letters, digits, spaces, `-` or `_`. Anything else (an
    /// escape sequence, a bidirectional override, punctuation, 100,000 characters) is kept
    /// in a form that cannot drive a terminal or flood a mail: each other character
    /// becomes `?`, and what is past the limit is cut and marked `…`. Every color is parsed
    /// here (from the service, from the database), so none reaches a report otherwise,
    /// and parsing that form again gives it back unchanged.
    pub fn parse(raw: &str) -> Color {
        let lower = raw.trim().to_lowercase();
        match lower.as_str() {
            "green" => Color::Green,
            "yellow" => Color::Yellow,
            "red" => Color::Red,
            "black" => Color::Black,
            "white" => Color::White,
            _ => Color::Other(bounded(lower)),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Color::Green => "green",
            Color::Yellow => "yellow",
            Color::Red => "red",
            Color::Black => "black",
            Color::White => "white",
            Color::Other(s) => s,
        }
    }

    /// Position on the risk scale green < yellow < red < black; `None` for white (no
    /// information) and unknown colors, which are not on the scale.
    pub fn risk_rank(&self) -> Option<u8> {
        match self {
            Color::Green => Some(0),
            Color::Yellow => Some(1),
            Color::Red => Some(2),
            Color::Black => Some(3),
            Color::White | Color::Other(_) => None,
        }
    }

    /// Red and black need action whether or not they changed.
    pub fn is_alarming(&self) -> bool {
        matches!(self, Color::Red | Color::Black)
    }
}

/// An unknown color as kept: as received when it reads as a word, else each character
/// that is not a letter, digit, space, `-` or `_` as `?`, cut to [`COLOR_MAX_CHARS`] with
/// a `…`. (`?` and `…` are kept as they are, so the form reads back as itself.)
fn bounded(lower: String) -> String {
    let plain = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '?' | '…');
    let long = lower.len() > COLOR_MAX_CHARS && lower.chars().count() > COLOR_MAX_CHARS;
    if !long && lower.chars().all(plain) {
        return lower;
    }
    let mut kept: String = lower
        .chars()
        .take(COLOR_MAX_CHARS)
        .map(|c| if plain(c) { c } else { '?' })
        .collect();
    if long {
        kept.push('…');
    }
    kept
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Ok(Color::parse(&raw))
    }
}

/// One observation of a company's rating, whichever endpoint it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rating {
    pub company_id: Uuid,
    pub color: Color,
    /// When the service answered the request.
    pub requested_at: Option<Timestamp>,
    /// When the service last calculated the rating.
    pub last_refresh: Option<Timestamp>,
    /// When the company's rating last evolved (the color may or may not have moved).
    pub last_change: Option<Timestamp>,
}

/// How a company's rating compares with its latest earlier observation (design §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// First observation of this company.
    New,
    /// Same color, same lastChangeDate.
    Unchanged,
    /// Same color, but the service's lastChangeDate moved: something happened.
    Evolved,
    /// Up the risk scale (green < yellow < red < black).
    Deteriorated,
    /// Down the risk scale.
    Improved,
    /// To or from white or an unknown color: not on the scale, so neither better nor worse.
    Changed,
    /// The service no longer knows a company it had rated: its last color is kept.
    Gone,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Unchanged => "unchanged",
            Change::Evolved => "evolved",
            Change::Deteriorated => "deteriorated",
            Change::Improved => "improved",
            Change::Changed => "changed",
            Change::Gone => "gone",
        }
    }

    pub fn parse(s: &str) -> Option<Change> {
        [
            Change::New,
            Change::Unchanged,
            Change::Evolved,
            Change::Deteriorated,
            Change::Improved,
            Change::Changed,
            Change::Gone,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }

    /// A color change of any kind.
    pub fn is_color_change(self) -> bool {
        matches!(
            self,
            Change::Deteriorated | Change::Improved | Change::Changed
        )
    }

    /// Compares a new observation with the previous one, if any. `last_change` is the
    /// service's lastChangeDate of each, in whatever comparable form the caller keeps.
    pub fn classify<T: PartialEq>(
        previous: Option<(&Color, Option<T>)>,
        color: &Color,
        last_change: Option<T>,
    ) -> Change {
        let Some((before, before_change)) = previous else {
            return Change::New;
        };
        if before == color {
            return if before_change == last_change {
                Change::Unchanged
            } else {
                Change::Evolved
            };
        }
        match (before.risk_rank(), color.risk_rank()) {
            (Some(a), Some(b)) if b > a => Change::Deteriorated,
            (Some(_), Some(_)) => Change::Improved,
            _ => Change::Changed,
        }
    }
}

/// Why a company is an alert, worst first: the order of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertKind {
    /// Into black (insolvent), or black at its first screening.
    Black,
    /// Into red, or red at its first screening.
    Red,
    /// Another deterioration (into yellow).
    Deteriorated,
    /// Into white: the service no longer has information (coverage lost).
    White,
    /// The service no longer knows a company it had rated.
    Gone,
    /// A color outside the five, the first time it is seen.
    Unknown,
    /// Another change to or from white or an unknown color.
    Changed,
    Improved,
    /// Still red or black: a standing alert.
    Still,
}

impl AlertKind {
    pub const ALL: [AlertKind; 9] = [
        AlertKind::Black,
        AlertKind::Red,
        AlertKind::Deteriorated,
        AlertKind::White,
        AlertKind::Gone,
        AlertKind::Unknown,
        AlertKind::Changed,
        AlertKind::Improved,
        AlertKind::Still,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::Black => "black",
            AlertKind::Red => "red",
            AlertKind::Deteriorated => "deteriorated",
            AlertKind::White => "white",
            AlertKind::Gone => "gone",
            AlertKind::Unknown => "unknown",
            AlertKind::Changed => "changed",
            AlertKind::Improved => "improved",
            AlertKind::Still => "still",
        }
    }

    pub fn parse(s: &str) -> Option<AlertKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// 1 for the worst; the order in which alerts are listed.
    pub fn severity(self) -> u8 {
        self as u8 + 1
    }

    /// Whether the company's color moved (or it went away) in this run: news, as opposed
    /// to a standing alert.
    pub fn is_news(self) -> bool {
        self != AlertKind::Still
    }

    /// The kind of alert a company's observation in a run is, before any rule: `None` for
    /// one that is never an alert (green, yellow or white without a change).
    pub fn of(change: Change, color: &Color) -> Option<AlertKind> {
        let into = match color {
            Color::Black => Some(AlertKind::Black),
            Color::Red => Some(AlertKind::Red),
            _ => None,
        };
        match change {
            Change::Gone => Some(AlertKind::Gone),
            Change::Improved => Some(AlertKind::Improved),
            Change::Deteriorated => into.or(Some(AlertKind::Deteriorated)),
            Change::Changed => match color {
                Color::White => Some(AlertKind::White),
                Color::Other(_) => Some(AlertKind::Unknown),
                _ => into.or(Some(AlertKind::Changed)),
            },
            Change::New => match color {
                Color::Other(_) => Some(AlertKind::Unknown),
                _ => into,
            },
            Change::Unchanged | Change::Evolved => into.map(|_| AlertKind::Still),
        }
    }

    /// Steps up the risk scale from `previous` to `color` (green → red is 2); 0 when
    /// either is off the scale or it did not go up.
    pub fn steps(color: &Color, previous: Option<&Color>) -> u8 {
        match (color.risk_rank(), previous.and_then(Color::risk_rank)) {
            (Some(now), Some(before)) => now.saturating_sub(before),
            _ => 0,
        }
    }

    /// How the kind reads in a sentence: "into red", "still red or black".
    pub fn describe(self) -> &'static str {
        match self {
            AlertKind::Black => "into black",
            AlertKind::Red => "into red",
            AlertKind::Deteriorated => "deteriorated",
            AlertKind::White => "into white (no information any more)",
            AlertKind::Gone => "gone",
            AlertKind::Unknown => "unknown color",
            AlertKind::Changed => "changed",
            AlertKind::Improved => "improved",
            AlertKind::Still => "still red or black",
        }
    }
}

/// What became of one input row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowStatus {
    /// Resolved to a company and rated.
    Rated,
    /// The service knows no such company.
    Unresolved,
    /// Several companies match and none is a safe choice; see the candidates.
    Ambiguous,
    /// The row itself is wrong; the error names the field.
    #[default]
    Invalid,
    /// An API or network error after retries; the next run tries again.
    Failed,
    /// A person decided the row is to be left alone (`ratewatch review ignore`): no call.
    Ignored,
}

impl RowStatus {
    pub const ALL: [RowStatus; 6] = [
        RowStatus::Rated,
        RowStatus::Unresolved,
        RowStatus::Ambiguous,
        RowStatus::Invalid,
        RowStatus::Failed,
        RowStatus::Ignored,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Rated => "rated",
            RowStatus::Unresolved => "unresolved",
            RowStatus::Ambiguous => "ambiguous",
            RowStatus::Invalid => "invalid",
            RowStatus::Failed => "failed",
            RowStatus::Ignored => "ignored",
        }
    }

    pub fn parse(s: &str) -> Option<RowStatus> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// Where a screening run stands (`runs.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// In progress, or its process died (until the next run marks it interrupted).
    Running,
    /// Every row settled, none failed.
    Complete,
    /// Finished, but some rows failed; the next run retries them.
    Partial,
    /// Stopped before the end (killed, or a spent quota); the next run of the same file
    /// resumes it.
    Interrupted,
    /// Stopped by a fatal error; what was committed stays.
    Failed,
}

impl RunStatus {
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Running,
        RunStatus::Complete,
        RunStatus::Partial,
        RunStatus::Interrupted,
        RunStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Partial => "partial",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
        }
    }

    /// Reads a stored status; one this build does not know reads as `failed`, never as a
    /// clean run.
    pub fn parse(s: &str) -> RunStatus {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .unwrap_or(RunStatus::Failed)
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One portfolio record as read: trimmed, empty cells as `None`, with the line it starts on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputRow {
    pub line: u64,
    pub reference: Option<String>,
    pub country: Option<String>,
    pub service: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub street_number: Option<String>,
    pub street_name: Option<String>,
    pub city: Option<String>,
    pub postcode: Option<String>,
    pub phone: Option<String>,
    pub company_id: Option<String>,
    /// The columns ratewatch does not read (an exposure, a sales owner), carried through
    /// to the reports: (header, value), the filled ones only.
    pub extra: Vec<(String, String)>,
    /// The row's country was empty and the run's `default_country` is in `country`.
    pub country_defaulted: bool,
    /// The record had more fields than the header (an unquoted `120 000,00` in a
    /// comma-separated file): its carried columns may hold the wrong values.
    pub extra_unreliable: bool,
}

/// A company as the service describes it (the client converts its answers into this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    pub id: Uuid,
    /// The exact registered name.
    pub name: String,
    pub address: Address,
    pub phone: Option<String>,
    pub legal_form: String,
    /// Registry identifiers, as (service code, identifier).
    pub external_ids: Vec<(String, String)>,
}

/// A company's address; a part the service did not give is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Address {
    pub street_number: String,
    pub street_name: String,
    pub postcode: String,
    pub city: String,
    /// ISO 3166-1 alpha-2, upper case.
    pub country: String,
}

/// A country of the service's lookup list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166-1 alpha-2, upper case.
    pub code: String,
    pub name: String,
}

/// A registry the service searches by identifier in a country (its lookup list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentifierService {
    /// ISO 3166-1 alpha-2, upper case.
    pub country: String,
    /// The code a search by identifier names (`SIREN`, `CRO`, …).
    pub code: String,
    pub label: String,
}

/// A search by name: country and name are required, every filter optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameQuery {
    pub country: String,
    pub name: String,
    pub street_number: Option<String>,
    pub street_name: Option<String>,
    pub city: Option<String>,
    pub postcode: Option<String>,
    pub phone_number: Option<String>,
}

/// A person's answer for a row that needs one (`ratewatch review`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The row is this company: rated as if the portfolio gave its `company_id`.
    Accept(Uuid),
    /// The row is left alone: no call, reported ignored.
    Ignore,
    /// None of the candidates is the company: no search, reported unresolved until the row
    /// gets an identifier or another decision.
    Reject,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accept(_) => "accept",
            Verdict::Ignore => "ignore",
            Verdict::Reject => "reject",
        }
    }
}

/// A decision on one row: its reference and the search it makes, what was decided, when
/// and where from (a file path or `command line`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub reference: String,
    pub search_key: String,
    pub verdict: Verdict,
    pub decided_at: Timestamp,
    pub source: String,
}

impl Decision {
    /// The day it was made (`YYYY-MM-DD`, UTC), as the reports name it.
    pub fn day(&self) -> String {
        self.decided_at.strftime("%Y-%m-%d").to_string()
    }
}

/// One of several companies a name matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: Uuid,
    pub name: String,
    pub city: String,
    pub postcode: String,
}

/// One input row's result as reported (report.json's `rows`, report.csv's lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultRow {
    pub line: u64,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub country: Option<String>,
    pub service: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub status: RowStatus,
    pub company_id: Option<Uuid>,
    pub company_name: Option<String>,
    pub color: Option<Color>,
    pub previous_color: Option<Color>,
    pub change: Option<Change>,
    #[serde(serialize_with = "as_time_text")]
    pub last_change_date: Option<Timestamp>,
    /// When the service last recalculated the rating (its lastRefreshDate).
    #[serde(serialize_with = "as_time_text")]
    pub last_refresh_date: Option<Timestamp>,
    /// The rating was not recalculated for longer than the reports' threshold: see
    /// [`Staleness`], which sets it (the store leaves it false: it knows no threshold).
    pub stale: bool,
    pub alert: bool,
    /// Why the row's company is an alert, by the rules the run ended with.
    pub alert_kind: Option<AlertKind>,
    /// The row's company is an alert listed tonight (news by the rules, or a standing
    /// alert due again): what the summary, `runs.alerts` and the webhook count, one per
    /// company. An alert neither listed nor acknowledged is a standing one (`still`).
    pub alert_listed: bool,
    /// An acknowledgement (`ratewatch ack`) took the alert out of the summary.
    pub acknowledged: bool,
    pub error: Option<String>,
    pub candidates: Vec<Candidate>,
    /// The row's columns ratewatch does not read, as given: a JSON object in report.json.
    #[serde(serialize_with = "as_object")]
    pub extra: Vec<(String, String)>,
    /// The row's country was empty: the run's `default_country` was screened instead.
    pub country_defaulted: bool,
    /// The record had more fields than its header: its carried columns (`extra`) may be
    /// the wrong values, and `[alerts] min_exposure` does not judge them.
    pub extra_unreliable: bool,
    /// The search that found the company: the registry and identifier
    /// (`SIRET 55210055400013`), `name`, `company_id` or `review`; `None` when none did.
    pub found_by: Option<String>,
    /// The rating was used without a call: younger than its color's refresh age
    /// (`[refresh]`, `rating_max_age`).
    pub reused: bool,
    /// How old a reused rating was when the run started, in whole hours since a run last
    /// saw it (this machine's clock); `None` for a rating fetched by the run.
    pub rating_age_hours: Option<u64>,
    /// Not screened (invalid, unresolved, ambiguous), and named by the run's summary
    /// tonight: new in that state, or due again (`store::Store::name_unscreened`).
    #[serde(skip)]
    pub named: bool,
}

fn as_object<S: Serializer>(pairs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

/// A time in a report as the database holds it (`2026-11-21T02:00:00Z`).
fn as_time_text<S: Serializer>(time: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
    match time {
        Some(t) => s.serialize_str(&time_text(*t)),
        None => s.serialize_none(),
    }
}

/// When a rating counts as stale: the service has not recalculated it (its lastRefreshDate)
/// for more than `days` days before the run started.
///
/// Judged against the run's start, on this machine's clock, never against the time the
/// reports are written, so a past run's reports read the same whenever they are written
/// again. A lastRefreshDate the service put more than a day after ratewatch first saw the
/// rating reaches here as that moment (`store::clock`): such a rating is not fresh forever.
/// A rating without a lastRefreshDate is not stale: there is nothing to judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Staleness {
    days: u32,
    /// A rating recalculated before this instant is stale.
    cutoff: Timestamp,
}

impl Staleness {
    /// The threshold of a run judged at `started_at`.
    pub fn new(started_at: Timestamp, days: u32) -> Staleness {
        let span = jiff::SignedDuration::from_hours(24 * i64::from(days));
        // Beyond the calendar's range nothing can be that old.
        let cutoff = started_at.checked_sub(span).unwrap_or(Timestamp::MIN);
        Staleness { days, cutoff }
    }

    pub fn days(&self) -> u32 {
        self.days
    }

    /// Whether a rating recalculated at `last_refresh` is stale.
    pub fn is_stale(&self, last_refresh: Timestamp) -> bool {
        last_refresh < self.cutoff
    }

    /// Whether a row's rating is stale: only a rated row has a rating to judge.
    pub fn of(&self, row: &ResultRow) -> bool {
        row.status == RowStatus::Rated && row.last_refresh_date.is_some_and(|t| self.is_stale(t))
    }

    /// Sets the row's `stale`.
    pub fn mark(&self, row: &mut ResultRow) {
        row.stale = self.of(row);
    }
}

/// One run of a portfolio's trend: its rated rows by color, as its `by_color` counts them,
/// what came into each color that night, and what is at stake.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunColors {
    pub run_id: i64,
    pub started_at: Timestamp,
    /// Rated rows per color, most common first.
    pub by_color: Vec<(String, u64)>,
    /// Rated rows whose company came into each color in this run through a change
    /// (`deteriorated`, `improved`, `changed`), never at a first screening: the night's
    /// news, which the counts above hide in a large portfolio.
    pub new_by_color: Vec<(String, u64)>,
    /// The portfolio's amount column summed over the rated rows of each color; empty when
    /// no amount column is named.
    pub amount_by_color: Vec<(String, f64)>,
}

/// A run as recorded: its header and counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunInfo {
    pub id: i64,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub portfolio: String,
    pub input_path: String,
    pub portfolio_sha256: String,
    pub status: RunStatus,
    pub demo_day: Option<i64>,
    pub rows: u64,
    /// Rows per status, every status present (zero included).
    pub by_status: Vec<(RowStatus, u64)>,
    /// Rated rows per color, most common first.
    pub by_color: Vec<(String, u64)>,
    pub alerts: u64,
    /// API calls made, by endpoint name, by every process that worked on the run.
    pub calls: Vec<(String, u64)>,
    /// The service's time (requestDate) of the run's first dated rating, for the record:
    /// staleness, windows and observations go by this machine's clock (`started_at`).
    pub service_time: Option<Timestamp>,
    /// Headers of the portfolio's columns carried through to the reports, in its order.
    pub extra_columns: Vec<String>,
    /// What the summary says first about the run as a whole (kept lookup lists used, a
    /// portfolio that shrank, a rate limit that stopped the run).
    pub notes: Vec<String>,
}

/// The rows of one status, in counts by status.
pub fn rows_with(by_status: &[(RowStatus, u64)], status: RowStatus) -> u64 {
    by_status
        .iter()
        .find(|(s, _)| *s == status)
        .map_or(0, |(_, n)| *n)
}

impl RunInfo {
    /// The run's rows of one status.
    pub fn rows_with(&self, status: RowStatus) -> u64 {
        rows_with(&self.by_status, status)
    }

    /// Whether the run had rows and rated none of them: whatever the reason (every row
    /// unresolved, ambiguous, ignored, failed or invalid), nobody was screened, and that is
    /// never a good night.
    pub fn screened_nobody(&self) -> bool {
        self.rows > 0 && self.rows_with(RowStatus::Rated) == 0
    }
}

/// Makes each text of a value [`crate::text::printable`] in place, and each color its
/// bounded form: what every report and listing shows, whatever the portfolio held or an
/// older database kept.
pub trait MakePrintable {
    fn make_printable(&mut self);
}

impl MakePrintable for String {
    fn make_printable(&mut self) {
        crate::text::make_printable(self);
    }
}

impl MakePrintable for Color {
    fn make_printable(&mut self) {
        if let Color::Other(s) = self {
            *self = Color::parse(s);
        }
    }
}

impl<T: MakePrintable> MakePrintable for Option<T> {
    fn make_printable(&mut self) {
        if let Some(v) = self {
            v.make_printable();
        }
    }
}

impl<T: MakePrintable> MakePrintable for Vec<T> {
    fn make_printable(&mut self) {
        self.iter_mut().for_each(MakePrintable::make_printable);
    }
}

impl MakePrintable for (String, String) {
    fn make_printable(&mut self) {
        self.0.make_printable();
        self.1.make_printable();
    }
}

impl MakePrintable for Candidate {
    fn make_printable(&mut self) {
        self.name.make_printable();
        self.city.make_printable();
        self.postcode.make_printable();
    }
}

impl MakePrintable for ResultRow {
    fn make_printable(&mut self) {
        for text in [
            &mut self.reference,
            &mut self.country,
            &mut self.service,
            &mut self.id,
            &mut self.name,
            &mut self.company_name,
            &mut self.error,
        ] {
            text.make_printable();
        }
        self.color.make_printable();
        self.previous_color.make_printable();
        self.candidates.make_printable();
        self.extra.make_printable();
    }
}

impl MakePrintable for RunInfo {
    fn make_printable(&mut self) {
        for text in [
            &mut self.portfolio,
            &mut self.input_path,
            &mut self.portfolio_sha256,
        ] {
            text.make_printable();
        }
        bound_colors(&mut self.by_color);
        for (endpoint, _) in &mut self.calls {
            endpoint.make_printable();
        }
        self.extra_columns.make_printable();
        self.notes.make_printable();
    }
}

impl MakePrintable for RunColors {
    fn make_printable(&mut self) {
        bound_colors(&mut self.by_color);
        bound_colors(&mut self.new_by_color);
        bound_colors(&mut self.amount_by_color);
    }
}

/// A color an older database kept raw reads as any color read from it does.
fn bound_colors<T>(by_color: &mut [(String, T)]) {
    for (color, _) in by_color {
        *color = Color::parse(color).as_str().to_string();
    }
}

/// Times are stored as ISO 8601 UTC text to the second: sortable, readable, and what
/// SQLite's date functions understand.
pub fn time_text(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `2026-11-21T02:00:00Z` as a time, for tests.
#[cfg(test)]
pub fn time(text: &str) -> Timestamp {
    text.parse().unwrap()
}

#[cfg(test)]
impl ResultRow {
    /// Line `line` of a portfolio, `C-{line}` by SIREN 552100554, rated green for the first
    /// time, for formatters' tests.
    pub fn example(line: u64) -> ResultRow {
        ResultRow {
            line,
            reference: Some(format!("C-{line}")),
            country: Some("FR".into()),
            service: Some("SIREN".into()),
            id: Some("552100554".into()),
            name: None,
            status: RowStatus::Rated,
            company_id: Some(Uuid::nil()),
            company_name: Some("Acme SA".into()),
            color: Some(Color::Green),
            previous_color: None,
            change: Some(Change::New),
            last_change_date: Some(time("2026-01-01T00:00:00Z")),
            last_refresh_date: None,
            stale: false,
            alert: false,
            alert_kind: None,
            alert_listed: false,
            acknowledged: false,
            error: None,
            candidates: vec![],
            extra: vec![],
            country_defaulted: false,
            extra_unreliable: false,
            found_by: Some("SIREN 552100554".into()),
            reused: false,
            rating_age_hours: None,
            named: false,
        }
    }
}

#[cfg(test)]
impl RunInfo {
    /// An empty, complete run of the portfolio "customers", for formatters' tests.
    pub fn example() -> RunInfo {
        RunInfo {
            id: 1,
            started_at: time("2026-11-21T02:00:00Z"),
            finished_at: None,
            portfolio: "customers".into(),
            input_path: "customers.csv".into(),
            portfolio_sha256: String::new(),
            status: RunStatus::Complete,
            demo_day: None,
            rows: 0,
            by_status: vec![],
            by_color: vec![],
            alerts: 0,
            calls: vec![],
            notes: vec![],
            service_time: None,
            extra_columns: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_colors_parse_in_any_case() {
        assert_eq!(Color::parse(" Green "), Color::Green);
        assert_eq!(Color::parse("BLACK"), Color::Black);
        assert_eq!(Color::parse("white"), Color::White);
    }

    #[test]
    fn unknown_color_is_kept_not_dropped() {
        let c = Color::parse("Orange");
        assert_eq!(c, Color::Other("orange".into()));
        assert_eq!(c.as_str(), "orange");
        assert_eq!(c.risk_rank(), None);
        let json: Color = serde_json::from_str("\"orange\"").unwrap();
        assert_eq!(json, c);
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"orange\"");
    }

    #[test]
    fn an_unknown_color_that_is_not_a_word_is_kept_bounded_and_harmless() {
        assert_eq!(Color::parse("\u{1b}[8m"), Color::Other("??8m".into()));
        assert_eq!(Color::parse("or\u{202e}ange").as_str(), "or?ange");
        assert_eq!(Color::parse("dark red").as_str(), "dark red");
        assert_eq!(Color::parse("Very-Dark_Red 2").as_str(), "very-dark_red 2");
        let huge = Color::parse(&"a".repeat(100_000));
        assert_eq!(huge.as_str(), format!("{}…", "a".repeat(COLOR_MAX_CHARS)));
        let long = Color::parse(&format!("{}\u{1b}", "é".repeat(COLOR_MAX_CHARS)));
        assert_eq!(long.as_str().chars().count(), COLOR_MAX_CHARS + 1);
        assert!(long.as_str().ends_with('…'));
        // As the database gives it back: the same color.
        for c in [huge, long, Color::parse("\u{1b}[8m")] {
            assert_eq!(Color::parse(c.as_str()), c);
        }
    }

    #[test]
    fn every_text_of_a_row_and_a_run_is_made_printable() {
        let evil = "A\u{1b}[2J\u{202e}B";
        let mut row = ResultRow {
            reference: Some(evil.into()),
            name: Some(evil.into()),
            company_name: Some(evil.into()),
            error: Some(evil.into()),
            color: Some(Color::Other(evil.into())),
            previous_color: Some(Color::Other("x".repeat(100))),
            candidates: vec![Candidate {
                id: Uuid::nil(),
                name: evil.into(),
                city: evil.into(),
                postcode: evil.into(),
            }],
            extra: vec![(evil.into(), evil.into())],
            ..ResultRow::example(2)
        };
        row.make_printable();
        let text = serde_json::to_string(&row).unwrap();
        assert!(
            !text.contains("\\u001b") && !text.contains('\u{202e}'),
            "{text}"
        );
        assert_eq!(row.company_name.as_deref(), Some("A [2JB"));
        assert_eq!(row.color.as_ref().map(Color::as_str), Some("a??2j?b"));
        assert_eq!(row.extra, [("A [2JB".to_string(), "A [2JB".to_string())]);
        let mut run = RunInfo {
            portfolio: evil.into(),
            by_color: vec![(evil.into(), 1), ("red".into(), 2)],
            notes: vec![evil.into()],
            extra_columns: vec![evil.into()],
            ..RunInfo::example()
        };
        run.make_printable();
        assert_eq!(run.portfolio, "A [2JB");
        assert_eq!(
            run.by_color,
            [("a??2j?b".to_string(), 1), ("red".to_string(), 2)]
        );
        assert_eq!(
            (&run.notes[0][..], &run.extra_columns[0][..]),
            ("A [2JB", "A [2JB")
        );
    }

    #[test]
    fn risk_order_is_green_yellow_red_black() {
        let ranks: Vec<_> = [Color::Green, Color::Yellow, Color::Red, Color::Black]
            .iter()
            .map(|c| c.risk_rank().unwrap())
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Color::White.risk_rank(), None);
        assert!(Color::Red.is_alarming() && Color::Black.is_alarming());
        assert!(!Color::Yellow.is_alarming());
    }

    #[test]
    fn changes_are_classified_against_the_previous_observation() {
        use Change::*;
        use Color::*;
        let orange = Other("orange".into());
        // (previous color and change date, color now, change date now, the change)
        let cases = [
            (None, Red, Some(1), New),
            (Some((Green, Some(1))), Green, Some(1), Unchanged),
            (Some((Green, Some(1))), Green, Some(2), Evolved),
            (Some((Green, Some(1))), Red, Some(2), Deteriorated),
            (Some((Black, Some(1))), Yellow, Some(2), Improved),
            (Some((Red, Some(1))), White, Some(2), Changed),
            (Some((White, Some(1))), Green, Some(2), Changed),
            (Some((Green, None)), orange, None, Changed),
        ];
        for (previous, now, changed, expected) in cases {
            let previous = previous.as_ref().map(|(c, d)| (c, *d));
            assert_eq!(
                Change::classify(previous, &now, changed),
                expected,
                "{previous:?} → {now:?}"
            );
        }
        assert!(Changed.is_color_change() && !Evolved.is_color_change());
    }

    fn rated_row(last_refresh: Option<&str>) -> ResultRow {
        ResultRow {
            last_refresh_date: last_refresh.map(time),
            ..ResultRow::example(2)
        }
    }

    #[test]
    fn a_rating_is_stale_only_when_older_than_the_threshold_before_the_runs_start() {
        let s = Staleness::new(time("2026-11-21T02:00:00Z"), 30);
        assert_eq!(s.days(), 30);
        let stale = |date: &str| s.of(&rated_row(Some(date)));
        // Exactly 30 days before the start is not yet stale; a second earlier is.
        assert!(!stale("2026-10-22T02:00:00Z"));
        assert!(stale("2026-10-22T01:59:59Z"));
        assert!(!stale("2026-11-20T01:45:00Z"));
        assert!(stale("2025-12-26T01:30:00Z"));
        // Later than the start (the service's clock, or a resumed run): not stale.
        assert!(!stale("2026-11-22T00:00:00Z"));
        // An offset reads as the instant it names.
        assert!(!stale("2026-10-22T03:00:00+01:00"));
        assert!(stale("2026-10-22T02:59:59+01:00"));

        let zero = Staleness::new(time("2026-11-21T02:00:00Z"), 0);
        assert!(zero.of(&rated_row(Some("2026-11-21T01:59:59Z"))));
        assert!(!zero.of(&rated_row(Some("2026-11-21T02:00:00Z"))));
    }

    #[test]
    fn what_has_no_date_or_no_rating_is_not_stale() {
        let s = Staleness::new(time("2026-11-21T02:00:00Z"), 30);
        assert!(!s.of(&rated_row(None)), "no lastRefreshDate");
        let mut gone = rated_row(Some("2020-01-01T00:00:00Z"));
        gone.status = RowStatus::Unresolved;
        assert!(!s.of(&gone), "only a rated row is judged");

        let mut row = rated_row(Some("2020-01-01T00:00:00Z"));
        s.mark(&mut row);
        assert!(row.stale);
        let forever = Staleness::new(time("2026-11-21T02:00:00Z"), u32::MAX);
        forever.mark(&mut row);
        assert!(!row.stale, "a threshold past the calendar marks nothing");
    }
}
