//! Applies the SQL files of `migrations/` in order, each once, and records them.
//!
//! Forward only: a released file is never edited. A database from an older ratewatch is
//! brought up to date; one from a newer ratewatch, or one that is not ratewatch's, is
//! refused untouched.

use rusqlite::Connection;

use super::{StoreError, now_text};

/// Every migration, in order: (version, name, SQL).
pub const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../migrations/0001_initial.sql"),
    ),
    (
        2,
        "color_periods",
        include_str!("../../migrations/0002_color_periods.sql"),
    ),
    (
        3,
        "gone_and_notices",
        include_str!("../../migrations/0003_gone_and_notices.sql"),
    ),
    (
        4,
        "decisions",
        include_str!("../../migrations/0004_decisions.sql"),
    ),
    (
        5,
        "ignored_and_rejected",
        include_str!("../../migrations/0005_ignored_and_rejected.sql"),
    ),
    (
        6,
        "alert_rules",
        include_str!("../../migrations/0006_alert_rules.sql"),
    ),
    (
        7,
        "account_requests",
        include_str!("../../migrations/0007_account_requests.sql"),
    ),
    (
        8,
        "trend_and_portfolio_latest",
        include_str!("../../migrations/0008_trend_and_portfolio_latest.sql"),
    ),
    (
        9,
        "fewer_scattered_writes",
        include_str!("../../migrations/0009_fewer_scattered_writes.sql"),
    ),
    (
        10,
        "deferred_keys",
        include_str!("../../migrations/0010_deferred_keys.sql"),
    ),
    (
        11,
        "compact_rows",
        include_str!("../../migrations/0011_compact_rows.sql"),
    ),
    (
        12,
        "less_work_per_row",
        include_str!("../../migrations/0012_less_work_per_row.sql"),
    ),
    (
        13,
        "inputs_by_their_fields",
        include_str!("../../migrations/0013_inputs_by_their_fields.sql"),
    ),
    (
        14,
        "registry_ids_in_company_rows",
        include_str!("../../migrations/0014_registry_ids_in_company_rows.sql"),
    ),
    (
        15,
        "row_statuses_as_numbers",
        include_str!("../../migrations/0015_row_statuses_as_numbers.sql"),
    ),
    (
        16,
        "ratings_by_company_alone",
        include_str!("../../migrations/0016_ratings_by_company_alone.sql"),
    ),
    (
        17,
        "delivered_runs",
        include_str!("../../migrations/0017_delivered_runs.sql"),
    ),
    (
        18,
        "rows_read_with_care",
        include_str!("../../migrations/0018_rows_read_with_care.sql"),
    ),
    (
        19,
        "rows_named",
        include_str!("../../migrations/0019_rows_named.sql"),
    ),
    (
        20,
        "rows_found_by",
        include_str!("../../migrations/0020_rows_found_by.sql"),
    ),
    (
        21,
        "reused_ratings",
        include_str!("../../migrations/0021_reused_ratings.sql"),
    ),
];

/// The schema version this build writes.
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// Brings the database to the latest version.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version = check(conn)?;
    if version >= latest_version() {
        return Ok(());
    }
    // A migration that rebuilds a table others refer to (0010 rebuilds `inputs`) drops
    // the old one after copying every row with its id: with foreign keys enforced, the
    // drop would first delete its rows one by one and fail on the rows that refer to them.
    // The setting cannot change inside a transaction, so it is off around all of them.
    conn.pragma_update(None, "foreign_keys", false)
        .map_err(StoreError::at("starting the migrations"))?;
    let applied = apply(conn, version);
    // 0012 edits the schema's text with `writable_schema`, and 0010, 0011, 0014 and 0015
    // rename with `legacy_alter_table`: settings of the connection that a failed
    // migration's rollback leaves as they were, so both are always switched off.
    conn.pragma_update(None, "writable_schema", false)
        .and_then(|()| conn.pragma_update(None, "legacy_alter_table", false))
        .and_then(|()| conn.pragma_update(None, "foreign_keys", true))
        .map_err(StoreError::at("ending the migrations"))?;
    applied
}

fn apply(conn: &mut Connection, version: i64) -> Result<(), StoreError> {
    for (v, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > version) {
        let tx = conn
            .transaction()
            .map_err(StoreError::at("starting a migration"))?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                 version    INTEGER PRIMARY KEY,
                 name       TEXT NOT NULL,
                 applied_at TEXT NOT NULL
             );",
        )
        .map_err(StoreError::at("recording migrations"))?;
        tx.execute_batch(sql)
            .map_err(StoreError::at(format!("applying migration {v:04}_{name}")))?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![v, name, now_text()],
        )
        .map_err(StoreError::at("recording a migration"))?;
        tx.pragma_update(None, "user_version", v)
            .map_err(StoreError::at("recording the schema version"))?;
        tx.commit().map_err(StoreError::at(format!(
            "committing migration {v:04}_{name}"
        )))?;
    }
    Ok(())
}

/// The schema version of a database that ratewatch can use, without changing anything:
/// refuses one of another program or of a newer ratewatch.
pub fn check(conn: &Connection) -> Result<i64, StoreError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(StoreError::at("reading the schema version"))?;
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            [],
            |r| r.get(0),
        )
        .map_err(StoreError::at("reading the schema"))?;
    let ours: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
            [],
            |r| r.get(0),
        )
        .map_err(StoreError::at("reading the schema"))?;
    if tables > 0 && ours == 0 {
        return Err(StoreError::Foreign);
    }
    if version > latest_version() {
        return Err(StoreError::Newer {
            found: version,
            known: latest_version(),
        });
    }
    Ok(version)
}
