#!/usr/bin/env bash
# Installs every Debian 12 package that the build, the tests, the demo, the benchmarks and the packaging use;
# does nothing when all are present. scripts/fresh-check.sh proves the list on a bare Debian 12 root.
set -euo pipefail

packages=(
  # the build
  cmake g++ ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-log1.81-dev libboost-test1.81-dev
  libboost-program-options1.81-dev libboost-url1.81-dev
  prometheus-cpp-dev libsystemd-dev
  # TLS to etcd (Boost.Asio's ssl over OpenSSL); openssl makes the tests' and demo's certificates
  libssl-dev openssl
  # scripts and tests: JSON and HTTP from the shell, process tools, ss (cassandra-cluster.sh), git
  curl jq procps time iproute2 git python3
  # coordinated mode's tests and demo: a 3-member etcd on loopback
  etcd-server
  # the real-Cassandra suite: Cassandra 5.0 runs on JDK 17 and comes from Maven Central; its keyspace is
  # created, and bench-availability's client runs, with Debian's Python driver
  openjdk-17-jdk-headless maven python3-cassandra
  # alert rules (promtool test rules) and the Prometheus test; the dashboard's schema check
  prometheus python3-jsonschema python3-yaml
  # the Debian package (scripts/package.sh): dpkg-shlibdeps, lintian, systemd-analyze verify
  dpkg-dev lintian systemd
  # scripts/fresh-check.sh: a bare Debian 12 root
  debootstrap
  # benchmarks: bench-footprint.sh's callgrind, strace -c and the Azure docs' Python sample (requests);
  # fuzz.sh's clang and libFuzzer runtime
  valgrind strace python3-requests clang libclang-rt-14-dev
  # bench-gameday.sh's picture of the run (Debian's python3-matplotlib cannot be installed beside
  # libboost1.81-dev: its python3-fonttools -> python3-scipy -> python3-pythran -> libboost-dev is 1.74)
  gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Debian starts the packaged etcd and Prometheus services on install. The tests never use them (they start
# their own on free loopback ports), so when this run installed them, stop them and keep them from starting at
# boot.
for pair in etcd-server:etcd prometheus:prometheus; do
  if [[ " ${missing[*]:-} " == *" ${pair%%:*} "* ]] && command -v systemctl >/dev/null &&
    systemctl list-unit-files "${pair#*:}.service" >/dev/null 2>&1; then
    "${sudo_cmd[@]}" systemctl disable --now "${pair#*:}.service" >/dev/null 2>&1 || true
  fi
done
