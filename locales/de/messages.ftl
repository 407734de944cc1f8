# Deutsch: die Meldungen aus en.ftl, für ein Kreditteam, das auf Deutsch liest.

## Die Farben des Dienstes.

color-green = grün
color-yellow = gelb
color-red = rot
color-black = schwarz
color-white = weiß

## Wie eine Zeile endete.

status-rated = bewertet
status-unresolved = nicht gefunden
status-ambiguous = mehrdeutig
status-invalid = ungültig
status-failed = fehlgeschlagen
status-ignored = ignoriert

## Wie sich die Farbe eines Unternehmens seit dem letzten Lauf bewegt hat.

change-new = neu
change-unchanged = unverändert
change-evolved = neu bewertet
change-deteriorated = verschlechtert
change-improved = verbessert
change-changed = geändert

## Zählungen.

alerts = { $count ->
    [one] { $count } Warnung
   *[other] { $count } Warnungen
}
rows = { $count ->
    [one] { $count } Zeile
   *[other] { $count } Zeilen
}
companies = { $count ->
    [one] { $count } Unternehmen
   *[other] { $count } Unternehmen
}

## Zeiten.

run-started = gestartet am { $time }

## Die Zusammenfassung eines Laufs, die E-Mail und die Chat-Nachrichten.

heading = ratewatch { $when } · { $portfolio } · Lauf { $run }
run-line = ratewatch Lauf { $run } von { $portfolio } ({ $state }): { $rows } — { $statuses }
run-line-quiet = ratewatch Lauf { $run } von { $portfolio }: { $state }
run-complete = vollständig
run-partial = teilweise
run-interrupted = unterbrochen
run-failed = fehlgeschlagen
run-running = läuft
state-stopped = ABGEBROCHEN: { $count ->
    [one] { $count } Zeile nicht geprüft
   *[other] { $count } Zeilen nicht geprüft
}, der nächste Lauf setzt fort
state-partial = TEILWEISE: { $count ->
    [one] { $count } Zeile fehlgeschlagen, wird
   *[other] { $count } Zeilen fehlgeschlagen, werden
} beim nächsten Lauf erneut versucht
colors-line = Farben: { $list }
calls-line = Abrufe: { $total } ({ $list })
storm = STURM: { $changed } von { $companies } Unternehmen haben in diesem Lauf die Farbe gewechselt, wahrscheinlich eine geänderte Methode der Quelle; die { $listed } schlimmsten sind aufgeführt, jede Änderung steht in den Berichten
nothing-screened = NICHTS GEPRÜFT: keine der { $rows } konnte bewertet werden; siehe die Zählungen und `error` in den Berichten
unscreened-nobody = keine der { $rows } konnte bewertet werden (NICHTS GEPRÜFT)
unscreened-rows = { $count ->
    [one] { $count } Zeile wurde nicht geprüft
   *[other] { $count } Zeilen wurden nicht geprüft
}
unscreened-run = der Lauf ist { $status }: Zeilen können fehlen
nothing-flagged = Nichts zu melden: kein rotes oder schwarzes Unternehmen, kein Farbwechsel.
nothing-new-flagged = Nichts Neues zu melden: kein Farbwechsel, bei dem die Regeln warnen.
none-flagged-but = Nichts zu melden unter den geprüften Zeilen (kein rotes oder schwarzes Unternehmen, kein Farbwechsel), aber { $why }.
none-newly-flagged-but = Nichts Neues zu melden unter den geprüften Zeilen (kein Farbwechsel, bei dem die Regeln warnen), aber { $why }.
more-in-reports = … und { $count } weitere in den Berichten
rows-of-status = { $status ->
    [unresolved] { $count } nicht gefundene
    [ambiguous] { $count } mehrdeutige
    [invalid] { $count } ungültige
    [failed] { $count } fehlgeschlagene
    [ignored] { $count } ignorierte
   *[other] { $count } bewertete
} { $count ->
    [one] Zeile
   *[other] Zeilen
}
not-screened-named = NICHT GEPRÜFT: { $rows } ({ $refs }): { $why }
why-invalid = die Zeile selbst ist fehlerhaft (siehe `error` in den Berichten): den Export korrigieren oder sie mit `ratewatch review ignore` beiseitelassen
why-unresolved = kein Unternehmen passt: die Kennung prüfen oder mit `ratewatch review` entscheiden
why-ambiguous = mehrere Unternehmen passen: mit `ratewatch review` wählen
acked-line = { $count ->
    [one] { $count } Warnung bestätigt, nicht aufgeführt
   *[other] { $count } Warnungen bestätigt, nicht aufgeführt
}, bis sich das Unternehmen wieder ändert (`ratewatch acks`)
stale-line = { $count ->
    [one] { $count } Bewertung
   *[other] { $count } Bewertungen
} seit mehr als { $days ->
    [one] { $days } Tag
   *[other] { $days } Tagen
} nicht neu berechnet (veraltet): siehe `stale` in den Berichten
ambiguous-line = { $count ->
    [one] { $count } Zeile passt
   *[other] { $count } Zeilen passen
} auf mehrere Unternehmen: die Kandidaten stehen in den Berichten; Ort/Postleitzahl oder company_id ergänzen
budget-line = { $count ->
    [one] { $count } Zeile
   *[other] { $count } Zeilen
} nicht geprüft: Abrufbudget erreicht ({ $flag }); in einem späteren Lauf geprüft
failures-line = { $count ->
    [one] { $count } Zeile wurde
   *[other] { $count } Zeilen wurden
} wegen eines API- oder Netzwerkfehlers oder eines Ratenlimits nicht geprüft; siehe `error` in den Berichten
reports-line = Berichte: { $list }
inbox-line = Posteingang: { $url }
row-at-line = { $ref } (Zeile { $line })
row-line = Zeile { $line }

## Die Warnungen, in jedem Kanal gleich aufgeführt.

kind-black = nach Schwarz
kind-red = nach Rot
kind-deteriorated = verschlechtert
kind-white = nach Weiß (keine Informationen mehr)
kind-gone = verschwunden
kind-unknown = unbekannte Farbe
kind-changed = geändert
kind-improved = verbessert
kind-still = weiterhin rot oder schwarz
kind-count = { $count } { $kind ->
    [black] nach Schwarz
    [red] nach Rot
    [deteriorated] verschlechtert
    [white] nach Weiß
    [gone] verschwunden
    [unknown] mit unbekannter Farbe
    [improved] verbessert
    [still] weiterhin rot oder schwarz
   *[changed] geändert
}
move-gone = { $now } → verschwunden
move-unknown = unbekannte Farbe { $now }
move-still = { $now } (weiterhin)
move-first = { $now } (erste Prüfung)
at-first-screening = { $color } bei der ersten Prüfung
alerts-worst-first = { $count ->
    [one] { $count } Warnung
   *[other] { $count } Warnungen
}, die schlimmsten zuerst
listed-count = { $count } aufgeführt
at-stake = { $amount } im Risiko
kind-mixed = { $colored } ({ $changed }, { $first } bei der ersten Prüfung{ $stake })
still-line = weiterhin { $color }: { $count ->
    [one] { $count } Unternehmen
   *[other] { $count } Unternehmen
}
at-stake-of = { $amount } im Risiko ({ $column })
standing-largest = die größten
standing-first = die ersten
counted-white = { $count } nach oder von Weiß
counted-line = gezählt, nicht aufgeführt: { $list }
at-risk = im Risiko: { $red } rote und { $black } schwarze { $total ->
    [one] Zeile
   *[other] Zeilen
}
came-into = heute Nacht nach Rot: { $red ->
    [one] { $red } Zeile
   *[other] { $red } Zeilen
}, nach Schwarz: { $black } (Farbwechsel, keine ersten Prüfungen)
red-or-black-rows = { $count ->
    [one] { $count } rote oder schwarze Zeile
   *[other] { $count } rote oder schwarze Zeilen
}
left-under = { $rows } unter { $value } ({ $column }, [alerts] min_exposure)
left-by-rules = { $rows }, bei denen die Regeln nicht warnen
acknowledged-companies = { $count ->
    [one] { $count } bestätigtes Unternehmen
   *[other] { $count } bestätigte Unternehmen
}
and = und
left-out-held = die Warnungen decken { $amount } davon ab und lassen aus: { $parts }
left-out = die Warnungen lassen aus: { $parts }
not-screened = nicht geprüft: { $parts }: { $count ->
    [one] { $count } Zeile
   *[other] { $count } Zeilen
}
failed-heading = { $count ->
    [one] { $count } fehlgeschlagene Zeile
   *[other] { $count } fehlgeschlagene Zeilen
}, { $order }, beim nächsten Lauf erneut versucht:
order-largest = die größten zuerst
order-file = in der Reihenfolge der Datei
column-ref = REF
column-company = UNTERNEHMEN
column-country = LAND
column-color = FARBE
column-alert = WARNUNG
column-refreshed = NEU BERECHNET
column-page = SEITE

## Chat-Nachrichten.

no-alerts = keine Warnungen
run-ended = der Lauf endete { $status }
more-in-report = … und { $count } weitere im Bericht
run-number = Lauf { $run }
report-path = Bericht: { $path }
see-them = ansehen, mit Grund
open-inbox = Posteingang öffnen

## Die Tabelle der E-Mail.

header-ref = Ref
header-company = Unternehmen
header-country = Land
header-color = Farbe
header-alert = Warnung
header-refreshed = Neu berechnet

## Die Zahl einer Farbe und eines Zeilenausgangs, das Wort passend zur Zahl (Zeilen).

color-count = { $count } { $color ->
    [green] grüne
    [yellow] gelbe
    [red] rote
    [black] schwarze
    [white] weiße
   *[other] { $color }
}
status-count = { $count } { $status ->
    [unresolved] nicht gefunden
    [ambiguous] mehrdeutig
    [invalid] ungültig
    [failed] fehlgeschlagen
    [ignored] ignoriert
   *[rated] bewertet
}

## Die E-Mail: ihr Betreff und was ihr HTML-Teil über die Zeilen der Zusammenfassung hinaus sagt.

mail-subject = ratewatch { $portfolio } { $day }: { $news }
subject-failed = FEHLGESCHLAGEN
subject-nothing-screened = NICHTS GEPRÜFT, keine der { $count ->
    [one] { $count } Zeile
   *[other] { $count } Zeilen
} bewertet
subject-stopped = ABGEBROCHEN, { $count ->
    [one] { $count } Zeile nicht geprüft
   *[other] { $count } Zeilen nicht geprüft
}
subject-partial = TEILWEISE, { $count ->
    [one] { $count } Zeile nicht geprüft
   *[other] { $count } Zeilen nicht geprüft
}
subject-new = { $count } neu nach { $color ->
    [black] Schwarz
   *[red] Rot
}
subject-kind = { $count } { $kind ->
    [deteriorated] verschlechtert
    [white] nach Weiß
    [gone] verschwunden
    [unknown] mit unbekannter Farbe
    [improved] verbessert
    [still] weiterhin rot oder schwarz
   *[changed] geändert
}
subject-first = { $list } bei der ersten Prüfung
failed-line = FEHLGESCHLAGEN: { $error }
failed-unknown = FEHLGESCHLAGEN: der Lauf endete mit einem Fehler; siehe das Protokoll
heading-no-run = ratewatch { $when } · { $portfolio } · kein Lauf erfasst
inbox-why = , um die Warnungen zu bestätigen und die Zeilen zu prüfen.
mail-counts = Lauf { $run } von { $portfolio } ({ $state }): { $rows }: { $statuses }

## Die Notizen eines Laufs und die Fehler einer Zeile, auf Englisch gespeichert, auf Deutsch gesagt.

record-stopped = ANGEHALTEN: { $why }: der nächste Lauf dieses Portfolios setzt mit den nicht geprüften Zeilen fort
record-quota-wait = das Kontingent des Dienstes verlangt, bis { $until } zu warten, länger als --max-wait ({ $seconds } s); danach erneut starten
record-not-answering = der Dienst antwortet nicht (keine Antwort seit { $seconds } s: Zeitüberschreitungen oder abgelehnte Verbindungen; --max-silence)
record-max-run-time = der Lauf hat seine --max-run-time ({ $seconds } s) erreicht
record-budget = BUDGET: { $spent } der { $budget } Aufrufe des Monats (--max-calls-per-month) sind bereits verbraucht; { $left ->
    [0] dieser Lauf macht keinen Aufruf
    [1] dieser Lauf darf noch 1 machen
   *[other] dieser Lauf darf noch { $left } machen
}: die nicht geprüften Zeilen warten auf einen späteren Lauf, den das Budget erlaubt
record-quota-spent = nicht geprüft: Kontingent: der Dienst verlangte, bis { $until } zu warten; danach erneut starten
record-halted = nicht geprüft: { $why }
record-run-stopped = der Lauf wurde angehalten
record-unauthenticated = der Dienst hat den API-Schlüssel abgelehnt (HTTP { $status }: { $message }); prüfen Sie den Schlüssel, Demo- und Live-Schlüssel unterscheiden sich
record-forbidden = der Dienst hat den Zugriff verweigert (HTTP 403: { $message }); der Schlüssel wurde akzeptiert, das Konto umfasst dieses Produkt also wohl nicht: bitten Sie den Anbieter, das Bewertungspaket freizuschalten
record-server = der Dienst antwortete mit HTTP { $status }: { $snippet }; das ist meist vorübergehend, später erneut versuchen
record-transport = der Dienst ist nicht erreichbar: { $message }; prüfen Sie --base-url und das Netzwerk
record-not-found = nicht gefunden: { $what }
