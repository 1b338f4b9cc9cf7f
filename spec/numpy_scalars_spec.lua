-- Lua integers at and around each integer dtype's bounds, through every way a Lua number
-- becomes an element (array, full, fill, item and slice assignment, arange), against what
-- NumPy 2 did (spec/data/numpy_scalars.lua, recorded by tools/numpy_oracle/record_scalars.py):
-- where NumPy raised OverflowError cuarr raises ValueError naming the value and dtype, else
-- the element is NumPy's.  uint64 by the README's rule: an element reads back as the Lua
-- integer of its 64 bits (2^64 - 1 is -1), and a negative Lua integer writes those bits, so
-- NumPy's refusal of a negative uint64 is, here, the element whose bits the integer has.
local H = require("spec.helper").bind(_ENV)
local cases = require "spec.data.numpy_scalars"

-- The decimal string as a Lua integer modulo 2^64 (integer arithmetic wraps), and whether it
-- is exactly a Lua integer (in [-2^63, 2^63)).
local function wrapped(s)
  local negative = s:sub(1, 1) == "-"
  local x = 0
  for digit in s:gmatch("%d") do x = x * 10 + (digit:byte() - 48) end
  x = negative and -x or x
  local exact = math.type(tonumber(s)) == "integer"
  return x, exact
end

-- The Lua integer a script writes for the value v of dtype dt, or nil when Lua cannot spell it:
-- beyond Lua's integers, except uint64's upper half, which is written as its bits.
local function lua_value(dt, v)
  local x, exact = wrapped(v)
  if exact then return x end
  local below_2_64 = #v < 20 or (#v == 20 and v < "18446744073709551616")
  if dt == "uint64" and v:sub(1, 1) ~= "-" and below_2_64 then return x end
  return nil
end

-- Each way, as a function of (xp, dtype, x) giving the element that holds x.
local ways = {
  array = function(xp, dt, x) return xp.array({ x }, dt)[1] end,
  full = function(xp, dt, x) return xp.full({ 2 }, x, dt)[1] end,
  fill = function(xp, dt, x)
    local a = xp.zeros(2, dt)
    a:fill(x)
    return a[1]
  end,
  setitem = function(xp, dt, x)
    local a = xp.zeros(2, dt)
    a[1] = x
    return a[1]
  end,
  slice = function(xp, dt, x)
    local a = xp.zeros(3, dt)
    a[{ { 1, 2 } }] = x
    return a[2]
  end,
  arange_first = function(xp, dt, x) return xp.arange(x, x + 1, dt)[1] end,
  arange_second = function(xp, dt, x) return xp.arange(x + 1, x - 1, -1, dt)[2] end,
}

-- What cuarr must give for one case: "raise", or the element read back (a Lua integer), or nil
-- when the case has no Lua spelling.
local function expected(c)
  local way, dt, v, result = c[1], c[2], c[3], c[4]
  local x = lua_value(dt, v)
  if x == nil then return nil end
  if way:match("^arange") then
    -- arange counts in Lua integers: its neighbours of x must be Lua integers too, and a
    -- uint64 beyond int64 is no range of Lua integers
    if x == math.maxinteger or x == math.mininteger then return nil end
    if dt == "uint64" and x < 0 then return nil end
  end
  if result ~= nil then return x, wrapped(result) end
  if dt == "uint64" and v:sub(1, 1) == "-" then return x, x end -- its bits, by the rule
  return x, "raise"
end

describe("Lua integers at each integer dtype's bounds, against NumPy 2", function()
  for _, b in ipairs(H.backends) do
    b.it("array, full, fill, assignment and arange raise where NumPy raises", function()
      local checked = 0
      for _, c in ipairs(cases) do
        local x, want = expected(c)
        if x ~= nil then
          local what = string.format("%s(%s) as %s", c[1], c[3], c[2])
          if want == "raise" then
            local err = H.raises("ValueError", ways[c[1]], b.xp, c[2], x)
            assert.truthy(err.message:find("out of bounds for " .. c[2], 1, true), what)
            -- (arange names the first of its elements that does not fit)
            if not c[1]:match("^arange") then
              assert.truthy(err.message:find("integer " .. x .. " ", 1, true), what)
            end
          else
            local got = ways[c[1]](b.xp, c[2], x)
            assert(math.type(got) == "integer" and got == want,
              what .. ": got " .. tostring(got) .. ", want " .. tostring(want))
          end
          checked = checked + 1
        end
      end
      assert.is_true(checked > 200)
    end)
  end
end)
