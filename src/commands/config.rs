//! `ratewatch config`: the settings `screen` would use and where each came from, so a
//! surprising value can be traced to its flag, variable, file line or default.
//!
//! The API key is shown only as set or unset and where from; its value is never read into
//! anything that is printed. Every URL is shown as [`redacted_url`] shows URLs: no user,
//! password or query value (a webhook's path after its first segment neither), even to
//! `--get`, whose output lands in scripts and their logs.

use serde_json::{Value, json};

use super::emit;
use crate::cli::ConfigArgs;
use crate::config::{Key, Origin, Settings, Sources};
use crate::connection::KeySource;
use crate::error::{Error, ExitCode};
use crate::rate::RatingEndpoint;
use crate::report::csv::Dialect;
use crate::text::{UrlPath, redacted_url};

pub fn show(args: ConfigArgs, sources: Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_run(&args.settings, &sources)?;
    if let Some(name) = &args.get {
        // One value alone, for scripts: `OUT=$(ratewatch config --get out)`.
        let key = Key::by_name(name).ok_or_else(|| {
            let known: Vec<&str> = Key::ALL.iter().map(|k| k.name()).collect();
            Error::Config(format!(
                "--get: unknown setting `{name}`; the settings are {}",
                known.join(", ")
            ))
        })?;
        let shown = match value_of(&settings, key).0 {
            Value::Null => String::new(),
            Value::String(s) => s,
            other => other.to_string(),
        };
        emit(&format!("{shown}\n"))?;
        return Ok(ExitCode::Clean);
    }
    // A key file that cannot be read is shown as the problem it is, not as a failed command.
    let (key_status, key_ok) = if settings.demo {
        ("not used (--demo)".to_string(), true)
    } else {
        match sources.api_key(&settings.api_key_file) {
            Ok(Some((_, KeySource::Env))) => (format!("set ({})", crate::config::KEY_ENV), true),
            Ok(Some((_, KeySource::File(path)))) => {
                (format!("set (file {})", path.display()), true)
            }
            Ok(None) => ("unset".to_string(), true),
            Err(e) => (format!("error: {e}"), false),
        }
    };
    let file = sources
        .file
        .as_ref()
        .map(|f| (f.path.display().to_string(), f.found_by.to_string()));
    let values: Vec<(Key, Value, &Origin)> = Key::ALL
        .into_iter()
        .map(|k| {
            let (value, origin) = value_of(&settings, k);
            (k, value, origin)
        })
        .collect();

    let text = if args.json {
        let mut settings_json = serde_json::Map::new();
        for (key, value, origin) in &values {
            settings_json.insert(
                key.name().to_string(),
                json!({"value": value, "source": origin.kind(), "from": origin.to_string()}),
            );
        }
        let document = json!({
            "config_file": file.map(|(path, found_by)| json!({"path": path, "found_by": found_by})),
            "demo": settings.demo,
            "settings": settings_json,
            "api_key": key_status,
        });
        let mut text = serde_json::to_string_pretty(&document)
            .map_err(|e| Error::Config(format!("cannot write JSON: {e}")))?;
        text.push('\n');
        text
    } else {
        let mut text = match &file {
            Some((path, found_by)) => format!("config file: {path} ({found_by})\n\n"),
            None => format!(
                "config file: none (no {} here, no --config, no {})\n\n",
                crate::config::CONFIG_FILE,
                crate::config::CONFIG_ENV
            ),
        };
        let mut rows = Vec::with_capacity(values.len() + 1);
        for (key, value, origin) in &values {
            let shown = match value {
                Value::Null => "-".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            rows.push(vec![key.name().to_string(), shown, origin.to_string()]);
            if *key == Key::ApiKeyFile {
                rows.push(vec![
                    "api key".to_string(),
                    key_status.clone(),
                    String::new(),
                ]);
            }
        }
        text.push_str(&crate::text::render(&["setting", "value", "from"], &rows));
        text
    };
    emit(&text)?;
    Ok(if key_ok {
        ExitCode::Clean
    } else {
        ExitCode::Usage
    })
}

/// A setting's value as it would be written in the config file, and where it came from.
fn value_of(s: &Settings, key: Key) -> (Value, &Origin) {
    let path = |p: &std::path::Path| Value::from(p.display().to_string());
    match key {
        Key::BaseUrl => (
            json!(
                s.base_url
                    .value
                    .as_deref()
                    .map(|u| redacted_url(u, UrlPath::Whole))
            ),
            &s.base_url.origin,
        ),
        Key::ApiKeyFile => (
            s.api_key_file.value.as_deref().map_or(Value::Null, path),
            &s.api_key_file.origin,
        ),
        Key::Timeout => (json!(s.timeout.value.as_secs_f64()), &s.timeout.origin),
        Key::ConnectTimeout => (
            json!(s.connect_timeout.value.as_secs_f64()),
            &s.connect_timeout.origin,
        ),
        Key::Db => (path(&s.db.value), &s.db.origin),
        Key::Out => (path(&s.out.value), &s.out.origin),
        Key::Concurrency => (json!(s.concurrency.value), &s.concurrency.origin),
        Key::Endpoint => (
            json!(match s.endpoint.value {
                RatingEndpoint::Current => "current",
                RatingEndpoint::Deprecated => "deprecated",
            }),
            &s.endpoint.origin,
        ),
        Key::RatingMaxAge => (
            json!(s.rating_max_age_hours.value),
            &s.rating_max_age_hours.origin,
        ),
        Key::ResolutionMaxAge => (
            json!(s.resolution_max_age_days.value),
            &s.resolution_max_age_days.origin,
        ),
        Key::StaleAfter => (json!(s.stale_after_days.value), &s.stale_after_days.origin),
        Key::Retries => (json!(s.retries.value), &s.retries.origin),
        Key::RetryDelayMs => (
            json!(s.retry_delay.value.as_millis() as u64),
            &s.retry_delay.origin,
        ),
        Key::MaxRps => (json!(s.max_rps.value), &s.max_rps.origin),
        Key::MaxCalls => (json!(s.max_calls.value), &s.max_calls.origin),
        Key::MaxCallsPerMonth => (
            json!(s.max_calls_per_month.value),
            &s.max_calls_per_month.origin,
        ),
        Key::MaxWait => (json!(s.max_wait.value.as_secs_f64()), &s.max_wait.origin),
        Key::MaxSilence => (
            json!(s.max_silence.value.as_secs_f64()),
            &s.max_silence.origin,
        ),
        Key::MaxRunTime => (
            json!(s.max_run_time.value.as_secs_f64()),
            &s.max_run_time.origin,
        ),
        Key::DefaultCountry => (json!(s.default_country.value), &s.default_country.origin),
        // Shown without its credentials, as everywhere (the same redaction, the path cut).
        Key::NotifyWebhook => (
            json!(s.notify_webhook.value.as_ref().map(|u| u.redacted())),
            &s.notify_webhook.origin,
        ),
        Key::MetricsFile => (
            s.metrics_file.value.as_deref().map_or(Value::Null, path),
            &s.metrics_file.origin,
        ),
        Key::CsvDialect => (
            json!(match s.csv_dialect.value {
                Dialect::Standard => "standard",
                Dialect::Excel => "excel",
            }),
            &s.csv_dialect.origin,
        ),
        Key::Timestamped => (json!(s.timestamped.value), &s.timestamped.origin),
        Key::Quiet => (json!(s.quiet.value), &s.quiet.origin),
    }
}
