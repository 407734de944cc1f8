//! Turns command-line flags, `RATEWATCH_*` environment variables and the `ratewatch.toml`
//! config file into one validated set of settings, each knowing where it came from.
//!
//! Precedence: flags, then the environment, then the file, then the defaults below. No
//! clap type travels past this module. The API key itself is never read from the config
//! file (a file of settings gets copied and shared; a key must not travel with it): only
//! from `RATEWATCH_API_KEY` or from a file of its own named by `api_key_file`.

use crate::alerts::Rules;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::api::ApiKey;
use crate::cli::{CsvDialectArg, EndpointArg, RunArgs, ScreenArgs, ServiceArgs};
use crate::connection::{KeySource, read_key_file};
use crate::deliver::webhook::WebhookUrl;
use crate::error::Error;
use crate::limit::{Limits, RetryPolicy};
use crate::model::Color;
use crate::portfolio::ColumnMap;
use crate::rate::RatingEndpoint;
use crate::report::csv::Dialect;

/// A table of ratewatch.toml, each key and value with where it is.
pub type Table = BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>;

/// A mistake in the file: where it is (a byte range) and what it is.
pub type Mistake = (std::ops::Range<usize>, String);

/// Environment variable holding the API key.
pub const KEY_ENV: &str = "RATEWATCH_API_KEY";
/// The config file looked for in the working directory.
pub const CONFIG_FILE: &str = "ratewatch.toml";
/// Environment variable naming the config file (`--config` wins over it).
pub const CONFIG_ENV: &str = "RATEWATCH_CONFIG";

// The defaults, named here only (the limiter's and the client's own defaults are these).
// The flags' help text repeats them as `[default: …]`; a test keeps both equal.
pub const DEFAULT_DB: &str = "ratewatch.db";
/// Reports are written where ratewatch runs.
pub const DEFAULT_OUT: &str = ".";
pub const DEFAULT_CONCURRENCY: u16 = 8;
pub const MAX_CONCURRENCY: u16 = 1024;
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// `--max-wait`: ten minutes of the service's rate limit is a busy night; hours is a spent
/// quota, which a nightly run must report, not sleep through.
pub const DEFAULT_MAX_WAIT_SECS: f64 = 600.0;
/// `--max-silence`: a minute with no answer while calls time out or cannot connect is a
/// service that is down, not slow; more calls would only make the night last days.
pub const DEFAULT_MAX_SILENCE_SECS: f64 = 60.0;
/// `--max-run-time`: two hours bounds a nightly run, so the next night finds the database
/// free whatever the service does.
pub const DEFAULT_MAX_RUN_TIME_SECS: f64 = 7200.0;
pub const DEFAULT_CONNECT_TIMEOUT_SECS: f64 = 10.0;
pub const DEFAULT_ENDPOINT: RatingEndpoint = RatingEndpoint::Current;
pub const DEFAULT_RESOLUTION_MAX_AGE_DAYS: u32 = 30;
/// Ratings are fetched on every run unless asked otherwise: a color is what is paid for.
pub const DEFAULT_RATING_MAX_AGE_HOURS: u32 = 0;
/// A rating the service has not recalculated for this many days before the run's start is
/// marked stale in the reports.
pub const DEFAULT_STALE_AFTER_DAYS: u32 = 30;
pub const DEFAULT_RETRIES: u32 = 3;
pub const DEFAULT_RETRY_DELAY_MS: u64 = 500;
/// report.csv for programs unless asked otherwise.
pub const DEFAULT_CSV_DIALECT: Dialect = Dialect::Standard;

/// A setting that the config file and the environment can give, named as in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    BaseUrl,
    ApiKeyFile,
    Timeout,
    ConnectTimeout,
    Db,
    Out,
    Concurrency,
    Endpoint,
    ResolutionMaxAge,
    RatingMaxAge,
    StaleAfter,
    Retries,
    RetryDelayMs,
    MaxRps,
    MaxCalls,
    MaxCallsPerMonth,
    MaxWait,
    MaxSilence,
    MaxRunTime,
    DefaultCountry,
    NotifyWebhook,
    MetricsFile,
    CsvDialect,
    Timestamped,
    Quiet,
}

impl Key {
    pub const ALL: [Key; 25] = [
        Key::BaseUrl,
        Key::ApiKeyFile,
        Key::Timeout,
        Key::ConnectTimeout,
        Key::Db,
        Key::Out,
        Key::Concurrency,
        Key::Endpoint,
        Key::ResolutionMaxAge,
        Key::RatingMaxAge,
        Key::StaleAfter,
        Key::Retries,
        Key::RetryDelayMs,
        Key::MaxRps,
        Key::MaxCalls,
        Key::MaxCallsPerMonth,
        Key::MaxWait,
        Key::MaxSilence,
        Key::MaxRunTime,
        Key::DefaultCountry,
        Key::NotifyWebhook,
        Key::MetricsFile,
        Key::CsvDialect,
        Key::Timestamped,
        Key::Quiet,
    ];

    /// The key in `ratewatch.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Key::BaseUrl => "base_url",
            Key::ApiKeyFile => "api_key_file",
            Key::Timeout => "timeout",
            Key::ConnectTimeout => "connect_timeout",
            Key::Db => "db",
            Key::Out => "out",
            Key::Concurrency => "concurrency",
            Key::Endpoint => "endpoint",
            Key::ResolutionMaxAge => "resolution_max_age",
            Key::RatingMaxAge => "rating_max_age",
            Key::StaleAfter => "stale_after",
            Key::Retries => "retries",
            Key::RetryDelayMs => "retry_delay_ms",
            Key::MaxRps => "max_rps",
            Key::MaxCalls => "max_calls",
            Key::MaxCallsPerMonth => "max_calls_per_month",
            Key::MaxWait => "max_wait",
            Key::MaxSilence => "max_silence",
            Key::MaxRunTime => "max_run_time",
            Key::DefaultCountry => "default_country",
            Key::NotifyWebhook => "notify_webhook",
            Key::MetricsFile => "metrics_file",
            Key::CsvDialect => "csv_dialect",
            Key::Timestamped => "timestamped",
            Key::Quiet => "quiet",
        }
    }

    /// The environment variable: `RATEWATCH_` and the key in capitals.
    pub fn env(self) -> &'static str {
        match self {
            Key::BaseUrl => "RATEWATCH_BASE_URL",
            Key::ApiKeyFile => "RATEWATCH_API_KEY_FILE",
            Key::Timeout => "RATEWATCH_TIMEOUT",
            Key::ConnectTimeout => "RATEWATCH_CONNECT_TIMEOUT",
            Key::Db => "RATEWATCH_DB",
            Key::Out => "RATEWATCH_OUT",
            Key::Concurrency => "RATEWATCH_CONCURRENCY",
            Key::Endpoint => "RATEWATCH_ENDPOINT",
            Key::ResolutionMaxAge => "RATEWATCH_RESOLUTION_MAX_AGE",
            Key::RatingMaxAge => "RATEWATCH_RATING_MAX_AGE",
            Key::StaleAfter => "RATEWATCH_STALE_AFTER",
            Key::Retries => "RATEWATCH_RETRIES",
            Key::RetryDelayMs => "RATEWATCH_RETRY_DELAY_MS",
            Key::MaxRps => "RATEWATCH_MAX_RPS",
            Key::MaxCalls => "RATEWATCH_MAX_CALLS",
            Key::MaxCallsPerMonth => "RATEWATCH_MAX_CALLS_PER_MONTH",
            Key::MaxWait => "RATEWATCH_MAX_WAIT",
            Key::MaxSilence => "RATEWATCH_MAX_SILENCE",
            Key::MaxRunTime => "RATEWATCH_MAX_RUN_TIME",
            Key::DefaultCountry => "RATEWATCH_DEFAULT_COUNTRY",
            Key::NotifyWebhook => "RATEWATCH_NOTIFY_WEBHOOK",
            Key::MetricsFile => "RATEWATCH_METRICS_FILE",
            Key::CsvDialect => "RATEWATCH_CSV_DIALECT",
            Key::Timestamped => "RATEWATCH_TIMESTAMPED",
            Key::Quiet => "RATEWATCH_QUIET",
        }
    }

    /// The command-line flag: `--` and the key with dashes.
    pub fn flag(self) -> String {
        format!("--{}", self.name().replace('_', "-"))
    }

    /// Paths in the config file are relative to the file's folder, not to where ratewatch
    /// runs, so one file works from anywhere.
    fn is_path(self) -> bool {
        matches!(
            self,
            Key::ApiKeyFile | Key::Db | Key::Out | Key::MetricsFile
        )
    }

    /// The key of a name as written in the config file.
    pub fn by_name(name: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Flag(String),
    Env(&'static str),
    File { path: PathBuf, line: usize },
    Default,
}

impl Origin {
    /// One word for scripts: `flag`, `env`, `file` or `default`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Flag(_) => "flag",
            Origin::Env(_) => "env",
            Origin::File { .. } => "file",
            Origin::Default => "default",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(f, "flag {flag}"),
            Origin::Env(var) => write!(f, "env {var}"),
            Origin::File { path, line } => write!(f, "file {}:{line}", path.display()),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// A setting's value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Sourced<T> {
    fn by_default(value: T) -> Self {
        Sourced {
            value,
            origin: Origin::Default,
        }
    }

    fn map<U>(self, f: impl FnOnce(T) -> U) -> Sourced<U> {
        Sourced {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

/// A value as written in the config file, before it is checked against its key.
#[derive(Debug, Clone, PartialEq)]
enum FileValue {
    Text(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// A value of a kind no setting takes (date, array, table), by its kind.
    Other(&'static str),
}

impl fmt::Display for FileValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileValue::Text(s) => write!(f, "{s:?}"),
            FileValue::Integer(i) => write!(f, "{i}"),
            FileValue::Float(x) => write!(f, "{x}"),
            // Said by its kind: only a switch takes it, and a switch's error shows no value.
            FileValue::Boolean(_) => f.write_str("a value of type boolean"),
            FileValue::Other(kind) => write!(f, "a value of type {kind}"),
        }
    }
}

/// How the config file was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundBy {
    Flag,
    Env,
    WorkingDirectory,
}

impl fmt::Display for FoundBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FoundBy::Flag => f.write_str("flag --config"),
            FoundBy::Env => write!(f, "env {CONFIG_ENV}"),
            FoundBy::WorkingDirectory => f.write_str("working directory"),
        }
    }
}

/// A config file whose keys are all known, each with its value and line.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub found_by: FoundBy,
    entries: BTreeMap<Key, (FileValue, usize)>,
    /// `[columns]`: the portfolio's fields → the file's own headers.
    pub columns: ColumnMap,
    /// `[alerts]`: the alert rules (the defaults when the table is absent).
    pub alerts: Rules,
    /// `[refresh]`: how old a rating of each color may be and still be reused.
    pub refresh: Vec<(Color, jiff::SignedDuration)>,
}

/// The tables of the file, read again with their own keys' lines.
#[derive(Deserialize)]
struct Tables {
    #[serde(default)]
    alerts: Table,
    #[serde(default)]
    refresh: Table,
    #[serde(default)]
    columns: Table,
}

impl ConfigFile {
    /// Checks the text of a config file: TOML, known keys only (a typo must not be
    /// silently ignored), and never the API key itself. Values are checked when read.
    pub fn parse(path: &Path, found_by: FoundBy, text: &str) -> Result<Self, Error> {
        let line = |span: &std::ops::Range<usize>| {
            text[..span.start.min(text.len())].matches('\n').count() + 1
        };
        let at = |(span, message): Mistake| {
            Error::Config(format!("{}:{}: {message}", path.display(), line(&span)))
        };
        // Only the parser's message and position: its snippet of the line could show a key
        // written where it does not belong.
        let invalid = |e: toml::de::Error| {
            let message = e.message().trim().replace('\n', "; ");
            at((
                e.span().unwrap_or(0..0),
                format!("not valid TOML: {message}"),
            ))
        };
        let entries: Table = toml::from_str(text).map_err(invalid)?;
        for (key, value) in &entries {
            let shape = match key.get_ref().as_str() {
                "alerts" => "`alerts` is a table: [alerts] then rule = value lines",
                "refresh" => "`refresh` is a table: [refresh] then color = \"7d\" lines",
                "columns" => "`columns` is a table: [columns] then field = \"Header\" lines",
                _ => continue,
            };
            if !value.get_ref().is_table() {
                return Err(at((key.span(), shape.into())));
            }
        }
        let tables: Tables = toml::from_str(text).map_err(invalid)?;
        let mut file = ConfigFile {
            path: path.to_path_buf(),
            found_by,
            entries: BTreeMap::new(),
            columns: ColumnMap::default(),
            alerts: Rules::default(),
            refresh: Vec::new(),
        };
        for (key, value) in entries {
            let (span, name) = (key.span(), key.into_inner());
            let squeezed: String = name
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            match name.as_str() {
                "alerts" => file.alerts = Rules::from_table(&tables.alerts).map_err(at)?,
                "refresh" => {
                    file.refresh = crate::refresh::ages_from_table(&tables.refresh).map_err(at)?
                }
                "columns" => file.columns = ColumnMap::from_table(&tables.columns).map_err(at)?,
                _ if squeezed == "key" || squeezed == "apikey" => {
                    return Err(at((
                        span,
                        format!(
                            "`{name}`: the API key is never read from the config file; put it in a file of its own and name that file with `api_key_file = \"PATH\"`, or set {KEY_ENV}"
                        ),
                    )));
                }
                _ => {
                    let Some(key) = Key::by_name(&name) else {
                        let hint = closest(&name)
                            .map(|k| format!(" (did you mean `{}`?)", k.name()))
                            .unwrap_or_default();
                        let known: Vec<&str> = Key::ALL.iter().map(|k| k.name()).collect();
                        let message = format!(
                            "unknown key `{name}`{hint}; the keys are {}",
                            known.join(", ")
                        );
                        return Err(at((span, message)));
                    };
                    let value = match value.into_inner() {
                        toml::Value::String(s) => FileValue::Text(s),
                        toml::Value::Integer(i) => FileValue::Integer(i),
                        toml::Value::Float(x) => FileValue::Float(x),
                        toml::Value::Boolean(b) => FileValue::Boolean(b),
                        other => FileValue::Other(other.type_str()),
                    };
                    file.entries.insert(key, (value, line(&span)));
                }
            }
        }
        Ok(file)
    }
}

/// The known key nearest to a misspelt one, if it is near enough to be the one meant.
fn closest(name: &str) -> Option<Key> {
    let distance = crate::text::distance;
    let name = name.to_lowercase().replace('-', "_");
    Key::ALL
        .into_iter()
        .map(|k| (distance(&name, k.name()), k))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, k)| k)
}

/// Where settings come from besides the flags: the environment and the config file.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The environment's values of the settings' variables; empty ones left out.
    env: BTreeMap<&'static str, String>,
    /// [`KEY_ENV`], kept apart as an [`ApiKey`] so that `Debug` never shows it.
    env_key: Option<ApiKey>,
    pub file: Option<ConfigFile>,
}

impl Sources {
    /// The alert rules of the config file, or the defaults.
    pub fn alert_rules(&self) -> Rules {
        self.file
            .as_ref()
            .map(|f| f.alerts.clone())
            .unwrap_or_default()
    }

    /// Reads the environment (through `env`, injectable for tests) and the config file:
    /// `--config PATH`, else `RATEWATCH_CONFIG`, else `ratewatch.toml` in the working
    /// directory if there is one. A file named explicitly must exist.
    pub fn load(
        config_flag: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, Error> {
        let named = match config_flag {
            Some(path) => Some((path.to_path_buf(), FoundBy::Flag)),
            None => env(CONFIG_ENV)
                .filter(|p| !p.trim().is_empty())
                .map(|p| (PathBuf::from(p), FoundBy::Env)),
        };
        let file = match named {
            Some((path, found_by)) => {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    Error::Config(format!(
                        "cannot read the config file {} (given by {found_by}): {e}",
                        path.display()
                    ))
                })?;
                Some(ConfigFile::parse(&path, found_by, &text)?)
            }
            None => match std::fs::read_to_string(CONFIG_FILE) {
                Ok(text) => Some(ConfigFile::parse(
                    Path::new(CONFIG_FILE),
                    FoundBy::WorkingDirectory,
                    &text,
                )?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(Error::Config(format!(
                        "cannot read the config file {CONFIG_FILE}: {e}"
                    )));
                }
            },
        };
        Ok(Self::new(env, file))
    }

    /// Sources from an environment and an already parsed file, for tests.
    pub fn new(env: impl Fn(&str) -> Option<String>, file: Option<ConfigFile>) -> Self {
        let read = |var| env(var).filter(|v| !v.trim().is_empty());
        Sources {
            env: Key::ALL
                .iter()
                .filter_map(|k| read(k.env()).map(|v| (k.env(), v)))
                .collect(),
            env_key: read(KEY_ENV).map(|k| ApiKey::new(k.trim())),
            file,
        }
    }

    /// A setting from its flag, else the environment, else the file; `None` if none of
    /// them gives it. Every value, a flag's included, is checked by `spec`.
    fn pick<T: fmt::Debug>(
        &self,
        key: Key,
        spec: &Spec<T>,
        flag: Option<T>,
    ) -> Result<Option<Sourced<T>>, Error> {
        let expected = |place: String, got: String| {
            Error::Config(format!("{place}: expected {}, got {got}", spec.expected))
        };
        if let Some(value) = flag {
            return if (spec.valid)(&value) {
                Ok(Some(Sourced {
                    value,
                    origin: Origin::Flag(key.flag()),
                }))
            } else {
                Err(expected(key.flag(), format!("{value:?}")))
            };
        }
        if let Some(text) = self.env.get(key.env()) {
            return match (spec.parse)(&FileValue::Text(text.trim().to_string())) {
                Some(value) if (spec.valid)(&value) => Ok(Some(Sourced {
                    value,
                    origin: Origin::Env(key.env()),
                })),
                _ => Err(expected(key.env().to_string(), format!("{text:?}"))),
            };
        }
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let Some((raw, line)) = file.entries.get(&key) else {
            return Ok(None);
        };
        match (spec.parse)(raw) {
            Some(value) if (spec.valid)(&value) => Ok(Some(Sourced {
                value,
                origin: Origin::File {
                    path: file.path.clone(),
                    line: *line,
                },
            })),
            _ => Err(expected(
                format!("{}:{line}: {}", file.path.display(), key.name()),
                raw.to_string(),
            )),
        }
    }

    /// A path setting; one from the config file is taken relative to the file's folder.
    fn pick_path(
        &self,
        key: Key,
        flag: Option<PathBuf>,
    ) -> Result<Option<Sourced<PathBuf>>, Error> {
        debug_assert!(key.is_path());
        Ok(self.pick(key, &PATH, flag)?.map(|s| match &s.origin {
            Origin::File { path, .. } if s.value.is_relative() => {
                let folder = path.parent().unwrap_or(Path::new(""));
                let value = folder.join(&s.value);
                Sourced { value, ..s }
            }
            _ => s,
        }))
    }

    /// The database a command reads or writes: `--db`, `RATEWATCH_DB`, `db` in the file,
    /// or `ratewatch.db`.
    pub fn database(&self, flag: Option<PathBuf>) -> Result<Sourced<PathBuf>, Error> {
        Ok(self
            .pick_path(Key::Db, flag)?
            .unwrap_or_else(|| Sourced::by_default(PathBuf::from(DEFAULT_DB))))
    }

    /// The folder of the reports: `--out`, `RATEWATCH_OUT`, `out` in the file, or `.`.
    pub fn output_folder(&self, flag: Option<PathBuf>) -> Result<Sourced<PathBuf>, Error> {
        Ok(self
            .pick_path(Key::Out, flag)?
            .unwrap_or_else(|| Sourced::by_default(PathBuf::from(DEFAULT_OUT))))
    }

    /// Days without a recalculation after which the reports call a rating stale:
    /// `--stale-after`, `RATEWATCH_STALE_AFTER`, `stale_after` in the file, or 30.
    pub fn stale_after(&self, flag: Option<u32>) -> Result<Sourced<u32>, Error> {
        Ok(self
            .pick(Key::StaleAfter, &DAYS, flag)?
            .unwrap_or_else(|| Sourced::by_default(DEFAULT_STALE_AFTER_DAYS)))
    }

    /// The spelling of report.csv: `--csv-dialect`, `RATEWATCH_CSV_DIALECT`, `csv_dialect`
    /// in the file, or standard.
    pub fn csv_dialect(&self, flag: Option<CsvDialectArg>) -> Result<Sourced<Dialect>, Error> {
        let flag = flag.map(|d| match d {
            CsvDialectArg::Standard => Dialect::Standard,
            CsvDialectArg::Excel => Dialect::Excel,
        });
        Ok(self
            .pick(Key::CsvDialect, &CSV_DIALECT, flag)?
            .unwrap_or_else(|| Sourced::by_default(DEFAULT_CSV_DIALECT)))
    }

    /// Reports named after the run's start: `--timestamped`, `RATEWATCH_TIMESTAMPED`,
    /// `timestamped` in the file, or not. An absent flag leaves the others to say.
    pub fn timestamped(&self, flag: bool) -> Result<Sourced<bool>, Error> {
        self.switch(Key::Timestamped, flag)
    }

    /// Alerts only in the summary: `--quiet`, `RATEWATCH_QUIET`, `quiet` in the file, or not.
    pub fn quiet(&self, flag: bool) -> Result<Sourced<bool>, Error> {
        self.switch(Key::Quiet, flag)
    }

    fn switch(&self, key: Key, flag: bool) -> Result<Sourced<bool>, Error> {
        Ok(self
            .pick(key, &SWITCH, flag.then_some(true))?
            .unwrap_or_else(|| Sourced::by_default(false)))
    }

    /// The API key and where it came from: the file named by `api_key_file` (read now),
    /// else `RATEWATCH_API_KEY`, else none.
    pub fn api_key(
        &self,
        api_key_file: &Sourced<Option<PathBuf>>,
    ) -> Result<Option<(ApiKey, KeySource)>, Error> {
        Ok(match &api_key_file.value {
            Some(path) => Some((read_key_file(path)?, KeySource::File(path.clone()))),
            None => self.env_key.clone().map(|k| (k, KeySource::Env)),
        })
    }
}

/// How to read and check one kind of setting.
struct Spec<T> {
    /// What a valid value is, for the error message.
    expected: &'static str,
    /// From the environment's text or the file's value.
    parse: fn(&FileValue) -> Option<T>,
    valid: fn(&T) -> bool,
}

fn text(v: &FileValue) -> Option<String> {
    match v {
        FileValue::Text(s) => Some(s.clone()),
        _ => None,
    }
}

fn whole<T: TryFrom<i64> + std::str::FromStr>(v: &FileValue) -> Option<T> {
    match v {
        FileValue::Integer(i) => T::try_from(*i).ok(),
        // The environment's values arrive as text.
        FileValue::Text(s) => s.parse().ok(),
        _ => None,
    }
}

fn number(v: &FileValue) -> Option<f64> {
    match v {
        FileValue::Float(x) => Some(*x),
        FileValue::Integer(i) => Some(*i as f64),
        FileValue::Text(s) => s.parse().ok(),
        FileValue::Boolean(_) | FileValue::Other(_) => None,
    }
}

/// A switch: a TOML boolean in the file; `true`/`false` (or `1`/`0`) in the environment.
fn switch(v: &FileValue) -> Option<bool> {
    match v {
        FileValue::Boolean(b) => Some(*b),
        FileValue::Text(s) => match s.to_lowercase().as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn positive(x: &f64) -> bool {
    x.is_finite() && *x > 0.0
}

const URL: Spec<String> = Spec {
    expected: "the service's root URL",
    parse: text,
    valid: |s| !s.trim().is_empty(),
};
/// Checked by [`WebhookUrl::parse`] afterwards, whose errors never repeat a secret: this
/// one's own message would quote the value, credentials and all.
const WEBHOOK: Spec<String> = Spec {
    expected: "an http or https URL",
    parse: text,
    valid: |_| true,
};
const PATH: Spec<PathBuf> = Spec {
    expected: "a path",
    parse: |v| text(v).map(PathBuf::from),
    valid: |p| !p.as_os_str().is_empty(),
};
const SECONDS: Spec<f64> = Spec {
    expected: "a positive number of seconds",
    parse: number,
    valid: positive,
};
const CONCURRENCY: Spec<u16> = Spec {
    expected: "a whole number from 1 to 1024",
    parse: whole,
    valid: |n| (1..=MAX_CONCURRENCY).contains(n),
};
const ENDPOINT: Spec<RatingEndpoint> = Spec {
    expected: "\"current\" or \"deprecated\"",
    parse: |v| match text(v)?.to_lowercase().as_str() {
        "current" => Some(RatingEndpoint::Current),
        "deprecated" => Some(RatingEndpoint::Deprecated),
        _ => None,
    },
    valid: |_| true,
};
const DAYS: Spec<u32> = Spec {
    expected: "a whole number of days",
    parse: whole,
    valid: |_| true,
};
const HOURS: Spec<u32> = Spec {
    expected: "a whole number of hours",
    parse: whole,
    valid: |_| true,
};
const COUNT: Spec<u32> = Spec {
    expected: "a whole number",
    parse: whole,
    valid: |_| true,
};
const MILLISECONDS: Spec<u64> = Spec {
    expected: "a whole number of milliseconds",
    parse: whole,
    valid: |_| true,
};
const RPS: Spec<f64> = Spec {
    expected: "a positive number of requests per second",
    parse: number,
    valid: positive,
};
const SWITCH: Spec<bool> = Spec {
    expected: "true or false",
    parse: switch,
    valid: |_| true,
};
const CSV_DIALECT: Spec<Dialect> = Spec {
    expected: "\"standard\" or \"excel\"",
    parse: |v| match text(v)?.to_lowercase().as_str() {
        "standard" => Some(Dialect::Standard),
        "excel" => Some(Dialect::Excel),
        _ => None,
    },
    valid: |_| true,
};
/// Two letters, taken in capitals; whether the service knows the code is checked against
/// its lookup lists when a run has them.
const COUNTRY: Spec<String> = Spec {
    expected: "a two-letter country code, e.g. FR",
    parse: |v| text(v).map(|t| t.trim().to_uppercase()),
    valid: |c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()),
};
const CALLS: Spec<u64> = Spec {
    expected: "a whole number of calls",
    parse: whole,
    valid: |_| true,
};

/// Every setting of a screening run, each with where it came from: what `screen` uses and
/// `ratewatch config` shows. Commands that only talk to the service use the first four.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--demo`: the embedded simulator; the base URL and the key are not used.
    pub demo: bool,
    pub base_url: Sourced<Option<String>>,
    pub api_key_file: Sourced<Option<PathBuf>>,
    pub timeout: Sourced<Duration>,
    pub connect_timeout: Sourced<Duration>,
    pub db: Sourced<PathBuf>,
    pub out: Sourced<PathBuf>,
    pub concurrency: Sourced<usize>,
    pub endpoint: Sourced<RatingEndpoint>,
    pub resolution_max_age_days: Sourced<u32>,
    /// A rating seen by a run that started this recently is used instead of fetched.
    pub rating_max_age_hours: Sourced<u32>,
    /// The reports mark a rating not recalculated for more days than this before the run.
    pub stale_after_days: Sourced<u32>,
    pub retries: Sourced<u32>,
    pub retry_delay: Sourced<Duration>,
    pub max_rps: Sourced<Option<f64>>,
    pub max_calls: Sourced<Option<u64>>,
    /// Calls in a calendar month (UTC) at most, all runs on the database together.
    pub max_calls_per_month: Sourced<Option<u64>>,
    /// Longest wait for the service's rate limit in one run; past it the run stops.
    pub max_wait: Sourced<Duration>,
    /// Longest the service may stay silent (calls timing out or not connecting, no answer
    /// at all) before calls stop.
    pub max_silence: Sourced<Duration>,
    /// Longest a run makes calls; past it, calls stop and the run ends resumable.
    pub max_run_time: Sourced<Duration>,
    /// The portfolio's fields → the file's own headers: `[columns]` in the file, then
    /// `--column` flags (a flag wins over the file for the same field).
    pub columns: ColumnMap,
    /// The country of a row whose country is empty (an ERP that leaves it out for its own
    /// country's customers); unset, such a row is `invalid`.
    pub default_country: Sourced<Option<String>>,
    /// Where the run's alerts are POSTed when it ends.
    pub notify_webhook: Sourced<Option<WebhookUrl>>,
    /// The Prometheus textfile the run's figures are written to when it ends.
    pub metrics_file: Sourced<Option<PathBuf>>,
    /// `[alerts]` of the config file.
    pub alerts: Rules,
    /// `[refresh]` of the config file: the refresh age of each color it names (the others
    /// have `rating_max_age_hours`).
    pub refresh: Vec<(Color, jiff::SignedDuration)>,
    /// How report.csv is spelt.
    pub csv_dialect: Sourced<Dialect>,
    /// The reports named after the run's start, so each run keeps its own.
    pub timestamped: Sourced<bool>,
    /// The summary says alerts only.
    pub quiet: Sourced<bool>,
}

impl Settings {
    /// Settings of a screening run from its flags and the other sources.
    /// The report settings (`csv_dialect`, `timestamped`, `quiet`) without their flags,
    /// which `screen` takes: see [`Settings::for_screen`].
    pub fn for_run(args: &RunArgs, sources: &Sources) -> Result<Self, Error> {
        Self::resolve(&args.service_args, Some(args), None, sources)
    }

    /// Settings of `screen`, its report flags included.
    pub fn for_screen(args: &ScreenArgs, sources: &Sources) -> Result<Self, Error> {
        Self::resolve(
            &args.settings.service_args,
            Some(&args.settings),
            Some(args),
            sources,
        )
    }

    /// Settings of a command that only talks to the service (the run's settings are still
    /// checked: a bad file or variable is reported whichever command reads it).
    pub fn for_service(args: &ServiceArgs, sources: &Sources) -> Result<Self, Error> {
        Self::resolve(args, None, None, sources)
    }

    fn resolve(
        service: &ServiceArgs,
        run: Option<&RunArgs>,
        screen: Option<&ScreenArgs>,
        sources: &Sources,
    ) -> Result<Self, Error> {
        let seconds = |s: Sourced<f64>| s.map(Duration::from_secs_f64);
        Ok(Settings {
            demo: service.demo,
            base_url: optional(sources.pick(Key::BaseUrl, &URL, service.base_url.clone())?),
            api_key_file: optional(
                sources.pick_path(Key::ApiKeyFile, service.api_key_file.clone())?,
            ),
            timeout: seconds(
                sources
                    .pick(Key::Timeout, &SECONDS, service.timeout)?
                    .unwrap_or(Sourced::by_default(DEFAULT_TIMEOUT_SECS)),
            ),
            connect_timeout: seconds(
                sources
                    .pick(Key::ConnectTimeout, &SECONDS, service.connect_timeout)?
                    .unwrap_or(Sourced::by_default(DEFAULT_CONNECT_TIMEOUT_SECS)),
            ),
            db: sources.database(run.and_then(|r| r.db.clone()))?,
            out: sources.output_folder(run.and_then(|r| r.out.clone()))?,
            concurrency: sources
                .pick(
                    Key::Concurrency,
                    &CONCURRENCY,
                    run.and_then(|r| r.concurrency),
                )?
                .unwrap_or(Sourced::by_default(DEFAULT_CONCURRENCY))
                .map(usize::from),
            endpoint: sources
                .pick(
                    Key::Endpoint,
                    &ENDPOINT,
                    run.and_then(|r| r.endpoint).map(|e| match e {
                        EndpointArg::Current => RatingEndpoint::Current,
                        EndpointArg::Deprecated => RatingEndpoint::Deprecated,
                    }),
                )?
                .unwrap_or(Sourced::by_default(DEFAULT_ENDPOINT)),
            resolution_max_age_days: sources
                .pick(
                    Key::ResolutionMaxAge,
                    &DAYS,
                    run.and_then(|r| r.resolution_max_age),
                )?
                .unwrap_or(Sourced::by_default(DEFAULT_RESOLUTION_MAX_AGE_DAYS)),
            rating_max_age_hours: sources
                .pick(
                    Key::RatingMaxAge,
                    &HOURS,
                    run.and_then(|r| r.rating_max_age),
                )?
                .unwrap_or(Sourced::by_default(DEFAULT_RATING_MAX_AGE_HOURS)),
            stale_after_days: sources.stale_after(run.and_then(|r| r.stale_after))?,
            retries: sources
                .pick(Key::Retries, &COUNT, run.and_then(|r| r.retries))?
                .unwrap_or(Sourced::by_default(DEFAULT_RETRIES)),
            retry_delay: sources
                .pick(
                    Key::RetryDelayMs,
                    &MILLISECONDS,
                    run.and_then(|r| r.retry_delay_ms),
                )?
                .unwrap_or(Sourced::by_default(DEFAULT_RETRY_DELAY_MS))
                .map(Duration::from_millis),
            max_rps: optional(sources.pick(Key::MaxRps, &RPS, run.and_then(|r| r.max_rps))?),
            max_calls: optional(sources.pick(
                Key::MaxCalls,
                &CALLS,
                run.and_then(|r| r.max_calls),
            )?),
            max_calls_per_month: optional(sources.pick(
                Key::MaxCallsPerMonth,
                &CALLS,
                run.and_then(|r| r.max_calls_per_month),
            )?),
            max_wait: seconds(
                sources
                    .pick(Key::MaxWait, &SECONDS, run.and_then(|r| r.max_wait))?
                    .unwrap_or(Sourced::by_default(DEFAULT_MAX_WAIT_SECS)),
            ),
            max_silence: seconds(
                sources
                    .pick(Key::MaxSilence, &SECONDS, run.and_then(|r| r.max_silence))?
                    .unwrap_or(Sourced::by_default(DEFAULT_MAX_SILENCE_SECS)),
            ),
            max_run_time: seconds(
                sources
                    .pick(Key::MaxRunTime, &SECONDS, run.and_then(|r| r.max_run_time))?
                    .unwrap_or(Sourced::by_default(DEFAULT_MAX_RUN_TIME_SECS)),
            ),
            columns: ColumnMap(
                sources
                    .file
                    .iter()
                    .flat_map(|f| f.columns.0.iter().cloned())
                    .chain(run.into_iter().flat_map(|r| r.column.iter().cloned()))
                    .collect(),
            ),
            default_country: optional(
                sources.pick(
                    Key::DefaultCountry,
                    &COUNTRY,
                    run.and_then(|r| r.default_country.as_deref())
                        .map(|c| c.trim().to_uppercase()),
                )?,
            ),
            notify_webhook: optional(webhook(sources.pick(
                Key::NotifyWebhook,
                &WEBHOOK,
                run.and_then(|r| r.notify_webhook.clone()),
            )?)?),
            metrics_file: optional(
                sources.pick_path(Key::MetricsFile, run.and_then(|r| r.metrics_file.clone()))?,
            ),
            alerts: sources.alert_rules(),
            refresh: sources
                .file
                .as_ref()
                .map(|f| f.refresh.clone())
                .unwrap_or_default(),
            csv_dialect: sources.csv_dialect(screen.and_then(|s| s.reports.csv_dialect))?,
            timestamped: sources.timestamped(screen.is_some_and(|s| s.reports.timestamped))?,
            quiet: sources.quiet(screen.is_some_and(|s| s.quiet))?,
        })
    }
}

/// The webhook's address checked, an error naming where it came from (the flag, the
/// variable, or the file's line and key) but never what could be a secret in it.
fn webhook(s: Option<Sourced<String>>) -> Result<Option<Sourced<WebhookUrl>>, Error> {
    let Some(s) = s else { return Ok(None) };
    match WebhookUrl::parse(&s.value) {
        Ok(url) => Ok(Some(Sourced {
            value: url,
            origin: s.origin,
        })),
        Err(message) => {
            let place = match &s.origin {
                Origin::Flag(flag) => flag.clone(),
                Origin::Env(var) => var.to_string(),
                Origin::File { path, line } => {
                    format!("{}:{line}: {}", path.display(), Key::NotifyWebhook.name())
                }
                Origin::Default => Key::NotifyWebhook.name().to_string(),
            };
            Err(Error::Config(format!("{place}: {message}")))
        }
    }
}

impl Settings {
    /// The bounds of a command's calls (concurrency, pace, budget, waiting, retries): built
    /// here only, so `screen` and `lookup` honour the same settings the same way.
    pub fn limits(&self) -> Limits {
        Limits {
            concurrency: self.concurrency.value,
            max_rps: self.max_rps.value,
            max_calls: self.max_calls.value,
            // Set by the run, which knows the month's calls so far.
            month_budget: None,
            max_wait: self.max_wait.value,
            max_silence: self.max_silence.value,
            retry: RetryPolicy {
                retries: self.retries.value,
                base_delay: self.retry_delay.value,
                ..RetryPolicy::default()
            },
        }
    }
}

/// An optional setting that nothing gave: unset, by default.
fn optional<T>(s: Option<Sourced<T>>) -> Sourced<Option<T>> {
    match s {
        Some(s) => s.map(Some),
        None => Sourced::by_default(None),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::{Cli, Command};
    use crate::connection::{ServiceSettings, ServiceTarget};

    /// The run settings of `ratewatch config FLAGS…`, parsed as the binary would.
    fn flags(flags: &[&str]) -> RunArgs {
        let argv = ["ratewatch", "config"].iter().chain(flags);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Config(args) => args.settings,
            other => panic!("{other:?}"),
        }
    }

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    const PATH_OF_FILE: &str = "/etc/ratewatch/ratewatch.toml";

    fn file(text: &str) -> Result<ConfigFile, Error> {
        ConfigFile::parse(Path::new(PATH_OF_FILE), FoundBy::Flag, text)
    }

    fn settings(args: &[&str], env: &[(&str, &str)], text: &str) -> Result<Settings, Error> {
        let sources = Sources::new(env_of(env), Some(file(text)?));
        Settings::for_run(&flags(args), &sources)
    }

    #[test]
    fn a_refresh_table_gives_an_age_per_color() {
        let text = "rating_max_age = 12\n[refresh]\ngreen = \"7d\"\nyellow = \"2d\"\nred = \"1w\"\nblack = \"36h\"\n";
        let s = settings(&[], &[], text).unwrap();
        let hours = jiff::SignedDuration::from_hours;
        assert_eq!(
            s.refresh,
            vec![
                (Color::Black, hours(36)),
                (Color::Green, hours(168)),
                (Color::Red, hours(168)),
                (Color::Yellow, hours(48)),
            ]
        );
        assert_eq!(s.rating_max_age_hours.value, 12);
        // No table: every color has rating_max_age.
        assert!(settings(&[], &[], "").unwrap().refresh.is_empty());
    }

    #[test]
    fn a_bad_refresh_age_or_an_unknown_color_names_the_file_line_and_key() {
        let message = |text: &str| match file(text) {
            Err(Error::Config(m)) => m,
            other => panic!("{other:?}"),
        };
        let m = message("quiet = true\n[refresh]\ngreen = \"7d\"\nyellow = \"2 days\"\n");
        assert!(
            m.starts_with(&format!("{PATH_OF_FILE}:4: [refresh] yellow:")),
            "{m}"
        );
        assert!(m.contains("\"12h\", \"2d\" or \"1w\""), "{m}");
        let m = message("[refresh]\nred = 1\n");
        assert!(
            m.starts_with(&format!("{PATH_OF_FILE}:2: [refresh] red:")),
            "{m}"
        );
        let m = message("[refresh]\ngreen = \"7d\"\n\ngrene = \"7d\"\n");
        assert!(
            m.starts_with(&format!(
                "{PATH_OF_FILE}:4: [refresh]: unknown color `grene`"
            )),
            "{m}"
        );
        let m = message("refresh = \"7d\"\n");
        assert!(
            m.starts_with(&format!("{PATH_OF_FILE}:1: `refresh` is a table")),
            "{m}"
        );
    }

    #[test]
    fn a_columns_table_maps_fields_to_headers_and_flags_win() {
        let text = "db = \"x.db\"\n[columns]\ncountry = \"Pays\"\nref = \"Référence client\"\n";
        let s = settings(&["--column", "country=Land"], &[], text).unwrap();
        assert_eq!(
            s.columns.0,
            vec![
                ("country".to_string(), "Pays".to_string()),
                ("ref".to_string(), "Référence client".to_string()),
                ("country".to_string(), "Land".to_string()),
            ]
        );
        let e = file("[columns]\nexposure = \"Encours\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(":2: [columns]") && e.contains("the fields are"),
            "{e}"
        );
        let e = file("columns = \"Pays\"\n").unwrap_err().to_string();
        assert!(e.contains("`columns` is a table"), "{e}");
    }

    #[test]
    fn precedence_is_flag_then_env_then_file_then_default() {
        let text = "concurrency = 16\nretries = 5\nmax_rps = 20\n";
        let env = [("RATEWATCH_CONCURRENCY", "32"), ("RATEWATCH_RETRIES", "7")];
        let file_at = |line| Origin::File {
            path: PathBuf::from(PATH_OF_FILE),
            line,
        };

        let s = settings(&[], &[], "").unwrap();
        assert_eq!(s.concurrency, Sourced::by_default(8));
        assert_eq!(s.stale_after_days, Sourced::by_default(30));
        assert_eq!(s.retries, Sourced::by_default(3));
        assert_eq!(s.max_rps, Sourced::by_default(None));

        let s = settings(&[], &[], text).unwrap();
        assert_eq!(
            (s.concurrency.value, s.concurrency.origin),
            (16, file_at(1))
        );
        assert_eq!(
            (s.max_rps.value, s.max_rps.origin),
            (Some(20.0), file_at(3))
        );

        let s = settings(&[], &env, text).unwrap();
        assert_eq!(
            (s.concurrency.value, s.concurrency.origin),
            (32, Origin::Env("RATEWATCH_CONCURRENCY"))
        );
        assert_eq!(s.retries.value, 7);
        assert_eq!(s.max_rps.origin, file_at(3));

        let s = settings(&["--concurrency", "64"], &env, text).unwrap();
        assert_eq!(
            (s.concurrency.value, s.concurrency.origin),
            (64, Origin::Flag("--concurrency".into()))
        );
        assert_eq!(s.retries.origin, Origin::Env("RATEWATCH_RETRIES"));
        assert_eq!(s.timeout, Sourced::by_default(Duration::from_secs(30)));
    }

    #[test]
    fn every_key_is_read_from_the_file_and_the_environment() {
        let text = "base_url = \"https://rating.example\"\napi_key_file = \"key\"\ntimeout = 12.5\n\
            connect_timeout = 3\ndb = \"/var/lib/rw.db\"\nout = \"reports\"\nconcurrency = 4\n\
            endpoint = \"deprecated\"\nresolution_max_age = 7\nrating_max_age = 12\nstale_after = 45\nretries = 1\nretry_delay_ms = 250\n\
            max_rps = 2.5\nmax_calls = 1000\nmax_calls_per_month = 50000\nmax_wait = 90\n\
            max_silence = 45\nmax_run_time = 3600\ndefault_country = \"fr\"\n\
            notify_webhook = \"https://hooks.example/in\"\nmetrics_file = \"ratewatch.prom\"\n\
            csv_dialect = \"excel\"\ntimestamped = true\nquiet = true\n";
        let s = settings(&[], &[], text).unwrap();
        assert_eq!(s.base_url.value.as_deref(), Some("https://rating.example"));
        // Relative paths are the file's folder's, not the working directory's.
        assert_eq!(
            s.api_key_file.value,
            Some(PathBuf::from("/etc/ratewatch/key"))
        );
        assert_eq!(s.out.value, PathBuf::from("/etc/ratewatch/reports"));
        assert_eq!(s.db.value, PathBuf::from("/var/lib/rw.db"));
        assert_eq!(s.timeout.value, Duration::from_millis(12_500));
        assert_eq!(s.connect_timeout.value, Duration::from_secs(3));
        assert_eq!(s.concurrency.value, 4);
        assert_eq!(s.endpoint.value, RatingEndpoint::Deprecated);
        assert_eq!(s.resolution_max_age_days.value, 7);
        assert_eq!(s.rating_max_age_hours.value, 12);
        assert_eq!(s.stale_after_days.value, 45);
        assert_eq!(s.retries.value, 1);
        assert_eq!(s.retry_delay.value, Duration::from_millis(250));
        assert_eq!(s.max_calls.value, Some(1000));
        assert_eq!(s.max_calls_per_month.value, Some(50_000));
        assert_eq!(s.max_wait.value, Duration::from_secs(90));
        assert_eq!(s.max_silence.value, Duration::from_secs(45));
        assert_eq!(s.max_run_time.value, Duration::from_secs(3600));
        assert_eq!(s.csv_dialect.value, Dialect::Excel);
        assert_eq!(s.default_country.value.as_deref(), Some("FR"));
        assert!(s.timestamped.value && s.quiet.value);
        for key in Key::ALL {
            let origin = match key {
                Key::BaseUrl => &s.base_url.origin,
                Key::ApiKeyFile => &s.api_key_file.origin,
                Key::Timeout => &s.timeout.origin,
                Key::ConnectTimeout => &s.connect_timeout.origin,
                Key::Db => &s.db.origin,
                Key::Out => &s.out.origin,
                Key::Concurrency => &s.concurrency.origin,
                Key::Endpoint => &s.endpoint.origin,
                Key::ResolutionMaxAge => &s.resolution_max_age_days.origin,
                Key::RatingMaxAge => &s.rating_max_age_hours.origin,
                Key::StaleAfter => &s.stale_after_days.origin,
                Key::Retries => &s.retries.origin,
                Key::RetryDelayMs => &s.retry_delay.origin,
                Key::MaxRps => &s.max_rps.origin,
                Key::MaxCalls => &s.max_calls.origin,
                Key::MaxCallsPerMonth => &s.max_calls_per_month.origin,
                Key::MaxWait => &s.max_wait.origin,
                Key::MaxSilence => &s.max_silence.origin,
                Key::MaxRunTime => &s.max_run_time.origin,
                Key::DefaultCountry => &s.default_country.origin,
                Key::NotifyWebhook => &s.notify_webhook.origin,
                Key::MetricsFile => &s.metrics_file.origin,
                Key::CsvDialect => &s.csv_dialect.origin,
                Key::Timestamped => &s.timestamped.origin,
                Key::Quiet => &s.quiet.origin,
            };
            assert_eq!(origin.kind(), "file", "{key:?}");
        }

        let env = [
            ("RATEWATCH_DB", "here.db"),
            ("RATEWATCH_OUT", "out"),
            ("RATEWATCH_ENDPOINT", "Current"),
            ("RATEWATCH_TIMEOUT", "1.5"),
            ("RATEWATCH_MAX_CALLS", "9"),
            ("RATEWATCH_MAX_CALLS_PER_MONTH", "90"),
            ("RATEWATCH_STALE_AFTER", "7"),
            ("RATEWATCH_CSV_DIALECT", "Standard"),
            ("RATEWATCH_QUIET", "false"),
        ];
        let s = settings(&[], &env, text).unwrap();
        // The environment's relative paths are the working directory's.
        assert_eq!(s.db.value, PathBuf::from("here.db"));
        assert_eq!(s.out.value, PathBuf::from("out"));
        assert_eq!(s.endpoint.value, RatingEndpoint::Current);
        assert_eq!(s.timeout.value, Duration::from_millis(1_500));
        assert_eq!(s.max_calls.value, Some(9));
        assert_eq!(s.max_calls_per_month.value, Some(90));
        assert_eq!(s.stale_after_days.value, 7);
        assert_eq!(s.csv_dialect.value, Dialect::Standard);
        assert_eq!(
            (s.quiet.value, s.quiet.origin),
            (false, Origin::Env("RATEWATCH_QUIET"))
        );
        assert!(s.timestamped.value, "from the file");
        let s = settings(&["--stale-after", "0"], &env, text).unwrap();
        assert_eq!(
            (s.stale_after_days.value, s.stale_after_days.origin),
            (0, Origin::Flag("--stale-after".into()))
        );
    }

    #[test]
    fn report_flags_win_over_the_file_and_their_absence_leaves_it_to_speak() {
        let screen = |args: &[&str], env: &[(&str, &str)], text: &str| {
            let argv = ["ratewatch", "screen", "book.csv"].iter().chain(args);
            let Command::Screen(args) = Cli::try_parse_from(argv).unwrap().command else {
                unreachable!()
            };
            let sources = Sources::new(env_of(env), Some(file(text).unwrap()));
            Settings::for_screen(&args, &sources)
        };
        let text = "quiet = false\ncsv_dialect = \"excel\"\ntimestamped = true\n";
        let s = screen(&[], &[], text).unwrap();
        assert!(!s.quiet.value && s.timestamped.value);
        assert_eq!(s.csv_dialect.value, Dialect::Excel);
        assert_eq!(s.quiet.origin.kind(), "file");
        let s = screen(&["--quiet", "--csv-dialect", "standard"], &[], text).unwrap();
        assert_eq!(
            (s.quiet.value, s.quiet.origin),
            (true, Origin::Flag("--quiet".into()))
        );
        assert_eq!(s.csv_dialect.value, Dialect::Standard);
        // A flag given, its bad variable is not read.
        let s = screen(&["--quiet"], &[("RATEWATCH_QUIET", "loud")], "").unwrap();
        assert!(s.quiet.value);
        let err = screen(&[], &[("RATEWATCH_QUIET", "loud")], "").unwrap_err();
        assert_eq!(
            err.to_string(),
            "RATEWATCH_QUIET: expected true or false, got \"loud\""
        );
        let s = screen(&[], &[], "").unwrap();
        assert_eq!(
            (s.quiet.value, s.timestamped.value, s.csv_dialect.value),
            (false, false, DEFAULT_CSV_DIALECT)
        );
    }

    #[test]
    fn an_unknown_key_names_the_file_the_line_and_the_key() {
        let err = file("db = \"x.db\"\n\nconcurency = 4\n").unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{PATH_OF_FILE}:3: unknown key `concurency`")),
            "{text}"
        );
        assert!(text.contains("did you mean `concurrency`?"), "{text}");
        assert!(matches!(err, Error::Config(_)));

        let err = file("[screen]\nconcurrency = 4\n").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{PATH_OF_FILE}:1: unknown key `screen`")),
            "{err}"
        );
    }

    #[test]
    fn a_bad_value_names_the_file_the_line_the_key_and_what_is_expected() {
        let cases = [
            (
                "concurrency = \"eight\"",
                "concurrency: expected a whole number from 1 to 1024, got \"eight\"",
            ),
            (
                "concurrency = 0",
                "concurrency: expected a whole number from 1 to 1024, got 0",
            ),
            (
                "timeout = -1",
                "timeout: expected a positive number of seconds, got -1",
            ),
            (
                "endpoint = \"newest\"",
                "endpoint: expected \"current\" or \"deprecated\", got \"newest\"",
            ),
            ("retries = 1.5", "retries: expected a whole number, got 1.5"),
            (
                "db = true",
                "db: expected a path, got a value of type boolean",
            ),
            (
                "stale_after = -1",
                "stale_after: expected a whole number of days, got -1",
            ),
            (
                "max_calls = -3",
                "max_calls: expected a whole number of calls, got -3",
            ),
            (
                "max_calls_per_month = 1.5",
                "max_calls_per_month: expected a whole number of calls, got 1.5",
            ),
            ("quiet = 1", "quiet: expected true or false, got 1"),
            (
                "timestamped = \"maybe\"",
                "timestamped: expected true or false, got \"maybe\"",
            ),
            (
                "csv_dialect = \"tsv\"",
                "csv_dialect: expected \"standard\" or \"excel\", got \"tsv\"",
            ),
            (
                "default_country = \"France\"",
                "default_country: expected a two-letter country code, e.g. FR, got \"France\"",
            ),
        ];
        for (line, message) in cases {
            let err = settings(&[], &[], &format!("# settings\n{line}\n"))
                .unwrap_err()
                .to_string();
            assert_eq!(err, format!("{PATH_OF_FILE}:2: {message}"));
        }
    }

    #[test]
    fn bad_flags_and_variables_name_themselves() {
        let err = settings(&["--timeout", "0"], &[], "")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--timeout: expected a positive number of seconds, got 0.0"
        );
        let err = settings(&[], &[("RATEWATCH_RETRY_DELAY_MS", "soon")], "")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "RATEWATCH_RETRY_DELAY_MS: expected a whole number of milliseconds, got \"soon\""
        );
        // A flag still wins over a bad variable: the variable is not read.
        let s = settings(
            &["--retry-delay-ms", "5"],
            &[("RATEWATCH_RETRY_DELAY_MS", "soon")],
            "",
        );
        assert_eq!(s.unwrap().retry_delay.value, Duration::from_millis(5));
    }

    #[test]
    fn a_webhook_that_is_not_http_names_its_source_and_never_its_secrets() {
        let bad = "ftp://user:s3cr3t@hooks.example/in?token=t0ken";
        let cases = [
            settings(&["--notify-webhook", bad], &[], ""),
            settings(&[], &[("RATEWATCH_NOTIFY_WEBHOOK", bad)], ""),
            settings(&[], &[], &format!("# hooks\nnotify_webhook = \"{bad}\"\n")),
            settings(&["--notify-webhook", "hooks.example/s3cr3t"], &[], ""),
        ];
        let places = [
            "--notify-webhook: ",
            "RATEWATCH_NOTIFY_WEBHOOK: ",
            &format!("{PATH_OF_FILE}:2: notify_webhook: "),
            "--notify-webhook: ",
        ];
        for (result, place) in cases.into_iter().zip(places) {
            let err = result.unwrap_err();
            assert!(matches!(err, Error::Config(_)));
            let text = err.to_string();
            assert!(text.starts_with(place), "{text}");
            assert!(text.contains("expected an http or https URL"), "{text}");
            assert!(
                !text.contains("s3cr3t") && !text.contains("t0ken"),
                "{text}"
            );
        }
        let good = "https://user:s3cr3t@hooks.example/in?token=t0ken";
        let s = settings(&[], &[("RATEWATCH_NOTIFY_WEBHOOK", good)], "").unwrap();
        assert_eq!(
            s.notify_webhook.value.as_ref().map(|u| u.redacted()),
            Some("https://***@hooks.example/in?token=***".to_string())
        );
        assert!(!format!("{s:?}").contains("s3cr3t"));
        let s = settings(&[], &[], "metrics_file = \"ratewatch.prom\"\n").unwrap();
        assert_eq!(
            s.metrics_file.value,
            Some(PathBuf::from("/etc/ratewatch/ratewatch.prom"))
        );
    }

    #[test]
    fn the_api_key_is_refused_in_the_file_without_echoing_it() {
        for text in [
            "api_key = \"s3cr3t-value\"",
            "key = \"s3cr3t-value\"",
            "apiKey = \"s3cr3t-value\"",
            "\"api-key\" = \"s3cr3t-value\"",
        ] {
            let err = file(&format!("db = \"x.db\"\n{text}\n"))
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(&format!("{PATH_OF_FILE}:2: `")), "{err}");
            assert!(
                err.contains("api_key_file") && err.contains(KEY_ENV),
                "{err}"
            );
            assert!(!err.contains("s3cr3t"), "{err}");
        }
        // Not even when the line is not valid TOML.
        let err = file("api_key = s3cr3t-value\n").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{PATH_OF_FILE}:1: not valid TOML")),
            "{err}"
        );
        assert!(!err.contains("s3cr3t"), "{err}");
    }

    #[test]
    fn the_help_shows_the_defaults_config_applies() {
        let mut cli = Cli::command();
        cli.build();
        let screen = cli.find_subcommand("screen").unwrap();
        let help = |id: &str| {
            let arg = screen.get_arguments().find(|a| a.get_id() == id).unwrap();
            assert!(
                arg.get_default_values().is_empty(),
                "{id} has a clap default"
            );
            arg.get_long_help()
                .or(arg.get_help())
                .map(|h| h.to_string().replace('\n', " "))
                .unwrap_or_default()
        };
        let expect = [
            ("db", DEFAULT_DB.to_string()),
            ("out", DEFAULT_OUT.to_string()),
            ("concurrency", DEFAULT_CONCURRENCY.to_string()),
            ("endpoint", "current".to_string()),
            (
                "resolution_max_age",
                DEFAULT_RESOLUTION_MAX_AGE_DAYS.to_string(),
            ),
            ("rating_max_age", DEFAULT_RATING_MAX_AGE_HOURS.to_string()),
            ("stale_after", DEFAULT_STALE_AFTER_DAYS.to_string()),
            ("retries", DEFAULT_RETRIES.to_string()),
            ("retry_delay_ms", DEFAULT_RETRY_DELAY_MS.to_string()),
            ("timeout", DEFAULT_TIMEOUT_SECS.to_string()),
            ("connect_timeout", DEFAULT_CONNECT_TIMEOUT_SECS.to_string()),
            ("max_wait", DEFAULT_MAX_WAIT_SECS.to_string()),
            ("max_silence", DEFAULT_MAX_SILENCE_SECS.to_string()),
            ("max_run_time", DEFAULT_MAX_RUN_TIME_SECS.to_string()),
            ("csv_dialect", "standard".to_string()),
        ];
        assert_eq!(DEFAULT_ENDPOINT, RatingEndpoint::Current);
        for (id, default) in expect {
            let text = help(id);
            assert!(
                text.contains(&format!("[default: {default}]")),
                "{id}: {text}"
            );
        }
    }

    fn service(args: &[&str], env: &[(&str, &str)]) -> Result<ServiceSettings, Error> {
        let sources = Sources::new(env_of(env), None);
        ServiceSettings::new(&Settings::for_run(&flags(args), &sources)?, &sources)
    }

    #[test]
    fn key_comes_from_the_environment_trimmed() {
        let s = service(
            &["--base-url", "https://example.invalid"],
            &[(KEY_ENV, " abc\n")],
        )
        .unwrap();
        match s.target {
            ServiceTarget::Remote {
                key: Some((key, KeySource::Env)),
                ..
            } => assert_eq!(key.expose(), "abc"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn key_file_wins_and_an_empty_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, "from-file\n").unwrap();
        let url = ("RATEWATCH_BASE_URL", "https://example.invalid");
        let file_var = ("RATEWATCH_API_KEY_FILE", path.to_str().unwrap());
        let s = service(&[], &[url, file_var, (KEY_ENV, "from-env")]).unwrap();
        match s.target {
            ServiceTarget::Remote {
                key: Some((key, KeySource::File(p))),
                ..
            } => {
                assert_eq!(key.expose(), "from-file");
                assert_eq!(p, path);
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&path, "  \n").unwrap();
        let err = service(&[], &[url, file_var]).unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let sources = Sources::new(env_of(&[(KEY_ENV, "s3cr3t-value")]), None);
        let settings = Settings::for_run(&flags(&["--base-url", "https://x.invalid"]), &sources);
        let service = ServiceSettings::new(settings.as_ref().unwrap(), &sources).unwrap();
        for text in [
            format!("{sources:?}"),
            format!("{settings:?}"),
            format!("{service:?}"),
        ] {
            assert!(!text.contains("s3cr3t"), "{text}");
        }
        assert!(
            format!("{service:?}").contains("Env"),
            "the key is there, redacted"
        );
    }

    #[test]
    fn no_base_url_and_no_demo_is_a_clear_error() {
        let err = service(&[], &[]).unwrap_err().to_string();
        assert!(
            err.contains("--base-url") && err.contains("--demo"),
            "{err}"
        );
        assert!(matches!(
            service(&["--demo"], &[]).unwrap().target,
            ServiceTarget::Demo
        ));
    }
}
