//! The client: every endpoint and every error kind, against the in-process simulator or,
//! for answers the simulator never gives, a scripted server.

use std::time::Duration;

use ratewatch::api::client::MAX_REDIRECTS;
use ratewatch::api::{ApiError, ApiKey, Client, ClientOptions, NameQuery};
use ratewatch::model::{self, Color};
use ratewatch::sim::{CompanyRef, Endpoint, Faults, SimConfig};
use ratewatch::stages::limit::{Limiter, Limits};
use uuid::Uuid;

use crate::common::{self, KEY, Reply, client_for, config, recording, scripted, start};

fn fr(n: u32) -> CompanyRef {
    CompanyRef { country: 0, n }
}

#[tokio::test]
async fn company_by_external_id_finds_the_company() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let want = sim.dataset().company(fr(17));
    let siren = &want.external_ids[0];
    let got = client
        .company_by_external_id("fr", &siren.external_service, &siren.external_id)
        .await
        .unwrap();
    assert_eq!(got, want);
}

#[tokio::test]
async fn an_identifier_with_a_slash_is_sent_as_one_segment() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let de = 3;
    let (r, fcde) = (0..200)
        .map(|n| CompanyRef { country: de, n })
        .find_map(|r| {
            sim.dataset()
                .external_ids(r)
                .into_iter()
                .find(|e| e.external_id.contains('/'))
                .map(|e| (r, e))
        })
        .expect("some German company has a fiscal code with slashes");
    let got = client
        .company_by_external_id("de", "FCDE", &fcde.external_id)
        .await
        .unwrap();
    assert_eq!(got.id, sim.dataset().uuid(r));
}

#[tokio::test]
async fn companies_by_name_returns_every_candidate_and_filters_narrow() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let (a, b) = (sim.dataset().company(fr(30)), sim.dataset().company(fr(31)));
    assert_eq!(a.name, b.name);
    let mut q = NameQuery {
        country: "fr".into(),
        name: a.name.to_lowercase(),
        ..NameQuery::default()
    };
    // The group's Holding holds every word of the name too, and comes after the exact two.
    let all = client.companies_by_name(&q).await.unwrap();
    let holding = sim.dataset().company(fr(32));
    assert_eq!(all, vec![a.clone(), b.clone(), holding], "{all:?}");
    q.city = Some(b.address.city.clone());
    let one = client.companies_by_name(&q).await.unwrap();
    assert_eq!(one, vec![b.clone()]);
    q.city = None;
    q.postcode = Some(a.address.post_code.clone());
    q.street_number = Some(a.address.street_number.clone());
    assert_eq!(client.companies_by_name(&q).await.unwrap(), vec![a]);
}

#[tokio::test]
async fn names_with_ampersands_hashes_and_accents_survive_the_trip() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let target = (0..5_000)
        .map(fr)
        .map(|r| sim.dataset().company(r))
        .find(|c| c.name.contains('&') && !c.name.is_ascii())
        .expect("some name has an ampersand and an accent");
    let q = NameQuery {
        country: "FR".into(),
        name: target.name.clone(),
        city: Some(target.address.city.clone()),
        ..NameQuery::default()
    };
    let found = client.companies_by_name(&q).await.unwrap();
    assert!(found.contains(&target), "{found:?}");
    // A '#' would cut the query short if it were not encoded: nothing must match then.
    let hashed = NameQuery {
        name: format!("{} #2", target.name),
        ..q
    };
    assert!(client.companies_by_name(&hashed).await.unwrap().is_empty());
}

#[tokio::test]
async fn current_deprecated_and_short_ratings_agree() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    for n in [1, 2, 3, 44, 555] {
        let id = sim.dataset().uuid(fr(n));
        let current = client.rating(id, None).await.unwrap();
        let dated = client
            .rating(id, Some(jiff::civil::date(2026, 11, 21)))
            .await
            .unwrap();
        let old = client.rating_deprecated(id).await.unwrap();
        let short = client.short_rating(id).await.unwrap();
        assert_eq!(current.company_id, id);
        assert_eq!(short.color, current.rating_color);
        assert_eq!(dated.rating_color, current.rating_color);
        let (a, b): (model::Rating, model::Rating) = (current.into(), old.into());
        assert_eq!(
            (a.color, a.last_change, a.last_refresh),
            (b.color, b.last_change, b.last_refresh)
        );
    }
    let stats = sim.stats();
    assert_eq!(stats.calls(Endpoint::Rating), 10);
    assert_eq!(stats.calls(Endpoint::RatingDeprecated), 5);
    assert_eq!(stats.calls(Endpoint::ShortRating), 5);
}

#[tokio::test]
async fn history_follows_every_page_newest_first() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let ids: Vec<Uuid> = (0..123).map(|n| sim.dataset().uuid(fr(n))).collect();
    for id in &ids {
        client.rating(*id, None).await.unwrap();
    }
    let history = client.ratings_history().await.unwrap();
    let got: Vec<Uuid> = history.iter().map(|r| r.company_id).collect();
    let mut want = ids.clone();
    want.reverse();
    assert_eq!(got, want);
    assert_eq!(sim.stats().calls(Endpoint::RatingsHistory), 3);
}

#[tokio::test]
async fn lookups_list_countries_and_services() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let countries = client.countries().await.unwrap();
    for code in model::RATED_COUNTRIES {
        assert!(countries.iter().any(|c| c.country_code == code), "{code}");
    }
    assert!(
        countries.iter().any(|c| c.country_code == "US"),
        "unrated countries are listed too"
    );
    let services = client.services().await.unwrap();
    let has = |cc: &str, code: &str| {
        services
            .iter()
            .any(|s| s.identifier_country == cc && s.identifier_code == code)
    };
    assert!(has("FR", "SIREN") && has("FR", "SIRET") && has("GP", "SIREN"));
    assert!(has("GB", "CRO") && has("NL", "KVK") && has("CN", "VATCN") && has("DE", "FCDE"));
    // The lookups do not need a key.
    let anonymous = Client::new(&sim.base_url(), None, ClientOptions::default()).unwrap();
    assert_eq!(anonymous.countries().await.unwrap(), countries);
}

#[tokio::test]
async fn wrong_key_is_unauthenticated_and_not_transient() {
    let sim = start(config()).await;
    let client = client_for(&sim, "not-the-key");
    let err = client
        .rating(sim.dataset().uuid(fr(1)), None)
        .await
        .unwrap_err();
    match &err {
        ApiError::Unauthenticated { status, message } => {
            assert_eq!(*status, 401);
            assert!(message.contains("couldn't be authenticated"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!err.is_transient());
    assert!(!err.to_string().contains("not-the-key"));
    assert!(err.to_string().contains("demo and live keys differ"));
}

#[tokio::test]
async fn validation_errors_keep_every_parameter_and_message() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let err = client
        .companies_by_name(&NameQuery {
            country: "zz".into(),
            name: "Acme".into(),
            ..NameQuery::default()
        })
        .await
        .unwrap_err();
    let ApiError::Validation { fields } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        fields,
        &vec![(
            "country".to_string(),
            vec!["\"zz\" is not a valid choice.".to_string()]
        )]
    );

    let err = client
        .companies_by_name(&NameQuery::default())
        .await
        .unwrap_err();
    let ApiError::Validation { fields } = &err else {
        panic!("{err:?}")
    };
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, vec!["countrycode", "name"]);
    assert!(
        err.to_string().contains("name: This field is required."),
        "{err}"
    );
}

#[tokio::test]
async fn unknown_identifier_and_company_are_not_found() {
    let sim = start(config()).await;
    let client = client_for(&sim, KEY);
    let err = client
        .company_by_external_id("fr", "SIREN", "000000000")
        .await
        .unwrap_err();
    assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
    let err = client.rating(Uuid::new_v4(), None).await.unwrap_err();
    assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
    assert!(!err.is_transient());
}

#[tokio::test]
async fn rate_limit_is_reported_with_retry_after() {
    let sim = start(SimConfig {
        faults: Faults {
            rate_limit: Some(1.0),
            ..Faults::default()
        },
        ..config()
    })
    .await;
    let client = client_for(&sim, KEY);
    let id = sim.dataset().uuid(fr(1));
    client.rating(id, None).await.unwrap();
    let err = client.rating(id, None).await.unwrap_err();
    match err {
        ApiError::RateLimited { retry_after } => {
            assert_eq!(retry_after, Some(Duration::from_secs(1)))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(sim.stats().throttled, 1);
}

#[tokio::test]
async fn server_errors_carry_status_and_an_html_snippet() {
    let sim = start(SimConfig {
        faults: Faults {
            fail_rate: 1.0,
            ..Faults::default()
        },
        ..config()
    })
    .await;
    let client = client_for(&sim, KEY);
    let err = client.countries().await.unwrap_err();
    match &err {
        ApiError::Server { status, snippet } => {
            assert!(*status == 502 || *status == 503);
            assert!(snippet.contains("<title>50"), "{snippet}");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.is_transient());
}

#[tokio::test]
async fn dropped_connections_and_refused_ports_are_transport_errors() {
    let sim = start(SimConfig {
        faults: Faults {
            drop_rate: 1.0,
            ..Faults::default()
        },
        ..config()
    })
    .await;
    let err = client_for(&sim, KEY).countries().await.unwrap_err();
    assert!(
        matches!(err, ApiError::Transport { timeout: false, .. }),
        "{err:?}"
    );
    assert_eq!(sim.stats().dropped, 1);

    let closed = {
        let l = std::net::TcpListener::bind(common::loopback()).unwrap();
        l.local_addr().unwrap()
    };
    let client = Client::new(&format!("http://{closed}"), None, ClientOptions::default()).unwrap();
    let err = client.countries().await.unwrap_err();
    assert!(matches!(err, ApiError::Transport { .. }), "{err:?}");
    assert!(err.is_transient());
}

#[tokio::test]
async fn a_slow_answer_times_out() {
    let sim = start(SimConfig {
        faults: Faults {
            slow_rate: 1.0,
            slow: Duration::from_secs(5),
            ..Faults::default()
        },
        ..config()
    })
    .await;
    let options = ClientOptions {
        timeout: Duration::from_millis(200),
        ..ClientOptions::default()
    };
    let client = Client::new(&sim.base_url(), Some(&ApiKey::new(KEY)), options).unwrap();
    let err = client.countries().await.unwrap_err();
    assert!(
        matches!(err, ApiError::Transport { timeout: true, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn garbage_bodies_are_decode_errors_with_a_snippet() {
    let base = scripted(|_, path| {
        if path.contains("countries") {
            (
                "200 OK".into(),
                "text/html".into(),
                b"<html>maintenance</html>".to_vec(),
            )
        } else if path.contains("services") {
            (
                "200 OK".into(),
                "application/json".into(),
                br#"[{"IdentifierCode": 5}]"#.to_vec(),
            )
        } else {
            (
                "200 OK".into(),
                "application/json".into(),
                br#"{"ratingColor":"green","compa"#.to_vec(),
            )
        }
    })
    .await;
    let client = Client::new(&base, None, ClientOptions::default()).unwrap();
    let err = client.countries().await.unwrap_err();
    match &err {
        ApiError::Decode { snippet, .. } => assert!(snippet.contains("maintenance")),
        other => panic!("{other:?}"),
    }
    assert!(!err.is_transient());
    assert!(matches!(
        client.services().await.unwrap_err(),
        ApiError::Decode { .. }
    ));
    let truncated = client.rating(Uuid::new_v4(), None).await.unwrap_err();
    assert!(
        matches!(truncated, ApiError::Decode { .. }),
        "{truncated:?}"
    );
}

#[tokio::test]
async fn a_huge_body_is_refused_not_swallowed() {
    let base = scripted(|_, _| {
        let mut body = b"[".to_vec();
        body.resize(6 * 1024 * 1024, b' ');
        body.push(b']');
        ("200 OK".into(), "application/json".into(), body)
    })
    .await;
    let client = Client::new(&base, None, ClientOptions::default()).unwrap();
    let err = client.countries().await.unwrap_err();
    assert!(err.to_string().contains("larger than 4 MiB"), "{err}");
}

#[tokio::test]
async fn unknown_colors_and_extra_fields_are_kept() {
    let id = Uuid::new_v4();
    let base = scripted(move |_, _| {
        let body = format!(
            r#"{{"ratingColor":"Orange","companyId":"{id}","requestDate":"2026-11-21T02:00:00.1234567",
            "lastRefreshDate":"2026-11-20T01:00:00Z","lastChangeDate":"2026-11-01T00:00:00","newField":true}}"#
        );
        ("200 OK".into(), "application/json".into(), body.into_bytes())
    })
    .await;
    let client = Client::new(&base, None, ClientOptions::default()).unwrap();
    let r = client.rating(id, None).await.unwrap();
    assert_eq!(r.rating_color, Color::Other("orange".into()));
}

#[tokio::test]
async fn history_refuses_loops_and_foreign_links() {
    let looping = scripted(|host, _| {
        let body = format!(r#"{{"next":"{host}/v2/ratings?page=2","previous":null,"results":[]}}"#);
        (
            "200 OK".into(),
            "application/json".into(),
            body.into_bytes(),
        )
    })
    .await;
    let client = Client::new(&looping, None, ClientOptions::default()).unwrap();
    let err = client.ratings_history().await.unwrap_err();
    assert!(err.to_string().contains("loop"), "{err}");

    let foreign = scripted(|_, _| {
        let body =
            r#"{"next":"http://elsewhere.invalid/v2/ratings?page=2","previous":null,"results":[]}"#;
        (
            "200 OK".into(),
            "application/json".into(),
            body.as_bytes().to_vec(),
        )
    })
    .await;
    let client = Client::new(&foreign, Some(&ApiKey::new("k")), ClientOptions::default()).unwrap();
    let err = client.ratings_history().await.unwrap_err();
    assert!(err.to_string().contains("another server"), "{err}");
}

#[tokio::test]
async fn base_url_with_or_without_v2_reaches_the_same_service() {
    let sim = start(config()).await;
    for base in [
        sim.base_url(),
        format!("{}/", sim.base_url()),
        format!("{}/v2", sim.base_url()),
        format!("{}/v2/", sim.base_url()),
    ] {
        let client = Client::new(&base, None, ClientOptions::default()).unwrap();
        assert!(!client.countries().await.unwrap().is_empty(), "{base}");
    }
}

/// A reply that redirects to `location`.
fn redirect(status: &str, location: &str) -> Reply {
    Reply {
        status: status.into(),
        headers: vec![("location".into(), location.into())],
        body: Vec::new(),
    }
}

#[tokio::test]
async fn a_redirect_to_another_server_fails_and_the_key_never_goes_there() {
    let (elsewhere, reached) = recording(|_, _| Reply::json("[]")).await;
    let port = |base: &str| base.rsplit(':').next().unwrap().to_string();
    for status in ["302 Found", "307 Temporary Redirect"] {
        // Another port; then, on the redirecting server's own port, another host and
        // another scheme.
        let targets: [fn(&str, &str) -> String; 3] = [
            |elsewhere, _| format!("{elsewhere}/v2/lookups/countries"),
            |_, own| format!("http://localhost:{own}/v2/lookups/countries"),
            |_, own| format!("https://127.0.0.1:{own}/v2/lookups/countries"),
        ];
        for target in targets {
            let other = elsewhere.clone();
            let (base, seen) =
                recording(move |host, _| redirect(status, &target(&other, &port(host)))).await;
            let location = target(&elsewhere, &port(&base));
            let client =
                Client::new(&base, Some(&ApiKey::new(KEY)), ClientOptions::default()).unwrap();
            let limiter = Limiter::new(Limits::default());
            let err = limiter
                .call("countries", || client.countries())
                .await
                .unwrap_err();
            match &err {
                ApiError::Redirected { to, too_many } => {
                    assert_eq!((to.as_str(), *too_many), (location.as_str(), false))
                }
                other => panic!("{status} to {location}: {other:?}"),
            }
            let message = err.to_string();
            assert!(message.contains(&location), "{message}");
            assert!(message.contains("another server"), "{message}");
            assert!(message.contains("--base-url"), "{message}");
            assert!(!message.contains(KEY), "{message}");
            assert!(!err.is_transient());
            let seen = seen.lock().unwrap();
            assert_eq!(seen.len(), 1, "not retried: {seen:?}");
            assert_eq!(
                seen[0].header("apikey"),
                Some(KEY),
                "the key went to the service"
            );
        }
    }
    let reached = reached.lock().unwrap();
    assert!(
        reached.is_empty(),
        "the other server was reached: {reached:?}"
    );
}

#[tokio::test]
async fn a_redirect_within_the_service_is_followed_up_to_a_limit() {
    let (base, seen) = recording(|host, request| match request.target.as_str() {
        "/v2/lookups/countries" => redirect("302 Found", "/v2/moved/countries"),
        "/v2/moved/countries" => redirect(
            "307 Temporary Redirect",
            &format!("{host}/v2/moved/again/countries"),
        ),
        "/v2/moved/again/countries" => {
            Reply::json(r#"[{"CountryCode":"FR","CountryName":"France"}]"#)
        }
        looping => redirect("302 Found", looping),
    })
    .await;
    let client = Client::new(&base, Some(&ApiKey::new(KEY)), ClientOptions::default()).unwrap();
    let countries = client.countries().await.unwrap();
    assert_eq!(countries[0].country_code, "FR");
    {
        let seen = seen.lock().unwrap();
        let paths: Vec<&str> = seen.iter().map(|s| s.target.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/v2/lookups/countries",
                "/v2/moved/countries",
                "/v2/moved/again/countries"
            ]
        );
        assert!(seen.iter().all(|s| s.header("apikey") == Some(KEY)));
    }

    seen.lock().unwrap().clear();
    let err = client.services().await.unwrap_err();
    assert!(
        matches!(err, ApiError::Redirected { too_many: true, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("too many times"), "{err}");
    assert!(!err.is_transient());
    assert_eq!(seen.lock().unwrap().len(), 1 + MAX_REDIRECTS);
}
