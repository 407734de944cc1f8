//! Since when a company holds its color, said one way everywhere a person reads it: the
//! start of its current color period as the view `color_periods` holds it (`valid_from`
//! of the period whose `valid_to` is NULL), never the service's lastChangeDate, which the
//! service also moves when it recalculates a rating and keeps its color.
//!
//! Nights on successive dates: each night is screened, then every time the database holds
//! is moved a day into the past, so that each night's observations fall on the day the
//! simulator served (the service's dates are those of its calendar, ending on today).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;

use base64::prelude::{BASE64_STANDARD, Engine as _};
use jiff::Timestamp;
use serde_json::Value;

use crate::common::{
    Workspace, assert_color_periods_kept, background, calendar_ending_on_today,
    color_period_bounds_from_ratings, config,
};
use crate::serve::Pages;
use ratewatch::sim::SimConfig;

/// Nights screened, one simulated day each.
const NIGHTS: i64 = 8;
/// Rows of the portfolio.
const ROWS: u64 = 600;

/// Moves every time a run left in the database at `db` a day into the past: the runs, the
/// ratings' first sightings and their confirmations (the service's own dates stay). The
/// color periods are worked out again from the ratings so moved, as if seen then.
fn a_day_passes(db: &Path) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(
            "UPDATE runs SET
                 started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '-1 day'),
                 finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', finished_at, '-1 day'),
                 delivered_at = strftime('%Y-%m-%dT%H:%M:%SZ', delivered_at, '-1 day');
             UPDATE ratings SET
                 observed_at = strftime('%Y-%m-%dT%H:%M:%SZ', observed_at, '-1 day');
             UPDATE rating_confirmations SET
                 confirmed_at = strftime('%Y-%m-%dT%H:%M:%SZ', confirmed_at, '-1 day');",
        )
        .unwrap();
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(&format!(
            "BEGIN; DELETE FROM color_period_bounds; {} COMMIT;",
            color_period_bounds_from_ratings()
        ))
        .unwrap();
}

fn time(text: &str) -> Timestamp {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} is not a time: {e}"))
}

/// Each company's current period start (`color_periods`), and the latest rating's
/// lastChangeDate (`latest_ratings`), by company id.
fn periods_and_service_dates(db: &Path) -> (HashMap<String, String>, HashMap<String, String>) {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let read = |sql: &str| -> HashMap<String, String> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    let current = read("SELECT company_id, valid_from FROM color_periods WHERE valid_to IS NULL");
    let service = read(
        "SELECT company_id, last_change_date FROM latest_ratings
         WHERE last_change_date IS NOT NULL",
    );
    (current, service)
}

/// The rows' data of report.html, as its script reads it: each row's fields by name.
fn html_rows(html: &str) -> Vec<HashMap<String, String>> {
    let open =
        "<script type=\"application/octet-stream\" id=\"rows-data\" data-encoding=\"gzip base64\">";
    let start = html.find(open).expect("the rows' data") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    let gzip = BASE64_STANDARD.decode(html[start..end].trim()).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gzip[..])
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text.lines();
    let names: Vec<String> = lines
        .next()
        .unwrap()
        .split('\t')
        .map(String::from)
        .collect();
    lines
        .map(|l| {
            names
                .iter()
                .cloned()
                .zip(l.split('\t').map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn every_output_dates_a_color_from_the_start_of_its_period() {
    let sim = background(SimConfig {
        calendar: calendar_ending_on_today(NIGHTS),
        ..config()
    });
    let ws = Workspace::new();
    let mut buf = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), ROWS, &mut buf).unwrap();
    let file = ws.write("portfolio.csv", &buf);
    for night in 1..=NIGHTS {
        if night > 1 {
            a_day_passes(&ws.db());
        }
        sim.server.set_day(night);
        let out = ws.screen(&sim, &file).run();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "night {night}: {out:?}"
        );
        // Each night's new periods, and the ends of those they followed, as kept.
        assert_color_periods_kept(&ws.db());
    }
    let closed: i64 = rusqlite::Connection::open(ws.db())
        .unwrap()
        .query_row(
            "SELECT count(*) FROM color_period_bounds WHERE valid_to IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(closed >= 5, "only {closed} periods ended over the nights");
    let (current, service) = periods_and_service_dates(&ws.db());

    // report.json: every row with a color says the period's start; its service date stays
    // the service's.
    let report: Value =
        serde_json::from_slice(&std::fs::read(ws.path("out/report.json")).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let mut colored = BTreeMap::new();
    for row in rows.iter().filter(|r| !r["color"].is_null()) {
        let company = row["company_id"].as_str().unwrap().to_string();
        let since = row["color_since"].as_str().expect("a colored row's since");
        assert_eq!(
            time(since),
            time(&current[&company]),
            "report.json, line {}",
            row["line"]
        );
        colored.insert(company, since.to_string());
    }
    assert!(
        colored.len() as u64 > ROWS / 2,
        "{} companies",
        colored.len()
    );
    for row in rows.iter().filter(|r| r["color"].is_null()) {
        assert!(row["color_since"].is_null(), "{row}");
    }
    // The case this is about: the service moved its date while the color stayed.
    let moved: Vec<&String> = colored
        .keys()
        .filter(|c| {
            service
                .get(*c)
                .is_some_and(|d| time(d) != time(&current[*c]))
        })
        .collect();
    assert!(
        moved.len() >= 5,
        "only {} companies whose service date is not their period's start",
        moved.len()
    );

    // report.csv: the same, in a column of its own after the others.
    let mut csv = csv::Reader::from_path(ws.path("out/report.csv")).unwrap();
    let header = csv.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (company_at, since_at) = (at("company_id"), at("color_since"));
    assert_eq!(
        since_at,
        at("found_by") + 1,
        "added after the columns before it"
    );
    let mut lines = 0;
    for record in csv.records() {
        let record = record.unwrap();
        if let Some(since) = colored.get(&record[company_at]) {
            assert_eq!(
                time(&record[since_at]),
                time(since),
                "report.csv {record:?}"
            );
            lines += 1;
        }
    }
    assert!(lines >= colored.len());

    // report.html: its table of every row, and its alerts' cells, by the day.
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    let day = |t: &str| time(t).strftime("%Y-%m-%d").to_string();
    let by_ref: HashMap<&str, &Value> = rows
        .iter()
        .filter_map(|r| Some((r["ref"].as_str()?, r)))
        .collect();
    let table = html_rows(&html);
    assert_eq!(table.len(), rows.len());
    for row in &table {
        let given = by_ref[row["ref"].as_str()];
        let expected = given["company_id"]
            .as_str()
            .and_then(|c| colored.get(c))
            .map(|s| day(s))
            .unwrap_or_default();
        assert_eq!(row["since"], expected, "report.html, ref {}", row["ref"]);
    }
    assert!(
        !html.contains("Last change"),
        "no column dates a color otherwise"
    );

    // The company page, for each company whose service date moved, and some others.
    let pages = Pages::of(&ws);
    for company in moved.iter().copied().chain(colored.keys().take(10)) {
        let page = pages.get(&format!("/company/{company}")).body;
        let open = "<dd class=\"date\" id=\"color-since\">";
        let at = page.find(open).expect("the page says since when") + open.len();
        let shown = &page[at..at + page[at..].find("</dd>").unwrap()];
        assert_eq!(shown, current[company], "the page of {company}");
    }

    // `ratewatch history`: its open period starts there too.
    for company in moved.iter().take(5) {
        let out = ws
            .ratewatch(["history", company.as_str(), "--json"])
            .db(ws.db())
            .run();
        assert!(out.status.success(), "{out:?}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let open: Vec<&Value> = json["periods"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["valid_to"].is_null())
            .collect();
        assert_eq!(open.len(), 1, "{json}");
        assert_eq!(
            open[0]["valid_from"], current[*company],
            "history of {company}"
        );
    }
}
