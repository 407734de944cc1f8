//! The `ratewatch` binary: parse arguments, set up logging and the runtime, run the
//! command, turn the outcome into an exit code. Everything else is in the library.

use clap::Parser;
use ratewatch::cli::Cli;
use ratewatch::{Error, ExitCode};
use tracing_subscriber::EnvFilter;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new(format!("ratewatch={level}")))
        .with_writer(std::io::stderr)
        .init();

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return report(&Error::io("cannot start the async runtime", e)),
    };
    match runtime.block_on(ratewatch::commands::run(cli)) {
        Ok(code) => code.into(),
        Err(e) => report(&e),
    }
}

/// Prints the error with its causes on one line and picks the exit code.
fn report(e: &Error) -> std::process::ExitCode {
    let mut text = format!("ratewatch: error: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    eprintln!("{text}");
    let code: ExitCode = e.exit_code();
    code.into()
}
