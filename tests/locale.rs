//! The reader's language and time zone: the summary a French or German credit team reads
//! each morning, in their words, their numbers and Paris time; the report files for
//! programs unchanged whoever reads.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common::{InFolder, Workspace, sample_sim};

/// The sample portfolio with an amount column whose header names the euro, and
/// `[alerts] amount` naming it.
pub(crate) fn book_in_euros(ws: &Workspace) -> PathBuf {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv");
    let text = std::fs::read_to_string(sample).unwrap();
    let mut csv = String::new();
    for (i, line) in text.lines().enumerate() {
        match i {
            0 => csv.push_str(&format!("{line},Encours (€)\n")),
            _ => csv.push_str(&format!("{line},{}\n", 1_204_000 + 1_000 * i)),
        }
    }
    ws.write(
        "ratewatch.toml",
        "[alerts]\namount = \"Encours (€)\"\n".as_bytes(),
    );
    ws.write("book.csv", csv.as_bytes())
}

/// The summary of the first night of the book, screened in `locale` and `zone`.
fn summary(locale: &str, zone: &str) -> String {
    let sim = sample_sim();
    let ws = Workspace::new();
    let book = book_in_euros(&ws);
    let out = ws
        .screen(&sim, &book)
        .args(["--locale", locale, "--time-zone", zone])
        .run();
    // A night with alerts or a failed row ends 1 or 3; never a usage error.
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Whether a heading's time is `HH:MM` followed by the zone's abbreviation.
fn has_time_in(heading: &str, abbreviations: &[&str]) -> bool {
    abbreviations.iter().any(|zone| {
        heading.split(" · ").any(|part| {
            part.strip_suffix(&format!(" {zone}")).is_some_and(|when| {
                let time = when.rsplit(' ').next().unwrap_or_default();
                time.len() == 5 && time.as_bytes()[2] == b':'
            })
        })
    })
}

#[test]
fn a_french_team_reads_its_summary_in_french_with_paris_time_and_euros() {
    let text = summary("fr", "Europe/Paris");
    let heading = text.lines().next().unwrap();
    assert!(heading.starts_with("ratewatch "), "{heading}");
    assert!(heading.contains(" · passage 1"), "{heading}");
    assert!(has_time_in(heading, &["CET", "CEST"]), "{heading}");
    // The day as a French reader writes it.
    let day = heading.split(' ').nth(1).unwrap();
    assert!(day.len() == 10 && day.as_bytes()[2] == b'/', "{heading}");
    for said in [
        "ratewatch, passage 1 de ",
        " lignes — ",
        " notée",
        "couleurs\u{202f}: ",
        " alertes, les pires d'abord",
        "RÉF",
        "SOCIÉTÉ",
        "rouge au premier examen",
        "\u{a0}€",
        "rapports\u{202f}: ",
    ] {
        assert!(text.contains(said), "no {said:?} in:\n{text}");
    }
    // Amounts grouped by narrow no-break spaces: 1 205 000 €.
    assert!(text.contains("1\u{202f}2"), "{text}");
    for english in [
        "worst first",
        " rows were",
        "reports: ",
        "at first screening",
        "COMPANY",
    ] {
        assert!(!text.contains(english), "{english:?} in:\n{text}");
    }
    // A single row is one `ligne`: none says `1 lignes`.
    assert!(!text.contains(" 1 lignes"), "{text}");
}

#[test]
fn a_german_team_reads_its_summary_in_german_with_its_numbers() {
    let text = summary("de", "Europe/Berlin");
    let heading = text.lines().next().unwrap();
    assert!(heading.contains(" · Lauf 1"), "{heading}");
    assert!(has_time_in(heading, &["CET", "CEST"]), "{heading}");
    let day = heading.split(' ').nth(1).unwrap();
    assert!(day.len() == 10 && day.as_bytes()[2] == b'.', "{heading}");
    for said in [
        "ratewatch Lauf 1 von ",
        " Zeilen — ",
        "Farben: ",
        " Warnungen, die schlimmsten zuerst",
        "UNTERNEHMEN",
        "rot bei der ersten Prüfung",
        ".000\u{a0}€",
        "Berichte: ",
    ] {
        assert!(text.contains(said), "no {said:?} in:\n{text}");
    }
    // A row's error is the service's or the check's text, as stored: not looked at.
    for english in [
        "worst first",
        " rows were",
        "reports: ",
        "at first screening",
    ] {
        assert!(!text.contains(english), "{english:?} in:\n{text}");
    }
}

#[test]
fn the_report_files_are_the_same_in_french_and_paris_time_as_in_english_and_utc() {
    let sim = sample_sim();
    let ws = Workspace::new();
    let book = book_in_euros(&ws);
    let out = ws.screen(&sim, &book).run();
    // A night with alerts or a failed row ends 1 or 3; never a usage error.
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{out:?}");
    let written = |locale: &str, zone: &str| {
        let folder = ws.path(&format!("out-{locale}"));
        let out = ws
            .ratewatch(["report", "--run", "1", "--out"])
            .arg(&folder)
            .db(ws.db())
            .args(["--locale", locale, "--time-zone", zone])
            .run();
        assert!(out.status.success(), "{out:?}");
        ["report.json", "report.csv"].map(|name| std::fs::read(folder.join(name)).unwrap())
    };
    let english = written("en", "UTC");
    let french = written("fr", "Europe/Paris");
    assert!(english[0] == french[0], "report.json differs");
    assert!(english[1] == french[1], "report.csv differs");
    let json = String::from_utf8(french[0].clone()).unwrap();
    assert!(json.contains("Z\""), "times in UTC: {json}");
}

/// A folder where the sample portfolio is screened with `--demo`, run N on simulated day
/// N, for the commands that read its database.
struct Nights {
    dir: tempfile::TempDir,
}

impl InFolder for Nights {
    fn folder(&self) -> &Path {
        self.dir.path()
    }
}

impl Nights {
    fn screened(nights: u32) -> Nights {
        let folder = Nights {
            dir: tempfile::tempdir().unwrap(),
        };
        for night in 1..=nights {
            folder
                .ratewatch(["screen"])
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv"))
                .args(["--demo", "--out", &format!("night-{night}")])
                .assert()
                .code(3);
        }
        folder
    }

    /// What `ratewatch ARGS…` prints, having ended 0.
    fn stdout(&self, args: &[&str]) -> String {
        let out = self.ratewatch(args).assert().code(0).get_output().clone();
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn a_color_in_a_flag_may_be_named_in_french_or_german_and_is_listed_in_english() {
    let nights = Nights::screened(3);
    let changes =
        |to: &str| nights.stdout(&["changes", "--since", "2026-01-01", "--json", "--to", to]);
    let english = changes("red,black");
    assert!(english.contains("\"to_color\": \"red\""), "{english}");
    for to in ["rouge,noir", "ROT,Schwarz", "Rouge,schwarz"] {
        assert_eq!(changes(to), english, "--to {to}");
    }
    let white = changes("white");
    assert_eq!(changes("weiß"), white);
    assert_eq!(changes("WEISS"), white);
    assert_eq!(changes("blanc"), white);
    // A word that names no color is refused, with the English names.
    nights
        .ratewatch(["changes", "--to", "rosso"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("'rosso'").and(predicates::str::contains("green")));
}

#[tokio::test]
async fn the_webhook_s_json_is_the_same_in_french_and_paris_time_as_in_english_and_utc() {
    use std::time::Duration;

    use crate::common::{KEY, config, screen_in_this_process, screen_request, start};
    use crate::delivery::receiver;

    let sim = start(config()).await;
    let ws = Workspace::new();
    let mut csv = Vec::new();
    ratewatch::sim::portfolio::write(sim.dataset(), 40, &mut csv).unwrap();
    let book = ws.write("book.csv", &csv);
    // Down for the first night's three attempts: its message waits for the next night,
    // which composes it again for a French reader in Paris.
    let (hook, received) = receiver(|n| Some(if n < 3 { 503 } else { 200 })).await;
    let night = |locale: &'static str, zone: &'static str| {
        let mut args = ws.screen_args(&sim.base_url(), &book);
        args.extend(["--notify-webhook".into(), format!("{hook}/hook")]);
        args.extend(["--locale", locale, "--time-zone", zone].map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut request = screen_request(&args, KEY);
        let webhook = request.channels.webhook.as_mut().unwrap();
        webhook.policy.first_delay = Duration::from_millis(20);
        webhook.policy.attempts = 3;
        request
    };
    let english = night("en", "UTC");
    let first = screen_in_this_process(&english, &(), &mut Vec::new()).await;
    assert_eq!(first.unwrap().undelivered.len(), 1);
    let french = night("fr", "Europe/Paris");
    let second = screen_in_this_process(&french, &(), &mut Vec::new()).await;
    assert!(second.unwrap().undelivered.is_empty());

    let bodies: Vec<Vec<u8>> = received
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(
        bodies.len(),
        5,
        "three attempts, the resend, the second night's"
    );
    let (in_english, in_french) = (&bodies[0], &bodies[3]);
    assert!(
        in_english == in_french,
        "the first night's document differs in French"
    );
    // The second night's own, composed for the French reader: English keys and words,
    // UTC times.
    let tonight = String::from_utf8(bodies[4].clone()).unwrap();
    let document: serde_json::Value = serde_json::from_str(&tonight).unwrap();
    assert!(
        document["run"]["started_at"]
            .as_str()
            .unwrap()
            .ends_with('Z'),
        "{tonight}"
    );
    assert!(
        document["heading"].as_str().unwrap().contains(" · run 2"),
        "{tonight}"
    );
    for french in ["passage", "rouge", "notée", "CET", "alertes"] {
        assert!(!tonight.contains(french), "{french:?} in {tonight}");
    }
}

#[test]
fn the_command_tables_speak_french_and_german_and_their_csv_and_json_do_not_move() {
    let nights = Nights::screened(2);
    let ack = nights.ratewatch(["ack", "C-1016", "--note", "vu"]).run();
    assert!(ack.status.success(), "{ack:?}");
    let read = |args: &[&str], locale: &str, zone: &str| {
        let mut args = args.to_vec();
        args.extend(["--locale", locale, "--time-zone", zone]);
        nights.stdout(&args)
    };
    let french = |args: &[&str]| read(args, "fr", "Europe/Paris");
    let german = |args: &[&str]| read(args, "de", "Europe/Berlin");

    let runs = french(&["runs"]);
    let header = runs.lines().next().unwrap();
    for said in [
        "PASSAGE",
        "COMMENCÉ LE",
        "NOTÉES",
        "NON TROUVÉES",
        "ROUGE",
        "NOIR",
    ] {
        assert!(header.contains(said), "{said:?} in {runs}");
    }
    assert!(runs.contains(" partiel "), "{runs}");
    // Paris time, to the minute, with the zone's abbreviation: 27/11/2026 21:13 CET.
    let first: Vec<&str> = runs.lines().nth(1).unwrap().split_whitespace().collect();
    let (day, time, zone) = (first[1], first[2], first[3]);
    assert!(day.len() == 10 && day.as_bytes()[2] == b'/', "{runs}");
    assert!(time.len() == 5 && ["CET", "CEST"].contains(&zone), "{runs}");
    let runs = german(&["runs"]);
    for said in [
        "LAUF",
        "GESTARTET",
        "BEWERTET",
        "ROT",
        "SCHWARZ",
        " teilweise ",
    ] {
        assert!(runs.contains(said), "{said:?} in {runs}");
    }

    let changes = french(&["changes", "--since", "2026-01-01"]);
    assert!(
        changes.contains(" changements de couleur vus depuis le 01/01/2026 "),
        "{changes}"
    );
    for said in ["SOCIÉTÉ", "CHANGEMENT", "VUE LE", " → "] {
        assert!(changes.contains(said), "{said:?} in {changes}");
    }
    assert!(
        ["vert", "rouge", "jaune", "noir", "blanc"]
            .iter()
            .any(|c| changes.contains(&format!(" {c} → "))),
        "{changes}"
    );
    let changes = german(&["changes", "--since", "2026-01-01"]);
    assert!(
        changes.contains(" Farbwechsel gesehen seit 01.01.2026 "),
        "{changes}"
    );
    assert!(
        changes.contains("UNTERNEHMEN") && changes.contains("ÄNDERUNG"),
        "{changes}"
    );

    let acks = french(&["acks"]);
    assert!(
        acks.contains("PRISE EN COMPTE LE") && acks.contains("C-1016"),
        "{acks}"
    );
    let acks = german(&["acks"]);
    assert!(
        acks.contains("BESTÄTIGT") && acks.contains("NOTIZ"),
        "{acks}"
    );

    let review = french(&["review", "list"]);
    for said in ["PORTEFEUILLE", "RECHERCHE", " non trouvée ", " ambiguë "] {
        assert!(review.contains(said), "{said:?} in {review}");
    }
    let review = german(&["review", "list"]);
    assert!(
        review.contains(" nicht gefunden ") && review.contains("SUCHE"),
        "{review}"
    );

    let audit = french(&["audit"]);
    assert!(
        audit.contains("ÉVÉNEMENT") && audit.contains("prise en compte"),
        "{audit}"
    );
    let audit = german(&["audit"]);
    assert!(
        audit.contains("EREIGNIS") && audit.contains("bestätigt"),
        "{audit}"
    );

    // For programs: the same bytes whoever reads.
    for args in [
        &["runs", "--json"][..],
        &["runs", "--csv"],
        &["changes", "--since", "2026-01-01", "--json"],
        &["changes", "--since", "2026-01-01", "--csv"],
        &["acks", "--json"],
        &["review", "list", "--csv"],
        &["audit", "--json"],
    ] {
        assert_eq!(french(args), read(args, "en", "UTC"), "{args:?}");
        assert_eq!(german(args), read(args, "en", "UTC"), "{args:?}");
    }
}

#[test]
fn a_company_s_history_speaks_french_and_german_and_its_csv_and_json_do_not_move() {
    let nights = Nights::screened(2);
    let read = |args: &[&str], locale: &str, zone: &str| {
        let mut args = args.to_vec();
        args.extend(["--locale", locale, "--time-zone", zone]);
        nights.stdout(&args)
    };
    let english = read(&["history", "C-1001"], "en", "UTC");
    assert!(english.contains("\nheld by     C-1001"), "{english}");
    assert!(english.contains("COLOR  SINCE"), "{english}");

    let french = read(&["history", "C-1001"], "fr", "Europe/Paris");
    for said in [
        "\nid société   ",
        "\ndétenue par  C-1001",
        "COULEUR",
        "DEPUIS LE",
        "CONFIRMÉE LE",
        "PASSAGES",
    ] {
        assert!(french.contains(said), "{said:?} in {french}");
    }
    // The period's color in French, its times in Paris to the minute: 27/11/2026 21:47 CET.
    let period = french.lines().last().unwrap();
    let words: Vec<&str> = period.split_whitespace().collect();
    assert!(
        ["vert", "jaune", "rouge", "noir", "blanc"].contains(&words[0]),
        "{french}"
    );
    let (day, time, zone) = (words[1], words[2], words[3]);
    assert!(day.len() == 10 && day.as_bytes()[2] == b'/', "{french}");
    assert!(
        time.len() == 5 && ["CET", "CEST"].contains(&zone),
        "{french}"
    );

    let german = read(&["history", "C-1001"], "de", "Europe/Berlin");
    for said in [
        "\nUnternehmens-ID  ",
        "\ngehalten von     C-1001",
        "FARBE",
        "SEIT",
    ] {
        assert!(german.contains(said), "{said:?} in {german}");
    }
    let day = german
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap();
    assert!(day.len() == 10 && day.as_bytes()[2] == b'.', "{german}");

    // Several companies answer: the list to choose from, in the reader's words.
    let several = nights
        .ratewatch(["history", "lopez motors & fils sa", "--locale", "fr"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let listed = String::from_utf8(several.stdout).unwrap();
    assert!(
        listed.starts_with("2 sociétés correspondent à \"lopez motors & fils sa\" :"),
        "{listed}"
    );
    assert!(
        listed.contains("NOM") && listed.contains("VILLE"),
        "{listed}"
    );
    nights
        .ratewatch(["history", "Nobody Such Trading", "--locale", "de"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "Kein Unternehmen passt zu \"Nobody Such Trading\"",
        ));

    // For programs: the same bytes whoever reads.
    for args in [
        &["history", "C-1001", "--json"][..],
        &["history", "C-1001", "--csv"],
    ] {
        let english = read(args, "en", "UTC");
        assert_eq!(read(args, "fr", "Europe/Paris"), english, "{args:?}");
        assert_eq!(read(args, "de", "Europe/Berlin"), english, "{args:?}");
    }
}

#[test]
fn a_lookup_speaks_french_and_german_and_its_json_does_not_move() {
    let name = "Zhao Robotique Loire SA";
    let lookup = |extra: &[&str]| {
        let mut args = vec!["lookup", "--demo", "--country", "FR", "--name", name];
        args.extend(extra);
        let out = crate::common::ratewatch(args)
            .assert()
            .code(0)
            .get_output()
            .clone();
        String::from_utf8(out.stdout).unwrap()
    };
    let english = lookup(&["--locale", "en", "--time-zone", "UTC"]);
    assert!(english.starts_with("name         Zhao"), "{english}");
    assert!(english.contains("(last change 20"), "{english}");

    let french = lookup(&["--locale", "fr", "--time-zone", "Europe/Paris"]);
    assert!(french.starts_with("nom              Zhao"), "{french}");
    assert!(french.contains("\nforme juridique  SA\n"), "{french}");
    // The color in French, the service's times in Paris to the minute.
    let rating = french.lines().nth(1).unwrap();
    assert!(rating.starts_with("note             "), "{french}");
    assert!(
        ["VERT", "JAUNE", "ROUGE", "NOIR", "BLANC"]
            .iter()
            .any(|c| rating.contains(&format!(" {c}  (dernier changement le "))),
        "{french}"
    );
    assert!(
        rating.contains(" CET,") || rating.contains(" CEST,"),
        "{french}"
    );

    let german = lookup(&["--locale", "de", "--time-zone", "Europe/Berlin"]);
    assert!(german.contains("\nRechtsform  SA\n"), "{german}");
    assert!(german.contains("(letzte Änderung am "), "{german}");

    crate::common::ratewatch([
        "lookup",
        "--demo",
        "--country",
        "FR",
        "--name",
        "Zzqx Nowhere",
    ])
    .args(["--locale", "fr"])
    .assert()
    .code(1)
    .stdout("Aucune société nommée \"Zzqx Nowhere\" en FR.\n");

    // The same document, but for the moment the service answered.
    let json = |locale: &str, zone: &str| {
        let text = lookup(&["--json", "--locale", locale, "--time-zone", zone]);
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let rating = &mut doc["companies"][0]["rating"];
        assert!(rating["lastChangeDate"].is_string(), "{text}");
        rating.as_object_mut().unwrap().remove("requestDate");
        doc
    };
    assert_eq!(json("fr", "Europe/Paris"), json("en", "UTC"));
}

#[test]
fn a_french_reader_is_told_the_file_the_line_and_the_field_in_french() {
    let ws = Workspace::new();
    // A file saved in Windows-1252: the run cannot start, and says where.
    let bad = ws.write("encours.csv", b"country,name\nFR,Acme\nFR,Caf\xe9 SA\n");
    let out = crate::common::ratewatch(["screen", "--demo", "--locale", "fr"])
        .arg(&bad)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("ratewatch : erreur : ")
            && said.contains("encours.csv, ligne 3 : pas en UTF-8 (octet 0xE9 au caractère 7) ; enregistrez le fichier en « CSV UTF-8 »"),
        "{said}"
    );
    // English, as it always was.
    crate::common::ratewatch(["screen", "--demo", "--locale", "en"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "encours.csv:3: not UTF-8 (byte 0xE9 at character 7); save the file as \"CSV UTF-8\"",
        ));

    // A row whose country names none: its line and field, in French; the record English.
    let book = ws.write("book.csv", b"country,name\nFrnace,Acme\n");
    let out = crate::common::ratewatch(["screen", "--demo", "--locale", "fr", "--out"])
        .arg(ws.path("out"))
        .arg(&book)
        .arg("--db")
        .arg(ws.path("fr.db"))
        .run();
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.contains("ligne 2: champ country : \"FRNACE\" n'est ni un code pays (deux lettres, p. ex. FR) ni le nom d'un pays"),
        "{summary}"
    );
    let report = std::fs::read_to_string(ws.path("out/report.json")).unwrap();
    assert!(
        report.contains("country: \\\"FRNACE\\\" is not a country code"),
        "{report}"
    );
}

#[test]
fn a_settings_file_s_mistake_is_said_in_the_language_the_flag_names() {
    let ws = Workspace::new();
    ws.write("ratewatch.toml", b"db = \"x.db\"\nconcurency = 4\n");
    let book = ws.write("book.csv", b"country,name\nFR,Acme\n");
    let said = |locale: &str| {
        let out = ws
            .ratewatch(["screen", "--demo", "--locale", locale])
            .arg(&book)
            .assert()
            .code(2)
            .get_output()
            .clone();
        String::from_utf8(out.stderr).unwrap()
    };
    let german = said("de");
    assert!(
        german.starts_with(
            "ratewatch: Fehler: ratewatch.toml, Zeile 2: unbekannter Schlüssel `concurency` (meinten Sie `concurrency`?); die Schlüssel sind base_url, "
        ),
        "{german}"
    );
    assert!(
        said("en").starts_with(
            "ratewatch: error: ratewatch.toml:2: unknown key `concurency` (did you mean `concurrency`?); the keys are base_url, "
        ),
        "English as it always was"
    );
    ws.write("ratewatch.toml", b"concurrency = 0\n");
    assert!(
        said("fr").starts_with(
            "ratewatch : erreur : ratewatch.toml, ligne 1 : concurrency : un nombre entier de 1 à 1\u{202f}024 est attendu, 0 est donné"
        ),
        "{}",
        said("fr")
    );
}
