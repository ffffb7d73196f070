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

script_name="demo.sh --real"
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
root=$cla_root
# shellcheck source=demo_view.sh
source "$root/scripts/demo/demo_view.sh"

demo_option() { [[ $1 == --real ]]; } # the option that brought demo.sh here
demo_options "$@"
require_tools --hint "Java 17 and Maven for Cassandra; scripts/install-deps.sh" jq curl java mvn || exit 2
demo_bins cassandra-lifecycle-agent imds-emulator
agent_bin=$bin_dir/cassandra-lifecycle-agent emulator_bin=$bin_dir/imds-emulator

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

make_work_dir cla-demo-real # removed at exit unless DEMO_KEEP=1 or the demo failed; the cluster stops then
keep_work=${DEMO_KEEP:-0}
kept_note="logs kept in %s (agents/vmN/agent.jsonl, emulator.err with the hook's runs) and ${CASSANDRA_CLUSTER_DIR//%/%%}"
stop_cluster() { "$cluster_cli" stop >/dev/null 2>&1 || true; }
cleanup_cmd stop_cluster
monitor_file=$work/racks_down.tsv driver_log=$work/driver.log cluster=$work/cluster.json
agent_pid=() failures=()
demo_start=${EPOCHREALTIME}
t0=$demo_start
wait_poll_s=1 # the driver's waits: each check may run a nodetool JVM

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

vm_specs=()
for ((i = 0; i < vms; i++)); do vm_specs+=("vm$i,$i"); done
start_emulator "$emulator_bin" "$work" "${vm_specs[@]}" -- --impact-hook "$root/scripts/cluster/impact-hook.sh"

for ((i = 0; i < vms; i++)); do
  vm=vm$i node=$(node_of "$i")
  address=$(emulator_vm_address "$work" "$vm")
  config=$(jq -n --arg endpoint "http://$address" --arg cli "$cluster_cli" --arg node "$node" \
    --argjson poll "$poll_ms" --argjson lead "$drain_lead_s" --argjson unsafe "$unsafe_lead_s" --argjson rf "$rf" '{
      imds: {endpoint: $endpoint, poll_interval_ms: $poll, request_timeout_ms: 2000},
      node: {resource_name: "", fault_domain: -1},
      cassandra: {nodetool: [$cli, "nodetool", $node], command_timeout_s: 300, restart_command: [$cli, "start", $node]},
      topology: {replication_factor: $rf, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
      policy: {drain_lead_s: $lead, unsafe_drain_lead_s: $unsafe, no_impact_freeze_max_s: 9},
      http: {listen: "127.0.0.1:0"}}')
  start_agent "$agent_bin" "$work/agents/$vm" "$config"
  agent_pid[i]=$agent_started
done
wait_agents_healthy 120 # start-up asks nodetool: a JVM per call
echo "== game day on real Cassandra: $vms VMs in 3 fault domains, one node per rack (RF $rf: at most $racks_allowed rack down)"
echo "   agents: poll ${poll_ms} ms, drain ${drain_lead_s} s before NotBefore, forced drain ${unsafe_lead_s} s before"

rack_down() { ! rack_up "$1"; }

wave() {
  local fd0 fd1 fd2 freeze
  narrate "FD0/rack1: platform Reboot of vm0, NotBefore in $((drain_lead_s + 20)) s (its agent drains $drain_lead_s s before)"
  fd0=$(post_event '{"type":"Reboot","resources":["vm0"],"not_before_in_s":'$((drain_lead_s + 20))',"complete_after_s":'"$complete_after_s"'}')
  wait_until 300 "FD0 Started (vm0 drained and approved; the hook kills its node)" status_is "$fd0" Started
  narrate "FD1/rack2: platform Freeze (20 s) of vm1, due at once while rack1 is out: expect unsafe_to_drain, then a drain"
  fd1=$(post_event '{"type":"Freeze","resources":["vm1"],"not_before_in_s":'$((drain_lead_s + 5))',"duration_s":20,"complete_after_s":'"$complete_after_s"'}')
  wait_until 400 "FD1 Started (after rack1 is back)" status_is "$fd1" Started
  narrate "vm2: platform Freeze of 3 s (no_impact_freeze_max_s 9, the opt-in: approved at once, no drain)"
  freeze=$(post_event '{"type":"Freeze","resources":["vm2"],"not_before_in_s":60,"duration_s":3,"complete_after_s":2}')
  # A peer shows a node DN only seconds after its disablegossip returned: until then another rack's gate
  # would count it up. Azure's waves leave minutes between domains; the driver waits for the peers' view.
  wait_until 120 "rack2 seen down by its peers" rack_down rack2
  narrate "FD2/rack3: platform Redeploy of vm2, due at once while rack2 is frozen"
  fd2=$(post_event '{"type":"Redeploy","resources":["vm2"],"not_before_in_s":'$((drain_lead_s + 5))',"complete_after_s":'"$complete_after_s"'}')
  wait_until 60 "the no-impact Freeze gone" event_gone "$freeze"
  wait_until 400 "FD2 gone" event_gone "$fd2"
  wait_until 400 "3 restores logged" restores_at_least 3
  wait_until 300 "every node UN" all_up
  narrate "wave over: no event left, every node up"
}

play_wave "$wave_limit_s"
approvals=$(curl -sf --noproxy '*' "$admin/admin/approvals" || echo '[]')
stop_agents_and_emulator

max_down=$(cut -f2 "$monitor_file" | sort -n | tail -n 1)
((max_down <= racks_allowed)) || failures+=("$max_down racks were down at once in a peer's view (RF $rf allows $racks_allowed)")
in_service='.node | ([.drained, .binary_disabled, .gossip_disabled, .memtables_flushed, (.drained_for | length > 0)] | any | not)'
for ((i = 0; i < vms; i++)); do
  ((dead[i])) && continue
  jq -e "$in_service" <<<"${states[i]}" >/dev/null 2>&1 || failures+=("agent vm$i's /state does not say its node is in service")
done
for ((i = 0; i < vms; i++)); do
  "$cluster_cli" nodetool "$(node_of "$i")" status 2>/dev/null | grep -c '^UN ' | grep -qx "$vms" ||
    failures+=("node $(node_of "$i") does not see every node UN at the end")
done
check_no_error_lines
drains=$(count_msg drain_started) restores=$(count_msg restore_completed) unsafe=$(count_msg unsafe_to_drain)
((drains == 3 && restores == 3)) || failures+=("expected 3 drains and 3 restores, got $drains and $restores")
approved=$(jq length <<<"$approvals")
((approved == 4)) || failures+=("expected 4 approvals (one per rack, the short Freeze), got $approved")
((unsafe >= 1)) || failures+=("no agent waited on the safety gate (unsafe_to_drain), though FD1 was due while rack1 was out")

echo "== summary (the wave took ${wave_s} s)"
print_summary "$approvals"
echo "   hook runs (imds-emulator --impact-hook): $(grep -c '"impact_hook"' "$work/emulator.err" || true)"
echo "   total time: $(since "$demo_start") s (cluster, emulator and agents started, the wave, the checks)"
finish
