#!/usr/bin/env bash
# Captures, from one node at one moment, the nodetool outputs the agent parses and the Jolokia answers to the
# Jolokia backend's requests (issue 34) into tests/data/cassandra/jolokia/, the corpus that proves both backends
# see the same cluster.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/cluster/capture-jolokia-corpus.sh [--cluster-dir DIR] [--out DIR] [--stages-only]
  Starts a fresh 3-node cluster with Jolokia (scripts/cassandra-cluster.sh start --jolokia) in --cluster-dir
  (default build/capture-jolokia; removed first; CASSANDRA_FIRST_HOST moves its addresses) and captures, from its
  first node, into DIR/SCENARIO/ (DIR default tests/data/cassandra/jolokia):
    nodetool_{status,ring,describecluster,info,statusgossip,statusbinary}.stdout
    jolokia_{ring_view,places,describe,describe_second,info,running}.{request,answer}.json
  (scripts/cluster/jolokia_capture.py: each round's body as sent and as answered). The nodetool calls run
  between two rounds of Jolokia reads; the capture is kept once both rounds answered alike (timestamps aside),
  so nodetool saw the same cluster. Scenarios, in this order:
    healthy        every node UN
    schema_change  after ALTER KEYSPACE lifecycle (NTS dc1: 2) and CREATE KEYSPACE jolokia_simple
                   (SimpleStrategy 2) through `cassandra-cluster.sh cql`
    node_down      the second node killed, once the first shows it DN
  then steps/: the third node through disablebinary, disablegossip, drain, enablegossip and enablebinary
  over Jolokia (jolokia_step_NAME.{request,answer}.json, each followed by the running read,
  jolokia_running_after_NAME.*), a read the policy forbids (jolokia_forbidden.*) and a wrong password's HTTP
  status (jolokia_wrong_password.status). Then stages/: the third node's replica stages (SPEC 3.10) as Jolokia's
  gauges (jolokia_stages_NAME.*) and `nodetool tpstats` (nodetool_tpstats_NAME.stdout), read together: fresh
  (before any client write: MutationStage's gauge not created yet), serving (after 20 writes through the first
  node, each sent to all 3 replicas) and after_disablegossip. The cluster is stopped at the end.
  --stages-only: only stages/ (the other captures stay as they are).
EOF
}

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
out=$cla_root/tests/data/cassandra/jolokia
cluster_dir=$cla_root/build/capture-jolokia
stages_only=0
while (($#)); do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --cluster-dir) cluster_dir=${2:?--cluster-dir needs a directory}; shift 2 ;;
    --stages-only) stages_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
cluster_dir=$(realpath -m "$cluster_dir")
cluster=("$cla_root/scripts/cassandra-cluster.sh" --dir "$cluster_dir")
capture_py=("/usr/bin/python3" -I "$cla_root/scripts/cluster/jolokia_capture.py")

stop_cluster() { "${cluster[@]}" stop >/dev/null 2>&1 || true; }
# node_field K FIELD: a field of the K-th node's status line.
node_field() { "${cluster[@]}" status | sed -n "${1}p" | jq -r ".$2"; }
jolokia_of() { # K: URL USER PASSWORD_FILE of the K-th node
  node_field "$1" jolokia_url
  node_field "$1" jolokia_user
  node_field "$1" jolokia_password_file
}

# nodetool_into DIR ADDRESS SUBCOMMAND: its stdout as DIR/nodetool_SUBCOMMAND.stdout; a failure is fatal.
nodetool_into() {
  "${cluster[@]}" nodetool "$2" "$3" >"$1/nodetool_$3.stdout" || die "nodetool $3 against $2 failed"
}

# capture_scenario NAME: from the first node, Jolokia's reads, nodetool's, Jolokia's again; until both agree.
capture_scenario() {
  local dir=$out/$1 again attempt
  make_work_dir capture-jolokia
  again=$work/again
  for attempt in 1 2 3 4 5; do
    rm -rf "$dir" "$again"
    mkdir -p "$dir"
    "${capture_py[@]}" reads "${n1_jolokia[@]}" "$dir"
    for sub in status ring describecluster info statusgossip statusbinary; do nodetool_into "$dir" "$n1" "$sub"; done
    "${capture_py[@]}" reads "${n1_jolokia[@]}" "$again"
    if "${capture_py[@]}" same "$dir" "$again"; then
      say "$1: captured (attempt $attempt)"
      return
    fi
    log "$1: the cluster changed during the capture (attempt $attempt); again"
  done
  die "$1: the cluster kept changing during 5 captures"
}

view_shows() { grep -qE "^$3 +$2 " <<<"$("${cluster[@]}" nodetool "$1" status 2>/dev/null)"; }

# capture_stages NAME: the third node's stages over Jolokia and nodetool, until both read the same counts.
capture_stages() {
  local dir=$out/stages attempt
  for attempt in 1 2 3 4 5; do
    "${capture_py[@]}" stages "${n3_jolokia[@]}" "$dir" "$1"
    "${cluster[@]}" nodetool "$n3" tpstats >"$dir/nodetool_tpstats_$1.stdout" || die "nodetool tpstats against $n3 failed"
    "${capture_py[@]}" stages "${n3_jolokia[@]}" "$work/stages-again" "$1"
    if cmp -s <(jq -S 'map(del(.timestamp))' "$dir/jolokia_stages_$1.answer.json") \
      <(jq -S 'map(del(.timestamp))' "$work/stages-again/jolokia_stages_$1.answer.json"); then
      say "stages $1: captured (attempt $attempt)"
      return
    fi
    log "stages $1: the counts moved during the capture (attempt $attempt); again"
  done
  die "stages $1: the counts kept moving during 5 captures"
}

# The stages of the third node: fresh, serving after client traffic, and after disablegossip.
stages_scenarios() {
  make_work_dir capture-jolokia-stages
  rm -rf "$out/stages"
  mkdir -p "$out/stages"
  capture_stages fresh
  "${cluster[@]}" cql "$n1" "CREATE TABLE lifecycle.stages (k int PRIMARY KEY, v int)"
  local k
  for k in $(seq 1 20); do
    "${cluster[@]}" cql "$n1" "INSERT INTO lifecycle.stages (k, v) VALUES ($k, $k)"  # sent to all 3 replicas
  done
  capture_stages serving
  "${cluster[@]}" nodetool "$n3" disablebinary
  "${cluster[@]}" nodetool "$n3" disablegossip
  capture_stages after_disablegossip
}

require_tools jq || exit 2
stop_cluster
rm -rf "$cluster_dir"
cleanup_cmd stop_cluster
"${cluster[@]}" start --jolokia
n1=$(node_field 1 address) n2=$(node_field 2 address) n3=$(node_field 3 address)
mapfile -t n1_jolokia < <(jolokia_of 1)
mapfile -t n3_jolokia < <(jolokia_of 3)
if ((stages_only)); then
  stages_scenarios
  say "captures in $out/stages"
  exit 0
fi

capture_scenario healthy

"${cluster[@]}" cql "$n1" "ALTER KEYSPACE lifecycle WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2}"
"${cluster[@]}" cql "$n1" \
  "CREATE KEYSPACE jolokia_simple WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}"
capture_scenario schema_change

"${cluster[@]}" kill "$n2"
wait_poll_s=1 wait_until 120 "$n1 to show $n2 DN" view_shows "$n1" "$n2" DN
capture_scenario node_down

steps=$out/steps
rm -rf "$steps"
mkdir -p "$steps"
for step in disablebinary disablegossip drain enablegossip enablebinary; do
  "${capture_py[@]}" step "${n3_jolokia[@]}" "$steps" "$step"
done
"${capture_py[@]}" forbidden "${n3_jolokia[@]}" "$steps"
"${cluster[@]}" nodetool "$n3" enablegossip >/dev/null 2>&1 || true  # drained by the steps: a restart follows
"${cluster[@]}" kill "$n3"
"${cluster[@]}" start "$n3"
stages_scenarios
say "captures in $out"
