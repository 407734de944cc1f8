//! Candidates instead of dead ends: a name search that finds no company is loosened step
//! by step (the postcode, the phone number, the street, the city, then the legal-form
//! words of the name), and what a loosened search finds is offered for a person to
//! confirm, never taken as the company. Measured on an export like a French ERP's: name
//! rows without a SIREN whose postcode is an establishment's, some streets wrong, legal
//! forms left out or wrong, and a few customers the service does not know.

use std::collections::HashMap;
use std::path::PathBuf;

use ratewatch::sim::{CompanyRef, Dataset, Endpoint, catalog};
use serde_json::Value;

use crate::common::{Background, Workspace, background, config, rows_by_ref};

/// splitmix64's finalizer: the export's choices, a pure function of the row.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How a row of the export differs from what the service holds.
#[derive(Debug, Default, Clone, Copy)]
struct Faults {
    postcode_not_registered: bool,
    street_wrong: bool,
    legal_form_left_out: bool,
    legal_form_wrong: bool,
}

/// A French ERP export of name rows, and the company each row is (`None`: a customer the
/// service does not know).
struct Export {
    csv: String,
    truth: HashMap<String, Option<String>>,
    faults: HashMap<String, Faults>,
}

/// Words no company of the simulated service is named with.
const UNKNOWN: [&str; 6] = [
    "Perrichon",
    "Vautrin",
    "Durandal",
    "Bellegarde",
    "Quincampoix",
    "Tartempion",
];

/// `rows` name rows of French companies of `data`, as an ERP keeps them: the postcode is
/// the registered one for a quarter of them, another of the same département for six in
/// ten, none for the rest; half give a street, wrong for four in ten of those; the legal
/// form is as registered for half, left out for three in ten, another for one in five;
/// one row in twenty is a customer the service does not know.
fn erp_export(data: &Dataset, rows: u32) -> Export {
    let france = &catalog::RATED[0];
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "ref",
        "country",
        "name",
        "streetnumber",
        "streetname",
        "city",
        "postcode",
    ])
    .unwrap();
    let mut truth = HashMap::new();
    let mut faults = HashMap::new();
    for i in 0..rows {
        let h = mix(u64::from(i) ^ 0xe4e);
        let reference = format!("F{:05}", i + 1);
        if i % 20 == 7 {
            let name = format!(
                "{} {} SARL",
                UNKNOWN[(h % 6) as usize],
                UNKNOWN[(h >> 8) as usize % 6]
            );
            let postcode = format!("75{:03}", (h >> 16) % 1000);
            w.write_record([&reference, "FR", &name, "", "", "Paris", &postcode])
                .unwrap();
            truth.insert(reference, None);
            continue;
        }
        let r = CompanyRef {
            country: 0,
            n: (u64::from(i) * 7_919 % u64::from(data.per_country())) as u32,
        };
        let company = data.company(r);
        let address = &company.address;
        let mut fault = Faults::default();
        let registered = company.name.clone();
        let form = france
            .legal_forms
            .iter()
            .find(|f| registered.ends_with(&format!(" {f}")))
            .expect("a French company's name ends with its legal form");
        let base = registered.trim_end_matches(form).trim_end().to_string();
        let name = match h % 10 {
            0..=4 => registered.clone(),
            5..=7 => {
                fault.legal_form_left_out = true;
                base.clone()
            }
            _ => {
                fault.legal_form_wrong = true;
                let other = france
                    .legal_forms
                    .iter()
                    .find(|f| *f != form)
                    .expect("another form");
                format!("{base} {other}")
            }
        };
        let postcode = match (h >> 8) % 20 {
            0..=4 => address.post_code.clone(),
            5..=16 => {
                fault.postcode_not_registered = true;
                let mut other = address.post_code.clone();
                let mut k = 1;
                while other == address.post_code {
                    other = format!(
                        "{}{:03}",
                        &address.post_code[..2],
                        (mix(h ^ k) % 1000) as u32
                    );
                    k += 1;
                }
                other
            }
            _ => String::new(),
        };
        let (number, street) = match (h >> 16) % 10 {
            0..=4 => (String::new(), String::new()),
            5..=7 => (address.street_number.clone(), address.street_name.clone()),
            _ => {
                fault.street_wrong = true;
                let other = france
                    .streets
                    .iter()
                    .find(|s| **s != address.street_name)
                    .expect("another street");
                (address.street_number.clone(), other.to_string())
            }
        };
        w.write_record([
            &reference,
            "FR",
            &name,
            &number,
            &street,
            &address.city,
            &postcode,
        ])
        .unwrap();
        truth.insert(reference.clone(), Some(company.id.to_string()));
        faults.insert(reference, fault);
    }
    Export {
        csv: String::from_utf8(w.into_inner().unwrap()).unwrap(),
        truth,
        faults,
    }
}

/// A run that finished with every row it could screen screened: 0, or 1 with alerts.
fn quiet_or_alerts(out: &std::process::Output) -> bool {
    matches!(out.status.code(), Some(0 | 1))
}

fn by_name(sim: &Background) -> u64 {
    sim.server.stats().calls(Endpoint::CompaniesByName)
}

/// The ids of a row's candidates.
fn candidate_ids(row: &Value) -> Vec<&str> {
    row["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect()
}

/// What a run made of the export, measured against what each row is.
#[derive(Debug, Default)]
struct Measure {
    known: u64,
    rated_right: u64,
    wrong_matches: u64,
    /// Ambiguous with the right company among the candidates: found by the row's own
    /// search, or only once loosened.
    offered: u64,
    offered_loosened: u64,
    /// Loosened candidates that did not hold the right company.
    offered_without_it: u64,
    unresolved_known: u64,
    unknown: u64,
    unknown_unresolved: u64,
}

fn measure(export: &Export, report: &Value) -> Measure {
    let rows = rows_by_ref(report);
    let mut m = Measure::default();
    for (reference, truth) in &export.truth {
        let row = &rows[reference];
        let status = row["status"].as_str().unwrap();
        let loosened = row["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.get("found_without").is_some());
        let Some(truth) = truth else {
            m.unknown += 1;
            m.unknown_unresolved += u64::from(status == "unresolved");
            continue;
        };
        m.known += 1;
        match status {
            "rated" if row["company_id"] == truth.as_str() => m.rated_right += 1,
            "rated" => m.wrong_matches += 1,
            "ambiguous" if candidate_ids(row).contains(&truth.as_str()) => {
                m.offered += 1;
                m.offered_loosened += u64::from(loosened);
            }
            "ambiguous" => m.offered_without_it += 1,
            "unresolved" => m.unresolved_known += 1,
            other => panic!("{reference}: {other}: {row}"),
        }
    }
    m
}

#[test]
fn a_name_search_that_finds_nothing_offers_candidates_never_a_match() {
    let sim = background(config());
    let ws = Workspace::new();
    let export = erp_export(sim.server.dataset(), 400);
    let portfolio: PathBuf = ws.write("export.csv", export.csv.as_bytes());
    let out = ws.screen(&sim, &portfolio).run();
    assert!(quiet_or_alerts(&out), "{out:?}");
    let first = by_name(&sim);
    let report = ws.report();
    let m = measure(&export, &report);
    eprintln!("{m:#?}, {first} name searches");

    // Never a wrong company, and every loosened find is offered, never rated.
    assert_eq!(m.wrong_matches, 0, "{m:?}");
    assert_eq!(m.offered_without_it, 0, "{m:?}");
    let rows = rows_by_ref(&report);
    for row in rows.values() {
        let loosened: Vec<&Value> = row["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c.get("found_without").is_some())
            .collect();
        if loosened.is_empty() {
            continue;
        }
        assert_eq!(row["status"], "ambiguous", "{row}");
        let without = loosened[0]["found_without"].as_str().unwrap();
        let error = row["error"].as_str().unwrap();
        assert!(
            error.starts_with("no company matches as written: ")
                && error.contains(&format!("found without {without}")),
            "{error}"
        );
    }
    // A postcode the company is not registered at: found without it, and said so.
    let postcode_only = export
        .faults
        .iter()
        .find(|(reference, f)| {
            f.postcode_not_registered
                && !f.street_wrong
                && !f.legal_form_wrong
                && rows[reference.as_str()]["status"] == "ambiguous"
        })
        .map(|(reference, _)| &rows[reference.as_str()])
        .expect("a row found only without its postcode");
    let without = postcode_only["candidates"][0]["found_without"]
        .as_str()
        .unwrap();
    assert!(without.starts_with("the postcode "), "{postcode_only}");
    assert_eq!(candidate_ids(postcode_only).len(), 1, "{postcode_only}");
    // A wrong legal form is left out last.
    let form_wrong = export
        .faults
        .iter()
        .find(|(_, f)| f.legal_form_wrong)
        .map(|(reference, _)| &rows[reference.as_str()])
        .unwrap();
    let without = form_wrong["candidates"][0]["found_without"]
        .as_str()
        .unwrap();
    assert!(without.contains("the legal form "), "{form_wrong}");

    // The measure: unresolved rows whose company exists, at most one in ten; the customers
    // the service does not know stay unresolved, saying what was tried.
    assert!(
        m.unresolved_known * 10 <= m.known,
        "{} of {} rows of known companies unresolved: {m:?}",
        m.unresolved_known,
        m.known
    );
    assert!(m.offered_loosened > 0, "{m:?}");
    assert_eq!(m.unknown_unresolved, m.unknown, "{m:?}");
    let unknown = export
        .truth
        .iter()
        .find(|(_, t)| t.is_none())
        .map(|(reference, _)| &rows[reference.as_str()])
        .unwrap();
    let error = unknown["error"].as_str().unwrap();
    assert!(
        error.starts_with("no company matches; none either without the postcode 75"),
        "{error}"
    );
    assert!(error.ends_with("and the legal form SARL"), "{error}");

    // Every name search is counted in the run's calls, the loosened ones included.
    assert_eq!(
        report["run"]["calls"]["companies_by_name"].as_u64(),
        Some(first),
        "{}",
        report["run"]
    );

    // The next night searches nothing: the loosened searches are cached as the others.
    let out = ws.screen(&sim, &portfolio).run();
    assert!(quiet_or_alerts(&out), "{out:?}");
    assert_eq!(by_name(&sim), first, "a nightly run searches nothing again");
    let again = measure(&export, &ws.report());
    assert_eq!(
        (
            again.rated_right,
            again.offered,
            again.offered_loosened,
            again.unresolved_known
        ),
        (
            m.rated_right,
            m.offered,
            m.offered_loosened,
            m.unresolved_known
        )
    );
}

/// One row whose postcode is not its company's registered one.
fn one_row(sim: &Background, ws: &Workspace) -> (PathBuf, CompanyRef, String) {
    let r = CompanyRef { country: 0, n: 4 };
    let company = sim.server.dataset().company(r);
    let address = company.address;
    let wrong = if address.post_code.ends_with('1') {
        format!("{}2", &address.post_code[..4])
    } else {
        format!("{}1", &address.post_code[..4])
    };
    let csv = format!(
        "ref,country,name,city,postcode\nC-1,FR,{},{},{wrong}\n",
        company.name, address.city
    );
    (
        ws.write("one.csv", csv.as_bytes()),
        r,
        company.id.to_string(),
    )
}

fn review_list(ws: &Workspace) -> Value {
    let out = ws.ratewatch(["review", "list", "--json"]).db(ws.db()).run();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_loosened_candidate_accepted_in_review_is_rated_and_a_rejected_one_not_offered_again() {
    let sim = background(config());
    let ws = Workspace::new();
    let (portfolio, _, company) = one_row(&sim, &ws);
    ws.screen(&sim, &portfolio).assert().code(3);
    assert_eq!(by_name(&sim), 2, "its search, then without the postcode");

    // The review lists it with its candidate and what was left out to find it.
    let list = review_list(&ws);
    let row = &list["rows"][0];
    assert_eq!(row["ref"], "C-1");
    assert_eq!(row["status"], "ambiguous");
    assert_eq!(row["candidates"][0]["id"], company.as_str());
    let without = row["candidates"][0]["found_without"].as_str().unwrap();
    assert!(without.starts_with("the postcode "), "{row}");
    let table = ws.ratewatch(["review"]).db(ws.db()).run();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains(&format!("found without {without}")),
        "{table}"
    );

    // Rejected: the next run offers it no more, and makes no search.
    ws.ratewatch(["review", "reject", "C-1"])
        .db(ws.db())
        .assert()
        .success();
    ws.screen(&sim, &portfolio)
        .arg("--refresh-resolutions")
        .assert()
        .code(3);
    assert_eq!(
        by_name(&sim),
        2,
        "rejected: neither its search nor a loosened one"
    );
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1"]["status"], "unresolved", "{}", rows["C-1"]);
    assert_eq!(rows["C-1"]["candidates"], Value::Array(vec![]));

    // Revoked and accepted: a decision like any other, rated as that company, no search.
    ws.ratewatch(["review", "revoke", "C-1"])
        .db(ws.db())
        .assert()
        .success();
    ws.screen(&sim, &portfolio).assert().code(3);
    ws.ratewatch(["review", "accept", "C-1", &company])
        .db(ws.db())
        .assert()
        .success();
    let searched = by_name(&sim);
    let out = ws
        .screen(&sim, &portfolio)
        .arg("--refresh-resolutions")
        .run();
    assert!(quiet_or_alerts(&out), "{out:?}");
    assert_eq!(by_name(&sim), searched, "accepted: no search");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-1"]["status"], "rated");
    assert_eq!(rows["C-1"]["company_id"], company.as_str());
    assert_eq!(rows["C-1"]["found_by"], "review");
}
