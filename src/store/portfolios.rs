//! What a run asks of the portfolios already screened before it picks its own name: which
//! portfolios have finished runs, and how many of a file's refs one of them holds. Read
//! only.

use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::sql::StoreError;

impl Store {
    /// Whether any run, finished or not, was made under the portfolio name `name`.
    pub fn has_runs(&self, name: &str) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT 1 FROM runs WHERE portfolio = ?1 LIMIT 1",
                [name],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(StoreError::at("looking for the portfolio's runs"))
    }

    /// Each portfolio's latest finished run: (portfolio, run id), through the index on
    /// `runs (portfolio, id)`.
    pub fn finished_portfolios(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.conn
            .prepare(
                "SELECT portfolio, max(id) FROM runs
                 WHERE status IN ('complete', 'partial')
                 GROUP BY portfolio",
            )
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(StoreError::at("listing the portfolios"))
    }

    /// How many of `refs` (distinct) rows of run `run_id` hold: one pass over the run's
    /// rows, the refs asked for held in a temporary table.
    pub fn refs_held(&mut self, run_id: i64, refs: &[String]) -> Result<u64, StoreError> {
        let at = || StoreError::at("comparing the file's refs with a portfolio's");
        let tx = self.conn.transaction().map_err(at())?;
        let held = (|| {
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS asked_refs (ref TEXT PRIMARY KEY) WITHOUT ROWID;
                 DELETE FROM temp.asked_refs;",
            )?;
            {
                let mut insert =
                    tx.prepare("INSERT OR IGNORE INTO temp.asked_refs (ref) VALUES (?1)")?;
                for r in refs {
                    insert.execute([r])?;
                }
            }
            let held = tx.query_row(
                "SELECT count(DISTINCT i.ref) FROM run_rows rr
                 JOIN inputs i ON i.id = rr.input_id
                 WHERE rr.run_id = ?1 AND i.ref IN (SELECT ref FROM temp.asked_refs)",
                params![run_id],
                |r| r.get::<_, i64>(0),
            )?;
            tx.execute_batch("DELETE FROM temp.asked_refs;")?;
            Ok::<_, rusqlite::Error>(held)
        })()
        .map_err(at())?;
        tx.commit().map_err(at())?;
        Ok(held as u64)
    }
}
