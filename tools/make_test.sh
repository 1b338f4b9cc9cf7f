#!/bin/sh
# `make test` after the build (the Makefile builds the module and every C test in parallel, then
# runs this): the C tests one at a time, so that their output stays in order; the compile-all C
# tests only when their stamp is out of date (see COMPILE_ALL_CTESTS in the Makefile) or
# CUARR_COMPILE_ALL=1; the exports check; the busted specs through tools/busted_summary.lua;
# and last a short summary, so that the end of the output says everything.  Lines that .ci/run
# counts ("ok - ", "not ok - ", busted's "N successes / ...") appear once each: the summary
# indents the ones it repeats.
# Environment: MAKE, BUILD, LUA, BUSTED, PLAIN_CTESTS, COMPILE_ALL_CTESTS, MODULE, and
# CUARR_COMPILE_ALL=1 to run the compile-all tests regardless of their stamps.
set -u
log=$BUILD/test-c.log
crashed=$BUILD/test-c.exited
counts=$BUILD/test-busted.txt
rm -f "$log" "$crashed" "$counts" "$BUILD/test-exports.failed"
: >"$log"

run_ctest() { # a C test, its output kept in the log; one that exits non-zero is remembered
  { "$1" || echo "$1 exited $?" >>"$crashed"; } 2>&1 | tee -a "$log"
}

for t in $PLAIN_CTESTS; do run_ctest "$t"; done

skipped=
for name in $COMPILE_ALL_CTESTS; do
  stamp=$BUILD/ctest/$name.passed
  [ "${CUARR_COMPILE_ALL:-0}" = 1 ] && rm -f "$stamp"
  if $MAKE --no-print-directory -q "$stamp" 2>/dev/null; then
    skipped="$skipped $name"
  else
    rm -f "$stamp"
    run_ctest "$BUILD/ctest/$name"
    grep -q "^$BUILD/ctest/$name exited" "$crashed" 2>/dev/null || touch "$stamp"
  fi
done

exports=passed
{ sh tools/check_exports.sh "$MODULE" src/cuarr.h || echo FAILED >"$BUILD/test-exports.failed"; } \
  2>&1 | tee -a "$log"
[ -f "$BUILD/test-exports.failed" ] && exports=FAILED

# The specs' own `make install` must not join this make's job server.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL CUARR_BUSTED_COUNTS="$counts" \
  "$BUSTED" --lua="$LUA" -o tools/busted_summary.lua spec
busted_status=$?

c_ok=$(grep -c '^ok - ' "$log")
c_not_ok=$(grep -c '^not ok - ' "$log")
echo
echo "==== make test: summary ===="
echo "C tests and the exports check: $c_ok ok, $c_not_ok not ok"
grep '^not ok - ' "$log" | sed 's/^/  /'
[ -f "$crashed" ] && sed 's/^/  exited non-zero: /' "$crashed"
[ -z "$skipped" ] || echo "  compile-all C tests$skipped:" \
  "skipped (unchanged since the last pass: make test-compile-all to force)"
echo "exports check: $exports"
if [ -f "$counts" ]; then
  sed '1s/^/busted: /' "$counts"
else
  echo "busted: stopped before its summary (see above)"
fi
if [ "$c_not_ok" -eq 0 ] && [ ! -f "$crashed" ] && [ "$exports" = passed ] &&
   [ "$busted_status" -eq 0 ]; then
  echo "make test: passed"
else
  echo "make test: FAILED"
  exit 1
fi
