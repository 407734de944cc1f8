#!/bin/sh
# Nightly screening for cron. cron mails whatever this prints: a short summary, or
# nothing but the alerts with `quiet = true` in ratewatch.toml. The exit code tells
# cron-watchers what happened:
#   0 no alert, 1 alerts, 2 input, usage or settings problem (an empty export or one with
#   only invalid rows included, no base_url, ratewatch not found), 3 some rows failed or
#   were not screened (retried, or resumed, next run), 4 fatal (key refused, wrong address,
#   service unreachable, database unusable, reports not written). The summary's first
#   lines say what made a night loud.
#
# crontab -e, then:
#   0 2 * * *  /opt/ratewatch/nightly.sh /srv/erp/exports/customers.csv customers
#
# The second argument names the portfolio in the database: its nights are judged against
# each other (what changed since the last night told) whatever the export's file is called,
# so name it when the file's name changes from night to night (a dated export,
# cust-2026-11-27.csv). Left out, ratewatch takes the file's name, and screens a dated
# export of the same customers as the portfolio of an earlier night, with a NOTE.
#
# Every setting lives in ratewatch.toml in the state folder, $RATEWATCH_HOME
# (/var/lib/ratewatch unless set), which this script runs in: base_url, api_key_file, db,
# out, … (see samples/ratewatch.toml; RATEWATCH_CONFIG names another file). Left out, db
# and out are the state folder's. Each night's reports go to a folder of its own, named
# after the day (UTC) under `out`; after the run, the day folders older than
# keep_reports_days (90 unless set; 0 keeps them all) are removed, and one line says which.
# Only folders named YYYY-MM-DD go, never anything else under `out`. Dates are reckoned in
# the shell's own arithmetic (no `date -d`, which only GNU date has).
#
# The key lives in a file readable only by the cron user (chmod 600), named by
# api_key_file; never on the command line, where `ps` would show it.
#
# cron's PATH is /usr/bin:/bin. ratewatch is looked for as $RATEWATCH_BIN, then on PATH,
# then in ~/.cargo/bin, /usr/local/bin and /opt/ratewatch/bin.
set -u

PORTFOLIO=${1:?usage: nightly.sh PORTFOLIO.csv [PORTFOLIO_NAME]}
NAME=${2:-}
STATE=${RATEWATCH_HOME:-/var/lib/ratewatch}

# The portfolio as given, before moving into the state folder.
case $PORTFOLIO in
    /*) ;;
    *) PORTFOLIO="$(pwd)/$PORTFOLIO" ;;
esac

find_ratewatch() {
    if [ -n "${RATEWATCH_BIN:-}" ]; then
        if [ -x "$RATEWATCH_BIN" ] && [ ! -d "$RATEWATCH_BIN" ]; then
            echo "$RATEWATCH_BIN"
            return 0
        fi
        echo "nightly.sh: RATEWATCH_BIN=$RATEWATCH_BIN is not an executable file" >&2
        return 1
    fi
    if command -v ratewatch >/dev/null 2>&1; then
        command -v ratewatch
        return 0
    fi
    for dir in "${HOME:-/nonexistent}/.cargo/bin" /usr/local/bin /opt/ratewatch/bin; do
        if [ -x "$dir/ratewatch" ]; then
            echo "$dir/ratewatch"
            return 0
        fi
    done
    return 1
}

if ! RATEWATCH=$(find_ratewatch); then
    cat >&2 <<EOF
nightly.sh: ratewatch not found (PATH=$PATH, nor in ~/.cargo/bin, /usr/local/bin or
/opt/ratewatch/bin). Give cron its folder with a line of the crontab before the job's:
  PATH=/usr/local/bin:/usr/bin:/bin
or name the binary itself:
  RATEWATCH_BIN=/home/USER/.cargo/bin/ratewatch
EOF
    exit 2
fi

if ! cd "$STATE"; then
    echo "nightly.sh: cannot enter the state folder $STATE (set RATEWATCH_HOME)" >&2
    exit 2
fi

# A setting as ratewatch.toml (or the environment) sets it; a settings error stops here,
# loudly.
setting() {
    "$RATEWATCH" config --get "$1" || {
        status=$?
        echo "ratewatch: the night's screening did not start (exit $status)" >&2
        exit $status
    }
}
OUT=$(setting out) || exit $?
KEEP_DAYS=$(setting keep_reports_days) || exit $?
QUIET=$(setting quiet) || exit $?
TODAY=$(date -u +%Y-%m-%d)
REPORTS="${OUT:-.}/$TODAY"
mkdir -p "$REPORTS" || exit 4
# Half-written reports a night killed while writing them left in its own folder (a run
# removes those of its own folder itself); an hour old, so no run still writes them.
find "${OUT:-.}" -maxdepth 2 -name '.report*.tmp' -mmin +60 -exec rm -f {} + 2>/dev/null

if [ -n "$NAME" ]; then
    "$RATEWATCH" screen "$PORTFOLIO" --portfolio-name "$NAME" --out "$REPORTS"
else
    "$RATEWATCH" screen "$PORTFOLIO" --out "$REPORTS"
fi
status=$?

case $status in
    0|1) ;;
    3) echo "ratewatch: some rows were not screened; the next run takes them up (see $REPORTS)" ;;
    *) echo "ratewatch: the night's screening did not complete (exit $status)" >&2 ;;
esac

# Sets DAY to the number of days from 1970-01-01 to the date $1 (YYYY-MM-DD), or fails if
# $1 is no such date (2026-02-30).
day_number() {
    y=${1%%-*} rest=${1#*-}
    m=${rest%%-*} d=${rest#*-}
    # A leading zero would make the number octal.
    y=$((1$y - 10000)) m=$((1$m - 100)) d=$((1$d - 100))
    case $m in
        1|3|5|7|8|10|12) month_days=31 ;;
        4|6|9|11) month_days=30 ;;
        2) if [ $((y % 4)) -eq 0 ] && { [ $((y % 100)) -ne 0 ] || [ $((y % 400)) -eq 0 ]; }
           then month_days=29; else month_days=28; fi ;;
        *) return 1 ;;
    esac
    [ "$d" -ge 1 ] && [ "$d" -le "$month_days" ] || return 1
    # Counted in years that start in March, so that a leap day comes last in its year;
    # 719468 days run from 0000-03-01 to 1970-01-01.
    [ "$m" -le 2 ] && y=$((y - 1))
    if [ "$m" -gt 2 ]; then m=$((m - 3)); else m=$((m + 9)); fi
    DAY=$((y * 365 + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d - 1 - 719468))
}

# Removes the day folders under $OUT older than $KEEP_DAYS days, never tonight's, and says
# how many and which; a folder that cannot be removed is a warning, never a failed night.
remove_old_reports() {
    case $KEEP_DAYS in
        0) return 0 ;;
        ''|*[!0-9]*)
            echo "ratewatch: warning: keep_reports_days is \"$KEEP_DAYS\", not a number of days: no report folder removed" >&2
            return 0 ;;
    esac
    day_number "$TODAY" || return 0
    today=$DAY removed=0 first= last=
    # In the order of their names, which is the order of their days.
    for dir in "${OUT:-.}"/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]; do
        name=${dir##*/}
        [ -d "$dir" ] && [ ! -L "$dir" ] && [ "$name" != "$TODAY" ] || continue
        day_number "$name" && [ $((today - DAY)) -gt "$KEEP_DAYS" ] || continue
        if rm -rf -- "$dir" 2>/dev/null && [ ! -e "$dir" ]; then
            removed=$((removed + 1)) last=$name
            [ -n "$first" ] || first=$name
        else
            echo "ratewatch: warning: cannot remove the report folder $dir (older than $KEEP_DAYS days)" >&2
        fi
    done
    [ "$removed" -gt 0 ] && [ "$QUIET" != true ] || return 0
    case $removed in
        1) echo "ratewatch: removed 1 report folder older than $KEEP_DAYS days ($first)" ;;
        *) echo "ratewatch: removed $removed report folders older than $KEEP_DAYS days ($first … $last)" ;;
    esac
}
remove_old_reports
exit $status
