-- Indexing the Lua way, on the host (cuarr.cpu) and on the device (cuarr):
-- 1-based, inclusive ranges {start, stop[, step]}, negative indices from the end, {} for a
-- whole axis, {i} a one-element range that keeps its axis, 0 an IndexError; a[i] on a 1-D
-- array is a Lua value, on an n-D array a view; a[{i, j}] an element; assignment of scalars,
-- tables and arrays with broadcasting; #a.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local type = type
local check_equal, build, range_positions, sample =
  A.check_equal, A.build, A.range_positions, A.sample

-- The value an element of dtype dt holds for the small integer k.
local function value_of(dt, k)
  if dt == "bool" then return k % 2 == 1 end
  if dt:sub(1, 5) == "float" then return k + 0.0 end
  return k
end

describe("indexing", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    describe("reading", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("a[i] of a 1-D " .. dt .. " array is a Lua " ..
             (dt == "bool" and "boolean" or dt:sub(1, 5) == "float" and "float" or "integer"), function()
          local src = {}
          for k = 1, 7 do src[k] = value_of(dt, k) end
          local a = xp.array(src, dt)
          for i = 1, 7 do check_equal(a[i], src[i], "a[" .. i .. "]") end
          for i = -7, -1 do check_equal(a[i], src[8 + i], "a[" .. i .. "]") end
          check_equal(a[{ 3 }], src[3], "a[{3}]")
          -- on a 2-D array a[i] is a row view and a[{i, j}] the element
          local m = a[{ { 1, 6 } }]:reshape(2, 3)
          local row = m[2]
          assert.are.equal("userdata", type(row))
          check_equal(row.shape, { 3 })
          check_equal(row:totable(), { src[4], src[5], src[6] })
          check_equal(m[{ 2, 3 }], src[6])
          check_equal(m[{ -1, -3 }], src[4])
          check_equal(m[{ 1, -1 }], src[3])
        end)
      end

      b.it("a[{i}] selects along the first axis; {i} as a range keeps the axis", function()
        local a, ref = sample(xp, { 3, 4 })
        local r = a[{ 2 }]
        check_equal(r.shape, { 4 })
        check_equal(r:totable(), ref[2])
        local k = a[{ { 2 } }]
        check_equal(k.shape, { 1, 4 })
        check_equal(k:totable(), { ref[2] })
        local c = a[{ {}, { 3 } }]
        check_equal(c.shape, { 3, 1 })
        check_equal(c:totable(), { { 13 }, { 23 }, { 33 } })
        local col = a[{ {}, 3 }]
        check_equal(col.shape, { 3 })
        check_equal(col:totable(), { 13, 23, 33 })
        local whole = a[{}]
        check_equal(whole.shape, { 3, 4 })
        assert.are.equal(a, whole.base)
        check_equal(whole:totable(), ref)
        -- 3-D: mixed integers and ranges
        local t, tref = sample(xp, { 2, 3, 4 })
        check_equal(t[{ 2, {}, -1 }]:totable(), { tref[2][1][4], tref[2][2][4], tref[2][3][4] })
        check_equal(t[{ {}, 2 }].shape, { 2, 4 })
        check_equal(t[{ {}, 2 }]:totable(), { tref[1][2], tref[2][2] })
        check_equal(t[{ 1, 3, 2 }], 132)
        check_equal(t[2][3][4], 234)
      end)

      b.it("ranges are inclusive, with steps, negative steps and clamping", function()
        local n = 10
        local a = xp.arange(1, n + 1) -- a[i] == i
        local ranges = {
          { 1, 10 }, { 2, 5 }, { 3, 3 }, { 5, 2 }, { -3, -1 }, { -1, -3 }, { 1, -1, 2 },
          { 2, -1, 3 }, { 10, 1, -1 }, { -1, 1, -1 }, { 8, 2, -3 }, { -2, -9, -2 }, { 1, 10, 20 },
          { 10, 1, -20 }, { -100, 3 }, { 8, 100 }, { 100, 1, -1 }, { 3, -100, -1 }, { -100, 100, 4 },
          { 11, 20 }, { -20, -11 }, { 4, 4, -1 }, { 5 }, { -2 },
        }
        for _, r in ipairs(ranges) do
          local want = r[2] and range_positions(n, r[1], r[2], r[3]) or range_positions(n, r[1], r[1])
          local what = "a[{{" .. table.concat(r, ", ") .. "}}]"
          local v = a[{ r }]
          check_equal(v.shape, { #want }, what .. " shape")
          check_equal(v:totable(), want, what)
        end
        -- ranges with defaults: missing stop is the end in the step's direction
        check_equal(a[{ { 7, nil } }]:totable(), { 7 })
        check_equal(a[{ { 1, -1, 3 } }]:totable(), { 1, 4, 7, 10 })
      end)

      b.it("slices of 2-D arrays with steps on both axes compose", function()
        local a, ref = sample(xp, { 5, 6 })
        local v = a[{ { -1, 1, -2 }, { 2, -1, 2 } }]
        local rows, cols = range_positions(5, -1, 1, -2), range_positions(6, 2, -1, 2)
        local want = build({ #rows, #cols }, function(i, j) return ref[rows[i]][cols[j]] end)
        check_equal(v.shape, { 3, 3 })
        check_equal(v.strides, { -2 * 24, 2 * 4 })
        check_equal(v:totable(), want)
        -- a slice of the slice
        local w = v[{ { 3, 1, -2 }, { -1, 1, -1 } }]
        check_equal(w:totable(), { { want[3][3], want[3][2], want[3][1] },
                                   { want[1][3], want[1][2], want[1][1] } })
        check_equal(v[{ 2, 3 }], want[2][3])
        check_equal(w[{ 2, 1 }], want[1][3])
      end)

      b.it("empty ranges make empty views", function()
        local a, ref = sample(xp, { 3, 4 })
        local e = a[{ { 3, 2 } }]
        check_equal(e.shape, { 0, 4 })
        check_equal(e:totable(), {})
        local e2 = a[{ {}, { 2, 1 } }]
        check_equal(e2.shape, { 3, 0 })
        check_equal(e2:totable(), { {}, {}, {} })
        check_equal(e2:copy().shape, { 3, 0 })
        local z = xp.zeros({ 0, 2 })
        check_equal(z[{ {}, 1 }].shape, { 0 })
        check_equal(a:totable(), ref)
      end)

      b.it("refuses 0, out-of-range and malformed indices", function()
        local a, ref = sample(xp, { 3, 4 })
        H.raises("IndexError", function() return a[0] end)
        H.raises("IndexError", function() return a[{ 0, 1 }] end)
        H.raises("IndexError", function() return a[{ 1, 0 }] end)
        H.raises("IndexError", function() return a[{ { 0, 2 } }] end)
        H.raises("IndexError", function() return a[{ { 1, 0 } }] end)
        H.raises("IndexError", function() return a[4] end)
        H.raises("IndexError", function() return a[-4] end)
        H.raises("IndexError", function() return a[{ 1, 5 }] end)
        H.raises("IndexError", function() return a[{ 1, -5 }] end)
        H.raises("IndexError", function() return a[{ 1, 2, 1 }] end)
        H.raises("TypeError", function() return a[1.5] end)
        H.raises("TypeError", function() return a[{ 1, 2.5 }] end)
        H.raises("IndexError", function() return a[{ { 1, 2, 1, 1 } }] end)
        H.raises("ValueError", function() return a[{ { 1, 3, 0 } }] end)
        H.raises("TypeError", function() return a[{ { 1, 2.5 } }] end)
        H.raises("TypeError", function() return a[{ "x" }] end)
        H.raises("TypeError", function() return a[true] end)
        H.raises("IndexError", function() return xp.array(5)[1] end)
        check_equal(a:totable(), ref)
      end)

      b.it("#a is the extent of the first axis", function()
        assert.are.equal(5, #xp.zeros(5))
        assert.are.equal(3, #xp.zeros({ 3, 7 }))
        assert.are.equal(0, #xp.zeros({ 0, 2 }))
        assert.are.equal(7, #xp.zeros({ 3, 7 }).T)
        assert.are.equal(2, #xp.arange(10)[{ { 1, 4, 3 } }])
        H.raises("TypeError", function() return #xp.array(1) end)
      end)
    end)

    describe("assignment", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("sets " .. dt .. " elements and slices from scalars", function()
          local a = xp.zeros({ 3, 4 }, dt)
          local zero, v1, v2 = value_of(dt, 0), value_of(dt, 5), value_of(dt, 7)
          a[{ 2, 3 }] = v1
          a[{ -1, -1 }] = v2
          a[{ {}, 1 }] = v2
          check_equal(a:totable(), { { v2, zero, zero, zero }, { v2, zero, v1, zero },
                                     { v2, zero, zero, v2 } })
          a[1] = v1 -- a row
          a[{ { 2, 3 }, { 2, -1, 2 } }] = v1 -- a strided block
          check_equal(a:totable(), { { v1, v1, v1, v1 }, { v2, v1, v1, v1 },
                                     { v2, v1, zero, v1 } })
          local r = a[{ { 3, 1, -1 }, { -1, 1, -3 } }] -- rows reversed, columns 4 and 1
          r[{}] = zero
          check_equal(a:totable(), { { zero, v1, v1, zero }, { zero, v1, v1, zero },
                                     { zero, v1, zero, zero } })
          local v = xp.zeros(4, dt)
          v[2] = v1
          v[-1] = v2
          check_equal(v:totable(), { zero, v1, zero, v2 })
        end)
      end

      b.it("converts scalar values with the casting rules", function()
        local a = xp.zeros(6, "int8")
        a[1] = 2.9
        a[2] = -2.9
        a[3] = 1000.0
        a[4] = 0 / 0
        a[5] = -128
        a[6] = true
        H.raises("ValueError", function() a[5] = 300 end) -- integers must fit
        check_equal(a:totable(), { 2, -2, 127, 0, -128, 1 })
        local u = xp.zeros(3, "uint16")
        u[1] = -1.5
        u[2] = 65535
        u[3] = 1e6
        H.raises("ValueError", function() u[2] = -1 end)
        check_equal(u:totable(), { 0, 65535, 65535 })
        local f = xp.zeros(3, "float32")
        f[1] = 0.1
        f[2] = 16777217
        f[3] = true
        check_equal(f:totable(), { (string.unpack("<f", string.pack("<f", 0.1))), 16777216.0, 1.0 })
        local bo = xp.zeros(4, "bool")
        bo[1] = 2
        bo[2] = 0.0
        bo[3] = 0 / 0
        bo[4] = -0.5
        check_equal(bo:totable(), { true, false, true, true })
      end)

      b.it("broadcasts tables: a row, a column, nested tables, an element", function()
        local a = xp.zeros({ 3, 4 }, "int32")
        a[{}] = { 1, 2, 3, 4 }
        check_equal(a:totable(), { { 1, 2, 3, 4 }, { 1, 2, 3, 4 }, { 1, 2, 3, 4 } })
        a[{ {}, {} }] = { { 10 }, { 20 }, { 30 } }
        check_equal(a:totable(), { { 10, 10, 10, 10 }, { 20, 20, 20, 20 }, { 30, 30, 30, 30 } })
        a[2] = { { 1, 1, 1, 1 } } -- extra leading extent-1 axes are allowed, as in NumPy
        check_equal(a[2]:totable(), { 1, 1, 1, 1 })
        a[{ 2, 3 }] = { { { 4 } } }
        check_equal(a[2]:totable(), { 1, 1, 4, 1 })
        a[2] = { 5, 6, 7, 8 }
        a[{ { 1, 3, 2 }, { 2, 3 } }] = { { -1, -2 }, { -3, -4 } }
        check_equal(a:totable(), { { 10, -1, -2, 10 }, { 5, 6, 7, 8 }, { 30, -3, -4, 30 } })
        a[{ 3, { -1, 1, -1 } }] = { 1, 2, 3, 4 } -- into a reversed row
        check_equal(a[3]:totable(), { 4, 3, 2, 1 })
        a[{ { 1 }, {} }] = { { 0.5, 1.5, 2.5, 3.5 } } -- floats into int32 truncate
        check_equal(a[1]:totable(), { 0, 1, 2, 3 })
        local t = xp.zeros({ 2, 2, 2 }, "float64")
        t[{ {}, 1 }] = { { 1, 2 }, { 3, 4 } }
        t[{ {}, 2 }] = { 9 }
        check_equal(t:totable(), { { { 1.0, 2.0 }, { 9.0, 9.0 } }, { { 3.0, 4.0 }, { 9.0, 9.0 } } })
      end)

      b.it("broadcasts arrays of the same placement", function()
        local a = xp.zeros({ 3, 4 }, "float32")
        a[{}] = xp.arange(4)
        check_equal(a:totable(), { { 0.0, 1.0, 2.0, 3.0 }, { 0.0, 1.0, 2.0, 3.0 },
                                   { 0.0, 1.0, 2.0, 3.0 } })
        a[{ {}, { 1, 2 } }] = xp.array({ { 7 }, { 8 }, { 9 } }, "int8")
        check_equal(a:totable(), { { 7.0, 7.0, 2.0, 3.0 }, { 8.0, 8.0, 2.0, 3.0 },
                                   { 9.0, 9.0, 2.0, 3.0 } })
        a[{ { -1, 1, -1 }, 4 }] = xp.array({ 1.5, 2.5, 3.5 }, "float64")
        check_equal(a[{ {}, 4 }]:totable(), { 3.5, 2.5, 1.5 })
        a[{ 2, 3 }] = xp.array(-6.0) -- a 0-d array into an element
        a[{ 3, {} }] = xp.array({ { 4, 4, 4, 4 } }, "int16") -- extra leading extent-1 axes, as NumPy
        check_equal(a[3]:totable(), { 4.0, 4.0, 4.0, 4.0 })
        check_equal(a[{ 2, 3 }], -6.0)
        -- a strided source
        local src = xp.arange(8, "float64")[{ { 8, 1, -2 } }] -- 7, 5, 3, 1
        a[1] = src
        check_equal(a[1]:totable(), { 7.0, 5.0, 3.0, 1.0 })
        -- an array may be assigned from a view of itself that overlaps it
        local r = xp.arange(6, "int16")
        r[{ { 2, 6 } }] = r[{ { 1, 5 } }]
        check_equal(r:totable(), { 0, 0, 1, 2, 3, 4 })
        r[{}] = r[{ { -1, 1, -1 } }]
        check_equal(r:totable(), { 4, 3, 2, 1, 0, 0 })
      end)

      b.it("refuses values that do not broadcast and leaves the array intact", function()
        local a, ref = sample(xp, { 3, 4 })
        H.raises("ValueError", function() a[{}] = { 1, 2, 3 } end)
        H.raises("ValueError", function() a[1] = xp.arange(5) end)
        H.raises("ValueError", function() a[{ {}, 1 }] = { { 1 }, { 2 }, { 3 } } end)
        H.raises("ValueError", function() a[{ {}, {} }] = { { 1, 2 }, { 3 } } end)
        H.raises("TypeError", function() a[1] = "seven" end)
        H.raises("ValueError", function() a[{ 1, 1 }] = {} end)
        H.raises("IndexError", function() a[0] = 1 end)
        H.raises("IndexError", function() a[{ 4, 1 }] = 1 end)
        H.raises("TypeError", function() a.dtype = "float32" end)
        check_equal(a:totable(), ref)
      end)

      b.it("assigns into empty and 0-d arrays", function()
        local e = xp.zeros({ 0, 3 })
        e[{}] = 5
        e[{}] = { 1, 2, 3 }
        check_equal(e.shape, { 0, 3 })
        local a, ref = sample(xp, { 2, 2 })
        a[{ { 2, 1 } }] = 7 -- an empty range: nothing changes
        check_equal(a:totable(), ref)
        local z = xp.zeros({}, "int64")
        z[{}] = 42
        check_equal(z:item(), 42)
        z[{}] = xp.array({ 9 })
        check_equal(z:item(), 9)
      end)
    end)
  end
end)
