//! The alert log: what each run announced, and what people acknowledged. A run's alerts by
//! the rules of `[alerts]` are decided once when the run ends, against what the last
//! delivered run announced, recorded in `run_alerts` (one row per company), then read in
//! severity order for the summary. Acknowledgements in force take an alert out of the list,
//! and the run that sees a company at another color ends its acknowledgement (`acks`).
//!
//! Decided in one pass over the run's rows that can be alerts, sorted by company, so the
//! memory held is one company's rows whatever the portfolio's size; ordering, grouping and
//! counting are SQL over `run_alerts`.

use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::sql::{StoreError, extra_columns, now_text, read_time, read_time_or_null};
use crate::alerts::{AlertKind, Repeat, Rules};
use crate::digest::{AlertDigest, AlertLine, KindTotal, STANDING_TOP, Standing};
use crate::model::time_text;
use crate::model::{Change, Color};

/// Where a run's verdict is recorded: the run's own table, or a scratch table for
/// `ratewatch alerts test`, which must leave the database as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdicts {
    Recorded,
    Trial,
}

impl Verdicts {
    fn table(self) -> &'static str {
        match self {
            Verdicts::Recorded => "main.run_alerts",
            Verdicts::Trial => "temp.trial_alerts",
        }
    }
}

/// Which of a run's alerts [`Store::alerts_in`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertSet {
    /// Listed: news by the rules, or a standing alert due again (the run's `alerts`).
    Listed,
    /// Standing red and black, neither listed nor acknowledged.
    Standing,
    /// Taken out of the list by an acknowledgement in force when the run decided.
    Acked,
}

impl AlertSet {
    fn filter(self) -> &'static str {
        match self {
            AlertSet::Listed => "a.listed = 1",
            AlertSet::Standing => "a.kind = 'still' AND a.listed = 0 AND a.acked = 0",
            AlertSet::Acked => "a.listed = 0 AND a.acked = 1",
        }
    }
}

/// Whether the acknowledgement `a` is in force at the time `at` (a parameter or an
/// expression, ISO 8601 UTC text as [`time_text`] writes it): it has no `until`, or its
/// `until` is still to come. A run judges its acknowledgements at its start; `acks` at
/// the moment it is asked, on the same rule.
fn in_force(at: &str) -> String {
    format!("(a.ended_at IS NULL AND (a.until IS NULL OR a.until > {at}))")
}

/// Whether a row's previous rating is one no delivered run showed: first seen by a run
/// whose summary and reports never went out (killed while writing them, or partway
/// through before a changed file started afresh), or brought in by `sync-history`. Its
/// change against that rating was never announced to anyone. (A run still `running` is
/// this one: with the run's lock held, any other was marked `interrupted`.)
const UNANNOUNCED: &str = "p.id IS NOT NULL
    AND (p.first_run_id IS NULL
         OR p.first_run_id IN (SELECT id FROM runs
                               WHERE delivered_at IS NULL AND status <> 'running'))";

/// The color a company had in the last delivered run that held it, of any portfolio: what
/// people were last told of it. Not only this portfolio's: a night whose news never went
/// out followed by a file under a new name (a dated export, another `--portfolio-name`)
/// would otherwise judge that news against nothing, and call a deterioration a first
/// screening.
const ANNOUNCED: &str = "SELECT a.color FROM runs u
    JOIN run_company_ratings x ON x.run_id = u.id AND x.company = rr.company
    JOIN ratings a       ON a.id = x.rating_id
    WHERE u.id < ?1 AND u.delivered_at IS NOT NULL
    ORDER BY u.id DESC LIMIT 1";

/// The alert lines of run `?1` in `table` (`run_alerts`, or a trial's) that `filter`
/// selects, worst first, largest amount first within a kind, then in the file's order; at
/// most `limit` (-1: all). The first row of each is read by its key (a scalar subquery:
/// the view `run_rows` on the right of a LEFT JOIN would be read whole).
pub(super) fn alert_lines_sql(table: &str, filter: &str, limit: i64) -> String {
    // The refreshed day as the reports age it (see `store::clock`).
    let refreshed = super::refreshes::refreshed_as_seen();
    let refresh = super::refreshes::refresh_at_run("rc.rating_id", "a.run_id");
    format!(
        "SELECT a.kind, a.refs, a.first_line, coalesce(c.name, i.name), c.country,
                r.color, a.previous_color, {refreshed}, c.company_id,
                a.amount, i.extra
         FROM {table} a
         JOIN companies c      ON c.id = a.company
         JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
         JOIN ratings r        ON r.id = rc.rating_id
         {refresh}
         LEFT JOIN inputs i    ON i.id = (SELECT rr.input_id FROM run_rows rr
                                          WHERE rr.run_id = a.run_id
                                            AND rr.line = a.first_line)
         WHERE a.run_id = ?1 AND {filter}
         ORDER BY a.severity, a.amount DESC NULLS LAST, a.first_line
         LIMIT {limit}"
    )
}

/// The rows of a run that may be alerts, by company: rated (or gone) rows whose company is
/// red or black, changed color, went away, or shows an unknown color for the first time;
/// and those whose previous rating was never announced ([`UNANNOUNCED`]), with the color
/// that was (`announced`, NULL when none was), against which they are judged instead.
/// Its one parameter is the run, whose rows are read in order (`+rr.company`: not company
/// by company through `run_row_spans_by_company`).
pub(super) fn candidates() -> String {
    format!(
        "SELECT rr.company, rr.line, i.ref, i.extra, rc.change, r.color, p.color,
                {UNANNOUNCED} AS unannounced,
                CASE WHEN {UNANNOUNCED} THEN ({ANNOUNCED}) END AS announced,
                rr.extra_unreliable
         FROM run_rows rr
         JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = +rr.company
         JOIN ratings r        ON r.id = rc.rating_id
         LEFT JOIN ratings p   ON p.id = rc.previous_rating_id
         JOIN inputs i         ON i.id = rr.input_id
         WHERE rr.run_id = ?1
           AND (rr.status = 'rated' OR (rr.status = 'unresolved' AND rc.change = 'gone'))
           AND (r.color IN ('red', 'black')
                OR rc.change IN ('deteriorated', 'improved', 'changed', 'gone')
                OR (rc.change = 'new'
                    AND r.color NOT IN ('green', 'yellow', 'red', 'black', 'white'))
                OR ({UNANNOUNCED}))
         ORDER BY rr.company, rr.line"
    )
}

/// Alerts listed when a storm of changes is announced (besides every new red and black):
/// the worst of them.
pub const STORM_LISTED: usize = 10;

/// Refs named in `run_alerts.refs` before the rest are counted.
const MAX_REFS: usize = 20;

/// One company's candidate rows, gathered as the sorted rows pass by.
struct Gathered {
    company: i64,
    first_line: i64,
    refs: Vec<String>,
    more_refs: usize,
    change: Change,
    color: Color,
    previous: Option<Color>,
    /// When the previous rating was never announced: the color last delivered of the
    /// company, in any portfolio (`None` inside: none ever was).
    announced: Option<Option<Color>>,
    passes: bool,
    /// The amount column summed over the company's rows, when one is named and read.
    amount: Option<f64>,
}

impl Gathered {
    /// The change the alert announces, and the color it compares with: the history's, or,
    /// when the previous rating was never announced, what was last delivered.
    fn news(&self) -> (Change, Option<Color>) {
        let Some(announced) = self
            .announced
            .as_ref()
            .filter(|_| self.change != Change::Gone)
        else {
            return (self.change, self.previous.clone());
        };
        let before = announced.as_ref().map(|c| (c, None::<i64>));
        let change = match Change::classify(before, &self.color, None) {
            // Same color as delivered: the history says whether it evolved.
            Change::Unchanged if self.change == Change::Evolved => Change::Evolved,
            change => change,
        };
        (change, announced.clone())
    }
}

impl Store {
    /// Decides which companies of the run are alerts by `rules`, and records the verdict
    /// (replacing an earlier one of the same run: a resumed run decides again). A recorded
    /// verdict also ends the acknowledgements of companies whose color changed. Returns
    /// how many alerts are listed.
    pub fn decide_alerts(
        &mut self,
        run_id: i64,
        rules: &Rules,
        verdicts: Verdicts,
    ) -> Result<u64, StoreError> {
        let ctx = format!("deciding the alerts of run {run_id}");
        let at = |e| StoreError::at(ctx.clone())(e);
        let table = verdicts.table();
        let delivered_before = match &self.delivered_before_resume {
            (run, companies) if *run == run_id => Some(companies),
            _ => None,
        };
        let tx = self.conn.transaction().map_err(at)?;
        if verdicts == Verdicts::Trial {
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS trial_alerts AS
                     SELECT * FROM main.run_alerts WHERE 0;
                 DELETE FROM temp.trial_alerts;",
            )
            .map_err(at)?;
        }
        tx.execute(&format!("DELETE FROM {table} WHERE run_id = ?1"), [run_id])
            .map_err(at)?;
        let (run_time, _, relisted_after) = repeat_window(&tx, run_id, rules).map_err(at)?;
        // Most databases hold no acknowledgement, and most rules no exposure filter: then
        // neither is read for each company.
        let any_acks: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM acks WHERE ended_at IS NULL)",
                [],
                |r| r.get(0),
            )
            .map_err(at)?;
        let filtered = rules.min_exposure.is_some();
        let amounts = rules.amount_column().is_some();
        let listed = {
            let mut candidates = tx.prepare(&candidates()).map_err(at)?;
            let mut insert = tx
                .prepare(&format!(
                    "INSERT INTO {table}
                         (run_id, company, kind, severity, first_line, refs, listed, acked,
                          previous_color, amount)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
                ))
                .map_err(at)?;
            let mut ack = tx
                .prepare(&format!(
                    "SELECT 1 FROM acks a WHERE a.company = ?1 AND a.color = ?2 AND {}",
                    in_force("?3")
                ))
                .map_err(at)?;
            let mut at_another_color = tx
                .prepare(
                    "SELECT 1 FROM acks
                     WHERE company = ?1 AND ended_at IS NULL AND color <> ?2",
                )
                .map_err(at)?;
            let now = now_text();
            let mut listed_lately = tx
                .prepare(
                    "SELECT 1 FROM run_alerts a JOIN runs u ON u.id = a.run_id
                     WHERE a.company = ?1 AND a.listed = 1 AND a.run_id < ?2
                       AND u.delivered_at IS NOT NULL
                       AND u.started_at > ?3
                     LIMIT 1",
                )
                .map_err(at)?;
            let mut listed = 0;
            let mut decide = |g: Gathered| -> rusqlite::Result<()> {
                if any_acks
                    && verdicts == Verdicts::Recorded
                    && at_another_color
                        .query_row(params![g.company, g.color.to_string()], |_| Ok(()))
                        .optional()?
                        .is_some()
                {
                    // The company is at another color than it was acknowledged at: that
                    // acknowledgement is over, whatever the rules list. One made at the
                    // new color (during the run) stands.
                    super::acks::end_current(
                        &tx,
                        g.company,
                        &now,
                        "color changed",
                        None,
                        None,
                        Some(run_id),
                    )?;
                }
                let (change, previous) = g.news();
                let Some(kind) = AlertKind::of(change, &g.color) else {
                    return Ok(());
                };
                let steps = AlertKind::steps(&g.color, previous.as_ref());
                // `always` (black by default) is listed whatever the exposure filter says.
                let passes = g.passes || rules.always_alerts(&g.color);
                if !rules.keeps(kind, steps) || !passes {
                    return Ok(());
                }
                let acked = kind == AlertKind::Still
                    && any_acks
                    && ack
                        .query_row(
                            params![g.company, g.color.to_string(), run_time],
                            |_| Ok(()),
                        )
                        .optional()?
                        .is_some();
                let shown = if kind.is_news() {
                    // Counted only by the rules (improvements), or announced already by
                    // this run's summary before it stopped.
                    rules.lists(kind)
                        && (verdicts == Verdicts::Trial
                            || !delivered_before.is_some_and(|c| c.contains(&g.company)))
                } else if acked {
                    false
                } else {
                    match &relisted_after {
                        None => false,
                        Some(after) => listed_lately
                            .query_row(params![g.company, run_id, after], |_| Ok(()))
                            .optional()?
                            .is_none(),
                    }
                };
                let mut refs = g.refs.join(", ");
                if g.more_refs > 0 {
                    refs.push_str(&format!(" and {} more", g.more_refs));
                }
                insert.execute(params![
                    run_id,
                    g.company,
                    kind.as_str(),
                    kind.severity(),
                    g.first_line,
                    (!refs.is_empty()).then_some(refs),
                    shown,
                    acked,
                    previous.map(|c| c.to_string()),
                    g.amount,
                ])?;
                listed += u64::from(shown);
                Ok(())
            };
            let mut rows = candidates.query(params![run_id]).map_err(at)?;
            let mut current: Option<Gathered> = None;
            while let Some(r) = rows.next().map_err(at)? {
                let company: i64 = r.get(0).map_err(at)?;
                let line: i64 = r.get(1).map_err(at)?;
                let reference: Option<String> = r.get(2).map_err(at)?;
                let (passes, amount) = if filtered || amounts {
                    let extra = extra_columns(r.get(3).map_err(at)?);
                    let unreliable = r.get::<_, i64>(9).map_err(at)? != 0;
                    (
                        rules.row_passes(reference.as_deref(), &extra, unreliable),
                        rules.amount_of(&extra, unreliable),
                    )
                } else {
                    (true, None)
                };
                if current.as_ref().is_some_and(|g| g.company != company)
                    && let Some(done) = current.take()
                {
                    decide(done).map_err(at)?;
                }
                let g = match &mut current {
                    Some(g) => g,
                    None => {
                        let change: String = r.get(4).map_err(at)?;
                        let color: String = r.get(5).map_err(at)?;
                        let previous: Option<String> = r.get(6).map_err(at)?;
                        current.insert(Gathered {
                            company,
                            first_line: line,
                            refs: Vec::new(),
                            more_refs: 0,
                            change: Change::parse(&change).unwrap_or(Change::Unchanged),
                            color: Color::parse(&color),
                            previous: previous.map(|p| Color::parse(&p)),
                            announced: match r.get::<_, bool>(7).map_err(at)? {
                                true => Some(
                                    r.get::<_, Option<String>>(8)
                                        .map_err(at)?
                                        .map(|c| Color::parse(&c)),
                                ),
                                false => None,
                            },
                            passes: false,
                            amount: None,
                        })
                    }
                };
                g.passes |= passes;
                if let Some(amount) = amount {
                    *g.amount.get_or_insert(0.0) += amount;
                }
                let name = reference.unwrap_or_else(|| format!("line {line}"));
                if !g.refs.contains(&name) {
                    if g.refs.len() < MAX_REFS {
                        g.refs.push(name);
                    } else {
                        g.more_refs += 1;
                    }
                }
            }
            if let Some(done) = current.take() {
                decide(done).map_err(at)?;
            }
            drop(rows);
            listed
        };
        tx.commit().map_err(at)?;
        Ok(listed)
    }

    /// Decides which rows of the run the summary names as not screened (invalid,
    /// unresolved, ambiguous), and records them in `run_named_lines` (`run_rows.named`): a
    /// row is named when its state is new since the portfolio's last delivered run, or when
    /// no delivered run named it in that state within a week (a day with `repeat =
    /// "daily"`). Returns how many rows are named.
    pub fn name_unscreened(&mut self, run_id: i64, rules: &Rules) -> Result<u64, StoreError> {
        let ctx = format!("deciding the rows run {run_id} names");
        let at = |e| StoreError::at(ctx.clone())(e);
        // Rows nobody monitors are a blind spot, not news that wears: named again weekly
        // at least, whatever the rule for standing red and black.
        let reminded = Rules {
            repeat: match rules.repeat {
                Repeat::Daily => Repeat::Daily,
                Repeat::Never | Repeat::Weekly => Repeat::Weekly,
            },
            ..rules.clone()
        };
        let (_, portfolio, window_start) =
            repeat_window(&self.conn, run_id, &reminded).map_err(at)?;
        let tx = self.conn.transaction().map_err(at)?;
        // A resumed run decides again.
        tx.execute("DELETE FROM run_named_lines WHERE run_id = ?1", [run_id])
            .map_err(at)?;
        // The same row in the same state in an earlier delivered run of the portfolio:
        // by its line, the same input and status.
        let same = "o.line = n.line AND o.input_id = n.input_id AND o.status = n.status";
        let named = tx
            .execute(
                &format!(
                    "INSERT INTO run_named_lines (run_id, line)
                     SELECT n.run_id, n.line FROM run_rows n
                     WHERE n.run_id = ?1 AND n.status IN ('unresolved', 'ambiguous', 'invalid')
                       AND (NOT EXISTS (SELECT 1 FROM run_rows o
                                        WHERE o.run_id = (SELECT max(id) FROM runs
                                                          WHERE portfolio = ?2 AND id < ?1
                                                            AND delivered_at IS NOT NULL)
                                          AND {same})
                            OR (?3 IS NOT NULL
                                AND NOT EXISTS (SELECT 1 FROM runs u
                                                JOIN run_rows o ON o.run_id = u.id
                                                WHERE u.portfolio = ?2 AND u.id < ?1
                                                  AND u.delivered_at IS NOT NULL
                                                  AND u.started_at > ?3
                                                  AND o.named = 1 AND {same})))"
                ),
                params![run_id, portfolio, window_start],
            )
            .map_err(at)?;
        tx.commit().map_err(at)?;
        Ok(named as u64)
    }

    /// What a run's alerts say ([`AlertDigest`]), by `rules` as they apply to the run's
    /// portfolio (its carried columns): every new red and black, then the other listed
    /// alerts worst first and largest amount first within a kind, up to `rules.max_listed`
    /// lines ([`STORM_LISTED`] in a storm: more than `storm_share` of the rated companies
    /// changed color, and at least ten did); the totals of each kind; the standing red and
    /// black one entry per color with their largest; the alerts only counted.
    pub fn alert_digest(
        &self,
        run_id: i64,
        rules: &Rules,
        verdicts: Verdicts,
    ) -> Result<AlertDigest, StoreError> {
        let ctx = format!("reading the alerts of run {run_id}");
        let at = |e| StoreError::at(ctx.clone())(e);
        let table = verdicts.table();
        let columns: Option<String> = self
            .conn
            .query_row(
                "SELECT extra_columns FROM runs WHERE id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(at)?
            .flatten();
        let columns: Vec<String> = columns
            .and_then(|c| serde_json::from_str(&c).ok())
            .unwrap_or_default();
        let (rules, _) = rules.for_columns(&columns);
        let mut digest = AlertDigest {
            columns: rules.show.clone(),
            amount_column: rules.amount_column().map(str::to_string),
            ..AlertDigest::default()
        };
        let mut counts = self
            .conn
            .prepare(&format!(
                "SELECT kind, listed, acked, previous_color IS NULL, count(*), sum(amount)
                 FROM {table} WHERE run_id = ?1 GROUP BY 1, 2, 3, 4 ORDER BY min(severity)"
            ))
            .map_err(at)?;
        let mut rows = counts.query([run_id]).map_err(at)?;
        while let Some(r) = rows.next().map_err(at)? {
            let kind: String = r.get(0).map_err(at)?;
            let kind = AlertKind::parse(&kind).unwrap_or(AlertKind::Changed);
            let (listed, acked, first): (bool, bool, bool) = (
                r.get(1).map_err(at)?,
                r.get(2).map_err(at)?,
                r.get(3).map_err(at)?,
            );
            let n = r.get::<_, i64>(4).map_err(at)? as u64;
            let amount: Option<f64> = r.get(5).map_err(at)?;
            match (listed, acked) {
                (true, _) => {
                    digest.listed_total += n;
                    let total = match digest.kinds.iter_mut().find(|k| k.kind == kind) {
                        Some(total) => total,
                        None => {
                            digest.kinds.push(KindTotal {
                                kind,
                                count: 0,
                                first_screenings: 0,
                                amount: None,
                            });
                            digest.kinds.last_mut().expect("just pushed")
                        }
                    };
                    total.count += n;
                    if first && matches!(kind, AlertKind::Red | AlertKind::Black) {
                        total.first_screenings += n;
                    }
                    if let Some(amount) = amount {
                        *total.amount.get_or_insert(0.0) += amount;
                    }
                }
                (false, true) => digest.acked += n,
                (false, false) if kind == AlertKind::Still => {}
                (false, false) => match digest.counted.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, count)) => *count += n,
                    None => digest.counted.push((kind, n)),
                },
            }
        }
        drop(rows);
        let (changed, companies): (i64, i64) = self
            .conn
            .query_row(
                "SELECT count(*) FILTER (WHERE change IN ('deteriorated', 'improved', 'changed')),
                        count(*)
                 FROM run_companies WHERE run_id = ?1",
                [run_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(at)?;
        digest.changed = changed as u64;
        if changed >= 10 && changed as f64 > rules.storm_share * companies as f64 {
            digest.storm = Some((changed as u64, companies as u64));
        }
        let room = if digest.storm.is_some() {
            STORM_LISTED.min(rules.max_listed)
        } else {
            rules.max_listed
        };
        // Every new red and black, whatever the cap; the others fill the room left.
        let new_red_or_black = "a.kind IN ('black', 'red') AND a.previous_color IS NOT NULL";
        let mut listed = self.alert_lines(
            table,
            run_id,
            &format!("a.listed = 1 AND {new_red_or_black}"),
            &[],
            None,
        )?;
        let left = room.saturating_sub(listed.len());
        if left > 0 {
            listed.extend(self.alert_lines(
                table,
                run_id,
                &format!("a.listed = 1 AND NOT ({new_red_or_black})"),
                &[],
                Some(left),
            )?);
        }
        // Worst first, largest first within a kind, then in the file's order (as read).
        listed.sort_by(|x, y| {
            x.kind.severity().cmp(&y.kind.severity()).then(
                y.amount
                    .unwrap_or(f64::MIN)
                    .total_cmp(&x.amount.unwrap_or(f64::MIN)),
            )
        });
        digest.listed = listed;
        for color in [Color::Black, Color::Red] {
            let standing = "a.kind = 'still' AND a.listed = 0 AND a.acked = 0 AND r.color = ?2";
            let (count, amount): (i64, Option<f64>) = self
                .conn
                .query_row(
                    &format!(
                        "SELECT count(*), sum(a.amount) FROM {table} a
                         JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
                         JOIN ratings r        ON r.id = rc.rating_id
                         WHERE a.run_id = ?1 AND {standing}"
                    ),
                    params![run_id, color.as_str()],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(at)?;
            if count > 0 {
                let top = self.alert_lines(
                    table,
                    run_id,
                    standing,
                    &[color.as_str()],
                    Some(STANDING_TOP),
                )?;
                digest.standing.push(Standing {
                    color,
                    count: count as u64,
                    amount,
                    top,
                });
            }
        }
        let names = rules.show.clone();
        for line in digest
            .listed
            .iter_mut()
            .chain(digest.standing.iter_mut().flat_map(|s| s.top.iter_mut()))
        {
            keep_shown(line, &names);
        }
        Ok(digest)
    }

    /// Every alert of a set of run `run_id`'s recorded verdict, uncapped but for `limit`:
    /// worst first, largest amount first within a kind, then in the file's order; each
    /// with the carried columns `show` names (a digest's `columns`), in that order.
    pub fn alerts_in(
        &self,
        run_id: i64,
        set: AlertSet,
        show: &[String],
        limit: usize,
    ) -> Result<Vec<AlertLine>, StoreError> {
        let mut lines = self.alert_lines(
            Verdicts::Recorded.table(),
            run_id,
            set.filter(),
            &[],
            Some(limit),
        )?;
        for line in &mut lines {
            keep_shown(line, show);
        }
        Ok(lines)
    }

    /// The alerts of run `run_id` that `filter` (on `a`, the verdict, and `r`, the rating;
    /// `?2`… are `more`) selects, as lines: worst first, largest amount first within a kind,
    /// then in the file's order; at most `limit`.
    fn alert_lines(
        &self,
        table: &str,
        run_id: i64,
        filter: &str,
        more: &[&str],
        limit: Option<usize>,
    ) -> Result<Vec<AlertLine>, StoreError> {
        let ctx = format!("reading the alerts of run {run_id}");
        let at = |e| StoreError::at(ctx.clone())(e);
        let limit = limit.map_or(-1, |l| l as i64);
        let mut stmt = self
            .conn
            .prepare(&alert_lines_sql(table, filter, limit))
            .map_err(at)?;
        let params: Vec<&dyn rusqlite::ToSql> = std::iter::once(&run_id as &dyn rusqlite::ToSql)
            .chain(more.iter().map(|m| m as &dyn rusqlite::ToSql))
            .collect();
        stmt.query_map(params.as_slice(), |r| {
            let kind: String = r.get(0)?;
            let refs: Option<String> = r.get(1)?;
            let first_line: i64 = r.get(2)?;
            Ok(AlertLine {
                kind: AlertKind::parse(&kind).unwrap_or(AlertKind::Changed),
                company_id: r.get(8)?,
                refs: refs.unwrap_or_else(|| format!("line {first_line}")),
                company: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                country: r.get(4)?,
                color: r
                    .get::<_, Option<String>>(5)?
                    .map(|c: String| Color::parse(&c)),
                previous: r
                    .get::<_, Option<String>>(6)?
                    .map(|c: String| Color::parse(&c)),
                last_refresh_date: read_time_or_null(r, 7)?,
                amount: r.get(9)?,
                shown: extra_columns(r.get(10)?),
            })
        })
        .and_then(Iterator::collect)
        .map_err(at)
    }
}

/// Keeps the carried columns `names` shows of an alert's, in the order of `names`.
fn keep_shown(line: &mut AlertLine, names: &[String]) {
    line.shown.retain(|(header, _)| names.contains(header));
    line.shown
        .sort_by_key(|(header, _)| names.iter().position(|n| n == header));
}

/// A run's start, its portfolio, and when the repeat rule's window before the start opens
/// (none for `repeat = "never"`); times as stored. The start is on this machine's clock, as
/// staleness is judged.
pub(super) fn repeat_window(
    conn: &rusqlite::Connection,
    run_id: i64,
    rules: &Rules,
) -> rusqlite::Result<(String, String, Option<String>)> {
    let (started_at, portfolio) = conn.query_row(
        "SELECT started_at, portfolio FROM runs WHERE id = ?1",
        [run_id],
        |r| Ok((read_time(r, 0)?, r.get(1)?)),
    )?;
    let opens = rules
        .repeat
        .after_seconds()
        .map(|s| time_text(started_at - jiff::SignedDuration::from_secs(s)));
    Ok((time_text(started_at), portfolio, opens))
}

/// The runs of a portfolio before `run_id` and after its last delivered one: runs whose
/// summary and reports never went out (oldest first, with when they started).
pub(super) fn undelivered_before(
    conn: &rusqlite::Connection,
    portfolio: &str,
    run_id: i64,
) -> rusqlite::Result<Vec<(i64, String)>> {
    conn.prepare_cached(
        "SELECT id, started_at FROM runs
         WHERE portfolio = ?1 AND id < ?2 AND delivered_at IS NULL
           AND id > (SELECT coalesce(max(id), 0) FROM runs
                     WHERE portfolio = ?1 AND id < ?2 AND delivered_at IS NOT NULL)
         ORDER BY id",
    )?
    .query_map(params![portfolio, run_id], |r| Ok((r.get(0)?, r.get(1)?)))?
    .collect()
}
