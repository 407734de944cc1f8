//! `ratewatch lookup` and `ratewatch lookups`: ad-hoc questions to the service (the
//! library's [`crate::lookup`]), answered as a table for people or JSON for scripts.

use serde::Serialize;

use super::emit;
use super::output;
use crate::api::NameQuery;
use crate::connection::ServiceSettings;
use crate::error::{Error, ExitCode};
use crate::lookup::{self, Found, LookupRequest, Question};
use crate::model::RATED_COUNTRIES;
use crate::settings::cli::{LookupArgs, LookupList, LookupsArgs};
use crate::settings::config::{Settings, Sources};
use crate::text::printable;

pub async fn lookup(args: LookupArgs, sources: Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_service(&args.service_args, &sources)?;
    let limits = settings.limits();
    let service = ServiceSettings::new(&settings, &sources)?;
    let question = match (args.service, args.id, args.name) {
        (Some(service), Some(id), _) => Question::Identifier {
            country: args.country,
            service,
            id,
        },
        (_, _, Some(name)) => Question::Name(NameQuery {
            country: args.country,
            name,
            street_number: args.street_number,
            street_name: args.street_name,
            city: args.city,
            postcode: args.postcode,
            phone_number: args.phone,
        }),
        _ => return Err(Error::Config("give --service and --id, or --name".into())),
    };
    let described = question.describe();
    let found = lookup::lookup(&LookupRequest {
        question,
        service,
        limits,
    })
    .await?;

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
    let service = ServiceSettings::new(&settings, &sources)?;
    let text = match args.list {
        LookupList::Countries => {
            let list = lookup::countries(&service).await?;
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
            let list = lookup::services(&service).await?;
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
    use crate::api::models::Company;

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
