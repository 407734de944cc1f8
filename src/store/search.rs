//! Finding companies by what a person types: the service's company id, a reference as the
//! portfolios hold it, a registry id (`552100554`, a SIREN), or part of a name. `ack` and
//! `history` name a company so, and the search page of `serve` finds them so.

use super::history::company;
use super::{CompanySummary, Store, StoreError};
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
