//! The rows of report.html's full table as data, not markup: one line per row, its fields
//! apart by tabs, the first line naming them ([`FIELDS`]); gzip-compressed, then base64, in
//! a block the browser never runs (`<script type="application/octet-stream">`). The page's
//! script inflates it (`DecompressionStream`), searches it and shows only the rows that
//! match, so a row costs the page some 25 bytes instead of some 850 of markup, and a
//! browser opens a million rows.
//!
//! Only what the table shows and searches is here; every field of every row is in
//! report.csv and report.json. Base64 holds no character that could end the block or
//! start markup, whatever the rows hold; tabs and line breaks in a value (never there
//! once a row is printable) would become spaces.

use std::io::{self, BufWriter, Write};

use flate2::Compression;
use flate2::write::GzEncoder;

use base64::prelude::{BASE64_STANDARD, Engine as _};

use serde_json::{Value, json};

use super::{AlertGroup, Spool, changed_from, text};
use crate::locale::{Arg, Locale, Page, Reader, Zone};
use crate::model::{ResultRow, RowStatus};

/// The fields of a line, in order: the data's first line.
pub(super) const FIELDS: [&str; 14] = [
    "line", "ref", "country", "searched", "name", "company", "status", "color", "before", "change",
    "since", "alert", "stale", "error",
];

/// The compression's level. At a million rows (100 MB of lines) level 3 takes a second for
/// 20 MB; the default (6) twice as long for 3 % fewer bytes, level 1 half as long for 30 %
/// more.
const LEVEL: u32 = 3;

/// The data block of the rows, written as they come.
pub(super) struct RowsData {
    /// Rows reach the compressor a block at a time, not a line at a time.
    out: BufWriter<GzEncoder<Base64<Spool>>>,
    line: String,
}

impl RowsData {
    pub fn new(spool: Spool) -> io::Result<RowsData> {
        let mut data = RowsData {
            out: BufWriter::with_capacity(
                1 << 16,
                GzEncoder::new(Base64::new(spool), Compression::new(LEVEL)),
            ),
            line: String::with_capacity(256),
        };
        let header = FIELDS.join("\t");
        data.out.write_all(header.as_bytes())?;
        data.out.write_all(b"\n")?;
        Ok(data)
    }

    pub fn push(&mut self, row: &ResultRow) -> io::Result<()> {
        self.line.clear();
        line_of(row, &mut self.line);
        self.out.write_all(self.line.as_bytes())
    }

    /// The block's text: base64 of the gzip stream.
    pub fn finish(self) -> io::Result<Spool> {
        let encoder = self.out.into_inner().map_err(|e| e.into_error())?;
        encoder.finish()?.finish()
    }
}

/// A row's line, its newline included.
fn line_of(row: &ResultRow, out: &mut String) {
    let alert = match AlertGroup::of(row) {
        Some(AlertGroup::Listed) => "listed",
        Some(AlertGroup::Standing) => "standing",
        Some(AlertGroup::Acknowledged) => "acknowledged",
        None if row.alert => "alert",
        None => "",
    };
    let line = row.line.to_string();
    // Since when the company holds its color, not the service's last change date.
    let since = row.color_since.map(super::trend::day);
    let searched: &[&str] = &[text(&row.service), text(&row.id)];
    let fields: [&[&str]; 14] = [
        &[&line],
        &[text(&row.reference)],
        &[text(&row.country)],
        searched,
        &[text(&row.name)],
        &[text(&row.company_name)],
        &[row.status.as_str()],
        &[row.color.as_ref().map_or("", |c| c.as_str())],
        &[changed_from(row).map_or("", |c| c.as_str())],
        &[row.change.map_or("", |c| c.as_str())],
        &[since.as_deref().unwrap_or("")],
        &[alert],
        &[if row.stale { "stale" } else { "" }],
        &[text(&row.error)],
    ];
    for (i, parts) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        // Parts apart by a space (`SIREN 552100554`), the empty ones left out.
        let mut first = true;
        for part in parts.iter().filter(|p| !p.is_empty()) {
            if !first {
                out.push(' ');
            }
            first = false;
            if part.contains(['\t', '\n', '\r']) {
                out.push_str(&part.replace(['\t', '\n', '\r'], " "));
            } else {
                out.push_str(part);
            }
        }
    }
    out.push('\n');
}

/// The words of the page's script for a reader of another language than English (the
/// script's own, when there are none): JSON, which the page escapes as any attribute's value. The rows'
/// data keeps its values as programs write them (`red`, `unresolved`, `2026-11-21`), which
/// the script filters and sorts on; these are only what it shows. A count's forms are
/// each plural category's (`one`, `other`), for the browser's `Intl.PluralRules`.
pub(super) fn script_words(page: &Page) -> Option<String> {
    if page.locale() == Locale::En {
        return None;
    }
    let forms = |id: &str, args: &[(&str, &str)]| {
        let form = |count: u64| {
            let mut all: Vec<(&str, Arg)> = vec![("count", count.into())];
            all.extend(args.iter().map(|(k, v)| (*k, v.to_string().into())));
            page.text(id, &all)
        };
        json!({ "one": form(1), "other": form(5) })
    };
    let named = |prefix: &str, names: &[&str]| -> serde_json::Map<String, Value> {
        names
            .iter()
            .map(|n| (n.to_string(), page.word(&format!("{prefix}{n}")).into()))
            .collect()
    };
    let label = |id: &str| page.word(id).to_string();
    // The day as the reader writes it, of the data's `2026-11-21`: a pattern of {d}, {m}, {y}.
    let day = Reader {
        locale: page.locale(),
        zone: Zone::utc(),
    }
    .date("2001-02-03T12:00:00Z".parse().expect("a time"))
    .replace("2001", "{y}")
    .replace("02", "{m}")
    .replace("03", "{d}");
    let words = json!({
        "sortBy": label("script-sort-by"),
        "noBrowser": label("script-no-browser"),
        "reading": label("script-reading"),
        "unreadable": label("script-unreadable"),
        "rows": forms("script-rows", &[("n", "{n}")]),
        "match": forms("script-match", &[("m", "{m}"), ("n", "{n}")]),
        "firstShown": page.with("script-first-shown", "n", "{n}"),
        "showMore": page.with("script-show-more", "n", "{n}"),
        "labels": {
            "ref": label("label-ref"),
            "country": label("label-country"),
            "searched": label("label-searched"),
            "status": label("label-status"),
            "company": label("label-company"),
            "color": label("label-color"),
            "change": label("label-change"),
            "since": label("label-color-since"),
            "details": label("label-details"),
        },
        "colors": named("color-", &["green", "yellow", "red", "black", "white"]),
        "statuses": named("status-", &RowStatus::ALL.map(RowStatus::as_str)),
        "changes": named(
            "change-",
            &["new", "unchanged", "evolved", "deteriorated", "improved", "changed", "gone"],
        ),
        "became": label("label-became"),
        "acknowledged": label("label-acknowledged"),
        "stale": label("stale-tag"),
        "day": day,
    });
    Some(words.to_string())
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.push(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Standard base64 with padding of every byte written, streamed to `out`.
struct Base64<W: Write> {
    out: W,
    /// The bytes short of a whole group of three.
    pending: Vec<u8>,
}

impl<W: Write> Base64<W> {
    fn new(out: W) -> Base64<W> {
        Base64 {
            out,
            pending: Vec::with_capacity(3),
        }
    }

    /// Writes the last group, padded, and gives `out` back.
    fn finish(mut self) -> io::Result<W> {
        self.out
            .write_all(BASE64_STANDARD.encode(&self.pending).as_bytes())?;
        Ok(self.out)
    }
}

impl<W: Write> Write for Base64<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let whole = self.pending.len() / 3 * 3;
        if whole > 0 {
            self.out
                .write_all(BASE64_STANDARD.encode(&self.pending[..whole]).as_bytes())?;
            self.pending.drain(..whole);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::{Color, RowStatus};
    use std::io::Read;

    /// The block's text back to the lines, as the page's script reads it.
    pub(in crate::report::html) fn decode(block: &str) -> String {
        let bytes = unbase64(block);
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    fn unbase64(text: &str) -> Vec<u8> {
        BASE64_STANDARD.decode(text).expect("base64")
    }

    fn block(rows: &[ResultRow]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut data = RowsData::new(Spool::new(dir.path())).unwrap();
        for row in rows {
            data.push(row).unwrap();
        }
        let mut out = Vec::new();
        data.finish().unwrap().copy_to(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn base64_streams_as_it_encodes_whole() {
        for len in [0usize, 1, 2, 3, 4, 100, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
            let mut out = Base64::new(Vec::new());
            for chunk in bytes.chunks(7) {
                out.write_all(chunk).unwrap();
            }
            assert_eq!(
                String::from_utf8(out.finish().unwrap()).unwrap(),
                BASE64_STANDARD.encode(&bytes)
            );
        }
    }

    #[test]
    fn each_row_is_a_line_of_its_fields_and_nothing_can_break_out() {
        let mut red = ResultRow::example(2);
        red.reference = Some("</script><script>alert(1)</script>".into());
        red.company_name = Some("<script>alert(2)</script><!-- Tab\there & a\nline".into());
        red.status = RowStatus::Rated;
        red.color = Some(Color::Red);
        red.previous_color = Some(Color::Yellow);
        red.change = Some(crate::model::Change::Deteriorated);
        red.alert = true;
        red.alert_listed = true;
        let mut failed = ResultRow::example(3);
        failed.status = RowStatus::Failed;
        failed.error = Some("HTTP 503".into());
        let text = block(&[red, failed]);
        assert!(
            text.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)),
            "base64 only"
        );
        let lines = decode(&text);
        let lines: Vec<Vec<&str>> = lines.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], FIELDS);
        let field =
            |row: usize, name: &str| lines[row][FIELDS.iter().position(|f| *f == name).unwrap()];
        assert_eq!(field(1, "ref"), "</script><script>alert(1)</script>");
        assert_eq!(
            field(1, "company"),
            "<script>alert(2)</script><!-- Tab here & a line"
        );
        assert_eq!(field(1, "color"), "red");
        assert_eq!(field(1, "before"), "yellow");
        assert_eq!(field(1, "change"), "deteriorated");
        assert_eq!(field(1, "alert"), "listed");
        assert_eq!(field(2, "line"), "3");
        assert_eq!(field(2, "status"), "failed");
        assert_eq!(field(2, "error"), "HTTP 503");
        assert!(lines.iter().all(|l| l.len() == FIELDS.len()));
    }
}
