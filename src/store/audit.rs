//! What an audit reads (`ratewatch audit`): every acknowledgement and review decision,
//! when it was made and again when it ended, in the order it happened, through the view
//! `audit_trail` that analysts read too.

use super::database::Store;
use super::sql::StoreError;

/// One event of the audit trail: a record made, or ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEvent {
    /// UTC ISO 8601, as stored.
    pub at: String,
    /// `acknowledgement` or `decision`.
    pub record: String,
    /// The record's id (`acks.id`, `decisions.id`).
    pub id: i64,
    /// `made` or `ended`.
    pub event: String,
    /// Who made or ended it; `None` when not recorded, or for what time or a run ended.
    pub who: Option<String>,
    pub company_id: Option<String>,
    pub company_name: Option<String>,
    pub reference: Option<String>,
    /// The color acknowledged at.
    pub color: Option<String>,
    /// When an acknowledgement was to end on its own.
    pub until: Option<String>,
    /// `accept`, `ignore` or `reject`.
    pub decision: Option<String>,
    /// Where a decision came from: `command line`, `web page`, a file.
    pub source: Option<String>,
    /// The note made with it, or for an end why it was withdrawn or revoked.
    pub note: Option<String>,
    /// For an end: `color changed`, `expired`, `replaced`, `withdrawn`, `revoked`.
    pub how: Option<String>,
    /// For an acknowledgement ended by a color change: the run that saw it.
    pub run_id: Option<i64>,
}

impl Store {
    /// Every event of the audit trail at or after `since` and before `until` (ISO 8601 UTC
    /// text; no bound without them), oldest first; an ending after what it ends.
    pub fn audit_trail(
        &self,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<Vec<AuditEvent>, StoreError> {
        let sql = "SELECT at, record, id, event, who, company_id, name, ref, color, until,
                          decision, source, note, how, run_id
                   FROM audit_trail
                   WHERE (?1 IS NULL OR at >= ?1) AND (?2 IS NULL OR at < ?2)
                   ORDER BY at, event = 'ended', record, id";
        self.all("reading the audit trail", sql, [since, until], |r| {
            Ok(AuditEvent {
                at: r.get(0)?,
                record: r.get(1)?,
                id: r.get(2)?,
                event: r.get(3)?,
                who: r.get(4)?,
                company_id: r.get(5)?,
                company_name: r.get(6)?,
                reference: r.get(7)?,
                color: r.get(8)?,
                until: r.get(9)?,
                decision: r.get(10)?,
                source: r.get(11)?,
                note: r.get(12)?,
                how: r.get(13)?,
                run_id: r.get(14)?,
            })
        })
    }
}
