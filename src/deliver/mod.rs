//! What a run hands on besides its summary and report files, once it has ended:
//! [`metrics`] (a Prometheus textfile, `--metrics-file`) and [`webhook`] (its alerts
//! POSTed as a JSON document, a Slack message or a Teams card ([`chat`]),
//! `--notify-webhook`).
//!
//! A delivery never changes a run's outcome or exit code: what went wrong comes back as
//! lines for stderr, and as warnings in the log. Both get what the database holds as the
//! run left it, read by the run ([`Readings`]): plain data, as the reports get.

pub mod chat;
pub mod metrics;
pub mod webhook;

use std::path::Path;
use std::time::Duration;

use crate::model::{RunInfo, RunStatus};
use webhook::{Policy, Webhook};

/// How a run ended, as far as delivery needs to know.
#[derive(Debug, Clone)]
pub struct EndedRun<'a> {
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
    pub webhook: Option<&'a Webhook>,
    pub policy: &'a Policy,
}

impl Targets<'_> {
    /// Whether anything is to be delivered (else the database is not read for it).
    pub fn any(&self) -> bool {
        self.metrics_file.is_some() || self.webhook.is_some()
    }
}

/// What the database holds for a delivery, as the run left it: each part, or why it could
/// not be read.
#[derive(Debug, Clone)]
pub struct Readings {
    /// The metrics file's: the run's record (when it got one), and when the portfolio's
    /// last complete run ended.
    pub metrics: Result<(Option<RunInfo>, Option<jiff::Timestamp>), String>,
    /// The webhook's, when it has one to send: the run's record, the alerts its summary
    /// lists and its heading (see [`webhook::Message`]).
    pub webhook: Option<Result<webhook::Message, String>>,
}

/// Writes the metrics file, then posts the webhook, each if asked, from `readings` (`Err`:
/// the database could not be read); returns one line for each that failed (`webhook: not
/// delivered after 3 attempts: HTTP 500 (…)`).
pub async fn deliver(
    ended: &EndedRun<'_>,
    targets: Targets<'_>,
    readings: Result<Readings, String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if !targets.any() {
        return problems;
    }
    let readings = match readings {
        Ok(readings) => readings,
        Err(reason) => {
            if let Some(path) = targets.metrics_file {
                problems.push(format!("metrics: {} not written: {reason}", path.display()));
            }
            if let Some(hook) = targets.webhook {
                problems.push(format!("webhook: not sent to {}: {reason}", hook.url));
            }
            warn(&problems);
            return problems;
        }
    };
    if let Some(path) = targets.metrics_file {
        match write_metrics(readings.metrics, ended, path) {
            Ok(()) => tracing::info!(metrics_file = %path.display(), "metrics written"),
            Err(e) => problems.push(format!("metrics: {} not written: {e}", path.display())),
        }
    }
    // A run that stopped before it had a record has nothing to send: the metrics file
    // says it failed.
    if let (Some(hook), Some(read)) = (targets.webhook, readings.webhook) {
        let url = &hook.url;
        match read.map(|message| hook.format.body(&message)) {
            Err(e) => problems.push(format!("webhook: not sent to {url}: {e}")),
            Ok(body) => match webhook::post(hook, body, targets.policy).await {
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

/// The figures of the run as read, and the file written.
fn write_metrics(
    read: Result<(Option<RunInfo>, Option<jiff::Timestamp>), String>,
    ended: &EndedRun<'_>,
    path: &Path,
) -> Result<(), String> {
    let (mut run, last_success) = read?;
    // Its texts and colors as the reports show them, whatever an older version stored.
    crate::model::MakePrintable::make_printable(&mut run);
    let status = match &run {
        Some(run) if ended.ok || run.status != RunStatus::Running => run.status,
        _ => RunStatus::Failed,
    };
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
