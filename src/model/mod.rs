//! Domain types every stage shares. The service's wire types (`api::models`) convert into
//! these, so nothing past the client depends on how the service spells its fields.
//!
//! This module holds data and pure rules only: no I/O, no HTTP, no SQL. By what they are
//! about: `color` (colors, ratings, changes), `alert` (the kinds of alert), `company` (the
//! service's companies and lookup lists), `resolution` (searches, candidates, review's
//! decisions, cached answers), `row` (a portfolio row and its result), `run_info` (a run and
//! its counts), `refresh_ages` (how old a rating may be reused), `make_printable` (what reports
//! show), `time` (times as text), `who` (who made a decision and how it ended).

mod alert;
mod color;
mod company;
mod make_printable;
mod refresh_ages;
mod resolution;
mod row;
mod run_info;
mod time;
mod who;

pub use alert::AlertKind;
pub use color::{COLOR_MAX_CHARS, Change, Color, Rating};
pub use company::{Address, Company, Country, IdentifierService, RATED_COUNTRIES};
pub use make_printable::MakePrintable;
pub use refresh_ages::RefreshAges;
pub use resolution::{CachedResolution, Candidate, Decision, NameQuery, SearchOutcome, Verdict};
pub use row::{InputRow, ResultRow, RowStatus, Staleness};
pub use run_info::{RunColors, RunInfo, RunStatus, rows_with};
#[cfg(test)]
pub use time::time;
pub use time::{day_text, time_text};
pub use who::{Ended, NAME_MAX_CHARS, NOT_RECORDED, WEB_PAGE, person_name, who};
