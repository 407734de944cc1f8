//! Reading the portfolio CSV: delimiter and BOM detection, the header mapped
//! ([`super::columns`]), one record at a time with the line it starts on; each row is then
//! checked by [`super::check`].
//!
//! Problems with the file itself (not text, not UTF-8, no usable header) stop the run
//! before anything is written. Problems with one row make that row `invalid` and the run
//! goes on. Nothing here calls the service: the lookup lists arrive as plain data.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

pub use crate::model::InputRow;
use crate::stages::columns::{ColumnMap, Columns, map_columns};
use crate::{lock, spreadsheet};

/// A problem with the portfolio file as a whole: the run cannot start.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct InputError {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub message: String,
}

/// What a first pass over the file learned, before anything is written.
#[derive(Debug, Clone)]
pub struct Survey {
    pub sha256: String,
    /// Lines in the file: an upper bound of the records, for progress.
    pub lines: u64,
}

/// Counts line ends the way the csv reader ends records: a CR, an LF or a CRLF each end one
/// line, so a file saved by Excel as "CSV (Macintosh)" (CR only) has as many lines as its
/// LF twin. The state carries over from one buffer to the next: a CRLF split between two
/// reads is one line end.
#[derive(Debug, Default, Clone, Copy)]
struct LineEnds {
    after_cr: bool,
}

impl LineEnds {
    /// Whether `b` ends a line (the LF of a CRLF does not: its CR did).
    fn ends_line(&mut self, b: u8) -> bool {
        let ends = b == b'\r' || (b == b'\n' && !self.after_cr);
        self.after_cr = b == b'\r';
        ends
    }
}

/// Hashes the file and checks it is UTF-8 text, naming the first bad line.
pub fn survey(path: &Path) -> Result<Survey, InputError> {
    let err = |line: Option<u64>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
    };
    let file = File::open(path).map_err(|e| err(None, format!("cannot read it: {e}")))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut hasher = Sha256::new();
    let mut ends = LineEnds::default();
    // Lines ended so far, and the bytes of the line being read (up to a few MB for a
    // line that never ends: the check needs whole characters, not whole lines).
    let mut ended = 0u64;
    let mut line: Vec<u8> = Vec::new();
    let mut any = false;
    // `whole`: the line has ended, so a character cut at its end is an error too (a
    // line still growing is checked again with what follows).
    let check = |line: &[u8], at_line: u64, whole: bool| -> Result<(), InputError> {
        if line.contains(&0) {
            return Err(err(
                Some(at_line),
                "this is not a CSV text file (it contains NUL bytes); export the sheet as CSV"
                    .into(),
            ));
        }
        match std::str::from_utf8(line) {
            Err(e) if whole || e.error_len().is_some() => {
                let column = String::from_utf8_lossy(&line[..e.valid_up_to()])
                    .chars()
                    .count()
                    + 1;
                Err(err(
                    Some(at_line),
                    format!(
                        "not UTF-8 (byte 0x{:02X} at character {column}); save the file as \"CSV UTF-8\" or convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8",
                        line[e.valid_up_to()]
                    ),
                ))
            }
            _ => Ok(()),
        }
    };
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| err(None, format!("cannot read it: {e}")))?;
        if buf.is_empty() {
            break;
        }
        any = true;
        hasher.update(buf);
        let n = buf.len();
        for &b in buf {
            if ends.ends_line(b) {
                check(&line, ended + 1, true)?;
                line.clear();
                ended += 1;
            } else if b != b'\n' {
                line.push(b);
            }
        }
        reader.consume(n);
        // A line that does not end is checked as it grows, whole characters at a time,
        // and only its cut character kept: the survey's memory stays small.
        if line.len() > 1 << 20 {
            check(&line, ended + 1, false)?;
            let cut = match std::str::from_utf8(&line) {
                Ok(_) => line.len(),
                Err(e) => e.valid_up_to(),
            };
            line.drain(..cut);
        }
    }
    if !any {
        return Err(err(
            None,
            "the file is empty; a header line is needed (country, service, id or name, …)".into(),
        ));
    }
    // The last line, when the file does not end with a line end.
    if !line.is_empty() {
        check(&line, ended + 1, true)?;
        ended += 1;
    }
    Ok(Survey {
        sha256: format!("{:x}", hasher.finalize()),
        lines: ended.max(1),
    })
}

/// An open portfolio, read one record at a time.
pub struct Portfolio {
    path: PathBuf,
    columns: Columns,
    reader: csv::Reader<Box<dyn Read + Send>>,
    record: csv::StringRecord,
    lines: LineIndex,
    /// The line of the last record read (the header's, 1, at first): each record starts
    /// on a later one, or records could not be told apart.
    last_line: u64,
    /// Fields of the header line: a record with more (filled) is read, but said.
    header_fields: usize,
    delimiter: u8,
    /// The country of a row that gives none (`default_country`).
    default_country: Option<String>,
    counts: Arc<Mutex<ReadCounts>>,
}

/// What reading the rows noticed, counted as they are read.
#[derive(Debug, Default)]
struct ReadCounts {
    rows: u64,
    /// Rows whose empty country took the default.
    defaulted: u64,
    /// Rows with more filled fields than the header, and the first few of their lines.
    spilled: u64,
    spilled_lines: Vec<u64>,
}

/// Lines named in the note on records with too many fields.
const SPILLED_LINES_NAMED: usize = 5;

/// What reading a portfolio noticed, for the run's notes once its rows are read: kept by
/// the run while the rows themselves go to the pipeline.
#[derive(Debug, Clone)]
pub struct Reading {
    counts: Arc<Mutex<ReadCounts>>,
    delimiter: u8,
    default_country: Option<String>,
    carried: Vec<String>,
}

impl Reading {
    /// Rows read so far, those whose country was defaulted, those with too many fields.
    pub fn counts(&self) -> (u64, u64, u64) {
        let c = lock(&self.counts);
        (c.rows, c.defaulted, c.spilled)
    }

    /// The summary's lines on what was read: rows that took the default country, records
    /// with more fields than the header (louder when many do: the delimiter or the quoting
    /// is then wrong for the whole file).
    pub fn notes(&self) -> Vec<String> {
        let c = lock(&self.counts);
        let mut notes = Vec::new();
        let rows = |n: u64| {
            if n == 1 {
                "1 row".to_string()
            } else {
                format!("{n} rows")
            }
        };
        if c.defaulted > 0
            && let Some(country) = &self.default_country
        {
            notes.push(format!(
                "country: {} had none; {country} (default_country) was used",
                rows(c.defaulted)
            ));
        }
        if c.spilled == 0 {
            return notes;
        }
        let delimiter = spreadsheet::delimiter_name(self.delimiter);
        if c.spilled >= 5 && c.spilled * 10 > c.rows {
            notes.push(format!(
                "CHECK THE FILE: {} of {} rows have more fields than the header: the delimiter ({delimiter}, detected from the header line) or the quoting is probably wrong (an amount such as 120 000,00 needs quotes in a comma-separated file; or export with semicolons)",
                c.spilled, c.rows
            ));
        }
        let mut lines: Vec<String> = c.spilled_lines.iter().map(u64::to_string).collect();
        if c.spilled > lines.len() as u64 {
            lines.push("…".into());
        }
        let columns = if self.carried.is_empty() {
            "their fields after the one that split may be shifted".to_string()
        } else {
            format!(
                "their carried columns ({}) may hold the wrong values: marked unreliable in the reports, and [alerts] min_exposure shows these rows rather than judging them",
                self.carried.join(", ")
            )
        };
        let word = if c.spilled == 1 { "has" } else { "have" };
        let at = if c.spilled_lines.len() == 1 {
            "line"
        } else {
            "lines"
        };
        notes.push(format!(
            "EXTRA FIELDS: {} {word} more fields than the header ({at} {}): a value with the delimiter in it, unquoted (e.g. 120 000,00)? {columns}",
            rows(c.spilled),
            lines.join(", "),
        ));
        notes
    }
}

/// Line numbers from byte offsets. The csv reader reports where it started parsing a
/// record (blank lines and the CR of a CRLF included), so a second sequential pass over
/// the file counts line ends (CR, LF or CRLF, as the reader takes them) up to there and
/// past any blank lines.
struct LineIndex {
    file: BufReader<File>,
    offset: u64,
    line: u64,
    ends: LineEnds,
}

impl LineIndex {
    fn new(file: File) -> Self {
        LineIndex {
            file: BufReader::with_capacity(1 << 16, file),
            offset: 0,
            line: 1,
            ends: LineEnds::default(),
        }
    }

    /// The line of the first non-blank character at or after `byte`.
    fn line_at(&mut self, byte: u64) -> u64 {
        let mut skipping_blank = false;
        loop {
            let Ok(buf) = self.file.fill_buf() else {
                return self.line;
            };
            if buf.is_empty() {
                return self.line;
            }
            let mut used = 0;
            for &b in buf {
                if self.offset >= byte {
                    skipping_blank = true;
                }
                if skipping_blank && b != b'\n' && b != b'\r' {
                    self.file.consume(used);
                    return self.line;
                }
                if self.ends.ends_line(b) {
                    self.line += 1;
                }
                self.offset += 1;
                used += 1;
            }
            self.file.consume(used);
        }
    }
}

impl std::fmt::Debug for Portfolio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Portfolio")
            .field("path", &self.path)
            .finish()
    }
}

impl Portfolio {
    /// Opens the file, detects its delimiter and maps its header, the user's `mapping`
    /// first.
    pub fn open(path: &Path, mapping: &ColumnMap) -> Result<Portfolio, InputError> {
        let err = |message: String| InputError {
            path: path.to_path_buf(),
            line: Some(1),
            message,
        };
        let open = || {
            File::open(path).map_err(|e| InputError {
                path: path.to_path_buf(),
                line: None,
                message: format!("cannot read it: {e}"),
            })
        };
        let mut file = BufReader::new(open()?);
        let head = file.fill_buf().map_err(|e| err(e.to_string()))?;
        let delimiter =
            spreadsheet::detect_delimiter(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head));
        // The csv reader skips a UTF-8 byte-order mark itself.
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .has_headers(true)
            .from_reader(Box::new(file) as Box<dyn Read + Send>);
        let headers = reader
            .headers()
            .map_err(|e| err(format!("cannot read the header line: {e}")))?
            .clone();
        let columns = map_columns(&headers, mapping).map_err(err)?;
        Ok(Portfolio {
            path: path.to_path_buf(),
            columns,
            reader,
            record: csv::StringRecord::new(),
            lines: LineIndex::new(open()?),
            last_line: 1,
            header_fields: headers.len(),
            delimiter,
            default_country: None,
            counts: Arc::default(),
        })
    }

    /// Gives a row with an empty country (and no `company_id`) this one, marked
    /// `country_defaulted`; `None` leaves it empty (the row is then invalid).
    pub fn set_default_country(&mut self, country: Option<String>) {
        self.default_country = country;
    }

    /// What reading the rows notices, counted as they are read: for the run's notes.
    pub fn reading(&self) -> Reading {
        Reading {
            counts: self.counts.clone(),
            delimiter: self.delimiter,
            default_country: self.default_country.clone(),
            carried: self.carried_columns(),
        }
    }

    /// Headers of the columns nothing reads, as the file spells them.
    pub fn unused_columns(&self) -> &[String] {
        &self.columns.unused
    }

    /// Headers of the columns carried through to the reports: those nothing reads, then
    /// the identifier columns (a row keeps those it did not search by).
    pub fn carried_columns(&self) -> Vec<String> {
        let c = &self.columns;
        c.unused
            .iter()
            .cloned()
            .chain(c.identifiers.iter().map(|(code, _)| code.clone()))
            .collect()
    }

    /// The next record, or `None` at the end.
    pub fn next_row(&mut self) -> Result<Option<InputRow>, InputError> {
        loop {
            let more = self.reader.read_record(&mut self.record).map_err(|e| {
                let line = e.position().map(|p| p.line());
                InputError {
                    path: self.path.clone(),
                    line,
                    message: format!("cannot read this record: {e}"),
                }
            })?;
            if !more {
                return Ok(None);
            }
            let start = self.record.position().map_or(0, |p| p.byte());
            let line = self.lines.line_at(start);
            self.last_line = line + self.check_apart(line)?;
            // A line of empty cells (";;;" from a spreadsheet) is a blank line too.
            if self.record.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            let cell = |i: Option<usize>| {
                i.and_then(|i| self.record.get(i))
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
            };
            let c = &self.columns;
            // More filled fields than the header: a value holding the delimiter, unquoted
            // (`120 000,00` in a comma-separated file). The row is read as its header
            // says, and marked: the fields past the split are not what they seem.
            let extra_unreliable = self
                .record
                .iter()
                .skip(self.header_fields)
                .any(|f| !f.trim().is_empty());
            let mut country = cell(c.country).map(|v| v.to_uppercase());
            let company_id = cell(c.company_id);
            let country_defaulted =
                country.is_none() && company_id.is_none() && self.default_country.is_some();
            if country_defaulted {
                country = self.default_country.clone();
            }
            {
                let mut counts = lock(&self.counts);
                counts.rows += 1;
                counts.defaulted += u64::from(country_defaulted);
                if extra_unreliable {
                    counts.spilled += 1;
                    if counts.spilled_lines.len() < SPILLED_LINES_NAMED {
                        counts.spilled_lines.push(line);
                    }
                }
            }
            // Identifier columns: the first filled is the row's, unless it names one itself.
            // The others are kept with the row, carried to the reports like any column
            // ratewatch does not read.
            let mut chosen = None;
            let (service, id) = match (cell(c.service), cell(c.id)) {
                (None, None) => c
                    .identifiers
                    .iter()
                    .find_map(|(code, i)| {
                        let v = cell(Some(*i))?;
                        chosen = Some(*i);
                        Some((Some(code.clone()), Some(v)))
                    })
                    .unwrap_or((None, None)),
                given => given,
            };
            return Ok(Some(InputRow {
                line,
                reference: cell(c.reference),
                country,
                service,
                id,
                name: cell(c.name),
                street_number: cell(c.street_number),
                street_name: cell(c.street_name),
                city: cell(c.city),
                postcode: cell(c.postcode),
                phone: cell(c.phone),
                company_id,
                country_defaulted,
                extra_unreliable,
                extra: c
                    .unused
                    .iter()
                    .zip(c.carried.iter().copied())
                    .chain(
                        c.identifiers
                            .iter()
                            .map(|(code, i)| (code, *i))
                            .filter(|(_, i)| Some(*i) != chosen),
                    )
                    .filter_map(|(h, i)| cell(Some(i)).map(|v| (h.clone(), v)))
                    .collect(),
            }));
        }
    }
}

impl Portfolio {
    /// Refuses the file when a record cannot be told from the one before: it starts on
    /// the line where that one did (the line ends were not read as the reader took them),
    /// or it is a quoted field running over lines that hold what look like records of
    /// their own (a quote not closed swallows them). Either way rows would be lost or
    /// merged in silence, so the run does not start.
    ///
    /// Returns the line ends inside the record: the lines it spans past its first.
    fn check_apart(&self, line: u64) -> Result<u64, InputError> {
        let refuse = |message: String| InputError {
            path: self.path.clone(),
            line: Some(line),
            message,
        };
        if line <= self.last_line {
            return Err(refuse(format!(
                "this record cannot be told apart from the one before (both counted on line {}): the file's line ends are mixed in a way ratewatch does not read; save it again as CSV (LF, CRLF or CR line ends)",
                self.last_line
            )));
        }
        let delimiter = char::from(self.delimiter);
        let breaks = self.line_breaks_within();
        let swallowed = || {
            self.record.iter().any(|field| {
                field
                    .split_once(['\r', '\n'])
                    .is_some_and(|(_, rest)| rest.contains(delimiter))
            })
        };
        if breaks >= 2 && swallowed() {
            return Err(refuse(format!(
                "a quoted field opened on this line runs over {} lines and holds what look like records of their own (a {} after a line break): a quote is probably not closed; check the quotes on line {line}",
                breaks + 1,
                spreadsheet::delimiter_name(self.delimiter),
            )));
        }
        Ok(breaks)
    }

    /// Line ends inside the current record's quoted fields: the lines it spans past its
    /// first.
    fn line_breaks_within(&self) -> u64 {
        let mut ends = LineEnds::default();
        self.record
            .iter()
            .map(|f| f.bytes().filter(|&b| ends.ends_line(b)).count() as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::check::{Lookups, Target, targets, validate};
    use crate::stages::columns::parse_mapping;

    fn write(content: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.csv");
        std::fs::write(&path, content).unwrap();
        (dir, path)
    }

    fn rows(content: &[u8]) -> Vec<InputRow> {
        let (_dir, path) = write(content);
        survey(&path).unwrap();
        let mut p = Portfolio::open(&path, &ColumnMap::default()).unwrap();
        let mut out = Vec::new();
        while let Some(r) = p.next_row().unwrap() {
            out.push(r);
        }
        out
    }

    #[test]
    fn semicolons_bom_crlf_quotes_and_blank_lines() {
        let got = rows(
            "\u{feff}Ref;Country;Service;ID;Name\r\n\
             C-1; fr ;SIREN;552100554;\r\n\
             \r\n\
             ;;;;\r\n\
             \"C-2\";gb;;;\"Smith; Sons \"\"& Co\"\"\r\nLtd\"\r\n\
             C-3;FR;siren;12345678;\r\n"
                .as_bytes(),
        );
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].line, 2);
        assert_eq!(got[0].country.as_deref(), Some("FR"));
        assert_eq!(got[0].reference.as_deref(), Some("C-1"));
        assert_eq!(
            got[1].line, 5,
            "the record's starting line, blank lines counted"
        );
        assert_eq!(got[1].name.as_deref(), Some("Smith; Sons \"& Co\"\r\nLtd"));
        assert_eq!(got[1].service, None);
        assert_eq!(got[2].line, 7);
        match validate(&got[2], &Lookups::for_tests()).unwrap() {
            Target::ById { service, id, .. } => {
                assert_eq!(service, "SIREN");
                assert_eq!(id, "012345678", "leading zero restored");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tabs_and_commas_are_detected() {
        let tab = rows(b"country\tname\nFR\tAcme, Inc\n");
        assert_eq!(tab[0].name.as_deref(), Some("Acme, Inc"));
        let comma = rows(b"country,name,\"notes; more; here\"\nFR,Acme; Inc,x\n");
        assert_eq!(comma[0].name.as_deref(), Some("Acme; Inc"));
    }

    #[test]
    fn a_row_offers_its_identifiers_in_the_headers_order_then_its_name() {
        let got = rows(
            b"ref,country,SIRET,siren,KVK,name,city\n\
              C-1,FR,55210055400013,552100555,12345678,Acme,Lyon\n\
              C-2,FR,,5210055,,,\n\
              C-3,FR,,,,Acme,\n",
        );
        let l = Lookups::for_tests();
        let (by_id, name) = (Target::french, Target::acme_in_lyon());
        // The first filled registry column, the others as the header has them (KVK is
        // no French registry), then the name with its city.
        assert_eq!(
            targets(&got[0], &l).unwrap(),
            vec![
                by_id("SIRET", "55210055400013"),
                by_id("SIREN", "552100555"),
                name
            ]
        );
        assert_eq!(
            targets(&got[1], &l).unwrap(),
            vec![by_id("SIREN", "005210055")]
        );
        assert!(matches!(
            &targets(&got[2], &l).unwrap()[..],
            [Target::ByName(_)]
        ));

        // `service` + `id` first, then the registry columns; the same identifier once.
        let got = rows(
            b"country,service,id,SIREN,SIRET,name\n\
              FR,siret,55210055400013,552100554,55210055400013,Acme\n",
        );
        let all = targets(&got[0], &l).unwrap();
        assert_eq!(all[0], by_id("SIRET", "55210055400013"));
        assert_eq!(all[1], by_id("SIREN", "552100554"));
        assert!(matches!(&all[2..], [Target::ByName(q)] if q.city.is_none()));

        // A row's own identifier is checked as before: wrong, the row is invalid.
        let got = rows(b"country,service,id,name\nFR,CRO,123,Acme\n");
        assert!(targets(&got[0], &l).unwrap_err().starts_with("service:"));
        let got = rows(b"country,company_id,SIREN,name\nFR,6f1c9a1e-4f7b-4c55-9d1e-1a2b3c4d5e6f,552100554,Acme\n");
        assert!(matches!(
            &targets(&got[0], &l).unwrap()[..],
            [Target::Known(_)]
        ));
    }

    #[test]
    fn bad_files_stop_with_file_line_and_advice() {
        let (_d, path) = write(b"country,name\nFR,Caf\xe9 de Paris\n");
        let e = survey(&path).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("p.csv:2: not UTF-8"), "{e}");
        assert!(e.to_string().contains("iconv"));

        let (_d, path) = write(b"");
        assert!(survey(&path).unwrap_err().to_string().contains("empty"));

        let (_d, path) = write(b"\x00\x01binary");
        assert!(survey(&path).unwrap_err().to_string().contains("not a CSV"));

        let (_d, path) = write(b"name,city\nAcme,Lyon\n");
        let e = Portfolio::open(&path, &ColumnMap::default()).unwrap_err();
        assert!(e.to_string().contains("no `country` column"), "{e}");

        let (_d, path) = write(b"country,name,Name\nFR,a,b\n");
        let e = Portfolio::open(&path, &ColumnMap::default()).unwrap_err();
        assert!(
            e.to_string().contains("columns 2 and 3 are both `name`"),
            "{e}"
        );

        let (_d, path) = write(b"country,id\nFR,1\n");
        assert!(Portfolio::open(&path, &ColumnMap::default()).is_err());
    }

    #[test]
    fn a_record_with_more_fields_than_its_header_is_read_marked_and_counted() {
        let (_dir, path) = write(
            b"ref,country,name,Encours (\xe2\x82\xac)\n\
              C-1,FR,Acme,120 000,00\n\
              C-2,FR,Beta,\"5 000,00\"\n\
              C-3,FR,Gamma,7,\n",
        );
        let mut p = Portfolio::open(&path, &ColumnMap::default()).unwrap();
        let reading = p.reading();
        let mut got = Vec::new();
        while let Some(r) = p.next_row().unwrap() {
            got.push(r);
        }
        assert!(got[0].extra_unreliable);
        assert_eq!(got[0].extra, [("Encours (€)".into(), "120 000".into())]);
        assert!(!got[1].extra_unreliable, "quoted: one field");
        assert!(
            !got[2].extra_unreliable,
            "a trailing empty field moves nothing"
        );
        assert_eq!(reading.counts(), (3, 0, 1));
        let notes = reading.notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("EXTRA FIELDS: 1 row has more fields than the header (line 2)")
                && notes[0].contains("(Encours (€))"),
            "{notes:?}"
        );
    }

    #[test]
    fn many_records_with_too_many_fields_blame_the_delimiter_or_the_quoting() {
        let mut csv = String::from("ref,country,name,Encours\n");
        for i in 0..20 {
            csv.push_str(&format!("C-{i},FR,Acme {i},{i} 000,00\n"));
        }
        let (_dir, path) = write(csv.as_bytes());
        let mut p = Portfolio::open(&path, &ColumnMap::default()).unwrap();
        while p.next_row().unwrap().is_some() {}
        let notes = p.reading().notes();
        assert!(
            notes[0].starts_with("CHECK THE FILE: 20 of 20 rows")
                && notes[0].contains("the delimiter (comma"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("(lines 2, 3, 4, 5, 6, …)"),
            "the first few lines named: {notes:?}"
        );
    }

    #[test]
    fn an_empty_country_takes_the_default_unless_the_row_names_its_company() {
        let (_dir, path) = write(
            b"ref,country,name,company_id\n\
              C-1,,Acme,\n\
              C-2,gb,Beta,\n\
              C-3,,Gamma,0b7f0a4e-7d3b-4a8e-9a53-1c1f1b2e3d4f\n",
        );
        let mut p = Portfolio::open(&path, &ColumnMap::default()).unwrap();
        p.set_default_country(Some("FR".into()));
        let reading = p.reading();
        let mut got = Vec::new();
        while let Some(r) = p.next_row().unwrap() {
            got.push(r);
        }
        assert_eq!(got[0].country.as_deref(), Some("FR"));
        assert!(got[0].country_defaulted);
        assert!(matches!(
            validate(&got[0], &Lookups::for_tests()),
            Ok(Target::ByName(_))
        ));
        assert_eq!(got[1].country.as_deref(), Some("GB"));
        assert!(!got[1].country_defaulted);
        assert_eq!(
            got[2].country, None,
            "its company is known: no country needed"
        );
        assert_eq!(reading.counts(), (3, 1, 0));
        assert_eq!(
            reading.notes(),
            ["country: 1 row had none; FR (default_country) was used"]
        );
        let l = Lookups::for_tests();
        assert_eq!(l.check_country("fr"), Ok("FR".into()));
        assert!(
            l.check_country("US")
                .unwrap_err()
                .contains("no ratings for US")
        );
        assert!(
            l.check_country("XX")
                .unwrap_err()
                .contains("not a country code")
        );
    }

    #[test]
    fn a_header_only_file_has_no_rows() {
        assert!(rows(b"country,name\r\n").is_empty());
    }

    fn mapped(
        content: &str,
        mapping: &[(&str, &str)],
    ) -> Result<(Vec<InputRow>, Vec<String>), String> {
        let (_dir, path) = write(content.as_bytes());
        let map = ColumnMap(
            mapping
                .iter()
                .map(|(f, h)| (f.to_string(), h.to_string()))
                .collect(),
        );
        let mut p = Portfolio::open(&path, &map).map_err(|e| e.message)?;
        let mut out = Vec::new();
        while let Some(r) = p.next_row().unwrap() {
            out.push(r);
        }
        Ok((out, p.unused_columns().to_vec()))
    }

    #[test]
    fn an_erp_export_is_read_as_it_is_through_a_column_mapping() {
        let export = "Référence client;Pays;SIREN;Raison sociale;Ville;Encours EUR\n\
                      C-1;France;552100554;Acme SA;Lyon;12000\n";
        let (rows, unused) = mapped(
            export,
            &[
                ("ref", "Référence client"),
                ("country", "pays"),
                ("name", "Raison sociale"),
                ("city", "Ville"),
            ],
        )
        .unwrap();
        let r = &rows[0];
        assert_eq!(r.reference.as_deref(), Some("C-1"));
        assert_eq!(r.country.as_deref(), Some("FRANCE"));
        // The SIREN column needs no mapping: its header is the service's code.
        assert_eq!(
            (r.service.as_deref(), r.id.as_deref()),
            (Some("SIREN"), Some("552100554"))
        );
        assert_eq!(r.name.as_deref(), Some("Acme SA"));
        assert_eq!(unused, ["Encours EUR"]);
        let target = validate(r, &Lookups::for_tests()).unwrap();
        assert!(
            matches!(target, Target::ById { ref country, .. } if country == "FR"),
            "{target:?}"
        );
    }

    #[test]
    fn identifier_columns_side_by_side_give_the_first_that_is_filled() {
        let (rows, unused) = mapped(
            "country,SIREN,siret,name\nFR,,55210055400013,\nFR,552100554,55210055400013,\nFR,,,Acme\n",
            &[],
        )
        .unwrap();
        assert_eq!(rows[0].service.as_deref(), Some("SIRET"));
        assert!(rows[0].extra.is_empty());
        assert_eq!(rows[1].service.as_deref(), Some("SIREN"));
        // The SIRET of a row searched by its SIREN is kept with it.
        assert_eq!(
            rows[1].extra,
            [("SIRET".to_string(), "55210055400013".to_string())]
        );
        assert_eq!(
            (rows[2].service.as_ref(), rows[2].name.as_deref()),
            (None, Some("Acme"))
        );
        assert!(unused.is_empty());
    }

    #[test]
    fn a_mapping_names_a_missing_header_or_an_unknown_field_clearly() {
        let e = mapped("Pays;Nom\nFR;x\n", &[("country", "Land")]).unwrap_err();
        assert!(
            e.contains("reads country from \"Land\"") && e.contains("\"Pays\""),
            "{e}"
        );
        assert_eq!(
            parse_mapping("Country = Pays"),
            Ok(("country".into(), "Pays".into()))
        );
        assert_eq!(
            parse_mapping("phone=Tel"),
            Ok(("phonenumber".into(), "Tel".into()))
        );
        assert!(parse_mapping("pays").unwrap_err().contains("FIELD=HEADER"));
        assert!(
            parse_mapping("exposure=Encours")
                .unwrap_err()
                .contains("the fields are")
        );
        // A mapped field wins over a column of ratewatch's own name.
        let (rows, unused) =
            mapped("country,Pays,name\nXX,FR,Acme\n", &[("country", "Pays")]).unwrap();
        assert_eq!(rows[0].country.as_deref(), Some("FR"));
        assert_eq!(unused, ["country"]);
    }
}
