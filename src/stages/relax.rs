//! A name search that found nothing, loosened step by step: an export's postcode is often
//! an establishment's, not the registered office's; its street may be another site's; its
//! city the branch's; and its legal form ("SARL" for a company registered as SAS) a word
//! the service's name matching does not find. Each step leaves out one more of these
//! (postcode, phone, street, city, then the legal-form words of the name), and the row's
//! search stops at the first step that finds a company.
//!
//! What a loosened search finds is never the row's company: it is offered as candidates for
//! a person to accept or reject (`ratewatch review`), with what was left out to find them.

use crate::model::{Candidate, NameQuery};
use crate::text::normalize_name;

/// One step of loosening: the search, and what it leaves out of the row's own, as a
/// person reads it ("the postcode 75146 and the street 12 Rue du Port").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relaxed {
    pub query: NameQuery,
    pub without: String,
}

/// Legal forms as the words of a name spell them, after [`normalize_name`] (case, accents
/// and dots folded away: "S.A.R.L." is `sarl`), longest first where one holds another.
/// A word here is left out only in the last step, whose finds are candidates.
const LEGAL_FORMS: &[&[&str]] = &[
    // France, Belgium, Luxembourg, Switzerland.
    &["societe", "par", "actions", "simplifiee", "unipersonnelle"],
    &["societe", "par", "actions", "simplifiee"],
    &["societe", "a", "responsabilite", "limitee"],
    &[
        "entreprise",
        "unipersonnelle",
        "a",
        "responsabilite",
        "limitee",
    ],
    &["societe", "en", "nom", "collectif"],
    &["societe", "anonyme"],
    &["societe", "civile", "immobiliere"],
    &["sarl"],
    &["sas"],
    &["sasu"],
    &["sa"],
    &["eurl"],
    &["snc"],
    &["sca"],
    &["scs"],
    &["sci"],
    &["scop"],
    &["selarl"],
    &["gie"],
    &["sprl"],
    &["scrl"],
    &["bvba"],
    &["secs"],
    // Germany, Austria.
    &["gmbh", "co", "kg"],
    &["gmbh"],
    &["ag"],
    &["kg"],
    &["ohg"],
    &["ug"],
    &["gbr"],
    &["kgaa"],
    &["ev"],
    // United Kingdom, Ireland, China.
    &["company", "limited"],
    &["co", "ltd"],
    &["ltd"],
    &["limited"],
    &["plc"],
    &["llp"],
    &["dac"],
    &["clg"],
    // Netherlands, Belgium.
    &["besloten", "vennootschap"],
    &["naamloze", "vennootschap"],
    &["bv"],
    &["nv"],
    &["vof"],
    &["cv"],
    // Spain.
    &["sociedad", "limitada"],
    &["sociedad", "anonima"],
    &["sl"],
    &["slu"],
    &["sau"],
    &["sll"],
    // Italy.
    &["societa", "per", "azioni"],
    &["societa", "a", "responsabilita", "limitata"],
    &["spa"],
    &["srl"],
    &["srls"],
    &["sapa"],
    // Elsewhere.
    &["inc"],
    &["corp"],
    &["llc"],
];

/// The steps that loosen `asked`, in order, each leaving out one more of: the postcode,
/// the phone number, the street (number and name), the city, the legal-form words of the
/// name. A step whose filter the row does not give is no step: a row with a name alone
/// and no legal form has none.
pub fn relaxations(asked: &NameQuery) -> Vec<Relaxed> {
    let given = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !normalize_name(v).is_empty())
            .map(str::to_string)
    };
    let mut query = asked.clone();
    let mut left_out: Vec<String> = Vec::new();
    let mut steps = Vec::new();
    let mut step = |query: &NameQuery, what: String, left_out: &mut Vec<String>| {
        left_out.push(what);
        steps.push(Relaxed {
            query: query.clone(),
            without: in_words(left_out),
        });
    };
    if let Some(postcode) = given(&asked.postcode) {
        query.postcode = None;
        step(&query, format!("the postcode {postcode}"), &mut left_out);
    }
    if let Some(phone) = given(&asked.phone_number) {
        query.phone_number = None;
        step(&query, format!("the phone number {phone}"), &mut left_out);
    }
    let street: Vec<String> = [&asked.street_number, &asked.street_name]
        .into_iter()
        .filter_map(given)
        .collect();
    if !street.is_empty() {
        query.street_number = None;
        query.street_name = None;
        step(
            &query,
            format!("the street {}", street.join(" ")),
            &mut left_out,
        );
    }
    if let Some(city) = given(&asked.city) {
        query.city = None;
        step(&query, format!("the city {city}"), &mut left_out);
    }
    if let Some((name, forms)) = without_legal_forms(&asked.name) {
        query.name = name;
        let what = match forms.len() {
            1 => format!("the legal form {}", forms[0]),
            _ => format!("the legal forms {}", forms.join(" ")),
        };
        step(&query, what, &mut left_out);
    }
    steps
}

/// How the error of a row starts whose candidates a loosened search found: its own search
/// found no company, and what was found needs a person.
pub const RELAXED: &str = "no company matches as written";

/// What a loosened search found, as the row offers it: each candidate saying what was left
/// out to find it, and the row's error (`no company matches as written: 1 candidate found
/// without the postcode 75146; …`).
pub fn offer(mut found: Vec<Candidate>, without: &str) -> (Vec<Candidate>, String) {
    for c in &mut found {
        c.found_without = Some(without.to_string());
    }
    let error = format!(
        "{RELAXED}: {} found without {without}; confirm with `ratewatch review accept`, or reject",
        match found.len() {
            1 => "1 candidate".to_string(),
            n => format!("{n} candidates"),
        }
    );
    (found, error)
}

/// "a", "a and b", "a, b and c".
fn in_words(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The name without its legal-form words, as written otherwise ("LOPEZ MOTORS & FILS,
/// S.A." is "LOPEZ MOTORS & FILS"), and those words as written; `None` when it has none,
/// or nothing else.
pub fn without_legal_forms(name: &str) -> Option<(String, Vec<String>)> {
    let words: Vec<&str> = name.split_whitespace().collect();
    // Each word's normalized tokens ("GmbH&Co.KG" is three), with the word they are of.
    let tokens: Vec<(usize, String)> = words
        .iter()
        .enumerate()
        .flat_map(|(i, w)| {
            normalize_name(w)
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(|t| (i, t.to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut in_form = vec![false; tokens.len()];
    let mut at = 0;
    while at < tokens.len() {
        let matched = LEGAL_FORMS
            .iter()
            .filter(|form| {
                tokens.len() - at >= form.len()
                    && form.iter().zip(&tokens[at..]).all(|(f, (_, t))| f == t)
            })
            .map(|form| form.len())
            .max();
        match matched {
            Some(n) => {
                in_form[at..at + n].fill(true);
                at += n;
            }
            None => at += 1,
        }
    }
    // A word goes when every token of it is a legal form's; a word of no token ("&")
    // between two that go goes with them.
    let of_word = |i: usize| {
        tokens
            .iter()
            .zip(&in_form)
            .filter(move |((w, _), _)| *w == i)
    };
    let goes_alone = |i: usize| {
        let mut t = of_word(i).peekable();
        t.peek().is_some() && t.all(|(_, gone)| *gone)
    };
    let has_tokens = |i: usize| of_word(i).next().is_some();
    let goes: Vec<bool> = (0..words.len())
        .map(|i| {
            goes_alone(i)
                || (!has_tokens(i)
                    && (0..i)
                        .rev()
                        .find(|&j| has_tokens(j))
                        .is_some_and(goes_alone)
                    && (i + 1..words.len())
                        .find(|&j| has_tokens(j))
                        .is_some_and(goes_alone))
        })
        .collect();
    let forms: Vec<String> = (0..words.len())
        .filter(|&i| goes[i] && has_tokens(i))
        .map(|i| {
            words[i]
                .trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')'))
                .to_string()
        })
        .collect();
    if forms.is_empty() {
        return None;
    }
    let mut kept: Vec<&str> = words
        .iter()
        .zip(&goes)
        .filter(|(_, gone)| !**gone)
        .map(|(w, _)| *w)
        .collect();
    // Nothing but punctuation at either end ("Acme &", "- Acme").
    while kept.first().is_some_and(|w| normalize_name(w).is_empty()) {
        kept.remove(0);
    }
    while kept.last().is_some_and(|w| normalize_name(w).is_empty()) {
        kept.pop();
    }
    let mut name = kept.join(" ");
    let trimmed = name.trim_end_matches([',', ';', '-', '(']).trim_end().len();
    name.truncate(trimmed);
    if normalize_name(&name).is_empty() {
        return None;
    }
    Some((name, forms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(name: &str) -> Option<(String, Vec<String>)> {
        without_legal_forms(name)
    }

    fn form(name: &str, forms: &[&str]) -> Option<(String, Vec<String>)> {
        Some((name.into(), forms.iter().map(|f| f.to_string()).collect()))
    }

    #[test]
    fn legal_forms_go_however_they_are_written_and_the_rest_stays_as_written() {
        assert_eq!(
            stripped("Martin Transports Nord SARL"),
            form("Martin Transports Nord", &["SARL"])
        );
        assert_eq!(
            stripped("LOPEZ MOTORS & FILS, S.A."),
            form("LOPEZ MOTORS & FILS", &["S.A."])
        );
        assert_eq!(
            stripped("Müller Bau GmbH & Co. KG"),
            form("Müller Bau", &["GmbH", "Co.", "KG"])
        );
        assert_eq!(
            stripped("Wang Trading Co. Ltd"),
            form("Wang Trading", &["Co.", "Ltd"])
        );
        assert_eq!(
            stripped("Société Anonyme des Eaux"),
            form("des Eaux", &["Société", "Anonyme"])
        );
        assert_eq!(
            stripped("SAS Dubois Conseil"),
            form("Dubois Conseil", &["SAS"])
        );
        // "& Cie", "& Fils" are the name's own words; "Co" alone may be too.
        assert_eq!(stripped("Dubois & Cie"), None);
        assert_eq!(stripped("Smith & Co"), None);
        assert_eq!(stripped("Sasha Conseil"), None, "a word, not a prefix");
        assert_eq!(stripped("SARL"), None, "nothing else to search");
        assert_eq!(stripped(""), None);
    }

    fn query() -> NameQuery {
        NameQuery {
            country: "FR".into(),
            name: "Martin Transports Nord SARL".into(),
            street_number: Some("12".into()),
            street_name: Some("Rue du Port".into()),
            city: Some("Paris".into()),
            postcode: Some("75146".into()),
            phone_number: None,
        }
    }

    #[test]
    fn each_step_leaves_out_one_more_filter_and_says_all_it_left_out() {
        let steps = relaxations(&query());
        let without: Vec<&str> = steps.iter().map(|s| s.without.as_str()).collect();
        assert_eq!(
            without,
            [
                "the postcode 75146",
                "the postcode 75146 and the street 12 Rue du Port",
                "the postcode 75146, the street 12 Rue du Port and the city Paris",
                "the postcode 75146, the street 12 Rue du Port, the city Paris and the legal form SARL",
            ]
        );
        assert_eq!(steps[0].query.postcode, None);
        assert_eq!(steps[0].query.city.as_deref(), Some("Paris"));
        assert_eq!(steps[1].query.street_name, None);
        assert_eq!(steps[1].query.street_number, None);
        assert_eq!(steps[2].query.city, None);
        let last = &steps[3].query;
        assert_eq!(last.name, "Martin Transports Nord");
        assert_eq!(
            (last.country.as_str(), &last.postcode, &last.city),
            ("FR", &None, &None)
        );

        // Only the filters given make steps; blank ones are none.
        let bare = NameQuery {
            country: "FR".into(),
            name: "Martin Transports Nord".into(),
            city: Some("  ".into()),
            ..NameQuery::default()
        };
        assert!(relaxations(&bare).is_empty());
        let phoned = NameQuery {
            phone_number: Some("+33 1 23 45 67 89".into()),
            ..bare
        };
        assert_eq!(
            relaxations(&phoned)
                .iter()
                .map(|s| s.without.as_str())
                .collect::<Vec<_>>(),
            ["the phone number +33 1 23 45 67 89"]
        );
    }
}
