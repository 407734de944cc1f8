//! Settings: [`cli`] defines each one once by its flag (its variable, default and help);
//! [`config`] reads the variables and ratewatch.toml into them; [`setting`] is how one
//! setting reads and where its value came from; [`who`] who a decision made on the command
//! line is recorded as. The file's tables are read by the modules they configure, as
//! [`crate::toml_table`] says.

pub mod cli;
pub mod config;
pub mod setting;
pub mod who;
