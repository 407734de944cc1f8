//! What each run handed to each delivery channel (`run_deliveries`): pending from just
//! before the first attempt until the channel took it. A message a channel never took (its
//! receiver down all night, or the process killed while sending) is sent again by the next
//! run of the portfolio, so news is never lost on the way; one taken is never sent again.
//!
//! Each message has a delivery id, recorded with it and sent with every attempt and every
//! resend: a receiver that took a message whose answer never came back (and so sees it
//! again) can drop the duplicate. The id is made by the caller; the ledger only keeps it.
//!
//! A channel is known here by its name alone (`webhook`, `email`, …): the ledger keeps the
//! messages of a channel added later as it keeps these.

use jiff::Timestamp;
use rusqlite::params;

use super::database::Store;
use super::sql::{StoreError, now_text};
use crate::model::time_text;

/// How many earlier messages a run sends again, at most, per channel: a receiver down for
/// a fortnight gets the last week, not a flood.
pub const RESENT_AT_MOST: usize = 7;

/// How many days back a run looks for earlier messages to send again: a run older than
/// that whose message was never taken is given up on.
pub const RESENT_WITHIN_DAYS: i64 = 7;

impl Store {
    /// Records the run's message to `channel` as pending under `delivery_id`, before its
    /// first attempt: a process killed while sending leaves it so, and the next run sends
    /// it. A run resumed after an earlier end already recorded a message: this is a new one,
    /// pending under its new id, whatever became of the old.
    pub fn delivery_pending(
        &mut self,
        run_id: i64,
        channel: &str,
        delivery_id: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO run_deliveries (run_id, channel, delivery_id) VALUES (?1, ?2, ?3)
                 ON CONFLICT (run_id, channel) DO UPDATE SET
                     delivery_id  = excluded.delivery_id,
                     delivered_at = NULL",
                params![run_id, channel, delivery_id],
            )
            .map(drop)
            .map_err(StoreError::at(format!(
                "recording run {run_id}'s {channel} as pending"
            )))
    }

    /// Records how sending the run's message `delivery_id` went: taken (`Ok`), or why not
    /// after how many attempts (`Err`), which leaves it pending for the next run. The id
    /// is recorded only if [`Store::delivery_pending`] could not record it first.
    pub fn delivery_outcome(
        &mut self,
        run_id: i64,
        channel: &str,
        delivery_id: &str,
        outcome: Result<u32, (u32, String)>,
    ) -> Result<(), StoreError> {
        let (delivered_at, attempts, error) = match outcome {
            Ok(attempts) => (Some(now_text()), attempts, None),
            Err((attempts, why)) => (None, attempts, Some(why)),
        };
        self.conn
            .execute(
                "INSERT INTO run_deliveries (run_id, channel, delivery_id, delivered_at,
                                            attempts, last_error)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (run_id, channel) DO UPDATE SET
                     delivered_at = excluded.delivered_at,
                     attempts     = run_deliveries.attempts + excluded.attempts,
                     last_error   = excluded.last_error",
                params![run_id, channel, delivery_id, delivered_at, attempts, error],
            )
            .map(drop)
            .map_err(StoreError::at(format!(
                "recording how run {run_id}'s {channel} went"
            )))
    }

    /// The earlier runs of `portfolio`, before `run_id` and started after `since`, whose
    /// message `channel` never took, each with its message's delivery id: oldest first,
    /// the latest [`RESENT_AT_MOST`].
    pub fn undelivered_messages(
        &self,
        portfolio: &str,
        channel: &str,
        run_id: i64,
        since: Timestamp,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let mut runs: Vec<(i64, String)> = self.all(
            "reading the messages not delivered",
            "SELECT d.run_id, d.delivery_id FROM run_deliveries d JOIN runs u ON u.id = d.run_id
             WHERE d.channel = ?1 AND d.delivered_at IS NULL AND d.run_id < ?2
               AND u.portfolio = ?3 AND u.started_at > ?4
             ORDER BY d.run_id DESC LIMIT ?5",
            params![
                channel,
                run_id,
                portfolio,
                time_text(since),
                RESENT_AT_MOST as i64
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        runs.reverse();
        Ok(runs)
    }
}
