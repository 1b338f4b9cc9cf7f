-- cuarr.jit.rawkernel (issue 16): kernels written as Lua functions.  Every construct is
-- translated and compiled by NVRTC and launched on the stand-in driver (which checks each
-- argument against the compiled kernel's parameters, but runs nothing); the device results
-- are checked against Lua references (#gpu).
local H = require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local cuarr = H.cuarr

local function on_standin(code)
  local ok, out, err = child.run("local cuarr = require 'cuarr'\nlocal jit = cuarr.jit\n" .. code
    .. "\nprint('ok')", { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
  assert(ok and out:find("ok\n$"), out .. err)
  return out
end

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64" }

describe("k:compile, without a device: translated for a typing and compiled by NVRTC", function()
  local jit = cuarr.jit
  it("every dtype of arrays, host arrays typing it, contiguous or not; numbers and booleans",
    function()
    local k = jit.rawkernel(function(a, b, n, f, on)
      local i = jit.grid(1)
      if on and i <= n then b[i] = a[i] end
      if i == 1 and f > 0 then a[1] = b[1] end
    end)
    for _, dt in ipairs(DTYPES) do
      local a = cuarr.cpu.zeros({ 4, 2 }, dt)[{ {}, 2 }]
      local src = k:compile({ a, cuarr.cpu.zeros(4, dt), 4, 0.5, true })
      assert.matches("long long a_1_s1", src)
      assert.matches("long long n_3, double f_4, bool on_5", src, 1, true)
      assert.is_nil(k.source)  -- nothing was launched
    end
    local src = k:compile({ cuarr.cpu.zeros(4, "int8"), cuarr.cpu.zeros(4, "int8"), 4, 1, false })
    assert.is_nil(src:find("_s1", 1, true))
    assert.matches("long long f_4", src, 1, true)
  end)
  it("refuses what a launch refuses", function()
    local k = jit.rawkernel(function(a) a[1] = 1 end)
    local e = H.raises("TypeError", k.compile, k, { 1, 2 })
    assert.matches("takes 1 argument, got 2", e.message)
    e = H.raises("TypeError", k.compile, k, 5)
    assert.matches("compile takes a table of arguments, got number", e.message)
    e = H.raises("TypeError", k.compile, k, { "x" })
    assert.matches("argument 1 of jit%.rawkernel .* got string", e.message)
    e = H.raises("CompileError", k.compile, k, { 7 })
    assert.matches("'a' is a number, not an array", e.message)
  end)
end)

describe("jit.rawkernel on the stand-in driver (NVRTC compiles every kernel)", function()
  it("the issue's elementwise_square, in both call styles", function()
    on_standin([[
local square = jit.rawkernel(function(x, y, size)
  local tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x  -- CUDA's 0-based thread number
  local ntid = jit.gridDim.x * jit.blockDim.x
  for i = tid + 1, size, ntid do y[i] = x[i] * x[i] end           -- arrays are 1-based, as in all Lua
end)
assert(square.source == nil)
local x, y = cuarr.arange(1000, "float32"), cuarr.empty(1000, "float32")
local size = 1000
square({128}, {1024}, {x, y, size}); square[{128, 1024}](x, y, size)
local src = square.source
assert(src:find("translated from the Lua function at [^\n]*:%d+"), src)
assert(src:find('extern "C" __global__ void cuarr_jit_kernel(float *__restrict__ x_1, '
  .. 'long long x_1_n1, ', 1, true), src)
-- A contiguous array is subscripted directly, the loop has no division inside.
assert(src:find("y_2[(i_6 - 1)] = (x_1[(i_6 - 1)] * x_1[(i_6 - 1)]);", 1, true), src)
assert(tostring(square):find("cuarr.jit.rawkernel"))
-- Another typing (float64, a strided view) compiles its own kernel; the first comes back.
local xd = cuarr.arange(20, "float64")[{{1, 20, 2}}]
square(2, 32, {xd, cuarr.empty(10, "float64"), 10})
assert(square.source:find("double *__restrict__ x_1, long long x_1_n1, long long x_1_s1", 1,
  true))
assert(square.source:find("x_1[(i_6 - 1) * x_1_s1]", 1, true), square.source)
-- Arrays that may share memory (the same array twice, overlapping views of one buffer) are not
-- __restrict__, each a typing of its own; disjoint views of one buffer are.
square(1, 32, {xd, xd, 10})
assert(square.source:find("double *x_1, long long x_1_n1, long long x_1_s1, double *y_2", 1,
  true), square.source)
local whole = cuarr.arange(40, "float64")
square(1, 32, {whole[{{1, 21}}], whole[{{20, 40}}], 20})
assert(square.source:find("double *x_1, long long x_1_n1, double *y_2", 1, true), square.source)
square(1, 32, {whole[{{1, 20}}], whole[{{21, 40}}], 20})
assert(square.source:find("double *__restrict__ x_1, long long x_1_n1, double *__restrict__ y_2",
  1, true), square.source)
-- k:compile decides as the launch does.
local function params(...) return square:compile({...}):match("cuarr_jit_kernel%(([^)]*)") end
assert(not params(xd, xd, 10):find("__restrict__", 1, true))
assert(not params(whole[{{1, 21}}], whole[{{20, 40}}], 20):find("__restrict__", 1, true))
assert(params(whole[{{1, 20}}], whole[{{21, 40}}], 20):find("double *__restrict__ y_2", 1, true))
square(2, 32, {x, y, size})
assert(square.source == src)
-- A reversed view has negative element strides; empty arrays (a C-contiguous typing) launch.
square(1, 32, {cuarr.arange(10, "float32")[{{10, 1, -1}}], cuarr.empty(10, "float32"), 10})
assert(square.source:find("x_1[(i_6 - 1) * x_1_s1]", 1, true), square.source)
square(1, 32, {cuarr.empty(0, "float32"), cuarr.empty(0, "float32"), 0})
square(1, 32, {cuarr.empty({0, 3}, "float32")[{{}, 1}], cuarr.empty(0, "float32"), 0})
]])
  end)

  it("subscripts of arrays of every dtype: 1-D, 2-D and 3-D, contiguous and strided views",
    function()
    on_standin([[
local DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64"}
local copy = jit.rawkernel(function(m, col, cube, out)
  local i = jit.grid(1)
  if i <= #col then
    out[i] = m[{i, 2}]
    col[i] = cube[{2, i, 1}]
    m[{i, 1}] = out[i]
  end
end)
for _, dt in ipairs(DTYPES) do
  local m = cuarr.zeros({5, 3}, dt)
  local col = cuarr.zeros({5, 4}, dt)[{{}, 2}]          -- strided
  local cube = cuarr.zeros({4, 5, 2}, dt):transpose(3, 2, 1):transpose(3, 2, 1)
  copy(1, 32, {m, col, cube, cuarr.zeros(5, dt)})
  local src = copy.source
  assert(src:find("m_1[((i_5 - 1) * m_1_n2 + 1LL)]", 1, true), src)
  assert(src:find("col_2[(i_5 - 1) * col_2_s1]", 1, true), src)
  local mt = cuarr.zeros({3, 5}, dt).T                   -- a transposed (strided) 2-D view
  copy[{1, 32}](mt, col, cube, cuarr.zeros(5, dt))
  assert(copy.source:find("m_1[(i_5 - 1) * m_1_s1 + 1LL * m_1_s2]", 1, true), copy.source)
  if dt == "float16" then assert(copy.source:find("__half2float", 1, true)) end
end
-- Values read from a bool array are booleans; numbers convert on storing.
local logic = jit.rawkernel(function(b, x, y)
  local i = jit.grid(1)
  if i <= #b then
    if b[i] and not (x[i] > 2) then b[i] = x[i] < y[i] end
    y[i] = x[i] / 2
  end
end)
for _, dt in ipairs {"int8", "uint16", "int64", "float16", "float32"} do
  logic(1, 16, {cuarr.zeros(4, "bool"), cuarr.arange(4, dt), cuarr.zeros(4, "int32")})
end
]])
  end)

  it("#a, a.shape[k] (constant and variable k), a.size, a.ndim", function()
    on_standin([[
local k = jit.rawkernel(function(a, out)
  local i = jit.grid(1)
  if i == 1 then
    out[1] = #a
    out[2] = a.shape[1] * 10 + a.shape[3]
    out[3] = a.size
    out[4] = a.ndim
    for d = 1, a.ndim do out[4 + d] = a.shape[d] end
  end
end)
k(1, 1, {cuarr.zeros({2, 3, 4}, "float32"), cuarr.zeros(8, "int64")})
assert(k.source:find("(a_1_n1 * a_1_n2 * a_1_n3)", 1, true), k.source)
k(1, 1, {cuarr.zeros({4, 3, 2}, "float32"):transpose(3, 2, 1), cuarr.zeros(8, "int64")})
]])
  end)

  it("CUDA's coordinates, jit.grid and jit.gridsize of 1 to 3, syncthreads, syncwarp, warpsize",
    function()
    on_standin([[
local k = jit.rawkernel(function(out)
  local t = jit.threadIdx.x + jit.threadIdx.y * 10 + jit.threadIdx.z * 100
  local b = jit.blockIdx.x + jit.blockIdx.y + jit.blockIdx.z
  local d = jit.blockDim.x * jit.blockDim.y * jit.blockDim.z
  local g = jit.gridDim.x * jit.gridDim.y * cuarr.jit.gridDim.z
  local i = jit.grid(1)
  local x, y = jit.grid(2)
  local p, q, r = jit.grid(3)
  local s = jit.gridsize(1)
  local sx, sy, sz = jit.gridsize(3)
  jit.syncthreads()
  jit.syncwarp()
  if i <= #out then out[i] = t + b + d + g + x + y + p + q + r + s + sx + sy + sz + jit.warpsize end
end)
k({2, 2, 2}, {4, 4, 2}, {cuarr.zeros(64, "int64")})
k[{{2, 1}, 32}](cuarr.zeros(64, "int64"))
assert(k.source:find("__syncthreads();", 1, true) and k.source:find("__syncwarp();", 1, true))
assert(k.source:find("((long long)threadIdx.z)", 1, true))
]])
  end)

  it("shared and local arrays, 1-D and 2-D, of several dtypes", function()
    on_standin([[
local k = jit.rawkernel(function(x, out)
  local tile = jit.shared_array("float32", {32, 33})
  local counts = jit.shared_array("int32", 32)
  local flags = jit.shared_array("bool", 4)
  local acc = jit.local_array("float64", {2, 2})
  local h = jit.local_array("float16", 3)
  local t = jit.threadIdx.x + 1
  tile[{t, 1}] = x[t]
  counts[t] = 0
  flags[1] = true
  acc[{1, 1}] = #tile + #acc
  h[1] = 0.5
  jit.syncthreads()
  if flags[1] then out[t] = tile[{t, 1}] + counts[t] + acc[{1, 1}] + h[1] end
end)
k(1, 32, {cuarr.zeros(32, "float32"), cuarr.zeros(32, "float64")})
local src = k.source
assert(src:find("__shared__ float tile_3[1056];", 1, true), src)
assert(src:find("__shared__ int counts_4[32];", 1, true), src)
assert(src:find("double acc_6[4];", 1, true) and not src:find("__shared__ double", 1, true))
]])
  end)

  it("each atomic on each dtype it takes, returning the old value", function()
    on_standin([[
local TAKES = {
  add = {"int32", "uint32", "int64", "uint64", "float32", "float64"},
  sub = {"int32", "uint32", "int64", "uint64", "float32", "float64"},
  max = {"int32", "uint32", "int64", "uint64"}, min = {"int32", "uint32", "int64", "uint64"},
  exch = {"int32", "uint32", "int64", "uint64", "float32"},
  ["and"] = {"int32", "uint32", "int64", "uint64"}, ["or"] = {"int32", "uint32", "int64", "uint64"},
  xor = {"int32", "uint32", "int64", "uint64"},
}
local by_dtype = {}
for op, dts in pairs(TAKES) do
  for _, dt in ipairs(dts) do
    by_dtype[dt] = by_dtype[dt] or {}
    table.insert(by_dtype[dt], op)
  end
end
for dt, ops in pairs(by_dtype) do
  table.sort(ops)
  local lines = {"function(a, old, v)", "  local i = jit.grid(1)"}
  for k, op in ipairs(ops) do
    lines[#lines + 1] = ("  old[%d] = jit.atomic_%s(a, %d, v)"):format(k, op, k)
  end
  if dt ~= "float32" and dt ~= "float64" then
    lines[#lines + 1] = ("  old[%d] = jit.atomic_cas(a, {%d}, 0, v)"):format(#ops + 1, #ops + 1)
  end
  lines[#lines + 1] = "end"
  local k = jit.rawkernel(table.concat(lines, "\n"))
  k(1, 32, {cuarr.zeros(10, dt), cuarr.zeros(10, dt), 3})
  k(1, 32, {cuarr.zeros(10, dt), cuarr.zeros(10, dt), 2.5})
  assert(k.source:find("atomic"), k.source)
end
]])
  end)

  it("integer, float and boolean scalars; streams and shared_mem in both call styles", function()
    on_standin([[
local k = jit.rawkernel(function(out, n, scale, on)
  local i = jit.grid(1)
  if on and i <= n then out[i] = i * scale end
end)
local out = cuarr.zeros(8, "float32")
local s = cuarr.Stream()
k(1, 8, {out, 8, 0.5, true})
k(1, 8, {out, 8, 0.5, false}, {stream = s, shared_mem = 256})
k[{1, 8, s}](out, 8, 0.5, true)
k[{1, 8, s, 128}](out, 8, 0.5, true)
k[{1, 8, nil, 64}](out, 8, 0.5, true)
s:synchronize()
assert(k.source:find("long long n_2, double scale_3, bool on_4", 1, true), k.source)
-- An integer for the float (a new typing) and options passed on to NVRTC.
k(1, 8, {out, 8, 2, true})
assert(k.source:find("long long scale_3", 1, true))
local o = jit.rawkernel(function(a) a[1] = 1 end, {options = {"-lineinfo"}})
o(1, 1, {cuarr.zeros(1, "int32")})
-- Typings alternating call by call, and a typing too long for the last-launch shortcut (17
-- arrays): each call finds its own kernel.
local many = jit.rawkernel("function(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q) "
  .. "a[1] = q[1] end")
local function arrays(dt)
  local t = {}
  for i = 1, 17 do t[i] = cuarr.zeros(2, dt) end
  return t
end
local i32, f64 = arrays("int32"), arrays("float64")
for _ = 1, 3 do
  many(1, 1, i32)
  assert(many.source:find("int *__restrict__ a_1", 1, true))
  many[{1, 1}](table.unpack(f64))
  assert(many.source:find("double *__restrict__ a_1", 1, true))
  k(1, 8, {out, 8, 0.5, true})
  assert(k.source:find("double scale_3", 1, true))
  k[{1, 8}](out, 8, 1, true)
  assert(k.source:find("long long scale_3", 1, true))
end
]])
  end)

  it("device functions called from a kernel, a source string, an early return", function()
    on_standin([[
local clamp = jit.device(function(v, lo, hi) return math.min(math.max(v, lo), hi) end)
local k = jit.rawkernel(function(x, n)
  local i = jit.grid(1)
  if i > n then return end
  x[i] = clamp(x[i], 0, 1)
end)
k(1, 32, {cuarr.zeros(16, "float32"), 16})
assert(k.source:find("clamp_1(", 1, true), k.source)
local s = jit.rawkernel("function(x) local i = jit.grid(1) "
  .. "if i <= #x then x[i] = math.sqrt(i) end end")
s(1, 32, {cuarr.zeros(16, "float64")})
assert(s.source:find("translated from the Lua function at source:1", 1, true), s.source)
]])
  end)
end)

-- The device results: each kernel against a Lua reference.
describe("jit.rawkernel on the device", function()
  local jit = cuarr.jit

  H.gpu_it("elementwise_square in both call styles, sizes off the block size", function()
    local square = jit.rawkernel(function(x, y, size)
      local tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
      local ntid = jit.gridDim.x * jit.blockDim.x
      for i = tid + 1, size, ntid do y[i] = x[i] * x[i] end
    end)
    for _, n in ipairs { 1, 10, 1000, 4097 } do
      local x = cuarr.arange(n, "float32")
      local y = cuarr.zeros(n, "float32")
      square({3}, {128}, {x, y, n})
      assert.is_true(y:eq(x * x):all())
      local y2 = cuarr.zeros(n, "float32")
      square[{2, 64}](x, y2, n)
      assert.is_true(y2:eq(x * x):all())
      -- In place (x and y one array, so not __restrict__), and two disjoint halves of one
      -- buffer (__restrict__).
      local z = cuarr.arange(n, "float32")
      square({3}, {128}, {z, z, n})
      assert.is_true(z:eq(x * x):all())
      local both = cuarr.zeros(2 * n, "float32")
      both[{{1, n}}] = x
      square({3}, {128}, {both[{{1, n}}], both[{{n + 1, 2 * n}}], n})
      assert.is_true(both[{{n + 1, 2 * n}}]:eq(x * x):all())
    end
  end)

  H.gpu_it("strided and transposed views read and write through their strides", function()
    local k = jit.rawkernel(function(m, out)
      local i, j = jit.grid(2)
      if i <= m.shape[1] and j <= m.shape[2] then out[{i, j}] = m[{i, j}] * 10 + i end
    end)
    for _, dt in ipairs { "int16", "uint8", "int64", "float32", "float64" } do
      local base = cuarr.arange(24, dt):reshape(4, 6)
      local m = base.T                                   -- (6, 4), strided
      local out = cuarr.zeros({8, 4}, dt)[{{1, 8, 2}, {}}]  -- (4, 4), rows 1, 3, 5, 7
      local mv = m[{{2, 5}, {}}]                          -- (4, 4)
      k[{{1, 1}, {8, 8}}](mv, out)
      local got, src = out:get():totable(), mv:get():totable()
      for i = 1, 4 do
        for j = 1, 4 do assert.are.equal(src[i][j] * 10 + i, got[i][j]) end
      end
      local full = cuarr.zeros({8, 4}, dt):get():totable()
      local whole = out.base:get():totable()
      for j = 1, 4 do
        assert.are.equal(full[2][j], whole[2][j])      -- rows between the view's: untouched
      end
    end
  end)

  H.gpu_it("a reversed view (negative strides), and empty arrays, which launch and do nothing",
    function()
    local k = jit.rawkernel(function(x, y)
      local i = jit.grid(1)
      if i <= #x then y[i] = x[i] end
    end)
    local x = cuarr.arange(10, "int32")[{ { 10, 1, -1 } }]
    local y = cuarr.zeros(10, "int32")
    k(1, 32, { x, y })
    assert.are.same({ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, y:get():totable())
    local e = cuarr.zeros(0, "int32")
    k(1, 32, { e, y })
    assert.are.same({ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, y:get():totable())
  end)

  H.gpu_it("every dtype: a copy through a kernel, bool and float16 included", function()
    local k = jit.rawkernel(function(a, b)
      local i = jit.grid(1)
      if i <= #a then b[i] = a[i] end
    end)
    for _, dt in ipairs(DTYPES) do
      local vals = dt == "bool" and { true, false, true } or { 1, 2, 3 }
      local a = cuarr.array(vals, dt)
      local b = cuarr.zeros(3, dt)
      k(1, 32, { a, b })
      assert.are.same(vals, b:get():totable())
    end
  end)

  H.gpu_it("a block sum in shared memory with syncthreads and atomic_add", function()
    local block_sum = jit.rawkernel(function(x, total, n)
      local cache = jit.shared_array("float64", 128)
      local t = jit.threadIdx.x + 1
      local i = jit.grid(1)
      cache[t] = i <= n and x[i] or 0.0
      jit.syncthreads()
      local stride = 64
      while stride >= 1 do
        if t <= stride then cache[t] = cache[t] + cache[t + stride] end
        jit.syncthreads()
        stride = stride // 2
      end
      if t == 1 then jit.atomic_add(total, 1, cache[1]) end
    end)
    local n = 1000
    local x = cuarr.arange(n, "float64") + 1
    local total = cuarr.zeros(1, "float64")
    block_sum((n + 127) // 128, 128, { x, total, n })
    assert.are.equal(n * (n + 1) / 2, total:get():totable()[1])
  end)

  H.gpu_it("a histogram with atomics on int32, uint32, int64, uint64", function()
    local hist = jit.rawkernel(function(x, bins)
      local start, stride = jit.grid(1), jit.gridsize(1)
      for i = start, #x, stride do jit.atomic_add(bins, x[i] % #bins + 1, 1) end
    end)
    for _, dt in ipairs { "int32", "uint32", "int64", "uint64" } do
      local n = 3001
      local bins = cuarr.zeros(7, dt)
      hist(4, 256, { cuarr.arange(n, "int32"), bins })
      local want = {}
      for b = 1, 7 do want[b] = 0 end
      for v = 0, n - 1 do want[v % 7 + 1] = want[v % 7 + 1] + 1 end
      assert.are.same(want, bins:get():totable())
    end
  end)

  H.gpu_it("each atomic returns the old value and leaves the right one", function()
    local k = jit.rawkernel(function(a, old, v)
      if jit.grid(1) == 1 then
        old[1] = jit.atomic_add(a, 1, v)
        old[2] = jit.atomic_sub(a, 2, v)
        old[3] = jit.atomic_max(a, 3, v)
        old[4] = jit.atomic_min(a, 4, v)
        old[5] = jit.atomic_exch(a, 5, v)
        old[6] = jit.atomic_and(a, 6, v)
        old[7] = jit.atomic_or(a, 7, v)
        old[8] = jit.atomic_xor(a, 8, v)
        old[9] = jit.atomic_cas(a, 9, 9, v)
        old[10] = jit.atomic_cas(a, 10, 0, v)
      end
    end)
    for _, dt in ipairs { "int32", "uint32", "int64", "uint64" } do
      local init = { 1, 20, 3, 4, 5, 6, 7, 8, 9, 10 }
      local a, old = cuarr.array(init, dt), cuarr.zeros(10, dt)
      k(1, 32, { a, old, 12 })
      assert.are.same(init, old:get():totable())
      assert.are.same({ 13, 8, 12, 4, 12, 6 & 12, 7 | 12, 8 ~ 12, 12, 10 }, a:get():totable())
    end
    local f = jit.rawkernel(function(a, old, v)
      if jit.grid(1) == 1 then
        old[1] = jit.atomic_add(a, 1, v)
        old[2] = jit.atomic_sub(a, 2, v)
      end
    end)
    for _, dt in ipairs { "float32", "float64" } do
      local a, old = cuarr.array({ 1.5, 4 }, dt), cuarr.zeros(2, dt)
      f(1, 1, { a, old, 0.25 })
      assert.are.same({ 1.5, 4 }, old:get():totable())
      assert.are.same({ 1.75, 3.75 }, a:get():totable())
    end
  end)

  H.gpu_it("scalars, grid(2), local arrays, a stream and dynamic shared memory", function()
    local k = jit.rawkernel(function(out, scale, shift, on)
      local i, j = jit.grid(2)
      local tmp = jit.local_array("float64", 2)
      tmp[1], tmp[2] = i * scale, j + shift
      if on and i <= out.shape[1] and j <= out.shape[2] then out[{i, j}] = tmp[1] + tmp[2] end
    end)
    local out = cuarr.zeros({5, 3}, "float64")
    local s = cuarr.Stream()
    k({1, 1}, {8, 4}, { out, 0.5, 2, true }, { stream = s, shared_mem = 64 })
    s:synchronize()
    local got = out:get():totable()
    for i = 1, 5 do
      for j = 1, 3 do assert.are.equal(i * 0.5 + j + 2, got[i][j]) end
    end
    local off = cuarr.zeros({5, 3}, "float64")
    k[{{1, 1}, {8, 4}, s, 32}](off, 0.5, 2, false)
    s:synchronize()
    assert.are.equal(0, off:sum():item())
  end)
end)
