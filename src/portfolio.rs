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

use sha2::{Digest, Sha256};
use uuid::Uuid;

pub use crate::model::InputRow;
use crate::model::{Country, IdentifierService, NameQuery, RATED_COUNTRIES};

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
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| err(None, format!("cannot read it: {e}")))?;
        if read == 0 {
            break;
        }
        n += 1;
        hasher.update(&line);
        if line.contains(&0) {
            return Err(err(
                Some(n),
                "this is not a CSV text file (it contains NUL bytes); export the sheet as CSV"
                    .into(),
            ));
        }
        if let Err(e) = std::str::from_utf8(&line) {
            let column = String::from_utf8_lossy(&line[..e.valid_up_to()])
                .chars()
                .count()
                + 1;
            return Err(err(
                Some(n),
                format!(
                    "not UTF-8 (byte 0x{:02X} at character {column}); save the file as \"CSV UTF-8\" or convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8",
                    line[e.valid_up_to()]
                ),
            ));
        }
    }
    if n == 0 {
        return Err(err(
            None,
            "the file is empty; a header line is needed (country, service, id or name, …)".into(),
        ));
    }
    Ok(Survey {
        sha256: format!("{:x}", hasher.finalize()),
        lines: n,
    })
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
}

/// An open portfolio, read one record at a time.
pub struct Portfolio {
    path: PathBuf,
    columns: Columns,
    reader: csv::Reader<Box<dyn Read + Send>>,
    record: csv::StringRecord,
    lines: LineIndex,
}

/// Line numbers from byte offsets. The csv reader reports where it started parsing a
/// record (blank lines and the CR of a CRLF included), so a second sequential pass over
/// the file counts newlines up to there and past any blank lines.
struct LineIndex {
    file: BufReader<File>,
    offset: u64,
    line: u64,
}

impl LineIndex {
    fn new(file: File) -> Self {
        LineIndex {
            file: BufReader::with_capacity(1 << 16, file),
            offset: 0,
            line: 1,
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
                if b == b'\n' {
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
    /// Opens the file, detects its delimiter and maps its header.
    pub fn open(path: &Path) -> Result<Portfolio, InputError> {
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
        let delimiter = detect_delimiter(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head));
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
        let columns = map_columns(&headers).map_err(err)?;
        Ok(Portfolio {
            path: path.to_path_buf(),
            columns,
            reader,
            record: csv::StringRecord::new(),
            lines: LineIndex::new(open()?),
        })
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
            return Ok(Some(InputRow {
                line,
                reference: cell(c.reference),
                country: cell(c.country).map(|v| v.to_uppercase()),
                service: cell(c.service),
                id: cell(c.id),
                name: cell(c.name),
                street_number: cell(c.street_number),
                street_name: cell(c.street_name),
                city: cell(c.city),
                postcode: cell(c.postcode),
                phone: cell(c.phone),
                company_id: cell(c.company_id),
            }));
        }
    }
}

/// Comma, semicolon or tab: whichever the header line uses most outside quotes.
fn detect_delimiter(head: &[u8]) -> u8 {
    let first_line = head.split(|b| *b == b'\n').next().unwrap_or(head);
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

/// Header names are matched case-insensitively, ignoring spaces, `_` and `-`.
fn map_columns(headers: &csv::StringRecord) -> Result<Columns, String> {
    let mut c = Columns::default();
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    for (i, raw) in headers.iter().enumerate() {
        let key: String = raw
            .trim()
            .chars()
            .filter(|ch| ch.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let (name, slot) = match key.as_str() {
            "country" | "countrycode" => ("country", &mut c.country),
            "service" | "idservice" | "identifierservice" => ("service", &mut c.service),
            "id" | "externalid" | "identifier" => ("id", &mut c.id),
            "name" | "companyname" => ("name", &mut c.name),
            "streetnumber" => ("streetnumber", &mut c.street_number),
            "streetname" | "street" => ("streetname", &mut c.street_name),
            "city" | "town" => ("city", &mut c.city),
            "postcode" | "postalcode" | "zip" | "zipcode" => ("postcode", &mut c.postcode),
            "phonenumber" | "phone" => ("phonenumber", &mut c.phone),
            "ref" | "reference" => ("ref", &mut c.reference),
            "companyid" => ("company_id", &mut c.company_id),
            _ => continue,
        };
        if let Some(first) = seen.insert(name, i) {
            return Err(format!(
                "columns {} and {} are both `{name}`; keep one",
                first + 1,
                i + 1
            ));
        }
        *slot = Some(i);
    }
    let found = || {
        headers
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if c.country.is_none() {
        return Err(format!(
            "no `country` column (found {}); the header needs country plus service and id, or name",
            found()
        ));
    }
    if c.id.is_some() != c.service.is_some() {
        return Err("`service` and `id` columns go together: one is missing".into());
    }
    if c.id.is_none() && c.name.is_none() && c.company_id.is_none() {
        return Err(format!(
            "no `service` + `id`, `name` or `company_id` column (found {}): nothing to look companies up by",
            found()
        ));
    }
    Ok(c)
}

/// The service's lookup lists, as the row checks need them.
#[derive(Debug, Clone, Default)]
pub struct Lookups {
    countries: HashSet<String>,
    /// Country → its identifier services, in the service's spelling.
    services: HashMap<String, Vec<String>>,
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
            services: by_country,
        }
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
    let Some(country) = &row.country else {
        return Err("country: missing".into());
    };
    if !lookups.countries.contains(country) {
        return Err(format!(
            "country: {country:?} is not a country code the service knows"
        ));
    }
    if !lookups.rated(country) {
        return Err(format!("country: the service has no ratings for {country}"));
    }
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
                id: restore_leading_zeros(canonical, id),
            })
        }
        (None, Some(_), None) => Err("service: missing for the id (e.g. SIREN, CRO, KVK)".into()),
        (Some(_), None, None) => Err("id: missing for the service".into()),
        (_, _, Some(name)) => Ok(Target::ByName(NameQuery {
            country: country.clone(),
            name: name.clone(),
            street_number: row.street_number.clone(),
            street_name: row.street_name.clone(),
            city: row.city.clone(),
            postcode: row.postcode.clone(),
            phone_number: row.phone.clone(),
        })),
        (None, None, None) => {
            Err("id and name: neither given; a row needs service + id, or name".into())
        }
    }
}

/// Spreadsheets turn `012345678` into `12345678`. For registries whose numbers have a
/// fixed length, an all-digit identifier that is too short gets its zeros back.
fn restore_leading_zeros(service: &str, id: &str) -> String {
    let width = match service.to_uppercase().as_str() {
        "SIREN" => 9,
        "SIRET" => 14,
        "CRO" | "KVK" => 8,
        "RCBE" => 10,
        "COFIS" => 11,
        _ => return id.to_string(),
    };
    if id.chars().all(|c| c.is_ascii_digit()) && id.len() < width {
        format!("{id:0>width$}")
    } else {
        id.to_string()
    }
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
        let mut p = Portfolio::open(&path).unwrap();
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
        let e = Portfolio::open(&path).unwrap_err();
        assert!(e.to_string().contains("no `country` column"), "{e}");

        let (_d, path) = write(b"country,name,Name\nFR,a,b\n");
        let e = Portfolio::open(&path).unwrap_err();
        assert!(
            e.to_string().contains("columns 2 and 3 are both `name`"),
            "{e}"
        );

        let (_d, path) = write(b"country,id\nFR,1\n");
        assert!(Portfolio::open(&path).is_err());
    }

    #[test]
    fn a_header_only_file_has_no_rows() {
        assert!(rows(b"country,name\r\n").is_empty());
    }
}
