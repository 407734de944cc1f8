//! `ratewatch completions` and `ratewatch man`: generated from the clap definitions, they
//! know every command and flag.

use assert_cmd::Command;
use clap::CommandFactory;
use predicates::prelude::*;
use ratewatch::cli::Cli;

fn ratewatch() -> Command {
    Command::cargo_bin("ratewatch").unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = ratewatch().args(args).assert().code(0);
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
    ratewatch()
        .args(["completions", "tcsh"])
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

    ratewatch()
        .args(["man", "sreen"])
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
