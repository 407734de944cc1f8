#!/bin/sh
# Nightly screening for cron. cron mails whatever this prints: a short summary, or
# nothing but the alerts with --quiet. The exit code tells cron-watchers what happened:
#   0 no alert, 1 alerts, 2 input or usage problem (an empty export or one with only
#   invalid rows included), 3 some rows failed or were not screened (retried, or resumed,
#   next run), 4 fatal (key refused, wrong address, service unreachable, database
#   unusable, reports not written). The summary's first lines say what made a night loud.
#
# crontab -e, then:
#   0 2 * * *  /opt/ratewatch/nightly.sh /srv/erp/exports/customers.csv
#
# The key lives in a file readable only by the cron user (chmod 600), never on the
# command line, where `ps` would show it.
set -u

PORTFOLIO=${1:?usage: nightly.sh PORTFOLIO.csv}
STATE=${RATEWATCH_HOME:-/var/lib/ratewatch}
REPORTS="$STATE/reports/$(date -u +%Y-%m-%d)"

export RATEWATCH_BASE_URL=${RATEWATCH_BASE_URL:?set RATEWATCH_BASE_URL to the environment root}
mkdir -p "$REPORTS"

ratewatch screen "$PORTFOLIO" \
    --db "$STATE/ratewatch.db" \
    --out "$REPORTS" \
    --api-key-file "$STATE/api-key"
status=$?

case $status in
    0|1) ;;
    3) echo "ratewatch: some rows were not screened; the next run takes them up (see $REPORTS/report.csv)" ;;
    *) echo "ratewatch: the night's screening did not complete (exit $status)" >&2 ;;
esac
exit $status
