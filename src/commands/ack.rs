//! `ratewatch ack` and `acks`: saying an alert was seen (the library's [`crate::ack`]),
//! and listing what was said.

use jiff::Timestamp;
use serde_json::json;

use super::output::{self, Style};
use super::{emit, open_for_decisions, open_read_only, store_error};
use crate::ack::acknowledge;
use crate::error::{Error, ExitCode};
use crate::model::Color;
use crate::settings::cli::{AckArgs, AcksArgs};
use crate::settings::config::Sources;
use crate::store::Ack;
use crate::when::{Bound, parse_time};

pub fn ack(args: AckArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let until = args
        .until
        .as_deref()
        .map(|u| parse_time("--until", u, Bound::From))
        .transpose()?;
    let mut store = open_for_decisions(db)?;
    match acknowledge(&mut store, &args.company, until, args.note.as_deref())? {
        Some(done) => {
            emit(&format!("{}\n", done.text()))?;
            Ok(ExitCode::Clean)
        }
        None => {
            let wanted = args.company.trim();
            emit(&format!(
                "No company matches {wanted:?}: give its id, your reference or part of its name.\n"
            ))?;
            Ok(ExitCode::Attention)
        }
    }
}

const ACK_HEADERS: [&str; 8] = [
    "COMPANY_ID",
    "COMPANY",
    "REF",
    "COLOR",
    "ACKED",
    "UNTIL",
    "NOTE",
    "STATUS",
];

const ACK_CSV_HEADERS: [&str; 8] = [
    "company_id",
    "company_name",
    "ref",
    "color",
    "acked_at",
    "until",
    "note",
    "expired",
];

pub fn acks(args: AcksArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let fail = store_error(db);
    let store = open_read_only(db)?;
    // In force now, on this machine's clock, as a run starting now would judge them.
    let acks = store.acks(Timestamp::now(), args.all).map_err(fail)?;
    let text = match Style::of(&args.listing) {
        Style::Table if acks.is_empty() && args.all => "No acknowledgement.\n".to_string(),
        Style::Table if acks.is_empty() => "No acknowledgement in force.\n".to_string(),
        // Without --all every one listed is in force: no column to say so.
        Style::Table => {
            let lines: Vec<Vec<String>> = acks
                .iter()
                .map(|a| {
                    let mut line = ack_line(a);
                    if args.all {
                        line.push(if a.expired { "expired" } else { "in force" }.into());
                    }
                    line
                })
                .collect();
            let columns = ACK_HEADERS.len() - usize::from(!args.all);
            output::table(&ACK_HEADERS[..columns], &lines)
        }
        Style::Csv => {
            let lines: Vec<Vec<String>> = acks
                .iter()
                .map(|a| {
                    let mut line = ack_line(a);
                    line.push(a.expired.to_string());
                    line
                })
                .collect();
            output::csv(&ACK_CSV_HEADERS, &lines)?
        }
        Style::Json => output::json(&json!(
            acks.iter()
                .map(|a| json!({
                    "company_id": a.company_id,
                    "company_name": a.company_name,
                    "ref": a.reference,
                    "color": Color::parse(&a.color),
                    "acked_at": a.acked_at,
                    "until": a.until,
                    "note": a.note,
                    "expired": a.expired,
                }))
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
