#!/usr/bin/env bash
# Configures and builds into build/ (binaries in build/bin/).
# Usage: scripts/build.sh [--target NAME...] [-- extra cmake args]
#   --target NAME...  build only these targets (scripts/demo.sh: the three executables, no test); default all
set -euo pipefail
cd "$(dirname "$0")/.."
targets=() cmake_args=()
while (($#)); do
  case $1 in
    --target)
      shift
      while (($#)) && [[ $1 != -* ]]; do targets+=("$1") && shift; done
      ((${#targets[@]})) || { echo "build.sh: --target needs at least one target name" >&2 && exit 2; }
      ;;
    --) shift && cmake_args+=("$@") && break ;;
    *) cmake_args+=("$1") && shift ;;
  esac
done
cmake -S . -B build -G Ninja -DCLA_WERROR=ON "${cmake_args[@]}" >/dev/null
if ((${#targets[@]})); then
  cmake --build build --target "${targets[@]}"
else
  cmake --build build
fi
