//! What a search found, as the resolution cache keeps it and a run takes it back: plain
//! values, so that the stages judge a cached answer without knowing how it is stored.

use jiff::Timestamp;
use uuid::Uuid;

use super::Candidate;

/// How a search ended, as cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchOutcome {
    Resolved,
    Ambiguous,
    Unresolved,
}

impl SearchOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchOutcome::Resolved => "resolved",
            SearchOutcome::Ambiguous => "ambiguous",
            SearchOutcome::Unresolved => "unresolved",
        }
    }
    pub fn parse(s: &str) -> Option<SearchOutcome> {
        [
            SearchOutcome::Resolved,
            SearchOutcome::Ambiguous,
            SearchOutcome::Unresolved,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }
}

/// A cached resolution: what the service answered for one normalized input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResolution {
    pub outcome: SearchOutcome,
    pub company_id: Option<Uuid>,
    pub candidates: Vec<Candidate>,
    pub resolved_at: Timestamp,
    /// Asked for an identifier: whether the company holds it exactly as asked.
    pub holds_exactly: bool,
    /// Asked for an identifier the company does not hold exactly as asked: the registry
    /// identifiers it holds (service code, identifier), for the caller to compare by the
    /// registries' rules. Empty otherwise.
    pub external_ids: Vec<(String, String)>,
}
