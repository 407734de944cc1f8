//! Searches and their answers: a search by name, the candidates a name matched, what a
//! person decided on a row that needs one (`ratewatch review`), and what a search found
//! as the resolution cache keeps it and a run takes it back (plain values: the stages
//! judge a cached answer without knowing how it is stored).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

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

/// A decision on one row: its reference and the search it makes, what was decided, when,
/// where from (a file path, `command line` or `web page`), by whom and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub reference: String,
    pub search_key: String,
    pub verdict: Verdict,
    pub decided_at: Timestamp,
    pub source: String,
    /// Who decided; `None` for a decision made before ratewatch recorded it.
    pub by: Option<String>,
    pub note: Option<String>,
}

impl Decision {
    /// The day it was made (`YYYY-MM-DD`, UTC), as the reports name it.
    pub fn day(&self) -> String {
        self.decided_at.strftime("%Y-%m-%d").to_string()
    }
}

/// One of several companies a name matched, or a company a loosened search found when the
/// row's own search found none (`found_without` says what was left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: Uuid,
    pub name: String,
    pub city: String,
    pub postcode: String,
    /// Found only once the row's search left out these filters ("the postcode 75146 and
    /// the city Paris"): never taken as the row's company, offered for a person to confirm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_without: Option<String>,
}

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
    /// The company found, as a candidate shows it (its name, city and postcode as the
    /// database holds them): what a loosened search offers.
    pub company: Option<Candidate>,
    pub candidates: Vec<Candidate>,
    pub resolved_at: Timestamp,
    /// Asked for an identifier: whether the company holds it exactly as asked.
    pub holds_exactly: bool,
    /// Asked for an identifier the company does not hold exactly as asked: the registry
    /// identifiers it holds (service code, identifier), for the caller to compare by the
    /// registries' rules. Empty otherwise.
    pub external_ids: Vec<(String, String)>,
}
