//! Integration tests, one binary (one link step): each module tests one area end to end
//! against the in-process simulator on a random loopback port. No network, no fixed port.

mod acknowledgements;
mod common;

mod alerts;
mod beside_a_run;
mod browser;
mod candidates;
mod cli;
mod client;
mod color_since;
mod config;
mod counts;
mod database;
mod decisions;
mod delivery;
mod dry_run;
mod email;
mod faults;
mod figures;
mod interruptions;
mod locale;
mod locale_pages;
mod logs;
mod misbehaving;
mod readers;
mod refresh;
mod reports;
mod review;
mod run;
mod run_details;
mod screen;
mod search;
mod serve;
mod shell;
mod simulator;
mod sql_contract;
mod sync_history;
mod trend;
mod usage;
