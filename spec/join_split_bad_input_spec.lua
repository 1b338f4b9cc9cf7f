-- Misuses of concatenate, the stacks and the splits, each with its error kind: ragged pieces,
-- axes out of range, empty lists, entries that are not arrays, unequal splits, bad sections and
-- split points, 0-d arrays, a bad out, extra arguments; #gpu: host and device arrays mixed.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

local a23 = cpu.zeros({ 2, 3 })
local a33 = cpu.zeros({ 3, 3 })
local a32 = cpu.zeros({ 3, 2 })
local v3 = cpu.zeros({ 3 })
local v10 = cpu.arange(10)
local s0 = cpu.array(1.5)
local a234 = cpu.zeros({ 2, 3, 4 })

local cases = {
  { "concatenate of nothing", "ValueError", function() cpu.concatenate({}) end },
  { "concatenate of a non-table", "TypeError", function() cpu.concatenate(a23) end },
  { "concatenate of a number", "TypeError", function() cpu.concatenate(3) end },
  { "concatenate with a number entry", "TypeError", function() cpu.concatenate({ a23, 1 }) end },
  { "concatenate with a table entry", "TypeError",
    function() cpu.concatenate({ a23, { 1, 2, 3 } }) end },
  { "concatenate with a string entry", "TypeError", function() cpu.concatenate({ "x" }) end },
  { "ragged concatenate (other axis differs)", "ValueError",
    function() cpu.concatenate({ a23, a32 }) end },
  { "ragged concatenate along axis 2", "ValueError",
    function() cpu.concatenate({ a23, a33 }, 2) end },
  { "concatenate of different ndims", "ValueError", function() cpu.concatenate({ a23, v3 }) end },
  { "concatenate of 0-d arrays", "ValueError", function() cpu.concatenate({ s0, s0 }) end },
  { "concatenate axis past the end", "IndexError",
    function() cpu.concatenate({ a23, a23 }, 3) end },
  { "concatenate axis 0", "IndexError", function() cpu.concatenate({ a23, a23 }, 0) end },
  { "concatenate axis below -ndim", "IndexError",
    function() cpu.concatenate({ a23, a23 }, -3) end },
  { "concatenate fractional axis", "TypeError", function() cpu.concatenate({ a23 }, 1.5) end },
  { "concatenate string axis", "TypeError", function() cpu.concatenate({ a23 }, "x") end },
  { "concatenate out of the wrong shape", "ValueError",
    function() cpu.concatenate({ a23, a23 }, 1, cpu.zeros({ 4, 4 })) end },
  { "concatenate out of a lower kind", "TypeError",
    function() cpu.concatenate({ a23, a23 }, 1, cpu.zeros({ 4, 3 }, "int32")) end },
  { "concatenate out not an array", "TypeError",
    function() cpu.concatenate({ a23, a23 }, 1, {}) end },
  { "concatenate extra argument", "TypeError",
    function() cpu.concatenate({ a23 }, 1, nil, 4) end },
  { "concatenate of a freed array", "ValueError", function()
    local x = cpu.zeros({ 2 })
    x:free()
    cpu.concatenate({ x, v3 })
  end },
  { "stack of nothing", "ValueError", function() cpu.stack({}) end },
  { "stack of different shapes", "ValueError", function() cpu.stack({ a23, a32 }) end },
  { "stack axis past ndim + 1", "IndexError", function() cpu.stack({ a23, a23 }, 4) end },
  { "stack axis below", "IndexError", function() cpu.stack({ a23, a23 }, -4) end },
  { "stack non-array entry", "TypeError", function() cpu.stack({ a23, true }) end },
  { "stack of an array, not a table", "TypeError", function() cpu.stack(a23) end },
  { "vstack ragged", "ValueError", function() cpu.vstack({ a23, cpu.zeros({ 2 }) }) end },
  { "hstack ragged", "ValueError", function() cpu.hstack({ a23, a33 }) end },
  { "dstack ragged", "ValueError", function() cpu.dstack({ a23, a33 }) end },
  { "column_stack ragged", "ValueError",
    function() cpu.column_stack({ v3, cpu.zeros({ 4 }) }) end },
  { "hstack of nothing", "ValueError", function() cpu.hstack({}) end },
  { "vstack extra argument", "TypeError", function() cpu.vstack({ a23 }, 1) end },
  { "split into unequal parts", "ValueError", function() cpu.split(v10, 3) end },
  { "split into 0 sections", "ValueError", function() cpu.split(v10, 0) end },
  { "array_split into negative sections", "ValueError", function() cpu.array_split(v10, -2) end },
  { "array_split into 2^53 sections (a table no memory holds)", "OutOfMemoryError",
    function() cpu.array_split(v10, 2 ^ 53) end },
  { "split fractional sections", "TypeError", function() cpu.split(v10, 2.5) end },
  { "split by a string", "TypeError", function() cpu.split(v10, "2") end },
  { "split by nothing", "TypeError", function() cpu.split(v10) end },
  { "split by an array", "TypeError", function() cpu.split(v10, cpu.array({ 2, 4 })) end },
  { "split point not an integer", "TypeError", function() cpu.split(v10, { 2, 4.5 }) end },
  { "split point a string", "TypeError", function() cpu.split(v10, { "3" }) end },
  { "split point 0", "IndexError", function() cpu.split(v10, { 0 }) end },
  { "split axis out of range", "IndexError", function() cpu.split(a23, 2, 3) end },
  { "split axis 0", "IndexError", function() cpu.split(a23, 2, 0) end },
  { "split of a 0-d array", "IndexError", function() cpu.split(s0, 1) end },
  { "split of a non-array", "TypeError", function() cpu.split({ 1, 2 }, 2) end },
  { "hsplit of a 0-d array", "ValueError", function() cpu.hsplit(s0, 1) end },
  { "hsplit unequal", "ValueError", function() cpu.hsplit(a23, 2) end },
  { "vsplit of a 1-D array", "ValueError", function() cpu.vsplit(v3, 3) end },
  { "vsplit unequal", "ValueError", function() cpu.vsplit(a33, 2) end },
  { "dsplit of a 2-D array", "ValueError", function() cpu.dsplit(a23, 1) end },
  { "dsplit unequal", "ValueError", function() cpu.dsplit(a234, 3) end },
  { "split extra argument", "TypeError", function() cpu.split(v10, 2, 1, 1) end },
}

describe("joining and splitting refuse", function()
  for _, case in ipairs(cases) do
    it(case[1] .. " (" .. case[2] .. ")", function()
      H.raises(case[2], case[3])
    end)
  end

  it("a refused concatenate leaves out as it was", function()
    local out = cpu.full({ 4, 3 }, 7, "int32")
    H.raises("TypeError", cpu.concatenate, { a23, a23 }, 1, out)
    assert.are.equal(84, out:sum():item())
  end)

  H.gpu_it("mixing host and device arrays is a ValueError", function()
    local d = cuarr.zeros({ 2, 3 })
    H.raises("ValueError", cuarr.concatenate, { a23, d })
    H.raises("ValueError", cuarr.concatenate, { d, a23 })
    H.raises("ValueError", cuarr.vstack, { d, a23 })
    H.raises("ValueError", cuarr.stack, { a23, d })
    H.raises("ValueError", cuarr.concatenate, { d, d }, 1, cpu.zeros({ 4, 3 }))
    H.raises("ValueError", cpu.concatenate, { a23, a23 }, 1, cuarr.zeros({ 4, 3 }))
  end)

  H.gpu_it("device arrays are refused as host arrays are", function()
    local d23, d32 = cuarr.zeros({ 2, 3 }), cuarr.zeros({ 3, 2 })
    H.raises("ValueError", cuarr.concatenate, { d23, d32 })
    H.raises("IndexError", cuarr.concatenate, { d23, d23 }, 3)
    H.raises("ValueError", cuarr.split, cuarr.arange(10), 3)
    H.raises("TypeError", cuarr.concatenate, { d23, d23 }, 1, cuarr.zeros({ 4, 3 }, "int8"))
  end)
end)
