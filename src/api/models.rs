//! The service's wire types (docs/service.md §2), with the spec's exact field names.
//!
//! Parsing is tolerant where the spec allows it, and only there:
//! - a time may carry a trailing `Z`, an offset or none (then it is UTC, as the spec says
//!   all times are), 0–9 fractional digits, and `T` or a space before the time of day;
//! - an optional object or list missing or `null` reads as empty: a company's `Address`
//!   and `ExternalIds`, a history page's `results`;
//! - an optional text missing or `null` reads as empty: every `Address` part,
//!   `LegalFormCode`, `CountryName`, `IdentifierLabel`;
//! - an optional value missing or `null` reads as none: `PhoneNumber`, the three times of
//!   a rating, a page's `next` and `previous`;
//! - a color outside the five is kept as received, and unknown extra fields are ignored;
//! - a history entry that does not read as a rating (a malformed date, a missing color)
//!   is set aside with the reason, and the rest of its page read.
//!
//! Every text is cleaned as it is read, here and nowhere later: control characters become
//! spaces, bidirectional overrides and isolates go, and a text longer than
//! [`MAX_TEXT_CHARS`] is cut, marked `…` (see [`crate::text::received`]); a color outside
//! the five that is not a short word gets the bounded form of [`Color::parse`]. So nothing
//! the service sends can drive a terminal or flood a mail, whichever output shows it.
//!
//! A required field missing or `null` (a company's `Id` and `Name`, a rating's color and
//! company id, both parts of an external id, a lookup entry's code) or a field of the
//! wrong type is still a decode error: guessing there would store nonsense.
//!
//! These types are also what the simulator serializes, so both sides speak one dialect.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

use crate::model::{self, Color};
use crate::text;

/// An ISO 8601 date-time as the service sends it.
///
/// Keeps the text as received (trimmed: nothing is lost) beside the instant it denotes. A
/// value without an offset is taken as UTC, as the spec says all times are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiTime {
    pub instant: Timestamp,
    pub raw: String,
}

/// Why a timestamp could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an ISO 8601 date-time: {0:?}")]
pub struct BadTime(pub String);

impl ApiTime {
    /// Wraps an instant with the text that will be sent for it.
    pub fn with_raw(instant: Timestamp, raw: impl Into<String>) -> Self {
        ApiTime {
            instant,
            raw: raw.into(),
        }
    }
}

impl FromStr for ApiTime {
    type Err = BadTime;

    fn from_str(s: &str) -> Result<Self, BadTime> {
        parse_time(s)
            .map(|instant| ApiTime {
                instant,
                raw: s.trim().to_string(),
            })
            .ok_or_else(|| BadTime(s.to_string()))
    }
}

/// Reads `2026-11-20T02:13:45Z`, `…45.123456789`, `…45+01:00`, `2026-11-20T02:13:45`,
/// `2026-11-20 02:13:45` and a bare `2026-11-20` (midnight UTC). Offset first; otherwise
/// the civil time is UTC.
pub fn parse_time(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<Timestamp>() {
        return Some(ts);
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp());
    }
    if let Ok(d) = s.parse::<jiff::civil::Date>() {
        return d
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp());
    }
    None
}

impl fmt::Display for ApiTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Serialize for ApiTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

impl<'de> Deserialize<'de> for ApiTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

/// A company ("transactor"), service.md §2.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Company {
    #[serde(rename = "Id")]
    pub id: Uuid,
    #[serde(rename = "Name", deserialize_with = "text")]
    pub name: String,
    #[serde(rename = "Address", default, deserialize_with = "null_as_default")]
    pub address: Address,
    #[serde(rename = "PhoneNumber", default, deserialize_with = "optional_text")]
    pub phone_number: Option<String>,
    #[serde(rename = "LegalFormCode", default, deserialize_with = "text_or_empty")]
    pub legal_form_code: String,
    #[serde(rename = "ExternalIds", default, deserialize_with = "null_as_default")]
    pub external_ids: Vec<ExternalId>,
}

/// A company's address, service.md §2.1. Every part may be missing or null in practice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Address {
    #[serde(default, deserialize_with = "text_or_empty")]
    pub street_number: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub street_name: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub post_code: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub city: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub state_code: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub country_code: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub r#type: String,
}

/// One registry identifier of a company.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExternalId {
    #[serde(deserialize_with = "text")]
    pub external_id: String,
    #[serde(deserialize_with = "text")]
    pub external_service: String,
}

/// The current rating, service.md §2.2.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    pub rating_color: Color,
    pub company_id: Uuid,
    #[serde(default)]
    pub request_date: Option<ApiTime>,
    #[serde(default)]
    pub last_refresh_date: Option<ApiTime>,
    #[serde(default)]
    pub last_change_date: Option<ApiTime>,
}

/// The deprecated endpoint's rating, service.md §2.3: same facts, other names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeprecatedRating {
    pub color: Color,
    pub company: Uuid,
    #[serde(default)]
    pub created: Option<ApiTime>,
    #[serde(default)]
    pub last_refresh_date: Option<ApiTime>,
    #[serde(default)]
    pub last_change_date: Option<ApiTime>,
}

/// The short rating, service.md §2.4.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortRating {
    #[serde(rename = "Color")]
    pub color: Color,
}

/// One page of the ratings history, service.md §2.5.
///
/// One entry that does not read as a rating does not make the page unreadable: it is set
/// aside in `malformed` (why, for each) and the others are read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "WirePage")]
pub struct RatingsPage {
    pub next: Option<String>,
    pub previous: Option<String>,
    pub results: Vec<Rating>,
    /// The entries set aside, each as why it could not be read (never sent).
    #[serde(skip)]
    pub malformed: Vec<String>,
}

/// A history page as received, its entries not yet read.
#[derive(Deserialize)]
struct WirePage {
    #[serde(default)]
    next: Option<String>,
    #[serde(default)]
    previous: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    results: Vec<serde_json::Value>,
}

impl From<WirePage> for RatingsPage {
    fn from(page: WirePage) -> Self {
        let mut results = Vec::with_capacity(page.results.len());
        let mut malformed = Vec::new();
        for entry in page.results {
            match serde_json::from_value::<Rating>(entry) {
                Ok(rating) => results.push(rating),
                Err(e) => malformed.push(e.to_string()),
            }
        }
        RatingsPage {
            next: page.next,
            previous: page.previous,
            results,
            malformed,
        }
    }
}

/// A country of the lookup list, service.md §2.6.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Country {
    #[serde(deserialize_with = "text")]
    pub country_code: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub country_name: String,
}

/// An identifier service of the lookup list, service.md §2.7.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct IdentifierService {
    #[serde(deserialize_with = "text")]
    pub identifier_code: String,
    #[serde(deserialize_with = "text")]
    pub identifier_country: String,
    #[serde(default, deserialize_with = "text_or_empty")]
    pub identifier_label: String,
}

impl From<Company> for model::Company {
    fn from(c: Company) -> Self {
        let a = c.address;
        model::Company {
            id: c.id,
            name: c.name,
            address: model::Address {
                street_number: a.street_number,
                street_name: a.street_name,
                postcode: a.post_code,
                city: a.city,
                country: a.country_code.to_uppercase(),
            },
            phone: c.phone_number,
            legal_form: c.legal_form_code,
            external_ids: c
                .external_ids
                .into_iter()
                .map(|e| (e.external_service, e.external_id))
                .collect(),
        }
    }
}

impl From<Country> for model::Country {
    fn from(c: Country) -> Self {
        model::Country {
            code: c.country_code.to_uppercase(),
            name: c.country_name,
        }
    }
}

impl From<IdentifierService> for model::IdentifierService {
    fn from(s: IdentifierService) -> Self {
        model::IdentifierService {
            country: s.identifier_country.to_uppercase(),
            code: s.identifier_code,
            label: s.identifier_label,
        }
    }
}

impl From<Rating> for model::Rating {
    fn from(r: Rating) -> Self {
        model::Rating {
            company_id: r.company_id,
            color: r.rating_color,
            requested_at: r.request_date.map(|t| t.instant),
            last_refresh: r.last_refresh_date.map(|t| t.instant),
            last_change: r.last_change_date.map(|t| t.instant),
        }
    }
}

/// The deprecated endpoint's answer, as the current one words it.
impl From<DeprecatedRating> for Rating {
    fn from(r: DeprecatedRating) -> Self {
        Rating {
            rating_color: r.color,
            company_id: r.company,
            request_date: r.created,
            last_refresh_date: r.last_refresh_date,
            last_change_date: r.last_change_date,
        }
    }
}

impl From<DeprecatedRating> for model::Rating {
    fn from(r: DeprecatedRating) -> Self {
        Rating::from(r).into()
    }
}

/// The longest text kept of a field the service sends (a name, an address part, a label,
/// a registry code): the longest real company names run to about 200 characters. A longer
/// one is cut, marked `…`; the spec states no maximum length.
pub const MAX_TEXT_CHARS: usize = 300;

/// A text field as ratewatch keeps it: [`text::received`], printable (no control or
/// bidirectional character) and at most [`MAX_TEXT_CHARS`]. The one place the service's
/// texts come in, so the store, the reports and every listing get them clean.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let raw = String::deserialize(d)?;
    Ok(text::received(&raw, MAX_TEXT_CHARS))
}

/// [`text`], or empty when missing or `null`.
fn text_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(optional_text(d)?.unwrap_or_default())
}

/// [`text`], or none when `null`.
fn optional_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(|raw| text::received(&raw, MAX_TEXT_CHARS)))
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn time_with_and_without_z_denote_the_same_instant() {
        let a = parse_time("2026-11-20T02:13:45Z").unwrap();
        let b = parse_time("2026-11-20T02:13:45").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "2026-11-20T02:13:45Z");
    }

    #[test]
    fn time_keeps_every_fractional_digit_count() {
        for frac in [
            "",
            ".1",
            ".12",
            ".123",
            ".1234",
            ".12345",
            ".123456",
            ".1234567",
            ".12345678",
            ".123456789",
        ] {
            for z in ["", "Z"] {
                let s = format!("2026-03-14T09:26:53{frac}{z}");
                let t = parse_time(&s).unwrap_or_else(|| panic!("{s} should parse"));
                let whole = parse_time("2026-03-14T09:26:53Z").unwrap();
                assert!(t >= whole && t.as_millisecond() - whole.as_millisecond() < 1000);
            }
        }
    }

    #[test]
    fn time_honours_an_explicit_offset_and_a_bare_date() {
        let t = parse_time("2026-11-20T03:00:00+01:00").unwrap();
        assert_eq!(t, parse_time("2026-11-20T02:00:00Z").unwrap());
        let d = parse_time("2026-11-20").unwrap();
        assert_eq!(d, parse_time("2026-11-20T00:00:00Z").unwrap());
    }

    #[test]
    fn nonsense_time_is_an_error_not_a_guess() {
        assert!(parse_time("yesterday").is_none());
        assert!(parse_time("2026-13-45T00:00:00Z").is_none());
        assert!(serde_json::from_str::<ApiTime>("\"soon\"").is_err());
    }

    #[test]
    fn rating_tolerates_unknown_fields_and_colors() {
        let body = r#"{"ratingColor":"orange","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e",
            "requestDate":"2026-11-21T02:00:00.123456Z","lastRefreshDate":"2026-11-20T01:00:00",
            "lastChangeDate":"2026-10-01T00:00:00.5","score":42,"extra":{"a":[1,2]}}"#;
        let r: Rating = serde_json::from_str(body).unwrap();
        assert_eq!(r.rating_color, Color::Other("orange".into()));
        assert_eq!(
            r.last_refresh_date.as_ref().unwrap().raw,
            "2026-11-20T01:00:00"
        );
        let m: model::Rating = r.into();
        assert_eq!(m.color.as_str(), "orange");
        assert!(m.last_change.is_some());
    }

    #[test]
    fn company_tolerates_null_phone_and_missing_parts() {
        let body = r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":"ACME SAS",
            "PhoneNumber":null,"Address":{"City":"Lyon","PostCode":null},"ExternalIds":null}"#;
        let c: Company = serde_json::from_str(body).unwrap();
        assert_eq!(c.phone_number, None);
        assert_eq!(c.address.city, "Lyon");
        assert_eq!(c.address.post_code, "");
        assert!(c.external_ids.is_empty());
    }

    #[test]
    fn company_with_a_null_address_has_an_empty_one() {
        let body = r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":"ACME SAS",
            "Address":null,"PhoneNumber":"+33 1 23 45 67 89","LegalFormCode":"SAS",
            "ExternalIds":[{"ExternalId":"552100554","ExternalService":"SIREN"}]}"#;
        let c: Company = serde_json::from_str(body).unwrap();
        assert_eq!(c.address, Address::default());
        assert_eq!(c.name, "ACME SAS");
        assert_eq!(c.external_ids[0].external_id, "552100554");
    }

    #[test]
    fn company_with_only_id_and_name_has_every_optional_part_empty() {
        let body = r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":"ACME SAS"}"#;
        let c: Company = serde_json::from_str(body).unwrap();
        assert_eq!(c.address, Address::default());
        assert_eq!(c.phone_number, None);
        assert_eq!(c.legal_form_code, "");
        assert!(c.external_ids.is_empty());
    }

    #[test]
    fn company_with_null_optional_fields_has_them_empty() {
        let body = r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":"ACME SAS",
            "Address":null,"PhoneNumber":null,"LegalFormCode":null,"ExternalIds":null}"#;
        let c: Company = serde_json::from_str(body).unwrap();
        assert_eq!(c.address, Address::default());
        assert_eq!(c.phone_number, None);
        assert_eq!(c.legal_form_code, "");
        assert!(c.external_ids.is_empty());
    }

    #[test]
    fn address_parts_null_or_missing_are_empty() {
        let all_null = r#"{"StreetNumber":null,"StreetName":null,"PostCode":null,"City":null,
            "StateCode":null,"CountryCode":null,"Type":null}"#;
        let a: Address = serde_json::from_str(all_null).unwrap();
        assert_eq!(a, Address::default());
        let a: Address = serde_json::from_str(r#"{}"#).unwrap();
        assert_eq!(a, Address::default());
        let a: Address = serde_json::from_str(r#"{"City":"Lyon","Type":"main"}"#).unwrap();
        assert_eq!((a.city.as_str(), a.r#type.as_str()), ("Lyon", "main"));
    }

    #[test]
    fn company_without_id_or_name_is_a_decode_error() {
        for body in [
            r#"{"Name":"ACME SAS","Address":null}"#,
            r#"{"Id":null,"Name":"ACME SAS"}"#,
            r#"{"Id":"not-a-uuid","Name":"ACME SAS"}"#,
            r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e"}"#,
            r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":null}"#,
        ] {
            assert!(serde_json::from_str::<Company>(body).is_err(), "{body}");
        }
    }

    #[test]
    fn external_id_without_value_or_service_is_a_decode_error() {
        for body in [
            r#"{"ExternalService":"SIREN"}"#,
            r#"{"ExternalId":null,"ExternalService":"SIREN"}"#,
            r#"{"ExternalId":"552100554"}"#,
            r#"{"ExternalId":"552100554","ExternalService":null}"#,
        ] {
            assert!(serde_json::from_str::<ExternalId>(body).is_err(), "{body}");
        }
    }

    #[test]
    fn rating_times_null_or_missing_are_none() {
        let id = "0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e";
        let current = |times: &str| -> model::Rating {
            let body = format!(r#"{{"ratingColor":"green","companyId":"{id}"{times}}}"#);
            serde_json::from_str::<Rating>(&body).unwrap().into()
        };
        let deprecated = |times: &str| -> model::Rating {
            let body = format!(r#"{{"color":"green","company":"{id}"{times}}}"#);
            serde_json::from_str::<DeprecatedRating>(&body)
                .unwrap()
                .into()
        };
        let nulls = r#","lastRefreshDate":null,"lastChangeDate":null"#;
        for r in [
            current(&format!(r#","requestDate":null{nulls}"#)),
            current(""),
            deprecated(&format!(r#","created":null{nulls}"#)),
            deprecated(""),
        ] {
            assert_eq!(r.color, Color::Green);
            assert_eq!(
                (r.requested_at, r.last_refresh, r.last_change),
                (None, None, None)
            );
        }
    }

    #[test]
    fn rating_without_color_or_company_is_a_decode_error() {
        for body in [
            r#"{"companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e"}"#,
            r#"{"ratingColor":null,"companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e"}"#,
            r#"{"ratingColor":"green"}"#,
            r#"{"ratingColor":"green","companyId":null}"#,
        ] {
            assert!(serde_json::from_str::<Rating>(body).is_err(), "{body}");
        }
        for body in [
            r#"{"company":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e"}"#,
            r#"{"color":null,"company":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e"}"#,
            r#"{"color":"green"}"#,
            r#"{"color":"green","company":null}"#,
        ] {
            assert!(
                serde_json::from_str::<DeprecatedRating>(body).is_err(),
                "{body}"
            );
        }
        for body in [r#"{}"#, r#"{"Color":null}"#] {
            assert!(serde_json::from_str::<ShortRating>(body).is_err(), "{body}");
        }
    }

    #[test]
    fn rating_times_without_an_offset_are_utc() {
        let utc = parse_time("2026-11-20T02:13:45Z").unwrap();
        for (body, millis) in [
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20T02:13:45"}"#,
                0,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20T02:13:45.123"}"#,
                123,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20 02:13:45"}"#,
                0,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20T02:13:45Z"}"#,
                0,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20T02:13:45.123Z"}"#,
                123,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-20T03:13:45+01:00"}"#,
                0,
            ),
            (
                r#"{"ratingColor":"red","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","lastChangeDate":"2026-11-19T21:13:45.123-05:00"}"#,
                123,
            ),
        ] {
            let r: Rating = serde_json::from_str(body).unwrap();
            let t = r.last_change_date.unwrap();
            assert_eq!(
                t.instant.as_millisecond() - utc.as_millisecond(),
                millis,
                "{body}"
            );
            assert!(body.contains(&format!("\"{}\"", t.raw)), "kept as received");
        }
    }

    #[test]
    fn history_page_with_null_or_missing_parts_is_empty() {
        let nulls = r#"{"next":null,"previous":null,"results":null}"#;
        for body in [nulls, r#"{}"#] {
            let p: RatingsPage = serde_json::from_str(body).unwrap();
            assert_eq!((p.next, p.previous), (None, None), "{body}");
            assert!(p.results.is_empty(), "{body}");
        }
        let body = r#"{"next":"https://example.test/v2/ratings?page=2","results":[
            {"ratingColor":"green","companyId":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","requestDate":"2026-11-21 02:00:00"}]}"#;
        let p: RatingsPage = serde_json::from_str(body).unwrap();
        assert_eq!(p.previous, None);
        assert_eq!(p.results.len(), 1);
    }

    #[test]
    fn a_history_entry_that_is_not_a_rating_is_set_aside_and_the_page_read() {
        let id = "0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e";
        let body = format!(
            r#"{{"next":null,"results":[
            {{"ratingColor":"green","companyId":"{id}","requestDate":"2026-11-21T02:00:00Z"}},
            {{"ratingColor":"red","companyId":"{id}","requestDate":"the 21st of November"}},
            {{"companyId":"{id}","requestDate":"2026-11-21T02:00:00Z"}},
            42,
            {{"ratingColor":"yellow","companyId":"{id}","requestDate":null}}]}}"#
        );
        let p: RatingsPage = serde_json::from_str(&body).unwrap();
        let colors: Vec<&str> = p.results.iter().map(|r| r.rating_color.as_str()).collect();
        assert_eq!(colors, ["green", "yellow"]);
        assert_eq!(p.malformed.len(), 3, "{:?}", p.malformed);
        assert!(
            p.malformed[0].contains("the 21st of November"),
            "{:?}",
            p.malformed
        );
        assert!(p.malformed[1].contains("ratingColor"), "{:?}", p.malformed);
        // What the simulator sends has nothing of it.
        let sent = serde_json::to_value(&p).unwrap();
        assert!(sent.get("malformed").is_none(), "{sent}");
        // A page that is not a page is still an error.
        assert!(serde_json::from_str::<RatingsPage>(r#"{"results": {"a": 1}}"#).is_err());
    }

    #[test]
    fn lookup_entries_tolerate_a_null_label_but_not_a_missing_code() {
        let c: Country =
            serde_json::from_str(r#"{"CountryCode":"FR","CountryName":null}"#).unwrap();
        assert_eq!(
            (c.country_code.as_str(), c.country_name.as_str()),
            ("FR", "")
        );
        let c: Country = serde_json::from_str(r#"{"CountryCode":"FR"}"#).unwrap();
        assert_eq!(c.country_name, "");
        let s: IdentifierService = serde_json::from_str(
            r#"{"IdentifierCode":"SIREN","IdentifierCountry":"FR","IdentifierLabel":null}"#,
        )
        .unwrap();
        assert_eq!(s.identifier_label, "");
        for body in [r#"{"CountryName":"France"}"#, r#"{"CountryCode":null}"#] {
            assert!(serde_json::from_str::<Country>(body).is_err(), "{body}");
        }
        for body in [
            r#"{"IdentifierCountry":"FR","IdentifierLabel":"SIREN"}"#,
            r#"{"IdentifierCode":"SIREN","IdentifierCountry":null}"#,
        ] {
            assert!(
                serde_json::from_str::<IdentifierService>(body).is_err(),
                "{body}"
            );
        }
    }

    #[test]
    fn wrong_type_is_a_decode_error() {
        let body = r#"{"ratingColor":"green","companyId":12}"#;
        assert!(serde_json::from_str::<Rating>(body).is_err());
    }

    #[test]
    fn deprecated_rating_maps_to_the_same_internal_rating() {
        let id = "0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e";
        let cur: Rating = serde_json::from_str(&format!(
            r#"{{"ratingColor":"red","companyId":"{id}","requestDate":"2026-11-21T02:00:00Z",
            "lastRefreshDate":"2026-11-20T01:00:00Z","lastChangeDate":"2026-10-01T00:00:00Z"}}"#
        ))
        .unwrap();
        let old: DeprecatedRating = serde_json::from_str(&format!(
            r#"{{"color":"RED","company":"{id}","created":"2026-11-21T02:00:00",
            "lastRefreshDate":"2026-11-20T01:00:00","lastChangeDate":"2026-10-01T00:00:00"}}"#
        ))
        .unwrap();
        assert_eq!(model::Rating::from(cur), model::Rating::from(old));
    }

    proptest! {
        #[test]
        fn any_valid_time_round_trips_in_every_spelling(
            secs in 0i64..4_102_444_800, nanos in 0u32..1_000_000_000, digits in 0usize..=9, z in any::<bool>()
        ) {
            let exact = Timestamp::new(secs, nanos as i32).unwrap();
            let whole = exact.strftime("%Y-%m-%dT%H:%M:%S").to_string();
            let frac = format!("{:09}", nanos);
            let text = format!("{whole}{}{}{}", if digits > 0 { "." } else { "" }, &frac[..digits], if z { "Z" } else { "" });
            let parsed = parse_time(&text).unwrap();
            let truncated = Timestamp::new(secs, (nanos / 10u32.pow(9 - digits as u32) * 10u32.pow(9 - digits as u32)) as i32).unwrap();
            prop_assert_eq!(parsed, truncated);
        }

        #[test]
        fn any_string_parses_as_some_color_short_printable_and_stable(s in ".{0,60}") {
            let c = Color::parse(&s);
            let kept = c.as_str();
            prop_assert!(kept.chars().count() <= model::COLOR_MAX_CHARS + 1, "{kept:?}");
            prop_assert_eq!(crate::text::printable(kept), kept);
            prop_assert_eq!(Color::parse(kept), c.clone(), "read back as itself");
        }

        #[test]
        fn a_word_parses_as_received(s in "[A-Za-z0-9_ -]{0,32}") {
            let c = Color::parse(&s);
            prop_assert_eq!(c.as_str(), s.trim().to_lowercase());
        }
    }

    #[test]
    fn a_company_converts_into_the_models_terms() {
        let body = r#"{"Id":"0d7e8c8e-6a3b-4c1a-9d2e-3f4a5b6c7d8e","Name":"Acme SA",
            "Address":{"StreetNumber":"12","StreetName":"rue X","PostCode":"69001","City":"Lyon",
                       "StateCode":"","CountryCode":"fr","Type":"main"},
            "PhoneNumber":null,"LegalFormCode":"SA",
            "ExternalIds":[{"ExternalId":"552100554","ExternalService":"SIREN"}]}"#;
        let c: model::Company = serde_json::from_str::<Company>(body).unwrap().into();
        assert_eq!(c.name, "Acme SA");
        assert_eq!(
            (c.address.postcode.as_str(), c.address.city.as_str()),
            ("69001", "Lyon")
        );
        assert_eq!(c.address.country, "FR");
        assert_eq!(c.phone, None);
        assert_eq!(
            c.external_ids,
            vec![("SIREN".to_string(), "552100554".to_string())]
        );
        let lists: model::Country = Country {
            country_code: "gb".into(),
            country_name: "United Kingdom".into(),
        }
        .into();
        assert_eq!(lists.code, "GB");
    }
}
