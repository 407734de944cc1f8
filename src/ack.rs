//! Acknowledging a company's alert, the same whoever asks (`ratewatch ack`, the inbox page
//! of `ratewatch serve`): the company named as a person names it, acknowledged at its
//! latest color, so it leaves the summary until that color changes or `until` passes.

use jiff::Timestamp;

use crate::error::Error;
use crate::model::Color;
use crate::store::{CompanySummary, Store, StoreError, time_text};
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
        let name = printable(
            self.company
                .name
                .as_deref()
                .unwrap_or(&self.company.company_id),
        );
        let until = self
            .until
            .as_ref()
            .map(|u| format!(" (until {u})"))
            .unwrap_or_default();
        format!(
            "{name}: acknowledged at {}{until}; it leaves the summary until its color changes.",
            self.color
        )
    }
}

/// Acknowledges the company `wanted` names (its id, a reference, or part of its name; see
/// `Store::find_companies`) at its latest color, with a `note` and an optional end. `None`
/// when no company matches; an error when several do (they are named, to choose from) or
/// when the company has no rating yet.
pub fn acknowledge(
    store: &mut Store,
    wanted: &str,
    until: Option<Timestamp>,
    note: Option<&str>,
) -> Result<Option<Acknowledged>, Error> {
    let fail = |source: StoreError| Error::Store {
        path: store.path().to_path_buf(),
        source,
    };
    let wanted = wanted.trim();
    if wanted.is_empty() {
        return Err(Error::Config(
            "COMPANY is empty: give a company id, your reference or part of the name".into(),
        ));
    }
    let found = store.find_companies(wanted).map_err(fail)?;
    let company = match found.as_slice() {
        [one] => one.clone(),
        [] => return Ok(None),
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
    let by_ref = !store.companies_by_ref(wanted).map_err(fail)?.is_empty();
    let until = until.map(time_text);
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    let path = store.path().to_path_buf();
    let color = store
        .acknowledge(
            &company.company_id,
            by_ref.then_some(wanted),
            until.as_deref(),
            note,
        )
        .map_err(|source| Error::Store { path, source })?;
    let Some(color) = color else {
        return Err(Error::Config(format!(
            "{wanted}: the company has no rating yet, so there is nothing to acknowledge"
        )));
    };
    Ok(Some(Acknowledged {
        company,
        // The color as the database holds it: printable, whatever an older version stored.
        color: Color::parse(&color),
        until,
    }))
}
