//! Alert rules end to end, night after night on the simulator's calendar (the earlier
//! runs moved a night back each time): a standing red
//! company listed when it began and again a week later (or by `repeat`), alerts worst first
//! with one line per company, the rules of `[alerts]` narrowing what alerts, `--quiet`
//! nights, storms, and the rows the summary names because they need a look.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use ratewatch::alerts::AlertKind;
use ratewatch::model::Color;
use ratewatch::sim::{CompanyRef, Dataset};
use serde_json::Value;

use crate::common::after_heading;
use crate::common::{Background, Workspace, rows_by_ref, sample_sim, sample_sim_ending_on};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// One night: the simulator moved to `day`, the earlier runs a night back, then `screen`;
/// its exit code and stdout.
fn night(ws: &Workspace, sim: &Background, file: &Path, day: i64, args: &[&str]) -> (i32, String) {
    sim.server.set_day(day);
    crate::common::a_night_passes(&ws.db());
    let out = ws.screen(sim, file).args(args).run();
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
            // Columns are two spaces apart; the alert is the first cell naming a kind after
            // the ref, the company, the country and the color.
            let cells: Vec<&str> = l
                .trim()
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            // A red or black company at its first screening says so, not `into red`.
            let said = |k: AlertKind, cell: &str| {
                k.describe() == cell
                    || (matches!(k, AlertKind::Red | AlertKind::Black)
                        && cell == format!("{} at first screening", k.as_str()))
            };
            let kind = cells[2..]
                .iter()
                .find_map(|cell| AlertKind::ALL.into_iter().find(|k| said(*k, cell)))
                .unwrap_or_else(|| panic!("an alert's kind: {l}"));
            Listed {
                refs: cells[0].to_string(),
                kind,
            }
        })
        .collect()
}

/// How many companies the summary counts as still red or black without listing them: the
/// lines `still red: 4 companies, …` and `still black: 1 company, …`.
fn standing(summary: &str) -> Option<u64> {
    let counts: Vec<u64> = summary
        .lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("still red: ")
                .or(l.strip_prefix("still black: "))?;
            rest.split(' ').next()?.parse().ok()
        })
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

/// The count of the summary's alerts line (`6 alerts, worst first: …`), 0 without one.
fn alerts_line(summary: &str) -> u64 {
    summary
        .lines()
        .find_map(|l| {
            let (n, rest) = l.split_once(' ')?;
            (rest.starts_with("alerts, worst first") || rest.starts_with("alert, worst first"))
                .then(|| n.parse().unwrap())
        })
        .unwrap_or(0)
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
    rules(&ws, "repeat = \"weekly\"\n");
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
        nights.summaries[1].contains("still red: "),
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
            assert_eq!(
                nights.codes[i],
                i32::from(some),
                "{repeat}, night {n}: {summary}"
            );
            let run = &nights.reports[i]["run"];
            assert_eq!(
                run["alerts"].as_u64(),
                Some(alerts_line(summary)),
                "{repeat}, night {n}: {run}"
            );
        }
        if repeat == "never" {
            // Nights with nothing new: exit 0, and the standing alerts are counted.
            assert!(
                nights.codes[2..7].iter().all(|c| *c == 0),
                "{:?}",
                nights.codes
            );
            assert!(
                standing(&nights.summaries[3]).is_some_and(|n| n >= 1),
                "{}",
                nights.summaries[3]
            );
        } else {
            assert!(nights.codes.iter().all(|c| *c == 1), "{:?}", nights.codes);
            assert_eq!(
                standing(&nights.summaries[5]),
                None,
                "{}",
                nights.summaries[5]
            );
        }
    }
}

#[test]
fn alerts_are_listed_worst_first_one_line_per_company_with_all_its_refs() {
    let sim = sample_sim();
    let ws = Workspace::new();
    rules(
        &ws,
        "repeat = \"daily\"\nimproved = \"list\"\nchanged = \"list\"\nmax_listed = 100\n",
    );
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

/// Dataset companies to pick from, the ten countries in turn.
fn candidates() -> impl Iterator<Item = CompanyRef> {
    (0..4_000u32).map(|i| CompanyRef {
        country: (i % 10) as usize,
        n: i / 10,
    })
}

/// The first dataset company (mixing countries) whose colors on `days` satisfy `wanted`.
fn find(data: &Dataset, days: &[i64], wanted: impl Fn(&[Color]) -> bool) -> Option<CompanyRef> {
    candidates().find(|r| {
        let colors: Vec<Color> = days.iter().map(|d| data.rating(*r, *d).color).collect();
        wanted(&colors)
    })
}

/// Report rows by ref, and whether each is an alert.
fn alert_of(report: &Value, reference: &str) -> (Value, Value) {
    let row = &rows_by_ref(report)[reference];
    (row["alert"].clone(), row["alert_kind"].clone())
}

#[test]
fn without_improved_an_improvement_is_neither_listed_nor_an_alert() {
    let sim = sample_sim();
    let ws = Workspace::new();
    rules(&ws, "improved = false\n");
    night(&ws, &sim, &sample(), 1, &[]);
    let (_, text) = night(&ws, &sim, &sample(), 2, &[]);
    let report = ws.report();
    let improved: Vec<&Value> = rows(&report)
        .iter()
        .filter(|r| r["change"] == "improved")
        .collect();
    assert!(!improved.is_empty(), "the sample improves on day 2");
    let shown = listed(&text);
    for row in improved {
        let reference = row["ref"].as_str().unwrap();
        assert_eq!(row["alert"], false, "{row}");
        assert_eq!(row["alert_kind"], Value::Null, "{row}");
        assert!(!text.contains(reference), "{reference}: {text}");
    }
    assert!(
        shown.iter().all(|l| l.kind != AlertKind::Improved),
        "{text}"
    );
    // The other changes of the night still alert.
    assert!(shown.iter().any(|l| l.kind == AlertKind::Red), "{text}");
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    assert_eq!(at("alert_kind"), at("stale") + 1, "{header:?}");
    assert_eq!(at("acknowledged"), at("stale") + 2, "{header:?}");
}

#[test]
fn with_two_steps_and_not_into_red_a_yellow_to_red_is_dropped_and_green_to_red_kept() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let (day, one_step) = (1..60)
        .find_map(|d| {
            find(&data, &[d, d + 1], |c| {
                c[0] == Color::Yellow && c[1] == Color::Red
            })
            .map(|r| (d, r))
        })
        .expect("a yellow → red in the dataset");
    let two_steps = find(&data, &[day, day + 1], |c| {
        c[0] == Color::Green && c[1] == Color::Red
    })
    .expect("a green → red the same day");
    let into_yellow = find(&data, &[day, day + 1], |c| {
        c[0] == Color::Green && c[1] == Color::Yellow
    })
    .expect("a green → yellow the same day");
    let csv = by_id(
        &data,
        &[
            ("ONE", one_step, &[]),
            ("TWO", two_steps, &[]),
            ("YELLOW", into_yellow, &[]),
        ],
        &[],
    );
    for strict in [false, true] {
        let ws = Workspace::new();
        if strict {
            rules(&ws, "min_steps = 2\ninto_red = false\n");
        }
        let file = ws.write("p.csv", csv.as_bytes());
        night(&ws, &sim, &file, day, &[]);
        let (code, text) = night(&ws, &sim, &file, day + 1, &[]);
        let report = ws.report();
        let refs: Vec<String> = listed(&text).into_iter().map(|l| l.refs).collect();
        assert_eq!(code, 1, "{text}");
        if strict {
            assert_eq!(refs, ["TWO"], "{text}");
            assert_eq!(alert_of(&report, "ONE").0, false);
            assert_eq!(alert_of(&report, "YELLOW").0, false);
        } else {
            assert_eq!(refs, ["ONE", "TWO", "YELLOW"], "{text}");
            assert_eq!(alert_of(&report, "ONE").1, "red");
            assert_eq!(alert_of(&report, "YELLOW").1, "deteriorated");
        }
        assert_eq!(alert_of(&report, "TWO"), (true.into(), "red".into()));
    }
}

#[test]
fn an_exposure_split_by_an_unquoted_decimal_comma_is_shown_marked_and_named_by_its_line() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let taken: Vec<CompanyRef> = candidates()
        .filter(|r| data.rating(*r, 1).color == Color::Red)
        .take(2)
        .collect();
    let [split, small] = taken[..] else {
        unreachable!()
    };
    // `120 000,00` unquoted: the row has a field more than the header, and `Encours EUR`
    // reads `120 000` — or, written `1 000,00`, a thousand hidden under min_exposure.
    let csv = by_id(
        &data,
        &[("SPLIT", split, &["1 000,00"]), ("SMALL", small, &["1000"])],
        &["Encours EUR"],
    );
    let ws = Workspace::new();
    rules(
        &ws,
        "min_exposure = { column = \"Encours EUR\", value = 50000 }\n",
    );
    let file = ws.write("p.csv", csv.as_bytes());
    let (code, text) = night(&ws, &sim, &file, 1, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("EXTRA FIELDS: 1 row has more fields than the header (line 2)"),
        "{text}"
    );
    assert!(
        !text.contains("CHECK THE FILE"),
        "one row is not many: {text}"
    );
    let refs: Vec<String> = listed(&text).into_iter().map(|l| l.refs).collect();
    assert_eq!(refs, ["SPLIT"], "shown rather than judged: {text}");
    let report = ws.report();
    let rows = rows_by_ref(&report);
    assert_eq!(rows["SPLIT"]["extra_unreliable"], true);
    assert_eq!(rows["SPLIT"]["extra"]["Encours EUR"], "1 000");
    assert_eq!(rows["SPLIT"]["alert"], true);
    assert_eq!(rows["SMALL"]["extra_unreliable"], false);
    assert_eq!(rows["SMALL"]["alert"], false);
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let line = csv.lines().find(|l| l.contains(",SPLIT,")).unwrap();
    // country_defaulted, extra_unreliable, alert_listed, found_by, color_since, then the
    // carried column.
    let found_by = rows["SPLIT"]["found_by"].as_str().unwrap();
    let since = rows["SPLIT"]["color_since"].as_str().unwrap();
    assert!(
        line.ends_with(&format!(",false,true,true,{found_by},{since},1 000")),
        "{line}"
    );
}

#[test]
fn a_black_customer_below_min_exposure_is_listed_unless_always_says_otherwise() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let color = |wanted: Color| {
        candidates()
            .find(|r| data.rating(*r, 1).color == wanted)
            .unwrap()
    };
    let (black, red) = (color(Color::Black), color(Color::Red));
    let csv = by_id(
        &data,
        &[("BLACK", black, &["\"1 200,00\""]), ("RED", red, &["900"])],
        &["Encours EUR"],
    );
    let exposure = "min_exposure = { column = \"Encours EUR\", value = 50000 }\n";
    for (extra, want) in [
        ("", vec!["BLACK"]),
        ("always = [\"black\", \"red\"]\n", vec!["BLACK", "RED"]),
        // The colors in French or German, any case: the same rule.
        ("always = [\"Schwarz\", \"rouge\"]\n", vec!["BLACK", "RED"]),
        ("always = []\n", vec![]),
    ] {
        let ws = Workspace::new();
        rules(&ws, &format!("{exposure}{extra}"));
        let file = ws.write("p.csv", csv.as_bytes());
        let (code, text) = night(&ws, &sim, &file, 1, &[]);
        let refs: Vec<String> = listed(&text).into_iter().map(|l| l.refs).collect();
        assert_eq!(refs, want, "{extra:?}: {text}");
        assert_eq!(code, if want.is_empty() { 0 } else { 1 }, "{text}");
        let report = ws.report();
        assert_eq!(
            alert_of(&report, "BLACK").0,
            want.contains(&"BLACK"),
            "{extra:?}"
        );
        assert_eq!(
            alert_of(&report, "RED").0,
            want.contains(&"RED"),
            "{extra:?}"
        );
    }
}

#[test]
fn min_exposure_keeps_large_exposures_and_watch_brings_a_small_one_back() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    // Companies red or black on day 1: each an alert at its first screening.
    let taken: Vec<CompanyRef> = candidates()
        .filter(|r| data.rating(*r, 1).color == Color::Red)
        .take(6)
        .collect();
    let [big, small, watched, blank, unreadable, two] = taken[..] else {
        unreachable!()
    };
    let csv = by_id(
        &data,
        &[
            ("BIG", big, &["\"120 000,00\""]),
            ("SMALL", small, &["1000"]),
            ("WATCHED", watched, &["10"]),
            ("BLANK", blank, &[""]),
            ("UNREADABLE", unreadable, &["n/a"]),
            ("TWO-A", two, &["500"]),
            ("TWO-B", two, &["75000"]),
        ],
        &["Encours EUR"],
    );
    let ws = Workspace::new();
    rules(
        &ws,
        "min_exposure = { column = \"Encours EUR\", value = 50000 }\nwatch = [\"WATCHED\"]\n",
    );
    let file = ws.write("p.csv", csv.as_bytes());
    let (code, text) = night(&ws, &sim, &file, 1, &[]);
    assert_eq!(code, 1, "{text}");
    let refs: BTreeSet<String> = listed(&text).into_iter().map(|l| l.refs).collect();
    let want: BTreeSet<String> = ["BIG", "WATCHED", "UNREADABLE", "TWO-A, TWO-B"]
        .map(String::from)
        .into();
    assert_eq!(refs, want, "{text}");
    let report = ws.report();
    for (reference, alert) in [
        ("BIG", true),
        ("SMALL", false),
        ("WATCHED", true),
        ("BLANK", false),
        ("UNREADABLE", true),
        ("TWO-A", true),
        ("TWO-B", true),
    ] {
        let row = &rows_by_ref(&report)[reference];
        assert_eq!(row["status"], "rated", "{row}");
        assert_eq!(row["alert"], alert, "{row}");
        assert_eq!(row["alert_kind"].is_string(), alert, "{row}");
    }
    // report.csv: the kind after `stale`, the exposure carried at the end.
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(
            ",stale,alert_kind,acknowledged,country_defaulted,extra_unreliable,alert_listed,found_by,color_since,Encours EUR"
        ),
        "{header}"
    );
    let kind = rows_by_ref(&report)["BIG"]["alert_kind"]
        .as_str()
        .unwrap()
        .to_string();
    let found_by = rows_by_ref(&report)["BIG"]["found_by"]
        .as_str()
        .unwrap()
        .to_string();
    let since = |r: &str| {
        rows_by_ref(&report)[r]["color_since"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let big_line = csv.lines().find(|l| l.contains(",BIG,")).unwrap();
    assert!(
        big_line.ends_with(&format!(
            ",{kind},false,false,false,true,{found_by},{},\"120 000,00\"",
            since("BIG")
        )),
        "{big_line}"
    );
    let small_line = csv.lines().find(|l| l.contains(",SMALL,")).unwrap();
    assert!(
        small_line.ends_with(&format!(
            ",,false,false,false,false,company_id,{},1000",
            since("SMALL")
        )),
        "{small_line}"
    );
}

#[test]
fn a_wrong_rule_stops_the_run_naming_the_file_line_and_key() {
    let sim = sample_sim();
    for (toml, message) in [
        (
            "[alerts]\nimproved = false\nrepeat = \"monthly\"\n",
            "ratewatch.toml:3: [alerts] repeat: expected \"never\", \"weekly\" or \"daily\"",
        ),
        (
            "[alerts]\nrepeat = \"daily\"\n\nrepaet = \"never\"\n",
            "ratewatch.toml:4: [alerts]: unknown rule `repaet`",
        ),
        (
            "db = \"rw.db\"\n[alerts]\nmin_steps = 4\n",
            "ratewatch.toml:3: [alerts] min_steps: expected 1, 2 or 3",
        ),
        (
            "[alerts]\nmin_exposure = { column = \"Encours EUR\" }\n",
            "ratewatch.toml:2: [alerts] min_exposure: expected { column = \"HEADER\", value = N }",
        ),
    ] {
        let ws = Workspace::new();
        ws.write("ratewatch.toml", toml.as_bytes());
        ws.screen(&sim, &sample())
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
        assert!(!ws.db().exists(), "nothing screened: {toml}");
    }
}

#[test]
fn quiet_prints_nothing_on_a_night_with_nothing_new() {
    let sim = sample_sim_ending_on(5);
    let ws = Workspace::new();
    let file = rated_sample(&sim, &ws);
    let (code, text) = night(&ws, &sim, &file, 1, &["--quiet"]);
    assert_eq!(code, 1, "{text}");
    assert!(!listed(&text).is_empty(), "{text}");
    assert!(!text.contains("ratewatch run"), "alerts only: {text}");
    night(&ws, &sim, &file, 2, &["--quiet"]);
    for day in 3..=4 {
        let (code, text) = night(&ws, &sim, &file, day, &["--quiet"]);
        assert_eq!((code, text.as_str()), (0, ""), "day {day}");
    }
    // The same night, read in full: standing alerts counted, nothing new.
    let (code, text) = night(&ws, &sim, &file, 5, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Nothing new flagged"), "{text}");
    assert!(standing(&text).is_some(), "{text}");
}

/// A portfolio of `changing` companies whose color differs between `from` and `to`, and
/// `steady` whose color is the same.
fn stormy(data: &Dataset, from: i64, to: i64, changing: usize, steady: usize) -> String {
    let on = |r: &CompanyRef, d: i64| data.rating(*r, d).color;
    let rated = |c: &Color| !matches!(c, Color::Other(_));
    let moved: Vec<CompanyRef> = candidates()
        .filter(|r| on(r, from) != on(r, to) && rated(&on(r, from)) && rated(&on(r, to)))
        .take(changing)
        .collect();
    let kept: Vec<CompanyRef> = candidates()
        .filter(|r| on(r, from) == on(r, to))
        .take(steady)
        .collect();
    let names: Vec<String> = (0..changing + steady).map(|i| format!("S{i}")).collect();
    let rows: Vec<(&str, CompanyRef, &[&str])> = moved
        .iter()
        .chain(&kept)
        .zip(&names)
        .map(|(r, n)| (n.as_str(), *r, &[][..]))
        .collect();
    by_id(data, &rows, &[])
}

#[test]
fn a_storm_of_changes_is_announced_first_and_only_the_ten_worst_are_listed() {
    let sim = sample_sim_ending_on(200);
    let data = sim.server.dataset().clone();
    let csv = stormy(&data, 1, 200, 16, 6);
    let ws = Workspace::new();
    // Every change listed, improvements too: more than a storm lists.
    rules(&ws, "improved = \"list\"\nchanged = \"list\"\n");
    let file = ws.write("p.csv", csv.as_bytes());
    let (_, first) = night(&ws, &sim, &file, 1, &[]);
    assert!(
        !first.contains("STORM"),
        "a first screening changes nothing: {first}"
    );
    let (code, text) = night(&ws, &sim, &file, 200, &[]);
    assert_eq!(code, 1, "{text}");
    let report = ws.report();
    let moved: BTreeSet<&str> = rows(&report)
        .iter()
        .filter(|r| {
            ["deteriorated", "improved", "changed"].contains(&r["change"].as_str().unwrap())
        })
        .map(|r| r["company_id"].as_str().unwrap())
        .collect();
    assert_eq!(moved.len(), 16, "{text}");
    assert!(
        after_heading(&text).starts_with("STORM: 16 of 22 companies changed color in this run"),
        "{text}"
    );
    let shown = listed(&text);
    assert_eq!(shown.len(), 10, "{text}");
    let alerts = report["run"]["alerts"].as_u64().unwrap();
    assert!(alerts > 10, "{text}");
    assert!(
        text.contains(&format!("  … and {} more in the reports\n", alerts - 10)),
        "{text}"
    );
    // The ten worst: no alert left out is worse than the last one listed.
    let last = shown.last().unwrap().kind;
    for row in rows(&report).iter().filter(|r| r["alert"] == true) {
        let kind = AlertKind::parse(row["alert_kind"].as_str().unwrap()).unwrap();
        let reference = row["ref"].as_str().unwrap();
        if kind < last {
            assert!(
                shown.iter().any(|l| l.refs == reference),
                "{reference}: {text}"
            );
        }
    }

    // A higher share is no storm: every alert listed.
    let calm = Workspace::new();
    rules(
        &calm,
        "storm_share = 0.9\nimproved = \"list\"\nchanged = \"list\"\n",
    );
    let file = calm.write("p.csv", csv.as_bytes());
    night(&calm, &sim, &file, 1, &[]);
    let (_, text) = night(&calm, &sim, &file, 200, &[]);
    assert!(!text.contains("STORM"), "{text}");
    assert_eq!(listed(&text).len() as u64, alerts, "{text}");
}

#[test]
fn fewer_than_ten_changes_are_no_storm_whatever_the_share() {
    let sim = sample_sim();
    let ws = Workspace::new();
    rules(&ws, "storm_share = 0.01\n");
    night(&ws, &sim, &sample(), 1, &[]);
    let (_, text) = night(&ws, &sim, &sample(), 2, &[]);
    let changed = rows(&ws.report())
        .iter()
        .filter(|r| {
            ["deteriorated", "improved", "changed"].contains(&r["change"].as_str().unwrap_or(""))
        })
        .count();
    assert!((1..10).contains(&changed), "{text}");
    assert!(!text.contains("STORM"), "{text}");
}

/// What the summary says of the rows of a status: their count, then the first five by
/// line with their error, then how many more.
fn named_block(report: &Value, status: &str) -> String {
    let all: Vec<&Value> = rows(report)
        .iter()
        .filter(|r| r["status"] == status)
        .collect();
    let mut block = format!(
        "{} {status} {}:\n",
        all.len(),
        if all.len() == 1 { "row" } else { "rows" }
    );
    for r in all.iter().take(5) {
        block.push_str(&format!(
            "  {} (line {}): {}\n",
            r["ref"].as_str().unwrap(),
            r["line"],
            r["error"].as_str().unwrap()
        ));
    }
    if all.len() > 5 {
        block.push_str(&format!("  … and {} more in the reports\n", all.len() - 5));
    }
    block
}

#[test]
fn the_summary_names_the_first_unresolved_and_invalid_rows_with_their_error() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let (_, text) = night(&ws, &sim, &sample(), 1, &[]);
    let report = ws.report();
    for status in ["unresolved", "invalid"] {
        let block = named_block(&report, status);
        assert!(block.lines().count() > 1, "the sample has {status} rows");
        assert!(text.contains(&block), "{block}\nin:\n{text}");
    }
    // More than five: the first five, then a count.
    let mut more = std::fs::read_to_string(sample()).unwrap();
    for n in 0..3 {
        more.push_str(&format!("C-20{n},ZZ,,,Acme {n},,,,\n"));
    }
    let ws = Workspace::new();
    let file = ws.write("more.csv", more.as_bytes());
    let (_, text) = night(&ws, &sim, &file, 1, &[]);
    let block = named_block(&ws.report(), "invalid");
    assert!(block.starts_with("8 invalid rows:\n"), "{block}");
    assert!(
        block.ends_with("  … and 3 more in the reports\n"),
        "{block}"
    );
    assert!(text.contains(&block), "{block}\nin:\n{text}");
    assert!(!text.contains("C-200"), "{text}");
}

#[test]
fn a_night_whose_alerts_the_rules_left_out_does_not_claim_there_was_nothing() {
    let sim = sample_sim();
    // Red companies below the exposure: no alert, but not "no red or black company".
    let data = sim.server.dataset().clone();
    let red: Vec<CompanyRef> = candidates()
        .filter(|r| data.rating(*r, 1).color == Color::Red)
        .take(2)
        .collect();
    let csv = by_id(
        &data,
        &[("R1", red[0], &["10"]), ("R2", red[1], &["20"])],
        &["Encours EUR"],
    );
    let ws = Workspace::new();
    rules(
        &ws,
        "min_exposure = { column = \"Encours EUR\", value = 50000 }\n",
    );
    let file = ws.write("p.csv", csv.as_bytes());
    let (code, text) = night(&ws, &sim, &file, 1, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("colors: 2 red"), "{text}");
    assert!(!text.contains("no red or black company"), "{text}");
    assert!(
        text.contains("Nothing new flagged: no color change the rules alert on."),
        "{text}"
    );
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(!html.contains("no red or black company"), "report.html");
    assert!(html.contains("Nothing new flagged: no color change the rules alert on."));

    // An improvement left out by `improved = false`: not "no color change".
    let better = find(&data, &[1, 2], |c| {
        c[0] == Color::Yellow && c[1] == Color::Green
    })
    .expect("a yellow → green");
    let ws = Workspace::new();
    rules(&ws, "improved = false\n");
    let file = ws.write(
        "p.csv",
        by_id(&data, &[("UP", better, &[])], &[]).as_bytes(),
    );
    night(&ws, &sim, &file, 1, &[]);
    let (code, text) = night(&ws, &sim, &file, 2, &[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(rows_by_ref(&ws.report())["UP"]["change"], "improved");
    assert!(!text.contains("no color change."), "{text}");
    assert!(
        text.contains("Nothing new flagged: no color change the rules alert on."),
        "{text}"
    );
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(!html.contains("no color change."), "report.html");
}

#[test]
fn an_exposure_rule_on_a_column_the_portfolio_lacks_lists_every_alert_and_says_so() {
    let sim = sample_sim();
    let ws = Workspace::new();
    rules(
        &ws,
        "min_exposure = { column = \"Encours EUR\", value = 50000 }\n",
    );
    let (code, text) = night(&ws, &sim, &sample(), 1, &[]);
    assert!(
        after_heading(&text).starts_with("NOTE: [alerts] min_exposure reads the column \"Encours EUR\", which this portfolio does not have"),
        "{text}"
    );
    assert!(!listed(&text).is_empty(), "every alert listed: {text}");
    assert_eq!(code, 3, "the sample has a row that fails: {text}");
}

/// A French ERP's export of `rows` customers: the simulator's portfolio with a semicolon,
/// an amount as French accounting writes it (`Encours (€)`), and the account manager.
fn erp_export(sim: &Background, ws: &Workspace, rows: u64) -> PathBuf {
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), rows, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        assert!(!line.contains('"'), "plain fields: {line}");
        let (amount, owner) = if i == 0 {
            ("Encours (€)".to_string(), "Commercial".to_string())
        } else {
            // 1 000,00 to 250 000,00, spread so that order by amount is not input order.
            let euros = 1_000 + (i as u64 * 7_919) % 249_000;
            (
                format!("\"{} {:03},{:02}\"", euros / 1000, euros % 1000, i % 100),
                ["M. Dupont", "Mme Martin", "M. Bernard"][i % 3].to_string(),
            )
        };
        out.push_str(&format!("{},{amount},{owner}\n", fields.join(",")));
    }
    ws.write("export.csv", out.as_bytes())
}

#[test]
fn a_team_s_morning_mail_stays_short_with_the_amount_and_owner_in_every_line() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let file = erp_export(&sim, &ws, 600);
    rules(
        &ws,
        "show = [\"Encours (€)\", \"Commercial\"]\namount = \"Encours (€)\"\n",
    );
    for day in 1..=8 {
        let (_, text) = night(&ws, &sim, &file, day, &[]);
        if std::env::var_os("SHOW_MAIL").is_some() {
            eprintln!("--- day {day}\n{text}");
        }
        let report = ws.report();
        let lines = listed(&text);
        assert!(
            !text.contains("columns not used"),
            "the alerts use them: {text}"
        );
        // At most 20 lines, besides every new red and black.
        let new_red_or_black: BTreeSet<&str> = rows(&report)
            .iter()
            .filter(|r| {
                r["alert_listed"] == true
                    && (r["alert_kind"] == "red" || r["alert_kind"] == "black")
                    && !r["previous_color"].is_null()
            })
            .map(|r| r["company_id"].as_str().unwrap())
            .collect();
        assert!(
            lines.len() <= 20 + new_red_or_black.len(),
            "day {day}: {text}"
        );
        for company in &new_red_or_black {
            let first = rows(&report)
                .iter()
                .find(|r| r["company_id"] == *company)
                .unwrap();
            let reference = first["ref"].as_str().unwrap();
            assert!(
                lines
                    .iter()
                    .any(|l| l.refs.split(", ").any(|r| r == reference)),
                "day {day}: new red or black {reference} is listed: {text}"
            );
        }
        // The columns, in the setting's order, in the table's header and every line.
        if !lines.is_empty() {
            let header = text
                .lines()
                .find(|l| l.trim_start().starts_with("REF "))
                .unwrap();
            let at = |h: &str| header.find(h).unwrap();
            assert!(at("ENCOURS (€)") < at("COMMERCIAL"), "{header}");
            for line in text.lines().filter(|l| l.starts_with("  R0")) {
                assert!(
                    ["M. Dupont", "Mme Martin", "M. Bernard"]
                        .iter()
                        .any(|o| line.contains(o)),
                    "{line}"
                );
            }
        }
        // Within a kind, largest amount first.
        let amounts: Vec<(AlertKind, f64)> = lines
            .iter()
            .map(|l| {
                let mut sum = 0.0;
                for reference in l.refs.split(", ") {
                    let row = &rows_by_ref(&report)[reference];
                    let text = row["extra"]["Encours (€)"].as_str().unwrap();
                    sum += ratewatch::alerts::parse_amount(text).unwrap();
                }
                (l.kind, sum)
            })
            .collect();
        for pair in amounts.windows(2) {
            if pair[0].0 == pair[1].0 {
                assert!(pair[0].1 >= pair[1].1, "day {day}: {amounts:?}\n{text}");
            }
        }
        // Standing red and black are one line each, with what is at stake.
        for line in text.lines().filter(|l| l.starts_with("still ")) {
            assert!(
                line.contains(" at stake (Encours (€)); largest: "),
                "{line}"
            );
        }
        if day > 1 {
            assert!(standing(&text).is_some(), "day {day}: {text}");
        }
        // report.html: the same columns in its alerts tables, the amount at risk in its trend.
        let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
        assert!(
            html.contains("<th>Change</th><th>Encours (€)</th><th>Commercial</th>"),
            "day {day}"
        );
        if let Some(first) = lines.first() {
            let reference = first.refs.split(", ").next().unwrap();
            let row = &rows_by_ref(&report)[reference];
            let owner = row["extra"]["Commercial"].as_str().unwrap();
            assert!(
                html.contains(&format!("<td data-label=\"Commercial\">{owner}</td>")),
                "day {day}"
            );
        }
        assert!(
            html.contains("Encours (€) at risk (red and black rows)"),
            "day {day}"
        );
    }
}
