//! Each distinct search and each distinct company is asked once per run: rows needing an
//! answer that is on its way wait for it, and a failure is shared by the rows that waited
//! and kept, so that a later row with the same question fails the same way without a call.
//! Only work on its way is held (as small as the work in progress); an answer given is
//! found where it was written.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use crate::api::ApiError;
use crate::lock;
use crate::store::StoreError;

/// Why one search or rating failed, shared by every row that waited for it.
#[derive(Debug, Clone)]
pub(super) enum Failure {
    Api(ApiError),
    Store(Arc<StoreError>),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(Arc::new(e))
    }
}

type Shared<T> = Arc<OnceCell<Result<T, Failure>>>;

/// Work on its way, shared by the rows that need it, and the failures of the run.
pub(super) struct InFlight<K, T> {
    pending: Mutex<HashMap<K, Shared<T>>>,
    failed: Mutex<HashMap<K, ApiError>>,
}

impl<K: std::hash::Hash + Eq + Clone, T: Clone> InFlight<K, T> {
    pub(super) fn new() -> Self {
        InFlight {
            pending: Mutex::new(HashMap::new()),
            failed: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `work` for `key` unless it is on its way (then waits for it) or already failed
    /// in this run (then fails the same way without a call).
    pub(super) async fn once<F, Fut>(&self, key: K, work: F) -> Result<T, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<T, Failure>>,
    {
        if let Some(e) = lock(&self.failed).get(&key) {
            return Err(Failure::Api(e.clone()));
        }
        let (cell, owner) = {
            let mut pending = lock(&self.pending);
            match pending.get(&key) {
                Some(cell) => (cell.clone(), false),
                None => {
                    let cell: Shared<T> = Arc::new(OnceCell::new());
                    pending.insert(key.clone(), cell.clone());
                    (cell, true)
                }
            }
        };
        let result = cell.get_or_init(work).await.clone();
        if owner {
            // Only the owner ends the entry, once every record of the work was sent: a
            // later row asks the writer, which then knows the answer.
            if let Err(Failure::Api(e)) = &result {
                lock(&self.failed).insert(key.clone(), e.clone());
            }
            lock(&self.pending).remove(&key);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Two rows needing the work for `k` at once, both waiting before `answer` comes: what
    /// each got. The work is done once.
    async fn two_rows_at_once(
        inflight: &InFlight<&'static str, u32>,
        answer: Result<u32, Failure>,
    ) -> [Result<u32, Failure>; 2] {
        let runs = AtomicUsize::new(0);
        let gate = tokio::sync::Notify::new();
        let work = || async {
            runs.fetch_add(1, Ordering::SeqCst);
            gate.notified().await;
            answer.clone()
        };
        let (a, b, ()) = tokio::join!(inflight.once("k", work), inflight.once("k", work), async {
            tokio::task::yield_now().await;
            gate.notify_one();
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1, "done once");
        [a, b]
    }

    #[tokio::test]
    async fn work_on_its_way_is_done_once_for_every_row_that_needs_it() {
        let inflight: InFlight<&str, u32> = InFlight::new();
        let [a, b] = two_rows_at_once(&inflight, Ok(7)).await;
        assert_eq!((a.unwrap(), b.unwrap()), (7, 7));
        // Done and gone: a later row asks again (the writer knows the answer by then).
        assert_eq!(inflight.once("k", || async { Ok(8) }).await.unwrap(), 8);
    }

    #[tokio::test]
    async fn a_failure_is_shared_by_the_rows_that_waited_and_not_asked_again() {
        let inflight: InFlight<&str, u32> = InFlight::new();
        let busy = Failure::Api(ApiError::Server {
            status: 503,
            snippet: "busy".into(),
        });
        for r in two_rows_at_once(&inflight, Err(busy)).await {
            assert!(matches!(
                r,
                Err(Failure::Api(ApiError::Server { status: 503, .. }))
            ));
        }
        // A later row with the same search fails the same way, without a call.
        let later = inflight.once("k", || async { panic!("asked again") }).await;
        assert!(matches!(later, Err(Failure::Api(ApiError::Server { .. }))));
    }
}
