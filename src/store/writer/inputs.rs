//! The rows as given, each distinct row stored once however many runs read it: found
//! again through `inputs_by_fields`, the UNIQUE index over all its fields. Each row's
//! outcome is written with others ([`super::appends`]).

use rusqlite::{Connection, OptionalExtension, params_from_iter};

use super::appends::RunRow;
use super::{RowRecord, Writer, candidates_json};
use crate::store::sql::StoreError;

/// The fields of `inputs` after its id, in their order: a row as given.
type Fields = [Option<String>; 12];

/// The input with these fields. `IS`, not `=`: a field may be NULL, and NULL `IS` NULL
/// (for the same reason the UNIQUE index alone does not keep a row with an empty field
/// from being added twice: it holds NULLs as distinct).
const FIND_INPUT: &str = "SELECT id FROM inputs
     WHERE ref IS ?1 AND country IS ?2 AND service IS ?3 AND external_id IS ?4 AND name IS ?5
       AND street_number IS ?6 AND street_name IS ?7 AND city IS ?8 AND postcode IS ?9
       AND phone IS ?10 AND given_company_id IS ?11 AND extra IS ?12";

const ADD_INPUT: &str = "INSERT INTO inputs (ref, country, service, external_id, name,
         street_number, street_name, city, postcode, phone, given_company_id, extra)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/// The id of the stored input with these fields, adding it if there is none.
fn input_id(conn: &Connection, fields: &Fields) -> rusqlite::Result<i64> {
    let found = conn
        .prepare_cached(FIND_INPUT)?
        .query_row(params_from_iter(fields), |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    conn.prepare_cached(ADD_INPUT)?
        .execute(params_from_iter(fields))?;
    Ok(conn.last_insert_rowid())
}

impl Writer {
    /// Records the row as given (stored once, however many runs read it) and its outcome:
    /// written with the next [`crate::store::batch::ROWS_PER_STATEMENT`] rows, or the
    /// next commit.
    pub(super) fn record_row(&mut self, row: RowRecord) -> Result<(), StoreError> {
        let line = row.input.line;
        let (country_defaulted, extra_unreliable) =
            (row.input.country_defaulted, row.input.extra_unreliable);
        let i = row.input;
        let amount = self
            .amount_column
            .as_deref()
            .and_then(|column| crate::alerts::amount_in(column, &i.extra, extra_unreliable));
        // Carried columns are stored (as a JSON object) only when there are some.
        let extra = (!i.extra.is_empty()).then(|| {
            let object: serde_json::Map<String, serde_json::Value> = i
                .extra
                .into_iter()
                .map(|(header, value)| (header, value.into()))
                .collect();
            serde_json::Value::Object(object).to_string()
        });
        let fields: Fields = [
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
            extra,
        ];
        let input = input_id(self.conn(), &fields).map_err(|source| StoreError::Sql {
            context: format!("recording the row of line {line}"),
            source,
        })?;
        let company = row.company_id.map(|id| self.company_key(id)).transpose()?;
        if self.lines.contains(line as i64) {
            self.retract_line(line as i64)?;
        }
        self.lines.insert(line as i64);
        self.appends.run_row(RunRow {
            line: line as i64,
            input,
            status: row.status,
            company,
            error: row.error,
            candidates: candidates_json(&row.candidates),
            country_defaulted,
            extra_unreliable,
            found_by: row.found_by,
            amount,
        });
        self.write_full_appends()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rusqlite::Connection;

    use super::FIND_INPUT;
    use crate::model::{Candidate, InputRow, RowStatus};
    use crate::store::batch::ROWS_PER_STATEMENT;
    use crate::store::database::Store;
    use crate::store::writer::{Record, RowRecord};

    use crate::store::tests::{all, new_run, new_store, plan, run as start};

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
                    found_without: None,
                }]
            } else {
                vec![]
            },
        }
    }

    type Stored = (i64, String, String, Option<String>, Option<String>);

    fn stored(path: &std::path::Path, run_id: i64) -> Vec<Stored> {
        all(
            &Connection::open(path).unwrap(),
            "SELECT rr.line, rr.status, i.ref, rr.error, rr.candidates
             FROM run_rows rr JOIN inputs i ON i.id = rr.input_id
             WHERE rr.run_id = ?1 ORDER BY rr.line",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
    }

    #[test]
    fn outcomes_written_in_batches_are_stored_as_one_at_a_time_and_all_by_the_commit() {
        let (_dir, path, _store, run_id, mut writer) = new_run();
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
        let (_dir, path, store, run_id, mut writer) = new_run();
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
        drop(store);
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

    fn inputs_stored(path: &std::path::Path) -> i64 {
        let conn = Connection::open(path).unwrap();
        conn.query_row("SELECT count(*) FROM inputs", [], |r| r.get(0))
            .unwrap()
    }

    fn input_ids(path: &std::path::Path, run_id: i64) -> Vec<(i64, i64)> {
        all(
            &Connection::open(path).unwrap(),
            "SELECT line, input_id FROM run_rows WHERE run_id = ?1 ORDER BY line",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    #[test]
    fn a_row_given_again_in_a_run_or_the_next_is_stored_once_with_the_id_of_its_first_line() {
        let (_dir, path, mut store) = new_store();
        // Line n holds row n % 7: repeats within one statement's worth and across them,
        // with commits in between.
        let same = |line: u64| {
            let mut r = row(line % 7 + 2);
            r.input.line = line;
            r
        };
        let lines = 2..2 + 3 * ROWS_PER_STATEMENT as u64 + 1;
        let mut runs = Vec::new();
        for _ in 0..2 {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
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
        assert_eq!(inputs_stored(&path), 7);
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
    fn rows_that_differ_in_one_field_are_stored_apart_and_each_found_again() {
        let (_dir, path, mut store) = new_store();
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
        }
        assert_eq!(inputs_stored(&path), 4);
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
    fn an_input_is_found_through_the_index_over_its_fields() {
        let (_dir, _, store) = new_store();
        let plan = plan(&store, FIND_INPUT);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(
            plan[0].starts_with("SEARCH inputs USING COVERING INDEX inputs_by_fields (ref=? AND")
                && plan[0].contains("extra=?)"),
            "{plan:?}"
        );
    }

    #[test]
    fn a_row_repeated_after_each_commit_finds_the_input_added_before() {
        let (_dir, path, _store, run_id, mut writer) = new_run();
        writer.max_transaction = Duration::ZERO;
        // Each commit writes the outcomes waiting (far fewer than a statement's worth).
        for line in [2, 3, 4] {
            let mut again = row(2);
            again.input.line = line;
            writer.send(Record::Row(Box::new(again))).unwrap();
            writer.tick().unwrap();
        }
        writer.finish().unwrap();
        assert_eq!(
            inputs_stored(&path),
            1,
            "one row given three times is stored once"
        );
        let ids = input_ids(&path, run_id);
        assert!(ids.iter().all(|(_, id)| *id == ids[0].1), "{ids:?}");
    }
}
