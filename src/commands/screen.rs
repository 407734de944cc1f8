//! `ratewatch screen`: the terminal's part of a screening run — flags to a request, the
//! progress bar, the resuming message and the exit code. The run itself is
//! [`crate::run::screen`].

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::connection::{ServiceSettings, ServiceTarget};
use crate::deliver::Channels;
use crate::deliver::email::Mailer;
use crate::deliver::metrics::MetricsFile;
use crate::error::{Error, ExitCode};
use crate::model::RowStatus;
use crate::report::ReportOptions;
use crate::run::{self, Preview, Request, Started, Watcher};
use crate::settings::cli::ScreenArgs;
use crate::settings::config::{Settings, Sources};

pub async fn screen(args: ScreenArgs, sources: Sources) -> Result<ExitCode, Error> {
    if args.dry_run {
        return dry_run(&args, &sources);
    }
    let request = request(args, &sources)?;
    let progress = Progress {
        bar: ProgressBar::hidden(),
        failed: AtomicU64::new(0),
    };
    stop_on_signals(&request.halt);
    let screened = run::screen(&request, &progress, std::io::stdout()).await;
    progress.bar.finish_and_clear();
    let screened = screened?;
    // After the summary, on stderr: the cron mail shows it; the exit code does not change.
    for line in &screened.undelivered {
        eprintln!("ratewatch: warning: {}", crate::text::printable(line));
    }
    Ok(screened.exit_code())
}

/// `--dry-run`: the counts, from the file and the settings alone (no service is called),
/// then what a run of the same settings would talk to, or what it still needs.
fn dry_run(args: &ScreenArgs, sources: &Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_screen(args, sources)?;
    let preview = run::preview_of(&args.portfolio, &settings, args.refresh_resolutions)?;
    let mut text = preview_text(&args.portfolio, &preview);
    let service = ServiceSettings::new(&settings, sources).and_then(|s| s.target.ready());
    let mut needs = Vec::new();
    match service {
        Ok(target) => text.push_str(&format!("service: {target}\n")),
        Err(e) => needs.push(e),
    }
    // The channels' secrets are read as a run reads them.
    needs.extend(Mailer::of(&settings).err());
    needs.extend(settings.webhook().err());
    for need in needs {
        let need = crate::text::printable(&need.to_string());
        text.push_str(&format!("NOT READY TO RUN: {need}\n"));
    }
    super::emit(&text)?;
    Ok(ExitCode::Clean)
}

/// SIGTERM (a cron `timeout`, a shutdown) or SIGINT (Ctrl-C) asks the run to stop its
/// calls and end as it would after a spent quota: what was found recorded and reported,
/// the rest resumable. A second signal ends the process at once (the database stays
/// consistent: every batch is a transaction).
fn stop_on_signals(halt: &run::Halt) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("cannot listen for SIGTERM and SIGINT: a signal ends the run at once");
            return;
        };
        let halt = halt.clone();
        tokio::spawn(async move {
            let mut signals = 0;
            loop {
                let (name, code) = tokio::select! {
                    _ = term.recv() => ("SIGTERM", 143),
                    _ = int.recv() => ("SIGINT", 130),
                };
                signals += 1;
                if signals > 1 {
                    eprintln!("ratewatch: {name} again: stopping now");
                    std::process::exit(code);
                }
                eprintln!(
                    "ratewatch: {name}: stopping the calls; the summary of what was screened follows (send it again to stop at once)"
                );
                halt.stop(format!("stopped by {name}"));
            }
        });
    }
    #[cfg(not(unix))]
    {
        let halt = halt.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                halt.stop("stopped by Ctrl-C");
            }
        });
    }
}

/// The screening a command line asks for: its settings from every source, checked.
pub fn request(args: ScreenArgs, sources: &Sources) -> Result<Request, Error> {
    let settings = Settings::for_screen(&args, sources)?;
    let mut service = ServiceSettings::new(&settings, sources)?;
    let email = Mailer::of(&settings)?;
    if matches!(service.target, ServiceTarget::Demo) {
        service.demo_days = demo_days(&settings.db.value);
    }
    let reports = ReportOptions {
        out: settings.out.value.clone(),
        quiet: settings.quiet.value,
        csv_dialect: settings.csv_dialect.value,
        timestamped: settings.timestamped.value,
        stale_after_days: settings.stale_after_days.value,
        alerts: settings.alerts.clone(),
        page: settings.page_url.value.clone(),
        reader: settings.reader(),
    };
    let channels = Channels {
        metrics: (settings.metrics_file.value.clone()).map(|path| MetricsFile { path }),
        webhook: settings.webhook()?,
        email,
    };
    Ok(Request {
        portfolio: args.portfolio,
        portfolio_name: args.portfolio_name,
        settings,
        service,
        refresh_resolutions: args.refresh_resolutions,
        fail_on_shrink: args.fail_on_shrink,
        reports,
        channels,
        halt: Default::default(),
    })
}

/// The days earlier demo runs of the database served, and when: the simulator keeps each
/// on its date. None for a database not there yet, or one that cannot say.
fn demo_days(db: &Path) -> Vec<(i64, jiff::civil::Date)> {
    crate::store::Store::open_read_only(db)
        .and_then(|store| store.demo_days())
        .unwrap_or_default()
}

/// A progress bar on stderr when a person is watching; nothing under cron.
struct Progress {
    bar: ProgressBar,
    failed: AtomicU64,
}

impl Watcher for Progress {
    fn started(&self, run: &Started) {
        if let Some(settled) = run.resumed {
            eprintln!(
                "ratewatch: resuming interrupted run {} of {}: {settled} rows already screened",
                run.run_id,
                crate::text::printable(&run.portfolio)
            );
        }
        if !std::io::stderr().is_terminal() {
            return;
        }
        self.bar.set_length(run.lines.saturating_sub(1));
        self.bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} rows  {per_sec}  ETA {eta}  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.bar
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        self.bar.enable_steady_tick(Duration::from_millis(200));
    }

    fn row(&self, status: Option<RowStatus>) {
        self.bar.inc(1);
        if status == Some(RowStatus::Failed) {
            let n = self.failed.fetch_add(1, Ordering::Relaxed) + 1;
            self.bar.set_message(format!("{n} failed"));
        }
    }
}

/// What `--dry-run` prints: the rows, then the calls, exact where they can be.
fn preview_text(portfolio: &Path, p: &Preview) -> String {
    let mut text = String::new();
    if !p.lookups_kept {
        text.push_str("NOTE: no lookup lists kept yet: rows were checked against the spec's countries and registries\n");
    }
    text.push_str(&format!(
        "dry run of {}: {} rows — {} invalid, {} answered without a search, {} to search; nothing was called or written\n",
        portfolio.display(),
        p.rows,
        p.invalid,
        p.answered,
        p.searching
    ));
    for note in &p.notes {
        text.push_str(&crate::text::printable(note));
        text.push('\n');
    }
    let calls = p
        .calls
        .iter()
        .map(|(e, n)| format!("{n} {e}"))
        .collect::<Vec<_>>()
        .join(", ");
    if p.suspicious > 0 {
        let examples = p
            .examples
            .iter()
            .map(|(line, hint)| format!("line {line}: {hint}"))
            .collect::<Vec<_>>()
            .join("; ");
        text.push_str(&format!(
            "{} identifiers fail their registry's rules (typos?): {}\n",
            p.suspicious,
            crate::text::printable(&examples)
        ));
    }
    if p.reused > 0 {
        text.push_str(&format!(
            "ratings: {} reused without a call (younger than their color's refresh age)\n",
            crate::text::thousands(p.reused)
        ));
    }
    let exact: u64 = p.calls.iter().map(|(_, n)| n).sum();
    text.push_str(&format!("calls: {exact} ({calls})"));
    let mut then = Vec::new();
    if p.ratings_after_searches > 0 {
        then.push(format!(
            "{} ratings of the companies the searches find",
            p.ratings_after_searches
        ));
    }
    if p.loosened > 0 {
        then.push(format!(
            "{} name searches loosened for the rows that find none",
            p.loosened
        ));
    }
    if !then.is_empty() {
        text.push_str(&format!(
            ", and up to {}: at most {} in all",
            then.join(" and "),
            p.total()
        ));
    }
    text.push('\n');
    text
}
