//! The rows as given, stored once however many runs read them (a digest of every field
//! finds them again), and each row's outcome in its run.

use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::{RowRecord, Writer, candidates_json};
use crate::store::StoreError;
use crate::store::keys::{InputDigest, digest_hash};

impl Writer {
    /// Stores the row as given (once, however many runs read it) and its outcome.
    pub(super) fn record_row(&mut self, row: &RowRecord) -> Result<(), StoreError> {
        let line = row.input.line;
        // The message is only built if a statement fails.
        let ctx = move |source| StoreError::Sql {
            context: format!("recording line {line}"),
            source,
        };
        let i = &row.input;
        let fields = [
            &i.reference,
            &i.country,
            &i.service,
            &i.id,
            &i.name,
            &i.street_number,
            &i.street_name,
            &i.city,
            &i.postcode,
            &i.phone,
            &i.company_id,
        ];
        let mut hasher = Sha256::new();
        for f in fields {
            match f {
                Some(v) => {
                    hasher.update(b"\x1f");
                    hasher.update(v.as_bytes());
                }
                None => hasher.update(b"\x1e"),
            }
        }
        // Carried columns count only when there are some: a row without them keeps the
        // digest it always had.
        let extra = (!i.extra.is_empty()).then(|| {
            hasher.update(b"\x1d");
            let mut object = serde_json::Map::new();
            for (header, value) in &i.extra {
                hasher.update(header.as_bytes());
                hasher.update(b"\x1f");
                hasher.update(value.as_bytes());
                hasher.update(b"\x1f");
                object.insert(header.clone(), value.clone().into());
            }
            serde_json::Value::Object(object).to_string()
        });
        let digest: InputDigest = hasher.finalize()[..16]
            .try_into()
            .expect("a SHA-256 has 32 bytes");
        let digest = &digest;
        // A row added since the keys were last written is found by its pending key, any
        // other through the key table, its digest compared in full.
        let hash = digest_hash(digest);
        let mut existing: Option<i64> = None;
        for id in self.pending.inputs.ids(hash) {
            existing = self
                .conn()
                .prepare_cached("SELECT id FROM inputs WHERE id = ?1 AND digest = ?2")
                .and_then(|mut s| {
                    s.query_row(params![id, &digest[..]], |r| r.get(0))
                        .optional()
                })
                .map_err(ctx)?;
            if existing.is_some() {
                break;
            }
        }
        let existing: Option<i64> = match existing {
            Some(id) => Some(id),
            None => self
                .conn()
                .prepare_cached(
                    "SELECT i.id FROM input_keys k JOIN inputs i ON i.id = k.input
                     WHERE k.hash = ?1 AND i.digest = ?2",
                )
                .and_then(|mut s| {
                    s.query_row(params![hash, &digest[..]], |r| r.get(0))
                        .optional()
                })
                .map_err(ctx)?,
        };
        let input = match existing {
            Some(id) => id,
            None => self
                .conn()
                .prepare_cached(
                    "INSERT INTO inputs (digest, ref, country, service, external_id, name, street_number,
                                         street_name, city, postcode, phone, given_company_id, extra)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id",
                )
                .and_then(|mut s| {
                    s.query_row(
                        params![
                            &digest[..], fields[0], fields[1], fields[2], fields[3], fields[4],
                            fields[5], fields[6], fields[7], fields[8], fields[9], fields[10],
                            extra
                        ],
                        |r| r.get(0),
                    )
                })
                .inspect(|id| {
                    self.pending.inputs.insert(hash, *id);
                })
                .map_err(ctx)?,
        };
        let company = row.company_id.map(|id| self.company_key(id)).transpose()?;
        self.conn()
            .prepare_cached(
                "INSERT OR REPLACE INTO run_rows (run_id, line, input_id, status, company, error, candidates)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    self.run_id,
                    row.input.line as i64,
                    input,
                    row.status.as_str(),
                    company,
                    row.error,
                    candidates_json(&row.candidates),
                ])
            })
            .map(drop)
            .map_err(ctx)
    }
}
