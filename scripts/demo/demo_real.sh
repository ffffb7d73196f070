#!/usr/bin/env bash
# Game day on a real 3-node Apache Cassandra 5.0 cluster (scripts/demo.sh --real): scripts/cassandra-cluster.sh
# runs dc1 with one node per rack on 127.0.0.21-23, imds-emulator plays Azure for vm0..vm2 (fault domains 0..2)
# with scripts/cluster/impact-hook.sh freezing or killing the node of each event's VM, and three agents live
# through a rolling wave: a Reboot of rack1, a Freeze of rack2 due while rack1 is out (the gate holds it), a
# Redeploy of rack3, and a no-impact Freeze. Same live view and invariants as the simulated demo; exits non-zero
# when one broke. A rebooted VM comes back without Cassandra (IMPACT_HOOK_RESTART=0): each agent's restart_command
# (cassandra-cluster.sh start ADDRESS) brings it back. Takes about 10 minutes (nodetool is a JVM per call).
# Usage: scripts/demo.sh --real [--no-build] [--bin-dir DIR]   (DEMO_KEEP=1 keeps the work dir and cluster logs)
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "$0")/../.." && pwd)
build=1
bin_dir=${DEMO_BIN_DIR:-$root/build/bin}
while (($#)); do
  case $1 in
    --real) ;;
    --no-build) build=0 ;;
    --bin-dir)
      [[ $# -ge 2 ]] || { echo "demo.sh --real: --bin-dir needs a directory" >&2; exit 2; }
      bin_dir=$2
      shift
      ;;
    -h | --help) sed -n '2,9s/^# \{0,1\}//p' "$0" && exit 0 ;;
    *) echo "demo.sh --real: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if ((build)); then
  "$root/scripts/install-deps.sh"
  "$root/scripts/build.sh"
fi
for tool in jq curl java mvn; do
  command -v "$tool" >/dev/null || { echo "demo.sh --real: $tool is missing (Java 17 and Maven for Cassandra; scripts/install-deps.sh)" >&2; exit 2; }
done
bin_dir=$(cd "$bin_dir" && pwd)
agent_bin=$bin_dir/cassandra-lifecycle-agent emulator_bin=$bin_dir/imds-emulator
for b in "$agent_bin" "$emulator_bin"; do
  [[ -x $b ]] || { echo "demo.sh --real: $b is missing (build first, or pass --bin-dir)" >&2; exit 2; }
done

readonly vms=3 rf=3 first_host=21
readonly racks_allowed=$((rf - (rf / 2 + 1)))
# Events come due 5 s after they appear; the forced drain (NotBefore - 10 s) lies minutes later, beyond the
# previous rack's restore (a node restart and four nodetool JVMs: 1-2 minutes under load).
readonly poll_ms=1000 drain_lead_s=240 unsafe_lead_s=10 complete_after_s=15
readonly wave_limit_s=1200 # the wave takes ~8 min on an idle 2-core machine; give up (and fail) after this
cluster_cli=$root/scripts/cassandra-cluster.sh
export CASSANDRA_CLUSTER_DIR=${DEMO_CLUSTER_DIR:-$root/build/demo-real-cluster} CASSANDRA_FIRST_HOST=$first_host
export IMPACT_HOOK_RESTART=0 IMPACT_HOOK_LOG=$CASSANDRA_CLUSTER_DIR/impact-hook.log
IMPACT_HOOK_NODES=$(for ((i = 0; i < vms; i++)); do printf 'vm%d=127.0.0.%d\n' "$i" $((first_host + i)); done | paste -sd,)
export IMPACT_HOOK_NODES
node_of() { echo "127.0.0.$((first_host + $1))"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cla-demo-real.XXXXXX")
monitor_file=$work/racks_down.tsv driver_log=$work/driver.log cluster=$work/cluster.json
emulator_pid="" monitor_pid="" driver_pid="" agent_pid=() stopped_cleanly=0
demo_start=${EPOCHREALTIME}
t0=$demo_start

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  local p
  for p in "$driver_pid" "$monitor_pid"; do [[ -z $p ]] || kill "$p" 2>/dev/null || true; done
  ((stopped_cleanly)) || for p in "${agent_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  [[ -z $emulator_pid ]] || kill -TERM "$emulator_pid" 2>/dev/null || true
  for p in "$driver_pid" "$monitor_pid" "${agent_pid[@]}" "$emulator_pid"; do
    [[ -z $p ]] || wait "$p" 2>/dev/null || true
  done
  "$cluster_cli" stop >/dev/null 2>&1 || true
  if ((status != 0)) || [[ ${DEMO_KEEP:-0} == 1 ]]; then
    echo "logs kept in $work (agents/vmN/agent.jsonl, emulator.err with the hook's runs) and $CASSANDRA_CLUSTER_DIR"
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# shellcheck source=scripts/demo/demo_view.sh
source "$root/scripts/demo/demo_view.sh"
die() { echo "demo.sh --real: $*" >&2; exit 1; }

# ---- the real cluster's view, in the simulated demo's cluster-file shape (so demo_view.sh draws it) ------
# One peer's `nodetool status` (the first that answers): a node not UN there is down for replication.
sample_cluster() {
  local i out
  for ((i = 0; i < vms; i++)); do
    out=$("$cluster_cli" nodetool "$(node_of "$i")" status 2>/dev/null) || continue
    awk '/^[UD][NLJM] / { print $1, $2 }' <<<"$out" | jq -R -s --argjson first "$first_host" '
      [split("\n")[] | select(length > 0) | split(" ") | {state: .[0], address: .[1]}] as $rows
      | {datacenters: [{name: "dc1", racks: [range(0; 3) as $k | {name: "rack\($k + 1)", nodes:
          [$rows[] | select(.address == "127.0.0.\($first + $k)")
           | {address: "127.0.1.\($k + 1)", running: true, drained: false,
              gossip: (.state == "UN"), binary: (.state == "UN")}]}]}]}' >"$cluster.tmp" &&
      mv "$cluster.tmp" "$cluster" && return 0
  done
  return 1
}
# Like demo_view.sh's monitor, at the pace nodetool allows (a JVM per sample: seconds).
monitor_pace="a peer's nodetool status, every few seconds" # read by demo_view.sh's print_summary
monitor() {
  local last="" line
  while :; do
    if sample_cluster && line=$(jq -r "$racks_down_jq" "$cluster") && [[ $line != "$last" ]]; then
      printf '%s\t%s\n' "$EPOCHREALTIME" "$line" >>"$monitor_file"
      last=$line
    fi
    sleep 1
  done
}
all_up() { "$cluster_cli" nodetool "$(node_of 0)" status 2>/dev/null | grep -c '^UN ' | grep -qx "$vms"; }

echo "== starting a real 3-node Cassandra 5.0 cluster on 127.0.0.$first_host-$((first_host + vms - 1)) ($CASSANDRA_CLUSTER_DIR)"
"$cluster_cli" stop >/dev/null 2>&1 || true
rm -rf "$CASSANDRA_CLUSTER_DIR"/node* "$CASSANDRA_CLUSTER_DIR/cluster.env"
"$cluster_cli" start || die "the cluster did not start (see above)"
sample_cluster || die "no node answers nodetool status"

vm_args=()
for ((i = 0; i < vms; i++)); do vm_args+=(--vm "vm$i,$i,127.0.0.1:0"); done
"$emulator_bin" "${vm_args[@]}" --admin 127.0.0.1:0 --impact-hook "$root/scripts/cluster/impact-hook.sh" \
  >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 100); do
  [[ $(grep -c '"listening"' "$work/emulator.out" || true) -ge $((vms + 1)) ]] && break
  kill -0 "$emulator_pid" 2>/dev/null || die "imds-emulator exited: $(cat "$work/emulator.err")"
  sleep 0.1
done
admin=http://$(jq -r 'select(.listening=="admin") | .address' "$work/emulator.out")

for ((i = 0; i < vms; i++)); do
  vm=vm$i dir=$work/agents/vm$i node=$(node_of "$i")
  mkdir -p "$dir"
  address=$(jq -r --arg vm "$vm" 'select(.vm==$vm) | .address' "$work/emulator.out")
  jq -n --arg endpoint "http://$address" --arg cli "$cluster_cli" --arg node "$node" --arg dir "$dir" \
    --argjson poll "$poll_ms" --argjson lead "$drain_lead_s" --argjson unsafe "$unsafe_lead_s" --argjson rf "$rf" '{
      imds: {endpoint: $endpoint, poll_interval_ms: $poll, request_timeout_ms: 2000},
      node: {resource_name: "", fault_domain: -1},
      cassandra: {nodetool: [$cli, "nodetool", $node], command_timeout_s: 300, restart_command: [$cli, "start", $node]},
      topology: {replication_factor: $rf, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
      policy: {drain_lead_s: $lead, unsafe_drain_lead_s: $unsafe},
      state_file: ($dir + "/state.json"),
      log: {file: ($dir + "/agent.jsonl"), level: "info"},
      http: {listen: "127.0.0.1:0"}}' >"$dir/config.json"
  "$agent_bin" --config "$dir/config.json" >"$dir/stdout" 2>"$dir/stderr" &
  agent_pid[i]=$!
done
agent_log() { echo "$work/agents/vm$1/agent.jsonl"; }
agent_http=()
for ((i = 0; i < vms; i++)); do # up once its /healthz says its last IMDS poll succeeded (start-up asks nodetool)
  for ((try = 0; ; try++)); do
    port=$(jq -r 'select(.msg=="http_listening") | .port' "$(agent_log "$i")" 2>/dev/null || true)
    [[ -n $port && $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz") == 200 ]] && break
    kill -0 "${agent_pid[i]}" 2>/dev/null || die "agent vm$i exited: $(tail -3 "$work/agents/vm$i/stderr")"
    ((try < 1200)) || die "agent vm$i is not healthy after 120 s"
    sleep 0.1
  done
  agent_http[i]=http://127.0.0.1:$port
done
echo "== game day on real Cassandra: $vms VMs in 3 fault domains, one node per rack (RF $rf: at most $racks_allowed rack down)"
echo "   agents: poll ${poll_ms} ms, drain ${drain_lead_s} s before NotBefore, forced drain ${unsafe_lead_s} s before"

event_field() { curl -sf "$admin/admin/events" | jq -r --arg id "$1" --arg f "$2" '.[] | select(.EventId == $id) | .[$f] // empty'; }
create_event() {
  local id
  id=$(curl -sf -X POST "$admin/admin/events" -d "$1" | jq -r .EventId)
  [[ -n $id && $id != null ]] || die "emulator refused event $1"
  echo "$id"
}
say() { printf '%s\t%s\n' "$EPOCHREALTIME" "$*" >>"$driver_log"; }
wait_until() { # seconds, what, command...
  local limit=$1 what=$2
  shift 2
  local deadline=$((EPOCHSECONDS + limit))
  until "$@"; do
    ((EPOCHSECONDS < deadline)) || die "timed out after ${limit}s waiting for: $what"
    sleep 1
  done
}
rack_down() { ! rack_up "$1"; }
status_is() { [[ $(event_field "$1" status) == "$2" ]]; }
event_gone() { [[ -z $(event_field "$1" status) ]]; }
restores_at_least() { (($(count_msg restore_completed) >= $1)); }

wave() {
  local fd0 fd1 fd2 freeze
  say "FD0/rack1: platform Reboot of vm0, NotBefore in $((drain_lead_s + 20)) s (its agent drains $drain_lead_s s before)"
  fd0=$(create_event '{"type":"Reboot","resources":["vm0"],"not_before_in_s":'$((drain_lead_s + 20))',"complete_after_s":'"$complete_after_s"'}')
  wait_until 300 "FD0 Started (vm0 drained and approved; the hook kills its node)" status_is "$fd0" Started
  say "FD1/rack2: platform Freeze (20 s) of vm1, due at once while rack1 is out: expect unsafe_to_drain, then a drain"
  fd1=$(create_event '{"type":"Freeze","resources":["vm1"],"not_before_in_s":'$((drain_lead_s + 5))',"duration_s":20,"complete_after_s":'"$complete_after_s"'}')
  wait_until 400 "FD1 Started (after rack1 is back)" status_is "$fd1" Started
  say "vm2: platform Freeze of 3 s (no impact: approved at once, no drain)"
  freeze=$(create_event '{"type":"Freeze","resources":["vm2"],"not_before_in_s":60,"duration_s":3,"complete_after_s":2}')
  # A peer shows a node DN only seconds after its disablegossip returned: until then another rack's gate
  # would count it up. Azure's waves leave minutes between domains; the driver waits for the peers' view.
  wait_until 120 "rack2 seen down by its peers" rack_down rack2
  say "FD2/rack3: platform Redeploy of vm2, due at once while rack2 is frozen"
  fd2=$(create_event '{"type":"Redeploy","resources":["vm2"],"not_before_in_s":'$((drain_lead_s + 5))',"complete_after_s":'"$complete_after_s"'}')
  wait_until 60 "the no-impact Freeze gone" event_gone "$freeze"
  wait_until 400 "FD2 gone" event_gone "$fd2"
  wait_until 400 "3 restores logged" restores_at_least 3
  wait_until 300 "every node UN" all_up
  say "wave over: no event left, every node up"
}

monitor &
monitor_pid=$!
t0=${EPOCHREALTIME}
wave >"$work/driver.out" 2>&1 &
driver_pid=$!
echo "== rolling maintenance wave: '>>' lines are the driver (playing Azure), the others the agents' logs"
view_rc=0
live_view "$driver_pid" "$wave_limit_s" || view_rc=$?
driver_rc=0
wait "$driver_pid" || driver_rc=$?
driver_pid=""
wave_s=$(since "$t0")
kill "$monitor_pid" 2>/dev/null || true
wait "$monitor_pid" 2>/dev/null || true
monitor_pid=""

failures=()
((view_rc == 0)) || failures+=("the wave did not finish within $wave_limit_s s")
((driver_rc == 0)) || failures+=("the wave did not complete: $(tail -n 1 "$work/driver.out")")
approvals=$(curl -sf "$admin/admin/approvals" || echo '[]')
states=()
for ((i = 0; i < vms; i++)); do states[i]=$(curl -sf "${agent_http[i]}/state" || echo '{}'); done
for ((i = 0; i < vms; i++)); do kill -TERM "${agent_pid[i]}" 2>/dev/null || true; done
for ((i = 0; i < vms; i++)); do
  rc=0
  wait "${agent_pid[i]}" || rc=$?
  ((rc == 0)) || failures+=("agent vm$i exited $rc (died, or a bad stop; see $work/agents/vm$i/stderr)")
done
stopped_cleanly=1
kill -TERM "$emulator_pid" 2>/dev/null || true
wait "$emulator_pid" || failures+=("imds-emulator exited $? on SIGTERM")
emulator_pid=""

max_down=$(cut -f2 "$monitor_file" | sort -n | tail -n 1)
((max_down <= racks_allowed)) || failures+=("$max_down racks were down at once in a peer's view (RF $rf allows $racks_allowed)")
in_service='.node | ([.drained, .binary_disabled, .gossip_disabled, .memtables_flushed, (.drained_for | length > 0)] | any | not)'
for ((i = 0; i < vms; i++)); do
  jq -e "$in_service" <<<"${states[i]}" >/dev/null 2>&1 || failures+=("agent vm$i's /state does not say its node is in service")
done
for ((i = 0; i < vms; i++)); do
  "$cluster_cli" nodetool "$(node_of "$i")" status 2>/dev/null | grep -c '^UN ' | grep -qx "$vms" ||
    failures+=("node $(node_of "$i") does not see every node UN at the end")
done
errors=$(cat "$work"/agents/vm*/agent.jsonl | jq -c 'select(.level == "error")')
[[ -z $errors ]] || failures+=("agents logged error lines: $errors")
drains=$(count_msg drain_started) restores=$(count_msg restore_completed) unsafe=$(count_msg unsafe_to_drain)
((drains == 3 && restores == 3)) || failures+=("expected 3 drains and 3 restores, got $drains and $restores")
approved=$(jq length <<<"$approvals")
((approved == 4)) || failures+=("expected 4 approvals (one per rack, the short Freeze), got $approved")
((unsafe >= 1)) || failures+=("no agent waited on the safety gate (unsafe_to_drain), though FD1 was due while rack1 was out")

echo "== summary (the wave took ${wave_s} s)"
print_summary "$approvals"
echo "   hook runs (imds-emulator --impact-hook): $(grep -c '"impact_hook"' "$work/emulator.err" || true)"
echo "   total time: $(since "$demo_start") s (cluster, emulator and agents started, the wave, the checks)"
if ((${#failures[@]})); then
  echo "== FAILED"
  printf '   - %s\n' "${failures[@]}"
  exit 1
fi
echo "== PASSED: at most $max_down rack down at once, every node back in service, no error lines, every agent stopped cleanly"
