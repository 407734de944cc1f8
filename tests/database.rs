//! The database as its readers see it: `runs`, `report`, `history` and `changes` on a
//! database filled by `screen --demo`, checked against what the simulator's dataset
//! implies; that they never write it nor wait for a run; and every query of
//! samples/queries.sql.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use ratewatch::model::Color;
use ratewatch::sim::dataset::Calendar;
use ratewatch::sim::server::{DEFAULT_PER_COUNTRY, DEFAULT_SEED};
use ratewatch::sim::{CompanyRef, Dataset};
use serde_json::Value;

use crate::common::InFolder;
use crate::common::wait::a_second_later;

/// A folder where the sample portfolio was screened with `--demo` on simulated days
/// 1, 2, … (run N on day N), one run after another (each in a second of its own: times
/// are to the second), with the database and the reports of the last run. The simulator
/// dates those days on the day of the runs: their changes on the night before.
struct Demo {
    dir: tempfile::TempDir,
}

impl InFolder for Demo {
    fn folder(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Demo {
    fn screened(days: usize) -> Demo {
        let demo = Demo {
            dir: tempfile::tempdir().unwrap(),
        };
        for day in 0..days {
            if day > 0 {
                a_second_later();
            }
            demo.screen();
        }
        demo
    }

    /// The dataset `--demo` served, its days dated as the runs dated them.
    fn data(&self) -> Dataset {
        let days = ratewatch::store::Store::open_read_only(&self.db())
            .unwrap()
            .demo_days()
            .unwrap();
        demo_data().with_calendar(Calendar::dated(days))
    }

    /// A run's `runs --json` entry.
    fn run(&self, id: i64) -> Value {
        self.json(&["runs", "--json"])["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    }

    /// One more demo run (the sample has a row that fails on purpose: exit 3).
    fn screen(&self) {
        self.ratewatch(["screen"])
            .arg(sample("portfolio.csv"))
            .arg("--demo")
            .assert()
            .code(3);
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn db(&self) -> PathBuf {
        self.path("ratewatch.db")
    }

    /// stdout of a command that must succeed, as JSON.
    fn json(&self, args: &[&str]) -> Value {
        let out = self.ratewatch(args).assert().code(0);
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    }

    /// The last run's report.
    fn report(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.path("report.json")).unwrap()).unwrap()
    }
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

/// The dataset `--demo` serves (its colors; [`Demo::data`] dates them as served).
fn demo_data() -> Dataset {
    Dataset::new(DEFAULT_SEED, DEFAULT_PER_COUNTRY)
}

/// The companies the sample's rows were rated as (company id → the dataset's company),
/// with the references holding each.
fn rated(report: &Value, data: &Dataset) -> BTreeMap<String, (CompanyRef, BTreeSet<String>)> {
    let mut rated: BTreeMap<String, (CompanyRef, BTreeSet<String>)> = BTreeMap::new();
    for row in report["rows"].as_array().unwrap() {
        if row["status"] != "rated" {
            continue;
        }
        let id = row["company_id"].as_str().unwrap().to_string();
        let r = data
            .find_uuid(id.parse().unwrap())
            .expect("a company of the dataset");
        rated
            .entry(id)
            .or_insert_with(|| (r, BTreeSet::new()))
            .1
            .insert(row["ref"].as_str().unwrap().to_string());
    }
    assert!(rated.len() > 10, "the sample rates most of its companies");
    rated
}

fn color(data: &Dataset, r: CompanyRef, day: i64) -> String {
    data.rating(r, day).color.as_str().to_string()
}

/// (company id, from, to, run) of every color change between consecutive demo days.
fn changes_between(
    rated: &BTreeMap<String, (CompanyRef, BTreeSet<String>)>,
    data: &Dataset,
    days: std::ops::RangeInclusive<i64>,
) -> BTreeSet<(String, String, String, i64)> {
    let mut changes = BTreeSet::new();
    for (id, (r, _)) in rated {
        for day in days.clone() {
            let (before, after) = (color(data, *r, day - 1), color(data, *r, day));
            if before != after {
                changes.insert((id.clone(), before, after, day));
            }
        }
    }
    changes
}

/// What a reading command says of a database older than its schema: which commands
/// upgrade it.
const UPGRADED_BY: &str = "run a writing command with this --db once (`ratewatch screen`, `ack`, `review`, `sync-history`) to upgrade it";

#[test]
fn report_writes_any_past_run_again_byte_for_byte() {
    let demo = Demo::screened(1);
    let first_csv = std::fs::read(demo.path("report.csv")).unwrap();
    let first_json = std::fs::read(demo.path("report.json")).unwrap();
    let first_html = std::fs::read(demo.path("report.html")).unwrap();
    demo.screen();
    assert_ne!(
        std::fs::read(demo.path("report.json")).unwrap(),
        first_json,
        "run 2 has reports of its own"
    );

    demo.ratewatch(["report", "--run", "1", "--out", "other"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("other/report.csv"));
    assert_eq!(
        std::fs::read(demo.path("other/report.csv")).unwrap(),
        first_csv
    );
    assert_eq!(
        std::fs::read(demo.path("other/report.json")).unwrap(),
        first_json
    );
    assert_eq!(
        std::fs::read(demo.path("other/report.html")).unwrap(),
        first_html
    );
    demo.ratewatch(["report", "--run", "2", "--out", "again"])
        .assert()
        .code(0);
    for name in ["report.csv", "report.json", "report.html"] {
        assert_eq!(
            std::fs::read(demo.path(&format!("again/{name}"))).unwrap(),
            std::fs::read(demo.path(name)).unwrap(),
            "{name}"
        );
    }

    demo.ratewatch(["report", "--run", "7", "--out", "none"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no run 7"));
    assert!(
        !demo.path("none").exists(),
        "nothing written for an unknown run"
    );

    // A database from before its tables took their compact form (0011) is not read as if
    // it had: the reports and the history are refused, and a dry run counts as for a first
    // run and says why.
    rusqlite::Connection::open(demo.path("ratewatch.db"))
        .unwrap()
        .pragma_update(None, "user_version", 10)
        .unwrap();
    demo.ratewatch(["report", "--run", "2", "--out", "older"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(UPGRADED_BY));
    demo.ratewatch(["changes", "--since", "2020-01-01"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(UPGRADED_BY));
    demo.ratewatch(["screen"])
        .arg(sample("portfolio.csv"))
        .args(["--demo", "--dry-run"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("from an earlier ratewatch"));

    // A database from before the alert rules cannot say which rows are alerts: refused,
    // never a summary saying nothing is flagged.
    rusqlite::Connection::open(demo.path("ratewatch.db"))
        .unwrap()
        .pragma_update(None, "user_version", 5)
        .unwrap();
    demo.ratewatch(["report", "--run", "2", "--out", "older"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("Nothing flagged").not())
        .stderr(predicate::str::contains(UPGRADED_BY));
    rusqlite::Connection::open(demo.path("ratewatch.db"))
        .unwrap()
        .pragma_update(None, "user_version", 4)
        .unwrap();
    demo.ratewatch(["runs"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(UPGRADED_BY));
}

#[test]
fn report_writes_excel_and_timestamped_reports_again_as_screen_wrote_them() {
    let demo = Demo::screened(0);
    demo.ratewatch(["screen"])
        .arg(sample("portfolio.csv"))
        .args([
            "--demo",
            "--csv-dialect",
            "excel",
            "--timestamped",
            "--out",
            "nightly",
        ])
        .assert()
        .code(3);
    demo.ratewatch([
        "report",
        "--run",
        "1",
        "--csv-dialect",
        "excel",
        "--timestamped",
    ])
    .args(["--out", "again"])
    .assert()
    .code(0);
    let names = |dir: &str| {
        let mut n: Vec<String> = std::fs::read_dir(demo.path(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    let written = names("nightly");
    assert_eq!(written.len(), 3, "{written:?}");
    assert!(
        written.iter().all(|n| n.starts_with("report-2")),
        "{written:?}"
    );
    assert_eq!(names("again"), written);
    for name in &written {
        assert_eq!(
            std::fs::read(demo.path(&format!("again/{name}"))).unwrap(),
            std::fs::read(demo.path(&format!("nightly/{name}"))).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn reading_commands_find_the_database_named_in_ratewatch_toml() {
    let demo = Demo::screened(0);
    std::fs::write(demo.path("ratewatch.toml"), "db = \"kept/screening.db\"\n").unwrap();
    std::fs::create_dir(demo.path("kept")).unwrap();
    demo.screen();
    assert!(demo.path("kept/screening.db").exists());
    assert!(!demo.db().exists(), "the default database is not used");
    let runs = demo.json(&["runs", "--json"]);
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");
    demo.ratewatch(["report", "--run", "1", "--out", "again"])
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read(demo.path("again/report.json")).unwrap(),
        std::fs::read(demo.path("report.json")).unwrap()
    );
}

#[test]
fn runs_are_listed_newest_first_with_the_counts_of_their_reports() {
    let demo = Demo::screened(2);
    let listed = demo.json(&["runs", "--json"]);
    let runs = listed["runs"].as_array().unwrap();
    assert_eq!(
        runs.iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [2, 1]
    );
    let reported = &demo.report()["run"];
    for field in [
        "status",
        "rows",
        "by_status",
        "alerts",
        "started_at",
        "finished_at",
    ] {
        assert_eq!(runs[0][field], reported[field], "{field}");
    }
    assert_eq!(runs[1]["demo_day"], 1);
    assert_eq!(
        demo.json(&["runs", "--json", "--limit", "1"])["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let csv = demo.ratewatch(["runs", "--csv"]).assert().code(0);
    let csv = String::from_utf8(csv.get_output().stdout.clone()).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        csv.starts_with("id,started_at,finished_at,portfolio,"),
        "{csv}"
    );
    demo.ratewatch(["runs"])
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(r"(?m)^RUN +STARTED +PORTFOLIO +STATUS").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^2 +\S+ +portfolio +partial +25 +16 ").unwrap());
}

#[test]
fn changes_are_exactly_those_the_simulator_made_with_the_references_holding_them() {
    let demo = Demo::screened(3);
    let data = demo_data();
    let rated = rated(&demo.report(), &data);
    let expected = changes_between(&rated, &data, 2..=3);
    assert!(!expected.is_empty(), "three demo days bring color changes");

    let listed = demo.json(&["changes", "--since", "2026-01-01", "--json"]);
    assert_eq!(listed["since"], "2026-01-01T00:00:00Z");
    let changes = listed["changes"].as_array().unwrap();
    let got: BTreeSet<(String, String, String, i64)> = changes
        .iter()
        .map(|c| {
            (
                c["company_id"].as_str().unwrap().to_string(),
                c["from_color"].as_str().unwrap().to_string(),
                c["to_color"].as_str().unwrap().to_string(),
                c["run_id"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    let seen: Vec<&str> = changes
        .iter()
        .map(|c| c["observed_at"].as_str().unwrap())
        .collect();
    assert!(
        seen.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {seen:?}"
    );
    for c in changes {
        let refs: BTreeSet<String> = c["held_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["ref"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(refs, rated[c["company_id"].as_str().unwrap()].1, "{c}");
        let kind = c["change"].as_str().unwrap();
        assert!(
            ["deteriorated", "improved", "changed"].contains(&kind),
            "{c}"
        );
    }

    // Until the end of run 2: the changes of day 2 only (run 3 saw the others later).
    let run_2_ended = demo.run(2)["finished_at"].as_str().unwrap().to_string();
    let until = demo.json(&[
        "changes",
        "--since",
        "2026-01-01",
        "--until",
        &run_2_ended,
        "--json",
    ]);
    let runs: BTreeSet<i64> = until["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["run_id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        until["changes"].as_array().unwrap().len(),
        changes_between(&rated, &data, 2..=2).len()
    );
    assert!(runs.iter().all(|r| *r == 2), "{runs:?}");

    let csv = demo
        .ratewatch(["changes", "--since", "2026-01-01", "--csv"])
        .assert()
        .code(0);
    let csv = String::from_utf8(csv.get_output().stdout.clone()).unwrap();
    assert_eq!(csv.lines().count(), expected.len() + 1, "{csv}");
    demo.ratewatch(["changes", "--since", "2026-01-01"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "{} color changes seen since 2026-01-01T00:00:00Z",
            expected.len()
        )))
        .stdout(predicate::str::contains(" → "));
    demo.ratewatch(["changes", "--since", "2100-01-01"])
        .assert()
        .code(0)
        .stdout("No color change seen since 2100-01-01T00:00:00Z.\n");
    demo.ratewatch(["changes", "--since", "yesterday"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--since \"yesterday\" is neither a date",
        ));
    demo.ratewatch(["changes", "--since", "2026-01-03", "--until", "2026-01-02"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not after --since"));
}

#[test]
fn history_finds_a_company_by_reference_id_or_name_and_shows_its_colors_over_the_runs() {
    let demo = Demo::screened(3);
    let data = demo.data();
    let rated = rated(&demo.report(), &data);
    // A company whose color moved over the three days, held by a single reference.
    let (id, (r, refs)) = rated
        .iter()
        .find(|(_, (r, refs))| refs.len() == 1 && color(&data, *r, 1) != color(&data, *r, 3))
        .expect("a company that changed color");
    let reference = refs.iter().next().unwrap();

    let shown = demo.json(&["history", reference, "--json"]);
    assert_eq!(shown["company"]["company_id"], id.as_str());
    assert_eq!(shown["company"]["name"], data.name(*r));
    assert_eq!(shown["company"]["held_by"][0]["ref"], reference.as_str());
    // The days merged into periods of one color: (color, first run, last run).
    let mut expected: Vec<(String, i64, i64)> = Vec::new();
    for day in 1..=3 {
        let c = color(&data, *r, day);
        match expected.last_mut() {
            Some(last) if last.0 == c => last.2 = day,
            _ => expected.push((c, day, day)),
        }
    }
    let periods = shown["periods"].as_array().unwrap();
    let got: Vec<(String, i64, i64)> = periods
        .iter()
        .map(|p| {
            (
                p["color"].as_str().unwrap().to_string(),
                p["first_run_id"].as_i64().unwrap(),
                p["last_run_id"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    let mut last_seen_before = String::new();
    for (p, (_, first_day, _)) in periods.iter().zip(&expected) {
        // Since the service's lastChangeDate, unless that is later than the sighting, or
        // before the last sighting of the color before (the demo's days fall on the day of
        // its runs, their changes on the night before it: after that sighting, then).
        let changed = ratewatch::store::time_text(data.rating(*r, *first_day).last_change.instant);
        let observed = p["observed_at"].as_str().unwrap();
        let since = changed
            .as_str()
            .min(observed)
            .max(last_seen_before.as_str());
        assert_eq!(p["valid_from"], since, "{p}");
        last_seen_before = p["confirmed_at"].as_str().unwrap().to_string();
    }
    assert_eq!(periods.last().unwrap()["valid_to"], Value::Null);
    for (earlier, later) in periods.iter().zip(periods.iter().skip(1)) {
        assert_eq!(earlier["valid_to"], later["valid_from"]);
    }

    // The same timeline by company id, in capitals, and by a part of the name written
    // without its accents or case.
    assert_eq!(demo.json(&["history", &id.to_uppercase(), "--json"]), shown);
    let name = data.name(*r);
    let words: Vec<&str> = name.split_whitespace().take(2).collect();
    let plain: String = words
        .join(" ")
        .to_lowercase()
        .replace(['é', 'è'], "e")
        .replace('á', "a")
        .replace(['í', 'ï'], "i")
        .replace(['ó', 'ö'], "o")
        .replace(['ú', 'ü'], "u")
        .replace('ñ', "n");
    let by_name = demo.ratewatch(["history", &plain, "--json"]).assert();
    let out: Value = serde_json::from_slice(&by_name.get_output().stdout).unwrap();
    match by_name.get_output().status.code() {
        Some(0) => assert_eq!(out, shown),
        Some(2) => assert!(
            out["matches"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["company_id"] == id.as_str()),
            "{out}"
        ),
        other => panic!("{other:?}: {out}"),
    }
    demo.ratewatch(["history", reference])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("company id  {id}")))
        .stdout(
            predicate::str::is_match(
                r"(?m)^COLOR +SINCE +UNTIL +FIRST SEEN +LAST CONFIRMED +RUNS$",
            )
            .unwrap(),
        );

    // Two companies are named "López Motors & Fils SA": never a guess.
    demo.ratewatch(["history", "lopez motors & fils sa"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("companies match"))
        .stdout(predicate::str::contains("Bordeaux"))
        .stdout(predicate::str::contains("Toulouse"))
        .stderr(predicate::str::contains("give the company id"));
    demo.ratewatch(["history", "Nobody Such Trading"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("No company matches"));
}

#[test]
fn reading_never_creates_or_writes_the_database_and_never_waits_for_a_run() {
    let demo = Demo::screened(2);
    for args in [
        &["runs"][..],
        &["report", "--run", "1"],
        &["history", "C-1001"],
        &["changes"],
        &["usage"],
    ] {
        demo.ratewatch(args)
            .args(["--db", "elsewhere.db"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "database elsewhere.db: there is no database there",
            ));
    }
    assert!(!demo.path("elsewhere.db").exists(), "never created");

    // A run in progress: it holds the run lock and has a batch open, not yet committed.
    let before = std::fs::read(demo.db()).unwrap();
    let _lock = ratewatch::store::RunLock::acquire(&demo.db()).unwrap();
    let writer = rusqlite::Connection::open(demo.db()).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE;
             INSERT INTO runs (portfolio, input_path, input_sha256, started_at)
             VALUES ('nightly', 'n.csv', 'x', '2026-11-21T02:00:00Z');",
        )
        .unwrap();
    let started = std::time::Instant::now();
    let listed = demo.json(&["runs", "--json"]);
    assert_eq!(
        listed["runs"].as_array().unwrap().len(),
        2,
        "what was committed"
    );
    demo.json(&["history", "C-1001", "--json"]);
    demo.json(&["changes", "--since", "2026-01-01", "--json"]);
    demo.json(&["usage", "--json"]);
    demo.ratewatch(["report", "--run", "2", "--out", "copy"])
        .assert()
        .code(0);
    // No wait for the writer. A reader that waited for it would wait until this test
    // commits, after the readers: it would fail on its busy timeout (10 s) or hang. The
    // readers take about a second in all; the bound, far above, only tells a wait from a
    // slow machine.
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(60),
        "the readers waited for the writer: {took:?}"
    );
    assert_eq!(
        std::fs::read(demo.db()).unwrap(),
        before,
        "the readers changed nothing"
    );
    writer.execute_batch("COMMIT").unwrap();
    assert_eq!(
        demo.json(&["runs", "--json"])["runs"][0]["status"],
        "running",
        "and see the run once committed"
    );

    // A database of another program is refused, whatever is asked.
    let foreign = demo.path("other.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER);")
        .unwrap();
    demo.ratewatch(["changes", "--db", "other.db"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("not a ratewatch database"));
}

#[test]
fn usage_adds_up_the_calls_the_runs_recorded_by_day_or_month_and_endpoint() {
    let demo = Demo::screened(2);
    // The first run moved to another month: the default window (this month) leaves it out.
    let db = rusqlite::Connection::open(demo.db()).unwrap();
    db.execute(
        "UPDATE runs SET started_at = '2026-01-15T02:00:00Z' WHERE id = 1",
        [],
    )
    .unwrap();
    let recorded = |id: i64| -> BTreeMap<String, u64> {
        let text: String = db
            .query_row("SELECT calls FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (first, second) = (recorded(1), recorded(2));
    let sum = |calls: &BTreeMap<String, u64>| calls.values().sum::<u64>();
    assert!(sum(&first) > 0 && sum(&second) > 0);
    let today = demo.json(&["runs", "--json"])["runs"][0]["started_at"]
        .as_str()
        .unwrap()
        .to_string();
    let as_json = |calls: &BTreeMap<String, u64>| serde_json::to_value(calls).unwrap();

    // Default: since the start of this month (UTC), by day.
    let usage = demo.json(&["usage", "--json"]);
    assert_eq!(usage["by"], "day");
    assert_eq!(usage["since"], format!("{}-01T00:00:00Z", &today[..7]));
    assert_eq!(usage["until"], Value::Null);
    let periods = usage["periods"].as_array().unwrap();
    assert_eq!(periods.len(), 1, "{usage:#}");
    assert_eq!(periods[0]["period"], &today[..10]);
    assert_eq!(periods[0]["runs"], 1);
    assert_eq!(periods[0]["calls"], as_json(&second));
    assert_eq!(periods[0]["total"], sum(&second));
    assert_eq!(usage["total"]["total"], sum(&second));

    // Every period, by month: each object has the same fields, and the total adds them up.
    let usage = demo.json(&["usage", "--since", "2026-01-01", "--by", "month", "--json"]);
    let periods = usage["periods"].as_array().unwrap();
    assert_eq!(
        periods
            .iter()
            .map(|p| p["period"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["2026-01", &today[..7]]
    );
    for p in periods {
        let mut fields: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        fields.sort_unstable();
        assert_eq!(fields, ["calls", "period", "runs", "total"]);
        let calls = p["calls"].as_object().unwrap();
        assert!(calls.values().all(Value::is_u64));
        assert_eq!(
            p["total"].as_u64().unwrap(),
            calls.values().map(|n| n.as_u64().unwrap()).sum::<u64>()
        );
    }
    assert_eq!(periods[0]["calls"], as_json(&first));
    let mut both = first.clone();
    for (endpoint, n) in &second {
        *both.entry(endpoint.clone()).or_insert(0) += n;
    }
    assert_eq!(usage["total"]["calls"], as_json(&both));
    assert_eq!(usage["total"]["runs"], 2);
    assert_eq!(usage["total"]["total"], sum(&first) + sum(&second));

    // A window that ends before this month: January only, to the day.
    let january = demo.json(&[
        "usage",
        "--since",
        "2026-01-15",
        "--until",
        "2026-01-15",
        "--json",
    ]);
    assert_eq!(january["until"], "2026-01-16T00:00:00Z");
    assert_eq!(january["periods"][0]["period"], "2026-01-15");
    assert_eq!(january["total"]["total"], sum(&first));

    // For people: a line per period, a total line, one column per endpoint.
    let out = demo
        .ratewatch(["usage", "--since", "2026-01-01", "--by", "month"])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("API calls of the runs started since 2026-01-01T00:00:00Z, by month"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].starts_with("MONTH") && lines[2].ends_with("CALLS"),
        "{text}"
    );
    assert!(lines[2].contains("rating"), "{text}");
    let total_line = format!(r"(?m)^total +2 +.* {}$", sum(&first) + sum(&second));
    assert!(regex_match(&total_line, &text), "{text}");
    assert!(lines[3].starts_with("2026-01 "), "{text}");

    // For scripts: one CSV line per period and endpoint.
    let out = demo
        .ratewatch(["usage", "--since", "2026-01-01", "--csv"])
        .assert()
        .code(0);
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(csv.lines().next(), Some("period,endpoint,calls"));
    assert_eq!(csv.lines().count(), 1 + first.len() + second.len(), "{csv}");
    assert!(
        csv.contains(&format!("2026-01-15,rating,{}\n", first["rating"])),
        "{csv}"
    );

    // Nothing in the window; and usage errors.
    demo.ratewatch(["usage", "--since", "2025-01-01", "--until", "2025-12-31"])
        .assert()
        .code(0)
        .stdout("No run started from 2025-01-01T00:00:00Z and before 2026-01-01T00:00:00Z.\n");
    demo.ratewatch(["usage", "--since", "2026-02-01", "--until", "2026-01-01"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not after --since"));
    demo.ratewatch(["usage", "--by", "week"]).assert().code(2);
    demo.ratewatch(["usage", "--json", "--csv"])
        .assert()
        .code(2);
}

fn regex_match(pattern: &str, text: &str) -> bool {
    predicate::str::is_match(pattern).unwrap().eval(text)
}

/// The queries of samples/queries.sql, each under its `-- N.` heading.
fn sample_queries(text: &str) -> Vec<String> {
    let mut queries: Vec<String> = Vec::new();
    for line in text.lines() {
        let numbered = line
            .strip_prefix("-- ")
            .and_then(|l| l.split_once(". "))
            .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if numbered {
            queries.push(String::new());
        }
        if let Some(q) = queries.last_mut() {
            q.push_str(line);
            q.push('\n');
        }
    }
    queries
}

/// Every row of a query, each column as text (NULL as "").
fn rows(conn: &rusqlite::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{e}:\n{sql}"));
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| {
                Ok(match r.get::<_, rusqlite::types::Value>(i)? {
                    rusqlite::types::Value::Null => String::new(),
                    rusqlite::types::Value::Integer(v) => v.to_string(),
                    rusqlite::types::Value::Real(v) => v.to_string(),
                    rusqlite::types::Value::Text(v) => v,
                    rusqlite::types::Value::Blob(_) => "<blob>".into(),
                })
            })
            .collect()
    })
    .unwrap_or_else(|e| panic!("{e}:\n{sql}"))
    .collect::<Result<_, _>>()
    .unwrap_or_else(|e| panic!("{e}:\n{sql}"))
}

#[test]
fn every_sample_query_runs_and_answers_its_question_on_a_demo_database() {
    let demo = Demo::screened(3);
    let data = demo.data();
    let rated = rated(&demo.report(), &data);
    let text = std::fs::read_to_string(sample("queries.sql")).unwrap();
    let queries = sample_queries(&text);
    let conn = rusqlite::Connection::open_with_flags(
        demo.db(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();

    // The file as a whole, as `sqlite3 db < file` runs it; then each query, which must
    // be a single statement under its heading (nothing outside one).
    conn.execute_batch(&text).unwrap();
    assert!(
        text.lines()
            .take_while(|l| !l.starts_with("-- 1."))
            .all(|l| l.is_empty() || l.starts_with("--")),
        "nothing before the first heading but comments"
    );
    assert_eq!(queries.len(), 14);
    for q in &queries {
        rows(&conn, q);
    }

    // The questions about "now" asked when the last run ended; the color "on a date" just
    // before the first run.
    let ended: jiff::Timestamp = demo.run(3)["finished_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let before: jiff::Timestamp = demo.run(1)["started_at"].as_str().unwrap().parse().unwrap();
    let before = ratewatch::store::time_text(before - jiff::SignedDuration::from_secs(1));
    let asked = |n: usize| {
        let sql = queries[n - 1]
            .replace(
                "'now'",
                &format!("'{}'", ratewatch::store::time_text(ended)),
            )
            .replace("'2026-01-03T23:59:59Z'", &format!("'{before}'"));
        rows(&conn, &sql)
    };
    let by_company = |rows: Vec<Vec<String>>, color_at: usize| -> BTreeSet<(String, String)> {
        rows.into_iter()
            .map(|r| (r[0].clone(), r[color_at].clone()))
            .collect()
    };
    let colors_on = |day: i64| -> BTreeSet<(String, String)> {
        rated
            .iter()
            .map(|(id, (r, _))| (id.clone(), color(&data, *r, day)))
            .collect()
    };

    // 1. Latest colors: those of the last day.
    assert_eq!(by_company(asked(1), 3), colors_on(3));
    // 2. This week's changes: every change of the three days.
    let changes: BTreeSet<(String, String, String, i64)> = asked(2)
        .into_iter()
        .map(|r| {
            (
                r[0].clone(),
                r[2].clone(),
                r[3].clone(),
                r[6].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(changes, changes_between(&rated, &data, 2..=3));
    assert!(!changes.is_empty());
    // 3. The color just before the first run: that of simulated day 1, which the
    //    service dated before it.
    assert_eq!(by_company(asked(3), 3), colors_on(1));
    assert_ne!(
        colors_on(3),
        colors_on(1),
        "a time that tells the days apart"
    );
    // 4. Red or black for more than 30 days: the same color all three days, since a
    //    lastChangeDate at least 30 days before.
    let cutoff = ratewatch::store::time_text(ended - jiff::SignedDuration::from_hours(30 * 24));
    let long: BTreeSet<(String, String)> = rated
        .iter()
        .filter(|(_, (r, _))| {
            let c = data.rating(*r, 1).color;
            matches!(c, Color::Red | Color::Black)
                && (2..=3).all(|d| data.rating(*r, d).color == c)
                && ratewatch::store::time_text(data.rating(*r, 1).last_change.instant) <= cutoff
        })
        .map(|(id, (r, _))| (id.clone(), color(&data, *r, 3)))
        .collect();
    assert_eq!(by_company(asked(4), 3), long);
    assert!(
        !long.is_empty(),
        "the sample holds long-standing black companies"
    );
    // 5. A timeline.
    assert!(!asked(5).is_empty());
    // 6. The row that fails on purpose.
    let failed: Vec<String> = asked(6).into_iter().map(|r| r[1].clone()).collect();
    assert_eq!(failed, ["C-1024"]);
    // 9. The portfolio's latest finished run: the third.
    let latest: Vec<(String, String)> = asked(9)
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(latest, [("portfolio".to_string(), "3".to_string())]);
    // 10. Three references as the last run saw them, as report.json has them: the color
    //     since its period began (as color_periods and `history` have it), for the whole
    //     days before the run started.
    let report = demo.report();
    let started: jiff::Timestamp = demo.run(3)["started_at"].as_str().unwrap().parse().unwrap();
    let row_of = |reference: &str| -> Vec<String> {
        let r = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["ref"] == reference)
            .unwrap();
        let text = |v: &Value| v.as_str().unwrap_or("").to_string();
        let since: Option<String> = r["company_id"].as_str().map(|company| {
            conn.query_row(
                "SELECT valid_from FROM color_periods WHERE company_id = ?1 AND valid_to IS NULL",
                [company],
                |row| row.get(0),
            )
            .unwrap()
        });
        let days = since
            .as_deref()
            .map(|since| {
                let since: jiff::Timestamp = since.parse().unwrap();
                ((started - since).get_seconds() / 86_400).to_string()
            })
            .unwrap_or_default();
        vec![
            "portfolio".into(),
            reference.into(),
            text(&r["status"]),
            text(&r["company_name"]),
            text(&r["color"]),
            since.unwrap_or_default(),
            days,
            "3".into(),
        ]
    };
    assert_eq!(
        asked(10),
        ["C-1001", "C-1013", "C-1024"].map(row_of),
        "rated rows and the row that fails on purpose"
    );
    // 11. C-1001's SIREN gives its company and color, as the last run rated it.
    let first = row_of("C-1001");
    let by_siren = asked(11);
    assert_eq!(by_siren.len(), 1, "{by_siren:?}");
    assert_eq!(
        (&by_siren[0][1], &by_siren[0][2]),
        (&first[3], &first[4]),
        "name and color"
    );
    // 12. Nothing moved since the last finished run: no other run or sync came after it.
    assert!(asked(12).is_empty());
    // 14. The calls of the three runs, by endpoint.
    let calls: i64 = asked(14).iter().map(|r| r[2].parse::<i64>().unwrap()).sum();
    let usage = demo.json(&["usage", "--since", "2000-01-01", "--json"]);
    assert_eq!(calls, usage["total"]["total"].as_i64().unwrap());
}

#[test]
fn the_database_doc_shows_the_sample_queries_as_they_are() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/database.md"))
            .unwrap();
    let text = std::fs::read_to_string(sample("queries.sql")).unwrap();
    let queries = &text[text.find("-- 1.").unwrap()..];
    assert!(
        doc.contains(&format!("```sql\n{queries}```\n")),
        "docs/database.md's example queries differ from samples/queries.sql"
    );
}
