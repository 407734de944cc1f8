## Die Tabellen der Befehle und die Meldungen, die man im Terminal liest.

## Die Spaltenköpfe der Tabellen.

column-run = LAUF
column-started = GESTARTET
column-portfolio = PORTFOLIO
column-status = STATUS
column-rows = ZEILEN
column-rated = BEWERTET
column-unresolved = NICHT GEFUNDEN
column-ambiguous = MEHRDEUTIG
column-invalid = UNGÜLTIG
column-failed = FEHLGESCHLAGEN
column-ignored = IGNORIERT
column-alerts = WARNUNGEN
column-change = ÄNDERUNG
column-changed = GEÄNDERT
column-seen = GESEHEN
column-company-id = UNTERNEHMENS-ID
column-acked = BESTÄTIGT
column-by = VON
column-until = BIS
column-note = NOTIZ
column-ended = BEENDET
column-line = ZEILE
column-search = SUCHE
column-candidate = KANDIDAT
column-city = ORT
column-postcode = PLZ
column-error = FEHLER
column-decision = ENTSCHEIDUNG
column-decided = ENTSCHIEDEN
column-source = QUELLE
column-when = WANN
column-event = EREIGNIS
column-what = WAS

## ratewatch runs

no-runs = Noch keine Läufe.

runs-pruned = { $count ->
    [one] Lauf { $runs }: seine Zeilen werden nicht mehr aufbewahrt (keep_run_details_days); seine Zählungen bleiben, `report --run { $runs }` kann seine Berichte nicht mehr schreiben.
   *[other] Läufe { $runs }: ihre Zeilen werden nicht mehr aufbewahrt (keep_run_details_days); ihre Zählungen bleiben, `report --run` kann ihre Berichte nicht mehr schreiben.
}

## ratewatch changes

changes-seen = { $count ->
    [one] { $count } Farbwechsel
   *[other] { $count } Farbwechsel
} gesehen { $window }:
changes-none = Kein Farbwechsel gesehen { $window }.
window-since = seit { $since }
window-between = seit { $since } und vor { $until }
window-to = nach { $colors } { $window }
window-amount = { $window }, bei Unternehmen mit mindestens { $amount } in { $column }
or = oder
amount-unreadable = { $count ->
    [one] { $count } Unternehmen hat keinen lesbaren Betrag in { $column }: ausgelassen.
   *[other] { $count } Unternehmen haben keinen lesbaren Betrag in { $column }: ausgelassen.
}

## ratewatch acks

no-acks = Keine Bestätigung.
no-acks-in-force = Keine gültige Bestätigung.
ack-in-force = gültig

## ratewatch audit

no-events = Keine Bestätigung oder Entscheidung in diesem Zeitraum.
event-acknowledged = bestätigt
event-decided = entschieden
event-ack-ended = Bestätigung beendet: { $how }
event-decision-ended = Entscheidung beendet: { $how }
what-ack = bei { $color }
what-until = {" "}bis { $until }
what-seen-by = , gesehen von Lauf { $run }

## ratewatch review list

review-nothing = Nichts wartet auf eine Entscheidung in den letzten abgeschlossenen Läufen.
review-decisions = Entscheidungen:
decision-accept = angenommen
decision-ignore = ignoriert
decision-reject = abgelehnt

## ratewatch history

column-since = SEIT
column-first-seen = ZUERST GESEHEN
column-last-confirmed = ZULETZT BESTÄTIGT
column-runs = LÄUFE
column-name = NAME
column-id = UNTERNEHMENS-ID
history-company-id = Unternehmens-ID
history-held-by = gehalten von
history-held-by-none = keiner Zeile des letzten beendeten Laufs eines Portfolios
history-name-unknown = (Name unbekannt)
history-no-rating = Noch keine Bewertung erfasst.
history-gone = verschwunden: Lauf { $run } ({ $noticed }) stellte fest, dass der Dienst dieses Unternehmen nicht mehr kennt; zuletzt gesehen { $seen }
matches-none = Kein Unternehmen passt zu { $wanted } nach Unternehmens-ID, Referenz oder Name.
matches-some = { $count ->
    [one] { $count } Unternehmen passt zu { $wanted }:
   *[other] { $count } Unternehmen passen zu { $wanted }:
}

## ratewatch lookup

lookup-by-id = mit { $service } { $id } in { $country }
lookup-by-name = { $count ->
   *[other] namens
} { $name } in { $country }
lookup-none = Kein Unternehmen { $query }.
lookup-several = { $count } Unternehmen { $query }; grenzen Sie die Suche mit --city, --postcode oder --street-name ein.
lookup-rating = { $color }  (letzte Änderung am { $changed }, neu berechnet am { $refreshed })
lookup-unavailable = nicht verfügbar
lookup-unavailable-because = nicht verfügbar: { $error }
label-name = Name
label-rating = Bewertung
label-id = ID
label-address = Adresse
label-phone = Telefon
label-legal-form = Rechtsform
label-identifiers = Kennungen

## Der Fehler, mit dem ein Befehl endet, und die meistgelesenen Fehler

error-line = ratewatch: Fehler: { $error }
record-at-line = { $file }, Zeile { $line }: { $message }
record-not-utf8 = kein UTF-8 (Byte { $byte } bei Zeichen { $column }); speichern Sie die Datei als „CSV UTF-8“ oder konvertieren Sie sie, z. B. iconv -f WINDOWS-1252 -t UTF-8
record-nul-bytes = das ist keine CSV-Textdatei (sie enthält NUL-Bytes); exportieren Sie das Blatt als CSV
record-empty-file = die Datei ist leer; eine Kopfzeile ist nötig (country, service, id oder name, …)
record-not-a-country = Feld { $field }: { $given } ist weder ein Ländercode (zwei Buchstaben, z. B. FR) noch der Name eines Landes
record-not-a-country-near = Feld { $field }: { $given } ist weder ein Ländercode (zwei Buchstaben, z. B. FR) noch der Name eines Landes; meinten Sie { $code }?
record-not-a-uuid = Feld { $field }: { $given } ist keine UUID
record-whole-number = { $key }: eine ganze Zahl von { $min } bis { $max } erwartet, { $given } angegeben
record-unknown-key = unbekannter Schlüssel { $key }; die Schlüssel sind { $keys }
record-unknown-key-near = unbekannter Schlüssel { $key } (meinten Sie { $near }?); die Schlüssel sind { $keys }
