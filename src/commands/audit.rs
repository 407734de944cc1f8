//! `ratewatch audit`: every acknowledgement and review decision, made and ended, oldest
//! first, as the view `audit_trail` keeps them. A table for a person (times in this
//! machine's time zone); CSV and JSON for programs, with UTC ISO 8601 times and English
//! keys.

use jiff::Timestamp;
use serde_json::json;

use super::output::{self, Style};
use super::{emit, open_read_only, store_error};
use crate::error::{Error, ExitCode};
use crate::locale::{Arg, Reader};
use crate::model::{Color, time_text, who};
use crate::settings::cli::AuditArgs;
use crate::settings::config::Sources;
use crate::store::AuditEvent;
use crate::when::{Bound, parse_time};

const HEADERS: [&str; 7] = ["WHEN", "EVENT", "BY", "COMPANY", "REF", "WHAT", "NOTE"];

const CSV_HEADERS: [&str; 15] = [
    "at",
    "record",
    "id",
    "event",
    "who",
    "company_id",
    "company_name",
    "ref",
    "color",
    "until",
    "decision",
    "source",
    "note",
    "how",
    "run_id",
];

pub fn audit(args: AuditArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let since = args
        .since
        .as_deref()
        .map(|s| parse_time("--since", s, Bound::From))
        .transpose()?
        .map(time_text);
    let until = args
        .until
        .as_deref()
        .map(|u| parse_time("--until", u, Bound::To))
        .transpose()?
        .map(time_text);
    let reader = sources.reader()?;
    let store = open_read_only(db)?;
    let events = store
        .audit_trail(since.as_deref(), until.as_deref())
        .map_err(store_error(db))?;
    let text = match Style::of(&args.listing) {
        Style::Table if events.is_empty() => format!("{}\n", reader.locale.word("no-events")),
        Style::Table => {
            let lines: Vec<Vec<String>> = events.iter().map(|e| table_line(e, &reader)).collect();
            let headers = reader.locale.headers(&HEADERS);
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            output::table(&headers, &lines)
        }
        Style::Csv => {
            let lines: Vec<Vec<String>> = events.iter().map(csv_line).collect();
            output::csv_in(args.dialect.csv_dialect, &CSV_HEADERS, &lines)?
        }
        Style::Json => output::json(&json!(
            events
                .iter()
                .map(|e| json!({
                    "at": e.at,
                    "record": e.record,
                    "id": e.id,
                    "event": e.event,
                    "who": e.who,
                    "company_id": e.company_id,
                    "company_name": e.company_name,
                    "ref": e.reference,
                    "color": e.color,
                    "until": e.until,
                    "decision": e.decision,
                    "source": e.source,
                    "note": e.note,
                    "how": e.how,
                    "run_id": e.run_id,
                }))
                .collect::<Vec<_>>()
        ))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// A stored time as the reader reads it: `2026-11-12 15:03 CET`, `12/11/2026 15:03 CET`,
/// in their time zone; as stored if it cannot be read.
fn local(at: &str, r: &Reader) -> String {
    at.parse::<Timestamp>()
        .map_or_else(|_| at.to_string(), |t| r.minute(t))
}

fn table_line(e: &AuditEvent, r: &Reader) -> Vec<String> {
    let l = r.locale;
    let acknowledgement = e.record == "acknowledgement";
    let how = || Arg::from(e.how.clone().unwrap_or_default());
    let event = match (acknowledgement, e.event.as_str()) {
        (true, "made") => l.word("event-acknowledged"),
        (false, "made") => l.word("event-decided"),
        (true, _) => l.text("event-ack-ended", &[("how", how())]),
        (false, _) => l.text("event-decision-ended", &[("how", how())]),
    };
    let what = if acknowledgement {
        let color = e
            .color
            .as_deref()
            .map_or("?".into(), |c| l.color(&Color::parse(c)));
        let mut what = l.text("what-ack", &[("color", color.into())]);
        if let Some(until) = &e.until {
            what.push_str(&l.text("what-until", &[("until", local(until, r).into())]));
        }
        if let Some(run) = e.run_id {
            what.push_str(&l.text("what-seen-by", &[("run", run.to_string().into())]));
        }
        what
    } else {
        let mut what = e.decision.clone().unwrap_or_default();
        if e.decision.as_deref() == Some("accept")
            && let Some(company) = &e.company_id
        {
            what.push_str(&format!(" {company}"));
        }
        if let Some(source) = &e.source {
            what.push_str(&format!(" ({source})"));
        }
        what
    };
    // A run or the calendar ended it: nobody to name.
    let by = if e.event == "ended" && e.who.is_none() {
        String::new()
    } else {
        who(e.who.as_deref()).to_string()
    };
    let company = e
        .company_name
        .clone()
        .or_else(|| e.company_id.clone())
        .unwrap_or_default();
    vec![
        local(&e.at, r),
        event,
        by,
        company,
        output::or_empty(&e.reference),
        what,
        output::or_empty(&e.note),
    ]
}

fn csv_line(e: &AuditEvent) -> Vec<String> {
    vec![
        e.at.clone(),
        e.record.clone(),
        e.id.to_string(),
        e.event.clone(),
        output::or_empty(&e.who),
        output::or_empty(&e.company_id),
        output::or_empty(&e.company_name),
        output::or_empty(&e.reference),
        output::or_empty(&e.color),
        output::or_empty(&e.until),
        output::or_empty(&e.decision),
        output::or_empty(&e.source),
        output::or_empty(&e.note),
        output::or_empty(&e.how),
        e.run_id.map(|r| r.to_string()).unwrap_or_default(),
    ]
}
