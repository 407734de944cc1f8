//! One count of alerts, night after night: the companies listed tonight by the rules (the
//! summary's list, `run.alerts`, the rows with `alert_listed`, report.html's heading and
//! its listed table, the metrics file's `ratewatch_alerts`, the webhook's alerts), and the
//! standing ones (still red or black, not listed, not acknowledged), counted apart and
//! never in the listed count.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::common::{Background, Workspace, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

type Bodies = Arc<Mutex<Vec<Vec<u8>>>>;

/// A webhook receiver on a random loopback port, answering 204 to every POST: its URL and
/// the bodies it got, in order.
fn receiver() -> (String, Bodies) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let bodies: Bodies = Arc::default();
    let record = bodies.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let head_end = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            };
            let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < head_end + length {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            record
                .lock()
                .unwrap()
                .push(buf[head_end..head_end + length].to_vec());
            let _ = stream.write_all(
                b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (url, bodies)
}

/// What the summary says of the night's alerts.
#[derive(Debug, Default)]
struct Said {
    /// `N alerts, worst first`.
    count: u64,
    /// The refs of each line of its list: one line per company.
    lines: Vec<BTreeSet<String>>,
    /// `still red: N companies, …` and `still black: N companies, …` together.
    standing: u64,
    /// `N alerts acknowledged`.
    acked: u64,
    /// `counted, not listed: N changed to or from white, M improved`: N + M.
    counted: u64,
}

/// The number opening a line that ends as `rest` does: `6 alerts, worst first:`.
fn leading(line: &str) -> u64 {
    line.split_whitespace().next().unwrap().parse().unwrap()
}

fn said(summary: &str) -> Said {
    let mut said = Said::default();
    let mut in_list = false;
    for line in summary.lines() {
        if in_list && line.starts_with("  ") {
            let cells = line.trim_start();
            if cells.starts_with("REF ") || cells.starts_with('…') {
                continue;
            }
            let refs = cells.split("  ").next().unwrap();
            said.lines
                .push(refs.split(", ").map(str::to_string).collect());
            continue;
        }
        in_list = false;
        if line.contains(" worst first") && line.ends_with(':') {
            said.count = leading(line);
            in_list = true;
        } else if let Some(rest) = line
            .strip_prefix("still red: ")
            .or(line.strip_prefix("still black: "))
        {
            said.standing += leading(rest);
        } else if let Some(parts) = line.strip_prefix("counted, not listed: ") {
            said.counted = parts.split(", ").map(leading).sum();
        } else if line.contains(" acknowledged, not listed until") {
            said.acked = leading(line);
        }
    }
    said
}

/// The refs of a table of report.html's alerts (by its class), and its companies.
fn html_table(html: &str, class: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let start = format!("<table class=\"alerts {class} sortable\">");
    let Some(from) = html.find(&start) else {
        return Default::default();
    };
    let table = &html[from..from + html[from..].find("</table>").unwrap()];
    let cell = |label: &str| -> BTreeSet<String> {
        table
            .split(label)
            .skip(1)
            .map(|s| s[..s.find('<').unwrap()].to_string())
            .collect()
    };
    (cell("class=\"ref\">"), cell("<td data-label=\"Company\">"))
}

/// The number in `<span class="count">N</span>` after `label` in report.html, 0 when the
/// page has no such part.
fn html_count(html: &str, label: &str) -> u64 {
    let Some(at) = html.find(label) else {
        return 0;
    };
    let rest = &html[at + label.len()..];
    let rest = &rest[rest.find("<span class=\"count\">").unwrap() + 20..];
    rest[..rest.find('<').unwrap()].parse().unwrap()
}

fn metric_alerts(text: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with("ratewatch_alerts{"))
        .unwrap();
    line.rsplit_once(' ').unwrap().1.parse().unwrap()
}

fn ack(ws: &Workspace, reference: &str) {
    ws.ratewatch(["ack", reference])
        .db(ws.db())
        .assert()
        .success();
}

/// One night of the sample: every output's count of listed and of standing alerts agree.
/// Returns (listed, standing, acknowledged, alert rows).
fn night(sim: &Background, ws: &Workspace, day: i64, hook: &(String, Bodies)) -> [u64; 4] {
    sim.server.set_day(day);
    crate::common::a_night_passes(&ws.db());
    let metrics = ws.path("ratewatch.prom");
    let out = ws
        .screen(sim, &sample())
        .args(["--metrics-file", metrics.to_str().unwrap()])
        .args(["--notify-webhook", &hook.0])
        .run();
    let summary = String::from_utf8(out.stdout).unwrap();
    let said = said(&summary);
    let report = ws.report();
    let rows = report["rows"].as_array().unwrap();
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    let prom = std::fs::read_to_string(&metrics).unwrap();
    let posted: Value = serde_json::from_slice(hook.1.lock().unwrap().last().unwrap()).unwrap();
    let context = format!("day {day}:\n{summary}");

    // The listed alerts: companies, one each.
    let mut listed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut standing: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut acked: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut counted: BTreeSet<String> = BTreeSet::new();
    for row in rows {
        let company = row["company_id"].as_str().unwrap_or_default().to_string();
        let reference = row["ref"].as_str().unwrap().to_string();
        if row["alert_listed"] == true {
            assert_eq!(row["alert"], true, "{row}");
            listed.entry(company).or_default().insert(reference);
        } else if row["acknowledged"] == true {
            acked.entry(company).or_default().insert(reference);
        } else if row["alert_kind"] == "still" {
            standing.entry(company).or_default().insert(reference);
        } else if row["alert_kind"] == "improved" || row["alert_kind"] == "changed" {
            // Counted by the default rules, not listed.
            assert_eq!(row["alert"], true, "{row}");
            counted.insert(company);
        } else {
            assert_eq!(
                row["alert"], false,
                "an alert is listed, standing or acked: {row}"
            );
        }
    }
    let n = listed.len() as u64;
    assert_eq!(said.count, n, "the summary's count, {context}");
    assert_eq!(said.lines.len() as u64, n, "a line per company, {context}");
    let mut by_line: Vec<BTreeSet<String>> = said.lines.clone();
    by_line.sort();
    let mut by_company: Vec<BTreeSet<String>> = listed.values().cloned().collect();
    by_company.sort();
    assert_eq!(by_line, by_company, "the same companies, {context}");
    assert_eq!(
        report["run"]["alerts"], n,
        "report.json's run.alerts, {context}"
    );
    assert_eq!(
        html_count(&html, "<h2>Alerts "),
        n,
        "report.html's heading, {context}"
    );
    let (refs, companies) = html_table(&html, "listed");
    let all = |groups: &BTreeMap<String, BTreeSet<String>>| -> BTreeSet<String> {
        groups.values().flatten().cloned().collect()
    };
    assert_eq!(refs, all(&listed), "report.html's listed table, {context}");
    assert_eq!(companies.len() as u64, n, "{context}");
    assert_eq!(metric_alerts(&prom), n, "ratewatch_alerts, {context}");
    assert_eq!(posted["run"]["alerts"], n, "{context}");
    assert_eq!(posted["alerts_total"], n, "{context}");
    assert_eq!(
        posted["alerts"].as_array().unwrap().len() as u64,
        n,
        "{context}"
    );

    // The standing ones, and the acknowledged ones, apart: never in the count above.
    let s = standing.len() as u64;
    assert_eq!(said.standing, s, "{context}");
    assert_eq!(
        html_count(&html, "<summary>Still red or black, not listed tonight "),
        s,
        "{context}"
    );
    assert_eq!(html_table(&html, "standing").0, all(&standing), "{context}");
    let a = acked.len() as u64;
    assert_eq!(said.acked, a, "{context}");
    assert_eq!(
        html_count(&html, "<summary>Acknowledged, not listed "),
        a,
        "{context}"
    );
    assert_eq!(
        html_table(&html, "acknowledged").0,
        all(&acked),
        "{context}"
    );
    assert_eq!(said.counted, counted.len() as u64, "{context}");
    let alert_rows = rows.iter().filter(|r| r["alert"] == true).count() as u64;
    [n, s, a, alert_rows]
}

#[test]
fn every_output_counts_the_same_alerts_listed_tonight_and_the_standing_ones_apart() {
    let sim = sample_sim();
    let hook = receiver();
    for repeat in ["weekly", "daily"] {
        let ws = Workspace::new();
        ws.write(
            "ratewatch.toml",
            format!("[alerts]\nrepeat = \"{repeat}\"\n").as_bytes(),
        );
        let mut nights = Vec::new();
        for day in 1..=4 {
            if day == 3 {
                // Black since the first night: its standing alert acknowledged.
                ack(&ws, "C-1004");
            }
            nights.push(night(&sim, &ws, day, &hook));
        }
        let [first, second, third, _] = nights[..] else {
            unreachable!()
        };
        assert!(first[0] > 0, "{repeat}: {nights:?}");
        assert!(
            third[2] == 1,
            "{repeat}: the acknowledged company apart: {nights:?}"
        );
        if repeat == "weekly" {
            // Red or black companies seen again: standing, counted apart, while the
            // rows that are alerts outnumber the companies listed.
            assert!(second[1] > 0, "{nights:?}");
            assert!(second[3] > second[0], "{nights:?}");
        } else {
            assert_eq!(second[1], 0, "listed again every night: {nights:?}");
        }
    }
}
