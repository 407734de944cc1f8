//! `ratewatch review` end to end: the sample's rows that need a person, decisions on them,
//! and the runs after: an accepted row rated without a search, an ignored one without a
//! call, a revoked decision giving the earlier behaviour back.

use std::path::{Path, PathBuf};

use ratewatch::sim::Endpoint;
use serde_json::Value;

use predicates::prelude::*;

use crate::common::{Background, KEY, Ratewatch, Workspace, rows_by_ref, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// `ratewatch review ARGS… --db DB` in the workspace.
fn review(ws: &Workspace, args: &[&str]) -> Ratewatch {
    let mut review = ws.ratewatch([&["review"], args].concat());
    review.db(ws.db());
    review
}

fn listed(ws: &Workspace) -> Value {
    let out = review(ws, &["list", "--json"]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn problem<'a>(list: &'a Value, reference: &str) -> Option<&'a Value> {
    list["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == reference)
}

fn by_name(sim: &Background) -> u64 {
    sim.server.stats().calls(Endpoint::CompaniesByName)
}

/// Screens the sample again searching every row (no cached answer hides a search), and
/// returns the name searches it made.
fn screen_searching_all(sim: &Background, ws: &Workspace) -> u64 {
    let before = by_name(sim);
    ws.screen(sim, &sample())
        .arg("--refresh-resolutions")
        .assert()
        .code(3);
    by_name(sim) - before
}

#[test]
fn an_accepted_candidate_is_rated_without_a_search_and_an_ignored_row_costs_no_call() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let searches = screen_searching_all(&sim, &ws);

    let list = listed(&ws);
    let c1006 = problem(&list, "C-1006").expect("the ambiguous row is listed");
    assert_eq!(c1006["status"], "ambiguous");
    let candidates = c1006["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 3);
    let chosen = candidates.iter().find(|c| c["city"] == "Bordeaux").unwrap();
    let chosen_id = chosen["id"].as_str().unwrap().to_string();
    assert!(!chosen["postcode"].as_str().unwrap().is_empty());
    assert_eq!(problem(&list, "C-1018").unwrap()["status"], "unresolved");
    let invalid = problem(&list, "C-1019").unwrap();
    assert_eq!(invalid["status"], "invalid");
    assert!(invalid["error"].as_str().unwrap().starts_with("service:"));
    let table = review(&ws, &[]).assert().success();
    let table = String::from_utf8(table.get_output().stdout.clone()).unwrap();
    assert!(table.contains(&chosen_id), "{table}");
    assert!(table.contains("Bordeaux"), "{table}");

    review(&ws, &["accept", "C-1006", &chosen_id])
        .assert()
        .success();
    let list = listed(&ws);
    assert!(
        problem(&list, "C-1006").is_none(),
        "decided: no longer a problem"
    );
    let decision = &list["decisions"][0];
    assert_eq!(decision["ref"], "C-1006");
    assert_eq!(decision["decision"], "accept");
    assert_eq!(decision["company_id"], chosen_id.as_str());
    assert_eq!(decision["source"], "command line");
    assert!(decision["decided_at"].as_str().unwrap().ends_with('Z'));

    // Applied before any call, even when every row is searched again.
    assert_eq!(screen_searching_all(&sim, &ws), searches - 1);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1006"]["company_id"], chosen_id.as_str());
    assert!(rows["C-1006"]["color"].is_string());

    review(&ws, &["ignore", "C-1018"]).assert().success();
    assert!(problem(&listed(&ws), "C-1018").is_none());
    // Its search, and the same without its legal form (Ltd).
    assert_eq!(screen_searching_all(&sim, &ws), searches - 3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1018"]["status"], "ignored");
    let error = rows["C-1018"]["error"].as_str().unwrap();
    assert!(error.starts_with("ignored by review (20"), "{error}");
    assert!(
        problem(&listed(&ws), "C-1018").is_none(),
        "an ignored row does not come back"
    );

    review(&ws, &["revoke", "C-1006"]).assert().success();
    review(&ws, &["revoke", "C-1018"]).assert().success();
    assert_eq!(screen_searching_all(&sim, &ws), searches);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "ambiguous");
    assert_eq!(
        rows["C-1018"]["error"],
        "no company matches; none either without the legal form Ltd"
    );
    let list = listed(&ws);
    assert!(problem(&list, "C-1006").is_some());
    assert!(list["decisions"].as_array().unwrap().is_empty());
}

#[test]
fn a_decision_is_not_applied_once_the_row_searches_something_else() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let list = listed(&ws);
    let id = problem(&list, "C-1006").unwrap()["candidates"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    review(&ws, &["accept", "C-1006", &id]).assert().success();
    // The same ref now names another company: the decision was made for another question.
    let text = std::fs::read_to_string(sample()).unwrap();
    let changed = ws.write(
        "portfolio.csv",
        text.replace("López Motors & Fils SA", "Nobody Such Motors Ltd")
            .as_bytes(),
    );
    assert_ne!(text, std::fs::read_to_string(&changed).unwrap());
    ws.screen(&sim, &changed).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_ne!(rows["C-1006"]["status"], "rated");
    assert_ne!(rows["C-1006"]["company_id"], id.as_str());
}

#[test]
fn only_a_row_of_a_latest_run_that_makes_a_search_can_be_decided() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    review(&ws, &["ignore", "C-9999"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("C-9999: no row has this ref"));
    review(&ws, &["ignore", "C-1025"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nothing to decide"));
    // An invalid row can be left alone, but has no company to accept or reject.
    review(&ws, &["reject", "C-1019"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("C-1019: the row is invalid"));
    review(&ws, &["revoke", "C-1006"]).assert().code(2);
    review(&ws, &["accept", "C-1006", "not-a-uuid"])
        .assert()
        .code(2);
}

#[test]
fn decisions_filled_in_an_exported_csv_are_imported_all_or_nothing() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let csv = ws.path("review.csv");
    review(&ws, &["export", "--out", csv.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    assert!(lines[0].ends_with(",decision"), "{}", lines[0]);
    assert_eq!(
        lines.iter().filter(|l| l.contains(",C-1006,")).count(),
        3,
        "one line per candidate"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains(",C-1019,invalid,"))
            .count(),
        1,
        "an invalid row can be ignored"
    );
    let mut chosen = String::new();
    for line in &mut lines[1..] {
        if line.contains(",C-1006,") && line.contains("Bordeaux") {
            chosen = line.split(',').nth(5).unwrap().to_string();
            line.push_str("accept");
        } else if line.contains(",C-1006,") {
            line.push_str("reject");
        } else if line.contains(",C-1018,") {
            line.push_str("ignore");
        }
    }
    // A wrong line records nothing.
    let bad = ws.write(
        "bad.csv",
        format!(
            "{}\n{}maybe\n",
            lines.join("\n"),
            lines[1].trim_end_matches("reject")
        )
        .as_bytes(),
    );
    review(&ws, &["import", bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("\"maybe\""));
    assert!(listed(&ws)["decisions"].as_array().unwrap().is_empty());

    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    review(&ws, &["import", csv.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "1 accepted, 1 ignored, 0 with every candidate rejected",
        ));
    let list = listed(&ws);
    let decisions = list["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 2);
    assert!(
        decisions[0]["source"]
            .as_str()
            .unwrap()
            .ends_with("review.csv")
    );
    ws.screen(&sim, &sample()).assert().code(3);
    let report = ws.report();
    assert_eq!(report["run"]["by_status"]["ignored"], 1);
    let rows = rows_by_ref(&report);
    assert_eq!(rows["C-1006"]["company_id"], chosen.as_str());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1018"]["status"], "ignored");
    assert!(
        rows["C-1018"]["error"]
            .as_str()
            .unwrap()
            .starts_with("ignored by review")
    );
}

/// `review accept … --force` asking the service at `base` whether it knows the company.
fn forced(ws: &Workspace, base: &str, reference: &str, company: &str) -> Ratewatch {
    let mut cmd = review(
        ws,
        &["accept", reference, company, "--force", "--base-url", base],
    );
    cmd.env("RATEWATCH_API_KEY", KEY);
    cmd
}

/// A company of the simulator's that is none of these.
fn another_company(sim: &Background, not: &[&str]) -> String {
    let dataset = sim.server.dataset();
    dataset
        .companies()
        .map(|c| dataset.uuid(c).to_string())
        .find(|id| !not.contains(&id.as_str()))
        .unwrap()
}

#[test]
fn a_company_the_row_was_not_offered_is_accepted_only_with_force_once_the_service_knows_it() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let list = listed(&ws);
    let candidates: Vec<String> = problem(&list, "C-1006").unwrap()["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
    let other = another_company(&sim, &refs);
    let no_decision = |ws: &Workspace| listed(ws)["decisions"].as_array().unwrap().is_empty();

    // Refused, naming the row and every candidate; no call made.
    let calls = sim.server.stats().total();
    let out = review(&ws, &["accept", "C-1006", &other])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("C-1006"), "{text}");
    assert!(text.contains(&format!("{other} is not among")), "{text}");
    for candidate in &candidates {
        assert!(text.contains(candidate.as_str()), "{text}");
    }
    assert!(text.contains("Bordeaux"), "{text}");
    assert!(text.contains("--force"), "{text}");
    // An unresolved row offers nothing.
    review(&ws, &["accept", "C-1018", &other])
        .assert()
        .code(2)
        .stderr(
            predicates::str::contains("C-1018")
                .and(predicates::str::contains("it has no candidates")),
        );
    assert_eq!(sim.server.stats().total(), calls, "no call without --force");
    assert!(no_decision(&ws));

    // --force needs the service, and its word that the company exists.
    review(&ws, &["accept", "C-1006", &other, "--force"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no service address"));
    let base = sim.server.base_url();
    let unknown = "00000000-0000-4000-8000-000000000000";
    let ratings = sim.server.stats().calls(Endpoint::Rating);
    forced(&ws, &base, "C-1006", unknown)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "{unknown}: the service does not know this company"
        )));
    assert_eq!(sim.server.stats().calls(Endpoint::Rating), ratings + 1);
    assert!(no_decision(&ws));
    forced(&ws, &base, "C-1006", &other).assert().success();
    assert_eq!(sim.server.stats().calls(Endpoint::Rating), ratings + 2);
    let list = listed(&ws);
    assert_eq!(list["decisions"][0]["company_id"], other.as_str());

    // A candidate needs no --force, and --force asks nothing about one.
    forced(&ws, "http://127.0.0.1:9", "C-1006", &candidates[1])
        .assert()
        .success();
    assert_eq!(
        listed(&ws)["decisions"][0]["company_id"],
        candidates[1].as_str()
    );
    forced(&ws, &base, "C-1006", &other).assert().success();

    ws.screen(&sim, &sample()).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1006"]["company_id"], other.as_str());
    // Rated as that company, the row may be accepted as it again without --force.
    review(&ws, &["accept", "C-1006", &other])
        .assert()
        .success();
}

#[test]
fn an_accepted_company_the_service_does_not_know_sends_the_row_back_to_review() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    // Accepted while a service knew it (here another dataset's), unknown to the one that
    // screens next.
    let elsewhere = crate::common::background(ratewatch::sim::SimConfig {
        seed: crate::common::DEFAULT_SEED + 1,
        ..crate::common::config()
    });
    let gone = another_company(&elsewhere, &[]);
    assert!(
        sim.server
            .dataset()
            .find_uuid(gone.parse().unwrap())
            .is_none()
    );
    forced(&ws, &elsewhere.server.base_url(), "C-1006", &gone)
        .assert()
        .success();
    ws.screen(&sim, &sample()).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "unresolved");
    let error = rows["C-1006"]["error"].as_str().unwrap();
    assert!(error.contains("accepted by review"), "{error}");
    assert!(problem(&listed(&ws), "C-1006").is_some(), "back for review");
}

#[test]
fn a_dry_run_counts_a_decided_row_as_no_search() {
    let sim = sample_sim();
    let ws = Workspace::new();
    screen_searching_all(&sim, &ws);
    let to_search = |ws: &Workspace| {
        let out = ws
            .screen(&sim, &sample())
            .args(["--dry-run", "--refresh-resolutions"])
            .run();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let n: u64 = text
            .split(" to search")
            .next()
            .and_then(|head| head.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        n
    };
    let before = to_search(&ws);
    review(&ws, &["ignore", "C-1018"]).assert().success();
    assert_eq!(to_search(&ws), before - 1);
}

#[test]
fn a_row_whose_every_candidate_is_rejected_costs_no_search_and_stays_in_the_review() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let searches = screen_searching_all(&sim, &ws);
    let csv = ws.dir.path().join("review.csv");
    review(&ws, &["export", "--out", csv.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();

    // Some of the candidates rejected decide nothing.
    let mut first = true;
    let partial: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.contains(",C-1006,") && std::mem::take(&mut first) {
                format!("{l}reject")
            } else {
                l.clone()
            }
        })
        .collect();
    let partial_csv = ws.write("partial.csv", (partial.join("\n") + "\n").as_bytes());
    review(&ws, &["import", partial_csv.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "only some candidates rejected: C-1006 (1 of 3)",
        ));
    assert!(listed(&ws)["decisions"].as_array().unwrap().is_empty());

    // `reject` on a line without a candidate is refused, naming the line.
    let unresolved = lines.iter().position(|l| l.contains(",C-1018,")).unwrap();
    let mut wrong = lines.clone();
    wrong[unresolved].push_str("reject");
    let wrong_csv = ws.write("wrong.csv", (wrong.join("\n") + "\n").as_bytes());
    review(&ws, &["import", wrong_csv.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "line {}: reject is said of a candidate",
            unresolved + 1
        )));

    for line in &mut lines[1..] {
        if line.contains(",C-1006,") {
            line.push_str("reject");
        }
    }
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    review(&ws, &["import", csv.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "0 accepted, 0 ignored, 1 with every candidate rejected",
        ));
    assert_eq!(listed(&ws)["decisions"][0]["decision"], "reject");

    assert_eq!(screen_searching_all(&sim, &ws), searches - 1);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "unresolved");
    let error = rows["C-1006"]["error"].as_str().unwrap();
    assert!(
        error.starts_with("none of the candidates is this company"),
        "{error}"
    );
    let still = problem(&listed(&ws), "C-1006").cloned();
    assert_eq!(
        still.map(|p| p["status"].clone()),
        Some("unresolved".into()),
        "a rejected row still needs an identifier"
    );

    review(&ws, &["revoke", "C-1006"]).assert().success();
    assert_eq!(screen_searching_all(&sim, &ws), searches);
}

#[test]
fn a_run_in_progress_leaves_the_review_on_the_last_finished_run() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let before = listed(&ws);
    let finished = problem(&before, "C-1006").unwrap()["run_id"].clone();
    // The next night's run has started (and may never finish: a killed process leaves
    // its run `running` until the next run marks it interrupted).
    let mut store = ratewatch::store::Store::open(&ws.db()).unwrap();
    let going = store
        .start_run(&ratewatch::store::NewRun {
            portfolio: "portfolio".into(),
            input_path: sample().display().to_string(),
            sha256: "x".into(),
            demo_day: None,
            extra_columns: vec![],
            amount_column: None,
        })
        .unwrap();
    drop(store);
    assert!(serde_json::json!(going) != finished);

    let list = listed(&ws);
    assert_eq!(list["rows"], before["rows"], "the finished run's rows");
    let c1006 = problem(&list, "C-1006").unwrap();
    assert_eq!(c1006["run_id"], finished);
    let table = review(&ws, &[]).assert().success();
    let table = String::from_utf8(table.get_output().stdout.clone()).unwrap();
    assert!(!table.contains("Nothing needs a person"), "{table}");

    let chosen = c1006["candidates"][0]["id"].as_str().unwrap().to_string();
    review(&ws, &["accept", "C-1006", &chosen])
        .assert()
        .success();
    review(&ws, &["ignore", "C-1018"]).assert().success();
    let decided = listed(&ws);
    assert!(problem(&decided, "C-1006").is_none());
    assert!(problem(&decided, "C-1018").is_none());
    assert_eq!(decided["decisions"].as_array().unwrap().len(), 2);
}

/// Takes away the description of these companies, leaving each known by its id alone (as
/// `sync-history` or an older ratewatch left them): only the candidates can name them.
fn undescribe(ws: &Workspace, companies: &[&str]) {
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    for id in companies {
        let uuid = uuid::Uuid::parse_str(id).unwrap();
        let changed = db
            .execute(
                "UPDATE companies SET name = NULL, country = NULL, city = NULL,
                     postcode = NULL, street_number = NULL, street_name = NULL
                 WHERE company_id = ?1",
                [uuid.to_string()],
            )
            .unwrap();
        assert_eq!(changed, 1, "{id}");
    }
}

/// The name, country and city the database gives a company.
fn described(ws: &Workspace, id: &str) -> (Option<String>, Option<String>, Option<String>) {
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let uuid = uuid::Uuid::parse_str(id).unwrap();
    db.query_row(
        "SELECT name, country, city FROM companies WHERE company_id = ?1",
        [uuid.to_string()],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .unwrap()
}

#[test]
fn an_accepted_candidate_is_named_in_every_report_even_if_the_database_knew_only_its_id() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let candidates: Vec<Value> = problem(&listed(&ws), "C-1006").unwrap()["candidates"]
        .as_array()
        .unwrap()
        .clone();
    let ids: Vec<&str> = candidates
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    // A candidate whose color changes on a later day, so that it becomes an alert.
    let dataset = sim.server.dataset();
    let (chosen, day) = (2..=400)
        .find_map(|day| {
            ids.iter()
                .copied()
                .find(|id| {
                    let r = dataset.find_uuid(id.parse().unwrap()).unwrap();
                    dataset.rating(r, day).color != dataset.rating(r, 1).color
                })
                .map(|id| (id, day))
        })
        .expect("a candidate changes color within the year");
    let candidate = |id: &str| candidates.iter().find(|c| c["id"] == id).unwrap().clone();
    let name = candidate(chosen)["name"].as_str().unwrap().to_string();
    let city = candidate(chosen)["city"].as_str().unwrap().to_string();
    undescribe(&ws, &ids);

    // Accepting describes the company from the candidate picked, in the row's country.
    review(&ws, &["accept", "C-1006", chosen])
        .assert()
        .success();
    assert_eq!(
        described(&ws, chosen),
        (Some(name.clone()), Some("FR".into()), Some(city.clone()))
    );

    // A decision recorded without a description: the run describes the company from the
    // search's cached candidates.
    undescribe(&ws, &[chosen]);
    ws.screen(&sim, &sample()).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["company_id"], chosen);
    assert_eq!(rows["C-1006"]["company_name"], name.as_str());
    assert_eq!(rows["C-1006"]["country"], "FR");
    assert_eq!(described(&ws, chosen).1.as_deref(), Some("FR"));

    // Its color changes: the summary and the webhook name it, in its country (whatever
    // the change: improvements listed too).
    ws.write(
        "ratewatch.toml",
        b"[alerts]\nimproved = \"list\"\nchanged = \"list\"\n",
    );
    sim.server.set_day(day);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (hook, received) = runtime.block_on(crate::delivery::receiver(|_| Some(200)));
    let out = ws
        .screen(&sim, &sample())
        .args(["--notify-webhook", &format!("{hook}/hook")])
        .assert()
        .code(3);
    let summary = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with("C-1006"))
        .unwrap_or_else(|| panic!("C-1006 is an alert: {summary}"));
    let cells: Vec<&str> = line.split("  ").map(str::trim).collect();
    assert!(cells.contains(&name.as_str()), "{line}");
    assert!(cells.contains(&"FR"), "{line}");
    let document = received.lock().unwrap()[0].json();
    let alert = document["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["refs"]
                .as_str()
                .unwrap()
                .split(", ")
                .any(|r| r == "C-1006")
        })
        .unwrap_or_else(|| panic!("C-1006 is posted: {document:#}"))
        .clone();
    assert_eq!(alert["company_id"], chosen);
    assert_eq!(alert["company_name"], name.as_str());
    assert_eq!(alert["country"], "FR");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["company_name"], name.as_str());
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(
        html.contains(&html_escaped(&name)),
        "the HTML report names it"
    );

    // Another candidate, accepted through the exported CSV, is described the same way.
    review(&ws, &["revoke", "C-1006"]).assert().success();
    ws.screen(&sim, &sample()).assert().code(3);
    let other = *ids.iter().find(|id| **id != chosen).unwrap();
    undescribe(&ws, &[other]);
    let exported = ws.path("review.csv");
    review(&ws, &["export", "--out", exported.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&exported).unwrap();
    let filled: String = text
        .lines()
        .map(|l| {
            if l.contains(other) {
                format!("{l}accept\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&exported, filled).unwrap();
    review(&ws, &["import", exported.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("1 accepted"));
    let other_name = candidate(other)["name"].as_str().unwrap().to_string();
    assert_eq!(
        described(&ws, other),
        (
            Some(other_name.clone()),
            Some("FR".into()),
            Some(candidate(other)["city"].as_str().unwrap().to_string())
        )
    );
    ws.screen(&sim, &sample()).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["company_id"], other);
    assert_eq!(rows["C-1006"]["company_name"], other_name.as_str());
}

/// Text as the HTML report writes it (`&` escaped).
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
}

/// The lines of a summary that name rows as not screened.
fn not_screened(summary: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(summary)
        .lines()
        .filter(|l| l.starts_with("NOT SCREENED:"))
        .map(String::from)
        .collect()
}

/// The refs a summary lists under its `N invalid rows:` heading.
fn listed_invalid(summary: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(summary);
    let mut lines = text.lines().skip_while(|l| !l.ends_with("invalid rows:"));
    assert!(lines.next().is_some(), "no invalid rows listed:\n{text}");
    lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

fn rows_ignored(ws: &Workspace) -> i64 {
    rusqlite::Connection::open(ws.db())
        .unwrap()
        .query_row(
            "SELECT rows_ignored FROM runs WHERE status IN ('complete', 'partial')
             ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn an_ignored_invalid_row_is_left_alone_while_it_stays_as_it_was() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let first = ws.screen(&sim, &sample()).assert().code(3);
    assert!(
        listed_invalid(&first.get_output().stdout)
            .iter()
            .any(|l| l.contains("C-1021"))
    );
    assert_eq!(
        problem(&listed(&ws), "C-1021").unwrap()["status"],
        "invalid"
    );
    let dry_run = |ws: &Workspace| {
        let out = ws.screen(&sim, &sample()).arg("--dry-run").run();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(dry_run(&ws).contains(" 5 invalid,"), "{}", dry_run(&ws));

    review(&ws, &["ignore", "C-1021"])
        .assert()
        .success()
        .stdout(predicates::str::contains("C-1021: ignored"));
    let list = listed(&ws);
    assert!(problem(&list, "C-1021").is_none(), "decided: not listed");
    assert!(problem(&list, "C-1022").is_some(), "only that row");
    let decision = &list["decisions"][0];
    assert_eq!(decision["ref"], "C-1021");
    assert_eq!(decision["decision"], "ignore");
    assert!(
        decision["search_key"]
            .as_str()
            .unwrap()
            .starts_with("invalid|")
    );
    assert!(dry_run(&ws).contains(" 4 invalid,"), "{}", dry_run(&ws));

    // Applied by the next run: ignored, counted, named nowhere.
    let quiet = ws.screen(&sim, &sample()).arg("--quiet").assert().code(3);
    let quiet = not_screened(&quiet.get_output().stdout);
    assert!(!quiet.iter().any(|l| l.contains("C-1021")), "{quiet:?}");
    let report = ws.report();
    assert_eq!(report["run"]["by_status"]["ignored"], 1);
    assert_eq!(report["run"]["by_status"]["invalid"], 4);
    let rows = rows_by_ref(&report);
    assert_eq!(rows["C-1021"]["status"], "ignored");
    let error = rows["C-1021"]["error"].as_str().unwrap();
    assert!(error.starts_with("ignored by review (20"), "{error}");
    assert!(error.contains("country"), "the reason is kept: {error}");
    assert_eq!(rows_ignored(&ws), 1);
    let loud = ws.screen(&sim, &sample()).assert().code(3);
    let invalid = listed_invalid(&loud.get_output().stdout);
    assert_eq!(invalid.len(), 4, "{invalid:?}");
    assert!(!invalid.iter().any(|l| l.contains("C-1021")), "{invalid:?}");
    assert!(problem(&listed(&ws), "C-1021").is_none());

    // Revoked: invalid again, and named again as it comes back.
    review(&ws, &["revoke", "C-1021"]).assert().success();
    let quiet = ws.screen(&sim, &sample()).arg("--quiet").assert().code(3);
    let quiet = not_screened(&quiet.get_output().stdout);
    assert!(quiet.iter().any(|l| l.contains("C-1021")), "{quiet:?}");
    assert_eq!(rows_by_ref(&ws.report())["C-1021"]["status"], "invalid");
    assert_eq!(rows_ignored(&ws), 0);
    assert!(problem(&listed(&ws), "C-1021").is_some());

    // A row changed in the export is not the row decided on: wrong in another way, it
    // needs a person again; fixed, it is screened.
    review(&ws, &["ignore", "C-1021"]).assert().success();
    let text = std::fs::read_to_string(sample()).unwrap();
    let other = ws.write(
        "other.csv",
        text.replace("C-1021,XX,,,Acme,", "C-1021,XX,,,Acme Ltd,")
            .as_bytes(),
    );
    ws.screen(&sim, &other).assert().code(3);
    assert_eq!(rows_by_ref(&ws.report())["C-1021"]["status"], "invalid");
    let fixed = ws.write(
        "fixed.csv",
        text.replace("C-1021,XX,,,Acme,", "C-1021,FR,SIREN,734531544,,")
            .as_bytes(),
    );
    assert_ne!(text, std::fs::read_to_string(&fixed).unwrap());
    ws.screen(&sim, &fixed).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1021"]["status"], "rated", "{}", rows["C-1021"]);
}

/// The cells of a CSV the Excel dialect wrote (BOM, `;`), a record a line.
fn excel_cells(bytes: &[u8]) -> Vec<Vec<String>> {
    let text = std::str::from_utf8(bytes).unwrap();
    let text = text
        .strip_prefix('\u{feff}')
        .expect("a byte-order mark first");
    csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// Cells written back as a spreadsheet saves them: `;`, CRLF, a BOM first.
fn excel_file(cells: &[Vec<String>]) -> Vec<u8> {
    let mut out = "\u{feff}".as_bytes().to_vec();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b';')
        .terminator(csv::Terminator::CRLF)
        .from_writer(&mut out);
    for record in cells {
        writer.write_record(record).unwrap();
    }
    writer.flush().unwrap();
    drop(writer);
    out
}

#[test]
fn an_export_for_excel_comes_back_with_its_decisions_and_the_next_run_applies_them() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let csv = ws.path("review.csv");
    review(
        &ws,
        &[
            "export",
            "--csv-dialect",
            "excel",
            "--out",
            csv.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let bytes = std::fs::read(&csv).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(
        text.starts_with("\u{feff}portfolio;line;ref;status;"),
        "{text}"
    );
    assert_eq!(
        text.matches("\r\n").count(),
        text.matches('\n').count(),
        "CRLF line ends only: {text:?}"
    );
    assert!(
        text.lines().next().unwrap().ends_with(";decision"),
        "{text}"
    );
    // The refs as Excel keeps text, leading zeros and all.
    assert!(text.contains(";\"=\"\"C-1006\"\"\";"), "{text}");
    // The setting of the reports applies here too.
    let by_env = review(&ws, &["export"])
        .env("RATEWATCH_CSV_DIALECT", "excel")
        .assert()
        .success();
    assert_eq!(by_env.get_output().stdout, bytes);

    let mut cells = excel_cells(&bytes);
    let header = cells[0].clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}') == name)
            .unwrap()
    };
    let (reference, company, city, decision) =
        (at("ref"), at("company_id"), at("city"), at("decision"));
    assert_eq!(decision, header.len() - 1);
    let mut chosen = String::new();
    for record in &mut cells[1..] {
        match record[reference].as_str() {
            "=\"C-1006\"" if record[city] == "Bordeaux" => {
                chosen = record[company].clone();
                record[decision] = "accept".into();
            }
            "=\"C-1018\"" => record[decision] = "ignore".into(),
            _ => {}
        }
    }
    assert!(!chosen.is_empty(), "{cells:?}");

    // A wrong line is named by its line, CRLF or not.
    let mut wrong = cells.clone();
    wrong[3][decision] = "maybe".into();
    let wrong_csv = ws.write("wrong.csv", &excel_file(&wrong));
    review(&ws, &["import", wrong_csv.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "wrong.csv: line 4: decision \"maybe\"",
        ));

    // As written, the refs still formulas (a text editor, LibreOffice), …
    std::fs::write(&csv, excel_file(&cells)).unwrap();
    review(&ws, &["import", csv.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 accepted, 1 ignored, 0 with every candidate rejected",
        ));
    let decisions = listed(&ws)["decisions"].clone();
    let decided: Vec<(&str, &str)> = decisions
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["ref"].as_str().unwrap(), d["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(decided.len(), 2, "{decisions}");
    assert!(decided.contains(&("C-1006", "accept")) && decided.contains(&("C-1018", "ignore")));
    ws.screen(&sim, &sample()).assert().code(3);
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1006"]["company_id"], chosen.as_str());
    assert_eq!(rows["C-1018"]["status"], "ignored");

    // … or as Excel saves it: the values it shows.
    review(&ws, &["revoke", "C-1006"]).assert().success();
    review(&ws, &["revoke", "C-1018"]).assert().success();
    let saved: Vec<Vec<String>> = cells
        .iter()
        .map(|record| {
            record
                .iter()
                .map(
                    |c| match c.strip_prefix("=\"").and_then(|c| c.strip_suffix('"')) {
                        Some(value) => value.to_string(),
                        None => c.clone(),
                    },
                )
                .collect()
        })
        .collect();
    assert!(saved[1..].iter().any(|r| r[reference] == "C-1006"));
    std::fs::write(&csv, excel_file(&saved)).unwrap();
    review(&ws, &["import", csv.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 accepted, 1 ignored"));
    assert_eq!(listed(&ws)["decisions"].as_array().unwrap().len(), 2);
}

#[test]
fn import_reads_commas_semicolons_or_tabs_with_or_without_a_bom_and_windows_1252() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let files: [(&str, &[u8]); 5] = [
        ("comma.csv", b"ref,company_id,decision\nC-1018,,ignore\n"),
        (
            "semicolon-bom.csv",
            b"\xEF\xBB\xBFref;company_id;decision\r\nC-1018;;ignore\r\n",
        ),
        (
            "tab.csv",
            b"ref\tcompany_id\tdecision\r\nC-1018\t\tignore\r\n",
        ),
        // Excel's "CSV (separator: semicolon)": Windows-1252, `é` one byte.
        (
            "excel-1252.csv",
            b"ref;candidate;company_id;decision\r\nC-1018;Soci\xE9t\xE9 \x80;;ignore\r\n",
        ),
        (
            "quoted.csv",
            b"\"ref\";\"company_id\";\"decision\"\n\"C-1018\";\"\";\"Ignore\"\n",
        ),
    ];
    for (name, bytes) in files {
        let path = ws.write(name, bytes);
        let out = review(&ws, &["import", path.to_str().unwrap()])
            .assert()
            .success()
            .stdout(predicate::str::contains("0 accepted, 1 ignored"));
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        if name == "excel-1252.csv" {
            assert!(
                stderr.contains(&format!(
                    "{name}: not UTF-8 (byte 0xE9 on line 2): read as Windows-1252"
                )),
                "{stderr}"
            );
        } else {
            assert!(stderr.is_empty(), "{name}: {stderr}");
        }
        let list = listed(&ws);
        assert_eq!(list["decisions"][0]["ref"], "C-1018", "{name}");
        assert_eq!(list["decisions"][0]["decision"], "ignore", "{name}");
        review(&ws, &["revoke", "C-1018"]).assert().success();
    }
}

#[test]
fn a_file_import_cannot_read_names_the_file_the_line_and_the_delimiter_it_saw() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "pipes.csv",
            b"ref|company_id|decision\nC-1018||ignore\n",
            "pipes.csv: line 1: no `ref` column; the header line, split at each comma, has 1 column: \"ref|company_id|decision\"",
        ),
        (
            "no-decision.csv",
            b"\xEF\xBB\xBFref;company_id;status\r\nC-1018;;ignore\r\n",
            "no-decision.csv: line 1: no `decision` column; the header line, split at each semicolon, has 3 columns: \"ref;company_id;status\"",
        ),
        (
            "mixed.csv",
            b"ref;company_id;decision\r\nC-1006;;\r\nC-1018,,ignore\r\n",
            "mixed.csv: line 3: 1 field where the header line has 3 (split at each semicolon)",
        ),
        (
            "unicode.csv",
            b"\xFF\xFEr\0e\0f\0",
            "unicode.csv: line 1: UTF-16 text (Excel's \"Unicode Text\")",
        ),
        (
            "book.xlsx",
            b"PK\x03\x04\x14\0\x06\0",
            "book.xlsx: line 1: this is not a CSV text file (it contains NUL bytes)",
        ),
    ];
    for (name, bytes, message) in cases {
        let path = ws.write(name, bytes);
        review(&ws, &["import", path.to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    assert!(listed(&ws)["decisions"].as_array().unwrap().is_empty());
}
