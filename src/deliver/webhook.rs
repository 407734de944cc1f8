//! `--notify-webhook`: a run's heading and the alerts its summary lists, POSTed to a URL of
//! the user's in the shape `--webhook-format` names: a JSON document for programs
//! (`webhook.schema.json`), a Slack message or a Teams card ([`super::chat`]); signed when
//! a secret is set; retried with backoff; named by its delivery id ([`DELIVERY_HEADER`]),
//! the same on every attempt and resend, so that a receiver can drop a duplicate.
//!
//! The URL may carry credentials (user:password@, a token in the query or the path): only
//! its [`WebhookUrl::redacted`] form, scheme, host and port, is ever shown. The request goes
//! through a client of its own, never the service's, so the service's API key cannot reach
//! the receiver.

use std::fmt;

use futures::future::BoxFuture;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use super::{Channel, EndedRun, Message, NotDelivered, Policy, Reading, Sent, Wants};
use crate::alerts::Rules;
use crate::digest::AlertLine;
use crate::links::PageUrl;
use crate::model::time_text;
use crate::report::json::{figures_object, run_object};
use crate::text::{UrlPath, redacted_url};

/// The JSON Schema the posted document follows.
pub const SCHEMA: &str = include_str!("../report/webhook.schema.json");

/// The version of the document's shape, in its `version` field: raised when a field
/// changes meaning or goes away (new fields do not raise it).
pub const VERSION: u64 = 1;

/// The header that carries a body's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`.
pub const SIGNATURE_HEADER: &str = "X-Ratewatch-Signature";

/// The header that carries the signing time alone, in Unix seconds.
pub const TIMESTAMP_HEADER: &str = "X-Ratewatch-Timestamp";

/// The header that carries the message's delivery id (see [`super::new_delivery_id`]), in
/// every format. Not signed itself: the JSON document carries the same id as
/// `delivery_id`, inside the signed body, for a receiver that checks signatures.
pub const DELIVERY_HEADER: &str = "X-Ratewatch-Delivery";

/// A webhook address: http or https, its credentials kept out of every message.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookUrl(url::Url);

impl WebhookUrl {
    /// Checks an address; the error never repeats anything that could be a secret.
    pub fn parse(text: &str) -> Result<WebhookUrl, String> {
        let url = url::Url::parse(text.trim())
            .map_err(|e| format!("expected an http or https URL, got something else ({e})"))?;
        let shown = Self::redact(&url);
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("expected an http or https URL, got {shown}"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(format!(
                "expected an http or https URL with a host, got {shown}"
            ));
        }
        Ok(WebhookUrl(url))
    }

    /// `scheme://host[:port]/…`: a Slack or Teams webhook keeps its secret in the path, and
    /// any URL may keep one in its user, password or query.
    pub fn redacted(&self) -> String {
        Self::redact(&self.0)
    }

    fn redact(url: &url::Url) -> String {
        redacted_url(url.as_str(), UrlPath::Hidden)
    }

    /// A word for `ratewatch config` when the address is a chat's and the format is not
    /// its own: Slack refuses a JSON document (`400 no_text`).
    pub fn format_hint(&self, format: Format) -> Option<String> {
        let slack = self.0.host_str() == Some("hooks.slack.com");
        (slack && format != Format::Slack).then(|| {
            format!(
                "notify_webhook is a Slack address and webhook_format is {}: Slack takes only webhook_format = \"slack\"",
                format.as_str()
            )
        })
    }
}

impl fmt::Debug for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebhookUrl({})", self.redacted())
    }
}

impl fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

/// The shape of what is posted (`--webhook-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The document of [`SCHEMA`], for programs.
    #[default]
    #[value(help = "A JSON document for programs (webhook.schema.json)")]
    Json,
    /// A Slack message: `text` for notifications, `blocks` for the channel.
    #[value(help = "A Slack message: text and blocks")]
    Slack,
    /// A message with one Adaptive Card, as a Teams workflow's webhook takes it.
    #[value(help = "An Adaptive Card for a Teams workflow's webhook")]
    Teams,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Slack => "slack",
            Format::Teams => "teams",
        }
    }

    /// How many alerts the message lists one by one: a program gets up to [`MAX_POSTED`];
    /// people in a chat get what their summary lists (`[alerts] max_listed`).
    pub fn max_listed(self, rules_max_listed: usize) -> usize {
        match self {
            Format::Json => MAX_POSTED,
            Format::Slack | Format::Teams => rules_max_listed,
        }
    }

    /// The body posted for a run.
    pub fn body(self, message: &Message) -> Vec<u8> {
        let value = match self {
            Format::Json => document(message),
            Format::Slack => super::chat::slack(message),
            Format::Teams => super::chat::teams(message),
        };
        value.to_string().into_bytes()
    }
}

/// The secret a body is signed with: the text of `webhook_secret_file`. Never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Where a run's message goes, in which shape, signed with what, and how hard it is tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub url: WebhookUrl,
    pub format: Format,
    pub secret: Option<Secret>,
    pub policy: Policy,
}

impl Channel for Webhook {
    fn name(&self) -> &'static str {
        "webhook"
    }

    /// A document for programs carries up to [`MAX_POSTED`] alerts, a chat what the
    /// summary lists. (The storm is the summary's business: no share makes one here.)
    fn wants(&self, rules: &Rules) -> Wants {
        Wants {
            alerts: Some(Rules {
                max_listed: self.format.max_listed(rules.max_listed),
                storm_share: 1.0,
                ..rules.clone()
            }),
            last_success: false,
        }
    }

    fn not_sent(&self, why: &str) -> String {
        format!("webhook: not sent to {}: {why}", self.url)
    }

    fn send<'a>(&'a self, reading: Reading, _: &'a EndedRun<'a>) -> BoxFuture<'a, Sent> {
        Box::pin(async move {
            // A run that stopped before it had a record has nothing to send: the metrics
            // file says it failed.
            let Some(message) = Message::of(reading) else {
                return Sent::default();
            };
            let url = &self.url;
            match post(self, self.format.body(&message), &message.delivery_id).await {
                Ok(attempts) => {
                    tracing::info!(webhook = %url, attempts, "webhook delivered");
                    Sent::taken(attempts)
                }
                Err(failed) => failed.sent(self.name(), &url.to_string()),
            }
        })
    }
}

/// `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, as Stripe signs: the time
/// inside the signed text lets a receiver refuse an old body sent again.
pub fn signature(secret: &Secret, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.0.as_bytes()).expect("HMAC takes a key of any size");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={timestamp},v1={hex}")
}

/// Alerts a document carries at most: a receiver is a program or a ticket queue, and a
/// first run of a large portfolio can list hundreds of thousands; the rest are counted.
pub const MAX_POSTED: usize = 1000;

/// The JSON document of a run: the heading, the run's header as report.json has it, the
/// alerts its summary lists as the rules decided them (worst first, one per company with
/// the refs that hold it, at most [`MAX_POSTED`]; `alerts_total` counts them all), what
/// each kind puts at stake, the standing red and black, and the changes only counted.
/// Every string is [`crate::text::printable`].
pub fn document(message: &Message) -> Value {
    let Message {
        run,
        digest,
        heading,
        delivery_id,
        page,
        // The document is for programs: English and UTC whoever reads the chats.
        reader: _,
    } = message;
    let page = page.as_ref();
    let alert = |a: &AlertLine| alert(a, page);
    let alerts: Vec<Value> = digest.listed.iter().map(&alert).collect();
    let kinds: Vec<Value> = digest
        .kinds
        .iter()
        .map(|k| {
            json!({
                "kind": k.kind.as_str(),
                "count": k.count,
                "first_screenings": k.first_screenings,
                "amount": k.amount,
            })
        })
        .collect();
    let standing: Vec<Value> = digest
        .standing
        .iter()
        .map(|s| {
            json!({
                "color": s.color.as_str(),
                "count": s.count,
                "amount": s.amount,
                "top": s.top.iter().map(&alert).collect::<Vec<_>>(),
            })
        })
        .collect();
    let counted: Vec<Value> = digest
        .counted
        .iter()
        .map(|(kind, n)| json!({"kind": kind.as_str(), "count": n}))
        .collect();
    let mut document = json!({
        "version": VERSION,
        "delivery_id": delivery_id,
        "heading": heading.line(),
        "report": heading.report,
        "run": run_object(run),
        "alerts_total": digest.listed_total,
        "alerts": alerts,
        "amount_column": digest.amount_column,
        "kinds": kinds,
        "standing": standing,
        "counted": counted,
        "page": page.map(PageUrl::inbox),
        "figures": digest.figures.as_ref().map(figures_object),
    });
    // A receiver shows names to people (a chat, a ticket): printable, as every report.
    crate::text::printable_json(&mut document);
    document
}

/// One alert: what happened to which company, your refs for it, the amount at stake and
/// the columns `[alerts] show` names, as the company's first row has them; its page when
/// `page_url` is set.
fn alert(a: &AlertLine, page: Option<&PageUrl>) -> Value {
    let columns: serde_json::Map<String, Value> = a
        .shown
        .iter()
        .map(|(header, value)| (header.clone(), json!(value)))
        .collect();
    json!({
        "kind": a.kind.as_str(),
        "refs": a.refs,
        "company_id": a.company_id,
        "company_name": a.company,
        "country": a.country,
        "color": a.color.as_ref().map(|c| c.as_str()),
        "previous_color": a.previous.as_ref().map(|c| c.as_str()),
        "last_refresh_date": a.last_refresh_date.map(time_text),
        "amount": a.amount,
        "columns": columns,
        "page": page.map(|p| p.company(&a.company_id)),
    })
}

/// POSTs `body` (JSON) to the webhook, retrying a passing failure (network, timeout, 5xx,
/// 408, 429) with doubling waits; each attempt named by `delivery_id` and signed afresh
/// when there is a secret, so a late retry is not refused as old. Returns the attempts
/// made.
pub async fn post(
    webhook: &Webhook,
    body: Vec<u8>,
    delivery_id: &str,
) -> Result<u32, NotDelivered> {
    let (url, policy) = (&webhook.url, &webhook.policy);
    // A client of its own: no default header, no key, no redirect (a redirect could carry
    // the document, and the URL's credentials, somewhere else).
    let client = reqwest::Client::builder()
        .user_agent(concat!("ratewatch/", env!("CARGO_PKG_VERSION")))
        .timeout(policy.timeout)
        .connect_timeout(policy.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| NotDelivered {
            attempts: 0,
            last: format!("no HTTP client: {}", e.without_url()),
        })?;
    let attempts = policy.attempts.max(1);
    let mut delay = policy.first_delay;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut request = client
            .post(url.0.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(DELIVERY_HEADER, delivery_id);
        if let Some(secret) = &webhook.secret {
            let now = jiff::Timestamp::now().as_second();
            request = request
                .header(SIGNATURE_HEADER, signature(secret, now, &body))
                .header(TIMESTAMP_HEADER, now.to_string());
        }
        let sent = request.body(body.clone()).send().await;
        let (last, again) = match sent {
            Ok(response) if response.status().is_success() => return Ok(attempt),
            Ok(response) => {
                let status = response.status();
                let again = status.is_server_error()
                    || status == reqwest::StatusCode::REQUEST_TIMEOUT
                    || status == reqwest::StatusCode::TOO_MANY_REQUESTS;
                (format!("HTTP {}", status.as_u16()), again)
            }
            Err(e) if e.is_timeout() => (
                format!("no answer within {} s", policy.timeout.as_secs_f64()),
                true,
            ),
            Err(e) if e.is_connect() => ("cannot connect".to_string(), true),
            // Without the URL, which reqwest's message would otherwise carry.
            Err(e) => (format!("{}", e.without_url()), true),
        };
        if !again || attempt >= attempts {
            return Err(NotDelivered {
                attempts: attempt,
                last,
            });
        }
        tracing::info!(webhook = %url, attempt, error = %last, "webhook not delivered; trying again");
        tokio::time::sleep(delay).await;
        delay = delay.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_are_taken_and_only_scheme_host_and_port_shown() {
        let url =
            WebhookUrl::parse("https://user:s3cret@hooks.example:8443/in/ratewatch?token=t0ken#x")
                .unwrap();
        assert_eq!(url.redacted(), "https://hooks.example:8443/…");
        for shown in [format!("{url}"), format!("{url:?}")] {
            assert!(
                !shown.contains("s3cret")
                    && !shown.contains("t0ken")
                    && !shown.contains("/in")
                    && !shown.contains("user"),
                "{shown}"
            );
        }
        // A Slack webhook's secret is its path.
        let slack = WebhookUrl::parse("https://hooks.slack.com/services/T0/B0/s3cret").unwrap();
        assert_eq!(slack.redacted(), "https://hooks.slack.com/…");
        let e = WebhookUrl::parse("ftp://user:s3cret@files.example/drop?token=t0ken").unwrap_err();
        assert_eq!(
            e,
            "expected an http or https URL, got ftp://files.example/…"
        );
        let e = WebhookUrl::parse("hooks.example/s3cret").unwrap_err();
        assert!(e.starts_with("expected an http or https URL"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
        assert_eq!(
            WebhookUrl::parse("http://[::1]:9000/hook")
                .unwrap()
                .redacted(),
            "http://[::1]:9000/…"
        );
    }

    #[test]
    fn a_slack_address_with_another_format_gets_a_hint() {
        let slack = WebhookUrl::parse("https://hooks.slack.com/services/T0/B0/s3cret").unwrap();
        let hint = slack.format_hint(Format::Json).unwrap();
        assert!(hint.contains("webhook_format = \"slack\""), "{hint}");
        assert!(!hint.contains("s3cret"), "{hint}");
        assert_eq!(slack.format_hint(Format::Slack), None);
        let other = WebhookUrl::parse("https://hooks.example/in").unwrap();
        assert_eq!(other.format_hint(Format::Json), None);
    }

    #[test]
    fn the_signature_is_the_hmac_of_the_time_and_the_body() {
        // Computed apart, with Python's hmac module.
        let signed = signature(&Secret::new("whsec_test"), 1_700_000_000, br#"{"a":1}"#);
        assert_eq!(
            signed,
            "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
        );
        assert_eq!(format!("{:?}", Secret::new("whsec_test")), "Secret(***)");
    }
}
