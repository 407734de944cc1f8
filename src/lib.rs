//! ratewatch screens a portfolio of counterparties for credit risk with a company-rating
//! service: it finds each company, fetches its traffic-light rating, keeps the history in
//! SQLite and reports what needs attention.
//!
//! ```text
//! portfolio.csv ─► input ─► resolve ─► rate ─► store ─► report
//! ```
//!
//! - [`portfolio`] reads and checks rows; [`resolve`] finds each company; [`rate`] fetches
//!   ratings ([`refresh`]: which may be reused without a call); [`pipeline`] runs them
//!   concurrently through the one [`limit`] gate, as [`decide`] says each row needs (the
//!   dry run counts from it too);
//!   [`store`] keeps history in SQLite; [`report`] formats a run's results; [`deliver`]
//!   hands them on (a webhook, a metrics file).
//! - [`api`]: the service's client (one method per endpoint, typed errors).
//! - [`sim`]: an embedded simulator of the service, for demos, tests and benchmarks.
//! - [`model`]: the domain types every stage shares.
//! - [`history_sync`]: reads the account's history of requests back into the database.
//! - [`commands`]: what each subcommand does; [`cli`] and [`config`] feed it settings.
//!
//! The library never exits the process; the binary maps [`error::ExitCode`] to one.

pub mod alerts;
pub mod api;
pub mod cli;
pub mod commands;
pub mod config;
pub(crate) mod connection;
pub(crate) mod decide;
pub mod deliver;
pub mod error;
pub mod history_sync;
pub mod identifiers;
pub mod limit;
pub mod model;
pub(crate) mod pipeline;
pub mod portfolio;
pub mod rate;
pub mod refresh;
pub mod report;
pub(crate) mod resolve;
pub mod run;
pub mod setting;
pub mod sim;
pub mod store;
pub mod table;
pub mod text;

pub use error::{Error, ExitCode};

/// Locks `m`, even when a thread panicked holding it: what these locks guard (counts,
/// queues, a writer) stays usable, and one panicked task must not stop the others.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
