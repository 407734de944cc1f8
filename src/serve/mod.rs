//! `ratewatch serve`: a local web application over the database, beside the nightly runs.
//!
//! Pages are HTML made on the server (askama templates in `templates/`, every value escaped
//! by the reports' escaper), a stylesheet of its own and no script. Each page reads its data
//! through one function of [`crate::pages`], and each change goes through the use case the
//! command calls ([`crate::ack`], [`crate::review`]): there is no SQL here.
//!
//! - **Reads never block a run**: each request opens the database read-only (WAL gives it a
//!   snapshot), on a blocking thread.
//! - **Writes wait their turn**: a decision or an acknowledgement opens the database for
//!   writing as `ack` and `review` do (`BEGIN IMMEDIATE`, a busy timeout), so one made while
//!   a run is going is kept.
//! - **Who may do what** is [`guard`]'s: a token when one is set (each person's own with
//!   `--users`, [`users`], so that each change names who made it), a CSRF token and the same
//!   origin for every change, the security headers of every answer, and nothing changed at
//!   all with `--read-only`; wrong tokens are throttled per client ([`throttle`]).
//! - **No client starves the rest** ([`connections`]): deadlines for a request's headers and
//!   body, and caps on the connections served at once, in all and from one client.
//! - **No text reaches a page raw** ([`escape`]): every value shown follows the program's
//!   printable-text rule, then HTML's escaping.
//! - **Each reader's language** ([`language`]): the one chosen in the page, else the
//!   browser's, else the setting's; times in the setting's zone.

mod acknowledging;
mod connections;
mod escape;
mod guard;
mod language;
mod throttle;
mod users;
mod views;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;

use crate::alerts::Rules;
use crate::error::Error;
use crate::model::WEB_PAGE;

pub use guard::{Guard, TOKEN_MIN_CHARS, check_token};
pub use users::{User, parse_users, token_sha256, users_line};

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The database `ratewatch screen` writes.
    pub db: PathBuf,
    /// The alert rules of `[alerts]`, as the runs apply them.
    pub rules: Rules,
    /// No change at all: every POST refused, no form shown.
    pub read_only: bool,
    /// The token every request must carry, when one is set (`--token-file`): at least
    /// [`TOKEN_MIN_CHARS`] characters. What is done with it is made by `web page`.
    pub token: Option<String>,
    /// The people who may use the page, each with a token of their own (`--users`); what
    /// each does is recorded with their name.
    pub users: Vec<User>,
    /// What one client may take of the server.
    pub limits: Limits,
    /// The setting's language and time zone: the pages' language when the browser asks for
    /// none ratewatch speaks, and their zone.
    pub reader: crate::locale::Reader,
}

/// What one client may take of the server, so that a slow or hostile one on a shared
/// network cannot starve the others; [`Limits::default`] is what `ratewatch serve` uses.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time a client has to send a request's line and headers, from the moment the server
    /// waits for them (a kept-alive connection idle that long is closed).
    pub header_time: Duration,
    /// Time a client has to send a request's body, once its headers are in.
    pub body_time: Duration,
    /// Connections served at once; more wait to be accepted.
    pub connections: u32,
    /// Connections one client (an IPv4 address, an IPv6 /64) may hold at once; more are
    /// answered 503.
    pub connections_per_client: u32,
    /// Wrong tokens a client may send within [`Limits::wrong_token_window`]; after them it
    /// is answered 429 until the window ends.
    pub wrong_tokens: u32,
    /// The window [`Limits::wrong_tokens`] are counted in, from a client's first mistake.
    pub wrong_token_window: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_time: Duration::from_secs(10),
            body_time: Duration::from_secs(30),
            connections: 256,
            connections_per_client: 32,
            wrong_tokens: 5,
            wrong_token_window: Duration::from_secs(60),
        }
    }
}

/// Who a request comes from: the person signed in with their own token (`--users`), or
/// nobody named (the shared `--token-file`, or loopback without a token). The guard puts it
/// in every request it lets through; what a change records as made by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Person(pub Option<String>);

impl Person {
    /// The name recorded with a change: the person's, else `web page`.
    pub fn name(&self) -> &str {
        self.0.as_deref().unwrap_or(WEB_PAGE)
    }
}

/// What every handler shares, made once from the [`Options`]: the database, the rules, the
/// guard's secrets and the count of wrong tokens.
pub struct App {
    db: PathBuf,
    rules: Rules,
    guard: Guard,
    limits: Limits,
    throttle: throttle::Throttle,
    reader: crate::locale::Reader,
}

impl App {
    /// The state of a server run with `options`; a token too short is refused.
    pub fn new(options: Options) -> Result<App, Error> {
        Ok(App {
            guard: Guard::new(options.token, options.users, options.read_only)?,
            db: options.db,
            rules: options.rules,
            throttle: throttle::Throttle::new(&options.limits),
            limits: options.limits,
            reader: options.reader,
        })
    }
}

type Shared = Arc<App>;

/// The pages and forms of `app`, every request through the guard and its body read within
/// the limits: what [`serve`] answers each connection with, and what a test can send a
/// request to without a socket.
pub fn router(app: App) -> Router {
    let app = Arc::new(app);
    Router::new()
        .route("/", get(views::inbox))
        .route("/ack", post(acknowledging::ack))
        .route("/unack", post(acknowledging::unack))
        .route("/review", get(views::review))
        .route("/review/decide", post(views::decide))
        .route("/company/{id}", get(views::company))
        .route("/portfolio", get(views::portfolio))
        .route("/search", get(views::search))
        .route("/login", get(views::login_form).post(views::login))
        .route("/style.css", get(views::style))
        .route("/favicon.ico", get(views::no_icon))
        .fallback(views::not_found)
        // The body is read (in time) only once the guard let the request through.
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            connections::bounded_body,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::check,
        ))
        // The language first: the guard's own pages (the login form) are said in it too.
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            language::choose,
        ))
        .with_state(app)
}

/// Serves the pages on `listener` until `shutdown` completes; requests under way finish.
pub async fn serve(
    listener: TcpListener,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let limits = options.limits.clone();
    let router = router(App::new(options)?);
    connections::serve(listener, router, &limits, shutdown).await
}
