//! Text on a page: every value a template shows goes through [`PageEscaper`], the same text
//! rule as the command line's ([`crate::text::printable`]: no control character, no
//! bidirectional override or other hidden character) and then HTML's escaping. A ref, a
//! name, a carried column, a note or a search reaches no page raw, whatever the portfolio
//! or a person typed.

use std::fmt;

use askama::filters::{Escaper, Safe};

use crate::report::html::escape;
use crate::text::{needs_cleaning, printable};

/// The escaper of every value of the pages: askama.toml names it for `escape = "page"`,
/// which every template of `views.rs` says.
#[derive(Debug, Clone, Copy)]
pub struct PageEscaper;

impl Escaper for PageEscaper {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, text: &str) -> fmt::Result {
        dest.write_str(&escape(&printable(text)))
    }
}

/// A value a form sends back to the server as it was read (a row's ref, which names the
/// row in the database): escaped, and each character [`printable`] would change written
/// as a character reference (`&#x202E;`), which the browser decodes into the form's value
/// and never shows. (HTML itself changes a few on the way: NUL, CR and the C1 controls.)
pub fn form_value(text: &str) -> Safe<String> {
    let mut out = String::with_capacity(text.len());
    let mut plain = [0u8; 4];
    for c in text.chars() {
        if needs_cleaning(c) {
            out.push_str(&format!("&#x{:X};", u32::from(c)));
        } else {
            out.push_str(&escape(c.encode_utf8(&mut plain)));
        }
    }
    Safe(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        let mut out = String::new();
        PageEscaper.write_escaped_str(&mut out, text).unwrap();
        out
    }

    #[test]
    fn a_value_on_a_page_has_no_control_or_hidden_character_and_no_markup() {
        assert_eq!(shown("invoice\u{202e}fdp.exe"), "invoicefdp.exe");
        assert_eq!(shown("Evil\u{1b}[2JCorp"), "Evil [2JCorp");
        assert_eq!(
            shown("<b>\"x\" & 'y'</b>"),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"
        );
        assert_eq!(shown("Müller & Söhne"), "Müller &amp; Söhne");
    }

    #[test]
    fn a_form_value_keeps_its_characters_as_references() {
        assert_eq!(
            form_value("C-1\u{202e}<x>\u{1b}").0,
            "C-1&#x202E;&lt;x&gt;&#x1B;"
        );
        assert_eq!(form_value("Société \"A\"").0, "Société &quot;A&quot;");
    }

    /// Every page's template escapes with [`PageEscaper`]: a template without
    /// `escape = "page"` would show text raw.
    #[test]
    fn every_template_of_the_pages_escapes_as_a_page() {
        let views = include_str!("views.rs");
        let templates: Vec<&str> = views
            .lines()
            .filter(|l| l.trim_start().starts_with("#[template("))
            .collect();
        assert!(templates.len() >= 8, "{templates:?}");
        for template in templates {
            assert!(template.contains("escape = \"page\""), "{template}");
        }
    }
}
