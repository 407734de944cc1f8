//! Text made safe and laid out for whoever reads it, one place for the whole program:
//! aligned tables for people, text that cannot rewrite a terminal, cells a spreadsheet
//! will not run as formulas.

/// Text from the portfolio or the service, safe for a terminal or a mail: control
/// characters (an escape sequence could rewrite the screen) become spaces.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A count with its noun: `1 row`, `2 rows`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    /// Its first segment, then `…`: a webhook (Slack, Teams) keeps its secret in the path.
    FirstSegment,
}

/// A URL as ratewatch shows it, anywhere (`config`, errors, warnings): scheme, host and
/// port, the path as `path` says, and `***` for what may be a secret: the user and
/// password (`https://***@host/`), each query value (`?token=***`), the fragment. Text
/// that is not a URL is shown as its scheme at most: where a secret sits in it is unknown.
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
    if !url.username().is_empty() || url.password().is_some() {
        shown.push_str("***@");
    }
    shown.push_str(host);
    if let Some(port) = url.port() {
        shown.push_str(&format!(":{port}"));
    }
    match path {
        UrlPath::Whole => shown.push_str(url.path()),
        UrlPath::FirstSegment => {
            let mut segments = url.path().trim_start_matches('/').splitn(2, '/');
            shown.push('/');
            shown.push_str(segments.next().unwrap_or_default());
            if segments.next().is_some_and(|rest| !rest.is_empty()) {
                shown.push_str("/…");
            }
        }
    }
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
    use super::{UrlPath, redacted_url};

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
    fn a_webhook_shows_its_first_path_segment_only() {
        let hook = |raw| redacted_url(raw, UrlPath::FirstSegment);
        assert_eq!(
            hook("https://hooks.slack.com/services/T000/B000/XXXXXXXX"),
            "https://hooks.slack.com/services/…"
        );
        assert_eq!(
            hook("https://u:p@outlook.office.com/webhook/abc@def/IncomingWebhook/x/y?s=1"),
            "https://***@outlook.office.com/webhook/…?s=***"
        );
        assert_eq!(hook("https://hooks.example/in"), "https://hooks.example/in");
        assert_eq!(
            hook("https://hooks.example/in/"),
            "https://hooks.example/in"
        );
        assert_eq!(hook("https://hooks.example"), "https://hooks.example/");
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
    fn formula_cells_are_defused() {
        assert_eq!(defuse("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(defuse("-1"), "'-1");
        assert_eq!(defuse("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(defuse("Acme"), "Acme");
    }
}
