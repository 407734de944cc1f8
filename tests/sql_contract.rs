//! The SQL contract: the views of migrations/schema.sql as docs/database.md,
//! samples/queries.sql and samples/datasette.yml use them. Every example runs and reads the
//! views (or a finished run of a named portfolio); every canned query answers what the data
//! says; the documented joins search through indexes; a run in progress never shows through
//! the views of the latest finished run.
//!
//! Two kinds of database: one written row by row from migrations/schema.sql, whose every
//! answer is known here in advance, and one made by `ratewatch screen`, checked against the
//! reports of its runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratewatch::model::Color;
use ratewatch::sim::server::DEFAULT_SEED;
use ratewatch::sim::{Faults, SimConfig};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::common::wait::{a_second_later, count_now, wait_until};
use crate::common::{InFolder, KEY, Workspace, background};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

// ---------------------------------------------------------------------------------------
// The SQL of the docs and the samples.

/// The views of the contract (docs/database.md, "The views").
const VIEWS: [&str; 13] = [
    "latest_ratings",
    "registry_ratings",
    "color_periods",
    "color_changes",
    "run_results",
    "latest_finished_runs",
    "latest_results",
    "portfolio_now",
    "portfolio_latest",
    "usage_by_month",
    "acknowledgements",
    "review_decisions",
    "audit_trail",
];

/// Views that show a table of version 33 as it was, now kept in another form (docs/database.md,
/// "Internals"): not for readers, who read `run_results`.
const TABLES_AS_THEY_WERE: [&str; 2] = ["run_rows", "run_companies"];

/// One example query: where it is written, and its SQL.
#[derive(Debug, Clone)]
struct Example {
    source: String,
    /// Written in docs/database.md's "Internals" section: it may read the tables.
    internals: bool,
    sql: String,
}

/// Every statement of the ```sql blocks of docs/database.md, then of samples/queries.sql.
fn examples() -> Vec<Example> {
    let doc = read("docs/database.md");
    let internals_from = doc.find("\n## Internals").expect("an Internals section");
    let mut examples = Vec::new();
    let mut at = 0;
    while let Some(start) = doc[at..]
        .find("```sql\n")
        .map(|i| at + i + "```sql\n".len())
    {
        let end = start + doc[start..].find("```").expect("a closed block");
        let line = doc[..start].lines().count();
        for sql in statements(&doc[start..end]) {
            examples.push(Example {
                source: format!("docs/database.md, block at line {line}"),
                internals: start > internals_from,
                sql,
            });
        }
        at = end + 3;
    }
    for (n, sql) in statements(&read("samples/queries.sql"))
        .into_iter()
        .enumerate()
    {
        examples.push(Example {
            source: format!("samples/queries.sql, statement {}", n + 1),
            internals: false,
            sql,
        });
    }
    assert!(examples.len() > 20, "{} examples", examples.len());
    examples
}

/// SQL text cut into statements at the semicolons outside quotes and comments; a piece
/// holding only comments is no statement.
fn statements(text: &str) -> Vec<String> {
    let (mut out, mut current) = (Vec::new(), String::new());
    let (mut quote, mut comment, mut code) = (None::<char>, false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        match (quote, comment) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, true) if c == '\n' => comment = false,
            (None, true) => {}
            (None, false) if c == '-' && chars.peek() == Some(&'-') => comment = true,
            (None, false) if matches!(c, '\'' | '"') => {
                quote = Some(c);
                code = true;
            }
            (None, false) if c == ';' => {
                if code {
                    out.push(current.trim().to_string());
                }
                current.clear();
                code = false;
            }
            (None, false) if !c.is_whitespace() => code = true,
            (None, false) => {}
        }
    }
    assert!(!code, "a statement without its semicolon: {current}");
    out
}

/// The names an SQL statement reads from: what follows each FROM and JOIN, less the names
/// its WITH clause defines (comments left out).
fn sources(sql: &str) -> BTreeSet<String> {
    let code: String = sql
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let words: Vec<String> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '('))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let defined: BTreeSet<&String> = words
        .windows(3)
        .filter(|w| {
            // `name AS (`, `name AS MATERIALIZED (`, `name AS NOT MATERIALIZED (`
            w[1] == "as"
                && (w[2].starts_with('(') || matches!(w[2].as_str(), "materialized" | "not"))
        })
        .map(|w| &w[0])
        .collect();
    words
        .windows(2)
        .filter(|w| w[0] == "from" || w[0] == "join")
        .map(|w| w[1].clone())
        .filter(|name| !name.starts_with('(') && !defined.contains(name))
        .collect()
}

/// A canned query of samples/datasette.yml.
#[derive(Debug)]
struct Canned {
    name: String,
    params: Vec<String>,
    sql: String,
}

/// The canned queries of samples/datasette.yml, read with a parser of the few YAML forms
/// the file uses: `databases:` / `  ratewatch:` / `    queries:`, then each query's name
/// at 6 spaces, its keys at 8, `params:` as a list of `- name` at 8, and `sql: |-` and
/// `description: |-` as blocks indented by 10.
fn canned() -> Vec<Canned> {
    let text = read("samples/datasette.yml");
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let start = body
        .windows(3)
        .position(|w| w == ["databases:", "  ratewatch:", "    queries:"])
        .expect("databases: ratewatch: queries:")
        + 3;
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut queries: Vec<Canned> = Vec::new();
    let mut lines = body[start..].iter().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() {
            continue;
        }
        match indent(line) {
            6 => queries.push(Canned {
                name: line.trim().strip_suffix(':').expect("name:").to_string(),
                params: Vec::new(),
                sql: String::new(),
            }),
            8 => {
                let query = queries.last_mut().expect("a key inside a query");
                let key = line.trim();
                if key == "params:" {
                    while let Some(item) = lines.peek().and_then(|l| l.strip_prefix("        - ")) {
                        query.params.push(item.trim().to_string());
                        lines.next();
                    }
                } else if key.ends_with("|-") {
                    let mut block = Vec::new();
                    while let Some(l) = lines.next_if(|l| l.trim().is_empty() || indent(l) >= 10) {
                        block.push(l.get(10..).unwrap_or(""));
                    }
                    if key == "sql: |-" {
                        query.sql = block.join("\n").trim_end().to_string();
                    }
                } else {
                    assert!(key.contains(": "), "an unexpected line: {line}");
                }
            }
            _ => panic!("an unexpected line: {line}"),
        }
    }
    assert!(queries.iter().all(|q| !q.sql.is_empty()), "{queries:?}");
    queries
}

fn canned_query(name: &str) -> Canned {
    canned()
        .into_iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("no canned query {name}"))
}

// ---------------------------------------------------------------------------------------
// Running them.

/// Every row of a query, each column as text (NULL as ""), its named parameters bound as
/// text the way Datasette binds a form's fields.
fn answers(conn: &Connection, sql: &str, params: &[(&str, &str)]) -> Vec<Vec<String>> {
    try_answers(conn, sql, params).unwrap_or_else(|e| panic!("{e}:\n{sql}"))
}

fn try_answers(
    conn: &Connection,
    sql: &str,
    params: &[(&str, &str)],
) -> rusqlite::Result<Vec<Vec<String>>> {
    let mut stmt = conn.prepare(sql)?;
    for i in 1..=stmt.parameter_count() {
        let name = stmt
            .parameter_name(i)
            .expect("named parameters")
            .to_string();
        let value = params
            .iter()
            .find(|(n, _)| *n == &name[1..])
            .unwrap_or_else(|| panic!("no value for {name}:\n{sql}"))
            .1;
        stmt.raw_bind_parameter(i, value)?;
    }
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(
            (0..n)
                .map(|i| {
                    Ok(match row.get::<_, rusqlite::types::Value>(i)? {
                        rusqlite::types::Value::Null => String::new(),
                        rusqlite::types::Value::Integer(v) => v.to_string(),
                        rusqlite::types::Value::Real(v) => v.to_string(),
                        rusqlite::types::Value::Text(v) => v,
                        rusqlite::types::Value::Blob(_) => "<blob>".into(),
                    })
                })
                .collect::<rusqlite::Result<_>>()?,
        );
    }
    Ok(out)
}

fn run_canned(conn: &Connection, name: &str, params: &[(&str, &str)]) -> Vec<Vec<String>> {
    let query = canned_query(name);
    answers(conn, &query.sql, params)
}

fn read_only(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// Whether an example reads the rating history, which a run in progress adds to as it
/// goes (docs/database.md, "Reading during a run"): every other example is about finished
/// runs and must not see one in progress.
fn reads_the_history(example: &Example) -> bool {
    let history = [
        "latest_ratings",
        "color_periods",
        "color_changes",
        "registry_ratings",
        "usage_by_month",
        "account_requests",
    ];
    sources(&example.sql)
        .iter()
        .any(|s| history.contains(&s.as_str()))
}

// ---------------------------------------------------------------------------------------
// A database written row by row, whose answers are known.

/// Two nights of the portfolio `portfolio` (run 1 complete, run 2 partial), one of the
/// portfolio `other` (run 3), and a request made elsewhere read by sync-history:
///
/// | ref | company | run 1 | run 2 | carried amount |
/// |---|---|---|---|---|
/// | C-1, C-2 | Alpha Industrie SA (SIREN 552100554) | green since 2026-01-10 | red since 2026-03-01T12:00 | `120 000,00`, `5000` |
/// | C-3 | Beta Transports SARL (SIREN 732829320) | red since 2025-12-01 | red | `1 250,50 €` |
/// | C-4 | Gamma Werke GmbH | yellow since 2026-02-01 | yellow, refreshed | `n/a` |
/// | C-5 | Delta Handel BV | black since 2025-06-01, acknowledged | black, stale | blank |
/// | C-6 | none | unresolved | failed | `300` |
/// | C-7 | none | ambiguous | ambiguous | none |
/// | (no ref) | Beta | rated | rated | `999` |
///
/// `other` (run 3): O-1 Epsilon Ltd green, O-2 Beta red; sync-history then reads Epsilon
/// red.
const WRITTEN: &str = r#"
INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, finished_at, status,
                  delivered_at, rows_total, rows_rated, rows_unresolved, rows_ambiguous,
                  rows_failed, alerts, calls, extra_columns)
VALUES
 (1, 'portfolio', '/data/portfolio.csv', 'aa', '2026-03-01T02:00:00Z', '2026-03-01T02:10:00Z',
  'complete', '2026-03-01T02:10:00Z', 8, 6, 1, 1, 0, 2,
  '{"rating":4,"company_by_id":5,"companies_by_name":2}', '["Encours (€)","Commercial"]'),
 (2, 'portfolio', '/data/portfolio.csv', 'bb', '2026-03-02T02:00:00Z', '2026-03-02T02:10:00Z',
  'partial', '2026-03-02T02:10:00Z', 8, 6, 0, 1, 1, 3,
  '{"rating":4,"companies_by_name":1}', '["Encours (€)","Commercial"]'),
 (3, 'other', '/data/other.csv', 'cc', '2026-03-02T03:00:00Z', '2026-03-02T03:05:00Z',
  'complete', '2026-03-02T03:05:00Z', 2, 2, 0, 0, 0, 0,
  '{"rating":2,"company_by_id":2}', NULL);

INSERT INTO companies (id, company_id, name, country, first_seen_at, updated_at) VALUES
 (1, '3f2b8c4e-9a1d-4c6e-8b7f-2d5e6a7b8c9d', 'Alpha Industrie SA', 'FR',
  '2026-03-01T02:00:05Z', '2026-03-02T02:00:05Z'),
 (2, '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f', 'Beta Transports SARL', 'FR',
  '2026-03-01T02:00:06Z', '2026-03-02T02:00:06Z'),
 (3, 'a0b1c2d3-e4f5-4a6b-9c8d-7e6f5a4b3c2d', 'Gamma Werke GmbH', 'DE',
  '2026-03-01T02:00:07Z', '2026-03-02T02:00:07Z'),
 (4, 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f7a', 'Delta Handel BV', 'NL',
  '2026-03-01T02:00:08Z', '2026-03-02T02:00:08Z'),
 (5, 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'Epsilon Ltd', 'GB',
  '2026-03-02T03:00:05Z', '2026-03-02T03:00:05Z');

INSERT INTO company_external_ids (company, service, external_id) VALUES
 (1, 'SIREN', '552100554'), (1, 'SIRET', '55210055400013'), (2, 'SIREN', '732829320'),
 (3, 'COC', 'HRB 12345'), (4, 'KVK', '12345678'), (5, 'CRO', '01234567');

INSERT INTO ratings (id, company, color, last_change_date, last_refresh_date, observed_at,
                     first_run_id, source) VALUES
 (1, 1, 'green', '2026-01-10T08:00:00Z', '2026-02-28T22:00:00Z', '2026-03-01T02:00:05Z', 1, 'run'),
 (2, 2, 'red', '2025-12-01T09:00:00Z', '2026-02-27T22:00:00Z', '2026-03-01T02:00:06Z', 1, 'run'),
 (3, 3, 'yellow', '2026-02-01T10:00:00Z', '2026-02-20T22:00:00Z', '2026-03-01T02:00:07Z', 1, 'run'),
 (4, 4, 'black', '2025-06-01T00:00:00Z', '2026-01-15T22:00:00Z', '2026-03-01T02:00:08Z', 1, 'run'),
 (5, 1, 'red', '2026-03-01T12:00:00Z', '2026-03-01T22:00:00Z', '2026-03-02T02:00:05Z', 2, 'run'),
 (6, 3, 'yellow', '2026-02-01T10:00:00Z', '2026-03-01T22:00:00Z', '2026-03-02T02:00:07Z', 2, 'run'),
 (7, 5, 'green', '2026-02-15T00:00:00Z', '2026-03-01T00:00:00Z', '2026-03-02T03:00:05Z', 3, 'run'),
 (8, 5, 'red', '2026-03-02T11:00:00Z', '2026-03-02T11:00:00Z', '2026-03-02T12:00:00Z', NULL, 'account');

INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id) VALUES
 (2, '2026-03-02T03:00:06Z', 3), (4, '2026-03-02T02:00:08Z', 2);

INSERT INTO inputs (id, ref, country, service, external_id, name, extra) VALUES
 (1, 'C-1', 'FR', 'SIREN', '552100554', NULL, '{"Encours (€)":"120 000,00","Commercial":"Durand"}'),
 (2, 'C-2', 'FR', 'SIRET', '55210055400013', NULL, '{"Encours (€)":"5000","Commercial":"Martin"}'),
 (3, 'C-3', 'FR', 'SIREN', '732829320', NULL, '{"Encours (€)":"1 250,50 €","Commercial":"Durand"}'),
 (4, 'C-4', 'DE', 'COC', 'HRB 12345', NULL, '{"Encours (€)":"n/a","Commercial":"Moreau"}'),
 (5, 'C-5', 'NL', 'KVK', '12345678', NULL, '{"Encours (€)":"","Commercial":"Moreau"}'),
 (6, 'C-6', 'FR', NULL, NULL, 'Zeta Conseil', '{"Encours (€)":"300","Commercial":"Martin"}'),
 (7, 'C-7', 'FR', NULL, NULL, 'Lambda', '{"Commercial":"Martin"}'),
 (8, NULL, 'FR', 'SIREN', '732829320', NULL, '{"Encours (€)":"999","Commercial":"Durand"}'),
 (9, 'O-1', 'GB', 'CRO', '01234567', NULL, NULL),
 (10, 'O-2', 'FR', 'SIREN', '732829320', NULL, NULL);

-- The rows each run made of its file, laid out as stretches of one run each below.
CREATE TEMP TABLE given_rows (run_id, line, input_id, status, company, found_by, error,
                              candidates, amount);
INSERT INTO given_rows (run_id, line, input_id, status, company, found_by, error, candidates) VALUES
 (1, 2, 1, 'rated', 1, 'SIREN 552100554', NULL, NULL),
 (1, 3, 2, 'rated', 1, 'SIRET 55210055400013', NULL, NULL),
 (1, 4, 3, 'rated', 2, 'SIREN 732829320', NULL, NULL),
 (1, 5, 4, 'rated', 3, 'COC HRB 12345', NULL, NULL),
 (1, 6, 5, 'rated', 4, 'KVK 12345678', NULL, NULL),
 (1, 7, 6, 'unresolved', NULL, NULL, 'no company matches', NULL),
 (1, 8, 7, 'ambiguous', NULL, NULL, '2 companies match', '[]'),
 (1, 9, 8, 'rated', 2, 'SIREN 732829320', NULL, NULL),
 (2, 2, 1, 'rated', 1, 'SIREN 552100554', NULL, NULL),
 (2, 3, 2, 'rated', 1, 'SIRET 55210055400013', NULL, NULL),
 (2, 4, 3, 'rated', 2, 'SIREN 732829320', NULL, NULL),
 (2, 5, 4, 'rated', 3, 'COC HRB 12345', NULL, NULL),
 (2, 6, 5, 'rated', 4, 'KVK 12345678', NULL, NULL),
 (2, 7, 6, 'failed', NULL, NULL, 'the service did not answer', NULL),
 (2, 8, 7, 'ambiguous', NULL, NULL, '2 companies match', '[]'),
 (2, 9, 8, 'rated', 2, 'SIREN 732829320', NULL, NULL),
 (3, 2, 9, 'rated', 5, 'CRO 01234567', NULL, NULL),
 (3, 3, 10, 'rated', 2, 'SIREN 732829320', NULL, NULL);

INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id, change) VALUES
 (1, 1, 1, NULL, 'new'), (1, 2, 2, NULL, 'new'), (1, 3, 3, NULL, 'new'), (1, 4, 4, NULL, 'new'),
 (2, 1, 5, 1, 'deteriorated'), (2, 2, 2, NULL, NULL), (2, 3, 6, 3, 'evolved'),
 (2, 4, 4, NULL, NULL),
 (3, 5, 7, NULL, 'new'), (3, 2, 2, NULL, NULL);

INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed, acked,
                        previous_color) VALUES
 (1, 4, 'black', 1, 6, 'C-5', 1, 0, NULL),
 (1, 2, 'red', 2, 4, 'C-3', 1, 0, NULL),
 (2, 1, 'deteriorated', 3, 2, 'C-1,C-2', 1, 0, 'green'),
 (2, 2, 'still', 9, 4, 'C-3', 0, 0, 'red'),
 (2, 4, 'still', 9, 6, 'C-5', 0, 1, 'black'),
 (3, 2, 'red', 2, 3, 'O-2', 1, 0, NULL);

INSERT INTO run_colors (run_id, color, rows) VALUES
 (1, 'green', 2), (1, 'red', 2), (1, 'yellow', 1), (1, 'black', 1),
 (2, 'red', 4), (2, 'yellow', 1), (2, 'black', 1),
 (3, 'green', 1), (3, 'red', 1);

INSERT INTO acks (company, ref, color, acked_at, until, note) VALUES
 (4, 'C-5', 'black', '2026-03-01T08:00:00Z', NULL, 'known, followed by the sales team');

INSERT INTO account_requests (id, company, request_date, requested_at, color,
                              last_change_date, last_refresh_date, synced_at, status,
                              rating_id, previous_rating_id, change) VALUES
 (1, 5, '2026-03-02T12:00:00.123456Z', '2026-03-02T12:00:00Z', 'red',
  '2026-03-02T11:00:00Z', '2026-03-02T11:00:00Z', '2026-03-02T13:00:00Z', 'added', 8, 7,
  'deteriorated');

UPDATE runs SET amount_column = 'Encours (€)' WHERE id IN (1, 2);
UPDATE given_rows SET amount = CASE input_id WHEN 1 THEN 120000 WHEN 2 THEN 5000 WHEN 3 THEN 1250.5
                                             WHEN 6 THEN 300 WHEN 8 THEN 999 END
WHERE run_id IN (1, 2);
INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status, company,
                           found_by, error, candidates, amount)
SELECT u.portfolio, g.line, g.run_id, g.run_id, g.input_id, g.status, g.company, g.found_by,
       g.error, g.candidates, g.amount
FROM given_rows g JOIN runs u ON u.id = g.run_id;
DROP TABLE given_rows;
"#;

/// A third run of `portfolio`, in progress: it has reached three rows, found Beta green
/// and recorded the alert.
const IN_PROGRESS: &str = r#"
INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, status, calls)
VALUES (4, 'portfolio', '/data/portfolio.csv', 'dd', '2026-03-03T02:00:00Z', 'running',
        '{"rating":2}');
INSERT INTO ratings (id, company, color, last_change_date, last_refresh_date, observed_at,
                     first_run_id, source)
VALUES (9, 2, 'green', '2026-03-02T20:00:00Z', '2026-03-02T20:00:00Z', '2026-03-03T02:00:06Z',
        4, 'run');
INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
VALUES (5, '2026-03-03T02:00:05Z', 4);
INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status, company,
                           found_by) VALUES
 ('portfolio', 2, 4, 4, 1, 'rated', 1, 'SIREN 552100554'),
 ('portfolio', 3, 4, 4, 2, 'rated', 1, 'SIRET 55210055400013'),
 ('portfolio', 4, 4, 4, 3, 'rated', 2, 'SIREN 732829320');
INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id, change) VALUES
 (4, 1, 5, NULL, NULL), (4, 2, 9, 2, 'improved');
INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed, acked,
                        previous_color)
VALUES (4, 2, 'improved', 8, 4, 'C-3', 1, 0, 'red');
"#;

/// The written database, in `dir`: the schema as ratewatch creates it, then [`WRITTEN`].
fn written(dir: &Path) -> PathBuf {
    let db = dir.join("ratewatch.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;")
        .unwrap();
    conn.execute_batch(&format!(
        "BEGIN; {} PRAGMA user_version = 22; COMMIT;",
        read("migrations/schema.sql")
    ))
    .unwrap();
    conn.execute_batch(&format!("BEGIN; {WRITTEN} COMMIT;"))
        .unwrap();
    assert_eq!(
        conn.query_row("PRAGMA foreign_key_check", [], |_| Ok(()))
            .ok(),
        None,
        "every reference holds"
    );
    db
}

fn table<const N: usize>(rows: &[[&str; N]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect()
}

// ---------------------------------------------------------------------------------------
// The contract itself.

#[test]
fn every_view_naming_a_company_carries_company_and_company_id() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(written(dir.path())).unwrap();
    let views: BTreeSet<String> = answers(
        &conn,
        "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name",
        &[],
    )
    .into_iter()
    .map(|r| r[0].clone())
    .collect();
    assert_eq!(
        views,
        VIEWS
            .iter()
            .chain(&TABLES_AS_THEY_WERE)
            .map(|v| v.to_string())
            .collect()
    );
    let views: BTreeSet<String> = VIEWS.iter().map(|v| v.to_string()).collect();
    let mut missing = Vec::new();
    for view in &views {
        let columns: BTreeSet<String> = answers(
            &conn,
            &format!("SELECT name FROM pragma_table_info('{view}')"),
            &[],
        )
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
        let names = columns.contains("company") || columns.contains("company_id");
        for key in ["company", "company_id", "company_uuid"] {
            if names && !columns.contains(key) {
                missing.push(format!("{view} has no {key}"));
            }
        }
        if names {
            let differ = answers(
                &conn,
                &format!("SELECT count(*) FROM {view} WHERE company_uuid IS NOT company_id"),
                &[],
            );
            assert_eq!(
                differ,
                table(&[["0"]]),
                "{view}: company_uuid is company_id"
            );
        }
    }
    assert!(missing.is_empty(), "{missing:?}");
    // Both keys are indexed: `company` is the rowid, `company_id` UNIQUE.
    let unique = answers(
        &conn,
        "SELECT i.name FROM pragma_index_list('companies') i, pragma_index_info(i.name) c
         WHERE i.\"unique\" = 1 AND c.name = 'company_id'",
        &[],
    );
    assert_eq!(unique.len(), 1, "a UNIQUE index on companies.company_id");
}

#[test]
fn the_database_doc_describes_every_view_column_by_column() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(written(dir.path())).unwrap();
    let doc = read("docs/database.md");
    let columns = |name: &str| -> Vec<String> {
        answers(
            &conn,
            &format!("SELECT name FROM pragma_table_info('{name}')"),
            &[],
        )
        .into_iter()
        .map(|r| r[0].clone())
        .collect()
    };
    for name in VIEWS.iter().chain(&["company_external_ids"]) {
        let heading = format!("\n### `{name}`");
        let start = doc
            .find(&heading)
            .unwrap_or_else(|| panic!("docs/database.md has no section {heading}"));
        let section = &doc[start + heading.len()..];
        let section = &section[..section.find("\n#").unwrap_or(section.len())];
        // "every column of `X`" covers X's columns.
        let inherited: Vec<String> = ["run_results", "runs"]
            .iter()
            .filter(|x| section.contains(&format!("very column of `{x}`")))
            .flat_map(|x| columns(x))
            .collect();
        for column in columns(name) {
            assert!(
                section.contains(&format!("`{column}`")) || inherited.contains(&column),
                "docs/database.md does not describe {name}.{column}"
            );
        }
    }
}

#[test]
fn the_examples_read_the_views_or_a_finished_run_of_a_named_portfolio() {
    let allowed: BTreeSet<&str> = VIEWS
        .iter()
        .copied()
        .chain(["company_external_ids"])
        .collect();
    for example in examples() {
        let lowered = example.sql.to_lowercase();
        assert!(
            !lowered.contains("max(id)"),
            "{}: never max(id) of runs:\n{}",
            example.source,
            example.sql
        );
        let read = sources(&example.sql);
        if example.internals {
            // The tables' own examples: a run of theirs is a finished one of a named
            // portfolio.
            if read.contains("runs") {
                assert!(
                    lowered.contains("portfolio = '")
                        && lowered.contains("status in ('complete', 'partial')"),
                    "{}: a finished run of a named portfolio:\n{}",
                    example.source,
                    example.sql
                );
            }
            continue;
        }
        let outside: Vec<&String> = read
            .iter()
            .filter(|s| !allowed.contains(s.as_str()))
            .collect();
        assert!(
            outside.is_empty(),
            "{} reads {outside:?}, not a view:\n{}",
            example.source,
            example.sql
        );
        // A question about runs names its portfolio.
        let run_scoped = read.iter().any(|s| {
            [
                "latest_results",
                "portfolio_now",
                "portfolio_latest",
                "run_results",
            ]
            .contains(&s.as_str())
        });
        if run_scoped {
            assert!(
                lowered.contains("portfolio = '"),
                "{}: name the portfolio:\n{}",
                example.source,
                example.sql
            );
        }
        if read.contains("run_results") {
            assert!(
                read.contains("latest_finished_runs"),
                "{}: run_results of a finished run:\n{}",
                example.source,
                example.sql
            );
        }
    }
}

#[test]
fn the_docs_and_samples_write_uuids_as_lowercase_text_and_close_their_code_blocks() {
    for path in [
        "docs/database.md",
        "samples/queries.sql",
        "samples/datasette.yml",
    ] {
        let text = read(path);
        assert!(!text.contains("x'"), "{path}: a blob literal");
        let mut run = String::new();
        for c in text.chars().chain([' ']) {
            if c.is_ascii_hexdigit() || c == '-' {
                run.push(c);
                continue;
            }
            let digits = run.chars().filter(char::is_ascii_hexdigit).count();
            // A SHA-256 is not written out either; a UUID is 32 digits in 8-4-4-4-12.
            if digits >= 32 {
                let token = run.trim_matches('-');
                let groups: Vec<usize> = token.split('-').map(str::len).collect();
                assert!(
                    groups == [8, 4, 4, 4, 12] && token == token.to_lowercase(),
                    "{path}: {token} is not a UUID in lowercase text with hyphens"
                );
            }
            run.clear();
        }
    }
    let doc = read("docs/database.md");
    let fences: Vec<&str> = doc
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .collect();
    assert_eq!(fences.len() % 2, 0, "an unclosed code block");
    for pair in fences.chunks(2) {
        assert!(pair[0].trim().len() > 3, "a block without its language");
        assert_eq!(pair[1].trim(), "```", "a block opened inside another");
    }
}

#[test]
fn every_example_runs_on_a_written_database() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&written(dir.path()));
    for example in examples() {
        answers(&conn, &example.sql, &[]);
    }
    // The files as wholes, as `sqlite3 db < samples/queries.sql` runs them.
    conn.execute_batch(&read("samples/queries.sql")).unwrap();
}

#[test]
fn the_canned_queries_take_the_parameters_their_forms_show() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&written(dir.path()));
    let names: Vec<String> = canned().into_iter().map(|q| q.name).collect();
    assert_eq!(
        names,
        [
            "color_on_date",
            "company_by_siren",
            "red_for_more_than",
            "exposure_at_risk_by_color"
        ]
    );
    for query in canned() {
        let stmt = conn.prepare(&query.sql).unwrap();
        let taken: BTreeSet<String> = (1..=stmt.parameter_count())
            .map(|i| stmt.parameter_name(i).unwrap()[1..].to_string())
            .collect();
        assert_eq!(
            taken,
            query.params.iter().cloned().collect(),
            "{}: params: lists every parameter of the SQL",
            query.name
        );
        let read = sources(&query.sql);
        assert!(
            read.iter()
                .all(|s| VIEWS.contains(&s.as_str()) || s == "company_external_ids"),
            "{}: reads {read:?}",
            query.name
        );
    }
}

#[test]
fn the_canned_queries_answer_on_a_written_database() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&written(dir.path()));

    // The color on a date: the close of the day for a bare date; no color before the
    // first period; the run's color beside it.
    let on = |portfolio: &str, date: &str| -> Vec<Vec<String>> {
        run_canned(
            &conn,
            "color_on_date",
            &[("portfolio", portfolio), ("date", date)],
        )
        .into_iter()
        .map(|r| vec![r[0].clone(), r[1].clone(), r[4].clone(), r[7].clone()])
        .collect()
    };
    assert_eq!(
        on("portfolio", "2026-02-15"),
        table(&[
            ["portfolio", "C-1", "green", "red"],
            ["portfolio", "C-2", "green", "red"],
            ["portfolio", "C-3", "red", "red"],
            ["portfolio", "C-4", "yellow", "yellow"],
            ["portfolio", "C-5", "black", "black"],
        ])
    );
    let alpha = |date: &str| on("portfolio", date)[0][2].clone();
    assert_eq!(alpha("2026-03-01"), "red", "the close of 1 March");
    assert_eq!(alpha("2026-03-01T06:00:00Z"), "green");
    assert_eq!(
        alpha("2026-03-01T12:00:00Z"),
        "red",
        "from the service's date"
    );
    assert_eq!(
        alpha("2026-01-05"),
        "",
        "nothing known before its first period"
    );
    let every = on("", "2026-03-02T12:30:00Z");
    assert_eq!(every.len(), 7, "{every:?}");
    assert_eq!(
        every[0..2],
        table(&[
            ["other", "O-1", "red", "green"],
            ["other", "O-2", "red", "red"]
        ]),
        "the request read by sync-history is the color after it"
    );
    let alpha_periods = run_canned(
        &conn,
        "color_on_date",
        &[("portfolio", "portfolio"), ("date", "2026-02-15")],
    );
    assert_eq!(
        alpha_periods[0][2..7],
        [
            "3f2b8c4e-9a1d-4c6e-8b7f-2d5e6a7b8c9d",
            "Alpha Industrie SA",
            "green",
            "2026-01-10T08:00:00Z",
            "2026-03-01T12:00:00Z"
        ]
    );

    // A SIREN, written with spaces or as a SIRET, to the company and its color now.
    for siren in ["552100554", "552 100 554", "55210055400013"] {
        assert_eq!(
            run_canned(&conn, "company_by_siren", &[("siren", siren)]),
            table(&[[
                "1",
                "3f2b8c4e-9a1d-4c6e-8b7f-2d5e6a7b8c9d",
                "Alpha Industrie SA",
                "FR",
                "red",
                "2026-03-01T12:00:00Z",
                "2026-03-02T02:00:05Z"
            ]]),
            "{siren}"
        );
    }
    assert!(run_canned(&conn, "company_by_siren", &[("siren", "000000000")]).is_empty());

    // Red for more than a number of days, as of the run's start: Beta since 1 December
    // (90 days and 17 hours); Alpha since the day before (0 days).
    let red = |portfolio: &str, days: &str| {
        run_canned(
            &conn,
            "red_for_more_than",
            &[("portfolio", portfolio), ("days", days)],
        )
        .into_iter()
        .map(|r| vec![r[0].clone(), r[2].clone(), r[4].clone(), r[5].clone()])
        .collect::<Vec<_>>()
    };
    let beta = ["portfolio", "Beta Transports SARL", "90", "C-3"];
    assert_eq!(red("portfolio", "30"), table(&[beta]));
    assert_eq!(red("portfolio", "89"), table(&[beta]));
    assert!(red("portfolio", "90").is_empty());
    assert_eq!(
        red("portfolio", "-1"),
        table(&[beta, ["portfolio", "Alpha Industrie SA", "0", "C-1, C-2"]])
    );
    assert_eq!(
        red("", "30"),
        table(&[["other", "Beta Transports SARL", "90", "O-2"], beta]),
        "every portfolio, each as of its own latest finished run"
    );

    // The exposure by color, as of run 2: 120 000,00 + 5000 + 1 250,50 € in red; n/a
    // unreadable; a blank; the row without a reference left out. Each amount is the one
    // the writer stored, as ratewatch's own parser reads the carried text.
    for (given, stored) in [
        ("120 000,00", 120000.0),
        ("5000", 5000.0),
        ("1 250,50 €", 1250.5),
    ] {
        assert_eq!(ratewatch::alerts::parse_amount(given), Some(stored));
    }
    assert_eq!(ratewatch::alerts::parse_amount("n/a"), None);
    assert_eq!(
        run_canned(
            &conn,
            "exposure_at_risk_by_color",
            &[("portfolio", "portfolio")]
        ),
        table(&[
            ["black", "1", "", "1", "0", "Encours (€)"],
            ["red", "3", "126250.5", "0", "0", "Encours (€)"],
            ["yellow", "1", "", "0", "1", "Encours (€)"],
            ["(ambiguous)", "1", "", "1", "0", "Encours (€)"],
            ["(failed)", "1", "300", "0", "0", "Encours (€)"],
        ])
    );
    // A run without an amount column: nothing added, and no column named.
    let none = run_canned(
        &conn,
        "exposure_at_risk_by_color",
        &[("portfolio", "other")],
    );
    assert!(
        none.iter().all(|r| r[2].is_empty() && r[5].is_empty()),
        "{none:?}"
    );

    // Query 13 of samples/queries.sql sums the same way.
    let sample = statements(&read("samples/queries.sql"));
    let by_color: BTreeMap<String, String> = answers(&conn, &sample[12], &[])
        .into_iter()
        .map(|r| (r[0].clone(), r[2].clone()))
        .collect();
    assert_eq!(by_color["red"], "126250.5");
    assert_eq!(by_color["(failed)"], "300");
}

// ---------------------------------------------------------------------------------------
// The plans of the documented joins.

/// One line of EXPLAIN QUERY PLAN.
#[derive(Debug)]
struct Step {
    id: i64,
    parent: i64,
    detail: String,
}

fn plan(conn: &Connection, sql: &str) -> Vec<Step> {
    let mut stmt = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap_or_else(|e| panic!("{e}:\n{sql}"));
    // Parameters left unbound are NULL: the plan is the same.
    let mut rows = stmt.raw_query();
    let mut steps = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        steps.push(Step {
            id: r.get(0).unwrap(),
            parent: r.get(1).unwrap(),
            detail: r.get(3).unwrap(),
        });
    }
    steps
}

/// What makes a plan read everything once per row of something else. In the tree that
/// EXPLAIN QUERY PLAN prints, the loops of one level (the `SCAN` and `SEARCH` lines with
/// the same parent) nest in the order printed: the first is the outer-most, each next one
/// runs once per row of those before it. So:
///
/// 1. after the first loop of a level, every loop is a `SEARCH` (an index, or an
///    automatic index SQLite builds once for the statement), or a `SCAN` of a subquery
///    whose own loops are all searches (then it is a search run again);
/// 2. a correlated subquery runs once per outer row: a `SCAN` inside it is a scan per
///    row, unless the subquery reads what it scans through an automatic index (filled
///    once per statement, then searched).
///
/// Whatever the table: `companies`, `ratings` and `run_companies` among them. A `SCAN` as
/// the first loop of a level is the driving scan: of the query (the view it reads whole),
/// or of a subquery materialized once.
fn scans_per_outer_row(steps: &[Step]) -> Vec<String> {
    let children = |id: i64| steps.iter().filter(move |s| s.parent == id);
    let is_loop = |s: &Step| s.detail.starts_with("SCAN ") || s.detail.starts_with("SEARCH ");
    let subtree_scans = |id: i64| -> bool {
        let mut stack = vec![id];
        while let Some(at) = stack.pop() {
            for s in children(at) {
                if s.detail.starts_with("SCAN ") {
                    return true;
                }
                stack.push(s.id);
            }
        }
        false
    };
    let mut faults = Vec::new();
    let parents: BTreeSet<i64> = steps.iter().map(|s| s.parent).collect();
    for parent in parents {
        // A nested SCAN reads a table, a materialized subquery, or a co-routine run again
        // for each outer row. The plan names a co-routine by its view and the loop reading
        // it by the view's alias, so the two are not matched by name: a nested SCAN passes
        // only beside co-routines that all search.
        let coroutines: Vec<&Step> = children(parent)
            .filter(|s| s.detail.starts_with("CO-ROUTINE "))
            .collect();
        let nested_scans = children(parent)
            .filter(|s| is_loop(s))
            .skip(1)
            .filter(|s| s.detail.starts_with("SCAN "));
        for inner in nested_scans {
            if coroutines.is_empty() || coroutines.iter().any(|c| subtree_scans(c.id)) {
                faults.push(format!("a scan per outer row: {}", inner.detail));
            }
        }
    }
    for step in steps.iter().filter(|s| s.detail.starts_with("SCAN ")) {
        let mut at = step.parent;
        while let Some(up) = steps.iter().find(|s| s.id == at) {
            if up.detail.starts_with("CORRELATED ")
                && !children(up.id).any(|s| {
                    s.detail.starts_with("SEARCH ") && s.detail.contains(" USING AUTOMATIC ")
                })
            {
                faults.push(format!(
                    "a scan in a correlated subquery: {} in {}",
                    step.detail, up.detail
                ));
            }
            at = up.parent;
        }
    }
    faults
}

fn show(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| format!("{:>4} {:>4}  {}", s.id, s.parent, s.detail))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_documented_joins_search_through_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&written(dir.path()));
    let date = canned_query("color_on_date").sql;
    let siren = canned_query("company_by_siren").sql;
    // (what, SQL, a search it must make, whether it is a lookup that scans nothing)
    let joins: [(&str, &str, &str, bool); 6] = [
        (
            "portfolio_now joined to latest_ratings on company_id",
            "SELECT p.ref, l.color FROM portfolio_now p
             JOIN latest_ratings l ON l.company_id = p.company_id",
            "(company_id=?)",
            false,
        ),
        (
            "portfolio_now joined to latest_ratings on company",
            "SELECT p.ref, l.color FROM portfolio_now p
             JOIN latest_ratings l ON l.company = p.company",
            "(rowid=?)",
            false,
        ),
        (
            "one company by company_id in latest_ratings",
            "SELECT * FROM latest_ratings WHERE company_id = ?1",
            "(company_id=?)",
            true,
        ),
        (
            "a SIREN to its company's color (company_by_siren)",
            siren.as_str(),
            "(external_id=? AND service=?)",
            true,
        ),
        (
            "the color on a date of every portfolio company (color_on_date)",
            date.as_str(),
            "(company=?)",
            false,
        ),
        (
            "the color on a date, docs/database.md's inner join",
            "SELECT p.ref, p.name, cp.color FROM portfolio_now p
             JOIN color_periods cp ON cp.company = p.company
             WHERE p.portfolio = 'portfolio'
               AND cp.valid_from <= '2026-03-01T23:59:59Z'
               AND (cp.valid_to IS NULL OR cp.valid_to > '2026-03-01T23:59:59Z')",
            "(company=?)",
            false,
        ),
    ];
    for (what, sql, search, lookup) in joins {
        let steps = plan(&conn, sql);
        let faults = scans_per_outer_row(&steps);
        assert!(faults.is_empty(), "{what}: {faults:?}\n{}", show(&steps));
        assert!(
            steps
                .iter()
                .any(|s| s.detail.starts_with("SEARCH ") && s.detail.contains(search)),
            "{what}: no SEARCH … {search}\n{}",
            show(&steps)
        );
        if lookup {
            assert!(
                steps.iter().all(|s| !s.detail.starts_with("SCAN ")),
                "{what}: a lookup scans nothing\n{}",
                show(&steps)
            );
        }
    }
}

#[test]
fn the_rule_on_plans_tells_a_search_from_a_scan_per_row() {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE TABLE a (id INTEGER PRIMARY KEY, k TEXT);
         CREATE TABLE b (id INTEGER PRIMARY KEY, k TEXT);
         CREATE INDEX b_k ON b (k);
         PRAGMA automatic_index = OFF;",
    )
    .unwrap();
    let faults = |sql: &str| scans_per_outer_row(&plan(&conn, sql));
    assert!(faults("SELECT * FROM a JOIN b ON b.k = a.k").is_empty());
    assert!(faults("SELECT * FROM a JOIN b ON b.id = a.id").is_empty());
    assert!(!faults("SELECT * FROM a JOIN b ON b.k || '' = a.k").is_empty());
    assert!(!faults("SELECT (SELECT count(*) FROM b WHERE b.k || '' = a.k) FROM a").is_empty());
}

// ---------------------------------------------------------------------------------------
// A run in progress.

/// Each canned query with the values of its form, on the written database.
const CANNED_PARAMS: [(&str, &[(&str, &str)]); 4] = [
    (
        "color_on_date",
        &[("portfolio", "portfolio"), ("date", "2026-03-01")],
    ),
    ("company_by_siren", &[("siren", "732829320")]),
    ("red_for_more_than", &[("portfolio", ""), ("days", "30")]),
    ("exposure_at_risk_by_color", &[("portfolio", "portfolio")]),
];

/// Each example's answer, by its place in [`examples`].
fn every_answer(conn: &Connection) -> Vec<Vec<Vec<String>>> {
    examples()
        .iter()
        .map(|e| answers(conn, &e.sql, &[]))
        .collect()
}

/// The examples about finished runs answer as before `during`; the others may not.
fn assert_unmoved(before: &[Vec<Vec<String>>], during: &[Vec<Vec<String>>]) {
    let examples = examples();
    let mut checked = 0;
    for (n, example) in examples.iter().enumerate() {
        if reads_the_history(example) {
            continue;
        }
        checked += 1;
        assert_eq!(
            during[n], before[n],
            "{} answers with the run in progress:\n{}",
            example.source, example.sql
        );
    }
    assert!(checked >= 10, "{checked} examples about finished runs");
}

#[test]
fn a_run_in_progress_never_shows_through_the_latest_finished_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = written(dir.path());
    let before = every_answer(&read_only(&db));
    let canned_answers = |conn: &Connection| -> Vec<Vec<Vec<String>>> {
        CANNED_PARAMS
            .iter()
            .map(|(name, params)| run_canned(conn, name, params))
            .collect()
    };
    let canned_before = canned_answers(&read_only(&db));

    let writer = Connection::open(&db).unwrap();
    writer
        .execute_batch(&format!("BEGIN; {IN_PROGRESS} COMMIT;"))
        .unwrap();
    let conn = read_only(&db);
    let during = every_answer(&conn);
    assert_unmoved(&before, &during);
    let canned_during = canned_answers(&conn);
    for (n, (name, _)) in CANNED_PARAMS.iter().enumerate() {
        let query = canned_query(name);
        let history = sources(&query.sql)
            .iter()
            .any(|s| ["latest_ratings", "color_periods"].contains(&s.as_str()));
        if !history {
            assert_eq!(canned_during[n], canned_before[n], "{name}");
        }
    }
    // The rating history has it already: Beta is green there.
    let beta = answers(
        &conn,
        "SELECT color FROM latest_ratings WHERE company_id = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'",
        &[],
    );
    assert_eq!(beta, table(&[["green"]]));
    // And max(id) of runs would have read the run in progress.
    assert_eq!(
        answers(
            &conn,
            "SELECT status FROM runs WHERE id = (SELECT max(id) FROM runs)",
            &[]
        ),
        table(&[["running"]])
    );

    // Once it has finished, it is the latest finished run.
    writer
        .execute_batch(
            "UPDATE runs SET status = 'complete', finished_at = '2026-03-03T02:05:00Z'
             WHERE id = 4",
        )
        .unwrap();
    let after = every_answer(&conn);
    let moved = examples()
        .iter()
        .enumerate()
        .filter(|(n, e)| !reads_the_history(e) && after[*n] != before[*n])
        .count();
    assert!(
        moved >= 5,
        "only {moved} answers moved with the finished run"
    );
}

// ---------------------------------------------------------------------------------------
// Databases made by ratewatch.

/// The header of samples/portfolio.csv with a carried amount column, and the amounts its
/// rows give, one of each way a file writes them.
const AMOUNTS: [&str; 7] = [
    "120 000,00",
    "5000",
    "1 250,50 €",
    "n/a",
    "",
    "75000.5",
    "1.234,56",
];

/// samples/portfolio.csv with an `Encours (€)` column, as `portfolio.csv` in `dir`.
fn portfolio_with_amounts(dir: &Path) -> PathBuf {
    let mut reader = csv::Reader::from_path(root().join("samples/portfolio.csv")).unwrap();
    let path = dir.join("portfolio.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    let mut header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    header.push("Encours (€)".into());
    writer.write_record(&header).unwrap();
    for (n, record) in reader.records().enumerate() {
        let mut row: Vec<String> = record.unwrap().iter().map(String::from).collect();
        row.push(AMOUNTS[n % AMOUNTS.len()].to_string());
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
    path
}

/// A folder where the sample portfolio, with an amount column that `[alerts] amount`
/// names, was screened with `--demo` (each run in a second of its own), with the database
/// and the last run's reports.
struct Demo {
    dir: tempfile::TempDir,
}

impl InFolder for Demo {
    fn folder(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Demo {
    fn screened(runs: usize) -> Demo {
        let demo = Demo {
            dir: tempfile::tempdir().unwrap(),
        };
        let file = portfolio_with_amounts(demo.dir.path());
        std::fs::write(
            demo.dir.path().join("ratewatch.toml"),
            "[alerts]\namount = \"Encours (€)\"\n",
        )
        .unwrap();
        for run in 0..runs {
            if run > 0 {
                a_second_later();
            }
            // The sample has a row that fails on purpose: exit 3.
            demo.ratewatch(["screen"])
                .arg(&file)
                .arg("--demo")
                .assert()
                .code(3);
        }
        demo
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("ratewatch.db")
    }

    fn report(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.dir.path().join("report.json")).unwrap())
            .unwrap()
    }
}

/// The first row of each reference of a report, in the file's order.
fn first_rows(report: &Value) -> Vec<Value> {
    let mut seen = BTreeSet::new();
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["ref"]
                .as_str()
                .is_some_and(|s| seen.insert(s.to_string()))
        })
        .cloned()
        .collect()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

#[test]
fn the_canned_queries_answer_on_a_demo_database() {
    let demo = Demo::screened(3);
    let report = demo.report();
    let run = &report["run"];
    let started: jiff::Timestamp = text(&run["started_at"]).parse().unwrap();
    let conn = read_only(&demo.db());
    let rows = first_rows(&report);
    let rated: Vec<&Value> = rows
        .iter()
        .filter(|r| r["company_id"].is_string())
        .collect();
    assert!(rated.len() > 10, "the sample rates most of its rows");

    // A SIREN of the sample, and the SIRET of the same company: its company and color as
    // the run rated it and as latest_ratings has it.
    let by_ref = |reference: &str| rows.iter().find(|r| r["ref"] == reference).unwrap();
    let (siren_row, siret_row) = (by_ref("C-1001"), by_ref("C-1002"));
    assert_eq!(siren_row["service"], "SIREN");
    assert_eq!(siret_row["service"], "SIRET");
    for row in [siren_row, siret_row] {
        let found = run_canned(&conn, "company_by_siren", &[("siren", &text(&row["id"]))]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0][1], text(&siren_row["company_id"]));
        assert_eq!(found[0][4], text(&siren_row["color"]));
        let now = answers(
            &conn,
            &format!(
                "SELECT color FROM latest_ratings WHERE company_id = '{}'",
                found[0][1]
            ),
            &[],
        );
        assert_eq!(now, table(&[[found[0][4].as_str()]]));
    }

    // The color on the date the last run finished is the color it rated; before anything
    // was known, none.
    let on = run_canned(
        &conn,
        "color_on_date",
        &[
            ("portfolio", "portfolio"),
            ("date", &text(&run["finished_at"])),
        ],
    );
    let expected: Vec<Vec<String>> = rated
        .iter()
        .map(|r| {
            vec![
                text(&r["ref"]),
                text(&r["company_id"]),
                text(&r["color"]),
                text(&r["color"]),
            ]
        })
        .collect();
    let got: Vec<Vec<String>> = on
        .iter()
        .map(|r| vec![r[1].clone(), r[2].clone(), r[4].clone(), r[7].clone()])
        .collect();
    assert_eq!(got, expected);
    let long_ago = run_canned(
        &conn,
        "color_on_date",
        &[("portfolio", "portfolio"), ("date", "1970-01-02")],
    );
    assert_eq!(long_ago.len(), rated.len());
    assert!(long_ago.iter().all(|r| r[4].is_empty()), "{long_ago:?}");

    // Red for more than N days when the run started, counted from the start of the color's
    // period as color_periods has it.
    let red_days = |r: &Value| -> Option<i64> {
        (r["color"] == "red").then(|| {
            let since = answers(
                &conn,
                "SELECT valid_from FROM color_periods WHERE company_id = ?1 AND valid_to IS NULL",
                &[("1", &text(&r["company_id"]))],
            );
            let since: jiff::Timestamp = since[0][0].parse().unwrap();
            (started - since).get_seconds() / 86_400
        })
    };
    for days in [0, 10, 100_000] {
        let mut expected: BTreeMap<String, (i64, Vec<String>)> = BTreeMap::new();
        for r in &rated {
            if let Some(d) = red_days(r).filter(|d| *d > days) {
                expected
                    .entry(text(&r["company_id"]))
                    .or_insert((d, Vec::new()))
                    .1
                    .push(text(&r["ref"]));
            }
        }
        let got: BTreeMap<String, (i64, Vec<String>)> = run_canned(
            &conn,
            "red_for_more_than",
            &[("portfolio", "portfolio"), ("days", &days.to_string())],
        )
        .into_iter()
        .map(|r| {
            let refs = r[5].split(", ").map(String::from).collect();
            (r[1].clone(), (r[4].parse().unwrap(), refs))
        })
        .collect();
        assert_eq!(got, expected, "red for more than {days} days");
        if days == 0 {
            assert!(!got.is_empty(), "the sample holds companies red for days");
        }
    }

    // The exposure by color, from the amounts the report carried.
    let mut expected: BTreeMap<String, (i64, f64, i64, i64)> = BTreeMap::new();
    for r in &rows {
        let color = match r["color"].as_str() {
            Some(c) => c.to_string(),
            None => format!("({})", text(&r["status"])),
        };
        let given = text(&r["extra"]["Encours (€)"]);
        let entry = expected.entry(color).or_default();
        entry.0 += 1;
        match ratewatch::alerts::parse_amount(given.trim()) {
            Some(v) => entry.1 += v,
            None if given.trim().is_empty() => entry.2 += 1,
            None => entry.3 += 1,
        }
    }
    let got: BTreeMap<String, (i64, f64, i64, i64)> = run_canned(
        &conn,
        "exposure_at_risk_by_color",
        &[("portfolio", "portfolio")],
    )
    .into_iter()
    .map(|r| {
        (
            r[0].clone(),
            (
                r[1].parse().unwrap(),
                r[2].parse().unwrap_or(0.0),
                r[3].parse().unwrap(),
                r[4].parse().unwrap(),
            ),
        )
    })
    .collect();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (color, (refs, sum, blank, unreadable)) in &expected {
        let g = got[color];
        assert_eq!((g.0, g.2, g.3), (*refs, *blank, *unreadable), "{color}");
        assert!((g.1 - sum).abs() < 0.005, "{color}: {} against {sum}", g.1);
    }
    assert!(
        expected.values().any(|e| e.1 > 0.0) && expected.values().any(|e| e.3 > 0),
        "amounts summed and amounts unreadable"
    );
    assert!(
        rows.iter()
            .any(|r| text(&r["extra"]["Encours (€)"]) == "1.234,56" && r["color"].is_string()),
        "a 1.234,56 on a rated row, read as 1234.56"
    );

    // The same amounts as the run's own totals at stake by color (run_colors.amount), over
    // every rated row of the run.
    let run_id = run["id"].as_i64().unwrap().to_string();
    let totals: BTreeMap<String, String> = answers(
        &conn,
        "SELECT color, round(amount, 2) FROM run_colors WHERE run_id = ?1 AND amount IS NOT NULL",
        &[("1", &run_id)],
    )
    .into_iter()
    .map(|r| (r[0].clone(), r[1].clone()))
    .collect();
    let summed: BTreeMap<String, String> = answers(
        &conn,
        "SELECT color, round(sum(amount), 2) FROM latest_results
         WHERE portfolio = 'portfolio' AND status = 'rated' AND amount IS NOT NULL
         GROUP BY color",
        &[],
    )
    .into_iter()
    .map(|r| (r[0].clone(), r[1].clone()))
    .collect();
    assert!(!totals.is_empty(), "the run added up its amounts");
    assert_eq!(
        summed, totals,
        "the view's amounts are the run's totals at stake"
    );
}

#[test]
fn every_example_runs_on_a_demo_database() {
    let demo = Demo::screened(2);
    let conn = read_only(&demo.db());
    for example in examples() {
        answers(&conn, &example.sql, &[]);
    }
    conn.execute_batch(&read("samples/queries.sql")).unwrap();
    // The examples about the portfolio find it: its name is the file's stem.
    let sample = statements(&read("samples/queries.sql"));
    assert!(
        !answers(&conn, &sample[5], &[]).is_empty(),
        "the failed row"
    );
    assert!(
        !answers(&conn, &sample[9], &[]).is_empty(),
        "the references"
    );
}

/// A process stopped with SIGSTOP until dropped (then continued), so that what it has
/// committed stays as it is while it is read.
struct Stopped(u32);

impl Stopped {
    fn new(pid: u32) -> Stopped {
        // SAFETY: a signal to our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe { libc::kill(self.0 as i32, libc::SIGCONT) };
    }
}

#[test]
fn a_screening_in_progress_never_shows_through_the_latest_finished_run() {
    let sim = background(SimConfig {
        seed: DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        faults: Faults {
            latency: Duration::from_millis(40),
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let ws = Workspace::new();
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), 200, &mut buf).unwrap();
    // Named so that the examples' 'portfolio' is this one.
    let file = ws.write("portfolio.csv", &buf);
    for day in [1, 3] {
        sim.server.set_day(day);
        let night = ws.screen(&sim, &file).run();
        assert!(matches!(night.status.code(), Some(0 | 1)), "{night:?}");
    }
    let before = every_answer(&read_only(&ws.db()));

    // A third night, slowed to one request at a time, caught once it has recorded rows
    // and ratings, and held there.
    sim.server.set_day(6);
    let mut run = ws.screen(&sim, &file).args(["--concurrency", "1"]).spawn();
    let recorded = "SELECT count(*) FROM run_companies
                    WHERE run_id IN (SELECT id FROM runs WHERE status = 'running')";
    wait_until("5 companies recorded by the run, or its end", || {
        count_now(&ws.db(), recorded).is_some_and(|n| n >= 5) || run.ended()
    });
    assert!(
        !run.ended(),
        "the run ended before it was seen recording: {}",
        run.said()
    );
    // Held, the run stays in progress while every example is asked. Should it be held in
    // the moment SQLite restarts its log, a reader would wait for it: it goes on a moment,
    // and the examples are asked again.
    let examples = examples();
    let mut during = None;
    for _ in 0..20 {
        let held = Stopped::new(run.id());
        let conn = read_only(&ws.db());
        conn.busy_timeout(Duration::from_millis(200)).unwrap();
        let answers: rusqlite::Result<Vec<_>> = examples
            .iter()
            .map(|e| try_answers(&conn, &e.sql, &[]))
            .collect();
        let running: i64 = conn
            .query_row(
                "SELECT count(*) FROM runs WHERE status = 'running'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(running, 1, "the run is still in progress");
        if let Ok(answers) = answers {
            during = Some(answers);
            break;
        }
        drop(held);
        std::thread::sleep(Duration::from_millis(20));
    }
    let during = during.expect("the examples answer beside the held run");
    assert_unmoved(&before, &during);
    let ended = run.finish();
    assert!(matches!(ended.code(), Some(0 | 1)), "{ended:?}");
    let after = every_answer(&read_only(&ws.db()));
    assert_ne!(after, before, "the finished run is the latest");
}

// ---------------------------------------------------------------------------------------
// A database of many nights, where a missing index would show.

/// Companies of [`nights_database`], each in the portfolio `big`; the first
/// [`SMALL`] are also in `portfolio`.
const COMPANIES: i64 = 4_000;
const SMALL: i64 = 300;
const NIGHTS: i64 = 6;

/// The companies, their SIRENs and the rows of both files, each row carrying an amount.
const FIRST_SEEN: &str = r#"
INSERT INTO companies (id, company_id, name, country, first_seen_at, updated_at)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {companies})
SELECT i, printf('%08x-0000-4000-8000-%012x', i, i), 'Company ' || i, 'FR',
       '2026-03-01T02:00:00Z', '2026-03-01T02:00:00Z' FROM n;
INSERT INTO company_external_ids (company, service, external_id)
SELECT id, 'SIREN', printf('%09d', id) FROM companies;
INSERT INTO inputs (id, ref, country, service, external_id, extra)
SELECT id, 'R-' || id, 'FR', 'SIREN', printf('%09d', id),
       json_object('Encours (€)', printf('%d %03d,50', id, id % 1000)) FROM companies;
INSERT INTO inputs (id, ref, country, service, external_id, extra)
SELECT 1000000 + id, 'C-' || id, 'FR', 'SIREN', printf('%09d', id), NULL
FROM companies WHERE id <= {small};
"#;

/// Night `{k}`: a run of `big` (id 2k - 1) and one of `portfolio` (2k), written as the
/// writer writes them. The first night rates every company, its color dated in February;
/// each later night a tenth of them is rated again, dated that night: half of those
/// change color, the other half keep it (the service moved its lastChangeDate only).
const NIGHT: &str = r#"
INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, finished_at, status,
                  delivered_at, amount_column)
VALUES (2 * {k} - 1, 'big', 'big.csv', 'b', printf('2026-03-%02dT02:00:00Z', {k}),
        printf('2026-03-%02dT02:30:00Z', {k}), 'complete', printf('2026-03-%02dT02:30:00Z', {k}),
        'Encours (€)'),
       (2 * {k}, 'portfolio', 'portfolio.csv', 'p', printf('2026-03-%02dT03:00:00Z', {k}),
        printf('2026-03-%02dT03:05:00Z', {k}), 'complete', NULL, NULL);
CREATE TEMP TABLE before_night AS SELECT id AS company, latest_rating AS rating FROM companies;
INSERT INTO ratings (company, color, last_change_date, last_refresh_date, observed_at,
                     first_run_id, source)
SELECT c.id,
       CASE WHEN {k} = 1 OR (c.id + {k}) % 20 = 0
            THEN CASE (c.id * 3 + {k}) % 5 WHEN 0 THEN 'green' WHEN 1 THEN 'yellow'
                                            WHEN 2 THEN 'red' WHEN 3 THEN 'black' ELSE 'white' END
            ELSE r.color END,
       CASE WHEN {k} = 1 THEN printf('2026-02-%02dT10:00:00Z', 1 + c.id % 27)
            ELSE printf('2026-03-%02dT01:00:00Z', {k}) END,
       printf('2026-03-%02dT01:00:00Z', {k}),
       printf('2026-03-%02dT02:00:05Z', {k}), 2 * {k} - 1, 'run'
FROM companies c LEFT JOIN ratings r ON r.id = c.latest_rating
WHERE {k} = 1 OR (c.id + {k}) % 10 = 0
ORDER BY c.id;
INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
SELECT c.latest_rating, printf('2026-03-%02dT02:00:05Z', {k}), 2 * {k} - 1
FROM companies c JOIN before_night b ON b.company = c.id WHERE b.rating = c.latest_rating
ON CONFLICT (rating) DO UPDATE SET confirmed_at = excluded.confirmed_at,
                                   last_run_id = excluded.last_run_id;
INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id, change)
SELECT 2 * {k} - 1, c.id, c.latest_rating, nullif(b.rating, c.latest_rating),
       CASE WHEN b.rating IS NULL THEN 'new' WHEN b.rating = c.latest_rating THEN NULL
            WHEN r.color = o.color THEN 'evolved' ELSE 'changed' END
FROM companies c JOIN before_night b ON b.company = c.id JOIN ratings r ON r.id = c.latest_rating
LEFT JOIN ratings o ON o.id = b.rating;
INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id, change)
SELECT 2 * {k}, company, rating_id, previous_rating_id, change FROM run_company_ratings
WHERE run_id = 2 * {k} - 1 AND company <= {small};
UPDATE run_row_spans SET last_run_id = 2 * {k} - 1
WHERE portfolio = 'big' AND last_run_id = 2 * {k} - 3 AND company % 97 <> {k};
INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status, company,
                           found_by, amount)
SELECT 'big', id + 1, 2 * {k} - 1, 2 * {k} - 1, id, 'rated', id, 'SIREN 1',
       id * 1000 + id % 1000 + 0.5
FROM companies WHERE id % 97 <> {k}
  AND NOT EXISTS (SELECT 1 FROM run_row_spans s
                  WHERE s.portfolio = 'big' AND s.line = id + 1 AND s.last_run_id = 2 * {k} - 1);
UPDATE run_row_spans SET last_run_id = 2 * {k}
WHERE portfolio = 'portfolio' AND last_run_id = 2 * {k} - 2;
INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status, company,
                           found_by)
SELECT 'portfolio', id + 1, 2 * {k}, 2 * {k}, 1000000 + id, 'rated', id, 'SIREN 1'
FROM companies WHERE id <= {small}
  AND NOT EXISTS (SELECT 1 FROM run_row_spans s
                  WHERE s.portfolio = 'portfolio' AND s.line = id + 1
                    AND s.last_run_id = 2 * {k});
INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed)
SELECT rc.run_id, rc.company, r.color, 2, rc.company + 1, 'R-' || rc.company, 1
FROM run_companies rc JOIN ratings r ON r.id = rc.rating_id
WHERE rc.run_id = 2 * {k} - 1 AND r.color IN ('red', 'black');
INSERT INTO run_colors (run_id, color, rows)
SELECT rr.run_id, r.color, count(*)
FROM run_rows rr JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
JOIN ratings r ON r.id = rc.rating_id
WHERE rr.run_id IN (2 * {k} - 1, 2 * {k}) GROUP BY rr.run_id, r.color;
DROP TABLE before_night;
"#;

/// [`COMPANIES`] companies screened for [`NIGHTS`] nights on successive dates in two
/// portfolios, written row by row into the schema as ratewatch creates it, with sync-history's
/// account requests beside them; `analyzed`: with the statistics of `ANALYZE` (ratewatch runs
/// none; a tool may).
fn nights_database(dir: &Path, analyzed: bool) -> PathBuf {
    let db = dir.join("nights.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    let fill = |sql: &str, k: i64| {
        sql.replace("{companies}", &COMPANIES.to_string())
            .replace("{small}", &SMALL.to_string())
            .replace("{k}", &k.to_string())
    };
    let mut all = format!("BEGIN; {}", read("migrations/schema.sql"));
    all.push_str(&fill(FIRST_SEEN, 0));
    for k in 1..=NIGHTS {
        all.push_str(&fill(NIGHT, k));
    }
    all.push_str(
        "INSERT INTO account_requests (company, request_date, requested_at, color, synced_at,
                                       status, rating_id)
         SELECT company, observed_at, observed_at, color, '2026-03-07T00:00:00Z', 'known', id
         FROM ratings;
         COMMIT;",
    );
    conn.execute_batch(&all).unwrap();
    if analyzed {
        conn.execute_batch("ANALYZE;").unwrap();
    }
    db
}

/// What in a plan reads a table whole, or anything once per row. A `SCAN` of a name that
/// is no co-routine or materialized subquery of the plan reads a table: allowed only of
/// `runs` (a row a night: `runs`, or `u` as the views name it), of a table-valued function,
/// and for the passes the question asks for (`allowed_scans`).
fn reads_too_much(steps: &[Step], allowed_scans: &[String]) -> Vec<String> {
    // A table-valued function (json_each) reads one row's value, not a table.
    let mut faults: Vec<String> = scans_per_outer_row(steps)
        .into_iter()
        .filter(|f| !f.contains("VIRTUAL TABLE"))
        .collect();
    let subqueries: BTreeSet<&str> = steps
        .iter()
        .filter_map(|s| {
            s.detail
                .strip_prefix("CO-ROUTINE ")
                .or_else(|| s.detail.strip_prefix("MATERIALIZE "))
        })
        .collect();
    for step in steps.iter().filter(|s| s.detail.starts_with("SCAN ")) {
        let scanned = step.detail["SCAN ".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        let small = subqueries.contains(scanned)
            || scanned.starts_with('(')
            || ["runs", "u", "CONSTANT"].contains(&scanned)
            || step.detail.contains("VIRTUAL TABLE");
        let allowed = allowed_scans
            .iter()
            .any(|a| step.detail == *a || step.detail.starts_with(&format!("{a} USING ")));
        if !small && !allowed {
            faults.push(format!("a whole table read: {}", step.detail));
        }
    }
    faults
}

/// The one pass some questions need, by what they ask: every company (the latest colors,
/// every company's color on a date, a name matched with LIKE: a pass over the companies,
/// or over the color periods), or every decision
/// people made (a few a day: `acks` and `decisions`, read by the audit's views). And a
/// table's own name for `runs` (a row a night), whatever its alias.
fn allowed_pass(sql: &str) -> Vec<String> {
    let read = sources(sql);
    let mut allowed: Vec<String> = Vec::new();
    let words: Vec<&str> = sql.split_whitespace().collect();
    for pair in words.windows(2) {
        if pair[0] == "runs" && pair[1].chars().all(|c| c.is_ascii_lowercase()) {
            allowed.push(format!("SCAN {}", pair[1]));
        }
    }
    let every_company = !sql.to_lowercase().contains("portfolio =")
        && !sql.contains("company_id =")
        && !sql.contains("external_id =");
    if every_company && read.contains("latest_ratings") {
        allowed.push("SCAN c".into());
    }
    if every_company && read.contains("color_periods") {
        allowed.push("SCAN b".into());
    }
    if ["audit_trail", "acknowledgements", "review_decisions"]
        .iter()
        .any(|v| read.contains(*v))
    {
        allowed.extend(["SCAN a", "SCAN d", "SCAN c"].map(String::from));
    }
    allowed
}

fn every_query() -> Vec<(String, String)> {
    examples()
        .into_iter()
        .map(|e| (e.source, e.sql))
        .chain(
            canned()
                .into_iter()
                .map(|q| (format!("samples/datasette.yml, {}", q.name), q.sql)),
        )
        .collect()
}

#[test]
fn every_documented_and_canned_query_searches_on_a_database_of_many_nights() {
    for analyzed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let conn = read_only(&nights_database(dir.path(), analyzed));
        let queries = every_query();
        assert!(queries.len() > 24, "{} queries", queries.len());
        let mut faults = Vec::new();
        for (source, sql) in &queries {
            let steps = plan(&conn, sql);
            let mut allowed = allowed_pass(sql);
            if analyzed {
                // A run's rows are one portfolio's stretches (`run_row_spans` by its key's
                // first column); ANALYZE's statistics, over a few portfolios, can make
                // SQLite read every portfolio's instead, never more rows than that.
                allowed.push("SCAN s".into());
            }
            let found = reads_too_much(&steps, &allowed);
            if !found.is_empty() {
                faults.push(format!(
                    "{source} (analyzed: {analyzed}): {found:?}\n{sql}\n{}",
                    show(&steps)
                ));
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n\n"));
    }
}

#[test]
fn the_rule_on_whole_tables_finds_a_missing_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = nights_database(dir.path(), true);
    let conn = Connection::open(&db).unwrap();
    let by_company = "SELECT run_id, line FROM run_results WHERE company = 17";
    assert!(reads_too_much(&plan(&conn, by_company), &[]).is_empty());
    let now = "SELECT ref, color FROM portfolio_now WHERE portfolio = 'portfolio'";
    assert!(reads_too_much(&plan(&conn, now), &[]).is_empty());
    conn.execute_batch(
        "DROP INDEX run_row_spans_by_company; DROP INDEX color_period_bounds_by_company;",
    )
    .unwrap();
    assert!(!reads_too_much(&plan(&conn, by_company), &[]).is_empty());
    let date = canned_query("color_on_date").sql;
    assert!(!reads_too_much(&plan(&conn, &date), &[]).is_empty());
}

#[test]
fn color_since_is_where_the_color_period_began_whatever_the_service_dated_since() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&nights_database(dir.path(), false));
    // Every reference's since is its company's current period's start, and the days count
    // from it; the latest rating's lastChangeDate, moved by the service, is not.
    let compared = answers(
        &conn,
        "SELECT count(*),
                sum(p.color_since IS cp.valid_from),
                sum(p.days_in_color IS CAST(julianday(p.started) - julianday(cp.valid_from)
                                            AS INTEGER)),
                sum(p.color_since IS NOT l.last_change_date)
         FROM (SELECT n.*, u.started_at AS started FROM portfolio_now n
               JOIN runs u ON u.id = n.run_id) p
         JOIN color_periods cp ON cp.company = p.company AND cp.valid_to IS NULL
         JOIN latest_ratings l ON l.company = p.company",
        &[],
    );
    let [total, same, days, moved] = [0, 1, 2, 3].map(|i| compared[0][i].parse::<i64>().unwrap());
    let rows = answers(&conn, "SELECT count(*) FROM portfolio_now", &[]);
    assert_eq!(total.to_string(), rows[0][0]);
    assert!(total > COMPANIES, "{compared:?}");
    assert_eq!((same, days), (total, total), "{compared:?}");
    assert!(
        moved > total / 20,
        "lastChangeDate moved without the color: {moved}"
    );

    // Red since February, its date moved on a later night: red for more than 10 days when
    // the last night started (6 March).
    let red = |portfolio: &str| -> BTreeSet<String> {
        run_canned(
            &conn,
            "red_for_more_than",
            &[("portfolio", portfolio), ("days", "10")],
        )
        .into_iter()
        .map(|r| r[1].clone())
        .collect()
    };
    let moved_red = answers(
        &conn,
        "SELECT l.company_id FROM latest_ratings l
         JOIN color_periods cp ON cp.company = l.company AND cp.valid_to IS NULL
         JOIN portfolio_now p ON p.company = l.company AND p.portfolio = 'big'
         WHERE l.color = 'red' AND cp.valid_from < '2026-02-23'
           AND l.last_change_date >= '2026-03-02'",
        &[],
    );
    assert!(!moved_red.is_empty());
    let found = red("big");
    for company in &moved_red {
        assert!(
            found.contains(&company[0]),
            "{} red since February",
            company[0]
        );
    }
    let expected: BTreeSet<String> = answers(
        &conn,
        "SELECT DISTINCT p.company_id FROM portfolio_now p
         JOIN color_periods cp ON cp.company = p.company AND cp.valid_to IS NULL
         WHERE p.portfolio = 'big' AND p.color = 'red'
           AND julianday('2026-03-06T02:00:00Z') - julianday(cp.valid_from) >= 11",
        &[],
    )
    .into_iter()
    .map(|r| r[0].clone())
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn color_changes_say_which_way_on_the_models_scale() {
    let dir = tempfile::tempdir().unwrap();
    let conn = read_only(&nights_database(dir.path(), false));
    let seen = answers(
        &conn,
        "SELECT DISTINCT from_color, to_color, direction FROM color_changes",
        &[],
    );
    for row in &seen {
        let (from, to) = (Color::parse(&row[0]), Color::parse(&row[1]));
        let expected = if to == Color::White {
            "to white"
        } else if from == Color::White {
            "from white"
        } else {
            match (from.risk_rank(), to.risk_rank()) {
                (Some(a), Some(b)) if b > a => "worse",
                (Some(a), Some(b)) if b < a => "better",
                _ => "changed",
            }
        };
        assert_eq!(row[2], expected, "{row:?}");
    }
    for direction in ["worse", "better", "to white", "from white"] {
        assert!(
            seen.iter().any(|r| r[2] == direction),
            "{direction}: {seen:?}"
        );
    }
    // Each change names its ratings: the one before and the one that brought the color.
    let linked = answers(
        &conn,
        "SELECT count(*) FROM color_changes c
         JOIN color_periods n ON n.first_rating_id = c.rating_id
         JOIN color_periods o ON o.last_rating_id = c.previous_rating_id
         WHERE n.color = c.to_color AND o.color = c.from_color",
        &[],
    );
    let changes = answers(&conn, "SELECT count(*) FROM color_changes", &[]);
    assert_eq!(linked, changes);
}

#[test]
fn run_results_show_how_each_row_was_read_and_its_amount() {
    let dir = tempfile::tempdir().unwrap();
    let db = written(dir.path());
    let writer = Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "INSERT INTO run_named_lines (run_id, line) VALUES (2, 7);
             UPDATE run_row_spans SET country_defaulted = 1, extra_unreliable = 1
             WHERE first_run_id = 2 AND line = 8;",
        )
        .unwrap();
    let conn = read_only(&db);
    assert_eq!(
        answers(
            &conn,
            "SELECT line, name, given_name, company_name, named, country_defaulted,
                    extra_unreliable, amount, amount_column
             FROM latest_results WHERE portfolio = 'portfolio' AND line IN (2, 7, 8)
             ORDER BY line",
            &[],
        ),
        table(&[
            [
                "2",
                "",
                "",
                "Alpha Industrie SA",
                "0",
                "0",
                "0",
                "120000",
                "Encours (€)"
            ],
            [
                "7",
                "Zeta Conseil",
                "Zeta Conseil",
                "",
                "1",
                "0",
                "0",
                "300",
                "Encours (€)"
            ],
            [
                "8",
                "Lambda",
                "Lambda",
                "",
                "0",
                "1",
                "1",
                "",
                "Encours (€)"
            ],
        ])
    );
    // portfolio_now names the service's name `company_name` too, beside `name`.
    assert_eq!(
        answers(
            &conn,
            "SELECT count(*) FROM portfolio_now WHERE name IS NOT company_name",
            &[]
        ),
        table(&[["0"]])
    );
}
