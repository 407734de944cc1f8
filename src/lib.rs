//! ratewatch screens a portfolio of counterparties for credit risk with a company-rating
//! service: it finds each company, fetches its traffic-light rating, keeps the history in
//! SQLite and reports what needs attention.
//!
//! ```text
//! portfolio.csv ─► input ─► resolve ─► rate ─► store ─► report
//! ```
//!
//! - [`stages`], in order: [`stages::portfolio`] reads and checks rows;
//!   [`stages::resolve`] finds each company; [`stages::rate`] fetches ratings
//!   ([`stages::refresh`]: which may be reused without a call); [`stages::pipeline`] runs
//!   them concurrently through the one [`stages::limit`] gate, as [`stages::decide`] says
//!   each row needs (the dry run counts from it too).
//! - [`store`] keeps history in SQLite; [`digest`] is what a run's alerts say, the same
//!   in every channel; [`report`] formats a run's results; [`deliver`] hands them on (a
//!   webhook for programs, Slack or Teams, an email, a metrics file).
//! - The decisions a person makes, whoever asks (a command or a page): [`ack`] and
//!   [`review`]; [`when`] reads the times a person types.
//! - [`serve`]: a local web application over the database, whose pages read through
//!   [`pages`].
//! - [`api`]: the service's client (one method per endpoint, typed errors).
//! - [`sim`]: an embedded simulator of the service, for demos, tests and benchmarks.
//! - [`model`]: the domain types every stage shares.
//! - [`spreadsheet`]: a CSV file as a spreadsheet saved it (encoding, BOM, delimiter), for
//!   the portfolio's delimiter and `review import`.
//! - [`history_sync`]: reads the account's history of requests back into the database.
//! - [`naming`]: which portfolio a file is screened as (a dated export, its portfolio's).
//! - [`commands`]: what each subcommand does; [`settings`] feed it.
//!
//! A run's life ([`run::screen`]), around the pipeline:
//!
//! ```text
//! check the file ─► lock the database ─► open (upgrade) ─► resume an interrupted run?
//!   ─► lookup lists ─► pipeline (guarded: a signal, --max-silence, --max-run-time stop it)
//!   ─► finish: counts, alerts decided ─► summary and reports ─► delivered
//!   ─► metrics, webhook, email (and what they missed before)
//! ```
//!
//! A run killed anywhere leaves a consistent database: its rows up to the last commit, and
//! news not marked delivered, which the next run of the portfolio announces. A decision
//! made beside a run (`ack`, `review`, a page's form) asks it for its turn and is written
//! between two of its commits (`store/turn.rs`).
//!
//! The library never exits the process; the binary maps [`error::ExitCode`] to one.

pub mod ack;
pub mod alerts;
pub mod api;
pub mod commands;
pub(crate) mod connection;
pub mod deliver;
pub mod digest;
pub mod error;
pub mod history_sync;
pub mod identifiers;
pub mod model;
pub mod naming;
pub mod pages;
pub mod report;
pub mod review;
pub mod run;
pub mod serve;
pub mod settings;
pub mod sim;
pub mod spreadsheet;
pub mod stages;
pub mod store;
pub mod text;
pub mod when;

pub use error::{Error, ExitCode};

/// Locks `m`, even when a thread panicked holding it: what these locks guard (counts,
/// queues, a writer) stays usable, and one panicked task must not stop the others.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// The modules that read settings: the commands, and a run they start.
    const READ_SETTINGS: [&str; 3] = ["commands", "settings::config", "run"];

    /// Modules that format or hand on a run from plain data: they read no database.
    const PLAIN_DATA: [&str; 2] = ["deliver", "report"];

    fn sources(path: &Path, files: &mut Vec<PathBuf>) {
        if path.is_dir() {
            for entry in std::fs::read_dir(path).unwrap() {
                sources(&entry.unwrap().path(), files);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path.to_path_buf());
        }
    }

    /// The directories that only group modules: each of their modules is a node of its own
    /// (`stages::portfolio`), as a top-level module is.
    const GROUPS: [&str; 2] = ["settings", "stages"];

    /// Each module of src/ (top-level, or in a group) and the others it names as
    /// `crate::…`, in code or docs.
    fn imports() -> BTreeMap<String, BTreeSet<String>> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut texts = BTreeMap::new();
        let read = |dir: &Path, prefix: &str, texts: &mut BTreeMap<String, String>| {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                if ["lib", "main", "mod"].contains(&stem.as_str())
                    || (prefix.is_empty() && GROUPS.contains(&stem.as_str()))
                {
                    continue;
                }
                let mut files = Vec::new();
                sources(&path, &mut files);
                let text: &mut String = texts.entry(format!("{prefix}{stem}")).or_default();
                for file in files {
                    text.push_str(&std::fs::read_to_string(file).unwrap());
                }
            }
        };
        read(&src, "", &mut texts);
        for group in GROUPS {
            read(&src.join(group), &format!("{group}::"), &mut texts);
        }
        let mut graph = BTreeMap::new();
        for (name, text) in &texts {
            let named = text
                .split("crate::")
                .skip(1)
                .map(|rest| {
                    let word = |at: &str| {
                        let end = at
                            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                            .unwrap_or(at.len());
                        at[..end].to_string()
                    };
                    let first = word(rest);
                    match rest[first.len()..].strip_prefix("::") {
                        Some(inner) if GROUPS.contains(&first.as_str()) => {
                            format!("{first}::{}", word(inner))
                        }
                        _ => first,
                    }
                })
                .filter(|m| m != name && texts.contains_key(m))
                .collect();
            graph.insert(name.clone(), named);
        }
        graph
    }

    /// A circle through `from`, if there is one: the modules in order, `from` at both ends.
    fn circle(
        graph: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == from) {
            let mut found = path[at..].to_vec();
            found.push(from.to_string());
            return Some(found);
        }
        if !done.insert(from.to_string()) {
            return None;
        }
        path.push(from.to_string());
        for next in &graph[from] {
            if let Some(found) = circle(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }

    #[test]
    fn the_modules_import_each_other_in_no_circle() {
        let graph = imports();
        let mut done = BTreeSet::new();
        for name in graph.keys() {
            if let Some(found) = circle(&graph, name, &mut Vec::new(), &mut done) {
                panic!(
                    "modules import each other in a circle: {}",
                    found.join(" → ")
                );
            }
        }
    }

    #[test]
    fn settings_are_read_at_the_top_and_reports_get_plain_data() {
        let graph = imports();
        let mut wrong = Vec::new();
        for (name, named) in &graph {
            for top in ["settings::cli", "settings::config"] {
                if named.contains(top) && !READ_SETTINGS.contains(&name.as_str()) {
                    wrong.push(format!("{name} → {top}"));
                }
            }
        }
        for name in PLAIN_DATA {
            if graph[name].contains("store") {
                wrong.push(format!("{name} → store"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("; "));
    }

    /// The web layer reads and changes the database through the library's use cases only:
    /// no SQL of its own, no connection.
    #[test]
    fn the_web_layer_holds_no_sql() {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/serve"),
            &mut files,
        );
        assert!(!files.is_empty());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for sql in [
                "rusqlite", "SELECT ", "INSERT ", "UPDATE ", "DELETE ", "execute(",
            ] {
                assert!(!text.contains(sql), "{}: {sql}", file.display());
            }
        }
    }
}
