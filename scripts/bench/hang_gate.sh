#!/usr/bin/env bash
# hang_gate.sh MARKER COMMAND ARGS...: runs COMMAND (exec'd), unless the file MARKER exists: then it never answers,
# as a nodetool call does whose JMX connection hangs (the agent kills it at command_timeout_s). The game day
# (scripts/bench-gameday.sh) puts it before each agent's nodetool command and creates MARKER for a
# "JMX hung" fault.
[[ $# -ge 2 ]] || { echo "usage: hang_gate.sh MARKER COMMAND ARGS..." >&2; exit 2; }
marker=$1
shift
[[ ! -e $marker ]] || exec sleep infinity
exec "$@"
