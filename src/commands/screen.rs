//! `ratewatch screen`: the main job. Checks the input, opens the database, fetches the
//! lookup lists, runs the pipeline, records the run and writes its reports.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
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
use crate::report::csv::{CsvReport, Dialect};
use crate::report::html::HtmlReport;
use crate::report::json::JsonReport;
use crate::report::summary::Summary;
use crate::report::{AtomicFile, Format, ReportFiles};
use crate::store::{NewRun, RunLock, Store, StoreError};

pub async fn screen(args: ScreenArgs, sources: Sources) -> Result<ExitCode, Error> {
    let started = std::time::Instant::now();
    let run = Settings::for_run(&args.settings, &sources)?;
    let settings = ServiceSettings::new(&run, &sources)?;
    let (db, out) = (&run.db.value, &run.out.value);
    // The input is checked whole before anything is written.
    let survey = portfolio::survey(&args.portfolio)?;
    let reader = Portfolio::open(&args.portfolio)?;
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
    let lookups = fetch_lookups(&conn, &limiter, &mut store).await?;

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

    let progress = progress_bar(survey.lines.saturating_sub(1));
    let failed_rows = AtomicU64::new(0);
    let (writer, outcome) = pipeline
        .run(rows(reader), |status| {
            progress.inc(1);
            if status == Some(RowStatus::Failed) {
                let n = failed_rows.fetch_add(1, Ordering::Relaxed) + 1;
                progress.set_message(format!("{n} failed"));
            }
        })
        .await;
    progress.finish_and_clear();
    let written = writer.finish();

    let fatal = match (outcome, written) {
        (Ok(()), Ok(_)) => None,
        (Err(f), _) => Some(f),
        (Ok(()), Err(e)) => Some(Fatal::Store(e)),
    };
    let calls = limiter.calls();
    let total_calls: u64 = calls.iter().map(|(_, n)| n).sum();
    if let Some(fatal) = fatal {
        // What was committed stays; the run is marked so nobody mistakes it for complete.
        let _ = store.finish_run(run_id, "failed", &calls);
        let error = match fatal {
            Fatal::KeyRefused(e) => conn.fail(e),
            Fatal::Store(e) => db_error(e),
            Fatal::Input(e) => Error::Input(e),
        };
        tracing::info!(
            run_id,
            status = "failed",
            duration_ms = started.elapsed().as_millis() as u64,
            calls = total_calls,
            error = %error,
            "run finished"
        );
        return Err(error);
    }
    let failed_rows = failed_rows.into_inner();
    let status = if failed_rows > 0 {
        "partial"
    } else {
        "complete"
    };
    let mut reporting = std::time::Instant::now();
    let reported = store
        .finish_run(run_id, status, &calls)
        .map_err(db_error)
        .and_then(|()| {
            // `report_ms` times the reports alone, not the closing of the run.
            reporting = std::time::Instant::now();
            write_reports(
                &store,
                run_id,
                &ReportOptions::new(&args.reports, out, args.quiet),
            )
            .map_err(|e| match e {
                ReportError::Store(e) => db_error(e),
                ReportError::Io(e) => {
                    Error::io(format!("cannot write the reports in {}", out.display()), e)
                }
            })
        });
    let info = match reported {
        Ok(info) => info,
        Err(error) => {
            tracing::info!(
                run_id,
                status,
                duration_ms = started.elapsed().as_millis() as u64,
                calls = total_calls,
                error = %error,
                "run finished"
            );
            return Err(error);
        }
    };
    let count = |status: RowStatus| {
        info.by_status
            .iter()
            .find(|(s, _)| *s == status)
            .map_or(0, |(_, n)| *n)
    };
    tracing::info!(
        run_id,
        status,
        rows = info.rows,
        rated = count(RowStatus::Rated),
        unresolved = count(RowStatus::Unresolved),
        ambiguous = count(RowStatus::Ambiguous),
        invalid = count(RowStatus::Invalid),
        failed = count(RowStatus::Failed),
        alerts = info.alerts,
        calls = total_calls,
        duration_ms = started.elapsed().as_millis() as u64,
        report_ms = reporting.elapsed().as_millis() as u64,
        "run finished"
    );
    Ok(if failed_rows > 0 {
        ExitCode::Partial
    } else if info.alerts > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    })
}

/// Fetches the lookup lists once per run and keeps them; if the service cannot give them,
/// the last kept copy is used.
async fn fetch_lookups(
    conn: &Connection,
    limiter: &Limiter,
    store: &mut Store,
) -> Result<Lookups, Error> {
    let client = &conn.client;
    let fetched = futures::try_join!(
        limiter.call_keyless("countries", || client.countries()),
        limiter.call_keyless("services", || client.services()),
    );
    let path = store.path().to_path_buf();
    let db_error = |source| Error::Store { path, source };
    match fetched {
        Ok((countries, services)) => {
            store
                .save_lookups(&countries, &services)
                .map_err(db_error)?;
            Ok(Lookups::new(&countries, &services))
        }
        Err(e @ ApiError::Unauthenticated { .. }) => Err(conn.fail(e)),
        Err(e) => {
            let (countries, services) = store.load_lookups().map_err(db_error)?;
            if countries.is_empty() {
                return Err(conn.fail(e));
            }
            tracing::warn!(error = %e, "lookup lists unavailable; using the copy kept from an earlier run");
            Ok(Lookups::new(&countries, &services))
        }
    }
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

/// Why reports could not be written.
pub enum ReportError {
    Store(StoreError),
    Io(std::io::Error),
}

/// Where and how a run's reports are written.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The folder of the report files.
    pub out: PathBuf,
    /// The summary on stdout lists alerts only.
    pub quiet: bool,
    pub csv_dialect: Dialect,
    /// File names carry the run's start time (see [`ReportFiles::new`]).
    pub timestamped: bool,
}

impl ReportOptions {
    pub fn new(format: &ReportFormatArgs, out: &Path, quiet: bool) -> ReportOptions {
        ReportOptions {
            out: out.to_path_buf(),
            quiet,
            csv_dialect: match format.csv_dialect {
                CsvDialectArg::Standard => Dialect::Standard,
                CsvDialectArg::Excel => Dialect::Excel,
            },
            timestamped: format.timestamped,
        }
    }
}

/// Writes report.csv, report.json and report.html into the folder and the summary to
/// stdout, all from the database in one pass over the run's rows.
pub fn write_reports(
    store: &Store,
    run_id: i64,
    options: &ReportOptions,
) -> Result<RunInfo, ReportError> {
    let info = store.run_info(run_id).map_err(ReportError::Store)?;
    let out = &options.out;
    std::fs::create_dir_all(out).map_err(ReportError::Io)?;
    let files = ReportFiles::new(out, &info, options.timestamped).map_err(ReportError::Io)?;
    let file = |path: &Path| AtomicFile::create(path).map_err(ReportError::Io);
    let csv_name = files
        .csv
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut formats: Vec<Box<dyn Format>> = vec![
        Box::new(CsvReport::new(file(&files.csv)?, options.csv_dialect)),
        Box::new(JsonReport::new(file(&files.json)?)),
        Box::new(HtmlReport::new(file(&files.html)?, &csv_name, out)),
        Box::new(Summary::new(
            std::io::stdout(),
            options.quiet,
            [&files.csv, &files.json, &files.html]
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        )),
    ];
    for f in formats.iter_mut() {
        f.begin(&info).map_err(ReportError::Io)?;
    }
    store
        .for_each_result(run_id, false, |row| {
            formats.iter_mut().try_for_each(|f| f.row(&row))
        })
        .map_err(ReportError::Store)?
        .map_err(ReportError::Io)?;
    for f in formats {
        match f.finish() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.map_err(ReportError::Io)?,
        }
    }
    Ok(info)
}
