#!/usr/bin/env bash
# Proves scripts/install-deps.sh on a bare Debian 12: debootstraps a minbase bookworm root into build/fresh-root/
# from the mirror apt on this machine uses, puts the checkout in it (git archive), and there runs install-deps.sh,
# the build and the unit tests (under ASan+UBSan: the sanitized run of scripts/test.sh happens here), and a probe
# of every tool the scripts and tests use, failing with the missing package's name. Then it installs the Debian
# package (build/cassandra-lifecycle-agent_*.deb, from scripts/package.sh) with `apt-get install ./...deb` into a
# second copy of the bare root (with a group cassandra, so the config must come out root:cassandra 0640), where
# `cassandra-lifecycle-agent --check` reads the packaged default config.
# Prints the timings. Needs root.
# Usage: scripts/fresh-check.sh [--keep] [--deb FILE] [--demo]   (--keep leaves the roots in build/ after a success;
#   they are kept on failure). --demo instead times the README's first command as a new user meets it: a fresh
#   clone of HEAD, scripts/demo.sh in a bare root with an empty apt cache; last line fresh_demo_s=N tests_built=0. The bare root is cached in build/fresh-cache/, keyed by what goes into it (suite,
#   variant, architecture, mirror and the date of its Release file, debootstrap's version); the .debs apt
#   downloads are kept there too. The output of debootstrap, install-deps.sh and the build goes to
#   build/fresh-logs/ (shown when a step fails).
set -euo pipefail
export LC_ALL=C
root_dir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
source "$root_dir/scripts/lib.sh" # mounted_below; this script keeps its own die (FAILED: ...)
keep=0 deb="" demo=0
while (($#)); do
  case $1 in
    --keep) keep=1 ;;
    --demo) demo=1 ;;
    --deb) deb=$(realpath "${2:?--deb needs a file}"); shift ;;
    -h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "fresh-check.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "fresh-check.sh: FAILED: $*" >&2; exit 1; }
if ((!demo)) && [[ -z $deb ]]; then
  debs=("$root_dir"/build/cassandra-lifecycle-agent_*.deb)
  [[ -f ${debs[-1]} ]] || die "no build/cassandra-lifecycle-agent_*.deb: run scripts/build.sh && scripts/package.sh first"
  deb=${debs[-1]}
fi
((demo)) || [[ -f $deb ]] || die "no package $deb"
((EUID == 0)) || die "needs root (debootstrap, chroot, mount)"
for tool in debootstrap git curl mount umount chroot; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs debootstrap, git, curl)"
done

readonly suite=bookworm variant=minbase
arch=$(dpkg --print-architecture)
cache=$root_dir/build/fresh-cache
fresh=$root_dir/build/fresh-root       # the build root: install-deps, build, tests, probe
target=$root_dir/build/fresh-install   # a second bare root: apt-get install ./the.deb, --check
logs=$root_dir/build/fresh-logs
mkdir -p "$cache/apt-archives/partial" "$logs"
started=$SECONDS
timings=()
timed() { # label, command...: runs it, says and keeps how long it took; its exit status
  local t0=$SECONDS rc=0
  "${@:2}" || rc=$?
  ((rc == 0)) || { echo "   $1: failed after $((SECONDS - t0)) s (exit $rc)"; return "$rc"; }
  timings+=("$1 $((SECONDS - t0)) s")
  echo "   $1: $((SECONDS - t0)) s"
}

# ---- the mirror: apt's own sources on this machine (one-line and deb822 files), Debian's suites only -------
apt_sources() { # prints "URI SUITE COMPONENTS..." for each enabled deb entry
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" { $1 = ""; print substr($0, 2) }'
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk 'function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
                              for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print uris[i], suites[j], comps
                            types = ""; enabled = ""; nu = 0; ns = 0; comps = "" }
         /^[ \t]*#/ { next }
         /^[ \t]*$/ { flush(); next }
         { key = tolower($1); sub(/:$/, "", key); $1 = ""; val = substr($0, 2) }
         key == "types" { types = val }
         key == "enabled" { enabled = tolower(val) }
         key == "uris" { nu = split(val, uris, " ") }
         key == "suites" { ns = split(val, suites, " ") }
         key == "components" { comps = val }
         END { flush() }' "$f"
  done
}
mapfile -t sources < <(apt_sources | awk -v s="$suite" '$2 == s || $2 == s "-updates" || $2 == s "-security"')
mirror=$(printf '%s\n' "${sources[@]}" | awk -v s="$suite" '$2 == s { print $1; exit }')
[[ -n $mirror ]] || die "apt on this machine has no '$suite' source (read /etc/apt/sources.list and sources.list.d)"
mirror=${mirror%/}
release_date=$(curl -fsS --max-time 60 "$mirror/dists/$suite/InRelease" | sed -n 's/^Date: //p' | head -n 1) ||
  die "cannot read $mirror/dists/$suite/InRelease"
key=$(printf '%s\n' "$suite" "$variant" "$arch" "$mirror" "$release_date" "$(debootstrap --version)" \
  "base v1" | sha256sum | cut -c1-16)
base=$cache/base-$key
echo "== fresh check: $suite ($variant, $arch) from $mirror, Release of $release_date"

# ---- mounts, and their removal on every exit -------------------------------------------------------------
release_root() { # kills what still runs in the root, then unmounts everything below it
  local dir=$1 pid link
  [[ -d $dir ]] || return 0
  for pid in /proc/[0-9]*; do
    link=$(readlink "$pid/root" 2>/dev/null) || continue
    if [[ $link == "$dir" || $link == "$dir"/* ]]; then kill -KILL "${pid#/proc/}" 2>/dev/null || true; fi
  done
  local m
  for m in $(mounted_below "$dir"); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
remove_root() { # never through a mount: checked, and rm stays on one file system
  release_root "$1"
  [[ -z $(mounted_below "$1") ]] || die "still mounted below $1: $(mounted_below "$1" | tr '\n' ' ')"
  rm -rf --one-file-system "$1"
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  release_root "$fresh"
  release_root "$target"
  if ((status == 0 && !keep)); then
    local t0=$SECONDS
    rm -rf --one-file-system "$fresh" "$target"
    echo "   the roots removed in $((SECONDS - t0)) s (--keep keeps them)"
  elif ((status != 0)); then
    echo "fresh-check.sh: roots kept for inspection: $fresh, $target (unmounted)" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A root as this check uses it: the machine's Debian sources and apt settings, no services started inside
# (policy-rc.d, as in every Debian chroot build: a started etcd or Prometheus would run on the host's
# network), /proc and /dev, and the shared download cache.
prepare_root() { # dir [apt archives dir: the shared download cache by default]
  local dir=$1 archives=${2:-$cache/apt-archives}
  printf 'deb %s\n' "${sources[@]}" >"$dir/etc/apt/sources.list"
  rm -f "$dir"/etc/apt/sources.list.d/*
  apt-config dump | grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy|Retries) ' \
    >"$dir/etc/apt/apt.conf.d/90fresh-check" || true
  echo 'APT::Keep-Downloaded-Packages "true";' >>"$dir/etc/apt/apt.conf.d/90fresh-check"
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 0755 "$dir/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  cp /etc/hosts "$dir/etc/hosts"
  mount -t proc proc "$dir/proc"
  mount --bind /dev "$dir/dev"
  mount --make-private "$dir/dev"  # what is mounted below it stays in the root (systemd makes / shared)
  mount --bind /dev/pts "$dir/dev/pts"  # apt and dpkg log through a pseudo-terminal
  mount --bind "$archives" "$dir/var/cache/apt/archives"
}
logged() { # log name, command...: its output into build/fresh-logs/NAME.log; on failure, its errors and tail
  local log=$logs/$1.log rc=0
  "${@:2}" >"$log" 2>&1 || rc=$?
  if ((rc != 0)); then
    grep -E '^(E|W): |error|Error|FAILED|No such file' "$log" | grep -v '^Setting up\|^Unpacking' | tail -n 20 || true
    echo "   ... (last lines of $log)"
    tail -n 15 "$log"
  fi
  return "$rc"
}
in_root() { # dir, command (a bash script) run as root in a clean environment
  chroot "$1" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb ${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
    /bin/bash -euo pipefail -c "$2"
}

# ---- 1. the bare root (cached) ----------------------------------------------------------------------------
make_base() {
  if [[ -d $base ]]; then
    echo "   cached: $base"
    return
  fi
  local d
  for d in "$cache"/base-*; do [[ -d $d ]] && remove_root "$d"; done  # older keys: stale
  logged debootstrap debootstrap --variant="$variant" --arch="$arch" "$suite" "$base.tmp" "$mirror" ||
    die "debootstrap failed (log: $logs/debootstrap.log)"
  rm -rf "$base.tmp"/var/cache/apt/archives/*.deb
  mv "$base.tmp" "$base"
}
echo "== 1. bare root: debootstrap --variant=$variant $suite"
remove_root "$fresh"
remove_root "$target"
[[ -d $base.tmp ]] && remove_root "$base.tmp"
timed "base root" make_base

# ---- --demo: the README's first command, as a new user runs it -------------------------------------------
# A fresh clone of the committed HEAD in a bare root whose apt cache is empty (every package downloaded, as on
# a new machine): scripts/demo.sh installs, builds what it runs and plays the game day; its time is the figure.
if ((demo)); then
  demo_root=$fresh demo_archives=$root_dir/build/fresh-demo-archives
  rm -rf "$demo_archives" && mkdir -p "$demo_archives/partial"
  cp -a "$base" "$demo_root"
  prepare_root "$demo_root" "$demo_archives"
  git clone -q --no-local "$root_dir" "$demo_root/src"
  echo "== scripts/demo.sh in a fresh clone ($(git -C "$demo_root/src" rev-parse --short HEAD)) on the bare root"
  timed "demo" logged demo in_root "$demo_root" 'cd /src && scripts/demo.sh' ||
    die "scripts/demo.sh failed in a fresh clone on a bare Debian 12 (log: $logs/demo.log)"
  tail -n 3 "$logs/demo.log"
  [[ ! -e $demo_root/src/build/bin/unit_tests ]] || die "scripts/demo.sh built the unit tests"
  echo "   built by demo.sh: $(ls "$demo_root/src/build/bin" | tr '\n' ' ')"
  rm -rf "$demo_archives"
  echo "fresh_demo_s=${timings[-1]//[!0-9]/} tests_built=0"
  exit 0
fi
cp -a "$base" "$fresh"
prepare_root "$fresh"
mkdir -p "$fresh/src"
# The checkout as committed, with uncommitted changes to tracked files (git stash create), never untracked ones.
tree=$(git -C "$root_dir" stash create 2>/dev/null || true)
git -C "$root_dir" archive --format=tar "${tree:-HEAD}" | tar -x -C "$fresh/src"

# ---- 2. install-deps.sh, the build, the unit tests ---------------------------------------------------------
echo "== 2. scripts/install-deps.sh in the bare root"
timed "install" logged install in_root "$fresh" 'cd /src && scripts/install-deps.sh' ||
  die "scripts/install-deps.sh failed on a bare Debian 12 (the package apt names above)"
echo "== 3. the build (the agent and the unit tests, with AddressSanitizer and UndefinedBehaviorSanitizer)"
timed "build" logged build in_root "$fresh" 'cd /src && nice cmake -S . -B build-asan -G Ninja -DCLA_WERROR=ON -DCLA_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null && nice cmake --build build-asan --target cassandra-lifecycle-agent unit_tests' ||
  die "the build failed in the fresh root"
echo "== 4. the unit tests (label unit: ASan+UBSan, the alert rules, the dashboard, the include rooms)"
timed "tests" in_root "$fresh" 'cd /src/build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  nice ctest -L unit -j2 --output-on-failure' || die "unit tests failed in the fresh root"

# ---- 3. every tool, by name and version ------------------------------------------------------------------
# tool|package|command printing its version (first line shown). Scripts' and tests' tools; python modules as
# "python3:MODULE".
probes=(
  "cmake|cmake|cmake --version" "ninja|ninja-build|ninja --version" "g++|g++|g++ --version"
  "cc|gcc|cc --version" "pkg-config|pkg-config|pkg-config --version" "strip|binutils|strip --version"
  "curl|curl|curl --version" "jq|jq|jq --version" "ps|procps|ps --version" "/usr/bin/time|time|/usr/bin/time --version"
  "ss|iproute2|ss -V" "git|git|git --version" "python3|python3|/usr/bin/python3 --version"
  "etcd|etcd-server|etcd --version" "java|openjdk-17-jdk-headless|java -version"
  "javac|openjdk-17-jdk-headless|javac -version" "mvn|maven|mvn -B --version"
  "python3:cassandra|python3-cassandra|/usr/bin/python3 -I -c 'import cassandra; print(\"cassandra-driver\", cassandra.__version__)'"
  "python3:requests|python3-requests|/usr/bin/python3 -I -c 'import requests; print(\"requests\", requests.__version__)'"
  "python3:jsonschema|python3-jsonschema|/usr/bin/python3 -I -c 'import importlib.metadata as m; print(\"jsonschema\", m.version(\"jsonschema\"))'"
  "python3:yaml|python3-yaml|/usr/bin/python3 -I -c 'import yaml; print(\"PyYAML\", yaml.__version__)'"
  "prometheus|prometheus|prometheus --version" "promtool|prometheus|promtool --version"
  "dpkg-shlibdeps|dpkg-dev|dpkg-shlibdeps --version" "lintian|lintian|lintian --version"
  "systemd-analyze|systemd|systemd-analyze --version" "debootstrap|debootstrap|debootstrap --version"
  "valgrind|valgrind|valgrind --version" "callgrind_control|valgrind|callgrind_control --version"
  "strace|strace|strace -V" "clang++|clang|clang++ --version"
  "libFuzzer|libclang-rt-14-dev|ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a"
  "flock|util-linux|flock --version" "setsid|util-linux|setsid --version" "chrt|util-linux|chrt --version"
  "mount|mount|mount --version" "timeout|coreutils|timeout --version" "sha256sum|coreutils|sha256sum --version"
  "getconf|libc-bin|getconf GNU_LIBC_VERSION" "gzip|gzip|gzip --version" "dpkg-deb|dpkg|dpkg-deb --version"
  "gnuplot|gnuplot-nox|gnuplot --version" "umount|mount|umount --version"
)
# shellcheck disable=SC2016 # expanded in the root, not here
probe_script='missing=()
for p in "$@"; do
  IFS="|" read -r tool package command <<<"$p"
  if [[ $tool != python3:* && $tool != libFuzzer ]] && ! command -v "$tool" >/dev/null; then
    missing+=("$tool (package $package)"); continue
  fi
  if out=$(eval "$command" 2>&1 </dev/null | sed "s/\x1b\[[0-9;]*m//g"; exit "${PIPESTATUS[0]}"); then
    printf "   %-18s %s\n" "$tool" "$(head -n 1 <<<"$out")"
  else
    missing+=("$tool (package $package): $(tail -n 1 <<<"$out")")
  fi
done
if ((${#missing[@]})); then printf "   MISSING: %s\n" "${missing[@]}"; exit 1; fi'
echo "== 5. every tool the scripts and tests use"
timed "probe" chroot "$fresh" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 /bin/bash -c "$probe_script" probe "${probes[@]}" ||
  die "tools missing in the fresh root (scripts/install-deps.sh must install the packages named above)"

# ---- 4. the package, installed on a second bare root ------------------------------------------------------
deb_name=$(basename "$deb")
echo "== 6. apt-get install ./$deb_name on a bare $suite root"
cp -a "$base" "$target"
prepare_root "$target"
cp "$deb" "$target/tmp/"
install_deb() {
  # The group Cassandra's package would have created: postinst makes the config root:cassandra 0640.
  in_root "$target" "groupadd --system cassandra && cd /tmp && apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ./$deb_name >/dev/null &&
    cassandra-lifecycle-agent --version &&
    mode=\$(stat -c '%U:%G %a' /etc/cassandra-lifecycle-agent/config.json) && echo \"   config.json: \$mode\" &&
    test \"\$mode\" = 'root:cassandra 640' &&
    cassandra-lifecycle-agent --config /etc/cassandra-lifecycle-agent/config.json --check >/tmp/effective.json &&
    echo \"   --check: the packaged config is valid (imds.endpoint \$(sed -n 's/.*\"endpoint\": //p' /tmp/effective.json))\" &&
    printf '   conffiles:%s\n' \"\$(dpkg-query -W -f='\${Conffiles}' cassandra-lifecycle-agent | awk '{ printf \" %s\", \$1 }')\" &&
    test -f /usr/share/man/man8/cassandra-lifecycle-agent.8.gz && test -f /lib/systemd/system/cassandra-lifecycle-agent.service"
}
timed "deb install" install_deb || die "apt-get install ./$deb or its --check failed on a bare $suite root"

summary=$(printf '%s, ' "${timings[@]}")
echo "== fresh check passed in $((SECONDS - started)) s: ${summary%, }"
