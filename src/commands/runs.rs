//! `ratewatch runs` and `ratewatch report`: what each run did, and a past run's reports
//! written again from the database. Neither writes the database.

use serde_json::{Map, Value, json};

use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::cli::{ReportArgs, RunsArgs};
use crate::config::Sources;
use crate::error::{Error, ExitCode};
use crate::model::RunInfo;
use crate::report::{ReportError, ReportOptions, write_reports};

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

pub fn runs(args: RunsArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &sources.database(args.database.db.clone())?.value;
    let store = open_read_only(db)?;
    let runs = store
        .recent_runs(args.limit)
        .map_err(|source| Error::Store {
            path: db.clone(),
            source,
        })?;
    let text = match Style::of(&args.listing) {
        Style::Table if runs.is_empty() => "No runs yet.\n".to_string(),
        Style::Table => output::table(&HEADERS, &rows(&runs, false)),
        Style::Csv => output::csv(&CSV_HEADERS, &rows(&runs, true))?,
        Style::Json => {
            output::json(&json!({"runs": runs.iter().map(to_json).collect::<Vec<_>>()}))?
        }
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// One line per run: for people, or every field for CSV.
fn rows(runs: &[RunInfo], every_field: bool) -> Vec<Vec<String>> {
    runs.iter()
        .map(|r| {
            let mut row = vec![r.id.to_string(), r.started_at.clone()];
            if every_field {
                row.push(output::or_empty(&r.finished_at));
            }
            row.push(r.portfolio.clone());
            if every_field {
                row.push(r.input_path.clone());
            }
            row.push(r.status.to_string());
            row.push(r.rows.to_string());
            row.extend(r.by_status.iter().map(|(_, n)| n.to_string()));
            row.push(r.alerts.to_string());
            row
        })
        .collect()
}

fn to_json(r: &RunInfo) -> Value {
    let by_status: Map<String, Value> = r
        .by_status
        .iter()
        .map(|(s, n)| (s.as_str().to_string(), json!(n)))
        .collect();
    json!({
        "id": r.id,
        "started_at": r.started_at,
        "finished_at": r.finished_at,
        "portfolio": r.portfolio,
        "input_path": r.input_path,
        "status": r.status.as_str(),
        "demo_day": r.demo_day,
        "rows": r.rows,
        "by_status": by_status,
        "alerts": r.alerts,
    })
}

pub fn report(args: ReportArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &sources.database(args.database.db.clone())?.value;
    let out = &sources.output_folder(args.out.clone())?.value;
    let options = ReportOptions {
        out: out.clone(),
        quiet: false,
        csv_dialect: sources.csv_dialect(args.reports.csv_dialect)?.value,
        timestamped: sources.timestamped(args.reports.timestamped)?.value,
        stale_after_days: sources.stale_after(args.stale_after)?.value,
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
