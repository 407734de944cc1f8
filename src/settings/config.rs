//! Settings, each defined once by its flag in `cli`: clap reads the flag, its `RATEWATCH_*`
//! variable and its default; `ratewatch.toml` comes between the variable and the default.
//! Each value knows where it came from, for `ratewatch config` and for an error that names
//! the flag, the variable or the file's line.
//!
//! The API key is never a flag nor a key of the file (a file of settings gets copied and
//! shared; a key must not travel with it): only `RATEWATCH_API_KEY`, or a file of its own
//! named by `api_key_file`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Command, FromArgMatches};
use serde::{Deserialize, Serialize, Serializer};

use crate::alerts::Rules;
use crate::api::{ApiKey, ClientOptions};
use crate::connection::{
    KeySource, ServiceSettings, ServiceTarget, read_key_file, read_secret_file,
};
use crate::deliver::email::{EmailSettings, Mailer, Password};
use crate::deliver::webhook::{self, Webhook, WebhookUrl};
use crate::error::Error;
use crate::links::PageUrl;
use crate::locale::{Locale, Reader, Zone};
use crate::model::Color;
use crate::report::csv::Dialect;
use crate::settings::cli::{
    QuietArgs, ReaderArgs, ReportFormatArgs, RunArgs, ScreenArgs, ServiceArgs,
};
use crate::stages::columns::ColumnMap;
use crate::stages::limit::{Limits, RetryPolicy};
use crate::stages::rate::RatingEndpoint;
use crate::text::{UrlPath, redacted_url};

/// The config file looked for in the working directory.
pub const CONFIG_FILE: &str = "ratewatch.toml";

pub use crate::connection::KEY_ENV;
use crate::settings::setting::from_clap;
pub use crate::settings::setting::{
    CALLS, CONCURRENCY, CONFIG_ENV, COUNT, COUNTRY, DAYS, DIALECT, ENDPOINT, Given, HOURS, Kind,
    MILLISECONDS, Origin, PATH, RPS, SECONDS, SWITCH, Sourced, URL, Value, WEBHOOK, mistake_in,
};
use crate::toml_table::Table;

impl<T: Value> Given<T> {
    /// The value in force: the flag's or the variable's, else the file's, else the default
    /// (`None`: unset).
    pub fn resolve_optional(&self, sources: &Sources) -> Result<Sourced<Option<T>>, Error> {
        let entry = sources
            .file
            .as_ref()
            .and_then(|f| Some((f, f.entries.get(&self.key)?)));
        let (Origin::Default, Some((file, (raw, line)))) = (&self.origin, entry) else {
            return Ok(Sourced {
                value: self.value.clone(),
                origin: self.origin.clone(),
            });
        };
        let origin = Origin::File {
            path: file.path.clone(),
            line: *line,
        };
        let Some(value) = T::from_toml(raw).and_then(|v| self.kind.check(v)) else {
            return Err(self.wrong(
                &origin,
                format!("expected {}, got {}", self.kind.expected, shown(raw)),
            ));
        };
        let folder = file.path.parent().unwrap_or(Path::new(""));
        Ok(Sourced {
            value: Some(value.in_folder(folder)),
            origin,
        })
    }

    /// The same for a setting with a default.
    pub fn resolve(&self, sources: &Sources) -> Result<Sourced<T>, Error> {
        Ok(self
            .resolve_optional(sources)?
            .map(|v| v.expect("a setting with a default")))
    }
}

/// A file's value as an error shows it; a switch's by its kind only.
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(x) => x.to_string(),
        other => format!("a value of type {}", other.type_str()),
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
    /// The settings, by key; a value is checked when its setting is read.
    entries: BTreeMap<String, (toml::Value, usize)>,
    /// `[columns]`: the portfolio's fields → the file's own headers.
    pub columns: ColumnMap,
    /// `[alerts]`: the alert rules (the defaults when the table is absent).
    pub alerts: Rules,
    /// `[refresh]`: how old a rating of each color may be and still be reused.
    pub refresh: Vec<(Color, jiff::SignedDuration)>,
    /// `[email]`, and the line of its header.
    pub email: Option<(EmailSettings, usize)>,
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
    #[serde(default)]
    email: Table,
}

impl ConfigFile {
    /// Checks the text of a config file: TOML, known keys only (a typo must not be
    /// silently ignored), and never the API key itself. Values are checked when read.
    pub fn parse(path: &Path, found_by: FoundBy, text: &str) -> Result<Self, Error> {
        let line = |span: &std::ops::Range<usize>| {
            text[..span.start.min(text.len())].matches('\n').count() + 1
        };
        let at = |(span, message): (std::ops::Range<usize>, String)| {
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
                "email" => {
                    "`email` is a table: [email] then smtp = \"smtp://…\", from, to, … lines"
                }
                _ => continue,
            };
            if !value.get_ref().is_table() {
                return Err(at((key.span(), shape.into())));
            }
        }
        let tables: Tables = toml::from_str(text).map_err(invalid)?;
        let known = keys();
        let mut file = ConfigFile {
            path: path.to_path_buf(),
            found_by,
            entries: BTreeMap::new(),
            columns: ColumnMap::default(),
            alerts: Rules::default(),
            refresh: Vec::new(),
            email: None,
        };
        let folder = path.parent().unwrap_or(Path::new(""));
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
                    file.refresh =
                        crate::stages::refresh::ages_from_table(&tables.refresh).map_err(at)?
                }
                "columns" => file.columns = ColumnMap::from_table(&tables.columns).map_err(at)?,
                "email" => {
                    let email = EmailSettings::from_table(&tables.email, span.clone(), folder);
                    file.email = Some((email.map_err(at)?, line(&span)));
                }
                _ if squeezed == "key" || squeezed == "apikey" => {
                    return Err(at((
                        span,
                        format!(
                            "`{name}`: the API key is never read from the config file; put it in a file of its own and name that file with `api_key_file = \"PATH\"`, or set {KEY_ENV}"
                        ),
                    )));
                }
                _ if known.contains(&name) => {
                    file.entries.insert(name, (value.into_inner(), line(&span)));
                }
                _ => {
                    let hint = closest(&name, &known)
                        .map(|k| format!(" (did you mean `{k}`?)"))
                        .unwrap_or_default();
                    let message = format!(
                        "unknown key `{name}`{hint}; the keys are {}",
                        known.join(", ")
                    );
                    return Err(at((span, message)));
                }
            }
        }
        Ok(file)
    }
}

/// The known key nearest to a misspelt one, if it is near enough to be the one meant.
fn closest<'k>(name: &str, known: &'k [String]) -> Option<&'k str> {
    let name = name.to_lowercase().replace('-', "_");
    known
        .iter()
        .map(|k| (crate::text::distance(&name, k), k.as_str()))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, k)| k)
}

/// The keys of ratewatch.toml: the settings `ratewatch config` shows, in its order.
pub fn keys() -> Vec<String> {
    match serde_json::to_value(Settings::default()) {
        Ok(serde_json::Value::Object(fields)) => fields.into_iter().map(|(k, _)| k).collect(),
        _ => unreachable!("settings serialize as a map"),
    }
}

/// Where settings come from besides a command's own flags: the config file, the API key,
/// the options every command takes, and what the machine says of its reader.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// [`KEY_ENV`], an [`ApiKey`] so that `Debug` never shows it.
    env_key: Option<ApiKey>,
    pub file: Option<ConfigFile>,
    /// `--locale` and `--time-zone`, given before or after any command.
    reader_flags: Option<ReaderArgs>,
    /// The language and zone the machine's variables give, when no setting does.
    machine_locale: Sourced<Locale>,
    machine_zone: Sourced<Zone>,
}

impl Sources {
    /// The alert rules of the config file, or the defaults.
    pub fn alert_rules(&self) -> Rules {
        self.file
            .as_ref()
            .map(|f| f.alerts.clone())
            .unwrap_or_default()
    }

    /// Reads the key (through `env`, injectable for tests) and the config file: `--config
    /// PATH` or `RATEWATCH_CONFIG`, else `ratewatch.toml` in the working directory if there
    /// is one. A file named explicitly must exist.
    pub fn load(
        config: Option<&Given<PathBuf>>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, Error> {
        let named = config.and_then(|c| {
            let found_by = match c.origin {
                Origin::Flag(_) => FoundBy::Flag,
                _ => FoundBy::Env,
            };
            Some((c.value.clone()?, found_by))
        });
        let (path, found_by) = named.unwrap_or((CONFIG_FILE.into(), FoundBy::WorkingDirectory));
        let file = match std::fs::read_to_string(&path) {
            Ok(text) => Some(ConfigFile::parse(&path, found_by, &text)?),
            Err(e) if found_by == FoundBy::WorkingDirectory => match e.kind() {
                std::io::ErrorKind::NotFound => None,
                _ => {
                    let message = format!("cannot read the config file {CONFIG_FILE}: {e}");
                    return Err(Error::Config(message));
                }
            },
            Err(e) => {
                return Err(Error::Config(format!(
                    "cannot read the config file {} (given by {found_by}): {e}",
                    path.display()
                )));
            }
        };
        let key = env(KEY_ENV).filter(|k| !k.trim().is_empty());
        let from = |var: Option<&str>| var.map_or(Origin::Default, |v| Origin::Env(v.into()));
        let (locale, locale_var) = Locale::of_environment(&env);
        let (zone, zone_var) = Zone::of_machine(&env);
        Ok(Sources {
            env_key: key.map(|k| ApiKey::new(k.trim())),
            file,
            reader_flags: None,
            machine_locale: Sourced {
                value: locale,
                origin: from(locale_var),
            },
            machine_zone: Sourced {
                value: zone,
                origin: from(zone_var),
            },
        })
    }

    /// The same with `--locale` and `--time-zone` as the command line gave them.
    pub fn with_reader(self, flags: ReaderArgs) -> Self {
        Sources {
            reader_flags: Some(flags),
            ..self
        }
    }

    /// The reader's language and time zone, each with where it came from: a flag, its
    /// variable, the file, else what the machine's variables say (`LANG`, `TZ`), else
    /// English and the machine's zone.
    pub fn reader_settings(&self) -> Result<(Sourced<Locale>, Sourced<Zone>), Error> {
        let flags = match &self.reader_flags {
            Some(flags) => flags.clone(),
            None => unflagged::<ReaderArgs>()?,
        };
        fn or<T: Value>(given: Sourced<Option<T>>, machine: &Sourced<T>) -> Sourced<T> {
            match given.value {
                Some(value) => Sourced {
                    value,
                    origin: given.origin,
                },
                None => machine.clone(),
            }
        }
        Ok((
            or(flags.locale.resolve_optional(self)?, &self.machine_locale),
            or(flags.time_zone.resolve_optional(self)?, &self.machine_zone),
        ))
    }

    /// The reader, for a command that reads no other setting.
    pub fn reader(&self) -> Result<Reader, Error> {
        let (locale, zone) = self.reader_settings()?;
        Ok(Reader {
            locale: locale.value,
            zone: zone.value,
        })
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

/// Settings a command has no flags for: their variables, else the file, else the defaults.
fn unflagged<A: Args + FromArgMatches>() -> Result<A, Error> {
    let cmd = A::augment_args(Command::new("ratewatch"));
    A::from_arg_matches(&cmd.try_get_matches_from(["ratewatch"]).map_err(from_clap)?)
        .map_err(from_clap)
}

/// Every setting at its default, as its flag defines it: what the libraries' own defaults
/// (limits, timeouts) are.
pub fn defaults() -> Settings {
    fn bare<A: Args + FromArgMatches>() -> A {
        let cmd = A::augment_args(Command::new("ratewatch")).mut_args(|a| a.env(None::<&str>));
        let matches = cmd.try_get_matches_from(["ratewatch"]);
        A::from_arg_matches(&matches.expect("the defaults read")).expect("the defaults read")
    }
    let run: RunArgs = bare();
    let (reports, quiet): (ReportFormatArgs, QuietArgs) = (bare(), bare());
    Settings::resolve(
        &run.service_args,
        &run,
        &reports,
        &quiet.quiet,
        &Sources::default(),
    )
    .expect("the defaults are valid")
}

/// As the flags define them: the defaults are the flags', which only this module reads.
impl Default for Limits {
    fn default() -> Self {
        defaults().limits()
    }
}

/// As the `--timeout` and `--connect-timeout` flags define them.
impl Default for ClientOptions {
    fn default() -> Self {
        let settings = defaults();
        ClientOptions {
            timeout: settings.timeout.value,
            connect_timeout: settings.connect_timeout.value,
        }
    }
}

/// Every setting of a screening run, each with where it came from: what `screen` uses and
/// `ratewatch config` shows, in this order; its keys are ratewatch.toml's.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Settings {
    /// `--demo`: the embedded simulator; the base URL and the key are not used.
    #[serde(skip)]
    pub demo: bool,
    #[serde(serialize_with = "url")]
    pub base_url: Sourced<Option<String>>,
    #[serde(serialize_with = "optional_path")]
    pub api_key_file: Sourced<Option<PathBuf>>,
    #[serde(serialize_with = "seconds")]
    pub timeout: Sourced<Duration>,
    #[serde(serialize_with = "seconds")]
    pub connect_timeout: Sourced<Duration>,
    #[serde(serialize_with = "path")]
    pub db: Sourced<PathBuf>,
    #[serde(serialize_with = "path")]
    pub out: Sourced<PathBuf>,
    pub keep_reports_days: Sourced<u32>,
    pub keep_run_details_days: Sourced<u32>,
    pub concurrency: Sourced<usize>,
    pub endpoint: Sourced<RatingEndpoint>,
    #[serde(rename = "resolution_max_age")]
    pub resolution_max_age_days: Sourced<u32>,
    #[serde(rename = "rating_max_age")]
    pub rating_max_age_hours: Sourced<u32>,
    #[serde(rename = "stale_after")]
    pub stale_after_days: Sourced<u32>,
    pub retries: Sourced<u32>,
    pub retry_delay_ms: Sourced<u64>,
    pub max_rps: Sourced<Option<f64>>,
    pub max_calls: Sourced<Option<u64>>,
    pub max_calls_per_month: Sourced<Option<u64>>,
    #[serde(serialize_with = "seconds")]
    pub max_wait: Sourced<Duration>,
    #[serde(serialize_with = "seconds")]
    pub max_silence: Sourced<Duration>,
    #[serde(serialize_with = "seconds")]
    pub max_run_time: Sourced<Duration>,
    /// The portfolio's fields → the file's own headers: `[columns]` in the file, then
    /// `--column` flags (a flag wins over the file for the same field).
    #[serde(skip)]
    pub columns: ColumnMap,
    pub default_country: Sourced<Option<String>>,
    #[serde(serialize_with = "webhook")]
    pub notify_webhook: Sourced<Option<WebhookUrl>>,
    pub webhook_format: Sourced<webhook::Format>,
    #[serde(serialize_with = "optional_path")]
    pub webhook_secret_file: Sourced<Option<PathBuf>>,
    #[serde(serialize_with = "optional_path")]
    pub metrics_file: Sourced<Option<PathBuf>>,
    /// Where `ratewatch serve` is reached: the messages and report.html link to its pages.
    #[serde(serialize_with = "page")]
    pub page_url: Sourced<Option<PageUrl>>,
    /// `[alerts]` of the config file.
    #[serde(skip)]
    pub alerts: Rules,
    /// `[refresh]` of the config file: the refresh age of each color it names (the others
    /// have `rating_max_age_hours`).
    #[serde(skip)]
    pub refresh: Vec<(Color, jiff::SignedDuration)>,
    /// `[email]` of the config file: shown apart by `ratewatch config`, its password never.
    #[serde(skip)]
    pub email: Sourced<Option<EmailSettings>>,
    pub csv_dialect: Sourced<Dialect>,
    pub timestamped: Sourced<bool>,
    pub quiet: Sourced<bool>,
    /// The language of what people read; files for programs stay in English.
    pub locale: Sourced<Locale>,
    /// The time zone of the times people read; files for programs keep UTC.
    pub time_zone: Sourced<Zone>,
}

/// `serialize_with` functions: a value as `ratewatch config` shows it, as the file would
/// spell it, and a URL without what may be a secret in it.
macro_rules! shown {
    ($($name:ident($t:ty) = $show:expr;)*) => {$(
        fn $name<S: Serializer>(s: &Sourced<$t>, to: S) -> Result<S::Ok, S::Error> {
            let show: fn(&$t) -> _ = $show;
            Sourced { value: show(&s.value), origin: s.origin.clone() }.serialize(to)
        }
    )*};
}
shown! {
    seconds(Duration) = Duration::as_secs_f64;
    path(PathBuf) = |p| p.display().to_string();
    optional_path(Option<PathBuf>) = |p| p.as_ref().map(|p| p.display().to_string());
    url(Option<String>) = |u| u.as_deref().map(|u| redacted_url(u, UrlPath::Whole));
    webhook(Option<WebhookUrl>) = |u| u.as_ref().map(WebhookUrl::redacted);
    page(Option<PageUrl>) = |u| u.as_ref().map(PageUrl::to_string);
}

impl Settings {
    /// Settings of `config`: a screening run's, the report settings without their flags.
    pub fn for_run(args: &RunArgs, sources: &Sources) -> Result<Self, Error> {
        let quiet = unflagged::<QuietArgs>()?.quiet;
        Self::resolve(&args.service_args, args, &unflagged()?, &quiet, sources)
    }

    /// Settings of `screen`, its report flags included.
    pub fn for_screen(args: &ScreenArgs, sources: &Sources) -> Result<Self, Error> {
        let run = &args.settings;
        Self::resolve(
            &run.service_args,
            run,
            &args.reports,
            &args.quiet.quiet,
            sources,
        )
    }

    /// Settings of a command that only talks to the service (the run's settings are still
    /// read: a bad file or variable is reported whichever command reads it).
    pub fn for_service(args: &ServiceArgs, sources: &Sources) -> Result<Self, Error> {
        let (run, quiet) = (unflagged::<RunArgs>()?, unflagged::<QuietArgs>()?.quiet);
        Self::resolve(args, &run, &unflagged()?, &quiet, sources)
    }

    fn resolve(
        service: &ServiceArgs,
        run: &RunArgs,
        reports: &ReportFormatArgs,
        quiet: &Given<bool>,
        s: &Sources,
    ) -> Result<Self, Error> {
        if service.demo
            && let Some(flag) = service.base_url.flag().or(service.api_key_file.flag())
        {
            return Err(Error::Config(format!(
                "the argument '--demo' cannot be used with '{flag}'"
            )));
        }
        let seconds = |g: &Given<f64>| Ok::<_, Error>(g.resolve(s)?.map(Duration::from_secs_f64));
        let notify_webhook = parsed(&run.notify_webhook, s, WebhookUrl::parse)?;
        let page_url = parsed(&reports.page_url, s, PageUrl::parse)?;
        let (locale, time_zone) = s.reader_settings()?;
        Ok(Settings {
            demo: service.demo,
            base_url: service.base_url.resolve_optional(s)?,
            api_key_file: service.api_key_file.resolve_optional(s)?,
            timeout: seconds(&service.timeout)?,
            connect_timeout: seconds(&service.connect_timeout)?,
            db: run.db.resolve(s)?,
            out: run.out.resolve(s)?,
            keep_reports_days: run.keep_reports_days.resolve(s)?,
            keep_run_details_days: run.keep_run_details_days.resolve(s)?,
            concurrency: run.concurrency.resolve(s)?.map(usize::from),
            endpoint: run.endpoint.resolve(s)?,
            resolution_max_age_days: run.resolution_max_age.resolve(s)?,
            rating_max_age_hours: run.rating_max_age.resolve(s)?,
            stale_after_days: run.stale_after.resolve(s)?,
            retries: run.retries.resolve(s)?,
            retry_delay_ms: run.retry_delay_ms.resolve(s)?,
            max_rps: run.max_rps.resolve_optional(s)?,
            max_calls: run.max_calls.resolve_optional(s)?,
            max_calls_per_month: run.max_calls_per_month.resolve_optional(s)?,
            max_wait: seconds(&run.max_wait)?,
            max_silence: seconds(&run.max_silence)?,
            max_run_time: seconds(&run.max_run_time)?,
            columns: ColumnMap(
                s.file
                    .iter()
                    .flat_map(|f| f.columns.0.iter().cloned())
                    .chain(run.column.iter().cloned())
                    .collect(),
            ),
            default_country: run.default_country.resolve_optional(s)?,
            notify_webhook,
            webhook_format: run.webhook_format.resolve(s)?,
            webhook_secret_file: run.webhook_secret_file.resolve_optional(s)?,
            metrics_file: run.metrics_file.resolve_optional(s)?,
            page_url,
            alerts: s.alert_rules(),
            refresh: s
                .file
                .as_ref()
                .map(|f| f.refresh.clone())
                .unwrap_or_default(),
            email: match s.file.as_ref().and_then(|f| Some((f, f.email.as_ref()?))) {
                Some((file, (email, line))) => Sourced {
                    value: Some(email.clone()),
                    origin: Origin::File {
                        path: file.path.clone(),
                        line: *line,
                    },
                },
                None => Sourced::default(),
            },
            csv_dialect: reports.dialect.csv_dialect.resolve(s)?,
            timestamped: reports.timestamped.resolve(s)?,
            quiet: quiet.resolve(s)?,
            locale,
            time_zone,
        })
    }

    /// The reader the settings name.
    pub fn reader(&self) -> Reader {
        Reader {
            locale: self.locale.value,
            zone: self.time_zone.value.clone(),
        }
    }

    /// Where a run's message goes (`notify_webhook`), in which format, signed with the
    /// secret of `webhook_secret_file` (read now: a file that cannot be read stops the
    /// command before anything is done). None without a URL.
    pub fn webhook(&self) -> Result<Option<Webhook>, Error> {
        let Some(url) = &self.notify_webhook.value else {
            // A secret for no webhook is likely a webhook forgotten: said, never silent.
            if self.webhook_secret_file.value.is_some() {
                tracing::warn!(
                    "webhook_secret_file is set but notify_webhook is not: no webhook is sent"
                );
            }
            return Ok(None);
        };
        let secret = match &self.webhook_secret_file.value {
            Some(path) => Some(webhook::Secret::new(read_secret_file(
                path,
                "webhook secret file",
            )?)),
            None => None,
        };
        Ok(Some(Webhook {
            url: url.clone(),
            format: self.webhook_format.value,
            secret,
            policy: Default::default(),
        }))
    }

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
                base_delay: Duration::from_millis(self.retry_delay_ms.value),
                max_delay: RetryPolicy::MAX_DELAY,
            },
        }
    }
}

impl ReportFormatArgs {
    /// `page_url`, checked: for `report`, which reads it without the rest of a run's
    /// settings.
    pub fn page_url(&self, sources: &Sources) -> Result<Option<PageUrl>, Error> {
        Ok(parsed(&self.page_url, sources, PageUrl::parse)?.value)
    }
}

/// A text setting read as the value `parse` makes of it; a value it refuses is an error
/// naming the flag, the variable or the file's line.
fn parsed<T>(
    given: &Given<String>,
    sources: &Sources,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Sourced<Option<T>>, Error> {
    let text = given.resolve_optional(sources)?;
    let value = match &text.value {
        None => None,
        Some(text_value) => Some(parse(text_value).map_err(|m| given.wrong(&text.origin, m))?),
    };
    Ok(Sourced {
        value,
        origin: text.origin,
    })
}

/// Built here: the settings and the key's sources are this module's to read.
impl ServiceSettings {
    /// The service to talk to: the simulator with `--demo`, else the base URL with the key
    /// from `api_key_file` or [`KEY_ENV`] (never from a flag, which `ps` would show).
    pub fn new(settings: &Settings, sources: &Sources) -> Result<Self, Error> {
        let client = ClientOptions {
            timeout: settings.timeout.value,
            connect_timeout: settings.connect_timeout.value,
        };
        let target = if settings.demo {
            ServiceTarget::Demo
        } else {
            let Some(base_url) = settings.base_url.value.clone() else {
                return Err(Error::Config(format!(
                    "no service address: pass --base-url URL (or set RATEWATCH_BASE_URL, or `base_url` in {CONFIG_FILE}) for a real environment, or --demo for the embedded simulator"
                )));
            };
            let key = sources.api_key(&settings.api_key_file)?;
            ServiceTarget::Remote { base_url, key }
        };
        Ok(ServiceSettings {
            target,
            client,
            demo_days: Vec::new(),
        })
    }
}

/// Built here: the password's file is this module's to read, as the key's.
impl Mailer {
    /// What sends the run's email, when `[email]` asks for one: its password read now, so
    /// that a file missing or empty stops the command before any run.
    pub fn of(settings: &Settings) -> Result<Option<Mailer>, Error> {
        let Some(email) = &settings.email.value else {
            return Ok(None);
        };
        let password = match &email.password_file {
            Some(path) => Some(Password::from_file_text(&read_secret_file(
                path,
                "SMTP password file",
            )?)),
            None => None,
        };
        Ok(Some(Mailer::new(email.clone(), password)))
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use clap::builder::TypedValueParser;
    use clap::parser::ValueSource;
    use clap::{Arg, Parser};
    use serde_json::json;

    use super::*;
    use crate::settings::cli::Cli;

    const PATH_OF_FILE: &str = "/etc/ratewatch/ratewatch.toml";

    fn file(text: &str) -> Result<ConfigFile, Error> {
        ConfigFile::parse(Path::new(PATH_OF_FILE), FoundBy::Flag, text)
    }

    fn with_file(text: &str) -> Result<Sources, Error> {
        let file = Some(file(text)?);
        Ok(Sources {
            file,
            ..Sources::default()
        })
    }

    /// The run settings of `ratewatch config FLAGS…`, parsed as the binary parses them.
    fn flags(flags: &[&str]) -> Result<RunArgs, Error> {
        let argv = ["ratewatch", "config"].iter().chain(flags);
        match Cli::try_parse_from(argv).map_err(from_clap)?.command {
            crate::settings::cli::Command::Config(args) => Ok(args.settings),
            other => panic!("{other:?}"),
        }
    }

    fn settings(args: &[&str], text: &str) -> Result<Settings, Error> {
        Settings::for_run(&flags(args)?, &with_file(text)?)
    }

    /// A variable's text as clap hands it to its setting's parser (default: 30).
    fn variable<T: Value>(
        kind: &'static Kind<T>,
        var: &'static str,
        text: &str,
    ) -> Result<Given<T>, Error> {
        let arg = Arg::new("setting").env(var).default_value("30");
        let cmd = Command::new("ratewatch").arg(arg.clone());
        kind.parse_ref_(&cmd, Some(&arg), OsStr::new(text), ValueSource::EnvVariable)
            .map_err(from_clap)
    }

    fn shown(s: &Settings) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::to_value(s) {
            Ok(serde_json::Value::Object(shown)) => shown,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn precedence_is_flag_then_env_then_file_then_default() {
        let text = "concurrency = 16\nretries = 5\n";
        let file_at = |line| Origin::File {
            path: PATH_OF_FILE.into(),
            line,
        };
        let s = settings(&[], "").unwrap();
        assert_eq!(
            (s.concurrency.value, s.concurrency.origin),
            (8, Origin::Default)
        );
        let s = settings(&[], text).unwrap();
        assert_eq!(
            (s.concurrency.value, s.concurrency.origin),
            (16, file_at(1))
        );
        let mut run = flags(&[]).unwrap();
        run.concurrency = variable(&CONCURRENCY, "RATEWATCH_CONCURRENCY", "32").unwrap();
        let s = Settings::for_run(&run, &with_file(text).unwrap()).unwrap();
        let env = Origin::Env("RATEWATCH_CONCURRENCY".into());
        assert_eq!((s.concurrency.value, s.concurrency.origin), (32, env));
        assert_eq!(s.retries.origin, file_at(2));
        let s = settings(&["--concurrency", "64"], text).unwrap();
        let flag = Origin::Flag("--concurrency".into());
        assert_eq!((s.concurrency.value, s.concurrency.origin), (64, flag));
        // A flag wins over a bad value in the file, which is then not read.
        assert!(settings(&["--timeout", "2"], "timeout = \"soon\"\n").is_ok());
    }

    #[test]
    fn every_key_is_read_from_the_file_and_shown_in_its_order() {
        let text = "base_url = \"https://rating.example\"\napi_key_file = \"key\"\ntimeout = 12.5\n\
            connect_timeout = 3\ndb = \"/var/lib/rw.db\"\nout = \"reports\"\nkeep_reports_days = 30\n\
            keep_run_details_days = 120\nconcurrency = 4\nendpoint = \"deprecated\"\nresolution_max_age = 7\nrating_max_age = 12\n\
            stale_after = 45\nretries = 1\nretry_delay_ms = 250\nmax_rps = 2.5\nmax_calls = 1000\n\
            max_calls_per_month = 50000\nmax_wait = 90\nmax_silence = 45\nmax_run_time = 3600\n\
            default_country = \"fr\"\nnotify_webhook = \"https://hooks.example/in\"\n\
            webhook_format = \"teams\"\nwebhook_secret_file = \"hook.secret\"\n\
            metrics_file = \"ratewatch.prom\"\npage_url = \"https://credit.example/rw\"\n\
            csv_dialect = \"excel\"\ntimestamped = true\nquiet = true\nlocale = \"FR\"\n\
            time_zone = \"europe/paris\"\n";
        let shown = shown(&settings(&[], text).unwrap());
        // Relative paths are the file's folder's, not the working directory's.
        let expected = json!({
            "base_url": "https://rating.example/", "api_key_file": "/etc/ratewatch/key",
            "timeout": 12.5, "connect_timeout": 3.0, "db": "/var/lib/rw.db",
            "out": "/etc/ratewatch/reports", "keep_reports_days": 30,
            "keep_run_details_days": 120, "concurrency": 4,
            "endpoint": "deprecated",
            "resolution_max_age": 7, "rating_max_age": 12, "stale_after": 45, "retries": 1,
            "retry_delay_ms": 250, "max_rps": 2.5, "max_calls": 1000,
            "max_calls_per_month": 50000, "max_wait": 90.0, "max_silence": 45.0,
            "max_run_time": 3600.0, "default_country": "FR",
            "notify_webhook": "https://hooks.example/…",
            "webhook_format": "teams", "webhook_secret_file": "/etc/ratewatch/hook.secret",
            "metrics_file": "/etc/ratewatch/ratewatch.prom",
            "page_url": "https://credit.example/rw/", "csv_dialect": "excel",
            "timestamped": true, "quiet": true, "locale": "fr", "time_zone": "Europe/Paris",
        });
        let values: serde_json::Map<_, _> = shown
            .iter()
            .map(|(k, s)| (k.clone(), s["value"].clone()))
            .collect();
        assert_eq!(serde_json::Value::Object(values), expected);
        assert_eq!(shown.keys().cloned().collect::<Vec<_>>(), keys());
        for (key, setting) in shown {
            let from = setting["from"].as_str().unwrap();
            assert!(
                from.starts_with(&format!("file {PATH_OF_FILE}:")),
                "{key}: {from}"
            );
        }
    }

    #[test]
    fn a_variable_is_trimmed_a_blank_one_is_unset_and_a_bad_one_is_named() {
        let given = variable(&DAYS, "RATEWATCH_STALE_AFTER", " 7 ").unwrap();
        let env = Origin::Env("RATEWATCH_STALE_AFTER".into());
        assert_eq!((given.value, given.origin), (Some(7), env));
        let given = variable(&DAYS, "RATEWATCH_STALE_AFTER", "  ").unwrap();
        assert_eq!((given.value, given.origin), (Some(30), Origin::Default));
        let given = variable(&ENDPOINT, "RATEWATCH_ENDPOINT", "Current").unwrap();
        assert_eq!(given.value, Some(RatingEndpoint::Current));
        let given = variable(&COUNTRY, "RATEWATCH_DEFAULT_COUNTRY", " fr").unwrap();
        assert_eq!(given.value.as_deref(), Some("FR"));
        for (text, value) in [("false", false), ("1", true), ("TRUE", true), ("0", false)] {
            assert_eq!(
                variable(&SWITCH, "RATEWATCH_QUIET", text).unwrap().value,
                Some(value)
            );
        }
        for (result, message) in [
            (
                variable(&SWITCH, "RATEWATCH_QUIET", "loud").map(|_| ()),
                "RATEWATCH_QUIET: expected true or false, got \"loud\"",
            ),
            (
                variable(&MILLISECONDS, "RATEWATCH_RETRY_DELAY_MS", "soon").map(|_| ()),
                "RATEWATCH_RETRY_DELAY_MS: expected a whole number of milliseconds, got \"soon\"",
            ),
            (
                variable(&CONCURRENCY, "RATEWATCH_CONCURRENCY", "0").map(|_| ()),
                "RATEWATCH_CONCURRENCY: expected a whole number from 1 to 1024, got \"0\"",
            ),
        ] {
            assert_eq!(result.unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn a_bad_flag_names_itself() {
        let message = |args: &[&str]| flags(args).unwrap_err().to_string();
        let timeout = message(&["--timeout", "0"]);
        assert_eq!(
            timeout,
            "--timeout: expected a positive number of seconds, got 0.0"
        );
        let country = message(&["--default-country", "France"]);
        let expected =
            "--default-country: expected a two-letter country code, e.g. FR, got \"FRANCE\"";
        assert_eq!(country, expected);
        // A mistyped flag is clap's to word.
        assert!(message(&["--retries", "x"]).contains("invalid value 'x' for '--retries <N>'"));
    }

    #[test]
    fn a_color_given_two_ages_under_two_names_is_a_mistake_at_the_second() {
        let text = "# settings\n[refresh]\nred = \"1d\"\nrouge = \"2d\"\n";
        let err = settings(&[], text).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{PATH_OF_FILE}:4: [refresh] rouge: this color has an age already"
            )),
            "{err}"
        );
        let text = "# settings\n[refresh]\nred = \"1d\"\nyellow = \"2d\"\n";
        assert!(settings(&[], text).is_ok());
    }

    #[test]
    fn a_file_mistake_names_the_file_the_line_the_key_and_what_is_expected() {
        // One case a line: the file's second line, then what the error says after its place.
        let cases = r#"concurrency = "eight" → concurrency: expected a whole number from 1 to 1024, got "eight"
concurrency = 0 → concurrency: expected a whole number from 1 to 1024, got 0
timeout = -1 → timeout: expected a positive number of seconds, got -1
endpoint = "newest" → endpoint: expected "current" or "deprecated", got "newest"
retries = 1.5 → retries: expected a whole number, got 1.5
db = true → db: expected a path, got a value of type boolean
stale_after = -1 → stale_after: expected a whole number of days, got -1
keep_reports_days = "3 months" → keep_reports_days: expected a whole number of days, got "3 months"
max_calls = -3 → max_calls: expected a whole number of calls, got -3
quiet = 1 → quiet: expected true or false, got 1
timestamped = "maybe" → timestamped: expected true or false, got "maybe"
csv_dialect = "tsv" → csv_dialect: expected "standard" or "excel", got "tsv"
default_country = "France" → default_country: expected a two-letter country code, e.g. FR, got "France"
concurency = 4 → unknown key `concurency` (did you mean `concurrency`?); the keys are base_url, api_key_file, timeout, connect_timeout, db, out, keep_reports_days, keep_run_details_days, concurrency, endpoint, resolution_max_age, rating_max_age, stale_after, retries, retry_delay_ms, max_rps, max_calls, max_calls_per_month, max_wait, max_silence, max_run_time, default_country, notify_webhook, webhook_format, webhook_secret_file, metrics_file, page_url, csv_dialect, timestamped, quiet
[screen] → unknown key `screen`; the keys are base_url,
refresh = "7d" → `refresh` is a table: [refresh] then color = "7d" lines
[refresh]\nyellow = "2 days" → [refresh] yellow: expected an age like "12h", "2d" or "1w"
[refresh]\ngrene = "7d" → [refresh]: unknown color `grene`
[columns]\nexposure = "E" → [columns]: "exposure" is not a field of a portfolio
[alerts]\nrepeat = "monthly" → [alerts] repeat: expected "never", "weekly" or "daily"
email = "team@example.com" → `email` is a table: [email] then smtp = "smtp://…", from, to, … lines
[email]\nstarttls = "always" → [email] starttls: expected "required", "opportunistic" or "never"
[email]\npassword = "s3cr3t" → [email] password: the password is never read from the config file; put it alone in a file
[email]\nsender = "x" → [email]: unknown key `sender`; the keys are smtp, from, to, starttls, username, password_file"#;
        for case in cases.lines() {
            let (line, message) = case.split_once(" → ").unwrap();
            let (text, at) = match line.split_once("\\n") {
                Some((table, line)) => (format!("# settings\n{table}\n{line}\n"), 3),
                None => (format!("# settings\n{line}\n"), 2),
            };
            let err = settings(&[], &text).unwrap_err().to_string();
            let start = format!("{PATH_OF_FILE}:{at}: {message}");
            assert!(err.starts_with(&start), "{err}");
        }
    }

    #[test]
    fn the_api_key_is_refused_in_the_file_without_echoing_it() {
        for text in [
            "api_key = \"s3cr3t\"",
            "key = \"s3cr3t\"",
            "apiKey = \"s3cr3t\"",
            "\"api-key\" = \"s3cr3t\"",
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
        let err = file("api_key = s3cr3t\n").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{PATH_OF_FILE}:1: not valid TOML")),
            "{err}"
        );
        assert!(!err.contains("s3cr3t"), "{err}");
    }

    #[test]
    fn a_webhook_that_is_not_http_names_its_source_and_never_its_secrets() {
        let bad = "ftp://user:s3cr3t@hooks.example/in?token=t0ken";
        let mut run = flags(&[]).unwrap();
        run.notify_webhook = variable(&WEBHOOK, "RATEWATCH_NOTIFY_WEBHOOK", bad).unwrap();
        let cases = [
            (
                settings(&["--notify-webhook", bad], ""),
                "--notify-webhook: ",
            ),
            (
                Settings::for_run(&run, &Sources::default()),
                "RATEWATCH_NOTIFY_WEBHOOK: ",
            ),
            (
                settings(&[], &format!("\nnotify_webhook = \"{bad}\"\n")),
                "/etc/ratewatch/ratewatch.toml:2: notify_webhook: ",
            ),
            (
                settings(&["--notify-webhook", "hooks.example/s3cr3t"], ""),
                "--notify-webhook: ",
            ),
        ];
        for (result, place) in cases {
            let text = result.unwrap_err().to_string();
            assert!(text.starts_with(place), "{text}");
            assert!(text.contains("expected an http or https URL"), "{text}");
            assert!(
                !text.contains("s3cr3t") && !text.contains("t0ken"),
                "{text}"
            );
        }
        let good = "https://user:s3cr3t@hooks.example/in?token=t0ken";
        let s = settings(&["--notify-webhook", good], "").unwrap();
        let shown = shown(&s)["notify_webhook"]["value"].clone();
        assert_eq!(shown, "https://hooks.example/…");
        assert!(!format!("{s:?}").contains("s3cr3t"));
    }

    #[test]
    fn the_tables_give_the_rules_the_ages_and_the_columns_flags_adding_theirs() {
        let text = "rating_max_age = 12\n[refresh]\ngreen = \"7d\"\nblack = \"36h\"\n\
            [columns]\ncountry = \"Pays\"\nref = \"Référence client\"\n[alerts]\nimproved = false\n";
        let s = settings(&["--column", "country=Land"], text).unwrap();
        let hours = jiff::SignedDuration::from_hours;
        assert_eq!(
            s.refresh,
            [(Color::Black, hours(36)), (Color::Green, hours(168))]
        );
        let pair = |f: &str, h: &str| (f.to_string(), h.to_string());
        let columns = [
            pair("country", "Pays"),
            pair("ref", "Référence client"),
            pair("country", "Land"),
        ];
        assert_eq!(s.columns.0, columns);
        assert!(s.alerts.improved == crate::alerts::Listing::Off && s.alerts.into_red);
    }

    #[test]
    fn the_defaults_are_the_flags() {
        let limits = defaults().limits();
        assert_eq!((limits.concurrency, limits.retry.retries), (8, 3));
        assert_eq!(limits.max_wait, Duration::from_secs(600));
        assert_eq!(defaults().timeout.value, Duration::from_secs(30));
    }

    /// The service of `ratewatch config FLAGS…` with `key` in RATEWATCH_API_KEY and `toml`
    /// in the config file.
    fn service(flags: &[&str], key: &str, toml: &str) -> Result<(ServiceSettings, Sources), Error> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ratewatch.toml");
        std::fs::write(&file, toml).unwrap();
        let argv = ["ratewatch", "--config", file.to_str().unwrap(), "config"];
        let cli =
            Cli::try_parse_from(argv.iter().chain(flags)).map_err(|e| mistake_in(&e).unwrap())?;
        let crate::settings::cli::Command::Config(args) = cli.command else {
            unreachable!("a config command")
        };
        let key = |var: &str| (var == KEY_ENV).then(|| key.to_string());
        let sources = Sources::load(Some(&cli.config), key)?;
        let settings = Settings::for_run(&args.settings, &sources)?;
        Ok((ServiceSettings::new(&settings, &sources)?, sources))
    }

    #[test]
    fn the_key_comes_from_the_environment_trimmed_or_from_its_file() {
        let url = "--base-url=https://example.invalid";
        let (s, _) = service(&[url], " abc\n", "").unwrap();
        let ServiceTarget::Remote {
            key: Some((key, KeySource::Env)),
            ..
        } = s.target
        else {
            panic!("{s:?}")
        };
        assert_eq!(key.expose(), "abc");

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, "from-file\n").unwrap();
        let file = format!("--api-key-file={}", path.display());
        let (s, _) = service(&[url, &file], "from-env", "").unwrap();
        let ServiceTarget::Remote {
            key: Some((key, KeySource::File(p))),
            ..
        } = s.target
        else {
            panic!("{s:?}")
        };
        assert_eq!((key.expose(), p), ("from-file", path.clone()));
        std::fs::write(&path, "  \n").unwrap();
        let err = service(&[url, &file], "", "").unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let (service, sources) = service(&["--base-url=https://x.invalid"], "s3cr3t", "").unwrap();
        for text in [format!("{sources:?}"), format!("{service:?}")] {
            assert!(!text.contains("s3cr3t"), "{text}");
        }
        assert!(
            format!("{service:?}").contains("Env"),
            "the key is there, redacted"
        );
    }

    #[test]
    fn the_service_is_the_demo_or_a_base_url_never_both_by_flags() {
        let err = service(&[], "", "").unwrap_err().to_string();
        assert!(
            err.contains("--base-url") && err.contains("--demo"),
            "{err}"
        );
        let demo = |flags: &[&str], toml| service(flags, "", toml).map(|(s, _)| s.target);
        assert!(matches!(demo(&["--demo"], ""), Ok(ServiceTarget::Demo)));
        // A base URL from the file is left unused; beside its flag, `--demo` is a mistake.
        let file = "base_url = \"https://x.invalid\"\n";
        assert!(matches!(demo(&["--demo"], file), Ok(ServiceTarget::Demo)));
        let err = demo(&["--demo", "--base-url", "https://x.invalid"], "").unwrap_err();
        assert!(
            err.to_string()
                .contains("'--demo' cannot be used with '--base-url'")
        );
    }
}
