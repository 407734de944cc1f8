# English: every message exists here first. French and German fall back to it, message by
# message; a test fails when either lacks one of these.
#
# A number given to a message ($count, $rows) is written as the reader writes numbers, and
# chooses the plural form; times and amounts come written already.

## The service's colors, as the reader names them.

color-green = green
color-yellow = yellow
color-red = red
color-black = black
color-white = white

## How a row ended.

status-rated = rated
status-unresolved = unresolved
status-ambiguous = ambiguous
status-invalid = invalid
status-failed = failed
status-ignored = ignored

## How a company's color moved since the run before.

change-new = new
change-unchanged = unchanged
change-evolved = evolved
change-deteriorated = deteriorated
change-improved = improved
change-changed = changed

## Counts.

alerts = { $count ->
    [one] { $count } alert
   *[other] { $count } alerts
}
rows = { $count ->
    [one] { $count } row
   *[other] { $count } rows
}
companies = { $count ->
    [one] { $count } company
   *[other] { $count } companies
}

## Times.

# A time as people read it: $time is already written in the reader's zone.
run-started = started { $time }

## The run's summary, mail and chat messages. Times, amounts, refs and lists come written.

heading = ratewatch { $when } · { $portfolio } · run { $run }
run-line = ratewatch run { $run } of { $portfolio } ({ $state }): { $rows } — { $statuses }
run-line-quiet = ratewatch run { $run } of { $portfolio }: { $state }
run-complete = complete
run-partial = partial
run-interrupted = interrupted
run-failed = failed
run-running = running
state-stopped = STOPPED: { $count ->
    [one] { $count } row
   *[other] { $count } rows
} not screened, the next run resumes them
state-partial = PARTIAL: { $count ->
    [one] { $count } row failed and
   *[other] { $count } rows failed and
} will be retried next run
colors-line = colors: { $list }
calls-line = calls: { $total } ({ $list })
storm = STORM: { $changed } of { $companies } companies changed color in this run: likely a change of method at the source; the { $listed } worst are listed, every change is in the reports
nothing-screened = NOTHING SCREENED: not one of the { $rows } could be rated; see the counts and `error` in the reports
unscreened-nobody = not one of the { $rows } could be rated (NOTHING SCREENED)
unscreened-rows = { $count ->
    [one] { $count } row was not screened
   *[other] { $count } rows were not screened
}
unscreened-run = the run is { $status }: rows may be missing
nothing-flagged = Nothing flagged: no red or black company, no color change.
nothing-new-flagged = Nothing new flagged: no color change the rules alert on.
none-flagged-but = None flagged among the rows screened (no red or black company, no color change), but { $why }.
none-newly-flagged-but = None newly flagged among the rows screened (no color change the rules alert on), but { $why }.
more-in-reports = … and { $count } more in the reports
rows-of-status = { $count ->
    [one] { $count } { $status } row
   *[other] { $count } { $status } rows
}
not-screened-named = NOT SCREENED: { $rows } ({ $refs }): { $why }
why-invalid = the row itself is wrong (see `error` in the reports): fix the export, or leave it alone with `ratewatch review ignore`
why-unresolved = no company matches: check the identifier, or decide with `ratewatch review`
why-ambiguous = several companies match: choose with `ratewatch review`
acked-line = { $count ->
    [one] { $count } alert
   *[other] { $count } alerts
} acknowledged, not listed until the company changes again (`ratewatch acks`)
stale-line = { $count ->
    [one] { $count } rating
   *[other] { $count } ratings
} not recalculated for more than { $days ->
    [one] { $days } day
   *[other] { $days } days
} (stale): see `stale` in the reports
ambiguous-line = { $count ->
    [one] { $count } row matches
   *[other] { $count } rows match
} several companies: the candidates are in the reports; add city/postcode or company_id
budget-line = { $count ->
    [one] { $count } row
   *[other] { $count } rows
} not screened: call budget reached ({ $flag }); screened on a later run
failures-line = { $count ->
    [one] { $count } row was
   *[other] { $count } rows were
} not screened on an API or network error or a rate limit; see `error` in the reports
reports-line = reports: { $list }
inbox-line = inbox: { $url }
row-at-line = { $ref } (line { $line })
row-line = line { $line }

## The alerts, as every channel lists them.

kind-black = into black
kind-red = into red
kind-deteriorated = deteriorated
kind-white = into white (no information any more)
kind-gone = gone
kind-unknown = unknown color
kind-changed = changed
kind-improved = improved
kind-still = still red or black
kind-count = { $count } { $kind ->
    [black] into black
    [red] into red
    [deteriorated] deteriorated
    [white] into white
    [gone] gone
    [unknown] unknown color
    [improved] improved
    [still] still red or black
   *[changed] changed
}
move-gone = { $now } → gone
move-unknown = unknown color { $now }
move-still = { $now } (still)
move-first = { $now } (first screening)
at-first-screening = { $color } at first screening
alerts-worst-first = { $count ->
    [one] { $count } alert
   *[other] { $count } alerts
}, worst first
listed-count = { $count } listed
at-stake = { $amount } at stake
kind-mixed = { $colored } ({ $changed }, { $first } at first screening{ $stake })
still-line = still { $color }: { $count ->
    [one] { $count } company
   *[other] { $count } companies
}
at-stake-of = { $amount } at stake ({ $column })
standing-largest = largest
standing-first = first
counted-white = { $count } changed to or from white
counted-line = counted, not listed: { $list }
at-risk = at risk: { $red } red and { $black } black { $total ->
    [one] row
   *[other] rows
}
came-into = came into red tonight: { $red ->
    [one] { $red } row
   *[other] { $red } rows
}, into black: { $black } (color changes, not first screenings)
red-or-black-rows = { $count ->
    [one] { $count } red or black row
   *[other] { $count } red or black rows
}
left-under = { $rows } under { $value } ({ $column }, [alerts] min_exposure)
left-by-rules = { $rows } the alert rules do not alert on
acknowledged-companies = { $count ->
    [one] { $count } acknowledged company
   *[other] { $count } acknowledged companies
}
and = and
left-out-held = the alerts hold { $amount } of it and leave out { $parts }
left-out = the alerts leave out { $parts }
not-screened = not screened: { $parts }: { $count ->
    [one] { $count } row
   *[other] { $count } rows
}
failed-heading = { $count ->
    [one] { $count } failed row
   *[other] { $count } failed rows
}, { $order }, retried next run:
order-largest = largest first
order-file = first in the file
column-ref = REF
column-company = COMPANY
column-country = COUNTRY
column-color = COLOR
column-alert = ALERT
column-refreshed = REFRESHED
column-page = PAGE

## Chat messages.

no-alerts = no alerts
run-ended = the run ended { $status }
more-in-report = … and { $count } more in the report
run-number = run { $run }
report-path = report: { $path }
see-them = see them and why
open-inbox = Open the inbox

## The mail's table.

header-ref = Ref
header-company = Company
header-country = Country
header-color = Color
header-alert = Alert
header-refreshed = Refreshed

## Counts of a color and of a way rows ended, the word agreeing with the count. $color and
## $status come as programs name them (red, rated).

color-count = { $count } { $color }
status-count = { $count } { $status }

## The mail: its subject, and what its HTML part says besides the summary's lines.

mail-subject = ratewatch { $portfolio } { $day }: { $news }
subject-failed = FAILED
subject-nothing-screened = NOTHING SCREENED, none of { $count ->
    [one] { $count } row
   *[other] { $count } rows
} rated
subject-stopped = STOPPED, { $count ->
    [one] { $count } row not screened
   *[other] { $count } rows not screened
}
subject-partial = PARTIAL, { $count ->
    [one] { $count } row not screened
   *[other] { $count } rows not screened
}
# Companies that came into red or black tonight by a change of color.
subject-new = { $count } new { $color ->
    [black] black
   *[red] red
}
subject-kind = { $count } { $kind ->
    [deteriorated] deteriorated
    [white] into white
    [gone] gone
    [unknown] unknown color
    [improved] improved
    [still] still red or black
   *[changed] changed
}
subject-first = { $list } at first screening
failed-line = FAILED: { $error }
failed-unknown = FAILED: the run stopped on an error; see the log
heading-no-run = ratewatch { $when } · { $portfolio } · no run recorded
# After the link "open-inbox".
inbox-why = {" "}to acknowledge the alerts and review the rows.
mail-counts = run { $run } of { $portfolio } ({ $state }): { $rows }: { $statuses }

## Records: a run's notes and a row's errors as ratewatch stores them, in English, word
## for word. Where a person reads one it is read back through these messages and said in
## the reader's language; what is stored never changes. $why is a reason, itself a record.

record-stopped = STOPPED: { $why }: the next run of this portfolio resumes with the rows not screened
record-quota-wait = the service's rate limit asks to wait until { $until }, longer than --max-wait ({ $seconds } s); run again after that
record-not-answering = service not answering (no answer for { $seconds } s: timeouts or refused connections; --max-silence)
record-max-run-time = the run reached its --max-run-time ({ $seconds } s)
record-budget = BUDGET: { $spent } of the month's { $budget } calls (--max-calls-per-month) were already spent; { $left ->
    [0] this run makes no call
    [1] this run may make 1
   *[other] this run may make { $left }
}: the rows not screened wait for a later run that the budget allows
record-quota-spent = not screened: rate limit: the service asked to wait until { $until }; run again after that
record-halted = not screened: { $why }
record-run-stopped = the run stopped
record-unauthenticated = the service refused the API key (HTTP { $status }: { $message }); check the key, and note that demo and live keys differ
record-forbidden = the service refused access (HTTP 403: { $message }); the key was accepted, so the account probably does not include this product: ask the provider to enable the rating package
record-server = the service answered HTTP { $status }: { $snippet }; this is usually temporary, retry later
record-transport = could not reach the service: { $message }; check --base-url and the network
record-not-found = not found: { $what }
