//! Times as text: how the database and the reports write an instant.

use jiff::Timestamp;

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
