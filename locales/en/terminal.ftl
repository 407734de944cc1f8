## The tables the commands print, and the messages a person reads at the terminal.

## The tables' headers, named column- and their English word (COMPANY_ID:
## column-company-id); column-ref, column-company, column-country and column-color are the
## summary's, in messages.ftl.

column-run = RUN
column-started = STARTED
column-portfolio = PORTFOLIO
column-status = STATUS
column-rows = ROWS
column-rated = RATED
column-unresolved = UNRESOLVED
column-ambiguous = AMBIGUOUS
column-invalid = INVALID
column-failed = FAILED
column-ignored = IGNORED
column-alerts = ALERTS
column-change = CHANGE
column-changed = CHANGED
column-seen = SEEN
column-company-id = COMPANY_ID
column-acked = ACKED
column-by = BY
column-until = UNTIL
column-note = NOTE
column-ended = ENDED
column-line = LINE
column-search = SEARCH
column-candidate = CANDIDATE
column-city = CITY
column-postcode = POSTCODE
column-error = ERROR
column-decision = DECISION
column-decided = DECIDED
column-source = SOURCE
column-when = WHEN
column-event = EVENT
column-what = WHAT

## ratewatch runs

no-runs = No runs yet.

runs-pruned = { $count ->
    [one] Run { $runs }: its rows are no longer kept (keep_run_details_days); its counts stand, `report --run { $runs }` cannot write its reports again.
   *[other] Runs { $runs }: their rows are no longer kept (keep_run_details_days); their counts stand, `report --run` cannot write their reports again.
}

## ratewatch changes. $since and $until come written; $colors is a list of colors.

changes-seen = { $count ->
    [one] { $count } color change
   *[other] { $count } color changes
} seen { $window }:
changes-none = No color change seen { $window }.
window-since = since { $since }
window-between = since { $since } and before { $until }
window-to = to { $colors } { $window }
window-amount = { $window }, of companies with at least { $amount } in { $column }
or = or
amount-unreadable = { $count ->
    [one] { $count } company has no readable amount in { $column }: left out.
   *[other] { $count } companies have no readable amount in { $column }: left out.
}

## ratewatch acks

no-acks = No acknowledgement.
no-acks-in-force = No acknowledgement in force.
ack-in-force = in force

## ratewatch audit. $how is how a record ended, as stored (changed, expired, replaced).

no-events = No acknowledgement or decision in that time.
event-acknowledged = acknowledged
event-decided = decided
event-ack-ended = ack ended: { $how }
event-decision-ended = decision ended: { $how }
what-ack = at { $color }
what-until = {" "}until { $until }
what-seen-by = , seen by run { $run }

## ratewatch review list

review-nothing = Nothing needs a person in the latest finished runs.
review-decisions = Decisions:
decision-accept = accept
decision-ignore = ignore
decision-reject = reject

## ratewatch history. $wanted is what the reader asked for, quoted; $noticed and $seen
## come written. column-id heads the list of companies a search matched.

column-since = SINCE
column-first-seen = FIRST SEEN
column-last-confirmed = LAST CONFIRMED
column-runs = RUNS
column-name = NAME
column-id = COMPANY ID
history-company-id = company id
history-held-by = held by
history-held-by-none = no row of a portfolio's latest finished run
history-name-unknown = (name not known)
history-no-rating = No rating recorded yet.
history-gone = gone: run { $run } ({ $noticed }) found the service no longer knows this company; last seen { $seen }
matches-none = No company matches { $wanted } by company id, reference or name.
matches-some = { $count ->
    [one] { $count } company matches { $wanted }:
   *[other] { $count } companies match { $wanted }:
}

## ratewatch lookup. $query is lookup-by-id or lookup-by-name; $count in lookup-by-name
## is how many companies answer, for the words that agree with it.

lookup-by-id = { $service } { $id } in { $country }
lookup-by-name = { $count ->
   *[other] named
} { $name } in { $country }
lookup-none = No company { $query }.
lookup-several = { $count } companies { $query }; narrow the search with --city, --postcode or --street-name.
lookup-rating = { $color }  (last change { $changed }, refreshed { $refreshed })
lookup-unavailable = unavailable
lookup-unavailable-because = unavailable: { $error }
label-name = name
label-rating = rating
label-id = id
label-address = address
label-phone = phone
label-legal-form = legal form
label-identifiers = identifiers

## The error a command ends with, and the records of the errors a person reads most (see
## record- in messages.ftl): the portfolio's and the settings' mistakes, by file, line and
## field. $field is the portfolio's field as ratewatch names it (country, company_id).

error-line = ratewatch: error: { $error }
record-at-line = { $file }:{ $line }: { $message }
record-not-utf8 = not UTF-8 (byte { $byte } at character { $column }); save the file as "CSV UTF-8" or convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8
record-nul-bytes = this is not a CSV text file (it contains NUL bytes); export the sheet as CSV
record-empty-file = the file is empty; a header line is needed (country, service, id or name, …)
record-not-a-country = { $field }: { $given } is not a country code (two letters, e.g. FR) nor a country's name
record-not-a-country-near = { $field }: { $given } is not a country code (two letters, e.g. FR) nor a country's name; did you mean { $code }?
record-not-a-uuid = { $field }: { $given } is not a UUID
record-whole-number = { $key }: expected a whole number from { $min } to { $max }, got { $given }
record-unknown-key = unknown key { $key }; the keys are { $keys }
record-unknown-key-near = unknown key { $key } (did you mean { $near }?); the keys are { $keys }
