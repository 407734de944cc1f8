//! `ratewatch sync-history`: the service's history of the key's requests read back into a
//! database. A fresh database is rebuilt from it; a second sync adds nothing; what a run
//! observed is neither stored twice nor changed; lookups made elsewhere reach the views;
//! and a server that is not the service, or leads elsewhere, leaves the database as it was.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use predicates::prelude::*;
use ratewatch::model::Color;
use ratewatch::sim::CompanyRef;
use rusqlite::Connection;
use uuid::Uuid;

use crate::common::wait::a_second_later;
use crate::common::{
    Background, KEY, Ratewatch, Reply, Seen, Workspace, assert_color_periods_kept, ratewatch,
    recording, sample_sim,
};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// `sync-history` into `db` against `base`, with the test key.
fn sync(ws: &Workspace, base: &str, db: &Path) -> Ratewatch {
    let mut sync = ratewatch(["sync-history"]);
    sync.in_dir(ws.dir.path())
        .env("RATEWATCH_API_KEY", KEY)
        .db(db)
        .args(["--base-url", base]);
    sync
}

/// Every row of a query, each value as text (NULL as `NULL`).
fn rows(db: &Path, sql: &str) -> Vec<Vec<String>> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| {
                r.get::<_, rusqlite::types::Value>(i).map(|v| match v {
                    rusqlite::types::Value::Null => "NULL".to_string(),
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Real(f) => f.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    rusqlite::types::Value::Blob(b) => format!("{b:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn count(db: &Path, sql: &str) -> u64 {
    rows(db, sql)[0][0].parse().unwrap()
}

/// Everything a sync could write, to compare before and after.
fn snapshot(db: &Path) -> Vec<Vec<Vec<String>>> {
    ["companies", "ratings", "run_companies", "account_requests"]
        .iter()
        .map(|t| rows(db, &format!("SELECT * FROM {t} ORDER BY 1, 2")))
        .collect()
}

/// `latest_ratings` by company: (color, last_change_date, confirmed_at).
fn latest(db: &Path) -> BTreeMap<String, Vec<String>> {
    rows(
        db,
        "SELECT company_id, color, last_change_date, confirmed_at FROM latest_ratings",
    )
    .into_iter()
    .map(|mut r| (r.remove(0), r))
    .collect()
}

/// Rating requests made outside ratewatch (the service's portal), with the same key.
fn elsewhere(sim: &Background, companies: &[Uuid]) {
    let client = crate::common::client_for(&sim.server, KEY);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for id in companies {
            client.rating(*id, None).await.unwrap();
        }
    });
}

fn uuids(sim: &Background, refs: &[CompanyRef]) -> Vec<Uuid> {
    refs.iter().map(|r| sim.server.dataset().uuid(*r)).collect()
}

/// The companies a database holds a rating for.
fn rated(db: &Path) -> Vec<Uuid> {
    rows(db, "SELECT company_id FROM latest_ratings ORDER BY 1")
        .into_iter()
        .map(|r| Uuid::parse_str(&r[0]).unwrap())
        .collect()
}

fn color_of(sim: &Background, id: Uuid, day: i64) -> Color {
    let r = sim.server.dataset().find_uuid(id).unwrap();
    sim.server.dataset().rating(r, day).color
}

#[test]
fn a_lost_database_is_rebuilt_from_the_accounts_history_and_a_second_sync_adds_nothing() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    let screened = ws.db();
    // Lookups in the portal: with the run's, more than one page of history (50 a page).
    let known = rated(&screened);
    let portal: Vec<CompanyRef> = sim
        .server
        .dataset()
        .companies()
        .skip(2_000)
        .filter(|r| !known.contains(&sim.server.dataset().uuid(*r)))
        .take(60)
        .collect();
    elsewhere(&sim, &uuids(&sim, &portal));

    let rebuilt = ws.path("rebuilt.db");
    let requests = known.len() as u64 + 60;
    sync(&ws, &sim.server.base_url(), &rebuilt)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "Read 2 pages of the account's history: {requests} requests."
        )))
        .stdout(
            predicate::str::is_match(format!(r"new observations stored +{requests}\n")).unwrap(),
        )
        .stdout(
            predicate::str::is_match(format!(r"companies new to the database +{requests}\n"))
                .unwrap(),
        );

    // The views show what the run saw, as the run's database does.
    let before = latest(&screened);
    let after = latest(&rebuilt);
    for (company, seen) in &before {
        assert_eq!(after.get(company), Some(seen), "{company}");
    }
    let periods = |db: &Path| {
        rows(
            db,
            "SELECT company_id, color, valid_from, valid_to, observed_at, confirmed_at
             FROM color_periods ORDER BY 1",
        )
    };
    let rebuilt_periods: BTreeSet<_> = periods(&rebuilt).into_iter().collect();
    for period in periods(&screened) {
        assert!(rebuilt_periods.contains(&period), "{period:?}");
    }
    // And what was asked elsewhere, with the color the service gave, the name unknown.
    for id in uuids(&sim, &portal) {
        let seen = &after[&id.to_string()];
        assert_eq!(seen[0], color_of(&sim, id, 1).as_str(), "{id}");
    }
    assert_eq!(
        count(
            &rebuilt,
            "SELECT count(*) FROM latest_ratings WHERE name IS NULL"
        ),
        requests
    );
    assert_eq!(
        count(
            &rebuilt,
            "SELECT count(*) FROM ratings WHERE source = 'account'"
        ),
        requests
    );

    // Twice is once.
    let once = snapshot(&rebuilt);
    sync(&ws, &sim.server.base_url(), &rebuilt)
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(r"new observations stored +0\n").unwrap())
        .stdout(predicate::str::contains(format!(
            "0 already in the rating history, {requests} synced before"
        )));
    assert_eq!(snapshot(&rebuilt), once);
    // The periods the sync's ratings began are kept as the ratings make them.
    assert_color_periods_kept(&rebuilt);
}

#[test]
fn what_a_run_observed_is_not_stored_again_and_lookups_made_elsewhere_reach_the_views() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let db = ws.db();
    ws.screen(&sim, &sample()).assert().code(3);
    let ours = "SELECT r.id, r.company, r.color, r.last_change_date, r.last_refresh_date,
                       r.observed_at, f.confirmed_at, r.first_run_id, f.last_run_id, r.source
                FROM ratings r LEFT JOIN rating_confirmations f ON f.rating = r.id
                WHERE r.source = 'run' ORDER BY r.id";
    let run_rows = rows(&db, ours);
    let run_companies = rows(&db, "SELECT * FROM run_companies ORDER BY 1, 2");
    let companies = rated(&db);

    // Weeks later, the same companies looked up in the portal (times are to the second: a
    // second later is later).
    a_second_later();
    sim.server.set_day(40);
    elsewhere(&sim, &companies);
    sync(&ws, &sim.server.base_url(), &db)
        .assert()
        .code(0)
        .stdout(
            predicate::str::is_match(format!(r"new observations stored +{}\n", companies.len()))
                .unwrap(),
        )
        .stdout(predicate::str::contains(format!(
            "{} already in the rating history, 0 synced before",
            companies.len()
        )))
        .stdout(predicate::str::is_match(r"companies new to the database +0\n").unwrap());
    assert_eq!(rows(&db, ours), run_rows, "a run's rows are never changed");
    assert_eq!(
        rows(&db, "SELECT * FROM run_companies ORDER BY 1, 2"),
        run_companies
    );
    assert_eq!(
        rows(
            &db,
            "SELECT status, count(*) FROM account_requests GROUP BY 1 ORDER BY 1"
        ),
        vec![
            vec!["added".to_string(), companies.len().to_string()],
            vec!["known".to_string(), companies.len().to_string()],
        ]
    );
    // The latest color is the portal's; a color that moved since the run is a change,
    // seen by no run.
    let now = latest(&db);
    let mut moved = 0;
    for id in &companies {
        assert_eq!(now[&id.to_string()][0], color_of(&sim, *id, 40).as_str());
        if color_of(&sim, *id, 1) != color_of(&sim, *id, 40) {
            moved += 1;
        }
    }
    assert!(moved > 0, "the dataset moves some colors in 40 days");
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM color_changes WHERE run_id IS NULL"
        ),
        moved
    );
    // `changes` lists them too, with no run.
    let out = ratewatch(["changes", "--since", "2000-01-01", "--json"])
        .in_dir(ws.dir.path())
        .db(&db)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let listed: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let without_run = listed["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["run_id"].is_null())
        .count();
    assert_eq!(without_run as u64, moved);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM color_periods WHERE valid_to IS NULL"
        ),
        companies.len() as u64,
        "one current period per company"
    );

    // The next run compares with the portal's observations, and the sync after it finds
    // that run's requests known.
    sim.server.set_day(41);
    ws.screen(&sim, &sample())
        .assert()
        .code(predicate::in_iter([1, 3]));
    let after_run = latest(&db);
    // A lookup elsewhere between two runs, read after the second, is older than what the
    // history holds: kept for the audit, not shown by the views.
    // (One whose rating moved between the runs: a lookup that repeats what both runs saw
    // lies within what the history holds, and is known.)
    let moved_since = |id: &Uuid| {
        let r = sim.server.dataset().find_uuid(*id).unwrap();
        let (a, b) = (
            sim.server.dataset().rating(r, 41),
            sim.server.dataset().rating(r, 50),
        );
        (a.color, a.last_change, a.last_refresh) != (b.color, b.last_change, b.last_refresh)
    };
    let looked_up = *companies.iter().find(|id| moved_since(id)).unwrap();
    sim.server.set_day(50);
    elsewhere(&sim, &[looked_up]);
    sim.server.set_day(51);
    ws.screen(&sim, &sample())
        .assert()
        .code(predicate::in_iter([1, 3]));
    let before_sync = latest(&db);
    assert_ne!(before_sync, after_run);
    sync(&ws, &sim.server.base_url(), &db)
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(r"new observations stored +0\n").unwrap())
        .stdout(predicate::str::is_match(r"kept for the audit only +1 ").unwrap())
        .stdout(predicate::str::contains(format!(
            "{} already in the rating history, {} synced before",
            2 * companies.len(),
            2 * companies.len()
        )));
    assert_eq!(latest(&db), before_sync);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM account_requests WHERE status = 'earlier' AND rating_id IS NULL"
        ),
        1
    );
    // Runs' ratings and a sync's between them: one history of periods.
    assert_color_periods_kept(&db);
}

/// A server of its own, on a runtime of its own.
struct Hostile {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    _runtime: tokio::runtime::Runtime,
}

fn hostile(answer: impl Fn(&str, &Seen) -> Reply + Send + Sync + 'static) -> Hostile {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (base, seen) = runtime.block_on(recording(answer));
    Hostile {
        base,
        seen,
        _runtime: runtime,
    }
}

#[test]
fn a_server_that_is_not_the_service_or_leads_elsewhere_leaves_the_database_as_it_was() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let db = ws.db();
    ws.screen(&sim, &sample()).assert().code(3);
    let company = rated(&db)[0];
    let before = std::fs::read(&db).unwrap();

    let html_404 = hostile(|_, _| Reply {
        status: "404 Not Found".into(),
        headers: vec![("content-type".into(), "text/html".into())],
        body: b"<html><body>Not Found</body></html>".to_vec(),
    });
    sync(&ws, &html_404.base, &db)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("check --base-url"));

    let json_404 = hostile(|_, _| Reply {
        status: "404 Not Found".into(),
        headers: vec![("content-type".into(), "application/json".into())],
        body: br#"{"detail": "Not found."}"#.to_vec(),
    });
    sync(&ws, &json_404.base, &db)
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "did not answer as the rating service",
        ));

    // A good first page whose `next` leads to another server: the key is not sent there,
    // and the page read is not stored either.
    let page = format!(
        r#"{{"next": "http://elsewhere.invalid/v2/ratings?page=2", "previous": null,
            "results": [{{"ratingColor": "red", "companyId": "{company}",
                          "requestDate": "2030-01-01T10:00:00.000000Z",
                          "lastRefreshDate": "2030-01-01T00:00:00",
                          "lastChangeDate": "2030-01-01T00:00:00"}}]}}"#
    );
    let leading = hostile(move |_, _| Reply::json(page.clone()));
    sync(&ws, &leading.base, &db)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("leads to another server"));
    assert_eq!(leading.seen.lock().unwrap().len(), 1);

    // A quota spent: refused after the retries (none here), nothing stored.
    let throttled = hostile(|_, _| Reply {
        status: "429 Too Many Requests".into(),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("retry-after".into(), "0".into()),
        ],
        body: br#"{"detail": "Request was throttled."}"#.to_vec(),
    });
    sync(&ws, &throttled.base, &db)
        .env("RATEWATCH_RETRIES", "0")
        .assert()
        .code(4);
    assert!(!throttled.seen.lock().unwrap().is_empty());

    assert!(
        std::fs::read(&db).unwrap() == before,
        "the database file changed"
    );
    // And where there was no database, none is left.
    let fresh = ws.path("fresh.db");
    sync(&ws, &html_404.base, &fresh).assert().code(4);
    assert!(!fresh.exists());
}

#[test]
fn a_database_in_use_or_not_ratewatchs_is_refused_before_any_call() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let db = ws.db();
    {
        let _held = ratewatch::store::RunLock::acquire(&db).unwrap();
        sync(&ws, &sim.server.base_url(), &db)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("in use by another run"));
    }
    let foreign = ws.path("other.db");
    Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY);")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    sync(&ws, &sim.server.base_url(), &foreign)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("not a ratewatch database"));
    assert!(std::fs::read(&foreign).unwrap() == before);
    assert_eq!(sim.server.stats().total(), 0, "no call spent");
}

/// A history holding a request dated in 2099 (red, for a company the runs saw green) and
/// one whose date is not a date: both set aside and counted, the rest stored. The company
/// stays green, and the next run finds nothing changed.
#[test]
fn requests_from_the_future_or_malformed_are_set_aside_and_counted_and_the_rest_stored() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let db = ws.db();
    ws.screen(&sim, &sample()).assert().code(3);
    let before = latest(&db);
    let green = before
        .iter()
        .find(|(_, seen)| seen[0] == "green")
        .map(|(id, _)| id.clone())
        .expect("a green company");
    let now = jiff::Timestamp::now();
    let hours = |h: i64| (now + jiff::SignedDuration::from_hours(h)).to_string();
    let (elsewhere, soon) = (Uuid::from_u128(0xe15e), Uuid::from_u128(0x5007));
    let entry = |company: &str, color: &str, requested: &str| {
        format!(
            r#"{{"ratingColor": "{color}", "companyId": "{company}", "requestDate": "{requested}",
                 "lastRefreshDate": "{refreshed}", "lastChangeDate": "{refreshed}"}}"#,
            refreshed = hours(-30)
        )
    };
    let page = format!(
        r#"{{"next": null, "previous": null, "results": [{}]}}"#,
        [
            entry(&green, "red", "2099-01-01T00:00:00.000000Z"),
            entry(&green, "black", "the first of January"),
            entry(&elsewhere.to_string(), "yellow", &hours(-2)),
            // Ahead of this machine's clock by less than a day: stored, as seen now.
            entry(&soon.to_string(), "green", &hours(3)),
        ]
        .join(", ")
    );
    let history = hostile(move |_, _| Reply::json(page.clone()));
    let out = sync(&ws, &history.base, &db)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Read 1 page of the account's history: 4 requests.",
        ))
        .stdout(predicate::str::is_match(r"new observations stored +2\n").unwrap())
        .stdout(
            predicate::str::is_match(
                r"dated in the future, set aside +1  \(more than a day ahead of this machine's clock\)\n",
            )
            .unwrap(),
        )
        .stdout(predicate::str::is_match(r"malformed, set aside +1  \(").unwrap())
        .stdout(predicate::str::is_match(r"companies new to the database +2\n").unwrap());
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("set aside"), "{stderr}");
    assert!(stderr.contains("the first of January"), "{stderr}");

    // What the runs saw is still the latest; the two others joined it, none from the future.
    let after = latest(&db);
    for (company, seen) in &before {
        assert_eq!(after.get(company), Some(seen), "{company}");
    }
    assert_eq!(after[&elsewhere.to_string()][0], "yellow");
    assert_eq!(after[&soon.to_string()][0], "green");
    assert_eq!(after.len(), before.len() + 2);
    let synced_at = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second() + 1)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%SZ");
    assert_eq!(
        count(
            &db,
            &format!("SELECT count(*) FROM ratings WHERE observed_at > '{synced_at}'")
        ),
        0,
        "nothing observed in the future"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM account_requests WHERE request_date >= '2099'"
        ),
        0
    );

    // The next run finds the company as it left it: no change, no alert about it.
    ws.screen(&sim, &sample()).assert().code(3);
    let rows = ws.report();
    for row in rows["rows"].as_array().unwrap() {
        if row["company_id"] == green.as_str() {
            assert_eq!(row["change"], "unchanged", "{row}");
            assert_eq!(row["alert"], false, "{row}");
        }
    }
}
