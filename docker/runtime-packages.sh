#!/usr/bin/env bash
# Prints the Debian packages that hold the shared libraries a binary loads, one a line (for the runtime image).
set -euo pipefail
binary=${1:?usage: runtime-packages.sh BINARY}
ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
  # Match on "<multiarch dir>/<file>" so that lib32/libx32 copies of the same library do not count.
  dpkg -S "*/$(basename "$(dirname "$lib")")/$(basename "$lib")" | cut -d: -f1
done | sort -u
