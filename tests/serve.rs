//! `ratewatch serve`: its pages and forms over a database the simulator's runs made, asked
//! in-process through `serve::router` (tower's `oneshot`, no socket). Who may see and
//! change what (a token, the origin and CSRF token of a change, `--read-only`), markup and
//! control characters in the data shown inert, and the changes made on the pages as the
//! commands and the next runs see them. The binary, on a random loopback port, for what
//! only it does: its URL first, its token file and flags, its refusals at start, a clean
//! stop on SIGTERM. The limits on slow and hostile clients (deadlines, connection caps,
//! wrong tokens) are tested on the server in-process over real connections, with deadlines
//! a test can wait for.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::ServiceExt;

use crate::common::{Background, Workspace, rows_by_ref, sample_sim};
use ratewatch::alerts::Rules;
use ratewatch::serve::{App, Limits, Options};
use ratewatch::sim::Endpoint;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// The host the in-process requests are addressed to, as a browser on this machine names
/// the server (no socket is bound: any loopback name and port would do).
const HOST: &str = "127.0.0.1:8080";

/// The pages of `ratewatch serve` over a workspace's database, asked in-process: each
/// request goes to the router the server answers its connections with.
pub(crate) struct Pages {
    router: axum::Router,
    url: String,
    runtime: tokio::runtime::Runtime,
}

/// An answer: its status, headers and body.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Pages {
    /// The pages as `ratewatch serve --db DB` run in `ws` shows them.
    pub(crate) fn of(ws: &Workspace) -> Pages {
        Pages::with(ws, |_| {})
    }

    /// The same with the options `change` makes (`--read-only`, a token).
    pub(crate) fn with(ws: &Workspace, change: impl FnOnce(&mut Options)) -> Pages {
        let mut options = Options {
            db: ws.db(),
            rules: rules_of(ws),
            read_only: false,
            token: None,
            users: Vec::new(),
            limits: Limits::default(),
            reader: Default::default(),
        };
        change(&mut options);
        Pages {
            router: ratewatch::serve::router(App::new(options).unwrap()),
            url: format!("http://{HOST}"),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    /// `request`, sent to `HOST` unless it names another host.
    fn send(&self, mut request: Request<Body>) -> Answer {
        let headers = request.headers_mut();
        if !headers.contains_key(header::HOST) {
            headers.insert(header::HOST, HeaderValue::from_static(HOST));
        }
        self.runtime.block_on(async {
            let response = self.router.clone().oneshot(request).await.unwrap();
            let (parts, body) = response.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            Answer {
                status: parts.status,
                headers: parts.headers,
                body: String::from_utf8(body.to_vec()).unwrap(),
            }
        })
    }

    pub(crate) fn get(&self, path: &str) -> Answer {
        self.get_with(path, &[])
    }

    pub(crate) fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = Request::get(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request.body(Body::empty()).unwrap())
    }

    /// A form posted as the server's own pages post it (the Origin of the server), plus
    /// `headers`; an empty Origin among them sends none.
    pub(crate) fn post(
        &self,
        path: &str,
        form: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Answer {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = Request::post(path)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("content-length", body.len());
        let mut origin = true;
        for (name, value) in headers {
            if name.eq_ignore_ascii_case("origin") {
                origin = false;
                if value.is_empty() {
                    continue;
                }
            }
            request = request.header(*name, *value);
        }
        if origin {
            request = request.header("origin", &self.url);
        }
        self.send(request.body(Body::from(body)).unwrap())
    }

    /// The CSRF token the pages' forms carry.
    pub(crate) fn csrf(&self) -> String {
        let page = self.get("/").body;
        let at = page
            .find("name=\"csrf\" value=\"")
            .expect("a form with its CSRF token");
        let rest = &page[at + "name=\"csrf\" value=\"".len()..];
        rest[..rest.find('"').unwrap()].to_string()
    }
}

/// The alert rules `ratewatch serve` run in `ws` takes from its ratewatch.toml, read as the
/// command reads them.
fn rules_of(ws: &Workspace) -> Rules {
    use clap::Parser;
    use ratewatch::settings::cli::Cli;
    use ratewatch::settings::config::Sources;
    let file = ws.path("ratewatch.toml");
    if !file.exists() {
        return Rules::default();
    }
    let cli =
        Cli::try_parse_from(["ratewatch", "--config", file.to_str().unwrap(), "config"]).unwrap();
    Sources::load(Some(&cli.config), |_| None)
        .unwrap()
        .alert_rules()
}

/// `ratewatch ARGS… --db DB` in the workspace.
fn ratewatch(ws: &Workspace, args: &[&str]) -> std::process::Output {
    ws.ratewatch(args).db(ws.db()).run()
}

fn json_of(ws: &Workspace, args: &[&str]) -> Value {
    let out = ratewatch(ws, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A database of one screening of the sample.
fn screened(sim: &Background) -> Workspace {
    let ws = Workspace::new();
    ws.screen(sim, &sample()).assert().code(3);
    ws
}

/// The company id of the alert whose refs are `reference`, as the inbox shows it.
fn company_of(page: &str, reference: &str) -> String {
    let refs = format!("<td class=\"refs\">{reference}");
    let at = page
        .find(&refs)
        .unwrap_or_else(|| panic!("{reference} in {page}"));
    let before = &page[..at];
    let row = &before[before.rfind("data-company=\"").unwrap() + "data-company=\"".len()..];
    row[..row.find('"').unwrap()].to_string()
}

#[test]
fn every_page_answers_with_the_policy() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let server = Pages::of(&ws);
    let inbox = server.get("/");
    assert_eq!(inbox.status, StatusCode::OK);
    let zhao = company_of(&inbox.body, "C-1001, C-1002, C-1003");
    for path in [
        "/".to_string(),
        "/review".to_string(),
        format!("/company/{zhao}"),
        "/portfolio?name=portfolio".to_string(),
        "/search?q=C-1001".to_string(),
    ] {
        let page = server.get(&path);
        assert_eq!(page.status, StatusCode::OK, "{path}: {}", page.body);
        let policy = page.headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(!policy.contains("unsafe-inline"), "{policy}");
        assert_eq!(page.headers["x-content-type-options"], "nosniff");
        assert_eq!(page.headers["referrer-policy"], "same-origin");
        assert!(!page.body.contains("<script"), "{path}: no script");
        assert!(!page.body.contains("style=\""), "{path}: no inline style");
        assert!(!page.body.contains(crate::common::KEY), "{path}");
    }
    let company = server.get(&format!("/company/{zhao}")).body;
    assert!(company.contains("Zhao Robotique"), "{company}");
    assert!(
        company.contains("C-1001") && company.contains("C-1003"),
        "{company}"
    );
    assert!(
        company.contains("class=\"period\""),
        "a color timeline: {company}"
    );
    let portfolio = server.get("/portfolio?name=portfolio").body;
    assert!(portfolio.contains("id=\"calls-this-month\""), "{portfolio}");
    assert!(
        portfolio.contains("ambiguous") && portfolio.contains("C-1006"),
        "{portfolio}"
    );
    let search = server.get("/search?q=C-1001").body;
    assert!(search.contains(&format!("/company/{zhao}")), "{search}");
    let search = server.get("/search?q=robotique%20loire").body;
    assert!(
        search.contains(&format!("/company/{zhao}")),
        "by name: {search}"
    );
    let search = server.get(&format!("/search?q={zhao}")).body;
    assert!(search.contains("found by company id"), "{search}");
    assert_eq!(server.get("/company/nothing").status, StatusCode::NOT_FOUND);
    // A page elsewhere pointing its own name at this machine is not answered.
    let rebound = server.get_with("/", &[("host", "evil.example")]);
    assert_eq!(rebound.status, StatusCode::MISDIRECTED_REQUEST);
}

/// What only the binary does: its URL first, on a port of its own; the token read from
/// its file; `--read-only` taken; a clean stop on SIGTERM; and no start on an address but
/// a loopback one without a token.
#[test]
fn the_binary_says_its_url_takes_its_token_file_and_flags_and_stops_on_sigterm() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let token = "correct-horse-battery-staple-and-more";
    let file = ws.write("serve-token", format!("{token}\n").as_bytes());
    let server = ws
        .ratewatch([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--read-only",
            "--token-file",
        ])
        .arg(&file)
        .db(ws.db())
        .serve();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inbox = |bearer: Option<&str>| {
        runtime.block_on(async {
            let mut request = reqwest::Client::new().get(format!("{}/", server.url));
            if let Some(bearer) = bearer {
                request = request.bearer_auth(bearer);
            }
            let answer = request.send().await.unwrap();
            (answer.status(), answer.text().await.unwrap())
        })
    };
    let (status, refused) = inbox(None);
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(refused.contains("action=\"/login\""), "the login form");
    let (status, page) = inbox(Some(token));
    assert_eq!(
        status,
        StatusCode::OK,
        "the token, without the file's line end"
    );
    assert!(page.contains("C-1004"), "{page}");
    assert!(page.contains("Read-only") && !page.contains("method=\"post\""));
    assert!(server.stop().success(), "SIGTERM stops it cleanly");

    // Any address but a loopback one needs a token.
    let out = ratewatch(&ws, &["serve", "--bind", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--token-file"), "{said}");
}

#[test]
fn with_a_token_every_request_carries_it_and_the_login_sets_a_cookie_that_is_not_the_token() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let token = "correct-horse-battery-staple-and-more";
    let server = Pages::with(&ws, |options| options.token = Some(token.into()));
    for path in [
        "/",
        "/review",
        "/portfolio?name=portfolio",
        "/search?q=C-1001",
    ] {
        let refused = server.get(path);
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{path}");
        assert!(refused.body.contains("action=\"/login\""), "the login form");
        assert!(
            !refused.body.contains("C-1001"),
            "{path}: nothing of the portfolio"
        );
    }
    let wrong = format!("Bearer {token}x");
    assert_eq!(
        server.get_with("/", &[("authorization", &wrong)]).status,
        StatusCode::UNAUTHORIZED
    );
    let bearer = format!("Bearer {token}");
    assert_eq!(
        server.get_with("/", &[("authorization", &bearer)]).status,
        StatusCode::OK
    );
    // A change without the token is refused before anything else is looked at.
    let ack = server.post("/ack", &[("company", "C-1004")], &[]);
    assert_eq!(ack.status, StatusCode::UNAUTHORIZED);

    let failed = server.post("/login", &[("token", "guess")], &[]);
    assert_eq!(failed.status, StatusCode::UNAUTHORIZED);
    assert!(failed.headers.get("set-cookie").is_none());
    let login = server.post("/login", &[("token", token)], &[]);
    assert_eq!(login.status, StatusCode::SEE_OTHER);
    assert_eq!(login.headers["location"], "/");
    let cookie = login.headers["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(
        !cookie.contains(token),
        "the cookie is not the token: {cookie}"
    );
    let session = cookie.split(';').next().unwrap();
    let inbox = server.get_with("/", &[("cookie", session)]);
    assert_eq!(inbox.status, StatusCode::OK);
    assert!(inbox.body.contains("C-1004"));
    assert!(!inbox.body.contains(token), "the token is never shown");
    let forged = server.get_with("/", &[("cookie", &format!("ratewatch_session={token}"))]);
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED);
}

#[test]
fn a_cross_site_post_and_one_without_its_csrf_token_are_refused() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let server = Pages::of(&ws);
    let inbox = server.get("/").body;
    let black = company_of(&inbox, "C-1004");
    let csrf = server.csrf();
    let form = [
        ("csrf", csrf.as_str()),
        ("company", black.as_str()),
        ("note", "seen"),
    ];
    for (why, headers) in [
        ("another site", vec![("origin", "http://evil.example")]),
        ("another port", vec![("origin", "http://127.0.0.1:1")]),
        ("an opaque origin", vec![("origin", "null")]),
        ("neither Origin nor Referer", vec![("origin", "")]),
        (
            "a Referer of another site",
            vec![("origin", ""), ("referer", "http://evil.example/page")],
        ),
    ] {
        let refused = server.post("/ack", &form, &headers);
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{why}");
    }
    let without = server.post("/ack", &[("company", black.as_str())], &[]);
    assert_eq!(without.status, StatusCode::FORBIDDEN, "no CSRF token");
    let forged = server.post(
        "/ack",
        &[
            ("csrf", &"0".repeat(csrf.len())),
            ("company", black.as_str()),
        ],
        &[],
    );
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "a wrong CSRF token");
    let decide = server.post(
        "/review/decide",
        &[("ref", "C-1018"), ("decision", "ignore")],
        &[],
    );
    assert_eq!(decide.status, StatusCode::FORBIDDEN, "no CSRF token");
    assert_eq!(json_of(&ws, &["acks", "--json"]), serde_json::json!([]));
    assert!(
        json_of(&ws, &["review", "list", "--json"])["decisions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The same form from the server's own page (its Referer) is taken.
    let referer = format!("{}/", server.url);
    let taken = server.post("/ack", &form, &[("origin", ""), ("referer", &referer)]);
    assert_eq!(taken.status, StatusCode::SEE_OTHER);
    assert_eq!(
        json_of(&ws, &["acks", "--json"])[0]["company_id"],
        black.as_str()
    );
}

/// The sample portfolio with its lines edited by `edit` and an `owner` column holding
/// `owner` (as written in the CSV), which the alerts show, screened once in `ws`.
fn sample_screened_with_owner(
    sim: &Background,
    ws: &Workspace,
    owner: &str,
    edit: impl Fn(&str) -> String,
) {
    let text = std::fs::read_to_string(sample()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut portfolio = format!("{header},owner\n");
    for line in lines {
        portfolio.push_str(&format!("{},{owner}\n", edit(line)));
    }
    let file = ws.write("portfolio.csv", portfolio.as_bytes());
    ws.write("ratewatch.toml", b"[alerts]\nshow = [\"owner\"]\n");
    ws.screen(sim, &file).assert().code(3);
}

#[test]
fn markup_in_a_company_name_a_ref_and_a_carried_column_is_shown_as_text_on_every_page() {
    let sim = sample_sim();
    let ws = Workspace::new();
    // A ref and a carried column with markup, in the portfolio itself.
    sample_screened_with_owner(&sim, &ws, "\"<img src=x onerror=alert(2)>\"", |line| {
        line.replacen("C-1004", "C-1004<b>x</b>", 1)
    });
    let script = "<script>alert(1)</script>";
    rusqlite::Connection::open(ws.db())
        .unwrap()
        .execute(
            "UPDATE companies SET name = ?1 || name WHERE name LIKE 'Zhao Robotique%'",
            [script],
        )
        .unwrap();
    let server = Pages::of(&ws);
    let inbox = server.get("/").body;
    let zhao = company_of(&inbox, "C-1001, C-1002, C-1003");
    for path in [
        "/".to_string(),
        format!("/company/{zhao}"),
        "/search?q=C-1001".to_string(),
        format!("/search?q={}", "%3Cscript%3E"),
    ] {
        let page = server.get(&path).body;
        assert!(!page.contains("<script"), "{path}: {page}");
        assert!(
            page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}: {page}"
        );
    }
    assert!(!inbox.contains("<b>x</b>") && inbox.contains("C-1004&lt;b&gt;x&lt;/b&gt;"));
    assert!(!inbox.contains("<img") && inbox.contains("&lt;img src=x onerror=alert(2)&gt;"));
    let portfolio = server.get("/portfolio?name=portfolio").body;
    assert!(!portfolio.contains("<img") && !portfolio.contains("<b>x"));
}

#[test]
fn read_only_refuses_every_change_and_shows_no_form() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let server = Pages::with(&ws, |options| options.read_only = true);
    for path in ["/", "/review"] {
        let page = server.get(path).body;
        assert!(!page.contains("method=\"post\""), "{path}: no form");
        assert!(page.contains("Read-only"), "{path}");
    }
    let review = json_of(&ws, &["review", "list", "--json"]);
    assert!(!review["rows"].as_array().unwrap().is_empty());
    for (path, form) in [
        ("/ack", vec![("company", "C-1004")]),
        (
            "/review/decide",
            vec![("ref", "C-1018"), ("decision", "ignore")],
        ),
    ] {
        let refused = server.post(path, &form, &[]);
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(json_of(&ws, &["acks", "--json"]), serde_json::json!([]));
}

#[test]
fn an_acknowledgement_made_on_the_inbox_is_in_acks_and_takes_the_company_out_of_the_next_summary() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.write("ratewatch.toml", b"[alerts]\nrepeat = \"daily\"\n");
    ws.screen(&sim, &sample()).assert().code(3);
    let server = Pages::of(&ws);
    let inbox = server.get("/").body;
    let black = company_of(&inbox, "C-1004");
    let csrf = server.csrf();
    let done = server.post(
        "/ack",
        &[
            ("csrf", csrf.as_str()),
            ("company", black.as_str()),
            ("note", "credit stopped"),
            ("until", ""),
            ("back", "/"),
        ],
        &[],
    );
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    let location = done.headers["location"].to_str().unwrap().to_string();
    assert!(location.starts_with("/?said="), "{location}");
    let said = server.get(&location).body;
    assert!(said.contains("acknowledged at black"), "{said}");
    // The inbox shows it apart: acknowledged, no longer to act on.
    let open = &said[said.find("To act on").unwrap()..said.find("Acknowledged (").unwrap()];
    assert!(!open.contains(&black), "{open}");
    let acked = &said[said.find("Acknowledged (").unwrap()..];
    assert!(acked.contains(&black) && acked.contains("credit stopped"));

    let acks = json_of(&ws, &["acks", "--json"]);
    assert_eq!(acks[0]["company_id"], black.as_str());
    assert_eq!(acks[0]["note"], "credit stopped");
    assert_eq!(acks[0]["color"], "black");

    crate::common::a_night_passes(&ws.db());
    let out = ws.screen(&sim, &sample()).run();
    let summary = String::from_utf8(out.stdout).unwrap();
    let listed = |reference: &str| {
        summary
            .lines()
            .any(|l| l.starts_with("  ") && l.contains(reference))
    };
    assert!(!listed("C-1004"), "{summary}");
    assert!(listed("C-1010"), "the others are still listed: {summary}");
    assert!(summary.contains("1 alert acknowledged"), "{summary}");
    assert_eq!(rows_by_ref(&ws.report())["C-1004"]["acknowledged"], true);
}

#[test]
fn a_candidate_accepted_on_the_review_page_is_rated_by_the_next_run_without_a_search() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let by_name = || sim.server.stats().calls(Endpoint::CompaniesByName);
    let searching_all = || {
        let before = by_name();
        ws.screen(&sim, &sample())
            .arg("--refresh-resolutions")
            .assert()
            .code(3);
        by_name() - before
    };
    let searches = searching_all();
    let server = Pages::of(&ws);
    let review = server.get("/review").body;
    let at = review
        .find("data-ref=\"C-1006\"")
        .expect("the ambiguous row");
    let section = &review[at..review[at..].find("</section>").unwrap() + at];
    assert!(
        section.contains("Bordeaux"),
        "candidates with their address: {section}"
    );
    assert_eq!(section.matches("value=\"accept\"").count(), 3, "{section}");
    let list = json_of(&ws, &["review", "list", "--json"]);
    let row = list["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == "C-1006")
        .unwrap();
    let chosen = row["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["city"] == "Bordeaux")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let csrf = server.csrf();
    // A company the row was not offered is refused, and nothing is recorded.
    let other = server.post(
        "/review/decide",
        &[
            ("csrf", csrf.as_str()),
            ("ref", "C-1006"),
            ("decision", "accept"),
            ("company", "fc1e733d-c34f-4564-940a-51e0f4d721c0"),
        ],
        &[],
    );
    let location = other.headers["location"].to_str().unwrap().to_string();
    assert!(location.starts_with("/review?error="), "{location}");
    assert!(
        server
            .get(&location)
            .body
            .contains("is not among the companies offered")
    );
    let accepted = server.post(
        "/review/decide",
        &[
            ("csrf", csrf.as_str()),
            ("ref", "C-1006"),
            ("decision", "accept"),
            ("company", &chosen),
        ],
        &[],
    );
    assert_eq!(accepted.status, StatusCode::SEE_OTHER);
    let list = json_of(&ws, &["review", "list", "--json"]);
    assert_eq!(list["decisions"][0]["ref"], "C-1006");
    assert_eq!(list["decisions"][0]["company_id"], chosen.as_str());
    assert_eq!(list["decisions"][0]["source"], "web page");
    let review = server.get("/review").body;
    assert!(!review.contains("<section class=\"problem status-ambiguous\" data-ref=\"C-1006\""));

    assert_eq!(
        searching_all(),
        searches - 1,
        "no search for the accepted row"
    );
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1006"]["status"], "rated");
    assert_eq!(rows["C-1006"]["company_id"], chosen.as_str());

    // Ignore, then revoke: the next run searches the row again.
    for decision in ["ignore", "revoke"] {
        let done = server.post(
            "/review/decide",
            &[
                ("csrf", csrf.as_str()),
                ("ref", "C-1018"),
                ("decision", decision),
            ],
            &[],
        );
        let location = done.headers["location"].to_str().unwrap();
        assert!(
            location.starts_with("/review?said="),
            "{decision}: {location}"
        );
    }
    let list = json_of(&ws, &["review", "list", "--json"]);
    assert_eq!(list["decisions"].as_array().unwrap().len(), 1, "{list}");
}

#[test]
fn the_portfolio_s_trend_shows_each_night_s_new_red_and_black() {
    let sim = sample_sim();
    let ws = screened(&sim);
    crate::common::a_night_passes(&ws.db());
    sim.server.set_day(2);
    ws.screen(&sim, &sample()).assert().code(3);
    let new_red = ws.report()["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["color"] == "red" && r["change"] != "new" && r["change"] != "unchanged")
        .count();
    assert!(new_red > 0, "the sample's second night turns companies red");
    let server = Pages::of(&ws);
    let page = server.get("/portfolio?name=portfolio").body;
    let nights: Vec<&str> = page.split("<tr class=\"trend-run\"").skip(1).collect();
    assert_eq!(nights.len(), 2, "{page}");
    assert!(
        nights[0].contains("<td class=\"new-red\">0</td>"),
        "a first screening is no news: {}",
        nights[0]
    );
    assert!(
        nights[1].contains(&format!("<td class=\"new-red\">{new_red}</td>")),
        "{}",
        nights[1]
    );
}

#[test]
fn a_page_says_only_what_the_server_signed() {
    let sim = sample_sim();
    let ws = screened(&sim);
    let server = Pages::of(&ws);
    let forged = "Call 555-0100 to unlock your account";
    for key in ["said", "error"] {
        let page = server.get(&format!("/?{key}={}&sig=00", forged.replace(' ', "%20")));
        assert_eq!(page.status, StatusCode::OK);
        assert!(!page.body.contains("555-0100"), "{key}: {}", page.body);
    }
}

#[test]
fn acknowledgements_made_on_the_page_during_a_screening_are_kept_and_break_nothing() {
    let (sim, ws, file) = crate::common::a_slow_night();
    let companies = rows_by_ref(&ws.report());
    let server = Pages::of(&ws);
    let csrf = server.csrf();

    sim.server.set_day(5);
    let mut run = ws.screen(&sim, &file).args(["--concurrency", "2"]).spawn();
    let (mut acked, mut rounds) = (Vec::new(), 0);
    while !run.ended() && rounds < 200 {
        rounds += 1;
        let reference = format!("R{:07}", 1 + (rounds * 7) % 240);
        let done = server.post(
            "/ack",
            &[
                ("csrf", csrf.as_str()),
                ("company", reference.as_str()),
                ("note", "beside a run"),
                ("until", ""),
                ("back", "/"),
            ],
            &[],
        );
        assert_eq!(
            done.status,
            StatusCode::SEE_OTHER,
            "{reference}: {}",
            done.body
        );
        let location = done.headers["location"].to_str().unwrap();
        // A row that is not rated has no company to acknowledge: said so, never a failure
        // to write.
        if location.starts_with("/?said=") {
            acked.push(
                companies[&reference]["company_id"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        } else {
            assert!(location.contains("No%20company%20matches"), "{location}");
        }
        assert_eq!(server.get("/").status, StatusCode::OK, "reads never wait");
    }
    let out = run.finish();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "the screening ran to its end beside {rounds} acknowledgements: {out:?}"
    );
    assert!(rounds >= 2, "the run was too short to meet the page");
    assert!(
        !acked.is_empty(),
        "some acknowledgement was made during the run"
    );
    let acks = json_of(&ws, &["acks", "--json"]);
    assert!(
        acked.iter().any(|c| acks.to_string().contains(c.as_str())),
        "{acked:?}: {acks}"
    );
    crate::common::assert_acks_kept_unless_changed(&ws, &acks, &acked);
}

/// `ratewatch serve` in-process on a random loopback port, over a new empty database, with
/// `limits` (deadlines short enough for a test) and `token`.
struct InProcess {
    address: SocketAddr,
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<Result<(), ratewatch::Error>>,
    _dir: tempfile::TempDir,
}

impl InProcess {
    async fn start(limits: Limits, token: Option<&str>) -> InProcess {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ratewatch.db");
        drop(ratewatch::store::Store::open(&db).unwrap());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let options = Options {
            db,
            rules: Rules::default(),
            read_only: false,
            token: token.map(str::to_string),
            users: Vec::new(),
            limits,
            reader: Default::default(),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(ratewatch::serve::serve(listener, options, async {
            let _ = stopped.await;
        }));
        InProcess {
            address,
            url: format!("http://{address}"),
            stop: Some(stop),
            server,
            _dir: dir,
        }
    }

    /// A client whose connections come from `ip` (any of 127/8 is this machine), each
    /// closed after its answer.
    fn client_from(&self, ip: &str) -> reqwest::Client {
        reqwest::Client::builder()
            .local_address(ip.parse::<IpAddr>().unwrap())
            .pool_max_idle_per_host(0)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
    }

    /// A connection from `ip` that sends nothing yet.
    async fn connect_from(&self, ip: &str) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::new(ip.parse().unwrap(), 0))
            .unwrap();
        socket.connect(self.address).await.unwrap()
    }

    /// Stops the server as Ctrl-C would; it must end cleanly.
    async fn stop(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(10), &mut self.server)
            .await
            .expect("the server stops")
            .unwrap()
            .unwrap();
    }
}

/// Everything a connection receives until the server closes it, within `within`.
async fn until_closed(stream: &mut TcpStream, within: Duration) -> String {
    let mut received = Vec::new();
    match tokio::time::timeout(within, stream.read_to_end(&mut received)).await {
        Ok(Ok(_)) => {}
        // A connection closed with what it had not read yet is reset: cut all the same.
        Ok(Err(e)) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
        Err(_) => panic!("still open after {within:?}"),
    }
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_cut_at_their_deadline_and_the_others_are_answered_meanwhile() {
    let deadline = Duration::from_secs(2);
    let server = InProcess::start(
        Limits {
            header_time: deadline,
            body_time: deadline,
            ..Limits::default()
        },
        None,
    )
    .await;
    let address = server.address;
    let started = Instant::now();
    // Headers that never end, on twenty connections…
    let mut headers = Vec::new();
    for _ in 0..20 {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .await
            .unwrap();
        headers.push(stream);
    }
    // …and a login form's body that never comes whole.
    let mut body = TcpStream::connect(address).await.unwrap();
    body.write_all(
        format!(
            "POST /login HTTP/1.1\r\nHost: {address}\r\nOrigin: http://{address}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken="
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    // Meanwhile, requests sent whole are answered at once.
    let client = server.client_from("127.0.0.1");
    for path in ["/", "/style.css"] {
        let answer = client
            .get(format!("{}{path}", server.url))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
    }
    assert!(
        started.elapsed() < deadline,
        "answered while the slow ones were still held (this machine was too slow to tell)"
    );
    // Then each slow one is cut at its deadline, not before.
    for stream in &mut headers {
        let said = until_closed(stream, Duration::from_secs(10)).await;
        assert!(!said.contains(" 200 "), "{said}");
    }
    let said = until_closed(&mut body, Duration::from_secs(10)).await;
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(said.to_lowercase().contains("connection: close"), "{said}");
    assert!(started.elapsed() >= deadline);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holds_few_connections_and_beyond_the_cap_the_others_wait_their_turn() {
    let server = InProcess::start(
        Limits {
            connections: 3,
            connections_per_client: 2,
            ..Limits::default()
        },
        None,
    )
    .await;
    let style = |from: &str| {
        let request = server
            .client_from(from)
            .get(format!("{}/style.css", server.url))
            .send();
        async move { request.await.unwrap().status() }
    };
    let first = server.connect_from("127.0.0.1").await;
    let _second = server.connect_from("127.0.0.1").await;
    // A third connection from the same address is answered 503 at once, and closed.
    let mut third = server.connect_from("127.0.0.1").await;
    let said = until_closed(&mut third, Duration::from_secs(5)).await;
    assert!(said.starts_with("HTTP/1.1 503"), "{said}");
    assert!(said.contains("Retry-After:"), "{said}");
    // Another address is served beside them.
    assert_eq!(style("127.0.0.2").await, StatusCode::OK);
    // With every connection taken, a new one waits to be accepted…
    let _held = server.connect_from("127.0.0.2").await;
    let waiting = tokio::spawn(style("127.0.0.3"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "served beyond the cap");
    // …and is served as soon as one ends.
    drop(first);
    let status = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("served once a connection ended")
        .unwrap();
    assert_eq!(status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sixth_wrong_token_from_an_address_is_answered_429_and_the_others_still_get_in() {
    let token = "an-example-token-of-forty-characters-0001";
    let server = InProcess::start(Limits::default(), Some(token)).await;
    let login = |from: &str, given: &str| {
        let request = server
            .client_from(from)
            .post(format!("{}/login", server.url))
            .header("origin", &server.url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("token={given}"))
            .send();
        async move { request.await.unwrap() }
    };
    let inbox = |from: &str, given: &str| {
        let request = server
            .client_from(from)
            .get(format!("{}/", server.url))
            .bearer_auth(given)
            .send();
        async move { request.await.unwrap() }
    };
    let retry_after = |answer: &reqwest::Response| -> u64 {
        answer.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    // The login form, from one address.
    for n in 1..=5 {
        let wrong = login("127.0.0.1", &format!("guess-{n}")).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "try {n}");
    }
    let sixth = login("127.0.0.1", "guess-6").await;
    assert_eq!(sixth.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!((1..=60).contains(&retry_after(&sixth)));
    assert!(sixth.headers().contains_key("content-security-policy"));
    // The right token too: the address tries no token until the minute ends.
    let right = login("127.0.0.1", token).await;
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(right.headers().get("set-cookie").is_none());
    // Another address gets in.
    let other = login("127.0.0.2", token).await;
    assert_eq!(other.status(), StatusCode::SEE_OTHER);
    assert!(other.headers().contains_key("set-cookie"));

    // A wrong `Authorization: Bearer`, from a third address.
    for n in 1..=5 {
        let wrong = inbox("127.0.0.3", &format!("guess-{n}")).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "try {n}");
    }
    for given in ["guess-6", token] {
        let refused = inbox("127.0.0.3", given).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!((1..=60).contains(&retry_after(&refused)));
    }
    let other = inbox("127.0.0.4", token).await;
    assert_eq!(other.status(), StatusCode::OK);
    assert!(other.text().await.unwrap().contains("Inbox"));
    server.stop().await;
}

#[test]
fn a_token_file_under_32_characters_is_refused_at_start_with_how_to_make_one() {
    let ws = Workspace::new();
    let short = "correct-horse-battery-staple";
    let file = ws.write("serve-token", format!("  {short}\n").as_bytes());
    let out = ratewatch(
        &ws,
        &[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--token-file",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "no URL printed: {out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(file.to_str().unwrap()), "{said}");
    assert!(said.contains("32 characters"), "{said}");
    assert!(said.contains("head -c 32 /dev/urandom | base64"), "{said}");
    assert!(!said.contains(short), "the token is never said: {said}");
}

#[test]
fn a_bidi_override_in_a_ref_and_an_escape_in_a_carried_column_reach_no_page_raw() {
    let sim = sample_sim();
    let ws = Workspace::new();
    sample_screened_with_owner(&sim, &ws, "\u{1b}[2JDesk\u{7}", |line| {
        line.replacen("C-1004,", "C-1004\u{202e}txt.exe,", 1)
            .replacen("C-1006,", "C-1006\u{202e}x,", 1)
    });
    let server = Pages::of(&ws);
    let inbox = server.get("/").body;
    assert!(inbox.contains("C-1004txt.exe"), "{inbox}");
    assert!(
        inbox.contains(" [2JDesk "),
        "the escape and the bell are spaces: {inbox}"
    );
    let zhao = company_of(&inbox, "C-1001, C-1002, C-1003");
    let pages = [
        "/".to_string(),
        "/review".to_string(),
        format!("/company/{zhao}"),
        "/portfolio?name=portfolio".to_string(),
        "/search?q=C-1004%E2%80%AEtxt.exe".to_string(),
        "/search?q=%1B%5B8m%E2%80%AE".to_string(),
    ];
    for path in &pages {
        let page = server.get(path);
        assert_eq!(page.status, StatusCode::OK, "{path}");
        for raw in ['\u{202e}', '\u{1b}', '\u{7}'] {
            assert!(
                !page.body.contains(raw),
                "{path}: U+{:04X} raw: {}",
                raw as u32,
                page.body
            );
        }
    }
    // The review page's forms still name the row as the database does: a decision made
    // there is for the ref with its override, which the form carries as a reference.
    let review = server.get("/review").body;
    assert!(
        review.contains("name=\"ref\" value=\"C-1006&#x202E;x\""),
        "{review}"
    );
    let csrf = server.csrf();
    let decide = |reference: &str| {
        let done = server.post(
            "/review/decide",
            &[
                ("csrf", csrf.as_str()),
                ("ref", reference),
                ("decision", "ignore"),
            ],
            &[],
        );
        done.headers["location"].to_str().unwrap().to_string()
    };
    // The ref as the page shows it names no row; as the form carries it, it does.
    assert!(decide("C-1006x").starts_with("/review?error="));
    let location = decide("C-1006\u{202e}x");
    assert!(location.starts_with("/review?said="), "{location}");
    let said = server.get(&location).body;
    assert!(said.contains("C-1006x: ignored"), "{said}");
    let list = json_of(&ws, &["review", "list", "--json"]);
    assert_eq!(list["decisions"].as_array().unwrap().len(), 1, "{list}");
}
