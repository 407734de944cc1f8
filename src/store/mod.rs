//! SQLite storage: the schema (applied from `migrations/`), runs, the resolution cache,
//! rating history and every row's outcome. All SQL of ratewatch lives under this module.
//!
//! A run records through one [`Recorder`], which owns the writer's connection (`writer`):
//! its records, and its answers to the pipeline's questions (the resolution cache among
//! them), go through that one connection. [`Store`] holds a second one for what happens
//! around a run (starting, resuming, finishing it, the lookup lists, the reports). The
//! reading commands open the database read-only (`Store::open_read_only`, `timeline`).
//! It takes and returns `model` types only, never the service's wire types.
//!
//! Where things are: `database` opens the [`Store`] and sets up its connections; `sql`
//! holds the error and the column readers every part shares; `run_life` is a run's life from
//! start to delivery, `results` its rows as the reports read them, `cache` what spares a
//! call, `alert_log` what each run announced, `acks` and `decisions` what people
//! acknowledged and decided (kept forever, with who), `audit` both as events, `reminders`
//! when a run says again what is still wrong in the export, `figures` a run's figures as
//! every channel says them, `pruning` the rows of old runs deleted, `timeline` the
//! history as people read it (runs, references, color periods, changes); `migrate`
//! creates and upgrades the schema.

mod account;
mod acks;
mod alert_log;
mod audit;
mod batch;
mod cache;
mod checkpoint;
mod clock;
mod database;
mod decisions;
mod deliveries;
mod figures;
mod finding;
mod lock;
mod lookups;
mod migrate;
mod periods;
mod portfolios;
mod pruning;
mod recorder;
mod refreshes;
mod reminders;
mod results;
mod run_life;
mod sql;
mod timeline;
mod turn;
mod writer;

pub use crate::digest::{AlertDigest, AlertLine};
pub use crate::model::time_text;

pub use account::AccountSync;
pub use acks::{Ack, NewAck};
pub use alert_log::{AlertSet, Verdicts};
pub use audit::AuditEvent;
pub use cache::LatestSeen;
pub use clock::{CLOCK_TOLERANCE, clock_note, off_clock};
pub use database::{Snapshot, Store};
pub use decisions::{DecisionRecord, LatestRun};
pub use deliveries::{RESENT_AT_MOST, RESENT_WITHIN_DAYS};
pub use finding::LatestRating;
pub use lock::{RunLock, lock_path};
pub use migrate::{SCHEMA_VERSION, latest_version};
pub use pruning::Pruned;
pub use recorder::Recorder;
pub use run_life::NewRun;
pub use sql::StoreError;
pub use timeline::{
    ColorChange, ColorPeriod, CompanySummary, Disappearance, Holding, RunCalls, TREND_RUNS,
    month_start,
};
pub use writer::{Gone, Record, RowRecord, Writer};

#[cfg(test)]
mod tests;
