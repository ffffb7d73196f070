#!/usr/bin/env bash
# Drain and restore cycles of one node of the real cluster by the real agent, with each backend (SPEC 10, issue
# 34): per step latency from the drain timer, CPU-seconds per drain, per restore and per gate check.
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-drain.sh [--backend nodetool|jolokia] [--hog] [--cycles N] [--lead-s N] [--announce-ms MS]
                              [--bin-dir DIR]
  The cluster of scripts/cassandra-cluster.sh started --jolokia (started if not every node runs) in its own
  directory, build/bench-drain-cluster, on 127.0.0.41-43 (CASSANDRA_FIRST_HOST, default 41 here), so it never
  meets the real suite's cluster or another bench's. imds-emulator on 127.0.0.1 (no impact hook: the node is never
  really frozen, the bench measures the agent's path, not Cassandra's recovery) and build/bin/cassandra-lifecycle-
  agent for vm1, the node on 127.0.0.41 (rack1), at the packaged unit's Nice=-5, its log at debug level, its
  policy: drain_lead_s --lead-s (default 2), unsafe_drain_lead_s 1, no_impact_freeze_max_s 0. For each backend
  (both by default, nodetool first; --backend: one), a fresh agent (and emulator) through one warm-up cycle (not
  counted: with no drain measured yet, the agent plans its first drain from single calls' durations) and
  --cycles N (default 20) measured ones, one after the other. A cycle: a platform Freeze of vm1 whose NotBefore
  leaves the drain timer (NotBefore - drain_lead_s - the agent's expected_drain_s, predicted from its state file
  as the agent computes it) 2-3 s after the event appears; the agent asks the gate, runs disablebinary and
  disablegossip, approves; the emulator starts the event at the approval and removes it 2 s later (duration 1 s,
  completion 1 s); the agent restores (enablegossip, enablebinary, then statusgossip and statusbinary). The next
  cycle waits until the node and its peers all see every node up (Jolokia reads, no JVM).
  Every cycle must drain (drain_completed), approve (event_approved, and the emulator saw the approval) and restore
  (restore_completed), without a forced, unsafe or failed drain: else the bench fails.
  --hog          two busy loops hold both cores through every run, at the bench's own niceness (the cluster's)
  --lead-s N     the agent's policy.drain_lead_s (default 2)
  --announce-ms MS  NOT CASSANDRA'S DEFAULT: the nodes run with -Dcassandra.shutdown_announce_in_ms=MS, the sleep
                 of Gossiper.stop after it told its peers it is going down (2000 ms by default, what disablegossip
                 waits for): a cluster of its own, build/bench-drain-cluster-announce-MS (the other bench cluster on
                 the same addresses is stopped first). Every table and the last line then say announce_ms=MS
Figures (scripts/bench/drain_report.py), per backend: latency p50/p99/max, ms, of the agent's wake-up (timer ->
gate asked), the gate check, each drain step (drain_step_done's command_ms), the drain from its timer to
drain_completed, the approval, when the node's peers marked it DOWN after stopGossiping began (their system.log),
the restore's calls (nodetool_ran) and the restore as a whole; CPU-seconds per gate check, per drain (its timer
to drain_completed, gate included) and per restore. CPU: the agent runs in a cgroup of its own (cgroup v1
cpuacct, joined before it execs), so every process it starts (nodetool's wrapper script and JVM) is counted from
its first instruction, reaped or not; the cgroup's cpuacct.usage (ns) is sampled every 10 ms and read at each
instant of the agent's log by interpolation. Cassandra's own JVM is NOT counted (the Jolokia requests run there;
it is the same cluster for both backends). Last line:
  drain_p99_ms_nodetool=N drain_p99_ms_jolokia=N gate_p99_ms_nodetool=N gate_p99_ms_jolokia=N
  cpu_s_per_drain_nodetool=N cpu_s_per_drain_jolokia=N          (-1 for a backend not run)
Environment: CASSANDRA_CLUSTER_DIR, CASSANDRA_FIRST_HOST (as cassandra-cluster.sh; defaults above); BENCH_KEEP=1
keeps the work dir (the agents' logs, the CPU samples, the nodes' system.log). About 8 min a backend for 20
cycles idle, more with --hog; the nodetool runs are the long ones.
EOF
}

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$cla_root
bin_dir=$root/build/bin backends=(nodetool jolokia) hog=0 cycles=20 lead_s=2 announce_ms=""
while (($#)); do
  case $1 in
    --backend) backends=("${2:?--backend needs nodetool or jolokia}"); shift 2 ;;
    --hog) hog=1; shift ;;
    --cycles) cycles=${2:?--cycles needs a number}; shift 2 ;;
    --lead-s) lead_s=${2:?--lead-s needs seconds}; shift 2 ;;
    --announce-ms) announce_ms=${2:?--announce-ms needs milliseconds}; shift 2 ;;
    --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
[[ ${backends[0]} == nodetool || ${backends[0]} == jolokia ]] ||
  usage_error "--backend must be nodetool or jolokia, not '${backends[0]}'"
[[ $cycles =~ ^[1-9][0-9]*$ ]] || usage_error "--cycles must be a positive number, not '$cycles'"
[[ $lead_s =~ ^[1-9][0-9]*$ ]] || usage_error "--lead-s must be a positive number of seconds, not '$lead_s'"
[[ -z $announce_ms || $announce_ms =~ ^[0-9]+$ ]] || usage_error "--announce-ms must be milliseconds, not '$announce_ms'"
require_tools --hint scripts/install-deps.sh jq curl || exit 1
require_bins "$bin_dir" "--bin-dir" cassandra-lifecycle-agent imds-emulator || exit 1
cpuacct=/sys/fs/cgroup/cpuacct
[[ -w $cpuacct && -r $cpuacct/cpuacct.usage ]] ||
  usage_error "$cpuacct (cgroup v1 cpuacct) is not writable here: the bench counts the agent's children there"
progress() { log "$(date +%T) $*"; }

# ---- the cluster: its own directory and addresses ----------------------------------------------------------------
cluster=$root/scripts/cassandra-cluster.sh
export CASSANDRA_FIRST_HOST=${CASSANDRA_FIRST_HOST:-41}
export CASSANDRA_CLUSTER_DIR=${CASSANDRA_CLUSTER_DIR:-$root/build/bench-drain-cluster${announce_ms:+-announce-$announce_ms}}
announce_property=${announce_ms:+cassandra.shutdown_announce_in_ms=$announce_ms}
nodes_status=$("$cluster" status 2>/dev/null) || nodes_status=""
if [[ -z $nodes_status ]] || grep -qv '"state":"running"' <<<"$nodes_status"; then
  for other in "$root"/build/bench-drain-cluster*/; do # the bench's other cluster holds the same addresses
    [[ ${other%/} -ef $CASSANDRA_CLUSTER_DIR ]] || "$cluster" --dir "$other" stop >/dev/null
  done
  "$cluster" stop >/dev/null
  "$cluster" start --jolokia ${announce_property:+--jvm-property "$announce_property"} >&2
  nodes_status=$("$cluster" status)
fi
# The cluster runs with the announce the bench was asked for.
require_cluster_jvm_properties "$CASSANDRA_CLUSTER_DIR" "$announce_property"
announce_label=""
[[ -z $announce_ms ]] || announce_label=", announce_ms=$announce_ms (NOT Cassandra's default 2000)"
jq -e -s 'length == 3 and all(.jolokia_url)' <<<"$nodes_status" >/dev/null ||
  die "$CASSANDRA_CLUSTER_DIR is not a 3-node cluster started --jolokia (remove it, or name another CASSANDRA_CLUSTER_DIR)"
mapfile -t addresses < <(jq -r .address <<<"$nodes_status")
node=${addresses[0]}
node_json=$(head -n 1 <<<"$nodes_status")
cluster_dir=$(cd "$CASSANDRA_CLUSTER_DIR" && pwd)

make_work_dir cla-bench-drain # removed at exit unless BENCH_KEEP=1 or the bench failed
keep_work=${BENCH_KEEP:-0} kept_note="logs kept in %s"
# Jolokia's credentials for the bench's own reads, in a curl config file (never on a command line).
(
  umask 077
  printf 'user = "%s:%s"\n' "$(jq -r .jolokia_user <<<"$node_json")" \
    "$(<"$(jq -r .jolokia_password_file <<<"$node_json")")" >"$work/jolokia.curlrc"
)

# jolokia_read ADDRESS: the node's view (LiveNodes, UnreachableNodes, GossipRunning, NativeTransportRunning).
jolokia_read() {
  curl -sf --noproxy '*' -K "$work/jolokia.curlrc" -H 'Content-Type: application/json' \
    -d '{"type":"read","mbean":"org.apache.cassandra.db:type=StorageService","attribute":["LiveNodesWithPort",
      "UnreachableNodesWithPort","GossipRunning","NativeTransportRunning"]}' "http://$1:8778/jolokia/" | jq -c .value
}
# Every node sees all three up and none unreachable; the drained node gossips and serves clients again.
cluster_settled() {
  local a view
  for a in "${addresses[@]}"; do
    view=$(jolokia_read "$a") || return 1
    jq -e '(.LiveNodesWithPort | length) == 3 and (.UnreachableNodesWithPort | length) == 0 and
      .GossipRunning and .NativeTransportRunning' <<<"$view" >/dev/null || return 1
  done
}

# ---- the hog and the CPU sampler ---------------------------------------------------------------------------------
if ((hog)); then
  for _ in 1 2; do
    bash -c 'while :; do :; done' &
    cleanup_pid $!
  done
fi
# cpu_sampler CGROUP OUT: "epoch_us usage_ns" of the cgroup every 10 ms (bash builtins only: no fork a sample).
cpu_sampler() {
  local usage tick
  exec {tick}<> <(:) # a pipe nobody writes: read -t on it is a sleep without a fork
  while :; do
    read -r usage <"$1/cpuacct.usage"
    printf '%s %s\n' "${EPOCHREALTIME/./}" "$usage"
    read -rt 0.01 -u "$tick" || true
  done >"$2"
}

# ---- one backend's run -------------------------------------------------------------------------------------------
# The drain the agent expects next (SPEC 3.3, state/core_drain.cpp's expected_drain): 1.5 x the longest of its
# last five measured drains (state file), capped at 300 s; before any, 1.5 x three times its longest recent call.
expected_drain_ms() {
  local longest
  longest=$(jq '.drain_durations_ms // [] | .[-5:] | max // empty' "$run_dir/agent/state.json" 2>/dev/null) || true
  if [[ -z $longest ]]; then
    longest=$(jq -s '[.[] | select(.msg == "nodetool_ran" and .ok) | .duration_ms] | .[-5:] | (max // 1000) * 3' \
      "$run_dir/agent/agent.jsonl")
  fi
  local ms=$((longest + longest / 2))
  echo $((ms < 300000 ? ms : 300000))
}
agent_started_up() {
  alive_or_die "$agent_pid" "the agent" "$run_dir/agent/stderr"
  grep -qsE '"msg":"(schema_refreshed|gate_fallback)"' "$run_dir/agent/agent.jsonl"
}
cycle_done() { # N: the agent's Nth restore_completed (a failed drain ends the wait at once)
  alive_or_die "$agent_pid" "the agent" "$run_dir/agent/stderr"
  ! grep -qsE '"msg":"(nodetool_failed|drain_forced_unsafe|restore_failed|restart_required)"' "$run_dir/agent/agent.jsonl" ||
    die "$backend: the agent logged a failed or forced drain or restore: $(grep -E '"msg":"(nodetool_failed|drain_forced_unsafe|restore_failed|restart_required)"' "$run_dir/agent/agent.jsonl" | head -n 1)"
  lines_at_least "$run_dir/agent/agent.jsonl" '"msg":"restore_completed"' "$1"
}
approved_by_emulator() { # EVENT_ID
  curl -sf --noproxy '*' "$admin/admin/approvals" |
    jq -e --arg id "$1" 'any(.[]; (.event_id | ascii_upcase) == ($id | ascii_upcase))' >/dev/null
}

play_cycle() { # INDEX KIND
  local expected notice id
  expected=$(expected_drain_ms)
  # The timer NotBefore - lead - expected then comes 2-3 s after the post: after the agent's next 1 Hz poll even
  # when NotBefore (whole seconds in the document) is rounded down.
  notice=$((lead_s + (expected + 999) / 1000 + 3))
  id=$(post_event "{\"type\":\"Freeze\",\"resources\":[\"vm1\"],\"not_before_in_s\":$notice,\"duration_s\":1,\"complete_after_s\":1}")
  echo "$id $2" >>"$run_dir/events"
  progress "$backend cycle $1 ($2): event $id, NotBefore in $notice s, the agent expects a $expected ms drain"
  wait_until $((notice + 180)) "$backend cycle $1: event $id drained, approved and restored" cycle_done $(($1 + 1))
  approved_by_emulator "$id" || die "$backend cycle $1: the emulator saw no approval of $id"
  wait_until 120 "every node to see every node up after cycle $1" cluster_settled
}

declare -A summary=()
run_backend() {
  backend=$1 run_dir=$work/$1
  mkdir -p "$run_dir"
  local cgroup=$cpuacct/cla-bench-drain-$$-$backend config sampler k
  mkdir "$cgroup"
  cleanup_cmd rmdir "$cgroup"
  echo "== $backend: $(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg)$( ((hog)) && echo ', with the hog')$announce_label"
  wait_until 120 "every node to see every node up" cluster_settled
  start_emulator "$bin_dir/imds-emulator" "$run_dir" vm1,0
  config=$(jq -n --arg endpoint "http://$(emulator_vm_address "$run_dir" vm1)" --arg cluster "$cluster" \
    --arg dir "$cluster_dir" --arg node "$node" --arg backend "$backend" --arg lead "$lead_s" \
    --argjson status "$node_json" '{
      imds: {endpoint: $endpoint},
      cassandra: {nodetool: [$cluster, "--dir", $dir, "nodetool", $node], backend: $backend,
        jolokia: {url: $status.jolokia_url, username: $status.jolokia_user,
          password_file: $status.jolokia_password_file}},
      policy: {drain_lead_s: ($lead | tonumber), unsafe_drain_lead_s: 1, no_impact_freeze_max_s: 0},
      log: {level: "debug"},
      http: {listen: "127.0.0.1:0"}}')
  # The packaged unit's Nice=-5 whatever the bench's own niceness (nice -n is relative).
  agent_nice=$((-5 - $(nice))) agent_cgroup=$cgroup start_agent "$bin_dir/cassandra-lifecycle-agent" \
    "$run_dir/agent" "$config"
  agent_pid=$agent_started
  cpu_sampler "$cgroup" "$run_dir/cpu" &
  sampler=$!
  cleanup_pid "$sampler"
  wait_until 300 "the $backend agent's start-up (its checks and first schema refresh)" agent_started_up
  : >"$run_dir/events"
  sleep 10 # the agent only polling: its idle CPU, the floor under every figure below
  play_cycle 0 warmup
  for ((k = 1; k <= cycles; k++)); do play_cycle "$k" measured; done
  sleep 0.1 # a last CPU sample after the last restore
  stop_pids "$agent_pid" "$sampler" "$emulator_pid"
  # The nodes' logs as they are now (a later start of the cluster moves system.log aside).
  local k_node
  for k_node in 1 2 3; do cp "$cluster_dir/node$k_node/logs/system.log" "$run_dir/node$k_node.system.log"; done
  /usr/bin/python3 -I "$root/scripts/bench/drain_report.py" --log "$run_dir/agent/agent.jsonl" \
    --events "$run_dir/events" --cpu "$run_dir/cpu" --lead-s "$lead_s" --address "$node" \
    --node-log "$run_dir/node1.system.log" --peer-log "$run_dir/node2.system.log" --peer-log "$run_dir/node3.system.log" \
    --title "$backend$( ((hog)) && echo ' (hog)')$announce_label" >"$run_dir/table" ||
    die "$backend: the cycles' figures failed (logs: $run_dir)"
  grep -v '^summary ' "$run_dir/table"
  echo "   load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  summary[$backend]=$(sed -n 's/^summary //p' "$run_dir/table")
}

for b in "${backends[@]}"; do run_backend "$b"; done
echo "CPU: the agent's cgroup (cpuacct.usage), the agent and every process it started; Cassandra's JVM not counted."
field() { # BACKEND KEY -> the value, -1 for a backend not run
  local s=${summary[$1]:-}
  [[ -n $s ]] || { echo -1; return; }
  sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$s"
}
echo "drain_p99_ms_nodetool=$(field nodetool drain_p99_ms) drain_p99_ms_jolokia=$(field jolokia drain_p99_ms)" \
  "gate_p99_ms_nodetool=$(field nodetool gate_p99_ms) gate_p99_ms_jolokia=$(field jolokia gate_p99_ms)" \
  "cpu_s_per_drain_nodetool=$(field nodetool cpu_s_per_drain) cpu_s_per_drain_jolokia=$(field jolokia cpu_s_per_drain)$(
    [[ -z $announce_ms ]] || echo " announce_ms=$announce_ms")"
