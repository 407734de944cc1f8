//! Storage rules: migrations, history that grows with changes only, change detection.

use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use super::account::AccountSync;
use super::alert_log::{self, Verdicts};
use super::database::Store;
use super::decisions::LatestRun;
use super::deliveries::RESENT_AT_MOST;
use super::migrate::{self, SCHEMA_VERSION, latest_version};
use super::results;
use super::run_life::NewRun;
use super::sql::StoreError;
use super::timeline;
use super::writer::{Record, RowRecord, Writer};
use crate::alerts::Rules;
use crate::model::{
    Change, Color, Country, IdentifierService, Rating, RowStatus, RunStatus, SearchOutcome,
    time_text,
};

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

/// A new database in a folder of its own, removed with the folder when the test drops it.
pub(crate) fn new_store() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::open(&path).unwrap();
    (dir, path, store)
}

/// Every row of `sql`, each read by `read`.
pub(crate) fn all<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Vec<T> {
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map(params, read)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A new database with a run of portfolio `p` started ([`run`]), and the run's writer.
pub(crate) fn new_run() -> (tempfile::TempDir, std::path::PathBuf, Store, i64, Writer) {
    let (dir, path, mut store) = new_store();
    let run_id = run(&mut store);
    let writer = store.writer(run_id).unwrap();
    (dir, path, store, run_id, writer)
}

/// A run of portfolio `p` started, for the records of a test.
pub(crate) fn run(store: &mut Store) -> i64 {
    run_of(store, "p")
}

/// Records that run `run_id`'s summary named line `line`, as `name_unscreened` does.
pub(crate) fn mark_named(conn: &Connection, run_id: i64, line: i64) {
    conn.execute(
        "INSERT INTO run_named_lines (run_id, line) VALUES (?1, ?2)",
        [run_id, line],
    )
    .unwrap();
}

/// A run of `portfolio` (read from `{portfolio}.csv`) started.
pub(crate) fn run_of(store: &mut Store, portfolio: &str) -> i64 {
    store
        .start_run(&NewRun {
            portfolio: portfolio.into(),
            input_path: format!("{portfolio}.csv"),
            sha256: "x".into(),
            demo_day: None,
            extra_columns: vec![],
            amount_column: None,
        })
        .unwrap()
}

/// A run started that observes the rating, at its requestDate by the store's clock.
async fn run_seeing(store: &mut Store, rating: Rating) -> i64 {
    let run_id = run(store);
    let mut writer = store.writer(run_id).unwrap();
    let company = rating.company_id;
    store.pin_clock(rating.requested_at);
    writer.send(Record::Observation(rating)).unwrap();
    store.pin_clock(None);
    writer.send(rated(2, "R1", company)).unwrap();
    writer.finish().unwrap();
    run_id
}

/// A French row on `line` rated as `company`; `reference` empty: a row without one.
fn rated(line: u64, reference: &str, company: Uuid) -> Record {
    Record::Row(Box::new(RowRecord {
        input: crate::model::InputRow {
            line,
            reference: (!reference.is_empty()).then(|| reference.to_string()),
            country: Some("FR".into()),
            ..Default::default()
        },
        status: RowStatus::Rated,
        company_id: Some(company),
        ..RowRecord::default()
    }))
}

fn history_len(store: &Store) -> i64 {
    store
        .conn
        .query_row("SELECT count(*) FROM ratings", [], |r| r.get(0))
        .unwrap()
}

/// Every object of a database's schema but the migrations' record: (type, name, SQL).
fn schema_of(conn: &Connection) -> Vec<(String, String, Option<String>)> {
    all(
        conn,
        "SELECT type, name, sql FROM sqlite_master
         WHERE name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY type, name",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// The schema of migrations/schema.sql, as SQLite keeps it.
fn schema_file() -> Vec<(String, String, Option<String>)> {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(migrate::SCHEMA).unwrap();
    schema_of(&conn)
}

#[test]
fn a_new_database_is_the_schema_file_and_nothing_else() {
    let (_dir, _, store) = new_store();
    assert_eq!(schema_of(&store.conn), schema_file());
    let recorded: Vec<(i64, String)> = all(
        &store.conn,
        "SELECT version, name FROM schema_migrations",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        recorded,
        [(latest_version(), "readable_schema".to_string())]
    );
}

#[test]
fn migrations_apply_from_every_earlier_version_end_at_the_schema_file_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    for applied in 1..=migrate::MIGRATIONS.len() {
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
        assert_eq!(
            schema_of(&store.conn),
            schema_file(),
            "a database of version {applied} upgraded"
        );
        let recorded: i64 = store
            .conn
            .query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(recorded, latest_version() - applied as i64);
        for setting in ["legacy_alter_table", "writable_schema"] {
            let on: i64 = store
                .conn
                .query_row(&format!("PRAGMA {setting}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(on, 0, "{setting} is off after the migrations");
        }
        drop(store);
        Store::open(&path).expect("opening again is a no-op");
    }
}

/// The bundled SQLite is built as `.cargo/config.toml` says: without the global memory
/// statistics whose mutex each of its allocations would otherwise take.
#[test]
fn the_bundled_sqlite_keeps_no_memory_statistics() {
    let conn = Connection::open_in_memory().unwrap();
    let options: Vec<String> = all(&conn, "PRAGMA compile_options", [], |r| r.get(0));
    assert!(
        options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
        "built with {options:?}"
    );
}

/// A database as ratewatch created it at `version`, from the `schema.sql` of that version
/// (`tests/fixtures/schema-<version>.sql`; 33's is the one the conversion creates,
/// `migrate::CONVERTED_SCHEMA`); `None` when no such file is kept.
fn created_at(path: &std::path::Path, version: i64) -> Option<Connection> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let schema = if version == 33 {
        migrate::CONVERTED_SCHEMA.to_string()
    } else {
        std::fs::read_to_string(fixtures.join(format!("schema-{version}.sql"))).ok()?
    };
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);",
    )
    .unwrap();
    conn.execute_batch(&schema).unwrap();
    conn.execute(
        "INSERT INTO schema_migrations VALUES (?1, 'readable_schema', '2026-11-01T00:00:00Z')",
        [version],
    )
    .unwrap();
    conn.pragma_update(None, "user_version", version).unwrap();
    Some(conn)
}

#[test]
fn a_database_created_at_any_version_since_the_conversion_upgrades_to_exactly_the_schema_file() {
    let dir = tempfile::tempdir().unwrap();
    for version in migrate::CONVERSION_VERSION..=SCHEMA_VERSION {
        let path = dir.path().join(format!("created-{version}.db"));
        let Some(conn) = created_at(&path, version) else {
            // The schema.sql of each version before this one is kept as released.
            assert_eq!(
                version, SCHEMA_VERSION,
                "tests/fixtures/schema-{version}.sql keeps migrations/schema.sql as version {version} released it"
            );
            continue;
        };
        drop(conn);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            schema_of(&store.conn),
            schema_file(),
            "a database created at version {version}, upgraded"
        );
        let recorded: Vec<i64> = all(
            &store.conn,
            "SELECT version FROM schema_migrations ORDER BY 1",
            [],
            |r| r.get(0),
        );
        let expected: Vec<i64> = (version..=SCHEMA_VERSION).collect();
        assert_eq!(recorded, expected, "created at version {version}");
    }
}

#[test]
fn a_database_of_version_30_keeps_its_color_periods_as_its_view_gave_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v30.db");
    let conn = created_at(&path, 30).expect("tests/fixtures/schema-30.sql");
    // Three companies' histories: a color kept while the service moved its date, a change
    // dated inside the gap, one dated before the old color was last seen, one after the new
    // was first seen, a change back, and a sync's rating between runs'.
    conn.execute_batch(
        "INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, status)
         VALUES (1, 'p', 'p.csv', '', '2026-11-01T02:00:00Z', 'complete'),
                (2, 'p', 'p.csv', '', '2026-11-05T02:00:00Z', 'complete'),
                (3, 'p', 'p.csv', '', '2026-11-09T02:00:00Z', 'complete');
         INSERT INTO companies (id, company_id, name, first_seen_at, updated_at)
         VALUES (1, '00000000-0000-4000-8000-000000000001', 'Un', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (2, '00000000-0000-4000-8000-000000000002', 'Deux', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (3, '00000000-0000-4000-8000-000000000003', 'Trois', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z');
         INSERT INTO ratings (company, color, last_change_date, observed_at, first_run_id, source)
         VALUES (1, 'green',  '2026-10-01T00:00:00Z', '2026-11-01T02:00:01Z', 1, 'run'),
                (2, 'yellow', NULL,                   '2026-11-01T02:00:02Z', 1, 'run'),
                (3, 'green',  '2026-12-24T00:00:00Z', '2026-11-01T02:00:03Z', 1, 'run'),
                (1, 'green',  '2026-11-03T00:00:00Z', '2026-11-05T02:00:01Z', 2, 'run'),
                (2, 'red',    '2026-10-20T00:00:00Z', '2026-11-05T02:00:02Z', 2, 'run'),
                (3, 'red',    '2026-11-07T00:00:00Z', '2026-11-07T12:00:00Z', NULL, 'account'),
                (1, 'red',    '2026-11-08T00:00:00Z', '2026-11-09T02:00:01Z', 3, 'run'),
                (2, 'yellow', '2026-11-10T00:00:00Z', '2026-11-09T02:00:02Z', 3, 'run');
         INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
         VALUES (2, '2026-11-03T02:00:00Z', NULL),
                (3, '2026-11-05T02:00:03Z', 2),
                (4, '2026-11-07T02:00:00Z', NULL);
         INSERT INTO inputs (id, ref) VALUES (1, 'A'), (2, 'B'), (3, 'C');
         INSERT INTO run_rows (run_id, line, input_id, status, company)
         VALUES (3, 2, 1, 'rated', 1), (3, 3, 2, 'rated', 2), (3, 4, 3, 'rated', 3);
         INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
         VALUES (3, 1, 7, 4, 'deteriorated'), (3, 2, 8, 5, 'improved'),
                (3, 3, 6, 6, 'unchanged');",
    )
    .unwrap();
    let views = |conn: &Connection| {
        (
            rows_of(conn, "SELECT * FROM color_periods"),
            rows_of(conn, "SELECT * FROM portfolio_now"),
            rows_of(conn, "SELECT * FROM color_changes"),
        )
    };
    let before = views(&conn);
    assert_eq!(before.0.len(), 7, "{:#?}", before.0);
    assert_eq!(before.1.len(), 3, "{:#?}", before.1);
    assert_eq!(before.2.len(), 4, "{:#?}", before.2);
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    assert_eq!(
        views(&store.conn),
        before,
        "the same periods, each a row now"
    );
    assert_eq!(
        rows_of(
            &store.conn,
            "SELECT first_rating_id, valid_to IS NULL, last_rating_id FROM color_period_bounds"
        ),
        [
            "Integer(1)|Integer(0)|Integer(4)",
            "Integer(2)|Integer(0)|Integer(2)",
            "Integer(3)|Integer(0)|Integer(3)",
            "Integer(5)|Integer(0)|Integer(5)",
            "Integer(6)|Integer(1)|Null",
            "Integer(7)|Integer(1)|Null",
            "Integer(8)|Integer(1)|Null",
        ]
    );
}

/// Version 32 compares a service date with the day after the rating was first seen as
/// instants: every value around the boundary (a day to the second, a second more, none,
/// earlier) shows as version 31's formatted text showed it.
#[test]
fn a_database_of_version_31_shows_the_same_dates_in_run_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v31.db");
    let conn = created_at(&path, 31).expect("tests/fixtures/schema-31.sql");
    conn.execute_batch(
        "INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, status)
         VALUES (1, 'p', 'p.csv', '', '2026-11-01T02:00:00Z', 'complete');
         INSERT INTO companies (id, company_id, name, first_seen_at, updated_at)
         VALUES (1, '00000000-0000-4000-8000-000000000001', 'Un', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (2, '00000000-0000-4000-8000-000000000002', 'Deux', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (3, '00000000-0000-4000-8000-000000000003', 'Trois', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (4, '00000000-0000-4000-8000-000000000004', 'Quatre', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z');
         INSERT INTO ratings (company, color, last_change_date, last_refresh_date, observed_at,
                              first_run_id)
         VALUES (1, 'green', '2026-11-02T02:00:00Z', '2026-11-02T02:00:01Z',
                 '2026-11-01T02:00:00Z', 1),
                (2, 'red',   '2026-11-02T02:00:01Z', '2026-11-02T02:00:00Z',
                 '2026-11-01T02:00:00Z', 1),
                (3, 'black', NULL, '2027-01-01T00:00:00Z', '2026-11-01T02:00:00Z', 1),
                (4, 'white', '2026-10-31T23:59:59Z', NULL, '2026-11-01T02:00:00Z', 1);
         INSERT INTO inputs (id, ref) VALUES (1, 'A'), (2, 'B'), (3, 'C'), (4, 'D');
         INSERT INTO run_rows (run_id, line, input_id, status, company)
         VALUES (1, 2, 1, 'rated', 1), (1, 3, 2, 'rated', 2), (1, 4, 3, 'rated', 3),
                (1, 5, 4, 'rated', 4);
         INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
         VALUES (1, 1, 1, NULL, 'new'), (1, 2, 2, NULL, 'new'), (1, 3, 3, NULL, 'new'),
                (1, 4, 4, NULL, 'new');",
    )
    .unwrap();
    let dates = "SELECT line, last_change_date, last_refresh_date FROM run_results ORDER BY line";
    let before = rows_of(&conn, dates);
    assert_eq!(
        before,
        [
            "Integer(2)|Text(\"2026-11-02T02:00:00Z\")|Text(\"2026-11-01T02:00:00Z\")",
            "Integer(3)|Text(\"2026-11-01T02:00:00Z\")|Text(\"2026-11-02T02:00:00Z\")",
            "Integer(4)|Null|Text(\"2026-11-01T02:00:00Z\")",
            "Integer(5)|Text(\"2026-10-31T23:59:59Z\")|Null",
        ]
    );
    let everything = rows_of(&conn, "SELECT * FROM run_results ORDER BY line");
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    assert_eq!(rows_of(&store.conn, dates), before);
    assert_eq!(
        rows_of(&store.conn, "SELECT * FROM run_results ORDER BY line"),
        everything
    );
}

/// Version 33 notes a refresh beside its rating instead of adding one: a database of
/// version 32, whose recalculations are ratings of their own, answers every view as before.
#[test]
fn a_database_of_version_32_keeps_its_recalculations_as_ratings_and_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v32.db");
    let conn = created_at(&path, 32).expect("tests/fixtures/schema-32.sql");
    conn.execute_batch(
        "INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, status)
         VALUES (1, 'p', 'p.csv', '', '2026-11-01T02:00:00Z', 'complete'),
                (2, 'p', 'p.csv', '', '2026-11-08T02:00:00Z', 'complete'),
                (3, 'p', 'p.csv', '', '2026-11-09T02:00:00Z', 'complete');
         INSERT INTO companies (id, company_id, name, first_seen_at, updated_at)
         VALUES (1, '00000000-0000-4000-8000-000000000001', 'Un', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z');
         INSERT INTO ratings (company, color, last_change_date, last_refresh_date, observed_at,
                              first_run_id)
         VALUES (1, 'green', '2026-10-01T00:00:00Z', '2026-10-31T00:00:00Z',
                 '2026-11-01T02:00:00Z', 1),
                (1, 'green', '2026-10-01T00:00:00Z', '2026-11-07T00:00:00Z',
                 '2026-11-08T02:00:00Z', 2);
         INSERT INTO rating_confirmations VALUES (2, '2026-11-09T02:00:00Z', 3);
         INSERT INTO inputs (id, ref) VALUES (1, 'A');
         INSERT INTO run_rows (run_id, line, input_id, status, company)
         VALUES (1, 2, 1, 'rated', 1), (2, 2, 1, 'rated', 1), (3, 2, 1, 'rated', 1);
         INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
         VALUES (1, 1, 1, NULL, 'new'), (2, 1, 2, 1, 'unchanged'), (3, 1, 2, 2, 'unchanged');",
    )
    .unwrap();
    let views = [
        "SELECT * FROM run_results ORDER BY run_id, line",
        "SELECT * FROM latest_ratings",
        "SELECT * FROM color_periods",
        "SELECT * FROM portfolio_now",
    ];
    let before: Vec<Vec<String>> = views.iter().map(|v| rows_of(&conn, v)).collect();
    assert!(
        before[0][1].contains("2026-11-07T00:00:00Z"),
        "{:?}",
        before[0]
    );
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    for (view, rows) in views.iter().zip(&before) {
        assert_eq!(&rows_of(&store.conn, view), rows, "{view}");
    }
}

#[test]
fn a_database_of_version_26_keeps_its_acknowledgements_and_decisions_as_records_not_recorded_by_whom()
 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v26.db");
    let conn = created_at(&path, 26).expect("tests/fixtures/schema-26.sql");
    conn.execute_batch(
        "INSERT INTO companies (id, company_id, name, first_seen_at, updated_at)
         VALUES (1, '00000000-0000-4000-8000-000000000001', 'Zhao', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z'),
                (2, '00000000-0000-4000-8000-000000000002', 'Acme', '2026-11-01T00:00:00Z',
                 '2026-11-01T00:00:00Z');
         INSERT INTO acks (company, ref, color, acked_at, until, note)
         VALUES (1, 'C33306', 'red', '2026-11-12T09:00:00Z', NULL, 'Paiement comptant exigé'),
                (2, NULL, 'black', '2026-11-02T09:00:00Z', '2026-11-10T00:00:00Z', NULL);
         INSERT INTO decisions (ref, search_key, decision, company_id, decided_at, source)
         VALUES ('C-1', 'name|fr|acme', 'ignore', NULL, '2026-11-03T10:00:00Z', 'command line'),
                ('C-2', 'name|fr|zhao', 'accept', '00000000-0000-4000-8000-000000000001',
                 '2026-11-04T10:00:00Z', 'web page');",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    let acks = rows_of(
        &store.conn,
        "SELECT ref, color, acked_at, acked_by, until, note, ended_at, ended_how, in_force
         FROM acknowledgements",
    );
    assert_eq!(
        acks,
        [
            "Null|Text(\"black\")|Text(\"2026-11-02T09:00:00Z\")|Null|Text(\"2026-11-10T00:00:00Z\")|Null|Text(\"2026-11-10T00:00:00Z\")|Text(\"expired\")|Integer(0)",
            "Text(\"C33306\")|Text(\"red\")|Text(\"2026-11-12T09:00:00Z\")|Null|Null|Text(\"Paiement comptant exigé\")|Null|Null|Integer(1)",
        ],
        "every row kept; who not recorded; the one whose until passed shown ended"
    );
    let decisions = rows_of(
        &store.conn,
        "SELECT ref, decision, name, decided_by, source, in_force FROM review_decisions",
    );
    assert_eq!(
        decisions,
        [
            "Text(\"C-1\")|Text(\"ignore\")|Null|Null|Text(\"command line\")|Integer(1)",
            "Text(\"C-2\")|Text(\"accept\")|Text(\"Zhao\")|Null|Text(\"web page\")|Integer(1)",
        ]
    );
    assert_eq!(store.decisions().unwrap().len(), 2, "both still applied");
    let trail = count(&store.conn, "SELECT count(*) FROM audit_trail");
    assert_eq!(trail, 5, "4 made, 1 ended by its until");
}

#[test]
fn the_steps_after_the_conversion_keep_a_converted_databases_rows_and_end_at_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v21.db");
    let mut conn = database_of_21(&path);
    // As `migrate` runs the steps: foreign keys off around them, each in a transaction.
    conn.pragma_update(None, "foreign_keys", false).unwrap();
    fn run(conn: &mut Connection, version: i64) -> &'static str {
        let (name, sql) = migrate::step(version).unwrap();
        let tx = conn.transaction().unwrap();
        tx.execute_batch(&sql)
            .unwrap_or_else(|e| panic!("step {version:04}_{name}: {e}"));
        tx.commit().unwrap();
        name
    }
    run(&mut conn, migrate::CONVERSION_VERSION);
    // Every table and the rows it holds, as the conversion left them.
    let tables = |conn: &Connection| -> Vec<(String, i64)> {
        let names: Vec<String> = all(
            conn,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
            [],
            |r| r.get(0),
        );
        names
            .into_iter()
            .map(|t| {
                let n = count(conn, &format!("SELECT count(*) FROM \"{t}\""));
                (t, n)
            })
            .collect()
    };
    let mut converted = tables(&conn);
    assert!(converted.iter().any(|(_, n)| *n > 0));
    let before = seen_by_readers_of_21(&conn);
    let run_rows = |conn: &Connection| -> Vec<String> {
        all(
            conn,
            "SELECT run_id, line, input_id, status, company, found_by, error, candidates,
                    country_defaulted, extra_unreliable, named, amount
             FROM run_rows ORDER BY run_id, line",
            [],
            |r| {
                (0..12)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .map(|cells| cells.join("|"))
            },
        )
    };
    let rows_before = run_rows(&conn);
    assert!(rows_before.len() > 100);
    let run_companies = |conn: &Connection| -> Vec<String> {
        all(
            conn,
            "SELECT run_id || ' ' || company || ' ' || rating_id || ' '
                    || coalesce(previous_rating_id, '-') || ' ' || change
             FROM run_companies ORDER BY run_id, company",
            [],
            |r| r.get(0),
        )
    };
    let companies_before = run_companies(&conn);
    assert!(companies_before.iter().any(|c| c.ends_with(" unchanged")));
    // A step may pass through its own version's form of a table (0024 makes
    // run_deliveries as version 24 had it, 0026 as 33's): the chain ends at the file.
    for version in migrate::CONVERSION_VERSION + 1..=SCHEMA_VERSION {
        let name = run(&mut conn, version);
        if version == 34 {
            // The rows of runs become stretches, laid out again by the view; the companies
            // of runs shown as they were.
            assert_eq!(run_rows(&conn), rows_before, "step {version:04}_{name}");
            assert_eq!(
                run_companies(&conn),
                companies_before,
                "step {version:04}_{name}"
            );
            let spans = count(&conn, "SELECT count(*) FROM run_row_spans");
            assert!(spans < rows_before.len() as i64 / 2, "{spans} stretches");
            converted = tables(&conn);
        }
        assert_eq!(
            tables(&conn),
            converted,
            "step {version:04}_{name} keeps every row"
        );
        assert_eq!(
            seen_by_readers_of_21(&conn),
            before,
            "step {version:04}_{name}"
        );
    }
    assert_eq!(
        schema_of(&conn),
        schema_file(),
        "the steps after the conversion, on a database that already has the schema file"
    );
}

/// A database of version 21 with a history: six demo nights, decisions, an
/// acknowledgement (tests/fixtures/v21.sql).
fn database_of_21(path: &std::path::Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(include_str!("../../tests/fixtures/v21.sql"))
        .unwrap();
    conn
}

/// The views of version 21 and their columns: after the upgrade, the same views give the
/// same rows on those columns.
const VIEWS_OF_21: &[(&str, &str)] = &[
    (
        "run_results",
        "run_id, line, ref, country, service, external_id, name, status, company_id,
         company_name, color, previous_color, change, last_change_date, alert, error,
         candidates, last_refresh_date, extra, alert_kind, alert_listed, alert_acked",
    ),
    (
        "latest_ratings",
        "company_id, name, country, color, last_change_date, confirmed_at",
    ),
    (
        "color_periods",
        "company_id, name, country, color, valid_from, valid_to, observed_at, confirmed_at,
         first_run_id, last_run_id",
    ),
    (
        "color_changes",
        "company_id, name, from_color, to_color, changed_at, observed_at, run_id",
    ),
    (
        "portfolio_latest",
        "portfolio, ref, line, status, company_id, company_name, color, last_change_date,
         run_id, started_at, finished_at",
    ),
    ("company_external_ids", "company, service, external_id"),
];

/// Each row of `sql`, its cells joined, sorted.
fn rows_of(conn: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    let mut rows: Vec<String> = stmt
        .query_map([], |r| {
            (0..n)
                .map(|i| Ok(format!("{:?}", r.get::<_, rusqlite::types::Value>(i)?)))
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(|cells| cells.join("|"))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.sort();
    rows
}

/// What a reader of version 21 could see, and the ids everything is known by.
fn seen_by_readers_of_21(conn: &Connection) -> Vec<(String, Vec<String>)> {
    let mut seen: Vec<(String, Vec<String>)> = VIEWS_OF_21
        .iter()
        .map(|(view, columns)| {
            let rows = rows_of(conn, &format!("SELECT {columns} FROM {view}"));
            assert!(!rows.is_empty(), "{view} has rows to compare");
            (view.to_string(), rows)
        })
        .collect();
    for sql in [
        "SELECT id, portfolio, status, started_at, finished_at, delivered_at, calls FROM runs",
        "SELECT id, company, color FROM ratings",
        "SELECT id, ref, country, service, external_id, name, extra FROM inputs",
        "SELECT ref, search_key, decision, company_id FROM decisions",
        "SELECT company, color, acked_at, note FROM acks",
        "SELECT run_id, company, kind, listed, acked, previous_color FROM run_alerts",
        "SELECT run_id, line, named, found_by, country_defaulted FROM run_rows",
    ] {
        seen.push((sql.to_string(), rows_of(conn, sql)));
    }
    seen
}

#[test]
fn a_database_of_version_21_converts_in_place_keeping_every_view_row_and_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v21.db");
    let before = seen_by_readers_of_21(&database_of_21(&path));
    let searches = rows_of(
        &database_of_21(&dir.path().join("again.db")),
        "SELECT input_key, outcome, company FROM resolutions",
    );
    let store = Store::open(&path).unwrap();
    assert_eq!(seen_by_readers_of_21(&store.conn), before);
    assert_eq!(
        rows_of(
            &store.conn,
            "SELECT search_key, outcome, company FROM resolutions"
        ),
        searches
    );
    assert_eq!(schema_of(&store.conn), schema_file());
    // Each company's newest rating is named, as the trigger names it from now on.
    let misnamed: i64 = store
        .conn
        .query_row(
            "SELECT count(*) FROM companies c
             WHERE c.latest_rating IS NOT (SELECT max(id) FROM ratings WHERE company = c.id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(misnamed, 0);
    // The upgrade and the next screening go on from there.
    drop(store);
    let mut store = Store::open(&path).unwrap();
    run(&mut store);
}

#[test]
fn a_converted_database_is_about_the_size_of_a_new_one_holding_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let converted = dir.path().join("v21.db");
    drop(database_of_21(&converted));
    drop(Store::open(&converted).unwrap());
    Connection::open(&converted)
        .unwrap()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let fresh = dir.path().join("fresh.db");
    let store = Store::open(&fresh).unwrap();
    // Copied table by table, each row before the rows that name it or after. A table a
    // trigger fills as ratings are copied (`color_period_bounds`) takes the old rows over.
    store
        .conn
        .execute_batch("PRAGMA foreign_keys = OFF")
        .unwrap();
    store
        .conn
        .execute("ATTACH ?1 AS old", [converted.to_str().unwrap()])
        .unwrap();
    let tables: Vec<String> = all(
        &store.conn,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations'",
        [],
        |r| r.get(0),
    );
    for table in tables {
        store
            .conn
            .execute_batch(&format!(
                "INSERT OR REPLACE INTO main.{table} SELECT * FROM old.{table}"
            ))
            .unwrap();
    }
    store.conn.execute_batch("DETACH old").unwrap();
    store
        .conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    let (converted, fresh) = (size(&converted), size(&fresh));
    assert!(
        converted * 10 <= fresh * 11,
        "converted {converted} bytes, a new database holding the same {fresh}"
    );
}

#[test]
fn rebuilding_run_rows_and_decisions_for_new_statuses_keeps_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v4.db");
    let conn = Connection::open(&path).unwrap();
    for (v, _, sql) in &migrate::MIGRATIONS[..4] {
        conn.execute_batch(sql).unwrap();
        conn.pragma_update(None, "user_version", v).unwrap();
    }
    conn.execute_batch(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
         INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, status)
             VALUES (1, 'p', 'p.csv', 'x', '2026-01-01T00:00:00Z', 'complete');
         INSERT INTO inputs (id, digest, ref, country, name) VALUES (1, 'd1', 'C-1', 'FR', 'Acme'), (2, 'd2', 'C-2', 'FR', 'Beta');
         INSERT INTO run_rows (run_id, line, input_id, status, error, candidates)
             VALUES (1, 2, 1, 'ambiguous', NULL, '[]'), (1, 3, 2, 'unresolved', 'no company matches', NULL);
         INSERT INTO decisions (ref, search_key, decision, company_id, decided_at, source)
             VALUES ('C-2', 'k', 'ignore', NULL, '2026-01-02T00:00:00Z', 'command line');",
    )
    .unwrap();
    let snapshot = |conn: &Connection| -> Vec<String> {
        let mut rows = Vec::new();
        for sql in [
            "SELECT run_id, line, ref, status, error, candidates FROM run_results ORDER BY run_id, line",
            "SELECT ref, search_key, decision, decided_at, source FROM decisions",
        ] {
            let mut stmt = conn.prepare(sql).unwrap();
            let n = stmt.column_count();
            let mut q = stmt.query([]).unwrap();
            while let Some(r) = q.next().unwrap() {
                let cells: Vec<String> = (0..n)
                    .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap()))
                    .collect();
                rows.push(cells.join("|"));
            }
        }
        rows
    };
    let before = snapshot(&conn);
    assert_eq!(before.len(), 3);
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(snapshot(&store.conn), before);
    store
        .conn
        .execute_batch(
            "INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status)
                 VALUES ('p', 4, 1, 1, 1, 'ignored');
             INSERT INTO decisions (ref, search_key, decision, decided_at, source)
                 VALUES ('C-1', 'k', 'reject', '2026-01-02T00:00:00Z', 'command line');",
        )
        .expect("the new statuses are allowed");
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
    let (_dir, _, mut store) = new_store();
    let id = Uuid::new_v4();
    let day = |d: u8| format!("2026-11-{d:02}T02:00:00Z");
    // The rating of `id` changed, refreshed and requested on those days of November.
    let on =
        |color, changed, refreshed, at| rating(id, color, &day(changed), &day(refreshed), &day(at));

    let r1 = run_seeing(&mut store, on(Color::Green, 1, 1, 10)).await;
    let r2 = run_seeing(&mut store, on(Color::Green, 1, 1, 11)).await;
    assert_eq!(history_len(&store), 1, "an unchanged re-check adds no row");
    let confirmed: String = store
        .conn
        .query_row("SELECT confirmed_at FROM latest_ratings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(confirmed, day(11));

    let r3 = run_seeing(&mut store, on(Color::Green, 12, 12, 12)).await;
    let r4 = run_seeing(&mut store, on(Color::Red, 13, 13, 13)).await;
    let r5 = run_seeing(&mut store, on(Color::Red, 13, 14, 14)).await;
    assert_eq!(
        history_len(&store),
        3,
        "a new color or change date: a row; a refresh date alone: none"
    );
    let refreshes: Vec<(String, i64)> = all(
        &store.conn,
        "SELECT last_refresh_date, run_id FROM rating_refreshes",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(refreshes, [(day(14), r5)], "the refresh date, noted");

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

    let view: Vec<(String, String, i64)> = all(
        &store.conn,
        "SELECT from_color, to_color, run_id FROM color_changes",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    assert_eq!(view, vec![("green".into(), "red".into(), r4)]);
    let latest: (String, String, String) = store
        .conn
        .query_row(
            "SELECT color, confirmed_at, last_refresh_date FROM latest_ratings",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(latest, ("red".into(), day(14), day(14)));

    store
        .finish_run(
            r4,
            RunStatus::Complete,
            &[("rating".into(), 1)],
            &[],
            &Rules::default(),
        )
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
    let (_dir, _, mut store) = new_store();
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
    // A second observation in the same run is refused loudly, when it is written at the
    // latest, and not added to the history.
    let second = resumed
        .send(Record::Observation(red))
        .and_then(|()| resumed.finish());
    assert!(second.is_err(), "{second:?}");
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
fn outcomes_and_confirmations_written_many_to_a_statement_are_all_kept_in_order_with_registry_ids()
{
    // 70 companies: two whole statements of 32 and a remainder the commit writes.
    let (_dir, _, mut store) = new_store();
    let r1 = run(&mut store);
    let mut w = store.writer(r1).unwrap();
    for n in 1..=70u128 {
        let company = crate::model::Company {
            id: Uuid::from_u128(n),
            name: format!("Company {n}"),
            address: crate::model::Address::default(),
            phone: None,
            legal_form: "SA".into(),
            external_ids: vec![
                ("siren".into(), format!("{n:09}")),
                ("vat".into(), format!("FR{n}")),
            ],
        };
        w.send(Record::Company(Box::new(company))).unwrap();
        observe_green(&mut w, n);
    }
    // Found again, a company keeps the ids it had and gains the new one.
    let again = crate::model::Company {
        id: Uuid::from_u128(1),
        name: "Company 1".into(),
        address: crate::model::Address::default(),
        phone: None,
        legal_form: "SA".into(),
        external_ids: vec![
            ("lei".into(), "969500ABC".into()),
            ("siren".into(), "000000001".into()),
        ],
    };
    w.send(Record::Company(Box::new(again))).unwrap();
    w.finish().unwrap();
    let ids: Vec<(String, String)> = all(
        &store.conn,
        "SELECT service, external_id FROM company_external_ids e
             JOIN companies c ON c.id = e.company WHERE c.name = 'Company 1'
             ORDER BY service",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        ids,
        [("lei", "969500ABC"), ("siren", "000000001"), ("vat", "FR1")]
            .map(|(s, i)| (s.to_string(), i.to_string()))
    );
    assert_eq!(
        count(
            &store.conn,
            "SELECT count(*) FROM company_external_ids WHERE service = 'siren'"
        ),
        70
    );
    assert_eq!(
        count(
            &store.conn,
            "SELECT count(*) FROM company_external_ids WHERE service = 'vat'"
        ),
        70
    );
    assert_eq!(
        count(
            &store.conn,
            &format!("SELECT count(*) FROM run_companies WHERE run_id = {r1} AND change = 'new'")
        ),
        70
    );
    // Each outcome names its company's own rating.
    assert_eq!(
        count(
            &store.conn,
            "SELECT count(*) FROM run_companies rc JOIN ratings r ON r.id = rc.rating_id WHERE r.company <> rc.company"
        ),
        0
    );

    // The next night confirms them all; a question about a row reads this run's
    // confirmations though they have not been written yet.
    let r2 = run(&mut store);
    let mut w = store.writer(r2).unwrap();
    for n in 1..=70u128 {
        observe_green(&mut w, n);
    }
    assert_eq!(
        w.last_checked(None, Some(Uuid::from_u128(70))).unwrap(),
        Some(r2)
    );
    // And a company the night has not rated yet was last checked by the first.
    observe_green(&mut w, 71);
    w.finish().unwrap();
    assert_eq!(history_len(&store), 71);
    assert_eq!(
        count(
            &store.conn,
            &format!("SELECT count(*) FROM rating_confirmations WHERE last_run_id = {r2}")
        ),
        70
    );
    assert_eq!(
        count(
            &store.conn,
            &format!(
                "SELECT count(*) FROM run_companies WHERE run_id = {r2} AND change = 'unchanged' AND rating_id = previous_rating_id"
            )
        ),
        70
    );
    assert_eq!(
        count(
            &store.conn,
            &format!("SELECT count(*) FROM run_companies WHERE run_id = {r2} AND change = 'new'")
        ),
        1
    );
}

#[test]
fn lookups_are_kept_between_runs() {
    let (_dir, _, mut store) = new_store();
    let countries = vec![Country {
        code: "FR".into(),
        name: "France".into(),
    }];
    let services = vec![IdentifierService {
        country: "FR".into(),
        code: "SIREN".into(),
        label: "x".into(),
    }];
    store.save_lookups(&countries, &services).unwrap();
    store.save_lookups(&countries, &services).unwrap();
    assert_eq!(store.load_lookups().unwrap(), (countries, services));
}

/// Sends a green rating of company `n`, with the same dates every time.
fn observe_green(writer: &mut Writer, n: u128) {
    writer
        .send(Record::Observation(rating(
            Uuid::from_u128(n),
            Color::Green,
            "2026-01-01T00:00:00Z",
            "2026-01-02T00:00:00Z",
            "2026-01-03T00:00:00Z",
        )))
        .unwrap();
}

#[test]
fn the_log_is_copied_into_the_database_while_the_writer_works() {
    let (_dir, path, mut store) = new_store();
    let run_id = run(&mut store);
    let main_file = || std::fs::metadata(&path).unwrap().len();
    let before = main_file();
    // Every second rather than every ten: the test waits for the first copy, which comes
    // after the commit below.
    store.checkpoint_every = std::time::Duration::from_secs(1);
    let mut writer = store.writer(run_id).unwrap();
    writer.max_transaction = std::time::Duration::ZERO;
    for n in 1..=2_000 {
        observe_green(&mut writer, n);
    }
    // Committed (the transaction is old enough) but still only in the log: the writer's
    // own checkpoints are off.
    writer.tick().unwrap();
    assert_eq!(main_file(), before, "the writer does not checkpoint itself");
    // It does so within moments; two minutes only tells a thread that never does from a
    // loaded machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while main_file() == before {
        assert!(
            std::time::Instant::now() < deadline,
            "still waiting after two minutes for the checkpoint thread to copy the log"
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

// ----- reading the history -----------------------------------------------------------

/// One observation of a company by a run: color, the service's lastChangeDate and
/// lastRefreshDate, and when it was requested.
struct Seen {
    company: Uuid,
    color: Color,
    changed: Option<&'static str>,
    refreshed: &'static str,
    at: &'static str,
}

fn seen(
    company: Uuid,
    color: Color,
    changed: Option<&'static str>,
    refreshed: &'static str,
    at: &'static str,
) -> Seen {
    Seen {
        company,
        color,
        changed,
        refreshed,
        at,
    }
}

/// A finished run of portfolio `p` that saw these ratings, each company held by a row
/// whose reference is given (`""`: a row without one).
fn screened(store: &mut Store, portfolio: &str, seen: &[(&str, Seen)]) -> i64 {
    screened_as(store, portfolio, seen, RunStatus::Complete)
}

/// The same, ended with `status`.
fn screened_as(
    store: &mut Store,
    portfolio: &str,
    seen: &[(&str, Seen)],
    status: RunStatus,
) -> i64 {
    let run_id = run_of(store, portfolio);
    // The run starts, and observes each rating, at the time given (by the store's clock).
    if let Some((_, first)) = seen.first() {
        store
            .conn
            .execute(
                "UPDATE runs SET started_at = ?2 WHERE id = ?1",
                params![run_id, time_text(ts(first.at))],
            )
            .unwrap();
    }
    let mut writer = store.writer(run_id).unwrap();
    let mut observed = Vec::new();
    for (line, (reference, s)) in seen.iter().enumerate() {
        // A company held by several rows is rated once per run.
        if !observed.contains(&s.company) {
            observed.push(s.company);
            store.pin_clock(Some(ts(s.at)));
            writer
                .send(Record::Observation(Rating {
                    company_id: s.company,
                    color: s.color.clone(),
                    requested_at: Some(ts(s.at)),
                    last_refresh: Some(ts(s.refreshed)),
                    last_change: s.changed.map(ts),
                }))
                .unwrap();
            store.pin_clock(None);
        }
        writer
            .send(rated(line as u64 + 2, reference, s.company))
            .unwrap();
    }
    writer.finish().unwrap();
    store
        .finish_run(run_id, status, &[], &[], &Rules::default())
        .unwrap();
    // It ends at its last sighting, as it started at its first.
    if let Some((_, last)) = seen.last() {
        store
            .conn
            .execute(
                "UPDATE runs SET finished_at = ?2 WHERE id = ?1",
                params![run_id, time_text(ts(last.at))],
            )
            .unwrap();
    }
    // Its summary and reports out, as a run's are once it has written them.
    store.mark_delivered(run_id).unwrap();
    run_id
}

fn uuid(n: u8) -> Uuid {
    Uuid::from_bytes([n; 16])
}

/// A history with every case the periods must get right: refreshes and evolutions that
/// keep a color, a change dated inside the gap between two sightings, one dated before
/// the last sighting of the old color, one dated after it was seen, and no date at all.
fn eventful_history(store: &mut Store) {
    use Color::*;
    let (a, b, c) = (uuid(0xa), uuid(0xb), uuid(0xc));
    let at =
        |d: u8| -> &'static str { Box::leak(format!("2026-01-{d:02}T02:00:00Z").into_boxed_str()) };
    screened(
        store,
        "p",
        &[
            (
                "A",
                seen(a, Green, Some("2025-12-01T00:00:00Z"), at(1), at(1)),
            ),
            ("B", seen(b, White, None, at(1), at(1))),
            (
                "C",
                seen(c, Yellow, Some("2025-12-24T00:00:00Z"), at(1), at(1)),
            ),
        ],
    );
    screened(
        store,
        "p",
        &[
            (
                "A",
                seen(a, Green, Some("2025-12-01T00:00:00Z"), at(1), at(2)),
            ),
            ("B", seen(b, White, None, at(1), at(2))),
        ],
    );
    // A: a refresh only (new row, same color); B: green, dated after it was seen.
    screened(
        store,
        "p",
        &[
            (
                "A",
                seen(a, Green, Some("2025-12-01T00:00:00Z"), at(3), at(3)),
            ),
            (
                "B",
                seen(b, Green, Some("2026-01-10T00:00:00Z"), at(3), at(3)),
            ),
        ],
    );
    // A: red, dated between the last green (3rd) and this sighting.
    screened(
        store,
        "p",
        &[(
            "A",
            seen(a, Red, Some("2026-01-03T12:00:00Z"), at(4), at(4)),
        )],
    );
    // A: red evolved (lastChangeDate moved), then yellow dated before the last red.
    screened(
        store,
        "p",
        &[(
            "A",
            seen(a, Red, Some("2026-01-05T01:00:00Z"), at(5), at(5)),
        )],
    );
    screened(
        store,
        "p",
        &[
            (
                "A",
                seen(a, Yellow, Some("2026-01-02T00:00:00Z"), at(6), at(6)),
            ),
            (
                "B",
                seen(b, Green, Some("2026-01-10T00:00:00Z"), at(3), at(6)),
            ),
        ],
    );
}

type Period = (String, String, String, Option<String>, String, String);

/// The periods of every company as the view gives them.
fn view_periods(store: &Store) -> Vec<Period> {
    all(
        &store.conn,
        "SELECT company_id, color, valid_from, valid_to, observed_at, confirmed_at
             FROM color_periods ORDER BY company_id, valid_from",
        [],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        },
    )
}

/// `ratings` of database `db`, each rating with when it was last confirmed and by which run.
fn ratings_as_text(db: &str) -> String {
    format!(
        "SELECT r.id AS id, r.company AS company, r.color AS color,
                r.last_change_date AS last_change_date, r.last_refresh_date AS last_refresh_date,
                r.observed_at AS observed_at, coalesce(f.confirmed_at, r.observed_at) AS confirmed_at,
                r.first_run_id AS first_run_id,
                CASE WHEN f.rating IS NULL THEN r.first_run_id ELSE f.last_run_id END
                  AS last_run_id,
                r.source AS source
         FROM {db}.ratings r LEFT JOIN {db}.rating_confirmations f ON f.rating = r.id"
    )
}

/// `companies` of database `db`.
fn companies_as_text(db: &str) -> String {
    format!(
        "SELECT id, company_id, name, country, street_number, street_name, postcode, city,
                phone, legal_form, first_seen_at, updated_at
         FROM {db}.companies"
    )
}

/// The same periods worked out from the raw history, by the rule the migration states:
/// runs of one color; from the service's date kept between the last sighting of the old
/// color and the first of the new; to the next period's start.
fn periods_from_history(store: &Store) -> Vec<Period> {
    let rows: Vec<(String, String, Option<String>, String, String)> = all(
        &store.conn,
        &format!(
            "SELECT c.company_id, r.color, r.last_change_date, r.observed_at, r.confirmed_at
             FROM ({}) r JOIN ({}) c ON c.id = r.company
             ORDER BY c.company_id, r.id",
            ratings_as_text("main"),
            companies_as_text("main")
        ),
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    );
    let mut periods: Vec<Period> = Vec::new();
    let mut last_confirmed: Option<String> = None;
    for (i, (company, color, changed, observed, confirmed)) in rows.iter().enumerate() {
        let same_company = i > 0 && rows[i - 1].0 == *company;
        if same_company && rows[i - 1].1 == *color {
            periods.last_mut().unwrap().5 = confirmed.clone();
            last_confirmed = Some(confirmed.clone());
            continue;
        }
        let since = changed
            .clone()
            .unwrap_or(observed.clone())
            .min(observed.clone());
        let from = match (&last_confirmed, same_company) {
            (Some(seen), true) => since.max(seen.clone()),
            _ => since,
        };
        if same_company {
            periods.last_mut().unwrap().3 = Some(from.clone());
        }
        periods.push((
            company.clone(),
            color.clone(),
            from,
            None,
            observed.clone(),
            confirmed.clone(),
        ));
        last_confirmed = Some(confirmed.clone());
    }
    periods
}

#[test]
fn color_periods_follow_the_rule_the_migration_states() {
    let (_dir, _, mut store) = new_store();
    eventful_history(&mut store);
    let view = view_periods(&store);
    assert_eq!(view, periods_from_history(&store));

    let a = uuid(0xa).to_string();
    let of = |id: &str| -> Vec<(String, String, Option<String>)> {
        view.iter()
            .filter(|p| p.0 == id)
            .map(|p| (p.1.clone(), p.2.clone(), p.3.clone()))
            .collect()
    };
    let t = |s: &str| s.to_string();
    assert_eq!(
        of(&a),
        vec![
            // Known back to the service's date, before ratewatch first looked.
            (
                t("green"),
                t("2025-12-01T00:00:00Z"),
                Some(t("2026-01-03T12:00:00Z"))
            ),
            // Dated inside the gap: the service's date.
            (
                t("red"),
                t("2026-01-03T12:00:00Z"),
                Some(t("2026-01-05T02:00:00Z"))
            ),
            // Dated before red was last seen: red was seen then, so yellow starts after.
            (t("yellow"), t("2026-01-05T02:00:00Z"), None),
        ]
    );
    assert_eq!(
        of(&uuid(0xb).to_string()),
        vec![
            // No date from the service: when it was seen.
            (
                t("white"),
                t("2026-01-01T02:00:00Z"),
                Some(t("2026-01-03T02:00:00Z"))
            ),
            // Dated after it was seen: when it was seen.
            (t("green"), t("2026-01-03T02:00:00Z"), None),
        ]
    );
    let confirmed: String = store
        .conn
        .query_row(
            "SELECT confirmed_at FROM color_periods WHERE company_id = ?1 AND color = 'green'",
            [&a],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        confirmed, "2026-01-03T02:00:00Z",
        "the refresh row's sighting"
    );

    // At most one color per company at any instant, and the one the timeline says.
    let on = |at: &str| -> Vec<(String, String)> {
        all(
            &store.conn,
            "SELECT company_id, color FROM color_periods
                 WHERE valid_from <= ?1 AND (valid_to IS NULL OR valid_to > ?1)
                 ORDER BY company_id",
            [at],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    };
    let (b, c) = (uuid(0xb).to_string(), uuid(0xc).to_string());
    assert_eq!(
        on("2025-11-30T00:00:00Z"),
        vec![],
        "before anything was known"
    );
    assert_eq!(
        on("2026-01-01T00:00:00Z"),
        vec![(a.clone(), t("green")), (c.clone(), t("yellow"))]
    );
    assert_eq!(
        on("2026-01-05T01:30:00Z"),
        vec![
            (a.clone(), t("red")),
            (b.clone(), t("green")),
            (c.clone(), t("yellow"))
        ]
    );
    assert_eq!(on("2026-01-05T02:00:00Z")[0], (a, t("yellow")));
}

#[test]
fn a_history_from_runs_and_syncs_gives_the_periods_the_rule_states() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let (a, b, c) = (uuid(0xa), uuid(0xb), uuid(0xc));
    let at =
        |d: u8| -> &'static str { Box::leak(format!("2026-01-{d:02}T02:00:00Z").into_boxed_str()) };
    let dec = "2025-12-01T00:00:00Z";
    screened(
        &mut store,
        "p",
        &[
            ("A", seen(a, Green, Some(dec), at(1), at(1))),
            ("B", seen(b, White, None, at(1), at(1))),
        ],
    );
    let ours = |store: &Store| -> Vec<(i64, String, String)> {
        all(
            &store.conn,
            &format!(
                "SELECT id, observed_at, confirmed_at FROM ({}) WHERE source = 'run' ORDER BY id",
                ratings_as_text("main")
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    };
    let runs_rows = ours(&store);
    // Newest first, as the service lists them; the run's own request among them.
    let synced = store
        .record_account_history(&[
            rating(a, Red, "2026-01-03T12:00:00Z", at(4), at(4)),
            rating(c, Yellow, "2025-12-24T00:00:00Z", at(3), at(3)),
            rating(b, Green, "2026-01-10T00:00:00Z", at(3), at(3)),
            rating(c, Yellow, "2025-12-24T00:00:00Z", at(2), at(2)),
            rating(a, Green, dec, at(1), at(2)),
            rating(a, Green, dec, at(1), at(1)),
        ])
        .unwrap();
    // A green on the 2nd repeats the run's sighting of the 1st within a day: known too (a
    // run dates its sightings by this machine's clock, the service by its own).
    assert_eq!(
        synced,
        AccountSync {
            added: 4,
            new_observations: 4,
            known: 2,
            new_companies: 1,
            ..AccountSync::default()
        }
    );
    assert_eq!(ours(&store), runs_rows, "a run's rows are never changed");
    // The next run compares with what the sync added.
    screened(
        &mut store,
        "p",
        &[
            (
                "A",
                seen(a, Yellow, Some("2026-01-02T00:00:00Z"), at(6), at(6)),
            ),
            (
                "B",
                seen(b, Green, Some("2026-01-10T00:00:00Z"), at(3), at(6)),
            ),
        ],
    );
    let again = store
        .record_account_history(&[
            rating(a, Black, "2026-01-07T00:00:00Z", at(7), at(7)),
            rating(c, Yellow, "2025-12-24T00:00:00Z", at(3), at(8)),
            rating(a, Red, "2026-01-03T12:00:00Z", at(4), at(5)),
            rating(a, Red, "2026-01-03T12:00:00Z", at(4), at(4)),
        ])
        .unwrap();
    assert_eq!(
        again,
        AccountSync {
            added: 2,
            new_observations: 1,
            synced_before: 1,
            earlier: 1,
            ..AccountSync::default()
        },
        "A red on the 5th is older than the run's yellow: kept aside; C seen again: confirmed"
    );
    let view = view_periods(&store);
    assert_eq!(view, periods_from_history(&store));
    let colors = |id: Uuid| -> Vec<String> {
        view.iter()
            .filter(|p| p.0 == id.to_string())
            .map(|p| p.1.clone())
            .collect()
    };
    assert_eq!(colors(a), ["green", "red", "yellow", "black"]);
    assert_eq!(colors(b), ["white", "green"]);
    assert_eq!(colors(c), ["yellow"]);
    let changes: Vec<(String, String, Option<i64>)> = all(
        &store.conn,
        "SELECT from_color, to_color, run_id FROM color_changes WHERE company_id = ?1 ORDER BY observed_at",
        [a.to_string()],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    let t = |s: &str| s.to_string();
    assert_eq!(
        changes,
        vec![
            (t("green"), t("red"), None),
            (t("red"), t("yellow"), Some(2)),
            (t("yellow"), t("black"), None),
        ]
    );
    let latest: (String, String) = store
        .conn
        .query_row(
            "SELECT color, confirmed_at FROM latest_ratings WHERE company_id = ?1",
            [c.to_string()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        latest,
        (t("yellow"), t(at(8))),
        "seen again unchanged: confirmed"
    );
}

#[test]
fn color_changes_gives_the_rows_it_gave_before_0002() {
    let (_dir, _, mut store) = new_store();
    eventful_history(&mut store);
    let first = migrate::MIGRATIONS[0].2;
    let old = &first[first.find("CREATE VIEW color_changes AS").unwrap()..];
    // The view of 0001 read the tables as they were then: times and UUIDs as text.
    store
        .conn
        .execute_batch(&format!(
            "CREATE TEMP VIEW ratings_as_text AS {};
             CREATE TEMP VIEW companies_as_text AS {};",
            ratings_as_text("main"),
            companies_as_text("main")
        ))
        .unwrap();
    store
        .conn
        .execute_batch(
            &old.replace(
                "CREATE VIEW color_changes AS",
                "CREATE TEMP VIEW color_changes_0001 AS",
            )
            .replace("FROM ratings ", "FROM ratings_as_text ")
            .replace("JOIN companies ", "JOIN companies_as_text "),
        )
        .unwrap();
    let rows = |view: &str| -> Vec<Vec<String>> {
        all(
            &store.conn,
            &format!(
                "SELECT company_id, name, from_color, to_color, changed_at, observed_at, run_id
                 FROM {view} ORDER BY company_id, observed_at"
            ),
            [],
            |r| {
                (0..7)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect()
            },
        )
    };
    let now = rows("main.color_changes");
    assert_eq!(now, rows("temp.color_changes_0001"));
    assert_eq!(
        now.len(),
        3,
        "A: green → red → yellow, B: white → green: {now:?}"
    );
}

/// The query plan's lines.
/// How SQLite runs `sql` in the store, a line per step.
pub(crate) fn plan(store: &Store, sql: &str) -> Vec<String> {
    let mut stmt = store
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap();
    let params = vec!["x"; stmt.parameter_count()];
    stmt.query_map(rusqlite::params_from_iter(params), |r| {
        r.get::<_, String>(3)
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Full scans in a plan, but for those of the small tables (runs) and of what the query
/// builds itself (a constant row: the views' next-start choice between two places; `cc`:
/// the changes' two branches, read once as they come).
fn full_scans(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("SCAN"))
        .filter(|l| {
            ![
                "SCAN runs",
                "SCAN h",
                "SCAN json_each",
                "SCAN CONSTANT ROW",
                "SCAN cc",
                "SCAN (subquery",
            ]
            .iter()
            .any(|ok| l.starts_with(ok))
        })
        .collect()
}

#[test]
fn a_finished_run_counts_its_rows_by_status_and_each_color_met_as_its_results_do() {
    let (_dir, _path, mut store) = new_store();
    let run_id = run(&mut store);
    let mut writer = store.writer(run_id).unwrap();
    let at = "2026-01-01T02:00:00Z";
    // A color the spec does not list is counted as one of its own, as the report does.
    let colors = [Color::Green, Color::parse("Purple"), Color::Green];
    for (n, color) in colors.into_iter().enumerate() {
        let company = uuid(n as u8 + 1);
        writer
            .send(Record::Observation(rating(company, color, at, at, at)))
            .unwrap();
        writer.send(rated(n as u64 + 2, "", company)).unwrap();
    }
    // The third company held by a second row; two rows not rated.
    writer.send(rated(5, "", uuid(3))).unwrap();
    for (line, status) in [(6, RowStatus::Unresolved), (7, RowStatus::Failed)] {
        let mut row = RowRecord {
            status,
            ..RowRecord::default()
        };
        row.input.line = line;
        row.input.country = Some("FR".into());
        writer.send(Record::Row(Box::new(row))).unwrap();
    }
    writer.finish().unwrap();
    store
        .finish_run(run_id, RunStatus::Partial, &[], &[], &Rules::default())
        .unwrap();

    let counts: (i64, i64, i64, i64, i64) = store
        .conn
        .query_row(
            "SELECT rows_total, rows_rated, rows_unresolved, rows_failed, rows_ambiguous
             FROM runs WHERE id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    assert_eq!(counts, (6, 4, 1, 1, 0));
    let kept: Vec<(String, i64, i64, Option<f64>)> = all(
        &store.conn,
        "SELECT color, rows, new_rows, amount FROM run_colors WHERE run_id = ?1 ORDER BY color",
        [run_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    );
    assert_eq!(
        kept,
        [("green".into(), 3, 0, None), ("purple".into(), 1, 0, None)]
    );
    let from_results: Vec<(String, i64)> = all(
        &store.conn,
        "SELECT color, count(*) FROM run_results
         WHERE run_id = ?1 AND status = 'rated' GROUP BY color ORDER BY color",
        [run_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(from_results, [("green".into(), 3), ("purple".into(), 1)]);
    assert_eq!(
        store.rows_by_status(run_id).unwrap(),
        RowStatus::ALL.map(|s| (
            s,
            match s {
                RowStatus::Rated => 4,
                RowStatus::Unresolved | RowStatus::Failed => 1,
                _ => 0,
            }
        ))
    );
}

#[test]
fn a_run_s_alert_lines_read_each_first_row_by_its_key() {
    let (_dir, _, store) = new_store();
    let lines = plan(
        &store,
        &alert_log::alert_lines_sql("run_alerts", "a.listed = 1", 10),
    );
    assert_eq!(full_scans(&lines), Vec::<&String>::new(), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("SEARCH s USING PRIMARY KEY (portfolio=? AND line=?")),
        "{lines:#?}"
    );
}

#[test]
fn a_run_s_alerts_are_decided_through_its_rows_and_indexes_alone() {
    let (_dir, _, store) = new_store();
    let lines = plan(&store, &alert_log::candidates());
    assert!(
        lines
            .iter()
            .any(|l| l.contains("SEARCH s USING PRIMARY KEY (portfolio=?)")),
        "{lines:#?}"
    );
    // What people were last told is found through the runs before this one, newest
    // first, each asked for the company by its primary key.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("SEARCH u USING INTEGER PRIMARY KEY (rowid<?)")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("SEARCH x USING PRIMARY KEY (run_id=? AND company=?)")),
        "{lines:#?}"
    );
    assert_eq!(full_scans(&lines), Vec::<&String>::new(), "{lines:#?}");
}

#[test]
fn the_history_is_read_through_indexes_and_a_reference_in_one_scan() {
    let (_dir, _, store) = new_store();

    // A company's periods: its rows of `color_period_bounds` by their index, each one's
    // first and last rating by key.
    let one = plan(&store, timeline::PERIODS);
    assert_eq!(full_scans(&one), Vec::<&String>::new(), "{one:#?}");
    assert!(
        one.iter()
            .any(|l| l.contains("SEARCH b USING INDEX color_period_bounds_by_company (company=?)")),
        "{one:#?}"
    );

    // Every company on a date: one pass over the periods, never over the ratings.
    let all = plan(
        &store,
        "SELECT * FROM color_periods WHERE valid_from <= ?1 AND (valid_to IS NULL OR valid_to > ?1)",
    );
    let scans = full_scans(&all);
    assert_eq!(scans.len(), 1, "{all:#?}");
    assert!(scans[0].contains("SCAN b"), "{all:#?}");
    // The changes of a window: the ratings seen in it, by when they were seen.
    let changes = plan(&store, timeline::CHANGES);
    assert_eq!(full_scans(&changes), Vec::<&String>::new(), "{changes:#?}");
    assert!(
        changes
            .iter()
            .any(|l| l.contains("SEARCH r USING INDEX ratings_by_observed_at (observed_at>?)")),
        "{changes:#?}"
    );

    for sql in [timeline::BY_REF, timeline::HOLDINGS] {
        let lines = plan(&store, sql);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("SEARCH s USING PRIMARY KEY (portfolio=?)")),
            "{lines:#?}"
        );
    }
    assert_eq!(
        full_scans(&plan(&store, timeline::HOLDINGS)),
        Vec::<&String>::new()
    );
    // A reference is found through the inputs' index, whose first field it is, and only
    // in the rows of the runs that hold it.
    let by_ref = plan(&store, timeline::BY_REF);
    assert_eq!(full_scans(&by_ref), Vec::<&String>::new(), "{by_ref:#?}");
    assert!(
        by_ref
            .iter()
            .any(|l| l.contains("SEARCH inputs USING COVERING INDEX inputs_by_fields (ref=?)")),
        "{by_ref:#?}"
    );
}

#[test]
fn references_and_holdings_come_from_each_portfolios_latest_finished_run() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let (a, b) = (uuid(1), uuid(2));
    let day = "2026-01-01T00:00:00Z";
    screened(
        &mut store,
        "customers",
        &[("C-1", seen(a, Green, Some(day), day, day))],
    );
    screened(
        &mut store,
        "customers",
        &[("C-2", seen(b, Red, Some(day), day, day))],
    );
    screened(
        &mut store,
        "suppliers",
        &[("S-1", seen(b, Red, Some(day), day, day))],
    );
    // A run still going: its rows count for nothing yet.
    let running = store
        .start_run(&NewRun {
            portfolio: "customers".into(),
            input_path: "customers.csv".into(),
            sha256: "y".into(),
            demo_day: None,
            extra_columns: vec![],
            amount_column: None,
        })
        .unwrap();
    let mut w = store.writer(running).unwrap();
    w.send(Record::Row(Box::new(RowRecord {
        input: crate::model::InputRow {
            line: 2,
            reference: Some("C-1".into()),
            ..Default::default()
        },
        status: RowStatus::Failed,
        error: Some("timeout".into()),
        ..RowRecord::default()
    })))
    .unwrap();
    w.finish().unwrap();

    let ro = Store::open_read_only(store.path()).unwrap();
    assert_eq!(
        ro.companies_by_ref("C-1").unwrap(),
        vec![],
        "C-1 left customers"
    );
    let by_ref = ro.companies_by_ref("C-2").unwrap();
    assert_eq!(by_ref.len(), 1);
    assert_eq!(by_ref[0].company_id, b.to_string());
    let held = ro.holdings(&[&b.to_string(), &a.to_string()]).unwrap();
    assert_eq!(held.get(&a.to_string()), None);
    let portfolios: Vec<(&str, Option<&str>)> = held[&b.to_string()]
        .iter()
        .map(|h| (h.portfolio.as_str(), h.reference.as_deref()))
        .collect();
    assert_eq!(
        portfolios,
        [("customers", Some("C-2")), ("suppliers", Some("S-1"))]
    );

    let runs = ro.recent_runs(10).unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), [4, 3, 2, 1]);
    assert_eq!(
        (runs[0].status.as_str(), runs[0].rows),
        ("running", 1),
        "counted so far"
    );
    assert_eq!(runs[0].by_status[4], (RowStatus::Failed, 1));
    assert_eq!(runs[1].by_status[0], (RowStatus::Rated, 1));
    assert_eq!(ro.recent_runs(2).unwrap().len(), 2);
}

#[test]
fn a_read_only_store_never_creates_upgrades_or_writes_and_never_waits_for_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    assert!(matches!(
        Store::open_read_only(&missing),
        Err(StoreError::Missing)
    ));
    assert!(!missing.exists(), "not created");
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(
        Store::open_read_only(&empty),
        Err(StoreError::Empty)
    ));
    assert_eq!(std::fs::read(&empty).unwrap(), b"", "left empty");

    // A database of the first schema: refused until a writing command upgrades it.
    let old = dir.path().join("v1.db");
    {
        let conn = Connection::open(&old).unwrap();
        let (v, name, sql) = migrate::MIGRATIONS[0];
        conn.execute_batch(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);",
        )
        .unwrap();
        conn.execute_batch(sql).unwrap();
        conn.execute(
            "INSERT INTO schema_migrations VALUES (?1, ?2, 'x')",
            params![v, name],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", v).unwrap();
    }
    let before = std::fs::read(&old).unwrap();
    match Store::open_read_only(&old) {
        Err(
            e @ StoreError::Older {
                found: 1,
                needed: SCHEMA_VERSION,
            },
        ) => {
            assert!(e.to_string().contains("ratewatch screen"), "{e}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert_eq!(std::fs::read(&old).unwrap(), before, "not upgraded");

    // A run writing, its batch not yet committed: the reader sees what was committed and
    // does not wait.
    let path = dir.path().join("busy.db");
    let mut store = Store::open(&path).unwrap();
    let r1 = run(&mut store);
    let mut writer = store.writer(r1).unwrap();
    writer
        .send(Record::Observation(rating(
            uuid(7),
            Color::Red,
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            "2026-01-02T00:00:00Z",
        )))
        .unwrap();
    // A reader that waited for the batch would wait out its busy timeout and fail: the
    // writer holds the batch until it finishes, below.
    let mut ro = Store::open_read_only(&path).unwrap();
    assert_eq!(ro.recent_runs(5).unwrap()[0].status, RunStatus::Running);
    assert_eq!(
        ro.color_changes("2000-01-01T00:00:00Z", None, &[]).unwrap(),
        vec![]
    );
    assert!(
        ro.company_by_id(&uuid(7).to_string()).unwrap().is_none(),
        "not committed yet"
    );
    assert!(
        ro.start_run(&NewRun {
            portfolio: "p".into(),
            input_path: "p.csv".into(),
            sha256: "x".into(),
            demo_day: None,
            extra_columns: vec![],
            amount_column: None,
        })
        .is_err(),
        "read-only"
    );
    writer.finish().unwrap();
    assert!(
        ro.company_by_id(&uuid(7).to_string()).unwrap().is_some(),
        "committed now"
    );
}

/// The salts in the write-ahead log's header, which change each time the log starts over.
fn log_salts(db: &std::path::Path) -> [u8; 8] {
    let wal = std::fs::read(db.with_extension("db-wal")).unwrap();
    wal[16..24].try_into().unwrap()
}

#[test]
fn the_log_starts_over_while_the_writer_keeps_writing() {
    // A writer that begins again straight after each commit never saw the log wholly
    // copied, so the log grew for the whole run (hundreds of MB on a million rows).
    let (_dir, path, _store, _, mut writer) = new_run();
    writer.log_restart = std::time::Duration::ZERO;
    writer.max_transaction = std::time::Duration::ZERO;
    let commit = |writer: &mut Writer| writer.tick().unwrap();
    observe_green(&mut writer, 1);
    commit(&mut writer);
    let first = log_salts(&path);
    observe_green(&mut writer, 2);
    commit(&mut writer);
    assert_ne!(log_salts(&path), first, "the log started over");
    writer.finish().unwrap();
}

#[test]
fn records_sent_while_a_commit_is_away_are_written_when_it_returns() {
    let (_dir, path, _store, _, mut writer) = new_run();
    let ratings = || -> i64 {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM ratings", [], |r| r.get(0))
            .unwrap()
    };
    observe_green(&mut writer, 1);
    assert!(writer.commit_job().is_none(), "not open long enough yet");
    writer.max_transaction = std::time::Duration::ZERO;
    let job = writer.commit_job().expect("due");
    assert!(!writer.is_home());
    assert!(writer.commit_job().is_none(), "one commit away at a time");
    observe_green(&mut writer, 2);
    observe_green(&mut writer, 3);
    let done = std::thread::spawn(move || job.run()).join().unwrap();
    assert_eq!(
        ratings(),
        1,
        "committed: what was written before the commit left"
    );
    writer.committed(done).unwrap();
    assert!(writer.is_home());
    for n in 1..=3 {
        assert!(writer.rated(Uuid::from_u128(n)).unwrap(), "company {n}");
    }
    writer.finish().unwrap();
    assert_eq!(
        ratings(),
        3,
        "the queued records, in a transaction of their own"
    );
}

#[test]
fn an_unfinished_run_is_counted_from_its_rows_so_far() {
    // A run records its counts when it finishes: the reports of an interrupted run said 0
    // rows while listing them.
    let (_dir, _, store, run_id, mut writer) = new_run();
    for line in [2, 3] {
        writer
            .send(Record::Row(Box::new(RowRecord {
                input: crate::model::InputRow {
                    line,
                    reference: Some(format!("R{line}")),
                    ..Default::default()
                },
                status: RowStatus::Invalid,
                error: Some("country: missing".into()),
                ..RowRecord::default()
            })))
            .unwrap();
    }
    writer.finish().unwrap();
    let info = store.run_info(run_id).unwrap();
    assert_eq!(info.finished_at, None);
    assert_eq!(info.rows, 2);
    assert!(
        info.by_status.contains(&(RowStatus::Invalid, 2)),
        "{info:?}"
    );
    assert_eq!(store.recent_runs(5).unwrap(), vec![info]);
}

#[test]
fn the_calls_of_the_runs_in_a_window_add_up_every_process_of_each_run() {
    let (_dir, _, mut store) = new_store();
    let calls = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
        pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    };
    let mut started = Vec::new();
    for (at, spent) in [
        ("2026-10-31T23:59:59Z", calls(&[("rating", 7)])),
        (
            "2026-11-01T00:00:00Z",
            calls(&[("rating", 5), ("countries", 1)]),
        ),
        ("2026-11-20T02:00:00Z", calls(&[("rating", 3)])),
    ] {
        let id = run(&mut store);
        store
            .conn
            .execute(
                "UPDATE runs SET started_at = ?2 WHERE id = ?1",
                params![id, at],
            )
            .unwrap();
        store
            .finish_run(id, RunStatus::Complete, &spent, &[], &Rules::default())
            .unwrap();
        started.push(id);
    }
    // A resumed run adds the calls of its second process to those of its first.
    store
        .finish_run(
            started[2],
            RunStatus::Complete,
            &calls(&[("rating", 2)]),
            &[],
            &Rules::default(),
        )
        .unwrap();
    // A run in progress has recorded no call yet.
    let running = run(&mut store);

    assert_eq!(store.calls_since("2026-11-01T00:00:00Z").unwrap(), 11);
    let november = store
        .calls_by_run("2026-11-01T00:00:00Z", Some("2026-11-20T02:00:00Z"))
        .unwrap();
    assert_eq!(november.len(), 1);
    assert_eq!(november[0].run_id, started[1]);
    assert_eq!(
        november[0]
            .calls
            .iter()
            .map(|(k, n)| (k.as_str(), *n))
            .collect::<Vec<_>>(),
        [("countries", 1), ("rating", 5)]
    );
    let all = store.calls_by_run("2026-01-01T00:00:00Z", None).unwrap();
    assert_eq!(
        all.iter().map(|r| r.run_id).collect::<Vec<_>>(),
        [started[0], started[1], started[2], running]
    );
    assert_eq!(all[2].calls["rating"], 5);
    assert!(all[3].calls.is_empty());
}

#[test]
fn a_decision_replaces_the_earlier_one_on_its_row_and_search_and_is_revoked_by_ref_both_kept() {
    let (_dir, _, mut store) = new_store();
    let company = Uuid::new_v4();
    let decision = |search_key: &str, verdict, by: &str| crate::model::Decision {
        reference: "C-1".into(),
        search_key: search_key.into(),
        verdict,
        decided_at: crate::model::time("2026-11-23T10:00:00Z"),
        source: "command line".into(),
        by: Some(by.into()),
        note: Some(format!("{by}'s")),
    };
    use crate::model::Verdict;
    store
        .decide(&decision("name|a", Verdict::Ignore, "marie"))
        .unwrap();
    store
        .decide(&decision("name|a", Verdict::Accept(company), "paul"))
        .unwrap();
    store
        .decide(&decision("name|b", Verdict::Ignore, "marie"))
        .unwrap();
    assert_eq!(
        store.decisions().unwrap(),
        [
            decision("name|a", Verdict::Accept(company), "paul"),
            decision("name|b", Verdict::Ignore, "marie")
        ],
        "in force: the later one on each search"
    );
    // The same decision made again (a file imported twice) replaces nothing.
    store
        .decide(&decision("name|a", Verdict::Accept(company), "paul"))
        .unwrap();
    assert_eq!(store.revoke("C-2", "marie", None).unwrap(), 0);
    assert_eq!(store.revoke("C-1", "marie", Some("wrong row")).unwrap(), 2);
    assert!(store.decisions().unwrap().is_empty());
    assert_eq!(store.revoke("C-1", "marie", None).unwrap(), 0, "none left");

    // Every one is kept, with how it ended and by whom.
    let history = store
        .decision_history(&["C-1"], &company.to_string())
        .unwrap();
    let ended: Vec<(String, Option<String>, String, Option<String>)> = history
        .iter()
        .map(|r| {
            let e = r.ended.clone().expect("every one ended");
            (
                r.decision.search_key.clone(),
                r.decision.by.clone(),
                e.how,
                e.by,
            )
        })
        .collect();
    let mut ended = ended;
    ended.sort();
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        ended,
        [
            (
                "name|a".into(),
                some("marie"),
                "replaced".into(),
                some("paul")
            ),
            (
                "name|a".into(),
                some("paul"),
                "revoked".into(),
                some("marie")
            ),
            (
                "name|b".into(),
                some("marie"),
                "revoked".into(),
                some("marie")
            ),
        ]
    );
    assert!(
        history
            .iter()
            .filter(|r| r.ended.as_ref().unwrap().how == "revoked")
            .all(|r| r.ended.as_ref().unwrap().note.as_deref() == Some("wrong row"))
    );
    let accepting = store.decision_history(&[], &company.to_string()).unwrap();
    assert_eq!(accepting.len(), 1, "the decision accepting the company");
}

#[test]
fn the_trend_reads_each_runs_counts_kept_when_it_finished_and_nothing_after_the_run() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let (a, b, c) = (uuid(1), uuid(2), uuid(3));
    let day = "2026-01-01T00:00:00Z";
    let r1 = screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Green, Some(day), day, day)),
            ("C-2", seen(b, Red, Some(day), day, day)),
            ("C-3", seen(b, Red, Some(day), day, day)),
        ],
    );
    let other = screened(
        &mut store,
        "suppliers",
        &[("S-1", seen(c, Black, Some(day), day, day))],
    );
    let later = "2026-01-02T00:00:00Z";
    let r3 = screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Yellow, Some(later), later, later)),
            ("C-2", seen(b, Red, Some(day), later, later)),
        ],
    );
    let broken = screened_as(
        &mut store,
        "customers",
        &[("C-1", seen(a, Yellow, Some(later), later, later))],
        RunStatus::Interrupted,
    );
    let r5 = screened_as(
        &mut store,
        "customers",
        &[("C-9", seen(c, Black, Some(day), later, later))],
        RunStatus::Partial,
    );

    // The counts kept are those the report counts from the rows.
    let kept: Vec<(i64, String, i64)> = all(
        &store.conn,
        "SELECT run_id, color, rows FROM run_colors ORDER BY run_id, color",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    let kept_of = |run: i64| -> Vec<(String, i64)> {
        kept.iter()
            .filter(|k| k.0 == run)
            .map(|k| (k.1.clone(), k.2))
            .collect()
    };
    assert_eq!(kept_of(r1), [("green".into(), 1), ("red".into(), 2)]);
    assert_eq!(kept_of(r3), [("red".into(), 1), ("yellow".into(), 1)]);
    assert_eq!(kept_of(other), [("black".into(), 1)]);
    for run in [r1, r3, broken, r5] {
        let info = store.run_info(run).unwrap();
        let mut counted: Vec<(String, i64)> =
            all(&store.conn, COUNTED_COLORS_FOR_TESTS, [run], |r| {
                Ok((r.get(0)?, r.get(1)?))
            });
        counted.sort();
        let mut read: Vec<(String, i64)> = info
            .by_color
            .iter()
            .map(|(c, n)| (c.clone(), *n as i64))
            .collect();
        read.sort();
        assert_eq!(read, counted, "run {run}");
    }

    let ro = Store::open_read_only(store.path()).unwrap();
    let trend = |run: i64, limit: u64| -> Vec<(i64, Vec<(String, u64)>)> {
        ro.color_trend(run, limit)
            .unwrap()
            .into_iter()
            .map(|t| (t.run_id, t.by_color))
            .collect()
    };
    // Up to run 3: runs 1 and 3 of customers, most common color first.
    assert_eq!(
        trend(r3, 30),
        [
            (r1, vec![("red".into(), 2), ("green".into(), 1)]),
            (r3, vec![("red".into(), 1), ("yellow".into(), 1)]),
        ]
    );
    // The interrupted run is left out, another portfolio's too; the limit keeps the latest.
    let ids = |t: Vec<(i64, Vec<(String, u64)>)>| t.into_iter().map(|t| t.0).collect::<Vec<_>>();
    assert_eq!(ids(trend(r5, 30)), [r1, r3, r5]);
    assert_eq!(ids(trend(r5, 2)), [r3, r5]);
    assert_eq!(ids(trend(r1, 30)), [r1], "a first run is drawn alone");
    // A run is drawn with its own trend whatever its state.
    assert_eq!(ids(trend(broken, 30)), [r1, r3, broken]);
    assert_eq!(ids(trend(other, 30)), [other]);
}

#[test]
fn the_trend_counts_the_rows_that_came_into_a_color_through_a_change_not_a_first_screening() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let (a, b, c, d) = (uuid(1), uuid(2), uuid(3), uuid(4));
    let day = "2026-01-01T00:00:00Z";
    let later = "2026-01-02T00:00:00Z";
    let r1 = screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Green, Some(day), day, day)),
            ("C-2", seen(a, Green, Some(day), day, day)),
            ("C-3", seen(b, Red, Some(day), day, day)),
            ("C-4", seen(d, Yellow, Some(day), day, day)),
        ],
    );
    // a into red on two rows, b from red into black, d still yellow; c red at its first
    // screening is no change.
    let r2 = screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Red, Some(later), later, later)),
            ("C-2", seen(a, Red, Some(later), later, later)),
            ("C-3", seen(b, Black, Some(later), later, later)),
            ("C-4", seen(d, Yellow, Some(day), later, later)),
            ("C-5", seen(c, Red, Some(later), later, later)),
        ],
    );
    let trend = store.color_trend(r2, 30).unwrap();
    let news: Vec<(i64, Vec<(String, u64)>)> = trend
        .iter()
        .map(|t| (t.run_id, t.new_by_color.clone()))
        .collect();
    assert_eq!(
        news,
        [
            (r1, vec![]),
            (r2, vec![("red".into(), 2), ("black".into(), 1)]),
        ]
    );
    assert!(trend.iter().all(|t| t.amount_by_color.is_empty()));
    assert_eq!(
        trend[1].by_color,
        [
            ("red".to_string(), 3),
            ("black".to_string(), 1),
            ("yellow".to_string(), 1)
        ]
    );
}

/// How `run_info` counted colors before they were kept: the reference for the kept ones.
const COUNTED_COLORS_FOR_TESTS: &str = "SELECT color, count(*) FROM run_results
     WHERE run_id = ?1 AND status = 'rated' AND color IS NOT NULL GROUP BY color";

#[test]
fn portfolio_latest_has_each_reference_of_each_portfolios_latest_finished_run() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let (a, b, c) = (uuid(1), uuid(2), uuid(3));
    let day = "2026-01-01T00:00:00Z";
    let later = "2026-01-02T00:00:00Z";
    screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Green, Some(day), day, day)),
            ("C-gone", seen(b, Green, Some(day), day, day)),
        ],
    );
    let latest = screened(
        &mut store,
        "customers",
        &[
            ("C-1", seen(a, Red, Some(later), later, later)),
            ("", seen(b, Green, Some(day), later, later)),
            ("C-2", seen(c, Black, Some(day), later, later)),
            ("C-2", seen(b, Green, Some(day), later, later)),
        ],
    );
    let suppliers = screened(
        &mut store,
        "suppliers",
        &[("C-1", seen(c, Black, Some(day), later, later))],
    );
    // Not finished: what a portfolio holds is its latest finished run.
    screened_as(
        &mut store,
        "customers",
        &[("C-1", seen(a, Yellow, Some(later), later, later))],
        RunStatus::Interrupted,
    );

    let rows: Vec<(String, String, i64, String, String, i64)> = all(
        &store.conn,
        "SELECT portfolio, ref, line, color, company_id, run_id FROM portfolio_latest
             ORDER BY portfolio, ref",
        [],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        },
    );
    let row = |p: &str, r: &str, line, color: &str, company: Uuid, run| {
        (
            p.to_string(),
            r.to_string(),
            line,
            color.to_string(),
            company.to_string(),
            run,
        )
    };
    assert_eq!(
        rows,
        [
            // The row on the first line of a reference listed twice.
            row("customers", "C-1", 2, "red", a, latest),
            row("customers", "C-2", 4, "black", c, latest),
            row("suppliers", "C-1", 2, "black", c, suppliers),
        ],
        "C-gone left the portfolio; the row without a reference is not keyed"
    );
    let times: (String, Option<String>) = store
        .conn
        .query_row(
            "SELECT started_at, finished_at FROM portfolio_latest WHERE portfolio = 'suppliers'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        times.1.is_some() && times.0 <= times.1.clone().unwrap(),
        "{times:?}"
    );

    // A reference is looked for in the latest runs' rows only.
    let lines = plan(&store, "SELECT * FROM portfolio_latest WHERE ref = ?1");
    assert_eq!(full_scans(&lines), Vec::<&String>::new(), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("SEARCH s USING PRIMARY KEY (portfolio=?)")),
        "{lines:#?}"
    );
}

#[test]
fn the_trend_reads_an_index_range_and_kept_counts() {
    let (_dir, _, store) = new_store();
    let trend = plan(&store, timeline::TREND);
    assert!(
        trend
            .iter()
            .any(|l| l.contains("runs_by_portfolio (portfolio=? AND id<?)")),
        "{trend:#?}"
    );
    let kept = plan(&store, timeline::STORED_COLORS);
    assert!(
        kept.iter()
            .any(|l| l.contains("SEARCH run_colors USING PRIMARY KEY (run_id=?)")),
        "{kept:#?}"
    );
    // The night's news: the run's rows once, each company's outcome by its key.
    let news = plan(&store, timeline::NEW_COLORS);
    for step in [
        "SEARCH s USING PRIMARY KEY (portfolio=?)",
        "SEARCH o USING PRIMARY KEY (run_id=? AND company=?)",
    ] {
        assert!(news.iter().any(|l| l.contains(step)), "{news:#?}");
    }
}

/// (kind, listed, acked) of the company's alert in the run, if it is one.
fn verdict(store: &Store, run_id: i64, company: Uuid) -> Option<(String, bool, bool)> {
    store
        .conn
        .query_row(
            "SELECT a.kind, a.listed, a.acked FROM run_alerts a
             JOIN companies c ON c.id = a.company
             WHERE a.run_id = ?1 AND c.company_id = ?2",
            params![run_id, company.to_string()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .unwrap()
}

#[test]
fn a_standing_alert_is_listed_weekly_and_an_acknowledgement_lasts_until_the_next_change() {
    let (_dir, _, mut store) = new_store();
    let (a, b) = (uuid(1), uuid(2));
    let night = |store: &mut Store, day: u32, color_a: Color| {
        let at: &'static str = Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
        screened(
            store,
            "p",
            &[
                (
                    "C-1",
                    seen(a, color_a, Some("2025-12-01T00:00:00Z"), at, at),
                ),
                ("C-2", seen(b, Color::Green, None, at, at)),
                ("C-3", seen(a, Color::Red, None, at, at)),
            ],
        )
    };
    let mut listed = Vec::new();
    let weekly = Rules {
        repeat: crate::alerts::Repeat::Weekly,
        ..Rules::default()
    };
    for day in 1..=8 {
        let run = night(&mut store, day, Color::Red);
        // By default a standing alert is said in its color's line, never listed again.
        let (_, by_default, _) = verdict(&store, run, a).unwrap();
        assert_eq!(by_default, day == 1, "day {day}");
        store
            .decide_alerts(run, &weekly, Verdicts::Recorded)
            .unwrap();
        let (kind, shown, _) = verdict(&store, run, a).unwrap();
        assert_eq!(kind, if day == 1 { "red" } else { "still" }, "day {day}");
        if shown {
            listed.push(day);
        }
        assert_eq!(verdict(&store, run, b), None, "green is no alert");
    }
    assert_eq!(listed, [1, 8], "the day it began, and a week later");
    let refs: String = store
        .conn
        .query_row("SELECT refs FROM run_alerts LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        refs, "C-1, C-3",
        "one line, every ref that holds the company"
    );

    let company = a.to_string();
    let ack = crate::store::NewAck {
        company_id: &company,
        reference: Some("C-1"),
        until: None,
        note: Some("known"),
        by: "marie",
    };
    assert_eq!(store.acknowledge(&[ack]).unwrap(), [Some("red".into())]);
    let run = night(&mut store, 15, Color::Red);
    assert_eq!(
        verdict(&store, run, a),
        Some(("still".into(), false, true)),
        "acknowledged: due again a week later, yet counted only"
    );
    assert_eq!(store.acks(jiff::Timestamp::now(), true).unwrap().len(), 1);
    let run = night(&mut store, 16, Color::Black);
    assert_eq!(verdict(&store, run, a), Some(("black".into(), true, false)));
    assert!(
        store
            .acks(jiff::Timestamp::now(), false)
            .unwrap()
            .is_empty(),
        "the change ended it"
    );
    let kept = store.acks(jiff::Timestamp::now(), true).unwrap();
    assert_eq!(kept.len(), 1, "kept, ended");
    assert_eq!(kept[0].note.as_deref(), Some("known"));
    assert_eq!(kept[0].acked_by.as_deref(), Some("marie"));
    assert_eq!(kept[0].status(), format!("color changed (run {run})"));
    assert!(!kept[0].expired);
}

#[test]
fn an_acknowledgement_whose_until_passed_is_listed_only_with_the_expired_and_no_longer_applies() {
    let (_dir, _, mut store) = new_store();
    let (ended, running, open) = (uuid(1), uuid(2), uuid(3));
    let night = |store: &mut Store, at: &'static str| {
        screened(
            store,
            "p",
            &[
                ("C-1", seen(ended, Color::Red, None, at, at)),
                ("C-2", seen(running, Color::Red, None, at, at)),
                ("C-3", seen(open, Color::Black, None, at, at)),
            ],
        )
    };
    night(&mut store, "2026-01-01T02:00:00Z");
    for (company, until) in [
        (ended, Some("2026-01-10T00:00:00Z")),
        (running, Some("2026-01-20T00:00:00Z")),
        (open, None),
    ] {
        let company = company.to_string();
        let ack = crate::store::NewAck {
            company_id: &company,
            reference: None,
            until,
            note: None,
            by: "marie",
        };
        assert!(store.acknowledge(&[ack]).unwrap()[0].is_some());
    }
    let at = ts("2026-01-15T02:00:00Z");
    let listed = |expired: bool| -> Vec<(String, bool)> {
        let mut acks: Vec<(String, bool)> = store
            .acks(at, expired)
            .unwrap()
            .into_iter()
            .map(|a| (a.company_id, a.expired))
            .collect();
        acks.sort();
        acks
    };
    assert_eq!(
        listed(false),
        [(running.to_string(), false), (open.to_string(), false)],
        "in force: no until, or an until to come"
    );
    assert_eq!(
        listed(true),
        [
            (ended.to_string(), true),
            (running.to_string(), false),
            (open.to_string(), false)
        ],
        "with the expired, marked"
    );
    // An until at the very moment has passed, for the listing as for a run.
    assert_eq!(
        store.acks(ts("2026-01-20T00:00:00Z"), false).unwrap().len(),
        1
    );

    // A run at the same moment judges them alike: the one that ended no longer applies.
    let run = night(&mut store, "2026-01-15T02:00:00Z");
    assert_eq!(verdict(&store, run, ended).map(|v| v.2), Some(false));
    assert_eq!(verdict(&store, run, running).map(|v| v.2), Some(true));
    assert_eq!(verdict(&store, run, open).map(|v| v.2), Some(true));
}

#[test]
fn a_trial_of_other_rules_leaves_the_runs_verdict_as_it_was() {
    let (_dir, _, mut store) = new_store();
    let a = uuid(1);
    let at = "2026-01-01T02:00:00Z";
    screened(
        &mut store,
        "p",
        &[("C-1", seen(a, Color::Yellow, None, at, at))],
    );
    let at = "2026-01-02T02:00:00Z";
    let run = screened(
        &mut store,
        "p",
        &[("C-1", seen(a, Color::Red, None, at, at))],
    );
    let strict = Rules {
        min_steps: 2,
        into_red: false,
        ..Rules::default()
    };
    assert_eq!(
        store.decide_alerts(run, &strict, Verdicts::Trial).unwrap(),
        0
    );
    let digest = store
        .alert_digest(
            run,
            &Rules {
                storm_share: 0.2,
                ..Rules::default()
            },
            Verdicts::Trial,
        )
        .unwrap();
    assert_eq!(digest.listed_total, 0, "yellow → red is one step");
    assert_eq!(verdict(&store, run, a), Some(("red".into(), true, false)));
    let recorded = store
        .alert_digest(
            run,
            &Rules {
                storm_share: 0.2,
                ..Rules::default()
            },
            Verdicts::Recorded,
        )
        .unwrap();
    assert_eq!(recorded.listed.len(), 1);
    assert_eq!(recorded.listed[0].refs, "C-1");
    assert_eq!(recorded.listed[0].previous, Some(Color::Yellow));
}

#[test]
fn a_change_seen_by_a_run_that_was_never_delivered_is_announced_by_the_next() {
    let (_dir, _, mut store) = new_store();
    let (a, b) = (uuid(1), uuid(2));
    let night = |store: &mut Store, day: u32, color_a: Color, color_b: Color| {
        let at: &'static str = Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
        screened(
            store,
            "p",
            &[
                ("C-1", seen(a, color_a, None, at, at)),
                ("C-2", seen(b, color_b, None, at, at)),
            ],
        )
    };
    night(&mut store, 1, Color::Green, Color::Yellow);
    // Killed while writing its reports: recorded, decided, never delivered.
    let lost = night(&mut store, 2, Color::Red, Color::Yellow);
    store
        .conn
        .execute("UPDATE runs SET delivered_at = NULL WHERE id = ?1", [lost])
        .unwrap();
    assert_eq!(
        store.undelivered_runs("p", lost + 1).unwrap().len(),
        1,
        "the next run knows"
    );
    let next = night(&mut store, 3, Color::Red, Color::Yellow);
    assert_eq!(
        verdict(&store, next, a),
        Some(("red".into(), true, false)),
        "green → red, announced now"
    );
    assert_eq!(verdict(&store, next, b), None, "yellow all along");
    let digest = store
        .alert_digest(
            next,
            &Rules {
                storm_share: 0.5,
                ..Rules::default()
            },
            Verdicts::Recorded,
        )
        .unwrap();
    assert_eq!(digest.listed.len(), 1);
    assert_eq!(digest.listed[0].previous, Some(Color::Green));
    assert_eq!(digest.listed[0].color, Some(Color::Red));
    // The reports' rows say the change the alert announces.
    let mut rows = Vec::new();
    store
        .for_each_result(next, false, |row| {
            rows.push(row);
            Ok::<_, ()>(())
        })
        .unwrap()
        .unwrap();
    let c1 = rows.iter().find(|r| r.company_id == Some(a)).unwrap();
    assert_eq!(
        (c1.previous_color.clone(), c1.change, c1.alert),
        (Some(Color::Green), Some(Change::Deteriorated), true)
    );
    let c2 = rows.iter().find(|r| r.company_id == Some(b)).unwrap();
    assert_eq!(c2.change, Some(Change::Unchanged));
    // The history keeps the change where it happened, once.
    let changes: i64 = store
        .conn
        .query_row("SELECT count(*) FROM color_changes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(changes, 1);
    // Once announced, it is a standing alert like any other, counted but not relisted
    // within the week.
    let after = night(&mut store, 4, Color::Red, Color::Yellow);
    assert_eq!(
        verdict(&store, after, a),
        Some(("still".into(), false, false))
    );
    assert!(store.undelivered_runs("p", after + 1).unwrap().is_empty());
}

#[test]
fn a_change_an_undelivered_run_saw_waits_for_the_next_night_that_rates_its_company() {
    let (_dir, _, mut store) = new_store();
    let (a, b) = (uuid(1), uuid(2));
    let night = |store: &mut Store, day: u32, rated: &[(Uuid, Color)]| {
        let at: &'static str = Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
        let rows: Vec<(&str, Seen)> = rated
            .iter()
            .map(|(c, color)| ("C", seen(*c, color.clone(), None, at, at)))
            .collect();
        screened(store, "p", &rows)
    };
    night(&mut store, 1, &[(a, Color::Green), (b, Color::Green)]);
    let lost = night(&mut store, 2, &[(a, Color::Red), (b, Color::Yellow)]);
    store
        .conn
        .execute("UPDATE runs SET delivered_at = NULL WHERE id = ?1", [lost])
        .unwrap();
    // The next night rates only b (a's row failed): a's change is not news yet…
    let next = night(&mut store, 3, &[(b, Color::Yellow)]);
    assert_eq!(
        verdict(&store, next, b),
        Some(("deteriorated".into(), true, false))
    );
    assert_eq!(verdict(&store, next, a), None);
    // …nor lost: the night that rates a again announces it against what was delivered.
    let later = night(&mut store, 4, &[(a, Color::Red), (b, Color::Yellow)]);
    assert_eq!(verdict(&store, later, a), Some(("red".into(), true, false)));
    let digest = store
        .alert_digest(
            later,
            &Rules {
                storm_share: 0.5,
                ..Rules::default()
            },
            Verdicts::Recorded,
        )
        .unwrap();
    assert_eq!(digest.listed.len(), 1, "b was announced the night before");
    assert_eq!(digest.listed[0].previous, Some(Color::Green));
}

#[test]
fn the_migrations_verdict_on_earlier_runs_is_the_one_the_rules_give() {
    let (_dir, _, mut store) = new_store();
    eventful_history(&mut store);
    let verdicts = |store: &Store| -> Vec<(i64, i64, String, i64, Option<String>)> {
        let mut stmt = store
            .conn
            .prepare(
                "SELECT run_id, company, kind, first_line, refs FROM run_alerts
                 ORDER BY run_id, company",
            )
            .unwrap();
        stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let decided = verdicts(&store);
    assert!(decided.iter().any(|v| v.2 == "still") && decided.iter().any(|v| v.2 != "still"));
    // The statement of migration 0006 that gave runs before it their verdict.
    let sql = include_str!("../../migrations/upgrade/0006_alert_rules.sql");
    let start = sql.find("INSERT INTO run_alerts").unwrap();
    let end = start + sql[start..].find(";\n").unwrap();
    store
        .conn
        .execute_batch(&format!("DELETE FROM run_alerts; {};", &sql[start..end]))
        .unwrap();
    assert_eq!(verdicts(&store), decided);
}

/// A search's resolution, sent as the pipeline sends it.
fn resolution(key: &str, company: Option<Uuid>) -> Record {
    Record::Resolution {
        key: key.into(),
        outcome: if company.is_some() {
            SearchOutcome::Resolved
        } else {
            SearchOutcome::Unresolved
        },
        company_id: company,
        candidates: vec![],
    }
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A database at `path` with the first `version` migrations applied and recorded as
/// ratewatch then did, for an upgrade to start from.
fn database_at(path: &std::path::Path, version: usize) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);",
    )
    .unwrap();
    for (v, _, sql) in &migrate::MIGRATIONS[..version] {
        conn.execute_batch(sql).unwrap();
        conn.pragma_update(None, "user_version", v).unwrap();
    }
    conn
}

#[test]
fn an_upgrade_that_cannot_convert_a_time_exactly_stops_and_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v10.db");
    let conn = database_at(&path, 10);
    conn.execute_batch(
        "INSERT INTO companies (company_id, first_seen_at, updated_at)
         VALUES ('0a0a0a0a-0a0a-0a0a-0a0a-0a0a0a0a0a0a', '2026-01-01 02:00:00', '2026-01-01T02:00:00Z');",
    )
    .unwrap();
    drop(conn);
    let refused = Store::open(&path).err().expect("the upgrade stops");
    assert!(
        refused.to_string().contains("0011_compact_rows")
            && format!("{refused:?}").contains("every_time_and_uuid_converts_exactly"),
        "{refused:?}"
    );
    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 10);
    let first_seen: String = conn
        .query_row("SELECT first_seen_at FROM companies", [], |r| r.get(0))
        .unwrap();
    assert_eq!(first_seen, "2026-01-01 02:00:00");
}

#[test]
fn an_upgrade_that_would_read_a_search_otherwise_or_leave_an_id_behind_stops_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for (n, (rows, constraint)) in [
        // Resolved without a company: computed from its row, it would read `unresolved`.
        (
            "INSERT INTO resolutions (input_key, outcome, resolved_at) VALUES ('k', 'resolved', 0);
             INSERT INTO company_external_ids (company, service, external_id) VALUES (1, 'KVK', '1');",
            "every_outcome_follows_from_its_company_and_candidates",
        ),
        // A registry id of no company (written with foreign keys off): nowhere to go.
        (
            "INSERT INTO resolutions (input_key, outcome, resolved_at) VALUES ('k', 'unresolved', 0);
             INSERT INTO company_external_ids (company, service, external_id) VALUES (9, 'KVK', '1');",
            "every_registry_id_belongs_to_a_company",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("v13-{n}.db"));
        let conn = database_at(&path, 13);
        conn.execute_batch(&format!(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO companies (company_id, first_seen_at, updated_at)
             VALUES (x'0000000000000000000000000000000a', 0, 0);
             {rows}"
        ))
        .unwrap();
        drop(conn);
        let refused = Store::open(&path).err().expect("the upgrade stops");
        assert!(
            refused
                .to_string()
                .contains("0014_registry_ids_in_company_rows")
                && format!("{refused:?}").contains(constraint),
            "{refused:?}"
        );
        let conn = Connection::open(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 13);
        let kept: (i64, i64) = conn
            .query_row(
                "SELECT (SELECT count(*) FROM resolutions WHERE outcome IS NOT NULL),
                        (SELECT count(*) FROM company_external_ids)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(kept, (1, 1));
    }
}

#[test]
fn a_search_is_read_back_with_the_outcome_it_was_stored_with() {
    let (_dir, _, store, _, mut writer) = new_run();
    for (key, outcome, company) in [
        ("resolved", SearchOutcome::Resolved, Some(uuid(0xa))),
        ("ambiguous", SearchOutcome::Ambiguous, None),
        ("unresolved", SearchOutcome::Unresolved, None),
    ] {
        // An ambiguous search whose candidates the service did not list stays ambiguous.
        writer
            .send(Record::Resolution {
                key: key.into(),
                outcome,
                company_id: company,
                candidates: vec![],
            })
            .unwrap();
    }
    writer.finish().unwrap();
    for (key, outcome) in [
        ("resolved", SearchOutcome::Resolved),
        ("ambiguous", SearchOutcome::Ambiguous),
        ("unresolved", SearchOutcome::Unresolved),
    ] {
        let hit = store.cached_resolution(key).unwrap().unwrap();
        assert_eq!(hit.outcome, outcome, "{key}");
        assert_eq!(
            hit.company_id.is_some(),
            outcome == SearchOutcome::Resolved,
            "{key}"
        );
    }
}

#[test]
fn after_a_batch_fails_the_writer_answers_and_writes_nothing_more() {
    let (_dir, _, mut store) = new_store();
    let r1 = run(&mut store);
    let mut w = store.writer(r1).unwrap();
    // 31 companies, then the first again: the 32nd outcome fills a statement, whose write
    // breaks run_companies' key, and the batch is rolled back.
    for n in 1..=31u128 {
        observe_green(&mut w, n);
    }
    let twice = w.send(Record::Observation(rating(
        Uuid::from_u128(1),
        Color::Green,
        "2026-01-01T00:00:00Z",
        "2026-01-02T00:00:00Z",
        "2026-01-03T00:00:00Z",
    )));
    assert!(twice.is_err());
    // Its memory of the companies rated went with the batch: it no longer answers.
    assert!(w.rated(Uuid::from_u128(5)).is_err());
    assert!(w.send(resolution("k", None)).is_err());
    assert!(w.finish().is_err());
    assert_eq!(history_len(&store), 0);
    assert_eq!(count(&store.conn, "SELECT count(*) FROM resolutions"), 0);

    // A commit that fails leaves no transaction open behind it.
    let r2 = run(&mut store);
    let mut w = store.writer(r2).unwrap();
    w.max_transaction = Duration::ZERO;
    observe_green(&mut w, 1);
    observe_green(&mut w, 1);
    assert!(w.tick().is_err());
    assert!(w.rated(Uuid::from_u128(1)).is_err());
    store.conn.busy_timeout(Duration::ZERO).unwrap();
    store
        .conn
        .execute("UPDATE runs SET status = 'failed' WHERE id = ?1", [r2])
        .expect("the database is not held by the failed commit");
    drop(w);
    assert_eq!(history_len(&store), 0);
}

#[test]
fn the_review_reads_each_portfolios_latest_finished_run_never_one_in_progress() {
    use Color::*;
    let (_dir, _, mut store) = new_store();
    let day = "2026-01-01T00:00:00Z";
    let rows = [("C-1", seen(uuid(1), Green, Some(day), day, day))];
    screened(&mut store, "customers", &rows);
    let partial = screened_as(&mut store, "customers", &rows, RunStatus::Partial);
    for status in [RunStatus::Interrupted, RunStatus::Failed] {
        screened_as(&mut store, "customers", &rows, status);
    }
    let suppliers = screened(&mut store, "suppliers", &rows);
    // Started, not finished: a run going on now.
    for portfolio in ["customers", "suppliers", "prospects"] {
        run_of(&mut store, portfolio);
    }
    let latest = |run_id: i64, portfolio: &str| LatestRun {
        run_id,
        portfolio: portfolio.into(),
    };
    assert_eq!(
        store.latest_finished_runs().unwrap(),
        [latest(partial, "customers"), latest(suppliers, "suppliers")]
    );
}

#[test]
fn a_rating_is_observed_by_this_machines_clock_whatever_the_service_dates_it() {
    let (_dir, _, mut store) = new_store();
    let run_id = run(&mut store);
    let now = "2026-11-26T02:00:00Z";
    let mut writer = store.writer(run_id).unwrap();
    store.pin_clock(Some(ts(now)));
    for (n, requested) in [
        "2000-01-01T00:00:00Z",
        "2099-01-01T00:00:00Z",
        "2026-11-26T01:59:58Z",
    ]
    .into_iter()
    .enumerate()
    {
        let dated = rating(
            uuid(n as u8 + 1),
            Color::Green,
            "2026-11-20T00:00:00Z",
            "2026-11-25T00:00:00Z",
            requested,
        );
        writer.send(Record::Observation(dated)).unwrap();
    }
    writer.finish().unwrap();
    let observed: Vec<String> = all(
        &store.conn,
        &format!(
            "SELECT observed_at FROM ({}) ORDER BY id",
            ratings_as_text("main")
        ),
        [],
        |r| r.get(0),
    );
    assert_eq!(observed, [now; 3]);
    assert_eq!(store.off_clock_answers(), 2);
    assert!(store.service_clock_note().unwrap().contains("2 answers"));
    // The service's time of the run's first rating, for the record only.
    assert_eq!(
        store.run_info(run_id).unwrap().service_time,
        Some(crate::model::time("2000-01-01T00:00:00Z"))
    );
    store.pin_clock(None);
}

#[test]
fn a_rating_dated_ahead_is_kept_as_given_and_aged_from_when_it_was_first_seen() {
    let (_dir, _, mut store) = new_store();
    let (night, later) = ("2026-11-26T02:00:00Z", "2027-01-05T02:00:00Z");
    let future = "2099-01-01T00:00:00Z";
    // Within a day ahead: a clock a little fast, taken as given.
    let hours_ahead = "2026-11-26T20:00:00Z";
    let first = screened(
        &mut store,
        "p",
        &[
            (
                "C-1",
                seen(uuid(1), Color::Red, Some(future), future, night),
            ),
            ("C-2", seen(uuid(2), Color::Green, None, future, night)),
            (
                "C-3",
                seen(uuid(3), Color::Green, Some(hours_ahead), hours_ahead, night),
            ),
            (
                "C-4",
                seen(
                    uuid(4),
                    Color::Green,
                    Some("2026-10-01T00:00:00Z"),
                    night,
                    night,
                ),
            ),
        ],
    );
    let note = store.future_dates_note(first).unwrap().unwrap();
    assert!(
        note.starts_with("CLOCK: the service dated 2 ratings more than a day ahead")
            && note.contains(&format!(
                "e.g. C-1 (lastRefreshDate {future}), C-2 (lastRefreshDate {future})"
            )),
        "{note}"
    );
    // The service's dates stay as given.
    let kept: Vec<(String, Option<String>)> = all(
        &store.conn,
        "SELECT last_refresh_date, last_change_date FROM ratings ORDER BY company",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(kept[0], (future.to_string(), Some(future.to_string())));
    let dates = |store: &Store, run: i64| -> Vec<(String, Option<String>, Option<String>)> {
        all(
            &store.conn,
            "SELECT ref, last_refresh_date, last_change_date FROM run_results
             WHERE run_id = ?1 ORDER BY line",
            [run],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    };
    let shown = |r: &str, refreshed: &str, changed: Option<&str>| {
        (
            r.to_string(),
            Some(refreshed.to_string()),
            changed.map(String::from),
        )
    };
    let as_first_seen = vec![
        shown("C-1", night, Some(night)),
        shown("C-2", night, None),
        shown("C-3", hours_ahead, Some(hours_ahead)),
        shown("C-4", night, Some("2026-10-01T00:00:00Z")),
    ];
    assert_eq!(dates(&store, first), as_first_seen);
    let digest = store
        .alert_digest(first, &Rules::default(), Verdicts::Recorded)
        .unwrap();
    let red = digest.listed.iter().find(|a| a.refs == "C-1").unwrap();
    assert_eq!(red.last_refresh_date, Some(ts(night)), "the REFRESHED day");

    // Forty days later the service says the same: the same rating, seen again, and as old
    // as it is.
    let before = history_len(&store);
    let second = screened(
        &mut store,
        "p",
        &[
            (
                "C-1",
                seen(uuid(1), Color::Red, Some(future), future, later),
            ),
            ("C-2", seen(uuid(2), Color::Green, None, future, later)),
            (
                "C-3",
                seen(uuid(3), Color::Green, Some(hours_ahead), hours_ahead, later),
            ),
            (
                "C-4",
                seen(
                    uuid(4),
                    Color::Green,
                    Some("2026-10-01T00:00:00Z"),
                    later,
                    later,
                ),
            ),
        ],
    );
    assert_eq!(history_len(&store), before, "the same ratings");
    let refreshed: Vec<String> = all(
        &store.conn,
        "SELECT c.company_id FROM rating_refreshes h JOIN ratings r ON r.id = h.rating
         JOIN companies c ON c.id = r.company",
        [],
        |r| r.get(0),
    );
    assert_eq!(
        refreshed,
        [uuid(4).to_string()],
        "only C-4 was recalculated"
    );
    assert_eq!(dates(&store, second)[..3], as_first_seen[..3]);
    let now: Vec<(String, i64, String, i64)> = all(
        &store.conn,
        "SELECT ref, stale, color_since, days_in_color FROM portfolio_now
         WHERE portfolio = 'p' ORDER BY ref",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    );
    let row = |r: &str, stale: i64, since: &str, days: i64| {
        (r.to_string(), stale, since.to_string(), days)
    };
    assert_eq!(
        now,
        [
            row("C-1", 1, night, 40),
            row("C-2", 1, night, 40),
            // The color period starts no later than ratewatch first saw the color
            // (color_periods' valid_from), whatever the service dated it.
            row("C-3", 1, night, 40),
            row("C-4", 0, "2026-10-01T00:00:00Z", 96),
        ]
    );
    // The reports judge as the views do.
    let staleness = crate::model::Staleness::new(ts(later), 30);
    let mut stale = Vec::new();
    store
        .for_each_result(second, false, |row| {
            let judged = staleness.of(&row);
            stale.push((row.reference.unwrap(), judged));
            Ok::<_, StoreError>(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        stale,
        [
            ("C-1".to_string(), true),
            ("C-2".to_string(), true),
            ("C-3".to_string(), true),
            ("C-4".to_string(), false)
        ]
    );
}

#[test]
fn a_request_the_account_dates_in_the_future_is_set_aside_and_one_ahead_by_hours_seen_now() {
    let (_dir, _, mut store) = new_store();
    let now = "2026-11-26T02:00:00Z";
    store.pin_clock(Some(ts(now)));
    let (a, b) = (uuid(0xa), uuid(0xb));
    let synced = store
        .record_account_history(&[
            rating(
                a,
                Color::Red,
                "2099-01-01T00:00:00Z",
                "2099-01-01T00:00:00Z",
                "2099-01-01T00:00:00Z",
            ),
            rating(
                a,
                Color::Green,
                "2026-11-20T00:00:00Z",
                "2026-11-25T00:00:00Z",
                "2026-11-26T01:00:00Z",
            ),
            rating(
                b,
                Color::Yellow,
                "2026-11-20T00:00:00Z",
                "2026-11-25T00:00:00Z",
                "2026-11-26T20:00:00Z",
            ),
            rating(
                b,
                Color::Red,
                "2026-11-20T00:00:00Z",
                "2026-11-25T00:00:00Z",
                "2026-11-27T02:00:01Z",
            ),
        ])
        .unwrap();
    store.pin_clock(None);
    assert_eq!(
        synced,
        AccountSync {
            added: 2,
            new_observations: 2,
            new_companies: 2,
            future: 2,
            ..AccountSync::default()
        }
    );
    let latest: Vec<(String, String, String)> = all(
        &store.conn,
        "SELECT company_id, color, confirmed_at FROM latest_ratings ORDER BY company_id",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    let t = |s: &str| s.to_string();
    assert_eq!(
        latest,
        [
            (a.to_string(), t("green"), t("2026-11-26T01:00:00Z")),
            (b.to_string(), t("yellow"), t(now)),
        ]
    );
    // The audit keeps the service's time of what it stored.
    let kept: Vec<String> = all(
        &store.conn,
        "SELECT requested_at FROM account_requests ORDER BY requested_at",
        [],
        |r| r.get(0),
    );
    assert_eq!(kept, ["2026-11-26T01:00:00Z", "2026-11-26T20:00:00Z"]);
}

#[test]
fn a_stored_time_that_is_not_one_is_refused_not_guessed() {
    let (_dir, _, mut store) = new_store();
    let run_id = run(&mut store);
    let start = store.run_info(run_id).unwrap().started_at;
    assert_eq!(time_text(start).len(), "2026-11-21T02:00:00Z".len());
    store
        .conn
        .execute(
            "UPDATE runs SET started_at = 'yesterday' WHERE id = ?1",
            [run_id],
        )
        .unwrap();
    let err = store.run_info(run_id).unwrap_err();
    assert!(err.to_string().contains(&format!("run {run_id}")), "{err}");
}

#[test]
fn a_cached_search_that_cannot_be_read_as_written_is_an_error_never_another_answer() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).unwrap();
    store
        .conn
        .execute_batch(
            "INSERT INTO resolutions (search_key, outcome, candidates, resolved_at)
             VALUES ('name|FR|acme', 'ambiguous', 'not json', '2026-01-01T00:00:00Z'),
                    ('name|FR|beta', 'unresolved', NULL, 'yesterday');",
        )
        .unwrap();
    for key in ["name|FR|acme", "name|FR|beta"] {
        let read = store.cached_resolution(key);
        assert!(read.is_err(), "{key}: {read:?}");
    }
    assert_eq!(store.cached_resolution("name|FR|gamma").unwrap(), None);
}

/// A night of portfolio `p`, whose file carries `Encours (€)` and `Commercial`: each row
/// (ref, company, color, amount as written) rated at `at`; decided by `rules`, delivered.
fn night_with_amounts(
    store: &mut Store,
    at: &str,
    rows: &[(String, Uuid, Color, &str)],
    rules: &Rules,
) -> i64 {
    let run_id = store
        .start_run(&NewRun {
            portfolio: "p".into(),
            input_path: "p.csv".into(),
            sha256: "x".into(),
            demo_day: None,
            extra_columns: vec!["Encours (€)".into(), "Commercial".into()],
            amount_column: None,
        })
        .unwrap();
    store
        .conn
        .execute(
            "UPDATE runs SET started_at = ?2 WHERE id = ?1",
            params![run_id, at],
        )
        .unwrap();
    let mut writer = store.writer(run_id).unwrap();
    store.pin_clock(Some(ts(at)));
    for (i, (reference, company, color, amount)) in rows.iter().enumerate() {
        writer
            .send(Record::Observation(Rating {
                company_id: *company,
                color: color.clone(),
                requested_at: Some(ts(at)),
                last_refresh: Some(ts(at)),
                last_change: None,
            }))
            .unwrap();
        let Record::Row(mut row) = rated(i as u64 + 2, reference, *company) else {
            unreachable!()
        };
        row.input.extra = vec![
            ("Encours (€)".into(), amount.to_string()),
            ("Commercial".into(), format!("owner of {reference}")),
        ];
        writer.send(Record::Row(row)).unwrap();
    }
    store.pin_clock(None);
    writer.finish().unwrap();
    store
        .finish_run(run_id, RunStatus::Complete, &[], &[], rules)
        .unwrap();
    store.mark_delivered(run_id).unwrap();
    run_id
}

#[test]
fn alerts_carry_their_amount_and_columns_new_red_is_never_capped_and_standing_is_one_line() {
    let (_dir, _, mut store) = new_store();
    let rules = Rules {
        amount: Some("encours (€)".into()),
        show: vec!["Commercial".into(), "Encours (€)".into()],
        max_listed: 2,
        ..Rules::default()
    };
    // Ten red at their first screening (1 000 to 10 000, French spelling), five green.
    let companies: Vec<Uuid> = (1..=15).map(uuid).collect();
    let first: Vec<(String, Uuid, Color, &str)> = companies
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let color = if i < 10 { Color::Red } else { Color::Green };
            let amount: &'static str = Box::leak(format!("{} 000,00", i + 1).into_boxed_str());
            (format!("C-{i}"), *c, color, amount)
        })
        .collect();
    let one = night_with_amounts(&mut store, "2026-01-01T02:00:00Z", &first, &rules);
    let digest = store.alert_digest(one, &rules, Verdicts::Recorded).unwrap();
    assert_eq!(digest.listed_total, 10);
    let listed: Vec<(&str, Option<f64>)> = digest
        .listed
        .iter()
        .map(|a| (a.refs.as_str(), a.amount))
        .collect();
    assert_eq!(
        listed,
        [("C-9", Some(10_000.0)), ("C-8", Some(9_000.0))],
        "the largest first screenings, as many as the cap allows"
    );
    assert_eq!(digest.kinds.len(), 1);
    let red = &digest.kinds[0];
    assert_eq!(
        (red.kind, red.count, red.first_screenings, red.amount),
        (crate::model::AlertKind::Red, 10, 10, Some(55_000.0))
    );
    assert_eq!(digest.columns, ["Commercial", "Encours (€)"]);
    assert_eq!(digest.amount_column.as_deref(), Some("Encours (€)"));
    assert_eq!(
        digest.listed[0].shown,
        [
            ("Commercial".to_string(), "owner of C-9".to_string()),
            ("Encours (€)".to_string(), "10 000,00".to_string())
        ]
    );
    let colors: Vec<(String, i64, i64, Option<f64>)> = all(
        &store.conn,
        "SELECT color, rows, new_rows, amount FROM run_colors WHERE run_id = ?1 ORDER BY color",
        [one],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    );
    assert_eq!(
        colors,
        [
            ("green".to_string(), 5, 0, Some(65_000.0)),
            ("red".to_string(), 10, 0, Some(55_000.0))
        ]
    );

    // The next night: the five green turn red (more than the cap), C-0 recovers.
    let mut second = first.clone();
    for (i, row) in second.iter_mut().enumerate() {
        row.2 = match i {
            0 => Color::Green,
            10.. => Color::Red,
            _ => Color::Red,
        };
    }
    let two = night_with_amounts(&mut store, "2026-01-02T02:00:00Z", &second, &rules);
    let digest = store.alert_digest(two, &rules, Verdicts::Recorded).unwrap();
    let listed: Vec<&str> = digest.listed.iter().map(|a| a.refs.as_str()).collect();
    assert_eq!(
        listed,
        ["C-14", "C-13", "C-12", "C-11", "C-10"],
        "every new red, largest first, whatever the cap"
    );
    assert_eq!(digest.unlisted(), 0);
    assert_eq!(
        digest.counted,
        [(crate::model::AlertKind::Improved, 1)],
        "counted, not listed"
    );
    assert_eq!(digest.standing.len(), 1);
    let standing = &digest.standing[0];
    assert_eq!(
        (standing.color.clone(), standing.count, standing.amount),
        (Color::Red, 9, Some(54_000.0))
    );
    let top: Vec<&str> = standing.top.iter().map(|a| a.refs.as_str()).collect();
    assert_eq!(top, ["C-9", "C-8", "C-7"]);
    assert_eq!(
        digest.standing_lines(crate::locale::english()),
        [
            "still red: 9 companies, 54 000 at stake (Encours (€)); largest: C-9 (10 000), C-8 (9 000), C-7 (8 000)"
        ]
    );
    let new_red: i64 = store
        .conn
        .query_row(
            "SELECT new_rows FROM run_colors WHERE run_id = ?1 AND color = 'red'",
            [two],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(new_red, 5);
}

/// Takes a database of today's schema back to version 33's rows and companies of a run
/// (`run_rows` and `run_companies` tables, as 0034 found them), for a test that goes back
/// further by hand: the rows the views show become the tables'.
fn rows_back_to_33(conn: &Connection) {
    let schema_33 = migrate::CONVERTED_SCHEMA;
    // From `head` to the end of its statement, `end` (the table's comments hold `;`).
    let statement = |head: &str, end: &str| -> &str {
        let start = schema_33.find(head).expect("version 33 has it");
        &schema_33[start..start + schema_33[start..].find(end).unwrap()]
    };
    conn.execute_batch(&format!(
        "CREATE TABLE rows_33 AS SELECT * FROM run_rows;
         DROP VIEW run_rows;
         DROP VIEW run_results;
         DROP TABLE run_row_spans;
         DROP TABLE run_named_lines;
         {};
         INSERT INTO run_rows (run_id, line, input_id, status, company, found_by, error,
                               candidates, country_defaulted, extra_unreliable, named, amount)
         SELECT run_id, line, input_id, status, company, found_by, error, candidates,
                country_defaulted, extra_unreliable, named, amount FROM rows_33;
         DROP TABLE rows_33;
         {};
         CREATE TABLE companies_33 AS SELECT * FROM run_companies;
         DROP VIEW run_companies;
         DROP TABLE run_company_ratings;
         {};
         INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
         SELECT run_id, company, rating_id, previous_rating_id, change FROM companies_33;
         DROP TABLE companies_33;
         {};
         {};",
        statement("CREATE TABLE run_rows (", ";\n-- Every run's rows"),
        statement("CREATE INDEX run_rows_by_company", ";\n"),
        statement("CREATE TABLE run_companies (", ";\n"),
        statement("CREATE INDEX run_companies_gone", ";\n"),
        statement("CREATE VIEW run_results AS", ";\n"),
    ))
    .unwrap();
}

#[test]
fn a_database_of_version_22_gains_the_amounts_and_keeps_its_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v22.db");
    {
        let (_d, _, mut store) = new_store();
        eventful_history(&mut store);
        store
            .conn
            .execute_batch(&format!("VACUUM INTO '{}'", path.display()))
            .unwrap();
    }
    // Back to version 22: its two tables without the new columns, no deliveries.
    let conn = Connection::open(&path).unwrap();
    rows_back_to_33(&conn);
    let verdicts = |conn: &Connection| -> Vec<(i64, i64, String, i64)> {
        all(
            conn,
            "SELECT run_id, company, kind, listed FROM run_alerts ORDER BY 1, 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
    };
    let before = verdicts(&conn);
    assert!(!before.is_empty());
    conn.execute_batch(
        "DROP TABLE run_deliveries;
         ALTER TABLE run_alerts DROP COLUMN amount;
         ALTER TABLE run_colors DROP COLUMN amount;
         ALTER TABLE run_colors DROP COLUMN new_rows;
         UPDATE schema_migrations SET version = 22;
         PRAGMA user_version = 22;",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    assert_eq!(verdicts(&store.conn), before);
    let recorded: Vec<i64> = all(
        &store.conn,
        "SELECT version FROM schema_migrations ORDER BY 1",
        [],
        |r| r.get(0),
    );
    let expected: Vec<i64> = (22..=SCHEMA_VERSION).collect();
    assert_eq!(recorded, expected);
}

#[test]
fn a_database_of_version_23_names_each_message_it_recorded_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v23.db");
    {
        let (_d, _, mut store) = new_store();
        for day in 1..=2 {
            let at: &'static str =
                Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
            let run = screened(
                &mut store,
                "p",
                &[("C-1", seen(uuid(1), Color::Green, None, at, at))],
            );
            store.delivery_pending(run, "webhook", "x").unwrap();
            store.delivery_pending(run, "email", "x").unwrap();
        }
        store.delivery_outcome(1, "email", "x", Ok(1)).unwrap();
        store
            .conn
            .execute_batch(&format!("VACUUM INTO '{}'", path.display()))
            .unwrap();
    }
    // Back to version 23: the ledger without its ids.
    let conn = Connection::open(&path).unwrap();
    rows_back_to_33(&conn);
    conn.execute_batch(
        "ALTER TABLE run_deliveries DROP COLUMN delivery_id;
         DELETE FROM schema_migrations WHERE version > 23;
         PRAGMA user_version = 23;",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    let rows: Vec<(i64, String, bool, String)> = all(
        &store.conn,
        "SELECT run_id, channel, delivered_at IS NOT NULL, delivery_id FROM run_deliveries
         ORDER BY 1, 2",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    );
    let kept: Vec<(i64, &str, bool)> = rows
        .iter()
        .map(|(run, channel, taken, _)| (*run, channel.as_str(), *taken))
        .collect();
    assert_eq!(
        kept,
        [
            (1, "email", true),
            (1, "webhook", false),
            (2, "email", false),
            (2, "webhook", false)
        ]
    );
    let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r.3.as_str()).collect();
    assert_eq!(ids.len(), 4, "a name of its own for each: {rows:?}");
    for id in ids {
        assert!(
            id.len() == 32
                && id
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "{id}"
        );
    }
}

#[test]
fn a_database_of_version_25_keeps_its_ledger_and_takes_a_channel_of_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v25.db");
    let ledger =
        |conn: &Connection| -> Vec<(i64, String, String, bool, i64, Option<String>)> {
            all(
            conn,
            "SELECT run_id, channel, delivery_id, delivered_at IS NOT NULL, attempts, last_error
             FROM run_deliveries ORDER BY 1, 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        };
    {
        let (_d, _, mut store) = new_store();
        for day in 1..=2 {
            let at: &'static str =
                Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
            let run = screened(
                &mut store,
                "p",
                &[("C-1", seen(uuid(1), Color::Green, None, at, at))],
            );
            store
                .delivery_pending(run, "webhook", &format!("w{run}"))
                .unwrap();
            store
                .delivery_pending(run, "email", &format!("e{run}"))
                .unwrap();
        }
        store.delivery_outcome(1, "email", "e1", Ok(1)).unwrap();
        store
            .delivery_outcome(2, "webhook", "w2", Err((3, "HTTP 503".into())))
            .unwrap();
        store
            .conn
            .execute_batch(&format!("VACUUM INTO '{}'", path.display()))
            .unwrap();
    }
    // Back to version 25: the channels' names checked against the two there were.
    let conn = Connection::open(&path).unwrap();
    rows_back_to_33(&conn);
    conn.execute_batch(
        "PRAGMA writable_schema = ON;
         UPDATE sqlite_master SET sql = replace(sql,
             'channel      TEXT    NOT NULL,',
             'channel      TEXT    NOT NULL CHECK (channel IN (''webhook'', ''email'')),')
         WHERE name = 'run_deliveries';
         PRAGMA writable_schema = OFF;
         DELETE FROM schema_migrations WHERE version > 25;
         PRAGMA user_version = 25;",
    )
    .unwrap();
    let before = ledger(&conn);
    assert_eq!(before.len(), 4);
    drop(conn);
    let refused = Connection::open(&path).unwrap().execute(
        "INSERT INTO run_deliveries (run_id, channel, delivery_id) VALUES (1, 'pagerduty', 'p1')",
        [],
    );
    assert!(refused.is_err(), "version 25 knows two channels");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(schema_of(&store.conn), schema_file());
    assert_eq!(ledger(&store.conn), before, "every row kept as it was");
    store.delivery_pending(2, "pagerduty", "p2").unwrap();
    let since = ts("2025-01-01T00:00:00Z");
    assert_eq!(
        store
            .undelivered_messages("p", "pagerduty", 3, since)
            .unwrap(),
        [(2, "p2".to_string())]
    );
}

#[test]
fn a_message_no_channel_took_is_pending_until_one_does_and_then_never_again() {
    let (_dir, _, mut store) = new_store();
    let since = ts("2025-01-01T00:00:00Z");
    let id = |run: i64| format!("{run:032x}");
    let mut runs = Vec::new();
    for day in 1..=10 {
        let at: &'static str = Box::leak(format!("2026-01-{day:02}T02:00:00Z").into_boxed_str());
        let run = screened(
            &mut store,
            "p",
            &[("C-1", seen(uuid(1), Color::Green, None, at, at))],
        );
        store.delivery_pending(run, "webhook", &id(run)).unwrap();
        runs.push(run);
    }
    // Killed while sending, or refused: pending, whatever the other channel did.
    store
        .delivery_outcome(
            runs[0],
            "webhook",
            &id(runs[0]),
            Err((3, "HTTP 503".into())),
        )
        .unwrap();
    store
        .delivery_outcome(runs[1], "webhook", &id(runs[1]), Ok(2))
        .unwrap();
    store.delivery_pending(runs[2], "email", "e2").unwrap();
    store
        .delivery_outcome(runs[2], "email", "e2", Ok(1))
        .unwrap();
    let pending = store
        .undelivered_messages("p", "webhook", runs[9], since)
        .unwrap();
    assert_eq!(pending.len(), RESENT_AT_MOST, "the latest week at most");
    let expected: Vec<(i64, String)> = runs[2..9].iter().map(|r| (*r, id(*r))).collect();
    assert_eq!(
        pending, expected,
        "oldest first, not run 2, taken; each with its id"
    );
    assert!(
        store
            .undelivered_messages("p", "email", runs[9], since)
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .undelivered_messages("other", "webhook", runs[9], since)
            .unwrap()
            .is_empty()
    );
    // Taken late: never again; the attempts add up; the id stays the first one.
    store
        .delivery_outcome(runs[0], "webhook", "another", Ok(1))
        .unwrap();
    let (attempts, error, kept): (i64, Option<String>, String) = store
        .conn
        .query_row(
            "SELECT attempts, last_error, delivery_id FROM run_deliveries WHERE run_id = ?1",
            [runs[0]],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((attempts, error, kept), (4, None, id(runs[0])));
    let late = ts("2026-01-05T00:00:00Z");
    let expected: Vec<(i64, String)> = runs[4..9].iter().map(|r| (*r, id(*r))).collect();
    assert_eq!(
        store
            .undelivered_messages("p", "webhook", runs[9], late)
            .unwrap(),
        expected,
        "only runs started after `since`"
    );
    // A run resumed after its message was taken sends a new one, pending under a new id.
    store
        .delivery_pending(runs[1], "webhook", "resumed")
        .unwrap();
    let (pending, named): (bool, String) = store
        .conn
        .query_row(
            "SELECT delivered_at IS NULL, delivery_id FROM run_deliveries
             WHERE run_id = ?1 AND channel = 'webhook'",
            [runs[1]],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((pending, named.as_str()), (true, "resumed"));
}

#[test]
fn a_write_that_cannot_get_in_within_its_wait_says_so_and_asks_to_try_again() {
    let (_dir, path, _) = new_store();
    // Another program holding the write lock, which knows nothing of the run's turn.
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut store = Store::open(&path).unwrap();
    store.conn.busy_timeout(Duration::from_millis(50)).unwrap();
    let refused = store.revoke("R1", "marie", None).unwrap_err();
    assert!(matches!(refused, StoreError::Locked { .. }), "{refused:?}");
    let said = refused.to_string();
    assert!(
        said.starts_with("revoking a decision: a screening run, or another program, writing")
            && said.contains("within 10 s; try again in a moment"),
        "{said}"
    );
    other.execute_batch("COMMIT").unwrap();
    assert_eq!(
        store.revoke("R1", "marie", None).unwrap(),
        0,
        "in once it is free"
    );
}

#[test]
fn a_run_s_report_rows_are_read_by_key_and_its_alerts_rows_from_its_alerts() {
    let (_dir, _, store) = new_store();
    // Every row in input order: the run's rows by their primary key, the rest by key.
    let all = plan(&store, &results::results_sql(results::Rows::All));
    assert_eq!(full_scans(&all), Vec::<&String>::new(), "{all:#?}");
    // Streamed as they come, in input order: never sorted.
    assert!(!all.iter().any(|l| l.contains("TEMP B-TREE")), "{all:#?}");
    assert!(
        all.iter()
            .any(|l| l.contains("SEARCH s USING PRIMARY KEY (portfolio=?)")),
        "{all:#?}"
    );
    // The alerts' rows (report.html's second pass): the run's alerts first, each
    // company's rows through their index, never a pass over all the run's rows. What is
    // scanned is the query's own sorted subquery.
    let alerts = plan(
        &store,
        &results::results_sql(results::Rows::AlertsByCompany),
    );
    assert!(alerts.iter().any(|l| l == "CO-ROUTINE v"), "{alerts:#?}");
    let scans: Vec<&String> = full_scans(&alerts)
        .into_iter()
        .filter(|l| l.as_str() != "SCAN v")
        .collect();
    assert_eq!(scans, Vec::<&String>::new(), "{alerts:#?}");
    let alerts_first = alerts
        .iter()
        .position(|l| l.starts_with("SEARCH a USING") && l.ends_with("(run_id=?)"));
    let rows_by_company = alerts
        .iter()
        .position(|l| l.starts_with("SEARCH s USING INDEX run_row_spans_by_company (company=?"));
    assert!(
        matches!((alerts_first, rows_by_company), (Some(a), Some(s)) if a < s),
        "{alerts:#?}"
    );
}
