-- Hardening (issue 13): hostile calls get error objects, never a crash, an overrun or undefined
-- behaviour.  Each case here failed before its fix: a Lua stack overrun by many kernel
-- outputs in a coroutine, integer overflows in eye / arange / reshape and their kin.
--
-- The device cases that need no real GPU run in a child Lua against the stand-in driver of
-- tools/fake_cuda (device memory is host memory, kernels never run): what they check is the
-- binding's handling, not the kernels' results; the same cases run with #gpu on a device.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local child = require "spec.support.child"

local fmt = string.format

-- ---------------------------------------------------------------- a child on the fake driver

local fake_libcuda = child.fake_libcuda

-- Run `code` in a child Lua, on the fake driver when `fake`; returns ok (exit status 0),
-- stdout and stderr.
local function run_child(code, fake)
  local env = fake and { CUARR_LIBCUDA = fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" } or {}
  return child.run(code, env)
end

-- ---------------------------------------------------------------- finding 2: stack overrun

-- An ElementwiseKernel of `nout` outputs y1 = x + 1, ..., called inside a coroutine (whose
-- stack starts small) and outside one; prints "ok" when every result is a separate array of
-- x's shape (and, on a real device, holds its value).
local MANY_OUTPUTS = [[
local cuarr = require "cuarr"
local nout, check_values = %d, %s
local decl, ops = {}, {}
for j = 1, nout do
  decl[j] = "float32 y" .. j
  ops[j] = "y" .. j .. " = x + " .. j .. ";"
end
local k = cuarr.ElementwiseKernel("float32 x", table.concat(decl, ", "), table.concat(ops, " "),
                                  "many_outputs")
local x = cuarr.arange(8, {dtype = "float32"})
local function check(r)
  assert(r.n == nout, "results: " .. r.n)
  local seen = {}
  for j = 1, nout do
    local y = r[j]
    assert(type(y) == "userdata" and y.shape[1] == 8 and y.dtype == "float32" and not seen[y],
           "result " .. j)
    seen[y] = true
    if check_values then assert(y:get():totable()[8] == 7 + j, "value of result " .. j) end
  end
end
for _ = 1, 20 do
  check(table.pack(coroutine.wrap(function() return k(x) end)()))
  local given = {}
  for j = 1, nout do given[j] = cuarr.empty(8, "float32") end
  check(table.pack(coroutine.wrap(function() return k(x, table.unpack(given)) end)()))
end
check(table.pack(k(x)))
collectgarbage()
print("ok")
]]

describe("an ElementwiseKernel with many outputs", function()
  for _, nout in ipairs({ 48, 64 }) do
    it(fmt("returns its %d outputs from inside a coroutine (stand-in driver)", nout), function()
      local ok, out, err = run_child(fmt(MANY_OUTPUTS, nout, "false"), true)
      assert(ok and out == "ok\n", "child failed: " .. out .. err)
    end)
    H.gpu_it(fmt("returns its %d outputs from inside a coroutine", nout), function()
      local ok, out, err = run_child(fmt(MANY_OUTPUTS, nout, "true"), false)
      assert(ok and out == "ok\n", "child failed: " .. out .. err)
    end)
  end
end)

-- ---------------------------------------------------------------- finding 8: integer overflow

-- These were undefined behaviour in C (a negated math.mininteger, a stride past int64, a float
-- cast to an integer it does not fit): the results or errors below are defined, and the build
-- with -fsanitize=undefined runs them clean.
describe("eye", function()
  for _, b in ipairs(H.backends) do
    b.it("with a diagonal offset beyond the matrix gives zeros (math.mininteger too)", function()
      local xp = b.xp
      for _, k in ipairs({ math.mininteger, math.mininteger + 1, -3, 3, math.maxinteger }) do
        local e = xp.eye(3, 3, k)
        assert.are.same({ 3, 3 }, { e.shape[1], e.shape[2] })
        assert.are.equal(0, e:sum():item())
      end
      assert.are.equal(0, xp.eye(0, 0, math.mininteger).size)
      assert.are.equal(0, xp.eye(0, 4, math.mininteger).size)
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 }, { 1, 0, 0 } }, xp.eye(3, 3, -2, "int32"):totable())
      assert.are.same({ { 0, 0, 1 }, { 0, 0, 0 } }, xp.eye(2, 3, 2, "int32"):totable())
    end)
  end
end)

describe("reshape", function()
  for _, b in ipairs(H.backends) do
    b.it("refuses a shape with a 0 extent whose others overflow the strides, as empty does",
      function()
        local xp = b.xp
        for _, case in ipairs({
          { "float64", { 0, 1 << 62, 4 } },
          { "float64", { 1 << 62, 4, 0 } },
          { "float64", { 0, 1 << 61 } },
          { "int8", { math.maxinteger, 2, 0 } },
          { "float32", { 0, math.maxinteger } },
        }) do
          local dtype, shape = case[1], case[2]
          H.raises("ValueError", xp.empty, shape, dtype)
          local z = xp.zeros(0, dtype)
          H.raises("ValueError", function() return z:reshape(table.unpack(shape)) end)
          H.raises("ValueError", function() return z:reshape(shape) end)
          assert.are.same({ 0 }, { z.shape[1] }) -- the array is unchanged
        end
        -- Large shapes that fit are still fine.
        local r = xp.zeros(0, "int8"):reshape(0, 1 << 62)
        assert.are.same({ 0, 1 << 62 }, { r.shape[1], r.shape[2] })
        assert.are.equal(1, r.strides[2])
        local t = xp.zeros({ 0, 3 }):transpose():reshape(3, 0)
        assert.are.same({ 3, 0 }, { t.shape[1], t.shape[2] })
      end)
  end
end)

describe("arange with float bounds and an integer dtype", function()
  for _, b in ipairs(H.backends) do
    b.it("raises a ValueError when start or step does not fit in an integer", function()
      local xp = b.xp
      H.raises("ValueError", xp.arange, 0.5, 10.5, 1e30, "int32")
      H.raises("ValueError", xp.arange, -1e300, 0, 1e299, "int64")
      H.raises("ValueError", xp.arange, 9.3e18, 9.4e18, 1e16, "int64")
      H.raises("ValueError", xp.arange, -9.3e18, -9.2e18, 1e16, "uint8")
      H.raises("ValueError", xp.arange, 0.0, 1.0, 2 ^ 63, "bool")
      H.raises("ValueError", xp.arange, 2 ^ 63, 2 ^ 63 + 2 ^ 20, 1024.0, "int64")
    end)
    b.it("still counts in integers when they fit, and gives an empty array for no elements",
      function()
        local xp = b.xp
        assert.are.same({ 0, 1, 2 }, xp.arange(0.5, 3.5, 1.0, "int64"):totable())
        assert.are.same({ -3, -1 }, xp.arange(-3.0, 0.0, 2.0, "int32"):totable())
        local big = -(2 ^ 63) -- math.mininteger as a float: fits
        assert.are.same({ math.mininteger }, xp.arange(big, big + 1024, 2048.0, "int64"):totable())
        local e = xp.arange(1e19, 1e19 + 5, 1.0, "int64") -- 1e19 + 5 == 1e19: no elements
        assert.are.equal(0, e.size)
        assert.are.equal("int64", e.dtype)
      end)
  end
end)

-- ---------------------------------------------------------------- index keys claiming a huge length

describe("an index table whose __len claims a huge length", function()
  for _, b in ipairs(H.backends) do
    b.it("is an IndexError before any entry is read, in a read and in an assignment", function()
      local a = b.xp.zeros({ 4, 3 }, "uint64")
      local reads = 0
      local key = setmetatable({}, { __len = function() return 1 << 40 end,
                                     __index = function() reads = reads + 1; return 1 end })
      H.raises("IndexError", function() return a[key] end)
      H.raises("IndexError", function() a[key] = 1 end)
      assert.are.equal(0, reads)
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }, a:get():totable())
    end)

    b.it("reads each entry of an index table once, newaxis entries too", function()
      local a = b.xp.arange(12):reshape(4, 3)
      local entries, reads = { 2, b.xp.newaxis, 3 }, 0
      local key = setmetatable({}, { __len = function() return 3 end,
                                     __index = function(_, k) reads = reads + 1; return entries[k] end })
      local v = a[key]
      assert.are.equal(3, reads)
      assert.are.same({ 1 }, v.shape)
      assert.are.equal(5, v:get():totable()[1])
    end)
  end
end)
