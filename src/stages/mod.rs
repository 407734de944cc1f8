//! The stages a row goes through, in order: [`input`] reads it (the header mapped by
//! [`columns`]), [`check`] checks it against the lookup lists, [`decide`] says what it
//! needs, [`resolve`] finds its company (a name search that finds nothing loosened by
//! [`relax`], its finds offered as candidates), [`refresh`] reads how old a kept rating may be and
//! still do, [`rate`] fetches one; [`pipeline`] runs them concurrently (what a row came to: [`outcome`]), every request
//! through the one [`limit`] gate, each asked once ([`in_flight`]), and keeps count for how
//! the run ends ([`tally`]).

pub mod check;
pub mod columns;
pub(crate) mod decide;
pub(crate) mod in_flight;
pub mod input;
pub mod limit;
pub(crate) mod outcome;
pub(crate) mod pipeline;
pub mod rate;
pub mod refresh;
pub(crate) mod relax;
pub(crate) mod resolve;
pub mod tally;
