//! What a credit team's morning mail looks like over a month: a French ERP export
//! (`Encours (€)` written `12 345,67`, a `Commercial` column, semicolons) screened night
//! after night against `ratewatch demo-server`, each night a simulated day later, and the
//! summary that cron would mail counted line by line.
//!
//! ```text
//! cargo bench --bench mornings                                  # 3,000 rows, 33 nights
//! cargo bench --bench mornings -- --rows 600 --nights 8         # smaller, quicker
//! cargo bench --bench mornings -- --show-night 12               # that night's mail in full
//! ```
//!
//! Two teams screen the same file on the same nights: one with the `[alerts]` table a team
//! keeps for such an export (`show = ["Encours (€)", "Commercial"]`, `amount = "Encours
//! (€)"`), one with no `[alerts]` table at all. For each night: the alerts the table's lead
//! line counts, the lines listed under it, how many of those are new red or black (listed
//! whatever `max_listed` says), which standing colors have their `still …:` line, the lines
//! of the whole summary and the exit code; the alerts and the new red and black are held to
//! the night's report.json. The target:
//! a repeat night lists at most `max_listed` (20) lines, or its new red and black when they
//! are more, and the first night leads with a count per kind. The first night's mail and one
//! repeat night's (the longest, or `--show-night`) are printed whole.
//!
//! ratewatch times its runs by this machine's clock, so between nights the databases' runs
//! are moved a day into the past, as the integration tests do.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::Listening;

use ratewatch::alerts::AlertKind;
use ratewatch::sim::{DEFAULT_KEY, DEFAULT_PER_COUNTRY, DEFAULT_SEED, Dataset};

/// The lines listed one by one by default (`[alerts] max_listed`).
const MAX_LISTED: usize = 20;

/// The header of the amount column, as the ERP writes it.
const AMOUNT: &str = "Encours (€)";
/// The header of the sales owner's column.
const OWNER: &str = "Commercial";

struct Options {
    rows: u64,
    nights: u32,
    /// The repeat night whose mail is printed whole (default: the longest).
    show_night: Option<u32>,
}

fn options() -> Options {
    let mut o = Options {
        rows: 3_000,
        nights: 33,
        show_night: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |flag: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{flag} N"))
        };
        match a.as_str() {
            "--rows" => o.rows = number("--rows"),
            "--nights" => o.nights = number("--nights").max(1) as u32,
            "--show-night" => o.show_night = Some(number("--show-night") as u32),
            _ => {} // cargo passes --bench
        }
    }
    o
}

/// The portfolio `demo-server`'s default dataset makes, as a French ERP exports it:
/// semicolons, the outstanding amount as French accounting writes it and the sales owner.
fn erp_export(path: &Path, rows: u64) {
    let data = Dataset::new(DEFAULT_SEED, DEFAULT_PER_COUNTRY);
    let mut plain = Vec::new();
    ratewatch::sim::portfolio::write(&data, rows, &mut plain).unwrap();
    let mut reader = csv::Reader::from_reader(&plain[..]);
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_path(path)
        .unwrap();
    let mut header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    header.extend([AMOUNT.to_string(), OWNER.to_string()]);
    writer.write_record(&header).unwrap();
    let owners = [
        "M. Dupont",
        "Mme Martin",
        "M. Bernard",
        "Mme Petit",
        "M. Robert",
    ];
    for (i, record) in reader.records().enumerate() {
        let mut row: Vec<String> = record.unwrap().iter().map(String::from).collect();
        row.push(french_amount(i as u64));
        row.push(owners[i % owners.len()].to_string());
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
}

/// Row `i`'s outstanding amount, `12 345,67`: from 500 to about 2 million euros, most of
/// them small and a few large, as a customer book is, in no relation to the file's order.
fn french_amount(i: u64) -> String {
    let h = splitmix(i);
    let share = (h >> 11) as f64 / (1u64 << 53) as f64;
    let cents = (50_000.0 * 4_000f64.powf(share)).round() as u64;
    let euros = cents / 100;
    let mut grouped = String::new();
    let digits = euros.to_string();
    for (n, d) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            grouped.push(' ');
        }
        grouped.push(d);
    }
    format!("{grouped},{:02}", cents % 100)
}

/// A well-mixed 64-bit function of `x` (SplitMix64's finalizer).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One team: the folder its cron job runs in (with its ratewatch.toml, or none), its
/// database and reports, and the mails of its nights.
struct Team {
    name: &'static str,
    dir: PathBuf,
    nights: Vec<Night>,
}

impl Team {
    fn new(root: &Path, folder: &str, name: &'static str, config: Option<&str>) -> Team {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(config) = config {
            std::fs::write(dir.join("ratewatch.toml"), config).unwrap();
        }
        Team {
            name,
            dir,
            nights: Vec::new(),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.join("ratewatch.db")
    }

    /// One night's `ratewatch screen`, as cron runs it in the team's folder.
    fn screen(&mut self, night: u32, url: &str, file: &Path) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ratewatch"));
        // The team's settings only: none of this shell's.
        for (var, _) in std::env::vars_os() {
            if var.to_string_lossy().starts_with("RATEWATCH_") {
                command.env_remove(var);
            }
        }
        let started = Instant::now();
        let out = command
            .current_dir(&self.dir)
            .env(ratewatch::settings::config::KEY_ENV, DEFAULT_KEY)
            .arg("screen")
            .arg(file)
            .arg("--db")
            .arg(self.db())
            .arg("--out")
            .arg(self.dir.join("reports"))
            .args(["--base-url", url])
            .output()
            .unwrap();
        let wall = started.elapsed();
        let code = out.status.code().expect("screen exits");
        let text = String::from_utf8(out.stdout).expect("a UTF-8 summary");
        assert!(
            matches!(code, 0 | 1 | 3),
            "{}, night {night}: screen exited {code}: {}{text}",
            self.name,
            String::from_utf8_lossy(&out.stderr)
        );
        self.nights.push(Night {
            night,
            code,
            wall,
            mail: Mail::read(&text),
            reported: Reported::read(&self.dir.join("reports/report.json")),
            text,
        });
    }

    /// Moves the database's runs a day into the past: the next night comes a day later.
    fn a_night_passes(&self) {
        common::a_night_passes(&self.db());
    }
}

struct Night {
    night: u32,
    code: i32,
    wall: Duration,
    mail: Mail,
    reported: Reported,
    text: String,
}

impl Night {
    /// Whether the mail counts what report.json records: the alerts, and every new red and
    /// black listed (whatever the cap).
    fn agrees(&self) -> bool {
        self.mail.alerts == self.reported.alerts
            && self.mail.new_red_or_black == self.reported.new_red_or_black
    }
}

/// What the night's report.json records, to hold the mail to.
struct Reported {
    /// `run.alerts`: the companies listed tonight, on a line or counted.
    alerts: u64,
    /// Companies listed tonight that came into red or black from another color.
    new_red_or_black: usize,
}

impl Reported {
    fn read(path: &Path) -> Reported {
        let text = std::fs::read_to_string(path).unwrap();
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let companies: std::collections::BTreeSet<&str> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["alert_listed"] == true
                    && (r["alert_kind"] == "red" || r["alert_kind"] == "black")
                    && !r["previous_color"].is_null()
            })
            .filter_map(|r| r["company_id"].as_str())
            .collect();
        Reported {
            alerts: report["run"]["alerts"].as_u64().unwrap(),
            new_red_or_black: companies.len(),
        }
    }
}

/// What one summary says, counted.
#[derive(Debug, Default)]
struct Mail {
    /// Its lines.
    lines: usize,
    /// The line over the table of alerts (`181 alerts, worst first; …:`).
    lead: Option<String>,
    /// The alerts that line counts.
    alerts: u64,
    /// The table's rows: one company each.
    listed: usize,
    /// Of which new red or black: into red or black tonight, from another color.
    new_red_or_black: usize,
    /// The colors of the `still red:` and `still black:` lines.
    standing: Vec<String>,
}

impl Mail {
    fn read(text: &str) -> Mail {
        let mut mail = Mail {
            lines: text.lines().count(),
            standing: text
                .lines()
                .filter_map(|l| l.strip_prefix("still "))
                .filter_map(|l| l.split_once(':'))
                .map(|(color, _)| color.to_string())
                .collect(),
            ..Mail::default()
        };
        let mut lines = text.lines();
        let Some(lead) = lines.find(|l| {
            l.contains(" worst first") && l.split(' ').next().unwrap().parse::<u64>().is_ok()
        }) else {
            return mail;
        };
        mail.alerts = lead.split(' ').next().unwrap().parse().unwrap();
        mail.lead = Some(lead.to_string());
        let header = lines.next().unwrap_or_default();
        assert!(
            header.trim_start().starts_with("REF ") && header.contains("ALERT"),
            "the table's header: {header}"
        );
        for row in lines.take_while(|l| l.starts_with("  ") && !l.starts_with("  …")) {
            mail.listed += 1;
            // Columns are two spaces apart: the ref, the company, the country, the color's
            // movement (`yellow → red`, or `red (first screening)`), then the kind.
            let cells: Vec<&str> = row
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            let (at, kind) = (2..cells.len())
                .find_map(|i| {
                    AlertKind::ALL
                        .into_iter()
                        .find(|k| k.describe() == cells[i])
                        .map(|k| (i, k))
                })
                .unwrap_or_else(|| panic!("an alert's kind in: {row}"));
            if matches!(kind, AlertKind::Red | AlertKind::Black) && cells[at - 1].contains(" → ")
            {
                mail.new_red_or_black += 1;
            }
        }
        mail
    }

    /// The counts per kind the lead line gives after its colon (`12 into black (…), 169
    /// into red (…)`).
    fn kinds_in_lead(&self) -> Vec<String> {
        let Some(lead) = &self.lead else {
            return Vec::new();
        };
        let Some((_, kinds)) = lead.trim_end_matches(':').rsplit_once(": ") else {
            return Vec::new();
        };
        kinds
            .split(", ")
            .filter(|part| {
                let mut words = part.splitn(2, ' ');
                words.next().is_some_and(|n| n.parse::<u64>().is_ok())
                    && words.next().is_some_and(|rest| {
                        AlertKind::ALL
                            .into_iter()
                            .any(|k| rest.starts_with(k.describe()))
                    })
            })
            .map(String::from)
            .collect()
    }
}

fn print_table(team: &Team) {
    println!("\n{}", team.name);
    println!("night  alerts  listed  new red/black  standing      summary lines  exit  screen");
    for n in &team.nights {
        let m = &n.mail;
        let standing = if m.standing.is_empty() {
            "-".to_string()
        } else {
            m.standing.join(", ")
        };
        println!(
            "{:>5}  {:>6}  {:>6}  {:>13}  {:<12}  {:>13}  {:>4}  {:>5.1} s",
            n.night,
            m.alerts,
            m.listed,
            m.new_red_or_black,
            standing,
            m.lines,
            n.code,
            n.wall.as_secs_f64()
        );
    }
}

/// The figures the target is about, for one team: `[met]` or `[MISSED]` each.
fn print_summary(team: &Team) {
    let mark = |ok: bool| if ok { "[met]" } else { "[MISSED]" };
    let median = |mut v: Vec<usize>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    let first = &team.nights[0];
    let repeat = &team.nights[1..];
    println!("\n{}:", team.name);
    println!(
        "  first night: {} summary lines, {} listed of {} alerts; leads with: {}",
        first.mail.lines,
        first.mail.listed,
        first.mail.alerts,
        first.mail.lead.as_deref().unwrap_or("(no alert)")
    );
    let kinds = first.mail.kinds_in_lead();
    println!(
        "  {} the first night leads with a count per kind ({})",
        mark(!kinds.is_empty()),
        plural(kinds.len(), "kind")
    );
    if !repeat.is_empty() {
        let most = repeat.iter().max_by_key(|n| n.mail.listed).unwrap();
        let longest = repeat.iter().max_by_key(|n| n.mail.lines).unwrap();
        let news = repeat
            .iter()
            .max_by_key(|n| n.mail.new_red_or_black)
            .unwrap();
        let capped = repeat
            .iter()
            .filter(|n| n.mail.alerts > n.mail.listed as u64)
            .count();
        println!(
            "  repeat nights ({}): listed lines median {}, max {} (night {}), more alerts than \
             lines on {capped}; new red/black median {}, max {} (night {}); summary lines \
             median {}, max {} (night {})",
            repeat.len(),
            median(repeat.iter().map(|n| n.mail.listed).collect()),
            most.mail.listed,
            most.night,
            median(repeat.iter().map(|n| n.mail.new_red_or_black).collect()),
            news.mail.new_red_or_black,
            news.night,
            median(repeat.iter().map(|n| n.mail.lines).collect()),
            longest.mail.lines,
            longest.night
        );
        // Every new red and black is listed whatever the cap; the others fill it.
        let over: Vec<String> = repeat
            .iter()
            .filter(|n| n.mail.listed > MAX_LISTED.max(n.mail.new_red_or_black))
            .map(|n| format!("night {}: {}", n.night, n.mail.listed))
            .collect();
        println!(
            "  {} a repeat night lists at most {MAX_LISTED} lines, or its new red and black when \
             they are more{}",
            mark(over.is_empty()),
            if over.is_empty() {
                String::new()
            } else {
                format!(" ({})", over.join(", "))
            }
        );
    }
    let disagree: Vec<String> = team
        .nights
        .iter()
        .filter(|n| !n.agrees())
        .map(|n| {
            format!(
                "night {}: the mail {} alerts, {} new red/black; report.json {}, {}",
                n.night,
                n.mail.alerts,
                n.mail.new_red_or_black,
                n.reported.alerts,
                n.reported.new_red_or_black
            )
        })
        .collect();
    println!(
        "  {} each night the mail counts report.json's alerts and lists its every new red and black{}",
        mark(disagree.is_empty()),
        if disagree.is_empty() {
            String::new()
        } else {
            format!(" ({})", disagree.join("; "))
        }
    );
}

/// `1 kind`, `2 kinds`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn print_mail(team: &Team, night: &Night) {
    println!(
        "\n--- {}, night {} (exit {}) ---",
        team.name, night.night, night.code
    );
    print!("{}", night.text);
    println!("--- end of night {} ---", night.night);
}

fn main() {
    let o = options();
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("export.csv");
    erp_export(&file, o.rows);
    println!(
        "ratewatch morning mail: {} rows of a French ERP export (`{AMOUNT}`, `{OWNER}`, \
         semicolons), {} nights against demo-server's default dataset, one simulated day apart",
        o.rows, o.nights
    );
    let mut teams = [
        Team::new(
            root.path(),
            "shown",
            "[alerts] show = [\"Encours (€)\", \"Commercial\"], amount = \"Encours (€)\"",
            Some(&format!(
                "[alerts]\nshow = [\"{AMOUNT}\", \"{OWNER}\"]\namount = \"{AMOUNT}\"\n"
            )),
        ),
        Team::new(
            root.path(),
            "defaults",
            "no [alerts] table (the defaults)",
            None,
        ),
    ];
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    for night in 1..=o.nights {
        if night > 1 {
            teams.iter().for_each(Team::a_night_passes);
        }
        let server = Listening::demo_server(&["--day".into(), night.to_string()]);
        for team in &mut teams {
            team.screen(night, &server.url, &file);
        }
        if progress {
            eprint!("\rnight {night} of {}", o.nights);
        }
    }
    if progress {
        eprintln!();
    }
    for team in &teams {
        print_table(team);
    }
    for team in &teams {
        print_summary(team);
    }
    // The team's mail, whole: its first night and one repeat night.
    let team = &teams[0];
    print_mail(team, &team.nights[0]);
    let shown = match o.show_night {
        Some(n) => team.nights.iter().find(|night| night.night == n),
        None => team.nights[1..].iter().max_by_key(|n| n.mail.lines),
    };
    if let Some(night) = shown {
        print_mail(team, night);
    }
    println!(
        "\n{} nights × {} configurations in {:.0} s",
        o.nights,
        teams.len(),
        started.elapsed().as_secs_f64()
    );
}
