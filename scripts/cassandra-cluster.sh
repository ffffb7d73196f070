#!/usr/bin/env bash
# A real Apache Cassandra 5.0 cluster on loopback (SPEC 8), resolved from Maven into ~/.m2; nothing committed.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/cassandra-cluster.sh [--dir DIR] COMMAND
  start [--nodes 3|6] [--dir DIR]  start dc1 (rack K on 127.0.0.K; 6 nodes: two per rack); returns once every
                                   node is UN in every node's view and keyspace lifecycle (NTS dc1: 3; with
                                   --dcs 2, dc1: 3 and dc2: 3) exists
        [--num-tokens N]           N tokens a node (default 1: ccm's evenly spaced initial_token; more: random)
        [--dcs 1|2]                2: with --nodes 6, dc1 on 127.0.0.1-3 and dc2 on 127.0.0.4-6, racks 1-3 each
        [--racks N,N,...]          racks of unequal sizes: each DC's nodes in address order, the first N in rack1,
                                   the next N in rack2, ... (the counts add up to the nodes of a DC; e.g. --nodes 6
                                   --racks 3,2,1: 127.0.0.1-3 rack1, .4-5 rack2, .6 rack3). Default: rack
                                   (K-1)%3+1 for the K-th node of a DC
        [--jolokia]                load Jolokia's JVM agent into every node (SPEC 8.1): http://127.0.0.K:8778/jolokia,
                                   user cla, a password generated for the cluster in DIR/jolokia.password (0600), the
                                   policy scripts/cluster/jolokia-access.xml (only what the agent uses). Kept for the
                                   cluster's life: `start ADDRESS` and `join` load it too
        [--jvm-property NAME=VALUE]  -DNAME=VALUE on every node's JVM (repeatable), kept for the cluster's life
                                   like --jolokia; e.g. cassandra.shutdown_announce_in_ms=200 (scripts/bench-
                                   drain.sh --announce-ms)
  join [--hold-s SECONDS]          add one node to the running 1-DC cluster of 3 or 6: the next address, in dc1, its
                                   rack by the layout's rule, seeds the others, auto_bootstrap: true (so it
                                   streams its ranges and shows UJ until done). Returns once its log says
                                   JOINING; does not wait for UN. Once per cluster (again after remove); not
                                   with --racks. --hold-s: the node waits SECONDS between announcing its tokens
                                   and its first stream (-Dcassandra.ring_delay_ms, Cassandra's own pause "for
                                   pending range setup", 30 s by default), so it stays UJ, its pending ranges
                                   known to every node, that long whatever the data; join then returns once
                                   that pause has begun (its tokens announced)
  remove ADDRESS                   take the node join added out of the cluster for good: kill it, then
                                   `nodetool removenode HOST_ID` from another node or, for a node that never
                                   finished joining (removenode refuses one not in the ring), `nodetool
                                   assassinate` (gossip then holds it as LEFT until it expires); returns once no
                                   node's status lists it and every other node is UN in every view; its
                                   directory is removed and cluster.env counts the nodes before join again
                                   (Cassandra drops a bootstrapping node silent for 5 min by itself, as a
                                   failed bootstrap: remove then finds no node listing it and only resets)
  status                           one JSON line per node: address, rack, jmx_port, pid, state
                                   (state: running | frozen | stopped, of the node's JVM); with --jolokia also
                                   jolokia_url, jolokia_user and jolokia_password_file
  nodetool ADDRESS ARGS...         the real nodetool against that node (exec'd: a timeout's kill reaches java)
  cql ADDRESS STATEMENT            one CQL statement through that node (Python driver), e.g. ALTER KEYSPACE
  freeze ADDRESS SECONDS           SIGSTOP the node, SIGCONT it after SECONDS (in the background; a SIGTERM to
                                   the sleeper continues the node at once)
  kill ADDRESS                     SIGKILL the node (as the VM's loss would)
  start ADDRESS [--no-binary]      start one node again (killing it first if it runs: a restart, so it can
                                   be an agent's restart_command) and wait until it is UN in every view;
                                   --no-binary: without its native transport (-Dcassandra.start_native_
                                   transport=false), as a node the agent holds drained must come back: clients
                                   return when the agent's restore runs `nodetool enablebinary`
  stop                             kill every node and wait until they are gone
Environment:
  CASSANDRA_CLUSTER_DIR   cluster directory (default: <repo>/build/cassandra-cluster; --dir overrides)
  CASSANDRA_FIRST_HOST    last octet of the first node's address (default 1), so two clusters can run at once
  CASSANDRA_VERSION       org.apache.cassandra:cassandra-all version (default 5.0.9)
  CASSANDRA_NODE_UP_LIMIT_S  seconds a node gets to come up (default 240)
  JOLOKIA_VERSION         org.jolokia:jolokia-agent-jvm version, classifier javaagent (default 2.6.0)
  JOLOKIA_POLICY_FILE     Jolokia's policy for the nodes started now (default scripts/cluster/jolokia-access.xml;
                          a capture may allow more reads than the agent makes)
JMX of the node on 127.0.0.K listens on 127.0.0.1, port 7000 + 100*K.
EOF
}

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=cluster/cassandra_conf.sh
source "$cla_root/scripts/cluster/cassandra_conf.sh"

cluster_dir=${CASSANDRA_CLUSTER_DIR:-$cla_root/build/cassandra-cluster}
version=${CASSANDRA_VERSION:-5.0.9}
jolokia_version=${JOLOKIA_VERSION:-2.6.0}
jolokia_user=cla
node_up_limit_s=${CASSANDRA_NODE_UP_LIMIT_S:-240}

# ---- cluster layout (cluster.env holds what start chose) ----
nodes="" first_host="" racks="" jolokia="" jvm_properties="" # set by load_layout
load_layout() {
  [[ -f $cluster_dir/cluster.env ]] || die "no cluster in $cluster_dir (run: $0 start)"
  # shellcheck disable=SC1091
  source "$cluster_dir/cluster.env"
}
node_octet() { echo $((first_host + $1 - 1)); }
node_address() { echo "127.0.0.$(node_octet "$1")"; }
# With D DCs of nodes/D nodes each, node K is in DC (K-1)/(nodes/D)+1; racks count 1..3 inside each DC, or
# by the counts of --racks (racks=3,2,1 in cluster.env: the DC's first 3 nodes rack1, the next 2 rack2, ...).
nodes_per_dc() { echo $((nodes / ${dcs:-1})); }
node_dc() { echo "dc$((($1 - 1) / $(nodes_per_dc) + 1))"; }
node_rack() {
  local i=$((($1 - 1) % $(nodes_per_dc))) count rack=0
  if [[ -n ${racks:-} ]]; then
    for count in ${racks//,/ }; do
      rack=$((rack + 1))
      ((i < count)) && { echo "rack$rack"; return; }
      i=$((i - count))
    done
  fi
  echo "rack$((i % 3 + 1))"
}
# check_racks SPEC NODES_PER_DC: dies unless SPEC is positive counts, comma-separated, adding up to NODES_PER_DC.
check_racks() {
  local spec=$1 per_dc=$2 sum=0 count
  [[ $spec =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
    die "--racks must be node counts per rack separated by commas (e.g. 3,2,1), not '$spec'"
  for count in ${spec//,/ }; do sum=$((sum + count)); done
  ((sum == per_dc)) || die "--racks $spec places $sum node(s), but a DC has $per_dc (the counts must add up to it)"
}
node_jmx_port() { echo $((7000 + 100 * $(node_octet "$1"))); }
node_dir() { echo "$cluster_dir/node$1"; }
node_of_address() {
  local k
  for ((k = 1; k <= nodes; k++)); do
    [[ $(node_address "$k") == "$1" ]] && { echo "$k"; return; }
  done
  die "no node with address '$1' in $cluster_dir (nodes: $(for ((k = 1; k <= nodes; k++)); do printf '%s ' "$(node_address "$k")"; done))"
}
# The node's JVM pid while it lives (a killed JVM left unreaped by a slow init counts as gone).
node_pid() {
  local file pid
  file=$(node_dir "$1")/pid
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  alive "$pid" && echo "$pid"
  return 0
}
alive() { [[ $(process_state "$1") != stopped ]]; }
process_state() {
  local pid=$1
  [[ -n $pid ]] || { echo stopped; return; }
  local stat
  stat=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || stat=X
  case $stat in
    T | t) echo frozen ;;
    X | Z) echo stopped ;;
    *) echo running ;;
  esac
}

# ---- Maven: a tiny pom's runtime classpath, offline first ----
# maven_classpath DIR ARTIFACT_ID OUT_FILE WHAT DEPENDENCY_XML: writes DIR/pom.xml with the one dependency and
# resolves its runtime classpath into OUT_FILE.tmp (from ~/.m2, else from Maven Central); dies naming WHAT.
maven_classpath() {
  local mvn_dir=$1 artifact=$2 out_file=$3 what=$4 dependency=$5
  command -v mvn >/dev/null || die "mvn not found: install Maven (scripts/install-deps.sh)"
  mkdir -p "$mvn_dir"
  cat >"$mvn_dir/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cla.local</groupId><artifactId>$artifact</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    $dependency
  </dependencies>
</project>
EOF
  local goal=(dependency:build-classpath "-Dmdep.outputFile=$out_file.tmp" -Dmdep.includeScope=runtime)
  if ! (cd "$mvn_dir" && mvn -o -q -B "${goal[@]}") >"$mvn_dir/offline.log" 2>&1; then
    log "$what not complete in ~/.m2; resolving from Maven Central"
    if ! (cd "$mvn_dir" && mvn -q -B "${goal[@]}") >"$mvn_dir/online.log" 2>&1; then
      tail -n 20 "$mvn_dir/online.log" >&2
      die "Maven could not resolve $what (Maven Central unreachable or artifact missing; log: $mvn_dir/online.log)"
    fi
  fi
}

resolve_classpath() {
  local cp_file=$cluster_dir/classpath-$version.txt
  [[ -s $cp_file ]] && { echo "$cp_file"; return; }
  maven_classpath "$cluster_dir/maven" cassandra-classpath "$cp_file" \
    "org.apache.cassandra:cassandra-all:$version" \
    "<dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId>
      <version>$version</version></dependency>"
  mv "$cp_file.tmp" "$cp_file"
  echo "$cp_file"
}
classpath() { cat "$(resolve_classpath)"; }

# ---- Jolokia (--jolokia): the JVM agent's jar from Maven, like cassandra-all; one password a cluster ----
# The javaagent jar bundles what it needs: no dependency of its own to resolve.
resolve_jolokia_jar() {
  local jar_file=$cluster_dir/jolokia-$jolokia_version.txt
  [[ -s $jar_file && -f $(<"$jar_file") ]] && { cat "$jar_file"; return; }
  maven_classpath "$cluster_dir/maven-jolokia" jolokia-agent "$jar_file" \
    "org.jolokia:jolokia-agent-jvm:$jolokia_version:jar:javaagent" \
    "<dependency><groupId>org.jolokia</groupId><artifactId>jolokia-agent-jvm</artifactId>
      <version>$jolokia_version</version><classifier>javaagent</classifier>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>"
  [[ -f $(<"$jar_file.tmp") ]] || die "Maven resolved no jar for jolokia-agent-jvm $jolokia_version ($jar_file.tmp)"
  mv "$jar_file.tmp" "$jar_file"
  cat "$jar_file"
}
jolokia_password_file() { echo "$(realpath -m "$cluster_dir")/jolokia.password"; }
jolokia_url() { echo "http://$(node_address "$1"):8778/jolokia"; }
# The cluster's password, made once (mode 0600, as a secret file of the agent must be).
ensure_jolokia_password() {
  local file
  file=$(jolokia_password_file)
  [[ -s $file ]] && return
  (
    umask 077
    /usr/bin/python3 -I -c 'import secrets; print(secrets.token_urlsafe(24))' >"$file.tmp"
  )
  mv "$file.tmp" "$file"
}

require_java() {
  command -v java >/dev/null || die "java not found: Cassandra 5.0 needs a JDK 17 (scripts/install-deps.sh)"
  local major
  major=$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
  [[ $major == 11 || $major == 17 ]] || die "java is version '$major': Cassandra 5.0 runs on JDK 11 or 17"
}

port_in_use() { ss -Hltn "sport = :$2" 2>/dev/null | awk '{print $4}' | grep -qE "^($1|0\.0\.0\.0|\*|\[::\]):$2$"; }
# A port still held a few seconds after a kill (the JVM exiting) is waited for; longer, it is an error.
check_ports_free() {
  local k=$1 address jmx deadline=$((SECONDS + 15)) busy
  address=$(node_address "$k")
  jmx=$(node_jmx_port "$k")
  while :; do
    busy=""
    for port in 7000 9042 ${jolokia:+8778}; do port_in_use "$address" "$port" && busy="$address:$port"; done
    port_in_use 127.0.0.1 "$jmx" && busy="127.0.0.1:$jmx (JMX of $address)"
    [[ -n $busy ]] || return 0
    ((SECONDS < deadline)) || die "port $busy is in use (another cluster? CASSANDRA_FIRST_HOST shifts the addresses)"
    sleep 1
  done
}

# detach OUT CMD...: CMD in a session of its own, output to OUT, holding no fd of ours (a caller reading our
# output until EOF, such as an agent's restart_command, must not wait for the daemon).
detach() {
  local out=$1
  shift
  (
    for fd in "/proc/$BASHPID/fd/"*; do
      fd=${fd##*/}
      ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
    done
    exec setsid "$@" </dev/null >"$out" 2>&1
  ) &
}

# ---- one node ----
launch_node() { # K [JVM_FLAG...]
  local k=$1 dir cp
  shift
  dir=$(node_dir "$k")
  check_ports_free "$k"
  cp=$(classpath)
  [[ -f $dir/logs/system.log ]] && mv "$dir/logs/system.log" "$dir/logs/system.log.prev"
  local flags jar=""
  if [[ -n $jolokia ]]; then
    jar=$(resolve_jolokia_jar)
    write_jolokia_conf "$dir" "$(node_address "$k")" "$jolokia_user" "$(jolokia_password_file)" \
      "${JOLOKIA_POLICY_FILE:-$cla_root/scripts/cluster/jolokia-access.xml}"
  fi
  mapfile -t flags < <(server_jvm_flags "$dir" "$(node_jmx_port "$k")" "$jar")
  local property
  for property in ${jvm_properties:-}; do flags+=("-D$property"); done
  flags+=("$@")
  detach "$dir/logs/stdout.log" java "${flags[@]}" -cp "$dir/conf:$cp" org.apache.cassandra.service.CassandraDaemon
  echo $! >"$dir/pid"
}

# wait_node_listening K [MARK]: until the node's log shows MARK (default: its native transport listening).
wait_node_listening() {
  local k=$1 mark=${2:-Starting listening for CQL clients} deadline=$((SECONDS + node_up_limit_s)) dir
  dir=$(node_dir "$k")
  until grep -q "$mark" "$dir/logs/system.log" 2>/dev/null; do
    if [[ -z $(node_pid "$k") ]]; then
      tail -n 30 "$dir/logs/system.log" "$dir/logs/stdout.log" >&2 2>/dev/null || true
      die "node $(node_address "$k") exited while starting (logs above: $dir/logs)"
    fi
    if ((SECONDS > deadline)); then
      tail -n 30 "$dir/logs/system.log" >&2 2>/dev/null || true
      die "node $(node_address "$k") not up within ${node_up_limit_s}s (log above: $dir/logs/system.log)"
    fi
    sleep 1
  done
}

# Every node's `nodetool status` shows every node UN (the views are asked in parallel).
all_up_in_every_view() {
  local k views ok=0
  views=$(mktemp -d)
  local pids=()
  for ((k = 1; k <= nodes; k++)); do
    run_nodetool "$k" status >"$views/$k" 2>/dev/null &
    pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || ok=1; done
  for ((k = 1; k <= nodes; k++)); do
    [[ $(grep -c '^UN ' "$views/$k") -eq $nodes ]] || ok=1
  done
  rm -rf "$views"
  return $ok
}
wait_all_up_in_every_view() {
  wait_poll_s=1 wait_until "$node_up_limit_s" "every node UN in every view (see $0 nodetool ADDRESS status)" \
    all_up_in_every_view
}

# nodetool_argv K ARGS...: bin/nodetool's command line against node K, into the array nodetool_cmd.
nodetool_argv() {
  local k=$1 dir
  shift
  dir=$(node_dir "$k")
  # A nodetool call is a short JVM whose start is the drain path's cost: C1 alone and the serial collector take
  # it from ~2.7 to ~1.1 CPU-seconds here (JAVA_TOOL_OPTIONS does the same for Cassandra's own bin/nodetool,
  # deploy/README.md).
  nodetool_cmd=(java -ea -cp "$(classpath)" "${CASSANDRA_JPMS_FLAGS[@]}" -Xmx128m
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "-Dcassandra.storagedir=$dir/data"
    "-Dlogback.configurationFile=file://$dir/conf/logback-tools.xml"
    org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$(node_jmx_port "$k")" "$@")
}
run_nodetool() {
  local nodetool_cmd
  nodetool_argv "$@"
  "${nodetool_cmd[@]}"
}

# One CQL statement through the Python driver (Debian's python3-cassandra) against ADDRESS alone, at the
# driver's default consistency (LOCAL_ONE; a schema change waits for agreement).
run_cql() { # ADDRESS STATEMENT...: each statement in turn, on one connection
  /usr/bin/python3 -I - "$@" <<'EOF'
import sys
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import WhiteListRoundRobinPolicy
profile = ExecutionProfile(load_balancing_policy=WhiteListRoundRobinPolicy([sys.argv[1]]), request_timeout=30)
cluster = Cluster([sys.argv[1]], execution_profiles={EXEC_PROFILE_DEFAULT: profile}, protocol_version=5)
session = cluster.connect()
for statement in sys.argv[2:]:
    session.execute(statement)
cluster.shutdown()
EOF
}

# lifecycle at RF 3 in every DC: {'dc1': 3} or, with --dcs 2, {'dc1': 3, 'dc2': 3}; with 2 DCs the replicated
# system keyspaces too, as operators of a multi-DC cluster set them (SimpleStrategy places replicas without
# regard to DCs; the cluster is new and empty, so no repair is needed).
create_keyspace() {
  local replication="{'class': 'NetworkTopologyStrategy', 'dc1': 3}" statements=() keyspace
  [[ ${dcs:-1} == 1 ]] || replication="{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}"
  statements=("CREATE KEYSPACE IF NOT EXISTS lifecycle WITH replication = $replication")
  if [[ ${dcs:-1} != 1 ]]; then
    for keyspace in system_auth system_distributed system_traces; do
      statements+=("ALTER KEYSPACE $keyspace WITH replication = $replication")
    done
  fi
  run_cql "$(node_address 1)" "${statements[@]}" ||
    die "could not create keyspace lifecycle (python3-cassandra installed? scripts/install-deps.sh)"
}

# ---- commands ----
cmd_start_cluster() {
  local want_nodes=3 want_tokens=1 want_dcs=1 want_racks="" want_jolokia="" want_properties=""
  while (($#)); do
    case $1 in
      --nodes) want_nodes=${2:?--nodes needs 3 or 6}; shift 2 ;;
      --num-tokens) want_tokens=${2:?--num-tokens needs a number}; shift 2 ;;
      --dcs) want_dcs=${2:?--dcs needs 1 or 2}; shift 2 ;;
      --racks) want_racks=${2:?--racks needs node counts, e.g. 3,2,1}; shift 2 ;;
      --jolokia) want_jolokia=1; shift ;;
      --jvm-property)
        [[ ${2:-} =~ ^[A-Za-z][A-Za-z0-9_.-]*=[A-Za-z0-9_.:/-]*$ ]] ||
          die "--jvm-property needs NAME=VALUE (letters, digits, . _ - : / only), not '${2:-}'"
        want_properties+="${want_properties:+ }$2"
        shift 2
        ;;
      --dir) cluster_dir=${2:?--dir needs a directory}; shift 2 ;;
      *) die "start: unknown argument '$1' (see --help)" ;;
    esac
  done
  [[ $want_nodes == 3 || $want_nodes == 6 ]] || die "--nodes must be 3 or 6, not '$want_nodes'"
  [[ $want_tokens =~ ^[1-9][0-9]{0,2}$ ]] || die "--num-tokens must be 1..999, not '$want_tokens'"
  [[ $want_dcs == 1 || $want_dcs == 2 ]] || die "--dcs must be 1 or 2, not '$want_dcs'"
  [[ $want_dcs == 1 || $want_nodes == 6 ]] || die "--dcs 2 needs --nodes 6 (three nodes a DC)"
  [[ -z $want_racks ]] || check_racks "$want_racks" $((want_nodes / want_dcs))
  require_java
  mkdir -p "$cluster_dir"
  cluster_dir=$(cd "$cluster_dir" && pwd)
  if [[ -f $cluster_dir/cluster.env ]]; then
    load_layout
    [[ $nodes == "$want_nodes" && ${num_tokens:-1} == "$want_tokens" && ${dcs:-1} == "$want_dcs" &&
      ${racks:-} == "$want_racks" && ${jolokia:-} == "$want_jolokia" && ${jvm_properties:-} == "$want_properties" ]] ||
      die "$cluster_dir holds a cluster of $nodes nodes, ${num_tokens:-1} tokens, ${dcs:-1} DC(s), racks '${racks:-}', jolokia '${jolokia:-}', JVM properties '${jvm_properties:-}'; remove it to start another"
  else
    printf 'nodes=%s\nfirst_host=%s\nnum_tokens=%s\ndcs=%s\nracks=%s\njolokia=%s\n' "$want_nodes" \
      "${CASSANDRA_FIRST_HOST:-1}" "$want_tokens" "$want_dcs" "$want_racks" "$want_jolokia" >"$cluster_dir/cluster.env"
    printf 'jvm_properties=%q\n' "$want_properties" >>"$cluster_dir/cluster.env"
    load_layout
  fi
  local started=$SECONDS k seeds=""
  for ((k = 1; k <= nodes; k++)); do
    [[ -z $(node_pid "$k") ]] || die "node $(node_address "$k") is already running (pid $(node_pid "$k")); $0 stop first"
    seeds+="${seeds:+,}$(node_address "$k"):7000"
  done
  resolve_classpath >/dev/null
  if [[ -n $jolokia ]]; then
    resolve_jolokia_jar >/dev/null
    ensure_jolokia_password
  fi
  local per_dc dc_index
  per_dc=$(nodes_per_dc)
  for ((k = 1; k <= nodes; k++)); do
    dc_index=$(((k - 1) / per_dc))
    write_node_conf "$(node_dir "$k")" "$(node_address "$k")" "$(node_rack "$k")" \
      "$(node_token $(((k - 1) % per_dc)) "$per_dc" $((100 * dc_index)))" "$seeds" "$(node_dc "$k")" "${num_tokens:-1}"
    launch_node "$k"
  done
  for ((k = 1; k <= nodes; k++)); do wait_node_listening "$k"; done
  log "every node listening for CQL after $((SECONDS - started)) s"
  wait_all_up_in_every_view
  log "every node UN in every view after $((SECONDS - started)) s"
  create_keyspace
  say "$nodes nodes UN in every view, keyspace lifecycle ready in $((SECONDS - started)) s ($cluster_dir)${jolokia:+; Jolokia on port 8778 of each node}"
}

cmd_start_node() { # ADDRESS [--no-binary]
  load_layout
  local k started=$SECONDS
  k=$(node_of_address "$1")
  case ${2:-} in
    "" | --no-binary) ;;
    *) die "start $1: unknown option '$2' (only --no-binary)" ;;
  esac
  (($# <= 2)) || die "start $1 $2: one option at most, not '${*:3}'"
  if [[ -n $(node_pid "$k") ]]; then
    log "node $1 is running (pid $(node_pid "$k")): killing it to restart it"
    kill_nodes "$k"
  fi
  if [[ ${2:-} == --no-binary ]]; then
    launch_node "$k" -Dcassandra.start_native_transport=false
    wait_node_listening "$k" "Startup complete"
  else
    launch_node "$k"
    wait_node_listening "$k"
  fi
  wait_all_up_in_every_view
  say "node $1 UN in every view in $((SECONDS - started)) s${2:+, its native transport off until nodetool enablebinary}"
}

# One node more, bootstrapping: what `nodetool status` shows UJ while it streams. Its token (one token a node) is
# the midpoint of the first two nodes'; with more, Cassandra picks random ones. cluster.env counts it, so stop
# and status include it.
cmd_join() {
  load_layout
  local hold_s="" flags=() mark="JOINING:"
  while (($#)); do
    case $1 in
      --hold-s) hold_s=${2:?--hold-s needs SECONDS}; shift 2 ;;
      *) die "join: unknown argument '$1' (only --hold-s SECONDS)" ;;
    esac
  done
  if [[ -n $hold_s ]]; then
    [[ $hold_s =~ ^[1-9][0-9]{0,5}$ ]] || die "join: --hold-s must be 1..999999 seconds, not '$hold_s'"
    # RING_DELAY: how long a bootstrapping node sleeps after gossiping its tokens (STATUS BOOT) before it streams.
    flags=("-Dcassandra.ring_delay_ms=$((hold_s * 1000))")
    mark="JOINING: sleeping $((hold_s * 1000)) ms for pending range setup"
  fi
  [[ ${dcs:-1} == 1 ]] || die "join: a cluster of one DC only (this one has ${dcs:-1})"
  [[ -z ${racks:-} ]] || die "join: not with --racks (the layout names the racks of $nodes nodes only)"
  [[ $nodes == 3 || $nodes == 6 ]] || die "join: the cluster has $nodes nodes; join adds one node once, to 3 or 6"
  local k=$((nodes + 1)) seeds="" i started=$SECONDS
  for ((i = 1; i < k; i++)); do
    [[ -n $(node_pid "$i") ]] || die "node $(node_address "$i") is not running: join needs the whole cluster"
    seeds+="${seeds:+,}$(node_address "$i"):7000" # not the new node: a seed does not bootstrap
  done
  sed -i "s/^nodes=.*/nodes=$k/" "$cluster_dir/cluster.env"
  load_layout
  write_node_conf "$(node_dir "$k")" "$(node_address "$k")" "$(node_rack "$k")" \
    "$(node_token 1 $((2 * (k - 1))))" "$seeds" dc1 "${num_tokens:-1}" true
  launch_node "$k" "${flags[@]}"
  wait_node_listening "$k" "$mark"
  say "node $(node_address "$k") ($(node_rack "$k")) joining after $((SECONDS - started)) s${hold_s:+, held ${hold_s} s before it streams}: see $0 nodetool $(node_address 1) status"
}

# The Host ID column of `nodetool status` for ADDRESS, as node K sees it ("" when it is not listed).
host_id_in_view() {
  run_nodetool "$1" status 2>/dev/null |
    awk -v a="$2" '$2 == a { for (i = 3; i <= NF; i++) if (length($i) == 36 && $i ~ /^[0-9a-f-]+$/) print $i }'
}
# No node of 1..N lists ADDRESS in its `nodetool status` (every view asked and answered).
unlisted_in_every_view() {
  local n=$1 address=$2 k out
  for ((k = 1; k <= n; k++)); do
    out=$(run_nodetool "$k" status 2>/dev/null) || return 1
    awk -v a="$address" '$2 == a { found = 1 } END { exit !found }' <<<"$out" && return 1
  done
  return 0
}

# The node join added, out for good (see usage): the cluster as start left it.
cmd_remove() {
  load_layout
  local address=${1:?remove needs ADDRESS} k i started=$SECONDS host_id="" before
  (($# == 1)) || die "remove takes one ADDRESS, not '$*'"
  k=$(node_of_address "$address")
  before=$((k - 1))
  [[ ${dcs:-1} == 1 && -z ${racks:-} && ($before == 3 || $before == 6) && $k == "$nodes" ]] ||
    die "remove: only the node join added (the last of 4 or 7 in one DC), not $address of $nodes"
  for ((i = 1; i <= before; i++)); do
    [[ -n $(node_pid "$i") ]] || die "node $(node_address "$i") is not running: remove needs every other node"
    [[ -n $host_id ]] || host_id=$(host_id_in_view "$i" "$address")
  done
  kill_nodes "$k"
  if [[ -z $host_id ]]; then
    log "no node lists $address: nothing to remove from the ring"
  elif run_nodetool 1 removenode "$host_id" >"$cluster_dir/remove.log" 2>&1; then
    log "removenode $host_id ($address) done"
  elif grep -q "not a member of the token ring" "$cluster_dir/remove.log"; then
    # A node that never finished joining has no normal tokens; assassinate sleeps RING_DELAY (30 s) first.
    log "$address never joined the ring: assassinate (about 35 s)"
    run_nodetool 1 assassinate "$address" >>"$cluster_dir/remove.log" 2>&1 ||
      { cat "$cluster_dir/remove.log" >&2; die "nodetool assassinate $address failed"; }
  else
    cat "$cluster_dir/remove.log" >&2
    die "nodetool removenode $host_id ($address) failed"
  fi
  sed -i "s/^nodes=.*/nodes=$before/" "$cluster_dir/cluster.env"
  rm -rf "$(node_dir "$k")"
  load_layout
  wait_poll_s=1 wait_until "$node_up_limit_s" "$address gone from every node's status" \
    unlisted_in_every_view "$before" "$address"
  wait_all_up_in_every_view
  say "node $address removed in $((SECONDS - started)) s; $nodes nodes UN in every view"
}

cmd_status() {
  load_layout
  local k pid jolokia_fields=""
  for ((k = 1; k <= nodes; k++)); do
    pid=$(node_pid "$k")
    [[ -z $jolokia ]] ||
      jolokia_fields=$(printf ',"jolokia_url":"%s","jolokia_user":"%s","jolokia_password_file":"%s"' \
        "$(jolokia_url "$k")" "$jolokia_user" "$(jolokia_password_file)")
    printf '{"address":"%s","rack":"%s","jmx_port":%s,"pid":%s,"state":"%s"%s}\n' "$(node_address "$k")" \
      "$(node_rack "$k")" "$(node_jmx_port "$k")" "${pid:-null}" "$(process_state "$pid")" "$jolokia_fields"
  done
}

cmd_cql() {
  load_layout
  node_of_address "${1:?cql needs ADDRESS}" >/dev/null
  run_cql "$1" "${2:?cql needs a STATEMENT}"
}

cmd_nodetool() {
  load_layout
  local k nodetool_cmd
  k=$(node_of_address "${1:?nodetool needs ADDRESS}")
  shift
  nodetool_argv "$k" "$@"
  exec "${nodetool_cmd[@]}"
}

stop_freezer() {
  local file
  file=$(node_dir "$1")/freezer.pid
  [[ -f $file ]] || return 0
  kill -TERM "$(<"$file")" 2>/dev/null || true
  rm -f "$file"
}

cmd_freeze() {
  load_layout
  local address=${1:?freeze needs ADDRESS SECONDS} seconds=${2:?freeze needs ADDRESS SECONDS} k pid
  [[ $seconds =~ ^[0-9]+$ ]] || die "freeze: SECONDS must be a whole number, not '$seconds'"
  k=$(node_of_address "$address")
  pid=$(node_pid "$k")
  [[ -n $pid ]] || die "node $address is not running"
  stop_freezer "$k"
  kill -STOP "$pid"
  # The sleeper continues the node when its time is up or when it is told to stop (SIGTERM).
  # shellcheck disable=SC2016 # the inner bash expands them
  detach /dev/null bash -c 'sleep "$1" & s=$!; trap "kill \$s; kill -CONT $0; exit 0" TERM; wait $s; kill -CONT $0' \
    "$pid" "$seconds"
  echo $! >"$(node_dir "$k")/freezer.pid"
  say "node $address (pid $pid) frozen for $seconds s (sleeper pid $!)"
}

# kill_nodes K...: SIGKILL them all, then wait until every one is gone.
kill_nodes() {
  local k pid pids=()
  for k in "$@"; do
    pid=$(node_pid "$k")
    stop_freezer "$k"
    [[ -n $pid ]] || continue
    kill -KILL "$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  for pid in "${pids[@]}"; do
    while alive "$pid"; do sleep 0.1; done
  done
  for k in "$@"; do rm -f "$(node_dir "$k")/pid"; done
}

cmd_kill() {
  load_layout
  local k
  k=$(node_of_address "${1:?kill needs ADDRESS}")
  [[ -n $(node_pid "$k") ]] || die "node $1 is not running"
  kill_nodes "$k"
  say "node $1 killed"
}

cmd_stop() {
  [[ -f $cluster_dir/cluster.env ]] || { log "no cluster in $cluster_dir"; return 0; }
  load_layout
  kill_nodes $(seq 1 "$nodes")
  say "stopped ($cluster_dir)"
}

if [[ ${1:-} == --dir ]]; then
  cluster_dir=${2:?--dir needs a directory}
  shift 2
fi
case ${1:-} in
  -h | --help | help) usage ;;
  start)
    shift
    if [[ ${1:-} =~ ^127\. ]]; then cmd_start_node "$@"; else cmd_start_cluster "$@"; fi
    ;;
  join) shift; cmd_join "$@" ;;
  remove) shift; cmd_remove "$@" ;;
  status) cmd_status ;;
  nodetool) shift; cmd_nodetool "$@" ;;
  cql) shift; cmd_cql "$@" ;;
  freeze) shift; cmd_freeze "$@" ;;
  kill) shift; cmd_kill "$@" ;;
  stop) cmd_stop ;;
  "") usage >&2; exit 2 ;;
  *) die "unknown command '$1' (see --help)" ;;
esac
