//! How fast an analyst's SQL answers on a large database: every query of
//! docs/database.md and samples/queries.sql, and every canned query of
//! samples/datasette.yml, timed on a portfolio of 100,000 rows after 30 nights and on a
//! second portfolio of 300 rows beside it.
//!
//! ```text
//! cargo bench --bench sql                               # 100,000 rows, 30 nights
//! cargo bench --bench sql -- --quick                    # 10,000 rows, 5 nights
//! cargo bench --bench sql -- --rows 50000 --nights 10   # another size
//! cargo bench --bench sql -- --rebuild                  # the database built again
//! cargo bench --bench sql -- --db DIR                   # DIR/ratewatch.db as it is
//! ```
//!
//! The database is built once per size and kept under the target folder
//! (`tmp/bench-sql/ROWS-rows-NIGHTS-nights/`), as `serve.rs` builds its own
//! (`common::nights`), but each night on its own date (every time of the database a day
//! back between nights), a hundredth of the rows added, removed and edited each night, and
//! the 300-row `watchlist` screened beside `portfolio` every night.
//!
//! The queries are read from the files, never copied here, and asked as written, their
//! examples' values made this database's: the portfolio's name, a date in the middle of its
//! nights, a SIREN, a company id, a name and references it holds, the amount column. A
//! query naming no portfolio is asked once. Each is asked once to warm up, then [`RUNS`]
//! times over a read-only connection, every row read; the median is printed, with every
//! SCAN of its plan (`*` when it scans one of the large tables, `?` when its alias names a
//! large table in one view and a subquery in another). One run longer than
//! [`GIVE_UP`] is interrupted and not repeated. Targets: each median within 1 s on the
//! 300-row portfolio (Datasette's default limit) and within 3 s on the 100,000 rows.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::nights::{AMOUNT, Nights};

use rusqlite::{Connection, OpenFlags};

/// Timed runs of each query, after one to warm up.
const RUNS: usize = 5;
/// A run this long is interrupted: the query is marked, not repeated.
const GIVE_UP: Duration = Duration::from_secs(60);
/// The rows of the portfolio beside the large one.
const BESIDE: u64 = 300;

/// The targets: a query's median on the small portfolio, on the large one.
const SMALL_TARGET: Duration = Duration::from_secs(1);
const LARGE_TARGET: Duration = Duration::from_secs(3);

/// The tables that grow with the portfolio and the nights: a SCAN of one is marked.
const LARGE_TABLES: [&str; 10] = [
    "ratings",
    "color_period_bounds",
    "rating_confirmations",
    "run_row_spans",
    "run_companies",
    "run_alerts",
    "inputs",
    "companies",
    "company_external_ids",
    "resolutions",
];

struct Options {
    rows: u64,
    nights: u32,
    rebuild: bool,
    /// A folder holding a `ratewatch.db` to time as it is.
    db: Option<PathBuf>,
}

fn options() -> Options {
    let mut o = Options {
        rows: 100_000,
        nights: 30,
        rebuild: false,
        db: None,
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
            "--db" => o.db = Some(args.next().expect("--db DIR").into()),
            _ => {} // cargo passes --bench
        }
    }
    o
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A query as a file gives it: where from, and its text.
struct Query {
    source: String,
    sql: String,
    /// The names of a canned query's parameters (`:name`); none for an example.
    params: Vec<String>,
}

/// Every statement of docs/database.md's ```sql blocks and of samples/queries.sql.
fn examples() -> Vec<Query> {
    let doc = read("docs/database.md");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(start) = doc[at..].find("```sql\n").map(|i| at + i + 7) {
        let end = start + doc[start..].find("```").expect("a closed block");
        let line = doc[..start].lines().count();
        for (n, sql) in statements(&doc[start..end]).into_iter().enumerate() {
            out.push(Query {
                source: format!("database.md:{line} #{}", n + 1),
                sql,
                params: Vec::new(),
            });
        }
        at = end + 3;
    }
    for (n, sql) in statements(&read("samples/queries.sql"))
        .into_iter()
        .enumerate()
    {
        out.push(Query {
            source: format!("queries.sql #{}", n + 1),
            sql,
            params: Vec::new(),
        });
    }
    out
}

/// SQL text cut into statements at the semicolons outside quotes and comments; a piece of
/// comments only is none.
fn statements(text: &str) -> Vec<String> {
    let (mut out, mut current) = (Vec::new(), String::new());
    let (mut quote, mut comment, mut code) = (None::<char>, false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        match (quote, comment) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, true) if c == '\n' => comment = false,
            (None, true) => {}
            (None, false) if c == '-' && chars.peek() == Some(&'-') => comment = true,
            (None, false) if matches!(c, '\'' | '"') => {
                quote = Some(c);
                code = true;
            }
            (None, false) if c == ';' => {
                if code {
                    out.push(current.trim().to_string());
                }
                current.clear();
                code = false;
            }
            (None, false) if !c.is_whitespace() => code = true,
            (None, false) => {}
        }
    }
    out
}

/// The canned queries of samples/datasette.yml, read with a parser of the few YAML forms
/// the file uses (a query's name at 6 spaces, its keys at 8, `params:` as `- name` items,
/// `sql: |-` as a block indented by 10).
fn canned() -> Vec<Query> {
    let text = read("samples/datasette.yml");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let start = lines
        .iter()
        .position(|l| l.trim() == "queries:")
        .expect("queries:")
        + 1;
    let mut out: Vec<Query> = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        match indent(line) {
            6 => out.push(Query {
                source: line.trim().trim_end_matches(':').to_string(),
                sql: String::new(),
                params: Vec::new(),
            }),
            8 if line.trim() == "params:" => {
                while let Some(item) = lines.get(i).and_then(|l| l.strip_prefix("        - ")) {
                    out.last_mut().unwrap().params.push(item.trim().to_string());
                    i += 1;
                }
            }
            8 if line.trim().ends_with("|-") => {
                let mut block = Vec::new();
                while let Some(l) = lines
                    .get(i)
                    .filter(|l| l.trim().is_empty() || indent(l) >= 10)
                {
                    block.push(l.get(10..).unwrap_or(""));
                    i += 1;
                }
                if line.trim() == "sql: |-" {
                    out.last_mut().unwrap().sql = block.join("\n").trim().to_string();
                }
            }
            _ => {}
        }
    }
    out
}

/// What this database holds of one portfolio, for the examples' values.
struct Holding {
    name: String,
    /// A date in the middle of the nights (`2026-11-12`).
    date: String,
    siren: String,
    company_id: String,
    company_name: String,
    refs: [String; 3],
}

fn holding(conn: &Connection, portfolio: &str) -> Holding {
    let one = |sql: &str| -> String {
        conn.query_row(sql, [portfolio], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}: {sql}"))
    };
    let run = "(SELECT id FROM latest_finished_runs WHERE portfolio = ?1)";
    let date = one(
        "SELECT substr(started_at, 1, 10) FROM runs WHERE portfolio = ?1
         ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM runs WHERE portfolio = ?1)",
    );
    let siren = one(&format!(
        "SELECT e.external_id FROM run_rows rr JOIN company_external_ids e ON e.company = rr.company
         WHERE rr.run_id = {run} AND e.service = 'SIREN' ORDER BY rr.line LIMIT 1"
    ));
    let company = |column: &str| {
        one(&format!(
            "SELECT c.{column} FROM run_rows rr JOIN companies c ON c.id = rr.company
             WHERE rr.run_id = {run} AND c.name IS NOT NULL ORDER BY rr.line LIMIT 1"
        ))
    };
    let nth_ref = |n: u32| {
        one(&format!(
            "SELECT i.ref FROM run_rows rr JOIN inputs i ON i.id = rr.input_id
             WHERE rr.run_id = {run} AND i.ref IS NOT NULL ORDER BY rr.line LIMIT 1 OFFSET {n}"
        ))
    };
    Holding {
        name: portfolio.to_string(),
        date,
        siren,
        company_id: company("company_id"),
        company_name: company("name"),
        refs: [nth_ref(0), nth_ref(7), nth_ref(13)],
    }
}

/// An example's SQL with its sample values made this portfolio's: its name, dates, the
/// SIREN, the company id, the company's name, the references and the amount column.
fn made_ours(sql: &str, h: &Holding) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    // Each quoted literal, looked at whole; comments copied as they are.
    while let Some(open) = rest.find(['\'', '-']) {
        if rest[open..].starts_with("--") {
            let end = rest[open..].find('\n').map_or(rest.len(), |n| open + n);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        if rest.as_bytes()[open] == b'-' {
            out.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        }
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('\'').unwrap_or(after.len());
        let literal = &after[..close];
        let is_date = |s: &str| {
            s.len() >= 10
                && s.as_bytes()[4] == b'-'
                && s.as_bytes()[7] == b'-'
                && s[..4].bytes().all(|b| b.is_ascii_digit())
        };
        let ours = match literal {
            "portfolio" => h.name.clone(),
            "C-1001" => h.refs[0].clone(),
            "C-1013" => h.refs[1].clone(),
            "C-1024" => h.refs[2].clone(),
            "$.\"Encours (€)\"" => format!("$.\"{AMOUNT}\""),
            "Zhao Robotique Loire%" => format!("{}%", h.company_name.replace('\'', "''")),
            s if s.len() == 9 && s.bytes().all(|b| b.is_ascii_digit()) => h.siren.clone(),
            s if s.len() == 36 && s.matches('-').count() == 4 => h.company_id.clone(),
            s if is_date(s) && s.len() == 10 => h.date.clone(),
            s if is_date(s) => format!("{}T23:59:59Z", h.date),
            s => s.to_string(),
        };
        out.push('\'');
        out.push_str(&ours);
        out.push('\'');
        rest = after.get(close + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// A canned query's parameters as Datasette binds a form's fields, for this portfolio.
fn bound(params: &[String], h: &Holding) -> Vec<(String, String)> {
    params
        .iter()
        .map(|p| {
            let value = match p.as_str() {
                "portfolio" => h.name.clone(),
                "date" => h.date.clone(),
                "siren" => h.siren.clone(),
                "days" => "14".to_string(),
                "amount_column" => AMOUNT.to_string(),
                "company" | "company_id" => h.company_id.clone(),
                other => panic!("a canned query's parameter this bench cannot fill: {other}"),
            };
            (format!(":{p}"), value)
        })
        .collect()
}

/// Whether a query reads a portfolio: asked once per portfolio, else once. A comment
/// naming `'portfolio'` (queries.sql's header) is not the query's.
fn per_portfolio(q: &Query) -> bool {
    let code = q
        .sql
        .lines()
        .map(|l| l.find("--").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    q.params.iter().any(|p| p == "portfolio") || code.contains("'portfolio'")
}

/// The SCAN steps of a query's plan, `*` before those of a large table: the plan names a
/// table by its alias, found after FROM or JOIN in the query or in the views it reads.
fn scans(conn: &Connection, sql: &str, params: &[(String, String)]) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let named: Vec<(&str, &dyn rusqlite::ToSql)> = params
        .iter()
        .map(|(n, v)| (n.as_str(), v as &dyn rusqlite::ToSql))
        .collect();
    let details: Vec<String> = stmt
        .query_map(&named[..], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut text = sql.to_lowercase();
    let mut views = conn
        .prepare("SELECT lower(sql) FROM sqlite_master WHERE type = 'view'")
        .unwrap();
    for view in views.query_map([], |r| r.get::<_, String>(0)).unwrap() {
        text.push('\n');
        text.push_str(&view.unwrap());
    }
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let spaced: String = text.split_whitespace().collect::<Vec<_>>().join(" ") + " ";
    // `*`: the alias names a large table wherever it is given; `?`: a large table in one
    // place, a subquery or a small table in another.
    let mark = |name: &str| -> &str {
        if LARGE_TABLES.contains(&name) {
            return "*";
        }
        let tables: Vec<&str> = words
            .windows(4)
            .filter_map(|w| {
                let given = matches!(w[0], "from" | "join");
                (given && (w[2] == name || (w[2] == "as" && w[3] == name))).then_some(w[1])
            })
            .collect();
        let derived =
            spaced.contains(&format!(") {name} ")) || spaced.contains(&format!(") as {name} "));
        match tables.iter().filter(|t| LARGE_TABLES.contains(t)).count() {
            0 => "",
            n if n == tables.len() && !derived => "*",
            _ => "?",
        }
    };
    details
        .into_iter()
        .filter(|d| d.starts_with("SCAN ") && !d.contains("VIRTUAL TABLE"))
        .map(|d| {
            let name = d.split_whitespace().nth(1).unwrap_or("");
            format!("{}{d}", mark(name))
        })
        .collect()
}

/// One run: every row read. `None` when interrupted past [`GIVE_UP`].
fn run_once(
    conn: &Connection,
    sql: &str,
    params: &[(String, String)],
) -> Option<(Duration, usize)> {
    let handle = conn.get_interrupt_handle();
    let (done, waiter) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if waiter.recv_timeout(GIVE_UP).is_err() {
            handle.interrupt();
        }
    });
    let began = Instant::now();
    let named: Vec<(&str, &dyn rusqlite::ToSql)> = params
        .iter()
        .map(|(n, v)| (n.as_str(), v as &dyn rusqlite::ToSql))
        .collect();
    let result = (|| -> rusqlite::Result<usize> {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query(&named[..])?;
        let mut n = 0;
        while rows.next()?.is_some() {
            n += 1;
        }
        Ok(n)
    })();
    let took = began.elapsed();
    let _ = done.send(());
    watchdog.join().unwrap();
    match result {
        Ok(n) => Some((took, n)),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            None
        }
        Err(e) => panic!("{e}:\n{sql}"),
    }
}

/// What one query measured on one portfolio.
struct Timed {
    source: String,
    portfolio: String,
    /// `None`: interrupted.
    median: Option<Duration>,
    rows: usize,
    scans: Vec<String>,
    target: Duration,
}

fn time(conn: &Connection, q: &Query, h: Option<&Holding>, target: Duration) -> Timed {
    let (sql, params) = match h {
        Some(h) if q.params.is_empty() => (made_ours(&q.sql, h), Vec::new()),
        Some(h) => (q.sql.clone(), bound(&q.params, h)),
        None => (q.sql.clone(), Vec::new()),
    };
    // A canned query's blank portfolio means every portfolio: it is asked once, with none.
    let params: Vec<(String, String)> = match h {
        None => params,
        Some(_) if per_portfolio(q) => params,
        Some(_) => params
            .into_iter()
            .map(|(n, v)| {
                if n == ":portfolio" {
                    (n, String::new())
                } else {
                    (n, v)
                }
            })
            .collect(),
    };
    let scans = scans(conn, &sql, &params);
    let mut times = Vec::new();
    let mut rows = 0;
    let mut median = None;
    if let Some((_, n)) = run_once(conn, &sql, &params) {
        rows = n;
        for _ in 0..RUNS {
            match run_once(conn, &sql, &params) {
                Some((took, _)) => times.push(took),
                None => break,
            }
        }
        if times.len() == RUNS {
            times.sort();
            median = Some(times[RUNS / 2]);
        }
    }
    Timed {
        source: q.source.clone(),
        portfolio: h.map_or("(all)".to_string(), |h| h.name.clone()),
        median,
        rows,
        scans,
        target,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let o = options();
    println!(
        "ratewatch SQL benchmark: {} rows and {BESIDE} beside them after {} nights, the median \
         of {RUNS} runs after a warm-up",
        o.rows, o.nights
    );
    let dir: PathBuf = match &o.db {
        Some(dir) => {
            println!(
                "database: {} (as it is)",
                dir.join("ratewatch.db").display()
            );
            dir.clone()
        }
        None => {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join("bench-sql")
                .join(format!("{}-rows-{}-nights", o.rows, o.nights));
            Nights {
                rows: o.rows,
                nights: o.nights,
                dated: true,
                churn: true,
                beside: Some(BESIDE),
                rebuild: o.rebuild,
            }
            .build(&dir);
            dir
        }
    };
    let conn = Connection::open_with_flags(
        dir.join("ratewatch.db"),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    let counted = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    println!(
        "  {} runs, {} run rows, {} ratings, {} companies",
        counted("SELECT count(*) FROM runs"),
        counted("SELECT count(*) FROM run_rows"),
        counted("SELECT count(*) FROM ratings"),
        counted("SELECT count(*) FROM companies")
    );
    let large = holding(&conn, "portfolio");
    let small = holding(&conn, "watchlist");
    let queries: Vec<Query> = examples().into_iter().chain(canned()).collect();
    let mut timed = Vec::new();
    for q in &queries {
        if per_portfolio(q) {
            timed.push(time(&conn, q, Some(&small), SMALL_TARGET));
            timed.push(time(&conn, q, Some(&large), LARGE_TARGET));
        } else {
            // Made ours all the same (a SIREN, a date) from the large portfolio.
            let mut t = time(&conn, q, Some(&large), LARGE_TARGET);
            t.portfolio = "(any)".into();
            timed.push(t);
        }
        let t = timed.last().unwrap();
        eprintln!(
            "  {} {}: {}",
            t.source,
            t.portfolio,
            t.median.map_or("interrupted".into(), ms)
        );
    }

    println!(
        "\n{:<26} {:<10} {:>12} {:>8} {:>7}  scans (* a large table)",
        "query", "portfolio", "median", "rows", "target"
    );
    let mut missed = 0;
    for t in &timed {
        let met = t.median.is_some_and(|m| m <= t.target);
        if !met {
            missed += 1;
        }
        println!(
            "{:<26} {:<10} {:>12} {:>8} {:>7}  {}",
            t.source,
            t.portfolio,
            t.median.map_or(format!("> {} s", GIVE_UP.as_secs()), ms),
            t.rows,
            if met { "met" } else { "MISSED" },
            t.scans.join("; ")
        );
    }
    println!(
        "\ntargets: each median within {} s on the {BESIDE}-row portfolio, {} s on the \
         {}-row one: {} of {} met",
        SMALL_TARGET.as_secs(),
        LARGE_TARGET.as_secs(),
        o.rows,
        timed.len() - missed,
        timed.len()
    );
}
