//! The stages a row goes through, in order: [`portfolio`] reads and checks it, [`decide`]
//! says what it needs, [`resolve`] finds its company, [`refresh`] reads how old a kept
//! rating may be and still do, [`rate`] fetches one; [`pipeline`] runs them concurrently,
//! every request through the one [`limit`] gate.

pub(crate) mod decide;
pub mod limit;
pub(crate) mod pipeline;
pub mod portfolio;
pub mod rate;
pub mod refresh;
pub(crate) mod resolve;
