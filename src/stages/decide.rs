//! What a row needs, decided once before any call: refused by the local checks, rated as
//! the company it names, or its searches in order with what review decided for each. A
//! run takes it step by step and its dry run counts its calls from it, so the two cannot
//! drift apart. Here too: review's decisions as a run applies them, and the errors a
//! decided row is reported with (`review` reads them back).

use std::collections::HashMap;
use std::sync::Arc;

use uuid::Uuid;

use crate::model::{CachedResolution, Candidate, Decision, InputRow, SearchOutcome, Verdict};
use crate::stages::check::{self, Lookups, Target};
use crate::stages::resolve::{self, Query};

/// What a row needs, decided from the row, the lookup lists and review's decisions.
#[derive(Debug)]
pub enum Need<'d> {
    /// Refused by the local checks: no call. `ignored`: review left it alone as it stands.
    Invalid {
        reason: String,
        ignored: Option<&'d Decision>,
    },
    /// Its own `company_id`: rated without a search.
    Known(Uuid),
    /// Its searches in order, at least one: each taken only when the one before found no
    /// company.
    Searches(Vec<Step<'d>>),
}

/// One search of a row's, and what a run does with it.
#[derive(Debug)]
pub struct Step<'d> {
    pub query: Query,
    pub action: Action<'d>,
    /// A loosened name search: what it leaves out of the row's own search. Its finds are
    /// candidates, never the row's company.
    pub relaxed: Option<String>,
}

#[derive(Debug)]
pub enum Action<'d> {
    /// Passed over without a call (why): its identifier breaks its registry's rules and
    /// another search follows.
    Skip(String),
    /// Review took this company for the search: rated without a search.
    Accept(Uuid, &'d Decision),
    /// Review left the row alone: no call.
    Ignore(&'d Decision),
    /// Review said no candidate is the company: no call, the next search follows.
    Reject(&'d Decision),
    /// Searched: the cache answers if it can, else the service.
    Search,
}

impl<'d> Need<'d> {
    pub fn of(row: &InputRow, lookups: &Lookups, decisions: &'d Decisions) -> Need<'d> {
        let targets = match check::targets(row, lookups) {
            Ok(targets) => targets,
            Err(reason) => {
                return Need::Invalid {
                    reason,
                    ignored: decisions.ignored_invalid(row),
                };
            }
        };
        if let [Target::Known(company)] = targets[..] {
            return Need::Known(company);
        }
        let reference = row.reference.as_deref();
        let steps = resolve::plan(targets)
            .into_iter()
            .map(|step| {
                // A decision stands even on a search its rules pass over. A loosened search
                // is the row's own loosened: decisions are made on the row's own searches.
                let decided = match step.relaxed {
                    None => decisions.find(reference, &step.query),
                    Some(_) => None,
                };
                let action = match (decided, step.skip) {
                    (Some(decision), _) => match decision.verdict {
                        Verdict::Accept(company) => Action::Accept(company, decision),
                        Verdict::Ignore => Action::Ignore(decision),
                        Verdict::Reject => Action::Reject(decision),
                    },
                    (None, Some(why)) => Action::Skip(why),
                    (None, None) => Action::Search,
                };
                Step {
                    query: step.query,
                    action,
                    relaxed: step.relaxed,
                }
            })
            .collect();
        Need::Searches(steps)
    }

    /// What the row costs, its steps taken as a run takes them, before any call: `cached`
    /// answers a search as the run's cache would (`None`: the service is asked).
    pub fn cost<E>(
        &self,
        mut cached: impl FnMut(&Query) -> Result<Option<Found>, E>,
    ) -> Result<Cost, E> {
        let mut cost = Cost::default();
        let steps = match self {
            Need::Invalid { .. } => return Ok(cost),
            Need::Known(company) => {
                cost.company = Some(*company);
                return Ok(cost);
            }
            Need::Searches(steps) => steps,
        };
        // After a rejection, no loosened search: it would offer the rejected again.
        let mut rejected = false;
        for step in steps {
            let found = match &step.action {
                _ if rejected && step.relaxed.is_some() => continue,
                Action::Skip(_) => continue,
                Action::Reject(_) => {
                    rejected = true;
                    continue;
                }
                Action::Ignore(_) => break,
                Action::Accept(company, _) => {
                    cost.company = Some(*company);
                    break;
                }
                Action::Search => match cached(&step.query)? {
                    Some(found) => found,
                    None => {
                        let key = step.query.cache_key();
                        match step.relaxed {
                            None => cost.searches.push((key, step.query.endpoint())),
                            Some(_) => cost.loosened.push(key),
                        }
                        continue;
                    }
                },
            };
            match found {
                Found::Unresolved { .. } => continue,
                // A loosened search's company is a candidate: not rated.
                Found::Resolved { company, .. } if step.relaxed.is_none() => {
                    cost.company = Some(company)
                }
                Found::Resolved { .. } | Found::Ambiguous(_) => {}
            }
            break;
        }
        Ok(cost)
    }
}

/// What a row costs before any call, as a dry run counts it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// The company it is rated as, known without a search of its own: given, accepted by
    /// review, or cached (after a search the service is asked, at most).
    pub company: Option<Uuid>,
    /// The searches the service is asked, by cache key and endpoint. Each is taken to find
    /// no company, so the searches after it count too: at most, then.
    pub searches: Vec<(String, &'static str)>,
    /// The loosened name searches asked after them, by cache key: made only if the row's
    /// own find nothing, and never followed by a rating.
    pub loosened: Vec<String>,
}

/// A search's answer, as the row's next step needs it.
#[derive(Debug, Clone)]
pub enum Found {
    /// `cached`: from the cache, not from a search of this run. `candidate`: the company
    /// as a loosened search offers it.
    Resolved {
        company: Uuid,
        cached: bool,
        candidate: Arc<Candidate>,
    },
    Ambiguous(Arc<Vec<Candidate>>),
    /// No match: the row's next search follows. `not_found`: the service said so with a
    /// 404 in this run.
    Unresolved {
        not_found: bool,
    },
}

impl Found {
    /// A cached answer as a run takes it; `None` when it is older than `max_age`, and
    /// searched again.
    /// A cached company that does not hold the identifier its search asked for (an answer
    /// taken before answers were checked, from a proxy that mixed them up) is searched
    /// again too.
    pub fn cached(
        hit: CachedResolution,
        query: &Query,
        max_age: jiff::SignedDuration,
        now: jiff::Timestamp,
    ) -> Option<Found> {
        if now.duration_since(hit.resolved_at) > max_age {
            return None;
        }
        if let (SearchOutcome::Resolved, Some(_), Query::ById { service, id, .. }) =
            (hit.outcome, hit.company_id, query)
            && !hit.holds_exactly
            && !crate::identifiers::holds_identifier(&hit.external_ids, service, id)
        {
            return None;
        }
        Some(match hit.outcome {
            SearchOutcome::Resolved => match hit.company_id {
                Some(company) => Found::Resolved {
                    company,
                    cached: true,
                    candidate: Arc::new(hit.company.unwrap_or_else(|| Candidate {
                        id: company,
                        name: String::new(),
                        city: String::new(),
                        postcode: String::new(),
                        found_without: None,
                    })),
                },
                None => Found::Unresolved { not_found: false },
            },
            SearchOutcome::Ambiguous => Found::Ambiguous(Arc::new(hit.candidates)),
            SearchOutcome::Unresolved => Found::Unresolved { not_found: false },
        })
    }
}

/// The decisions of `ratewatch review` by the row's reference, loaded once at the start of
/// a run (they are few). A decision applies only to the search it was made for: a row whose
/// name or identifier changed asks another question.
#[derive(Debug, Clone, Default)]
pub struct Decisions(HashMap<String, Vec<Decision>>);

impl Decisions {
    pub fn new(decisions: impl IntoIterator<Item = Decision>) -> Self {
        let mut by_ref: HashMap<String, Vec<Decision>> = HashMap::new();
        for d in decisions {
            by_ref.entry(d.reference.clone()).or_default().push(d);
        }
        Decisions(by_ref)
    }

    /// The decision on a row with this reference making this search.
    pub fn find(&self, reference: Option<&str>, query: &Query) -> Option<&Decision> {
        if self.0.is_empty() {
            return None;
        }
        let made = self.0.get(reference?)?;
        let key = query.cache_key();
        made.iter().find(|d| d.search_key == key)
    }

    /// The decision to leave an invalid row alone, made for its reference and its fields
    /// as they are now ([`invalid_key`]): a row changed in the export (fixed, or wrong in
    /// another way) is not the row that was decided on. Only `ignore` is said of an
    /// invalid row: it has no search to accept or reject a company for.
    pub fn ignored_invalid(&self, row: &InputRow) -> Option<&Decision> {
        if self.0.is_empty() {
            return None;
        }
        let made = self.0.get(row.reference.as_deref()?)?;
        let key = invalid_key(row);
        made.iter()
            .find(|d| d.search_key == key && d.verdict == Verdict::Ignore)
    }
}

/// The `search_key` of a decision on an invalid row, which makes no search: `invalid|` and
/// the SHA-256, in hex, of the row's fields as read from the portfolio after its ref (country, service, id,
/// name, street number, street name, city, postcode, phone, company_id; each as byte 0x1f
/// and its text, or byte 0x1e when blank). The columns ratewatch only carries (an
/// exposure, a sales owner) are left out: they change from night to night while the row
/// stays the same. The prefix keeps it apart from every search's key.
pub fn invalid_key(row: &InputRow) -> String {
    use sha2::{Digest, Sha256};
    let mut sha = Sha256::new();
    for field in [
        &row.country,
        &row.service,
        &row.id,
        &row.name,
        &row.street_number,
        &row.street_name,
        &row.city,
        &row.postcode,
        &row.phone,
        &row.company_id,
    ] {
        match field {
            Some(text) => {
                sha.update(b"\x1f");
                sha.update(text.as_bytes());
            }
            None => sha.update(b"\x1e"),
        }
    }
    let hex: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("invalid|{hex}")
}

/// How the error of a row starts when the company a review accepted for it is unknown to
/// the service: the row needs a person again.
pub const ACCEPTED_UNKNOWN: &str = "the company accepted by review";

/// The error of a row whose every candidate a review rejected.
pub const REJECTED: &str = "none of the candidates is this company, said the review";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_row_is_decided_on_as_it_stands_whatever_it_carries() {
        let row = InputRow {
            line: 21,
            reference: Some("C-1021".into()),
            country: Some("XX".into()),
            name: Some("Acme".into()),
            ..InputRow::default()
        };
        let key = invalid_key(&row);
        assert!(key.starts_with("invalid|") && key.len() == "invalid|".len() + 64);
        let carried = InputRow {
            line: 40,
            extra: vec![("Encours".into(), "120000".into())],
            ..row.clone()
        };
        assert_eq!(invalid_key(&carried), key, "another line, another exposure");
        let renamed = InputRow {
            name: Some("Acme Ltd".into()),
            ..row.clone()
        };
        assert_ne!(invalid_key(&renamed), key);
        let moved = InputRow {
            name: None,
            city: Some("Acme".into()),
            ..row.clone()
        };
        assert_ne!(invalid_key(&moved), key, "a value in another field");

        let decided = |verdict| {
            Decisions::new([Decision {
                reference: "C-1021".into(),
                search_key: key.clone(),
                verdict,
                decided_at: crate::model::time("2026-11-21T02:00:00Z"),
                source: "command line".into(),
                by: Some("marie".into()),
                note: None,
            }])
        };
        assert!(decided(Verdict::Ignore).ignored_invalid(&row).is_some());
        assert!(decided(Verdict::Ignore).ignored_invalid(&renamed).is_none());
        assert!(decided(Verdict::Reject).ignored_invalid(&row).is_none());
        let other_ref = InputRow {
            reference: Some("C-1022".into()),
            ..row.clone()
        };
        assert!(
            decided(Verdict::Ignore)
                .ignored_invalid(&other_ref)
                .is_none()
        );
    }

    fn decision(reference: &str, search_key: String, verdict: Verdict) -> Decision {
        Decision {
            reference: reference.into(),
            search_key,
            verdict,
            decided_at: crate::model::time("2026-11-21T02:00:00Z"),
            source: "command line".into(),
            by: None,
            note: None,
        }
    }

    /// A SIREN failing its check digit, a SIRET beside it, and the name.
    fn fallback_row() -> InputRow {
        InputRow {
            line: 2,
            reference: Some("C-1".into()),
            country: Some("FR".into()),
            service: Some("SIREN".into()),
            id: Some("552100555".into()),
            name: Some("Acme".into()),
            city: Some("Lyon".into()),
            extra: vec![("SIRET".into(), "55210055400013".into())],
            ..InputRow::default()
        }
    }

    fn actions(need: &Need) -> Vec<&'static str> {
        let Need::Searches(steps) = need else {
            panic!("{need:?}")
        };
        steps
            .iter()
            .map(|s| match s.action {
                Action::Skip(_) => "skip",
                Action::Accept(..) => "accept",
                Action::Ignore(_) => "ignore",
                Action::Reject(_) => "reject",
                Action::Search => "search",
            })
            .collect()
    }

    #[test]
    fn a_row_s_searches_follow_its_identifiers_rules_and_review_s_decisions() {
        let lookups = Lookups::of_the_spec();
        let none = Decisions::default();
        let row = fallback_row();
        let need = Need::of(&row, &lookups, &none);
        assert_eq!(actions(&need), ["skip", "search", "search", "search"]);
        let Need::Searches(steps) = &need else {
            unreachable!()
        };
        assert_eq!(steps[1].query.label(), "SIRET 55210055400013");
        let keys: Vec<String> = steps.iter().map(|s| s.query.cache_key()).collect();

        // A decision on the search its rules pass over stands.
        let company = Uuid::from_u128(7);
        let decided = Decisions::new([
            decision("C-1", keys[0].clone(), Verdict::Accept(company)),
            decision("C-1", keys[1].clone(), Verdict::Reject),
        ]);
        let need = Need::of(&row, &lookups, &decided);
        assert_eq!(actions(&need), ["accept", "reject", "search", "search"]);
        // The name search loosened is searched whatever was decided: decisions are made
        // on the row's own searches.
        let on_loosened = Decisions::new([decision("C-1", keys[3].clone(), Verdict::Ignore)]);
        assert_eq!(
            actions(&Need::of(&row, &lookups, &on_loosened)),
            ["skip", "search", "search", "search"]
        );
        let other = InputRow {
            reference: Some("C-2".into()),
            ..row.clone()
        };
        assert_eq!(
            actions(&Need::of(&other, &lookups, &decided)),
            ["skip", "search", "search", "search"],
            "another row's decisions"
        );

        let known = InputRow {
            company_id: Some(company.to_string()),
            ..row.clone()
        };
        assert!(matches!(Need::of(&known, &lookups, &none), Need::Known(c) if c == company));
        let broken = InputRow {
            country: Some("XX".into()),
            ..row.clone()
        };
        assert!(matches!(
            Need::of(&broken, &lookups, &none),
            Need::Invalid { ignored: None, .. }
        ));
        let ignored = Decisions::new([decision("C-1", invalid_key(&broken), Verdict::Ignore)]);
        assert!(matches!(
            Need::of(&broken, &lookups, &ignored),
            Need::Invalid {
                ignored: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn a_row_costs_the_searches_the_cache_cannot_answer_and_the_company_it_can() {
        let lookups = Lookups::of_the_spec();
        let none = Decisions::default();
        let company = Uuid::from_u128(7);
        let by_id = |key: &str| key.starts_with("id|");
        let cost = |need: &Need, answer: &dyn Fn(&str) -> Option<Found>| {
            need.cost(|q: &Query| Ok::<_, ()>(answer(&q.cache_key())))
                .unwrap()
        };
        let endpoints = |cost: Cost| {
            cost.searches
                .into_iter()
                .map(|(_, e)| e)
                .collect::<Vec<_>>()
        };
        let need = Need::of(&fallback_row(), &lookups, &none);

        // Nothing cached: every search the rules allow, each taken to find nothing, the
        // name's loosened one (without its city) apart.
        let all = cost(&need, &|_| None);
        assert_eq!(all.company, None);
        assert_eq!(all.loosened.len(), 1);
        assert!(!all.loosened[0].contains("city="), "{:?}", all.loosened);
        assert_eq!(endpoints(all), ["company_by_id", "companies_by_name"]);
        // The SIRET found no company: the name follows.
        let unresolved = cost(&need, &|key| {
            by_id(key).then_some(Found::Unresolved { not_found: false })
        });
        assert_eq!(endpoints(unresolved), ["companies_by_name"]);
        // The SIRET found its company: rated, nothing searched.
        let resolved = Found::Resolved {
            company,
            cached: true,
            candidate: Arc::new(Candidate {
                id: company,
                name: "Acme".into(),
                city: "Lyon".into(),
                postcode: "69001".into(),
                found_without: None,
            }),
        };
        assert_eq!(
            cost(&need, &|key| by_id(key).then_some(resolved.clone())),
            Cost {
                company: Some(company),
                ..Cost::default()
            }
        );
        // Several matches end the row: no rating, no search.
        assert_eq!(
            cost(&need, &|_| Some(Found::Ambiguous(Arc::default()))),
            Cost::default()
        );
        // The loosened search's company is a candidate, never rated.
        let name_only = InputRow {
            service: None,
            id: None,
            extra: vec![],
            ..fallback_row()
        };
        let need_name = Need::of(&name_only, &lookups, &none);
        let loosened = cost(&need_name, &|key| match key.contains("city=") {
            true => Some(Found::Unresolved { not_found: false }),
            false => Some(resolved.clone()),
        });
        assert_eq!(loosened, Cost::default());

        // Review's decisions cost no call; a rejection goes on to the next search.
        let Need::Searches(steps) = &need else {
            unreachable!()
        };
        let keys: Vec<String> = steps.iter().map(|s| s.query.cache_key()).collect();
        let decided = |verdict| Decisions::new([decision("C-1", keys[1].clone(), verdict)]);
        let accepted = decided(Verdict::Accept(company));
        let need = Need::of(&fallback_row(), &lookups, &accepted);
        assert_eq!(cost(&need, &|_| None).company, Some(company));
        assert!(cost(&need, &|_| None).searches.is_empty());
        let ignored = decided(Verdict::Ignore);
        let need = Need::of(&fallback_row(), &lookups, &ignored);
        assert_eq!(cost(&need, &|_| None), Cost::default());
        let rejected = decided(Verdict::Reject);
        let need = Need::of(&fallback_row(), &lookups, &rejected);
        let after_rejection = cost(&need, &|_| None);
        assert!(
            after_rejection.loosened.is_empty(),
            "no loosened search after a rejection"
        );
        assert_eq!(endpoints(after_rejection), ["companies_by_name"]);
    }

    #[test]
    fn a_cached_answer_is_taken_while_young_enough_and_no_company_goes_on() {
        let now = jiff::Timestamp::now();
        let day = jiff::SignedDuration::from_hours(24);
        let company = Uuid::from_u128(7);
        let hit = |outcome, company_id, hours| CachedResolution {
            outcome,
            company_id,
            company: None,
            candidates: vec![],
            resolved_at: now
                .checked_sub(jiff::SignedDuration::from_hours(hours))
                .unwrap(),
            holds_exactly: false,
            external_ids: vec![("SIREN".to_string(), "552100554".to_string())],
        };
        let by_name = Query::ByName(crate::model::NameQuery::default());
        let cached = |h| Found::cached(h, &by_name, day, now);
        assert!(matches!(
            cached(hit(SearchOutcome::Resolved, Some(company), 1)),
            Some(Found::Resolved { company: c, cached: true, .. }) if c == company
        ));
        assert!(cached(hit(SearchOutcome::Resolved, Some(company), 25)).is_none());
        // A company the database lost is no company: the row's next search follows.
        assert!(matches!(
            cached(hit(SearchOutcome::Resolved, None, 1)),
            Some(Found::Unresolved { not_found: false })
        ));
        assert!(matches!(
            cached(hit(SearchOutcome::Unresolved, Some(company), 1)),
            Some(Found::Unresolved { .. })
        ));
        assert!(matches!(
            cached(hit(SearchOutcome::Ambiguous, None, 1)),
            Some(Found::Ambiguous(_))
        ));
        // An identifier's company must hold the identifier: else it is searched again.
        let by_id = |id: &str| Query::ById {
            country: "FR".into(),
            service: "SIREN".into(),
            id: id.into(),
        };
        let young = || hit(SearchOutcome::Resolved, Some(company), 1);
        assert!(Found::cached(young(), &by_id("552 100 554"), day, now).is_some());
        assert!(Found::cached(young(), &by_id("552100555"), day, now).is_none());
    }
}
