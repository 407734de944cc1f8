## Die Seiten: report.html und die Seiten von `ratewatch serve`.
# Eine Meldung, die vor oder nach Auszeichnung endet (`<code>ratewatch acks</code>`, ein
# Link), endet dort; die Seite setzt die Auszeichnung zwischen sie und die nächste.

## Die Beschriftungen der Spalten und Felder.

label-ref = Ref.
label-company = Unternehmen
label-country = Land
label-color = Farbe
label-change = Änderung
label-color-since = Farbe seit
label-refreshed = Neu berechnet
label-line = Zeile
label-searched = Gesucht
label-details = Details
label-status = Status
label-alert = Warnung
label-run = Lauf
label-date = Datum
label-became = wurde
label-acknowledged = zur Kenntnis genommen
stale-tag = veraltet
# Ein Unternehmen, das der Dienst nicht mehr kennt.
change-gone = verschwunden

## report.html

report-title = { $portfolio } — ratewatch Lauf { $run }
report-eyebrow = ratewatch-Bericht
report-finished = beendet am { $time }
report-status = Status
report-demo-day = simulierter Tag { $day } (Demo)
report-tiles = Bewertete Zeilen nach Farbe
report-inbox-end = von ratewatch serve, um die Warnungen zur Kenntnis zu nehmen und die Zeilen zu prüfen.
report-failed = { $count ->
    [one] { $count } Zeile ist an einem API- oder Netzwerkfehler gescheitert und wird
   *[other] { $count } Zeilen sind an einem API- oder Netzwerkfehler gescheitert und werden
} beim nächsten Lauf wiederholt: siehe Zu prüfen weiter unten.
report-ambiguous = { $count ->
    [one] { $count } Zeile passt
   *[other] { $count } Zeilen passen
} zu mehreren Unternehmen: die Kandidaten stehen unter Zu prüfen weiter unten; Ort oder Postleitzahl ergänzen oder die gewählte company_id ins Portfolio schreiben.
report-stale = { $count ->
    [one] { $count } Bewertung
   *[other] { $count } Bewertungen
} seit mehr als { $days ->
    [one] { $days } Tag
   *[other] { $days } Tagen
} nicht vom Dienst neu berechnet: unten als
report-stale-end = markiert.
report-alerts = Warnungen
report-none-flagged-but = Nichts zu melden unter den geprüften Zeilen, aber { $why }.
report-alerts-hint = Heute Nacht von den Warnregeln gelistet, wie in der Zusammenfassung: die schlimmsten zuerst, die Zeilen eines Unternehmens zusammen.
report-more = Die ersten { $shown } von { $count } { $what } werden gezeigt; alle stehen in { $csv }, und die Tabelle aller Zeilen unten findet sie ({ $filter }).
report-what-listed = heute Nacht gelisteten Warnzeilen
report-what-standing = andauernden Warnzeilen
report-what-acknowledged = zur Kenntnis genommenen Warnzeilen
report-what-rows = Zeilen
report-standing = Weiter rot oder schwarz, heute Nacht nicht gelistet
report-standing-hint = { $count ->
    [one] { $count } Unternehmen ist
   *[other] { $count } Unternehmen sind
} weiter rot oder schwarz: andauernde Warnungen, gezählt, aber heute Nacht nicht gelistet (die Option
report-standing-hint-end = der Warnregeln listet sie erneut).
report-acknowledged = Zur Kenntnis genommen, nicht gelistet
report-acknowledged-hint = { $count ->
    [one] { $count } Unternehmen, weiter rot oder schwarz, dessen Warnung
   *[other] { $count } Unternehmen, weiter rot oder schwarz, deren Warnung
} eine Kenntnisnahme aus der Liste hält, bis sich die Farbe ändert (
report-acknowledged-hint-end = ).
report-to-review = Zu prüfen
report-nothing-to-review = Nichts zu prüfen: jede Zeile wurde geprüft.
report-nothing-to-review-ignored = Nichts zu prüfen: jede Zeile wurde geprüft oder ist per Entscheidung ignoriert.
report-review-hint = Nicht geprüfte Zeilen: jede Art sagt, was zu tun ist; bis dahin werden ihre Unternehmen nicht überwacht.
report-ambiguous-hint = Mehrere Unternehmen passen: eines wählen (
report-ambiguous-hint-end = ), oder Ort oder Postleitzahl ergänzen, oder seine company_id ins Portfolio schreiben.
report-unresolved-hint = Kein Unternehmen passt: Kennung oder Name und Land prüfen.
report-invalid-hint = Die Zeile selbst ist fehlerhaft, wie die Details sagen: im Portfolio korrigieren.
report-failed-hint = Ein API- oder Netzwerkfehler nach Wiederholungen: beim nächsten Lauf wiederholt.
report-trend = Verlauf
report-trend-run = Lauf { $run }, jedes Diagramm mit eigener Skala
report-trend-runs = Läufe { $first }–{ $last }, jedes Diagramm mit eigener Skala
report-trend-single = Ein Verlauf braucht zwei Läufe: dies ist der erste abgeschlossene Lauf von { $portfolio }; die nächsten kommen daneben.
report-trend-numbers = Die Zahlen des Verlaufs
report-trend-caption = Die Zahlen, neuester Lauf zuerst: bewertete Zeilen nach Farbe und die in diesem Lauf nach Rot oder Schwarz gewechselten
report-all-rows = Alle Zeilen
report-noscript = Die Tabelle aller Zeilen braucht Skripte, die ausgeschaltet sind: jede Zeile und jedes Feld steht in { $csv } (und report.json). Die Warnungen und die zu prüfenden Zeilen stehen oben.
report-search = Ref., Unternehmen, Kennung, Fehler suchen…
report-search-label = Die Zeilen durchsuchen
report-every-status = jeder Status
report-every-color = jede Farbe
report-alert-or-not = Warnung oder nicht
report-any-alert = jede Warnung
report-filter-listed = Warnung: heute Nacht gelistet
report-filter-standing = Warnung: andauernd
report-filter-acknowledged = Warnung: zur Kenntnis genommen
report-filter-status = Status: { $status }
report-show-more = Mehr zeigen
report-run-of = Lauf { $run } von { $portfolio }
report-input = Eingabe { $path } (SHA-256
report-api-calls = { $count ->
    [one] { $count } API-Aufruf
   *[other] { $count } API-Aufrufe
}
report-every-row-in = jede Zeile und jedes Feld steht in { $csv }

## Der Verlauf in report.html.

trend-into-red = nach Rot
trend-into-black = nach Schwarz
trend-rows-green = Grüne Zeilen
trend-rows-yellow = Gelbe Zeilen
trend-rows-red = Rote Zeilen
trend-rows-black = Schwarze Zeilen
trend-rows-white = Weiße Zeilen
# Eine Farbe außerhalb der fünf, wie der Dienst sie nennt.
trend-rows = Zeilen { $color }
trend-run = Lauf { $run }
trend-run-day = Lauf { $run } ({ $day })
trend-line-desc = { $title }, ein Punkt pro Lauf: { $now } im letzten Lauf, { $first } im ersten; niedrigster Wert { $min }, höchster { $max }.
trend-since-first = { $delta } seit dem ersten Lauf
trend-news-title = Nach Rot, nach Schwarz gewechselt
trend-news-run = { $run }: { $red } nach Rot, { $black } nach Schwarz
trend-in-last-run = im letzten Lauf
trend-news-desc = Bewertete Zeilen, deren Unternehmen nach Rot oder Schwarz wechselte, pro Lauf (ein Wechsel, keine Erstprüfung): { $red } nach Rot und { $black } nach Schwarz im letzten Lauf, { $allred } und { $allblack } über { $runs ->
    [one] den Lauf
   *[other] die { $runs } Läufe
}.
trend-color-run = { $run }: { $rows } { $color }
trend-came-into = , davon { $rows } nach { $color } gewechselt
trend-amount-title = Betrag im Risiko (rote und schwarze Zeilen)
trend-amount-title-of = { $column } im Risiko (rote und schwarze Zeilen)
trend-amount-run = { $run }: { $amount } im Risiko
trend-no-amount = { $run }: kein Betrag
trend-at-risk = Im Risiko
trend-at-risk-of = Im Risiko ({ $column })

## Das Skript von report.html: die Tabelle aller Zeilen. `{ $n }` ist die Zahl, die das
## Skript einsetzt.

script-sort-by = Sortieren nach
script-no-browser = Dieser Browser kann die Tabelle aller Zeilen nicht zeigen: jede Zeile steht in report.csv.
script-reading = Zeilen werden gelesen…
script-unreadable = Die Tabelle aller Zeilen konnte hier nicht gelesen werden: jede Zeile steht in report.csv.
script-rows = { $count ->
    [one] { $n } Zeile
   *[other] { $n } Zeilen
}
script-match = { $count ->
    [one] { $m } von { $n } Zeile passt
   *[other] { $m } von { $n } Zeilen passen
}
script-first-shown = · die ersten { $n } gezeigt
script-show-more = { $n } weitere zeigen

## Die Seiten von `ratewatch serve`.

serve-inbox = Posteingang
serve-review = Zu prüfen
serve-search = Suchen
serve-not-found = Nicht gefunden
serve-problem = ratewatch: ein Fehler
serve-signed-in-as = Angemeldet als
serve-search-placeholder = Ref., Name, SIREN oder Unternehmens-ID
serve-read-only = Nur lesen: dieser Server ändert nichts.
serve-note = Notiz
serve-until = Bis
serve-until-optional = Bis (optional)
serve-acknowledge = Zur Kenntnis nehmen
serve-rows-ticked-below = Die unten angekreuzten Zeilen:
serve-note-for-all = Notiz für alle
serve-note-for-ticked = Notiz für die angekreuzten Zeilen
serve-acknowledge-ticked = Angekreuzte Zeilen zur Kenntnis nehmen
serve-select = Auswählen
serve-refs = Refs
serve-last-refresh = Letzte Neuberechnung
serve-by = Von
serve-no-run-yet = Noch kein abgeschlossener Lauf: `ratewatch screen` füllt die Datenbank.
serve-to-act-on = Zu bearbeiten
serve-nothing-to-act-on = Nichts zu bearbeiten.
serve-more-listed = … und { $count ->
    [one] { $count } weitere gelistete Warnung
   *[other] { $count } weitere gelistete Warnungen
} (report.csv hat sie alle).
serve-acknowledged = Zur Kenntnis genommen
serve-none = Keine.
serve-before-the-run = vor dem Lauf (seitdem beendet)
serve-standing = Weiter rot und schwarz
serve-finished = , beendet am { $time }
serve-run-line = Lauf { $run } · { $status } · gestartet am { $started }{ $finished } · { $rows } Zeilen, { $rated } bewertet, { $alerts } Warnungen
serve-in-force = gültig
serve-company-id = Unternehmens-ID
serve-city = Ort
serve-registry-ids = Register-IDs
serve-none-known = keine bekannt
serve-last-refresh-service = Letzte Neuberechnung (Dienst)
serve-last-change-service = Letzte Änderung (Dienst)
serve-last-seen = Zuletzt von ratewatch gesehen
serve-no-rating = noch keine Bewertung erfasst
serve-gone = Verschwunden
serve-gone-since = der Dienst kannte es in Lauf { $run } nicht mehr ({ $noticed })
serve-last-seen-at = ; zuletzt gesehen am { $time }
serve-held-by = Gehalten von
serve-held-by-none = Keine Zeile des letzten abgeschlossenen Laufs eines Portfolios.
serve-portfolio = Portfolio
serve-timeline = Farbverlauf
serve-no-rating-yet = Noch keine Bewertung erfasst.
serve-since = Seit
serve-first-seen = Zuerst gesehen
serve-last-confirmed = Zuletzt bestätigt
serve-runs = Läufe
serve-acknowledgements = Kenntnisnahmen
serve-ended = Beendet
serve-why = Grund
serve-why-withdrawn = Warum sie zurückgezogen wird
serve-withdraw = Zurückziehen
serve-acknowledge-current = In der aktuellen Farbe zur Kenntnis nehmen
serve-decisions = Entscheidungen
serve-decision = Entscheidung
serve-decided = Entschieden am
serve-source = Quelle
verdict-accept = akzeptieren
verdict-reject = ablehnen
verdict-ignore = ignorieren
serve-latest-run = Letzter Lauf
serve-latest-finished = Zuletzt abgeschlossen:
serve-calls-this-month = Aufrufe diesen Monat
serve-calls-hint = (alle diesen Monat gestarteten Läufe, alle Portfolios)
serve-red-and-black = Rot und schwarz
serve-red-black = { $red } rot, { $black } schwarz
serve-rated-rows = (bewertete Zeilen)
serve-came-into = Nach Rot und Schwarz gewechselt
serve-new-red-black = { $red ->
    [one] { $red } Zeile
   *[other] { $red } Zeilen
} nach Rot, { $black } nach Schwarz
serve-came-into-hint = (ein Farbwechsel in diesem Lauf, nie eine Erstprüfung: die Balken des Verlaufs)
serve-amount-at-risk = Betrag im Risiko
serve-amount-at-risk-hint = (jede rote und schwarze Zeile, zur Kenntnis genommen oder nicht, gleich welcher Betrag: der des Verlaufs)
serve-no-amount-column = keine Betragsspalte benannt ([alerts] amount)
serve-in-the-alerts = In den Warnungen
serve-alerts-listed = Gelistete Warnungen
serve-none-listed = keine
serve-standing-short = Andauernd
serve-not-screened = Nicht geprüft
serve-no-finished-run = Noch kein abgeschlossener Lauf.
serve-started = Gestartet
serve-new-red = Neu rot
serve-new-black = Neu schwarz
serve-not-monitored = Nicht überwacht
serve-every-row-rated = Jede Zeile des letzten abgeschlossenen Laufs ist bewertet.
serve-review-them = prüfen
serve-name-or-id = Name oder ID
serve-review-lead = Die Zeilen des letzten abgeschlossenen Laufs jedes Portfolios, die eine Person brauchen. Eine Entscheidung wendet der nächste Lauf vor jedem Aufruf an: akzeptieren bewertet die Zeile ohne Suche als dieses Unternehmen, ablehnen sagt, dass keiner der Kandidaten es ist, ignorieren lässt die Zeile beiseite.
serve-needs-a-person = Braucht eine Person
serve-nothing-needs = Nichts braucht eine Person in den letzten abgeschlossenen Läufen.
serve-where = { $portfolio }, Zeile { $line }, Lauf { $run }
serve-searched = gesucht:
serve-found-without = Kein Unternehmen passt wie geschrieben: gefunden ohne { $without }. Ein so gefundener Kandidat wird nie als das Unternehmen genommen: nur akzeptieren, wenn es dieser Kunde ist.
serve-candidate = Kandidat
serve-postcode = Postleitzahl
serve-accept = Akzeptieren
serve-reject = Alle Kandidaten ablehnen
serve-ignore = Zeile ignorieren
serve-no-ref = Diese Zeile hat keine Ref.: im Portfolio eine vergeben, um darüber zu entscheiden.
serve-ignored-rows = Ignorierte Zeilen
serve-no-decision = Noch keine Entscheidung.
serve-no-match = Kein Unternehmen passt zu „{ $query }“ nach Unternehmens-ID, Register-ID, Ref. oder Name, und keine Zeile der letzten Läufe hat es als Ref. oder im Namen.
serve-none-rated = Für „{ $query }“ ist kein Unternehmen bewertet.
serve-found = { $count } gefunden nach { $by }{ $more ->
    [0] {""}
   *[other] {" "}(und { $more } weitere: mehr vom Namen angeben)
}.
serve-by-company-id = Unternehmens-ID
serve-by-registry-id = Register-ID
serve-by-ref = Ref.
serve-by-name = Name
serve-not-screened-lead = Zeilen des letzten abgeschlossenen Laufs jedes Portfolios, für die kein Unternehmen bewertet ist, und warum.
serve-name-in-file = Name in der Datei
serve-screened-again = beim nächsten Lauf erneut geprüft
serve-log-in = Anmelden
serve-needs-token = Dieser Server braucht sein Token (die Datei aus
serve-wrong-token = Das ist nicht das Token.
serve-token = Token
serve-not-found-text = Hier ist nichts: die Datenbank kennt kein solches Unternehmen und kein solches Portfolio. Versuchen Sie die Suche.
