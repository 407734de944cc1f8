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
