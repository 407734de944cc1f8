//! A screening run as recorded: where it stands, its header and counts, and a night of
//! its portfolio's trend.

use std::fmt;

use jiff::Timestamp;
use serde::Serialize;

use super::RowStatus;
#[cfg(test)]
use super::time;

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
