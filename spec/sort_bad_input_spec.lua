-- Misuses of sort, argsort, the methods, partition, argpartition, lexsort, searchsorted and
-- unique: each raises an error object of its kind with a message that says what was wrong, and
-- leaves every array involved as it was (spec/support/misuse.lua) -- a refused in-place sort
-- included.  Run on host arrays and, #gpu, on device arrays; `mixed` puts host and device
-- arrays in one call.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"

-- a (3,4) float32 with distinct values, a sorted (5,) int32, a 0-d array, a (2,5) matrix.
local function arrays(xp)
  return { a = (xp.arange(12) * 7 % 12):astype("float32"):reshape({ 3, 4 }),
           v = xp.array({ 1, 3, 5, 7, 9 }, "int32"), s = xp.array(2.5),
           m = xp.arange(10):reshape({ 2, 5 }), o = xp.array({ 5, 2, 1, 4, 3 }) }
end
local function freed(xp)
  local t = arrays(xp)
  t.dead = xp.arange(4)
  t.dead:free()
  return t
end

local both = {
  -- sort and argsort
  { "sort of a number", "TypeError", match = "array",
    misuse = function(_, xp) return xp.sort(3) end },
  { "sort of a Lua table", "TypeError", match = "array",
    misuse = function(_, xp) return xp.sort({ 3, 1 }) end },
  { "sort along an axis past the end", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.sort(t.a, 3) end },
  { "sort along axis 0", "IndexError", match = "1-based",
    misuse = function(t, xp) return xp.sort(t.a, 0) end },
  { "sort along an axis below -ndim", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.sort(t.a, -3) end },
  { "sort along a fractional axis", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.sort(t.a, 1.5) end },
  { "sort along a string axis", "TypeError", match = "axis",
    misuse = function(t, xp) return xp.sort(t.a, "1") end },
  { "sort along axis true", "TypeError", match = "axis",
    misuse = function(t, xp) return xp.sort(t.a, true) end },
  { "sort of a 0-d array along the last axis", "IndexError", match = "dimension 0",
    misuse = function(t, xp) return xp.sort(t.s) end },
  { "sort with an unknown option", "ValueError", match = "axsi",
    misuse = function(t, xp) return xp.sort(t.a, { axsi = 1 }) end },
  { "sort of an unknown kind", "ValueError", match = "kind",
    misuse = function(t, xp) return xp.sort(t.a, { kind = "bogo" }) end },
  { "sort with a numeric kind", "TypeError", match = "kind",
    misuse = function(t, xp) return xp.sort(t.a, { kind = 3 }) end },
  { "sort with a string for stable", "TypeError", match = "stable",
    misuse = function(t, xp) return xp.sort(t.a, { stable = "yes" }) end },
  { "sort with an axis option of the wrong type", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.sort(t.a, { axis = "last" }) end },
  { "sort with an extra argument", "TypeError", match = "at most 2",
    misuse = function(t, xp) return xp.sort(t.a, 1, 2) end },
  { "sort of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.sort(t.dead) end },
  { "argsort along an axis past the end", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.argsort(t.a, { axis = 5 }) end },
  { "argsort with an unknown option", "ValueError", match = "order",
    misuse = function(t, xp) return xp.argsort(t.a, { order = "x" }) end },
  { "argsort of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.argsort(t.dead, false) end },
  -- the in-place methods leave the array as it was
  { "a:sort(false): no in-place flattened sort", "ValueError", match = "flattened",
    misuse = function(t) return t.a:sort(false) end },
  { "a:sort along an axis past the end", "IndexError", match = "out of bounds",
    misuse = function(t) return t.a:sort(5) end },
  { "a:sort with an extra argument", "TypeError", match = "at most",
    misuse = function(t) return t.a:sort(1, 2) end },
  { "a:sort with an unknown option", "ValueError", match = "kinds",
    misuse = function(t) return t.a:sort({ kinds = "stable" }) end },
  { "a:partition with kth out of range", "ValueError", match = "out of bounds",
    misuse = function(t) return t.a:partition(9) end },
  -- partition and argpartition
  { "partition with kth past the axis", "ValueError", match = "kth(=5)",
    misuse = function(t, xp) return xp.partition(t.a, 5) end },
  { "partition with kth 0", "ValueError", match = "1-based",
    misuse = function(t, xp) return xp.partition(t.a, 0) end },
  { "partition with kth below -n", "ValueError", match = "out of bounds",
    misuse = function(t, xp) return xp.argpartition(t.a, -5) end },
  { "partition with one of several kth out of range", "ValueError", match = "kth(=7)",
    misuse = function(t, xp) return xp.partition(t.a, { 1, 7 }) end },
  { "partition with a string kth", "TypeError", match = "kth",
    misuse = function(t, xp) return xp.partition(t.a, "2") end },
  { "partition with a fractional kth", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.partition(t.a, 1.5) end },
  { "partition with no kth", "ValueError", match = "at least one",
    misuse = function(t, xp) return xp.partition(t.a, {}) end },
  { "partition of an unknown kind", "ValueError", match = "introselect",
    misuse = function(t, xp) return xp.partition(t.a, 1, { kind = "quick" }) end },
  { "partition along an axis past the end", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.argpartition(t.a, 1, 3) end },
  { "partition of an empty axis", "ValueError", match = "out of bounds",
    misuse = function(_, xp) return xp.partition(xp.zeros({ 0 }), 1) end },
  -- lexsort
  { "lexsort of no keys", "ValueError", match = "len > 0",
    misuse = function(_, xp) return xp.lexsort({}) end },
  { "lexsort of keys of different shapes", "ValueError", match = "same shape",
    misuse = function(t, xp) return xp.lexsort({ t.v, t.a }) end },
  { "lexsort of keys of different lengths", "ValueError", match = "same shape",
    misuse = function(t, xp) return xp.lexsort({ t.v, t.v[{ { 1, 4 } }] }) end },
  { "lexsort with a number among the keys", "TypeError", match = "key 2",
    misuse = function(t, xp) return xp.lexsort({ t.v, 3 }) end },
  { "lexsort of a number", "TypeError", match = "table of arrays",
    misuse = function(_, xp) return xp.lexsort(3) end },
  { "lexsort along an axis past the end", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.lexsort({ t.a, t.a }, 3) end },
  { "lexsort with an unknown option", "ValueError", match = "axes",
    misuse = function(t, xp) return xp.lexsort({ t.a }, { axes = 1 }) end },
  { "lexsort of a 0-d array", "ValueError", match = "dimension",
    misuse = function(t, xp) return xp.lexsort(t.s) end },
  { "lexsort with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.lexsort({ t.v }, 1, 1) end },
  -- searchsorted
  { "searchsorted with side 'middle'", "ValueError", match = "middle",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { side = "middle" }) end },
  { "searchsorted with side 'middle' given alone", "ValueError", match = "side",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, "middle") end },
  { "searchsorted with a numeric side", "TypeError", match = "side",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { side = 1 }) end },
  { "searchsorted with an unknown option", "ValueError", match = "sorted",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorted = true }) end },
  { "searchsorted with a sorter of the wrong length", "ValueError", match = "as long as",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorter = xp.arange(1, 5) }) end },
  { "searchsorted with a float sorter", "TypeError", match = "integer dtype",
    misuse = function(t, xp)
      return xp.searchsorted(t.v, 3, { sorter = t.o:astype("float32") })
    end },
  { "searchsorted with a bool sorter", "TypeError", match = "integer dtype",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorter = t.o:gt(2) }) end },
  { "searchsorted with a 0-based sorter", "ValueError", match = "1..5",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorter = t.o - 1 }) end },
  { "searchsorted with a sorter past the end", "ValueError", match = "1..5",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorter = t.o + 1 }) end },
  { "searchsorted with a table for the sorter", "TypeError", match = "sorter",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, { sorter = { 1, 2, 3, 4, 5 } }) end },
  { "searchsorted in a 2-D array", "ValueError", match = "1-dimensional",
    misuse = function(t, xp) return xp.searchsorted(t.m, 3) end },
  { "searchsorted in a number", "TypeError", match = "array",
    misuse = function(_, xp) return xp.searchsorted(3, 3) end },
  { "searchsorted of a string", "TypeError", match = "string",
    misuse = function(t, xp) return xp.searchsorted(t.v, "3") end },
  { "searchsorted with a number for the options", "TypeError", match = "argument #3",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, 1) end },
  { "searchsorted with an extra argument", "TypeError", match = "at most 3",
    misuse = function(t, xp) return xp.searchsorted(t.v, 3, "left", 1) end },
  { "searchsorted in a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.searchsorted(t.dead, 1) end },
  -- unique
  { "unique of a number", "TypeError", match = "array",
    misuse = function(_, xp) return xp.unique(3) end },
  { "unique with an unknown option", "ValueError", match = "return_count",
    misuse = function(t, xp) return xp.unique(t.a, { return_count = true }) end },
  { "unique with a number for a flag", "TypeError", match = "return_counts",
    misuse = function(t, xp) return xp.unique(t.a, { return_counts = 1 }) end },
  { "unique along an axis", "ValueError", match = "flattened",
    misuse = function(t, xp) return xp.unique(t.a, { axis = 1 }) end },
  { "unique with a number for the options", "TypeError", match = "options table",
    misuse = function(t, xp) return xp.unique(t.a, 1) end },
  { "unique with an extra argument", "TypeError", match = "at most 2",
    misuse = function(t, xp) return xp.unique(t.a, {}, 1) end },
  { "unique of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.unique(t.dead) end },
}

describe("the sorting functions refuse", function()
  misuse.on_backends(H, both, arrays)
end)

-- Host and device arrays in one call.
local function mixed_arrays()
  return { d = cuarr.array({ 1, 2, 3 }, "float32"), h = cuarr.cpu.array({ 1, 2, 3 }, "float32"),
           ho = cuarr.cpu.array({ 1, 2, 3 }), dd = cuarr.array({ 1, 2, 3 }) }
end
local mixed = {
  { "lexsort of a host key and a device key", "ValueError", match = "one place",
    misuse = function(t) return cuarr.lexsort({ t.h, t.d }) end },
  { "searchsorted of host values in a device array", "ValueError", match = "one place",
    misuse = function(t) return cuarr.searchsorted(t.d, t.h) end },
  { "searchsorted through a device sorter in a host array", "ValueError", match = "one place",
    misuse = function(t) return cuarr.searchsorted(t.h, 2, { sorter = t.dd }) end },
}

describe("the sorting functions refuse host and device arrays mixed", function()
  misuse.on_device(H, mixed, mixed_arrays)
end)

-- The binding's own functions (the fuzzer calls them too): an axis of any Lua integer is an
-- IndexError, its message computed without overflow (one plus math.maxinteger was signed
-- overflow, which UBSan reports under `make sanitize`).
describe("the sort binding refuses", function()
  local core = require "cuarr.core"
  it("an axis at the ends of the Lua integers", function()
    local a = cuarr.cpu.arange(3)
    for _, ax in ipairs { math.maxinteger, math.mininteger, 32, -2 } do
      H.raises("IndexError", core.sort_rows, a, ax, "sort")
      H.raises("IndexError", core.lexsort_rows, { a }, ax)
    end
  end)
end)
