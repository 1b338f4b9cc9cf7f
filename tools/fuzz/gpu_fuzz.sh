#!/bin/sh
# gpu_fuzz.sh -- the fuzzer against the real driver under compute-sanitizer (`make fuzz-gpu`).
#
#   tools/fuzz/gpu_fuzz.sh check
#   tools/fuzz/gpu_fuzz.sh run LOGDIR FUZZER-ARGUMENT...
#
# `check` stops, before anything is built, where the run cannot happen: no compute-sanitizer
# (COMPUTE_SANITIZER, else on PATH, else CUDA_HOME's) or no GPU the driver lists (nvidia-smi).
# `run` runs tools/fuzz/fuzz.lua with the plain build (no ASan: the sanitizer's own interception
# and ASan's do not mix; no stand-in driver: the kernels run) inside `compute-sanitizer --tool
# memcheck`, the sanitizer's report in LOGDIR/memcheck.log and the fuzzer's output in
# LOGDIR/fuzz.log, and exits non-zero on a finding, a sanitizer error or a crash.  Needs the
# Makefile's LUA_PATH/LUA_CPATH (it runs from `make`).
set -u
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")}
lua_bin=$(command -v "${LUA:-lua5.4}")

check() {
  if [ ! -x "$sanitizer" ]; then
    echo "fuzz-gpu: compute-sanitizer not found (set COMPUTE_SANITIZER); it comes with the CUDA" \
         "toolkit, on the GPU machine. Without a GPU, \`make fuzz\` runs the fuzzer through the" \
         "stand-in driver." >&2
    exit 2
  fi
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "fuzz-gpu: no GPU here (nvidia-smi lists none): run it on the GPU machine." >&2
    exit 2
  fi
}

case ${1:-} in
check)
  check
  ;;
run)
  check
  logdir=$2
  shift 2
  if ! "$lua_bin" -e 'os.exit(require("cuarr").is_available() and 0 or 1)'; then
    echo "fuzz-gpu: cuarr finds no usable device (cuarr.is_available() is false)." >&2
    exit 2
  fi
  mkdir -p "$logdir"
  start=$(date +%s)
  # Driver calls that fail are not errors here (--report-api-errors no): the fuzzer provokes
  # them on purpose, and cuarr checks every status itself.  A call may take far longer under
  # memcheck than alone, hence the longer per-call bound.
  FUZZ_REPRO_TARGET=fuzz-gpu CUARR_GPU_MEMORY_LIMIT=${CUARR_GPU_MEMORY_LIMIT:-1073741824} \
    "$sanitizer" --tool memcheck --error-exitcode 97 --print-limit 200 --report-api-errors no \
    --log-file "$logdir/memcheck.log" \
    "$lua_bin" tools/fuzz/fuzz.lua --call-seconds 120 "$@" >"$logdir/fuzz.log" 2>&1
  status=$?
  tail -n 8 "$logdir/fuzz.log"
  summary=$(grep -E 'ERROR SUMMARY' "$logdir/memcheck.log" | tail -n 1)
  echo "fuzz-gpu: ${summary:-no summary}; exit $status; $(($(date +%s) - start)) s;" \
       "logs in $logdir"
  exit $status
  ;;
*)
  echo "usage: gpu_fuzz.sh check | run LOGDIR FUZZER-ARGUMENT..." >&2
  exit 2
  ;;
esac
