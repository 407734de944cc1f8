//! `ratewatch screen` end to end: the binary against a simulator on a random loopback port,
//! its reports, its database and the simulator's call counters.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use ratewatch::error::ExitCode;
use ratewatch::model::{Change, Color};
use ratewatch::sim::{CompanyRef, Dataset, Endpoint};

use crate::common::{Background, Screening, Workspace, ratewatch, rows_by_ref, sample_sim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// Whether a run finished as a night with nothing failed does: exit 0 or 1.
fn finished_well(night: &Screening) -> bool {
    matches!(night.exit_code(), ExitCode::Clean | ExitCode::Attention)
}

#[test]
fn the_sample_reaches_every_status_with_its_reason() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample())
        .assert()
        .code(3)
        .stdout(predicate::str::contains("PARTIAL"));
    let report = ws.report();
    let rows = rows_by_ref(&report);
    let status = |r: &str| rows[r]["status"].as_str().unwrap().to_string();
    let error = |r: &str| rows[r]["error"].as_str().unwrap_or("").to_string();
    for r in [
        "C-1001", "C-1002", "C-1003", "C-1007", "C-1008", "C-1012", "C-1025",
    ] {
        assert_eq!(status(r), "rated", "{r}: {}", error(r));
    }
    assert_eq!(status("C-1006"), "ambiguous");
    // Two companies bear the exact name; the Holding's name holds all its words too.
    let candidates: Vec<&str> = rows["C-1006"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        candidates,
        [
            "López Motors & Fils SA",
            "López Motors & Fils SA",
            "López Motors & Fils Holding SA"
        ]
    );
    assert_eq!(status("C-1009"), "unresolved");
    assert_eq!(status("C-1018"), "unresolved");
    assert!(
        error("C-1019").starts_with("service: \"CRO\""),
        "{}",
        error("C-1019")
    );
    assert!(error("C-1020").starts_with("country: missing"));
    assert!(error("C-1021").starts_with("country: \"XX\""));
    assert!(error("C-1022").contains("no ratings for US"));
    assert!(error("C-1023").starts_with("id and name"));
    for r in ["C-1019", "C-1020", "C-1021", "C-1022", "C-1023"] {
        assert_eq!(status(r), "invalid", "{r}");
    }
    assert_eq!(status("C-1024"), "failed");
    assert!(
        error("C-1024").contains("phonenumber"),
        "the service's message verbatim"
    );
    assert_eq!(rows["C-1011"]["id"], "1545625", "reported as given");
    assert_eq!(
        rows["C-1011"]["status"], "rated",
        "leading zero restored for the search"
    );
    let by_status = &report["run"]["by_status"];
    let total: u64 = [
        "rated",
        "unresolved",
        "ambiguous",
        "invalid",
        "failed",
        "ignored",
    ]
    .iter()
    .map(|s| by_status[s].as_u64().unwrap())
    .sum();
    assert_eq!(total, 25);
    assert_eq!(report["run"]["rows"], 25);
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    assert_eq!(csv.lines().count(), 26);
}

/// A portfolio of `n` companies of every country, searched by each kind of identifier or by
/// name with its city.
fn generated(data: &Dataset, n: u32) -> (String, Vec<CompanyRef>) {
    let mut csv = String::from("ref,country,service,id,name,city\n");
    let mut refs = Vec::new();
    for i in 0..n {
        let r = CompanyRef {
            country: (i % 10) as usize,
            n: 3 + i * 7,
        };
        let c = data.company(r);
        if i % 3 == 0 {
            csv.push_str(&format!(
                "R{i},{},,,\"{}\",{}\n",
                c.address.country_code, c.name, c.address.city
            ));
        } else {
            let e = &c.external_ids[(i as usize) % c.external_ids.len()];
            csv.push_str(&format!(
                "R{i},{},{},{},,\n",
                c.address.country_code, e.external_service, e.external_id
            ));
        }
        refs.push(r);
    }
    (csv, refs)
}

#[test]
fn two_days_give_exactly_the_changes_the_simulator_implies_and_nothing_is_searched_twice() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let ws = Workspace::new();
    let (csv, refs) = generated(&data, 300);
    let file = ws.write("p.csv", csv.as_bytes());
    let distinct: HashSet<_> = refs.iter().collect();
    // In-process: what is checked is the runs' reports, database and calls.
    let base = sim.server.base_url();

    let night = ws.screen_in_process(&base, &file, &[]);
    assert!(finished_well(&night), "{night:?}");
    let first = sim.server.stats();
    assert_eq!(
        first.calls(Endpoint::Rating),
        distinct.len() as u64,
        "one rating call per company"
    );
    assert_eq!(
        first.calls(Endpoint::CompanyById) + first.calls(Endpoint::CompaniesByName),
        300,
        "one search per distinct row"
    );

    sim.server.set_day(6);
    let night = ws.screen_in_process(&base, &file, &[]);
    assert!(finished_well(&night), "{night:?}");
    assert_eq!(night.run().id, 2, "{night:?}");
    let second = sim.server.stats();
    assert_eq!(
        second.calls(Endpoint::CompanyById),
        first.calls(Endpoint::CompanyById),
        "no search on a re-run"
    );
    assert_eq!(
        second.calls(Endpoint::CompaniesByName),
        first.calls(Endpoint::CompaniesByName)
    );
    assert_eq!(
        second.calls(Endpoint::Rating) - first.calls(Endpoint::Rating),
        distinct.len() as u64
    );

    let report = ws.report();
    let rows = rows_by_ref(&report);
    let mut color_changes = 0;
    for (i, r) in refs.iter().enumerate() {
        let row = &rows[&format!("R{i}")];
        assert_eq!(row["status"], "rated", "{row}");
        let (before, after) = (data.rating(*r, 1), data.rating(*r, 6));
        let want = Change::classify(
            Some((&before.color, Some(before.last_change.instant.as_second()))),
            &after.color,
            Some(after.last_change.instant.as_second()),
        );
        assert_eq!(row["change"], want.as_str(), "{row}");
        assert_eq!(row["color"], after.color.as_str());
        assert_eq!(row["previous_color"], before.color.as_str());
        let alert = want.is_color_change() || matches!(after.color, Color::Red | Color::Black);
        assert_eq!(row["alert"], alert);
        color_changes += usize::from(want.is_color_change());
    }
    assert!(color_changes > 0, "five days apart, some colors move");
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    let in_view: usize = conn
        .query_row(
            "SELECT count(*) FROM color_changes WHERE run_id = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(in_view, color_changes);
}

#[test]
fn duplicates_across_siren_siret_and_name_reach_one_company_with_one_rating_call() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let r = CompanyRef {
        country: 0,
        n: 1234,
    };
    let c = data.company(r);
    let siren = &c.external_ids[0].external_id;
    let siret = &c.external_ids[1].external_id;
    let ws = Workspace::new();
    let file = ws.write(
        "dups.csv",
        format!(
            "ref,country,service,id,name,city\nA,FR,SIREN,{siren},,\nB,fr,siret,{siret},,\nC,FR,,,\"{}\",{}\nD,FR,SIREN,{siren},,\n",
            c.name.to_uppercase(),
            c.address.city
        )
        .as_bytes(),
    );
    // In-process: what is checked is the run's report and calls.
    let night = ws.screen_in_process(&sim.server.base_url(), &file, &[]);
    assert!(finished_well(&night), "{night:?}");
    let rows = rows_by_ref(&ws.report());
    let id = data.uuid(r).to_string();
    for k in ["A", "B", "C", "D"] {
        assert_eq!(rows[k]["company_id"], id.as_str(), "{k}");
    }
    let stats = sim.server.stats();
    assert_eq!(stats.calls(Endpoint::Rating), 1);
    assert_eq!(
        stats.calls(Endpoint::CompanyById),
        2,
        "D repeats A's search: asked once"
    );
}

#[test]
fn a_semicolon_bom_crlf_export_screens_like_any_other() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let c = data.company(CompanyRef { country: 3, n: 6 });
    let ws = Workspace::new();
    let file = ws.write(
        "excel.csv",
        format!(
            "\u{feff}Ref;Country;Name;City\r\n\"X;1\";de;\"{}\";{}\r\n\r\n",
            c.name, c.address.city
        )
        .as_bytes(),
    );
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["X;1"]["status"], "rated");
    assert_eq!(rows["X;1"]["line"], 2);
    assert_eq!(rows["X;1"]["company_id"], c.id.to_string());
}

#[test]
fn an_unreadable_portfolio_exits_2_before_anything_is_written() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let latin1 = ws.write(
        "latin1.csv",
        b"country,name\nFR,Soci\xe9t\xe9 G\xe9n\xe9rale\n",
    );
    ws.screen(&sim, &latin1)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("latin1.csv:2: not UTF-8"));
    let no_country = ws.write("cols.csv", b"name,city\nAcme,Lyon\n");
    ws.screen(&sim, &no_country)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no `country` column"));
    assert!(!ws.db().exists(), "nothing written");
    assert_eq!(sim.server.stats().total(), 0, "no call made");
}

#[test]
fn a_refused_key_costs_one_call_and_exits_4() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let secret = "definitely-wrong-key";
    let assert = ws
        .screen(&sim, &sample())
        .env("RATEWATCH_API_KEY", secret)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("RATEWATCH_API_KEY"));
    let out = assert.get_output();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(secret));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    assert_eq!(sim.server.stats().unauthenticated, 1);
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    let status: String = conn
        .query_row("SELECT status FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "failed");
}

#[test]
fn a_quiet_night_exits_0_and_says_so_in_one_line() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let greens: Vec<_> = (0..400)
        .map(|n| CompanyRef { country: 0, n })
        .filter(|r| data.rating(*r, 1).color == Color::Green)
        .take(5)
        .collect();
    let mut csv = String::from("country,service,id\n");
    for r in &greens {
        csv.push_str(&format!(
            "FR,SIREN,{}\n",
            data.external_ids(*r)[0].external_id
        ));
    }
    let ws = Workspace::new();
    let file = ws.write("green.csv", csv.as_bytes());
    ws.screen(&sim, &file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Nothing flagged"));
    ws.screen(&sim, &file)
        .arg("--quiet")
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn a_cached_company_the_service_no_longer_knows_is_searched_again() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let r = CompanyRef { country: 1, n: 13 };
    let cro = data.external_ids(r)[0].external_id.clone();
    let ws = Workspace::new();
    let file = ws.write(
        "one.csv",
        format!("country,service,id\nGB,CRO,{cro}\n").as_bytes(),
    );
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let stale = uuid::Uuid::new_v4().to_string();
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    conn.execute(
        "INSERT INTO companies (company_id, first_seen_at, updated_at)
         VALUES (?1, '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z')",
        [&stale],
    )
    .unwrap();
    conn.execute(
        "UPDATE resolutions SET company = (SELECT max(id) FROM companies)",
        [],
    )
    .unwrap();
    drop(conn);
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let rows = ws.report()["rows"].clone();
    assert_eq!(rows[0]["status"], "rated");
    assert_eq!(rows[0]["company_id"], data.uuid(r).to_string());
    assert_eq!(sim.server.stats().calls(Endpoint::CompanyById), 2);
}

#[test]
fn the_readme_demo_run_twice_shows_color_changes() {
    let ws = Workspace::new();
    let run = || {
        ratewatch(["screen"])
            .in_dir(ws.dir.path())
            .arg(sample())
            .arg("--demo")
            .assert()
            .code(3)
            .get_output()
            .stdout
            .clone()
    };
    let first = String::from_utf8(run()).unwrap();
    assert!(!first.contains('→'), "{first}");
    let second = String::from_utf8(run()).unwrap();
    assert!(second.contains("green → red"), "{second}");
    assert!(second.contains("counted, not listed: "), "{second}");
    // The heading names report.html by its absolute path, for a mail read elsewhere.
    let heading = second.lines().next().unwrap();
    let report = ws.path("report.html");
    assert!(
        heading.ends_with(&format!(" · {}", report.display())),
        "{heading}"
    );
    assert!(ws.path("ratewatch.db").exists() && ws.path("report.json").exists());
    let conn = rusqlite::Connection::open(ws.path("ratewatch.db")).unwrap();
    let changes: i64 = conn
        .query_row("SELECT count(*) FROM color_changes", [], |r| r.get(0))
        .unwrap();
    assert!(changes > 0);
}

#[test]
fn a_second_portfolio_uses_the_ratings_a_recent_run_saw_when_asked_to() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let siren = |n: u32| {
        data.company(CompanyRef { country: 0, n }).external_ids[0]
            .external_id
            .clone()
    };
    let portfolio = |numbers: &[u32]| {
        let mut text = String::from("ref,country,service,id\n");
        for n in numbers {
            text.push_str(&format!("R{n},FR,SIREN,{}\n", siren(*n)));
        }
        text
    };
    let ws = Workspace::new();
    let customers = ws.write("customers.csv", portfolio(&[11, 12, 13]).as_bytes());
    let suppliers = ws.write("suppliers.csv", portfolio(&[12, 13, 14, 15]).as_bytes());
    let ratings = || sim.server.stats().calls(Endpoint::Rating);

    ws.screen(&sim, &customers)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let seen = rows_by_ref(&ws.report());
    assert_eq!(ratings(), 3);

    ws.screen(&sim, &suppliers)
        .args(["--rating-max-age", "12"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(ratings(), 5, "only the two companies the customers lack");
    let rows = rows_by_ref(&ws.report());
    for r in ["R12", "R13"] {
        assert_eq!(rows[r]["status"], "rated", "{r}");
        assert_eq!(rows[r]["color"], seen[r]["color"], "{r}");
        assert_eq!(rows[r]["change"], "unchanged", "{r}");
    }
    for r in ["R14", "R15"] {
        assert_eq!(rows[r]["change"], "new", "{r}");
    }

    // By default every run asks: a color is what the service is paid for.
    ws.screen(&sim, &suppliers)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(ratings(), 9);
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let history: i64 = db
        .query_row("SELECT count(*) FROM ratings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(history, 5, "reusing a rating adds nothing to the history");
}

#[test]
fn a_french_erp_export_is_screened_as_it_is_with_a_columns_mapping() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let ws = Workspace::new();
    ws.write(
        "ratewatch.toml",
        "[columns]\nref = \"Référence client\"\ncountry = \"Pays\"\nname = \"Raison sociale\"\ncity = \"Ville\"\n"
            .as_bytes(),
    );
    let mut export = String::from(
        "\u{feff}Référence client;Pays;SIREN;SIRET;Raison sociale;Ville;Encours EUR\r\n",
    );
    let countries = ["France", "FRA", "FR", "france"];
    for n in 0..8u32 {
        let r = CompanyRef { country: 0, n };
        let ids = data.external_ids(r);
        let of = |code: &str| {
            ids.iter()
                .find(|e| e.external_service == code)
                .map(|e| e.external_id.clone())
                .unwrap_or_default()
        };
        // Half the rows give only the SIRET: the first identifier filled is used.
        let siren = if n % 2 == 0 {
            of("SIREN")
        } else {
            String::new()
        };
        export.push_str(&format!(
            "C-{n};{};{siren};{};;;{}\r\n",
            countries[n as usize % 4],
            of("SIRET"),
            1000 * n
        ));
    }
    export.push_str("C-X;Frnace;552100554;;;;0\r\n");
    let file = ws.write("export.csv", export.as_bytes());
    let out = ws.screen(&sim, &file).run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    assert!(text.contains("columns not used: Encours EUR"), "{text}");
    let report = ws.report();
    let rows = rows_by_ref(&report);
    // The exposure is carried through: in report.json's `extra` and as a column of
    // report.csv, beside the color.
    assert_eq!(
        rows["C-3"]["extra"],
        serde_json::json!({"Encours EUR": "3000"})
    );
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(
            ",stale,alert_kind,acknowledged,country_defaulted,extra_unreliable,alert_listed,found_by,color_since,Encours EUR,SIREN,SIRET"
        ),
        "{header}"
    );
    let line = csv.lines().find(|l| l.contains(",C-3,")).unwrap();
    assert!(line.ends_with(",3000,,"), "{line}");
    // A row searched by its SIREN keeps its SIRET beside it.
    let line = csv.lines().find(|l| l.contains(",C-2,")).unwrap();
    assert!(
        line.ends_with(&format!(",2000,,{}", siret_of(&data, 2))),
        "{line}"
    );
    for n in 0..8 {
        let row = &rows[&format!("C-{n}")];
        assert_eq!(row["status"], "rated", "{row}");
        assert_eq!(
            row["company_id"],
            data.uuid(CompanyRef { country: 0, n }).to_string(),
            "{row}"
        );
    }
    let typo = &rows["C-X"];
    assert_eq!(typo["status"], "invalid");
    assert!(
        typo["error"].as_str().unwrap().contains("did you mean FR?"),
        "{typo}"
    );
    // Under --quiet the remark about unused columns is left out: a quiet night stays quiet.
    let quiet = ws.screen(&sim, &file).arg("--quiet").run();
    assert!(!String::from_utf8_lossy(&quiet.stdout).contains("columns not used"));
}

/// The SIRET of the `n`th French company of the dataset.
fn siret_of(data: &Dataset, n: u32) -> String {
    data.external_ids(CompanyRef { country: 0, n })
        .into_iter()
        .find(|e| e.external_service == "SIRET")
        .map(|e| e.external_id)
        .unwrap()
}

/// The loosened name searches `--dry-run` counts, from its `calls:` line.
fn loosened_in(text: &str) -> u64 {
    let line = text.lines().find(|l| l.starts_with("calls: ")).unwrap();
    line.split(" name searches loosened")
        .next()
        .and_then(|before| before.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The calls `--dry-run` counts, from its `calls:` line: (exact, at most).
fn previewed(text: &str) -> (u64, u64) {
    let line = text.lines().find(|l| l.starts_with("calls: ")).unwrap();
    let exact = line["calls: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let most = line.split("at most ").nth(1).map_or(exact, |m| {
        m.split_whitespace().next().unwrap().parse().unwrap()
    });
    (exact, most)
}

#[test]
fn a_dry_run_counts_the_calls_the_run_then_makes_and_writes_nothing() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let mut csv = Vec::new();
    ratewatch::sim::portfolio::write(sim.server.dataset(), 60, &mut csv).unwrap();
    let file = ws.write("book.csv", &csv);
    let calls = |sim: &Background| sim.server.stats().total();

    // First run: the searches are exact, the ratings at most one per search.
    let out = ws.screen(&sim, &file).arg("--dry-run").run();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("nothing was called or written"), "{text}");
    assert_eq!(calls(&sim), 0, "a dry run calls nothing");
    assert!(!ws.db().exists(), "and writes nothing");
    let (_, most) = previewed(&text);
    let loosened = loosened_in(&text);
    assert!(loosened > 0, "its name rows give a city: {text}");
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    // Every search of this portfolio finds a company of its own: the bound is reached, but
    // for the loosened name searches, made only for a name that finds nothing.
    assert_eq!(calls(&sim), most - loosened, "{text}");

    // Nightly: everything is cached, the count is exact.
    let out = ws.screen(&sim, &file).arg("--dry-run").run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (exact, most) = previewed(&text);
    assert_eq!(exact, most, "{text}");
    let before = calls(&sim);
    ws.screen(&sim, &file)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(calls(&sim) - before, exact, "{text}");
}

#[test]
fn a_mistyped_siren_is_flagged_by_the_dry_run_and_explained_when_it_matches_nothing() {
    let sim = sample_sim();
    let ws = Workspace::new();
    // A good row first: its answer shows the service is there, so "not found" is believed.
    let good = sim
        .server
        .dataset()
        .external_ids(CompanyRef { country: 0, n: 1 })[0]
        .external_id
        .clone();
    let file = ws.write(
        "typo.csv",
        format!("ref,country,service,id\nG-1,FR,SIREN,{good}\nT-1,FR,SIREN,552100555\n").as_bytes(),
    );
    let out = ws.screen(&sim, &file).arg("--dry-run").run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("1 identifiers fail their registry's rules (typos?): line 3: the SIREN 552100555 fails its check digit"),
        "{text}"
    );
    ws.screen(&sim, &file).args(["--concurrency", "1"]).run();
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["T-1"]["status"], "unresolved");
    assert!(
        rows["T-1"]["error"]
            .as_str()
            .unwrap()
            .contains("fails its check digit: a typo?"),
        "{}",
        rows["T-1"]
    );
}

#[test]
fn a_dry_run_of_a_file_with_nothing_to_screen_is_refused_as_the_run_would_be() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let file = ws.write("empty.csv", b"country,service,id\n");
    ws.screen(&sim, &file)
        .arg("--dry-run")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to screen"));
}

#[test]
fn an_empty_country_takes_default_country_and_the_row_says_so() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let file = ws.write(
        "p.csv",
        b"ref,country,service,id,name\n\
          C-1,FR,SIREN,734531544,\n\
          C-2,,SIREN,734531544,\n\
          C-3,fr,SIRET,73453154400256,\n\
          C-4,FR,,,Zhao Robotique Loire SA\n\
          C-5,GB,,,\n\
          C-6,FR,SIREN,734531544,\n",
    );
    // Without the setting, the row is invalid, as it always was.
    let out = ws.screen(&sim, &file).run();
    assert_ne!(out.status.code(), Some(2), "{out:?}");
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["C-2"]["status"], "invalid");
    assert_eq!(rows["C-2"]["country_defaulted"], false);

    // The dry run counts it as the run does.
    let dry = ws
        .screen(&sim, &file)
        .args(["--dry-run", "--default-country", "fr"])
        .run();
    let said = String::from_utf8_lossy(&dry.stdout);
    assert!(said.contains("6 rows — 1 invalid"), "{said}");
    assert!(
        said.contains("country: 1 row had none; FR (default_country) was used"),
        "{said}"
    );

    let out = ws
        .screen(&sim, &file)
        .args(["--default-country", "FR"])
        .run();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("country: 1 row had none; FR (default_country) was used"),
        "{said}"
    );
    let report = ws.report();
    let rows = rows_by_ref(&report);
    assert_eq!(rows["C-2"]["status"], "rated", "{}", rows["C-2"]);
    assert_eq!(rows["C-2"]["country"], "FR");
    assert_eq!(rows["C-2"]["country_defaulted"], true);
    assert_eq!(rows["C-2"]["company_id"], rows["C-1"]["company_id"]);
    for r in ["C-1", "C-3", "C-4", "C-5", "C-6"] {
        assert_eq!(rows[r]["country_defaulted"], false, "{r}");
    }
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let line = csv.lines().find(|l| l.contains(",C-2,")).unwrap();
    // country_defaulted, extra_unreliable, alert_listed, found_by, color_since.
    let listed = rows["C-2"]["alert_listed"].as_bool().unwrap();
    let found_by = rows["C-2"]["found_by"].as_str().unwrap();
    let since = rows["C-2"]["color_since"].as_str().unwrap();
    assert!(
        line.ends_with(&format!(",true,false,{listed},{found_by},{since}")),
        "{line}"
    );

    // A code the service does not know stops the run before any row: a setting is wrong.
    ws.screen(&sim, &file)
        .args(["--default-country", "XX"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "default_country (flag --default-country)",
        ));
}

/// The summary's `NOT SCREENED:` lines, under --quiet.
fn not_screened(ws: &Workspace, sim: &Background, file: &Path) -> Vec<String> {
    let out = ws.screen(sim, file).arg("--quiet").run();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("NOT SCREENED:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn customers_nobody_monitors_are_named_under_quiet_when_they_fall_out_and_weekly_after() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let file = ws.write("book.csv", &std::fs::read(sample()).unwrap());
    let first = not_screened(&ws, &sim, &file);
    let invalid = ws.report()["run"]["by_status"]["invalid"].as_u64().unwrap();
    assert_eq!(first.len(), 3, "{first:#?}");
    assert!(
        first[0].starts_with(&format!(
            "NOT SCREENED: {invalid} invalid rows (C-1019, C-1020, C-1021, C-1022, C-1023"
        )) && first[0]
            .ends_with("the row itself is wrong (see `error` in the reports): fix the export, or leave it alone with `ratewatch review ignore`"),
        "{first:#?}"
    );
    assert!(
        first[1]
            .starts_with("NOT SCREENED: 2 unresolved rows (C-1009, C-1018): no company matches"),
        "{first:#?}"
    );
    assert!(
        first[2].starts_with("NOT SCREENED: 1 ambiguous row (C-1006): several companies match"),
        "{first:#?}"
    );

    // The next night: the same rows in the same state are not named again…
    crate::common::a_night_passes(&ws.db());
    assert_eq!(not_screened(&ws, &sim, &file), Vec::<String>::new());
    // …but a row newly out is, alone.
    let mut grown = std::fs::read_to_string(&file).unwrap();
    grown.push_str("C-2001,,SIREN,552100554,,,,,\n");
    ws.write("book.csv", grown.as_bytes());
    crate::common::a_night_passes(&ws.db());
    let next = not_screened(&ws, &sim, &file);
    assert_eq!(next.len(), 1, "{next:#?}");
    assert!(
        next[0].starts_with("NOT SCREENED: 1 invalid row (C-2001)"),
        "{next:#?}"
    );

    // A week after they were named, the rows still out are named again.
    for _ in 0..7 {
        crate::common::a_night_passes(&ws.db());
    }
    let week = not_screened(&ws, &sim, &file);
    assert_eq!(week.len(), 3, "{week:#?}");
    assert!(
        week[0].starts_with(&format!("NOT SCREENED: {} invalid rows", invalid + 1)),
        "{week:#?}"
    );
}

/// Countries written as a French, German, Spanish, Italian or Dutch export writes them,
/// the overseas departments included, are screened as their codes; a name of several
/// countries is refused with the choices, a typo with the nearest code.
#[test]
fn country_names_in_six_languages_are_read_as_their_codes() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let in_country = |code: &str| {
        (0..10)
            .map(|country| data.company(CompanyRef { country, n: 7 }))
            .find(|c| c.address.country_code == code)
            .unwrap_or_else(|| panic!("a company in {code}"))
    };
    let (fr, de, nl, it) = (
        in_country("FR"),
        in_country("DE"),
        in_country("NL"),
        in_country("IT"),
    );
    let ws = Workspace::new();
    let mut csv = String::from("ref,country,service,id,name\n");
    for (reference, country, company) in [
        ("FR-NAME", "France", &fr),
        ("FR-LOWER", "frankrijk", &fr),
        ("DE-NAME", "Allemagne", &de),
        ("NL-NAME", "Paesi Bassi", &nl),
        ("NL-ES", "Países Bajos", &nl),
        ("IT-NAME", "Italië", &it),
    ] {
        let id = &company.external_ids[0];
        csv.push_str(&format!(
            "{reference},{country},{},{},\n",
            id.external_service, id.external_id
        ));
    }
    for (reference, country) in [
        ("CH", "Suisse"),
        ("CH-DE", "Schweiz"),
        ("MA", "Maroc"),
        ("US", "États-Unis"),
        ("GF", "Guyane"),
        ("RE", "La Réunion"),
        ("NC", "Nouvelle-Calédonie"),
        ("KOREA", "Corée"),
        ("TYPO", "Frnace"),
    ] {
        csv.push_str(&format!("{reference},{country},,,Acme SA\n"));
    }
    let file = ws.write("countries.csv", csv.as_bytes());
    let out = ws.screen(&sim, &file).run();
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{out:?}");
    let report = ws.report();
    let rows = rows_by_ref(&report);
    let error = |r: &str| rows[r]["error"].as_str().unwrap_or("").to_string();
    for r in [
        "FR-NAME", "FR-LOWER", "DE-NAME", "NL-NAME", "NL-ES", "IT-NAME",
    ] {
        assert_eq!(rows[r]["status"], "rated", "{r}: {}", error(r));
    }
    // The name read, the service decides what it rates: searched there (the overseas
    // departments the service lists), or refused naming the code.
    for (r, code) in [
        ("CH", "CH"),
        ("CH-DE", "CH"),
        ("MA", "MA"),
        ("US", "US"),
        ("GF", "GF"),
        ("RE", "RE"),
        ("NC", "NC"),
    ] {
        let e = error(r);
        if rows[r]["status"] == "invalid" {
            assert!(
                e.contains(&format!("{code:?}")) || e.contains(&format!(" {code}")),
                "{r}: {e}"
            );
        } else {
            assert_eq!(rows[r]["status"], "unresolved", "{r}: searched in {code}");
        }
    }
    for r in ["GF", "RE"] {
        assert_eq!(rows[r]["status"], "unresolved", "{r}: {}", error(r));
    }
    assert_eq!(rows["US"]["status"], "invalid");
    assert!(error("US").contains("no ratings for US"), "{}", error("US"));
    let korea = error("KOREA");
    assert!(
        korea.starts_with("country: \"CORÉE\" names several countries: KP (")
            && korea.contains("KR (")
            && korea.ends_with("write the code"),
        "{korea}"
    );
    assert!(
        error("TYPO").ends_with("did you mean FR?"),
        "{}",
        error("TYPO")
    );
}

/// A SIREN with a typo next to a good SIRET, a SIREN the service does not know next to a
/// name and city, and a row whose every identifier fails: the first two are rated by
/// their later search, said in full the first night and reminded the next, and the third
/// is unresolved with every reason.
#[test]
fn a_row_falls_back_on_its_next_identifier_then_its_name() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let a = data.company(CompanyRef {
        country: 0,
        n: 1500,
    });
    let b = data.company(CompanyRef {
        country: 0,
        n: 1501,
    });
    let (siren_a, siret_a) = (
        &a.external_ids[0].external_id,
        &a.external_ids[1].external_id,
    );
    assert_eq!(a.external_ids[0].external_service, "SIREN");
    assert_eq!(a.external_ids[1].external_service, "SIRET");
    // The same digits, the last one changed: it fails Luhn's check.
    let typo = |id: &str| {
        let (body, last) = id.split_at(id.len() - 1);
        format!("{body}{}", (last.parse::<u8>().unwrap() + 1) % 10)
    };
    let bad_siren = typo(siren_a);
    assert!(ratewatch::identifiers::identifier_warning("SIREN", &bad_siren).is_some());
    // Valid by the rules, unknown to the service.
    let (unknown_siren, unknown_siret) = ("552100554", "55210055400013");
    let ws = Workspace::new();
    let file = ws.write(
        "fallback.csv",
        format!(
            "ref,country,SIREN,SIRET,name,city\n\
             TYPO,FR,{bad_siren},{siret_a},,\n\
             NAME,FR,{unknown_siren},,\"{}\",{}\n\
             NONE,FR,{bad_siren},{unknown_siret},Zzyzx Nowhere Holding,{}\n",
            b.name, b.address.city, b.address.city
        )
        .as_bytes(),
    );
    let dry = ws.screen(&sim, &file).arg("--dry-run").run();
    let dry = String::from_utf8_lossy(&dry.stdout).into_owned();
    let (_, most) = previewed(&dry);

    let out = ws.screen(&sim, &file).run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let stats = sim.server.stats();
    // TYPO: the SIRET only; NAME: the SIREN, then the name; NONE: the SIRET, the name,
    // then the name without its city.
    assert_eq!(stats.calls(Endpoint::CompanyById), 3, "{text}");
    assert_eq!(stats.calls(Endpoint::CompaniesByName), 3, "{text}");
    assert_eq!(stats.calls(Endpoint::Rating), 2, "{text}");
    // The dry run counted every search the fallback may make, and a rating for each, and
    // the loosened name searches: NAME's two (without its city, then its legal form) were
    // not needed.
    assert_eq!(most, stats.total() + 3 + 2, "{dry}");

    let report = ws.report();
    let rows = rows_by_ref(&report);
    assert_eq!(rows["TYPO"]["status"], "rated", "{text}");
    assert_eq!(rows["TYPO"]["company_id"], a.id.to_string());
    assert_eq!(rows["TYPO"]["found_by"], format!("SIRET {siret_a}"));
    assert_eq!(rows["NAME"]["status"], "rated", "{text}");
    assert_eq!(rows["NAME"]["company_id"], b.id.to_string());
    assert_eq!(rows["NAME"]["found_by"], "name");
    assert_eq!(rows["NONE"]["status"], "unresolved", "{text}");
    assert_eq!(rows["NONE"]["found_by"], serde_json::Value::Null);
    let error = rows["NONE"]["error"].as_str().unwrap();
    assert!(error.starts_with("no company matches: "), "{error}");
    for part in [
        format!("SIREN {bad_siren}: not searched"),
        format!("SIRET {unknown_siret}: no company"),
        "name: no company".into(),
    ] {
        assert!(error.contains(&part), "{part} in {error}");
    }
    // report.csv says it too, in its last column.
    let csv = std::fs::read_to_string(ws.path("out/report.csv")).unwrap();
    let typo_line = csv.lines().find(|l| l.contains("TYPO")).unwrap();
    assert!(
        typo_line.ends_with(&format!("SIRET {siret_a},{siret_a}"))
            || typo_line.contains(&format!(",SIRET {siret_a}")),
        "{typo_line}"
    );
    // The night says which rows to correct, naming the identifier that failed.
    let note = text
        .lines()
        .find(|l| l.starts_with("IDENTIFIERS: 2 rows"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        note.contains(&format!(
            "TYPO (line 2): found by SIRET {siret_a}, after SIREN {bad_siren}"
        )),
        "{note}"
    );
    assert!(
        note.contains(&format!(
            "NAME (line 3): found by name, after SIREN {unknown_siren}: no company"
        )),
        "{note}"
    );

    // Nightly: every search is cached, the rows are found as before, and reminded.
    let dry = ws.screen(&sim, &file).arg("--dry-run").run();
    let dry = String::from_utf8_lossy(&dry.stdout).into_owned();
    let (exact, most) = previewed(&dry);
    assert_eq!(exact, most, "{dry}");
    let before = stats.total();
    let out = ws.screen(&sim, &file).run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let stats = sim.server.stats();
    assert_eq!(
        stats.calls(Endpoint::CompanyById) + stats.calls(Endpoint::CompaniesByName),
        6,
        "nothing is searched again: {text}"
    );
    assert_eq!(stats.total() - before, exact, "{dry}");
    assert!(
        text.contains("IDENTIFIERS: still 2 rows found only by a later identifier or the name, their first one failing: correct it in the export (TYPO (line 2), NAME (line 3))"),
        "{text}"
    );
    let rows = rows_by_ref(&ws.report());
    assert_eq!(rows["TYPO"]["found_by"], format!("SIRET {siret_a}"));
    assert_eq!(rows["NAME"]["found_by"], "name");
    assert_eq!(rows["NONE"]["status"], "unresolved");
}

/// While a row is still found only by a later identifier, the night's note on it wears as
/// standing alerts do (`[alerts] repeat`): in full the night it is news and once the
/// period has passed, a reminder naming it on the nights between; a row newly found so
/// brings the note back in full.
#[test]
fn the_later_identifier_note_repeats_on_the_standing_alerts_schedule() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let company = |n| data.company(CompanyRef { country: 0, n });
    let typo_row = |reference: &str, n| {
        let c = company(n);
        let (siren, siret) = (
            &c.external_ids[0].external_id,
            &c.external_ids[1].external_id,
        );
        let (body, last) = siren.split_at(siren.len() - 1);
        let bad = format!("{body}{}", (last.parse::<u8>().unwrap() + 1) % 10);
        format!("{reference},FR,{bad},{siret}\n")
    };
    let (first, second) = (typo_row("TYPO", 1600), typo_row("LATER", 1601));
    // What each night says: the full note, the reminder, or nothing.
    let said = |text: &str| -> &'static str {
        match text.lines().find(|l| l.starts_with("IDENTIFIERS:")) {
            Some(l) if l.starts_with("IDENTIFIERS: still ") => "reminder",
            Some(l) if l.contains(": found by SIRET ") => "full",
            Some(l) => panic!("{l}"),
            None => "nothing",
        }
    };
    for (repeat, nights) in [
        (
            "weekly",
            &[
                "full", "reminder", "reminder", "reminder", "reminder", "reminder", "reminder",
                "full", "reminder",
            ][..],
        ),
        ("daily", &["full", "full", "full"][..]),
        // The default: reminded every night; LATER joins on night 3, news again.
        ("never", &["full", "reminder", "full", "reminder"][..]),
    ] {
        let ws = Workspace::new();
        ws.write(
            "ratewatch.toml",
            format!("[alerts]\nrepeat = \"{repeat}\"\n").as_bytes(),
        );
        let mut got = Vec::new();
        for night in 1..=nights.len() {
            let mut csv = format!("ref,country,SIREN,SIRET\n{first}");
            if repeat == "never" && night >= 3 {
                csv.push_str(&second);
            }
            let file = ws.write("p.csv", csv.as_bytes());
            crate::common::a_night_passes(&ws.db());
            let out = ws.screen(&sim, &file).run();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{repeat} night {night}: {out:?}"
            );
            let rows = rows_by_ref(&ws.report());
            assert_eq!(rows["TYPO"]["status"], "rated", "{text}");
            if said(&text) == "reminder" {
                assert!(
                    text.contains("correct it in the export (TYPO (line 2)"),
                    "{text}"
                );
            }
            got.push(said(&text));
        }
        assert_eq!(got, nights, "repeat = {repeat}");
    }
}

#[test]
fn a_decision_on_a_search_passed_over_for_its_rules_still_stands() {
    let sim = sample_sim();
    let data = sim.server.dataset().clone();
    let a = data.company(CompanyRef {
        country: 0,
        n: 1500,
    });
    let siren = &a.external_ids[0].external_id;
    let (body, last) = siren.split_at(siren.len() - 1);
    let bad_siren = format!("{body}{}", (last.parse::<u8>().unwrap() + 1) % 10);
    let ws = Workspace::new();
    let file = ws.write(
        "fallback.csv",
        format!("ref,country,SIREN,SIRET,name\nNONE,FR,{bad_siren},55210055400013,Zzyzx Nowhere Holding\n")
            .as_bytes(),
    );
    ws.screen(&sim, &file).run();
    assert_eq!(rows_by_ref(&ws.report())["NONE"]["status"], "unresolved");
    // The decision is keyed to the row's first search, the one its rules pass over.
    let decided = ws.ratewatch(["review", "ignore", "NONE"]).db(ws.db()).run();
    assert!(decided.status.success(), "{decided:?}");
    let before = sim.server.stats().total();
    ws.screen(&sim, &file).run();
    let row = &rows_by_ref(&ws.report())["NONE"];
    assert_eq!(row["status"], "ignored", "{row}");
    assert_eq!(
        sim.server.stats().total() - before,
        2,
        "the lookup lists only: no search for an ignored row"
    );
}

/// The sample portfolio with its line ends replaced: `\n` by `ending`, or, for `None`,
/// each line ending in turn with LF, CRLF and CR.
fn with_line_ends(ending: Option<&str>) -> Vec<u8> {
    let text = std::fs::read_to_string(sample()).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push_str(ending.unwrap_or(["\n", "\r\n", "\r"][i % 3]));
    }
    out.into_bytes()
}

/// Excel's "CSV (Macintosh)" ends lines with a CR alone: every record is still a row of
/// its own, on its own line, as in the LF, CRLF and mixed files; the dry run counts them
/// all.
#[test]
fn every_record_is_a_row_whatever_the_line_ends() {
    let sim = sample_sim();
    let rows_of = |report: &serde_json::Value| -> Vec<(u64, String, String, String)> {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["line"].as_u64().unwrap(),
                    r["ref"].as_str().unwrap().to_string(),
                    r["status"].as_str().unwrap().to_string(),
                    r["company_id"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let mut seen = Vec::new();
    for (name, ending) in [
        ("lf", Some("\n")),
        ("crlf", Some("\r\n")),
        ("cr", Some("\r")),
        ("mixed", None),
    ] {
        let ws = Workspace::new();
        let file = ws.write(&format!("{name}.csv"), &with_line_ends(ending));
        let out = ws.screen(&sim, &file).arg("--dry-run").run();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(": 25 rows —"), "{name}: {text}");
        ws.screen(&sim, &file).assert().code(3);
        let report = ws.report();
        assert_eq!(report["run"]["rows"], 25, "{name}");
        let rows = rows_of(&report);
        let lines: Vec<u64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            lines,
            (2..=26).collect::<Vec<u64>>(),
            "{name}: one line each"
        );
        seen.push((name, rows));
    }
    for (name, rows) in &seen[1..] {
        assert_eq!(rows, &seen[0].1, "{name} reads as the LF file does");
    }
}

/// A quote left open swallows the records after it into one field: the file is refused
/// before anything is written, naming the line where the quote opens.
#[test]
fn a_quote_left_open_is_refused_not_read_as_one_row() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let file = ws.write(
        "open.csv",
        b"ref,country,name\nA,FR,\"Acme SA\nB,FR,Beta SA\nC,FR,Gamma SA\nD,FR,Delta SA\n",
    );
    ws.screen(&sim, &file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("open.csv:2: a quoted field"))
        .stderr(predicate::str::contains("a quote is probably not closed"));
    assert!(!ws.db().exists(), "nothing written");
    assert_eq!(sim.server.stats().total(), 0, "no call made");
}
