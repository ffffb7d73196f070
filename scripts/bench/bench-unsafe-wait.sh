#!/usr/bin/env bash
# What an unsafe wait costs (SPEC 2.3 policy.unsafe_recheck_s, issue 31): on scripts/cassandra-cluster.sh's real
# 3-node cluster, rack2's node taken out (disablebinary, disablegossip), an agent for vm1 whose Freeze is due
# at once but far from its forced instant waits on an unsafe gate for SECONDS; each re-check is a `nodetool
# status` JVM. Measured per recheck setting: the agent's CPU and that of every process it started and reaped
# (/proc/PID/stat utime+stime+cutime+cstime, read just before its stop), the checks it ran (its nodetool_ran
# lines), CPU-seconds per check and per hour. `--recheck 1` is about the old rule at 1 Hz polls (a check at
# every poll: back to back). Everything on loopback; the cluster is started if it does not run, and rack2's
# node enabled again at the end.
# Usage: scripts/bench/bench-unsafe-wait.sh [--seconds N] [--recheck LIST]   (defaults 120, "5,1")
# Environment: BENCH_BIN (built binaries, default build/bin, built first), CASSANDRA_CLUSTER_DIR,
# CASSANDRA_FIRST_HOST (as cassandra-cluster.sh).
# Last line: recheck_s=LIST checks=LIST cpu_s_per_check=LIST cpu_s_per_hour=LIST
set -euo pipefail
script_name=bench-unsafe-wait.sh
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
seconds=120 rechecks=5,1
while (($#)); do
  case $1 in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --recheck) rechecks=${2:?--recheck needs a list}; shift 2 ;;
    -h | --help) print_header; exit 0 ;;
    *) usage_error "unknown argument '$1' (try --help)" ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || usage_error "--seconds must be a positive number, not '$seconds'"
[[ $rechecks =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || usage_error "--recheck must be a list like 5,1, not '$rechecks'"
cd "$cla_root"
bin=$(built_bin_dir "${BENCH_BIN:-}")
require_tools --hint scripts/install-deps.sh jq curl || exit 1
cluster=(scripts/cassandra-cluster.sh)
first=${CASSANDRA_FIRST_HOST:-1}
node1=127.0.0.$first node2=127.0.0.$((first + 1))

"${cluster[@]}" status | jq -e -s 'all(.state == "running")' >/dev/null 2>&1 || "${cluster[@]}" start >&2
make_work_dir cla-bench-unsafe-wait
"${cluster[@]}" nodetool "$node2" disablebinary >/dev/null
"${cluster[@]}" nodetool "$node2" disablegossip >/dev/null
cleanup_cmd "${cluster[@]}" nodetool "$node2" enablegossip
cleanup_cmd "${cluster[@]}" nodetool "$node2" enablebinary
seen_down() { "${cluster[@]}" nodetool "$node1" status | grep -q "^DN *$node2 "; }
wait_poll_s=2 wait_until 120 "$node2 DN in $node1's view" seen_down

ticks=$(getconf CLK_TCK)
cpu_of() { awk -v t="$ticks" '{ printf "%.2f\n", ($14 + $15 + $16 + $17) / t }' "/proc/$1/stat"; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); ${seconds} s of unsafe wait per setting; rack2 ($node2) out"
printf '%-10s %7s %8s %14s %14s\n' recheck_s checks cpu_s cpu_s_per_check cpu_s_per_hour
out_recheck="" out_checks="" out_per_check="" out_per_hour=""
for recheck in ${rechecks//,/ }; do
  dir=$work/recheck-$recheck
  mkdir -p "$dir"
  start_emulator "$bin/imds-emulator" "$dir" "vm1,0"
  config=$(jq -n --arg endpoint "http://$(emulator_vm_address "$dir" vm1)" --arg script "$cla_root/scripts/cassandra-cluster.sh" \
    --arg node "$node1" --argjson recheck "$recheck" '{
      imds: {endpoint: $endpoint, poll_interval_ms: 1000},
      node: {resource_name: "vm1", fault_domain: 0},
      cassandra: {nodetool: [$script, "nodetool", $node]},
      policy: {drain_lead_s: 3600, unsafe_drain_lead_s: 10, unsafe_recheck_s: $recheck},
      log: {level: "debug"}, http: {listen: ""}}')
  start_agent "$bin/cassandra-lifecycle-agent" "$dir" "$config"
  agent=$agent_started
  wait_poll_s=1 wait_until 300 "the agent's start-up" grep -q '"first_start"' "$dir/agent.jsonl"
  post_event '{"type":"Freeze","resources":["vm1"],"not_before_in_s":3000,"duration_s":5}' >/dev/null
  wait_poll_s=1 wait_until 300 "unsafe_to_drain" grep -q '"unsafe_to_drain"' "$dir/agent.jsonl"
  cpu_start=$(cpu_of "$agent") checks_start=$(grep -c '"subcommand":"status"' "$dir/agent.jsonl" || true)
  sleep "$seconds"
  cpu_end=$(cpu_of "$agent") checks_end=$(grep -c '"subcommand":"status"' "$dir/agent.jsonl" || true)
  stop_pids "$agent" "$emulator_pid"
  checks=$((checks_end - checks_start))
  ((checks > 0)) || die "no gate check ran in $seconds s at recheck $recheck: nothing was measured (log: $dir/agent.jsonl)"
  read -r cpu per_check per_hour < <(awk -v a="$cpu_start" -v b="$cpu_end" -v n="$checks" -v s="$seconds" \
    'BEGIN { c = b - a; printf "%.1f %.2f %.0f\n", c, c / n, c / s * 3600 }')
  printf '%-10s %7d %8s %14s %14s\n' "$recheck" "$checks" "$cpu" "$per_check" "$per_hour"
  out_recheck+="${out_recheck:+,}$recheck" out_checks+="${out_checks:+,}$checks"
  out_per_check+="${out_per_check:+,}$per_check" out_per_hour+="${out_per_hour:+,}$per_hour"
done
echo "recheck_s=$out_recheck checks=$out_checks cpu_s_per_check=$out_per_check cpu_s_per_hour=$out_per_hour"
