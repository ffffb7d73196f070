#!/usr/bin/env bash
# Installs what is missing, builds, builds and checks the Debian package, then runs every test: unit and
# integration (with the alert rules' promtool tests and the Prometheus test), then the real-Cassandra suite, while
# fresh-check.sh runs beside them (install-deps.sh, the build and the unit tests under ASan+UBSan in a bare
# Debian 12 root, and the package installed on another; mostly downloads and dpkg, at the lowest priority, its
# output in build/fresh-logs/fresh-check.out). The real suite needs Java 17 and org.apache.cassandra:cassandra-all
# (in ~/.m2, or Maven Central reachable): without them this script fails, it never skips them. Then a short
# game day (scripts/bench-gameday.sh) on the real 6-node cluster.
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

echo "== the Debian package (scripts/package.sh: lintian, systemd-analyze verify)"
scripts/package.sh

# The fresh root's work is mostly network and dpkg: beside the tests it costs them little and saves its own
# length (about 20 minutes) from the total. nice 19 gives the tests the cores when both want them.
mkdir -p build/fresh-logs
fresh_out=build/fresh-logs/fresh-check.out
echo "== a bare Debian 12 (scripts/fresh-check.sh), in the background: $fresh_out"
nice -n 19 scripts/fresh-check.sh >"$fresh_out" 2>&1 &
fresh_pid=$!
cleanup_pid "$fresh_pid"

echo "== unit and integration tests (build/)"
(cd build && ctest --output-on-failure -j2 -LE real)

echo "== real Cassandra suite (build/, label real: a 3-node Cassandra 5.0 cluster on 127.0.0.11-13 for both backends,"
echo "   then 6 nodes in two DCs on 127.0.0.11-16)"
fail_real() { die "FAILED: the real Cassandra suite cannot run: $*"; }
command -v java >/dev/null || fail_real "java not found (Cassandra 5.0 needs a JDK 17: apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail_real "mvn not found (Cassandra comes from Maven Central: apt-get install maven)"
real_started=$SECONDS
# The suite's cluster start resolves cassandra-all (offline from ~/.m2 first) and fails with Maven's reason.
(cd build && ctest --output-on-failure -L real) || die "FAILED: the real Cassandra suite (output above; cluster logs in build/real-cluster/)"
echo "   the real suite took $((SECONDS - real_started)) s"

# A short game day (issue 41) on the real 6-node cluster, at the advised shutdown_announce_in_ms=0 (the game
# day's default), with coordinated Jolokia agents. A fixed seed whose five events are a Terminate of a rack, a
# Freeze first seen Started, a Freeze and a Reboot back to back, and a user event, with three faults (Jolokia
# hung through a restore, the agent killed mid-emergency-drain, the state disk full). It fails on a failed
# client request (SPEC 4: none with the agent), an undrained impact, an early approval, a wrong answer or a lost
# write. Until the binary hold (8dfb369) a node just restored coordinated reads that timed out for seconds, and
# this run passed --allow-client-failures; the runs recorded since (d88f0d4, a4c7468) ended failed=0. Its
# record stays in build/gameday/ci (gameday.log, .png).
gameday=(--seed 5 --events 5 --faults --backend jolokia --out build/gameday/ci)
echo "== a short game day (scripts/bench-gameday.sh ${gameday[*]})"
gameday_started=$SECONDS
unmount_below build/gameday/ci
rm -rf build/gameday/ci
scripts/bench-gameday.sh "${gameday[@]}" || die "FAILED: the game day (its log and picture in build/gameday/ci)"
scripts/cassandra-cluster.sh --dir build/cassandra-cluster-6-jolokia-announce-0 stop >/dev/null
echo "   the game day took $((SECONDS - gameday_started)) s"

echo "== a bare Debian 12 (scripts/fresh-check.sh): install-deps.sh, the unit tests under AddressSanitizer +"
echo "   UndefinedBehaviorSanitizer, every tool, the package installed with apt-get"
fresh_rc=0
wait "$fresh_pid" || fresh_rc=$?
forget_pids "$fresh_pid"
cat "$fresh_out"
((fresh_rc == 0)) || die "FAILED: scripts/fresh-check.sh (exit $fresh_rc; output above, logs in build/fresh-logs/)"
echo "== all tests passed in $((SECONDS - started)) s"
