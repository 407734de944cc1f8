//! What a run hands on once it has ended: its results through each delivery channel
//! ([`deliver`]), after the messages of earlier runs that a channel never took, with the
//! ledger of how each message went (`run_deliveries`). The ledger is the run's: `deliver`
//! reads no database, and is handed what each channel wants read.

use std::path::Path;

use crate::deliver::{self, Channel};
use crate::report::{self, ReportOptions};
use crate::store::{Store, StoreError};

/// Delivers the run's results through each of `channels` ([`deliver::deliver`]), after
/// the messages of earlier runs of the portfolio that a channel never took (a receiver
/// down, a process killed while sending: at most a week's, oldest first), and records how
/// each message went in the database's delivery ledger. A message is pending from before
/// its first attempt until its channel takes it, so none is lost and none taken is sent
/// twice; it keeps the delivery id it was first sent with, so a receiver can drop what it
/// already took. The ledger knows a channel by its name alone. Returns a line for each
/// part that failed.
pub(super) async fn hand_on(
    db: &Path,
    ended: &deliver::EndedRun<'_>,
    channels: &[&dyn Channel],
    reports: &ReportOptions,
) -> Vec<String> {
    // Tonight's messages, each named afresh when its channel keeps a ledger.
    let tonight: Vec<Outgoing<'_>> = channels
        .iter()
        .map(|&channel| Outgoing {
            channel,
            delivery_id: channel.kept().then(deliver::new_delivery_id),
        })
        .collect();
    // The ledger: a database that cannot be written to leaves the messages unrecorded,
    // never unsent.
    let mut ledger = match (ended.run_id, named(&tonight).next().is_some()) {
        (Some(run_id), true) => match Store::open(db) {
            Ok(mut store) => {
                for (channel, id) in named(&tonight) {
                    if let Err(e) = store.delivery_pending(run_id, channel, id) {
                        tracing::warn!("{e}");
                    }
                }
                Some((store, run_id))
            }
            Err(e) => {
                tracing::warn!("{}: {e}; deliveries are not recorded", db.display());
                None
            }
        },
        _ => None,
    };
    let mut problems = Vec::new();
    // The earlier messages first, each through the channels that never took it, under the
    // id it was first sent with.
    let week_ago = jiff::Timestamp::now()
        - jiff::SignedDuration::from_hours(crate::store::RESENT_WITHIN_DAYS * 24);
    let mut earlier: std::collections::BTreeMap<i64, Vec<Outgoing<'_>>> = Default::default();
    if let Some((store, run_id)) = &ledger {
        for message in tonight.iter().filter(|m| m.delivery_id.is_some()) {
            let channel = message.channel;
            match store.undelivered_messages(ended.portfolio, channel.name(), *run_id, week_ago) {
                Ok(runs) => {
                    for (id, delivery_id) in runs {
                        earlier.entry(id).or_default().push(Outgoing {
                            channel,
                            delivery_id: Some(delivery_id),
                        });
                    }
                }
                Err(e) => tracing::warn!("{e}"),
            }
        }
    }
    for (id, missed) in earlier {
        let late = deliver::EndedRun {
            run_id: Some(id),
            ok: true,
            summary: "",
            error: None,
            ..*ended
        };
        let sent = send(db, &late, &missed, reports).await;
        tracing::info!(run_id = id, "an earlier run's message sent again");
        problems.extend(
            sent.iter()
                .filter_map(|s| s.problem.as_ref())
                .map(|p| format!("{p} (run {id}'s message, sent again)")),
        );
        record(&mut ledger, id, &missed, &sent);
    }
    let sent = send(db, ended, &tonight, reports).await;
    if let Some(run_id) = ended.run_id {
        record(&mut ledger, run_id, &tonight, &sent);
    }
    problems.extend(sent.into_iter().filter_map(|s| s.problem));
    problems
}

/// A run's message to a channel, and its delivery id when the ledger keeps it.
struct Outgoing<'a> {
    channel: &'a dyn Channel,
    delivery_id: Option<String>,
}

/// The messages the ledger keeps: each channel's name with the message's delivery id.
fn named<'a>(messages: &'a [Outgoing<'_>]) -> impl Iterator<Item = (&'static str, &'a str)> {
    messages
        .iter()
        .filter_map(|m| Some((m.channel.name(), m.delivery_id.as_deref()?)))
}

/// Reads what each message needs, closes the database, then hands them on.
async fn send(
    db: &Path,
    ended: &deliver::EndedRun<'_>,
    messages: &[Outgoing<'_>],
    reports: &ReportOptions,
) -> Vec<deliver::Sent> {
    let readings = delivery_readings(db, ended, messages, reports);
    let handed = messages.iter().map(|m| m.channel).zip(readings).collect();
    deliver::deliver(ended, handed).await
}

/// Records in the ledger how the run's messages went (`sent`, in their order).
fn record(
    ledger: &mut Option<(Store, i64)>,
    run_id: i64,
    messages: &[Outgoing<'_>],
    sent: &[deliver::Sent],
) {
    let Some((store, _)) = ledger else {
        return;
    };
    for (message, sent) in messages.iter().zip(sent) {
        if let (Some(id), Some(outcome)) = (&message.delivery_id, &sent.outcome)
            && let Err(e) =
                store.delivery_outcome(run_id, message.channel.name(), id, outcome.clone())
        {
            tracing::warn!("{e}");
        }
    }
}

/// What each message needs of the database, read as the run left it and as its channel
/// wants it (`Err`: why it could not be); the database is closed before anything is
/// posted, so it is not held while a receiver takes its time.
fn delivery_readings(
    db: &Path,
    ended: &deliver::EndedRun<'_>,
    messages: &[Outgoing<'_>],
    reports: &ReportOptions,
) -> Vec<Result<deliver::Reading, String>> {
    let store = match Store::open_read_only(db) {
        Ok(store) => store,
        Err(e) => {
            let why = format!("cannot read database {}: {e}", db.display());
            return messages.iter().map(|_| Err(why.clone())).collect();
        }
    };
    messages
        .iter()
        .map(|m| {
            let wants = m.channel.wants(&reports.alerts);
            reading(&store, ended, &wants, reports, m.delivery_id.as_deref())
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// What one message needs of the database. The run that just ended brought the schema up
/// to date.
fn reading(
    store: &Store,
    ended: &deliver::EndedRun<'_>,
    wants: &deliver::Wants,
    reports: &ReportOptions,
    delivery_id: Option<&str>,
) -> Result<deliver::Reading, StoreError> {
    let run = ended.run_id.map(|id| store.run_info(id)).transpose()?;
    let digest = match (&run, &wants.alerts) {
        (Some(run), Some(rules)) => Some(crate::digest::AlertDigest {
            figures: Some(store.figures(run.id, rules)?),
            ..store.alert_digest(run.id, rules, crate::store::Verdicts::Recorded)?
        }),
        _ => None,
    };
    // The report.html the run wrote, as a path that means something to whoever reads the
    // message elsewhere.
    let report = run.as_ref().and_then(|info| {
        let html = report::ReportFiles::new(&reports.out, info, reports.timestamped).html;
        html.exists()
            .then(|| std::path::absolute(&html).unwrap_or(html))
    });
    let last_success = match wants.last_success {
        true => store
            .last_complete(ended.portfolio)?
            .and_then(|t| t.parse().ok()),
        false => None,
    };
    Ok(deliver::Reading {
        page: reports.page.clone(),
        reader: reports.reader.clone(),
        delivery_id: run.as_ref().and(delivery_id).map(String::from),
        run,
        digest,
        report,
        last_success,
    })
}
