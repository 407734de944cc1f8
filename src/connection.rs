//! Which service a command talks to: the configured one, or the embedded simulator started
//! in-process for `--demo`. Either way the rest of the program sees one [`Client`].
//!
//! The key is read here, from `RATEWATCH_API_KEY` or the file `api_key_file` names, never
//! from a flag (which `ps` would show) nor from the config file.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::api::{ApiError, ApiKey, Client, ClientOptions};
use crate::error::Error;
use crate::text::{UrlPath, redacted_url};

/// Environment variable holding the API key.
pub const KEY_ENV: &str = "RATEWATCH_API_KEY";

/// The embedded simulator, in a build that has it (the `demo` feature).
#[cfg(feature = "demo")]
type Simulator = crate::sim::SimServer;
#[cfg(not(feature = "demo"))]
type Simulator = std::convert::Infallible;

/// A client ready to use, and the in-process simulator behind it in demo mode.
pub struct Service {
    pub client: Client,
    key_source: Option<KeySource>,
    /// Kept alive for as long as the client needs it.
    _simulator: Option<Simulator>,
}

impl Service {
    /// Connects to the configured target; `need_key` refuses to start without a key;
    /// `demo_day` is the simulated day the embedded simulator serves in demo mode.
    pub async fn open(
        settings: &ServiceSettings,
        need_key: bool,
        demo_day: i64,
    ) -> Result<Self, Error> {
        match &settings.target {
            ServiceTarget::Demo => Service::demo(settings, demo_day).await,
            ServiceTarget::Remote { base_url, key } => {
                if need_key && key.is_none() {
                    return Err(missing_key());
                }
                if key.is_some()
                    && let Some(shown) = in_clear(base_url)
                {
                    tracing::warn!(
                        "the API key goes to {shown} over plain http, readable on the way: use https"
                    );
                }
                let client = Client::new(base_url, key.as_ref().map(|(k, _)| k), settings.client)
                    .map_err(|e| Error::Config(e.to_string()))?;
                Ok(Service {
                    client,
                    key_source: key.as_ref().map(|(_, s)| s.clone()),
                    _simulator: None,
                })
            }
        }
    }

    /// The embedded simulator on a free loopback port, serving `day`: on the date an
    /// earlier demo run served it, or today.
    #[cfg(feature = "demo")]
    async fn demo(settings: &ServiceSettings, day: i64) -> Result<Self, Error> {
        use crate::sim::dataset::Calendar;
        use crate::sim::{SimConfig, SimServer};
        use std::net::{Ipv4Addr, SocketAddr};
        let config = SimConfig {
            day,
            calendar: Calendar::dated(settings.demo_days.iter().copied()),
            ..SimConfig::default()
        };
        let key = crate::api::ApiKey::new(config.key.clone());
        let sim = SimServer::start(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .await
            .map_err(|e| Error::io("cannot start the embedded simulator", e))?;
        let client = Client::new(&sim.base_url(), Some(&key), settings.client)?;
        Ok(Service {
            client,
            key_source: None,
            _simulator: Some(sim),
        })
    }

    #[cfg(not(feature = "demo"))]
    async fn demo(_: &ServiceSettings, _: i64) -> Result<Self, Error> {
        Err(demo_missing())
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

/// The base URL as shown, when a key sent to it would cross the network unencrypted:
/// `http://` to any host but this machine's loopback (127.0.0.0/8, ::1, localhost).
fn in_clear(base_url: &str) -> Option<String> {
    use url::Host;
    let url = url::Url::parse(base_url.trim()).ok()?;
    if url.scheme() != "http" {
        return None;
    }
    let local = match url.host()? {
        Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    };
    (!local).then(|| redacted_url(base_url, UrlPath::Whole))
}

/// What a build without the simulator says to `--demo` and `demo-server`.
#[cfg(not(feature = "demo"))]
pub fn demo_missing() -> Error {
    Error::Config(
        "this ratewatch was built without the embedded simulator (the `demo` feature): use --base-url and a key, or build with the default features".into(),
    )
}

/// Where the key came from, so a refusal can say where to look, never what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Env,
    File(PathBuf),
}

impl fmt::Display for KeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeySource::Env => write!(f, "the {KEY_ENV} environment variable"),
            KeySource::File(p) => write!(f, "the file {}", p.display()),
        }
    }
}

/// Which service a command talks to.
#[derive(Debug, Clone)]
pub enum ServiceTarget {
    /// The embedded simulator, started in-process.
    Demo,
    /// A real environment (demo or live) at `base_url`.
    Remote {
        base_url: String,
        key: Option<(ApiKey, KeySource)>,
    },
}

impl ServiceTarget {
    /// What a run would talk to, for a person (the dry run): the simulator, or the base
    /// URL (its credentials hidden) and where the key comes from; `Err` says what is
    /// missing.
    pub fn ready(&self) -> Result<String, Error> {
        match self {
            ServiceTarget::Demo => Ok("the embedded simulator (--demo)".into()),
            ServiceTarget::Remote { key: None, .. } => Err(missing_key()),
            ServiceTarget::Remote {
                base_url,
                key: Some((_, source)),
            } => Ok(format!(
                "{} with the API key from {source}",
                redacted_url(base_url, UrlPath::Whole)
            )),
        }
    }
}

/// Validated service settings.
#[derive(Debug, Clone)]
pub struct ServiceSettings {
    pub target: ServiceTarget,
    pub client: ClientOptions,
    /// With `--demo`: the dates of the simulated days earlier demo runs of the database
    /// served (day, date), so the embedded simulator keeps each day on its date (see
    /// `sim::dataset::Calendar`). Empty: the served day falls on today.
    pub demo_days: Vec<(i64, jiff::civil::Date)>,
}

pub(crate) fn read_key_file(path: &Path) -> Result<ApiKey, Error> {
    read_secret_file(path, "API key file").map(ApiKey::new)
}

/// The text of a file that holds a secret (the API key, the webhook's secret, the SMTP
/// password), trimmed: a
/// file that cannot be read or holds nothing is an error naming it (`what` and the path),
/// and one the group or others may read a warning. The secret itself is never in either.
pub(crate) fn read_secret_file(path: &Path, what: &str) -> Result<String, Error> {
    warn_if_open_to_others(path, what);
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Config(format!("cannot read the {what} {}: {e}", path.display())))?;
    let secret = text.trim();
    if secret.is_empty() {
        return Err(Error::Config(format!(
            "the {what} {} is empty",
            path.display()
        )));
    }
    Ok(secret.to_string())
}

/// A secret's file that the group or other users may read (or write) is a warning, never a
/// refusal: the secret still works, and a shared host's admin may have reasons.
fn warn_if_open_to_others(path: &Path, what: &str) {
    if let Some(mode) = open_mode(path) {
        tracing::warn!(
            "the {what} {} is open to the group or other users (mode {mode:03o}): chmod 600 {}",
            path.display(),
            path.display()
        );
    }
}

/// The key file's permission bits, if the group or others have any.
#[cfg(unix)]
fn open_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then_some(mode)
}

#[cfg(not(unix))]
fn open_mode(_: &Path) -> Option<u32> {
    None
}

/// The message for a command that needs a key and has none.
pub fn missing_key() -> Error {
    Error::Config(format!(
        "no API key: set {KEY_ENV} or pass --api-key-file PATH (demo and live environments have different keys)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build without the simulator refuses `--demo` with a message that says why.
    #[cfg(not(feature = "demo"))]
    #[tokio::test]
    async fn a_build_without_the_simulator_says_so() {
        let settings = ServiceSettings {
            target: ServiceTarget::Demo,
            client: crate::api::ClientOptions::default(),
            demo_days: Vec::new(),
        };
        match Service::open(&settings, true, 1).await {
            Err(Error::Config(m)) => assert!(m.contains("without the embedded simulator"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a demo without a simulator"),
        }
    }

    #[test]
    fn a_key_over_plain_http_is_noticed_unless_it_stays_on_this_machine() {
        for local in [
            "http://127.0.0.1:8080",
            "http://127.8.9.10/",
            "http://localhost:9000/root",
            "http://LOCALHOST",
            "http://[::1]:80/",
            "http://[::ffff:127.0.0.1]/",
            "https://rating.example",
            "https://10.0.0.5/",
            "not a url",
        ] {
            assert_eq!(in_clear(local), None, "{local}");
        }
        for (remote, shown) in [
            (
                "http://u:s3cr3t@rating.example/v2?k=v",
                "http://***@rating.example/v2?k=***",
            ),
            ("http://10.0.0.5:8080", "http://10.0.0.5:8080/"),
            ("http://localhost.example", "http://localhost.example/"),
            ("http://[2001:db8::1]/", "http://[2001:db8::1]/"),
            ("http://0.0.0.0:9/", "http://0.0.0.0:9/"),
        ] {
            assert_eq!(in_clear(remote).as_deref(), Some(shown), "{remote}");
        }
    }

    #[cfg(feature = "demo")]
    #[tokio::test]
    async fn the_demo_is_a_client_of_the_embedded_simulator() {
        let settings = ServiceSettings {
            target: ServiceTarget::Demo,
            client: crate::api::ClientOptions::default(),
            demo_days: Vec::new(),
        };
        let conn = Service::open(&settings, true, 1).await.unwrap();
        assert!(!conn.client.countries().await.unwrap().is_empty());
    }
}
