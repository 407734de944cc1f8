//! The writer's records of what the service said: companies and their registry ids, and
//! the rating history, where each observation is compared with the latest earlier one.

use std::sync::LazyLock;

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::Writer;
use crate::model::time_text;
use crate::model::{self, Change, Color, Company};
use crate::store::refreshes::refresh_at_run;
use crate::store::sql::{StoreError, now_text};

/// The company's latest rating (`?1`: its key) with its refresh date as run `?2` shows it.
static LATEST_AS_OF_RUN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT r.id, r.color, r.last_change_date,
                iif(h.rating IS NULL, r.last_refresh_date, h.last_refresh_date)
         FROM companies c JOIN ratings r ON r.id = c.latest_rating
         {}
         WHERE c.id = ?1",
        refresh_at_run("r.id", "?2")
    )
});

impl Writer {
    /// The internal key of a company, recording it (by UUID only) if it is new.
    pub(super) fn company_key(&mut self, company: Uuid) -> Result<i64, StoreError> {
        if let Some(key) = self.known_company(company)? {
            return Ok(key);
        }
        let conn = self.conn();
        conn.prepare_cached(
            "INSERT INTO companies (company_id, first_seen_at, updated_at) VALUES (?1, ?2, ?2)",
        )
        .and_then(|mut s| s.execute(params![company.to_string(), now_text()]))
        .map_err(StoreError::at("recording a company"))?;
        let key = conn.last_insert_rowid();
        self.company_keys.put(company, key);
        Ok(key)
    }
    /// Records a company as the service described it: a new one is added, a known one
    /// refreshed in place; its registry ids are added to those it had.
    pub(super) fn upsert_company(&mut self, c: &Company) -> Result<i64, StoreError> {
        let ctx = "recording a company";
        let a = &c.address;
        let known = self.known_company(c.id)?;
        let conn = self.conn();
        // The id is known either way, so the statement returns nothing (RETURNING costs a
        // temporary table).
        conn.prepare_cached(
            "INSERT INTO companies (company_id, name, country, street_number, street_name,
                                    postcode, city, phone, legal_form, first_seen_at,
                                    updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
             ON CONFLICT (company_id) DO UPDATE SET
               name = excluded.name, country = excluded.country,
               street_number = excluded.street_number, street_name = excluded.street_name,
               postcode = excluded.postcode, city = excluded.city, phone = excluded.phone,
               legal_form = excluded.legal_form, updated_at = excluded.updated_at",
        )
        .and_then(|mut s| {
            s.execute(params![
                c.id.to_string(),
                c.name,
                a.country.to_uppercase(),
                a.street_number,
                a.street_name,
                a.postcode,
                a.city,
                c.phone,
                c.legal_form,
                now_text()
            ])
        })
        .map_err(StoreError::at(ctx))?;
        let key = known.unwrap_or_else(|| conn.last_insert_rowid());
        for (service, id) in &c.external_ids {
            conn.prepare_cached(
                "INSERT OR IGNORE INTO company_external_ids (company, service, external_id)
                 VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut s| s.execute(params![key, service, id]))
            .map_err(StoreError::at(ctx))?;
        }
        self.company_keys.put(c.id, key);
        Ok(key)
    }

    /// Describes a company a review accepted, if it has no name, from the candidate the
    /// cached answer to the row's search listed it as (see
    /// [`crate::store::decisions::describe_candidate`]). A company the search did not
    /// offer (accepted with `--force`) is described only by what the service said of it.
    pub(super) fn describe_accepted(
        &mut self,
        company: Uuid,
        search_key: &str,
        country: &str,
    ) -> Result<(), StoreError> {
        let Some(cached) = crate::store::cache::read_resolution(self.conn(), search_key, None)?
        else {
            return Ok(());
        };
        let Some(candidate) = cached.candidates.iter().find(|c| c.id == company) else {
            return Ok(());
        };
        let key = self.company_key(company)?;
        crate::store::decisions::describe_candidate(self.conn(), key, candidate, country)
            .map(drop)
            .map_err(StoreError::at(format!("describing company {company}")))
    }

    /// Adds a rating to the history (or confirms the latest one) and records the change.
    pub(super) fn observe(&mut self, rating: &model::Rating) -> Result<(), StoreError> {
        let ctx = "recording a rating";
        let company = self.company_key(rating.company_id)?;
        let run_id = self.run_id;
        // Each company is observed once per run: the pipeline asks `rated` before it fetches
        // (a resumed run included), and a second observation would break the primary key
        // of run_companies when written, loudly, rather than double the history.
        let color = rating.color.as_str();
        let last_change = rating.last_change.map(time_text);
        let last_refresh = rating.last_refresh.map(time_text);
        // Observed now, by this machine's clock: the service's requestDate dates nothing
        // (one far off is counted, see `store::clock`), and a date of the rating's far
        // ahead is kept as given but aged from now (counted too).
        let now = self.clock.now();
        let observed = time_text(now);
        self.clock.check(rating.requested_at, now);
        self.clock.check_dates(company, rating, now);
        if !self.service_time_known
            && let Some(requested) = rating.requested_at
        {
            // The service's time of the run's first dated rating, kept for the record.
            self.conn()
                .prepare_cached(
                    "UPDATE runs SET service_time = ?2 WHERE id = ?1 AND service_time IS NULL",
                )
                .and_then(|mut s| s.execute(params![run_id, time_text(requested)]))
                .map_err(StoreError::at(ctx))?;
            self.service_time_known = true;
        }
        type Latest = (i64, String, Option<String>, Option<String>);
        let latest: Option<Latest> = self
            .conn()
            .prepare_cached(&LATEST_AS_OF_RUN)
            .and_then(|mut s| {
                s.query_row(params![company, run_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()
            })
            .map_err(StoreError::at(ctx))?;
        // Most nights most ratings are unchanged: the latest observation is confirmed, by
        // a short row of its own, written with others (the rating's row is never
        // rewritten). One the service only recalculated (a new refresh date, the same
        // color and change date) is the same rating: the new date is noted beside it when
        // it is not the one this run would show already (a resumed run's may have been
        // noted first by a later run).
        if let Some((id, _, _, refreshed)) = latest
            .as_ref()
            .filter(|(_, c, lc, _)| c == color && *lc == last_change)
        {
            if *refreshed != last_refresh {
                self.conn()
                    .prepare_cached(
                        "INSERT INTO rating_refreshes (rating, run_id, last_refresh_date)
                         VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut s| s.execute(params![id, run_id, last_refresh]))
                    .map_err(StoreError::at(ctx))?;
            }
            self.appends.confirmation(*id, observed, run_id);
            let same = (&rating.color, last_change.as_deref());
            let change = Change::classify(Some(same), &rating.color, last_change.as_deref());
            return self.record_change(company, *id, Some(*id), change);
        }
        let conn = self.conn();
        let new_id = conn
            .prepare_cached(
                "INSERT INTO ratings (company, color, last_change_date, last_refresh_date,
                                      observed_at, first_run_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    company,
                    color,
                    last_change,
                    last_refresh,
                    observed,
                    run_id
                ])
            })
            .map(|_| conn.last_insert_rowid())
            .map_err(StoreError::at(ctx))?;
        let previous = latest
            .as_ref()
            .map(|(_, c, lc, _)| (Color::parse(c), lc.as_deref()));
        let change = Change::classify(
            previous.as_ref().map(|(c, lc)| (c, *lc)),
            &rating.color,
            last_change.as_deref(),
        );
        self.record_change(company, new_id, latest.map(|l| l.0), change)
    }
    /// Records what this run observed for a company against its previous observation:
    /// written with others ([`super::appends`]).
    pub(super) fn record_change(
        &mut self,
        company: i64,
        rating_id: i64,
        previous_id: Option<i64>,
        change: Change,
    ) -> Result<(), StoreError> {
        self.appends
            .run_company(company, rating_id, previous_id, change);
        self.rated.insert(company);
        self.write_full_appends()
    }
}
