//! What a run hands on besides its summary and report files, once it has ended:
//! [`metrics`] (a Prometheus textfile, `--metrics-file`) and [`webhook`] (its alerts
//! POSTed as one JSON document, `--notify-webhook`).
//!
//! A delivery never changes a run's outcome or exit code: what went wrong comes back as
//! lines for stderr, and as warnings in the log. Both read the database as the run left
//! it, as the reports do.

pub mod metrics;
pub mod webhook;

use std::path::Path;
use std::time::Duration;

use crate::model::RunStatus;
use crate::store::Store;
use webhook::{Policy, WebhookUrl};

/// How a run ended, as far as delivery needs to know.
#[derive(Debug, Clone)]
pub struct EndedRun<'a> {
    pub db: &'a Path,
    pub portfolio: &'a str,
    /// The run's record, when it got as far as one.
    pub run_id: Option<i64>,
    /// The run returned without an error.
    pub ok: bool,
    pub duration: Duration,
}

/// Where a run's results go.
#[derive(Debug, Clone, Copy)]
pub struct Targets<'a> {
    pub metrics_file: Option<&'a Path>,
    pub webhook: Option<&'a WebhookUrl>,
    pub policy: &'a Policy,
}

/// Writes the metrics file, then posts the webhook, each if asked; returns one line for
/// each that failed (`webhook: not delivered after 3 attempts: HTTP 500 (…)`).
pub async fn deliver(ended: &EndedRun<'_>, targets: Targets<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    if targets.metrics_file.is_none() && targets.webhook.is_none() {
        return problems;
    }
    let store = match Store::open_read_only(ended.db) {
        Ok(store) => Some(store),
        Err(e) => {
            let reason = format!("cannot read database {}: {e}", ended.db.display());
            if let Some(path) = targets.metrics_file {
                problems.push(format!("metrics: {} not written: {reason}", path.display()));
            }
            if let Some(url) = targets.webhook {
                problems.push(format!("webhook: not sent to {url}: {reason}"));
            }
            None
        }
    };
    let Some(store) = store else {
        warn(&problems);
        return problems;
    };
    if let Some(path) = targets.metrics_file {
        match write_metrics(&store, ended, path) {
            Ok(()) => tracing::info!(metrics_file = %path.display(), "metrics written"),
            Err(e) => problems.push(format!("metrics: {} not written: {e}", path.display())),
        }
    }
    // A run that stopped before it had a record has nothing to send: the metrics file
    // says it failed.
    if let (Some(url), Some(run_id)) = (targets.webhook, ended.run_id) {
        let body = webhook::document(&store, run_id).map(|d| d.to_string().into_bytes());
        // The database is not held while the receiver takes its time.
        drop(store);
        match body {
            Err(e) => problems.push(format!("webhook: not sent to {url}: {e}")),
            Ok(body) => match webhook::post(url, body, targets.policy).await {
                Ok(attempts) => tracing::info!(webhook = %url, attempts, "webhook delivered"),
                Err(failed) => problems.push(format!(
                    "webhook: not delivered after {} attempt{}: {} ({url})",
                    failed.attempts,
                    if failed.attempts == 1 { "" } else { "s" },
                    failed.last
                )),
            },
        }
    }
    warn(&problems);
    problems
}

fn warn(problems: &[String]) {
    for problem in problems {
        tracing::warn!("{problem}");
    }
}

/// The figures of the run from the database, and the file written.
fn write_metrics(store: &Store, ended: &EndedRun<'_>, path: &Path) -> Result<(), String> {
    let run = match ended.run_id {
        Some(id) => {
            let mut run = store.run_info(id).map_err(|e| e.to_string())?;
            // Its texts and colors as the reports show them, whatever an older version
            // stored.
            crate::model::MakePrintable::make_printable(&mut run);
            Some(run)
        }
        None => None,
    };
    let status = match &run {
        Some(run) if ended.ok || run.status != RunStatus::Running => run.status,
        _ => RunStatus::Failed,
    };
    let last_success = store
        .last_complete(ended.portfolio)
        .map_err(|e| e.to_string())?
        .and_then(|t| t.parse().ok());
    let figures = metrics::Figures {
        portfolio: crate::text::printable(ended.portfolio),
        // A run that rated nobody is no success, however it ended.
        success: ended.ok
            && status == RunStatus::Complete
            && run.as_ref().is_some_and(|r| !r.screened_nobody()),
        status,
        run,
        duration: ended.duration,
        ended_at: jiff::Timestamp::now(),
        last_success,
    };
    metrics::write(path, &figures).map_err(|e| e.to_string())
}
