# A rank for spec/launcher_spec.lua, run by `sh` (CUARR_LUA=sh): it ignores SIGTERM, so that
# only the launcher's SIGKILL ends it.  Rank 1 exits with status 5 once ranks 0 and 2 have
# started their child (a `sleep 60`, which ignores SIGTERM too).
# Usage: ignore_term.sh dir
trap '' TERM
echo $$ >"$1/pid$CUARR_RANK"
if [ "$CUARR_RANK" = 1 ]; then
  for r in 0 2; do
    n=0
    while [ ! -s "$1/child$r" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
  done
  exit 5
fi
sleep 60 &
echo $! >"$1/child$CUARR_RANK"
wait
