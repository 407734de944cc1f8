//! The service's lookup lists (countries, identifier services) as the last run fetched
//! them: the copy serves a dry run, the review, and a run the service cannot give them to.

use rusqlite::params;

use super::database::Store;
use super::sql::{StoreError, now_text};
use crate::model::{Country, IdentifierService};

impl Store {
    /// Keeps the service's lookup lists, replacing the previous copy.
    pub fn save_lookups(
        &mut self,
        countries: &[Country],
        services: &[IdentifierService],
    ) -> Result<(), StoreError> {
        let now = now_text();
        let tx = self
            .conn
            .transaction()
            .map_err(StoreError::at("saving the lookup lists"))?;
        tx.execute_batch("DELETE FROM lookup_countries; DELETE FROM lookup_services;")
            .map_err(StoreError::at("saving the lookup lists"))?;
        {
            let mut c = tx
                .prepare("INSERT OR REPLACE INTO lookup_countries (code, name, fetched_at) VALUES (?1, ?2, ?3)")
                .map_err(StoreError::at("saving countries"))?;
            for country in countries {
                c.execute(params![country.code.to_uppercase(), country.name, now])
                    .map_err(StoreError::at("saving countries"))?;
            }
            let mut s = tx
                .prepare("INSERT OR REPLACE INTO lookup_services (country, code, label, fetched_at) VALUES (?1, ?2, ?3, ?4)")
                .map_err(StoreError::at("saving services"))?;
            for service in services {
                s.execute(params![
                    service.country.to_uppercase(),
                    service.code,
                    service.label,
                    now
                ])
                .map_err(StoreError::at("saving services"))?;
            }
        }
        tx.commit()
            .map_err(StoreError::at("saving the lookup lists"))
    }

    /// The last saved lookup lists (empty if never fetched).
    pub fn load_lookups(&self) -> Result<(Vec<Country>, Vec<IdentifierService>), StoreError> {
        let ctx = "reading the saved lookup lists";
        let sql = "SELECT code, name FROM lookup_countries ORDER BY code";
        let countries = self.all(ctx, sql, [], |r| {
            Ok(Country {
                code: r.get(0)?,
                name: r.get(1)?,
            })
        })?;
        let sql = "SELECT country, code, label FROM lookup_services ORDER BY country, code";
        let services = self.all(ctx, sql, [], |r| {
            Ok(IdentifierService {
                country: r.get(0)?,
                code: r.get(1)?,
                label: r.get(2)?,
            })
        })?;
        Ok((countries, services))
    }
}
