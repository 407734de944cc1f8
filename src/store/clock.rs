//! The local clock rules: whatever time the service puts on an answer (its requestDate),
//! ratewatch dates what it observes by this machine's clock. A service date more than
//! [`CLOCK_TOLERANCE`] from it is counted and warned about; it never dates an observation,
//! moves a window or judges staleness, and an account's request dated that far ahead
//! (`sync-history`) is set aside.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};

use super::{Store, time_text};

/// How far the service's clock may be from this machine's before it is a warning: a day,
/// more than any real clock drifts and less than any calendar mistake.
pub const CLOCK_TOLERANCE: SignedDuration = SignedDuration::from_hours(24);

/// Whether a service date is more than [`CLOCK_TOLERANCE`] from `now`.
pub fn off_clock(at: Timestamp, now: Timestamp) -> bool {
    at.duration_since(now).abs() > CLOCK_TOLERANCE
}

/// This machine's clock as the store reads it, and the count of the answers whose
/// requestDate is off it. Shared by the store and its writer: the writer counts, the run
/// reads the count from the store once the pipeline is done ([`Store::off_clock_answers`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ServiceClock {
    off: Arc<AtomicU64>,
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
