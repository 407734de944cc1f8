//! The lookup use case (`ratewatch lookup`, `ratewatch lookups`): a question to the
//! service outside any run, a company by identifier or companies by name, each with its
//! rating; and the service's lookup lists. Every search and rating goes through a gate of
//! its own with the same bounds, retries and 429 pause as a screening run; an answer is
//! checked against its question as a run checks it. Nothing is stored.

use serde::Serialize;

use crate::api::models::{Company, Country, IdentifierService, Rating};
use crate::api::{ApiError, NameQuery};
use crate::connection::{Service, ServiceSettings};
use crate::error::Error;
use crate::identifiers::restore_leading_zeros;
use crate::locale::{Arg, Locale};
use crate::stages::limit::{Limiter, Limits};
use crate::stages::rate::RatingEndpoint;
use crate::stages::resolve::in_country;

/// What is asked, as typed: it is trimmed (and an identifier's lost zeros given back) here.
#[derive(Debug, Clone)]
pub enum Question {
    /// A company by an identifier of `service` in `country`.
    Identifier {
        country: String,
        service: String,
        id: String,
    },
    /// Companies by name, narrowed by the address's parts.
    Name(NameQuery),
}

impl Question {
    /// The country asked about, as the service spells it.
    fn country(&self) -> String {
        match self {
            Question::Identifier { country, .. } => country,
            Question::Name(query) => &query.country,
        }
        .trim()
        .to_lowercase()
    }

    /// The identifier asked for, as `screen` reads one: the zeros a spreadsheet ate are
    /// given back.
    fn id(service: &str, id: &str) -> String {
        restore_leading_zeros(service.trim(), id.trim())
    }

    /// The question as a person reads it, agreeing with how many companies answer it:
    /// `SIREN 012345678 in FR`, `named "Acme" in FR`, `nommées "Acme" en FR`.
    pub fn describe(&self, locale: Locale, answers: usize) -> String {
        let country = Arg::from(self.country().to_uppercase());
        match self {
            Question::Identifier { service, id, .. } => locale.text(
                "lookup-by-id",
                &[
                    ("service", Arg::from(service.as_str())),
                    ("id", Arg::from(Question::id(service, id))),
                    ("country", country),
                ],
            ),
            Question::Name(query) => locale.text(
                "lookup-by-name",
                &[
                    ("name", Arg::from(format!("{:?}", query.name.trim()))),
                    ("country", country),
                    ("count", Arg::from(answers as u64)),
                ],
            ),
        }
    }
}

/// What a lookup needs: the question, the service, the limits its calls go through.
#[derive(Debug, Clone)]
pub struct LookupRequest {
    pub question: Question,
    pub service: ServiceSettings,
    pub limits: Limits,
}

/// One company found, with its rating or why the rating could not be had.
#[derive(Debug, Serialize)]
pub struct Found {
    pub company: Company,
    pub rating: Option<Rating>,
    pub error: Option<String>,
}

/// The companies that answer the question (none: the service knows none), each with its
/// rating or the reason it has none. A refused key, or a search that fails, is an error.
pub async fn lookup(request: &LookupRequest) -> Result<Vec<Found>, Error> {
    let limiter = Limiter::new(request.limits);
    let conn = Service::open(&request.service, true, 1).await?;
    let client = &conn.client;
    let country = request.question.country();
    let searched = match &request.question {
        Question::Identifier { service, id, .. } => {
            let id = Question::id(service, id);
            limiter
                .call("company_by_id", || {
                    client.company_by_external_id(&country, service.trim(), &id)
                })
                .await
                .map(|c| vec![c])
        }
        Question::Name(query) => {
            let query = NameQuery {
                country: country.clone(),
                name: query.name.trim().to_string(),
                ..query.clone()
            };
            limiter
                .call("companies_by_name", || client.companies_by_name(&query))
                .await
        }
    };
    let companies = match searched {
        Ok(c) => c,
        Err(ApiError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(conn.fail(e)),
    };
    // An answer is checked against its question, as a screening checks it.
    if let Some(other) = companies
        .iter()
        .find(|c| !in_country(&country, &c.address.country_code))
    {
        return Err(Error::Api(ApiError::Mismatch {
            what: "search".into(),
            message: format!(
                "answer is for another country: {} is in {}, the search asked for {}",
                other.id,
                other.address.country_code,
                country.to_uppercase()
            ),
        }));
    }

    // Every candidate's rating, side by side as far as the limiter lets them go.
    let ratings = futures::future::join_all(
        companies
            .iter()
            .map(|c| limiter.call(RatingEndpoint::Current.name(), || client.rating(c.id, None))),
    )
    .await;
    let mut found = Vec::with_capacity(companies.len());
    for (company, rating) in companies.into_iter().zip(ratings) {
        // A rating of another company than asked is an error, never shown as its own.
        let rating = rating.and_then(|r| match r.company_id == company.id {
            true => Ok(r),
            false => Err(ApiError::another_company(company.id, r.company_id)),
        });
        match rating {
            Ok(r) => found.push(Found {
                company,
                rating: Some(r),
                error: None,
            }),
            Err(e @ ApiError::Unauthenticated { .. }) => return Err(conn.fail(e)),
            Err(e) => found.push(Found {
                company,
                rating: None,
                error: Some(e.to_string()),
            }),
        }
    }
    Ok(found)
}

/// The countries the service knows (asked without a key when none is set).
pub async fn countries(service: &ServiceSettings) -> Result<Vec<Country>, Error> {
    let conn = Service::open(service, false, 1).await?;
    conn.client.countries().await.map_err(|e| conn.fail(e))
}

/// The identifier services the service knows (asked without a key when none is set).
pub async fn services(service: &ServiceSettings) -> Result<Vec<IdentifierService>, Error> {
    let conn = Service::open(service, false, 1).await?;
    conn.client.services().await.map_err(|e| conn.fail(e))
}
