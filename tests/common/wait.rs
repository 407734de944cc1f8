//! Waiting on what a test needs instead of on the clock: a condition met (a file there, a
//! count in the database, a request received), a process ended, the clock's next second.
//! Every wait has a ceiling, [`STUCK`], far beyond what any loaded machine needs: it only
//! turns something truly stuck into a failure that says what was awaited.

use std::fmt::{self, Display};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

/// How long a test waits for what comes within a second or two on an idle machine before
/// it calls it stuck.
pub const STUCK: Duration = Duration::from_secs(120);

/// How often a condition is checked.
const POLL: Duration = Duration::from_millis(5);

/// Waits until `ready` holds; fails past [`STUCK`], naming what was `awaited`.
pub fn wait_until(awaited: impl Display, mut ready: impl FnMut() -> bool) {
    wait_for(awaited, || ready().then_some(()))
}

/// Waits until `ready` gives a value, and returns it; fails past [`STUCK`], naming what was
/// `awaited`.
pub fn wait_for<T>(awaited: impl Display, mut ready: impl FnMut() -> Option<T>) -> T {
    let begun = Instant::now();
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(
            begun.elapsed() < STUCK,
            "still waiting after {STUCK:?} for {awaited}"
        );
        std::thread::sleep(POLL);
    }
}

/// Waits until this machine's clock shows a later second than when called. ratewatch keeps
/// times to the second: whatever a command records after this is later than what one
/// recorded before it.
pub fn a_second_later() {
    let now = jiff::Timestamp::now().as_second();
    wait_until("the clock's next second", || {
        jiff::Timestamp::now().as_second() > now
    });
}

/// The number `sql` counts in the database at `db`, read as a reader beside a run reads
/// it; `None` while it cannot say (no database yet, its tables not created yet).
pub fn count_now(db: &Path, sql: &str) -> Option<i64> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    conn.query_row(sql, [], |r| r.get(0)).ok()
}

/// A process started with its stdout and stderr kept in files, so that a test that fails
/// while it runs, or after it was killed, still shows what it said. Killed if still running
/// when dropped (a failing test leaves nothing behind).
pub struct Spawned {
    child: Child,
    stdout: File,
    stderr: File,
}

impl Spawned {
    pub(super) fn start(cmd: &mut Command) -> Spawned {
        let (stdout, stderr) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
        let child = cmd
            .stdout(stdout.try_clone().unwrap())
            .stderr(stderr.try_clone().unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        Spawned {
            child,
            stdout,
            stderr,
        }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether it has ended.
    pub fn ended(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    /// Sends it `signal` (it has not been waited for: the id is still its own).
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on a child of this process that has not been waited for.
        assert_eq!(unsafe { libc::kill(self.id() as i32, signal) }, 0);
    }

    /// Kills it (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        self.child.wait().unwrap();
    }

    /// What it has written so far, stdout then stderr.
    pub fn said(&self) -> String {
        format!(
            "--- stdout\n{}\n--- stderr\n{}",
            read(&self.stdout),
            read(&self.stderr)
        )
    }

    /// Waits for it to end and gives its exit and what it said; past [`STUCK`] it is
    /// killed and the test fails with what it said.
    pub fn finish(self) -> Ended {
        self.finish_within(STUCK, "its end")
    }

    /// The same with a ceiling of `limit`, where the limit is what the test checks (a
    /// process that must stop on its own); `awaited` says what it had to do.
    pub fn finish_within(mut self, limit: Duration, awaited: &str) -> Ended {
        let begun = Instant::now();
        while !self.ended() {
            if begun.elapsed() > limit {
                self.kill();
                panic!("killed after {limit:?} without {awaited}: {}", self.said());
            }
            std::thread::sleep(POLL);
        }
        Ended {
            status: self.child.wait().unwrap(),
            stdout: read(&self.stdout),
            stderr: read(&self.stderr),
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A file's whole text, read without moving the offset the process writing it shares.
fn read(file: &File) -> String {
    let (mut text, mut chunk) = (Vec::new(), [0u8; 8192]);
    while let Ok(n @ 1..) = file.read_at(&mut chunk, text.len() as u64) {
        text.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// How a process ended, and what it said.
pub struct Ended {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Ended {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }
}

/// Its exit, stdout and stderr: what an assertion on it shows.
impl fmt::Debug for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}
