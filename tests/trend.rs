//! The trend at a glance: report.html's charts of the portfolio's colors over its last runs,
//! `runs` with its counts by color, `changes --to`, and the listings' `--csv-dialect`, on
//! the sample portfolio screened with `--demo` night after night.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;

use crate::common::InFolder;

/// Rated rows by color.
type Counts = BTreeMap<String, u64>;

/// A folder where the sample portfolio is screened with `--demo`, run N on simulated day N.
struct Nights {
    dir: tempfile::TempDir,
}

impl InFolder for Nights {
    fn folder(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Nights {
    fn new() -> Nights {
        Nights {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// One more night (the sample has a row that fails on purpose: exit 3); its reports
    /// are kept in `night-N/`.
    fn screen(&self, night: u32) {
        self.ratewatch(["screen"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv"))
            .arg("--demo")
            .args(["--out", &format!("night-{night}")])
            .assert()
            .code(3);
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn stdout(&self, args: &[&str]) -> String {
        let out = self.ratewatch(args).assert().code(0).get_output().clone();
        String::from_utf8(out.stdout).unwrap()
    }
}

/// A night's rated rows by color, counted from its report.csv row by row.
fn counted(csv: &str) -> Counts {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (status, color) = (at("status"), at("color"));
    let mut counts = Counts::new();
    for record in reader.records() {
        let record = record.unwrap();
        if &record[status] == "rated" {
            *counts.entry(record[color].to_string()).or_default() += 1;
        }
    }
    counts
}

/// The trend's table of numbers, oldest run first: each run with its rated rows by color
/// (the colors it had) and the rows that came into red and into black.
fn numbers(html: &str) -> Vec<(i64, Counts, (u64, u64))> {
    let start = html
        .find("<table class=\"trend-numbers\">")
        .expect("a trend");
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    let cell = |row: &str, attr: &str| -> Vec<(String, u64)> {
        row.split(&format!("<td {attr}=\""))
            .skip(1)
            .map(|c| {
                let (name, rest) = c.split_once("\">").unwrap();
                let n = rest[..rest.find('<').unwrap()].replace(',', "");
                (name.to_string(), n.parse().unwrap())
            })
            .collect()
    };
    let mut runs: Vec<(i64, Counts, (u64, u64))> = table
        .split("<tr data-run=\"")
        .skip(1)
        .map(|row| {
            let run = row[..row.find('"').unwrap()].parse().unwrap();
            let counts = cell(row, "data-rows")
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .collect();
            let news = cell(row, "data-new");
            let new = |color: &str| news.iter().find(|(c, _)| c == color).unwrap().1;
            (run, counts, (new("red"), new("black")))
        })
        .collect();
    runs.reverse();
    runs
}

/// The runs and their rated rows by color, as the trend's table has them.
fn counts(html: &str) -> Vec<(i64, Counts)> {
    numbers(html)
        .into_iter()
        .map(|(run, c, _)| (run, c))
        .collect()
}

/// A night's rows whose color changed into red and into black, from its report.csv.
fn news(csv: &str) -> (u64, u64) {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (status, color, change) = (at("status"), at("color"), at("change"));
    let mut news = (0, 0);
    for record in reader.records() {
        let record = record.unwrap();
        let changed = ["deteriorated", "improved", "changed"].contains(&&record[change]);
        if &record[status] == "rated" && changed {
            match &record[color] {
                "red" => news.0 += 1,
                "black" => news.1 += 1,
                _ => {}
            }
        }
    }
    news
}

#[test]
fn the_chart_of_three_nights_shows_each_nights_rated_rows_by_color() {
    let nights = Nights::new();
    nights.screen(1);
    let first = nights.read("night-1/report.html");
    let one = numbers(&first);
    assert_eq!(one.len(), 1, "a first run: one");
    assert_eq!(
        one[0],
        (1, counted(&nights.read("night-1/report.csv")), (0, 0)),
        "nothing came into red or black at a first screening"
    );
    assert!(first.contains("A trend needs two runs"), "and says so");

    nights.screen(2);
    nights.screen(3);
    let expected: Vec<(i64, Counts)> = (1..=3)
        .map(|n| (n, counted(&nights.read(&format!("night-{n}/report.csv")))))
        .collect();
    assert_ne!(
        expected[0].1, expected[1].1,
        "the colors moved between nights"
    );
    let html = nights.read("night-3/report.html");
    assert_eq!(counts(&html), expected);
    // Each night's news as its rows have them: changes into red and into black.
    let news_of: Vec<(u64, u64)> = (1..=3)
        .map(|n| news(&nights.read(&format!("night-{n}/report.csv"))))
        .collect();
    assert_eq!(
        numbers(&html).iter().map(|n| n.2).collect::<Vec<_>>(),
        news_of
    );
    assert!(
        news_of[1..].iter().any(|n| n.0 > 0),
        "the sample turns red on a later night: {news_of:?}"
    );
    assert!(!html.contains("A trend needs two runs"));
    assert!(html.contains("runs 1–3, each chart on its own scale"));
    assert!(html.contains("aria-label=\"Red rows, one point per run:"));
    let night2 = nights.read("night-2/report.html");
    assert_eq!(counts(&night2), expected[..2]);

    // A past night written again draws only the runs up to it, as it did that night.
    nights
        .ratewatch(["report", "--run", "2", "--out", "again"])
        .assert()
        .code(0);
    assert_eq!(nights.read("again/report.html"), night2);

    // `runs` lists the same counts, every one of the five colors named.
    let runs: Value = serde_json::from_str(&nights.stdout(&["runs", "--json"])).unwrap();
    for (run, (n, counts)) in runs["runs"].as_array().unwrap().iter().rev().zip(&expected) {
        assert_eq!(run["id"], *n);
        let listed: Counts = run["by_color"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(c, v)| (c.clone(), v.as_u64().unwrap()))
            .filter(|(_, v)| *v > 0)
            .collect();
        assert_eq!(&listed, counts, "run {n}");
        assert_eq!(run["by_color"].as_object().unwrap().len(), 5);
    }
    let table = nights.stdout(&["runs"]);
    let header = table.lines().next().unwrap();
    assert!(
        header.ends_with("GREEN  YELLOW  RED  BLACK  WHITE"),
        "{header}"
    );
    let csv = nights.stdout(&["runs", "--csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let red = headers.iter().position(|h| h == "red").unwrap();
    let reds: Vec<u64> = reader
        .records()
        .map(|r| r.unwrap()[red].parse().unwrap())
        .collect();
    let expected_reds: Vec<u64> = expected
        .iter()
        .rev()
        .map(|(_, c)| c.get("red").copied().unwrap_or(0))
        .collect();
    assert_eq!(reds, expected_reds);
}

#[test]
fn changes_to_keeps_the_changes_to_those_colors_and_names_an_unknown_one() {
    let nights = Nights::new();
    for n in 1..=3 {
        nights.screen(n);
    }
    let changes = |to: Option<&str>| -> Vec<(String, String)> {
        let mut args = vec!["changes", "--since", "2026-01-01", "--json"];
        if let Some(to) = to {
            args.extend(["--to", to]);
        }
        let v: Value = serde_json::from_str(&nights.stdout(&args)).unwrap();
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["company_id"].as_str().unwrap().to_string(),
                    c["to_color"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let every = changes(None);
    let to_red_or_black = changes(Some("red,black"));
    let expected: Vec<(String, String)> = every
        .iter()
        .filter(|(_, to)| to == "red" || to == "black")
        .cloned()
        .collect();
    assert!(
        !expected.is_empty() && expected.len() < every.len(),
        "{every:?}"
    );
    assert_eq!(to_red_or_black, expected);
    let to_green = changes(Some("green"));
    assert!(to_green.iter().all(|(_, to)| to == "green"), "{to_green:?}");
    assert_eq!(
        to_green.len(),
        every.iter().filter(|(_, to)| to == "green").count()
    );
    let table = nights.stdout(&["changes", "--since", "2026-01-01", "--to", "red,black"]);
    assert!(table.contains("seen to red or black since"), "{table}");

    nights
        .ratewatch(["changes", "--to", "red,pink"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'pink'").and(predicate::str::contains("--to")));
}

#[test]
fn the_listings_csv_takes_report_csvs_excel_dialect() {
    let nights = Nights::new();
    for n in 1..=2 {
        nights.screen(n);
    }
    for args in [
        &["runs", "--csv", "--csv-dialect", "excel"][..],
        &[
            "changes",
            "--since",
            "2026-01-01",
            "--csv",
            "--csv-dialect",
            "excel",
        ],
        &["history", "C-1001", "--csv", "--csv-dialect", "excel"],
    ] {
        let text = nights.stdout(args);
        assert!(text.starts_with('\u{feff}'), "{args:?}: a BOM first");
        let first = text.lines().next().unwrap();
        assert!(
            first.contains(';') && !first.contains(','),
            "{args:?}: {first}"
        );
        assert!(text.ends_with("\r\n"), "{args:?}");
        let standard = nights.stdout(&args[..args.len() - 2]);
        assert_eq!(
            standard.lines().count(),
            text.lines().count(),
            "{args:?}: the same rows"
        );
        assert!(!standard.starts_with('\u{feff}') && !standard.contains('\r'));
    }
    // References are kept as text, as in report.csv.
    let changes = nights.stdout(&[
        "changes",
        "--since",
        "2026-01-01",
        "--csv",
        "--csv-dialect",
        "excel",
    ]);
    assert!(
        changes.lines().nth(1).unwrap().starts_with("\"=\"\"C-"),
        "{changes}"
    );
    // The dialect is for CSV: without --csv it is a usage error.
    nights
        .ratewatch(["runs", "--csv-dialect", "excel"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--csv"));
}

#[test]
fn changes_show_the_amount_at_stake_and_min_amount_keeps_the_large_ones() {
    let nights = Nights::new();
    // The sample with an amount on each row: line × 10 000, written as a French Excel does.
    let sample = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv"),
    )
    .unwrap();
    let mut amounts: BTreeMap<String, f64> = BTreeMap::new();
    let mut csv = String::new();
    for (i, line) in sample.lines().enumerate() {
        if i == 0 {
            csv.push_str(&format!("{line},Encours (€)\n"));
            continue;
        }
        let amount = (i as f64 + 1.0) * 10_000.0;
        amounts.insert(line.split(',').next().unwrap().to_string(), amount);
        csv.push_str(&format!("{line},\"{} 000,00\"\n", (i + 1) * 10));
    }
    std::fs::write(nights.path("encours.csv"), csv).unwrap();
    for night in 1..=3 {
        nights
            .ratewatch(["screen", "encours.csv", "--demo"])
            .args(["--out", &format!("night-{night}")])
            .assert()
            .code(3);
    }
    // No amount column named: --min-amount says what it needs.
    nights
        .ratewatch(["changes", "--since", "2026-01-01", "--min-amount", "50000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "set `amount = \"HEADER\"` in [alerts]",
        ));
    std::fs::write(
        nights.path("ratewatch.toml"),
        "[alerts]\namount = \"Encours (€)\"\n",
    )
    .unwrap();
    let listed = |extra: &[&str]| -> Vec<(String, f64)> {
        let mut args = vec!["changes", "--since", "2026-01-01", "--json"];
        args.extend(extra);
        let v: Value = serde_json::from_str(&nights.stdout(&args)).unwrap();
        assert_eq!(v["amount_column"], "Encours (€)");
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let refs: f64 = c["held_by"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| amounts[h["ref"].as_str().unwrap()])
                    .sum();
                let amount = c["amount"].as_f64().unwrap();
                assert_eq!(amount, refs, "the sum of the company's rows: {c}");
                (c["company_id"].as_str().unwrap().to_string(), amount)
            })
            .collect()
    };
    let every = listed(&[]);
    let large = listed(&["--min-amount", "150 000,00"]);
    let expected: Vec<(String, f64)> = every
        .iter()
        .filter(|(_, amount)| *amount >= 150_000.0)
        .cloned()
        .collect();
    assert!(
        !expected.is_empty() && expected.len() < every.len(),
        "{every:?}"
    );
    assert_eq!(large, expected);
    // The table shows the amount beside the references, and says the threshold.
    let table = nights.stdout(&["changes", "--since", "2026-01-01", "--min-amount", "150000"]);
    assert!(
        table.contains("of companies with at least 150 000 in \"Encours (€)\""),
        "{table}"
    );
    let header = table.lines().find(|l| l.starts_with("REF")).unwrap();
    assert!(
        header.starts_with("REF") && header.contains("Encours (€)"),
        "{header}"
    );
    let biggest = expected.iter().map(|(_, a)| *a).fold(0.0, f64::max);
    assert!(
        table.contains(&ratewatch::digest::format_amount(biggest)),
        "{table}"
    );
    let csv = nights.stdout(&["changes", "--since", "2026-01-01", "--csv"]);
    assert!(
        csv.lines().next().unwrap().ends_with(",run_id,amount"),
        "{csv}"
    );
    nights
        .ratewatch(["changes", "--min-amount", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"lots\" is not an amount"));
}
