//! The `[refresh]` table of the config file read into an age per color: how old a company's
//! latest rating may be and still be used without a call. The ages and the rule that
//! judges a rating by them are [`model::RefreshAges`](crate::model::RefreshAges)'s, which
//! the pipeline and the store ask.

use jiff::SignedDuration;

use crate::model::Color;
use crate::toml_table::{Mistake, Table};

/// A refresh age as written in the config file: a whole number and a unit, `h` (hours),
/// `d` (days) or `w` (weeks): `"12h"`, `"2d"`, `"1w"`; `"0d"` asks every run.
pub fn parse_age(text: &str) -> Option<SignedDuration> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let hours = match unit.to_ascii_lowercase() {
        'h' => 1,
        'd' => 24,
        'w' => 24 * 7,
        _ => return None,
    };
    let number = text[..text.len() - unit.len_utf8()].trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = number.parse().ok()?;
    // Ten years is longer than any rating is worth keeping unasked.
    (n.checked_mul(hours)? <= 24 * 3660).then(|| SignedDuration::from_hours(n * hours))
}

/// The ages of a `[refresh]` table, color by color; an unknown color or an age that does
/// not read is a mistake at its key: a typo must not silently spend (or save) calls.
pub fn ages_from_table(table: &Table) -> Result<Vec<(Color, SignedDuration)>, Mistake> {
    let mut ages = Vec::new();
    for (key, value) in table {
        let (span, key) = (key.span(), key.get_ref().as_str());
        // A color in English, French or German (`rouge = "1d"`).
        let Some(color) = crate::locale::color_named(key) else {
            let colors = "the colors are green, yellow, white, red, black";
            return Err((span, format!("[refresh]: unknown color `{key}`; {colors}")));
        };
        let Some(age) = value.get_ref().as_str().and_then(parse_age) else {
            let age = "an age like \"12h\", \"2d\" or \"1w\" (\"0d\": every run)";
            return Err((span, format!("[refresh] {key}: expected {age}")));
        };
        // `red` and `rouge` are one color: named twice, which age holds is not clear.
        if ages.iter().any(|(c, _)| *c == color) {
            return Err((
                span,
                format!("[refresh] {key}: this color has an age already, under another name"),
            ));
        }
        ages.push((color, age));
    }
    Ok(ages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hours(h: i64) -> SignedDuration {
        SignedDuration::from_hours(h)
    }

    #[test]
    fn ages_are_hours_days_or_weeks() {
        assert_eq!(parse_age("12h"), Some(hours(12)));
        assert_eq!(parse_age("2d"), Some(hours(48)));
        assert_eq!(parse_age("1w"), Some(hours(168)));
        assert_eq!(parse_age(" 30D "), Some(hours(720)));
        assert_eq!(parse_age("0d"), Some(hours(0)));
        for bad in [
            "",
            "d",
            "7",
            "7 days",
            "1.5d",
            "-1d",
            "2m",
            "1y",
            "99999999999w",
        ] {
            assert_eq!(parse_age(bad), None, "{bad:?}");
        }
    }
}
