//! The screening use case driven in-process, without the binary: a whole run against the
//! simulator, its typed outcome, what a watcher hears and the summary it writes.

use std::cell::RefCell;

use ratewatch::error::ExitCode;
use ratewatch::model::{RowStatus, RunStatus};
use ratewatch::run::{self, Request, Started, Watcher};

use crate::common::after_heading;
use crate::common::{KEY, Workspace, config, screen_in_this_process, screen_request, start};

/// A request as `ratewatch screen ARGS…` would make it, the key from the environment.
fn request(args: &[&str]) -> Request {
    screen_request(args, KEY)
}

#[derive(Default)]
struct Heard {
    started: RefCell<Vec<Started>>,
    rows: RefCell<Vec<Option<RowStatus>>>,
}

impl Watcher for Heard {
    fn started(&self, run: &Started) {
        self.started.borrow_mut().push(run.clone());
    }
    fn row(&self, status: Option<RowStatus>) {
        self.rows.borrow_mut().push(status);
    }
}

#[tokio::test]
async fn a_whole_run_in_process_returns_its_outcome_and_writes_its_summary() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let mut csv = Vec::new();
    ratewatch::sim::portfolio::write(sim.dataset(), 30, &mut csv).unwrap();
    let file = ws.write("book.csv", &csv);
    let args = ws.screen_args(&sim.base_url(), &file);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let heard = Heard::default();
    let mut summary = Vec::new();
    let screened = screen_in_this_process(&request(&args), &heard, &mut summary).await;
    let text = String::from_utf8(summary).unwrap();
    let screened = screened.unwrap_or_else(|e| panic!("{e}: {text}"));

    assert_eq!(screened.run.id, 1, "{text}");
    assert_eq!(screened.run.status, RunStatus::Complete, "{text}");
    assert_eq!(screened.run.rows, 30, "{text}");
    let rated = screened.run.by_status[0];
    assert_eq!(rated, (RowStatus::Rated, 30), "{text}");
    let expected = if screened.run.alerts > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    };
    assert_eq!(screened.exit_code(), expected, "{text}");
    let started = heard.started.borrow().clone();
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!((started[0].run_id, started[0].resumed), (1, None));
    assert_eq!(started[0].portfolio, "book");
    assert_eq!(heard.rows.borrow().len(), 30, "{text}");
    assert!(
        after_heading(&text).starts_with("ratewatch run 1 of book (complete): 30 rows — 30 rated"),
        "{text}"
    );
    assert!(ws.path("out").join("report.json").is_file());

    // The same file again: a second run, nothing searched again.
    let searches = sim.stats().calls(ratewatch::sim::Endpoint::CompanyById);
    let mut summary = Vec::new();
    let again = screen_in_this_process(&request(&args), &(), &mut summary).await;
    let text = String::from_utf8(summary).unwrap();
    let again = again.unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(again.run.id, 2, "{text}");
    assert_eq!(
        sim.stats().calls(ratewatch::sim::Endpoint::CompanyById),
        searches,
        "{text}"
    );
}

/// Asks the run to stop once it has heard `after` rows, as a signal would.
struct StopAfter {
    halt: run::Halt,
    after: usize,
    heard: RefCell<usize>,
}

impl Watcher for StopAfter {
    fn row(&self, _: Option<RowStatus>) {
        *self.heard.borrow_mut() += 1;
        if *self.heard.borrow() == self.after {
            self.halt.stop("stopped by the test");
        }
    }
}

#[tokio::test]
async fn a_run_asked_to_stop_reports_what_it_screened_and_the_next_run_resumes_the_rest() {
    let sim = start(ratewatch::sim::SimConfig {
        faults: ratewatch::sim::Faults {
            latency: std::time::Duration::from_millis(3),
            ..Default::default()
        },
        ..config()
    })
    .await;
    let ws = Workspace::new();
    let mut csv = Vec::new();
    ratewatch::sim::portfolio::write(sim.dataset(), 80, &mut csv).unwrap();
    let file = ws.write("book.csv", &csv);
    let mut args = ws.screen_args(&sim.base_url(), &file);
    args.extend(["--concurrency".into(), "2".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let request = request(&args);
    let watcher = StopAfter {
        halt: request.halt.clone(),
        after: 30,
        heard: RefCell::new(0),
    };
    let mut summary = Vec::new();
    let stopped = screen_in_this_process(&request, &watcher, &mut summary).await;
    let text = String::from_utf8(summary).unwrap();
    let stopped = stopped.unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(stopped.run.status, RunStatus::Interrupted, "{text}");
    assert_eq!(stopped.exit_code(), ExitCode::Partial, "{text}");
    assert!(
        after_heading(&text)
            .starts_with("STOPPED: stopped by the test: the next run of this portfolio resumes"),
        "{text}"
    );
    let rated = stopped.run.rows_with(RowStatus::Rated);
    let failed = stopped.run.rows_with(RowStatus::Failed);
    assert!(rated >= 10 && failed > 0, "{text}");
    assert_eq!(rated + failed, 80, "{text}");
    let report = ws.report();
    let not_screened = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["error"] == "not screened: stopped by the test")
        .count() as u64;
    assert_eq!(not_screened, failed, "{text}");

    // The companies the stopped run's summary listed: announced already.
    let listed = |run_id: i64| -> std::collections::HashSet<i64> {
        let conn = rusqlite::Connection::open(ws.db()).unwrap();
        let mut stmt = conn
            .prepare("SELECT company FROM run_alerts WHERE run_id = ?1 AND listed = 1")
            .unwrap();
        stmt.query_map([run_id], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let announced = listed(stopped.run.id);
    assert!(!announced.is_empty(), "the stopped run listed news: {text}");

    // The next run takes up the rows not screened, and only those.
    let heard = Heard::default();
    let mut summary = Vec::new();
    let resumed = screen_in_this_process(&screen_request(&args, KEY), &heard, &mut summary).await;
    let next = String::from_utf8(summary).unwrap();
    let resumed = resumed.unwrap_or_else(|e| panic!("{e}: {next}"));
    let relisted: Vec<_> = listed(resumed.run.id)
        .intersection(&announced)
        .copied()
        .collect();
    assert_eq!(
        relisted,
        Vec::<i64>::new(),
        "news is announced once: {next}"
    );
    assert_eq!(
        resumed.run.id, stopped.run.id,
        "the same run, resumed: {next}"
    );
    assert_eq!(
        heard.started.borrow()[0].resumed,
        Some(rated as usize),
        "{text}\n{next}"
    );
    assert_eq!(resumed.run.status, RunStatus::Complete, "{next}");
    assert_eq!(resumed.run.rows_with(RowStatus::Rated), 80, "{next}");
}
