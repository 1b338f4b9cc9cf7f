-- Misuses of the mask functions (nonzero, where with one or two arguments, flatnonzero,
-- argwhere, the core's mask selection and assignment under a[mask], extract, compress, place,
-- putmask): each raises an error object of its kind with a message that says what was wrong,
-- and leaves every array involved as it was (spec/support/misuse.lua).  `both` runs on host
-- arrays and, #gpu, on device arrays; `mixed` puts host and device arrays in one call (#gpu).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local core = require "cuarr.core"
local misuse = require "spec.support.misuse"

local mask_select, mask_assign = core.mask_select, core.mask_assign

-- a (3,4) float64 with distinct values, a (3,4) mask and a (3,) one, a 0-d array.
local function arrays(xp)
  return { a = xp.arange(1, 13):astype("float64"):reshape({ 3, 4 }),
           m = xp.arange(12):reshape({ 3, 4 }):gt(5), r = xp.array({ true, false, true }),
           s = xp.array(2.5), v = xp.arange(6):astype("float64") }
end
local function freed(xp)
  local t = arrays(xp)
  t.dead = xp.arange(4)
  t.dead:free()
  return t
end

local both = {
  { "nonzero of a 0-d array", "ValueError", match = "0-d",
    misuse = function(t, xp) return xp.nonzero(t.s) end },
  { "where(cond) of a 0-d array", "ValueError", match = "0-d",
    misuse = function(t, xp) return xp.where(t.s) end },
  { "nonzero of a number", "TypeError", match = "array",
    misuse = function(_, xp) return xp.nonzero(3) end },
  { "nonzero of a Lua table", "TypeError", match = "array",
    misuse = function(_, xp) return xp.nonzero({ 1, 0, 1 }) end },
  { "nonzero with an extra argument", "TypeError", match = "at most 1",
    misuse = function(t, xp) return xp.nonzero(t.m, 1) end },
  { "a:nonzero() with an argument", "TypeError", match = "at most 1",
    misuse = function(t) return t.m:nonzero(2) end },
  { "nonzero of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.nonzero(t.dead) end },
  { "where with two arguments", "TypeError", match = "both or neither",
    misuse = function(t, xp) return xp.where(t.m, t.a) end },
  { "flatnonzero with an extra argument", "TypeError", match = "at most 1",
    misuse = function(t, xp) return xp.flatnonzero(t.m, 1) end },
  { "argwhere of a string", "TypeError", match = "array",
    misuse = function(_, xp) return xp.argwhere("x") end },
  { "a mask of the wrong extent", "IndexError", match = "did not match",
    misuse = function(t) return mask_select(t.a, t.v:gt(1)) end },
  { "a mask of the wrong extent along the second axis", "IndexError", match = "axis 2",
    misuse = function(t, xp) return mask_select(t.a, xp.ones({ 3, 5 }, "bool")) end },
  { "a mask with more axes than the array", "IndexError", match = "too many indices",
    misuse = function(t, xp) return mask_select(t.r, xp.ones({ 3, 1 }, "bool")) end },
  { "a masked assignment of a mask of the wrong shape", "IndexError", match = "did not match",
    misuse = function(t, xp) return mask_assign(t.a, xp.ones({ 4 }, "bool"), t.s) end },
  { "a masked assignment of too few values", "ValueError", match = "broadcast",
    misuse = function(t, xp) return mask_assign(t.a, t.m, xp.arange(5)) end },
  { "a masked assignment of too many values", "ValueError", match = "broadcast",
    misuse = function(t, xp) return mask_assign(t.a, t.m, xp.arange(7)) end },
  { "a masked assignment of values with too many axes", "ValueError", match = "broadcast",
    misuse = function(t, xp) return mask_assign(t.a, t.m, xp.zeros({ 2, 6 })) end },
  { "a row mask assigned rows of the wrong length", "ValueError", match = "broadcast",
    misuse = function(t, xp) return mask_assign(t.a, t.r, xp.zeros({ 3 })) end },
  { "a masked assignment of a number (the core takes arrays)", "TypeError", match = "array",
    misuse = function(t) return mask_assign(t.a, t.m, 3) end },
  { "a masked selection from a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return mask_select(t.dead, xp.ones({ 4 }, "bool")) end },
  { "extract from a non-array", "TypeError", match = "argument #2",
    misuse = function(t, xp) return xp.extract(t.m, { 1, 2 }) end },
  { "extract with a string condition", "TypeError", match = "condition",
    misuse = function(t, xp) return xp.extract("yes", t.a) end },
  { "extract with a condition true past the array's end", "IndexError", match = "past",
    misuse = function(t, xp)
      return xp.extract(xp.concatenate({ t.m:ravel(), xp.ones({ 2 }, "bool") }), t.a)
    end },
  { "extract with an extra argument", "TypeError", match = "at most 2",
    misuse = function(t, xp) return xp.extract(t.m, t.a, 1) end },
  { "compress with a 2-D condition", "ValueError", match = "1-d",
    misuse = function(t, xp) return xp.compress(t.m, t.a) end },
  { "compress along axis 3 of a 2-D array", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.compress(t.r, t.a, 3) end },
  { "compress along axis 0 (axes are 1-based)", "IndexError", match = "1-based",
    misuse = function(t, xp) return xp.compress(t.r, t.a, 0) end },
  { "compress along axis -3 of a 2-D array", "IndexError", match = "-3",
    misuse = function(t, xp) return xp.compress(t.r, t.a, -3) end },
  { "compress of a 0-d array along an axis", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.compress(t.r, t.s, 1) end },
  { "compress along a fractional axis", "TypeError", match = "axis",
    misuse = function(t, xp) return xp.compress(t.r, t.a, 1.5) end },
  { "compress with a condition true past the axis's end", "IndexError", match = "past",
    misuse = function(t, xp) return xp.compress({ true, false, false, true }, t.a, 1) end },
  { "compress with an extra argument", "TypeError", match = "at most 3",
    misuse = function(t, xp) return xp.compress(t.r, t.a, 1, 2) end },
  { "place with a mask of another size", "ValueError", match = "same size",
    misuse = function(t, xp) return xp.place(t.a, t.r, 1) end },
  { "place from no values", "ValueError", match = "empty",
    misuse = function(t, xp) return xp.place(t.a, t.m, xp.zeros({ 0 })) end },
  { "place into a non-array", "TypeError", match = "argument #1",
    misuse = function(t, xp) return xp.place({ 1, 2 }, t.r, 1) end },
  { "place with an extra argument", "TypeError", match = "at most 3",
    misuse = function(t, xp) return xp.place(t.a, t.m, 1, 2) end },
  { "putmask with a mask of another size", "ValueError", match = "same size",
    misuse = function(t, xp) return xp.putmask(t.a, t.v:gt(2), 1) end },
  { "putmask from no values", "ValueError", match = "empty",
    misuse = function(t, xp) return xp.putmask(t.a, t.m, xp.zeros({ 0 })) end },
  { "putmask with a string value", "TypeError", match = "values",
    misuse = function(t, xp) return xp.putmask(t.a, t.m, "x") end },
  { "putmask with a function as the mask", "TypeError", match = "mask",
    misuse = function(t, xp) return xp.putmask(t.a, print, 1) end },
}

describe("the mask functions refuse", function()
  misuse.on_backends(H, both, arrays)
end)

-- Host and device arrays in one call.
local function mixed_arrays()
  return { d = cuarr.arange(6):astype("float32"), h = cuarr.cpu.arange(6):gt(2),
           dm = cuarr.arange(6):gt(2), hv = cuarr.cpu.zeros({ 3 }, "float32") }
end
local mixed = {
  { "a device array under a host mask", "ValueError", match = "one place",
    misuse = function(t) return mask_select(t.d, t.h) end },
  { "a device array assigned host values", "ValueError", match = "one place",
    misuse = function(t) return mask_assign(t.d, t.dm, t.hv) end },
  { "a host array under a device mask", "ValueError", match = "one place",
    misuse = function(t) return mask_assign(t.hv:reshape({ 3 }), t.dm[{ { 1, 3 } }], t.hv) end },
  { "place into a device array by a host mask", "ValueError", match = "one place",
    misuse = function(t) return cuarr.place(t.d, t.h, 1) end },
  { "extract from a device array by a host condition", "ValueError", match = "one place",
    misuse = function(t) return cuarr.extract(t.h, t.d) end },
}

describe("the mask functions refuse host and device arrays mixed", function()
  misuse.on_device(H, mixed, mixed_arrays)
end)
