//! Settings as a user gives them: `ratewatch.toml` in the working directory or named by
//! `--config` / `RATEWATCH_CONFIG`, `RATEWATCH_*` variables and flags; what `ratewatch
//! config` shows of them; and the API key, which is never shown.

use std::path::Path;

use predicates::prelude::*;
use ratewatch::sim::CompanyRef;
use serde_json::Value;

use crate::common::after_heading;
use crate::common::{KEY, Ratewatch, Workspace, background, config};

/// `ratewatch config --json FLAGS…` (`config` given by the caller), parsed.
fn config_json(config: &mut Ratewatch, flags: &[&str]) -> Value {
    let out = config.arg("--json").args(flags).assert().code(0);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn config_shows_each_setting_and_where_it_came_from() {
    let ws = Workspace::new();
    ws.write(
        "ratewatch.toml",
        b"# nightly screening\nconcurrency = 16\nretries = 4\ndb = \"state/rw.db\"\nendpoint = \"deprecated\"\n",
    );
    let json = config_json(
        ws.ratewatch(["config"]).env("RATEWATCH_RETRIES", "9"),
        &["--timeout", "5"],
    );
    let setting = |key: &str| {
        let s = &json["settings"][key];
        (s["value"].clone(), s["from"].as_str().unwrap().to_string())
    };
    assert_eq!(json["config_file"]["path"], "ratewatch.toml");
    assert_eq!(json["config_file"]["found_by"], "working directory");
    assert_eq!(
        setting("concurrency"),
        (Value::from(16), "file ratewatch.toml:2".into())
    );
    assert_eq!(
        setting("retries"),
        (Value::from(9), "env RATEWATCH_RETRIES".into())
    );
    assert_eq!(
        setting("timeout"),
        (Value::from(5.0), "flag --timeout".into())
    );
    assert_eq!(
        setting("db"),
        (Value::from("state/rw.db"), "file ratewatch.toml:4".into())
    );
    assert_eq!(
        setting("endpoint"),
        (Value::from("deprecated"), "file ratewatch.toml:5".into())
    );
    assert_eq!(setting("out"), (Value::from("."), "default".into()));
    assert_eq!(setting("max_rps"), (Value::Null, "default".into()));
    assert_eq!(json["settings"]["concurrency"]["source"], "file");
    assert_eq!(json["api_key"], "unset");

    // The same as a table for people.
    ws.ratewatch(["config"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "config file: ratewatch.toml (working directory)",
        ))
        .stdout(predicate::str::is_match(r"\nconcurrency +16 +file ratewatch.toml:2\n").unwrap())
        .stdout(predicate::str::is_match(r"\nretry_delay_ms +500 +default\n").unwrap());
}

#[test]
fn a_file_named_by_flag_or_variable_replaces_the_working_directory_one() {
    let ws = Workspace::new();
    ws.write("ratewatch.toml", b"concurrency = 16\n");
    std::fs::create_dir(ws.path("etc")).unwrap();
    ws.write("etc/other.toml", b"concurrency = 2\nout = \"reports\"\n");
    let json = config_json(
        ws.ratewatch(["config"])
            .env("RATEWATCH_CONFIG", "etc/other.toml"),
        &[],
    );
    assert_eq!(json["settings"]["concurrency"]["value"], 2);
    assert_eq!(json["config_file"]["found_by"], "env RATEWATCH_CONFIG");
    // A relative path in a file is the file's folder's.
    assert_eq!(json["settings"]["out"]["value"], "etc/reports");

    let json = config_json(
        ws.ratewatch(["config"])
            .env("RATEWATCH_CONFIG", "etc/other.toml"),
        &["--config", "ratewatch.toml"],
    );
    assert_eq!(json["settings"]["concurrency"]["value"], 16);
    assert_eq!(json["config_file"]["found_by"], "flag --config");

    ws.ratewatch(["--config", "missing.toml", "config"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read the config file missing.toml (given by flag --config)",
        ));
}

#[test]
fn an_unknown_key_or_a_bad_value_stops_with_file_line_and_key() {
    let ws = Workspace::new();
    ws.write("ratewatch.toml", b"db = \"x.db\"\nconcurency = 4\n");
    for command in [&["config"][..], &["lookups", "countries", "--demo"][..]] {
        ws.ratewatch(command)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "ratewatch.toml:2: unknown key `concurency` (did you mean `concurrency`?)",
            ));
    }
    // Commands that use no settings do not read the file.
    ws.ratewatch(["demo-portfolio", "--rows", "1"])
        .assert()
        .code(0);

    ws.write("ratewatch.toml", b"\n\ntimeout = \"soon\"\n");
    ws.ratewatch(["config"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "ratewatch.toml:3: timeout: expected a positive number of seconds, got \"soon\"",
        ));
    ws.ratewatch(["config", "--timeout", "2"]).assert().code(0);
}

#[test]
fn a_variable_that_does_not_read_is_named_and_a_blank_one_is_unset() {
    let ws = Workspace::new();
    ws.ratewatch(["config"])
        .env("RATEWATCH_CONCURRENCY", "0")
        .assert()
        .code(2)
        .stdout("")
        .stderr("ratewatch: error: RATEWATCH_CONCURRENCY: expected a whole number from 1 to 1024, got \"0\"\n");
    let mut cmd = ws.ratewatch(["config"]);
    cmd.env("RATEWATCH_CONCURRENCY", " ")
        .env("RATEWATCH_QUIET", "1");
    let json = config_json(&mut cmd, &[]);
    assert_eq!(json["settings"]["concurrency"]["from"], "default");
    assert_eq!(json["settings"]["quiet"]["from"], "env RATEWATCH_QUIET");
}

#[test]
fn the_api_key_is_never_printed() {
    const SECRET: &str = "k3y-that-must-never-show";
    let ws = Workspace::new();
    let key_file = ws.write("key", format!("{SECRET}\n").as_bytes());

    for json in [false, true] {
        let mut cmd = ws.ratewatch(["config"]);
        cmd.env("RATEWATCH_API_KEY", SECRET);
        if json {
            cmd.arg("--json");
        }
        cmd.assert()
            .code(0)
            .stdout(predicate::str::contains("set (RATEWATCH_API_KEY)"))
            .stdout(predicate::str::contains(SECRET).not());
    }
    ws.ratewatch(["config", "--api-key-file"])
        .env("RATEWATCH_API_KEY", SECRET)
        .arg(&key_file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "set (file {})",
            key_file.display()
        )))
        .stdout(predicate::str::contains(SECRET).not());
    ws.ratewatch(["config"])
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(r"\napi key +unset\n").unwrap());

    // A key written into the config file is refused, and not echoed.
    ws.write(
        "ratewatch.toml",
        format!("concurrency = 4\napi_key = \"{SECRET}\"\n").as_bytes(),
    );
    ws.ratewatch(["config"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("ratewatch.toml:2: `api_key`"))
        .stderr(predicate::str::contains("api_key_file"))
        .stderr(predicate::str::contains("RATEWATCH_API_KEY"))
        .stderr(predicate::str::contains(SECRET).not());
}

#[test]
fn screen_takes_its_settings_from_the_file_and_the_environment() {
    let sim = background(config());
    let ws = Workspace::new();
    let company = CompanyRef { country: 0, n: 42 };
    let siren = sim.server.dataset().external_ids(company)[0]
        .external_id
        .clone();
    let portfolio = ws.write(
        "book.csv",
        format!("ref,country,service,id\nA,fr,SIREN,{siren}\n").as_bytes(),
    );
    ws.write(
        "ratewatch.toml",
        format!(
            "base_url = \"{}\"\ndb = \"state/book.db\"\nout = \"reports\"\napi_key_file = \"key\"\n",
            sim.server.base_url()
        )
        .as_bytes(),
    );
    ws.write("key", KEY.as_bytes());
    std::fs::create_dir(ws.path("state")).unwrap();
    let rated = |report: &Path| {
        let text = std::fs::read_to_string(report).unwrap();
        let json: Value = serde_json::from_str(&text).unwrap();
        json["rows"][0]["status"] == "rated"
    };
    ws.ratewatch(["screen"])
        .arg(&portfolio)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert!(ws.path("state/book.db").is_file());
    // Rated: the key was read from the file `api_key_file` names.
    assert!(rated(&ws.path("reports/report.json")));

    // A variable wins over the file, a flag over both.
    ws.ratewatch(["screen"])
        .env("RATEWATCH_OUT", "nightly")
        .arg(&portfolio)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert!(rated(&ws.path("nightly/report.json")));
    ws.ratewatch(["screen", "--out", "adhoc"])
        .env("RATEWATCH_OUT", "nightly")
        .arg(&portfolio)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert!(rated(&ws.path("adhoc/report.json")));
}

#[test]
fn the_reader_s_language_and_zone_come_from_flag_variable_file_or_machine() {
    let ws = Workspace::new();
    let reader = |json: &Value| {
        let (locale, zone) = (&json["settings"]["locale"], &json["settings"]["time_zone"]);
        [
            &locale["value"],
            &locale["from"],
            &zone["value"],
            &zone["from"],
        ]
        .map(|v| v.as_str().unwrap().to_string())
    };
    // The machine's, as POSIX reads it: LC_ALL, then LC_MESSAGES, then LANG; TZ.
    let json = config_json(
        ws.ratewatch(["config"])
            .env("LANG", "fr_FR.UTF-8")
            .env("TZ", "Europe/Paris"),
        &[],
    );
    assert_eq!(reader(&json), ["fr", "env LANG", "Europe/Paris", "env TZ"]);
    let json = config_json(
        ws.ratewatch(["config"])
            .env("LANG", "fr_FR.UTF-8")
            .env("LC_MESSAGES", "de_DE.UTF-8")
            .env("TZ", ":Europe/Berlin"),
        &[],
    );
    assert_eq!(
        reader(&json),
        ["de", "env LC_MESSAGES", "Europe/Berlin", "env TZ"]
    );
    // A language ratewatch does not speak is English.
    let json = config_json(ws.ratewatch(["config"]).env("LANG", "es_ES.UTF-8"), &[]);
    assert_eq!(reader(&json)[..2], ["en", "env LANG"]);
    // The file wins over the machine, the variable over the file, the flag (before or after
    // the command) over the variable.
    ws.write(
        "ratewatch.toml",
        b"locale = \"de\"\ntime_zone = \"Europe/Paris\"\n",
    );
    let json = config_json(ws.ratewatch(["config"]).env("LANG", "fr_FR.UTF-8"), &[]);
    assert_eq!(
        reader(&json),
        [
            "de",
            "file ratewatch.toml:1",
            "Europe/Paris",
            "file ratewatch.toml:2"
        ]
    );
    let json = config_json(
        ws.ratewatch(["config"])
            .env("RATEWATCH_LOCALE", "fr")
            .env("RATEWATCH_TIME_ZONE", "america/new_york"),
        &[],
    );
    assert_eq!(
        reader(&json),
        [
            "fr",
            "env RATEWATCH_LOCALE",
            "America/New_York",
            "env RATEWATCH_TIME_ZONE"
        ]
    );
    let json = config_json(
        ws.ratewatch(["--locale", "en", "config"])
            .env("RATEWATCH_LOCALE", "fr"),
        &["--time-zone", "UTC"],
    );
    assert_eq!(
        reader(&json),
        ["en", "flag --locale", "UTC", "flag --time-zone"]
    );
    // A value that does not read is named where it was given.
    ws.write(
        "ratewatch.toml",
        b"locale = \"de\"\ntime_zone = \"Europe/Lyon\"\n",
    );
    ws.ratewatch(["config"]).assert().code(2).stderr(predicate::str::contains(
        "ratewatch.toml:2: time_zone: expected an IANA time zone, e.g. Europe/Paris, got \"Europe/Lyon\"",
    ));
    ws.ratewatch(["runs", "--locale", "es"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--locale"));
    ws.ratewatch(["config"])
        .env("RATEWATCH_TIME_ZONE", "CEST")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "RATEWATCH_TIME_ZONE: expected an IANA time zone",
        ));
}

#[test]
fn the_sample_config_file_is_valid_and_complete() {
    let ws = Workspace::new();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/ratewatch.toml");
    let copy = ws.path("ratewatch.toml");
    std::fs::copy(&sample, &copy).unwrap();
    ws.write("ratewatch.key", b"from-the-key-file\n");
    let json = config_json(&mut ws.ratewatch(["config"]), &[]);
    let settings = json["settings"].as_object().unwrap();
    for (key, setting) in settings {
        // The call budgets and the deliveries are left commented out: most set-ups have
        // none.
        let optional = [
            "max_calls",
            "max_calls_per_month",
            "notify_webhook",
            "webhook_format",
            "webhook_secret_file",
            "metrics_file",
            "page_url",
            "default_country",
            "csv_dialect",
            "timestamped",
            "quiet",
            // The machine's: English (no LANG) and TZ, as the tests pin them.
            "locale",
        ];
        let expected = if optional.contains(&key.as_str()) {
            "default"
        } else if key == "time_zone" {
            "env"
        } else {
            "file"
        };
        assert_eq!(setting["source"], expected, "{key}");
    }
    assert_eq!(json["api_key"], "set (file ratewatch.key)");
    assert_eq!(settings["concurrency"]["value"], 8);
    // The commented `[alerts]` example is valid as it stands, uncommented.
    let text = std::fs::read_to_string(&sample).unwrap();
    let (before, example) = text.split_once("# [alerts]\n").unwrap();
    let uncommented: String = example
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("# ").unwrap_or(l)))
        .collect();
    ws.write(
        "ratewatch.toml",
        format!("{before}[alerts]\n{uncommented}").as_bytes(),
    );
    config_json(&mut ws.ratewatch(["config"]), &[]);
}

#[test]
fn report_settings_in_the_file_change_the_run_as_their_flags_do() {
    let sim = background(config());
    let company = CompanyRef { country: 0, n: 42 };
    let siren = sim.server.dataset().external_ids(company)[0]
        .external_id
        .clone();
    let setup = |extra: &str| {
        let ws = Workspace::new();
        ws.write(
            "book.csv",
            format!("ref,country,service,id\nA,fr,SIREN,{siren}\n").as_bytes(),
        );
        ws.write("key", KEY.as_bytes());
        ws.write(
            "ratewatch.toml",
            format!(
                "base_url = \"{}\"\napi_key_file = \"key\"\nout = \"reports\"\n{extra}",
                sim.server.base_url()
            )
            .as_bytes(),
        );
        ws
    };
    let screen = |ws: &Workspace, flags: &[&str]| {
        let out = ws
            .ratewatch(["screen", "book.csv"])
            .args(flags)
            .assert()
            .code(predicate::in_iter([0, 1]));
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let files = |ws: &Workspace| {
        let mut names: Vec<String> = std::fs::read_dir(ws.path("reports"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };

    let by_file = setup("quiet = true\ncsv_dialect = \"excel\"\ntimestamped = true\n");
    let by_flags = setup("");
    let plain = setup("");
    let from_file = screen(&by_file, &[]);
    let from_flags = screen(
        &by_flags,
        &["--quiet", "--csv-dialect", "excel", "--timestamped"],
    );
    let unset = screen(&plain, &[]);
    assert_eq!(from_file, from_flags);
    assert_ne!(from_file, unset, "quiet says less: {unset}");
    assert!(
        after_heading(&unset).starts_with("ratewatch run 1"),
        "{unset}"
    );

    // Timestamped names, the same whichever way they were asked for.
    let names = files(&by_file);
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("report-")), "{names:?}");
    assert_eq!(files(&plain), ["report.csv", "report.html", "report.json"]);
    // The Excel dialect: BOM, semicolons, CRLF.
    let csv = names.iter().find(|n| n.ends_with(".csv")).unwrap();
    let csv = std::fs::read(by_file.path("reports").join(csv)).unwrap();
    assert!(csv.starts_with("\u{feff}".as_bytes()));
    let csv = String::from_utf8(csv).unwrap();
    let header = csv.split('\n').next().unwrap();
    assert!(header.contains(';') && header.ends_with('\r'), "{header:?}");
    let csv = std::fs::read_to_string(plain.path("reports/report.csv")).unwrap();
    assert!(!csv.starts_with('\u{feff}') && !csv.contains('\r'));

    // `config` shows them, with their lines.
    let json = config_json(&mut by_file.ratewatch(["config"]), &[]);
    assert_eq!(json["settings"]["quiet"]["value"], true);
    assert_eq!(json["settings"]["quiet"]["from"], "file ratewatch.toml:4");
    assert_eq!(json["settings"]["csv_dialect"]["value"], "excel");
    assert_eq!(
        json["settings"]["timestamped"]["from"],
        "file ratewatch.toml:6"
    );
    by_file
        .ratewatch(["config", "--get", "out"])
        .assert()
        .code(0)
        .stdout("reports\n");
    by_file
        .ratewatch(["config", "--get", "max_calls"])
        .assert()
        .code(0)
        .stdout("\n");
    by_file
        .ratewatch(["config", "--get", "outt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown setting `outt`"));

    // A wrong value names the file, the line and the key.
    for (line, message) in [
        (
            "quiet = \"yes\"",
            "ratewatch.toml:4: quiet: expected true or false, got \"yes\"",
        ),
        (
            "csv_dialect = \"xlsx\"",
            "ratewatch.toml:4: csv_dialect: expected \"standard\" or \"excel\", got \"xlsx\"",
        ),
        (
            "timestamped = 1",
            "ratewatch.toml:4: timestamped: expected true or false, got 1",
        ),
    ] {
        let ws = setup(&format!("{line}\n"));
        // `report` reads the two that name and spell its files, before its database.
        let report = !line.starts_with("quiet");
        let commands = [&["screen", "book.csv"][..], &["report", "--run", "1"][..]];
        for command in &commands[..if report { 2 } else { 1 }] {
            ws.ratewatch(*command)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains(message));
        }
        assert!(!ws.path("reports").exists());
    }
}

#[test]
fn config_shows_every_url_without_its_credentials_query_values_or_webhook_secret() {
    let ws = Workspace::new();
    ws.write(
        "ratewatch.toml",
        b"base_url = \"https://user:s3cr3t@rating.example:8443/root?tenant=t0ken\"\n\
          notify_webhook = \"https://hooks.slack.com/services/T0/B0/wh00k\"\n",
    );
    let secrets = ["user", "s3cr3t", "t0ken", "services", "T0", "B0", "wh00k"];
    let clean = |text: &str| {
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    };
    let base = "https://***@rating.example:8443/root?tenant=***";
    let hook = "https://hooks.slack.com/…";

    let out = ws.ratewatch(["config"]).assert().code(0);
    let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    clean(&table);
    assert!(table.contains(base), "{table}");
    assert!(table.contains(hook), "{table}");
    // A Slack address posted as JSON would be refused: the table says so.
    assert!(
        table.contains("\nhint: notify_webhook is a Slack address and webhook_format is json"),
        "{table}"
    );
    let out = ws
        .ratewatch(["config", "--webhook-format", "slack"])
        .assert()
        .code(0);
    let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(!table.contains("hint:"), "{table}");
    assert!(table.contains("webhook_format"), "{table}");

    let json = config_json(&mut ws.ratewatch(["config"]), &[]);
    clean(&json.to_string());
    assert_eq!(json["settings"]["base_url"]["value"], base);
    assert_eq!(json["settings"]["notify_webhook"]["value"], hook);

    for (key, shown) in [("base_url", base), ("notify_webhook", hook)] {
        ws.ratewatch(["config", "--get", key])
            .assert()
            .code(0)
            .stdout(format!("{shown}\n"));
    }
    // A flag's value as well.
    let json = config_json(
        &mut ws.ratewatch(["config"]),
        &["--base-url", "http://u:p4ss@127.0.0.1:9/?k=v4lue"],
    );
    assert_eq!(
        json["settings"]["base_url"]["value"],
        "http://***@127.0.0.1:9/?k=***"
    );
}

#[cfg(unix)]
#[test]
fn a_key_file_other_users_can_read_is_a_warning_naming_the_file_never_the_key() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new();
    let key = ws.write("ratewatch.key", b"k3y-s3cr3t\n");
    let warned = |mode: u32| {
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = ws
            .ratewatch(["config", "--api-key-file"])
            .arg(&key)
            .assert()
            .code(0);
        let output = out.get_output();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!all.contains("k3y-s3cr3t"), "{all}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    for mode in [0o644, 0o640, 0o604, 0o660] {
        let stderr = warned(mode);
        assert!(stderr.contains("WARN"), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "the API key file {} is open to the group or other users (mode {mode:03o}): chmod 600 {}",
                key.display(),
                key.display()
            )),
            "{stderr}"
        );
    }
    for mode in [0o600, 0o400] {
        assert_eq!(warned(mode), "", "mode {mode:o}");
    }
}

#[test]
fn a_key_sent_over_plain_http_off_this_machine_is_a_warning_once() {
    let ws = Workspace::new();
    let lookups = |base: &str, key: Option<&str>| {
        let mut cmd = ws.ratewatch(["lookups", "countries", "--timeout", "2", "--base-url", base]);
        if let Some(key) = key {
            cmd.env("RATEWATCH_API_KEY", key);
        }
        let out = cmd.run();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let warning = "over plain http, readable on the way: use https";
    // Nothing answers there; the warning comes before any call.
    let stderr = lookups(
        "http://u:p4ss@ratewatch-test.invalid:9/root",
        Some("k3y-s3cr3t"),
    );
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "the API key goes to http://***@ratewatch-test.invalid:9/root over plain http"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("k3y-s3cr3t") && !stderr.contains("p4ss"),
        "{stderr}"
    );
    // No key, nothing to warn of; https or this machine, nothing either.
    for (base, key) in [
        ("http://ratewatch-test.invalid:9/", None),
        ("https://ratewatch-test.invalid:9/", Some("k3y")),
        ("http://127.0.0.1:9/", Some("k3y")),
        ("http://localhost:9/", Some("k3y")),
        ("http://[::1]:9/", Some("k3y")),
    ] {
        let stderr = lookups(base, key);
        assert!(!stderr.contains(warning), "{base}: {stderr}");
    }
}
