//! ratewatch screens a portfolio of counterparties for credit risk with a company-rating
//! service: it finds each company, fetches its traffic-light rating, keeps the history in
//! SQLite and reports what needs attention.
//!
//! ```text
//! portfolio.csv ─► input ─► resolve ─► rate ─► store ─► report
//! ```
//!
//! - [`stages`], in order: [`stages::input`] reads rows, [`stages::check`] checks them;
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
//! - [`lookup`]: a question to the service outside a run, through a gate as a run's.
//! - [`api`]: the service's client (one method per endpoint, typed errors).
//! - [`sim`]: an embedded simulator of the service, for demos, tests and benchmarks.
//! - [`model`]: the domain types every stage shares; [`country_names`]: a country as a
//!   portfolio writes it (a code, or its name in six languages).
//! - [`spreadsheet`]: a CSV file as a spreadsheet saved it (encoding, BOM, delimiter), for
//!   the portfolio's delimiter and `review import`.
//! - [`sync_history`]: reads the account's history of requests back into the database.
//! - [`naming`]: which portfolio a file is screened as (a dated export, its portfolio's).
//! - [`locale`]: the reader's language and time zone, which every text for a person
//!   follows and no file for a program does.
//! - [`commands`]: what each subcommand does; [`settings`] feed it; [`toml_table`]: a
//!   table of ratewatch.toml, which the module it configures reads.
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
pub mod country_names;
pub mod deliver;
pub mod digest;
pub mod error;
pub mod identifiers;
pub mod links;
pub mod locale;
pub mod lookup;
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
pub mod sync_history;
pub mod text;
pub mod toml_table;
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
    /// (`stages::input`), as a top-level module is.
    const GROUPS: [&str; 2] = ["settings", "stages"];

    /// Modules, each with the others it names (`crate::…`, or `super::…` for a module
    /// beside it), in code or docs.
    type Graph = BTreeMap<String, BTreeSet<String>>;

    /// A module of a graph: its path in the crate, and the text of each of its files with
    /// the module the file is in (whose `super` the file's `super::` names).
    struct Node {
        module: Vec<String>,
        texts: Vec<(Vec<String>, String)>,
    }

    /// The graph of the modules of `folder` (a folder of src/, or "" for src/ itself): each
    /// file and folder in it is a node, a folder with all it holds; a folder of `groups` is
    /// no node, its own modules are (`stages::input`). `lib.rs`, `main.rs` and a
    /// folder's `mod.rs` are no node: they are the crate, the binary and the folder itself.
    fn imports(folder: &str, groups: &[&str]) -> Graph {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let within: Vec<String> = folder
            .split('/')
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        let mut nodes: BTreeMap<String, Node> = BTreeMap::new();
        let mut add = |dir: &Path, at: &[String], name: String| {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                let folder = path.is_dir();
                if (!folder && path.extension().is_none_or(|e| e != "rs"))
                    || ["lib", "main", "mod"].contains(&stem.as_str())
                    || (name.is_empty() && groups.contains(&stem.as_str()))
                {
                    continue;
                }
                let mut module = at.to_vec();
                module.push(stem.clone());
                let mut files = Vec::new();
                sources(&path, &mut files);
                let texts = files
                    .iter()
                    .map(|file| {
                        // The module whose `super` a file's `super::` is: its folder's.
                        let inside = file.parent().unwrap().strip_prefix(&src).unwrap();
                        let home = inside.iter().map(|c| c.to_string_lossy().into()).collect();
                        (home, std::fs::read_to_string(file).unwrap())
                    })
                    .collect();
                let node = if name.is_empty() {
                    stem
                } else {
                    format!("{name}::{stem}")
                };
                nodes.insert(node, Node { module, texts });
            }
        };
        add(&src.join(folder), &within, String::new());
        for group in groups {
            let mut at = within.clone();
            at.push(group.to_string());
            add(&src.join(folder).join(group), &at, group.to_string());
        }
        let node_of = |path: &[String]| {
            nodes
                .iter()
                .filter(|(_, node)| path.starts_with(&node.module))
                .map(|(name, _)| name.clone())
                .next()
        };
        let mut graph = Graph::new();
        for (name, node) in &nodes {
            let mut named = BTreeSet::new();
            for (home, text) in &node.texts {
                let mut markers = vec![("crate::", &[][..])];
                // A top-level file's `super` is the crate, which `crate::` names.
                if !home.is_empty() {
                    markers.push(("super::", &home[..]));
                }
                for (marker, base) in markers {
                    for rest in text.split(marker).skip(1) {
                        for path in use_paths(rest) {
                            let path: Vec<String> = base.iter().cloned().chain(path).collect();
                            named.extend(node_of(&path).filter(|n| n != name));
                        }
                    }
                }
            }
            graph.insert(name.clone(), named);
        }
        graph
    }

    /// The module paths `text` starts with, as after `crate::` in `crate::a::b::C` or
    /// `crate::{a, b::{c, d}}`: the lower-case words of each, up to its item.
    fn use_paths(text: &str) -> Vec<Vec<String>> {
        let end = text
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(text.len());
        let (word, rest) = text.split_at(end);
        if word.is_empty() {
            let Some(inner) = text.strip_prefix('{') else {
                return Vec::new();
            };
            // Each item of the braces, at their own depth.
            let (mut items, mut depth, mut from) = (Vec::new(), 0, 0);
            for (at, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.extend(use_paths(inner[from..at].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.extend(use_paths(inner[from..at].trim_start()));
                        from = at + 1;
                    }
                    _ => {}
                }
            }
            return items;
        }
        let mut paths = match rest.strip_prefix("::") {
            Some(rest) => use_paths(rest),
            None => Vec::new(),
        };
        if paths.is_empty() {
            paths.push(Vec::new());
        }
        for path in &mut paths {
            path.insert(0, word.to_string());
        }
        paths
    }

    /// Every circle of `graph` its depth-first walk meets, each as its modules in order,
    /// the first at both ends: one for each import that closes one.
    fn circles(graph: &Graph) -> Vec<Vec<String>> {
        fn walk<'a>(
            graph: &'a Graph,
            from: &'a str,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
            found: &mut Vec<Vec<String>>,
        ) {
            if let Some(at) = path.iter().position(|m| *m == from) {
                let circle = path[at..].iter().chain([&from]);
                found.push(circle.map(|m| m.to_string()).collect());
                return;
            }
            if !done.insert(from) {
                return;
            }
            path.push(from);
            for next in &graph[from] {
                walk(graph, next, path, done, found);
            }
            path.pop();
        }
        let (mut done, mut found) = (BTreeSet::new(), Vec::new());
        for name in graph.keys() {
            walk(graph, name, &mut Vec::new(), &mut done, &mut found);
        }
        found
    }

    /// Fails listing each circle of `graph`, and which modules it is the graph of.
    fn assert_no_circle(graph: &Graph, of: &str) {
        let found = circles(graph);
        let lines: Vec<String> = found.iter().map(|c| c.join(" → ")).collect();
        assert!(
            found.is_empty(),
            "{of}: modules import each other in a circle:\n  {}",
            lines.join("\n  ")
        );
    }

    #[test]
    fn the_modules_import_each_other_in_no_circle() {
        assert_no_circle(
            &imports("", &GROUPS),
            "src/, the modules of settings/ and stages/ apart",
        );
    }

    /// A folder is one part of the crate: what is in it is below what uses it, or above
    /// what it uses, as a whole.
    #[test]
    fn the_folders_import_each_other_in_no_circle() {
        assert_no_circle(&imports("", &[]), "src/, each folder as one module");
    }

    #[test]
    fn the_deliveries_import_each_other_in_no_circle() {
        let graph = imports("deliver", &[]);
        assert!(graph.contains_key("webhook"), "{graph:?}");
        assert_no_circle(&graph, "src/deliver/");
    }

    #[test]
    fn a_circle_is_found_through_braces_and_super() {
        let paths = use_paths("{lock, stages::{rate, refresh::X}, text};");
        let words: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
        assert_eq!(words, ["lock", "stages::rate", "stages::refresh", "text"]);
        let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
            .iter()
            .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
            .collect();
        assert_eq!(circles(&graph), [["a", "b", "c", "a"]]);
        let deliver = imports("deliver", &[]);
        assert!(deliver["webhook"].contains("chat"), "{deliver:?}");
    }

    #[test]
    fn settings_are_read_at_the_top_and_reports_get_plain_data() {
        let graph = imports("", &GROUPS);
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

    /// A file is read whole before it is changed: past 800 lines of code (its tests aside) it
    /// holds more than one job. The flag list and the simulator's data are long by nature.
    #[test]
    fn no_source_file_holds_more_than_800_lines_before_its_tests() {
        const LONG_BY_NATURE: [&str; 2] = ["settings/cli.rs", "sim/dataset.rs"];
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut long = Vec::new();
        for file in files {
            let name = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text
                .lines()
                .take_while(|l| l.trim() != "#[cfg(test)]")
                .count();
            if code > 800 && !LONG_BY_NATURE.contains(&name.as_str()) && !name.ends_with("tests.rs")
            {
                long.push(format!("{name}: {code} lines"));
            }
        }
        assert!(long.is_empty(), "split these along their jobs: {long:?}");
    }

    /// The docs a newcomer reads first stay short enough to be read: the layout in one
    /// sitting, the usage guide with its table of contents.
    #[test]
    fn the_guides_stay_short_enough_to_read() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        for (file, limit) in [("design.md", 12_500), ("usage.md", 100_000)] {
            let size = std::fs::metadata(docs.join(file)).unwrap().len();
            assert!(size <= limit, "docs/{file} is {size} bytes, over {limit}");
        }
    }
}
