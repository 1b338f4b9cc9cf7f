-- Hostile Lua tables given to the Lua front ends of the joins, rearranging, pad, take, sort and
-- histogram (the fuzzer's findings): a table of data (arrays, axes, counts, split points, pad
-- widths, indices, a range) is read raw, so that a __len that returns an odd value (a string, a
-- float, NaN, a huge or negative count) or raises, and an __index that raises or changes its
-- answers, neither decide what the call sees nor turn into a plain Lua error: the call gives
-- what the same plain table gives.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

local HOSTILE = setmetatable({}, { __tostring = function() return "the table's own error" end })

-- The odd answers of __len the fuzzer gives.
local LENS = { "x", 0.5, 0 / 0, 1 << 62, -1, math.huge, function() error(HOSTILE) end }

-- t (a plain sequence) with a metatable whose __len answers `len` (or raises, for a function)
-- and whose __index raises: any read not done raw shows.
local function hostile(t, len)
  return setmetatable(t, {
    __len = function()
      if type(len) == "function" then return len() end
      return len
    end,
    __index = function() error(HOSTILE) end,
  })
end

-- The results of f(make) and f(plain) agree, where make(t) wraps each data table.
local function same(f)
  local want = { f(function(t) return t end) }
  for _, len in ipairs(LENS) do
    local got = { pcall(f, function(t) return hostile(t, len) end) }
    assert(got[1], "__len " .. tostring(len) .. ": " .. tostring(got[2]))
    assert.are.equal(#want, #got - 1)
    for i, w in ipairs(want) do
      local g = got[i + 1]
      if type(w) == "table" and getmetatable(w) ~= getmetatable(cpu.zeros(1)) then
        assert.are.equal(#w, #g)
        for k = 1, #w do assert.are.same(w[k]:totable(), g[k]:totable()) end
      elseif type(w) == "userdata" or getmetatable(w) == getmetatable(cpu.zeros(1)) then
        assert.are.same(w.shape, g.shape)
        assert.are.same(cpu.asarray(w):totable(), cpu.asarray(g):totable())
      else
        assert.are.same(w, g)
      end
    end
  end
end

local a = cpu.arange(1, 7):reshape({ 2, 3 })
local b = cpu.arange(11, 17):reshape({ 2, 3 })
local v = cpu.arange(1, 6)

describe("hostile tables given to the new entry points", function()
  it("column_stack, stack, vstack, hstack, dstack and concatenate's users read the list raw",
    function()
      for _, name in ipairs { "column_stack", "stack", "vstack", "hstack", "dstack" } do
        same(function(h) return cpu[name](h { a, b }) end)
      end
    end)

  it("split reads its split points raw", function()
    same(function(h) return cpu.split(v, h { 2, 4 }) end)
    same(function(h) return cpu.array_split(v, h { 3 }) end)
  end)

  it("roll, tile, rot90, moveaxis, flip, indices and repeat read their tables raw", function()
    same(function(h) return cpu.roll(a, h { 1, 2 }, h { 1, 2 }) end)
    same(function(h) return cpu.roll(v, h { 1, 1 }) end)
    same(function(h) return cpu.tile(a, h { 2, 1 }) end)
    same(function(h) return cpu.rot90(a, 1, h { 1, 2 }) end)
    same(function(h) return cpu.moveaxis(a, h { 1 }, h { 2 }) end)
    same(function(h) return cpu.flip(a, h { 1, 2 }) end)
    same(function(h) return cpu.indices(h { 2, 3 }) end)
    same(function(h) return cpu["repeat"](v, h { 1, 0, 2, 1, 3 }) end)
  end)

  it("pad reads pad_width and constant_values raw", function()
    same(function(h) return cpu.pad(v, h { 1, 2 }) end)
    same(function(h) return cpu.pad(a, h { h { 1, 0 }, h { 2 } }) end)
    same(function(h)
      return cpu.pad(a, 1, { mode = "constant", constant_values = h { 7, 9 } })
    end)
  end)

  it("take, choose and select read their lists raw", function()
    same(function(h) return cpu.take(v, h { 1, -1, 3 }) end)
    same(function(h) return cpu.choose(cpu.array({ 1, 2, 1 }), h { v[{ { 1, 3 } }], 7 }) end)
    same(function(h)
      return cpu.select(h { cpu.greater(v, 2), cpu.greater(v, 4) }, h { v, v * 10 }, -1)
    end)
  end)

  it("lexsort reads its keys raw", function()
    local k1, k2 = cpu.array({ 3, 1, 2, 1 }), cpu.array({ 1, 2, 2, 1 })
    same(function(h) return cpu.lexsort(h { k1, k2 }) end)
  end)

  it("histogram reads its range raw", function()
    local x = cpu.array({ 0.1, 0.4, 0.45, 0.9, 2.0 })
    same(function(h) return cpu.histogram(x, 4, { range = h { 0, 1 } }) end)
  end)
end)
