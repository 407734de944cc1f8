## Les tableaux des commandes, et les messages lus au terminal.

## Les en-têtes des tableaux.

column-run = PASSAGE
column-started = COMMENCÉ LE
column-portfolio = PORTEFEUILLE
column-status = ÉTAT
column-rows = LIGNES
column-rated = NOTÉES
column-unresolved = NON TROUVÉES
column-ambiguous = AMBIGUËS
column-invalid = INVALIDES
column-failed = EN ÉCHEC
column-ignored = IGNORÉES
column-alerts = ALERTES
column-change = CHANGEMENT
column-changed = CHANGÉE LE
column-seen = VUE LE
column-company-id = ID SOCIÉTÉ
column-acked = PRISE EN COMPTE LE
column-by = PAR
column-until = JUSQU'AU
column-note = NOTE
column-ended = TERMINÉE LE
column-line = LIGNE
column-search = RECHERCHE
column-candidate = CANDIDATE
column-city = VILLE
column-postcode = CODE POSTAL
column-error = ERREUR
column-decision = DÉCISION
column-decided = DÉCIDÉE LE
column-source = SOURCE
column-when = QUAND
column-event = ÉVÉNEMENT
column-what = QUOI

## ratewatch runs

no-runs = Aucun passage pour l'instant.

runs-pruned = { $count ->
    [one] Passage { $runs } : ses lignes ne sont plus conservées (keep_run_details_days) ; ses comptes restent, `report --run { $runs }` ne peut plus refaire ses rapports.
   *[other] Passages { $runs } : leurs lignes ne sont plus conservées (keep_run_details_days) ; leurs comptes restent, `report --run` ne peut plus refaire leurs rapports.
}

## ratewatch changes

changes-seen = { $count ->
    [one] { $count } changement de couleur vu
   *[other] { $count } changements de couleur vus
} { $window } :
changes-none = Aucun changement de couleur vu { $window }.
window-since = depuis le { $since }
window-between = depuis le { $since } et avant le { $until }
window-to = vers { $colors } { $window }
window-amount = { $window }, des sociétés d'au moins { $amount } dans { $column }
or = ou
amount-unreadable = { $count ->
    [one] { $count } société n'a pas de montant lisible dans { $column } : laissée de côté.
   *[other] { $count } sociétés n'ont pas de montant lisible dans { $column } : laissées de côté.
}

## ratewatch acks

no-acks = Aucune prise en compte.
no-acks-in-force = Aucune prise en compte en vigueur.
ack-in-force = en vigueur

## ratewatch audit

no-events = Aucune prise en compte ni décision sur cette période.
event-acknowledged = prise en compte
event-decided = décision
event-ack-ended = prise en compte terminée : { $how }
event-decision-ended = décision terminée : { $how }
what-ack = en { $color }
what-until = {" "}jusqu'au { $until }
what-seen-by = , vue par le passage { $run }

## ratewatch review list

review-nothing = Rien n'attend de décision dans les derniers passages terminés.
review-decisions = Décisions :
decision-accept = acceptée
decision-ignore = ignorée
decision-reject = rejetée

## ratewatch history

column-since = DEPUIS LE
column-first-seen = VUE D'ABORD LE
column-last-confirmed = CONFIRMÉE LE
column-runs = PASSAGES
column-name = NOM
column-id = ID SOCIÉTÉ
history-company-id = id société
history-held-by = détenue par
history-held-by-none = aucune ligne du dernier passage terminé d'un portefeuille
history-name-unknown = (nom inconnu)
history-no-rating = Aucune note enregistrée pour l'instant.
history-gone = disparue : le passage { $run } ({ $noticed }) a trouvé que le service ne connaît plus cette société ; vue pour la dernière fois le { $seen }
matches-none = Aucune société ne correspond à { $wanted } par id société, référence ou nom.
matches-some = { $count ->
    [one] { $count } société correspond à { $wanted } :
   *[other] { $count } sociétés correspondent à { $wanted } :
}

## ratewatch lookup

lookup-by-id = avec le { $service } { $id } en { $country }
lookup-by-name = { $count ->
    [one] nommée
   *[other] nommées
} { $name } en { $country }
lookup-none = Aucune société { $query }.
lookup-several = { $count } sociétés { $query } ; affinez la recherche avec --city, --postcode ou --street-name.
lookup-rating = { $color }  (dernier changement le { $changed }, recalculée le { $refreshed })
lookup-unavailable = indisponible
lookup-unavailable-because = indisponible : { $error }
label-name = nom
label-rating = note
label-id = id
label-address = adresse
label-phone = téléphone
label-legal-form = forme juridique
label-identifiers = identifiants

## L'erreur qui termine une commande, et les erreurs les plus lues

error-line = ratewatch : erreur : { $error }
record-at-line = { $file }, ligne { $line } : { $message }
record-not-utf8 = pas en UTF-8 (octet { $byte } au caractère { $column }) ; enregistrez le fichier en « CSV UTF-8 » ou convertissez-le, p. ex. iconv -f WINDOWS-1252 -t UTF-8
record-nul-bytes = ce n'est pas un fichier texte CSV (il contient des octets NUL) ; exportez la feuille en CSV
record-empty-file = le fichier est vide ; une ligne d'en-tête est nécessaire (country, service, id ou name, …)
record-not-a-country = champ { $field } : { $given } n'est ni un code pays (deux lettres, p. ex. FR) ni le nom d'un pays
record-not-a-country-near = champ { $field } : { $given } n'est ni un code pays (deux lettres, p. ex. FR) ni le nom d'un pays ; vouliez-vous dire { $code } ?
record-not-a-uuid = champ { $field } : { $given } n'est pas un UUID
record-whole-number = { $key } : un nombre entier de { $min } à { $max } est attendu, { $given } est donné
record-unknown-key = clé inconnue { $key } ; les clés sont { $keys }
record-unknown-key-near = clé inconnue { $key } (vouliez-vous dire { $near } ?) ; les clés sont { $keys }
