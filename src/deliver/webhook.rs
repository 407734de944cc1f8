//! `--notify-webhook`: a run's header and the alerts its summary lists POSTed as one JSON
//! document (`webhook.schema.json`) to a URL of the user's, retried with backoff.
//!
//! The URL may carry credentials (user:password@, a token in the query or the path): only
//! its [`WebhookUrl::redacted`] form is ever shown. The request goes through a client of its
//! own, never the service's, so the service's API key cannot reach the receiver.

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::digest::{AlertDigest, AlertLine};
use crate::model::{RunInfo, time_text};
use crate::report::json::run_object;
use crate::text::{UrlPath, redacted_url};

/// The JSON Schema the posted document follows.
pub const SCHEMA: &str = include_str!("../report/webhook.schema.json");

/// The version of the document's shape, in its `version` field: raised when a field
/// changes meaning or goes away (new fields do not raise it).
pub const VERSION: u64 = 1;

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

    /// `scheme://host[:port]/first-segment/…`, user, password and query values as `***`:
    /// a Slack or Teams webhook keeps its secret in the path.
    pub fn redacted(&self) -> String {
        Self::redact(&self.0)
    }

    fn redact(url: &url::Url) -> String {
        redacted_url(url.as_str(), UrlPath::FirstSegment)
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

/// How hard a delivery tries. Internal: the defaults serve; tests shorten the waits.
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

/// Alerts a document carries at most: a receiver is a chat or a ticket queue, and a first
/// run of a large portfolio can list hundreds of thousands; the rest are counted.
pub const MAX_POSTED: usize = 1000;

/// The document of a run: its header as report.json has it, and the alerts its summary
/// lists, as the rules decided them: worst first, one per company with the refs that hold
/// it, at most [`MAX_POSTED`] (`alerts_total` counts them all): `digest` as the store
/// reads it, in that order. Every string is [`crate::text::printable`].
pub fn document(run: &RunInfo, digest: &AlertDigest) -> Value {
    let alerts: Vec<Value> = digest.listed.iter().map(alert).collect();
    let mut document = json!({
        "version": VERSION,
        "run": run_object(run),
        "alerts_total": digest.listed_total,
        "alerts": alerts,
    });
    // A receiver shows names to people (a chat, a ticket): printable, as every report.
    crate::text::printable_json(&mut document);
    document
}

/// One listed alert: what happened to which company, and your refs for it.
fn alert(a: &AlertLine) -> Value {
    json!({
        "kind": a.kind.as_str(),
        "refs": a.refs,
        "company_id": a.company_id,
        "company_name": a.company,
        "country": a.country,
        "color": a.color.as_ref().map(|c| c.as_str()),
        "previous_color": a.previous.as_ref().map(|c| c.as_str()),
        "last_refresh_date": a.last_refresh_date.map(time_text),
    })
}

/// A delivery that did not happen, said without the URL's secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotDelivered {
    pub attempts: u32,
    /// The last attempt's failure: `HTTP 500`, `no answer within 10 s`, …
    pub last: String,
}

/// POSTs `body` (JSON) to `url`, retrying a passing failure (network, timeout, 5xx, 408,
/// 429) with doubling waits. Returns the attempts made.
pub async fn post(url: &WebhookUrl, body: Vec<u8>, policy: &Policy) -> Result<u32, NotDelivered> {
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
        let sent = client
            .post(url.0.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.clone())
            .send()
            .await;
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
    fn only_http_and_https_are_taken_and_secrets_never_shown() {
        let url =
            WebhookUrl::parse("https://user:s3cret@hooks.example:8443/in/ratewatch?token=t0ken#x")
                .unwrap();
        assert_eq!(
            url.redacted(),
            "https://***@hooks.example:8443/in/…?token=***#***"
        );
        for shown in [format!("{url}"), format!("{url:?}")] {
            assert!(
                !shown.contains("s3cret")
                    && !shown.contains("t0ken")
                    && !shown.contains("ratewatch"),
                "{shown}"
            );
        }
        // A Slack webhook's secret is its path.
        let slack = WebhookUrl::parse("https://hooks.slack.com/services/T0/B0/s3cret").unwrap();
        assert_eq!(slack.redacted(), "https://hooks.slack.com/services/…");
        let e = WebhookUrl::parse("ftp://user:s3cret@files.example/drop?token=t0ken").unwrap_err();
        assert_eq!(
            e,
            "expected an http or https URL, got ftp://***@files.example/drop?token=***"
        );
        let e = WebhookUrl::parse("hooks.example/s3cret").unwrap_err();
        assert!(e.starts_with("expected an http or https URL"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
        assert_eq!(
            WebhookUrl::parse("http://[::1]:9000/hook")
                .unwrap()
                .redacted(),
            "http://[::1]:9000/hook"
        );
    }
}
