//! Companies as the service describes them, and its lookup lists: the countries it rates
//! and the registries it searches by identifier.

use uuid::Uuid;

/// Countries the service returns ratings for (docs/service.md §1).
pub const RATED_COUNTRIES: [&str; 10] =
    ["FR", "GB", "IE", "DE", "ES", "BE", "LU", "NL", "IT", "CN"];

/// A company as the service describes it (the client converts its answers into this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    pub id: Uuid,
    /// The exact registered name.
    pub name: String,
    pub address: Address,
    pub phone: Option<String>,
    pub legal_form: String,
    /// Registry identifiers, as (service code, identifier).
    pub external_ids: Vec<(String, String)>,
}

/// A company's address; a part the service did not give is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Address {
    pub street_number: String,
    pub street_name: String,
    pub postcode: String,
    pub city: String,
    /// ISO 3166-1 alpha-2, upper case.
    pub country: String,
}

/// A country of the service's lookup list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166-1 alpha-2, upper case.
    pub code: String,
    pub name: String,
}

/// A registry the service searches by identifier in a country (its lookup list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentifierService {
    /// ISO 3166-1 alpha-2, upper case.
    pub country: String,
    /// The code a search by identifier names (`SIREN`, `CRO`, …).
    pub code: String,
    pub label: String,
}
