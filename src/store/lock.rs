//! One screening run at a time per database: an exclusive lock on `<db>.lock`, held by the
//! operating system for as long as the process lives. A run killed with `kill -9` leaves no
//! stale lock behind; the file's text only says who held it last, for the message.
//!
//! Readers (`sqlite3`, the read-only commands) never take it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{StoreError, now_text};

/// Held while a run writes; released on drop or when the process ends.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// The lock file of a database.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

impl RunLock {
    /// Takes the lock or says who holds it.
    pub fn acquire(db: &Path) -> Result<RunLock, StoreError> {
        let path = lock_path(db);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::Lock(format!("cannot open {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(StoreError::Busy {
                    holder: if holder.is_empty() {
                        "another ratewatch run".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(StoreError::Lock(format!(
                    "cannot lock {}: {e}",
                    path.display()
                )));
            }
        }
        let who = format!(
            "ratewatch run of process {} since {}\n",
            std::process::id(),
            now_text()
        );
        let written = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(who.as_bytes()))
            .and_then(|()| file.flush());
        if let Err(e) = written {
            tracing::warn!("cannot note the lock holder in {}: {e}", path.display());
        }
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_is_refused_with_the_holder_named_and_a_released_lock_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let first = RunLock::acquire(&db).unwrap();
        match RunLock::acquire(&db) {
            Err(StoreError::Busy { holder }) => {
                assert!(
                    holder.contains(&format!("process {}", std::process::id())),
                    "{holder}"
                );
                assert!(holder.contains("since 20"), "{holder}");
            }
            other => panic!("{other:?}"),
        }
        drop(first);
        RunLock::acquire(&db).expect("free again once released");
    }
}
