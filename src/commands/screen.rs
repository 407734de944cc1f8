//! `ratewatch screen`: the main job. Checks the input, opens the database, fetches the
//! lookup lists, runs the pipeline, records the run and writes its reports.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::{Connection, limits};
use crate::api::ApiError;
use crate::cli::{CsvDialectArg, ReportFormatArgs, ScreenArgs};
use crate::config::{ServiceSettings, Settings, Sources, Target};
use crate::error::{Error, ExitCode};
use crate::limit::Limiter;
use crate::model::{RowStatus, RunInfo};
use crate::pipeline::{Fatal, Options, Pipeline, Resume};
use crate::portfolio::{self, Lookups, Portfolio};
use crate::report::csv::Dialect;
use crate::report::{self, ReportError, ReportOptions};
use crate::store::{NewRun, RunLock, Store, StoreError};

pub async fn screen(args: ScreenArgs, sources: Sources) -> Result<ExitCode, Error> {
    let started = std::time::Instant::now();
    let run = Settings::for_run(&args.settings, &sources)?;
    let settings = ServiceSettings::new(&run, &sources)?;
    let (db, out) = (&run.db.value, &run.out.value);
    // The input is checked whole before anything is written.
    let survey = portfolio::survey(&args.portfolio)?;
    let reader = Portfolio::open(&args.portfolio)?;
    if Portfolio::open(&args.portfolio)?.next_row()?.is_none() {
        return Err(Error::NothingToScreen(format!(
            "{}: a header and no rows: nothing to screen (an empty export?)",
            args.portfolio.display()
        )));
    }
    let db_error = |source: StoreError| Error::Store {
        path: db.clone(),
        source,
    };
    // Declared before the store and everything holding a connection, so it is dropped
    // after them: closing its descriptor of the database earlier would drop SQLite's locks.
    let _lock = RunLock::acquire(db).map_err(db_error)?;
    let mut store = Store::open(db).map_err(db_error)?;
    // With the lock held no other run is alive: a run still marked running has died.
    store.mark_interrupted().map_err(db_error)?;
    let portfolio_name = args.portfolio_name.clone().unwrap_or_else(|| {
        args.portfolio
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "portfolio".into())
    });
    let previous = store.last_rows(&portfolio_name).map_err(db_error)?;
    // Lines bound the rows from above, so this never refuses a file that did not shrink.
    if args.fail_on_shrink
        && let Some((_, before)) = previous
        && shrank(before, survey.lines.saturating_sub(1))
    {
        return Err(Error::NothingToScreen(format!(
            "{}: at most {} rows against {before} in the last run of {portfolio_name}: more than half are gone (a truncated export?); refused by --fail-on-shrink",
            args.portfolio.display(),
            survey.lines.saturating_sub(1)
        )));
    }
    let resumed = store
        .resumable(&portfolio_name, &survey.sha256)
        .map_err(db_error)?;
    let demo_day = match (&settings.target, resumed) {
        (Target::Remote { .. }, _) => None,
        (Target::Demo, Some((_, Some(day)))) => Some(day),
        (Target::Demo, _) => Some(1 + store.demo_runs().map_err(db_error)?),
    };
    let conn = Connection::open(&settings, true, demo_day.unwrap_or(1)).await?;
    let limiter = Arc::new(Limiter::new(limits(&run)));
    let mut notes = Vec::new();
    let lookups = fetch_lookups(&conn, &limiter, &mut store, &mut notes).await?;

    let (run_id, resume) = match resumed {
        Some((run_id, _)) => {
            store.resume_run(run_id).map_err(db_error)?;
            let resume = Resume {
                settled_lines: store.settled_lines(run_id).map_err(db_error)?,
            };
            eprintln!(
                "ratewatch: resuming interrupted run {run_id} of {portfolio_name}: {} rows already screened",
                resume.settled_lines.len()
            );
            (run_id, resume)
        }
        None => {
            let run_id = store
                .start_run(&NewRun {
                    portfolio: portfolio_name.clone(),
                    input_path: args.portfolio.display().to_string(),
                    sha256: survey.sha256.clone(),
                    demo_day,
                })
                .map_err(db_error)?;
            (run_id, Resume::default())
        }
    };
    let pipeline = Pipeline::new(
        conn.client.clone(),
        limiter.clone(),
        store.writer(run_id).map_err(db_error)?,
        lookups,
        Options {
            concurrency: run.concurrency.value,
            endpoint: run.endpoint.value,
            refresh_resolutions: args.refresh_resolutions,
            resolution_max_age: jiff::SignedDuration::from_hours(
                24 * i64::from(run.resolution_max_age_days.value),
            ),
            rating_max_age: match run.rating_max_age_hours.value {
                0 => None,
                h => Some(jiff::SignedDuration::from_hours(i64::from(h))),
            },
        },
        resume,
    );
    // One line when a run starts and one when it ends, for whoever reads the logs.
    tracing::info!(
        run_id,
        portfolio = %portfolio_name,
        input = %args.portfolio.display(),
        lines = survey.lines,
        db = %db.display(),
        resumed = resumed.is_some(),
        "run started"
    );

    // Under a call budget, the rows checked least recently go first (see
    // `Pipeline::by_last_checked`); a bad record then stops the run before any call.
    let input: Box<dyn Iterator<Item = Result<portfolio::InputRow, portfolio::InputError>>> =
        if run.max_calls.value.is_some() {
            let (read, bad): (Vec<_>, Vec<_>) = rows(reader).partition(Result::is_ok);
            let read = read.into_iter().filter_map(Result::ok).collect();
            let ordered = match pipeline.by_last_checked(read) {
                Ok(ordered) => ordered,
                Err(e) => {
                    let _ = store.finish_run(run_id, "failed", &[], &notes);
                    return Err(db_error(e));
                }
            };
            Box::new(bad.into_iter().chain(ordered.into_iter().map(Ok)))
        } else {
            Box::new(rows(reader))
        };
    let progress = progress_bar(survey.lines.saturating_sub(1));
    let failing = AtomicU64::new(0);
    let (writer, outcome) = pipeline
        .run(input, |status| {
            progress.inc(1);
            if status == Some(RowStatus::Failed) {
                let n = failing.fetch_add(1, Ordering::Relaxed) + 1;
                progress.set_message(format!("{n} failed"));
            }
        })
        .await;
    progress.finish_and_clear();
    let written = writer.finish();

    let calls = limiter.calls();
    let total_calls: u64 = calls.iter().map(|(_, n)| n).sum();
    let finished = |status: &str, error: Option<&Error>, rows: Option<&RunInfo>| {
        let count = |s: RowStatus| {
            rows.and_then(|i| i.by_status.iter().find(|(x, _)| *x == s))
                .map_or(0, |(_, n)| *n)
        };
        tracing::info!(
            run_id,
            status,
            rows = rows.map_or(0, |i| i.rows),
            rated = count(RowStatus::Rated),
            unresolved = count(RowStatus::Unresolved),
            ambiguous = count(RowStatus::Ambiguous),
            invalid = count(RowStatus::Invalid),
            failed = count(RowStatus::Failed),
            alerts = rows.map_or(0, |i| i.alerts),
            calls = total_calls,
            duration_ms = started.elapsed().as_millis() as u64,
            error = error.map(tracing::field::display),
            "run finished"
        );
    };
    let options = report_options(&args.reports, out, args.quiet, run.stale_after_days.value);
    let ended = match (outcome, written) {
        (Ok(ended), Ok(_)) => ended,
        (Err(fatal), _) => {
            // What was committed stays; the run is marked so nobody mistakes it for complete.
            let _ = store.finish_run(run_id, "failed", &calls, &notes);
            let error = match fatal {
                Fatal::Refused(e) => conn.fail(e),
                Fatal::WrongAddress { not_found } => Error::WrongAddress { not_found },
                Fatal::Store(e) => db_error(e),
                Fatal::Input(e) => Error::Input(e),
            };
            // Alerts found before the stop are still news: they are printed before the
            // error, with the reports of what was screened.
            if matches!(error, Error::KeyRefused { .. } | Error::Api(_))
                && let Ok(info) = store.run_info(run_id)
                && info.rows > 0
            {
                let _ = report::write_reports(&store, run_id, &options);
            }
            finished("failed", Some(&error), None);
            return Err(error);
        }
        (Ok(_), Err(e)) => {
            let _ = store.finish_run(run_id, "failed", &calls, &notes);
            let error = db_error(e);
            finished("failed", Some(&error), None);
            return Err(error);
        }
    };
    if ended.unconfirmed_not_found > 0 {
        notes.push(format!(
            "NOTE: the service answered 'not found' to all {} searches and ratings of this run and to nothing else: their rows failed, to be screened again next run; check --base-url",
            ended.unconfirmed_not_found
        ));
    }
    let stopped = match limiter.stopped() {
        Some(ApiError::QuotaSpent { until }) => Some(*until),
        _ => None,
    };
    if let Some(until) = stopped {
        notes.insert(
            0,
            format!(
                "STOPPED: the service's rate limit asks to wait until {until}, longer than --max-wait ({} s); run again after that: the next run of this portfolio resumes with the rows not screened",
                run.max_wait.value.as_secs()
            ),
        );
    }
    // Counted from what was recorded: rows held back until the end may have failed there.
    let so_far = store.rows_by_status(run_id).map_err(db_error)?;
    let rows_now: u64 = so_far.iter().map(|(_, n)| n).sum();
    let failed_rows = so_far
        .iter()
        .find(|(s, _)| *s == RowStatus::Failed)
        .map_or(0, |(_, n)| *n);
    if let Some((before_run, before)) = previous
        && shrank(before, rows_now)
    {
        notes.push(format!(
            "SHRUNK: the portfolio has {rows_now} rows against {before} in run {before_run} of {portfolio_name}: more than half are gone; check the export (--fail-on-shrink refuses such a file)"
        ));
    }
    // A run stopped by the rate limit stays resumable: the next run takes up its rows.
    let status = if stopped.is_some() {
        "interrupted"
    } else if failed_rows > 0 {
        "partial"
    } else {
        "complete"
    };
    store
        .finish_run(run_id, status, &calls, &notes)
        .map_err(db_error)?;
    let reporting = std::time::Instant::now();
    let info = match report::write_reports(&store, run_id, &options) {
        Ok(info) => info,
        Err(e) => {
            let error = match e {
                ReportError::Store(e) => db_error(e),
                ReportError::Io(e) => {
                    Error::io(format!("cannot write the reports in {}", out.display()), e)
                }
            };
            finished(status, Some(&error), None);
            return Err(error);
        }
    };
    tracing::info!(
        report_ms = reporting.elapsed().as_millis() as u64,
        "reports written"
    );
    finished(status, None, Some(&info));
    let count = |s: RowStatus| {
        info.by_status
            .iter()
            .find(|(x, _)| *x == s)
            .map_or(0, |(_, n)| *n)
    };
    if info.rows > 0 && count(RowStatus::Invalid) == info.rows {
        return Err(Error::NothingToScreen(format!(
            "{}: none of its {} rows could be screened: every one is invalid (see `error` in the reports)",
            args.portfolio.display(),
            info.rows
        )));
    }
    Ok(if failed_rows > 0 {
        ExitCode::Partial
    } else if info.alerts > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    })
}

/// Whether a portfolio of `now` rows lost more than half of the `before` it had.
fn shrank(before: u64, now: u64) -> bool {
    before > 0 && now.saturating_mul(2) < before
}

/// Fetches the lookup lists once per run and keeps them. They are the run's first proof
/// that the address is the service: an answer that is not the service's (a 404, HTML,
/// JSON of another shape) stops the run. Only a passing failure (timeout, 5xx, refused
/// connection, a rate limit) falls back on the copy kept from an earlier run, and the
/// summary says so.
async fn fetch_lookups(
    conn: &Connection,
    limiter: &Limiter,
    store: &mut Store,
    notes: &mut Vec<String>,
) -> Result<Lookups, Error> {
    let client = &conn.client;
    let (countries, services) = futures::join!(
        limiter.call_keyless("countries", || client.countries()),
        limiter.call_keyless("services", || client.services()),
    );
    let path = store.path().to_path_buf();
    let db_error = |source| Error::Store { path, source };
    let failure = match (countries, services) {
        (Ok(countries), Ok(services)) => {
            store
                .save_lookups(&countries, &services)
                .map_err(db_error)?;
            return Ok(Lookups::new(&countries, &services));
        }
        (Err(e), _) => ("lookups/countries", e),
        (_, Err(e)) => ("lookups/services", e),
    };
    let (endpoint, e) = failure;
    if e.stops_calls() && !matches!(e, ApiError::QuotaSpent { .. }) {
        return Err(conn.fail(e));
    }
    if !e.is_transient() && !matches!(e, ApiError::QuotaSpent { .. }) {
        return Err(Error::NotTheService {
            url: client.base_url().join(endpoint).map_or_else(
                |_| format!("{}{endpoint}", client.base_url()),
                |u| u.to_string(),
            ),
            source: e,
        });
    }
    let (countries, services) = store.load_lookups().map_err(db_error)?;
    if countries.is_empty() {
        return Err(conn.fail(e));
    }
    tracing::warn!(error = %e, "lookup lists unavailable; using the copy kept from an earlier run");
    notes.push(format!(
        "NOTE: the service's lookup lists could not be fetched ({e}); the copy kept from an earlier run was used"
    ));
    Ok(Lookups::new(&countries, &services))
}

/// The portfolio's rows, ending after the first error (which stops the run).
fn rows(
    mut reader: Portfolio,
) -> impl Iterator<Item = Result<portfolio::InputRow, portfolio::InputError>> {
    let mut stopped = false;
    std::iter::from_fn(move || {
        if stopped {
            return None;
        }
        let next = reader.next_row().transpose();
        stopped = matches!(next, Some(Err(_)) | None);
        next
    })
}

/// A progress bar on stderr when a person is watching; nothing under cron.
fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} rows  {per_sec}  ETA {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The report settings of the command line.
pub fn report_options(
    format: &ReportFormatArgs,
    out: &Path,
    quiet: bool,
    stale_after_days: u32,
) -> ReportOptions {
    ReportOptions {
        out: out.to_path_buf(),
        quiet,
        csv_dialect: match format.csv_dialect {
            CsvDialectArg::Standard => Dialect::Standard,
            CsvDialectArg::Excel => Dialect::Excel,
        },
        timestamped: format.timestamped,
        stale_after_days,
    }
}
