-- tools/fake_cuda/overhead.lua -- host cost per small operation: the time from Lua through
-- cuarr's C code to the driver call, with no device work behind it.
--
--   lua5.4 tools/fake_cuda/overhead.lua [N] [case ...] [--runs=R] [--warmup=W] [--list]
--
-- N ops per timed loop (default 200000); cases by name (default all, --list names them); each
-- case is timed R times (default 3) after one untimed loop of W ops (default 2000), and the
-- median and best ns/op are printed.  Meant for the fake driver (tools/fake_cuda/profile.sh
-- sets it up), where kernels never run and so results are garbage: the figures are host-only.
-- Under a real driver the same loops time host cost plus whatever the driver adds.
--
-- The loops mirror bench/elementwise.lua's and bench/reduction.lua's per-op cases: the op
-- inline, nothing else per iteration, one synchronize after the loop, garbage collected before.
-- The timed loop runs inside profiled_region() when the interpreter provides it (the
-- build/fake_cuda/lua of lua_main.c), so that callgrind can be told to count that loop only.

local cuarr = require "cuarr"

local F32 = "float32"

---------------------------------------------------------------- the cases

-- Each make(n) returns loop(n_ops), which runs n_ops ops, and a release() for its arrays.
local function operands(n)
  local a, b = cuarr.full(n, 1.5, F32), cuarr.full(n, 0.25, F32)
  local c = cuarr.full(n, -3.0, F32)
  return a, b, c, function() a:free(); b:free(); c:free() end
end

local function add_out(n)
  local a, b, c, release = operands(n)
  return function(n_ops)
    for _ = 1, n_ops do cuarr.add(a, b, c) end
  end, release
end

local function add_alloc(n)
  local a, b, _, release = operands(n)
  return function(n_ops)
    local c
    for _ = 1, n_ops do c = a + b end
    return c
  end, release
end

local function sum_alloc(n)
  local a = cuarr.arange(n, F32)
  return function(n_ops)
    local s
    for _ = 1, n_ops do s = a:sum() end
    return s
  end, function() a:free() end
end

local function sum_item(n)
  local a = cuarr.arange(n, F32)
  return function(n_ops)
    local v
    for _ = 1, n_ops do v = a:sum():item() end
    return v
  end, function() a:free() end
end

-- An ElementwiseKernel called with its output given (no ufunc dispatch, no type resolution, no
-- allocation).
local function ewk_out(n)
  local a, b, c, release = operands(n)
  local k = cuarr.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y",
                                    "fake_overhead_add")
  return function(n_ops)
    for _ = 1, n_ops do k(a, b, c) end
  end, release
end

-- The same kernel allocating its output: what a fused function's call builds on.
local function ewk_alloc(n)
  local a, b, _, release = operands(n)
  local k = cuarr.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)",
                                    "fake_overhead_squared_diff")
  return function(n_ops)
    for _ = 1, n_ops do k(a, b) end
  end, release
end

-- A fused function (cuarr.fuse): its typing computed, its kernel found, an ElementwiseKernel
-- call allocating the output.
local function fuse_call(n)
  local a, b, _, release = operands(n)
  local squared_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end)
  return function(n_ops)
    for _ = 1, n_ops do squared_diff(a, b) end
  end, release
end

-- The floor a user can reach from Lua: a RawKernel over n elements, its arguments checked
-- against the parameter list and converted, in CuPy's call style or through a Numba-style
-- launcher made once.
local RAW_ADD = [[
extern "C" __global__ void fake_overhead_raw_add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
]]

local function raw_call(n)
  local a, b, c, release = operands(n)
  local k = cuarr.RawKernel(RAW_ADD, "fake_overhead_raw_add")
  local grid, block = { (n + 255) // 256 }, { 256 }
  return function(n_ops)
    for _ = 1, n_ops do k(grid, block, { a, b, c, n }) end
  end, release
end

local function raw_numba(n)
  local a, b, c, release = operands(n)
  local launch = cuarr.RawKernel(RAW_ADD, "fake_overhead_raw_add")[{ (n + 255) // 256, 256 }]
  return function(n_ops)
    for _ = 1, n_ops do launch(a, b, c, n) end
  end, release
end

-- The same add as a kernel written in Lua (cuarr.jit.rawkernel): typed from its arguments per
-- call, the typing's kernel found in its cache, then the RawKernel launch.
local function jit_add()
  return cuarr.jit.rawkernel(function(x, y, z, n)
    local i = cuarr.jit.grid(1)
    if i <= n then z[i] = x[i] + y[i] end
  end)
end

local function jit_call(n)
  local a, b, c, release = operands(n)
  local k = jit_add()
  local grid, block = { (n + 255) // 256 }, { 256 }
  return function(n_ops)
    for _ = 1, n_ops do k(grid, block, { a, b, c, n }) end
  end, release
end

local function jit_numba(n)
  local a, b, c, release = operands(n)
  local launch = jit_add()[{ (n + 255) // 256, 256 }]
  return function(n_ops)
    for _ = 1, n_ops do launch(a, b, c, n) end
  end, release
end

-- cuarr.random: a Generator's draw into a given output (the per-call path of g:random(...)),
-- and one that allocates its result.
local function random_out(n)
  local out = cuarr.empty(n, F32)
  local g = cuarr.random.default_rng(1)
  local opts = { out = out }
  return function(n_ops)
    for _ = 1, n_ops do g:random(nil, nil, opts) end
  end, function() out:free() end
end

local function random_alloc(n)
  local g = cuarr.random.default_rng(1)
  return function(n_ops)
    for _ = 1, n_ops do g:standard_normal(n, F32) end
  end, function() end
end

-- For scale: one field read through the array's __index (what `a:sum` pays to find `sum`).
local function field_size(n)
  local a = cuarr.empty(n, F32)
  return function(n_ops)
    local s
    for _ = 1, n_ops do s = a.size end
    return s
  end, function() a:free() end
end

local CASES = {
  {name = "add_out_n1", label = "cuarr.add(a, b, c)  n=1", make = add_out, n = 1},
  {name = "add_out_n1000", label = "cuarr.add(a, b, c)  n=1000", make = add_out, n = 1000},
  {name = "add_alloc_n1", label = "d = a + b           n=1", make = add_alloc, n = 1},
  {name = "add_alloc_n1000", label = "d = a + b           n=1000", make = add_alloc, n = 1000},
  {name = "sum_alloc_n1000", label = "a:sum()             n=1000", make = sum_alloc, n = 1000},
  {name = "sum_item_n1000", label = "a:sum():item()      n=1000", make = sum_item, n = 1000},
  {name = "ewk_out_n1000", label = "EWK k(a, b, c)      n=1000", make = ewk_out, n = 1000},
  {name = "ewk_alloc_n1000", label = "EWK k(a, b)         n=1000", make = ewk_alloc, n = 1000},
  {name = "fuse_call_n1000", label = "fused f(a, b)       n=1000", make = fuse_call, n = 1000},
  {name = "raw_call_n1000", label = "RawKernel k(g, b, {...}) n=1000", make = raw_call, n = 1000},
  {name = "raw_numba_n1000", label = "RawKernel k[{g, b}](...) n=1000", make = raw_numba, n = 1000},
  {name = "jit_call_n1000", label = "jit.rawkernel k(g, b, {...}) n=1000", make = jit_call,
   n = 1000},
  {name = "jit_numba_n1000", label = "jit.rawkernel k[{g, b}](...) n=1000", make = jit_numba,
   n = 1000},
  {name = "random_out_n1000", label = "g:random(nil, nil, {out=o}) n=1000", make = random_out,
   n = 1000},
  {name = "random_alloc_n1000", label = "g:standard_normal(n, f32) n=1000", make = random_alloc,
   n = 1000},
  {name = "field_size", label = "a.size (reference)", make = field_size, n = 1000},
}

---------------------------------------------------------------- timing

local region = rawget(_G, "profiled_region") or function(fn, ...) return fn(...) end

local function median(v)
  table.sort(v)
  local n = #v
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

-- Seconds per op of loop(n_ops): the garbage of earlier runs collected first, the queue
-- drained after (as bench/timing.lua's wall_per_op).
local function seconds_per_op(loop, n_ops)
  collectgarbage()
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  region(loop, n_ops)
  cuarr.synchronize()
  return (cuarr.perf_counter() - t0) / n_ops
end

---------------------------------------------------------------- command line

local n_ops, runs, warmup = 200000, 3, 2000
local wanted, list = {}, false
for _, a in ipairs(arg or {}) do
  local key, value = a:match("^%-%-(%w+)=(%d+)$")
  if key == "runs" then
    runs = tonumber(value)
  elseif key == "warmup" then
    warmup = tonumber(value)
  elseif a == "--list" then
    list = true
  elseif a:match("^%d+$") then
    n_ops = tonumber(a)
  else
    wanted[a] = true
  end
end

local by_name = {}
for _, c in ipairs(CASES) do by_name[c.name] = c end
for name in pairs(wanted) do
  if not by_name[name] then
    local names = {}
    for _, c in ipairs(CASES) do names[#names + 1] = c.name end
    error("unknown case " .. name .. " (cases: " .. table.concat(names, " ") .. ")", 0)
  end
end
if list then
  for _, c in ipairs(CASES) do print(c.name, c.label) end
  return
end

local props = cuarr.Device(0).properties
print(string.format("# device %s; %d ops per loop, median and best of %d runs after %d warm-up ops",
                    props.name, n_ops, runs, warmup))
print(string.format("%-18s %-28s %12s %12s", "case", "op", "median ns/op", "best ns/op"))
for _, c in ipairs(CASES) do
  if next(wanted) == nil or wanted[c.name] then
    local loop, release = c.make(c.n)
    if warmup > 0 then loop(warmup) end
    local t = {}
    for r = 1, runs do t[r] = seconds_per_op(loop, n_ops) end
    local best = math.min(table.unpack(t))
    print(string.format("%-18s %-28s %12.1f %12.1f", c.name, c.label, median(t) * 1e9, best * 1e9))
    release()
    collectgarbage()
  end
end
