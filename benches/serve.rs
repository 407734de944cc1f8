//! How fast `ratewatch serve` answers a credit manager on a large database: a portfolio of
//! 100,000 rows screened for 30 nights, then each page timed as a browser asks for it.
//!
//! ```text
//! cargo bench --bench serve                               # 100,000 rows, 30 nights
//! cargo bench --bench serve -- --quick                    # 10,000 rows, 5 nights
//! cargo bench --bench serve -- --rows 50000 --nights 10   # another size
//! cargo bench --bench serve -- --rebuild                  # the database built again
//! ```
//!
//! The database is built once per size and kept under the target folder
//! (`tmp/bench-serve/ROWS-rows-NIGHTS-nights/`): the portfolio `demo-server`'s dataset makes,
//! with an amount and an owner carried on every row and shown in the alerts
//! (`[alerts] show` and `amount` in its ratewatch.toml), and a tenth of its name rows
//! without their city, so that some rows wait in the review queue; then a `ratewatch
//! screen` a night against `ratewatch demo-server --day N` (256 requests in flight, no rate
//! limit), the runs moved a day back between nights as the integration tests do.
//!
//! Then `ratewatch serve --db DB --bind 127.0.0.1:0` starts on it. The pages are found as a
//! person finds them, from the inbox: its first company link, its portfolio link, its
//! review link, and its search form sent with a ref the inbox shows. Each page is asked 2
//! times to warm up, then 20 times one after the other; the median, the 95th percentile and
//! the slowest answer are printed, with the server's memory after them (VmRSS and its peak,
//! VmHWM, from /proc). Targets: every page's median within 300 ms, the inbox's and a
//! company page's within 150 ms, the server's peak RSS within 100 MB.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;
use common::Listening;
use common::nights::{Nights, ratewatch};

/// Requests timed per page, after [`WARM_UPS`].
const REQUESTS: usize = 20;
const WARM_UPS: usize = 2;

/// Targets: a page's median answer, the inbox's and a company page's, the server's peak
/// resident memory.
const PAGE_TARGET: Duration = Duration::from_millis(300);
const FAST_TARGET: Duration = Duration::from_millis(150);
const RSS_TARGET_KB: u64 = 100 * 1024;

struct Options {
    rows: u64,
    nights: u32,
    rebuild: bool,
}

fn options() -> Options {
    let mut o = Options {
        rows: 100_000,
        nights: 30,
        rebuild: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |flag: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .filter(|n| *n > 0)
                .unwrap_or_else(|| panic!("{flag} N, N at least 1"))
        };
        match a.as_str() {
            "--rows" => o.rows = number("--rows"),
            "--nights" => o.nights = number("--nights") as u32,
            "--quick" => (o.rows, o.nights) = (10_000, 5),
            "--rebuild" => o.rebuild = true,
            _ => {} // cargo passes --bench
        }
    }
    o
}

/// The folder of one size's database, its portfolio, config and reports.
fn folder(o: &Options) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bench-serve")
        .join(format!("{}-rows-{}-nights", o.rows, o.nights))
}

/// Whether this build of ratewatch has a `serve` command.
fn has_serve() -> bool {
    ratewatch()
        .args(["serve", "--help"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// A page to time: what it is, its address, and the median it should answer within.
struct Page {
    name: String,
    url: String,
    target: Duration,
}

/// What one page's requests measured.
struct Timed {
    page: Page,
    median: Duration,
    p95: Duration,
    max: Duration,
    bytes: usize,
}

/// Asks for `page` [`WARM_UPS`] times, then [`REQUESTS`] times, one after the other; every
/// answer must be a 200.
fn time(runtime: &tokio::runtime::Runtime, client: &reqwest::Client, page: Page) -> Timed {
    let get = |url: &str| -> (Duration, String) {
        let began = Instant::now();
        let (status, body) = runtime.block_on(async {
            let response = client.get(url).send().await.unwrap();
            let status = response.status();
            (status, response.text().await.unwrap())
        });
        let took = began.elapsed();
        assert!(status.is_success(), "GET {url}: {status}\n{body}");
        (took, body)
    };
    for _ in 0..WARM_UPS {
        get(&page.url);
    }
    let mut times = Vec::with_capacity(REQUESTS);
    let mut bytes = 0;
    for _ in 0..REQUESTS {
        let (took, body) = get(&page.url);
        times.push(took);
        bytes = body.len();
    }
    times.sort();
    Timed {
        median: times[REQUESTS / 2],
        p95: times[(REQUESTS * 95).div_ceil(100) - 1],
        max: times[REQUESTS - 1],
        bytes,
        page,
    }
}

/// The pages a person reaches from the inbox at `base`, whose HTML is `inbox`: the first
/// company, the portfolio, the review queue and a search for a ref the inbox shows.
fn discover(base: &str, inbox: &str) -> Vec<Page> {
    let links = links(inbox);
    let mut pages = Vec::new();
    let mut found = |name: &str, href: Option<&String>, target: Duration| match href {
        Some(href) => pages.push(Page {
            name: name.to_string(),
            url: absolute(base, href),
            target,
        }),
        None => println!("  the inbox has no link to {name}: not timed"),
    };
    found(
        "company",
        links.iter().find(|h| h.contains("/compan")),
        FAST_TARGET,
    );
    found(
        "portfolio",
        links.iter().find(|h| h.contains("portfolio")),
        PAGE_TARGET,
    );
    found(
        "review queue",
        links.iter().find(|h| h.contains("review")),
        PAGE_TARGET,
    );
    match (search_form(inbox), first_ref(inbox)) {
        (Some((action, field)), Some(reference)) => pages.push(Page {
            name: format!("search {reference}"),
            url: format!(
                "{}{}{field}={}",
                absolute(base, &action),
                if action.contains('?') { '&' } else { '?' },
                url::form_urlencoded::byte_serialize(reference.as_bytes()).collect::<String>()
            ),
            target: PAGE_TARGET,
        }),
        (None, _) => println!("  the inbox has no search form: search not timed"),
        (_, None) => println!("  the inbox shows no ref to search for: search not timed"),
    }
    pages
}

/// The `href` of every `<a>` in `html`, in order, entities decoded.
fn links(html: &str) -> Vec<String> {
    tags(html, "a")
        .filter_map(|tag| attribute(tag, "href"))
        .collect()
}

/// The opening tags named `name` in `html` (`<a …>`), each without its brackets.
fn tags<'a>(html: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    html.match_indices('<').filter_map(move |(at, _)| {
        let rest = &html[at + 1..];
        let after = rest.get(name.len()..)?;
        let named = rest[..name.len()].eq_ignore_ascii_case(name)
            && after.starts_with(|c: char| c.is_ascii_whitespace() || c == '>');
        named.then(|| &rest[..rest.find('>').unwrap_or(rest.len())])
    })
}

/// The value of `name` in an opening tag, quoted or not, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(name).map(|i| i + from) {
        from = at + name.len();
        let before = lower[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        let rest = tag[from..].trim_start();
        let Some(value) = rest.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let raw = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_ascii_whitespace())
                .next()
                .unwrap(),
        };
        return Some(
            raw.replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&#x27;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        );
    }
    None
}

/// The action of the first form sent with GET that has a search or text field, and that
/// field's name.
fn search_form(html: &str) -> Option<(String, String)> {
    html.match_indices("<form").find_map(|(at, _)| {
        let form = &html[at..];
        let form = &form[..form.find("</form>").unwrap_or(form.len())];
        let open = tags(form, "form").next()?;
        let method = attribute(open, "method").unwrap_or_else(|| "get".into());
        if !method.eq_ignore_ascii_case("get") {
            return None;
        }
        let field = tags(form, "input").find(|input| {
            matches!(
                attribute(input, "type").as_deref().unwrap_or("text"),
                "search" | "text"
            )
        })?;
        Some((attribute(open, "action")?, attribute(field, "name")?))
    })
}

/// The first of this portfolio's refs (`R` and seven digits) in `html`.
fn first_ref(html: &str) -> Option<String> {
    html.match_indices('R').find_map(|(at, _)| {
        let candidate = html.get(at..at + 8)?;
        let digits = candidate[1..].bytes().all(|b| b.is_ascii_digit());
        let alone = !html[at + 8..].starts_with(|c: char| c.is_ascii_alphanumeric());
        (digits && alone).then(|| candidate.to_string())
    })
}

/// `href` as an absolute URL on `base`.
fn absolute(base: &str, href: &str) -> String {
    url::Url::parse(&format!("{base}/"))
        .unwrap()
        .join(href)
        .unwrap()
        .to_string()
}

/// The process's resident memory now and at its peak, in KiB (VmRSS, VmHWM).
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn mark(ok: bool) -> &'static str {
    if ok { "[met]" } else { "[MISSED]" }
}

fn main() {
    let o = options();
    println!(
        "ratewatch serve benchmark: {} rows after {} nights, {REQUESTS} requests a page after \
         {WARM_UPS} warm-ups",
        o.rows, o.nights
    );
    let dir = folder(&o);
    Nights {
        rows: o.rows,
        nights: o.nights,
        dated: false,
        churn: false,
        beside: None,
        rebuild: o.rebuild,
    }
    .build(&dir);
    if !has_serve() {
        println!(
            "this ratewatch has no `serve` command (`ratewatch serve --help` fails): the \
             database is built, there are no pages to time"
        );
        std::process::exit(1);
    }

    let db = dir.join("ratewatch.db");
    let server = Listening::start(
        ratewatch()
            .current_dir(&dir)
            .arg("serve")
            .arg("--db")
            .arg(&db)
            .args(["--bind", "127.0.0.1:0"]),
        "ratewatch serve",
        Some(&dir.join("serve.log")),
    );
    let pid = server.child.id();
    let (rss_at_start, _) = memory(pid);
    println!(
        "serve: {} (pid {pid}), {:.1} MB resident at start",
        server.url,
        rss_at_start as f64 / 1024.0
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let inbox = Page {
        name: "inbox".into(),
        url: format!("{}/", server.url),
        target: FAST_TARGET,
    };
    let html = runtime.block_on(async {
        let response = client.get(&inbox.url).send().await.unwrap();
        assert!(
            response.status().is_success(),
            "GET {}: {}",
            inbox.url,
            response.status()
        );
        response.text().await.unwrap()
    });
    let pages = std::iter::once(inbox).chain(discover(&server.url, &html));
    let timed: Vec<Timed> = pages.map(|page| time(&runtime, &client, page)).collect();
    let (rss, peak) = memory(pid);

    println!(
        "\n{:<22} {:>10} {:>10} {:>10} {:>9}  address",
        "page", "median", "p95", "max", "KB"
    );
    for t in &timed {
        println!(
            "{:<22} {:>10} {:>10} {:>10} {:>9.1}  {}",
            t.page.name,
            ms(t.median),
            ms(t.p95),
            ms(t.max),
            t.bytes as f64 / 1024.0,
            t.page.url.strip_prefix(&server.url).unwrap_or(&t.page.url)
        );
    }
    println!(
        "\nserver memory after the requests: {:.1} MB resident, {:.1} MB at its peak",
        rss as f64 / 1024.0,
        peak as f64 / 1024.0
    );
    println!("targets:");
    for t in &timed {
        println!(
            "  {} {}: median {} (target {})",
            mark(t.median <= t.page.target),
            t.page.name,
            ms(t.median),
            ms(t.page.target)
        );
    }
    println!(
        "  {} server peak RSS {:.1} MB (target {} MB)",
        mark(peak <= RSS_TARGET_KB),
        peak as f64 / 1024.0,
        RSS_TARGET_KB / 1024
    );
}
