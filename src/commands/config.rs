//! `ratewatch config`: the settings `screen` would use and where each came from, so a
//! surprising value can be traced to its flag, variable, file line or default.
//!
//! The API key and the SMTP password are shown only as set or unset and where from; their
//! values are never read into anything that is printed. Every URL is shown as
//! [`redacted_url`] shows URLs: no user, password or query value (of a webhook's URL, its
//! scheme, host and port only), even to
//! `--get`, whose output lands in scripts and their logs.
//!
//! [`redacted_url`]: crate::text::redacted_url

use serde_json::{Value, json};

use super::emit;
use crate::connection::KeySource;
use crate::deliver::email::Mailer;
use crate::error::{Error, ExitCode};
use crate::settings::cli::ConfigArgs;
use crate::settings::config::{CONFIG_ENV, CONFIG_FILE, KEY_ENV, Settings, Sources};

pub fn show(args: ConfigArgs, sources: Sources) -> Result<ExitCode, Error> {
    let settings = Settings::for_run(&args.settings, &sources)?;
    // Each setting as `{"value", "source", "from"}`, in the order of `Settings`.
    let shown = match serde_json::to_value(&settings) {
        Ok(Value::Object(shown)) => shown,
        _ => unreachable!("settings serialize as a map"),
    };
    // A value alone as the file would spell it; none is an empty line.
    let alone = |value: &Value| match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let Some(name) = &args.get {
        // One value alone, for scripts: `OUT=$(ratewatch config --get out)`.
        let setting = shown.get(name).ok_or_else(|| {
            let known: Vec<&str> = shown.keys().map(String::as_str).collect();
            Error::Config(format!(
                "--get: unknown setting `{name}`; the settings are {}",
                known.join(", ")
            ))
        })?;
        emit(&format!("{}\n", alone(&setting["value"])))?;
        return Ok(ExitCode::Clean);
    }
    // A key file that cannot be read is shown as the problem it is, not as a failed command.
    let (key_status, key_ok) = if settings.demo {
        ("not used (--demo)".to_string(), true)
    } else {
        match sources.api_key(&settings.api_key_file) {
            Ok(Some((_, KeySource::Env))) => (format!("set ({KEY_ENV})"), true),
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
    let (email, email_ok) = email_shown(&settings);

    let text = if args.json {
        let document = json!({
            "config_file": file.map(|(path, found_by)| json!({"path": path, "found_by": found_by})),
            "demo": settings.demo,
            "settings": shown,
            "api_key": key_status,
            "email": email.as_ref().map(|rows| {
                let mut shown: serde_json::Map<String, Value> = rows
                    .iter()
                    .map(|(key, value)| (key.to_string(), value.clone()))
                    .collect();
                shown.insert("from_file".into(), json!(settings.email.origin.to_string()));
                Value::Object(shown)
            }),
        });
        let mut text = serde_json::to_string_pretty(&document)
            .map_err(|e| Error::Config(format!("cannot write JSON: {e}")))?;
        text.push('\n');
        text
    } else {
        let mut text = match &file {
            Some((path, found_by)) => format!("config file: {path} ({found_by})\n\n"),
            None => format!(
                "config file: none (no {CONFIG_FILE} here, no --config, no {CONFIG_ENV})\n\n"
            ),
        };
        let mut rows = Vec::with_capacity(shown.len() + 1);
        for (key, setting) in &shown {
            let value = match &setting["value"] {
                Value::Null => "-".to_string(),
                value => alone(value),
            };
            rows.push(vec![key.clone(), value, alone(&setting["from"])]);
            if key == "api_key_file" {
                rows.push(vec!["api key".into(), key_status.clone(), String::new()]);
            }
        }
        match &email {
            None => rows.push(vec!["email".into(), "-".into(), "default".into()]),
            Some(shown) => {
                for (key, value) in shown {
                    let value = match value {
                        Value::Null => "-".to_string(),
                        Value::Array(items) => {
                            items.iter().map(alone).collect::<Vec<_>>().join(", ")
                        }
                        other => alone(other),
                    };
                    let from = match *key {
                        "password" => String::new(),
                        _ => settings.email.origin.to_string(),
                    };
                    rows.push(vec![format!("email.{key}"), value, from]);
                }
            }
        }
        text.push_str(&crate::text::render(&["setting", "value", "from"], &rows));
        let hint = settings
            .notify_webhook
            .value
            .as_ref()
            .and_then(|url| url.format_hint(settings.webhook_format.value));
        if let Some(hint) = hint {
            text.push_str(&format!("\nhint: {hint}\n"));
        }
        text
    };
    emit(&text)?;
    Ok(if key_ok && email_ok {
        ExitCode::Clean
    } else {
        ExitCode::Usage
    })
}

/// `[email]` as shown: each key with its value (the server without credentials, which the
/// URL never holds), and the password as set or not and from which file, never its value;
/// `false` when its file cannot be read.
fn email_shown(settings: &Settings) -> (Option<Vec<(&'static str, Value)>>, bool) {
    let Some(email) = &settings.email.value else {
        return (None, true);
    };
    let (password, ok) = match (&email.password_file, Mailer::of(settings)) {
        (None, _) => ("none: no AUTH".to_string(), true),
        (Some(path), Ok(_)) => (format!("set (file {})", path.display()), true),
        (Some(_), Err(e)) => (format!("error: {e}"), false),
    };
    let shown = vec![
        ("smtp", json!(email.smtp.to_string())),
        ("from", json!(email.from.to_string())),
        (
            "to",
            json!(email.to.iter().map(ToString::to_string).collect::<Vec<_>>()),
        ),
        ("starttls", json!(email.starttls.as_str())),
        ("username", json!(email.username)),
        (
            "password_file",
            json!(
                email
                    .password_file
                    .as_ref()
                    .map(|p| p.display().to_string())
            ),
        ),
        ("password", json!(password)),
    ];
    (Some(shown), ok)
}
