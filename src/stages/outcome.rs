//! What screening a row came to, before it is recorded: its outcome, what one of its
//! searches found, the work held back until the service has shown it is the service, and
//! how an answer or a failure turns into the row's record.

use std::sync::Arc;

use uuid::Uuid;

use crate::api::ApiError;
use crate::model::RowStatus;
use crate::stages::in_flight::Failure;
use crate::stages::input::InputError;
use crate::store::{Record, RowRecord, StoreError};

/// What stops a run.
#[derive(Debug)]
pub enum Fatal {
    /// The service refused the key or the product, or sent the calls to another server:
    /// every further call would fail the same way.
    Refused(ApiError),
    /// Every search and rating answered "not found", [`WRONG_ADDRESS_PROOF`](super::tally::WRONG_ADDRESS_PROOF) of them at
    /// least: not the service, or not the right address.
    WrongAddress {
        not_found: u64,
    },
    Store(StoreError),
    Input(InputError),
}

/// The error of a row whose "not found" no answer of the run confirmed.
pub(super) const UNPROVEN: &str = "the service answered 'not found', but nothing else in this run: not believed from what may not be the service (check --base-url); screened again next run";

/// What screening a row came to, before it is recorded.
#[derive(Debug)]
pub(super) struct RowOutcome {
    pub(super) record: RowRecord,
    /// Its outcome rests on a "not found" answer of this run.
    pub(super) not_found: bool,
    /// A company the service had answered for and now says it does not know.
    pub(super) vanished: Option<Uuid>,
}

impl From<RowRecord> for RowOutcome {
    fn from(record: RowRecord) -> Self {
        RowOutcome {
            record,
            not_found: false,
            vanished: None,
        }
    }
}

/// What one search of a row's came to.
#[derive(Debug)]
pub(super) enum Searched {
    /// The row's outcome; `true` when the search (of this run or from the cache) rated
    /// the company it found.
    Done(RowOutcome, bool),
    /// No company: the row goes on to its next search. `not_found`: the service said so
    /// with a 404 in this run; `vanished`: the cached company it found before is unknown.
    NoMatch {
        record: RowRecord,
        not_found: bool,
        vanished: Option<Uuid>,
        /// `review` rejected this search's candidates: why, for the row's error.
        rejected: Option<String>,
    },
}

/// Work held back until the service has shown it is the service.
#[derive(Debug)]
pub(super) enum Deferred {
    Record(Record),
    Row(Box<RowOutcome>),
}

/// The error of a row whose blank country took `default_country`, when it was not
/// screened for a reason of its own (no match, several, a field wrong for that country),
/// opens with the country assumed: a foreign customer left without a country is the
/// first thing to check.
pub(super) fn said_assumed(record: &mut RowRecord, country: &str) {
    let own = matches!(
        record.status,
        RowStatus::Unresolved | RowStatus::Ambiguous | RowStatus::Invalid
    );
    if let (true, Some(error)) = (own, &mut record.error) {
        *error = format!("{country} assumed: {error}");
    }
}

pub(super) fn rated(record: RowRecord) -> RowRecord {
    RowRecord {
        status: RowStatus::Rated,
        error: None,
        ..record
    }
}

/// An API error fails the row; a refused key or product, or a storage error, stops the
/// run. (A spent quota fails this row and every later one without a call.)
pub(super) fn failed(record: RowRecord, failure: Failure) -> Result<RowRecord, Fatal> {
    match failure {
        Failure::Api(
            e @ (ApiError::Unauthenticated { .. }
            | ApiError::Forbidden { .. }
            | ApiError::Redirected { .. }),
        ) => Err(Fatal::Refused(e)),
        Failure::Api(e) => Ok(RowRecord {
            status: RowStatus::Failed,
            error: Some(e.to_string()),
            ..record
        }),
        Failure::Store(e) => Err(Fatal::Store(
            Arc::try_unwrap(e).unwrap_or_else(|e| StoreError::WriterGone(e.to_string())),
        )),
    }
}
