## Les pages : report.html et les pages de `ratewatch serve`.
# Un message qui s'arrête avant ou après du balisage (`<code>ratewatch acks</code>`, un
# lien) s'arrête là ; la page met le balisage entre lui et le suivant.

## Les libellés des colonnes et des champs.

label-ref = Réf.
label-company = Société
label-country = Pays
label-color = Couleur
label-change = Évolution
label-color-since = Couleur depuis
label-refreshed = Recalculée le
label-line = Ligne
label-searched = Recherché
label-details = Détails
label-status = Statut
label-alert = Alerte
label-run = Passage
label-date = Date
label-became = devenue
label-acknowledged = prise en compte
stale-tag = ancienne
# Une société que le service ne connaît plus.
change-gone = disparue

## report.html

report-title = { $portfolio } — ratewatch, passage { $run }
report-eyebrow = rapport ratewatch
report-finished = terminé le { $time }
report-status = état
report-demo-day = jour simulé { $day } (démo)
report-tiles = Lignes notées par couleur
report-inbox-end = de ratewatch serve pour prendre en compte les alertes et examiner les lignes.
report-failed = { $count ->
    [one] { $count } ligne a échoué sur une erreur d'API ou de réseau et sera réessayée
   *[other] { $count } lignes ont échoué sur une erreur d'API ou de réseau et seront réessayées
} au prochain passage : voir À examiner plus bas.
report-ambiguous = { $count ->
    [one] { $count } ligne correspond
   *[other] { $count } lignes correspondent
} à plusieurs sociétés : les candidates sont listées sous À examiner plus bas ; ajoutez la ville ou le code postal, ou mettez le company_id choisi dans le portefeuille.
report-stale = { $count ->
    [one] { $count } note non recalculée
   *[other] { $count } notes non recalculées
} par le service depuis plus de { $days ->
    [one] { $days } jour
   *[other] { $days } jours
} : marquées
report-stale-end = plus bas.
report-alerts = Alertes
report-none-flagged-but = Rien à signaler parmi les lignes examinées, mais { $why }.
report-alerts-hint = Listées cette nuit par les règles d'alerte, comme dans le résumé : les pires d'abord, les lignes d'une société ensemble.
report-more = Les { $shown } premières des { $count } { $what } sont affichées ; toutes sont dans { $csv }, et le tableau de toutes les lignes plus bas les trouve ({ $filter }).
report-what-listed = lignes d'alerte listées cette nuit
report-what-standing = lignes d'alerte persistantes
report-what-acknowledged = lignes d'alerte prises en compte
report-what-rows = lignes
report-standing = Toujours rouges ou noires, non listées cette nuit
report-standing-hint = { $count ->
    [one] { $count } société toujours rouge ou noire
   *[other] { $count } sociétés toujours rouges ou noires
} : alertes persistantes, comptées mais non listées cette nuit (l'option
report-standing-hint-end = des règles d'alerte les liste à nouveau).
report-acknowledged = Prises en compte, non listées
report-acknowledged-hint = { $count ->
    [one] { $count } société toujours rouge ou noire dont une prise en compte écarte l'alerte
   *[other] { $count } sociétés toujours rouges ou noires dont une prise en compte écarte l'alerte
} de la liste jusqu'au prochain changement de couleur (
report-acknowledged-hint-end = ).
report-to-review = À examiner
report-nothing-to-review = Rien à examiner : toutes les lignes ont été examinées.
report-nothing-to-review-ignored = Rien à examiner : toutes les lignes ont été examinées ou sont ignorées par une décision.
report-review-hint = Lignes non examinées : chaque type dit quoi faire ; d'ici là, leurs sociétés ne sont pas surveillées.
report-ambiguous-hint = Plusieurs sociétés correspondent : choisissez-en une (
report-ambiguous-hint-end = ), ou ajoutez la ville ou le code postal, ou mettez son company_id dans le portefeuille.
report-unresolved-hint = Aucune société ne correspond : vérifiez l'identifiant ou le nom et le pays.
report-invalid-hint = La ligne elle-même est erronée, comme le disent les détails : corrigez-la dans le portefeuille.
report-failed-hint = Une erreur d'API ou de réseau après plusieurs essais : réessayée au prochain passage.
report-trend = Tendance
report-trend-run = passage { $run }, chaque graphique à sa propre échelle
report-trend-runs = passages { $first } à { $last }, chaque graphique à sa propre échelle
report-trend-single = Une tendance demande deux passages : voici le premier passage terminé de { $portfolio } ; les suivants viendront à côté.
report-trend-numbers = Les chiffres de la tendance
report-trend-caption = Les chiffres, du passage le plus récent au plus ancien : lignes notées par couleur, et celles passées en rouge ou en noir lors de ce passage
report-all-rows = Toutes les lignes
report-noscript = Le tableau de toutes les lignes demande les scripts, qui sont désactivés : chaque ligne et chaque champ sont dans { $csv } (et report.json). Les alertes et les lignes à examiner sont plus haut.
report-search = Chercher une réf., une société, un identifiant, une erreur…
report-search-label = Chercher dans les lignes
report-every-status = tous les statuts
report-every-color = toutes les couleurs
report-alert-or-not = alerte ou non
report-any-alert = toute alerte
report-filter-listed = alerte : listée cette nuit
report-filter-standing = alerte : persistante
report-filter-acknowledged = alerte : prise en compte
report-filter-status = statut : { $status }
report-show-more = Afficher plus
report-run-of = passage { $run } de { $portfolio }
report-input = fichier { $path } (SHA-256
report-api-calls = { $count ->
    [one] { $count } appel d'API
   *[other] { $count } appels d'API
}
report-every-row-in = chaque ligne et chaque champ sont dans { $csv }

## La tendance de report.html.

trend-into-red = passées en rouge
trend-into-black = passées en noir
trend-rows-green = Lignes vertes
trend-rows-yellow = Lignes jaunes
trend-rows-red = Lignes rouges
trend-rows-black = Lignes noires
trend-rows-white = Lignes blanches
# Une couleur hors des cinq, comme le service la nomme.
trend-rows = Lignes { $color }
trend-run = passage { $run }
trend-run-day = passage { $run } ({ $day })
trend-line-desc = { $title }, un point par passage : { $now } au dernier passage, { $first } au premier ; au plus bas { $min }, au plus haut { $max }.
trend-since-first = { $delta } depuis le premier passage
trend-news-title = Passées en rouge, en noir
trend-news-run = { $run } : { $red } passées en rouge, { $black } en noir
trend-in-last-run = au dernier passage
trend-news-desc = Lignes notées dont la société est passée en rouge ou en noir, par passage (un changement, pas un premier examen) : { $red } en rouge et { $black } en noir au dernier passage, { $allred } et { $allblack } sur { $runs ->
    [one] le passage
   *[other] les { $runs } passages
}.
trend-color-run = { $run } : { $rows } { $color }
trend-came-into = , dont { $rows } passées en { $color }
trend-amount-title = Montant à risque (lignes rouges et noires)
trend-amount-title-of = { $column } à risque (lignes rouges et noires)
trend-amount-run = { $run } : { $amount } à risque
trend-no-amount = { $run } : aucun montant
trend-at-risk = À risque
trend-at-risk-of = À risque ({ $column })

## Le script de report.html : le tableau de toutes les lignes. `{ $n }` est le nombre que
## le script met.

script-sort-by = Trier par
script-no-browser = Ce navigateur ne peut pas afficher le tableau de toutes les lignes : chaque ligne est dans report.csv.
script-reading = Lecture des lignes…
script-unreadable = Le tableau de toutes les lignes n'a pas pu être lu ici : chaque ligne est dans report.csv.
script-rows = { $count ->
    [one] { $n } ligne
   *[other] { $n } lignes
}
script-match = { $count ->
    [one] { $m } ligne sur { $n } correspond
   *[other] { $m } lignes sur { $n } correspondent
}
script-first-shown = · les { $n } premières affichées
script-show-more = Afficher { $n } de plus
