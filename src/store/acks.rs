//! The acknowledgements of `ratewatch ack` and the inbox, kept forever: each one a row of
//! `acks` with who made it, ended (never erased) by what comes later. A later
//! acknowledgement of the company replaces the current one, `ratewatch unack` withdraws it,
//! its `until` passing ends it, and so does the run that sees the company at another color
//! (`alert_log`). The current one of a company (not ended) is what a run and the inbox
//! apply while its `until` is still to come.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, params};

use super::cache::find_company;
use super::database::Store;
use super::sql::{StoreError, now_text, read_ended};
use crate::model::{Ended, time_text};

/// An acknowledgement of a company's alert, in force or ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    pub id: i64,
    pub company_id: String,
    pub company_name: Option<String>,
    pub reference: Option<String>,
    pub color: String,
    pub acked_at: String,
    /// Who made it; `None` for one made before ratewatch recorded it.
    pub acked_by: Option<String>,
    pub until: Option<String>,
    pub note: Option<String>,
    /// How it ended; one whose `until` has passed ended then, `expired`.
    pub ended: Option<Ended>,
    /// It ended by its `until` passing.
    pub expired: bool,
}

impl Ack {
    /// `in force`, or how it ended: `expired`, `color changed (run 12)`, `withdrawn by
    /// marie: paid`.
    pub fn status(&self) -> String {
        self.ended
            .as_ref()
            .map_or_else(|| "in force".to_string(), Ended::describe)
    }
}

/// An acknowledgement to record.
#[derive(Debug, Clone, Copy)]
pub struct NewAck<'a> {
    /// The service's UUID of the company, as text.
    pub company_id: &'a str,
    /// The ref it was given by, if any.
    pub reference: Option<&'a str>,
    pub until: Option<&'a str>,
    pub note: Option<&'a str>,
    /// Who makes it.
    pub by: &'a str,
}

/// The columns of an [`Ack`] as of `?1` (ISO 8601 UTC text): one current whose `until` is
/// not later is read as ended then, `expired`.
const ACK: &str = "SELECT a.id, c.company_id, c.name, a.ref, a.color, a.acked_at, a.acked_by,
        a.until, a.note,
        coalesce(a.ended_at, CASE WHEN a.until <= ?1 THEN a.until END),
        coalesce(a.ended_how, CASE WHEN a.until <= ?1 THEN 'expired' END),
        a.ended_by, a.ended_note, a.ended_run_id
     FROM acks a JOIN companies c ON c.id = a.company";

/// Current, and its `until` (if any) still to come at `?1`: what applies.
const IN_FORCE: &str = "a.ended_at IS NULL AND (a.until IS NULL OR a.until > ?1)";

fn ack(r: &rusqlite::Row<'_>) -> rusqlite::Result<Ack> {
    let ended = read_ended(r, 9, Some(13))?;
    Ok(Ack {
        id: r.get(0)?,
        company_id: r.get(1)?,
        company_name: r.get(2)?,
        reference: r.get(3)?,
        color: r.get(4)?,
        acked_at: r.get(5)?,
        acked_by: r.get(6)?,
        until: r.get(7)?,
        note: r.get(8)?,
        expired: ended.as_ref().is_some_and(|e| e.how == "expired"),
        ended,
    })
}

/// Ends the current acknowledgement of `company`, if any, at `now` and `how` (by `by`,
/// for `why`); one whose `until` had already passed ends as `expired` at its `until`.
/// Whether one in force was ended.
pub(super) fn end_current(
    tx: &rusqlite::Connection,
    company: i64,
    now: &str,
    how: &str,
    by: Option<&str>,
    why: Option<&str>,
    run_id: Option<i64>,
) -> rusqlite::Result<bool> {
    let in_force = tx
        .prepare_cached(
            "SELECT 1 FROM acks WHERE company = ?1 AND ended_at IS NULL
                 AND (until IS NULL OR until > ?2)",
        )?
        .query_row(params![company, now], |_| Ok(()))
        .optional()?
        .is_some();
    tx.prepare_cached(
        "UPDATE acks SET
             ended_at = CASE WHEN until <= ?2 THEN until ELSE ?2 END,
             ended_how = CASE WHEN until <= ?2 THEN 'expired' ELSE ?3 END,
             ended_by = CASE WHEN until <= ?2 THEN NULL ELSE ?4 END,
             ended_note = CASE WHEN until <= ?2 THEN NULL ELSE ?5 END,
             ended_run_id = CASE WHEN until <= ?2 THEN NULL ELSE ?6 END
         WHERE company = ?1 AND ended_at IS NULL",
    )?
    .execute(params![company, now, how, by, why, run_id])?;
    Ok(in_force)
}

impl Store {
    /// Records each acknowledgement at its company's latest color, in one transaction,
    /// each ending the company's current one (`replaced`). The colors, in order; when a
    /// company has no rating (or is unknown) nothing is recorded, and its color is `None`.
    pub fn acknowledge(&mut self, acks: &[NewAck<'_>]) -> Result<Vec<Option<String>>, StoreError> {
        let ctx = "recording an acknowledgement";
        let at = |e| StoreError::at(ctx)(e);
        let now = now_text();
        let conn = self.decision_conn()?;
        let tx = conn.unchecked_transaction().map_err(&at)?;
        let mut found = Vec::new();
        for ack in acks {
            found.push(latest_color(&tx, ack.company_id).map_err(&at)?);
        }
        if found.iter().any(Option::is_none) {
            // Rolled back as it is dropped: nothing was written anyway.
            return Ok(found.into_iter().map(|f| f.map(|(_, c)| c)).collect());
        }
        for (ack, (company, color)) in acks.iter().zip(found.iter().flatten()) {
            end_current(&tx, *company, &now, "replaced", Some(ack.by), None, None).map_err(&at)?;
            tx.prepare_cached(
                "INSERT INTO acks (company, ref, color, acked_at, acked_by, until, note)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    company,
                    ack.reference,
                    color,
                    now,
                    ack.by,
                    ack.until,
                    ack.note
                ])
            })
            .map_err(&at)?;
        }
        tx.commit().map_err(&at)?;
        Ok(found.into_iter().map(|f| f.map(|(_, c)| c)).collect())
    }

    /// Withdraws the acknowledgement in force of each company (`ratewatch unack`), by `by`
    /// for `why`, in one transaction: whether each had one. A company without one is left
    /// as it is.
    pub fn withdraw_acks(
        &mut self,
        company_ids: &[&str],
        by: &str,
        why: Option<&str>,
    ) -> Result<Vec<bool>, StoreError> {
        let at = |e| StoreError::at("withdrawing an acknowledgement")(e);
        let now = now_text();
        let conn = self.decision_conn()?;
        let tx = conn.unchecked_transaction().map_err(&at)?;
        let mut withdrawn = Vec::new();
        for company_id in company_ids {
            let key = match uuid::Uuid::parse_str(company_id) {
                Ok(uuid) => find_company(&tx, uuid).map_err(&at)?,
                Err(_) => None,
            };
            withdrawn.push(match key {
                Some(company) => end_current(&tx, company, &now, "withdrawn", Some(by), why, None)
                    .map_err(&at)?,
                None => false,
            });
        }
        tx.commit().map_err(&at)?;
        Ok(withdrawn)
    }

    /// The acknowledgements in force at `at`, newest first; with `all`, every one ever
    /// made, those that ended marked with how.
    pub fn acks(&self, at: Timestamp, all: bool) -> Result<Vec<Ack>, StoreError> {
        let filter = if all { "1" } else { IN_FORCE };
        let sql = format!("{ACK} WHERE {filter} ORDER BY a.acked_at DESC, a.id DESC");
        self.all("reading the acknowledgements", &sql, [time_text(at)], ack)
    }

    /// Every acknowledgement of one company (its UUID as text), newest first, as of `at`.
    pub fn company_acks(&self, company_id: &str, at: Timestamp) -> Result<Vec<Ack>, StoreError> {
        let sql = format!(
            "{ACK} WHERE a.company = (SELECT id FROM companies WHERE company_id = ?2)
             ORDER BY a.acked_at DESC, a.id DESC"
        );
        self.all(
            "reading a company's acknowledgements",
            &sql,
            params![time_text(at), company_id],
            ack,
        )
    }
}

/// The internal key and latest color of the company with this UUID (as text); `None` when
/// the database does not know it or has no rating of it.
fn latest_color(tx: &Transaction<'_>, company_id: &str) -> rusqlite::Result<Option<(i64, String)>> {
    let Ok(uuid) = uuid::Uuid::parse_str(company_id) else {
        return Ok(None);
    };
    let Some(key) = find_company(tx, uuid)? else {
        return Ok(None);
    };
    tx.prepare_cached(
        "SELECT c.id, r.color FROM companies c JOIN ratings r ON r.id = c.latest_rating
         WHERE c.id = ?1",
    )?
    .query_row([key], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()
}
