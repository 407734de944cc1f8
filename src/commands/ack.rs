//! `ratewatch ack`, `unack` and `acks`: saying alerts were seen, or are to be listed again
//! (the library's [`crate::ack`]), and listing what was said, by whom, and how it ended.

use jiff::Timestamp;
use serde_json::json;

use super::output::{self, Style};
use super::{emit, open_for_decisions, open_read_only, store_error};
use crate::ack::{Outcome, acknowledge, withdraw};
use crate::error::{Error, ExitCode};
use crate::model::{Color, who};
use crate::settings::cli::{AckArgs, AcksArgs, UnackArgs};
use crate::settings::config::Sources;
use crate::settings::who::decided_by;
use crate::store::Ack;
use crate::when::{Bound, parse_time};

pub fn ack(args: AckArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let until = args
        .until
        .as_deref()
        .map(|u| parse_time("--until", u, Bound::From))
        .transpose()?;
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    let wanted: Vec<&str> = args.companies.iter().map(String::as_str).collect();
    match acknowledge(&mut store, &wanted, until, args.note.as_deref(), &by)? {
        Outcome::Done(done) => {
            let lines: Vec<String> = done.iter().map(|d| d.text() + "\n").collect();
            emit(&lines.concat())?;
            Ok(ExitCode::Clean)
        }
        Outcome::NoMatch(unknown) => no_match(&unknown, "nothing was recorded"),
    }
}

pub fn unack(args: UnackArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    let wanted: Vec<&str> = args.companies.iter().map(String::as_str).collect();
    match withdraw(&mut store, &wanted, &by, args.note.as_deref())? {
        Outcome::Done(done) => {
            let lines: Vec<String> = done.iter().map(|d| d.text() + "\n").collect();
            emit(&lines.concat())?;
            Ok(if done.iter().all(|d| d.had_one) {
                ExitCode::Clean
            } else {
                ExitCode::Attention
            })
        }
        Outcome::NoMatch(unknown) => no_match(&unknown, "nothing was changed"),
    }
}

/// Says which names matched no company, and that nothing was done.
fn no_match(unknown: &[String], nothing: &str) -> Result<ExitCode, Error> {
    let names: Vec<String> = unknown.iter().map(|u| format!("{u:?}")).collect();
    emit(&format!(
        "No company matches {}: give its id, your reference or part of its name ({nothing}).\n",
        names.join(", ")
    ))?;
    Ok(ExitCode::Attention)
}

const ACK_HEADERS: [&str; 10] = [
    "COMPANY_ID",
    "COMPANY",
    "REF",
    "COLOR",
    "ACKED",
    "BY",
    "UNTIL",
    "NOTE",
    "ENDED",
    "STATUS",
];

const ACK_CSV_HEADERS: [&str; 14] = [
    "company_id",
    "company_name",
    "ref",
    "color",
    "acked_at",
    "until",
    "note",
    "expired",
    "acked_by",
    "ended_at",
    "ended_how",
    "ended_by",
    "ended_note",
    "ended_run_id",
];

pub fn acks(args: AcksArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let fail = store_error(db);
    let store = open_read_only(db)?;
    // In force now, on this machine's clock, as a run starting now would judge them.
    let acks = store.acks(Timestamp::now(), args.all).map_err(fail)?;
    let reader = sources.reader()?;
    let l = reader.locale;
    let text = match Style::of(&args.listing) {
        Style::Table if acks.is_empty() && args.all => format!("{}\n", l.word("no-acks")),
        Style::Table if acks.is_empty() => format!("{}\n", l.word("no-acks-in-force")),
        // Without --all every one listed is in force: no column to say so.
        Style::Table => {
            let lines: Vec<Vec<String>> = acks
                .iter()
                .map(|a| {
                    let mut line = vec![
                        a.company_id.clone(),
                        output::or_empty(&a.company_name),
                        output::or_empty(&a.reference),
                        l.color(&Color::parse(&a.color)),
                        reader.stamp_text(&a.acked_at),
                        who(a.acked_by.as_deref()).to_string(),
                        a.until
                            .as_deref()
                            .map(|u| reader.stamp_text(u))
                            .unwrap_or_default(),
                        output::or_empty(&a.note),
                    ];
                    if args.all {
                        let ended = a.ended.as_ref();
                        line.push(ended.map(|e| reader.stamp_text(&e.at)).unwrap_or_default());
                        line.push(match ended {
                            None => l.word("ack-in-force"),
                            // How it ended, as recorded.
                            Some(_) => a.status(),
                        });
                    }
                    line
                })
                .collect();
            let columns = ACK_HEADERS.len() - if args.all { 0 } else { 2 };
            let headers = l.headers(&ACK_HEADERS[..columns]);
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            output::table(&headers, &lines)
        }
        Style::Csv => {
            let lines: Vec<Vec<String>> = acks
                .iter()
                .map(|a| {
                    let mut line = ack_line(a);
                    let ended = a.ended.as_ref();
                    line.extend([
                        a.expired.to_string(),
                        output::or_empty(&a.acked_by),
                        ended.map(|e| e.at.clone()).unwrap_or_default(),
                        ended.map(|e| e.how.clone()).unwrap_or_default(),
                        ended.and_then(|e| e.by.clone()).unwrap_or_default(),
                        ended.and_then(|e| e.note.clone()).unwrap_or_default(),
                        ended
                            .and_then(|e| e.run_id)
                            .map(|r| r.to_string())
                            .unwrap_or_default(),
                    ]);
                    line
                })
                .collect();
            output::csv(&ACK_CSV_HEADERS, &lines)?
        }
        Style::Json => output::json(&json!(
            acks.iter()
                .map(|a| {
                    let ended = a.ended.as_ref();
                    json!({
                        "company_id": a.company_id,
                        "company_name": a.company_name,
                        "ref": a.reference,
                        "color": Color::parse(&a.color),
                        "acked_at": a.acked_at,
                        "until": a.until,
                        "note": a.note,
                        "expired": a.expired,
                        "acked_by": a.acked_by,
                        "ended_at": ended.map(|e| &e.at),
                        "ended_how": ended.map(|e| &e.how),
                        "ended_by": ended.and_then(|e| e.by.as_ref()),
                        "ended_note": ended.and_then(|e| e.note.as_ref()),
                        "ended_run_id": ended.and_then(|e| e.run_id),
                    })
                })
                .collect::<Vec<_>>()
        ))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

fn ack_line(a: &Ack) -> Vec<String> {
    vec![
        a.company_id.clone(),
        output::or_empty(&a.company_name),
        output::or_empty(&a.reference),
        Color::parse(&a.color).to_string(),
        a.acked_at.clone(),
        output::or_empty(&a.until),
        output::or_empty(&a.note),
    ]
}
