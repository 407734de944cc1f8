//! How the reading commands print what they found: an aligned table for people, JSON or
//! CSV for scripts. Works on plain rows of text; never touches the database.

use serde::Serialize;

use crate::error::Error;
use crate::report::csv::Dialect;
use crate::settings::cli::ListingArgs;
use crate::text::{self, printable};

/// The form asked for on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Table,
    Json,
    Csv,
}

impl Style {
    pub fn of(args: &ListingArgs) -> Style {
        if args.json {
            Style::Json
        } else if args.csv {
            Style::Csv
        } else {
            Style::Table
        }
    }
}

/// An aligned table. Text from portfolios or the service is made safe for a terminal
/// ([`printable`]): a control character (an escape sequence could rewrite the screen)
/// becomes a space, a bidirectional override goes. Headers too: some name what the
/// database holds (a color's column in `runs`).
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let headers: Vec<String> = headers.iter().map(|h| printable(h)).collect();
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| printable(cell)).collect())
        .collect();
    text::render(&headers, &rows)
}

/// Columns of the listings holding the user's references, which Excel would turn into
/// numbers or dates: kept as text in its dialect, as report.csv's `ref`.
const IDENTIFIER_COLUMNS: [&str; 2] = ["ref", "refs"];

/// CSV with a header line, in the standard dialect. Cells that a spreadsheet would run as
/// formulas are defused, as in report.csv.
pub fn csv(headers: &[&str], rows: &[Vec<String>]) -> Result<String, Error> {
    csv_in(Dialect::Standard, headers, rows)
}

/// CSV with a header line in `dialect`, spelled as report.csv is (see
/// [`Dialect::writer`]), every cell and header [`printable`] as report.csv's are.
pub fn csv_in(dialect: Dialect, headers: &[&str], rows: &[Vec<String>]) -> Result<String, Error> {
    let mut out = dialect.writer(Vec::new());
    let failed = |e: ::csv::Error| Error::io("cannot format CSV", e.into());
    out.write_record(dialect.header(headers.iter().map(|h| printable(h)).collect()))
        .map_err(failed)?;
    let identifiers: Vec<bool> = headers
        .iter()
        .map(|h| IDENTIFIER_COLUMNS.contains(h))
        .collect();
    for row in rows {
        out.write_record(row.iter().enumerate().map(|(i, cell)| {
            let identifier = identifiers.get(i).copied().unwrap_or(false);
            dialect.cell(&printable(cell), identifier)
        }))
        .map_err(failed)?;
    }
    let bytes = out
        .into_inner()
        .map_err(|e| Error::io("cannot format CSV", e.into_error()))?;
    String::from_utf8(bytes).map_err(|e| {
        Error::io(
            "cannot format CSV",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// Pretty JSON ending in a newline, every string [`printable`] (see
/// [`text::printable_json`]).
pub fn json<T: Serialize>(value: &T) -> Result<String, Error> {
    let failed = |e: serde_json::Error| Error::io("cannot format JSON", e.into());
    let mut value = serde_json::to_value(value).map_err(failed)?;
    text::printable_json(&mut value);
    serde_json::to_string_pretty(&value)
        .map(|s| s + "\n")
        .map_err(failed)
}

/// Text for an optional value: empty when absent.
pub fn or_empty(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_defuses_cells() {
        let text = csv(
            &["name", "ref"],
            &[vec!["Müller, Söhne".into(), "=1+1".into()]],
        )
        .unwrap();
        assert_eq!(text, "name,ref\n\"Müller, Söhne\",'=1+1\n");
    }

    #[test]
    fn excel_csv_is_report_csvs_excel_dialect() {
        let text = csv_in(
            Dialect::Excel,
            &["refs", "name"],
            &[vec!["00123; 0456".into(), "Müller, Söhne".into()]],
        )
        .unwrap();
        assert_eq!(
            text,
            "\u{feff}refs;name\r\n\"=\"\"00123; 0456\"\"\";Müller, Söhne\r\n"
        );
    }

    #[test]
    fn tables_never_carry_control_characters() {
        let text = table(&["NAME"], &[vec!["Evil\u{1b}[2JCorp".into()]]);
        assert_eq!(text, "NAME\nEvil [2JCorp\n");
    }

    #[test]
    fn tables_csv_and_json_never_carry_bidirectional_overrides_headers_included() {
        let evil = "Acme\u{202e}gnp.exe\u{2066}\u{1b}[8m";
        let text = table(&["NAME", evil], &[vec![evil.into(), "1".into()]]);
        assert_eq!(
            text,
            "NAME             Acmegnp.exe [8m\nAcmegnp.exe [8m  1\n"
        );
        let text = csv(&["name", evil], &[vec![evil.into(), "1".into()]]).unwrap();
        assert_eq!(text, "name,Acmegnp.exe [8m\nAcmegnp.exe [8m,1\n");
        let text = json(&serde_json::json!({ evil: [evil, 1] })).unwrap();
        assert!(!text.contains(['\u{202e}', '\u{2066}', '\u{1b}']), "{text}");
        assert!(!text.contains("\\u001b"), "{text}");
        assert!(text.contains("\"Acmegnp.exe [8m\": ["), "{text}");
    }
}
