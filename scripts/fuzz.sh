#!/usr/bin/env bash
# Fuzzes every parser that reads outside bytes (IMDS documents, NotBefore, compute, nodetool output, state file) (libFuzzer + ASan + UBSan, clang), seeded with the test data.
# Usage: scripts/fuzz.sh [seconds]   (default 60). Findings are written to build-fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/install-deps.sh
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null
done
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCLA_FUZZ=ON -DCLA_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Release >/dev/null  # clang 14 fails on coroutines with -g
cmake --build build-fuzz --target fuzz_parsers

# Seeds: each test-data file once per parser (the first byte selects the parser).
corpus=build-fuzz/corpus
mkdir -p "$corpus" build-fuzz/findings
i=0
while IFS= read -r -d '' file; do
  for selector in 0 1 2 3 4 5 6; do
    { printf "\\x0$selector"; head -c 65536 "$file"; } >"$corpus/seed-$i-$selector"
  done
  i=$((i + 1))
done < <(find tests/data -type f -print0)
build-fuzz/bin/fuzz_parsers -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/findings/ "$corpus"
