-- The built-in ufuncs from Lua, on the host (cuarr.cpu) and on the device (cuarr): every ufunc
-- on every dtype it has a loop for, against references computed in Lua (spec/support/
-- ufunc_ref.lua): exact for integers, bools, comparisons and the correctly rounded float
-- operations; within the documented ulps of the exact value for the transcendental functions.
-- Device results are also compared with the host's.  Then the special values, the aliases and
-- call styles, integer inputs of float-only ufuncs, the logical ufuncs on every dtype, outputs
-- (given, aliased, of the wrong shape or dtype), empty and 0-d arrays, errors, and the kernel
-- cache's failure modes (a corrupted file, an unwritable directory) seen from Lua.
--
-- Device kernels: each (ufunc, dtypes, layout class) compiles once, so the sweep runs every
-- loop once on same-dtype contiguous operands (about 490 kernels); the other tests reuse those
-- loops where they can.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.ufunc_ref"
local child = require "spec.support.child"
local sh_quote = child.sh_quote
local cuarr = H.cuarr

local type, mtype, ipairs, pairs, tostring = type, math.type, ipairs, pairs, tostring
local abs, huge = math.abs, math.huge
local fmt, concat = string.format, table.concat
local expected, exact, ulp_error, tolerance = R.expected, R.exact, R.ulp_error, R.tolerance
local round_to = R.round_keep_zero

local N = 67 -- elements per case: no multiple of any vector width, so every tail runs
local NAN, INF = 0 / 0, huge

-- ---------------------------------------------------------------- helpers

local same = A.same

local function show(v)
  if type(v) == "number" then
    if mtype(v) == "float" then return fmt("%.17g", v) end
    return tostring(v)
  end
  return tostring(v)
end

local values = A.values

local function array(xp, list, dt) return xp.array(list, dt) end

-- Inputs for ufunc `name` on loop dtype dt: a list of argument lists (Lua values of dt, or bool
-- for where's condition).
local function inputs(name, nin, dt)
  local rng = H.rng(R.seed_of(name .. "/" .. dt))
  if dt == "bool" then
    local t = {}
    for k = 1, nin do t[k] = R.bool_values(rng, N) end
    return t
  end
  if name == "where" then
    local t = { R.bool_values(rng, N) }
    local gen = R.is_int(dt) and R.int_values or R.float_values
    t[2], t[3] = gen(rng, dt, N, "any"), gen(rng, dt, N, "any")
    return t
  end
  if R.is_int(dt) then
    local kinds = { "any", "any", "any" }
    if name == "floor_divide" or name == "remainder" then kinds[2] = "divisor" end
    if name == "power" then kinds[1], kinds[2] = "small", "exponent" end
    if name == "left_shift" or name == "right_shift" then kinds[2] = "shift" end
    local t = {}
    for k = 1, nin do t[k] = R.int_values(rng, dt, N, kinds[k]) end
    if name == "power" then
      -- a negative exponent is NumPy's ValueError on the host (numerics_spec.lua has it, and
      -- the device's unchecked results): here its non-negative mirror, -(e + 1)
      for k, e in ipairs(t[2]) do
        if R.SIGNED[dt] and e < 0 then t[2][k] = -(e + 1) end
      end
    end
    return t
  end
  if not R.is_exact(name) then
    local a, b = R.math_values(rng, name, dt, N)
    return { a, b }
  end
  local kinds = { "any", "any", "any" }
  if name == "floor_divide" or name == "remainder" or name == "divide" then kinds[2] = "divisor" end
  if name == "copysign" then kinds[2] = "no_nan" end -- the sign of a NaN is not portable
  local t = {}
  for k = 1, nin do t[k] = R.float_values(rng, dt, N, kinds[k]) end
  return t
end

-- Run ufunc `name` on arrays made from the argument lists; returns the result.
local function call(xp, name, dt, args)
  local arrays = {}
  for k, list in ipairs(args) do
    arrays[k] = array(xp, list, (name == "where" and k == 1) and "bool" or dt)
  end
  return xp[name](table.unpack(arrays, 1, #args))
end

-- Check one result against the references; returns a list of failure lines.
local function check(name, dt, args, got, out_dtype, out_dt_want)
  local bad = {}
  if out_dtype ~= out_dt_want then
    bad[1] = fmt("%s(%s): result dtype %s, expected %s", name, dt, out_dtype, out_dt_want)
    return bad
  end
  local approx = R.is_float(dt) and not R.is_exact(name)
  local a, b, c = args[1], args[2], args[3]
  for i = 1, #a do
    local ok, want
    if approx then
      local h, l = exact(name, a[i], b and b[i])
      local r = round_to(dt)(h)
      if r ~= r or r == INF or r == -INF or h == 0 then
        want = r
        ok = same(got[i], r) or (h == 0 and got[i] == 0)
      else
        want = h
        local err = got[i] == got[i] and ulp_error(got[i], h, l, dt) or huge
        ok = err <= tolerance(name, dt)
        if not ok then want = fmt("%.17g (%.2f ulp off, %.1f allowed)", h, err, tolerance(name, dt)) end
      end
    else
      want = expected(name, dt, a[i], b and b[i], c and c[i])
      ok = same(got[i], want)
    end
    if not ok and #bad < 6 then
      local ins = { show(a[i]) }
      if b then ins[2] = show(b[i]) end
      if c then ins[3] = show(c[i]) end
      bad[#bad + 1] = fmt("%s(%s) on %s: got %s, expected %s", name, concat(ins, ", "), dt,
        show(got[i]), type(want) == "string" and want or show(want))
    end
  end
  return bad
end

-- Device and host results of the exactly rounded ufuncs are the same values.
local function check_same(name, dt, dev, host)
  for i = 1, #host do
    if not same(dev[i], host[i]) then
      return { fmt("%s on %s, element %d: device %s, host %s", name, dt, i, show(dev[i]),
        show(host[i])) }
    end
  end
  return {}
end

-- ---------------------------------------------------------------- every ufunc, every loop

describe("every ufunc on every dtype of its loops", function()
  for _, u in ipairs(R.UFUNCS) do
    local name, nin, set, out = u[1], u[2], u[3], u[4]
    for _, b in ipairs(H.backends) do
      b.it(fmt("%s (%s) matches the Lua reference", name, set), function()
        local failures = {}
        for _, dt in ipairs(R.SETS[set]) do
          local args = inputs(name, nin, dt)
          local r = call(b.xp, name, dt, args)
          local got = values(r)
          for _, line in ipairs(check(name, dt, args, got, r.dtype, out or dt)) do
            failures[#failures + 1] = line
          end
          assert.are.same(#args[1], #got)
          if b.name == "gpu" then
            local host = values(call(cuarr.cpu, name, dt, args))
            if R.is_exact(name) or not R.is_float(dt) then
              for _, line in ipairs(check_same(name, dt, got, host)) do
                failures[#failures + 1] = line
              end
            end
          end
        end
        assert(#failures == 0, "\n" .. concat(failures, "\n"))
      end)
    end
  end
end)

describe("special values of the transcendental ufuncs", function()
  local names = {}
  for name in pairs(R.MATH_SPECIALS) do names[#names + 1] = name end
  table.sort(names)
  for _, b in ipairs(H.backends) do
    b.it("NaN, infinities, signed zeros and poles give the exact IEEE results", function()
      local failures = {}
      for _, name in ipairs(names) do
        local cases = R.MATH_SPECIALS[name]
        local binary = #cases[1] == 3
        for _, dt in ipairs(R.FLOATS) do
          local x, y, want = {}, {}, {}
          for k, case in ipairs(cases) do
            x[k], want[k] = case[1], case[#case]
            if binary then y[k] = case[2] end
          end
          local r = binary and b.xp[name](array(b.xp, x, dt), array(b.xp, y, dt))
            or b.xp[name](array(b.xp, x, dt))
          local got = values(r)
          for k = 1, #want do
            if not same(got[k], want[k]) then
              failures[#failures + 1] = fmt("%s(%s%s) on %s: got %s, expected %s", name,
                show(x[k]), binary and ", " .. show(y[k]) or "", dt, show(got[k]), show(want[k]))
            end
          end
        end
      end
      assert(#failures == 0, "\n" .. concat(failures, "\n"))
    end)

    b.it("float16 results overflow to infinity where float32 ones do not", function()
      local x = array(b.xp, { 12.0, -12.0, 11.0 }, "float16")
      A.check_equal(values(b.xp.exp(x)), { INF, A.f16(math.exp(-12)), 59872.0 }, "exp")
      local got = values(b.xp.cosh(x))
      assert.are.equal(INF, got[1])
      assert.are.equal(INF, got[2])
      got = values(b.xp.exp(array(b.xp, { 12.0 }, "float32")))
      assert.is_true(got[1] < INF and abs(got[1] - 162754.79141900392) < 0.05)
    end)
  end
end)

-- ---------------------------------------------------------------- integer edge cases

describe("integer division", function()
  for _, b in ipairs(H.backends) do
    b.it("by zero gives 0 for floor_divide, remainder and reciprocal, on every integer dtype",
      function()
        for _, dt in ipairs(R.INTEGERS) do
          local lo, hi = R.range(dt)
          local a = { 7, 0, 1, hi, lo }
          local z = { 0, 0, 0, 0, 0 }
          local x, y = array(b.xp, a, dt), array(b.xp, z, dt)
          A.check_equal(values(b.xp.floor_divide(x, y)), z, dt .. " // 0")
          A.check_equal(values(b.xp.remainder(x, y)), z, dt .. " % 0")
          A.check_equal(values(x // y), z, dt .. " // 0 (operator)")
          A.check_equal(values(x % y), z, dt .. " % 0 (operator)")
          A.check_equal(values(b.xp.reciprocal(y)), z, "reciprocal(0) on " .. dt)
        end
      end)

    b.it("floors toward -inf and takes the divisor's sign (Python's rules)", function()
      local x = array(b.xp, { 7, -7, 7, -7, -128, -128, 0 }, "int8")
      local y = array(b.xp, { 2, 2, -2, -2, -1, 3, -5 }, "int8")
      A.check_equal(values(b.xp.floor_divide(x, y)), { 3, -4, -4, 3, -128, -43, 0 }, "//")
      A.check_equal(values(b.xp.remainder(x, y)), { 1, 1, -1, -1, 0, 1, 0 }, "%")
    end)
  end
end)

-- ---------------------------------------------------------------- names and call styles

describe("names and call styles", function()
  for _, b in ipairs(H.backends) do
    b.it("every ufunc is a function of the namespace and a method of arrays", function()
      local a = b.xp.zeros(2, "float32")
      for _, u in ipairs(R.UFUNCS) do
        assert.are.equal("function", type(b.xp[u[1]]), u[1])
        assert.are.equal("function", type(a[u[1]]), "method " .. u[1])
      end
    end)

    b.it("NumPy's aliases and the comparison methods are the same ufuncs", function()
      local f = array(b.xp, { 1.5, -2.0, 3.0, 0.0 }, "float64")
      local g = array(b.xp, { 2.0, 2.0, -4.0, 1.0 }, "float64")
      local i = array(b.xp, { 5, -3, 12, 1 }, "int32")
      local j = array(b.xp, { 1, 2, 3, 0 }, "int32")
      local xp = b.xp
      A.check_equal(values(xp.true_divide(f, g)), values(xp.divide(f, g)), "true_divide")
      A.check_equal(values(xp.abs(f)), values(xp.absolute(f)), "abs")
      A.check_equal(values(xp.pow(i, j)), values(xp.power(i, j)), "pow")
      A.check_equal(values(xp.mod(i, j)), values(xp.remainder(i, j)), "mod")
      A.check_equal(values(xp.bitwise_not(i)), values(xp.invert(i)), "bitwise_not")
      A.check_equal(values(xp.bitwise_left_shift(i, j)), values(xp.left_shift(i, j)), "lshift")
      A.check_equal(values(xp.bitwise_right_shift(i, j)), values(xp.right_shift(i, j)), "rshift")
      A.check_equal(values(xp.bitwise_invert(i)), values(xp.invert(i)), "bitwise_invert")
      local h = array(xp, { 0.5, -0.25, 1.0, 0.0 }, "float64")
      for alias, name in pairs({ asin = "arcsin", acos = "arccos", atan = "arctan",
                                 asinh = "arcsinh", atanh = "arctanh" }) do
        A.check_equal(values(xp[alias](h)), values(xp[name](h)), alias)
        A.check_equal(values(h[alias](h)), values(xp[name](h)), "method " .. alias)
      end
      A.check_equal(values(xp.acosh(g)), values(xp.arccosh(g)), "acosh")
      A.check_equal(values(xp.atan2(f, g)), values(xp.arctan2(f, g)), "atan2")
      local pairs_ = { lt = "less", le = "less_equal", gt = "greater", ge = "greater_equal",
                       eq = "equal", ne = "not_equal" }
      for m, u in pairs(pairs_) do
        A.check_equal(values(f[m](f, g)), values(xp[u](f, g)), m)
        A.check_equal(values(i[m](i, j)), values(xp[u](i, j)), m .. " (int32)")
      end
      A.check_equal(values(f:add(g)), values(xp.add(f, g)), "a:add(b)")
      A.check_equal(values(f:exp()), values(xp.exp(f)), "a:exp()")
      A.check_equal(values(i:maximum(j)), values(xp.maximum(i, j)), "a:maximum(b)")
    end)
  end
end)

-- ---------------------------------------------------------------- types of the results

describe("type resolution", function()
  for _, b in ipairs(H.backends) do
    b.it("divide of bool and integer arrays computes in float64", function()
      local failures = {}
      for _, dt in ipairs({ "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                            "uint64" }) do
        local rng = H.rng(R.seed_of("true_divide/" .. dt))
        local x, y
        if dt == "bool" then
          x, y = R.bool_values(rng, N), R.bool_values(rng, N)
        else
          x, y = R.int_values(rng, dt, N, "any"), R.int_values(rng, dt, N, "divisor")
        end
        local r = b.xp.divide(array(b.xp, x, dt), array(b.xp, y, dt))
        if r.dtype ~= "float64" then
          failures[#failures + 1] = dt .. ": " .. r.dtype
        else
          local got = values(r)
          for k = 1, N do
            local function num(v)
              if type(v) == "boolean" then return v and 1.0 or 0.0 end
              if dt == "uint64" then return A.u64_value(v) + 0.0 end
              return v + 0.0
            end
            local want = num(x[k]) / num(y[k])
            if not same(got[k], want) then
              failures[#failures + 1] = fmt("%s / %s on %s: got %s, expected %s", show(x[k]),
                show(y[k]), dt, show(got[k]), show(want))
              break
            end
          end
        end
      end
      assert(#failures == 0, "\n" .. concat(failures, "\n"))
    end)

    b.it("float-only ufuncs take integer inputs in the smallest float that holds them", function()
      -- NumPy's loop search: int8/uint8/bool -> float16, int16/uint16 -> float32, wider -> float64
      local cases = { { "sin", "int8", "float16" }, { "sin", "uint8", "float16" },
                      { "sqrt", "bool", "float16" }, { "sin", "int16", "float32" },
                      { "sin", "int32", "float64" }, { "exp", "int64", "float64" } }
      for _, case in ipairs(cases) do
        local name, dt, want_dt = case[1], case[2], case[3]
        local x = dt == "bool" and { true, false, true } or { 1, 2, 3 }
        local r = b.xp[name](array(b.xp, x, dt))
        assert.are.equal(want_dt, r.dtype, name .. "(" .. dt .. ")")
        local got = values(r)
        for k = 1, 3 do
          local v = type(x[k]) == "boolean" and (x[k] and 1.0 or 0.0) or x[k] + 0.0
          local h, l = exact(name == "sqrt" and "hypot" or name, v, name == "sqrt" and 0.0 or nil)
          local err = ulp_error(got[k], h, l, want_dt)
          assert(err <= tolerance(name == "sqrt" and "hypot" or name, want_dt),
            fmt("%s(%s) on %s: %.17g, %.2f ulp off", name, show(x[k]), dt, got[k], err))
        end
      end
    end)

    b.it("the logical ufuncs take every dtype (NaN is true, -0 false)", function()
      local samples = {
        bool = { true, false, true, false }, int8 = { 0, -1, 5, 0 }, int16 = { 0, 300, -2, 1 },
        int32 = { 7, 0, 0, -1 }, int64 = { 0, 1, math.mininteger, 0 }, uint8 = { 255, 0, 1, 0 },
        uint16 = { 0, 65535, 0, 2 }, uint32 = { 1, 0, 4294967295, 0 }, uint64 = { 0, -1, 0, 1 },
        float16 = { NAN, 0.0, -0.0, 0.5 }, float32 = { 0.0, -0.0, INF, NAN },
        float64 = { -0.0, 1e-300, NAN, 0.0 },
      }
      local function truth(list)
        local t = {}
        for k, v in ipairs(list) do t[k] = R.truth(v) end
        return t
      end
      for _, dt in ipairs(H.dtypes) do
        local x = array(b.xp, samples[dt], dt)
        local r = b.xp.logical_not(x)
        assert.are.equal("bool", r.dtype)
        local want = {}
        for k, v in ipairs(truth(samples[dt])) do want[k] = not v end
        A.check_equal(values(r), want, "logical_not on " .. dt)
      end
      -- the binary ones on pairs of dtypes that together cover every dtype
      local pairs_ = { { "logical_and", "int8", "float32" }, { "logical_or", "uint64", "float16" },
                       { "logical_xor", "int32", "float64" }, { "logical_and", "uint8", "int64" },
                       { "logical_or", "int16", "uint16" }, { "logical_xor", "uint32", "bool" } }
      for _, p in ipairs(pairs_) do
        local name, da, db = p[1], p[2], p[3]
        local r = b.xp[name](array(b.xp, samples[da], da), array(b.xp, samples[db], db))
        assert.are.equal("bool", r.dtype)
        local ta, tb, want = truth(samples[da]), truth(samples[db]), {}
        for k = 1, 4 do want[k] = R.expected(name, "bool", ta[k], tb[k]) end
        A.check_equal(values(r), want, fmt("%s(%s, %s)", name, da, db))
      end
    end)

    b.it("a dtype without a loop is a TypeError naming the ufunc", function()
      local f = b.xp.zeros(3, "float32")
      local h = b.xp.zeros(3, "float16")
      local bo = b.xp.zeros(3, "bool")
      for _, name in ipairs({ "invert", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                              "right_shift" }) do
        for _, x in ipairs({ f, h }) do
          local nin = name == "invert" and 1 or 2
          local err = H.raises("TypeError", b.xp[name], x, nin == 2 and x or nil)
          assert.truthy(err.message:find(name, 1, true), err.message)
        end
      end
      for _, name in ipairs({ "subtract", "negative", "positive", "sign" }) do
        local nin = (name == "subtract") and 2 or 1
        H.raises("TypeError", b.xp[name], bo, nin == 2 and bo or nil)
      end
      local err = H.raises("TypeError", b.xp.subtract, bo, bo)
      assert.truthy(err.message:find("bitwise_xor", 1, true), err.message)
      err = H.raises("TypeError", b.xp.negative, bo)
      assert.truthy(err.message:find("logical_not", 1, true), err.message)
    end)

    b.it("operands that are neither arrays nor numbers are TypeErrors", function()
      local a = b.xp.zeros(3, "float32")
      local err = H.raises("TypeError", b.xp.add, a, "1")
      assert.truthy(err.message:find("add", 1, true), err.message)
      H.raises("TypeError", b.xp.add, a, {})
      H.raises("TypeError", b.xp.add, a) -- the second operand missing
      H.raises("TypeError", b.xp.exp, nil)
      H.raises("TypeError", b.xp.where, a, a)
    end)
  end
end)

-- ---------------------------------------------------------------- clip and where

describe("clip and where", function()
  for _, b in ipairs(H.backends) do
    b.it("clip bounds past an integer dtype's range are no bounds", function()
      local x = array(b.xp, { 1, 200, 0, 255 }, "uint8")
      local r = b.xp.clip(x, -5, 300)
      assert.are.equal("uint8", r.dtype)
      A.check_equal(values(r), { 1, 200, 0, 255 }, "clip(uint8, -5, 300)")
      A.check_equal(values(b.xp.clip(x, 2, 100)), { 2, 100, 2, 100 }, "clip(uint8, 2, 100)")
      H.raises("ValueError", b.xp.clip, x, 300, 400)
    end)

    b.it("clip of floats keeps NaN, and a NaN bound gives NaN", function()
      local x = array(b.xp, { NAN, 0.5, 5.0, -3.0 }, "float64")
      A.check_equal(values(b.xp.clip(x, 0, 1)), { NAN, 0.5, 1.0, 0.0 }, "clip(x, 0, 1)")
      local got = values(b.xp.clip(x, NAN, 1))
      for k = 1, 4 do assert.is_true(got[k] ~= got[k], "NaN bound") end
      A.check_equal(values(b.xp.clip(x, 3, 1)), { NAN, 1.0, 1.0, 1.0 }, "lo > hi gives hi")
    end)

    b.it("where takes any condition dtype and weak scalars", function()
      local cond = array(b.xp, { 0, 2, -1, 0 }, "int32")
      local x = array(b.xp, { 1.0, 2.0, 3.0, 4.0 }, "float32")
      local r = b.xp.where(cond, x, 2.5)
      assert.are.equal("float32", r.dtype)
      A.check_equal(values(r), { 2.5, 2.0, 3.0, 2.5 }, "where(int32, float32, 2.5)")
      r = b.xp.where(array(b.xp, { true, false }, "bool"), 1, 2.5)
      assert.are.equal("float64", r.dtype)
      A.check_equal(values(r), { 1.0, 2.5 }, "where(bool, 1, 2.5)")
      H.raises("ValueError", b.xp.where, cond, array(b.xp, { 1, 2, 3, 4 }, "int8"), 300)
    end)
  end
end)

-- ---------------------------------------------------------------- outputs

describe("outputs", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("a given output is filled and returned, positionally or as {out = ...}", function()
      local x = array(xp, { 1.0, 2.0, 3.0 }, "float32")
      local y = array(xp, { 10.0, 20.0, 30.0 }, "float32")
      local o = xp.zeros(3, "float32")
      local r = xp.add(x, y, o)
      assert.is_true(rawequal(r, o))
      A.check_equal(values(o), { 11.0, 22.0, 33.0 }, "positional out")
      local o2 = xp.zeros(3, "float32")
      r = xp.multiply(x, y, { out = o2 })
      assert.is_true(rawequal(r, o2))
      A.check_equal(values(o2), { 10.0, 40.0, 90.0 }, "{out = o}")
      r = x:subtract(y, o)
      assert.is_true(rawequal(r, o))
      A.check_equal(values(o), { -9.0, -18.0, -27.0 }, "method with out")
      A.check_equal(values(xp.exp(array(xp, { 0.0 }, "float32"), nil)), { 1.0 }, "out = nil")
    end)

    b.it("an output aliasing an input computes in place", function()
      local a = array(xp, { 1.0, 2.0, 3.0 }, "float32")
      local c = array(xp, { 10.0, 20.0, 30.0 }, "float32")
      local r = a:add(c, a) -- cuarr.add(a, c, a)
      assert.is_true(rawequal(r, a))
      A.check_equal(values(a), { 11.0, 22.0, 33.0 }, "a:add(c, a)")
      xp.multiply(a, c, c)
      A.check_equal(values(c), { 110.0, 440.0, 990.0 }, "out = second input")
      xp.multiply(a, a, a)
      A.check_equal(values(a), { 121.0, 484.0, 1089.0 }, "out = both inputs")
      local i = array(xp, { 1, 2, 3, 4, 5, 6 }, "int32")
      xp.negative(i, i)
      A.check_equal(values(i), { -1, -2, -3, -4, -5, -6 }, "negative in place")
    end)

    b.it("an output overlapping an input in another layout reads the input first", function()
      local x = array(xp, { 1.0, 2.0, 3.0, 4.0, 5.0 }, "float32")
      local rev = x[{ { -1, 1, -1 } }]
      xp.add(x, 10, rev) -- rev[k] = x[k] + 10, with rev[1] being x[5]
      A.check_equal(values(x), { 15.0, 14.0, 13.0, 12.0, 11.0 }, "x reversed into itself")
    end)

    b.it("contiguous views one element apart: the output does not see its own writes", function()
      -- All operands contiguous and of one shape (the short path on the device), yet the
      -- output is the input moved by one element, both ways, for 4- and 8-byte dtypes, and
      -- at lengths around a vector and a block.
      for _, dt in ipairs({ "float32", "int64" }) do
        for _, n in ipairs({ 2, 5, 257, 1030 }) do
          local base = {}
          for k = 1, n + 1 do base[k] = dt == "int64" and k or k + 0.0 end
          local x = array(xp, base, dt)
          local ones = xp.ones(n, dt)
          xp.add(x[{ { 1, n } }], ones, x[{ { 2, n + 1 } }]) -- x[k + 1] = x[k] + 1, old x
          local want = { base[1] }
          for k = 2, n + 1 do want[k] = base[k] end
          A.check_equal(values(x), want, dt .. " forward, n = " .. n)
          x = array(xp, base, dt)
          xp.subtract(x[{ { 2, n + 1 } }], ones, x[{ { 1, n } }]) -- x[k] = x[k + 1] - 1
          A.check_equal(values(x), base, dt .. " backward, n = " .. n)
          x = array(xp, base, dt)
          xp.multiply(x[{ { 2, n + 1 } }], x[{ { 1, n } }], x[{ { 1, n } }])
          want = {}
          for k = 1, n do want[k] = base[k] * base[k + 1] end
          want[n + 1] = base[n + 1]
          A.check_equal(values(x), want, dt .. " one input in place, the other shifted, n = " .. n)
        end
      end
    end)

    b.it("one call with outputs of several dtypes, then one it cannot cast to", function()
      local x = array(xp, { 1.5, 2.5, 3.5 }, "float32")
      for _, dt in ipairs({ "float32", "float64", "float16", "float32" }) do
        local o = xp.zeros(3, dt)
        local r = xp.add(x, x, o)
        assert.is_true(rawequal(r, o))
        A.check_equal(values(o), { 3.0, 5.0, 7.0 }, "into " .. dt)
        A.check_equal(xp.add(x, x).dtype, "float32", "allocated after " .. dt)
      end
      local i = xp.full(3, 9, "int32")
      H.raises("TypeError", xp.add, x, x, i)
      A.check_equal(values(i), { 9, 9, 9 }, "untouched")
      local gone = array(xp, { 1.0, 2.0, 3.0 }, "float32")
      gone:free()
      H.raises("ValueError", xp.add, x, gone)
      H.raises("ValueError", xp.add, x, x, gone)
    end)

    b.it("inputs broadcast to a larger output, whose dtype may differ by kind", function()
      local x = array(xp, { 1.0, 2.0, 3.0 }, "float32")
      local o = xp.zeros({ 2, 3 }, "float64")
      xp.add(x, x, o)
      A.check_equal(o:totable(), { { 2.0, 4.0, 6.0 }, { 2.0, 4.0, 6.0 } }, "float32 into float64")
      local i8 = xp.zeros(2, "int8")
      local h = array(xp, { 100, 1 }, "int64")
      xp.add(h, h, i8) -- int64 into int8: same kind, wraps
      A.check_equal(values(i8), { -56, 2 }, "int64 result into int8")
    end)

    b.it("an output of the wrong shape or dtype is an error, and stays as it was", function()
      local x = array(xp, { { 1.0, 2.0, 3.0 }, { 4.0, 5.0, 6.0 } }, "float32")
      local small = xp.full(3, 7.0, "float32")
      local err = H.raises("ValueError", xp.add, x, x, small)
      assert.truthy(err.message:find("non-broadcastable output operand with shape (3,)", 1, true),
        err.message)
      A.check_equal(values(small), { 7.0, 7.0, 7.0 }, "untouched")
      H.raises("ValueError", xp.add, x, x, xp.zeros({ 2, 4 }, "float32"))
      local i32 = xp.full({ 2, 3 }, 5, "int32")
      err = H.raises("TypeError", xp.add, x, 0.5, i32)
      assert.are.equal("Cannot cast ufunc 'add' output from float32 to int32 with casting rule "
        .. "'same_kind'", err.message)
      A.check_equal(values(i32), { 5, 5, 5, 5, 5, 5 }, "untouched")
      H.raises("TypeError", xp.add, x, x, xp.zeros({ 2, 3 }, "bool")) -- float32 into bool
      H.raises("TypeError", xp.add, x, x, "not an array")
    end)
  end
end)

-- ---------------------------------------------------------------- empty and 0-d arrays

describe("empty and 0-d arrays", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("empty operands give empty results of the broadcast shape", function()
      local e = xp.empty({ 0, 3 }, "float32")
      local r = xp.add(e, array(xp, { 1.0, 2.0, 3.0 }, "float32"))
      A.check_equal(r.shape, { 0, 3 }, "shape")
      assert.are.equal("float32", r.dtype)
      r = xp.sin(xp.empty(0, "float64"))
      A.check_equal(r.shape, { 0 }, "sin of empty")
      H.raises("ValueError", xp.add, e, xp.zeros(4, "float32"))
    end)

    b.it("0-d operands give 0-d results", function()
      local z = xp.array(2.5)
      local r = xp.multiply(z, 2)
      assert.are.equal(0, r.ndim)
      assert.are.equal("float64", r.dtype)
      assert.are.equal(5.0, r:item())
      r = xp.add(z, array(xp, { 1.0, 2.0 }, "float64"))
      A.check_equal(values(r), { 3.5, 4.5 }, "0-d + 1-d")
      r = xp.add(2, 3)
      assert.are.equal(0, r.ndim)
      assert.are.equal("int64", r.dtype)
      assert.are.equal(5, r:item())
      if b.name == "cpu" then
        assert.are.equal("cpu", r.device)
      else
        assert.are_not.equal("cpu", r.device)
      end
    end)
  end
end)

-- ---------------------------------------------------------------- device-only checks

describe("device and host operands", function()
  H.gpu_it("mixing them is a ValueError naming both places", function()
    local d = cuarr.array({ 1.0, 2.0 }, "float32")
    local h = cuarr.cpu.array({ 1.0, 2.0 }, "float32")
    local err = H.raises("ValueError", cuarr.add, d, h)
    assert.truthy(err.message:find("host", 1, true), err.message)
    H.raises("ValueError", function() return d + h end)
    H.raises("ValueError", cuarr.cpu.add, h, d)
    H.raises("ValueError", cuarr.add, d, d, cuarr.cpu.zeros(2, "float32"))
    H.raises("ValueError", cuarr.add, h, h, cuarr.zeros(2, "float32"))
  end)

  H.gpu_it("Lua numbers alone make a device array in cuarr and a host one in cuarr.cpu", function()
    local d = cuarr.multiply(3, 2.5)
    assert.are_not.equal("cpu", d.device)
    assert.are.equal(7.5, d:item())
    assert.are.equal("cpu", cuarr.cpu.multiply(3, 2.5).device)
  end)
end)

-- ---------------------------------------------------------------- the kernel cache

-- These run Lua in a child process, which compiles kernels: a cache directory is chosen once
-- per process (CUARR_CACHE_DIR), and only a fresh process reads the disk cache.

-- Run `code` in a child Lua with warnings on (-W), the same module paths, and `env`
-- (name -> value); returns ok, stdout and stderr.
local function run_child(code, env) return child.run(code, env, "-W") end

-- The child: compiles a few kernels (ufuncs of distinct dtypes) and prints their results.
local CHILD = [[
local cuarr = require "cuarr"
local x = cuarr.array({1.5, 2.5, 3.5}, "float32")
local y = cuarr.array({1, 2, 3}, "int16")
local a = (x * 2):totable()
local b = (y + y):totable()
local c = cuarr.sqrt(cuarr.array({4.0, 9.0}, "float64")):totable()
print(table.concat(a, " ") .. "|" .. table.concat(b, " ") .. "|" .. table.concat(c, " "))
cuarr.add(x, x) -- the next calls pass warnings queued by the compiles on to Lua
io.stdout:flush()
]]
local CHILD_OUT = "3.0 5.0 7.0|2 4 6|2.0 3.0\n"

local function mktemp_dir()
  local p = io.popen("mktemp -d")
  local d = p:read("l")
  p:close()
  return d
end

local function list_files(dir)
  local p = io.popen("ls -1 " .. sh_quote(dir))
  local t = {}
  for line in p:lines() do t[#t + 1] = dir .. "/" .. line end
  p:close()
  return t
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function write_file(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

describe("the kernel cache", function()
  H.gpu_it("corrupted cache files are detected, recompiled and replaced", function()
    local dir = mktemp_dir()
    local env = { CUARR_CACHE_DIR = dir }
    local ok, out, err = run_child(CHILD, env)
    assert(ok, "first run failed: " .. err)
    assert.are.equal(CHILD_OUT, out)
    local files = list_files(dir)
    assert(#files >= 3, "expected a cache file per kernel in " .. dir .. ", got " .. #files)
    -- damage them three ways: a flipped byte in the middle, cut short, and emptied
    local damaged = {}
    for k, path in ipairs(files) do
      local s = read_file(path)
      local bad
      if k % 3 == 1 then
        local m = #s // 2
        bad = s:sub(1, m - 1) .. string.char((s:byte(m) + 1) % 256) .. s:sub(m + 1)
      elseif k % 3 == 2 then
        bad = s:sub(1, #s // 2)
      else
        bad = ""
      end
      write_file(path, bad)
      damaged[path] = bad
    end
    ok, out, err = run_child(CHILD, env)
    assert(ok, "the run on damaged files failed: " .. err)
    assert.are.equal(CHILD_OUT, out)
    for path, bad in pairs(damaged) do
      assert.are_not.equal(bad, read_file(path), path .. " was left damaged")
    end
    ok, out = run_child(CHILD, env) -- and the replacements are good
    assert.is_true(ok)
    assert.are.equal(CHILD_OUT, out)
    os.execute("rm -rf " .. sh_quote(dir))
  end)

  H.gpu_it("a cache directory that cannot be made warns and caches in memory", function()
    local file = os.tmpname() -- a regular file: no directory can be made under it
    local ok, out, err = run_child(CHILD, { CUARR_CACHE_DIR = file .. "/cache" })
    os.remove(file)
    assert(ok, "the run failed: " .. err)
    assert.are.equal(CHILD_OUT, out)
    assert.truthy(err:find("not writable", 1, true), "no warning on stderr: " .. err)
    assert.truthy(err:find("in memory", 1, true), err)
  end)

  H.gpu_it("a read-only cache directory warns and caches in memory", function()
    -- as root, permission bits do not stop writes: /proc/self is a directory no one can write
    local p = io.popen("id -u")
    local root = p:read("l") == "0"
    p:close()
    local dir = root and "/proc/self" or mktemp_dir()
    if not root then os.execute("chmod 0555 " .. sh_quote(dir)) end
    local ok, out, err = run_child(CHILD, { CUARR_CACHE_DIR = dir })
    if not root then
      os.execute("chmod 0755 " .. sh_quote(dir))
      os.execute("rm -rf " .. sh_quote(dir))
    end
    assert(ok, "the run failed: " .. err)
    assert.are.equal(CHILD_OUT, out)
    assert.truthy(err:find("not writable", 1, true), "no warning on stderr: " .. err)
  end)
end)
