#!/usr/bin/env bash
# `make demo`: the whole job on the simulator — serve both APIs, extract, load, build, check,
# query, and render the reports.
# Writes to $FANLAKE_DATA_DIR (default ./data/demo); DEMO_SCALE sizes the fan base (default 0.5).
set -euo pipefail
cd "$(dirname "$0")/.."

export FANLAKE_DATA_DIR="${FANLAKE_DATA_DIR:-./data/demo}"
export FANLAKE_TICKETING_TOKEN="${FANLAKE_TICKETING_TOKEN:-demo-ticketing-token}"
export FANLAKE_ENGAGEMENT_API_KEY="${FANLAKE_ENGAGEMENT_API_KEY:-demo-engagement-key}"
export FANLAKE_ENGAGEMENT_ORG_ID="${FANLAKE_ENGAGEMENT_ORG_ID:-4711}"
# The simulator's two context trees (the API cannot list roots) and loyalty summaries.
export FANLAKE_ENGAGEMENT_CONTEXT_ROOTS="${FANLAKE_ENGAGEMENT_CONTEXT_ROOTS:-1001,1043}"
export FANLAKE_ENGAGEMENT_LOYALTY="${FANLAKE_ENGAGEMENT_LOYALTY:-true}"

log=$(mktemp)
bin/fanlake simulate --port 0 --scale "${DEMO_SCALE:-0.5}" --seed 7 >"$log" 2>&1 &
simulator=$!
trap 'kill "$simulator" 2>/dev/null || true; rm -f "$log"' EXIT

url=""
for _ in $(seq 1 150); do
  url=$(grep -o 'listening on http://[^ ]*' "$log" | cut -d' ' -f3 || true)
  [ -n "$url" ] && break
  kill -0 "$simulator" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.2
done
[ -n "$url" ] || { echo "the simulator did not start"; cat "$log"; exit 1; }
export FANLAKE_TICKETING_URL="$url" FANLAKE_ENGAGEMENT_URL="$url"
echo "== simulator at $url (data in $FANLAKE_DATA_DIR)"

step() { echo; echo "== fanlake $*"; bin/fanlake "$@"; }
step run
step status
step sql "select season, tickets_sold, ticket_revenue, no_show_rate from (select season, sum(tickets_sold) as tickets_sold, sum(ticket_revenue) as ticket_revenue, round(avg(no_show_rate), 3) as no_show_rate from marts.match_summary group by season) order by season"
step sql "select match_rule, count(*) as records from marts.fan_identity_links group by match_rule order by records desc"
step sql "select purpose, channel, reachable_fans, round(reachable_rate, 3) as reachable_rate from marts.consent_coverage order by purpose, channel"
echo
echo "== digest of the match-day report ($FANLAKE_DATA_DIR/reports/match-day/latest/summary.md)"
cat "$FANLAKE_DATA_DIR/reports/match-day/latest/summary.md"
echo
reports_dir=$(cd "$FANLAKE_DATA_DIR/reports" && pwd)
echo "Reports (open in a browser, no network needed): $reports_dir/index.html"
for page in "$reports_dir"/*/latest/index.html; do
  name=${page#"$reports_dir"/}
  printf '  %-18s %s\n' "${name%%/*}" "$page"
done
echo "Explore further with: FANLAKE_DATA_DIR=$FANLAKE_DATA_DIR bin/fanlake shell"
