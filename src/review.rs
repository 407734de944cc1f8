//! The review queue and its decisions, the same whoever asks (`ratewatch review`, the
//! review page of `ratewatch serve`): what needs a person in the latest finished run of
//! each portfolio (never a run still going, which may hold only part of the file), and the
//! decisions later runs apply to those rows (accept a company, reject every candidate, or
//! ignore the row) before any call.
//!
//! A decision writes rows of `decisions` (and an accepted company known without a name
//! gets the description of the candidate picked), with no change to any run or to the
//! resolution cache, and no call to the service, but one: a company the row was never
//! offered is accepted only once the service says it knows it ([`confirm_known`]). Each
//! decision is recorded with where it came from, who made it and why ([`Made`]), and kept
//! when a later one or a revocation ends it.

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use crate::api::ApiError;
use crate::connection::{Service, ServiceSettings};
use crate::error::Error;
use crate::model::{Candidate, Decision, InputRow, ResultRow, RowStatus, Verdict};
use crate::stages::check::{self, Lookups};
use crate::stages::decide::{ACCEPTED_UNKNOWN, invalid_key};
use crate::stages::limit::{Limiter, Limits};
use crate::stages::rate::{self, RatingEndpoint};
use crate::stages::resolve::Query;
use crate::store::{Store, StoreError};
use crate::text::printable;

/// A row of a latest finished run that needs a person (or that a person left alone), with
/// the search it makes.
#[derive(Debug, Clone)]
pub struct Problem {
    pub portfolio: String,
    pub run_id: i64,
    pub row: ResultRow,
    /// The row's search as a person reads it ([`describe`]).
    pub search: String,
}

/// What the review shows: the rows that need a person, the rows a decision left alone,
/// and every decision.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// Ambiguous, unresolved and invalid rows no decision settled, by portfolio and line.
    pub problems: Vec<Problem>,
    /// Rows the latest runs left alone because a person said so (`ignored`).
    pub ignored: Vec<Problem>,
    pub decisions: Vec<Decision>,
}

/// The error of a store read or write, naming the database.
fn fail(store: &Store) -> impl Fn(StoreError) -> Error + '_ {
    move |source| Error::Store {
        path: store.path().to_path_buf(),
        source,
    }
}

/// The review queue: the rows of the latest finished runs that need a person (those
/// decided for the search they make left out), the ignored rows, and every decision.
pub fn queue(store: &Store) -> Result<Queue, Error> {
    let fail = fail(store);
    let decisions = store.decisions().map_err(&fail)?;
    let lookups = lookups(store).map_err(&fail)?;
    let mut queue = Queue::default();
    for latest in store.latest_finished_runs().map_err(&fail)? {
        let mut rows = Vec::new();
        store
            .for_each_unrated(latest.run_id, |row| {
                if matches!(
                    row.status,
                    RowStatus::Ambiguous
                        | RowStatus::Unresolved
                        | RowStatus::Invalid
                        | RowStatus::Ignored
                ) {
                    rows.push(row);
                }
                Ok::<_, Error>(())
            })
            .map_err(&fail)??;
        for row in rows {
            let input = store.run_input(latest.run_id, row.line).map_err(&fail)?;
            let problem = |row| Problem {
                portfolio: latest.portfolio.clone(),
                run_id: latest.run_id,
                search: input.as_ref().map(describe).unwrap_or_default(),
                row,
            };
            if row.status == RowStatus::Ignored {
                queue.ignored.push(problem(row));
                continue;
            }
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
            if !decided {
                queue.problems.push(problem(row));
            }
        }
    }
    queue.decisions = decisions;
    Ok(queue)
}

/// The row's search as a person reads it: the identifier, or the name and its filters.
pub fn describe(row: &InputRow) -> String {
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
    match check::validate(row, lookups) {
        Ok(target) => Query::of(target).map(|q| q.cache_key()),
        Err(_) => Some(invalid_key(row)),
    }
}

/// The lookup lists the last run kept: rows are validated as a run validates them.
pub fn lookups(store: &Store) -> Result<Lookups, StoreError> {
    let (countries, services) = store.load_lookups()?;
    Ok(Lookups::new(&countries, &services))
}

/// What the rows with one ref make in the latest finished runs.
#[derive(Debug, Clone)]
pub struct Searched {
    /// The searches they make (usually one).
    pub keys: BTreeSet<String>,
    /// The keys of those that are invalid ([`invalid_key`]): they make no search.
    pub invalid: BTreeSet<String>,
    /// Where they are: (run, line).
    pub rows: Vec<(i64, u64)>,
}

impl Searched {
    /// The keys `verdict` is recorded for: `ignore` is said of every row with the ref,
    /// invalid ones included; `accept` and `reject` of a company for a search, so only of
    /// the rows that make one.
    pub fn keys_for(&self, reference: &str, verdict: Verdict) -> Result<BTreeSet<String>, Error> {
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
pub fn searched(store: &Store, reference: &str) -> Result<Searched, Error> {
    let fail = fail(store);
    let lookups = lookups(store).map_err(&fail)?;
    searches(store, &lookups, &[reference])
        .map_err(&fail)?
        .remove(reference)
        .expect("every ref asked is answered")
}

/// The searches the rows with each of these refs make in the latest finished runs (usually
/// one), or why there is nothing to decide; all of them read in one pass over each run.
pub fn searches(
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
                match check::validate(&input, lookups) {
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

/// How a decision is made: where from (`command line`, a file's path, `web page`), by whom
/// (an operating-system user, a `--by` name, a signed-in user of the page, `web page`) and
/// why.
#[derive(Debug, Clone, Copy)]
pub struct Made<'a> {
    pub source: &'a str,
    pub by: &'a str,
    pub note: Option<&'a str>,
}

/// `ignore` or `reject` on the row `reference`, recorded for each search it makes, as
/// `made`.
pub fn decide(
    store: &mut Store,
    reference: &str,
    verdict: Verdict,
    made: Made<'_>,
) -> Result<(), Error> {
    let searched = searched(store, reference)?;
    let keys = searched.keys_for(reference, verdict)?;
    record(store, reference, verdict, &keys, made)
}

/// The companies the rows with `reference` were offered in the latest finished runs: the
/// candidates of an ambiguous row, or the company a rated row was found as.
pub fn offered(store: &Store, reference: &str) -> Result<Vec<Candidate>, Error> {
    let searched = searched(store, reference)?;
    offered_for(store, &searched)
}

fn offered_for(store: &Store, searched: &Searched) -> Result<Vec<Candidate>, Error> {
    let mut offered = Vec::new();
    for (run_id, line) in &searched.rows {
        for candidate in store.offered(*run_id, *line).map_err(fail(store))? {
            if !offered.contains(&candidate) {
                offered.push(candidate);
            }
        }
    }
    Ok(offered)
}

/// `accept`: the row `reference` is `company`, one of the candidates it was offered;
/// `confirmed`: the caller asked the service and it knows the company, so one never offered
/// is accepted too (`review accept --force`).
pub fn accept(
    store: &mut Store,
    reference: &str,
    company: Uuid,
    made: Made<'_>,
    confirmed: bool,
) -> Result<(), Error> {
    let searched = searched(store, reference)?;
    let verdict = Verdict::Accept(company);
    let keys = searched.keys_for(reference, verdict)?;
    if !confirmed {
        let offered = offered_for(store, &searched)?;
        if !offered.iter().any(|c| c.id == company) {
            return Err(not_offered(reference, company, &offered));
        }
    }
    describe_accepted(store, company, &searched.rows)?;
    record(store, reference, verdict, &keys, made)
}

/// Whether the service knows `company`, asked before accepting it for the row `reference`
/// it was never offered (`review accept --force`): its rating fetched as a run fetches one,
/// through a gate with a run's bounds, retries and 429 pause. Unknown, or the service's
/// refusal, is the error that stops the decision.
pub async fn confirm_known(
    reference: &str,
    company: Uuid,
    service: &ServiceSettings,
    limits: Limits,
    endpoint: RatingEndpoint,
) -> Result<(), Error> {
    let limiter = Limiter::new(limits);
    let conn = Service::open(service, true, 1).await?;
    match limiter
        .call(endpoint.name(), || {
            rate::fetch(&conn.client, endpoint, company)
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

/// Revokes the decisions in force on `reference`, `by` someone for `why`: the next run
/// screens its rows as before. They are kept, ended.
pub fn revoke(
    store: &mut Store,
    reference: &str,
    by: &str,
    why: Option<&str>,
) -> Result<(), Error> {
    let why = why.map(str::trim).filter(|n| !n.is_empty());
    let revoked = store.revoke(reference, by, why).map_err(fail(store))?;
    if revoked == 0 {
        return Err(Error::Config(format!(
            "{}: no decision in force on this ref",
            printable(reference)
        )));
    }
    Ok(())
}

/// Records `verdict` on the row `reference` for each of the searches `keys`, as `made`.
pub fn record(
    store: &mut Store,
    reference: &str,
    verdict: Verdict,
    keys: &BTreeSet<String>,
    made: Made<'_>,
) -> Result<(), Error> {
    let decided_at = jiff::Timestamp::now();
    let note = made.note.map(str::trim).filter(|n| !n.is_empty());
    for search_key in keys {
        store
            .decide(&Decision {
                reference: reference.to_string(),
                search_key: search_key.clone(),
                verdict,
                decided_at,
                source: made.source.to_string(),
                by: Some(made.by.to_string()),
                note: note.map(str::to_string),
            })
            .map_err(fail(store))?;
    }
    Ok(())
}

/// What a recorded verdict means, said once: `accepted as company …`.
pub fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::Accept(c) => format!("accepted as company {c}"),
        Verdict::Ignore => "ignored".to_string(),
        Verdict::Reject => "every candidate rejected".to_string(),
    }
}

/// Describes an accepted company from the candidate the rows were offered it as, so that
/// the reports name it (a company known without a name; see `Store::describe_accepted`).
pub fn describe_accepted(
    store: &mut Store,
    company: Uuid,
    rows: &[(i64, u64)],
) -> Result<(), Error> {
    for (run_id, line) in rows {
        if store
            .describe_accepted(*run_id, *line, company)
            .map_err(fail(store))?
        {
            break;
        }
    }
    Ok(())
}

/// The refusal of a company the row was not offered, with the ones it was.
fn not_offered(reference: &str, company: Uuid, offered: &[Candidate]) -> Error {
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
