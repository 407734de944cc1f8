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
