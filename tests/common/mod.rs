//! Helpers shared by the integration tests: simulators on random loopback ports, a
//! scripted HTTP server for answers the simulator would never give, the binary
//! ([`binary`]), screening runs in a process or in-process, waiting on conditions
//! ([`wait`]), and a real browser ([`browser`]).

pub mod binary;
pub mod browser;
pub mod smtp;
pub mod wait;

pub use binary::{BIN, InFolder, Ratewatch, ratewatch};

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ratewatch::api::{ApiKey, Client, ClientOptions};
use ratewatch::model::RunInfo;
use ratewatch::run::{Request, Screened, Watcher};
use ratewatch::sim::{SimConfig, SimServer};
use ratewatch::store::StoreError;
use ratewatch::{Error, ExitCode};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub const KEY: &str = "test-key";
pub use ratewatch::sim::DEFAULT_SEED;

pub fn loopback() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
}

/// A small, fast dataset with the test key.
pub fn config() -> SimConfig {
    SimConfig {
        per_country: 5_000,
        key: KEY.into(),
        ..SimConfig::default()
    }
}

pub async fn start(config: SimConfig) -> SimServer {
    SimServer::start(config, loopback())
        .await
        .expect("simulator starts")
}

pub fn client_for(sim: &SimServer, key: &str) -> Client {
    Client::new(
        &sim.base_url(),
        Some(&ApiKey::new(key)),
        ClientOptions::default(),
    )
    .unwrap()
}

/// The samples' dataset (same seed as `--demo`), kept small, on a runtime of its own.
pub fn sample_sim() -> Background {
    background(sample_config())
}

/// The sample's simulator with its day `last` on today, for a test that serves days 1 to
/// `last` (see [`calendar_ending_on_today`]).
pub fn sample_sim_ending_on(last: i64) -> Background {
    background(SimConfig {
        calendar: calendar_ending_on_today(last),
        ..sample_config()
    })
}

fn sample_config() -> SimConfig {
    SimConfig {
        seed: crate::common::DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        ..SimConfig::default()
    }
}

/// A calendar whose day 1 falls `last - 1` days ago and day `last` on today. A simulator
/// otherwise puts the day it first serves on today and each later day after it: a test
/// that serves later days at once (faking the nights between with [`a_night_passes`])
/// would get ratings dated days ahead of this machine's clock, which ratewatch says in a
/// `CLOCK:` note and ages from the night it saw them.
pub fn calendar_ending_on_today(last: i64) -> ratewatch::sim::dataset::Calendar {
    let today = jiff::Zoned::now()
        .with_time_zone(jiff::tz::TimeZone::UTC)
        .date();
    let first = today.checked_sub(jiff::Span::new().days(last - 1)).unwrap();
    ratewatch::sim::dataset::Calendar::dated([(1, first)])
}

/// A simulator on a runtime of its own, for tests that run the binary synchronously.
pub struct Background {
    pub server: SimServer,
    _runtime: tokio::runtime::Runtime,
}

pub fn background(config: SimConfig) -> Background {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(start(config));
    Background {
        server,
        _runtime: runtime,
    }
}

/// A scripted HTTP/1.1 server: `answer(path)` gives (status line, content type, body) for
/// each request. Returns its base URL.
pub async fn scripted<F>(answer: F) -> String
where
    F: Fn(&str, &str) -> (String, String, Vec<u8>) + Send + Sync + 'static,
{
    let (base, _) = recording(move |host, seen| {
        let (status, content_type, body) = answer(host, &seen.target);
        Reply {
            status,
            headers: vec![("content-type".into(), content_type)],
            body,
        }
    })
    .await;
    base
}

/// One request as a recording server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub target: String,
    /// Header names in lower case, values as sent.
    pub headers: Vec<(String, String)>,
    pub at: Instant,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What a recording server answers: status line, headers, body.
pub struct Reply {
    pub status: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status: "200 OK".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
        }
    }
}

/// A scripted HTTP/1.1 server that records every request it receives, in order:
/// `answer(base URL, request)` gives the reply. Returns its base URL and the record.
pub async fn recording<F>(answer: F) -> (String, Arc<Mutex<Vec<Seen>>>)
where
    F: Fn(&str, &Seen) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind(loopback()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    let log = Arc::new(Mutex::new(Vec::new()));
    let (host, record) = (base.clone(), log.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            let (answer, host, record) = (answer.clone(), host.clone(), record.clone());
            tokio::spawn(async move {
                let Some(seen) = read_request(&mut stream).await else {
                    return;
                };
                record.lock().unwrap().push(seen.clone());
                let reply = answer(&host, &seen);
                write_reply(&mut stream, &reply).await;
            });
        }
    });
    (base, log)
}

/// Moves the runs of the database at `db` a day into the past, as if the next run came a
/// night later: ratewatch times its runs by this machine's clock, which a test cannot wait
/// a night for. The rules that look back over nights (an alert listed again after a week,
/// an acknowledgement's end) read the runs' times.
pub fn a_night_passes(db: &Path) {
    if !db.exists() {
        return;
    }
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(
            "UPDATE runs SET
                 started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '-1 day'),
                 finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', finished_at, '-1 day');",
        )
        .unwrap();
}

/// Every color period's bounds worked out from the ratings alone, as the view
/// `color_periods` did before the periods were kept (the backfill of the migration that
/// keeps them): what the trigger `ratings_in_order` must have kept, row for row.
pub fn color_period_bounds_from_ratings() -> &'static str {
    let migration = include_str!("../../migrations/upgrade/0031_color_periods_kept.sql");
    let start = migration
        .find("INSERT INTO color_period_bounds")
        .expect("the backfill");
    let end = start + migration[start..].find(';').expect("its end") + 1;
    &migration[start..end]
}

/// `color_period_bounds` of the database at `db`: one line per period, in order.
pub fn color_period_bounds(conn: &rusqlite::Connection) -> Vec<String> {
    let mut stmt = conn
        .prepare(
            "SELECT first_rating_id, company, color, valid_from, valid_to, last_rating_id
             FROM color_period_bounds ORDER BY first_rating_id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok(format!(
            "{} {} {} {} {:?} {:?}",
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<i64>>(5)?
        ))
    })
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

/// Asserts that the periods the trigger kept in the database at `db` are those its ratings
/// make, worked out again from scratch (and left as they were).
pub fn assert_color_periods_kept(db: &Path) {
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let kept = color_period_bounds(&conn);
    let tx = conn.transaction().unwrap();
    tx.execute_batch(&format!(
        "DELETE FROM color_period_bounds; {}",
        color_period_bounds_from_ratings()
    ))
    .unwrap();
    let worked_out = color_period_bounds(&tx);
    drop(tx);
    assert!(!kept.is_empty(), "no color periods in {}", db.display());
    assert_eq!(
        kept, worked_out,
        "the periods kept, and as the ratings make them"
    );
}

/// Reads one HTTP/1.1 request's head; `None` when the client goes away first.
pub async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf).to_string();
    let mut lines = head.split("\r\n");
    let target = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Some(Seen {
        target,
        headers,
        at: Instant::now(),
    })
}

/// Writes `reply` and closes the connection.
pub async fn write_reply(stream: &mut tokio::net::TcpStream, reply: &Reply) {
    let mut response = format!("HTTP/1.1 {}\r\n", reply.status);
    for (name, value) in &reply.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        reply.body.len()
    ));
    let mut response = response.into_bytes();
    response.extend_from_slice(&reply.body);
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
}

/// A temporary folder with a database, reports and portfolios, and `screen` run in it.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl binary::InFolder for Workspace {
    fn folder(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Workspace {
    /// `ratewatch ARGS…` in this folder (where it finds a ratewatch.toml): the one every
    /// test file reaches without naming [`binary::InFolder`].
    pub fn ratewatch<I, S>(&self, args: I) -> Ratewatch
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        binary::InFolder::ratewatch(self, args)
    }

    pub fn new() -> Self {
        Workspace {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    pub fn db(&self) -> PathBuf {
        self.path("ratewatch.db")
    }
    pub fn write(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, content).unwrap();
        p
    }

    /// `screen PORTFOLIO` against the simulator with the right key.
    pub fn screen(&self, sim: &Background, portfolio: &Path) -> Ratewatch {
        self.screen_on(sim, portfolio, &self.db())
    }

    /// The same, on the database at `db`.
    pub fn screen_on(&self, sim: &Background, portfolio: &Path, db: &Path) -> Ratewatch {
        self.screen_at_on(&sim.server.base_url(), portfolio, db)
    }

    /// `screen` against any base URL (a server standing in front of the simulator).
    pub fn screen_at(&self, base: &str, portfolio: &Path) -> Ratewatch {
        self.screen_at_on(base, portfolio, &self.db())
    }

    fn screen_at_on(&self, base: &str, portfolio: &Path, db: &Path) -> Ratewatch {
        let mut command = self.ratewatch(["screen"]);
        command
            .env("RATEWATCH_API_KEY", KEY)
            .arg(portfolio)
            .db(db)
            .arg("--out")
            .arg(self.path("out"))
            .args(["--base-url", base]);
        command
    }

    /// The arguments of `screen PORTFOLIO` against `base`, on this workspace's database and
    /// report folder.
    pub fn screen_args(&self, base: &str, portfolio: &Path) -> Vec<String> {
        let (db, out) = (self.db(), self.path("out"));
        [
            portfolio.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--base-url",
            base,
        ]
        .map(String::from)
        .to_vec()
    }

    /// `ratewatch screen PORTFOLIO ARGS…` against `base`, on this workspace's database and
    /// report folder, run in-process through the library as the command runs it (on a
    /// runtime of its own, one thread as the binary's): for a test that needs a run's
    /// outcome, not a process. Call it outside any runtime.
    pub fn screen_in_process(&self, base: &str, portfolio: &Path, args: &[&str]) -> Screening {
        let mut all = self.screen_args(base, portfolio);
        all.extend(args.iter().map(|a| a.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let request = screen_request(&all, KEY);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut summary = Vec::new();
        let outcome = runtime.block_on(screen_in_this_process(&request, &(), &mut summary));
        Screening {
            outcome,
            summary: String::from_utf8(summary).unwrap(),
        }
    }

    pub fn report(&self) -> Value {
        let text = std::fs::read_to_string(self.path("out/report.json")).unwrap();
        let json: Value = serde_json::from_str(&text).unwrap();
        let schema: Value = serde_json::from_str(ratewatch::report::json::SCHEMA).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "report.json breaks its schema: {errors:#?}"
        );
        json
    }
}

/// `run::screen`, tried again while the run lock is held by this very process. A lock that a
/// run of this process released can outlive its release by a moment: a process that
/// another test starts at that moment holds a copy of the lock's descriptor until it
/// executes its program (a while, on a loaded machine), and the lock is the descriptor's.
/// Nothing is done before the lock is taken: trying again is the same run.
pub async fn screen_in_this_process(
    request: &Request,
    watcher: &impl Watcher,
    summary: &mut Vec<u8>,
) -> Result<Screened, Error> {
    let ours = format!("process {} ", std::process::id());
    let begun = Instant::now();
    loop {
        match ratewatch::run::screen(request, watcher, &mut *summary).await {
            Err(Error::Store {
                source: StoreError::Busy { holder },
                ..
            }) if holder.contains(&ours) && begun.elapsed() < wait::STUCK => {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            outcome => return outcome,
        }
    }
}

/// A screening run in-process: its outcome, or the error the command would end on, and the
/// summary it wrote (the command's stdout).
pub struct Screening {
    pub outcome: Result<Screened, Error>,
    pub summary: String,
}

impl Screening {
    /// The exit code `ratewatch screen` would end with.
    pub fn exit_code(&self) -> ExitCode {
        match &self.outcome {
            Ok(screened) => screened.exit_code(),
            Err(e) => e.exit_code(),
        }
    }

    /// The run, which finished; fails with the error and the summary if it did not.
    pub fn run(&self) -> &RunInfo {
        match &self.outcome {
            Ok(screened) => &screened.run,
            Err(_) => panic!("the run did not finish: {self:?}"),
        }
    }
}

/// The exit code, the outcome and the summary: what an assertion on a run shows.
impl std::fmt::Debug for Screening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let outcome = match &self.outcome {
            Ok(screened) => format!("{screened:?}"),
            Err(e) => format!("error: {e}"),
        };
        write!(
            f,
            "exit {:?}: {outcome}\n--- summary\n{}",
            self.exit_code(),
            self.summary
        )
    }
}

/// The rows of a report.json, by `ref`.
pub fn rows_by_ref(report: &Value) -> HashMap<String, Value> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ref"].as_str().unwrap_or("").to_string(), r.clone()))
        .collect()
}

/// A screening as `ratewatch screen ARGS…` asks for it, with `key` as the environment's
/// API key: built by the command's own code.
pub fn screen_request(args: &[&str], key: &str) -> ratewatch::run::Request {
    use clap::Parser;
    use ratewatch::settings::cli::{Cli, Command};
    use ratewatch::settings::config::{KEY_ENV, Sources};
    let cli = Cli::try_parse_from(["ratewatch", "screen"].iter().chain(args)).unwrap();
    let Command::Screen(args) = cli.command else {
        unreachable!("a screen command")
    };
    let sources = Sources::load(None, |k| (k == KEY_ENV).then(|| key.to_string()))
        .unwrap()
        .with_reader(cli.reader);
    ratewatch::commands::screen::request(args, &sources).unwrap()
}

/// A summary without its heading line (`ratewatch 2026-11-26 · book · run 1 · …/report.html`),
/// which every summary that says anything opens with: what the night says comes next.
pub fn after_heading(text: &str) -> &str {
    let (heading, rest) = text.split_once('\n').unwrap_or((text, ""));
    let date = heading.strip_prefix("ratewatch ").unwrap_or_default();
    assert!(
        date.len() > 13 && date.as_bytes()[4] == b'-' && date[10..].starts_with(" · "),
        "a summary opens with its heading line: {text}"
    );
    rest
}

/// A simulator that answers after 30 ms, and a first night of a 240-row portfolio screened
/// against it: a database, and a file whose next screening lasts long enough for other
/// commands, or a page, to meet it.
pub fn a_slow_night() -> (Background, Workspace, std::path::PathBuf) {
    a_first_night(std::time::Duration::from_millis(30), 240, 8)
}

/// A simulator that answers after `latency`, and a first night of a `rows`-row portfolio
/// screened against it at `concurrency` requests in flight.
pub fn a_first_night(
    latency: std::time::Duration,
    rows: u64,
    concurrency: u16,
) -> (Background, Workspace, std::path::PathBuf) {
    // The night the tests meet is day 5, on today.
    let sim = background(SimConfig {
        faults: ratewatch::sim::Faults {
            latency,
            ..ratewatch::sim::Faults::default()
        },
        calendar: calendar_ending_on_today(5),
        ..sample_config()
    });
    let ws = Workspace::new();
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), rows, &mut buf).unwrap();
    let file = ws.write("p.csv", &buf);
    let night = ws
        .screen(&sim, &file)
        .args(["--concurrency", &concurrency.to_string()])
        .run();
    assert!(matches!(night.status.code(), Some(0 | 1)), "{night:?}");
    (sim, ws, file)
}

/// Each company of `acked`, acknowledged beside a run, is still acknowledged in `acks`
/// (`ratewatch acks --json`), unless the run saw it change color after it was
/// acknowledged: then the change is news, and ends the acknowledgement, as for
/// `ratewatch ack`. The changes are read from the run's report.json in `ws`.
pub fn assert_acks_kept_unless_changed(ws: &Workspace, acks: &Value, acked: &[String]) {
    let kept: Vec<&str> = acks
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["company_id"].as_str())
        .collect();
    let changed: Vec<String> = ws.report()["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            ["deteriorated", "improved", "changed", "gone"]
                .contains(&r["change"].as_str().unwrap_or(""))
        })
        .filter_map(|r| r["company_id"].as_str().map(str::to_string))
        .collect();
    for company in acked {
        assert!(
            kept.contains(&company.as_str()) || changed.contains(company),
            "{company} kept or changed: {acks}"
        );
    }
}

/// The listed alerts of run `run_id` in the database at `db`: (company, kind, previous
/// color), by company.
pub fn listed_alerts(db: &Path, run_id: i64) -> Vec<(String, String, Option<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT c.company_id, a.kind, a.previous_color FROM run_alerts a
             JOIN companies c ON c.id = a.company
             WHERE a.run_id = ?1 AND a.listed = 1 ORDER BY c.company_id",
        )
        .unwrap();
    stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}
