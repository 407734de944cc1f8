//! The service's client: wire types (`models`), one method per endpoint (`client`), and the
//! typed errors of docs/service.md §7 (`error`). Knows nothing of the store or the pipeline.

pub mod client;
pub mod error;
pub mod models;

/// A name search is asked in the model's terms.
pub use crate::model::NameQuery;
pub use client::{ApiKey, Client, ClientOptions, HistoryPages};
pub use error::ApiError;
