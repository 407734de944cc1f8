//! The client's typed errors (docs/service.md §7). Each message says what happened and what the
//! user can do about it; none ever contains the API key.

use std::fmt;
use std::time::Duration;

/// One failed call to the service.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// 401/403: the key was refused. Never retried: the same key fails the same way.
    #[error(
        "the service refused the API key (HTTP {status}: {}); check the key, and note that demo and live keys differ",
        shown(.message)
    )]
    Unauthenticated { status: u16, message: String },

    /// 400 with the spec's body: parameter name → messages, shown verbatim (made printable,
    /// each cut at a sane length, the first [`MAX_FIELDS_SHOWN`] parameters).
    #[error("the service rejected the request: {} (correct the value and try again)", ValidationList(.fields))]
    Validation { fields: Vec<(String, Vec<String>)> },

    /// 403 that is not about the key: the account lacks what was asked (a product it has
    /// not bought). Never retried, and no further call is made.
    #[error(
        "the service refused access (HTTP 403: {}); the key was accepted, so the account probably does not include this product: ask the provider to enable the rating package",
        shown(.message)
    )]
    Forbidden { message: String },

    /// 404 with the service's JSON error: no such company. (A 404 with any other body is a
    /// [`ApiError::Decode`]: a wrong path or a proxy, not the service saying "no".)
    #[error("not found: {what}")]
    NotFound { what: String },

    /// 429: too many requests; `retry_after` is what the service asked for, if anything.
    #[error("the service is rate limiting requests{}; lower --concurrency or wait and retry", retry_hint(.retry_after))]
    RateLimited { retry_after: Option<Duration> },

    /// 5xx or any other unexpected status, with the start of the body (HTML included).
    #[error(
        "the service answered HTTP {status}: {snippet:?}; this is usually temporary, retry later"
    )]
    Server { status: u16, snippet: String },

    /// The request never got an answer: connection refused or reset, timeout, TLS, DNS.
    #[error("could not reach the service: {}; check --base-url and the network", shown(.message))]
    Transport { message: String, timeout: bool },

    /// A redirect not followed: to another server (scheme, host or port changed), where the
    /// `apikey` header would go along, or one hop past the limit. Never retried: the
    /// service would say the same again.
    #[error("{}", redirect_text(.to, *.too_many))]
    Redirected { to: String, too_many: bool },

    /// Not sent: the run's call budget is spent: `--max-calls`, or what the month's budget
    /// (`month`: `--max-calls-per-month`) had left when the run began.
    #[error("{}", budget_text(*.limit, *.month))]
    CallBudget { limit: u64, month: Option<u64> },

    /// Not sent: the service asked to wait longer than `--max-wait` (a spent quota), so
    /// the run stops instead of waiting for hours.
    #[error(
        "not screened: rate limit: the service asked to wait until {until}; run again after that"
    )]
    QuotaSpent { until: jiff::Timestamp },

    /// Not sent, or given up on: the run stopped making calls (a signal, a service that
    /// stopped answering, the run's time spent). The row waits for the next run.
    #[error("not screened: {why}")]
    Halted { why: String },

    /// An answer came back that is not the answer to the question asked: a rating of
    /// another company, a search that found companies of another country (a caching proxy
    /// or a gateway that mixed up answers). Never stored, never retried.
    #[error("{what}: {message}; the answer was not stored")]
    Mismatch { what: String, message: String },

    /// An answer came back but is not what the spec describes.
    #[error("unexpected answer from the service ({what}): {}; body starts {snippet:?}", shown(.message))]
    Decode {
        what: String,
        message: String,
        snippet: String,
    },
}

impl ApiError {
    /// A rating that answers for `answered` when `asked` was asked for.
    pub fn another_company(asked: uuid::Uuid, answered: uuid::Uuid) -> ApiError {
        ApiError::Mismatch {
            what: "rating".into(),
            message: format!("answer is for another company ({answered}, asked for {asked})"),
        }
    }

    /// Whether every further call of the run would fail the same way, so none is made:
    /// a refused key, a refused product, a spent quota, a redirect to another server.
    pub fn stops_calls(&self) -> bool {
        matches!(
            self,
            ApiError::Unauthenticated { .. }
                | ApiError::Forbidden { .. }
                | ApiError::QuotaSpent { .. }
                | ApiError::Redirected { .. }
                | ApiError::Halted { .. }
        )
    }

    /// Whether the same request may succeed if sent again later: transport failures,
    /// timeouts, 408, 5xx and 429 may; a refused key, a bad parameter, a missing company
    /// or an answer we cannot read will not change by asking again.
    pub fn is_transient(&self) -> bool {
        match self {
            ApiError::Transport { .. } | ApiError::RateLimited { .. } => true,
            ApiError::Server { status, .. } => *status >= 500 || *status == 408,
            ApiError::Unauthenticated { .. }
            | ApiError::Forbidden { .. }
            | ApiError::Validation { .. }
            | ApiError::NotFound { .. }
            | ApiError::CallBudget { .. }
            | ApiError::QuotaSpent { .. }
            | ApiError::Redirected { .. }
            | ApiError::Mismatch { .. }
            | ApiError::Halted { .. }
            | ApiError::Decode { .. } => false,
        }
    }
}

/// The longest text of the service's quoted in a message (a parameter's messages, a
/// refusal's detail): the message lands in every report row it concerns.
pub const MESSAGE_MAX_CHARS: usize = 300;

/// Parameters of a validation error quoted; the others are counted.
pub const MAX_FIELDS_SHOWN: usize = 10;

/// Text of the service's as a message quotes it: printable (no control or bidirectional
/// character can reach a terminal or a report through an error) and at most
/// [`MESSAGE_MAX_CHARS`].
fn shown(text: &str) -> String {
    crate::text::received(text, MESSAGE_MAX_CHARS)
}

struct ValidationList<'a>(&'a [(String, Vec<String>)]);

impl fmt::Display for ValidationList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (field, messages)) in self.0.iter().take(MAX_FIELDS_SHOWN).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{}: {}", shown(field), shown(&messages.join(" ")))?;
        }
        if self.0.len() > MAX_FIELDS_SHOWN {
            write!(
                f,
                "; and {} more parameters",
                self.0.len() - MAX_FIELDS_SHOWN
            )?;
        }
        Ok(())
    }
}

fn budget_text(limit: u64, month: Option<u64>) -> String {
    match month {
        None => format!(
            "not screened: call budget reached (--max-calls {limit}); this row is screened on a later run"
        ),
        Some(month) => format!(
            "not screened: call budget reached (--max-calls-per-month {month}: {limit} left this month when the run began); this row is screened on a later run that the budget allows"
        ),
    }
}

fn retry_hint(after: &Option<Duration>) -> String {
    match after {
        Some(d) => format!(" (asked to wait {} s)", d.as_secs_f64()),
        None => String::new(),
    }
}

fn redirect_text(to: &str, too_many: bool) -> String {
    if too_many {
        format!(
            "the service redirected too many times (last to {to}); ratewatch stopped following: check --base-url"
        )
    } else {
        format!(
            "the service redirected to {to}, another server; ratewatch does not follow it, so the API key is not sent there: check --base-url"
        )
    }
}

/// The first `max` characters of a body, on one line, printable, for error messages.
pub fn snippet(body: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out = String::with_capacity(max.min(text.len()));
    let mut last_space = false;
    for ch in text.chars().filter(|c| !crate::text::is_hidden(*c)) {
        if out.chars().count() >= max {
            out.push('…');
            break;
        }
        let ch = if ch.is_control() || ch.is_whitespace() {
            ' '
        } else {
            ch
        };
        if ch == ' ' && last_space {
            continue;
        }
        last_space = ch == ' ';
        out.push(ch);
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_message_lists_every_parameter_verbatim() {
        let e = ApiError::Validation {
            fields: vec![
                (
                    "country".into(),
                    vec!["\"XX\" is not a valid choice.".into()],
                ),
                ("name".into(), vec!["This field is required.".into()]),
            ],
        };
        let msg = e.to_string();
        assert!(
            msg.contains("country: \"XX\" is not a valid choice."),
            "{msg}"
        );
        assert!(msg.contains("name: This field is required."), "{msg}");
        assert!(!e.is_transient());
    }

    #[test]
    fn snippet_flattens_and_cuts_html() {
        let html = b"<html>\n  <head><title>502 Bad Gateway</title></head>\r\n<body>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</body></html>";
        let s = snippet(html, 40);
        assert!(s.starts_with("<html> <head><title>502 Bad Gateway"));
        assert!(s.ends_with('…'));
        assert!(!s.contains('\n'));
    }

    #[test]
    fn only_passing_troubles_are_transient() {
        assert!(
            ApiError::Server {
                status: 503,
                snippet: String::new()
            }
            .is_transient()
        );
        assert!(
            ApiError::Server {
                status: 408,
                snippet: String::new()
            }
            .is_transient()
        );
        assert!(
            !ApiError::Server {
                status: 418,
                snippet: String::new()
            }
            .is_transient()
        );
        assert!(ApiError::RateLimited { retry_after: None }.is_transient());
        assert!(
            !ApiError::Unauthenticated {
                status: 401,
                message: String::new()
            }
            .is_transient()
        );
        assert!(
            !ApiError::NotFound {
                what: String::new()
            }
            .is_transient()
        );
        assert!(
            !ApiError::Redirected {
                to: "http://elsewhere/".into(),
                too_many: false
            }
            .is_transient()
        );
    }
}
