//! The account's requests read back from the service's history (`sync-history`): each kept
//! in `account_requests`, and those ratewatch had not observed put into the rating history
//! (`ratings`, `source = 'account'`) where the views read them. Why it is laid out so opens
//! `migrations/upgrade/0007_account_requests.sql`.
//!
//! Everything is written in one transaction: a sync stores all it read or nothing.
//!
//! The local clock rules (`store::clock`): a request the service dates more than a day
//! ahead of this machine's clock is set aside, never stored; one dated ahead by less is
//! held in `ratings` as seen now, so no request from the future becomes a company's latest.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, params};

use super::cache::find_company;
use super::clock::{CLOCK_TOLERANCE, off_clock};
use super::database::Store;
use super::sql::{StoreError, now_text};
use crate::model::time_text;
use crate::model::{Change, Color, Rating};

/// What a sync did with the requests it read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccountSync {
    /// Put into the rating history: a new observation, or a later sighting of one the
    /// sync itself had added.
    pub added: u64,
    /// Of those, rows added to `ratings`.
    pub new_observations: u64,
    /// Already held by an observation of the history (a run's own request, above all).
    pub known: u64,
    /// Read by an earlier sync: skipped.
    pub synced_before: u64,
    /// Older than what the database holds for its company: kept for the audit only.
    pub earlier: u64,
    /// Companies the database did not know (recorded by their id alone).
    pub new_companies: u64,
    /// Requests the service gave without a requestDate: not stored, they cannot be placed.
    pub undated: u64,
    /// Requests dated more than a day ahead of this machine's clock: set aside, not stored.
    pub future: u64,
}

/// A request as stored.
struct Request<'a> {
    rating: &'a Rating,
    /// To the microsecond: what tells two requests of one company apart.
    request_date: String,
    /// To the second, as the service dated it.
    requested_at: String,
    last_change: Option<String>,
    last_refresh: Option<String>,
    /// When the request was made, by this machine's clock: its requestDate, or now for
    /// one the service dated later (by up to a day). A new rating is observed then.
    observed_at: String,
    /// [`Request::observed_at`] less and plus [`CLOCK_TOLERANCE`]: the span within which
    /// a run's own sighting may hold the request.
    earliest: String,
    latest: String,
}

/// The company's latest rating, with its latest refresh date.
struct Latest {
    id: i64,
    color: String,
    last_change: Option<String>,
    last_refresh: Option<String>,
    confirmed_at: String,
    from_account: bool,
}

impl Store {
    /// Records the requests of the account's history, oldest first, in one transaction.
    pub fn record_account_history(
        &mut self,
        history: &[Rating],
    ) -> Result<AccountSync, StoreError> {
        let ctx = "recording the account's history";
        let mut done = AccountSync::default();
        let mut requests: Vec<Request<'_>> = Vec::with_capacity(history.len());
        let now = self.clock_now();
        for rating in history {
            let Some(at) = rating.requested_at else {
                done.undated += 1;
                continue;
            };
            if at > now && off_clock(at, now) {
                // From the future: placed after everything, it would be the company's
                // latest rating until the calendar caught up with it.
                if done.future == 0 {
                    tracing::warn!(
                        request_date = %at,
                        local_time = %time_text(now),
                        company = %rating.company_id,
                        "the account's history has a request dated more than a day ahead of this machine's clock: set aside"
                    );
                }
                done.future += 1;
                continue;
            }
            let observed = at.min(now);
            let shifted = |t: Result<Timestamp, jiff::Error>, bound| time_text(t.unwrap_or(bound));
            requests.push(Request {
                rating,
                request_date: precise(at),
                requested_at: time_text(at),
                last_change: rating.last_change.map(time_text),
                last_refresh: rating.last_refresh.map(time_text),
                observed_at: time_text(observed),
                earliest: shifted(observed.checked_sub(CLOCK_TOLERANCE), Timestamp::MIN),
                latest: shifted(observed.checked_add(CLOCK_TOLERANCE), Timestamp::MAX),
            });
        }
        // The history is in id order, so the oldest request goes first (the service lists
        // the newest first).
        requests.sort_by(|a, b| {
            (&a.request_date, a.rating.company_id).cmp(&(&b.request_date, b.rating.company_id))
        });
        let synced_at = time_text(now);
        let tx = self.conn.transaction().map_err(StoreError::at(ctx))?;
        for request in &requests {
            record(&tx, request, &synced_at, &mut done).map_err(StoreError::at(ctx))?;
        }
        tx.commit().map_err(StoreError::at(ctx))?;
        Ok(done)
    }
}

fn record(
    tx: &Transaction<'_>,
    r: &Request<'_>,
    synced_at: &str,
    done: &mut AccountSync,
) -> rusqlite::Result<()> {
    let company_id = r.rating.company_id;
    let company = match find_company(tx, company_id)? {
        Some(id) => id,
        None => {
            // Known by its id alone until a run or a lookup describes it.
            done.new_companies += 1;
            tx.prepare_cached(
                "INSERT INTO companies (company_id, first_seen_at, updated_at)
                 VALUES (?1, ?2, ?2)",
            )?
            .execute(params![company_id.to_string(), now_text()])?;
            tx.last_insert_rowid()
        }
    };
    let synced_before: bool = tx
        .prepare_cached(
            "SELECT count(*) FROM account_requests WHERE company = ?1 AND request_date = ?2",
        )?
        .query_row(params![company, r.request_date], |row| {
            row.get::<_, i64>(0).map(|n| n > 0)
        })?;
    if synced_before {
        done.synced_before += 1;
        return Ok(());
    }
    let color = r.rating.color.as_str();
    // A row seen with this color and these dates over a span that holds the request: a
    // run's own request, or one made elsewhere that tells nothing the history lacks. A
    // run dates its sightings by this machine's clock, the service its requests by its
    // own: a run's span holds the requests within a day of it (CLOCK_TOLERANCE). Times
    // are text of one form, compared as text. The refresh date is the rating's own, seen
    // from its first sight, or a later one a run noted, seen from that run's start.
    let holding: Option<i64> = tx
        .prepare_cached(
            "SELECT r.id FROM ratings r LEFT JOIN rating_confirmations f ON f.rating = r.id
             WHERE r.company = ?1 AND r.color = ?2 AND r.last_change_date IS ?3
               AND CASE WHEN r.last_refresh_date IS ?4
                        THEN r.observed_at <= iif(r.source = 'run', ?7, ?5)
                        ELSE (SELECT min(u.started_at) FROM rating_refreshes h
                              JOIN runs u ON u.id = h.run_id
                              WHERE h.rating = r.id AND h.last_refresh_date IS ?4) <= ?7
                   END
               AND coalesce(f.confirmed_at, r.observed_at) >= iif(r.source = 'run', ?6, ?5)
             ORDER BY r.id DESC LIMIT 1",
        )?
        .query_row(
            params![
                company,
                color,
                r.last_change,
                r.last_refresh,
                r.observed_at,
                r.earliest,
                r.latest
            ],
            |row| row.get(0),
        )
        .optional()?;
    let (status, rating_id, previous, change) = if let Some(id) = holding {
        done.known += 1;
        ("known", Some(id), None, None)
    } else {
        let latest = latest(tx, company)?;
        match latest {
            // Only after everything the history holds can it take its place in id order.
            Some(l) if r.observed_at <= l.confirmed_at => {
                done.earlier += 1;
                ("earlier", None, None, None)
            }
            Some(l)
                if l.from_account
                    && l.color == color
                    && l.last_change == r.last_change
                    && l.last_refresh == r.last_refresh =>
            {
                // The sync's own row, seen again unchanged: it is confirmed, as a run
                // confirms its rows. A run's row is never confirmed here.
                tx.prepare_cached(
                    "INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
                         VALUES (?1, ?2, NULL)
                         ON CONFLICT (rating) DO UPDATE SET confirmed_at = excluded.confirmed_at",
                )?
                .execute(params![l.id, r.observed_at])?;
                done.added += 1;
                ("added", Some(l.id), Some(l.id), Some(Change::Unchanged))
            }
            l => {
                let id: i64 = tx
                    .prepare_cached(
                        "INSERT INTO ratings (company, color, last_change_date, last_refresh_date,
                                              observed_at, source)
                         VALUES (?1, ?2, ?3, ?4, ?5, 'account') RETURNING id",
                    )?
                    .query_row(
                        params![company, color, r.last_change, r.last_refresh, r.observed_at],
                        |row| row.get(0),
                    )?;
                let before = l
                    .as_ref()
                    .map(|l| (Color::parse(&l.color), l.last_change.as_deref()));
                let change = Change::classify(
                    before.as_ref().map(|(c, lc)| (c, *lc)),
                    &r.rating.color,
                    r.last_change.as_deref(),
                );
                done.added += 1;
                done.new_observations += 1;
                ("added", Some(id), l.map(|l| l.id), Some(change))
            }
        }
    };
    tx.prepare_cached(
        "INSERT INTO account_requests (company, request_date, requested_at, color,
                                       last_change_date, last_refresh_date, synced_at, status,
                                       rating_id, previous_rating_id, change)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        company,
        r.request_date,
        r.requested_at,
        color,
        r.last_change,
        r.last_refresh,
        synced_at,
        status,
        rating_id,
        previous,
        change.map(Change::as_str),
    ])?;
    Ok(())
}

fn latest(tx: &Transaction<'_>, company: i64) -> rusqlite::Result<Option<Latest>> {
    tx.prepare_cached(
        "SELECT l.rating_id, l.color, l.last_change_date, l.last_refresh_date,
                l.confirmed_at, r.source
         FROM latest_ratings l JOIN ratings r ON r.id = l.rating_id
         WHERE l.company = ?1",
    )?
    .query_row([company], |row| {
        Ok(Latest {
            id: row.get(0)?,
            color: row.get(1)?,
            last_change: row.get(2)?,
            last_refresh: row.get(3)?,
            confirmed_at: row.get(4)?,
            from_account: row.get::<_, String>(5)? == "account",
        })
    })
    .optional()
}

/// A request time to the microsecond, always with six digits so that the texts sort as
/// the times do.
fn precise(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;
    use uuid::Uuid;

    use super::AccountSync;
    use crate::model::{Color, Rating};
    use crate::store::tests::new_store;
    use crate::store::writer::Record;

    fn ts(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    fn request(n: u128, color: Color, at: &str) -> Rating {
        Rating {
            company_id: Uuid::from_u128(n),
            color,
            requested_at: Some(ts(at)),
            last_refresh: Some(ts("2026-01-01T00:00:00Z")),
            last_change: Some(ts("2025-12-01T00:00:00Z")),
        }
    }

    #[test]
    fn a_sync_finds_a_run_s_sighting_of_a_recalculation_noted_beside_its_rating() {
        let (_dir, path, mut store) = new_store();
        let refreshed = |at: &str, refresh: &str| Rating {
            last_refresh: Some(ts(refresh)),
            ..request(1, Color::Green, at)
        };
        // Two runs a week apart see company 1 green; the second, recalculated on the 8th.
        for (at, refresh) in [
            ("2026-01-02T10:00:00Z", "2026-01-01T00:00:00Z"),
            ("2026-01-09T10:00:00Z", "2026-01-08T00:00:00Z"),
        ] {
            let run_id = crate::store::tests::run(&mut store);
            store
                .conn
                .execute(
                    "UPDATE runs SET started_at = ?1 WHERE id = ?2",
                    (at, run_id),
                )
                .unwrap();
            store.pin_clock(Some(ts(at)));
            let mut writer = store.writer(run_id).unwrap();
            writer
                .send(Record::Observation(refreshed(at, refresh)))
                .unwrap();
            writer.finish().unwrap();
        }
        store.pin_clock(Some(ts("2026-01-10T00:00:00Z")));
        let history = [
            refreshed("2026-01-09T11:00:00Z", "2026-01-08T00:00:00Z"),
            refreshed("2026-01-02T11:00:00Z", "2026-01-01T00:00:00Z"),
        ];
        assert_eq!(
            store.record_account_history(&history).unwrap(),
            AccountSync {
                known: 2,
                ..AccountSync::default()
            },
            "both runs' own requests"
        );
        let conn = Connection::open(&path).unwrap();
        let held: Vec<(i64, i64)> = conn
            .prepare("SELECT (SELECT count(*) FROM ratings), rating_id FROM account_requests")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(held, [(1, 1), (1, 1)], "one rating, which holds both");
    }

    #[test]
    fn a_sync_finds_a_run_s_sighting_within_a_day_and_stores_the_rest_once_as_text() {
        let (_dir, path, mut store) = new_store();
        // A run sees company 1 green on the 2nd.
        let run_id = crate::store::tests::run(&mut store);
        store.pin_clock(Some(ts("2026-01-02T10:00:00Z")));
        let mut writer = store.writer(run_id).unwrap();
        writer
            .send(Record::Observation(request(
                1,
                Color::Green,
                "2026-01-02T10:00:00Z",
            )))
            .unwrap();
        writer.finish().unwrap();
        store.pin_clock(Some(ts("2026-01-10T00:00:00Z")));
        // Newest first, as the service lists them.
        let history = [
            request(2, Color::Red, "2026-01-05T00:00:00.250Z"),
            request(1, Color::Red, "2026-01-04T00:00:00Z"),
            // The run's own request, dated by the service's clock twenty hours off.
            request(1, Color::Green, "2026-01-03T06:00:00Z"),
        ];
        let first = store.record_account_history(&history).unwrap();
        assert_eq!(
            first,
            AccountSync {
                added: 2,
                new_observations: 2,
                known: 1,
                new_companies: 1,
                ..AccountSync::default()
            }
        );
        assert_eq!(
            store.record_account_history(&history).unwrap(),
            AccountSync {
                synced_before: 3,
                ..AccountSync::default()
            },
            "a request synced before is skipped"
        );
        let conn = Connection::open(&path).unwrap();
        let ratings: Vec<String> = conn
            .prepare(
                "SELECT c.company_id || ' ' || r.color || ' ' || r.source || ' ' || r.observed_at
                        || ' ' || r.last_change_date
                 FROM ratings r JOIN companies c ON c.id = r.company ORDER BY r.id",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert_eq!(
            ratings,
            [
                format!("{a} green run 2026-01-02T10:00:00Z 2025-12-01T00:00:00Z"),
                format!("{a} red account 2026-01-04T00:00:00Z 2025-12-01T00:00:00Z"),
                format!("{b} red account 2026-01-05T00:00:00Z 2025-12-01T00:00:00Z"),
            ]
        );
        let requests: Vec<String> = conn
            .prepare(
                "SELECT request_date || ' ' || status || ' ' || coalesce(change, '-')
                 FROM account_requests ORDER BY request_date",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            requests,
            [
                "2026-01-03T06:00:00.000000Z known -",
                "2026-01-04T00:00:00.000000Z added deteriorated",
                "2026-01-05T00:00:00.250000Z added new",
            ]
        );
    }
}
