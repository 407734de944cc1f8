//! `--metrics-file`: a run's figures in the Prometheus text exposition format, for
//! node_exporter's textfile collector. Every metric is named `ratewatch_…` and carries a
//! `portfolio` label; the file is replaced whole (written beside, then renamed), so the
//! collector never reads half of it.

use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::future::BoxFuture;

use super::{Channel, EndedRun, Reading, Sent, Wants};
use crate::alerts::Rules;
use crate::model::{RowStatus, RunInfo, RunStatus};
use crate::report::AtomicFile;

/// The colors always exported, zero included, so a query never finds one missing.
const COLORS: [&str; 5] = ["green", "yellow", "red", "black", "white"];

/// `--metrics-file`: where the figures of every run go, the last run's replacing the one
/// before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsFile {
    pub path: PathBuf,
}

impl Channel for MetricsFile {
    fn name(&self) -> &'static str {
        "metrics"
    }

    /// Each run's file replaces the last: a file not written is never written late.
    fn kept(&self) -> bool {
        false
    }

    fn wants(&self, _: &Rules) -> Wants {
        Wants {
            alerts: None,
            last_success: true,
        }
    }

    fn not_sent(&self, why: &str) -> String {
        format!("metrics: {} not written: {why}", self.path.display())
    }

    fn send<'a>(&'a self, reading: Reading, ended: &'a EndedRun<'a>) -> BoxFuture<'a, Sent> {
        Box::pin(async move {
            let path = &self.path;
            match write(path, &Figures::of(reading, ended)) {
                Ok(()) => {
                    tracing::info!(metrics_file = %path.display(), "metrics written");
                    Sent::default()
                }
                Err(e) => Sent::failed(self.not_sent(&e.to_string())),
            }
        })
    }
}

/// What the metrics file says of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub portfolio: String,
    /// The run's record, when the run got as far as one.
    pub run: Option<RunInfo>,
    /// The run finished complete (every row screened, none failed) without an error.
    pub success: bool,
    /// Its status as recorded; `failed` when it stopped before it had a record.
    pub status: RunStatus,
    pub duration: Duration,
    /// When this run ended (the file's writing).
    pub ended_at: jiff::Timestamp,
    /// When the portfolio's latest complete run finished, this one included.
    pub last_success: Option<jiff::Timestamp>,
}

impl Figures {
    /// The figures of the run as read, as it ended.
    fn of(reading: Reading, ended: &EndedRun<'_>) -> Figures {
        let mut run = reading.run;
        // Its texts and colors as the reports show them, whatever an older version stored.
        crate::model::MakePrintable::make_printable(&mut run);
        let status = match &run {
            Some(run) if ended.ok || run.status != RunStatus::Running => run.status,
            _ => RunStatus::Failed,
        };
        Figures {
            portfolio: crate::text::printable(ended.portfolio),
            // A run that rated nobody is no success, however it ended.
            success: ended.ok
                && status == RunStatus::Complete
                && run.as_ref().is_some_and(|r| !r.screened_nobody()),
            status,
            run,
            duration: ended.duration,
            ended_at: jiff::Timestamp::now(),
            last_success: reading.last_success,
        }
    }
}

/// The file's text.
pub fn render(f: &Figures) -> String {
    let mut out = String::new();
    let portfolio = format!("portfolio=\"{}\"", escape(&f.portfolio));
    let mut metric = |name: &str, help: &str, samples: &[(String, String)]| {
        let _ = writeln!(out, "# HELP ratewatch_{name} {}", escape_help(help));
        let _ = writeln!(out, "# TYPE ratewatch_{name} gauge");
        for (labels, value) in samples {
            let _ = writeln!(out, "ratewatch_{name}{{{portfolio}{labels}}} {value}");
        }
    };
    let one = |value: String| vec![(String::new(), value)];
    let label = |name: &str, value: &str| format!(",{name}=\"{}\"", escape(value));
    let seconds = |t: jiff::Timestamp| format!("{}", t.as_millisecond() as f64 / 1000.0);

    metric(
        "run_success",
        "1 when the last run finished complete (every row screened, none failed), else 0.",
        &one(u8::from(f.success).to_string()),
    );
    let statuses: Vec<_> = RunStatus::ALL
        .iter()
        .map(|s| {
            let value = u8::from(*s == f.status);
            (label("status", s.as_str()), value.to_string())
        })
        .collect();
    metric(
        "run_status",
        "The last run's status: 1 for the one it ended with, 0 for the others.",
        &statuses,
    );
    if let Some(run) = &f.run {
        metric(
            "run_id",
            "The last run's number in the database.",
            &one(run.id.to_string()),
        );
    }
    metric(
        "run_duration_seconds",
        "How long the last run took, in seconds.",
        &one(format!("{:.3}", f.duration.as_secs_f64())),
    );
    metric(
        "run_timestamp_seconds",
        "When the last run ended, in seconds since the Unix epoch.",
        &one(seconds(f.ended_at)),
    );
    metric(
        "last_success_timestamp_seconds",
        "When the portfolio's latest complete run finished, in seconds since the Unix epoch (0: never).",
        &one(f.last_success.map_or("0".to_string(), seconds)),
    );
    let by_status: Vec<_> = RowStatus::ALL
        .iter()
        .map(|s| {
            let n = f.run.as_ref().map_or(0, |run| {
                run.by_status
                    .iter()
                    .find(|(status, _)| status == s)
                    .map_or(0, |(_, n)| *n)
            });
            (label("status", s.as_str()), n.to_string())
        })
        .collect();
    metric("rows", "Rows of the last run by status.", &by_status);
    let colors = f.run.as_ref().map_or(&[][..], |run| &run.by_color[..]);
    let mut by_color: Vec<(String, String)> = COLORS
        .iter()
        .map(|c| {
            let n = colors
                .iter()
                .find(|(color, _)| color == c)
                .map_or(0, |(_, n)| *n);
            (label("color", c), n.to_string())
        })
        .collect();
    by_color.extend(
        colors
            .iter()
            .filter(|(color, _)| !COLORS.contains(&color.as_str()))
            .map(|(color, n)| (label("color", color), n.to_string())),
    );
    metric(
        "rows_by_color",
        "Rated rows of the last run by color.",
        &by_color,
    );
    metric(
        "alerts",
        "Alerts the last run listed, by the alert rules (one per company).",
        &one(f.run.as_ref().map_or(0, |r| r.alerts).to_string()),
    );
    let calls: Vec<_> = f
        .run
        .iter()
        .flat_map(|r| r.calls.iter())
        .map(|(endpoint, n)| (label("endpoint", endpoint), n.to_string()))
        .collect();
    metric(
        "calls",
        "Calls to the rating service by the last run, by endpoint.",
        &calls,
    );
    out
}

/// Writes the file whole or not at all: beside it under a temporary name (which the
/// textfile collector ignores: it reads `*.prom` only), then renamed over it.
pub fn write(path: &Path, figures: &Figures) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(render(figures).as_bytes())?;
    file.commit()
}

/// A label value: backslash, double quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

/// HELP text: backslash and newline escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', r"\\").replace('\n', r"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Figures {
        Figures {
            portfolio: "book \"A\"\\2\nB".into(),
            run: Some(RunInfo {
                id: 4,
                by_status: vec![(RowStatus::Rated, 3), (RowStatus::Failed, 1)],
                by_color: vec![("green".into(), 2), ("orange".into(), 1)],
                alerts: 1,
                calls: vec![("companies/ratings".into(), 3)],
                ..RunInfo::example()
            }),
            success: false,
            status: RunStatus::Partial,
            duration: Duration::from_millis(1500),
            ended_at: "2026-11-21T02:03:10Z".parse().unwrap(),
            last_success: Some("2026-11-20T02:03:10.5Z".parse().unwrap()),
        }
    }

    #[test]
    fn label_values_are_escaped_and_every_metric_has_help_and_type() {
        let text = render(&figures());
        let label = r#"portfolio="book \"A\"\\2\nB""#;
        // (metric, its labels after the portfolio's, value)
        for (metric, more, value) in [
            ("rows", r#",status="rated""#, "3"),
            ("rows", r#",status="ambiguous""#, "0"),
            ("rows_by_color", r#",color="orange""#, "1"),
            ("rows_by_color", r#",color="red""#, "0"),
            ("run_status", r#",status="partial""#, "1"),
            ("run_success", "", "0"),
            ("run_duration_seconds", "", "1.500"),
            ("last_success_timestamp_seconds", "", "1795140190.5"),
            ("calls", r#",endpoint="companies/ratings""#, "3"),
        ] {
            let line = format!("ratewatch_{metric}{{{label}{more}}} {value}\n");
            assert!(text.contains(&line), "{line} in {text}");
        }
        let mut names = Vec::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let name = line.split('{').next().unwrap();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for name in names {
            assert!(text.contains(&format!("# HELP {name} ")), "{name}");
            assert!(text.contains(&format!("# TYPE {name} gauge\n")), "{name}");
        }
    }

    #[test]
    fn a_run_without_a_record_still_says_it_failed_and_when_the_last_success_was() {
        let f = Figures {
            run: None,
            success: false,
            status: RunStatus::Failed,
            last_success: None,
            ..figures()
        };
        let text = render(&f);
        assert!(text.contains("status=\"failed\"} 1\n"), "{text}");
        assert!(text.contains("ratewatch_last_success_timestamp_seconds{"));
        assert!(text.contains("} 0\n"));
        assert!(!text.contains("ratewatch_run_id{"), "no run, no number");
    }
}
