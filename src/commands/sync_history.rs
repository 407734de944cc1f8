//! `ratewatch sync-history`: flags to a sync of the account's history, and its summary on
//! stdout. The sync itself is the library's (`crate::sync_history`).

use super::emit;
use crate::connection::ServiceSettings;
use crate::error::{Error, ExitCode};
use crate::settings::cli::SyncHistoryArgs;
use crate::settings::config::{Settings, Sources};
use crate::sync_history::{self, SyncRequest, Synced};

pub async fn sync(args: SyncHistoryArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = args.db.resolve(&sources)?.value;
    let settings = Settings::for_service(&args.service_args, &sources)?;
    // The same bounds, retries and 429 pause as a screening run.
    let limits = settings.limits();
    let service = ServiceSettings::new(&settings, &sources)?;
    let synced = sync_history::sync(&SyncRequest {
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
    let mut lines = vec![
        (
            "new observations stored",
            d.new_observations,
            (d.added > d.new_observations).then(|| {
                format!(
                    "and {} requests that saw one of them again",
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
    ];
    if d.undated > 0 {
        lines.push(("without a requestDate, not stored", d.undated, None));
    }
    if d.future > 0 {
        lines.push((
            "dated in the future, set aside",
            d.future,
            Some("more than a day ahead of this machine's clock".into()),
        ));
    }
    if s.malformed > 0 {
        lines.push((
            "malformed, set aside",
            s.malformed,
            Some("not readable as a rating: see the log".into()),
        ));
    }
    for (label, n, note) in lines {
        out.push_str(&format!("  {label:<33} {n:>7}"));
        if let Some(note) = note {
            out.push_str(&format!("  ({note})"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::AccountSync;

    #[test]
    fn the_summary_counts_each_fate_and_explains_only_what_happened() {
        let quiet = Synced {
            pages: 1,
            entries: 3,
            malformed: 0,
            stored: AccountSync {
                new_observations: 3,
                added: 3,
                new_companies: 1,
                ..AccountSync::default()
            },
        };
        let text = render(&quiet, "r.db");
        assert!(
            text.starts_with(
                "Read 1 page of the account's history: 3 requests. Recorded in r.db:\n"
            ),
            "{text}"
        );
        let line = |label: &str, n: u64| format!("  {label:<33} {n:>7}");
        for part in [line("new observations stored", 3), line("already known", 0)] {
            assert!(text.contains(&format!("{part}\n")), "{part}: {text}");
        }
        assert!(
            !text.contains("requestDate") && !text.contains('(') && !text.contains("aside"),
            "{text}"
        );

        let busy = Synced {
            pages: 2,
            entries: 11,
            malformed: 1,
            stored: AccountSync {
                new_observations: 1,
                added: 2,
                known: 3,
                synced_before: 1,
                earlier: 1,
                undated: 1,
                future: 1,
                ..AccountSync::default()
            },
        };
        let text = render(&busy, "r.db");
        for part in [
            "(and 1 requests that saw one of them again)".to_string(),
            format!(
                "{}  (3 already in the rating history, 1 synced before)",
                line("already known", 4)
            ),
            format!("{}  (older than", line("kept for the audit only", 1)),
            format!("{}\n", line("without a requestDate, not stored", 1)),
            format!(
                "{}  (more than a day ahead of this machine's clock)\n",
                line("dated in the future, set aside", 1)
            ),
            format!(
                "{}  (not readable as a rating",
                line("malformed, set aside", 1)
            ),
        ] {
            assert!(text.contains(&part), "{part}: {text}");
        }
    }
}
