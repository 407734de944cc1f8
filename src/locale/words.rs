//! The words of ratewatch's own values as a reader says them: the service's colors, how a
//! row ended, how a run ended, why an alert is listed. The values themselves (`red`,
//! `unresolved`) stay English wherever a program reads them.

use super::Locale;
use crate::model::{AlertKind, Color, RowStatus, RunStatus};

/// The five colors, in the order of the risk scale, white last.
const FIVE: [Color; 5] = [
    Color::Green,
    Color::Yellow,
    Color::Red,
    Color::Black,
    Color::White,
];

/// The color a person names in a flag or a setting, in any language ratewatch speaks and
/// in any case: `red`, `Rouge`, `SCHWARZ`, `weiß` or `weiss`, `grün` or `gruen`. `None` for
/// a word that names none of the five; what is stored and printed for programs is the
/// color's English name all the same.
pub fn color_named(word: &str) -> Option<Color> {
    let word = word.trim().to_lowercase();
    // As a German writes without ß or umlauts on a keyboard that lacks them.
    let spelled = |name: &str| name.replace('ß', "ss").replace('ü', "ue");
    FIVE.into_iter().find(|color| {
        Locale::ALL.into_iter().any(|l| {
            let name = l.color(color).to_lowercase();
            word == name || word == spelled(&name)
        })
    })
}

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

    /// A count of a color, the word agreeing with it: `3 red`, `3 rouges`, `3 rote`; a
    /// color outside the five as the service sent it.
    pub fn color_count(self, count: u64, color: &Color) -> String {
        self.text(
            "color-count",
            &[("count", count.into()), ("color", color.as_str().into())],
        )
    }

    /// A count of rows that ended one way, the word agreeing with it: `17 rated`,
    /// `17 notées`, `17 bewertet`.
    pub fn status_count(self, count: u64, status: RowStatus) -> String {
        self.text(
            "status-count",
            &[("count", count.into()), ("status", status.as_str().into())],
        )
    }

    /// A count of alerts of a kind, the words agreeing with it, without the explanation
    /// the table gives in parentheses: `3 into red`, `3 passées en rouge`, `3 nach Rot`.
    pub fn kind_count(self, count: u64, kind: AlertKind) -> String {
        self.text(
            "kind-count",
            &[("count", count.into()), ("kind", kind.as_str().into())],
        )
    }

    /// A table's headers, named by their English words (`COMPANY_ID`): `ID SOCIÉTÉ`; the
    /// catalogues' `column-company-id`.
    pub fn headers(self, english: &[&str]) -> Vec<String> {
        english
            .iter()
            .map(|h| self.word(&format!("column-{}", h.to_lowercase().replace('_', "-"))))
            .collect()
    }

    /// How a row ended: `non trouvée`, `ungültig`.
    pub fn row_status(self, status: RowStatus) -> String {
        self.word(&format!("status-{}", status.as_str()))
    }

    /// How a run ended: `partiel`, `unterbrochen`.
    pub fn run_status(self, status: RunStatus) -> String {
        self.word(&format!("run-{}", status.as_str()))
    }

    /// Why an alert is listed: `passée en rouge`, `nach Weiß (keine Informationen mehr)`.
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
        for (word, color) in [
            ("red", Color::Red),
            (" Rouge ", Color::Red),
            ("ROT", Color::Red),
            ("noir", Color::Black),
            ("Schwarz", Color::Black),
            ("weiß", Color::White),
            ("WEISS", Color::White),
            ("blanc", Color::White),
            ("grün", Color::Green),
            ("gruen", Color::Green),
            ("vert", Color::Green),
            ("jaune", Color::Yellow),
            ("Gelb", Color::Yellow),
        ] {
            assert_eq!(color_named(word), Some(color), "{word}");
        }
        for word in ["pink", "", "orange", "rouges"] {
            assert_eq!(color_named(word), None, "{word}");
        }
        for status in RowStatus::ALL {
            let said = format!("17 {}", status.as_str());
            assert_eq!(Locale::En.status_count(17, status), said);
        }
        assert_eq!(Locale::En.color_count(3, &Color::Red), "3 red");
        assert_eq!(Locale::Fr.color_count(1, &Color::Red), "1 rouge");
        assert_eq!(Locale::Fr.color_count(3, &Color::Black), "3 noires");
        assert_eq!(Locale::De.color_count(3, &Color::White), "3 weiße");
        let purple = Color::Other("purple".into());
        assert_eq!(Locale::Fr.color_count(2, &purple), "2 purple");
        assert_eq!(Locale::Fr.status_count(16, RowStatus::Rated), "16 notées");
        assert_eq!(Locale::Fr.status_count(1, RowStatus::Rated), "1 notée");
        assert_eq!(
            Locale::De.status_count(2, RowStatus::Unresolved),
            "2 nicht gefunden"
        );
    }
}
