#!/usr/bin/env bash
# Captures, from one node at one moment, the nodetool outputs the agent parses and the Jolokia answers to the
# Jolokia backend's requests (issue 34) into tests/data/cassandra/jolokia/, the corpus that proves both backends
# see the same cluster.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/cluster/capture-jolokia-corpus.sh [--cluster-dir DIR] [--out DIR] [--stages-only | --hints-only]
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
  --hints-only: only hints/ (SPEC 3.10, catching up): the first node's hint window and pending hints over Jolokia
    (DIR/hints/jolokia_NAME.*: PendingHints with the HintsService counters and the host ids, as the agent reads
    them) and nodetool (NAME.stdout/.stderr/.rc in --nodetool-out, default tests/data/cassandra/real-5.0/hints):
    none pending, then the third node killed and 500 writes at ONE through the first (hints for the third: a
    file being written, not listed yet, but counted by Hints_created-<address>), then,
    with the first node's hint throttle at 1 KiB/s, the third node started again: its closed file listed while
    it is being dispatched, then, throttle back at Cassandra's 1024, the list empty again. The cluster runs with
    the agent's policy with whatever of those reads it lacks added (JOLOKIA_POLICY_FILE).
EOF
}

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
out=$cla_root/tests/data/cassandra/jolokia
cluster_dir=$cla_root/build/capture-jolokia
stages_only=0 hints_only=0
nodetool_out=$cla_root/tests/data/cassandra/real-5.0/hints
while (($#)); do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --cluster-dir) cluster_dir=${2:?--cluster-dir needs a directory}; shift 2 ;;
    --stages-only) stages_only=1; shift ;;
    --hints-only) hints_only=1; shift ;;
    --nodetool-out) nodetool_out=${2:?--nodetool-out needs a directory}; shift 2 ;;
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

HINTS=org.apache.cassandra.hints:type=HintsService
STORAGE_PROXY=org.apache.cassandra.db:type=StorageProxy

# The agent's policy and the hints reads the capture makes (SPEC 3.10), those it lacks added, into FILE.
write_hints_policy() {
  local policy=$cla_root/scripts/cluster/jolokia-access.xml sed_args=() blocks=""
  grep -q '<attribute mode="read">MaxHintWindow</attribute>' "$policy" ||
    sed_args+=(-e 's|^\( *\)<attribute mode="read">SchemaVersionsWithPort</attribute>|&\n\1<attribute mode="read">MaxHintWindow</attribute>|')
  grep -q "<name>$HINTS</name>" "$policy" ||
    blocks+='    <mbean>\n      <name>'"$HINTS"'</name>\n      <attribute mode="read">PendingHints</attribute>\n    </mbean>\n'
  grep -q 'HintsService,name=\*' "$policy" || {
    blocks+='    <mbean>\n      <name>org.apache.cassandra.metrics:type=HintsService,name=*</name>\n'
    blocks+='      <attribute mode="read">Count</attribute>\n    </mbean>\n'
  }
  sed "${sed_args[@]}" -e "s|^  </allow>|$blocks&|" "$policy" >"$1"
  grep -q MaxHintWindow "$1" && grep -q PendingHints "$1" && grep -q 'HintsService,name=\*' "$1" ||
    die "could not add the hints reads to the policy ($1)"
}

# hints_nodetool NAME ADDRESS ARGS...: the byte-exact triple NAME.{stdout,stderr,rc} in nodetool_out.
hints_nodetool() {
  local name=$1 address=$2 rc=0
  shift 2
  timeout --signal=KILL 120 "${cluster[@]}" nodetool "$address" "$@" >"$nodetool_out/$name.stdout" \
    2>"$nodetool_out/$name.stderr" || rc=$?
  echo "$rc" >"$nodetool_out/$name.rc"
  say "hints: $name rc=$rc (nodetool $address $*)"
}
# hints_jolokia NAME MBEAN ATTRIBUTE [DIR]: the first node's read into DIR (default out/hints).
hints_jolokia() { "${capture_py[@]}" attribute "${n1_jolokia[@]}" "${4:-$out/hints}" "$1" "$2" "$3"; }
# hints_read NAME [DIR]: the first node's pending hints read (PendingHints, the HintsService counters and the host
# ids in one bulk request) into DIR (default out/hints).
hints_read() { "${capture_py[@]}" hints "${n1_jolokia[@]}" "${2:-$out/hints}" "$1"; }
pending_hints_value() { jq -c '.[0].value.PendingHints' "$1"; }

# capture_pending NAME [HOST_ID]: Jolokia's PendingHints, nodetool listpendinghints, Jolokia's again, until both
# Jolokia reads answer alike (and, with HOST_ID, nodetool lists it); 1 when that never happened within 20 rounds.
capture_pending() {
  local name=$1 host_id=${2:-} round
  for round in $(seq 1 20); do
    hints_read "pending_hints_$name"
    hints_nodetool "listpendinghints_$name" "$n1" listpendinghints
    hints_read "pending_hints_$name" "$work/again"
    if [[ $(pending_hints_value "$out/hints/jolokia_pending_hints_$name.answer.json") == \
      "$(pending_hints_value "$work/again/jolokia_pending_hints_$name.answer.json")" ]] &&
      { [[ -z $host_id ]] || grep -q "^$host_id " "$nodetool_out/listpendinghints_$name.stdout"; }; then
      say "hints $name: captured (round $round)"
      return 0
    fi
    log "hints $name: not yet (round $round): $(pending_hints_value "$work/again/jolokia_pending_hints_$name.answer.json")"
    sleep 2
  done
  return 1
}

# The hints of the first node for the third: none, while it is down, while they are dispatched, after.
hints_scenarios() {
  make_work_dir capture-jolokia-hints
  rm -rf "$out/hints" "$nodetool_out"
  mkdir -p "$out/hints" "$nodetool_out"
  local n3_host_id
  n3_host_id=$("${cluster[@]}" nodetool "$n1" status | awk -v a="$n3" '$2 == a { print $(NF - 1) }')
  [[ $n3_host_id =~ ^[0-9a-f-]{36}$ ]] || die "no host id of $n3 in $n1's status ('$n3_host_id')"
  say "hints: $n3 has host id $n3_host_id"

  hints_nodetool getmaxhintwindow "$n1" getmaxhintwindow
  hints_jolokia max_hint_window "$STORAGE_PROXY" MaxHintWindow
  capture_pending none || die "hints none: PendingHints kept changing"

  "${cluster[@]}" kill "$n3"
  wait_poll_s=1 wait_until 120 "$n1 to show $n3 DN" view_shows "$n1" "$n3" DN
  hints_nodetool jmx_refused_listpendinghints "$n3" listpendinghints
  "${cluster[@]}" cql "$n1" "CREATE TABLE lifecycle.hints (k int PRIMARY KEY, v text)"
  /usr/bin/python3 -I - "$n1" <<'PY'
import sys
from cassandra import ConsistencyLevel
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import WhiteListRoundRobinPolicy
profile = ExecutionProfile(load_balancing_policy=WhiteListRoundRobinPolicy([sys.argv[1]]), request_timeout=30,
                           consistency_level=ConsistencyLevel.ONE)
cluster = Cluster([sys.argv[1]], execution_profiles={EXEC_PROFILE_DEFAULT: profile}, protocol_version=5)
session = cluster.connect()
insert = session.prepare("INSERT INTO lifecycle.hints (k, v) VALUES (?, ?)")
for k in range(500):
    session.execute(insert, (k, "hint-%d" % k))
cluster.shutdown()
PY
  say "hints: 500 writes at ONE through $n1 while $n3 is down"
  sleep 12 # past hints_flush_period (10 s): the hints are on disk, the file still open
  capture_pending target_down || die "hints target_down: PendingHints kept changing"

  "${cluster[@]}" nodetool "$n1" sethintedhandoffthrottlekb 1 # 512 B/s to each of 2 peers: the file stays listed
  "${cluster[@]}" start "$n3"
  capture_pending dispatching "$n3_host_id" || die "hints dispatching: $n1 never listed $n3_host_id"
  "${cluster[@]}" nodetool "$n1" sethintedhandoffthrottlekb 1024 # Cassandra's default (hinted_handoff_throttle)
  local attempt
  for attempt in $(seq 1 90); do
    capture_pending after_dispatch || die "hints after_dispatch: PendingHints kept changing"
    grep -q "does not have any pending hints" "$nodetool_out/listpendinghints_after_dispatch.stdout" &&
      [[ $(pending_hints_value "$out/hints/jolokia_pending_hints_after_dispatch.answer.json") == "[]" ]] && break
    ((attempt < 90)) || die "hints after_dispatch: $n1 still lists hints after 90 rounds"
    sleep 5
  done
  say "hints: captures in $out/hints and $nodetool_out (host id of $n3: $n3_host_id)"
}

require_tools jq || exit 2
stop_cluster
rm -rf "$cluster_dir"
cleanup_cmd stop_cluster
if ((hints_only)); then
  mkdir -p "$cluster_dir"
  write_hints_policy "$cluster_dir/jolokia-access-hints.xml"
  export JOLOKIA_POLICY_FILE=$cluster_dir/jolokia-access-hints.xml
fi
"${cluster[@]}" start --jolokia
n1=$(node_field 1 address) n2=$(node_field 2 address) n3=$(node_field 3 address)
mapfile -t n1_jolokia < <(jolokia_of 1)
mapfile -t n3_jolokia < <(jolokia_of 3)
if ((hints_only)); then
  hints_scenarios
  exit 0
fi
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
