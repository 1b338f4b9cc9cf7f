-- The module loaded again in the same Lua state (package.loaded cleared, then require): every
-- load shares the state's current device, streams and settings, and the first load's functions
-- keep working on what they point at.  spec/c/test_lifecycle.c runs the stream case on the fake
-- driver, and the open -> work -> close loop of whole states.
local H = require("spec.helper").bind(_ENV)

-- fn(first, second) with the module loaded twice; package.loaded as it was afterwards.
local function with_reload(fn)
  local saved_cuarr, saved_core = package.loaded.cuarr, package.loaded["cuarr.core"]
  local first = require "cuarr"
  package.loaded.cuarr, package.loaded["cuarr.core"] = nil, nil
  local ok, err = pcall(function()
    local second = require "cuarr"
    assert.are_not.equal(first, second)
    fn(first, second)
  end)
  package.loaded.cuarr, package.loaded["cuarr.core"] = saved_cuarr, saved_core
  first.set_default_dtype("float64")
  if not ok then error(err, 0) end
end

describe("the module loaded twice in one state", function()
  it("shares the state's settings between the loads", function()
    with_reload(function(first, second)
      first.set_default_dtype("float32")
      assert.are.equal("float32", second.cpu.array({ 1.5 }).dtype)
      second.set_default_dtype("float64")
      assert.are.equal("float64", first.cpu.array({ 1.5 }).dtype)
    end)
  end)

  it("keeps the first load's functions working on host arrays", function()
    with_reload(function(first, second)
      collectgarbage(); collectgarbage()
      local a = first.cpu.arange(10, "float32")
      local b = second.cpu.add(a, 1)
      assert.are.equal(100, (a + b):sum():item())
      assert.are.equal(55, b:sum():item())
    end)
  end)

  H.gpu_it("keeps the stream made current through the first load alive and current", function()
    with_reload(function(first, second)
      first.Stream{}:use()
      collectgarbage(); collectgarbage()
      local current = first.get_current_stream()
      assert.is_false(current.is_null)
      assert.are.equal(current, second.get_current_stream())
      local a = first.arange(1000, "float32")
      assert.are.equal(499500, a:sum():item())
      second.null_stream():use()
      collectgarbage(); collectgarbage()
      assert.is_true(first.get_current_stream().is_null)
      assert.are.equal(499500, first.arange(1000, "float32"):sum():item())
    end)
  end)
end)
