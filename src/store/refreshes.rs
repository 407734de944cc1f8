//! A rating's refresh date as a run saw it. The service recalculates a rating on its own
//! schedule and says so by a new `lastRefreshDate`; when the color and the change date
//! stay, ratewatch keeps the rating's row and notes the new date in `rating_refreshes`, by
//! the run that first saw it. What a run showed is the latest refresh up to that run, or
//! the rating's own date before any. The views `run_results` and `latest_ratings` say
//! the same in SQL.

/// SQL joining `h`, the refresh of the rating whose id is `rating` (an expression) in
/// force at the run whose id is `run`, and `hu`, the run that noted it: no rows when the
/// rating's own date was.
pub(super) fn refresh_at_run(rating: &str, run: &str) -> String {
    format!(
        "LEFT JOIN rating_refreshes h ON h.rating = {rating}
               AND h.run_id = (SELECT max(run_id) FROM rating_refreshes
                               WHERE rating = {rating} AND run_id <= {run})
         LEFT JOIN runs hu ON hu.id = h.run_id"
    )
}

/// The refresh date, with `h` joined by [`refresh_at_run`] to the rating `r`, as the
/// reports age it ([`super::clock::as_seen`] from when it was first seen: the rating's
/// first sight; for a later refresh, the end of the run that noted it, or now while it
/// runs, since a resumed run may see it a night after its start).
pub(super) fn refreshed_as_seen() -> String {
    super::clock::as_seen(
        "iif(h.rating IS NULL, r.last_refresh_date, h.last_refresh_date)",
        "iif(h.rating IS NULL, r.observed_at,
             coalesce(hu.finished_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))",
    )
}
