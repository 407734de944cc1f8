//! The trend at a glance: report.html's chart of the portfolio's colors over its last runs,
//! `runs` with its counts by color, `changes --to`, and the listings' `--csv-dialect`, on
//! the sample portfolio screened with `--demo` night after night.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// Rated rows by color.
type Counts = BTreeMap<String, u64>;

/// A folder where the sample portfolio is screened with `--demo`, run N on simulated day N.
struct Nights {
    dir: tempfile::TempDir,
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
        self.ratewatch()
            .arg("screen")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv"))
            .arg("--demo")
            .args(["--out", &format!("night-{night}")])
            .assert()
            .code(3);
    }

    fn ratewatch(&self) -> Command {
        let mut cmd = Command::cargo_bin("ratewatch").unwrap();
        cmd.env_remove("RATEWATCH_API_KEY")
            .env_remove("RATEWATCH_BASE_URL")
            .env_remove("RATEWATCH_DB")
            .env_remove("RATEWATCH_OUT")
            .current_dir(self.dir.path());
        cmd
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn stdout(&self, args: &[&str]) -> String {
        let out = self
            .ratewatch()
            .args(args)
            .assert()
            .code(0)
            .get_output()
            .clone();
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

/// The trend chart's bars: each run with its rated rows by color, as the page draws them.
fn bars(html: &str) -> Vec<(i64, Counts)> {
    let start = html.find("<svg").expect("a chart");
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    let attr = |text: &str, name: &str| -> String {
        let from = text.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        text[from..from + text[from..].find('"').unwrap()].to_string()
    };
    svg.split("<g class=\"bar\"")
        .skip(1)
        .map(|bar| {
            let counts = bar
                .split("<rect ")
                .skip(1)
                .map(|rect| {
                    (
                        attr(rect, "data-color"),
                        attr(rect, "data-rows").parse().unwrap(),
                    )
                })
                .collect();
            (attr(bar, "data-run").parse().unwrap(), counts)
        })
        .collect()
}

#[test]
fn the_chart_of_three_nights_shows_each_nights_rated_rows_by_color() {
    let nights = Nights::new();
    nights.screen(1);
    let first = nights.read("night-1/report.html");
    let one = bars(&first);
    assert_eq!(one.len(), 1, "a first run: one bar");
    assert_eq!(one[0], (1, counted(&nights.read("night-1/report.csv"))));
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
    assert_eq!(bars(&html), expected);
    assert!(!html.contains("A trend needs two runs"));
    assert!(html.contains("Rated rows by color, runs 1–3</figcaption>"));
    assert!(
        html.contains(
            "<desc id=\"trend-desc\">Rated rows of portfolio by color in its last 3 runs"
        )
    );
    let night2 = nights.read("night-2/report.html");
    assert_eq!(bars(&night2), expected[..2]);

    // A past night written again draws only the runs up to it, as it did that night.
    nights
        .ratewatch()
        .args(["report", "--run", "2", "--out", "again"])
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
        .ratewatch()
        .args(["changes", "--to", "red,pink"])
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
        .ratewatch()
        .args(["runs", "--csv-dialect", "excel"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--csv"));
}
