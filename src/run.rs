//! The screening use case: one run of a portfolio, from the database's lock to the
//! finished run and its reports, returned as a typed [`Screened`].
//!
//! ```text
//! check the file ─► lock, open, resume? ─► lookup lists ─► pipeline ─► finish ─► reports
//!                                                                        ─► delivery
//! ```
//!
//! Nothing here is about a terminal: progress goes to a [`Watcher`], the summary to the
//! writer the caller gives, and the exit code is the caller's to pick
//! ([`Screened::exit_code`]). What made the night loud (a spent quota, kept lookup lists, a
//! portfolio that shrank) is written into the run's notes, which the summary opens with.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::api::ApiError;
use crate::connection::{Service, ServiceSettings, ServiceTarget};
use crate::deliver;
use crate::error::{Error, ExitCode};
use crate::model::{Country, IdentifierService, RowStatus, RunInfo, RunStatus};
use crate::naming;
use crate::report::{self, Output, ReportOptions};
use crate::settings::config::Settings;
use crate::stages::check::Lookups;
use crate::stages::decide::{Decisions, Found, Need};
use crate::stages::input::{self, InputError, InputRow, Portfolio};
use crate::stages::limit::{Limiter, Limits};
use crate::stages::pipeline::{Fatal, Options, Pipeline, Resume};
use crate::stages::refresh::RefreshAges;
use crate::stages::resolve::Query;
use crate::store::{NewRun, RunLock, Store, StoreError, month_start, time_text};

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
    /// Where the run's message is posted, in which format, signed with which secret
    /// (`--notify-webhook`, `--webhook-format`, `--webhook-secret-file`).
    pub webhook: Option<deliver::webhook::Webhook>,
    /// How hard the webhook is tried; the default but in tests.
    pub webhook_policy: deliver::webhook::Policy,
    /// `[email]` of the config file, its password read.
    pub email: Option<deliver::email::Mailer>,
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

/// Watches a run's calls until it ends: stops them when asked to (`halt`), when the
/// service has been silent too long (the limiter's breaker, also tripped by a failing
/// call itself, checked here for calls whose timeout outlasts it), or when the run's time
/// is spent. Never returns.
async fn guard(limiter: &Limiter, halt: &Halt, max_run_time: std::time::Duration) {
    let deadline = tokio::time::Instant::now() + max_run_time;
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let asked = halt.asked();
    tokio::pin!(asked);
    loop {
        tokio::select! {
            why = &mut asked => {
                tracing::warn!("{why}: calls stop; what was found is recorded and reported");
                limiter.stop(ApiError::Halted { why });
                return std::future::pending().await;
            }
            () = tokio::time::sleep_until(deadline) => {
                tracing::warn!("the run reached --max-run-time: calls stop");
                limiter.stop(ApiError::Halted {
                    why: format!(
                        "the run reached its --max-run-time ({} s)",
                        max_run_time.as_secs_f64()
                    ),
                });
                return std::future::pending().await;
            }
            _ = tick.tick() => {
                limiter.check_waiting();
            }
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
    /// The exit code of a run that finished (design contract: 0 quiet, 1 alerts, 3 rows
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

/// Screens a portfolio: the summary goes to `summary`, the report files to the request's
/// folder. A run that stops on a fatal error after screening some rows still writes what
/// it found before returning the error: its alerts are news.
pub async fn screen(
    request: &Request,
    watcher: &impl Watcher,
    summary: impl Output,
) -> Result<Screened, Error> {
    let started = std::time::Instant::now();
    let mut log = Log::default();
    // The summary as printed, for the email's plain part.
    let mut printed = Vec::new();
    let copied = Copied {
        out: summary,
        copy: &mut printed,
    };
    let mut result = screen_logged(request, watcher, copied, &mut log).await;
    // Once the run has its database, whatever ended it: a failed night is when monitoring
    // needs its figures most.
    if let Some(portfolio) = &log.portfolio {
        let settings = &request.settings;
        let printed = String::from_utf8_lossy(&printed);
        let error = result.as_ref().err().map(ToString::to_string);
        let ended = deliver::EndedRun {
            portfolio,
            run_id: log.run_id,
            ok: result.is_ok(),
            duration: started.elapsed(),
            summary: &printed,
            error: error.as_deref(),
        };
        let targets = deliver::Targets {
            metrics_file: settings.metrics_file.value.as_deref(),
            webhook: request.webhook.as_ref(),
            policy: &request.webhook_policy,
            email: request.email.as_ref(),
        };
        let mut undelivered = Vec::new();
        if targets.any() {
            undelivered = hand_on(&settings.db.value, &ended, targets, &request.reports).await;
        }
        if let Ok(screened) = &mut result {
            screened.undelivered = undelivered;
        }
    }
    // One line when a run ends, whatever ended it, for whoever reads the logs.
    let info = result.as_ref().ok().map(|s| &s.run);
    let rows = |status| info.map_or(0, |i| i.rows_with(status));
    tracing::info!(
        run_id = log.run_id,
        status = %log.status.map_or("failed", RunStatus::as_str),
        rows = info.map_or(0, |i| i.rows),
        rated = rows(RowStatus::Rated),
        unresolved = rows(RowStatus::Unresolved),
        ambiguous = rows(RowStatus::Ambiguous),
        invalid = rows(RowStatus::Invalid),
        failed = rows(RowStatus::Failed),
        ignored = rows(RowStatus::Ignored),
        alerts = info.map_or(0, |i| i.alerts),
        calls = log.calls,
        duration_ms = started.elapsed().as_millis() as u64,
        report_ms = log.report_ms,
        error = result.as_ref().err().map(tracing::field::display),
        "run finished"
    );
    result
}

/// The summary's output, and a copy of every byte written to it: the copy is kept even
/// when the output fails (a closed stdout), for the email.
struct Copied<'a, W: Output> {
    out: W,
    copy: &'a mut Vec<u8>,
}

impl<W: Output> std::io::Write for Copied<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.copy.extend_from_slice(buf);
        self.out.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl<W: Output> Output for Copied<'_, W> {
    fn close(self) -> std::io::Result<()> {
        self.out.close()
    }
}

/// What the closing log line says of a run, gathered as it goes.
#[derive(Debug, Default)]
struct Log {
    /// Set once the database is open: from then on, a run's end is delivered.
    portfolio: Option<String>,
    run_id: Option<i64>,
    status: Option<RunStatus>,
    calls: u64,
    report_ms: Option<u64>,
}

async fn screen_logged(
    request: &Request,
    watcher: &impl Watcher,
    summary: impl Output,
    log: &mut Log,
) -> Result<Screened, Error> {
    let settings = &request.settings;
    let db = &settings.db.value;
    let path = &request.portfolio;
    // The input is checked whole before anything is written: its text, then every record
    // read once, so a file whose records cannot be told apart is refused, never half
    // screened.
    let survey = input::survey(path)?;
    let mut reader = Portfolio::open(path, &settings.columns)?;
    let mut check = Portfolio::open(path, &settings.columns)?;
    let mut records = 0u64;
    // The first refs, to tell whose customers a dated export holds.
    let mut refs = Vec::new();
    while let Some(row) = check.next_row()? {
        records += 1;
        if refs.len() < naming::REFS_COMPARED {
            refs.extend(row.reference);
        }
    }
    if records == 0 {
        return Err(header_only(path));
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
    let named = naming::portfolio_name(
        request.portfolio_name.as_deref(),
        &stem(path),
        &refs,
        &mut store,
    )
    .map_err(db_error)?;
    let name = named.name;
    log.portfolio = Some(name.clone());
    let previous = store.last_rows(&name).map_err(db_error)?;
    // Lines bound the rows from above, so this never refuses a file that did not shrink.
    let at_most = survey.lines.saturating_sub(1);
    if request.fail_on_shrink
        && let Some((_, before)) = previous
        && shrank(before, at_most)
    {
        return Err(Error::NothingToScreen(format!(
            "{}: at most {at_most} rows against {before} in the last run of {name}: more than half are gone (a truncated export?); refused by --fail-on-shrink",
            path.display(),
        )));
    }
    let resumed = store.resumable(&name, &survey.sha256).map_err(db_error)?;
    let demo_day = match (&request.service.target, resumed) {
        (ServiceTarget::Remote { .. }, _) => None,
        (ServiceTarget::Demo, Some((_, Some(day)))) => Some(day),
        (ServiceTarget::Demo, _) => Some(1 + store.demo_runs().map_err(db_error)?),
    };
    // The calls this calendar month's runs recorded, against the month's budget.
    let month = match settings.max_calls_per_month.value {
        Some(budget) => {
            let since = time_text(month_start(jiff::Timestamp::now()));
            let spent = store.calls_since(&since).map_err(db_error)?;
            Some(Month { budget, spent })
        }
        None => None,
    };
    let limits = within(settings.limits(), month);
    let conn = Service::open(&request.service, true, demo_day.unwrap_or(1)).await?;
    let limiter = Arc::new(Limiter::new(limits));
    // From here on, a signal, a silent service or the run's time spent stops the calls.
    let guarded = guard(&limiter, &request.halt, settings.max_run_time.value);
    tokio::pin!(guarded);
    let mut notes: Vec<String> = named.note.into_iter().collect();
    let (rules, rule_notes) = request
        .reports
        .alerts
        .for_columns(&reader.carried_columns());
    // A column the alerts show or add up is used, if not by the screening.
    let unused: Vec<&String> = reader
        .unused_columns()
        .iter()
        .filter(|c| {
            !rules.show.contains(c)
                && !rules
                    .amount_column()
                    .is_some_and(|a| crate::digest::same_column(a, c))
        })
        .collect();
    if !unused.is_empty() {
        let names: Vec<&str> = unused.iter().map(|c| c.as_str()).collect();
        notes.push(format!(
            "columns not used: {} (carried into the reports)",
            names.join(", ")
        ));
    }
    notes.extend(rule_notes);
    let lookups = tokio::select! {
        lookups = fetch_lookups(&conn, &limiter, &mut store, &mut notes) => lookups,
        () = &mut guarded => unreachable!("the guard never returns"),
    };
    // A signal before the run began: nothing to report, and nothing lost.
    let lookups = match lookups {
        Err(Error::Api(ApiError::Halted { why })) if request.halt.is_asked() => {
            return Err(Error::Stopped(why));
        }
        lookups => lookups?,
    };
    reader.set_default_country(default_country(settings, &lookups)?);
    let reading = reader.reading();

    let (run_id, resume) = match resumed {
        Some((run_id, _)) => {
            store.resume_run(run_id).map_err(db_error)?;
            let settled_lines = store.settled_lines(run_id).map_err(db_error)?;
            (run_id, Resume { settled_lines })
        }
        None => {
            let run = NewRun {
                portfolio: name.clone(),
                input_path: path.display().to_string(),
                sha256: survey.sha256.clone(),
                demo_day,
                extra_columns: reader.carried_columns(),
            };
            (store.start_run(&run).map_err(db_error)?, Resume::default())
        }
    };
    log.run_id = Some(run_id);
    // A run before this one whose summary and reports never went out: the alerts judge
    // its changes against what was last delivered (`store::alerts`), and the summary
    // says so first.
    for (undelivered, started_at) in store.undelivered_runs(&name, run_id).map_err(db_error)? {
        notes.push(format!(
            "NOTE: run {undelivered} of {name} (started {started_at}) stopped before its summary and reports went out; any change it found is announced here, or on the next night that rates the company"
        ));
    }
    let start = Started {
        run_id,
        portfolio: name.clone(),
        lines: survey.lines,
        resumed: resumed.map(|_| resume.settled_lines.len()),
    };
    tracing::info!(
        run_id,
        portfolio = %name,
        input = %path.display(),
        lines = survey.lines,
        db = %db.display(),
        resumed = resumed.is_some(),
        "run started"
    );
    watcher.started(&start);
    // What review decided, read once: a run never asks the store per row.
    let decisions = Decisions::new(store.decisions().map_err(db_error)?);
    let pipeline = Pipeline::new(
        conn.client.clone(),
        limiter.clone(),
        store.writer(run_id).map_err(db_error)?,
        lookups,
        options(request, decisions),
        resume,
    );
    // Under a call budget, the rows checked least recently go first (see
    // `Pipeline::by_last_checked`); a bad record then stops the run before any call.
    let input: Box<dyn Iterator<Item = Result<InputRow, InputError>>> =
        if limits.max_calls.is_some() {
            let (read, bad): (Vec<_>, Vec<_>) = rows(reader).partition(Result::is_ok);
            let read = read.into_iter().filter_map(Result::ok).collect();
            match pipeline.by_last_checked(read).await {
                Ok(ordered) => Box::new(bad.into_iter().chain(ordered.into_iter().map(Ok))),
                Err(e) => {
                    let _ = store.finish_run(run_id, RunStatus::Failed, &[], &notes, &rules);
                    return Err(db_error(e));
                }
            }
        } else {
            Box::new(rows(reader))
        };
    let outcome = tokio::select! {
        outcome = pipeline.run(input, |status| watcher.row(status)) => outcome,
        () = &mut guarded => unreachable!("the guard never returns"),
    };
    let calls = limiter.calls();
    log.calls = calls.iter().map(|(_, n)| n).sum();

    let fatal = match outcome {
        // Rows failed one by one, and the kept lookup lists hid it: no answer at all, and
        // nothing rated without one either (a reused rating, a known company).
        Ok(_)
            if limiter.never_reached()
                && store
                    .rows_by_status(run_id)
                    .map_err(db_error)?
                    .iter()
                    .all(|(s, n)| *s != RowStatus::Rated || *n == 0) =>
        {
            Some(Error::Unreachable)
        }
        Ok(ended) => {
            // What reading the rows noticed: defaulted countries, records too long.
            notes.extend(reading.notes());
            // Rows screened, but by a later identifier than their first: the first is
            // wrong in the export (said the night a search finds them so).
            notes.extend(ended.fell_back.note());
            if ended.unconfirmed_not_found > 0 {
                notes.push(format!(
                    "NOTE: the service answered 'not found' to all {} searches and ratings of this run and to nothing else: their rows failed, to be screened again next run; check --base-url",
                    ended.unconfirmed_not_found
                ));
            }
            None
        }
        Err(fatal) => Some(match fatal {
            Fatal::Refused(e) => conn.fail(e),
            Fatal::WrongAddress { not_found } => Error::WrongAddress { not_found },
            Fatal::Store(e) => db_error(e),
            Fatal::Input(e) => Error::Input(e),
        }),
    };
    if let Some(error) = fatal {
        // What was committed stays; the run is marked so nobody mistakes it for complete.
        let _ = store.finish_run(run_id, RunStatus::Failed, &calls, &notes, &rules);
        match &error {
            // Alerts found before a refusal are still news: reported before the error.
            Error::KeyRefused { .. } | Error::Api(_) | Error::Unreachable => {
                let found = store
                    .rows_by_status(run_id)
                    .is_ok_and(|rows| rows.iter().any(|(_, n)| *n > 0));
                if found && write_reports(&store, run_id, &request.reports, summary).is_ok() {
                    let _ = store.mark_delivered(run_id);
                }
            }
            // The database cannot be written: what was found is said all the same.
            Error::Store { source, .. } => {
                let said = say_unrecorded(
                    &mut store,
                    run_id,
                    &request.reports,
                    &notes,
                    source,
                    summary,
                );
                if let Err(e) = said {
                    tracing::warn!("what this run found could not be read back: {e}");
                }
            }
            _ => {}
        }
        return Err(error);
    }

    // Counted from what was recorded: rows held back until the end may have failed there.
    let recorded = store.rows_by_status(run_id).map_err(db_error)?;
    let rows_now: u64 = recorded.iter().map(|(_, n)| n).sum();
    let failed = recorded
        .iter()
        .find(|(s, _)| *s == RowStatus::Failed)
        .map_or(0, |(_, n)| *n);
    // Calls stopped before every row was screened (a stop after the last call changes
    // nothing): the run stays resumable, and says why first of all.
    let stopped = match limiter.stopped() {
        _ if failed == 0 => None,
        Some(ApiError::QuotaSpent { until }) => Some(format!(
            "the service's rate limit asks to wait until {until}, longer than --max-wait ({} s); run again after that",
            settings.max_wait.value.as_secs()
        )),
        Some(ApiError::Halted { why }) => Some(why.clone()),
        _ => None,
    };
    if let Some(why) = &stopped {
        notes.insert(
            0,
            format!(
                "STOPPED: {why}: the next run of this portfolio resumes with the rows not screened"
            ),
        );
    }
    // The service's clock far from this one: said, never believed (see `store::clock`).
    notes.extend(store.service_clock_note());
    notes.extend(store.future_dates_note(run_id).map_err(db_error)?);
    // First of all: the month's budget left this run short.
    if let Some(month) = month
        && limits.month_budget.is_some()
        && limiter.budget_reached()
    {
        notes.insert(0, month.note());
    }
    if let Some((before_run, before)) = previous
        && shrank(before, rows_now)
    {
        notes.push(format!(
            "SHRUNK: the portfolio has {rows_now} rows against {before} in run {before_run} of {name}: more than half are gone; check the export (--fail-on-shrink refuses such a file)"
        ));
    }
    // Ratings used without a call, when `[refresh]` or `rating_max_age` spared any: a
    // remark, with the calls the ratings did cost.
    let reused = store.reused_ratings(run_id).map_err(db_error)?;
    if reused > 0 {
        let rating = settings.endpoint.value.name();
        let asked: u64 = calls
            .iter()
            .filter(|(e, _)| *e == rating)
            .map(|(_, n)| n)
            .sum();
        notes.push(format!(
            "ratings: {} reused (younger than their color's refresh age), {} asked",
            crate::text::thousands(reused),
            crate::text::thousands(asked)
        ));
    }
    // A run stopped by the rate limit stays resumable: the next run takes up its rows.
    let status = if stopped.is_some() {
        RunStatus::Interrupted
    } else if failed > 0 {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    log.status = Some(status);
    // The run's end is timed whole: its alerts decided, its counts kept, its reports written.
    let reporting = std::time::Instant::now();
    store
        .finish_run(run_id, status, &calls, &notes, &rules)
        .map_err(db_error)?;
    let written = write_reports(&store, run_id, &request.reports, summary);
    log.report_ms = Some(reporting.elapsed().as_millis() as u64);
    // Delivered only now that the summary is out and the reports are in place: a run
    // that dies before this is announced by the next one.
    // Not recorded (a database busy past its timeout): the next run announces the news
    // again, which is better than never; the night's outcome stands.
    if written.is_ok()
        && let Err(e) = store.mark_delivered(run_id)
    {
        tracing::warn!(
            "{}: {e}; the next run announces this run's news again",
            db.display()
        );
    }
    let run = written.map_err(|e| match e {
        ReportError::Store(e) => db_error(e),
        ReportError::Io(e) => Error::io(
            format!(
                "cannot write the reports in {}",
                request.reports.out.display()
            ),
            e,
        ),
    })?;
    if request.reports.timestamped {
        remove_old_reports(&request.reports.out, settings.keep_reports_days.value);
    }
    if run.rows > 0 && run.rows_with(RowStatus::Invalid) == run.rows {
        return Err(Error::NothingToScreen(format!(
            "{}: none of its {} rows could be screened: every one is invalid (see `error` in the reports)",
            path.display(),
            run.rows
        )));
    }
    Ok(Screened {
        run,
        undelivered: Vec::new(),
    })
}

/// Removes the timestamped reports of `out` older than `keep_days` (`keep_reports_days`),
/// once this run's are in place: runs that each keep their own reports in one folder would
/// otherwise fill it. Said in the log; a file that cannot be removed is a warning, never a
/// failed run.
fn remove_old_reports(out: &Path, keep_days: u32) {
    match report::remove_old_reports(out, keep_days, jiff::Timestamp::now()) {
        Ok(removed) => {
            if let (Some(first), Some(last)) = (removed.files.first(), removed.files.last()) {
                tracing::info!(
                    folder = %out.display(),
                    removed = removed.files.len(),
                    oldest = %first.display(),
                    newest = %last.display(),
                    "removed the reports of runs older than {keep_days} days (keep_reports_days)"
                );
            }
            for (path, e) in removed.failed {
                tracing::warn!(
                    "cannot remove {}, a report older than {keep_days} days (keep_reports_days): {e}",
                    path.display()
                );
            }
        }
        Err(e) => tracing::warn!(
            "cannot look for reports older than {keep_days} days (keep_reports_days) in {}: {e}",
            out.display()
        ),
    }
}

/// The month's call budget (`--max-calls-per-month`) and the calls the runs started this
/// calendar month (UTC) recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Month {
    budget: u64,
    spent: u64,
}

impl Month {
    fn left(self) -> u64 {
        self.budget.saturating_sub(self.spent)
    }

    /// The line that opens the summary when the month's budget refused calls.
    fn note(self) -> String {
        let this_run = match self.left() {
            0 => "this run makes no call".to_string(),
            1 => "this run may make 1".to_string(),
            n => format!("this run may make {n}"),
        };
        format!(
            "BUDGET: {} of the month's {} calls (--max-calls-per-month) were already spent; {this_run}: the rows not screened wait for a later run that the budget allows",
            self.spent, self.budget
        )
    }
}

/// The run's limits: its call budget is the smaller of `--max-calls` and what the month
/// has left, and calls refused say which budget refused them.
fn within(mut limits: Limits, month: Option<Month>) -> Limits {
    if let Some(month) = month
        && limits.max_calls.is_none_or(|n| month.left() < n)
    {
        limits.max_calls = Some(month.left());
        limits.month_budget = Some(month.budget);
    }
    limits
}

/// What a run would cost, counted before any call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    pub rows: u64,
    /// Rows the local checks refuse (no call).
    pub invalid: u64,
    /// Rows answered by the cache (a fresh search), by a decision of `review`, or by their
    /// own `company_id`.
    pub answered: u64,
    /// Rows whose search the run would make.
    pub searching: u64,
    /// Calls by endpoint, the lookup lists included: the searches and the ratings of the
    /// companies already known are exact.
    pub calls: Vec<(&'static str, u64)>,
    /// Ratings of the companies the searches will find: at most one per search (two
    /// searches may find one company, rated once).
    pub ratings_after_searches: u64,
    /// Companies known whose latest rating is younger than its color's refresh age: used
    /// without a call.
    pub reused: u64,
    /// Rows whose identifier fails its registry's rules (a typo?), and the first few of
    /// them: (line, what looks wrong).
    pub suspicious: u64,
    pub examples: Vec<(u64, String)>,
    /// Whether the lookup lists were kept from an earlier run (else the rows are checked
    /// against the spec's countries and registries, any registry in any of them).
    pub lookups_kept: bool,
    /// What reading the rows noticed, as a run says it (defaulted countries, records with
    /// more fields than the header).
    pub notes: Vec<String>,
}

impl Preview {
    /// The calls the run would make; exact when no search is needed, else at most.
    pub fn total(&self) -> u64 {
        self.calls.iter().map(|(_, n)| n).sum::<u64>() + self.ratings_after_searches
    }
}

/// Counts what screening the request's portfolio would cost, without a call and without
/// writing anything: the file is read and checked row by row, duplicates collapse, and
/// the database (opened read-only, if there is one) answers what its cache knows.
pub fn preview(request: &Request) -> Result<Preview, Error> {
    let settings = &request.settings;
    let db = &settings.db.value;
    let path = &request.portfolio;
    input::survey(path)?;
    let mut reader = Portfolio::open(path, &settings.columns)?;
    let db_error = |source: StoreError| Error::Store {
        path: db.clone(),
        source,
    };
    // A database of an earlier schema is read as none: the counts are then those of a
    // first run, which the screening's upgrade may lower.
    let store = match db.is_file() {
        true => match Store::open_read_only(db) {
            Ok(store) => Some(store),
            Err(StoreError::Older { .. }) => {
                tracing::warn!(
                    "{} is from an earlier ratewatch: counting as if it were empty; the next screening upgrades it",
                    db.display()
                );
                None
            }
            Err(e) => return Err(db_error(e)),
        },
        false => None,
    };
    let (countries, services) = match &store {
        Some(store) => store.load_lookups().map_err(db_error)?,
        None => (Vec::new(), Vec::new()),
    };
    let lookups_kept = !countries.is_empty();
    let lookups = match lookups_kept {
        true => Lookups::new(&countries, &services),
        false => Lookups::of_the_spec(),
    };
    reader.set_default_country(default_country(settings, &lookups)?);
    let reading = reader.reading();
    let now = jiff::Timestamp::now();
    let max_age = options(request, Decisions::default());
    // Decisions of `review`, on a database that has them: a decided row costs no search.
    let decisions = match &store {
        Some(store) => Decisions::new(store.decisions().map_err(db_error)?),
        _ => Decisions::default(),
    };
    let refresh = request.refresh_resolutions;
    // The cache as the run asks it: its answers go by the same rules.
    let mut cached = |query: &Query| match &store {
        Some(store) if !refresh => store
            .cached_answer(&query.cache_key(), query.identifier())
            .map(|hit| {
                hit.and_then(|hit| Found::cached(hit, query, max_age.resolution_max_age, now))
            }),
        _ => Ok(None),
    };
    let mut preview = Preview {
        lookups_kept,
        ..Preview::default()
    };
    // Searches by a hash of their key: a million rows' keys would not fit the memory a run
    // takes, and a collision of 64-bit hashes among them is not to be expected.
    let mut searches: std::collections::HashMap<u64, &'static str> = Default::default();
    let mut companies: std::collections::HashSet<uuid::Uuid> = Default::default();
    while let Some(row) = reader.next_row()? {
        preview.rows += 1;
        // What the run would do with the row, and what that costs.
        let need = Need::of(&row, &lookups, &decisions);
        match &need {
            // Refused, unless a review ignored it: then answered by the decision, as a run
            // says.
            Need::Invalid { ignored: None, .. } => {
                preview.invalid += 1;
                continue;
            }
            Need::Searches(steps) => {
                if let Some(hint) = steps.iter().find_map(|s| s.query.rule_problem()) {
                    preview.suspicious += 1;
                    if preview.examples.len() < 5 {
                        preview.examples.push((row.line, hint));
                    }
                }
            }
            _ => {}
        }
        let cost = need.cost(&mut cached).map_err(db_error)?;
        companies.extend(cost.company);
        if cost.searches.is_empty() {
            preview.answered += 1;
        } else {
            preview.searching += 1;
        }
        for (key, endpoint) in cost.searches {
            searches.insert(key_hash(&key), endpoint);
        }
    }
    // As the run would: a file with nothing to screen is not a cheap night.
    if preview.rows == 0 {
        return Err(header_only(path));
    }
    preview.notes = reading.notes();
    let mut ratings = 0;
    for company in companies {
        // As the run would decide (see `Writer::reuse_rating`).
        let reused = match &store {
            Some(store) if max_age.refresh.any() => store
                .latest_seen(company)
                .map_err(db_error)?
                .is_some_and(|seen| {
                    max_age
                        .refresh
                        .reuses(&seen.color, now.duration_since(seen.seen_at))
                }),
            _ => false,
        };
        preview.reused += u64::from(reused);
        ratings += u64::from(!reused);
    }
    let mut by_endpoint: std::collections::BTreeMap<&'static str, u64> = Default::default();
    for endpoint in searches.values() {
        *by_endpoint.entry(endpoint).or_default() += 1;
    }
    by_endpoint.insert("countries", 1);
    by_endpoint.insert("services", 1);
    let rating = settings.endpoint.value.name();
    if ratings > 0 {
        by_endpoint.insert(rating, ratings);
    }
    preview.ratings_after_searches = searches.len() as u64;
    preview.calls = by_endpoint.into_iter().collect();
    Ok(preview)
}

fn key_hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// How the pipeline resolves and rates, from the request's settings.
fn options(request: &Request, decisions: Decisions) -> Options {
    let s = &request.settings;
    Options {
        concurrency: s.concurrency.value,
        endpoint: s.endpoint.value,
        refresh_resolutions: request.refresh_resolutions,
        resolution_max_age: jiff::SignedDuration::from_hours(
            24 * i64::from(s.resolution_max_age_days.value),
        ),
        refresh: Arc::new(RefreshAges::new(
            jiff::SignedDuration::from_hours(i64::from(s.rating_max_age_hours.value)),
            s.refresh.clone(),
        )),
        decisions: Arc::new(decisions),
    }
}

/// The error of a file with a header and no rows: nothing to screen is not a quiet night.
fn header_only(path: &Path) -> Error {
    Error::NothingToScreen(format!(
        "{}: a header and no rows: nothing to screen (an empty export?)",
        path.display()
    ))
}

/// A portfolio's default name: its file's stem.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "portfolio".into())
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
    conn: &Service,
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
    let (endpoint, e) = match (countries, services) {
        (Ok(countries), Ok(services)) => {
            let countries: Vec<Country> = countries.into_iter().map(Into::into).collect();
            let services: Vec<IdentifierService> = services.into_iter().map(Into::into).collect();
            store
                .save_lookups(&countries, &services)
                .map_err(db_error)?;
            return Ok(Lookups::new(&countries, &services));
        }
        (Err(e), _) => ("lookups/countries", e),
        (_, Err(e)) => ("lookups/services", e),
    };
    // A spent call budget is no fault of the service: the kept copy serves, and the
    // summary's BUDGET line says why.
    let budget = matches!(e, ApiError::CallBudget { .. });
    let spent = budget || matches!(e, ApiError::QuotaSpent { .. });
    if e.stops_calls() && !spent {
        return Err(conn.fail(e));
    }
    if !e.is_transient() && !spent {
        let base = client.base_url();
        let url = base
            .join(endpoint)
            .map_or_else(|_| format!("{base}{endpoint}"), |u| u.to_string());
        return Err(Error::NotTheService {
            url: crate::text::redacted_url(&url, crate::text::UrlPath::Whole),
            source: e,
        });
    }
    let (countries, services) = store.load_lookups().map_err(db_error)?;
    if let (true, ApiError::CallBudget { limit, month }) = (countries.is_empty(), &e) {
        let budget = match month {
            Some(month) => format!("--max-calls-per-month {month} leaves {limit} calls this month"),
            None => format!("--max-calls {limit} allows"),
        };
        return Err(Error::Config(format!(
            "nothing screened: {budget}, too few to fetch the service's lookup lists, and {} keeps no copy of them from an earlier run; raise the budget",
            store.path().display()
        )));
    }
    if countries.is_empty() {
        return Err(conn.fail(e));
    }
    if budget {
        tracing::info!(error = %e, "lookup lists not fetched; using the copy kept from an earlier run");
        return Ok(Lookups::new(&countries, &services));
    }
    tracing::warn!(error = %e, "lookup lists unavailable; using the copy kept from an earlier run");
    notes.push(format!(
        "NOTE: the service's lookup lists could not be fetched ({e}); the copy kept from an earlier run was used"
    ));
    Ok(Lookups::new(&countries, &services))
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

/// The portfolio's rows, ending after the first error (which stops the run).
fn rows(mut reader: Portfolio) -> impl Iterator<Item = Result<InputRow, InputError>> {
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
    let run = report::RunData {
        info: store.run_info(run_id)?,
        // Runs up to this one only: the report drawn again later shows the same trend.
        trend: store.color_trend(run_id, crate::store::TREND_RUNS)?,
        // Read, not recomputed, so a past run's summary reads as it did.
        digest: store.alert_digest(run_id, &options.alerts, crate::store::Verdicts::Recorded)?,
    };
    report::write_reports(
        run,
        |each| Ok(store.for_each_result(run_id, false, each)?),
        |each| Ok(store.for_each_alert_row(run_id, each)?),
        options,
        summary,
    )
}

/// The database refused to be written before the run ended (a full disk): what the run
/// found up to its last commit is still said on stdout, as a summary opening `NOT
/// RECORDED` whose alerts are decided in memory, never in the database. No report file is
/// written and nothing is marked delivered, so the next run of the portfolio announces the
/// same news.
fn say_unrecorded(
    store: &mut Store,
    run_id: i64,
    options: &ReportOptions,
    notes: &[String],
    why: &StoreError,
    summary: impl Output,
) -> Result<(), ReportError> {
    store.scratch_in_memory()?;
    let rules = &options.alerts;
    store.decide_alerts(run_id, rules, crate::store::Verdicts::Trial)?;
    let mut info = store.run_info(run_id)?;
    info.status = RunStatus::Failed;
    info.notes = std::iter::once(format!(
        "NOT RECORDED: the database could not be written ({why}): below is what this run found in the {} rows it screened before that; no report was written, and the next run announces the same news",
        info.rows
    ))
    .chain(notes.iter().cloned())
    .collect();
    let run = report::RunData {
        info,
        trend: Vec::new(),
        digest: store.alert_digest(run_id, rules, crate::store::Verdicts::Trial)?,
    };
    report::write_summary(
        run,
        |each| Ok(store.for_each_result(run_id, false, each)?),
        options,
        summary,
    )
}

/// Delivers the run's results ([`deliver::deliver`]), after the messages of earlier runs of
/// the portfolio that the webhook or the email never took (a receiver down, a process
/// killed while sending: at most a week's, oldest first), and records how each message
/// went in the database's delivery ledger. A message is pending from before its first
/// attempt until a channel takes it, so none is lost and none taken is sent twice; it keeps
/// the delivery id it was first sent with, so a receiver can drop what it already took.
/// Returns a line for each part that failed.
async fn hand_on(
    db: &Path,
    ended: &deliver::EndedRun<'_>,
    targets: deliver::Targets<'_>,
    reports: &ReportOptions,
) -> Vec<String> {
    use crate::store::Channel;
    // Tonight's messages, each named afresh.
    let ids = deliver::MessageIds {
        webhook: targets.webhook.map(|_| deliver::new_delivery_id()),
        email: targets.email.map(|_| deliver::new_delivery_id()),
    };
    let channels: Vec<(Channel, &str)> = named(&ids).collect();
    // The ledger: a database that cannot be written to leaves the messages unrecorded,
    // never unsent.
    let mut ledger = match (ended.run_id, channels.is_empty()) {
        (Some(run_id), false) => match Store::open(db) {
            Ok(mut store) => {
                for (channel, id) in &channels {
                    if let Err(e) = store.delivery_pending(run_id, *channel, id) {
                        tracing::warn!("{e}");
                    }
                }
                Some((store, run_id))
            }
            Err(e) => {
                tracing::warn!("{}: {e}; deliveries are not recorded", db.display());
                None
            }
        },
        _ => None,
    };
    let mut problems = Vec::new();
    // The earlier messages first, each through the channels that never took it, under the
    // id it was first sent with.
    let week_ago = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(7 * 24);
    let mut earlier: std::collections::BTreeMap<i64, deliver::MessageIds> = Default::default();
    if let Some((store, run_id)) = &ledger {
        for (channel, _) in &channels {
            match store.undelivered_messages(ended.portfolio, *channel, *run_id, week_ago) {
                Ok(runs) => {
                    for (id, delivery_id) in runs {
                        let missed = earlier.entry(id).or_default();
                        match channel {
                            Channel::Webhook => missed.webhook = Some(delivery_id),
                            Channel::Email => missed.email = Some(delivery_id),
                        }
                    }
                }
                Err(e) => tracing::warn!("{e}"),
            }
        }
    }
    for (id, missed) in earlier {
        let late = deliver::EndedRun {
            run_id: Some(id),
            ok: true,
            summary: "",
            error: None,
            ..*ended
        };
        let only = deliver::Targets {
            metrics_file: None,
            webhook: targets.webhook.filter(|_| missed.webhook.is_some()),
            email: targets.email.filter(|_| missed.email.is_some()),
            ..targets
        };
        let readings = delivery_readings(db, &late, &only, reports, &missed);
        let delivered = deliver::deliver(&late, only, readings).await;
        tracing::info!(run_id = id, "an earlier run's message sent again");
        problems.extend(
            delivered
                .problems
                .iter()
                .map(|p| format!("{p} (run {id}'s message, sent again)")),
        );
        record(&mut ledger, id, &delivered, &missed);
    }
    let readings = delivery_readings(db, ended, &targets, reports, &ids);
    let delivered = deliver::deliver(ended, targets, readings).await;
    if let Some(run_id) = ended.run_id {
        record(&mut ledger, run_id, &delivered, &ids);
    }
    problems.extend(delivered.problems);
    problems
}

/// The ledger's channels that a message goes through, each with its delivery id.
fn named(ids: &deliver::MessageIds) -> impl Iterator<Item = (crate::store::Channel, &str)> {
    use crate::store::Channel;
    [
        (Channel::Webhook, ids.webhook.as_deref()),
        (Channel::Email, ids.email.as_deref()),
    ]
    .into_iter()
    .filter_map(|(channel, id)| Some((channel, id?)))
}

/// Records in the ledger how the run's messages, named `ids`, went.
fn record(
    ledger: &mut Option<(Store, i64)>,
    run_id: i64,
    delivered: &deliver::Delivered,
    ids: &deliver::MessageIds,
) {
    use crate::store::Channel;
    let Some((store, _)) = ledger else {
        return;
    };
    for (channel, id) in named(ids) {
        let outcome = match channel {
            Channel::Webhook => &delivered.webhook,
            Channel::Email => &delivered.email,
        };
        if let Some(outcome) = outcome
            && let Err(e) = store.delivery_outcome(run_id, channel, id, outcome.clone())
        {
            tracing::warn!("{e}");
        }
    }
}

/// What delivery needs of the database, read as the run left it; the database is closed
/// before anything is posted, so it is not held while a receiver takes its time.
fn delivery_readings(
    db: &Path,
    ended: &deliver::EndedRun<'_>,
    targets: &deliver::Targets<'_>,
    reports: &ReportOptions,
    ids: &deliver::MessageIds,
) -> Result<deliver::Readings, String> {
    let rules = &reports.alerts;
    let store = Store::open_read_only(db)
        .map_err(|e| format!("cannot read database {}: {e}", db.display()))?;
    let text = |e: StoreError| e.to_string();
    let run = |id| store.run_info(id).map_err(text);
    let metrics = match targets.metrics_file {
        None => Ok((None, None)),
        Some(_) => ended.run_id.map(run).transpose().and_then(|info| {
            let last = store.last_complete(ended.portfolio).map_err(text)?;
            Ok((info, last.and_then(|t| t.parse().ok())))
        }),
    };
    // The run that just ended brought the schema up to date. A document for programs
    // carries up to `MAX_POSTED` alerts, a chat what the summary lists. (The storm is the
    // summary's business: no share makes one here.)
    let webhook = match (targets.webhook, ended.run_id) {
        (Some(hook), Some(id)) => Some(run(id).and_then(|info| {
            let rules = &reports.alerts;
            let posted = crate::alerts::Rules {
                max_listed: hook.format.max_listed(rules.max_listed),
                storm_share: 1.0,
                ..rules.clone()
            };
            let digest = store.alert_digest(id, &posted, crate::store::Verdicts::Recorded);
            let digest = digest.map_err(text)?;
            // The report.html the run wrote, as a path that means something to whoever
            // reads the message elsewhere.
            let html = report::ReportFiles::new(&reports.out, &info, reports.timestamped).html;
            let report = html
                .exists()
                .then(|| std::path::absolute(&html).unwrap_or(html))
                .map(|p| p.display().to_string());
            let heading = crate::digest::Heading {
                started_at: info.started_at,
                portfolio: info.portfolio.clone(),
                run_id: info.id,
                report,
            };
            Ok(deliver::webhook::Message {
                run: info,
                digest,
                heading,
                // Named by the caller whenever it sends one; else a name of its own.
                delivery_id: ids.webhook.clone().unwrap_or_else(deliver::new_delivery_id),
            })
        })),
        _ => None,
    };
    // The email lists what the summary lists: the rules as they are, cap and storm included.
    let email = targets.email.map(|_| {
        let Some(id) = ended.run_id else {
            return Ok(deliver::email::Reading {
                run: None,
                report: None,
                delivery_id: None,
            });
        };
        let info = run(id)?;
        let digest = store
            .alert_digest(id, rules, crate::store::Verdicts::Recorded)
            .map_err(text)?;
        // Only a run that printed its summary wrote its reports; a report.html from an
        // earlier night would tell of that night.
        let html = report::ReportFiles::new(&reports.out, &info, reports.timestamped).html;
        let report = (!ended.summary.is_empty() && html.is_file()).then(|| {
            std::path::absolute(&html)
                .unwrap_or(html)
                .display()
                .to_string()
        });
        Ok(deliver::email::Reading {
            run: Some((info, digest)),
            report,
            delivery_id: ids.email.clone(),
        })
    });
    Ok(deliver::Readings {
        metrics,
        webhook,
        email,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_portfolio_shrank_when_it_lost_more_than_half() {
        assert!(shrank(30, 14));
        assert!(!shrank(30, 15), "half is not more than half");
        assert!(!shrank(0, 0), "a first run has nothing to lose");
        assert!(!shrank(10, 40));
    }

    #[test]
    fn the_month_s_budget_binds_only_when_it_has_less_left_than_max_calls() {
        let per_run = |max_calls| Limits {
            max_calls,
            ..Limits::default()
        };
        let month = |spent| Some(Month { budget: 500, spent });
        let budget = |l: Limits| (l.max_calls, l.month_budget);
        assert_eq!(budget(within(per_run(None), None)), (None, None));
        assert_eq!(budget(within(per_run(Some(50)), None)), (Some(50), None));
        assert_eq!(
            budget(within(per_run(None), month(480))),
            (Some(20), Some(500))
        );
        assert_eq!(
            budget(within(per_run(Some(10)), month(480))),
            (Some(10), None)
        );
        assert_eq!(
            budget(within(per_run(Some(20)), month(480))),
            (Some(20), None)
        );
        assert_eq!(
            budget(within(per_run(Some(50)), month(600))),
            (Some(0), Some(500))
        );
        assert_eq!(
            month(480).unwrap().note(),
            "BUDGET: 480 of the month's 500 calls (--max-calls-per-month) were already spent; this run may make 20: the rows not screened wait for a later run that the budget allows"
        );
        assert!(
            month(500)
                .unwrap()
                .note()
                .contains("; this run makes no call:")
        );
    }
}
