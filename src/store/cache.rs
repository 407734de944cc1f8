//! What spares a run a call: the answers to its searches the service gave before (the
//! resolution cache), and a company's latest rating as a run last saw it (reused while
//! its color's refresh age allows).

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use super::database::Store;
use super::sql::{StoreError, read_time, read_uuid};
use crate::model::{CachedResolution, Candidate, Color, SearchOutcome};

/// The cached answer to a search, through the UNIQUE index on `search_key`. `asked`, for
/// an identifier search (service code, identifier): whether the company holds it as
/// written, through the primary key of `company_external_ids` in the same statement (a
/// nightly run asks this for every row), and, when it does not, every identifier it holds.
pub(crate) fn read_resolution(
    conn: &Connection,
    key: &str,
    asked: Option<(&str, &str)>,
) -> Result<Option<CachedResolution>, StoreError> {
    let ctx = "reading the resolution cache";
    let (service, id) = asked.unzip();
    let service = service.map(str::to_uppercase);
    let hit = conn
        .prepare_cached(
            "SELECT r.outcome, c.company_id, r.candidates, r.resolved_at, r.company,
                    ?2 IS NOT NULL
                    AND EXISTS (SELECT 1 FROM company_external_ids e
                            WHERE e.company = r.company AND e.service = ?2
                              AND e.external_id = ?3),
                    c.name, c.city, c.postcode
             FROM resolutions r LEFT JOIN companies c ON c.id = r.company
             WHERE r.search_key = ?1",
        )
        .and_then(|mut s| {
            s.query_row(params![key, service, id], |r| {
                // What the cache holds is read as written, or the run stops on it: a search
                // taken for another answer than the service gave would report the row wrongly.
                let unreadable = |at: usize, e: Box<dyn std::error::Error + Send + Sync>| {
                    rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, e)
                };
                let outcome: String = r.get(0)?;
                let candidates: Option<String> = r.get(2)?;
                let company_id = match r.get_ref(1)? {
                    rusqlite::types::ValueRef::Null => None,
                    _ => Some(read_uuid(r, 1)?),
                };
                let text = |at: usize| -> rusqlite::Result<String> {
                    Ok(r.get::<_, Option<String>>(at)?.unwrap_or_default())
                };
                let hit = CachedResolution {
                    outcome: SearchOutcome::parse(&outcome).ok_or_else(|| {
                        unreadable(0, format!("unknown outcome {outcome:?}").into())
                    })?,
                    company_id,
                    company: match company_id {
                        Some(id) => Some(Candidate {
                            id,
                            name: text(6)?,
                            city: text(7)?,
                            postcode: text(8)?,
                            found_without: None,
                        }),
                        None => None,
                    },
                    candidates: candidates
                        .map(|c| serde_json::from_str(&c).map_err(|e| unreadable(2, e.into())))
                        .transpose()?
                        .unwrap_or_default(),
                    resolved_at: read_time(r, 3)?,
                    holds_exactly: r.get(5)?,
                    external_ids: Vec::new(),
                };
                Ok((hit, r.get::<_, Option<i64>>(4)?))
            })
            .optional()
        })
        .map_err(StoreError::at(ctx))?;
    let Some((mut hit, company)) = hit else {
        return Ok(None);
    };
    if let (Some(company), Some(_), false) = (company, asked, hit.holds_exactly) {
        hit.external_ids = conn
            .prepare_cached(
                "SELECT service, external_id FROM company_external_ids WHERE company = ?1",
            )
            .and_then(|mut s| {
                s.query_map([company], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(StoreError::at(ctx))?;
    }
    Ok(Some(hit))
}

/// The internal key of the company with this UUID, through the UNIQUE index on
/// `companies.company_id` (the UUID as lowercase text with hyphens).
pub(crate) fn find_company(conn: &Connection, company: Uuid) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM companies WHERE company_id = ?1")?
        .query_row([company.to_string()], |r| r.get(0))
        .optional()
}

/// The company's latest rating (`?1`: its internal key), its color and when a run last saw
/// it: the start of the run that first observed it, or of the last that confirmed it (this
/// machine's clock, never the service's dates). Nothing when no run saw it (a sync only).
pub(crate) const LATEST_SEEN: &str = "SELECT r.id, r.color, u.started_at FROM ratings r
     LEFT JOIN rating_confirmations f ON f.rating = r.id
     JOIN runs u ON u.id = CASE WHEN f.rating IS NULL THEN r.first_run_id ELSE f.last_run_id END
     WHERE r.id = (SELECT max(id) FROM ratings WHERE company = ?1)";

/// A company's latest rating as a run last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestSeen {
    /// `ratings.id`.
    pub rating: i64,
    pub color: Color,
    /// The start of the run that last observed or confirmed it.
    pub seen_at: Timestamp,
}

/// Reads a row of [`LATEST_SEEN`].
pub(crate) fn latest_seen(r: &rusqlite::Row<'_>) -> rusqlite::Result<LatestSeen> {
    Ok(LatestSeen {
        rating: r.get(0)?,
        color: Color::parse(&r.get::<_, String>(1)?),
        seen_at: read_time(r, 2)?,
    })
}

impl Store {
    /// The internal key of the company with this UUID, if the database knows it.
    pub(crate) fn company_key(&self, company: Uuid) -> rusqlite::Result<Option<i64>> {
        find_company(&self.conn, company)
    }

    /// The cached answer to a search, if any (whatever its age), for a run's preview.
    pub fn cached_resolution(&self, key: &str) -> Result<Option<CachedResolution>, StoreError> {
        read_resolution(&self.conn, key, None)
    }

    /// The cached answer to a search, with whether its company holds the identifier
    /// `asked` (service code, identifier) for an identifier search ([`read_resolution`]).
    pub fn cached_answer(
        &self,
        key: &str,
        asked: Option<(&str, &str)>,
    ) -> Result<Option<CachedResolution>, StoreError> {
        read_resolution(&self.conn, key, asked)
    }

    /// The company's latest rating and when a run last saw it (a run whose refresh ages
    /// allow uses it without a call: see [`RefreshAges`](crate::model::RefreshAges)).
    pub fn latest_seen(&self, company: Uuid) -> Result<Option<LatestSeen>, StoreError> {
        let ctx = "reading the latest rating";
        let Some(key) = self.company_key(company).map_err(StoreError::at(ctx))? else {
            return Ok(None);
        };
        self.conn
            .query_row(LATEST_SEEN, params![key], latest_seen)
            .optional()
            .map_err(StoreError::at(ctx))
    }
}
