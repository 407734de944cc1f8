//! A year of nights: how large the database grows when a portfolio is screened every night
//! for a year with the per-night detail kept for `keep_run_details_days` (90 by default)
//! and the color history kept forever.
//!
//! ```text
//! cargo bench --bench year                                  # 20,000 rows, 365 nights
//! cargo bench --bench year -- --rows 2000                   # smaller, quicker
//! cargo bench --bench year -- --rows 20000 --nights 120     # the first four months
//! cargo bench --bench year -- --keep-run-details-days 0     # every night's rows kept
//! ```
//!
//! The portfolio `demo-portfolio` makes, screened a night at a time against `ratewatch
//! demo-server --day N` (256 requests in flight, no rate limit), in a folder under the
//! target folder (`tmp/bench-year/`, made afresh). No night is waited for: between two,
//! every time the database holds (the runs, the ratings' service dates and first
//! sightings, their refreshes and confirmations) is moved a day into the past, so that
//! each night lies on its own date, the service dated its ratings on the nights they were
//! seen, and the runs older than the window are as old as a year of cron would make them.
//!
//! Every 30 nights (`--every`), and after the last, one line: the night, the file's size
//! (its write-ahead log included), bytes per row, what the last 30 nights added per row
//! and night, the pages free for the next nights' rows, the runs whose rows are kept, and
//! the time so far. Then the figure the last nights imply for a year of 100,000 and of
//! 1,000,000 rows (the database grows in proportion to the rows; target: 100,000 rows × 365
//! nights within 1.5 GB with the default window).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;
use common::nights::{demo_server, everything_a_day_back, screen};

use ratewatch::sim::{DEFAULT_PER_COUNTRY, DEFAULT_SEED, Dataset};

/// A year, and the target for it: 100,000 rows within 1.5 GB.
const YEAR: u32 = 365;
const TARGET_ROWS: f64 = 100_000.0;
const TARGET_BYTES: f64 = 1.5e9;

struct Options {
    rows: u64,
    nights: u32,
    every: u32,
    /// `keep_run_details_days` in the folder's ratewatch.toml; unset: the default.
    keep_days: Option<u32>,
}

fn options() -> Options {
    let mut o = Options {
        rows: 20_000,
        nights: YEAR,
        every: 30,
        keep_days: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |flag: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{flag} N"))
        };
        match a.as_str() {
            "--rows" => o.rows = number("--rows").max(1),
            "--nights" => o.nights = number("--nights").max(1) as u32,
            "--every" => o.every = number("--every").max(1) as u32,
            "--keep-run-details-days" => {
                o.keep_days = Some(number("--keep-run-details-days") as u32)
            }
            _ => {} // cargo passes --bench
        }
    }
    o
}

/// The database's bytes on disk, its write-ahead log included.
fn size(db: &Path) -> u64 {
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    std::fs::metadata(db).map_or(0, |m| m.len()) + std::fs::metadata(wal).map_or(0, |m| m.len())
}

/// The pages free in the file (written into by the next nights), and the runs whose rows
/// are kept.
fn free_and_kept(db: &Path) -> (i64, i64) {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let free = conn
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    let kept = conn
        .query_row(
            "SELECT count(*) FROM runs WHERE details_pruned_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (free, kept)
}

fn main() {
    let o = options();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bench-year")
        .join(format!("{}-rows", o.rows));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    let window = match o.keep_days {
        Some(days) => {
            std::fs::write(
                dir.join("ratewatch.toml"),
                format!("keep_run_details_days = {days}\n"),
            )
            .unwrap();
            format!("keep_run_details_days = {days}")
        }
        None => "the default window (90 days)".to_string(),
    };
    let portfolio = dir.join("portfolio.csv");
    let data = Dataset::new(DEFAULT_SEED, DEFAULT_PER_COUNTRY);
    ratewatch::sim::portfolio::write(&data, o.rows, std::fs::File::create(&portfolio).unwrap())
        .unwrap();
    let db = dir.join("ratewatch.db");
    println!(
        "{} rows x {} nights, {window}: {}",
        o.rows,
        o.nights,
        db.display()
    );
    println!(
        "{:>6} {:>10} {:>10} {:>16} {:>11} {:>10} {:>8}",
        "night", "size MB", "B/row", "B/row/night", "free pages", "runs kept", "time s"
    );
    let started = Instant::now();
    let mut before = (0u32, 0u64);
    let mut last_per_night = 0.0;
    for night in 1..=o.nights {
        if night > 1 {
            everything_a_day_back(&db);
        }
        let server = demo_server(night, &dir.join("demo-server.log"));
        screen(&dir, &portfolio, &db, &server.url);
        drop(server);
        if night % o.every == 0 || night == o.nights {
            let bytes = size(&db);
            let (free, kept) = free_and_kept(&db);
            let per_night =
                (bytes as f64 - before.1 as f64) / o.rows as f64 / f64::from(night - before.0);
            if before.0 > 0 {
                last_per_night = per_night;
            }
            println!(
                "{night:>6} {:>10.1} {:>10.0} {:>16.1} {free:>11} {kept:>10} {:>8.0}",
                bytes as f64 / 1e6,
                bytes as f64 / o.rows as f64,
                per_night,
                started.elapsed().as_secs_f64()
            );
            std::io::stdout().flush().unwrap();
            before = (night, bytes);
        }
    }
    // A year: what the file holds now, and what the last nights add each night until the
    // year is out, in proportion to the rows.
    let per_row = before.1 as f64 / o.rows as f64;
    let year_per_row = per_row + last_per_night * f64::from(YEAR.saturating_sub(o.nights));
    for rows in [TARGET_ROWS, 1_000_000.0] {
        let bytes = year_per_row * rows;
        let verdict = if rows == TARGET_ROWS {
            if bytes <= TARGET_BYTES {
                ", target 1.5 GB: met"
            } else {
                ", target 1.5 GB: missed"
            }
        } else {
            ""
        };
        println!(
            "implied for {rows:.0} rows x {YEAR} nights: {:.2} GB ({year_per_row:.0} B/row){verdict}",
            bytes / 1e9
        );
    }
}
