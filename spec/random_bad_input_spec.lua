-- Misuses of cuarr.random and cuarr.cpu.random (issue 17), each raising its kind: bad seeds,
-- sizes, dtypes, ranges, parameters, options and outputs; nothing is drawn (the state does not
-- advance) when a call is refused.  Host arrays: the same checks run before any device work.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local r = cuarr.cpu.random

describe("cuarr.cpu.random refuses", function()
  local cases = {
    { "a negative seed", "ValueError", r.seed, -1 },
    { "a fractional seed", "TypeError", r.seed, 1.5 },
    { "a seed out of 64 bits", "ValueError", r.seed, 2.0 ^ 64 },
    { "a string seed", "TypeError", r.default_rng, "42" },
    { "a NaN seed", "TypeError", r.default_rng, 0 / 0 },
    { "a negative size", "ValueError", r.random, -1 },
    { "a negative extent in a shape", "ValueError", r.standard_normal, { 2, -3 } },
    { "a fractional size", "TypeError", r.random, 2.5 },
    { "a string size", "TypeError", r.random, "10" },
    { "an integer dtype for random", "TypeError", r.random, 3, "int32" },
    { "float16 for normal", "TypeError", r.normal, 0, 1, 3, "float16" },
    { "an unknown dtype", "TypeError", r.uniform, 0, 1, 3, "float128" },
    { "a float dtype for randint", "TypeError", r.randint, 0, 5, 3, "float64" },
    { "low >= high in randint", "ValueError", r.randint, 5, 5, 3 },
    { "low > high in integers", "ValueError", r.integers, 5, 2, 3 },
    { "high <= 0 alone", "ValueError", r.randint, 0 },
    { "a range beyond the dtype", "ValueError", r.randint, 0, 300, 3, "uint8" },
    { "a negative low for unsigned", "ValueError", r.integers, -1, 3, 3, "uint16" },
    { "a fractional bound", "TypeError", r.randint, 0.5, 3 },
    { "a missing low", "TypeError", r.integers },
    { "a non-boolean endpoint", "TypeError", r.integers, 0, 3, 3, "int64", 1 },
    { "a negative scale for normal", "ValueError", r.normal, 0, -1, 3 },
    { "a negative scale for exponential", "ValueError", r.exponential, -2, 3 },
    { "an infinite bound for uniform", "ValueError", r.uniform, 0, math.huge, 3 },
    { "a string loc", "TypeError", r.normal, "0", 1, 3 },
    { "a uniform range that overflows", "ValueError", r.uniform, -1e308, 1e308, 3 },
    { "a table in a size", "TypeError", r.random, { 2, {} } },
    { "an unknown option", "ValueError", r.random, 3, nil, { outt = 1 } },
    { "options that are not a table", "TypeError", r.random, 3, nil, 5 },
    { "an out that is not an array", "TypeError", r.random, nil, nil, { out = {} } },
    { "an out of another dtype", "TypeError", r.random, 3, "float32",
      { out = cuarr.cpu.empty(3) } },
    { "an out of an integer dtype", "TypeError", r.standard_normal, nil, nil,
      { out = cuarr.cpu.empty(3, "int32") } },
    { "a size that does not match out", "ValueError", r.random, 4, nil,
      { out = cuarr.cpu.empty(3) } },
    { "permutation of a negative count", "ValueError", r.permutation, -3 },
    { "permutation of a string", "TypeError", r.permutation, "abc" },
    { "permutation of a 0-d array", "ValueError", r.permutation, cuarr.cpu.zeros({}) },
    { "shuffle of a number", "TypeError", r.shuffle, 5 },
    { "choice of more than the population without replacement", "ValueError", r.choice, 3, 5,
      false },
    { "choice from nothing", "ValueError", r.choice, 0, 2 },
    { "choice with probabilities that do not sum to 1", "ValueError", r.choice, 3, 2, true,
      { 0.5, 0.2, 0.2 } },
    { "choice with a negative probability", "ValueError", r.choice, 2, 2, true, { 1.5, -0.5 } },
    { "choice with p of the wrong length", "ValueError", r.choice, 3, 2, true, { 0.5, 0.5 } },
    { "choice from a 2-D array", "ValueError", r.choice, cuarr.cpu.zeros({ 2, 2 }), 1 },
    { "a non-boolean replace", "TypeError", r.choice, 3, 2, "yes" },
    -- extra arguments are refused, not ignored
    { "an extra argument to permutation", "TypeError", r.permutation, 3, "x" },
    { "an extra argument to shuffle", "TypeError", r.shuffle, cuarr.cpu.arange(3), 1 },
    { "an extra argument to choice", "TypeError", r.choice, 3, 2, true, nil, 1, n = 8 },
    { "an extra argument to random", "TypeError", r.random, 3, nil, nil, 1, n = 7 },
    { "an extra argument to uniform", "TypeError", r.uniform, 0, 1, 3, nil, nil, 1, n = 9 },
    { "an extra argument to integers", "TypeError", r.integers, 0, 3, 3, "int64", false, 1 },
    { "an extra argument to randint", "TypeError", r.randint, 0, 3, 3, "int64", 1 },
    { "an extra argument to seed", "TypeError", r.seed, 1, 2 },
    { "an extra argument to default_rng", "TypeError", r.default_rng, 1, 2 },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. " (" .. case[2] .. ")", function()
      r.seed(3)
      H.raises(case[2], case[3], table.unpack(case, 4, case.n or #case))
      assert.same(r.default_rng(3):random(4):totable(), r.random(4):totable())
    end)
  end

  it("a Generator's methods called on something else", function()
    local g = r.default_rng(1)
    H.raises("TypeError", g.random, {}, 3)
    H.raises("TypeError", g.standard_normal, nil, 3)
    H.raises("TypeError", g.permutation, g, 3, "x")
    H.raises("TypeError", g.exponential, g, 1, 3, nil, nil, 1)
  end)

  it("an out that is a device array for cuarr.cpu.random, a host one for cuarr.random", function()
    H.raises("TypeError", cuarr.random.random, nil, nil, { out = cuarr.cpu.empty(3) })
    H.raises("TypeError", cuarr.random.permutation, cuarr.cpu.arange(3))
  end)

  it("a Generator printed as something else, and Generators print their seed", function()
    H.raises("TypeError", r.Generator.__tostring, 5)
    assert.matches("seed=7", tostring(r.default_rng(7)))
  end)

  it("a refused call leaves out unchanged", function()
    local out = cuarr.cpu.zeros(3)
    H.raises("ValueError", r.normal, 0, -1, nil, nil, { out = out })
    assert.same({ 0, 0, 0 }, out:totable())
  end)
end)
