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
