//! One module per command. Each turns settings into calls on the library's stages and
//! text on stdout; the binary only parses arguments and maps the result to an exit code.

mod ack;
mod alerts;
mod audit;
mod config;
mod demo_server;
mod history;
mod lookup;
mod output;
mod review;
mod runs;
pub mod screen;
mod serve;
mod shell;
mod sync_history;
mod usage;

use std::io::Write;
use std::path::Path;

use crate::error::{Error, ExitCode};
use crate::settings::cli::{Cli, Command};
use crate::settings::config::Sources;
use crate::store::{Store, StoreError};

/// Runs the command the user asked for.
pub async fn run(cli: Cli) -> Result<ExitCode, Error> {
    // Read only by the commands that use settings: a broken ratewatch.toml must not stop
    // `completions` or `demo-server`.
    let (config, reader) = (cli.config, cli.reader);
    let sources = || {
        Sources::load(Some(&config), |k| std::env::var(k).ok())
            .map(|s| s.with_reader(reader.clone()))
    };
    match cli.command {
        Command::Screen(args) => screen::screen(args, sources()?).await,
        Command::Lookup(args) => lookup::lookup(args, sources()?).await,
        Command::Lookups(args) => lookup::lists(args, sources()?).await,
        Command::DemoServer(args) => demo_server::serve(args).await,
        Command::DemoPortfolio(args) => demo_server::portfolio(args),
        Command::Config(args) => config::show(args, sources()?),
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
        Command::Runs(args) => runs::runs(args, sources()?),
        Command::Report(args) => runs::report(args, sources()?),
        Command::History(args) => history::history(args, sources()?),
        Command::Changes(args) => history::changes(args, sources()?),
        Command::Usage(args) => usage::usage(args, sources()?),
        Command::Review(args) => review::review(args, sources()?).await,
        Command::Ack(args) => ack::ack(args, sources()?),
        Command::Unack(args) => ack::unack(args, sources()?),
        Command::Acks(args) => ack::acks(args, sources()?),
        Command::Audit(args) => audit::audit(args, sources()?),
        Command::Alerts(args) => alerts::alerts(args, sources()?),
        Command::Serve(args) => serve::serve(args, sources()?).await,
        Command::SyncHistory(args) => sync_history::sync(args, sources()?).await,
    }
}

/// Who reads an error the command ended with: the reader the settings name; when the
/// settings file does not read, the one `--locale` and `--time-zone` (or their variables)
/// name, else the environment's.
pub fn error_reader(cli: &Cli) -> crate::locale::Reader {
    use crate::locale::{Locale, Reader, Zone};
    let env = |k: &str| std::env::var(k).ok();
    Sources::load(Some(&cli.config), env)
        .and_then(|s| s.with_reader(cli.reader.clone()).reader())
        .unwrap_or_else(|_| Reader {
            locale: (cli.reader.locale.value).unwrap_or_else(|| Locale::of_environment(env).0),
            zone: (cli.reader.time_zone.value.clone()).unwrap_or_else(|| Zone::of_machine(env).0),
        })
}

/// The error of a store read or write, naming the database.
fn store_error(db: &Path) -> impl Fn(StoreError) -> Error + Copy + '_ {
    move |source| Error::Store {
        path: db.to_path_buf(),
        source,
    }
}

/// The database for a command that only reads it: never created or changed, no lock
/// taken, so a screening run in progress goes on undisturbed.
fn open_read_only(db: &Path) -> Result<Store, Error> {
    Store::open_read_only(db).map_err(store_error(db))
}

/// The database for recording a decision (`ack`, `review`): an existing one, brought up to
/// date.
fn open_for_decisions(db: &Path) -> Result<Store, Error> {
    if !db.is_file() {
        return Err(store_error(db)(StoreError::Missing));
    }
    Store::open(db).map_err(store_error(db))
}

/// Writes to stdout; a closed pipe (`ratewatch … | head`) is not an error.
///
/// What a command prints is made [`printable_text`](crate::text::printable_text) here,
/// whatever built it: a name, a color or a message in it cannot drive the terminal.
pub fn emit(text: &str) -> Result<(), Error> {
    let text = crate::text::printable_text(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io("cannot write to stdout", e))
        }
        _ => Ok(()),
    }
}
