-- Misuses of indexing with arrays and of take, put, take_along_axis, put_along_axis, choose and
-- select, each with its error kind and leaving every array unchanged (spec/support/misuse.lua):
-- float index arrays, out-of-range indices and index 0 (checked on the device: an assignment
-- checks every index before it writes), masks of the wrong shape, too many indices, index arrays
-- that do not broadcast, values that do not broadcast, bad modes and options, extra arguments;
-- #gpu: the same on device arrays, and host/device mixing.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"
local cpu = cuarr.cpu

-- Arrays where xp makes them; index arrays from host tables copied there.
local function arr(xp, t, dtype)
  local h = cpu.array(t, dtype)
  if xp == cpu then return h end
  return cuarr.asarray(h)
end

local function setup(xp)
  return {
    a = arr(xp, { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } }, "float32"),
    v = arr(xp, { 10, 20, 30, 40, 50 }, "int32"),
    i = arr(xp, { 1, 3 }, "int64"),
  }
end

local cases = {
  { "a float index array", "IndexError", "integer",
    function(t, xp) return t.a[arr(xp, { 1.0, 2.0 })] end },
  { "a float16 index array in a table", "IndexError", "integer",
    function(t, xp) return t.a[{ {}, arr(xp, { 1, 2 }, "float16") }] end },
  { "an index past the end (checked on the device)", "IndexError", "out of bounds",
    function(t, xp) return t.v[arr(xp, { 1, 6, 2 })] end },
  { "an index before the start", "IndexError", "out of bounds",
    function(t, xp) return t.a[{ {}, arr(xp, { -5 }) }] end },
  { "index 0 in an index array", "IndexError", "start at 1",
    function(t, xp) return t.v[arr(xp, { 2, 0 })] end },
  { "index 0 in a uint8 index array", "IndexError", "start at 1",
    function(t, xp) return t.v[arr(xp, { 0 }, "uint8")] end },
  { "a uint64 index beyond int64", "IndexError", "out of bounds",
    function(t, xp) return t.v[arr(xp, { -1 }, "int64"):astype("uint64")] end },
  { "a mask of the wrong shape", "IndexError", nil,
    function(t, xp) return t.a[arr(xp, { true, false })] end },
  { "a mask of the wrong shape inside a table", "IndexError", "boolean index did not match",
    function(t, xp) return t.a[{ {}, arr(xp, { true, false }) }] end },
  { "a 0-d mask inside a table", "IndexError", "0-d boolean",
    function(t, xp) return t.a[{ arr(xp, true), {} }] end },
  { "too many index arrays", "IndexError", "too many indices",
    function(t, xp) return t.v[{ t.i, t.i }] end },
  { "too many entries beside an index array", "IndexError", "too many indices",
    function(t, xp) return t.a[{ t.i, 1, 2 }] end },
  { "index arrays that do not broadcast", "IndexError", "shape mismatch",
    function(t, xp) return t.a[{ t.i, arr(xp, { 1, 2, 3 }) }] end },
  { "a string entry beside an index array", "TypeError", "index entry 2",
    function(t) return t.a[{ t.i, "x" }] end },
  { "assigned values that do not broadcast", "ValueError", "could not broadcast",
    function(t, xp) t.a[{ t.i }] = arr(xp, { 1, 2, 3 }) end },
  { "an assignment with an index past the end (nothing written)", "IndexError", "out of bounds",
    function(t, xp) t.v[arr(xp, { 1, 2, 9 })] = 0 end },
  { "an assignment with index 0 (nothing written)", "IndexError", "start at 1",
    function(t, xp) t.a[{ arr(xp, { 1, 0 }), {} }] = -1 end },
  { "an assignment of a string", "TypeError", "can be set to",
    function(t) t.v[t.i] = "x" end },
  { "an assignment through a float index", "IndexError", "integer",
    function(t, xp) t.v[arr(xp, { 1.5 })] = 1 end },
  { "take with a bad mode", "ValueError", "mode",
    function(t, xp) return xp.take(t.v, t.i, 1, { mode = "wrapped" }) end },
  { "take with a mode that is no string", "TypeError", "mode",
    function(t, xp) return xp.take(t.v, t.i, 1, { mode = 1 }) end },
  { "take with an unknown option", "ValueError", "axes",
    function(t, xp) return xp.take(t.v, t.i, 1, { axes = 1 }) end },
  { "take along an axis past the end", "IndexError", "out of bounds",
    function(t, xp) return xp.take(t.a, t.i, 3) end },
  { "take along axis 0", "IndexError", "out of bounds",
    function(t, xp) return xp.take(t.a, t.i, 0) end },
  { "take with an extra argument", "TypeError", "at most",
    function(t, xp) return xp.take(t.v, t.i, 1, nil, 5) end },
  { "take with string indices", "TypeError", "indices",
    function(t, xp) return xp.take(t.v, "1") end },
  { "take with a table of floats", "TypeError", "integer",
    function(t, xp) return xp.take(t.v, { 1.5 }) end },
  { "take with an index past the end", "IndexError", "out of bounds",
    function(t, xp) return xp.take(t.v, { 6 }) end },
  { "take into an out of the wrong shape", "ValueError", "shape",
    function(t, xp) return xp.take(t.v, t.i, 1, { out = xp.zeros({ 3 }, "int32") }) end },
  { "take into an out that is no array", "TypeError", "out",
    function(t, xp) return xp.take(t.v, t.i, 1, { out = {} }) end },
  { "take of elements from an empty axis in wrap mode", "IndexError", "empty axis",
    function(t, xp) return xp.take(xp.zeros({ 2, 0 }), { 1 }, 2, { mode = "wrap" }) end },
  { "put with a bad mode", "ValueError", "mode",
    function(t, xp) xp.put(t.v, t.i, 1, "nowhere") end },
  { "put with an index past the end (nothing written)", "IndexError", "out of bounds",
    function(t, xp) xp.put(t.v, { 1, 2, 6 }, { 7, 8, 9 }) end },
  { "put with an extra argument", "TypeError", "at most",
    function(t, xp) xp.put(t.v, t.i, 1, "raise", 2) end },
  { "put without values", "TypeError", "values",
    function(t, xp) xp.put(t.v, t.i) end },
  { "take_along_axis with indices of another ndim", "ValueError", "same number of dimensions",
    function(t, xp) return xp.take_along_axis(t.a, t.i, 1) end },
  { "take_along_axis with a table of indices", "TypeError", "indices",
    function(t, xp) return xp.take_along_axis(t.a, { { 1 } }, 1) end },
  { "put_along_axis of values that do not broadcast", "ValueError", "could not broadcast",
    function(t, xp)
      xp.put_along_axis(t.a, arr(xp, { { 1 }, { 2 }, { 1 } }), arr(xp, { 1, 2 }), 2)
    end },
  { "choose with an index past the choices", "IndexError", "out of bounds",
    function(t, xp) return xp.choose(arr(xp, { 1, 3 }), { t.i, t.i }) end },
  { "choose with choices that are no table", "TypeError", "choices",
    function(t, xp) return xp.choose(t.i, "x") end },
  { "choose with a bad mode", "ValueError", "mode",
    function(t, xp) return xp.choose(t.i, { t.i, t.i }, { mode = "x" }) end },
  { "select with lists of different lengths", "ValueError", "same length",
    function(t, xp) return xp.select({ t.v:gt(1) }, { t.v, t.v }) end },
  { "select with a condition that is not boolean", "TypeError", "boolean",
    function(t, xp) return xp.select({ t.v }, { t.v }) end },
  { "an index array that was freed", "ValueError", "freed",
    function(t, xp)
      local x = arr(xp, { 1 })
      x:free()
      return t.v[x]
    end },
}

for _, b in ipairs(H.backends) do
  for _, c in ipairs(cases) do
    b.it(c[1] .. " is a " .. c[2], function()
      misuse.run(H, { kind = c[2], match = c[3], setup = setup, misuse = c[4] }, b.xp)
    end)
  end
end

H.gpu_it("a device index array for a host array is a ValueError", function()
  misuse.run(H, {
    kind = "ValueError", match = "device array",
    setup = function() return { h = cpu.arange(5), d = cuarr.array({ 1, 2 }) } end,
    misuse = function(t) return t.h[t.d] end,
  }, cuarr)
end)

H.gpu_it("take of a host array with device indices is a ValueError", function()
  misuse.run(H, {
    kind = "ValueError", match = "device array",
    setup = function() return { h = cpu.arange(5), d = cuarr.array({ 1, 2 }) } end,
    misuse = function(t) return cuarr.take(t.h, t.d) end,
  }, cuarr)
end)

H.gpu_it("an out-of-range index in a large device gather is found wherever it is", function()
  misuse.run(H, {
    kind = "IndexError", match = "index 1000001 is out of bounds",
    setup = function()
      local idx = cuarr.arange(1, 1000001)
      idx[-7] = 1000001
      return { a = cuarr.zeros({ 1000000 }, "float32"), idx = idx }
    end,
    misuse = function(t) t.a[t.idx] = 1 end,
  }, cuarr)
end)
