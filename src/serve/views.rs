//! The pages: each handler reads its page's data through one function of
//! [`crate::pages`] on a blocking thread, or makes its change through the library's use
//! case, and lays it out with a template of `templates/`. A change answers with a redirect
//! back to the page it came from, which says what was done (or why not).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use jiff::Timestamp;
use serde::Deserialize;

use super::connections::Client;
pub use super::escape::form_value;
use super::{App, Person, Shared};
use crate::digest::{AlertDigest, AlertLine, format_amount};
use crate::error::Error;
use crate::locale::{Locale, Page};
use crate::model::{Color, Decision, Ended, ResultRow, RowStatus, RunInfo, Verdict, WEB_PAGE};
use crate::pages::{self, CompanyPage, Found, Inbox, PortfolioPage};
use crate::review::{self, Made, Queue};
use crate::store::{Store, StoreError};

const STYLE: &str = include_str!("style.css");

/// What every page has around its content: the navigation, what the last change did, and
/// what its forms need.
pub struct Chrome {
    pub title: String,
    /// The `id` of the page's `<main>`: `inbox`, `review`, `company`, `portfolio`, `search`.
    pub id: &'static str,
    pub portfolios: Vec<String>,
    pub said: Option<String>,
    pub error: Option<String>,
    pub csrf: String,
    /// Forms are shown: the server is not `--read-only`.
    pub can_change: bool,
    /// Where a form on this page sends the browser back to.
    pub back: String,
    /// The person signed in (`--users`), named on the page.
    pub person: Option<String>,
}

impl Chrome {
    /// The page of the person signed in, who is named on it.
    fn signed_in(self, person: Person) -> Chrome {
        Chrome {
            person: person.0,
            ..self
        }
    }
}

/// What a redirect after a change tells the page, signed by the server (`sig`): a page
/// shows no message a link from elsewhere wrote.
#[derive(Debug, Default, Deserialize)]
pub struct Said {
    said: Option<String>,
    error: Option<String>,
    sig: Option<String>,
}

fn chrome(
    app: &App,
    store: &Store,
    title: String,
    id: &'static str,
    back: String,
    said: Said,
) -> Chrome {
    Chrome {
        title,
        id,
        // The navigation is a convenience: a page still shows without it.
        portfolios: pages::portfolios(store).unwrap_or_default(),
        said: said.said.filter(|m| {
            app.guard
                .signed(&format!("said:{m}"), said.sig.as_deref().unwrap_or(""))
        }),
        error: said.error.filter(|m| {
            app.guard
                .signed(&format!("error:{m}"), said.sig.as_deref().unwrap_or(""))
        }),
        csrf: app.guard.csrf(),
        can_change: !app.guard.read_only(),
        back,
        person: None,
    }
}

/// A failure as a page: the database's trouble in words, never a panic.
fn failed(say: &Page, status: StatusCode, error: &Error) -> Response {
    let page = Problem {
        say: say.clone(),
        title: say.word("serve-problem").to_string(),
        message: error.to_string(),
    };
    (status, render(&page)).into_response()
}

fn render(page: &impl Template) -> Html<String> {
    Html(
        page.render()
            .unwrap_or_else(|e| format!("the page could not be made: {e}")),
    )
}

/// Runs `read` with the database opened read-only, on a blocking thread: the page's SQL
/// never holds up the server's other requests, and never a run's writes.
async fn reading<T: Send + 'static>(
    app: &Shared,
    say: &Page,
    read: impl FnOnce(&App, &Store) -> Result<T, Error> + Send + 'static,
) -> Result<T, Response> {
    let app = app.clone();
    tokio::task::spawn_blocking(move || {
        let store = Store::open_read_only(&app.db).map_err(|source| Error::Store {
            path: app.db.clone(),
            source,
        })?;
        read(&app, &store)
    })
    .await
    .map_err(|e| {
        failed(
            say,
            StatusCode::INTERNAL_SERVER_ERROR,
            &Error::Config(e.to_string()),
        )
    })?
    .map_err(|e| failed(say, StatusCode::INTERNAL_SERVER_ERROR, &e))
}

/// Runs `change` with the database opened for writing, as `ack` and `review` open it (an
/// existing one, brought up to date; each write waits its turn beside a run), on a
/// blocking thread; what it says done, or the error.
pub(super) async fn changing(
    app: &Shared,
    change: impl FnOnce(&mut Store) -> Result<String, Error> + Send + 'static,
) -> Result<String, Error> {
    let db = app.db.clone();
    tokio::task::spawn_blocking(move || {
        let fail = |source| Error::Store {
            path: db.clone(),
            source,
        };
        if !db.is_file() {
            return Err(fail(StoreError::Missing));
        }
        let mut store = Store::open(&db).map_err(fail)?;
        change(&mut store)
    })
    .await
    .map_err(|e| Error::Config(e.to_string()))?
}

/// Back to `back` (a path of this server, else the inbox), saying what was done or why not,
/// signed.
pub(super) fn back_to(app: &App, back: &str, outcome: Result<String, Error>) -> Response {
    let local = back.starts_with('/') && !back.starts_with("//") && !back.contains('\\');
    let path = if local { back } else { "/" };
    let path = path.split('#').next().unwrap_or("/");
    let (path, _) = path.split_once('?').unwrap_or((path, ""));
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    let (key, message) = match outcome {
        Ok(said) => ("said", said),
        Err(error) => ("error", error.to_string()),
    };
    query.append_pair(key, &message);
    query.append_pair("sig", &app.guard.sign(&format!("{key}:{message}")));
    Redirect::to(&format!("{path}?{}", query.finish())).into_response()
}

/// A form's CSRF token is the server's, or the change is refused.
pub(super) fn csrf_refused(app: &App, given: &str) -> Option<Response> {
    (!app.guard.csrf_matches(given)).then(|| {
        (
            StatusCode::FORBIDDEN,
            "Refused: the form's CSRF token is missing or not this server's; reload the page and send it again.",
        )
            .into_response()
    })
}

#[derive(Template)]
#[template(path = "problem.html", escape = "page")]
struct Problem {
    say: Page,
    title: String,
    message: String,
}

#[derive(Template)]
#[template(path = "inbox.html", escape = "page")]
struct InboxView {
    say: Page,
    chrome: Chrome,
    inbox: Inbox,
}

pub async fn inbox(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    Extension(say): Extension<Page>,
    Query(said): Query<Said>,
) -> Response {
    reading(&app, &say.clone(), move |app, store| {
        let inbox = pages::inbox(store, &app.rules, Timestamp::now())?;
        let title = say.word("serve-inbox").to_string();
        Ok(render(&InboxView {
            chrome: chrome(app, store, title, "inbox", "/".into(), said).signed_in(person),
            say,
            inbox,
        }))
    })
    .await
    .into_response()
}

#[derive(Template)]
#[template(path = "review.html", escape = "page")]
struct ReviewView {
    say: Page,
    chrome: Chrome,
    queue: Queue,
}

pub async fn review(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    Extension(say): Extension<Page>,
    Query(said): Query<Said>,
) -> Response {
    reading(&app, &say.clone(), move |app, store| {
        let queue = pages::review_queue(store)?;
        Ok(render(&ReviewView {
            chrome: chrome(
                app,
                store,
                say.word("serve-review").to_string(),
                "review",
                "/review".into(),
                said,
            )
            .signed_in(person),
            say,
            queue,
        }))
    })
    .await
    .into_response()
}

#[derive(Deserialize)]
pub struct DecideForm {
    #[serde(default)]
    csrf: String,
    #[serde(rename = "ref")]
    reference: String,
    decision: String,
    #[serde(default)]
    company: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    back: String,
}

/// A decision on a row of the review queue, as `ratewatch review` makes it, by the person
/// signed in.
pub async fn decide(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    Form(form): Form<DecideForm>,
) -> Response {
    if let Some(refused) = csrf_refused(&app, &form.csrf) {
        return refused;
    }
    let back = if form.back.is_empty() {
        "/review".to_string()
    } else {
        form.back.clone()
    };
    let outcome = changing(&app, move |store| {
        let reference = form.reference.as_str();
        let made = Made {
            source: WEB_PAGE,
            by: person.name(),
            note: Some(&form.note),
        };
        let verdict = match form.decision.as_str() {
            "accept" => {
                let company = uuid::Uuid::parse_str(form.company.trim()).map_err(|_| {
                    Error::Config(format!(
                        "{reference}: accept needs the candidate's company id (a UUID)"
                    ))
                })?;
                review::accept(store, reference, company, made, false)?;
                Verdict::Accept(company)
            }
            "reject" => {
                review::decide(store, reference, Verdict::Reject, made)?;
                Verdict::Reject
            }
            "ignore" => {
                review::decide(store, reference, Verdict::Ignore, made)?;
                Verdict::Ignore
            }
            "revoke" => {
                review::revoke(store, reference, made.by, made.note)?;
                return Ok(format!(
                    "{reference}: decision revoked; the next run screens it as before."
                ));
            }
            other => {
                return Err(Error::Config(format!(
                    "decision {other:?}: use accept, reject, ignore or revoke"
                )));
            }
        };
        Ok(format!(
            "{reference}: {}; the next run applies it.",
            review::verdict_text(verdict)
        ))
    })
    .await;
    back_to(&app, &back, outcome)
}

#[derive(Template)]
#[template(path = "company.html", escape = "page")]
struct CompanyView {
    say: Page,
    chrome: Chrome,
    page: CompanyPage,
}

pub async fn company(
    State(app): State<Shared>,
    Extension(person): Extension<Person>,
    Extension(say): Extension<Page>,
    Path(id): Path<String>,
    Query(said): Query<Said>,
) -> Response {
    reading(&app, &say.clone(), move |app, store| {
        let Some(page) = pages::company(store, &id, Timestamp::now())? else {
            return Ok(not_found_page(app, store, say));
        };
        let title = page
            .company
            .name
            .clone()
            .unwrap_or_else(|| page.company.company_id.clone());
        let back = format!("/company/{}", page.company.company_id);
        Ok(render(&CompanyView {
            chrome: chrome(app, store, title, "company", back, said).signed_in(person),
            say,
            page,
        })
        .into_response())
    })
    .await
    .into_response()
}

#[derive(Deserialize)]
pub struct PortfolioQuery {
    #[serde(default)]
    name: String,
}

#[derive(Template)]
#[template(path = "portfolio.html", escape = "page")]
struct PortfolioView {
    say: Page,
    chrome: Chrome,
    page: PortfolioPage,
}

pub async fn portfolio(
    State(app): State<Shared>,
    Extension(say): Extension<Page>,
    Query(query): Query<PortfolioQuery>,
) -> Response {
    reading(&app, &say.clone(), move |app, store| {
        let Some(page) = pages::portfolio(store, &app.rules, &query.name, Timestamp::now())? else {
            return Ok(not_found_page(app, store, say));
        };
        let back = portfolio_href(&page.name);
        Ok(render(&PortfolioView {
            chrome: chrome(
                app,
                store,
                page.name.clone(),
                "portfolio",
                back,
                Said::default(),
            ),
            say,
            page,
        })
        .into_response())
    })
    .await
    .into_response()
}

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: String,
}

#[derive(Template)]
#[template(path = "search.html", escape = "page")]
struct SearchView {
    say: Page,
    chrome: Chrome,
    found: Found,
}

pub async fn search(
    State(app): State<Shared>,
    Extension(say): Extension<Page>,
    Query(query): Query<SearchQuery>,
) -> Response {
    reading(&app, &say.clone(), move |app, store| {
        let found = pages::search(store, &query.q)?;
        let back = match query.q.is_empty() {
            true => "/search".to_string(),
            false => format!(
                "/search?{}",
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("q", &query.q)
                    .finish()
            ),
        };
        Ok(render(&SearchView {
            chrome: chrome(
                app,
                store,
                say.word("serve-search").to_string(),
                "search",
                back,
                Said::default(),
            ),
            say,
            found,
        }))
    })
    .await
    .into_response()
}

#[derive(Template)]
#[template(path = "login.html", escape = "page")]
struct LoginView {
    say: Page,
    failed: bool,
}

/// The login form in `say`'s language, with `status` (401 for a request that lacked the
/// token).
pub fn login_page(say: Page, status: StatusCode, failed: Option<bool>) -> Response {
    let page = LoginView {
        say,
        failed: failed.unwrap_or(false),
    };
    (status, render(&page)).into_response()
}

pub async fn login_form(Extension(say): Extension<Page>) -> Response {
    login_page(say, StatusCode::OK, None)
}

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    token: String,
}

/// The token, posted: a session cookie and the inbox, or the form again and one more
/// mistake counted against the client.
pub async fn login(
    State(app): State<Shared>,
    Extension(say): Extension<Page>,
    client: Client,
    Form(form): Form<LoginForm>,
) -> Response {
    match app.guard.login(&form.token) {
        Some((cookie, person)) => {
            app.throttle.succeeded(client);
            // The person is named at once: what they do from now on is recorded as theirs.
            let mut response = match &person.0 {
                Some(name) => back_to(&app, "/", Ok(format!("Signed in as {name}."))),
                None => Redirect::to("/").into_response(),
            };
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        None if !app.guard.needs_token() => Redirect::to("/").into_response(),
        None => {
            app.throttle.failed(client, std::time::Instant::now());
            login_page(say, StatusCode::UNAUTHORIZED, Some(true))
        }
    }
}

pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

/// The icon a browser asks for on its own: none, and no error in its console either.
pub async fn no_icon() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

#[derive(Template)]
#[template(path = "not_found.html", escape = "page")]
struct NotFoundView {
    say: Page,
    chrome: Chrome,
}

fn not_found_page(app: &App, store: &Store, say: Page) -> Response {
    let page = NotFoundView {
        chrome: chrome(
            app,
            store,
            say.word("serve-not-found").to_string(),
            "not-found",
            "/".into(),
            Said::default(),
        ),
        say,
    };
    (StatusCode::NOT_FOUND, render(&page)).into_response()
}

pub async fn not_found(State(app): State<Shared>, Extension(say): Extension<Page>) -> Response {
    let page = say.clone();
    let read = move |app: &App, store: &Store| Ok(not_found_page(app, store, page));
    match reading(&app, &say, read).await {
        Ok(page) | Err(page) => page,
    }
}

// What the templates call.

/// The link to a portfolio's page.
fn portfolio_href(name: &str) -> String {
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("name", name)
        .finish();
    format!("/portfolio?{query}")
}

/// The links of the page's language switch, to this page (`back`) in each language.
fn language_switch(back: &str) -> Vec<(&'static str, &'static str, String)> {
    super::language::switch(back)
}

/// The message that names a decision: `accept` is `accepter`, `akzeptieren`; the forms
/// post the value as programs read it.
fn verdict_id(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Accept(_) => "verdict-accept",
        Verdict::Reject => "verdict-reject",
        Verdict::Ignore => "verdict-ignore",
    }
}

/// The heading of a portfolio's amount column, if it names one.
fn amount_column(page: &PortfolioPage) -> Option<String> {
    page.digest.as_ref().and_then(|d| d.amount_column.clone())
}

/// Where a row to review is: `book, line 7, run 3`.
fn where_line(say: &Page, portfolio: &str, line: &u64, run: &i64) -> String {
    let said = [
        ("portfolio", portfolio.to_string()),
        ("line", line.to_string()),
        ("run", run.to_string()),
    ];
    say.text("serve-where", &said.map(|(k, v)| (k, v.into())))
}

/// What a search found, and how: `2 found by name (and 3 more: say more of the name).`
fn found_line(say: &Page, found: &Found) -> String {
    let by = say.word(&format!("serve-by-{}", found.by.replace(' ', "-")));
    let by = if by.is_empty() { found.by } else { by };
    let said = [
        ("count", (found.companies.len() as u64).into()),
        ("by", by.to_string().into()),
        ("more", (found.more as u64).into()),
    ];
    say.text("serve-found", &said)
}

/// The class of a color's badge; anything outside the five gets a neutral look (never a
/// class made from the service's text).
fn color_class(color: &Color) -> &'static str {
    match color {
        Color::Green => "c-green",
        Color::Yellow => "c-yellow",
        Color::Red => "c-red",
        Color::Black => "c-black",
        Color::White => "c-white",
        Color::Other(_) => "c-other",
    }
}

fn color_of(text: &str) -> Color {
    Color::parse(text)
}

/// A carried column's value for an alert, the amount summed over its rows.
fn shown_value(say: &Page, line: &AlertLine, digest: &AlertDigest, header: &str) -> String {
    line.shown_value(&say.reader, header, digest.amount_column.as_deref())
}

/// A moment as the pages show it: `2026-11-21 02:00 UTC` in English and UTC, as they always
/// have; else in the reader's zone and words, `21/11/2026 03:00 CET`.
fn day(say: &Page, at: &Timestamp) -> String {
    if say.locale() == Locale::En && say.reader.zone.name() == "UTC" {
        return at.strftime("%Y-%m-%d %H:%M UTC").to_string();
    }
    say.time(at)
}

/// A time as the database keeps it (`2026-11-21T02:00:00Z`): as stored in English and UTC,
/// else as [`day`] shows it; a date without a time (an acknowledgement's end) as the reader
/// writes a day.
fn stored(say: &Page, text: &str) -> String {
    if say.locale() == Locale::En && say.reader.zone.name() == "UTC" {
        return text.to_string();
    }
    if let Ok(at) = text.parse::<Timestamp>() {
        return day(say, &at);
    }
    match text.parse::<jiff::civil::Date>() {
        Ok(date) => date
            .strftime(match say.locale() {
                Locale::En => "%Y-%m-%d",
                Locale::Fr => "%d/%m/%Y",
                Locale::De => "%d.%m.%Y",
            })
            .to_string(),
        Err(_) => text.to_string(),
    }
}

/// A stored time, or a dash.
fn stored_or_dash(say: &Page, text: &Option<String>) -> String {
    text.as_deref()
        .map_or_else(|| "–".into(), |text| stored(say, text))
}

fn or_dash(text: &Option<String>) -> String {
    text.clone().unwrap_or_else(|| "–".into())
}

fn run_line(say: &Page, run: &RunInfo) -> String {
    let finished = run
        .finished_at
        .as_ref()
        .map(|f| say.with("serve-finished", "time", day(say, f)))
        .unwrap_or_default();
    let said = [
        ("run", run.id.to_string()),
        ("status", say.run_status(&run.status).to_string()),
        ("started", day(say, &run.started_at)),
        ("finished", finished),
        ("rows", run.rows.to_string()),
        ("rated", run.rows_with(RowStatus::Rated).to_string()),
        ("alerts", run.alerts.to_string()),
    ];
    say.text("serve-run-line", &said.map(|(k, v)| (k, v.into())))
}

/// What a loosened search left out to find the row's candidates, if that is how they were
/// found.
fn found_without(row: &ResultRow) -> Option<&str> {
    row.candidates.first()?.found_without.as_deref()
}

/// The id of a row's place on the review page, which the search links to: `ref-` and its
/// ref with every character but letters, digits, `-` and `_` as `_` (line `N` for a row
/// with none).
fn review_anchor(reference: &Option<String>, line: &u64) -> String {
    match reference {
        Some(r) => format!(
            "ref-{}",
            r.chars()
                .map(|c| match c.is_alphanumeric() || c == '-' || c == '_' {
                    true => c,
                    false => '_',
                })
                .collect::<String>()
        ),
        None => format!("line-{line}"),
    }
}

/// The id of the form that acknowledges the rows ticked in the `index`th portfolio.
fn bulk_form_id(index: &usize) -> String {
    format!("ack-{index}")
}

/// Who made or ended a record, as the pages name them.
fn who(by: &Option<String>) -> &str {
    crate::model::who(by.as_deref())
}

/// How a record ended, or `in force`.
fn status(say: &Page, ended: &Option<Ended>) -> String {
    ended
        .as_ref()
        .map_or_else(|| say.word("serve-in-force").to_string(), Ended::describe)
}

fn decision_company(decision: &Decision) -> String {
    match decision.verdict {
        Verdict::Accept(c) => c.to_string(),
        Verdict::Ignore | Verdict::Reject => String::new(),
    }
}

/// The rows that came into red and black in the run by a change of color, never at a
/// first screening: the trend's figures for the run.
fn new_red_black(say: &Page, digest: &AlertDigest) -> String {
    match &digest.figures {
        Some(f) => say.counts(
            "serve-new-red-black",
            "red",
            f.new_red,
            "black",
            f.new_black,
        ),
        None => "-".into(),
    }
}

/// Rows of a night of the trend that came into `color` by a change that night.
fn new_in(run: &crate::model::RunColors, color: &str) -> u64 {
    run.new_by_color
        .iter()
        .find(|(c, _)| c == color)
        .map_or(0, |(_, n)| *n)
}

/// An amount as the reader writes it: `1 234 568` in English, `1 234 568 €` with the
/// currency the amount column names.
fn amount(say: &Page, v: f64, column: Option<&str>) -> String {
    match say.locale() {
        Locale::En => format_amount(v),
        l => l.amount(v, column.and_then(crate::locale::Currency::of_header)),
    }
}

/// The amount at risk of a night of the trend (its red and black rows), `-` without an
/// amount column.
fn at_risk(say: &Page, run: &crate::model::RunColors, column: Option<String>) -> String {
    let amounts: Vec<f64> = run
        .amount_by_color
        .iter()
        .filter(|(c, _)| c == "red" || c == "black")
        .map(|(_, a)| *a)
        .collect();
    if run.amount_by_color.is_empty() {
        "-".into()
    } else {
        amount(say, amounts.iter().sum(), column.as_deref())
    }
}

/// The amount at risk: the amount column over every red and black row, the trend's.
fn at_stake(say: &Page, digest: &AlertDigest) -> String {
    let at_risk = digest.figures.as_ref().and_then(|f| f.at_risk);
    match (&digest.amount_column, at_risk) {
        (None, _) => say.word("serve-no-amount-column").to_string(),
        (Some(column), total) => {
            let total = amount(say, total.unwrap_or(0.0), Some(column));
            format!("{total} ({column})")
        }
    }
}
