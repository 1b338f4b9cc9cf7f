-- Misuse of the tools of issue 15 (the benchmark tool, pinned scopes, the CUDA array
-- interface): each case raises the kind the README's "Errors" section gives, and no array
-- changes (its values, and whether it is pinned).  None of them needs a device: the arguments
-- and the interface's fields are checked before the driver is asked anything.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

-- A host array and a snapshot of it, checked after every case.
local bystander = cuarr.cpu.arange(16, "float32")
local function unchanged()
  assert.is_false(bystander.is_pinned)
  for i = 1, 16 do assert.are.equal(i - 1, bystander[i]) end
end

-- An interface table describing bystander's memory, with `changes` applied (a field set to
-- false is removed).
local function cai(changes)
  local t = { shape = { 16 }, typestr = "<f4", data = { bystander.data, false }, version = 3 }
  for k, v in pairs(changes or {}) do
    if v == false then t[k] = nil else t[k] = v end
  end
  return { __cuda_array_interface__ = t }
end

local function noop() end

local cases = {
  -- the benchmark tool
  { "benchmark of a non-function", "TypeError", cuarr.profiler.benchmark, "fn", {} },
  { "benchmark with an unknown option", "ValueError", cuarr.profiler.benchmark, noop, {},
    { n_repeats = 2 } },
  { "benchmark with n_repeat 0", "ValueError", cuarr.profiler.benchmark, noop, {},
    { n_repeat = 0 } },
  { "benchmark with a fractional n_warmup", "TypeError", cuarr.profiler.benchmark, noop, {},
    { n_warmup = 1.5 } },
  { "benchmark with a negative max_duration", "ValueError", cuarr.profiler.benchmark, noop, {},
    { max_duration = -0.5 } },
  { "benchmark with args that are not a table", "TypeError", cuarr.profiler.benchmark, noop,
    bystander },
  -- pinned scopes
  { "pinned of a number", "TypeError", cuarr.pinned, 42 },
  { "pinned of a table", "TypeError", cuarr.pinned, { bystander } },
  { "pinned with a non-array after an array", "TypeError", cuarr.pinned, bystander, "x" },
  { "with_pinned of an array instead of a table", "TypeError", cuarr.with_pinned, bystander,
    noop },
  { "with_pinned of a non-function", "TypeError", cuarr.with_pinned, { bystander }, 5 },
  { "with_pinned of a table holding a non-array", "TypeError", cuarr.with_pinned, { 1 }, noop },
  { "with_pinned of a table whose n is fractional", "TypeError", cuarr.with_pinned,
    { bystander, n = 1.5 }, noop },
  { "with_pinned of a table whose # is a huge count", "ValueError", cuarr.with_pinned,
    setmetatable({}, { __len = function() return 1 << 40 end }), noop },
  -- the CUDA array interface
  { "as_cuda_array of an object without the interface", "TypeError", cuarr.as_cuda_array,
    { data = 1 } },
  { "as_cuda_array of a host array", "TypeError", cuarr.as_cuda_array, bystander },
  { "as_cuda_array with an interface that is not a table", "TypeError", cuarr.as_cuda_array,
    { __cuda_array_interface__ = "x" } },
  { "as_cuda_array with a big-endian typestr", "ValueError", cuarr.as_cuda_array,
    cai { typestr = ">f4" } },
  { "as_cuda_array with a complex typestr", "ValueError", cuarr.as_cuda_array,
    cai { typestr = "<c8" } },
  { "as_cuda_array with a typestr that is not a string", "TypeError", cuarr.as_cuda_array,
    cai { typestr = 4 } },
  { "as_cuda_array with a negative extent", "ValueError", cuarr.as_cuda_array,
    cai { shape = { 4, -4 } } },
  { "as_cuda_array with a fractional extent", "TypeError", cuarr.as_cuda_array,
    cai { shape = { 2.5 } } },
  { "as_cuda_array with a shape that is not a table", "TypeError", cuarr.as_cuda_array,
    cai { shape = 16 } },
  { "as_cuda_array with too many axes", "ValueError", cuarr.as_cuda_array,
    cai { shape = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 16 } } },
  { "as_cuda_array with a float pointer", "TypeError", cuarr.as_cuda_array,
    cai { data = { 4096.5, false } } },
  { "as_cuda_array with a string pointer", "TypeError", cuarr.as_cuda_array,
    cai { data = { "0x1000", false } } },
  { "as_cuda_array with a null pointer", "ValueError", cuarr.as_cuda_array,
    cai { data = { 0, false } } },
  { "as_cuda_array with readonly missing", "TypeError", cuarr.as_cuda_array,
    cai { data = { bystander.data } } },
  { "as_cuda_array without data", "TypeError", cuarr.as_cuda_array, cai { data = false } },
  { "as_cuda_array with strides of another length", "ValueError", cuarr.as_cuda_array,
    cai { strides = { 4, 4 } } },
  { "as_cuda_array with strides not a multiple of the item size", "ValueError",
    cuarr.as_cuda_array, cai { strides = { 6 } } },
  { "as_cuda_array with strides that overflow", "ValueError", cuarr.as_cuda_array,
    cai { strides = { 1 << 62 } } },
  { "as_cuda_array with version 4", "ValueError", cuarr.as_cuda_array, cai { version = 4 } },
  { "as_cuda_array without a version", "TypeError", cuarr.as_cuda_array, cai { version = false } },
  { "as_cuda_array of a masked array", "ValueError", cuarr.as_cuda_array,
    cai { mask = { 1 } } },
  { "as_cuda_array with stream 0", "ValueError", cuarr.as_cuda_array, cai { stream = 0 } },
  { "as_cuda_array with a stream that is not an integer", "TypeError", cuarr.as_cuda_array,
    cai { stream = "default" } },
}

describe("tools: bad input", function()
  it("has at least 12 distinct cases", function()
    assert.is_true(#cases >= 12)
  end)

  for _, case in ipairs(cases) do
    it(case[1] .. " is a " .. case[2], function()
      local err = H.raises(case[2], case[3], table.unpack(case, 4))
      assert.is_true(#err.message > 0)
      unchanged()
    end)
  end

  it("a freed host array is a ValueError for pinned", function()
    local h = cuarr.cpu.zeros(8)
    h:free()
    H.raises("ValueError", cuarr.pinned, bystander, h)
    unchanged()
  end)

  it("a PinnedScope's close needs a PinnedScope", function()
    local mt = getmetatable(cuarr.pinned()) -- an empty scope: nothing to register
    H.raises("TypeError", mt.__close, bystander)
    H.raises("TypeError", mt.methods.close, 42)
    unchanged()
  end)

  it("is_cuda_array says false, without raising, for what carries no interface", function()
    assert.is_false(cuarr.is_cuda_array(nil))
    assert.is_false(cuarr.is_cuda_array(5))
    assert.is_false(cuarr.is_cuda_array({}))
    assert.is_false(cuarr.is_cuda_array({ __cuda_array_interface__ = 3 }))
    assert.is_false(cuarr.is_cuda_array(bystander))
    assert.is_false(cuarr.is_cuda_array(cuarr.get_array_module))
    assert.is_false(cuarr.is_cuda_array(setmetatable({}, {
      __index = function() error("no such field") end })))
    assert.is_true(cuarr.is_cuda_array(cai()))
    unchanged()
  end)
end)
