//! What a run does last, once its reports are written and its messages handed on: the rows
//! of runs older than `keep_run_details_days` deleted (`Store::prune_run_details`), under
//! the run's lock again, so that no other run starts meanwhile. It never changes the
//! night's outcome: a database busy or failing is a line in the log, and the next run
//! deletes what this one left.

use std::path::Path;
use std::time::Instant;

use crate::store::{RunLock, Store};

/// Deletes the rows of the runs that started more than `keep_days` days before run
/// `run_id` (0: none), and says so in the log.
pub(super) fn prune_old_details(db: &Path, run_id: i64, keep_days: u32) {
    if keep_days == 0 {
        return;
    }
    let why_not = |e: &dyn std::fmt::Display| {
        tracing::warn!(
            "{}: the rows of runs older than {keep_days} days (keep_run_details_days) are not deleted tonight: {e}; the next run deletes them",
            db.display()
        );
    };
    // Declared before the store, so it is released after it.
    let _lock = match RunLock::acquire(db) {
        Ok(lock) => lock,
        Err(e) => return why_not(&e),
    };
    let store = match Store::open(db) {
        Ok(store) => store,
        Err(e) => return why_not(&e),
    };
    let started = Instant::now();
    match store.prune_run_details(run_id, keep_days) {
        Ok(pruned) if pruned.runs > 0 || pruned.left => tracing::info!(
            runs = pruned.runs,
            rows = pruned.rows,
            left = pruned.left,
            duration_ms = started.elapsed().as_millis() as u64,
            "deleted the rows of runs older than {keep_days} days (keep_run_details_days){}",
            if pruned.left {
                "; the rest is deleted by the next run"
            } else {
                ""
            }
        ),
        Ok(_) => {}
        Err(e) => why_not(&e),
    }
}
