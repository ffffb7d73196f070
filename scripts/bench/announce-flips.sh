#!/usr/bin/env bash
# What a drained node looks like to its peers: on a real 6-node cluster, `nodetool disablegossip` on each node in
# turn, and how many peers marked it DOWN and then UP again while its gossip stayed stopped (their system.log).
# Cassandra's stopGossiping announces the shutdown, then sleeps cassandra.shutdown_announce_in_ms (2000 ms by
# default) while its gossip task still runs; a peer that hears of the node in that time marks it alive again
# (an echo the node answers) and sends it replica reads until its failure detector convicts it, 10-20 s after
# the node froze or went away. Last line: trials=N peers_down=N peers_up_again=N announce_ms=MS|default.
set -euo pipefail
script_name=announce-flips.sh
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

usage() {
  cat <<'EOF'
Usage: scripts/bench/announce-flips.sh [--trials N] [--announce-ms MS]
  Starts a 6-node cluster (scripts/cassandra-cluster.sh, 127.0.0.21-26 unless CASSANDRA_FIRST_HOST says
  otherwise, in build/announce-flips-cluster[-announce-MS]); for each of N trials (default 12, the nodes in
  turn) runs `nodetool disablegossip` on a node, waits 2 s past the announce, counts the peers whose log says
  it is now DOWN and, after that, UP again; then `nodetool enablegossip` and waits until every peer shows it
  UN. Stops the cluster at the end.
  --announce-ms MS  the nodes run with -Dcassandra.shutdown_announce_in_ms=MS (default: Cassandra's, 2000)
EOF
}

trials=12 announce_ms=""
while (($#)); do
  case $1 in
    --trials) trials=${2:?--trials needs a number}; shift 2 ;;
    --announce-ms) announce_ms=${2:?--announce-ms needs milliseconds}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $trials =~ ^[1-9][0-9]*$ ]] || usage_error "--trials must be a positive number, not '$trials'"
[[ -z $announce_ms || $announce_ms =~ ^[0-9]+$ ]] || usage_error "--announce-ms must be milliseconds, not '$announce_ms'"

cluster=$cla_root/scripts/cassandra-cluster.sh
export CASSANDRA_FIRST_HOST=${CASSANDRA_FIRST_HOST:-21}
export CASSANDRA_CLUSTER_DIR=$cla_root/build/announce-flips-cluster${announce_ms:+-announce-$announce_ms}
start_options=(--nodes 6)
[[ -z $announce_ms ]] || start_options+=(--jvm-property "cassandra.shutdown_announce_in_ms=$announce_ms")
"$cluster" stop >/dev/null
rm -rf "$CASSANDRA_CLUSTER_DIR"
"$cluster" start "${start_options[@]}" >&2
trap '"$cluster" stop >/dev/null 2>&1 || true' EXIT
mapfile -t addresses < <("$cluster" status | jq -r .address)

node_log() { echo "$CASSANDRA_CLUSTER_DIR/node$1/logs/system.log"; }
# Every peer of node K shows it UN (a nodetool JVM each). (Each status into a variable: `grep -q` in a pipe
# could end nodetool early, and pipefail would read that as "no".)
up_in_every_view() {
  local p view
  for p in 1 2 3 4 5 6; do
    [[ $p == "$1" ]] && continue
    view=$("$cluster" nodetool "${addresses[p - 1]}" status 2>/dev/null) || return 1
    grep -q "^UN  *${addresses[$1 - 1]} " <<<"$view" || return 1
  done
}

# The announce, then 2 s: the gossip task stops when the sleep ends.
settle_s=$(((${announce_ms:-2000} + 2000 + 999) / 1000))
total_down=0 total_up=0
declare -A lines_before=()
for ((t = 0; t < trials; t++)); do
  k=$((t % 6 + 1)) address=${addresses[t % 6]}
  for p in 1 2 3 4 5 6; do lines_before[$p]=$(wc -l <"$(node_log "$p")"); done
  began_ms=$(date +%s%3N)
  "$cluster" nodetool "$address" disablegossip
  took_ms=$(($(date +%s%3N) - began_ms))
  sleep "$settle_s"
  down=0 up=0 who=""
  for p in 1 2 3 4 5 6; do
    [[ $p == "$k" ]] && continue
    marks=$(tail -n +"$((lines_before[$p] + 1))" "$(node_log "$p")" | grep -E "/$address:[0-9]+ is now (DOWN|UP)" || true)
    # UP counts only after a DOWN in the same peer's log
    if grep -q "is now DOWN" <<<"$marks"; then
      down=$((down + 1))
      if sed -n '/is now DOWN/,$p' <<<"$marks" | grep -q "is now UP"; then
        up=$((up + 1)) who+=" ${addresses[p - 1]}"
      fi
    fi
  done
  total_down=$((total_down + down)) total_up=$((total_up + up))
  say "trial $t: $address disablegossip ${took_ms} ms (a nodetool JVM); peers that marked it DOWN $down of 5, then UP again $up${who:+ (}${who# }${who:+)}"
  "$cluster" nodetool "$address" enablegossip
  wait_poll_s=1 wait_until 120 "${address} UN in every view after enablegossip" up_in_every_view "$k"
done
echo "trials=$trials peers_down=$total_down peers_up_again=$total_up announce_ms=${announce_ms:-default}"
