//! `ratewatch ack`, `acks` and `alerts test`: saying an alert was seen, listing what was
//! said, and trying the rules of `[alerts]` on a past run before a night depends on them.

use std::path::Path;

use jiff::Timestamp;
use serde_json::json;

use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::ack::acknowledge;
use crate::digest::alert_table;
use crate::error::{Error, ExitCode};
use crate::model::Color;
use crate::settings::cli::{AckArgs, AcksArgs, AlertsAction, AlertsArgs, AlertsTestArgs};
use crate::settings::config::Sources;
use crate::store::{Ack, Store, StoreError, Verdicts, time_text};
use crate::text::{plural, printable};
use crate::when::{Bound, parse_time};

fn store_error(db: &Path) -> impl Fn(StoreError) -> Error + Copy + '_ {
    move |source| Error::Store {
        path: db.to_path_buf(),
        source,
    }
}

pub fn ack(args: AckArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let until = args
        .until
        .as_deref()
        .map(|u| parse_time("--until", u, Bound::From))
        .transpose()?;
    if !db.is_file() {
        return Err(store_error(db)(StoreError::Missing));
    }
    let mut store = Store::open(db).map_err(store_error(db))?;
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

pub fn alerts(args: AlertsArgs, sources: Sources) -> Result<ExitCode, Error> {
    match args.action {
        AlertsAction::Test(args) => test(args, sources),
    }
}

/// The rules decided again on a past run, into a scratch table of this connection only.
fn test(args: AlertsTestArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let fail = store_error(db);
    let mut store = open_read_only(db)?;
    let run_id = match args.run {
        Some(run) => run,
        None => match store.recent_runs(1).map_err(fail)?.first() {
            Some(run) => run.id,
            None => {
                return Err(Error::Config(
                    "the database has no run yet: the rules need a screened run to try".into(),
                ));
            }
        },
    };
    let info = store.run_info(run_id).map_err(fail)?;
    let rules = sources.alert_rules();
    store
        .decide_alerts(run_id, &rules, Verdicts::Trial)
        .map_err(fail)?;
    let digest = store
        .alert_digest(run_id, &rules, Verdicts::Trial)
        .map_err(fail)?;
    let origin = match &sources.file {
        Some(file) => format!("the rules of {}", file.path.display()),
        None => "the default rules (no ratewatch.toml)".to_string(),
    };
    let mut text = format!(
        "{origin}, on run {run_id} of {} ({}):\n",
        printable(&info.portfolio),
        time_text(info.started_at)
    );
    if let Some((changed, companies)) = digest.storm {
        text.push_str(&format!(
            "a storm: {changed} of {companies} companies changed color; the summary would list the worst only\n"
        ));
    }
    if digest.listed_total == 0 {
        text.push_str("nothing would be listed: a quiet night, exit code 0\n");
    } else {
        text.push_str(&format!("would be listed: {}:\n", digest.totals_line()));
        for line in alert_table(&digest, &digest.listed).lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
        let unlisted = digest.unlisted();
        if unlisted > 0 {
            text.push_str(&format!("  … and {unlisted} more\n"));
        }
    }
    for line in digest.standing_lines() {
        text.push_str(&format!(
            "{line} (in one line; repeat = \"{}\")\n",
            rules.repeat.as_str()
        ));
    }
    if let Some(line) = digest.counted_line() {
        text.push_str(&line);
        text.push('\n');
    }
    if digest.acked > 0 {
        text.push_str(&format!(
            "{} acknowledged would be left out\n",
            plural(digest.acked, "alert", "alerts")
        ));
    }
    text.push_str(&format!(
        "The run itself listed {} by the rules it ran with.\n",
        plural(info.alerts, "alert", "alerts")
    ));
    emit(&text)?;
    Ok(if digest.listed_total > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    })
}
