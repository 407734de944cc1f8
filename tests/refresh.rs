//! `[refresh]`: a rating younger than its color's refresh age is used without a call, red
//! is asked again within a day, and the reports mark what was reused.

use predicates::prelude::*;
use ratewatch::model::Color;
use ratewatch::sim::{CompanyRef, Dataset, Endpoint};

use crate::common::{Workspace, rows_by_ref, sample_sim};

/// The first `n` dataset companies (mixing countries) of this color on days 1 to 3.
fn of_color(data: &Dataset, color: Color, n: usize) -> Vec<CompanyRef> {
    (0..4_000u32)
        .map(|i| CompanyRef {
            country: (i % 10) as usize,
            n: i / 10,
        })
        .filter(|r| (1..=3).all(|d| data.rating(*r, d).color == color))
        .take(n)
        .collect()
}

#[test]
fn green_ratings_younger_than_a_week_are_reused_and_red_ones_asked_every_night() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let mut csv = String::from("ref,country,company_id\n");
    let greens = of_color(&data, Color::Green, 3);
    let reds = of_color(&data, Color::Red, 2);
    assert_eq!((greens.len(), reds.len()), (3, 2));
    for (i, r) in greens.iter().chain(&reds).enumerate() {
        let prefix = if i < 3 { "G" } else { "R" };
        let country = data.company(*r).address.country_code;
        csv.push_str(&format!("{prefix}{i},{country},{}\n", data.uuid(*r)));
    }
    let ws = Workspace::new();
    let file = ws.write("p.csv", csv.as_bytes());
    // Red's week is capped at a day, whatever the file says.
    ws.write(
        "ratewatch.toml",
        b"[refresh]\ngreen = \"7d\"\nred = \"7d\"\n",
    );
    let ratings = || sim.server.stats().calls(Endpoint::Rating);
    let night = |day: i64| {
        sim.server.set_day(day);
        crate::common::a_night_passes(&ws.db());
        let out = ws.screen(&sim, &file).run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };

    let first = night(1);
    assert_eq!(ratings(), 5, "a first night asks every company");
    assert!(!first.contains("reused"), "{first}");
    for row in ws.report()["rows"].as_array().unwrap() {
        assert_eq!(row["reused"], false, "{row}");
        assert_eq!(row["rating_age_hours"], serde_json::Value::Null, "{row}");
    }

    // The dry run counts what the night will spare.
    sim.server.set_day(2);
    crate::common::a_night_passes(&ws.db());
    ws.screen(&sim, &file)
        .arg("--dry-run")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ratings: 3 reused without a call (younger than their color's refresh age)",
        ))
        .stdout(predicate::str::contains("2 rating"));
    assert_eq!(ratings(), 5, "a dry run calls nothing");

    // The dry run's night already passed: the second night is screened at once.
    let out = ws.screen(&sim, &file).run();
    let second = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ratings(), 7, "only the red companies are asked: {second}");
    assert!(
        second.contains("ratings: 3 reused (younger than their color's refresh age), 2 asked"),
        "{second}"
    );
    let rows = rows_by_ref(&ws.report());
    for g in ["G0", "G1", "G2"] {
        assert_eq!(rows[g]["status"], "rated", "{g}");
        assert_eq!(rows[g]["color"], "green", "{g}");
        assert_eq!(rows[g]["change"], "unchanged", "{g}");
        assert_eq!(rows[g]["reused"], true, "{g}");
        assert_eq!(rows[g]["rating_age_hours"], 24, "{g}");
    }
    for r in ["R3", "R4"] {
        assert_eq!(rows[r]["color"], "red", "{r}");
        assert_eq!(rows[r]["reused"], false, "{r}");
        assert_eq!(rows[r]["rating_age_hours"], serde_json::Value::Null, "{r}");
    }

    // A reused rating confirms nothing: it keeps ageing from when it was last asked.
    night(3);
    assert_eq!(ratings(), 9);
    let rows = rows_by_ref(&ws.report());
    for g in ["G0", "G1", "G2"] {
        assert_eq!(rows[g]["reused"], true, "{g}");
        assert_eq!(rows[g]["rating_age_hours"], 48, "{g}");
    }
}
