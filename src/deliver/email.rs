//! `[email]`: a night's news mailed over SMTP to the people who act on it, as one message
//! with a plain-text part (the summary's own words) and an HTML part (the alerts as a
//! table, for the mail clients that show it).
//!
//! A message goes out on a night worth a look — alerts listed, or a run that failed,
//! stopped, left rows unscreened or rated nothing — and never on a quiet one. It is tried
//! like the webhook ([`Policy`]); a failure is a line for stderr and a warning in the log,
//! never the run's outcome. The password is read from a file of its own, sent only in
//! AUTH, and taken out of every error a server could echo it in.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use askama::Template;
use futures::future::BoxFuture;
use lettre::message::header::{
    ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue,
};
use lettre::message::{Mailbox, Message, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;

use super::{Channel, EndedRun, NotDelivered, Policy, Reading, Sent, Wants};
use crate::alerts::Rules;
use crate::digest::{AlertDigest, AlertLine, refreshed, same_column};
use crate::model::{AlertKind, Color, RowStatus, RunInfo, RunStatus};
use crate::report::summary::is_loud;
use crate::text::{UrlPath, plural, printable, redacted_url};
use crate::toml_table::{Mistake, Table};
use base64::prelude::{BASE64_STANDARD, Engine as _};

/// The keys of `[email]`, as an error lists them.
const KEYS: &str = "smtp, from, to, starttls, username, password_file";

/// Where the messages go: `smtp://host[:port]` (587 when left out; STARTTLS as `starttls`
/// says) or `smtps://host[:port]` (465; TLS from the first byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    /// `smtps://`: TLS from the first byte.
    pub implicit_tls: bool,
    /// A name or an address (an IPv6 one without its brackets).
    pub host: String,
    pub port: u16,
}

impl SmtpUrl {
    /// Checks an address; the error never repeats what could be a secret (a user or
    /// password written into the URL).
    pub fn parse(text: &str) -> Result<SmtpUrl, String> {
        let expected = "expected an smtp:// or smtps:// URL, \"smtp://mail.example.com:587\"";
        let url = url::Url::parse(text.trim()).map_err(|_| expected.to_string())?;
        let shown = redacted_url(text, UrlPath::Whole);
        let implicit_tls = match url.scheme() {
            "smtp" => false,
            "smtps" => true,
            _ => return Err(format!("{expected}, got {shown}")),
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!(
                "{shown}: no user or password in the URL (a settings file gets copied and shared); the user goes in `username`, the password in a file of its own named by `password_file`"
            ));
        }
        let host = match url.host() {
            Some(url::Host::Domain(name)) if !name.is_empty() => name.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(format!("{expected}, with a host, got {shown}")),
        };
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(format!(
                "{expected}: a host and a port, no path or query, got {shown}"
            ));
        }
        let port = url.port().unwrap_or(if implicit_tls { 465 } else { 587 });
        Ok(SmtpUrl {
            implicit_tls,
            host,
            port,
        })
    }

    /// Whether the server is this machine (127.0.0.0/8, ::1, localhost): a password sent
    /// there in clear crosses no network.
    fn is_loopback(&self) -> bool {
        self.host.eq_ignore_ascii_case("localhost")
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl fmt::Display for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.implicit_tls { "smtps" } else { "smtp" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// Whether an `smtp://` connection is upgraded to TLS before anything is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartTls {
    /// Or nothing is sent: a server that does not offer STARTTLS is an error.
    Required,
    /// When the server offers it, else in clear.
    Opportunistic,
    /// In clear: a relay on this machine or a trusted network only.
    Never,
}

impl StartTls {
    pub fn as_str(self) -> &'static str {
        match self {
            StartTls::Required => "required",
            StartTls::Opportunistic => "opportunistic",
            StartTls::Never => "never",
        }
    }
}

/// `[email]` of ratewatch.toml, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailSettings {
    pub smtp: SmtpUrl,
    pub from: Mailbox,
    /// Every recipient of the one message.
    pub to: Vec<Mailbox>,
    /// Ignored for `smtps://`.
    pub starttls: StartTls,
    pub username: Option<String>,
    /// The file holding the password: AUTH only when one is named.
    pub password_file: Option<PathBuf>,
}

impl EmailSettings {
    /// Reads `[email]`: `at` is where the table begins (for a key that is missing), and a
    /// relative `password_file` is the config file's `folder`'s. An unknown key is an error.
    pub fn from_table(
        table: &Table,
        at: std::ops::Range<usize>,
        folder: &Path,
    ) -> Result<EmailSettings, Mistake> {
        let (mut smtp, mut from, mut to) = (None, None, None);
        let mut starttls = StartTls::Required;
        let (mut username, mut password_file) = (None, None);
        for (key, value) in table {
            let (span, key) = (key.span(), key.get_ref().as_str());
            let wrong = |what: &str| (span.clone(), format!("[email] {key}: expected {what}"));
            let value = value.get_ref();
            let text = |what: &str| {
                value
                    .as_str()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .ok_or_else(|| wrong(what))
            };
            let address = |text: &str| {
                text.parse::<Mailbox>().map_err(|_| {
                    wrong(&format!(
                        "an address, \"credit@example.com\" or \"ratewatch <credit@example.com>\", got {text:?}"
                    ))
                })
            };
            match key {
                "smtp" => {
                    let url = text("a URL, \"smtp://mail.example.com:587\"")?;
                    smtp = Some(
                        SmtpUrl::parse(url)
                            .map_err(|m| (span.clone(), format!("[email] smtp: {m}")))?,
                    );
                }
                "from" => from = Some(address(text("an address, \"credit@example.com\"")?)?),
                "to" => {
                    let list = || wrong("a list of addresses, [\"credit-team@example.com\", …]");
                    let texts: Vec<&str> = match value {
                        toml::Value::String(one) => vec![one.as_str()],
                        toml::Value::Array(many) => many
                            .iter()
                            .map(|v| v.as_str().ok_or_else(list))
                            .collect::<Result<_, _>>()?,
                        _ => return Err(list()),
                    };
                    if texts.is_empty() {
                        return Err(list());
                    }
                    to = Some(
                        texts
                            .into_iter()
                            .map(|t| address(t.trim()))
                            .collect::<Result<Vec<_>, _>>()?,
                    );
                }
                "starttls" => {
                    starttls = match value.as_str() {
                        Some("required") => StartTls::Required,
                        Some("opportunistic") => StartTls::Opportunistic,
                        Some("never") => StartTls::Never,
                        _ => return Err(wrong("\"required\", \"opportunistic\" or \"never\"")),
                    }
                }
                "username" => username = Some(text("a user name")?.to_string()),
                "password_file" => {
                    password_file = Some(folder.join(text("the path of a file")?));
                }
                "password" | "pass" | "secret" => {
                    return Err((
                        span.clone(),
                        format!(
                            "[email] {key}: the password is never read from the config file; put it alone in a file readable only by the user that runs ratewatch, and name that file with `password_file = \"PATH\"`"
                        ),
                    ));
                }
                other => {
                    return Err((
                        span.clone(),
                        format!("[email]: unknown key `{other}`; the keys are {KEYS}"),
                    ));
                }
            }
        }
        let missing = |key: &str, example: &str| {
            (
                at.clone(),
                format!("[email]: `{key}` is missing ({key} = {example})"),
            )
        };
        Ok(EmailSettings {
            smtp: smtp.ok_or_else(|| missing("smtp", "\"smtp://mail.example.com:587\""))?,
            from: from.ok_or_else(|| missing("from", "\"ratewatch <credit@example.com>\""))?,
            to: to.ok_or_else(|| missing("to", "[\"credit-team@example.com\"]"))?,
            starttls,
            username,
            password_file,
        })
    }

    /// Whether the password would cross a network unencrypted: sent over `smtp://` to
    /// another machine without STARTTLS required.
    fn password_in_clear(&self) -> bool {
        self.password_file.is_some()
            && !self.smtp.implicit_tls
            && self.starttls != StartTls::Required
            && !self.smtp.is_loopback()
    }
}

/// The SMTP password, never shown: `Debug` says only that there is one.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    /// The file's text without its line ending (a password may begin or end with spaces).
    pub fn from_file_text(text: &str) -> Password {
        let text = text.strip_suffix('\n').unwrap_or(text);
        Password(text.strip_suffix('\r').unwrap_or(text).to_string())
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// What sends a run's message: the settings, the password read from its file, and how
/// hard to try.
#[derive(Debug, Clone)]
pub struct Mailer {
    pub settings: EmailSettings,
    password: Option<Password>,
    pub policy: Policy,
}

impl Mailer {
    pub fn new(settings: EmailSettings, password: Option<Password>) -> Mailer {
        Mailer {
            settings,
            password,
            policy: Self::POLICY,
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

/// A message ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub subject: String,
    pub plain: String,
    pub html: String,
    /// The message's delivery id, the left part of its Message-ID; `None` for a run
    /// without a record (its message is never sent again: any Message-ID does).
    pub delivery_id: Option<String>,
}

/// How a night went, as far as the message says it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Night {
    /// Complete, something rated: news only if alerts are listed.
    Fine,
    Failed,
    /// Nothing rated at all.
    NothingScreened {
        rows: u64,
    },
    Stopped {
        failed: u64,
    },
    Partial {
        failed: u64,
    },
}

impl Night {
    fn of(run: Option<&RunInfo>, ended: &EndedRun<'_>) -> Night {
        match run {
            Some(run) if run.screened_nobody() => Night::NothingScreened { rows: run.rows },
            _ if !ended.ok => Night::Failed,
            None => Night::Failed,
            Some(run) => {
                let failed = run.rows_with(RowStatus::Failed);
                match run.status {
                    RunStatus::Complete => Night::Fine,
                    RunStatus::Interrupted => Night::Stopped { failed },
                    RunStatus::Partial => Night::Partial { failed },
                    RunStatus::Failed | RunStatus::Running => Night::Failed,
                }
            }
        }
    }

    /// The subject's words: `PARTIAL, 12 rows not screened`.
    fn subject(self) -> Option<String> {
        let not_screened = |n| plural(n, "row not screened", "rows not screened");
        match self {
            Night::Fine => None,
            Night::Failed => Some("FAILED".into()),
            Night::NothingScreened { rows } => Some(format!(
                "NOTHING SCREENED, none of {} rated",
                plural(rows, "row", "rows")
            )),
            Night::Stopped { failed } => Some(format!("STOPPED, {}", not_screened(failed))),
            Night::Partial { failed } => Some(format!("PARTIAL, {}", not_screened(failed))),
        }
    }

    /// The line that says it in the HTML part, in the summary's words.
    fn line(self, error: Option<&str>) -> Option<String> {
        match self {
            Night::Fine => None,
            Night::Failed => Some(match error {
                Some(error) => format!("FAILED: {error}"),
                None => "FAILED: the run stopped on an error; see the log".into(),
            }),
            Night::NothingScreened { rows } => Some(format!(
                "NOTHING SCREENED: not one of the {} could be rated; see the counts and `error` in the reports",
                plural(rows, "row", "rows")
            )),
            Night::Stopped { failed } => Some(format!(
                "STOPPED: {} not screened, the next run resumes them",
                plural(failed, "row", "rows")
            )),
            Night::Partial { failed } => Some(format!(
                "PARTIAL: {} will be retried next run",
                plural(failed, "row failed and", "rows failed and")
            )),
        }
    }
}

/// The message of a night worth a look, or `None` on a quiet one (complete, something
/// rated, nothing listed). The plain part is the summary the run printed (`ended.summary`)
/// with the error that ended the run after the heading; the HTML part the same news laid
/// out from `read`.
pub fn compose(read: &Reading, ended: &EndedRun<'_>) -> Option<Letter> {
    let run = read.run.as_ref();
    let digest = read.digest.as_ref();
    let night = Night::of(run, ended);
    let listed = digest.map_or(0, |d| d.listed_total);
    if night == Night::Fine && listed == 0 {
        return None;
    }
    let heading = match read.heading() {
        Some(heading) => heading.line(),
        None => format!(
            "ratewatch {} · {} · no run recorded",
            jiff::Timestamp::now().strftime("%Y-%m-%d"),
            printable(ended.portfolio)
        ),
    };
    let day = run.map_or_else(jiff::Timestamp::now, |r| r.started_at);
    let mut subject = format!(
        "ratewatch {} {}",
        printable(ended.portfolio),
        day.strftime("%Y-%m-%d")
    );
    let news: Vec<String> = [night.subject(), digest.and_then(kinds_said)]
        .into_iter()
        .flatten()
        .collect();
    subject.push_str(": ");
    subject.push_str(&news.join("; "));

    let error = ended.error.map(printable);
    let mut plain = match ended.summary.trim() {
        "" => digest_text(&heading, digest),
        _ => ended.summary.to_string(),
    };
    if let Some(error) = &error {
        let at = plain.find('\n').map_or(plain.len(), |i| i + 1);
        plain.insert_str(at, &format!("FAILED: {error}\n"));
    }
    let html = Page::new(&subject, heading, night, error.as_deref(), run, digest)
        .render()
        .unwrap_or_else(|e| format!("<p>{}</p>", crate::report::html::escape(&e.to_string())));
    Some(Letter {
        subject: printable(&subject),
        plain: crate::text::printable_text(&plain),
        html,
        delivery_id: read.delivery_id.clone(),
    })
}

/// The plain part of a night whose printed summary is not at hand (a message sent again
/// by a later run, or a run that printed none): its heading, then its alerts as the
/// summary lists them.
fn digest_text(heading: &str, digest: Option<&AlertDigest>) -> String {
    let mut text = format!("{heading}\n");
    let Some(digest) = digest else {
        return text;
    };
    if digest.listed_total > 0 {
        text.push_str(&format!("{}:\n", digest.totals_line()));
        for line in crate::digest::alert_table(digest, &digest.listed).lines() {
            text.push_str(&format!("  {line}\n"));
        }
        if digest.unlisted() > 0 {
            text.push_str(&format!(
                "  … and {} more in the reports\n",
                digest.unlisted()
            ));
        }
    }
    for line in digest
        .standing_lines()
        .into_iter()
        .chain(digest.counted_line())
    {
        text.push_str(&format!("{line}\n"));
    }
    text
}

/// The alerts in the subject's words, worst first: `1 new black, 3 new red`.
fn kinds_said(digest: &AlertDigest) -> Option<String> {
    let said: Vec<String> = digest
        .kinds
        .iter()
        .filter(|k| k.count > 0)
        .map(|k| {
            let what = match k.kind {
                AlertKind::Black => "new black",
                AlertKind::Red => "new red",
                AlertKind::White => "into white",
                other => other.describe(),
            };
            format!("{} {what}", k.count)
        })
        .collect();
    match (said.is_empty(), digest.listed_total) {
        (_, 0) => None,
        (true, n) => Some(plural(n, "alert", "alerts")),
        (false, _) => Some(said.join(", ")),
    }
}

/// One cell of the alerts' table: its text, and the styles this code chose for it.
struct Cell {
    text: String,
    style: &'static str,
    /// A color's badge, or empty.
    badge: &'static str,
}

/// The HTML part: `templates/email.html`.
#[derive(Template)]
#[template(path = "email.html")]
struct Page {
    subject: String,
    heading: String,
    /// What made the night loud, first: its state, the run's loud notes, a storm.
    loud: Vec<String>,
    totals: Option<String>,
    headers: Vec<String>,
    rows: Vec<Vec<Cell>>,
    unlisted: u64,
    standing: Vec<String>,
    counted: Option<String>,
    /// The rows by status, at the foot.
    counts: Option<String>,
}

impl Page {
    fn new(
        subject: &str,
        heading: String,
        night: Night,
        error: Option<&str>,
        run: Option<&RunInfo>,
        digest: Option<&AlertDigest>,
    ) -> Page {
        let mut loud: Vec<String> = night.line(error).into_iter().collect();
        // An error that ended a run whose state says something else (nothing rated).
        if let (Some(error), false) = (error, night == Night::Failed) {
            loud.insert(0, format!("FAILED: {error}"));
        }
        if let Some(run) = run {
            loud.extend(
                run.notes
                    .iter()
                    .filter(|n| is_loud(n))
                    .map(|n| printable(n)),
            );
        }
        let empty = AlertDigest::default();
        let digest = digest.unwrap_or(&empty);
        if let Some((changed, companies)) = digest.storm {
            loud.push(format!(
                "STORM: {changed} of {companies} companies changed color in this run: likely a change of method at the source; the {} worst are listed, every change is in the reports",
                digest.listed.len()
            ));
        }
        let mut headers: Vec<String> = ["Ref", "Company", "Country", "Color", "Alert"]
            .map(String::from)
            .to_vec();
        headers.extend(digest.columns.iter().map(|c| printable(c)));
        headers.push("Refreshed".into());
        Page {
            subject: printable(subject),
            heading,
            loud,
            totals: (digest.listed_total > 0).then(|| digest.totals_line()),
            headers,
            rows: digest.listed.iter().map(|a| cells(digest, a)).collect(),
            unlisted: digest.unlisted(),
            standing: digest.standing_lines(),
            counted: digest.counted_line(),
            counts: run.map(counts),
        }
    }
}

/// A listed alert's cells, as the summary's table has them (see `digest::alert_table`).
fn cells(digest: &AlertDigest, a: &AlertLine) -> Vec<Cell> {
    let plain = |text: String| Cell {
        text: printable(&text),
        style: "",
        badge: "",
    };
    let mut cells = vec![
        plain(a.refs.clone()),
        plain(a.company.clone()),
        plain(a.country.clone().unwrap_or_else(|| "-".into())),
        Cell {
            badge: badge(a.color.as_ref()),
            ..plain(a.movement())
        },
        plain(a.kind.describe().to_string()),
    ];
    let amount_column = digest.amount_column.as_deref();
    for column in &digest.columns {
        let amount = amount_column.is_some_and(|c| same_column(c, column));
        cells.push(Cell {
            style: if amount {
                "text-align:right;white-space:nowrap"
            } else {
                ""
            },
            ..plain(a.shown_value(column, amount_column))
        });
    }
    cells.push(Cell {
        style: "white-space:nowrap",
        ..plain(refreshed(a.last_refresh_date))
    });
    cells
}

/// A color's badge, as report.html draws it; none for a color outside the five.
fn badge(color: Option<&Color>) -> &'static str {
    match color {
        Some(Color::Green) => "background:#1a7f37;color:#ffffff",
        Some(Color::Yellow) => "background:#f2c200;color:#1f2328",
        Some(Color::Red) => "background:#cf222e;color:#ffffff",
        Some(Color::Black) => "background:#111111;color:#ffffff",
        Some(Color::White) => "background:#ffffff;color:#1f2328;border:1px solid #8c959f",
        _ => "",
    }
}

/// `20 rows: 17 rated, 2 unresolved, 1 failed · calls: 25`.
fn counts(run: &RunInfo) -> String {
    let statuses: Vec<String> = RowStatus::ALL
        .iter()
        .filter(|s| run.rows_with(**s) > 0)
        .map(|s| format!("{} {}", run.rows_with(*s), s.as_str()))
        .collect();
    format!(
        "run {} of {} ({}): {}: {}",
        run.id,
        printable(&run.portfolio),
        run.status,
        plural(run.rows, "row", "rows"),
        statuses.join(", ")
    )
}

/// The message as sent: From, To (every recipient), Subject, its Message-ID, and the two
/// parts as quoted-printable (readable as it travels, and safe for any line length).
fn message(settings: &EmailSettings, letter: &Letter) -> Result<Message, String> {
    let part = |kind: ContentType, body: &str| {
        SinglePart::builder()
            .header(kind)
            .header(ContentTransferEncoding::QuotedPrintable)
            .body(body.to_string())
    };
    let mut builder = Message::builder()
        .from(settings.from.clone())
        .subject(letter.subject.clone())
        .message_id(message_id(settings, letter))
        .header(AutoSubmitted)
        .user_agent(concat!("ratewatch/", env!("CARGO_PKG_VERSION")).to_string());
    for to in &settings.to {
        builder = builder.to(to.clone());
    }
    builder
        .multipart(
            MultiPart::alternative()
                .singlepart(part(ContentType::TEXT_PLAIN, &letter.plain))
                .singlepart(part(ContentType::TEXT_HTML, &letter.html)),
        )
        .map_err(|e| format!("cannot make the message: {e}"))
}

/// `<DELIVERY-ID@DOMAIN-OF-FROM>`: the same for every attempt and resend of the message,
/// so that a mail system that took it once can drop it, and a reader sees it once. `None`
/// (a run without a record) leaves it to lettre: a random one at this host.
fn message_id(settings: &EmailSettings, letter: &Letter) -> Option<String> {
    let id = letter.delivery_id.as_ref()?;
    Some(format!("<{id}@{}>", settings.from.email.domain()))
}

/// `Auto-Submitted: auto-generated` (RFC 3834): no out-of-office reply comes back for a
/// nightly message.
#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".into())
    }
}

/// Sends `letter` to every recipient, retrying with doubling waits. Returns the attempts
/// made; a failure says how many and the last one's cause, never the password. Not tried
/// again: what another attempt cannot change (no STARTTLS where it is required, a login
/// refused for good, no AUTH the client knows).
pub async fn send(mailer: &Mailer, letter: &Letter) -> Result<u32, NotDelivered> {
    let settings = &mailer.settings;
    let policy = mailer.policy;
    let message = message(settings, letter).map_err(|last| NotDelivered { attempts: 0, last })?;
    let bytes = message.formatted();
    if settings.password_in_clear() {
        tracing::warn!(
            "the SMTP password goes to {} in clear (starttls = \"{}\"), readable on the way: use starttls = \"required\" or smtps://",
            settings.smtp,
            settings.starttls.as_str()
        );
    }
    let secret = Secret::new(settings.username.as_deref(), mailer.password.as_ref());
    let attempts = policy.attempts.max(1);
    let mut delay = policy.first_delay;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let tried = tokio::time::timeout(
            policy.timeout,
            once(mailer, message.envelope(), &bytes, policy.timeout),
        )
        .await;
        let failure = match tried {
            Ok(Ok(())) => return Ok(attempt),
            Ok(Err(failure)) => failure,
            Err(_) => Failure {
                text: format!("no answer within {} s", policy.timeout.as_secs_f64()),
                again: true,
            },
        };
        let last = secret.scrubbed(&failure.text);
        if !failure.again || attempt >= attempts {
            return Err(NotDelivered {
                attempts: attempt,
                last,
            });
        }
        tracing::info!(email = %mailer.shown(), attempt, error = %last, "email not delivered; trying again");
        tokio::time::sleep(delay).await;
        delay = delay.saturating_mul(2);
    }
}

/// Why one attempt failed, and whether another could do better.
struct Failure {
    text: String,
    again: bool,
}

impl Failure {
    /// A step of the dialogue that failed: `sending the message: permanent error (554): …`.
    fn at(step: &str, e: &lettre::transport::smtp::Error) -> Failure {
        Failure {
            text: format!("{step}: {e}"),
            again: true,
        }
    }

    fn final_(text: String) -> Failure {
        Failure { text, again: false }
    }
}

/// One attempt: connect, STARTTLS as asked, AUTH when there is a password, the message,
/// QUIT.
async fn once(
    mailer: &Mailer,
    envelope: &lettre::address::Envelope,
    bytes: &[u8],
    timeout: Duration,
) -> Result<(), Failure> {
    let settings = &mailer.settings;
    let smtp = &settings.smtp;
    let hello = ClientId::default();
    let tls = || {
        TlsParameters::new(smtp.host.clone())
            .map_err(|e| Failure::final_(format!("no TLS for {}: {e}", smtp.host)))
    };
    let wrapper = match smtp.implicit_tls {
        true => Some(tls()?),
        false => None,
    };
    let mut conn = AsyncSmtpConnection::connect_tokio1(
        (smtp.host.as_str(), smtp.port),
        Some(timeout),
        &hello,
        wrapper,
        None,
    )
    .await
    .map_err(|e| Failure::at(&format!("connecting to {smtp}"), &e))?;
    let starttls = match settings.starttls {
        _ if smtp.implicit_tls => false,
        StartTls::Required if !conn.can_starttls() => {
            conn.abort().await;
            return Err(Failure::final_(format!(
                "{smtp} does not offer STARTTLS, which starttls = \"required\" asks for: nothing was sent in clear"
            )));
        }
        StartTls::Required => true,
        StartTls::Opportunistic => conn.can_starttls(),
        StartTls::Never => false,
    };
    if starttls {
        conn.starttls(tls()?, &hello)
            .await
            .map_err(|e| Failure::at("STARTTLS", &e))?;
    }
    if let (Some(user), Some(password)) = (&settings.username, &mailer.password) {
        let credentials = Credentials::new(user.clone(), password.0.clone());
        if let Err(e) = conn
            .auth(&[Mechanism::Plain, Mechanism::Login], &credentials)
            .await
        {
            conn.abort().await;
            let mut failure = Failure::at(&format!("AUTH as {user}"), &e);
            // A login refused for good stays refused; trying again could lock the account.
            failure.again = e.is_transient() || e.is_timeout();
            return Err(failure);
        }
    }
    conn.send(envelope, bytes)
        .await
        .map_err(|e| Failure::at("sending the message", &e))?;
    // Taken: a server that hangs up before answering QUIT has the message all the same.
    let _ = conn.quit().await;
    Ok(())
}

/// The forms in which the password could come back in a server's reply (a server may
/// quote what it was sent when it refuses a login): each is replaced by `***`.
struct Secret(Vec<String>);

impl Secret {
    fn new(username: Option<&str>, password: Option<&Password>) -> Secret {
        let Some(Password(password)) = password else {
            return Secret(Vec::new());
        };
        let user = username.unwrap_or_default();
        let mut forms = vec![
            password.clone(),
            BASE64_STANDARD.encode(password.as_bytes()),
            // AUTH PLAIN's answer: authorization id, user, password.
            BASE64_STANDARD.encode(format!("\0{user}\0{password}").as_bytes()),
            BASE64_STANDARD.encode(format!("{user}\0{user}\0{password}").as_bytes()),
        ];
        forms.retain(|f| !f.is_empty());
        // The longest first, so that no form hides part of a longer one.
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        Secret(forms)
    }

    fn scrubbed(&self, text: &str) -> String {
        let mut text = text.to_string();
        for form in &self.0 {
            text = text.replace(form.as_str(), "***");
        }
        printable(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::KindTotal;

    #[test]
    fn an_smtp_url_is_a_host_and_a_port_and_never_carries_a_login() {
        let url = |text: &str| SmtpUrl::parse(text).map(|u| u.to_string());
        assert_eq!(
            url("smtp://mail.example.com").unwrap(),
            "smtp://mail.example.com:587"
        );
        assert_eq!(
            url(" smtp://mail.example.com:25 ").unwrap(),
            "smtp://mail.example.com:25"
        );
        assert_eq!(
            url("smtps://mail.example.com").unwrap(),
            "smtps://mail.example.com:465"
        );
        assert_eq!(url("smtp://[::1]:2525/").unwrap(), "smtp://[::1]:2525");
        let v6 = SmtpUrl::parse("smtp://[::1]:2525").unwrap();
        assert_eq!(v6.host, "::1");
        assert!(v6.is_loopback() && SmtpUrl::parse("smtp://localhost").unwrap().is_loopback());
        assert!(!SmtpUrl::parse("smtp://10.0.0.1").unwrap().is_loopback());
        for (text, message) in [
            ("mail.example.com", "expected an smtp:// or smtps:// URL"),
            (
                "https://mail.example.com",
                "expected an smtp:// or smtps:// URL, \"smtp://mail.example.com:587\", got https://mail.example.com/",
            ),
            (
                "smtp://u:s3cr3t@mail.example.com",
                "smtp://***@mail.example.com: no user or password in the URL",
            ),
            (
                "smtp://mail.example.com/s3cr3t",
                "expected an smtp:// or smtps:// URL, \"smtp://mail.example.com:587\": a host and a port, no path or query, got smtp://mail.example.com/s3cr3t",
            ),
            (
                "smtp://mail.example.com?k=s3cr3t",
                "a host and a port, no path or query, got smtp://mail.example.com?k=***",
            ),
        ] {
            let e = url(text).unwrap_err();
            assert!(e.contains(message), "{text}: {e}");
            assert!(!e.contains("u:s3cr3t") && !e.contains("k=s3cr3t"), "{e}");
        }
    }

    fn table(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    const GOOD: &str = "smtp = \"smtp://mail.example.com\"\nfrom = \"ratewatch <credit@example.com>\"\nto = [\"a@example.com\", \"Risk <risk@example.com>\"]\n";

    #[test]
    fn the_table_gives_the_settings_and_names_a_mistake_at_its_key() {
        let folder = Path::new("/etc/ratewatch");
        let read = |text: &str| EmailSettings::from_table(&table(text), 0..7, folder);
        let s = read(&format!(
            "{GOOD}starttls = \"opportunistic\"\nusername = \"rw\"\npassword_file = \"smtp.pw\"\n"
        ))
        .unwrap();
        assert_eq!(s.smtp.port, 587);
        assert_eq!(s.from.email.to_string(), "credit@example.com");
        assert_eq!(s.to.len(), 2);
        assert_eq!(s.to[1].to_string(), "Risk <risk@example.com>");
        assert_eq!(s.starttls, StartTls::Opportunistic);
        assert_eq!(s.username.as_deref(), Some("rw"));
        assert_eq!(s.password_file, Some(folder.join("smtp.pw")));
        assert!(s.password_in_clear(), "opportunistic may end in clear");
        let defaults = read(GOOD).unwrap();
        assert_eq!(
            (defaults.starttls, defaults.password_file),
            (StartTls::Required, None)
        );
        let one = read(
            "smtp = \"smtps://m.example\"\nfrom = \"a@example.com\"\nto = \"b@example.com\"\n",
        )
        .unwrap();
        assert_eq!(one.to.len(), 1);

        for (text, message) in [
            (
                "starttls = \"always\"",
                "[email] starttls: expected \"required\", \"opportunistic\" or \"never\"",
            ),
            ("to = []", "[email] to: expected a list of addresses"),
            (
                "to = [\"nobody\"]",
                "[email] to: expected an address, \"credit@example.com\" or \"ratewatch <credit@example.com>\", got \"nobody\"",
            ),
            ("from = 3", "[email] from: expected an address"),
            (
                "usernam = \"rw\"",
                "[email]: unknown key `usernam`; the keys are smtp, from, to, starttls, username, password_file",
            ),
            (
                "smtp = \"ftp://x.example\"",
                "[email] smtp: expected an smtp:// or smtps:// URL",
            ),
        ] {
            let key = text.split(' ').next().unwrap();
            let kept: String = GOOD
                .lines()
                .filter(|l| !l.starts_with(&format!("{key} =")))
                .map(|l| format!("{l}\n"))
                .collect();
            let text = format!("{kept}{text}\n");
            let at = text.rfind(key).unwrap();
            let (span, m) = read(&text).unwrap_err();
            assert!(m.starts_with(message), "{m}");
            assert_eq!(span.start, at, "{m}");
        }
        let (span, m) =
            read("smtp = \"smtp://m.example\"\nfrom = \"a@example.com\"\n").unwrap_err();
        assert_eq!(
            (span, m.as_str()),
            (
                0..7,
                "[email]: `to` is missing (to = [\"credit-team@example.com\"])"
            )
        );
    }

    #[test]
    fn a_password_keeps_its_spaces_and_never_shows() {
        let p = Password::from_file_text(" pa ss \r\n");
        assert_eq!(p.0, " pa ss ");
        assert_eq!(format!("{p:?}"), "Password(<redacted>)");
        let settings = EmailSettings::from_table(&table(GOOD), 0..0, Path::new("")).unwrap();
        let mailer = Mailer::new(settings, Some(p));
        assert!(!format!("{mailer:?}").contains("pa ss"));
    }

    #[test]
    fn the_message_id_is_the_delivery_id_at_the_sender_s_domain() {
        let settings = EmailSettings::from_table(&table(GOOD), 0..0, Path::new("")).unwrap();
        let letter = |delivery_id: Option<&str>| Letter {
            subject: "ratewatch customers 2026-11-26: 1 new red".into(),
            plain: "plain".into(),
            html: "<p>html</p>".into(),
            delivery_id: delivery_id.map(String::from),
        };
        let id_of = |letter: &Letter| {
            let sent = message(&settings, letter).unwrap().formatted();
            let sent = String::from_utf8(sent).unwrap();
            sent.lines()
                .find_map(|l| l.strip_prefix("Message-ID: "))
                .map(String::from)
        };
        let named = letter(Some("0123456789abcdef0123456789abcdef"));
        let id = id_of(&named);
        assert_eq!(
            id.as_deref(),
            Some("<0123456789abcdef0123456789abcdef@example.com>")
        );
        assert_eq!(id_of(&named), id, "the same message, the same id");
        // A message without a delivery id (no run recorded) still gets one, lettre's.
        let unnamed = id_of(&letter(None)).unwrap();
        assert!(
            unnamed.starts_with('<') && unnamed.ends_with('>'),
            "{unnamed}"
        );
        assert_ne!(Some(&unnamed), id.as_ref());
    }

    #[test]
    fn every_form_of_the_password_a_server_could_quote_is_scrubbed() {
        let password = Password::from_file_text("s3cr3t");
        let secret = Secret::new(Some("rw"), Some(&password));
        let plain = BASE64_STANDARD.encode(b"\0rw\0s3cr3t");
        let login = BASE64_STANDARD.encode(b"s3cr3t");
        let text = format!("535 refused s3cr3t ({plain}) ({login})");
        assert_eq!(secret.scrubbed(&text), "535 refused *** (***) (***)");
        assert_eq!(Secret::new(None, None).scrubbed("535 no"), "535 no");
    }

    fn ended<'a>(ok: bool, summary: &'a str, error: Option<&'a str>) -> EndedRun<'a> {
        EndedRun {
            portfolio: "customers",
            run_id: Some(1),
            ok,
            duration: Duration::from_secs(1),
            summary,
            error,
        }
    }

    fn rated(rated: u64, failed: u64) -> RunInfo {
        RunInfo {
            rows: rated + failed,
            by_status: vec![(RowStatus::Rated, rated), (RowStatus::Failed, failed)],
            status: if failed > 0 {
                RunStatus::Partial
            } else {
                RunStatus::Complete
            },
            ..RunInfo::example()
        }
    }

    fn reading(run: RunInfo, digest: AlertDigest) -> Reading {
        Reading {
            run: Some(run),
            digest: Some(digest),
            report: Some("/var/lib/ratewatch/reports/report.html".into()),
            last_success: None,
            delivery_id: Some("0123456789abcdef0123456789abcdef".into()),
        }
    }

    #[test]
    fn a_quiet_night_has_no_message_and_the_others_say_what_they_are() {
        let summary = "ratewatch 2026-11-21 · customers · run 1\nNothing flagged.\n";
        let quiet = reading(rated(20, 0), AlertDigest::default());
        assert_eq!(compose(&quiet, &ended(true, summary, None)), None);

        let partial = compose(
            &reading(rated(8, 12), AlertDigest::default()),
            &ended(true, summary, None),
        )
        .unwrap();
        assert_eq!(
            partial.subject,
            "ratewatch customers 2026-11-21: PARTIAL, 12 rows not screened"
        );
        assert_eq!(partial.plain, summary);
        assert!(
            partial
                .html
                .contains("PARTIAL: 12 rows failed and will be retried next run"),
            "{}",
            partial.html
        );
        assert!(partial.html.contains(
            "ratewatch 2026-11-21 · customers · run 1 · /var/lib/ratewatch/reports/report.html"
        ));

        let unresolved = RunInfo {
            rows: 5,
            by_status: vec![(RowStatus::Rated, 0), (RowStatus::Unresolved, 5)],
            ..RunInfo::example()
        };
        let nobody = compose(
            &reading(unresolved, AlertDigest::default()),
            &ended(true, summary, None),
        )
        .unwrap();
        assert_eq!(
            nobody.subject,
            "ratewatch customers 2026-11-21: NOTHING SCREENED, none of 5 rows rated"
        );

        let digest = AlertDigest {
            listed_total: 4,
            kinds: vec![
                KindTotal {
                    kind: AlertKind::Black,
                    count: 1,
                    first_screenings: 0,
                    amount: None,
                },
                KindTotal {
                    kind: AlertKind::Red,
                    count: 3,
                    first_screenings: 1,
                    amount: None,
                },
                KindTotal {
                    kind: AlertKind::Improved,
                    count: 0,
                    first_screenings: 0,
                    amount: None,
                },
            ],
            ..AlertDigest::default()
        };
        let news = compose(&reading(rated(8, 12), digest), &ended(true, summary, None)).unwrap();
        assert_eq!(
            news.subject,
            "ratewatch customers 2026-11-21: PARTIAL, 12 rows not screened; 1 new black, 3 new red"
        );

        // An error after the heading, in both parts; without a record, a heading all the same.
        let failed = compose(
            &reading(rated(20, 0), AlertDigest::default()),
            &ended(false, summary, Some("the service refused the key <k>")),
        )
        .unwrap();
        assert_eq!(failed.subject, "ratewatch customers 2026-11-21: FAILED");
        assert_eq!(
            failed.plain,
            "ratewatch 2026-11-21 · customers · run 1\nFAILED: the service refused the key <k>\nNothing flagged.\n"
        );
        assert!(
            failed
                .html
                .contains("FAILED: the service refused the key &lt;k&gt;"),
            "{}",
            failed.html
        );
        let nothing = Reading::default();
        let failed = compose(
            &nothing,
            &EndedRun {
                run_id: None,
                ..ended(false, "", Some("no answer"))
            },
        )
        .unwrap();
        assert!(
            failed.subject.starts_with("ratewatch customers ")
                && failed.subject.ends_with(": FAILED")
        );
        assert!(
            failed
                .plain
                .ends_with(" · customers · no run recorded\nFAILED: no answer\n"),
            "{}",
            failed.plain
        );
    }
}
