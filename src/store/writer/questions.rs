//! The writer's answers to the pipeline, from the same connection as its records: is
//! this search cached, is this company rated in this run, may a recent rating be reused,
//! is a company gone, when was a row last checked.

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Gone, Record, Writer};
use crate::model::{CachedResolution, Color, RefreshAges};
use crate::store::cache::{LATEST_SEEN, find_company, latest_seen, read_resolution};
use crate::store::sql::StoreError;

/// The last run that saw a rating of `r.company`: first observed it, or confirmed it.
const LAST_RUN: &str = "SELECT max(CASE WHEN f.rating IS NULL THEN x.first_run_id
                                      ELSE f.last_run_id END)
     FROM ratings x LEFT JOIN rating_confirmations f ON f.rating = x.id
     WHERE x.company = r.company";

impl Writer {
    /// The cached answer to a search, if any (whatever its age).
    /// `asked`: an identifier search's service and identifier ([`read_resolution`]).
    pub fn cached_resolution(
        &mut self,
        key: &str,
        asked: Option<(&str, &str)>,
    ) -> Result<Option<CachedResolution>, StoreError> {
        self.begin()?;
        read_resolution(self.conn(), key, asked)
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
    /// it, or an earlier run already reported it gone since a run last saw its rating.
    pub fn gone(&mut self, company: Uuid) -> Result<Option<Gone>, StoreError> {
        let ctx = "reading a company's last rating";
        self.begin()?;
        let Some(key) = self.known_company(company)? else {
            return Ok(None);
        };
        self.write_appends_about(key)?;
        let latest: Option<(i64, String, String)> = self
            .conn()
            .prepare_cached(
                "SELECT r.id, r.color, coalesce(f.confirmed_at, r.observed_at)
                 FROM companies c JOIN ratings r ON r.id = c.latest_rating
                 LEFT JOIN rating_confirmations f ON f.rating = r.id
                 WHERE c.id = ?1",
            )
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(StoreError::at(ctx))?;
        let Some((rating, color, last_seen)) = latest else {
            return Ok(None);
        };
        // Reported gone since a run last saw the rating: a company seen again (with the
        // same rating, or only recalculated) and then gone again is news again.
        let reported_by: Option<i64> = self
            .conn()
            .prepare_cached(
                "SELECT max(rc.run_id) FROM run_company_ratings rc
                 JOIN ratings r ON r.id = rc.rating_id
                 LEFT JOIN rating_confirmations f ON f.rating = r.id
                 WHERE rc.company = ?1 AND rc.rating_id = ?2 AND rc.change = 'gone'
                   AND rc.run_id > coalesce(f.last_run_id, r.first_run_id, 0)",
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
            last_seen,
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
            self.conn()
                .prepare_cached(&format!(
                    "SELECT ({LAST_RUN}) FROM resolutions r WHERE r.search_key = ?1"
                ))
                .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
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
    /// The internal key of a company the database knows, without recording it: from the
    /// keys the writer last saw ([`super::CompanyKeys`]), else through the UNIQUE index.
    pub(super) fn known_company(&mut self, company: Uuid) -> Result<Option<i64>, StoreError> {
        if let Some(key) = self.company_keys.get(company) {
            return Ok(Some(key));
        }
        let found =
            find_company(self.conn(), company).map_err(StoreError::at("looking up a company"))?;
        if let Some(key) = found {
            self.company_keys.put(company, key);
        }
        Ok(found)
    }
}
