//! Storage rules: migrations, history that grows with changes only, change detection.

use super::*;
use crate::model::Rating;

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn rating(id: Uuid, color: Color, changed: &str, refreshed: &str, at: &str) -> Rating {
    Rating {
        company_id: id,
        color,
        requested_at: Some(ts(at)),
        last_refresh: Some(ts(refreshed)),
        last_change: Some(ts(changed)),
    }
}

fn run(store: &mut Store) -> i64 {
    store
        .start_run(&NewRun {
            portfolio: "p".into(),
            input_path: "p.csv".into(),
            sha256: "x".into(),
            demo_day: None,
        })
        .unwrap()
}

async fn observe_all(store: &Store, run_id: i64, ratings: &[Rating]) {
    let mut writer = store.writer(run_id).unwrap();
    for r in ratings {
        writer.send(Record::Observation(r.clone())).unwrap();
        writer
            .send(Record::Row(Box::new(RowRecord {
                input: crate::model::InputRow {
                    line: 2,
                    reference: Some("R1".into()),
                    country: Some("FR".into()),
                    ..Default::default()
                },
                status: RowStatus::Rated,
                company_id: Some(r.company_id),
                ..RowRecord::default()
            })))
            .unwrap();
    }
    writer.finish().unwrap();
}

fn history_len(store: &Store) -> i64 {
    store
        .conn
        .query_row("SELECT count(*) FROM ratings", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn migrations_apply_from_every_earlier_version_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    for applied in 0..=migrate::MIGRATIONS.len() {
        let path = dir.path().join(format!("v{applied}.db"));
        {
            let conn = Connection::open(&path).unwrap();
            for (v, _, sql) in &migrate::MIGRATIONS[..applied] {
                conn.execute_batch(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);",
                )
                .unwrap();
                conn.execute_batch(sql).unwrap();
                conn.pragma_update(None, "user_version", v).unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        let version: i64 = store
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, latest_version());
        let recorded: i64 = store
            .conn
            .query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(recorded as usize, migrate::MIGRATIONS.len() - applied);
        drop(store);
        Store::open(&path).expect("opening again is a no-op");
    }
}

#[test]
fn a_foreign_or_newer_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("other.db");
    Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER);")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    assert!(matches!(Store::open(&foreign), Err(StoreError::Foreign)));
    assert_eq!(std::fs::read(&foreign).unwrap(), before);

    let newer = dir.path().join("newer.db");
    drop(Store::open(&newer).unwrap());
    Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    let err = Store::open(&newer).err().unwrap();
    assert!(err.to_string().contains("newer ratewatch"), "{err}");
}

#[tokio::test]
async fn history_grows_with_changes_not_with_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("h.db")).unwrap();
    let id = Uuid::new_v4();
    let day = |d: u8| format!("2026-11-{d:02}T02:00:00Z");

    let r1 = run(&mut store);
    observe_all(
        &store,
        r1,
        &[rating(id, Color::Green, &day(1), &day(1), &day(10))],
    )
    .await;
    let r2 = run(&mut store);
    observe_all(
        &store,
        r2,
        &[rating(id, Color::Green, &day(1), &day(1), &day(11))],
    )
    .await;
    assert_eq!(history_len(&store), 1, "an unchanged re-check adds no row");
    let confirmed: String = store
        .conn
        .query_row("SELECT confirmed_at FROM ratings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(confirmed, day(11));

    let r3 = run(&mut store);
    observe_all(
        &store,
        r3,
        &[rating(id, Color::Green, &day(12), &day(12), &day(12))],
    )
    .await;
    let r4 = run(&mut store);
    observe_all(
        &store,
        r4,
        &[rating(id, Color::Red, &day(13), &day(13), &day(13))],
    )
    .await;
    let r5 = run(&mut store);
    observe_all(
        &store,
        r5,
        &[rating(id, Color::Red, &day(13), &day(14), &day(14))],
    )
    .await;
    assert_eq!(
        history_len(&store),
        4,
        "refresh date moved: a row; nothing else: none"
    );

    let changes: Vec<(i64, String)> = [r1, r2, r3, r4, r5]
        .iter()
        .map(|r| {
            store
                .conn
                .query_row(
                    "SELECT run_id, change FROM run_companies WHERE run_id = ?1",
                    [r],
                    |x| Ok((x.get(0)?, x.get(1)?)),
                )
                .unwrap()
        })
        .collect();
    let names: Vec<&str> = changes.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(
        names,
        ["new", "unchanged", "evolved", "deteriorated", "unchanged"]
    );

    let view: Vec<(String, String, i64)> = store
        .conn
        .prepare("SELECT from_color, to_color, run_id FROM color_changes")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(view, vec![("green".into(), "red".into(), r4)]);
    let latest: (String, String) = store
        .conn
        .query_row("SELECT color, confirmed_at FROM latest_ratings", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(latest, ("red".into(), day(14)));

    store
        .finish_run(r4, "complete", &[("rating".into(), 1)])
        .unwrap();
    let info = store.run_info(r4).unwrap();
    assert_eq!((info.rows, info.alerts), (1, 1));
    assert_eq!(info.by_color, vec![("red".to_string(), 1)]);
    assert_eq!(info.calls, vec![("rating".to_string(), 1)]);
    let mut rows = Vec::new();
    store
        .for_each_result(r4, false, |r| {
            rows.push(r);
            Ok::<_, ()>(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(rows[0].previous_color, Some(Color::Green));
    assert_eq!(rows[0].change, Some(Change::Deteriorated));
    assert!(rows[0].alert);
}

#[test]
fn a_company_rated_in_a_run_is_known_to_be_rated_and_never_observed_twice() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("r.db")).unwrap();
    let id = Uuid::new_v4();
    let day = |d: u8| format!("2026-01-{d:02}T00:00:00Z");
    let r1 = run(&mut store);
    let mut w = store.writer(r1).unwrap();
    assert!(!w.rated(id).unwrap());
    w.send(Record::Observation(rating(
        id,
        Color::Yellow,
        &day(1),
        &day(1),
        &day(2),
    )))
    .unwrap();
    assert!(w.rated(id).unwrap(), "seen before the commit");
    w.finish().unwrap();

    // A resumed run asks the same question and gets the same answer from the database.
    let r2 = run(&mut store);
    let mut w = store.writer(r2).unwrap();
    assert!(!w.rated(id).unwrap());
    let red = rating(id, Color::Red, &day(3), &day(3), &day(3));
    w.send(Record::Observation(red.clone())).unwrap();
    w.finish().unwrap();
    let mut resumed = store.writer(r2).unwrap();
    assert!(resumed.rated(id).unwrap());
    // A second observation in the same run is refused loudly, not added to the history.
    assert!(resumed.send(Record::Observation(red)).is_err());
    resumed.finish().unwrap();
    assert_eq!(history_len(&store), 2);
    let change: String = store
        .conn
        .query_row(
            "SELECT change FROM run_companies WHERE run_id = ?1",
            [r2],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(change, "deteriorated");
}

#[test]
fn lookups_are_kept_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("l.db")).unwrap();
    let countries = vec![Country {
        country_code: "FR".into(),
        country_name: "France".into(),
    }];
    let services = vec![IdentifierService {
        identifier_code: "SIREN".into(),
        identifier_country: "FR".into(),
        identifier_label: "x".into(),
    }];
    store.save_lookups(&countries, &services).unwrap();
    store.save_lookups(&countries, &services).unwrap();
    assert_eq!(store.load_lookups().unwrap(), (countries, services));
}

#[test]
fn the_log_is_copied_into_the_database_while_the_writer_works() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let mut store = Store::open(&path).unwrap();
    let run_id = run(&mut store);
    let main_file = || std::fs::metadata(&path).unwrap().len();
    let before = main_file();
    let mut writer = store.writer(run_id).unwrap();
    for n in 0..2_000u32 {
        let id = Uuid::from_u128(u128::from(n) + 1);
        writer
            .send(Record::Observation(rating(
                id,
                Color::Green,
                "2026-01-01T00:00:00Z",
                "2026-01-02T00:00:00Z",
                "2026-01-03T00:00:00Z",
            )))
            .unwrap();
    }
    // Committed (the transaction is old enough) but still only in the log: the writer's
    // own checkpoints are off.
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    writer.tick().unwrap();
    assert_eq!(main_file(), before, "the writer does not checkpoint itself");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while main_file() == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the checkpoint thread never copied the log"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    writer.finish().unwrap();
    let n: i64 = store
        .conn
        .query_row("SELECT count(*) FROM ratings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2_000);
}
