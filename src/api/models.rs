//! The service's wire types (spec section 2), with the spec's exact field names.
//!
//! Parsing is tolerant where the spec says formats vary: timestamps with or without a
//! trailing `Z` and with 0–9 fractional digits, colors outside the five known values,
//! unknown extra fields, a null `PhoneNumber`, missing address parts. A field of the wrong
//! type is still a decode error: guessing there would store nonsense.
//!
//! These types are also what the simulator serializes, so both sides speak one dialect.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

use crate::model::{self, Color};

/// An ISO 8601 date-time as the service sends it.
///
/// Keeps the text as received (so nothing is lost) beside the instant it denotes. A value
/// without an offset is taken as UTC, as the spec says all times are.
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
                raw: s.to_string(),
            })
            .ok_or_else(|| BadTime(s.to_string()))
    }
}

/// Reads `2026-11-20T02:13:45Z`, `…45.123456789`, `…45+01:00`, `2026-11-20 02:13:45` and a
/// bare `2026-11-20` (midnight UTC). Offset first; otherwise the civil time is UTC.
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

/// A company ("transactor"), spec 2.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Company {
    #[serde(rename = "Id")]
    pub id: Uuid,
    #[serde(rename = "Name")]
    pub name: String,
    #[serde(rename = "Address", default)]
    pub address: Address,
    #[serde(rename = "PhoneNumber", default)]
    pub phone_number: Option<String>,
    #[serde(rename = "LegalFormCode", default, deserialize_with = "null_as_empty")]
    pub legal_form_code: String,
    #[serde(rename = "ExternalIds", default, deserialize_with = "null_as_default")]
    pub external_ids: Vec<ExternalId>,
}

/// A company's address, spec 2.1. Every part may be missing or null in practice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Address {
    #[serde(default, deserialize_with = "null_as_empty")]
    pub street_number: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub street_name: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub post_code: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub city: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub state_code: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub country_code: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub r#type: String,
}

/// One registry identifier of a company.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExternalId {
    pub external_id: String,
    pub external_service: String,
}

/// The current rating, spec 2.2.
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

/// The deprecated endpoint's rating, spec 2.3: same facts, other names.
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

/// The short rating, spec 2.4.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortRating {
    #[serde(rename = "Color")]
    pub color: Color,
}

/// One page of the ratings history, spec 2.5.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingsPage {
    #[serde(default)]
    pub next: Option<String>,
    #[serde(default)]
    pub previous: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub results: Vec<Rating>,
}

/// A country of the lookup list, spec 2.6.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Country {
    pub country_code: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub country_name: String,
}

/// An identifier service of the lookup list, spec 2.7.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct IdentifierService {
    pub identifier_code: String,
    pub identifier_country: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub identifier_label: String,
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

impl From<DeprecatedRating> for model::Rating {
    fn from(r: DeprecatedRating) -> Self {
        model::Rating {
            company_id: r.company,
            color: r.color,
            requested_at: r.created.map(|t| t.instant),
            last_refresh: r.last_refresh_date.map(|t| t.instant),
            last_change: r.last_change_date.map(|t| t.instant),
        }
    }
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
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
        fn any_string_parses_as_some_color(s in ".{0,20}") {
            let c = Color::parse(&s);
            prop_assert_eq!(c.as_str(), s.trim().to_lowercase());
        }
    }
}
