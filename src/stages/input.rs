//! Reading the portfolio CSV: delimiter and BOM detection, header mapping, one record at a
//! time with the line it starts on, and each row's local validation.
//!
//! Problems with the file itself (not text, not UTF-8, no usable header) stop the run
//! before anything is written. Problems with one row make that row `invalid` and the run
//! goes on. Nothing here calls the service: the lookup lists arrive as plain data.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use uuid::Uuid;

pub use crate::model::InputRow;
use crate::model::{Country, IdentifierService, NameQuery, RATED_COUNTRIES};
use crate::text::normalize_name;
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

/// The fields a portfolio's columns can hold, by the name a mapping gives them.
pub const FIELDS: [&str; 11] = [
    "country",
    "service",
    "id",
    "name",
    "streetnumber",
    "streetname",
    "city",
    "postcode",
    "phonenumber",
    "ref",
    "company_id",
];

/// Identifier services of the spec's table (4.8) and `VAT`: a column headed by one of them
/// holds that service's identifiers, so `SIREN` and `SIRET` columns side by side need no
/// mapping. (The row checks still ask the lookup lists whether a country uses it.)
pub const SERVICE_COLUMNS: [&str; 27] = [
    "SIREN", "SIRET", "CRO", "EXDIURN", "CNIE", "CIF", "DUN", "RCBE", "ONSS", "EURODB", "KVK",
    "GRAY", "TVANL", "MERCAT", "RCLU", "BWI", "COC", "CREF", "FCDE", "COFIS", "CCIAA", "TVAIT",
    "SIACID", "RNCN", "OCCN", "VATCN", "VAT",
];

/// The user's own names for the file's headers: field (one of [`FIELDS`]) → header, from
/// `[columns]` in ratewatch.toml and `--column FIELD=HEADER`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(pub Vec<(String, String)>);

impl ColumnMap {
    /// A `[columns]` table: field = "Header", one a line; a field or a header that does not
    /// read is a mistake at its key.
    pub fn from_table(
        table: &crate::toml_table::Table,
    ) -> Result<ColumnMap, crate::toml_table::Mistake> {
        let read = |(field, header): (&toml::Spanned<String>, &toml::Spanned<toml::Value>)| {
            let at = |message| (field.span(), format!("[columns]: {message}"));
            let name = field_name(field.get_ref()).map_err(at)?;
            let expected = || at(format!("{name}: expected the header as a string"));
            let header = header.get_ref().as_str().ok_or_else(expected)?;
            Ok((name, header.to_string()))
        };
        table
            .iter()
            .map(read)
            .collect::<Result<_, _>>()
            .map(ColumnMap)
    }

    /// The header mapped to `field`, if any.
    fn header_for(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(f, _)| f == field)
            .map(|(_, h)| h.as_str())
    }
}

/// Reads `FIELD=HEADER`, checking the field's name.
pub fn parse_mapping(text: &str) -> Result<(String, String), String> {
    let (field, header) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected FIELD=HEADER, e.g. country=Pays"))?;
    let field = field_name(field)?;
    let header = header.trim();
    if header.is_empty() {
        return Err(format!("{text:?}: the header after `=` is empty"));
    }
    Ok((field, header.to_string()))
}

/// A field's name as a mapping gives it, checked against [`FIELDS`].
pub fn field_name(raw: &str) -> Result<String, String> {
    let key = squeeze(raw);
    FIELDS
        .iter()
        .find(|f| squeeze(f) == key || (key == "phone" && **f == "phonenumber"))
        .map(|f| f.to_string())
        .ok_or_else(|| {
            format!(
                "{raw:?} is not a field of a portfolio; the fields are {}",
                FIELDS.join(", ")
            )
        })
}

/// A header or field name compared without case, spaces, `_` or `-`.
fn squeeze(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|ch| ch.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The portfolio's columns, by position.
#[derive(Debug, Clone, Default)]
struct Columns {
    country: Option<usize>,
    service: Option<usize>,
    id: Option<usize>,
    name: Option<usize>,
    street_number: Option<usize>,
    street_name: Option<usize>,
    city: Option<usize>,
    postcode: Option<usize>,
    phone: Option<usize>,
    reference: Option<usize>,
    company_id: Option<usize>,
    /// Columns headed by an identifier service's code, in the file's order.
    identifiers: Vec<(String, usize)>,
    /// Headers of the columns nothing reads, carried through to the reports.
    unused: Vec<String>,
    /// Their positions, in the same order.
    carried: Vec<usize>,
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

/// Header names are matched case-insensitively, ignoring spaces, `_` and `-`; the user's
/// mapping comes first, then ratewatch's own names, then identifier services' codes.
fn map_columns(headers: &csv::StringRecord, mapping: &ColumnMap) -> Result<Columns, String> {
    let mut c = Columns::default();
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    let mut claimed: HashSet<usize> = HashSet::new();
    let found = || {
        headers
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for field in FIELDS {
        let Some(wanted) = mapping.header_for(field) else {
            continue;
        };
        let Some(i) = headers.iter().position(|h| squeeze(h) == squeeze(wanted)) else {
            return Err(format!(
                "the column mapping reads {field} from {wanted:?}, but the header has no such column (found {})",
                found()
            ));
        };
        *slot(&mut c, field) = Some(i);
        seen.insert(field, i);
        claimed.insert(i);
    }
    for (i, raw) in headers.iter().enumerate() {
        if claimed.contains(&i) {
            continue;
        }
        let key = squeeze(raw);
        let name = match key.as_str() {
            "country" | "countrycode" => "country",
            "service" | "idservice" | "identifierservice" => "service",
            "id" | "externalid" | "identifier" => "id",
            "name" | "companyname" => "name",
            "streetnumber" => "streetnumber",
            "streetname" | "street" => "streetname",
            "city" | "town" => "city",
            "postcode" | "postalcode" | "zip" | "zipcode" => "postcode",
            "phonenumber" | "phone" => "phonenumber",
            "ref" | "reference" => "ref",
            "companyid" => "company_id",
            _ => {
                match SERVICE_COLUMNS
                    .iter()
                    .find(|s| s.eq_ignore_ascii_case(&key))
                {
                    Some(code) => c.identifiers.push((code.to_string(), i)),
                    None => {
                        c.unused.push(raw.trim().to_string());
                        c.carried.push(i);
                    }
                }
                continue;
            }
        };
        if mapping.header_for(name).is_some() {
            // The user said where this field is; a column of the same name is not it.
            c.unused.push(raw.trim().to_string());
            c.carried.push(i);
            continue;
        }
        if let Some(first) = seen.insert(name, i) {
            return Err(format!(
                "columns {} and {} are both `{name}`; keep one",
                first + 1,
                i + 1
            ));
        }
        *slot(&mut c, name) = Some(i);
    }
    if c.country.is_none() {
        return Err(format!(
            "no `country` column (found {}); the header needs country plus service and id, or name (a `[columns]` mapping in ratewatch.toml or --column country=HEADER names your own)",
            found()
        ));
    }
    if c.id.is_some() != c.service.is_some() {
        return Err("`service` and `id` columns go together: one is missing".into());
    }
    if c.id.is_none() && c.name.is_none() && c.company_id.is_none() && c.identifiers.is_empty() {
        return Err(format!(
            "no `service` + `id`, identifier (SIREN, KVK, …), `name` or `company_id` column (found {}): nothing to look companies up by; a `[columns]` mapping in ratewatch.toml or --column FIELD=HEADER names your own headers",
            found()
        ));
    }
    Ok(c)
}

/// The column slot of a field of [`FIELDS`].
fn slot<'a>(c: &'a mut Columns, field: &str) -> &'a mut Option<usize> {
    match field {
        "country" => &mut c.country,
        "service" => &mut c.service,
        "id" => &mut c.id,
        "name" => &mut c.name,
        "streetnumber" => &mut c.street_number,
        "streetname" => &mut c.street_name,
        "city" => &mut c.city,
        "postcode" => &mut c.postcode,
        "phonenumber" => &mut c.phone,
        "ref" => &mut c.reference,
        _ => &mut c.company_id,
    }
}

/// The service's lookup lists, as the row checks need them.
#[derive(Debug, Clone, Default)]
pub struct Lookups {
    countries: HashSet<String>,
    /// Country → its identifier services, in the service's spelling.
    services: HashMap<String, Vec<String>>,
    /// A country's name as the lookup list spells it (folded) → its code.
    names: HashMap<String, String>,
}

impl Lookups {
    pub fn new(countries: &[Country], services: &[IdentifierService]) -> Self {
        let mut by_country: HashMap<String, Vec<String>> = HashMap::new();
        for s in services {
            by_country
                .entry(s.country.to_uppercase())
                .or_default()
                .push(s.code.clone());
        }
        Lookups {
            countries: countries.iter().map(|c| c.code.to_uppercase()).collect(),
            names: countries
                .iter()
                .map(|c| (normalize_name(&c.name), c.code.to_uppercase()))
                .collect(),
            services: by_country,
        }
    }

    /// The spec's rated countries, each with every registry of the spec's table: what a
    /// preview checks rows against when no run has kept the service's own lists yet.
    pub fn of_the_spec() -> Self {
        let countries: Vec<Country> = RATED_COUNTRIES
            .iter()
            .map(|c| Country {
                code: c.to_string(),
                name: c.to_string(),
            })
            .collect();
        let services: Vec<IdentifierService> = RATED_COUNTRIES
            .iter()
            .flat_map(|c| {
                SERVICE_COLUMNS.iter().map(move |s| IdentifierService {
                    country: c.to_string(),
                    code: s.to_string(),
                    label: String::new(),
                })
            })
            .collect();
        Lookups::new(&countries, &services)
    }

    /// A country given as a setting (`default_country`) checked as a row's is: the code
    /// the service knows and rates, or why not.
    pub fn check_country(&self, given: &str) -> Result<String, String> {
        let code = country_code(given, self)?;
        if !self.countries.contains(&code) {
            return Err(format!(
                "country: {code:?} is not a country code the service knows"
            ));
        }
        if !self.rated(&code) {
            return Err(format!("country: the service has no ratings for {code}"));
        }
        Ok(code)
    }

    /// The service rates the ten countries of the spec, and registries are listed for
    /// their territories; elsewhere a search could never resolve and would waste a call.
    fn rated(&self, country: &str) -> bool {
        RATED_COUNTRIES.contains(&country) || self.services.contains_key(country)
    }
}

/// What a valid row asks the service for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A company UUID given in the portfolio: no resolution needed.
    Known(Uuid),
    /// A search by registry identifier.
    ById {
        country: String,
        service: String,
        id: String,
    },
    /// A search by name with the row's filters.
    ByName(NameQuery),
}

#[cfg(test)]
impl Target {
    /// A French registry identifier, for tests.
    pub fn french(service: &str, id: &str) -> Target {
        Target::ById {
            country: "FR".into(),
            service: service.into(),
            id: id.into(),
        }
    }

    /// The name `Acme` in Lyon, France, for tests.
    pub fn acme_in_lyon() -> Target {
        Target::ByName(NameQuery {
            country: "FR".into(),
            name: "Acme".into(),
            city: Some("Lyon".into()),
            ..NameQuery::default()
        })
    }
}

/// Longest value a search field may have: company names run to about 160 characters;
/// anything far longer is a broken export, and sending it would only waste a call.
pub const MAX_FIELD_CHARS: usize = 300;

/// A field's value fit to send: not absurdly long, no control characters (a tab or line
/// break inside a name is a broken export, not a name).
fn check_field(field: &str, value: Option<&String>) -> Result<(), String> {
    let Some(v) = value else { return Ok(()) };
    if v.chars().count() > MAX_FIELD_CHARS {
        return Err(format!(
            "{field}: longer than {MAX_FIELD_CHARS} characters ({} here)",
            v.chars().count()
        ));
    }
    if v.chars().any(char::is_control) {
        return Err(format!(
            "{field}: contains control characters (a line break or tab inside the value?)"
        ));
    }
    Ok(())
}

/// Checks a row against the lookup lists, locally; the reason names the field.
pub fn validate(row: &InputRow, lookups: &Lookups) -> Result<Target, String> {
    for (field, value) in [
        ("country", &row.country),
        ("service", &row.service),
        ("id", &row.id),
        ("name", &row.name),
        ("streetnumber", &row.street_number),
        ("streetname", &row.street_name),
        ("city", &row.city),
        ("postcode", &row.postcode),
        ("phonenumber", &row.phone),
        ("company_id", &row.company_id),
    ] {
        check_field(field, value.as_ref())?;
    }
    if let Some(raw) = &row.company_id {
        let id = Uuid::parse_str(raw).map_err(|_| format!("company_id: {raw:?} is not a UUID"))?;
        return Ok(Target::Known(id));
    }
    let Some(given) = &row.country else {
        return Err("country: missing (default_country gives one to such rows)".into());
    };
    let code = lookups.check_country(given)?;
    let country = &code;
    match (&row.service, &row.id, &row.name) {
        (Some(service), Some(id), _) => {
            let known = lookups.services.get(country.as_str());
            let canonical = known
                .and_then(|list| list.iter().find(|s| s.eq_ignore_ascii_case(service)))
                .ok_or_else(|| {
                    let options = known
                        .map(|l| l.join(", "))
                        .unwrap_or_else(|| "none".into());
                    format!("service: {service:?} is not an identifier service for {country} (use one of: {options})")
                })?;
            Ok(Target::ById {
                country: country.clone(),
                service: canonical.clone(),
                id: crate::identifiers::restore_leading_zeros(canonical, id),
            })
        }
        (None, Some(_), None) => Err("service: missing for the id (e.g. SIREN, CRO, KVK)".into()),
        (Some(_), None, None) => Err("id: missing for the service".into()),
        (_, _, Some(name)) => Ok(Target::ByName(name_query(row, country.clone(), name))),
        (None, None, None) => {
            Err("id and name: neither given; a row needs service + id, or name".into())
        }
    }
}

/// The search by name a row makes: its name, narrowed by its address and phone.
fn name_query(row: &InputRow, country: String, name: &str) -> NameQuery {
    NameQuery {
        country,
        name: name.to_string(),
        street_number: row.street_number.clone(),
        street_name: row.street_name.clone(),
        city: row.city.clone(),
        postcode: row.postcode.clone(),
        phone_number: row.phone.clone(),
    }
}

/// Every search a valid row offers, in the order a run tries them, the next one only when
/// the one before finds no company (or breaks its registry's rules, see
/// `resolve::plan`):
///
/// 1. its identifier: `service` + `id`, or else the first filled registry column;
/// 2. the other filled registry columns (SIREN, SIRET, KVK, …), in the order of the
///    file's header, each once; a registry the row's country does not use is left out;
/// 3. its `name` with its filters (street, city, postcode, phone).
///
/// A row that gives its `company_id`, or only a name, has one. The first is what
/// [`validate`] returns, checked as it checks it: a row whose own identifier is wrong is
/// invalid, whatever else it gives.
pub fn targets(row: &InputRow, lookups: &Lookups) -> Result<Vec<Target>, String> {
    let first = validate(row, lookups)?;
    let Target::ById { country, .. } = &first else {
        return Ok(vec![first]);
    };
    let country = country.clone();
    let mut all = vec![first];
    let registries = lookups.services.get(&country);
    // A record with more fields than its header may have its columns shifted: its carried
    // identifiers could be another column's values, so none is searched as a fallback.
    let carried = row.extra.iter().filter(|_| !row.extra_unreliable);
    for (header, value) in carried {
        // Identifier columns are carried with the row under their registry's code.
        let Some(code) = SERVICE_COLUMNS
            .iter()
            .find(|s| s.eq_ignore_ascii_case(header))
        else {
            continue;
        };
        let Some(service) =
            registries.and_then(|list| list.iter().find(|s| s.eq_ignore_ascii_case(code)))
        else {
            continue;
        };
        if check_field(header, Some(value)).is_err() {
            continue;
        }
        let target = Target::ById {
            country: country.clone(),
            service: service.clone(),
            id: crate::identifiers::restore_leading_zeros(service, value),
        };
        if !all.contains(&target) {
            all.push(target);
        }
    }
    if let Some(name) = &row.name {
        all.push(Target::ByName(name_query(row, country, name)));
    }
    Ok(all)
}

/// Alpha-3 codes of the countries the service rates and of the French territories.
const ALPHA3: [(&str, &str); 17] = [
    ("FRA", "FR"),
    ("GBR", "GB"),
    ("IRL", "IE"),
    ("DEU", "DE"),
    ("ESP", "ES"),
    ("BEL", "BE"),
    ("LUX", "LU"),
    ("NLD", "NL"),
    ("ITA", "IT"),
    ("CHN", "CN"),
    ("GUF", "GF"),
    ("GLP", "GP"),
    ("MTQ", "MQ"),
    ("MYT", "YT"),
    ("REU", "RE"),
    ("SPM", "PM"),
    ("WLF", "WF"),
];

/// The rated countries' names in the languages their exports are written in, folded as
/// [`normalize_name`] folds them (the lookup list adds the service's own spelling).
const NAMES: &[(&str, &str)] = &[
    ("france", "FR"),
    ("frankreich", "FR"),
    ("francia", "FR"),
    ("frankrijk", "FR"),
    ("royaume uni", "GB"),
    ("united kingdom", "GB"),
    ("great britain", "GB"),
    ("uk", "GB"),
    ("grossbritannien", "GB"),
    ("vereinigtes konigreich", "GB"),
    ("reino unido", "GB"),
    ("regno unito", "GB"),
    ("verenigd koninkrijk", "GB"),
    ("ireland", "IE"),
    ("irlande", "IE"),
    ("irland", "IE"),
    ("irlanda", "IE"),
    ("ierland", "IE"),
    ("germany", "DE"),
    ("allemagne", "DE"),
    ("deutschland", "DE"),
    ("alemania", "DE"),
    ("germania", "DE"),
    ("duitsland", "DE"),
    ("spain", "ES"),
    ("espagne", "ES"),
    ("spanien", "ES"),
    ("espana", "ES"),
    ("spagna", "ES"),
    ("spanje", "ES"),
    ("belgium", "BE"),
    ("belgique", "BE"),
    ("belgien", "BE"),
    ("belgie", "BE"),
    ("luxembourg", "LU"),
    ("luxemburg", "LU"),
    ("netherlands", "NL"),
    ("pays bas", "NL"),
    ("niederlande", "NL"),
    ("nederland", "NL"),
    ("italy", "IT"),
    ("italie", "IT"),
    ("italien", "IT"),
    ("italia", "IT"),
    ("china", "CN"),
    ("chine", "CN"),
    ("cina", "CN"),
];

/// A country as a row gives it — an alpha-2 code, an alpha-3 code or a name (`France`,
/// `Deutschland`) — as the code the service knows, or the reason it is not one with the
/// nearest code.
fn country_code(given: &str, lookups: &Lookups) -> Result<String, String> {
    let upper = given.trim().to_uppercase();
    if upper.len() == 2 && upper.chars().all(|c| c.is_ascii_alphabetic()) {
        return Ok(upper);
    }
    if let Some((_, code)) = ALPHA3.iter().find(|(a3, _)| *a3 == upper) {
        return Ok(code.to_string());
    }
    let folded = normalize_name(given);
    let known = NAMES
        .iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .chain(lookups.names.iter().map(|(n, c)| (n.clone(), c.clone())));
    let mut nearest: Option<(usize, String)> = None;
    for (name, code) in known {
        if name == folded {
            return Ok(code);
        }
        let d = crate::text::distance(&name, &folded);
        if nearest.as_ref().is_none_or(|(best, _)| d < *best) {
            nearest = Some((d, code));
        }
    }
    let hint = nearest
        .filter(|(d, _)| *d <= 3)
        .map(|(_, code)| format!("; did you mean {code}?"))
        .unwrap_or_default();
    Err(format!(
        "country: {given:?} is not a country code (two letters, e.g. FR){hint}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn lookups() -> Lookups {
        let c = |code: &str| Country {
            code: code.into(),
            name: code.into(),
        };
        let s = |cc: &str, code: &str| IdentifierService {
            country: cc.into(),
            code: code.into(),
            label: String::new(),
        };
        Lookups::new(
            &[c("FR"), c("GB"), c("US"), c("GP")],
            &[
                s("FR", "SIREN"),
                s("FR", "SIRET"),
                s("GB", "CRO"),
                s("GP", "SIREN"),
            ],
        )
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
        match validate(&got[2], &lookups()).unwrap() {
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
    fn rows_are_checked_locally_with_the_field_named() {
        let l = lookups();
        let row = |country: &str, service: &str, id: &str, name: &str| InputRow {
            line: 2,
            country: (!country.is_empty()).then(|| country.into()),
            service: (!service.is_empty()).then(|| service.into()),
            id: (!id.is_empty()).then(|| id.into()),
            name: (!name.is_empty()).then(|| name.into()),
            ..InputRow::default()
        };
        let reason = |r: InputRow| validate(&r, &l).unwrap_err();
        assert!(reason(row("", "", "", "Acme")).starts_with("country: missing"));
        assert!(reason(row("XX", "", "", "Acme")).starts_with("country: \"XX\" is not"));
        assert!(reason(row("US", "", "", "Acme")).contains("no ratings for US"));
        assert!(reason(row("FR", "", "", "")).starts_with("id and name: neither"));
        let r = reason(row("FR", "CRO", "123", ""));
        assert!(
            r.starts_with("service: \"CRO\"") && r.contains("SIREN, SIRET"),
            "{r}"
        );
        assert!(reason(row("FR", "", "123", "")).starts_with("service: missing"));
        let bad_uuid = InputRow {
            company_id: Some("nope".into()),
            ..row("FR", "", "", "")
        };
        assert!(reason(bad_uuid).starts_with("company_id:"));
        assert!(matches!(
            validate(&row("GP", "siren", "1", ""), &l),
            Ok(Target::ById { .. })
        ));
        let huge = "x".repeat(5_000_000);
        assert!(reason(row("FR", "", "", &huge)).starts_with("name: longer than 300"));
        assert!(reason(row("FR", "", "", "Acme\u{1b}[2J")).starts_with("name: contains control"));
        assert!(matches!(
            validate(&row("FR", "", "", "Acme"), &l),
            Ok(Target::ByName(_))
        ));
    }

    #[test]
    fn a_row_offers_its_identifiers_in_the_headers_order_then_its_name() {
        let got = rows(
            b"ref,country,SIRET,siren,KVK,name,city\n\
              C-1,FR,55210055400013,552100555,12345678,Acme,Lyon\n\
              C-2,FR,,5210055,,,\n\
              C-3,FR,,,,Acme,\n",
        );
        let l = lookups();
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
            validate(&got[0], &lookups()),
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
        let l = lookups();
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
        let target = validate(r, &lookups()).unwrap();
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

    #[test]
    fn countries_by_name_or_alpha_3_are_understood_or_get_a_suggestion() {
        let l = lookups();
        for given in ["France", "FRANCE", "fra", "Frankreich", "  france "] {
            assert_eq!(country_code(given, &l), Ok("FR".into()), "{given}");
        }
        assert_eq!(country_code("Royaume-Uni", &l), Ok("GB".into()));
        assert_eq!(country_code("GBR", &l), Ok("GB".into()));
        let e = country_code("Frnace", &l).unwrap_err();
        assert!(e.contains("did you mean FR?"), "{e}");
        let e = country_code("Atlantis", &l).unwrap_err();
        assert!(
            e.contains("is not a country code") && !e.contains("did you mean"),
            "{e}"
        );
    }
}
