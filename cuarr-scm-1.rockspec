package = "cuarr"
version = "scm-1"
-- The project's repository, as an scm rockspec names it (`luarocks install` would clone it).
-- `luarocks --lua-version 5.4 make`, in a checkout's root, builds the sources in the current
-- directory and ignores source.url.
source = {
  url = "git+https://github.com/cuarr/cuarr.git",
}
description = {
  summary = "GPU arrays for Lua 5.4: NumPy semantics on CUDA devices",
  detailed = [[
    Device and host arrays with NumPy semantics, memory pools, streams and events, and
    kernels compiled at run time with NVRTC.  The CUDA libraries are opened with dlopen:
    building needs only the CUDA toolkit's headers, and the module loads without a GPU.
  ]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "make",
  -- The device sort library (minutes of nvcc) is built only where a CUDA driver is found;
  -- CUARR_SORT_LIB=1 in the environment builds it anyway, CUARR_SORT_LIB=0 never (Makefile).
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    CUARR_SORT_LIB_AUTO = "driver",
  },
  install_variables = {
    INST_LIBDIR = "$(LIBDIR)",
    INST_LUADIR = "$(LUADIR)",
    INST_BINDIR = "$(BINDIR)",
    CUARR_SORT_LIB_AUTO = "driver",
  },
}
