//! `ratewatch ack`, `acks` and `alerts test` end to end on the sample: an acknowledged
//! company leaves the summary and stays in the reports, marked; a trial of other rules
//! changes nothing.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Background, Workspace, rows_by_ref, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// The simulator moved to `day`, the earlier runs a night back, then `screen`: stdout.
fn night(sim: &Background, ws: &Workspace, day: i64) -> String {
    sim.server.set_day(day);
    crate::common::a_night_passes(&ws.db());
    let out = ws.screen(sim, &sample()).run();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_acknowledged_company_leaves_the_summary_until_it_changes_and_stays_marked_in_the_reports() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.write("ratewatch.toml", b"[alerts]\nrepeat = \"daily\"\n");
    night(&sim, &ws, 1);
    let before = night(&sim, &ws, 2);
    let listed = |text: &str, reference: &str| {
        text.lines()
            .any(|l| l.starts_with("  ") && l.contains(reference) && l.contains("(still)"))
    };
    assert!(listed(&before, "C-1004"), "black, listed daily: {before}");

    let out = ws
        .ratewatch(["ack", "C-1004", "--note", "credit stopped"])
        .db(ws.db())
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("acknowledged at black"), "{said}");
    let acks: Value = serde_json::from_slice(
        &ws.ratewatch(["acks", "--json"])
            .db(ws.db())
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(acks[0]["ref"], "C-1004");
    assert_eq!(acks[0]["note"], "credit stopped");
    assert_eq!(acks[0]["color"], "black");

    let after = night(&sim, &ws, 3);
    assert!(!listed(&after, "C-1004"), "{after}");
    assert!(listed(&after, "C-1010"), "others still listed: {after}");
    assert!(after.contains("1 alert acknowledged"), "{after}");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1004"]["alert"], true);
    assert_eq!(rows["C-1004"]["acknowledged"], true);
    assert_eq!(rows["C-1004"]["alert_kind"], "still");
    assert_eq!(rows["C-1010"]["acknowledged"], false);

    // An acknowledgement that ended (its --until passed, on this machine's clock) no
    // longer applies.
    ws.ratewatch(["ack", "C-1004", "--until", "2026-01-01"])
        .db(ws.db())
        .assert()
        .success();
    let expired = night(&sim, &ws, 4);
    assert!(listed(&expired, "C-1004"), "{expired}");

    // `acks` lists what the run would leave out, no more: the one that ended only with
    // --all, marked expired.
    ws.ratewatch(["ack", "C-1010", "--until", "2999-01-01"])
        .db(ws.db())
        .assert()
        .success();
    let acks = |args: &[&str]| {
        let out = ws.ratewatch(args).db(ws.db()).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).to_string()
    };
    // Sorted: acknowledgements made in the same second have no order between them.
    let refs = |json: &str| -> Vec<(String, Option<String>, bool)> {
        let acks: Value = serde_json::from_str(json).unwrap();
        let mut refs: Vec<(String, Option<String>, bool)> = acks
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                if a["ended_how"] != "replaced" {
                    assert_eq!(a["until"].as_str().map(|u| u.len()), Some(20), "{a}");
                }
                (
                    a["ref"].as_str().unwrap().to_string(),
                    a["ended_how"].as_str().map(str::to_string),
                    a["expired"] == true,
                )
            })
            .collect();
        refs.sort();
        refs
    };
    assert_eq!(
        refs(&acks(&["acks", "--json"])),
        [("C-1010".to_string(), None, false)]
    );
    // Every acknowledgement is kept: the first of C-1004, replaced by the one with an
    // --until, which expired.
    let ended = |how: &str| Some(how.to_string());
    assert_eq!(
        refs(&acks(&["acks", "--all", "--json"])),
        [
            ("C-1004".to_string(), ended("expired"), true),
            ("C-1004".to_string(), ended("replaced"), false),
            ("C-1010".to_string(), None, false)
        ]
    );
    let table = acks(&["acks"]);
    assert!(
        table.contains("C-1010") && table.contains("2999-01-01T00:00:00Z"),
        "{table}"
    );
    assert!(
        !table.contains("C-1004") && !table.contains("STATUS"),
        "{table}"
    );
    let all = acks(&["acks", "--all"]);
    let line = |reference: &str| {
        all.lines()
            .find(|l| l.contains(reference))
            .unwrap_or_else(|| panic!("{reference} listed: {all}"))
            .to_string()
    };
    assert!(
        all.lines().next().unwrap().trim_end().ends_with("STATUS"),
        "{all}"
    );
    // Newest first: the one that expired, then the one it replaced.
    assert!(line("C-1004").trim_end().ends_with("expired"), "{all}");
    assert!(
        all.lines().any(|l| l.contains("C-1004")
            && l.contains("credit stopped")
            && l.contains("replaced by")),
        "{all}"
    );
    assert!(line("C-1004").contains("2026-01-01T00:00:00Z"), "{all}");
    assert!(line("C-1010").trim_end().ends_with("in force"), "{all}");
    let csv = acks(&["acks", "--all", "--csv"]);
    assert!(
        csv.starts_with("company_id,company_name,ref,color,acked_at,until,note,expired,acked_by,ended_at,ended_how"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.contains("C-1004") && l.contains(",true,") && l.contains(",expired,")),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.contains("C-1010") && l.contains(",2999-01-01T00:00:00Z,,false,")),
        "{csv}"
    );
    assert!(!acks(&["acks", "--csv"]).contains("C-1004"));
}

#[test]
fn acknowledging_names_what_it_cannot_find_and_refuses_a_bad_date() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    ws.ratewatch(["ack", "no such company anywhere"])
        .db(ws.db())
        .assert()
        .code(1)
        .stdout(predicates::str::contains("No company matches"));
    ws.ratewatch(["ack", "C-1004", "--until", "next week"])
        .db(ws.db())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--until"));
    let empty = ws.ratewatch(["acks"]).db(ws.db()).assert().success();
    assert_eq!(
        String::from_utf8_lossy(&empty.get_output().stdout),
        "No acknowledgement in force.\n"
    );
}

#[test]
fn alerts_test_tries_other_rules_on_the_latest_run_and_changes_nothing() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    night(&sim, &ws, 2);
    let db_before = std::fs::read(ws.db()).unwrap();
    // Night 2 listed changes only (the companies still red or black were listed on night 1).
    let default = ws
        .ratewatch(["alerts", "test"])
        .db(ws.db())
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&default.get_output().stdout).to_string();
    assert!(
        text.starts_with("the default rules (no ratewatch.toml), on run 2"),
        "{text}"
    );
    // Improvements are counted, not listed, by default.
    assert!(
        text.contains("would be listed: 2 alerts, worst first"),
        "{text}"
    );
    assert!(
        text.contains("counted, not listed: 1 changed to or from white, 3 improved"),
        "{text}"
    );
    assert!(text.contains("The run itself listed 2 alerts"), "{text}");

    ws.write(
        "quiet.toml",
        b"[alerts]\nimproved = false\nchanged = false\ndeteriorated = false\ninto_red = false\nrepeat = \"never\"\n",
    );
    let quiet = ws
        .ratewatch(["--config", "quiet.toml", "alerts", "test"])
        .db(ws.db())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&quiet.get_output().stdout).to_string();
    assert!(text.contains("nothing would be listed"), "{text}");
    assert!(
        text.contains("still black: 2 companies")
            && text.contains("still red: 2 companies")
            && text.contains("(in one line; repeat = \"never\")"),
        "{text}"
    );

    ws.write("typo.toml", b"[alerts]\nrepeats = \"never\"\n");
    ws.ratewatch(["--config", "typo.toml", "alerts", "test"])
        .db(ws.db())
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "typo.toml:2: [alerts]: unknown rule `repeats`",
        ));
    assert_eq!(
        std::fs::read(ws.db()).unwrap(),
        db_before,
        "nothing written"
    );
}
