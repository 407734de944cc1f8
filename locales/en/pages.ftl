## The pages: report.html and the pages of `ratewatch serve`.
# A message ending before or after some markup (`<code>ratewatch acks</code>`, a link)
# stops there; the page puts the markup between it and the next one.

## Labels of the pages' columns and fields.

label-ref = Ref
label-company = Company
label-country = Country
label-color = Color
label-change = Change
label-color-since = Color since
label-refreshed = Refreshed
label-line = Line
label-searched = Searched
label-details = Details
label-status = Status
label-alert = Alert
label-run = Run
label-date = Date
label-became = became
label-acknowledged = acknowledged
stale-tag = stale
# A company the service no longer knows.
change-gone = gone

## report.html

report-title = { $portfolio } — ratewatch run { $run }
report-eyebrow = ratewatch report
report-finished = finished { $time }
report-status = status
report-demo-day = simulated day { $day } (demo)
report-tiles = Rated rows by color
report-inbox-end = of ratewatch serve to acknowledge the alerts and review the rows.
report-failed = { $count ->
    [one] { $count } row failed
   *[other] { $count } rows failed
} on an API or network error and will be retried next run: see To review below.
report-ambiguous = { $count ->
    [one] { $count } row matches
   *[other] { $count } rows match
} several companies: the candidates are listed under To review below; add city or postcode, or put the chosen company_id in the portfolio.
report-stale = { $count ->
    [one] { $count } rating
   *[other] { $count } ratings
} not recalculated by the service for more than { $days ->
    [one] { $days } day
   *[other] { $days } days
}: marked
report-stale-end = below.
report-alerts = Alerts
report-none-flagged-but = None flagged among the rows screened, but { $why }.
report-alerts-hint = Listed tonight by the alert rules, as in the summary: worst first, a company's rows together.
report-more = The first { $shown } of { $count } { $what } are shown; every one is in { $csv }, and the table of every row below finds them ({ $filter }).
report-what-listed = alert rows listed tonight
report-what-standing = standing alert rows
report-what-acknowledged = acknowledged alert rows
report-what-rows = rows
report-standing = Still red or black, not listed tonight
report-standing-hint = { $count ->
    [one] { $count } company
   *[other] { $count } companies
} still red or black: standing alerts, counted but not listed tonight (the alert rules'
report-standing-hint-end = lists them again).
report-acknowledged = Acknowledged, not listed
report-acknowledged-hint = { $count ->
    [one] { $count } company
   *[other] { $count } companies
} still red or black whose alert an acknowledgement keeps out of the list until the color changes (
report-acknowledged-hint-end = ).
report-to-review = To review
report-nothing-to-review = Nothing to review: every row was screened.
report-nothing-to-review-ignored = Nothing to review: every row was screened or is ignored by a decision.
report-review-hint = Rows not screened: each kind says what to do; until then their companies are not watched.
report-ambiguous-hint = Several companies match: choose one (
report-ambiguous-hint-end = ), or add city or postcode, or put its company_id in the portfolio.
report-unresolved-hint = No company matches: check the identifier or the name and country.
report-invalid-hint = The row itself is wrong, as the details say: correct it in the portfolio.
report-failed-hint = An API or network error after retries: retried next run.
report-trend = Trend
report-trend-run = run { $run }, each chart on its own scale
report-trend-runs = runs { $first }–{ $last }, each chart on its own scale
report-trend-single = A trend needs two runs: this is the first finished run of { $portfolio }; the next ones will stand beside it.
report-trend-numbers = The trend's numbers
report-trend-caption = The numbers, newest run first: rated rows by color, and those that came into red or black that run
report-all-rows = All rows
report-noscript = The table of every row needs scripts, which are off: every row and field is in { $csv } (and report.json). The alerts and the rows to review are above.
report-search = Search ref, company, identifier, error…
report-search-label = Search the rows
report-every-status = every status
report-every-color = every color
report-alert-or-not = alert or not
report-any-alert = any alert
report-filter-listed = alert: listed tonight
report-filter-standing = alert: standing
report-filter-acknowledged = alert: acknowledged
report-filter-status = status: { $status }
report-show-more = Show more
report-run-of = run { $run } of { $portfolio }
report-input = input { $path } (SHA-256
report-api-calls = { $count ->
    [one] { $count } API call
   *[other] { $count } API calls
}
report-every-row-in = every row and field is in { $csv }

## The trend of report.html.

trend-into-red = into red
trend-into-black = into black
trend-rows-green = Green rows
trend-rows-yellow = Yellow rows
trend-rows-red = Red rows
trend-rows-black = Black rows
trend-rows-white = White rows
# A color outside the five, as the service names it.
trend-rows = { $color } rows
trend-run = run { $run }
trend-run-day = run { $run } ({ $day })
trend-line-desc = { $title }, one point per run: { $now } in the last run, { $first } in the first; lowest { $min }, highest { $max }.
trend-since-first = { $delta } since the first run
trend-news-title = Came into red, into black
trend-news-run = { $run }: { $red } into red, { $black } into black
trend-in-last-run = in the last run
trend-news-desc = Rated rows whose company came into red or into black, per run (a change, not a first screening): { $red } into red and { $black } into black in the last run, { $allred } and { $allblack } over the { $runs } runs.
trend-color-run = { $run }: { $rows } { $color }
trend-came-into = , { $rows } came into { $color }
trend-amount-title = Amount at risk (red and black rows)
trend-amount-title-of = { $column } at risk (red and black rows)
trend-amount-run = { $run }: { $amount } at risk
trend-no-amount = { $run }: no amount
trend-at-risk = At risk
trend-at-risk-of = At risk ({ $column })

## The script of report.html: the table of every row. `{ $n }` is the number the script
## puts in.

script-sort-by = Sort by
script-no-browser = This browser cannot show the table of every row: every row is in report.csv.
script-reading = Reading the rows…
script-unreadable = The table of every row could not be read here: every row is in report.csv.
script-rows = { $count ->
    [one] { $n } row
   *[other] { $n } rows
}
script-match = { $count ->
    [one] { $m } of { $n } row matches
   *[other] { $m } of { $n } rows match
}
script-first-shown = · the first { $n } shown
script-show-more = Show { $n } more

## The pages of `ratewatch serve`.

serve-inbox = Inbox
serve-review = Review
serve-search = Search
serve-not-found = Not found
serve-problem = ratewatch: an error
serve-signed-in-as = Signed in as
serve-search-placeholder = Ref, name, SIREN or company id
serve-read-only = Read-only: this server changes nothing.
serve-note = Note
serve-until = Until
serve-until-optional = Until (optional)
serve-acknowledge = Acknowledge
serve-rows-ticked-below = The rows ticked below:
serve-note-for-all = Note for all of them
serve-note-for-ticked = Note for the rows ticked
serve-acknowledge-ticked = Acknowledge the rows ticked
serve-select = Select
serve-refs = Refs
serve-last-refresh = Last refresh
serve-by = By
serve-no-run-yet = No finished run yet: `ratewatch screen` fills the database.
serve-to-act-on = To act on
serve-nothing-to-act-on = Nothing to act on.
serve-more-listed = … and { $count } more listed alerts (report.csv has them all).
serve-acknowledged = Acknowledged
serve-none = None.
serve-before-the-run = before the run (ended since)
serve-standing = Standing red and black
serve-finished = , finished { $time }
serve-run-line = run { $run } · { $status } · started { $started }{ $finished } · { $rows } rows, { $rated } rated, { $alerts } alerts
serve-in-force = in force
serve-company-id = Company id
serve-city = City
serve-registry-ids = Registry ids
serve-none-known = none known
serve-last-refresh-service = Last refresh (service)
serve-last-change-service = Last change (service)
serve-last-seen = Last seen by ratewatch
serve-no-rating = no rating recorded yet
serve-gone = Gone
serve-gone-since = the service no longer knew it in run { $run } ({ $noticed })
serve-last-seen-at = ; last seen { $time }
serve-held-by = Held by
serve-held-by-none = No row of a portfolio's latest finished run.
serve-portfolio = Portfolio
serve-timeline = Color timeline
serve-no-rating-yet = No rating recorded yet.
serve-since = Since
serve-first-seen = First seen
serve-last-confirmed = Last confirmed
serve-runs = Runs
serve-acknowledgements = Acknowledgements
serve-ended = Ended
serve-why = Why
serve-why-withdrawn = Why it is withdrawn
serve-withdraw = Withdraw
serve-acknowledge-current = Acknowledge at its current color
serve-decisions = Decisions
serve-decision = Decision
serve-decided = Decided
serve-source = Source
verdict-accept = accept
verdict-reject = reject
verdict-ignore = ignore
serve-latest-run = Latest run
serve-latest-finished = Latest finished:
serve-calls-this-month = Calls this month
serve-calls-hint = (every run started this month, all portfolios)
serve-red-and-black = Red and black
serve-red-black = { $red } red, { $black } black
serve-rated-rows = (rated rows)
serve-came-into = Came into red and black
serve-new-red-black = { $red ->
    [one] { $red } row
   *[other] { $red } rows
} into red, { $black } into black
serve-came-into-hint = (a change of color in this run, never a first screening: the trend's bars)
serve-amount-at-risk = Amount at risk
serve-amount-at-risk-hint = (every red and black row, acknowledged or not, whatever its amount: the trend's)
serve-no-amount-column = no amount column named ([alerts] amount)
serve-in-the-alerts = In the alerts
serve-alerts-listed = Alerts listed
serve-none-listed = none
serve-standing-short = Standing
serve-not-screened = Not screened
serve-no-finished-run = No finished run yet.
serve-started = Started
serve-new-red = New red
serve-new-black = New black
serve-not-monitored = Not monitored
serve-every-row-rated = Every row of the latest finished run is rated.
serve-review-them = review them
serve-name-or-id = Name or id
serve-review-lead = The rows of each portfolio's latest finished run that need a person. A decision is applied by the next run before any call: accept rates the row as that company without a search, reject says none of the candidates is it, ignore leaves the row alone.
serve-needs-a-person = Needs a person
serve-nothing-needs = Nothing needs a person in the latest finished runs.
serve-where = { $portfolio }, line { $line }, run { $run }
serve-searched = searched:
serve-found-without = No company matches as written: found without { $without }. A candidate found so is never taken as the company: accept it only if it is this customer.
serve-candidate = Candidate
serve-postcode = Postcode
serve-accept = Accept
serve-reject = Reject every candidate
serve-ignore = Ignore the row
serve-no-ref = This row has no ref: give it one in the portfolio to decide on it.
serve-ignored-rows = Ignored rows
serve-no-decision = No decision yet.
serve-no-match = No company matches “{ $query }” by company id, registry id, ref or name, and no row of the latest runs has it as its ref or in its name.
serve-none-rated = No company is rated for “{ $query }”.
serve-found = { $count } found by { $by }{ $more ->
    [0] {""}
   *[other] {" "}(and { $more } more: say more of the name)
}.
serve-by-company-id = company id
serve-by-registry-id = registry id
serve-by-ref = ref
serve-by-name = name
serve-not-screened-lead = Rows of each portfolio's latest finished run that no company is rated for, and why.
serve-name-in-file = Name in the file
serve-screened-again = screened again by the next run
serve-log-in = Log in
serve-needs-token = This server needs its token (the file given with
serve-wrong-token = That is not the token.
serve-token = Token
serve-not-found-text = Nothing here: the database knows no such company or portfolio. Try the search.
