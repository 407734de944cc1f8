//! Times a person types (`--since`, `--until`, the until of an acknowledgement on the
//! inbox page): a date or a time, read the same everywhere.

use jiff::{SignedDuration, Timestamp};

use crate::error::Error;

/// Which end of the window a time given on the command line bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Included: a date means the start of that day.
    From,
    /// Included too: a date means up to the end of that day, a time up to that second.
    /// The instant returned is the first one after, so the window is `[from, to)`.
    To,
}

/// A date (`2026-11-01`, UTC) or a time (`2026-11-01T02:00:00Z`; without an offset,
/// UTC), to the second like the stored times.
pub fn parse_time(flag: &str, text: &str, bound: Bound) -> Result<Timestamp, Error> {
    let text = text.trim();
    let bad = || {
        Error::Config(format!(
            "{flag} {text:?} is neither a date (2026-11-01) nor a time (2026-11-01T02:00:00Z)"
        ))
    };
    let utc = jiff::tz::TimeZone::UTC;
    if let Ok(date) = text.parse::<jiff::civil::Date>()
        && text.len() == 10
    {
        let date = match bound {
            Bound::From => date,
            Bound::To => date.tomorrow().map_err(|_| bad())?,
        };
        return date.to_zoned(utc).map(|z| z.timestamp()).map_err(|_| bad());
    }
    let at = text
        .parse::<Timestamp>()
        .or_else(|_| {
            text.parse::<jiff::civil::DateTime>()
                .and_then(|t| t.to_zoned(utc.clone()))
                .map(|z| z.timestamp())
        })
        .map_err(|_| bad())?;
    let second = Timestamp::from_second(at.as_second()).map_err(|_| bad())?;
    match bound {
        Bound::From => Ok(second),
        Bound::To => second
            .checked_add(SignedDuration::from_secs(1))
            .map_err(|_| bad()),
    }
}
