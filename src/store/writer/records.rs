//! The writer's records of what the service said: companies and their identifiers, and
//! the rating history, where each observation is compared with the latest earlier one.

use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use super::Writer;
use crate::model::{self, Change, Color, Company};
use crate::store::{StoreError, now_seconds, seconds};

impl Writer {
    /// The internal key of a company, recording it (by UUID only) if it is new.
    pub(super) fn company_key(&mut self, company: Uuid) -> Result<i64, StoreError> {
        if let Some(key) = self.known_company(company)? {
            return Ok(key);
        }
        let key: i64 = self
            .conn()
            .prepare_cached(
                "INSERT INTO companies (company_id, first_seen_at, updated_at) VALUES (?1, ?2, ?2)
                 RETURNING id",
            )
            .and_then(|mut s| s.query_row(params![company.as_bytes(), now_seconds()], |r| r.get(0)))
            .map_err(StoreError::at("recording a company"))?;
        self.added_company(company, key);
        Ok(key)
    }
    /// Records a company as the service described it: a new one is appended, a known one
    /// refreshed in place.
    pub(super) fn upsert_company(&mut self, c: &Company) -> Result<i64, StoreError> {
        let a = &c.address;
        let known = self.known_company(c.id)?;
        let key: i64 = self
            .conn()
            .prepare_cached(
                "INSERT INTO companies (id, company_id, name, country, street_number, street_name,
                                        postcode, city, phone, legal_form, first_seen_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)
                 ON CONFLICT (id) DO UPDATE SET
                   name = excluded.name, country = excluded.country,
                   street_number = excluded.street_number, street_name = excluded.street_name,
                   postcode = excluded.postcode, city = excluded.city, phone = excluded.phone,
                   legal_form = excluded.legal_form, updated_at = excluded.updated_at
                 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![
                        known,
                        c.id.as_bytes(),
                        c.name,
                        a.country.to_uppercase(),
                        a.street_number,
                        a.street_name,
                        a.postcode,
                        a.city,
                        c.phone,
                        c.legal_form,
                        now_seconds()
                    ],
                    |r| r.get(0),
                )
            })
            .map_err(StoreError::at("recording a company"))?;
        if known.is_none() {
            self.added_company(c.id, key);
        }
        let mut ids = self
            .conn()
            .prepare_cached(
                "INSERT OR IGNORE INTO company_external_ids (company, service, external_id) VALUES (?1, ?2, ?3)",
            )
            .map_err(StoreError::at("recording identifiers"))?;
        for (service, id) in &c.external_ids {
            ids.execute(params![key, service, id])
                .map_err(StoreError::at("recording identifiers"))?;
        }
        Ok(key)
    }

    /// Adds a rating to the history (or confirms the latest one) and records the change.
    pub(super) fn observe(&mut self, rating: &model::Rating) -> Result<(), StoreError> {
        let ctx = "recording a rating";
        let company = self.company_key(rating.company_id)?;
        let run_id = self.run_id;
        // Each company is observed once per run: the pipeline asks `rated` before it fetches
        // (a resumed run included), and a second observation would break the primary key
        // of run_companies below, loudly, rather than double the history.
        let color = rating.color.as_str();
        let last_change = rating.last_change.map(seconds);
        let last_refresh = rating.last_refresh.map(seconds);
        let observed = rating.requested_at.map_or_else(now_seconds, seconds);
        if !self.service_time_known {
            // The first rating of the run dates it on the service's clock (staleness).
            self.conn()
                .prepare_cached(
                    "UPDATE runs SET service_time = ?2 WHERE id = ?1 AND service_time IS NULL",
                )
                .and_then(|mut s| s.execute(params![run_id, crate::store::seconds_text(observed)]))
                .map_err(StoreError::at(ctx))?;
            self.service_time_known = true;
        }
        let insert = |conn: &Connection| -> Result<i64, StoreError> {
            conn.prepare_cached(
                "INSERT INTO ratings (company, color, last_change_date, last_refresh_date,
                                      observed_at, first_run_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![company, color, last_change, last_refresh, observed, run_id],
                    |r| r.get(0),
                )
            })
            .map_err(StoreError::at(ctx))
        };
        // A company first recorded by this run has no history to compare with.
        if company > self.known_before {
            let id = insert(self.conn())?;
            let change = Change::classify(None, &rating.color, last_change);
            return self.record_change(company, id, None, change);
        }

        // Most nights most ratings are unchanged: confirming the latest observation in one
        // statement when it matches spares reading it first. The confirmation is a row of
        // its own: the rating's row is never rewritten.
        let confirmed: Option<i64> = self
            .conn()
            .prepare_cached(
                "INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
                 SELECT id, ?5, ?6 FROM ratings
                 WHERE id = (SELECT max(id) FROM ratings WHERE company = ?1)
                   AND color = ?2 AND last_change_date IS ?3 AND last_refresh_date IS ?4
                 ON CONFLICT (rating) DO UPDATE SET
                   confirmed_at = excluded.confirmed_at, last_run_id = excluded.last_run_id
                 RETURNING rating",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![company, color, last_change, last_refresh, observed, run_id],
                    |r| r.get(0),
                )
                .optional()
            })
            .map_err(StoreError::at(ctx))?;
        if let Some(id) = confirmed {
            // The latest observation had this color and these dates: the model's rule says
            // so (unchanged) without a second read of it.
            let same = (&rating.color, last_change);
            let change = Change::classify(Some(same), &rating.color, last_change);
            return self.record_change(company, id, Some(id), change);
        }
        let latest: Option<(i64, String, Option<i64>)> = self
            .conn()
            .prepare_cached(
                "SELECT id, color, last_change_date FROM ratings
                 WHERE company = ?1 ORDER BY id DESC LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row([company], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(StoreError::at(ctx))?;
        let new_id = insert(self.conn())?;
        let previous = latest.as_ref().map(|(_, c, lc)| (Color::parse(c), *lc));
        let change = Change::classify(
            previous.as_ref().map(|(c, lc)| (c, *lc)),
            &rating.color,
            last_change,
        );
        self.record_change(company, new_id, latest.map(|l| l.0), change)
    }
    /// Records what this run observed for a company against its previous observation.
    pub(super) fn record_change(
        &mut self,
        company: i64,
        rating_id: i64,
        previous_id: Option<i64>,
        change: Change,
    ) -> Result<(), StoreError> {
        let run_id = self.run_id;
        self.conn()
            .prepare_cached(
                "INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run_id,
                    company,
                    rating_id,
                    previous_id,
                    change.as_str()
                ])
            })
            .map_err(StoreError::at("recording a rating"))?;
        self.rated.insert(company);
        Ok(())
    }
}
