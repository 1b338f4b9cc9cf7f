-- Errors carry their place (README, "Errors"): a cuarr error raised from a call in Lua code
-- says where that call is, as Lua's own errors do (`script.lua:5: cuarr.ValueError: ...`), in
-- e.where and in tostring(e); it keeps e.kind and e.message as they were and carries the stack
-- at the raise as e.traceback; the standalone interpreter shows that traceback for an uncaught
-- one.  An error raised inside cuarr's own Lua front end points at the user's line, not at
-- lua/cuarr/*.lua.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local child = require "spec.support.child"

-- This file's chunk name as error places write it ("spec/error_place_spec.lua").
local here = debug.getinfo(1, "S").short_src

local function line() return debug.getinfo(2, "l").currentline end

-- A script for a child interpreter: cuarr required, `body` from its line 3 on.
local function script(body)
  return 'local cuarr = require "cuarr"\nlocal xp = cuarr.cpu\n' .. body
end

describe("an error's place", function()
  for _, b in ipairs(H.backends) do
    b.it("is the calling line in e.where and tostring(e); kind and message as before", function()
      local x = b.xp.ones({ 3, 3 })
      local at
      local ok, e = pcall(function()
        at = line(); return x + b.xp.ones(4)
      end)
      assert.is_false(ok)
      assert.are.equal("ValueError", e.kind)
      assert.are.equal("operands could not be broadcast together with shapes (3,3) (4,)", e.message)
      assert.are.equal(here .. ":" .. at .. ": ", e.where)
      assert.are.equal(e.where .. "cuarr.ValueError: " .. e.message, tostring(e))
      -- a caught error prints as one line; its traceback is a field
      assert.is_falsy(tostring(e):find("\n", 1, true))
      assert.matches("^stack traceback:\n", e.traceback)
      assert.is_truthy(e.traceback:find(here .. ":" .. at .. ":", 1, true), e.traceback)
    end)

    b.it("of an error raised in cuarr's Lua front end is the user's line", function()
      local x = b.xp.ones({ 3, 3 })
      -- (not tail calls, which leave no caller's frame to name, as with Lua's own errors)
      local cases = {
        function() local r = b.xp.concatenate({ x, b.xp.ones(4) }); return r end,
        function() local r = b.xp.split(x, 2); return r end,
        function() local r = b.xp.pad(x, -1); return r end,
        function() local r = x:sum(5); return r end,
        function() local r = b.xp.histogram(x, -3); return r end,
        function() local r = b.xp.unique(x, { axis = 7 }); return r end,
      }
      for _, f in ipairs(cases) do
        local ok, e = pcall(f)
        assert.is_false(ok)
        assert.is_true(cuarr.is_error(e), tostring(e))
        local defined = debug.getinfo(f, "S").linedefined
        assert.are.equal(here .. ":" .. defined .. ": ", e.where)
      end
    end)
  end

  it("is empty when a C function (pcall itself) called cuarr, as Lua's own errors have", function()
    local ok, e = pcall(cuarr.cpu.zeros, "x")
    assert.is_false(ok)
    assert.are.equal("", e.where)
    assert.are.equal("cuarr.TypeError: " .. e.message, tostring(e))
  end)

  it("xpcall with debug.traceback returns the error object with its place and traceback", function()
    local at
    local ok, e = xpcall(function()
      at = line(); return cuarr.cpu.ones(2) + cuarr.cpu.ones(3)
    end, debug.traceback)
    assert.is_false(ok)
    assert.is_true(cuarr.is_error(e))
    assert.are.equal(here .. ":" .. at .. ": ", e.where)
    assert.is_truthy(e.traceback:find("in function 'xpcall'", 1, true)
      or e.traceback:find("'xpcall'", 1, true), e.traceback)
  end)

  it("is the coroutine's line for an error raised in a coroutine", function()
    local at
    local co = coroutine.create(function()
      coroutine.yield(1)
      at = line(); return cuarr.cpu.ones(2) * cuarr.cpu.ones(3)
    end)
    assert.is_true((coroutine.resume(co)))
    local ok, e = coroutine.resume(co)
    assert.is_false(ok)
    assert.are.equal("ValueError", e.kind)
    assert.are.equal(here .. ":" .. at .. ": ", e.where)
    assert.is_truthy(e.traceback:find(here .. ":" .. at .. ":", 1, true), e.traceback)
    -- through coroutine.wrap, the same object reaches the caller
    local g = coroutine.wrap(function() at = line(); return cuarr.cpu.zeros(-1) end)
    local ok2, e2 = pcall(g)
    assert.is_false(ok2)
    assert.are.equal(here .. ":" .. at .. ": ", e2.where)
  end)

  it("of a translation error in a kernel written in Lua: the kernel's line in the message, "
    .. "the call's in where", function()
    local at
    local ok, e = pcall(function()
      at = line(); local v = cuarr.vectorize({ "float32(float32)" }, function(x)
        return x .. "a" -- the line after `at`: translated, never run
      end)
      return v
    end)
    assert.is_false(ok)
    assert.are.equal("CompileError", e.kind)
    assert.are.equal(here .. ":" .. at .. ": ", e.where)
    assert.is_truthy(e.message:find(here .. ":" .. at + 1 .. ":", 1, true), e.message)
    ok, e = pcall(function()
      local k = cuarr.jit.rawkernel(function(x)
        x[1] = x.nope
      end)
      at = line(); k(1, 1, { cuarr.cpu.ones(2) })
    end)
    assert.is_false(ok)
    assert.is_true(cuarr.is_error(e), tostring(e))
    assert.matches("^" .. here:gsub("%p", "%%%0") .. ":%d+: $", e.where)
  end)

  it("of a raise deep in a recursion: the traceback skips the middle levels, as Lua's does",
    function()
    local x = cuarr.cpu.ones(2)
    local function r(n)
      if n == 0 then return x + cuarr.cpu.ones(3) end
      local v = r(n - 1)
      return v
    end
    local ok, e = pcall(r, 100000)
    assert.is_false(ok)
    assert.are.equal("ValueError", e.kind)
    assert.matches("\n\t%.%.%.\t%(skipping %d+ levels%)\n", e.traceback)
    local n = select(2, e.traceback:gsub("\n", "\n"))
    assert.is_true(n < 30, e.traceback)
  end)

  it("survives a script that changes the fields", function()
    local e = H.raises("ValueError", function() return cuarr.cpu.zeros(-1) end)
    e.where = 5
    assert.are.equal("5cuarr.ValueError: " .. e.message, tostring(e))
    e.where = {}
    assert.are.equal("cuarr.ValueError: " .. e.message, tostring(e))
  end)
end)

describe("a script run by lua5.4", function()
  it("prints an uncaught cuarr error with its place and the traceback", function()
    local ok, out, err = child.run(script [[
local x = xp.ones({3, 3})
local function f()
  return x + xp.ones(4)
end
f()
]])
    assert.is_falsy(ok, out)
    assert.matches(":5: cuarr%.ValueError: operands could not be broadcast together with shapes "
      .. "%(3,3%) %(4,%)\nstack traceback:\n", err)
    assert.matches(":5: in local 'f'", err)
    assert.matches(":7: in main chunk", err)
  end)

  it("prints the user's line for an error of the front end, and the traceback", function()
    local ok, _, err = child.run(script [[
local x = xp.ones({3, 3})
local y = xp.concatenate({x, xp.ones(4)})
]])
    assert.is_falsy(ok)
    assert.matches("lua5.4: [^\n]*:4: cuarr%.ValueError: concatenate: ", err)
    assert.matches("\nstack traceback:\n", err)
  end)

  it("prints the traceback of an error rethrown with error(e) and through coroutine.wrap",
    function()
    local ok, _, err = child.run(script [[
local ok, e = pcall(function() return xp.zeros(-1) end)
error(e)
]])
    assert.is_falsy(ok)
    assert.matches(":3: cuarr%.ValueError: [^\n]*\nstack traceback:\n[^\n]*\n[^\n]*:3:", err)
    ok, _, err = child.run(script [[
local g = coroutine.wrap(function()
  return xp.ones(2) + xp.ones(3)
end)
g()
]])
    assert.is_falsy(ok)
    assert.matches(":4: cuarr%.ValueError: [^\n]*\nstack traceback:\n", err)
  end)

  it("prints a caught error as one line", function()
    local ok, out = child.run(script [[
local ok, e = pcall(function() return xp.zeros(-1) end)
print(e)
print(tostring(e))
print(select(2, pcall(tostring, e)))
io.write(string.format("%s\n", e))
]])
    assert.is_true(ok, out)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal(4, #lines, out)
    for _, l in ipairs(lines) do assert.matches(":3: cuarr%.ValueError: ", l) end
  end)
end)
