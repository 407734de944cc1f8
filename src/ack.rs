//! Acknowledging companies' alerts, the same whoever asks (`ratewatch ack`, the inbox page
//! of `ratewatch serve`): each company named as a person names it, acknowledged at its
//! latest color, so it leaves the summary until that color changes or `until` passes; and
//! withdrawing an acknowledgement (`ratewatch unack`, the company page). Each is recorded
//! with who made it, and kept when it ends.

use jiff::Timestamp;

use crate::error::Error;
use crate::model::Color;
use crate::store::{CompanySummary, NewAck, Store, StoreError, time_text};
use crate::text::printable;

/// An acknowledgement recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acknowledged {
    pub company: CompanySummary,
    /// The color it was acknowledged at: its latest.
    pub color: Color,
    /// When it ends on its own, as stored.
    pub until: Option<String>,
}

impl Acknowledged {
    /// `Zhao Robotique: acknowledged at red (until 2026-12-31T00:00:00Z); it leaves the
    /// summary until its color changes.`
    pub fn text(&self) -> String {
        let until = self
            .until
            .as_ref()
            .map(|u| format!(" (until {u})"))
            .unwrap_or_default();
        format!(
            "{}: acknowledged at {}{until}; it leaves the summary until its color changes.",
            name_of(&self.company),
            self.color
        )
    }
}

/// What became of a request naming several companies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<T> {
    /// Done for each company, in the order named.
    Done(Vec<T>),
    /// These matched no company: nothing was recorded.
    NoMatch(Vec<String>),
}

/// An acknowledgement withdrawn, or the company had none in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawn {
    pub company: CompanySummary,
    /// It had an acknowledgement in force, now ended.
    pub had_one: bool,
}

impl Withdrawn {
    pub fn text(&self) -> String {
        let name = name_of(&self.company);
        if self.had_one {
            format!("{name}: acknowledgement withdrawn; its alerts are listed again.")
        } else {
            format!("{name}: no acknowledgement in force; nothing changed.")
        }
    }
}

fn name_of(company: &CompanySummary) -> String {
    printable(company.name.as_deref().unwrap_or(&company.company_id))
}

/// A company found, with the reference it was named by, if any.
type Found = (CompanySummary, Option<String>);

fn fail(store: &Store) -> impl Fn(StoreError) -> Error + '_ {
    move |source| Error::Store {
        path: store.path().to_path_buf(),
        source,
    }
}

/// Each company as `wanted` names it (its id, a reference, or part of its name; see
/// `Store::find_companies`), with the reference it was named by, if any; a company named
/// twice is taken once. Those that match none, or an error naming the companies several
/// match (to choose from).
fn find(store: &Store, wanted: &[&str]) -> Result<Result<Vec<Found>, Vec<String>>, Error> {
    let fail = fail(store);
    let mut found: Vec<Found> = Vec::new();
    let mut unknown = Vec::new();
    for wanted in wanted {
        let wanted = wanted.trim();
        if wanted.is_empty() {
            return Err(Error::Config(
                "COMPANY is empty: give a company id, your reference or part of the name".into(),
            ));
        }
        let company = match store.find_companies(wanted).map_err(&fail)?.as_slice() {
            [one] => one.clone(),
            [] => {
                unknown.push(wanted.to_string());
                continue;
            }
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|c| {
                        let name = printable(c.name.as_deref().unwrap_or(""));
                        format!("{} {name}", c.company_id)
                    })
                    .collect();
                return Err(Error::Config(format!(
                    "{} companies match {wanted:?}: give the company id of the one you mean: {}",
                    several.len(),
                    names.join("; ")
                )));
            }
        };
        if found
            .iter()
            .any(|(c, _)| c.company_id == company.company_id)
        {
            continue;
        }
        let by_ref = !store.companies_by_ref(wanted).map_err(&fail)?.is_empty();
        found.push((company, by_ref.then(|| wanted.to_string())));
    }
    Ok(if unknown.is_empty() {
        Ok(found)
    } else {
        Err(unknown)
    })
}

/// Acknowledges the companies `wanted` names at their latest colors, with a `note` and an
/// optional end, as made `by` someone: all of them in one write, or none. Nothing is
/// recorded when one matches no company ([`Outcome::NoMatch`]), when one matches several,
/// or when one has no rating yet (both errors).
pub fn acknowledge(
    store: &mut Store,
    wanted: &[&str],
    until: Option<Timestamp>,
    note: Option<&str>,
    by: &str,
) -> Result<Outcome<Acknowledged>, Error> {
    let found = match find(store, wanted)? {
        Ok(found) => found,
        Err(unknown) => return Ok(Outcome::NoMatch(unknown)),
    };
    let until = until.map(time_text);
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    let acks: Vec<NewAck<'_>> = found
        .iter()
        .map(|(company, reference)| NewAck {
            company_id: &company.company_id,
            reference: reference.as_deref(),
            until: until.as_deref(),
            note,
            by,
        })
        .collect();
    let colors = store.acknowledge(&acks).map_err(fail(store))?;
    let mut done = Vec::new();
    for ((company, reference), color) in found.into_iter().zip(colors) {
        let Some(color) = color else {
            let named = reference.unwrap_or_else(|| company.company_id.clone());
            return Err(Error::Config(format!(
                "{named}: the company has no rating yet, so there is nothing to acknowledge (nothing was recorded)"
            )));
        };
        done.push(Acknowledged {
            company,
            // The color as the database holds it: printable, whatever an older version
            // stored.
            color: Color::parse(&color),
            until: until.clone(),
        });
    }
    Ok(Outcome::Done(done))
}

/// Withdraws the acknowledgement in force of each company `wanted` names, as done `by`
/// someone, for `why`: its alerts are listed again. Nothing is changed when one matches no
/// company ([`Outcome::NoMatch`]) or several (an error).
pub fn withdraw(
    store: &mut Store,
    wanted: &[&str],
    by: &str,
    why: Option<&str>,
) -> Result<Outcome<Withdrawn>, Error> {
    let found = match find(store, wanted)? {
        Ok(found) => found,
        Err(unknown) => return Ok(Outcome::NoMatch(unknown)),
    };
    let why = why.map(str::trim).filter(|n| !n.is_empty());
    let ids: Vec<&str> = found.iter().map(|(c, _)| c.company_id.as_str()).collect();
    let had = store.withdraw_acks(&ids, by, why).map_err(fail(store))?;
    Ok(Outcome::Done(
        found
            .into_iter()
            .zip(had)
            .map(|((company, _), had_one)| Withdrawn { company, had_one })
            .collect(),
    ))
}
