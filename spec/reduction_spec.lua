-- The built-in reductions (sum prod min max amin amax argmin argmax all any count_nonzero
-- nansum nanprod nanmin nanmax) and the ones composed in Lua (mean var std nanmean ptp), on
-- the host (cuarr.cpu) and on the device (cuarr), against references computed in Lua
-- (spec/support/reduce_ref.lua): every reduction on every dtype it takes, over every form of
-- axis (nil, each axis, negative ones, tables, all axes, none) with and without keepdims and in
-- each call style; NumPy's result dtypes and the dtype option (integer sums widen, float16
-- accumulates in float32); given outputs; random shapes and views (transposed, stepped,
-- reversed) with empty axes; sizes that are no multiple of a block; NaN; mean/var/std with
-- ddof; errors, which leave every array as it was.  Device results are compared with the
-- reference and with the host's.  Last, device-only sizes: a float32 sum of 2^28 values, and
-- reductions over more than 2^31 elements.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.reduce_ref"
local cuarr = H.cuarr

local ipairs, pairs, type, tostring, error = ipairs, pairs, type, tostring, error
local abs, huge = math.abs, math.huge
local fmt, concat = string.format, table.concat
local values, mismatch, same_value = A.values, R.mismatch, A.same_value

local NAN, INF = 0 / 0, huge

-- ---------------------------------------------------------------- helpers

local call = R.call

local function axis_str(axis)
  if axis == nil then return "nil" end
  if type(axis) == "table" then
    local t = {}
    for i, k in ipairs(axis) do t[i] = tostring(k) end
    return "{" .. concat(t, ",") .. "}"
  end
  return tostring(axis)
end

local function shape_str(shape) return "(" .. concat(shape, ",") .. ")" end

-- r against the reference; raises naming the case.
local function check(r, ref, what)
  local msg = mismatch(r.dtype, r.shape, values(r), ref)
  if msg then error(what .. ": " .. msg, 2) end
end

-- A device result against the host's for the same call: the same values where the reference
-- is exact, within twice the reference's tolerance elsewhere.
local function check_same(dev, host, ref, what)
  local d, h = values(dev), values(host)
  assert(#d == #h, what .. ": device and host sizes differ")
  assert(dev.dtype == host.dtype, what .. ": device dtype " .. dev.dtype .. ", host " .. host.dtype)
  for i = 1, #d do
    local t = ref.tol and ref.tol[i]
    local ok
    if t and type(h[i]) == "number" and h[i] == h[i] and abs(h[i]) ~= huge then
      ok = abs(d[i] - h[i]) <= 2 * t
    else
      ok = same_value(d[i], h[i])
    end
    if not ok then
      error(fmt("%s: element %d: device %s, host %s", what, i, R.show(d[i]), R.show(h[i])), 2)
    end
  end
end

-- Run op on ref's array (made on xp, or the given array a) and check it; on the device also
-- against the host.  Expected errors (the reference says so) are checked to be raised.
local function run_case(xp, op, ref, a, axis, opts, style, what)
  a = a or R.array(xp, ref)
  local want, kind = R.reduce(op, ref, axis, opts)
  local copts = {}
  for k, v in pairs(opts or {}) do
    if k ~= "exact" then copts[k] = v end
  end
  what = fmt("%s(%s %s, axis=%s%s%s%s)", op, ref.dtype, shape_str(ref.shape), axis_str(axis),
    copts.keepdims and ", keepdims" or "", copts.dtype and ", dtype=" .. copts.dtype or "",
    copts.ddof and ", ddof=" .. copts.ddof or "") .. (what and " " .. what or "")
  if not want then
    local ok, err = pcall(call, xp, op, a, axis, copts, style)
    if ok then error(what .. ": expected a " .. kind .. ", but the call succeeded", 2) end
    if not cuarr.is_error(err, kind) then
      error(what .. ": expected a " .. kind .. ", got " .. tostring(err), 2)
    end
    return err
  end
  local r = call(xp, op, a, axis, copts, style)
  check(r, want, what)
  if xp == cuarr then
    assert(r.device ~= "cpu", what .. ": the result is not on the device")
    local h = call(cuarr.cpu, op, a:get(), axis, copts, style)
    check_same(r, h, want, what)
  end
  return r
end

-- ---------------------------------------------------------------- the sweep

-- Each reduction, the kinds of values it is checked with (R.values), and its axis forms.
local AXES = { { nil }, { 1 }, { 2 }, { 3 }, { -1 }, { -3 }, { { 1, 3 } }, { { 3, 1 } },
               { { 2, -1 } }, { { 1, 2, 3 } }, { {} } }
local ONE_AXIS = { { nil }, { 1 }, { 2 }, { 3 }, { -1 }, { -2 } }

local SWEEP = {
  { "sum", { "exact", "random" } },
  { "prod", { "pow2" } },
  { "nansum", { "nan", "random" } },
  { "nanprod", { "pow2nan" } },
  { "min", { "full", "ties", "nan" } },
  { "max", { "full", "ties", "nan" } },
  { "amin", { "full" } },
  { "amax", { "full" } },
  { "nanmin", { "nan", "full" } },
  { "nanmax", { "nan", "full" } },
  { "argmin", { "full", "ties", "nan" }, axes = ONE_AXIS },
  { "argmax", { "full", "ties", "nan" }, axes = ONE_AXIS },
  { "all", { "dense", "sparse" } },
  { "any", { "dense", "sparse" } },
  { "count_nonzero", { "dense", "sparse" } },
  { "mean", { "exact", "random" } },
  { "nanmean", { "nan" } },
  { "var", { "random", "exact" } },
  { "std", { "random" } },
  { "ptp", { "full", "ties" }, dtypes = H.numeric_dtypes },
}

-- Values of a kind for dtype dt (pow2nan: pow2 with NaN among floats).
local function make_values(rng, dt, n, kind)
  if kind == "pow2nan" then
    local v = R.values(rng, dt, n, "pow2")
    if R.is_float(dt) then
      for i = 1, n do
        if rng.int(1, 5) == 1 then v[i] = NAN end
      end
    end
    return v
  end
  return R.values(rng, dt, n, kind)
end

local SHAPE = { 3, 4, 5 }

describe("every reduction on every dtype, over every axis form, with and without keepdims", function()
  for _, entry in ipairs(SWEEP) do
    local op, kinds = entry[1], entry[2]
    for _, b in ipairs(H.backends) do
      b.it(op .. " matches the Lua reference", function()
        local n = 0
        for _, dt in ipairs(entry.dtypes or H.dtypes) do
          for _, kind in ipairs(kinds) do
            local rng = H.rng(R.seed_of(op .. "/" .. dt .. "/" .. kind))
            local ref = R.new(SHAPE, make_values(rng, dt, R.size(SHAPE), kind), dt)
            local a = R.array(b.xp, ref)
            local exact = kind ~= "random" and kind ~= "full"
            for _, ax in ipairs(entry.axes or AXES) do
              for _, kd in ipairs({ false, true }) do
                n = n + 1
                run_case(b.xp, op, ref, a, ax[1], { keepdims = kd, exact = exact }, n % 3 + 1,
                  "[" .. kind .. "]")
              end
            end
            -- the input is left as it was
            A.check_list(values(a), ref.data, op .. " input")
          end
        end
      end)
    end
  end
end)

describe("axes and results", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("axes are 1-based, negative from the end; indices are 1-based", function()
      local a = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32")
      A.check_equal(a:sum(1):totable(), { 5, 7, 9 }, "sum(1)")
      A.check_equal(a:sum(2):totable(), { 6, 15 }, "sum(2)")
      A.check_equal(a:sum(-1):totable(), { 6, 15 }, "sum(-1)")
      A.check_equal(a:sum(-2):totable(), { 5, 7, 9 }, "sum(-2)")
      A.check_equal(xp.sum(a, { 1, 2 }):item(), 21, "sum({1, 2})")
      A.check_equal(a:argmax(2):totable(), { 3, 3 }, "argmax(2)")
      A.check_equal(a:argmax(1):totable(), { 2, 2, 2 }, "argmax(1)")
      A.check_equal(a:argmin():item(), 1, "argmin()")
      A.check_equal(a:argmax():item(), 6, "argmax() over the flattened array")
      A.check_equal(a:max{ axis = 2, keepdims = true }:totable(), { { 3 }, { 6 } }, "max keepdims")
      A.check_equal(a:min(2.0):totable(), { 1, 4 }, "an integral float axis")
    end)

    b.it("full reductions are 0-d arrays where the input is (any/all: booleans)", function()
      local a = xp.arange(10, "float32")
      for _, op in ipairs({ "sum", "prod", "max", "min", "argmax", "argmin", "count_nonzero", "nansum", "nanprod", "nanmax", "nanmin", "mean",
                            "var", "std", "nanmean", "ptp", "amax", "amin" }) do
        local r = a[op](a)
        assert.are.equal(0, r.ndim, op)
        assert.are.same({}, r.shape, op)
        if b.name == "cpu" then
          assert.are.equal("cpu", r.device, op)
        else
          assert.are_not.equal("cpu", r.device, op)
        end
        assert.are.equal(getmetatable(a), getmetatable(r), op)
      end
      assert.are.equal(45.0, a:sum():item())
      assert.are.equal("float32", a:sum().dtype)
      assert.are.equal(10, a:argmax():item())
      assert.are.equal(1, a:argmin():item())
      assert.are.equal(4.5, a:mean():item())
      assert.are.equal(true, a:any())
      assert.are.equal(false, a:all())
      assert.are.equal(9, a:count_nonzero():item())
      assert.are.equal(9.0, a:ptp():item())
    end)

    b.it("every reduction is a function of both namespaces and an array method", function()
      local a = xp.zeros(2)
      for _, op in ipairs({ "sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax",
                            "all", "any", "count_nonzero", "nansum", "nanprod", "nanmin",
                            "nanmax", "mean", "var", "std", "nanmean", "ptp", "cumsum",
                            "cumprod" }) do
        assert.are.equal("function", type(cuarr[op]), "cuarr." .. op)
        assert.are.equal("function", type(cuarr.cpu[op]), "cuarr.cpu." .. op)
        assert.are.equal("function", type(a[op]), "method " .. op)
      end
      assert.are.equal("function", type(cuarr.linalg.norm))
      assert.are.equal("function", type(cuarr.cpu.linalg.norm))
      -- amin/amax are min/max
      local x = xp.array({ { 3, -1 }, { 7, 2 } }, "int16")
      A.check_equal(x:amax(1):totable(), x:max(1):totable(), "amax")
      A.check_equal(xp.amin(x, 2):totable(), xp.min(x, 2):totable(), "amin")
    end)
  end
end)

-- ---------------------------------------------------------------- dtypes

describe("result dtypes and the dtype option", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("sums and products widen bool and integers to int64 (uint64), floats keep theirs", function()
      local want = { bool = "int64", int8 = "int64", int16 = "int64", int32 = "int64",
                     int64 = "int64", uint8 = "uint64", uint16 = "uint64", uint32 = "uint64",
                     uint64 = "uint64", float16 = "float16", float32 = "float32",
                     float64 = "float64" }
      for _, dt in ipairs(H.dtypes) do
        local a = xp.ones({ 2, 3 }, dt)
        for _, op in ipairs({ "sum", "prod", "nansum", "nanprod", "cumsum", "cumprod" }) do
          assert.are.equal(want[dt], xp[op](a).dtype, op .. " of " .. dt)
          assert.are.equal(want[dt], xp[op](a, 1).dtype, op .. "(axis 1) of " .. dt)
        end
        for _, op in ipairs({ "min", "max", "nanmin", "nanmax", "amin", "amax" }) do
          assert.are.equal(dt, xp[op](a, 2).dtype, op .. " of " .. dt)
        end
        for _, op in ipairs({ "argmin", "argmax", "count_nonzero" }) do
          assert.are.equal("int64", xp[op](a).dtype, op .. " of " .. dt)
        end
        for _, op in ipairs({ "all", "any" }) do
          assert.are.equal("bool", xp[op](a, 1).dtype, op .. " of " .. dt)
        end
        local mean_dt = R.is_float(dt) and dt or "float64"
        for _, op in ipairs({ "mean", "var", "std", "nanmean" }) do
          assert.are.equal(mean_dt, xp[op](a, 2).dtype, op .. " of " .. dt)
        end
      end
    end)

    b.it("integer sums do not wrap in the input's dtype; dtype= wraps where asked", function()
      local i8 = xp.full(1000, 127, "int8")
      local s = i8:sum()
      assert.are.equal("int64", s.dtype)
      assert.are.equal(127000, s:item())
      assert.are.equal(-128000, xp.full(1000, -128, "int8"):sum():item())
      assert.are.equal(76500, xp.full(300, 255, "uint8"):sum():item())
      assert.are.equal(300 * 65535, xp.full(300, 65535, "uint16"):sum():item())
      assert.are.equal(1024, xp.full(10, 2, "int8"):prod():item())
      assert.are.equal(1000, xp.ones(1000, "bool"):sum():item())
      local w = i8:sum(nil, { dtype = "int8" })
      assert.are.equal("int8", w.dtype)
      assert.are.equal(24, w:item()) -- 127000 mod 256
      assert.are.equal("int16", i8:sum{ dtype = "int16" }.dtype)
      assert.are.equal(127000 - 131072, i8:sum{ dtype = "int16" }:item())
      -- int64 and uint64 wrap at 64 bits, as NumPy's
      local m = xp.array({ math.maxinteger, 1 }, "int64"):sum()
      assert.are.equal(math.mininteger, m:item())
      local u = xp.array({ -1, 1 }, "uint64"):sum() -- 2^64 - 1 + 1
      assert.are.same({ 0 }, values(u))
      -- the char codes name dtypes too
      assert.are.equal("float64", xp.ones(3, "float32"):sum(nil, { dtype = "d" }).dtype)
    end)

    b.it("dtype='float64' sums float32 in float64", function()
      local a = xp.array({ 1.0, 2.0 ^ -30, -1.0, 2.0 ^ -30 }, "float32")
      local s = a:sum(nil, { dtype = "float64" })
      assert.are.equal("float64", s.dtype)
      assert.are.equal(2.0 ^ -29, s:item())
      local s2 = xp.sum(xp.full({ 3, 1000 }, 0.1, "float32"), 2, { dtype = "float64" })
      assert.are.equal("float64", s2.dtype)
      for _, v in ipairs(values(s2)) do
        assert(abs(v - 1000 * A.f32(0.1)) < 1e-9, tostring(v))
      end
      assert.are.equal("float32", xp.ones(4, "int32"):sum{ dtype = "float32" }.dtype)
      assert.are.equal(4.0, xp.ones(4, "int32"):sum{ dtype = "float32" }:item())
      assert.are.equal("float64", xp.ones(4, "float32"):prod{ dtype = "float64" }.dtype)
    end)

    b.it("float16 accumulates in float32", function()
      local ones = xp.ones(4096, "float16")
      local s = ones:sum()
      assert.are.equal("float16", s.dtype)
      assert.are.equal(4096.0, s:item()) -- float16 steps of 1 stop at 2048
      assert.are.equal(10000.0, xp.ones(10000, "float16"):sum():item())
      assert.are.equal(R.f16(1000 * R.f16(0.1)), xp.full(1000, 0.1, "float16"):sum():item())
      local rows = xp.ones({ 3, 4096 }, "float16"):sum(2)
      A.check_equal(rows:totable(), { 4096.0, 4096.0, 4096.0 }, "rows")
      local cols = xp.ones({ 4096, 3 }, "float16"):sum(1)
      A.check_equal(cols:totable(), { 4096.0, 4096.0, 4096.0 }, "columns")
      -- an overflowing float16 sum is inf; its mean, computed in float32, is not
      local big = xp.array({ 65504.0, 65504.0 }, "float16")
      assert.are.equal(INF, big:sum():item())
      assert.are.equal(65504.0, big:mean():item())
      assert.are.equal("float16", big:mean().dtype)
      local f32 = ones:sum(nil, { dtype = "float32" })
      assert.are.equal("float32", f32.dtype)
      assert.are.equal(4096.0, f32:item())
      -- cumsum of float16 ones: each running value rounded once from float32
      local c = values(xp.ones(4100, "float16"):cumsum())
      for i = 1, 4100 do
        if c[i] ~= R.f16(i) then error(fmt("cumsum[%d] = %s, want %s", i, c[i], R.f16(i))) end
      end
    end)

    b.it("dtype= is a TypeError for min/max/argmax/count_nonzero/ptp, and unknown dtypes", function()
      local a = xp.arange(6, "float32"):reshape(2, 3)
      for _, op in ipairs({ "min", "max", "amin", "amax", "nanmin", "nanmax", "argmin",
                            "argmax", "count_nonzero", "ptp" }) do
        H.raises("TypeError", xp[op], a, nil, { dtype = "float64" })
        H.raises("TypeError", xp[op], a, 1, { dtype = "float64" })
      end
      for _, op in ipairs({ "sum", "prod", "mean", "var", "std", "nanmean", "cumsum" }) do
        H.raises("TypeError", xp[op], a, nil, { dtype = "float" })
        H.raises("TypeError", xp[op], a, nil, { dtype = 3 })
      end
      A.check_equal(a:totable(), { { 0.0, 1.0, 2.0 }, { 3.0, 4.0, 5.0 } }, "unchanged")
    end)
  end
end)

-- ---------------------------------------------------------------- out

describe("out=", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    local function m34() return xp.arange(12, "float32"):reshape(3, 4) end
    local col_sums = { 12.0, 15.0, 18.0, 21.0 }
    local row_sums = { 6.0, 22.0, 38.0 }

    b.it("fills the given output, with and without keepdims, and returns it", function()
      local a = m34()
      local o = xp.full(4, -1, "float32")
      local r = a:sum(1, { out = o })
      assert.is_true(rawequal(o, r))
      A.check_equal(o:totable(), col_sums, "sum(1)")
      local k = xp.full({ 1, 4 }, -1, "float32")
      assert.is_true(rawequal(k, xp.sum(a, 1, { keepdims = true, out = k })))
      A.check_equal(k:totable(), { col_sums }, "sum(1, keepdims)")
      local z = xp.zeros({}, "float64") -- a float32 result into float64: same kind
      a:sum{ out = z }
      assert.are.equal(66.0, z:item())
      local i32 = xp.zeros(3, "int32")
      xp.arange(12):reshape(3, 4):sum(2, { out = i32 }) -- int64 into int32
      A.check_equal(i32:totable(), { 6, 22, 38 }, "into int32")
      local f = xp.zeros(3, "float64")
      xp.arange(12, "int16"):reshape(3, 4):max(2, { out = f }) -- int16 into float64
      A.check_equal(f:totable(), { 3.0, 7.0, 11.0 }, "max into float64")
      local idx = xp.zeros(3, "int64")
      a:argmax(2, { out = idx })
      A.check_equal(idx:totable(), { 4, 4, 4 }, "argmax")
      local bo = xp.zeros(4, "bool")
      a:all(1, { out = bo })
      A.check_equal(bo:totable(), { false, true, true, true }, "all")
      local c = xp.zeros(3, "int64")
      a:count_nonzero(2, { out = c })
      A.check_equal(c:totable(), { 3, 4, 4 }, "count_nonzero")
      -- an output view with strides
      local big = xp.zeros({ 4, 2 }, "float32")
      a:sum(1, { out = big[{ {}, 2 }] })
      A.check_equal(big:totable(), { { 0.0, 12.0 }, { 0.0, 15.0 }, { 0.0, 18.0 }, { 0.0, 21.0 } },
        "strided out")
    end)

    b.it("the composed reductions fill out too", function()
      local a = m34()
      local cases = {
        { "mean", 2, { 1.5, 5.5, 9.5 } },
        { "nanmean", 2, { 1.5, 5.5, 9.5 } },
        { "var", 2, { 1.25, 1.25, 1.25 } },
        { "std", 2, { math.sqrt(1.25), math.sqrt(1.25), math.sqrt(1.25) } },
        { "ptp", 1, { 8.0, 8.0, 8.0, 8.0 } },
      }
      for _, c in ipairs(cases) do
        local op, axis, want = c[1], c[2], c[3]
        local o = xp.full(#want, -1, "float64")
        local r = xp[op](a, axis, { out = o })
        assert.is_true(rawequal(o, r), op)
        local got = o:totable()
        for i = 1, #want do
          assert(abs(got[i] - want[i]) < 1e-6, fmt("%s: %s vs %s", op, got[i], want[i]))
        end
        local k = xp.full({ #want, 1 }, -1, "float32")
        if axis == 1 then k = xp.full({ 1, #want }, -1, "float32") end
        a[op](a, axis, { keepdims = true, out = k })
        got = values(k)
        for i = 1, #want do
          assert(abs(got[i] - want[i]) < 1e-5, fmt("%s keepdims: %s vs %s", op, got[i], want[i]))
        end
      end
      local z = xp.zeros({}, "float32")
      a:mean{ out = z }
      assert.are.equal(5.5, z:item())
    end)

    b.it("an output that overlaps the input gets the result of the input as it was", function()
      local a = xp.arange(12):reshape(3, 4)
      a:sum(2, { out = a[{ {}, 1 }] })
      A.check_equal(a:totable(), { { 6, 1, 2, 3 }, { 22, 5, 6, 7 }, { 38, 9, 10, 11 } }, "sum")
      local f = xp.arange(12, "float64"):reshape(3, 4)
      f:mean(2, { out = f[{ {}, 4 }] })
      A.check_equal(f:totable(), { { 0.0, 1.0, 2.0, 1.5 }, { 4.0, 5.0, 6.0, 5.5 },
                                   { 8.0, 9.0, 10.0, 9.5 } }, "mean")
    end)

    b.it("a wrong shape is a ValueError, a wrong dtype a TypeError; out stays as it was", function()
      local a = m34()
      local function untouched(o, want, what) A.check_equal(values(o), want, what) end
      local o3 = xp.full(3, 7, "float32")
      for _, op in ipairs({ "sum", "prod", "max", "min", "nansum", "nanmax", "mean", "var",
                            "std", "nanmean", "ptp", "argmax", "all", "count_nonzero" }) do
        H.raises("ValueError", xp[op], a, 1, { out = o3 }) -- (4,) expected
        untouched(o3, { 7.0, 7.0, 7.0 }, op .. " (3,) for (4,)")
        local o14 = xp.full({ 1, 4 }, 7, "float32")
        H.raises("ValueError", xp[op], a, 1, { out = o14 }) -- keepdims shape without keepdims
        untouched(o14, { 7.0, 7.0, 7.0, 7.0 }, op .. " (1,4) without keepdims")
        local o4 = xp.full(4, 7, "float32")
        H.raises("ValueError", xp[op], a, 1, { keepdims = true, out = o4 })
        untouched(o4, { 7.0, 7.0, 7.0, 7.0 }, op .. " (4,) with keepdims")
        local o0 = xp.full({ 1 }, 7, "float32")
        H.raises("ValueError", xp[op], a, nil, { out = o0 }) -- 0-d expected
        untouched(o0, { 7.0 }, op .. " (1,) for ()")
      end
      -- float results into integer or bool outputs
      for _, op in ipairs({ "sum", "max", "mean", "var", "std", "nanmean", "ptp", "prod" }) do
        local i = xp.full(4, 7, "int32")
        H.raises("TypeError", xp[op], a, 1, { out = i })
        untouched(i, { 7, 7, 7, 7 }, op .. " into int32")
        local bo = xp.zeros(4, "bool")
        H.raises("TypeError", xp[op], a, 1, { out = bo })
        untouched(bo, { false, false, false, false }, op .. " into bool")
      end
      -- signed into unsigned is not the same kind
      local u = xp.full(3, 7, "uint32")
      H.raises("TypeError", xp.sum, xp.arange(12):reshape(3, 4), 2, { out = u })
      untouched(u, { 7, 7, 7 }, "int64 into uint32")
      H.raises("TypeError", xp.sum, a, 1, { out = "not an array" })
      H.raises("TypeError", xp.mean, a, 1, { out = {} })
      A.check_equal(values(a), values(m34()), "the input")
    end)

    if b.name == "gpu" then
      b.it("an output on the other side is a ValueError", function()
        local a = m34()
        local h = cuarr.cpu.full(4, 7, "float32")
        for _, op in ipairs({ "sum", "max", "mean", "std", "ptp" }) do
          H.raises("ValueError", cuarr[op], a, 1, { out = h })
          A.check_equal(h:totable(), { 7.0, 7.0, 7.0, 7.0 }, op)
          local d = cuarr.full(4, 7, "float32")
          H.raises("ValueError", cuarr[op], a:get(), 1, { out = d })
          A.check_equal(d:get():totable(), { 7.0, 7.0, 7.0, 7.0 }, op)
        end
      end)
    end
  end
end)

-- ---------------------------------------------------------------- random shapes and views

-- A random case: a reference, the array on xp (a view of a larger one or a transpose, at
-- random), an op, an axis, keepdims.
local RANDOM_OPS = { "sum", "prod", "min", "max", "argmin", "argmax", "all", "any",
                     "count_nonzero", "nansum", "nanmax", "nanmin", "mean", "var", "std",
                     "ptp" }
local RANDOM_KIND = { sum = "exact", prod = "pow2", min = "full", max = "nan", argmin = "ties",
                      argmax = "nan", all = "dense", any = "sparse", count_nonzero = "dense",
                      nansum = "nan", nanmax = "nan", nanmin = "full", mean = "exact",
                      var = "random", std = "random", ptp = "ties" }

local function random_case(rng, xp)
  local op = RANDOM_OPS[rng.int(1, #RANDOM_OPS)]
  local dts = op == "ptp" and H.numeric_dtypes or H.dtypes
  local dt = dts[rng.int(1, #dts)]
  local nd = rng.int(0, 4)
  local layout = rng.int(1, 4) -- 1 contiguous, 2 T, 3 sliced, 4 sliced and transposed
  if nd == 0 then layout = 1 end
  local base_shape, ranges = {}, {}
  for d = 1, nd do
    local e = rng.int(1, 8) == 1 and 0 or rng.int(1, 5)
    if layout >= 3 and e > 0 then
      local step = ({ 1, 2, -1, -2, 3 })[rng.int(1, 5)]
      local extra = rng.int(0, 2)
      local base = e * abs(step) + extra
      base_shape[d] = base
      if step > 0 then
        local start = rng.int(1, 1 + extra)
        ranges[d] = { start, -1, step }
      else
        local start = -rng.int(1, 1 + extra)
        ranges[d] = { start, 1, step }
      end
    else
      base_shape[d] = e
      ranges[d] = {}
    end
  end
  local kind = RANDOM_KIND[op]
  local base = R.new(base_shape, make_values(rng, dt, R.size(base_shape), kind), dt)
  local arr = R.array(xp, base)
  local ref = base
  if layout >= 3 then
    ref = R.slice(base, ranges)
    arr = arr[ranges]
  end
  if layout == 2 or layout == 4 then
    ref = R.T(ref)
    arr = arr.T
  end
  local axis
  local r = rng.int(1, 5)
  if nd == 0 or r == 1 then
    axis = nil
  elseif r <= 3 or op == "argmin" or op == "argmax" then
    axis = rng.int(1, nd)
    if rng.int(0, 1) == 1 then axis = axis - nd - 1 end
  elseif r == 4 and nd >= 2 then
    local i = rng.int(1, nd)
    local j = rng.int(1, nd - 1)
    if j >= i then j = j + 1 end
    axis = { i, j - (rng.int(0, 1) == 1 and nd + 1 or 0) }
  else
    axis = {}
    for d = 1, nd do axis[d] = d end
  end
  if op == "argmin" or op == "argmax" then
    if type(axis) == "table" then axis = nil end
  end
  local opts = { keepdims = rng.int(0, 1) == 1, exact = kind ~= "random" and kind ~= "full" }
  if (op == "var" or op == "std") and rng.int(0, 1) == 1 then opts.ddof = 1 end
  return op, ref, arr, axis, opts, fmt("[layout %d, base %s]", layout, shape_str(base_shape))
end

describe("random shapes, strides and views", function()
  for _, b in ipairs(H.backends) do
    b.it("reduce like the Lua reference, empty axes included (seeded)", function()
      local rng = H.rng(20240611)
      local counts = { ok = 0, errors = 0 }
      local failures = {}
      for case = 1, 250 do
        local op, ref, arr, axis, opts, what = random_case(rng, b.xp)
        local ok, r = pcall(run_case, b.xp, op, ref, arr, axis, opts, case % 3 + 1,
          fmt("case %d %s", case, what))
        if not ok then
          failures[#failures + 1] = tostring(r)
        elseif cuarr.is_error(r) then
          counts.errors = counts.errors + 1
        else
          counts.ok = counts.ok + 1
        end
      end
      assert(#failures == 0, #failures .. " failures:\n" .. concat(failures, "\n"))
      assert(counts.errors > 0 and counts.ok > 200, "the cases should include errors")
    end)
  end
end)

-- ---------------------------------------------------------------- sizes

describe("sizes that are no multiple of a block", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("1-D reductions of 1000, 4097 and 100003 elements", function()
      for _, n in ipairs({ 1000, 4097, 100003 }) do
        local rng = H.rng(n)
        local cases = {
          { "sum", "int32", "full" }, { "sum", "float32", "random" }, { "sum", "float16", "exact" },
          { "sum", "float64", "random" }, { "max", "float32", "full" }, { "argmax", "int16", "ties" },
          { "argmin", "float64", "full" }, { "count_nonzero", "uint8", "sparse" },
          { "any", "bool", "sparse" }, { "all", "float32", "dense" }, { "nanmax", "float32", "nan" },
          { "mean", "float32", "random" }, { "prod", "float64", "pow2" }, { "min", "uint64", "full" },
        }
        for _, c in ipairs(cases) do
          local op, dt, kind = c[1], c[2], c[3]
          local ref = R.new({ n }, R.values(rng, dt, n, kind), dt)
          run_case(xp, op, ref, nil, nil, { exact = kind ~= "random" and kind ~= "full" }, 1,
            "n=" .. n)
        end
        -- the extreme in the last element, past every full block
        local v = {}
        for i = 1, n do v[i] = (i * 7) % 1000 end
        v[n] = 5000
        local a = xp.array(v, "int32")
        assert.are.equal(n, a:argmax():item(), "argmax at the end")
        assert.are.equal(5000, a:max():item())
        v[n] = -5
        a = xp.array(v, "int32")
        assert.are.equal(n, a:argmin():item(), "argmin at the end")
        -- a tie between an element of the last, partial vector and one before it: the first
        v[n], v[2] = 6000, 6000
        a = xp.array(v, "int32")
        assert.are.equal(2, a:argmax():item(), "tie with the end")
        local f = xp.array(v, "float32")
        f[n] = 0 / 0
        assert.are.equal(n, f:argmax():item(), "NaN at the end")
      end
    end)

    b.it("2-D reductions along either axis of odd shapes", function()
      local rng = H.rng(4097)
      for _, shape in ipairs({ { 3, 4097 }, { 4097, 3 }, { 257, 259 }, { 1, 1000 }, { 1000, 1 },
                               { 33, 65 } }) do
        for _, c in ipairs({ { "sum", "float32", "random" }, { "max", "int8", "full" },
                             { "argmax", "float32", "ties" }, { "sum", "int64", "full" },
                             { "count_nonzero", "float64", "sparse" } }) do
          local op, dt, kind = c[1], c[2], c[3]
          local ref = R.new(shape, R.values(rng, dt, R.size(shape), kind), dt)
          local a = R.array(xp, ref)
          for _, axis in ipairs({ 1, 2, -1 }) do
            run_case(xp, op, ref, a, axis, { exact = kind ~= "random" and kind ~= "full" },
              axis % 3 + 1)
          end
          -- and the transposed view
          run_case(xp, op, R.T(ref), a.T, 1, { exact = kind ~= "random" and kind ~= "full" }, 1,
            "transposed")
        end
      end
    end)
  end
end)

-- ---------------------------------------------------------------- empty, 0-d, one element

describe("empty arrays, 0-d arrays and single elements", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("the sum of nothing is 0, the product 1, all true, any false", function()
      for _, dt in ipairs(H.dtypes) do
        local e = xp.zeros(0, dt)
        local zero = R.is_float(dt) and 0.0 or 0
        local one = R.is_float(dt) and 1.0 or 1
        A.check_equal(values(e:sum()), { zero }, "sum of empty " .. dt)
        A.check_equal(values(e:prod()), { one }, "prod of empty " .. dt)
        A.check_equal(values(e:nansum()), { zero }, "nansum of empty " .. dt)
        A.check_equal(values(e:nanprod()), { one }, "nanprod of empty " .. dt)
        A.check_equal(e:all(), true, "all of empty " .. dt)
        A.check_equal(e:any(), false, "any of empty " .. dt)
        A.check_equal(e:count_nonzero():item(), 0, "count_nonzero of empty " .. dt)
        local m = e:mean():item()
        assert(m ~= m, "mean of empty " .. dt .. " is NaN, got " .. tostring(m))
        local v = e:var():item()
        assert(v ~= v, "var of empty " .. dt .. " is NaN")
      end
    end)

    b.it("the max of nothing is a ValueError; over a non-empty axis it is an empty result", function()
      for _, dt in ipairs({ "float32", "int32", "bool", "uint64" }) do
        local e = xp.zeros(0, dt)
        for _, op in ipairs({ "max", "min", "amax", "amin", "argmax", "argmin", "nanmax",
                              "nanmin" }) do
          local err = H.raises("ValueError", xp[op], e)
          if op ~= "argmax" and op ~= "argmin" then
            assert.truthy(err.message:find("zero-size array", 1, true), err.message)
          end
        end
        if dt ~= "bool" then H.raises("ValueError", xp.ptp, e) end
        local e03 = xp.zeros({ 0, 3 }, dt)
        H.raises("ValueError", xp.max, e03, 1)
        H.raises("ValueError", xp.argmax, e03, 1)
        H.raises("ValueError", xp.max, e03)
        local r = xp.max(e03, 2)
        assert.are.same({ 0 }, r.shape)
        assert.are.equal(dt, r.dtype)
        assert.are.same({ 0, 1 }, xp.max(e03, 2, { keepdims = true }).shape)
        assert.are.same({ 0 }, xp.argmax(e03, 2).shape)
        assert.are.same({ 0 }, xp.min(e03, -1).shape)
        -- sums over the empty axis are zeros; over the other, empty
        local s = xp.sum(e03, 1)
        assert.are.same({ 3 }, s.shape)
        A.check_equal(values(s), R.is_float(dt) and { 0.0, 0.0, 0.0 } or { 0, 0, 0 }, "sum")
        assert.are.same({ 1, 3 }, xp.sum(e03, 1, { keepdims = true }).shape)
        assert.are.same({ 0 }, xp.sum(e03, 2).shape)
        A.check_equal(xp.any(e03, 1):totable(), { false, false, false }, "any")
        A.check_equal(xp.all(e03, 1):totable(), { true, true, true }, "all")
        A.check_equal(xp.count_nonzero(e03, 1):totable(), { 0, 0, 0 }, "count_nonzero")
      end
    end)

    b.it("a zero-extent reduced axis is an error even when the result is empty (NumPy)", function()
      -- numpy.zeros((0, 0)).max(axis=0) raises: each reduced axis must have an element
      local e = xp.zeros({ 0, 0 }, "float32")
      H.raises("ValueError", xp.max, e, 1)
      H.raises("ValueError", xp.min, e, 2)
      H.raises("ValueError", xp.max, xp.zeros({ 2, 0, 0 }, "int32"), { 1, 3 })
      assert.are.same({ 0 }, xp.sum(e, 1).shape)
    end)

    b.it("0-d inputs reduce to 0-d results", function()
      for _, dt in ipairs(H.dtypes) do
        local v = dt == "bool" and true or (R.is_float(dt) and 5.0 or 5)
        local a = xp.array({ v }, dt):reshape({})
        assert.are.equal(0, a.ndim)
        for _, op in ipairs({ "sum", "prod", "max", "min", "argmax", "argmin", "all", "any",
                              "count_nonzero", "nansum", "nanmax", "mean", "var" }) do
          local ref = R.new({}, { v }, dt)
          run_case(xp, op, ref, a, nil, { exact = true }, 1, "0-d")
          run_case(xp, op, ref, a, nil, { exact = true, keepdims = true }, 2, "0-d keepdims")
          if op ~= "argmax" and op ~= "argmin" then
            run_case(xp, op, ref, a, {}, { exact = true }, 3, "0-d, axis {}")
          end
        end
        H.raises("IndexError", xp.sum, a, 1)
        H.raises("IndexError", xp.argmax, a, 1)
        H.raises("IndexError", xp.mean, a, -1)
      end
    end)

    b.it("single elements along every axis form", function()
      for _, dt in ipairs({ "int8", "float32", "bool", "uint16", "float16" }) do
        local v = dt == "bool" and true or (R.is_float(dt) and -3.0 or 3)
        if dt == "uint16" then v = 65535 end
        local ref = R.new({ 1, 1, 1 }, { v }, dt)
        local a = R.array(xp, ref)
        for _, op in ipairs({ "sum", "prod", "max", "min", "argmax", "argmin", "any", "all",
                              "count_nonzero", "mean", "std" }) do
          for _, ax in ipairs(op:sub(1, 3) == "arg" and ONE_AXIS or AXES) do
            run_case(xp, op, ref, a, ax[1], { exact = true, keepdims = ax[1] == 2 }, 1)
          end
        end
      end
    end)
  end
end)

-- ---------------------------------------------------------------- NaN

describe("NaN", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("max and min propagate NaN; nanmax and nanmin skip it; all-NaN gives NaN", function()
      for _, dt in ipairs(R.FLOATS) do
        local a = xp.array({ 1.0, NAN, 3.0, -2.0 }, dt)
        local function isnan(x) return x ~= x end
        assert.is_true(isnan(a:max():item()), dt)
        assert.is_true(isnan(a:min():item()), dt)
        assert.are.equal(3.0, a:nanmax():item())
        assert.are.equal(-2.0, a:nanmin():item())
        local all_nan = xp.full(5, NAN, dt)
        assert.is_true(isnan(all_nan:nanmax():item()), "all-NaN nanmax " .. dt)
        assert.is_true(isnan(all_nan:nanmin():item()), "all-NaN nanmin " .. dt)
        assert.are.equal(0.0, all_nan:nansum():item())
        assert.are.equal(1.0, all_nan:nanprod():item())
        assert.is_true(isnan(all_nan:sum():item()))
        assert.is_true(isnan(all_nan:nanmean():item()), "all-NaN nanmean " .. dt)
        -- per row: NaN only in some rows
        local m = xp.array({ { 1.0, 2.0, 3.0 }, { 4.0, NAN, 6.0 }, { NAN, NAN, NAN } }, dt)
        local mx = values(m:max(2))
        assert.are.equal(3.0, mx[1])
        assert.is_true(isnan(mx[2]) and isnan(mx[3]))
        local nmx = values(m:nanmax(2))
        assert.are.equal(3.0, nmx[1])
        assert.are.equal(6.0, nmx[2])
        assert.is_true(isnan(nmx[3]))
        A.check_equal(values(m:nansum(2)), { 6.0, 10.0, 0.0 }, "nansum rows " .. dt)
        local nm = values(m:nanmean(2))
        assert.are.equal(2.0, nm[1])
        assert.are.equal(5.0, nm[2])
        assert.is_true(isnan(nm[3]))
        -- NaN against infinities
        local inf = xp.array({ -INF, NAN, INF }, dt)
        assert.is_true(isnan(inf:max():item()))
        assert.are.equal(INF, inf:nanmax():item())
        assert.are.equal(-INF, inf:nanmin():item())
        -- NaN is true for all/any/count_nonzero
        local t = xp.array({ NAN, 0.0, -0.0 }, dt)
        assert.are.equal(1, t:count_nonzero():item())
        assert.are.equal(true, t:any())
        assert.are.equal(false, t:all())
        assert.are.equal(true, xp.array({ NAN, 1.0 }, dt):all())
      end
    end)

    b.it("argmax and argmin give the first NaN; ties give the first extreme (1-based)", function()
      for _, dt in ipairs(R.FLOATS) do
        local a = xp.array({ 1.0, 5.0, NAN, 5.0, NAN, -1.0 }, dt)
        assert.are.equal(3, a:argmax():item(), dt)
        assert.are.equal(3, a:argmin():item(), dt)
        local t = xp.array({ 1.0, 5.0, -1.0, 5.0, -1.0 }, dt)
        assert.are.equal(2, t:argmax():item(), dt)
        assert.are.equal(3, t:argmin():item(), dt)
        local m = xp.array({ { 2.0, NAN, 2.0 }, { 7.0, 7.0, 1.0 }, { NAN, 0.0, NAN } }, dt)
        A.check_equal(m:argmax(2):totable(), { 2, 1, 1 }, "argmax rows " .. dt)
        A.check_equal(m:argmin(1):totable(), { 3, 1, 3 }, "argmin columns " .. dt)
        A.check_equal(xp.array({ -INF, INF, INF }, dt):argmax():item(), 2, "inf ties")
      end
      for _, dt in ipairs(H.dtypes) do
        local v = dt == "bool" and { false, true, true, false } or { 1, 3, 3, 1 }
        local a = xp.array(v, dt)
        assert.are.equal(2, a:argmax():item(), "ties " .. dt)
        assert.are.equal(1, a:argmin():item(), "ties " .. dt)
        assert.are.equal(1, xp.zeros(7, dt):argmax():item(), "all equal " .. dt)
      end
    end)

    b.it("NaN makes sums, products and means NaN; infinities follow IEEE", function()
      for _, dt in ipairs(R.FLOATS) do
        local function isnan(x) return x ~= x end
        local a = xp.array({ 1.0, NAN, 2.0 }, dt)
        assert.is_true(isnan(a:sum():item()) and isnan(a:prod():item()) and isnan(a:mean():item()))
        assert.is_true(isnan(a:var():item()) and isnan(a:std():item()))
        assert.are.equal(3.0, a:nansum():item())
        assert.are.equal(2.0, a:nanprod():item())
        assert.are.equal(1.5, a:nanmean():item())
        assert.is_true(isnan(xp.array({ INF, -INF }, dt):sum():item()))
        assert.are.equal(INF, xp.array({ INF, 1.0 }, dt):sum():item())
        assert.are.equal(-INF, xp.array({ -INF, 2.0 }, dt):prod():item())
        assert.is_true(isnan(xp.array({ INF, 0.0 }, dt):prod():item()))
      end
      -- integer nan- reductions are the plain ones
      local i = xp.array({ { 3, -1 }, { 4, 2 } }, "int32")
      A.check_equal(i:nanmax(1):totable(), i:max(1):totable(), "nanmax int")
      A.check_equal(i:nanmin(2):totable(), i:min(2):totable(), "nanmin int")
      A.check_equal(i:nansum():item(), 8, "nansum int")
      A.check_equal(i:nanprod():item(), -24, "nanprod int")
      A.check_equal(i:nanmean():item(), 2.0, "nanmean int")
    end)
  end
end)

-- ---------------------------------------------------------------- mean, var, std, nanmean, ptp

describe("mean, var, std, nanmean and ptp", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("var and std with ddof, against the Lua reference", function()
      local rng = H.rng(77)
      for _, dt in ipairs({ "float32", "float64", "float16", "int32", "uint8", "bool" }) do
        local shape = { 4, 6, 5 }
        local ref = R.new(shape, R.values(rng, dt, R.size(shape), "random"), dt)
        local a = R.array(xp, ref)
        for _, ddof in ipairs({ 0, 1, 2, 1.5 }) do
          for _, ax in ipairs({ { nil }, { 2 }, { -1 }, { { 1, 3 } } }) do
            for _, op in ipairs({ "var", "std" }) do
              run_case(xp, op, ref, a, ax[1], { ddof = ddof, keepdims = ddof == 1 }, ddof == 2
                and 3 or 1)
            end
          end
        end
      end
    end)

    b.it("n - ddof <= 0 gives inf or NaN, as NumPy's", function()
      local one = xp.array({ 3.0 }, "float64")
      local v = one:var(nil, { ddof = 1 }):item()
      assert(v ~= v, "var of one element, ddof=1: NaN, got " .. tostring(v))
      local two = xp.array({ 1.0, 2.0 }, "float32")
      assert.are.equal(INF, two:var{ ddof = 2 }:item())
      assert.are.equal(INF, two:var{ ddof = 3 }:item())
      assert.are.equal(INF, two:std{ ddof = 2 }:item())
      assert.are.equal(0.5, two:var{ ddof = 1 }:item())
      assert.are.equal(0.25, two:var():item())
      local rows = xp.array({ { 1, 1 }, { 1, 3 } }, "int32"):var(2, { ddof = 2 })
      local r = rows:totable()
      assert(r[1] ~= r[1] and r[2] == INF, "rows: " .. tostring(r[1]) .. ", " .. tostring(r[2]))
    end)

    b.it("means of integers are exact float64; float16 means computed in float32", function()
      local a = xp.array({ 1, 2, 3, 4 }, "int8")
      assert.are.equal("float64", a:mean().dtype)
      assert.are.equal(2.5, a:mean():item())
      local big = xp.array({ 1 << 62, 1 << 62 }, "int64")
      assert.are.equal(2.0 ^ 62, big:mean():item())
      local u = xp.array({ -1, -1 }, "uint64") -- 2^64 - 1, twice
      assert.are.equal(2.0 ^ 64, u:mean():item())
      local h = xp.full(5000, 1.5, "float16")
      assert.are.equal(1.5, h:mean():item())
      assert.are.equal("float16", h:mean().dtype)
      assert.are.equal(0.0, h:var():item())
      assert.are.equal("float64", xp.ones(3, "float32"):mean{ dtype = "float64" }.dtype)
      assert.are.equal("float32", xp.ones(3, "int32"):mean{ dtype = "float32" }.dtype)
      assert.are.equal("float64", xp.ones(3, "float32"):var{ dtype = "float64" }.dtype)
      -- mean of a float32 array summed in float64 where asked
      local f = xp.array({ 1.0, 2.0 ^ -30, -1.0 }, "float32")
      assert.are.equal(2.0 ^ -30 / 3, f:mean{ dtype = "float64" }:item())
    end)

    b.it("mean of keepdims broadcasts back; means along axes match the reference", function()
      local rng = H.rng(5)
      for _, dt in ipairs(H.dtypes) do
        local ref = R.new({ 2, 3, 4 }, R.values(rng, dt, 24, "exact"), dt)
        local a = R.array(xp, ref)
        for _, ax in ipairs(AXES) do
          run_case(xp, "mean", ref, a, ax[1], { keepdims = true, exact = true }, 2)
          run_case(xp, "nanmean", ref, a, ax[1], { exact = true }, 3)
        end
        local m = a:mean(2, { keepdims = true })
        assert.are.same({ 2, 1, 4 }, m.shape)
      end
    end)

    b.it("ptp is max - min in the input's dtype; bool is a TypeError", function()
      A.check_equal(xp.array({ { 1, 9, -3 }, { 4, 4, 4 } }, "int32"):ptp(2):totable(), { 12, 0 },
        "rows")
      local i8 = xp.array({ -128, 127 }, "int8"):ptp()
      assert.are.equal("int8", i8.dtype)
      assert.are.equal(-1, i8:item()) -- 255 wraps, as NumPy's
      assert.are.equal(255, xp.array({ 0, 255 }, "uint8"):ptp():item())
      assert.are.equal(INF, xp.array({ -INF, 0.0 }, "float32"):ptp():item())
      local n = xp.array({ 1.0, NAN }, "float64"):ptp():item()
      assert(n ~= n, "NaN")
      H.raises("TypeError", xp.ptp, xp.array({ true, false }, "bool"))
    end)
  end
end)

-- ---------------------------------------------------------------- errors

describe("errors", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    local BUILTIN = { "sum", "prod", "min", "max", "amin", "amax", "all", "any",
                      "count_nonzero", "nansum", "nanprod", "nanmin", "nanmax" }
    local COMPOSED = { "mean", "var", "std", "nanmean", "ptp" }
    local ALL = {}
    for _, op in ipairs(BUILTIN) do ALL[#ALL + 1] = op end
    for _, op in ipairs(COMPOSED) do ALL[#ALL + 1] = op end

    b.it("axes out of range: IndexError; repeated: ValueError; the array is unchanged", function()
      local a = xp.arange(24, "float32"):reshape(2, 3, 4)
      local before = values(a)
      for _, op in ipairs(ALL) do
        for _, axis in ipairs({ 4, -4, 0, 100, { 1, 4 }, { 0 } }) do
          H.raises("IndexError", xp[op], a, axis)
          H.raises("IndexError", a[op], a, { axis = axis, keepdims = true })
        end
        for _, axis in ipairs({ { 1, 1 }, { 1, -3 }, { 3, 2, 3 } }) do
          H.raises("ValueError", xp[op], a, axis)
        end
        H.raises("ValueError", xp[op], a, 1, { axis = 2 }) -- the axis given twice
      end
      for _, op in ipairs({ "argmax", "argmin" }) do
        H.raises("TypeError", xp[op], a, { 1, 2 }) -- one axis: an integer
        H.raises("TypeError", xp[op], a, { axis = { 1, 2 } })
        H.raises("IndexError", xp[op], a, 4)
        H.raises("IndexError", xp[op], a, -4)
      end
      A.check_list(values(a), before, "the array")
    end)

    b.it("bad argument types are TypeErrors", function()
      local a = xp.arange(6, "int32"):reshape(2, 3)
      for _, op in ipairs(ALL) do
        H.raises("TypeError", xp[op], a, "x")
        H.raises("TypeError", xp[op], a, 1.5)
        H.raises("TypeError", xp[op], a, { 1, "x" })
        H.raises("TypeError", xp[op], a, 1, 5) -- options not a table
        H.raises("TypeError", xp[op], a, 1, { keepdims = "yes" })
        H.raises("TypeError", xp[op], { 1, 2, 3 })
        H.raises("TypeError", xp[op], 5)
        H.raises("TypeError", xp[op], nil)
        H.raises("TypeError", xp[op], "array")
      end
      for _, op in ipairs({ "var", "std" }) do
        H.raises("TypeError", xp[op], a, nil, { ddof = "1" })
      end
      for _, op in ipairs({ "argmax", "argmin", "cumsum", "cumprod" }) do
        H.raises("TypeError", xp[op], a, "x")
        H.raises("TypeError", xp[op], { 1, 2 })
      end
      A.check_equal(a:totable(), { { 0, 1, 2 }, { 3, 4, 5 } }, "unchanged")
    end)

    b.it("a freed array is an error for every reduction", function()
      local f = xp.arange(6, "float32")
      f:free()
      for _, op in ipairs(ALL) do
        local ok, err = pcall(xp[op], f)
        assert.is_false(ok, op)
        assert.is_true(cuarr.is_error(err, "ValueError"), op .. ": " .. tostring(err))
      end
    end)
  end
end)

-- ---------------------------------------------------------------- device-only sizes

describe("large device reductions", function()
  H.gpu_it("split reductions back to back, on the null stream and on two others", function()
    -- Split reductions keep one set of arrival counters per stream, zeroed by the kernels
    -- themselves: a counter left wrong would show as a wrong or missing result later on.
    local n = 1000003
    local x = cuarr.arange(n, "float64") % 7 -- 0..6 repeated: an exact float64 sum
    local m = cuarr.arange(4 * 250007, "int32"):reshape(4, 250007) % 5
    local want = 0.0
    for k = 0, n - 1 do want = want + k % 7 end
    local rows = {}
    for r = 1, 4 do
      local s = 0
      for k = 0, 250006 do s = s + ((r - 1) * 250007 + k) % 5 end
      rows[r] = s
    end
    local s1, s2 = cuarr.Stream { non_blocking = true }, cuarr.Stream()
    local function check(label)
      for round = 1, 20 do
        local a, b, c = x:sum(), m:sum(2), x:max()
        local big = x[{ { 1, n - round } }]:sum() -- a grid that differs each round
        assert.are.equal(want, a:item(), label .. " sum, round " .. round)
        A.check_equal(b:totable(), rows, label .. " row sums, round " .. round)
        assert.are.equal(6.0, c:item(), label .. " max, round " .. round)
        local tail = 0.0
        for k = n - round, n - 1 do tail = tail + k % 7 end
        assert.are.equal(want - tail, big:item(), label .. " prefix sum, round " .. round)
      end
    end
    check("null stream")
    cuarr.with_stream(s1, check, "stream 1")
    cuarr.with_stream(s2, check, "stream 2")
    -- interleaved: each stream queues its sums before any is read
    local r1 = cuarr.with_stream(s1, function() return x:sum() end)
    local r2 = cuarr.with_stream(s2, function() return m:sum(2) end)
    local r0 = x:sum()
    cuarr.synchronize()
    assert.are.equal(want, r1:item())
    A.check_equal(r2:totable(), rows, "interleaved row sums")
    assert.are.equal(want, r0:item())
  end)

  H.gpu_it("full reductions of contiguous views around the size where the grid splits", function()
    -- a:sum() of a contiguous array takes a short way (src/core/reduce/flat_reduce.c) while one
    -- column of blocks does the work, and the general path once the grid splits (from
    -- 7937 * vector width elements on); views one to three elements on are not 16-byte aligned
    -- (no vectors, an earlier split).  Large sizes first, then small ones, and back.
    local base = cuarr.arange(80000, "int32")
    local sizes = { 2, 3, 255, 256, 257, 1000, 7935, 7936, 7937, 7938, 15873, 31743, 31744,
      31745, 31749, 40000, 65536, 79996 }
    for _, order in ipairs({ "down", "up", "down" }) do
      for i = 1, #sizes do
        local n = order == "up" and sizes[i] or sizes[#sizes + 1 - i]
        for off = 0, 3 do
          local v = base[{ { off + 1, off + n } }]
          local label = fmt("%s n=%d offset %d", order, n, off)
          assert.are.equal(n * off + n * (n - 1) // 2, v:sum():item(), label .. " sum")
          assert.are.equal(n, v:argmax():item(), label .. " argmax")
          assert.are.equal(1, v:argmin():item(), label .. " argmin")
          assert.are.equal(off + n - 1, v:max():item(), label .. " max")
        end
      end
    end
  end)

  H.gpu_it("a float32 sum of 2^28 values within 1e-6 of the float64 sum", function()
    local n = 1 << 28
    local i = cuarr.arange(n, "float64")
    local f64 = (i * 0.618034) % 1
    i:free()
    local x = f64:astype("float32")
    f64:free()
    local s32 = x:sum()
    local s64 = x:sum(nil, { dtype = "float64" })
    assert.are.equal("float32", s32.dtype)
    local a, b = s32:item(), s64:item()
    assert(abs(a - b) <= 1e-6 * abs(b), fmt("float32 sum %.9g, float64 sum %.9g", a, b))
    -- the float64 reference: equidistributed values average to 1/2
    assert(abs(b / n - 0.5) < 1e-4, fmt("mean %.9g", b / n))
    -- and it matches a Lua sum over a strided subsample, summed on the device too
    local sub = x[{ { 1, n, 4099 } }]
    local dev = sub:sum(nil, { dtype = "float64" }):item()
    local host = R.fsum(values(sub:get()))
    assert(abs(dev - host) <= 1e-12 * abs(host), fmt("subsample: device %.17g, Lua %.17g", dev, host))
    -- the host's float32 sum of the same values
    local h = x:get():sum():item()
    assert(abs(h - b) <= 1e-6 * abs(b), fmt("host float32 sum %.9g, float64 %.9g", h, b))
    -- other reductions over the same array
    local mx = x:max():item()
    assert(mx < 1 and mx > 0.9999, tostring(mx))
    local am = x:argmax():item()
    assert.are.equal(mx, x[am])
    assert(abs(x:mean():item() - b / n) < 1e-6)
    x:free()
  end)

  H.gpu_it("reductions over more than 2^31 elements", function()
    local n = (1 << 31) + 100
    local a = cuarr.ones(n, "int8")
    a[{ { 1, 50 } }] = 0
    a[{ { n, n } }] = 7
    assert.are.equal(n - 50, a:count_nonzero():item())
    assert.are.equal(n - 51 + 7, a:sum():item())
    assert.are.equal(7, a:max():item())
    assert.are.equal(n, a:argmax():item()) -- past 2^31, 1-based
    assert.are.equal(1, a:argmin():item())
    assert.are.equal(0, a:min():item())
    assert.are.equal(true, a:any())
    assert.are.equal(false, a:all())
    local rows = a:reshape(2, n // 2):sum(2)
    A.check_equal(rows:totable(), { n // 2 - 50, n // 2 - 1 + 7 }, "row sums")
    local bo = a:astype("bool")
    assert.are.equal(n - 50, bo:count_nonzero():item())
    assert.are.equal(n - 50, bo:sum():item())
    bo[{ { 1, 50 } }] = true
    assert.are.equal(true, bo:all())
    bo:free()
    a:free()
  end)
end)
