//! `ratewatch alerts test`: trying the rules of `[alerts]` (the library's
//! [`crate::alerts`]) on a past run before a night depends on them.

use super::{emit, open_read_only, store_error};
use crate::digest::alert_table;
use crate::error::{Error, ExitCode};
use crate::settings::cli::{AlertsAction, AlertsArgs, AlertsTestArgs};
use crate::settings::config::Sources;
use crate::store::{Verdicts, time_text};
use crate::text::{plural, printable};

pub fn alerts(args: AlertsArgs, sources: Sources) -> Result<ExitCode, Error> {
    match args.action {
        AlertsAction::Test(args) => test(args, sources),
    }
}

/// The rules decided again on a past run, into a scratch table of this connection only.
fn test(args: AlertsTestArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let fail = store_error(db);
    let mut store = open_read_only(db)?;
    let run_id = match args.run {
        Some(run) => run,
        None => match store.recent_runs(1).map_err(fail)?.first() {
            Some(run) => run.id,
            None => {
                return Err(Error::Config(
                    "the database has no run yet: the rules need a screened run to try".into(),
                ));
            }
        },
    };
    let info = store.run_info(run_id).map_err(fail)?;
    // A run whose rows are gone would try the rules on nothing: a quiet night that is not.
    store.require_details(run_id).map_err(fail)?;
    let rules = sources.alert_rules();
    store
        .decide_alerts(run_id, &rules, Verdicts::Trial)
        .map_err(fail)?;
    let digest = store
        .alert_digest(run_id, &rules, Verdicts::Trial)
        .map_err(fail)?;
    let origin = match &sources.file {
        Some(file) => format!("the rules of {}", file.path.display()),
        None => "the default rules (no ratewatch.toml)".to_string(),
    };
    // The rules' trial is said in English, as the command's other lines are.
    let english = crate::locale::Reader::default();
    let mut text = format!(
        "{origin}, on run {run_id} of {} ({}):\n",
        printable(&info.portfolio),
        time_text(info.started_at)
    );
    if let Some((changed, companies)) = digest.storm {
        text.push_str(&format!(
            "a storm: {changed} of {companies} companies changed color; the summary would list the worst only\n"
        ));
    }
    if digest.listed_total == 0 {
        text.push_str("nothing would be listed: a quiet night, exit code 0\n");
    } else {
        text.push_str(&format!(
            "would be listed: {}:\n",
            digest.totals_line(&english)
        ));
        for line in alert_table(&english, &digest, &digest.listed, None).lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
        let unlisted = digest.unlisted();
        if unlisted > 0 {
            text.push_str(&format!("  … and {unlisted} more\n"));
        }
    }
    for line in digest.standing_lines(&english) {
        text.push_str(&format!(
            "{line} (in one line; repeat = \"{}\")\n",
            rules.repeat.as_str()
        ));
    }
    if let Some(line) = digest.counted_line(&english) {
        text.push_str(&line);
        text.push('\n');
    }
    if digest.acked > 0 {
        text.push_str(&format!(
            "{} acknowledged would be left out\n",
            plural(digest.acked, "alert", "alerts")
        ));
    }
    text.push_str(&format!(
        "The run itself listed {} by the rules it ran with.\n",
        plural(info.alerts, "alert", "alerts")
    ));
    emit(&text)?;
    Ok(if digest.listed_total > 0 {
        ExitCode::Attention
    } else {
        ExitCode::Clean
    })
}
