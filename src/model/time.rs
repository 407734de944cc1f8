//! Times as text: how the database and the reports write an instant.

use jiff::Timestamp;

/// Times are stored as ISO 8601 UTC text to the second: sortable, readable, and what
/// SQLite's date functions understand.
pub fn time_text(t: Timestamp) -> String {
    utc_text(t, true).unwrap_or_else(|| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The UTC day of an instant: `2026-11-21`.
pub fn day_text(t: Timestamp) -> String {
    utc_text(t, false).unwrap_or_else(|| t.strftime("%Y-%m-%d").to_string())
}

/// An instant in UTC as `strftime` writes `%Y-%m-%d`, then `T%H:%M:%SZ` if `with_time`,
/// digit by digit: a run and its reports write a few for each row, and a format string
/// interpreted each time cost more than the row's other text. `None` outside the years
/// 0 to 9999, which `strftime` writes otherwise.
fn utc_text(t: Timestamp, with_time: bool) -> Option<String> {
    let d = jiff::tz::Offset::UTC.to_datetime(t);
    let year = u16::try_from(d.year()).ok()?;
    let mut text = String::with_capacity(20);
    let digits = |text: &mut String, n: u16, width: u32| {
        for place in (0..width).rev() {
            text.push(char::from(b'0' + (n / 10u16.pow(place) % 10) as u8));
        }
    };
    digits(&mut text, year, 4);
    let fields = [
        ('-', d.month()),
        ('-', d.day()),
        ('T', d.hour()),
        (':', d.minute()),
        (':', d.second()),
    ];
    for (separator, n) in &fields[..if with_time { 5 } else { 2 }] {
        text.push(*separator);
        digits(&mut text, *n as u16, 2);
    }
    if with_time {
        text.push('Z');
    }
    Some(text)
}

/// `2026-11-21T02:00:00Z` as a time, for tests.
#[cfg(test)]
pub fn time(text: &str) -> Timestamp {
    text.parse().unwrap()
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::{day_text, time_text};

    #[test]
    fn an_instant_is_written_as_iso_8601_utc_to_the_second() {
        for (seconds, nanos) in [
            (0, 0),
            (1_795_000_000, 999_999_999),
            (1_795_000_000, 1),
            (951_782_400, 0),
            (-1, 0),
            (-62_135_596_800, 0),
            (253_402_207_200, 0),
        ] {
            let t = Timestamp::new(seconds, nanos).unwrap();
            assert_eq!(
                time_text(t),
                t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
                "{seconds}.{nanos}"
            );
            assert_eq!(
                day_text(t),
                t.strftime("%Y-%m-%d").to_string(),
                "{seconds}.{nanos}"
            );
        }
        let t = Timestamp::new(1_795_000_000, 5).unwrap();
        assert_eq!(time_text(t), "2026-11-18T11:06:40Z");
        let before_year_zero = Timestamp::MIN;
        assert_eq!(
            time_text(before_year_zero),
            before_year_zero.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
        );
        assert_eq!(
            day_text(before_year_zero),
            before_year_zero.strftime("%Y-%m-%d").to_string()
        );
    }
}
