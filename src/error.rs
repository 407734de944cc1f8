//! Fatal errors (those that stop a command) and the process exit codes, documented for cron.
//!
//! A failed row is not an error: it is a result, recorded and reported. Only set-up,
//! input and service-wide problems end up here.

use crate::api::ApiError;

/// Exit codes of ratewatch, as the README's table documents them for cron.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything worked and nothing needs attention.
    Clean = 0,
    /// Worked; something needs attention (alerts present, or a lookup found no company).
    Attention = 1,
    /// Usage, configuration or unreadable input; the service said a parameter is invalid;
    /// the database in use by another run, or kept locked by another writer past the wait.
    Usage = 2,
    /// Finished, but some items failed after retries.
    Partial = 3,
    /// Nothing could be done: key refused, service unreachable, database unusable.
    Fatal = 4,
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(c: ExitCode) -> Self {
        std::process::ExitCode::from(c as u8)
    }
}

/// An error that stops the command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad command line or configuration; the message says which setting and what to do.
    #[error("{0}")]
    Config(String),
    /// The service refused or failed a call that the command cannot do without.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The service refused the key; says where the key came from, never what it is.
    #[error("{source}; the key was read from {key_source}")]
    KeyRefused {
        key_source: String,
        #[source]
        source: ApiError,
    },
    /// The portfolio file cannot be screened (not CSV, not UTF-8, no usable header).
    #[error(transparent)]
    Input(#[from] crate::stages::input::InputError),
    /// The portfolio gave nothing to screen (no rows, or only invalid ones), or it shrank
    /// past what `--fail-on-shrink` accepts: not a quiet night.
    #[error("{0}")]
    NothingToScreen(String),

    /// Not one request of the run got an answer of any kind: the service was unreachable
    /// all along, whatever the lookup lists kept from before let the run try.
    #[error(
        "service unreachable: not one request of this run got an answer (connections refused, reset or timed out); check the network and --base-url. Every row waits for the next run"
    )]
    Unreachable,

    /// Asked to stop (a signal) before any row was screened: nothing was recorded, and
    /// the next run starts the night again.
    #[error("STOPPED: {0} before any row was screened; nothing was recorded: run again")]
    Stopped(String),
    /// The address answers, but not as the rating service: a wrong `--base-url`, a proxy
    /// or a gateway. The kept lookup lists are not used for this: they would hide it.
    #[error(
        "{url} did not answer as the rating service ({source}); check --base-url: it is the service's root, to which ratewatch adds /v2/"
    )]
    NotTheService {
        url: String,
        #[source]
        source: ApiError,
    },
    /// Every search and rating of the run answered "not found": nothing was recorded.
    #[error(
        "the service answered 'not found' to every request ({not_found} searches and ratings, nothing else): check --base-url; nothing was recorded as unmatched and the cache is as it was"
    )]
    WrongAddress { not_found: u64 },
    /// The database cannot be used.
    #[error("database {}: {source}", path.display())]
    Store {
        path: std::path::PathBuf,
        #[source]
        source: crate::store::StoreError,
    },
    /// A local file or socket could not be used.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Config(_) | Error::Input(_) | Error::NothingToScreen(_) => ExitCode::Usage,
            Error::NotTheService { .. } | Error::WrongAddress { .. } => ExitCode::Fatal,
            Error::Store {
                source:
                    crate::store::StoreError::Busy { .. }
                    | crate::store::StoreError::Locked { .. }
                    | crate::store::StoreError::Missing
                    | crate::store::StoreError::Empty
                    | crate::store::StoreError::NoSuchRun(_)
                    | crate::store::StoreError::DetailsPruned { .. },
                ..
            } => ExitCode::Usage,
            Error::Store { .. } => ExitCode::Fatal,
            Error::Api(ApiError::Validation { .. }) => ExitCode::Usage,
            Error::Api(ApiError::NotFound { .. }) => ExitCode::Attention,
            Error::Api(_) | Error::KeyRefused { .. } => ExitCode::Fatal,
            Error::Io { .. } => ExitCode::Fatal,
            Error::Stopped(_) => ExitCode::Partial,
            Error::Unreachable => ExitCode::Fatal,
        }
    }
}
