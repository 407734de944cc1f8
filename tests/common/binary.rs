//! The binary, started the one way every test starts it: `ratewatch(["screen", …])`, with
//! none of the caller's settings, then [`Ratewatch::run`] for its exit and output,
//! [`Ratewatch::spawn`] for a process to watch, signal or wait for, or
//! [`Ratewatch::serve`] for a server that says its URL first (`serve`, `demo-server`).

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::OnceLock;

use assert_cmd::assert::{Assert, OutputAssertExt};

use super::wait::Spawned;

/// The binary cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_ratewatch");

/// `ratewatch ARGS…`, in this process's working directory until [`Ratewatch::in_dir`]
/// names another, with no RATEWATCH_* variable of the caller's, in English and UTC.
pub fn ratewatch<I, S>(args: I) -> Ratewatch
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(BIN);
    isolated(&mut command);
    command.args(args);
    Ratewatch(command)
}

/// A command line of the binary, to run once it is complete.
pub struct Ratewatch(Command);

impl Ratewatch {
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.0.arg(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.0.args(args);
        self
    }

    /// `--db DB`, after the arguments given so far.
    pub fn db(&mut self, db: impl AsRef<Path>) -> &mut Self {
        self.0.arg("--db").arg(db.as_ref());
        self
    }

    pub fn env(&mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.0.env(name, value);
        self
    }

    /// Runs it in `dir`, where it finds a ratewatch.toml and its default database.
    pub fn in_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.0.current_dir(dir);
        self
    }

    /// The process as the standard library starts it, for what only that knows (a limit
    /// set between fork and exec).
    pub fn process(&mut self) -> &mut Command {
        &mut self.0
    }

    /// Runs it to its end: its exit status, stdout and stderr.
    pub fn run(&mut self) -> Output {
        self.0
            .output()
            .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", self.0))
    }

    /// Runs it to its end, for assertions on its exit and output.
    pub fn assert(&mut self) -> Assert {
        self.run().assert()
    }

    /// Starts it, its stdout and stderr kept for when it ends.
    pub fn spawn(&mut self) -> Spawned {
        Spawned::start(&mut self.0)
    }

    /// Starts a server and waits for its URL, the first line it prints.
    pub fn serve(&mut self) -> Serving {
        let mut child = self
            .0
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", self.0));
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let serving = Serving {
            url: first.trim().trim_end_matches('/').to_string(),
            child,
        };
        assert!(
            serving.url.starts_with("http://127.0.0.1:"),
            "its URL first: {first:?}"
        );
        serving
    }
}

/// A server the binary runs (`serve`, `demo-server`), killed if still running when
/// dropped.
pub struct Serving {
    child: Child,
    /// Its URL as it printed it, without a final `/`.
    pub url: String,
}

impl Serving {
    /// Stops it as Ctrl-C or a service manager would (SIGTERM); its exit status.
    pub fn stop(mut self) -> ExitStatus {
        // SAFETY: kill(2) on a child of this process that has not been waited for.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Keeps the caller's settings out of a test: no RATEWATCH_* variable that ratewatch reads
/// (a config file in the working directory is the caller's to avoid).
fn isolated(cmd: &mut Command) {
    static READ: OnceLock<Vec<OsString>> = OnceLock::new();
    let read = READ.get_or_init(|| {
        fn of(command: &clap::Command, vars: &mut Vec<OsString>) {
            vars.extend(
                command
                    .get_arguments()
                    .filter_map(|a| a.get_env().map(OsStr::to_owned)),
            );
            command.get_subcommands().for_each(|sub| of(sub, vars));
        }
        let mut vars = vec![OsString::from(ratewatch::settings::config::KEY_ENV)];
        of(
            &<ratewatch::settings::cli::Cli as clap::CommandFactory>::command(),
            &mut vars,
        );
        vars
    });
    for var in read {
        cmd.env_remove(var);
    }
    // The reader the tests expect unless they say otherwise: English, in UTC, whatever the
    // machine's language and zone.
    for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        cmd.env_remove(var);
    }
    cmd.env("TZ", "UTC");
}

/// A test's folder, where the binary finds its ratewatch.toml and its default database.
pub trait InFolder {
    fn folder(&self) -> &Path;

    /// `ratewatch ARGS…` in this folder.
    fn ratewatch<I, S>(&self, args: I) -> Ratewatch
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = ratewatch(args);
        command.in_dir(self.folder());
        command
    }
}
