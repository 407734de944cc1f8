//! Who may do what: the token and the session cookie it buys, the same-origin and CSRF
//! checks of every change, `--read-only`, and the headers every answer carries.
//!
//! - Without a token the server answers only requests addressed to a loopback name
//!   (`Host: 127.0.0.1:…`, `localhost`, `[::1]`): a page elsewhere cannot reach it by
//!   pointing its own name at this machine.
//! - With a token (`--token-file`) or users (`--users`, each with a token of their own) every
//!   request carries one: `Authorization: Bearer`, or the cookie the login form sets, an
//!   HMAC of the token's hash under a secret of this process (the token itself is never in
//!   a cookie or a URL). A user's token names who does what ([`Person`]); the shared token
//!   and loopback without a token name nobody (`web page`).
//!   A token is [`TOKEN_MIN_CHARS`] characters at least, and a client that sends wrong
//!   ones is throttled ([`super::throttle`]).
//! - Every POST comes from one of the server's own pages: its `Origin` (else its `Referer`)
//!   names the host it was sent to, and its form carries the CSRF token, compared in
//!   constant time.

use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::connections::Client;
use super::throttle::retry_after;
use super::users::{User, token_sha256};
use super::{Person, Shared, views};
use crate::error::Error;
use crate::locale::Page;

/// The shortest token the server takes: 32 characters, as 24 random bytes in base64 give,
/// too many to guess even at the pace the throttling allows.
pub const TOKEN_MIN_CHARS: usize = 32;

/// Refuses a token shorter than [`TOKEN_MIN_CHARS`], saying where it came from (`from`, e.g.
/// `the token file PATH`) and how to make one; the token itself is never said.
pub fn check_token(token: &str, from: &str) -> Result<(), Error> {
    if token.trim().chars().count() >= TOKEN_MIN_CHARS {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{from} holds fewer than {TOKEN_MIN_CHARS} characters: a token must be long enough that \
         it cannot be guessed. Make one with `head -c 32 /dev/urandom | base64 > FILE` (then \
         `chmod 600 FILE`)"
    )))
}

/// The session cookie's name.
pub const COOKIE: &str = "ratewatch_session";

/// What the pages may load: their own stylesheet and images, nothing else, no script, and
/// forms sent to the server only.
pub const POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A token the server takes: its SHA-256, and whom it names.
#[derive(Clone)]
struct Key {
    person: Person,
    token_sha256: [u8; 32],
}

/// The server's secrets and what it allows.
#[derive(Clone)]
pub struct Guard {
    /// The tokens taken: none (loopback only), the shared one, or one per user.
    keys: Vec<Key>,
    /// Random, new with each process: what the session cookie and the CSRF token derive
    /// from, so a restart ends every session.
    secret: [u8; 32],
    read_only: bool,
}

/// Neither the tokens' hashes nor the secret belong in a log.
impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("keys", &self.keys.len())
            .field("read_only", &self.read_only)
            .finish()
    }
}

impl Guard {
    /// A guard for the shared `token` (refused when too short: [`check_token`]) or the
    /// `users`, each with a token of their own; neither: loopback only.
    pub fn new(token: Option<String>, users: Vec<User>, read_only: bool) -> Result<Guard, Error> {
        let mut keys = Vec::new();
        if let Some(token) = &token {
            check_token(token, "the token")?;
            keys.push(Key {
                person: Person(None),
                token_sha256: token_sha256(token),
            });
        }
        keys.extend(users.into_iter().map(|u| Key {
            person: Person(Some(u.name)),
            token_sha256: u.token_sha256,
        }));
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| Error::Config(format!("no random secret for the sessions: {e}")))?;
        Ok(Guard {
            keys,
            secret,
            read_only,
        })
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    fn mac(&self, what: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).expect("any key length");
        mac.update(what);
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The token every form carries, the same for the process's life.
    pub fn csrf(&self) -> String {
        self.mac(b"csrf")
    }

    /// Whether a form's CSRF token is the server's.
    pub fn csrf_matches(&self, given: &str) -> bool {
        same(given, &self.csrf())
    }

    /// The signature of a message the server tells a page after a change (`said=…`), so
    /// that a link from elsewhere cannot make a page say what the server did not.
    pub fn sign(&self, message: &str) -> String {
        self.mac(format!("said:{message}").as_bytes())
    }

    /// Whether `signature` is the server's for `message`.
    pub fn signed(&self, message: &str, signature: &str) -> bool {
        same(signature, &self.sign(message))
    }

    /// The session cookie's value for a key: an HMAC of its token's hash, never the token.
    fn session(&self, key: &Key) -> String {
        let mut what = b"session:".to_vec();
        what.extend_from_slice(&key.token_sha256);
        self.mac(&what)
    }

    /// The key whose token `given` is, compared in constant time with every key.
    fn key_of(&self, given: &str) -> Option<&Key> {
        let hash = token_sha256(given);
        let mut found = None;
        for key in &self.keys {
            if bool::from(hash.ct_eq(&key.token_sha256)) {
                found = Some(key);
            }
        }
        found
    }

    /// The session cookie a right token buys, and whom it names; `None` for a wrong one
    /// (or when no token is set, and none is needed).
    pub fn login(&self, given: &str) -> Option<(String, Person)> {
        let key = self.key_of(given)?;
        let cookie = format!(
            "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
            self.session(key)
        );
        Some((cookie, key.person.clone()))
    }

    pub fn needs_token(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Whether the request carries a token (or its session cookie), and whose, or needs
    /// none; a wrong `Authorization: Bearer` is told apart from none, as a mistake to count.
    fn access(&self, headers: &HeaderMap) -> Access {
        if self.keys.is_empty() {
            return Access::Granted(Person(None));
        }
        let bearers: Vec<&str> = bearers(headers).collect();
        if let Some(key) = bearers.iter().find_map(|given| self.key_of(given)) {
            return Access::Bearer(key.person.clone());
        }
        let cookies: Vec<&str> = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .collect();
        let signed_in = self.keys.iter().find(|key| {
            let session = self.session(key);
            cookies.iter().any(|given| same(given, &session))
        });
        match signed_in {
            Some(key) => Access::Granted(key.person.clone()),
            None if bearers.is_empty() => Access::Missing,
            None => Access::WrongBearer,
        }
    }
}

/// What a request's credentials are worth, and whom they name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Access {
    /// No token is needed, or the session cookie is the server's.
    Granted(Person),
    /// `Authorization: Bearer` with a token.
    Bearer(Person),
    /// Neither the token nor a session: the login form.
    Missing,
    /// `Authorization: Bearer` with something else: a mistake the client is counted.
    WrongBearer,
}

/// The tokens a request gives with `Authorization: Bearer`.
fn bearers(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("Bearer "))
}

/// Two secrets compared in constant time (their lengths are not secret).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// The host a request was sent to, as its `Host` header names it.
fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::HOST)?.to_str().ok()
}

/// Whether `host` (`name:port`) is a loopback name.
fn is_loopback(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

/// Whether a POST comes from a page of this server: its `Origin`, else its `Referer`,
/// names the host it was sent to. A request with neither is refused.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(host) = host(headers) else {
        return false;
    };
    let from = headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| url::Url::parse(v).ok());
    let Some(from) = from else {
        return false;
    };
    let Some(name) = from.host_str() else {
        return false;
    };
    let origin = match from.port() {
        Some(port) => format!("{name}:{port}"),
        None => name.to_string(),
    };
    matches!(from.scheme(), "http" | "https") && origin.eq_ignore_ascii_case(host)
}

/// Pages and files anyone who reaches the server may have: the login form and the style.
fn open_to_all(path: &str) -> bool {
    matches!(path, "/login" | "/style.css" | "/favicon.ico")
}

/// Every request passes here first: the host, the token (and whether this client may try
/// one now), the origin of a change and `--read-only`; every answer leaves with the
/// security headers.
pub async fn check(
    State(app): State<Shared>,
    client: Client,
    request: Request,
    next: Next,
) -> Response {
    let guard = &app.guard;
    let headers = request.headers();
    let path = request.uri().path().to_string();
    let post = request.method() == Method::POST;
    let tries_a_token = (post && path == "/login") || bearers(headers).next().is_some();
    if guard.needs_token()
        && tries_a_token
        && let Some(wait) = app.throttle.wait(client, Instant::now())
    {
        return with_headers(throttled(wait));
    }
    let access = guard.access(headers);
    match access {
        Access::Bearer(_) => app.throttle.succeeded(client),
        Access::WrongBearer => app.throttle.failed(client, Instant::now()),
        Access::Granted(_) | Access::Missing => {}
    }
    let refused = if !guard.needs_token() && !host(headers).is_some_and(is_loopback) {
        Some((
            StatusCode::MISDIRECTED_REQUEST,
            "This server answers requests to 127.0.0.1 or localhost only.".to_string(),
        ))
    } else if !open_to_all(&path) && matches!(access, Access::Missing | Access::WrongBearer) {
        let say = request.extensions().get::<Page>().cloned();
        let say = say.unwrap_or_else(|| Page::new(app.reader.clone()));
        return with_headers(views::login_page(say, StatusCode::UNAUTHORIZED, None));
    } else if post && !same_origin(headers) {
        Some((
            StatusCode::FORBIDDEN,
            "Refused: a change is made from this server's own pages only (the request's Origin or Referer is missing or names another site).".to_string(),
        ))
    } else if post && guard.read_only && path != "/login" {
        Some((
            StatusCode::FORBIDDEN,
            "Refused: the server runs --read-only; it changes nothing.".to_string(),
        ))
    } else {
        None
    };
    let response = match (refused, access) {
        (Some((status, why)), _) => (status, why).into_response(),
        (None, Access::Granted(person) | Access::Bearer(person)) => {
            let mut request = request;
            request.extensions_mut().insert(person);
            next.run(request).await
        }
        // The login form and the style, asked without a token.
        (None, Access::Missing | Access::WrongBearer) => {
            let mut request = request;
            request.extensions_mut().insert(Person(None));
            next.run(request).await
        }
    };
    with_headers(response)
}

/// The answer to a client that sent too many wrong tokens: 429, and when to try again.
pub fn throttled(wait: Duration) -> Response {
    let seconds = retry_after(wait);
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, seconds.to_string())],
        format!("Too many wrong tokens from this address: try again in {seconds} s."),
    )
        .into_response()
}

/// The headers of every answer: the policy, no sniffing, no referrer to other sites, no
/// framing, no caching of pages that hold the portfolio's data.
fn with_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn a_change_comes_from_the_host_it_was_sent_to() {
        let host = ("host", "127.0.0.1:8080");
        assert!(same_origin(&headers(&[
            host,
            ("origin", "http://127.0.0.1:8080")
        ])));
        assert!(same_origin(&headers(&[
            host,
            ("referer", "http://127.0.0.1:8080/review?x=1")
        ])));
        assert!(!same_origin(&headers(&[
            host,
            ("origin", "http://evil.example")
        ])));
        assert!(!same_origin(&headers(&[
            host,
            ("origin", "http://127.0.0.1:8081")
        ])));
        assert!(!same_origin(&headers(&[host, ("origin", "null")])));
        // The Origin wins over a Referer that would pass.
        assert!(!same_origin(&headers(&[
            host,
            ("origin", "http://evil.example"),
            ("referer", "http://127.0.0.1:8080/")
        ])));
        assert!(!same_origin(&headers(&[host])));
    }

    #[test]
    fn only_loopback_names_without_a_token() {
        for ok in ["127.0.0.1:8080", "localhost:1", "[::1]:80", "localhost"] {
            assert!(is_loopback(ok), "{ok}");
        }
        for not in [
            "evil.example:8080",
            "10.0.0.1:8080",
            "127.0.0.1.evil.example",
        ] {
            assert!(!is_loopback(not), "{not}");
        }
    }

    #[test]
    fn the_cookie_is_an_hmac_of_the_token_never_the_token() {
        let token = "s3cret-token-of-thirty-two-chars";
        let guard = Guard::new(Some(token.into()), Vec::new(), false).unwrap();
        assert!(guard.login("wrong").is_none());
        let (cookie, person) = guard.login(token).unwrap();
        assert_eq!(person, Person(None), "the shared token names nobody");
        assert_eq!(person.name(), "web page");
        assert!(!cookie.contains(token));
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
        let value = cookie.split(';').next().unwrap();
        let access = |pairs: &[(&'static str, &str)]| guard.access(&headers(pairs));
        assert_eq!(access(&[("cookie", value)]), Access::Granted(Person(None)));
        let bearer = format!("Bearer {token}");
        assert_eq!(
            access(&[("authorization", &bearer)]),
            Access::Bearer(Person(None))
        );
        assert_eq!(
            access(&[("authorization", "Bearer s3cret")]),
            Access::WrongBearer
        );
        assert_eq!(access(&[]), Access::Missing);
        let forged = format!("ratewatch_session={token}");
        assert_eq!(access(&[("cookie", &forged)]), Access::Missing);
        // Another process's sessions are not this one's.
        let other = Guard::new(Some(token.into()), Vec::new(), false).unwrap();
        assert_eq!(
            other.access(&headers(&[("cookie", value)])),
            Access::Missing
        );
        assert!(guard.csrf_matches(&guard.csrf()) && !guard.csrf_matches(&other.csrf()));
    }

    #[test]
    fn each_user_s_token_and_cookie_name_that_user_alone() {
        let (marie, paul) = (
            "marie-s-token-of-thirty-two-chars-at-least",
            "paul-s-token-of-thirty-two-characters-or-more",
        );
        let user = |name: &str, token: &str| User {
            name: name.into(),
            token_sha256: token_sha256(token),
        };
        let guard =
            Guard::new(None, vec![user("marie", marie), user("paul", paul)], false).unwrap();
        assert!(guard.needs_token());
        let named = |name: &str| Person(Some(name.into()));
        let (cookie, person) = guard.login(&format!(" {paul}\n")).unwrap();
        assert_eq!(person, named("paul"));
        let value = cookie.split(';').next().unwrap();
        assert_eq!(
            guard.access(&headers(&[("cookie", value)])),
            Access::Granted(named("paul"))
        );
        let bearer = format!("Bearer {marie}");
        assert_eq!(
            guard.access(&headers(&[("authorization", &bearer)])),
            Access::Bearer(named("marie"))
        );
        assert!(guard.login("paul").is_none());
        assert_eq!(
            Guard::new(None, Vec::new(), false)
                .unwrap()
                .access(&headers(&[])),
            Access::Granted(Person(None)),
            "loopback without a token"
        );
    }

    #[test]
    fn a_token_under_32_characters_is_refused_and_never_said() {
        let short = "x".repeat(TOKEN_MIN_CHARS - 1);
        let refused = Guard::new(Some(format!("  {short}\n")), Vec::new(), false).unwrap_err();
        let said = refused.to_string();
        assert!(said.contains("head -c 32 /dev/urandom | base64"), "{said}");
        assert!(!said.contains(&short), "{said}");
        assert!(
            check_token(&"é".repeat(TOKEN_MIN_CHARS), "a token").is_ok(),
            "characters"
        );
        assert!(Guard::new(Some("x".repeat(TOKEN_MIN_CHARS)), Vec::new(), false).is_ok());
    }
}
