//! One run of a portfolio: the file checked whole, the database locked and opened (an
//! interrupted run resumed), the lookup lists, the pipeline under its guard, the run
//! finished and its reports written; then what it found handed on ([`super::hand_on`]).

use std::path::Path;
use std::sync::Arc;

use super::hand_on::hand_on;
use super::prune::prune_old_details;
use super::{
    Halt, ReportError, Request, Screened, Started, Watcher, country_name, default_country,
    header_only, options, write_reports,
};
use crate::api::ApiError;
use crate::connection::{Service, ServiceTarget};
use crate::deliver;
use crate::error::Error;
use crate::model::{Country, IdentifierService, RowStatus, RunStatus};
use crate::naming;
use crate::report::{self, Output, ReportOptions};
use crate::stages::check::Lookups;
use crate::stages::decide::Decisions;
use crate::stages::input::{self, InputError, InputRow, Portfolio};
use crate::stages::limit::{Limiter, Limits};
use crate::stages::outcome::Fatal;
use crate::stages::pipeline::{Options, Pipeline, Resume};
use crate::stages::tally::{FELL_BACK_NOTE, FELL_BACK_REMINDER};
use crate::store::{NewRun, RunLock, Store, StoreError, month_start, time_text};

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
        let channels = request.channels.each();
        let mut undelivered = Vec::new();
        if !channels.is_empty() {
            undelivered = hand_on(&settings.db.value, &ended, &channels, &request.reports).await;
        }
        if let Ok(screened) = &mut result {
            screened.undelivered = undelivered;
        }
    }
    // Last, once its news is out: the rows of runs too old to keep.
    if let Ok(screened) = &result {
        let keep_days = request.settings.keep_run_details_days.value;
        prune_old_details(&request.settings.db.value, screened.run.id, keep_days);
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

/// Returns the heap's free pages to the system. glibc keeps what a program frees for its
/// next allocations, but the end of a run allocates mostly on other threads (the count
/// beside the alerts, a thread per report file), each with a heap of its own: the
/// writer's page cache (16 MiB) would stay resident under them, and a million-row run's
/// peak memory came at its end instead of while it screened.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer; it only releases pages on glibc's free lists.
    unsafe {
        libc::malloc_trim(0);
    }
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
    let default_country = default_country(settings, &lookups)?;
    // Its name, for the errors of the rows that took it (the lists were just kept).
    let assumed_country = match &default_country {
        Some(code) => Some(country_name(
            code,
            &store.load_lookups().map_err(db_error)?.0,
        )),
        None => None,
    };
    reader.set_default_country(default_country);
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
                amount_column: rules.amount_column().map(str::to_string),
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
        Options {
            assumed_country,
            ..options(request, decisions)
        },
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
    // The writer is closed, its page cache freed: given back before the run's end takes
    // memory of its own.
    give_back_freed_memory();

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
            // wrong in the export (said in full when news or due again as standing
            // alerts are, else a reminder naming them).
            let fell_back = &ended.fell_back;
            let full = fell_back.rows > 0
                && store
                    .names_fell_back(
                        run_id,
                        &fell_back.lines,
                        &rules,
                        (FELL_BACK_NOTE, FELL_BACK_REMINDER),
                    )
                    .map_err(db_error)?;
            notes.extend(fell_back.note(full));
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
