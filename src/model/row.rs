//! A portfolio row: as read, what became of it, and its result as the reports show it.

use jiff::Timestamp;
use serde::{Serialize, Serializer};
use uuid::Uuid;

#[cfg(test)]
use super::time;
use super::{AlertKind, Candidate, Change, Color, time_text};

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
    /// Since when the company held the row's color: the start of its color period as the
    /// view `color_periods` dates it (`last_change_date` is the service's date, which
    /// moves when the service recalculates the rating, also when the color stays).
    #[serde(serialize_with = "as_time_text")]
    pub color_since: Option<Timestamp>,
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
            color_since: None,
            named: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
