-- Lua code run in a child process with this process's module paths: for the specs that need a
-- fresh process (a crash must not take busted down; a driver or a cache chosen through the
-- environment).
local C = {}

local fmt, concat = string.format, table.concat
local LUA = os.getenv("LUA") or "lua5.4"

function C.sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local sh_quote = C.sh_quote

-- Run `code` in a child Lua with the same package paths, `env` (name -> value) added to its
-- environment and `flags` given to the interpreter (e.g. "-W": warnings on); returns ok (exit
-- status 0), stdout and stderr.
-- The `NAME=value` words (shell-quoted) that give a child this process's package paths and env.
function C.env_words(env)
  local vars = { "LUA_PATH=" .. sh_quote(package.path), "LUA_CPATH=" .. sh_quote(package.cpath) }
  -- Under `make sanitize` a child inherits LeakSanitizer, whose tracer crashes at random in
  -- these short children (a bogus dynamic TLS record, as memory layout has it) before any leak
  -- is looked at: children keep ASan and UBSan, and leaks are checked in the specs' own process
  -- and the C tests.
  local asan = os.getenv("ASAN_OPTIONS")
  if asan and asan:find("detect_leaks=1", 1, true) and not (env and env.ASAN_OPTIONS) then
    vars[#vars + 1] = "ASAN_OPTIONS=" .. sh_quote(asan .. ":detect_leaks=0")
  end
  for k, v in pairs(env or {}) do vars[#vars + 1] = k .. "=" .. sh_quote(v) end
  return concat(vars, " ")
end

function C.run(code, env, flags)
  local script, err = os.tmpname(), os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(code)
  f:close()
  local p = io.popen(fmt("env %s %s %s %s 2>%s", C.env_words(env), LUA, flags or "",
    sh_quote(script), sh_quote(err)))
  local out = p:read("a")
  local ok = p:close()
  local e = io.open(err):read("a")
  os.remove(script)
  os.remove(err)
  return ok, out, e
end

-- The stand-in libcuda (tools/fake_cuda) built beside the module the specs load
-- (build/fake_cuda/, made by `make ctest`, which `make test` runs first): device memory is host
-- memory, kernels never run.
function C.fake_libcuda()
  local core = assert(package.searchpath("cuarr.core", package.cpath), "cuarr.core not found")
  local path = core:gsub("cuarr/core%.so$", "fake_cuda/libcuda.so.1")
  local f = io.open(path)
  assert(f, "no stand-in driver at " .. path .. ": build it with `make " .. path .. "`")
  f:close()
  return path
end

-- Run a shell command; returns ok (exit status 0) and its output, stderr included.
function C.shell(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end

return C
