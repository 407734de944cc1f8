//! What the benchmarks share: a server started as a child process (`demo-server`,
//! `serve`), a night passing on ratewatch's clock, and a large database built night by
//! night ([`nights`]).

#![allow(dead_code)]

pub mod nights;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A server in a process of its own, which printed its URL on its first line; killed on
/// drop.
pub struct Listening {
    pub child: Child,
    /// Its URL, without a trailing slash.
    pub url: String,
}

impl Listening {
    /// Starts `command` (`what` names it in a panic); what it logs goes to `log`, or
    /// nowhere.
    pub fn start(command: &mut Command, what: &str, log: Option<&Path>) -> Listening {
        let stderr = match log {
            Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
            None => Stdio::null(),
        };
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        if !url.starts_with("http://") {
            let _ = child.kill();
            let _ = child.wait();
            let logged = log
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            panic!("{what}'s first line is not its URL: {url:?}\n{logged}");
        }
        Listening {
            child,
            url: url.trim().trim_end_matches('/').to_string(),
        }
    }

    /// `ratewatch demo-server` with these arguments, on a port of its choosing.
    pub fn demo_server(args: &[String]) -> Listening {
        Listening::start(
            Command::new(env!("CARGO_BIN_EXE_ratewatch"))
                .args(["demo-server", "--port", "0"])
                .args(args),
            "demo-server",
            None,
        )
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Moves the database's runs a day into the past, so that the next run comes a night later
/// on ratewatch's clock (the rules that look back over nights read the runs' times).
pub fn a_night_passes(db: &Path) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(
            "UPDATE runs SET
                 started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '-1 day'),
                 finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', finished_at, '-1 day');",
        )
        .unwrap();
}
