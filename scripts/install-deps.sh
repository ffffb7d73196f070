#!/usr/bin/env bash
# Installs the Debian 12 packages the build, tests and demo need; does nothing when all are present.
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-log1.81-dev libboost-test1.81-dev
  libboost-program-options1.81-dev libboost-url1.81-dev
  prometheus-cpp-dev libsystemd-dev
  curl jq procps time
  etcd-server
  # benchmarks: bench-footprint.sh's callgrind, strace -c and the Azure docs' Python sample (requests)
  valgrind strace python3-requests
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
# Debian starts the packaged etcd service on install. The tests never use it (they start their own members on
# free loopback ports), so when this run installed it, stop it and keep it from starting at boot.
if [[ " ${missing[*]:-} " == *" etcd-server "* ]] && command -v systemctl >/dev/null &&
  systemctl list-unit-files etcd.service >/dev/null 2>&1; then
  "${sudo_cmd[@]}" systemctl disable --now etcd.service >/dev/null 2>&1 || true
fi
