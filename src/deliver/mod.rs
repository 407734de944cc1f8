//! What a run hands on besides its summary and report files, once it has ended:
//! [`metrics`] (a Prometheus textfile, `--metrics-file`), [`webhook`] (its alerts
//! POSTed as a JSON document, a Slack message or a Teams card ([`chat`]),
//! `--notify-webhook`) and [`email`] (its news mailed over SMTP, `[email]`).
//!
//! A delivery never changes a run's outcome or exit code: what went wrong comes back as
//! lines for stderr, and as warnings in the log. Both get what the database holds as the
//! run left it, read by the run ([`Readings`]): plain data, as the reports get.
//!
//! Each message carries its delivery id ([`new_delivery_id`]): the webhook's
//! `X-Ratewatch-Delivery` header (and the JSON document's `delivery_id`), the email's
//! Message-ID. It is the same on every attempt and on every later night that sends the
//! message again (the run keeps it in its ledger), so a receiver can drop a duplicate.

pub mod chat;
pub mod email;
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
    /// The summary the run printed (empty when it printed none): the email's plain part.
    pub summary: &'a str,
    /// What ended the run, when an error did, as the command prints it.
    pub error: Option<&'a str>,
}

/// Where a run's results go.
#[derive(Debug, Clone, Copy)]
pub struct Targets<'a> {
    pub metrics_file: Option<&'a Path>,
    pub webhook: Option<&'a Webhook>,
    pub policy: &'a Policy,
    /// `[email]`, with its password and its own policy.
    pub email: Option<&'a email::Mailer>,
}

impl Targets<'_> {
    /// Whether anything is to be delivered (else the database is not read for it).
    pub fn any(&self) -> bool {
        self.metrics_file.is_some() || self.webhook.is_some() || self.email.is_some()
    }
}

/// A new delivery id: 32 hexadecimal digits, 128 random bits from the operating system,
/// so that no two messages share one, whichever database (a copy, another team's) made
/// them. Should the system have no randomness to give, the id is a hash of this instant,
/// the process and a count, unique all the same on this machine.
pub fn new_delivery_id() -> String {
    let mut bytes = [0u8; 16];
    if let Err(e) = getrandom::fill(&mut bytes) {
        use sha2::Digest;
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        tracing::warn!("no randomness for a delivery id ({e}): made from the time instead");
        let made = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let seed = format!(
            "{}.{}.{made}",
            jiff::Timestamp::now().as_nanosecond(),
            std::process::id()
        );
        bytes.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes())[..16]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The delivery id of the message each channel is given (`None`: that channel is not
/// sent this message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageIds {
    pub webhook: Option<String>,
    pub email: Option<String>,
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
    /// The email's, when it has one: the run's record, the alerts its summary lists and
    /// where its report.html is (see [`email::compose`]).
    pub email: Option<Result<email::Reading, String>>,
}

/// How a message went: taken after so many attempts (0: nothing was owed, a quiet night's
/// email), or not, after so many, and why.
pub type Outcome = Result<u32, (u32, String)>;

/// What a delivery did: a line for each part that failed (`webhook: not delivered after 3
/// attempts: HTTP 500 (…)`), and how the webhook's and the email's messages went, for the
/// run's record of its deliveries (`None`: not attempted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    pub problems: Vec<String>,
    pub webhook: Option<Outcome>,
    pub email: Option<Outcome>,
}

/// Writes the metrics file, then posts the webhook, then sends the email, each if asked,
/// from `readings` (`Err`: the database could not be read).
pub async fn deliver(
    ended: &EndedRun<'_>,
    targets: Targets<'_>,
    readings: Result<Readings, String>,
) -> Delivered {
    let mut delivered = Delivered::default();
    if !targets.any() {
        return delivered;
    }
    let problems = &mut delivered.problems;
    let readings = match readings {
        Ok(readings) => readings,
        Err(reason) => {
            if let Some(path) = targets.metrics_file {
                problems.push(format!("metrics: {} not written: {reason}", path.display()));
            }
            if let Some(hook) = targets.webhook {
                problems.push(format!("webhook: not sent to {}: {reason}", hook.url));
            }
            if let Some(mailer) = targets.email {
                problems.push(format!("email: not sent ({}): {reason}", mailer.shown()));
            }
            warn(problems);
            return delivered;
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
        let read = read.map(|message| (hook.format.body(&message), message.delivery_id));
        match read {
            Err(e) => problems.push(format!("webhook: not sent to {url}: {e}")),
            Ok((body, id)) => match webhook::post(hook, body, &id, targets.policy).await {
                Ok(attempts) => {
                    tracing::info!(webhook = %url, attempts, "webhook delivered");
                    delivered.webhook = Some(Ok(attempts));
                }
                Err(failed) => {
                    problems.push(format!(
                        "webhook: not delivered after {} attempt{}: {} ({url})",
                        failed.attempts,
                        if failed.attempts == 1 { "" } else { "s" },
                        failed.last
                    ));
                    delivered.webhook = Some(Err((failed.attempts, failed.last)));
                }
            },
        }
    }
    if let (Some(mailer), Some(read)) = (targets.email, readings.email) {
        let (problem, outcome) = send_email(mailer, read, ended).await;
        problems.extend(problem);
        delivered.email = outcome;
    }
    warn(problems);
    delivered
}

/// The night's message, if it is worth one, sent; the line to print if it was not.
async fn send_email(
    mailer: &email::Mailer,
    read: Result<email::Reading, String>,
    ended: &EndedRun<'_>,
) -> (Option<String>, Option<Outcome>) {
    let shown = mailer.shown();
    let letter = match read.map(|read| email::compose(&read, ended)) {
        Err(e) => return (Some(format!("email: not sent ({shown}): {e}")), None),
        Ok(None) => {
            tracing::info!(email = %shown, "a quiet night: no email");
            return (None, Some(Ok(0)));
        }
        Ok(Some(letter)) => letter,
    };
    match email::send(mailer, &letter).await {
        Ok(attempts) => {
            tracing::info!(email = %shown, attempts, subject = %letter.subject, "email delivered");
            (None, Some(Ok(attempts)))
        }
        Err(failed) => (
            Some(format!(
                "email: not delivered after {} attempt{}: {} ({shown})",
                failed.attempts,
                if failed.attempts == 1 { "" } else { "s" },
                failed.last
            )),
            Some(Err((failed.attempts, failed.last))),
        ),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_id_is_32_hex_digits_and_never_the_same_twice() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_delivery_id()).collect();
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            assert_eq!(id.len(), 32, "{id}");
            assert!(
                id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                "{id}"
            );
        }
    }
}
