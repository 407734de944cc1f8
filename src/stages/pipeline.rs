//! Wires the stages of a screening run: rows in → resolve → rate → records to the writer.
//!
//! This is the only place where work runs concurrently. Rows are pulled from the reader
//! only when there is room for them (backpressure: nothing is read ahead of the work); a
//! bounded number of rows are in progress at once; every HTTP request goes through the one
//! [`Limiter`], so `--concurrency` bounds resolution and rating together.
//!
//! Each distinct search and each distinct company is asked once per run. Rows needing an
//! answer that is on its way wait for it (the in-flight maps, as small as the work in
//! progress); answers already given are found where they were written, by asking the
//! writer (whose answers see everything sent before the question). So memory does not grow
//! with the portfolio, only with the failures of the run, which are kept so that a
//! duplicate of a failed row costs no second call.
//!
//! "Not found" is believed only from a service that has shown it is the service: until
//! one search or rating succeeds, what rests on a "not found" is held back, and
//! [`WRONG_ADDRESS_PROOF`](super::tally::WRONG_ADDRESS_PROOF) of them with no success stop the run (a wrong `--base-url`, a
//! proxy answering 404 to everything) before anything is recorded as unmatched.

use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use uuid::Uuid;

use crate::api::{ApiError, Client};
use crate::lock;
use crate::model::{Decision, RefreshAges, RowStatus, SearchOutcome};
use crate::stages::check::Lookups;
use crate::stages::decide::{ACCEPTED_UNKNOWN, Action, Decisions, Found, Need, REJECTED};
use crate::stages::in_flight::{Failure, InFlight};
use crate::stages::input::{InputError, InputRow};
use crate::stages::limit::Limiter;
use crate::stages::outcome::{
    Deferred, Fatal, RowOutcome, Searched, UNPROVEN, failed, rated, said_assumed,
};
use crate::stages::rate::{self, RatingEndpoint};
use crate::stages::relax;
use crate::stages::resolve::{self, Query, Resolution};
use crate::stages::tally::{Canary, Completed, FellBack};
use crate::store::{Record, Recorder, RowRecord, StoreError, Writer};

/// How a run resolves and rates.
#[derive(Debug, Clone)]
pub struct Options {
    /// Requests in flight at most.
    pub concurrency: usize,
    pub endpoint: RatingEndpoint,
    /// Ignore the resolution cache and search every row again.
    pub refresh_resolutions: bool,
    /// Cached resolutions older than this are searched again.
    pub resolution_max_age: jiff::SignedDuration,
    /// How old a company's latest rating may be, by its color, and still be used instead
    /// of fetched (`rating_max_age` and `[refresh]`); by default every rating is fetched.
    pub refresh: Arc<RefreshAges>,
    /// What `ratewatch review` decided, applied before any call.
    pub decisions: Arc<Decisions>,
    /// The name of `default_country` (`France`), which the error of a row whose blank
    /// country took it opens with: `France assumed: no company matches`.
    pub assumed_country: Option<String>,
}

/// What an interrupted run being resumed has already done.
#[derive(Debug, Clone, Default)]
pub struct Resume {
    /// Lines already settled, sorted: not screened again. (Companies already rated are
    /// known to the writer.)
    pub settled_lines: Vec<u64>,
}

/// One run's moving parts.
pub struct Pipeline {
    client: Client,
    limiter: Arc<Limiter>,
    store: Arc<Recorder>,
    lookups: Lookups,
    options: Options,
    searches: InFlight<String, Found>,
    ratings: InFlight<Uuid, ()>,
    settled_lines: Vec<u64>,
    canary: Canary<Deferred>,
    fell_back: Mutex<FellBack>,
}

impl Pipeline {
    pub fn new(
        client: Client,
        limiter: Arc<Limiter>,
        writer: Writer,
        lookups: Lookups,
        options: Options,
        resume: Resume,
    ) -> Self {
        Pipeline {
            client,
            limiter,
            store: Recorder::start(writer),
            lookups,
            options,
            searches: InFlight::new(),
            ratings: InFlight::new(),
            settled_lines: resume.settled_lines,
            canary: Canary::default(),
            fell_back: Mutex::default(),
        }
    }

    /// Puts the rows in the order a call budget should reach them: first those never
    /// checked, then those checked least recently (rows that need no call, the invalid
    /// ones, come first as they cost nothing). The same budget every night then reaches
    /// every row in turn, instead of the file's first rows again and again. Holds the
    /// portfolio in memory: only for runs with a budget.
    pub async fn by_last_checked(&self, rows: Vec<InputRow>) -> Result<Vec<InputRow>, StoreError> {
        let mut keyed = Vec::with_capacity(rows.len());
        for row in rows {
            let checked = match Need::of(&row, &self.lookups, &self.options.decisions) {
                Need::Invalid { .. } => None,
                Need::Known(company) => self.store.last_checked(None, Some(company)).await?,
                Need::Searches(steps) => {
                    let key = steps[0].query.cache_key();
                    self.store.last_checked(Some(&key), None).await?
                }
            };
            keyed.push((checked, row));
        }
        // `None` sorts first, then the oldest run; ties keep the file's order.
        keyed.sort_by_key(|(checked, _)| *checked);
        Ok(keyed.into_iter().map(|(_, row)| row).collect())
    }

    /// Screens every row `rows` yields; `on_row` hears of each finished row (`None`
    /// for a row settled before an interruption). What was recorded is committed whatever
    /// happened: a run stopped midway keeps its work.
    ///
    /// Each row is a task of its own, so one slow row never holds up the others; a bounded
    /// number of them are in progress at once. Rows are read on this thread as slots free
    /// up: reading a buffered file costs less than handing rows over from another thread.
    pub async fn run(
        self,
        mut rows: impl Iterator<Item = Result<InputRow, InputError>>,
        on_row: impl Fn(Option<RowStatus>),
    ) -> Result<Completed, Fatal> {
        let this = Arc::new(self);
        let slots = Arc::new(Semaphore::new(this.options.concurrency.max(1) * 4));
        let mut tasks: JoinSet<Result<Option<RowStatus>, Fatal>> = JoinSet::new();
        let mut outcome = Ok(());
        let settle = |done: Result<Result<Option<RowStatus>, Fatal>, tokio::task::JoinError>,
                      outcome: &mut Result<(), Fatal>| {
            match done {
                Ok(Ok(status)) => on_row(status),
                Ok(Err(fatal)) => {
                    if outcome.is_ok() {
                        *outcome = Err(fatal);
                    }
                }
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(_) => {}
            }
        };
        let mut input_done = false;
        while outcome.is_ok() && !(input_done && tasks.is_empty()) {
            tokio::select! {
                biased;
                Some(done) = tasks.join_next(), if !tasks.is_empty() => settle(done, &mut outcome),
                slot = slots.clone().acquire_owned(), if !input_done => {
                    let slot = slot.expect("never closed");
                    let Some(row) = rows.next() else {
                        input_done = true;
                        continue;
                    };
                    let this = this.clone();
                    tasks.spawn(async move {
                        let _slot = slot;
                        let Some(screened) = this.process(row).await? else {
                            return Ok(None);
                        };
                        if let Some(not_found) = this.canary.wrong_address() {
                            return Err(Fatal::WrongAddress { not_found });
                        }
                        let status = screened.record.status;
                        if screened.not_found {
                            // Rare: boxed, so every row's task stays small.
                            Box::pin(this.record(screened)).await?;
                        } else {
                            this.store
                                .send(Record::Row(Box::new(screened.record)))
                                .map_err(Fatal::Store)?;
                        }
                        Ok(Some(status))
                    });
                }
            }
        }
        if outcome.is_err() {
            tasks.abort_all();
        }
        while let Some(done) = tasks.join_next().await {
            settle(done, &mut outcome);
        }
        let ended = match outcome {
            Ok(()) => this.release_deferred().await,
            Err(fatal) => Err(fatal),
        };
        let this = Arc::try_unwrap(this)
            .unwrap_or_else(|_| unreachable!("every task has ended and dropped its handle"));
        let written = this.store.finish().await;
        match (ended, written) {
            (Err(fatal), _) => Err(fatal),
            (Ok(_), Err(e)) => Err(Fatal::Store(e)),
            (Ok(ended), Ok(_)) => Ok(ended),
        }
    }

    /// Records a screened row, or holds it back while its "not found" is not yet believed.
    async fn record(&self, screened: RowOutcome) -> Result<(), Fatal> {
        if screened.not_found && !self.canary.proven() {
            self.canary.defer(Deferred::Row(Box::new(screened)));
            return Ok(());
        }
        let record = self.settle_vanished(screened).await?;
        self.store
            .send(Record::Row(Box::new(record)))
            .map_err(Fatal::Store)
    }

    /// A row whose company the service no longer knows: `gone`, with its last color, if it
    /// had been rated before (news once); otherwise the row stays as it was.
    async fn settle_vanished(&self, screened: RowOutcome) -> Result<RowRecord, Fatal> {
        let RowOutcome {
            mut record,
            vanished,
            ..
        } = screened;
        let Some(company) = vanished else {
            return Ok(record);
        };
        if let Some(gone) = self.store.gone(company).await.map_err(Fatal::Store)? {
            record.company_id = Some(company);
            record.error = Some(format!(
                "gone: the service no longer knows this company (last seen {} on {})",
                gone.color,
                gone.last_seen.get(..10).unwrap_or(&gone.last_seen)
            ));
        }
        Ok(record)
    }

    /// At the end of a run that was not stopped: what was held back is recorded. If no
    /// answer ever proved the service (fewer "not found" than stop a run, and nothing
    /// else), those rows fail, to be screened again next run: a "not found" is believed
    /// only from the service. Their searches are not cached and no company is gone.
    async fn release_deferred(&self) -> Result<Completed, Fatal> {
        let deferred = self.canary.take_deferred();
        let proven = self.canary.proven();
        for work in deferred {
            match work {
                Deferred::Record(record) if proven => {
                    self.store.send(record).map_err(Fatal::Store)?;
                }
                Deferred::Record(_) => {}
                Deferred::Row(screened) => {
                    let record = if proven {
                        self.settle_vanished(*screened).await?
                    } else {
                        RowRecord {
                            status: RowStatus::Failed,
                            company_id: None,
                            error: Some(UNPROVEN.into()),
                            ..screened.record
                        }
                    };
                    self.store
                        .send(Record::Row(Box::new(record)))
                        .map_err(Fatal::Store)?;
                }
            }
        }
        Ok(Completed {
            unconfirmed_not_found: if proven { 0 } else { self.canary.not_found() },
            fell_back: std::mem::take(&mut *lock(&self.fell_back)),
        })
    }

    async fn process(
        &self,
        row: Result<InputRow, InputError>,
    ) -> Result<Option<RowOutcome>, Fatal> {
        let row = row.map_err(Fatal::Input)?;
        if self.settled_lines.binary_search(&row.line).is_ok() {
            return Ok(None);
        }
        let defaulted = row.country_defaulted;
        let mut outcome = self.screen_row(row).await?;
        if defaulted && let Some(country) = &self.options.assumed_country {
            said_assumed(&mut outcome.record, country);
        }
        Ok(Some(outcome))
    }

    /// Screens a row as its [`Need`] says: its searches in their order, the next only when
    /// the one before finds no company ("not found" to a search by identifier, an empty
    /// answer to a search by name). A failure (5xx, timeout) fails the row there, to be
    /// screened again next run; several matches make it ambiguous; only when the last
    /// finds nothing is the row unresolved. A "not found" is believed as ever only from a
    /// service that has proven itself: a row that none of its searches finds rests on it
    /// ([`RowOutcome::not_found`]) and is held back until then.
    async fn screen_row(&self, row: InputRow) -> Result<RowOutcome, Fatal> {
        let need = Need::of(&row, &self.lookups, &self.options.decisions);
        let mut record = RowRecord {
            input: row,
            ..RowRecord::default()
        };
        let steps = match need {
            // An invalid row a person chose to leave alone, as it stands.
            Need::Invalid {
                reason,
                ignored: Some(decision),
            } => {
                return Ok(RowRecord {
                    status: RowStatus::Ignored,
                    error: Some(format!("ignored by review ({}): {reason}", decision.day())),
                    ..record
                }
                .into());
            }
            Need::Invalid {
                reason,
                ignored: None,
            } => {
                record.error = Some(reason);
                return Ok(record.into());
            }
            Need::Known(company) => return self.screen_known(record, company, "company_id").await,
            Need::Searches(steps) => steps,
        };
        // What each search passed over or made found, for the row's error if none finds
        // its company, and for the run's note if a later one does.
        let mut tried: Vec<String> = Vec::new();
        let mut not_found = false;
        let mut vanished = None;
        let mut rejected = None;
        // What the loosened searches left out, the last of them the most.
        let mut loosened: Option<&str> = None;
        for step in &steps {
            let label = step.query.label();
            // A person said none of the candidates is the company: the loosened searches
            // would offer them again.
            if step.relaxed.is_some() && rejected.is_some() {
                continue;
            }
            let searched = match &step.action {
                Action::Search if step.relaxed.is_some() => {
                    let without = step.relaxed.as_deref().unwrap_or_default();
                    loosened = Some(without);
                    self.screen_relaxed(record, &step.query, without).await?
                }
                Action::Skip(why) => {
                    tried.push(format!("{label}: not searched ({why})"));
                    continue;
                }
                Action::Accept(company, decision) => Searched::Done(
                    self.screen_accepted(record, *company, decision, &step.query)
                        .await?,
                    false,
                ),
                Action::Ignore(decision) => Searched::Done(
                    RowRecord {
                        status: RowStatus::Ignored,
                        error: Some(format!("ignored by review ({})", decision.day())),
                        ..record
                    }
                    .into(),
                    false,
                ),
                // None of this search's candidates: the row's next search is tried.
                Action::Reject(decision) => Searched::NoMatch {
                    record,
                    not_found: false,
                    vanished: None,
                    rejected: Some(format!("{REJECTED} ({})", decision.day())),
                },
                Action::Search => self.screen_search(record, &step.query).await?,
            };
            match searched {
                Searched::Done(screened, found) => {
                    if let (Some(failed), Some(found_by), true) =
                        (tried.first(), &screened.record.found_by, found)
                    {
                        let input = &screened.record.input;
                        lock(&self.fell_back).add(
                            input.line,
                            input.reference.clone(),
                            failed.clone(),
                            found_by.clone(),
                        );
                    }
                    return Ok(screened);
                }
                Searched::NoMatch {
                    record: back,
                    not_found: said,
                    vanished: gone,
                    rejected: why,
                } => {
                    record = back;
                    not_found |= said;
                    vanished = vanished.or(gone);
                    if step.relaxed.is_some() {
                        continue;
                    }
                    // An identifier that fails its own rules says so: likely a typo.
                    tried.push(match (&why, step.query.rule_problem()) {
                        (Some(why), _) => format!("{label}: {why}"),
                        (None, Some(hint)) => format!("{label}: no company ({hint})"),
                        (None, None) => format!("{label}: no company"),
                    });
                    rejected = why.or(rejected);
                }
            }
        }
        let own: Vec<_> = steps.iter().filter(|s| s.relaxed.is_none()).collect();
        let mut error = match &own[..] {
            [_] if rejected.is_some() => format!(
                "{}: give the row an identifier, or accept or ignore it",
                rejected.unwrap_or_default()
            ),
            [only] => match only.query.rule_problem() {
                Some(hint) => format!("no company matches ({hint})"),
                None => "no company matches".into(),
            },
            _ => format!("no company matches: {}", tried.join("; ")),
        };
        if let Some(without) = loosened {
            error.push_str(&format!("; none either without {without}"));
        }
        Ok(RowOutcome {
            record: RowRecord {
                status: RowStatus::Unresolved,
                error: Some(error),
                ..record
            },
            not_found: not_found || vanished.is_some(),
            vanished,
        })
    }

    /// A row whose company review accepted for this search: rated without a search. Its
    /// description, when the database has none yet, is the candidate the search offered:
    /// the reports name the company, never only its id.
    async fn screen_accepted(
        &self,
        record: RowRecord,
        company: Uuid,
        decision: &Decision,
        query: &Query,
    ) -> Result<RowOutcome, Fatal> {
        self.store
            .send(Record::Accepted {
                company,
                search_key: decision.search_key.clone(),
                country: query.country().to_uppercase(),
            })
            .map_err(Fatal::Store)?;
        let mut screened = self.screen_known(record, company, "review").await?;
        if screened.vanished.is_some() {
            screened.record.error = Some(format!(
                "{ACCEPTED_UNKNOWN} ({}) is unknown to the service: review the row again",
                decision.day()
            ));
        }
        Ok(screened)
    }

    /// A loosened search of a row whose own found no company ([`crate::stages::relax`]):
    /// what it finds is offered as candidates, each saying what was left out to find it,
    /// and the row is `ambiguous` until a person accepts one (`ratewatch review`). Never a
    /// match, never rated. Nothing found: the next step follows.
    async fn screen_relaxed(
        &self,
        record: RowRecord,
        query: &Query,
        without: &str,
    ) -> Result<Searched, Fatal> {
        let found = match self.search(query, false).await {
            Err(f) => return failed(record, f).map(|r| Searched::Done(r.into(), false)),
            Ok(Found::Unresolved { not_found }) => {
                return Ok(Searched::NoMatch {
                    record,
                    not_found,
                    vanished: None,
                    rejected: None,
                });
            }
            Ok(Found::Resolved { candidate, .. }) => vec![(*candidate).clone()],
            Ok(Found::Ambiguous(candidates)) => candidates.to_vec(),
        };
        let (candidates, error) = relax::offer(found, without);
        Ok(Searched::Done(
            RowRecord {
                status: RowStatus::Ambiguous,
                error: Some(error),
                candidates,
                ..record
            }
            .into(),
            false,
        ))
    }

    /// One search of a row's, and the rating of the company it finds.
    async fn screen_search(&self, mut record: RowRecord, query: &Query) -> Result<Searched, Fatal> {
        let done = |screened: RowOutcome| Searched::Done(screened, false);
        let mut found = self.search(query, false).await;
        // A cached company the service no longer knows (ids can change) is searched again,
        // once per run; if the search finds nothing, the company is gone.
        let mut vanished = None;
        for second_try in [false, true] {
            let (company, cached) = match found {
                Err(f) => return failed(record, f).map(|r| done(r.into())),
                Ok(Found::Unresolved { not_found }) => {
                    return Ok(Searched::NoMatch {
                        record,
                        not_found,
                        vanished,
                        rejected: None,
                    });
                }
                Ok(Found::Ambiguous(candidates)) => {
                    return Ok(done(
                        RowRecord {
                            status: RowStatus::Ambiguous,
                            error: Some(format!(
                                "{} companies match: add city or postcode, or the chosen company_id",
                                candidates.len()
                            )),
                            candidates: candidates.to_vec(),
                            ..record
                        }
                        .into(),
                    ));
                }
                Ok(Found::Resolved {
                    company, cached, ..
                }) => (company, cached),
            };
            record.company_id = Some(company);
            record.found_by = Some(query.label());
            match self.rate(company).await {
                Ok(()) => return Ok(Searched::Done(rated(record).into(), true)),
                Err(Failure::Api(ApiError::NotFound { .. })) if cached && !second_try => {
                    tracing::info!(line = record.input.line, %company, "cached company unknown to the service; searching again");
                    record.company_id = None;
                    record.found_by = None;
                    vanished = Some(company);
                    found = self.search(query, true).await;
                }
                Err(f) => return failed(record, f).map(|r| done(r.into())),
            }
        }
        unreachable!("the second try always returns")
    }

    /// A row whose company is known (given in the portfolio, or accepted by review):
    /// rated, no search.
    /// `found_by` says how it is known (`company_id`, `review`).
    async fn screen_known(
        &self,
        mut record: RowRecord,
        company: Uuid,
        found_by: &str,
    ) -> Result<RowOutcome, Fatal> {
        record.company_id = Some(company);
        record.found_by = Some(found_by.into());
        match self.rate(company).await {
            Ok(()) => Ok(rated(record).into()),
            Err(Failure::Api(ApiError::NotFound { .. })) => Ok(RowOutcome {
                record: RowRecord {
                    status: RowStatus::Unresolved,
                    company_id: None,
                    found_by: None,
                    error: Some("company_id: the service knows no company with this id".into()),
                    ..record
                },
                not_found: true,
                vanished: Some(company),
            }),
            Err(f) => failed(record, f).map(Into::into),
        }
    }

    /// The answer to a search: from this run, from the cache, or from the service.
    async fn search(&self, query: &Query, again: bool) -> Result<Found, Failure> {
        let key = query.cache_key();
        let slot = if again {
            format!("{key}\u{0}again")
        } else {
            key.clone()
        };
        self.searches
            .once(slot, || async {
                // The cache holds every answer that is not an error, so a nightly re-run
                // searches nothing; it is bypassed on demand, when stale, or when its
                // company turned out unknown.
                let cached = match again || self.options.refresh_resolutions {
                    true => None,
                    false => {
                        self.store
                            .cached_resolution(&key, query.identifier())
                            .await?
                    }
                };
                let now = jiff::Timestamp::now();
                let max_age = self.options.resolution_max_age;
                if let Some(found) = cached.and_then(|hit| Found::cached(hit, query, max_age, now))
                {
                    return Ok(found);
                }
                let answer = self
                    .limiter
                    .call(query.endpoint(), || resolve::search(&self.client, query))
                    .await;
                self.canary.hear(&answer);
                let (answer, not_found) = match answer {
                    Err(ApiError::NotFound { .. }) => (Resolution::Unresolved, true),
                    other => (other.map_err(Failure::Api)?, false),
                };
                // The companies go to the writer as they came: nothing else reads them.
                let (found, outcome, company_id) = match answer {
                    Resolution::Resolved(c) => {
                        let company = c.id;
                        let candidate = Arc::new(resolve::candidate(&c));
                        self.store.send(Record::Company(c))?;
                        (
                            Found::Resolved {
                                company,
                                cached: false,
                                candidate,
                            },
                            SearchOutcome::Resolved,
                            Some(company),
                        )
                    }
                    Resolution::Ambiguous(list) => {
                        let candidates = list.iter().map(resolve::candidate).collect();
                        for c in list {
                            self.store.send(Record::Company(Box::new(c)))?;
                        }
                        (
                            Found::Ambiguous(Arc::new(candidates)),
                            SearchOutcome::Ambiguous,
                            None,
                        )
                    }
                    Resolution::Unresolved => (
                        Found::Unresolved { not_found },
                        SearchOutcome::Unresolved,
                        None,
                    ),
                };
                let candidates = match &found {
                    Found::Ambiguous(c) => c.to_vec(),
                    _ => Vec::new(),
                };
                let cache = Record::Resolution {
                    key: key.clone(),
                    outcome,
                    company_id,
                    candidates,
                };
                // A "not found" from what may not be the service is never cached unseen.
                if not_found && !self.canary.proven() {
                    self.canary.defer(Deferred::Record(cache));
                } else {
                    self.store.send(cache)?;
                }
                Ok(found)
            })
            .await
    }

    /// Rates a company once per run, however many rows reach it.
    async fn rate(&self, company: Uuid) -> Result<(), Failure> {
        self.ratings
            .once(company, || async {
                // Rated already by an earlier row of this run, or before an interruption.
                if self.store.rated(company).await? {
                    return Ok(());
                }
                // Seen by a recent run, younger than its color's refresh age: the user
                // chose to spare the call (a red company is asked again within a day).
                if self.options.refresh.any()
                    && self
                        .store
                        .reuse_rating(company, &self.options.refresh, jiff::Timestamp::now())
                        .await?
                {
                    return Ok(());
                }
                let endpoint = self.options.endpoint;
                let rating = self
                    .limiter
                    .call(endpoint.name(), || {
                        rate::fetch(&self.client, endpoint, company)
                    })
                    .await;
                self.canary.hear(&rating);
                let mut rating = rating.map_err(Failure::Api)?;
                // Stored under the id that was asked for, whatever the answer echoes.
                rating.company_id = company;
                self.store.send(Record::Observation(rating))?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
#[cfg(feature = "demo")]
mod tests {
    use super::*;

    /// Rows are read only as slots free up: never more than the slots ahead of the rows
    /// finished, however long the portfolio.
    #[tokio::test]
    async fn rows_are_read_only_when_there_is_room_for_them() {
        use std::cell::Cell;
        use std::net::{Ipv4Addr, SocketAddr};
        use std::time::Duration;

        use crate::api::{ApiKey, ClientOptions};
        use crate::sim::{Faults, SimConfig, SimServer, dataset};
        use crate::stages::limit::Limits;
        use crate::store::{NewRun, Store};

        let sim = SimServer::start(
            SimConfig {
                per_country: 2_000,
                faults: Faults {
                    latency: Duration::from_millis(5),
                    ..Faults::default()
                },
                ..SimConfig::default()
            },
            SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        )
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("t.db")).unwrap();
        let run_id = store
            .start_run(&NewRun {
                portfolio: "p".into(),
                input_path: "p.csv".into(),
                sha256: String::new(),
                demo_day: None,
                extra_columns: vec![],
                amount_column: None,
            })
            .unwrap();
        let key = ApiKey::new(SimConfig::default().key);
        let client = Client::new(&sim.base_url(), Some(&key), ClientOptions::default()).unwrap();
        let concurrency = 2;
        let pipeline = Pipeline::new(
            client,
            Arc::new(Limiter::new(Limits {
                concurrency,
                ..Limits::default()
            })),
            store.writer(run_id).unwrap(),
            Lookups::new(
                &dataset::countries()
                    .into_iter()
                    .map(Into::into)
                    .collect::<Vec<_>>(),
                &dataset::services()
                    .into_iter()
                    .map(Into::into)
                    .collect::<Vec<_>>(),
            ),
            Options {
                concurrency,
                endpoint: RatingEndpoint::Current,
                refresh_resolutions: false,
                resolution_max_age: jiff::SignedDuration::from_hours(24),
                refresh: Arc::default(),
                decisions: Arc::default(),
                assumed_country: None,
            },
            Resume::default(),
        );
        let data = sim.dataset().clone();
        let (read, finished, most_ahead) = (Cell::new(0u64), Cell::new(0u64), Cell::new(0u64));
        let rows = (0..200u32).map(|n| {
            read.set(read.get() + 1);
            most_ahead.set(most_ahead.get().max(read.get() - finished.get()));
            let r = dataset::CompanyRef { country: 0, n };
            let id = &data.external_ids(r)[0];
            Ok(InputRow {
                line: u64::from(n) + 2,
                country: Some("FR".into()),
                service: Some(id.external_service.clone()),
                id: Some(id.external_id.clone()),
                ..InputRow::default()
            })
        });
        let ended = pipeline
            .run(rows, |_| finished.set(finished.get() + 1))
            .await;
        assert!(ended.is_ok());
        assert_eq!(finished.get(), 200);
        let slots = concurrency as u64 * 4;
        assert!(
            most_ahead.get() <= slots + 1,
            "{} rows read ahead of the finished ones, with {slots} slots",
            most_ahead.get()
        );
    }
}
