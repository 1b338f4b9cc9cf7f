-- cumsum and cumprod on the host (cuarr.cpu) and on the device (cuarr), against references
-- computed in Lua (spec/support/reduce_ref.lua): along each axis of 1-, 2- and 3-D arrays of
-- every dtype, axis nil (the flattened array, in C order of the view), non-contiguous inputs
-- (transposed, stepped, reversed), NumPy's result dtypes and the dtype option, given outputs
-- (in place too: out = a), empty and 0-d arrays, NaN, lengths that are no multiple of a block,
-- and errors, which leave every array as it was.  Device results are compared with the
-- reference and with the host's.  Last, device-only sizes: a float32 cumsum of 2^24 + 3 ones
-- and one of 2^28 values, checked on spots.
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

local function shape_str(shape) return "(" .. concat(shape, ",") .. ")" end

-- Scan ref's array a (made from ref when nil) and check it against the reference; on the
-- device also against the host.
local function run_case(xp, op, ref, a, axis, opts, style, what)
  a = a or R.array(xp, ref)
  opts = opts or {}
  local want = R.scan(op, ref, axis, opts.dtype, opts.exact)
  local copts = { dtype = opts.dtype }
  what = fmt("%s(%s %s, axis=%s%s)%s", op, ref.dtype, shape_str(ref.shape), tostring(axis),
    opts.dtype and ", dtype=" .. opts.dtype or "", what and " " .. what or "")
  local r = call(xp, op, a, axis, copts, style)
  local msg = mismatch(r.dtype, r.shape, values(r), want)
  if msg then error(what .. ": " .. msg, 2) end
  if xp == cuarr then
    local h = values(call(cuarr.cpu, op, a:get(), axis, copts, style))
    local d = values(r)
    for i = 1, #d do
      local t = want.tol and want.tol[i]
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
  return r
end

local SHAPES = { { 7 }, { 3, 5 }, { 2, 3, 4 } }

-- ---------------------------------------------------------------- against the reference

describe("cumsum and cumprod", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("along each axis of 1-, 2- and 3-D arrays of every dtype, and axis nil", function()
      local n = 0
      for _, dt in ipairs(H.dtypes) do
        for _, shape in ipairs(SHAPES) do
          for _, c in ipairs({ { "cumsum", "exact" }, { "cumsum", "random" },
                               { "cumprod", "pow2" } }) do
            local op, kind = c[1], c[2]
            local rng = H.rng(R.seed_of(op .. dt .. kind .. #shape))
            local ref = R.new(shape, R.values(rng, dt, R.size(shape), kind), dt)
            local a = R.array(xp, ref)
            local axes = { "flat", -1 }
            for d = 1, #shape do axes[#axes + 1] = d end
            for _, axis in ipairs(axes) do
              if axis == "flat" then axis = nil end
              n = n + 1
              run_case(xp, op, ref, a, axis, { exact = kind ~= "random" }, n % 3 + 1)
            end
            A.check_list(values(a), ref.data, "the input")
          end
        end
      end
    end)

    -- Contiguous operands of one size (4 or 8 bytes) move in 16-byte packs when their data are
    -- 16-byte aligned, element by element otherwise: views starting 0 to 3 elements into an
    -- array, over several tiles and a partial last one, as one row and as rows.
    b.it("contiguous views at every offset from a 16-byte boundary", function()
      local rng = H.rng(77)
      for _, dt in ipairs({ "float32", "int64", "float64", "uint32" }) do
        local n = 20011
        local base = R.new({ n }, R.values(rng, dt, n, "exact"), dt)
        local arr = R.array(xp, base)
        for offset = 0, 3 do
          local view = arr[{ { 1 + offset, -1 } }]
          local ref = R.slice(base, { { 1 + offset, -1 } })
          run_case(xp, "cumsum", ref, view, 1, { exact = true, dtype = dt }, 1, "offset " .. offset)
        end
        local rows = R.new({ 7, 2003 }, R.values(rng, dt, 7 * 2003, "exact"), dt)
        local rarr = R.array(xp, rows)
        run_case(xp, "cumsum", rows, rarr, 2, { exact = true, dtype = dt }, 1, "rows")
        run_case(xp, "cumsum", R.slice(rows, { { 2, -1 }, {} }), rarr[{ { 2, -1 }, {} }], 2,
          { exact = true, dtype = dt }, 1, "rows from the second")
      end
    end)

    b.it("of transposed, stepped and reversed views", function()
      local rng = H.rng(31)
      for _, dt in ipairs({ "float32", "int16", "uint8", "float64", "bool", "float16", "int64" }) do
        local base = R.new({ 5, 6, 7 }, R.values(rng, dt, 210, "exact"), dt)
        local arr = R.array(xp, base)
        local views = {
          { "T", R.T(base), arr.T },
          { "stepped", R.slice(base, { { 1, -1, 2 }, {}, { 2, -1, 3 } }),
            arr[{ { 1, -1, 2 }, {}, { 2, -1, 3 } }] },
          { "reversed", R.slice(base, { { -1, 1, -1 }, { -2, 1, -2 }, {} }),
            arr[{ { -1, 1, -1 }, { -2, 1, -2 }, {} }] },
          { "transposed", R.transpose(base, { 2, 3, 1 }), arr:transpose(2, 3, 1) },
          { "column", R.slice(base, { {}, { 3, 3 }, {} }), arr[{ {}, { 3, 3 }, {} }] },
        }
        for _, v in ipairs(views) do
          for _, axis in ipairs({ 1, 2, 3, -1 }) do
            run_case(xp, "cumsum", v[2], v[3], axis, { exact = true }, axis % 3 + 1, v[1])
          end
          run_case(xp, "cumsum", v[2], v[3], nil, { exact = true }, 1, v[1] .. ", flattened")
        end
        local pw = R.new({ 4, 5 }, R.values(rng, dt, 20, "pow2"), dt)
        local pa = R.array(xp, pw)
        run_case(xp, "cumprod", R.T(pw), pa.T, 1, { exact = true }, 2, "T")
        run_case(xp, "cumprod", R.T(pw), pa.T, nil, { exact = true }, 2, "T, flattened")
        run_case(xp, "cumprod", R.slice(pw, { { -1, 1, -2 }, {} }), pa[{ { -1, 1, -2 }, {} }], 2,
          { exact = true }, 1, "reversed")
      end
    end)

    b.it("axis nil scans the flattened array in C order", function()
      local a = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32")
      A.check_equal(a:cumsum():totable(), { 1, 3, 6, 10, 15, 21 }, "cumsum()")
      A.check_equal(a.T:cumsum():totable(), { 1, 5, 7, 12, 15, 21 }, "T:cumsum()")
      A.check_equal(a:cumprod():totable(), { 1, 2, 6, 24, 120, 720 }, "cumprod()")
      A.check_equal(a:cumsum(1):totable(), { { 1, 2, 3 }, { 5, 7, 9 } }, "cumsum(1)")
      A.check_equal(a:cumsum(2):totable(), { { 1, 3, 6 }, { 4, 9, 15 } }, "cumsum(2)")
      A.check_equal(a:cumsum(-1):totable(), { { 1, 3, 6 }, { 4, 9, 15 } }, "cumsum(-1)")
      A.check_equal(xp.cumsum(a, { axis = 1 }):totable(), { { 1, 2, 3 }, { 5, 7, 9 } }, "{axis=1}")
      A.check_equal(xp.cumprod(a, 2):totable(), { { 1, 2, 6 }, { 4, 20, 120 } }, "cumprod(2)")
    end)

    b.it("result dtypes follow sums; dtype= chooses another", function()
      for _, dt in ipairs(H.dtypes) do
        local want = R.result_dtype("cumsum", dt)
        assert.are.equal(want, xp.ones({ 2, 2 }, dt):cumsum().dtype, "cumsum of " .. dt)
        assert.are.equal(want, xp.ones({ 2, 2 }, dt):cumprod(1).dtype, "cumprod of " .. dt)
      end
      local i8 = xp.full(300, 127, "int8"):cumsum()
      assert.are.equal("int64", i8.dtype)
      assert.are.equal(38100, values(i8)[300])
      local w = values(xp.full(300, 127, "int8"):cumsum(nil, { dtype = "int8" }))
      assert.are.equal(127, w[1])
      assert.are.equal(-2, w[2]) -- 254 wraps
      assert.are.equal(-44, w[300]) -- 38100 mod 256 = 212, as int8
      local u = xp.full(3, 255, "uint8"):cumsum()
      assert.are.equal("uint64", u.dtype)
      A.check_equal(values(u), { 255, 510, 765 }, "uint8")
      local bo = xp.array({ true, false, true, true }, "bool"):cumsum()
      assert.are.equal("int64", bo.dtype)
      A.check_equal(values(bo), { 1, 1, 2, 3 }, "bool")
      local f = xp.full(5, 0.1, "float32"):cumsum(nil, { dtype = "float64" })
      assert.are.equal("float64", f.dtype)
      assert(abs(values(f)[5] - 5 * A.f32(0.1)) < 1e-15)
      local h = xp.ones(3000, "float16"):cumsum(nil, { dtype = "float32" })
      assert.are.equal("float32", h.dtype)
      assert.are.equal(3000.0, values(h)[3000])
      local m = xp.full(4, 3, "int16"):cumprod()
      A.check_equal(values(m), { 3, 9, 27, 81 }, "int16 cumprod")
      local big = values(xp.full(40, 3, "int8"):cumprod()) -- int64, wraps at 64 bits
      local p = 1
      for k = 1, 40 do
        p = p * 3
        assert.are.equal(p, big[k], "3^" .. k)
      end
    end)

    b.it("fill a given output, in place too (out = a)", function()
      local a = xp.arange(10, "float64")
      local r = xp.cumsum(a, 1, { out = a })
      assert.is_true(rawequal(a, r))
      A.check_equal(a:totable(), { 0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 36.0, 45.0 },
        "in place")
      local m = xp.arange(12, "float32"):reshape(3, 4)
      m:cumsum(2, { out = m })
      A.check_equal(m:totable(), { { 0.0, 1.0, 3.0, 6.0 }, { 4.0, 9.0, 15.0, 22.0 },
                                   { 8.0, 17.0, 27.0, 38.0 } }, "rows in place")
      local c = xp.arange(12, "int64"):reshape(3, 4)
      c:cumsum(1, { out = c })
      A.check_equal(c:totable(), { { 0, 1, 2, 3 }, { 4, 6, 8, 10 }, { 12, 15, 18, 21 } },
        "columns in place")
      local t = xp.arange(12, "int64"):reshape(3, 4)
      local v = t.T
      v:cumsum(1, { out = v }) -- a transposed view in place: t's rows
      A.check_equal(t:totable(), { { 0, 1, 3, 6 }, { 4, 9, 15, 22 }, { 8, 17, 27, 38 } },
        "transposed view in place")
      local p = xp.array({ 1.0, 2.0, 3.0, 4.0 }, "float32")
      p:cumprod(nil, { out = p })
      A.check_equal(p:totable(), { 1.0, 2.0, 6.0, 24.0 }, "cumprod in place")
      -- an output overlapping the input in another layout
      local s = xp.arange(16, "int64"):reshape(4, 4)
      s:cumsum(1, { out = s.T })
      local want = { { 0, 4, 12, 24 }, { 1, 6, 15, 28 }, { 2, 8, 18, 32 }, { 3, 10, 21, 36 } }
      A.check_equal(s:totable(), want, "into the transpose of the input")
      -- a fresh output; another dtype of a kind the result casts to
      local x = xp.arange(6, "int32"):reshape(2, 3)
      local o = xp.full({ 2, 3 }, -1, "float64")
      assert.is_true(rawequal(o, x:cumsum(2, { out = o })))
      A.check_equal(o:totable(), { { 0.0, 1.0, 3.0 }, { 3.0, 7.0, 12.0 } }, "into float64")
      local o16 = xp.zeros(6, "int16")
      x:cumsum(nil, { out = o16 })
      A.check_equal(o16:totable(), { 0, 1, 3, 6, 10, 15 }, "flattened into int16")
      local so = xp.zeros({ 3, 2 }, "int64")
      x:cumsum(2, { out = so.T })
      A.check_equal(so:totable(), { { 0, 3 }, { 1, 7 }, { 3, 12 } }, "into a transposed view")
    end)

    b.it("a wrong output shape or dtype is an error, and the output stays as it was", function()
      local x = xp.arange(6, "float32"):reshape(2, 3)
      for _, op in ipairs({ "cumsum", "cumprod" }) do
        local o = xp.full({ 2, 3 }, 7, "float32")
        H.raises("ValueError", xp[op], x, nil, { out = o }) -- axis nil: (6,)
        A.check_equal(values(o), { 7.0, 7.0, 7.0, 7.0, 7.0, 7.0 }, op .. " (2,3) for (6,)")
        local o6 = xp.full(6, 7, "float32")
        H.raises("ValueError", xp[op], x, 2, { out = o6 })
        A.check_equal(values(o6), { 7.0, 7.0, 7.0, 7.0, 7.0, 7.0 }, op .. " (6,) for (2,3)")
        local o32 = xp.full({ 3, 2 }, 7, "float32")
        H.raises("ValueError", xp[op], x, 1, { out = o32 })
        local oi = xp.full({ 2, 3 }, 7, "int32")
        H.raises("TypeError", xp[op], x, 1, { out = oi })
        A.check_equal(values(oi), { 7, 7, 7, 7, 7, 7 }, op .. " float32 into int32")
        local ob = xp.zeros(6, "bool")
        H.raises("TypeError", xp[op], x, nil, { out = ob })
        H.raises("TypeError", xp[op], xp.arange(6, "int32"), 1, { out = xp.zeros(6, "uint32") })
        H.raises("TypeError", xp[op], x, 1, { out = "x" })
        H.raises("ValueError", xp[op], x, 1, { out = xp.zeros({ 2, 3 }, "float32")[{ { 1, 1 } }] })
        local bc = xp.zeros(3, "float32"):reshape(1, 3)
        H.raises("ValueError", xp[op], x, 1, { out = bc })
      end
      A.check_equal(x:totable(), { { 0.0, 1.0, 2.0 }, { 3.0, 4.0, 5.0 } }, "the input")
    end)

    b.it("of empty and 0-d arrays", function()
      for _, dt in ipairs({ "float32", "int8", "bool", "uint64", "float16" }) do
        local e = xp.zeros(0, dt)
        local r = e:cumsum()
        assert.are.same({ 0 }, r.shape)
        assert.are.equal(R.result_dtype("cumsum", dt), r.dtype)
        assert.are.same({ 0 }, e:cumprod(1).shape)
        local e03 = xp.zeros({ 0, 3 }, dt)
        assert.are.same({ 0, 3 }, e03:cumsum(2).shape)
        assert.are.same({ 0, 3 }, e03:cumsum(1).shape)
        assert.are.same({ 0 }, e03:cumsum().shape)
        assert.are.same({ 2, 0 }, xp.zeros({ 2, 0 }, dt):cumprod(1).shape)
        local z = xp.array({ dt == "bool" and true or 3 }, dt):reshape({})
        local c = z:cumsum()
        assert.are.same({ 1 }, c.shape) -- NumPy: the flattened 0-d array
        A.check_equal(values(c), { R.is_float(dt) and 3.0 or (dt == "bool" and 1 or 3) }, dt)
        local o = xp.full(0, 1, R.result_dtype("cumsum", dt))
        assert.is_true(rawequal(o, e:cumsum(nil, { out = o })))
      end
    end)

    b.it("NaN and infinities carry on along the scan", function()
      for _, dt in ipairs(R.FLOATS) do
        local c = values(xp.array({ 1.0, NAN, 2.0, 3.0 }, dt):cumsum())
        assert.are.equal(1.0, c[1])
        assert.is_true(c[2] ~= c[2] and c[3] ~= c[3] and c[4] ~= c[4], dt)
        local i = values(xp.array({ 1.0, INF, -INF, 3.0 }, dt):cumsum())
        assert.are.equal(INF, i[2])
        assert.is_true(i[3] ~= i[3] and i[4] ~= i[4], dt)
        local p = values(xp.array({ 2.0, INF, 0.0, 1.0 }, dt):cumprod())
        assert.are.equal(INF, p[2])
        assert.is_true(p[3] ~= p[3], dt)
        local m = xp.array({ { 1.0, NAN }, { 2.0, 3.0 } }, dt):cumsum(1)
        local v = values(m)
        assert.are.equal(1.0, v[1])
        assert.is_true(v[2] ~= v[2] and v[4] ~= v[4])
        assert.are.equal(3.0, v[3])
      end
    end)

    b.it("lengths that are no multiple of a block", function()
      for _, n in ipairs({ 1000, 4097, 100003 }) do
        local rng = H.rng(n + 1)
        for _, c in ipairs({ { "cumsum", "int32", "full" }, { "cumsum", "float32", "exact" },
                             { "cumsum", "float64", "random" }, { "cumsum", "uint8", "exact" },
                             { "cumprod", "float64", "pow2" }, { "cumsum", "bool", "random" } }) do
          local op, dt, kind = c[1], c[2], c[3]
          local ref = R.new({ n }, R.values(rng, dt, n, kind), dt)
          run_case(xp, op, ref, nil, nil, { exact = kind ~= "random" }, 1, "n=" .. n)
        end
      end
      local rng = H.rng(2)
      for _, shape in ipairs({ { 3, 4097 }, { 4097, 3 }, { 257, 259 } }) do
        local ref = R.new(shape, R.values(rng, "float32", R.size(shape), "exact"), "float32")
        local a = R.array(xp, ref)
        for _, axis in ipairs({ 1, 2 }) do
          run_case(xp, "cumsum", ref, a, axis, { exact = true }, axis)
        end
        run_case(xp, "cumsum", R.T(ref), a.T, 2, { exact = true }, 1, "transposed")
      end
    end)

    b.it("errors: axes, options and arguments; the array is unchanged", function()
      local x = xp.arange(6, "int32"):reshape(2, 3)
      for _, op in ipairs({ "cumsum", "cumprod" }) do
        for _, axis in ipairs({ 3, -3, 0, 10 }) do
          H.raises("IndexError", xp[op], x, axis)
          H.raises("IndexError", x[op], x, { axis = axis })
        end
        H.raises("TypeError", xp[op], x, { 1, 2 }) -- one axis only: an integer
        H.raises("TypeError", xp[op], x, { axis = { 1 } })
        H.raises("ValueError", xp[op], x, 1, { axis = 2 }) -- given twice
        H.raises("TypeError", xp[op], x, 1, { keepdims = true })
        H.raises("TypeError", xp[op], x, 1, { dtype = "float" })
        H.raises("TypeError", xp[op], x, 1.5)
        H.raises("TypeError", xp[op], x, "1")
        H.raises("TypeError", xp[op], x, 1, 3)
        H.raises("TypeError", xp[op], { 1, 2, 3 })
        H.raises("TypeError", xp[op], nil)
      end
      A.check_equal(x:totable(), { { 0, 1, 2 }, { 3, 4, 5 } }, "unchanged")
    end)
  end
end)

-- ---------------------------------------------------------------- device-only sizes

describe("large device scans", function()
  H.gpu_it("a float32 cumsum of 2^24 + 3 ones", function()
    local n = (1 << 24) + 3
    local c = cuarr.ones(n, "float32"):cumsum()
    assert.are.equal("float32", c.dtype)
    -- exact up to 2^24: every value is its index
    local ref = cuarr.arange(1, (1 << 24) + 1, 1, "float32")
    local head = c[{ { 1, 1 << 24 } }]
    assert.are.equal(0, (head - ref):count_nonzero():item(), "the first 2^24 values")
    for _, k in ipairs({ 1, 2, 255, 256, 257, 4096, 4097, 65537, 1 << 20, (1 << 24) - 1, 1 << 24 }) do
      assert.are.equal(k + 0.0, c[k], "cumsum[" .. k .. "]")
    end
    -- past 2^24 float32 steps by 2: one rounding of the exact value, not a sequential stall
    for k = (1 << 24) + 1, n do
      assert(abs(c[k] - k) <= 2, fmt("cumsum[%d] = %.1f", k, c[k]))
    end
    assert.is_true(c[n] > (1 << 24), "the running sum stalled at 2^24")
    ref:free()
    c:free()
  end)

  H.gpu_it("a float32 cumsum of 2^28 values, checked on spots", function()
    local n = 1 << 28
    local i = cuarr.arange(n, "float64")
    local f64 = (i * 0.618034) % 1
    i:free()
    local x = f64:astype("float32")
    f64:free()
    local c = x:cumsum()
    local c64 = x:cumsum(nil, { dtype = "float64" })
    assert.are.equal("float32", c.dtype)
    assert.are.equal("float64", c64.dtype)
    -- the float64 scan against Lua on the first 5000 values and against the float64 sum
    local head = values(x[{ { 1, 5000 } }]:get())
    local s = 0.0
    for k = 1, 5000 do
      s = s + head[k]
      if k == 1 or k == 2 or k == 255 or k == 256 or k == 257 or k == 4097 or k == 5000 then
        assert(abs(c64[k] - s) <= 1e-12 * s, fmt("c64[%d] = %.17g, Lua %.17g", k, c64[k], s))
        assert(abs(c[k] - s) <= 1e-6 * s, fmt("c[%d] = %.9g, Lua %.17g", k, c[k], s))
      end
    end
    local total = x:sum(nil, { dtype = "float64" }):item()
    assert(abs(c64[n] - total) <= 1e-12 * total, fmt("c64[n] %.17g, sum %.17g", c64[n], total))
    -- the float32 scan within 1e-4 of the float64 one on spots (a sequential float32 scan
    -- would stall far below: adding 0.5 to 2^27 in float32 changes nothing)
    for _, k in ipairs({ 1000, 4097, (1 << 20) + 7, 1 << 24, (1 << 27) + 5, n - 1, n }) do
      local w = c64[k]
      assert(abs(c[k] - w) <= 1e-4 * w, fmt("c[%d] = %.9g, float64 %.17g", k, c[k], w))
    end
    -- the difference of neighbours is the element
    for _, k in ipairs({ 70000, (1 << 26) + 1 }) do
      assert(abs((c64[k + 1] - c64[k]) - x[k + 1]) < 1e-6)
    end
    c:free()
    c64:free()
    x:free()
  end)
end)
