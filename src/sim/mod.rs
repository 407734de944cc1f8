//! The embedded simulator of the rating service: a real HTTP server that behaves as the
//! spec says the service does, errors included, over a deterministic dataset.
//!
//! It depends on `api::models` only, never on client logic: what the service says must be
//! decided here independently, or tests of the client would test nothing.

//!
//! The dataset and the portfolios made from it need nothing but this crate; the HTTP
//! server is behind the `demo` feature (on by default).

pub mod catalog;
pub mod dataset;
pub mod portfolio;
#[cfg(feature = "demo")]
pub mod server;

pub use dataset::{CompanyRef, Dataset};
#[cfg(feature = "demo")]
pub use server::{Endpoint, Faults, SimConfig, SimServer, Stats};

/// Key the simulator accepts unless told otherwise.
pub const DEFAULT_KEY: &str = "demo-key";
/// Seed of the dataset the demo and the samples use.
pub const DEFAULT_SEED: u64 = 2026;
/// Companies per country in the default dataset.
pub const DEFAULT_PER_COUNTRY: u32 = 100_000;
