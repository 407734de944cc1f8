//! Throughput, CPU, memory and database growth of `ratewatch screen` against
//! `ratewatch demo-server`, each in its own process so the client is measured alone.
//!
//! ```text
//! cargo bench --bench throughput                  # the full set (about half an hour)
//! cargo bench --bench throughput -- --quick       # smaller portfolios (a few minutes)
//! cargo bench --bench throughput -- --latency-ms 20 --rate-limit 3000 --skip-million
//! cargo bench --bench throughput -- --c8-rows 10000  # the C=8 setting on fewer rows
//! cargo bench --bench throughput -- --concurrency 256 --skip-million  # one setting again
//! cargo bench --bench throughput -- --concurrency 256 --skip-million --export  # and as an ERP export
//! cargo bench --bench throughput -- --pin   # simulator and ratewatch on a core each
//! cargo bench --bench throughput -- --sql ratewatch.db [--portfolio NAME]  # the SQL alone
//! ```
//!
//! The service's speed bounds the job: with latency L and C requests in flight, at most
//! C / L requests per second leave, so the ideal is C / L divided by the calls each row
//! really needs. Each setting prints rows/s while screening (the reports, local work with
//! a target of their own, are timed apart; the total wall time is shown too) against that
//! ideal, the client's CPU per row
//! (user + system time of the ratewatch process alone, from wait4), its peak RSS, the
//! database bytes per row, and the calls made against the fewest possible.
//!
//! Then the SQL an analyst runs on the database the C=256 setting built (its first run and
//! its nightly one): the whole portfolio joined to its companies' latest ratings, one
//! company by its UUID, a SIREN to its color, the color of every company on a date (the
//! median of several runs each). `--sql DB` times the same on any database, and nothing
//! else.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::Listening;

const KEY: &str = "demo-key";
/// Companies per country: enough for a million rows (900,000 distinct companies).
const PER_COUNTRY: &str = "100000";

struct Options {
    quick: bool,
    /// Rows of the C=8 setting (slow by nature: 100k rows take about 20 minutes).
    c8_rows: Option<u64>,
    latency_ms: u64,
    rate_limit: Option<f64>,
    skip_million: bool,
    /// The first-run settings to measure (the nightly re-run follows C=256).
    concurrency: Vec<u32>,
    /// Simulator and ratewatch each on a core of its own, as against the real service
    /// they never share one (`--pin`, with two cores or more).
    pin: bool,
    /// Also screen the C=256 portfolio as an ERP export (`--export`): mapped headers and
    /// carried columns, to compare with the plain line.
    export: bool,
    /// Only time the SQL on this database (`--sql DB`), of this portfolio (`--portfolio`;
    /// default: that of the latest finished run).
    sql: Option<PathBuf>,
    portfolio: Option<String>,
}

fn options() -> Options {
    let mut o = Options {
        quick: false,
        c8_rows: None,
        latency_ms: 50,
        rate_limit: None,
        skip_million: false,
        concurrency: vec![8, 64, 256],
        pin: false,
        export: false,
        sql: None,
        portfolio: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--skip-million" => o.skip_million = true,
            "--export" => o.export = true,
            "--pin" => o.pin = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2),
            "--c8-rows" => o.c8_rows = args.next().and_then(|v| v.parse().ok()),
            "--sql" => o.sql = Some(args.next().expect("--sql DB").into()),
            "--portfolio" => o.portfolio = Some(args.next().expect("--portfolio NAME")),
            "--latency-ms" => {
                o.latency_ms = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--latency-ms N")
            }
            "--rate-limit" => o.rate_limit = args.next().and_then(|v| v.parse().ok()),
            "--concurrency" => {
                o.concurrency = args
                    .next()
                    .map(|v| v.split(',').filter_map(|c| c.parse().ok()).collect())
                    .filter(|c: &Vec<u32>| !c.is_empty())
                    .expect("--concurrency N[,N…]")
            }
            _ => {} // cargo passes --bench
        }
    }
    o
}

/// The core the simulator runs on, and the one ratewatch runs on, when pinned.
const SIMULATOR_CPU: usize = 1;
const CLIENT_CPU: usize = 0;

/// Makes `command`'s process run on `cpu` alone (when `pin`).
fn pinned(command: &mut Command, pin: bool, cpu: usize) -> &mut Command {
    if pin {
        // SAFETY: between fork and exec only sched_setaffinity runs, which is async-signal
        // safe, on a set built before the fork.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            command.pre_exec(move || {
                if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    command
}

/// A `ratewatch demo-server` child of the benchmark's dataset, on a core of its own with
/// `--pin`, killed on drop.
fn demo_server(extra: &[String], pin: bool) -> Listening {
    Listening::start(
        pinned(
            &mut Command::new(env!("CARGO_BIN_EXE_ratewatch")),
            pin,
            SIMULATOR_CPU,
        )
        .args([
            "demo-server",
            "--port",
            "0",
            "--companies-per-country",
            PER_COUNTRY,
        ])
        .args(extra),
        "demo-server",
        None,
    )
}

/// Requests per second the simulator answers at zero latency, loaded by this process.
fn simulator_ceiling(pin: bool) -> f64 {
    let server = demo_server(&[], pin);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let data = ratewatch::sim::Dataset::new(ratewatch::sim::server::DEFAULT_SEED, 100_000);
        let ids: Vec<String> = (0..1_000)
            .map(|n| {
                data.uuid(ratewatch::sim::CompanyRef {
                    country: n % 10,
                    n: n as u32,
                })
                .to_string()
            })
            .collect();
        let until = Instant::now() + Duration::from_secs(3);
        let tasks = (0..64).map(|t| {
            let (client, url, ids) = (client.clone(), server.url.clone(), ids.clone());
            tokio::spawn(async move {
                let mut done = 0u64;
                let mut i = t;
                while Instant::now() < until {
                    let id = &ids[i % ids.len()];
                    i += 64;
                    let ok = client
                        .get(format!("{url}/v2/companies/{id}/ratings"))
                        .header("apikey", KEY)
                        .send()
                        .await
                        .map(|r| r.status().is_success())
                        .unwrap_or(false);
                    done += u64::from(ok);
                }
                done
            })
        });
        let started = Instant::now();
        let mut total = 0;
        for t in tasks.collect::<Vec<_>>() {
            total += t.await.unwrap();
        }
        total as f64 / started.elapsed().as_secs_f64()
    })
}

/// The service's latency as a client sees it: the median of sequential requests on one
/// connection (the simulator's sleep plus the loopback and timer rounding).
fn measured_latency(url: &str) -> Duration {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut times = Vec::new();
        for _ in 0..41 {
            let t = Instant::now();
            let ok = client
                .get(format!("{url}/v2/lookups/countries"))
                .send()
                .await
                .map(|r| r.status().is_success())
                .unwrap_or(false);
            assert!(ok, "the simulator answers");
            times.push(t.elapsed());
        }
        times.sort();
        times[times.len() / 2]
    })
}

/// What HTTP alone costs: rating requests looped by `concurrency` tasks on one thread,
/// with the same HTTP client as ratewatch and nothing else (no input, no storage), for a
/// few seconds. Returns requests/s and CPU µs per request (this process's user + system
/// time; nothing else runs in it meanwhile). This is the floor under ratewatch's CPU per
/// call.
fn http_floor(url: &str, concurrency: usize, pin: bool) -> (f64, f64) {
    // On ratewatch's core, like ratewatch; the whole process's affinity is put back after.
    // SAFETY: zeroed cpu sets are valid values, filled and read by the kernel.
    let mut all: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if pin {
        let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: CLIENT_CPU is within the set's size; valid sets of the size given, for
        // this thread (0).
        unsafe {
            libc::CPU_SET(CLIENT_CPU, &mut one);
            libc::sched_getaffinity(0, std::mem::size_of_val(&all), &mut all);
            libc::sched_setaffinity(0, std::mem::size_of_val(&one), &one);
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let before = own_cpu();
    let started = Instant::now();
    let done = rt.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        let data = ratewatch::sim::Dataset::new(ratewatch::sim::server::DEFAULT_SEED, 100_000);
        let ids: std::sync::Arc<Vec<String>> = std::sync::Arc::new(
            (0..100_000u32)
                .map(|n| {
                    let company = ratewatch::sim::CompanyRef {
                        country: (n % 10) as usize,
                        n,
                    };
                    format!("{url}/v2/companies/{}/ratings", data.uuid(company))
                })
                .collect(),
        );
        let until = Instant::now() + Duration::from_secs(5);
        let mut tasks = tokio::task::JoinSet::new();
        for t in 0..concurrency {
            let (client, ids) = (client.clone(), ids.clone());
            tasks.spawn(async move {
                let (mut done, mut i) = (0u64, t);
                while Instant::now() < until {
                    let response = client
                        .get(&ids[i % ids.len()])
                        .header("apikey", KEY)
                        .send()
                        .await
                        .expect("the simulator answers");
                    assert!(response.status().is_success());
                    response.bytes().await.expect("a whole body");
                    done += 1;
                    i += concurrency;
                }
                done
            });
        }
        let mut done = 0;
        while let Some(n) = tasks.join_next().await {
            done += n.unwrap();
        }
        done
    });
    let cpu = own_cpu() - before;
    drop(rt);
    if pin {
        // SAFETY: the set read above, for this thread.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&all), &all) };
    }
    (
        done as f64 / started.elapsed().as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / done as f64,
    )
}

/// User + system time of this process so far.
fn own_cpu() -> Duration {
    // SAFETY: a zeroed rusage is a valid value; getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(r, 0, "getrusage failed");
    timeval(usage.ru_utime) + timeval(usage.ru_stime)
}

fn portfolio(dir: &Path, rows: u64) -> PathBuf {
    let path = dir.join(format!("portfolio-{rows}.csv"));
    let file = std::fs::File::create(&path).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_ratewatch"))
        .args([
            "demo-portfolio",
            "--rows",
            &rows.to_string(),
            "--companies-per-country",
            PER_COUNTRY,
        ])
        .stdout(file)
        .status()
        .unwrap();
    assert!(status.success());
    path
}

/// The generated portfolio rewritten as a French ERP export: semicolons, its own headers
/// (mapped back by the returned `--column` arguments) and three columns ratewatch does not
/// read (an exposure, a sales owner, a credit limit).
fn as_export(file: &Path) -> (PathBuf, Vec<String>) {
    let path = file.with_file_name("export.csv");
    let mut reader = csv::Reader::from_path(file).unwrap();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_path(&path)
        .unwrap();
    let names = [
        ("ref", "Référence client"),
        ("country", "Pays"),
        ("service", "Registre"),
        ("id", "Numéro"),
        ("name", "Raison sociale"),
        ("city", "Ville"),
    ];
    let headers = reader.headers().unwrap().clone();
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        names.map(|(field, _)| field)
    );
    let mut header: Vec<&str> = names.iter().map(|(_, h)| *h).collect();
    header.extend(["Encours EUR", "Commercial", "Limite de crédit"]);
    writer.write_record(&header).unwrap();
    for (i, record) in reader.records().enumerate() {
        let mut row: Vec<String> = record.unwrap().iter().map(String::from).collect();
        row.push(format!("{},{:02}", (i * 7919) % 250_000, i % 100));
        row.push(["Durand", "Martin", "Lefèvre", "Moreau"][i % 4].to_string());
        row.push(((i % 20 + 1) * 5_000).to_string());
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
    let columns = names
        .iter()
        .flat_map(|(field, header)| ["--column".to_string(), format!("{field}={header}")])
        .collect();
    (path, columns)
}

struct Measure {
    rows: u64,
    wall: Duration,
    cpu: Duration,
    max_rss_kib: u64,
    calls: u64,
    min_calls: u64,
    db_growth: u64,
    report_ms: u64,
    /// Bytes the run caused the database to write to storage (its I/O counters: the
    /// database, its log and the checkpoints; the reports taken out).
    written: u64,
}

/// The bytes of the files in a folder (the reports).
fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn db_size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db, wal.as_path()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// Runs `screen --dry-run` (no call, no write) and measures its wall time and peak RSS.
fn dry_run(file: &Path, db: &Path, pin: bool) -> (Duration, u64) {
    let started = Instant::now();
    let child = pinned(
        &mut Command::new(env!("CARGO_BIN_EXE_ratewatch")),
        pin,
        CLIENT_CPU,
    )
    .env("RATEWATCH_API_KEY", KEY)
    .args(["screen", "--dry-run", "--base-url", "http://127.0.0.1:9"])
    .arg(file)
    .arg("--db")
    .arg(db)
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let (status, usage) = wait_with_usage(child);
    assert_eq!(status, 0, "the dry run failed");
    (started.elapsed(), usage.ru_maxrss as u64)
}

/// Runs one `screen` and measures it.
/// How one screening is run: its concurrency, whether its rows need searches (a first
/// run), and flags added to the command line.
struct Setting<'a> {
    concurrency: u32,
    searches_needed: bool,
    extra: &'a [String],
}

fn screen(url: &str, file: &Path, db: &Path, out: &Path, setting: Setting, pin: bool) -> Measure {
    let Setting {
        concurrency,
        searches_needed,
        extra,
    } = setting;
    let before = db_size(db);
    let started = Instant::now();
    let mut child = pinned(
        &mut Command::new(env!("CARGO_BIN_EXE_ratewatch")),
        pin,
        CLIENT_CPU,
    )
    .env("RATEWATCH_API_KEY", KEY)
    .arg("screen")
    .arg(file)
    .arg("--db")
    .arg(db)
    .arg("--out")
    .arg(out)
    .args([
        "--base-url",
        url,
        "--concurrency",
        &concurrency.to_string(),
        "--quiet",
        "-v",
    ])
    .args(extra)
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let (status, usage) = wait_with_usage(child);
    let wall = started.elapsed();
    assert!(
        matches!(status, 0 | 1),
        "screen failed ({status}): {stderr}"
    );
    let cpu = timeval(usage.ru_utime) + timeval(usage.ru_stime);
    // Only the run's header (the report's first line) is read: a parsed million-row report
    // would swell this process, and a child's peak RSS counts its parent's at the fork.
    let first = BufReader::new(std::fs::File::open(out.join("report.json")).unwrap())
        .lines()
        .next()
        .unwrap()
        .unwrap();
    let header = first
        .trim_end()
        .trim_end_matches("\"rows\":[")
        .trim_end_matches(',');
    let report: serde_json::Value = serde_json::from_str(&format!("{header}}}")).unwrap();
    if !on_disk(out) {
        // Memory, not disk: a million rows' reports take most of a gigabyte.
        let _ = std::fs::remove_dir_all(out);
    }
    let run = &report["run"];
    let rows = run["rows"].as_u64().unwrap();
    let calls: u64 = run["calls"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|v| v.as_u64())
        .sum();
    let conn = rusqlite::Connection::open(db).unwrap();
    let run_id = run["id"].as_i64().unwrap();
    let companies: u64 = conn
        .query_row(
            "SELECT count(*) FROM run_companies WHERE run_id = ?1",
            [run_id],
            |r| r.get(0),
        )
        .unwrap();
    let searches: u64 = if searches_needed {
        conn.query_row("SELECT count(*) FROM resolutions", [], |r| r.get(0))
            .unwrap()
    } else {
        0
    };
    let report_ms = stderr
        .split("report_ms=")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Measure {
        rows,
        wall,
        cpu,
        max_rss_kib: usage.ru_maxrss as u64,
        // Linux counts the process's storage writes in 512-byte units here. The reports
        // go to memory when they can (see `reports_dir`); on disk, the report files are
        // taken out, and what is left is the database's and its spools'.
        written: (usage.ru_oublock as u64 * 512).saturating_sub(match on_disk(out) {
            true => folder_size(out),
            false => 0,
        }),
        calls,
        // Two lookup lists, one search per distinct search, one rating per company.
        min_calls: 2 + searches + companies,
        db_growth: db_size(db).saturating_sub(before),
        report_ms,
    }
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// Waits for the child and returns its exit code and resource usage (its own, alone).
fn wait_with_usage(child: Child) -> (i32, libc::rusage) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is a child of this process that nobody else waits for.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    std::mem::forget(child);
    (libc::WEXITSTATUS(status), usage)
}

struct Row {
    setting: String,
    m: Measure,
    ideal: f64,
    /// HTTP alone's CPU per request at this setting's concurrency, measured just before and
    /// just after it (their mean): the machine's speed drifts by a fifth over a benchmark,
    /// so a ratio to a floor measured minutes earlier would say as much about the drift as
    /// about ratewatch.
    floor_cpu: f64,
}

/// Where the reports go: a folder in memory (`/dev/shm`) when there is one, so that the
/// disk figures are the database's alone (report.html also spools its rows to a file
/// first, which a folder's size would not take out); else beside the databases.
fn reports_dir() -> Option<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("ratewatch-bench-reports")
        .tempdir_in("/dev/shm")
        .ok()
}

/// Whether a folder is on storage (not under `/dev/shm`).
fn on_disk(dir: &Path) -> bool {
    !dir.starts_with("/dev/shm")
}

fn main() {
    let o = options();
    if let Some(db) = &o.sql {
        sql_timings(db, o.portfolio.as_deref());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let reports = reports_dir();
    let reports_path = reports
        .as_ref()
        .map_or(dir.path(), |r| r.path())
        .to_path_buf();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "ratewatch throughput benchmark — {cores} cores, simulated latency {} ms{}",
        o.latency_ms,
        o.rate_limit
            .map(|r| format!(", rate limit {r}/s"))
            .unwrap_or_default()
    );
    println!(
        "{}",
        if o.pin {
            "simulator on core 1, ratewatch on core 0"
        } else {
            "simulator and ratewatch share the cores"
        }
    );
    if reports.is_some() {
        println!("reports are written in memory (/dev/shm): the disk figures are the database's");
    }
    let ceiling = simulator_ceiling(o.pin);
    println!("simulator ceiling: {ceiling:.0} requests/s at zero latency (64 connections)\n");

    let mut extra = vec!["--latency-ms".to_string(), o.latency_ms.to_string()];
    if let Some(r) = o.rate_limit {
        extra.extend(["--rate-limit".to_string(), r.to_string()]);
    }
    let server = demo_server(&extra, o.pin);
    let latency = measured_latency(&server.url);
    println!(
        "service latency L as measured: {:.1} ms (median; the ideal below uses it)\n",
        latency.as_secs_f64() * 1e3
    );
    let (floor_rps, floor_cpu) = http_floor(&server.url, 256, o.pin);
    println!(
        "HTTP alone (a bare loop of rating requests, same client, C=256): {floor_rps:.0} requests/s \
         = {:.1}% of C/L, {floor_cpu:.1} µs CPU per request (measured again around each \
         setting, at its concurrency: each CPU ratio below uses its own)\n",
        100.0 * floor_rps / (256.0 / latency.as_secs_f64())
    );
    let n = if o.quick { 20_000 } else { 100_000 };
    let file = portfolio(dir.path(), n);
    let mut rows = Vec::new();
    let ideal = |c: u32, m: &Measure| {
        let per_second = c as f64 / latency.as_secs_f64();
        let mut ideal = per_second / (m.min_calls as f64 / m.rows as f64);
        if let Some(r) = o.rate_limit {
            ideal = ideal.min(r / (m.min_calls as f64 / m.rows as f64));
        }
        ideal
    };
    // Screens `file` into `db` at concurrency `c`, then records and prints the figures.
    let mut measure = |setting: String,
                       file: &Path,
                       db: &str,
                       out: &str,
                       c: u32,
                       fresh: bool,
                       extra: &[String]| {
        let db = dir.path().join(db);
        // At the setting's own concurrency: fewer requests in flight wake the client more
        // often for each, and HTTP alone at C=256 would be a floor no C=8 client stands on.
        let before = http_floor(&server.url, c as usize, o.pin).1;
        let m = screen(
            &server.url,
            file,
            &db,
            &reports_path.join(out),
            Setting {
                concurrency: c,
                searches_needed: fresh,
                extra,
            },
            o.pin,
        );
        let after = http_floor(&server.url, c as usize, o.pin).1;
        rows.push(Row {
            setting,
            ideal: ideal(c, &m),
            m,
            floor_cpu: (before + after) / 2.0,
        });
        print_row(rows.last().unwrap());
    };
    println!("{}", header());
    for &c in &o.concurrency {
        let c8_rows = o.c8_rows.unwrap_or(if o.quick { 2_000 } else { n });
        let (file, label) = if c == 8 && c8_rows != n {
            (
                portfolio(dir.path(), c8_rows),
                format!("{}k", c8_rows / 1000),
            )
        } else {
            (file.clone(), format!("{}k", n / 1000))
        };
        let (db, out) = (format!("c{c}.db"), format!("out{c}"));
        measure(format!("N={label} C={c}"), &file, &db, &out, c, true, &[]);
    }
    if o.concurrency.contains(&256) {
        let setting = format!("N={}k C=256 nightly", n / 1000);
        measure(setting, &file, "c256.db", "out-nightly", 256, false, &[]);
    }
    if o.export && o.concurrency.contains(&256) {
        // The same rows as an ERP writes them: its own headers, mapped with --column, and
        // three columns ratewatch carries through to the reports.
        let (export, columns) = as_export(&file);
        let setting = format!("N={}k C=256 export", n / 1000);
        measure(
            setting,
            &export,
            "export.db",
            "out-export",
            256,
            true,
            &columns,
        );
    }
    let mut preview = None;
    if !o.skip_million {
        let big = if o.quick { 200_000 } else { 1_000_000 };
        let file = portfolio(dir.path(), big);
        let setting = format!("N={}k C=256", big / 1000);
        measure(setting, &file, "million.db", "out-million", 256, true, &[]);
        // The same file counted again before a nightly run: every search is cached.
        let (wall, rss_kib) = dry_run(&file, &dir.path().join("million.db"), o.pin);
        println!(
            "N={}k --dry-run (nightly): {:.1} s, peak RSS {:.1} MB",
            big / 1000,
            wall.as_secs_f64(),
            rss_kib as f64 / 1024.0
        );
        preview = Some((big, wall, rss_kib));
    }
    if o.concurrency.contains(&256) {
        sql_timings(&dir.path().join("c256.db"), None);
    }
    println!();
    targets(&rows);
    if let Some((big, wall, rss_kib)) = preview {
        let mark = |ok: bool| if ok { "[met]" } else { "[MISSED]" };
        println!(
            "{} N={}k --dry-run in {:.1} s (target 10 s); peak RSS {:.1} MB {} (target 64)",
            mark(wall.as_secs() < 10),
            big / 1000,
            wall.as_secs_f64(),
            rss_kib as f64 / 1024.0,
            mark(rss_kib <= 64 * 1024)
        );
    }
}

fn header() -> &'static str {
    "setting                 rows/s   ideal  ratio  CPU µs/row  peak RSS  DB B/row  DB written B/row (× growth)  calls/min  report   total"
}

impl Measure {
    /// Rows per second while screening: from start to the reports, which are timed apart
    /// (they are local work, not bounded by the service, and have a target of their own).
    fn rate(&self) -> f64 {
        let screening = self
            .wall
            .saturating_sub(Duration::from_millis(self.report_ms));
        self.rows as f64 / screening.as_secs_f64()
    }
}

fn print_row(r: &Row) {
    let m = &r.m;
    let rate = m.rate();
    println!(
        "{:<22} {:>7.0} {:>7.0} {:>5.1}% {:>11.1} {:>6.1} MB {:>9.0} {:>17.0} ({:>5.1}×) {:>5}/{:<5} {:>5} ms {:>6.1} s",
        r.setting,
        rate,
        r.ideal,
        100.0 * rate / r.ideal,
        m.cpu.as_secs_f64() * 1e6 / m.rows as f64,
        m.max_rss_kib as f64 / 1024.0,
        m.db_growth as f64 / m.rows as f64,
        m.written as f64 / m.rows as f64,
        m.written as f64 / m.db_growth.max(1) as f64,
        m.calls,
        m.min_calls,
        m.report_ms,
        m.wall.as_secs_f64()
    );
}

/// Checks the targets; each row's `floor_cpu` (µs per request of HTTP alone, around it)
/// shows how much of its CPU its calls cost before ratewatch does anything.
fn targets(rows: &[Row]) {
    let mut met = true;
    let mut check = |ok: bool, what: String| {
        met &= ok;
        println!("[{}] {what}", if ok { "met" } else { "MISSED" });
    };
    for r in rows {
        let rate = r.m.rate();
        // The million rows are there for memory and report time; the ratio is a target up
        // to 256 requests in flight on the 100k portfolio.
        let ratio_target = !r.setting.starts_with("N=1000k");
        check(
            !ratio_target || rate >= 0.95 * r.ideal,
            format!(
                "{}: {:.1}% of ideal{}",
                r.setting,
                100.0 * rate / r.ideal,
                if ratio_target {
                    " (target 95%)"
                } else {
                    " (shown, not a target)"
                }
            ),
        );
        check(
            r.m.calls == r.m.min_calls,
            format!(
                "{}: {} calls, {} needed",
                r.setting, r.m.calls, r.m.min_calls
            ),
        );
        let cpu = r.m.cpu.as_secs_f64() * 1e6 / r.m.rows as f64;
        let http = r.floor_cpu * r.m.min_calls as f64 / r.m.rows as f64;
        // Against what its calls alone cost, as HTTP costs at its concurrency around it.
        let nightly = r.setting.contains("nightly");
        let times = if nightly { 1.5 } else { 2.0 };
        check(
            cpu <= times * http,
            format!(
                "{}: {cpu:.1} µs CPU per row, {:.2}× its calls alone ({http:.1}; target {times}×)",
                r.setting,
                cpu / http
            ),
        );
        let amplification = r.m.written as f64 / r.m.db_growth.max(1) as f64;
        check(
            amplification <= 4.0,
            format!(
                "{}: {:.1} MB written for {:.1} MB of database growth, {amplification:.1}× (target 4×)",
                r.setting,
                r.m.written as f64 / 1e6,
                r.m.db_growth as f64 / 1e6
            ),
        );
        if !nightly {
            let growth = r.m.db_growth as f64 / r.m.rows as f64;
            check(
                growth <= 400.0,
                format!(
                    "{}: database grows {growth:.0} bytes per first-run row (target 400)",
                    r.setting
                ),
            );
        }
    }
    if let Some(n) = rows.iter().find(|r| r.setting.contains("nightly")) {
        let growth = n.m.db_growth as f64 / n.m.rows as f64;
        check(
            growth <= 100.0,
            format!("nightly: database grows {growth:.0} bytes per row (target 100)"),
        );
    }
    let plain = rows
        .iter()
        .find(|r| r.setting.ends_with("C=256") && !r.setting.starts_with("N=1000k"));
    if let (Some(plain), Some(export)) =
        (plain, rows.iter().find(|r| r.setting.ends_with("export")))
    {
        let cpu = |r: &Row| r.m.cpu.as_secs_f64() * 1e6 / r.m.rows as f64;
        check(
            export.m.rate() >= 0.9 * plain.m.rate(),
            format!(
                "as an ERP export: {:.1}% of the plain file's rows/s (target 90%); CPU per row {:+.1}%",
                100.0 * export.m.rate() / plain.m.rate(),
                100.0 * (cpu(export) / cpu(plain) - 1.0)
            ),
        );
    }
    if let Some(big) = rows.iter().find(|r| r.setting.starts_with("N=1000k")) {
        let rss = big.m.max_rss_kib as f64 / 1024.0;
        check(
            rss <= 64.0,
            format!("1M rows: peak RSS {rss:.1} MB (target 64)"),
        );
        check(
            big.m.report_ms < 10_000,
            format!("1M rows: reports in {} ms (target 10 s)", big.m.report_ms),
        );
    }
    println!(
        "\n{}",
        if met {
            "every target met"
        } else {
            "some targets missed"
        }
    );
}

/// Times of each SQL query: the median of this many runs, after one that warms the cache.
const SQL_RUNS: usize = 7;

/// Times what an analyst asks of the database with SQL, through the views of
/// docs/database.md, on the portfolio's latest finished run: each query's median, and the
/// rows it gave.
fn sql_timings(db: &Path, portfolio: Option<&str>) {
    let conn = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .expect("the database opens");
    let one = |sql: &str, params: &[&dyn rusqlite::ToSql]| -> Option<String> {
        conn.query_row(sql, params, |r| r.get(0)).ok()
    };
    let Some((portfolio, started)) = (match portfolio {
        Some(p) => one(
            "SELECT started_at FROM latest_finished_runs WHERE portfolio = ?1",
            &[&p],
        )
        .map(|s| (p.to_string(), s)),
        None => conn
            .query_row(
                "SELECT portfolio, started_at FROM latest_finished_runs ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok(),
    }) else {
        println!("\nSQL: no finished run in {}", db.display());
        return;
    };
    let companies: i64 = conn
        .query_row("SELECT count(*) FROM latest_ratings", [], |r| r.get(0))
        .unwrap();
    // A company from the middle of the table, and a SIREN likewise.
    let company_id = one(
        "SELECT company_id FROM latest_ratings ORDER BY company LIMIT 1 OFFSET ?1",
        &[&(companies / 2)],
    );
    let sirens: i64 = conn
        .query_row(
            "SELECT count(*) FROM company_external_ids WHERE service = 'SIREN'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let siren = one(
        "SELECT external_id FROM company_external_ids WHERE service = 'SIREN'
         ORDER BY company LIMIT 1 OFFSET ?1",
        &[&(sirens / 2)],
    );
    let refs: i64 = conn
        .query_row(
            "SELECT count(*) FROM portfolio_now WHERE portfolio = ?1",
            [&portfolio],
            |r| r.get(0),
        )
        .unwrap();
    println!(
        "\nSQL on {} ({refs} references of {portfolio}, {companies} companies; the median of {SQL_RUNS} runs):",
        db.display()
    );
    let time = |what: &str, sql: &str, params: &[(&str, &str)]| {
        let mut times = Vec::new();
        let mut rows = 0;
        for run in 0..=SQL_RUNS {
            let started = Instant::now();
            let mut stmt = conn.prepare(sql).expect("the query prepares");
            for (name, value) in params {
                let i = stmt
                    .parameter_index(name)
                    .unwrap()
                    .expect("a parameter of the query");
                stmt.raw_bind_parameter(i, value).unwrap();
            }
            let columns = stmt.column_count();
            let mut result = stmt.raw_query();
            rows = 0;
            while let Some(row) = result.next().expect("the query runs") {
                // Every column read, as a reader would.
                for c in 0..columns {
                    let _ = row.get_ref(c).unwrap();
                }
                rows += 1;
            }
            if run > 0 {
                times.push(started.elapsed());
            }
        }
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "  {what:<62} {:>10.3} ms  ({rows} row{})",
            median.as_secs_f64() * 1e3,
            if rows == 1 { "" } else { "s" }
        );
    };
    time(
        "portfolio_now joined to latest_ratings on company_id",
        "SELECT p.ref, p.name, l.color, l.last_change_date
         FROM portfolio_now p
         JOIN latest_ratings l ON l.company_id = p.company_id
         WHERE p.portfolio = :portfolio",
        &[(":portfolio", &portfolio)],
    );
    match &company_id {
        Some(id) => time(
            "one company by company_id in latest_ratings",
            "SELECT * FROM latest_ratings WHERE company_id = :id",
            &[(":id", id)],
        ),
        None => println!("  one company by company_id: no company"),
    }
    match &siren {
        // As samples/datasette.yml's company_by_siren asks it.
        Some(siren) => time(
            "a SIREN to its company's color",
            "SELECT l.company, l.company_id, l.name, l.color, l.last_change_date
             FROM company_external_ids e
             JOIN latest_ratings l ON l.company = e.company
             WHERE e.service = 'SIREN'
               AND e.external_id = substr(replace(:siren, ' ', ''), 1, 9)",
            &[(":siren", siren)],
        ),
        None => println!("  a SIREN to its company's color: no SIREN in the database"),
    }
    // As samples/datasette.yml's color_on_date asks it, at the run's start.
    time(
        "the color of every portfolio company on a date",
        "SELECT p.ref, p.company_id, p.name, cp.color, cp.valid_from, cp.valid_to
         FROM portfolio_now p
         LEFT JOIN color_periods cp
                ON cp.company = p.company
               AND cp.valid_from <= :date
               AND (cp.valid_to IS NULL OR cp.valid_to > :date)
         WHERE p.company IS NOT NULL
           AND p.portfolio = :portfolio",
        &[(":portfolio", &portfolio), (":date", &started)],
    );
}
