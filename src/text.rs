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

#[cfg(test)]
mod tests {
    use super::defuse;

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
