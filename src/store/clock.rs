//! The local clock rules: whatever time the service puts on an answer (its requestDate),
//! ratewatch dates what it observes by this machine's clock. A service date more than
//! [`CLOCK_TOLERANCE`] from it is counted and warned about; it never dates an observation,
//! moves a window or judges staleness, and an account's request dated that far ahead
//! (`sync-history`) is set aside.
//!
//! The same holds for a rating's own dates: a lastRefreshDate or lastChangeDate more than
//! [`CLOCK_TOLERANCE`] after ratewatch first saw the rating (`ratings.observed_at`; for a
//! later refresh date, the end of the run that noted it in `rating_refreshes`) cannot be
//! true. `ratings` keeps it as the service gave it (it names the rating: the same
//! answer tomorrow is the same rating), the run's notes count it ([`Store::future_dates_note`]),
//! and everything that ages a rating takes it as of that moment instead: the reports'
//! dates and staleness (`run_results`, `latest_results`), `portfolio_now`'s `color_since`
//! and `days_in_color`, and the alerts' refreshed day ([`as_seen`]). A rating the service
//! dates in 2099 is thus not fresh forever: it grows stale from the night it was seen.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::sql::StoreError;
use crate::model::time_text;

/// How far the service's clock may be from this machine's before it is a warning: a day,
/// more than any real clock drifts and less than any calendar mistake.
pub const CLOCK_TOLERANCE: SignedDuration = SignedDuration::from_hours(24);

/// Whether a service date is more than [`CLOCK_TOLERANCE`] from `now`.
pub fn off_clock(at: Timestamp, now: Timestamp) -> bool {
    at.duration_since(now).abs() > CLOCK_TOLERANCE
}

/// SQL for a rating's service date (`date`, such as `r.last_refresh_date`) as ratewatch
/// ages it: as the moment ratewatch first saw it (`observed_at`) when it lies more than
/// [`CLOCK_TOLERANCE`] after it. migrations/schema.sql's views say the same.
pub(crate) fn as_seen(date: &str, observed_at: &str) -> String {
    format!(
        "CASE WHEN julianday({date}) > julianday({observed_at}, '+1 day') \
         THEN {observed_at} ELSE {date} END"
    )
}

/// How many examples of ratings dated ahead the run's note names.
const EXAMPLES: usize = 2;

/// A rating's date the service put ahead of this machine's clock: the company (its key),
/// which date, and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ahead {
    company: i64,
    field: &'static str,
    at: Timestamp,
}

/// This machine's clock as the store reads it, and the count of the answers whose
/// requestDate is off it, and of the ratings dated ahead of it. Shared by the store and
/// its writer: the writer counts, the run reads the count from the store once the pipeline
/// is done ([`Store::off_clock_answers`], [`Store::future_dates_note`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ServiceClock {
    off: Arc<AtomicU64>,
    /// Ratings whose lastRefreshDate or lastChangeDate lies ahead, and the first few.
    ahead: Arc<Mutex<(u64, Vec<Ahead>)>>,
    /// An instant that stands for now (the store's tests); none: the machine's clock.
    pinned: Arc<Mutex<Option<Timestamp>>>,
}

impl ServiceClock {
    /// Now.
    pub(crate) fn now(&self) -> Timestamp {
        self.pinned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap_or_else(Timestamp::now)
    }

    /// Makes `at` stand for now, or the machine's clock again (`None`).
    #[cfg(test)]
    pub(crate) fn pin(&self, at: Option<Timestamp>) {
        *self.pinned.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }

    /// Notes the service's date of an answer received `now`; warns at the first one off
    /// the clock (the count comes with the run's summary).
    pub(crate) fn check(&self, requested: Option<Timestamp>, now: Timestamp) {
        let Some(at) = requested.filter(|at| off_clock(*at, now)) else {
            return;
        };
        if self.off.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                request_date = %at,
                local_time = %time_text(now),
                "the service dates its answer more than a day from this machine's clock; ratewatch dates what it observes by its own clock"
            );
        }
    }

    pub(crate) fn count(&self) -> u64 {
        self.off.load(Ordering::Relaxed)
    }

    /// Notes a rating of `company` observed `now` whose lastRefreshDate or lastChangeDate
    /// lies more than [`CLOCK_TOLERANCE`] ahead; warns at the first one.
    pub(crate) fn check_dates(&self, company: i64, rating: &crate::model::Rating, now: Timestamp) {
        let ahead = [
            ("lastRefreshDate", rating.last_refresh),
            ("lastChangeDate", rating.last_change),
        ]
        .into_iter()
        .find_map(|(field, at)| at.filter(|at| ahead_of(*at, now)).map(|at| (field, at)));
        let Some((field, at)) = ahead else {
            return;
        };
        let mut seen = self.ahead.lock().unwrap_or_else(|p| p.into_inner());
        if seen.0 == 0 {
            tracing::warn!(
                company_id = %rating.company_id,
                field,
                date = %time_text(at),
                local_time = %time_text(now),
                "the service dates a rating more than a day ahead of this machine's clock; it is aged from when this run saw it"
            );
        }
        seen.0 += 1;
        if seen.1.len() < EXAMPLES {
            seen.1.push(Ahead { company, field, at });
        }
    }

    fn ahead(&self) -> (u64, Vec<Ahead>) {
        self.ahead.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Whether a rating's date lies more than [`CLOCK_TOLERANCE`] after `now`, when it was seen.
pub fn ahead_of(at: Timestamp, now: Timestamp) -> bool {
    at.duration_since(now) > CLOCK_TOLERANCE
}

impl Store {
    /// How many answers of the runs written through this store were dated by the service
    /// more than a day from this machine's clock.
    pub fn off_clock_answers(&self) -> u64 {
        self.service_clock.count()
    }

    /// The run's note about the service's clock, when some of its answers were off it.
    pub fn service_clock_note(&self) -> Option<String> {
        clock_note(self.off_clock_answers())
    }

    /// The run's note about the ratings its writers saw dated more than a day ahead
    /// (lastRefreshDate or lastChangeDate), with the first ones by their row's ref in run
    /// `run_id` (else the company's id); none when there were none.
    pub fn future_dates_note(&self, run_id: i64) -> Result<Option<String>, StoreError> {
        let (count, examples) = self.service_clock.ahead();
        if count == 0 {
            return Ok(None);
        }
        let mut named = Vec::new();
        for Ahead { company, field, at } in examples {
            let name: Option<String> = self
                .conn
                .query_row(
                    "SELECT coalesce(
                         (SELECT i.ref FROM run_rows rr JOIN inputs i ON i.id = rr.input_id
                          WHERE rr.run_id = ?1 AND rr.company = ?2 AND i.ref IS NOT NULL
                          ORDER BY rr.line LIMIT 1),
                         (SELECT company_id FROM companies WHERE id = ?2))",
                    params![run_id, company],
                    |r| r.get(0),
                )
                .optional()
                .map_err(StoreError::at("naming the ratings dated ahead"))?
                .flatten();
            let name = crate::text::printable(name.as_deref().unwrap_or("?"));
            named.push(format!("{name} ({field} {})", time_text(at)));
        }
        let ratings = if count == 1 {
            "1 rating".to_string()
        } else {
            format!("{count} ratings")
        };
        Ok(Some(format!(
            "CLOCK: the service dated {ratings} more than a day ahead of this machine's clock (lastRefreshDate or lastChangeDate), e.g. {}; each is taken as of when ratewatch first saw it for staleness and days in color (the service's dates stay in the database): check the service's data",
            named.join(", ")
        )))
    }

    /// Makes `at` stand for now in what this store and its writers record (`None`: this
    /// machine's clock again).
    #[cfg(test)]
    pub(crate) fn pin_clock(&self, at: Option<Timestamp>) {
        self.service_clock.pin(at);
    }

    /// Now, as this store records it.
    pub(crate) fn clock_now(&self) -> Timestamp {
        self.service_clock.now()
    }
}

/// The summary's line for `off` answers dated off the clock; none for none.
pub fn clock_note(off: u64) -> Option<String> {
    let answers = if off == 1 {
        "1 answer".to_string()
    } else {
        format!("{off} answers")
    };
    (off > 0).then(|| {
        format!(
            "CLOCK: the service dated {answers} more than a day from this machine's clock (requestDate); they were dated by this machine's clock instead: check either clock"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_either_way_is_tolerated_and_more_is_counted_once_each() {
        let now: Timestamp = "2026-11-26T10:00:00Z".parse().unwrap();
        let clock = ServiceClock::default();
        for at in [
            "2026-11-25T10:00:00Z",
            "2026-11-27T10:00:00Z",
            "2026-11-26T09:59:59.5Z",
        ] {
            clock.check(Some(at.parse().unwrap()), now);
        }
        clock.check(None, now);
        assert_eq!(clock.count(), 0);
        for at in [
            "2000-01-01T00:00:00Z",
            "2099-01-01T00:00:00Z",
            "2026-11-27T10:00:01Z",
        ] {
            clock.check(Some(at.parse().unwrap()), now);
        }
        assert_eq!(clock.clone().count(), 3, "clones share the count");
        assert_eq!(clock_note(0), None);
        assert!(
            clock_note(1)
                .unwrap()
                .contains("dated 1 answer more than a day")
        );
        assert!(
            clock_note(3)
                .unwrap()
                .starts_with("CLOCK: the service dated 3 answers")
        );
    }
}
