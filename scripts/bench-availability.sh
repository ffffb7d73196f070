#!/usr/bin/env bash
# Client availability through a maintenance wave on the real 3-node cluster (SPEC 10, issue 8).
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-availability.sh [--bin-dir DIR] [--runs LIST] [--rate N] [--notice-s N] [--freeze-s N]
                                     [--reboot-s N]
  The cluster of scripts/cassandra-cluster.sh (started if not every node runs) under a client at
  LOCAL_QUORUM (scripts/bench/availability_client.py: token-aware, idempotent, 2 s timeout, --rate requests/s,
  default 40, half writes) through the same wave once per run:
    noagent      nobody approves: each event starts at NotBefore, its impact lands on a serving node
    approve_now  the docs' sample behaviour: every Scheduled event approved at once, no drain
    agent        build/bin/cassandra-lifecycle-agent beside each node (drain, approve, restore)
  The wave, one rack at a time: a platform Freeze of --freeze-s (default 20) then a Reboot that keeps the
  VM down --reboot-s (default 15), each with --notice-s (default 60) of notice, played on the node by
  imds-emulator --impact-hook scripts/cluster/impact-hook.sh. Between steps the bench waits until every node is UN
  in every view. Prints a table per run, then
    failed_agent=N failed_noagent=N failed_approve_now=N p99_agent_ms=N p99_noagent_ms=N
  --runs LIST   comma-separated subset of noagent,approve_now,agent (default all three, in that order)
Environment: CASSANDRA_CLUSTER_DIR, CASSANDRA_FIRST_HOST (as cassandra-cluster.sh); BENCH_KEEP=1 keeps logs
  (the agents' at debug level, each node's system.log after every step) to correlate failures with.
Takes about 8 minutes per run.
EOF
}

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$cla_root
bin_dir=$root/build/bin runs=noagent,approve_now,agent rate=40 notice_s=60 freeze_s=20 reboot_s=15
while (($#)); do
  case $1 in
    --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
    --runs) runs=${2:?--runs needs a list}; shift 2 ;;
    --rate) rate=${2:?--rate needs a number}; shift 2 ;;
    --notice-s) notice_s=${2:?--notice-s needs seconds}; shift 2 ;;
    --freeze-s) freeze_s=${2:?--freeze-s needs seconds}; shift 2 ;;
    --reboot-s) reboot_s=${2:?--reboot-s needs seconds}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
progress() { echo "   $(date +%T) $*"; }

cluster=$root/scripts/cassandra-cluster.sh
require_tools --hint scripts/install-deps.sh jq curl || exit 1
require_bins "$bin_dir" "--bin-dir" cassandra-lifecycle-agent imds-emulator || exit 1
/usr/bin/python3 -I -c 'import cassandra' 2>/dev/null || die "python3-cassandra is missing (scripts/install-deps.sh)"
[[ $("$bin_dir/imds-emulator" --help 2>&1) == *--impact-hook* ]] || die "imds-emulator has no --impact-hook"

export CASSANDRA_CLUSTER_DIR=${CASSANDRA_CLUSTER_DIR:-$root/build/cassandra-cluster}
# (status into a variable: `grep -q` in a pipe would end it early, and pipefail would read that as "no")
nodes_status=$("$cluster" status 2>/dev/null) || nodes_status=""
if [[ -z $nodes_status ]] || grep -qv '"state":"running"' <<<"$nodes_status"; then
  "$cluster" stop >/dev/null
  "$cluster" start
fi
mapfile -t addresses < <("$cluster" status | jq -r .address)
((${#addresses[@]} == 3)) || die "the bench needs the 3-node cluster (found ${#addresses[@]} nodes)"

make_work_dir cla-bench-availability # removed at exit unless BENCH_KEEP=1 or the bench failed
keep_work=${BENCH_KEEP:-0} kept_note="logs kept in %s"
pids=() # the current run's processes, stopped after it
track() { # PID: one of the run's processes
  pids+=("$1")
  cleanup_pid "$1"
}
stop_all() {
  stop_pids "${pids[@]}"
  pids=()
}

# Every node answers CQL (cheap: no JVM), then every node's view shows every node UN (a nodetool JVM each).
cql_everywhere() {
  local a
  for a in "${addresses[@]}"; do (exec 3<>"/dev/tcp/$a/9042") 2>/dev/null || return 1; done
}
all_un_everywhere() {
  local a
  cql_everywhere || return 1
  for a in "${addresses[@]}"; do
    [[ $("$cluster" nodetool "$a" status 2>/dev/null | grep -c '^UN ') == 3 ]] || return 1
  done
}
wait_poll_s=1

# ---- one run ----------------------------------------------------------------------------------------------
start_run_emulator() { # run_dir restart(1|0)
  local dir=$1 k
  IMPACT_HOOK_RESTART=$2 IMPACT_HOOK_NODES="vm1=${addresses[0]},vm2=${addresses[1]},vm3=${addresses[2]}" \
    IMPACT_HOOK_LOG=$dir/impact-hook-start.log \
    start_emulator "$bin_dir/imds-emulator" "$dir" vm1,0 vm2,1 vm3,2 -- \
    --impact-hook "$root/scripts/cluster/impact-hook.sh"
  pids+=("$emulator_pid") # registered for cleanup by start_emulator
  vm_url=()
  for k in 1 2 3; do vm_url[k]=http://$(emulator_vm_address "$dir" "vm$k"); done
}

approve_now_loop() { # the docs' sample: poll each VM's document, approve every Scheduled event at once
  local q="metadata/scheduledevents?api-version=2020-07-01" k id
  while :; do
    for k in 1 2 3; do
      for id in $(curl -sf -H Metadata:true "${vm_url[k]}/$q" | jq -r '.Events[] | select(.EventStatus=="Scheduled") | .EventId'); do
        curl -sf -o /dev/null -H Metadata:true -X POST -d "{\"StartRequests\":[{\"EventId\":\"$id\"}]}" "${vm_url[k]}/$q" || true
      done
    done
    sleep 1
  done
}

start_agents() { # run_dir
  local k config
  for k in 1 2 3; do
    config=$(jq -n --arg endpoint "${vm_url[k]}" --arg cluster "$cluster" --arg node "${addresses[k - 1]}" \
      --argjson lead $((notice_s - 5)) --arg level "$([[ ${BENCH_KEEP:-0} == 1 ]] && echo debug || echo info)" '{
        imds: {endpoint: $endpoint, poll_interval_ms: 1000, request_timeout_ms: 2000},
        node: {resource_name: "", fault_domain: -1},
        cassandra: {nodetool: [$cluster, "nodetool", $node], command_timeout_s: 120,
                    restart_command: [$cluster, "start", $node]},
        topology: {replication_factor: 3, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
        policy: {drain_lead_s: $lead, unsafe_drain_lead_s: 10, flush_before_restart: true},
        log: {level: $level},
        http: {listen: "127.0.0.1:0"}}')
    start_agent "$bin_dir/cassandra-lifecycle-agent" "$1/agent$k" "$config"
    pids+=("$agent_started") # registered for cleanup by start_agent
  done
}
agents_started() { # each agent past its start-up checks (its nodetool calls would load the steady phase)
  local k
  for k in 1 2 3; do grep -qs '"http_listening"' "$1/agent$k/agent.jsonl" || return 1; done
}
restores() { cat "$1"/agent*/agent.jsonl 2>/dev/null | grep -c '"restore_completed"' || true; }

restored_at_least() { (($(restores "$1") >= $2)); }

keep_node_logs() { # dest: each node's system.log so far (a restart moves it to .prev, the next one loses it)
  [[ ${BENCH_KEEP:-0} == 1 ]] || return 0
  local k
  for k in 1 2 3; do
    mkdir -p "$1/node$k"
    cp "$CASSANDRA_CLUSTER_DIR/node$k/logs/"system.log* "$1/node$k/" 2>/dev/null || true
  done
}

# play_step run_dir mode phase_label event_json
play_step() {
  local dir=$1 mode=$2 label=$3 body=$4 id
  echo "$(date +%s%3N) $label" >>"$dir/phases"
  id=$(post_event "$body")
  progress "$label: event $id"
  wait_until $((notice_s + freeze_s + reboot_s + 120)) "$label over" event_gone "$id"
  ((++steps_done))
  keep_node_logs "$dir/cassandra-$steps_done"
  if [[ $mode == agent ]]; then wait_until 300 "$label restored by the agent" restored_at_least "$dir" "$steps_done"; fi
  wait_poll_s=3 wait_until 300 "every node UN in every view after $label" all_un_everywhere
  progress "$label: over, every node UN in every view"
}

run_wave() { # mode -> prints the table; leaves totals in $work/mode/report
  local mode=$1 dir=$work/$1 k
  mkdir -p "$dir"
  echo "== run $mode: $(date +%T)"
  start_run_emulator "$dir" "$([[ $mode == agent ]] && echo 0 || echo 1)"
  case $mode in
    approve_now)
      approve_now_loop >"$dir/approver.log" 2>&1 &
      track $!
      ;;
    agent)
      start_agents "$dir"
      wait_until 300 "the agents started" agents_started "$dir"
      ;;
  esac
  /usr/bin/python3 -I "$root/scripts/bench/availability_client.py" --contacts "$(IFS=,; echo "${addresses[*]}")" \
    --rate "$rate" --out "$dir/requests" >"$dir/client.out" 2>"$dir/client.err" &
  local client=$!
  track "$client"
  wait_until 60 "the client connected" grep -qs ready "$dir/client.out"
  echo "$(date +%s%3N) steady" >"$dir/phases"
  sleep 10
  steps_done=0
  for k in 1 2 3; do
    play_step "$dir" "$mode" "rack$k freeze" '{"type":"Freeze","resources":["vm'"$k"'"],"not_before_in_s":'"$notice_s"',"duration_s":'"$freeze_s"',"complete_after_s":2}'
    play_step "$dir" "$mode" "rack$k reboot" '{"type":"Reboot","resources":["vm'"$k"'"],"not_before_in_s":'"$notice_s"',"complete_after_s":'"$reboot_s"'}'
  done
  echo "$(date +%s%3N) after" >>"$dir/phases"
  sleep 10
  stop_all
  /usr/bin/python3 -I "$root/scripts/bench/availability_report.py" --requests "$dir/requests" --phases "$dir/phases" \
    --title "run $mode" | tee "$dir/report"
}

IFS=, read -ra wanted <<<"$runs"
for mode in "${wanted[@]}"; do
  case $mode in noagent | approve_now | agent) run_wave "$mode" ;; *) die "unknown run '$mode'" ;; esac
done

total() { # mode key
  [[ -f $work/$1/report ]] || { echo -1; return; }
  tail -1 "$work/$1/report" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k {print $2}'
}
echo "failed_agent=$(total agent failed) failed_noagent=$(total noagent failed)" \
  "failed_approve_now=$(total approve_now failed) p99_agent_ms=$(total agent p99_ms)" \
  "p99_noagent_ms=$(total noagent p99_ms)"
