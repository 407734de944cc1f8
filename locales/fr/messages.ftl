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

## Le résumé du passage, le courriel et les messages de discussion.

heading = ratewatch { $when } · { $portfolio } · passage { $run }
run-line = ratewatch, passage { $run } de { $portfolio } ({ $state }) : { $rows } — { $statuses }
run-line-quiet = ratewatch, passage { $run } de { $portfolio } : { $state }
run-complete = complet
run-partial = partiel
run-interrupted = interrompu
run-failed = en échec
run-running = en cours
state-stopped = INTERROMPU : { $count ->
    [one] { $count } ligne non examinée
   *[other] { $count } lignes non examinées
}, le prochain passage les reprend
state-partial = PARTIEL : { $count ->
    [one] { $count } ligne en échec sera réessayée
   *[other] { $count } lignes en échec seront réessayées
} au prochain passage
colors-line = couleurs : { $list }
calls-line = appels : { $total } ({ $list })
storm = TEMPÊTE : { $changed } sociétés sur { $companies } ont changé de couleur dans ce passage, sans doute un changement de méthode à la source ; les { $listed } pires sont listées, tous les changements sont dans les rapports
nothing-screened = RIEN D'EXAMINÉ : aucune des { $rows } n'a pu être notée ; voir les décomptes et `error` dans les rapports
unscreened-nobody = aucune des { $rows } n'a pu être notée (RIEN D'EXAMINÉ)
unscreened-rows = { $count ->
    [one] { $count } ligne n'a pas été examinée
   *[other] { $count } lignes n'ont pas été examinées
}
unscreened-run = le passage est { $status } : des lignes peuvent manquer
nothing-flagged = Rien à signaler : aucune société rouge ou noire, aucun changement de couleur.
nothing-new-flagged = Rien de nouveau à signaler : aucun changement de couleur sur lequel les règles alertent.
none-flagged-but = Rien à signaler parmi les lignes examinées (aucune société rouge ou noire, aucun changement de couleur), mais { $why }.
none-newly-flagged-but = Rien de nouveau à signaler parmi les lignes examinées (aucun changement de couleur sur lequel les règles alertent), mais { $why }.
more-in-reports = … et { $count } de plus dans les rapports
rows-of-status = { $count ->
    [one] { $count } ligne { $status ->
        [unresolved] non trouvée
        [ambiguous] ambiguë
        [invalid] invalide
        [failed] en échec
        [ignored] ignorée
       *[other] notée
    }
   *[other] { $count } lignes { $status ->
        [unresolved] non trouvées
        [ambiguous] ambiguës
        [invalid] invalides
        [failed] en échec
        [ignored] ignorées
       *[other] notées
    }
}
not-screened-named = NON EXAMINÉES : { $rows } ({ $refs }) : { $why }
why-invalid = la ligne elle-même est fausse (voir `error` dans les rapports) : corrigez l'export, ou laissez-la de côté avec `ratewatch review ignore`
why-unresolved = aucune société ne correspond : vérifiez l'identifiant, ou décidez avec `ratewatch review`
why-ambiguous = plusieurs sociétés correspondent : choisissez avec `ratewatch review`
acked-line = { $count ->
    [one] { $count } alerte prise en compte, non listée
   *[other] { $count } alertes prises en compte, non listées
} tant que la société ne change pas à nouveau (`ratewatch acks`)
stale-line = { $count ->
    [one] { $count } note non recalculée
   *[other] { $count } notes non recalculées
} depuis plus de { $days ->
    [one] { $days } jour
   *[other] { $days } jours
} (périmées) : voir `stale` dans les rapports
ambiguous-line = { $count ->
    [one] { $count } ligne correspond
   *[other] { $count } lignes correspondent
} à plusieurs sociétés : les candidates sont dans les rapports ; ajoutez ville/code postal ou company_id
budget-line = { $count ->
    [one] { $count } ligne non examinée
   *[other] { $count } lignes non examinées
} : budget d'appels atteint ({ $flag }) ; examinées lors d'un prochain passage
failures-line = { $count ->
    [one] { $count } ligne n'a pas été examinée
   *[other] { $count } lignes n'ont pas été examinées
} à cause d'une erreur de l'API ou du réseau ou d'une limite de débit ; voir `error` dans les rapports
reports-line = rapports : { $list }
inbox-line = boîte de réception : { $url }
row-at-line = { $ref } (ligne { $line })
row-line = ligne { $line }

## Les alertes, listées de même dans chaque canal.

kind-black = passée en noir
kind-red = passée en rouge
kind-deteriorated = dégradée
kind-white = passée en blanc (plus d'information)
kind-gone = disparue
kind-unknown = couleur inconnue
kind-changed = changée
kind-improved = améliorée
kind-still = toujours rouge ou noire
kind-count = { $count } { $count ->
    [one] { $kind ->
        [black] passée en noir
        [red] passée en rouge
        [deteriorated] dégradée
        [white] passée en blanc
        [gone] disparue
        [unknown] de couleur inconnue
        [improved] améliorée
        [still] toujours rouge ou noire
       *[changed] changée
    }
   *[other] { $kind ->
        [black] passées en noir
        [red] passées en rouge
        [deteriorated] dégradées
        [white] passées en blanc
        [gone] disparues
        [unknown] de couleur inconnue
        [improved] améliorées
        [still] toujours rouges ou noires
       *[changed] changées
    }
}
move-gone = { $now } → disparue
move-unknown = couleur inconnue { $now }
move-still = { $now } (toujours)
move-first = { $now } (premier examen)
at-first-screening = { $color } au premier examen
alerts-worst-first = { $count ->
    [one] { $count } alerte
   *[other] { $count } alertes
}, les pires d'abord
listed-count = { $count } listées
at-stake = { $amount } en jeu
kind-mixed = { $colored } ({ $changed }, { $first } au premier examen{ $stake })
still-line = toujours { $color } : { $count ->
    [one] { $count } société
   *[other] { $count } sociétés
}
at-stake-of = { $amount } en jeu ({ $column })
standing-largest = les plus gros
standing-first = les premières
counted-white = { $count } passées en blanc ou sorties du blanc
counted-line = comptées, non listées : { $list }
at-risk = à risque : { $red ->
    [one] { $red } ligne rouge
   *[other] { $red } lignes rouges
} et { $black ->
    [one] { $black } noire
   *[other] { $black } noires
}{ $total ->
    [one] {""}
   *[other] {""}
}
came-into = passées en rouge cette nuit : { $red ->
    [one] { $red } ligne
   *[other] { $red } lignes
}, en noir : { $black } (changements de couleur, pas de premiers examens)
red-or-black-rows = { $count ->
    [one] { $count } ligne rouge ou noire
   *[other] { $count } lignes rouges ou noires
}
left-under = { $rows } sous { $value } ({ $column }, [alerts] min_exposure)
left-by-rules = { $rows } sur lesquelles les règles n'alertent pas
acknowledged-companies = { $count ->
    [one] { $count } société prise en compte
   *[other] { $count } sociétés prises en compte
}
and = et
left-out-held = les alertes en couvrent { $amount } et laissent de côté { $parts }
left-out = les alertes laissent de côté { $parts }
not-screened = non examinées : { $parts } : { $count ->
    [one] { $count } ligne
   *[other] { $count } lignes
}
failed-heading = { $count ->
    [one] { $count } ligne en échec
   *[other] { $count } lignes en échec
}, { $order }, réessayées au prochain passage :
order-largest = les plus gros montants d'abord
order-file = dans l'ordre du fichier
column-ref = RÉF
column-company = SOCIÉTÉ
column-country = PAYS
column-color = COULEUR
column-alert = ALERTE
column-refreshed = RECALCULÉE
column-page = PAGE

## Messages de discussion.

no-alerts = aucune alerte
run-ended = le passage s'est terminé { $status }
more-in-report = … et { $count } de plus dans le rapport
run-number = passage { $run }
report-path = rapport : { $path }
see-them = les voir, avec le motif
open-inbox = Ouvrir la boîte de réception

## Le tableau du courriel.

header-ref = Réf
header-company = Société
header-country = Pays
header-color = Couleur
header-alert = Alerte
header-refreshed = Recalculée le

## Le décompte d'une couleur et d'une issue de ligne, le mot accordé au nombre (lignes,
## sociétés : au féminin).

color-count = { $count } { $color ->
    [green] { $count ->
        [one] verte
       *[other] vertes
    }
    [yellow] { $count ->
        [one] jaune
       *[other] jaunes
    }
    [red] { $count ->
        [one] rouge
       *[other] rouges
    }
    [black] { $count ->
        [one] noire
       *[other] noires
    }
    [white] { $count ->
        [one] blanche
       *[other] blanches
    }
   *[other] { $color }
}
status-count = { $count } { $count ->
    [one] { $status ->
        [unresolved] non trouvée
        [ambiguous] ambiguë
        [invalid] invalide
        [failed] en échec
        [ignored] ignorée
       *[rated] notée
    }
   *[other] { $status ->
        [unresolved] non trouvées
        [ambiguous] ambiguës
        [invalid] invalides
        [failed] en échec
        [ignored] ignorées
       *[rated] notées
    }
}

## Le courriel : son objet, et ce que sa partie HTML dit en plus des lignes du résumé.

mail-subject = ratewatch { $portfolio } { $day } : { $news }
subject-failed = ÉCHEC
subject-nothing-screened = RIEN D'EXAMINÉ, { $count ->
    [one] { $count } ligne non notée
   *[other] aucune des { $count } lignes notée
}
subject-stopped = INTERROMPU, { $count ->
    [one] { $count } ligne non examinée
   *[other] { $count } lignes non examinées
}
subject-partial = PARTIEL, { $count ->
    [one] { $count } ligne non examinée
   *[other] { $count } lignes non examinées
}
subject-new = { $count ->
    [one] { $count } passée
   *[other] { $count } passées
} en { $color ->
    [black] noir
   *[red] rouge
}
subject-kind = { $count } { $count ->
    [one] { $kind ->
        [deteriorated] dégradée
        [white] passée en blanc
        [gone] disparue
        [unknown] de couleur inconnue
        [improved] améliorée
        [still] toujours rouge ou noire
       *[changed] changée
    }
   *[other] { $kind ->
        [deteriorated] dégradées
        [white] passées en blanc
        [gone] disparues
        [unknown] de couleur inconnue
        [improved] améliorées
        [still] toujours rouges ou noires
       *[changed] changées
    }
}
subject-first = { $list } au premier examen
failed-line = ÉCHEC : { $error }
failed-unknown = ÉCHEC : le passage s'est arrêté sur une erreur ; voir le journal
heading-no-run = ratewatch { $when } · { $portfolio } · aucun passage enregistré
inbox-why = {" "}pour prendre en compte les alertes et examiner les lignes.
mail-counts = passage { $run } de { $portfolio } ({ $state }) : { $rows } : { $statuses }

## Les notes d'un passage et les erreurs d'une ligne, stockées en anglais, dites en français.

record-stopped = ARRÊTÉ : { $why } : le prochain passage de ce portefeuille reprend les lignes non examinées
record-quota-wait = le quota du service demande d'attendre jusqu'au { $until }, plus que --max-wait ({ $seconds } s) ; relancez après
record-not-answering = le service ne répond pas (aucune réponse depuis { $seconds } s : délais dépassés ou connexions refusées ; --max-silence)
record-max-run-time = le passage a atteint son --max-run-time ({ $seconds } s)
record-budget = BUDGET : { $spent } des { $budget } appels du mois (--max-calls-per-month) sont déjà dépensés ; { $left ->
    [0] ce passage ne fait aucun appel
    [1] ce passage peut en faire 1
   *[other] ce passage peut en faire { $left }
} : les lignes non examinées attendent un passage ultérieur que le budget permet
record-quota-spent = non examinée : quota : le service a demandé d'attendre jusqu'au { $until } ; relancez après
record-halted = non examinée : { $why }
record-run-stopped = le passage s'est arrêté
record-unauthenticated = le service a refusé la clé d'API (HTTP { $status } : { $message }) ; vérifiez la clé, et notez que les clés de démonstration et de production diffèrent
record-forbidden = le service a refusé l'accès (HTTP 403 : { $message }) ; la clé a été acceptée, le compte n'inclut donc probablement pas ce produit : demandez au fournisseur d'activer l'offre de notation
record-server = le service a répondu HTTP { $status } : { $snippet } ; c'est en général passager, réessayez plus tard
record-transport = impossible de joindre le service : { $message } ; vérifiez --base-url et le réseau
record-not-found = introuvable : { $what }
