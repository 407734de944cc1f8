# Français : les messages de en.ftl, pour une équipe de crédit qui lit en français.

## Les couleurs du service.

color-green = vert
color-yellow = jaune
color-red = rouge
color-black = noir
color-white = blanc

## Comment une ligne s'est terminée.

status-rated = notée
status-unresolved = non trouvée
status-ambiguous = ambiguë
status-invalid = invalide
status-failed = en échec
status-ignored = ignorée

## Comment la couleur d'une société a bougé depuis le passage précédent.

change-new = nouvelle
change-unchanged = inchangée
change-evolved = réévaluée
change-deteriorated = dégradée
change-improved = améliorée
change-changed = changée

## Décomptes.

alerts = { $count ->
    [one] { $count } alerte
   *[other] { $count } alertes
}
rows = { $count ->
    [one] { $count } ligne
   *[other] { $count } lignes
}
companies = { $count ->
    [one] { $count } société
   *[other] { $count } sociétés
}

## Heures.

run-started = commencé le { $time }
