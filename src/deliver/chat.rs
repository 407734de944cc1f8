//! A run's message for people in a chat: a Slack message (`text` for the notification,
//! Block Kit `blocks` for the channel) or a Teams card (one Adaptive Card in a message, as
//! a Teams workflow's webhook takes it).
//!
//! Both lay out the digest as the store read it, in the words of [`crate::digest`], so a
//! chat, the mail and the summary never disagree. Each keeps within its chat's limits:
//! what does not fit is counted, and the report has it. The user's texts (refs, names,
//! carried columns) can never format the message: escaped for Slack's mrkdwn, and only in
//! Teams' plain text runs, which no Markdown reaches.

use serde_json::{Value, json};

use super::Message;
use crate::digest::{AlertDigest, AlertLine, Heading, amount_in, same_column};
use crate::links::PageUrl;
use crate::locale::Reader;
use crate::model::{AlertKind, RunInfo, RunStatus};
use crate::text::printable;

/// Blocks in a Slack message at most.
const SLACK_BLOCKS: usize = 50;
/// Characters in a Slack section's text at most.
const SLACK_SECTION: usize = 3000;
/// Characters in a Slack header at most.
const SLACK_HEADER: usize = 150;
/// Characters of the notification's text: far more than a notification shows.
const SLACK_TEXT: usize = 3000;
/// Bytes of a Teams message at most: Teams refuses one over 28 KB; 1 KB is left for how
/// it counts them.
const TEAMS_BYTES: usize = 27 * 1024;
/// Characters one text of the user's (a name, refs, a carried value) takes in a line: a
/// company held by a thousand rows still leaves room for the others.
const USER_TEXT: usize = 300;

/// What one listed alert says, in plain words, for either chat.
struct Said {
    /// Its refs and the company's name: `C-1001, C-1002 Zhao Robotique SA`.
    who: String,
    /// The company's page, with `page_url`.
    page: Option<String>,
    country: Option<String>,
    /// `yellow → red · into red`.
    what: String,
    kind: AlertKind,
    /// The columns `[alerts] show` names, as (header, value), without the amount.
    columns: Vec<(String, String)>,
    /// The amount at stake, with the header of its column.
    amount: Option<(String, String)>,
}

fn said(r: &Reader, digest: &AlertDigest, a: &AlertLine, page: Option<&PageUrl>) -> Said {
    let amount_column = digest.amount_column.as_deref();
    let amount = amount_column
        .zip(a.amount)
        .map(|(column, amount)| (clip(column), amount_in(r, amount, Some(column))));
    let columns = digest
        .columns
        .iter()
        .filter(|c| amount.is_none() || !amount_column.is_some_and(|col| same_column(col, c)))
        .map(|c| (clip(c), clip(&a.shown_value(r, c, amount_column))))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    let mut who = clip(&a.refs);
    if !a.company.is_empty() {
        who.push(' ');
        who.push_str(&clip(&a.company));
    }
    Said {
        who,
        page: page.map(|p| p.company(&a.company_id)),
        country: a.country.as_deref().map(clip),
        what: format!("{} · {}", printable(&a.movement(r)), a.kind_said(r)),
        kind: a.kind,
        columns,
        amount,
    }
}

/// The line under the heading: the alerts and what each kind puts at stake, and how the
/// run ended when it did not complete.
fn summary(r: &Reader, run: &RunInfo, digest: &AlertDigest) -> String {
    let l = r.locale;
    let mut line = if digest.listed_total == 0 {
        l.word("no-alerts")
    } else {
        digest.totals_line(r)
    };
    if run.status != RunStatus::Complete {
        let status = l.run_status(run.status);
        line.push_str(" — ");
        line.push_str(&l.text("run-ended", &[("status", status.into())]));
    }
    line
}

/// The run's figures for people, one line each: what is at risk and came into red and
/// black, and who is not screened (with the portfolio's page that lists them, when
/// `page_url` is set: the line and its link).
fn figures_lines(message: &Message) -> Vec<(String, Option<String>)> {
    let Some(figures) = &message.digest.figures else {
        return Vec::new();
    };
    let r = &message.reader;
    let mut lines: Vec<(String, Option<String>)> = figures
        .at_risk_line(r)
        .map(|l| (l, None))
        .into_iter()
        .collect();
    if let Some(line) = figures.not_screened_line(r) {
        let page = message
            .page
            .as_ref()
            .map(|p| p.portfolio(&message.run.portfolio));
        lines.push((line, page));
    }
    lines
}

/// The failed rows named, largest amount first, under their heading; the rest counted.
fn failed_lines(r: &Reader, digest: &AlertDigest) -> Vec<String> {
    let Some(figures) = &digest.figures else {
        return Vec::new();
    };
    let Some(heading) = figures.failed_heading(r) else {
        return Vec::new();
    };
    let mut lines = vec![heading];
    lines.extend(figures.failed.iter().map(|row| {
        cut(
            &row.line_text(r, figures.amount_column.as_deref()),
            USER_TEXT,
        )
    }));
    lines.extend(figures.failed_more_line(r));
    lines
}

/// Listed alerts the message leaves to the report, `shown` being listed one by one.
fn more(digest: &AlertDigest, shown: usize) -> u64 {
    digest.listed_total.saturating_sub(shown as u64)
}

/// The closing line: how many more the report lists, where it is, and the run.
fn footer(r: &Reader, heading: &Heading, more: u64) -> String {
    let l = r.locale;
    let report = heading.report.as_deref().map(printable);
    let mut line = match (more, &report) {
        (0, _) => String::new(),
        (n, Some(_)) => format!("{} · ", l.text("more-in-report", &[("count", n.into())])),
        (n, None) => format!("{} · ", l.text("more-in-reports", &[("count", n.into())])),
    };
    let run = l.text("run-number", &[("run", heading.run_id.to_string().into())]);
    if let Some(path) = report {
        line.push_str(&l.text("report-path", &[("path", path.into())]));
        line.push_str(" · ");
    }
    line.push_str(&run);
    line
}

/// The heading without the report's path, which the footer gives.
fn title(r: &Reader, heading: &Heading) -> String {
    Heading {
        report: None,
        ..heading.clone()
    }
    .said(r)
}

/// A text of the user's, printable and at most [`USER_TEXT`] characters.
fn clip(text: &str) -> String {
    cut(&printable(text), USER_TEXT)
}

/// `text` in at most `max` characters, `…` ending one that was longer.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Text for Slack's mrkdwn: `&`, `<` and `>` escaped, so that no text of the user's makes
/// a link or a mention (`<!channel>`).
fn mrkdwn(text: &str) -> String {
    printable(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Escaped mrkdwn in at most `max` characters, never cutting an escape in two.
fn cut_mrkdwn(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    if let Some(amp) = out.rfind('&')
        && !out[amp..].contains(';')
    {
        out.truncate(amp);
    }
    out.push('…');
    out
}

/// The Slack message of a run: `text`, the heading and the summary for the notification;
/// `blocks`, a header, the summary, a section per listed alert, the standing red and
/// black, the changes only counted, and a context line with the report's path and the
/// run. Within 50 blocks: the alerts that do not fit are counted in the last block.
pub fn slack(message: &Message) -> Value {
    let Message {
        run,
        digest,
        heading,
        page,
        reader: r,
        ..
    } = message;
    let summary = summary(r, run, digest);
    let text = cut_mrkdwn(
        &format!("{}: {}", mrkdwn(&heading.said(r)), mrkdwn(&summary)),
        SLACK_TEXT,
    );
    let mut blocks = vec![
        json!({
            "type": "header",
            "text": {"type": "plain_text", "text": cut(&title(r, heading), SLACK_HEADER)},
        }),
        section(&mrkdwn(&summary)),
    ];
    let figures: Vec<String> = figures_lines(message)
        .into_iter()
        .map(|(line, page)| match page {
            Some(page) => format!(
                "{} · {}",
                mrkdwn(&line),
                slack_link(&page, &r.locale.word("see-them"))
            ),
            None => mrkdwn(&line),
        })
        .collect();
    if !figures.is_empty() {
        blocks.push(section(&figures.join("\n")));
    }
    let mut after = Vec::new();
    let standing: Vec<String> = digest
        .figures
        .as_ref()
        .and_then(|f| f.left_out_line(r))
        .into_iter()
        .chain(digest.standing_lines(r))
        .collect();
    if !standing.is_empty() {
        let lines: Vec<String> = standing.iter().map(|l| mrkdwn(l)).collect();
        after.push(section(&lines.join("\n")));
    }
    if let Some(line) = digest.counted_line(r) {
        after.push(section(&mrkdwn(&line)));
    }
    let failed = failed_lines(r, digest);
    if !failed.is_empty() {
        let lines: Vec<String> = failed.iter().map(|l| mrkdwn(l)).collect();
        after.push(section(&lines.join("\n")));
    }
    // The context block closes the message.
    let room = SLACK_BLOCKS.saturating_sub(blocks.len() + after.len() + 1);
    let shown = digest.listed.len().min(room);
    for a in &digest.listed[..shown] {
        blocks.push(section(&slack_alert(&said(r, digest, a, page.as_ref()))));
    }
    blocks.extend(after);
    let mut closing = cut_mrkdwn(
        &mrkdwn(&footer(r, heading, more(digest, shown))),
        SLACK_SECTION,
    );
    if let Some(page) = page {
        closing = format!(
            "{} · {closing}",
            slack_link(&page.inbox(), &r.locale.word("open-inbox"))
        );
    }
    blocks.push(json!({
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": closing}],
    }));
    json!({"text": text, "blocks": blocks})
}

/// A Slack link to one of the page's addresses (`page_url`'s, percent-encoded: no `|` or
/// `>` ends it early), its label escaped.
fn slack_link(url: &str, label: &str) -> String {
    format!("<{url}|{}>", mrkdwn(label))
}

fn section(text: &str) -> Value {
    json!({
        "type": "section",
        "text": {"type": "mrkdwn", "text": cut_mrkdwn(text, SLACK_SECTION)},
    })
}

/// `*C-1001 Zhao Robotique SA* (FR)` (a link to the company's page with `page_url`), then
/// `yellow → red · into red`, then the columns.
fn slack_alert(said: &Said) -> String {
    let mut text = match &said.page {
        Some(page) => format!("*{}*", slack_link(page, &said.who)),
        None => format!("*{}*", mrkdwn(&said.who)),
    };
    if let Some(country) = &said.country {
        text.push_str(&format!(" ({})", mrkdwn(country)));
    }
    text.push('\n');
    text.push_str(&mrkdwn(&said.what));
    let columns: Vec<String> = said
        .amount
        .iter()
        .chain(&said.columns)
        .map(|(header, value)| format!("{}: {}", mrkdwn(header), mrkdwn(value)))
        .collect();
    if !columns.is_empty() {
        text.push('\n');
        text.push_str(&columns.join(" · "));
    }
    text
}

/// The Teams message of a run: one Adaptive Card (1.4) with the heading, the summary, a
/// row per listed alert (the company and what happened on the left, the amount on the
/// right), the standing red and black, the changes only counted, and the report's path.
/// Within 28 KB: the alerts that do not fit are counted.
pub fn teams(message: &Message) -> Value {
    let Message {
        run,
        digest,
        heading,
        page,
        reader: r,
        ..
    } = message;
    let mut head = vec![
        rich(vec![text_run(&title(r, heading)).bolder().size("Medium")]),
        rich(vec![text_run(&summary(r, run, digest))]),
    ];
    for (line, link) in figures_lines(message) {
        let mut runs = vec![text_run(&line)];
        if let Some(link) = link {
            runs.push(text_run(" · "));
            runs.push(text_run(&r.locale.word("see-them")).link(&link));
        }
        head.push(rich(runs));
    }
    let mut after: Vec<Value> = digest
        .figures
        .as_ref()
        .and_then(|f| f.left_out_line(r))
        .into_iter()
        .chain(digest.standing_lines(r))
        .map(|l| rich(vec![text_run(&l)]))
        .collect();
    if let Some(line) = digest.counted_line(r) {
        after.push(rich(vec![text_run(&line)]));
    }
    let failed = failed_lines(r, digest);
    if !failed.is_empty() {
        after.push(rich(vec![text_run(&failed.join("\n"))]));
    }
    let actions: Vec<Value> = page
        .iter()
        .map(|p| json!({"type": "Action.OpenUrl", "title": r.locale.word("open-inbox"), "url": p.inbox()}))
        .collect();
    let size = |v: &Value| v.to_string().len();
    // Room for the longest closing line there can be.
    let longest = rich(vec![text_run(&footer(r, heading, u64::MAX)).subtle()]);
    let fixed: Vec<Value> = head.iter().chain(&after).cloned().collect();
    let mut used = size(&card(fixed, &actions)) + size(&longest) + 1;
    let mut alerts = Vec::new();
    for a in &digest.listed {
        let item = teams_alert(&said(r, digest, a, page.as_ref()));
        let n = size(&item) + 1;
        if used + n > TEAMS_BYTES {
            break;
        }
        used += n;
        alerts.push(item);
    }
    let closing = rich(vec![
        text_run(&footer(r, heading, more(digest, alerts.len()))).subtle(),
    ]);
    let body: Vec<Value> = head
        .into_iter()
        .chain(alerts)
        .chain(after)
        .chain([closing])
        .collect();
    card(body, &actions)
}

/// A message with one Adaptive Card, as a Teams workflow's webhook ("When a Teams webhook
/// request is received") takes it; `actions` (a link to the inbox) under its body.
fn card(body: Vec<Value>, actions: &[Value]) -> Value {
    let mut card = json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": {
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "msteams": {"width": "Full"},
                "body": body,
            },
        }],
    });
    if !actions.is_empty() {
        card["attachments"][0]["content"]["actions"] = json!(actions);
    }
    card
}

/// One alert: a column with who, what happened and the columns shown; beside it, the
/// amount at stake and its column's header.
fn teams_alert(said: &Said) -> Value {
    let color = match said.kind {
        AlertKind::Black | AlertKind::Red | AlertKind::Gone => "Attention",
        AlertKind::Deteriorated | AlertKind::White | AlertKind::Unknown => "Warning",
        AlertKind::Improved => "Good",
        _ => "Default",
    };
    let mut who = vec![text_run(&said.who).bolder()];
    if let Some(country) = &said.country {
        who.push(text_run(&format!(" · {country}")));
    }
    let mut left = vec![rich(who), rich(vec![text_run(&said.what).color(color)])];
    if !said.columns.is_empty() {
        let columns: Vec<String> = said
            .columns
            .iter()
            .map(|(header, value)| format!("{header}: {value}"))
            .collect();
        left.push(rich(vec![text_run(&columns.join(" · ")).subtle()]));
    }
    let mut columns = vec![json!({"type": "Column", "width": "stretch", "items": left})];
    if let Some((header, amount)) = &said.amount {
        let right = vec![
            rich_right(text_run(amount).bolder()),
            rich_right(text_run(header).subtle()),
        ];
        columns.push(json!({"type": "Column", "width": "auto", "items": right}));
    }
    let mut container = json!({
        "type": "Container",
        "separator": true,
        "items": [{"type": "ColumnSet", "columns": columns}],
    });
    // The whole alert opens the company's page.
    if let Some(page) = &said.page {
        container["selectAction"] = json!({"type": "Action.OpenUrl", "url": page});
    }
    container
}

/// Text that no Markdown reaches: the user's texts are shown as they are.
fn rich(inlines: Vec<TextRun>) -> Value {
    let inlines: Vec<Value> = inlines.into_iter().map(|r| r.0).collect();
    json!({"type": "RichTextBlock", "inlines": inlines})
}

fn rich_right(run: TextRun) -> Value {
    json!({"type": "RichTextBlock", "horizontalAlignment": "Right", "inlines": [run.0]})
}

/// An Adaptive Card `TextRun`, printable.
struct TextRun(Value);

fn text_run(text: &str) -> TextRun {
    TextRun(json!({"type": "TextRun", "text": printable(text)}))
}

impl TextRun {
    fn with(mut self, key: &str, value: &str) -> TextRun {
        self.0[key] = json!(value);
        self
    }
    fn bolder(self) -> TextRun {
        self.with("weight", "Bolder")
    }
    fn subtle(mut self) -> TextRun {
        self.0["isSubtle"] = json!(true);
        self
    }
    fn size(self, size: &str) -> TextRun {
        self.with("size", size)
    }
    fn color(self, color: &str) -> TextRun {
        self.with("color", color)
    }
    /// A run that opens one of the page's addresses.
    fn link(mut self, url: &str) -> TextRun {
        self.0["selectAction"] = json!({"type": "Action.OpenUrl", "url": url});
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{KindTotal, Standing};
    use crate::model::{Color, RowStatus};

    fn line(n: usize, company: &str, amount: Option<f64>) -> AlertLine {
        AlertLine {
            kind: AlertKind::Red,
            company_id: format!("00000000-0000-0000-0000-{n:012}"),
            refs: format!("C-{n}"),
            company: company.into(),
            country: Some("FR".into()),
            color: Some(Color::Red),
            previous: Some(Color::Yellow),
            last_refresh_date: None,
            shown: vec![
                ("Encours".into(), "1 000,00".into()),
                ("Commercial".into(), "<!channel> & <script>".into()),
            ],
            amount,
        }
    }

    fn message(listed: Vec<AlertLine>, total: u64) -> Message {
        let amount: f64 = listed.iter().filter_map(|a| a.amount).sum();
        let digest = AlertDigest {
            kinds: vec![KindTotal {
                kind: AlertKind::Red,
                count: total,
                first_screenings: 0,
                amount: Some(amount),
            }],
            standing: vec![Standing {
                color: Color::Black,
                count: 4,
                amount: Some(9_000.0),
                top: vec![line(900, "Noir <b>SA</b>", Some(9_000.0))],
            }],
            counted: vec![(AlertKind::Improved, 3)],
            listed,
            listed_total: total,
            columns: vec!["Encours".into(), "Commercial".into()],
            amount_column: Some("Encours".into()),
            ..AlertDigest::default()
        };
        let run = RunInfo {
            id: 34,
            started_at: "2026-11-26T02:00:00Z".parse().unwrap(),
            finished_at: None,
            portfolio: "customers".into(),
            input_path: "customers.csv".into(),
            portfolio_sha256: String::new(),
            status: RunStatus::Complete,
            demo_day: None,
            rows: total,
            by_status: vec![(RowStatus::Rated, total)],
            by_color: Vec::new(),
            alerts: total,
            calls: Vec::new(),
            service_time: None,
            extra_columns: Vec::new(),
            notes: Vec::new(),
        };
        Message {
            heading: Heading {
                started_at: run.started_at,
                portfolio: run.portfolio.clone(),
                run_id: run.id,
                report: Some("/var/lib/ratewatch/reports/report.html".into()),
            },
            reader: Reader::default(),
            run,
            digest,
            delivery_id: "5f0c3a9e2b7d41c8a6e9f0d1b2c3a4e5".into(),
            page: None,
        }
    }

    fn texts(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| texts(v, out)),
            Value::Object(map) => map.values().for_each(|v| texts(v, out)),
            _ => {}
        }
    }

    #[test]
    fn slack_escapes_the_user_s_texts_and_shows_the_amounts() {
        let m = message(vec![line(1, "Zhao & <Fils>", Some(150_000.0))], 1);
        let slack = slack(&m);
        let body = slack.to_string();
        for raw in ["<!channel>", "<script>", "<Fils>", "<b>"] {
            assert!(!body.contains(raw), "{raw} in {body}");
        }
        let alert = slack["blocks"][2]["text"]["text"].as_str().unwrap();
        assert_eq!(
            alert,
            "*C-1 Zhao &amp; &lt;Fils&gt;* (FR)\nyellow → red · into red\n\
             Encours: 150 000 · Commercial: &lt;!channel&gt; &amp; &lt;script&gt;"
        );
        let text = slack["text"].as_str().unwrap();
        assert!(
            text.starts_with("ratewatch 2026-11-26 · customers · run 34 · /var/lib/ratewatch/reports/report.html: 1 alert"),
            "{text}"
        );
        assert_eq!(
            slack["blocks"][0]["text"]["text"],
            "ratewatch 2026-11-26 · customers · run 34"
        );
        let last = slack["blocks"].as_array().unwrap().last().unwrap();
        assert_eq!(
            last["elements"][0]["text"],
            "report: /var/lib/ratewatch/reports/report.html · run 34"
        );
        assert!(
            body.contains("still black: 4 companies, 9 000 at stake"),
            "{body}"
        );
        assert!(body.contains("Noir &lt;b&gt;SA&lt;/b&gt;"), "{body}");
        assert!(body.contains("counted, not listed: 3 improved"), "{body}");
    }

    #[test]
    fn slack_keeps_within_50_blocks_and_counts_the_rest() {
        let listed: Vec<AlertLine> = (0..80).map(|n| line(n, "Name", Some(1.0))).collect();
        let slack = slack(&message(listed, 100));
        let blocks = slack["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), 50);
        let alerts = blocks
            .iter()
            .filter(|b| {
                b["text"]["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("*C-"))
            })
            .count();
        // A header, the summary, 45 alerts, the standing, the counted, the context.
        assert_eq!(alerts, 45);
        let last = blocks.last().unwrap()["elements"][0]["text"]
            .as_str()
            .unwrap();
        assert!(
            last.starts_with("… and 55 more in the report · report: "),
            "{last}"
        );
        // A long text is cut within a section's 3000 characters, never inside an escape.
        let cut = cut_mrkdwn(&mrkdwn(&"a&".repeat(1000)), SLACK_SECTION);
        assert!(cut.chars().count() <= SLACK_SECTION);
        assert!(cut.ends_with('…'), "{cut}");
        let escapes = cut.split('&').skip(1);
        assert!(escapes.clone().all(|e| e.starts_with("amp;")), "{cut}");
        assert!(escapes.count() > 400);
        // A user's text takes 300 characters at most.
        let long = said(
            crate::locale::english(),
            &message(vec![], 0).digest,
            &line(1, &"x".repeat(2000), None),
            None,
        );
        assert_eq!(long.who.chars().count(), "C-1 ".len() + USER_TEXT);
    }

    #[test]
    fn teams_is_an_adaptive_card_in_plain_text_runs_within_28_kb() {
        let m = message(
            vec![line(
                1,
                "Zhao **bold** [x](https://evil.example)",
                Some(150_000.0),
            )],
            1,
        );
        let teams = teams(&m);
        assert_eq!(teams["type"], "message");
        let attachment = &teams["attachments"][0];
        assert_eq!(
            attachment["contentType"],
            "application/vnd.microsoft.card.adaptive"
        );
        assert_eq!(attachment["content"]["type"], "AdaptiveCard");
        assert_eq!(attachment["content"]["version"], "1.4");
        // No TextBlock (its Markdown would make the name a link): text runs only.
        assert!(!teams.to_string().contains(r#""type":"TextBlock""#));
        let mut all = Vec::new();
        texts(&teams, &mut all);
        assert!(all.contains(&"150 000".to_string()), "{all:?}");
        assert!(all.contains(&"Encours".to_string()), "{all:?}");
        assert!(all.contains(&"C-1 Zhao **bold** [x](https://evil.example)".to_string()));
        assert!(all.contains(&"ratewatch 2026-11-26 · customers · run 34".to_string()));
        assert!(
            all.contains(&"report: /var/lib/ratewatch/reports/report.html · run 34".to_string())
        );

        let listed: Vec<AlertLine> = (0..500)
            .map(|n| line(n, &"Long Name ".repeat(20), Some(n as f64)))
            .collect();
        let teams = super::teams(&message(listed, 700));
        assert!(teams.to_string().len() <= TEAMS_BYTES);
        let body = teams["attachments"][0]["content"]["body"]
            .as_array()
            .unwrap();
        let alerts = body.iter().filter(|b| b["type"] == "Container").count();
        assert!((10..500).contains(&alerts), "{alerts}");
        let last = body.last().unwrap()["inlines"][0]["text"].as_str().unwrap();
        assert!(
            last.starts_with(&format!("… and {} more in the report", 700 - alerts)),
            "{last}"
        );
    }

    #[test]
    fn slack_and_teams_speak_the_reader_s_language() {
        let mut german = message(vec![line(1, "Zhao GmbH", Some(1_204_000.0))], 1);
        german.digest.amount_column = Some("Encours (€)".into());
        german.digest.columns = vec!["Encours (€)".into()];
        german.reader = Reader {
            locale: crate::locale::Locale::De,
            zone: "Europe/Berlin".parse().unwrap(),
        };
        let teams = teams(&german).to_string();
        for said in [
            "ratewatch 26.11.2026 03:00 CET · customers · Lauf 34",
            "1 Warnung, die schlimmsten zuerst",
            "gelb → rot · nach Rot",
            "1.204.000\u{a0}€",
            "weiterhin schwarz: 4 Unternehmen, 9.000\u{a0}€ im Risiko (Encours (€))",
            "3 verbessert",
        ] {
            assert!(teams.contains(said), "Teams lacks {said:?}: {teams}");
        }
        let slack = slack(&german).to_string();
        assert!(slack.contains("gelb → rot · nach Rot"), "{slack}");
        assert!(!slack.contains("into red") && !teams.contains("worst first"));
    }
}
