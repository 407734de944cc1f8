//! A country as a portfolio writes it, read as its ISO 3166-1 alpha-2 code: the code itself
//! (`FR`), its alpha-3 code (`FRA`), or its name in English, French, German, Spanish,
//! Italian or Dutch (`Suisse`, `Schweiz`, `États-Unis`, `Paesi Bassi`, `La Réunion`,
//! `Nouvelle-Calédonie`). The names are the Unicode CLDR's, as the ICU4X data carries them
//! (kept up to date with each CLDR release, not a list of ours); they are compared folded
//! as [`normalize_name`] folds them, so case, accents, hyphens and `St.`/`Saint` do not
//! matter. The service's own spelling of its countries is read too.
//!
//! A name that is the start of one country's name (`Guyane` for `Guyane française`) is that
//! country; one that could be several countries (`Corée`) is refused with the choices.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::text::normalize_name;

/// The languages a portfolio's country names are read in: those of the countries the
/// service rates.
pub const LANGUAGES: [&str; 6] = ["en", "fr", "de", "es", "it", "nl"];

/// Alpha-3 codes of the countries the service rates and of the French overseas
/// departments and territories.
const ALPHA3: [(&str, &str); 22] = [
    ("FRA", "FR"),
    ("GBR", "GB"),
    ("IRL", "IE"),
    ("DEU", "DE"),
    ("ESP", "ES"),
    ("BEL", "BE"),
    ("LUX", "LU"),
    ("NLD", "NL"),
    ("ITA", "IT"),
    ("CHN", "CN"),
    ("GUF", "GF"),
    ("GLP", "GP"),
    ("MTQ", "MQ"),
    ("MYT", "YT"),
    ("REU", "RE"),
    ("SPM", "PM"),
    ("WLF", "WF"),
    ("NCL", "NC"),
    ("PYF", "PF"),
    ("BLM", "BL"),
    ("MAF", "MF"),
    ("ATF", "TF"),
];

/// Names shorter than this are not read as the start of a longer one (`Ma` is no country).
const MIN_PREFIX_CHARS: usize = 4;

/// A country's name, folded, with the code it names and its name as written.
#[derive(Debug, Clone)]
struct Name {
    folded: String,
    /// Its length in characters, for the nearest-name search.
    length: usize,
    code: String,
    written: String,
}

/// What a country cell reads as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// One country: its alpha-2 code, upper case.
    Code(String),
    /// Names of several countries: each code with the name that matched.
    Ambiguous(Vec<(String, String)>),
    /// Neither a code nor a name; the code of the nearest name, when one is close.
    Unknown { nearest: Option<String> },
}

/// Reads a country cell: a code, an alpha-3 code, or a name in one of [`LANGUAGES`] or
/// in `service_names` (the service's list: name folded by [`fold`] → code). A code is
/// read at once; a name is looked up in memory, the whole list scanned only for a name
/// that is none exactly.
pub fn read(given: &str, service_names: &HashMap<String, String>) -> Reading {
    let upper = given.trim().to_uppercase();
    if upper.len() == 2 && upper.chars().all(|c| c.is_ascii_alphabetic()) {
        return Reading::Code(upper);
    }
    if let Some((_, code)) = ALPHA3.iter().find(|(a3, _)| *a3 == upper) {
        return Reading::Code(code.to_string());
    }
    let folded = fold(given);
    if folded.is_empty() {
        return Reading::Unknown { nearest: None };
    }
    let index = index();
    let service = || {
        service_names.iter().map(|(folded, code)| Name {
            folded: folded.clone(),
            length: folded.chars().count(),
            code: code.clone(),
            written: folded.clone(),
        })
    };
    let exact = index.exact.get(&folded).into_iter().flatten();
    let mut exact = distinct(exact.map(|i| &index.names[*i]));
    if let Some(code) = service_names.get(&folded)
        && !exact.iter().any(|(c, _)| c == code)
    {
        exact.push((code.clone(), folded.clone()));
    }
    if !exact.is_empty() {
        return one_or_choices(exact);
    }
    let names: Vec<Name> = service().collect();
    let all = || index.names.iter().chain(names.iter());
    if folded.chars().count() >= MIN_PREFIX_CHARS {
        let starts = distinct(all().filter(|n| starts_with_words(&n.folded, &folded)));
        if !starts.is_empty() {
            return one_or_choices(starts);
        }
    }
    // Only names within 3 letters of its length can be within 3 edits of it.
    let length = folded.chars().count();
    let nearest = all()
        .filter(|n| n.length.abs_diff(length) <= 3)
        .map(|n| (crate::text::distance(&n.folded, &folded), n))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= 3)
        .map(|(_, n)| n.code.clone());
    Reading::Unknown { nearest }
}

/// A name folded for comparison: [`normalize_name`], with `st`/`ste` read as `saint`/`sainte`
/// (`St. Barthélemy`, `Saint-Barthélemy`).
pub fn fold(name: &str) -> String {
    normalize_name(name)
        .split(' ')
        .map(|word| match word {
            "st" => "saint",
            "ste" => "sainte",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `name`'s words begin with all of `start`'s (`guyane francaise`, `guyane`).
fn starts_with_words(name: &str, start: &str) -> bool {
    name.strip_prefix(start)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// The codes matched, each once with the first name that matched it.
fn distinct<'a>(names: impl Iterator<Item = &'a Name>) -> Vec<(String, String)> {
    let mut codes: Vec<(String, String)> = Vec::new();
    for n in names {
        if !codes.iter().any(|(code, _)| *code == n.code) {
            codes.push((n.code.clone(), n.written.clone()));
        }
    }
    codes
}

fn one_or_choices(mut codes: Vec<(String, String)>) -> Reading {
    if codes.len() == 1 {
        return Reading::Code(codes.remove(0).0);
    }
    codes.sort();
    Reading::Ambiguous(codes)
}

/// The CLDR's names of every region with a two-letter code, in each of [`LANGUAGES`], long
/// and short forms, built once.
struct Index {
    names: Vec<Name>,
    /// Each folded name → the positions in `names` that spell it.
    exact: HashMap<String, Vec<usize>>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let names: Vec<Name> = LANGUAGES.iter().flat_map(|lang| cldr_names(lang)).collect();
        let mut exact: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            exact.entry(name.folded.clone()).or_default().push(i);
        }
        Index { names, exact }
    })
}

/// The region names of one language, from the CLDR data compiled into the binary.
fn cldr_names(language: &str) -> Vec<Name> {
    use icu_experimental::displaynames::provider::RegionDisplayNamesV1;
    use icu_provider::prelude::*;
    let Ok(id) = language.parse::<icu_locale_core::LanguageIdentifier>() else {
        return Vec::new();
    };
    let locale = DataLocale::from(&id);
    let request = DataRequest {
        id: DataIdentifierBorrowed::for_locale(&locale),
        ..Default::default()
    };
    let loaded: Result<DataResponse<RegionDisplayNamesV1>, _> =
        icu_experimental::provider::Baked.load(request);
    let Ok(loaded) = loaded else {
        tracing::warn!("no country names for the language {language:?} in the CLDR data");
        return Vec::new();
    };
    let data = loaded.payload.get();
    data.names
        .iter()
        .chain(data.short_names.iter())
        .filter_map(|(region, written)| {
            let code = region.try_into_tinystr().ok()?;
            let code = code.as_str();
            let folded = fold(written);
            (code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())).then(|| Name {
                length: folded.chars().count(),
                folded,
                code: code.to_string(),
                written: written.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(given: &str) -> Reading {
        read(given, &HashMap::new())
    }

    #[test]
    fn names_in_six_languages_and_the_overseas_departments_read_as_their_codes() {
        for (given, want) in [
            ("Suisse", "CH"),
            ("Schweiz", "CH"),
            ("SVIZZERA", "CH"),
            ("Maroc", "MA"),
            ("États-Unis", "US"),
            ("etats unis", "US"),
            ("Vereinigte Staaten", "US"),
            ("Paesi Bassi", "NL"),
            ("Países Bajos", "NL"),
            ("Nederland", "NL"),
            ("Royaume-Uni", "GB"),
            ("United Kingdom", "GB"),
            ("Deutschland", "DE"),
            ("Allemagne", "DE"),
            ("Frankrijk", "FR"),
            ("Guyane", "GF"),
            ("Guyane française", "GF"),
            ("La Réunion", "RE"),
            ("LA RÉUNION", "RE"),
            ("Réunion", "RE"),
            ("Guadeloupe", "GP"),
            ("Martinique", "MQ"),
            ("Mayotte", "YT"),
            ("Nouvelle-Calédonie", "NC"),
            ("Polynésie française", "PF"),
            ("Saint-Pierre-et-Miquelon", "PM"),
            ("St. Pierre & Miquelon", "PM"),
            ("Wallis-et-Futuna", "WF"),
            ("Saint-Barthélemy", "BL"),
            ("St Barthelemy", "BL"),
            ("fra", "FR"),
            ("REU", "RE"),
            ("fr", "FR"),
        ] {
            assert_eq!(code(given), Reading::Code(want.into()), "{given}");
        }
    }

    #[test]
    fn a_name_of_several_countries_gives_the_choices_and_a_typo_the_nearest() {
        match code("Corée") {
            Reading::Ambiguous(choices) => {
                let codes: Vec<&str> = choices.iter().map(|(c, _)| c.as_str()).collect();
                assert_eq!(codes, ["KP", "KR"], "{choices:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            code("Frnace"),
            Reading::Unknown {
                nearest: Some("FR".into())
            }
        );
        assert_eq!(code("Atlantis"), Reading::Unknown { nearest: None });
        assert_eq!(code("  "), Reading::Unknown { nearest: None });
        // The service's own spelling counts too.
        let service = HashMap::from([("freedonia".to_string(), "FD".to_string())]);
        assert_eq!(read("Freedonia", &service), Reading::Code("FD".into()));
    }
}
