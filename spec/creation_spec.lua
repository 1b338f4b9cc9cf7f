-- Creation functions, on the host (cuarr.cpu) and on the device (cuarr): array/asarray from
-- nested tables and from arrays, empty/zeros/ones/full and their *_like, arange, linspace, eye,
-- identity and the default float dtype.  Values are checked against Lua-computed references;
-- device results come back through totable()/get() (a host copy).
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

-- ---------------------------------------------------------------- references and comparisons

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local type = type
local ITEMSIZE, is_float, f32, f16 = A.ITEMSIZE, A.is_float, A.f32, A.f16
local check_equal, build = A.check_equal, A.build

-- What an element of dtype dt reads back as, for a small value x that fits every dtype.
local function as_dtype(dt, x)
  if dt == "bool" then return x ~= 0 and x ~= false end
  if type(x) == "boolean" then x = x and 1 or 0 end
  if is_float(dt) then
    x = x + 0.0
    if dt == "float32" then return f32(x) end
    if dt == "float16" then return f16(x) end
    return x
  end
  return math.tointeger(x)
end

-- Floats to dtype dt by cuarr's rules, for the values used here (in range, non-negative for
-- unsigned dtypes): truncation toward zero for integers.
local function float_to(dt, x)
  if dt == "bool" then return x ~= 0 end
  if is_float(dt) then return as_dtype(dt, x) end
  return math.tointeger(x >= 0 and math.floor(x) or math.ceil(x))
end

local function check_shape(a, shape)
  check_equal(a.shape, shape, "shape")
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  assert.are.equal(#shape, a.ndim)
  assert.are.equal(n, a.size)
end

local function placed_right(b, a)
  if b.name == "cpu" then
    assert.are.equal("cpu", a.device)
  else
    assert.are_not.equal("cpu", a.device)
    assert.are.equal(cuarr.Device(), a.device)
  end
end

local function seq(n, f)
  local t = {}
  for k = 0, n - 1 do t[k + 1] = f(k) end
  return t
end

-- ---------------------------------------------------------------- specs

describe("creation", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    describe("array from Lua values", function()
      b.it("infers int64, float64 and bool from the elements", function()
        local a = xp.array({ 1, 2, 3 })
        placed_right(b, a)
        assert.are.equal("int64", a.dtype)
        check_shape(a, { 3 })
        check_equal(a:totable(), { 1, 2, 3 })
        local f = xp.array({ { 1.5, 2 }, { 3, 4 } })
        assert.are.equal("float64", f.dtype)
        check_shape(f, { 2, 2 })
        check_equal(f:totable(), { { 1.5, 2.0 }, { 3.0, 4.0 } })
        local t = xp.array({ true, false })
        assert.are.equal("bool", t.dtype)
        check_equal(t:totable(), { true, false })
        -- a table mixing booleans and integers takes the wider kind
        local m = xp.array({ true, 2 })
        assert.are.equal("int64", m.dtype)
        check_equal(m:totable(), { 1, 2 })
        -- extreme Lua integers survive the round trip
        local big = xp.array({ math.maxinteger, math.mininteger, -1 })
        check_equal(big:totable(), { math.maxinteger, math.mininteger, -1 })
      end)

      b.it("makes 0-d arrays from scalars and empty arrays from empty tables", function()
        local z = xp.array(7)
        check_shape(z, {})
        assert.are.equal("int64", z.dtype)
        check_equal(z:item(), 7)
        check_equal(z:totable(), 7)
        local zf = xp.array(2.5, "float32")
        check_shape(zf, {})
        check_equal(zf:item(), 2.5)
        local zb = xp.array(true)
        assert.are.equal("bool", zb.dtype)
        assert.is_true(zb:item())
        local e = xp.array({})
        check_shape(e, { 0 })
        assert.are.equal("float64", e.dtype)
        assert.are.equal(0, e.nbytes)
        check_equal(e:totable(), {})
        local e2 = xp.array({ {}, {} }, "int32")
        check_shape(e2, { 2, 0 })
        check_equal(e2:totable(), { {}, {} })
      end)

      b.it("builds 3-D arrays in C order", function()
        local src = build({ 2, 3, 4 }, function(i, j, k) return 100 * i + 10 * j + k end)
        local a = xp.array(src, "int32")
        check_shape(a, { 2, 3, 4 })
        check_equal(a.strides, { 48, 16, 4 })
        check_equal(a:totable(), src)
        check_equal(a[{ 2, 3, 4 }], 234)
        check_equal(a[{ 1, 2, 3 }], 123)
      end)

      for _, dt in ipairs(H.dtypes) do
        b.it("converts to " .. dt .. " (dtype argument and options table)", function()
          local src = { { 0, 1, 2 }, { 3, 100, 7 } }
          if dt == "bool" then src = { { true, false, true }, { false, false, true } } end
          local want = build({ 2, 3 }, function(i, j) return as_dtype(dt, src[i][j]) end)
          local a = xp.array(src, dt)
          local o = xp.array(src, { dtype = dt })
          for _, x in ipairs({ a, o }) do
            placed_right(b, x)
            assert.are.equal(dt, x.dtype)
            assert.are.equal(ITEMSIZE[dt], x.itemsize)
            check_shape(x, { 2, 3 })
            check_equal(x:totable(), want)
          end
          -- floats into integer dtypes truncate toward zero
          local fl = xp.array({ 2.75, 0.5, 9.99 }, dt)
          check_equal(fl:totable(), { float_to(dt, 2.75), float_to(dt, 0.5), float_to(dt, 9.99) })
        end)
      end

      b.it("refuses out-of-range integers and saturates floats in narrow dtypes", function()
        H.raises("ValueError", xp.array, { 300, -1, 127 }, "int8")
        H.raises("ValueError", xp.array, { 0, -1 }, "uint8")
        check_equal(xp.array({ -128, 127, 255 - 256 }, "int8"):totable(), { -128, 127, -1 })
        check_equal(xp.array({ 1e10, -1e10, 0 / 0 }, "int16"):totable(), { 32767, -32768, 0 })
        check_equal(xp.array({ -5.5, 1e30 }, "uint32"):totable(), { 0, 4294967295 })
        -- uint64 values from 2^63 on come back as their bits, negative Lua integers
        check_equal(xp.array({ -1, 5 }, "uint64"):totable(), { -1, 5 })
      end)

      b.it("refuses ragged tables, bad elements and bad dtypes", function()
        H.raises("ValueError", xp.array, { { 1, 2 }, { 3 } })
        H.raises("ValueError", xp.array, { { 1, 2 }, 3 })
        H.raises("ValueError", xp.array, { 1, { 2 } })
        H.raises("TypeError", xp.array, { 1, "two" })
        H.raises("TypeError", xp.array, { 1, 2 }, "float128")
        H.raises("TypeError", xp.array, { 1, 2 }, 42)
      end)
    end)

    describe("array and asarray from arrays", function()
      b.it("array copies; asarray gives the array itself when nothing changes", function()
        local a = xp.array({ { 1, 2 }, { 3, 4 } }, "int16")
        local c = xp.array(a)
        assert.are_not.equal(a, c)
        assert.are.equal("int16", c.dtype)
        check_equal(c:totable(), { { 1, 2 }, { 3, 4 } })
        c[{ 1, 1 }] = 99
        check_equal(a[{ 1, 1 }], 1) -- the copy is independent
        assert.are.equal(a, xp.asarray(a))
        assert.are.equal(a, xp.asarray(a, "int16"))
        local f = xp.asarray(a, "float32")
        assert.are_not.equal(a, f)
        assert.are.equal("float32", f.dtype)
        check_equal(f:totable(), { { 1.0, 2.0 }, { 3.0, 4.0 } })
        local g = xp.array(a, { dtype = "uint8" })
        assert.are.equal("uint8", g.dtype)
        check_equal(g:totable(), { { 1, 2 }, { 3, 4 } })
      end)

      b.it("array of a strided view is a C-contiguous copy of the view", function()
        local a = xp.array(build({ 3, 4 }, function(i, j) return 10 * i + j end), "int32")
        local v = a[{ { -1, 1, -1 }, { 1, -1, 2 } }]
        local c = xp.array(v)
        check_shape(c, { 3, 2 })
        assert.is_true(c.flags.c_contiguous)
        assert.is_nil(c.base)
        check_equal(c:totable(), { { 31, 33 }, { 21, 23 }, { 11, 13 } })
        local tv = a.T
        assert.are.equal(tv, xp.asarray(tv)) -- asarray keeps a view as it is
        assert.are_not.equal(tv, xp.array(tv))
      end)

      if b.name == "gpu" then
        b.it("moves arrays between host and device", function()
          local h = cuarr.cpu.array({ { 1.5, 2.5 }, { 3.5, 4.5 } }, "float32")
          local d = cuarr.asarray(h)
          placed_right(b, d)
          assert.are.equal("float32", d.dtype)
          check_equal(d:totable(), h:totable())
          local d2 = cuarr.array(h, "float64")
          assert.are.equal("float64", d2.dtype)
          check_equal(d2:totable(), { { 1.5, 2.5 }, { 3.5, 4.5 } })
          assert.are.equal(d, cuarr.asarray(d))
          local d3 = cuarr.array(d)
          assert.are_not.equal(d, d3)
          d3[{ 1, 1 }] = 0
          check_equal(d[{ 1, 1 }], 1.5)
          local back = cuarr.cpu.asarray(d)
          assert.are.equal("cpu", back.device)
          check_equal(back:totable(), h:totable())
          -- strided views cross both ways
          local hv = cuarr.cpu.arange(12):reshape(3, 4)[{ {}, { -1, 1, -2 } }]
          check_equal(cuarr.array(hv):totable(), { { 3, 1 }, { 7, 5 }, { 11, 9 } })
          local dv = cuarr.arange(12):reshape(3, 4)[{ { 3, 1, -2 }, { 2, 3 } }]
          check_equal(cuarr.cpu.array(dv):totable(), { { 9, 10 }, { 1, 2 } })
          check_equal(cuarr.cpu.asarray(dv, "int8"):totable(), { { 9, 10 }, { 1, 2 } })
        end)
      end
    end)

    describe("empty, zeros, ones, full", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("make " .. dt .. " arrays of any shape", function()
          local z = xp.zeros({ 2, 3 }, dt)
          placed_right(b, z)
          assert.are.equal(dt, z.dtype)
          check_shape(z, { 2, 3 })
          assert.are.equal(6 * ITEMSIZE[dt], z.nbytes)
          assert.is_true(z.flags.c_contiguous and z.flags.owndata)
          check_equal(z:totable(), build({ 2, 3 }, function() return as_dtype(dt, 0) end))
          local o = xp.ones(5, dt)
          check_shape(o, { 5 })
          check_equal(o:totable(), seq(5, function() return as_dtype(dt, 1) end))
          local e = xp.empty({ 4, 1, 2 }, { dtype = dt })
          assert.are.equal(dt, e.dtype)
          check_shape(e, { 4, 1, 2 })
          local fv = dt == "bool" and true or 3
          local f = xp.full({ 3, 2 }, fv, dt)
          assert.are.equal(dt, f.dtype)
          check_equal(f:totable(), build({ 3, 2 }, function() return as_dtype(dt, fv) end))
          -- 0-d and empty
          local z0 = xp.zeros({}, dt)
          check_shape(z0, {})
          check_equal(z0:item(), as_dtype(dt, 0))
          local o0 = xp.ones({}, dt)
          check_equal(o0:totable(), as_dtype(dt, 1))
          local ze = xp.zeros({ 0, 3 }, dt)
          check_shape(ze, { 0, 3 })
          assert.are.equal(0, ze.nbytes)
          check_equal(ze:totable(), {})
          check_equal(xp.ones({ 3, 0 }, dt):totable(), { {}, {}, {} })
        end)
      end

      b.it("default to float64, and full takes the value's dtype", function()
        assert.are.equal("float64", xp.zeros(2).dtype)
        assert.are.equal("float64", xp.ones({ 2, 2 }).dtype)
        assert.are.equal("float64", xp.empty(3).dtype)
        check_equal(xp.zeros(2):totable(), { 0.0, 0.0 })
        local fi = xp.full({ 2 }, 7)
        assert.are.equal("int64", fi.dtype)
        check_equal(fi:totable(), { 7, 7 })
        local ff = xp.full(2, 1.25)
        assert.are.equal("float64", ff.dtype)
        check_equal(ff:totable(), { 1.25, 1.25 })
        local fb = xp.full({ 1, 2 }, false)
        assert.are.equal("bool", fb.dtype)
        check_equal(fb:totable(), { { false, false } })
        check_equal(xp.full(3, -2.9, "int8"):totable(), { -2, -2, -2 })
        check_equal(xp.full(2, 1e9, "uint8"):totable(), { 255, 255 })
        check_equal(xp.full(2, 0 / 0, "int32"):totable(), { 0, 0 })
        check_equal(xp.full(2, 65535, "uint16"):totable(), { 65535, 65535 })
        H.raises("ValueError", xp.full, 2, -1, "uint16")
        check_equal(xp.full(1, 65519.0, "float16"):totable(), { 65504.0 })
        check_equal(xp.full(1, 0.1, "float32"):totable(), { f32(0.1) })
      end)

      b.it("accept integral floats as extents and refuse bad shapes", function()
        check_shape(xp.zeros({ 2.0, 3 }), { 2, 3 })
        check_shape(xp.zeros(4.0), { 4 })
        H.raises("ValueError", xp.zeros, -1)
        H.raises("ValueError", xp.zeros, { 2, -3 })
        H.raises("TypeError", xp.ones, { 2.5 })
        H.raises("TypeError", xp.zeros, { 2, "a" })
        H.raises("TypeError", xp.empty, "big")
        H.raises("TypeError", xp.zeros, 3, "complex64")
        H.raises("TypeError", xp.full, 3)
        H.raises("TypeError", xp.full, 3, "x")
      end)

      b.it("accept NumPy char codes for dtypes", function()
        local codes = { ["?"] = "bool", b = "int8", h = "int16", i = "int32", l = "int64",
                        B = "uint8", H = "uint16", I = "uint32", Q = "uint64", e = "float16",
                        f = "float32", d = "float64" }
        for code, name in pairs(codes) do
          assert.are.equal(name, xp.zeros(1, code).dtype)
        end
        assert.are.equal("float32", xp.zeros(1, cuarr.float32).dtype)
        assert.are.equal("float32", cuarr.float32)
        assert.are.equal("uint16", xp.uint16)
      end)
    end)

    describe("*_like", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("copy the shape and dtype of a " .. dt .. " array", function()
          local a = xp.zeros({ 3, 4 }, dt)
          local v = a[{ { 1, -1, 2 }, { -1, 1, -1 } }] -- a strided view of shape 2x4
          for _, src in ipairs({ a, v }) do
            local n = src.shape
            local e = xp.empty_like(src)
            placed_right(b, e)
            assert.are.equal(dt, e.dtype)
            check_shape(e, n)
            assert.is_true(e.flags.c_contiguous)
            assert.is_nil(e.base)
            local z = xp.zeros_like(src)
            check_equal(z:totable(), build(n, function() return as_dtype(dt, 0) end))
            local o = xp.ones_like(src)
            check_equal(o:totable(), build(n, function() return as_dtype(dt, 1) end))
            local f = xp.full_like(src, 2)
            assert.are.equal(dt, f.dtype)
            check_equal(f:totable(), build(n, function() return as_dtype(dt, 2) end))
          end
        end)
      end

      b.it("take a dtype override and 0-d or empty templates", function()
        local a = xp.zeros({ 2, 2 }, "int8")
        local f = xp.ones_like(a, "float16")
        assert.are.equal("float16", f.dtype)
        check_equal(f:totable(), { { 1.0, 1.0 }, { 1.0, 1.0 } })
        local g = xp.full_like(a, 2.5, { dtype = "float32" })
        assert.are.equal("float32", g.dtype)
        check_equal(g:totable(), { { 2.5, 2.5 }, { 2.5, 2.5 } })
        check_equal(xp.full_like(a, 2.5):totable(), { { 2, 2 }, { 2, 2 } })
        local z = xp.zeros_like(xp.array(3.5))
        check_shape(z, {})
        check_equal(z:item(), 0.0)
        local e = xp.empty_like(xp.zeros({ 0, 5 }, "uint32"))
        check_shape(e, { 0, 5 })
        assert.are.equal("uint32", e.dtype)
        H.raises("TypeError", xp.zeros_like, { 1, 2 })
      end)
    end)

    describe("arange", function()
      b.it("counts integers as NumPy does (start, stop exclusive, step)", function()
        local a = xp.arange(5)
        placed_right(b, a)
        assert.are.equal("int64", a.dtype)
        check_equal(a:totable(), { 0, 1, 2, 3, 4 })
        check_equal(xp.arange(2, 6):totable(), { 2, 3, 4, 5 })
        check_equal(xp.arange(1, 10, 3):totable(), { 1, 4, 7 })
        check_equal(xp.arange(1, 11, 3):totable(), { 1, 4, 7, 10 })
        check_equal(xp.arange(5, 0, -2):totable(), { 5, 3, 1 })
        check_equal(xp.arange(-3, 3, 2):totable(), { -3, -1, 1 })
        check_equal(xp.arange(5, 1):totable(), {})
        check_equal(xp.arange(0):totable(), {})
        check_equal(xp.arange(-4):totable(), {})
        check_shape(xp.arange(1, 5, -1), { 0 })
        H.raises("ValueError", xp.arange, 0, 5, 0)
        H.raises("TypeError", xp.arange)
        H.raises("TypeError", xp.arange, "5")
      end)

      b.it("counts floats with ceil((stop - start) / step) elements", function()
        local a = xp.arange(0, 1, 0.25)
        assert.are.equal("float64", a.dtype)
        check_equal(a:totable(), { 0.0, 0.25, 0.5, 0.75 })
        local b2 = xp.arange(1, 2, 0.3)
        check_equal(b2:totable(), { 1.0, 1.0 + 1 * 0.3, 1.0 + 2 * 0.3, 1.0 + 3 * 0.3 })
        check_equal(xp.arange(2.5):totable(), { 0.0, 1.0, 2.0 })
        check_equal(xp.arange(1, 0, -0.25):totable(), { 1.0, 0.75, 0.5, 0.25 })
        check_shape(xp.arange(0, 1, 0.1), { 10 })
        check_equal(xp.arange(0.5, 0.5):totable(), {})
        H.raises("ValueError", xp.arange, 0.0, 1.0, 0.0)
        H.raises("ValueError", xp.arange, 0, math.huge, 1.0)
      end)

      for _, dt in ipairs(H.dtypes) do
        b.it("makes " .. dt .. " values", function()
          if dt == "bool" then
            check_equal(xp.arange(2, dt):totable(), { false, true })
            return
          end
          local n = dt:find("int8") and 100 or 300
          local a = xp.arange(n, dt)
          assert.are.equal(dt, a.dtype)
          check_equal(a:totable(), seq(n, function(k) return as_dtype(dt, k) end))
          local s = xp.arange(3, 40, 7, { dtype = dt })
          check_equal(s:totable(), seq(6, function(k) return as_dtype(dt, 3 + 7 * k) end))
          if is_float(dt) then
            local f = xp.arange(-1, 1, 0.125, dt)
            check_equal(f:totable(), seq(16, function(k) return as_dtype(dt, -1 + k * 0.125) end))
            local g = xp.arange(0, 1, 0.1, dt)
            check_equal(g:totable(), seq(10, function(k) return as_dtype(dt, 0.0 + k * 0.1) end))
          end
        end)
      end

      b.it("wraps integer values in narrow dtypes as integer casts do", function()
        check_equal(xp.arange(126, 131, "int8"):totable(), { 126, 127, -128, -127, -126 })
        check_equal(xp.arange(254, 258, "uint8"):totable(), { 254, 255, 0, 1 })
      end)
    end)

    describe("linspace", function()
      b.it("spaces num values from start to stop inclusive", function()
        local a = xp.linspace(0, 1, 5)
        placed_right(b, a)
        assert.are.equal("float64", a.dtype)
        check_equal(a:totable(), { 0.0, 0.25, 0.5, 0.75, 1.0 })
        local d = xp.linspace(2, -1, 4)
        check_equal(d:totable(), { 2.0, 1.0, 0.0, -1.0 })
        local def = xp.linspace(0, 49)
        check_shape(def, { 50 })
        check_equal(def:totable(), seq(50, function(k) return k + 0.0 end))
        -- the last value is stop exactly, whatever the rounding of the step
        local t = xp.linspace(0, 0.3, 7):totable()
        assert.are.equal(0.3, t[7])
        for k = 0, 5 do assert.are.equal(0.0 + k * (0.3 / 6), t[k + 1]) end
        check_equal(xp.linspace(3, 7, 1):totable(), { 3.0 })
        check_equal(xp.linspace(3, 7, 0):totable(), {})
        H.raises("ValueError", xp.linspace, 0, 1, -1)
        H.raises("TypeError", xp.linspace, 0)
      end)

      b.it("leaves stop out with endpoint = false", function()
        local a = xp.linspace(0, 1, 5, { endpoint = false })
        check_equal(a:totable(), { 0.0, 0.2, 0.4, 0.6000000000000001, 0.8 })
        check_equal(xp.linspace(1, 2, 1, { endpoint = false }):totable(), { 1.0 })
        local f = xp.linspace(0, 8, 4, { endpoint = false, dtype = "float32" })
        assert.are.equal("float32", f.dtype)
        check_equal(f:totable(), { 0.0, 2.0, 4.0, 6.0 })
      end)

      for _, dt in ipairs(H.numeric_dtypes) do
        b.it("converts to " .. dt, function()
          local a = xp.linspace(0, 10, 5, dt)
          assert.are.equal(dt, a.dtype)
          check_equal(a:totable(), seq(5, function(k) return float_to(dt, 0.0 + k * 2.5) end))
          local f = xp.linspace(0, 1, 3, dt)
          check_equal(f:totable(), { float_to(dt, 0.0), float_to(dt, 0.5), float_to(dt, 1.0) })
        end)
      end
    end)

    describe("eye and identity", function()
      local function eye_ref(dt, n, m, k)
        return build({ n, m }, function(i, j) return as_dtype(dt, j - i == k and 1 or 0) end)
      end

      b.it("puts ones on the k-th diagonal of an n x m matrix", function()
        local cases = { { 3 }, { 2, 4 }, { 4, 2 }, { 3, 3, 1 }, { 3, 3, -2 }, { 3, 5, 2 },
                        { 5, 3, -1 }, { 3, 3, 3 }, { 3, 3, -7 }, { 1 }, { 0 }, { 0, 3 } }
        for _, c in ipairs(cases) do
          local n, m, k = c[1], c[2] or c[1], c[3] or 0
          local e = xp.eye(table.unpack(c))
          placed_right(b, e)
          assert.are.equal("float64", e.dtype)
          check_shape(e, { n, m })
          check_equal(e:totable(), eye_ref("float64", n, m, k), ("eye(%d, %d, %d)"):format(n, m, k))
        end
        check_equal(xp.eye(3, nil, 1):totable(), eye_ref("float64", 3, 3, 1))
        H.raises("ValueError", xp.eye, -1)
        H.raises("ValueError", xp.eye, 2, -2)
      end)

      for _, dt in ipairs(H.dtypes) do
        b.it("makes " .. dt .. " eyes and identities", function()
          local e = xp.eye(3, 4, 1, dt)
          assert.are.equal(dt, e.dtype)
          check_equal(e:totable(), eye_ref(dt, 3, 4, 1))
          local i = xp.identity(3, dt)
          assert.are.equal(dt, i.dtype)
          check_equal(i:totable(), eye_ref(dt, 3, 3, 0))
          check_equal(xp.eye(2, { dtype = dt }):totable(), eye_ref(dt, 2, 2, 0))
        end)
      end

      b.it("identity defaults to float64", function()
        local i = xp.identity(2)
        assert.are.equal("float64", i.dtype)
        check_equal(i:totable(), { { 1.0, 0.0 }, { 0.0, 1.0 } })
        check_shape(xp.identity(0), { 0, 0 })
        H.raises("ValueError", xp.identity, -3)
      end)
    end)

    describe("set_default_dtype", function()
      b.it("changes the dtype of float creations and Lua floats, not of integers", function()
        assert.are.equal("float64", cuarr.get_default_dtype())
        finally(function() cuarr.set_default_dtype("float64") end)
        cuarr.set_default_dtype("float32")
        assert.are.equal("float32", cuarr.get_default_dtype())
        assert.are.equal("float32", xp.zeros(2).dtype)
        assert.are.equal("float32", xp.ones(2).dtype)
        assert.are.equal("float32", xp.empty(2).dtype)
        assert.are.equal("float32", xp.full(2, 0.5).dtype)
        assert.are.equal("float32", xp.array({ 1.5, 2 }).dtype)
        assert.are.equal("float32", xp.arange(0, 1, 0.5).dtype)
        assert.are.equal("float32", xp.linspace(0, 1, 3).dtype)
        assert.are.equal("float32", xp.eye(2).dtype)
        assert.are.equal("float32", xp.identity(2).dtype)
        check_equal(xp.array({ 0.1 }):totable(), { f32(0.1) })
        -- integers and booleans keep their dtypes; an explicit dtype wins
        assert.are.equal("int64", xp.array({ 1, 2 }).dtype)
        assert.are.equal("int64", xp.arange(3).dtype)
        assert.are.equal("int64", xp.full(2, 3).dtype)
        assert.are.equal("bool", xp.array({ true }).dtype)
        assert.are.equal("float64", xp.zeros(2, "float64").dtype)
        cuarr.set_default_dtype("float16")
        assert.are.equal("float16", xp.linspace(0, 1, 3).dtype)
        check_equal(xp.array({ 0.1 }):totable(), { f16(0.1) })
        cuarr.set_default_dtype(cuarr.float64)
        assert.are.equal("float64", xp.zeros(1).dtype)
        check_equal(xp.array({ 0.1 }):totable(), { 0.1 })
      end)

      b.it("accepts only float dtypes", function()
        finally(function() cuarr.set_default_dtype("float64") end)
        H.raises("ValueError", cuarr.set_default_dtype, "int32")
        H.raises("ValueError", cuarr.set_default_dtype, "bool")
        H.raises("TypeError", cuarr.set_default_dtype, "float80")
        assert.are.equal("float64", cuarr.get_default_dtype()) -- unchanged by the failures
        assert.are.equal("float64", xp.ones(1).dtype)
      end)
    end)
  end

  describe("on the device, sizes that are not multiples of the block", function()
    H.gpu_it("arange, full, ones, zeros and linspace of 1000003 elements", function()
      local n = 1000003
      local a = cuarr.arange(n):totable()
      assert.are.equal(n, #a)
      for k = 1, n do
        if a[k] ~= k - 1 then error(("arange: element %d is %s"):format(k, tostring(a[k]))) end
      end
      local f = cuarr.full(n, 7, "int16"):totable()
      assert.are.equal(n, #f)
      for k = 1, n do
        if f[k] ~= 7 then error(("full: element %d is %s"):format(k, tostring(f[k]))) end
      end
      local o = cuarr.ones(n, "float16"):totable()
      for k = 1, n do
        if o[k] ~= 1.0 then error(("ones: element %d is %s"):format(k, tostring(o[k]))) end
      end
      local z = cuarr.zeros(n, "uint8"):totable()
      for k = 1, n do
        if z[k] ~= 0 then error(("zeros: element %d is %s"):format(k, tostring(z[k]))) end
      end
      local l = cuarr.linspace(0, 1, n, "float32"):totable()
      local h = cuarr.cpu.linspace(0, 1, n, "float32"):totable()
      local step = 1.0 / (n - 1)
      for k = 1, n do
        local want = k == n and 1.0 or f32(0.0 + (k - 1) * step)
        if l[k] ~= want or h[k] ~= want then
          error(("linspace: element %d is %s on the device, %s on the host, want %s"):format(
            k, tostring(l[k]), tostring(h[k]), tostring(want)))
        end
      end
    end)
  end)
end)
