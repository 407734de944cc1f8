//! `[email]` end to end against the SMTP receiver of `common::smtp` on a random loopback
//! port: a night with alerts mails one message with a plain and an HTML part to every
//! recipient, a quiet night mails nothing, a night that is not complete mails its state,
//! a receiver that refuses is tried again and then named in a warning that changes no exit
//! code, STARTTLS asked for is never given up for plain text, a message goes over STARTTLS
//! and over smtps:// to a receiver whose certificate is trusted and never to one whose is
//! not, and the password appears nowhere but in AUTH.

use std::path::Path;
use std::time::{Duration, Instant};

use ratewatch::deliver::Policy;
use ratewatch::model::{Color, RowStatus};
use ratewatch::run::Request;
use ratewatch::sim::{CompanyRef, Dataset, SimServer};
use ratewatch::{Error, ExitCode};

use crate::common::smtp::{
    Answer, Mail, Receiver, Security, certificate, fixture, header, headers_and_body, parts,
    receiver, tls_receiver,
};
use crate::common::{KEY, Workspace, background, config, screen_in_this_process, start};

/// Short waits, so that retries cost the tests little.
fn quick() -> Policy {
    Policy {
        attempts: 3,
        first_delay: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
    }
}

/// `ratewatch --config WS/ratewatch.toml screen PORTFOLIO ARGS…` against `base`, with `toml`
/// as the config file and `key` as the environment's key, as the command builds it; the
/// email tried with [`quick`] waits.
fn request(
    ws: &Workspace,
    toml: &str,
    base: &str,
    portfolio: &Path,
    args: &[&str],
    key: &str,
) -> Request {
    use clap::Parser;
    use ratewatch::settings::cli::{Cli, Command};
    use ratewatch::settings::config::{KEY_ENV, Sources};
    let config = ws.write("ratewatch.toml", toml.as_bytes());
    let mut argv: Vec<String> = ["ratewatch", "--config", config.to_str().unwrap(), "screen"]
        .map(String::from)
        .to_vec();
    argv.extend(ws.screen_args(base, portfolio));
    argv.extend(args.iter().map(|a| a.to_string()));
    let cli = Cli::try_parse_from(argv).unwrap();
    let Command::Screen(screen) = cli.command else {
        unreachable!("a screen command")
    };
    let sources = Sources::load(Some(&cli.config), |k| {
        (k == KEY_ENV).then(|| key.to_string())
    })
    .unwrap()
    .with_reader(cli.reader);
    let mut request = ratewatch::commands::screen::request(screen, &sources).unwrap();
    if let Some(mailer) = &mut request.channels.email {
        mailer.policy = quick();
    }
    request
}

/// A run in this process: its outcome and the summary it printed.
async fn run(request: &Request) -> (Result<ratewatch::run::Screened, Error>, String) {
    let mut summary = Vec::new();
    let outcome = screen_in_this_process(request, &(), &mut summary).await;
    (outcome, String::from_utf8(summary).unwrap())
}

/// `[email]` sending to `smtp` in clear (the receiver offers no STARTTLS), then `more`.
fn email(smtp: &Receiver, more: &str) -> String {
    format!(
        "[email]\nsmtp = \"{}\"\nfrom = \"ratewatch <credit@example.com>\"\n\
         to = [\"credit-team@example.com\", \"Risk Desk <risk@example.com>\"]\n{more}",
        smtp.url()
    )
}

/// The first companies of the dataset whose color on day 1 is `color`.
fn of_color(data: &Dataset, color: Color, n: usize) -> Vec<CompanyRef> {
    (0..4_000u32)
        .map(|i| CompanyRef {
            country: (i % 10) as usize,
            n: i / 10,
        })
        .filter(|r| data.rating(*r, 1).color == color)
        .take(n)
        .collect()
}

/// A portfolio of companies by their id, each row with its ref and carried values.
fn by_id(data: &Dataset, rows: &[(&str, CompanyRef, &str, &str)]) -> String {
    let mut csv = String::from("ref,country,company_id,Encours (€),Commercial\n");
    for (reference, company, amount, person) in rows {
        let country = data.company(*company).address.country_code;
        csv.push_str(&format!(
            "{reference},{country},{},{amount},{person}\n",
            data.uuid(*company)
        ));
    }
    csv
}

/// Green companies only: a night with nothing to say.
fn greens(ws: &Workspace, sim: &SimServer, n: usize) -> std::path::PathBuf {
    let data = sim.dataset();
    let rows: Vec<(String, CompanyRef)> = of_color(data, Color::Green, n)
        .into_iter()
        .enumerate()
        .map(|(i, r)| (format!("G-{i}"), r))
        .collect();
    let rows: Vec<(&str, CompanyRef, &str, &str)> = rows
        .iter()
        .map(|(reference, r)| (reference.as_str(), *r, "1000", "Martin"))
        .collect();
    ws.write("book.csv", by_id(data, &rows).as_bytes())
}

/// Two red companies (one held by two rows) and a black one, amounts and a salesperson
/// carried; and two green ones.
fn alerting(ws: &Workspace, sim: &SimServer) -> std::path::PathBuf {
    let data = sim.dataset();
    let red = of_color(data, Color::Red, 2);
    let black = of_color(data, Color::Black, 1);
    let green = of_color(data, Color::Green, 2);
    let csv = by_id(
        data,
        &[
            ("RED-1a", red[0], "100000", "<b>Dupont</b> & Fils"),
            ("RED-1b", red[0], "50000", "Durand"),
            ("RED-2", red[1], "2500", "Martin"),
            ("BLACK-1", black[0], "1200000", "Moreau"),
            ("GREEN-1", green[0], "300", "Martin"),
            ("GREEN-2", green[1], "400", "Martin"),
        ],
    );
    ws.write("book.csv", csv.as_bytes())
}

const SHOWN: &str =
    "[alerts]\namount = \"Encours (€)\"\nshow = [\"Encours (€)\", \"Commercial\"]\n";

/// The one message the receiver took, split: headers, plain part, HTML part.
fn the_message(smtp: &Receiver) -> (Mail, Vec<(String, String)>, String, String) {
    let mails = smtp.mails();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let mail = mails[0].clone();
    let (headers, _) = headers_and_body(&mail.data);
    let parts = parts(&mail.data);
    let kinds: Vec<&str> = parts.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["text/plain", "text/html"], "{}", mail.data);
    let (plain, html) = (parts[0].1.clone(), parts[1].1.clone());
    (mail, headers, plain, html)
}

#[tokio::test]
async fn a_night_with_alerts_mails_its_summary_and_its_table_to_every_recipient() {
    let sim = start(config()).await;
    let smtp = receiver(None, |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    let toml = format!("{SHOWN}{}starttls = \"never\"\n", email(&smtp, ""));
    let request = request(&ws, &toml, &sim.base_url(), &file, &[], KEY);
    let (outcome, summary) = run(&request).await;
    let screened = outcome.unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());
    assert_eq!(screened.exit_code(), ExitCode::Attention);

    let (mail, headers, plain, html) = the_message(&smtp);
    assert_eq!(mail.from, "credit@example.com");
    assert_eq!(mail.to, ["credit-team@example.com", "risk@example.com"]);
    let to = header(&headers, "to").unwrap();
    assert_eq!(
        to,
        "credit-team@example.com, \"Risk Desk\" <risk@example.com>"
    );
    let run = &screened.run;
    let day = run.started_at.strftime("%Y-%m-%d").to_string();
    assert_eq!(
        header(&headers, "subject"),
        Some(format!("ratewatch book {day}: 1 black, 2 red at first screening").as_str())
    );
    assert!(
        header(&headers, "content-type")
            .unwrap()
            .starts_with("multipart/alternative")
    );
    assert_eq!(header(&headers, "auto-submitted"), Some("auto-generated"));
    assert!(header(&headers, "message-id").is_some_and(|id| id.starts_with('<')));

    // The plain part is the summary as printed: the same words, the heading first.
    assert_eq!(plain, summary);
    assert!(
        plain.starts_with(&format!("ratewatch {day} · book · run {}", run.id)),
        "{plain}"
    );
    assert!(
        plain.contains("150 000") && plain.contains("1 200 000"),
        "{plain}"
    );

    // The HTML part: the heading with the report's absolute path, the alerts with their
    // amounts and carried columns, escaped, and nothing to fetch or run.
    let report = ws.path("out/report.html");
    assert!(report.is_absolute() && report.is_file());
    let heading = format!(
        "ratewatch {day} · book · run {} · {}",
        run.id,
        report.display()
    );
    assert!(
        html.contains(&*ratewatch::report::html::escape(&heading)),
        "{html}"
    );
    for text in [
        "RED-1a, RED-1b",
        "BLACK-1",
        "RED-2",
        "150 000",
        "1 200 000",
        "2 500",
        "Commercial",
        "Encours (€)",
    ] {
        assert!(html.contains(text), "{text} in {html}");
    }
    assert!(
        html.contains("&lt;b&gt;Dupont&lt;/b&gt; &amp; Fils"),
        "{html}"
    );
    assert!(!html.contains("<b>Dupont"), "{html}");
    let totals = plain
        .lines()
        .find(|l| l.starts_with("3 alerts, worst first"))
        .unwrap_or_else(|| panic!("{plain}"));
    let totals = totals.strip_suffix(':').unwrap();
    assert!(
        html.contains(&*ratewatch::report::html::escape(totals)),
        "{totals} in {html}"
    );
    // Worst first, as the summary lists them.
    let at = |text: &str| html.find(text).unwrap();
    assert!(at("BLACK-1") < at("RED-1a") && at("RED-1a") < at("RED-2"));
    assert!(!html.contains("GREEN-"), "{html}");
    for fetched in [
        "<script", "<img", "<link", "<style", "src=", "http://", "https://", "url(",
    ] {
        assert!(!html.contains(fetched), "{fetched} in {html}");
    }
}

#[tokio::test]
async fn a_quiet_night_mails_nothing_and_a_night_short_of_rows_mails_its_state() {
    let sim = start(config()).await;
    let smtp = receiver(None, |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = greens(&ws, &sim, 5);
    let toml = format!("{}starttls = \"never\"\n", email(&smtp, ""));
    let quiet = request(&ws, &toml, &sim.base_url(), &file, &[], KEY);
    let (outcome, summary) = run(&quiet).await;
    let screened = outcome.unwrap();
    assert_eq!(screened.exit_code(), ExitCode::Clean, "{summary}");
    assert_eq!(screened.undelivered, Vec::<String>::new());
    assert_eq!(
        smtp.connections(),
        0,
        "a quiet night: not even a connection"
    );

    // The call budget leaves rows unscreened: no alert, but not a night to keep quiet.
    let short = request(
        &ws,
        &toml,
        &sim.base_url(),
        &file,
        &["--max-calls", "4"],
        KEY,
    );
    let (outcome, summary) = run(&short).await;
    let screened = outcome.unwrap();
    assert_eq!(screened.exit_code(), ExitCode::Partial, "{summary}");
    assert_eq!(screened.run.alerts, 0, "{summary}");
    let failed = screened.run.rows_with(RowStatus::Failed);
    assert!(failed > 0, "{summary}");
    let (_, headers, plain, html) = the_message(&smtp);
    let day = screened.run.started_at.strftime("%Y-%m-%d").to_string();
    let rows = if failed == 1 { "row" } else { "rows" };
    assert_eq!(
        header(&headers, "subject"),
        Some(format!("ratewatch book {day}: PARTIAL, {failed} {rows} not screened").as_str())
    );
    assert_eq!(plain, summary);
    assert!(html.contains("PARTIAL: "), "{html}");
}

#[tokio::test]
async fn a_night_that_failed_mails_the_error_that_ended_it() {
    let sim = start(config()).await;
    let smtp = receiver(None, |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = greens(&ws, &sim, 3);
    let toml = format!("{}starttls = \"never\"\n", email(&smtp, ""));
    let refused = request(&ws, &toml, &sim.base_url(), &file, &[], "wrong-key");
    let (outcome, _) = run(&refused).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.exit_code(), ExitCode::Fatal, "{error}");
    let (_, headers, plain, html) = the_message(&smtp);
    let subject = header(&headers, "subject").unwrap();
    assert!(
        subject.starts_with("ratewatch book ") && subject.ends_with(": FAILED"),
        "{subject}"
    );
    assert!(plain.contains(&format!("FAILED: {error}")), "{plain}");
    assert!(html.contains("FAILED: "), "{html}");
    assert!(!plain.contains("wrong-key") && !html.contains("wrong-key"));
}

#[tokio::test]
async fn a_receiver_that_refuses_is_tried_again_then_named_and_the_exit_code_stays() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);

    // Refused once, then taken: one message, sent twice, a wait apart.
    let smtp = receiver(None, |n| if n == 0 { Answer::Refuse } else { Answer::Take }).await;
    let toml = format!("{}starttls = \"never\"\n", email(&smtp, ""));
    let begun = Instant::now();
    let (outcome, _) = run(&request(&ws, &toml, &sim.base_url(), &file, &[], KEY)).await;
    let screened = outcome.unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());
    assert_eq!((smtp.connections(), smtp.mails().len()), (2, 1));
    assert!(begun.elapsed() >= Duration::from_millis(50));
    let code = screened.exit_code();
    assert_eq!(code, ExitCode::Attention);

    // Always refused, or hung up on: three attempts, a line that says so, the same exit code.
    for (answer, why) in [
        (
            Answer::Refuse,
            "sending the message: permanent error (554): 5.6.0 message refused",
        ),
        (Answer::HangUp, "sending the message: "),
    ] {
        // Each on a first night, whose alerts are news.
        let ws = Workspace::new();
        let file = alerting(&ws, &sim);
        let smtp = receiver(None, move |_| answer).await;
        let toml = format!("{}starttls = \"never\"\n", email(&smtp, ""));
        let (outcome, _) = run(&request(&ws, &toml, &sim.base_url(), &file, &[], KEY)).await;
        let screened = outcome.unwrap();
        assert_eq!(smtp.connections(), 3, "{answer:?}");
        assert_eq!(smtp.mails().len(), 0);
        let [line] = &screened.undelivered[..] else {
            panic!("{:?}", screened.undelivered)
        };
        let start = format!("email: not delivered after 3 attempts: {why}");
        assert!(line.starts_with(&start), "{line}");
        let end = format!(
            "({} to credit-team@example.com, risk@example.com)",
            smtp.url()
        );
        assert!(line.ends_with(&end), "{line}");
        assert_eq!(screened.exit_code(), code, "{answer:?}");
    }
}

#[tokio::test]
async fn a_message_sent_again_has_the_message_id_of_its_first_attempt() {
    let sim = start(config()).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    // The whole first night refused (a server that may have taken it all the same), then
    // taken.
    let smtp = receiver(None, |n| if n < 3 { Answer::Refuse } else { Answer::Take }).await;
    let toml = format!("{}starttls = \"never\"\n", email(&smtp, ""));
    let request = request(&ws, &toml, &sim.base_url(), &file, &[], KEY);
    let (outcome, _) = run(&request).await;
    assert_eq!(outcome.unwrap().undelivered.len(), 1);
    let message_id = |mail: &Mail| {
        let (headers, _) = headers_and_body(&mail.data);
        header(&headers, "message-id").unwrap().to_string()
    };
    let tried: Vec<String> = smtp.offered().iter().map(message_id).collect();
    assert_eq!(tried.len(), 3);
    assert!(tried.iter().all(|id| *id == tried[0]), "{tried:?}");
    let id = &tried[0];
    assert!(
        id.starts_with('<') && id.ends_with("@example.com>") && id.len() == 46,
        "the delivery id at the sender's domain: {id}"
    );

    // The next night sends it again, under the same Message-ID; its own alerts are not
    // news, so it has no message of its own.
    let (outcome, _) = run(&request).await;
    assert_eq!(outcome.unwrap().undelivered, Vec::<String>::new());
    let taken: Vec<String> = smtp.mails().iter().map(message_id).collect();
    assert_eq!(taken, std::slice::from_ref(id));
    let (headers, _) = headers_and_body(&smtp.mails()[0].data);
    assert!(
        header(&headers, "subject")
            .is_some_and(|s| s.contains("1 black, 2 red at first screening")),
        "the first night's news: {headers:?}"
    );
}

#[tokio::test]
async fn starttls_required_of_a_server_that_does_not_offer_it_sends_nothing_in_clear() {
    let sim = start(config()).await;
    let smtp = receiver(None, |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    // `starttls` left out: required.
    let (outcome, _) = run(&request(
        &ws,
        &email(&smtp, ""),
        &sim.base_url(),
        &file,
        &[],
        KEY,
    ))
    .await;
    let screened = outcome.unwrap();
    assert_eq!(
        screened.undelivered,
        [format!(
            "email: not delivered after 1 attempt: {0} does not offer STARTTLS, which starttls = \"required\" asks for: nothing was sent in clear ({0} to credit-team@example.com, risk@example.com)",
            smtp.url()
        )]
    );
    assert_eq!(smtp.connections(), 1, "not tried again");
    let commands = smtp.commands.lock().unwrap().clone();
    assert!(
        commands
            .iter()
            .all(|c| !c.starts_with("MAIL") && !c.starts_with("AUTH") && !c.starts_with("DATA")),
        "{commands:?}"
    );
    assert_eq!(screened.exit_code(), ExitCode::Attention);
}

#[tokio::test]
async fn a_login_is_sent_only_in_auth_and_a_refused_one_is_never_repeated() {
    let sim = start(config()).await;
    let smtp = receiver(Some(("ratewatch", "r1ght-pa55")), |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    let password = ws.write("smtp.password", b"wr0ng-s3cret\n");
    let toml = format!(
        "{}starttls = \"never\"\nusername = \"ratewatch\"\npassword_file = \"{}\"\n",
        email(&smtp, ""),
        password.display()
    );
    let (outcome, summary) = run(&request(&ws, &toml, &sim.base_url(), &file, &[], KEY)).await;
    let screened = outcome.unwrap();
    let [line] = &screened.undelivered[..] else {
        panic!("{:?}", screened.undelivered)
    };
    assert!(
        line.starts_with("email: not delivered after 1 attempt: AUTH as ratewatch: permanent error (535): 5.7.8 login refused for ratewatch with *** (***)"),
        "{line}"
    );
    // The receiver quoted the password back, plain and encoded: neither is repeated.
    let commands = smtp.commands.lock().unwrap().clone();
    let sent = commands
        .iter()
        .find(|c| c.starts_with("AUTH PLAIN "))
        .unwrap();
    let encoded = sent.trim_start_matches("AUTH PLAIN ");
    for text in [line.as_str(), summary.as_str()] {
        assert!(
            !text.contains("wr0ng-s3cret") && !text.contains(encoded),
            "{text}"
        );
    }
    assert_eq!(smtp.connections(), 1, "a refused login is not tried again");
    assert_eq!(screened.exit_code(), ExitCode::Attention);

    // The right password, on another night with news: taken, after AUTH.
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    std::fs::write(&password, "r1ght-pa55\n").unwrap();
    let (outcome, _) = run(&request(&ws, &toml, &sim.base_url(), &file, &[], KEY)).await;
    assert_eq!(outcome.unwrap().undelivered, Vec::<String>::new());
    let mails = smtp.mails();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].user.as_deref(), Some("ratewatch"));
    assert!(!mails[0].data.contains("r1ght-pa55"));
}

/// The request, its email trusting the certificate of tests/fixtures/tls/localhost.pem
/// besides the platform's roots, as a company's relay would need.
fn trusting_localhost(mut request: Request) -> Request {
    if let Some(mailer) = &mut request.channels.email {
        mailer.extra_root = Some(fixture("localhost.pem"));
    }
    request
}

/// `[email]` logging in as `ratewatch` to `smtp`, `starttls` left out (required).
fn with_login(ws: &Workspace, smtp: &Receiver) -> String {
    let password = ws.write("smtp.password", b"r1ght-pa55\n");
    format!(
        "{SHOWN}{}username = \"ratewatch\"\npassword_file = \"{}\"\n",
        email(smtp, ""),
        password.display()
    )
}

#[tokio::test]
async fn a_message_goes_over_starttls_and_over_smtps_with_its_login_inside_tls() {
    let sim = start(config()).await;
    for tls in [
        Security::StartTls(certificate("localhost")),
        Security::Implicit(certificate("localhost")),
    ] {
        let starttls = matches!(tls, Security::StartTls(_));
        let smtp = tls_receiver(tls, Some(("ratewatch", "r1ght-pa55")), |_| Answer::Take).await;
        let url = smtp.url();
        assert!(url.starts_with(if starttls { "smtp://" } else { "smtps://" }));
        let ws = Workspace::new();
        let file = alerting(&ws, &sim);
        let toml = with_login(&ws, &smtp);
        let request = trusting_localhost(request(&ws, &toml, &sim.base_url(), &file, &[], KEY));
        let (outcome, summary) = run(&request).await;
        let screened = outcome.unwrap();
        assert_eq!(screened.undelivered, Vec::<String>::new(), "{url}");
        assert_eq!(screened.exit_code(), ExitCode::Attention);

        let (mail, headers, plain, _) = the_message(&smtp);
        assert!(mail.tls, "{url}: the message came over TLS");
        assert_eq!(mail.user.as_deref(), Some("ratewatch"), "{url}");
        assert_eq!(mail.from, "credit@example.com");
        assert_eq!(mail.to, ["credit-team@example.com", "risk@example.com"]);
        let day = screened.run.started_at.strftime("%Y-%m-%d").to_string();
        assert_eq!(
            header(&headers, "subject"),
            Some(format!("ratewatch book {day}: 1 black, 2 red at first screening").as_str())
        );
        assert_eq!(
            header(&headers, "from"),
            Some("ratewatch <credit@example.com>")
        );
        assert_eq!(header(&headers, "auto-submitted"), Some("auto-generated"));
        let id = header(&headers, "message-id").unwrap();
        assert!(
            id.len() == 46 && id.starts_with('<') && id.ends_with("@example.com>"),
            "{id}"
        );
        assert_eq!(plain, summary);
        // The login and the message go only inside TLS: after STARTTLS, the dialogue
        // starts again with EHLO; over smtps:// nothing is ever in clear.
        let commands = smtp.commands();
        let verbs: Vec<&str> = commands
            .iter()
            .map(|c| c.split_whitespace().next().unwrap_or(""))
            .take(4)
            .collect();
        let expected: &[&str] = if starttls {
            &["EHLO", "STARTTLS", "EHLO", "AUTH"]
        } else {
            &["EHLO", "AUTH", "MAIL", "RCPT"]
        };
        assert_eq!(verbs, expected, "{url}: {commands:?}");
        assert_eq!(smtp.connections(), 1);
    }
}

#[tokio::test]
async fn a_receiver_whose_certificate_is_not_trusted_is_refused_and_sent_nothing() {
    let sim = start(config()).await;
    for tls in [
        Security::StartTls(certificate("stranger")),
        Security::Implicit(certificate("stranger")),
    ] {
        let starttls = matches!(tls, Security::StartTls(_));
        let smtp = tls_receiver(tls, Some(("ratewatch", "r1ght-pa55")), |_| Answer::Take).await;
        let url = smtp.url();
        let ws = Workspace::new();
        let file = alerting(&ws, &sim);
        let toml = with_login(&ws, &smtp);
        // Trusting another certificate than the one the receiver shows.
        let request = trusting_localhost(request(&ws, &toml, &sim.base_url(), &file, &[], KEY));
        let (outcome, summary) = run(&request).await;
        let screened = outcome.unwrap();
        let [line] = &screened.undelivered[..] else {
            panic!("{:?}", screened.undelivered)
        };
        let step = match starttls {
            true => "STARTTLS".to_string(),
            false => format!("connecting to {url}"),
        };
        assert!(
            line.starts_with(&format!("email: not delivered after 3 attempts: {step}: "))
                && line.contains("invalid peer certificate: UnknownIssuer")
                && line.ends_with(&format!(
                    "({url} to credit-team@example.com, risk@example.com)"
                )),
            "{line}"
        );
        assert!(smtp.offered().is_empty(), "{url}: nothing sent");
        let commands = smtp.commands();
        assert!(
            commands
                .iter()
                .all(|c| !c.starts_with("AUTH") && !c.starts_with("MAIL")),
            "{url}: {commands:?}"
        );
        assert!(!summary.contains("r1ght-pa55"));
        assert_eq!(screened.exit_code(), ExitCode::Attention);
    }
}

#[test]
fn the_binary_never_prints_or_logs_the_password_and_warns_on_stderr() {
    let sim = background(config());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let smtp = runtime.block_on(receiver(Some(("ratewatch", "r1ght-pa55")), |_| {
        Answer::Take
    }));
    let ws = Workspace::new();
    let file = alerting(&ws, &sim.server);
    ws.write("smtp.password", b"wr0ng-s3cret\n");
    let toml = format!(
        "{}starttls = \"never\"\nusername = \"ratewatch\"\npassword_file = \"smtp.password\"\n",
        email(&smtp, "")
    );
    ws.write("ratewatch.toml", toml.as_bytes());
    let output = ws.screen(&sim, &file).args(["-vv"]).run();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ratewatch: warning: email: not delivered after 1 attempt: AUTH as ratewatch: permanent error (535)"),
        "{stderr}"
    );
    assert!(stderr.contains("WARN"), "and in the log: {stderr}");
    let commands = smtp.commands.lock().unwrap().clone();
    let sent = commands
        .iter()
        .find(|c| c.starts_with("AUTH PLAIN "))
        .unwrap();
    let encoded = sent.trim_start_matches("AUTH PLAIN ").to_string();
    for text in [&stdout, &stderr] {
        assert!(
            !text.contains("wr0ng-s3cret") && !text.contains(&encoded),
            "{text}"
        );
    }

    // `config` shows the settings, the password as set and where, never its value.
    let out = ws.ratewatch(["config", "--json"]).assert().code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains("wr0ng-s3cret"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let email = &json["email"];
    assert_eq!(email["smtp"], smtp.url());
    assert_eq!(email["to"][1], "Risk Desk <risk@example.com>");
    assert_eq!(email["starttls"], "never");
    assert_eq!(email["password"], "set (file smtp.password)");
    assert!(
        email["from_file"]
            .as_str()
            .unwrap()
            .ends_with("ratewatch.toml:1"),
        "{email}"
    );
}

#[test]
fn a_login_in_the_url_or_an_empty_password_file_is_refused_before_any_run() {
    let ws = Workspace::new();
    ws.write("book.csv", b"country,service,id\nFR,SIREN,552100554\n");
    let base = "[email]\nfrom = \"credit@example.com\"\nto = \"team@example.com\"\n";
    ws.write(
        "ratewatch.toml",
        format!("{base}smtp = \"smtp://user:s3cr3t@mail.example.com:587\"\n").as_bytes(),
    );
    let out = ws
        .ratewatch(["screen", "book.csv", "--demo"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("ratewatch.toml:4: [email] smtp: smtp://***@mail.example.com:587: no user or password in the URL"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cr3t"), "{stderr}");

    ws.write("smtp.password", b"\n");
    ws.write(
        "ratewatch.toml",
        format!("{base}smtp = \"smtps://mail.example.com\"\nusername = \"u\"\npassword_file = \"smtp.password\"\n").as_bytes(),
    );
    let out = ws
        .ratewatch(["screen", "book.csv", "--demo"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("the SMTP password file smtp.password is empty"),
        "{stderr}"
    );
    assert!(!ws.db().exists(), "refused before anything was written");
    // `config` says so too, and fails as it does for the key's file.
    let out = ws.ratewatch(["config"]).assert().code(2);
    let table = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // The table's columns are as wide as its longest setting: compare words, not spaces.
    let lines: Vec<String> = table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("email.smtp smtps://mail.example.com:465 ")),
        "{table}"
    );
    assert!(
        lines.iter().any(|l| l
            .starts_with("email.password error: the SMTP password file smtp.password is empty")),
        "{table}"
    );
}

/// A header as a person reads it: its RFC 2047 encoded words (`=?utf-8?b?…?=`) decoded,
/// the blanks between two of them dropped, as the RFC says.
fn decoded(value: &str) -> String {
    use base64::Engine;
    let mut bytes = Vec::new();
    let mut after_encoded = None;
    for word in value.split_whitespace() {
        let inner = word.strip_prefix("=?").and_then(|w| w.strip_suffix("?="));
        let text = inner
            .filter(|w| w.to_ascii_lowercase().contains("?b?"))
            .and_then(|w| w.splitn(3, '?').nth(2));
        if after_encoded.is_some() && !(after_encoded == Some(true) && text.is_some()) {
            bytes.push(b' ');
        }
        match text {
            Some(text) => bytes.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .unwrap(),
            ),
            None => bytes.extend(word.as_bytes()),
        }
        after_encoded = Some(text.is_some());
    }
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn a_french_team_gets_its_mail_in_french_with_paris_days() {
    let sim = start(config()).await;
    let smtp = receiver(None, |_| Answer::Take).await;
    let ws = Workspace::new();
    let file = alerting(&ws, &sim);
    let toml = format!("{SHOWN}{}starttls = \"never\"\n", email(&smtp, ""));
    let args = ["--locale", "fr", "--time-zone", "Europe/Paris"];
    let request = request(&ws, &toml, &sim.base_url(), &file, &args, KEY);
    let (outcome, summary) = run(&request).await;
    let screened = outcome.unwrap();
    assert_eq!(screened.undelivered, Vec::<String>::new());

    let (_, headers, plain, html) = the_message(&smtp);
    let paris = jiff::tz::TimeZone::get("Europe/Paris").unwrap();
    let day = screened.run.started_at.to_zoned(paris).strftime("%d/%m/%Y");
    let subject = decoded(header(&headers, "subject").unwrap());
    assert_eq!(
        subject,
        format!("ratewatch book {day}\u{202f}: 1 noire, 2 rouges au premier examen")
    );
    assert_eq!(plain, summary);
    assert!(html.contains("<html lang=\"fr\">"), "{html}");
    for said in ["Société", "Couleur", "Recalculée le", "passage ", "notées"] {
        assert!(html.contains(said), "no {said:?} in {html}");
    }
    for english in ["Company", "worst first", " rated", "run 1 of"] {
        assert!(!html.contains(english), "{english:?} in {html}");
    }
}
