-- The error-kind rules (README, "Errors"): every misuse raises a cuarr error object, never a
-- plain Lua string, and the same misuse raises the same kind wherever it happens.
--
--   an axis out of range            IndexError     a non-integer axis (1.5, "x", {})   TypeError
--   an index out of range, 0        IndexError     a non-integer index or range bound  TypeError
--   an unknown dtype name           TypeError      (a name with a NUL byte is unknown)
--   a non-integral count or extent  TypeError      a negative extent                   ValueError
--   the wrong object for a method   TypeError
--
-- Each rule runs over every function that takes an axis, an index or a dtype, enumerated
-- below from lists: on host arrays here, on device arrays under #gpu.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local core = require "cuarr.core"

-- raises(kind, fn, ...): fn(...) raises an error object of `kind` (a plain string fails).
local raises = H.raises

-- fn() either returns or raises an error object; a plain Lua string fails.
local function no_plain_error(what, fn, ...)
  local ok, err = pcall(fn, ...)
  if not ok then
    assert(cuarr.is_error(err), what .. ": raised a plain error: " .. tostring(err))
  end
end

-------------------------------------------------------------------------------------------------
-- Finding 9: each of these raised a plain Lua string.

describe("error objects, never plain strings", function()
  it("asnumpy of a number is a TypeError", function()
    raises("TypeError", cuarr.asnumpy, 5)
    raises("TypeError", cuarr.asnumpy, {})
  end)

  it("with_device and with_stream check the function first", function()
    raises("TypeError", cuarr.with_device, 0, nil)
    raises("TypeError", cuarr.with_device, 0, 5)
    raises("TypeError", cuarr.with_stream, nil, print)
  end)

  it("linalg.norm with an axis beyond the integers", function()
    local a = cuarr.cpu.arange(6):reshape(2, 3):astype("float64")
    raises("TypeError", cuarr.linalg.norm, a, 2, 1e300)
    raises("TypeError", cuarr.linalg.norm, a, 2, -1e300)
    raises("TypeError", cuarr.linalg.norm, a, 2, 0 / 0)
    raises("TypeError", cuarr.linalg.norm, a, nil, { 1, 1e300 })
  end)

  it("the error object's __tostring survives a changed kind or message", function()
    local e = H.raises("ValueError", core.raise, "ValueError", "boom")
    assert.are.equal("cuarr.ValueError: boom", tostring(e))
    e.kind = 5
    assert.are.equal("cuarr.5: boom", tostring(e))
    e.kind = {}
    assert.are.equal("cuarr.Error: boom", tostring(e))
    e.kind = nil
    e.message = {}
    assert.are.equal("cuarr.Error: ", tostring(e))
    e.kind, e.message = "TypeError", 2.5
    assert.are.equal("cuarr.TypeError: 2.5", tostring(e))
    e.message = "before\0after" -- printed whole
    assert.are.equal("cuarr.TypeError: before\0after", tostring(e))
    e = H.raises("ValueError", core.raise, "ValueError", "a\0b")
    assert.are.equal("a\0b", e.message)
    local tostr = getmetatable(e).__tostring
    raises("TypeError", tostr, 5)
    raises("TypeError", tostr, nil)
    raises("TypeError", tostr, io.stdout)
  end)

  it("core.raise checks its arguments", function()
    raises("ValueError", core.raise, "NoSuchKind", "x")
    raises("TypeError", core.raise, nil, "x")
    raises("TypeError", core.raise, "ValueError", {})
    raises("ValueError", core.raise, "ValueError\0junk", "x")
  end)

  it("tostring of a wrong object through the array's __tostring", function()
    local tostr = cuarr.ndarray.__tostring
    raises("TypeError", tostr, {})
    raises("TypeError", tostr, 5)
    raises("TypeError", cuarr.ndarray.methods.str, {})
  end)
end)

-- Every metamethod, method and field of every class, called with the wrong object: tables,
-- numbers, a userdata of another library, and each other class's objects.
describe("the wrong object for a class", function()
  local function objects()
    local t = { tbl = {}, num = 5, str = "x", file = io.stdout, arr = cuarr.cpu.arange(3) }
    -- The device classes' objects need a driver (the stand-in of tools/fake_cuda will do).
    if cuarr.is_available() then
      t.stream = cuarr.Stream()
      t.event = cuarr.Event()
      t.device = cuarr.Device(0)
      t.pool = cuarr.get_default_memory_pool()
    end
    return t
  end

  -- name -> metatable of every class, the kernels' ones too (not in core.metatables).
  local function classes()
    local mts = {}
    for name, mt in pairs(core.metatables) do mts[name] = mt end
    local reg = debug.getregistry()
    for _, name in ipairs { "cuarr.ElementwiseKernel", "cuarr.ReductionKernel" } do
      if reg[name] then mts[name] = reg[name] end
    end
    return mts
  end

  it("every metamethod raises an error object (or answers)", function()
    local objs = objects()
    local n = 0
    for cname, mt in pairs(classes()) do
      for mm, f in pairs(mt) do
        if type(f) == "function" then
          for oname, o in pairs(objs) do
            if getmetatable(o) ~= mt then
              n = n + 1
              no_plain_error(cname .. "." .. mm .. "(" .. oname .. ")", f, o, "x")
              no_plain_error(cname .. "." .. mm .. "(" .. oname .. ", true)", f, o, true)
            end
          end
        end
      end
    end
    assert.is_true(n > 50)
  end)

  it("Stream, Event, Device and MemoryPool metamethods given another object: TypeErrors", function()
    local mts = classes()
    for _, cname in ipairs { "Stream", "Event", "Device" } do
      local index = mts[cname].__index -- fields: a function, not the methods table
      assert.is_function(index)
      raises("TypeError", index, {}, "device")
      raises("TypeError", index, io.stdout, "device")
      raises("TypeError", index, cuarr.cpu.arange(3), "device")
    end
    for _, cname in ipairs { "Stream", "Event", "Device", "MemoryPool" } do
      local n = 0
      for _, mm in ipairs { "__tostring", "__gc", "__close" } do
        local f = mts[cname][mm]
        if f then
          n = n + 1
          raises("TypeError", f, {})
          raises("TypeError", f, io.stdout)
          raises("TypeError", f, cuarr.cpu.arange(3))
        end
      end
      assert.is_true(n > 0, cname)
    end
  end)

  it("every method raises an error object when self is wrong", function()
    local objs = objects()
    for cname, mt in pairs(classes()) do
      if type(mt.methods) == "table" then
        for mname, f in pairs(mt.methods) do
          for oname, o in pairs(objs) do
            if getmetatable(o) ~= mt then
              no_plain_error(cname .. ":" .. mname .. "(" .. oname .. ")", f, o)
            end
          end
        end
      end
    end
  end)

  it("the front end's scope guards check self", function()
    local mts = classes()
    raises("TypeError", mts.Device.methods.enter, {})
    raises("TypeError", mts.Stream.methods.enter, 5)
  end)
end)

-- Kernels are made without a device (they compile on first use); calling one needs a device.
describe("user kernels", function()
  local function kernels()
    return cuarr.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum_k"),
      cuarr.ElementwiseKernel("T x", "T y", "y = x", "copy_k")
  end

  it("r[true] and r[{}] are TypeErrors", function()
    local r, e = kernels()
    for _, k in ipairs { r, e } do
      raises("TypeError", function() return k[true] end)
      raises("TypeError", function() return k[{}] end)
      raises("IndexError", function() return k.no_such_field end)
    end
  end)

  it("a kernel's metamethods with another object are TypeErrors", function()
    local r, e = kernels()
    local rmt, emt = debug.getmetatable(r), debug.getmetatable(e)
    for _, mt in ipairs { rmt, emt } do
      raises("TypeError", mt.__gc, {})
      raises("TypeError", mt.__close, io.stdout)
      raises("TypeError", mt.__index, {}, "nin")
      raises("TypeError", mt.__call, {})
    end
    raises("TypeError", rmt.__gc, e)
    raises("TypeError", emt.__close, r)
    assert.are.equal(1, r.nin) -- both still open
    assert.are.equal(1, e.nin)
  end)

  H.gpu_it("a ReductionKernel's axis: the rule's kinds", function()
    local r = kernels()
    local x = cuarr.arange(6):reshape(2, 3)
    raises("IndexError", r, x, { axis = 3 })
    raises("IndexError", r, x, { axis = { 1, -3 } })
    raises("TypeError", r, x, { axis = 1.5 })
    raises("TypeError", r, x, { axis = "x" })
    raises("ValueError", r, x, { axis = { 1, 1 } })
    assert.are.same({ 3 }, r(x, { axis = 1.0 }).shape)
  end)
end)

-- Every function of the module (and cuarr.cpu, cuarr.linalg), every method and metamethod of
-- every class, called with each pair of a set of wrong values: whatever is raised is an error
-- object.  Enumerated, not listed, so that a new function is covered when it is added.
describe("every public function with wrong values", function()
  local function values()
    local v = { false, 5, 1.5, -1, 0 / 0, "x", "float32\0x", {}, { 1, 2 }, true, io.stdout,
                cuarr.cpu.arange(6):reshape(2, 3), function() end, coroutine.create(print) }
    v[1] = nil -- nil first: the hole is read as an absent argument
    return v, 14
  end
  -- Changes the state for the specs after this one when it succeeds.
  local skip = { set_default_dtype = true }

  local function sweep(where, t, count)
    for name, f in pairs(t) do
      if type(f) == "function" and not skip[name] then
        local v, n = values()
        for i = 1, n do
          for j = 1, n do
            count[1] = count[1] + 1
            no_plain_error(where .. name, f, v[i], v[j], v[(i + j) % n + 1])
          end
        end
      end
    end
  end

  it("raises error objects only", function()
    local count = { 0 }
    sweep("cuarr.", cuarr, count)
    sweep("cuarr.cpu.", cuarr.cpu, count)
    sweep("cuarr.linalg.", cuarr.linalg, count)
    for cname, mt in pairs(core.metatables) do
      sweep(cname .. ".", mt, count)
      if type(mt.methods) == "table" then sweep(cname .. ":", mt.methods, count) end
    end
    assert.are.equal("float64", cuarr.get_default_dtype())
    assert.is_true(count[1] > 10000)
  end)
end)

-------------------------------------------------------------------------------------------------
-- Finding 10: one kind per misuse.

-- Every function that takes an axis: name, and how it is called with axis k on a 2-D array.
local AXIS_FUNCTIONS = {}
for _, op in ipairs { "sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "all",
                      "any", "count_nonzero", "nansum", "nanprod", "nanmin", "nanmax",
                      "cumsum", "cumprod", "mean", "var", "std", "nanmean", "ptp" } do
  AXIS_FUNCTIONS[#AXIS_FUNCTIONS + 1] = { op, function(xp, a, k) return xp[op](a, k) end }
  AXIS_FUNCTIONS[#AXIS_FUNCTIONS + 1] = { op .. "{axis=}",
    function(_, a, k) return a[op](a, { axis = k }) end }
end
local more = {
  { "linalg.norm", function(xp, a, k) return xp.linalg.norm(a, nil, k) end },
  { "swapaxes (first)", function(xp, a, k) return xp.swapaxes(a, k, 1) end },
  { "swapaxes (second)", function(_, a, k) return a:swapaxes(1, k) end },
  { "squeeze", function(xp, a, k) return xp.squeeze(a:reshape(1, 6):reshape(2, 3), k) end },
  { "expand_dims", function(xp, a, k) return xp.expand_dims(a, k) end },
  { "transpose", function(xp, a, k) return xp.transpose(a, { k, 1 }) end },
  { "transpose (arguments)", function(_, a, k) return a:transpose(1, k) end },
}
for _, f in ipairs(more) do AXIS_FUNCTIONS[#AXIS_FUNCTIONS + 1] = f end

-- Each function with an axis k on a (2, 3) float array (squeeze's axis 1 is of size 2: a
-- ValueError, a wrong value of the right type, is its own rule).
local function axis_rules(b)
  local xp = b.xp
  for _, f in ipairs(AXIS_FUNCTIONS) do
    local name, call = f[1], f[2]
    b.it(name .. ": an axis out of range is an IndexError, a non-integer one a TypeError",
      function()
        local a = xp.arange(6):reshape(2, 3):astype("float64")
        for _, k in ipairs { 4, -4, 0, 100, math.maxinteger, math.mininteger } do
          raises("IndexError", call, xp, a, k)
        end
        for _, k in ipairs { 1.5, -0.5, 1e300, 0 / 0, math.huge, "1", true, function() end } do
          raises("TypeError", call, xp, a, k)
        end
      end)
  end
end

for _, b in ipairs(H.backends) do describe("axes", function() axis_rules(b) end) end

-- Every way of indexing: name, and how it reads (or writes) with index value i.
local INDEXINGS = {
  { "a[i]", function(a, i) return a[i] end },
  { "a[i] = v", function(a, i) a[i] = 0 end },
  { "a[{i, 1}]", function(a, i) return a[{ i, 1 }] end },
  { "a[{1, i}]", function(a, i) return a[{ 1, i }] end },
  { "a[{i, 1}] = v", function(a, i) a[{ i, 1 }] = 0 end },
  { "a[{{i}}]", function(a, i) return a[{ { i } }] end },
  { "a[{{i, 2}}]", function(a, i) return a[{ { i, 2 } }] end },
  { "a[{{1, i}}]", function(a, i) return a[{ { 1, i } }] end },
  { "a[{{}, {1, 2, i}}] (step)", function(a, i) return a[{ {}, { 1, 2, i } }] end },
  { "a[{{i}}] = v", function(a, i) a[{ { i } }] = 0 end },
}

local function index_rules(b)
  local xp = b.xp
  for _, f in ipairs(INDEXINGS) do
    local name, index = f[1], f[2]
    b.it(name .. ": a non-integer index is a TypeError and leaves the array as it was",
      function()
        local a = xp.arange(6):reshape(2, 3)
        local before = a:totable()
        for _, i in ipairs { 1.5, -0.5, 1e300, 0 / 0, true, function() end } do
          raises("TypeError", index, a, i)
          assert.are.same(before, a:totable())
        end
        index(a, 1.0) -- an integral float is its integer
      end)
  end
  -- Out of range: the first axis has 2 entries (a range clamps as NumPy's slices, so only
  -- 0 is out of range there; a step of 0 is a ValueError).
  for _, f in ipairs { INDEXINGS[1], INDEXINGS[2], INDEXINGS[3], INDEXINGS[5] } do
    b.it(f[1] .. ": an index out of range is an IndexError", function()
      local a = xp.arange(6):reshape(2, 3)
      for _, i in ipairs { 0, 3, -3, math.maxinteger, math.mininteger } do
        raises("IndexError", f[2], a, i)
      end
    end)
  end
  b.it("a range with bound 0 is an IndexError, a step of 0 a ValueError", function()
    local a = xp.arange(6):reshape(2, 3)
    raises("IndexError", function() return a[{ { 0 } }] end)
    raises("ValueError", function() return a[{ {}, { 1, 2, 0 } }] end)
  end)
end

for _, b in ipairs(H.backends) do describe("indices", function() index_rules(b) end) end

-- Every function that takes a dtype: name, and how it is called with dtype d.
local DTYPE_FUNCTIONS = {
  { "empty", function(xp, d) return xp.empty(3, d) end },
  { "zeros", function(xp, d) return xp.zeros(3, d) end },
  { "ones", function(xp, d) return xp.ones(3, d) end },
  { "full", function(xp, d) return xp.full(3, 1, d) end },
  { "zeros{dtype=}", function(xp, d) return xp.zeros(3, { dtype = d }) end },
  { "empty_like", function(xp, d) return xp.empty_like(xp.arange(3), d) end },
  { "zeros_like", function(xp, d) return xp.zeros_like(xp.arange(3), d) end },
  { "ones_like", function(xp, d) return xp.ones_like(xp.arange(3), d) end },
  { "full_like", function(xp, d) return xp.full_like(xp.arange(3), 1, d) end },
  { "arange", function(xp, d) return xp.arange(3, d) end },
  { "linspace", function(xp, d) return xp.linspace(0, 1, 3, d) end },
  { "eye", function(xp, d) return xp.eye(3, 3, 0, d) end },
  { "identity", function(xp, d) return xp.identity(3, d) end },
  { "array", function(xp, d) return xp.array({ 1, 2 }, d) end },
  { "asarray", function(xp, d) return xp.asarray({ 1, 2 }, d) end },
  { "astype", function(xp, d) return xp.arange(3):astype(d) end },
  { "ascontiguousarray", function(xp, d) return xp.ascontiguousarray(xp.arange(3), d) end },
  { "sum{dtype=}", function(xp, d) return xp.arange(3):sum { dtype = d } end },
  { "cumsum{dtype=}", function(xp, d) return xp.arange(3):cumsum { dtype = d } end },
  { "mean{dtype=}", function(xp, d) return xp.mean(xp.arange(3), { dtype = d }) end },
  { "set_default_dtype", function(xp, d) return xp.set_default_dtype(d) end },
}

local function dtype_rules(b)
  for _, f in ipairs(DTYPE_FUNCTIONS) do
    local name, call = f[1], f[2]
    b.it(name .. ": an unknown dtype name is a TypeError, a NUL byte makes it unknown", function()
      for _, d in ipairs { "nope", "float32\0x", "float64\0", "\0float32", "f\0", true } do
        raises("TypeError", call, b.xp, d)
      end
      assert.are.equal("float64", cuarr.get_default_dtype())
    end)
  end
end

for _, b in ipairs(H.backends) do describe("dtypes", function() dtype_rules(b) end) end

-- Integers: a count, an extent, a priority.  A number with a fractional part (or none that
-- fits an integer) where an integer is needed is a TypeError; a negative extent a ValueError.
describe("integers on the host", function()
  local xp = cuarr.cpu
  local INTEGER_ARGS = {
    { "zeros", function(n) return xp.zeros(n) end },
    { "zeros{n}", function(n) return xp.zeros({ 2, n }) end },
    { "reshape", function(n) return xp.arange(6):reshape(n, -1) end },
    { "linspace num", function(n) return xp.linspace(0, 1, n) end },
    { "eye N", function(n) return xp.eye(n) end },
    { "eye k", function(n) return xp.eye(3, 3, n) end },
  }
  for _, f in ipairs(INTEGER_ARGS) do
    it(f[1] .. ": a non-integral number is a TypeError", function()
      for _, n in ipairs { 2.5, 1e300, 0 / 0, "2" } do raises("TypeError", f[2], n) end
    end)
  end
  it("a negative extent is a ValueError", function()
    raises("ValueError", xp.zeros, -1)
    raises("ValueError", xp.zeros, { 2, -1 })
  end)
end)

describe("strings are read with their length", function()
  it("an error kind, an option string with a NUL byte", function()
    raises("TypeError", cuarr.cpu.zeros, 3, "int32\0")
    raises("ValueError", core.raise, "TypeError\0", "x")
  end)

  it("a kernel's source, name, identity or option with a NUL byte is a ValueError", function()
    -- Kernels are made without a device (they compile on first use).
    local EK, RK = cuarr.ElementwiseKernel, cuarr.ReductionKernel
    raises("ValueError", EK, "T x", "T y", "y = x;\0 garbage", "k")
    raises("ValueError", EK, "T x\0", "T y", "y = x", "k")
    raises("ValueError", EK, "T x", "T y", "y = x", "k\0x")
    raises("ValueError", EK, "T x", "T y", "y = x", { name = "k\0x" })
    raises("ValueError", EK, "T x", "T y", "y = x", "k", { preamble = "//\0" })
    raises("ValueError", EK, "T x", "T y", "y = x", "k", { options = { "-DX\0" } })
    raises("ValueError", RK, "T x", "T y", "x", "a + b\0", "y = a", "0", "k")
    raises("ValueError", RK, "T x", "T y", "x", "a + b", "y = a", "0\0", "k")
    raises("ValueError", RK, "T x", "T y", "x", "a + b", "y = a", "0", "k", { reduce_type = "T\0" })
  end)
end)

describe("table lengths", function()
  it("an axis table whose __len is not an integer is a TypeError", function()
    local a = cuarr.cpu.arange(6):reshape(2, 3)
    local bad = setmetatable({}, { __len = function() return 1.5 end })
    raises("TypeError", a.sum, a, bad)
    raises("TypeError", a.transpose, a, bad)
    raises("TypeError", a.reshape, a, bad)
    raises("TypeError", function() return a[bad] end)
    raises("TypeError", function() return a[{ bad }] end)
    raises("TypeError", cuarr.cpu.zeros, bad)
  end)
end)
