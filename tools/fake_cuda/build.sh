#!/bin/sh
# tools/fake_cuda/build.sh -- build the fake CUDA driver into build/fake_cuda/libcuda.so.1 and
# check that it exports every entry point src/core/cuda/driver.h lists.
#
# Also builds build/fake_cuda/lua, a Lua 5.4 interpreter linked with liblua5.4.a so that
# profiles name Lua's own functions (Debian's lua5.4 is stripped); see lua_main.c.
#
# Environment: CC (default cc), CUDA_HOME (default /usr/local/cuda), LUA_INCDIR (default
# /usr/include/lua5.4), LUA_LIBA (default /usr/lib/<multiarch>/liblua5.4.a), OUT (default
# build/fake_cuda, relative to the repository root).
set -eu
cd "$(dirname "$0")/../.."
CC="${CC:-cc}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
OUT="${OUT:-build/fake_cuda}"
WARN="-std=c11 -Wall -Wextra -D_GNU_SOURCE"
mkdir -p "$OUT"
# No DT_SONAME on purpose: NVRTC dlopens "libcuda.so.1" during nvrtcCompileProgram and, finding
# an already loaded object of that soname, asks it for cuGetExportTable (private driver tables
# that cannot be faked) and crashes.  Without the soname its dlopen fails, as on a machine
# without a driver, and NVRTC compiles on its own.
$CC -O2 -g $WARN -shared -fPIC -fvisibility=hidden \
  -Isrc -Isrc/core -I"$CUDA_HOME/include" -o "$OUT/libcuda.so.1" tools/fake_cuda/fake_cuda.c
$CC -O2 $WARN -Isrc -Isrc/core -I"$CUDA_HOME/include" \
  -o "$OUT/check_exports" tools/fake_cuda/check_exports.c -ldl
"$OUT/check_exports" "$OUT/libcuda.so.1"
echo "built $OUT/libcuda.so.1"

MULTIARCH="$($CC -print-multiarch 2>/dev/null || true)"
LUA_INCDIR="${LUA_INCDIR:-/usr/include/lua5.4}"
LUA_LIBA="${LUA_LIBA:-/usr/lib/$MULTIARCH/liblua5.4.a}"
if [ -f "$LUA_LIBA" ]; then
  $CC -O2 -g $WARN -I"$LUA_INCDIR" -I"$LUA_INCDIR/../$MULTIARCH" -o "$OUT/lua" \
    tools/fake_cuda/lua_main.c -Wl,-E -Wl,--whole-archive "$LUA_LIBA" -Wl,--no-whole-archive \
    -lm -ldl
  echo "built $OUT/lua"
else
  echo "no $LUA_LIBA: $OUT/lua not built (profiles will show Lua's functions as addresses)"
fi
