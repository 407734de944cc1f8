//! Text made safe and laid out for whoever reads it, one place for the whole program:
//! aligned tables for people, text that cannot rewrite a terminal or reorder what a person
//! reads (no control character, no bidirectional override), text from outside kept to a
//! sane length, cells a spreadsheet will not run as formulas; and names folded so that
//! two spellings of one company compare equal.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Case, accents, punctuation and repeated spaces folded away: "Société Générale S.A." and
/// "SOCIETE GENERALE SA" compare equal. Dots join letters (S.A. → sa); other punctuation
/// separates words.
pub fn normalize_name(s: &str) -> String {
    // ASCII has nothing to decompose and no combining marks: most names skip the tables.
    if s.is_ascii() {
        fold_name(s.chars(), s.len())
    } else {
        fold_name(without_accents(s), s.len())
    }
}

/// The characters of `s` with accents taken apart and dropped (NFKD, then no combining
/// marks): "Société" gives "Societe".
fn without_accents(s: &str) -> impl Iterator<Item = char> + '_ {
    s.nfkd().filter(|c| !is_combining_mark(*c))
}

/// [`normalize_name`] of a name's characters, accents already taken apart and dropped.
fn fold_name(chars: impl Iterator<Item = char>, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut space = false;
    for ch in chars {
        let folded: &str = match ch {
            'ß' => "ss",
            'æ' | 'Æ' => "ae",
            'œ' | 'Œ' => "oe",
            'ø' | 'Ø' => "o",
            'ł' | 'Ł' => "l",
            'đ' | 'Đ' => "d",
            'þ' | 'Þ' => "th",
            '.' | '\'' | '’' => continue,
            c if c.is_alphanumeric() => {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                out.extend(c.to_lowercase());
                continue;
            }
            _ => {
                space = true;
                continue;
            }
        };
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push_str(folded);
    }
    out
}

/// Text from the portfolio or the service, safe for a terminal, a mail, a report or a
/// receiver: control characters (an escape sequence could rewrite the screen, hide what
/// follows or set the window's title) and line or paragraph separators become spaces, and
/// the characters that reorder or hide text without showing themselves ([`is_hidden`]) are
/// removed. Everything else, accents and every script included, stays as it is.
pub fn printable(s: &str) -> String {
    if s.chars().all(|c| !needs_cleaning(c)) {
        return s.to_string();
    }
    s.chars()
        .filter(|c| !is_hidden(*c))
        .map(|c| if breaks(c) { ' ' } else { c })
        .collect()
}

/// [`printable`] in place, without copying a text that needs nothing.
pub fn make_printable(s: &mut String) {
    if s.chars().any(needs_cleaning) {
        *s = printable(s);
    }
}

/// [`printable`] for a whole text of several lines (what a command prints): its line
/// breaks (`\n`, `\r\n`) and tabs stay, any other control character becomes a space and
/// hidden characters go. A lone `\r` would let a line overwrite itself: it becomes a space.
pub fn printable_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => out.push(c),
            c if is_hidden(c) => {}
            c if breaks(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Characters that change how the text around them is laid out, or hide text, without
/// showing themselves: the bidirectional marks, embeddings, overrides and isolates
/// (U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069: after U+202E, RIGHT-TO-LEFT
/// OVERRIDE, `fdp.exe` reads `exe.pdf`), the deprecated format controls that change
/// shaping and digits (U+206A–U+206F), the interlinear annotation controls that make
/// text vanish (U+FFF9–U+FFFB) and the tag characters that carry invisible text
/// (U+E0000–U+E007F). Invisible characters that move nothing stay: the joiners that
/// Persian, Indic scripts and emoji need, the zero-width space, a byte order mark.
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// A character that breaks or controls the line: C0 and C1 controls (escape, CSI, bell,
/// newline, carriage return…) and the Unicode line and paragraph separators.
fn breaks(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// A character [`printable`] changes: a control character, a line or paragraph separator,
/// or one that [`is_hidden`].
pub fn needs_cleaning(c: char) -> bool {
    breaks(c) || is_hidden(c)
}

/// At most `max` characters: a longer text is cut, its last kept character replaced by `…`
/// so the cut shows.
pub fn clip(s: &str, max: usize) -> String {
    // Bytes bound characters: most texts are short and need no count.
    if s.len() <= max || s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Text received from outside (the service's names and addresses, its error messages),
/// [`printable`] and [`clip`]ped to `max` characters, as ratewatch keeps it.
pub fn received(s: &str, max: usize) -> String {
    clip(&printable(s), max)
}

/// Every string of a JSON value (object keys included) made [`printable`]: serde escapes
/// control characters in JSON, but a reader decoding it gets them back, and bidirectional
/// controls it writes as they are.
pub fn printable_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => make_printable(s),
        Value::Array(items) => items.iter_mut().for_each(printable_json),
        Value::Object(map) => {
            if map.keys().any(|k| k.chars().any(needs_cleaning)) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (printable(&k), v))
                    .collect();
            }
            map.values_mut().for_each(printable_json);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A count with its noun: `1 row`, `2 rows`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A count with its thousands set apart: `2,412`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// Text for a cell of a spreadsheet: a leading `=`, `+`, `-`, `@`, tab or CR would make
/// Excel or LibreOffice evaluate the cell as a formula, so such cells get a `'` first.
pub fn defuse(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}").into(),
        _ => cell.into(),
    }
}

/// Edits between two strings (Levenshtein), for suggestions.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Renders a header and rows as aligned text, one line each, ending in a newline: columns
/// padded to their widest cell (by characters, so accented names line up), two spaces
/// apart.
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            text.push_str(cell);
            let pad = widths
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(cell.chars().count());
            text.extend(std::iter::repeat_n(' ', pad));
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut headers.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

/// How much of a URL's path [`redacted_url`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlPath {
    /// All of it: the service's root, whose path holds no secret.
    Whole,
    /// None of it, nor the user or the query: `scheme://host[:port]/…`. A webhook (Slack,
    /// Teams) keeps its secret in the path, and a secret in a path cannot be told apart.
    Hidden,
}

/// A URL as ratewatch shows it, anywhere (`config`, errors, warnings): scheme, host and
/// port, the path as `path` says, and `***` for what may be a secret: the user and
/// password (`https://***@host/`), each query value (`?token=***`), the fragment; with
/// [`UrlPath::Hidden`], `/…` for everything after the port. Text that is not a URL is
/// shown as its scheme at most: where a secret sits in it is unknown.
pub fn redacted_url(raw: &str, path: UrlPath) -> String {
    let Ok(url) = url::Url::parse(raw.trim()) else {
        return match raw.trim().split_once("://") {
            Some((scheme, _)) if scheme.chars().all(|c| c.is_ascii_alphanumeric()) => {
                format!("{scheme}://…")
            }
            _ => "…".to_string(),
        };
    };
    let Some(host) = url.host_str() else {
        return format!("{}:…", url.scheme());
    };
    let mut shown = format!("{}://", url.scheme());
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    if path == UrlPath::Hidden {
        let bare = url.path() == "/" && url.query().is_none() && url.fragment().is_none();
        let bare = bare && url.username().is_empty() && url.password().is_none();
        let rest = if bare { "/" } else { "/…" };
        return format!("{shown}{host}{port}{rest}");
    }
    if !url.username().is_empty() || url.password().is_some() {
        shown.push_str("***@");
    }
    shown.push_str(host);
    shown.push_str(&port);
    shown.push_str(url.path());
    if let Some(query) = url.query() {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=***"),
                None => "***".to_string(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&pairs.join("&"));
    }
    if url.fragment().is_some() {
        shown.push_str("#***");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::defuse;
    use super::{UrlPath, normalize_name, redacted_url, thousands};

    /// A name in ASCII skips the decomposition: every ASCII character must come out of it
    /// as it went in, so that both ways fold alike.
    #[test]
    fn ascii_comes_out_of_the_decomposition_as_it_went_in() {
        let every_ascii: String = (0u8..=127).map(char::from).collect();
        assert!(super::without_accents(&every_ascii).eq(every_ascii.chars()));
        assert!(
            !super::without_accents("é").eq("é".chars()),
            "the long way is taken"
        );
    }

    #[test]
    fn names_normalize_across_case_accents_punctuation_and_spaces() {
        assert_eq!(
            normalize_name("  Société   Générale S.A. "),
            "societe generale sa"
        );
        assert_eq!(normalize_name("SOCIETE-GENERALE SA"), "societe generale sa");
        assert_eq!(normalize_name("Müller & Söhne GmbH"), "muller sohne gmbh");
        assert_eq!(normalize_name("Straße l'Étoile"), "strasse letoile");
        assert_eq!(normalize_name("Ørsted A/S"), "orsted a s");
    }

    #[test]
    fn counts_set_their_thousands_apart() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(288), "288");
        assert_eq!(thousands(2412), "2,412");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn a_url_is_shown_without_its_credentials_query_values_or_fragment() {
        let whole = |raw| redacted_url(raw, UrlPath::Whole);
        assert_eq!(
            whole("https://user:s3cr3t@api.example:8443/rating/v2?key=k3y&debug#frag"),
            "https://***@api.example:8443/rating/v2?key=***&***#***"
        );
        assert_eq!(whole("https://u@api.example"), "https://***@api.example/");
        assert_eq!(whole(" http://127.0.0.1:8080/ "), "http://127.0.0.1:8080/");
        assert_eq!(whole("http://[::1]:9/x"), "http://[::1]:9/x");
        // Not a URL: where a secret sits in it is unknown, so nothing of it is shown.
        assert_eq!(whole("https://u:p#ss@host/"), "https://…");
        assert_eq!(whole("u:s3cr3t@host/path"), "u:…");
        assert_eq!(whole("no url at all"), "…");
        assert_eq!(whole("mailto:someone@example.com"), "mailto:…");
    }

    #[test]
    fn a_webhook_shows_its_scheme_host_and_port_only() {
        let hook = |raw| redacted_url(raw, UrlPath::Hidden);
        assert_eq!(
            hook("https://hooks.slack.com/services/T000/B000/XXXXXXXX"),
            "https://hooks.slack.com/…"
        );
        assert_eq!(
            hook("https://u:p@outlook.office.com:8443/webhook/abc@def/IncomingWebhook/x/y?s=1"),
            "https://outlook.office.com:8443/…"
        );
        assert_eq!(
            hook("https://hooks.example/?token=t"),
            "https://hooks.example/…"
        );
        assert_eq!(hook("http://[::1]:9000/in"), "http://[::1]:9000/…");
        assert_eq!(hook("https://hooks.example"), "https://hooks.example/");
        assert_eq!(hook("mailto:someone@example.com"), "mailto:…");
    }

    #[test]
    fn columns_line_up_by_characters() {
        let t = super::render(
            &["CODE", "NAME"],
            &[
                vec!["DE".into(), "Müller".into()],
                vec!["FRA".into(), "x".into()],
            ],
        );
        assert_eq!(t, "CODE  NAME\nDE    Müller\nFRA   x\n");
    }

    #[test]
    fn control_characters_become_spaces_and_bidirectional_controls_go() {
        use super::printable;
        assert_eq!(printable("Evil\u{1b}[2JCorp"), "Evil [2JCorp");
        assert_eq!(printable("\u{1b}[8m"), " [8m");
        assert_eq!(printable("a\u{9b}31mb\u{7}c\nd\re\tf"), "a 31mb c d e f");
        assert_eq!(printable("line\u{2028}para\u{2029}end"), "line para end");
        // After U+202E, "invoice" then "fdp.exe" would show as "invoiceexe.pdf".
        assert_eq!(printable("invoice\u{202e}fdp.exe"), "invoicefdp.exe");
        for c in [
            '\u{061c}',
            '\u{200e}',
            '\u{200f}',
            '\u{202a}',
            '\u{202b}',
            '\u{202c}',
            '\u{202d}',
            '\u{202e}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{206a}',
            '\u{fff9}',
            '\u{e0041}',
        ] {
            assert_eq!(printable(&format!("a{c}b")), "ab", "U+{:04X}", c as u32);
        }
        // Every script and its joiners stay: they reorder nothing.
        for kept in [
            "Müller & Söhne",
            "شركة",
            "מסחר בע\"מ",
            "می\u{200c}خواهم",
            "👩\u{200d}💻",
        ] {
            assert_eq!(printable(kept), kept);
        }
    }

    #[test]
    fn a_whole_text_keeps_its_lines_and_loses_the_rest() {
        use super::printable_text;
        assert_eq!(
            printable_text("a\tb\nc\r\nd\u{1b}[2J\re\u{2067}f\n"),
            "a\tb\nc\r\nd [2J ef\n"
        );
        let csv = "\u{feff}ref;name\r\n1;x\r\n";
        assert_eq!(printable_text(csv), csv, "an Excel CSV as it is");
    }

    #[test]
    fn received_text_is_printable_and_bounded() {
        use super::{clip, received};
        assert_eq!(clip("Acme", 4), "Acme");
        assert_eq!(clip("Acme SA", 4), "Acm…");
        assert_eq!(clip("Société", 7), "Société", "characters, not bytes");
        let huge = "x".repeat(100_000);
        assert_eq!(received(&huge, 300).chars().count(), 300);
        assert!(received(&huge, 300).ends_with('…'));
        assert_eq!(received("A\u{1b}[2J\u{202e}B", 300), "A [2JB");
    }

    #[test]
    fn every_string_of_a_json_value_is_printable_keys_included() {
        let mut v = serde_json::json!({
            "a\u{202e}b": ["x\u{1b}[8m", 1, null, {"k": "y\u{2066}z"}],
            "n": 2,
        });
        super::printable_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"ab": ["x [8m", 1, null, {"k": "yz"}], "n": 2})
        );
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["ab", "n"], "in their order");
    }

    #[test]
    fn formula_cells_are_defused() {
        assert_eq!(defuse("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(defuse("-1"), "'-1");
        assert_eq!(defuse("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(defuse("Acme"), "Acme");
    }
}
