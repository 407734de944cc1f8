//! The report files written side by side: each format in a thread of its own, fed the rows
//! in batches, while the caller's thread reads them from the database and prints the
//! summary. At a million rows the reading and the three formats each take seconds; one
//! after the other they would add up.

use std::io;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{Scope, ScopedJoinHandle};

use super::Format;
use crate::model::ResultRow;

/// Rows handed over at a time: few enough to keep memory flat, enough that handing over
/// costs nothing beside formatting them.
const BATCH: usize = 256;
/// Batches a format may have waiting before the reader waits for it.
const QUEUED: usize = 4;

/// A report format that can be written on a thread of its own.
pub type SendFormat = Box<dyn Format + Send>;

/// What a format's thread is handed: its rows in input order, then the alerts' rows, then
/// the word that every row has been given. A thread that never gets that word was
/// abandoned (the reading failed) and leaves its file unfinished.
enum Part {
    Rows(Arc<Vec<ResultRow>>),
    AlertRows(Arc<Vec<ResultRow>>),
    End,
}

/// The formats being written, one thread each, and the batch being gathered for them.
pub struct Writers<'scope> {
    threads: Vec<(SyncSender<Part>, ScopedJoinHandle<'scope, Written>)>,
    batch: Vec<ResultRow>,
    alerts: bool,
}

/// A format's thread's outcome: the format with every row given, ready to finish, or the
/// first error it met (after which it took no more rows).
type Written = io::Result<Option<SendFormat>>;

impl<'scope> Writers<'scope> {
    /// Starts a thread for each of `formats` in `scope`.
    pub fn start<'env>(scope: &'scope Scope<'scope, 'env>, formats: Vec<SendFormat>) -> Self {
        let threads = formats
            .into_iter()
            .map(|format| {
                let (sender, receiver) = sync_channel(QUEUED);
                (sender, scope.spawn(move || write(format, receiver)))
            })
            .collect();
        Writers {
            threads,
            batch: Vec::with_capacity(BATCH),
            alerts: false,
        }
    }

    /// The next row of the run, in input order.
    pub fn row(&mut self, row: ResultRow) {
        self.push(row, false);
    }

    /// The next of the alerts' rows, after every row of the run.
    pub fn alert_row(&mut self, row: ResultRow) {
        self.push(row, true);
    }

    fn push(&mut self, row: ResultRow, alerts: bool) {
        if alerts != self.alerts {
            self.hand_over();
            self.alerts = alerts;
        }
        self.batch.push(row);
        if self.batch.len() == BATCH {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let batch = Arc::new(std::mem::replace(
            &mut self.batch,
            Vec::with_capacity(BATCH),
        ));
        for (sender, _) in &self.threads {
            let part = match self.alerts {
                false => Part::Rows(Arc::clone(&batch)),
                true => Part::AlertRows(Arc::clone(&batch)),
            };
            // A thread that stopped has met an error: it says so when joined.
            let _ = sender.send(part);
        }
    }

    /// Waits for every format to have taken every row. All of them ready, they come back
    /// in the order given, to be finished; else the first error, in that order, and every
    /// format is dropped unfinished, leaving its file as it was.
    pub fn end(mut self) -> io::Result<Vec<SendFormat>> {
        self.hand_over();
        let mut ready = Vec::with_capacity(self.threads.len());
        let mut trouble = None;
        for (sender, thread) in self.threads {
            let _ = sender.send(Part::End);
            drop(sender);
            match thread.join() {
                Ok(Ok(Some(format))) => ready.push(format),
                Ok(Ok(None)) => unreachable!("a format's thread told the end ends ready"),
                Ok(Err(e)) => {
                    trouble.get_or_insert(e);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        match trouble {
            Some(e) => Err(e),
            None => Ok(ready),
        }
    }
}

/// A format's thread: every part it is handed, until the end or until the reader gives up
/// (then `None`: nothing to finish).
fn write(mut format: SendFormat, parts: Receiver<Part>) -> Written {
    for part in parts {
        match part {
            Part::Rows(rows) => rows.iter().try_for_each(|row| format.row(row))?,
            Part::AlertRows(rows) => rows.iter().try_for_each(|row| format.alert_row(row))?,
            Part::End => return Ok(Some(format)),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::model::RunInfo;

    /// A format that notes what it was given, and fails at the line it is told to.
    struct Noting {
        seen: Arc<Mutex<Vec<String>>>,
        fail_at: Option<u64>,
    }

    impl Format for Noting {
        fn begin(&mut self, _run: &RunInfo) -> io::Result<()> {
            Ok(())
        }
        fn row(&mut self, row: &ResultRow) -> io::Result<()> {
            if self.fail_at == Some(row.line) {
                return Err(io::Error::other(format!("full at line {}", row.line)));
            }
            self.seen.lock().unwrap().push(format!("row {}", row.line));
            Ok(())
        }
        fn alert_row(&mut self, row: &ResultRow) -> io::Result<()> {
            self.seen
                .lock()
                .unwrap()
                .push(format!("alert {}", row.line));
            Ok(())
        }
        fn finish(self: Box<Self>) -> io::Result<()> {
            self.seen.lock().unwrap().push("finished".into());
            Ok(())
        }
    }

    fn noting(fail_at: Option<u64>) -> (SendFormat, Arc<Mutex<Vec<String>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let format = Noting {
            seen: Arc::clone(&seen),
            fail_at,
        };
        (Box::new(format), seen)
    }

    /// More rows than a batch holds, then alert rows: every format gets all of them, in
    /// order, and comes back ready to finish (finishing is the caller's).
    #[test]
    fn every_format_gets_every_row_in_order_then_the_alert_rows() {
        let (a, seen_a) = noting(None);
        let (b, seen_b) = noting(None);
        let ready = std::thread::scope(|scope| {
            let mut writers = Writers::start(scope, vec![a, b]);
            (2..=600).for_each(|line| writers.row(ResultRow::example(line)));
            [7, 3]
                .into_iter()
                .for_each(|line| writers.alert_row(ResultRow::example(line)));
            writers.end()
        })
        .unwrap();
        assert_eq!(ready.len(), 2);
        let mut expected: Vec<String> = (2..=600).map(|l| format!("row {l}")).collect();
        expected.extend(["alert 7".to_string(), "alert 3".to_string()]);
        assert_eq!(*seen_a.lock().unwrap(), expected);
        assert_eq!(*seen_b.lock().unwrap(), expected);
    }

    /// One format failing midway fails them all: none comes back to be finished, so every
    /// file stays as it was, and the error is the failing format's.
    #[test]
    fn one_format_failing_leaves_every_file_unfinished() {
        let (a, seen_a) = noting(None);
        let (b, seen_b) = noting(Some(300));
        let ended = std::thread::scope(|scope| {
            let mut writers = Writers::start(scope, vec![a, b]);
            (2..=2000).for_each(|line| writers.row(ResultRow::example(line)));
            writers.end()
        });
        let Err(e) = ended else {
            panic!("a failed format must fail the end")
        };
        assert_eq!(e.to_string(), "full at line 300");
        assert_eq!(
            seen_a.lock().unwrap().len(),
            1999,
            "the other format took every row"
        );
        assert_eq!(seen_b.lock().unwrap().last().unwrap(), "row 299");
    }

    /// A reader that gives up (a database error) drops the writers: the threads end (the
    /// scope would wait forever otherwise) with what they took, in order.
    #[test]
    fn writers_dropped_before_the_end_let_their_threads_end() {
        let (a, seen_a) = noting(None);
        std::thread::scope(|scope| {
            let mut writers = Writers::start(scope, vec![a]);
            (2..=1000).for_each(|line| writers.row(ResultRow::example(line)));
            drop(writers);
        });
        let seen = seen_a.lock().unwrap();
        let taken: Vec<String> = (2..).take(seen.len()).map(|l| format!("row {l}")).collect();
        assert_eq!(*seen, taken);
    }
}
