//! `report.html`: the run for a person to look at — its header, tiles of counts by color,
//! the trend of the portfolio's last runs by color (an inline SVG chart of plain data
//! handed in by the caller), the alerts listed tonight first (headed by the summary's
//! count of companies, worst first as the summary lists them, a company's rows together),
//! the standing and the acknowledged ones apart and folded, each with its own count, then
//! every row in a table that sorts, filters and searches, with the candidates
//! of ambiguous rows. Each rating shows when the service last recalculated it; a stale one
//! is marked, and counted at the top.
//!
//! One self-contained file: inline style, script and SVG, no fonts, images or links to
//! fetch, so it opens offline and as a mail attachment; a Content-Security-Policy allows only its own
//! style and script. The page reads fine with scripts off (the controls stay hidden), when
//! printed and on a phone.
//!
//! The markup is in `html/templates/report.html` (askama, checked when the crate compiles),
//! whose every value is escaped by [`HtmlEscaper`]. Rows stream: the page is written a block
//! of that template at a time, and what comes later in the page waits in a `Spool`, in memory
//! up to `SPILL_BYTES` and then in an anonymous temporary file. This module renders; it never
//! reads the database and never decides where the file goes.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use askama::Template;
use jiff::Timestamp;
use sha2::{Digest, Sha256};

use super::{Format, Output};
use crate::alerts::AlertKind;
use crate::model::{Candidate, Change, Color, ResultRow, RowStatus, RunColors, RunInfo};

/// Rows shown in the full table. Beyond this a browser grows slow to sort and filter, so the
/// rest are left to report.csv, with a note saying so. Alerts are always listed in full.
pub const TABLE_ROWS: u64 = 10_000;

/// Bytes a spool keeps in memory before it moves to a temporary file.
const SPILL_BYTES: usize = 1 << 18;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The five colors of the service, in the order of the tiles.
const COLORS: [Color; 5] = [
    Color::Green,
    Color::Yellow,
    Color::Red,
    Color::Black,
    Color::White,
];

/// Text made safe anywhere in HTML, element content and quoted attribute values alike.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The templates' escaping of every value they show (askama.toml names it for `.html`
/// templates): [`escape`], with named entities (`&amp;`, `&quot;`, …) where askama's own
/// escaper writes numeric ones (`&#38;`, `&#34;`, …), so the page stays as it always was.
#[derive(Debug, Clone, Copy)]
pub struct HtmlEscaper;

impl askama::filters::Escaper for HtmlEscaper {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, text: &str) -> fmt::Result {
        dest.write_str(&escape(text))
    }
}

/// A Content-Security-Policy source allowing exactly `text` as an inline style or script:
/// `'sha256-…'`. Injected markup, were an escape ever missed, would not run.
pub fn csp_source(text: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(text.as_bytes())))
}

/// Standard base64 with padding (RFC 4648), for the policy's hashes.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Bytes set aside for later in the page: in memory up to `SPILL_BYTES`, then in an
/// anonymous temporary file (removed by the system however the process ends).
struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
    dir: PathBuf,
}

impl Spool {
    fn new(dir: &Path) -> Spool {
        Spool {
            memory: Vec::new(),
            file: None,
            dir: dir.to_path_buf(),
        }
    }

    fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(file) = &mut self.file {
            return file.write_all(bytes);
        }
        self.memory.extend_from_slice(bytes);
        if self.memory.len() > SPILL_BYTES {
            let mut file = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(&self.dir)?);
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        Ok(())
    }

    fn copy_to(self, out: &mut impl Write) -> io::Result<()> {
        match self.file {
            None => out.write_all(&self.memory),
            Some(file) => {
                let mut file = file.into_inner().map_err(|e| e.into_error())?;
                file.seek(SeekFrom::Start(0))?;
                io::copy(&mut file, out).map(|_| ())
            }
        }
    }
}

pub struct HtmlReport<W: Output> {
    out: W,
    /// File name of the CSV report, which the page points to for every row.
    csv_name: String,
    run: Option<RunInfo>,
    /// The rows of the alerts listed tonight, worst first, a company's rows together (as
    /// the store gives them: see `Format::alert_row`).
    listed: Alerts,
    /// The rows of the standing alerts: still red or black, not listed tonight, not
    /// acknowledged.
    standing: Alerts,
    /// The rows of the alerts an acknowledgement keeps out of the list.
    acked: Alerts,
    /// The first `TABLE_ROWS` rows of the full table.
    table: Spool,
    /// No row red or black and no color change: only then does "nothing flagged" say
    /// there was nothing, as the rules may leave some out.
    untouched: bool,
    rows: u64,
    /// Rows whose rating is stale, for the notice at the top.
    stale: u64,
    /// The reports' threshold of staleness, in days, for that notice.
    stale_after_days: u32,
    /// One row's markup, reused.
    line: String,
    /// The portfolio's last runs up to this one, for the trend chart.
    trend: Vec<RunColors>,
}

impl<W: Output> HtmlReport<W> {
    /// `csv_name` is what the page calls the CSV report; `spool_dir` holds the temporary
    /// files of a large run (the report's own folder: it has room for the report).
    /// `stale_after_days` is the threshold that marked the rows' `stale`, for the notice.
    /// `trend` is the portfolio's last runs up to this one, oldest first (see
    /// `Store::color_trend`), drawn as a chart under the tiles.
    pub fn new(
        out: W,
        csv_name: &str,
        spool_dir: &Path,
        stale_after_days: u32,
        trend: Vec<RunColors>,
    ) -> Self {
        HtmlReport {
            out,
            csv_name: csv_name.to_string(),
            run: None,
            listed: Alerts::new(spool_dir),
            standing: Alerts::new(spool_dir),
            acked: Alerts::new(spool_dir),
            table: Spool::new(spool_dir),
            untouched: true,
            rows: 0,
            stale: 0,
            stale_after_days,
            line: String::new(),
            trend,
        }
    }
}

/// One group of alerts in the page: its rows' markup and how many companies they are.
struct Alerts {
    rows: Spool,
    companies: u64,
    /// The company of the last row pushed: a company's rows come together.
    last: Option<Option<uuid::Uuid>>,
}

impl Alerts {
    fn new(dir: &Path) -> Alerts {
        Alerts {
            rows: Spool::new(dir),
            companies: 0,
            last: None,
        }
    }

    fn push(&mut self, row: &ResultRow, markup: &str) -> io::Result<()> {
        // A row without a company (never an alert today) counts as one of its own.
        if self.last != Some(row.company_id) || row.company_id.is_none() {
            self.companies += 1;
            self.last = Some(row.company_id);
        }
        self.rows.push(markup.as_bytes())
    }
}

/// Which group of the page an alert's row belongs to: listed tonight, standing (kind
/// `still`, not listed, not acknowledged), or acknowledged; `None` for a row that is no
/// alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertGroup {
    Listed,
    Standing,
    Acknowledged,
}

impl AlertGroup {
    pub fn of(row: &ResultRow) -> Option<AlertGroup> {
        if !row.alert {
            None
        } else if row.alert_listed {
            Some(AlertGroup::Listed)
        } else if row.acknowledged {
            Some(AlertGroup::Acknowledged)
        } else if row.alert_kind == Some(AlertKind::Still) {
            Some(AlertGroup::Standing)
        } else {
            None
        }
    }
}

// The blocks of the template, one type each, in the order the page is written. Their fields
// are what the block shows; the functions below are what it computes, called by the template
// as `self::name(…)`.

/// Everything known before the first row: the page's head and the run's header.
#[derive(Template)]
#[template(path = "report.html", block = "head")]
struct Head<'a> {
    run: &'a RunInfo,
    /// The Content-Security-Policy: our own text, shown as is.
    policy: &'a str,
    style: &'a str,
    /// The five colors then any other received, with their counts.
    tiles: Vec<(Color, u64)>,
    statuses: Vec<(&'static str, u64)>,
    failed: u64,
    ambiguous: u64,
    /// The trend chart; none when there is no run to draw.
    trend: Option<Chart>,
}

/// After the last row: the header's end, then the alerts listed tonight up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "alerts_open")]
struct AlertsOpen {
    stale: u64,
    stale_after_days: u64,
    /// Companies listed tonight: the summary's count, and the run's `alerts`.
    alerts: u64,
    untouched: bool,
    /// What the run did not screen, if it did not screen every row (then nothing is said
    /// of those rows); empty if it did.
    unscreened: String,
}

/// One line of the alerts table.
#[derive(Template)]
#[template(path = "report.html", block = "alert_row")]
struct AlertRow<'a> {
    row: &'a ResultRow,
}

/// After the listed alerts' rows: the standing alerts up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "standing_open")]
struct StandingOpen {
    alerts: u64,
    standing: u64,
}

/// After the standing alerts' rows: the acknowledged ones up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "acked_open")]
struct AckedOpen {
    standing: u64,
    acked: u64,
}

/// After the alerts' rows: the full table up to its rows.
#[derive(Template)]
#[template(path = "report.html", block = "rows_open")]
struct RowsOpen<'a> {
    run: &'a RunInfo,
    acked: u64,
    rows: u64,
    table_rows: u64,
    statuses: Vec<(&'static str, u64)>,
    csv: &'a str,
}

/// One line of the full table.
#[derive(Template)]
#[template(path = "report.html", block = "table_row")]
struct TableRow<'a> {
    row: &'a ResultRow,
}

/// After the table's rows: the page's end.
#[derive(Template)]
#[template(path = "report.html", block = "page_end")]
struct PageEnd<'a> {
    run: &'a RunInfo,
    version: &'a str,
    calls: u64,
    csv: &'a str,
    script: &'a str,
}

/// The class of a color's badge or tile; anything outside the five gets a neutral look
/// (never a class made from the service's text).
fn color_class(color: &Color) -> &'static str {
    match color {
        Color::Green => "c-green",
        Color::Yellow => "c-yellow",
        Color::Red => "c-red",
        Color::Black => "c-black",
        Color::White => "c-white",
        Color::Other(_) => "c-other",
    }
}

/// The class of a color's part of a bar in the trend chart (SVG fills, in report.css).
fn fill_class(color: &Color) -> &'static str {
    match color {
        Color::Green => "fill-green",
        Color::Yellow => "fill-yellow",
        Color::Red => "fill-red",
        Color::Black => "fill-black",
        Color::White => "fill-white",
        Color::Other(_) => "fill-other",
    }
}

/// Sort key of a row's color: along the risk scale, then white, unknown colors and none.
fn color_rank(row: &ResultRow) -> u8 {
    match &row.color {
        Some(c) => c.risk_rank().unwrap_or(match c {
            Color::White => 4,
            _ => 5,
        }),
        None => 6,
    }
}

/// The color a row had before, when its color changed.
fn changed_from(row: &ResultRow) -> Option<&Color> {
    match (row.change, &row.previous_color) {
        (Some(change), Some(before)) if change.is_color_change() => Some(before),
        _ => None,
    }
}

fn color_name(row: &ResultRow) -> &str {
    row.color.as_ref().map_or("", Color::as_str)
}

fn row_class(row: &ResultRow) -> &'static str {
    match (row.alert, row.stale) {
        (true, true) => "alert stale",
        (true, false) => "alert",
        (false, true) => "stale",
        (false, false) => "",
    }
}

/// The change, and whether an acknowledgement took the alert out of the mail.
fn change(row: &ResultRow) -> String {
    let change = row.change.map_or("", Change::as_str);
    if row.acknowledged {
        format!("{change} · acknowledged")
    } else {
        change.to_string()
    }
}

fn text(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// The company as the service names it, else as the portfolio does.
fn company(row: &ResultRow) -> &str {
    let company = row.company_name.as_ref().or(row.name.as_ref());
    company.map_or("", String::as_str)
}

/// What the row searched for: `SIREN 552100554 · Acme SA`.
fn searched(row: &ResultRow) -> String {
    let identifier = [row.service.as_deref(), row.id.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    [identifier.as_str(), row.name.as_deref().unwrap_or("")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Where a candidate is: `33000 Bordeaux`.
fn place(candidate: &Candidate) -> String {
    [candidate.postcode.as_str(), candidate.city.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `2026-11-21 02:00:00 UTC`.
fn when(time: &Timestamp) -> String {
    time.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// A date of the service's as [`when`] shows it; empty when it gave none.
fn shown(time: &Option<Timestamp>) -> String {
    time.as_ref().map(when).unwrap_or_default()
}

/// A date of the service's as stored (`2026-11-21T02:00:00Z`), which sorts as time does;
/// empty when it gave none.
fn stored(time: &Option<Timestamp>) -> String {
    time.map(crate::model::time_text).unwrap_or_default()
}

/// `1 row`, `2 rows`. (Takes a reference: templates pass their arguments so.)
fn plural(n: &u64, one: &str, many: &str) -> String {
    crate::text::plural(*n, one, many)
}

/// Each status with its count, in the order of [`RowStatus::ALL`].
fn statuses(run: &RunInfo) -> Vec<(&'static str, u64)> {
    RowStatus::ALL
        .iter()
        .map(|s| (s.as_str(), run.rows_with(*s)))
        .collect()
}

/// The five colors with their counts, then each color outside the five as received.
fn tiles(run: &RunInfo) -> Vec<(Color, u64)> {
    let mut colors: Vec<(Color, u64)> = COLORS
        .iter()
        .map(|c| {
            let n = run
                .by_color
                .iter()
                .find(|(name, _)| name == c.as_str())
                .map_or(0, |(_, n)| *n);
            (c.clone(), n)
        })
        .collect();
    for (name, n) in &run.by_color {
        let color = Color::parse(name);
        if matches!(color, Color::Other(_)) {
            // Shown as received (in its bounded form), not folded into the five.
            colors.push((color, *n));
        }
    }
    colors
}

/// The trend chart's drawing area, in the units of its viewBox.
const CHART_WIDTH: f64 = 640.0;
const CHART_HEIGHT: f64 = 170.0;
/// Left of the bars: room for the scale's numbers.
const PLOT_LEFT: f64 = 44.0;
const PLOT_TOP: f64 = 8.0;
/// Below the bars: room for the runs' numbers.
const PLOT_BOTTOM: f64 = 148.0;
/// A bar never gets wider than this, so two runs do not look like a wall.
const BAR_MAX: f64 = 48.0;

/// The trend of the portfolio's rated rows by color over its last runs: one stacked bar per
/// run, its height the run's rated rows on a scale shared by every bar. Computed here, so
/// the template only writes numbers; an SVG without script, fonts or links.
struct Chart {
    bars: Vec<Bar>,
    /// The colors drawn, in the tiles' order, for the legend.
    legend: Vec<Color>,
    /// The largest bar's rows: the top of the scale.
    top: u64,
    /// What the chart shows, in words, for a screen reader.
    desc: String,
    /// The first and last run drawn.
    first: i64,
    last: i64,
}

struct Bar {
    run_id: i64,
    /// `run 3 (2026-11-21): 60 green, 3 red`.
    title: String,
    x: String,
    width: String,
    /// Center of the bar, for its label.
    middle: String,
    /// Whether the bar's run number is written under it (all of them, or every fifth when
    /// there are many), and whether it is the run of this report.
    labelled: bool,
    current: bool,
    segments: Vec<Segment>,
}

struct Segment {
    color: Color,
    rows: u64,
    y: String,
    height: String,
}

/// A coordinate, short: `12.5`, `40`.
fn coordinate(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// The five colors from the bottom of a bar up: the riskiest stand on the baseline, so
/// their share compares across runs at a glance; white (not rated) on top.
const STACK: [Color; 5] = [
    Color::Black,
    Color::Red,
    Color::Yellow,
    Color::Green,
    Color::White,
];

/// A run's colors in stacking order: the five, then the others as received, by name.
fn stacked(by_color: &[(String, u64)]) -> Vec<(Color, u64)> {
    let mut colors: Vec<(Color, u64)> = STACK
        .iter()
        .filter_map(|c| {
            let n = by_color
                .iter()
                .find(|(name, _)| name == c.as_str())
                .map_or(0, |(_, n)| *n);
            (n > 0).then(|| (c.clone(), n))
        })
        .collect();
    let mut others: Vec<(Color, u64)> = by_color
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| (Color::parse(name), *n))
        .filter(|(color, _)| matches!(color, Color::Other(_)))
        .collect();
    others.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    colors.extend(others);
    colors
}

/// Where a color stands in the tiles' order: the five, then the others.
fn tile_order(color: &Color) -> usize {
    COLORS
        .iter()
        .position(|k| k == color)
        .unwrap_or(COLORS.len())
}

/// `60 green, 3 red`, in the tiles' order, or `no rated row`.
fn counts_text(colors: &[(Color, u64)]) -> String {
    if colors.is_empty() {
        return "no rated row".to_string();
    }
    let mut colors = colors.to_vec();
    colors.sort_by_key(|(c, _)| tile_order(c));
    colors
        .iter()
        .map(|(c, n)| format!("{n} {}", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `2026-11-21` of a time, in UTC.
fn day(time: Timestamp) -> String {
    time.strftime("%Y-%m-%d").to_string()
}

impl Chart {
    /// The chart of `trend` (oldest first, ending with `run`); none when it is empty.
    fn of(run: &RunInfo, trend: &[RunColors]) -> Option<Chart> {
        let (first, last) = (trend.first()?, trend.last()?);
        let runs: Vec<(&RunColors, Vec<(Color, u64)>)> =
            trend.iter().map(|t| (t, stacked(&t.by_color))).collect();
        let total = |colors: &[(Color, u64)]| colors.iter().map(|(_, n)| n).sum::<u64>();
        let top = runs.iter().map(|(_, c)| total(c)).max().unwrap_or(0);
        // Few runs stand side by side at the left, as the first of many would.
        let step = ((CHART_WIDTH - PLOT_LEFT) / runs.len() as f64).min(BAR_MAX / 0.7);
        let width = (step * 0.7).min(BAR_MAX);
        let height = PLOT_BOTTOM - PLOT_TOP;
        let every = if runs.len() <= 12 { 1 } else { 5 };
        let mut legend: Vec<Color> = Vec::new();
        let bars = runs
            .iter()
            .enumerate()
            .map(|(i, (t, colors))| {
                let x = PLOT_LEFT + step * i as f64 + (step - width) / 2.0;
                let mut y = PLOT_BOTTOM;
                let segments = colors
                    .iter()
                    .map(|(color, rows)| {
                        if !legend.contains(color) {
                            legend.push(color.clone());
                        }
                        let h = if top == 0 {
                            0.0
                        } else {
                            height * *rows as f64 / top as f64
                        };
                        y -= h;
                        Segment {
                            color: color.clone(),
                            rows: *rows,
                            y: coordinate(y),
                            height: coordinate(h),
                        }
                    })
                    .collect();
                Bar {
                    run_id: t.run_id,
                    title: format!(
                        "run {} ({}): {}",
                        t.run_id,
                        day(t.started_at),
                        counts_text(colors)
                    ),
                    x: coordinate(x),
                    width: coordinate(width),
                    middle: coordinate(x + width / 2.0),
                    labelled: i == 0 || i + 1 == runs.len() || (i + 1) % every == 0,
                    current: t.run_id == run.id,
                    segments,
                }
            })
            .collect::<Vec<_>>();
        // The legend in the tiles' order, whatever run showed a color first.
        legend.sort_by(|a, b| (tile_order(a), a.as_str()).cmp(&(tile_order(b), b.as_str())));
        let desc = format!(
            "Rated rows of {} by color in {}, oldest first. {}.",
            run.portfolio,
            if runs.len() == 1 {
                format!("run {}, the only finished run so far", first.run_id)
            } else {
                format!(
                    "its last {} runs, from run {} to run {}",
                    runs.len(),
                    first.run_id,
                    last.run_id
                )
            },
            bars.iter()
                .map(|b| b.title.clone())
                .collect::<Vec<_>>()
                .join("; ")
        );
        Some(Chart {
            bars,
            legend,
            top,
            desc,
            first: first.run_id,
            last: last.run_id,
        })
    }

    /// The scale's top number, placed level with the top of the bars.
    fn top_label(&self) -> String {
        self.top.to_string()
    }

    fn view_box(&self) -> String {
        format!(
            "0 0 {} {}",
            coordinate(CHART_WIDTH),
            coordinate(CHART_HEIGHT)
        )
    }

    fn single(&self) -> bool {
        self.bars.len() == 1
    }
}

/// Renders a block into `out`, which it clears first.
fn render_line(block: &impl Template, out: &mut String) -> io::Result<()> {
    out.clear();
    block.render_into(out).map_err(io::Error::other)
}

impl<W: Output> Format for HtmlReport<W> {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()> {
        let policy = format!(
            "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
            csp_source(STYLE),
            csp_source(SCRIPT)
        );
        let head = Head {
            run,
            policy: &policy,
            style: STYLE,
            tiles: tiles(run),
            statuses: statuses(run),
            failed: run.rows_with(RowStatus::Failed),
            ambiguous: run.rows_with(RowStatus::Ambiguous),
            trend: Chart::of(run, &self.trend),
        };
        head.write_into(&mut self.out)?;
        self.run = Some(run.clone());
        Ok(())
    }

    fn row(&mut self, row: &ResultRow) -> io::Result<()> {
        self.rows += 1;
        if row.stale {
            self.stale += 1;
        }
        if row.color.as_ref().is_some_and(Color::is_alarming)
            || row.change.is_some_and(Change::is_color_change)
        {
            self.untouched = false;
        }
        if self.rows <= TABLE_ROWS {
            render_line(&TableRow { row }, &mut self.line)?;
            self.table.push(self.line.as_bytes())?;
        }
        Ok(())
    }

    fn alert_row(&mut self, row: &ResultRow) -> io::Result<()> {
        let group = match AlertGroup::of(row) {
            Some(AlertGroup::Listed) => &mut self.listed,
            Some(AlertGroup::Standing) => &mut self.standing,
            Some(AlertGroup::Acknowledged) => &mut self.acked,
            None => return Ok(()),
        };
        render_line(&AlertRow { row }, &mut self.line)?;
        group.push(row, &self.line)
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        let run = self.run.take().expect("begin was called");
        let this = *self;
        let mut out = this.out;
        let (alerts, standing, acked) = (
            this.listed.companies,
            this.standing.companies,
            this.acked.companies,
        );
        AlertsOpen {
            stale: this.stale,
            stale_after_days: this.stale_after_days.into(),
            alerts,
            untouched: this.untouched,
            unscreened: super::summary::unscreened(&run).unwrap_or_default(),
        }
        .write_into(&mut out)?;
        this.listed.rows.copy_to(&mut out)?;
        StandingOpen { alerts, standing }.write_into(&mut out)?;
        this.standing.rows.copy_to(&mut out)?;
        AckedOpen { standing, acked }.write_into(&mut out)?;
        this.acked.rows.copy_to(&mut out)?;
        RowsOpen {
            run: &run,
            acked,
            rows: this.rows,
            table_rows: TABLE_ROWS,
            statuses: statuses(&run),
            csv: &this.csv_name,
        }
        .write_into(&mut out)?;
        this.table.copy_to(&mut out)?;
        PageEnd {
            run: &run,
            version: env!("CARGO_PKG_VERSION"),
            calls: run.calls.iter().map(|(_, n)| n).sum(),
            csv: &this.csv_name,
            script: SCRIPT,
        }
        .write_into(&mut out)?;
        out.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Candidate, RunStatus, time};

    fn run(rows: u64, alerts: u64) -> RunInfo {
        RunInfo {
            id: 3,
            finished_at: Some(time("2026-11-21T02:03:10Z")),
            portfolio_sha256: "ab".repeat(32),
            rows,
            by_status: RowStatus::ALL
                .iter()
                .map(|s| (*s, if *s == RowStatus::Rated { rows } else { 0 }))
                .collect(),
            by_color: vec![("green".into(), rows)],
            alerts,
            calls: vec![("rating".into(), rows)],
            ..RunInfo::example()
        }
    }

    fn rated(line: u64, color: Color, before: Option<Color>) -> ResultRow {
        let change = match &before {
            None => Change::New,
            Some(b) => Change::classify(Some((b, Some(1))), &color, Some(2)),
        };
        // Alerts as the rules decide them by default: news listed, standing ones not.
        let kind = AlertKind::of(change, &color);
        ResultRow {
            company_id: Some(uuid::Uuid::from_u128(line.into())),
            company_name: Some(format!("Company {line}")),
            alert: kind.is_some(),
            alert_kind: kind,
            alert_listed: kind.is_some_and(AlertKind::is_news),
            color: Some(color),
            previous_color: before,
            change: Some(change),
            last_change_date: Some(time("2026-11-20T00:00:00Z")),
            ..ResultRow::example(line)
        }
    }

    fn render(run: &RunInfo, rows: &[ResultRow]) -> String {
        render_with_trend(run, rows, vec![])
    }

    fn render_with_trend(run: &RunInfo, rows: &[ResultRow], trend: Vec<RunColors>) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut buf = Vec::new();
        let mut r = Box::new(HtmlReport::new(
            &mut buf,
            "report.csv",
            dir.path(),
            30,
            trend,
        ));
        r.begin(run).unwrap();
        for row in rows {
            r.row(row).unwrap();
        }
        // The alerts' rows again, as the store gives them: listed, standing, acknowledged,
        // worst first, a company's rows together.
        let mut alerts: Vec<&ResultRow> = rows.iter().filter(|r| r.alert).collect();
        alerts.sort_by_key(|r| {
            (
                !r.alert_listed,
                r.acknowledged,
                r.alert_kind.map(AlertKind::severity),
                r.company_id,
                r.line,
            )
        });
        for row in alerts {
            r.alert_row(row).unwrap();
        }
        r.finish().unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temporary file left behind"
        );
        String::from_utf8(buf).unwrap()
    }

    /// The markup between `start` and the next `end`.
    fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
        let from = html.find(start).unwrap_or_else(|| panic!("no {start}")) + start.len();
        let to = html[from..].find(end).unwrap_or_else(|| panic!("no {end}")) + from;
        &html[from..to]
    }

    /// The table of the alerts listed tonight.
    fn listed(html: &str) -> &str {
        between(html, "<table class=\"alerts listed sortable\">", "</table>")
    }

    /// The refs of the alerts listed tonight, in the table's order.
    fn listed_refs(html: &str) -> Vec<&str> {
        listed(html)
            .split("class=\"ref\">")
            .skip(1)
            .map(|s| &s[..s.find('<').unwrap()])
            .collect()
    }

    #[test]
    fn a_spool_moves_to_a_file_past_its_memory_and_gives_back_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = Spool::new(dir.path());
        let chunk: Vec<u8> = (0..=255).collect();
        let mut expected = Vec::new();
        while expected.len() <= SPILL_BYTES + 1000 {
            spool.push(&chunk).unwrap();
            expected.extend_from_slice(&chunk);
        }
        assert!(spool.file.is_some() && spool.memory.is_empty());
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert!(
            out == expected,
            "{} bytes back of {}",
            out.len(),
            expected.len()
        );
    }

    #[test]
    fn escape_covers_markup_and_both_quotes() {
        assert_eq!(escape("Acme SA"), "Acme SA");
        assert!(matches!(escape("Acme SA"), Cow::Borrowed(_)));
        assert_eq!(
            escape("<a href=\"x\" title='y'>Tom & Jerry</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;"
        );
    }

    #[test]
    fn the_templates_escape_every_value_as_escape_does_in_every_field() {
        let nasty = "<a href=\"x\" title='y'>Tom & Jerry</a> {{ run.id }} {% if x %}";
        let shown = escape(nasty).into_owned();
        let mut row = rated(2, Color::Other(nasty.into()), Some(Color::Red));
        row.alert = true;
        row.reference = Some(nasty.into());
        row.country = Some(nasty.into());
        row.service = Some(nasty.into());
        row.id = Some(nasty.into());
        row.name = Some(nasty.into());
        row.company_name = Some(nasty.into());
        row.error = Some(nasty.into());
        row.candidates = vec![Candidate {
            id: uuid::Uuid::nil(),
            name: nasty.into(),
            city: nasty.into(),
            postcode: nasty.into(),
        }];
        let mut info = run(1, 1);
        info.portfolio = nasty.into();
        info.input_path = nasty.into();
        info.portfolio_sha256 = nasty.into();
        info.by_color = vec![(nasty.into(), 1)];
        let dir = tempfile::tempdir().unwrap();
        let mut buf = Vec::new();
        let mut r = Box::new(HtmlReport::new(&mut buf, nasty, dir.path(), 30, vec![]));
        r.begin(&info).unwrap();
        r.row(&row).unwrap();
        r.finish().unwrap();
        let html = String::from_utf8(buf).unwrap();
        // Every field above, each place it is shown: ref, company, country, searched (twice),
        // color (tile, option, badge, data-color), error, candidate (name, place twice), run
        // header and footer. (Dates are times, never text.)
        assert!(html.matches(&shown).count() >= 20, "{html}");
        assert!(!html.contains(nasty), "a value got through unescaped");
        // Named entities, as the page always wrote them; never askama's numeric ones.
        for numeric in ["&#34;", "&#38;", "&#60;", "&#62;", "&#x27;"] {
            assert!(!html.contains(numeric), "{numeric} in the page");
        }
    }

    #[test]
    fn only_the_pages_own_policy_style_and_script_skip_escaping() {
        let template = include_str!("html/templates/report.html");
        let raw: Vec<&str> = template
            .split("{{")
            .skip(1)
            .map(|s| s[..s.find("}}").unwrap()].trim_matches(['-', '+', '~', ' ']))
            .filter(|expression| expression.contains("safe"))
            .collect();
        assert_eq!(raw, ["policy|safe", "style|safe", "script|safe"]);
        assert!(!template.contains("escape("), "no escaping by hand");
    }

    #[test]
    fn hostile_values_are_shown_as_text_never_as_markup() {
        let mut info = run(2, 1);
        info.portfolio = "</title><script>alert('p')</script>".into();
        info.by_color = vec![("<i>orange</i>".into(), 1), ("red".into(), 1)];
        let mut evil = rated(2, Color::Red, Some(Color::Other("<i>orange</i>".into())));
        evil.reference = Some("<script>alert(1)</script>".into());
        evil.company_name = Some("\"><img src=x onerror=alert(2)>".into());
        let mut ambiguous = rated(3, Color::Green, None);
        ambiguous.status = RowStatus::Ambiguous;
        ambiguous.color = None;
        ambiguous.name = Some("Tom & Jerry's <u>".into());
        ambiguous.error = Some("<iframe src=x>".into());
        ambiguous.candidates = vec![Candidate {
            id: uuid::Uuid::nil(),
            name: "<style>*{display:none}</style>".into(),
            city: "\"Paris\"".into(),
            postcode: "75&001".into(),
        }];
        let html = render(&info, &[evil, ambiguous]);
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the page's own script"
        );
        assert_eq!(
            html.matches("<style").count(),
            1,
            "only the page's own style"
        );
        for raw in ["<img", "<svg", "<iframe", "<i>", "<u>", "'>"] {
            assert!(!html.contains(raw), "{raw} got through");
        }
        for shown in [
            "&lt;script&gt;alert(1)&lt;/script&gt;",
            "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;",
            "Tom &amp; Jerry&#39;s &lt;u&gt;",
            "&lt;iframe src=x&gt;",
            "&lt;style&gt;*{display:none}&lt;/style&gt;",
            "75&amp;001 &quot;Paris&quot;",
            "<title>&lt;/title&gt;&lt;script&gt;alert(&#39;p&#39;)&lt;/script&gt; — ratewatch run 3</title>",
        ] {
            assert!(html.contains(shown), "{shown} missing");
        }
        // An unknown color is shown as the row has it, with a neutral look; the run's
        // count of it as a color read from the database is: in its bounded form.
        assert!(html.contains("<span class=\"badge c-other\">&lt;i&gt;orange&lt;/i&gt;</span>"));
        assert!(html.contains("<li class=\"tile c-other\"><b>1</b> ?i?orange??i?</li>"));
    }

    #[test]
    fn the_policy_allows_exactly_the_pages_own_style_and_script() {
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(
            csp_source(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
        let html = render(&run(1, 0), &[rated(2, Color::Green, None)]);
        let policy = between(
            &html,
            "http-equiv=\"Content-Security-Policy\" content=\"",
            "\"",
        );
        let script = between(&html, "<script>", "</script>");
        let style = between(&html, "<style>", "</style>");
        assert!(policy.starts_with("default-src 'none';"), "{policy}");
        assert!(policy.contains(&format!("script-src {};", csp_source(script))));
        assert!(policy.contains(&format!("style-src {};", csp_source(style))));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "nothing to fetch"
        );
    }

    #[test]
    fn alerts_come_first_worst_first_with_old_to_new() {
        let rows = [
            rated(2, Color::Red, Some(Color::Red)),
            rated(3, Color::Green, Some(Color::Green)),
            rated(4, Color::Red, Some(Color::Yellow)),
            rated(5, Color::Black, None),
            rated(6, Color::Green, Some(Color::White)),
        ];
        let html = render(&run(5, 4), &rows);
        let refs = listed_refs(&html);
        // Black at its first screening, into red, a change from white; the company still
        // red is a standing alert, apart.
        assert_eq!(refs, ["C-5", "C-4", "C-6"]);
        let standing = between(
            &html,
            "<table class=\"alerts standing sortable\">",
            "</table>",
        );
        assert_eq!(standing.matches("class=\"ref\">C-2<").count(), 1);
        assert!(html.contains(
            "<summary>Still red or black, not listed tonight <span class=\"count\">1</span></summary>"
        ));
        assert!(listed(&html).contains(
            "<span class=\"badge c-yellow\">yellow</span> <span class=\"arrow\" aria-label=\"became\">→</span> <span class=\"badge c-red\">red</span>"
        ));
        assert!(html.find("id=\"alerts\"").unwrap() < html.find("id=\"rows-table\"").unwrap());
        let table = between(&html, "id=\"rows-table\">", "</table>");
        assert_eq!(
            table.matches("<tr class=").count(),
            5,
            "every row in the table"
        );
        assert_eq!(table.matches("<tr class=\"alert\"").count(), 4);
        assert!(html.contains("<h2>Alerts <span class=\"count\">3</span></h2>"));
        assert!(!html.contains("Nothing flagged"));
    }

    #[test]
    fn a_quiet_run_says_nothing_is_flagged() {
        let html = render(&run(1, 0), &[rated(2, Color::Green, Some(Color::Green))]);
        assert!(html.contains("Nothing flagged: no red or black company, no color change."));
        assert!(!html.contains("<table class=\"alerts"));
        assert!(html.contains("<li class=\"tile c-green\"><b>1</b> green</li>"));
        assert!(html.contains("<li class=\"tile c-black zero\"><b>0</b> black</li>"));
    }

    #[test]
    fn a_run_that_did_not_screen_every_row_never_says_nothing_flagged() {
        let rows = [rated(2, Color::Green, Some(Color::Green))];
        let partial = RunInfo {
            status: RunStatus::Partial,
            rows: 3,
            by_status: RowStatus::ALL
                .iter()
                .map(|s| match s {
                    RowStatus::Rated => (*s, 1),
                    RowStatus::Failed => (*s, 2),
                    _ => (*s, 0),
                })
                .collect(),
            ..run(1, 0)
        };
        let html = render(&partial, &rows);
        assert!(!html.contains("Nothing flagged"), "{html}");
        assert!(html.contains(
            "<p class=\"quiet\">None flagged among the rows screened, but 2 rows were not screened.</p>"
        ));
        let stopped = RunInfo {
            status: RunStatus::Interrupted,
            ..run(1, 0)
        };
        let html = render(&stopped, &rows);
        assert!(!html.contains("Nothing flagged"), "{html}");
        assert!(html.contains("but the run is interrupted: rows may be missing.</p>"));
    }

    #[test]
    fn the_heading_counts_companies_listed_and_their_rows_stand_together() {
        // One company red for the first time on three rows, another on one; a third
        // still black and acknowledged.
        let mut rows: Vec<ResultRow> = (2..7).map(|l| rated(l, Color::Red, None)).collect();
        for line in [4, 6] {
            rows[line - 2].company_id = Some(uuid::Uuid::from_u128(2));
        }
        rows[3].company_id = Some(uuid::Uuid::from_u128(5));
        let mut acked = rated(7, Color::Black, Some(Color::Black));
        acked.acknowledged = true;
        rows.push(acked);
        let html = render(&run(6, 2), &rows);
        assert!(html.contains("<h2>Alerts <span class=\"count\">3</span></h2>"));
        let refs = listed_refs(&html);
        assert_eq!(
            refs,
            ["C-2", "C-4", "C-6", "C-3", "C-5"],
            "a company's rows together"
        );
        assert!(!html.contains("id=\"standing\""), "no standing alert");
        let acknowledged = between(
            &html,
            "<table class=\"alerts acknowledged sortable\">",
            "</table>",
        );
        assert!(acknowledged.contains("class=\"ref\">C-7<"));
        assert!(html.contains(
            "<summary>Acknowledged, not listed <span class=\"count\">1</span></summary>"
        ));
    }

    #[test]
    fn the_table_stops_at_its_cap_with_a_note_but_every_alert_is_listed() {
        let n = TABLE_ROWS + 5;
        let rows: Vec<ResultRow> = (0..n)
            .map(|i| {
                let color = if i >= n - 3 {
                    Color::Black
                } else {
                    Color::Green
                };
                rated(i + 2, color, Some(Color::Green))
            })
            .collect();
        let html = render(&run(n, 3), &rows);
        let table = between(&html, "id=\"rows-table\">", "</table>");
        let lines: Vec<u64> = table
            .split("\"><td>")
            .skip(1)
            .map(|s| s[..s.find('<').unwrap()].parse().unwrap())
            .collect();
        assert_eq!(
            lines,
            (2..TABLE_ROWS + 2).collect::<Vec<_>>(),
            "in input order"
        );
        assert!(html.contains(&format!(
            "The table shows the first {TABLE_ROWS} of {n} rows; every row is in report.csv."
        )));
        let alerts = listed(&html);
        assert_eq!(alerts.matches("<tr class=\"alert\"").count(), 3);
        assert!(
            alerts.contains(&format!("C-{}", n + 1)),
            "the last row's alert"
        );
    }

    #[test]
    fn stale_ratings_are_marked_and_counted_at_the_top() {
        let refreshed = |mut row: ResultRow, date: &str, stale: bool| {
            row.last_refresh_date = Some(time(date));
            row.stale = stale;
            row
        };
        let rows = [
            refreshed(
                rated(2, Color::Red, Some(Color::Yellow)),
                "2026-09-01T01:30:00Z",
                true,
            ),
            refreshed(rated(3, Color::Green, None), "2026-11-20T01:45:00Z", false),
            refreshed(rated(4, Color::Green, None), "2026-08-15T01:40:00Z", true),
            rated(5, Color::Green, None),
        ];
        let html = render(&run(4, 1), &rows);
        let header = between(&html, "<header>", "</header>");
        assert!(
            header.contains(
                "<p class=\"notice\" id=\"stale\">2 ratings not recalculated by the service for more than 30 days: marked <span class=\"stale-tag\">stale</span> below.</p>"
            ),
            "{header}"
        );
        let table = between(&html, "id=\"rows-table\">", "</table>");
        assert!(table.contains("<th>Last change</th><th>Refreshed</th>"));
        // A row is one line: its cells follow each other with nothing between them.
        assert!(table.contains(
            "2026-11-20 00:00:00 UTC</td><td data-label=\"Refreshed\" data-sort=\"2026-09-01T01:30:00Z\""
        ));
        assert_eq!(table.matches("<tr class=\"alert stale\"").count(), 1);
        assert_eq!(table.matches("<tr class=\"stale\"").count(), 1);
        assert!(table.contains(
            "<td data-label=\"Refreshed\" data-sort=\"2026-08-15T01:40:00Z\" class=\"date refreshed\">2026-08-15 01:40:00 UTC <span class=\"stale-tag\">stale</span></td>"
        ));
        assert!(table.contains(
            "<td data-label=\"Refreshed\" data-sort=\"2026-11-20T01:45:00Z\" class=\"date refreshed\">2026-11-20 01:45:00 UTC</td>"
        ));
        assert_eq!(table.matches("<span class=\"stale-tag\">").count(), 2);
        // The alert shows its refresh date and mark too.
        let alerts = listed(&html);
        assert!(alerts.contains("<th>Refreshed</th>"));
        assert!(alerts.contains("2026-09-01 01:30:00 UTC <span class=\"stale-tag\">stale</span>"));

        let one = render(&run(1, 0), &rows[2..3]);
        assert!(one.contains(">1 rating not recalculated by the service for more than 30 days:"));
        let fresh = render(&run(2, 0), &rows[1..2]);
        assert!(
            !fresh.contains("id=\"stale\""),
            "no notice without stale ratings"
        );
        assert!(!fresh.contains("<span class=\"stale-tag\">"));
    }

    #[test]
    fn ambiguous_rows_show_their_candidates() {
        let mut row = rated(7, Color::Green, None);
        row.status = RowStatus::Ambiguous;
        row.color = None;
        row.change = None;
        row.alert = false;
        row.company_id = None;
        row.company_name = None;
        row.error = Some("2 companies match".into());
        row.candidates = ["Bordeaux", "Lyon"]
            .iter()
            .map(|city| Candidate {
                id: uuid::Uuid::nil(),
                name: "López Motors & Fils SA".into(),
                city: city.to_string(),
                postcode: "33000".into(),
            })
            .collect();
        let html = render(&run(1, 0), &[row]);
        let candidates = between(&html, "<ol class=\"candidates\">", "</ol>");
        assert_eq!(candidates.matches("<li>").count(), 2);
        assert!(
            candidates
                .contains("López Motors &amp; Fils SA <span class=\"muted\">33000 Lyon</span>")
        );
        assert!(html.contains("data-status=\"ambiguous\""));
    }

    #[test]
    fn a_rows_own_columns_are_shown_with_it_and_escaped() {
        let mut row = rated(2, Color::Green, None);
        row.extra = vec![
            ("Encours EUR".into(), "12000".into()),
            ("Owner".into(), "<b>Ann</b>".into()),
        ];
        let page = render(&run(1, 0), &[row]);
        assert!(
            page.contains("<dl class=\"extra\"><dt>Encours EUR</dt><dd>12000</dd><dt>Owner</dt><dd>&lt;b&gt;Ann&lt;/b&gt;</dd></dl>"),
            "{page}"
        );
    }

    fn colors(run_id: i64, counts: &[(&str, u64)]) -> RunColors {
        RunColors {
            run_id,
            started_at: time("2026-11-20T02:00:00Z")
                + jiff::SignedDuration::from_hours(24 * run_id),
            by_color: counts.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            new_by_color: Vec::new(),
            amount_by_color: Vec::new(),
        }
    }

    /// Bars as drawn: each run with its (color, rows, height) from bottom to top.
    type Drawn = Vec<(i64, Vec<(String, u64, f64)>)>;

    /// The bars of the page's trend chart.
    fn bars(html: &str) -> Drawn {
        let svg = between(html, "<svg", "</svg>");
        svg.split("<g class=\"bar\" data-run=\"")
            .skip(1)
            .map(|bar| {
                let run = bar[..bar.find('"').unwrap()].parse().unwrap();
                let segments = bar
                    .split("<rect ")
                    .skip(1)
                    .map(|rect| {
                        let attr = |name: &str| between(rect, &format!("{name}=\""), "\"");
                        (
                            attr("data-color").to_string(),
                            attr("data-rows").parse().unwrap(),
                            attr("height").parse().unwrap(),
                        )
                    })
                    .collect();
                (run, segments)
            })
            .collect()
    }

    #[test]
    fn the_trend_stacks_each_runs_rows_by_color_on_one_scale() {
        let mut info = run(10, 0);
        info.by_color = vec![("green".into(), 6), ("red".into(), 4)];
        let trend = vec![
            colors(1, &[("green", 8), ("yellow", 2)]),
            colors(2, &[("red", 3), ("green", 7), ("mauve", 1)]),
            colors(3, &[("green", 6), ("red", 4)]),
        ];
        let html = render_with_trend(&info, &[], trend);
        let drawn = bars(&html);
        let counts: Vec<(i64, Vec<(&str, u64)>)> = drawn
            .iter()
            .map(|(run, segments)| {
                (
                    *run,
                    segments.iter().map(|(c, n, _)| (c.as_str(), *n)).collect(),
                )
            })
            .collect();
        assert_eq!(
            counts,
            [
                (1, vec![("yellow", 2), ("green", 8)]),
                (2, vec![("red", 3), ("green", 7), ("mauve", 1)]),
                (3, vec![("red", 4), ("green", 6)]),
            ],
            "the riskiest at the bottom, other colors on top"
        );
        // Heights on one scale: 11 rows (run 2) reach the top of the plot.
        let plot = PLOT_BOTTOM - PLOT_TOP;
        for (_, segments) in &drawn {
            for (color, n, height) in segments {
                let expected = plot * *n as f64 / 11.0;
                assert!(
                    (height - expected).abs() < 0.06,
                    "{color}: {height} for {n}"
                );
            }
        }
        assert!(html.contains(">11</text>"), "the scale's top");
        assert!(html.contains("<title>run 2 (2026-11-22): 7 green, 3 red, 1 mauve</title>"));
        assert!(html.contains("Rated rows by color, runs 1–3</figcaption>"));
        let desc = between(&html, "<desc id=\"trend-desc\">", "</desc>");
        assert!(
            desc.contains("its last 3 runs, from run 1 to run 3"),
            "{desc}"
        );
        assert!(
            desc.contains("run 3 (2026-11-23): 6 green, 4 red"),
            "{desc}"
        );
        let legend = between(&html, "<ul class=\"legend\">", "</ul>");
        assert_eq!(legend.matches("<li>").count(), 4, "{legend}");
        assert!(legend.find(">green<") < legend.find(">mauve<"), "{legend}");
        assert!(
            html.contains("<text class=\"run current\""),
            "this run stands out"
        );
        assert!(!html.contains("A trend needs two runs"));
        let svg = between(&html, "<svg", "</svg>");
        assert!(!svg.contains("href") && !svg.contains("<script"), "{svg}");
    }

    #[test]
    fn a_first_run_draws_one_bar_and_says_a_trend_needs_two() {
        let info = run(5, 0);
        let html = render_with_trend(&info, &[], vec![colors(3, &[("green", 5)])]);
        let drawn = bars(&html);
        assert_eq!(drawn.len(), 1);
        assert_eq!(drawn[0].1[0].0, "green");
        assert_eq!(drawn[0].1[0].1, 5);
        assert!(html.contains("A trend needs two runs"));
        assert!(html.contains("Rated rows by color, run 3</figcaption>"));
        // A run with no rated row: a bar of nothing, never a division by zero.
        let html = render_with_trend(&run(0, 0), &[], vec![colors(3, &[])]);
        assert!(html.contains("run 3 (2026-11-23): no rated row"));
        assert!(!html.contains("NaN") && !html.contains("\"inf"));
    }

    #[test]
    fn many_runs_label_every_fifth_and_colors_from_the_service_stay_text() {
        let trend: Vec<RunColors> = (1..=30)
            .map(|id| colors(id, &[("green", 10), ("<i>orange</i>", 1)]))
            .collect();
        let html = render_with_trend(&run(11, 0), &[], trend);
        assert_eq!(bars(&html).len(), 30);
        let labels = between(&html, "<svg", "</svg>")
            .matches("<text class=\"run")
            .count();
        assert_eq!(labels, 7, "runs 1, 5, 10, …, 30");
        assert!(!html.contains("<i>orange"));
        assert!(html.contains("?i?orange??i?"), "in its bounded form");
    }
}
