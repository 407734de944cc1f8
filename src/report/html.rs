//! `report.html`: the run for a person to look at. It leads with what needs one: its
//! header and tiles of counts by color, then the alerts listed tonight (headed by the
//! summary's count of companies, worst first as the summary lists them, a company's rows
//! together), the standing and the acknowledged ones apart and folded, then the rows to
//! review (ambiguous with their candidates, unresolved, invalid, failed); then the trend of
//! the portfolio's last runs (see `html/trend.rs`), and the table of every row, searched
//! and filtered by the page's script over the rows kept as data (see `html/rows_data.rs`).
//! Each rating shows when the service last recalculated it; a stale one is marked, and
//! counted at the top.
//!
//! The page stays small and quick at any size: each list of alerts or rows to review
//! shows its first rows (its count says how many there are; the rest are in report.csv
//! and the table finds them), and the table's rows are compressed data the script
//! shows a page of at a time, never markup.
//!
//! One self-contained file: inline style, script and SVG, no fonts, images or links to
//! fetch, so it opens offline and as a mail attachment (its only links, with `page_url`,
//! go to the pages of `ratewatch serve`); a Content-Security-Policy allows
//! only its own style and script. The page reads fine with scripts off (the alerts, the
//! rows to review and the trend are plain markup; the table says it needs scripts), when
//! printed and on a phone.
//!
//! The markup is in `html/templates/report.html` (askama, checked when the crate compiles),
//! whose every value is escaped by [`HtmlEscaper`]. Rows stream: the page is written a block
//! of that template at a time, and what comes later in the page waits in a `Spool`, in memory
//! up to `SPILL_BYTES` and then in an anonymous temporary file. This module renders; it never
//! reads the database and never decides where the file goes.

mod rows_data;
mod spool;
mod trend;

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use askama::Template;
use base64::prelude::{BASE64_STANDARD, Engine as _};
use jiff::Timestamp;
use sha2::{Digest, Sha256};

use self::rows_data::{RowsData, script_words};
use self::spool::Spool;
use self::trend::Trend;
use super::{Format, Output};
use crate::alerts::AlertKind;
use crate::digest::Figures;
use crate::links::PageUrl;
use crate::locale::{Page, Reader};
use crate::model::{Candidate, Change, Color, ResultRow, RowStatus, RunColors, RunInfo};

/// Rows of the alerts listed tonight shown in the page. They come worst first, so a storm
/// shows its worst; every one is in report.csv, and the table of every row finds them.
pub const LISTED_ROWS: u64 = 500;

/// Rows shown of each folded list (standing, acknowledged) and of each kind of row to
/// review: enough to act on, never a whole portfolio.
pub const FOLDED_ROWS: u64 = 300;

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

/// The statuses of rows a person has to look at, in the order the page lists them.
const TO_REVIEW: [RowStatus; 4] = [
    RowStatus::Ambiguous,
    RowStatus::Unresolved,
    RowStatus::Invalid,
    RowStatus::Failed,
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
    let hash = Sha256::digest(text.as_bytes());
    format!("'sha256-{}'", BASE64_STANDARD.encode(hash))
}

pub struct HtmlReport<W: Output> {
    out: W,
    /// File name of the CSV report, which the page points to for every row.
    csv_name: String,
    run: Option<RunInfo>,
    /// The rows of the alerts listed tonight, worst first, a company's rows together (as
    /// the store gives them: see `Format::alert_row`).
    listed: Group,
    /// The rows of the standing alerts: still red or black, not listed tonight, not
    /// acknowledged.
    standing: Group,
    /// The rows of the alerts an acknowledgement keeps out of the list.
    acked: Group,
    /// The rows to review, by status in the order of `TO_REVIEW`.
    review: Vec<Group>,
    /// Every row, as the data the table's script reads; none once an error stopped it.
    data: Option<RowsData>,
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
    /// The portfolio's last runs up to this one, for the trend.
    trend: Vec<RunColors>,
    /// The heading of the portfolio's amount column, which the trend's amount at risk sums.
    amount: Option<String>,
    /// The carried columns every alert shows (`[alerts] show`), as the portfolio heads them.
    show: Vec<String>,
    /// The run's figures, said at the top as every channel says them.
    figures: Option<Figures>,
    /// Where `ratewatch serve` is reached: the inbox, each alert's company, the rows not
    /// screened link to its pages.
    link: Option<PageUrl>,
    /// Who reads the page: its words, numbers and times.
    page: Page,
}

impl<W: Output> HtmlReport<W> {
    /// The page with the run's figures at the top, and links to `ratewatch serve`.
    pub fn with(mut self, figures: Option<Figures>, link: Option<PageUrl>) -> Self {
        (self.figures, self.link) = (figures, link);
        self
    }

    /// The page in `reader`'s language and zone; English and UTC by default.
    pub fn read_by(mut self, reader: Reader) -> Self {
        self.page = Page::new(reader);
        self
    }

    /// `csv_name` is what the page calls the CSV report; `spool_dir` holds the temporary
    /// files of a large run (the report's own folder: it has room for the report).
    /// `stale_after_days` is the threshold that marked the rows' `stale`, for the notice.
    /// `trend` is the portfolio's last runs up to this one, oldest first (see
    /// `Store::color_trend`), drawn after the rows to review; `amount` is the heading of
    /// the amount column its amounts were summed from, for its label.
    pub fn new(
        out: W,
        csv_name: &str,
        spool_dir: &Path,
        stale_after_days: u32,
        trend: Vec<RunColors>,
        amount: Option<String>,
        show: Vec<String>,
    ) -> io::Result<Self> {
        Ok(HtmlReport {
            out,
            csv_name: csv_name.to_string(),
            run: None,
            listed: Group::new(spool_dir, LISTED_ROWS),
            standing: Group::new(spool_dir, FOLDED_ROWS),
            acked: Group::new(spool_dir, FOLDED_ROWS),
            review: TO_REVIEW
                .iter()
                .map(|_| Group::new(spool_dir, FOLDED_ROWS))
                .collect(),
            data: Some(RowsData::new(Spool::new(spool_dir))?),
            untouched: true,
            rows: 0,
            stale: 0,
            stale_after_days,
            line: String::new(),
            trend,
            amount,
            show,
            figures: None,
            link: None,
            page: Page::english(),
        })
    }
}

/// One list of the page (an alert group, a kind of row to review): the markup of its first
/// rows, how many rows it has and how many companies they are.
struct Group {
    rows: Spool,
    /// Rows in the list, shown or not.
    count: u64,
    /// Rows shown: the first ones, up to `limit`.
    shown: u64,
    limit: u64,
    companies: u64,
    /// The company of the last row pushed: a company's rows come together.
    last: Option<Option<uuid::Uuid>>,
}

impl Group {
    fn new(dir: &Path, limit: u64) -> Group {
        Group {
            rows: Spool::new(dir),
            count: 0,
            shown: 0,
            limit,
            companies: 0,
            last: None,
        }
    }

    /// Counts the row; whether it is shown.
    fn counts(&mut self, row: &ResultRow) -> bool {
        // A row without a company (never an alert today) counts as one of its own.
        if self.last != Some(row.company_id) || row.company_id.is_none() {
            self.companies += 1;
            self.last = Some(row.company_id);
        }
        self.count += 1;
        self.count <= self.limit
    }

    fn push(&mut self, markup: &str) -> io::Result<()> {
        self.shown += 1;
        self.rows.push(markup.as_bytes())
    }

    /// The list's rows, then the end of its table with what the page leaves out: `what`
    /// the rows are, and the `filter` of the table of every row that finds them all;
    /// `folded` closes the list's fold too.
    fn write_rest(
        self,
        out: &mut impl Write,
        page: &Page,
        what: &str,
        filter: &str,
        csv: &str,
        folded: bool,
    ) -> io::Result<()> {
        let close = GroupClose {
            page,
            count: self.count,
            shown: self.shown,
            what,
            filter,
            csv,
            folded,
        };
        self.rows.copy_to(out)?;
        close.write_into(out)
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
    page: &'a Page,
    run: &'a RunInfo,
    /// The Content-Security-Policy: our own text, shown as is.
    policy: &'a str,
    style: &'a str,
    /// The five colors then any other received, with their counts.
    tiles: Vec<(Color, u64)>,
    statuses: Vec<(&'static str, u64)>,
    failed: u64,
    ambiguous: u64,
    figures: Option<&'a Figures>,
    link: Option<&'a PageUrl>,
}

/// After the last row: the header's end, then the alerts listed tonight up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "alerts_open")]
struct AlertsOpen<'a> {
    page: &'a Page,
    /// The carried columns the alerts tables show.
    columns: &'a [String],
    stale: u64,
    stale_after_days: u64,
    /// Companies listed tonight: the summary's count, and the run's `alerts`.
    alerts: u64,
    untouched: bool,
    /// What the run did not screen, if it did not screen every row (then nothing is said
    /// of those rows); empty if it did.
    unscreened: String,
}

/// One line of an alerts table.
#[derive(Template)]
#[template(path = "report.html", block = "alert_row")]
struct AlertRow<'a> {
    page: &'a Page,
    row: &'a ResultRow,
    /// The company's page in `ratewatch serve`, with `page_url`.
    href: Option<String>,
    /// The row's values of the carried columns that alerts show (`[alerts] show`): header,
    /// value.
    shown: Vec<(&'a str, &'a str)>,
}

/// The end of a list's table, and what it leaves out: `count` rows, `shown` of them; the
/// table of every row finds the rest with `filter`.
#[derive(Template)]
#[template(path = "report.html", block = "group_close")]
struct GroupClose<'a> {
    page: &'a Page,
    count: u64,
    shown: u64,
    /// The rows, in words: `alert rows`.
    what: &'a str,
    /// The table's filter that finds them: `alert: standing`.
    filter: &'a str,
    csv: &'a str,
    /// The list is folded (`<details>`), and its fold ends here too.
    folded: bool,
}

/// After the listed alerts: the standing ones, folded, up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "standing_open")]
struct StandingOpen<'a> {
    page: &'a Page,
    columns: &'a [String],
    standing: u64,
}

/// After the standing alerts: the acknowledged ones, folded, up to their rows.
#[derive(Template)]
#[template(path = "report.html", block = "acked_open")]
struct AckedOpen<'a> {
    page: &'a Page,
    columns: &'a [String],
    acked: u64,
}

/// After the alerts: the rows to review, up to the first kind's.
#[derive(Template)]
#[template(path = "report.html", block = "review_open")]
struct ReviewOpen<'a> {
    page: &'a Page,
    /// Rows to review, every kind together.
    rows: u64,
    /// Rows ignored by a decision: not to review.
    ignored: u64,
}

/// One kind of row to review, up to its rows.
#[derive(Template)]
#[template(path = "report.html", block = "review_group_open")]
struct ReviewGroupOpen<'a> {
    page: &'a Page,
    status: &'static str,
    rows: u64,
}

/// One line of a table of rows to review.
#[derive(Template)]
#[template(path = "report.html", block = "review_row")]
struct ReviewRow<'a> {
    page: &'a Page,
    row: &'a ResultRow,
}

/// After the rows to review: the trend, then the table of every row up to its data.
#[derive(Template)]
#[template(path = "report.html", block = "rows_open")]
struct RowsOpen<'a> {
    page: &'a Page,
    /// The words of the page's script, as JSON, for a reader of another language than
    /// English (the script's own).
    words: Option<String>,
    run: &'a RunInfo,
    trend: Option<Trend>,
    rows: u64,
    statuses: Vec<(&'static str, u64)>,
    csv: &'a str,
}

/// After the rows' data: the page's end.
#[derive(Template)]
#[template(path = "report.html", block = "page_end")]
struct PageEnd<'a> {
    page: &'a Page,
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
fn change(page: &Page, row: &ResultRow) -> String {
    let change = row.change.as_ref().map_or("", |c| page.change(c));
    if row.acknowledged {
        format!("{change} · {}", page.word("label-acknowledged"))
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

/// A date of the service's in the reader's zone (`2026-11-21 02:00:00 UTC`,
/// `21/11/2026 03:00 CET`); empty when it gave none.
fn shown(page: &Page, time: &Option<Timestamp>) -> String {
    time.as_ref().map(|t| page.time(t)).unwrap_or_default()
}

/// A date of the service's as stored (`2026-11-21T02:00:00Z`), which sorts as time does;
/// empty when it gave none.
fn stored(time: &Option<Timestamp>) -> String {
    time.map(crate::model::time_text).unwrap_or_default()
}

/// What a list leaves out: `The first 300 of 1,204 standing alert rows are shown; …`.
fn more(page: &Page, shown: &u64, count: &u64, what: &str, csv: &str, filter: &str) -> String {
    let args = [
        ("shown", page.number(shown)),
        ("count", page.number(count)),
        ("what", page.word(what).to_string()),
        ("csv", csv.to_string()),
        ("filter", filter.to_string()),
    ];
    let args: Vec<_> = args.into_iter().map(|(k, v)| (k, v.into())).collect();
    page.text("report-more", &args)
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
            page: &self.page,
            run,
            policy: &policy,
            style: STYLE,
            tiles: tiles(run),
            statuses: statuses(run),
            failed: run.rows_with(RowStatus::Failed),
            ambiguous: run.rows_with(RowStatus::Ambiguous),
            figures: self.figures.as_ref(),
            link: self.link.as_ref(),
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
        if let Some(i) = TO_REVIEW.iter().position(|s| *s == row.status) {
            let group = &mut self.review[i];
            if group.counts(row) {
                let page = &self.page;
                render_line(&ReviewRow { page, row }, &mut self.line)?;
                group.push(&self.line)?;
            }
        }
        match &mut self.data {
            Some(data) => data.push(row),
            None => Ok(()),
        }
    }

    fn alert_row(&mut self, row: &ResultRow) -> io::Result<()> {
        let group = match AlertGroup::of(row) {
            Some(AlertGroup::Listed) => &mut self.listed,
            Some(AlertGroup::Standing) => &mut self.standing,
            Some(AlertGroup::Acknowledged) => &mut self.acked,
            None => return Ok(()),
        };
        if group.counts(row) {
            let shown = self
                .show
                .iter()
                .map(|column| {
                    let value = row
                        .extra
                        .iter()
                        .find(|(header, _)| header == column)
                        .map_or("", |(_, value)| value.as_str());
                    (column.as_str(), value)
                })
                .collect();
            let href = self.link.as_ref().zip(row.company_id);
            let href = href.map(|(link, id)| link.company(&id.to_string()));
            let page = &self.page;
            render_line(
                &AlertRow {
                    page,
                    row,
                    href,
                    shown,
                },
                &mut self.line,
            )?;
            group.push(&self.line)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        let run = self.run.take().expect("begin was called");
        let data = self.data.take().expect("the rows' data").finish()?;
        let this = *self;
        let csv = this.csv_name.as_str();
        let page = &this.page;
        let mut out = this.out;
        AlertsOpen {
            page,
            columns: &this.show,
            stale: this.stale,
            stale_after_days: this.stale_after_days.into(),
            alerts: this.listed.companies,
            untouched: this.untouched,
            unscreened: super::summary::unscreened(&page.reader, &run).unwrap_or_default(),
        }
        .write_into(&mut out)?;
        if this.listed.count > 0 {
            let (what, filter) = ("report-what-listed", page.word("report-filter-listed"));
            this.listed
                .write_rest(&mut out, page, what, filter, csv, false)?;
        }
        if this.standing.count > 0 {
            StandingOpen {
                page,
                columns: &this.show,
                standing: this.standing.companies,
            }
            .write_into(&mut out)?;
            let (what, filter) = ("report-what-standing", page.word("report-filter-standing"));
            this.standing
                .write_rest(&mut out, page, what, filter, csv, true)?;
        }
        if this.acked.count > 0 {
            AckedOpen {
                page,
                columns: &this.show,
                acked: this.acked.companies,
            }
            .write_into(&mut out)?;
            let what = "report-what-acknowledged";
            let filter = page.word("report-filter-acknowledged");
            this.acked
                .write_rest(&mut out, page, what, filter, csv, true)?;
        }
        ReviewOpen {
            page,
            rows: this.review.iter().map(|g| g.count).sum(),
            ignored: run.rows_with(RowStatus::Ignored),
        }
        .write_into(&mut out)?;
        for (status, group) in TO_REVIEW.iter().zip(this.review) {
            if group.count == 0 {
                continue;
            }
            ReviewGroupOpen {
                page,
                status: status.as_str(),
                rows: group.count,
            }
            .write_into(&mut out)?;
            let filter = page.with("report-filter-status", "status", page.status(status));
            group.write_rest(&mut out, page, "report-what-rows", &filter, csv, false)?;
        }
        RowsOpen {
            page,
            words: script_words(page),
            run: &run,
            trend: Trend::of(&run, &this.trend, this.amount.as_deref(), page),
            rows: this.rows,
            statuses: statuses(&run),
            csv,
        }
        .write_into(&mut out)?;
        data.copy_to(&mut out)?;
        PageEnd {
            page,
            run: &run,
            version: env!("CARGO_PKG_VERSION"),
            calls: run.calls.iter().map(|(_, n)| n).sum(),
            csv,
            script: SCRIPT,
        }
        .write_into(&mut out)?;
        out.close()
    }
}

#[cfg(test)]
mod tests {
    use super::trend::tests::colors;
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
            color_since: Some(time("2026-11-20T00:00:00Z")),
            ..ResultRow::example(line)
        }
    }

    /// A row not screened, with this status and why.
    fn unscreened(line: u64, status: RowStatus, error: &str) -> ResultRow {
        ResultRow {
            status,
            color: None,
            change: None,
            company_id: None,
            company_name: None,
            last_change_date: None,
            found_by: None,
            error: Some(error.into()),
            ..ResultRow::example(line)
        }
    }

    fn render(run: &RunInfo, rows: &[ResultRow]) -> String {
        render_with_trend(run, rows, vec![], None)
    }

    fn render_with_trend(
        run: &RunInfo,
        rows: &[ResultRow],
        trend: Vec<RunColors>,
        amount: Option<&str>,
    ) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut buf = Vec::new();
        let mut r = Box::new(
            HtmlReport::new(
                &mut buf,
                "report.csv",
                dir.path(),
                30,
                trend,
                amount.map(str::to_string),
                Vec::new(),
            )
            .unwrap(),
        );
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

    /// The refs of a table's rows, in its order.
    fn refs(table: &str) -> Vec<&str> {
        table
            .split("class=\"ref\">")
            .skip(1)
            .map(|s| &s[..s.find('<').unwrap()])
            .collect()
    }

    /// The refs of the alerts listed tonight, in the table's order.
    fn listed_refs(html: &str) -> Vec<&str> {
        refs(listed(html))
    }

    /// The rows' data of the page, as the script reads it: each row's fields by name.
    fn data(html: &str) -> Vec<std::collections::HashMap<String, String>> {
        let block = between(
            html,
            "<script type=\"application/octet-stream\" id=\"rows-data\" data-encoding=\"gzip base64\">",
            "</script>",
        );
        let text = rows_data::tests::decode(block);
        let mut lines = text.lines();
        let names: Vec<&str> = lines.next().unwrap().split('\t').collect();
        lines
            .map(|l| {
                names
                    .iter()
                    .zip(l.split('\t'))
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
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
        row.alert_listed = true;
        row.reference = Some(nasty.into());
        row.country = Some(nasty.into());
        row.company_name = Some(nasty.into());
        let mut review = unscreened(3, RowStatus::Ambiguous, nasty);
        review.reference = Some(nasty.into());
        review.country = Some(nasty.into());
        review.service = Some(nasty.into());
        review.id = Some(nasty.into());
        review.name = Some(nasty.into());
        review.extra = vec![(nasty.into(), nasty.into())];
        review.candidates = vec![Candidate {
            id: uuid::Uuid::nil(),
            name: nasty.into(),
            city: nasty.into(),
            postcode: nasty.into(),
            found_without: None,
        }];
        let mut info = run(2, 1);
        info.portfolio = nasty.into();
        info.input_path = nasty.into();
        info.portfolio_sha256 = nasty.into();
        info.by_color = vec![(nasty.into(), 1)];
        let mut trend = colors(3, &[(nasty, 1)]);
        trend.new_by_color = vec![(nasty.into(), 1)];
        let dir = tempfile::tempdir().unwrap();
        let mut buf = Vec::new();
        let mut r = Box::new(
            HtmlReport::new(
                &mut buf,
                nasty,
                dir.path(),
                30,
                vec![trend],
                Some(nasty.into()),
                vec![nasty.into()],
            )
            .unwrap(),
        );
        r.begin(&info).unwrap();
        r.row(&row).unwrap();
        r.row(&review).unwrap();
        r.alert_row(&row).unwrap();
        r.finish().unwrap();
        let html = String::from_utf8(buf).unwrap();
        // Every field above, each place it is shown: the alert's ref, company, country and
        // color (badge, data-color); the review row's ref, country, searched (twice), error,
        // carried column (header, value), candidate (name, place twice); the run's header,
        // footer, tiles, color filter, trend (chart, table); the CSV's name.
        assert!(html.matches(&shown).count() >= 24, "{html}");
        assert!(!html.contains(nasty), "a value got through unescaped");
        // Named entities, as the page always wrote them; never askama's numeric ones.
        for numeric in ["&#34;", "&#38;", "&#60;", "&#62;", "&#x27;"] {
            assert!(!html.contains(numeric), "{numeric} in the page");
        }
        // The rows' data holds the values as they are: the script sets them as text.
        let rows = data(&html);
        assert_eq!(rows[0]["ref"], nasty);
        assert_eq!(rows[1]["error"], nasty);
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
        let script = include_str!("html/report.js");
        for markup in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
        ] {
            assert!(!script.contains(markup), "the script sets {markup}");
        }
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
            found_without: None,
        }];
        let html = render(&info, &[evil, ambiguous]);
        assert_eq!(
            html.matches("<script").count(),
            2,
            "only the page's own script and its rows' data"
        );
        assert!(html.contains("<script type=\"application/octet-stream\" id=\"rows-data\""));
        assert_eq!(
            html.matches("<style").count(),
            1,
            "only the page's own style"
        );
        for raw in ["<img", "<iframe", "<i>", "<u>", "'>"] {
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
        let at = |id: &str| html.find(id).unwrap_or_else(|| panic!("no {id}"));
        assert!(at("id=\"alerts\"") < at("id=\"review\""));
        assert!(at("id=\"review\"") < at("id=\"rows\""));
        // Every row in the table's data, in input order, the alerts marked.
        let rows = data(&html);
        let lines: Vec<&str> = rows.iter().map(|r| r["line"].as_str()).collect();
        assert_eq!(lines, ["2", "3", "4", "5", "6"]);
        let alerts: Vec<&str> = rows.iter().map(|r| r["alert"].as_str()).collect();
        assert_eq!(alerts, ["standing", "", "listed", "listed", "listed"]);
        assert_eq!(rows[2]["before"], "yellow");
        assert_eq!(rows[2]["color"], "red");
        assert!(html.contains("<h2>Alerts <span class=\"count\">3</span></h2>"));
        assert!(!html.contains("Nothing flagged"));
        assert!(html.contains("<p class=\"quiet\">Nothing to review: every row was screened.</p>"));
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
    fn tiles_and_counts_set_their_thousands_apart() {
        let mut info = run(1_000_000, 0);
        info.by_color = vec![("green".into(), 1_000_000)];
        let html = render(&info, &[]);
        assert!(html.contains("<li class=\"tile c-green\"><b>1,000,000</b> green</li>"));
        assert!(html.contains("<span class=\"status s-rated\">1,000,000 rated</span>"));
        assert!(html.contains("<h2>All rows <span class=\"count\">0</span></h2>"));
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
        assert_eq!(data(&html)[5]["alert"], "acknowledged");
    }

    #[test]
    fn each_list_shows_its_first_rows_and_says_where_the_rest_are() {
        // A storm of news, more standing alerts than a fold shows, and failed rows.
        let listed_n = LISTED_ROWS + 7;
        let standing_n = FOLDED_ROWS + 3;
        let failed_n = FOLDED_ROWS + 1;
        let mut rows = Vec::new();
        let mut line = 2;
        for _ in 0..listed_n {
            rows.push(rated(line, Color::Red, Some(Color::Green)));
            line += 1;
        }
        for _ in 0..standing_n {
            rows.push(rated(line, Color::Black, Some(Color::Black)));
            line += 1;
        }
        for _ in 0..failed_n {
            rows.push(unscreened(
                line,
                RowStatus::Failed,
                "HTTP 503 after 3 attempts",
            ));
            line += 1;
        }
        let html = render(&run(rows.len() as u64, listed_n), &rows);
        let listed = listed_refs(&html);
        assert_eq!(listed.len() as u64, LISTED_ROWS);
        assert_eq!(listed[0], "C-2", "the first, as the store gives them");
        let standing = between(
            &html,
            "<table class=\"alerts standing sortable\">",
            "</details>",
        );
        assert_eq!(refs(standing).len() as u64, FOLDED_ROWS);
        assert!(standing.contains(&format!(
            "<p class=\"more\">The first 300 of {standing_n} standing alert rows are shown; every one is in report.csv, and the table of every row below finds them (alert: standing).</p>"
        )));
        assert!(html.contains(&format!(
            "<p class=\"more\">The first 500 of {} alert rows listed tonight are shown;",
            crate::text::thousands(listed_n)
        )));
        assert!(html.contains(&format!(
            "<summary>Still red or black, not listed tonight <span class=\"count\">{standing_n}</span></summary>"
        )));
        let review = between(&html, "<section id=\"review\">", "</section>");
        assert!(review.contains(&format!(
            "<h2>To review <span class=\"count\">{failed_n}</span></h2>"
        )));
        assert_eq!(
            review.matches("data-status=\"failed\"").count() as u64,
            FOLDED_ROWS
        );
        assert!(review.contains(&format!("The first 300 of {failed_n} rows are shown;")));
        assert!(review.contains("(status: failed)"));
        // Every row is in the table's data all the same.
        assert_eq!(data(&html).len(), rows.len());
    }

    #[test]
    fn the_rows_to_review_come_after_the_alerts_each_kind_with_what_to_do() {
        let mut ambiguous = unscreened(7, RowStatus::Ambiguous, "2 companies match");
        ambiguous.name = Some("López Motors".into());
        ambiguous.service = None;
        ambiguous.id = None;
        ambiguous.candidates = ["Bordeaux", "Lyon"]
            .iter()
            .map(|city| Candidate {
                id: uuid::Uuid::nil(),
                name: "López Motors & Fils SA".into(),
                city: city.to_string(),
                postcode: "33000".into(),
                found_without: None,
            })
            .collect();
        let rows = [
            unscreened(2, RowStatus::Failed, "HTTP 503"),
            unscreened(3, RowStatus::Invalid, "country: 'XX' is not a country"),
            rated(4, Color::Red, Some(Color::Green)),
            unscreened(5, RowStatus::Unresolved, "no company matches"),
            ambiguous,
            unscreened(8, RowStatus::Ignored, "ignored by a decision"),
        ];
        let html = render(&run(6, 1), &rows);
        let review = between(&html, "<section id=\"review\">", "</section>");
        assert!(review.contains("<h2>To review <span class=\"count\">4</span></h2>"));
        let kinds: Vec<&str> = review
            .split("<h3 class=\"review-kind\" id=\"review-")
            .skip(1)
            .map(|s| &s[..s.find('"').unwrap()])
            .collect();
        assert_eq!(kinds, ["ambiguous", "unresolved", "invalid", "failed"]);
        let candidates = between(review, "<ol class=\"candidates\">", "</ol>");
        assert_eq!(candidates.matches("<li>").count(), 2);
        assert!(
            candidates
                .contains("López Motors &amp; Fils SA <span class=\"muted\">33000 Lyon</span>")
        );
        assert!(review.contains("<td data-label=\"Searched\">López Motors</td>"));
        assert!(review.contains("country: &#39;XX&#39; is not a country"));
        assert!(review.contains("retried next run"));
        assert!(!review.contains("C-8"), "an ignored row is not to review");
        assert!(html.find("id=\"alerts\"") < html.find("id=\"review\""));
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
        let read = data(&html);
        let stale: Vec<&str> = read.iter().map(|r| r["stale"].as_str()).collect();
        assert_eq!(stale, ["stale", "", "stale", ""]);
        // The alert shows its refresh date and mark.
        let alerts = listed(&html);
        assert!(alerts.contains("<th>Refreshed</th>"));
        // A row is one line: its cells follow each other with nothing between them.
        assert!(alerts.contains(
            "2026-11-20 00:00:00 UTC</td><td data-label=\"Refreshed\" data-sort=\"2026-09-01T01:30:00Z\" class=\"date refreshed\">2026-09-01 01:30:00 UTC <span class=\"stale-tag\">stale</span></td>"
        ));
        assert_eq!(alerts.matches("<tr class=\"alert stale\"").count(), 1);

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
    fn a_rows_own_columns_are_shown_with_it_and_escaped() {
        let mut row = unscreened(2, RowStatus::Unresolved, "no company matches");
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

    #[test]
    fn without_scripts_the_page_says_where_every_row_is() {
        let html = render(&run(1, 0), &[rated(2, Color::Green, None)]);
        let rows = between(&html, "<section id=\"rows\">", "</section>");
        assert!(rows.contains(
            "<noscript><p class=\"notice\">The table of every row needs scripts, which are off: every row and field is in report.csv (and report.json)."
        ));
        assert!(rows.contains("<div class=\"controls\" id=\"controls\" hidden>"));
        assert!(
            rows.contains("<tbody></tbody>"),
            "rows are data, not markup"
        );
    }

    #[test]
    fn the_trend_draws_a_chart_per_series_and_a_table_of_its_numbers() {
        let mut info = run(10, 0);
        info.by_color = vec![("green".into(), 6), ("red".into(), 4)];
        let mut trend = vec![
            colors(1, &[("green", 8), ("yellow", 2)]),
            colors(2, &[("red", 3), ("green", 7), ("mauve", 1)]),
            colors(3, &[("green", 6), ("red", 4)]),
        ];
        trend[2].new_by_color = vec![("red".into(), 1)];
        let html = render_with_trend(&info, &[], trend, None);
        let section = between(&html, "<section id=\"trend\"", "</section>");
        assert!(section.contains("runs 1–3, each chart on its own scale"));
        let titles: Vec<&str> = section
            .split("<span class=\"chart-title\">")
            .skip(1)
            .map(|s| &s[..s.find('<').unwrap()])
            .collect();
        assert_eq!(
            titles,
            [
                "Red rows",
                "Black rows",
                "Came into red, into black",
                "Yellow rows",
                "Green rows",
                "Mauve rows"
            ]
        );
        assert_eq!(section.matches("<svg ").count(), 6);
        assert!(section.contains("<title>run 3 (2026-11-23): 4 red, 1 came into red</title>"));
        assert!(section.contains("class=\"new-red\""));
        let numbers = between(section, "<tbody>", "</tbody>");
        assert!(numbers.starts_with("\n<tr data-run=\"3\" class=\"current\"><td>3</td><td>2026-11-23</td><td data-rows=\"red\">4</td><td data-new=\"red\">1</td><td data-rows=\"black\">0</td><td data-new=\"black\">0</td>"), "{numbers}");
        assert!(
            !section.contains("data-amount"),
            "no amount without amounts"
        );
        assert!(!html.contains("A trend needs two runs"));
        assert!(html.find("id=\"review\"") < html.find("id=\"trend\""));
        assert!(html.find("id=\"trend\"") < html.find("id=\"rows\""));
        let svg = between(&html, "<svg", "</svg>");
        assert!(!svg.contains("href") && !svg.contains("<script"), "{svg}");
    }

    #[test]
    fn the_trend_shows_the_amount_at_risk_when_amounts_are_given() {
        let mut trend: Vec<RunColors> = (1..=3)
            .map(|id| colors(id, &[("green", 8), ("red", 2)]))
            .collect();
        for (i, t) in trend.iter_mut().enumerate() {
            t.amount_by_color = vec![
                ("green".into(), 500_000.0),
                ("red".into(), 120_000.0 * (i + 1) as f64),
            ];
        }
        let html = render_with_trend(&run(10, 0), &[], trend, Some("Encours EUR"));
        let section = between(&html, "<section id=\"trend\"", "</section>");
        assert!(section.contains(
            "<span class=\"chart-title\">Encours EUR at risk (red and black rows)</span> <b class=\"figure\">360 000</b> <span class=\"delta\">+240 000 since the first run</span>"
        ));
        assert!(section.contains("<title>run 1 (2026-11-21): 120 000 at risk</title>"));
        assert!(section.contains("<th>At risk (Encours EUR)</th>"));
        assert!(section.contains("<td data-amount>360 000</td>"));
    }

    #[test]
    fn a_first_run_draws_its_points_and_says_a_trend_needs_two() {
        let html = render_with_trend(&run(5, 0), &[], vec![colors(3, &[("green", 5)])], None);
        assert!(html.contains("A trend needs two runs"));
        assert!(html.contains("run 3, each chart on its own scale"));
        assert!(!html.contains("NaN") && !html.contains("inf\""));
        let none = render_with_trend(&run(5, 0), &[], vec![], None);
        assert!(!none.contains("id=\"trend\""), "no trend without a run");
    }

    /// A row of a large portfolio as an ERP holds it: names and references that differ
    /// from row to row as real ones do (so the data compresses as theirs would), a
    /// deterministic mix of colors and statuses.
    fn portfolio_row(i: u64) -> ResultRow {
        const FIRST: [&str; 16] = [
            "Bianchi", "Dupont", "Müller", "García", "Nowak", "Jansen", "Rossi", "Dubois",
            "Schmidt", "Peeters", "López", "Moreau", "Fischer", "Conti", "Lefèvre", "Novák",
        ];
        const TRADE: [&str; 12] = [
            "Services",
            "Transports",
            "Métallurgie",
            "Boulangerie",
            "Logistique",
            "Conseil",
            "Bâtiment",
            "Imprimerie",
            "Plomberie",
            "Automobiles",
            "Négoce",
            "Informatique",
        ];
        const FORM: [&str; 8] = [
            "SA",
            "SARL",
            "SAS",
            "GmbH",
            "BV",
            "SRL",
            "Ltd",
            "& Fils SNC",
        ];
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16;
        let color = match h % 100 {
            0..=69 => Color::Green,
            70..=84 => Color::Yellow,
            85..=92 => Color::White,
            93..=97 => Color::Red,
            _ => Color::Black,
        };
        let before = if h.is_multiple_of(37) {
            Color::Yellow
        } else {
            color.clone()
        };
        let mut row = rated(i + 2, color, Some(before));
        row.company_id = Some(uuid::Uuid::from_u128(h.into()));
        row.reference = Some(format!("CLI{:07}", (h % 9_000_000) + 1_000_000));
        row.company_name = Some(format!(
            "{} {} {} {}",
            FIRST[(h % 16) as usize],
            TRADE[(h / 16 % 12) as usize],
            FIRST[(h / 192 % 16) as usize],
            FORM[(h / 3072 % 8) as usize]
        ));
        row.id = Some(format!("{:09}", h % 1_000_000_000));
        row.last_change_date = Some(
            time("2026-01-01T00:00:00Z") + jiff::SignedDuration::from_hours((h % 8000) as i64),
        );
        if h % 50 == 1 {
            row = unscreened(i + 2, RowStatus::Unresolved, "no company matches the SIREN");
        }
        row
    }

    #[test]
    fn a_hundred_thousand_rows_make_a_page_under_five_megabytes() {
        let n = 100_000;
        let rows: Vec<ResultRow> = (0..n).map(portfolio_row).collect();
        let mut info = run(n, 0);
        info.by_color = vec![("green".into(), n)];
        let html = render(&info, &rows);
        let megabytes = html.len() as f64 / 1e6;
        println!("report.html of {n} rows: {megabytes:.2} MB");
        assert!(megabytes < 5.0, "{megabytes:.2} MB");
        assert_eq!(data(&html).len() as u64, n, "every row in the data");
    }
}
