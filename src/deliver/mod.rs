//! What a run hands on besides its summary and report files, once it has ended, each
//! through a [`Channel`]: [`metrics`] (a Prometheus textfile, `--metrics-file`),
//! [`webhook`] (its alerts POSTed as a JSON document, a Slack message or a Teams card
//! ([`chat`]), `--notify-webhook`) and [`email`] (its news mailed over SMTP, `[email]`).
//! [`Channels`] lists them, once.
//!
//! A delivery never changes a run's outcome or exit code: what went wrong comes back as
//! lines for stderr, and as warnings in the log. Each channel is handed what the database
//! holds as the run left it, read by the run as the channel [`Wants`] it ([`Reading`]):
//! plain data, as the reports get. The ledger of messages not yet taken is the run's too
//! (`run::hand_on`); a channel only says its name and how its message went ([`Sent`]).
//!
//! Each message carries its delivery id ([`new_delivery_id`]): the webhook's
//! `X-Ratewatch-Delivery` header (and the JSON document's `delivery_id`), the email's
//! Message-ID. It is the same on every attempt and on every later night that sends the
//! message again (the run keeps it in its ledger), so a receiver can drop a duplicate.

pub mod chat;
pub mod email;
pub mod metrics;
pub mod webhook;

use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::alerts::Rules;
use crate::digest::{AlertDigest, Heading};
use crate::links::PageUrl;
use crate::model::RunInfo;

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

/// Where a run's results go, each channel when asked for. Adding a channel is a file of
/// its own in this folder that implements [`Channel`], its field here (what its settings
/// made of it) and its line in [`Channels::each`].
#[derive(Debug, Clone, Default)]
pub struct Channels {
    /// `--metrics-file`.
    pub metrics: Option<metrics::MetricsFile>,
    /// `--notify-webhook`, in `--webhook-format`, signed with `--webhook-secret-file`.
    pub webhook: Option<webhook::Webhook>,
    /// `[email]` of the config file, its password read.
    pub email: Option<email::Mailer>,
}

impl Channels {
    /// Each channel asked for, in the order a run hands its results on: the one list of
    /// them.
    pub fn each(&self) -> Vec<&dyn Channel> {
        [
            self.metrics.as_ref().map(|c| c as &dyn Channel),
            self.webhook.as_ref().map(|c| c as _),
            self.email.as_ref().map(|c| c as _),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// A way a run's results go out. A trait rather than an enum with a match per method: a
/// new channel is then a file of its own and a line in [`Channels::each`], and nothing that
/// hands messages on (this module's [`deliver`], the run's ledger) names any channel.
pub trait Channel: Send + Sync {
    /// Its name: first in its lines, and its messages' in the run's ledger
    /// (`run_deliveries.channel`), so never to change once released.
    fn name(&self) -> &'static str;

    /// Whether its message is kept in the run's ledger: named by a delivery id, pending
    /// until the channel takes it, sent again by a later run if it never does. Every
    /// channel's but a file that each run replaces (the metrics file).
    fn kept(&self) -> bool {
        true
    }

    /// What it needs read from the database for a run's message, the alerts' rules being
    /// `rules` (`[alerts]`).
    fn wants(&self, rules: &Rules) -> Wants;

    /// The line that says its message did not go out, and why (the database could not be
    /// read, or the message made): `webhook: not sent to https://hooks.example/…: why`.
    fn not_sent(&self, why: &str) -> String;

    /// Makes the message of `reading` and hands it on (sends, posts, writes), trying as
    /// hard as the channel does; says how it went.
    fn send<'a>(&'a self, reading: Reading, ended: &'a EndedRun<'a>) -> BoxFuture<'a, Sent>;
}

/// What a channel needs read from the database for a run's message, besides the run's
/// record and where its report.html is, which every channel gets.
#[derive(Debug, Clone, Default)]
pub struct Wants {
    /// The alerts it lists, read by these rules (`None`: it lists none).
    pub alerts: Option<Rules>,
    /// When the portfolio's last complete run ended.
    pub last_success: bool,
}

/// What the database holds for one channel's message, as the run left it, read as the
/// channel [`Wants`] it.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The run's record; `None` when the run stopped before it had one.
    pub run: Option<RunInfo>,
    /// The alerts the message lists, when the channel wants them and the run has a record.
    pub digest: Option<AlertDigest>,
    /// The run's report.html, as an absolute path, when there is one.
    pub report: Option<PathBuf>,
    /// When the portfolio's last complete run ended, when the channel wants it.
    pub last_success: Option<jiff::Timestamp>,
    /// The message's delivery id, when the ledger keeps the message and the run has a
    /// record (a message of a run without one is never sent again).
    pub delivery_id: Option<String>,
    /// Where `ratewatch serve` is reached, for links to its pages (`page_url`).
    pub page: Option<PageUrl>,
    /// The language and time zone of a message for people (a mail, Slack, Teams); the
    /// webhook's JSON never follows them.
    pub reader: crate::locale::Reader,
}

impl Reading {
    /// The line the message opens with, when the run has a record.
    pub fn heading(&self) -> Option<Heading> {
        let run = self.run.as_ref()?;
        Some(Heading {
            started_at: run.started_at,
            portfolio: run.portfolio.clone(),
            run_id: run.id,
            report: self.report.as_ref().map(|p| p.display().to_string()),
        })
    }
}

/// How a message went: taken after so many attempts (0: nothing was owed, a quiet night's
/// email), or not, after so many, and why.
pub type Outcome = Result<u32, (u32, String)>;

/// What handing a message on did: the line for stderr when it failed, and how it went, for
/// the run's ledger (`None`: nothing was attempted, or there is nothing to keep).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    pub problem: Option<String>,
    pub outcome: Option<Outcome>,
}

impl Sent {
    /// Taken after `attempts`.
    pub fn taken(attempts: u32) -> Sent {
        Sent {
            problem: None,
            outcome: Some(Ok(attempts)),
        }
    }

    /// Not handed on, for a reason said in `problem`: nothing for the ledger.
    pub fn failed(problem: String) -> Sent {
        Sent {
            problem: Some(problem),
            outcome: None,
        }
    }
}

/// How hard a channel that sends over the network tries. Internal: the defaults serve;
/// tests shorten the waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// Wait before the second attempt; it doubles for each one after.
    pub first_delay: Duration,
    /// Longest one attempt may take, connection included: a receiver that never answers
    /// costs the run at most `attempts` times this, plus the waits.
    pub timeout: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            attempts: 3,
            first_delay: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

/// A delivery that did not happen, said without the address's secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotDelivered {
    pub attempts: u32,
    /// The last attempt's failure: `HTTP 500`, `no answer within 10 s`, …
    pub last: String,
}

impl NotDelivered {
    /// What `channel` says of it, `to` being where the message went: `webhook: not
    /// delivered after 3 attempts: HTTP 500 (https://hooks.example/…)`; and the outcome
    /// for the ledger.
    pub fn sent(self, channel: &str, to: &str) -> Sent {
        let problem = format!(
            "{channel}: not delivered after {} attempt{}: {} ({to})",
            self.attempts,
            if self.attempts == 1 { "" } else { "s" },
            self.last
        );
        Sent {
            problem: Some(problem),
            outcome: Some(Err((self.attempts, self.last))),
        }
    }
}

/// What a run's message says, as the webhook's formats lay it out ([`webhook::document`],
/// [`chat`]): the run, its alerts as the rules decided them (read with
/// [`webhook::Format::max_listed`]), and the heading every channel opens with; and its
/// delivery id.
#[derive(Debug, Clone)]
pub struct Message {
    pub run: RunInfo,
    pub digest: AlertDigest,
    pub heading: Heading,
    /// The message's name, the same on every attempt and resend.
    pub delivery_id: String,
    /// Where `ratewatch serve` is reached, for links to its pages (`page_url`).
    pub page: Option<PageUrl>,
    /// The language and time zone the chats' messages are written in.
    pub reader: crate::locale::Reader,
}

impl Message {
    /// The message of what was read, when the run has a record.
    pub fn of(reading: Reading) -> Option<Message> {
        let heading = reading.heading()?;
        Some(Message {
            run: reading.run?,
            digest: reading.digest.unwrap_or_default(),
            heading,
            // Named by the run whenever it sends one; else a name of its own.
            delivery_id: reading.delivery_id.unwrap_or_else(new_delivery_id),
            page: reading.page,
            reader: reading.reader,
        })
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

/// Hands each message on, in order, each from what was read for it (`Err`: why it could
/// not be read); then says in the log each line that failed. Returns how each went, in
/// the same order.
pub async fn deliver(
    ended: &EndedRun<'_>,
    messages: Vec<(&dyn Channel, Result<Reading, String>)>,
) -> Vec<Sent> {
    let mut sent = Vec::with_capacity(messages.len());
    for (channel, reading) in messages {
        sent.push(match reading {
            Ok(reading) => channel.send(reading, ended).await,
            Err(why) => Sent::failed(channel.not_sent(&why)),
        });
    }
    for problem in sent.iter().filter_map(|s| s.problem.as_ref()) {
        tracing::warn!("{problem}");
    }
    sent
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
