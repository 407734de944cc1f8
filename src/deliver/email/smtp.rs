//! The SMTP dialogue: connect (TLS from the first byte for `smtps://`), STARTTLS as
//! `starttls` asks, AUTH when there is a password, the message, QUIT; tried again with
//! doubling waits when another attempt could do better. The password goes only into AUTH,
//! and every form of it a server could quote back is taken out of what is said.

use std::time::Duration;

use base64::prelude::{BASE64_STANDARD, Engine as _};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, Certificate, TlsParametersBuilder};
use lettre::transport::smtp::extension::ClientId;

use super::message::{Letter, message};
use super::{Mailer, Password, StartTls};
use crate::deliver::NotDelivered;
use crate::text::printable;

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
        let mut parameters = TlsParametersBuilder::new(smtp.host.clone());
        if let Some(pem) = &mailer.extra_root {
            parameters = Certificate::from_pem(pem).map(|c| parameters.add_root_certificate(c))?;
        }
        parameters.build()
    };
    let tls = || tls().map_err(|e| Failure::final_(format!("no TLS for {}: {e}", smtp.host)));
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
}
