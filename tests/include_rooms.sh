#!/usr/bin/env bash
# Checks that every project #include runs down the rooms of docs/design.md ("Rooms"), never back up: the pure
# core below the adapters, the adapters below the agent's shell, and inside the shell
# http < config < coordination < daemon < main. Prints each include that breaks the order; exit 1 if any.
# Usage: tests/include_rooms.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# The room a project file or include path lives in.
room_of() {
  case $1 in
    state/*) echo state ;;
    imds/emulator/*) echo imds/emulator ;;
    imds/transport/*) echo imds/transport ;;
    imds/process/*) echo imds/process ;;
    imds/*/*) echo "imds/unknown-room" ;;
    imds/*) echo imds ;;
    cassandra/sim/*) echo cassandra/sim ;;
    cassandra/nodetool_output/*) echo cassandra/nodetool_output ;;
    cassandra/gate/*) echo cassandra/gate ;;
    cassandra/nodetool/*) echo cassandra/nodetool ;;
    cassandra/jolokia/*) echo cassandra/jolokia ;;
    cassandra/*/*) echo "cassandra/unknown-room" ;;
    cassandra/*) echo cassandra ;;
    agent/agent_main.cpp) echo agent/main ;;
    agent/http/*) echo agent/http ;;
    agent/config/*) echo agent/config ;;
    agent/coordination/etcd/*) echo agent/coordination/etcd ;;
    agent/coordination/*) echo agent/coordination ;;
    agent/daemon/*) echo agent/daemon ;;
    agent/*/*) echo "agent/unknown-room" ;;
    agent/*) echo agent ;; # the CLI, logging and the Boost build units: the base every room may use
    *) echo "unknown" ;;
  esac
}

# The rooms from the bottom up: a file may include its own room and any room below it; rooms on one level
# (the transport and the process runner; the two backends) never include each other. The transport (HTTP
# connection, TLS, secret files, wake-ups) and the process runner serve IMDS, Cassandra's backends and etcd
# alike: they sit on imds/'s floor, the lowest that uses them, below the IMDS client. Inside cassandra/, the
# node's reports in nodetool's forms (and their parsers) come first, the gate's arithmetic over them next,
# then the face (node_backend.hpp, node_identity.hpp), then the backends behind it. The test doubles may
# include the core and the adapters; nothing else includes them, since nothing that ships may depend on them.
declare -A level=(
  [state]=0
  [imds/transport]=1 [imds/process]=1
  [imds]=2
  [cassandra/nodetool_output]=3
  [cassandra/gate]=4
  [cassandra]=5
  [cassandra/nodetool]=6 [cassandra/jolokia]=6
  [agent]=7
  [agent/http]=8
  [agent/config]=9
  [agent/coordination/etcd]=10
  [agent/coordination]=11
  [agent/daemon]=12
  [agent/main]=13
  [imds/emulator]=test-double [cassandra/sim]=test-double
)
allowed() { # from to
  [[ $1 == "$2" ]] && return 0
  local from=${level[$1]} to=${level[$2]}
  [[ $to == test-double ]] && return 1
  if [[ $from == test-double ]]; then
    # A double sits on the floor of its folder: the emulator on imds's, the simulator on cassandra's.
    case $1 in
      imds/*) from=${level[imds]} ;;
      *) from=${level[cassandra]} ;;
    esac
    ((to <= from)) && return 0
    return 1
  fi
  ((to < from))
}

broken=0
while IFS= read -r file; do
  from=$(room_of "$file")
  if [[ -z ${level[$from]+set} ]]; then
    echo "$file: not in any room of docs/design.md"
    broken=1
    continue
  fi
  while IFS= read -r included; do
    to=$(room_of "$included")
    if [[ -z ${level[$to]+set} ]]; then
      echo "$file: includes \"$included\", which is not in any room"
      broken=1
      continue
    fi
    allowed "$from" "$to" && continue
    echo "$file: includes \"$included\" ($from may not include $to: it is not below)"
    broken=1
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find state imds cassandra agent -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
exit "$broken"
