#!/bin/sh
# gpu_sanitize.sh -- the #gpu specs under NVIDIA's compute-sanitizer (`make test-gpu-sanitize`).
#
#   tools/gpu_sanitize.sh TOOL LOGDIR SPEC...
#
# Runs busted over SPEC... (only the #gpu specs, not #multigpu) inside `compute-sanitizer --tool
# TOOL` (memcheck, racecheck, synccheck or initcheck), the sanitizer's report in LOGDIR/TOOL.log and
# busted's output in LOGDIR/TOOL.busted.log.  Exits non-zero when the sanitizer reported an error or
# a spec failed.  Each kernel runs many times slower under the race checker, so the Makefile hands
# the race and sync checks spec/kernel_races_spec.lua: one small case for each shape of kernel
# whose threads share memory (reductions, scans, norms, user kernels).
#
# Needs the Makefile's LUA_PATH/LUA_CPATH (it runs from `make`) and a device the sanitizer
# supports; CUARR_REQUIRE_GPU=1 makes the specs fail rather than skip when none is usable.
set -u
tool=$1 logdir=$2
shift 2
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")}
if [ ! -x "$sanitizer" ]; then
  echo "gpu_sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
  exit 2
fi
mkdir -p "$logdir"
busted_bin=$(command -v "${BUSTED:-busted}")
lua_bin=$(command -v "${LUA:-lua5.4}")
start=$(date +%s)
# busted is a Lua script: the sanitizer starts the interpreter itself, so the one process it
# watches is the one whose kernels run.  Driver calls that fail are not counted as errors
# (--report-api-errors no): the specs provoke some on purpose (an allocation larger than the
# device must become a MemoryError), and cuarr checks every driver status itself.
CUARR_REQUIRE_GPU=1 "$sanitizer" --tool "$tool" --error-exitcode 97 --print-limit 200 \
  --report-api-errors no \
  --log-file "$logdir/$tool.log" \
  "$lua_bin" "$busted_bin" --lua="$lua_bin" -o TAP --tags=gpu --exclude-tags=multigpu "$@" \
  >"$logdir/$tool.busted.log" 2>&1
status=$?
passed=$(grep -c '^ok ' "$logdir/$tool.busted.log")
failed=$(grep -c '^not ok ' "$logdir/$tool.busted.log")
summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$logdir/$tool.log" | tail -n 1)
echo "$tool: ${summary:-no summary}; specs: $passed ok, $failed not ok; $(($(date +%s) - start)) s;" \
  "exit $status"
[ "$status" -eq 0 ]
