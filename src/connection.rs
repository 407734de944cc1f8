//! Which service a command talks to: the configured one, or the embedded simulator started
//! in-process for `--demo`. Either way the rest of the program sees one [`Client`].

use std::net::{Ipv4Addr, SocketAddr};

use crate::api::{ApiError, ApiKey, Client};
use crate::config::{KeySource, ServiceSettings, Target, missing_key};
use crate::error::Error;
use crate::sim::{SimConfig, SimServer};

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
                let key = ApiKey::new(config.key.clone());
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
