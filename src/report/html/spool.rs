//! Bytes set aside for later in report.html: the rows of a list wait there while the rows
//! before it are written.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bytes a spool keeps in memory before it moves to a temporary file.
const SPILL_BYTES: usize = 1 << 18;

/// Bytes set aside for later in the page: in memory up to `SPILL_BYTES`, then in an
/// anonymous temporary file (removed by the system however the process ends).
pub(super) struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
    dir: PathBuf,
}

impl Spool {
    pub(super) fn new(dir: &Path) -> Spool {
        Spool {
            memory: Vec::new(),
            file: None,
            dir: dir.to_path_buf(),
        }
    }

    pub(super) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(file) = &mut self.file {
            return file.write_all(bytes);
        }
        self.memory.extend_from_slice(bytes);
        if self.memory.len() > SPILL_BYTES {
            let mut file = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(&self.dir)?);
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        Ok(())
    }

    pub(super) fn copy_to(self, out: &mut impl Write) -> io::Result<()> {
        match self.file {
            None => out.write_all(&self.memory),
            Some(file) => {
                let mut file = file.into_inner().map_err(|e| e.into_error())?;
                file.seek(SeekFrom::Start(0))?;
                io::copy(&mut file, out).map(|_| ())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spool_moves_to_a_file_past_its_memory_and_gives_back_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = Spool::new(dir.path());
        let chunk: Vec<u8> = (0..=255).collect();
        let mut expected = Vec::new();
        while expected.len() <= SPILL_BYTES + 1000 {
            spool.push(&chunk).unwrap();
            expected.extend_from_slice(&chunk);
        }
        assert!(spool.file.is_some() && spool.memory.is_empty());
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert!(
            out == expected,
            "{} bytes back of {}",
            out.len(),
            expected.len()
        );
    }
}
