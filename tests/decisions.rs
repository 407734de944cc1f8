//! Decisions kept as records, with who made them, end to end on the sample: an
//! acknowledgement that ends when its company changes color is still listed by `acks --all`
//! and on the company page with its note, who made it and how it ended; review decisions
//! likewise once revoked; `--by` and the operating-system user recorded; `audit` in a
//! table, CSV and JSON; `serve --users` naming each person signed in; several rows of the
//! inbox acknowledged in one POST, a standing red or black among them moving at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use axum::http::StatusCode;
use serde_json::Value;

use crate::common::{Background, Workspace, rows_by_ref, sample_sim};
use crate::serve::Pages;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// The simulator moved to `day`, the earlier runs a night back, then `screen`.
fn night(sim: &Background, ws: &Workspace, day: i64) {
    sim.server.set_day(day);
    crate::common::a_night_passes(&ws.db());
    let out = ws.screen(sim, &sample()).run();
    assert!(matches!(out.status.code(), Some(1 | 3)), "{out:?}");
}

/// `ratewatch ARGS… --db DB` in the workspace, run as the operating-system user `user` (as
/// a login sets it) when one is given: its exit code and stdout.
fn ratewatch_as(ws: &Workspace, user: Option<&str>, args: &[&str]) -> (i32, String) {
    let mut command = ws.ratewatch(args);
    command.db(ws.db());
    if let Some(user) = user {
        command.env("LOGNAME", user).env("USER", user);
    }
    let out = command.run();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn json_as(ws: &Workspace, user: Option<&str>, args: &[&str]) -> Value {
    let (code, out) = ratewatch_as(ws, user, args);
    assert_eq!(code, 0, "{args:?}: {out}");
    serde_json::from_str(&out).unwrap()
}

/// The entries of `acks --all --json` of one company.
fn acks_of(ws: &Workspace, company: &str) -> Vec<Value> {
    json_as(ws, None, &["acks", "--all", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["company_id"] == company)
        .cloned()
        .collect()
}

#[test]
fn an_acknowledgement_ended_by_a_color_change_is_kept_with_its_note_who_and_how_it_ended() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    // Every red and black company of the night, acknowledged in one command, as the
    // operating-system user marie; one more by a name given with --by.
    let rows = rows_by_ref(&ws.report());
    let mut acked: Vec<(String, String, String)> = rows
        .iter()
        .filter(|(_, r)| r["color"] == "red" || r["color"] == "black")
        .map(|(reference, r)| {
            (
                reference.clone(),
                r["company_id"].as_str().unwrap().to_string(),
                r["color"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    acked.sort();
    acked.dedup_by(|a, b| a.1 == b.1);
    assert!(acked.len() >= 3, "{acked:?}");
    let (by_paul, by_marie) = acked.split_first().unwrap();
    let note = "Paiement comptant exigé – validé DAF";
    let mut args = vec!["ack", "--note", note];
    args.extend(by_marie.iter().map(|(r, _, _)| r.as_str()));
    let (code, said) = ratewatch_as(&ws, Some("marie"), &args);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        said.lines()
            .filter(|l| l.contains("acknowledged at"))
            .count(),
        by_marie.len(),
        "one line per company: {said}"
    );
    let (code, said) = ratewatch_as(
        &ws,
        Some("marie"),
        &["ack", &by_paul.0, "--by", "Paul Martin", "--note", "known"],
    );
    assert_eq!(code, 0, "{said}");

    // A name that matches nothing records none of the others.
    let (code, said) = ratewatch_as(&ws, None, &["ack", &by_paul.0, "no such company"]);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("nothing was recorded"), "{said}");
    assert_eq!(
        acks_of(&ws, &by_paul.1).len(),
        1,
        "no second acknowledgement"
    );

    // Nights pass until one of marie's companies is seen at another color.
    let mut changed = None;
    for day in 2..=20 {
        night(&sim, &ws, day);
        let rows = rows_by_ref(&ws.report());
        changed = by_marie
            .iter()
            .find(|(reference, _, color)| rows[reference]["color"] != color.as_str())
            .cloned();
        if changed.is_some() {
            break;
        }
    }
    let (reference, company, color) = changed.expect("a company acknowledged changed color");
    let run_id = json_as(&ws, None, &["runs", "--json"])["runs"][0]["id"].clone();

    let in_force = json_as(&ws, None, &["acks", "--json"]);
    assert!(
        !in_force.to_string().contains(&company),
        "no longer in force: {in_force}"
    );
    let kept = acks_of(&ws, &company);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let ack = &kept[0];
    assert_eq!(ack["note"], note);
    assert_eq!(ack["acked_by"], "marie", "the operating-system user");
    assert_eq!(ack["color"], color.as_str());
    assert_eq!(ack["ended_how"], "color changed");
    assert_eq!(ack["ended_run_id"], run_id);
    assert_eq!(ack["expired"], false);
    let ended_at = ack["ended_at"].as_str().unwrap();
    assert!(
        ended_at.len() == 20 && ended_at.ends_with('Z'),
        "{ended_at}"
    );
    let paul = &acks_of(&ws, &by_paul.1)[0];
    assert_eq!(paul["acked_by"], "Paul Martin", "--by");

    let (_, table) = ratewatch_as(&ws, None, &["acks", "--all"]);
    let line = table
        .lines()
        .find(|l| l.contains(&company))
        .unwrap_or_else(|| panic!("{company} listed: {table}"));
    assert!(
        line.contains("marie") && line.contains(&format!("color changed (run {run_id})")),
        "{table}"
    );

    // The company page says the same.
    let page = Pages::of(&ws).get(&format!("/company/{company}")).body;
    let acks = &page[page
        .find("<table class=\"acks\">")
        .expect("its acknowledgements")..];
    let acks = &acks[..acks.find("</table>").unwrap()];
    assert!(
        acks.contains(note) && acks.contains("marie") && acks.contains("color changed"),
        "{acks}"
    );
    assert!(
        !acks.contains("action=\"/unack\""),
        "nothing to withdraw: {acks}"
    );
    assert!(reference.starts_with("C-"));
}

#[test]
fn an_acknowledgement_withdrawn_is_kept_with_who_withdrew_it_and_why() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    let (code, _) = ratewatch_as(&ws, Some("marie"), &["ack", "C-1004", "--note", "stopped"]);
    assert_eq!(code, 0);
    let (code, said) = ratewatch_as(
        &ws,
        None,
        &[
            "unack",
            "C-1004",
            "--by",
            "paul",
            "--note",
            "guarantee expired",
        ],
    );
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("acknowledgement withdrawn"), "{said}");
    assert_eq!(
        json_as(&ws, None, &["acks", "--json"]),
        serde_json::json!([])
    );
    let all = json_as(&ws, None, &["acks", "--all", "--json"]);
    assert_eq!(all[0]["ref"], "C-1004");
    assert_eq!(all[0]["acked_by"], "marie");
    assert_eq!(all[0]["ended_how"], "withdrawn");
    assert_eq!(all[0]["ended_by"], "paul");
    assert_eq!(all[0]["ended_note"], "guarantee expired");
    // Nothing left to withdraw: said, and exit 1.
    let (code, said) = ratewatch_as(&ws, None, &["unack", "C-1004"]);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("no acknowledgement in force"), "{said}");
}

#[test]
fn review_decisions_revoked_are_kept_with_who_made_and_revoked_them() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    let list = json_as(&ws, None, &["review", "list", "--json"]);
    let c1006 = list["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == "C-1006")
        .expect("C-1006 needs a person");
    let candidate = c1006["candidates"][0]["id"].as_str().unwrap().to_string();
    let (code, said) = ratewatch_as(
        &ws,
        Some("marie"),
        &[
            "review",
            "accept",
            "C-1006",
            &candidate,
            "--by",
            "Paul Martin",
            "--note",
            "same SIREN on the invoice",
        ],
    );
    assert_eq!(code, 0, "{said}");
    let (code, said) = ratewatch_as(
        &ws,
        Some("marie"),
        &["review", "ignore", "C-1018", "--note", "customer abroad"],
    );
    assert_eq!(code, 0, "{said}");
    let (code, said) = ratewatch_as(
        &ws,
        Some("marie"),
        &["review", "revoke", "C-1006", "--note", "wrong company"],
    );
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("revoked"), "{said}");

    // In force: the ignore alone, by the operating-system user, with its note.
    let decisions = json_as(&ws, None, &["review", "list", "--json"])["decisions"].clone();
    assert_eq!(decisions.as_array().unwrap().len(), 1, "{decisions}");
    assert_eq!(decisions[0]["ref"], "C-1018");
    assert_eq!(decisions[0]["decided_by"], "marie");
    assert_eq!(decisions[0]["note"], "customer abroad");
    let (_, table) = ratewatch_as(&ws, None, &["review", "list"]);
    assert!(
        table.contains("BY") && table.contains("customer abroad"),
        "{table}"
    );

    // The revoked acceptance stays on the page of the company it accepted.
    let page = Pages::of(&ws).get(&format!("/company/{candidate}")).body;
    let decisions = &page[page
        .find("<table class=\"decisions\">")
        .expect("its decisions")..];
    let decisions = &decisions[..decisions.find("</table>").unwrap()];
    assert!(
        decisions.contains("C-1006")
            && decisions.contains("Paul Martin")
            && decisions.contains("same SIREN on the invoice")
            && decisions.contains("revoked by marie: wrong company"),
        "{decisions}"
    );

    // And in the audit, in the order it happened.
    let audit = json_as(&ws, None, &["audit", "--json"]);
    let events: Vec<(String, String, String, String)> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["record"] == "decision")
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (text("ref"), text("event"), text("who"), text("note"))
        })
        .collect();
    let event = |r: &str, e: &str, w: &str, n: &str| {
        (r.to_string(), e.to_string(), w.to_string(), n.to_string())
    };
    assert_eq!(
        events,
        [
            event("C-1006", "made", "Paul Martin", "same SIREN on the invoice"),
            event("C-1018", "made", "marie", "customer abroad"),
            event("C-1006", "ended", "marie", "wrong company"),
        ]
    );
}

#[test]
fn audit_lists_every_event_since_a_date_in_a_table_csv_and_json() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    // One acknowledgement in force, one that ended when it was made (its --until passed).
    let (code, _) = ratewatch_as(&ws, Some("marie"), &["ack", "C-1004", "--note", "stopped"]);
    assert_eq!(code, 0);
    let (code, _) = ratewatch_as(
        &ws,
        Some("marie"),
        &["ack", "C-1010", "--until", "2026-01-01"],
    );
    assert_eq!(code, 0);
    let (code, _) = ratewatch_as(&ws, Some("paul"), &["review", "ignore", "C-1018"]);
    assert_eq!(code, 0);

    let audit = json_as(&ws, None, &["audit", "--json"]);
    let events = audit.as_array().unwrap();
    assert_eq!(events.len(), 4, "{audit}");
    let keys: Vec<&String> = events[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "at",
            "record",
            "id",
            "event",
            "who",
            "company_id",
            "company_name",
            "ref",
            "color",
            "until",
            "decision",
            "source",
            "note",
            "how",
            "run_id"
        ]
    );
    // Oldest first: the end of the one whose until passed long ago comes first.
    assert_eq!(events[0]["event"], "ended");
    assert_eq!(events[0]["how"], "expired");
    assert_eq!(events[0]["at"], "2026-01-01T00:00:00Z");
    assert_eq!(events[0]["who"], Value::Null, "time ended it");
    for e in events {
        let at = e["at"].as_str().unwrap();
        assert!(
            at.len() == 20 && at.as_bytes()[10] == b'T' && at.ends_with('Z'),
            "UTC ISO 8601: {at}"
        );
    }

    // --since today leaves the old end out; --until yesterday leaves everything out.
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let since = json_as(&ws, None, &["audit", "--since", &today, "--json"]);
    assert_eq!(since.as_array().unwrap().len(), 3, "{since}");
    assert!(
        since
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["event"] == "made")
    );
    let (code, none) = ratewatch_as(&ws, None, &["audit", "--since", "2999-01-01"]);
    assert_eq!(code, 0);
    assert_eq!(none, "No acknowledgement or decision in that time.\n");
    let (code, bad) = ratewatch_as(&ws, None, &["audit", "--since", "last week"]);
    assert_eq!(code, 2, "{bad}");

    let (code, csv) = ratewatch_as(&ws, None, &["audit", "--since", &today, "--csv"]);
    assert_eq!(code, 0);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "at,record,id,event,who,company_id,company_name,ref,color,until,decision,source,note,how,run_id"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(
        rows.iter().any(|l| l.contains(",acknowledgement,")
            && l.contains(",marie,")
            && l.contains(",C-1004,")
            && l.contains(",stopped,")),
        "{csv}"
    );
    assert!(
        rows.iter().any(|l| l.contains(",decision,")
            && l.contains(",paul,")
            && l.contains(",ignore,command line,")),
        "{csv}"
    );

    // A table for a person, in this machine's time zone.
    let out = ws
        .ratewatch(["audit"])
        .db(ws.db())
        .env("TZ", "UTC")
        .assert()
        .success();
    let table = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(table.starts_with("WHEN"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("2026-01-01 00:00 UTC") && l.contains("ack ended: expired")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.contains("acknowledged") && l.contains("marie") && l.contains("stopped")),
        "{table}"
    );
}

const FORM: &str = "application/x-www-form-urlencoded";

/// A form's body.
fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The line of a users file for `name` with `token`, as `serve --hash-token` prints it.
fn users_line(ws: &Workspace, name: &str, token: &str) -> String {
    let mut command = ws.ratewatch(["serve", "--hash-token", name]);
    let mut child = command
        .process()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{token}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(!line.contains(token), "the token is never printed: {line}");
    assert!(line.starts_with(&format!("{name}:")), "{line}");
    line
}

#[test]
fn serve_with_users_signs_in_two_people_and_records_each_one_s_acknowledgements() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    let (marie, paul) = (
        "marie-s-token-of-thirty-two-chars-at-least",
        "paul-s-token-of-thirty-two-characters-or-more",
    );
    let file = ws.write(
        "users.txt",
        format!(
            "# the credit team\n{}{}",
            users_line(&ws, "marie", marie),
            users_line(&ws, "Paul Martin", paul)
        )
        .as_bytes(),
    );
    // A wrong line is refused at start, naming the file, the line and the field.
    let bad = ws.write("bad-users.txt", b"marie:abc\n");
    let out = ws
        .ratewatch(["serve", "--bind", "127.0.0.1:0", "--users"])
        .arg(&bad)
        .db(ws.db())
        .run();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("bad-users.txt: line 1: SHA-256"), "{said}");

    let server = ws
        .ratewatch(["serve", "--bind", "127.0.0.1:0", "--users"])
        .arg(&file)
        .db(ws.db())
        .serve();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let url = server.url.clone();
    // Signs in with `token`: the session cookie, and the page it is sent to.
    let sign_in = |token: &str| -> (String, String) {
        runtime.block_on(async {
            let answer = client
                .post(format!("{url}/login"))
                .header("origin", &url)
                .header("content-type", FORM)
                .body(form(&[("token", token)]))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), StatusCode::SEE_OTHER);
            let cookie = answer.headers()["set-cookie"].to_str().unwrap();
            let cookie = cookie.split(';').next().unwrap().to_string();
            let location = answer.headers()["location"].to_str().unwrap().to_string();
            let page = client
                .get(format!("{url}{location}"))
                .header("cookie", &cookie)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            (cookie, page)
        })
    };
    let wrong = runtime.block_on(async {
        client
            .post(format!("{url}/login"))
            .header("origin", &url)
            .header("content-type", FORM)
            .body(form(&[("token", "not-anyone-s-token-at-all-not-at-all")]))
            .send()
            .await
            .unwrap()
            .status()
    });
    assert_eq!(wrong, StatusCode::UNAUTHORIZED);
    let (marie_s, page) = sign_in(marie);
    assert!(page.contains("Signed in as marie."), "named at once");
    assert!(
        page.contains("Signed in as <strong>marie</strong>"),
        "and on the page"
    );
    let (paul_s, page) = sign_in(paul);
    assert!(page.contains("Signed in as <strong>Paul Martin</strong>"));
    assert!(
        !page.contains(paul) && !page.contains(marie),
        "no token shown"
    );

    let csrf = {
        let at = page.find("name=\"csrf\" value=\"").unwrap() + "name=\"csrf\" value=\"".len();
        page[at..at + page[at..].find('"').unwrap()].to_string()
    };
    let rows = rows_by_ref(&ws.report());
    let company = |reference: &str| rows[reference]["company_id"].as_str().unwrap().to_string();
    let ack = |cookie: &str, company: &str| {
        runtime.block_on(async {
            let answer = client
                .post(format!("{url}/ack"))
                .header("origin", &url)
                .header("cookie", cookie)
                .header("content-type", FORM)
                .body(form(&[
                    ("csrf", csrf.as_str()),
                    ("company", company),
                    ("note", "seen"),
                    ("back", "/"),
                ]))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), StatusCode::SEE_OTHER);
            let location = answer.headers()["location"].to_str().unwrap().to_string();
            assert!(location.starts_with("/?said="), "{location}");
        })
    };
    let (c1004, c1010) = (company("C-1004"), company("C-1010"));
    ack(&marie_s, &c1004);
    ack(&paul_s, &c1010);
    drop(server);

    assert_eq!(acks_of(&ws, &c1004)[0]["acked_by"], "marie");
    assert_eq!(acks_of(&ws, &c1010)[0]["acked_by"], "Paul Martin");
}

#[test]
fn the_inbox_acknowledges_the_rows_ticked_in_one_post_and_a_standing_black_moves_at_once() {
    let sim = sample_sim();
    let ws = Workspace::new();
    night(&sim, &ws, 1);
    // The second night lists the changes; the companies still red or black stand apart.
    night(&sim, &ws, 2);
    let server = Pages::of(&ws);
    let inbox = server.get("/").body;
    let standing_table = |page: &str| -> String {
        let at = page
            .find("<table class=\"alerts standing\">")
            .unwrap_or(page.len());
        page[at..].split("</table>").next().unwrap().to_string()
    };
    let standing = standing_table(&inbox);
    let companies: Vec<String> = standing
        .split("data-company=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect();
    assert!(companies.len() >= 2, "standing red and black: {standing}");
    let black = rows_by_ref(&ws.report())["C-1004"]["company_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        companies.contains(&black),
        "C-1004 stands black: {standing}"
    );
    assert!(
        inbox.contains(&format!(
            "type=\"checkbox\" name=\"company\" value=\"{black}\" form=\"ack-1\""
        )),
        "a box to tick on its row"
    );
    let heading = |page: &str, what: &str| -> u64 {
        let at = page.find(&format!("<h3>{what} (")).unwrap() + what.len() + 6;
        page[at..at + page[at..].find(')').unwrap()]
            .parse()
            .unwrap()
    };
    let standing_before = heading(&inbox, "Standing red and black");

    let other = companies.iter().find(|c| **c != black).unwrap().clone();
    let csrf = server.csrf();
    let done = server.post(
        "/ack",
        &[
            ("csrf", csrf.as_str()),
            ("back", "/"),
            ("note", "cash on delivery"),
            ("until", ""),
            ("company", black.as_str()),
            ("company", other.as_str()),
        ],
        &[],
    );
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let location = done.headers["location"].to_str().unwrap().to_string();
    assert!(location.starts_with("/?said="), "{location}");
    let page = server.get(&location).body;
    assert!(page.contains("2 companies acknowledged"), "{page}");

    // Both moved to Acknowledged at once, out of the standing ones.
    let standing = standing_table(&page);
    assert!(
        !standing.contains(&black) && !standing.contains(&other),
        "{standing}"
    );
    assert_eq!(
        heading(&page, "Standing red and black"),
        standing_before - 2
    );
    let acked = &page[page.find("<table class=\"alerts acked\">").unwrap()..];
    let acked = acked.split("</table>").next().unwrap();
    for company in [&black, &other] {
        let row = &acked[acked.find(&format!("data-company=\"{company}\"")).unwrap()..];
        let row = row.split("</tr>").next().unwrap();
        assert!(
            row.contains("cash on delivery") && row.contains("web page"),
            "{row}"
        );
    }
    let acks = json_as(&ws, None, &["acks", "--json"]);
    assert_eq!(acks.as_array().unwrap().len(), 2, "{acks}");
    assert!(
        acks.as_array()
            .unwrap()
            .iter()
            .all(|a| a["note"] == "cash on delivery" && a["acked_by"] == "web page"),
        "{acks}"
    );

    // Nothing ticked: said, nothing recorded.
    let none = server.post("/ack", &[("csrf", csrf.as_str()), ("back", "/")], &[]);
    let location = none.headers["location"].to_str().unwrap();
    assert!(location.starts_with("/?error="), "{location}");
    assert_eq!(json_as(&ws, None, &["acks", "--json"]), acks);

    // Withdrawn from the company page: kept, with why; the company stands again.
    let page = server.get(&format!("/company/{black}")).body;
    assert!(page.contains("action=\"/unack\""), "a form to withdraw it");
    let back = format!("/company/{black}");
    let done = server.post(
        "/unack",
        &[
            ("csrf", csrf.as_str()),
            ("company", black.as_str()),
            ("note", "paid in full"),
            ("back", back.as_str()),
        ],
        &[],
    );
    let location = done.headers["location"].to_str().unwrap().to_string();
    assert!(location.starts_with(&format!("{back}?said=")), "{location}");
    let kept = acks_of(&ws, &black);
    assert_eq!(kept[0]["ended_how"], "withdrawn");
    assert_eq!(kept[0]["ended_by"], "web page");
    assert_eq!(kept[0]["ended_note"], "paid in full");
    let inbox = server.get("/").body;
    assert!(standing_table(&inbox).contains(&black), "standing again");
}
