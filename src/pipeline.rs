//! Wires the stages of a screening run: rows in → resolve → rate → records to the writer.
//!
//! This is the only place where work runs concurrently. Rows stream from the reader over a
//! bounded channel (backpressure: the reader waits when the pipeline is busy); a bounded
//! number of rows are in progress at once; every HTTP request goes through the one
//! [`Limiter`], so `--concurrency` bounds resolution and rating together. Each distinct
//! search and each distinct company is asked once per run: concurrent rows needing the
//! same answer wait for the first one's call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::{StreamExt, TryStreamExt};
use tokio::sync::{OnceCell, mpsc};
use uuid::Uuid;

use crate::api::{ApiError, Client};
use crate::limit::Limiter;
use crate::model::{Candidate, RowStatus};
use crate::portfolio::{self, InputError, InputRow, Lookups, Target};
use crate::rate::{self, RatingEndpoint};
use crate::resolve::{self, Query, Resolution};
use crate::store::{Outcome, Record, ResolutionCache, RowRecord, StoreError, Writer};

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
}

/// What an interrupted run being resumed has already done.
#[derive(Debug, Clone, Default)]
pub struct Resume {
    /// Lines already settled, sorted: not screened again.
    pub settled_lines: Vec<u64>,
    /// Companies already rated in the run: not rated again.
    pub rated: Vec<Uuid>,
}

/// What stops a run.
#[derive(Debug)]
pub enum Fatal {
    /// The service refused the key: every further call would be refused too.
    KeyRefused(ApiError),
    Store(StoreError),
    Input(InputError),
}

/// Why one search or rating failed, shared by every row that waited for it.
#[derive(Debug, Clone)]
enum Failure {
    Api(ApiError),
    Store(Arc<StoreError>),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(Arc::new(e))
    }
}

/// A search's answer as rows need it.
#[derive(Debug, Clone)]
enum Found {
    Resolved { company: Uuid, cached: bool },
    Ambiguous(Arc<Vec<Candidate>>),
    Unresolved,
}

type Shared<T> = Arc<OnceCell<Result<T, Failure>>>;

/// One run's moving parts.
pub struct Pipeline {
    client: Client,
    limiter: Arc<Limiter>,
    cache: ResolutionCache,
    writer: Writer,
    lookups: Lookups,
    options: Options,
    searches: Mutex<HashMap<String, Shared<Found>>>,
    ratings: Mutex<HashMap<Uuid, Shared<()>>>,
    settled_lines: Vec<u64>,
}

impl Pipeline {
    pub fn new(
        client: Client,
        limiter: Arc<Limiter>,
        cache: ResolutionCache,
        writer: Writer,
        lookups: Lookups,
        options: Options,
        resume: Resume,
    ) -> Self {
        let ratings = resume
            .rated
            .into_iter()
            .map(|id| (id, Arc::new(OnceCell::new_with(Some(Ok(()))))))
            .collect();
        Pipeline {
            client,
            limiter,
            cache,
            writer,
            lookups,
            options,
            searches: Mutex::new(HashMap::new()),
            ratings: Mutex::new(ratings),
            settled_lines: resume.settled_lines,
        }
    }

    /// Screens every row the channel delivers; `on_row` hears of each finished row (`None`
    /// for a row settled before an interruption).
    /// Returns the writer, to be finished by the caller, whatever happened.
    pub async fn run(
        self,
        rows: mpsc::Receiver<Result<InputRow, InputError>>,
        on_row: impl Fn(Option<RowStatus>),
    ) -> (Writer, Result<(), Fatal>) {
        let in_progress = self.options.concurrency.max(1) * 4;
        let stream = futures::stream::unfold(rows, |mut rx| async move {
            rx.recv().await.map(|row| (row, rx))
        });
        let this = &self;
        let result = stream
            .map(|row| this.process(row))
            .buffer_unordered(in_progress)
            .try_for_each(|record| async {
                // A row settled before an interruption is not screened again.
                let Some(record) = record else {
                    on_row(None);
                    return Ok(());
                };
                let status = record.status;
                this.writer
                    .send(Record::Row(Box::new(record)))
                    .await
                    .map_err(Fatal::Store)?;
                on_row(Some(status));
                Ok(())
            })
            .await;
        (self.writer, result)
    }

    async fn process(&self, row: Result<InputRow, InputError>) -> Result<Option<RowRecord>, Fatal> {
        let row = row.map_err(Fatal::Input)?;
        if self.settled_lines.binary_search(&row.line).is_ok() {
            return Ok(None);
        }
        self.screen_row(row).await.map(Some)
    }

    async fn screen_row(&self, row: InputRow) -> Result<RowRecord, Fatal> {
        let mut record = RowRecord {
            line: row.line,
            reference: row.reference.clone(),
            country: row.country.clone(),
            service: row.service.clone(),
            external_id: row.id.clone(),
            name: row.name.clone(),
            status: RowStatus::Invalid,
            company_id: None,
            error: None,
            candidates: Vec::new(),
        };
        let query = match portfolio::validate(&row, &self.lookups) {
            Err(reason) => {
                record.error = Some(reason);
                return Ok(record);
            }
            Ok(Target::Known(company)) => {
                record.company_id = Some(company);
                return match self.rate(company).await {
                    Ok(()) => Ok(rated(record)),
                    Err(Failure::Api(ApiError::NotFound { .. })) => Ok(RowRecord {
                        status: RowStatus::Unresolved,
                        error: Some("company_id: the service knows no company with this id".into()),
                        ..record
                    }),
                    Err(f) => failed(record, f),
                };
            }
            Ok(Target::ById {
                country,
                service,
                id,
            }) => Query::ById {
                country,
                service,
                id,
            },
            Ok(Target::ByName(q)) => Query::ByName(q),
        };

        let mut found = self.search(&query, false).await;
        // A cached company the service no longer knows (ids can change) is searched again,
        // once per run.
        for second_try in [false, true] {
            let (company, cached) = match found {
                Err(f) => return failed(record, f),
                Ok(Found::Unresolved) => {
                    return Ok(RowRecord {
                        status: RowStatus::Unresolved,
                        error: Some("no company matches".into()),
                        ..record
                    });
                }
                Ok(Found::Ambiguous(candidates)) => {
                    return Ok(RowRecord {
                        status: RowStatus::Ambiguous,
                        error: Some(format!(
                            "{} companies match: add city or postcode, or the chosen company_id",
                            candidates.len()
                        )),
                        candidates: candidates.to_vec(),
                        ..record
                    });
                }
                Ok(Found::Resolved { company, cached }) => (company, cached),
            };
            record.company_id = Some(company);
            match self.rate(company).await {
                Ok(()) => return Ok(rated(record)),
                Err(Failure::Api(ApiError::NotFound { .. })) if cached && !second_try => {
                    tracing::info!(line = record.line, %company, "cached company unknown to the service; searching again");
                    record.company_id = None;
                    found = self.search(&query, true).await;
                }
                Err(f) => return failed(record, f),
            }
        }
        unreachable!("the second try always returns")
    }

    /// The answer to a search: from this run, from the cache, or from the service.
    async fn search(&self, query: &Query, again: bool) -> Result<Found, Failure> {
        let key = query.cache_key();
        let slot_key = if again {
            format!("{key}\u{0}again")
        } else {
            key.clone()
        };
        let cell = self
            .searches
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(slot_key)
            .or_default()
            .clone();
        cell.get_or_init(|| async {
            // The cache holds every answer that is not an error, so a nightly re-run
            // searches nothing; it is bypassed on demand, when stale, or when its company
            // turned out unknown.
            let cached = match again || self.options.refresh_resolutions {
                true => None,
                false => self.cache.get(&key)?,
            };
            if let Some(hit) = cached.filter(|hit| {
                jiff::Timestamp::now().duration_since(hit.resolved_at)
                    <= self.options.resolution_max_age
            }) {
                return Ok(match hit.outcome {
                    Outcome::Resolved => match hit.company_id {
                        Some(company) => Found::Resolved {
                            company,
                            cached: true,
                        },
                        None => Found::Unresolved,
                    },
                    Outcome::Ambiguous => Found::Ambiguous(Arc::new(hit.candidates)),
                    Outcome::Unresolved => Found::Unresolved,
                });
            }
            let answer = self
                .limiter
                .call(query.endpoint(), || resolve::resolve(&self.client, query))
                .await
                .map_err(Failure::Api)?;
            let (found, outcome, company_id) = match &answer {
                Resolution::Resolved(c) => {
                    self.writer.send(Record::Company(c.clone())).await?;
                    (
                        Found::Resolved {
                            company: c.id,
                            cached: false,
                        },
                        Outcome::Resolved,
                        Some(c.id),
                    )
                }
                Resolution::Ambiguous(list) => {
                    for c in list {
                        self.writer
                            .send(Record::Company(Box::new(c.clone())))
                            .await?;
                    }
                    let candidates = list.iter().map(resolve::candidate).collect();
                    (
                        Found::Ambiguous(Arc::new(candidates)),
                        Outcome::Ambiguous,
                        None,
                    )
                }
                Resolution::Unresolved => (Found::Unresolved, Outcome::Unresolved, None),
            };
            let candidates = match &found {
                Found::Ambiguous(c) => c.to_vec(),
                _ => Vec::new(),
            };
            self.writer
                .send(Record::Resolution {
                    key: key.clone(),
                    outcome,
                    company_id,
                    candidates,
                })
                .await?;
            Ok(found)
        })
        .await
        .clone()
    }

    /// Rates a company once per run, however many rows reach it.
    async fn rate(&self, company: Uuid) -> Result<(), Failure> {
        let cell = self
            .ratings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(company)
            .or_default()
            .clone();
        cell.get_or_init(|| async {
            let endpoint = self.options.endpoint;
            let mut rating = self
                .limiter
                .call(endpoint.name(), || {
                    rate::fetch(&self.client, endpoint, company)
                })
                .await
                .map_err(Failure::Api)?;
            // Stored under the id that was asked for, whatever the answer echoes.
            rating.company_id = company;
            self.writer.send(Record::Observation(rating)).await?;
            Ok(())
        })
        .await
        .clone()
    }
}

fn rated(record: RowRecord) -> RowRecord {
    RowRecord {
        status: RowStatus::Rated,
        error: None,
        ..record
    }
}

/// An API error fails the row; a refused key or a storage error stops the run.
fn failed(record: RowRecord, failure: Failure) -> Result<RowRecord, Fatal> {
    match failure {
        Failure::Api(e @ ApiError::Unauthenticated { .. }) => Err(Fatal::KeyRefused(e)),
        Failure::Api(e) => Ok(RowRecord {
            status: RowStatus::Failed,
            error: Some(e.to_string()),
            ..record
        }),
        Failure::Store(e) => Err(Fatal::Store(
            Arc::try_unwrap(e).unwrap_or_else(|e| StoreError::WriterGone(e.to_string())),
        )),
    }
}
