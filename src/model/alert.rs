//! Why a company is an alert, worst first: the kinds every channel lists alike.

use serde::Serialize;

use super::{Change, Color};

/// Why a company is an alert, worst first: the order of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertKind {
    /// Into black (insolvent), or black at its first screening.
    Black,
    /// Into red, or red at its first screening.
    Red,
    /// Another deterioration (into yellow).
    Deteriorated,
    /// Into white: the service no longer has information (coverage lost).
    White,
    /// The service no longer knows a company it had rated.
    Gone,
    /// A color outside the five, the first time it is seen.
    Unknown,
    /// Another change to or from white or an unknown color.
    Changed,
    Improved,
    /// Still red or black: a standing alert.
    Still,
}

impl AlertKind {
    pub const ALL: [AlertKind; 9] = [
        AlertKind::Black,
        AlertKind::Red,
        AlertKind::Deteriorated,
        AlertKind::White,
        AlertKind::Gone,
        AlertKind::Unknown,
        AlertKind::Changed,
        AlertKind::Improved,
        AlertKind::Still,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::Black => "black",
            AlertKind::Red => "red",
            AlertKind::Deteriorated => "deteriorated",
            AlertKind::White => "white",
            AlertKind::Gone => "gone",
            AlertKind::Unknown => "unknown",
            AlertKind::Changed => "changed",
            AlertKind::Improved => "improved",
            AlertKind::Still => "still",
        }
    }

    pub fn parse(s: &str) -> Option<AlertKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// 1 for the worst; the order in which alerts are listed.
    pub fn severity(self) -> u8 {
        self as u8 + 1
    }

    /// Whether the company's color moved (or it went away) in this run: news, as opposed
    /// to a standing alert.
    pub fn is_news(self) -> bool {
        self != AlertKind::Still
    }

    /// The kind of alert a company's observation in a run is, before any rule: `None` for
    /// one that is never an alert (green, yellow or white without a change).
    pub fn of(change: Change, color: &Color) -> Option<AlertKind> {
        let into = match color {
            Color::Black => Some(AlertKind::Black),
            Color::Red => Some(AlertKind::Red),
            _ => None,
        };
        match change {
            Change::Gone => Some(AlertKind::Gone),
            Change::Improved => Some(AlertKind::Improved),
            Change::Deteriorated => into.or(Some(AlertKind::Deteriorated)),
            Change::Changed => match color {
                Color::White => Some(AlertKind::White),
                Color::Other(_) => Some(AlertKind::Unknown),
                _ => into.or(Some(AlertKind::Changed)),
            },
            Change::New => match color {
                Color::Other(_) => Some(AlertKind::Unknown),
                _ => into,
            },
            Change::Unchanged | Change::Evolved => into.map(|_| AlertKind::Still),
        }
    }

    /// Steps up the risk scale from `previous` to `color` (green → red is 2); 0 when
    /// either is off the scale or it did not go up.
    pub fn steps(color: &Color, previous: Option<&Color>) -> u8 {
        match (color.risk_rank(), previous.and_then(Color::risk_rank)) {
            (Some(now), Some(before)) => now.saturating_sub(before),
            _ => 0,
        }
    }

    /// How the kind reads in a sentence: "into red", "still red or black".
    pub fn describe(self) -> &'static str {
        match self {
            AlertKind::Black => "into black",
            AlertKind::Red => "into red",
            AlertKind::Deteriorated => "deteriorated",
            AlertKind::White => "into white (no information any more)",
            AlertKind::Gone => "gone",
            AlertKind::Unknown => "unknown color",
            AlertKind::Changed => "changed",
            AlertKind::Improved => "improved",
            AlertKind::Still => "still red or black",
        }
    }
}
