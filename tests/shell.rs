//! `ratewatch completions` and `ratewatch man`: generated from the clap definitions, they
//! know every command and flag; and `samples/nightly.sh`, run as cron runs it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use predicates::prelude::*;
use ratewatch::settings::cli::Cli;
use ratewatch::sim::CompanyRef;

use crate::common::{BIN, Background, KEY, Workspace, ratewatch, sample_sim};

fn stdout_of(args: &[&str]) -> String {
    let out = ratewatch(args).assert().code(0);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The commands a user can type, `help` aside.
fn commands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

#[test]
fn completions_know_every_command_and_flag() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        for command in commands() {
            assert!(script.contains(&command), "{shell}: {command}");
        }
        for flag in ["concurrency", "log-format", "api-key-file"] {
            assert!(script.contains(flag), "{shell}: {flag}");
        }
    }
    assert!(stdout_of(&["completions", "fish"]).contains("complete -c ratewatch"));
    ratewatch(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: bash, zsh, fish"));
}

#[test]
fn the_bash_completion_script_is_valid_bash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ratewatch.bash");
    std::fs::write(&path, stdout_of(&["completions", "bash"])).unwrap();
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .expect("bash runs");
    assert!(status.success());
}

#[test]
fn man_prints_a_page_per_command() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH ratewatch 1"), "{page}");
    for command in commands() {
        let see_also = format!("ratewatch\\-{}(1)", command.replace('-', "\\-"));
        assert!(page.contains(&see_also), "{see_also}");
    }
    let screen = stdout_of(&["man", "screen"]);
    assert!(
        screen.contains(&format!(
            ".TH ratewatch-screen 1  \"ratewatch {}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{screen}"
    );
    assert!(screen.contains("\\-\\-concurrency"), "{screen}");
    assert!(screen.contains("Exit codes"), "{screen}");

    ratewatch(["man", "sreen"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no command `sreen`; the commands are screen,",
        ));
}

#[test]
fn man_out_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let listed = stdout_of(&["man", "--out", out.to_str().unwrap()]);
    let mut expected = vec![out.join("ratewatch.1")];
    expected.extend(
        commands()
            .iter()
            .map(|c| out.join(format!("ratewatch-{c}.1"))),
    );
    let listed: Vec<&str> = listed.lines().collect();
    assert_eq!(
        listed,
        expected
            .iter()
            .map(|p| p.to_str().unwrap())
            .collect::<Vec<_>>()
    );
    for page in &expected {
        let text = std::fs::read_to_string(page).unwrap();
        assert!(text.contains(".TH "), "{}", page.display());
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), expected.len());
}

/// `samples/nightly.sh`, run as cron runs it: a bare environment (`PATH=/usr/bin:/bin`, a
/// home, nothing else but what the test names), from another folder.
fn nightly(home: &Path, cwd: &Path, vars: &[(&str, &Path)]) -> std::process::Output {
    nightly_with(home, cwd, vars, &[])
}

/// The same, with arguments after the portfolio's.
fn nightly_with(
    home: &Path,
    cwd: &Path,
    vars: &[(&str, &Path)],
    args: &[&str],
) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/nightly.sh");
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .current_dir(cwd)
        .arg(script)
        .arg("book.csv")
        .args(args);
    for (name, value) in vars {
        cmd.env(name, value);
    }
    cmd.output().expect("sh runs")
}

/// A state folder whose ratewatch.toml points at the simulator, with the key in a file of
/// its own, and a one-row portfolio in `ws`.
fn state_for(ws: &Workspace, sim: &Background, extra: &str) -> PathBuf {
    let company = CompanyRef { country: 0, n: 42 };
    let siren = sim.server.dataset().external_ids(company)[0]
        .external_id
        .clone();
    ws.write(
        "book.csv",
        format!("ref,country,service,id\nA,fr,SIREN,{siren}\n").as_bytes(),
    );
    let state = ws.path("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("ratewatch.key"), KEY).unwrap();
    std::fs::write(
        state.join("ratewatch.toml"),
        format!(
            "base_url = \"{}\"\napi_key_file = \"ratewatch.key\"\ndb = \"rw.db\"\nout = \"reports\"\n{extra}",
            sim.server.base_url()
        ),
    )
    .unwrap();
    state
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_nightly_script_screens_with_cron_s_environment_and_the_toml_s_settings() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let state = state_for(&ws, &sim, "");
    let home = ws.path("home");
    std::fs::create_dir(&home).unwrap();
    let bin = Path::new(BIN);
    let out = nightly(
        &home,
        ws.dir.path(),
        &[("RATEWATCH_HOME", &state), ("RATEWATCH_BIN", bin)],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        crate::common::after_heading(&stdout).starts_with("ratewatch run 1 of book"),
        "{stdout}"
    );
    assert!(state.join("rw.db").is_file(), "db from the toml");
    // One folder named after the day (UTC), under the toml's `out`.
    let days: Vec<PathBuf> = std::fs::read_dir(state.join("reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(days.len(), 1, "{days:?}");
    let day = days[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        day.len() == 10 && day.chars().filter(|c| *c == '-').count() == 2,
        "{day}"
    );
    let report = std::fs::read_to_string(days[0].join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(
        report["rows"][0]["status"], "rated",
        "the key file was read"
    );
    // A second argument names the portfolio.
    let out = nightly_with(
        &home,
        ws.dir.path(),
        &[("RATEWATCH_HOME", &state), ("RATEWATCH_BIN", bin)],
        &["customers"],
    );
    assert!(
        crate::common::after_heading(&text(&out.stdout))
            .starts_with("ratewatch run 2 of customers"),
        "{out:?}"
    );

    // Installed with `cargo install`: found in ~/.cargo/bin with no help. A toml without
    // base_url fails loudly, with ratewatch's own words.
    std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    std::os::unix::fs::symlink(bin, home.join(".cargo/bin/ratewatch")).unwrap();
    std::fs::write(state.join("ratewatch.toml"), "db = \"rw.db\"\n").unwrap();
    let out = nightly(&home, ws.dir.path(), &[("RATEWATCH_HOME", &state)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no service address"), "{stderr}");
    assert!(stderr.contains("base_url"), "{stderr}");
}

#[test]
fn the_nightly_script_says_how_to_set_path_when_it_cannot_find_ratewatch() {
    if ["/usr/bin", "/bin", "/usr/local/bin", "/opt/ratewatch/bin"]
        .iter()
        .any(|dir| Path::new(dir).join("ratewatch").exists())
    {
        eprintln!("skipped: ratewatch is installed on this machine");
        return;
    }
    let sim = sample_sim();
    let ws = Workspace::new();
    let state = state_for(&ws, &sim, "");
    let out = nightly(ws.dir.path(), ws.dir.path(), &[("RATEWATCH_HOME", &state)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains("ratewatch not found"), "{stderr}");
    assert!(
        stderr.contains("PATH=/usr/local/bin:/usr/bin:/bin"),
        "{stderr}"
    );
    assert!(stderr.contains("RATEWATCH_BIN="), "{stderr}");
    assert!(!state.join("rw.db").exists());

    // A RATEWATCH_BIN that is not there is said as such.
    let missing = ws.path("nowhere/ratewatch");
    let out = nightly(
        ws.dir.path(),
        ws.dir.path(),
        &[("RATEWATCH_HOME", &state), ("RATEWATCH_BIN", &missing)],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("is not an executable file"),
        "{out:?}"
    );
}

#[test]
fn the_nightly_script_is_posix_sh() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/nightly.sh");
    let status = std::process::Command::new("/bin/sh")
        .arg("-n")
        .arg(&script)
        .status()
        .expect("sh runs");
    assert!(status.success());
}

#[test]
fn the_nightly_script_removes_the_day_folders_older_than_keep_reports_days_and_nothing_else() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let state = state_for(&ws, &sim, "keep_reports_days = 30\n");
    // Its key as it should be, so that stderr stays empty.
    let key = std::fs::Permissions::from_mode(0o600);
    std::fs::set_permissions(state.join("ratewatch.key"), key).unwrap();
    let reports = state.join("reports");
    let bin = Path::new(BIN);
    let run = |extra: &[(&str, &Path)]| {
        let mut vars = vec![("RATEWATCH_HOME", state.as_path()), ("RATEWATCH_BIN", bin)];
        vars.extend_from_slice(extra);
        let out = nightly(ws.dir.path(), ws.dir.path(), &vars);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "a pruned night is not a failed one: {:?}\n{stdout}\n{stderr}",
            out.status
        );
        assert!(stderr.is_empty(), "{stderr}");
        stdout
    };
    // The script reckons from its own today: never a midnight (UTC) away from the test's.
    let now = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC);
    let left = 86_400 - (i64::from(now.hour()) * 3600 + i64::from(now.minute()) * 60);
    if left <= 120 {
        std::thread::sleep(std::time::Duration::from_secs(left as u64 + 1));
    }
    let today = jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let day = |ago: i64| (today - jiff::Span::new().days(ago)).to_string();
    let folder = |name: &str| {
        std::fs::create_dir_all(reports.join(name)).unwrap();
        std::fs::write(reports.join(name).join("report.csv"), "line\n").unwrap();
    };
    let old = [day(400), day(45), day(31)];
    // Kept: 30 days old or younger, and whatever is not a day folder, however old.
    let young = [day(30), day(1), day(-1)];
    let decoys = [
        "2020-01-01-old",
        "backup",
        "20200101",
        "2020-13-01",
        "2019-02-29",
    ];
    for name in old.iter().chain(&young).map(String::as_str).chain(decoys) {
        folder(name);
    }
    std::fs::write(reports.join("2020-01-02"), "a file").unwrap();
    let elsewhere = ws.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, reports.join("2020-01-03")).unwrap();
    let names = || {
        let mut names: Vec<String> = std::fs::read_dir(&reports)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let mut expected: Vec<String> = young
        .iter()
        .cloned()
        .chain([day(0), "2020-01-02".into(), "2020-01-03".into()])
        .chain(decoys.map(String::from))
        .collect();
    expected.sort();

    let stdout = run(&[]);
    let line = format!(
        "ratewatch: removed 3 report folders older than 30 days ({} … {})",
        old[0], old[2]
    );
    assert_eq!(stdout.lines().last(), Some(line.as_str()), "{stdout}");
    assert_eq!(names(), expected);
    assert!(
        reports.join(day(0)).join("report.json").is_file(),
        "tonight's"
    );
    assert!(elsewhere.is_dir());

    // Nothing more to remove: nothing said.
    let stdout = run(&[]);
    assert!(!stdout.contains("removed"), "{stdout}");
    // One folder; none with 0 days (kept forever); none said with `quiet = true`.
    folder(&day(31));
    let stdout = run(&[("RATEWATCH_KEEP_REPORTS_DAYS", Path::new("0"))]);
    assert!(!stdout.contains("removed"), "{stdout}");
    assert!(reports.join(day(31)).is_dir());
    let stdout = run(&[("RATEWATCH_KEEP_REPORTS_DAYS", Path::new("20"))]);
    let line = format!(
        "ratewatch: removed 2 report folders older than 20 days ({} … {})",
        day(31),
        day(30)
    );
    assert!(stdout.ends_with(&format!("{line}\n")), "{stdout}");
    folder(&day(40));
    let stdout = run(&[("RATEWATCH_QUIET", Path::new("true"))]);
    assert!(!stdout.contains("removed"), "{stdout}");
    assert!(!reports.join(day(40)).exists());
    folder(&day(50));
    let stdout = run(&[("RATEWATCH_KEEP_REPORTS_DAYS", Path::new("45"))]);
    assert!(
        stdout.ends_with(&format!(
            "ratewatch: removed 1 report folder older than 45 days ({})\n",
            day(50)
        )),
        "{stdout}"
    );
}
