//! The screening use case driven in-process, without the binary: a whole run against the
//! simulator, its typed outcome, what a watcher hears and the summary it writes.

use std::cell::RefCell;

use ratewatch::error::ExitCode;
use ratewatch::model::{RowStatus, RunStatus};
use ratewatch::run::{self, Request, Started, Watcher};

use crate::common::{KEY, Workspace, config, screen_request, start};

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
    let (db, out) = (ws.db(), ws.path("out"));
    let args = [
        file.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--base-url",
        &sim.base_url(),
    ];
    let heard = Heard::default();
    let mut summary = Vec::new();
    let screened = run::screen(&request(&args), &heard, &mut summary)
        .await
        .unwrap();

    assert_eq!(screened.run.id, 1);
    assert_eq!(screened.run.status, RunStatus::Complete);
    assert_eq!(screened.run.rows, 30);
    let rated = screened.run.by_status[0];
    assert_eq!(rated, (RowStatus::Rated, 30));
    let expected = if screened.run.alerts > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    };
    assert_eq!(screened.exit_code(), expected);
    let started = heard.started.borrow().clone();
    assert_eq!(started.len(), 1);
    assert_eq!((started[0].run_id, started[0].resumed), (1, None));
    assert_eq!(started[0].portfolio, "book");
    assert_eq!(heard.rows.borrow().len(), 30);
    let text = String::from_utf8(summary).unwrap();
    assert!(
        text.starts_with("ratewatch run 1 of book (complete): 30 rows — 30 rated"),
        "{text}"
    );
    assert!(out.join("report.json").is_file());

    // The same file again: a second run, nothing searched again.
    let searches = sim.stats().calls(ratewatch::sim::Endpoint::CompanyById);
    let again = run::screen(&request(&args), &(), &mut Vec::new())
        .await
        .unwrap();
    assert_eq!(again.run.id, 2);
    assert_eq!(
        sim.stats().calls(ratewatch::sim::Endpoint::CompanyById),
        searches
    );
}
