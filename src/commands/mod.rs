//! One module per command. Each turns settings into calls on the library's stages and
//! text on stdout; the binary only parses arguments and maps the result to an exit code.

mod config;
mod demo_server;
mod history;
mod lookup;
mod output;
mod runs;
mod screen;
mod shell;

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

use crate::api::{ApiError, Client};
use crate::cli::{Cli, Command};
use crate::config::{KeySource, ServiceSettings, Settings, Sources, Target, missing_key};
use crate::error::{Error, ExitCode};
use crate::limit::{Limits, RetryPolicy};
use crate::sim::{SimConfig, SimServer};
use crate::store::Store;

/// Runs the command the user asked for.
pub async fn run(cli: Cli) -> Result<ExitCode, Error> {
    // Read only by the commands that use settings: a broken ratewatch.toml must not stop
    // `completions` or `demo-server`.
    let config_flag = cli.config;
    let sources = || Sources::load(config_flag.as_deref(), |k| std::env::var(k).ok());
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
    }
}

/// The database for a command that only reads it: never created or changed, no lock
/// taken, so a screening run in progress goes on undisturbed.
fn open_read_only(db: &Path) -> Result<Store, Error> {
    Store::open_read_only(db).map_err(|source| Error::Store {
        path: db.to_path_buf(),
        source,
    })
}

/// The bounds of a command's calls (concurrency, pace, budget, retries) from its settings:
/// built here only, so `screen` and `lookup` honour the same settings the same way.
fn limits(settings: &Settings) -> Limits {
    Limits {
        concurrency: settings.concurrency.value,
        max_rps: settings.max_rps.value,
        max_calls: settings.max_calls.value,
        max_wait: settings.max_wait.value,
        retry: RetryPolicy {
            retries: settings.retries.value,
            base_delay: settings.retry_delay.value,
            ..RetryPolicy::default()
        },
    }
}

/// A client ready to use, and the in-process simulator behind it in demo mode.
pub struct Connection {
    pub client: Client,
    key_source: Option<KeySource>,
    /// Kept alive for as long as the client needs it.
    _simulator: Option<SimServer>,
}

impl Connection {
    /// Connects to the configured target; `need_key` refuses to start without a key;
    /// `demo_day` is the simulated day the embedded simulator serves in demo mode.
    pub async fn open(
        settings: &ServiceSettings,
        need_key: bool,
        demo_day: i64,
    ) -> Result<Self, Error> {
        match &settings.target {
            Target::Demo => {
                let config = SimConfig {
                    day: demo_day,
                    ..SimConfig::default()
                };
                let key = crate::api::ApiKey::new(config.key.clone());
                let sim = SimServer::start(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
                    .await
                    .map_err(|e| Error::io("cannot start the embedded simulator", e))?;
                let client = Client::new(&sim.base_url(), Some(&key), settings.client)?;
                Ok(Connection {
                    client,
                    key_source: None,
                    _simulator: Some(sim),
                })
            }
            Target::Remote { base_url, key } => {
                if need_key && key.is_none() {
                    return Err(missing_key());
                }
                let client = Client::new(base_url, key.as_ref().map(|(k, _)| k), settings.client)
                    .map_err(|e| Error::Config(e.to_string()))?;
                Ok(Connection {
                    client,
                    key_source: key.as_ref().map(|(_, s)| s.clone()),
                    _simulator: None,
                })
            }
        }
    }

    /// Turns a call's error into the command's error, naming where a refused key came from.
    pub fn fail(&self, e: ApiError) -> Error {
        match (&e, &self.key_source) {
            (ApiError::Unauthenticated { .. }, Some(source)) => Error::KeyRefused {
                key_source: source.to_string(),
                source: e,
            },
            (ApiError::Unauthenticated { .. }, None) if self._simulator.is_none() => {
                Error::KeyRefused {
                    key_source: "nowhere: no key was set".into(),
                    source: e,
                }
            }
            _ => Error::Api(e),
        }
    }
}

/// Writes to stdout; a closed pipe (`ratewatch … | head`) is not an error.
pub fn emit(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io("cannot write to stdout", e))
        }
        _ => Ok(()),
    }
}
