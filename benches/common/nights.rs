//! A large database built as nightly cron builds it: a portfolio of `demo-server`'s dataset
//! with an amount and an owner carried on every row (`[alerts] show` and `amount` in its
//! ratewatch.toml), a tenth of its name rows without their city (they match several
//! companies and wait in the review queue), screened a night at a time against
//! `ratewatch demo-server --day N` (256 requests in flight, no rate limit).
//!
//! Between nights, ratewatch's clock moves a day back: the runs' times only
//! ([`Nights::dated`] false, as `serve.rs` has it), or every time the database holds (the
//! runs, the ratings' service dates and sightings, their confirmations), so that each night
//! lies on its own date and the service dated its ratings on the nights they were seen.
//! With churn, a hundredth of the rows leaves the file each night, as many new ones come,
//! and a hundredth of the others has its amount edited; a second small portfolio can be
//! screened beside it each night.

use std::io::IsTerminal;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Listening, a_night_passes};
use ratewatch::sim::{DEFAULT_KEY, DEFAULT_PER_COUNTRY, DEFAULT_SEED, Dataset};

/// Requests in flight while the database is built: the simulator on this machine answers
/// far faster than the real service, so the nights take minutes.
const CONCURRENCY: &str = "256";

/// The carried columns the alerts show.
pub const AMOUNT: &str = "Outstanding (EUR)";
pub const OWNER: &str = "Account manager";

/// Written last when a database is built: a folder without it was interrupted.
const BUILT: &str = "built";

/// What to build.
pub struct Nights {
    /// Rows of the portfolio `portfolio.csv`.
    pub rows: u64,
    pub nights: u32,
    /// Every time of the database a day back between nights, not only the runs'.
    pub dated: bool,
    /// A hundredth of the rows added, removed and edited each night.
    pub churn: bool,
    /// Rows of a second portfolio, `watchlist.csv`, screened after it each night.
    pub beside: Option<u64>,
    /// Built again even if there.
    pub rebuild: bool,
}

impl Nights {
    /// Builds the database `ratewatch.db` in `dir` unless it is there already (or
    /// `rebuild`); says how long building took.
    pub fn build(&self, dir: &Path) {
        if dir.join(BUILT).exists() && !self.rebuild {
            println!(
                "database: {} (built before; --rebuild builds it again)",
                dir.join("ratewatch.db").display()
            );
            return;
        }
        if dir.exists() {
            std::fs::remove_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("ratewatch.toml"),
            format!("[alerts]\nshow = [\"{AMOUNT}\", \"{OWNER}\"]\namount = \"{AMOUNT}\"\n"),
        )
        .unwrap();
        let pool = Pool::new(self);
        let (portfolio, watchlist) = (dir.join("portfolio.csv"), dir.join("watchlist.csv"));
        let db = dir.join("ratewatch.db");
        let progress = std::io::stderr().is_terminal();
        let started = Instant::now();
        let mut nights = Vec::new();
        for night in 1..=self.nights {
            if night > 1 {
                if self.dated {
                    everything_a_day_back(&db);
                } else {
                    a_night_passes(&db);
                }
            }
            pool.write_night(self, night, &portfolio);
            let server = demo_server(night, &dir.join("demo-server.log"));
            let began = Instant::now();
            screen(dir, &portfolio, &db, &server.url);
            nights.push(began.elapsed());
            if self.beside.is_some() {
                pool.write_beside(&watchlist);
                screen(dir, &watchlist, &db, &server.url);
            }
            if progress {
                eprint!(
                    "\rbuilding: night {night} of {} ({:.0} s)",
                    self.nights,
                    started.elapsed().as_secs_f64()
                );
            }
        }
        if progress {
            eprintln!();
        }
        std::fs::write(dir.join(BUILT), "").unwrap();
        let mut later: Vec<Duration> = nights[1..].to_vec();
        later.sort();
        println!(
            "database: {} built in {:.0} s ({} nights: the first {:.1} s{}), {:.0} MB",
            db.display(),
            started.elapsed().as_secs_f64(),
            self.nights,
            nights[0].as_secs_f64(),
            later
                .get(later.len() / 2)
                .map(|m| format!(", the others {:.1} s median", m.as_secs_f64()))
                .unwrap_or_default(),
            std::fs::metadata(&db).unwrap().len() as f64 / 1e6
        );
    }
}

/// Every row the nights' files draw from, in the dataset's order, each with its amount and
/// owner; a tenth of the name rows without their city.
struct Pool {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// The place of the amount in a row.
    amount: usize,
}

impl Pool {
    fn new(n: &Nights) -> Pool {
        let step = if n.churn { n.rows / 100 } else { 0 };
        let total = n.rows + step * u64::from(n.nights) + n.beside.unwrap_or(0);
        let data = Dataset::new(DEFAULT_SEED, DEFAULT_PER_COUNTRY);
        let mut plain = Vec::new();
        ratewatch::sim::portfolio::write(&data, total, &mut plain).unwrap();
        let mut reader = csv::Reader::from_reader(&plain[..]);
        let mut header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let (name, city) = (column(&header, "name"), column(&header, "city"));
        header.extend([AMOUNT.to_string(), OWNER.to_string()]);
        let owners = [
            "A. Dupont",
            "B. Martin",
            "C. Bernard",
            "D. Petit",
            "E. Robert",
        ];
        let mut named = 0u64;
        let rows = reader
            .records()
            .enumerate()
            .map(|(i, record)| {
                let mut row: Vec<String> = record.unwrap().iter().map(String::from).collect();
                if !row[name].is_empty() {
                    named += 1;
                    if named.is_multiple_of(10) {
                        row[city].clear();
                    }
                }
                row.push(amount(i as u64));
                row.push(owners[i % owners.len()].to_string());
                row
            })
            .collect();
        let amount = header.len() - 2;
        Pool {
            header,
            rows,
            amount,
        }
    }

    /// The portfolio of `night`: with churn, the window of rows moves on a hundredth a
    /// night (as many leave as come), and a row's amount is edited on the nights a hash
    /// picks (a hundredth of them each night), each edit kept.
    fn write_night(&self, n: &Nights, night: u32, path: &Path) {
        let step = if n.churn { n.rows / 100 } else { 0 };
        let first = (step * u64::from(night - 1)) as usize;
        let mut writer = csv::Writer::from_path(path).unwrap();
        writer.write_record(&self.header).unwrap();
        for (i, row) in self.rows[first..first + n.rows as usize].iter().enumerate() {
            let i = (first + i) as u64;
            let edits = if n.churn {
                (1..=night)
                    .filter(|m| splitmix(i ^ (u64::from(*m) << 40)).is_multiple_of(100))
                    .count()
            } else {
                0
            };
            if edits == 0 {
                writer.write_record(row).unwrap();
            } else {
                let mut row = row.clone();
                row[self.amount] = amount(i + 1_000_000 * edits as u64);
                writer.write_record(&row).unwrap();
            }
        }
        writer.flush().unwrap();
    }

    /// The second portfolio: the pool's last rows, the same every night.
    fn write_beside(&self, path: &Path) {
        let mut writer = csv::Writer::from_path(path).unwrap();
        writer.write_record(&self.header).unwrap();
        let beside = self.rows.len() - self.rows.len().min(300);
        for row in &self.rows[beside..] {
            writer.write_record(row).unwrap();
        }
        writer.flush().unwrap();
    }
}

/// Moves every time the database holds a day into the past: the runs', the ratings' (the
/// service's dates and ratewatch's first sighting), their refreshes', their confirmations
/// and the color periods' bounds (worked out from those times, so moved with them).
pub fn everything_a_day_back(db: &Path) {
    let day_back =
        |column: &str| format!("{column} = strftime('%Y-%m-%dT%H:%M:%SZ', {column}, '-1 day')");
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(&format!(
            "BEGIN;
             UPDATE runs SET {}, {}, {};
             UPDATE ratings SET {}, {}, {};
             UPDATE rating_confirmations SET {};
             UPDATE rating_refreshes SET {};
             UPDATE color_period_bounds SET {}, {};
             COMMIT;",
            day_back("started_at"),
            day_back("finished_at"),
            day_back("delivered_at"),
            day_back("last_change_date"),
            day_back("last_refresh_date"),
            day_back("observed_at"),
            day_back("confirmed_at"),
            day_back("last_refresh_date"),
            day_back("valid_from"),
            day_back("valid_to"),
        ))
        .unwrap();
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

/// Row `i`'s outstanding amount: from 500 to about 2 million, most of them small, in no
/// relation to the file's order.
fn amount(i: u64) -> String {
    let h = splitmix(i);
    let share = (h >> 11) as f64 / (1u64 << 53) as f64;
    format!("{:.2}", 500.0 * 4_000f64.powf(share))
}

/// A well-mixed 64-bit function of `x` (SplitMix64's finalizer).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A `ratewatch` command with none of this shell's `RATEWATCH_*` settings.
pub fn ratewatch() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ratewatch"));
    for (var, _) in std::env::vars_os() {
        if var.to_string_lossy().starts_with("RATEWATCH_") {
            command.env_remove(var);
        }
    }
    command
}

/// One night's `ratewatch screen`, run in `dir` as cron runs it.
pub fn screen(dir: &Path, portfolio: &Path, db: &Path, url: &str) {
    let out = ratewatch()
        .current_dir(dir)
        .env(ratewatch::settings::config::KEY_ENV, DEFAULT_KEY)
        .arg("screen")
        .arg(portfolio)
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(dir.join("reports"))
        .args(["--base-url", url, "--concurrency", CONCURRENCY, "--quiet"])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let code = out.status.code().expect("screen exits");
    assert!(
        matches!(code, 0 | 1 | 3),
        "screen exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ratewatch demo-server` serving one simulated day of its default dataset, unlimited.
pub fn demo_server(day: u32, log: &Path) -> Listening {
    Listening::start(
        ratewatch().args(["demo-server", "--port", "0", "--day", &day.to_string()]),
        "demo-server",
        Some(log),
    )
}
