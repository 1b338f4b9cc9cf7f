#!/bin/sh
# tools/check_exports.sh -- check what core.so exports against the public header.
#
#   sh tools/check_exports.sh build/cuarr/core.so src/cuarr.h
#
# The module must export luaopen_cuarr_core and every function src/cuarr.h declares CUARR_API,
# and nothing else: an internal name left visible can be taken over by a host linked with
# -rdynamic (or take over the host's), and a public one left hidden breaks embedders.  Prints
# each name that is wrong and exits 1 when there is one.
set -eu
export LC_ALL=C # sort and comm agree on one order
module="$1"
header="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The header without preprocessor lines, as one line without comments, then the name before
# the first "(" of each CUARR_API declaration.
grep -v '^[[:space:]]*#' "$header" | tr '\n' ' ' |
  sed -E 's:/\*([^*]|\*+[^*/])*\*+/: :g' |
  grep -oE 'CUARR_API[^;{(]*\(' |
  sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' >"$tmp/declared"
echo luaopen_cuarr_core >>"$tmp/declared"
sort -u "$tmp/declared" -o "$tmp/declared"
if [ "$(wc -l <"$tmp/declared")" -lt 2 ]; then
  echo "check_exports: found no CUARR_API declarations in $header" >&2
  exit 1
fi

nm -D --defined-only "$module" | awk '{print $NF}' | sort -u >"$tmp/exported"

status=0
for name in $(comm -13 "$tmp/declared" "$tmp/exported"); do
  echo "check_exports: $module exports $name, which $header does not declare CUARR_API" >&2
  status=1
done
for name in $(comm -23 "$tmp/declared" "$tmp/exported"); do
  echo "check_exports: $header declares $name CUARR_API but $module does not export it" >&2
  status=1
done
if [ "$status" = 0 ]; then
  echo "ok - check_exports: $module exports the $(wc -l <"$tmp/declared") names of $header"
fi
exit "$status"
