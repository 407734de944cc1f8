//! The reader: the language and the time zone in which a person reads ratewatch (the
//! summary, the messages, the pages, the tables, the errors). What a program reads
//! (report.json, report.csv, the database, the metrics, the webhook's JSON) never follows
//! them: English keys and UTC times, whoever runs it.
//!
//! [`Locale`] is the language, [`Zone`] the time zone; [`Reader`] holds both, as the
//! settings resolved them. [`catalogue`] holds the messages, [`writing`] how numbers,
//! amounts and times are written, [`Page`] what a page says, `record` a stored note in the
//! reader's words.

pub mod catalogue;
mod page;
mod record;
mod words;
pub mod writing;
mod zone;

pub use catalogue::Arg;
pub use page::Page;
pub use words::color_named;
pub use writing::Currency;
pub use zone::Zone;

use serde::Serialize;

/// A language ratewatch speaks. English is the one every message exists in first; the
/// others fall back to it message by message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    /// English
    #[default]
    En,
    /// Français
    Fr,
    /// Deutsch
    De,
}

impl Locale {
    /// Every language, English first.
    pub const ALL: [Locale; 3] = [Locale::En, Locale::Fr, Locale::De];

    /// The language's code (`en`, `fr`, `de`): the setting's value, and `<html lang>`.
    pub fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Fr => "fr",
            Locale::De => "de",
        }
    }

    /// The language of a code or of a POSIX locale (`fr`, `fr_FR.UTF-8`, `de-AT`,
    /// `de_CH@euro`), if ratewatch speaks it; its region and encoding do not matter.
    pub fn of_tag(tag: &str) -> Option<Locale> {
        let language = tag
            .trim()
            .split(['_', '-', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Locale::ALL.into_iter().find(|l| l.code() == language)
    }

    /// The language the environment asks for, as POSIX reads it for messages: the first of
    /// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set decides, and the variable is named.
    /// English when it names a language ratewatch does not speak (`C`, `es_ES`), or when none
    /// is set.
    pub fn of_environment(env: impl Fn(&str) -> Option<String>) -> (Locale, Option<&'static str>) {
        for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let Some(value) = env(var).filter(|v| !v.trim().is_empty()) {
                return (Locale::of_tag(&value).unwrap_or_default(), Some(var));
            }
        }
        (Locale::En, None)
    }
}

impl std::fmt::Display for Locale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// Who reads: their language and time zone, as the settings resolved them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reader {
    pub locale: Locale,
    pub zone: Zone,
}

/// English and UTC: the reader of what does not follow the settings, and of what programs
/// read.
pub fn english() -> &'static Reader {
    static ENGLISH: std::sync::LazyLock<Reader> = std::sync::LazyLock::new(Reader::default);
    &ENGLISH
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posix_locale_names_its_language_whatever_its_region_and_encoding() {
        assert_eq!(Locale::of_tag("fr_FR.UTF-8"), Some(Locale::Fr));
        assert_eq!(Locale::of_tag("fr_CA"), Some(Locale::Fr));
        assert_eq!(Locale::of_tag("de_AT@euro"), Some(Locale::De));
        assert_eq!(Locale::of_tag("DE-ch"), Some(Locale::De));
        assert_eq!(Locale::of_tag("en_GB.UTF-8"), Some(Locale::En));
        assert_eq!(Locale::of_tag("C.UTF-8"), None);
        assert_eq!(Locale::of_tag("es_ES"), None);
        assert_eq!(Locale::of_tag("french"), None);
    }

    #[test]
    fn the_environment_is_read_in_posix_order() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            Locale::of_environment(env(&[("LANG", "fr_FR.UTF-8")])),
            (Locale::Fr, Some("LANG"))
        );
        assert_eq!(
            Locale::of_environment(env(&[("LANG", "fr_FR.UTF-8"), ("LC_MESSAGES", "de_DE")])),
            (Locale::De, Some("LC_MESSAGES"))
        );
        assert_eq!(
            Locale::of_environment(env(&[("LC_ALL", "C"), ("LANG", "de_DE.UTF-8")])),
            (Locale::En, Some("LC_ALL"))
        );
        // An empty variable is not set.
        assert_eq!(
            Locale::of_environment(env(&[("LC_ALL", ""), ("LANG", "de_DE.UTF-8")])),
            (Locale::De, Some("LANG"))
        );
        assert_eq!(Locale::of_environment(env(&[])), (Locale::En, None));
    }
}
