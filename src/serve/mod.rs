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
//! - **Who may do what** is [`guard`]'s: a token when one is set, a CSRF token and the same
//!   origin for every change, the security headers of every answer, and nothing changed at
//!   all with `--read-only`.

mod guard;
mod views;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;

use crate::alerts::Rules;
use crate::error::Error;

pub use guard::Guard;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The database `ratewatch screen` writes.
    pub db: PathBuf,
    /// The alert rules of `[alerts]`, as the runs apply them.
    pub rules: Rules,
    /// No change at all: every POST refused, no form shown.
    pub read_only: bool,
    /// The token every request must carry, when one is set (`--token-file`).
    pub token: Option<String>,
}

/// What every handler shares.
struct App {
    db: PathBuf,
    rules: Rules,
    guard: Guard,
}

type Shared = Arc<App>;

/// Serves the pages on `listener` until `shutdown` completes; requests under way finish.
pub async fn serve(
    listener: TcpListener,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let app = Arc::new(App {
        guard: Guard::new(options.token, options.read_only)?,
        db: options.db,
        rules: options.rules,
    });
    let router = Router::new()
        .route("/", get(views::inbox))
        .route("/ack", post(views::ack))
        .route("/review", get(views::review))
        .route("/review/decide", post(views::decide))
        .route("/company/{id}", get(views::company))
        .route("/portfolio", get(views::portfolio))
        .route("/search", get(views::search))
        .route("/login", get(views::login_form).post(views::login))
        .route("/style.css", get(views::style))
        .route("/favicon.ico", get(views::no_icon))
        .fallback(views::not_found)
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::check,
        ))
        .with_state(app);
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| Error::io("the web server stopped", e))
}
