//! Turns command-line arguments and the environment into validated settings.
//! No clap type travels past this module.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::api::{ApiKey, ClientOptions};
use crate::cli::ServiceArgs;
use crate::error::Error;

/// Environment variable holding the API key.
pub const KEY_ENV: &str = "RATEWATCH_API_KEY";

/// Where the key came from, so a refusal can say where to look, never what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Env,
    File(PathBuf),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Env => write!(f, "the {KEY_ENV} environment variable"),
            KeySource::File(p) => write!(f, "the file {}", p.display()),
        }
    }
}

/// Which service a command talks to.
#[derive(Debug, Clone)]
pub enum Target {
    /// The embedded simulator, started in-process.
    Demo,
    /// A real environment (demo or live) at `base_url`.
    Remote {
        base_url: String,
        key: Option<(ApiKey, KeySource)>,
    },
}

/// Validated service settings.
#[derive(Debug, Clone)]
pub struct ServiceSettings {
    pub target: Target,
    pub client: ClientOptions,
}

impl ServiceSettings {
    /// Reads the key from `--api-key-file` or [`KEY_ENV`] (never from a flag, which `ps`
    /// would show). `env` is the environment lookup, injectable for tests.
    pub fn from_args(
        args: &ServiceArgs,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, Error> {
        let seconds = |flag: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(Error::Config(format!(
                    "{flag} must be a positive number of seconds, got {v}"
                )))
            }
        };
        let client = ClientOptions {
            timeout: seconds("--timeout", args.timeout)?,
            connect_timeout: seconds("--connect-timeout", args.connect_timeout)?,
        };
        if args.demo {
            return Ok(ServiceSettings {
                target: Target::Demo,
                client,
            });
        }
        let Some(base_url) = args.base_url.clone().filter(|u| !u.trim().is_empty()) else {
            return Err(Error::Config(
                "no service address: pass --base-url URL (or set RATEWATCH_BASE_URL) for a real environment, or --demo for the embedded simulator".into(),
            ));
        };
        let key = match &args.api_key_file {
            Some(path) => Some((read_key_file(path)?, KeySource::File(path.clone()))),
            None => env(KEY_ENV)
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .map(|k| (ApiKey::new(k), KeySource::Env)),
        };
        Ok(ServiceSettings {
            target: Target::Remote { base_url, key },
            client,
        })
    }
}

fn read_key_file(path: &Path) -> Result<ApiKey, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Config(format!(
            "cannot read the API key file {}: {e}",
            path.display()
        ))
    })?;
    let key = text.trim();
    if key.is_empty() {
        return Err(Error::Config(format!(
            "the API key file {} is empty",
            path.display()
        )));
    }
    Ok(ApiKey::new(key))
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

    fn args() -> ServiceArgs {
        ServiceArgs {
            demo: false,
            base_url: Some("https://example.invalid".into()),
            api_key_file: None,
            timeout: 30.0,
            connect_timeout: 10.0,
        }
    }

    #[test]
    fn key_comes_from_the_environment_trimmed() {
        let s =
            ServiceSettings::from_args(&args(), |k| (k == KEY_ENV).then(|| " abc\n".to_string()))
                .unwrap();
        match s.target {
            Target::Remote {
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
        let mut a = args();
        a.api_key_file = Some(path.clone());
        let s = ServiceSettings::from_args(&a, |_| Some("from-env".into())).unwrap();
        match s.target {
            Target::Remote {
                key: Some((key, KeySource::File(p))),
                ..
            } => {
                assert_eq!(key.expose(), "from-file");
                assert_eq!(p, path);
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&path, "  \n").unwrap();
        let err = ServiceSettings::from_args(&a, |_| None).unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
    }

    #[test]
    fn no_base_url_and_no_demo_is_a_clear_error() {
        let mut a = args();
        a.base_url = None;
        let err = ServiceSettings::from_args(&a, |_| None).unwrap_err();
        assert!(err.to_string().contains("--base-url") && err.to_string().contains("--demo"));
    }
}
