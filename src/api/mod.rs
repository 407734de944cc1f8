//! The service's client: wire types (`models`), one method per endpoint (`client`), and the
//! typed errors of docs/service.md §7 (`api_error`). Knows nothing of the store or the pipeline.

pub mod api_error;
pub mod client;
pub mod models;

/// A name search is asked in the model's terms.
pub use crate::model::NameQuery;
pub use api_error::ApiError;
pub use client::{ApiKey, Client, ClientOptions, HistoryPages};
