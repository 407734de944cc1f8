//! The binary as a user runs it: lookups against the embedded simulator (`--demo`) or a
//! simulator on a random port (`--base-url`), exit codes, messages, and `demo-server`.

use predicates::prelude::*;
use ratewatch::sim::dataset::NameFilters;
use ratewatch::sim::server::{DEFAULT_PER_COUNTRY, DEFAULT_SEED};
use ratewatch::sim::{CompanyRef, Dataset, Faults, SimConfig, catalog};

use crate::common::{KEY, Reply, background, config, ratewatch, recording};

/// The dataset `--demo` serves.
fn demo_data() -> Dataset {
    Dataset::new(DEFAULT_SEED, DEFAULT_PER_COUNTRY)
}

#[test]
fn demo_lookup_by_identifier_prints_the_company_and_its_rating() {
    let data = demo_data();
    let r = CompanyRef {
        country: 0,
        n: 1234,
    };
    let siren = data.external_ids(r)[0].external_id.clone();
    ratewatch([
        "lookup",
        "--demo",
        "--country",
        "FR",
        "--service",
        "SIREN",
        "--id",
        &siren,
    ])
    .assert()
    .code(0)
    .stdout(predicate::str::contains(data.name(r)))
    .stdout(predicate::str::contains(data.uuid(r).to_string()))
    .stdout(predicate::str::contains(
        data.rating(r, 1).color.as_str().to_uppercase(),
    ));
}

#[test]
fn demo_lookup_by_name_lists_every_candidate_then_narrows() {
    let data = demo_data();
    let (a, b, holding) = (
        CompanyRef { country: 7, n: 500 },
        CompanyRef { country: 7, n: 501 },
        CompanyRef { country: 7, n: 502 },
    );
    let name = data.name(a);
    let out = ratewatch([
        "lookup",
        "--demo",
        "--country",
        "nl",
        "--name",
        &name,
        "--json",
    ])
    .assert()
    .code(0)
    .get_output()
    .stdout
    .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let ids: Vec<&str> = json["companies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["company"]["Id"].as_str().unwrap())
        .collect();
    // The exact name's two holders first, then the Holding, whose name holds every word.
    assert_eq!(
        ids,
        vec![
            data.uuid(a).to_string(),
            data.uuid(b).to_string(),
            data.uuid(holding).to_string()
        ]
    );
    assert!(json["companies"][0]["rating"]["ratingColor"].is_string());

    let city = data.company(b).address.city;
    ratewatch([
        "lookup",
        "--demo",
        "--country",
        "nl",
        "--name",
        &name,
        "--city",
        &city,
    ])
    .assert()
    .code(0)
    .stdout(predicate::str::contains(data.uuid(b).to_string()))
    .stdout(predicate::str::contains(data.uuid(a).to_string()).not())
    .stdout(predicate::str::contains("companies named").not());

    ratewatch(["lookup", "--demo", "--country", "nl", "--name", &name])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("3 companies named"))
        .stdout(predicate::str::contains("--city"));
}

#[test]
fn lookup_by_an_ambiguous_name_under_a_rate_limit_rates_every_candidate() {
    let config = SimConfig {
        faults: Faults {
            rate_limit: Some(2.0),
            ..Faults::default()
        },
        ..config()
    };
    let day = config.day;
    let sim = background(config);
    let data = sim.server.dataset();
    // A same-name group: the base words are shared by the holding's name and its siblings'.
    let holding = data.name(CompanyRef { country: 0, n: 502 });
    let name = holding
        .split(&format!(" {} ", catalog::HOLDING))
        .next()
        .unwrap()
        .to_string();
    let candidates = data.search_name(0, &name, &NameFilters::default());
    assert!(candidates.len() >= 3, "{name}: {candidates:?}");

    let out = ratewatch(["lookup", "--country", "fr", "--name", &name, "--json"])
        .args(["--base-url", &sim.server.base_url()])
        .env("RATEWATCH_API_KEY", KEY)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let found = json["companies"].as_array().unwrap();
    assert_eq!(found.len(), candidates.len());
    for r in candidates {
        let id = data.uuid(r).to_string();
        let f = found
            .iter()
            .find(|f| f["company"]["Id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} missing: {json:#}"));
        assert!(f["error"].is_null(), "{f:#}");
        assert_eq!(
            f["rating"]["ratingColor"],
            data.rating(r, day).color.as_str(),
            "{f:#}"
        );
    }
    assert!(
        sim.server.stats().throttled > 0,
        "the service rate limited the lookup"
    );
}

#[test]
fn lookup_waits_out_a_429_as_long_as_retry_after_says() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let data = demo_data();
    let r = CompanyRef { country: 0, n: 77 };
    let company = serde_json::to_vec(&data.company(r)).unwrap();
    let id = data.uuid(r);
    let rated = std::sync::atomic::AtomicBool::new(false);
    let (base, seen) = runtime.block_on(recording(move |_, request| {
        if request.target.starts_with("/v2/transactor/") {
            return Reply::json(company.clone());
        }
        if !rated.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Reply {
                status: "429 Too Many Requests".into(),
                headers: vec![("retry-after".into(), "1".into())],
                body: br#"{"detail":"Request was throttled."}"#.to_vec(),
            };
        }
        Reply::json(format!(
            r#"{{"ratingColor":"red","companyId":"{id}","requestDate":"2026-11-21T02:00:00Z",
            "lastRefreshDate":"2026-11-20T01:00:00Z","lastChangeDate":"2026-11-01T00:00:00Z"}}"#
        ))
    }));
    let siren = data.external_ids(r)[0].external_id.clone();
    ratewatch([
        "lookup",
        "--country",
        "fr",
        "--service",
        "SIREN",
        "--id",
        &siren,
    ])
    .args(["--base-url", &base])
    .env("RATEWATCH_API_KEY", KEY)
    .assert()
    .code(0)
    .stdout(predicate::str::contains(data.name(r)))
    .stdout(predicate::str::is_match(r"(?m)^rating\s+RED\s").unwrap());
    let seen = seen.lock().unwrap();
    let ratings: Vec<_> = seen
        .iter()
        .filter(|s| s.target.ends_with("/ratings"))
        .collect();
    assert_eq!(ratings.len(), 2, "{seen:#?}");
    let waited = ratings[1].at - ratings[0].at;
    assert!(
        waited >= std::time::Duration::from_millis(950),
        "asked again after {waited:?}"
    );
}

#[test]
fn validation_errors_are_shown_verbatim_with_exit_2() {
    ratewatch(["lookup", "--demo", "--country", "xx", "--name", "Acme"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "country: \"xx\" is not a valid choice.",
        ));
}

#[test]
fn no_match_exits_1_with_a_plain_sentence() {
    ratewatch([
        "lookup",
        "--demo",
        "--country",
        "fr",
        "--service",
        "SIREN",
        "--id",
        "000000000",
    ])
    .assert()
    .code(1)
    .stdout(predicate::str::contains(
        "No company SIREN 000000000 in FR.",
    ));
}

#[test]
fn a_wrong_key_fails_with_exit_4_naming_its_source_never_its_value() {
    let sim = background(config());
    let secret = "wrong-key-7f3a9c";
    let assert = ratewatch(["lookup", "--country", "fr", "--name", "Martin"])
        .args(["--base-url", &sim.server.base_url()])
        .env("RATEWATCH_API_KEY", secret)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("RATEWATCH_API_KEY"))
        .stderr(predicate::str::contains("demo and live keys differ"));
    let out = assert.get_output();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains(secret), "the key leaked: {all}");
    assert_eq!(sim.server.stats().total(), 1, "one refused call, no more");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("key.txt");
    std::fs::write(&file, format!("{secret}\n")).unwrap();
    ratewatch([
        "lookup",
        "--country",
        "fr",
        "--name",
        "Martin",
        "--api-key-file",
    ])
    .arg(&file)
    .args(["--base-url", &sim.server.base_url()])
    .assert()
    .code(4)
    .stderr(predicate::str::contains(file.display().to_string()))
    .stderr(predicate::str::contains(secret).not());
}

#[test]
fn the_right_key_from_a_file_works_against_a_running_server() {
    let sim = background(config());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("key.txt");
    std::fs::write(&file, KEY).unwrap();
    let r = CompanyRef { country: 8, n: 77 };
    let cofis = sim.server.dataset().external_ids(r)[0].external_id.clone();
    ratewatch([
        "lookup",
        "--country",
        "it",
        "--service",
        "COFIS",
        "--id",
        &cofis,
        "--api-key-file",
    ])
    .arg(&file)
    .args(["--base-url", &format!("{}/v2/", sim.server.base_url())])
    .assert()
    .code(0)
    .stdout(predicate::str::contains(sim.server.dataset().name(r)));
}

#[test]
fn missing_settings_are_usage_errors() {
    ratewatch(["lookup", "--country", "fr", "--name", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--base-url").and(predicate::str::contains("--demo")));
    ratewatch([
        "lookup",
        "--country",
        "fr",
        "--name",
        "x",
        "--base-url",
        "http://127.0.0.1:9",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("RATEWATCH_API_KEY"));
    ratewatch(["lookup", "--demo", "--country", "fr", "--service", "SIREN"])
        .assert()
        .code(2);
}

#[test]
fn an_unreachable_service_is_fatal_exit_4() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    ratewatch([
        "lookups",
        "countries",
        "--base-url",
        &format!("http://{closed}"),
    ])
    .assert()
    .code(4)
    .stderr(predicate::str::contains("could not reach the service"));
}

#[test]
fn lookups_print_tables_and_json() {
    ratewatch(["lookups", "countries", "--demo"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("CODE  COUNTRY"))
        .stdout(predicate::str::is_match(r"(?m)^FR\s+France\s+yes$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^US\s+United States\s+no$").unwrap());
    let out = ratewatch(["lookups", "services", "--demo", "--json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    assert!(
        list.iter()
            .any(|s| s["IdentifierCode"] == "KVK" && s["IdentifierCountry"] == "NL")
    );
}

#[test]
fn demo_server_prints_its_url_first_and_serves() {
    let server = ratewatch(["demo-server", "--port", "0", "--key", "k1"]).serve();
    let url = &server.url;
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let resp = reqwest::Client::new()
            .get(format!("{url}/v2/lookups/countries"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let refused = reqwest::Client::new()
            .get(format!("{url}/v2/ratings"))
            .header("apikey", "demo-key")
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 401, "--key replaces the default key");
    });
}

#[test]
fn lookup_by_an_id_whose_leading_zeros_a_spreadsheet_ate_finds_the_company() {
    let data = demo_data();
    let (r, siren) = (0..10_000)
        .map(|n| CompanyRef { country: 0, n })
        .find_map(|r| {
            let id = data.external_ids(r)[0].external_id.clone();
            id.starts_with('0').then_some((r, id))
        })
        .expect("a SIREN with a leading zero among the first companies");
    let eaten = siren.trim_start_matches('0');
    ratewatch([
        "lookup",
        "--demo",
        "--country",
        "FR",
        "--service",
        "SIREN",
        "--id",
        eaten,
    ])
    .assert()
    .code(0)
    .stdout(predicate::str::contains(data.uuid(r).to_string()));
}
