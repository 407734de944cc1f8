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
#   0 2 * * *  /opt/ratewatch/nightly.sh /srv/erp/exports/customers.csv
#
# Every setting lives in ratewatch.toml in the state folder, $RATEWATCH_HOME
# (/var/lib/ratewatch unless set), which this script runs in: base_url, api_key_file, db,
# out, … (see samples/ratewatch.toml; RATEWATCH_CONFIG names another file). Left out, db
# and out are the state folder's. Each night's reports go to a folder of its own, named
# after the day (UTC) under `out`.
#
# The key lives in a file readable only by the cron user (chmod 600), named by
# api_key_file; never on the command line, where `ps` would show it.
#
# cron's PATH is /usr/bin:/bin. ratewatch is looked for as $RATEWATCH_BIN, then on PATH,
# then in ~/.cargo/bin, /usr/local/bin and /opt/ratewatch/bin.
set -u

PORTFOLIO=${1:?usage: nightly.sh PORTFOLIO.csv}
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

# `out` as ratewatch.toml (or the environment) sets it; a settings error stops here, loudly.
OUT=$("$RATEWATCH" config --get out)
status=$?
if [ $status -ne 0 ]; then
    echo "ratewatch: the night's screening did not start (exit $status)" >&2
    exit $status
fi
REPORTS="${OUT:-.}/$(date -u +%Y-%m-%d)"
mkdir -p "$REPORTS" || exit 4
# Half-written reports a night killed while writing them left in its own folder (a run
# removes those of its own folder itself); an hour old, so no run still writes them.
find "${OUT:-.}" -maxdepth 2 -name '.report*.tmp' -mmin +60 -exec rm -f {} + 2>/dev/null

"$RATEWATCH" screen "$PORTFOLIO" --out "$REPORTS"
status=$?

case $status in
    0|1) ;;
    3) echo "ratewatch: some rows were not screened; the next run takes them up (see $REPORTS)" ;;
    *) echo "ratewatch: the night's screening did not complete (exit $status)" >&2 ;;
esac
exit $status
