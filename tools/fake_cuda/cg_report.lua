-- tools/fake_cuda/cg_report.lua -- a callgrind output file, per op.
--
--   lua5.4 tools/fake_cuda/cg_report.lua callgrind.out N_OPS [TOP]
--
-- Prints instructions (Ir) per op, the TOP (default 30) functions by inclusive and by self
-- cost in Ir per op, and calls per op: a fixed watch list (heap, locks, Lua strings and tables,
-- GC, the driver's entry points), who calls the heap, lock and driver functions, and the most
-- called functions.
--
-- Costs are keyed by function name alone.  callgrind_annotate keys them by file:function, and
-- the file switches inside a function for inlined code (fi=/fe=), so one function shows up as
-- several lines there (src/x.c:f, ???:f, /abs/src/x.c:f), each with part of its cost.  Self
-- costs fold callgrind's recursion levels (f'2 into f); inclusive costs keep them apart, as
-- the outer level already contains the inner.

local file, n_ops, top = arg[1], tonumber(arg[2]), tonumber(arg[3] or "30")
if not file or not n_ops then
  io.stderr:write("usage: cg_report.lua callgrind.out N_OPS [TOP]\n")
  os.exit(2)
end

local names = {} -- compressed id -> function name (fn= and cfn= share one table)
local self_cost, incl_cost, calls = {}, {}, {}
local callers = {} -- callee -> caller -> calls
local total = 0
local fn, callee -- the function the cost lines belong to; the one the next calls= is about
local pending_call = false -- the next cost line is the inclusive cost of a call

local function name_of(spec)
  local id, name = spec:match("^%((%d+)%)%s*(.*)$")
  if not id then return spec end
  if name ~= "" then names[id] = name end
  return names[id]
end

-- A function's name without callgrind's recursion level (f'2) or a symbol version (@@GLIBC_2.2.5).
local function base(name) return (name:gsub("@.*$", ""):gsub("'%d+$", "")) end

local function add(t, k, v) t[k] = (t[k] or 0) + v end

for line in io.lines(file) do
  local c = line:sub(1, 1)
  if c:match("[%d%+%-%*]") then
    local ir = tonumber(line:match("^%S+%s+(%d+)")) or 0
    if pending_call then
      add(incl_cost, fn, ir)
      pending_call = false
    elseif fn then
      add(self_cost, base(fn), ir)
      add(incl_cost, fn, ir)
    end
  else
    local key, rest = line:match("^(%a+)=(.*)$")
    if key == "fn" then
      fn = name_of(rest)
    elseif key == "cfn" then
      callee = name_of(rest)
    elseif key == "calls" then
      local count = tonumber(rest:match("^(%d+)"))
      add(calls, base(callee), count)
      callers[base(callee)] = callers[base(callee)] or {}
      add(callers[base(callee)], base(fn), count)
      pending_call = true
    elseif not key then
      local t = line:match("^totals:%s*(%d+)") or line:match("^summary:%s*(%d+)")
      if t then total = tonumber(t) end
    end
  end
end

local function sorted(t)
  local list = {}
  for k, v in pairs(t) do list[#list + 1] = {k, v} end
  table.sort(list, function(x, y) return x[2] > y[2] or (x[2] == y[2] and x[1] < y[1]) end)
  return list
end

-- The TOP costliest of t.  With whole_loop set, the frames that hold the whole loop (main down
-- to profiled_region and the interpreter running the loop: 100%, or more where callgrind's
-- recursion accounting counts a frame twice) are named on one line instead of listed.
local function table_of(title, t, whole_loop)
  print(string.format("-- %s: Ir per op, %% of the op's Ir (top %d)", title, top))
  local frames, shown = {}, 0
  for _, kv in ipairs(sorted(t)) do
    if whole_loop and kv[2] >= 0.999 * total then
      frames[#frames + 1] = kv[1]
    elseif shown < top then
      shown = shown + 1
      print(string.format("%10.1f %6.1f%%  %s", kv[2] / n_ops, 100 * kv[2] / total, kv[1]))
    end
  end
  if #frames > 0 then
    table.sort(frames)
    print("  (holding the whole loop, not listed: " .. table.concat(frames, " ") .. ")")
  end
  print()
end

print(string.format("%s: %d ops, %d Ir, %.0f Ir per op", file, n_ops, total, total / n_ops))
print()
table_of("inclusive", incl_cost, true)
table_of("self", self_cost, false)

local function per_op(name) return (calls[name] or 0) / n_ops end

local WATCH = {
  {"heap", {"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign"}},
  {"locks", {"pthread_mutex_lock", "pthread_mutex_unlock", "pthread_once",
             "pthread_getspecific", "__tls_get_addr"}},
  {"Lua strings", {"lua_getfield", "lua_setfield", "lua_pushstring", "lua_pushlstring",
                   "lua_pushfstring", "luaH_getshortstr", "luaH_getstr", "luaS_hash", "luaS_new",
                   "luaS_newlstr", "internshrstr", "luaL_checklstring", "luaL_checkudata",
                   "luaL_testudata", "lua_rawgetp"}},
  {"Lua objects", {"luaH_new", "lua_createtable", "luaH_resize", "lua_newuserdatauv",
                   "luaC_newobj", "luaF_newCclosure", "luaF_newLclosure"}},
  {"Lua GC", {"luaC_step", "singlestep", "luaC_fullgc", "GCTM", "lua_gc"}},
  {"Lua calls", {"luaD_precall", "luaD_call", "luaD_callnoyield", "lua_callk", "lua_pcallk",
                 "luaT_callTMres", "luaT_trybinTM", "luaV_finishget", "luaG_traceexec"}},
}

print("-- calls per op")
for _, group in ipairs(WATCH) do
  local parts = {}
  for _, name in ipairs(group[2]) do
    local v = per_op(name)
    if v >= 0.005 then parts[#parts + 1] = string.format("%s %.2f", name, v) end
  end
  print(string.format("  %-12s %s", group[1], #parts > 0 and table.concat(parts, ", ") or "-"))
end

-- Every call into the fake driver: the names the loader resolves all start with "cu".
local driver_total, driver_parts = 0, {}
for name, n in pairs(calls) do
  if name:match("^cu[A-Z]") and n / n_ops >= 0.005 then
    driver_total = driver_total + n
    driver_parts[#driver_parts + 1] = name
  end
end
table.sort(driver_parts)
for i, name in ipairs(driver_parts) do
  driver_parts[i] = string.format("%s %.2f", name, per_op(name))
end
print(string.format("  %-12s %.2f: %s", "driver", driver_total / n_ops,
                    #driver_parts > 0 and table.concat(driver_parts, ", ") or "-"))
print()

-- Who makes the heap, lock and driver calls.
print("-- callers, calls per op")
local CALLERS_OF = {"malloc", "calloc", "realloc", "free", "pthread_mutex_lock", "__tls_get_addr",
                    "cuCtxGetCurrent",
                    "cuCtxSetCurrent", "cuMemAlloc_v2", "lua_getfield", "lua_newuserdatauv"}
for _, callee in ipairs(CALLERS_OF) do
  if per_op(callee) >= 0.005 then
    local parts = {}
    for _, kv in ipairs(sorted(callers[callee])) do
      if kv[2] / n_ops >= 0.005 then
        parts[#parts + 1] = string.format("%s %.2f", kv[1], kv[2] / n_ops)
      end
    end
    print(string.format("  %-18s <- %s", callee, table.concat(parts, ", ")))
  end
end
print()
print(string.format("-- most called: calls per op (top %d)", top))
for i, kv in ipairs(sorted(calls)) do
  if i > top then break end
  print(string.format("%10.2f  %s", kv[2] / n_ops, kv[1]))
end
