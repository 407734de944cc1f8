//! `[email]`: a night's news mailed over SMTP to the people who act on it, as one message
//! with a plain-text part (the summary's own words) and an HTML part (the alerts as a
//! table, for the mail clients that show it).
//!
//! A message goes out on a night worth a look — alerts listed, or a run that failed,
//! stopped, left rows unscreened or rated nothing — and never on a quiet one. It is tried
//! like the webhook ([`Policy`]); a failure is a line for stderr and a warning in the log,
//! never the run's outcome. The password is read from a file of its own, sent only in
//! AUTH, and taken out of every error a server could echo it in.
//!
//! `options` reads `[email]` and checks it; `message` makes the night's message, its two
//! parts and its headers; `smtp` holds the dialogue with the server, its attempts and the
//! care of the password.

mod message;
mod options;
mod smtp;

use std::time::Duration;

use futures::future::BoxFuture;

use super::{Channel, EndedRun, Policy, Reading, Sent, Wants};
use crate::alerts::Rules;

use message::compose;
pub use options::{EmailSettings, Password, SmtpUrl, StartTls};
use smtp::send;

/// What sends a run's message: the settings, the password read from its file, and how
/// hard to try.
#[derive(Debug, Clone)]
pub struct Mailer {
    pub settings: EmailSettings,
    password: Option<Password>,
    pub policy: Policy,
    /// A certificate (PEM) trusted besides the platform's roots: none but in tests, whose
    /// receivers on this machine show a certificate of their own.
    #[doc(hidden)]
    pub extra_root: Option<Vec<u8>>,
}

impl Mailer {
    pub fn new(settings: EmailSettings, password: Option<Password>) -> Mailer {
        Mailer {
            settings,
            password,
            policy: Self::POLICY,
            extra_root: None,
        }
    }

    /// Three attempts, a second then two apart, each up to 30 s: a server scanning a
    /// message may take its time to accept it.
    pub const POLICY: Policy = Policy {
        attempts: 3,
        first_delay: Duration::from_secs(1),
        timeout: Duration::from_secs(30),
    };

    /// Where messages go, for lines and logs: the server and the recipients.
    pub fn shown(&self) -> String {
        let to: Vec<String> = self
            .settings
            .to
            .iter()
            .map(|m| m.email.to_string())
            .collect();
        format!("{} to {}", self.settings.smtp, to.join(", "))
    }
}

impl Channel for Mailer {
    fn name(&self) -> &'static str {
        "email"
    }

    /// The email lists what the summary lists: the rules as they are, cap and storm
    /// included.
    fn wants(&self, rules: &Rules) -> Wants {
        Wants {
            alerts: Some(rules.clone()),
            last_success: false,
        }
    }

    fn not_sent(&self, why: &str) -> String {
        format!("email: not sent ({}): {why}", self.shown())
    }

    /// The night's message, if it is worth one, sent.
    fn send<'a>(&'a self, reading: Reading, ended: &'a EndedRun<'a>) -> BoxFuture<'a, Sent> {
        Box::pin(async move {
            let shown = self.shown();
            // Only a run that printed its summary wrote its reports; a report.html from an
            // earlier night would tell of that night.
            let report =
                (reading.report).filter(|html| !ended.summary.is_empty() && html.is_file());
            let Some(letter) = compose(&Reading { report, ..reading }, ended) else {
                tracing::info!(email = %shown, "a quiet night: no email");
                return Sent::taken(0);
            };
            match send(self, &letter).await {
                Ok(attempts) => {
                    tracing::info!(email = %shown, attempts, subject = %letter.subject, "email delivered");
                    Sent::taken(attempts)
                }
                Err(failed) => failed.sent(self.name(), &shown),
            }
        })
    }
}
