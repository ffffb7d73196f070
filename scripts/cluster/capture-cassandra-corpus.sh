#!/usr/bin/env bash
# Captures real nodetool outputs (stdout, stderr, exit code) from scripts/cassandra-cluster.sh's cluster
# into tests/data/cassandra/real-5.0/, the corpus the parsers' unit tests run over (issue 8).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/cluster/capture-cassandra-corpus.sh [--out DIR] [--timeout-s N]
       scripts/cluster/capture-cassandra-corpus.sh --placement SHAPE [--nodes 3|6] [--num-tokens N] [--dcs 1|2]
                                                   [--racks N,N,...] [--node-down | --joining]
                                                   [--cluster-dir DIR] [--out DIR]
  Starts the 3-node cluster if it is not running, then drives node 127.0.0.2 through disablebinary,
  disablegossip and drain (and kills, restarts, freezes nodes) capturing each nodetool call as
  NAME.stdout, NAME.stderr and NAME.rc in DIR (default tests/data/cassandra/real-5.0). The cluster is
  left with every node UN. Prints each capture's wall time.
  --timeout-s N  the command timeout a frozen node's nodetool hits (default 5; SIGKILL like the agent)

  --placement SHAPE: the schema and ring instead (issue 22). Starts a fresh cluster of that layout in
  --cluster-dir (default build/capture-SHAPE; removed first), creates the keyspaces below, captures from
  127.0.0.1 `describecluster`, `ring`, `status` and `describering KS` for every keyspace describecluster
  lists into DIR/placement/SHAPE/, then stops the cluster. --nodes, --num-tokens, --dcs and --racks go to
  scripts/cassandra-cluster.sh start. --node-down also kills 127.0.0.2 and, once 127.0.0.1 sees it DN,
  captures describecluster, ring and status again (*_node_down).
  --joining (one DC, 3 or 6 nodes): captures while a node joins instead. Writes ~48 MB into keyspace bulk
  (NTS {dc1: 3}), flushes it, caps streaming on every node (`nodetool setstreamthroughput 1`: 1 megabit/s,
  and `-e 1`: entire SSTables at 1 MiB/s), adds a node with auto_bootstrap (cassandra-cluster.sh join) and,
  once it streams (after RING_DELAY's 30 s) while 127.0.0.1 shows it UJ, captures as above; fails if it is
  not UJ, or finished its bootstrap, at the end. Then lifts the caps (0),
  waits until the node is UN and captures describecluster, ring, status and describering KS again
  (*_joined, describering_joined_KS): the placement the joining node's pending ranges lead to.
  Keyspaces: lifecycle NTS {dc1: 3} (the cluster's own), nts_dc1_2 {dc1: 2}, nts_dc1_4 {dc1: 4} (more
  than the racks, or the nodes), simple_1 and simple_2 (SimpleStrategy RF 1, 2); with --dcs 2 also
  nts_dc1_3_dc2_2 {dc1: 3, dc2: 2} and nts_dc2_1 {dc2: 1}.
EOF
}

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster=("$cla_root/scripts/cassandra-cluster.sh")
out=$cla_root/tests/data/cassandra/real-5.0
timeout_s=5
placement="" cluster_dir="" node_down=0 joining=0 start_args=()
while (($#)); do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --timeout-s) timeout_s=${2:?--timeout-s needs seconds}; shift 2 ;;
    --placement) placement=${2:?--placement needs a shape name}; shift 2 ;;
    --nodes | --num-tokens | --dcs | --racks) start_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --node-down) node_down=1; shift ;;
    --joining) joining=1; shift ;;
    --cluster-dir) cluster_dir=${2:?--cluster-dir needs a directory}; shift 2 ;;
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
  timeout --signal=KILL "${capture_timeout_s:-120}" "${cluster[@]}" nodetool "$address" "$@" \
    >"$out/$name.stdout" 2>"$out/$name.stderr" || rc=$?
  echo "$rc" >"$out/$name.rc"
  printf '%-44s rc=%-3s %6d ms  (nodetool %s %s)\n' "$name" "$rc" $((($(date +%s%N) - started) / 1000000)) \
    "$address" "$*"
}

# wait_view ADDRESS_OF_VIEW NODE LETTERS: until the view's status shows NODE as LETTERS (e.g. DN).
view_shows() { grep -qE "^$3 +$2 " <<<"$("${cluster[@]}" nodetool "$1" status 2>/dev/null)"; }
wait_view() { # (wait_view_limit_s: seconds, default 120)
  local started=$SECONDS
  wait_poll_s=0.5 wait_until "${wait_view_limit_s:-120}" "$1 to show $2 as $3" view_shows "$@"
  echo "  ($1 saw $2 $3 after $((SECONDS - started)) s)"
}

# ---- --placement: the keyspaces and the ring of a fresh cluster of the given layout ----
stop_capture_cluster() { "${cluster[@]}" stop >/dev/null 2>&1 || true; }
create_test_keyspaces() {
  /usr/bin/python3 -I - "$1" <<'EOF_PY'
import sys
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import DCAwareRoundRobinPolicy
profile = ExecutionProfile(load_balancing_policy=DCAwareRoundRobinPolicy(local_dc="dc1"), request_timeout=60)
cluster = Cluster(["127.0.0.1"], execution_profiles={EXEC_PROFILE_DEFAULT: profile}, protocol_version=5)
session = cluster.connect()
keyspaces = {"nts_dc1_2": "'class': 'NetworkTopologyStrategy', 'dc1': 2",
             "nts_dc1_4": "'class': 'NetworkTopologyStrategy', 'dc1': 4",
             "simple_1": "'class': 'SimpleStrategy', 'replication_factor': 1",
             "simple_2": "'class': 'SimpleStrategy', 'replication_factor': 2"}
if sys.argv[1] == "2":
    keyspaces["nts_dc1_3_dc2_2"] = "'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2"
    keyspaces["nts_dc2_1"] = "'class': 'NetworkTopologyStrategy', 'dc2': 1"
for name, replication in keyspaces.items():
    session.execute("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {%s}" % (name, replication))
if not cluster.control_connection.wait_for_schema_agreement(wait_time=120):
    sys.exit("schema agreement not reached")
cluster.shutdown()
EOF_PY
}

# ~48 MB of incompressible rows in keyspace bulk, written at ALL, so each node holds its share to stream.
write_bulk_data() {
  /usr/bin/python3 -I - <<'EOF_PY'
import os, sys
from cassandra import ConsistencyLevel
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.policies import DCAwareRoundRobinPolicy
profile = ExecutionProfile(load_balancing_policy=DCAwareRoundRobinPolicy(local_dc="dc1"), request_timeout=60,
                           consistency_level=ConsistencyLevel.ALL)
cluster = Cluster(["127.0.0.1"], execution_profiles={EXEC_PROFILE_DEFAULT: profile}, protocol_version=5)
session = cluster.connect()
session.execute("CREATE KEYSPACE IF NOT EXISTS bulk WITH replication = "
                "{'class': 'NetworkTopologyStrategy', 'dc1': 3}")
session.execute("CREATE TABLE IF NOT EXISTS bulk.blobs (k int PRIMARY KEY, v blob) "
                "WITH compression = {'enabled': 'false'}")
if not cluster.control_connection.wait_for_schema_agreement(wait_time=120):
    sys.exit("schema agreement not reached")
insert = session.prepare("INSERT INTO bulk.blobs (k, v) VALUES (?, ?)")
rows, size = 1200, 40 * 1024
results = execute_concurrent_with_args(session, insert, ((k, os.urandom(size)) for k in range(rows)),
                                       concurrency=8, raise_on_first_error=True)
print("wrote %d rows of %d KiB into bulk.blobs" % (len(results), size // 1024))
cluster.shutdown()
EOF_PY
}

# set_stream_caps MEGABITS MIB ADDRESS...: streaming and entire-SSTable streaming caps of those nodes (0: none).
set_stream_caps() {
  local megabits=$1 mib=$2 address
  shift 2
  for address in "$@"; do
    "${cluster[@]}" nodetool "$address" setstreamthroughput "$megabits" >/dev/null
    "${cluster[@]}" nodetool "$address" setstreamthroughput -e "$mib" >/dev/null
  done
}

# capture_shape SUFFIX: describecluster, ring, status and describering of every keyspace, from 127.0.0.1.
capture_shape() {
  local suffix=$1 keyspaces ks
  capture "describecluster$suffix" "$n1" describecluster
  capture "ring$suffix" "$n1" ring
  capture "status$suffix" "$n1" status
  keyspaces=$(awk '/^Keyspaces:/ { on = 1; next } on && $2 == "->" { print $1 }' "$out/describecluster$suffix.stdout")
  [[ -n $keyspaces ]] || die "describecluster listed no keyspace"
  for ks in $keyspaces; do capture "describering${suffix}_$ks" "$n1" describering "$ks"; done
}

# The existing nodes stream slowly to a new one: capture while it is UJ, then once it is UN.
capture_joining() {
  local existing=() k new started
  mapfile -t existing < <("${cluster[@]}" status | sed -E 's/^\{"address":"([0-9.]+)".*/\1/')
  new=127.0.0.$((${#existing[@]} + 1))
  write_bulk_data || die "could not write the bulk data"
  for k in "${existing[@]}"; do "${cluster[@]}" nodetool "$k" flush bulk; done
  set_stream_caps 1 1 "${existing[@]}"
  started=$SECONDS
  "${cluster[@]}" join
  wait_view_limit_s=300 wait_view "$n1" "$new" UJ
  echo "  (UJ after $((SECONDS - started)) s from join)"
  # The node is UJ from its JOINING status on, first through RING_DELAY's 30 s sleep, then while it streams:
  # the captures wait for the streaming, which the caps hold for minutes (the sleep alone is too short a window
  # on a loaded machine).
  local log=$cluster_dir/node${new##*.}/logs/system.log
  wait_poll_s=1 wait_until 120 "$new to start streaming (JOINING: Starting to bootstrap in $log)" \
    grep -q "JOINING: Starting to bootstrap" "$log"
  echo "  ($new streaming after $((SECONDS - started)) s from join)"
  capture_shape ""
  view_shows "$n1" "$new" UJ ||
    die "$new was no longer UJ when the captures ended ($((SECONDS - started)) s after join): they may mix states"
  ! grep -q "Bootstrap completed" "$log" || die "$new finished bootstrapping during the captures: the caps did not hold"
  grep -q ' Joining ' "$out/ring.stdout" || die "the ring captured shows no Joining row"
  echo "  ($new still UJ and streaming after the captures, $((SECONDS - started)) s after join)"
  set_stream_caps 0 0 "${existing[@]}"
  wait_view_limit_s=600 wait_view "$n1" "$new" UN
  capture_shape _joined
}

capture_placement() {
  local dir=$out/placement/$placement dcs=1 i
  for ((i = 0; i < ${#start_args[@]}; i += 2)); do
    [[ ${start_args[i]} == --dcs ]] && dcs=${start_args[i + 1]}
  done
  cluster_dir=$(realpath -m "${cluster_dir:-$cla_root/build/capture-$placement}")  # nodetool needs it absolute
  cluster=("${cluster[0]}" --dir "$cluster_dir")
  "${cluster[@]}" stop >/dev/null 2>&1 || true
  rm -rf "$cluster_dir"
  cleanup_cmd stop_capture_cluster
  "${cluster[@]}" start "${start_args[@]}"
  create_test_keyspaces "$dcs" || die "could not create the test keyspaces"
  out=$dir
  rm -rf "$out"
  mkdir -p "$out"
  local started=$SECONDS
  n1=127.0.0.1 n2=127.0.0.2
  if ((joining)); then
    capture_joining
  else
    capture_shape ""
  fi
  if ((node_down)); then
    "${cluster[@]}" kill "$n2"
    wait_view "$n1" "$n2" DN
    capture describecluster_node_down "$n1" describecluster
    capture ring_node_down "$n1" ring
    capture status_node_down "$n1" status
  fi
  stop_capture_cluster
  echo "capture-cassandra-corpus: placement captures in $out ($((SECONDS - started)) s after the cluster was up)"
}

if [[ -n $placement ]]; then
  [[ $placement =~ ^[A-Za-z0-9_]+$ ]] || die "--placement: a shape name of letters, digits and _, not '$placement'"
  ((!(joining && node_down))) || die "--joining and --node-down go in separate captures"
  capture_placement
  exit 0
fi
[[ ${#start_args[@]} -eq 0 && $node_down == 0 && $joining == 0 && -z $cluster_dir ]] ||
  die "--nodes, --num-tokens, --dcs, --racks, --node-down, --joining and --cluster-dir go with --placement"

# (status into a variable: `grep -q` in a pipe would end it early, and pipefail would read that as "no")
nodes_status=$("${cluster[@]}" status 2>/dev/null) || nodes_status=""
if [[ -z $nodes_status ]] || grep -qv '"state":"running"' <<<"$nodes_status"; then
  "${cluster[@]}" stop >/dev/null
  "${cluster[@]}" start
fi

n1=127.0.0.1 n2=127.0.0.2 n3=127.0.0.3
capture status_all_un "$n1" status
capture info_serving "$n2" info
capture statusbinary_running "$n2" statusbinary
capture statusgossip_running "$n2" statusgossip
# The replica stages (SPEC 3.10): a node that took no client write yet lists no MutationStage (so the corpus
# wants a cluster this script started); then 300 writes and reads at ALL (each reaches every replica), and
# after disablegossip nothing moves.
capture tpstats_fresh_node "$n2" tpstats
"${cluster[@]}" cql "$n1" "CREATE TABLE IF NOT EXISTS lifecycle.cap (k int PRIMARY KEY, v text)"
/usr/bin/python3 -I - "$n1" <<'PY'
import sys
from cassandra import ConsistencyLevel
from cassandra.cluster import Cluster
from cassandra.query import SimpleStatement
cluster = Cluster([sys.argv[1]], protocol_version=5)
session = cluster.connect()
write = SimpleStatement("INSERT INTO lifecycle.cap (k, v) VALUES (%s, 'x')", consistency_level=ConsistencyLevel.ALL)
read = SimpleStatement("SELECT v FROM lifecycle.cap WHERE k = %s", consistency_level=ConsistencyLevel.ALL)
for k in range(300):
    session.execute(write, (k,))
    session.execute(read, (k,))
cluster.shutdown()
PY
capture tpstats_serving "$n2" tpstats

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
capture tpstats_after_disablegossip "$n2" tpstats

capture drain "$n2" drain
capture info_after_drain "$n2" info
capture statusbinary_after_drain "$n2" statusbinary
capture statusgossip_after_drain "$n2" statusgossip
capture enablebinary_after_drain "$n2" enablebinary
capture enablegossip_after_drain "$n2" enablegossip
capture disablegossip_after_drain "$n2" disablegossip
capture drain_again "$n2" drain

"${cluster[@]}" kill "$n2"
capture jmx_refused_info "$n2" info
capture jmx_refused_status "$n2" status
capture status_peer_node_killed "$n1" status
"${cluster[@]}" start "$n2"

freeze_s=$((timeout_s * 3))
"${cluster[@]}" freeze "$n3" "$freeze_s"
capture_timeout_s=$timeout_s capture frozen_node_info_timeout "$n3" info
capture_timeout_s=$timeout_s capture frozen_node_status_timeout "$n3" status
wait_view "$n1" "$n3" UN
capture status_all_un_after_restarts "$n3" status
say "captures in $out"
