//! `ratewatch completions` and `ratewatch man`: shell completion scripts and manual pages,
//! both generated from the same clap definitions as `--help`, so they never drift from it.
//!
//! Nothing here reads settings or talks to the service.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::emit;
use crate::error::{Error, ExitCode};
use crate::settings::cli::{Cli, CompletionsArgs, ManArgs, Shell};

pub fn completions(args: CompletionsArgs) -> Result<ExitCode, Error> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ratewatch", &mut script);
    emit(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::Clean)
}

pub fn man(args: ManArgs) -> Result<ExitCode, Error> {
    let mut top = Cli::command().disable_help_subcommand(true);
    // Gives each command its page name (`ratewatch-screen`) and its full usage line.
    top.build();
    if let Some(dir) = args.out {
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
        let mut written = Vec::new();
        for cmd in std::iter::once(&top).chain(top.get_subcommands()) {
            written.push(write_page(cmd, &dir)?);
        }
        let list: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        emit(&format!("{}\n", list.join("\n")))?;
        return Ok(ExitCode::Clean);
    }
    let page = match &args.command {
        None => &top,
        Some(name) => top.find_subcommand(name).ok_or_else(|| {
            let names: Vec<&str> = top.get_subcommands().map(|c| c.get_name()).collect();
            Error::Config(format!(
                "no command `{name}`; the commands are {}",
                names.join(", ")
            ))
        })?,
    };
    let mut roff = Vec::new();
    page_of(page)
        .render(&mut roff)
        .map_err(|e| Error::io("cannot render the manual page", e))?;
    emit(&String::from_utf8_lossy(&roff))?;
    Ok(ExitCode::Clean)
}

/// A command's page, its footer naming ratewatch and its version (not the command's).
fn page_of(cmd: &clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd.clone()).source(format!("ratewatch {}", env!("CARGO_PKG_VERSION")))
}

fn write_page(cmd: &clap::Command, dir: &Path) -> Result<PathBuf, Error> {
    page_of(cmd).generate_to(dir).map_err(|e| {
        Error::io(
            format!("cannot write a manual page in {}", dir.display()),
            e,
        )
    })
}
