#!/usr/bin/env bash
# Configures and builds into build/ (binaries in build/bin/). Usage: scripts/build.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCLA_WERROR=ON "$@" >/dev/null
cmake --build build
