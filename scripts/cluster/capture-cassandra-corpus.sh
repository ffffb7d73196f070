#!/usr/bin/env bash
# Captures real nodetool outputs (stdout, stderr, exit code) from scripts/cassandra-cluster.sh's cluster
# into tests/data/cassandra/real-5.0/, the corpus the parsers' unit tests run over (issue 8).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/cluster/capture-cassandra-corpus.sh [--out DIR] [--timeout-s N]
  Starts the 3-node cluster if it is not running, then drives node 127.0.0.2 through disablebinary,
  disablegossip and drain (and kills, restarts, freezes nodes) capturing each nodetool call as
  NAME.stdout, NAME.stderr and NAME.rc in DIR (default tests/data/cassandra/real-5.0). The cluster is
  left with every node UN. Prints each capture's wall time.
  --timeout-s N  the command timeout a frozen node's nodetool hits (default 5; SIGKILL like the agent)
EOF
}

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster=$cla_root/scripts/cassandra-cluster.sh
out=$cla_root/tests/data/cassandra/real-5.0
timeout_s=5
while (($#)); do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --timeout-s) timeout_s=${2:?--timeout-s needs seconds}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
mkdir -p "$out"

# capture NAME ADDRESS ARGS...: one nodetool call, its streams and exit code kept as they are.
capture() {
  local name=$1 address=$2
  shift 2
  local started rc=0
  started=$(date +%s%N)
  timeout --signal=KILL "${capture_timeout_s:-120}" "$cluster" nodetool "$address" "$@" \
    >"$out/$name.stdout" 2>"$out/$name.stderr" || rc=$?
  echo "$rc" >"$out/$name.rc"
  printf '%-44s rc=%-3s %6d ms  (nodetool %s %s)\n' "$name" "$rc" $((($(date +%s%N) - started) / 1000000)) \
    "$address" "$*"
}

# wait_view ADDRESS_OF_VIEW NODE LETTERS: until the view's status shows NODE as LETTERS (e.g. DN).
view_shows() { grep -qE "^$3 +$2 " <<<"$("$cluster" nodetool "$1" status 2>/dev/null)"; }
wait_view() {
  local started=$SECONDS
  wait_poll_s=0.5 wait_until 120 "$1 to show $2 as $3" view_shows "$@"
  echo "  ($1 saw $2 $3 after $((SECONDS - started)) s)"
}

# (status into a variable: `grep -q` in a pipe would end it early, and pipefail would read that as "no")
nodes_status=$("$cluster" status 2>/dev/null) || nodes_status=""
if [[ -z $nodes_status ]] || grep -qv '"state":"running"' <<<"$nodes_status"; then
  "$cluster" stop >/dev/null
  "$cluster" start
fi

n1=127.0.0.1 n2=127.0.0.2 n3=127.0.0.3
capture status_all_un "$n1" status
capture info_serving "$n2" info
capture statusbinary_running "$n2" statusbinary
capture statusgossip_running "$n2" statusgossip

capture disablebinary "$n2" disablebinary
capture info_after_disablebinary "$n2" info
capture statusbinary_not_running "$n2" statusbinary

capture disablegossip "$n2" disablegossip
capture status_peer_right_after_disablegossip "$n1" status
wait_view "$n1" "$n2" DN
capture status_peer_gossip_disabled "$n1" status
capture status_own_gossip_disabled "$n2" status
capture info_after_disablegossip "$n2" info
capture statusgossip_not_running "$n2" statusgossip

capture drain "$n2" drain
capture info_after_drain "$n2" info
capture statusbinary_after_drain "$n2" statusbinary
capture statusgossip_after_drain "$n2" statusgossip
capture enablebinary_after_drain "$n2" enablebinary
capture enablegossip_after_drain "$n2" enablegossip
capture disablegossip_after_drain "$n2" disablegossip
capture drain_again "$n2" drain

"$cluster" kill "$n2"
capture jmx_refused_info "$n2" info
capture jmx_refused_status "$n2" status
capture status_peer_node_killed "$n1" status
"$cluster" start "$n2"

freeze_s=$((timeout_s * 3))
"$cluster" freeze "$n3" "$freeze_s"
capture_timeout_s=$timeout_s capture frozen_node_info_timeout "$n3" info
capture_timeout_s=$timeout_s capture frozen_node_status_timeout "$n3" status
wait_view "$n1" "$n3" UN
capture status_all_un_after_restarts "$n3" status
say "captures in $out"
