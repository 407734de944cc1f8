//! The words of ratewatch's own values as a reader says them: the service's colors, how a
//! row ended, how a run ended, why an alert is listed. The values themselves (`red`,
//! `unresolved`) stay English wherever a program reads them.

use super::Locale;
use crate::model::{AlertKind, Color, RowStatus, RunStatus};

impl Locale {
    /// A color: `rouge`, `schwarz`; a color outside the five as the service sent it.
    pub fn color(self, color: &Color) -> String {
        let id = match color {
            Color::Green => "color-green",
            Color::Yellow => "color-yellow",
            Color::Red => "color-red",
            Color::Black => "color-black",
            Color::White => "color-white",
            Color::Other(other) => return other.clone(),
        };
        self.word(id)
    }

    /// How a row ended: `non trouvée`, `ungültig`.
    pub fn row_status(self, status: RowStatus) -> String {
        self.word(&format!("status-{}", status.as_str()))
    }

    /// How a run ended: `partiel`, `unterbrochen`.
    pub fn run_status(self, status: RunStatus) -> String {
        self.word(&format!("run-{}", status.as_str()))
    }

    /// Why an alert is listed: `passée en rouge`, `nach weiß (keine Informationen mehr)`.
    pub fn kind(self, kind: AlertKind) -> String {
        let id = match kind {
            AlertKind::Black => "kind-black",
            AlertKind::Red => "kind-red",
            AlertKind::Deteriorated => "kind-deteriorated",
            AlertKind::White => "kind-white",
            AlertKind::Gone => "kind-gone",
            AlertKind::Unknown => "kind-unknown",
            AlertKind::Changed => "kind-changed",
            AlertKind::Improved => "kind-improved",
            AlertKind::Still => "kind-still",
        };
        self.word(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_says_the_values_as_programs_read_them() {
        for color in [
            Color::Green,
            Color::Yellow,
            Color::Red,
            Color::Black,
            Color::White,
        ] {
            assert_eq!(Locale::En.color(&color), color.to_string());
        }
        for status in RowStatus::ALL {
            assert_eq!(Locale::En.row_status(status), status.as_str());
        }
        for status in RunStatus::ALL {
            assert_eq!(Locale::En.run_status(status), status.as_str());
        }
        for kind in AlertKind::ALL {
            assert_eq!(Locale::En.kind(kind), kind.describe());
        }
        assert_eq!(Locale::Fr.color(&Color::Black), "noir");
        assert_eq!(Locale::De.color(&Color::White), "weiß");
        assert_eq!(Locale::Fr.row_status(RowStatus::Unresolved), "non trouvée");
        assert_eq!(Locale::De.run_status(RunStatus::Partial), "teilweise");
        assert_eq!(Locale::Fr.kind(AlertKind::Red), "passée en rouge");
    }
}
