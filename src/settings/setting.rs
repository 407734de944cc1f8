//! How one setting reads: its kind checks a flag, a variable or a value of the file, and
//! the value keeps where it came from. `cli` declares its flags with these and `config`
//! resolves them, so neither needs the other's half.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use clap::builder::{
    BoolValueParser, EnumValueParser, PathBufValueParser, PossibleValue, StringValueParser,
    TypedValueParser, ValueParserFactory,
};
use clap::parser::ValueSource;
use clap::{Arg, Command, ValueEnum};
use serde::de::DeserializeOwned;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::deliver::webhook::Format;
use crate::error::Error;
use crate::locale::{Locale, Zone};
use crate::report::csv::Dialect;
use crate::stages::rate::RatingEndpoint;

/// Environment variable naming the config file (`--config` wins over it).
pub const CONFIG_ENV: &str = "RATEWATCH_CONFIG";

/// How one kind of setting reads and what it must be: the `value_parser` of its flags.
#[derive(Debug)]
pub struct Kind<T: 'static> {
    /// What a valid value is, for errors.
    pub(crate) expected: &'static str,
    pub(crate) valid: fn(&T) -> bool,
    /// The value as it is used (and checked), wherever it came from.
    pub(crate) normal: fn(T) -> T,
}

impl<T> Kind<T> {
    const fn new(expected: &'static str, valid: fn(&T) -> bool) -> Self {
        Kind {
            expected,
            valid,
            normal: same,
        }
    }

    /// The value as it is used, or nothing if it is not valid.
    pub(crate) fn check(&self, value: T) -> Option<T> {
        Some((self.normal)(value)).filter(|v| (self.valid)(v))
    }
}

fn any<T>(_: &T) -> bool {
    true
}

fn same<T>(value: T) -> T {
    value
}

fn positive(x: &f64) -> bool {
    x.is_finite() && *x > 0.0
}

pub static URL: Kind<String> = Kind::new("the service's root URL", |s| !s.trim().is_empty());
/// Checked by [`WebhookUrl::parse`] afterwards, whose errors never repeat a secret.
pub static WEBHOOK: Kind<String> = Kind::new("an http or https URL", any);
/// Checked by [`crate::links::PageUrl::parse`] afterwards, which says what is wrong.
pub static PAGE: Kind<String> = Kind::new("the http or https address of `ratewatch serve`", any);
pub static PATH: Kind<PathBuf> = Kind::new("a path", |p| !p.as_os_str().is_empty());
pub static SECONDS: Kind<f64> = Kind::new("a positive number of seconds", positive);
pub static CONCURRENCY: Kind<u16> =
    Kind::new("a whole number from 1 to 1024", |n| (1..=1024).contains(n));
pub static ENDPOINT: Kind<RatingEndpoint> = Kind::new("\"current\" or \"deprecated\"", any);
pub static DAYS: Kind<u32> = Kind::new("a whole number of days", any);
pub static HOURS: Kind<u32> = Kind::new("a whole number of hours", any);
pub static COUNT: Kind<u32> = Kind::new("a whole number", any);
pub static MILLISECONDS: Kind<u64> = Kind::new("a whole number of milliseconds", any);
pub static RPS: Kind<f64> = Kind::new("a positive number of requests per second", positive);
pub static CALLS: Kind<u64> = Kind::new("a whole number of calls", any);
/// Two letters, taken in capitals; whether the service knows the code is checked against
/// its lookup lists when a run has them.
pub static COUNTRY: Kind<String> = Kind {
    expected: "a two-letter country code, e.g. FR",
    valid: |c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()),
    normal: |c| c.trim().to_uppercase(),
};
pub static DIALECT: Kind<Dialect> = Kind::new("\"standard\" or \"excel\"", any);
pub static WEBHOOK_FORMAT: Kind<Format> = Kind::new("\"json\", \"slack\" or \"teams\"", any);
pub static LOCALE: Kind<Locale> = Kind::new("\"en\", \"fr\" or \"de\"", any);
pub static TIME_ZONE: Kind<Zone> = Kind::new("an IANA time zone, e.g. Europe/Paris", any);
/// A TOML boolean in the file; `true`/`false` (or `1`/`0`) in the variable.
pub static SWITCH: Kind<bool> = Kind::new("true or false", any);

/// What a setting holds: read from a flag by clap's own parser of the type (a mistyped flag
/// reads as clap words it), from a variable's text or the file's value here.
pub trait Value: Clone + fmt::Debug + Send + Sync + 'static {
    fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error>;
    /// A variable's text, or a string in the file.
    fn from_text(text: &str) -> Option<Self>;
    fn from_toml(value: &toml::Value) -> Option<Self> {
        Self::from_text(value.as_str()?)
    }
    /// For help and completions.
    fn possible_values() -> Vec<PossibleValue> {
        Vec::new()
    }
    /// A relative path in the file is the file's folder's, so one file works from anywhere.
    fn in_folder(self, _folder: &Path) -> Self {
        self
    }
}

macro_rules! value {
    ($($t:ty => $flag:expr),*) => {$(
        impl Value for $t {
            fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error> {
                $flag.parse_ref(cmd, Some(arg), text)
            }
            fn from_text(text: &str) -> Option<Self> {
                text.parse().ok()
            }
            fn from_toml(value: &toml::Value) -> Option<Self> {
                typed(value)
            }
        }
    )*};
}

/// A file's value of the type's own TOML kind (a number, a switch), or a string as text.
fn typed<T: Value + DeserializeOwned>(value: &toml::Value) -> Option<T> {
    match value {
        toml::Value::String(s) => T::from_text(s),
        other => T::deserialize(other.clone()).ok(),
    }
}
value!(
    u16 => u16::value_parser(),
    u32 => u32::value_parser(),
    u64 => u64::value_parser(),
    f64 => StringValueParser::new().try_map(|s| s.parse::<f64>()),
    String => StringValueParser::new()
);

impl Value for PathBuf {
    fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error> {
        PathBufValueParser::new().parse_ref(cmd, Some(arg), text)
    }
    fn from_text(text: &str) -> Option<Self> {
        Some(PathBuf::from(text))
    }
    fn in_folder(self, folder: &Path) -> Self {
        folder.join(self)
    }
}

impl Value for bool {
    fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error> {
        BoolValueParser::new().parse_ref(cmd, Some(arg), text)
    }
    fn from_text(text: &str) -> Option<Self> {
        match text.to_lowercase().as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
    fn from_toml(value: &toml::Value) -> Option<Self> {
        typed(value)
    }
}

/// A setting that is one of a few words: the library's own type, which derives clap's
/// `ValueEnum` (its variants' help is the words' help), so the value needs no mapping.
macro_rules! choice {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error> {
                EnumValueParser::<$t>::new().parse_ref(cmd, Some(arg), text)
            }
            fn from_text(text: &str) -> Option<Self> {
                <$t as ValueEnum>::from_str(text, true).ok()
            }
            fn possible_values() -> Vec<PossibleValue> {
                <$t>::value_variants().iter().filter_map(ValueEnum::to_possible_value).collect()
            }
        }
    )*};
}
choice!(RatingEndpoint, Dialect, Format, Locale);

/// A zone the database does not know is said as every setting's mistake is.
impl Value for Zone {
    fn from_flag(cmd: &Command, arg: &Arg, text: &OsStr) -> Result<Self, clap::Error> {
        let text = text.to_string_lossy();
        Zone::named(&text).ok_or_else(|| {
            let flag = arg.get_long().unwrap_or_default();
            let message = format!("--{flag}: expected {}, got {text:?}", TIME_ZONE.expected);
            mistake(cmd, arg, message)
        })
    }
    fn from_text(text: &str) -> Option<Self> {
        Zone::named(text)
    }
}

/// A setting as the command line gave it: by its flag, its variable or its default (none:
/// unset), with what reading it from the file takes.
#[derive(Clone, Debug)]
pub struct Given<T: 'static> {
    /// The flag's id: the setting's key in ratewatch.toml.
    pub(crate) key: String,
    pub(crate) value: Option<T>,
    pub(crate) origin: Origin,
    pub(crate) kind: &'static Kind<T>,
}

/// A clap error whose source is ratewatch's own: a closure parser's error is the one clap
/// keeps as it is, for [`mistake_in`] to find.
fn mistake(cmd: &Command, arg: &Arg, message: String) -> clap::Error {
    let fail = move |_: &str| Err::<(), _>(Error::Config(message.clone()));
    match fail.parse_ref(cmd, Some(arg), OsStr::new("")) {
        Err(e) => e,
        Ok(()) => unreachable!("always fails"),
    }
}

/// A setting's mistake in a clap error, as ratewatch words it (flag, variable or line).
pub fn mistake_in(e: &clap::Error) -> Option<Error> {
    match std::error::Error::source(e)?.downcast_ref::<Error>()? {
        Error::Config(message) => Some(Error::Config(message.clone())),
        _ => None,
    }
}

pub(crate) fn from_clap(e: clap::Error) -> Error {
    mistake_in(&e).unwrap_or_else(|| Error::Config(e.to_string()))
}

impl<T: Value> Kind<T> {
    /// A variable's text or a default: valid, or nothing.
    fn read(&self, text: &str) -> Option<T> {
        self.check(T::from_text(text)?)
    }
}

// Clap tells the parser where a value comes from: a flag is clap's to read; a variable is
// trimmed, and a blank one is unset.
impl<T: Value> TypedValueParser for &'static Kind<T> {
    type Value = Given<T>;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        text: &OsStr,
    ) -> Result<Given<T>, clap::Error> {
        self.parse_ref_(cmd, arg, text, ValueSource::CommandLine)
    }

    fn parse_ref_(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        text: &OsStr,
        source: ValueSource,
    ) -> Result<Given<T>, clap::Error> {
        let arg = arg.expect("a setting is an argument");
        let lossy = text.to_string_lossy();
        let (value, origin) = match source {
            ValueSource::CommandLine => {
                let flag = format!("--{}", arg.get_long().unwrap_or_default());
                let value = (self.normal)(T::from_flag(cmd, arg, text)?);
                if !(self.valid)(&value) {
                    let message = format!("{flag}: expected {}, got {value:?}", self.expected);
                    return Err(mistake(cmd, arg, message));
                }
                (Some(value), Origin::Flag(flag))
            }
            ValueSource::EnvVariable if !lossy.trim().is_empty() => {
                let var = arg.get_env().unwrap_or_default().to_string_lossy();
                let Some(value) = self.read(lossy.trim()) else {
                    let message = format!("{var}: expected {}, got {lossy:?}", self.expected);
                    return Err(mistake(cmd, arg, message));
                };
                (Some(value), Origin::Env(var.into_owned()))
            }
            // The default, also for a blank variable; an empty one is unset.
            _ => {
                let default = arg.get_default_values().first().filter(|d| !d.is_empty());
                (
                    default.and_then(|d| self.read(&d.to_string_lossy())),
                    Origin::Default,
                )
            }
        };
        Ok(Given {
            key: arg.get_id().to_string(),
            value,
            origin,
            kind: *self,
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let values = T::possible_values();
        (!values.is_empty()).then(|| Box::new(values.into_iter()) as _)
    }
}

impl<T> Given<T> {
    /// An error that names where the value came from: the flag, the variable, or the file's
    /// line and key.
    pub(crate) fn wrong(&self, origin: &Origin, message: String) -> Error {
        let place = match origin {
            Origin::Flag(flag) => flag.clone(),
            Origin::Env(var) => var.clone(),
            Origin::File { path, line } => format!("{}:{line}: {}", path.display(), self.key),
            Origin::Default => self.key.clone(),
        };
        Error::Config(format!("{place}: {message}"))
    }

    /// The flag, if the value came from it.
    pub(crate) fn flag(&self) -> Option<&str> {
        match &self.origin {
            Origin::Flag(flag) => Some(flag),
            _ => None,
        }
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origin {
    Flag(String),
    Env(String),
    File {
        path: PathBuf,
        line: usize,
    },
    #[default]
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Sourced<T> {
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Sourced<U> {
        Sourced {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

/// As `ratewatch config --json` shows a setting.
impl<T: Serialize> Serialize for Sourced<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("value", &self.value)?;
        map.serialize_entry("source", self.origin.kind())?;
        map.serialize_entry("from", &self.origin.to_string())?;
        map.end()
    }
}
