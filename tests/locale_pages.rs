//! The pages in the reader's language: report.html as a French or German credit team opens
//! it (their words, Paris time, amounts in euros), and `ratewatch serve` in the language a
//! browser asks for, or the one chosen in the page, else the setting's.

use std::path::Path;

use crate::common::{Workspace, sample_sim};
use crate::serve::Pages;
use ratewatch::locale::{Locale, Reader, Zone};

/// The sample portfolio with an amount column in euros, screened once by the binary in
/// `locale` and `zone`: its report.html.
fn report_html(locale: &str, zone: &str) -> String {
    let sim = sample_sim();
    let ws = Workspace::new();
    let book = crate::locale::book_in_euros(&ws);
    let out = ws
        .screen(&sim, &book)
        .args(["--locale", locale, "--time-zone", zone])
        .run();
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{out:?}");
    std::fs::read_to_string(ws.path("out/report.html")).unwrap()
}

/// Whether `html` shows a time as `dd{sep}mm{sep}yyyy HH:MM` followed by one of `zones`.
fn shows_time(html: &str, sep: char, zones: &[&str]) -> bool {
    zones.iter().any(|zone| {
        html.match_indices(&format!(" {zone}")).any(|(at, _)| {
            let before: Vec<char> = html[..at].chars().rev().take(16).collect();
            let time: String = before.into_iter().rev().collect();
            let b = time.as_bytes();
            time.len() == 16
                && b[2] == sep as u8
                && b[5] == sep as u8
                && b[10] == b' '
                && b[13] == b':'
        })
    })
}

#[test]
fn report_html_speaks_french_in_paris_time_with_euros() {
    let html = report_html("fr", "Europe/Paris");
    assert!(html.contains("<html lang=\"fr\">"), "no lang=fr");
    for said in [
        "<h2>Alertes ",
        "<h2>À examiner ",
        "<th>Société</th>",
        "Toutes les lignes",
        "commencé le ",
        ">rouge</span>",
        "\u{a0}€",
    ] {
        assert!(html.contains(said), "no {said:?} in report.html");
    }
    assert!(shows_time(&html, '/', &["CET", "CEST"]), "no Paris time");
    // An amount grouped as French writes it: 1 2.. (narrow no-break space), then €.
    assert!(html.contains("1\u{202f}2"), "no French grouping");
    for english in ["<h2>Alerts ", "<h2>To review ", ">red</span>", " UTC"] {
        assert!(!html.contains(english), "{english:?} in report.html");
    }
    // What the script filters and sorts on stays as programs write it.
    assert!(
        html.contains("<option value=\"red\">rouge ("),
        "the color filter"
    );
    assert!(html.contains("data-status=\"rated\""), "rows' status");
    assert!(html.contains("id=\"words\""), "the script's words");
}

#[test]
fn report_html_speaks_german_with_its_numbers() {
    let html = report_html("de", "Europe/Berlin");
    assert!(html.contains("<html lang=\"de\">"), "no lang=de");
    for said in [
        "<h2>Warnungen ",
        "<th>Unternehmen</th>",
        ">rot</span>",
        ".000\u{a0}€",
    ] {
        assert!(html.contains(said), "no {said:?} in report.html");
    }
    assert!(shows_time(&html, '.', &["CET", "CEST"]), "no Berlin time");
}

#[test]
fn report_html_in_english_and_utc_has_no_words_for_the_script() {
    let html = report_html("en", "UTC");
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("<h2>Alerts "));
    assert!(html.contains(" UTC"));
    assert!(!html.contains("id=\"words\""));
}

/// The pages over a screening of the sample, with `locale` the setting's.
fn pages(locale: Locale) -> (Workspace, Pages) {
    let sim = sample_sim();
    let ws = Workspace::new();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    ws.screen(&sim, &sample).assert().code(3);
    let pages = Pages::with(&ws, |options| {
        options.reader = Reader {
            locale,
            zone: Zone::named("Europe/Paris").unwrap(),
        }
    });
    (ws, pages)
}

fn lang_of(body: &str) -> &str {
    let at = body.find("<html lang=\"").expect("a page") + "<html lang=\"".len();
    &body[at..at + 2]
}

#[test]
fn serve_answers_in_the_browser_s_language_by_its_weights() {
    let (_ws, pages) = pages(Locale::En);
    let inbox = pages.get_with("/", &[("accept-language", "fr-FR,fr;q=0.9,en;q=0.8")]);
    assert_eq!(lang_of(&inbox.body), "fr");
    for said in [
        "<h1>Boîte de réception</h1>",
        "À traiter",
        "passée en rouge",
    ] {
        assert!(inbox.body.contains(said), "no {said:?} in {}", inbox.body);
    }
    // Paris time, with its abbreviation.
    assert!(
        shows_time(&inbox.body, '/', &["CET", "CEST"]),
        "{}",
        inbox.body
    );
    // What programs read stays: the alert's kind in its class.
    assert!(inbox.body.contains("class=\"alert kind-red\""));
    let german = pages.get_with("/portfolio?name=portfolio", &[("accept-language", "de-CH")]);
    assert_eq!(lang_of(&german.body), "de");
    assert!(german.body.contains("Letzter Lauf"), "{}", german.body);
    // A badge in German words, its color as programs name it.
    assert!(
        german.body.contains("data-color=\"red\">rot</span>"),
        "{}",
        german.body
    );
    let login = pages.get_with("/review", &[("accept-language", "es, en;q=0.1")]);
    assert_eq!(lang_of(&login.body), "en");
}

#[test]
fn a_language_chosen_in_the_page_wins_over_the_browser_s_and_is_kept_in_a_cookie() {
    let (_ws, pages) = pages(Locale::En);
    let chosen = pages.get_with("/?lang=de", &[("accept-language", "fr")]);
    assert_eq!(lang_of(&chosen.body), "de");
    let cookie = chosen
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("ratewatch_lang="))
        .expect("the choice kept");
    assert!(cookie.starts_with("ratewatch_lang=de;"), "{cookie}");
    assert!(
        cookie.contains("SameSite=Lax") && cookie.contains("Path=/"),
        "{cookie}"
    );
    // The next page, with the cookie: German, whatever the browser asks for.
    let next = pages.get_with(
        "/review",
        &[("accept-language", "fr"), ("cookie", "ratewatch_lang=de")],
    );
    assert_eq!(lang_of(&next.body), "de");
    assert!(next.body.contains("<h1>Zu prüfen</h1>"), "{}", next.body);
    // The switch links to this page in each language.
    assert!(
        next.body.contains("href=\"/review?lang=fr\""),
        "{}",
        next.body
    );
}

#[test]
fn an_unknown_language_is_ignored_and_the_setting_speaks() {
    let (_ws, pages) = pages(Locale::Fr);
    let page = pages.get_with("/?lang=xx", &[("accept-language", "es-ES")]);
    assert_eq!(lang_of(&page.body), "fr");
    assert!(
        page.headers
            .get("set-cookie")
            .is_none_or(|c| !c.to_str().unwrap().starts_with("ratewatch_lang"))
    );
    let kept = pages.get_with("/", &[("cookie", "ratewatch_lang=klingon")]);
    assert_eq!(lang_of(&kept.body), "fr");
    // Every page of the server in French: not found, search, the login form's words too.
    let missing = pages.get("/nothing-here");
    assert_eq!(lang_of(&missing.body), "fr");
    assert!(missing.body.contains("Introuvable"), "{}", missing.body);
    let search = pages.get("/search?q=zzz-nobody");
    assert!(search.body.contains("Aucune société"), "{}", search.body);
}
