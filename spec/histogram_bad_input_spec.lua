-- Misuses of the counting and set functions (bincount, histogram, histogram_bin_edges,
-- digitize, isin, in1d, intersect1d, union1d, setdiff1d, setxor1d), each with its error kind
-- and a message that says what was wrong, every array involved left as it was
-- (spec/support/misuse.lua).  Host arrays, and device arrays (#gpu).
--
-- A case: { name, kind, match = text the message must contain, misuse = function(t, xp) }
-- with t = { i = int64 {1, 3, 0, 3}, neg = int32 {2, -1, 4}, f = float64 {0.5, 2, 1.5, 4},
-- m = int32 2x2, w3 = float64 of 3, e = edges that go down, u = uint64 {1, 2}, s = 0-d int64 }.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"

local function setup(xp)
  return { i = xp.array({ 1, 3, 0, 3 }), neg = xp.array({ 2, -1, 4 }):astype("int32"),
           f = xp.array({ 0.5, 2.0, 1.5, 4.0 }), m = xp.array({ { 1, 2 }, { 3, 4 } }, "int32"),
           w3 = xp.array({ 1.0, 2.0, 3.0 }), e = xp.array({ 0.0, 2.0, 1.0, 3.0 }),
           u = xp.array({ 1, 2 }):astype("uint64"), s = xp.array(3) }
end

local cases = {
  -- bincount
  { "bincount of negative values", "ValueError", match = "negative",
    misuse = function(t, xp) return xp.bincount(t.neg) end },
  { "bincount of floats", "TypeError", match = "float64",
    misuse = function(t, xp) return xp.bincount(t.f) end },
  { "bincount of uint64 (no safe cast to int64)", "TypeError", match = "uint64",
    misuse = function(t, xp) return xp.bincount(t.u) end },
  { "bincount of a 2-D array", "ValueError", match = "too deep",
    misuse = function(t, xp) return xp.bincount(t.m) end },
  { "bincount of a 0-d array", "ValueError", match = "too small depth",
    misuse = function(t, xp) return xp.bincount(t.s) end },
  { "bincount with weights of the wrong length", "ValueError", match = "same length",
    misuse = function(t, xp) return xp.bincount(t.i, { weights = t.w3 }) end },
  { "bincount with a negative minlength", "ValueError", match = "minlength",
    misuse = function(t, xp) return xp.bincount(t.i, { minlength = -1 }) end },
  { "bincount with a fractional minlength", "TypeError", match = "minlength",
    misuse = function(t, xp) return xp.bincount(t.i, { minlength = 2.5 }) end },
  { "bincount with an unknown option", "ValueError", match = "minlenght",
    misuse = function(t, xp) return xp.bincount(t.i, { minlenght = 3 }) end },
  { "bincount with options that are not a table", "TypeError", match = "options",
    misuse = function(t, xp) return xp.bincount(t.i, 3) end },
  { "bincount with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.bincount(t.i, {}, 1) end },
  { "bincount of a string", "TypeError", match = "string",
    misuse = function(_, xp) return xp.bincount("abc") end },
  -- histogram
  { "histogram with bins = 0", "ValueError", match = "positive",
    misuse = function(t, xp) return xp.histogram(t.f, 0) end },
  { "histogram with negative bins", "ValueError", match = "positive",
    misuse = function(t, xp) return xp.histogram(t.f, -3) end },
  { "histogram with fractional bins", "TypeError", match = "integer",
    misuse = function(t, xp) return xp.histogram(t.f, 2.5) end },
  { "histogram with edges that decrease", "ValueError", match = "monotonically",
    misuse = function(t, xp) return xp.histogram(t.f, t.e) end },
  { "histogram with 2-D edges", "ValueError", match = "1d",
    misuse = function(t, xp) return xp.histogram(t.f, t.m) end },
  { "histogram with a range lo > hi", "ValueError", match = "larger than min",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { range = { 3, 1 } }) end },
  { "histogram with a NaN range", "ValueError", match = "not finite",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { range = { 0, 0 / 0 } }) end },
  { "histogram with an infinite range", "ValueError", match = "not finite",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { range = { 0, math.huge } }) end },
  { "histogram of NaN without a range", "ValueError", match = "autodetected range",
    misuse = function(_, xp) return xp.histogram(xp.array({ 1.0, 0 / 0 }), 4) end },
  { "histogram with a range of one number", "TypeError", match = "range",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { range = { 1 } }) end },
  { "histogram with weights of the wrong shape", "ValueError", match = "same shape",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { weights = t.w3 }) end },
  { "histogram with an unknown option", "ValueError", match = "normed",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { normed = true }) end },
  { "histogram with a non-boolean density", "TypeError", match = "density",
    misuse = function(t, xp) return xp.histogram(t.f, 4, { density = 1 }) end },
  { "histogram with a bin estimator name", "ValueError", match = "auto",
    misuse = function(t, xp) return xp.histogram(t.f, "auto") end },
  { "histogram with bins of a wrong type", "TypeError", match = "bins",
    misuse = function(t, xp) return xp.histogram(t.f, true) end },
  { "histogram with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.histogram(t.f, 4, {}, 1) end },
  { "histogram_bin_edges with bins = 0", "ValueError", match = "positive",
    misuse = function(t, xp) return xp.histogram_bin_edges(t.f, 0) end },
  -- digitize
  { "digitize with bins neither increasing nor decreasing", "ValueError",
    match = "monotonically", misuse = function(t, xp) return xp.digitize(t.f, t.e) end },
  { "digitize with 2-D bins", "ValueError", match = "too deep",
    misuse = function(t, xp) return xp.digitize(t.f, t.m) end },
  { "digitize with a non-boolean right", "TypeError", match = "right",
    misuse = function(t, xp) return xp.digitize(t.f, t.w3, 1) end },
  { "digitize with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.digitize(t.f, t.w3, false, 1) end },
  -- sets
  { "isin with an unknown option", "ValueError", match = "inverted",
    misuse = function(t, xp) return xp.isin(t.i, t.f, { inverted = true }) end },
  { "isin with a non-boolean invert", "TypeError", match = "invert",
    misuse = function(t, xp) return xp.isin(t.i, t.f, { invert = 1 }) end },
  { "isin with a string operand", "TypeError", match = "string",
    misuse = function(t, xp) return xp.isin(t.i, "x") end },
  { "in1d with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.in1d(t.i, t.f, {}, 1) end },
  { "intersect1d with an unknown option", "ValueError", match = "return_indexes",
    misuse = function(t, xp) return xp.intersect1d(t.i, t.f, { return_indexes = true }) end },
  { "union1d with an extra argument", "TypeError", match = "at most",
    misuse = function(t, xp) return xp.union1d(t.i, t.f, {}) end },
  { "setdiff1d with options that are not a table", "TypeError", match = "options",
    misuse = function(t, xp) return xp.setdiff1d(t.i, t.f, true) end },
  { "setxor1d with a non-boolean assume_unique", "TypeError", match = "assume_unique",
    misuse = function(t, xp) return xp.setxor1d(t.i, t.f, { assume_unique = "yes" }) end },
}

describe("the counting and set functions refuse", function()
  misuse.on_backends(H, cases, setup)

  it("at least 15 misuses", function() assert.is_true(#cases >= 15) end)

  H.gpu_it("host and device arrays mixed", function()
    local d, h = cuarr.arange(3), cuarr.cpu.arange(3)
    H.raises("ValueError", cuarr.bincount, d, { weights = h:astype("float64") })
    H.raises("ValueError", cuarr.histogram, d, h)
    H.raises("ValueError", cuarr.digitize, d, h)
    H.raises("ValueError", cuarr.isin, d, h)
    H.raises("ValueError", cuarr.intersect1d, h, d)
  end)
end)

-- The binding's bin_count (the fuzzer calls it too): a count of bins of any Lua integer is a
-- cuarr error; the edges' length is checked without computing nbins + 1 (signed overflow at
-- math.maxinteger, which UBSan reports under `make sanitize`).
describe("the counting binding refuses", function()
  local core = require "cuarr.core"
  it("a count of bins at the end of the Lua integers", function()
    local x, e = cuarr.cpu.array({ 0.5, 1.5 }), cuarr.cpu.array({ 0.0, 1.0, 2.0 })
    for _, rule in ipairs { "edges", "uniform" } do
      H.raises("ValueError", core.bin_count, x, rule, math.maxinteger, e, 0, 2)
    end
    H.raises("ValueError", core.bin_count, cuarr.cpu.array({ 1, 2 }), "value", math.maxinteger)
  end)
end)
