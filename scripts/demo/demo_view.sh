# Sourced by scripts/demo.sh and scripts/demo/demo_real.sh (after scripts/lib.sh): what both game days share:
# their options, their agents' start-up and stop, the driver's narration, how the wave is played, watched (rack
# monitor, live view) and reported (summary, verdict). Uses the game day's variables: work, cluster, admin, vms,
# rf, racks_allowed, monitor_file, driver_log, agent_pid, failures; and its functions demo_option (its own
# options) and wave (the driver).
# shellcheck shell=bash disable=SC2016,SC2034,SC2154 # single-quoted jq programs; variables shared with the game day

# ---- options and binaries -----------------------------------------------------------------------------------------
# The options both game days take: --no-build, --bin-dir DIR (default DEMO_BIN_DIR, else build/bin), -h/--help, and
# those the script's demo_option accepts (it returns 1 for one it does not know). Then, unless --no-build, what is
# missing is installed (demo_bins builds).
demo_options() {
  demo_build=1
  bin_dir=${DEMO_BIN_DIR:-$cla_root/build/bin}
  while (($#)); do
    case $1 in
      --no-build) demo_build=0 ;;
      --bin-dir)
        [[ $# -ge 2 ]] || usage_error "--bin-dir needs a directory"
        bin_dir=$2
        shift
        ;;
      -h | --help) print_header && exit 0 ;;
      *) demo_option "$1" || usage_error "unknown argument: $1 (try --help)" ;;
    esac
    shift
  done
  ((!demo_build)) || "$cla_root/scripts/install-deps.sh"
}
# demo_bins NAME...: unless --no-build, builds only the NAMEd executables (no test: scripts/test.sh builds those);
# then bin_dir made absolute, and each NAME must be an executable there (else exit 2).
demo_bins() {
  ((!demo_build)) || "$cla_root/scripts/build.sh" --target "$@"
  [[ -d $bin_dir ]] || usage_error "no directory $bin_dir (build first, or pass --bin-dir)"
  bin_dir=$(cd "$bin_dir" && pwd)
  require_bins "$bin_dir" "pass --bin-dir" "$@" || exit 2
}

# One node's state in the cluster file: up / DRAINED (gossip and binary off) / flushed / down, or a half state.
node_state_jq='def state: if .running == false then "down" elif .drained then "flushed"
  elif (.gossip | not) and (.binary | not) then "DRAINED" elif (.gossip | not) then "gossip-off"
  elif (.binary | not) then "binary-off" else "up" end;'
# Racks down for replication (a node not UN to its peers: stopped, gossip off or flushed), then racks not
# fully up (a node with only its client port off still holds and serves its replicas).
racks_down_jq="$node_state_jq"'[.datacenters[].racks[]] as $r
  | ($r | map(select(any(.nodes[]; state | IN("up", "binary-off") | not)) | .name)) as $down
  | ($r | map(select(any(.nodes[]; state != "up")) | .name)) as $notup
  | [($down | length), ($down | join(",") | if . == "" then "-" else . end),
     ($notup | length), ($notup | join(",") | if . == "" then "-" else . end)] | @tsv'
ts_jq='def t: (.ts[0:19] + "Z" | fromdate) + (.ts[20:23] | tonumber) / 1000;'

all_up() { jq -e "$node_state_jq"'all(.datacenters[].racks[].nodes[]; state == "up")' "$cluster" >/dev/null; }
rack_up() {
  jq -e --arg r "$1" "$node_state_jq"'all(.datacenters[].racks[] | select(.name == $r) | .nodes[]; state == "up")' \
    "$cluster" >/dev/null
}
agent_log() { echo "$work/agents/vm$1/agent.jsonl"; }
count_msg() { cat "$work"/agents/vm*/agent.jsonl | jq -s --arg m "$1" 'map(select(.msg == $m)) | length'; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; } # seconds since $1

# Samples the cluster file every 0.2 s; appends "t, racks down, names, racks not fully up, names" on change.
monitor() {
  local last="" line
  while :; do
    if line=$(jq -r "$racks_down_jq" "$cluster" 2>/dev/null) && [[ $line != "$last" ]]; then
      printf '%s\t%s\n' "$EPOCHREALTIME" "$line" >>"$monitor_file"
      last=$line
    fi
    sleep 0.2
  done
}

# Notable agent log lines and the driver's lines since the last call, oldest first, as "  12.3s  text".
# (keyspace_unprotectable: vm0's only; every agent reports the same keyspaces.)
# (drain_not_admitted, agentless_*, watcher_role and a stop within the wave: only the coordinated game day's.)
feed_jq="$ts_jq"'select((.msg | IN("unsafe_to_drain", "drain_started", "drain_completed", "event_approved",
    "restore_completed", "caught_up", "drain_forced_unsafe", "impact_without_drain", "drain_not_admitted",
    "agentless_record_removed", "watcher_role", "agent_stopped")) or .level == "error"
    or (.msg == "keyspace_unprotectable" and $vm == "vm0"))
  | [(t - ($t0 | tonumber)),
     "\($vm)  \(.msg)" + (if .event_type then "  \(.event_type) \(.event_id[0:8])" else "" end)
     + (if .msg | IN("agentless_impact", "agentless_record_removed") then "  for \(.vm)" else "" end)
     + (if .msg == "watcher_role" then "  \(.previous) -> \(.role)" else "" end)
     + (if .out_racks then "  out racks: \(.out_racks | join(","))" else "" end)
     + (if .msg == "keyspace_unprotectable" then "  \(.keyspace): \(.class) rf \(.rf | tojson) at \(.consistency)"
        else "" end)
     + (if .keyspace and .msg == "unsafe_to_drain"
        then "  \(.keyspace) range (\(.start_token), \(.end_token)]: \(.available) of \(.needed) needed" else "" end)
     + (if .down_racks then "  down racks: \(.down_racks | join(","))" else "" end)
     + (if .msg == "restore_completed" then "  out \(.out_s) s, restarted: \(.restarted)" else "" end)
     + (if .msg == "caught_up" then "  after \(.catch_up_s) s (hints files held for it: \(.hint_files))" else "" end)
     + (if .level == "error" then "  [error] \(.detail // .reason // "")" else "" end)] | @tsv'
declare -A seen_lines=()
feed() { # keeps its offsets in seen_lines: call it in the main shell, not in $(...)
  local f n k parts=()
  for f in "$work"/agents/vm*/agent.jsonl "$driver_log"; do
    [[ -f $f ]] || continue
    n=$(wc -l <"$f") # whole lines only: a line being written has no newline yet
    ((n > ${seen_lines[$f]:-0})) || continue
    parts+=("$f" "$((${seen_lines[$f]:-0} + 1))" "$((n - ${seen_lines[$f]:-0}))")
    seen_lines[$f]=$n
  done
  ((${#parts[@]})) || return 0
  for ((k = 0; k < ${#parts[@]}; k += 3)); do
    f=${parts[k]}
    if [[ $f == "$driver_log" ]]; then
      tail -n +"${parts[k + 1]}" "$f" | head -n "${parts[k + 2]}" |
        awk -F'\t' -v t0="$t0" '{ printf "%.3f\t>> %s\n", $1 - t0, $2 }'
    else
      tail -n +"${parts[k + 1]}" "$f" | head -n "${parts[k + 2]}" |
        jq -r --arg vm "$(basename "$(dirname "$f")")" --arg t0 "$t0" "$feed_jq" || true
    fi
  done | sort -n -k1,1 | awk -F'\t' '{ printf "  %6.1fs  %s\n", $1, $2 }'
}

# The once-a-second block: racks down now and at most, each rack's nodes, the emulator's events.
block() {
  local now=$EPOCHREALTIME cur max=0
  cur=$(jq -r "$racks_down_jq" "$cluster" | cut -f1) || cur="?"
  [[ -s $monitor_file ]] && max=$(cut -f2 "$monitor_file" | sort -n | tail -n 1)
  echo "-- t+$(since "$t0")s  racks down now $cur, most at once $max (RF $rf allows $racks_allowed)"
  jq -r "$node_state_jq"'.datacenters[].racks[] | "   \(.name)  " + ([.nodes[]
      | "vm\(.address | split(".")[3] | tonumber - 1) \(state)" | . + (" " * (16 - length))] | join("") | sub(" +$"; ""))' \
    "$cluster" || echo "   (cluster file unreadable)"
  curl -sf "$admin/admin/events" | jq -r --argjson now "$now" 'def in_s(t): [t - $now, 0] | max | round;
      .[] | "   event \(.type) \(.resources | join(",")) \(.status)"
      + (if .status == "Scheduled" then ", NotBefore in \(in_s(.not_before)) s, approved \(.approvals | length)/\(.resources | length)"
         else ", ends in \(in_s(.removal_at)) s" end) + (if .source == "User" then " (user)" else "" end)
      + "  [\(.EventId[0:8])]"' || echo "   (emulator not answering)"
}

# Draws feed and block once a second until the process $1 (the driver) ends or $2 seconds have passed.
live_view() {
  local driver=$1 limit=$2 tty=0 height=0 running block_out next_us now_us
  [[ -t 1 ]] && tty=1
  next_us=${EPOCHREALTIME/./}
  while :; do
    running=0
    kill -0 "$driver" 2>/dev/null && running=1
    feed >"$work/feed.txt"
    block_out=$(block)
    if ((tty && height > 0)); then printf '\033[%dA\033[J' "$height"; fi # redraw the block in place
    cat "$work/feed.txt"
    printf '%s\n' "$block_out"
    height=$(printf '%s\n' "$block_out" | wc -l)
    ((running)) || return 0
    if (($(since "$t0" | cut -d. -f1) >= limit)); then
      kill "$driver" 2>/dev/null || true
      return 1
    fi
    next_us=$((next_us + 1000000))
    now_us=${EPOCHREALTIME/./}
    if ((next_us > now_us)); then
      sleep "$(printf '%d.%06d' $(((next_us - now_us) / 1000000)) $(((next_us - now_us) % 1000000)))"
    fi
  done
}

# "vm0 1, vm1 2, ..." for one msg.
per_vm() {
  local i
  for ((i = 0; i < vms; i++)); do
    printf 'vm%d %s\n' "$i" "$(jq -s --arg m "$1" 'map(select(.msg == $m)) | length' "$work/agents/vm$i/agent.jsonl")"
  done | paste -sd, | sed 's/,/, /g'
}

# Every keyspace some agent reported as unprotectable, "name (class rf)", comma-separated.
unprotectable_keyspaces() {
  cat "$work"/agents/vm*/agent.jsonl |
    jq -s -r 'map(select(.msg == "keyspace_unprotectable") | "\(.keyspace) (\(.class) rf \(.rf | tojson))")
              | unique | join(", ")'
}

# The summary lines, from the agents' logs, the monitor's file and the approvals JSON in $1.
print_summary() {
  local approvals=$1 i longest waits outages
  longest=$(for ((i = 0; i < vms; i++)); do
    jq -r --arg vm "vm$i" 'select(.msg == "restore_completed") | "\(.out_s)\t\($vm)"' "$work/agents/vm$i/agent.jsonl"
  done | sort -n | tail -n 1)
  waits=$(for ((i = 0; i < vms; i++)); do
    jq -s -r --arg vm "vm$i" "$ts_jq"'. as $all | .[] | select(.msg == "unsafe_to_drain") | . as $u
      | ($all | map(select(.msg == "drain_started" and .event_id == $u.event_id)) | first) as $d
      | "\($vm) \(if $d then "waited \(($d | t) - ($u | t) | . * 10 | round / 10) s" else "never drained" end)"
      + " for \($u.down_racks | join(","))"' "$work/agents/vm$i/agent.jsonl"
  done | paste -sd';' | sed 's/;/; /g')
  outages=$(awk -F'\t' -v t0="$t0" '
    { delete now; n = split($3 == "-" ? "" : $3, down, ","); for (k = 1; k <= n; k++) now[down[k]] = 1
      for (r in now) if (!(r in from)) from[r] = $1
      for (r in from) if (!(r in now)) { printf "%.1f\t%s %.1f-%.1fs\n", from[r] - t0, r, from[r] - t0, $1 - t0; delete from[r] } }
    END { for (r in from) printf "%.1f\t%s from %.1fs\n", from[r] - t0, r, from[r] - t0 }' "$monitor_file" |
    sort -n | cut -f2 | paste -sd';' | sed 's/;/, /g')
  echo "   drains started:     $(count_msg drain_started) ($(per_vm drain_started))"
  echo "   restores completed: $(count_msg restore_completed) ($(per_vm restore_completed))"
  echo "   most racks down at once: $(cut -f2 "$monitor_file" | sort -n | tail -n 1) (RF $rf allows $racks_allowed;" \
    "counting nodes with only the client port off too: $(cut -f4 "$monitor_file" | sort -n | tail -n 1))"
  echo "   rack outages (a node not UN; the monitor samples ${monitor_pace:-every 0.2 s}): ${outages:-none}"
  echo "   approvals: $(jq length <<<"$approvals") by VMs, for $(jq 'map(.event_id) | unique | length' <<<"$approvals") events (GET /admin/approvals)"
  echo "   unsafe_to_drain waits: $(count_msg unsafe_to_drain)${waits:+ ($waits)}"
  echo "   keyspaces the gate cannot protect (keyspace_unprotectable, left out of its verdict): $(unprotectable_keyspaces)"
  echo "   longest time a node was out: ${longest%%$'\t'*} s (${longest##*$'\t'})"
}

# The jq one-liner that follows one EventId across every agent's log, and its output.
follow_event() {
  local id=$1 follow='select(.event_id == $id) | [.ts, (input_filename | split("/")[-2]), .msg, .notification // .event_status] | @tsv'
  echo "   jq -r --arg id $id '$follow' $work/agents/*/agent.jsonl | sort"
  jq -r --arg id "$id" "$follow" "$work"/agents/*/agent.jsonl | sort | sed 's/^/   /'
}

# ---- the game day's steps -----------------------------------------------------------------------------------------
# The agent of vm$1 is up once its /healthz says its last IMDS poll succeeded; one that exited is fatal.
agent_healthy() {
  local port
  alive_or_die "${agent_pid[$1]}" "agent vm$1" "$work/agents/vm$1/stderr"
  port=$(jq -r 'select(.msg=="http_listening") | .port' "$(agent_log "$1")" 2>/dev/null || true)
  [[ -n $port ]] && url_answers "http://127.0.0.1:$port/healthz" && agent_http[$1]=http://127.0.0.1:$port
}
# Every agent healthy, each within $1 seconds; fills agent_http.
wait_agents_healthy() {
  local i
  agent_http=()
  for ((i = 0; i < vms; i++)); do wait_poll_s=0.1 wait_until "$1" "agent vm$i to be healthy" agent_healthy "$i"; done
}

# The driver's lines (playing Azure), read by the live view.
narrate() { printf '%s\t%s\n' "$EPOCHREALTIME" "$*" >>"$driver_log"; }
status_is() { [[ $(event_field "$1" status) == "$2" ]]; }
restores_at_least() { (($(count_msg restore_completed) >= $1)); }

# The monitor in the background, wave (the script's driver) in the background, the live view in front until the
# driver ends or $1 seconds have passed. Sets wave_s; adds to failures a wave that did not finish or complete.
play_wave() {
  local limit=$1 view_rc=0 driver_rc=0 driver_pid monitor_pid
  monitor &
  monitor_pid=$!
  cleanup_pid "$monitor_pid"
  t0=${EPOCHREALTIME}
  wave >"$work/driver.out" 2>&1 &
  driver_pid=$!
  cleanup_pid "$driver_pid"
  echo "== rolling maintenance wave: '>>' lines are the driver (playing Azure), the others the agents' logs"
  live_view "$driver_pid" "$limit" || view_rc=$?
  wait "$driver_pid" || driver_rc=$?
  forget_pids "$driver_pid"
  wave_s=$(since "$t0")
  stop_pids "$monitor_pid"
  ((view_rc == 0)) || failures+=("the wave did not finish within $limit s")
  ((driver_rc == 0)) || failures+=("the wave did not complete: $(tail -n 1 "$work/driver.out")")
}

# Each agent must still be alive (its GET /state goes to states), then stop on SIGTERM with exit 0; then the
# emulator too. An agent the game day stopped itself (stopped_on_purpose: its index -> the exit status its signal
# gives) must be gone already, with that status; states has nothing for it. Sets dead (1 for an agent that had
# died); adds to failures.
stopped_on_purpose=()
stop_agents_and_emulator() {
  local i rc
  states=() dead=()
  for ((i = 0; i < vms; i++)); do
    dead[i]=0
    if [[ -n ${stopped_on_purpose[i]:-} ]]; then
      states[i]=""
      if pid_alive "${agent_pid[i]}"; then
        failures+=("agent vm$i still ran after the game day stopped it")
        kill -TERM "${agent_pid[i]}"
      fi
    elif pid_alive "${agent_pid[i]}"; then
      states[i]=$(curl -sf --noproxy '*' "${agent_http[i]}/state" || echo '{}')
    else
      dead[i]=1
    fi
  done
  for ((i = 0; i < vms; i++)); do
    ((dead[i])) || [[ -n ${stopped_on_purpose[i]:-} ]] || kill -TERM "${agent_pid[i]}" 2>/dev/null || true
  done
  for ((i = 0; i < vms; i++)); do
    rc=0
    wait "${agent_pid[i]}" || rc=$?
    if [[ -n ${stopped_on_purpose[i]:-} ]]; then
      ((rc == stopped_on_purpose[i])) ||
        failures+=("agent vm$i exited $rc when the game day stopped it (expected ${stopped_on_purpose[i]})")
    elif ((dead[i])); then
      failures+=("agent vm$i died during the game day (exit status $rc; see $work/agents/vm$i/stderr)")
    elif ((rc != 0)); then
      failures+=("agent vm$i exited $rc on SIGTERM")
    fi
  done
  forget_pids "${agent_pid[@]}"
  kill -TERM "$emulator_pid" 2>/dev/null || true
  wait "$emulator_pid" || failures+=("imds-emulator exited $? on SIGTERM")
  forget_pids "$emulator_pid"
}

# No agent logged an error line: every drain is safe or waits for safety (drain_forced_unsafe would be an error),
# restart_command is configured (no restart_required), nodetool does not fail (no nodetool_failed). But for the
# lines a scene expects (expected_error_lines, a JSON array of objects: a line with every field of one of them).
expected_error_lines='[]'
check_no_error_lines() {
  local errors
  errors=$(cat "$work"/agents/vm*/agent.jsonl | jq -c --argjson expected "$expected_error_lines" 'select(.level == "error")
    | select(. as $line | $expected | any(to_entries | all($line[.key] == .value)) | not)')
  [[ -z $errors ]] || failures+=("agents logged error lines: $errors")
}

# The verdict: FAILED with every failure (exit 1), or PASSED (passed_note: what that says of error lines and stops).
passed_note="no error lines, every agent stopped cleanly"
finish() {
  if ((${#failures[@]})); then
    echo "== FAILED"
    printf '   - %s\n' "${failures[@]}"
    exit 1
  fi
  echo "== PASSED: at most $max_down rack down at once, every node back in service, $passed_note"
}
