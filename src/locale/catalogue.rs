//! The messages people read, from the Fluent catalogues of `locales/` (compiled in): one
//! bundle per language, English the fallback of the others message by message, so a
//! message not yet translated is said in English, never as its id.
//!
//! Fluent leaves the plural forms to the translator (`1 alerte`, `3 alertes`, `0 alerte`
//! as French counts). A number given to a message is written as the reader writes numbers
//! ([`Locale::count`]); Unicode isolation marks are left out: the texts are read in
//! terminals, mails and chat, where they would show as stray characters.

use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::memoizer::MemoizerKind;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

use super::Locale;

/// A language's catalogue: the files of its folder in `locales/`, one per kind of output,
/// read as one.
macro_rules! catalogue {
    ($language:literal) => {
        concat!(
            include_str!(concat!("../../locales/", $language, "/messages.ftl")),
            "\n",
            include_str!(concat!("../../locales/", $language, "/pages.ftl")),
            "\n",
            include_str!(concat!("../../locales/", $language, "/terminal.ftl")),
        )
    };
}

/// Each language's catalogue, as written.
pub(super) fn source(locale: Locale) -> &'static str {
    match locale {
        Locale::En => catalogue!("en"),
        Locale::Fr => catalogue!("fr"),
        Locale::De => catalogue!("de"),
    }
}

type Bundle = FluentBundle<FluentResource>;

/// A language's bundle from its catalogue's text. A catalogue that does not parse is a
/// mistake of ratewatch's own, which the tests find first.
pub(super) fn bundle(locale: Locale, text: &str) -> Bundle {
    let resource = FluentResource::try_new(text.to_string())
        .unwrap_or_else(|(_, errors)| panic!("locales/{locale}/: {errors:?}"));
    let language = locale.code().parse().expect("a language code");
    let mut bundle = FluentBundle::new_concurrent(vec![language]);
    bundle.set_use_isolating(false);
    bundle.set_formatter(Some(match locale {
        Locale::En => count::<{ Locale::En as u8 }, _>,
        Locale::Fr => count::<{ Locale::Fr as u8 }, _>,
        Locale::De => count::<{ Locale::De as u8 }, _>,
    }));
    if let Err(errors) = bundle.add_resource(resource) {
        panic!("locales/{locale}/: {errors:?}");
    }
    bundle
}

/// Fluent's formatter of the language `L`: a number as the reader writes it.
fn count<const L: u8, M: MemoizerKind>(value: &FluentValue, _: &M) -> Option<String> {
    let locale = Locale::ALL.into_iter().find(|l| *l as u8 == L)?;
    match value {
        FluentValue::Number(n) => Some(locale.number(n.value)),
        _ => None,
    }
}

fn bundles() -> &'static [Bundle; 3] {
    static BUNDLES: OnceLock<[Bundle; 3]> = OnceLock::new();
    BUNDLES.get_or_init(|| Locale::ALL.map(|l| bundle(l, source(l))))
}

/// A message's text in a bundle, if the bundle has it and it formats without an error (a
/// missing argument would show as `{$name}`).
pub(super) fn format(bundle: &Bundle, id: &str, args: &FluentArgs) -> Option<String> {
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(args), &mut errors);
    errors.is_empty().then(|| text.into_owned())
}

/// A value given to a message: a text, or a number that may choose a plural form.
pub type Arg<'a> = FluentValue<'a>;

impl Locale {
    /// The message `id` in this language, else in English. A message English lacks is a
    /// mistake of ratewatch's own: said in the log, and shown as nothing rather than as an
    /// id no reader understands.
    pub fn text(self, id: &str, args: &[(&str, Arg)]) -> String {
        let args: FluentArgs = args.iter().map(|(k, v)| (*k, v.clone())).collect();
        let [english, ..] = bundles();
        let own = &bundles()[Locale::ALL.iter().position(|l| *l == self).unwrap_or(0)];
        format(own, id, &args)
            .or_else(|| format(english, id, &args))
            .unwrap_or_else(|| {
                tracing::error!(message = id, "a message has no text in any catalogue");
                String::new()
            })
    }

    /// A message without arguments.
    pub fn word(self, id: &str) -> String {
        self.text(id, &[])
    }
}

#[cfg(test)]
mod tests {
    use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};

    use super::*;

    /// Every message id of a catalogue, with the variables it takes.
    fn messages(locale: Locale) -> Vec<(String, Vec<String>)> {
        fn variables(pattern: &Pattern<&str>, out: &mut Vec<String>) {
            for element in &pattern.elements {
                if let PatternElement::Placeable { expression } = element {
                    expression_variables(expression, out);
                }
            }
        }
        fn inline(e: &InlineExpression<&str>, out: &mut Vec<String>) {
            match e {
                InlineExpression::VariableReference { id } => out.push(id.name.to_string()),
                InlineExpression::Placeable { expression } => expression_variables(expression, out),
                _ => {}
            }
        }
        fn expression_variables(e: &Expression<&str>, out: &mut Vec<String>) {
            match e {
                Expression::Inline(i) => inline(i, out),
                Expression::Select { selector, variants } => {
                    inline(selector, out);
                    for v in variants {
                        variables(&v.value, out);
                    }
                }
            }
        }
        let resource = fluent_syntax::parser::parse(source(locale)).expect("parses");
        resource
            .body
            .iter()
            .filter_map(|entry| match entry {
                Entry::Message(m) => {
                    let mut vars = Vec::new();
                    if let Some(p) = &m.value {
                        variables(p, &mut vars);
                    }
                    vars.sort();
                    vars.dedup();
                    Some((m.id.name.to_string(), vars))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_message_of_every_catalogue_renders_with_its_arguments() {
        for locale in Locale::ALL {
            let own = bundle(locale, source(locale));
            let found = messages(locale);
            assert!(found.len() > 20, "{locale}: {} messages", found.len());
            for (id, vars) in found {
                // Each count that chooses a form, in each form; a text for the others.
                for sample in [0.0, 1.0, 3.0, 1_204_000.0] {
                    let args: FluentArgs = vars
                        .iter()
                        .map(|v| match v.as_str() {
                            "time" => (v.as_str(), FluentValue::from("27/11/2026 02:00 CET")),
                            _ => (v.as_str(), FluentValue::from(sample)),
                        })
                        .collect();
                    let text = format(&own, &id, &args)
                        .unwrap_or_else(|| panic!("{locale}: {id} does not render"));
                    assert!(!text.trim().is_empty(), "{locale}: {id} is empty");
                    for shown in ["{", "}", "$"] {
                        assert!(
                            !text.contains(shown),
                            "{locale}: {id} shows {shown:?}: {text}"
                        );
                    }
                    // An id with a hyphen is no word of any language: never shown.
                    assert!(
                        !(id.contains('-') && text.contains(&id)),
                        "{locale}: {id} shows its id: {text}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_catalogue_has_every_message_english_has_with_its_arguments() {
        let english = messages(Locale::En);
        for locale in [Locale::Fr, Locale::De] {
            let own = messages(locale);
            let missing: Vec<&str> = english
                .iter()
                .filter(|m| !own.contains(m))
                .map(|(id, _)| id.as_str())
                .collect();
            assert!(
                missing.is_empty(),
                "locales/{locale}/ lacks or changes {missing:?}"
            );
            let extra: Vec<&str> = own
                .iter()
                .filter(|m| !english.iter().any(|(id, _)| *id == m.0))
                .map(|(id, _)| id.as_str())
                .collect();
            assert!(
                extra.is_empty(),
                "locales/{locale}/ has {extra:?}, which locales/en/ lacks"
            );
        }
    }

    #[test]
    fn a_message_a_catalogue_lacks_is_said_in_english() {
        // The French bundle without one of its messages: the text comes from English.
        let partial = source(Locale::Fr).replace("color-red = rouge\n", "");
        let french = bundle(Locale::Fr, &partial);
        let args = FluentArgs::new();
        assert_eq!(format(&french, "color-red", &args), None);
        assert_eq!(
            format(&french, "color-green", &args).as_deref(),
            Some("vert")
        );
        assert_eq!(Locale::Fr.word("color-red"), "rouge");
        // A message no catalogue has shows nothing, never its id.
        assert_eq!(Locale::Fr.word("no-such-message"), "");
    }

    #[test]
    fn counts_take_the_language_s_plural_and_way_of_writing_numbers() {
        let alerts = |l: Locale, n: u64| l.text("alerts", &[("count", n.into())]);
        assert_eq!(alerts(Locale::En, 1), "1 alert");
        assert_eq!(alerts(Locale::En, 3), "3 alerts");
        assert_eq!(alerts(Locale::En, 0), "0 alerts");
        assert_eq!(alerts(Locale::En, 2412), "2412 alerts");
        assert_eq!(alerts(Locale::Fr, 1), "1 alerte");
        assert_eq!(alerts(Locale::Fr, 3), "3 alertes");
        // French counts nothing in the singular.
        assert_eq!(alerts(Locale::Fr, 0), "0 alerte");
        assert_eq!(alerts(Locale::Fr, 2412), "2\u{202f}412 alertes");
        assert_eq!(alerts(Locale::De, 1), "1 Warnung");
        assert_eq!(alerts(Locale::De, 2412), "2.412 Warnungen");
        assert_eq!(Locale::De.word("color-white"), "weiß");
        assert_eq!(
            Locale::Fr.text("run-started", &[("time", "27/11/2026 02:00 CET".into())]),
            "commencé le 27/11/2026 02:00 CET"
        );
    }
}
