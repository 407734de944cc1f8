//! The dry run's counts against the calls a real run then makes, on random portfolios:
//! registry ids, names, identifiers that fall back to the next, invalid rows, duplicates,
//! given company_ids, and review's decisions. Each portfolio is screened night after
//! night: the first with nothing cached (the dry run counts at most what the run makes),
//! the second answered by the cache and the third after review's decisions (exact: the
//! dry run says what the run calls), the fourth with new rows (at most again).
//!
//! The seed is printed; `DRY_RUN_SEED=N` screens the same portfolios again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ratewatch::model::RowStatus;
use ratewatch::run::{self, Preview};
use ratewatch::sim::{CompanyRef, Dataset, SimServer};
use serde_json::Value;

use crate::common::{KEY, Workspace, config, screen_request, start};

const PORTFOLIOS: u64 = 4;
const ROWS: u64 = 30;
/// Rows the fourth night adds.
const NEW_ROWS: u64 = 8;

/// SplitMix64: enough randomness for portfolios, and the same ones for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// One line of a portfolio, as written.
#[derive(Debug, Clone, Default)]
struct Row {
    reference: String,
    country: String,
    service: String,
    id: String,
    siret: String,
    name: String,
    city: String,
    company_id: String,
}

const HEADER: &str = "ref,country,service,id,SIRET,name,city,company_id\n";

impl Row {
    /// A registry identifier alone, of a company the service knows.
    fn plain(&self) -> bool {
        !self.service.is_empty()
            && self.service != "CRO"
            && self.siret.is_empty()
            && self.name.is_empty()
    }

    fn line(&self) -> String {
        let fields = [
            &self.reference,
            &self.country,
            &self.service,
            &self.id,
            &self.siret,
            &self.name,
            &self.city,
            &self.company_id,
        ];
        let quoted: Vec<String> = fields
            .iter()
            .map(|f| format!("\"{}\"", f.replace('"', "\"\"")))
            .collect();
        format!("{}\n", quoted.join(","))
    }
}

/// A row of a random kind; `n` numbers its ref, `earlier` are the rows before it.
fn row(rng: &mut Rng, data: &Dataset, n: u64, earlier: &[Row]) -> Row {
    let reference = match rng.below(10) {
        0 => String::new(),
        _ => format!("R{n:03}"),
    };
    let per_country = u64::from(data.per_country());
    let of = |country: usize, rng: &mut Rng| {
        data.company(CompanyRef {
            country,
            n: rng.below(per_country) as u32,
        })
    };
    let company = of(rng.below(10) as usize, rng);
    let mut row = Row {
        reference,
        country: company.address.country_code.clone(),
        ..Row::default()
    };
    match rng.below(100) {
        // The same line again, under its own ref or the earlier one.
        0..10 if !earlier.is_empty() => {
            let mut again = rng.pick(earlier).clone();
            if rng.below(2) == 0 {
                again.reference = row.reference;
            }
            again
        }
        0..39 => {
            let e = rng.pick(&company.external_ids);
            row.service = e.external_service.clone();
            row.id = e.external_id.clone();
            row
        }
        // A French row whose first identifier fails: a SIREN typo before its SIRET, or a
        // SIREN the service does not know before the name.
        39..47 => {
            let french = of(0, rng);
            let siren = &french.external_ids[0].external_id;
            row.country = "FR".into();
            row.service = "SIREN".into();
            if rng.below(2) == 0 {
                let (body, last) = siren.split_at(siren.len() - 1);
                row.id = format!("{body}{}", (last.parse::<u8>().unwrap() + 1) % 10);
                row.siret = french.external_ids[1].external_id.clone();
            } else {
                let digits = format!("{:08}", rng.below(100_000_000));
                row.id = format!("{digits}{}", ratewatch::sim::dataset::luhn_digit(&digits));
                row.name = french.name.clone();
                row.city = french.address.city.clone();
            }
            row
        }
        47..59 => {
            row.name = company.name.clone();
            row.city = company.address.city.clone();
            row
        }
        // Without a city, a name that several companies share is ambiguous.
        59..73 => {
            let shared = (0..30)
                .map(|_| of(company_country(&row), rng))
                .find(|c| shared_name(data, c))
                .unwrap_or(company);
            row.name = shared.name;
            row
        }
        73..76 => {
            row.name = format!("Zzyzx Nowhere {n} Holding");
            row
        }
        76..82 => {
            row.company_id = company.id.to_string();
            row
        }
        // Unknown to the service: its rating is "not found".
        82..86 => {
            row.company_id = format!("00000000-0000-4000-8000-{:012x}", rng.below(1 << 40));
            row
        }
        _ => {
            match rng.below(5) {
                0 => {
                    row.country = "XX".into();
                    row.name = company.name.clone();
                }
                1 => row.id = company.external_ids[0].external_id.clone(),
                // Not a French registry: only the service's lists say so.
                2 => {
                    row.country = "FR".into();
                    row.service = "CRO".into();
                    row.id = "12345678".into();
                }
                3 => row.company_id = "not-a-uuid".into(),
                _ => {}
            }
            row
        }
    }
}

fn company_country(row: &Row) -> usize {
    Dataset::country_index(&row.country).unwrap()
}

/// Whether the company's name, searched alone, finds others of the same name.
fn shared_name(data: &Dataset, company: &ratewatch::api::models::Company) -> bool {
    let country = Dataset::country_index(&company.address.country_code).unwrap();
    let name = ratewatch::sim::dataset::normalize(&company.name);
    let found = data.search_name(country, &company.name, &Default::default());
    found
        .into_iter()
        .filter(|r| ratewatch::sim::dataset::normalize(&data.name(*r)) == name)
        .count()
        > 1
}

fn portfolio(rows: &[Row]) -> Vec<u8> {
    let mut text = HEADER.to_string();
    for r in rows {
        text.push_str(&r.line());
    }
    text.into_bytes()
}

/// The calls the simulator has answered, by endpoint, named as the dry run names them.
fn calls(sim: &SimServer) -> BTreeMap<String, u64> {
    sim.stats()
        .calls
        .into_iter()
        .map(|(e, n)| {
            let name = serde_json::to_value(e).unwrap();
            (name.as_str().unwrap().to_string(), n)
        })
        .collect()
}

fn since(after: &BTreeMap<String, u64>, before: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(e, n)| (e.clone(), n - before.get(e).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// One night: the dry run's counts, then the run's calls and its rows by status.
struct Night {
    preview: Preview,
    made: BTreeMap<String, u64>,
    statuses: Vec<(RowStatus, u64)>,
    rows: u64,
}

async fn night(sim: &SimServer, ws: &Workspace, file: &Path) -> Night {
    let args = ws.screen_args(&sim.base_url(), file);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let request = screen_request(&args, KEY);
    let preview = run::preview(&request).unwrap();
    let before = calls(sim);
    let screened = run::screen(&request, &(), &mut Vec::new()).await.unwrap();
    Night {
        preview,
        made: since(&calls(sim), &before),
        statuses: screened.run.by_status.clone(),
        rows: screened.run.rows,
    }
}

impl Night {
    /// The dry run's calls by endpoint (those that it says are exact, and the searches at
    /// most).
    fn counted(&self) -> BTreeMap<String, u64> {
        self.preview
            .calls
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(e, n)| (e.to_string(), *n))
            .collect()
    }

    /// What the dry run said matches what the run did: exactly when it had no search to
    /// make, else no call beyond its counts.
    fn check(&self, what: &str) {
        let p = &self.preview;
        let counted = self.counted();
        let said = format!("{what}: dry run {p:?}; the run made {:?}", self.made);
        assert_eq!(p.rows, self.rows, "{said}");
        assert_eq!(p.invalid + p.answered + p.searching, p.rows, "{said}");
        if p.searching == 0 {
            assert_eq!(p.ratings_after_searches, 0, "{said}");
            assert_eq!(self.made, counted, "{said}");
            return;
        }
        for (endpoint, made) in &self.made {
            let rating = endpoint.starts_with("rating");
            let most = counted.get(endpoint).copied().unwrap_or(0)
                + if rating { p.ratings_after_searches } else { 0 };
            assert!(*made <= most, "{endpoint}: {made} > {most}; {said}");
        }
        assert!(self.made.values().sum::<u64>() <= p.total(), "{said}");
    }

    fn rows_with(&self, status: RowStatus) -> u64 {
        self.statuses
            .iter()
            .find(|(s, _)| *s == status)
            .map_or(0, |(_, n)| *n)
    }
}

/// Decides on some of the rows `review` lists (accept a candidate, reject, ignore), as a
/// person would; the decisions made, by verb. A row that gives its company_id has no
/// search to decide on.
fn decide(rng: &mut Rng, ws: &Workspace, rows: &[Row]) -> BTreeMap<&'static str, u64> {
    let given: BTreeSet<&str> = rows
        .iter()
        .filter(|r| !r.company_id.is_empty())
        .map(|r| r.reference.as_str())
        .collect();
    let review = |args: &[&str]| {
        let out = ws.ratewatch([&["review"], args].concat()).db(ws.db()).run();
        assert!(out.status.success(), "review {args:?}: {out:?}");
        out.stdout
    };
    let listed: Value = serde_json::from_slice(&review(&["list", "--json"])).unwrap();
    let mut decided: BTreeSet<String> = BTreeSet::new();
    let mut made: BTreeMap<&'static str, u64> = BTreeMap::new();
    for problem in listed["rows"].as_array().unwrap() {
        let Some(reference) = problem["ref"].as_str() else {
            continue;
        };
        if given.contains(reference) || !decided.insert(reference.to_string()) {
            continue;
        }
        let candidates = problem["candidates"].as_array().unwrap();
        let choice = match (problem["status"].as_str().unwrap(), rng.below(4)) {
            ("ambiguous", 0 | 1) => {
                let id = rng.pick(candidates)["id"].as_str().unwrap().to_string();
                Some(("accept", Some(id)))
            }
            ("ambiguous" | "unresolved", 2) => Some(("reject", None)),
            (_, 3) => Some(("ignore", None)),
            _ => None,
        };
        if let Some((verb, company)) = choice {
            let mut args = vec![verb, reference];
            args.extend(company.as_deref());
            review(&args);
            *made.entry(verb).or_default() += 1;
        }
    }
    made
}

#[tokio::test]
async fn a_dry_run_counts_the_calls_a_run_then_makes_on_random_portfolios() {
    let seed = std::env::var("DRY_RUN_SEED")
        .ok()
        .map(|s| s.parse().expect("DRY_RUN_SEED is a number"))
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("dry run against the run: seed {seed} (DRY_RUN_SEED={seed} repeats it)");
    let sim = start(config()).await;
    let data = sim.dataset().clone();
    let mut seen: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut decisions: BTreeMap<&'static str, u64> = BTreeMap::new();
    for p in 0..PORTFOLIOS {
        let mut rng = Rng(seed ^ p.wrapping_mul(0x2545_f491_4f6c_dd1d));
        let ws = Workspace::new();
        // The first rows are plain identifiers: the service proves itself before any
        // "not found" is believed.
        let mut rows: Vec<Row> = Vec::new();
        for n in 0..ROWS {
            let next = loop {
                let r = row(&mut rng, &data, n, &rows);
                if n >= 3 || r.plain() {
                    break r;
                }
            };
            rows.push(next);
        }
        let file = ws.write("book.csv", &portfolio(&rows));
        let what = |night: &str| format!("seed {seed}, portfolio {p}, {night}");

        let first = night(&sim, &ws, &file).await;
        first.check(&what("first night, nothing cached"));
        let second = night(&sim, &ws, &file).await;
        assert_eq!(second.preview.searching, 0, "{}", what("second night"));
        second.check(&what("second night, the cache answers"));
        for (verb, n) in decide(&mut rng, &ws, &rows) {
            *decisions.entry(verb).or_default() += n;
        }
        let third = night(&sim, &ws, &file).await;
        third.check(&what("third night, after review's decisions"));
        for n in ROWS..ROWS + NEW_ROWS {
            let r = row(&mut rng, &data, n, &rows);
            rows.push(r);
        }
        let file = ws.write("book.csv", &portfolio(&rows));
        let fourth = night(&sim, &ws, &file).await;
        fourth.check(&what("fourth night, new rows"));
        for night in [&first, &second, &third, &fourth] {
            for status in [
                RowStatus::Rated,
                RowStatus::Unresolved,
                RowStatus::Ambiguous,
                RowStatus::Invalid,
                RowStatus::Ignored,
                RowStatus::Failed,
            ] {
                *seen.entry(status.as_str()).or_default() += night.rows_with(status);
            }
        }
    }
    eprintln!("rows screened by status: {seen:?}; decisions: {decisions:?}");
    // The portfolios reached every kind of row a dry run counts.
    for status in [
        RowStatus::Rated,
        RowStatus::Unresolved,
        RowStatus::Ambiguous,
        RowStatus::Invalid,
        RowStatus::Ignored,
    ] {
        assert!(
            seen[status.as_str()] > 0,
            "seed {seed}: no row {status:?}: {seen:?}"
        );
    }
    assert_eq!(seen["failed"], 0, "seed {seed}: {seen:?}");
}

/// `--dry-run` needs no service: it counts with the service configured as a run reads it
/// (ratewatch.toml, `RATEWATCH_*`), calls nothing, and says what a run would talk to, or
/// what it still needs.
#[test]
fn a_dry_run_counts_with_the_configured_service_or_says_what_a_run_needs() {
    let sim = crate::common::sample_sim();
    let base = sim.server.base_url();
    let ws = Workspace::new();
    ws.write(
        "p.csv",
        b"ref,country,SIREN,name\nC-1,FR,734531544,\nC-2,Suisse,,Acme SA\n",
    );
    let dry = |configure: &dyn Fn(&mut crate::common::Ratewatch)| -> String {
        let mut command = ws.ratewatch(["screen", "p.csv", "--dry-run"]);
        configure(&mut command);
        let out = command.run();
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            text.starts_with("NOTE: no lookup lists kept yet")
                && text.contains("dry run of p.csv: 2 rows — 1 invalid"),
            "{text}"
        );
        text
    };
    // Nothing configured: counted all the same, and the address is what a run needs.
    let text = dry(&|_| {});
    assert!(
        text.contains("NOT READY TO RUN: no service address: pass --base-url URL (or set RATEWATCH_BASE_URL, or `base_url` in ratewatch.toml)"),
        "{text}"
    );
    // The address from ratewatch.toml, the key from the environment: ready, nothing called.
    ws.write(
        "ratewatch.toml",
        format!("base_url = \"{base}\"\n").as_bytes(),
    );
    let text = dry(&|c| {
        c.env("RATEWATCH_API_KEY", crate::common::KEY);
    });
    assert!(
        text.ends_with(&format!(
            "service: {base}/ with the API key from the RATEWATCH_API_KEY environment variable\n"
        )) || text.ends_with(&format!(
            "service: {base} with the API key from the RATEWATCH_API_KEY environment variable\n"
        )),
        "{text}"
    );
    assert!(!text.contains("NOT READY"), "{text}");
    // The address from the environment and no key: the key is what a run needs.
    std::fs::remove_file(ws.path("ratewatch.toml")).unwrap();
    let text = dry(&|c| {
        c.env("RATEWATCH_BASE_URL", &base);
    });
    assert!(
        text.contains(
            "NOT READY TO RUN: no API key: set RATEWATCH_API_KEY or pass --api-key-file PATH"
        ),
        "{text}"
    );
    // A key file named and missing: named.
    let text = dry(&|c| {
        c.env("RATEWATCH_BASE_URL", &base)
            .args(["--api-key-file", "missing.key"]);
    });
    assert!(
        text.contains("NOT READY TO RUN: cannot read the API key file missing.key"),
        "{text}"
    );
    assert_eq!(sim.server.stats().total(), 0, "a dry run calls nothing");
}
