//! `ratewatch lookup` and `ratewatch lookups`: ad-hoc questions to the service, answered
//! as a table for people or JSON for scripts.

use serde::Serialize;

use super::emit;
use super::output;
use crate::api::models::{Company, Rating};
use crate::api::{ApiError, NameQuery};
use crate::connection::{Service, ServiceSettings};
use crate::error::{Error, ExitCode};
use crate::identifiers::restore_leading_zeros;
use crate::model::RATED_COUNTRIES;
use crate::settings::cli::{LookupArgs, LookupList, LookupsArgs};
use crate::settings::config::{Settings, Sources};
use crate::stages::limit::Limiter;
use crate::stages::rate::RatingEndpoint;
use crate::stages::resolve::in_country;
use crate::text::printable;

/// One company found, with its rating or why the rating could not be had.
#[derive(Serialize)]
struct Found {
    company: Company,
    rating: Option<Rating>,
    error: Option<String>,
}

pub async fn lookup(args: LookupArgs, sources: Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_service(&args.service_args, &sources)?;
    // The same bounds, retries and 429 pause as a screening run.
    let limiter = Limiter::new(settings.limits());
    let settings = ServiceSettings::new(&settings, &sources)?;
    let conn = Service::open(&settings, true, 1).await?;
    let client = &conn.client;
    let country = args.country.trim().to_lowercase();

    let (described, searched) = match (&args.service, &args.id, &args.name) {
        (Some(service), Some(id), _) => {
            // As `screen` reads it: the zeros a spreadsheet ate are given back.
            let id = restore_leading_zeros(service.trim(), id.trim());
            (
                format!("{} {} in {}", service, id, country.to_uppercase()),
                limiter
                    .call("company_by_id", || {
                        client.company_by_external_id(&country, service.trim(), &id)
                    })
                    .await
                    .map(|c| vec![c]),
            )
        }
        (_, _, Some(name)) => {
            let query = NameQuery {
                country: country.clone(),
                name: name.trim().to_string(),
                street_number: args.street_number.clone(),
                street_name: args.street_name.clone(),
                city: args.city.clone(),
                postcode: args.postcode.clone(),
                phone_number: args.phone.clone(),
            };
            (
                format!("named {:?} in {}", name.trim(), country.to_uppercase()),
                limiter
                    .call("companies_by_name", || client.companies_by_name(&query))
                    .await,
            )
        }
        _ => return Err(Error::Config("give --service and --id, or --name".into())),
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

    if args.json {
        #[derive(Serialize)]
        struct Answer<'a> {
            companies: &'a [Found],
        }
        emit(&to_json(&Answer { companies: &found })?)?;
    } else {
        emit(&render(&described, &found))?;
    }
    Ok(if found.is_empty() {
        ExitCode::Attention
    } else if found.iter().any(|f| f.error.is_some()) {
        ExitCode::Partial
    } else {
        ExitCode::Clean
    })
}

fn render(described: &str, found: &[Found]) -> String {
    // The query is the user's, everything else the service's: both reach the terminal.
    let described = printable(described);
    let mut out = match found.len() {
        0 => return format!("No company {described}.\n"),
        1 => String::new(),
        n => format!(
            "{n} companies {described}; narrow the search with --city, --postcode or --street-name.\n\n"
        ),
    };
    for (i, f) in found.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let c = &f.company;
        let a = &c.address;
        let address = [
            format!("{} {}", a.street_number, a.street_name)
                .trim()
                .to_string(),
            format!("{} {}", a.post_code, a.city).trim().to_string(),
            a.country_code.clone(),
        ]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
        let ids = c
            .external_ids
            .iter()
            .map(|e| format!("{} {}", e.external_service, e.external_id))
            .collect::<Vec<_>>()
            .join(" · ");
        let rating = match (&f.rating, &f.error) {
            (Some(r), _) => {
                let when = |t: &Option<crate::api::models::ApiTime>| {
                    t.as_ref()
                        .map(|t| t.instant.to_string())
                        .unwrap_or_else(|| "?".into())
                };
                format!(
                    "{}  (last change {}, refreshed {})",
                    r.rating_color.as_str().to_uppercase(),
                    when(&r.last_change_date),
                    when(&r.last_refresh_date)
                )
            }
            (None, Some(e)) => format!("unavailable: {e}"),
            (None, None) => "unavailable".into(),
        };
        let rows = [
            ("name", c.name.clone()),
            ("rating", rating),
            ("id", c.id.to_string()),
            ("address", address),
            (
                "phone",
                c.phone_number.clone().unwrap_or_else(|| "-".into()),
            ),
            ("legal form", c.legal_form_code.clone()),
            ("identifiers", ids),
        ];
        for (label, value) in rows {
            out.push_str(&format!("{label:<12} {}\n", printable(&value)));
        }
    }
    out
}

pub async fn lists(args: LookupsArgs, sources: Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_service(&args.service_args, &sources)?;
    let settings = ServiceSettings::new(&settings, &sources)?;
    let conn = Service::open(&settings, false, 1).await?;
    let text = match args.list {
        LookupList::Countries => {
            let list = conn.client.countries().await.map_err(|e| conn.fail(e))?;
            listing(&list, args.json, &["CODE", "COUNTRY", "RATED"], |c| {
                let rated = RATED_COUNTRIES
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(&c.country_code));
                vec![
                    c.country_code.clone(),
                    c.country_name.clone(),
                    if rated { "yes" } else { "no" }.into(),
                ]
            })?
        }
        LookupList::Services => {
            let list = conn.client.services().await.map_err(|e| conn.fail(e))?;
            listing(&list, args.json, &["COUNTRY", "SERVICE", "LABEL"], |s| {
                vec![
                    s.identifier_country.clone(),
                    s.identifier_code.clone(),
                    s.identifier_label.clone(),
                ]
            })?
        }
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// A list as JSON, or as a table of `headers` with a line per item.
fn listing<T: Serialize>(
    list: &[T],
    json: bool,
    headers: &[&str],
    line: impl FnMut(&T) -> Vec<String>,
) -> Result<String, Error> {
    if json {
        return to_json(&list);
    }
    let rows: Vec<Vec<String>> = list.iter().map(line).collect();
    Ok(output::table(headers, &rows))
}

/// Pretty JSON, every string printable as the other listings' are.
fn to_json<T: Serialize>(value: &T) -> Result<String, Error> {
    let mut value = serde_json::to_value(value).map_err(|e| Error::Config(e.to_string()))?;
    crate::text::printable_json(&mut value);
    serde_json::to_string_pretty(&value)
        .map(|s| s + "\n")
        .map_err(|e| Error::Config(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_text_reaches_the_terminal_without_control_characters() {
        let company = |name: &str| -> Company {
            serde_json::from_value(serde_json::json!({
                "Id": uuid::Uuid::new_v4(),
                "Name": name,
                "Address": {"City": "Paris\u{1b}[2J", "CountryCode": "FR"},
                "PhoneNumber": "+33\u{7}1",
                "LegalFormCode": "SA",
                "ExternalIds": [{"ExternalId": "1\r2", "ExternalService": "SIREN"}],
            }))
            .unwrap()
        };
        let found = [
            Found {
                company: company("Evil\u{1b}]0;owned\u{7} SA"),
                rating: None,
                error: Some("the service said\nsomething".into()),
            },
            Found {
                company: company("Plain SA"),
                rating: None,
                error: None,
            },
        ];
        let text = render("SIREN 1\u{1b}[K in FR", &found);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("Evil ]0;owned  SA"), "{text}");
        assert!(
            text.contains("unavailable: the service said something"),
            "{text}"
        );
        assert_eq!(text.lines().filter(|l| l.starts_with("name")).count(), 2);
    }
}
