//! The one gate every API call of a run goes through: a bound on requests in flight, a
//! pause shared by the whole client when the service says 429, the retry policy, the
//! call counts, and a stop when every further call would fail or must not be made: the key
//! or the product is refused, the service asks to wait longer than the run may (a spent
//! quota), the service has been silent too long (a circuit breaker), or the run is told to
//! stop ([`Limiter::stop`]: a signal, its time spent). A stop also ends the requests in
//! flight and the waits at once.
//!
//! "Should I retry?" is decided here and only here, from [`ApiError::is_transient`].

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::api::ApiError;
use crate::lock;

/// Wait after a 429 that names no Retry-After.
const DEFAULT_RATE_LIMIT_WAIT: Duration = Duration::from_secs(5);
/// How many 429s one call waits out before giving up.
const MAX_RATE_LIMIT_WAITS: u32 = 20;
/// A pause at least this long is logged as a warning: a cron mail then says why the run
/// is slow.
const LONG_PAUSE: Duration = Duration::from_secs(30);

/// Retry settings for passing failures (network, 5xx, 408).
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Further attempts after the first.
    pub retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The longest a retry waits, however many came before it.
    pub const MAX_DELAY: Duration = Duration::from_secs(10);
}

/// As the `--retries` and `--retry-delay-ms` flags define it.
impl Default for RetryPolicy {
    fn default() -> Self {
        Limits::default().retry
    }
}

/// Bounds of a run's calls.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Requests per second at most, if set: a known quota is never hit.
    pub max_rps: Option<f64>,
    /// Requests in this run at most, retries included (a paid quota is real money).
    pub max_calls: Option<u64>,
    /// The month's budget (`--max-calls-per-month`) when what it has left is what set
    /// `max_calls`: the calls refused then say so.
    pub month_budget: Option<u64>,
    /// Longest wait for the service's rate limit, in one pause or in all of the run's.
    pub max_wait: Duration,
    /// Longest the service may stay silent while calls are made (see
    /// [`Limiter::silent_for`]).
    pub max_silence: Duration,
    pub retry: RetryPolicy,
}

/// The gate. Shared by every task of a run.
pub struct Limiter {
    permits: Semaphore,
    /// Until one call has been answered, calls go one at a time: a refused key then
    /// costs exactly one call, not one per task in flight.
    first: tokio::sync::Mutex<()>,
    answered: std::sync::atomic::AtomicBool,
    paused_until: Mutex<Option<Instant>>,
    /// Time spent paused by the service's rate limit so far.
    waited: Mutex<Duration>,
    max_wait: Duration,
    calls: Mutex<BTreeMap<&'static str, u64>>,
    /// Why no further call is made, once one is known (see [`ApiError::stops_calls`]).
    stopped: OnceLock<ApiError>,
    /// Turns true when calls stop: requests in flight and waits give up.
    halt: tokio::sync::watch::Sender<bool>,
    /// Since when calls have been made with no answer at all (timeouts, connections
    /// refused or dropped); `None` once the service answers anything.
    silent_since: Mutex<Option<Instant>>,
    /// Calls under way (a request, its retries and their waits), and since when none has
    /// been: time with nothing asked is no silence of the service's.
    in_flight: std::sync::atomic::AtomicUsize,
    idle_since: Mutex<Option<Instant>>,
    /// Requests sent, answered or not, and whether any got an answer.
    attempts: AtomicU64,
    heard_any: std::sync::atomic::AtomicBool,
    max_silence: Duration,
    policy: RetryPolicy,
    jitter: AtomicU64,
    /// When the next request may leave, under `max_rps`, and the spacing between two.
    pace: Option<(Mutex<Instant>, Duration)>,
    budget: Option<u64>,
    month_budget: Option<u64>,
    spent: AtomicU64,
}

impl Limiter {
    pub fn new(limits: Limits) -> Self {
        let pace = limits
            .max_rps
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| (Mutex::new(Instant::now()), Duration::from_secs_f64(1.0 / r)));
        Limiter {
            pace,
            budget: limits.max_calls,
            month_budget: limits.month_budget,
            spent: AtomicU64::new(0),
            permits: Semaphore::new(limits.concurrency.max(1)),
            first: tokio::sync::Mutex::new(()),
            answered: std::sync::atomic::AtomicBool::new(false),
            paused_until: Mutex::new(None),
            waited: Mutex::new(Duration::ZERO),
            max_wait: limits.max_wait,
            calls: Mutex::new(BTreeMap::new()),
            stopped: OnceLock::new(),
            halt: tokio::sync::watch::channel(false).0,
            silent_since: Mutex::new(None),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            idle_since: Mutex::new(None),
            attempts: AtomicU64::new(0),
            heard_any: std::sync::atomic::AtomicBool::new(false),
            max_silence: limits.max_silence,
            policy: limits.retry,
            jitter: AtomicU64::new(0x2545_f491_4f6c_dd1d),
        }
    }

    /// Runs `call` (again, while it fails in a passing way) within the bound, counting
    /// every request under `endpoint`.
    pub async fn call<T, F, Fut>(&self, endpoint: &'static str, call: F) -> Result<T, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        self.run(endpoint, true, call).await
    }

    /// As [`Limiter::call`], for endpoints that may answer without checking the key (the
    /// lookups): their success proves nothing about the key.
    pub async fn call_keyless<T, F, Fut>(
        &self,
        endpoint: &'static str,
        call: F,
    ) -> Result<T, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        self.run(endpoint, false, call).await
    }

    async fn run<T, F, Fut>(
        &self,
        endpoint: &'static str,
        checks_key: bool,
        mut call: F,
    ) -> Result<T, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let (mut failures, mut waits) = (0u32, 0u32);
        // From here to the answer, retries and their waits included, the run is waiting on
        // the service: that time may count as its silence.
        let _busy = self.busy();
        loop {
            if let Some(e) = self.stopped.get() {
                return Err(e.clone());
            }
            self.until_halted(self.wait_for_pause()).await?;
            let result = {
                let _probe = if !checks_key || self.answered.load(Ordering::Acquire) {
                    None
                } else {
                    // Queued behind the first call: once it is answered, go on at once.
                    let guard = self.first.lock().await;
                    (!self.answered.load(Ordering::Acquire)).then_some(guard)
                };
                let _permit = self.permits.acquire().await.expect("never closed");
                // The pause may have begun while this task queued for a permit.
                self.until_halted(self.wait_for_pause()).await?;
                if let Some(e) = self.stopped.get() {
                    return Err(e.clone());
                }
                if let Some(limit) = self.budget
                    && self.spent.fetch_add(1, Ordering::Relaxed) >= limit
                {
                    return Err(ApiError::CallBudget {
                        limit,
                        month: self.month_budget,
                    });
                }
                self.until_halted(self.wait_for_slot()).await?;
                self.sending();
                let result = self.until_halted(call()).await?;
                self.heard(endpoint, &result);
                if checks_key
                    && !matches!(
                        result,
                        Err(ApiError::Unauthenticated { .. }
                            | ApiError::Forbidden { .. }
                            | ApiError::Transport { .. })
                    )
                {
                    self.answered.store(true, Ordering::Release);
                }
                result
            };
            let error = match result {
                Ok(v) => {
                    // The permit is free again and a waiter has been woken; step aside so
                    // that it sends its request before this answer is processed (the caller
                    // stores it next). On the single screening thread, taking answers first
                    // left the permit idle behind every answer of a burst. (A failure is
                    // dealt with first: a refusal or a pause must be in place before anyone
                    // else calls.)
                    tokio::task::yield_now().await;
                    return Ok(v);
                }
                Err(e) => e,
            };
            match &error {
                e if e.stops_calls() => {
                    self.stop(error.clone());
                    return Err(self.stopped.get().cloned().unwrap_or(error));
                }
                ApiError::Transport { .. } if self.check_silence() => {
                    return Err(self.stopped.get().cloned().unwrap_or(error));
                }
                ApiError::RateLimited { retry_after } if waits < MAX_RATE_LIMIT_WAITS => {
                    waits += 1;
                    let wait = retry_after.unwrap_or(DEFAULT_RATE_LIMIT_WAIT);
                    self.pause_for(wait)?;
                }
                e if e.is_transient() && failures < self.policy.retries => {
                    let delay = self.backoff(failures);
                    failures += 1;
                    tracing::debug!(error = %e, ?delay, attempt = failures, "retrying");
                    self.until_halted(tokio::time::sleep(delay)).await?;
                }
                _ => return Err(error),
            }
        }
    }

    /// Requests made so far, by endpoint.
    pub fn calls(&self) -> Vec<(String, u64)> {
        lock(&self.calls)
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect()
    }

    /// Why calls stopped, if they did: a refused key or product, a spent quota, a silent
    /// service, or a stop asked for.
    pub fn stopped(&self) -> Option<&ApiError> {
        self.stopped.get()
    }

    /// Stops every further call, and the requests in flight and waits at once, for `why`
    /// (the first reason given stays).
    pub fn stop(&self, why: ApiError) {
        let _ = self.stopped.set(why);
        self.halt.send_replace(true);
    }

    /// Runs `work` unless calls stop first: then the reason they stopped.
    async fn until_halted<T>(&self, work: impl Future<Output = T>) -> Result<T, ApiError> {
        let mut halt = self.halt.subscribe();
        tokio::select! {
            done = work => Ok(done),
            _ = halt.wait_for(|halted| *halted) => Err(self
                .stopped
                .get()
                .cloned()
                .unwrap_or_else(|| ApiError::Halted { why: "the run stopped".into() })),
        }
    }

    /// A call begins: it counts as waiting on the service until what is returned is
    /// dropped. Time with no call at all (the run's own work) is taken out of the silence.
    fn busy(&self) -> InFlight<'_> {
        let idle = lock(&self.idle_since).take();
        if let Some(idle) = idle
            && self.in_flight.load(Ordering::Acquire) == 0
        {
            let mut since = lock(&self.silent_since);
            if let Some(silent) = since.as_mut() {
                *silent += Instant::now().saturating_duration_since(idle);
            }
        }
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(self)
    }

    /// A request leaves: if the service has been silent, the silence goes on; else it
    /// may begin now.
    fn sending(&self) {
        self.attempts.fetch_add(1, Ordering::Relaxed);
        let mut since = lock(&self.silent_since);
        since.get_or_insert_with(Instant::now);
    }

    /// An answer of any kind (an error included) ends the silence and counts as a call
    /// spent. A request that never got one (refused, reset, timed out) does neither: it
    /// is not counted, and gives its place in the call budget back.
    fn heard<T>(&self, endpoint: &'static str, result: &Result<T, ApiError>) {
        if matches!(result, Err(ApiError::Transport { .. })) {
            if self.budget.is_some() {
                self.spent.fetch_sub(1, Ordering::Relaxed);
            }
            return;
        }
        self.count(endpoint);
        self.heard_any.store(true, Ordering::Release);
        *lock(&self.silent_since) = None;
    }

    /// Whether requests were sent and not one got an answer of any kind: the service was
    /// unreachable for the whole run.
    pub fn never_reached(&self) -> bool {
        self.attempts.load(Ordering::Relaxed) > 0 && !self.heard_any.load(Ordering::Acquire)
    }

    /// How long calls have been made without any answer, if they have.
    pub fn silent_for(&self) -> Option<Duration> {
        lock(&self.silent_since).map(|since| since.elapsed())
    }

    /// The circuit breaker, for requests still waiting: see [`Limiter::check_silence`].
    /// Between calls (the run's own work) nothing is waiting, and nothing trips.
    pub fn check_waiting(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0 && self.check_silence()
    }

    /// The circuit breaker: once the service has been silent for `max_silence`, calls
    /// stop (the rows left are not screened, and the next run resumes them). Whether
    /// they did.
    fn check_silence(&self) -> bool {
        match self.silent_for() {
            Some(silent) if silent >= self.max_silence => {
                tracing::warn!(
                    ?silent,
                    "the service has not answered for longer than --max-silence: calls stop"
                );
                self.stop(ApiError::Halted {
                    why: format!(
                        "service not answering (no answer for {} s: timeouts or refused connections; --max-silence)",
                        silent.as_secs()
                    ),
                });
                true
            }
            _ => false,
        }
    }

    /// Whether the call budget refused a call (or a retry) of the run.
    pub fn budget_reached(&self) -> bool {
        self.budget
            .is_some_and(|limit| self.spent.load(Ordering::Relaxed) > limit)
    }

    /// Time the run spent paused by the service's rate limit.
    pub fn waited(&self) -> Duration {
        *lock(&self.waited)
    }

    fn count(&self, endpoint: &'static str) {
        *lock(&self.calls).entry(endpoint).or_insert(0) += 1;
    }

    /// Pauses every caller for `wait`, unless that takes the run's waiting past
    /// `max_wait`: then calls stop, with the time the service named.
    fn pause_for(&self, wait: Duration) -> Result<(), ApiError> {
        let now = Instant::now();
        let until = now + wait;
        let mut paused = lock(&self.paused_until);
        // Only the part beyond a pause already under way is more waiting.
        let added = until.saturating_duration_since(paused.map_or(now, |p| p.max(now)));
        let mut waited = lock(&self.waited);
        if wait > self.max_wait || *waited + added > self.max_wait {
            let until = jiff::Timestamp::now()
                .checked_add(
                    jiff::SignedDuration::try_from(wait).unwrap_or(jiff::SignedDuration::MAX),
                )
                .unwrap_or(jiff::Timestamp::MAX);
            let spent = ApiError::QuotaSpent {
                until: until.round(jiff::Unit::Second).unwrap_or(until),
            };
            self.stop(spent);
            tracing::warn!(
                ?wait,
                waited = ?*waited,
                max_wait = ?self.max_wait,
                "the service asks to wait longer than --max-wait allows: the run stops"
            );
            return Err(self.stopped.get().cloned().expect("just set"));
        }
        *waited += added;
        if paused.is_none_or(|p| p < until) {
            *paused = Some(until);
        }
        if wait >= LONG_PAUSE {
            tracing::warn!(?wait, "rate limited by the service: pausing every request");
        } else {
            tracing::info!(?wait, "rate limited: pausing every request");
        }
        Ok(())
    }

    /// Spaces requests `1/max_rps` apart.
    async fn wait_for_slot(&self) {
        let Some((next, spacing)) = &self.pace else {
            return;
        };
        let slot = {
            let mut next = lock(next);
            let slot = (*next).max(Instant::now());
            *next = slot + *spacing;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }

    async fn wait_for_pause(&self) {
        loop {
            let until = *lock(&self.paused_until);
            match until {
                Some(t) if t > Instant::now() => {
                    // Each waiter wakes a little apart so the end of a pause is no stampede.
                    let spread = Duration::from_millis(self.random() % 250);
                    tokio::time::sleep_until(t + spread).await;
                }
                _ => return,
            }
        }
    }

    /// Exponential backoff with jitter: half to all of base·2ⁿ, capped.
    fn backoff(&self, attempt: u32) -> Duration {
        let full = self
            .policy
            .base_delay
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.policy.max_delay);
        let fraction = 0.5 + (self.random() % 1000) as f64 / 2000.0;
        full.mul_f64(fraction)
    }

    fn random(&self) -> u64 {
        let mut x = self
            .jitter
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^ (x >> 33)
    }
}

/// A request in flight, counted until dropped (answered, failed or given up on).
struct InFlight<'a>(&'a Limiter);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            *lock(&self.0.idle_since) = Some(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn quick() -> RetryPolicy {
        RetryPolicy {
            retries: 2,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        }
    }

    /// Two calls at a time, retried quickly.
    fn retrying() -> Limiter {
        Limiter::new(Limits {
            concurrency: 2,
            retry: quick(),
            ..Limits::default()
        })
    }

    /// A call of `x` that fails with `error` each time it is made: how it ended, and how
    /// many times it was made.
    async fn failing(limiter: &Limiter, error: ApiError) -> (Result<(), ApiError>, u32) {
        let tries = AtomicU32::new(0);
        let r = limiter
            .call("x", || async {
                tries.fetch_add(1, Ordering::SeqCst);
                Err(error.clone())
            })
            .await;
        (r, tries.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn passing_failures_are_retried_then_given_up() {
        let limiter = retrying();
        let (r, tries) = failing(
            &limiter,
            ApiError::Server {
                status: 503,
                snippet: String::new(),
            },
        )
        .await;
        assert!(r.is_err());
        assert_eq!(tries, 3);
        assert_eq!(limiter.calls(), vec![("x".to_string(), 3)]);
    }

    #[tokio::test]
    async fn lasting_failures_are_not_retried_and_a_refused_key_stops_everything() {
        let limiter = retrying();
        let not_found = ApiError::NotFound {
            what: String::new(),
        };
        assert_eq!(failing(&limiter, not_found).await.1, 1);
        let refused = ApiError::Unauthenticated {
            status: 401,
            message: String::new(),
        };
        assert_eq!(failing(&limiter, refused).await.1, 1);
        let r: Result<u8, _> = limiter.call("y", || async { Ok(1) }).await;
        assert!(matches!(r, Err(ApiError::Unauthenticated { .. })));
        assert_eq!(
            limiter.calls(),
            vec![("x".to_string(), 2)],
            "no call after the refusal"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_pauses_every_caller_for_retry_after() {
        let limiter = std::sync::Arc::new(Limiter::new(Limits {
            concurrency: 4,
            retry: quick(),
            ..Limits::default()
        }));
        let started = Instant::now();
        let first = AtomicU32::new(0);
        let r = limiter
            .call("x", || async {
                if first.fetch_add(1, Ordering::SeqCst) == 0 {
                    Err(ApiError::RateLimited {
                        retry_after: Some(Duration::from_secs(3)),
                    })
                } else {
                    Ok(())
                }
            })
            .await;
        assert!(r.is_ok());
        assert!(started.elapsed() >= Duration::from_secs(3));
        // Another caller arriving during a pause waits for it too.
        limiter.pause_for(Duration::from_secs(2)).unwrap();
        let t = Instant::now();
        limiter
            .call("y", || async { Ok::<_, ApiError>(()) })
            .await
            .unwrap();
        assert!(t.elapsed() >= Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn only_the_first_call_waits_for_the_key_to_be_answered() {
        let limiter = Limiter::new(Limits {
            concurrency: 16,
            ..Limits::default()
        });
        let t = Instant::now();
        let calls = (0..16).map(|_| {
            limiter.call("x", || async {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok::<_, ApiError>(())
            })
        });
        futures::future::join_all(calls).await;
        assert!(
            t.elapsed() < Duration::from_millis(2_100),
            "{:?}",
            t.elapsed()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn max_rps_spaces_requests() {
        let limiter = Limiter::new(Limits {
            concurrency: 8,
            max_rps: Some(10.0),
            ..Limits::default()
        });
        let t = Instant::now();
        let calls = (0..21).map(|_| limiter.call("x", || async { Ok::<_, ApiError>(()) }));
        futures::future::join_all(calls).await;
        let took = t.elapsed();
        assert!(
            took >= Duration::from_secs(2) && took < Duration::from_millis(2_100),
            "{took:?}"
        );
    }

    #[tokio::test]
    async fn a_freed_permit_is_taken_up_before_the_answer_is_processed() {
        let limiter = std::sync::Arc::new(Limiter::new(Limits {
            concurrency: 1,
            ..Limits::default()
        }));
        // Answered once so that calls no longer queue behind the key check.
        limiter
            .call("x", || async { Ok::<_, ApiError>(()) })
            .await
            .unwrap();
        let order = std::sync::Arc::new(Mutex::new(Vec::new()));
        let answer = std::sync::Arc::new(tokio::sync::Notify::new());
        let (a, b) = (limiter.clone(), limiter.clone());
        let (order_a, order_b, answer_a) = (order.clone(), order.clone(), answer.clone());
        // The first call holds the only permit until it is answered ...
        let first = tokio::spawn(async move {
            a.call("x", || async {
                answer_a.notified().await;
                Ok::<_, ApiError>(())
            })
            .await
            .unwrap();
            order_a.lock().unwrap().push("first answer processed");
        });
        tokio::task::yield_now().await;
        // ... while the second waits for it.
        let second = tokio::spawn(async move {
            b.call("x", || async {
                order_b.lock().unwrap().push("second request sent");
                Ok::<_, ApiError>(())
            })
            .await
            .unwrap();
        });
        tokio::task::yield_now().await;
        assert_eq!(limiter.permits.available_permits(), 0);
        answer.notify_one();
        first.await.unwrap();
        second.await.unwrap();
        assert_eq!(
            *order.lock().unwrap(),
            ["second request sent", "first answer processed"]
        );
    }

    #[tokio::test]
    async fn the_call_budget_is_never_exceeded() {
        let limiter = Limiter::new(Limits {
            max_calls: Some(3),
            ..Limits::default()
        });
        let mut results = Vec::new();
        for _ in 0..5 {
            results.push(limiter.call("x", || async { Ok::<_, ApiError>(()) }).await);
        }
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 3);
        assert!(matches!(
            results[4],
            Err(ApiError::CallBudget {
                limit: 3,
                month: None
            })
        ));
        assert_eq!(limiter.calls(), vec![("x".to_string(), 3)]);
        assert!(limiter.budget_reached());
    }

    #[tokio::test]
    async fn a_spent_month_makes_no_call_and_says_which_budget_refused() {
        let limiter = Limiter::new(Limits {
            max_calls: Some(0),
            month_budget: Some(500),
            ..Limits::default()
        });
        assert!(!limiter.budget_reached());
        let made = AtomicU64::new(0);
        let refused = limiter
            .call("x", || async {
                made.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ApiError>(())
            })
            .await
            .unwrap_err();
        assert_eq!(made.load(Ordering::Relaxed), 0, "no call is made");
        assert!(limiter.budget_reached());
        assert!(limiter.calls().is_empty());
        let text = refused.to_string();
        assert!(
            text.starts_with(
                "not screened: call budget reached (--max-calls-per-month 500: 0 left"
            ),
            "{text}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_retry_after_longer_than_max_wait_stops_every_call_at_once() {
        let limiter = Limiter::new(Limits {
            max_wait: Duration::from_secs(600),
            ..Limits::default()
        });
        let t = Instant::now();
        let r: Result<(), _> = limiter
            .call("x", || async {
                Err(ApiError::RateLimited {
                    retry_after: Some(Duration::from_secs(86_400)),
                })
            })
            .await;
        let until = match r {
            Err(ApiError::QuotaSpent { until }) => until,
            other => panic!("{other:?}"),
        };
        assert!(t.elapsed() < Duration::from_secs(1), "no waiting");
        let tomorrow = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24);
        assert!(until.duration_until(tomorrow).abs() < jiff::SignedDuration::from_secs(5));
        let tries = AtomicU32::new(0);
        let r: Result<(), _> = limiter
            .call("y", || async {
                tries.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .await;
        assert!(matches!(r, Err(ApiError::QuotaSpent { .. })));
        assert_eq!(tries.load(Ordering::SeqCst), 0, "no call after the stop");
        assert_eq!(limiter.calls(), vec![("x".to_string(), 1)]);
    }

    #[tokio::test(start_paused = true)]
    async fn short_pauses_add_up_to_max_wait_then_the_run_stops() {
        let limiter = Limiter::new(Limits {
            max_wait: Duration::from_secs(25),
            ..Limits::default()
        });
        let (r, calls) = failing(
            &limiter,
            ApiError::RateLimited {
                retry_after: Some(Duration::from_secs(10)),
            },
        )
        .await;
        assert!(matches!(r, Err(ApiError::QuotaSpent { .. })), "{r:?}");
        // Two pauses of 10 s fit in 25 s; the third would not.
        assert_eq!(calls, 3);
        assert_eq!(limiter.waited(), Duration::from_secs(20));
    }

    #[tokio::test]
    async fn a_refused_product_stops_calls_like_a_refused_key() {
        let limiter = Limiter::new(Limits::default());
        let r: Result<(), _> = limiter
            .call("x", || async {
                Err(ApiError::Forbidden {
                    message: "not enabled".into(),
                })
            })
            .await;
        assert!(matches!(r, Err(ApiError::Forbidden { .. })));
        let r: Result<u8, _> = limiter.call("y", || async { Ok(1) }).await;
        assert!(matches!(r, Err(ApiError::Forbidden { .. })));
        assert!(limiter.stopped().is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn a_service_silent_past_max_silence_stops_the_calls_in_flight_and_after() {
        let limiter = Limiter::new(Limits {
            max_silence: Duration::from_secs(60),
            ..Limits::default()
        });
        let hung = limiter.call_keyless("rating", std::future::pending::<Result<(), ApiError>>);
        let watch = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            assert!(
                !limiter.check_waiting(),
                "30 s of silence is not yet a minute"
            );
            tokio::time::sleep(Duration::from_secs(31)).await;
            assert!(limiter.check_waiting(), "past a minute, calls stop");
        };
        let (hung, ()) = tokio::join!(hung, watch);
        let why = |r: Result<(), ApiError>| match r {
            Err(ApiError::Halted { why }) => why,
            other => panic!("{other:?}"),
        };
        assert!(why(hung).starts_with("service not answering (no answer for 61 s"));
        let mut sent = false;
        let later = limiter
            .call("rating", || {
                sent = true;
                async { Ok(()) }
            })
            .await;
        assert!(why(later).starts_with("service not answering"));
        assert!(!sent, "no call once stopped");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_ends_the_silence_and_idle_time_is_no_silence() {
        let limiter = Limiter::new(Limits {
            max_silence: Duration::from_secs(60),
            retry: RetryPolicy {
                retries: 0,
                ..RetryPolicy::default()
            },
            ..Limits::default()
        });
        let timeout = || async {
            tokio::time::sleep(Duration::from_secs(50)).await;
            Err::<(), _>(ApiError::Transport {
                message: "timed out".into(),
                timeout: true,
            })
        };
        assert!(limiter.call_keyless("rating", timeout).await.is_err());
        // A server error is an answer: the service is there.
        let answered = limiter
            .call_keyless("rating", || async {
                Err::<(), _>(ApiError::Server {
                    status: 503,
                    snippet: String::new(),
                })
            })
            .await;
        assert!(matches!(answered, Err(ApiError::Server { .. })));
        assert_eq!(limiter.silent_for(), None);
        assert!(limiter.call_keyless("rating", timeout).await.is_err());
        // Nothing waits now: however long the run's own work lasts, nothing trips, and
        // that time is not the service's silence.
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!limiter.check_waiting());
        assert!(limiter.stopped().is_none());
        let short = || async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Err::<(), _>(ApiError::Transport {
                message: "connection refused".into(),
                timeout: false,
            })
        };
        let failed = limiter.call_keyless("rating", short).await;
        assert!(
            matches!(failed, Err(ApiError::Transport { .. })),
            "{failed:?}"
        );
        // 50 s and 5 s of silence, then 10 more: past the minute, calls stop.
        let stopped = limiter.call_keyless("rating", timeout).await;
        assert!(
            matches!(stopped, Err(ApiError::Halted { .. })),
            "{stopped:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn refused_connections_retried_trip_the_breaker_and_are_not_counted_as_calls() {
        let limiter = Limiter::new(Limits {
            max_silence: Duration::from_secs(60),
            max_calls: Some(10),
            retry: RetryPolicy {
                retries: 1_000,
                base_delay: Duration::from_secs(1),
                max_delay: Duration::from_secs(10),
            },
            ..Limits::default()
        });
        let refused = || async {
            Err::<(), _>(ApiError::Transport {
                message: "connection refused".into(),
                timeout: false,
            })
        };
        let begun = Instant::now();
        let r = limiter.call("rating", refused).await;
        assert!(matches!(r, Err(ApiError::Halted { .. })), "{r:?}");
        let took = begun.elapsed();
        assert!(
            took >= Duration::from_secs(60) && took < Duration::from_secs(80),
            "a minute of refusals, backoff included: {took:?}"
        );
        assert!(limiter.never_reached());
        assert_eq!(limiter.calls(), vec![], "no answer, no call spent");
        assert!(!limiter.budget_reached(), "nor any of the budget");
    }
}
