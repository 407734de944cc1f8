//! The stages a row goes through, in order: [`input`] reads and checks it, [`decide`]
//! says what it needs, [`resolve`] finds its company, [`refresh`] says whether a kept rating
//! will do, [`rate`] fetches one; [`pipeline`] runs them concurrently, every request through
//! the one [`limit`] gate.

pub(crate) mod decide;
pub mod input;
pub mod limit;
pub(crate) mod pipeline;
pub mod rate;
pub mod refresh;
pub(crate) mod resolve;
