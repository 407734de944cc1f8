//! Alert rules end to end, night after night on the simulator's calendar: a standing red
//! company listed when it began and again a week later (or by `repeat`), alerts worst first
//! with one line per company, the rules of `[alerts]` narrowing what alerts, `--quiet`
//! nights, storms, and the rows the summary names because they need a look.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use ratewatch::alerts::AlertKind;
use ratewatch::model::Color;
use ratewatch::sim::{CompanyRef, Dataset};
use serde_json::Value;

use crate::common::{Background, Workspace, rows_by_ref, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// One night: the simulator moved to `day`, then `screen`; its exit code and stdout.
fn night(ws: &Workspace, sim: &Background, file: &Path, day: i64, args: &[&str]) -> (i32, String) {
    sim.server.set_day(day);
    let out = ws.screen(sim, file).args(args).output().unwrap();
    let code = out.status.code().expect("exits");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(code != 2 && code != 4, "day {day}: {out:?}");
    (code, text)
}

/// `[alerts]` of the workspace's ratewatch.toml (read from the working directory).
fn rules(ws: &Workspace, rules: &str) {
    ws.write("ratewatch.toml", format!("[alerts]\n{rules}").as_bytes());
}

/// One line of the summary's table of alerts.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    refs: String,
    kind: AlertKind,
}

/// The alerts the summary lists, in its order.
fn listed(summary: &str) -> Vec<Listed> {
    let mut lines = summary.lines();
    if !lines.any(|l| l.trim_start().starts_with("REF ") && l.contains("ALERT")) {
        return Vec::new();
    }
    lines
        .take_while(|l| l.starts_with("  ") && !l.starts_with("  …"))
        .map(|l| {
            // Columns are two spaces apart; the alert is the one before the last (the day
            // of the refresh is never blank).
            let cells: Vec<&str> = l
                .trim()
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            let described = cells[cells.len() - 2];
            let kind = AlertKind::ALL
                .into_iter()
                .find(|k| k.describe() == described)
                .unwrap_or_else(|| panic!("an alert's kind: {l}"));
            Listed {
                refs: cells[0].to_string(),
                kind,
            }
        })
        .collect()
}

/// How many companies the summary counts as still red or black without listing them.
fn standing(summary: &str) -> Option<u64> {
    summary
        .lines()
        .find(|l| l.contains(" still red or black, not listed this time"))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
}

/// The rows of report.json in input order.
fn rows(report: &Value) -> &[Value] {
    report["rows"].as_array().unwrap()
}

/// The refs of a company's rows, as the summary names it (`C-1001, C-1002, C-1003`).
fn refs_of(report: &Value, company_id: &str) -> String {
    rows(report)
        .iter()
        .filter(|r| r["company_id"] == company_id)
        .map(|r| r["ref"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A portfolio of the sample's rows whose ref is in `keep`.
fn sample_subset(ws: &Workspace, name: &str, keep: &BTreeSet<String>) -> PathBuf {
    let text = std::fs::read_to_string(sample()).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for line in lines {
        let reference = line.split(',').next().unwrap();
        if keep.contains(reference) {
            out.push_str(line);
            out.push('\n');
        }
    }
    ws.write(name, out.as_bytes())
}

/// The sample's rows that are rated on day 1: a portfolio with no failed, invalid or
/// unresolved row, whose exit codes are those of its alerts alone.
fn rated_sample(sim: &Background, ws: &Workspace) -> PathBuf {
    let scratch = Workspace::new();
    night(&scratch, sim, &sample(), 1, &[]);
    let keep: BTreeSet<String> = rows(&scratch.report())
        .iter()
        .filter(|r| r["status"] == "rated")
        .map(|r| r["ref"].as_str().unwrap().to_string())
        .collect();
    assert!(keep.len() >= 10, "{keep:?}");
    sample_subset(ws, "rated.csv", &keep)
}

/// A portfolio naming dataset companies by their id: `ref,country,company_id`, with more
/// columns after if given.
fn by_id(data: &Dataset, rows: &[(&str, CompanyRef, &[&str])], extra: &[&str]) -> String {
    let mut csv = String::from("ref,country,company_id");
    for header in extra {
        csv.push_str(&format!(",{header}"));
    }
    csv.push('\n');
    for (reference, company, values) in rows {
        let country = data.company(*company).address.country_code;
        csv.push_str(&format!("{reference},{country},{}", data.uuid(*company)));
        for v in *values {
            csv.push_str(&format!(",{v}"));
        }
        csv.push('\n');
    }
    csv
}

/// Screens the sample for 14 nights: what each night listed, counted, and exited with.
struct Nights {
    summaries: Vec<String>,
    codes: Vec<i32>,
    reports: Vec<Value>,
}

fn fourteen_nights(sim: &Background, ws: &Workspace, file: &Path) -> Nights {
    let mut nights = Nights {
        summaries: Vec::new(),
        codes: Vec::new(),
        reports: Vec::new(),
    };
    for day in 1..=14 {
        let (code, text) = night(ws, sim, file, day, &[]);
        nights.summaries.push(text);
        nights.codes.push(code);
        nights.reports.push(ws.report());
    }
    nights
}

/// A company red on every one of the nights, by the reports: its company id.
fn red_every_night(nights: &Nights) -> String {
    let red = |report: &Value| -> BTreeSet<String> {
        rows(report)
            .iter()
            .filter(|r| r["status"] == "rated" && r["color"] == "red")
            .map(|r| r["company_id"].as_str().unwrap().to_string())
            .collect()
    };
    let mut always = red(&nights.reports[0]);
    for report in &nights.reports[1..] {
        always = always.intersection(&red(report)).cloned().collect();
    }
    // The first in input order.
    rows(&nights.reports[0])
        .iter()
        .filter_map(|r| r["company_id"].as_str())
        .find(|c| always.contains(*c))
        .expect("the sample has a company red for two weeks")
        .to_string()
}

/// The nights (1-based) on which the summary listed the company whose refs are `refs`.
fn nights_listing(nights: &Nights, refs: &str) -> Vec<usize> {
    (1..=nights.summaries.len())
        .filter(|n| {
            listed(&nights.summaries[n - 1])
                .iter()
                .any(|l| l.refs == refs)
        })
        .collect()
}

/// Companies alerted on as still red or black in a report, and how many of them the
/// summary listed: the rest is what its line counts.
fn check_standing_count(summary: &str, report: &Value, night: usize) {
    let still: BTreeSet<&str> = rows(report)
        .iter()
        .filter(|r| r["alert_kind"] == "still")
        .map(|r| r["company_id"].as_str().unwrap())
        .collect();
    let shown = listed(summary)
        .iter()
        .filter(|l| l.kind == AlertKind::Still)
        .count() as u64;
    let counted = still.len() as u64 - shown;
    assert_eq!(
        standing(summary),
        (counted > 0).then_some(counted),
        "night {night}: {summary}"
    );
}

#[test]
fn a_company_red_for_two_weeks_is_listed_when_it_began_and_a_week_later_and_counted_between() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let nights = fourteen_nights(&sim, &ws, &sample());
    let company = red_every_night(&nights);
    let refs = refs_of(&nights.reports[0], &company);

    assert_eq!(nights_listing(&nights, &refs), vec![1, 8], "{refs}");
    for (i, summary) in nights.summaries.iter().enumerate() {
        let n = i + 1;
        let report = &nights.reports[i];
        let row = rows(report)
            .iter()
            .find(|r| r["company_id"] == company.as_str())
            .unwrap();
        // In the reports every night: an alert, red at its first screening, still after.
        assert_eq!(row["alert"], true, "night {n}: {row}");
        assert_eq!(row["acknowledged"], false, "night {n}: {row}");
        let kind = if n == 1 { "red" } else { "still" };
        assert_eq!(row["alert_kind"], kind, "night {n}: {row}");
        if n != 1 && n != 8 {
            assert!(
                standing(summary).is_some_and(|c| c >= 1),
                "night {n} counts it: {summary}"
            );
        }
        check_standing_count(summary, report, n);
        // The sample has a row that fails every night: exit 3 whatever is listed.
        assert_eq!(nights.codes[i], 3, "night {n}: {summary}");
        assert!(summary.contains("PARTIAL: 1 row failed"), "{summary}");
    }
    assert!(
        nights.summaries[1].contains("listed again a week after they were last listed"),
        "{}",
        nights.summaries[1]
    );
}

#[test]
fn repeat_daily_lists_a_standing_alert_every_night_and_never_only_when_it_began() {
    let sim = sample_sim();
    for (repeat, expected) in [
        ("daily", (1..=14).collect::<Vec<usize>>()),
        ("never", vec![1]),
    ] {
        let ws = Workspace::new();
        let file = rated_sample(&sim, &ws);
        rules(&ws, &format!("repeat = \"{repeat}\"\n"));
        let nights = fourteen_nights(&sim, &ws, &file);
        let company = red_every_night(&nights);
        let refs = refs_of(&nights.reports[0], &company);
        assert_eq!(nights_listing(&nights, &refs), expected, "{repeat}");
        for (i, summary) in nights.summaries.iter().enumerate() {
            let n = i + 1;
            check_standing_count(summary, &nights.reports[i], n);
            // No row fails: 1 exactly when something is listed.
            let some = !listed(summary).is_empty();
            assert_eq!(nights.codes[i], i32::from(some), "{repeat}, night {n}: {summary}");
            let run = &nights.reports[i]["run"];
            assert_eq!(
                run["alerts"].as_u64(),
                Some(
                    summary
                        .lines()
                        .find_map(|l| l.strip_suffix(" alerts, worst first:")
                            .or(l.strip_suffix(" alert, worst first:")))
                        .map_or(0, |n| n.parse().unwrap())
                ),
                "{repeat}, night {n}: {run}"
            );
        }
        if repeat == "never" {
            // Nights with nothing new: exit 0, and the standing alerts are counted.
            assert!(nights.codes[2..7].iter().all(|c| *c == 0), "{:?}", nights.codes);
            assert!(
                nights.summaries[3].contains("(listed when they began only)"),
                "{}",
                nights.summaries[3]
            );
        } else {
            assert!(nights.codes.iter().all(|c| *c == 1), "{:?}", nights.codes);
            assert_eq!(standing(&nights.summaries[5]), None, "{}", nights.summaries[5]);
        }
    }
}

#[test]
fn alerts_are_listed_worst_first_one_line_per_company_with_all_its_refs() {
    let sim = sample_sim();
    let ws = Workspace::new();
    rules(&ws, "repeat = \"daily\"\n");
    let nights = fourteen_nights(&sim, &ws, &sample());
    let mut seen = BTreeSet::new();
    for (i, summary) in nights.summaries.iter().enumerate() {
        let lines = listed(summary);
        let kinds: Vec<AlertKind> = lines.iter().map(|l| l.kind).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted, "night {}: worst first: {summary}", i + 1);
        seen.extend(kinds);
        // One line per company, naming each of its refs, in input order.
        let report = &nights.reports[i];
        let mut companies = BTreeSet::new();
        for line in &lines {
            let first = line.refs.split(", ").next().unwrap();
            let company = rows_by_ref(report)[first]["company_id"]
                .as_str()
                .unwrap()
                .to_string();
            assert_eq!(line.refs, refs_of(report, &company), "{summary}");
            assert!(companies.insert(company), "one line a company: {summary}");
        }
    }
    // Two weeks of the sample show most kinds, in this order when together.
    for kind in [
        AlertKind::Black,
        AlertKind::Red,
        AlertKind::Deteriorated,
        AlertKind::Changed,
        AlertKind::Improved,
        AlertKind::Still,
    ] {
        assert!(seen.contains(&kind), "{kind:?} in {seen:?}");
    }
    // The sample's three rows of one company (by SIREN, SIRET and name): one line.
    let first = &nights.summaries[0];
    let grouped: Vec<Listed> = listed(first)
        .into_iter()
        .filter(|l| l.refs.contains(", "))
        .collect();
    assert_eq!(grouped.len(), 1, "{first}");
    assert_eq!(grouped[0].refs, "C-1001, C-1002, C-1003", "{first}");
    assert_eq!(first.matches("C-1002").count(), 1, "{first}");
}
