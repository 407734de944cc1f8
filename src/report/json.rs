//! `report.json`: the run's header and every row, streamed so that a million rows never sit
//! in memory. Its shape is `report.schema.json`, which the tests validate it against.

use std::io;

use serde_json::{Map, Value, json};

use super::{Format, Output};
use crate::digest::{Figures, NOT_SCREENED, Share};
use crate::model::{ResultRow, RunInfo, time_text};

/// The JSON Schema the report follows.
pub const SCHEMA: &str = include_str!("report.schema.json");

pub struct JsonReport<W: Output> {
    out: W,
    /// The run's figures (`figures`), written before the rows.
    figures: Option<Value>,
    rows: u64,
    /// A row as JSON, then written whole: the serializer's many small writes go to a
    /// buffer in memory, not each through the file's writer.
    row: Vec<u8>,
}

impl<W: Output> JsonReport<W> {
    pub fn new(out: W, figures: Option<&Figures>) -> Self {
        JsonReport {
            out,
            figures: figures.map(figures_object),
            rows: 0,
            row: Vec::with_capacity(1024),
        }
    }
}

/// A run's rows by status, as report.json and `runs --json` name them.
pub fn by_status(run: &RunInfo) -> Map<String, Value> {
    run.by_status
        .iter()
        .map(|(s, n)| (s.as_str().to_string(), json!(n)))
        .collect()
}

/// The `run` object of the report.
pub fn run_object(run: &RunInfo) -> Value {
    let by_color: Map<String, Value> = run
        .by_color
        .iter()
        .map(|(c, n)| (c.clone(), json!(n)))
        .collect();
    let calls: Map<String, Value> = run
        .calls
        .iter()
        .map(|(c, n)| (c.clone(), json!(n)))
        .collect();
    json!({
        "id": run.id,
        "started_at": time_text(run.started_at),
        "finished_at": run.finished_at.map(time_text),
        "portfolio": run.portfolio,
        "input_path": run.input_path,
        "portfolio_sha256": run.portfolio_sha256,
        "status": run.status.as_str(),
        "rows": run.rows,
        "by_status": by_status(run),
        "by_color": by_color,
        "alerts": run.alerts,
        "calls": calls,
        "notes": run.notes,
    })
}

/// The run's figures for programs (report.json's and the webhook document's `figures`),
/// as every channel says them in words: the red and black rows, those that came into red
/// and black by a change, the amount at risk and what of it the alerts hold or leave out,
/// and the rows not screened by status with the amount they hold, the failed ones named.
pub fn figures_object(f: &Figures) -> Value {
    let share = |s: &Share| json!({"count": s.count, "amount": s.amount});
    let not_screened: Map<String, Value> = NOT_SCREENED
        .iter()
        .map(|status| {
            let rows = f
                .not_screened
                .iter()
                .find(|n| n.status == *status)
                .map(|n| n.rows)
                .unwrap_or_default();
            let amount = rows.amount.or(f.amount_column.as_ref().map(|_| 0.0));
            (
                status.as_str().to_string(),
                json!({"rows": rows.count, "amount": amount}),
            )
        })
        .collect();
    let failed: Vec<Value> = f
        .failed
        .iter()
        .map(|r| {
            json!({
                "line": r.line,
                "ref": r.reference,
                "name": r.what,
                "amount": r.amount,
                "error": r.error,
            })
        })
        .collect();
    let mut value = json!({
        "amount_column": f.amount_column,
        "red_rows": f.red,
        "black_rows": f.black,
        "new_red_rows": f.new_red,
        "new_black_rows": f.new_black,
        "at_risk": f.at_risk,
        "min_exposure": f.threshold.as_ref().map(|(column, value)| json!({"column": column, "value": value})),
        "alerted": share(&f.alerted),
        "acknowledged": share(&f.acknowledged),
        "left_out_rows": share(&f.left_out),
        "not_screened": not_screened,
        "failed_total": f.failed_total(),
        "failed": failed,
    });
    crate::text::printable_json(&mut value);
    value
}

impl<W: Output> Format for JsonReport<W> {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()> {
        write!(self.out, "{{\"run\":")?;
        serde_json::to_writer(&mut self.out, &run_object(run))?;
        if let Some(figures) = &self.figures {
            write!(self.out, ",\"figures\":")?;
            serde_json::to_writer(&mut self.out, figures)?;
        }
        write!(self.out, ",\"rows\":[")
    }

    fn row(&mut self, row: &ResultRow) -> io::Result<()> {
        self.row.clear();
        if self.rows > 0 {
            self.row.push(b',');
        }
        self.row.push(b'\n');
        serde_json::to_writer(&mut self.row, row)?;
        self.out.write_all(&self.row)?;
        self.rows += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.out.write_all(b"\n]}\n")?;
        self.out.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RowStatus;

    fn rated(line: u64, refreshed: Option<&str>, stale: bool) -> ResultRow {
        ResultRow {
            last_refresh_date: refreshed.map(crate::model::time),
            stale,
            ..ResultRow::example(line)
        }
    }

    fn render(rows: &[ResultRow]) -> Value {
        let mut buf = Vec::new();
        let mut r = Box::new(JsonReport::new(&mut buf, None));
        let run = RunInfo {
            portfolio_sha256: "ab".repeat(32),
            rows: rows.len() as u64,
            by_status: RowStatus::ALL.iter().map(|s| (*s, 0)).collect(),
            ..RunInfo::example()
        };
        r.begin(&run).unwrap();
        for row in rows {
            r.row(row).unwrap();
        }
        r.finish().unwrap();
        serde_json::from_slice(&buf).unwrap()
    }

    fn schema_errors(report: &Value) -> Vec<String> {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator
            .iter_errors(report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }

    #[test]
    fn each_row_says_whether_its_rating_is_stale_and_the_schema_agrees() {
        let report = render(&[
            rated(2, Some("2025-12-30T01:45:00Z"), true),
            rated(3, Some("2026-11-20T01:45:00Z"), false),
            rated(4, None, false),
        ]);
        assert_eq!(schema_errors(&report), Vec::<String>::new());
        let rows = report["rows"].as_array().unwrap();
        let stale: Vec<&Value> = rows.iter().map(|r| &r["stale"]).collect();
        assert_eq!(
            stale,
            [&Value::Bool(true), &Value::Bool(false), &Value::Bool(false)]
        );
        assert_eq!(rows[0]["last_refresh_date"], "2025-12-30T01:45:00Z");
        assert_eq!(rows[2]["last_refresh_date"], Value::Null);
    }

    #[test]
    fn the_schema_refuses_a_stale_row_without_a_rating_or_a_date() {
        let mut unrated = rated(2, Some("2025-12-30T01:45:00Z"), true);
        unrated.status = RowStatus::Failed;
        unrated.error = Some("timeout".into());
        let undated = rated(3, None, true);
        for row in [unrated, undated] {
            let errors = schema_errors(&render(&[row]));
            assert!(
                !errors.is_empty(),
                "a stale row needs a rating and its date"
            );
        }
        let mut missing = render(&[rated(2, None, false)]);
        missing["rows"][0].as_object_mut().unwrap().remove("stale");
        assert!(!schema_errors(&missing).is_empty(), "`stale` is required");
    }
}
