//! A run's results handed on: `--notify-webhook` against a receiver on a random loopback
//! port that records what it is sent (and fails, or never answers, when told to), and
//! `--metrics-file` read back and checked against the run's report.json.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use ratewatch::deliver::webhook::{Policy, SCHEMA};
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
    Request {
        webhook_policy: policy,
        ..screen_request(args, key)
    }
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
    body: Vec<u8>,
    at: Instant,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

pub(crate) type Log = Arc<Mutex<Vec<Received>>>;

/// A webhook receiver on a random loopback port: `status(n)` answers the n-th request
/// (from 0), `None` never answers it. Returns its base URL (`http://127.0.0.1:PORT`).
pub(crate) async fn receiver(
    status: impl Fn(usize) -> Option<u16> + Send + Sync + 'static,
) -> (String, Log) {
    let listener = TcpListener::bind(loopback()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let (record, status) = (log.clone(), Arc::new(status));
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
                let n = {
                    let mut record = record.lock().unwrap();
                    record.push(Received {
                        method,
                        target,
                        headers,
                        body: buf[head_end..head_end + length].to_vec(),
                        at: Instant::now(),
                    });
                    record.len() - 1
                };
                let Some(code) = status(n) else {
                    // Holds the connection and says nothing.
                    std::future::pending::<()>().await;
                    return;
                };
                let response =
                    format!("HTTP/1.1 {code} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
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
            "webhook: not delivered after 3 attempts: HTTP 500 (http://***@127.0.0.1:{port}/hook?token=***)"
        )]
    );
    assert_eq!(received.lock().unwrap().len(), 3);
    // The same database screened again without the webhook: the same exit code.
    let quiet = screen(&args(&ws, &file, &base, &[]), KEY, quick())
        .await
        .unwrap();
    assert_eq!(screened.exit_code(), quiet.exit_code());

    // A client error is not tried again.
    let (hook, received) = receiver(|_| Some(404)).await;
    let url = format!("{hook}/gone");
    let screened = screen(
        &args(&ws, &file, &base, &["--notify-webhook", &url]),
        KEY,
        quick(),
    )
    .await
    .unwrap();
    assert_eq!(received.lock().unwrap().len(), 1);
    assert!(
        screened.undelivered[0].starts_with("webhook: not delivered after 1 attempt: HTTP 404"),
        "{:?}",
        screened.undelivered
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
            "webhook: not delivered after 2 attempts: no answer within 0.3 s ({url})"
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
fn the_binary_warns_on_stderr_without_the_secrets_and_keeps_its_exit_code() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (hook, received) = runtime.block_on(receiver(|_| Some(503)));
    let url = format!(
        "{}/hook?token=t0ken",
        hook.replace("http://", "http://u:s3cr3t@")
    );
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    let metrics = ws.path("ratewatch.prom");
    let output = ws
        .screen(&sim, &sample)
        .args(["--notify-webhook", &url, "-v"])
        .arg("--metrics-file")
        .arg(&metrics)
        .output()
        .unwrap();
    // The sample has failed rows: 3, as without a webhook.
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "ratewatch: warning: webhook: not delivered after 3 attempts: HTTP 503 ({}/hook?token=***)",
            hook.replace("http://", "http://***@")
        )),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for text in [&stderr, &stdout] {
        assert!(
            !text.contains("s3cr3t") && !text.contains("t0ken"),
            "{text}"
        );
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
    let mut std_cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ratewatch"));
    crate::common::isolated(&mut std_cmd);
    std_cmd
        .current_dir(ws.dir.path())
        .env(
            "RATEWATCH_NOTIFY_WEBHOOK",
            "https://u:s3cr3t@hooks.example/in?token=t0ken",
        )
        .args(["config", "--json"]);
    let out = std_cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("s3cr3t") && !text.contains("t0ken"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json["settings"]["notify_webhook"]["value"],
        "https://***@hooks.example/in?token=***"
    );
    assert_eq!(json["settings"]["notify_webhook"]["source"], "env");

    ws.write("book.csv", b"country,service,id\nFR,SIREN,552100554\n");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ratewatch"));
    crate::common::isolated(&mut cmd);
    cmd.current_dir(ws.dir.path());
    assert_cmd::Command::from_std(cmd)
        .args(["screen", "book.csv", "--demo", "--notify-webhook"])
        .arg("ftp://u:s3cr3t@hooks.example/in")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--notify-webhook: expected an http or https URL, got ftp://***@hooks.example/in",
        ))
        .stderr(predicates::str::contains("s3cr3t").not());
    assert!(!ws.db().exists(), "refused before anything was written");
}
