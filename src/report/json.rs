//! `report.json`: the run's header and every row (design contract §5), streamed so that a
//! million rows never sit in memory. Validated in the tests against `report.schema.json`.

use std::io;

use serde_json::{Map, Value, json};

use super::{Format, Output};
use crate::model::{ResultRow, RunInfo};

/// The JSON Schema the report follows.
pub const SCHEMA: &str = include_str!("report.schema.json");

pub struct JsonReport<W: Output> {
    out: W,
    rows: u64,
}

impl<W: Output> JsonReport<W> {
    pub fn new(out: W) -> Self {
        JsonReport { out, rows: 0 }
    }
}

/// The `run` object of the report.
pub fn run_object(run: &RunInfo) -> Value {
    let by_status: Map<String, Value> = run
        .by_status
        .iter()
        .map(|(s, n)| (s.as_str().to_string(), json!(n)))
        .collect();
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
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "portfolio": run.portfolio,
        "input_path": run.input_path,
        "portfolio_sha256": run.portfolio_sha256,
        "status": run.status,
        "rows": run.rows,
        "by_status": by_status,
        "by_color": by_color,
        "alerts": run.alerts,
        "calls": calls,
        "notes": run.notes,
    })
}

impl<W: Output> Format for JsonReport<W> {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()> {
        write!(self.out, "{{\"run\":")?;
        serde_json::to_writer(&mut self.out, &run_object(run))?;
        write!(self.out, ",\"rows\":[")
    }

    fn row(&mut self, row: &ResultRow) -> io::Result<()> {
        if self.rows > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n")?;
        serde_json::to_writer(&mut self.out, row)?;
        self.rows += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.out.write_all(b"\n]}\n")?;
        self.out.close()
    }
}
