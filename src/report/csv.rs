//! `report.csv`: one line per input row with the fields of report.json; candidates as
//! `uuid name; …`. Cells that a spreadsheet would run as formulas are defused.

use std::io;

use super::{Format, Output, defuse};
use crate::model::{ResultRow, RunInfo};

pub const COLUMNS: [&str; 16] = [
    "line",
    "ref",
    "country",
    "service",
    "id",
    "name",
    "status",
    "company_id",
    "company_name",
    "color",
    "previous_color",
    "change",
    "last_change_date",
    "alert",
    "error",
    "candidates",
];

pub struct CsvReport<W: Output> {
    out: ::csv::Writer<W>,
}

impl<W: Output> CsvReport<W> {
    pub fn new(out: W) -> Self {
        CsvReport {
            out: ::csv::WriterBuilder::new().from_writer(out),
        }
    }
}

impl<W: Output> Format for CsvReport<W> {
    fn begin(&mut self, _run: &RunInfo) -> io::Result<()> {
        self.out.write_record(COLUMNS).map_err(io::Error::from)
    }

    fn row(&mut self, r: &ResultRow) -> io::Result<()> {
        let text = |v: &Option<String>| v.as_deref().unwrap_or("").to_string();
        let candidates = r
            .candidates
            .iter()
            .map(|c| format!("{} {}", c.id, c.name))
            .collect::<Vec<_>>()
            .join("; ");
        let cells = [
            r.line.to_string(),
            text(&r.reference),
            text(&r.country),
            text(&r.service),
            text(&r.id),
            text(&r.name),
            r.status.as_str().to_string(),
            r.company_id.map(|u| u.to_string()).unwrap_or_default(),
            text(&r.company_name),
            r.color.as_ref().map(|c| c.to_string()).unwrap_or_default(),
            r.previous_color
                .as_ref()
                .map(|c| c.to_string())
                .unwrap_or_default(),
            r.change.map(|c| c.as_str().to_string()).unwrap_or_default(),
            text(&r.last_change_date),
            r.alert.to_string(),
            text(&r.error),
            candidates,
        ];
        self.out
            .write_record(cells.iter().map(|c| defuse(c).into_owned()))
            .map_err(io::Error::from)
    }

    fn finish(self: Box<Self>) -> io::Result<()> {
        self.out.into_inner().map_err(|e| e.into_error())?.close()
    }
}
