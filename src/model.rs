//! Domain types every stage shares. The service's wire types (`api::models`) convert into
//! these, so nothing past the client depends on how the service spells its fields.
//!
//! This module holds data and pure rules only: no I/O, no HTTP, no SQL.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// Countries the service returns ratings for (spec section 1).
pub const RATED_COUNTRIES: [&str; 10] =
    ["FR", "GB", "IE", "DE", "ES", "BE", "LU", "NL", "IT", "CN"];

/// A traffic-light rating color.
///
/// The spec lists five values but also mentions an `orange` that no sample returns, so a
/// value outside the five is kept as received (lowercased) instead of failing the parse:
/// a report that silently drops an unknown color would hide exactly what needs a look.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Color {
    Green,
    Yellow,
    Red,
    Black,
    White,
    /// A color the spec does not list, as received (lowercased, trimmed).
    Other(String),
}

impl Color {
    /// Parses any string; never fails.
    pub fn parse(raw: &str) -> Color {
        let lower = raw.trim().to_lowercase();
        match lower.as_str() {
            "green" => Color::Green,
            "yellow" => Color::Yellow,
            "red" => Color::Red,
            "black" => Color::Black,
            "white" => Color::White,
            _ => Color::Other(lower),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Color::Green => "green",
            Color::Yellow => "yellow",
            Color::Red => "red",
            Color::Black => "black",
            Color::White => "white",
            Color::Other(s) => s,
        }
    }

    /// Position on the risk scale green < yellow < red < black; `None` for white (no
    /// information) and unknown colors, which are not on the scale.
    pub fn risk_rank(&self) -> Option<u8> {
        match self {
            Color::Green => Some(0),
            Color::Yellow => Some(1),
            Color::Red => Some(2),
            Color::Black => Some(3),
            Color::White | Color::Other(_) => None,
        }
    }

    /// Red and black need action whether or not they changed.
    pub fn is_alarming(&self) -> bool {
        matches!(self, Color::Red | Color::Black)
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Ok(Color::parse(&raw))
    }
}

/// One observation of a company's rating, whichever endpoint it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rating {
    pub company_id: Uuid,
    pub color: Color,
    /// When the service answered the request.
    pub requested_at: Option<Timestamp>,
    /// When the service last calculated the rating.
    pub last_refresh: Option<Timestamp>,
    /// When the company's rating last evolved (the color may or may not have moved).
    pub last_change: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_colors_parse_in_any_case() {
        assert_eq!(Color::parse(" Green "), Color::Green);
        assert_eq!(Color::parse("BLACK"), Color::Black);
        assert_eq!(Color::parse("white"), Color::White);
    }

    #[test]
    fn unknown_color_is_kept_not_dropped() {
        let c = Color::parse("Orange");
        assert_eq!(c, Color::Other("orange".into()));
        assert_eq!(c.as_str(), "orange");
        assert_eq!(c.risk_rank(), None);
        let json: Color = serde_json::from_str("\"orange\"").unwrap();
        assert_eq!(json, c);
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"orange\"");
    }

    #[test]
    fn risk_order_is_green_yellow_red_black() {
        let ranks: Vec<_> = [Color::Green, Color::Yellow, Color::Red, Color::Black]
            .iter()
            .map(|c| c.risk_rank().unwrap())
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Color::White.risk_rank(), None);
        assert!(Color::Red.is_alarming() && Color::Black.is_alarming());
        assert!(!Color::Yellow.is_alarming());
    }
}
