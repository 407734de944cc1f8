//! Creates a new database from `migrations/schema.sql`, and brings one of an earlier
//! version to it: through the steps of `migrations/upgrade/`, in order, each once and
//! recorded. Forward only: a released file is never edited. One from a newer ratewatch, or
//! one that is not ratewatch's, is refused untouched.
//!
//! Every version ratewatch ever wrote upgrades, since version 1:
//!
//! - versions 1 to 21 through the old steps ([`MIGRATIONS`]), each from the one before,
//!   then the conversion (step 22), which sets their tables aside, creates the schema of
//!   version 33 (`migrations/upgrade/0022_readable_schema_as_of_33.sql`) and copies the
//!   rows into it;
//! - version 22 and later (a database created from the `schema.sql` of its version, or
//!   converted) through the steps after the conversion ([`SINCE_CONVERSION`]).
//!
//! The rule of the chain: each step after the conversion runs on a database of the version
//! before it. The steps up to 33 also run, right after the conversion, on the version-33
//! schema it created: there each keeps every row (it may fill in what the conversion left
//! empty) and may pass through its own version's form of a table (0024 makes
//! `run_deliveries` as version 24 had it, 0026 as 33's), rebuilding what it changes (`DROP
//! … IF EXISTS`, a table renamed aside and created again) rather than adding to it. From
//! 34 on, a step runs on the version before it alone; the last leaves exactly `schema.sql`.
//! Both ends are tested: a database of each version from 1 to 21, and one created by the
//! `schema.sql` of each version since 22 (kept as `tests/fixtures/schema-<version>.sql`,
//! one more with each new version; 33's is the conversion's own), upgrade to exactly
//! `schema.sql`; and the steps after the conversion keep a converted database's rows, step
//! by step, and end at `schema.sql`.

use rusqlite::Connection;

use super::sql::{StoreError, now_text};

/// The schema a new database is created with, and every upgrade ends at.
pub const SCHEMA: &str = include_str!("../../migrations/schema.sql");

/// The version of [`SCHEMA`], and the name a new database records it under.
pub const SCHEMA_VERSION: i64 = 34;
const SCHEMA_NAME: &str = "readable_schema";

/// The version of the conversion to the readable schema ([`CONVERSION`]).
pub(super) const CONVERSION_VERSION: i64 = 22;

/// The step from version 21 to the readable schema: its old tables are set aside where the
/// file says, then [`CONVERTED_SCHEMA`] is created, then the rows are copied.
const CONVERSION: &str = include_str!("../../migrations/upgrade/0022_readable_schema.sql");
const SCHEMA_HERE: &str = "-- @schema: migrations/schema.sql is created here.";
/// The schema the conversion creates: `schema.sql` as version 33 had it, on which the
/// steps after the conversion run.
pub(super) const CONVERTED_SCHEMA: &str =
    include_str!("../../migrations/upgrade/0022_readable_schema_as_of_33.sql");

/// The upgrade steps of databases before [`SCHEMA`], in order: (version, name, SQL).
/// Version 22 is [`CONVERSION`]; the steps after it are in [`SINCE_CONVERSION`].
pub const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../migrations/upgrade/0001_initial.sql"),
    ),
    (
        2,
        "color_periods",
        include_str!("../../migrations/upgrade/0002_color_periods.sql"),
    ),
    (
        3,
        "gone_and_notices",
        include_str!("../../migrations/upgrade/0003_gone_and_notices.sql"),
    ),
    (
        4,
        "decisions",
        include_str!("../../migrations/upgrade/0004_decisions.sql"),
    ),
    (
        5,
        "ignored_and_rejected",
        include_str!("../../migrations/upgrade/0005_ignored_and_rejected.sql"),
    ),
    (
        6,
        "alert_rules",
        include_str!("../../migrations/upgrade/0006_alert_rules.sql"),
    ),
    (
        7,
        "account_requests",
        include_str!("../../migrations/upgrade/0007_account_requests.sql"),
    ),
    (
        8,
        "trend_and_portfolio_latest",
        include_str!("../../migrations/upgrade/0008_trend_and_portfolio_latest.sql"),
    ),
    (
        9,
        "fewer_scattered_writes",
        include_str!("../../migrations/upgrade/0009_fewer_scattered_writes.sql"),
    ),
    (
        10,
        "deferred_keys",
        include_str!("../../migrations/upgrade/0010_deferred_keys.sql"),
    ),
    (
        11,
        "compact_rows",
        include_str!("../../migrations/upgrade/0011_compact_rows.sql"),
    ),
    (
        12,
        "less_work_per_row",
        include_str!("../../migrations/upgrade/0012_less_work_per_row.sql"),
    ),
    (
        13,
        "inputs_by_their_fields",
        include_str!("../../migrations/upgrade/0013_inputs_by_their_fields.sql"),
    ),
    (
        14,
        "registry_ids_in_company_rows",
        include_str!("../../migrations/upgrade/0014_registry_ids_in_company_rows.sql"),
    ),
    (
        15,
        "row_statuses_as_numbers",
        include_str!("../../migrations/upgrade/0015_row_statuses_as_numbers.sql"),
    ),
    (
        16,
        "ratings_by_company_alone",
        include_str!("../../migrations/upgrade/0016_ratings_by_company_alone.sql"),
    ),
    (
        17,
        "delivered_runs",
        include_str!("../../migrations/upgrade/0017_delivered_runs.sql"),
    ),
    (
        18,
        "rows_read_with_care",
        include_str!("../../migrations/upgrade/0018_rows_read_with_care.sql"),
    ),
    (
        19,
        "rows_named",
        include_str!("../../migrations/upgrade/0019_rows_named.sql"),
    ),
    (
        20,
        "rows_found_by",
        include_str!("../../migrations/upgrade/0020_rows_found_by.sql"),
    ),
    (
        21,
        "reused_ratings",
        include_str!("../../migrations/upgrade/0021_reused_ratings.sql"),
    ),
];

/// The steps of databases already converted to the readable schema: (version, name, SQL).
pub const SINCE_CONVERSION: &[(i64, &str, &str)] = &[
    (
        23,
        "amounts_at_stake",
        include_str!("../../migrations/upgrade/0023_amounts_at_stake.sql"),
    ),
    (
        24,
        "delivery_ids",
        include_str!("../../migrations/upgrade/0024_delivery_ids.sql"),
    ),
    (
        25,
        "future_dates_aged_from_first_sight",
        include_str!("../../migrations/upgrade/0025_future_dates_aged_from_first_sight.sql"),
    ),
    (
        26,
        "channels_by_name",
        include_str!("../../migrations/upgrade/0026_channels_by_name.sql"),
    ),
    (
        27,
        "decision_history",
        include_str!("../../migrations/upgrade/0027_decision_history.sql"),
    ),
    (
        28,
        "analysts_answers",
        include_str!("../../migrations/upgrade/0028_analysts_answers.sql"),
    ),
    (
        29,
        "run_details_kept_for_a_while",
        include_str!("../../migrations/upgrade/0029_run_details_kept_for_a_while.sql"),
    ),
    (
        30,
        "portfolio_now_ranks_narrow_rows",
        include_str!("../../migrations/upgrade/0030_portfolio_now_ranks_narrow_rows.sql"),
    ),
    (
        31,
        "color_periods_kept",
        include_str!("../../migrations/upgrade/0031_color_periods_kept.sql"),
    ),
    (
        32,
        "run_results_dates_as_instants",
        include_str!("../../migrations/upgrade/0032_run_results_dates_as_instants.sql"),
    ),
    (
        33,
        "rating_refreshes",
        include_str!("../../migrations/upgrade/0033_rating_refreshes.sql"),
    ),
    (
        34,
        "a_night_adds_what_changed",
        include_str!("../../migrations/upgrade/0034_a_night_adds_what_changed.sql"),
    ),
];

/// The schema version this build writes.
pub fn latest_version() -> i64 {
    SCHEMA_VERSION
}

/// The SQL of the step to `version` (after [`MIGRATIONS`]: the conversion).
pub(super) fn step(version: i64) -> Option<(&'static str, String)> {
    if let Some((_, name, sql)) = MIGRATIONS
        .iter()
        .chain(SINCE_CONVERSION)
        .find(|m| m.0 == version)
    {
        return Some((name, (*sql).to_owned()));
    }
    (version == CONVERSION_VERSION).then(|| {
        let (aside, copy) = CONVERSION
            .split_once(SCHEMA_HERE)
            .expect("the conversion says where the schema is created");
        (SCHEMA_NAME, format!("{aside}\n{CONVERTED_SCHEMA}\n{copy}"))
    })
}

/// Brings the database to the latest version.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version = check(conn)?;
    if version >= latest_version() {
        return Ok(());
    }
    if version == 0 {
        return create(conn);
    }
    // A migration that rebuilds a table others refer to (0010 rebuilds `inputs`) drops
    // the old one after copying every row with its id: with foreign keys enforced, the
    // drop would first delete its rows one by one and fail on the rows that refer to them.
    // The setting cannot change inside a transaction, so it is off around all of them.
    conn.pragma_update(None, "foreign_keys", false)
        .map_err(StoreError::at("starting the migrations"))?;
    let applied = apply(conn, version);
    // The conversion leaves the old tables' pages free: the file is compacted once, after
    // its commit (VACUUM cannot run in a transaction). A failure here loses nothing.
    if applied.is_ok()
        && version < CONVERSION_VERSION
        && let Err(e) = conn.execute_batch("VACUUM")
    {
        tracing::warn!("compacting the database after its upgrade: {e}");
    }
    // 0012 edits the schema's text with `writable_schema`, and 0010, 0011, 0014 and 0015
    // rename with `legacy_alter_table`: settings of the connection that a failed
    // migration's rollback leaves as they were, so both are always switched off.
    conn.pragma_update(None, "writable_schema", false)
        .and_then(|()| conn.pragma_update(None, "legacy_alter_table", false))
        .and_then(|()| conn.pragma_update(None, "foreign_keys", true))
        .map_err(StoreError::at("ending the migrations"))?;
    applied
}

/// Creates a new database's schema, in one transaction.
fn create(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn
        .transaction()
        .map_err(StoreError::at("creating the database"))?;
    record(&tx, SCHEMA_VERSION, SCHEMA_NAME, SCHEMA)?;
    tx.commit()
        .map_err(StoreError::at("committing the new database's schema"))
}

fn apply(conn: &mut Connection, version: i64) -> Result<(), StoreError> {
    for v in version + 1..=SCHEMA_VERSION {
        let (name, sql) = step(v).expect("every version up to the schema's has a step");
        let tx = conn
            .transaction()
            .map_err(StoreError::at("starting a migration"))?;
        record(&tx, v, name, &sql)?;
        tx.commit().map_err(StoreError::at(format!(
            "committing migration {v:04}_{name}"
        )))?;
    }
    Ok(())
}

/// Runs `sql` and records it as version `v`, in the caller's transaction.
fn record(tx: &rusqlite::Transaction<'_>, v: i64, name: &str, sql: &str) -> Result<(), StoreError> {
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
        .map_err(StoreError::at("recording the schema version"))
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
