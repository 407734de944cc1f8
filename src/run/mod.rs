//! The screening use case: one run of a portfolio, from the database's lock to the
//! finished run and its reports, returned as a typed [`Screened`].
//!
//! ```text
//! check the file ─► lock, open, resume? ─► lookup lists ─► pipeline ─► finish ─► reports
//!                                                                        ─► delivery
//!                                                                        ─► old rows pruned
//! ```
//!
//! Nothing here is about a terminal: progress goes to a [`Watcher`], the summary to the
//! writer the caller gives, and the exit code is the caller's to pick
//! ([`Screened::exit_code`]). What made the night loud (a spent quota, kept lookup lists, a
//! portfolio that shrank) is written into the run's notes, which the summary opens with.
//!
//! `screen.rs` is the run itself; `preview.rs` what a run would cost, counted without a
//! call (`--dry-run`); `hand_on.rs` what a run hands on once it has ended, through each
//! delivery channel, with the ledger of the messages not yet taken; `prune.rs` the rows
//! of old runs deleted last. The request and what the caller hears of a run are here.

mod hand_on;
mod preview;
mod prune;
mod screen;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::connection::ServiceSettings;
use crate::deliver;
use crate::error::{Error, ExitCode};
use crate::model::RefreshAges;
use crate::model::{RowStatus, RunInfo, RunStatus};
use crate::report::{self, Output, ReportOptions};
use crate::settings::config::Settings;
use crate::stages::check::Lookups;
use crate::stages::decide::Decisions;
use crate::stages::pipeline::Options;
use crate::store::{Store, StoreError};
use crate::text::printable;

pub use preview::{Preview, preview, preview_of};
pub use screen::screen;

/// What to screen, and how.
#[derive(Debug, Clone)]
pub struct Request {
    pub portfolio: PathBuf,
    /// The portfolio's name in the database (default: the file's stem).
    pub portfolio_name: Option<String>,
    pub settings: Settings,
    pub service: ServiceSettings,
    /// Search every row again instead of using cached resolutions.
    pub refresh_resolutions: bool,
    /// Refuse a portfolio that lost more than half its rows since its last run.
    pub fail_on_shrink: bool,
    pub reports: ReportOptions,
    /// Where the run's results go besides its summary and reports (`--metrics-file`,
    /// `--notify-webhook`, `[email]`).
    pub channels: deliver::Channels,
    /// Asks the run to stop making calls (a signal, to the command).
    pub halt: Halt,
}

/// A request to stop a run's calls, from outside the run: the command gives it SIGTERM
/// and SIGINT. A stopped run records what it found, prints its summary with `STOPPED:`
/// first, and stays resumable (exit 3).
#[derive(Debug, Clone)]
pub struct Halt(Arc<tokio::sync::watch::Sender<Option<String>>>);

impl Default for Halt {
    fn default() -> Self {
        Halt(Arc::new(tokio::sync::watch::channel(None).0))
    }
}

impl Halt {
    /// Asks the run to stop, saying why (`stopped by SIGTERM`); the first reason stays.
    pub fn stop(&self, why: impl Into<String>) {
        let why = why.into();
        self.0.send_if_modified(|asked| {
            let first = asked.is_none();
            if first {
                *asked = Some(why);
            }
            first
        });
    }

    /// Whether a stop was asked for.
    pub fn is_asked(&self) -> bool {
        self.0.borrow().is_some()
    }

    /// Resolves once a stop is asked for, with its reason.
    async fn asked(&self) -> String {
        let mut asked = self.0.subscribe();
        match asked.wait_for(Option::is_some).await {
            Ok(why) => why.clone().unwrap_or_default(),
            // The sender lives in `self`: never closed while this waits.
            Err(_) => std::future::pending().await,
        }
    }
}

/// A run as it begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub run_id: i64,
    pub portfolio: String,
    /// Lines in the file: an upper bound of its rows, for progress.
    pub lines: u64,
    /// Rows an interrupted run had already settled, when this one resumes it.
    pub resumed: Option<usize>,
}

/// Hears how a run goes, for a progress bar or a log.
pub trait Watcher {
    fn started(&self, _run: &Started) {}
    /// A row finished (`None`: a row settled before an interruption).
    fn row(&self, _status: Option<RowStatus>) {}
}

/// Hears nothing.
impl Watcher for () {}

/// A finished run: its header and counts as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screened {
    pub run: RunInfo,
    /// Deliveries that failed (webhook, metrics file), one line each, for stderr: they
    /// never change the outcome.
    pub undelivered: Vec<String>,
}

impl Screened {
    /// The exit code of a run that finished (the README's exit codes: 0 quiet, 1 alerts, 3 rows
    /// failed or not screened).
    ///
    /// A run that rated none of its rows (every one unresolved, ambiguous or ignored) is
    /// not a quiet night either: 3, like a run whose rows failed, as the summary's
    /// `NOTHING SCREENED` line says.
    pub fn exit_code(&self) -> ExitCode {
        if self.run.status != RunStatus::Complete
            || self.run.rows_with(RowStatus::Failed) > 0
            || self.run.screened_nobody()
        {
            ExitCode::Partial
        } else if self.run.alerts > 0 {
            ExitCode::Attention
        } else {
            ExitCode::Clean
        }
    }
}

/// How the pipeline resolves and rates, from the request's settings.
fn options(request: &Request, decisions: Decisions) -> Options {
    options_of(&request.settings, request.refresh_resolutions, decisions)
}

/// [`options`] from the settings alone, for a dry run, which needs no service.
fn options_of(s: &Settings, refresh_resolutions: bool, decisions: Decisions) -> Options {
    Options {
        concurrency: s.concurrency.value,
        endpoint: s.endpoint.value,
        refresh_resolutions,
        resolution_max_age: jiff::SignedDuration::from_hours(
            24 * i64::from(s.resolution_max_age_days.value),
        ),
        refresh: Arc::new(RefreshAges::new(
            jiff::SignedDuration::from_hours(i64::from(s.rating_max_age_hours.value)),
            s.refresh.clone(),
        )),
        decisions: Arc::new(decisions),
        assumed_country: None,
    }
}

/// The error of a file with a header and no rows: nothing to screen is not a quiet night.
fn header_only(path: &Path) -> Error {
    Error::NothingToScreen(format!(
        "{}: a header and no rows: nothing to screen (an empty export?)",
        path.display()
    ))
}

/// The `default_country` setting checked against the service's lookup lists, as a row's
/// country is: a code it does not know stops the run before any row is screened.
fn default_country(settings: &Settings, lookups: &Lookups) -> Result<Option<String>, Error> {
    let Some(given) = &settings.default_country.value else {
        return Ok(None);
    };
    lookups.check_country(given).map(Some).map_err(|why| {
        Error::Config(format!(
            "default_country ({}): {why}",
            settings.default_country.origin
        ))
    })
}

/// The name of the country a row with none is screened in (`default_country`), as the
/// service's lookup list spells it (the code when the list has no name for it).
fn country_name(code: &str, countries: &[crate::model::Country]) -> String {
    countries
        .iter()
        .find(|c| c.code.eq_ignore_ascii_case(code) && !c.name.trim().is_empty())
        .map_or_else(|| code.to_string(), |c| printable(c.name.trim()))
}

/// Why a run's reports could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Writes a run's reports and summary ([`report::write_reports`]) from the database.
pub fn write_reports(
    store: &Store,
    run_id: i64,
    options: &ReportOptions,
    summary: impl Output,
) -> Result<RunInfo, ReportError> {
    // A run whose rows are gone has no reports to write again: said, never written empty.
    store.require_details(run_id)?;
    let run = report::RunData {
        info: store.run_info(run_id)?,
        // Runs up to this one only: the report drawn again later shows the same trend.
        trend: store.color_trend(run_id, crate::store::TREND_RUNS)?,
        // Read, not recomputed, so a past run's summary reads as it did.
        digest: crate::digest::AlertDigest {
            figures: Some(store.figures(run_id, &options.alerts)?),
            ..store.alert_digest(run_id, &options.alerts, crate::store::Verdicts::Recorded)?
        },
    };
    report::write_reports(
        run,
        |each| Ok(store.for_each_result(run_id, false, each)?),
        |each| Ok(store.for_each_alert_row(run_id, each)?),
        options,
        summary,
    )
}
