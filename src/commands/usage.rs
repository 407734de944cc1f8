//! `ratewatch usage`: the API calls the runs made, by endpoint, per day or month, from the
//! runs' records alone (no call to the service). It never writes the database.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde_json::json;

use super::history::window;
use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::error::{Error, ExitCode};
use crate::settings::cli::{UsageArgs, UsagePeriod};
use crate::settings::config::Sources;
use crate::store::{RunCalls, month_start};

pub fn usage(args: UsageArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let (since, until) = window(
        args.since.as_deref(),
        args.until.as_deref(),
        month_start(Timestamp::now()),
    )?;
    let store = open_read_only(db)?;
    let runs = store
        .calls_by_run(&since, until.as_deref())
        .map_err(|source| Error::Store {
            path: db.clone(),
            source,
        })?;
    let periods = by_period(&runs, args.by);
    let total = Period::sum(periods.values());
    let by = match args.by {
        UsagePeriod::Day => "day",
        UsagePeriod::Month => "month",
    };

    let text = match Style::of(&args.listing) {
        Style::Table => {
            let window = match &until {
                Some(until) => format!("started from {since} and before {until}"),
                None => format!("started since {since}"),
            };
            if runs.is_empty() {
                format!("No run {window}.\n")
            } else {
                let endpoints: Vec<&str> = total.calls.keys().map(String::as_str).collect();
                let line = |name: &str, p: &Period| {
                    let mut row = vec![name.to_string(), p.runs.to_string()];
                    row.extend(
                        endpoints
                            .iter()
                            .map(|e| p.calls.get(*e).unwrap_or(&0).to_string()),
                    );
                    row.push(p.total().to_string());
                    row
                };
                let mut rows: Vec<Vec<String>> =
                    periods.iter().map(|(name, p)| line(name, p)).collect();
                rows.push(line("total", &total));
                let mut headers = vec![by.to_uppercase(), "RUNS".to_string()];
                headers.extend(endpoints.iter().map(|e| e.to_string()));
                headers.push("CALLS".to_string());
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                format!(
                    "API calls of the runs {window}, by {by} (UTC) and endpoint:\n\n{}",
                    output::table(&headers, &rows)
                )
            }
        }
        Style::Csv => output::csv(
            &["period", "endpoint", "calls"],
            &periods
                .iter()
                .flat_map(|(name, p)| {
                    p.calls
                        .iter()
                        .map(|(endpoint, n)| vec![name.clone(), endpoint.clone(), n.to_string()])
                })
                .collect::<Vec<_>>(),
        )?,
        Style::Json => output::json(&json!({
            "since": since,
            "until": until,
            "by": by,
            "periods": periods.iter().map(|(name, p)| json!({
                "period": name,
                "runs": p.runs,
                "calls": p.calls,
                "total": p.total(),
            })).collect::<Vec<_>>(),
            "total": {"runs": total.runs, "calls": total.calls, "total": total.total()},
        }))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// The runs and calls of one day or month.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Period {
    runs: u64,
    calls: BTreeMap<String, u64>,
}

impl Period {
    fn add(&mut self, calls: &BTreeMap<String, u64>, runs: u64) {
        self.runs += runs;
        for (endpoint, n) in calls {
            *self.calls.entry(endpoint.clone()).or_insert(0) += n;
        }
    }

    fn sum<'a>(periods: impl Iterator<Item = &'a Period>) -> Period {
        let mut total = Period::default();
        for p in periods {
            total.add(&p.calls, p.runs);
        }
        total
    }

    fn total(&self) -> u64 {
        self.calls.values().sum()
    }
}

/// The runs' calls by the day (`2026-11-20`) or month (`2026-11`) of their start, in
/// order. Only days or months in which runs started are listed.
fn by_period(runs: &[RunCalls], by: UsagePeriod) -> BTreeMap<String, Period> {
    let width = match by {
        UsagePeriod::Day => "2026-11-20".len(),
        UsagePeriod::Month => "2026-11".len(),
    };
    let mut periods: BTreeMap<String, Period> = BTreeMap::new();
    for run in runs {
        let key = run.started_at.get(..width).unwrap_or(&run.started_at);
        periods
            .entry(key.to_string())
            .or_default()
            .add(&run.calls, 1);
    }
    periods
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, at: &str, calls: &[(&str, u64)]) -> RunCalls {
        RunCalls {
            run_id: id,
            started_at: at.into(),
            calls: calls.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
        }
    }

    #[test]
    fn calls_are_added_up_by_the_day_or_month_the_runs_started() {
        let runs = [
            run(1, "2026-10-31T02:00:00Z", &[("rating", 4)]),
            run(
                2,
                "2026-11-20T02:00:00Z",
                &[("rating", 3), ("countries", 1)],
            ),
            run(3, "2026-11-20T14:00:00Z", &[]),
            run(4, "2026-11-21T02:00:00Z", &[("rating", 2)]),
        ];
        let days = by_period(&runs, UsagePeriod::Day);
        assert_eq!(
            days.keys().collect::<Vec<_>>(),
            ["2026-10-31", "2026-11-20", "2026-11-21"]
        );
        assert_eq!(days["2026-11-20"].runs, 2);
        assert_eq!(days["2026-11-20"].total(), 4);
        let months = by_period(&runs, UsagePeriod::Month);
        assert_eq!(months.keys().collect::<Vec<_>>(), ["2026-10", "2026-11"]);
        assert_eq!(months["2026-11"].calls["rating"], 5);
        let total = Period::sum(months.values());
        assert_eq!((total.runs, total.total()), (4, 10));
        assert_eq!(total, Period::sum(days.values()));
    }

    #[test]
    fn the_default_window_starts_with_the_month_in_utc() {
        let t: Timestamp = "2026-11-23T12:38:00+01:00".parse().unwrap();
        assert_eq!(
            crate::store::time_text(month_start(t)),
            "2026-11-01T00:00:00Z"
        );
        let first: Timestamp = "2026-12-01T00:30:00+01:00".parse().unwrap();
        assert_eq!(
            crate::store::time_text(month_start(first)),
            "2026-11-01T00:00:00Z",
            "still November in UTC"
        );
    }
}
