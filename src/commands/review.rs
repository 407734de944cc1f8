//! `ratewatch review`: what needs a person in the latest finished run of each portfolio
//! (never a run still going, which may hold only part of the file), and the
//! decisions that later runs apply to those rows (accept a company, or ignore the row).
//!
//! The queue and the decisions are the library's ([`crate::review`], which the review page
//! of `serve` calls too); this module reads flags and prints. Listing only reads the
//! database; a decision makes no call to the service, but one: `accept --force` of a
//! company the row was not offered asks the service for its rating first
//! ([`review::confirm_known`]), and records nothing if it is unknown.

use serde_json::{Value, json};

use super::output::{self, Style};
use super::{emit, open_for_decisions, open_read_only, store_error};
use crate::connection::ServiceSettings;
use crate::error::{Error, ExitCode};
use crate::locale::Reader;
use crate::model::{Decision, RowStatus, Verdict, who};
use crate::report::csv::read_cell;
use crate::review::{self, Made, Problem, Queue};
use crate::settings::cli::{
    ReviewAcceptArgs, ReviewAction, ReviewArgs, ReviewExportArgs, ReviewImportArgs, ReviewListArgs,
    ReviewRefArgs,
};
use crate::settings::config::{Settings, Sources};
use crate::settings::who::decided_by;
use crate::spreadsheet::{self, Encoding, Sheet};
use crate::store::time_text;

/// Where a decision made with `review accept` or `review ignore` comes from.
const COMMAND_LINE: &str = "command line";

const HEADERS: [&str; 11] = [
    "PORTFOLIO",
    "LINE",
    "REF",
    "STATUS",
    "SEARCH",
    "COMPANY_ID",
    "CANDIDATE",
    "CITY",
    "POSTCODE",
    "ERROR",
    "RUN",
];

const CSV_HEADERS: [&str; 11] = [
    "portfolio",
    "line",
    "ref",
    "status",
    "search",
    "company_id",
    "candidate",
    "city",
    "postcode",
    "error",
    "run_id",
];

const DECISION_HEADERS: [&str; 7] = [
    "REF",
    "DECISION",
    "COMPANY_ID",
    "DECIDED",
    "BY",
    "SOURCE",
    "NOTE",
];

pub async fn review(args: ReviewArgs, sources: Sources) -> Result<ExitCode, Error> {
    match args.action {
        None => list(args.list, sources),
        Some(ReviewAction::List(args)) => list(args, sources),
        Some(ReviewAction::Accept(args)) => accept(args, sources).await,
        Some(ReviewAction::Ignore(args)) => decide(args, Verdict::Ignore, sources),
        Some(ReviewAction::Reject(args)) => decide(args, Verdict::Reject, sources),
        Some(ReviewAction::Revoke(args)) => revoke(args, sources),
        Some(ReviewAction::Export(args)) => export(args, sources),
        Some(ReviewAction::Import(args)) => import(args, sources),
    }
}

fn list(args: ReviewListArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let Queue {
        problems,
        decisions,
        ..
    } = review::queue(&open_read_only(db)?)?;
    let reader = sources.reader()?;
    let text = match Style::of(&args.listing) {
        Style::Table => {
            let l = reader.locale;
            let headers = |english: &[&str]| l.headers(english);
            let mut text = if problems.is_empty() {
                format!("{}\n", l.word("review-nothing"))
            } else {
                let headers = headers(&HEADERS);
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                let said = lines(&problems, |s| l.row_status(s), |e| reader.record(e));
                output::table(&headers, &said)
            };
            if !decisions.is_empty() {
                text.push_str(&format!("\n{}\n", l.word("review-decisions")));
                let headers = headers(&DECISION_HEADERS);
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                let lines: Vec<Vec<String>> = decisions
                    .iter()
                    .map(|d| decision_line(d, &reader))
                    .collect();
                text.push_str(&output::table(&headers, &lines));
            }
            text
        }
        Style::Csv => output::csv(
            &CSV_HEADERS,
            &lines(&problems, |s| s.as_str().into(), str::to_string),
        )?,
        Style::Json => output::json(&json!({
            "rows": problems.iter().map(problem_json).collect::<Vec<_>>(),
            "decisions": decisions.iter().map(decision_json).collect::<Vec<_>>(),
        }))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// One line per candidate of an ambiguous row, one for any other row; its status as
/// `status` says it, its error as `error` does.
fn lines(
    problems: &[Problem],
    status: impl Fn(RowStatus) -> String,
    error: impl Fn(&str) -> String,
) -> Vec<Vec<String>> {
    let mut lines = Vec::new();
    for p in problems {
        let head = vec![
            p.portfolio.clone(),
            p.row.line.to_string(),
            output::or_empty(&p.row.reference),
            status(p.row.status),
            p.search.clone(),
        ];
        let tail = vec![
            p.row.error.as_deref().map(&error).unwrap_or_default(),
            p.run_id.to_string(),
        ];
        if p.row.candidates.is_empty() {
            let mut line = head.clone();
            line.extend(["", "", "", ""].map(String::from));
            line.extend(tail.clone());
            lines.push(line);
        }
        for c in &p.row.candidates {
            let mut line = head.clone();
            line.extend([
                c.id.to_string(),
                c.name.clone(),
                c.city.clone(),
                c.postcode.clone(),
            ]);
            line.extend(tail.clone());
            lines.push(line);
        }
    }
    lines
}

fn problem_json(p: &Problem) -> Value {
    json!({
        "portfolio": p.portfolio,
        "run_id": p.run_id,
        "line": p.row.line,
        "ref": p.row.reference,
        "status": p.row.status.as_str(),
        "search": p.search,
        "error": p.row.error,
        "candidates": p.row.candidates,
    })
}

fn decision_line(d: &Decision, r: &Reader) -> Vec<String> {
    vec![
        d.reference.clone(),
        r.locale.word(&format!("decision-{}", d.verdict.as_str())),
        company(d),
        r.stamp(d.decided_at),
        who(d.by.as_deref()).to_string(),
        d.source.clone(),
        output::or_empty(&d.note),
    ]
}

fn decision_json(d: &Decision) -> Value {
    json!({
        "ref": d.reference,
        "search_key": d.search_key,
        "decision": d.verdict.as_str(),
        "company_id": match d.verdict {
            Verdict::Accept(c) => Some(c.to_string()),
            Verdict::Ignore | Verdict::Reject => None,
        },
        "decided_at": time_text(d.decided_at),
        "source": d.source,
        "decided_by": d.by,
        "note": d.note,
    })
}

fn company(d: &Decision) -> String {
    match d.verdict {
        Verdict::Accept(c) => c.to_string(),
        Verdict::Ignore | Verdict::Reject => String::new(),
    }
}

fn decide(args: ReviewRefArgs, verdict: Verdict, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    let made = Made {
        source: COMMAND_LINE,
        by: &by,
        note: args.note.as_deref(),
    };
    review::decide(&mut store, &args.reference, verdict, made)?;
    decided(&args.reference, verdict)
}

/// `review accept`: a candidate of the row, or with `--force` a company the service knows.
async fn accept(args: ReviewAcceptArgs, sources: Sources) -> Result<ExitCode, Error> {
    let reference = args.reference.as_str();
    let company = args.company_id;
    let db = &args.database.db.resolve(&sources)?.value;
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    let confirmed = args.force
        && !review::offered(&store, reference)?
            .iter()
            .any(|c| c.id == company);
    if confirmed {
        let settings = Settings::for_service(&args.service_args, &sources)?;
        let limits = settings.limits();
        let endpoint = settings.endpoint.value;
        let service = ServiceSettings::new(&settings, &sources)?;
        review::confirm_known(reference, company, &service, limits, endpoint).await?;
    }
    let made = Made {
        source: COMMAND_LINE,
        by: &by,
        note: args.note.as_deref(),
    };
    review::accept(&mut store, reference, company, made, confirmed)?;
    decided(reference, Verdict::Accept(company))
}

/// Says the decision is recorded.
fn decided(reference: &str, verdict: Verdict) -> Result<ExitCode, Error> {
    emit(&format!(
        "{reference}: {}; the next run applies it.\n",
        review::verdict_text(verdict)
    ))?;
    Ok(ExitCode::Clean)
}

fn revoke(args: ReviewRefArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    review::revoke(&mut store, &args.reference, &by, args.note.as_deref())?;
    emit(&format!(
        "{}: decision revoked; the next run screens it as before.\n",
        args.reference
    ))?;
    Ok(ExitCode::Clean)
}

fn export(args: ReviewExportArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let problems = review::queue(&open_read_only(db)?)?.problems;
    // Rows without a ref cannot be named in a decision. (An invalid row can only be
    // ignored: it has no candidate to accept or reject.)
    let decidable: Vec<Problem> = problems
        .into_iter()
        .filter(|p| p.row.reference.is_some())
        .collect();
    let mut lines = lines(&decidable, |s| s.as_str().into(), str::to_string);
    for line in &mut lines {
        line.push(String::new());
    }
    let dialect = args.dialect.csv_dialect.resolve(&sources)?.value;
    let text = output::csv_in(dialect, &export_headers(), &lines)?;
    match &args.out {
        None => emit(&text)?,
        Some(path) => {
            std::fs::write(path, &text)
                .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
            eprintln!(
                "ratewatch: {} lines written to {}: fill in `decision` (accept, reject, ignore), then `ratewatch review import {}`",
                lines.len(),
                path.display(),
                path.display()
            );
        }
    }
    Ok(ExitCode::Clean)
}

fn import(args: ReviewImportArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let path = &args.file;
    let wrong = |what: String| Error::Config(format!("{}: {what}", path.display()));
    // Either dialect of `review export`, as written or as a spreadsheet saved it again.
    let sheet = Sheet::read(path).map_err(|e| wrong(e.to_string()))?;
    if let Encoding::Windows1252 { line, byte } = sheet.encoding {
        eprintln!(
            "ratewatch: {}: not UTF-8 (byte 0x{byte:02X} on line {line}): read as Windows-1252, as Excel saves \"CSV (separator: semicolon)\"",
            path.display()
        );
    }
    let delimiter = spreadsheet::delimiter_name(sheet.delimiter);
    let mut reader = sheet.reader();
    let headers = reader
        .headers()
        .map_err(|e| wrong(format!("line 1: {e}")))?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| read_cell(h.trim()).trim().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let count = match headers.len() {
                    1 => "1 column".to_string(),
                    n => format!("{n} columns"),
                };
                wrong(format!(
                    "line 1: no `{name}` column; the header line, split at each {delimiter}, has {count}: {:?} (import reads the file `ratewatch review export` writes, its columns separated by commas, semicolons or tabs)",
                    sheet.header_line()
                ))
            })
    };
    let (ref_col, company_col, decision_col) =
        (column("ref")?, column("company_id")?, column("decision")?);
    // Every line is read and checked before anything is recorded.
    let mut verdicts: std::collections::BTreeMap<String, Verdict> = Default::default();
    // Per ref: its candidate lines, and those marked `reject`.
    let mut candidates: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for record in reader.records() {
        let record = record.map_err(|e| wrong(e.to_string()))?;
        let line = sheet.line_at(record.position().map_or(0, |p| p.byte()));
        // One field under a header of many: the line has another delimiter, and its
        // decision would go unseen.
        if record.len() == 1 && headers.len() > 1 && !record[0].trim().is_empty() {
            return Err(wrong(format!(
                "line {line}: 1 field where the header line has {} (split at each {delimiter}): write every line with the header's delimiter",
                headers.len()
            )));
        }
        let cell = |i: usize| {
            read_cell(record.get(i).unwrap_or("").trim())
                .trim()
                .to_string()
        };
        let reference = cell(ref_col);
        let reference = reference.as_str();
        let company = cell(company_col);
        let is_candidate = !company.is_empty();
        if is_candidate {
            candidates.entry(reference.to_string()).or_default().0 += 1;
        }
        let verdict = match cell(decision_col).to_lowercase().as_str() {
            "" => continue,
            "reject" if !is_candidate => {
                return Err(wrong(format!(
                    "line {line}: reject is said of a candidate, and this line has none: ignore the row, or give it an identifier in the portfolio"
                )));
            }
            "reject" => {
                candidates.entry(reference.to_string()).or_default().1 += 1;
                continue;
            }
            "ignore" => Verdict::Ignore,
            "accept" => match uuid::Uuid::parse_str(&company) {
                Ok(company) => Verdict::Accept(company),
                Err(_) => {
                    return Err(wrong(format!(
                        "line {line}: accept needs the candidate's company_id (a UUID), found {company:?}"
                    )));
                }
            },
            other => {
                return Err(wrong(format!(
                    "line {line}: decision {other:?}: use accept, reject, ignore or leave it empty"
                )));
            }
        };
        if reference.is_empty() {
            return Err(wrong(format!(
                "line {line}: a decision needs the row's ref"
            )));
        }
        match verdicts.get(reference) {
            Some(earlier) if *earlier != verdict => {
                return Err(wrong(format!(
                    "line {line}: {reference} is decided twice ({} and {}): keep one",
                    earlier.as_str(),
                    verdict.as_str()
                )));
            }
            _ => {
                verdicts.insert(reference.to_string(), verdict);
            }
        }
    }
    // A row whose every candidate is rejected is decided: none of them is the company.
    // Rejecting some of them decides nothing (the others may still be it).
    let mut partly_rejected = Vec::new();
    for (reference, (lines, rejected)) in &candidates {
        if *rejected == 0 || verdicts.contains_key(reference) {
            continue;
        }
        if reference.is_empty() {
            return Err(wrong("a decision needs the row's ref".into()));
        }
        if rejected == lines {
            verdicts.insert(reference.clone(), Verdict::Reject);
        } else {
            partly_rejected.push(format!("{reference} ({rejected} of {lines})"));
        }
    }
    let by = decided_by(args.by.by.as_deref(), |v| std::env::var(v).ok())?;
    let mut store = open_for_decisions(db)?;
    let fail = store_error(db);
    let lookups = review::lookups(&store).map_err(fail)?;
    let references: Vec<&str> = verdicts.keys().map(String::as_str).collect();
    let mut searched = review::searches(&store, &lookups, &references).map_err(fail)?;
    let mut decided = Vec::new();
    for (reference, verdict) in verdicts {
        let searched = searched
            .remove(&reference)
            .expect("every ref asked is answered")
            .map_err(|e| wrong(e.to_string()))?;
        let keys = searched
            .keys_for(&reference, verdict)
            .map_err(|e| wrong(e.to_string()))?;
        decided.push((reference, verdict, keys, searched.rows));
    }
    let decided_at = jiff::Timestamp::now();
    let source = std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.clone())
        .display()
        .to_string();
    for (reference, verdict, keys, rows) in &decided {
        for search_key in keys {
            store
                .decide(&Decision {
                    reference: reference.clone(),
                    search_key: search_key.clone(),
                    verdict: *verdict,
                    decided_at,
                    source: source.clone(),
                    by: Some(by.clone()),
                    note: None,
                })
                .map_err(fail)?;
        }
        if let Verdict::Accept(company) = verdict {
            review::describe_accepted(&mut store, *company, rows)?;
        }
    }
    let count = |v: &str| {
        decided
            .iter()
            .filter(|(_, d, _, _)| d.as_str() == v)
            .count()
    };
    let mut text = format!(
        "{} accepted, {} ignored, {} with every candidate rejected; the next run applies them.\n",
        count("accept"),
        count("ignore"),
        count("reject"),
    );
    if !partly_rejected.is_empty() {
        text.push_str(&format!(
            "Not decided, only some candidates rejected: {}. Accept one, or reject them all.\n",
            partly_rejected.join(", ")
        ));
    }
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// The header of `review export`'s CSV: the listing's, and the column to fill in.
fn export_headers() -> Vec<&'static str> {
    CSV_HEADERS.iter().copied().chain(["decision"]).collect()
}
