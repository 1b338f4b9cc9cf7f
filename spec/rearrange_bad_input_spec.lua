-- Misuses of the rearranging functions (tile, repeat, flip, roll, rot90, moveaxis, rollaxis,
-- broadcast_to, broadcast_arrays, atleast_*, pad, diag, diagflat, tril, triu, meshgrid,
-- indices), each with its error kind and a message that says what was wrong, every array
-- involved left as it was (spec/support/misuse.lua).  Host arrays, and device arrays (#gpu).
--
-- A case: { name, kind, match = text the message must contain, misuse = function(t, xp) }
-- with t = { a = a (2,3) int32 array, v = a (4,) float32 one, s = a 0-d one }.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"

local function setup(xp)
  return { a = xp.arange(1, 7, 1, "int32"):reshape(2, 3), v = xp.arange(4, 0, -1, "float32"),
           s = xp.array(2.5), e = xp.zeros({ 0, 3 }) }
end

local cases = {
  -- pad
  { "pad with an unknown mode", "ValueError", match = "mode 'mean'",
    misuse = function(t, xp) return xp.pad(t.a, 1, "mean") end },
  { "pad with an unknown mode in the options", "ValueError", match = "not supported",
    misuse = function(t, xp) return xp.pad(t.a, 1, { mode = "linear_ramp" }) end },
  { "pad with a mode that is not a string", "TypeError", match = "mode",
    misuse = function(t, xp) return xp.pad(t.a, 1, { mode = 3 }) end },
  { "pad with a negative width", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.pad(t.a, -1) end },
  { "pad with a negative width in a pair", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.pad(t.a, { { 1, 2 }, { 0, -3 } }) end },
  { "pad with a fractional width", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.pad(t.a, 1.5) end },
  { "pad with a string width", "TypeError", match = "pad_width",
    misuse = function(t, xp) return xp.pad(t.a, "2") end },
  { "pad with no width", "TypeError", match = "pad_width",
    misuse = function(t, xp) return xp.pad(t.a) end },
  { "pad with three numbers", "ValueError", match = "broadcast",
    misuse = function(t, xp) return xp.pad(t.a, { 1, 2, 3 }) end },
  { "pad with pairs for the wrong number of axes", "ValueError", match = "pairs",
    misuse = function(t, xp) return xp.pad(t.a, { { 1, 1 }, { 1, 1 }, { 1, 1 } }) end },
  { "pad with a pair of three", "ValueError", match = "1 or 2",
    misuse = function(t, xp) return xp.pad(t.a, { { 1, 1, 1 }, { 1, 1 } }) end },
  { "pad with constant_values for mode edge", "ValueError", match = "constant_values",
    misuse = function(t, xp) return xp.pad(t.a, 1, { mode = "edge", constant_values = 3 }) end },
  { "pad with a string constant", "TypeError", match = "constant_values",
    misuse = function(t, xp) return xp.pad(t.a, 1, { constant_values = "x" }) end },
  { "pad with an unknown option", "ValueError", match = "reflect_type",
    misuse = function(t, xp)
      return xp.pad(t.a, 1, { mode = "reflect", reflect_type = "odd" })
    end },
  { "pad extending an empty axis with reflect", "ValueError", match = "empty axis",
    misuse = function(t, xp) return xp.pad(t.e, 1, "reflect") end },
  { "pad with a number as options", "TypeError", match = "argument #3",
    misuse = function(t, xp) return xp.pad(t.a, 1, 5) end },
  { "pad with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.pad(t.a, 1, "edge", 1) end },
  { "pad of a table", "TypeError", match = "argument #1",
    misuse = function(_, xp) return xp.pad({ 1, 2 }, 1) end },
  -- axes
  { "flip along an axis out of range", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.flip(t.a, 3) end },
  { "flip along axis 0", "IndexError", match = "1-based",
    misuse = function(t, xp) return xp.flip(t.a, 0) end },
  { "flip along a repeated axis", "ValueError", match = "repeated",
    misuse = function(t, xp) return xp.flip(t.a, { 1, -2 }) end },
  { "flip along a fractional axis", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.flip(t.a, 1.5) end },
  { "fliplr of a 1-D array", "ValueError", match = "2-D",
    misuse = function(t, xp) return xp.fliplr(t.v) end },
  { "flipud of a 0-d array", "ValueError", match = "1-D",
    misuse = function(t, xp) return xp.flipud(t.s) end },
  { "flip with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.flip(t.a, 1, 2) end },
  { "moveaxis with a repeated source axis", "ValueError", match = "repeated",
    misuse = function(t, xp) return xp.moveaxis(t.a, { 1, 1 }, { 1, 2 }) end },
  { "moveaxis with a repeated destination axis", "ValueError", match = "repeated",
    misuse = function(t, xp) return xp.moveaxis(t.a, { 1, 2 }, { 2, -1 }) end },
  { "moveaxis with lists of different lengths", "ValueError", match = "same number",
    misuse = function(t, xp) return xp.moveaxis(t.a, { 1, 2 }, { 2 }) end },
  { "moveaxis to an axis out of range", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.moveaxis(t.a, 1, 3) end },
  { "moveaxis without a destination", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.moveaxis(t.a, 1) end },
  { "rollaxis with start out of range", "IndexError", match = "start",
    misuse = function(t, xp) return xp.rollaxis(t.a, 1, 4) end },
  { "rollaxis with start 0", "IndexError", match = "start",
    misuse = function(t, xp) return xp.rollaxis(t.a, 1, 0) end },
  { "rot90 of a 1-D array", "ValueError", match = "2-D",
    misuse = function(t, xp) return xp.rot90(t.v) end },
  { "rot90 over equal axes", "ValueError", match = "different",
    misuse = function(t, xp) return xp.rot90(t.a, 1, { 1, -2 }) end },
  { "rot90 over three axes", "ValueError", match = "len(axes)",
    misuse = function(t, xp) return xp.rot90(t.a, 1, { 1, 2, 1 }) end },
  { "rot90 with a fractional k", "TypeError", match = "k",
    misuse = function(t, xp) return xp.rot90(t.a, 0.5) end },
  { "roll along an axis out of range", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.roll(t.a, 1, 3) end },
  { "roll with shifts and axes of different lengths", "ValueError", match = "same length",
    misuse = function(t, xp) return xp.roll(t.a, { 1, 2, 3 }, { 1, 2 }) end },
  { "roll by a fractional shift", "TypeError", match = "shift",
    misuse = function(t, xp) return xp.roll(t.a, 1.5) end },
  { "roll with no shift", "TypeError", match = "shift",
    misuse = function(t, xp) return xp.roll(t.a) end },
  -- broadcasting
  { "broadcast_to an incompatible shape", "ValueError", match = "broadcast",
    misuse = function(t, xp) return xp.broadcast_to(t.a, { 2, 4 }) end },
  { "broadcast_to fewer dimensions", "ValueError", match = "broadcast",
    misuse = function(t, xp) return xp.broadcast_to(t.a, { 3 }) end },
  { "broadcast_to a negative extent", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.broadcast_to(t.v, { -1, 4 }) end },
  { "broadcast_to a shape of more than 2^63 bytes", "ValueError", match = "too big",
    misuse = function(t, xp) return xp.broadcast_to(t.a, { 2 ^ 40, 2 ^ 40, 2, 3 }) end },
  { "pad to an axis longer than an integer holds", "ValueError", match = "too long",
    misuse = function(t, xp) return xp.pad(t.a, { 1, math.maxinteger }) end },
  { "tile with more than 32 reps", "ValueError", match = "at most 32",
    misuse = function(t, xp)
      local reps = {}
      for i = 1, 33 do reps[i] = 1 end
      return xp.tile(t.a, reps)
    end },
  { "broadcast_to without a shape", "TypeError", match = "shape",
    misuse = function(t, xp) return xp.broadcast_to(t.v) end },
  { "broadcast_to with an extra argument", "TypeError",
    misuse = function(t, xp) return xp.broadcast_to(t.v, { 4 }, 1) end },
  { "broadcast_arrays of incompatible shapes", "ValueError", match = "shape mismatch",
    misuse = function(t, xp) return xp.broadcast_arrays(t.a, t.v) end },
  { "broadcast_arrays of a number", "TypeError", match = "argument #2",
    misuse = function(t, xp) return xp.broadcast_arrays(t.a, 3) end },
  { "atleast_2d of a table", "TypeError", match = "argument #2",
    misuse = function(t, xp) return xp.atleast_2d(t.a, { 1 }) end },
  -- tile and repeat
  { "tile with fractional reps", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.tile(t.a, { 2, 1.5 }) end },
  { "tile with negative reps", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.tile(t.a, -1) end },
  { "tile with string reps", "TypeError", match = "reps",
    misuse = function(t, xp) return xp.tile(t.a, "2") end },
  { "tile with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.tile(t.a, 2, 2) end },
  { "repeat a negative number of times", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.repeat_(t.a, -1) end },
  { "repeat with a negative count", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.repeat_(t.a, { 1, -1 }, 1) end },
  { "repeat with counts of the wrong length", "ValueError", match = "counts",
    misuse = function(t, xp) return xp.repeat_(t.a, { 1, 2 }, 2) end },
  -- (Counts whose result cannot be allocated are not spec'd here: where the host overcommits
  -- memory, as the GPU machines do, a host array of terabytes is granted and then filled until
  -- the process is killed, as NumPy's would be.)
  { "repeat with counts that sum past 2^63 - 1", "ValueError", match = "too big",
    misuse = function(t, xp) return xp.repeat_(t.a, { 1 << 62, 1 << 62 }, 1) end },
  { "repeat with fractional counts", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.repeat_(t.a, { 1.5, 1 }, 1) end },
  { "repeat with an array of counts of 2-D", "ValueError", match = "1-D",
    misuse = function(t, xp) return xp["repeat"](t.v, t.a) end },
  { "repeat by a string", "TypeError", match = "repeats",
    misuse = function(t, xp) return xp.repeat_(t.a, "2") end },
  { "repeat along an axis out of range", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.repeat_(t.a, 2, 3) end },
  { "repeat of a 0-d array along axis 1", "IndexError", match = "out of bounds",
    misuse = function(t, xp) return xp.repeat_(t.s, 2, 1) end },
  { "the repeat method with an extra argument", "TypeError", match = "at most",
    misuse = function(t) return t.a:repeat_(2, 1, 1) end },
  -- diagonals and triangles
  { "diag of a 3-D array", "ValueError", match = "1- or 2-d",
    misuse = function(_, xp) return xp.diag(xp.zeros({ 2, 2, 2 })) end },
  { "diag with a fractional k", "TypeError", match = "k",
    misuse = function(t, xp) return xp.diag(t.v, 1.5) end },
  { "diagflat of a number", "TypeError", match = "argument #1",
    misuse = function(_, xp) return xp.diagflat(3) end },
  { "tril of a 0-d array", "ValueError", match = "1-D",
    misuse = function(t, xp) return xp.tril(t.s) end },
  { "triu with a string k", "TypeError", match = "k",
    misuse = function(t, xp) return xp.triu(t.a, "1") end },
  -- grids
  { "meshgrid with a bad indexing", "ValueError", match = "indexing",
    misuse = function(t, xp) return xp.meshgrid(t.v, t.v, { indexing = "yx" }) end },
  { "meshgrid with an unknown option", "ValueError", match = "order",
    misuse = function(t, xp) return xp.meshgrid(t.v, { order = "C" }) end },
  { "meshgrid with a non-boolean sparse", "TypeError", match = "sparse",
    misuse = function(t, xp) return xp.meshgrid(t.v, { sparse = 1 }) end },
  { "meshgrid of a number", "TypeError", match = "argument #2",
    misuse = function(t, xp) return xp.meshgrid(t.v, 5) end },
  { "indices with a negative dimension", "ValueError", match = "negative",
    misuse = function(_, xp) return xp.indices({ 2, -1 }) end },
  { "indices of a number", "TypeError", match = "dimensions",
    misuse = function(_, xp) return xp.indices(3) end },
  { "indices with an unknown option", "ValueError", match = "copy",
    misuse = function(_, xp) return xp.indices({ 2 }, { copy = true }) end },
  { "indices with an unknown dtype", "TypeError",
    misuse = function(_, xp) return xp.indices({ 2 }, "float128") end },
  { "indices with an extra argument", "TypeError", match = "at most",
    misuse = function(_, xp) return xp.indices({ 2 }, "int32", {}, 1) end },
}

describe("the rearranging functions refuse", function()
  misuse.on_backends(H, cases, setup)

  it("at least 25 misuses", function() assert.is_true(#cases >= 25) end)

  H.gpu_it("host and device arrays mixed", function()
    local d, h = cuarr.arange(3), cuarr.cpu.arange(3)
    H.raises("ValueError", cuarr.meshgrid, d, h)
    H.raises("ValueError", cuarr.cpu.meshgrid, h, d, { sparse = true })
    H.raises("ValueError", cuarr.broadcast_arrays, d, h)
  end)
end)
