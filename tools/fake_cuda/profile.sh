#!/bin/sh
# tools/fake_cuda/profile.sh -- cuarr's per-op host overhead under the fake CUDA driver.
#
#   tools/fake_cuda/profile.sh [N] [case ...]       time every case (or those named), N ops a loop
#   tools/fake_cuda/profile.sh callgrind CASE [N]   callgrind one case over N ops (default 20000)
#   tools/fake_cuda/profile.sh perf CASE [N]        perf record one case (default N 2000000)
#   tools/fake_cuda/profile.sh list                 the case names
#
# Builds the fake driver and the profiling interpreter (build.sh) and the module (make, into
# $BUILD, default build/fake_cuda/module, with CFLAGS default -O2 -g), then runs
# tools/fake_cuda/overhead.lua with CUARR_LIBCUDA pointing at the fake.  Kernels are compiled
# by the real NVRTC and cached in $CUARR_CACHE_DIR (default build/fake_cuda/kernel_cache); the
# profiling modes run the case once natively first so that nothing compiles under valgrind.
#
# callgrind counts only the timed loop (overhead.lua runs it inside profiled_region(), and
# callgrind dumps its counts on entering and on leaving that function; the second of two timed
# runs is kept), then cg_report.lua
# prints instructions per op, the top functions by inclusive and by self cost in Ir per op, and
# calls per op.  Its files stay in build/fake_cuda/ for callgrind_annotate or
# kcachegrind.  Environment: BUILD, CFLAGS, JOBS (make -j, default 2), LUA (default lua5.4, for
# the timings), TOP (functions listed, default 30), WARMUP (ops before the profiled loop,
# default 2000), FAKE_CUDA_COUNT=1 (the fake prints its call counts at exit).
set -eu
cd "$(dirname "$0")/../.."
ROOT="$PWD"
OUT=build/fake_cuda
BUILD="${BUILD:-$OUT/module}"
TOP="${TOP:-30}"
WARMUP="${WARMUP:-2000}"

log="$OUT/build.log"
mkdir -p "$OUT"
if ! { sh tools/fake_cuda/build.sh && make BUILD="$BUILD" CFLAGS="${CFLAGS:--O2 -g}" -j"${JOBS:-2}" all; } >"$log" 2>&1; then
  cat "$log"
  echo "profile.sh: build failed" >&2
  exit 1
fi

export CUARR_LIBCUDA="$ROOT/$OUT/libcuda.so.1"
export CUARR_CACHE_DIR="${CUARR_CACHE_DIR:-$ROOT/$OUT/kernel_cache}"
export LUA_PATH="$ROOT/lua/?.lua;$ROOT/lua/?/init.lua;$ROOT/?.lua;${LUA_PATH:-};;"
export LUA_CPATH="$ROOT/$BUILD/?.so;${LUA_CPATH:-};;"
LUA="${LUA:-lua5.4}"
PLUA="$OUT/lua" # the interpreter with symbols and profiled_region()
SCRIPT=tools/fake_cuda/overhead.lua

# Run CASE once natively: compiles (or loads) its kernels, and fails early on a bad name.
warm() {
  "$PLUA" "$SCRIPT" 10 "$1" --runs=1 --warmup=10 >/dev/null
}

mode="${1:-}"
case "$mode" in
list)
  "$LUA" "$SCRIPT" --list
  ;;
callgrind)
  name="${2:?usage: profile.sh callgrind CASE [N]}"
  n="${3:-20000}"
  command -v valgrind >/dev/null || { echo "profile.sh: valgrind is not installed" >&2; exit 1; }
  warm "$name"
  file="$OUT/callgrind.$name.out"
  rm -f "$file" "$file".*
  # Dumps on entering and on leaving profiled_region; two timed runs, each after a full
  # collection, and the last dump (the second run alone) is kept: by then the pool holds what
  # the collector's pace needs, as in a long loop (the first run after a collection may still
  # take new blocks from the driver).  A --collect-atstart=no --toggle-collect run would count
  # the same Ir, but callgrind counts the calls on its call arcs even while not collecting.
  # Uncompressed names: a later dump refers to names an earlier one defined, which leaves
  # callgrind_annotate lost.
  valgrind --tool=callgrind --dump-before=profiled_region --dump-after=profiled_region \
    --compress-strings=no \
    --callgrind-out-file="$file" "$PLUA" "$SCRIPT" "$n" "$name" --runs=2 --warmup="$WARMUP" \
    >"$OUT/callgrind.$name.log" 2>&1 || { cat "$OUT/callgrind.$name.log"; exit 1; }
  region=$(grep -l '^desc: Trigger: --dump-after=profiled_region' "$file".* | sort -V | tail -n 1)
  mv "$region" "$file.loop"
  rm -f "$file" "$file".[0-9]*
  mv "$file.loop" "$file"
  echo "== $name ($file: the loop alone, between callgrind's dumps around profiled_region;"
  echo "   callgrind_annotate --inclusive=yes --threshold=100 $file for callgrind's own view)"
  "$LUA" tools/fake_cuda/cg_report.lua "$file" "$n" "$TOP"
  ;;
perf)
  name="${2:?usage: profile.sh perf CASE [N]}"
  n="${3:-2000000}"
  warm "$name"
  data="$OUT/perf.$name.data"
  # cpu-clock: virtual machines often have no hardware counters.  A flat profile: neither Lua
  # nor the module keeps frame pointers (add --call-graph=dwarf by hand for callers).
  perf record -q -e cpu-clock -o "$data" "$PLUA" "$SCRIPT" "$n" "$name" --runs=1 >/dev/null
  perf report -i "$data" --stdio --sort dso,symbol --percent-limit=0.5 2>/dev/null \
    | grep -v '^#' | grep -v '^$' | head -n "$TOP"
  ;;
*)
  "$LUA" "$SCRIPT" "$@"
  ;;
esac
