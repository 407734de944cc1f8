//! `ratewatch sync-history`: flags to a sync of the account's history, and its summary on
//! stdout. The sync itself is the library's (`history_sync`).

use super::emit;
use crate::cli::SyncHistoryArgs;
use crate::config::{ServiceSettings, Settings, Sources};
use crate::error::{Error, ExitCode};
use crate::history_sync::{SyncRequest, Synced, sync_history};

pub async fn sync(args: SyncHistoryArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = sources.database(args.db)?.value;
    let settings = Settings::for_service(&args.service_args, &sources)?;
    // The same bounds, retries and 429 pause as a screening run.
    let limits = settings.limits();
    let service = ServiceSettings::new(&settings, &sources)?;
    let synced = sync_history(&SyncRequest {
        db: db.clone(),
        service,
        limits,
    })
    .await?;
    emit(&render(&synced, &db.display().to_string()))?;
    Ok(ExitCode::Clean)
}

fn render(s: &Synced, db: &str) -> String {
    let d = &s.stored;
    let pages = if s.pages == 1 { "page" } else { "pages" };
    let mut out = format!(
        "Read {} {pages} of the account's history: {} requests. Recorded in {}:\n",
        s.pages,
        s.entries,
        crate::text::printable(db)
    );
    let known = d.known + d.synced_before;
    let lines = [
        (
            "new observations stored",
            d.new_observations,
            (d.added > d.new_observations).then(|| {
                format!(
                    "and {} later sightings of them",
                    d.added - d.new_observations
                )
            }),
        ),
        (
            "already known",
            known,
            (known > 0).then(|| {
                format!(
                    "{} already in the rating history, {} synced before",
                    d.known, d.synced_before
                )
            }),
        ),
        (
            "kept for the audit only",
            d.earlier,
            (d.earlier > 0)
                .then(|| "older than the history the database holds for their company".into()),
        ),
        ("companies new to the database", d.new_companies, None),
        ("without a requestDate, not stored", d.undated, None),
    ];
    for (label, n, note) in lines {
        if label.starts_with("without") && n == 0 {
            continue;
        }
        out.push_str(&format!("  {label:<31} {n:>7}"));
        if let Some(note) = note {
            out.push_str(&format!("  ({note})"));
        }
        out.push('\n');
    }
    out
}
