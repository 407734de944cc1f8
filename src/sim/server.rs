//! The simulator's HTTP server: the eight endpoints of the spec, its authentication and
//! validation answers, and fault knobs (latency, rate limit, 5xx, dropped connections,
//! slow answers) for tests and benchmarks.
//!
//! Built directly on hyper: a dropped connection is a service error, which hyper answers
//! by closing the socket without a response, exactly what a flaky network does.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HOST, RETRY_AFTER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use percent_encoding::percent_decode_str;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::dataset::{self, Calendar, CompanyRef, Dataset, NameFilters};
use crate::api::models::{ApiTime, DeprecatedRating, Rating, RatingsPage, ShortRating};
use crate::lock;

pub use super::{DEFAULT_KEY, DEFAULT_PER_COUNTRY, DEFAULT_SEED};
/// Ratings per history page.
pub const PAGE_SIZE: usize = 50;
/// Ratings remembered per key for the history endpoint; older ones fall off.
const HISTORY_CAP: usize = 100_000;

/// Everything that shapes the simulator's answers.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub seed: u64,
    pub per_country: u32,
    /// Simulated day whose colors are served.
    pub day: i64,
    /// Where the days fall: `day` falls on today unless this dates it.
    pub calendar: Calendar,
    pub key: String,
    pub faults: Faults,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: DEFAULT_SEED,
            per_country: DEFAULT_PER_COUNTRY,
            day: 1,
            calendar: Calendar::default(),
            key: DEFAULT_KEY.to_string(),
            faults: Faults::default(),
        }
    }
}

/// Fault knobs. Rates are probabilities in 0..=1, drawn per request.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// Added to every answer.
    pub latency: Duration,
    /// Requests per second allowed (all keys together); beyond it, 429 + Retry-After.
    pub rate_limit: Option<f64>,
    /// Share of requests answered 502/503 with an HTML page.
    pub fail_rate: f64,
    /// Share of requests whose connection is closed without an answer.
    pub drop_rate: f64,
    /// Share of requests answered only after `slow`.
    pub slow_rate: f64,
    pub slow: Duration,
    /// Share of successful answers spoiled on the way: cut in half, an HTML page with
    /// status 200, or JSON of the wrong shape.
    pub corrupt_rate: f64,
}

/// Which endpoint a request hit, for the call counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    CompanyById,
    CompaniesByName,
    Rating,
    RatingDeprecated,
    ShortRating,
    RatingsHistory,
    Countries,
    Services,
    Unknown,
}

const ENDPOINTS: [Endpoint; 9] = [
    Endpoint::CompanyById,
    Endpoint::CompaniesByName,
    Endpoint::Rating,
    Endpoint::RatingDeprecated,
    Endpoint::ShortRating,
    Endpoint::RatingsHistory,
    Endpoint::Countries,
    Endpoint::Services,
    Endpoint::Unknown,
];

/// Counters read by tests and the benchmark: every request, whatever its answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub calls: HashMap<Endpoint, u64>,
    pub unauthenticated: u64,
    pub throttled: u64,
    pub failed: u64,
    pub dropped: u64,
    pub corrupted: u64,
}

impl Stats {
    pub fn calls(&self, e: Endpoint) -> u64 {
        self.calls.get(&e).copied().unwrap_or(0)
    }
    pub fn total(&self) -> u64 {
        self.calls.values().sum()
    }
}

/// One rating served, remembered for the history endpoint.
#[derive(Debug, Clone)]
struct Served {
    company: CompanyRef,
    day: i64,
    requested: ApiTime,
}

struct State {
    data: Dataset,
    key: String,
    faults: Faults,
    day: AtomicI64,
    calls: [AtomicU64; 9],
    unauthenticated: AtomicU64,
    throttled: AtomicU64,
    failed: AtomicU64,
    dropped: AtomicU64,
    corrupted: AtomicU64,
    requests: AtomicU64,
    bucket: Mutex<Bucket>,
    history: Mutex<HashMap<String, VecDeque<Served>>>,
    fault_seed: u64,
}

/// A token bucket for the rate-limit knob.
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// A running simulator. Dropping it stops accepting connections.
pub struct SimServer {
    addr: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl Drop for SimServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SimServer {
    /// Binds `addr` (port 0 picks a free one) and serves until dropped.
    pub async fn start(config: SimConfig, addr: SocketAddr) -> std::io::Result<SimServer> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let burst = config.faults.rate_limit.unwrap_or(0.0).max(1.0);
        let state = Arc::new(State {
            data: Dataset::new(config.seed, config.per_country).with_calendar(
                config.calendar.with_day_on(
                    config.day,
                    jiff::Zoned::now()
                        .with_time_zone(jiff::tz::TimeZone::UTC)
                        .date(),
                ),
            ),
            key: config.key,
            day: AtomicI64::new(config.day),
            calls: Default::default(),
            unauthenticated: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            corrupted: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            bucket: Mutex::new(Bucket {
                tokens: burst,
                last: Instant::now(),
            }),
            history: Mutex::new(HashMap::new()),
            fault_seed: config.seed ^ 0xfa17,
            faults: config.faults,
        });
        let task = tokio::spawn(accept_loop(listener, state.clone()));
        Ok(SimServer { addr, state, task })
    }

    /// `http://127.0.0.1:PORT`, the environment root to give the client.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn dataset(&self) -> &Dataset {
        &self.state.data
    }

    /// Serves another simulated day (dated as the calendar dates it: one day per day
    /// from the first served).
    pub fn set_day(&self, day: i64) {
        self.state.day.store(day, Ordering::SeqCst);
    }

    pub fn stats(&self) -> Stats {
        self.state.stats()
    }

    /// Serves until the process ends (for `ratewatch demo-server`).
    pub async fn wait(mut self) {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl State {
    fn stats(&self) -> Stats {
        Stats {
            calls: ENDPOINTS
                .iter()
                .enumerate()
                .map(|(i, e)| (*e, self.calls[i].load(Ordering::Relaxed)))
                .filter(|(_, n)| *n > 0)
                .collect(),
            unauthenticated: self.unauthenticated.load(Ordering::Relaxed),
            throttled: self.throttled.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            corrupted: self.corrupted.load(Ordering::Relaxed),
        }
    }

    /// A uniform draw in [0, 1) for the request numbered `nth`; reproducible per seed.
    fn chance(&self, nth: u64, salt: u64) -> f64 {
        let mut z = self.fault_seed ^ nth.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Takes a token, or says how long until one is free.
    fn throttle(&self) -> Option<Duration> {
        let rate = self.faults.rate_limit?;
        let mut b = lock(&self.bucket);
        let now = Instant::now();
        b.tokens = (b.tokens + now.duration_since(b.last).as_secs_f64() * rate).min(rate.max(1.0));
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            None
        } else {
            Some(Duration::from_secs_f64((1.0 - b.tokens) / rate))
        }
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let state = state.clone();
                async move { handle(&state, req).await }
            });
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Raised to make hyper close the connection without answering.
#[derive(Debug)]
struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by the fault knob")
    }
}

impl std::error::Error for Dropped {}

type Answer = Response<Full<Bytes>>;

async fn handle(state: &State, req: Request<Incoming>) -> Result<Answer, Dropped> {
    let nth = state.requests.fetch_add(1, Ordering::Relaxed);
    let f = &state.faults;
    if let Some(wait) = state.throttle() {
        state.throttled.fetch_add(1, Ordering::Relaxed);
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        let mut resp = json(
            StatusCode::TOO_MANY_REQUESTS,
            &serde_json::json!({"detail": format!("Request was throttled. Expected available in {secs} seconds.")}),
        );
        resp.headers_mut()
            .insert(RETRY_AFTER, secs.to_string().parse().expect("digits"));
        return Ok(resp);
    }
    if !f.latency.is_zero() {
        tokio::time::sleep(f.latency).await;
    }
    if f.slow_rate > 0.0 && state.chance(nth, 1) < f.slow_rate {
        tokio::time::sleep(f.slow).await;
    }
    if f.drop_rate > 0.0 && state.chance(nth, 2) < f.drop_rate {
        state.dropped.fetch_add(1, Ordering::Relaxed);
        return Err(Dropped);
    }
    if f.fail_rate > 0.0 && state.chance(nth, 3) < f.fail_rate {
        state.failed.fetch_add(1, Ordering::Relaxed);
        let status = if nth.is_multiple_of(2) {
            StatusCode::BAD_GATEWAY
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        };
        return Ok(html_error(status));
    }
    let answer = route(state, &req);
    if f.corrupt_rate > 0.0
        && answer.status() == StatusCode::OK
        && state.chance(nth, 4) < f.corrupt_rate
    {
        state.corrupted.fetch_add(1, Ordering::Relaxed);
        return Ok(corrupt(answer, nth));
    }
    Ok(answer)
}

/// Spoils a good answer in one of the ways broken proxies and servers do.
fn corrupt(answer: Answer, nth: u64) -> Answer {
    let (mut parts, body) = answer.into_parts();
    let bytes = body.into_inner().unwrap_or_default();
    let spoiled = match nth % 3 {
        0 => bytes.slice(..bytes.len() / 2),
        1 => {
            parts
                .headers
                .insert(CONTENT_TYPE, "text/html".parse().expect("static"));
            Bytes::from_static(
                b"<html><body><h1>Service temporarily in maintenance</h1></body></html>",
            )
        }
        _ => Bytes::from_static(br#"{"data": 42, "Id": [], "ratingColor": {"value": "green"}}"#),
    };
    Response::from_parts(parts, Full::new(spoiled))
}

fn route(state: &State, req: &Request<Incoming>) -> Answer {
    let segments: Vec<String> = req
        .uri()
        .path()
        .trim_matches('/')
        .split('/')
        .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    let query = parse_query(req.uri().query());
    let endpoint = match seg.as_slice() {
        ["v2", "transactor", _, _, _] => Endpoint::CompanyById,
        ["v2", "transactors"] => Endpoint::CompaniesByName,
        ["v2", "companies", _, "ratings"] => Endpoint::Rating,
        ["v2", "ratings", "company", _] => Endpoint::RatingDeprecated,
        ["v2", "trafficlight", _] => Endpoint::ShortRating,
        ["v2", "ratings"] => Endpoint::RatingsHistory,
        ["v2", "lookups", "countries"] => Endpoint::Countries,
        ["v2", "lookups", "services"] => Endpoint::Services,
        _ => Endpoint::Unknown,
    };
    let index = ENDPOINTS.iter().position(|e| *e == endpoint).unwrap_or(8);
    state.calls[index].fetch_add(1, Ordering::Relaxed);

    if req.method() != Method::GET {
        return json(
            StatusCode::METHOD_NOT_ALLOWED,
            &serde_json::json!({"detail": format!("Method \"{}\" not allowed.", req.method())}),
        );
    }
    // The lookups answer without a key (service.md §5.4 leaves it open; the samples send none).
    let needs_key = !matches!(
        endpoint,
        Endpoint::Countries | Endpoint::Services | Endpoint::Unknown
    );
    let key = req
        .headers()
        .get("apikey")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if needs_key && key != state.key {
        state.unauthenticated.fetch_add(1, Ordering::Relaxed);
        return json(
            StatusCode::UNAUTHORIZED,
            &serde_json::json!({"detail": "You couldn't be authenticated."}),
        );
    }
    let day = state.day.load(Ordering::SeqCst);
    match (endpoint, seg.as_slice()) {
        (Endpoint::CompanyById, [_, _, country, service, id]) => {
            company_by_id(state, country, service, id)
        }
        (Endpoint::CompaniesByName, _) => companies_by_name(state, &query),
        (Endpoint::Rating, [_, _, id, _]) => {
            if let Some(date) = query.get("date")
                && (date.parse::<jiff::civil::Date>().is_err() || date.len() != 10)
            {
                return validation(&[(
                    "date",
                    "Date has wrong format. Use one of these formats instead: YYYY-MM-DD.".into(),
                )]);
            }
            with_company(state, id, |r| {
                let served = remember(state, key, r, day);
                json(StatusCode::OK, &rating(state, r, day, served))
            })
        }
        (Endpoint::RatingDeprecated, [_, _, _, id]) => with_company(state, id, |r| {
            let served = remember(state, key, r, day);
            let now = rating(state, r, day, served);
            json(
                StatusCode::OK,
                &DeprecatedRating {
                    color: now.rating_color,
                    company: now.company_id,
                    created: now.request_date,
                    last_refresh_date: now.last_refresh_date,
                    last_change_date: now.last_change_date,
                },
            )
        }),
        (Endpoint::ShortRating, [_, _, id]) => with_company(state, id, |r| {
            json(
                StatusCode::OK,
                &ShortRating {
                    color: state.data.rating(r, day).color,
                },
            )
        }),
        (Endpoint::RatingsHistory, _) => history(state, req, key, &query),
        (Endpoint::Countries, _) => json(StatusCode::OK, &dataset::countries()),
        (Endpoint::Services, _) => json(StatusCode::OK, &dataset::services()),
        _ => not_found(),
    }
}

fn company_by_id(state: &State, country: &str, service: &str, id: &str) -> Answer {
    if let Some(answer) = invalid_country(country) {
        return answer;
    }
    let country_code = country.to_uppercase();
    let known_service = dataset::services().iter().any(|s| {
        s.identifier_country == country_code && s.identifier_code.eq_ignore_ascii_case(service)
    });
    if !known_service {
        return validation(&[("service", format!("\"{service}\" is not a valid choice."))]);
    }
    let found =
        Dataset::country_index(country).and_then(|c| state.data.find_external(c, service, id));
    match found {
        Some(r) => json(StatusCode::OK, &state.data.company(r)),
        None => not_found(),
    }
}

fn companies_by_name(state: &State, q: &HashMap<String, String>) -> Answer {
    let mut missing = Vec::new();
    for required in ["countrycode", "name"] {
        if q.get(required).is_none_or(|v| v.trim().is_empty()) {
            missing.push((required, "This field is required.".to_string()));
        }
    }
    if !missing.is_empty() {
        return validation(&missing);
    }
    let country = &q["countrycode"];
    if let Some(answer) = invalid_country(country) {
        return answer;
    }
    let phone_ok = |p: &str| {
        p.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | ' ' | '.' | '-' | '(' | ')'))
    };
    if let Some(phone) = q.get("phonenumber").filter(|p| !phone_ok(p)) {
        return validation(&[(
            "phonenumber",
            format!("\"{phone}\" is not a valid phone number."),
        )]);
    }
    let filters = NameFilters {
        street_number: q.get("streetnumber").cloned(),
        street_name: q.get("streetname").cloned(),
        city: q.get("city").cloned(),
        postcode: q.get("postcode").cloned(),
        phone_number: q.get("phonenumber").cloned(),
    };
    let found: Vec<_> = match Dataset::country_index(country) {
        Some(c) => state
            .data
            .search_name(c, &q["name"], &filters)
            .into_iter()
            .map(|r| state.data.company(r))
            .collect(),
        None => Vec::new(),
    };
    json(StatusCode::OK, &found)
}

/// A country must be on the lookup list; anything else is the spec's "not a valid choice"
/// under the key `country`, whatever the parameter was called.
fn invalid_country(code: &str) -> Option<Answer> {
    let known = dataset::countries()
        .iter()
        .any(|c| c.country_code.eq_ignore_ascii_case(code.trim()));
    (!known).then(|| validation(&[("country", format!("\"{code}\" is not a valid choice."))]))
}

fn with_company(state: &State, id: &str, answer: impl FnOnce(CompanyRef) -> Answer) -> Answer {
    let Ok(uuid) = Uuid::parse_str(id) else {
        return validation(&[("company", format!("\"{id}\" is not a valid UUID."))]);
    };
    match state.data.find_uuid(uuid) {
        Some(r) => answer(r),
        None => not_found(),
    }
}

/// Records a served rating under the key and returns its request time: now, in
/// microseconds with a `Z`. The service's clock is this machine's; only its ratings
/// follow the simulated calendar.
/// The rating of `company` on simulated `day`, as served at `served`.
fn rating(state: &State, company: CompanyRef, day: i64, served: ApiTime) -> Rating {
    let d = state.data.rating(company, day);
    Rating {
        rating_color: d.color,
        company_id: state.data.uuid(company),
        request_date: Some(served),
        last_refresh_date: Some(d.last_refresh),
        last_change_date: Some(d.last_change),
    }
}

fn remember(state: &State, key: &str, company: CompanyRef, day: i64) -> ApiTime {
    let now = jiff::Timestamp::now();
    let instant = jiff::Timestamp::from_microsecond(now.as_microsecond()).unwrap_or(now);
    let requested = ApiTime::with_raw(
        instant,
        instant.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
    );
    let mut history = lock(&state.history);
    let list = history.entry(key.to_string()).or_default();
    if list.len() >= HISTORY_CAP {
        list.pop_front();
    }
    list.push_back(Served {
        company,
        day,
        requested: requested.clone(),
    });
    requested
}

/// `/v2/ratings?page=N`: the ratings served to this key, newest first, with absolute links.
fn history(
    state: &State,
    req: &Request<Incoming>,
    key: &str,
    q: &HashMap<String, String>,
) -> Answer {
    let page: usize = match q.get("page").map(|p| p.parse::<usize>()) {
        None => 1,
        Some(Ok(p)) if p >= 1 => p,
        Some(_) => {
            return json(
                StatusCode::NOT_FOUND,
                &serde_json::json!({"detail": "Invalid page."}),
            );
        }
    };
    let (served, total): (Vec<Served>, usize) = {
        let history = lock(&state.history);
        let list = history.get(key);
        let total = list.map_or(0, VecDeque::len);
        let start = (page - 1) * PAGE_SIZE;
        if start >= total && page > 1 {
            return json(
                StatusCode::NOT_FOUND,
                &serde_json::json!({"detail": "Invalid page."}),
            );
        }
        let page_items = list
            .map(|l| {
                l.iter()
                    .rev()
                    .skip(start)
                    .take(PAGE_SIZE)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        (page_items, total)
    };
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1")
        .to_string();
    let link = |p: usize| {
        if p == 1 {
            format!("http://{host}/v2/ratings")
        } else {
            format!("http://{host}/v2/ratings?page={p}")
        }
    };
    let results = served
        .into_iter()
        .map(|s| rating(state, s.company, s.day, s.requested))
        .collect();
    json(
        StatusCode::OK,
        &RatingsPage {
            next: (page * PAGE_SIZE < total).then(|| link(page + 1)),
            previous: (page > 1).then(|| link(page - 1)),
            results,
            malformed: Vec::new(),
        },
    )
}

fn parse_query(query: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

fn json<T: Serialize>(status: StatusCode, body: &T) -> Answer {
    let bytes = serde_json::to_vec(body).unwrap_or_else(|_| b"{}".to_vec());
    let mut resp = Response::new(Full::new(Bytes::from(bytes)));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, "application/json".parse().expect("static"));
    resp
}

fn validation(fields: &[(&str, String)]) -> Answer {
    let body: serde_json::Map<String, serde_json::Value> = fields
        .iter()
        .map(|(k, m)| (k.to_string(), serde_json::json!([m])))
        .collect();
    json(StatusCode::BAD_REQUEST, &body)
}

fn not_found() -> Answer {
    json(
        StatusCode::NOT_FOUND,
        &serde_json::json!({"detail": "Not found."}),
    )
}

fn html_error(status: StatusCode) -> Answer {
    let reason = status.canonical_reason().unwrap_or("Error");
    let page = format!(
        "<html>\r\n<head><title>{code} {reason}</title></head>\r\n<body>\r\n<center><h1>{code} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
        code = status.as_u16()
    );
    let mut resp = Response::new(Full::new(Bytes::from(page)));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, "text/html".parse().expect("static"));
    resp
}
