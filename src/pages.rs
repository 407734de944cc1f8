//! What each page of `ratewatch serve` shows, read from the database as plain data: one
//! function per page, so a page's reading can be timed on its own, and no SQL (that is the
//! store's). The web layer only lays these out.

use std::collections::{BTreeMap, HashMap};

use jiff::Timestamp;

use crate::alerts::Rules;
use crate::digest::{AlertDigest, AlertLine};
use crate::error::Error;
use crate::model::{ResultRow, RowStatus, RunColors, RunInfo};
use crate::review::{self, Queue};
use crate::store::{
    Ack, AlertSet, ColorPeriod, CompanySummary, DecisionRecord, Disappearance, Holding,
    LatestRating, Store, StoreError, TREND_RUNS, Verdicts, month_start, time_text,
};
use crate::text::normalize_name;

/// Alerts of one kind of section a page lists; the others are counted.
pub const LISTED_AT_MOST: usize = 500;

/// Rows not monitored a portfolio page lists; the others are counted.
pub const UNMONITORED_AT_MOST: usize = 1_000;

/// Companies a search lists.
pub const FOUND_AT_MOST: usize = 200;

fn fail(store: &Store) -> impl Fn(StoreError) -> Error + '_ {
    move |source| Error::Store {
        path: store.path().to_path_buf(),
        source,
    }
}

/// The inbox: the alerts of each portfolio's latest finished run.
#[derive(Debug, Clone)]
pub struct Inbox {
    pub portfolios: Vec<PortfolioAlerts>,
}

/// One portfolio's alerts, as its latest finished run decided them and as acknowledged
/// since.
#[derive(Debug, Clone)]
pub struct PortfolioAlerts {
    pub run: RunInfo,
    /// What the run's alerts say, as the summary said it (totals, standing, counted).
    pub digest: AlertDigest,
    /// Listed alerts no acknowledgement in force covers: worst first, to act on.
    pub open: Vec<AlertLine>,
    /// Listed alerts acknowledged since the run, each with its acknowledgement.
    pub acked_since: Vec<(AlertLine, Ack)>,
    /// Alerts an acknowledgement had taken out of the run's list, with the
    /// acknowledgement when it is still in force.
    pub acked: Vec<(AlertLine, Option<Ack>)>,
    /// Standing red and black acknowledged since the run, each with its acknowledgement:
    /// shown acknowledged at once, as the next run will leave them out.
    pub standing_acked: Vec<(AlertLine, Ack)>,
    /// Standing red and black: neither news nor acknowledged.
    pub standing: Vec<AlertLine>,
}

impl PortfolioAlerts {
    /// Listed alerts beyond [`LISTED_AT_MOST`].
    pub fn listed_beyond(&self) -> u64 {
        self.digest
            .listed_total
            .saturating_sub((self.open.len() + self.acked_since.len()) as u64)
    }

    /// Every alert shown acknowledged.
    pub fn acked_total(&self) -> usize {
        self.acked_since.len() + self.acked.len() + self.standing_acked.len()
    }

    /// The standing red and black of the run not acknowledged since.
    pub fn standing_left(&self) -> u64 {
        self.digest
            .standing_total()
            .saturating_sub(self.standing_acked.len() as u64)
    }
}

/// The inbox at `now`, by the alert rules `rules` (`[alerts]`).
pub fn inbox(store: &Store, rules: &Rules, now: Timestamp) -> Result<Inbox, Error> {
    let fail = fail(store);
    let acks: HashMap<String, Ack> = store
        .acks(now, false)
        .map_err(&fail)?
        .into_iter()
        .map(|a| (a.company_id.clone(), a))
        .collect();
    let mut portfolios = Vec::new();
    for latest in store.latest_finished_runs().map_err(&fail)? {
        let run = store.run_info(latest.run_id).map_err(&fail)?;
        let digest = store
            .alert_digest(run.id, rules, Verdicts::Recorded)
            .map_err(&fail)?;
        let read = |set| {
            store
                .alerts_in(run.id, set, &digest.columns, LISTED_AT_MOST)
                .map_err(&fail)
        };
        let (mut open, mut acked_since) = (Vec::new(), Vec::new());
        for line in read(AlertSet::Listed)? {
            match acks.get(&line.company_id) {
                Some(ack) => acked_since.push((line, ack.clone())),
                None => open.push(line),
            }
        }
        let acked = read(AlertSet::Acked)?
            .into_iter()
            .map(|line| {
                let ack = acks.get(&line.company_id).cloned();
                (line, ack)
            })
            .collect();
        let (mut standing, mut standing_acked) = (Vec::new(), Vec::new());
        for line in read(AlertSet::Standing)? {
            match acks.get(&line.company_id) {
                Some(ack) => standing_acked.push((line, ack.clone())),
                None => standing.push(line),
            }
        }
        portfolios.push(PortfolioAlerts {
            run,
            digest,
            open,
            acked_since,
            acked,
            standing_acked,
            standing,
        });
    }
    Ok(Inbox { portfolios })
}

/// The review queue ([`review::queue`]).
pub fn review_queue(store: &Store) -> Result<Queue, Error> {
    review::queue(store)
}

/// A company's page.
#[derive(Debug, Clone)]
pub struct CompanyPage {
    pub company: CompanySummary,
    pub latest: Option<LatestRating>,
    /// Its colors, oldest first (`color_periods`).
    pub periods: Vec<ColorPeriod>,
    pub gone: Option<Disappearance>,
    /// The rows that hold it in each portfolio's latest finished run.
    pub held: Vec<Holding>,
    /// Its registry ids: (registry, id).
    pub external_ids: Vec<(String, String)>,
    /// Its acknowledgements, in force or ended, newest first, with who made them.
    pub acks: Vec<Ack>,
    /// The decisions on the refs that hold it, and those accepting it, in force or ended,
    /// newest first.
    pub decisions: Vec<DecisionRecord>,
}

impl CompanyPage {
    /// Since when the company holds its current color: the start of its open period, as
    /// `color_periods` has it (never the service's last change date, which also moves
    /// when a recalculation keeps the color).
    pub fn color_since(&self) -> Option<&str> {
        self.periods
            .iter()
            .rev()
            .find(|p| p.valid_to.is_none())
            .map(|p| p.valid_from.as_str())
    }
}

/// The page of the company with this id; `None` when the database does not know it.
pub fn company(
    store: &Store,
    company_id: &str,
    now: Timestamp,
) -> Result<Option<CompanyPage>, Error> {
    let fail = fail(store);
    let Some(company) = store.company_by_id(company_id).map_err(&fail)? else {
        return Ok(None);
    };
    let id = company.company_id.clone();
    let held = store
        .holdings(&[id.as_str()])
        .map_err(&fail)?
        .remove(&id)
        .unwrap_or_default();
    let refs: Vec<&str> = held.iter().filter_map(|h| h.reference.as_deref()).collect();
    let decisions = store.decision_history(&refs, &id).map_err(&fail)?;
    let acks = store.company_acks(&id, now).map_err(&fail)?;
    Ok(Some(CompanyPage {
        latest: store.latest_rating(&id).map_err(&fail)?,
        periods: store.color_periods(&id).map_err(&fail)?,
        gone: store.disappearance(&id).map_err(&fail)?,
        external_ids: store.external_ids(&id).map_err(&fail)?,
        held,
        acks,
        decisions,
        company,
    }))
}

/// A portfolio's page.
#[derive(Debug, Clone)]
pub struct PortfolioPage {
    pub name: String,
    /// Its latest run, whatever its state: one going, interrupted or failed shows here.
    pub latest: RunInfo,
    /// Its latest finished run, which the other figures are of.
    pub finished: Option<RunInfo>,
    /// Rated rows by color over its finished runs, oldest first ([`TREND_RUNS`] of them).
    pub trend: Vec<RunColors>,
    /// The finished run's alerts, with its figures (at risk, came into red and black, rows
    /// not screened) as the summary and the trend say them.
    pub digest: Option<AlertDigest>,
    /// The API calls of every run started this month (UTC), all portfolios together: what
    /// the account's quota counts.
    pub calls_this_month: u64,
    /// The finished run's rows not rated, by status.
    pub unmonitored_by_status: BTreeMap<String, u64>,
    /// Those rows, with why, in the file's order, at most [`UNMONITORED_AT_MOST`].
    pub unmonitored: Vec<ResultRow>,
}

/// The page of portfolio `name`; `None` when it has no run.
pub fn portfolio(
    store: &Store,
    rules: &Rules,
    name: &str,
    now: Timestamp,
) -> Result<Option<PortfolioPage>, Error> {
    let fail = fail(store);
    let (Some(latest), finished) = store.portfolio_runs(name).map_err(&fail)? else {
        return Ok(None);
    };
    let mut page = PortfolioPage {
        name: name.to_string(),
        latest,
        finished: None,
        trend: Vec::new(),
        digest: None,
        calls_this_month: store
            .calls_since(&time_text(month_start(now)))
            .map_err(&fail)?,
        unmonitored_by_status: BTreeMap::new(),
        unmonitored: Vec::new(),
    };
    if let Some(run) = finished {
        page.trend = store.color_trend(run.id, TREND_RUNS).map_err(&fail)?;
        // The figures every channel says, the trend's own: the page never contradicts it.
        page.digest = Some(AlertDigest {
            figures: Some(store.figures(run.id, rules).map_err(&fail)?),
            ..store
                .alert_digest(run.id, rules, Verdicts::Recorded)
                .map_err(&fail)?
        });
        for (status, n) in &run.by_status {
            if *status != RowStatus::Rated && *n > 0 {
                page.unmonitored_by_status
                    .insert(status.as_str().to_string(), *n);
            }
        }
        let unmonitored = &mut page.unmonitored;
        store
            .for_each_unrated(run.id, |row| {
                if row.status != RowStatus::Rated && unmonitored.len() < UNMONITORED_AT_MOST {
                    unmonitored.push(row);
                }
                Ok::<_, Error>(())
            })
            .map_err(&fail)??;
        page.finished = Some(run);
    }
    Ok(Some(page))
}

/// The portfolios that have a run, by name.
pub fn portfolios(store: &Store) -> Result<Vec<String>, Error> {
    store.portfolios().map_err(fail(store))
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Found {
    pub query: String,
    /// What the query was taken as: `company id`, `registry id`, `ref`, `name`.
    pub by: &'static str,
    /// The companies, each with the rows that hold it; at most [`FOUND_AT_MOST`].
    pub companies: Vec<(CompanySummary, Vec<Holding>)>,
    /// Companies found beyond those listed.
    pub more: usize,
    /// The rows of the latest finished runs that are not screened (unresolved, ambiguous,
    /// invalid, ignored, failed) with this ref, or else whose name holds the query: a
    /// customer with no company is found too, with why. At most [`FOUND_AT_MOST`].
    pub unscreened: Vec<Unscreened>,
}

/// A row of a portfolio's latest finished run that no company is rated for.
#[derive(Debug, Clone)]
pub struct Unscreened {
    pub portfolio: String,
    pub run_id: i64,
    /// Its status and error say why.
    pub row: ResultRow,
}

impl Unscreened {
    /// Whether the review page shows it: a row that needs a person, or that one left
    /// alone (a failed row is screened again by the next run).
    pub fn in_review(&self) -> bool {
        matches!(
            self.row.status,
            RowStatus::Ambiguous | RowStatus::Unresolved | RowStatus::Invalid | RowStatus::Ignored
        )
    }
}

/// The companies `query` names: a company id, a registry id (a SIREN), a ref as the
/// portfolios hold it, or part of a name; the first of these that finds any.
pub fn search(store: &Store, query: &str) -> Result<Found, Error> {
    let fail = fail(store);
    let query = query.trim();
    let mut found = Found {
        query: query.to_string(),
        by: "",
        companies: Vec::new(),
        more: 0,
        unscreened: Vec::new(),
    };
    if query.is_empty() {
        return Ok(found);
    }
    found.unscreened = unscreened(store, query)?;
    let (by, mut companies) = if uuid::Uuid::parse_str(query).is_ok() {
        ("company id", store.find_companies(query).map_err(&fail)?)
    } else {
        let by_id = store.companies_by_external_id(query).map_err(&fail)?;
        if !by_id.is_empty() {
            ("registry id", by_id)
        } else {
            let by_ref = store.companies_by_ref(query).map_err(&fail)?;
            if by_ref.is_empty() {
                ("name", store.find_companies(query).map_err(&fail)?)
            } else {
                ("ref", by_ref)
            }
        }
    };
    found.by = by;
    found.more = companies.len().saturating_sub(FOUND_AT_MOST);
    companies.truncate(FOUND_AT_MOST);
    let ids: Vec<&str> = companies.iter().map(|c| c.company_id.as_str()).collect();
    let mut held = store.holdings(&ids).map_err(&fail)?;
    found.companies = companies
        .into_iter()
        .map(|c| {
            let rows = held.remove(&c.company_id).unwrap_or_default();
            (c, rows)
        })
        .collect();
    Ok(found)
}

/// The rows of the latest finished runs not screened whose ref is `query`, or, when none
/// has it, whose name holds it (case, accents and punctuation ignored): in portfolio and
/// line order, at most [`FOUND_AT_MOST`]. One pass over each run's rows not rated.
fn unscreened(store: &Store, query: &str) -> Result<Vec<Unscreened>, Error> {
    let fail = fail(store);
    let needle = normalize_name(query);
    let (mut by_ref, mut by_name) = (Vec::new(), Vec::new());
    for latest in store.latest_finished_runs().map_err(&fail)? {
        store
            .for_each_unrated(latest.run_id, |row| {
                let found = |row| Unscreened {
                    portfolio: latest.portfolio.clone(),
                    run_id: latest.run_id,
                    row,
                };
                if row.reference.as_deref().map(str::trim) == Some(query) {
                    by_ref.push(found(row));
                } else if by_ref.is_empty()
                    && by_name.len() < FOUND_AT_MOST
                    && !needle.is_empty()
                    && row
                        .name
                        .as_deref()
                        .is_some_and(|n| normalize_name(n).contains(&needle))
                {
                    by_name.push(found(row));
                }
                Ok::<_, Error>(())
            })
            .map_err(&fail)??;
    }
    let mut rows = if by_ref.is_empty() { by_name } else { by_ref };
    rows.truncate(FOUND_AT_MOST);
    Ok(rows)
}
