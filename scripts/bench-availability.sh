#!/usr/bin/env bash
# Client availability through a maintenance wave on the real cluster (SPEC 10, issues 8 and 21).
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-availability.sh [--repeat N] [--runs LIST] [--hog] [--driver debian|pypi]
                                     [--nodes 3|6] [--dcs 1|2] [--coordinated] [--rate N] [--notice-s N] [--reboot-s N]
                                     [--backend nodetool|jolokia] [--announce-ms MS] [--catch-up] [--bin-dir DIR]
  The cluster of scripts/cassandra-cluster.sh (started if not every node runs; 6 nodes: two per rack, in
  build/cassandra-cluster-6) under an open-loop auditing client at LOCAL_QUORUM (scripts/bench/
  availability_client.py: token-aware, idempotent, 2 s timeout, --rate requests/s, default 50, half writes,
  every write a new key, every read's value checked, every acknowledged write read back at ALL after the run;
  a send slot it could not send within 0.5 s of its due instant counts as a failed request, "missed"; latency
  runs from each slot's due instant) through one wave per run, in each mode:
    noagent      nobody approves: each event starts at NotBefore, its impact lands on a serving node
    approve_now  the docs' sample: every Scheduled event approved at once, no drain
    agent        build/bin/cassandra-lifecycle-agent beside each node, its default config but for the rig's
                 endpoints, paths and nodetool (drain, approve, restore); the wave starts once every agent's
                 start-up (its status checks and first schema refresh) is over
  The wave, one rack at a time (an event lists every VM of the rack), --notice-s (default 60) of notice:
    rack1 a 5 s Freeze; rack2 a 20 s Freeze; rack3 a 10 s Freeze and a Reboot whose NotBefore is 45 s after
    the Freeze's end; rack1 a 20 s Freeze that appears already Started, its impact 10 s later.
  imds-emulator --impact-hook scripts/cluster/impact-hook.sh plays each impact on the node: a Freeze SIGSTOPs
  the JVM; a Reboot kills it and, --reboot-s (default 15) later when the event ends, boots the VM: Cassandra
  starts again and, in agent mode, so does the agent (killed with the JVM) with a new boot id
  (CLA_BOOT_ID_FILE). The delayed impact of the Started event is the hook's too (IMPACT_HOOK_DELAY_DIR).
  Each impact is verified: the hook's exit status and the JVM frozen or gone when it landed (/proc, the
  hook's record; a Freeze that starts while its VM is down for a Reboot approved with it is "absorbed", the
  Reboot's landing verified instead); an impact that did not land fails the bench. Between steps the bench waits until every
  node is UN in every view (and, in agent mode, restored).
  --repeat N    N runs of each mode, the modes alternating (default 1)
  --runs LIST   comma-separated subset of noagent,approve_now,agent (default all three, in that order)
  --hog         two busy loops hold both cores during every run
  --driver      debian: Debian's python3-cassandra (default); pypi: the newest cassandra-driver from PyPI in
                a venv under build/bench-venv-pypi
  --nodes 6     two nodes per rack (each event lists both VMs of its rack), and after the wave the unsafe
                phase: rack1's vm4 killed (scripts/cassandra-cluster.sh kill) and seen down by every live node,
                then a 5 s Freeze of rack2's vm5. The client's keyspace is dc1: 5 then (lifecycle_rf5: every
                range keeps 3 replicas with vm4 and vm5 out), while the cluster's RF 3 keyspaces cannot spare
                vm5. The gate must refuse: in agent mode the bench fails unless the
                emulator saw no approval of it and vm5's agent logged unsafe_to_drain, then
                drain_forced_unsafe within 1 s of NotBefore - unsafe_drain_lead_s (SPEC 4); it prints the
                approvals seen, each forced drain's margin and the phase's failed requests (SPEC 10: none).
                vm4 is started again once rack2 is restored, and every node is UN before the run goes on
  --dcs 2       with --nodes 6: the cluster as two DCs (cassandra-cluster.sh --dcs 2: dc1 on nodes 1-3, dc2 on
                nodes 4-6, racks 1-3 in each, in build/cassandra-cluster-6-2dcs...; the client's keyspace lifecycle
                at {dc1: 3, dc2: 3}), each DC an availability set of its own (the emulator's region dc2 for vm4-6:
                a VM sees only its DC's events). Each step's rack goes out in both DCs at once: one event for
                dc1's VM of the rack and one for dc2's, posted together. Two clients, one per DC, each coordinated
                by its own DC's nodes at LOCAL_QUORUM (availability_client.py --local-dc); the run's table per DC,
                then both together, and for each Freeze the seconds both DCs' nodes were out together (the bench
                fails when no Freeze of dc1 overlapped dc2's). No unsafe phase: with three nodes a DC, two of a
                DC's nodes out leave no keyspace its LOCAL_QUORUM (real_two_dcs_test proves the refusal across DCs)
  --coordinated the agents coordinate through a 3-member etcd on loopback (SPEC 9)
  --backend     how the agents reach their nodes (cassandra.backend, SPEC 8.1): nodetool (default) or jolokia
                (the cluster started --jolokia, in a directory of its own: build/cassandra-cluster[-6]-jolokia)
  --catch-up    instead of the wave, the catch-up (SPEC 3.10, 10) in two agent modes, both with policy.drain_lead_s 60:
                  agent   the agents' catch-up wait (the default policy.catch_up_*)
                  nowait  policy.catch_up_max_s 0: the next rack goes as soon as the restore is over
                rack1 a 20 s Freeze (--notice-s of notice) while the client writes (each write the node misses
                is a hint on its coordinator), then, the moment it is removed (its restore due within a poll),
                rack2's 5 s Freeze whose drain is due at once: NotBefore 60 s away, the drain lead. (With the
                default 30 s lead the forced drain, 10 s before NotBefore, would come 20 s after the restore,
                before catch_up_min_s (30 s) can pass: every such next drain would be forced.) Throughout, the
                hints files held for rack1's nodes are counted on every node's disk every 0.5 s (open ones
                included: more than listpendinghints shows). Each run prints the hints files there when rack2's
                impact landed and p99 in the catch-up window (rack1's restore_completed until no hints file for
                it is left) beside the steady state (30 s before the first event); the bench fails when no hint
                was ever written for rack1 (nothing to catch up). Coordinated, rack1's drain record holds rack2's
                admission until rack1 is caught up; uncoordinated, rack2's gate counts the hints its own node holds
                for rack1 (with Jolokia also those not in a closed file yet; with nodetool closed files only)
  --announce-ms default|MS  default (the default): Cassandra's own shutdown announce (2000 ms). MS: the nodes run
                with -Dcassandra.shutdown_announce_in_ms=MS, as docs/jolokia.md advises for nodes the agent drains
                (0), for comparison: with the default, peers that marked a drained node DOWN may mark it UP again
                while it gossips through that sleep, and send it reads until they convict it; the agent's quiet
                before approval (SPEC 3.10) waits for that to end. A cluster of its own (...-announce-MS); every
                other cluster of this bench on the same addresses is stopped first
Prints a table per run (requests, failed (timed out and missed among them), wrong, latency per phase;
requests = sent + missed = answered + failed; failures per impact-second; the impacts
and, in agent mode, each drain's margin before its impact; with --nodes 6 what the unsafe phase checked), the
spread over runs, then
  failed_agent=N failed_noagent=N failed_approve_now=N wrong_agent=N wrong_noagent=N lost_agent=N
  lost_noagent=N p99_agent_ms=N p99_noagent_ms=N failed_agent_scheduled=N announce_ms=default|MS
  and with --catch-up: catchup_hints_at_next_impact_agent=N catchup_p99_ms_agent=N catchup_p99_ms_nowait=N
(failed (missed slots included), failed_agent_scheduled the agent runs' failures in the phases whose events
were seen Scheduled (all but the one seen Started), wrong (a wrong value or no row for an acknowledged write), lost summed over a
mode's runs; p99 over all its requests, from their due instants; -1 for a mode not run).
Environment: CASSANDRA_CLUSTER_DIR, CASSANDRA_FIRST_HOST (as cassandra-cluster.sh); BENCH_KEEP=1 keeps the
work dir (the agents' logs at debug level, each node's system.log after every step). About 8 minutes a run.
EOF
}

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$cla_root
bin_dir=$root/build/bin modes=noagent,approve_now,agent repeat=1 rate=50 notice_s=60 reboot_s=15
hog=0 driver=debian node_count=3 dcs=1 coordinated=0 backend=nodetool announce_ms="" catch_up=0 modes_given=0
while (($#)); do
  case $1 in
    --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
    --runs) modes=${2:?--runs needs a list} modes_given=1; shift 2 ;;
    --repeat) repeat=${2:?--repeat needs a number}; shift 2 ;;
    --rate) rate=${2:?--rate needs a number}; shift 2 ;;
    --notice-s) notice_s=${2:?--notice-s needs seconds}; shift 2 ;;
    --reboot-s) reboot_s=${2:?--reboot-s needs seconds}; shift 2 ;;
    --hog) hog=1; shift ;;
    --driver) driver=${2:?--driver needs debian or pypi}; shift 2 ;;
    --nodes) node_count=${2:?--nodes needs 3 or 6}; shift 2 ;;
    --dcs) dcs=${2:?--dcs needs 1 or 2}; shift 2 ;;
    --coordinated) coordinated=1; shift ;;
    --backend) backend=${2:?--backend needs nodetool or jolokia}; shift 2 ;;
    --announce-ms) announce_ms=${2:?--announce-ms needs default or milliseconds}; shift 2 ;;
    --catch-up) catch_up=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || usage_error "--repeat must be a positive number, not '$repeat'"
[[ $node_count == 3 || $node_count == 6 ]] || usage_error "--nodes must be 3 or 6, not '$node_count'"
[[ $dcs == 1 || $dcs == 2 ]] || usage_error "--dcs must be 1 or 2, not '$dcs'"
((dcs == 1 || node_count == 6)) || usage_error "--dcs 2 needs --nodes 6 (three nodes a DC)"
((dcs == 1 || !catch_up)) || usage_error "--catch-up runs on one DC: leave out --dcs 2"
[[ $driver == debian || $driver == pypi ]] || usage_error "--driver must be debian or pypi, not '$driver'"
[[ $backend == nodetool || $backend == jolokia ]] || usage_error "--backend must be nodetool or jolokia, not '$backend'"
check_announce_ms
((catch_up && !modes_given)) && modes=agent,nowait
IFS=, read -ra wanted <<<"$modes"
for mode in "${wanted[@]}"; do
  if ((catch_up)); then
    [[ $mode == agent || $mode == nowait ]] || usage_error "with --catch-up the modes are agent and nowait, not '$mode'"
  else
    [[ $mode == noagent || $mode == approve_now || $mode == agent ]] || usage_error "unknown mode '$mode'"
  fi
done
# Modes in which the agents run (nowait: the agents without their catch-up wait, --catch-up).
agents_run() { [[ $mode == agent || $mode == nowait ]]; }
progress() { echo "   $(date +%T) $*"; }

cluster=$root/scripts/cassandra-cluster.sh
require_tools --hint scripts/install-deps.sh jq curl || exit 1
require_bins "$bin_dir" "--bin-dir" cassandra-lifecycle-agent imds-emulator || exit 1
[[ $("$bin_dir/imds-emulator" --help 2>&1) == *--impact-hook* ]] || die "imds-emulator has no --impact-hook"

# ---- the client's driver ------------------------------------------------------------------------------------------
if [[ $driver == debian ]]; then
  client_python=/usr/bin/python3
  "$client_python" -I -c 'import cassandra' 2>/dev/null || die "python3-cassandra is missing (scripts/install-deps.sh)"
else
  venv=$root/build/bench-venv-pypi
  [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
  "$venv/bin/python" -m pip install --quiet --upgrade cassandra-driver || die "pip could not install cassandra-driver"
  client_python=$venv/bin/python
fi
say "client driver: cassandra-driver $("$client_python" -I -c 'import cassandra; print(cassandra.__version__)') ($driver)"

# ---- the cluster --------------------------------------------------------------------------------------------------
bench_cluster "$node_count" "$backend" "$announce_ms" "$dcs"
announce_label=""
[[ -z $announce_ms ]] || announce_label=", shutdown_announce_in_ms=$announce_ms (NOT the default 2000)"
say "cluster: $CASSANDRA_CLUSTER_DIR, backend $backend$announce_label"
mapfile -t addresses < <("$cluster" status | jq -r .address)
((${#addresses[@]} == node_count)) || die "expected $node_count nodes in $CASSANDRA_CLUSTER_DIR, found ${#addresses[@]}"
# The client's keyspace. With 6 nodes, dc1: 5: the unsafe phase has one node down and another rack's node drained,
# which the cluster's RF 3 keyspaces (lifecycle, system_distributed) cannot spare, so the gate refuses, while
# every range of the client's keyspace keeps 3 of its 5 replicas (LOCAL_QUORUM). The bench then shows the
# refusal and the forced drain costing the client nothing, which no keyspace at RF 3 could show.
client_keyspace=lifecycle # with --dcs 2: {dc1: 3, dc2: 3} (cassandra-cluster.sh)
if ((node_count == 6 && dcs == 1)); then
  client_keyspace=lifecycle_rf5
  "$cluster" cql "${addresses[0]}" "CREATE KEYSPACE IF NOT EXISTS $client_keyspace WITH replication =
    {'class': 'NetworkTopologyStrategy', 'dc1': 5}" >/dev/null || die "could not create keyspace $client_keyspace"
fi
# VM k (1-based) is node k, fault domain (k-1)%3, rack (k-1)%3+1 (cassandra-cluster.sh's layout); with --dcs 2,
# vm4-6 are dc2's, in the emulator's region dc2 (the default region "" is dc1's).
vms=() vm_specs=() hook_nodes=""
declare -A vm_region=()
for ((k = 1; k <= node_count; k++)); do
  vms+=("vm$k")
  vm_region[vm$k]=""
  ((dcs == 1 || k <= 3)) || vm_region[vm$k]=dc2
  vm_specs+=("vm$k,$(((k - 1) % 3))${vm_region[vm$k]:+,region=${vm_region[vm$k]}}")
  hook_nodes+="${hook_nodes:+,}vm$k=${addresses[k - 1]}"
done
rack_vms() { # RACK (1..3) -> the rack's VMs, as a JSON array
  local k list=()
  for ((k = $1; k <= node_count; k += 3)); do list+=("vm$k"); done
  printf '%s\n' "${list[@]}" | jq -R . | jq -sc .
}
# wave_events RACK EVENT_JSON -> the rack's events, one JSON a line: EVENT_JSON listing every VM of the rack, or with
# --dcs 2 one for dc1's VM of the rack and one for dc2's (region dc2), in that order.
wave_events() {
  if ((dcs == 1)); then
    jq -c --argjson vms "$(rack_vms "$1")" '. + {resources: $vms}' <<<"$2"
  else
    jq -c --arg vm "vm$1" '. + {resources: [$vm]}' <<<"$2"
    jq -c --arg vm "vm$(($1 + 3))" '. + {resources: [$vm], region: "dc2"}' <<<"$2"
  fi
}
# --catch-up: the lead that lets the catch-up end before the next rack's forced drain (see --help), and the host ids
# of rack1's nodes (the hints files held for them are named after them).
catch_up_lead_s=60 catch_up_host_ids=()
if ((catch_up)); then
  status_view=$("$cluster" nodetool "${addresses[0]}" status) || die "nodetool status failed on ${addresses[0]}"
  for vm in $(rack_vms 1 | jq -r '.[]'); do
    host_id=$(awk -v a="${addresses[${vm#vm} - 1]}" '$2 == a { for (i = 3; i <= NF; i++)
      if (length($i) == 36 && $i ~ /^[0-9a-f-]+$/) print $i }' <<<"$status_view")
    [[ -n $host_id ]] || die "no host id for $vm (${addresses[${vm#vm} - 1]}) in nodetool status: $status_view"
    catch_up_host_ids+=("$host_id")
  done
  say "catch-up: rack1's host ids ${catch_up_host_ids[*]}"
fi

make_work_dir cla-bench-availability # removed at exit unless BENCH_KEEP=1 or the bench failed
keep_work=${BENCH_KEEP:-0} kept_note="logs kept in %s"
if ((coordinated)); then
  # shellcheck source=demo/demo_coordination.sh
  source "$root/scripts/demo/demo_coordination.sh" # start_etcd: 3 members on free loopback ports, in $work/etcd
  start_etcd
  say "etcd: ${etcd_endpoints[*]}"
fi

pids=() # the current run's processes, stopped after it
track() { # PID: one of the run's processes
  pids+=("$1")
  cleanup_pid "$1"
}
stop_all() {
  stop_pids "${pids[@]}"
  pids=()
}

# Every node answers CQL (cheap: no JVM), then every node's view shows every node UN (a nodetool JVM each, in
# parallel).
cql_everywhere() {
  local a
  for a in "${addresses[@]}"; do (exec 3<>"/dev/tcp/$a/9042") 2>/dev/null || return 1; done
}
all_un_everywhere() {
  local a views ok=0 ps=() p
  cql_everywhere || return 1
  views=$(mktemp -d "$work/views.XXXXXX")
  for a in "${addresses[@]}"; do
    "$cluster" nodetool "$a" status >"$views/$a" 2>/dev/null &
    ps+=($!)
  done
  for p in "${ps[@]}"; do wait "$p" || ok=1; done
  for a in "${addresses[@]}"; do [[ $(grep -c '^UN ' "$views/$a") == "$node_count" ]] || ok=1; done
  rm -rf "$views"
  return "$ok"
}

# ---- one run: the emulator, the approver or the agents, the client ------------------------------------------------
start_run_emulator() { # run_dir
  local dir=$1 vm
  mkdir -p "$dir/delay"
  # A rebooted VM boots Cassandra without its native transport while its agent holds the node drained
  # (IMPACT_HOOK_AGENT_STATE, as deploy/cassandra.service.d's drop-in does): clients return at the restore.
  IMPACT_HOOK_RESTART=1 IMPACT_HOOK_NODES=$hook_nodes IMPACT_HOOK_LOG=$dir/impact-hook-start.log \
    IMPACT_HOOK_AGENT_STATE=$dir/agent-%s/state.json IMPACT_HOOK_RECORD=$dir/impacts.jsonl \
    IMPACT_HOOK_DELAY_DIR=$dir/delay \
    start_emulator "$bin_dir/imds-emulator" "$dir" "${vm_specs[@]}" -- \
    --impact-hook "$root/scripts/cluster/impact-hook.sh"
  pids+=("$emulator_pid") # registered for cleanup by start_emulator
  for vm in "${vms[@]}"; do vm_url[$vm]=http://$(emulator_vm_address "$dir" "$vm" "${vm_region[$vm]}"); done
}

approve_now_loop() { # the docs' sample: poll each VM's document, approve every Scheduled event at once
  local q="metadata/scheduledevents?api-version=2020-07-01" vm id
  while :; do
    for vm in "${vms[@]}"; do
      for id in $(curl -sf -H Metadata:true "${vm_url[$vm]}/$q" | jq -r '.Events[] | select(.EventStatus=="Scheduled") | .EventId'); do
        curl -sf -o /dev/null -H Metadata:true -X POST -d "{\"StartRequests\":[{\"EventId\":\"$id\"}]}" "${vm_url[$vm]}/$q" || true
      done
    done
    sleep 1
  done
}

# The agent of VM vm: the default config but for the rig's endpoint, nodetool, restart_command, paths (and the
# etcd cluster when coordinated); its boot id from DIR/boot_id (CLA_BOOT_ID_FILE), which a VM reboot renews.
declare -A agent_pid=() vm_url=()
start_vm_agent() { # run_dir vm
  local dir=$1/agent-$2 k=${2#vm} config coordination=null node_json policy={}
  mkdir -p "$dir"
  [[ -f $dir/boot_id ]] || cat /proc/sys/kernel/random/uuid >"$dir/boot_id"
  ((coordinated)) && coordination=$(etcd_coordination_json bench-availability)
  node_json=$(jq -c -s --argjson i $((k - 1)) '.[$i]' <<<"$nodes_status")
  if ((catch_up)); then
    policy="{\"drain_lead_s\": $catch_up_lead_s}"
    [[ $mode != nowait ]] || policy=$(jq -c '. + {catch_up_max_s: 0}' <<<"$policy")
  fi
  config=$(jq -n --arg endpoint "${vm_url[$2]}" --arg cluster "$cluster" --arg node "${addresses[k - 1]}" \
    --arg level "$([[ ${BENCH_KEEP:-0} == 1 ]] && echo debug || echo info)" --argjson coordination "$coordination" \
    --arg backend "$backend" --argjson status "$node_json" --argjson policy "$policy" '{
      imds: {endpoint: $endpoint},
      cassandra: ({nodetool: [$cluster, "nodetool", $node], restart_command: [$cluster, "start", $node, "--no-binary"],
        backend: $backend} + (if $backend == "jolokia" then {jolokia: {url: $status.jolokia_url,
        username: $status.jolokia_user, password_file: $status.jolokia_password_file}} else {} end)),
      log: {level: $level}, policy: $policy,
      http: {listen: "127.0.0.1:0"}} + (if $coordination then {coordination: $coordination} else {} end)')
  # At the niceness of the packaged unit (Nice=-5): its nodetool children are what must beat an impact.
  CLA_BOOT_ID_FILE=$dir/boot_id agent_nice=-5 start_agent "$bin_dir/cassandra-lifecycle-agent" "$dir" "$config"
  agent_pid[$2]=$agent_started
  pids+=("$agent_started") # registered for cleanup by start_agent
}
agent_log() { cat "$run_dir/agent-$1/agent.jsonl" 2>/dev/null || true; }
# Each agent past its start-up: its checks and its first schema refresh (schema_refreshed, or gate_fallback when
# the schema could not be read). The wave measures maintenance, not an agent's first minute: on a loaded machine
# that minute's nodetool runs (six JVMs) can take longer than the bench's 60 s of notice (docs/design.md).
agents_started() {
  local vm
  for vm in "${vms[@]}"; do
    grep -qsE '"msg":"(schema_refreshed|gate_fallback)"' "$run_dir/agent-$vm/agent.jsonl" || return 1
  done
}
# The VM's agent has restored the node since its last drain (or never drained).
agent_settled() { # vm
  [[ $(agent_log "$1" | jq -r 'select(.msg == "drain_started" or .msg == "restore_completed") | .msg' |
    tail -n 1) != drain_started ]]
}
# A VM reboot as Azure plays it: every process of the VM dies with it (the hook kills the JVM, the bench the
# agent); when the event ends the VM boots with a new boot id: the hook starts Cassandra, the bench the agent.
vm_down() { # vm
  kill -KILL "${agent_pid[$1]}" 2>/dev/null || true
  wait "${agent_pid[$1]}" 2>/dev/null || true
  forget_pids "${agent_pid[$1]}"
  progress "$1 down: its agent (pid ${agent_pid[$1]}) killed with the VM"
}
vm_boot() { # vm
  cat /proc/sys/kernel/random/uuid >"$run_dir/agent-$1/boot_id"
  start_vm_agent "$run_dir" "$1"
  progress "$1 booted: its agent started again (pid ${agent_pid[$1]}, new boot id)"
}

keep_node_logs() { # dest: each node's system.log so far (a restart moves it to .prev, the next one loses it)
  [[ ${BENCH_KEEP:-0} == 1 ]] || return 0
  local k
  for ((k = 1; k <= node_count; k++)); do
    mkdir -p "$1/node$k"
    cp "$CASSANDRA_CLUSTER_DIR/node$k/logs/"system.log* "$1/node$k/" 2>/dev/null || true
  done
}

# ---- one step of the wave -----------------------------------------------------------------------------------------
# play_step LABEL EVENT_JSON...: posts the events (an event with "delay_impact_s" is posted Started and its
# impact delayed that long; one with "after_removal": "LABEL" only once every event posted before it is gone,
# starting the phase LABEL), waits until all are gone (playing VM reboots in agent mode), the agents restored
# (then runs $step_before_settle, when set: the unsafe phase starts its killed node there) and every node UN in
# every view; then verifies every impact. Appends "id<TAB>json" lines to run_dir/events and "id not_before_s
# not_before_ms" lines to run_dir/not_before.
post_step_event() { # EVENT_JSON: play_step's, into its ids, types and vm_lists
  local body=$1 delay vm id
  delay=$(jq -r '.delay_impact_s // empty' <<<"$body")
  if [[ -n $delay ]]; then
    for vm in $(jq -r '.resources[]' <<<"$body"); do
      echo $(($(date +%s%3N) + delay * 1000)) >"$run_dir/delay/$vm"
    done
    body=$(jq -c 'del(.delay_impact_s) + {started: true}' <<<"$body")
  fi
  id=$(post_event "$body")
  # (the document's NotBefore, whole seconds as IMDS serves it, and when the emulator starts it unapproved)
  printf '%s %s %s\n' "$id" "$(event_field "$id" not_before)" "$(event_field "$id" not_before_ms)" \
    >>"$run_dir/not_before"
  ids+=("$id")
  types+=("$(jq -r .type <<<"$body")")
  vm_lists+=("$(jq -r '.resources | join(" ")' <<<"$body")")
  printf '%s\t%s\n' "$id" "$body" >>"$run_dir/events"
}
play_step() {
  local label=$1 body vm ids=() types=() vm_lists=() i states rebooted=() chained=()
  shift
  echo "$(date +%s%3N) $label" >>"$run_dir/phases"
  for body in "$@"; do
    if [[ $(jq -r '.after_removal // empty' <<<"$body") ]]; then chained+=("$body"); else post_step_event "$body"; fi
  done
  progress "$label: ${ids[*]}"
  local deadline=$((EPOCHSECONDS + notice_s + reboot_s + 300))
  while :; do
    states=$(curl -sf --noproxy '*' "$admin/admin/events") || states='[]'
    local left=0
    for i in "${!ids[@]}"; do
      local status
      status=$(jq -r --arg id "${ids[i]}" '.[] | select(.EventId == $id) | .status' <<<"$states")
      [[ -n $status ]] && left=$((left + 1))
      agents_run && [[ ${types[i]} == Reboot ]] || continue
      if [[ $status == Started && " ${rebooted[*]} " != *" ${ids[i]} "* ]]; then
        for vm in ${vm_lists[i]}; do vm_down "$vm"; done
        rebooted+=("${ids[i]}")
      elif [[ -z $status && " ${rebooted[*]} " == *" ${ids[i]} "* ]]; then
        for vm in ${vm_lists[i]}; do vm_boot "$vm"; done
        rebooted=("${rebooted[@]/${ids[i]}/}")
      fi
    done
    if ((left == 0 && ${#chained[@]} > 0)); then
      body=${chained[0]} chained=("${chained[@]:1}")
      echo "$(date +%s%3N) $(jq -r .after_removal <<<"$body")" >>"$run_dir/phases"
      post_step_event "$(jq -c 'del(.after_removal)' <<<"$body")"
      progress "$label: ${ids[-1]} posted, every event before it gone"
      deadline=$((EPOCHSECONDS + notice_s + reboot_s + 300))
      continue
    fi
    ((left > 0)) || break
    ((EPOCHSECONDS < deadline)) || die "$label: events ${ids[*]} not gone after $((notice_s + reboot_s + 300)) s"
    sleep 0.25
  done
  ((++steps_done))
  keep_node_logs "$run_dir/cassandra-$steps_done"
  if agents_run; then
    for i in "${!ids[@]}"; do
      for vm in ${vm_lists[i]}; do wait_poll_s=1 wait_until 600 "$label: $vm restored by its agent" agent_settled "$vm"; done
    done
  fi
  [[ -z ${step_before_settle:-} ]] || "$step_before_settle"
  wait_poll_s=3 wait_until 600 "every node UN in every view after $label" all_un_everywhere
  for i in "${!ids[@]}"; do verify_impact "$label" "${ids[i]}" "${vm_lists[i]}"; done
  progress "$label: over, impacts verified, every node UN in every view"
}

# verify_impact LABEL ID VMS: for each listed VM the hook played the start with exit 0 and its record says the
# JVM was frozen (Freeze) or stopped (the others) right after, or (a Freeze) that the VM was down already for
# another impact of the same VM whose own record says it landed ("absorbed": both were approved together);
# else the bench fails here.
verify_impact() {
  local label=$1 id=$2 vm exit_ok landed down_by
  for vm in $3; do
    exit_ok=$(jq -rR --arg id "$id" --arg vm "$vm" 'fromjson? |
      select(.impact_hook == "start" and .event_id == $id and .vm == $vm) | .ok' "$run_dir/emulator.err" | tail -n 1)
    landed=$(jq -r --arg id "$id" --arg vm "$vm" 'select(.phase == "start" and .event_id == $id and .vm == $vm) |
      "\(.landed) \(.state_before)->\(.state) \(.down_by // "")"' "$run_dir/impacts.jsonl" 2>/dev/null | tail -n 1)
    if [[ $exit_ok == true && $landed == absorbed* ]]; then
      down_by=${landed##* }
      [[ $(jq -r --arg id "$down_by" --arg vm "$vm" 'select(.phase == "start" and .event_id == $id and .vm == $vm) |
        .landed' "$run_dir/impacts.jsonl" | tail -n 1) == true ]] ||
        die "$label: $id on $vm was absorbed by $down_by, whose impact did not land; logs: $run_dir"
      continue
    fi
    [[ $exit_ok == true && $landed == true* ]] ||
      die "$label: the impact of $id did not land on $vm (hook ok: ${exit_ok:-no hook run}; record: ${landed:-none}); logs: $run_dir"
  done
}

# ---- the unsafe phase (--nodes 6, SPEC 10) -------------------------------------------------------------------------
# Rack1's second node (vm4, not the first contact point) is killed as a lost VM would be and the bench waits until
# every live node sees it down; then an event for rack2's vm5 comes (a 5 s Freeze). On cassandra-cluster.sh's ring
# (one token a node, racks interleaved) two of vm4's three ranges have their rack2 replica on vm5, so the gate must
# refuse for the RF 3 keyspaces: in agent mode vm5's agent logs unsafe_to_drain, never approves, and drains anyway
# at NotBefore - unsafe_drain_lead_s (drain_forced_unsafe); the emulator starts the event at NotBefore. The
# client's keyspace (dc1: 5) keeps 3 replicas of every range meanwhile. Once the event is gone and rack2 restored, vm4 is started again and the bench waits
# until every node is UN in every view. Its own phases: the kill, the event, vm4's start. What was checked is
# printed into run_dir/unsafe.txt (and the run's table); a check that fails stops the bench.
unsafe_down_vm=vm4 unsafe_event_vms=(vm5) unsafe_lead_s=10 # the agents run the default policy.unsafe_drain_lead_s
down_in_live_views() { # ADDRESS: every other node's nodetool status shows it DN
  local a
  for a in "${addresses[@]}"; do
    [[ $a == "$1" ]] && continue
    "$cluster" nodetool "$a" status 2>/dev/null | awk -v addr="$1" '$1 == "DN" && $2 == addr { found = 1 }
      END { exit !found }' || return 1
  done
}
unsafe_start_down_node() {
  local address=${addresses[${unsafe_down_vm#vm} - 1]}
  echo "$(date +%s%3N) $unsafe_down_vm started again" >>"$run_dir/phases"
  progress "starting $unsafe_down_vm ($address) again"
  "$cluster" start "$address" >>"$run_dir/unsafe-node-start.log" 2>&1 ||
    die "could not start $address again: $run_dir/unsafe-node-start.log"
}
play_unsafe_step() {
  local address=${addresses[${unsafe_down_vm#vm} - 1]} id label vm log unsafe_ms forced_ms approved nb_s margin
  local vms_checked=() notes=()
  label="rack2 (${unsafe_event_vms[*]}) Freeze 5 s while $unsafe_down_vm (rack1) is down"
  echo "$(date +%s%3N) $unsafe_down_vm (rack1) killed" >>"$run_dir/phases"
  "$cluster" kill "$address" >>"$run_dir/unsafe-node-start.log" 2>&1 || die "could not kill $address"
  progress "$unsafe_down_vm ($address) killed"
  wait_poll_s=2 wait_until 300 "every live node to see $address down" down_in_live_views "$address"
  step_before_settle=unsafe_start_down_node play_step "$label" \
    "{\"type\":\"Freeze\",\"resources\":$(printf '%s\n' "${unsafe_event_vms[@]}" | jq -R . | jq -sc .),\"not_before_in_s\":$notice_s,\"duration_s\":5,\"complete_after_s\":5}"
  id=$(tail -n 1 "$run_dir/events" | cut -f1)
  # Approvals of that event, by any VM (the emulator's log of every approval POST).
  approved=$(curl -sf --noproxy '*' "$admin/admin/approvals" |
    jq --arg id "$id" '[.[] | select((.event_id | ascii_downcase) == ($id | ascii_downcase))] | length') ||
    die "$label: could not read the emulator's approvals"
  read -r _ nb_s _ < <(grep "^$id " "$run_dir/not_before")
  {
    echo "   unsafe phase ($label, event $id, NotBefore $(date -d "@$nb_s" +%T)):"
    echo "     approvals of the event seen by the emulator: $approved"
  } >"$run_dir/unsafe.txt"
  if ! agents_run; then
    echo "     no agent in this mode: the gate is not checked" >>"$run_dir/unsafe.txt"
    return 0
  fi
  ((approved == 0)) || notes+=("approved $approved time(s) although the gate had to refuse")
  for vm in "${unsafe_event_vms[@]}"; do
    log=$(agent_log "$vm")
    unsafe_ms=$(jq -rn --arg id "$id" "$ts_ms"' first(inputs | select(.msg == "unsafe_to_drain"
      and (.event_id | ascii_downcase) == ($id | ascii_downcase)) | ms) // empty' <<<"$log")
    forced_ms=$(jq -rn --arg id "$id" "$ts_ms"' first(inputs | select(.msg == "drain_forced_unsafe"
      and (.event_id | ascii_downcase) == ($id | ascii_downcase)) | ms) // empty' <<<"$log")
    if [[ -z $unsafe_ms || -z $forced_ms ]]; then
      unsafe_ms=${unsafe_ms:+seen} forced_ms=${forced_ms:+seen}
      notes+=("$vm: unsafe_to_drain ${unsafe_ms:-MISSING}, drain_forced_unsafe ${forced_ms:-MISSING}")
      continue
    fi
    ((unsafe_ms < forced_ms)) || notes+=("$vm: drain_forced_unsafe before unsafe_to_drain")
    jq -en --arg id "$id" 'any(inputs; .msg == "event_approved" and (.event_id | ascii_downcase) == ($id | ascii_downcase))' \
      <<<"$log" >/dev/null && notes+=("$vm: event_approved logged for $id")
    # The forced drain's margin before the document's NotBefore (whole seconds, as the agent reads it): the lead,
    # or up to 1 s less (SPEC 4: a forced drain acts within 1 s of its instant); 1 s more is the ms rounding.
    margin=$(awk -v nb="$nb_s" -v f="$forced_ms" 'BEGIN { printf "%.1f", (nb * 1000 - f) / 1000 }')
    awk -v m="$margin" -v l="$unsafe_lead_s" 'BEGIN { exit !(m >= l - 1 && m <= l + 1) }' ||
      notes+=("$vm: forced drain ${margin} s before NotBefore, not within 1 s of NotBefore - ${unsafe_lead_s} s")
    echo "     $vm: unsafe_to_drain at $(date -d "@$((unsafe_ms / 1000))" +%T), drain_forced_unsafe at" \
      "$(date -d "@$((forced_ms / 1000))" +%T): ${margin} s before NotBefore (want ${unsafe_lead_s}, within 1 s)" \
      >>"$run_dir/unsafe.txt"
    vms_checked+=("$vm")
  done
  ((${#notes[@]} == 0)) || die "$label: the unsafe phase's checks failed: $(printf '%s; ' "${notes[@]}")logs: $run_dir"
  echo "     gate refused on ${vms_checked[*]}: no approval, unsafe_to_drain then drain_forced_unsafe" >>"$run_dir/unsafe.txt"
}
# After the run: the requests of the unsafe event's phase (due from its start to the next phase's), and how many
# failed (SPEC 10 asks for none); appended to run_dir/unsafe.txt.
unsafe_phase_failures() {
  local label="rack2 (${unsafe_event_vms[*]}) Freeze 5 s while $unsafe_down_vm (rack1) is down" from to
  # (the label's line and the next one, vm4's start)
  read -r from to < <(awk -v l="$label" 'found { print from, $1; exit } { t = $1; sub(/^[0-9]+ /, "") }
    $0 == l { found = 1; from = t }' "$run_dir/phases")
  [[ -n ${to:-} ]] || die "no phase '$label' followed by another in $run_dir/phases"
  awk -v from="$from" -v to="$to" '$1 >= from && $1 < to { n++; if ($4 ~ /^(timeout|failed|unanswered|missed)$/) f++ }
    END { printf "     the event phase'"'"'s requests: %d, failed %d (SPEC 10: none)\n", n, f }' \
    "$run_dir/requests" >>"$run_dir/unsafe.txt"
}

# ---- figures of a run ---------------------------------------------------------------------------------------------
# The run's impacts, one line each, and the seconds of impact in all (a Freeze its duration; a Reboot from the
# kill to the boot); in agent mode each drain's margin: from its drain_completed to the impact landing.
ts_ms='def ms: (.ts[0:19] + "Z" | fromdate) * 1000 + (.ts[20:23] | tonumber);'
impact_figures() {
  local id body vm type start end margin done_ms total=0 seconds
  while IFS=$'\t' read -r id body; do
    type=$(jq -r .type <<<"$body")
    for vm in $(jq -r '.resources[]' <<<"$body"); do
      start=$(jq -r --arg id "$id" --arg vm "$vm" 'select(.phase == "start" and .event_id == $id and .vm == $vm) |
        "\(.t_ms) \(if .landed == "absorbed" then "down for \(.down_by) (absorbed)" else .state end)"' \
        "$run_dir/impacts.jsonl" | tail -n 1)
      if [[ $start == *absorbed* ]]; then
        seconds=0 # the VM was down for another impact, counted there
      elif [[ $type == Freeze ]]; then
        seconds=$(jq -r .duration_s <<<"$body")
      else
        end=$(jq -r --arg id "$id" --arg vm "$vm" 'select(.phase == "end" and .event_id == $id and .vm == $vm) | .t_ms' \
          "$run_dir/impacts.jsonl" | tail -n 1)
        seconds=$(((${end:-${start%% *}} - ${start%% *}) / 1000))
      fi
      total=$((total + seconds))
      margin=""
      if agents_run; then
        done_ms=$(agent_log "$vm" | jq -rn --arg id "$id" "$ts_ms"' first(inputs | select(.msg == "drain_completed"
          and (.event_id | ascii_downcase) == ($id | ascii_downcase)) | ms) // empty')
        if [[ -n $done_ms ]]; then
          margin=", drained $(awk -v a="${start%% *}" -v d="$done_ms" 'BEGIN { printf "%.1f", (a - d) / 1000 }') s before"
        else
          margin=", NOT drained before"
        fi
      fi
      echo "   impact: $type $id on $vm: JVM ${start#* } at $(date -d "@$((${start%% *} / 1000))" +%T), ${seconds} s$margin" \
        >>"$run_dir/impacts.txt"
    done
  done <"$run_dir/events"
  echo "$total"
}

# --dcs 2: for each Freeze of dc1 and its twin of dc2 (posted right after it, wave_events), when each landed and the
# seconds both nodes were out together (each Freeze from its landing for its duration), into run_dir/dcs.txt; the
# bench fails when no pair was out together (the wave would not have shown both DCs out at once).
dcs_out_together() {
  local id body prev_id="" prev_body="" vm_a vm_b a b duration together overlapped=0
  landed_ms() { # ID VM -> when its impact landed (unix ms), empty when it did not land (absorbed, or none)
    jq -r --arg id "$1" --arg vm "$2" 'select(.phase == "start" and .event_id == $id and .vm == $vm
      and .landed == true) | .t_ms' "$run_dir/impacts.jsonl" | tail -n 1
  }
  : >"$run_dir/dcs.txt"
  while IFS=$'\t' read -r id body; do
    if [[ $(jq -r '"\(.region // "") \(.type)"' <<<"$body") == "dc2 Freeze" && -n $prev_id ]]; then
      duration=$(jq -r .duration_s <<<"$body")
      vm_a=$(jq -r '.resources[0]' <<<"$prev_body") vm_b=$(jq -r '.resources[0]' <<<"$body")
      a=$(landed_ms "$prev_id" "$vm_a") b=$(landed_ms "$id" "$vm_b")
      if [[ -z $a || -z $b ]]; then
        echo "   both DCs: Freeze $duration s of $vm_a (dc1) and $vm_b (dc2): not both landed" >>"$run_dir/dcs.txt"
      else
        together=$(awk -v a="$a" -v b="$b" -v d="$duration" 'BEGIN { s = a > b ? a : b; e = (a < b ? a : b) + d * 1000
          printf "%.1f", (e > s ? e - s : 0) / 1000 }')
        echo "   both DCs: Freeze $duration s of $vm_a (dc1) at $(date -d "@$((a / 1000))" +%T) and $vm_b (dc2) at" \
          "$(date -d "@$((b / 1000))" +%T): out together $together s" >>"$run_dir/dcs.txt"
        awk -v t="$together" 'BEGIN { exit !(t > 0) }' && overlapped=$((overlapped + 1))
      fi
    fi
    prev_id=$id prev_body=$body
  done <"$run_dir/events"
  ((overlapped > 0)) || die "--dcs 2: no Freeze of dc1 was out together with dc2's; $run_dir/dcs.txt, logs: $run_dir"
}

# Every 0.5 s: "unix_ms files bytes", the hints files held for rack1's nodes on every node's disk (open or closed).
hints_sampler() {
  local names=() id
  for id in "${catch_up_host_ids[@]}"; do names+=(-o -name "$id-*.hints"); done
  while :; do
    find "$CASSANDRA_CLUSTER_DIR"/node*/data/hints -maxdepth 1 -type f \( "${names[@]:1}" \) -printf '%s\n' 2>/dev/null |
      awk -v t="$(date +%s%3N)" '{ n++; b += $1 } END { print t, n + 0, b + 0 }'
    sleep 0.5
  done
}
# The catch-up's figures of a --catch-up run (availability_report.py catchup): DIR/catchup.txt for the table,
# DIR/catchup (its key=value line) and DIR/catchup-latencies for the spread.
first_ms() { awk NF | sort -n | head -n 1; } # the earliest of some unix_ms lines (empty ones skipped)
catch_up_figures() {
  local first second restored=0 caught=0 drained="" vm t outage_from next_impact steady_from steady_to out
  first=$(sed -n 1p "$run_dir/events" | cut -f1) second=$(sed -n 2p "$run_dir/events" | cut -f1)
  outage_from=$(jq -r --arg id "$first" 'select(.phase == "start" and .event_id == $id) | .t_ms' \
    "$run_dir/impacts.jsonl" | first_ms)
  next_impact=$(jq -r --arg id "$second" 'select(.phase == "start" and .event_id == $id) | .t_ms' \
    "$run_dir/impacts.jsonl" | first_ms)
  for vm in $(rack_vms 1 | jq -r '.[]'); do
    t=$(agent_log "$vm" | jq -rn "$ts_ms"' first(inputs | select(.msg == "restore_completed") | ms) // empty')
    [[ -n $t ]] || die "catch-up: $vm logged no restore_completed; logs: $run_dir"
    ((t > restored)) && restored=$t
    t=$(agent_log "$vm" | jq -rn "$ts_ms"' first(inputs | select(.msg == "caught_up" or .msg == "catch_up_timeout")
      | ms) // empty')
    [[ -n $t ]] && ((t > caught)) && caught=$t
  done
  for vm in $(rack_vms 2 | jq -r '.[]'); do
    drained+=$(agent_log "$vm" | jq -rn "$ts_ms"' first(inputs | select(.msg == "drain_started") | ms) // empty')$'\n'
  done
  drained=$(first_ms <<<"$drained")
  read -r steady_from _ < <(sed -n 1p "$run_dir/phases")
  read -r steady_to _ < <(sed -n 2p "$run_dir/phases")
  out=$(/usr/bin/python3 -I "$root/scripts/bench/availability_report.py" catchup --requests "$run_dir/requests" \
    --hints "$run_dir/hints" --outage-from-ms "$outage_from" --restored-ms "$restored" \
    --next-impact-ms "$next_impact" --steady-from-ms "$steady_from" --steady-to-ms "$steady_to" \
    --window-out "$run_dir/catchup-latencies") || die "catch-up figures of $run_dir failed"
  {
    grep -v '^catchup ' <<<"$out"
    awk -v r="$restored" -v c="$caught" -v d="${drained:-0}" 'BEGIN {
      printf "   rack1 restored; %s; rack2 drain_started %s\n",
        c ? sprintf("caught up %.1f s later", (c - r) / 1000) : "no catch-up logged",
        d ? sprintf("%.1f s after the restore", (d - r) / 1000) : "never" }'
  } >"$run_dir/catchup.txt"
  grep '^catchup ' <<<"$out" >"$run_dir/catchup"
}

hog_start() {
  local i
  for i in 1 2; do
    bash -c 'while :; do :; done' &
    track $!
  done
}

# run_wave MODE INDEX -> the run's table; its files in $work/run<INDEX>-<MODE>
run_wave() {
  mode=$1 run_dir=$work/run$2-$1
  local vm client clients=() dc load_before
  mkdir -p "$run_dir"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "== run $2 $mode: $(date +%T), load $load_before$( ((hog)) && echo ', with the hog')"
  ((hog)) && hog_start
  start_run_emulator "$run_dir"
  case $mode in
    approve_now)
      approve_now_loop >"$run_dir/approver.log" 2>&1 &
      track $!
      ;;
    agent | nowait)
      for vm in "${vms[@]}"; do start_vm_agent "$run_dir" "$vm"; done
      wait_until 300 "the agents started" agents_started
      ;;
  esac
  if ((dcs == 1)); then
    start_audit_client "$client_python" "$run_dir" "$rate" "$(date +%s)-$2-$mode" "$client_keyspace" \
      "$(IFS=,; echo "${addresses[*]}")"
    clients=("$client")
  else # a client per DC, its contact points and coordinators that DC's nodes
    local first=0
    for dc in dc1 dc2; do
      mkdir -p "$run_dir/$dc"
      start_audit_client "$client_python" "$run_dir/$dc" "$rate" "$(date +%s)-$2-$mode-$dc" "$client_keyspace" \
        "$(IFS=,; echo "${addresses[*]:first:3}")" "$dc"
      clients+=("$client")
      first=3
    done
  fi
  ((catch_up)) && { hints_sampler >"$run_dir/hints" & track $!; }
  echo "$(date +%s%3N) steady" >"$run_dir/phases"
  sleep $((catch_up ? 30 : 10))
  steps_done=0
  local n=$notice_s
  if ((catch_up)); then
    play_step "rack1 Freeze 20 s, the client writing" \
      "{\"type\":\"Freeze\",\"resources\":$(rack_vms 1),\"not_before_in_s\":$n,\"duration_s\":20,\"complete_after_s\":5}" \
      "{\"type\":\"Freeze\",\"resources\":$(rack_vms 2),\"not_before_in_s\":$catch_up_lead_s,\"duration_s\":5,\"complete_after_s\":5,\"after_removal\":\"rack2 Freeze 5 s, due at rack1's removal\"}"
  else
    local step=()
    mapfile -t step < <(wave_events 1 "{\"type\":\"Freeze\",\"not_before_in_s\":$n,\"duration_s\":5,\"complete_after_s\":5}")
    play_step "rack1 Freeze 5 s" "${step[@]}"
    mapfile -t step < <(wave_events 2 "{\"type\":\"Freeze\",\"not_before_in_s\":$n,\"duration_s\":20,\"complete_after_s\":5}")
    play_step "rack2 Freeze 20 s" "${step[@]}"
    mapfile -t step < <(wave_events 3 "{\"type\":\"Freeze\",\"not_before_in_s\":$n,\"duration_s\":10,\"complete_after_s\":5}"
      wave_events 3 "{\"type\":\"Reboot\",\"not_before_in_s\":$((n + 10 + 45)),\"complete_after_s\":$reboot_s}")
    play_step "rack3 Freeze 10 s, Reboot 45 s after" "${step[@]}"
    mapfile -t step < <(wave_events 1 "{\"type\":\"Freeze\",\"duration_s\":20,\"complete_after_s\":15,\"delay_impact_s\":10}")
    play_step "rack1 Freeze 20 s seen Started, impact +10 s" "${step[@]}"
    ((node_count == 6 && dcs == 1)) && play_unsafe_step
  fi
  echo "$(date +%s%3N) after" >>"$run_dir/phases"
  sleep 10
  # The clients stop, then read every acknowledged write back at ALL (every node is UN now).
  kill -TERM "${clients[@]}"
  for client in "${clients[@]}"; do
    wait_until 600 "the client's read-back at ALL" client_done "$client"
    forget_pids "$client"
    wait "$client" || die "a client failed (or its books do not balance: slots = sent + missed = answered + failed):" \
      "$run_dir/client.err, $run_dir/summary.json ($run_dir/dc*/ with --dcs 2)"
  done
  stop_all
  local impact_s title
  impact_s=$(impact_figures)
  title="run $2 $mode ($driver driver, $node_count nodes"
  ((dcs == 1)) || title+=" in 2 DCs"
  ((!coordinated)) || title+=", coordinated"
  ((!hog)) || title+=", hog"
  title+=", backend $backend$announce_label)"
  : >"$run_dir/table"
  if ((dcs == 2)); then
    for dc in dc1 dc2; do
      run_report "$run_dir/$dc" "$impact_s" "$title, $dc's client (LOCAL_QUORUM in $dc)" | grep -v '^totals ' >>"$run_dir/table"
    done
    # Both clients' books as one: the run's figures and the spread's.
    sort -n -k1,1 "$run_dir"/dc1/requests "$run_dir"/dc2/requests >"$run_dir/requests"
    jq -s 'reduce .[] as $s ({}; reduce ($s | to_entries[]) as $e (.;
      .[$e.key] = if ($e.value | type) == "number" then (.[$e.key] // 0) + $e.value else $e.value end))' \
      "$run_dir"/dc1/summary.json "$run_dir"/dc2/summary.json >"$run_dir/summary.json"
    title+=", both DCs' clients"
  fi
  run_report "$run_dir" "$impact_s" "$title" >>"$run_dir/table"
  cat "$run_dir/impacts.txt" >>"$run_dir/table"
  if ((dcs == 2)); then
    dcs_out_together
    cat "$run_dir/dcs.txt" >>"$run_dir/table"
  fi
  if ((catch_up)); then
    catch_up_figures
    cat "$run_dir/catchup.txt" >>"$run_dir/table"
  fi
  if ((node_count == 6 && dcs == 1 && !catch_up)); then
    unsafe_phase_failures
    cat "$run_dir/unsafe.txt" >>"$run_dir/table"
  fi
  echo "   load: $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end" >>"$run_dir/table"
  # The spread reads the totals line from the report.
  grep -v '^totals ' "$run_dir/table"
  grep '^totals ' "$run_dir/table" | tee "$run_dir/report"
  [[ $(jq .unverified "$run_dir/summary.json") == 0 ]] ||
    die "run $2 $mode: $(jq .unverified "$run_dir/summary.json") acknowledged writes could not be read back at ALL"
}
client_done() { ! pid_alive "$1"; }
run_report() { # DIR IMPACT_S TITLE: the table of the requests and summary.json in DIR, its totals line last
  "$client_python" -I "$root/scripts/bench/availability_report.py" run --requests "$1/requests" \
    --phases "$run_dir/phases" --summary "$1/summary.json" --impact-s "$2" --title "$3"
}

spread_args=() run_no=0
for ((r = 1; r <= repeat; r++)); do
  for mode in "${wanted[@]}"; do
    run_wave "$mode" $((++run_no))
    spread_args+=(--run "$mode=$run_dir")
  done
done
/usr/bin/python3 -I "$root/scripts/bench/availability_report.py" spread "${spread_args[@]}" \
  --announce-ms "${announce_ms:-default}" $( ((catch_up)) && echo --catch-up)
