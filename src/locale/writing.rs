//! Numbers, amounts and times as the reader writes them: `1 204 000 €` (narrow no-break
//! spaces) and `27/11/2026 02:00 CET` in French, `1.204.000 €` and `27.11.2026 02:00 CET`
//! in German. English keeps the forms ratewatch has always printed (`2412 rows`,
//! `4 210 000`, `2026-11-27 01:00:00 UTC`), which scripts reading the summary may rely on.
//!
//! The separators are the Unicode CLDR's, through ICU4X; a zone's abbreviation is the one
//! the IANA database gives (`CET`, `CEST`, `UTC`), the same in every language.

use icu_decimal::DecimalFormatter;
use icu_decimal::input::Decimal;
use icu_locale_core::locale;
use jiff::Timestamp;

use super::{Locale, Reader};

/// A currency an amount column's header names, by its symbol or its ISO code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency(&'static str);

impl Currency {
    /// The currency a header names (`€`, `EUR`, `Encours (€)`, `Exposure USD`), if one:
    /// a symbol anywhere, or a code as a word of its own.
    pub fn of_header(header: &str) -> Option<Currency> {
        const KNOWN: [(&str, &str, &str); 4] = [
            ("€", "EUR", "€"),
            ("$", "USD", "$"),
            ("£", "GBP", "£"),
            ("CHF", "CHF", "CHF"),
        ];
        let words: Vec<String> = header
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_uppercase)
            .collect();
        KNOWN
            .iter()
            .find(|(symbol, code, _)| {
                (symbol.chars().all(|c| !c.is_alphanumeric()) && header.contains(symbol))
                    || words.iter().any(|w| w == code)
            })
            .map(|(_, _, shown)| Currency(shown))
    }

    pub fn symbol(self) -> &'static str {
        self.0
    }
}

thread_local! {
    /// French's and German's formatters of numbers (ICU4X's data is not shared between
    /// threads): made once a thread.
    static FORMATTERS: [DecimalFormatter; 2] = {
        let of = |l: icu_locale_core::Locale| {
            DecimalFormatter::try_new(l.into(), Default::default()).expect("compiled data")
        };
        [of(locale!("fr")), of(locale!("de"))]
    };
}

/// A whole number as CLDR writes it in French or German.
fn cldr(locale: Locale, n: i64) -> String {
    FORMATTERS.with(|[french, german]| {
        let formatter = if locale == Locale::De { german } else { french };
        formatter.format(&Decimal::from(n)).to_string()
    })
}

/// Digits with a separator between each group of three.
fn grouped(n: i64, separator: char) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(separator);
        }
        out.push(d);
    }
    out
}

impl Locale {
    /// A count, rounded to the unit: `2 412` (narrow no-break space), `2.412`; English
    /// writes its digits alone (`2412 rows`), as its summary always has.
    pub fn number(self, n: f64) -> String {
        let n = n.round() as i64;
        match self {
            Locale::En => n.to_string(),
            _ => cldr(self, n),
        }
    }

    /// An amount at stake, rounded to the unit, with its currency after it when the amount
    /// column's header names one: `1 204 000 €`, `1.204.000 €`. English writes it as it
    /// always has, thousands apart by spaces and no symbol: `1 204 000`.
    pub fn amount(self, amount: f64, currency: Option<Currency>) -> String {
        match (self, currency) {
            (Locale::En, _) => grouped(amount.round() as i64, ' '),
            (_, None) => self.number(amount),
            // CLDR's currency pattern in both: the number, a no-break space, the symbol.
            (_, Some(c)) => format!("{}\u{a0}{}", self.number(amount), c.symbol()),
        }
    }
}

impl Reader {
    /// A moment in the reader's zone, with the zone's abbreviation:
    /// `2026-11-27 01:00:00 UTC`, `27/11/2026 02:00 CET`, `27.11.2026 02:00 CET`.
    pub fn time(&self, at: Timestamp) -> String {
        let pattern = match self.locale {
            Locale::En => "%Y-%m-%d %H:%M:%S %Z",
            Locale::Fr => "%d/%m/%Y %H:%M %Z",
            Locale::De => "%d.%m.%Y %H:%M %Z",
        };
        at.to_zoned(self.zone.time_zone().clone())
            .strftime(pattern)
            .to_string()
    }

    /// When a run started, as the line heading its summary and messages says it: the day in
    /// English, as it always has (`2026-11-27`); the time in the zone, with its
    /// abbreviation, for a French or German reader (`27/11/2026 02:00 CET`).
    pub fn moment(&self, at: Timestamp) -> String {
        match self.locale {
            Locale::En => self.date(at),
            _ => self.time(at),
        }
    }

    /// A moment in a command's table: in English and UTC as the tables have always
    /// printed it (`2026-11-27T01:00:00Z`), else to the minute in the reader's zone with
    /// its abbreviation (`27/11/2026 02:00 CET`, `2026-11-27 02:00 CET`).
    pub fn stamp(&self, at: Timestamp) -> String {
        match self.locale {
            Locale::En if self.zone.is_utc() => crate::model::time_text(at),
            _ => self.minute(at),
        }
    }

    /// A stored time (`2026-11-27T01:00:00Z`) as [`Reader::stamp`] writes it; as stored
    /// when it does not read as one.
    pub fn stamp_text(&self, stored: &str) -> String {
        stored
            .parse::<Timestamp>()
            .map_or_else(|_| stored.to_string(), |at| self.stamp(at))
    }

    /// A moment to the minute in the reader's zone, with its abbreviation:
    /// `2026-11-27 02:00 CET`, `27/11/2026 02:00 CET`, `27.11.2026 02:00 CET`.
    pub fn minute(&self, at: Timestamp) -> String {
        let pattern = match self.locale {
            Locale::En => "%Y-%m-%d %H:%M %Z",
            Locale::Fr => "%d/%m/%Y %H:%M %Z",
            Locale::De => "%d.%m.%Y %H:%M %Z",
        };
        at.to_zoned(self.zone.time_zone().clone())
            .strftime(pattern)
            .to_string()
    }

    /// The day of a moment in the reader's zone: `2026-11-27`, `27/11/2026`, `27.11.2026`.
    pub fn date(&self, at: Timestamp) -> String {
        let pattern = match self.locale {
            Locale::En => "%Y-%m-%d",
            Locale::Fr => "%d/%m/%Y",
            Locale::De => "%d.%m.%Y",
        };
        at.to_zoned(self.zone.time_zone().clone())
            .strftime(pattern)
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locale::Zone;

    #[test]
    fn numbers_are_grouped_as_each_language_writes_them() {
        assert_eq!(Locale::En.number(1_204_000.0), "1204000");
        assert_eq!(Locale::Fr.number(1_204_000.0), "1\u{202f}204\u{202f}000");
        assert_eq!(Locale::De.number(1_204_000.0), "1.204.000");
        assert_eq!(Locale::Fr.number(999.0), "999");
        assert_eq!(Locale::De.number(-12_345.4), "-12.345");
    }

    #[test]
    fn amounts_carry_the_currency_their_column_names() {
        let euro = Currency::of_header("Encours (€)");
        assert_eq!(euro, Some(Currency("€")));
        assert_eq!(
            Locale::Fr.amount(1_204_000.0, euro),
            "1\u{202f}204\u{202f}000\u{a0}€"
        );
        assert_eq!(Locale::De.amount(1_204_000.4, euro), "1.204.000\u{a0}€");
        assert_eq!(Locale::De.amount(1_204_000.0, None), "1.204.000");
        // English as it has always been written.
        assert_eq!(Locale::En.amount(4_210_000.0, euro), "4 210 000");
        assert_eq!(Locale::En.amount(999.5, None), "1 000");
        for (header, symbol) in [
            ("€", Some("€")),
            ("EUR", Some("€")),
            ("montant_eur", Some("€")),
            ("Exposure USD", Some("$")),
            ("Limit (CHF)", Some("CHF")),
            ("Encours", None),
            ("Europe", None),
            ("amount", None),
        ] {
            assert_eq!(
                Currency::of_header(header).map(Currency::symbol),
                symbol,
                "{header}"
            );
        }
    }

    #[test]
    fn times_are_the_reader_s_in_their_zone_with_its_abbreviation() {
        let at: Timestamp = "2026-11-27T01:00:00Z".parse().unwrap();
        let summer: Timestamp = "2026-07-01T00:30:00Z".parse().unwrap();
        let reader = |locale, zone: &str| Reader {
            locale,
            zone: Zone::named(zone).unwrap(),
        };
        assert_eq!(
            reader(Locale::En, "UTC").time(at),
            "2026-11-27 01:00:00 UTC"
        );
        assert_eq!(
            reader(Locale::Fr, "Europe/Paris").time(at),
            "27/11/2026 02:00 CET"
        );
        assert_eq!(
            reader(Locale::De, "Europe/Berlin").time(at),
            "27.11.2026 02:00 CET"
        );
        assert_eq!(
            reader(Locale::Fr, "Europe/Paris").time(summer),
            "01/07/2026 02:30 CEST"
        );
        assert_eq!(
            reader(Locale::En, "Europe/Paris").time(at),
            "2026-11-27 02:00:00 CET"
        );
        // The day is the reader's: half past midnight in Paris is the next day.
        assert_eq!(
            reader(Locale::De, "Europe/Berlin").date(summer),
            "01.07.2026"
        );
        assert_eq!(reader(Locale::En, "UTC").date(summer), "2026-07-01");
        // The tables: English and UTC as always, else the reader's minute.
        assert_eq!(reader(Locale::En, "UTC").stamp(at), "2026-11-27T01:00:00Z");
        assert_eq!(
            reader(Locale::En, "Europe/Paris").stamp(at),
            "2026-11-27 02:00 CET"
        );
        assert_eq!(
            reader(Locale::Fr, "Europe/Paris").stamp_text("2026-11-27T01:00:00Z"),
            "27/11/2026 02:00 CET"
        );
        assert_eq!(reader(Locale::De, "UTC").stamp(at), "27.11.2026 01:00 UTC");
        // A machine whose zone is named Etc/UTC reads English tables as they always were.
        assert_eq!(
            reader(Locale::En, "Etc/UTC").stamp(at),
            "2026-11-27T01:00:00Z"
        );
        assert_eq!(reader(Locale::Fr, "UTC").stamp_text("soon"), "soon");
    }
}
