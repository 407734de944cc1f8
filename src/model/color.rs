//! The traffic-light colors, a rating as observed, and how one observation compares with
//! the one before.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// A traffic-light rating color.
///
/// The spec lists five values but also mentions an `orange` that no sample returns, so a
/// value outside the five is kept as received (lowercased) instead of failing the parse:
/// a report that silently drops an unknown color would hide exactly what needs a look.
/// Kept as received only while it reads as a short word, though: see [`Color::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Color {
    Green,
    Yellow,
    Red,
    Black,
    White,
    /// A color the spec does not list, as received (lowercased, trimmed) when it is a
    /// short word, else in the bounded form [`Color::parse`] gives it.
    Other(String),
}

/// The longest color kept as received. The five are at most six letters; a longer value
/// is not a color a person needs whole, and it is printed in every summary line that
/// names it.
pub const COLOR_MAX_CHARS: usize = 32;

impl Color {
    /// Parses any string; never fails.
    ///
    /// A value outside the five is kept, lowercased and trimmed, when it reads as a word:
    /// at most [`COLOR_MAX_CHARS`] letters, digits, spaces, `-` or `_`. Anything else (an
    /// escape sequence, a bidirectional override, punctuation, 100,000 characters) is kept
    /// in a form that cannot drive a terminal or flood a mail: each other character
    /// becomes `?`, and what is past the limit is cut and marked `…`. Every color is parsed
    /// here (from the service, from the database), so none reaches a report otherwise,
    /// and parsing that form again gives it back unchanged.
    pub fn parse(raw: &str) -> Color {
        let lower = raw.trim().to_lowercase();
        match lower.as_str() {
            "green" => Color::Green,
            "yellow" => Color::Yellow,
            "red" => Color::Red,
            "black" => Color::Black,
            "white" => Color::White,
            _ => Color::Other(bounded(lower)),
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

/// An unknown color as kept: as received when it reads as a word, else each character
/// that is not a letter, digit, space, `-` or `_` as `?`, cut to [`COLOR_MAX_CHARS`] with
/// a `…`. (`?` and `…` are kept as they are, so the form reads back as itself.)
fn bounded(lower: String) -> String {
    let plain = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '?' | '…');
    let long = lower.len() > COLOR_MAX_CHARS && lower.chars().count() > COLOR_MAX_CHARS;
    if !long && lower.chars().all(plain) {
        return lower;
    }
    let mut kept: String = lower
        .chars()
        .take(COLOR_MAX_CHARS)
        .map(|c| if plain(c) { c } else { '?' })
        .collect();
    if long {
        kept.push('…');
    }
    kept
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

/// How a company's rating compares with its latest earlier observation (design §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// First observation of this company.
    New,
    /// Same color, same lastChangeDate.
    Unchanged,
    /// Same color, but the service's lastChangeDate moved: something happened.
    Evolved,
    /// Up the risk scale (green < yellow < red < black).
    Deteriorated,
    /// Down the risk scale.
    Improved,
    /// To or from white or an unknown color: not on the scale, so neither better nor worse.
    Changed,
    /// The service no longer knows a company it had rated: its last color is kept.
    Gone,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Unchanged => "unchanged",
            Change::Evolved => "evolved",
            Change::Deteriorated => "deteriorated",
            Change::Improved => "improved",
            Change::Changed => "changed",
            Change::Gone => "gone",
        }
    }

    pub fn parse(s: &str) -> Option<Change> {
        [
            Change::New,
            Change::Unchanged,
            Change::Evolved,
            Change::Deteriorated,
            Change::Improved,
            Change::Changed,
            Change::Gone,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }

    /// A color change of any kind.
    pub fn is_color_change(self) -> bool {
        matches!(
            self,
            Change::Deteriorated | Change::Improved | Change::Changed
        )
    }

    /// Compares a new observation with the previous one, if any. `last_change` is the
    /// service's lastChangeDate of each, in whatever comparable form the caller keeps.
    pub fn classify<T: PartialEq>(
        previous: Option<(&Color, Option<T>)>,
        color: &Color,
        last_change: Option<T>,
    ) -> Change {
        let Some((before, before_change)) = previous else {
            return Change::New;
        };
        if before == color {
            return if before_change == last_change {
                Change::Unchanged
            } else {
                Change::Evolved
            };
        }
        match (before.risk_rank(), color.risk_rank()) {
            (Some(a), Some(b)) if b > a => Change::Deteriorated,
            (Some(_), Some(_)) => Change::Improved,
            _ => Change::Changed,
        }
    }
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
    fn an_unknown_color_that_is_not_a_word_is_kept_bounded_and_harmless() {
        assert_eq!(Color::parse("\u{1b}[8m"), Color::Other("??8m".into()));
        assert_eq!(Color::parse("or\u{202e}ange").as_str(), "or?ange");
        assert_eq!(Color::parse("dark red").as_str(), "dark red");
        assert_eq!(Color::parse("Very-Dark_Red 2").as_str(), "very-dark_red 2");
        let huge = Color::parse(&"a".repeat(100_000));
        assert_eq!(huge.as_str(), format!("{}…", "a".repeat(COLOR_MAX_CHARS)));
        let long = Color::parse(&format!("{}\u{1b}", "é".repeat(COLOR_MAX_CHARS)));
        assert_eq!(long.as_str().chars().count(), COLOR_MAX_CHARS + 1);
        assert!(long.as_str().ends_with('…'));
        // As the database gives it back: the same color.
        for c in [huge, long, Color::parse("\u{1b}[8m")] {
            assert_eq!(Color::parse(c.as_str()), c);
        }
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

    #[test]
    fn changes_are_classified_against_the_previous_observation() {
        use Change::*;
        use Color::*;
        let orange = Other("orange".into());
        // (previous color and change date, color now, change date now, the change)
        let cases = [
            (None, Red, Some(1), New),
            (Some((Green, Some(1))), Green, Some(1), Unchanged),
            (Some((Green, Some(1))), Green, Some(2), Evolved),
            (Some((Green, Some(1))), Red, Some(2), Deteriorated),
            (Some((Black, Some(1))), Yellow, Some(2), Improved),
            (Some((Red, Some(1))), White, Some(2), Changed),
            (Some((White, Some(1))), Green, Some(2), Changed),
            (Some((Green, None)), orange, None, Changed),
        ];
        for (previous, now, changed, expected) in cases {
            let previous = previous.as_ref().map(|(c, d)| (c, *d));
            assert_eq!(
                Change::classify(previous, &now, changed),
                expected,
                "{previous:?} → {now:?}"
            );
        }
        assert!(Changed.is_color_change() && !Evolved.is_color_change());
    }
}
