-- The differential spec against NumPy 2 for cuarr's numerics: every case that
-- tools/numpy_oracle/record_numerics.py recorded from NumPy into spec/data/numpy_numerics.lua
-- (CI needs no Python: the spec reads only that file), on host and device arrays.  The cases:
-- the promotion of n-ary functions (concatenate, stack, vstack, select, where) over dtype
-- triples of the twelve dtypes, all at once as NumPy's result_type; integer powers (negative
-- exponents are NumPy's ValueError); linspace with integer dtypes (floored, as NumPy 2).
--
-- Device arrays: a negative exponent inside a device array computes without an error (its
-- values are on the device; as CuPy, see the README's elementwise section), so those cases are
-- skipped there; a Lua number as the exponent raises on both.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local fmt = string.format
local data = dofile("spec/data/numpy_numerics.lua")

-- Where a case's result differs from NumPy's: nil when it agrees.
local function compare(case, ok, r)
  if case.error then
    if ok then return fmt("NumPy raised %s, cuarr gave %s", case.error, tostring(r)) end
    -- NumPy's OverflowError for a Lua integer out of a dtype's range is a ValueError here
    -- (or an OverflowError, where cuarr has that kind)
    local kind_ok = cuarr.is_error(r) and (r.kind == case.error
      or (case.error == "OverflowError" and r.kind == "ValueError"))
    if not kind_ok then
      return fmt("NumPy raised %s, cuarr raised %s", case.error, tostring(r))
    end
    return nil
  end
  if not ok then return fmt("NumPy gave %s, cuarr raised %s", case.dtype, tostring(r)) end
  if r.dtype ~= case.dtype then return fmt("dtype %s, NumPy's %s", r.dtype, case.dtype) end
  local got = cuarr.cpu.asarray(r):ravel():totable()
  if #got ~= #case.values then return fmt("%d values, NumPy's %d", #got, #case.values) end
  for i, v in ipairs(case.values) do
    if got[i] ~= v then
      return fmt("element %d is %s, NumPy's %s", i, tostring(got[i]), tostring(v))
    end
  end
  return nil
end

-- Every case through run(xp, case) (which returns pcall's results); fails listing the first
-- disagreements.
local function check_all(xp, cases, describe, run, skip)
  local bad, n = {}, 0
  for _, case in ipairs(cases) do
    if not (skip and skip(case)) then
      n = n + 1
      local why = compare(case, run(xp, case))
      if why and #bad < 10 then bad[#bad + 1] = describe(case) .. ": " .. why end
    end
  end
  assert(n > 0, "no cases")
  assert(#bad == 0, table.concat(bad, "\n"))
end

local function operand(xp, dtype, values)
  if dtype == "bool" then
    local b = {}
    for i, v in ipairs(values) do b[i] = v ~= 0 and v ~= false end
    values = b
  end
  return xp.array(values, dtype)
end

local conds = { { true, false }, { false, true }, { true, true } }

local function run_promotion(xp, case)
  local arrays = {}
  for i, d in ipairs(case.dtypes) do arrays[i] = operand(xp, d, { 1, 0 }) end
  if case.fn == "where" then
    return pcall(xp.where, xp.array(conds[1]), arrays[1], operand(xp, case.dtypes[2], { 0, 1 }))
  elseif case.fn == "select" then
    local c = {}
    for i = 1, #arrays do c[i] = xp.array(conds[i]) end
    return pcall(xp.select, c, arrays)
  end
  return pcall(xp[case.fn], arrays)
end

local function run_power(xp, case)
  if case.base_scalar then
    return pcall(xp.power, case.base_scalar, operand(xp, case.exponent_dtype,
      case.exponent_values))
  end
  local base = operand(xp, case.base, case.base_values)
  if case.exponent_dtype then
    return pcall(xp.power, base, operand(xp, case.exponent_dtype, case.exponent_values))
  end
  return pcall(function() return base ^ case.exponent end)
end

local function run_linspace(xp, case)
  return pcall(xp.linspace, case.start, case.stop, case.num,
    { dtype = case.dtype, endpoint = case.endpoint })
end

describe("NumPy 2's recorded answers", function()
  it("cover every part", function()
    assert.is_true(#data.promotion > 2000 and #data.power > 200 and #data.linspace > 300)
  end)
  for _, b in ipairs(H.backends) do
    b.it("promotion of n-ary functions: result_type of all operands at once", function()
      check_all(b.xp, data.promotion, function(c)
        return fmt("%s(%s)", c.fn, table.concat(c.dtypes, ", "))
      end, run_promotion)
    end)
    b.it("integer powers, negative exponents a ValueError", function()
      check_all(b.xp, data.power, function(c)
        return fmt("power(%s %s, %s %s)", c.base or "number", tostring(c.base_scalar or ""),
          c.exponent_dtype or "number", tostring(c.exponent or ""))
      end, run_power, function(c)
        return b.name == "gpu" and c.error == "ValueError" and c.exponent_dtype ~= nil
      end)
    end)
    b.it("linspace with integer dtypes", function()
      check_all(b.xp, data.linspace, function(c)
        return fmt("linspace(%s, %s, %d, %s, endpoint=%s)", c.start, c.stop, c.num, c.dtype,
          tostring(c.endpoint))
      end, run_linspace)
    end)
  end
end)
