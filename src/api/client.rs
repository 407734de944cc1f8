//! The service's client: one async method per endpoint of docs/service.md §4.
//!
//! It turns HTTP answers into typed values or typed errors and nothing more: no retries,
//! no rate limiting, no caching (those belong to `limit` and the pipeline), no storage.

use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use serde::de::DeserializeOwned;
use url::Url;
use uuid::Uuid;

use super::api_error::{ApiError, snippet};
use super::models::{
    Company, Country, DeprecatedRating, IdentifierService, Rating, RatingsPage, ShortRating,
};
use crate::model::NameQuery;

/// Longest body the client will read. Real answers are a few kilobytes; anything far
/// larger is a broken or hostile server and must not exhaust memory.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Most history pages followed before giving up; a guard against endless pagination.
pub const MAX_HISTORY_PAGES: usize = 10_000;

/// Most redirects followed for one request; a guard against redirect loops.
pub const MAX_REDIRECTS: usize = 5;

/// How much of a bad body an error message quotes.
const SNIPPET_CHARS: usize = 200;

/// The API key. Its `Debug` never shows the value, so it cannot leak through logs.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Timeouts of every request.
#[derive(Debug, Clone, Copy)]
pub struct ClientOptions {
    pub timeout: Duration,
    pub connect_timeout: Duration,
}

/// A client bound to one environment and key. Cheap to clone: connections are shared.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    /// The environment's root with `/v2/` appended, always ending in `/`.
    base: Url,
    key: Option<HeaderValue>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl Client {
    /// `base_url` is the environment's root; `/v2/` is added unless already there.
    pub fn new(
        base_url: &str,
        key: Option<&ApiKey>,
        options: ClientOptions,
    ) -> Result<Self, ApiError> {
        let base = normalize_base_url(base_url)?;
        let key = match key {
            Some(k) => {
                let mut v = HeaderValue::from_str(k.expose()).map_err(|_| {
                    ApiError::Transport {
                        message: "the API key contains characters that cannot be sent in a header (a stray newline?)".into(),
                        timeout: false,
                    }
                })?;
                v.set_sensitive(true);
                Some(v)
            }
            None => None,
        };
        let http = reqwest::Client::builder()
            .user_agent(concat!("ratewatch/", env!("CARGO_PKG_VERSION")))
            .timeout(options.timeout)
            .connect_timeout(options.connect_timeout)
            .pool_idle_timeout(Duration::from_secs(60))
            .redirect(same_origin_redirects(&base))
            .build()
            .map_err(|e| transport(&e))?;
        Ok(Client { http, base, key })
    }

    /// The `/v2/` address every path is relative to.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// service.md §4.1: the company holding identifier `id` of registry `service` in `country`.
    pub async fn company_by_external_id(
        &self,
        country: &str,
        service: &str,
        id: &str,
    ) -> Result<Company, ApiError> {
        let url = self.endpoint(&["transactor", country, service, id], &[]);
        self.get_json(url, "company by identifier").await
    }

    /// service.md §4.2: every company matching a name, narrowed by the query's filters.
    pub async fn companies_by_name(&self, q: &NameQuery) -> Result<Vec<Company>, ApiError> {
        let filters = [
            ("countrycode", Some(q.country.as_str())),
            ("name", Some(q.name.as_str())),
            ("streetnumber", q.street_number.as_deref()),
            ("streetname", q.street_name.as_deref()),
            ("city", q.city.as_deref()),
            ("postcode", q.postcode.as_deref()),
            ("phonenumber", q.phone_number.as_deref()),
        ];
        let query: Vec<(&str, &str)> = filters
            .iter()
            .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| (*k, v)))
            .collect();
        let url = self.endpoint(&["transactors"], &query);
        self.get_json(url, "companies by name").await
    }

    /// service.md §4.3: the current rating; `date` is passed through for the day it names.
    pub async fn rating(
        &self,
        company: Uuid,
        date: Option<jiff::civil::Date>,
    ) -> Result<Rating, ApiError> {
        let id = company.to_string();
        let day = date.map(|d| d.to_string());
        let query: Vec<(&str, &str)> = day.iter().map(|d| ("date", d.as_str())).collect();
        let url = self.endpoint(&["companies", &id, "ratings"], &query);
        self.get_json(url, "rating").await
    }

    /// service.md §4.4: the deprecated rating endpoint, for accounts that still need it.
    pub async fn rating_deprecated(&self, company: Uuid) -> Result<DeprecatedRating, ApiError> {
        let id = company.to_string();
        let url = self.endpoint(&["ratings", "company", &id], &[]);
        self.get_json(url, "deprecated rating").await
    }

    /// service.md §4.5: the color alone.
    pub async fn short_rating(&self, company: Uuid) -> Result<ShortRating, ApiError> {
        let id = company.to_string();
        let url = self.endpoint(&["trafficlight", &id], &[]);
        self.get_json(url, "short rating").await
    }

    /// service.md §4.6: every rating this key requested, following `next` to the end.
    ///
    /// A `next` link is followed only while it stays on the service's own origin (the key
    /// is never sent elsewhere), is not one already visited (a loop), and the page count
    /// stays under [`MAX_HISTORY_PAGES`].
    pub async fn ratings_history(&self) -> Result<Vec<Rating>, ApiError> {
        let mut pages = self.history_pages();
        let mut all = Vec::new();
        while let Some(url) = pages.next_url()? {
            let page = self.ratings_page(&url).await?;
            pages.advance(&page)?;
            all.extend(page.results);
        }
        Ok(all)
    }

    /// service.md §4.6 a page at a time, for a caller that sends each page through its own
    /// limits: ask [`HistoryPages::next_url`], fetch it with [`Client::ratings_page`] (as
    /// often as a retry needs), then hand the page to [`HistoryPages::advance`].
    pub fn history_pages(&self) -> HistoryPages {
        HistoryPages {
            origin: self.base.origin(),
            next: Some(self.endpoint(&["ratings"], &[])),
            current: None,
            seen: HashSet::new(),
        }
    }

    /// One page of the ratings history, at an address [`HistoryPages`] checked.
    pub async fn ratings_page(&self, url: &Url) -> Result<RatingsPage, ApiError> {
        self.get_json(url.clone(), "ratings history").await
    }

    /// service.md §4.7: the country codes the service knows.
    pub async fn countries(&self) -> Result<Vec<Country>, ApiError> {
        let url = self.endpoint(&["lookups", "countries"], &[]);
        self.get_json(url, "countries").await
    }

    /// service.md §4.8: the identifier services usable in [`Client::company_by_external_id`].
    pub async fn services(&self) -> Result<Vec<IdentifierService>, ApiError> {
        let url = self.endpoint(&["lookups", "services"], &[]);
        self.get_json(url, "identifier services").await
    }

    /// Builds `base/seg1/seg2…?k=v`, percent-encoding every segment (`/` included) and
    /// every query value.
    fn endpoint(&self, segments: &[&str], query: &[(&str, &str)]) -> Url {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .expect("base URL was checked to be hierarchical")
            .pop_if_empty()
            .extend(segments);
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        url
    }

    async fn get_json<T: DeserializeOwned>(&self, url: Url, what: &str) -> Result<T, ApiError> {
        let mut request = self.http.get(url.clone());
        if let Some(key) = &self.key {
            request = request.header("apikey", key.clone());
        }
        let mut response = request.send().await.map_err(|e| transport(&e))?;
        let status = response.status();
        let retry_after = parse_retry_after(response.headers());
        let body = read_capped(&mut response, what).await?;
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|e| ApiError::Decode {
                what: what.to_string(),
                message: e.to_string(),
                snippet: snippet(&body, SNIPPET_CHARS),
            });
        }
        Err(error_from_status(status, &body, retry_after, &url, what))
    }
}

/// Follows a redirect only while it keeps the base URL's scheme, host and port: reqwest
/// strips `Authorization` and cookies on a cross-origin redirect but not our `apikey`
/// header, which would go along to the other server.
fn same_origin_redirects(base: &Url) -> reqwest::redirect::Policy {
    let origin = base.origin();
    reqwest::redirect::Policy::custom(move |attempt| {
        // Never quote credentials someone put in a Location.
        let to = crate::text::redacted_url(attempt.url().as_str(), crate::text::UrlPath::Whole);
        if attempt.url().origin() != origin {
            attempt.error(RedirectRefused {
                to,
                too_many: false,
            })
        } else if attempt.previous().len() > MAX_REDIRECTS {
            // `previous` starts with the request itself, not a redirect.
            attempt.error(RedirectRefused { to, too_many: true })
        } else {
            attempt.follow()
        }
    })
}

/// Why the redirect policy stopped; carried through reqwest's error to [`transport`].
#[derive(Debug)]
struct RedirectRefused {
    to: String,
    too_many: bool,
}

impl fmt::Display for RedirectRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "redirect to {} not followed", self.to)
    }
}

impl std::error::Error for RedirectRefused {}

/// Where the ratings history goes next, with the guards every `next` link passes: the
/// service's own origin (the key is never sent elsewhere), no page read twice (a loop),
/// at most [`MAX_HISTORY_PAGES`] pages.
#[derive(Debug)]
pub struct HistoryPages {
    origin: url::Origin,
    next: Option<Url>,
    /// The page being read, which a relative `next` is resolved against.
    current: Option<Url>,
    seen: HashSet<String>,
}

impl HistoryPages {
    /// The next page's address, or None once a page had no `next`.
    pub fn next_url(&mut self) -> Result<Option<Url>, ApiError> {
        let Some(url) = self.next.take() else {
            return Ok(None);
        };
        if !self.seen.insert(url.to_string()) {
            return Err(bad_link(
                &url,
                "points back to a page already read (a loop)",
            ));
        }
        if self.seen.len() > MAX_HISTORY_PAGES {
            return Err(bad_link(
                &url,
                &format!("more than {MAX_HISTORY_PAGES} pages"),
            ));
        }
        self.current = Some(url.clone());
        Ok(Some(url))
    }

    /// Takes the `next` link of the page just read, refusing one that leaves the service.
    pub fn advance(&mut self, page: &RatingsPage) -> Result<(), ApiError> {
        let Some(next) = page.next.as_deref().filter(|n| !n.is_empty()) else {
            return Ok(());
        };
        let current = self
            .current
            .clone()
            .expect("advance follows next_url, which sets the current page");
        let next_url = current
            .join(next)
            .map_err(|e| bad_link(&current, &format!("next link {next:?} is not a URL: {e}")))?;
        if next_url.origin() != self.origin {
            return Err(bad_link(
                &next_url,
                "leads to another server; the key is not sent there",
            ));
        }
        self.next = Some(next_url);
        Ok(())
    }

    /// How many pages were asked for so far.
    pub fn pages(&self) -> usize {
        self.seen.len()
    }
}

/// Root → `root/v2/`; `…/v2` and `…/v2/` are kept as they are.
pub fn normalize_base_url(raw: &str) -> Result<Url, ApiError> {
    let invalid = |why: String| ApiError::Transport {
        message: format!(
            "base URL {:?} is not usable: {why}",
            crate::text::redacted_url(raw, crate::text::UrlPath::Whole)
        ),
        timeout: false,
    };
    let mut url = Url::parse(raw.trim()).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(invalid("it must start with http:// or https://".into()));
    }
    url.set_query(None);
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_string();
    let path = if path.ends_with("/v2") {
        format!("{path}/")
    } else {
        format!("{path}/v2/")
    };
    url.set_path(&path);
    Ok(url)
}

async fn read_capped(response: &mut reqwest::Response, what: &str) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(&e))? {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::Decode {
                what: what.to_string(),
                message: format!("answer larger than {} MiB", MAX_BODY_BYTES >> 20),
                snippet: snippet(&body, SNIPPET_CHARS),
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn error_from_status(
    status: StatusCode,
    body: &[u8],
    retry_after: Option<Duration>,
    url: &Url,
    what: &str,
) -> ApiError {
    match status.as_u16() {
        400 => ApiError::Validation {
            fields: validation_fields(body),
        },
        401 => ApiError::Unauthenticated {
            status: 401,
            message: detail_message(body),
        },
        403 => {
            let message = detail_message(body);
            if is_about_the_key(&message) {
                ApiError::Unauthenticated {
                    status: 403,
                    message,
                }
            } else {
                ApiError::Forbidden { message }
            }
        }
        // The service says "no such company" in JSON; anything else under a 404 (an HTML
        // page, an empty body) is a server that is not the service: a wrong --base-url,
        // a proxy or a gateway. Taken for "no such company", it would turn a whole
        // portfolio into unmatched rows on a night that looks quiet.
        404 if is_json_error(body) => ApiError::NotFound {
            what: format!("{what} at {}", url.path()),
        },
        404 => ApiError::Decode {
            what: what.to_string(),
            message: format!(
                "HTTP 404 from {url} without the service's JSON error: not the rating service answering (check --base-url)"
            ),
            snippet: snippet(body, SNIPPET_CHARS),
        },
        429 => ApiError::RateLimited { retry_after },
        code => ApiError::Server {
            status: code,
            snippet: snippet(body, SNIPPET_CHARS),
        },
    }
}

/// Whether a body is a JSON object, as the service's errors are.
fn is_json_error(body: &[u8]) -> bool {
    matches!(
        serde_json::from_slice::<serde_json::Value>(body),
        Ok(serde_json::Value::Object(_))
    )
}

/// Whether a 403's message is about the key (service.md §5.5: "you couldn't be authenticated")
/// rather than about what the account may use.
fn is_about_the_key(message: &str) -> bool {
    let m = message.to_lowercase();
    ["authenticat", "credential", "key", "token"]
        .iter()
        .any(|w| m.contains(w))
}

/// Reads the spec's validation body `{"param": ["message", …], …}`. A single string in
/// place of the list is accepted; a body of another shape is kept whole under `body`.
fn validation_fields(body: &[u8]) -> Vec<(String, Vec<String>)> {
    let parsed: Option<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_slice(body).ok();
    let fields: Vec<(String, Vec<String>)> = parsed
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let messages = match v {
                serde_json::Value::Array(items) => items.into_iter().map(value_text).collect(),
                other => vec![value_text(other)],
            };
            (k, messages)
        })
        .collect();
    if fields.is_empty() {
        vec![("body".to_string(), vec![snippet(body, SNIPPET_CHARS)])]
    } else {
        fields
    }
}

/// The human text of an authentication refusal: `detail` or `message` if the body is JSON.
fn detail_message(body: &[u8]) -> String {
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(body) {
        for key in ["detail", "message", "Message", "error"] {
            if let Some(v) = map.get(key) {
                return value_text(v.clone());
            }
        }
    }
    snippet(body, SNIPPET_CHARS)
}

fn value_text(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// `Retry-After` as seconds or as an HTTP date.
fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = jiff::fmt::rfc2822::parse(text).ok()?.timestamp();
    let wait = when.duration_since(jiff::Timestamp::now());
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

fn transport(e: &reqwest::Error) -> ApiError {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<RedirectRefused>() {
            return ApiError::Redirected {
                to: r.to.clone(),
                too_many: r.too_many,
            };
        }
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    ApiError::Transport {
        message,
        timeout: e.is_timeout(),
    }
}

fn bad_link(url: &Url, why: &str) -> ApiError {
    // Never quote credentials someone put in a link.
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    ApiError::Decode {
        what: "ratings history".into(),
        message: format!("pagination link {url} {why}"),
        snippet: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_gets_v2_once() {
        for raw in [
            "http://h:1",
            "http://h:1/",
            "http://h:1/v2",
            "http://h:1/v2/",
            "http://h:1/v2//",
        ] {
            assert_eq!(
                normalize_base_url(raw).unwrap().as_str(),
                "http://h:1/v2/",
                "{raw}"
            );
        }
        assert_eq!(
            normalize_base_url("https://api.example/rating")
                .unwrap()
                .as_str(),
            "https://api.example/rating/v2/"
        );
        assert!(normalize_base_url("ftp://h").is_err());
        assert!(normalize_base_url("not a url").is_err());
    }

    #[test]
    fn segments_and_values_are_percent_encoded() {
        let c = Client::new("http://h:1", None, ClientOptions::default()).unwrap();
        let url = c.endpoint(&["transactor", "de", "FCDE", "21/815/08150"], &[]);
        assert_eq!(url.path(), "/v2/transactor/de/FCDE/21%2F815%2F08150");
        let url = c.endpoint(&["transactors"], &[("name", "Dupont & Fils #2 Société")]);
        let pairs: Vec<_> = url.query_pairs().collect();
        assert_eq!(pairs[0].1, "Dupont & Fils #2 Société");
        let q = url.query().unwrap();
        assert!(
            q.contains("%26") && q.contains("%23") && !q.contains('#'),
            "{q}"
        );
    }

    #[test]
    fn key_never_shows_in_debug() {
        let key = ApiKey::new("s3cret-value");
        let c = Client::new("http://h:1", Some(&key), ClientOptions::default()).unwrap();
        assert!(!format!("{key:?}{c:?}").contains("s3cret"));
    }

    #[test]
    fn validation_body_of_other_shapes_is_kept() {
        assert_eq!(
            validation_fields(br#"{"country":"bad"}"#),
            vec![("country".to_string(), vec!["bad".to_string()])]
        );
        assert_eq!(validation_fields(b"<html>oops</html>")[0].0, "body");
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("3"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(3)));
        h.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(parse_retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(parse_retry_after(&h), None);
    }

    #[test]
    fn a_404_is_no_such_company_only_with_the_services_json() {
        let url = Url::parse("http://h:1/v2/companies/x/ratings").unwrap();
        let status = StatusCode::NOT_FOUND;
        let e = error_from_status(status, br#"{"detail": "Not found."}"#, None, &url, "rating");
        assert!(matches!(e, ApiError::NotFound { .. }), "{e:?}");
        for body in [&b"<html>404</html>"[..], b"", b"null", b"[]", b"Not Found"] {
            let e = error_from_status(status, body, None, &url, "rating");
            match &e {
                ApiError::Decode { message, .. } => {
                    assert!(message.contains("check --base-url"), "{message}")
                }
                other => panic!("{body:?}: {other:?}"),
            }
            assert!(!e.is_transient());
        }
    }

    #[test]
    fn a_403_about_the_key_is_a_refused_key_and_any_other_a_refused_product() {
        let url = Url::parse("http://h:1/v2/ratings").unwrap();
        let status = StatusCode::FORBIDDEN;
        for body in [
            &br#"{"detail": "You couldn't be authenticated."}"#[..],
            br#"{"detail": "Invalid API key."}"#,
            br#"{"message": "Authentication credentials were not provided."}"#,
        ] {
            let e = error_from_status(status, body, None, &url, "rating");
            assert!(
                matches!(e, ApiError::Unauthenticated { status: 403, .. }),
                "{e:?}"
            );
        }
        let e = error_from_status(
            status,
            br#"{"detail": "You do not have permission to perform this action."}"#,
            None,
            &url,
            "rating",
        );
        assert!(matches!(e, ApiError::Forbidden { .. }), "{e:?}");
        assert!(e.stops_calls() && !e.is_transient());
    }
}
