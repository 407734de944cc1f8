//! The writer's records of what the service said: companies and their identifiers, and
//! the rating history, where each observation is compared with the latest earlier one.

use rusqlite::types::Type;
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
        let conn = self.conn();
        conn.prepare_cached(
            "INSERT INTO companies (company_id, first_seen_at, updated_at) VALUES (?1, ?2, ?2)",
        )
        .and_then(|mut s| s.execute(params![company.as_bytes(), now_seconds()]))
        .map_err(StoreError::at("recording a company"))?;
        let key = conn.last_insert_rowid();
        self.added_company(company, key);
        Ok(key)
    }
    /// Records a company as the service described it: a new one is appended, a known one
    /// refreshed in place, keeping the registry ids it had.
    pub(super) fn upsert_company(&mut self, c: &Company) -> Result<i64, StoreError> {
        let ctx = "recording a company";
        let a = &c.address;
        let known = self.known_company(c.id)?;
        let conn = self.conn();
        let stored_ids: Option<String> = match known {
            Some(key) => conn
                .prepare_cached("SELECT external_ids FROM companies WHERE id = ?1")
                .and_then(|mut s| s.query_row([key], |r| r.get(0)))
                .map_err(StoreError::at(ctx))?,
            None => None,
        };
        let ids = registry_ids(stored_ids.as_deref(), &c.external_ids)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, Type::Text, Box::new(e)))
            .map_err(StoreError::at(format!(
                "reading the registry ids stored for company {} (a JSON array)",
                c.id
            )))?;
        // A new company is appended, a known one updated in place: the id is known either
        // way, so the statement returns nothing (RETURNING costs a temporary table).
        conn.prepare_cached(
            "INSERT INTO companies (id, company_id, name, country, street_number, street_name,
                                    postcode, city, phone, legal_form, external_ids,
                                    first_seen_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)
             ON CONFLICT (id) DO UPDATE SET
               name = excluded.name, country = excluded.country,
               street_number = excluded.street_number, street_name = excluded.street_name,
               postcode = excluded.postcode, city = excluded.city, phone = excluded.phone,
               legal_form = excluded.legal_form, external_ids = excluded.external_ids,
               updated_at = excluded.updated_at",
        )
        .and_then(|mut s| {
            s.execute(params![
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
                ids,
                now_seconds()
            ])
        })
        .map_err(StoreError::at(ctx))?;
        Ok(match known {
            Some(key) => key,
            None => {
                let key = conn.last_insert_rowid();
                self.added_company(c.id, key);
                key
            }
        })
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
        let Some((cached, _, _)) = self.lookup_resolution(search_key)? else {
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
        let last_change = rating.last_change.map(seconds);
        let last_refresh = rating.last_refresh.map(seconds);
        // Observed now, by this machine's clock: the service's requestDate dates nothing
        // (one far off is counted, see `store::clock`).
        let now = self.clock.now();
        let observed = seconds(now);
        self.clock.check(rating.requested_at, now);
        if !self.service_time_known
            && let Some(requested) = rating.requested_at
        {
            // The service's time of the run's first dated rating, kept for the record.
            self.conn()
                .prepare_cached(
                    "UPDATE runs SET service_time = ?2 WHERE id = ?1 AND service_time IS NULL",
                )
                .and_then(|mut s| s.execute(params![run_id, crate::store::time_text(requested)]))
                .map_err(StoreError::at(ctx))?;
            self.service_time_known = true;
        }
        let insert = |conn: &Connection| -> Result<i64, StoreError> {
            conn.prepare_cached(
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
            .map_err(StoreError::at(ctx))
        };
        // A company first recorded by this run has no history to compare with.
        if company > self.known_before {
            let id = insert(self.conn())?;
            let change = Change::classify(None, &rating.color, last_change);
            return self.record_change(company, id, None, change);
        }

        type Latest = (i64, String, Option<i64>, Option<i64>);
        let latest: Option<Latest> = self
            .conn()
            .prepare_cached(
                "SELECT id, color, last_change_date, last_refresh_date FROM ratings
                 WHERE company = ?1 ORDER BY id DESC LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row([company], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()
            })
            .map_err(StoreError::at(ctx))?;
        // Most nights most ratings are unchanged: the latest observation is confirmed, by
        // a short row of its own, written with others (the rating's row is never
        // rewritten).
        if let Some((id, _, _, _)) = latest
            .as_ref()
            .filter(|(_, c, lc, lr)| c == color && *lc == last_change && *lr == last_refresh)
        {
            self.appends.confirmation(*id, observed, run_id);
            let same = (&rating.color, last_change);
            let change = Change::classify(Some(same), &rating.color, last_change);
            return self.record_change(company, *id, Some(*id), change);
        }
        let new_id = insert(self.conn())?;
        let previous = latest.as_ref().map(|(_, c, lc, _)| (Color::parse(c), *lc));
        let change = Change::classify(
            previous.as_ref().map(|(c, lc)| (c, *lc)),
            &rating.color,
            last_change,
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

/// `companies.external_ids`: the registry ids stored (a JSON array, or NULL for none)
/// followed by those given that it lacks, in their order. Each is a `"SERVICE ID"` string,
/// or a `["SERVICE", "ID"]` pair when the service code holds a space, so that the view
/// `company_external_ids` splits each at its first space; NULL when there are none.
fn registry_ids(
    stored: Option<&str>,
    given: &[(String, String)],
) -> Result<Option<String>, serde_json::Error> {
    use serde_json::Value;
    let mut ids: Vec<Value> = stored
        .map(serde_json::from_str)
        .transpose()?
        .unwrap_or_default();
    let before = ids.len();
    for (service, id) in given {
        let value = if service.contains(' ') {
            Value::Array(vec![service.as_str().into(), id.as_str().into()])
        } else {
            Value::String(format!("{service} {id}"))
        };
        if !ids.contains(&value) {
            ids.push(value);
        }
    }
    Ok(match (stored, ids.len() == before) {
        (Some(s), true) => Some(s.to_string()),
        _ if ids.is_empty() => None,
        _ => Some(serde_json::to_string(&ids)?),
    })
}

#[cfg(test)]
mod tests {
    use super::registry_ids;

    fn ids(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(s, i)| (s.to_string(), i.to_string()))
            .collect()
    }

    #[test]
    fn registry_ids_are_service_and_id_strings_and_a_refresh_adds_only_the_new_ones() {
        let first = registry_ids(None, &ids(&[("SIREN", "552100554"), ("FCDE", "21/815 08")]))
            .unwrap()
            .unwrap();
        assert_eq!(first, r#"["SIREN 552100554","FCDE 21/815 08"]"#);
        let again = registry_ids(Some(&first), &ids(&[("FCDE", "21/815 08"), ("VAT", "\"x")]));
        assert_eq!(
            again.unwrap().unwrap(),
            r#"["SIREN 552100554","FCDE 21/815 08","VAT \"x"]"#
        );
        assert_eq!(
            registry_ids(Some(&first), &ids(&[("SIREN", "552100554")])).unwrap(),
            Some(first.clone()),
            "nothing new: the stored text as it was"
        );
        assert_eq!(
            registry_ids(None, &ids(&[("EU VAT", "FR 1"), ("EU VAT", "FR 1")])).unwrap(),
            Some(r#"[["EU VAT","FR 1"]]"#.to_string())
        );
        assert_eq!(registry_ids(None, &[]).unwrap(), None);
        assert!(registry_ids(Some("SIREN 1"), &[]).is_err());
    }
}
