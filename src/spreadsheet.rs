//! A CSV file as a spreadsheet saves it, read back: UTF-8 with or without a byte-order
//! mark, or Windows-1252 (what Excel writes when asked for "CSV (separator: semicolon)");
//! comma, semicolon or tab as delimiter, told from the header line; LF, CRLF or CR line
//! ends (the csv reader takes each, and so do the line numbers). The cells ratewatch wrote are read back by
//! [`crate::report::csv::read_cell`].
//!
//! The file is read whole: for the small files a person edits (`review import`), never a
//! portfolio, which is streamed.

use std::path::Path;

/// Comma, semicolon or tab: whichever the header line uses most outside quotes; a comma
/// when it uses none of them.
pub fn detect_delimiter(head: &[u8]) -> u8 {
    let first_line = head
        .split(|b| *b == b'\n' || *b == b'\r')
        .next()
        .unwrap_or(head);
    let mut counts = [(b',', 0), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for &b in first_line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            for (d, n) in counts.iter_mut() {
                if *d == b {
                    *n += 1;
                }
            }
        }
    }
    counts
        .iter()
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n > 0)
        .map_or(b',', |(d, _)| *d)
}

/// A delimiter as a message names it.
pub fn delimiter_name(delimiter: u8) -> &'static str {
    match delimiter {
        b';' => "semicolon",
        b'\t' => "tab",
        _ => "comma",
    }
}

/// How the file's bytes were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// Not UTF-8, read as Windows-1252: the first line where UTF-8 failed, and its byte.
    Windows1252 {
        line: u64,
        byte: u8,
    },
}

/// A CSV file's text and how it is spelled.
#[derive(Debug, Clone)]
pub struct Sheet {
    /// The text, without a byte-order mark.
    pub text: String,
    pub encoding: Encoding,
    /// Detected from the header line ([`detect_delimiter`]).
    pub delimiter: u8,
    /// Where each `\n` of the text is, for [`Sheet::line_at`].
    newlines: Vec<usize>,
}

/// Why a file cannot be read as a CSV text at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct Unreadable {
    pub line: Option<u64>,
    pub message: String,
}

impl Sheet {
    pub fn read(path: &Path) -> Result<Sheet, Unreadable> {
        let bytes = std::fs::read(path).map_err(|e| Unreadable {
            line: None,
            message: format!("cannot read it: {e}"),
        })?;
        Sheet::from_bytes(&bytes)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Sheet, Unreadable> {
        let line_of = |at: usize| bytes[..at].iter().filter(|b| **b == b'\n').count() as u64 + 1;
        if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
            return Err(Unreadable {
                line: Some(1),
                message: "UTF-16 text (Excel's \"Unicode Text\"); save it as \"CSV UTF-8\" or \"CSV (separator: semicolon)\"".into(),
            });
        }
        if let Some(at) = bytes.iter().position(|b| *b == 0) {
            return Err(Unreadable {
                line: Some(line_of(at)),
                message: "this is not a CSV text file (it contains NUL bytes); save the sheet as \"CSV UTF-8\" or \"CSV (separator: semicolon)\"".into(),
            });
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let (text, encoding) = match std::str::from_utf8(bytes) {
            Ok(text) => (text.to_string(), Encoding::Utf8),
            Err(e) => {
                let at = e.valid_up_to();
                let encoding = Encoding::Windows1252 {
                    line: line_of(at),
                    byte: bytes[at],
                };
                (bytes.iter().map(|b| windows_1252(*b)).collect(), encoding)
            }
        };
        let delimiter = detect_delimiter(text.as_bytes());
        // Where each line ends: a CR, an LF, or the CR of a CRLF.
        let bytes = text.as_bytes();
        let newlines = (0..bytes.len())
            .filter(|&i| {
                bytes[i] == b'\r' || (bytes[i] == b'\n' && (i == 0 || bytes[i - 1] != b'\r'))
            })
            .collect();
        Ok(Sheet {
            text,
            encoding,
            delimiter,
            newlines,
        })
    }

    /// The line of a record that starts at `byte` of the text (its
    /// [`csv::Position::byte`]): the line of the first character there that ends no line.
    /// (The reader's own count of lines is one short after a CRLF.)
    pub fn line_at(&self, byte: u64) -> u64 {
        let bytes = self.text.as_bytes();
        let start = usize::try_from(byte).map_or(bytes.len(), |b| b.min(bytes.len()));
        let ends = bytes[start..]
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        self.newlines.partition_point(|n| *n < start + ends) as u64 + 1
    }

    /// A reader of the records, the header line first; a record may have more or fewer
    /// fields than the header.
    pub fn reader(&self) -> csv::Reader<&[u8]> {
        csv::ReaderBuilder::new()
            .delimiter(self.delimiter)
            .flexible(true)
            .from_reader(self.text.as_bytes())
    }

    /// The header line as written, for a message: at most 100 characters.
    pub fn header_line(&self) -> String {
        let line = self.text.split(['\r', '\n']).next().unwrap_or("");
        let mut shown: String = line.chars().take(100).collect();
        if shown.len() < line.len() {
            shown.push('…');
        }
        crate::text::printable(&shown)
    }
}

/// A byte of Windows-1252 as a character: Latin-1, but for 0x80–0x9F, where it has
/// typographic signs (the five bytes it leaves undefined read as Latin-1's controls).
fn windows_1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}',
        '\u{8F}', '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}',
        '\u{2014}', '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}',
        '\u{178}',
    ];
    match byte {
        0x80..=0x9F => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header line's cells, then each record's.
    fn records(sheet: &Sheet) -> Vec<Vec<String>> {
        let mut reader = sheet.reader();
        let header = reader.headers().unwrap().iter().map(String::from).collect();
        let rest = reader
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect());
        std::iter::once(header).chain(rest).collect()
    }

    #[test]
    fn either_dialect_reads_to_the_same_cells() {
        let excel = Sheet::from_bytes(
            b"\xEF\xBB\xBFref;name\r\n=\"00123\";\"M\xC3\xBCller; S\xC3\xB6hne\"\r\n",
        )
        .unwrap();
        let standard =
            Sheet::from_bytes("ref,name\n=\"00123\",\"Müller; Söhne\"\n".as_bytes()).unwrap();
        let tabs = Sheet::from_bytes("ref\tname\n=\"00123\"\tMüller; Söhne\n".as_bytes()).unwrap();
        assert_eq!(
            (excel.delimiter, standard.delimiter, tabs.delimiter),
            (b';', b',', b'\t')
        );
        for sheet in [&excel, &standard, &tabs] {
            assert_eq!(sheet.encoding, Encoding::Utf8);
            assert_eq!(
                records(sheet),
                [vec!["ref", "name"], vec!["=\"00123\"", "Müller; Söhne"]]
            );
        }
    }

    #[test]
    fn a_record_s_line_is_where_it_starts_whatever_the_line_ends() {
        for text in [
            "a;b\r\n1;2\r\n\r\n\"3\r\nx\";4\r\n5;6\r\n",
            "a;b\n1;2\n\n\"3\nx\";4\n5;6\n",
            "a;b\r1;2\r\r\"3\rx\";4\r5;6\r",
            "a;b\r1;2\n\r\n\"3\rx\";4\n5;6",
        ] {
            let sheet = Sheet::from_bytes(text.as_bytes()).unwrap();
            let mut reader = sheet.reader();
            let lines: Vec<u64> = reader
                .records()
                .map(|r| sheet.line_at(r.unwrap().position().unwrap().byte()))
                .collect();
            assert_eq!(lines, [2, 4, 6], "{text:?}");
        }
    }

    #[test]
    fn text_that_is_not_utf_8_is_read_as_windows_1252_naming_where() {
        let sheet = Sheet::from_bytes(b"ref;city\r\nC-1;Orl\xE9ans \x80\x9F\x81\r\n").unwrap();
        assert_eq!(
            sheet.encoding,
            Encoding::Windows1252 {
                line: 2,
                byte: 0xE9
            }
        );
        assert_eq!(records(&sheet)[1], ["C-1", "Orléans €Ÿ\u{81}"]);
        assert_eq!(windows_1252(b'a'), 'a');
        assert_eq!(windows_1252(0xFF), 'ÿ');
        assert_eq!(windows_1252(0x99), '™');
    }

    #[test]
    fn a_file_that_is_no_csv_text_says_what_it_is() {
        let utf16 = Sheet::from_bytes(b"\xFF\xFEr\0e\0f\0").unwrap_err();
        assert_eq!(utf16.line, Some(1));
        assert!(utf16.message.starts_with("UTF-16 text"), "{utf16}");
        let binary = Sheet::from_bytes(b"ref\nPK\x03\x04\0\0").unwrap_err();
        assert_eq!(
            binary.to_string(),
            "line 2: this is not a CSV text file (it contains NUL bytes); save the sheet as \"CSV UTF-8\" or \"CSV (separator: semicolon)\""
        );
    }

    #[test]
    fn the_delimiter_is_the_header_s_most_used_outside_quotes() {
        assert_eq!(detect_delimiter(b"a;b;c\n1,2,3,4,5"), b';');
        assert_eq!(detect_delimiter(b"\"a;b;c\",d,e"), b',');
        assert_eq!(detect_delimiter(b"a|b|c"), b',', "none: a comma");
        assert_eq!(delimiter_name(b'\t'), "tab");
        let long = Sheet::from_bytes(format!("{}\n", "x".repeat(300)).as_bytes()).unwrap();
        assert_eq!(long.header_line().chars().count(), 101);
    }
}
