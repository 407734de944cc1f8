//! The trend of report.html: the portfolio's last runs as small charts side by side, each
//! on its own scale, so that red moving from 170 to 205 shows however many rows are green:
//! the rows red, the rows black, the rows that came into red and into black each night (a
//! change, never a first screening), the amount at risk when an amount column is named,
//! then the other colors. Each run's numbers are in a tooltip (`<title>`) and in a plain
//! table under the charts, for a page read without pointer, scripts or colors, or printed.
//!
//! Everything is computed here, so the template only writes numbers and words: an SVG
//! without script, fonts or links. The words, numbers and days are the reader's.

use jiff::Timestamp;

use crate::locale::{Currency, Locale, Page};
use crate::model::{Color, RunColors, RunInfo};

/// A chart's drawing area, in the units of its viewBox: about the pixels it is shown at.
pub(super) const WIDTH: f64 = 320.0;
pub(super) const HEIGHT: f64 = 100.0;
/// Left of the plot: room for the scale's numbers.
pub(super) const LEFT: f64 = 48.0;
const RIGHT: f64 = 8.0;
pub(super) const TOP: f64 = 8.0;
/// Below the plot: room for the runs' labels.
pub(super) const BOTTOM: f64 = 78.0;
/// Where the runs' labels stand.
pub(super) const LABEL_Y: f64 = 93.0;
/// The width of one character of a label (10-unit type), and the room kept between two
/// labels: no two labels ever overlap, however many runs there are.
const CHAR_WIDTH: f64 = 5.8;
const LABEL_GAP: f64 = 8.0;
/// Bars never get wider than this, so a few runs do not look like a wall.
const BAR_MAX: f64 = 28.0;

/// The trend: its charts and its numbers.
pub(super) struct Trend {
    pub charts: Vec<Chart>,
    /// The table of numbers, newest run first.
    pub table: Vec<TableRow>,
    /// The table's color columns, in the order of the charts.
    pub colors: Vec<Color>,
    /// The amount at risk's column heading, when any run has amounts.
    pub amount: Option<String>,
    /// The first and last run drawn.
    pub first: i64,
    pub last: i64,
}

impl Trend {
    pub fn single(&self) -> bool {
        self.first == self.last
    }
}

/// One small chart.
pub(super) struct Chart {
    /// A word for the styles: `red`, `black`, `news`, `amount`, `green`, … (`other` for a
    /// color outside the five).
    pub key: &'static str,
    pub title: String,
    /// The last run's figure, and how it moved since the first run drawn.
    pub figure: String,
    pub delta: String,
    /// The series of a chart of more than one, with their style.
    pub legend: Vec<(&'static str, String)>,
    /// What the chart shows, in words, for a screen reader.
    pub desc: String,
    pub ticks: Vec<Tick>,
    pub line: Option<Line>,
    pub bars: Vec<Bar>,
    pub labels: Vec<Label>,
    /// One area per run, the height of the plot, carrying the run's numbers as a tooltip.
    pub hits: Vec<Hit>,
}

/// A number of the scale and its grid line.
pub(super) struct Tick {
    pub y: String,
    pub text: String,
}

pub(super) struct Line {
    pub path: String,
    pub points: Vec<Point>,
}

pub(super) struct Point {
    pub x: String,
    pub y: String,
    pub current: bool,
}

pub(super) struct Bar {
    /// `new-red` or `new-black`.
    pub class: &'static str,
    pub run_id: i64,
    pub rows: u64,
    pub x: String,
    pub y: String,
    pub width: String,
    pub height: String,
}

pub(super) struct Label {
    pub x: String,
    pub text: String,
    pub current: bool,
}

pub(super) struct Hit {
    pub x: String,
    pub width: String,
    pub title: String,
}

/// One run in the table of numbers.
pub(super) struct TableRow {
    pub run_id: i64,
    pub day: String,
    pub current: bool,
    /// Rated rows of each of the trend's colors.
    pub rows: Vec<(Color, String)>,
    pub new_red: String,
    pub new_black: String,
    /// The amount at risk, when the trend has amounts.
    pub amount: String,
}

/// A coordinate, short: `12.5`, `40`.
fn coordinate(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// `2026-11-21` of a time, in UTC.
pub(super) fn day(time: Timestamp) -> String {
    crate::model::day_text(time)
}

/// A count from a run's list of counts by color.
fn of<T: Copy + Default>(by_color: &[(String, T)], color: &Color) -> T {
    by_color
        .iter()
        .find(|(name, _)| name == color.as_str())
        .map_or_else(T::default, |(_, n)| *n)
}

/// The amount at risk of a run: its red and black rows' amounts; none without amounts.
fn at_risk(run: &RunColors) -> Option<f64> {
    (!run.amount_by_color.is_empty())
        .then(|| of(&run.amount_by_color, &Color::Red) + of(&run.amount_by_color, &Color::Black))
}

/// An amount, whole, as every channel writes it (the summary, the mail, the page):
/// `1 234 568`, `1 234 568 €`, `1.234.568 €`; a negative one keeps its sign.
pub(super) fn amount(page: &Page, currency: Option<Currency>, v: f64) -> String {
    match page.locale() {
        Locale::En => crate::digest::format_amount(v),
        l => l.amount(v, currency),
    }
}

/// A count as the page writes it: `2,412`, `2 412`, `2.412`.
fn thousands(page: &Page, n: u64) -> String {
    page.number(n)
}

/// A number of the scale, short enough for its margin yet told apart from its neighbours
/// `step` away: `950`, `71,650`, `1.25M`, `2G` (`1,25M` in French and German).
fn tick_text(page: &Page, v: f64, step: f64) -> String {
    let a = v.abs();
    if a < 1e6 {
        let text = thousands(page, v.round().abs() as u64);
        return if v.round() < 0.0 {
            format!("-{text}")
        } else {
            text
        };
    }
    let unit = if a < 1e9 { 1e6 } else { 1e9 };
    let decimals = (-(step / unit).log10()).ceil().clamp(0.0, 3.0) as usize;
    let text = format!("{:.*}", decimals, v / unit);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    let text = match page.locale() {
        Locale::En => text.to_string(),
        _ => text.replace('.', ","),
    };
    format!("{text}{}", if unit == 1e6 { "M" } else { "G" })
}

/// `+35`, `-3`, `±0`.
fn signed(delta: f64, show: impl Fn(f64) -> String) -> String {
    if delta > 0.0 {
        format!("+{}", show(delta))
    } else if delta < 0.0 {
        format!("-{}", show(-delta))
    } else {
        "±0".to_string()
    }
}

/// A step of 1, 2 or 5 times a power of ten, about a quarter of `span`: a scale close
/// around its series, in at most a few steps.
fn nice_step(span: f64) -> f64 {
    let raw = span / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let n = raw / magnitude;
    let m = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * magnitude
}

/// A scale from `lo` to `hi` in round steps: its ends and step. Counts keep whole steps.
fn scale(lo: f64, hi: f64, whole: bool) -> (f64, f64, f64) {
    let (mut lo, mut hi) = (lo, hi);
    if hi - lo < f64::EPSILON * hi.abs().max(1.0) {
        // A flat series stands in the middle of its chart.
        let pad = if whole {
            1.0
        } else {
            (hi.abs() * 0.1).max(1.0)
        };
        lo = if lo >= 0.0 {
            (lo - pad).max(0.0)
        } else {
            lo - pad
        };
        hi += pad;
    }
    let mut step = nice_step(hi - lo);
    if whole {
        step = step.max(1.0).round();
    }
    let lo = (lo / step).floor() * step;
    let hi = (hi / step).ceil() * step;
    (lo, hi, step)
}

/// What the x axis needs: where each run stands, how wide its slot is, and its label.
struct Axis {
    slot: f64,
    xs: Vec<f64>,
    labels: Vec<Label>,
}

impl Axis {
    fn new(runs: &[RunColors], page: &Page) -> Axis {
        let n = runs.len().max(1);
        let plot = WIDTH - LEFT - RIGHT;
        let slot = plot / n as f64;
        let xs: Vec<f64> = (0..runs.len())
            .map(|i| LEFT + slot * (i as f64 + 0.5))
            .collect();
        // Days when each run has its own, else run numbers (several runs a day).
        let days: Vec<String> = runs.iter().map(|r| short_day(page, r.started_at)).collect();
        let distinct = days.windows(2).all(|w| w[0] != w[1]);
        let texts: Vec<String> = if distinct {
            days
        } else {
            let run = |r: &RunColors| page.with("trend-run", "run", r.run_id.to_string());
            runs.iter().map(run).collect()
        };
        let labels = spaced(&xs, &texts);
        Axis { slot, xs, labels }
    }
}

/// `Nov 21` of a time, in UTC, in English; `21/11`, `21.11.` of the day in the reader's
/// zone.
fn short_day(page: &Page, time: Timestamp) -> String {
    let pattern = match page.locale() {
        Locale::En => return time.strftime("%b %-d").to_string(),
        Locale::Fr => "%d/%m",
        Locale::De => "%d.%m.",
    };
    let zone = page.reader.zone.time_zone().clone();
    time.to_zoned(zone).strftime(pattern).to_string()
}

/// The labels kept so that none overlaps another: the last run's always, the first's, and
/// evenly spaced ones between, each placed within the chart.
fn spaced(xs: &[f64], texts: &[String]) -> Vec<Label> {
    let n = xs.len();
    if n == 0 {
        return Vec::new();
    }
    let width = |i: usize| texts[i].chars().count() as f64 * CHAR_WIDTH;
    let center = |i: usize| {
        let half = width(i) / 2.0;
        xs[i].clamp(half, WIDTH - half)
    };
    let apart = |a: usize, b: usize| {
        (center(b) - center(a)).abs() >= (width(a) + width(b)) / 2.0 + LABEL_GAP
    };
    // As many as fit, evenly: a step of whole runs.
    let widest = (0..n).map(width).fold(0.0, f64::max) + LABEL_GAP;
    let fit = ((WIDTH - LEFT) / widest).floor().max(1.0) as usize;
    let step = if n <= fit {
        1
    } else {
        (n - 1).div_ceil(fit.saturating_sub(1).max(1))
    };
    let mut kept = vec![n - 1];
    let mut candidates: Vec<usize> = (0..n - 1).step_by(step).collect();
    candidates.reverse();
    for i in candidates {
        if kept.iter().all(|&k| apart(i, k)) {
            kept.push(i);
        }
    }
    kept.sort_unstable();
    kept.into_iter()
        .map(|i| Label {
            x: coordinate(center(i)),
            text: texts[i].clone(),
            current: i == n - 1,
        })
        .collect()
}

/// `run 12 (2026-11-21)`: how a tooltip names a run.
fn run_name(page: &Page, run: &RunColors) -> String {
    let day = page.date(&run.started_at);
    page.with2("trend-run-day", "run", run.run_id.to_string(), "day", &day)
}

/// The y of `v` on a scale from `lo` to `hi`.
fn y_of(v: f64, lo: f64, hi: f64) -> f64 {
    BOTTOM - (BOTTOM - TOP) * (v - lo) / (hi - lo)
}

fn ticks(page: &Page, lo: f64, hi: f64, step: f64) -> Vec<Tick> {
    let count = ((hi - lo) / step).round() as usize;
    (0..=count)
        .map(|k| {
            let v = lo + step * k as f64;
            Tick {
                y: coordinate(y_of(v, lo, hi)),
                text: tick_text(page, v, step),
            }
        })
        .collect()
}

fn hits(axis: &Axis, titles: Vec<String>) -> Vec<Hit> {
    axis.xs
        .iter()
        .zip(titles)
        .map(|(x, title)| Hit {
            x: coordinate(x - axis.slot / 2.0),
            width: coordinate(axis.slot),
            title,
        })
        .collect()
}

/// A chart of one series as a line through each run's point, on the series' own scale.
#[allow(clippy::too_many_arguments)]
fn line_chart(
    page: &Page,
    axis: &Axis,
    key: &'static str,
    title: String,
    values: &[f64],
    whole: bool,
    show: impl Fn(f64) -> String,
    titles: Vec<String>,
) -> Chart {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi, step) = scale(lo, hi, whole);
    let last = values.len() - 1;
    let points: Vec<Point> = values
        .iter()
        .enumerate()
        .map(|(i, v)| Point {
            x: coordinate(axis.xs[i]),
            y: coordinate(y_of(*v, lo, hi)),
            current: i == last,
        })
        .collect();
    let path = points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{}{},{}", if i == 0 { "M" } else { "L" }, p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ");
    let (first, now) = (values[0], values[last]);
    let (min, max) = (
        values.iter().copied().fold(f64::INFINITY, f64::min),
        values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let said = [
        ("title", title.clone()),
        ("now", show(now)),
        ("first", show(first)),
        ("min", show(min)),
        ("max", show(max)),
    ];
    let desc = page.text("trend-line-desc", &said.map(|(k, v)| (k, v.into())));
    Chart {
        key,
        title,
        figure: show(now),
        delta: if last == 0 {
            String::new()
        } else {
            let delta = signed(now - first, &show);
            page.with("trend-since-first", "delta", &delta)
        },
        legend: Vec::new(),
        desc,
        ticks: ticks(page, lo, hi, step),
        line: Some(Line { path, points }),
        bars: Vec::new(),
        labels: axis.labels.iter().map(Label::clone_of).collect(),
        hits: hits(axis, titles),
    }
}

impl Label {
    fn clone_of(&self) -> Label {
        Label {
            x: self.x.clone(),
            text: self.text.clone(),
            current: self.current,
        }
    }
}

/// The rows that came into red and into black each run, side by side, from zero.
fn news_chart(page: &Page, axis: &Axis, runs: &[RunColors]) -> Chart {
    let news: Vec<(u64, u64)> = runs
        .iter()
        .map(|r| {
            (
                of(&r.new_by_color, &Color::Red),
                of(&r.new_by_color, &Color::Black),
            )
        })
        .collect();
    let top = news
        .iter()
        .map(|(r, b)| r.max(b))
        .max()
        .copied()
        .unwrap_or(0);
    let (_, hi, step) = scale(0.0, top.max(1) as f64, true);
    let group = (axis.slot * 0.8).min(BAR_MAX);
    let width = group / 2.0;
    let mut bars = Vec::new();
    for ((x, run), (red, black)) in axis.xs.iter().zip(runs).zip(&news) {
        for (class, rows, left) in [
            ("new-red", *red, x - group / 2.0),
            ("new-black", *black, x - group / 2.0 + width),
        ] {
            if rows == 0 {
                continue;
            }
            // One row among hundreds still shows.
            let height = ((BOTTOM - TOP) * rows as f64 / hi).max(1.5);
            bars.push(Bar {
                class,
                run_id: run.run_id,
                rows,
                x: coordinate(left),
                y: coordinate(BOTTOM - height),
                width: coordinate(width),
                height: coordinate(height),
            });
        }
    }
    let last = news.len() - 1;
    let (red, black) = news[last];
    let total = |pick: fn(&(u64, u64)) -> u64| news.iter().map(pick).sum::<u64>();
    let n = |n: u64| thousands(page, n);
    let titles = runs
        .iter()
        .zip(&news)
        .map(|(run, (red, black))| {
            let said = [
                ("run", run_name(page, run)),
                ("red", n(*red)),
                ("black", n(*black)),
            ];
            page.text("trend-news-run", &said.map(|(k, v)| (k, v.into())))
        })
        .collect();
    let said = [
        ("red", n(red)),
        ("black", n(black)),
        ("allred", n(total(|n| n.0))),
        ("allblack", n(total(|n| n.1))),
        ("runs", runs.len().to_string()),
    ];
    Chart {
        key: "news",
        title: page.word("trend-news-title").to_string(),
        figure: format!("{} · {}", n(red), n(black)),
        delta: page.word("trend-in-last-run").to_string(),
        legend: vec![
            ("new-red", page.word("trend-into-red").to_string()),
            ("new-black", page.word("trend-into-black").to_string()),
        ],
        desc: page.text("trend-news-desc", &said.map(|(k, v)| (k, v.into()))),
        ticks: ticks(page, 0.0, hi, step),
        line: None,
        bars,
        labels: axis.labels.iter().map(Label::clone_of).collect(),
        hits: hits(axis, titles),
    }
}

/// The key of a color's chart and line style.
fn key(color: &Color) -> &'static str {
    match color {
        Color::Green => "green",
        Color::Yellow => "yellow",
        Color::Red => "red",
        Color::Black => "black",
        Color::White => "white",
        Color::Other(_) => "other",
    }
}

/// A color's chart's title: `Red rows`, `Lignes rouges`; a color outside the five by its
/// name with a capital.
fn rows_of(page: &Page, color: &Color) -> String {
    match color {
        Color::Other(name) => {
            let mut chars = name.chars();
            let capital: String = match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect(),
                None => String::new(),
            };
            page.with("trend-rows", "color", &capital)
        }
        color => page
            .word(&format!("trend-rows-{}", color.as_str()))
            .to_string(),
    }
}

impl Trend {
    /// The trend of `runs` (oldest first, ending with `run`), with `column` the heading of
    /// the portfolio's amount column; none when there is no run.
    /// `page` says it in its reader's words.
    pub fn of(
        run: &RunInfo,
        runs: &[RunColors],
        column: Option<&str>,
        page: &Page,
    ) -> Option<Trend> {
        let (first, last) = (runs.first()?, runs.last()?);
        let axis = Axis::new(runs, page);
        let currency = column.and_then(Currency::of_header);
        let amount = |v: f64| amount(page, currency, v);
        let n = |n: u64| thousands(page, n);
        // Red and black always, then yellow and green, then white and any other color a
        // run had.
        let mut colors = vec![Color::Red, Color::Black, Color::Yellow, Color::Green];
        let mut others: Vec<Color> = Vec::new();
        for r in runs {
            for (name, n) in &r.by_color {
                let color = Color::parse(name);
                if *n > 0 && !colors.contains(&color) && !others.contains(&color) {
                    others.push(color);
                }
            }
        }
        others.sort_by_key(|c| (*c != Color::White, c.as_str().to_string()));
        colors.extend(others);
        let has_amounts = runs.iter().any(|r| !r.amount_by_color.is_empty());
        let amount_title = match column {
            Some(column) => page.with("trend-amount-title-of", "column", column),
            None => page.word("trend-amount-title").to_string(),
        };

        let color_chart = |color: &Color| {
            let values: Vec<f64> = runs.iter().map(|r| of(&r.by_color, color) as f64).collect();
            let titles = runs
                .iter()
                .map(|r| {
                    let said = [
                        ("run", run_name(page, r)),
                        ("rows", n(of(&r.by_color, color))),
                        ("color", page.color(color).to_string()),
                    ];
                    let mut title = page.text("trend-color-run", &said.map(|(k, v)| (k, v.into())));
                    if matches!(color, Color::Red | Color::Black) {
                        let rows = n(of(&r.new_by_color, color));
                        let color = page.color(color);
                        title.push_str(&page.with2(
                            "trend-came-into",
                            "rows",
                            &rows,
                            "color",
                            color,
                        ));
                    }
                    title
                })
                .collect();
            line_chart(
                page,
                &axis,
                key(color),
                rows_of(page, color),
                &values,
                true,
                |v| n(v.max(0.0) as u64),
                titles,
            )
        };
        let mut charts: Vec<Chart> = colors[..2].iter().map(color_chart).collect();
        charts.push(news_chart(page, &axis, runs));
        if has_amounts {
            let values: Vec<f64> = runs.iter().map(|r| at_risk(r).unwrap_or(0.0)).collect();
            let titles = runs
                .iter()
                .map(|r| match at_risk(r) {
                    Some(v) => page.with2(
                        "trend-amount-run",
                        "run",
                        run_name(page, r),
                        "amount",
                        amount(v),
                    ),
                    None => page.with("trend-no-amount", "run", run_name(page, r)),
                })
                .collect();
            charts.push(line_chart(
                page,
                &axis,
                "amount",
                amount_title.clone(),
                &values,
                false,
                amount,
                titles,
            ));
        }
        charts.extend(colors[2..].iter().map(color_chart));

        let table = runs
            .iter()
            .rev()
            .map(|r| TableRow {
                run_id: r.run_id,
                day: page.date(&r.started_at),
                current: r.run_id == run.id,
                rows: colors
                    .iter()
                    .map(|c| (c.clone(), n(of(&r.by_color, c))))
                    .collect(),
                new_red: n(of(&r.new_by_color, &Color::Red)),
                new_black: n(of(&r.new_by_color, &Color::Black)),
                amount: at_risk(r).map(amount).unwrap_or_default(),
            })
            .collect();
        Some(Trend {
            charts,
            table,
            colors,
            amount: has_amounts.then(|| match column {
                Some(column) => page.with("trend-at-risk-of", "column", column),
                None => page.word("trend-at-risk").to_string(),
            }),
            first: first.run_id,
            last: last.run_id,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::time;

    /// A night of a trend: the run `run_id`, a day apart from the others, with these counts.
    pub(in crate::report) fn colors(run_id: i64, counts: &[(&str, u64)]) -> RunColors {
        RunColors {
            run_id,
            started_at: time("2026-11-20T02:00:00Z")
                + jiff::SignedDuration::from_hours(24 * run_id),
            by_color: counts.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            new_by_color: Vec::new(),
            amount_by_color: Vec::new(),
        }
    }

    fn info(id: i64) -> RunInfo {
        RunInfo {
            id,
            ..RunInfo::example()
        }
    }

    fn chart<'a>(trend: &'a Trend, key: &str) -> &'a Chart {
        trend
            .charts
            .iter()
            .find(|c| c.key == key)
            .unwrap_or_else(|| panic!("no {key} chart"))
    }

    fn ys(chart: &Chart) -> Vec<f64> {
        let line = chart.line.as_ref().unwrap();
        line.points.iter().map(|p| p.y.parse().unwrap()).collect()
    }

    #[test]
    fn each_color_has_its_own_scale_so_a_small_change_shows() {
        // 100,000 green hide red moving from 170 to 205 on one scale; on its own it spans
        // the chart.
        let runs: Vec<RunColors> = (1..=30)
            .map(|id| {
                let red = 170 + (id as u64 - 1) * 35 / 29;
                colors(id, &[("green", 100_000 - red), ("red", red), ("black", 12)])
            })
            .collect();
        let trend = Trend::of(&info(30), &runs, None, &Page::english()).unwrap();
        let red = chart(&trend, "red");
        let y = ys(red);
        assert!(
            y[0] - y[29] > (BOTTOM - TOP) * 0.6,
            "170 → 205 climbs most of the chart: {} → {}",
            y[0],
            y[29]
        );
        assert_eq!(red.figure, "205");
        assert_eq!(red.delta, "+35 since the first run");
        let scale: Vec<&str> = red.ticks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(scale.first(), Some(&"170"), "{scale:?}");
        assert_eq!(scale.last(), Some(&"210"), "{scale:?}");
        // Twelve black every night: a flat line in the middle, never at the bottom unseen.
        let black = chart(&trend, "black");
        assert!(
            ys(black)
                .iter()
                .all(|y| (*y - (BOTTOM + TOP) / 2.0).abs() < 1.0)
        );
        assert_eq!(black.figure, "12");
        assert_eq!(black.delta, "±0 since the first run");
        let keys: Vec<&str> = trend.charts.iter().map(|c| c.key).collect();
        assert_eq!(keys, ["red", "black", "news", "yellow", "green"]);
        assert!(trend.amount.is_none());
    }

    #[test]
    fn the_news_of_each_night_are_bars_from_zero_with_their_numbers() {
        let mut runs: Vec<RunColors> = (1..=3)
            .map(|id| colors(id, &[("green", 90), ("red", 8), ("black", 2)]))
            .collect();
        runs[1].new_by_color = vec![("red".into(), 4), ("black".into(), 1), ("green".into(), 9)];
        runs[2].new_by_color = vec![("red".into(), 200)];
        let trend = Trend::of(&info(3), &runs, None, &Page::english()).unwrap();
        let news = chart(&trend, "news");
        let bars: Vec<(&str, i64, u64)> = news
            .bars
            .iter()
            .map(|b| (b.class, b.run_id, b.rows))
            .collect();
        assert_eq!(
            bars,
            [("new-red", 2, 4), ("new-black", 2, 1), ("new-red", 3, 200)],
            "no bar for nothing"
        );
        let height = |i: usize| news.bars[i].height.parse::<f64>().unwrap();
        assert!(height(2) > 60.0, "the largest reaches the top");
        assert!(height(1) >= 1.5, "one among 200 still shows");
        assert_eq!(news.figure, "200 · 0");
        assert_eq!(
            news.hits[1].title,
            "run 2 (2026-11-22): 4 into red, 1 into black"
        );
        assert_eq!(news.legend.len(), 2);
        let red = chart(&trend, "red");
        assert_eq!(
            red.hits[1].title,
            "run 2 (2026-11-22): 8 red, 4 came into red"
        );
        assert_eq!(trend.table[1].new_red, "4");
        assert_eq!(trend.table[1].new_black, "1");
        assert_eq!(trend.table[0].run_id, 3, "newest first");
    }

    #[test]
    fn the_amount_at_risk_is_drawn_when_given_with_its_columns_name() {
        let mut runs: Vec<RunColors> = (1..=4)
            .map(|id| colors(id, &[("green", 90), ("red", 8), ("black", 2)]))
            .collect();
        for (i, run) in runs.iter_mut().enumerate() {
            run.amount_by_color = vec![
                ("green".into(), 9e6),
                ("red".into(), 1_000_000.0 + 250_000.0 * i as f64),
                ("black".into(), 50_000.4),
            ];
        }
        let trend = Trend::of(&info(4), &runs, Some("Encours EUR"), &Page::english()).unwrap();
        let keys: Vec<&str> = trend.charts.iter().map(|c| c.key).collect();
        assert_eq!(keys, ["red", "black", "news", "amount", "yellow", "green"]);
        let amount = chart(&trend, "amount");
        assert_eq!(amount.title, "Encours EUR at risk (red and black rows)");
        assert_eq!(amount.figure, "1 800 000");
        assert_eq!(amount.delta, "+750 000 since the first run");
        assert_eq!(
            amount.hits[0].title,
            "run 1 (2026-11-21): 1 050 000 at risk"
        );
        let y = ys(amount);
        assert!(y.windows(2).all(|w| w[1] < w[0]), "rising: {y:?}");
        let scale: Vec<&str> = amount.ticks.iter().map(|t| t.text.as_str()).collect();
        assert!(scale.iter().all(|t| t.ends_with('M')), "{scale:?}");
        let mut distinct = scale.clone();
        distinct.dedup();
        assert_eq!(distinct, scale, "no two numbers of the scale alike");
        assert_eq!(trend.amount.as_deref(), Some("At risk (Encours EUR)"));
        assert_eq!(trend.table[0].amount, "1 800 000");
        // Without an amount column's name the chart still says what it sums.
        let trend = Trend::of(&info(4), &runs, None, &Page::english()).unwrap();
        assert_eq!(
            chart(&trend, "amount").title,
            "Amount at risk (red and black rows)"
        );
    }

    #[test]
    fn labels_never_collide_however_many_runs() {
        for n in [1usize, 2, 7, 12, 30, 35, 90, 400] {
            let runs: Vec<RunColors> = (1..=n as i64)
                .map(|id| colors(id, &[("green", 10)]))
                .collect();
            let trend = Trend::of(&info(n as i64), &runs, None, &Page::english()).unwrap();
            let labels = &chart(&trend, "red").labels;
            assert!(labels.last().unwrap().current, "{n}: the last run is named");
            assert!(
                !labels.is_empty() && labels.len() <= 8,
                "{n}: {}",
                labels.len()
            );
            let extent = |l: &Label| {
                let x: f64 = l.x.parse().unwrap();
                let half = l.text.chars().count() as f64 * CHAR_WIDTH / 2.0;
                (x - half, x + half)
            };
            for l in labels {
                let (a, b) = extent(l);
                assert!(a >= 0.0 && b <= WIDTH, "{n}: {} at {}", l.text, l.x);
            }
            for w in labels.windows(2) {
                assert!(extent(&w[0]).1 + LABEL_GAP <= extent(&w[1]).0 + 0.01, "{n}");
            }
            if n >= 2 {
                assert_eq!(labels[0].text, "Nov 21", "{n}: the first run is named");
            }
        }
        // Several runs a day are told apart by their numbers.
        let mut runs = vec![colors(1, &[]), colors(2, &[])];
        runs[1].started_at = runs[0].started_at;
        let trend = Trend::of(&info(2), &runs, None, &Page::english()).unwrap();
        let texts: Vec<&str> = chart(&trend, "red")
            .labels
            .iter()
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(texts, ["run 1", "run 2"]);
    }

    #[test]
    fn a_single_run_and_an_empty_one_draw_without_dividing_by_zero() {
        let trend = Trend::of(&info(3), &[colors(3, &[])], None, &Page::english()).unwrap();
        assert!(trend.single());
        for chart in &trend.charts {
            assert!(
                chart.delta.is_empty() || chart.key == "news",
                "{}",
                chart.key
            );
            for t in &chart.ticks {
                assert!(t.y.parse::<f64>().unwrap().is_finite());
            }
            if let Some(line) = &chart.line {
                assert!(!line.path.contains("NaN") && !line.path.contains("inf"));
            }
        }
        assert!(Trend::of(&info(3), &[], None, &Page::english()).is_none());
    }

    #[test]
    fn other_colors_get_a_chart_after_the_five() {
        let runs = vec![
            colors(1, &[("green", 3), ("mauve", 1)]),
            colors(2, &[("green", 3), ("white", 2)]),
        ];
        let trend = Trend::of(&info(2), &runs, None, &Page::english()).unwrap();
        let titles: Vec<&str> = trend.charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Red rows",
                "Black rows",
                "Came into red, into black",
                "Yellow rows",
                "Green rows",
                "White rows",
                "Mauve rows"
            ]
        );
        assert_eq!(trend.charts[6].key, "other");
        assert_eq!(trend.colors.len(), 6);
    }

    #[test]
    fn numbers_are_short_in_the_margin_and_whole_elsewhere() {
        assert_eq!(tick_text(&Page::english(), 950.0, 50.0), "950");
        assert_eq!(tick_text(&Page::english(), 71_650.0, 50.0), "71,650");
        assert_eq!(tick_text(&Page::english(), 9_500_000.0, 500_000.0), "9.5M");
        assert_eq!(tick_text(&Page::english(), 9_000_000.0, 500_000.0), "9M");
        assert_eq!(tick_text(&Page::english(), 1_250_000.0, 50_000.0), "1.25M");
        assert_eq!(tick_text(&Page::english(), 2e9, 1e9), "2G");
        assert_eq!(amount(&Page::english(), None, 1_234_567.6), "1 234 568");
        assert_eq!(amount(&Page::english(), None, -1_500.0), "-1 500");
        assert_eq!(signed(-3.0, |v| amount(&Page::english(), None, v)), "-3");
    }
}
