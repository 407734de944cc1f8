//! The writer's answers to the pipeline, from the same connection as its records: is
//! this search cached, is this company rated in this run, may a recent rating be reused,
//! is a company gone, when was a row last checked.

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{COMPANY_MEMO, Gone, Record, Writer};
use crate::model::Color;
use crate::refresh::RefreshAges;
use crate::store::keys::{company_hash, find_company, search_hash};
use crate::store::{CachedResolution, LATEST_SEEN, StoreError, latest_seen, seconds_text};

/// The last run that saw a rating of `r.company`: first observed it, or confirmed it.
const LAST_RUN: &str = "SELECT max(CASE WHEN f.rating IS NULL THEN x.first_run_id
                                      ELSE f.last_run_id END)
     FROM ratings x LEFT JOIN rating_confirmations f ON f.rating = x.id
     WHERE x.company = r.company";

impl Writer {
    /// The cached answer to a search, if any (whatever its age).
    pub fn cached_resolution(&mut self, key: &str) -> Result<Option<CachedResolution>, StoreError> {
        self.begin()?;
        let found = self.lookup_resolution(key)?;
        if found.is_none() {
            self.missed.note(key);
        }
        Ok(found.map(|(hit, internal, _)| {
            // The row's company will be asked about next: remember its key.
            if let (Some(id), Some(k)) = (hit.company_id, internal) {
                self.remember(id, k);
            }
            hit
        }))
    }
    /// The cached answer, the company's internal key and the row's id: a row added since
    /// the keys were last written is found by its pending key, any other through the key
    /// table.
    pub(super) fn lookup_resolution(
        &self,
        key: &str,
    ) -> Result<Option<(CachedResolution, Option<i64>, i64)>, StoreError> {
        for id in self.pending.resolutions.ids(search_hash(key)) {
            let found = crate::store::read_resolution(self.conn(), key, Some(id))?;
            if found.is_some() {
                return Ok(found);
            }
        }
        crate::store::read_resolution(self.conn(), key, None)
    }
    /// The id of the search's row in `resolutions`, if it is cached.
    pub(super) fn resolution_id(&self, key: &str) -> Result<Option<i64>, StoreError> {
        if let Some(id) = self.pending_resolution_id(key)? {
            return Ok(Some(id));
        }
        self.conn()
            .prepare_cached(
                "SELECT r.id FROM resolution_keys k JOIN resolutions r ON r.id = k.resolution
                 WHERE k.hash = ?1 AND r.input_key = ?2",
            )
            .and_then(|mut s| {
                s.query_row(params![search_hash(key), key], |r| r.get(0))
                    .optional()
            })
            .map_err(StoreError::at("reading the resolution cache"))
    }
    /// The id of the search's row among those added since the keys were last written.
    pub(super) fn pending_resolution_id(&self, key: &str) -> Result<Option<i64>, StoreError> {
        let ctx = "reading the resolution cache";
        for id in self.pending.resolutions.ids(search_hash(key)) {
            let same: Option<i64> = self
                .conn()
                .prepare_cached("SELECT id FROM resolutions WHERE id = ?1 AND input_key = ?2")
                .and_then(|mut s| s.query_row(params![id, key], |r| r.get(0)).optional())
                .map_err(StoreError::at(ctx))?;
            if same.is_some() {
                return Ok(same);
            }
        }
        Ok(None)
    }

    /// Whether this run has already rated the company.
    pub fn rated(&mut self, company: Uuid) -> Result<bool, StoreError> {
        self.begin()?;
        Ok(self
            .known_company(company)?
            .is_some_and(|key| self.rated.contains(key)))
    }
    /// Records the company's latest rating as this run's when it is younger than its
    /// color's refresh age (judged at `now`, from the start of the run that last saw it);
    /// tells whether it did. Its history is left as it is: no one has looked again, so
    /// nothing is confirmed, and the rating keeps ageing from when it was last seen.
    pub fn reuse_rating(
        &mut self,
        company: Uuid,
        ages: &RefreshAges,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.begin()?;
        let Some(key) = self.known_company(company)? else {
            return Ok(false);
        };
        self.write_appends_about(key)?;
        let latest = self
            .conn()
            .prepare_cached(LATEST_SEEN)
            .and_then(|mut s| s.query_row(params![key], latest_seen).optional())
            .map_err(StoreError::at("reading the latest rating"))?;
        match latest {
            Some(seen) if ages.reuses(&seen.color, now.duration_since(seen.seen_at)) => self
                .send(Record::Reused {
                    company,
                    rating: seen.rating,
                    seen_at: seen.seen_at,
                })
                .map(|()| true),
            _ => Ok(false),
        }
    }
    /// Records that the service no longer knows a company it had rated, and returns how
    /// it was last seen; `None` when there is no news: it was never rated, this run rated
    /// it, or an earlier run already reported it gone with the same last rating.
    pub fn gone(&mut self, company: Uuid) -> Result<Option<Gone>, StoreError> {
        let ctx = "reading a company's last rating";
        self.begin()?;
        let Some(key) = self.known_company(company)? else {
            return Ok(None);
        };
        self.write_appends_about(key)?;
        let latest: Option<(i64, String, i64)> = self
            .conn()
            .prepare_cached(
                "SELECT r.id, r.color, coalesce(f.confirmed_at, r.observed_at) FROM ratings r
                 LEFT JOIN rating_confirmations f ON f.rating = r.id
                 WHERE r.id = (SELECT max(id) FROM ratings WHERE company = ?1)",
            )
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(StoreError::at(ctx))?;
        let Some((rating, color, last_seen)) = latest else {
            return Ok(None);
        };
        let reported_by: Option<i64> = self
            .conn()
            .prepare_cached(
                "SELECT max(run_id) FROM run_companies
                 WHERE company = ?1 AND rating_id = ?2 AND change = 'gone'",
            )
            .and_then(|mut s| s.query_row(params![key, rating], |r| r.get(0)))
            .map_err(StoreError::at(ctx))?;
        match reported_by {
            // Every row of this run that names the company hears the same.
            Some(run) if run == self.run_id => {}
            Some(_) => return Ok(None),
            None if self.rated.contains(key) => return Ok(None),
            None => self.send(Record::Gone { company, rating })?,
        }
        Ok(Some(Gone {
            color: Color::parse(&color),
            last_seen: seconds_text(last_seen),
        }))
    }
    /// The last run that rated what a row leads to; `None` if none did (never checked, or
    /// a search with no company, which costs nothing while cached). The row is named by its
    /// search's cache key or by its company. Runs, not times: the service's request times
    /// need not be ratewatch's clock, and a run id orders nights without ties.
    pub fn last_checked(
        &mut self,
        key: Option<&str>,
        company: Option<Uuid>,
    ) -> Result<Option<i64>, StoreError> {
        let ctx = "reading when a row was last checked";
        self.begin()?;
        self.write_appends(true)?;
        let by_key = |key: &str| -> Result<Option<Option<i64>>, StoreError> {
            let Some(id) = self.resolution_id(key)? else {
                return Ok(None);
            };
            self.conn()
                .prepare_cached(&format!(
                    "SELECT ({LAST_RUN}) FROM resolutions r WHERE r.id = ?1"
                ))
                .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
                .map_err(StoreError::at(ctx))
        };
        match (key, company) {
            (Some(key), _) => by_key(key).map(Option::flatten),
            (None, Some(company)) => match self.known_company(company)? {
                Some(key) => self
                    .conn()
                    .prepare_cached(&format!(
                        "SELECT ({LAST_RUN}) FROM (SELECT ?1 AS company) r"
                    ))
                    .and_then(|mut s| s.query_row([key], |r| r.get(0)))
                    .map_err(StoreError::at(ctx)),
                None => Ok(None),
            },
            (None, None) => Ok(None),
        }
    }
    /// The internal key of a company the database knows, without recording it: one this
    /// writer added since the keys were last written is found by its pending key, any
    /// other through the key table.
    pub(super) fn known_company(&mut self, company: Uuid) -> Result<Option<i64>, StoreError> {
        if let Some(k) = self.companies.get(&company) {
            return Ok(Some(*k));
        }
        let ctx = "looking up a company";
        let pending: Vec<i64> = self.pending.companies.ids(company_hash(company)).collect();
        for id in pending {
            let same: Option<i64> = self
                .conn()
                .prepare_cached("SELECT id FROM companies WHERE id = ?1 AND company_id = ?2")
                .and_then(|mut s| {
                    s.query_row(params![id, company.as_bytes()], |r| r.get(0))
                        .optional()
                })
                .map_err(StoreError::at(ctx))?;
            if let Some(k) = same {
                self.remember(company, k);
                return Ok(same);
            }
        }
        let key = find_company(self.conn(), company).map_err(StoreError::at(ctx))?;
        if let Some(k) = key {
            self.remember(company, k);
        }
        Ok(key)
    }
    /// Remembers a company this writer has just added: its key is written later.
    pub(super) fn added_company(&mut self, company: Uuid, key: i64) {
        self.pending.companies.insert(company_hash(company), key);
        self.remember(company, key);
    }
    pub(super) fn remember(&mut self, company: Uuid, key: i64) {
        if self.companies.len() >= COMPANY_MEMO {
            self.companies.clear();
        }
        self.companies.insert(company, key);
    }
}
