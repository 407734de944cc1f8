//! A run's figures, one definition each, said alike by every channel: what is at risk and
//! what came into red and black (the trend's), what the alerts leave out of it in words,
//! the rows not screened with the amount they hold and the failed ones named largest
//! first; and the links to `ratewatch serve` (`page_url`) from every message and
//! report.html, each of which the page answers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratewatch::deliver::Policy;
use ratewatch::digest::format_amount;
use ratewatch::model::Color;
use ratewatch::run::Request;
use ratewatch::sim::{CompanyRef, Dataset, SimConfig};
use serde_json::Value;

use crate::common::smtp::{Answer, Receiver, header, headers_and_body, parts, receiver};
use crate::common::{
    KEY, Workspace, a_night_passes, calendar_ending_on_today, rows_by_ref, sample_sim_ending_on,
    screen_in_this_process, start,
};
use crate::delivery::{Log, receiver as hook, slack_refuses, strings, teams_takes};
use crate::serve::Pages;

const PAGE: &str = "https://credit.example.com/ratewatch/";

/// The amount column of the portfolios here, and the threshold of `min_exposure`.
const EXPOSURE: &str = "[alerts]\namount = \"Encours\"\n\
    min_exposure = { column = \"Encours\", value = 50000 }\n";

/// The companies of the dataset, country by country, whose colors on days 1 to 4 `keep`
/// says to keep, at most `n`.
fn companies(data: &Dataset, n: usize, keep: impl Fn(&[Color]) -> bool) -> Vec<CompanyRef> {
    (0..5_000u32)
        .map(|i| CompanyRef {
            country: (i % 10) as usize,
            n: i / 10,
        })
        .filter(|r| {
            let colors: Vec<Color> = (1..=4).map(|day| data.rating(*r, day).color).collect();
            keep(&colors)
        })
        .take(n)
        .collect()
}

/// A portfolio by company id with an amount each (`Encours`), as (ref, company, amount):
/// companies red all four nights, some that turn red or black on the fourth, black ones,
/// and many that stay calm; the first red one held by a second account too. Amounts above
/// and below the threshold of [`EXPOSURE`].
fn book(data: &Dataset) -> Vec<(String, CompanyRef, f64)> {
    let red = |c: &Color| *c == Color::Red;
    let alarming = |c: &Color| matches!(c, Color::Red | Color::Black);
    let mut picked: Vec<CompanyRef> = companies(data, 8, |c| c.iter().all(red));
    picked.extend(companies(data, 12, |c| {
        alarming(&c[3]) && !alarming(&c[2]) && c[2] != Color::White
    }));
    picked.extend(companies(data, 6, |c| c.iter().all(|c| *c == Color::Black)));
    picked.extend(companies(data, 60, |c| !c.iter().any(alarming)));
    let mut rows: Vec<(String, CompanyRef, f64)> = picked
        .iter()
        .enumerate()
        .map(|(i, r)| {
            // 3 000 to 199 000, every fourth under 50 000.
            let amount = if i % 4 == 1 {
                3_000.0 + 1_100.0 * i as f64
            } else {
                60_000.0 + 1_750.0 * i as f64
            };
            (format!("C-{i:03}"), *r, amount)
        })
        .collect();
    rows.push(("C-900".into(), picked[0], 45_000.0));
    rows
}

fn book_csv(data: &Dataset, rows: &[(String, CompanyRef, f64)]) -> String {
    let mut csv = String::from("ref,country,company_id,Encours\n");
    for (reference, company, amount) in rows {
        let country = data.company(*company).address.country_code;
        // As a French ERP writes it: `60 000,00`.
        let written = format!("{},00", format_amount(*amount));
        csv.push_str(&format!(
            "{reference},{country},{},\"{written}\"\n",
            data.uuid(*company)
        ));
    }
    csv
}

/// The first paragraph of `html` whose element has `id="ID"`, its text between the tags.
fn by_id<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\">"))
        .unwrap_or_else(|| panic!("#{id} in {html}"));
    let rest = &html[at + id.len() + 6..];
    &rest[..rest.find("</").unwrap()]
}

/// The cells of the row of `table` (its markup) that opens with `row`, by their attribute
/// `attr` (`data-rows="red"` → `red`), up to the row's end.
fn cell<'a>(row: &'a str, open: &str) -> &'a str {
    let at = row.find(open).unwrap_or_else(|| panic!("{open} in {row}"));
    let rest = &row[at + open.len()..];
    &rest[..rest.find('<').unwrap()]
}

#[test]
fn the_page_report_html_the_summary_and_the_trend_say_the_same_at_risk_and_new_red() {
    let sim = sample_sim_ending_on(4);
    let data = sim.server.dataset();
    let ws = Workspace::new();
    let book = book(data);
    let file = ws.write("book.csv", book_csv(data, &book).as_bytes());
    ws.write("ratewatch.toml", EXPOSURE.as_bytes());
    let amounts: HashMap<String, f64> = book.iter().map(|(r, _, a)| (r.clone(), *a)).collect();
    let mut summary = String::new();
    for day in 1..=4 {
        sim.server.set_day(day);
        let out = ws.screen(&sim, &file).run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
        summary = String::from_utf8(out.stdout).unwrap();
        if day == 1 {
            // A company red every night, acknowledged: out of the alerts, not out of risk.
            let out = ws
                .ratewatch(["ack", "C-002", "--note", "cash only"])
                .db(ws.db())
                .run();
            assert!(out.status.success(), "{out:?}");
            // The first night's red and black are first screenings, never news.
            let totals = summary
                .lines()
                .find(|l| l.contains("alerts, worst first"))
                .unwrap();
            assert!(totals.contains("at first screening"), "{totals}");
            assert!(!totals.contains("into red"), "{totals}");
        }
        a_night_passes(&ws.db());
    }

    // The figures counted from the rows themselves (report.json, and the amounts given).
    let report = ws.report();
    let rows = report["rows"].as_array().unwrap();
    let rated = |color: &'static str| {
        rows.iter()
            .filter(move |r| r["status"] == "rated" && r["color"] == color)
    };
    let came = |color: &'static str| {
        rated(color)
            .filter(|r| {
                ["deteriorated", "improved", "changed"].contains(&r["change"].as_str().unwrap())
            })
            .count() as u64
    };
    let (red, black) = (rated("red").count() as u64, rated("black").count() as u64);
    let (new_red, new_black) = (came("red"), came("black"));
    let at_risk: f64 = rated("red")
        .chain(rated("black"))
        .map(|r| amounts[r["ref"].as_str().unwrap()])
        .sum();
    assert!(red > 0 && new_red > 0 && black > 0, "{summary}");
    let figures = &report["figures"];
    assert_eq!(figures["red_rows"], red);
    assert_eq!(figures["black_rows"], black);
    assert_eq!(figures["new_red_rows"], new_red);
    assert_eq!(figures["at_risk"].as_f64(), Some(at_risk));
    // What the alerts hold, what an acknowledgement and the threshold leave out: at risk.
    let share = |key: &str| figures[key]["amount"].as_f64().unwrap_or(0.0);
    let parts = share("alerted") + share("acknowledged") + share("left_out_rows");
    assert!((parts - at_risk).abs() < 0.01, "{figures}");
    assert_eq!(figures["acknowledged"]["count"], 1, "{figures}");
    // The contradiction seen: the alerts alone hold less than the trend's amount at risk.
    assert!(share("alerted") < at_risk, "{figures}");

    // The summary says it in one line, the same numbers.
    let line = format!(
        "at risk: {red} red and {black} black rows, {} (Encours); came into red tonight: {}, into black: {new_black} (color changes, not first screenings)",
        format_amount(at_risk),
        ratewatch::text::plural(new_red, "row", "rows"),
    );
    assert!(summary.lines().any(|l| l == line), "{line}\n{summary}");
    // And what the alerts leave out, in words: the threshold, the acknowledged company.
    let left_out = summary
        .lines()
        .find(|l| l.starts_with("the alerts hold "))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(
        left_out.contains("under 50 000 (Encours, [alerts] min_exposure)")
            && left_out.contains("and 1 acknowledged company, "),
        "{left_out}"
    );
    let html_of = |s: &str| ratewatch::report::html::escape(s).into_owned();

    // report.html: the same line at the top, and the trend's row of this run.
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert_eq!(by_id(&html, "at-risk"), html_of(&line));
    assert_eq!(by_id(&html, "left-out"), html_of(left_out));
    let current = html
        .split("<tr data-run=\"")
        .find(|r| r.contains("class=\"current\""))
        .unwrap();
    assert_eq!(cell(current, "<td data-rows=\"red\">"), red.to_string());
    assert_eq!(cell(current, "<td data-new=\"red\">"), new_red.to_string());
    assert_eq!(
        cell(current, "<td data-new=\"black\">"),
        new_black.to_string()
    );
    assert_eq!(cell(current, "<td data-amount>"), format_amount(at_risk));

    // The portfolio's page: its figures are the trend's, and its trend says so too.
    let page = Pages::of(&ws).get("/portfolio?name=book").body;
    assert!(by_id(&page, "red-black").starts_with(&format!("{red} red, {black} black ")));
    assert!(
        by_id(&page, "new-red-black").starts_with(&format!(
            "{} into red, {new_black} into black",
            ratewatch::text::plural(new_red, "row", "rows")
        )),
        "{page}"
    );
    assert!(by_id(&page, "at-stake").starts_with(&format!("{} (Encours)", format_amount(at_risk))));
    assert_eq!(by_id(&page, "left-out"), html_of(left_out));
    let last = page.split("<tr class=\"trend-run\"").last().unwrap();
    assert_eq!(cell(last, "<td class=\"new-red\">"), new_red.to_string());
    assert_eq!(cell(last, "<td class=\"at-risk\">"), format_amount(at_risk));
}

/// Short waits, so that retries cost the tests little.
fn quick() -> Policy {
    Policy {
        attempts: 2,
        first_delay: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
    }
}

/// `ratewatch --config WS/ratewatch.toml screen PORTFOLIO ARGS…` against `base`, as the
/// command builds it, its deliveries tried with [`quick`] waits.
fn request(ws: &Workspace, base: &str, portfolio: &Path, args: &[&str]) -> Request {
    use clap::Parser;
    use ratewatch::settings::cli::{Cli, Command};
    use ratewatch::settings::config::{KEY_ENV, Sources};
    let config = ws.path("ratewatch.toml");
    let mut argv: Vec<String> = ["ratewatch", "--config", config.to_str().unwrap(), "screen"]
        .map(String::from)
        .to_vec();
    argv.extend(ws.screen_args(base, portfolio));
    argv.extend(args.iter().map(|a| a.to_string()));
    let cli = Cli::try_parse_from(argv).unwrap();
    let Command::Screen(screen) = cli.command else {
        unreachable!("a screen command")
    };
    let env = |k: &str| (k == KEY_ENV).then(|| KEY.to_string());
    let sources = Sources::load(Some(&cli.config), env).unwrap();
    let mut request = ratewatch::commands::screen::request(screen, &sources).unwrap();
    if let Some(webhook) = &mut request.channels.webhook {
        webhook.policy = quick();
    }
    if let Some(mailer) = &mut request.channels.email {
        mailer.policy = quick();
    }
    request
}

/// The sample portfolio with an amount on each line (`Encours`, 1 000 × the line, so
/// that the later a row, the larger its amount), and each ref's amount.
fn sample_with_amounts(ws: &Workspace) -> (PathBuf, HashMap<String, f64>) {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    let text = std::fs::read_to_string(sample).unwrap();
    let mut amounts = HashMap::new();
    let mut csv = String::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            csv.push_str(&format!("{line},Encours\n"));
            continue;
        }
        let amount = 1_000.0 * (i + 1) as f64;
        amounts.insert(line.split(',').next().unwrap().to_string(), amount);
        csv.push_str(&format!("{line},{amount}\n"));
    }
    (ws.write("book.csv", csv.as_bytes()), amounts)
}

/// A night of the sample through every channel (the email to `smtp`, the webhook in
/// `format` to `hook`), with `page_url` set and the alerts capped at 3 lines; then
/// `C-1019` (invalid) left alone by review, and a second night whose call budget leaves
/// most rows failed. Returns the workspace, the amounts, and each night's summary.
async fn two_nights(
    format: &str,
    smtp: &Receiver,
    hook: &str,
) -> (Workspace, HashMap<String, f64>, [String; 2]) {
    let sim = start(SimConfig {
        seed: ratewatch::sim::DEFAULT_SEED,
        per_country: 5_000,
        key: KEY.into(),
        calendar: calendar_ending_on_today(2),
        ..SimConfig::default()
    })
    .await;
    let ws = Workspace::new();
    let (file, amounts) = sample_with_amounts(&ws);
    ws.write(
        "ratewatch.toml",
        format!(
            "page_url = \"https://credit.example.com/ratewatch\"\n\
             notify_webhook = \"{hook}/in\"\nwebhook_format = \"{format}\"\n\
             [alerts]\namount = \"Encours\"\nmax_listed = 3\n\
             [email]\nsmtp = \"{}\"\nfrom = \"credit@example.com\"\nto = \"team@example.com\"\n\
             starttls = \"never\"\n",
            smtp.url()
        )
        .as_bytes(),
    );
    let mut said = [String::new(), String::new()];
    for (night, summary_said) in said.iter_mut().enumerate() {
        sim.set_day(night as i64 + 1);
        let extra: &[&str] = if night == 1 {
            &["--max-calls", "4"]
        } else {
            &[]
        };
        let request = request(&ws, &sim.base_url(), &file, extra);
        let mut summary = Vec::new();
        let screened = screen_in_this_process(&request, &(), &mut summary)
            .await
            .unwrap();
        assert_eq!(screened.undelivered, Vec::<String>::new());
        *summary_said = String::from_utf8(summary).unwrap();
        if night == 0 {
            let out = ws
                .ratewatch(["review", "ignore", "C-1019"])
                .db(ws.db())
                .run();
            assert!(out.status.success(), "{out:?}");
            a_night_passes(&ws.db());
        }
    }
    (ws, amounts, said)
}

/// The line of rows not screened, as report.json's rows and the amounts given make it.
fn not_screened_line(report: &Value, amounts: &HashMap<String, f64>) -> String {
    let rows = report["rows"].as_array().unwrap();
    let mut parts = Vec::new();
    let (mut total, mut held) = (0, 0.0);
    for status in ["unresolved", "ambiguous", "invalid", "ignored", "failed"] {
        let of: Vec<&Value> = rows.iter().filter(|r| r["status"] == status).collect();
        if of.is_empty() {
            continue;
        }
        let amount: f64 = of.iter().map(|r| amounts[r["ref"].as_str().unwrap()]).sum();
        parts.push(format!("{} {status} ({})", of.len(), format_amount(amount)));
        total += of.len();
        held += amount;
    }
    format!(
        "not screened: {}: {total} rows, {} (Encours)",
        parts.join(", "),
        format_amount(held)
    )
}

/// The failed rows of report.json, largest amount first: the refs a partial night names.
fn failed_largest_first(report: &Value, amounts: &HashMap<String, f64>) -> Vec<String> {
    let mut failed: Vec<(f64, String)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| {
            let reference = r["ref"].as_str().unwrap().to_string();
            (amounts[&reference], reference)
        })
        .collect();
    failed.sort_by(|a, b| b.0.total_cmp(&a.0));
    failed.into_iter().map(|(_, r)| r).collect()
}

/// The messages the email receiver took, each as (subject, plain, html).
fn mails(smtp: &Receiver) -> Vec<(String, String, String)> {
    smtp.mails()
        .iter()
        .map(|mail| {
            let (headers, _) = headers_and_body(&mail.data);
            let parts = parts(&mail.data);
            (
                header(&headers, "subject").unwrap().to_string(),
                parts[0].1.clone(),
                parts[1].1.clone(),
            )
        })
        .collect()
}

fn bodies(log: &Log) -> Vec<Value> {
    log.lock().unwrap().iter().map(|r| r.json()).collect()
}

#[tokio::test]
async fn every_channel_counts_the_rows_not_screened_names_the_failed_and_links_to_the_page() {
    let smtp = receiver(None, |_| Answer::Take).await;
    let (hook_url, received) = hook(|_| Some(200)).await;
    let (ws, amounts, [first, second]) = two_nights("json", &smtp, &hook_url).await;
    let report = ws.report();
    let line = not_screened_line(&report, &amounts);
    assert!(
        line.contains(" ignored (20 000)"),
        "the review's ignore: {line}"
    );
    let failed = failed_largest_first(&report, &amounts);
    assert!(
        failed.len() > 3,
        "the budget left more rows failed than the cap: {failed:?}"
    );
    let portfolio = format!("{PAGE}portfolio?name=book");

    // The summary, and the email's plain part, which is the summary.
    assert!(
        second.contains(&format!("{line} — {portfolio}\n")),
        "{second}"
    );
    let named = format!(
        "{} failed rows, largest first, retried next run:",
        failed.len()
    );
    let at = second
        .find(&named)
        .unwrap_or_else(|| panic!("{named}\n{second}"));
    let listed: Vec<&str> = second[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(
        listed.len(),
        4,
        "three named and the rest counted: {listed:?}"
    );
    for (line, reference) in listed[..3].iter().zip(&failed) {
        let amount = format_amount(amounts[reference]);
        assert!(line.starts_with(&format!("  {reference} (line ")), "{line}");
        assert!(line.contains(&format!(": {amount} — ")), "{line}");
    }
    assert_eq!(
        listed[3],
        format!("  … and {} more in the reports", failed.len() - 3)
    );
    let mails = mails(&smtp);
    assert_eq!(mails.len(), 2, "both nights are worth a look");
    let (subject, plain, html) = &mails[1];
    assert!(
        subject.contains("PARTIAL") && !subject.contains("http"),
        "{subject}"
    );
    assert_eq!(plain, &second);
    let escaped = |s: &str| ratewatch::report::html::escape(s).into_owned();
    assert!(html.contains(&escaped(&line)), "{html}");
    assert!(html.contains(&format!("<a href=\"{portfolio}\"")), "{html}");
    for reference in &failed[..3] {
        assert!(
            html.contains(&format!("<li>{reference} (line ")),
            "{reference}: {html}"
        );
    }

    // The JSON document: the same figures as report.json, for programs; its failed rows
    // capped as its alerts are (1000), report.json's as the summary's.
    let documents = bodies(&received);
    assert_eq!(documents.len(), 2);
    let without_failed = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("failed");
        v
    };
    assert_eq!(
        without_failed(&documents[1]["figures"]),
        without_failed(&report["figures"])
    );
    let posted: Vec<&str> = documents[1]["figures"]["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        posted,
        failed.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let figures = &report["figures"];
    assert_eq!(figures["failed_total"], failed.len());
    let named: Vec<&str> = figures["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        named,
        failed[..3].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let counted = &figures["not_screened"];
    for status in ["unresolved", "ambiguous", "invalid", "ignored", "failed"] {
        assert_eq!(
            counted[status]["rows"], report["run"]["by_status"][status],
            "{status}"
        );
    }

    // The first night's links: the inbox, and each alert's company page, which the page
    // answers with the company; the report's too.
    let (_, plain, html) = &mails[0];
    assert!(first.contains(&format!("\ninbox: {PAGE}\n")), "{first}");
    assert_eq!(plain, &first);
    let document = &documents[0];
    assert_eq!(document["page"], PAGE);
    let alerts = document["alerts"].as_array().unwrap();
    assert!(!alerts.is_empty());
    // The page's answers, asked on a thread of their own: the pages run on a runtime of
    // their own, which this test's may not block on.
    let answers: Vec<(u16, String)> = std::thread::scope(|s| {
        s.spawn(|| {
            let pages = Pages::of(&ws);
            let ids = alerts.iter().map(|a| a["company_id"].as_str().unwrap());
            ids.map(|id| format!("/company/{id}"))
                .chain(["/portfolio?name=book".to_string()])
                .map(|path| {
                    let answer = pages.get(&path);
                    (answer.status.as_u16(), answer.body)
                })
                .collect()
        })
        .join()
        .unwrap()
    });
    let report_html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(report_html.contains(&format!("<a href=\"{PAGE}\">Open the inbox</a>")));
    for (i, alert) in alerts.iter().enumerate() {
        let id = alert["company_id"].as_str().unwrap();
        let link = format!("{PAGE}company/{id}");
        assert_eq!(alert["page"], link);
        // The mail lists the first three (`max_listed`); report.html every one.
        if i < 3 {
            assert!(
                first.lines().any(|l| l.trim_end().ends_with(&link)),
                "{link}: {first}"
            );
            assert!(
                html.contains(&format!("<a href=\"{link}\"")),
                "{link}: {html}"
            );
        }
        let (status, body) = &answers[i];
        assert_eq!(*status, 200, "{link}");
        let name = alert["company_name"].as_str().unwrap();
        assert!(body.contains(&escaped(name)), "{name}");
    }
    assert!(html.contains(&format!("<a href=\"{PAGE}\"")), "{html}");
    assert_eq!(answers.last().unwrap().0, 200, "the portfolio's page");
    // report.html (the second night's): each alert's company, standing ones included.
    let alerted = alerted(&ws, 2, false);
    assert!(!alerted.is_empty());
    for id in alerted {
        let link = format!("<a href=\"{PAGE}company/{id}\">");
        assert!(report_html.contains(&link), "{link}");
    }
}

#[tokio::test]
async fn slack_and_teams_carry_the_rows_not_screened_the_failed_and_the_links() {
    for format in ["slack", "teams"] {
        let smtp = receiver(None, |_| Answer::Take).await;
        let (hook_url, received) = hook(|_| Some(200)).await;
        let (ws, amounts, _) = two_nights(format, &smtp, &hook_url).await;
        let report = ws.report();
        let line = not_screened_line(&report, &amounts);
        let failed = failed_largest_first(&report, &amounts);
        let sent: Vec<(Vec<u8>, Value)> = received
            .lock()
            .unwrap()
            .iter()
            .map(|r| (r.body.clone(), r.json()))
            .collect();
        assert_eq!(sent.len(), 2, "{format}");
        for (body, _) in &sent {
            match format {
                "slack" => assert_eq!(slack_refuses(body), None),
                _ => assert!(teams_takes(body)),
            }
        }
        let texts = strings(&sent[1].1).join("\n");
        assert!(texts.contains(&line), "{format}: {texts}");
        for reference in &failed[..3] {
            assert!(
                texts.contains(&format!("{reference} (line ")),
                "{format}: {texts}"
            );
        }
        assert!(
            !texts.contains(&format!("{} (line ", failed[3])),
            "capped: {texts}"
        );
        // Links: to the inbox, to each alert's company page, to the rows not screened.
        let first = &sent[0].1;
        let texts = strings(first).join("\n");
        let portfolio = format!("{PAGE}portfolio?name=book");
        let companies: Vec<String> = alerted(&ws, 1, true);
        match format {
            "slack" => {
                assert!(
                    texts.contains(&format!("<{PAGE}|Open the inbox>")),
                    "{texts}"
                );
                assert!(
                    texts.contains(&format!("<{portfolio}|see them and why>")),
                    "{texts}"
                );
                for id in &companies {
                    assert!(
                        texts.contains(&format!("<{PAGE}company/{id}|")),
                        "{id}: {texts}"
                    );
                }
            }
            _ => {
                let card = &first["attachments"][0]["content"];
                assert_eq!(card["actions"][0]["url"], PAGE);
                let body = card["body"].to_string();
                assert!(body.contains(&portfolio), "{body}");
                for id in &companies {
                    assert!(
                        body.contains(&format!("{PAGE}company/{id}")),
                        "{id}: {body}"
                    );
                }
            }
        }
    }
}

/// The companies of run `run`'s alerts, in the order of the summary; `listed`: the
/// listed ones only, the first three (`max_listed`), as a chat message lists them.
fn alerted(ws: &Workspace, run: i64, listed: bool) -> Vec<String> {
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT c.company_id FROM run_alerts a JOIN companies c ON c.id = a.company
             WHERE a.run_id = ?1 AND (a.listed = 1 OR NOT ?2)
             ORDER BY a.severity, a.amount DESC NULLS LAST, a.first_line
             LIMIT CASE WHEN ?2 THEN 3 ELSE -1 END",
        )
        .unwrap();
    stmt.query_map(rusqlite::params![run, listed], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_row_whose_blank_country_was_defaulted_says_the_country_assumed() {
    let sim = crate::common::sample_sim();
    let ws = Workspace::new();
    let csv = "ref,country,service,id,name,city\n\
        F-1,FR,,,Nobody Such Trading Ltd,\n\
        D-1,,,,Müller Maschinenbau Nirgendwo GmbH,Düsseldorf\n\
        K-1,,KVK,56160375,,\n\
        S-1,,SIREN,734531544,,\n";
    let file = ws.write("book.csv", csv.as_bytes());
    let out = ws
        .screen(&sim, &file)
        .args(["--default-country", "FR"])
        .run();
    let summary = String::from_utf8(out.stdout.clone()).unwrap();
    let rows = rows_by_ref(&ws.report());
    let error = |r: &str| rows[r]["error"].as_str().unwrap_or_default().to_string();
    assert_eq!(rows["D-1"]["status"], "unresolved", "{out:?}");
    assert_eq!(
        error("D-1"),
        "France assumed: no company matches; none either without the city Düsseldorf and the legal form GmbH"
    );
    assert!(
        error("K-1").starts_with("France assumed: service: "),
        "{}",
        error("K-1")
    );
    // A country given is no assumption; a row the default rated has no error.
    assert_eq!(
        error("F-1"),
        "no company matches; none either without the legal form Ltd"
    );
    assert_eq!(rows["S-1"]["status"], "rated");
    assert!(
        summary.contains("D-1 (line 3): France assumed: no company matches"),
        "{summary}"
    );
}

#[test]
fn a_page_address_is_shown_by_config_and_a_wrong_one_stops_the_command_naming_where() {
    let ws = Workspace::new();
    let out = ws
        .ratewatch(["config", "--get", "page_url"])
        .env("RATEWATCH_PAGE_URL", "https://credit.example.com/ratewatch")
        .run();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{PAGE}\n"));
    for (env, file, said) in [
        (
            Some("credit.example.com"),
            "",
            "RATEWATCH_PAGE_URL: expected the http or https address",
        ),
        (
            None,
            "\npage_url = \"ftp://x/\"\n",
            "ratewatch.toml:2: page_url: expected an http or https address",
        ),
        (
            None,
            "page_url = \"https://u:secret@x/\"\n",
            "no user or password",
        ),
    ] {
        ws.write("ratewatch.toml", file.as_bytes());
        let mut command = ws.ratewatch(["config"]);
        if let Some(env) = env {
            command.env("RATEWATCH_PAGE_URL", env);
        }
        let out = command.run();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(said), "{said}: {stderr}");
        assert!(!stderr.contains("secret"), "{stderr}");
    }
    let sim = crate::common::sample_sim();
    ws.write("ratewatch.toml", b"");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    let out = ws
        .screen(&sim, &sample)
        .args([
            "--page-url",
            "https://credit.example.com/ratewatch/?token=x",
        ])
        .run();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--page-url: expected the page's address without `?…`"),
        "{stderr}"
    );
    // Not set: no link anywhere, the summary as it was.
    let out = ws.screen(&sim, &sample).run();
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        !summary.contains("inbox:") && !summary.contains("PAGE"),
        "{summary}"
    );
    let html = std::fs::read_to_string(ws.path("out/report.html")).unwrap();
    assert!(!html.contains("<a href="), "no link without page_url");
}
