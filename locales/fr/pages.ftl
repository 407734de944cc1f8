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

## Les pages de `ratewatch serve`.

serve-inbox = Boîte de réception
serve-review = À examiner
serve-search = Rechercher
serve-not-found = Introuvable
serve-problem = ratewatch : une erreur
serve-signed-in-as = Connecté en tant que
serve-search-placeholder = Réf., nom, SIREN ou identifiant de société
serve-read-only = Lecture seule : ce serveur ne modifie rien.
serve-note = Note
serve-until = Jusqu'au
serve-until-optional = Jusqu'au (facultatif)
serve-acknowledge = Prendre en compte
serve-rows-ticked-below = Les lignes cochées plus bas :
serve-note-for-all = Note pour toutes
serve-note-for-ticked = Note pour les lignes cochées
serve-acknowledge-ticked = Prendre en compte les lignes cochées
serve-select = Sélectionner
serve-refs = Réf.
serve-last-refresh = Dernier recalcul
serve-by = Par
serve-no-run-yet = Aucun passage terminé pour l'instant : `ratewatch screen` remplit la base.
serve-to-act-on = À traiter
serve-nothing-to-act-on = Rien à traiter.
serve-more-listed = … et { $count ->
    [one] { $count } autre alerte listée
   *[other] { $count } autres alertes listées
} (report.csv les a toutes).
serve-acknowledged = Prises en compte
serve-none = Aucune.
serve-before-the-run = avant le passage (terminée depuis)
serve-standing = Toujours rouges et noires
serve-finished = , terminé le { $time }
serve-run-line = passage { $run } · { $status } · commencé le { $started }{ $finished } · { $rows } lignes, { $rated } notées, { $alerts } alertes
serve-in-force = en vigueur
serve-company-id = Identifiant de société
serve-city = Ville
serve-registry-ids = Identifiants au registre
serve-none-known = aucun connu
serve-last-refresh-service = Dernier recalcul (service)
serve-last-change-service = Dernier changement (service)
serve-last-seen = Vue par ratewatch le
serve-no-rating = aucune note enregistrée pour l'instant
serve-gone = Disparue
serve-gone-since = le service ne la connaissait plus au passage { $run } ({ $noticed })
serve-last-seen-at = ; vue pour la dernière fois le { $time }
serve-held-by = Détenue par
serve-held-by-none = Aucune ligne du dernier passage terminé d'un portefeuille.
serve-portfolio = Portefeuille
serve-timeline = Historique des couleurs
serve-no-rating-yet = Aucune note enregistrée pour l'instant.
serve-since = Depuis
serve-first-seen = Vue la première fois
serve-last-confirmed = Dernière confirmation
serve-runs = Passages
serve-acknowledgements = Prises en compte
serve-ended = Terminée
serve-why = Motif
serve-why-withdrawn = Pourquoi elle est retirée
serve-withdraw = Retirer
serve-acknowledge-current = Prendre en compte à sa couleur actuelle
serve-decisions = Décisions
serve-decision = Décision
serve-decided = Décidée le
serve-source = Source
verdict-accept = accepter
verdict-reject = rejeter
verdict-ignore = ignorer
serve-latest-run = Dernier passage
serve-latest-finished = Dernier passage terminé :
serve-calls-this-month = Appels ce mois-ci
serve-calls-hint = (tous les passages commencés ce mois-ci, tous portefeuilles)
serve-red-and-black = Rouges et noires
serve-red-black = { $red } rouges, { $black } noires
serve-rated-rows = (lignes notées)
serve-came-into = Passées en rouge et en noir
serve-new-red-black = { $red ->
    [one] { $red } ligne passée
   *[other] { $red } lignes passées
} en rouge, { $black } en noir
serve-came-into-hint = (un changement de couleur lors de ce passage, jamais un premier examen : les barres de la tendance)
serve-amount-at-risk = Montant à risque
serve-amount-at-risk-hint = (toutes les lignes rouges et noires, prises en compte ou non, quel que soit leur montant : celui de la tendance)
serve-no-amount-column = aucune colonne de montant nommée ([alerts] amount)
serve-in-the-alerts = Dans les alertes
serve-alerts-listed = Alertes listées
serve-none-listed = aucune
serve-standing-short = Persistantes
serve-not-screened = Non examinées
serve-no-finished-run = Aucun passage terminé pour l'instant.
serve-started = Commencé le
serve-new-red = Nouvelles rouges
serve-new-black = Nouvelles noires
serve-not-monitored = Non surveillées
serve-every-row-rated = Chaque ligne du dernier passage terminé est notée.
serve-review-them = les examiner
serve-name-or-id = Nom ou identifiant
serve-review-lead = Les lignes du dernier passage terminé de chaque portefeuille qui demandent une personne. Une décision est appliquée par le prochain passage avant tout appel : accepter note la ligne comme cette société sans recherche, rejeter dit qu'aucune candidate n'est la bonne, ignorer laisse la ligne de côté.
serve-needs-a-person = Demande une personne
serve-nothing-needs = Rien ne demande une personne dans les derniers passages terminés.
serve-where = { $portfolio }, ligne { $line }, passage { $run }
serve-searched = recherché :
serve-found-without = Aucune société ne correspond telle qu'écrite : trouvée sans { $without }. Une candidate trouvée ainsi n'est jamais prise pour la société : acceptez-la seulement si c'est bien ce client.
serve-candidate = Candidate
serve-postcode = Code postal
serve-accept = Accepter
serve-reject = Rejeter toutes les candidates
serve-ignore = Ignorer la ligne
serve-no-ref = Cette ligne n'a pas de réf. : donnez-lui en une dans le portefeuille pour décider.
serve-ignored-rows = Lignes ignorées
serve-no-decision = Aucune décision pour l'instant.
serve-no-match = Aucune société ne correspond à « { $query } » par identifiant de société, identifiant au registre, réf. ou nom, et aucune ligne des derniers passages ne l'a comme réf. ou dans son nom.
serve-none-rated = Aucune société n'est notée pour « { $query } ».
serve-found = { $count ->
    [one] { $count } trouvée
   *[other] { $count } trouvées
} par { $by }{ $more ->
    [0] {""}
   *[other] {" "}(et { $more } de plus : précisez le nom)
}.
serve-by-company-id = identifiant de société
serve-by-registry-id = identifiant au registre
serve-by-ref = réf.
serve-by-name = nom
serve-not-screened-lead = Les lignes du dernier passage terminé de chaque portefeuille pour lesquelles aucune société n'est notée, et pourquoi.
serve-name-in-file = Nom dans le fichier
serve-screened-again = examinée de nouveau au prochain passage
serve-log-in = Se connecter
serve-needs-token = Ce serveur demande son jeton (le fichier donné avec
serve-wrong-token = Ce n'est pas le jeton.
serve-token = Jeton
serve-not-found-text = Rien ici : la base ne connaît pas cette société ni ce portefeuille. Essayez la recherche.
