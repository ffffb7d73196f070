#!/usr/bin/env bash
# Builds the Debian package of SPEC 11 from a build tree (dpkg-deb) and checks it: lintian with no error (the
# tags it cannot fix are overridden with a reason in deploy/debian/lintian-overrides), the configuration's
# mode (postinst run as dpkg would, as root only), `systemd-analyze verify` of the unit as installed, and of the
# example drop-in for Cassandra's unit (with its ExecStartPre run on sample state files). Prints the package's
# path as its last line.
# Usage: scripts/package.sh [--build-dir DIR] [--out DIR]   (defaults: build/, the .deb into the build dir)
#   The version is the CMake project's (project(... VERSION x.y.z), as configured in the build dir).
set -euo pipefail
export LC_ALL=C.UTF-8
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build out=""
while (($#)); do
  case $1 in
    --build-dir) build=$(cd "${2:?--build-dir needs a directory}" && pwd); shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    -h | --help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$build}
die() { echo "package.sh: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps lintian systemd-analyze strip gzip; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs dpkg-dev, lintian, systemd, binutils)"
done

name=cassandra-lifecycle-agent
binary=$build/bin/$name
[[ -x $binary ]] || die "$binary is missing (build first: scripts/build.sh)"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[[ -n $version ]] || die "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
[[ $("$binary" --version) == *" $version"* ]] || die "$binary --version says '$("$binary" --version)', the project $version"
arch=$(dpkg --print-architecture)
deb=$out/${name}_${version}_${arch}.deb

work=$(mktemp -d "$build/package.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/root
doc=$stage/usr/share/doc/$name
share=$stage/usr/share/$name

# Files, as the package installs them (usrmerge: Debian 12 keeps units in /lib/systemd/system).
install -d "$stage/DEBIAN" "$doc/examples" "$share/prometheus" "$share/grafana" "$stage/usr/share/man/man8" \
  "$stage/usr/share/lintian/overrides"
install -D -m 0755 "$binary" "$stage/usr/bin/$name"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/$name"
sed -e "s|/usr/local/bin/|/usr/bin/|g" -e "s|/usr/local/share/$name/|/usr/share/doc/$name/|g" "$root/deploy/$name.service" \
  | install -D -m 0644 /dev/stdin "$stage/lib/systemd/system/$name.service"
install -D -m 0644 "$root/deploy/config.json" "$stage/etc/$name/config.json"
install -D -m 0644 "$root/deploy/$name.logrotate" "$stage/etc/logrotate.d/$name"
gzip -9n <"$root/deploy/$name.8" >"$stage/usr/share/man/man8/$name.8.gz"
install -m 0644 "$root/deploy/README.md" "$doc/README.md"
install -m 0644 "$root/deploy/config.example.json" "$doc/examples/config.example.json"
install -D -m 0644 "$root/deploy/cassandra.service.d/$name.conf" "$doc/examples/cassandra.service.d/$name.conf"
install -m 0644 "$root/deploy/prometheus/alerts.yml" "$share/prometheus/alerts.yml"
install -m 0644 "$root/deploy/grafana/$name.json" "$share/grafana/$name.json"
install -m 0644 "$root/deploy/debian/copyright" "$doc/copyright"
install -m 0644 "$root/deploy/debian/lintian-overrides" "$stage/usr/share/lintian/overrides/$name"
# A native package's changelog: one entry for this version.
commit=${CLA_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
maintainer=$(sed -n 's/^Maintainer: //p' "$root/deploy/debian/control")
{
  printf '%s (%s) stable; urgency=medium\n\n' "$name" "$version"
  printf '  * Built from commit %s.\n\n' "$commit"
  printf ' -- %s  %s\n' "$maintainer" "$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz" "$stage/usr/share/man/man8/$name.8.gz"

# Depends: the shared libraries the binary loads, as dpkg-shlibdeps names their packages (it wants a
# debian/control beside it).
mkdir -p "$work/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$name" "$name" >"$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e "$stage/usr/bin/$name" 2>"$work/shlibdeps.err") ||
  die "dpkg-shlibdeps failed: $(cat "$work/shlibdeps.err")"
depends=${shlibs#shlibs:Depends=}
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" \
  -e "s|@INSTALLED_SIZE@|$installed_size|" "$root/deploy/debian/control" >"$stage/DEBIAN/control"
printf '/etc/%s/config.json\n/etc/logrotate.d/%s\n' "$name" "$name" >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/"*
install -m 0755 "$root/deploy/debian/postinst" "$stage/DEBIAN/postinst"
find "$stage" -type d -exec chmod 0755 {} +

mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "== $deb ($(du -k "$deb" | cut -f1) KiB), Depends: $depends"

echo "== lintian"
lintian_out=$work/lintian.txt
lintian --fail-on error --display-info --show-overrides "$deb" >"$lintian_out" 2>&1 || {
  cat "$lintian_out"
  die "lintian found errors in $deb"
}
if [[ -s $lintian_out ]]; then sed 's/^/   /' "$lintian_out"; else echo "   (nothing to report)"; fi

unpacked=$work/unpacked
dpkg-deb -x "$deb" "$unpacked"
dpkg-deb -e "$deb" "$work/control"
echo "== the configuration's mode: shipped root:root 0644, made root:cassandra 0640 by postinst configure"
conf_entry=$(dpkg-deb -c "$deb" | awk -v f="./etc/$name/config.json" '$6 == f { print $1, $2 }')
[[ $conf_entry == "-rw-r--r-- root/root" ]] || die "$deb ships /etc/$name/config.json as '$conf_entry', not -rw-r--r-- root/root"
[[ $(stat -c %a "$work/control/postinst") == 755 ]] || die "$deb: DEBIAN/postinst is not mode 0755"
# The postinst as dpkg runs it, on a copy of /etc (an overlay in a private mount namespace: the host's /etc and
# dpkg database are never touched). CASE: its argument, whether a group cassandra exists, whether the
# administrator set a dpkg-statoverride; then the owner and mode expected.
postinst_case() { # ARG GROUP(yes|no) OVERRIDE(yes|no) EXPECTED
  local dir=$work/postinst-$1-$2-$3
  mkdir -p "$dir/upper" "$dir/work" "$dir/admin"
  [[ $3 == no ]] || echo "root root 0600 /etc/$name/config.json" >"$dir/admin/statoverride"
  # shellcheck disable=SC2016 # expanded in the namespace
  got=$(DPKG_ADMINDIR=$dir/admin unshare --mount --propagation private bash -euo pipefail -c '
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc
    sed -i "/^cassandra:/d" /etc/group
    [[ $3 == no ]] || echo "cassandra:x:64999:" >>/etc/group
    mkdir -p "/etc/$4"
    install -m 0644 "$5/etc/$4/config.json" "/etc/$4/config.json"
    sh "$6" "$2" 2>"$1/stderr"
    stat -c "%U:%G %a" "/etc/$4/config.json"' _ "$dir" "$1" "$2" "$name" "$unpacked" "$work/control/postinst") ||
    die "postinst $1 (group cassandra: $2, statoverride: $3) failed: $(cat "$dir/stderr" 2>/dev/null)"
  [[ $got == "$4" ]] || die "postinst $1 (group cassandra: $2, statoverride: $3) left config.json $got, not $4"
  echo "   postinst $1, group cassandra $2, statoverride $3: $got${5:+ ($5)}"
}
if ((EUID == 0)); then
  postinst_case configure yes no "root:cassandra 640"
  postinst_case configure no no "root:root 644" "and says so"
  grep -q "no group cassandra yet" "$work/postinst-configure-no-no/stderr" ||
    die "postinst without a group cassandra said nothing: $(cat "$work/postinst-configure-no-no/stderr")"
  postinst_case configure yes yes "root:root 644" "the administrator's override stands"
  postinst_case abort-upgrade yes no "root:root 644"
else
  echo "   postinst runs: skipped (they need root for a private mount namespace)"
fi

echo "== systemd-analyze verify (the unit as the package installs it; its ExecStart and man page in the unpacked package)"
mkdir -p "$work/verify"
sed "s|^ExecStart=/usr/bin/$name|ExecStart=$unpacked/usr/bin/$name|" "$unpacked/lib/systemd/system/$name.service" \
  >"$work/verify/$name.service"
verify_out=$work/verify.txt
# Documentation= names the man page, which verify looks up with man(1): in the unpacked package.
if ! MANPATH=$unpacked/usr/share/man systemd-analyze verify "$work/verify/$name.service" >"$verify_out" 2>&1 ||
  [[ -s $verify_out ]]; then
  cat "$verify_out"
  die "systemd-analyze verify reported the above for $name.service"
fi
echo "   clean"

echo "== Cassandra's drop-in (examples/cassandra.service.d): systemd-analyze verify on a stand-in cassandra.service, and"
echo "   its ExecStartPre on a drained, a restored and a missing state file"
dropin=$unpacked/usr/share/doc/$name/examples/cassandra.service.d/$name.conf
mkdir -p "$work/cassandra/cassandra.service.d"
printf '[Unit]\nDescription=stand-in\n[Service]\nExecStart=/bin/true\n' >"$work/cassandra/cassandra.service"
cp "$dropin" "$work/cassandra/cassandra.service.d/"
systemd-analyze verify "$work/cassandra/cassandra.service" >"$verify_out" 2>&1 || true
[[ ! -s $verify_out ]] || { cat "$verify_out"; die "systemd-analyze verify reported the above for the drop-in $dropin"; }
pre=$(sed -n 's/^ExecStartPre=//p' "$dropin")
[[ $pre == "/bin/sh -c '"*"'" ]] || die "$dropin: no ExecStartPre=/bin/sh -c '...' line"
pre=${pre#/bin/sh -c \'} pre=${pre%\'}
env_file=$(sed -n 's/^EnvironmentFile=-//p' "$dropin")
[[ $pre == *"/var/lib/$name/state.json"* && $pre == *"$env_file"* ]] ||
  die "$dropin: ExecStartPre does not read /var/lib/$name/state.json into its EnvironmentFile $env_file"
pre=${pre//\/var\/lib\/$name\/state.json/$work/cassandra/state.json} pre=${pre//$env_file/$work/cassandra/env}
for case in 'true:JVM_EXTRA_OPTS=-Dcassandra.start_native_transport=false' 'false:' 'missing:'; do
  rm -f "$work/cassandra/state.json"
  [[ ${case%%:*} == missing ]] || echo "{\"node\": {\"drained\": ${case%%:*}}}" >"$work/cassandra/state.json"
  sh -c "$pre" || die "$dropin: ExecStartPre failed with drained ${case%%:*}"
  [[ $(cat "$work/cassandra/env") == "${case#*:}" ]] ||
    die "$dropin: drained ${case%%:*} gave '$(cat "$work/cassandra/env")', not '${case#*:}'"
done
echo "   clean; drained -> $(sed -n 's/^.*echo \([^;]*\);.*$/\1/p' "$dropin"), restored or no state file -> nothing"
echo "$deb"
