#!/usr/bin/env bash
# Game day on one machine: imds-emulator plays Azure for 9 VMs in 3 fault domains, nodetool-sim plays a
# 9-node 3-rack Cassandra cluster, and 9 agents (one per VM) live through a rolling maintenance wave.
# Prints a live view once a second, then a summary; exits non-zero when an invariant broke (more racks
# down than RF allows, a node left drained, an unexpected error line, an agent that died or stopped badly).
# Usage: scripts/demo.sh [--no-build] [--bin-dir DIR] [--coordinated]   (or DEMO_BIN_DIR=DIR; DEMO_KEEP=1 keeps
# the work dir). --coordinated: the agents coordinate through a 3-member etcd and approve the fault-domain events
# once their three VMs are drained (the emulator plays Azure's documented --shared-approval any); then two scenes of
# the watcher: an agent stopped while its VM is listed in a Reboot (the leader holds its rack out: the other rack's
# drain waits for the record to go), and the watcher's leader killed (the secondary leads within lease_ttl_s + a poll).
#        scripts/demo.sh --real [...]   the same game day on a real 3-node Cassandra 5.0 cluster (demo/demo_real.sh)
set -euo pipefail
export LC_ALL=C

script_name=demo.sh
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
root=$cla_root
for arg in "$@"; do
  [[ $arg != --real ]] || exec "$root/scripts/demo/demo_real.sh" "$@"
done
# shellcheck source=demo/demo_view.sh
source "$root/scripts/demo/demo_view.sh"
# shellcheck source=demo/demo_coordination.sh
source "$root/scripts/demo/demo_coordination.sh"

coordinated=0
demo_option() { [[ $1 == --coordinated ]] && coordinated=1; }
demo_options "$@"
require_tools jq curl || exit 2
demo_bins cassandra-lifecycle-agent imds-emulator nodetool-sim
agent_bin=$bin_dir/cassandra-lifecycle-agent emulator_bin=$bin_dir/imds-emulator sim_bin=$bin_dir/nodetool-sim

# ---- the scenario's numbers ----------------------------------------------------------------------------
readonly vms=9 rf=3
readonly racks_allowed=$((rf - (rf / 2 + 1)))
# FD1's agents wait for rack1 between NotBefore - 8 s and the forced drain at NotBefore - 2 s. NotBefore and
# the emulator's removal times are whole seconds, so a narrower window than these 6 s would be flaky.
readonly poll_ms=500 drain_lead_s=8 unsafe_lead_s=2 complete_after_s=3 command_timeout_s=10
# The catch-up after a restore (SPEC 3.10) lasts catch_up_min_s at least: 30 s by default, 1 s in the demo's
# compressed time (nodetool-sim's peers hold no hints unless told to).
readonly catch_up_min_s=1
readonly wave_limit_s=90 scenes_limit_s=60 # the wave takes ~40 s, the scenes ~25 s; give up (and fail) after these

make_work_dir cla-demo # removed at exit unless DEMO_KEEP=1 or the demo failed
keep_work=${DEMO_KEEP:-0}
kept_note="logs kept in %s (agents/vmN/agent.jsonl, emulator.out, cluster.json, nodetool-calls.jsonl)"
removed_note="work dir removed (DEMO_KEEP=1 keeps it: agent logs, state files, cluster file, nodetool call log)"
cluster=$work/cluster.json
monitor_file=$work/racks_down.tsv # t, racks down (not UN), their names, racks not fully up, their names
driver_log=$work/driver.log       # t, what the driver did
agent_pid=() failures=()
demo_start=${EPOCHREALTIME}
t0=$demo_start

# ---- the emulator: 9 VMs, 3 fault domains -------------------------------------------------------------
vm_specs=()
for ((i = 0; i < vms; i++)); do vm_specs+=("vm$i,$((i / 3))"); done
start_emulator "$emulator_bin" "$work" "${vm_specs[@]}"

# ---- the cluster: rack k+1 holds nodes 127.0.1.(3k+1..3k+3), the VMs of fault domain k ----------------
"$sim_bin" --init-cluster "$cluster" --dcs dc1 --racks 3 --nodes-per-rack 3 --base-address 127.0.1. \
  --call-log "$work/nodetool-calls.jsonl" >/dev/null

coordination='{}'
if ((coordinated)); then
  start_etcd
  say "etcd: ${etcd_endpoints[*]} (TLS, client certificates from $work/etcd/tls)"
  coordination=$(coordination_json)
fi

# ---- 9 agents, each with its own config; identity and fault domain come from IMDS discovery ------------
for ((i = 0; i < vms; i++)); do
  vm=vm$i
  address=$(emulator_vm_address "$work" "$vm")
  config=$(jq -n --arg endpoint "http://$address" --arg sim "$sim_bin" --arg cluster "$cluster" \
    --arg node "127.0.1.$((i + 1))" --argjson poll "$poll_ms" --argjson command_timeout "$command_timeout_s" \
    --argjson lead "$drain_lead_s" --argjson unsafe "$unsafe_lead_s" --argjson rf "$rf" \
    --argjson coordination "$coordination" --argjson recheck "$unsafe_recheck_s" \
    --argjson catch_up "$catch_up_min_s" '{
      imds: {endpoint: $endpoint, poll_interval_ms: $poll, request_timeout_ms: 2000},
      node: {resource_name: "", fault_domain: -1},
      cassandra: {nodetool: [$sim, "--cluster", $cluster, "--node", $node], command_timeout_s: $command_timeout,
                  restart_command: [$sim, "--cluster", $cluster, "--node", $node, "restart"]},
      topology: {replication_factor: $rf, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
      policy: {drain_lead_s: $lead, unsafe_drain_lead_s: $unsafe, approve_shared_events: false,
               no_impact_freeze_max_s: 9, catch_up_min_s: $catch_up},
      http: {listen: "127.0.0.1:0"}}
      | if $coordination == {} then . else .coordination = $coordination | .policy.unsafe_recheck_s = $recheck end')
  start_agent "$agent_bin" "$work/agents/$vm" "$config"
  agent_pid[i]=$agent_started
done
wait_agents_healthy 10
# DEMO_PROMETHEUS_TARGETS=FILE: the agents' metrics addresses as a Prometheus file_sd list (written whole,
# then renamed), for tests/deploy/prometheus_wave_test.py (which sets DEMO_LINGER_S too).
if [[ -n ${DEMO_PROMETHEUS_TARGETS:-} ]]; then
  printf '%s\n' "${agent_http[@]#http://}" | jq -R . | jq -s '[{targets: .}]' >"$DEMO_PROMETHEUS_TARGETS.tmp"
  mv "$DEMO_PROMETHEUS_TARGETS.tmp" "$DEMO_PROMETHEUS_TARGETS"
fi

echo "== game day: $vms VMs in 3 fault domains, a 3-rack Cassandra cluster (RF $rf: at most $racks_allowed rack down)"
echo "   emulator admin API $admin; work dir $work"
echo "   agents: poll ${poll_ms} ms, drain ${drain_lead_s} s before NotBefore, forced drain ${unsafe_lead_s} s before"
for ((i = 0; i < vms; i++)); do
  jq -r --arg i "$i" 'select(.msg=="node_identity") |
    "   agent vm\($i): discovered \(.resource_name), fault domain \(.fault_domain) (\(.source)), node 127.0.1.\($i|tonumber+1)"' \
    "$(agent_log "$i")"
done

# ---- the rolling maintenance wave (runs in the background; the foreground draws the live view) ---------
wave() {
  narrate "FD0/rack1: platform Reboot of vm0,vm1,vm2, NotBefore in 10 s (agents drain $drain_lead_s s before it)"
  local fd0 fd1 fd2 freeze user r0 r1 nb
  fd0=$(post_event '{"type":"Reboot","resources":["vm0","vm1","vm2"],"not_before_in_s":10,"complete_after_s":'"$complete_after_s"'}')
  wait_until 20 "FD0 event Started" status_is "$fd0" Started
  r0=$(event_field "$fd0" removal_at)
  # NotBefore = FD0's end + 6 s: the drain time (NotBefore - 8 s) falls while rack1 is still out, and rack1
  # is back (end + ~1 s) well before the forced drain (NotBefore - 2 s).
  nb=$((r0 + 6 - EPOCHSECONDS))
  note_fd_event "FD0 Reboot" "$fd0"
  narrate "FD0 Started (coordinated: approved once its 3 VMs drained; else at NotBefore); FD1/rack2: platform Freeze (20 s) of vm3,vm4,vm5 created now," \
    "NotBefore in $nb s: its drain time comes while rack1 is out, so expect unsafe_to_drain, then a drain"
  fd1=$(post_event '{"type":"Freeze","resources":["vm3","vm4","vm5"],"not_before_in_s":'"$nb"',"duration_s":20,"complete_after_s":'"$complete_after_s"'}')
  echo "$fd1" >"$work/event.fd1"
  note_fd_event "FD1 Freeze" "$fd1"
  wait_until 30 "FD1 event Started" status_is "$fd1" Started
  sleep 2
  narrate "vm7: platform Freeze of 3 s (no_impact_freeze_max_s 9, the opt-in: approved at once, no drain)"
  freeze=$(post_event '{"type":"Freeze","resources":["vm7"],"not_before_in_s":15,"duration_s":3,"complete_after_s":2}')
  sleep 2
  r1=$(event_field "$fd1" removal_at)
  # NotBefore = FD1's end + 18 s: rack2 is back about 1 s after the end, the user Reboot below takes about
  # 5 s after that, and FD2's drain (NotBefore - 8 s) comes some 4 s later.
  nb=$((r1 + 18 - EPOCHSECONDS))
  narrate "FD2/rack3: platform Redeploy of vm6,vm7,vm8, NotBefore in $nb s (its drain comes 10 s after rack2 is due back)"
  fd2=$(post_event '{"type":"Redeploy","resources":["vm6","vm7","vm8"],"not_before_in_s":'"$nb"',"complete_after_s":'"$complete_after_s"'}')
  note_fd_event "FD2 Redeploy" "$fd2"
  wait_until 40 "rack2 restored after FD1" rack_up rack2
  wait_until 10 "the no-impact Freeze gone" event_gone "$freeze"
  # The user Reboot skips the gate, so the driver must not start it once FD2's drain may have begun
  # (NotBefore - 8 s). Should it outlast that time, FD2's agents wait on the gate for rack1.
  ((EPOCHSECONDS + 2 < $(event_field "$fd2" not_before) - drain_lead_s)) ||
    die "rack2 came back too late to fit the user Reboot before FD2's drain"
  narrate "rack2 is back; vm1: user-initiated Reboot (EventSource User) in the quiet gap: drained at once, no gate"
  user=$(post_event '{"type":"Reboot","resources":["vm1"],"source":"User","not_before_in_s":60,"complete_after_s":'"$complete_after_s"'}')
  wait_until 20 "the user Reboot gone" event_gone "$user"
  wait_until 10 "rack1 restored after the user Reboot" rack_up rack1
  wait_until 40 "FD2 event gone" event_gone "$fd2"
  wait_until 10 "every node up" all_up
  wait_until 10 "10 restores logged" restores_at_least 10
  narrate "wave over: no event left, every node up"
  if ((coordinated)); then
    agentless_scene
    takeover_scene
  fi
}

# ---- run it ---------------------------------------------------------------------------------------------
if ((coordinated)); then
  # Scene 2's SIGKILL: bash reports its killed child ("...: line N: PID Killed  \"${runner[@]}\" ...") on stderr;
  # the summary says it.
  play_wave "$((wave_limit_s + scenes_limit_s))" 2> >(grep -v -E '^.*: line [0-9]+: +[0-9]+ Killed +"\$\{runner' >&2)
else
  play_wave "$wave_limit_s"
fi
approvals=$(curl -sf --noproxy '*' "$admin/admin/approvals" || echo '[]')
sleep "${DEMO_LINGER_S:-0}" # the agents idle this long after the wave (a scraper sees their final state)
# Each agent must still be alive, and stop on SIGTERM with exit 0 (those the scenes stopped: as their signal says).
if ((coordinated)); then scene_stops; fi
stop_agents_and_emulator

# ---- invariants ---------------------------------------------------------------------------------------
for ((i = 0; i < vms; i++)); do
  jq -e . "$(agent_log "$i")" >/dev/null 2>&1 || die "agent vm$i's log is not JSON lines: $(agent_log "$i")"
done
max_down=$(cut -f2 "$monitor_file" | sort -n | tail -n 1)
((max_down <= racks_allowed)) || failures+=("$max_down racks were down at once (RF $rf allows $racks_allowed): $(awk -F'\t' -v m="$max_down" '$2 == m { print $3; exit }' "$monitor_file")")
left=$(jq -r "$node_state_jq"'[.datacenters[].racks[].nodes[] | select(state != "up") | "\(.address) \(state)"] | join(", ")' "$cluster")
[[ -z $left ]] || failures+=("nodes left out of service in the cluster file: $left")
# The agent's own view (GET /state before the stop, the state file after it): nothing disabled, no event held.
in_service='.node | (.drained | type) == "boolean" and ([.drained, .binary_disabled, .gossip_disabled,
  .memtables_flushed, (.drained_for | length > 0)] | any | not)'
# An agent a scene stopped has no /state after the wave, and one killed (SIGKILL) logged no agent_stopped.
for ((i = 0; i < vms; i++)); do
  ((dead[i])) && continue
  [[ -n ${stopped_on_purpose[i]:-} ]] || jq -e "$in_service" <<<"${states[i]}" >/dev/null 2>&1 ||
    failures+=("agent vm$i's /state does not say its node is in service: $(jq -c .node <<<"${states[i]}" 2>/dev/null)")
  jq -e "$in_service" "$work/agents/vm$i/state.json" >/dev/null 2>&1 || failures+=("agent vm$i's state file does not say its node is in service")
  ((${stopped_on_purpose[i]:-0} == sigkill_status)) || jq -s -e 'any(.[]; .msg == "agent_stopped")' "$(agent_log "$i")" >/dev/null ||
    failures+=("agent vm$i logged no agent_stopped")
done
expected_drains=10 counted="3 per fault domain, 1 user reboot"
if ((coordinated)); then
  expected_error_lines=$(scene_expected_errors) expected_drains=11 counted+=", the other rack's in scene 1"
  passed_note="no error lines but scene 1's agentless_impact, every agent stopped cleanly but vm$(scene_value killed) (SIGKILL, scene 2)"
fi
check_no_error_lines
drains=$(count_msg drain_started)
restores=$(count_msg restore_completed)
unsafe=$(count_msg unsafe_to_drain)
((drains == expected_drains && restores == expected_drains)) ||
  failures+=("expected $expected_drains drains and $expected_drains restores ($counted), got $drains and $restores")
approved=$(jq length <<<"$approvals")
check_approval_count "$approved"
((unsafe >= 1)) || failures+=("no agent waited on the safety gate (unsafe_to_drain), though FD1 was scheduled while rack1 was out")
[[ $(unprotectable_keyspaces) == *"system_auth (SimpleStrategy rf 1)"* ]] ||
  failures+=("no agent reported the cluster's RF 1 system_auth as keyspace_unprotectable")

# ---- summary --------------------------------------------------------------------------------------------
echo "== summary (the wave took ${wave_s} s)"
print_summary "$approvals"
if ((coordinated)); then
  coordinated_summary "$approvals"
  scenes_summary
fi
echo "   total time: $(since "$demo_start") s (emulator, cluster and agents started, the wave, the checks)"
if [[ -s $work/event.fd1 ]]; then
  echo "== follow one EventId (FD1's Freeze) across all 9 agents' logs:"
  follow_event "$(cat "$work/event.fd1")"
fi
finish
