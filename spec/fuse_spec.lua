-- cuarr.fuse (issue 16): fused functions typed as the unfused calls are (every dtype pair, Lua
-- numbers as weak scalars, the resolver's special cases), the Lua function itself on host
-- arrays, every spec'd function compiled by NVRTC and launched on the stand-in driver (shapes
-- and dtypes against the unfused calls, views, broadcasting, 0-d and empty arrays), and the
-- device results against the unfused ones (#gpu).
local H = require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local cuarr = H.cuarr

-- The functions the specs fuse (the issue's three exactly as written there), in a chunk that
-- the stand-in children and the GPU specs load too (so each is defined at one place).
local FUNCS = [[
local ec = cuarr.fuse(function(x, y, z) return cuarr.sin(x) + cuarr.cos(y) / cuarr.sqrt(z) end)
local squared_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end, {kernel_name = "squared_diff"})
local sumsq = cuarr.fuse(function(x) return cuarr.sum(x * x) end)   -- a reduction at the end
local K = 3
local arith = cuarr.fuse(function(x, y)
  local t = x * 2 + y // K
  return t - x % (y + 1) + (-x) ^ 2
end)
local mixed = cuarr.fuse(function(x, y, s)
  return cuarr.maximum(x, y) * s - cuarr.minimum(x, 1.5)
end)
local cmp = cuarr.fuse(function(x, y)
  return cuarr.logical_and(cuarr.less(x, y), cuarr.greater_equal(x, 2))
end)
local divide = cuarr.fuse(function(x, y) return x / y end)
local inner = cuarr.fuse(function(a, b) return a * b + 1 end)
local outer = cuarr.fuse(function(x, y)
  local t = inner(x, y)
  return inner(t, x), t
end)
local rowsum = cuarr.fuse(function(x, y) return (x * y + 1):sum(2, {keepdims = true}) end)
local colmax = cuarr.fuse(function(x) return cuarr.max(cuarr.absolute(x) - 1, 1) end)
local prod64 = cuarr.fuse(function(x) return cuarr.prod(x + 1, nil, {dtype = "float64"}) end)
local minall = cuarr.fuse(function(x, y) return cuarr.amin(x - y) end)
local pick = cuarr.fuse(function(c, x, y) return cuarr.where(c, x, y * 0.5) end)
local lt300 = cuarr.fuse(function(x, n) return cuarr.less(x, n), cuarr.less(x, 300) end)
local add1 = cuarr.vectorize({"int32(int32)", "f8(f8)"}, function(x) return x + 1 end)
local twice = cuarr.vectorize({"f8(f8)"}, function(x) return x * 2 end)
local withvec = cuarr.fuse(function(x, y) return add1(x) * y + twice(add1(y)) end)
local SQRT_2PI = math.sqrt(2 * math.pi)
local gauss = cuarr.fuse(function(x, mean, sigma)
  return cuarr.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
end)
local weak = cuarr.fuse(function(x, a, b) return x * (a / b) + a ^ 2 - (-(a * 0.5)) // b end)
]]

local function load_funcs()
  local env = setmetatable({ cuarr = cuarr }, { __index = _G })
  local names = "ec, squared_diff, sumsq, arith, mixed, cmp, divide, inner, outer, rowsum, "
    .. "colmax, prod64, minall, pick, lt300, withvec, gauss, weak"
  local chunk = assert(load(FUNCS .. "\nreturn {" .. names:gsub("(%w[%w_]*)", "%1 = %1") .. "}",
    nil, "t", env))
  return chunk()
end

local F = load_funcs()

-- Arrays of every dtype with small values (so that unsigned and narrow types hold them).
local function values(rng, n, dtype)
  local t = {}
  for i = 1, n do
    local v = rng.int(0, 9)
    if dtype == "float16" or dtype == "float32" or dtype == "float64" then
      v = v - 4 + rng.int(0, 3) / 4
    end
    t[i] = v
  end
  return cuarr.cpu.array(t, "float64"):astype(dtype)
end

-- The dtype of the fused kernel's result i, read from its source; or the error's kind.
local function fused_dtype(f, ...)
  local ok, src = pcall(f.source_for, f, ...)
  if not ok then return "error " .. tostring(src.kind) end
  local outs = src:match("// out: ([^\n]*)")
  return outs:match("^(%w+)")
end

local function unfused_dtype(f, ...)
  local ok, r = pcall(f.fn, ...)
  if not ok then return "error " .. tostring(r.kind) end
  return r.dtype
end

describe("cuarr.fuse's typing", function()
  it("types every operation as the unfused call, for every pair of dtypes", function()
    local rng = H.rng(16)
    local checked = 0
    for _, da in ipairs(H.dtypes) do
      for _, db in ipairs(H.dtypes) do
        local a, b = values(rng, 5, da), values(rng, 5, db)
        for _, name in ipairs { "squared_diff", "arith", "cmp", "divide", "outer", "rowsum",
                                "minall", "withvec" } do
          local f = F[name]
          local x, y = a, b
          -- (vectorize's host run of a bool array is left out: its casts take numbers only.)
          if name == "withvec" and (da == "bool" or db == "bool") then goto next end
          if name == "rowsum" then x, y = a:reshape(1, 5), b:reshape(1, 5) end
          assert.are.equal(unfused_dtype(f, x, y), fused_dtype(f, x, y),
            ("%s(%s, %s)"):format(name, da, db))
          checked = checked + 1
          ::next::
        end
        -- (Lua integers that do not fit an integer loop are checked per call: see below.)
        for _, s in ipairs { 2, 2.5, -0.5 } do
          assert.are.equal(unfused_dtype(F.mixed, a, b, s), fused_dtype(F.mixed, a, b, s),
            ("mixed(%s, %s, %s)"):format(da, db, tostring(s)))
        end
      end
      local a = values(rng, 4, da)
      for _, name in ipairs { "sumsq", "colmax", "prod64" } do
        local x = name == "colmax" and a:reshape(2, 2) or a
        assert.are.equal(unfused_dtype(F[name], x), fused_dtype(F[name], x), name .. " " .. da)
      end
      assert.are.equal(unfused_dtype(F.ec, a, a, a), fused_dtype(F.ec, a, a, a), "ec " .. da)
    end
    assert.are.equal(8 * 144 - 23, checked)
  end)

  it("keeps the resolver's special cases", function()
    local i32 = cuarr.cpu.array({ 1, 2 }, "int32")
    local u8 = cuarr.cpu.array({ 1, 2 }, "uint8")
    local i64 = cuarr.cpu.array({ -1, 2 }, "int64")
    local u64 = cuarr.cpu.array({ 1, 2 }, "uint64")
    local f16 = cuarr.cpu.array({ 1, 2 }, "float16")
    -- int32 + int32 stays int32 (not Lua's int64); true division of integers in float64.
    assert.matches("cuarr_uf_add_int32%(", F.squared_diff:source_for(i32, i32) .. F.arith
      :source_for(i32, i32))
    assert.matches("cuarr_uf_divide_float64%(cuarr_cast<cuarr_uf_float64>%(a1%)",
      F.divide:source_for(i32, i32))
    -- int64 x uint64 comparisons by value.
    assert.matches("cuarr_uf_less_int64_uint64%(a1, a2%)", F.cmp:source_for(i64, u64))
    -- uint8 < 300: decided by the range, uint8 <= 255.
    assert.matches("cuarr_uf_less_equal_uint8%(a1, %(%(cuarr_uf_uint8%)%(255LL%)%)%)",
      F.lt300:source_for(u8, 1))
    -- float16 is stored as half and computed by the half functions.
    local s = F.squared_diff:source_for(f16, f16)
    assert.matches("const cuarr_uf_float16 t%d+ = cuarr_uf_subtract_float16%(a1, a2%)", s)
    -- A weak float keeps a float32 array float32 (NEP 50), with no float64 detour.
    local f32 = cuarr.cpu.array({ 1, 2 }, "float32")
    local m = F.mixed:source_for(f32, f32, 2.5)
    assert.matches("cuarr_uf_multiply_float32%(t%d+, cuarr_cast<cuarr_uf_float32>%(a3%)%)", m)
    assert.matches("float64 a3", m)
    assert.matches("cuarr_uf_minimum_float32%(a1, %(%(cuarr_uf_float32%)%(1.5%)%)%)", m)
    -- int8 + 3 stays int8; a weak integer constant out of range is the unfused ValueError.
    local i8 = cuarr.cpu.array({ 1, 2 }, "int8")
    assert.matches("cuarr_uf_multiply_int8%(a1, %(%(cuarr_uf_int8%)%(2LL%)%)%)",
      F.arith:source_for(i8, i8))
    local over = cuarr.fuse(function(x) return x + 300 end)
    local e = H.raises("ValueError", over.source_for, over, u8)
    assert.matches("spec/fuse_spec.lua:%d+: add: integer 300 out of bounds for uint8$", e.message)
    assert.is_true(pcall(F.lt300.source_for, F.lt300, u8, 1))
  end)

  it("types weak floats by the default float dtype of the call", function()
    local f = cuarr.fuse(function(x) return x + 2.5 end)
    local i32 = cuarr.cpu.array({ 1 }, "int32")
    assert.matches("// out: float64 y1", f:source_for(i32))
    cuarr.set_default_dtype("float32")
    local ok, src = pcall(f.source_for, f, i32)
    local unfused = (i32 + 2.5).dtype
    cuarr.set_default_dtype("float64")
    assert(ok, tostring(src))
    assert.are.equal("float32", unfused)
    assert.matches("// out: float32 y1", src)
    assert.matches("// out: float64 y1", f:source_for(i32))
  end)

  it("names the Lua function and the kernel, and uses the ufuncs' own scalar functions",
     function()
    local f32 = cuarr.cpu.array({ 1, 2 }, "float32")
    local s = F.ec:source_for(f32, f32, f32)
    assert.matches("// fused from the Lua function at %[string \"local ec = .-%]:1 %(cuarr.fuse%)",
      s)
    for _, fn in ipairs { "sin", "cos", "sqrt", "divide", "add" } do
      assert.matches("cuarr_uf_" .. fn .. "_float32%(", s)
    end
    assert.matches("#define CUARR_UFUNC_MATH_CUH", s)
    assert.are.equal("squared_diff", F.squared_diff.kernel_name)
    assert.are.equal("cuarr_fused", F.ec.kernel_name)
    local r = F.rowsum:source_for(f32:reshape(1, 2), f32)
    assert.matches("// reduce: a %+ b", r)
    assert.matches("cuarr_fused_map%(", r)
    assert.matches("// post: y = cuarr_cast<cuarr_uf_float32>%(a%)", r)
    local m = F.colmax:source_for(f32:reshape(1, 2))
    assert.matches("// reduce: cuarr_red_max%(a, b%)", m)
    -- The source of the last typing built is f.source.
    assert.are.equal(m, F.colmax.source)
  end)
end)

describe("cuarr.fuse on host arrays", function()
  it("runs the Lua function as written (the issue's three, and the others)", function()
    local rng = H.rng(7)
    for _, d in ipairs { "float32", "float64", "int16", "uint8" } do
      local x, y = values(rng, 7, d), values(rng, 7, d)
      local z = cuarr.cpu.abs(values(rng, 7, d)) + 1
      local function same(r, want)
        assert.are.equal(want.dtype, r.dtype)
        assert.are.same(want:totable(), r:totable())
        assert.are.equal("cpu", r.device)
      end
      if d ~= "int16" and d ~= "uint8" then
        same(F.ec(x, y, z), cuarr.cpu.sin(x) + cuarr.cpu.cos(y) / cuarr.cpu.sqrt(z))
      end
      same(F.squared_diff(x, y), (x - y) * (x - y))
      same(F.sumsq(x), cuarr.cpu.sum(x * x))
      local a, b = F.outer(x, y)
      same(b, x * y + 1)
      same(a, (x * y + 1) * x + 1)
      same(F.rowsum(x:reshape(7, 1), y), cuarr.cpu.sum(x:reshape(7, 1) * y + 1, 2,
        { keepdims = true }))
    end
    -- A Lua number beside host arrays: the function as written, NEP 50's weak scalar.
    local i8 = cuarr.cpu.array({ 1, -2, 3 }, "int8")
    local r = F.mixed(i8, i8, 2)
    assert.are.equal("float64", r.dtype)
    assert.are.same({ 1, -2, 4.5 }, r:totable())
  end)
end)

-- On the stand-in driver: NVRTC compiles every kernel and the launches check their arguments;
-- the shapes and dtypes are compared with the unfused calls'.
local function on_standin(code)
  local ok, out, err = child.run("local cuarr = require 'cuarr'\n" .. FUNCS .. code
    .. "\nprint('ok')", { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
  assert(ok and out:find("ok\n$"), out .. err)
end

local SAME = [[
local function same_shape(r, want, what)
  assert(r.dtype == want.dtype, what .. ": dtype " .. r.dtype .. " vs " .. want.dtype)
  assert(r.ndim == want.ndim, what .. ": ndim")
  for k = 1, r.ndim do assert(r.shape[k] == want.shape[k], what .. ": shape") end
  assert(r.device ~= "cpu", what .. ": on the device")
end
]]

describe("cuarr.fuse on the stand-in driver", function()
  it("compiles the issue's functions and every spec'd one with NVRTC", function()
    on_standin(SAME .. [[
local x = cuarr.arange(1000, "float32")
local z = x + 1
same_shape(ec(x, x, z), cuarr.sin(x) + cuarr.cos(x) / cuarr.sqrt(z), "ec")
same_shape(squared_diff(x, x), (x - x) * (x - x), "squared_diff")
same_shape(sumsq(x), cuarr.sum(x * x), "sumsq")
for _, d in ipairs { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                     "uint64", "float16", "float32", "float64" } do
  local a = cuarr.arange(6, "int64"):astype(d):reshape(2, 3)
  same_shape(outer(a, a), outer.fn(a, a), "outer " .. d)
  same_shape(rowsum(a, a), rowsum.fn(a, a), "rowsum " .. d)
  same_shape(colmax(a), colmax.fn(a), "colmax " .. d)
  same_shape(cmp(a, a), cmp.fn(a, a), "cmp " .. d)
  same_shape(pick(cuarr.greater(a, 2), a, a), pick.fn(cuarr.greater(a, 2), a, a), "pick " .. d)
  if d ~= "bool" then
    same_shape(arith(a, a), arith.fn(a, a), "arith " .. d)
    same_shape(mixed(a, a, 2), mixed.fn(a, a, 2), "mixed " .. d)
    same_shape(mixed(a, a, 0.5), mixed.fn(a, a, 0.5), "mixed float " .. d)
    same_shape(divide(a, a), divide.fn(a, a), "divide " .. d)
    same_shape(prod64(a), prod64.fn(a), "prod64 " .. d)
    same_shape(minall(a, a), minall.fn(a, a), "minall " .. d)
    same_shape(gauss(a, 1.0, 0.25), gauss.fn(a, 1.0, 0.25), "gauss " .. d)
    same_shape(weak(a, 3, 2), weak.fn(a, 3, 2), "weak " .. d)
    same_shape(weak(a, 2.5, -1.5), weak.fn(a, 2.5, -1.5), "weak float " .. d)
  end
end
for _, d in ipairs { "bool", "int8", "uint32", "float32", "float64" } do
  local a = cuarr.arange(6, "int64"):astype(d)
  same_shape(withvec(a, a), withvec.fn(a, a), "withvec " .. d)
  same_shape(withvec(a, a:astype("float32")), withvec.fn(a, a:astype("float32")),
    "withvec float32 " .. d)
end
-- A reduction taking a Lua number, beside an array it does not read.
local scaled = cuarr.fuse(function(x, s, y) return cuarr.sum(x * s, 1) end)
local x2 = cuarr.arange(12, "float32"):reshape(3, 4)
same_shape(scaled(x2, 2.5, cuarr.arange(5, "int8")), cuarr.sum(x2 * 2.5, 1), "scaled")
same_shape(scaled(x2, 2, x2), cuarr.sum(x2 * 2, 1), "scaled by an integer")
-- No signature of add1 takes int64: the unfused TypeError.
local okv, ev = pcall(withvec, cuarr.arange(3, "int64"), cuarr.arange(3, "int64"))
assert(not okv and cuarr.is_error(ev, "TypeError") and ev.message:find("no signature"),
  tostring(ev))
local u8 = cuarr.arange(5, "uint8")
local r1, r2 = lt300(u8, 7)
same_shape(r1, cuarr.less(u8, 7), "lt300")
same_shape(r2, cuarr.less(u8, 300), "lt300 constant")
]])
  end)

  it("takes views, broadcasting, 0-d and empty arrays and sizes off the block size", function()
    on_standin(SAME .. [[
local base = cuarr.arange(3 * 257, "float32"):reshape(3, 257)
local cases = {
  { base, base },                                       -- contiguous, off the block size
  { base.T, cuarr.arange(3, "float32") },               -- transposed, broadcast row
  { base[{ {}, {1, 257, 2} }], base[{ {}, {1, 257, 2} }] }, -- sliced with a step
  { base, cuarr.arange(3, "float32"):reshape(3, 1) },   -- broadcast column
  { cuarr.array(2.5, "float32"), base },                -- 0-d against 2-d
  { cuarr.array(2.5, "float32"), cuarr.array(1, "float32") }, -- 0-d alone
  { cuarr.empty({0, 4}, "float32"), cuarr.empty(4, "float32") }, -- empty
  { cuarr.arange(1, "float32"), cuarr.arange(1, "float32") },    -- one element
}
for i, c in ipairs(cases) do
  same_shape(squared_diff(c[1], c[2]), squared_diff.fn(c[1], c[2]), "squared_diff case " .. i)
  local a, b = outer(c[1], c[2])
  local wa, wb = outer.fn(c[1], c[2])
  same_shape(a, wa, "outer case " .. i)
  same_shape(b, wb, "outer's second case " .. i)
  same_shape(sumsq(c[2]), sumsq.fn(c[2]), "sumsq case " .. i)
  if c[1].size * c[2].size > 0 then
    same_shape(minall(c[1], c[2]), minall.fn(c[1], c[2]), "minall case " .. i)
  end
end
-- Broadcasting that does not work is the unfused error; an unused argument takes no part.
local ok, e = pcall(squared_diff, base, cuarr.arange(4, "float32"))
assert(not ok and cuarr.is_error(e, "ValueError"), tostring(e))
local first = cuarr.fuse(function(x, y) local t = x + y; return x * 2 end)
same_shape(first(base, cuarr.arange(4, "float32")), base * 2, "an unused operand")
-- The max of nothing is a ValueError, as cuarr.max's.
local ok2, e2 = pcall(colmax, cuarr.empty({0, 3}, "float32"))
assert(not ok2 and cuarr.is_error(e2, "ValueError"), tostring(e2))
-- A Lua integer out of a narrow loop's range: the unfused call decides (here a ValueError).
local add = cuarr.fuse(function(x, n) return x + n end)
same_shape(add(cuarr.arange(3, "uint8"), 7), cuarr.arange(3, "uint8") + 7, "uint8 + 7")
for _ = 1, 2 do -- the second time through the typing's cached kernel
  local ok3, e3 = pcall(add, cuarr.arange(3, "uint8"), 300)
  assert(not ok3 and cuarr.is_error(e3, "ValueError"), tostring(e3))
  local ok5, e5 = pcall(add, cuarr.arange(3, "uint8"), -1)
  assert(not ok5 and cuarr.is_error(e5, "ValueError"), tostring(e5))
  same_shape(add(cuarr.arange(3, "uint8"), 255), cuarr.arange(3, "uint8") + 255, "uint8 + 255")
end
-- ... and uint8 < n for n beyond uint8 is decided by the range, as unfused.
local r = lt300(cuarr.arange(3, "uint8"), 1000)
same_shape(r, cuarr.less(cuarr.arange(3, "uint8"), 1000), "uint8 < 1000")
-- Host and device arrays mixed: the unfused error.
local ok4, e4 = pcall(squared_diff, base, cuarr.cpu.arange(257, "float32"))
assert(not ok4 and cuarr.is_error(e4, "ValueError"), tostring(e4))
]])
  end)
end)

-- Device results: the fused kernels against the unfused calls, element for element.
local function same_values(r, want, what)
  assert.are.equal(want.dtype, r.dtype, what)
  assert.are.same(want.shape, r.shape, what)
  local a, b = H.flat(r:get():totable()), H.flat(want:get():totable())
  assert.are.equal(#b, #a, what)
  for i = 1, #a do
    if not (a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i])) then
      error(("%s: element %d is %s, unfused %s"):format(what, i, tostring(a[i]),
        tostring(b[i])))
    end
  end
end

local function close_values(r, want, what)
  assert.are.equal(want.dtype, r.dtype, what)
  assert.are.same(want.shape, r.shape, what)
  local a, b = H.flat(r:get():totable()), H.flat(want:get():totable())
  for i = 1, #a do
    local tol = 1e-5 * math.max(1, math.abs(b[i]))
    if r.dtype == "float16" then tol = 1e-2 * math.max(1, math.abs(b[i])) end
    -- (equal covers infinities: a float16 sum may overflow, fused or not)
    if not (a[i] == b[i] or math.abs(a[i] - b[i]) <= tol or (a[i] ~= a[i] and b[i] ~= b[i])) then
      error(("%s: element %d is %s, unfused %s"):format(what, i, tostring(a[i]),
        tostring(b[i])))
    end
  end
end

local function device_values(rng, shape, dtype)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return cuarr.asarray(values(rng, n, dtype):reshape(table.unpack(shape)))
end

describe("cuarr.fuse on the device", function()
  H.gpu_it("gives the unfused bits for every dtype, views and broadcasting", function()
    local rng = H.rng(99)
    for _, d in ipairs(H.dtypes) do
      local a = device_values(rng, { 5, 259 }, d)
      local b = device_values(rng, { 5, 259 }, d)
      local views = {
        { a, b }, { a.T, b.T }, { a[{ {}, { 1, 259, 3 } }], b[{ {}, { 1, 259, 3 } }] },
        { a, device_values(rng, { 259 }, d) }, { a, device_values(rng, { 5, 1 }, d) },
        { cuarr.array(3, d), a },
      }
      for k, v in ipairs(views) do
        local what = ("%s view %d"):format(d, k)
        local x, y = v[1], v[2]
        same_values(F.cmp(x, y), F.cmp.fn(x, y), "cmp " .. what)
        same_values(F.pick(cuarr.greater(x, 3), x, y), F.pick.fn(cuarr.greater(x, 3), x, y),
          "pick " .. what)
        local o1, o2 = F.outer(x, y)
        local w1, w2 = F.outer.fn(x, y)
        same_values(o1, w1, "outer " .. what)
        same_values(o2, w2, "outer's second " .. what)
        if d ~= "int64" and d ~= "uint64" then -- (add1 has no signature for them)
          same_values(F.withvec(x, y), F.withvec.fn(x, y), "withvec " .. what)
        end
        if d ~= "bool" then
          same_values(F.squared_diff(x, y), F.squared_diff.fn(x, y), "squared_diff " .. what)
          same_values(F.arith(x, y), F.arith.fn(x, y), "arith " .. what)
          same_values(F.divide(x, y), F.divide.fn(x, y), "divide " .. what)
          same_values(F.mixed(x, y, 3), F.mixed.fn(x, y, 3), "mixed int " .. what)
          same_values(F.mixed(x, y, -0.75), F.mixed.fn(x, y, -0.75), "mixed float " .. what)
          same_values(F.gauss(x, 1.0, 0.25), F.gauss.fn(x, 1.0, 0.25), "gauss " .. what)
          same_values(F.weak(x, 3, 2), F.weak.fn(x, 3, 2), "weak " .. what)
          same_values(F.weak(y, 2.5, -1.5), F.weak.fn(y, 2.5, -1.5), "weak float " .. what)
        end
      end
    end
  end)

  H.gpu_it("runs ec over a million float32 values as the unfused expression", function()
    local rng = H.rng(5)
    local n = 1000000
    local x = cuarr.asarray(values(rng, n, "float32"))
    local z = cuarr.absolute(x) + 0.5
    same_values(F.ec(x, x, z), F.ec.fn(x, x, z), "ec")
    close_values(F.sumsq(x), cuarr.sum(x * x), "sumsq")
  end)

  H.gpu_it("fuses reductions with axis and keepdims, sizes off the block size, empty", function()
    local rng = H.rng(3)
    for _, d in ipairs { "int8", "uint16", "int32", "int64", "float16", "float32", "float64" } do
      for _, shape in ipairs { { 3, 1000 }, { 257, 5 }, { 1, 1 } } do
        local x = device_values(rng, shape, d)
        local y = device_values(rng, { shape[2] }, d)
        local what = ("%s %dx%d"):format(d, shape[1], shape[2])
        close_values(F.rowsum(x, y), F.rowsum.fn(x, y), "rowsum " .. what)
        same_values(F.colmax(x), F.colmax.fn(x), "colmax " .. what)
        same_values(F.minall(x, y), F.minall.fn(x, y), "minall " .. what)
        close_values(F.prod64(x[{ {1, 1}, {1, 1} }]), F.prod64.fn(x[{ {1, 1}, {1, 1} }]),
          "prod64 " .. what)
        close_values(F.sumsq(x), F.sumsq.fn(x), "sumsq " .. what)
      end
      local e = cuarr.empty({ 0, 4 }, d)
      same_values(F.sumsq(e), F.sumsq.fn(e), "sumsq of nothing " .. d)
      same_values(F.rowsum(cuarr.empty({ 3, 0 }, d), cuarr.empty(0, d)),
        F.rowsum.fn(cuarr.empty({ 3, 0 }, d), cuarr.empty(0, d)), "rowsum of nothing " .. d)
    end
    -- NaN propagates through max as cuarr.max's.
    local x = cuarr.array({ { 1, 0 / 0 }, { 2, 3 } }, "float32")
    same_values(F.colmax(x), F.colmax.fn(x), "colmax with a NaN")
  end)
end)
