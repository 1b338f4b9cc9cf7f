-- cuarr.vectorize and cuarr.jit.device (issue 16): the translator's output on the host (the Lua
-- function on host arrays without a GPU), every spec'd function compiled by NVRTC through the
-- stand-in driver, and the device results (#gpu).
local H = require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local cuarr = H.cuarr
local jit = cuarr.jit
local host = require "cuarr.jit.host"

local function on_standin(code)
  local ok, out, err = child.run("local cuarr = require 'cuarr'\n" .. code .. "\nprint('ok')",
    { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
  assert(ok and out:find("ok\n$"), out .. err)
end

-- The issue's functions, exactly as written there.
local ISSUE = [[
local jit = cuarr.jit
local host = require "cuarr.jit.host"
local add_ufunc = cuarr.vectorize({"float32(float32, float32)"}, function(x, y) return x + y end)
local SQRT_2PI = math.sqrt(2 * math.pi)                            -- an upvalue, inlined as a constant
local gaussian_pdf = cuarr.vectorize({"float32(float32, float32, float32)"}, function(x, mean, sigma)
  return math.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
end)
local polar_to_cartesian = jit.device(function(rho, theta)
  return rho * math.cos(theta), rho * math.sin(theta)              -- two results
end)
local polar_distance = cuarr.vectorize({"float32(float32, float32, float32, float32)"},
  function(rho1, theta1, rho2, theta2)
    local x1, y1 = polar_to_cartesian(rho1, theta1)
    local x2, y2 = polar_to_cartesian(rho2, theta2)
    return ((x1 - x2) ^ 2 + (y1 - y2) ^ 2) ^ 0.5
  end)
]]

-- Every construct of the subset, in one function per signature.
local CONSTRUCTS = [[
local LIMIT, FLAG = 3, true
local helper = cuarr.jit.device(function(a, b) return a // b, a % b, a ^ 2 end)
local everything = cuarr.vectorize({"float32(float32, int32)", "float64(float64, int64)"},
  function(x, n)
    local s = 0
    for i = 1, n do s = s + x / i end
    for i = n, 1, -2 do s = s - i end
    for t = 0.5, 2.5, 0.5 do s = s + t end
    for i = 1, 2.7 do s = s + i end
    local k = 10
    repeat local z = k - 1; k = z until z < LIMIT
    while k > 0 do k = k - 1 if k == 1 then break end end
    local p, q, r = helper(x, 3)
    p, q = q, p
    local m
    if x > 1 and FLAG then m = math.floor(x) elseif not (x < -1) then m = 2 else m = -n end
    local c = x > 0 and x or -x
    local d = math.max(x, n, 0.5) + math.min(x, 2) + math.abs(n) + math.abs(x) + math.fmod(n, 3)
      + math.sqrt(c) + math.log(c + 1) + math.log(c + 1, 2) + math.atan(x, 2) + math.ceil(x)
      + math.pi + n // 2 + n % 3 + 7 // -2 + (-7) % 3 + 2 ^ n + cuarr.jit.float32(x)
      + cuarr.jit.int32(x)
    if d ~= d then return math.huge end
    do return s + p + q + r + m + c + d + math.maxinteger // math.maxinteger end
  end)
]]

describe("cuarr.vectorize on host arrays without a GPU", function()
  if H.has_gpu then return end
  it("runs the issue's add_ufunc, gaussian_pdf and polar_distance through the Lua function",
     function()
    local env = setmetatable({ cuarr = cuarr }, { __index = _G })
    local f = assert(load(ISSUE .. "\nreturn add_ufunc, gaussian_pdf, polar_distance", nil, "t",
      env))
    local add_ufunc, gaussian_pdf, polar_distance = f()
    local r = add_ufunc(cuarr.cpu.arange(4, "float32"), cuarr.cpu.full(4, 10, "float32"))
    assert.are.same({ 10, 11, 12, 13 }, r:totable())
    assert.are.equal("float32", r.dtype)
    local g = gaussian_pdf(cuarr.cpu.array({ 0, 1, -2 }, "float32"), 0, 1):totable()
    for i, x in ipairs { 0, 1, -2 } do
      assert.is_true(math.abs(g[i] - math.exp(-x * x / 2) / math.sqrt(2 * math.pi)) < 1e-6)
    end
    -- Broadcasting: a column against a row.
    local d = polar_distance(cuarr.cpu.array({ { 1 }, { 2 } }, "float32"), 0,
      cuarr.cpu.array({ 1, 3 }, "float32"), math.pi / 2)
    assert.are.same({ 2, 2 }, d.shape)
    local t = d:totable()
    assert.is_true(math.abs(t[1][1] - math.sqrt(2)) < 1e-6)
    assert.is_true(math.abs(t[2][2] - math.sqrt(13)) < 1e-5)
  end)

  it("picks the first signature the inputs cast to safely", function()
    local v = cuarr.vectorize({ "int32(int32)", "f8(f8)" }, function(x) return x * 2 end)
    assert.are.equal("int32", v(cuarr.cpu.array({ 1, 2 }, "int16")).dtype)
    assert.are.equal("float64", v(cuarr.cpu.array({ 1, 2 }, "float32")).dtype)
    assert.are.same({ 3.0 }, v(cuarr.cpu.array({ 1.5 }, "float64")):totable())
  end)
end)

describe("the translator", function()
  it("names the Lua function in the generated CUDA C and keeps Lua's semantics", function()
    local v = cuarr.vectorize({ "float64(float64, float64)" }, function(a, b)
      return a // b + a % b
    end)
    assert.matches("translated from the Lua function at spec/jit_spec.lua:%d+", v.source)
    assert.matches("cuarr_fidiv%(", v.source)
    assert.matches("cuarr_fmod%(", v.source)
    local i = cuarr.vectorize({ "int64(int64, int64)" }, function(a, b) return a // b + a % b end)
    assert.matches("cuarr_idiv%(", i.source)
    assert.matches("cuarr_imod%(", i.source)
  end)

  it("compiles the issue's functions and every construct of the subset with NVRTC", function()
    on_standin(ISSUE .. CONSTRUCTS .. [[
local x = cuarr.arange(8, "float32")
assert(add_ufunc(x, x).shape[1] == 8)
local o = cuarr.empty(8, "float32")
assert(add_ufunc(x, x, {out = o}) == o)
assert(gaussian_pdf(x, 0, 1).dtype == "float32")
assert(polar_distance(x, x, x, x).dtype == "float32")
assert(everything(cuarr.arange(4, "float64"), cuarr.arange(4, "int64")).dtype == "float64")
assert(everything(x, cuarr.arange(8, "int32")).dtype == "float32")
-- Host arrays go to the device and back, into a host out too; inputs cast to the signature.
local h = cuarr.cpu.arange(4, "float32")
local r = add_ufunc(h, h)
assert(r.device == "cpu" and r.dtype == "float32" and r.shape[1] == 4)
local ho = cuarr.cpu.empty(4, "float32")
assert(add_ufunc(h, h, {out = ho}) == ho)
local r16 = add_ufunc(cuarr.cpu.arange(4, "int16"), h)
assert(r16.device == "cpu" and r16.dtype == "float32")
local ok, e = pcall(add_ufunc, x, x, {out = cuarr.empty(8, "float64")})
assert(not ok and cuarr.is_error(e, "TypeError"), tostring(e))
-- float16 signatures: the kernel stores float16, the function computes in float32.
local fma16 = cuarr.vectorize({"f2(f2, f2)", "f4(f4, f4)"}, function(a, b) return a * b + 0.5 end)
assert(fma16(cuarr.arange(4, "float16"), cuarr.arange(4, "float16")).dtype == "float16")
assert(fma16(cuarr.arange(4, "float16"), 2.5).dtype == "float16")
assert(fma16(cuarr.arange(4, "float32"), x[{{1, 4}}]).dtype == "float32")
assert(fma16.sources[1]:find("float cuarr_vectorized_1%(float a_%d+, float b_%d+%)") ~= nil,
  fma16.sources[1])
]])
  end)
end)

-- The generated C run on the host (compiled by c++) against Lua itself on the same inputs.
describe("the translated C on the host", function()
  local host_cxx = require "spec.support.host_cxx"
  local FLOATS = { -7, -3.5, -1, -0.0, 0.0, 0.5, 2, 3, 7.25, 1e300, -1e300, math.huge,
                   -math.huge, 0 / 0 }
  local FDIV = { -3, -2, -0.5, 0.75, 2, 3, 1e-300, math.huge, -math.huge, 0.0, -0.0 }
  local INTS = { -7, -1, 0, 1, 5, 9, math.maxinteger, math.mininteger }
  local IDIV = { -3, -1, 2, 7, math.maxinteger, math.mininteger }

  local function grid(xs, ys)
    local rows = {}
    for _, x in ipairs(xs) do for _, y in ipairs(ys) do rows[#rows + 1] = { x, y } end end
    return rows
  end

  -- vectorize(sig, fn)'s C against fn run by Lua (the inputs and result cast as the signature
  -- says) on every row.
  local function agrees(sig, fn, rows)
    local v = cuarr.vectorize({ sig }, fn)
    local s = v.signatures[1]
    local got = host_cxx.run(v.sources[1], s.cname, s.ins, s.out, rows)
    for i, row in ipairs(rows) do
      local args = {}
      for k, x in ipairs(row) do args[k] = host.casts[s.ins[k]](x) end
      local want = host.casts[s.out](host.run(fn, table.unpack(args, 1, #row)))
      local same = got[i] == want or (got[i] ~= got[i] and want ~= want)
      assert(same and math.type(got[i]) == math.type(want), string.format(
        "%s on (%s): C %s, Lua %s", sig, table.concat(args, ", "), tostring(got[i]),
        tostring(want)))
    end
  end

  local it_cxx = host_cxx.available and it or pending
  it_cxx("gives Lua's float //, %, ^ and / with negatives, zeros, infinities and NaN", function()
    local rows = grid(FLOATS, FDIV)
    agrees("f8(f8, f8)", function(x, y) return x // y end, rows)
    agrees("f8(f8, f8)", function(x, y) return x % y end, rows)
    agrees("f8(f8, f8)", function(x, y) return x ^ y end, rows)
    agrees("f8(f8, f8)", function(x, y) return x / y end, rows)
    agrees("f4(f4, f4)", function(x, y) return x % y end, grid({ -7, -3.5, 2, 7.25 },
      { -3, -0.5, 2, 3 }))
  end)

  it_cxx("gives Lua's integer //, %, wrapping + * and unary minus, and int op float", function()
    local rows = grid(INTS, IDIV)
    agrees("i8(i8, i8)", function(x, y) return x // y end, rows)
    agrees("i8(i8, i8)", function(x, y) return x % y end, rows)
    agrees("i8(i8, i8)", function(x, y) return math.fmod(x, y) end, rows)
    agrees("i8(i8, i8)", function(x, y) return x + y end, rows)
    agrees("i8(i8, i8)", function(x, y) return x * y - -x end, rows)
    agrees("f8(i8, f8)", function(x, y) return x // y + x % y end, grid(INTS, { -2.5, 0.5, 3 }))
    agrees("f8(i8, i8)", function(x, y) return x / y + x ^ 2 end, rows)
  end)

  it_cxx("runs numeric for loops as Lua does: any step, float loops, a float limit", function()
    agrees("i8(i8, i8, i8)", function(a, b, c)
      local s = 0
      for i = a, b, c do s = s + i end
      return s
    end, { { 1, 10, 1 }, { 1, 10, 3 }, { 10, 1, -2 }, { 5, 1, 1 }, { 1, 5, -1 },
           { math.maxinteger - 5, math.maxinteger, 2 }, { math.mininteger + 3, math.mininteger, -1 },
           { -3, 3, math.maxinteger } })
    agrees("f8(f8, f8, f8)", function(a, b, c)
      local s = 0
      for t = a, b, c do s = s + t end
      return s
    end, { { 0, 1, 0.25 }, { 1, 0, -0.5 }, { 0.1, 0.35, 0.1 }, { 2, 1, 1 } })
    agrees("i8(i8, f8)", function(a, b)
      local n = 0
      for i = a, b do n = n * 3 + i end
      return n
    end, { { 1, 3.7 }, { -2, -0.5 }, { 1, 0 / 0 }, { 3, 2.9 }, { -5, -math.huge } })
  end)

  it_cxx("saturates math.floor and math.ceil beyond int64's range (Lua gives the float)",
    function()
    for _, name in ipairs { "floor", "ceil" } do
      local v = cuarr.vectorize({ "i8(f8)" }, "function(x) return math." .. name .. "(x) end")
      local s = v.signatures[1]
      local got = host_cxx.run(v.sources[1], s.cname, s.ins, s.out,
        { { 1e300 }, { -1e300 }, { 2 ^ 63 }, { -2 ^ 63 }, { 0 / 0 }, { -2.5 }, { math.huge } })
      assert.are.same({ math.maxinteger, math.mininteger, math.maxinteger, math.mininteger, 0,
                        name == "floor" and -3 or -2, math.maxinteger }, got)
    end
  end)

  it_cxx("keeps math.floor's integers, and/or, repeat's scope, while, multiple results",
    function()
    local split = jit.device(function(p, q) return p + q, p - q end)
    local select_second = jit.device(function(p, q)
      local _, d = split(p, q)
      return d
    end)
    agrees("f8(f8, f8)", function(x, y)
      local a, b = split(x, y)
      local k = 0
      repeat local z = k + 1; k = z until z >= 3
      while a > 100 do a = a / 2 end
      a, b = b, a
      local m = math.max(x, y, 1) - math.min(x, -1)
      return (x > y and math.floor(x) or math.ceil(y)) + a * 1000 + b + k + m
    end, grid({ -2.5, 0, 1.5, 300 }, { -1.25, 4, 250 }))
    agrees("i8(f8, f8)", function(x, y)
      if not (x < y) then return math.floor(x / y) elseif x == y then return 0 end
      return math.ceil(y - x) * 2
    end, grid({ -2.5, 0, 1.5, 7 }, { -1.25, 4, 7 }))
    -- An elseif whose condition calls a device function, and a chain of them with an else.
    agrees("f8(f8, f8)", function(x, y)
      local r
      if x > 5 then r = 1
      elseif split(x, y) > 2 then r = 2
      elseif select_second(x, y) < 0 then r = 3
      else r = 4 end
      return r + x
    end, grid({ -2.5, 0, 1.5, 7 }, { -1.25, 4, 7 }))
  end)
end)

describe("cuarr.vectorize on the device", function()
  H.gpu_it("gives Lua's // % ^ / on a grid of float and integer inputs", function()
    local xs = { -7, -3.5, -1, -0.0, 0.5, 2, 3, 7.25, 1e300, -1e300, 0 / 0 }
    local ys = { -3, -2, -0.5, 0.75, 2, 3, 1e-300, 1 / 0 }
    local a, b = {}, {}
    for _, x in ipairs(xs) do for _, y in ipairs(ys) do a[#a + 1] = x; b[#b + 1] = y end end
    local ops = {
      cuarr.vectorize({ "f8(f8, f8)" }, function(x, y) return x // y end),
      cuarr.vectorize({ "f8(f8, f8)" }, function(x, y) return x % y end),
      cuarr.vectorize({ "f8(f8, f8)" }, function(x, y) return x ^ y end),
      cuarr.vectorize({ "f8(f8, f8)" }, function(x, y) return x / y end),
    }
    local lua = { function(x, y) return x // y end, function(x, y) return x % y end,
                  function(x, y) return x ^ y end, function(x, y) return x / y end }
    local da, db = cuarr.array(a, "float64"), cuarr.array(b, "float64")
    for k, op in ipairs(ops) do
      local r = op(da, db):get():totable()
      for i = 1, #a do
        local want = lua[k](a[i], b[i])
        -- CUDA's pow is within 2 ulp; //, % and / are exact.
        local close = k == 3 and math.abs(r[i] - want) <= 1e-15 * math.abs(want)
        assert(r[i] == want or close or (r[i] ~= r[i] and want ~= want),
          string.format("op %d on %g, %g: %g, Lua %g", k, a[i], b[i], r[i], want))
      end
    end
    local ia, ib = {}, {}
    for _, x in ipairs { -7, -1, 0, 5, math.maxinteger, math.mininteger } do
      for _, y in ipairs { -3, -1, 2, 7 } do ia[#ia + 1] = x; ib[#ib + 1] = y end
    end
    local idiv = cuarr.vectorize({ "int64(int64, int64)" }, function(x, y) return x // y end)
    local imod = cuarr.vectorize({ "int64(int64, int64)" }, function(x, y) return x % y end)
    local dx, dy = cuarr.array(ia, "int64"), cuarr.array(ib, "int64")
    local q, m = idiv(dx, dy):get():totable(), imod(dx, dy):get():totable()
    for i = 1, #ia do
      assert.are.equal(ia[i] // ib[i], q[i])
      assert.are.equal(ia[i] % ib[i], m[i])
    end
  end)

  H.gpu_it("runs the issue's functions on device and host arrays, with out", function()
    local env = setmetatable({ cuarr = cuarr }, { __index = _G })
    local add_ufunc, gaussian_pdf, polar_distance = assert(load(ISSUE
      .. "\nreturn add_ufunc, gaussian_pdf, polar_distance", nil, "t", env))()
    local h = add_ufunc(cuarr.cpu.arange(4, "float32"), cuarr.cpu.full(4, 10, "float32"))
    assert.are.equal("cpu", h.device)
    assert.are.same({ 10, 11, 12, 13 }, h:totable())
    local xd, yd, od = cuarr.arange(5, "float32"), cuarr.full(5, 1, "float32"),
      cuarr.empty(5, "float32")
    assert.are.equal(od, add_ufunc(xd, yd, { out = od }))
    assert.are.same({ 1, 2, 3, 4, 5 }, od:get():totable())
    local g = gaussian_pdf(cuarr.array({ 0, 1 }, "float32"), 0, 1):get():totable()
    assert.is_true(math.abs(g[1] - 0.3989423) < 1e-6)
    assert.is_true(math.abs(g[2] - 0.24197072) < 1e-6)
    local d = polar_distance(cuarr.array({ { 1 }, { 2 } }, "float32"), 0,
      cuarr.array({ 1, 3 }, "float32"), math.pi / 2):get():totable()
    assert.is_true(math.abs(d[1][1] - math.sqrt(2)) < 1e-5)
    assert.is_true(math.abs(d[2][2] - math.sqrt(13)) < 1e-5)
  end)

  H.gpu_it("computes float16 signatures in float32 and rounds the result once", function()
    local v = cuarr.vectorize({ "f2(f2, f2)" }, function(x, y) return x * y + 0.1 end)
    local xs = { 0.1, 1.5, -2.25, 1000, 65504, 3e-5, 7 }
    local a = cuarr.array(xs, "float16")
    local r = v(a, 0.3)
    assert.are.equal("float16", r.dtype)
    local h = function(x) return cuarr.cpu.array({ x }, "float16")[1] end
    local f = function(x) return (string.unpack("f", string.pack("f", x))) end
    local got = r:get():totable()
    for i = 1, #xs do
      assert.are.equal(h(f(f(h(xs[i]) * h(0.3)) + f(0.1))), got[i])
    end
    assert.are.equal(math.huge, v(cuarr.array({ 65504 }, "float16"), 2):get()[1])
  end)
end)

describe("reading a function's source", function()
  it("finds `local function`, functions in a call's arguments, and chunks loaded from text",
     function()
    local function twice(x) return 2 * x end
    assert.matches("cuarr_imul%(2LL", cuarr.vectorize({ "i8(i8)" }, twice).source)
    local v = cuarr.vectorize({ "f8(f8)" }, function(x)
      return x + 0.5 end)
    assert.matches("%(x_1 %+ 0%.5%)", v.source)
    local chunk = "local k = 3\nreturn function(x)\n  return x * k\nend"
    local f = load(chunk)()
    local lv = cuarr.vectorize({ "i8(i8)" }, f)
    assert.matches("cuarr_imul%(x_1, 3LL%)", lv.source)
    assert.matches("at %[string \"local k = 3%.%.%.\"%]:2", lv.source)
    if not H.has_gpu then
      assert.are.same({ 3, 6 }, lv(cuarr.cpu.array({ 1, 2 }, "int64")):totable())
    end
  end)
end)

describe("cuarr.jit.device", function()
  it("is callable only from translated functions", function()
    local f = jit.device(function(x) return x + 1 end)
    H.raises("TypeError", function() f(1) end)
    local v = cuarr.vectorize({ "float64(float64)" }, function(x) return f(x) * 2 end)
    assert.matches("__device__ double f_1%(double", v.source)
    -- Given as a source string, and called with an integer: typed from its arguments.
    local g = jit.device("function(a) return a // 2, -a end")
    local w = cuarr.vectorize({ "i8(i8)" }, function(x)
      local h, n = g(x)
      return h * 10 + n + g(3)
    end)
    assert.matches("__device__ g_1_results g_1%(long long", w.source)
    if not H.has_gpu then
      -- -3: (-2) * 10 + 3 + 1; 1: 0 * 10 - 1 + 1.
      assert.are.same({ -16, 0 }, w(cuarr.cpu.array({ -3, 1 }, "int64")):totable())
    end
  end)
end)

describe("without a Lua parser", function()
  it("the translating APIs raise NotAvailable naming lua-check; the rest works", function()
    local ok, out, err = child.run([[
package.path = package.path:gsub("[^;]*5%.1[^;]*;?", "")
local cuarr = require "cuarr"
local e1 = select(2, pcall(cuarr.vectorize, {"f8(f8)"}, function(x) return x end))
local e2 = select(2, pcall(cuarr.jit.device, function(x) return x end))
for _, e in ipairs {e1, e2} do
  assert(cuarr.is_error(e, "NotAvailable") and e.message:find("lua-check", 1, true), tostring(e))
end
assert(cuarr.cpu.arange(3):sum():item() == 3)
assert(cuarr.jit.float32(0.1) ~= 0.1)
print("ok")
]], { CUARR_LUACHECK_PATH = "/nonexistent/?.lua" })
    assert(ok and out == "ok\n", out .. err)
  end)
end)

describe("vectorize over the dtypes its signatures name", function()
  it("bool, signed and unsigned integers and floats, on host arrays", function()
    if H.has_gpu then return end
    local b = cuarr.vectorize({ "b1(b1, b1)" }, function(x, y) return x and not y end)
    assert.are.same({ false, true, false, false }, b(cuarr.cpu.array({ true, true, false, false },
      "bool"), cuarr.cpu.array({ true, false, true, false }, "bool")):totable())
    local v = cuarr.vectorize({ "b1(int8, int8)", "b1(uint16, uint16)", "b1(int32, int32)",
                                "b1(uint64, uint64)", "b1(float32, float32)", "b1(f8, f8)" },
      "function(x, y) return x > y end")
    for _, dt in ipairs { "int8", "uint16", "int32", "float32", "float64" } do
      local r = v(cuarr.cpu.array({ 1, 5, 3 }, dt), cuarr.cpu.array({ 2, 2, 3 }, dt))
      assert.are.equal("bool", r.dtype)
      assert.are.same({ false, true, false }, r:totable())
    end
    local add = cuarr.vectorize({ "int8(int8, int8)", "uint16(uint16, uint16)",
                                  "float32(float32, float32)", "f8(f8, f8)" },
      function(x, y) return x + y end)
    -- int8 wraps as the C kernel's conversion does; uint16 from uint8 (a safe cast).
    assert.are.same({ -126 }, add(cuarr.cpu.array({ 127 }, "int8"), 3):totable())
    local u = add(cuarr.cpu.array({ 255 }, "uint8"), cuarr.cpu.array({ 1 }, "uint8"))
    assert.are.equal("uint16", u.dtype)
    local f = add(cuarr.cpu.array({ 0.1 }, "float32"), 0.2)
    assert.are.equal("float32", f.dtype)
    assert.are.equal(string.unpack("f", string.pack("f", 0.1 + string.unpack("f",
      string.pack("f", 0.2)))), f:totable()[1])
    assert.are.equal("float64", add(cuarr.cpu.array({ 1 }, "int32"), 0.5).dtype)
  end)

  it("float16: inputs and scalars rounded to float16, the result rounded once", function()
    if H.has_gpu then return end
    local v = cuarr.vectorize({ "f2(f2, f2)", "float32(float32, float32)" },
      function(x, y) return x * y + 0.1 end)
    local xs = { 0.1, 1.5, -2.25, 1000, 65504, 3e-5 }
    local a = cuarr.cpu.array(xs, "float16")
    local r = v(a, 0.3)
    assert.are.equal("float16", r.dtype)
    local h = function(x) return cuarr.cpu.array({ x }, "float16")[1] end
    for i = 1, #xs do
      assert.are.equal(h(h(xs[i]) * h(0.3) + 0.1), r[i])
    end
    -- 65504 * 0.3 + 0.1 fits; 65504 * 2 overflows to infinity, as the conversion does.
    assert.are.equal(math.huge, v(cuarr.cpu.array({ 65504 }, "float16"), 2)[1])
    -- A float32 input does not cast to float16 safely: the float32 signature is chosen.
    assert.are.equal("float32", v(cuarr.cpu.array({ 1 }, "float32"), a[{ { 1, 1 } }]).dtype)
    -- An int8 array casts to float16 safely (NumPy's rule); int16 does not, so float32.
    assert.are.equal("float16", v(cuarr.cpu.array({ 3 }, "int8"), 0.5).dtype)
    assert.are.equal("float32", v(cuarr.cpu.array({ 3 }, "int16"), 0.5).dtype)
  end)
end)
