//! The decisions a person made on rows that need one (`ratewatch review`), and what the
//! review reads: the latest finished run of each portfolio and the input rows it read.
//!
//! Every decision is kept, with who made it: a later one on the same row and search ends
//! the one in force (`replaced`), and `review revoke` ends it (`revoked`); a run applies
//! those in force only. A decision is keyed by the row's reference and the search it makes; it never changes
//! the resolution cache, which holds only what the service answered. An accepted company
//! is described from the candidate picked (see [`describe_candidate`]), so the reports
//! name it.

use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use super::database::Store;
use super::sql::{StoreError, now_text, read_ended, read_uuid};
use crate::model::time_text;
use crate::model::{Candidate, Decision, Ended, InputRow, Verdict};

/// A decision, in force or ended, as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionRecord {
    pub id: i64,
    pub decision: Decision,
    /// How it ended: `replaced` by a later decision on the same row and search, or
    /// `revoked`; `None` while it is in force.
    pub ended: Option<Ended>,
}

/// The latest finished run of one portfolio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestRun {
    pub run_id: i64,
    pub portfolio: String,
}

impl Store {
    /// The decisions in force (each row's search's current one), by reference then search:
    /// what a run applies.
    pub fn decisions(&self) -> Result<Vec<Decision>, StoreError> {
        Ok(self
            .decision_records("d.ended_at IS NULL", [])?
            .into_iter()
            .map(|r| r.decision)
            .collect())
    }

    /// Every decision, in force or ended, on the rows with any of `references` or accepting
    /// the company `company_id`: a company's history, newest first.
    pub fn decision_history(
        &self,
        references: &[&str],
        company_id: &str,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        let references = serde_json::to_string(references).expect("strings serialize");
        let mut records = self.decision_records(
            "d.ref IN (SELECT value FROM json_each(?1))",
            [references.as_str()],
        )?;
        for accepting in self.decision_records("d.company_id = ?1", [company_id])? {
            if !records.iter().any(|r| r.id == accepting.id) {
                records.push(accepting);
            }
        }
        records.sort_by_key(|r| std::cmp::Reverse((r.decision.decided_at, r.id)));
        Ok(records)
    }

    fn decision_records<P: rusqlite::Params>(
        &self,
        filter: &str,
        params: P,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        let sql = format!(
            "SELECT d.id, d.ref, d.search_key, d.decision, d.company_id, d.decided_at,
                    d.source, d.decided_by, d.note,
                    d.ended_at, d.ended_how, d.ended_by, d.ended_note
             FROM decisions d WHERE {filter} ORDER BY d.ref, d.search_key, d.id"
        );
        let rows = self.all("reading the decisions", &sql, params, |r| {
            let ended = read_ended(r, 9, None)?;
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
                ended,
            ))
        })?;
        // A row written by hand that is not a decision ratewatch understands is skipped:
        // it must not change how a row is screened.
        Ok(rows
            .into_iter()
            .filter_map(
                |(
                    id,
                    reference,
                    search_key,
                    decision,
                    company,
                    decided_at,
                    source,
                    by,
                    note,
                    ended,
                )| {
                    let verdict = match (decision.as_str(), company) {
                        ("accept", Some(c)) => Verdict::Accept(Uuid::parse_str(&c).ok()?),
                        ("ignore", _) => Verdict::Ignore,
                        ("reject", _) => Verdict::Reject,
                        _ => return None,
                    };
                    Some(DecisionRecord {
                        id,
                        decision: Decision {
                            reference,
                            search_key,
                            verdict,
                            decided_at: decided_at.parse().ok()?,
                            source,
                            by,
                            note,
                        },
                        ended,
                    })
                },
            )
            .collect())
    }

    /// Records a decision; the one in force for the same row and search, if any, ends
    /// (`replaced`, by the same person), and is kept. The same decision made again by the
    /// same person with the same note changes nothing.
    pub fn decide(&mut self, decision: &Decision) -> Result<(), StoreError> {
        let at = |e| StoreError::at("recording a decision")(e);
        let company = match decision.verdict {
            Verdict::Accept(c) => Some(c.to_string()),
            Verdict::Ignore | Verdict::Reject => None,
        };
        let decided_at = time_text(decision.decided_at);
        let conn = self.decision_conn()?;
        let tx = conn.unchecked_transaction().map_err(&at)?;
        // The same decision made again (a file imported twice, a form sent twice) stays
        // the one in force: nothing was replaced.
        let unchanged: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM decisions
                 WHERE ref = ?1 AND search_key = ?2 AND ended_at IS NULL AND decision = ?3
                   AND company_id IS ?4 AND decided_by IS ?5 AND note IS ?6)",
                params![
                    decision.reference,
                    decision.search_key,
                    decision.verdict.as_str(),
                    company,
                    decision.by,
                    decision.note
                ],
                |r| r.get(0),
            )
            .map_err(&at)?;
        if unchanged {
            return Ok(());
        }
        tx.execute(
            "UPDATE decisions SET ended_at = ?3, ended_how = 'replaced', ended_by = ?4
             WHERE ref = ?1 AND search_key = ?2 AND ended_at IS NULL",
            params![
                decision.reference,
                decision.search_key,
                decided_at,
                decision.by
            ],
        )
        .map_err(&at)?;
        tx.execute(
            "INSERT INTO decisions (ref, search_key, decision, company_id, decided_at, source,
                                    decided_by, note)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                decision.reference,
                decision.search_key,
                decision.verdict.as_str(),
                company,
                decided_at,
                decision.source,
                decision.by,
                decision.note
            ],
        )
        .map_err(&at)?;
        tx.commit().map_err(&at)
    }

    /// Ends the decisions in force on a reference (`revoked`, by `by`, for `why`); they are
    /// kept. How many there were.
    pub fn revoke(
        &mut self,
        reference: &str,
        by: &str,
        why: Option<&str>,
    ) -> Result<usize, StoreError> {
        self.decision_conn()?
            .execute(
                "UPDATE decisions SET ended_at = ?2, ended_how = 'revoked', ended_by = ?3,
                                      ended_note = ?4
                 WHERE ref = ?1 AND ended_at IS NULL",
                params![reference, now_text(), by, why],
            )
            .map_err(StoreError::at("revoking a decision"))
    }

    /// The latest finished run (`complete` or `partial`) of each portfolio, by portfolio
    /// name, through the view `latest_finished_runs` that analysts read: a run still
    /// going, interrupted or failed may hold only part of the file, and a review of it
    /// would miss the rows it has not reached yet (or say that nothing needs a person
    /// while a run is going).
    pub fn latest_finished_runs(&self) -> Result<Vec<LatestRun>, StoreError> {
        let sql = "SELECT id, portfolio FROM latest_finished_runs ORDER BY portfolio";
        self.all("finding the latest finished runs", sql, [], |r| {
            Ok(LatestRun {
                run_id: r.get(0)?,
                portfolio: r.get(1)?,
            })
        })
    }

    /// The companies a run offered for its row on `line`: the candidates of an ambiguous
    /// row, or the company a rated row was found as.
    pub fn offered(&self, run_id: i64, line: u64) -> Result<Vec<Candidate>, StoreError> {
        let ctx = format!("reading the candidates of line {line} of run {run_id}");
        let found = self
            .conn
            .query_row(
                "SELECT rr.candidates, c.company_id, c.name, c.city, c.postcode
                 FROM run_rows rr
                 LEFT JOIN companies c ON c.id = rr.company AND rr.status = 'rated'
                 WHERE rr.run_id = ?1 AND rr.line = ?2",
                params![run_id, line as i64],
                |r| {
                    let rated = match r.get_ref(1)? {
                        rusqlite::types::ValueRef::Null => None,
                        _ => Some(Candidate {
                            id: read_uuid(r, 1)?,
                            name: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                            city: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                            postcode: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                            found_without: None,
                        }),
                    };
                    Ok((r.get::<_, Option<String>>(0)?, rated))
                },
            )
            .optional()
            .map_err(StoreError::at(ctx))?;
        let Some((candidates, rated)) = found else {
            return Ok(Vec::new());
        };
        // Unreadable candidates are an error, never "it has no candidates".
        let mut offered: Vec<Candidate> = candidates
            .map(|c| serde_json::from_str(&c))
            .transpose()
            .map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
            })
            .map_err(StoreError::at(format!(
                "reading the candidates of line {line} of run {run_id} (a JSON array)"
            )))?
            .unwrap_or_default();
        offered.extend(rated);
        Ok(offered)
    }

    /// Describes the company accepted for the row on `line` of a run from the candidate
    /// it was offered as: its name, city and postcode, and the country the row searched
    /// in. Only a company the database knows without a name is changed (one described by
    /// the service in full keeps that description); a company it does not know yet is left
    /// to the next run, which describes it from the cached search. Whether it changed.
    pub fn describe_accepted(
        &mut self,
        run_id: i64,
        line: u64,
        company: Uuid,
    ) -> Result<bool, StoreError> {
        let Some(candidate) = self
            .offered(run_id, line)?
            .into_iter()
            .find(|c| c.id == company)
        else {
            return Ok(false);
        };
        let country = self
            .run_input(run_id, line)?
            .and_then(|row| row.country)
            .unwrap_or_default();
        let ctx = format!("describing company {company}");
        let Some(key) = self.company_key(company).map_err(StoreError::at(&ctx))? else {
            return Ok(false);
        };
        describe_candidate(self.decision_conn()?, key, &candidate, &country)
            .map(|changed| changed > 0)
            .map_err(StoreError::at(ctx))
    }

    /// The input row a run read on `line`.
    pub fn run_input(&self, run_id: i64, line: u64) -> Result<Option<InputRow>, StoreError> {
        Ok(self
            .inputs_where(run_id, "rr.line = ?2", line as i64)?
            .pop())
    }

    /// The input rows a run read with any of these references, in input order.
    pub fn run_inputs_with_refs(
        &self,
        run_id: i64,
        references: &[&str],
    ) -> Result<Vec<InputRow>, StoreError> {
        // The inputs holding them are read first, all in one pass (a scan: no index takes
        // the references in a file's order), then the run's rows that point to them.
        let references = serde_json::to_string(references).expect("strings serialize");
        self.inputs_where(
            run_id,
            "rr.input_id IN (SELECT id FROM inputs
                             WHERE ref IN (SELECT value FROM json_each(?2)))",
            references,
        )
    }

    fn inputs_where(
        &self,
        run_id: i64,
        filter: &str,
        value: impl rusqlite::ToSql,
    ) -> Result<Vec<InputRow>, StoreError> {
        let sql = format!(
            "SELECT rr.line, i.ref, i.country, i.service, i.external_id, i.name,
                    i.street_number, i.street_name, i.city, i.postcode, i.phone,
                    i.given_company_id
             FROM run_rows rr JOIN inputs i ON i.id = rr.input_id
             WHERE rr.run_id = ?1 AND {filter}
             ORDER BY rr.line"
        );
        let ctx = format!("reading the inputs of run {run_id}");
        self.all(&ctx, &sql, params![run_id, value], input_row)
    }
}

/// Gives the company with internal key `company` the description of a candidate: the
/// name, city and postcode the service listed it with, and `country`, the country of the
/// search that found it (a candidate does not carry its own). Only a company without a
/// name is changed, and only in the parts it lacks: a description the service gave in full
/// (with its street) is never replaced by a candidate's shorter one. How many rows changed.
pub(super) fn describe_candidate(
    conn: &Connection,
    company: i64,
    candidate: &Candidate,
    country: &str,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "UPDATE companies SET
             name = ?2,
             country = coalesce(nullif(country, ''), nullif(?3, '')),
             city = coalesce(nullif(city, ''), nullif(?4, '')),
             postcode = coalesce(nullif(postcode, ''), nullif(?5, '')),
             updated_at = ?6
         WHERE id = ?1 AND coalesce(name, '') = '' AND ?2 <> ''",
    )?
    .execute(params![
        company,
        candidate.name,
        country.trim().to_uppercase(),
        candidate.city,
        candidate.postcode,
        now_text()
    ])
}

/// An input row read from the columns `line, ref, country, service, external_id, name,
/// street_number, street_name, city, postcode, phone, given_company_id`, by name; its
/// carried columns left out.
fn input_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<InputRow> {
    Ok(InputRow {
        line: r.get::<_, i64>("line")? as u64,
        reference: r.get("ref")?,
        country: r.get("country")?,
        service: r.get("service")?,
        id: r.get("external_id")?,
        name: r.get("name")?,
        street_number: r.get("street_number")?,
        street_name: r.get("street_name")?,
        city: r.get("city")?,
        postcode: r.get("postcode")?,
        phone: r.get("phone")?,
        company_id: r.get("given_company_id")?,
        ..InputRow::default()
    })
}
