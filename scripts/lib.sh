# The one library of scripts/ (as kubernetes' hack/lib/): a script sources it first and then holds only its own
# steps. It gives one way to say and die, one cleanup trap fed by a registry, waiting, loopback ports, and
# imds-emulator's start and admin API. Sourcing it changes no shell option and sets no trap.
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"        from scripts/; from a room: .../../lib.sh
# It sets cla_root (the repo, absolute) and, unless the script set it first, script_name (the prefix of say, log
# and die: the script's file name without .sh).
# shellcheck shell=bash

[[ -z ${cla_lib_loaded:-} ]] || return 0
cla_lib_loaded=1
cla_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${script_name:-} ]]; then
  script_name=${0##*/}
  script_name=${script_name%.sh}
fi

# ---- saying and dying ---------------------------------------------------------------------------------------------
say() { echo "$script_name: $*"; }      # a line for the reader, on stdout
log() { echo "$script_name: $*" >&2; }  # progress or a problem, on stderr
die() { # a failure: exit 1 (in a subshell, that subshell's)
  log "$@"
  exit 1
}
usage_error() { # bad arguments or a missing prerequisite: exit 2
  log "$@"
  exit 2
}
# The script's header comment (the lines after the shebang up to the first that is not a comment), for --help.
print_header() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }

# require_tools [--hint TEXT] TOOL...: says which TOOL is not on PATH ("TOOL is missing (TEXT)"; by default
# scripts/install-deps.sh installs it) and returns 1; the caller chooses the exit status.
require_tools() {
  local hint="scripts/install-deps.sh installs it" tool missing=0
  if [[ ${1:-} == --hint ]]; then
    hint=$2
    shift 2
  fi
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { log "$tool is missing ($hint)"; missing=1; }
  done
  return "$missing"
}

# require_bins DIR HINT NAME...: says which DIR/NAME is not an executable ("... is missing (build first, or HINT)")
# and returns 1.
require_bins() {
  local dir=$1 hint=$2 name missing=0
  shift 2
  for name in "$@"; do
    [[ -x $dir/$name ]] || { log "$dir/$name is missing (build first, or $hint)"; missing=1; }
  done
  return "$missing"
}

# built_bin_dir [DIR]: prints DIR made absolute; without DIR, builds (scripts/build.sh, quiet) and prints
# <repo>/build/bin. For the benchmarks' BENCH_BIN.
built_bin_dir() {
  if [[ -n ${1:-} ]]; then
    (cd "$1" && pwd)
  else
    "$cla_root/scripts/build.sh" >/dev/null || return
    echo "$cla_root/build/bin"
  fi
}

# ---- cleanup: a registry and one trap -----------------------------------------------------------------------------
# A script registers what must not outlive it; the first registration sets the one trap, on EXIT, INT (exit 130)
# and TERM (exit 143). At exit: every registered pid gets SIGTERM (the newest first) and is waited for; each
# registered command runs; each work dir is removed, or kept when keep_work is 1 or the script failed (unless
# keep_on_failure=0), with the note kept_note (printf, %s the dir) or removed_note. The exit status stays.
cleanup_pids=() cleanup_cmds=() cleanup_dirs=() cleanup_shell=""
keep_work=0 keep_on_failure=1 kept_note="work dir kept: %s" removed_note="" # a script sets them after sourcing

cleanup_arm() {
  [[ -z $cleanup_shell ]] || return 0
  cleanup_shell=$BASHPID # a child forked from it may meet the trap before it execs: it cleans nothing
  trap cleanup_at_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
cleanup_pid() { # PID...: SIGTERM and waited for at exit
  cleanup_pids+=("$@")
  cleanup_arm
}
cleanup_cmd() { # CMD ARGS...: run at exit, after the pids are gone
  cleanup_cmds+=("$(printf '%q ' "$@")")
  cleanup_arm
}
make_work_dir() { # NAME: sets work to a new dir ${TMPDIR:-/tmp}/NAME.XXXXXX, removed or kept at exit
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  cleanup_dirs+=("$work")
  cleanup_arm
}
forget_pids() { # PID...: no longer the cleanup's (the script waited for them itself: a pid may be reused)
  local p q kept=()
  for q in "${cleanup_pids[@]}"; do
    for p in "$@"; do [[ $q == "$p" ]] && continue 2; done
    kept+=("$q")
  done
  cleanup_pids=("${kept[@]}")
}
stop_pids() { # PID...: SIGTERM now, wait for each, forget them
  local p
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "$@"; do wait "$p" 2>/dev/null || true; done
  forget_pids "$@"
}
cleanup_at_exit() {
  local status=$? i cmd dir
  trap - EXIT INT TERM
  [[ $BASHPID == "$cleanup_shell" ]] || exit "$status"
  set +e # each may be gone already (Ctrl-C reaches the whole process group)
  for ((i = ${#cleanup_pids[@]} - 1; i >= 0; i--)); do kill -TERM "${cleanup_pids[i]}" 2>/dev/null; done
  for i in "${cleanup_pids[@]}"; do wait "$i" 2>/dev/null; done
  for cmd in "${cleanup_cmds[@]}"; do eval "$cmd"; done
  for dir in "${cleanup_dirs[@]}"; do
    if [[ $keep_work == 1 ]] || ((status != 0 && keep_on_failure)); then
      # shellcheck disable=SC2059 # the note is the format
      [[ -z $kept_note ]] || printf "$kept_note\n" "$dir"
    else
      rm -rf "$dir"
      # shellcheck disable=SC2059
      [[ -z $removed_note ]] || printf "$removed_note\n" "$dir"
    fi
  done
  exit "$status"
}

# ---- mounts -------------------------------------------------------------------------------------------------------
mounted_below() { awk -v p="$1/" '{ gsub(/\\040/, " ", $2) } index($2, p) == 1 { print $2 }' /proc/mounts | sort -r; }
unmount_below() { # DIR: unmounts what a killed run left mounted below DIR (a game day's state tmpfs), saying so
  local m
  for m in $(mounted_below "$(cd "$1" 2>/dev/null && pwd || echo "$1")"); do
    log "unmounting $m, left mounted by a run that was killed"
    umount "$m" || die "could not unmount $m (mounted below $1)"
  done
}

# ---- waiting ------------------------------------------------------------------------------------------------------
# wait_until LIMIT_S WHAT CMD...: runs CMD every wait_poll_s seconds (default 0.2) until it succeeds; dies when
# LIMIT_S seconds pass first. CMD may die itself (say, when the process it waits for is gone).
wait_until() {
  local limit=$1 what=$2 deadline
  shift 2
  deadline=$((EPOCHSECONDS + limit))
  until "$@"; do
    ((EPOCHSECONDS < deadline)) || die "timed out after ${limit}s waiting for: $what"
    sleep "${wait_poll_s:-0.2}"
  done
}
pid_alive() { kill -0 "$1" 2>/dev/null; }
# alive_or_die PID WHAT [FILE]: dies "WHAT exited" (with FILE's last 3 lines) when PID is gone.
alive_or_die() { pid_alive "$1" || die "$2 exited${3:+: $(tail -n 3 "$3" 2>/dev/null)}"; }
lines_at_least() { # FILE PATTERN COUNT (a file not there yet has none)
  local n
  n=$(grep -c -- "$2" "$1" 2>/dev/null) || true
  ((${n:-0} >= $3))
}

# require_cluster_jvm_properties DIR PROPERTIES: dies unless the cluster in DIR was started with exactly these
# --jvm-property values (space-separated; cassandra-cluster.sh start keeps them in DIR/cluster.env). A bench
# that reuses a running cluster measures only what it was asked to.
require_cluster_jvm_properties() {
  local started
  # shellcheck disable=SC1091 # written by cassandra-cluster.sh start
  started=$(. "$1/cluster.env" && echo "${jvm_properties:-}")
  [[ $started == "$2" ]] || die "$1 was not started with JVM properties '$2' (stop and remove it)"
}

# check_announce_ms: the benches' --announce-ms, in announce_ms: "default" becomes "" (Cassandra's own 2000 ms, as
# bench_cluster takes it); anything but "" or milliseconds is a usage error.
check_announce_ms() {
  [[ $announce_ms != default ]] || announce_ms=""
  [[ -z $announce_ms || $announce_ms =~ ^[0-9]+$ ]] ||
    usage_error "--announce-ms must be default or milliseconds, not '$announce_ms'"
}

# bench_cluster NODES BACKEND ANNOUNCE_MS [DCS]: the benches' real cluster (scripts/cassandra-cluster.sh) of NODES
# (3|6) nodes in DCS DCs (1, the default, or 2: --dcs 2, with 6 nodes) in
# build/cassandra-cluster[-6][-2dcs][-jolokia][-announce-MS] (CASSANDRA_CLUSTER_DIR overrides), started when not
# every node runs (first stopping the benches' other clusters, which hold the same addresses, unless
# CASSANDRA_FIRST_HOST moves this one), with --jolokia for BACKEND jolokia and
# -Dcassandra.shutdown_announce_in_ms=ANNOUNCE_MS unless it is empty (Cassandra's 2000 ms); dies unless the cluster
# runs as asked (cassandra-cluster.sh refuses a directory that holds another shape). Exports
# CASSANDRA_CLUSTER_DIR; sets nodes_status (cassandra-cluster.sh status) and announce_property.
bench_cluster() {
  local nodes=$1 backend=$2 announce_ms=$3 dcs=${4:-1} dir=$cla_root/build/cassandra-cluster other start_options
  ((nodes == 6)) && dir+=-6
  ((dcs == 2)) && dir+=-2dcs
  [[ $backend == jolokia ]] && dir+=-jolokia
  dir+=${announce_ms:+-announce-$announce_ms}
  export CASSANDRA_CLUSTER_DIR=${CASSANDRA_CLUSTER_DIR:-$dir}
  announce_property=${announce_ms:+cassandra.shutdown_announce_in_ms=$announce_ms}
  local cluster=$cla_root/scripts/cassandra-cluster.sh
  # (status into a variable: `grep -q` in a pipe would end it early, and pipefail would read that as "no")
  nodes_status=$("$cluster" status 2>/dev/null) || nodes_status=""
  if [[ -z $nodes_status ]] || grep -qv '"state":"running"' <<<"$nodes_status"; then
    if [[ -z ${CASSANDRA_FIRST_HOST:-} ]]; then
      for other in "$cla_root"/build/cassandra-cluster*/; do
        [[ ${other%/} -ef $CASSANDRA_CLUSTER_DIR ]] || "$cluster" --dir "$other" stop >/dev/null
      done
    fi
    "$cluster" stop >/dev/null
    start_options=(--nodes "$nodes" --dcs "$dcs")
    [[ $backend == nodetool ]] || start_options+=(--jolokia)
    [[ -z $announce_property ]] || start_options+=(--jvm-property "$announce_property")
    "$cluster" start "${start_options[@]}"
    nodes_status=$("$cluster" status)
  fi
  require_cluster_jvm_properties "$CASSANDRA_CLUSTER_DIR" "$announce_property"
  [[ $backend == nodetool ]] || jq -e -s 'all(.jolokia_url)' <<<"$nodes_status" >/dev/null ||
    die "$CASSANDRA_CLUSTER_DIR was not started --jolokia (stop and remove it, or name another CASSANDRA_CLUSTER_DIR)"
}

# ---- loopback -----------------------------------------------------------------------------------------------------
free_port() { # a port of 127.0.0.1 that nobody listens on now
  free_ports 1
}
# N distinct ports of 127.0.0.1 that nobody listens on now, one a line: bound together, since a port just closed
# may be handed out again at once (two calls of free_port once gave etcd the same peer port twice).
free_ports() {
  /usr/bin/python3 -I -c 'import socket, sys
held = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in held:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in held))' "$1"
}
http_code() { curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$1"; } # URL -> status, 000 when nobody answers
url_answers() { [[ $(http_code "$1") == "${2:-200}" ]]; }                  # URL [CODE]

# ---- imds-emulator ------------------------------------------------------------------------------------------------
# start_emulator BIN DIR NAME,FAULT_DOMAIN[,MORE]... [-- ARGS...]: imds-emulator serving each VM on its own free
# port of 127.0.0.1, and its admin API, with ARGS; MORE is the rest of the emulator's --vm (ZONE, region=REGION),
# after the address: vm0,0,region=dc2 is --vm vm0,0,127.0.0.1:0,region=dc2. It prints one "listening" JSON line
# per address to DIR/emulator.out, its log goes to DIR/emulator.err. Returns once every address listens; sets
# emulator_pid (registered for cleanup) and admin (http://HOST:PORT of the admin API). An emulator that exits or
# does not listen in 10 s is fatal.
start_emulator() {
  local bin=$1 dir=$2 args=() addresses=1 name_fd more
  shift 2
  while (($#)) && [[ $1 != -- ]]; do
    [[ $1 =~ ^([^,]+,[^,]+)(,.*)?$ ]] || die "start_emulator: '$1' is not NAME,FAULT_DOMAIN[,MORE]"
    name_fd=${BASH_REMATCH[1]} more=${BASH_REMATCH[2]}
    args+=(--vm "$name_fd,127.0.0.1:0$more")
    addresses=$((addresses + 1))
    shift
  done
  (($#)) && shift
  "$bin" "${args[@]}" --admin 127.0.0.1:0 "$@" >"$dir/emulator.out" 2>"$dir/emulator.err" &
  emulator_pid=$!
  cleanup_pid "$emulator_pid"
  wait_poll_s=0.1 wait_until 10 "imds-emulator to listen on $addresses addresses" \
    emulator_listening "$dir" "$addresses"
  admin=http://$(jq -r 'select(.listening=="admin") | .address' "$dir/emulator.out")
}
emulator_listening() { # DIR COUNT
  pid_alive "$emulator_pid" || die "imds-emulator exited: $(cat "$1/emulator.err")"
  lines_at_least "$1/emulator.out" '"listening"' "$2"
}
emulator_vm_address() { # DIR VM [REGION] -> HOST:PORT (REGION omitted: the default region "")
  jq -r --arg vm "$2" --arg region "${3:-}" \
    'select(.listening=="vm" and .vm==$vm and (.region // "")==$region) | .address' "$1/emulator.out"
}

# The admin API (at $admin) on events: post one (JSON body -> its EventId; a refusal is fatal), read a field of
# one ("" once it is gone), and whether it is gone.
post_event() {
  local id
  id=$(curl -sf --noproxy '*' -X POST "$admin/admin/events" -d "$1" | jq -r .EventId)
  [[ -n $id && $id != null ]] || die "imds-emulator refused the event $1"
  echo "$id"
}
event_field() { # ID FIELD
  curl -sf --noproxy '*' "$admin/admin/events" |
    jq -r --arg id "$1" --arg f "$2" '.[] | select(.EventId == $id) | .[$f] // empty'
}
event_gone() { [[ -z $(event_field "$1" EventId) ]]; }

# ---- etcd ---------------------------------------------------------------------------------------------------------
# start_etcd: a 3-member etcd on free loopback ports (Debian's /usr/bin/etcd, never the packaged service), its data
# and logs in $work/etcd, registered for cleanup; returns once every member is healthy. Sets etcd_pids and
# etcd_endpoints; each member's command line, NUL-separated, is in $work/etcd/mI.argv. Over TLS with
# client-certificate auth (SPEC 9 "TLS") unless etcd_plain=1: certificates from scripts/etcd-tls-certs.sh in
# $work/etcd/tls, endpoints https://127.0.0.1:PORT; etcd_plain=1: http://. etcd_nice=K: the members at nice K
# (every thread of theirs: Go's threads inherit it).
etcd_pids=() etcd_endpoints=()
start_etcd() {
  require_tools --hint "scripts/install-deps.sh installs etcd-server and openssl" etcd openssl || exit 1
  local i cluster="" client=() peer=() scheme=https tls_flags=()
  if [[ ${etcd_plain:-0} == 1 ]]; then
    scheme=http
  else
    "$cla_root/scripts/etcd-tls-certs.sh" "$work/etcd/tls"
    tls_flags=(--cert-file "$work/etcd/tls/server.pem" --key-file "$work/etcd/tls/server.key"
      --trusted-ca-file "$work/etcd/tls/ca.pem" --client-cert-auth)
  fi
  local ports
  mapfile -t ports < <(free_ports 6)
  for i in 0 1 2; do
    client[i]=${ports[i]}
    peer[i]=${ports[i + 3]}
    cluster+="${cluster:+,}m$i=http://127.0.0.1:${peer[i]}"
  done
  mkdir -p "$work/etcd"
  local argv
  for i in 0 1 2; do
    argv=()
    [[ ${etcd_nice:-0} == 0 ]] || argv=(nice -n "$etcd_nice")
    argv+=(etcd --name "m$i" --data-dir "$work/etcd/m$i"
      --listen-client-urls "$scheme://127.0.0.1:${client[i]}" --advertise-client-urls "$scheme://127.0.0.1:${client[i]}"
      --listen-peer-urls "http://127.0.0.1:${peer[i]}" --initial-advertise-peer-urls "http://127.0.0.1:${peer[i]}"
      --initial-cluster "$cluster" --initial-cluster-token "cla-$script_name-$$" --initial-cluster-state new
      "${tls_flags[@]}" --logger zap --log-outputs "$work/etcd/m$i.log")
    printf '%s\0' "${argv[@]}" >"$work/etcd/m$i.argv" # to start the member again (with its data, as it was)
    "${argv[@]}" >/dev/null 2>&1 &
    etcd_pids[i]=$!
    cleanup_pid "${etcd_pids[i]}"
    etcd_endpoints[i]=$scheme://127.0.0.1:${client[i]}
  done
  for i in 0 1 2; do
    wait_poll_s=0.1 wait_until 15 "etcd member m$i to be healthy (log: $work/etcd/m$i.log)" etcd_healthy "$i"
  done
}
# etcd_coordination_json CLUSTER [JSON]: the agents' coordination section for this etcd (endpoints, cluster,
# and tls with the client certificate unless plain), merged with JSON (e.g. '{"lease_ttl_s": 5}').
etcd_coordination_json() {
  local tls='{}' extra=${2:-'{}'}
  [[ ${etcd_plain:-0} == 1 ]] || tls=$(jq -nc --arg d "$work/etcd/tls" \
    '{tls: {ca_file: ($d + "/ca.pem"), cert_file: ($d + "/client.pem"), key_file: ($d + "/client.key")}}')
  printf '%s\n' "${etcd_endpoints[@]}" | jq -R . |
    jq -sc --arg cluster "$1" --argjson tls "$tls" --argjson extra "$extra" \
      '{etcd_endpoints: ., cluster: $cluster} + $tls + $extra'
}
# etcd_curl ARGS...: curl to an etcd member with the client certificate when it serves TLS.
etcd_curl() {
  local tls=()
  [[ ${etcd_plain:-0} == 1 ]] || tls=(--cacert "$work/etcd/tls/ca.pem" --cert "$work/etcd/tls/client.pem"
    --key "$work/etcd/tls/client.key")
  curl -s --noproxy '*' "${tls[@]}" "$@"
}
etcd_healthy() { # member index
  alive_or_die "${etcd_pids[$1]}" "etcd member m$1" "$work/etcd/m$1.log"
  [[ $(etcd_curl "${etcd_endpoints[$1]}/health" | jq -r .health 2>/dev/null) == true ]]
}
# etcd_txn_total: Txn requests the members have handled so far, summed (their /metrics).
etcd_txn_total() {
  local endpoint total=0 n
  for endpoint in "${etcd_endpoints[@]}"; do
    n=$(etcd_curl "$endpoint/metrics" |
      awk '/^grpc_server_handled_total\{.*grpc_method="Txn"/ { s += $2 } END { printf "%d\n", s }')
    total=$((total + n))
  done
  echo "$total"
}

# ---- the auditing client ------------------------------------------------------------------------------------------
# start_audit_client PYTHON DIR RATE RUN_ID KEYSPACE CONTACTS [LOCAL_DC]: scripts/bench/availability_client.py in
# the background, its files in DIR (requests, summary.json, client.out, client.err), its requests coordinated in
# LOCAL_DC (default dc1); returns once it is connected.
# Sets client (its pid, registered for cleanup).
# The client is the instrument: on a real deployment it runs on other machines, here beside the nodes. At nice
# -10 it is not starved (a starved client misses send slots, which count as failed requests) while a rebooted
# node's JVM starts on the same cores. With the kernel's autogroup scheduling, niceness only orders the tasks of
# one session, and each node's JVM runs in a session of its own (setsid): so the client gets a session of its own
# too, whose autogroup is given the same nice, from inside it (/proc/self/autogroup is then the client's own).
# (Without that, its StallWatch saw the whole client paused 0.5-0.8 s while a rebooted node's JVM started.)
start_audit_client() {
  local python=$1 dir=$2
  # shellcheck disable=SC2016 # $@ is the inner shell's
  setsid bash -c '[[ ! -e /proc/self/autogroup ]] || echo -10 >/proc/self/autogroup || { echo "client: cannot set its autogroup nice" >&2; exit 97; }; exec "$@"' client \
    nice -n -10 "$python" -I "$cla_root/scripts/bench/availability_client.py" --rate "$3" --run-id "$4" \
    --keyspace "$5" --contacts "$6" --local-dc "${7:-dc1}" --out "$dir/requests" --summary "$dir/summary.json" \
    >"$dir/client.out" 2>"$dir/client.err" &
  client=$!
  cleanup_pid "$client"
  wait_until 60 "the client connected" grep -qs ready "$dir/client.out"
}

# ---- agents -------------------------------------------------------------------------------------------------------
# start_agent BIN DIR CONFIG: cassandra-lifecycle-agent BIN in the background, its files in DIR: config.json (CONFIG,
# a JSON object, with state_file DIR/state.json and log DIR/agent.jsonl at level info unless CONFIG says), stdout,
# stderr. Sets agent_started to its pid, registered for cleanup. agent_nice and agent_cgroup: below.
start_agent() {
  local bin=$1 dir=$2
  mkdir -p "$dir"
  jq -n --arg dir "$dir" --argjson config "$3" \
    '{state_file: ($dir + "/state.json"), log: {file: ($dir + "/agent.jsonl"), level: "info"}} * $config' \
    >"$dir/config.json"
  local runner=() # agent_nice=N: at that niceness, as a unit's Nice= would (nice execs: the pid is the agent's)
  # agent_cgroup=DIR: the agent joins that cgroup (DIR/cgroup.procs) before it execs, so every process it starts
  # is counted there from the first (sh execs too: the pid stays the agent's)
  # shellcheck disable=SC2016 # the inner sh expands them
  [[ -z ${agent_cgroup:-} ]] || runner=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$agent_cgroup")
  [[ -z ${agent_nice:-} ]] || runner+=(nice -n "$agent_nice")
  "${runner[@]}" "$bin" --config "$dir/config.json" >"$dir/stdout" 2>"$dir/stderr" &
  agent_started=$!
  cleanup_pid "$agent_started"
}

# write_bench_agent_config FILE IMDS_ADDRESS VM NODETOOL_SIM CLUSTER_FILE: the benchmarks' idle agent: polls the VM's
# IMDS at 1 Hz, fault domain 0, nodetool-sim's node 127.0.1.1, no HTTP endpoint; its state file and log beside
# FILE (FILE minus .json, plus .state.json and .jsonl).
write_bench_agent_config() {
  local base=${1%.json}
  jq -n --arg endpoint "http://$2" --arg vm "$3" --arg sim "$4" --arg cluster "$5" --arg base "$base" '{
    imds: {endpoint: $endpoint, poll_interval_ms: 1000},
    node: {resource_name: $vm, fault_domain: 0},
    cassandra: {nodetool: [$sim, "--cluster", $cluster, "--node", "127.0.1.1"]},
    state_file: ($base + ".state.json"),
    log: {file: ($base + ".jsonl")},
    http: {listen: ""}}' >"$1"
}
