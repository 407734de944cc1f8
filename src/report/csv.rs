//! `report.csv`: one line per input row with the fields of report.json; candidates as
//! `uuid name; …`. Cells that a spreadsheet would run as formulas are defused.
//!
//! Two dialects: `standard` (RFC 4180: comma, LF, no BOM) for programs, and `excel` for a
//! spreadsheet set to a European locale (semicolon, UTF-8 BOM, CRLF), where identifiers are
//! written so that Excel keeps them as text: `ref`, `id`, the registry columns the file
//! carries (SIREN, SIRET, KVK, …) and any carried value Excel would mangle as a number (a
//! long digit string, leading zeros). This module writes; it never decides where.

use std::borrow::Cow;
use std::io;

use jiff::Timestamp;

use super::{Format, Output};
use crate::model::{ResultRow, RunInfo, time_text};
use crate::text::defuse;

/// The columns, in order. Columns added later go at the end, so that a program or a
/// spreadsheet macro reading by position keeps working.
pub const COLUMNS: [&str; 25] = [
    "line",
    "ref",
    "country",
    "service",
    "id",
    "name",
    "status",
    "company_id",
    "company_name",
    "color",
    "previous_color",
    "change",
    "last_change_date",
    "alert",
    "error",
    "candidates",
    "last_refresh_date",
    "stale",
    "alert_kind",
    "acknowledged",
    "country_defaulted",
    "extra_unreliable",
    "alert_listed",
    "found_by",
    // Since when the company held the row's color (`last_change_date` is the service's).
    "color_since",
];

/// Columns holding identifiers (the user's reference and the registry id), which Excel
/// would turn into numbers or dates (`00123` → 123, `1-2` → 2 January).
const IDENTIFIER_COLUMNS: [&str; 2] = ["ref", "id"];

/// Digits Excel shows whole in a cell of the General format: a longer number is shown in
/// scientific notation (a SIRET as `5,49367E+13`), and past 15 digits its last ones are lost.
const EXCEL_DIGITS_SHOWN: usize = 11;

/// Whether Excel would mangle this value of a carried column if it read it as a number: a
/// digit string longer than it shows whole, or with a leading zero it would drop
/// (`00123`, a phone `0612345678`, a postcode `01000`). Amounts (`12 345,67`) are left
/// numbers.
pub fn mangled_as_number(value: &str) -> bool {
    let digits = value.len();
    digits > 1
        && value.bytes().all(|b| b.is_ascii_digit())
        && (digits > EXCEL_DIGITS_SHOWN || value.starts_with('0'))
}

/// Whether a carried column holds identifiers by its header: a registry's code (`SIRET`,
/// `KVK`), as the portfolio's identifier columns are carried.
fn identifier_header(header: &str) -> bool {
    crate::identifiers::SERVICE_COLUMNS
        .iter()
        .any(|code| code.eq_ignore_ascii_case(header.trim()))
}

/// Excel's longest string literal in a formula; a longer identifier is written as plain text.
const EXCEL_LITERAL_MAX: usize = 255;

/// How the CSV is spelled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Comma, LF line ends, no BOM: what programs and `csv` libraries expect.
    #[default]
    #[value(help = "Comma, LF, no BOM (RFC 4180)")]
    Standard,
    /// Semicolon, CRLF, UTF-8 BOM, identifiers as `="00123"`: what a French or German Excel
    /// opens by double-click with accents, columns, long numbers and leading zeros intact.
    #[value(
        help = "Semicolon, CRLF, UTF-8 BOM; identifiers (ref, id, SIREN, SIRET, KVK, …) and long or zero-led digit strings as =\"…\" so Excel keeps every digit"
    )]
    Excel,
}

impl Dialect {
    /// A CSV writer spelled in this dialect. Every CSV ratewatch writes (report.csv, the
    /// listings of `runs`, `history`, `changes`) goes through here, [`Dialect::header`]
    /// and [`Dialect::cell`].
    pub fn writer<W: io::Write>(self, out: W) -> ::csv::Writer<W> {
        let mut builder = ::csv::WriterBuilder::new();
        if self == Dialect::Excel {
            builder.delimiter(b';').terminator(::csv::Terminator::CRLF);
        }
        builder.from_writer(out)
    }

    /// The header line as written: in Excel's, the BOM opens the file: without it Excel
    /// reads UTF-8 as the local code page (`LÃ³pez`). It needs no quoting, so it can ride
    /// on the first column's name.
    pub fn header(self, mut names: Vec<String>) -> Vec<String> {
        if self == Dialect::Excel
            && let Some(first) = names.first_mut()
        {
            first.insert(0, '\u{feff}');
        }
        names
    }

    /// A cell as written: defused, and in Excel's an identifier (which Excel would turn
    /// into a number or a date) as a text formula, see [`excel_text`].
    pub fn cell(self, value: &str, identifier: bool) -> String {
        self.cell_bytes(value, identifier)
            .into_owned()
            .try_into()
            .expect("cells are built from text")
    }

    /// [`Dialect::cell`], borrowing `value` when it is written as it is.
    fn cell_bytes(self, value: &str, identifier: bool) -> Cow<'_, [u8]> {
        if self == Dialect::Excel && identifier {
            Cow::Owned(excel_text(value).into_bytes())
        } else {
            match defuse(value) {
                Cow::Borrowed(v) => Cow::Borrowed(v.as_bytes()),
                Cow::Owned(v) => Cow::Owned(v.into_bytes()),
            }
        }
    }
}

pub struct CsvReport<W: Output> {
    out: ::csv::Writer<W>,
    dialect: Dialect,
    /// The portfolio's own columns carried through, after ratewatch's, and whether each
    /// holds identifiers by its header.
    extra: Vec<(String, bool)>,
}

impl<W: Output> CsvReport<W> {
    pub fn new(out: W, dialect: Dialect) -> Self {
        CsvReport {
            out: dialect.writer(out),
            dialect,
            extra: Vec::new(),
        }
    }
}

/// An identifier as Excel keeps it: Excel guesses a cell's type even inside CSV quotes, so
/// `"00123"` still becomes the number 123; a formula yielding a text, `="00123"`, does not.
/// Inside the literal only `"` is special (doubled), so a value such as `=cmd|…` stays an
/// inert string. Values Excel cannot hold in a literal (too long, control characters) fall
/// back to plain defused text.
pub fn excel_text(value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    if value.chars().count() > EXCEL_LITERAL_MAX || value.chars().any(char::is_control) {
        return defuse(value).into_owned();
    }
    format!("=\"{}\"", value.replace('"', "\"\""))
}

/// A cell as ratewatch wrote it, read back from a file a spreadsheet may have saved since:
/// an identifier the Excel dialect wrote as `="00123"` is `00123` again (Excel saves the
/// value it shows; a text editor keeps the formula), and a value defused for a spreadsheet
/// loses its `'`. Any other cell is as it is. (A value that began with `'=` itself reads
/// back without its `'`: the two are written alike.)
pub fn read_cell(cell: &str) -> Cow<'_, str> {
    if let Some(literal) = cell.strip_prefix("=\"").and_then(|c| c.strip_suffix('"')) {
        // Inside the literal every `"` is doubled; a single one ends it, so the cell is
        // another formula, not ours.
        if !literal.replace("\"\"", "").contains('"') {
            return Cow::Owned(literal.replace("\"\"", "\""));
        }
    }
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => Cow::Borrowed(rest),
        _ => Cow::Borrowed(cell),
    }
}

impl<W: Output> Format for CsvReport<W> {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()> {
        self.extra = run
            .extra_columns
            .iter()
            .map(|h| (h.clone(), identifier_header(h)))
            .collect();
        let mut header: Vec<String> = COLUMNS.map(String::from).to_vec();
        // The portfolio's own columns, after ratewatch's; one named like one of ours is
        // told apart.
        header.extend(self.extra.iter().map(|(h, _)| {
            if COLUMNS.contains(&h.as_str()) {
                format!("input {h}")
            } else {
                h.clone()
            }
        }));
        self.out
            .write_record(self.dialect.header(header))
            .map_err(io::Error::from)
    }

    fn row(&mut self, r: &ResultRow) -> io::Result<()> {
        // Borrowed where the row holds the text already: a report of a million rows
        // otherwise allocates every cell twice.
        fn text(v: &Option<String>) -> Cow<'_, str> {
            Cow::Borrowed(v.as_deref().unwrap_or(""))
        }
        fn time(t: Option<Timestamp>) -> Cow<'static, str> {
            Cow::Owned(t.map(time_text).unwrap_or_default())
        }
        fn flag(b: bool) -> Cow<'static, str> {
            Cow::Borrowed(if b { "true" } else { "false" })
        }
        let candidates = r
            .candidates
            .iter()
            .map(|c| format!("{} {}", c.id, c.name))
            .collect::<Vec<_>>()
            .join("; ");
        let cells: [Cow<'_, str>; 25] = [
            Cow::Owned(r.line.to_string()),
            text(&r.reference),
            text(&r.country),
            text(&r.service),
            text(&r.id),
            text(&r.name),
            Cow::Borrowed(r.status.as_str()),
            Cow::Owned(r.company_id.map(|u| u.to_string()).unwrap_or_default()),
            text(&r.company_name),
            Cow::Borrowed(r.color.as_ref().map_or("", |c| c.as_str())),
            Cow::Borrowed(r.previous_color.as_ref().map_or("", |c| c.as_str())),
            Cow::Borrowed(r.change.map_or("", |c| c.as_str())),
            time(r.last_change_date),
            flag(r.alert),
            text(&r.error),
            Cow::Owned(candidates),
            time(r.last_refresh_date),
            flag(r.stale),
            Cow::Borrowed(r.alert_kind.map_or("", |k| k.as_str())),
            flag(r.acknowledged),
            flag(r.country_defaulted),
            flag(r.extra_unreliable),
            flag(r.alert_listed),
            text(&r.found_by),
            time(r.color_since),
        ];
        let dialect = self.dialect;
        let cells = cells
            .iter()
            .zip(COLUMNS)
            .map(|(cell, column)| dialect.cell_bytes(cell, IDENTIFIER_COLUMNS.contains(&column)));
        let extra = self.extra.iter().map(|(h, identifier)| {
            let value = r.extra.iter().find(|(k, _)| k == h).map_or("", |(_, v)| v);
            dialect.cell_bytes(value, *identifier || mangled_as_number(value))
        });
        self.out
            .write_record(cells.chain(extra))
            .map_err(io::Error::from)
    }

    fn finish(self: Box<Self>) -> io::Result<()> {
        self.out.into_inner().map_err(|e| e.into_error())?.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Candidate, RowStatus};

    fn run() -> RunInfo {
        RunInfo {
            rows: 1,
            ..RunInfo::example()
        }
    }

    /// An ambiguous row whose every text a spreadsheet could misread.
    fn row() -> ResultRow {
        ResultRow {
            reference: Some("00123".into()),
            id: Some("012345678".into()),
            name: Some("=HYPERLINK(\"http://x\")".into()),
            status: RowStatus::Ambiguous,
            company_id: None,
            company_name: Some("López & Fils; \"SA\"".into()),
            color: None,
            change: None,
            last_change_date: None,
            error: Some("-2 companies".into()),
            candidates: vec![Candidate {
                id: uuid::Uuid::nil(),
                name: "A".into(),
                city: "B".into(),
                postcode: "C".into(),
                found_without: None,
            }],
            found_by: None,
            ..ResultRow::example(2)
        }
    }

    fn render(dialect: Dialect, rows: &[ResultRow]) -> Vec<u8> {
        let mut buf = Vec::new();
        let mut r = Box::new(CsvReport::new(&mut buf, dialect));
        r.begin(&run()).unwrap();
        for row in rows {
            r.row(row).unwrap();
        }
        r.finish().unwrap();
        buf
    }

    /// The cells as a spreadsheet's CSV parser sees them.
    fn cells(bytes: &[u8], delimiter: u8) -> Vec<Vec<String>> {
        ::csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .from_reader(bytes)
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect()
    }

    #[test]
    fn standard_is_comma_lf_without_bom_and_keeps_values_as_given() {
        let out = render(Dialect::Standard, &[row()]);
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.starts_with("line,ref,country,"), "{text}");
        assert!(!text.contains('\r'));
        let rows = cells(&out, b',');
        assert_eq!(rows[0], COLUMNS);
        let r = &rows[1];
        assert_eq!(r[1], "00123");
        assert_eq!(r[4], "012345678");
        assert_eq!(r[5], "'=HYPERLINK(\"http://x\")");
        assert_eq!(r[8], "López & Fils; \"SA\"");
        assert_eq!(r[14], "'-2 companies");
        assert_eq!(r[15], "00000000-0000-0000-0000-000000000000 A");
        assert_eq!(r[16], "", "an ambiguous row has no rating");
        assert_eq!(r[17], "false");
        assert_eq!(r.len(), COLUMNS.len());
    }

    #[test]
    fn the_refresh_date_and_staleness_follow_the_alert_in_both_dialects() {
        let rated = |refreshed: &str, stale: bool| ResultRow {
            status: RowStatus::Rated,
            company_id: Some(uuid::Uuid::nil()),
            color: Some(crate::model::Color::Green),
            last_refresh_date: Some(crate::model::time(refreshed)),
            stale,
            error: None,
            candidates: vec![],
            extra: vec![],
            ..row()
        };
        let old = rated("2026-10-01T01:45:00Z", true);
        let fresh = rated("2026-11-20T01:45:00Z", false);
        for (dialect, delimiter) in [(Dialect::Standard, b','), (Dialect::Excel, b';')] {
            let out = render(dialect, &[old.clone(), fresh.clone()]);
            let start = if dialect == Dialect::Excel { 3 } else { 0 };
            let rows = cells(&out[start..], delimiter);
            assert_eq!(rows[0][16..18], ["last_refresh_date", "stale"]);
            assert_eq!(
                rows[1][16..18],
                ["2026-10-01T01:45:00Z", "true"],
                "{dialect:?}"
            );
            assert_eq!(
                rows[2][16..18],
                ["2026-11-20T01:45:00Z", "false"],
                "{dialect:?}"
            );
        }
    }

    #[test]
    fn excel_is_semicolon_crlf_with_bom_and_identifiers_as_text_formulas() {
        let out = render(Dialect::Excel, &[row()]);
        assert!(out.starts_with("\u{feff}line;ref;country;".as_bytes()));
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(text.matches("\r\n").count(), 2, "{text:?}");
        assert_eq!(text.matches('\n').count(), 2, "only CRLF line ends");
        assert!(
            text.contains(";\"=\"\"012345678\"\"\";"),
            "the id as Excel reads it: {text}"
        );
        let rows = cells(&out["\u{feff}".len()..], b';');
        assert_eq!(rows[0], COLUMNS);
        let r = &rows[1];
        assert_eq!(r[1], "=\"00123\"");
        assert_eq!(r[4], "=\"012345678\"");
        assert_eq!(r[5], "'=HYPERLINK(\"http://x\")", "other text is defused");
        assert_eq!(r[8], "López & Fils; \"SA\"", "the delimiter inside a cell");
        assert_eq!(r[0], "2");
    }

    #[test]
    fn excel_writes_carried_identifiers_and_digit_strings_as_text_and_amounts_as_numbers() {
        let run = RunInfo {
            extra_columns: ["SIRET", "kvk", "Phone", "Encours", "Note"]
                .map(String::from)
                .to_vec(),
            ..run()
        };
        let carried = ResultRow {
            extra: [
                ("SIRET", "54936700000013"),
                ("kvk", "12345678"),
                ("Phone", "0612345678"),
                ("Encours", "12 345,67"),
                ("Note", "123456789012"),
            ]
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .to_vec(),
            ..row()
        };
        for (dialect, delimiter, want) in [
            (
                Dialect::Excel,
                b';',
                [
                    "=\"54936700000013\"",
                    "=\"12345678\"",
                    "=\"0612345678\"",
                    "12 345,67",
                    "=\"123456789012\"",
                ],
            ),
            (
                Dialect::Standard,
                b',',
                [
                    "54936700000013",
                    "12345678",
                    "0612345678",
                    "12 345,67",
                    "123456789012",
                ],
            ),
        ] {
            let mut buf = Vec::new();
            let mut r = Box::new(CsvReport::new(&mut buf, dialect));
            r.begin(&run).unwrap();
            r.row(&carried).unwrap();
            r.finish().unwrap();
            let start = if dialect == Dialect::Excel { 3 } else { 0 };
            let rows = cells(&buf[start..], delimiter);
            assert_eq!(rows[1][COLUMNS.len()..], want, "{dialect:?}");
        }
        assert!(mangled_as_number("00123") && mangled_as_number("552100554000130"));
        assert!(!mangled_as_number("75001") && !mangled_as_number("0") && !mangled_as_number(""));
        assert!(!mangled_as_number("-0012") && !mangled_as_number("12 000"));
    }

    #[test]
    fn every_cell_reads_back_as_the_value_written_in_both_dialects() {
        let long = "0".repeat(EXCEL_LITERAL_MAX + 1);
        for value in [
            "00123",
            "C-1006",
            "",
            "=1+1",
            "-2 companies",
            "@x",
            "a\"b",
            "\"",
            "=\"x\"",
            "1\")&cmd|' /c calc'!A0&(\"",
            "-1\n2",
            "López; \"SA\"",
            long.as_str(),
        ] {
            for dialect in [Dialect::Standard, Dialect::Excel] {
                for identifier in [false, true] {
                    let cell = dialect.cell(value, identifier);
                    assert_eq!(
                        read_cell(&cell),
                        value,
                        "{dialect:?} {identifier}: {cell:?}"
                    );
                }
            }
        }
        // Cells of someone else's: as they are.
        for cell in ["=\"a\"&\"b\"", "=SUM(A1)", "'quoted", "plain", "=\""] {
            assert_eq!(read_cell(cell), cell);
        }
    }

    #[test]
    fn an_identifier_cannot_escape_its_literal() {
        assert_eq!(excel_text("00123"), "=\"00123\"");
        assert_eq!(excel_text(""), "");
        assert_eq!(
            excel_text("1\")&cmd|' /c calc'!A0&(\""),
            "=\"1\"\")&cmd|' /c calc'!A0&(\"\"\""
        );
        assert_eq!(excel_text("=1+1"), "=\"=1+1\"");
        let long = "0".repeat(EXCEL_LITERAL_MAX + 1);
        assert_eq!(excel_text(&long), long, "too long for a literal");
        assert_eq!(
            excel_text("-1\n2"),
            "'-1\n2",
            "control characters: defused text"
        );
    }
}
