//! Finding companies by what a person types: the service's company id, a reference as the
//! portfolios hold it, a registry id (`552100554`, a SIREN), or part of a name. `ack` and
//! `history` name a company so, and the search page of `serve` finds them so. Also what the
//! company and portfolio pages read besides the history: a company's registry ids and
//! latest rating, the portfolios, a portfolio's latest runs. Read only.

use rusqlite::OptionalExtension;

use super::database::Store;
use super::sql::StoreError;
use super::timeline::{CompanySummary, company};
use crate::model::{Color, RunInfo};
use crate::text::normalize_name;

impl Store {
    /// The companies `wanted` names, trying in turn: a company id (exact), a reference as
    /// the portfolios hold it (exact), part of a name (case, accents and punctuation
    /// ignored). The first that finds any wins; several found are for the user to choose
    /// from, never a guess.
    pub fn find_companies(&self, wanted: &str) -> Result<Vec<CompanySummary>, StoreError> {
        let wanted = wanted.trim();
        if let Ok(id) = uuid::Uuid::parse_str(wanted)
            && let Some(c) = self.company_by_id(&id.to_string())?
        {
            return Ok(vec![c]);
        }
        let by_ref = self.companies_by_ref(wanted)?;
        if !by_ref.is_empty() {
            return Ok(by_ref);
        }
        let needle = normalize_name(wanted);
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        self.companies_named(|name| normalize_name(name).contains(&needle))
    }

    /// The companies with this registry id (any registry: `552100554` is a SIREN), spaces
    /// ignored, by name. A range of the index `company_external_ids_by_id`.
    pub fn companies_by_external_id(
        &self,
        external_id: &str,
    ) -> Result<Vec<CompanySummary>, StoreError> {
        let id: String = external_id.chars().filter(|c| !c.is_whitespace()).collect();
        if id.is_empty() {
            return Ok(Vec::new());
        }
        self.all(
            "looking up a registry id",
            "SELECT DISTINCT c.company_id, c.name, c.city, c.country
             FROM company_external_ids e JOIN companies c ON c.id = e.company
             WHERE e.external_id = ?1
             ORDER BY c.name, c.company_id",
            [id],
            |r| company(r, 0),
        )
    }

    /// A company's registry ids, as (registry, id), by registry.
    pub fn external_ids(&self, company_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.all(
            "reading a company's registry ids",
            "SELECT e.service, e.external_id
             FROM companies c JOIN company_external_ids e ON e.company = c.id
             WHERE c.company_id = ?1
             ORDER BY e.service, e.external_id",
            [company_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }
}

/// A company's latest rating, as the service last gave it and ratewatch last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestRating {
    pub color: Color,
    /// The service's lastChangeDate and lastRefreshDate.
    pub last_change_date: Option<String>,
    pub last_refresh_date: Option<String>,
    /// When ratewatch first and last saw it.
    pub observed_at: String,
    pub confirmed_at: String,
}

impl Store {
    /// A company's latest rating, if it has one.
    pub fn latest_rating(&self, company_id: &str) -> Result<Option<LatestRating>, StoreError> {
        self.conn
            .query_row(
                "SELECT l.color, l.last_change_date, l.last_refresh_date, r.observed_at,
                        l.confirmed_at
                 FROM latest_ratings l
                 JOIN ratings r ON r.id = l.rating_id
                 WHERE l.company_id = ?1",
                [company_id],
                |r| {
                    Ok(LatestRating {
                        color: Color::parse(&r.get::<_, String>(0)?),
                        last_change_date: r.get(1)?,
                        last_refresh_date: r.get(2)?,
                        observed_at: r.get(3)?,
                        confirmed_at: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(StoreError::at("reading a company's latest rating"))
    }

    /// The portfolios that have a run, by name.
    pub fn portfolios(&self) -> Result<Vec<String>, StoreError> {
        self.all(
            "listing the portfolios",
            "SELECT DISTINCT portfolio FROM runs ORDER BY portfolio",
            [],
            |r| r.get(0),
        )
    }

    /// A portfolio's latest run, whatever its state (one still going included), and its
    /// latest finished one, as [`Store::run_info`] reads them.
    pub fn portfolio_runs(
        &self,
        portfolio: &str,
    ) -> Result<(Option<RunInfo>, Option<RunInfo>), StoreError> {
        let ids: (Option<i64>, Option<i64>) = self
            .conn
            .query_row(
                "SELECT max(id), max(id) FILTER (WHERE status IN ('complete', 'partial'))
                 FROM runs WHERE portfolio = ?1",
                [portfolio],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(StoreError::at("reading a portfolio's runs"))?;
        Ok((
            ids.0.map(|id| self.run_info(id)).transpose()?,
            ids.1.map(|id| self.run_info(id)).transpose()?,
        ))
    }
}
