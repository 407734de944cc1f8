//! `[email]` of ratewatch.toml: where the messages go (`smtp`), from whom to whom, how the
//! connection is secured (`starttls`) and who logs in (`username`, `password_file`), each
//! key checked as it is read. The password is never read from this table.

use std::fmt;
use std::path::{Path, PathBuf};

use lettre::message::Mailbox;

use crate::text::{UrlPath, redacted_url};
use crate::toml_table::{Mistake, Table};

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
    pub(super) fn password_in_clear(&self) -> bool {
        self.password_file.is_some()
            && !self.smtp.implicit_tls
            && self.starttls != StartTls::Required
            && !self.smtp.is_loopback()
    }
}

/// The SMTP password, never shown: `Debug` says only that there is one.
#[derive(Clone)]
pub struct Password(pub(super) String);

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mailer = super::super::Mailer::new(settings, Some(p));
        assert!(!format!("{mailer:?}").contains("pa ss"));
    }
}
