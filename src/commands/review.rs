//! `ratewatch review`: what needs a person in the latest finished run of each portfolio
//! (never a run still going, which may hold only part of the file), and the
//! decisions that later runs apply to those rows (accept a company, or ignore the row).
//!
//! Listing only reads the database; a decision writes one row of `decisions` (and an
//! accepted company known without a name gets the description of the candidate picked),
//! with no change to any run or to the resolution cache, and no call to the service,
//! but one: `accept --force` of a company the row was not offered asks the service for its
//! rating first, through the limiter as every call, and records nothing if it is unknown.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::api::ApiError;
use crate::connection::{Service, ServiceSettings};
use crate::error::{Error, ExitCode};
use crate::model::{Candidate, Decision, InputRow, ResultRow, RowStatus, Verdict};
use crate::report::csv::read_cell;
use crate::settings::cli::{
    ReviewAcceptArgs, ReviewAction, ReviewArgs, ReviewExportArgs, ReviewImportArgs, ReviewListArgs,
    ReviewRefArgs, ServiceArgs,
};
use crate::settings::config::{Given, Settings, Sources};
use crate::spreadsheet::{self, Encoding, Sheet};
use crate::stages::decide::{ACCEPTED_UNKNOWN, invalid_key};
use crate::stages::limit::Limiter;
use crate::stages::portfolio::{self, Lookups};
use crate::stages::resolve::Query;
use crate::store::{Store, StoreError, time_text};
use crate::text::printable;

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

const DECISION_HEADERS: [&str; 5] = ["REF", "DECISION", "COMPANY_ID", "DECIDED", "SOURCE"];

pub async fn review(args: ReviewArgs, sources: Sources) -> Result<ExitCode, Error> {
    match args.action {
        None => list(args.list, sources),
        Some(ReviewAction::List(args)) => list(args, sources),
        Some(ReviewAction::Accept(args)) => accept(args, sources).await,
        Some(ReviewAction::Ignore(args)) => {
            decide(&args.reference, Verdict::Ignore, args.database.db, sources)
        }
        Some(ReviewAction::Reject(args)) => {
            decide(&args.reference, Verdict::Reject, args.database.db, sources)
        }
        Some(ReviewAction::Revoke(args)) => revoke(args, sources),
        Some(ReviewAction::Export(args)) => export(args, sources),
        Some(ReviewAction::Import(args)) => import(args, sources),
    }
}

/// A row of a latest finished run that needs a person, with the search it makes.
struct Problem {
    portfolio: String,
    run_id: i64,
    row: ResultRow,
    search: String,
}

fn list(args: ReviewListArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let (problems, decisions) = problems(db)?;
    let text = match Style::of(&args.listing) {
        Style::Table => {
            let mut text = if problems.is_empty() {
                "Nothing needs a person in the latest finished runs.\n".to_string()
            } else {
                output::table(&HEADERS, &lines(&problems))
            };
            if !decisions.is_empty() {
                text.push_str("\nDecisions:\n");
                text.push_str(&output::table(
                    &DECISION_HEADERS,
                    &decisions.iter().map(decision_line).collect::<Vec<_>>(),
                ));
            }
            text
        }
        Style::Csv => output::csv(&CSV_HEADERS, &lines(&problems))?,
        Style::Json => output::json(&json!({
            "rows": problems.iter().map(problem_json).collect::<Vec<_>>(),
            "decisions": decisions.iter().map(decision_json).collect::<Vec<_>>(),
        }))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// The rows of the latest finished runs that need a person (those decided for the search they
/// make left out), and every decision.
fn problems(db: &Path) -> Result<(Vec<Problem>, Vec<Decision>), Error> {
    let store = open_read_only(db)?;
    let fail = store_error(db);
    let decisions = store.decisions().map_err(fail)?;
    let lookups = lookups(&store).map_err(fail)?;
    let mut problems = Vec::new();
    for latest in store.latest_finished_runs().map_err(fail)? {
        let mut rows = Vec::new();
        store
            .for_each_result(latest.run_id, false, |row| {
                if matches!(
                    row.status,
                    RowStatus::Ambiguous | RowStatus::Unresolved | RowStatus::Invalid
                ) {
                    rows.push(row);
                }
                Ok::<_, Error>(())
            })
            .map_err(fail)??;
        for row in rows {
            let input = store.run_input(latest.run_id, row.line).map_err(fail)?;
            let key = input.as_ref().and_then(|i| decision_key(i, &lookups));
            // A row decided for the search it makes (an invalid row: for its fields as
            // they are) no longer needs a person, unless its run applied an acceptance and
            // the service did not know the company.
            let refused = row
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with(ACCEPTED_UNKNOWN));
            // A rejection keeps the row here: it still needs an identifier or a decision.
            let decided = decisions.iter().any(|d| {
                (d.verdict == Verdict::Ignore
                    || matches!(d.verdict, Verdict::Accept(_)) && !refused)
                    && Some(&d.reference) == row.reference.as_ref()
                    && Some(&d.search_key) == key.as_ref()
            });
            if decided {
                continue;
            }
            problems.push(Problem {
                portfolio: latest.portfolio.clone(),
                run_id: latest.run_id,
                search: input.as_ref().map(describe).unwrap_or_default(),
                row,
            });
        }
    }
    Ok((problems, decisions))
}

/// One line per candidate of an ambiguous row, one for any other row.
fn lines(problems: &[Problem]) -> Vec<Vec<String>> {
    let mut lines = Vec::new();
    for p in problems {
        let head = vec![
            p.portfolio.clone(),
            p.row.line.to_string(),
            output::or_empty(&p.row.reference),
            p.row.status.as_str().to_string(),
            p.search.clone(),
        ];
        let tail = vec![output::or_empty(&p.row.error), p.run_id.to_string()];
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

fn decision_line(d: &Decision) -> Vec<String> {
    vec![
        d.reference.clone(),
        d.verdict.as_str().to_string(),
        company(d),
        time_text(d.decided_at),
        d.source.clone(),
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
    })
}

fn company(d: &Decision) -> String {
    match d.verdict {
        Verdict::Accept(c) => c.to_string(),
        Verdict::Ignore | Verdict::Reject => String::new(),
    }
}

/// The row's search as a person reads it: the identifier, or the name and its filters.
fn describe(row: &InputRow) -> String {
    let parts: Vec<&str> = match (&row.id, &row.name) {
        (Some(id), _) => [&row.country, &row.service]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .chain([id.as_str()])
            .collect(),
        (None, _) => [&row.name, &row.city, &row.postcode, &row.country]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect(),
    };
    parts.join(" · ")
}

/// The key a decision on the row is made for: the cache key of the search it makes, or
/// for an invalid row the key of its fields ([`invalid_key`]); `None` for a row that gives
/// its company's id (nothing to decide).
fn decision_key(row: &InputRow, lookups: &Lookups) -> Option<String> {
    match portfolio::validate(row, lookups) {
        Ok(target) => Query::of(target).map(|q| q.cache_key()),
        Err(_) => Some(invalid_key(row)),
    }
}

/// The lookup lists the last run kept: rows are validated as a run validates them.
fn lookups(store: &Store) -> Result<Lookups, StoreError> {
    let (countries, services) = store.load_lookups()?;
    Ok(Lookups::new(&countries, &services))
}

fn store_error(db: &Path) -> impl Fn(StoreError) -> Error + Copy + '_ {
    move |source| Error::Store {
        path: db.to_path_buf(),
        source,
    }
}

/// The database for recording a decision: an existing one, brought up to date.
fn open_for_decisions(db: &Path) -> Result<Store, Error> {
    if !db.is_file() {
        return Err(store_error(db)(StoreError::Missing));
    }
    Store::open(db).map_err(store_error(db))
}

fn decide(
    reference: &str,
    verdict: Verdict,
    db: Given<std::path::PathBuf>,
    sources: Sources,
) -> Result<ExitCode, Error> {
    let db = &db.resolve(&sources)?.value;
    let mut store = open_for_decisions(db)?;
    let searched = searched(&store, db, reference)?;
    let keys = searched.keys_for(reference, verdict)?;
    record(&mut store, db, reference, verdict, keys)
}

/// `review accept`: a candidate of the row, or with `--force` a company the service knows.
async fn accept(args: ReviewAcceptArgs, sources: Sources) -> Result<ExitCode, Error> {
    let reference = args.reference.as_str();
    let company = args.company_id;
    let db = &args.database.db.resolve(&sources)?.value;
    let mut store = open_for_decisions(db)?;
    let searched = searched(&store, db, reference)?;
    let keys = searched.keys_for(reference, Verdict::Accept(company))?;
    let mut offered = Vec::new();
    for (run_id, line) in &searched.rows {
        for candidate in store.offered(*run_id, *line).map_err(store_error(db))? {
            if !offered.contains(&candidate) {
                offered.push(candidate);
            }
        }
    }
    if !offered.iter().any(|c| c.id == company) {
        if !args.force {
            return Err(not_offered(reference, company, &offered));
        }
        confirm_known(reference, company, &args.service_args, &sources).await?;
    }
    describe_accepted(&mut store, db, company, &searched.rows)?;
    record(&mut store, db, reference, Verdict::Accept(company), keys)
}

/// Describes an accepted company from the candidate the rows were offered it as, so that
/// the reports name it (a company known without a name; see `Store::describe_accepted`).
fn describe_accepted(
    store: &mut Store,
    db: &Path,
    company: uuid::Uuid,
    rows: &[(i64, u64)],
) -> Result<(), Error> {
    for (run_id, line) in rows {
        if store
            .describe_accepted(*run_id, *line, company)
            .map_err(store_error(db))?
        {
            break;
        }
    }
    Ok(())
}

/// The refusal of a company the row was not offered, with the ones it was.
fn not_offered(reference: &str, company: uuid::Uuid, offered: &[Candidate]) -> Error {
    let choices = if offered.is_empty() {
        "it has no candidates".to_string()
    } else {
        let listed: Vec<String> = offered
            .iter()
            .map(|c| {
                let place = [c.city.as_str(), c.postcode.as_str()]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                match (c.name.is_empty(), place.is_empty()) {
                    (true, _) => c.id.to_string(),
                    (false, true) => format!("{} ({})", c.id, c.name),
                    (false, false) => format!("{} ({}, {place})", c.id, c.name),
                }
            })
            .collect();
        format!("its candidates are {}", listed.join("; "))
    };
    Error::Config(printable(&format!(
        "{reference}: {company} is not among the companies offered for this row in the latest finished run: {choices}. To accept it anyway, add --force (the service is asked whether it knows the company)"
    )))
}

/// Asks the service for the company's rating, as a run would: known, or the reason not.
async fn confirm_known(
    reference: &str,
    company: uuid::Uuid,
    service_args: &ServiceArgs,
    sources: &Sources,
) -> Result<(), Error> {
    let settings = Settings::for_service(service_args, sources)?;
    // The same bounds, retries and 429 pause as a screening run.
    let limiter = Limiter::new(settings.limits());
    let endpoint = settings.endpoint.value;
    let service = ServiceSettings::new(&settings, sources)?;
    let conn = Service::open(&service, true, 1).await?;
    match limiter
        .call(endpoint.name(), || {
            crate::stages::rate::fetch(&conn.client, endpoint, company)
        })
        .await
    {
        Ok(_) => Ok(()),
        Err(ApiError::NotFound { .. }) => Err(Error::Config(format!(
            "{reference}: {company}: the service does not know this company (its rating is 'not found'); nothing recorded"
        ))),
        Err(e) => Err(conn.fail(e)),
    }
}

/// Records `verdict` on the row `reference` for each search it makes.
fn record(
    store: &mut Store,
    db: &Path,
    reference: &str,
    verdict: Verdict,
    keys: BTreeSet<String>,
) -> Result<ExitCode, Error> {
    let fail = store_error(db);
    let decided_at = jiff::Timestamp::now();
    for search_key in keys {
        store
            .decide(&Decision {
                reference: reference.to_string(),
                search_key,
                verdict,
                decided_at,
                source: COMMAND_LINE.to_string(),
            })
            .map_err(fail)?;
    }
    let what = match verdict {
        Verdict::Accept(c) => format!("accepted as company {c}"),
        Verdict::Ignore => "ignored".to_string(),
        Verdict::Reject => "every candidate rejected".to_string(),
    };
    emit(&format!("{reference}: {what}; the next run applies it.\n"))?;
    Ok(ExitCode::Clean)
}

/// What the rows with one ref make in the latest finished runs.
struct Searched {
    /// The searches they make (usually one).
    keys: BTreeSet<String>,
    /// The keys of those that are invalid ([`invalid_key`]): they make no search.
    invalid: BTreeSet<String>,
    /// Where they are: (run, line).
    rows: Vec<(i64, u64)>,
}

impl Searched {
    /// The keys `verdict` is recorded for: `ignore` is said of every row with the ref,
    /// invalid ones included; `accept` and `reject` of a company for a search, so only of
    /// the rows that make one.
    fn keys_for(&self, reference: &str, verdict: Verdict) -> Result<BTreeSet<String>, Error> {
        if verdict == Verdict::Ignore {
            return Ok(self.keys.union(&self.invalid).cloned().collect());
        }
        if self.keys.is_empty() {
            return Err(Error::Config(format!(
                "{reference}: the row is invalid: it makes no search, so no company to {} (correct it in the portfolio, or leave it alone with `ratewatch review ignore {reference}`)",
                verdict.as_str()
            )));
        }
        Ok(self.keys.clone())
    }
}

/// The searches the rows with `reference` make, or why there is nothing to decide.
fn searched(store: &Store, db: &Path, reference: &str) -> Result<Searched, Error> {
    let fail = store_error(db);
    let lookups = lookups(store).map_err(fail)?;
    searches(store, &lookups, &[reference])
        .map_err(fail)?
        .remove(reference)
        .expect("every ref asked is answered")
}

/// The searches the rows with each of these refs make in the latest finished runs (usually
/// one), or why there is nothing to decide; all of them read in one pass over each run.
fn searches(
    store: &Store,
    lookups: &Lookups,
    references: &[&str],
) -> Result<BTreeMap<String, Result<Searched, Error>>, StoreError> {
    let mut found: BTreeMap<&str, Searched> = references
        .iter()
        .map(|r| {
            let none = Searched {
                keys: BTreeSet::new(),
                invalid: BTreeSet::new(),
                rows: Vec::new(),
            };
            (*r, none)
        })
        .collect();
    for latest in store.latest_finished_runs()? {
        for input in store.run_inputs_with_refs(latest.run_id, references)? {
            if let Some(searched) = input.reference.as_deref().and_then(|r| found.get_mut(r)) {
                searched.rows.push((latest.run_id, input.line));
                match portfolio::validate(&input, lookups) {
                    Ok(target) => searched
                        .keys
                        .extend(Query::of(target).map(|q| q.cache_key())),
                    Err(_) => {
                        searched.invalid.insert(invalid_key(&input));
                    }
                }
            }
        }
    }
    Ok(found
        .into_iter()
        .map(|(reference, searched)| {
            let searched = if searched.rows.is_empty() {
                Err(Error::Config(format!(
                    "{reference}: no row has this ref in the latest finished run of any portfolio (`ratewatch review` lists the rows that need a person)"
                )))
            } else if searched.keys.is_empty() && searched.invalid.is_empty() {
                Err(Error::Config(format!(
                    "{reference}: the row gives its company_id: nothing to decide (correct it in the portfolio if it is the wrong company)"
                )))
            } else {
                Ok(searched)
            };
            (reference.to_string(), searched)
        })
        .collect())
}

fn revoke(args: ReviewRefArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let mut store = open_for_decisions(db)?;
    let removed = store.revoke(&args.reference).map_err(store_error(db))?;
    if removed == 0 {
        return Err(Error::Config(format!(
            "{}: no decision on this ref",
            args.reference
        )));
    }
    emit(&format!(
        "{}: decision removed; the next run screens it as before.\n",
        args.reference
    ))?;
    Ok(ExitCode::Clean)
}

fn export(args: ReviewExportArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let (problems, _) = problems(db)?;
    // Rows without a ref cannot be named in a decision. (An invalid row can only be
    // ignored: it has no candidate to accept or reject.)
    let decidable: Vec<Problem> = problems
        .into_iter()
        .filter(|p| p.row.reference.is_some())
        .collect();
    let mut lines = lines(&decidable);
    for line in &mut lines {
        line.push(String::new());
    }
    let dialect = output::dialect(args.dialect.csv_dialect.resolve(&sources)?.value);
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
    let mut store = open_for_decisions(db)?;
    let fail = store_error(db);
    let lookups = lookups(&store).map_err(fail)?;
    let references: Vec<&str> = verdicts.keys().map(String::as_str).collect();
    let mut searched = searches(&store, &lookups, &references).map_err(fail)?;
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
                })
                .map_err(fail)?;
        }
        if let Verdict::Accept(company) = verdict {
            describe_accepted(&mut store, db, *company, rows)?;
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
