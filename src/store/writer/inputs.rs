//! The rows as given, stored once however many runs read them (a hash of their fields
//! finds them again, and the fields are compared), and each row's outcome in its run.
//!
//! Rows are written [`ROWS_PER_STATEMENT`] at a time: one search for the stored inputs of
//! them all, a few statements adding those not stored yet, then one statement for their
//! outcomes. A statement per row cost more in binding, stepping and resetting than the
//! rows themselves. The last few wait for the commit, which writes them first
//! ([`RunRows::write`]), so a commit holds every row recorded before it, as when each was
//! written at once; the inputs are added in the order of the rows, so they get the ids
//! they always did.

use std::sync::LazyLock;

use rusqlite::types::{Null, ToSqlOutput, ValueRef};
use rusqlite::{Connection, params_from_iter};

use super::{RowRecord, Writer, candidates_json};
use crate::store::StoreError;
use crate::store::batch::{ROWS_PER_STATEMENT, Shapes, insert};
use crate::store::keys::{INPUT_COLUMNS, INPUT_FIELDS, Pending, input_hash};

/// The fields of `inputs` after its id, in their order.
type Fields = [Option<String>; INPUT_FIELDS];

/// One row, waiting to be written.
#[derive(Debug)]
struct RunRow {
    line: i64,
    input: Input,
    /// [`crate::model::RowStatus::code`].
    status: i64,
    company: Option<i64>,
    error: Option<String>,
    candidates: Option<String>,
    country_defaulted: bool,
    extra_unreliable: bool,
    found_by: Option<String>,
}

/// A row's input: its id once known, or what finds or stores it.
#[derive(Debug)]
enum Input {
    Known(i64),
    Unknown { hash: i64, fields: Box<Fields> },
}

impl Input {
    fn fields(&self) -> Option<&Fields> {
        match self {
            Input::Unknown { fields, .. } => Some(fields),
            Input::Known(_) => None,
        }
    }
}

/// Rows recorded but not yet written; they belong to the open transaction.
#[derive(Debug, Default)]
pub(super) struct RunRows(Vec<RunRow>);

impl RunRows {
    /// Forgets them, with the transaction they belonged to.
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
    /// Writes them all in the open transaction of `conn`: their inputs not yet stored,
    /// then their outcomes. An input added is put in `added`, the pending keys, by which
    /// the same row is found again until its key is written; an input already there is
    /// found through `added` or through the key table.
    pub(super) fn write(
        &mut self,
        conn: &Connection,
        run_id: i64,
        added: &mut Pending,
    ) -> rusqlite::Result<()> {
        for chunk in self.0.chunks_mut(ROWS_PER_STATEMENT) {
            find_inputs(conn, chunk, added)?;
            insert_outcomes(conn, run_id, chunk)?;
        }
        self.0.clear();
        Ok(())
    }
}

/// Gives each row of `rows` its input's id: found among those added or through the key
/// table (one statement for the whole chunk, the fields of each compared), or added.
fn find_inputs(
    conn: &Connection,
    rows: &mut [RunRow],
    added: &mut Pending,
) -> rusqlite::Result<()> {
    let mut hashes = Vec::new();
    let mut pending: Vec<i64> = Vec::new();
    for row in rows.iter() {
        if let Input::Unknown { hash, .. } = &row.input {
            hashes.push(*hash);
            pending.extend(added.ids(*hash));
        }
    }
    if hashes.is_empty() {
        return Ok(());
    }
    // Always as many parameters as the statement has: the first hash fills the rest.
    let first = hashes[0];
    hashes.resize(ROWS_PER_STATEMENT, first);
    let pending = serde_json::to_string(&pending).unwrap_or_else(|_| "[]".into());
    let mut stmt = conn.prepare_cached(&FIND_SQL)?;
    let params = hashes
        .iter()
        .map(|h| ToSqlOutput::from(*h))
        .chain(std::iter::once(ToSqlOutput::from(pending.as_str())));
    let mut found = stmt.query(params_from_iter(params))?;
    while let Some(stored) = found.next()? {
        // Its hash when found through the key table: only rows with that hash can match.
        let key: Option<i64> = stored.get(0)?;
        let id: i64 = stored.get(1)?;
        for row in rows.iter_mut() {
            if let Input::Unknown { hash, fields } = &row.input
                && key.is_none_or(|key| key == *hash)
                && same_fields(stored, fields)?
            {
                row.input = Input::Known(id);
            }
        }
    }
    drop(found);
    // The inputs not stored yet, each once (a row given twice in the chunk is added by
    // its first line), added in the order of the rows, so with the ids they always got:
    // each row's place among them, and the rows to add.
    let mut new: Vec<usize> = Vec::new();
    let mut place: Vec<Option<usize>> = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        place.push(row.input.fields().map(|fields| {
            new.iter()
                .position(|&j| rows[j].input.fields() == Some(fields))
                .unwrap_or_else(|| {
                    new.push(i);
                    new.len() - 1
                })
        }));
    }
    if new.is_empty() {
        return Ok(());
    }
    let adding: Vec<&Fields> = new.iter().filter_map(|&j| rows[j].input.fields()).collect();
    insert(conn, &INSERT_INPUTS, &adding, true, |fields| {
        fields.each_ref().map(|f| {
            f.as_deref()
                .map_or_else(|| ToSqlOutput::from(Null), Into::into)
        })
    })?;
    // Rows appended to a table with an integer key take the ids after the highest, in
    // order: the last one's, and those before it.
    let last = conn.last_insert_rowid();
    let ids: Vec<i64> = (last + 1 - new.len() as i64..=last).collect();
    for (&j, &id) in new.iter().zip(&ids) {
        if let Input::Unknown { hash, .. } = rows[j].input {
            added.insert(hash, id);
        }
    }
    for (row, place) in rows.iter_mut().zip(place) {
        if let Some(k) = place {
            row.input = Input::Known(ids[k]);
        }
    }
    Ok(())
}

/// Whether a stored input (its hash, its id, then its fields) holds these fields, each
/// the same.
fn same_fields(stored: &rusqlite::Row<'_>, fields: &Fields) -> rusqlite::Result<bool> {
    for (i, field) in fields.iter().enumerate() {
        let same = match (stored.get_ref(i + 2)?, field) {
            (ValueRef::Null, None) => true,
            (ValueRef::Text(text), Some(given)) => text == given.as_bytes(),
            _ => false,
        };
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `INSERT INTO inputs` of 1, 2, 4 … [`ROWS_PER_STATEMENT`] rows.
static INSERT_INPUTS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::powers_of_two(
        &format!("INSERT INTO inputs ({INPUT_COLUMNS})"),
        INPUT_FIELDS,
        "",
    )
});

/// The stored inputs under any of [`ROWS_PER_STATEMENT`] hashes, and those of the ids
/// given as a JSON array (inputs whose keys are not written yet, their hash unknown
/// here): each hash, id and fields.
static FIND_SQL: LazyLock<String> = LazyLock::new(|| {
    let marks = vec!["?"; ROWS_PER_STATEMENT].join(", ");
    format!(
        "SELECT k.hash, i.id, {INPUT_COLUMNS} FROM input_keys k JOIN inputs i ON i.id = k.input
         WHERE k.hash IN ({marks})
         UNION ALL
         SELECT NULL, id, {INPUT_COLUMNS} FROM inputs
         WHERE id IN (SELECT value FROM json_each(?))"
    )
});

/// `INSERT OR REPLACE` of the outcomes of `rows`, whose inputs are known, in their order:
/// a line given twice keeps its last outcome, as with one statement each.
fn insert_outcomes(conn: &Connection, run_id: i64, rows: &[RunRow]) -> rusqlite::Result<()> {
    insert(conn, &OUTCOMES, rows, true, |r| -> [ToSqlOutput<'_>; 10] {
        let Input::Known(input) = r.input else {
            unreachable!("inputs are found before outcomes are written")
        };
        let null = || ToSqlOutput::from(Null);
        [
            run_id.into(),
            r.line.into(),
            input.into(),
            r.status.into(),
            r.company.map_or_else(null, Into::into),
            r.error.as_deref().map_or_else(null, Into::into),
            r.candidates.as_deref().map_or_else(null, Into::into),
            i64::from(r.country_defaulted).into(),
            i64::from(r.extra_unreliable).into(),
            r.found_by.as_deref().map_or_else(null, Into::into),
        ]
    })
    .map(drop)
}

static OUTCOMES: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT OR REPLACE INTO run_rows (run_id, line, input_id, status_code, company, error,
                                          candidates, country_defaulted, extra_unreliable,
                                          found_by)",
        10,
        "",
    )
});

impl Writer {
    /// Records the row as given (stored once, however many runs read it) and its outcome:
    /// written with the next [`ROWS_PER_STATEMENT`] rows, or the next commit.
    pub(super) fn record_row(&mut self, row: RowRecord) -> Result<(), StoreError> {
        let line = row.input.line;
        let (country_defaulted, extra_unreliable) =
            (row.input.country_defaulted, row.input.extra_unreliable);
        let i = row.input;
        let mut fields: Fields = [
            i.reference,
            i.country,
            i.service,
            i.id,
            i.name,
            i.street_number,
            i.street_name,
            i.city,
            i.postcode,
            i.phone,
            i.company_id,
            None,
        ];
        // Carried columns are stored (as a JSON object) only when there are some.
        fields[11] = (!i.extra.is_empty()).then(|| {
            let object: serde_json::Map<String, serde_json::Value> = i
                .extra
                .into_iter()
                .map(|(header, value)| (header, value.into()))
                .collect();
            serde_json::Value::Object(object).to_string()
        });
        let hash = input_hash(fields.iter().map(Option::as_deref));
        let company = row.company_id.map(|id| self.company_key(id)).transpose()?;
        self.rows.0.push(RunRow {
            line: line as i64,
            input: Input::Unknown {
                hash,
                fields: Box::new(fields),
            },
            status: row.status.code(),
            company,
            error: row.error,
            candidates: candidates_json(&row.candidates),
            country_defaulted,
            extra_unreliable,
            found_by: row.found_by,
        });
        if self.rows.0.len() < ROWS_PER_STATEMENT {
            return Ok(());
        }
        let conn = self
            .conn
            .as_ref()
            .expect("records are applied while the connection is home");
        self.rows
            .write(conn, self.run_id, &mut self.pending.inputs)
            .map_err(|source| StoreError::Sql {
                context: format!("recording the rows up to line {line}"),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rusqlite::Connection;

    use super::ROWS_PER_STATEMENT;
    use crate::model::{Candidate, InputRow, RowStatus};
    use crate::store::{NewRun, Record, RowRecord, Store};

    fn start(store: &mut Store) -> i64 {
        store
            .start_run(&NewRun {
                portfolio: "p".into(),
                input_path: "p.csv".into(),
                sha256: "x".into(),
                demo_day: None,
                extra_columns: vec![],
            })
            .unwrap()
    }

    /// A row of every kind in turn: with and without an error, candidates, a company.
    fn row(line: u64) -> RowRecord {
        let status = RowStatus::ALL[line as usize % RowStatus::ALL.len()];
        RowRecord {
            input: InputRow {
                line,
                reference: Some(format!("R{line}")),
                country: Some("FR".into()),
                name: line.is_multiple_of(3).then(|| format!("Name {line}")),
                ..Default::default()
            },
            status,
            company_id: None,
            found_by: None,
            error: (status == RowStatus::Invalid).then(|| format!("line {line}: bad")),
            candidates: if status == RowStatus::Ambiguous {
                vec![Candidate {
                    id: uuid::Uuid::from_u128(line as u128),
                    name: format!("C{line}"),
                    city: "Lyon".into(),
                    postcode: "69001".into(),
                }]
            } else {
                vec![]
            },
        }
    }

    type Stored = (i64, String, String, Option<String>, Option<String>);

    fn stored(path: &std::path::Path, run_id: i64) -> Vec<Stored> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT rr.line, rr.status, i.ref, rr.error, rr.candidates
                 FROM run_rows rr JOIN inputs i ON i.id = rr.input_id
                 WHERE rr.run_id = ?1 ORDER BY rr.line",
            )
            .unwrap();
        stmt.query_map([run_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    #[test]
    fn outcomes_written_in_batches_are_stored_as_one_at_a_time_and_all_by_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut store = Store::open(&path).unwrap();
        let run_id = start(&mut store);
        let mut writer = store.writer(run_id).unwrap();
        let n = 2 * ROWS_PER_STATEMENT as u64 + 5;
        for line in 2..2 + n {
            writer.send(Record::Row(Box::new(row(line)))).unwrap();
        }
        // A line given again keeps its last outcome.
        let mut again = row(4);
        again.status = RowStatus::Failed;
        again.error = Some("timed out".into());
        writer.send(Record::Row(Box::new(again))).unwrap();
        writer.finish().unwrap();
        let rows = stored(&path, run_id);
        assert_eq!(rows.len() as u64, n);
        for (line, status, reference, error, candidates) in rows {
            let mut want = row(line as u64);
            if line == 4 {
                want.status = RowStatus::Failed;
                want.error = Some("timed out".into());
            }
            assert_eq!(status, want.status.as_str(), "line {line}");
            assert_eq!(reference, format!("R{line}"));
            assert_eq!(error, want.error, "line {line}");
            assert_eq!(
                candidates,
                (!want.candidates.is_empty())
                    .then(|| serde_json::to_string(&want.candidates).unwrap()),
                "line {line}"
            );
        }
    }

    #[test]
    fn an_interrupted_run_keeps_every_outcome_it_committed_and_resumes_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let run_id;
        {
            let mut store = Store::open(&path).unwrap();
            run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            writer.max_transaction = Duration::ZERO;
            // Fewer than a statement's worth, then more: the commit writes what waits.
            for line in 2..2 + ROWS_PER_STATEMENT as u64 + 3 {
                writer.send(Record::Row(Box::new(row(line)))).unwrap();
            }
            writer.tick().unwrap();
            // Recorded after the last commit: lost with the process, whose connection
            // closes with the transaction open.
            for line in 100..110 {
                writer.send(Record::Row(Box::new(row(line)))).unwrap();
            }
            drop(writer);
        }
        let mut store = Store::open(&path).unwrap();
        let committed: Vec<u64> = (2..2 + ROWS_PER_STATEMENT as u64 + 3).collect();
        let settled: Vec<u64> = committed
            .iter()
            .copied()
            .filter(|l| row(*l).status != RowStatus::Failed)
            .collect();
        assert_eq!(store.settled_lines(run_id).unwrap(), settled);
        assert_eq!(
            stored(&path, run_id)
                .iter()
                .map(|r| r.0 as u64)
                .collect::<Vec<_>>(),
            committed
        );
        // The resumed run records the rest, and the failed lines again.
        store.resume_run(run_id).unwrap();
        let mut writer = store.writer(run_id).unwrap();
        for line in committed.iter().copied().filter(|l| !settled.contains(l)) {
            let mut retried = row(line);
            retried.status = RowStatus::Unresolved;
            retried.error = None;
            writer.send(Record::Row(Box::new(retried))).unwrap();
        }
        for line in 100..110 {
            writer.send(Record::Row(Box::new(row(line)))).unwrap();
        }
        writer.finish().unwrap();
        let rows = stored(&path, run_id);
        assert_eq!(rows.len(), committed.len() + 10);
        assert!(
            rows.iter().all(|r| r.0 >= 100 || r.1 != "failed"),
            "the failed lines are retried: {rows:?}"
        );
    }

    fn input_ids(path: &std::path::Path, run_id: i64) -> Vec<(i64, i64)> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT line, input_id FROM run_rows WHERE run_id = ?1 ORDER BY line")
            .unwrap();
        stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn a_row_given_again_in_a_run_or_the_next_is_stored_once_with_the_id_of_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut store = Store::open(&path).unwrap();
        // Line n holds row n % 7: repeats within one statement's worth and across them,
        // with commits in between that write the keys of some.
        let same = |line: u64| {
            let mut r = row(line % 7 + 2);
            r.input.line = line;
            r
        };
        let lines = 2..2 + 3 * ROWS_PER_STATEMENT as u64 + 1;
        let mut runs = Vec::new();
        for pending_limit in [3, usize::MAX] {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            writer.pending_limit = Some(pending_limit);
            writer.max_transaction = Duration::ZERO;
            for line in lines.clone() {
                writer.send(Record::Row(Box::new(same(line)))).unwrap();
                if line.is_multiple_of(10) {
                    writer.tick().unwrap();
                }
            }
            writer.finish().unwrap();
            runs.push(run_id);
        }
        let conn = Connection::open(&path).unwrap();
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(count("SELECT count(*) FROM inputs"), 7);
        assert_eq!(count("SELECT count(*) FROM input_keys"), 7);
        let first = input_ids(&path, runs[0]);
        assert_eq!(first, input_ids(&path, runs[1]), "the next run finds them");
        for (line, id) in first {
            assert_eq!(
                id,
                (line - 2) % 7 + 1,
                "line {line}: ids in the order of first lines"
            );
        }
    }

    #[test]
    fn rows_under_one_hash_are_told_apart_by_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut store = Store::open(&path).unwrap();
        // Rows that differ only in a carried column, or in an empty field against none.
        let variant = |n: u64, line: u64| {
            let mut r = row(2);
            r.input.line = line;
            match n {
                0 => r.input.extra = vec![("Owner".into(), "Ann".into())],
                1 => r.input.extra = vec![("Owner".into(), "Bob".into())],
                2 => r.input.city = Some(String::new()),
                _ => r.input.city = None,
            }
            r
        };
        let mut runs = Vec::new();
        for order in [[0, 1, 2, 3], [3, 2, 1, 0]] {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            for (i, n) in order.into_iter().enumerate() {
                writer
                    .send(Record::Row(Box::new(variant(n, n + 2 + 10 * i as u64))))
                    .unwrap();
            }
            writer.finish().unwrap();
            runs.push(run_id);
            // Each key copied under every other row's hash: a lookup finds all four, and
            // only their fields tell which is the row's.
            store
                .conn
                .execute_batch(
                    "INSERT OR IGNORE INTO input_keys (hash, input)
                     SELECT a.hash, b.input FROM input_keys a, input_keys b",
                )
                .unwrap();
        }
        let conn = Connection::open(&path).unwrap();
        let count: i64 = conn
            .query_row("SELECT count(*) FROM inputs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 4);
        let by_variant = |run_id: i64| -> Vec<(i64, i64)> {
            let mut ids: Vec<(i64, i64)> = input_ids(&path, run_id)
                .into_iter()
                .map(|(line, id)| ((line - 2) % 10, id))
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(by_variant(runs[0]), [(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert_eq!(by_variant(runs[1]), by_variant(runs[0]));
    }

    #[test]
    fn a_row_repeated_after_a_commit_that_wrote_no_keys_finds_the_input_added_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut store = Store::open(&path).unwrap();
        let run_id = start(&mut store);
        let mut writer = store.writer(run_id).unwrap();
        writer.max_transaction = Duration::ZERO;
        // Each commit writes the rows waiting, and no keys (far fewer than a batch).
        for line in [2, 3, 4] {
            let mut again = row(2);
            again.input.line = line;
            writer.send(Record::Row(Box::new(again))).unwrap();
            writer.tick().unwrap();
        }
        writer.finish().unwrap();
        let conn = Connection::open(&path).unwrap();
        let inputs: i64 = conn
            .query_row("SELECT count(*) FROM inputs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(inputs, 1, "one row given three times is stored once");
        let ids = input_ids(&path, run_id);
        assert!(ids.iter().all(|(_, id)| *id == ids[0].1), "{ids:?}");
    }
}
