//! Wrong tokens counted per client: after [`Limits::wrong_tokens`] within
//! [`Limits::wrong_token_window`], the client may try no token (right or wrong, by the login
//! form or `Authorization: Bearer`) until the window ends, and is answered 429 with
//! `Retry-After`. Other clients are not concerned, and a session cookie already given
//! still works.
//!
//! The table holds at most [`CLIENTS_AT_MOST`] clients: when full, the clients whose window
//! has ended go, then the one counted longest ago.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::Limits;
use super::connections::Client;

/// Clients whose wrong tokens are remembered at once.
pub const CLIENTS_AT_MOST: usize = 10_000;

/// The wrong tokens of each client, within its window.
#[derive(Debug)]
pub struct Throttle {
    tries: u32,
    window: Duration,
    most: usize,
    failures: Mutex<HashMap<Client, Failures>>,
}

/// A client's wrong tokens since `first`.
#[derive(Debug, Clone, Copy)]
struct Failures {
    first: Instant,
    count: u32,
}

impl Throttle {
    pub fn new(limits: &Limits) -> Throttle {
        Throttle::holding(limits, CLIENTS_AT_MOST)
    }

    fn holding(limits: &Limits, most: usize) -> Throttle {
        Throttle {
            tries: limits.wrong_tokens,
            window: limits.wrong_token_window,
            most,
            failures: Mutex::default(),
        }
    }

    fn failures(&self) -> std::sync::MutexGuard<'_, HashMap<Client, Failures>> {
        self.failures.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How long `client` must wait before it may try a token again; `None` when it may now.
    pub fn wait(&self, client: Client, now: Instant) -> Option<Duration> {
        let failures = self.failures();
        let counted = failures.get(&client)?;
        let elapsed = now.saturating_duration_since(counted.first);
        (counted.count >= self.tries && elapsed < self.window).then(|| self.window - elapsed)
    }

    /// A wrong token from `client`.
    pub fn failed(&self, client: Client, now: Instant) {
        let mut failures = self.failures();
        if failures.len() >= self.most && !failures.contains_key(&client) {
            let window = self.window;
            failures.retain(|_, f| now.saturating_duration_since(f.first) < window);
            if failures.len() >= self.most
                && let Some(oldest) = failures
                    .iter()
                    .min_by_key(|(_, f)| f.first)
                    .map(|(c, _)| *c)
            {
                failures.remove(&oldest);
            }
        }
        let counted = failures.entry(client).or_insert(Failures {
            first: now,
            count: 0,
        });
        if now.saturating_duration_since(counted.first) >= self.window {
            *counted = Failures {
                first: now,
                count: 0,
            };
        }
        counted.count += 1;
    }

    /// The right token from `client`: its earlier mistakes are forgotten.
    pub fn succeeded(&self, client: Client) {
        self.failures().remove(&client);
    }
}

/// Whole seconds to wait, as `Retry-After` says them: rounded up, at least one.
pub fn retry_after(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            wrong_tokens: 5,
            wrong_token_window: Duration::from_secs(60),
            ..Limits::default()
        }
    }

    fn client(n: u32) -> Client {
        Client::of(std::net::Ipv4Addr::from_bits(0x0a00_0000 + n).into())
    }

    #[test]
    fn the_sixth_wrong_token_within_the_window_waits_for_its_end() {
        let throttle = Throttle::new(&limits());
        let start = Instant::now();
        for i in 0..5 {
            assert_eq!(throttle.wait(client(1), start), None, "try {}", i + 1);
            throttle.failed(client(1), start + Duration::from_secs(i));
        }
        let later = start + Duration::from_secs(20);
        assert_eq!(
            throttle.wait(client(1), later),
            Some(Duration::from_secs(40))
        );
        assert_eq!(throttle.wait(client(2), later), None, "another client");
        let after = start + Duration::from_secs(60);
        assert_eq!(throttle.wait(client(1), after), None, "the window ended");
        // A new window starts with the next mistake.
        throttle.failed(client(1), after);
        assert_eq!(throttle.wait(client(1), after), None);
    }

    #[test]
    fn the_right_token_forgets_the_mistakes() {
        let throttle = Throttle::new(&limits());
        let now = Instant::now();
        for _ in 0..4 {
            throttle.failed(client(1), now);
        }
        throttle.succeeded(client(1));
        throttle.failed(client(1), now);
        assert_eq!(throttle.wait(client(1), now), None);
    }

    #[test]
    fn the_table_never_holds_more_than_its_clients() {
        let throttle = Throttle::holding(&limits(), 3);
        let start = Instant::now();
        for _ in 0..5 {
            throttle.failed(client(1), start);
        }
        for n in 2..=100 {
            throttle.failed(client(n), start + Duration::from_secs(1));
            assert!(throttle.failures().len() <= 3);
        }
        // The client counted longest ago went first.
        assert_eq!(throttle.wait(client(1), start), None);
        // Clients whose window ended go before any other.
        let later = start + Duration::from_secs(120);
        throttle.failed(client(200), later);
        assert_eq!(throttle.failures().len(), 1);
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up() {
        assert_eq!(retry_after(Duration::from_millis(40_001)), 41);
        assert_eq!(retry_after(Duration::from_secs(40)), 40);
        assert_eq!(retry_after(Duration::from_millis(1)), 1);
        assert_eq!(retry_after(Duration::ZERO), 1);
    }
}
