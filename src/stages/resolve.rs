//! Row → company UUID: a search by identifier (service.md §4.1) or by name (4.2), and the choice
//! among several matches. Never a guess: several matches without a single exact name
//! match are `ambiguous`, with every candidate kept.
//!
//! This module does not read the store; the pipeline checks the cache first.

use crate::api::{ApiError, Client};
use crate::model::{Candidate, Company, NameQuery};
use crate::stages::check::Target;
use crate::stages::relax;
use crate::text::normalize_name;

/// A search to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    ById {
        country: String,
        service: String,
        id: String,
    },
    ByName(NameQuery),
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Resolved(Box<Company>),
    Ambiguous(Vec<Company>),
    Unresolved,
}

impl Query {
    /// The search a validated row makes; `None` for a row that gives its company's id.
    pub fn of(target: Target) -> Option<Query> {
        match target {
            Target::Known(_) => None,
            Target::ById {
                country,
                service,
                id,
            } => Some(Query::ById {
                country,
                service,
                id,
            }),
            Target::ByName(q) => Some(Query::ByName(q)),
        }
    }

    /// The cache key: the search with its inputs normalized, so the same company written
    /// two ways ("ACME S.A." in Lyon, "Acme SA" in LYON) is searched once.
    pub fn cache_key(&self) -> String {
        match self {
            Query::ById {
                country,
                service,
                id,
            } => {
                let id: String = id
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .flat_map(char::to_uppercase)
                    .collect();
                format!(
                    "id|{}|{}|{id}",
                    country.to_uppercase(),
                    service.to_uppercase()
                )
            }
            Query::ByName(q) => {
                let mut key = format!(
                    "name|{}|{}",
                    q.country.to_uppercase(),
                    normalize_name(&q.name)
                );
                let filters = [
                    ("streetnumber", &q.street_number),
                    ("streetname", &q.street_name),
                    ("city", &q.city),
                    ("postcode", &q.postcode),
                    ("phonenumber", &q.phone_number),
                ];
                for (k, v) in filters {
                    if let Some(v) = v.as_deref().map(normalize_name).filter(|v| !v.is_empty()) {
                        key.push_str(&format!("|{k}={v}"));
                    }
                }
                key
            }
        }
    }

    /// An identifier search's service and identifier; `None` for a name search.
    pub fn identifier(&self) -> Option<(&str, &str)> {
        match self {
            Query::ById { service, id, .. } => Some((service, id)),
            Query::ByName(_) => None,
        }
    }

    /// The country searched in, as given.
    pub fn country(&self) -> &str {
        match self {
            Query::ById { country, .. } => country,
            Query::ByName(q) => &q.country,
        }
    }

    /// How the reports name the search that found a company: the registry and the
    /// identifier (`SIRET 55210055400013`), or `name`.
    pub fn label(&self) -> String {
        match self {
            Query::ById { service, id, .. } => format!("{service} {id}"),
            Query::ByName(_) => "name".into(),
        }
    }

    /// What breaks its registry's rules, for a search by identifier
    /// ([`crate::identifiers::identifier_warning`]).
    pub fn rule_problem(&self) -> Option<String> {
        match self {
            Query::ById { service, id, .. } => crate::identifiers::identifier_warning(service, id),
            Query::ByName(_) => None,
        }
    }

    /// The name of the endpoint the search uses, for call counts.
    pub fn endpoint(&self) -> &'static str {
        match self {
            Query::ById { .. } => "company_by_id",
            Query::ByName(_) => "companies_by_name",
        }
    }
}

/// One search of a row's, in the order they are tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedSearch {
    pub query: Query,
    /// Why it is passed over without a call: its identifier breaks its registry's rules
    /// (a typo) and a search follows it.
    pub skip: Option<String>,
    /// A loosened name search ([`relax`](crate::stages::relax)): what it leaves out of the
    /// row's own. What it finds is offered as candidates, never taken as the company.
    pub relaxed: Option<String>,
}

/// The searches a row makes, from its targets in their order ([`crate::stages::check::targets`]):
/// the same search once, and an identifier that breaks its registry's rules passed over
/// when another search follows (a SIREN with a typo next to a good SIRET costs no call).
/// The last is always made: the rules are only hints, and the service has the last word.
/// After the name search come the steps that loosen it ([`relax::relaxations`]), each
/// once: what they find is offered, never taken.
///
/// The next is made only when the one before finds no company: the pipeline goes on
/// after a "not found" or an empty answer, never after a failure (the row fails, and is
/// screened again next run) or several matches (ambiguous).
pub fn plan(targets: Vec<Target>) -> Vec<PlannedSearch> {
    let mut seen = std::collections::HashSet::new();
    let queries: Vec<Query> = targets
        .into_iter()
        .filter_map(Query::of)
        .filter(|q| seen.insert(q.cache_key()))
        .collect();
    let last = queries.len().saturating_sub(1);
    let mut planned = Vec::with_capacity(queries.len());
    for (i, query) in queries.into_iter().enumerate() {
        let loosened = match &query {
            Query::ByName(q) => relax::relaxations(q),
            Query::ById { .. } => Vec::new(),
        };
        planned.push(PlannedSearch {
            skip: if i < last { query.rule_problem() } else { None },
            query,
            relaxed: None,
        });
        planned.extend(
            loosened
                .into_iter()
                .filter(|r| seen.insert(Query::ByName(r.query.clone()).cache_key()))
                .map(|r| PlannedSearch {
                    query: Query::ByName(r.query),
                    skip: None,
                    relaxed: Some(r.without),
                }),
        );
    }
    planned
}

/// Runs the search. A 404 stays an error (`ApiError::NotFound`): it means "no such
/// company" only from a service that has proven itself, which the pipeline judges (a run
/// where every answer is "not found" is talking to the wrong address).
///
/// Every company found is checked against the question: one of another country fails
/// the search ([`in_country`]), and so does an identifier search's company that does not
/// hold the identifier asked ([`holding`]). A failed search is never cached.
pub async fn search(client: &Client, query: &Query) -> Result<Resolution, ApiError> {
    match query {
        Query::ById {
            country,
            service,
            id,
        } => {
            let found: Company = client
                .company_by_external_id(&country.to_lowercase(), service, id)
                .await?
                .into();
            of_country(country, std::slice::from_ref(&found))?;
            holding(&found, service, id)?;
            Ok(Resolution::Resolved(Box::new(found)))
        }
        Query::ByName(q) => {
            let q = NameQuery {
                country: q.country.to_lowercase(),
                ..q.clone()
            };
            let found: Vec<Company> = client
                .companies_by_name(&q)
                .await?
                .into_iter()
                .map(Into::into)
                .collect();
            of_country(&q.country, &found)?;
            Ok(choose(&q.name, found))
        }
    }
}

/// Countries whose companies one registry search may find: France's registries (SIREN,
/// SIRET) cover its overseas territories (service.md §4.8).
const FRANCE_AND_TERRITORIES: [&str; 8] = ["FR", "GF", "GP", "MQ", "YT", "RE", "PM", "WF"];

/// Whether a company whose address is in `found` answers a search in `asked`: the same
/// country, or both France or its territories. An address without a country is taken
/// at its word.
pub fn in_country(asked: &str, found: &str) -> bool {
    let french = |c: &str| {
        FRANCE_AND_TERRITORIES
            .iter()
            .any(|f| f.eq_ignore_ascii_case(c))
    };
    found.is_empty() || asked.eq_ignore_ascii_case(found) || (french(asked) && french(found))
}

/// Fails a search whose answer holds a company of another country than asked: that is
/// the answer to another question.
fn of_country(asked: &str, found: &[Company]) -> Result<(), ApiError> {
    match found
        .iter()
        .find(|c| !in_country(asked, &c.address.country))
    {
        None => Ok(()),
        Some(c) => Err(ApiError::Mismatch {
            what: "search".into(),
            message: format!(
                "answer is for another country: {} {:?} is in {}, the search asked for {}",
                c.id,
                c.name,
                c.address.country,
                asked.to_uppercase()
            ),
        }),
    }
}

/// Fails an identifier search whose company does not hold the identifier asked
/// ([`crate::identifiers::holds_identifier`]): a proxy, a cache or a service mix-up that
/// answers with another company of the same country would otherwise rate the row as
/// that company, night after night.
pub fn holding(found: &Company, service: &str, id: &str) -> Result<(), ApiError> {
    if crate::identifiers::holds_identifier(&found.external_ids, service, id) {
        return Ok(());
    }
    let held = if found.external_ids.is_empty() {
        "no registry identifier".to_string()
    } else {
        found
            .external_ids
            .iter()
            .map(|(s, i)| format!("{s} {i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(ApiError::Mismatch {
        what: "search".into(),
        message: format!(
            "answer is for another company: {} {:?} holds {held}, the search asked for {} {id}",
            found.id,
            found.name,
            service.to_uppercase()
        ),
    })
}

/// One match is the company. Among several, a single one whose name equals the searched
/// name (normalized) is taken; otherwise the row is ambiguous.
pub fn choose(name: &str, mut found: Vec<Company>) -> Resolution {
    // The same company listed twice is still one company.
    let mut seen = std::collections::HashSet::new();
    found.retain(|c| seen.insert(c.id));
    match found.len() {
        0 => Resolution::Unresolved,
        1 => Resolution::Resolved(Box::new(found.remove(0))),
        _ => {
            let wanted = normalize_name(name);
            let exact: Vec<usize> = found
                .iter()
                .enumerate()
                .filter(|(_, c)| normalize_name(&c.name) == wanted)
                .map(|(i, _)| i)
                .collect();
            if let [only] = exact[..] {
                Resolution::Resolved(Box::new(found.swap_remove(only)))
            } else {
                Resolution::Ambiguous(found)
            }
        }
    }
}

/// A company as a candidate of an ambiguous row.
pub fn candidate(c: &Company) -> Candidate {
    Candidate {
        id: c.id,
        name: c.name.clone(),
        city: c.address.city.clone(),
        postcode: c.address.postcode.clone(),
        found_without: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Address;
    use uuid::Uuid;

    fn company(name: &str, city: &str) -> Company {
        Company {
            id: Uuid::new_v4(),
            name: name.into(),
            address: Address {
                city: city.into(),
                ..Address::default()
            },
            phone: None,
            legal_form: String::new(),
            external_ids: vec![],
        }
    }

    #[test]
    fn one_match_is_taken_several_need_a_single_exact_one() {
        let a = company("Acme SA", "Lyon");
        assert_eq!(
            choose("acme", vec![a.clone()]),
            Resolution::Resolved(Box::new(a.clone()))
        );
        let holding = company("Acme Holding SA", "Paris");
        assert_eq!(
            choose("ACME S.A.", vec![holding.clone(), a.clone()]),
            Resolution::Resolved(Box::new(a.clone()))
        );
        let twin = company("Acme SA", "Nice");
        match choose("Acme SA", vec![a.clone(), twin.clone(), holding.clone()]) {
            Resolution::Ambiguous(c) => assert_eq!(c.len(), 3),
            other => panic!("{other:?}"),
        }
        match choose("Acme", vec![a.clone(), holding]) {
            Resolution::Ambiguous(c) => assert_eq!(c.len(), 2, "no exact match: never a guess"),
            other => panic!("{other:?}"),
        }
        assert_eq!(choose("Acme", vec![]), Resolution::Unresolved);
        assert_eq!(
            choose("x", vec![a.clone(), a.clone()]),
            Resolution::Resolved(Box::new(a))
        );
    }

    #[test]
    fn searches_are_planned_in_order_and_a_broken_identifier_is_passed_over() {
        let (by_id, name) = (Target::french, Target::acme_in_lyon());
        // A SIREN failing its check digit, a good SIRET, the same SIRET spaced, the name.
        let steps = plan(vec![
            by_id("SIREN", "552100555"),
            by_id("SIRET", "55210055400013"),
            by_id("SIRET", "552 100 554 00013"),
            name.clone(),
        ]);
        let labels: Vec<String> = steps.iter().map(|s| s.query.label()).collect();
        assert_eq!(
            labels,
            ["SIREN 552100555", "SIRET 55210055400013", "name", "name"]
        );
        assert!(steps[0].skip.as_deref().unwrap().contains("check digit"));
        assert_eq!(steps[1].skip, None);
        assert_eq!(steps[2].skip, None);
        // The name search, then the same without its city: offered, never taken.
        let relaxed: Vec<Option<&str>> = steps.iter().map(|s| s.relaxed.as_deref()).collect();
        assert_eq!(relaxed, [None, None, None, Some("the city Lyon")]);
        let Query::ByName(loosened) = &steps[3].query else {
            panic!("{steps:?}")
        };
        assert_eq!((loosened.name.as_str(), &loosened.city), ("Acme", &None));
        // The last search is made, whatever its identifier looks like.
        let steps = plan(vec![by_id("SIRET", "1"), by_id("SIREN", "552100555")]);
        assert!(steps[0].skip.as_deref().unwrap().contains("14 digits"));
        assert_eq!(steps[1].skip, None);
        assert_eq!(plan(vec![by_id("SIREN", "552100555")])[0].skip, None);
        // A known company needs no search.
        assert!(plan(vec![Target::Known(Uuid::nil())]).is_empty());
    }

    #[test]
    fn cache_keys_fold_what_does_not_change_the_answer() {
        let id = |id: &str| Query::ById {
            country: "fr".into(),
            service: "siren".into(),
            id: id.into(),
        };
        assert_eq!(id("552 100 554").cache_key(), id("552100554").cache_key());
        let name = |n: &str, city: Option<&str>| {
            Query::ByName(NameQuery {
                country: "FR".into(),
                name: n.into(),
                city: city.map(Into::into),
                ..NameQuery::default()
            })
        };
        assert_eq!(
            name("ACME S.A.", Some("LYON")).cache_key(),
            name("Acme SA", Some("Lyon ")).cache_key()
        );
        assert_ne!(
            name("Acme SA", Some("Lyon")).cache_key(),
            name("Acme SA", None).cache_key()
        );
        assert_ne!(id("1").cache_key(), name("1", None).cache_key());
    }
}
