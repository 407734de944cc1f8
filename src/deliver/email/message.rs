//! The night's message: whether there is one ([`compose`]: never on a quiet night), its
//! subject, its plain part (the summary as printed) and its HTML part (`email.html`), then
//! the message as sent, with its Message-ID made of the delivery id.

use askama::Template;
use lettre::message::header::{
    ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue,
};
use lettre::message::{Message, MultiPart, SinglePart};

use super::EmailSettings;
use crate::deliver::{EndedRun, Reading};
use crate::digest::{AlertDigest, AlertLine, Figures, refreshed, same_column};
use crate::links::PageUrl;
use crate::locale::{Locale, Reader};
use crate::model::{AlertKind, Color, RowStatus, RunInfo, RunStatus};
use crate::report::summary::is_loud;
use crate::text::printable;

/// A message ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub subject: String,
    pub plain: String,
    pub html: String,
    /// The message's delivery id, the left part of its Message-ID; `None` for a run
    /// without a record (its message is never sent again: any Message-ID does).
    pub delivery_id: Option<String>,
}

/// How a night went, as far as the message says it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Night {
    /// Complete, something rated: news only if alerts are listed.
    Fine,
    Failed,
    /// Nothing rated at all.
    NothingScreened {
        rows: u64,
    },
    Stopped {
        failed: u64,
    },
    Partial {
        failed: u64,
    },
}

impl Night {
    fn of(run: Option<&RunInfo>, ended: &EndedRun<'_>) -> Night {
        match run {
            Some(run) if run.screened_nobody() => Night::NothingScreened { rows: run.rows },
            _ if !ended.ok => Night::Failed,
            None => Night::Failed,
            Some(run) => {
                let failed = run.rows_with(RowStatus::Failed);
                match run.status {
                    RunStatus::Complete => Night::Fine,
                    RunStatus::Interrupted => Night::Stopped { failed },
                    RunStatus::Partial => Night::Partial { failed },
                    RunStatus::Failed | RunStatus::Running => Night::Failed,
                }
            }
        }
    }

    /// The subject's words: `PARTIAL, 12 rows not screened`.
    fn subject(self, l: Locale) -> Option<String> {
        let (id, count) = match self {
            Night::Fine => return None,
            Night::Failed => return Some(l.word("subject-failed")),
            Night::NothingScreened { rows } => ("subject-nothing-screened", rows),
            Night::Stopped { failed } => ("subject-stopped", failed),
            Night::Partial { failed } => ("subject-partial", failed),
        };
        Some(l.text(id, &[("count", count.into())]))
    }

    /// The line that says it in the HTML part, in the summary's words.
    fn line(self, r: &Reader, error: Option<&str>) -> Option<String> {
        let l = r.locale;
        match self {
            Night::Fine => None,
            Night::Failed => Some(match error {
                Some(error) => l.text("failed-line", &[("error", error.into())]),
                None => l.word("failed-unknown"),
            }),
            Night::NothingScreened { rows } => {
                let rows = l.text("rows", &[("count", rows.into())]);
                Some(l.text("nothing-screened", &[("rows", rows.into())]))
            }
            Night::Stopped { failed } => Some(l.text("state-stopped", &[("count", failed.into())])),
            Night::Partial { failed } => Some(l.text("state-partial", &[("count", failed.into())])),
        }
    }
}

/// The message of a night worth a look, or `None` on a quiet one (complete, something
/// rated, nothing listed). The plain part is the summary the run printed (`ended.summary`)
/// with the error that ended the run after the heading; the HTML part the same news laid
/// out from `read`.
pub fn compose(read: &Reading, ended: &EndedRun<'_>) -> Option<Letter> {
    let run = read.run.as_ref();
    let digest = read.digest.as_ref();
    let night = Night::of(run, ended);
    let listed = digest.map_or(0, |d| d.listed_total);
    if night == Night::Fine && listed == 0 {
        return None;
    }
    let r = &read.reader;
    let heading = match read.heading() {
        Some(heading) => heading.said(r),
        None => r.locale.text(
            "heading-no-run",
            &[
                ("when", r.moment(jiff::Timestamp::now()).into()),
                ("portfolio", printable(ended.portfolio).into()),
            ],
        ),
    };
    let day = run.map_or_else(jiff::Timestamp::now, |r| r.started_at);
    let news: Vec<String> = [
        night.subject(r.locale),
        digest.and_then(|d| kinds_said(r.locale, d)),
    ]
    .into_iter()
    .flatten()
    .collect();
    let subject = r.locale.text(
        "mail-subject",
        &[
            ("portfolio", printable(ended.portfolio).into()),
            ("day", r.date(day).into()),
            ("news", semicolons(r.locale, &news).into()),
        ],
    );

    let error = ended.error.map(|e| printable(&r.record(e)));
    let page = read.page.as_ref();
    let mut plain = match ended.summary.trim() {
        "" => digest_text(&read.reader, &heading, digest, page),
        _ => ended.summary.to_string(),
    };
    if let Some(error) = &error {
        let at = plain.find('\n').map_or(plain.len(), |i| i + 1);
        let line = r
            .locale
            .text("failed-line", &[("error", error.as_str().into())]);
        plain.insert_str(at, &format!("{line}\n"));
    }
    let html = Page::new(&subject, heading, night, error.as_deref(), read)
        .render()
        .unwrap_or_else(|e| format!("<p>{}</p>", crate::report::html::escape(&e.to_string())));
    Some(Letter {
        subject: printable(&subject),
        plain: crate::text::printable_text(&plain),
        html,
        delivery_id: read.delivery_id.clone(),
    })
}

/// The plain part of a night whose printed summary is not at hand (a message sent again
/// by a later run, or a run that printed none): its heading, then its figures and its
/// alerts as the summary lists them.
fn digest_text(
    r: &Reader,
    heading: &str,
    digest: Option<&AlertDigest>,
    page: Option<&PageUrl>,
) -> String {
    let mut text = format!("{heading}\n");
    if let Some(page) = page {
        let line = r.locale.text("inbox-line", &[("url", page.inbox().into())]);
        text.push_str(&format!("{line}\n"));
    }
    let Some(digest) = digest else {
        return text;
    };
    if let Some(figures) = &digest.figures {
        if let Some(line) = figures.at_risk_line(r) {
            text.push_str(&format!("{line}\n"));
        }
        if let Some(line) = figures.not_screened_line(r) {
            text.push_str(&format!("{line}\n"));
        }
    }
    if digest.listed_total > 0 {
        text.push_str(&format!("{}:\n", digest.totals_line(r)));
        for line in crate::digest::alert_table(r, digest, &digest.listed, page).lines() {
            text.push_str(&format!("  {line}\n"));
        }
        if digest.unlisted() > 0 {
            let more = r
                .locale
                .text("more-in-reports", &[("count", digest.unlisted().into())]);
            text.push_str(&format!("  {more}\n"));
        }
    }
    let figures = digest.figures.as_ref();
    for line in figures
        .and_then(|f| f.left_out_line(r))
        .into_iter()
        .chain(digest.standing_lines(r))
        .chain(digest.counted_line(r))
        .chain(figures.and_then(|f| f.failed_heading(r)))
    {
        text.push_str(&format!("{line}\n"));
    }
    if let Some(figures) = figures.filter(|f| f.failed_heading(r).is_some()) {
        for row in &figures.failed {
            let line = row.line_text(r, figures.amount_column.as_deref());
            text.push_str(&format!("  {line}\n"));
        }
        if let Some(more) = figures.failed_more_line(r) {
            text.push_str(&format!("  {more}\n"));
        }
    }
    text
}

/// The alerts in the subject's words, worst first: `1 new black, 3 new red`; the red and
/// black of a first screening apart, never called new: `15 black, 174 red at first
/// screening`.
fn kinds_said(l: Locale, digest: &AlertDigest) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    let mut first: Vec<String> = Vec::new();
    for k in digest.kinds.iter().filter(|k| k.count > 0) {
        let kind = k.kind.as_str().into();
        match k.kind {
            AlertKind::Black | AlertKind::Red => {
                let firsts = k.first_screenings.min(k.count);
                if firsts > 0 {
                    first.push(l.color_count(firsts, &Color::parse(k.kind.as_str())));
                }
                if k.count > firsts {
                    let count = (k.count - firsts).into();
                    said.push(l.text("subject-new", &[("count", count), ("color", kind)]));
                }
            }
            _ => said.push(l.text("subject-kind", &[("count", k.count.into()), ("kind", kind)])),
        }
    }
    let mut groups = Vec::new();
    if !said.is_empty() {
        groups.push(said.join(", "));
    }
    if !first.is_empty() {
        let list = first.join(", ");
        groups.push(l.text("subject-first", &[("list", list.into())]));
    }
    match (groups.is_empty(), digest.listed_total) {
        (_, 0) => None,
        (true, n) => Some(l.text("alerts", &[("count", n.into())])),
        (false, _) => Some(semicolons(l, &groups)),
    }
}

/// Parts of the subject, a semicolon between each: with a narrow no-break space before it
/// in French, as French sets its punctuation.
fn semicolons(l: Locale, parts: &[String]) -> String {
    match l {
        Locale::Fr => parts.join("\u{202f}; "),
        _ => parts.join("; "),
    }
}

/// One cell of the alerts' table: its text, and the styles this code chose for it.
struct Cell {
    text: String,
    style: &'static str,
    /// A color's badge, or empty.
    badge: &'static str,
    /// The page it links to (the company's, with `page_url`), or none.
    href: Option<String>,
}

/// The HTML part: `templates/email.html`.
#[derive(Template)]
#[template(path = "email.html")]
struct Page {
    /// The reader's language, `<html lang>`.
    lang: &'static str,
    subject: String,
    heading: String,
    /// What made the night loud, first: its state, the run's loud notes, a storm.
    loud: Vec<String>,
    totals: Option<String>,
    headers: Vec<String>,
    rows: Vec<Vec<Cell>>,
    /// `… and 12 more in the reports`, when the table is not the whole list.
    unlisted: Option<String>,
    standing: Vec<String>,
    counted: Option<String>,
    /// The rows by status, at the foot.
    counts: Option<String>,
    /// The inbox of `ratewatch serve`, with `page_url`; its link's words, and what they
    /// lead to.
    inbox: Option<String>,
    inbox_open: String,
    inbox_why: String,
    /// The link's words to the rows not screened.
    see_them: String,
    /// The figures' lines: at risk, what the alerts leave out of it.
    at_risk: Option<String>,
    left_out: Option<String>,
    /// The rows not screened, and the portfolio's page that lists them with why.
    not_screened: Option<String>,
    not_screened_page: Option<String>,
    /// The failed rows named, largest first, and how many more.
    failed_heading: Option<String>,
    failed: Vec<String>,
    failed_more: Option<String>,
}

impl Page {
    fn new(
        subject: &str,
        heading: String,
        night: Night,
        error: Option<&str>,
        read: &Reading,
    ) -> Page {
        let (run, digest) = (read.run.as_ref(), read.digest.as_ref());
        let (page, r) = (read.page.as_ref(), &read.reader);
        let l = r.locale;
        let mut loud: Vec<String> = night.line(r, error).into_iter().collect();
        // An error that ended a run whose state says something else (nothing rated).
        if let (Some(error), false) = (error, night == Night::Failed) {
            loud.insert(0, l.text("failed-line", &[("error", error.into())]));
        }
        if let Some(run) = run {
            loud.extend(
                run.notes
                    .iter()
                    .filter(|n| is_loud(n))
                    .map(|n| printable(&r.record(n))),
            );
        }
        let empty = AlertDigest::default();
        let digest = digest.unwrap_or(&empty);
        if let Some((changed, companies)) = digest.storm {
            loud.push(l.text(
                "storm",
                &[
                    ("changed", changed.into()),
                    ("companies", companies.into()),
                    ("listed", (digest.listed.len() as u64).into()),
                ],
            ));
        }
        let more =
            |count: u64| (count > 0).then(|| l.text("more-in-reports", &[("count", count.into())]));
        let mut headers: Vec<String> = ["Ref", "Company", "Country", "Color", "Alert"]
            .map(|h| r.locale.word(&format!("header-{}", h.to_lowercase())))
            .to_vec();
        headers.extend(digest.columns.iter().map(|c| printable(c)));
        headers.push(r.locale.word("header-refreshed"));
        let figures = digest.figures.as_ref();
        Page {
            lang: l.code(),
            subject: printable(subject),
            heading,
            loud,
            totals: (digest.listed_total > 0).then(|| digest.totals_line(r)),
            headers,
            rows: digest
                .listed
                .iter()
                .map(|a| cells(r, digest, a, page))
                .collect(),
            unlisted: more(digest.unlisted()),
            standing: digest.standing_lines(r),
            counted: digest.counted_line(r),
            counts: run.map(|run| counts(l, run)),
            inbox: page.map(PageUrl::inbox),
            inbox_open: l.word("open-inbox"),
            inbox_why: l.word("inbox-why"),
            see_them: l.word("see-them"),
            at_risk: figures.and_then(|f| f.at_risk_line(r)),
            left_out: figures.and_then(|f| f.left_out_line(r)),
            not_screened: figures.and_then(|f| f.not_screened_line(r)),
            not_screened_page: page.zip(run).map(|(p, r)| p.portfolio(&r.portfolio)),
            failed_heading: figures.and_then(|f| f.failed_heading(r)),
            failed: figures
                .map(|f| {
                    let column = f.amount_column.as_deref();
                    f.failed
                        .iter()
                        .map(|row| row.line_text(r, column))
                        .collect()
                })
                .unwrap_or_default(),
            failed_more: more(figures.map_or(0, Figures::failed_unnamed)),
        }
    }
}

/// A listed alert's cells, as the summary's table has them (see `digest::alert_table`);
/// the company links to its page with `page_url`.
fn cells(r: &Reader, digest: &AlertDigest, a: &AlertLine, page: Option<&PageUrl>) -> Vec<Cell> {
    let plain = |text: String| Cell {
        text: printable(&text),
        style: "",
        badge: "",
        href: None,
    };
    // A link needs a text: a company known by its id alone shows the id.
    let company = match a.company.is_empty() && page.is_some() {
        true => a.company_id.clone(),
        false => a.company.clone(),
    };
    let mut cells = vec![
        plain(a.refs.clone()),
        Cell {
            href: page.map(|p| p.company(&a.company_id)),
            ..plain(company)
        },
        plain(a.country.clone().unwrap_or_else(|| "-".into())),
        Cell {
            badge: badge(a.color.as_ref()),
            ..plain(a.movement(r))
        },
        plain(a.kind_said(r)),
    ];
    let amount_column = digest.amount_column.as_deref();
    for column in &digest.columns {
        let amount = amount_column.is_some_and(|c| same_column(c, column));
        cells.push(Cell {
            style: if amount {
                "text-align:right;white-space:nowrap"
            } else {
                ""
            },
            ..plain(a.shown_value(r, column, amount_column))
        });
    }
    cells.push(Cell {
        style: "white-space:nowrap",
        ..plain(refreshed(r, a.last_refresh_date))
    });
    cells
}

/// A color's badge, as report.html draws it; none for a color outside the five.
fn badge(color: Option<&Color>) -> &'static str {
    match color {
        Some(Color::Green) => "background:#1a7f37;color:#ffffff",
        Some(Color::Yellow) => "background:#f2c200;color:#1f2328",
        Some(Color::Red) => "background:#cf222e;color:#ffffff",
        Some(Color::Black) => "background:#111111;color:#ffffff",
        Some(Color::White) => "background:#ffffff;color:#1f2328;border:1px solid #8c959f",
        _ => "",
    }
}

/// `run 3 of customers (partial): 20 rows: 17 rated, 2 unresolved, 1 failed`.
fn counts(l: Locale, run: &RunInfo) -> String {
    let statuses: Vec<String> = RowStatus::ALL
        .iter()
        .filter(|s| run.rows_with(**s) > 0)
        .map(|s| l.status_count(run.rows_with(*s), *s))
        .collect();
    l.text(
        "mail-counts",
        &[
            ("run", run.id.to_string().into()),
            ("portfolio", printable(&run.portfolio).into()),
            ("state", l.run_status(run.status).into()),
            ("rows", l.text("rows", &[("count", run.rows.into())]).into()),
            ("statuses", statuses.join(", ").into()),
        ],
    )
}

/// The message as sent: From, To (every recipient), Subject, its Message-ID, and the two
/// parts as quoted-printable (readable as it travels, and safe for any line length).
pub(super) fn message(settings: &EmailSettings, letter: &Letter) -> Result<Message, String> {
    let part = |kind: ContentType, body: &str| {
        SinglePart::builder()
            .header(kind)
            .header(ContentTransferEncoding::QuotedPrintable)
            .body(body.to_string())
    };
    let mut builder = Message::builder()
        .from(settings.from.clone())
        .subject(letter.subject.clone())
        .message_id(message_id(settings, letter))
        .header(AutoSubmitted)
        .user_agent(concat!("ratewatch/", env!("CARGO_PKG_VERSION")).to_string());
    for to in &settings.to {
        builder = builder.to(to.clone());
    }
    builder
        .multipart(
            MultiPart::alternative()
                .singlepart(part(ContentType::TEXT_PLAIN, &letter.plain))
                .singlepart(part(ContentType::TEXT_HTML, &letter.html)),
        )
        .map_err(|e| format!("cannot make the message: {e}"))
}

/// `<DELIVERY-ID@DOMAIN-OF-FROM>`: the same for every attempt and resend of the message,
/// so that a mail system that took it once can drop it, and a reader sees it once. `None`
/// (a run without a record) leaves it to lettre: a random one at this host.
fn message_id(settings: &EmailSettings, letter: &Letter) -> Option<String> {
    let id = letter.delivery_id.as_ref()?;
    Some(format!("<{id}@{}>", settings.from.email.domain()))
}

/// `Auto-Submitted: auto-generated` (RFC 3834): no out-of-office reply comes back for a
/// nightly message.
#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".into())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::deliver::email::{SmtpUrl, StartTls};
    use crate::digest::KindTotal;

    #[test]
    fn the_message_id_is_the_delivery_id_at_the_sender_s_domain() {
        let settings = EmailSettings {
            smtp: SmtpUrl::parse("smtp://mail.example.com").unwrap(),
            from: "ratewatch <credit@example.com>".parse().unwrap(),
            to: vec!["a@example.com".parse().unwrap()],
            starttls: StartTls::Required,
            username: None,
            password_file: None,
        };
        let letter = |delivery_id: Option<&str>| Letter {
            subject: "ratewatch customers 2026-11-26: 1 new red".into(),
            plain: "plain".into(),
            html: "<p>html</p>".into(),
            delivery_id: delivery_id.map(String::from),
        };
        let id_of = |letter: &Letter| {
            let sent = message(&settings, letter).unwrap().formatted();
            let sent = String::from_utf8(sent).unwrap();
            sent.lines()
                .find_map(|l| l.strip_prefix("Message-ID: "))
                .map(String::from)
        };
        let named = letter(Some("0123456789abcdef0123456789abcdef"));
        let id = id_of(&named);
        assert_eq!(
            id.as_deref(),
            Some("<0123456789abcdef0123456789abcdef@example.com>")
        );
        assert_eq!(id_of(&named), id, "the same message, the same id");
        // A message without a delivery id (no run recorded) still gets one, lettre's.
        let unnamed = id_of(&letter(None)).unwrap();
        assert!(
            unnamed.starts_with('<') && unnamed.ends_with('>'),
            "{unnamed}"
        );
        assert_ne!(Some(&unnamed), id.as_ref());
    }

    fn ended<'a>(ok: bool, summary: &'a str, error: Option<&'a str>) -> EndedRun<'a> {
        EndedRun {
            portfolio: "customers",
            run_id: Some(1),
            ok,
            duration: Duration::from_secs(1),
            summary,
            error,
        }
    }

    fn rated(rated: u64, failed: u64) -> RunInfo {
        RunInfo {
            rows: rated + failed,
            by_status: vec![(RowStatus::Rated, rated), (RowStatus::Failed, failed)],
            status: if failed > 0 {
                RunStatus::Partial
            } else {
                RunStatus::Complete
            },
            ..RunInfo::example()
        }
    }

    fn reading(run: RunInfo, digest: AlertDigest) -> Reading {
        Reading {
            run: Some(run),
            digest: Some(digest),
            report: Some("/var/lib/ratewatch/reports/report.html".into()),
            last_success: None,
            delivery_id: Some("0123456789abcdef0123456789abcdef".into()),
            page: None,
            reader: Reader::default(),
        }
    }

    #[test]
    fn a_quiet_night_has_no_message_and_the_others_say_what_they_are() {
        let summary = "ratewatch 2026-11-21 · customers · run 1\nNothing flagged.\n";
        let quiet = reading(rated(20, 0), AlertDigest::default());
        assert_eq!(compose(&quiet, &ended(true, summary, None)), None);

        let partial = compose(
            &reading(rated(8, 12), AlertDigest::default()),
            &ended(true, summary, None),
        )
        .unwrap();
        assert_eq!(
            partial.subject,
            "ratewatch customers 2026-11-21: PARTIAL, 12 rows not screened"
        );
        assert_eq!(partial.plain, summary);
        assert!(
            partial
                .html
                .contains("PARTIAL: 12 rows failed and will be retried next run"),
            "{}",
            partial.html
        );
        assert!(partial.html.contains(
            "ratewatch 2026-11-21 · customers · run 1 · /var/lib/ratewatch/reports/report.html"
        ));

        let unresolved = RunInfo {
            rows: 5,
            by_status: vec![(RowStatus::Rated, 0), (RowStatus::Unresolved, 5)],
            ..RunInfo::example()
        };
        let nobody = compose(
            &reading(unresolved, AlertDigest::default()),
            &ended(true, summary, None),
        )
        .unwrap();
        assert_eq!(
            nobody.subject,
            "ratewatch customers 2026-11-21: NOTHING SCREENED, none of 5 rows rated"
        );

        let digest = AlertDigest {
            listed_total: 4,
            kinds: vec![
                KindTotal {
                    kind: AlertKind::Black,
                    count: 1,
                    first_screenings: 0,
                    amount: None,
                },
                KindTotal {
                    kind: AlertKind::Red,
                    count: 3,
                    first_screenings: 1,
                    amount: None,
                },
                KindTotal {
                    kind: AlertKind::Improved,
                    count: 0,
                    first_screenings: 0,
                    amount: None,
                },
            ],
            ..AlertDigest::default()
        };
        let news = compose(&reading(rated(8, 12), digest), &ended(true, summary, None)).unwrap();
        assert_eq!(
            news.subject,
            "ratewatch customers 2026-11-21: PARTIAL, 12 rows not screened; 1 new black, 2 new red; 1 red at first screening"
        );

        // An error after the heading, in both parts; without a record, a heading all the same.
        let failed = compose(
            &reading(rated(20, 0), AlertDigest::default()),
            &ended(false, summary, Some("the service refused the key <k>")),
        )
        .unwrap();
        assert_eq!(failed.subject, "ratewatch customers 2026-11-21: FAILED");
        assert_eq!(
            failed.plain,
            "ratewatch 2026-11-21 · customers · run 1\nFAILED: the service refused the key <k>\nNothing flagged.\n"
        );
        assert!(
            failed
                .html
                .contains("FAILED: the service refused the key &lt;k&gt;"),
            "{}",
            failed.html
        );
        let nothing = Reading::default();
        let failed = compose(
            &nothing,
            &EndedRun {
                run_id: None,
                ..ended(false, "", Some("no answer"))
            },
        )
        .unwrap();
        assert!(
            failed.subject.starts_with("ratewatch customers ")
                && failed.subject.ends_with(": FAILED")
        );
        assert!(
            failed
                .plain
                .ends_with(" · customers · no run recorded\nFAILED: no answer\n"),
            "{}",
            failed.plain
        );
    }

    #[test]
    fn a_french_or_german_reader_gets_the_subject_and_the_state_in_their_words() {
        use crate::locale::{Locale, Zone};
        let reader = |locale, zone: &str| Reader {
            locale,
            zone: Zone::named(zone).unwrap(),
        };
        let digest = AlertDigest {
            listed_total: 4,
            kinds: vec![
                KindTotal {
                    kind: AlertKind::Red,
                    count: 3,
                    first_screenings: 1,
                    amount: None,
                },
                KindTotal {
                    kind: AlertKind::Improved,
                    count: 2,
                    first_screenings: 0,
                    amount: None,
                },
            ],
            ..AlertDigest::default()
        };
        let summary = "résumé\n";
        let mail = |r: Reader| {
            let read = Reading {
                reader: r,
                ..reading(rated(8, 12), digest.clone())
            };
            compose(&read, &ended(true, summary, None)).unwrap()
        };
        // 2026-11-21T02:00:00Z, as RunInfo::example starts.
        let french = mail(reader(Locale::Fr, "Europe/Paris"));
        assert_eq!(
            french.subject,
            "ratewatch customers 21/11/2026\u{202f}: PARTIEL, 12 lignes non examinées\u{202f}; \
             2 passées en rouge, 2 améliorées\u{202f}; 1 rouge au premier examen"
        );
        for said in [
            "<html lang=\"fr\">",
            "PARTIEL\u{202f}: 12 lignes en échec seront réessayées au prochain passage",
            "passage 1 de customers (partiel)\u{202f}: 20 lignes\u{202f}: 8 notées, 12 en échec",
        ] {
            assert!(french.html.contains(said), "{said} in {}", french.html);
        }
        let german = mail(reader(Locale::De, "Europe/Berlin"));
        assert_eq!(
            german.subject,
            "ratewatch customers 21.11.2026: TEILWEISE, 12 Zeilen nicht geprüft; \
             2 neu nach Rot, 2 verbessert; 1 rote bei der ersten Prüfung"
        );
        assert!(german.html.contains("Lauf 1 von customers (teilweise)"));
        // English and UTC: the words and the day as they have always been.
        let english = mail(Reader::default());
        assert!(
            english
                .subject
                .starts_with("ratewatch customers 2026-11-21: PARTIAL")
        );
    }
}
