//! What the pipeline keeps count of across rows, for how a run ends: whether the service
//! has proven itself ([`Canary`]: a "not found" is believed only from a service that has
//! answered something else, and [`WRONG_ADDRESS_PROOF`] of them with nothing else stop the
//! run), and the rows found only by a later search than their first ([`FellBack`]); both
//! end in [`Completed`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::api::ApiError;
use crate::lock;

/// "Not found" answers that, with no other answer, stop a run as talking to the wrong
/// address. Twenty unknown companies in a row, first thing, is not a portfolio.
pub const WRONG_ADDRESS_PROOF: u64 = 20;

/// How a run ended, when it was not stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completed {
    /// "Not found" answers of a run where no search or rating succeeded (fewer than
    /// [`WRONG_ADDRESS_PROOF`]): their rows failed, and nothing was cached.
    pub unconfirmed_not_found: u64,
    /// Rows whose company a search found only by a later identifier, or by the name,
    /// after the row's first identifier failed (this night or, from the cache, before).
    pub fell_back: FellBack,
}

/// Rows found only by a later search than their first, whether the search was made this
/// night or answered from the cache: the export still needs correcting while they are.
/// The first few by line, every line, and how many.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FellBack {
    pub rows: u64,
    /// Every such row's line, for the store to tell which were so the night before.
    pub lines: Vec<u64>,
    /// The first [`FELL_BACK_NAMED`] by line: (line, ref, the first identifier and what
    /// was wrong with it, the search that found the company).
    pub first: Vec<(u64, Option<String>, String, String)>,
}

/// Rows that fell back named in the run's note.
pub const FELL_BACK_NAMED: usize = 5;

/// How the run's note on them begins, in full and as a reminder.
pub const FELL_BACK_NOTE: &str = "IDENTIFIERS:";
pub const FELL_BACK_REMINDER: &str = "IDENTIFIERS: still";

impl FellBack {
    pub(super) fn add(
        &mut self,
        line: u64,
        reference: Option<String>,
        failed: String,
        found_by: String,
    ) {
        self.rows += 1;
        self.lines.push(line);
        let at = self.first.partition_point(|(l, ..)| *l < line);
        if at < FELL_BACK_NAMED {
            self.first.insert(at, (line, reference, failed, found_by));
            self.first.truncate(FELL_BACK_NAMED);
        }
    }

    /// The run's note on them, if any: they are screened, but their first identifier is
    /// wrong in the export. `full` says what failed and what found each (the night they
    /// are news, or due again as standing alerts are, see `Store::names_fell_back`);
    /// otherwise a reminder names them only.
    pub fn note(&self, full: bool) -> Option<String> {
        if self.rows == 0 {
            return None;
        }
        let mut named: Vec<String> = self
            .first
            .iter()
            .map(|(line, reference, failed, found_by)| {
                let who = match reference {
                    Some(r) => format!("{r} (line {line})"),
                    None => format!("line {line}"),
                };
                match full {
                    true => format!("{who}: found by {found_by}, after {failed}"),
                    false => who,
                }
            })
            .collect();
        if self.rows > self.first.len() as u64 {
            named.push("…".into());
        }
        let (start, rows, separator) = match (self.rows, full) {
            (1, true) => (FELL_BACK_NOTE, "1 row was".to_string(), "; "),
            (n, true) => (FELL_BACK_NOTE, format!("{n} rows were"), "; "),
            (1, false) => (FELL_BACK_REMINDER, "1 row".to_string(), ", "),
            (n, false) => (FELL_BACK_REMINDER, format!("{n} rows"), ", "),
        };
        Some(format!(
            "{start} {rows} found only by a later identifier or the name, their first one failing: correct it in the export ({})",
            named.join(separator)
        ))
    }
}

/// Whether the run talks to the service: proven by one search or rating that succeeds.
/// Until then, work resting on a "not found" (`W`) is held back here.
pub(super) struct Canary<W> {
    proven: AtomicBool,
    not_found: AtomicU64,
    deferred: Mutex<Vec<W>>,
}

impl<W> Default for Canary<W> {
    fn default() -> Self {
        Canary {
            proven: AtomicBool::new(false),
            not_found: AtomicU64::new(0),
            deferred: Mutex::new(Vec::new()),
        }
    }
}

impl<W> Canary<W> {
    /// Hears every answer to a search or a rating.
    pub(super) fn hear<T>(&self, answer: &Result<T, ApiError>) {
        match answer {
            Ok(_) => self.proven.store(true, Ordering::Relaxed),
            Err(ApiError::NotFound { .. }) => {
                self.not_found.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {}
        }
    }

    pub(super) fn proven(&self) -> bool {
        self.proven.load(Ordering::Relaxed)
    }

    /// The "not found" answers heard so far.
    pub(super) fn not_found(&self) -> u64 {
        self.not_found.load(Ordering::Relaxed)
    }

    /// The "not found" answers, when they prove the address wrong: [`WRONG_ADDRESS_PROOF`]
    /// of them at least, and no other answer.
    pub(super) fn wrong_address(&self) -> Option<u64> {
        let not_found = self.not_found();
        (!self.proven() && not_found >= WRONG_ADDRESS_PROOF).then_some(not_found)
    }

    pub(super) fn defer(&self, work: W) {
        lock(&self.deferred).push(work);
    }

    /// The work held back so far, taken.
    pub(super) fn take_deferred(&self) -> Vec<W> {
        std::mem::take(&mut *lock(&self.deferred))
    }
}
