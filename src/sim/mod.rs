//! The embedded simulator of the rating service: a real HTTP server that behaves as the
//! spec says the service does, errors included, over a deterministic dataset.
//!
//! It depends on `api::models` only, never on client logic: what the service says must be
//! decided here independently, or tests of the client would test nothing.

pub mod catalog;
pub mod dataset;
pub mod portfolio;
pub mod server;

pub use dataset::{CompanyRef, Dataset};
pub use server::{Endpoint, Faults, SimConfig, SimServer, Stats};
