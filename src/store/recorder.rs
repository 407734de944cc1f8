//! The handle a screening run records through: it owns the run's [`Writer`], the lock
//! around it, the ticker that commits it and the blocking thread the commit runs on. The
//! pipeline only sends records and asks questions.
//!
//! Records are applied at once; a commit takes the connection away to a blocking thread
//! while it writes pages (tens of milliseconds; a long first run's commit also copies its
//! transaction into the database file) and, giving a decision beside the run its turn,
//! until that is written, so that the answers arriving meanwhile are not left
//! unread. While it is away, records queue (the writer keeps them) and questions wait for
//! it to come home.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::sql::StoreError;
use super::writer::{Gone, Record, Writer};
use crate::lock;
use crate::model::{CachedResolution, RefreshAges};

/// How often the open transaction is checked for committing.
const COMMIT_TICK: Duration = Duration::from_millis(100);

/// A run's recording, shared by the pipeline's tasks.
pub struct Recorder {
    writer: Mutex<Writer>,
    /// Wakes the questions waiting while the connection is away committing.
    home: Notify,
    /// Why recording stopped, once it did (a failed commit); taken by the first to ask.
    failed: Mutex<Option<StoreError>>,
    broken: AtomicBool,
    stop: Notify,
    stopping: AtomicBool,
    ticker: Mutex<Option<JoinHandle<()>>>,
}

impl Recorder {
    /// Starts recording with `writer`, committing on a timer.
    ///
    /// # Panics
    /// Outside a current-thread tokio runtime. The writer is called directly by the row
    /// tasks, under a lock that is never held across an await: cheap on one thread, where
    /// a handoff to a writer thread costs more than the SQL it carries, but contended on
    /// many. The assertion makes a change of runtime a decision, not an accident.
    pub fn start(writer: Writer) -> Arc<Recorder> {
        assert_eq!(
            tokio::runtime::Handle::current().runtime_flavor(),
            tokio::runtime::RuntimeFlavor::CurrentThread,
            "a run records from one thread (see Recorder::start)"
        );
        let recorder = Arc::new(Recorder {
            writer: Mutex::new(writer),
            home: Notify::new(),
            failed: Mutex::new(None),
            broken: AtomicBool::new(false),
            stop: Notify::new(),
            stopping: AtomicBool::new(false),
            ticker: Mutex::new(None),
        });
        let ticking = recorder.clone();
        *lock(&recorder.ticker) = Some(tokio::spawn(async move { ticking.tick().await }));
        recorder
    }

    /// Writes a record in the open transaction (or queues it while a commit is away).
    pub fn send(&self, record: Record) -> Result<(), StoreError> {
        self.check()?;
        lock(&self.writer).send(record)
    }

    /// The cached answer to a search, if any (whatever its age).
    pub async fn cached_resolution(
        &self,
        key: &str,
        asked: Option<(&str, &str)>,
    ) -> Result<Option<CachedResolution>, StoreError> {
        self.at_home().await?.cached_resolution(key, asked)
    }

    /// Whether this run has already rated the company.
    pub async fn rated(&self, company: Uuid) -> Result<bool, StoreError> {
        self.at_home().await?.rated(company)
    }

    /// See [`Writer::reuse_rating`].
    pub async fn reuse_rating(
        &self,
        company: Uuid,
        ages: &RefreshAges,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.at_home().await?.reuse_rating(company, ages, now)
    }

    /// See [`Writer::gone`].
    pub async fn gone(&self, company: Uuid) -> Result<Option<Gone>, StoreError> {
        self.at_home().await?.gone(company)
    }

    /// See [`Writer::last_checked`].
    pub async fn last_checked(
        &self,
        key: Option<&str>,
        company: Option<Uuid>,
    ) -> Result<Option<i64>, StoreError> {
        self.at_home().await?.last_checked(key, company)
    }

    /// Stops the ticker (after a commit under way has come home) and commits what is
    /// left; returns how many records were written in all.
    pub async fn finish(self: Arc<Recorder>) -> Result<u64, StoreError> {
        self.stopping.store(true, Ordering::Release);
        self.stop.notify_one();
        let ticker = lock(&self.ticker).take();
        if let Some(ticker) = ticker
            && let Err(e) = ticker.await
            && e.is_panic()
        {
            std::panic::resume_unwind(e.into_panic());
        }
        self.check()?;
        let recorder = Arc::try_unwrap(self).map_err(|_| {
            StoreError::WriterGone("finished while the pipeline still held it".into())
        })?;
        recorder
            .writer
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .finish()
    }

    /// The writer, once its connection is home: waits while a commit is away.
    async fn at_home(&self) -> Result<MutexGuard<'_, Writer>, StoreError> {
        loop {
            let home = self.home.notified();
            tokio::pin!(home);
            // Registered before looking, so the return cannot slip between look and wait.
            home.as_mut().enable();
            self.check()?;
            {
                let writer = lock(&self.writer);
                if writer.is_home() {
                    return Ok(writer);
                }
            }
            home.await;
        }
    }

    /// The failure that stopped recording, if any: the first to ask gets it whole.
    fn check(&self) -> Result<(), StoreError> {
        if !self.broken.load(Ordering::Acquire) {
            return Ok(());
        }
        Err(lock(&self.failed)
            .take()
            .unwrap_or_else(|| StoreError::WriterGone("an earlier commit failed".into())))
    }

    /// Commits the open transaction once it is old enough, on a blocking thread, and
    /// hands the connection back; until asked to stop or a commit fails.
    async fn tick(&self) {
        let mut ticker = tokio::time::interval(COMMIT_TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !self.stopping.load(Ordering::Acquire) {
            tokio::select! {
                _ = ticker.tick() => {}
                _ = self.stop.notified() => return,
            }
            let Some(job) = lock(&self.writer).commit_job() else {
                continue;
            };
            // Not stopped while away: the connection must come home.
            let done = tokio::task::spawn_blocking(|| job.run()).await;
            let result = match done {
                Ok(done) => lock(&self.writer).committed(done),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => Err(StoreError::WriterGone(format!(
                    "its commit was stopped: {e}"
                ))),
            };
            if let Err(e) = result {
                *lock(&self.failed) = Some(e);
                self.broken.store(true, Ordering::Release);
                self.home.notify_waiters();
                return;
            }
            self.home.notify_waiters();
        }
    }
}
