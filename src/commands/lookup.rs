//! `ratewatch lookup` and `ratewatch lookups`: ad-hoc questions to the service (the
//! library's [`crate::lookup`]), answered as a table for people or JSON for scripts.

use serde::Serialize;

use super::emit;
use super::output;
use crate::api::NameQuery;
use crate::connection::ServiceSettings;
use crate::error::{Error, ExitCode};
use crate::locale::{Arg, Locale, Reader};
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
    let reader = sources.reader()?;
    let request = LookupRequest {
        question,
        service,
        limits,
    };
    let found = lookup::lookup(&request).await?;

    if args.json {
        #[derive(Serialize)]
        struct Answer<'a> {
            companies: &'a [Found],
        }
        emit(&to_json(&Answer { companies: &found })?)?;
    } else {
        let described = request.question.describe(reader.locale, found.len());
        emit(&render(&reader, &described, &found))?;
    }
    Ok(if found.is_empty() {
        ExitCode::Attention
    } else if found.iter().any(|f| f.error.is_some()) {
        ExitCode::Partial
    } else {
        ExitCode::Clean
    })
}

/// The companies found as the reader reads them: labels, color and words in their
/// language, times in their zone.
fn render(reader: &Reader, described: &str, found: &[Found]) -> String {
    let l = reader.locale;
    // The query is the user's, everything else the service's: both reach the terminal.
    let described = Arg::from(printable(described));
    let mut out = match found.len() {
        0 => return format!("{}\n", l.text("lookup-none", &[("query", described)])),
        1 => String::new(),
        n => {
            let count = Arg::from(n as u64);
            let several = l.text("lookup-several", &[("count", count), ("query", described)]);
            format!("{several}\n\n")
        }
    };
    let labels = [
        "label-name",
        "label-rating",
        "label-id",
        "label-address",
        "label-phone",
        "label-legal-form",
        "label-identifiers",
    ]
    .map(|id| l.word(id));
    // The values aligned a space beyond the longest label.
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 1;
    // A time the service gave: as it sent it for English in UTC, else the reader's minute.
    let when = |t: &Option<crate::api::models::ApiTime>| match t {
        None => "?".to_string(),
        Some(t) if l == Locale::En && reader.zone.is_utc() => t.instant.to_string(),
        Some(t) => reader.minute(t.instant),
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
            (Some(r), _) => l.text(
                "lookup-rating",
                &[
                    ("color", Arg::from(l.color(&r.rating_color).to_uppercase())),
                    ("changed", Arg::from(when(&r.last_change_date))),
                    ("refreshed", Arg::from(when(&r.last_refresh_date))),
                ],
            ),
            (None, Some(e)) => l.text(
                "lookup-unavailable-because",
                &[("error", Arg::from(reader.record(e)))],
            ),
            (None, None) => l.word("lookup-unavailable"),
        };
        let values = [
            c.name.clone(),
            rating,
            c.id.to_string(),
            address,
            c.phone_number.clone().unwrap_or_else(|| "-".into()),
            c.legal_form_code.clone(),
            ids,
        ];
        for (label, value) in labels.iter().zip(values) {
            out.push_str(&format!("{label:<width$} {}\n", printable(&value)));
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
        let text = render(crate::locale::english(), "SIREN 1\u{1b}[K in FR", &found);
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
