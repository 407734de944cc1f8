//! `ratewatch runs` and `ratewatch report`: what each run did, and a past run's reports
//! written again from the database. Neither writes the database.

use serde_json::{Map, Value, json};

use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::error::{Error, ExitCode};
use crate::locale::Reader;
use crate::model::{Color, MakePrintable, RunInfo};
use crate::report::ReportOptions;
use crate::run::{ReportError, write_reports};
use crate::settings::cli::{ReportArgs, RunsArgs};
use crate::settings::config::Sources;
use crate::store::time_text;

const HEADERS: [&str; 12] = [
    "RUN",
    "STARTED",
    "PORTFOLIO",
    "STATUS",
    "ROWS",
    "RATED",
    "UNRESOLVED",
    "AMBIGUOUS",
    "INVALID",
    "FAILED",
    "IGNORED",
    "ALERTS",
];

const CSV_HEADERS: [&str; 14] = [
    "id",
    "started_at",
    "finished_at",
    "portfolio",
    "input_path",
    "status",
    "rows",
    "rated",
    "unresolved",
    "ambiguous",
    "invalid",
    "failed",
    "ignored",
    "alerts",
];

/// The five colors, always listed; a color outside them gets a column when a listed run
/// has it.
const COLORS: [&str; 5] = ["green", "yellow", "red", "black", "white"];

pub fn runs(args: RunsArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let reader = sources.reader()?;
    let store = open_read_only(db)?;
    let mut runs = store
        .recent_runs(args.limit)
        .map_err(|source| Error::Store {
            path: db.clone(),
            source,
        })?;
    // Names and colors as the reports show them, whatever an older version stored.
    runs.make_printable();
    // When each run's rows were deleted as too old (keep_run_details_days), if they were.
    let pruned = runs
        .iter()
        .map(|r| store.details_pruned_at(r.id))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| Error::Store {
            path: db.clone(),
            source,
        })?;
    let colors = colors(&runs);
    let text = match Style::of(&args.listing) {
        Style::Table if runs.is_empty() => format!("{}\n", reader.locale.word("no-runs")),
        Style::Table => {
            let l = reader.locale;
            let headers: Vec<String> = l
                .headers(&HEADERS)
                .into_iter()
                .chain(
                    colors
                        .iter()
                        .map(|c| l.color(&Color::parse(c)).to_uppercase()),
                )
                .collect();
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            output::table(&headers, &table_rows(&reader, &runs, &colors))
                + &pruned_note(&reader, &runs, &pruned)
        }
        Style::Csv => {
            let headers: Vec<&str> = CSV_HEADERS
                .iter()
                .copied()
                .chain(colors.iter().map(String::as_str))
                .chain(["details_pruned_at"])
                .collect();
            let mut rows = rows(&runs, &colors);
            for (row, at) in rows.iter_mut().zip(&pruned) {
                row.push(at.clone().unwrap_or_default());
            }
            output::csv_in(args.dialect.csv_dialect, &headers, &rows)?
        }
        Style::Json => output::json(&json!({"runs": runs
            .iter()
            .zip(&pruned)
            .map(|(r, at)| {
                let mut run = to_json(r, &colors);
                run["details_pruned_at"] = json!(at);
                run
            })
            .collect::<Vec<_>>()}))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// The line under the table naming the listed runs whose rows were deleted as too old:
/// their counts stand, their reports can no longer be written again.
fn pruned_note(reader: &Reader, runs: &[RunInfo], pruned: &[Option<String>]) -> String {
    let ids: Vec<String> = runs
        .iter()
        .zip(pruned)
        .filter(|(_, at)| at.is_some())
        .map(|(r, _)| r.id.to_string())
        .rev()
        .collect();
    if ids.is_empty() {
        return String::new();
    }
    let note = reader.locale.text(
        "runs-pruned",
        &[
            ("count", (ids.len() as u64).into()),
            ("runs", ids.join(", ").as_str().into()),
        ],
    );
    format!("\n{note}\n")
}

/// The colors the listing has a column for: the five, then the others the runs hold, by
/// name.
fn colors(runs: &[RunInfo]) -> Vec<String> {
    let mut others: Vec<String> = runs
        .iter()
        .flat_map(|r| r.by_color.iter().map(|(c, _)| c))
        .filter(|c| !COLORS.contains(&c.as_str()))
        .cloned()
        .collect();
    others.sort();
    others.dedup();
    COLORS.iter().map(|c| c.to_string()).chain(others).collect()
}

/// A run's rated rows of a color.
fn rated(run: &RunInfo, color: &str) -> u64 {
    run.by_color
        .iter()
        .find(|(c, _)| c == color)
        .map_or(0, |(_, n)| *n)
}

/// One line per run as the reader reads it: when in their zone, how it ended in their
/// words, the counts as they write numbers; then its rated rows by color.
fn table_rows(r: &Reader, runs: &[RunInfo], colors: &[String]) -> Vec<Vec<String>> {
    let count = |n: u64| r.locale.number(n as f64);
    runs.iter()
        .map(|run| {
            let mut row = vec![
                run.id.to_string(),
                r.stamp(run.started_at),
                run.portfolio.clone(),
                r.locale.run_status(run.status),
                count(run.rows),
            ];
            row.extend(run.by_status.iter().map(|(_, n)| count(*n)));
            row.push(count(run.alerts));
            row.extend(colors.iter().map(|c| count(rated(run, c))));
            row
        })
        .collect()
}

/// One line per run with every field, for CSV; then its rated rows by color.
fn rows(runs: &[RunInfo], colors: &[String]) -> Vec<Vec<String>> {
    runs.iter()
        .map(|r| {
            let mut row = vec![
                r.id.to_string(),
                time_text(r.started_at),
                r.finished_at.map(time_text).unwrap_or_default(),
                r.portfolio.clone(),
                r.input_path.clone(),
            ];
            row.push(r.status.to_string());
            row.push(r.rows.to_string());
            row.extend(r.by_status.iter().map(|(_, n)| n.to_string()));
            row.push(r.alerts.to_string());
            row.extend(colors.iter().map(|c| rated(r, c).to_string()));
            row
        })
        .collect()
}

fn to_json(r: &RunInfo, colors: &[String]) -> Value {
    // Every color of the listing, zero included, as report.json's `by_color` names them.
    let by_color: Map<String, Value> = colors
        .iter()
        .map(|c| (c.clone(), json!(rated(r, c))))
        .collect();
    json!({
        "id": r.id,
        "started_at": time_text(r.started_at),
        "finished_at": r.finished_at.map(time_text),
        "portfolio": r.portfolio,
        "input_path": r.input_path,
        "status": r.status.as_str(),
        "demo_day": r.demo_day,
        "rows": r.rows,
        "by_status": crate::report::json::by_status(r),
        "by_color": by_color,
        "alerts": r.alerts,
    })
}

pub fn report(args: ReportArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let out = &args.out.resolve(&sources)?.value;
    let options = ReportOptions {
        out: out.clone(),
        quiet: false,
        csv_dialect: args.reports.dialect.csv_dialect.resolve(&sources)?.value,
        timestamped: args.reports.timestamped.resolve(&sources)?.value,
        stale_after_days: args.stale_after.resolve(&sources)?.value,
        alerts: sources.alert_rules(),
        page: args.reports.page_url(&sources)?,
        reader: sources.reader()?,
    };
    let store = open_read_only(db)?;
    let info =
        write_reports(&store, args.run, &options, std::io::stdout()).map_err(|e| match e {
            ReportError::Store(source) => Error::Store {
                path: db.clone(),
                source,
            },
            ReportError::Io(e) => {
                Error::io(format!("cannot write the reports in {}", out.display()), e)
            }
        })?;
    if info.finished_at.is_none() {
        eprintln!(
            "ratewatch: run {} is {}: its reports hold the rows it had screened so far",
            info.id, info.status
        );
    }
    Ok(ExitCode::Clean)
}
