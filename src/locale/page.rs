//! What a page says (report.html, the pages of `ratewatch serve`), in its reader's language
//! and zone. A page repeats its words on every row (a column's label, a color, a status):
//! the messages that take no argument are made once per language for the life of the
//! process, and a page only looks them up.

use std::collections::HashMap;
use std::sync::OnceLock;

use fluent_bundle::FluentArgs;
use jiff::Timestamp;

use super::{Arg, Locale, Reader, catalogue};
use crate::model::{AlertKind, Change, Color, RowStatus, RunStatus};

/// A page's reader, and the words of their language.
#[derive(Debug, Clone)]
pub struct Page {
    pub reader: Reader,
    words: &'static HashMap<String, String>,
}

/// Each language's messages that take no argument, by id: English's ids, each in the
/// language or else in English.
fn words(locale: Locale) -> &'static HashMap<String, String> {
    static WORDS: OnceLock<[HashMap<String, String>; 3]> = OnceLock::new();
    let all = WORDS.get_or_init(|| {
        let english = catalogue::bundle(Locale::En, catalogue::source(Locale::En));
        // A message starts a line with its id: `color-red = red`.
        let ids: Vec<&str> = catalogue::source(Locale::En)
            .lines()
            .filter_map(|line| line.split_once(" =").map(|(id, _)| id))
            .filter(|id| id.starts_with(|c: char| c.is_ascii_lowercase()))
            .filter(|id| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            .collect();
        let none = FluentArgs::new();
        Locale::ALL.map(|l| {
            let own = catalogue::bundle(l, catalogue::source(l));
            ids.iter()
                .filter_map(|id| {
                    let text = catalogue::format(&own, id, &none)
                        .or_else(|| catalogue::format(&english, id, &none))?;
                    Some((id.to_string(), text))
                })
                .collect()
        })
    });
    &all[Locale::ALL.iter().position(|l| *l == locale).unwrap_or(0)]
}

/// A count, however a template holds it (`n`, `&n`, `&&n`).
pub trait Count {
    fn count(&self) -> u64;
}

impl Count for u64 {
    fn count(&self) -> u64 {
        *self
    }
}

impl<T: Count + ?Sized> Count for &T {
    fn count(&self) -> u64 {
        (**self).count()
    }
}

impl Page {
    pub fn new(reader: Reader) -> Page {
        let words = words(reader.locale);
        Page { reader, words }
    }

    /// English and UTC: what the page has always said.
    pub fn english() -> Page {
        Page::new(Reader::default())
    }

    pub fn locale(&self) -> Locale {
        self.reader.locale
    }

    /// The `lang` of the page's `<html>`: `en`, `fr`, `de`.
    pub fn lang(&self) -> &'static str {
        self.reader.locale.code()
    }

    /// A message without arguments, looked up.
    pub fn word(&self, id: &str) -> &str {
        match self.words.get(id) {
            Some(word) => word,
            None => {
                tracing::error!(message = id, "a page's word has no text in any catalogue");
                ""
            }
        }
    }

    /// A message with its arguments.
    pub fn text(&self, id: &str, args: &[(&str, Arg)]) -> String {
        self.reader.locale.text(id, args)
    }

    /// A message counting `count` things (`$count`, which chooses the plural form).
    pub fn count(&self, id: &str, count: impl Count) -> String {
        self.text(id, &[("count", count.count().into())])
    }

    /// A message counting two things.
    pub fn counts(&self, id: &str, a: &str, x: impl Count, b: &str, y: impl Count) -> String {
        self.text(id, &[(a, x.count().into()), (b, y.count().into())])
    }

    /// A message with one argument, a text.
    pub fn with(&self, id: &str, name: &str, value: impl AsRef<str>) -> String {
        self.text(id, &[(name, value.as_ref().to_string().into())])
    }

    /// A message with two arguments, texts.
    pub fn with2(
        &self,
        id: &str,
        a: &str,
        x: impl AsRef<str>,
        b: &str,
        y: impl AsRef<str>,
    ) -> String {
        let (x, y) = (x.as_ref().to_string(), y.as_ref().to_string());
        self.text(id, &[(a, x.into()), (b, y.into())])
    }

    /// A count shown alone (a tile, a heading's count): `2,412` as the pages have always
    /// written it in English, `2 412` (narrow no-break space), `2.412`.
    pub fn number(&self, n: impl Count) -> String {
        let n = n.count();
        match self.reader.locale {
            Locale::En => crate::text::thousands(n),
            l => l.number(n as f64),
        }
    }

    /// A moment in the reader's zone with its abbreviation: `2026-11-27 01:00:00 UTC`,
    /// `27/11/2026 02:00 CET`.
    pub fn time(&self, at: &Timestamp) -> String {
        self.reader.time(*at)
    }

    /// The day of a moment in the reader's zone: `2026-11-27`, `27/11/2026`.
    pub fn date(&self, at: &Timestamp) -> String {
        self.reader.date(*at)
    }

    /// A color's name; a color outside the five as the service sent it.
    pub fn color<'a>(&'a self, color: &'a Color) -> &'a str {
        match color {
            Color::Green => self.word("color-green"),
            Color::Yellow => self.word("color-yellow"),
            Color::Red => self.word("color-red"),
            Color::Black => self.word("color-black"),
            Color::White => self.word("color-white"),
            Color::Other(other) => other,
        }
    }

    /// A color named as programs name it (`red`), in the reader's words.
    pub fn color_named<'a>(&'a self, name: &'a str) -> &'a str {
        match Color::parse(name) {
            Color::Other(_) => name,
            _ => self.word(&format!("color-{name}")),
        }
    }

    /// How a row ended: `non trouvée`.
    pub fn status(&self, status: &RowStatus) -> &str {
        self.word(&format!("status-{}", status.as_str()))
    }

    /// A status named as programs name it (`unresolved`), in the reader's words.
    pub fn status_named<'a>(&'a self, name: &'a str) -> &'a str {
        RowStatus::ALL
            .iter()
            .find(|s| s.as_str() == name)
            .map_or(name, |s| self.status(s))
    }

    /// How a run ended: `partiel`.
    pub fn run_status(&self, status: &RunStatus) -> &str {
        self.word(&format!("run-{}", status.as_str()))
    }

    /// Why an alert is listed: `passée en rouge`.
    pub fn kind(&self, kind: &AlertKind) -> &str {
        self.word(&format!("kind-{}", kind.as_str()))
    }

    /// How a company's color moved: `dégradée`.
    pub fn change(&self, change: &Change) -> &str {
        self.word(&format!("change-{}", change.as_str()))
    }
}
