//! The simulator's own behaviour, seen over raw HTTP as any client would see it:
//! authentication, validation bodies, 404s, pagination, determinism.

use ratewatch::sim::dataset::MAX_NAME_RESULTS;
use ratewatch::sim::{CompanyRef, SimConfig};
use serde_json::Value;

use crate::common::{KEY, config, start};

/// One plain HTTP client for all requests: building one loads TLS roots, which is slow.
fn http() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

async fn get(url: &str, key: Option<&str>) -> (u16, Value) {
    let mut req = http().get(url);
    if let Some(k) = key {
        req = req.header("apikey", k);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let body = resp.json().await.unwrap_or(Value::Null);
    (status, body)
}

#[tokio::test]
async fn rating_endpoints_require_the_key_and_lookups_do_not() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let id = sim.dataset().uuid(CompanyRef { country: 1, n: 9 });
    for path in [
        format!("/v2/companies/{id}/ratings"),
        format!("/v2/ratings/company/{id}"),
        format!("/v2/trafficlight/{id}"),
        "/v2/ratings".to_string(),
        "/v2/transactors?countrycode=gb&name=x".to_string(),
        "/v2/transactor/gb/CRO/01234567".to_string(),
    ] {
        for key in [None, Some("wrong")] {
            let (status, body) = get(&format!("{base}{path}"), key).await;
            assert_eq!(status, 401, "{path}");
            assert!(
                body["detail"]
                    .as_str()
                    .unwrap()
                    .contains("couldn't be authenticated")
            );
        }
    }
    for path in ["/v2/lookups/countries", "/v2/lookups/services"] {
        let (status, body) = get(&format!("{base}{path}"), None).await;
        assert_eq!(status, 200);
        assert!(body.as_array().unwrap().len() > 10);
    }
    assert_eq!(sim.stats().unauthenticated, 12);
}

#[tokio::test]
async fn validation_bodies_follow_the_spec() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let cases = [
        (
            "/v2/transactor/xx/SIREN/1",
            "country",
            "\"xx\" is not a valid choice.",
        ),
        (
            "/v2/transactors?countrycode=QQ&name=a",
            "country",
            "\"QQ\" is not a valid choice.",
        ),
        (
            "/v2/transactors?countrycode=fr",
            "name",
            "This field is required.",
        ),
        (
            "/v2/transactors?name=Acme",
            "countrycode",
            "This field is required.",
        ),
        (
            "/v2/companies/not-a-uuid/ratings",
            "company",
            "\"not-a-uuid\" is not a valid UUID.",
        ),
        (
            "/v2/ratings/company/123",
            "company",
            "\"123\" is not a valid UUID.",
        ),
        (
            "/v2/trafficlight/abc",
            "company",
            "\"abc\" is not a valid UUID.",
        ),
    ];
    for (path, field, message) in cases {
        let (status, body) = get(&format!("{base}{path}"), Some(KEY)).await;
        assert_eq!(status, 400, "{path}");
        assert_eq!(body, serde_json::json!({ field: [message] }), "{path}");
    }
    let (status, body) = get(&format!("{base}/v2/transactors"), Some(KEY)).await;
    assert_eq!(status, 400);
    assert_eq!(
        body.as_object().unwrap().len(),
        2,
        "both missing parameters at once: {body}"
    );
    let id = sim.dataset().uuid(CompanyRef { country: 0, n: 1 });
    let (status, body) = get(
        &format!("{base}/v2/companies/{id}/ratings?date=21-11-2026"),
        Some(KEY),
    )
    .await;
    assert_eq!(status, 400);
    assert!(body["date"][0].as_str().unwrap().contains("YYYY-MM-DD"));
}

#[tokio::test]
async fn unknown_ids_paths_and_unrated_countries_are_404() {
    let sim = start(config()).await;
    let base = sim.base_url();
    for path in [
        "/v2/companies/00000000-0000-4000-8000-000000000000/ratings".to_string(),
        "/v2/transactor/fr/SIREN/123456789".to_string(),
        "/v2/transactor/us/SIREN/123456789".to_string(),
        "/v2/nothing/here".to_string(),
    ] {
        let (status, body) = get(&format!("{base}{path}"), Some(KEY)).await;
        assert!(status == 404 || status == 400, "{path}: {status}");
        if path.contains("/us/") {
            assert_eq!(status, 400, "SIREN is not a US service");
        } else {
            assert_eq!(status, 404, "{path}");
            assert_eq!(body["detail"], "Not found.");
        }
    }
    let (status, body) = get(
        &format!("{base}/v2/transactors?countrycode=us&name=Martin"),
        Some(KEY),
    )
    .await;
    assert_eq!((status, body), (200, serde_json::json!([])));
}

#[tokio::test]
async fn a_name_search_matches_any_words_of_the_name_up_to_the_cap() {
    let sim = start(config()).await;
    let base = sim.base_url();
    // A middle word, a legal form, and a legal form's words out of order ('&' encoded).
    for (country, name, word) in [
        ("fr", "motors", "Motors"),
        ("de", "GmbH", "GmbH"),
        ("de", "KG%20%26%20Co.", "GmbH & Co. KG"),
    ] {
        let (status, body) = get(
            &format!("{base}/v2/transactors?countrycode={country}&name={name}"),
            Some(KEY),
        )
        .await;
        assert_eq!(status, 200, "{name}");
        let names: Vec<&str> = body
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), MAX_NAME_RESULTS, "{name}: {names:?}");
        assert!(names.iter().all(|n| n.contains(word)), "{name}: {names:?}");
    }
}

#[tokio::test]
async fn history_pages_carry_absolute_links_newest_first() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let ids: Vec<_> = (0..60)
        .map(|n| sim.dataset().uuid(CompanyRef { country: 2, n }))
        .collect();
    for id in &ids {
        let (status, _) = get(&format!("{base}/v2/companies/{id}/ratings"), Some(KEY)).await;
        assert_eq!(status, 200);
    }
    let (_, first) = get(&format!("{base}/v2/ratings"), Some(KEY)).await;
    assert_eq!(first["previous"], Value::Null);
    assert_eq!(first["next"], format!("{base}/v2/ratings?page=2"));
    let results = first["results"].as_array().unwrap();
    assert_eq!(results.len(), 50);
    assert_eq!(results[0]["companyId"], ids[59].to_string());
    let (_, second) = get(first["next"].as_str().unwrap(), Some(KEY)).await;
    assert_eq!(second["next"], Value::Null);
    assert_eq!(second["previous"], format!("{base}/v2/ratings"));
    assert_eq!(second["results"].as_array().unwrap().len(), 10);
    assert_eq!(second["results"][9]["companyId"], ids[0].to_string());
    let (status, _) = get(&format!("{base}/v2/ratings?page=9"), Some(KEY)).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn same_seed_and_day_give_the_same_answers() {
    let a = start(config()).await;
    let b = start(config()).await;
    let other_day = start(SimConfig {
        day: 40,
        ..config()
    })
    .await;
    let mut color_moves = 0;
    for n in (0..5_000).step_by(25) {
        let r = CompanyRef { country: 4, n };
        let id = a.dataset().uuid(r);
        let path = format!("/v2/companies/{id}/ratings");
        let (_, x) = get(&format!("{}{path}", a.base_url()), Some(KEY)).await;
        let (_, y) = get(&format!("{}{path}", b.base_url()), Some(KEY)).await;
        let (_, z) = get(&format!("{}{path}", other_day.base_url()), Some(KEY)).await;
        for field in [
            "ratingColor",
            "companyId",
            "lastRefreshDate",
            "lastChangeDate",
        ] {
            assert_eq!(x[field], y[field], "{field} of {id}");
        }
        if x["ratingColor"] != z["ratingColor"] {
            color_moves += 1;
        }
        let company = format!(
            "/v2/transactor/es/CIF/{}",
            a.dataset().external_ids(r)[0].external_id
        );
        let (_, c1) = get(&format!("{}{company}", a.base_url()), Some(KEY)).await;
        let (_, c2) = get(&format!("{}{company}", b.base_url()), Some(KEY)).await;
        assert_eq!(c1, c2);
        assert_eq!(c1["Id"], id.to_string());
    }
    assert!(color_moves > 0, "39 days later some colors must differ");
}

#[tokio::test]
async fn phone_numbers_are_sometimes_null_and_ids_are_several() {
    let sim = start(config()).await;
    let companies: Vec<_> = (0..200)
        .map(|n| sim.dataset().company(CompanyRef { country: 5, n }))
        .collect();
    assert!(companies.iter().any(|c| c.phone_number.is_none()));
    assert!(companies.iter().any(|c| c.phone_number.is_some()));
    assert!(companies.iter().all(|c| !c.external_ids.is_empty()));
    assert!(companies.iter().any(|c| c.external_ids.len() >= 3));
    let json =
        serde_json::to_value(companies.iter().find(|c| c.phone_number.is_none()).unwrap()).unwrap();
    assert_eq!(json["PhoneNumber"], Value::Null);
}

#[tokio::test]
async fn timestamps_come_in_the_spellings_the_spec_warns_about() {
    let sim = start(config()).await;
    let base = sim.base_url();
    let (mut with_z, mut without_z, mut fractional) = (0, 0, 0);
    for n in 0..60 {
        let id = sim.dataset().uuid(CompanyRef { country: 6, n });
        let (_, r) = get(&format!("{base}/v2/companies/{id}/ratings"), Some(KEY)).await;
        let t = r["lastChangeDate"].as_str().unwrap();
        if t.ends_with('Z') {
            with_z += 1
        } else {
            without_z += 1
        }
        if t.contains('.') {
            fractional += 1
        }
        assert!(r["requestDate"].as_str().unwrap().contains('.'));
    }
    assert!(with_z > 0 && without_z > 0 && fractional > 0);
}
