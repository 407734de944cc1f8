//! Other ratewatch commands beside a screening in progress: every one waits its turn for
//! the database (or, for `sync-history`, for the run's lock), none of them breaks the
//! run, and what they decide is kept.

use std::path::Path;
use std::process::Stdio;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::after_heading;
use crate::common::{KEY, Workspace, isolated};

fn ratewatch(ws: &Workspace, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ratewatch"));
    isolated(&mut cmd);
    cmd.current_dir(ws.dir.path())
        .env("RATEWATCH_API_KEY", KEY)
        .args(args)
        .arg("--db")
        .arg(ws.db());
    Command::from_std(cmd).output().unwrap()
}

#[test]
fn ack_review_and_sync_history_in_a_loop_never_break_a_screening() {
    let (sim, ws, file) = crate::common::a_slow_night();
    let base = sim.server.base_url();

    sim.server.set_day(5);
    let mut run = ws
        .screen_process(&sim, &file)
        .args(["--concurrency", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut acked, mut rounds) = (Vec::new(), 0);
    while run.try_wait().unwrap().is_none() && rounds < 200 {
        rounds += 1;
        let reference = format!("R{:07}", 1 + (rounds * 7) % 240);
        let ack = ratewatch(&ws, &["ack", &reference, "--note", "beside a run"]);
        // A row that is not rated has no company to acknowledge (exit 1, said so).
        assert!(matches!(ack.status.code(), Some(0 | 1)), "ack: {ack:?}");
        if ack.status.success() {
            acked.push(reference);
        }
        let review = ratewatch(&ws, &["review"]);
        assert!(
            matches!(review.status.code(), Some(0 | 1)),
            "review: {review:?}"
        );
        if rounds % 4 == 0 {
            // A sync takes the run's lock: it is refused while a run holds it, saying so,
            // and never touches the run.
            let sync = ratewatch(&ws, &["sync-history", "--base-url", &base]);
            let refused = sync.status.code() == Some(2)
                && String::from_utf8_lossy(&sync.stderr).contains("in use by another run");
            assert!(sync.status.success() || refused, "sync-history: {sync:?}");
        }
    }
    let out = run.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "the screening ran to its end beside {rounds} rounds: {stdout}\n{stderr}"
    );
    assert!(rounds >= 2, "the run was too short to meet the others");
    assert!(
        !acked.is_empty(),
        "some acknowledgement was made during the run"
    );
    assert!(
        after_heading(&stdout).starts_with("ratewatch run 2 of p"),
        "{stdout}"
    );

    let acks: Value = serde_json::from_slice(&ratewatch(&ws, &["acks", "--json"]).stdout).unwrap();
    let kept: Vec<&str> = acks
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["ref"].as_str())
        .collect();
    for reference in &acked {
        assert!(
            kept.contains(&reference.as_str()),
            "{reference} kept: {acks}"
        );
    }
    assert_eq!(integrity(&ws.db()), "ok");
}

fn integrity(db: &Path) -> String {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}
