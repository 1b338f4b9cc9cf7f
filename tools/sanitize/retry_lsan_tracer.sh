#!/bin/sh
# Run a command (the specs under ASan and LSan), and run it once more when it failed only because
# LeakSanitizer's tracer crashed at exit ("Tracer caught signal 11", then "LeakSanitizer has
# encountered a fatal error"): the tracer dies at random before it has looked at any leak, which
# is no finding.  A leak report, a sanitizer error or a failed spec fails at once, as before.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=1
for try in 1 2; do
  "$@" >"$log" 2>&1
  status=$?
  cat "$log"
  [ "$status" -eq 0 ] && exit 0
  grep -q "LeakSanitizer has encountered a fatal error" "$log" || exit "$status"
  grep -q "ERROR: LeakSanitizer\|ERROR: AddressSanitizer\|runtime error:" "$log" && exit "$status"
  grep -Eq " 0 failures / 0 errors " "$log" || exit "$status"
  [ "$try" = 1 ] && echo "retry_lsan_tracer: LeakSanitizer's tracer crashed after a clean run; once more"
done
exit "$status"
