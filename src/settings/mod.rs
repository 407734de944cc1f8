//! Settings: [`cli`] defines each one once by its flag (its variable, default and help);
//! [`config`] reads the variables and ratewatch.toml into them; [`setting`] is how one
//! setting reads and where its value came from; [`table`] the file's tables, read by the
//! modules they configure.

pub mod cli;
pub mod config;
pub mod setting;
pub mod table;
