//! A row checked locally, against the service's lookup lists: what it asks the service for
//! ([`Target`]) and the searches it offers in their order ([`targets`]), or why it is
//! invalid, the field named. Nothing here calls the service: the lists arrive as plain
//! data.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use uuid::Uuid;

use crate::country_names::{self, Reading};
use crate::model::{Country, IdentifierService, InputRow, NameQuery, RATED_COUNTRIES};
use crate::stages::columns::SERVICE_COLUMNS;

/// The service's lookup lists, as the row checks need them.
#[derive(Debug, Clone, Default)]
pub struct Lookups {
    countries: HashSet<String>,
    /// Country → its identifier services, in the service's spelling.
    services: HashMap<String, Vec<String>>,
    /// A country's name as the lookup list spells it (folded) → its code.
    names: HashMap<String, String>,
    /// Countries as rows gave them, read once each: a file names few, and a name that is
    /// none exactly costs a scan of every country's names.
    readings: Arc<Mutex<HashMap<String, Reading>>>,
}

/// Distinct country cells remembered; past them (a broken column) each is read anew.
const READINGS_KEPT: usize = 10_000;

impl Lookups {
    pub fn new(countries: &[Country], services: &[IdentifierService]) -> Self {
        let mut by_country: HashMap<String, Vec<String>> = HashMap::new();
        for s in services {
            by_country
                .entry(s.country.to_uppercase())
                .or_default()
                .push(s.code.clone());
        }
        Lookups {
            countries: countries.iter().map(|c| c.code.to_uppercase()).collect(),
            names: countries
                .iter()
                .map(|c| (country_names::fold(&c.name), c.code.to_uppercase()))
                .collect(),
            services: by_country,
            readings: Arc::default(),
        }
    }

    /// A country cell read ([`country_names::read`]), remembered.
    fn read_country(&self, given: &str) -> Reading {
        let key = given.trim();
        if let Some(reading) = crate::lock(&self.readings).get(key) {
            return reading.clone();
        }
        let reading = country_names::read(key, &self.names);
        let mut kept = crate::lock(&self.readings);
        if kept.len() < READINGS_KEPT {
            kept.insert(key.to_string(), reading.clone());
        }
        reading
    }

    /// The spec's rated countries, each with every registry of the spec's table: what a
    /// preview checks rows against when no run has kept the service's own lists yet.
    pub fn of_the_spec() -> Self {
        let countries: Vec<Country> = RATED_COUNTRIES
            .iter()
            .map(|c| Country {
                code: c.to_string(),
                name: c.to_string(),
            })
            .collect();
        let services: Vec<IdentifierService> = RATED_COUNTRIES
            .iter()
            .flat_map(|c| {
                SERVICE_COLUMNS.iter().map(move |s| IdentifierService {
                    country: c.to_string(),
                    code: s.to_string(),
                    label: String::new(),
                })
            })
            .collect();
        Lookups::new(&countries, &services)
    }

    /// A country given as a setting (`default_country`) checked as a row's is: the code
    /// the service knows and rates, or why not.
    pub fn check_country(&self, given: &str) -> Result<String, String> {
        let code = country_code(given, self)?;
        if !self.countries.contains(&code) {
            return Err(format!(
                "country: {code:?} is not a country code the service knows"
            ));
        }
        if !self.rated(&code) {
            return Err(format!("country: the service has no ratings for {code}"));
        }
        Ok(code)
    }

    /// The service rates the ten countries of the spec, and registries are listed for
    /// their territories; elsewhere a search could never resolve and would waste a call.
    fn rated(&self, country: &str) -> bool {
        RATED_COUNTRIES.contains(&country) || self.services.contains_key(country)
    }
}

/// What a valid row asks the service for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A company UUID given in the portfolio: no resolution needed.
    Known(Uuid),
    /// A search by registry identifier.
    ById {
        country: String,
        service: String,
        id: String,
    },
    /// A search by name with the row's filters.
    ByName(NameQuery),
}

/// Longest value a search field may have: company names run to about 160 characters;
/// anything far longer is a broken export, and sending it would only waste a call.
pub const MAX_FIELD_CHARS: usize = 300;

/// A field's value fit to send: not absurdly long, no control characters (a tab or line
/// break inside a name is a broken export, not a name).
fn check_field(field: &str, value: Option<&String>) -> Result<(), String> {
    let Some(v) = value else { return Ok(()) };
    if v.chars().count() > MAX_FIELD_CHARS {
        return Err(format!(
            "{field}: longer than {MAX_FIELD_CHARS} characters ({} here)",
            v.chars().count()
        ));
    }
    if v.chars().any(char::is_control) {
        return Err(format!(
            "{field}: contains control characters (a line break or tab inside the value?)"
        ));
    }
    Ok(())
}

/// Checks a row against the lookup lists, locally; the reason names the field.
pub fn validate(row: &InputRow, lookups: &Lookups) -> Result<Target, String> {
    for (field, value) in [
        ("country", &row.country),
        ("service", &row.service),
        ("id", &row.id),
        ("name", &row.name),
        ("streetnumber", &row.street_number),
        ("streetname", &row.street_name),
        ("city", &row.city),
        ("postcode", &row.postcode),
        ("phonenumber", &row.phone),
        ("company_id", &row.company_id),
    ] {
        check_field(field, value.as_ref())?;
    }
    if let Some(raw) = &row.company_id {
        let id = Uuid::parse_str(raw).map_err(|_| format!("company_id: {raw:?} is not a UUID"))?;
        return Ok(Target::Known(id));
    }
    let Some(given) = &row.country else {
        return Err("country: missing (default_country gives one to such rows)".into());
    };
    let code = lookups.check_country(given)?;
    let country = &code;
    match (&row.service, &row.id, &row.name) {
        (Some(service), Some(id), _) => {
            let known = lookups.services.get(country.as_str());
            let canonical = known
                .and_then(|list| list.iter().find(|s| s.eq_ignore_ascii_case(service)))
                .ok_or_else(|| {
                    let options = known
                        .map(|l| l.join(", "))
                        .unwrap_or_else(|| "none".into());
                    format!("service: {service:?} is not an identifier service for {country} (use one of: {options})")
                })?;
            Ok(Target::ById {
                country: country.clone(),
                service: canonical.clone(),
                id: crate::identifiers::restore_leading_zeros(canonical, id),
            })
        }
        (None, Some(_), None) => Err("service: missing for the id (e.g. SIREN, CRO, KVK)".into()),
        (Some(_), None, None) => Err("id: missing for the service".into()),
        (_, _, Some(name)) => Ok(Target::ByName(name_query(row, country.clone(), name))),
        (None, None, None) => {
            Err("id and name: neither given; a row needs service + id, or name".into())
        }
    }
}

/// The search by name a row makes: its name, narrowed by its address and phone.
fn name_query(row: &InputRow, country: String, name: &str) -> NameQuery {
    NameQuery {
        country,
        name: name.to_string(),
        street_number: row.street_number.clone(),
        street_name: row.street_name.clone(),
        city: row.city.clone(),
        postcode: row.postcode.clone(),
        phone_number: row.phone.clone(),
    }
}

/// Every search a valid row offers, in the order a run tries them, the next one only when
/// the one before finds no company (or breaks its registry's rules, see
/// `resolve::plan`):
///
/// 1. its identifier: `service` + `id`, or else the first filled registry column;
/// 2. the other filled registry columns (SIREN, SIRET, KVK, …), in the order of the
///    file's header, each once; a registry the row's country does not use is left out;
/// 3. its `name` with its filters (street, city, postcode, phone).
///
/// A row that gives its `company_id`, or only a name, has one. The first is what
/// [`validate`] returns, checked as it checks it: a row whose own identifier is wrong is
/// invalid, whatever else it gives.
pub fn targets(row: &InputRow, lookups: &Lookups) -> Result<Vec<Target>, String> {
    let first = validate(row, lookups)?;
    let Target::ById { country, .. } = &first else {
        return Ok(vec![first]);
    };
    let country = country.clone();
    let mut all = vec![first];
    let registries = lookups.services.get(&country);
    // A record with more fields than its header may have its columns shifted: its carried
    // identifiers could be another column's values, so none is searched as a fallback.
    let carried = row.extra.iter().filter(|_| !row.extra_unreliable);
    for (header, value) in carried {
        // Identifier columns are carried with the row under their registry's code.
        let Some(code) = SERVICE_COLUMNS
            .iter()
            .find(|s| s.eq_ignore_ascii_case(header))
        else {
            continue;
        };
        let Some(service) =
            registries.and_then(|list| list.iter().find(|s| s.eq_ignore_ascii_case(code)))
        else {
            continue;
        };
        if check_field(header, Some(value)).is_err() {
            continue;
        }
        let target = Target::ById {
            country: country.clone(),
            service: service.clone(),
            id: crate::identifiers::restore_leading_zeros(service, value),
        };
        if !all.contains(&target) {
            all.push(target);
        }
    }
    if let Some(name) = &row.name {
        all.push(Target::ByName(name_query(row, country, name)));
    }
    Ok(all)
}

/// A country as a row gives it — an alpha-2 code, an alpha-3 code or a name (`France`,
/// `Suisse`, `Paesi Bassi`, see [`country_names`]) — as its code, or why it is none: the
/// choices a name leaves, or the nearest code.
fn country_code(given: &str, lookups: &Lookups) -> Result<String, String> {
    match lookups.read_country(given) {
        Reading::Code(code) => Ok(code),
        Reading::Ambiguous(choices) => {
            let choices: Vec<String> = choices
                .iter()
                .map(|(code, name)| format!("{code} ({name})"))
                .collect();
            Err(format!(
                "country: {given:?} names several countries: {}; write the code",
                choices.join(", ")
            ))
        }
        Reading::Unknown { nearest } => {
            let hint = nearest
                .map(|code| format!("; did you mean {code}?"))
                .unwrap_or_default();
            Err(format!(
                "country: {given:?} is not a country code (two letters, e.g. FR) nor a country's name{hint}"
            ))
        }
    }
}

#[cfg(test)]
impl Target {
    /// A French registry identifier, for tests.
    pub fn french(service: &str, id: &str) -> Target {
        Target::ById {
            country: "FR".into(),
            service: service.into(),
            id: id.into(),
        }
    }

    /// The name `Acme` in Lyon, France, for tests.
    pub fn acme_in_lyon() -> Target {
        Target::ByName(NameQuery {
            country: "FR".into(),
            name: "Acme".into(),
            city: Some("Lyon".into()),
            ..NameQuery::default()
        })
    }
}

#[cfg(test)]
impl Lookups {
    /// France and Guadeloupe with SIREN and SIRET, Britain with CRO, and the United States
    /// (known, not rated), for tests.
    pub fn for_tests() -> Lookups {
        let c = |code: &str| Country {
            code: code.into(),
            name: code.into(),
        };
        let s = |cc: &str, code: &str| IdentifierService {
            country: cc.into(),
            code: code.into(),
            label: String::new(),
        };
        Lookups::new(
            &[c("FR"), c("GB"), c("US"), c("GP")],
            &[
                s("FR", "SIREN"),
                s("FR", "SIRET"),
                s("GB", "CRO"),
                s("GP", "SIREN"),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_checked_locally_with_the_field_named() {
        let l = Lookups::for_tests();
        let row = |country: &str, service: &str, id: &str, name: &str| InputRow {
            line: 2,
            country: (!country.is_empty()).then(|| country.into()),
            service: (!service.is_empty()).then(|| service.into()),
            id: (!id.is_empty()).then(|| id.into()),
            name: (!name.is_empty()).then(|| name.into()),
            ..InputRow::default()
        };
        let reason = |r: InputRow| validate(&r, &l).unwrap_err();
        assert!(reason(row("", "", "", "Acme")).starts_with("country: missing"));
        assert!(reason(row("XX", "", "", "Acme")).starts_with("country: \"XX\" is not"));
        assert!(reason(row("US", "", "", "Acme")).contains("no ratings for US"));
        assert!(reason(row("FR", "", "", "")).starts_with("id and name: neither"));
        let r = reason(row("FR", "CRO", "123", ""));
        assert!(
            r.starts_with("service: \"CRO\"") && r.contains("SIREN, SIRET"),
            "{r}"
        );
        assert!(reason(row("FR", "", "123", "")).starts_with("service: missing"));
        let bad_uuid = InputRow {
            company_id: Some("nope".into()),
            ..row("FR", "", "", "")
        };
        assert!(reason(bad_uuid).starts_with("company_id:"));
        assert!(matches!(
            validate(&row("GP", "siren", "1", ""), &l),
            Ok(Target::ById { .. })
        ));
        let huge = "x".repeat(5_000_000);
        assert!(reason(row("FR", "", "", &huge)).starts_with("name: longer than 300"));
        assert!(reason(row("FR", "", "", "Acme\u{1b}[2J")).starts_with("name: contains control"));
        assert!(matches!(
            validate(&row("FR", "", "", "Acme"), &l),
            Ok(Target::ByName(_))
        ));
    }

    #[test]
    fn countries_by_name_or_alpha_3_are_understood_or_get_a_suggestion() {
        let l = Lookups::for_tests();
        for given in ["France", "FRANCE", "fra", "Frankreich", "  france "] {
            assert_eq!(country_code(given, &l), Ok("FR".into()), "{given}");
        }
        assert_eq!(country_code("Royaume-Uni", &l), Ok("GB".into()));
        assert_eq!(country_code("GBR", &l), Ok("GB".into()));
        let e = country_code("Frnace", &l).unwrap_err();
        assert!(e.contains("did you mean FR?"), "{e}");
        let e = country_code("Atlantis", &l).unwrap_err();
        assert!(
            e.contains("is not a country code") && !e.contains("did you mean"),
            "{e}"
        );
        assert_eq!(country_code("Suisse", &l), Ok("CH".into()));
        let e = country_code("Corée", &l).unwrap_err();
        assert!(
            e.starts_with("country: \"Corée\" names several countries: KP (") && e.contains("KR ("),
            "{e}"
        );
    }
}
