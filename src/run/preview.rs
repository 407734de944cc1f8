//! `screen --dry-run`: what a run of the request would cost, counted without a call and
//! without writing anything, from the file and what the database's cache knows. It needs
//! no service: the settings and the file are enough.

use std::path::Path;

use super::{Request, default_country, header_only, options_of};
use crate::error::Error;
use crate::settings::config::Settings;
use crate::stages::check::Lookups;
use crate::stages::decide::{Decisions, Found, Need};
use crate::stages::input::{self, Portfolio};
use crate::stages::resolve::Query;
use crate::store::{Store, StoreError};

/// What a run would cost, counted before any call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    pub rows: u64,
    /// Rows the local checks refuse (no call).
    pub invalid: u64,
    /// Rows answered by the cache (a fresh search), by a decision of `review`, or by their
    /// own `company_id`.
    pub answered: u64,
    /// Rows whose search the run would make.
    pub searching: u64,
    /// Calls by endpoint, the lookup lists included: the searches and the ratings of the
    /// companies already known are exact.
    pub calls: Vec<(&'static str, u64)>,
    /// Ratings of the companies the searches will find: at most one per search (two
    /// searches may find one company, rated once).
    pub ratings_after_searches: u64,
    /// Loosened name searches (not in `calls`): made only for a row whose own searches
    /// find no company, each then offering candidates, never a rating. At most.
    pub loosened: u64,
    /// Companies known whose latest rating is younger than its color's refresh age: used
    /// without a call.
    pub reused: u64,
    /// Rows whose identifier fails its registry's rules (a typo?), and the first few of
    /// them: (line, what looks wrong).
    pub suspicious: u64,
    pub examples: Vec<(u64, String)>,
    /// Whether the lookup lists were kept from an earlier run (else the rows are checked
    /// against the spec's countries and registries, any registry in any of them).
    pub lookups_kept: bool,
    /// What reading the rows noticed, as a run says it (defaulted countries, records with
    /// more fields than the header).
    pub notes: Vec<String>,
}

impl Preview {
    /// The calls the run would make; exact when no search is needed, else at most.
    pub fn total(&self) -> u64 {
        self.calls.iter().map(|(_, n)| n).sum::<u64>() + self.ratings_after_searches + self.loosened
    }
}

/// Counts what screening the request's portfolio would cost, without a call and without
/// writing anything: the file is read and checked row by row, duplicates collapse, and
/// the database (opened read-only, if there is one) answers what its cache knows.
pub fn preview(request: &Request) -> Result<Preview, Error> {
    preview_of(
        &request.portfolio,
        &request.settings,
        request.refresh_resolutions,
    )
}

/// [`preview`] of a file with these settings: no service is needed to count.
pub fn preview_of(
    path: &Path,
    settings: &Settings,
    refresh_resolutions: bool,
) -> Result<Preview, Error> {
    let db = &settings.db.value;
    input::survey(path)?;
    let mut reader = Portfolio::open(path, &settings.columns)?;
    let db_error = |source: StoreError| Error::Store {
        path: db.clone(),
        source,
    };
    // A database of an earlier schema is read as none: the counts are then those of a
    // first run, which the screening's upgrade may lower.
    let store = match db.is_file() {
        true => match Store::open_read_only(db) {
            Ok(store) => Some(store),
            Err(StoreError::Older { .. }) => {
                tracing::warn!(
                    "{} is from an earlier ratewatch: counting as if it were empty; the next screening upgrades it",
                    db.display()
                );
                None
            }
            Err(e) => return Err(db_error(e)),
        },
        false => None,
    };
    // Every count from one state of the cache, however long the file.
    let _snapshot = store
        .as_ref()
        .map(Store::snapshot)
        .transpose()
        .map_err(db_error)?;
    let (countries, services) = match &store {
        Some(store) => store.load_lookups().map_err(db_error)?,
        None => (Vec::new(), Vec::new()),
    };
    let lookups_kept = !countries.is_empty();
    let lookups = match lookups_kept {
        true => Lookups::new(&countries, &services),
        false => Lookups::of_the_spec(),
    };
    reader.set_default_country(default_country(settings, &lookups)?);
    let reading = reader.reading();
    let now = jiff::Timestamp::now();
    let max_age = options_of(settings, refresh_resolutions, Decisions::default());
    // Decisions of `review`, on a database that has them: a decided row costs no search.
    let decisions = match &store {
        Some(store) => Decisions::new(store.decisions().map_err(db_error)?),
        _ => Decisions::default(),
    };
    let refresh = refresh_resolutions;
    // The cache as the run asks it: its answers go by the same rules.
    let mut cached = |query: &Query| match &store {
        Some(store) if !refresh => store
            .cached_answer(&query.cache_key(), query.identifier())
            .map(|hit| {
                hit.and_then(|hit| Found::cached(hit, query, max_age.resolution_max_age, now))
            }),
        _ => Ok(None),
    };
    let mut preview = Preview {
        lookups_kept,
        ..Preview::default()
    };
    // Searches by a hash of their key: a million rows' keys would not fit the memory a run
    // takes, and a collision of 64-bit hashes among them is not to be expected.
    let mut searches: std::collections::HashMap<u64, &'static str> = Default::default();
    let mut companies: std::collections::HashSet<uuid::Uuid> = Default::default();
    let mut loosened: std::collections::HashSet<u64> = Default::default();
    while let Some(row) = reader.next_row()? {
        preview.rows += 1;
        // What the run would do with the row, and what that costs.
        let need = Need::of(&row, &lookups, &decisions);
        match &need {
            // Refused, unless a review ignored it: then answered by the decision, as a run
            // says.
            Need::Invalid { ignored: None, .. } => {
                preview.invalid += 1;
                continue;
            }
            Need::Searches(steps) => {
                if let Some(hint) = steps.iter().find_map(|s| s.query.rule_problem()) {
                    preview.suspicious += 1;
                    if preview.examples.len() < 5 {
                        preview.examples.push((row.line, hint));
                    }
                }
            }
            _ => {}
        }
        let cost = need.cost(&mut cached).map_err(db_error)?;
        companies.extend(cost.company);
        if cost.searches.is_empty() && cost.loosened.is_empty() {
            preview.answered += 1;
        } else {
            preview.searching += 1;
        }
        for (key, endpoint) in cost.searches {
            searches.insert(key_hash(&key), endpoint);
        }
        loosened.extend(cost.loosened.iter().map(|key| key_hash(key)));
    }
    // A loosened search that is also a row's own is counted once, as that row's.
    loosened.retain(|key| !searches.contains_key(key));
    preview.loosened = loosened.len() as u64;
    // As the run would: a file with nothing to screen is not a cheap night.
    if preview.rows == 0 {
        return Err(header_only(path));
    }
    preview.notes = reading.notes();
    let mut ratings = 0;
    for company in companies {
        // As the run would decide (see `Writer::reuse_rating`).
        let reused = match &store {
            Some(store) if max_age.refresh.any() => store
                .latest_seen(company)
                .map_err(db_error)?
                .is_some_and(|seen| {
                    max_age
                        .refresh
                        .reuses(&seen.color, now.duration_since(seen.seen_at))
                }),
            _ => false,
        };
        preview.reused += u64::from(reused);
        ratings += u64::from(!reused);
    }
    let mut by_endpoint: std::collections::BTreeMap<&'static str, u64> = Default::default();
    for endpoint in searches.values() {
        *by_endpoint.entry(endpoint).or_default() += 1;
    }
    by_endpoint.insert("countries", 1);
    by_endpoint.insert("services", 1);
    let rating = settings.endpoint.value.name();
    if ratings > 0 {
        by_endpoint.insert(rating, ratings);
    }
    preview.ratings_after_searches = searches.len() as u64;
    preview.calls = by_endpoint.into_iter().collect();
    Ok(preview)
}

fn key_hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}
