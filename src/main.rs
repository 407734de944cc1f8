//! The `ratewatch` binary: parse arguments, set up logging and the runtime, run the
//! command, turn the outcome into an exit code. Everything else is in the library.

use std::io::IsTerminal;

use clap::Parser;
use ratewatch::locale::Reader;
use ratewatch::settings::cli::{Cli, Command, LogFormat};
use ratewatch::{Error, ExitCode};
use tracing_subscriber::EnvFilter;

fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A setting's variable that does not read is named as ratewatch names its mistakes.
        Err(e) => match ratewatch::settings::config::mistake_in(&e) {
            Some(mistake) => return report(&mistake),
            None => e.exit(),
        },
    };
    let level = match cli.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let logs = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new(format!("ratewatch={level}")))
        .with_writer(std::io::stderr);
    match cli.log_format {
        // Escape codes only for a person at a terminal, never in a cron mail or a log file.
        LogFormat::Text => logs.with_ansi(std::io::stderr().is_terminal()).init(),
        // One object per line with the event's fields at the top, as collectors expect.
        LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .init(),
    }

    // Screening runs on one thread: its work is waiting on the network, and SQL and HTTP
    // on one thread need no handoffs between threads, which cost more than the work.
    // The simulator serves on every core.
    let mut builder = match cli.command {
        Command::Screen(_) => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return report(&Error::io("cannot start the async runtime", e)),
    };
    let reader = ratewatch::commands::error_reader(&cli);
    match runtime.block_on(ratewatch::commands::run(cli)) {
        Ok(code) => code.into(),
        Err(e) => report_to(&e, &reader),
    }
}

/// Prints the error in English, before the settings say who reads.
fn report(e: &Error) -> std::process::ExitCode {
    report_to(e, &Reader::default())
}

/// Prints the error with its causes on one line, in the reader's words where ratewatch
/// has them, printable (a name or a message of the service's in it cannot drive the
/// terminal), and picks the exit code.
fn report_to(e: &Error, reader: &Reader) -> std::process::ExitCode {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    let said = reader
        .locale
        .text("error-line", &[("error", reader.record(&text).into())]);
    eprintln!("{}", ratewatch::text::printable(&said));
    let code: ExitCode = e.exit_code();
    code.into()
}
