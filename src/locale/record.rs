//! What ratewatch records in English said again in the reader's language: a run's notes
//! (`STOPPED: …`, `BUDGET: …`) and a row's error are stored as English prose, the record
//! scripts and later readers rely on, and never translated where they are stored. Where a
//! person reads one, it is read back through the English catalogue's `record-` messages
//! (each the very words ratewatch writes) and said again by the reader's: its values come
//! back typed (a count chooses its plural and is written as the reader writes numbers, a
//! time is put in the reader's zone, a reason within a reason is said again in turn). A
//! record no message matches (an older version's words, text of the service's own) is
//! shown as stored.

use std::sync::OnceLock;

use fluent_syntax::ast::{
    Entry, Expression, InlineExpression, Pattern, PatternElement, VariantKey,
};

use super::catalogue::source;
use super::{Arg, Locale, Reader};

/// A piece of a record's English words: a literal text, or a value.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Value(String),
}

/// One way a record message is written in English: its pieces, and the values a variant
/// chosen by a number implies (`[0] this run makes no call`: `left` is 0).
#[derive(Debug, Clone)]
struct Form {
    id: String,
    pieces: Vec<Piece>,
    implied: Vec<(String, f64)>,
}

/// Every form of every `record-` message of the English catalogue, most literal words
/// first (the most particular wins over `not screened: { $why }`).
fn forms() -> &'static [Form] {
    static FORMS: OnceLock<Vec<Form>> = OnceLock::new();
    FORMS.get_or_init(|| {
        let resource = fluent_syntax::parser::parse(source(Locale::En)).expect("parses");
        let mut forms: Vec<Form> = resource
            .body
            .iter()
            .filter_map(|entry| match entry {
                Entry::Message(m) if m.id.name.starts_with("record-") => {
                    Some((m.id.name, m.value.as_ref()?))
                }
                _ => None,
            })
            .flat_map(|(id, pattern)| {
                expand(pattern)
                    .into_iter()
                    .map(move |(pieces, implied)| Form {
                        id: id.to_string(),
                        pieces: merged(pieces),
                        implied,
                    })
            })
            .collect();
        let literal = |f: &Form| -> usize {
            f.pieces
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.len(),
                    Piece::Value(_) => 0,
                })
                .sum()
        };
        forms.sort_by_key(|f| std::cmp::Reverse(literal(f)));
        forms
    })
}

type Expanded = Vec<(Vec<Piece>, Vec<(String, f64)>)>;

/// The ways a pattern is written: one per choice of each select expression's variant.
fn expand(pattern: &Pattern<&str>) -> Expanded {
    let mut ways: Expanded = vec![(Vec::new(), Vec::new())];
    for element in &pattern.elements {
        let options: Expanded = match element {
            PatternElement::TextElement { value } => {
                vec![(vec![Piece::Text(value.to_string())], vec![])]
            }
            PatternElement::Placeable { expression } => expression_ways(expression),
        };
        ways = ways
            .into_iter()
            .flat_map(|(pieces, implied)| {
                options.iter().map(move |(more, also)| {
                    let mut p = pieces.clone();
                    p.extend(more.iter().cloned());
                    let mut i = implied.clone();
                    i.extend(also.iter().cloned());
                    (p, i)
                })
            })
            .collect();
    }
    ways
}

fn expression_ways(expression: &Expression<&str>) -> Expanded {
    match expression {
        Expression::Inline(InlineExpression::VariableReference { id }) => {
            vec![(vec![Piece::Value(id.name.to_string())], vec![])]
        }
        Expression::Inline(InlineExpression::StringLiteral { value }) => {
            vec![(vec![Piece::Text(value.to_string())], vec![])]
        }
        Expression::Inline(InlineExpression::Placeable { expression }) => {
            expression_ways(expression)
        }
        Expression::Select { selector, variants } => {
            let selector = match selector {
                InlineExpression::VariableReference { id } => Some(id.name.to_string()),
                _ => None,
            };
            variants
                .iter()
                .flat_map(|v| {
                    let number = match &v.key {
                        VariantKey::NumberLiteral { value } => value.parse::<f64>().ok(),
                        VariantKey::Identifier { .. } => None,
                    };
                    let selector = selector.clone();
                    expand(&v.value).into_iter().map(move |(p, mut implied)| {
                        if let (Some(name), Some(n)) = (&selector, number) {
                            implied.push((name.clone(), n));
                        }
                        (p, implied)
                    })
                })
                .collect()
        }
        // No record message uses a term or a function: nothing to read back.
        Expression::Inline(_) => vec![],
    }
}

/// Adjacent texts as one, so a value is always bounded by the texts around it.
fn merged(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (out.last_mut(), piece) {
            (Some(Piece::Text(last)), Piece::Text(more)) => last.push_str(&more),
            (_, piece) => out.push(piece),
        }
    }
    out
}

/// The values of `text` if it is written as `pieces`, each value the shortest that lets
/// the rest match; none when it is not.
fn read<'t>(pieces: &[Piece], text: &'t str) -> Option<Vec<(String, &'t str)>> {
    match pieces.split_first() {
        None => text.is_empty().then(Vec::new),
        Some((Piece::Text(t), rest)) => read(rest, text.strip_prefix(t.as_str())?),
        Some((Piece::Value(name), rest)) => {
            let ends: Vec<usize> = match rest.first() {
                None => vec![text.len()],
                Some(Piece::Text(next)) => {
                    text.match_indices(next.as_str()).map(|(i, _)| i).collect()
                }
                // Two values side by side: not written by any record message.
                Some(Piece::Value(_)) => return None,
            };
            ends.into_iter().filter(|&end| end > 0).find_map(|end| {
                let mut values = read(rest, &text[end..])?;
                values.insert(0, (name.clone(), &text[..end]));
                Some(values)
            })
        }
    }
}

impl Reader {
    /// A note or an error as stored, in the reader's words; as stored in English, or when
    /// no record message writes it.
    pub fn record(&self, stored: &str) -> String {
        if self.locale == Locale::En {
            return stored.to_string();
        }
        self.said_again(stored, 0)
            .unwrap_or_else(|| stored.to_string())
    }

    fn said_again(&self, stored: &str, depth: usize) -> Option<String> {
        // A reason within a reason within a reason is as deep as ratewatch writes them.
        if depth > 3 {
            return None;
        }
        forms().iter().find_map(|form| {
            let values = read(&form.pieces, stored)?;
            // A line is a number: `database x: y` is no file's line.
            if values
                .iter()
                .any(|(name, v)| name == "line" && v.parse::<u64>().is_err())
            {
                return None;
            }
            let mut args: Vec<(&str, Arg)> = form
                .implied
                .iter()
                .map(|(name, n)| (name.as_str(), Arg::from(*n)))
                .collect();
            for (name, value) in &values {
                args.push((name.as_str(), self.value(name, value, depth)));
            }
            Some(self.locale.text(&form.id, &args))
        })
    }

    /// A value read back: a count as a number (its plural, its grouping), a time in the
    /// reader's zone, a reason said again, anything else as written. Only a value named as
    /// a count is a number: what a file or a person gave (`given`, an identifier, a code)
    /// keeps its digits as written, leading zeros and all.
    fn value(&self, name: &str, value: &str, depth: usize) -> Arg<'static> {
        if COUNTS.contains(&name)
            && let Ok(n) = value.parse::<u64>()
            && n.to_string() == value
        {
            return Arg::from(n);
        }
        if value.parse::<jiff::Timestamp>().is_ok() {
            return Arg::from(self.stamp_text(value));
        }
        Arg::from(
            self.said_again(value, depth + 1)
                .unwrap_or_else(|| value.to_string()),
        )
    }
}

/// The values of a stored text that are counts: said as numbers, with their plural.
const COUNTS: [&str; 9] = [
    "budget", "left", "seconds", "spent", "byte", "column", "line", "min", "max",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;
    use crate::locale::Zone;

    fn reader(locale: Locale, zone: &str) -> Reader {
        Reader {
            locale,
            zone: Zone::named(zone).unwrap(),
        }
    }

    #[test]
    fn a_row_s_error_is_read_back_and_said_in_the_reader_s_words_and_zone() {
        let until: jiff::Timestamp = "2026-11-28T00:00:00Z".parse().unwrap();
        let spent = ApiError::QuotaSpent { until }.to_string();
        assert_eq!(reader(Locale::En, "Europe/Paris").record(&spent), spent);
        assert_eq!(
            reader(Locale::De, "Europe/Berlin").record(&spent),
            "nicht geprüft: Kontingent: der Dienst verlangte, bis 28.11.2026 01:00 CET zu warten; danach erneut starten"
        );
        let refused = ApiError::Unauthenticated {
            status: 401,
            message: "Invalid key".into(),
        }
        .to_string();
        let french = reader(Locale::Fr, "Europe/Paris").record(&refused);
        assert!(
            french.starts_with("le service a refusé la clé d'API (HTTP 401 : "),
            "{french}"
        );
        let server = ApiError::Server {
            status: 503,
            snippet: "<html>".into(),
        }
        .to_string();
        assert!(
            reader(Locale::De, "UTC")
                .record(&server)
                .starts_with("der Dienst antwortete mit HTTP 503: "),
        );
    }

    #[test]
    fn a_reason_within_a_note_is_said_again_in_turn() {
        let stopped = "STOPPED: service not answering (no answer for 1800 s: timeouts or refused connections; --max-silence): the next run of this portfolio resumes with the rows not screened";
        assert_eq!(
            reader(Locale::De, "Europe/Berlin").record(stopped),
            "ANGEHALTEN: der Dienst antwortet nicht (keine Antwort seit 1.800 s: Zeitüberschreitungen oder abgelehnte Verbindungen; --max-silence): der nächste Lauf dieses Portfolios setzt mit den nicht geprüften Zeilen fort"
        );
        let budget = "BUDGET: 9000 of the month's 9000 calls (--max-calls-per-month) were already spent; this run makes no call: the rows not screened wait for a later run that the budget allows";
        let french = reader(Locale::Fr, "UTC").record(budget);
        assert!(
            french.starts_with("BUDGET : 9\u{202f}000 des 9\u{202f}000 appels du mois")
                && french.contains("; ce passage ne fait aucun appel :"),
            "{french}"
        );
        // What a person gave keeps its digits as written; a bound is a number.
        let given = "concurrency: expected a whole number from 1 to 1024, got 0099999";
        let french = reader(Locale::Fr, "UTC").record(given);
        assert!(
            french.contains("1\u{202f}024") && french.contains(" 0099999 est donné"),
            "{french}"
        );
        // What no record message writes is shown as stored.
        let remark = "columns not used: Owner, Notes (carried into the reports)";
        assert_eq!(reader(Locale::Fr, "UTC").record(remark), remark);
        let halted = ApiError::Halted {
            why: "received SIGTERM".into(),
        };
        assert_eq!(
            reader(Locale::Fr, "UTC").record(&halted.to_string()),
            "non examinée : received SIGTERM"
        );
    }
}
