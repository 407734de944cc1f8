//! The usage blocks of docs/cli.md are the real `--help` text, and every command's help
//! ends with examples.
//!
//! Each block sits between `<!-- usage:NAME -->` and `<!-- /usage -->` (NAME is
//! `ratewatch` or a command); the blocks stand together, in `--help` order. When help
//! changes, `RATEWATCH_BLESS=1 cargo test usage` rewrites them all from the help.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use ratewatch::settings::cli::Cli;

use crate::common::ratewatch;

/// Help is rendered at this width for docs/cli.md (as with `COLUMNS=100`).
const WIDTH: &str = "100";
const BLESS: &str = "RATEWATCH_BLESS";

fn usage_doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")
}

/// `ratewatch` and each of its commands, in `--help` order.
fn names() -> Vec<String> {
    std::iter::once("ratewatch".to_string())
        .chain(
            Cli::command()
                .get_subcommands()
                .map(|c| c.get_name().to_string()),
        )
        .collect()
}

/// What `ratewatch [COMMAND] --help` prints, trailing spaces trimmed (editors strip them).
fn help(name: &str) -> String {
    let out = ratewatch((name != "ratewatch").then_some(name))
        .arg("--help")
        .env("COLUMNS", WIDTH)
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A usage block: its name, the byte range of the whole block and its text.
struct Block {
    name: String,
    range: std::ops::Range<usize>,
    text: String,
}

const OPEN: &str = "<!-- usage:";
const CLOSE: &str = "<!-- /usage -->";

fn render(name: &str, help: &str) -> String {
    format!("{OPEN}{name} -->\n```text\n{help}\n```\n{CLOSE}")
}

fn blocks(doc: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(start) = doc[from..].find(OPEN).map(|i| i + from) {
        let header_end = doc[start..].find("-->").expect("usage marker closed") + start;
        let name = doc[start + OPEN.len()..header_end].trim().to_string();
        let end = doc[start..]
            .find(CLOSE)
            .unwrap_or_else(|| panic!("docs/cli.md: usage block `{name}` has no {CLOSE}"))
            + start
            + CLOSE.len();
        let inner = &doc[header_end + 3..end - CLOSE.len()];
        let text = inner
            .trim()
            .strip_prefix("```text")
            .and_then(|t| t.strip_suffix("```"))
            .unwrap_or_else(|| panic!("docs/cli.md: usage block `{name}` is not one ```text fence"))
            .trim_matches('\n')
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n");
        found.push(Block {
            name,
            range: start..end,
            text,
        });
        from = end;
    }
    found
}

/// A line diff (`-` docs/cli.md, `+` help) with a line of context, for a readable failure.
fn diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // Longest common subsequence table, from the ends.
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            lines.push(('+', b[j]));
            j += 1;
        } else {
            lines.push(('-', a[i]));
            i += 1;
        }
    }
    let changed = |k: usize| lines.get(k).is_some_and(|(c, _)| *c != ' ');
    let mut out = String::new();
    for (k, (mark, line)) in lines.iter().enumerate() {
        let near = changed(k) || changed(k + 1) || (k > 0 && changed(k - 1));
        if near {
            out.push_str(&format!("{mark} {line}\n"));
        }
    }
    out
}

#[test]
fn usage_doc_blocks_equal_the_help() {
    let path = usage_doc_path();
    let doc = std::fs::read_to_string(&path).unwrap();
    let found = blocks(&doc);
    let wanted = names();
    let mut problems = Vec::new();
    for name in &wanted {
        let help = help(name);
        match found.iter().find(|b| &b.name == name) {
            None => problems.push(format!("no usage block for `{name}`")),
            Some(b) if b.text != help => problems.push(format!(
                "the block for `{name}` differs from its --help (- docs/cli.md, + --help):\n{}",
                diff(&b.text, &help)
            )),
            Some(_) => {}
        }
    }
    for b in &found {
        if !wanted.contains(&b.name) {
            problems.push(format!(
                "a usage block for `{}`, which is no command",
                b.name
            ));
        }
    }
    if problems.is_empty() {
        return;
    }
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        std::fs::write(&path, bless(&doc, &found, &wanted)).unwrap();
        eprintln!(
            "docs/cli.md usage blocks rewritten:\n{}",
            problems.join("\n")
        );
        return;
    }
    panic!(
        "docs/cli.md is out of date with --help:\n\n{}\n\nRun `{BLESS}=1 cargo test usage` to rewrite its usage blocks, then review the diff.",
        problems.join("\n\n")
    );
}

/// docs/cli.md with its usage blocks rendered from the help, one per name in `--help`
/// order. The blocks stand together: everything from the first to the last is replaced.
fn bless(doc: &str, found: &[Block], wanted: &[String]) -> String {
    let region: Vec<String> = wanted.iter().map(|n| render(n, &help(n))).collect();
    let region = region.join("\n\n");
    match (found.first(), found.last()) {
        (Some(first), Some(last)) => format!(
            "{}{region}{}",
            &doc[..first.range.start],
            &doc[last.range.end..]
        ),
        _ => format!("{}\n\n{region}\n", doc.trim_end()),
    }
}

#[test]
fn every_command_ends_its_help_with_examples() {
    let cli = Cli::command();
    for cmd in cli.get_subcommands() {
        let after = cmd
            .get_after_long_help()
            .or(cmd.get_after_help())
            .map(|t| t.to_string())
            .unwrap_or_default();
        assert!(
            after.starts_with("Example"),
            "`ratewatch {} --help` has no examples (after_help)",
            cmd.get_name()
        );
        assert!(
            after.contains(&format!("ratewatch {}", cmd.get_name())),
            "`ratewatch {}`'s examples do not use it",
            cmd.get_name()
        );
    }
}

#[test]
fn the_diff_shows_what_changed() {
    let d = diff("a\nb\nc\nd\ne\nf", "a\nb\nC\nd\ne\nf\ng");
    assert_eq!(d, "  b\n- c\n+ C\n  d\n  f\n+ g\n");
}
