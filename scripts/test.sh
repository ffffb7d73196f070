#!/usr/bin/env bash
# Installs what is missing, builds, runs every test (unit and integration, then the real-Cassandra suite),
# then the unit tests again under ASan+UBSan. The real suite needs Java 17 and org.apache.cassandra:cassandra-all
# (in ~/.m2, or Maven Central reachable): without them this script fails, it never skips them.
# Usage: scripts/test.sh [--help]
set -euo pipefail
script_name=test.sh
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
case ${1:-} in
  -h | --help) print_header; exit 0 ;;
  "") ;;
  *) usage_error "unknown argument '$1' (try --help)" ;;
esac
cd "$cla_root"
started=$SECONDS
scripts/install-deps.sh
scripts/build.sh

echo "== unit and integration tests (build/)"
(cd build && ctest --output-on-failure -j2 -LE real)

echo "== real Cassandra suite (build/, label real: a 3-node Cassandra 5.0 cluster on 127.0.0.11-13)"
fail_real() { die "FAILED: the real Cassandra suite cannot run: $*"; }
command -v java >/dev/null || fail_real "java not found (Cassandra 5.0 needs a JDK 17: apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail_real "mvn not found (Cassandra comes from Maven Central: apt-get install maven)"
real_started=$SECONDS
# The suite's cluster start resolves cassandra-all (offline from ~/.m2 first) and fails with Maven's reason.
(cd build && ctest --output-on-failure -L real) || die "FAILED: the real Cassandra suite (output above; cluster logs in build/real-cluster/)"
echo "   the real suite took $((SECONDS - real_started)) s"

echo "== unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
cmake -S . -B build-asan -G Ninja -DCLA_WERROR=ON -DCLA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan --target unit_tests
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j2 -L unit)
echo "== all tests passed in $((SECONDS - started)) s"
