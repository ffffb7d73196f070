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
    imds/*) echo imds ;;
    cassandra/sim/*) echo cassandra/sim ;;
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

# The rooms from the bottom up: a file may include its own room and any room below it. cassandra sits on
# imds (its Jolokia client speaks over imds's HttpConnection and reads its password as imds's secret files);
# imds never includes cassandra. The test doubles may include the core and the adapters; nothing else includes
# them, since nothing that ships may depend on them.
declare -A level=(
  [state]=0
  [imds]=1
  [cassandra]=2
  [agent]=3
  [agent/http]=4
  [agent/config]=5
  [agent/coordination/etcd]=6
  [agent/coordination]=7
  [agent/daemon]=8
  [agent/main]=9
  [imds/emulator]=test-double [cassandra/sim]=test-double
)
allowed() { # from to
  [[ $1 == "$2" ]] && return 0
  local from=${level[$1]} to=${level[$2]}
  [[ $to == test-double ]] && return 1
  [[ $from == test-double ]] && from=${level[agent]}
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
