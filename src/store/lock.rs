//! One screening run at a time per database file, whatever name it is reached by: the
//! path is resolved (symlinks) to its real file, whose `<db>.lock` beside it is locked and
//! says who holds it; on Linux the database file itself is locked too, which catches a
//! hard link (another name, same file). Both are held by the operating system for as long
//! as the process lives: a run killed with `kill -9` leaves no stale lock behind.
//!
//! Readers (`sqlite3`, the read-only commands) never take it.
//!
//! A program that runs screenings in-process while it starts other processes may see a
//! lock it just released still held for a moment: a child holds copies of its parent's
//! descriptors until it executes its own program. The `ratewatch` binary starts none.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::sql::{StoreError, now_text};

/// Held while a run writes; released on drop or when the process ends.
///
/// Drop it only after every SQLite connection of this process to the database is closed:
/// it holds a descriptor of the database file, and closing any descriptor of a file drops
/// all the POSIX (`fcntl`) locks the process holds on it — SQLite's own locks included.
#[derive(Debug)]
pub struct RunLock {
    /// `<real db path>.lock`, locked, with the holder's description in it.
    _note: File,
    /// The database file itself, locked (Linux only, see [`lock_file_itself`]).
    _db: Option<File>,
}

/// The lock file of a database: `<db>.lock` beside the real file when `db` exists (a
/// symlink is followed), else beside `db`.
pub fn lock_path(db: &Path) -> PathBuf {
    beside(db, ".lock")
}

/// `<db><suffix>` beside the real file when `db` exists (a symlink is followed), else
/// beside `db`: every name of the database finds the same one.
pub(super) fn beside(db: &Path, suffix: &str) -> PathBuf {
    let real = std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf());
    let mut name = real.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    real.with_file_name(name)
}

impl RunLock {
    /// Takes the lock or says who holds it. Creates an empty database file if there is
    /// none yet (SQLite takes an empty file as a new database), so there is a file to lock.
    pub fn acquire(db: &Path) -> Result<RunLock, StoreError> {
        let cannot = |what: &str, path: &Path, e: std::io::Error| {
            StoreError::Lock(format!("cannot {what} {}: {e}", path.display()))
        };
        // Read-only is enough to lock; a database that cannot be written is SQLite's to
        // report, with its own message.
        let db_file = match File::open(db) {
            Err(e) if e.kind() == ErrorKind::NotFound => OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(db),
            opened => opened,
        }
        .map_err(|e| cannot("open", db, e))?;
        let path = lock_path(db);
        let mut note = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| cannot("open", &path, e))?;
        match note.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = note.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(StoreError::Busy {
                    holder: if holder.is_empty() {
                        "another ratewatch run".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(cannot("lock", &path, e)),
        }
        let db_file = lock_file_itself(db_file).map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => StoreError::Busy {
                // Its note is beside the other name, which cannot be found from here.
                holder:
                    "another ratewatch run, reaching this database by another name (a hard link)"
                        .into(),
            },
            std::fs::TryLockError::Error(e) => cannot("lock", db, e),
        })?;
        let who = format!(
            "ratewatch run of process {} since {}\n",
            std::process::id(),
            now_text()
        );
        let written = note
            .set_len(0)
            .and_then(|()| note.seek(SeekFrom::Start(0)))
            .and_then(|_| note.write_all(who.as_bytes()))
            .and_then(|()| note.flush());
        if let Err(e) = written {
            tracing::warn!("cannot note the lock holder in {}: {e}", path.display());
        }
        Ok(RunLock {
            _note: note,
            _db: db_file,
        })
    }
}

/// Locks the database file itself with `flock`, which follows the file, not its name. On
/// Linux `flock` and SQLite's `fcntl` locks never interact; on macOS and the BSDs they
/// share one lock table and this would shut SQLite out of its own file, so there the
/// database is not locked itself (a hard link is then not caught).
#[cfg(target_os = "linux")]
fn lock_file_itself(file: File) -> Result<Option<File>, std::fs::TryLockError> {
    file.try_lock()?;
    Ok(Some(file))
}

#[cfg(not(target_os = "linux"))]
fn lock_file_itself(_file: File) -> Result<Option<File>, std::fs::TryLockError> {
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(db: &Path) -> String {
        match RunLock::acquire(db) {
            Err(StoreError::Busy { holder }) => holder,
            other => panic!("{}: {other:?}", db.display()),
        }
    }

    #[test]
    fn a_second_run_is_refused_with_the_holder_named_and_a_released_lock_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let first = RunLock::acquire(&db).unwrap();
        assert!(db.is_file(), "the database file is created to be locked");
        let holder = refused(&db);
        assert!(
            holder.contains(&format!("process {}", std::process::id())),
            "{holder}"
        );
        assert!(holder.contains("since 20"), "{holder}");
        drop(first);
        RunLock::acquire(&db).expect("free again once released");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_database_in_use_is_refused_with_the_holder_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        let link = dir.path().join("elsewhere/link.db");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        // Through the link first: the database does not exist yet and is created.
        let first = RunLock::acquire(&link).unwrap();
        assert!(db.is_file());
        assert_eq!(lock_path(&link), lock_path(&db));
        for name in [&db, &link] {
            let holder = refused(name);
            assert!(
                holder.contains(&format!("process {}", std::process::id())),
                "{holder}"
            );
        }
        drop(first);
        let again = RunLock::acquire(&db).expect("free again once released");
        refused(&link);
        drop(again);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_hard_link_to_a_database_in_use_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let first = RunLock::acquire(&db).unwrap();
        let other = dir.path().join("copy.db");
        std::fs::hard_link(&db, &other).unwrap();
        let holder = refused(&other);
        assert!(holder.contains("another name"), "{holder}");
        drop(first);
        let second = RunLock::acquire(&other).expect("free again once released");
        // Either way round.
        refused(&db);
        drop(second);
        RunLock::acquire(&db).unwrap();
    }
}
