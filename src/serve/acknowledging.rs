//! The acknowledgement forms: the inbox's (one row, or every row ticked, in one POST) and
//! the company page's (acknowledge, withdraw), through the use cases `ratewatch ack` and
//! `unack` call ([`crate::ack`]), each made by the person signed in.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;

use super::views::{back_to, changing, csrf_refused};
use super::{Person, Shared};
use crate::ack::{self, Outcome};
use crate::error::Error;
use crate::when::{Bound, parse_time};

/// The form that acknowledges alerts: one company (a row's own form) or several (the rows
/// ticked in the inbox), with one note and end for all.
#[derive(Debug, Default)]
pub struct AckForm {
    csrf: String,
    companies: Vec<String>,
    note: String,
    until: String,
    back: String,
}

impl AckForm {
    /// Read from the form's body, where `company` may come many times (which the
    /// extractor of one value per field cannot take).
    fn read(body: &[u8]) -> AckForm {
        let mut form = AckForm::default();
        for (name, value) in url::form_urlencoded::parse(body) {
            let value = value.into_owned();
            match name.as_ref() {
                "csrf" => form.csrf = value,
                "company" if !value.trim().is_empty() => form.companies.push(value),
                "note" => form.note = value,
                "until" => form.until = value,
                "back" => form.back = value,
                _ => {}
            }
        }
        form
    }
}

/// Acknowledges the alerts of the companies the form names, as `ratewatch ack` does, made
/// by the person signed in: all in one write, or none.
pub async fn ack(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    body: Bytes,
) -> Response {
    let form = AckForm::read(&body);
    if let Some(refused) = csrf_refused(&app, &form.csrf) {
        return refused;
    }
    let back = form.back.clone();
    let outcome = changing(&app, move |store| {
        if form.companies.is_empty() {
            return Err(Error::Config(
                "Nothing acknowledged: tick the rows to acknowledge first.".into(),
            ));
        }
        let until = match form.until.trim() {
            "" => None,
            until => Some(parse_time("until", until, Bound::From)?),
        };
        let wanted: Vec<&str> = form.companies.iter().map(String::as_str).collect();
        match ack::acknowledge(store, &wanted, until, Some(&form.note), person.name())? {
            Outcome::Done(done) => Ok(acknowledged_text(&done)),
            Outcome::NoMatch(unknown) => Err(Error::Config(format!(
                "No company matches {}; nothing was acknowledged.",
                unknown
                    .iter()
                    .map(|u| format!("{:?}", u.trim()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    })
    .await;
    back_to(&app, &back, outcome)
}

/// What an acknowledgement of the page says done: the company's line, or for several a
/// count and the first few names.
fn acknowledged_text(done: &[ack::Acknowledged]) -> String {
    const NAMED: usize = 5;
    if let [one] = done {
        return one.text();
    }
    let names: Vec<String> = done
        .iter()
        .take(NAMED)
        .map(|d| {
            let name = d.company.name.as_deref().unwrap_or(&d.company.company_id);
            format!("{name} ({})", d.color)
        })
        .collect();
    let more = match done.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{} companies acknowledged: {}{more}; they leave the summary until their color changes.",
        done.len(),
        names.join(", ")
    )
}

#[derive(Deserialize)]
pub struct UnackForm {
    #[serde(default)]
    csrf: String,
    company: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    back: String,
}

/// Withdraws a company's acknowledgement, as `ratewatch unack` does, by the person signed
/// in.
pub async fn unack(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    Form(form): Form<UnackForm>,
) -> Response {
    if let Some(refused) = csrf_refused(&app, &form.csrf) {
        return refused;
    }
    let back = form.back.clone();
    let outcome = changing(&app, move |store| {
        match ack::withdraw(store, &[&form.company], person.name(), Some(&form.note))? {
            Outcome::Done(done) => Ok(done.iter().map(|d| d.text()).collect::<Vec<_>>().join(" ")),
            Outcome::NoMatch(_) => Err(Error::Config(format!(
                "No company matches {:?}.",
                form.company.trim()
            ))),
        }
    })
    .await;
    back_to(&app, &back, outcome)
}
