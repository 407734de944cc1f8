//! A run's results handed on: `--notify-webhook` against receivers on random loopback
//! ports that record what they are sent (and fail, never answer, judge the body as Slack or
//! a Teams workflow would, or check its signature, when told to), and `--metrics-file` read
//! back and checked against the run's report.json.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use ratewatch::deliver::Policy;
use ratewatch::deliver::webhook::SCHEMA;
use ratewatch::model::RowStatus;
use ratewatch::run::{self, Request};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::common::{
    KEY, Workspace, config, loopback, sample_sim, screen_in_this_process, screen_request, start,
};

/// A request as `ratewatch screen ARGS…` would make it, with `key` in the environment.
fn request(args: &[&str], key: &str, policy: Policy) -> Request {
    tried(screen_request(args, key), policy)
}

/// The request with its webhook tried as `policy` says.
fn tried(mut request: Request, policy: Policy) -> Request {
    if let Some(webhook) = &mut request.channels.webhook {
        webhook.policy = policy;
    }
    request
}

/// Short waits, so that retries cost the tests little.
fn quick() -> Policy {
    Policy {
        attempts: 3,
        first_delay: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
    }
}

/// One request as the receiver got it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    method: String,
    target: String,
    /// Names in lower case.
    headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    at: Instant,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) type Log = Arc<Mutex<Vec<Received>>>;

/// A webhook receiver on a random loopback port: `status(n)` answers the n-th request
/// (from 0), `None` never answers it. Returns its base URL (`http://127.0.0.1:PORT`).
pub(crate) async fn receiver(
    status: impl Fn(usize) -> Option<u16> + Send + Sync + 'static,
) -> (String, Log) {
    judging(move |n, _| status(n).map(|code| (code, String::new()))).await
}

/// A webhook receiver that judges what it gets: `answer(n, request)` gives the status and
/// the body of its answer to the n-th request, `None` never answers it.
pub(crate) async fn judging(
    answer: impl Fn(usize, &Received) -> Option<(u16, String)> + Send + Sync + 'static,
) -> (String, Log) {
    let listener = TcpListener::bind(loopback()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let (record, status) = (log.clone(), Arc::new(answer));
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (record, status) = (record.clone(), status.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let head_end = loop {
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let mut lines = head.split("\r\n");
                let mut first = lines.next().unwrap_or("").split_whitespace();
                let method = first.next().unwrap_or("").to_string();
                let target = first.next().unwrap_or("").to_string();
                let headers: Vec<(String, String)> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
                    .collect();
                let length: usize = headers
                    .iter()
                    .find(|(n, _)| n == "content-length")
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(0);
                while buf.len() < head_end + length {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let received = Received {
                    method,
                    target,
                    headers,
                    body: buf[head_end..head_end + length].to_vec(),
                    at: Instant::now(),
                };
                let n = {
                    let mut record = record.lock().unwrap();
                    record.push(received.clone());
                    record.len() - 1
                };
                let Some((code, body)) = status(n, &received) else {
                    // Holds the connection and says nothing.
                    std::future::pending::<()>().await;
                    return;
                };
                let response = format!(
                    "HTTP/1.1 {code} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (base, log)
}

fn schema_errors(document: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(document)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// A portfolio of `rows` rows of the simulator's companies, in a workspace.
fn portfolio(ws: &Workspace, sim: &ratewatch::sim::SimServer, rows: u64) -> String {
    let mut csv = Vec::new();
    ratewatch::sim::portfolio::write(sim.dataset(), rows, &mut csv).unwrap();
    ws.write("book.csv", &csv).to_str().unwrap().to_string()
}

fn args(ws: &Workspace, file: &str, base: &str, more: &[&str]) -> Vec<String> {
    let mut args = vec![
        file.to_string(),
        "--db".into(),
        ws.db().to_str().unwrap().into(),
        "--out".into(),
        ws.path("out").to_str().unwrap().into(),
        "--base-url".into(),
        base.to_string(),
    ];
    args.extend(more.iter().map(|s| s.to_string()));
    args
}

async fn screen(
    args: &[String],
    key: &str,
    policy: Policy,
) -> Result<run::Screened, ratewatch::Error> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    screen_in_this_process(&request(&args, key, policy), &(), &mut Vec::new()).await
}

#[tokio::test]
async fn the_alerts_go_in_one_document_that_follows_its_schema_and_never_carries_the_key() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 80);
    let (hook, received) = receiver(|_| Some(200)).await;
    let url = format!(
        "{}/in/ratewatch?token=t0ken",
        hook.replace("http://", "http://hookuser:s3cr3t@")
    );
    let base = sim.base_url();
    let screened = screen(
        &args(&ws, &file, &base, &["--notify-webhook", &url]),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());

    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 1, "one document per run");
    let post = &received[0];
    assert_eq!(post.method, "POST");
    assert_eq!(post.target, "/in/ratewatch?token=t0ken");
    assert!(
        post.headers
            .iter()
            .any(|(n, v)| n == "content-type" && v == "application/json")
    );
    // The service's key stays with the service: neither its header nor its value.
    assert!(
        post.headers
            .iter()
            .all(|(n, v)| n != "apikey" && !v.contains(KEY)),
        "{:?}",
        post.headers
    );
    assert!(!String::from_utf8_lossy(&post.body).contains(KEY));

    let document = post.json();
    assert_eq!(schema_errors(&document), Vec::<String>::new());
    let report = ws.report();
    // The run as report.json has it, and exactly the rows it marks as alerts.
    for field in [
        "id",
        "portfolio",
        "status",
        "started_at",
        "finished_at",
        "by_status",
        "by_color",
        "alerts",
        "calls",
    ] {
        assert_eq!(document["run"][field], report["run"][field], "{field}");
    }
    // The alerts the summary lists: one per company, worst first, each an alert row of
    // report.json with the same color.
    let sent = document["alerts"].as_array().unwrap();
    assert!(!sent.is_empty(), "the sample has alerts to send");
    assert_eq!(document["alerts_total"], report["run"]["alerts"]);
    assert_eq!(sent.len() as u64, report["run"]["alerts"].as_u64().unwrap());
    let severity = |a: &Value| {
        ratewatch::alerts::AlertKind::parse(a["kind"].as_str().unwrap())
            .unwrap()
            .severity()
    };
    assert!(sent.windows(2).all(|w| severity(&w[0]) <= severity(&w[1])));
    for a in sent {
        let rows: Vec<&Value> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["company_id"] == a["company_id"])
            .collect();
        assert!(!rows.is_empty(), "{a}");
        for row in rows {
            assert_eq!(row["alert"], true, "{row}");
            assert_eq!(row["color"], a["color"], "{row}");
            assert_eq!(row["alert_kind"], a["kind"], "{row}");
            let reference = row["ref"].as_str().unwrap();
            assert!(a["refs"].as_str().unwrap().contains(reference), "{a}");
        }
    }
}

#[tokio::test]
async fn a_receiver_that_fails_once_gets_the_same_document_again() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let (hook, received) = receiver(|n| Some(if n == 0 { 500 } else { 200 })).await;
    let url = format!("{hook}/hook");
    let base = sim.base_url();
    let screened = screen(
        &args(&ws, &file, &base, &["--notify-webhook", &url]),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body);
    assert!(
        received[1].at - received[0].at >= Duration::from_millis(50),
        "waited before trying again"
    );
    // Named alike, so that a receiver that took the first (and failed to say so) can drop
    // the second; the document carries the name inside the signed body too.
    let id = delivery_id(&received[0]);
    assert_eq!(delivery_id(&received[1]), id);
    assert_eq!(received[1].json()["delivery_id"], id);
}

/// The delivery id a request carries: 32 lowercase hex digits.
fn delivery_id(received: &Received) -> String {
    let id = received
        .header("x-ratewatch-delivery")
        .unwrap_or_else(|| panic!("no delivery id: {:?}", received.headers));
    assert!(
        id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
        "{id}"
    );
    id.to_string()
}

#[tokio::test]
async fn every_format_names_its_message_alike_on_each_attempt_and_on_the_next_night_s_resend() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let sim = start(config()).await;
    let base = sim.base_url();
    let mut first_ids = Vec::new();
    for format in ["json", "slack", "teams"] {
        let ws = Workspace::new();
        let file = portfolio(&ws, &sim, 20);
        // Refuses the first attempt of the night, then is down until told otherwise.
        let down = Arc::new(AtomicBool::new(true));
        let is_down = down.clone();
        let (hook, received) = receiver(move |n| {
            Some(match n {
                0 => 500,
                _ if is_down.load(Ordering::SeqCst) => 503,
                _ => 200,
            })
        })
        .await;
        let url = format!("{hook}/hook");
        let night = args(
            &ws,
            &file,
            &base,
            &["--notify-webhook", &url, "--webhook-format", format],
        );
        let first = screen(&night, KEY, quick()).await.unwrap();
        assert_eq!(
            first.undelivered.len(),
            1,
            "{format}: {:?}",
            first.undelivered
        );
        let ids = |from: usize| -> Vec<String> {
            received.lock().unwrap()[from..]
                .iter()
                .map(delivery_id)
                .collect()
        };
        let tried = ids(0);
        assert_eq!(tried.len(), 3, "{format}");
        assert!(
            tried.iter().all(|id| *id == tried[0]),
            "{format}: {tried:?}"
        );
        // The next night sends the first night's message under its first name, then its
        // own under a new one.
        down.store(false, Ordering::SeqCst);
        let second = screen(&night, KEY, quick()).await.unwrap();
        assert!(
            second.undelivered.is_empty(),
            "{format}: {:?}",
            second.undelivered
        );
        let sent = ids(3);
        assert_eq!(sent.len(), 2, "{format}");
        assert_eq!(sent[0], tried[0], "{format}: the resend");
        assert_ne!(sent[1], tried[0], "{format}: another message");
        let bodies: Vec<Vec<u8>> = received
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.body.clone())
            .collect();
        assert_eq!(bodies[3], bodies[0], "{format}: the same message again");
        first_ids.push(tried[0].clone());
    }
    // Three databases, three names: none shared.
    let distinct: std::collections::HashSet<&String> = first_ids.iter().collect();
    assert_eq!(distinct.len(), 3, "{first_ids:?}");
}

#[tokio::test]
async fn a_receiver_that_keeps_failing_is_a_warning_and_the_outcome_stays() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let (hook, received) = receiver(|_| Some(500)).await;
    let port = hook.rsplit(':').next().unwrap().to_string();
    let url = format!(
        "{}/hook?token=t0ken",
        hook.replace("http://", "http://u:s3cr3t@")
    );
    let base = sim.base_url();
    let screened = screen(
        &args(&ws, &file, &base, &["--notify-webhook", &url]),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(
        screened.undelivered,
        [format!(
            "webhook: not delivered after 3 attempts: HTTP 500 (http://127.0.0.1:{port}/…)"
        )]
    );
    assert_eq!(received.lock().unwrap().len(), 3);
    // The same database screened again without the webhook: the same exit code.
    let quiet = screen(&args(&ws, &file, &base, &[]), KEY, quick())
        .await
        .unwrap();
    assert_eq!(screened.exit_code(), quiet.exit_code());

    // A client error is not tried again; the first run's message, never taken, is tried
    // again first, once.
    let (hook, received) = receiver(|_| Some(404)).await;
    let url = format!("{hook}/gone");
    let screened = screen(
        &args(&ws, &file, &base, &["--notify-webhook", &url]),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(received.lock().unwrap().len(), 2);
    assert_eq!(
        screened.undelivered,
        [
            format!(
                "webhook: not delivered after 1 attempt: HTTP 404 (http://127.0.0.1:{}/…) (run 1's message, sent again)",
                hook.rsplit(':').next().unwrap()
            ),
            format!(
                "webhook: not delivered after 1 attempt: HTTP 404 (http://127.0.0.1:{}/…)",
                hook.rsplit(':').next().unwrap()
            )
        ]
    );
}

#[tokio::test]
async fn a_message_the_receiver_did_not_take_is_sent_by_the_next_run_first_and_only_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let down = Arc::new(AtomicBool::new(true));
    let is_down = down.clone();
    let (hook, received) = receiver(move |_| {
        Some(if is_down.load(Ordering::SeqCst) {
            503
        } else {
            200
        })
    })
    .await;
    let url = format!("{hook}/hook");
    let base = sim.base_url();
    let night = args(&ws, &file, &base, &["--notify-webhook", &url]);
    let runs = |from: usize| -> Vec<i64> {
        received.lock().unwrap()[from..]
            .iter()
            .map(|r| r.json()["run"]["id"].as_i64().unwrap())
            .collect()
    };
    // The receiver is down all night: three attempts, then the message waits.
    let first = screen(&night, KEY, quick()).await.unwrap();
    assert_eq!(first.undelivered.len(), 1, "{:?}", first.undelivered);
    assert_eq!(runs(0), [1, 1, 1]);
    // Back up: the next night sends the first night's message, then its own.
    down.store(false, Ordering::SeqCst);
    let second = screen(&night, KEY, quick()).await.unwrap();
    assert!(second.undelivered.is_empty(), "{:?}", second.undelivered);
    assert_eq!(runs(3), [1, 2]);
    // Taken: never again.
    screen(&night, KEY, quick()).await.unwrap();
    assert_eq!(runs(5), [3]);
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    let ledger: Vec<(i64, i64, bool)> = conn
        .prepare(
            "SELECT run_id, attempts, delivered_at IS NOT NULL FROM run_deliveries
             WHERE channel = 'webhook' ORDER BY run_id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ledger, [(1, 4, true), (2, 1, true), (3, 1, true)]);
    // The ledger keeps each message's name, as the receiver saw it every time.
    let named: Vec<String> = conn
        .prepare("SELECT delivery_id FROM run_deliveries WHERE channel = 'webhook' ORDER BY run_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let seen: Vec<String> = received.lock().unwrap().iter().map(delivery_id).collect();
    assert_eq!(
        seen,
        [0, 0, 0, 0, 1, 2].map(|i| named[i].clone()),
        "run 1 four times, then runs 2 and 3"
    );
}

#[tokio::test]
async fn a_receiver_that_never_answers_neither_hangs_nor_fails_the_run() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let (hook, received) = receiver(|_| None).await;
    let url = format!("{hook}/hook");
    let base = sim.base_url();
    let policy = Policy {
        attempts: 2,
        first_delay: Duration::from_millis(10),
        timeout: Duration::from_millis(300),
    };
    // Neither hangs: the receiver holds its connections forever, and each attempt gives up
    // at its timeout. The run and its two attempts take about a second; still delivering
    // after a minute, it would be waiting on the receiver.
    let args = args(&ws, &file, &base, &["--notify-webhook", &url]);
    let run = screen(&args, KEY, policy);
    let screened = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the run still delivering after a minute")
        .unwrap();
    assert_eq!(received.lock().unwrap().len(), 2);
    assert_eq!(
        screened.undelivered,
        [format!(
            "webhook: not delivered after 2 attempts: no answer within 0.3 s ({hook}/…)"
        )]
    );
    assert_eq!(screened.run.rows, 20);
}

/// The samples of a metrics file: `name{labels}` → value.
fn samples(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            (series.to_string(), value.parse().unwrap())
        })
        .collect()
}

fn epoch(time: &Value) -> f64 {
    let t: jiff::Timestamp = time.as_str().unwrap().parse().unwrap();
    t.as_millisecond() as f64 / 1000.0
}

#[tokio::test]
async fn the_metrics_file_says_what_report_json_says() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 40);
    let metrics = ws.path("textfile/ratewatch.prom");
    std::fs::create_dir_all(metrics.parent().unwrap()).unwrap();
    let base = sim.base_url();
    let screened = screen(
        &args(
            &ws,
            &file,
            &base,
            &["--metrics-file", metrics.to_str().unwrap()],
        ),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());
    let text = std::fs::read_to_string(&metrics).unwrap();
    let got = samples(&text);
    let report = ws.report();
    let run = &report["run"];
    let p = "portfolio=\"book\"";
    for (status, n) in run["by_status"].as_object().unwrap() {
        let series = format!("ratewatch_rows{{{p},status=\"{status}\"}}");
        assert_eq!(got[&series], n.as_f64().unwrap(), "{series}");
    }
    for (color, n) in run["by_color"].as_object().unwrap() {
        let series = format!("ratewatch_rows_by_color{{{p},color=\"{color}\"}}");
        assert_eq!(got[&series], n.as_f64().unwrap(), "{series}");
    }
    for (endpoint, n) in run["calls"].as_object().unwrap() {
        let series = format!("ratewatch_calls{{{p},endpoint=\"{endpoint}\"}}");
        assert_eq!(got[&series], n.as_f64().unwrap(), "{series}");
    }
    assert_eq!(
        got[&format!("ratewatch_alerts{{{p}}}")],
        run["alerts"].as_f64().unwrap()
    );
    assert_eq!(
        got[&format!("ratewatch_run_id{{{p}}}")],
        run["id"].as_f64().unwrap()
    );
    assert_eq!(run["status"], "complete");
    assert_eq!(got[&format!("ratewatch_run_success{{{p}}}")], 1.0);
    assert_eq!(
        got[&format!("ratewatch_run_status{{{p},status=\"complete\"}}")],
        1.0
    );
    assert_eq!(
        got[&format!("ratewatch_run_status{{{p},status=\"failed\"}}")],
        0.0
    );
    assert_eq!(
        got[&format!("ratewatch_last_success_timestamp_seconds{{{p}}}")],
        epoch(&run["finished_at"])
    );
    assert!(got[&format!("ratewatch_run_duration_seconds{{{p}}}")] > 0.0);
    for name in got.keys().map(|s| s.split('{').next().unwrap()) {
        assert!(name.starts_with("ratewatch_"), "{name}");
        assert!(text.contains(&format!("# HELP {name} ")), "{name}");
        assert!(text.contains(&format!("# TYPE {name} gauge")), "{name}");
    }
    let left: Vec<_> = std::fs::read_dir(metrics.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["ratewatch.prom"], "no temporary file left behind");
}

#[tokio::test]
async fn a_failed_night_exports_its_failure_and_the_last_success_before_it() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let metrics = ws.path("ratewatch.prom");
    let base = sim.base_url();
    let more = ["--metrics-file", metrics.to_str().unwrap()];
    screen(&args(&ws, &file, &base, &more), KEY, quick())
        .await
        .unwrap();
    let good = ws.report();
    let p = "portfolio=\"book\"";

    // The service refuses the key: the run stops, and says so in the metrics.
    let (hook, received) = receiver(|_| Some(200)).await;
    let url = format!("{hook}/hook");
    let mut more = more.to_vec();
    more.extend(["--notify-webhook", &url, "--refresh-resolutions"]);
    let err = screen(&args(&ws, &file, &base, &more), "wrong-key", quick())
        .await
        .unwrap_err();
    assert_eq!(err.exit_code(), ratewatch::ExitCode::Fatal, "{err}");
    let got = samples(&std::fs::read_to_string(&metrics).unwrap());
    assert_eq!(got[&format!("ratewatch_run_success{{{p}}}")], 0.0);
    assert_eq!(
        got[&format!("ratewatch_run_status{{{p},status=\"failed\"}}")],
        1.0
    );
    assert_eq!(
        got[&format!("ratewatch_run_status{{{p},status=\"complete\"}}")],
        0.0
    );
    assert_eq!(
        got[&format!("ratewatch_last_success_timestamp_seconds{{{p}}}")],
        epoch(&good["run"]["finished_at"]),
        "the last success is the night before's"
    );
    // The failed run had a record: its document says it failed.
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    let document = received[0].json();
    assert_eq!(schema_errors(&document), Vec::<String>::new());
    assert_eq!(document["run"]["status"], "failed");
    assert_eq!(
        got[&format!("ratewatch_run_id{{{p}}}")],
        document["run"]["id"].as_f64().unwrap()
    );
}

#[tokio::test]
async fn a_night_that_rated_nobody_is_no_success_for_monitoring() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let metrics = ws.path("ratewatch.prom");
    let base = sim.base_url();
    let more = ["--metrics-file", metrics.to_str().unwrap()];
    screen(&args(&ws, &file, &base, &more), KEY, quick())
        .await
        .unwrap();
    let good = ws.report();
    let p = "portfolio=\"book\"";

    // Every row names a company the service does not know.
    let mut unknown = String::from("ref,country,name\n");
    for i in 0..5 {
        unknown.push_str(&format!("U-{i},FR,Nobody Trading {i} Nowhere\n"));
    }
    let nobody = ws.write("book.csv", unknown.as_bytes());
    let screened = screen(
        &args(&ws, nobody.to_str().unwrap(), &base, &more),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(screened.run.rows_with(RowStatus::Unresolved), 5);
    assert_eq!(screened.exit_code(), ratewatch::ExitCode::Partial);
    let got = samples(&std::fs::read_to_string(&metrics).unwrap());
    assert_eq!(got[&format!("ratewatch_run_success{{{p}}}")], 0.0);
    assert_eq!(
        got[&format!("ratewatch_last_success_timestamp_seconds{{{p}}}")],
        epoch(&good["run"]["finished_at"]),
        "the last success is still the night that rated its rows"
    );
}

#[test]
fn the_binary_warns_on_stderr_and_logs_with_the_host_only_and_keeps_its_exit_code() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (hook, received) = runtime.block_on(receiver(|_| Some(503)));
    // A Slack-like address: its secret is its path.
    let url = format!(
        "{}/slackhooks/T9Q3/B7Z1/XXXXSECRET?token=t0ken",
        hook.replace("http://", "http://u:s3cr3t@")
    );
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    let metrics = ws.path("ratewatch.prom");
    let output = ws
        .screen(&sim, &sample)
        .args(["--notify-webhook", &url, "-vv", "--log-format", "json"])
        .arg("--metrics-file")
        .arg(&metrics)
        .run();
    // The sample has failed rows: 3, as without a webhook.
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "ratewatch: warning: webhook: not delivered after 3 attempts: HTTP 503 ({hook}/…)"
        )),
        "{stderr}"
    );
    // The log says where it went, by host and port only.
    let retries: Vec<Value> = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["message"] == "webhook not delivered; trying again")
        .collect();
    assert_eq!(retries.len(), 2, "{stderr}");
    assert_eq!(retries[0]["webhook"], format!("{hook}/…"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    for text in [&stderr, &stdout] {
        for secret in [
            "s3cr3t",
            "t0ken",
            "slackhooks",
            "T9Q3",
            "B7Z1",
            "XXXXSECRET",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }
    assert_eq!(received.lock().unwrap().len(), 3);
    let got = samples(&std::fs::read_to_string(&metrics).unwrap());
    assert_eq!(got["ratewatch_run_success{portfolio=\"portfolio\"}"], 0.0);
    assert_eq!(
        got["ratewatch_run_status{portfolio=\"portfolio\",status=\"partial\"}"],
        1.0
    );
    assert_eq!(
        got["ratewatch_last_success_timestamp_seconds{portfolio=\"portfolio\"}"],
        0.0
    );
}

#[test]
fn config_shows_the_webhook_without_its_secrets_and_refuses_a_bad_one_with_code_2() {
    let ws = Workspace::new();
    let out = ws
        .ratewatch(["config", "--json"])
        .env(
            "RATEWATCH_NOTIFY_WEBHOOK",
            "https://u:s3cr3t@hooks.example/in?token=t0ken",
        )
        .run();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("s3cr3t") && !text.contains("t0ken"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json["settings"]["notify_webhook"]["value"],
        "https://hooks.example/…"
    );
    assert_eq!(json["settings"]["notify_webhook"]["source"], "env");

    ws.write("book.csv", b"country,service,id\nFR,SIREN,552100554\n");
    ws.ratewatch(["screen", "book.csv", "--demo", "--notify-webhook"])
        .arg("ftp://u:s3cr3t@hooks.example/in")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--notify-webhook: expected an http or https URL, got ftp://hooks.example/…",
        ))
        .stderr(predicates::str::contains("s3cr3t").not());
    assert!(!ws.db().exists(), "refused before anything was written");
}

/// A request as `ratewatch --config CONFIG screen ARGS…` would make it, with the test key.
fn request_with_config(config: &Path, args: &[String], policy: Policy) -> Request {
    use clap::Parser;
    use ratewatch::settings::cli::{Cli, Command};
    use ratewatch::settings::config::{KEY_ENV, Sources};
    let head = ["ratewatch", "--config", config.to_str().unwrap(), "screen"];
    let argv = head.into_iter().chain(args.iter().map(String::as_str));
    let cli = Cli::try_parse_from(argv).unwrap();
    let Command::Screen(screen) = cli.command else {
        unreachable!("a screen command")
    };
    let env = |k: &str| (k == KEY_ENV).then(|| KEY.to_string());
    let sources = Sources::load(Some(&cli.config), env).unwrap();
    tried(
        ratewatch::commands::screen::request(screen, &sources).unwrap(),
        policy,
    )
}

/// What a sales rep's column may hold: a mention, a script, a link and mrkdwn, none of
/// which may reach a chat as it is.
const HOSTILE: &str = "<!channel> & <script>x</script> <https://evil.example|click> *bold*";

/// A workspace with 60 of the simulator's companies by id, each with an amount (`Encours`,
/// 1000 × its line) and a rep (`Commercial`, [`HOSTILE`]), and `[alerts]` showing both
/// with `Encours` as the amount at stake. Returns the workspace and the portfolio's path.
fn book_with_amounts(sim: &ratewatch::sim::SimServer) -> (Workspace, String) {
    let ws = Workspace::new();
    let data = sim.dataset();
    let mut csv = String::from("ref,country,company_id,Encours,Commercial\n");
    for i in 0..60u32 {
        let company = ratewatch::sim::CompanyRef {
            country: i as usize % 10,
            n: i,
        };
        let country = data.company(company).address.country_code;
        let uuid = data.uuid(company);
        csv.push_str(&format!(
            "R-{i},{country},{uuid},{},{HOSTILE}\n",
            (i + 1) * 1000
        ));
    }
    let file = ws.write("book.csv", csv.as_bytes());
    ws.write(
        "ratewatch.toml",
        b"[alerts]\namount = \"Encours\"\nshow = [\"Encours\", \"Commercial\"]\n",
    );
    (ws, file.to_str().unwrap().to_string())
}

/// Why a Slack-like receiver refuses a body (`no_text`, `invalid_blocks`), as Slack words
/// it: a non-empty `text`, and blocks within Slack's limits.
pub(crate) fn slack_refuses(body: &[u8]) -> Option<&'static str> {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return Some("invalid_payload");
    };
    if message["text"].as_str().is_none_or(|t| t.trim().is_empty()) {
        return Some("no_text");
    }
    // Blocks are optional; present, they must be within limits.
    let blocks = message.get("blocks")?;
    let Some(blocks) = blocks.as_array().filter(|b| b.len() <= 50) else {
        return Some("invalid_blocks");
    };
    let within = |text: &Value, max: usize| {
        text.as_str()
            .is_some_and(|t| !t.is_empty() && t.chars().count() <= max)
    };
    let valid = blocks.iter().all(|b| match b["type"].as_str() {
        Some("header") => b["text"]["type"] == "plain_text" && within(&b["text"]["text"], 150),
        Some("section") => b["text"]["type"] == "mrkdwn" && within(&b["text"]["text"], 3000),
        Some("context") => b["elements"].as_array().is_some_and(|e| {
            (1..=10).contains(&e.len()) && e.iter().all(|e| within(&e["text"], 3000))
        }),
        _ => false,
    });
    (!valid).then_some("invalid_blocks")
}

/// Whether a Teams-like receiver (a workflow's webhook) takes a body: a message with an
/// Adaptive Card, within 28 KB.
pub(crate) fn teams_takes(body: &[u8]) -> bool {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let card = &message["attachments"][0];
    body.len() <= 28 * 1024
        && message["type"] == "message"
        && card["contentType"] == "application/vnd.microsoft.card.adaptive"
        && card["content"]["type"] == "AdaptiveCard"
        && card["content"]["body"].is_array()
}

/// Every string in a JSON value, depth first.
pub(crate) fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

#[tokio::test]
async fn slack_and_teams_take_their_message_with_the_heading_the_amounts_and_the_report() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let mut documents = HashMap::new();
    for format in ["json", "slack", "teams"] {
        let (ws, file) = book_with_amounts(&sim);
        let (hook, received) = judging(move |_, r| match format {
            "slack" => Some(match slack_refuses(&r.body) {
                Some(why) => (400, why.to_string()),
                None => (200, "ok".into()),
            }),
            "teams" => Some(if teams_takes(&r.body) {
                (202, String::new())
            } else {
                (400, "Bad Request".into())
            }),
            _ => Some((200, String::new())),
        })
        .await;
        let url = format!("{hook}/services/T000/B000/XXXX");
        let args = args(
            &ws,
            &file,
            &base,
            &["--notify-webhook", &url, "--webhook-format", format],
        );
        let request = request_with_config(&ws.path("ratewatch.toml"), &args, quick());
        let screened = screen_in_this_process(&request, &(), &mut Vec::new())
            .await
            .unwrap();
        assert_eq!(screened.undelivered, Vec::<String>::new(), "{format}");
        let received = received.lock().unwrap().clone();
        assert_eq!(received.len(), 1, "{format}: taken at the first attempt");
        let report = ws.path("out/report.html").canonicalize().unwrap();
        documents.insert(format, (received[0].json(), report));
    }

    // The document for programs: the amounts as numbers, the columns as the file has them.
    let (document, report) = &documents["json"];
    assert_eq!(schema_errors(document), Vec::<String>::new());
    let heading = document["heading"].as_str().unwrap();
    assert!(heading.starts_with("ratewatch "), "{heading}");
    assert!(
        heading.ends_with(&format!(" · book · run 1 · {}", report.display())),
        "{heading}"
    );
    assert_eq!(document["report"], report.display().to_string());
    assert_eq!(document["amount_column"], "Encours");
    let alerts = document["alerts"].as_array().unwrap();
    assert!(!alerts.is_empty(), "red and black at a first screening");
    for a in alerts {
        let line: f64 = a["refs"].as_str().unwrap()[2..].parse().unwrap();
        assert_eq!(a["amount"].as_f64(), Some((line + 1.0) * 1000.0), "{a}");
        assert_eq!(a["columns"]["Commercial"], HOSTILE, "{a}");
    }
    let kinds = document["kinds"].as_array().unwrap();
    let at_stake: f64 = kinds.iter().filter_map(|k| k["amount"].as_f64()).sum();
    let listed: f64 = alerts.iter().filter_map(|a| a["amount"].as_f64()).sum();
    assert_eq!(at_stake, listed);

    // The first alert, as the chats must say it.
    let first = &alerts[0];
    let amount = ratewatch::digest::format_amount(first["amount"].as_f64().unwrap());
    let refs = first["refs"].as_str().unwrap();

    let (slack, _) = &documents["slack"];
    let title = heading.rsplit_once(" · ").unwrap().0;
    let text = slack["text"].as_str().unwrap();
    let opening = format!("{title} · {}: ", documents["slack"].1.display());
    assert!(text.starts_with(&opening), "{text}");
    let blocks = slack["blocks"].as_array().unwrap();
    let said: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b["text"]["text"].as_str())
        .collect();
    let line = said
        .iter()
        .find(|t| t.starts_with(&format!("*{refs}")))
        .unwrap_or_else(|| panic!("{refs} in {said:#?}"));
    assert!(
        line.contains(&format!("Encours: {amount} · Commercial: &lt;!channel&gt; &amp; &lt;script&gt;x&lt;/script&gt; &lt;https://evil.example|click&gt; *bold*")),
        "{line}"
    );
    let body = slack.to_string();
    for raw in ["<!channel>", "<script>", "<https://"] {
        assert!(!body.contains(raw), "{raw} reached Slack: {body}");
    }
    let context = blocks.last().unwrap()["elements"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        context.ends_with(&format!(
            "report: {} · run 1",
            documents["slack"].1.display()
        )),
        "{context}"
    );

    let (teams, report) = &documents["teams"];
    let said = strings(&teams["attachments"][0]["content"]["body"]);
    assert!(said.contains(&title.to_string()), "{said:#?}");
    assert!(said.contains(&amount), "{amount} in {said:#?}");
    assert!(said.contains(&"Encours".to_string()), "{said:#?}");
    assert!(said.iter().any(|s| s.starts_with(refs)), "{said:#?}");
    // A rep's text as it is, in a run of text no Markdown reaches.
    assert!(
        said.contains(&format!("Commercial: {HOSTILE}")),
        "{said:#?}"
    );
    assert!(
        said.contains(&format!("report: {} · run 1", report.display())),
        "{said:#?}"
    );
}

#[tokio::test]
async fn a_receiver_refuses_what_is_not_its_shape_and_the_run_says_so() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let (ws, file) = book_with_amounts(&sim);
    // A JSON document to a Slack-like address: Slack's own refusal.
    let (hook, received) = judging(|_, r| {
        Some(match slack_refuses(&r.body) {
            Some(why) => (400, why.to_string()),
            None => (200, "ok".into()),
        })
    })
    .await;
    let url = format!("{hook}/services/T000/B000/XXXX");
    let args = args(&ws, &file, &base, &["--notify-webhook", &url]);
    let request = request_with_config(&ws.path("ratewatch.toml"), &args, quick());
    let screened = screen_in_this_process(&request, &(), &mut Vec::new())
        .await
        .unwrap();
    assert_eq!(
        screened.undelivered,
        [format!(
            "webhook: not delivered after 1 attempt: HTTP 400 ({hook}/…)"
        )]
    );
    assert_eq!(
        received.lock().unwrap().len(),
        1,
        "a 400 is not tried again"
    );
    // And a card is no Slack message, nor a Slack message a card.
    let slack = received.lock().unwrap()[0].body.clone();
    assert_eq!(slack_refuses(&slack), Some("no_text"));
    assert!(!teams_takes(&slack));
}

/// A receiver's check of a body's signature, as docs/delivery.md shows it in Python: the
/// HMAC-SHA256 of `<t>.<body>` with the shared secret, compared in constant time; a time
/// more than 300 s away, or a signature already taken, is refused.
fn verify(
    secret: &[u8],
    r: &Received,
    now: i64,
    taken: &Mutex<Vec<String>>,
) -> Result<(), &'static str> {
    use hmac::{Hmac, Mac};
    let header = r.header("x-ratewatch-signature").ok_or("unsigned")?;
    let fields: HashMap<&str, &str> = header
        .split(',')
        .filter_map(|f| f.split_once('='))
        .collect();
    let t = fields.get("t").ok_or("no time")?;
    let sent = fields.get("v1").ok_or("no signature")?;
    if r.header("x-ratewatch-timestamp") != Some(t) {
        return Err("two times");
    }
    let sent: Vec<u8> = (0..sent.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&sent[i..i + 2], 16))
        .collect::<Result<_, _>>()
        .map_err(|_| "not hex")?;
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&r.body);
    mac.verify_slice(&sent).map_err(|_| "wrong signature")?;
    let t: i64 = t.parse().map_err(|_| "not a time")?;
    if (now - t).abs() > 300 {
        return Err("too old");
    }
    let mut taken = taken.lock().unwrap();
    if taken.contains(&header.to_string()) {
        return Err("replayed");
    }
    taken.push(header.to_string());
    Ok(())
}

#[tokio::test]
async fn every_attempt_is_signed_afresh_and_a_receiver_can_tell_a_forgery_or_a_replay() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 20);
    let secret = "whsec_4f9c2e7a1b";
    let secret_file = ws.write("hook.secret", format!("{secret}\n").as_bytes());
    let taken: Arc<Mutex<Vec<String>>> = Arc::default();
    let verdicts: Arc<Mutex<Vec<Result<(), &'static str>>>> = Arc::default();
    let (judge, said) = (taken.clone(), verdicts.clone());
    let (hook, received) = judging(move |n, r| {
        let verdict = verify(
            secret.as_bytes(),
            r,
            jiff::Timestamp::now().as_second(),
            &judge,
        );
        said.lock().unwrap().push(verdict);
        Some(match (n, verdict) {
            // The receiver's own trouble, once: the signature it checked is not spent.
            (0, Ok(())) => {
                judge.lock().unwrap().clear();
                (503, String::new())
            }
            (_, Ok(())) => (200, String::new()),
            (_, Err(why)) => (400, why.to_string()),
        })
    })
    .await;
    let url = format!("{hook}/in");
    let secret_path = secret_file.to_str().unwrap();
    let more = [
        "--notify-webhook",
        &url,
        "--webhook-secret-file",
        secret_path,
    ];
    let args: Vec<String> = args(&ws, &file, &sim.base_url(), &more);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    // The second attempt a second after the first: a time of its own.
    let policy = Policy {
        first_delay: Duration::from_millis(1100),
        ..quick()
    };
    let request = request(&argv, KEY, policy);
    assert!(!format!("{request:?}").contains(secret), "{request:?}");
    let screened = screen_in_this_process(&request, &(), &mut Vec::new())
        .await
        .unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());
    assert_eq!(*verdicts.lock().unwrap(), [Ok(()), Ok(())]);
    let received = received.lock().unwrap().clone();
    let times: Vec<i64> = received
        .iter()
        .map(|r| r.header("x-ratewatch-timestamp").unwrap().parse().unwrap())
        .collect();
    assert!(times[1] > times[0], "signed again, later: {times:?}");
    assert_eq!(received[0].body, received[1].body);
    for r in &received {
        assert!(!String::from_utf8_lossy(&r.body).contains(secret));
        assert!(r.headers.iter().all(|(_, v)| !v.contains(secret)));
    }

    // What the receiver refuses: the same request again, a body changed on the way, a
    // signature made with another secret, and a signature five minutes old.
    let client = reqwest::Client::new();
    let send = |headers: Vec<(String, String)>, body: Vec<u8>| {
        let mut post = client.post(&url).body(body);
        for (name, value) in headers {
            post = post.header(name, value);
        }
        async move { post.send().await.unwrap().text().await.unwrap() }
    };
    let signed = |key: &str, t: i64, body: &[u8]| {
        let secret = ratewatch::deliver::webhook::Secret::new(key);
        let header = ratewatch::deliver::webhook::signature(&secret, t, body);
        vec![
            ("x-ratewatch-signature".to_string(), header),
            ("x-ratewatch-timestamp".to_string(), t.to_string()),
        ]
    };
    let last = received[1].clone();
    let kept: Vec<(String, String)> = last
        .headers
        .iter()
        .filter(|(n, _)| n.starts_with("x-ratewatch-"))
        .cloned()
        .collect();
    assert_eq!(send(kept.clone(), last.body.clone()).await, "replayed");
    let mut changed = last.body.clone();
    changed[0] = b' ';
    assert_eq!(send(kept, changed).await, "wrong signature");
    let now = jiff::Timestamp::now().as_second();
    let forged = signed("guessed", now, &last.body);
    assert_eq!(send(forged, last.body.clone()).await, "wrong signature");
    let old = signed(secret, now - 301, &last.body);
    assert_eq!(send(old, last.body.clone()).await, "too old");
    let fresh = signed(secret, now + 1, &last.body);
    assert_eq!(send(fresh, last.body.clone()).await, "");
}

#[tokio::test]
async fn a_secret_file_that_holds_nothing_stops_the_command_naming_the_file() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = portfolio(&ws, &sim, 5);
    let empty = ws.write("hook.secret", b" \n");
    let args = args(
        &ws,
        &file,
        &sim.base_url(),
        &[
            "--notify-webhook",
            "http://127.0.0.1:9/in",
            "--webhook-secret-file",
            empty.to_str().unwrap(),
        ],
    );
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    use clap::Parser;
    let cli =
        ratewatch::settings::cli::Cli::try_parse_from(["ratewatch", "screen"].iter().chain(&argv))
            .unwrap();
    let ratewatch::settings::cli::Command::Screen(screen) = cli.command else {
        unreachable!()
    };
    let sources = ratewatch::settings::config::Sources::default();
    let err = ratewatch::commands::screen::request(screen, &sources).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("the webhook secret file {} is empty", empty.display())
    );
    assert_eq!(err.exit_code(), ratewatch::ExitCode::Usage);
    assert!(!ws.db().exists(), "refused before anything was done");
}

#[test]
fn a_secret_for_no_webhook_is_said_not_silently_ignored() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let secret = ws.write("hook.secret", b"s3cret\n");
    let out = ws
        .screen(
            &sim,
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv"),
        )
        .args(["--webhook-secret-file", secret.to_str().unwrap()])
        .run();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("webhook_secret_file is set but notify_webhook is not: no webhook is sent"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
}
