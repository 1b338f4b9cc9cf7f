-- Bad input: every misuse raises an error object of the documented kind, with a
-- message that says what was wrong, and leaves every array involved as it was.
--
-- The spec is a table of cases.  Each case is
--   { name, kind, match = text the message must contain,
--     setup = function(xp) return { named arrays and other objects } end,   (optional)
--     misuse = function(t, xp) ... end,
--     check = function(t) return some state that must not change end }     (optional)
-- For each case every array in t is snapshotted (shape, dtype, values; or the error a dead
-- array raises) before the misuse and compared afterwards.
--
-- The groups: `both` runs on host arrays (cuarr.cpu) and on device arrays (cuarr, #gpu);
-- `host` runs the same on every machine (arguments checked before any device is touched);
-- `per_machine` expects ValueError with a GPU and NotAvailable without a driver; `no_gpu` is
-- device work on a machine without one (NotAvailable); `gpu` needs a device; `multigpu` two.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local misuse = require "spec.support.misuse"

local function run_case(case, xp) misuse.run(H, case, xp) end

-- Setups shared by many cases.
local function a2x3(xp) return { a = xp.arange(6):reshape(2, 3) } end
local function ones_list(n)
  local t = {}
  for i = 1, n do t[i] = 1 end
  return t
end
-- A freed array, a view of it taken before the free, and a live array beside them.
local function freed(xp)
  local f = xp.arange(3)
  local v = f[{ { 1, 2 } }]
  f:free()
  return { f = f, v = v, a = xp.arange(3) }
end
-- An array whose <close> variable went out of scope, and a live one.
local function closed(xp)
  local x
  do
    local y <close> = xp.arange(3)
    x = y
  end
  return { x = x, a = xp.arange(3) }
end

-------------------------------------------------------------------------------------------------
-- On host arrays and on device arrays alike.

local both = {
  -- creation: shapes
  { "zeros with a string shape", "TypeError", match = "shape",
    misuse = function(_, xp) return xp.zeros("abc") end },
  { "zeros with a boolean shape", "TypeError", match = "shape",
    misuse = function(_, xp) return xp.zeros(true) end },
  { "zeros with a nested table in the shape", "TypeError", match = "position 1",
    misuse = function(_, xp) return xp.zeros({ { 1 }, 2 }) end },
  { "zeros with a negative extent", "ValueError", match = "negative",
    misuse = function(_, xp) return xp.zeros({ 2, -1 }) end },
  { "zeros with a negative size", "ValueError", match = "negative",
    misuse = function(_, xp) return xp.zeros(-3) end },
  { "ones with a fractional extent 2.5", "TypeError", match = "2.5",
    misuse = function(_, xp) return xp.ones({ 2.5 }) end },
  { "empty with a NaN extent", "TypeError", match = "integers",
    misuse = function(_, xp) return xp.empty({ 0 / 0 }) end },
  { "empty with an infinite extent", "TypeError", match = "inf",
    misuse = function(_, xp) return xp.empty({ 3, math.huge }) end },
  { "zeros with 33 dimensions", "ValueError", match = "32",
    misuse = function(_, xp) return xp.zeros(ones_list(33)) end },
  { "zeros {2^40, 2^40}: the byte size overflows int64", "ValueError", match = "too big",
    misuse = function(_, xp) return xp.zeros({ 2 ^ 40, 2 ^ 40 }) end },
  { "empty {math.maxinteger}: one extent's bytes overflow int64", "ValueError", match = "too big",
    misuse = function(_, xp) return xp.empty({ math.maxinteger }) end },
  { "empty of 2^50 bytes: more memory than there is", "OutOfMemoryError", match = "bytes",
    misuse = function(_, xp) return xp.empty({ 1 << 20, 1 << 20, 1 << 7 }, "float64") end },
  -- creation: dtypes and options
  { "zeros with the unknown dtype float128", "TypeError", match = "float128",
    misuse = function(_, xp) return xp.zeros(3, "float128") end },
  { "zeros with a dtype given as a number", "TypeError", match = "dtype",
    misuse = function(_, xp) return xp.zeros(3, 5) end },
  { "zeros with {dtype = 5}", "TypeError", match = "dtype",
    misuse = function(_, xp) return xp.zeros(3, { dtype = 5 }) end },
  { "ones with {dtype = 'complex64'}", "TypeError", match = "complex64",
    misuse = function(_, xp) return xp.ones(3, { dtype = "complex64" }) end },
  { "zeros with a junk argument after the dtype", "TypeError", match = "argument #3",
    misuse = function(_, xp) return xp.zeros(3, "float32", 5) end },
  { "zeros with {pinned = 'yes'}", "TypeError", match = "pinned",
    misuse = function(_, xp) return xp.zeros(3, "float32", { pinned = "yes" }) end },
  -- creation: values and the other constructors
  { "full with a string value", "TypeError", match = "fill value",
    misuse = function(_, xp) return xp.full(3, "x") end },
  { "full with a table value", "TypeError", match = "table",
    misuse = function(_, xp) return xp.full(3, { 1 }) end },
  { "full_like with a string value", "TypeError", match = "fill value", setup = a2x3,
    misuse = function(t, xp) return xp.full_like(t.a, "x") end },
  { "zeros_like of a number", "TypeError", match = "array",
    misuse = function(_, xp) return xp.zeros_like(5) end },
  { "empty_like with an unknown dtype", "TypeError", match = "float128", setup = a2x3,
    misuse = function(t, xp) return xp.empty_like(t.a, "float128") end },
  { "arange with step 0", "ValueError", match = "step",
    misuse = function(_, xp) return xp.arange(0, 5, 0) end },
  { "arange with a float step 0.0", "ValueError", match = "step",
    misuse = function(_, xp) return xp.arange(0.0, 1.0, 0.0) end },
  { "arange with a string", "TypeError", match = "arange",
    misuse = function(_, xp) return xp.arange("10") end },
  { "arange to infinity", "ValueError", match = "finite",
    misuse = function(_, xp) return xp.arange(0, math.huge) end },
  { "arange(math.mininteger, math.maxinteger): the length overflows", "ValueError",
    match = "too many",
    misuse = function(_, xp) return xp.arange(math.mininteger, math.maxinteger) end },
  { "linspace with a negative num", "ValueError", match = "num",
    misuse = function(_, xp) return xp.linspace(0, 1, -1) end },
  { "linspace with num 2.5", "TypeError", match = "num",
    misuse = function(_, xp) return xp.linspace(0, 1, 2.5) end },
  { "linspace with a string start", "TypeError", match = "start",
    misuse = function(_, xp) return xp.linspace("0", 1) end },
  { "eye with a negative N", "ValueError", match = "negative",
    misuse = function(_, xp) return xp.eye(-1) end },
  { "eye with a negative M", "ValueError", match = "negative",
    misuse = function(_, xp) return xp.eye(3, -2) end },
  { "eye with N = 2.5", "TypeError", match = "(N)",
    misuse = function(_, xp) return xp.eye(2.5) end },
  { "identity with a string", "TypeError", match = "(n)",
    misuse = function(_, xp) return xp.identity("3") end },
  { "array from a ragged table", "ValueError", match = "inhomogeneous",
    misuse = function(_, xp) return xp.array({ { 1, 2 }, { 3 } }) end },
  { "array from a table holding a string", "TypeError", match = "string",
    misuse = function(_, xp) return xp.array({ 1, "x" }) end },
  { "array from a string", "TypeError", match = "string",
    misuse = function(_, xp) return xp.array("1, 2") end },
  { "array from a table nested 40 levels deep", "ValueError", match = "32",
    misuse = function(_, xp)
      local v = 1
      for _ = 1, 40 do v = { v } end
      return xp.array(v)
    end },
  { "array with an unknown dtype", "TypeError", match = "float128",
    misuse = function(_, xp) return xp.array({ 1, 2 }, "float128") end },

  -- indexing
  { "a[0]: indices start at 1", "IndexError", match = "index 0", setup = a2x3,
    misuse = function(t) return t.a[0] end },
  { "a[3]: past the end", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a[3] end },
  { "a[-3]: before the start", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a[-3] end },
  { "a[{1, 4}]: past the end of the second axis", "IndexError", match = "out of bounds",
    setup = a2x3, misuse = function(t) return t.a[{ 1, 4 }] end },
  { "a[{1, 1, 1}]: too many indices", "IndexError", match = "too many", setup = a2x3,
    misuse = function(t) return t.a[{ 1, 1, 1 }] end },
  { "a[1.5]", "TypeError", match = "integers", setup = a2x3,
    misuse = function(t) return t.a[1.5] end },
  { "a[{1, 1.5}]", "TypeError", match = "integers", setup = a2x3,
    misuse = function(t) return t.a[{ 1, 1.5 }] end },
  { "a.foo: an unknown field", "IndexError", match = "foo", setup = a2x3,
    misuse = function(t) return t.a.foo end },
  { "a[true]: a boolean key", "TypeError", match = "boolean", setup = a2x3,
    misuse = function(t) return t.a[true] end },
  { "a range with step 0", "ValueError", match = "step", setup = a2x3,
    misuse = function(t) return t.a[{ {}, { 1, 3, 0 } }] end },
  { "a range with string bounds", "TypeError", match = "integers", setup = a2x3,
    misuse = function(t) return t.a[{ {}, { "1", 3 } }] end },
  { "a range with a fractional bound", "TypeError", match = "1.5", setup = a2x3,
    misuse = function(t) return t.a[{ { 1.5, 2 } }] end },
  { "a range of four entries", "IndexError", match = "range", setup = a2x3,
    misuse = function(t) return t.a[{ {}, { 1, 2, 1, 4 } }] end },
  { "an index entry that is a string", "TypeError", match = "index entry", setup = a2x3,
    misuse = function(t) return t.a[{ "x" }] end },
  { "a[{0, 1}]", "IndexError", match = "index 0", setup = a2x3,
    misuse = function(t) return t.a[{ 0, 1 }] end },
  { "a range starting at 0", "IndexError", match = "index 0", setup = a2x3,
    misuse = function(t) return t.a[{ { 0, 2 } }] end },
  { "indexing a 0-d array", "IndexError", match = "0-d",
    setup = function(xp) return { z = xp.zeros({}) } end,
    misuse = function(t) return t.z[1] end },

  -- assignment
  { "a[1] = a string", "TypeError", match = "string", setup = a2x3,
    misuse = function(t) t.a[1] = "x" end },
  { "a[1] = nil", "TypeError", match = "nil", setup = a2x3,
    misuse = function(t) t.a[1] = nil end },
  { "a[1] = an array of shape (4,)", "ValueError", match = "broadcast",
    setup = function(xp) return { a = xp.arange(6):reshape(2, 3), b = xp.arange(4) } end,
    misuse = function(t) t.a[1] = t.b end },
  { "a[1] = an array of shape (2, 3)", "ValueError", match = "broadcast",
    setup = function(xp) return { a = xp.arange(6):reshape(2, 3), b = xp.ones({ 2, 3 }) } end,
    misuse = function(t) t.a[1] = t.b end },
  { "a[1] = {1, 2}", "ValueError", match = "broadcast", setup = a2x3,
    misuse = function(t) t.a[1] = { 1, 2 } end },
  { "a[1] = a table holding a string", "TypeError", match = "string", setup = a2x3,
    misuse = function(t) t.a[1] = { 1, "x", 3 } end },
  { "a[{{1, 2}}] = a ragged table", "ValueError", match = "inhomogeneous", setup = a2x3,
    misuse = function(t) t.a[{ { 1, 2 } }] = { { 1, 2, 3 }, { 4 } } end },
  { "a.shape = {3, 2}: assigning a field", "TypeError", match = "shape", setup = a2x3,
    misuse = function(t) t.a.shape = { 3, 2 } end },
  { "a[0] = 1", "IndexError", match = "index 0", setup = a2x3,
    misuse = function(t) t.a[0] = 1 end },
  { "a[{1, 4}] = 1", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) t.a[{ 1, 4 }] = 1 end },
  { "a[range with step 0] = 1", "ValueError", match = "step", setup = a2x3,
    misuse = function(t) t.a[{ {}, { 1, 3, 0 } }] = 1 end },
  { "a[true] = 1", "TypeError", match = "boolean", setup = a2x3,
    misuse = function(t) t.a[true] = 1 end },
  { "a[{1, 1, 1}] = 1", "IndexError", match = "too many", setup = a2x3,
    misuse = function(t) t.a[{ 1, 1, 1 }] = 1 end },

  -- shape operations
  { "reshape to an incompatible size", "ValueError", match = "cannot reshape", setup = a2x3,
    misuse = function(t) return t.a:reshape(4) end },
  { "reshape with two -1s", "ValueError", match = "unknown", setup = a2x3,
    misuse = function(t) return t.a:reshape(-1, -1) end },
  { "reshape with a negative extent", "ValueError", match = "negative", setup = a2x3,
    misuse = function(t) return t.a:reshape(-2, -3) end },
  { "reshape with a string", "TypeError", match = "shape", setup = a2x3,
    misuse = function(t) return t.a:reshape("6") end },
  { "reshape with a string inside the shape table", "TypeError", match = "shape",
    setup = a2x3, misuse = function(t) return t.a:reshape({ 2, "3" }) end },
  { "reshape whose element count overflows", "ValueError", match = "cannot reshape",
    setup = a2x3, misuse = function(t) return t.a:reshape(1 << 62, 4) end },
  { "reshape with a fractional extent", "TypeError", match = "1.5", setup = a2x3,
    misuse = function(t) return t.a:reshape(1.5, 4) end },
  { "reshape to 33 dimensions", "ValueError", match = "32", setup = a2x3,
    misuse = function(t)
      local s = ones_list(33)
      s[33] = 6
      return t.a:reshape(s)
    end },
  { "reshape (0, -1): an ambiguous unknown extent", "ValueError", match = "cannot reshape",
    setup = a2x3, misuse = function(t) return t.a:reshape(0, -1) end },
  { "transpose with too few axes", "ValueError", match = "axes", setup = a2x3,
    misuse = function(t) return t.a:transpose({ 1 }) end },
  { "transpose with a repeated axis", "ValueError", match = "repeated", setup = a2x3,
    misuse = function(t) return t.a:transpose({ 1, 1 }) end },
  { "transpose with an axis out of range", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a:transpose({ 1, 3 }) end },
  { "transpose with a string axis", "TypeError", match = "axis", setup = a2x3,
    misuse = function(t) return t.a:transpose({ 1, "2" }) end },
  { "swapaxes with an axis out of range", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a:swapaxes(1, 3) end },
  { "swapaxes with a string axis", "TypeError", match = "axis", setup = a2x3,
    misuse = function(t) return t.a:swapaxes(1, "2") end },
  { "squeeze of an axis of size 3", "ValueError", match = "squeeze", setup = a2x3,
    misuse = function(t) return t.a:squeeze(2) end },
  { "squeeze of an axis out of range", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a:squeeze(5) end },
  { "expand_dims past the end", "IndexError", match = "out of bounds", setup = a2x3,
    misuse = function(t) return t.a:expand_dims(4) end },
  { "expand_dims at axis 0", "IndexError", match = "axis 0", setup = a2x3,
    misuse = function(t) return t.a:expand_dims(0) end },
  { "expand_dims of a 32-d array", "ValueError", match = "32",
    setup = function(xp) return { a = xp.zeros(ones_list(32)) } end,
    misuse = function(t) return t.a:expand_dims(1) end },
  { "astype to an unknown dtype", "TypeError", match = "float128", setup = a2x3,
    misuse = function(t) return t.a:astype("float128") end },
  { "astype to a number", "TypeError", match = "dtype", setup = a2x3,
    misuse = function(t) return t.a:astype(5) end },
  { "astype without a dtype", "TypeError", match = "dtype", setup = a2x3,
    misuse = function(t) return t.a:astype() end },
  { "ascontiguousarray with an unknown dtype", "TypeError", match = "float128", setup = a2x3,
    misuse = function(t, xp) return xp.ascontiguousarray(t.a, "float128") end },
  { "fill with a string", "TypeError", match = "fill", setup = a2x3,
    misuse = function(t) return t.a:fill("x") end },
  { "reshape called on a string", "TypeError", match = "array",
    misuse = function(_, xp) return xp.reshape("abc", 3) end },
  { "free called on a number", "TypeError", match = "array", setup = a2x3,
    misuse = function(t) return t.a.free(5) end },

  -- comparisons, conversions, transfers
  { "a < b", "TypeError", match = "a:lt(b)",
    setup = function(xp) return { a = xp.arange(3), b = xp.ones(3) } end,
    misuse = function(t) return t.a < t.b end },
  { "a <= b", "TypeError", match = "a:le(b)",
    setup = function(xp) return { a = xp.arange(3), b = xp.ones(3) } end,
    misuse = function(t) return t.a <= t.b end },
  { "a < 1", "TypeError", match = "boolean", setup = a2x3,
    misuse = function(t) return t.a < 1 end },
  { "# of a 0-d array", "TypeError", match = "0-d",
    setup = function(xp) return { z = xp.zeros({}) } end,
    misuse = function(t) return #t.z end },
  { "item() of a size-3 array", "ValueError", match = "one element",
    setup = function(xp) return { a = xp.arange(3) } end,
    misuse = function(t) return t.a:item() end },
  { "set with an array of another shape", "ValueError", match = "shapes differ",
    setup = function(xp) return { a = xp.arange(6):reshape(2, 3), b = xp.ones(3) } end,
    misuse = function(t) return t.a:set(t.b) end },
  { "set with a table of another shape", "ValueError", match = "shapes differ", setup = a2x3,
    misuse = function(t) return t.a:set({ 1, 2 }) end },
  { "set with a string", "TypeError", match = "array", setup = a2x3,
    misuse = function(t) return t.a:set("x") end },
  { "set with a number as the stream", "TypeError", match = "Stream",
    setup = function(xp) return { a = xp.arange(6):reshape(2, 3), b = xp.ones({ 2, 3 }) } end,
    misuse = function(t) return t.a:set(t.b, 5) end },
  { "copy_to_host into a host array of another shape", "ValueError", match = "shapes differ",
    setup = function(xp) return { a = xp.arange(6):reshape(2, 3), h = cuarr.cpu.ones(3) } end,
    misuse = function(t) return t.a:copy_to_host(t.h) end },
  { "copy_to_host into a string", "TypeError", match = "host array", setup = a2x3,
    misuse = function(t) return t.a:copy_to_host("x") end },
  { "get with a number as the stream", "TypeError", match = "Stream", setup = a2x3,
    misuse = function(t) return t.a:get(5) end },
  { "get with {stream = 'x'}", "TypeError", match = "Stream", setup = a2x3,
    misuse = function(t) return t.a:get({ stream = "x" }) end },

  -- freed arrays: x:free() gives the memory back; every use afterwards is an error
  { "a freed array, indexed", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f[1] end },
  { "a view of a freed array, indexed", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.v[1] end },
  { "a freed array's field", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f.shape end },
  { "a freed array, reshaped", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:reshape(3) end },
  { "a freed array, read with totable", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:totable() end },
  -- (printed, a freed array says so: spec/iteration_spec.lua)
  { "a freed array, iterated with pairs", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return pairs(t.f) end },
  { "# of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return #t.f end },
  { "a freed array, assigned to", "ValueError", match = "freed", setup = freed,
    misuse = function(t) t.f[1] = 2 end },
  { "a view of a freed array, assigned to", "ValueError", match = "freed", setup = freed,
    misuse = function(t) t.v[{ {} }] = 2 end },
  { "a freed array, filled", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:fill(1) end },
  { "a freed array, item()", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:item() end },
  { "a freed array, astype", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:astype("float32") end },
  { "a freed array, get", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:get() end },
  { "a view of a freed array, copied", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.v:copy() end },
  { "a view of a freed array, transposed", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.v:transpose() end },
  { "a freed array as the source of set", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.a:set(t.f) end },
  { "a freed array as the value of an assignment", "ValueError", match = "freed", setup = freed,
    misuse = function(t) t.a[{ {} }] = t.f end },
  { "a freed array given to zeros_like", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.zeros_like(t.f) end },
  { "a freed array given to array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.array(t.f) end },
  { "a freed array given to asarray", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.asarray(t.f) end },
  { "a freed array given to reshape", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.reshape(t.f, 3) end },
  { "a freed array given to get_array_module", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return cuarr.get_array_module(t.f) end },
  { "a <close>d array, indexed", "ValueError", match = "closed", setup = closed,
    misuse = function(t) return t.x[1] end },
  { "a <close>d array, read with totable", "ValueError", match = "closed", setup = closed,
    misuse = function(t) return t.x:totable() end },
  { "a <close>d array, assigned to", "ValueError", match = "closed", setup = closed,
    misuse = function(t) t.x[1] = 5 end },
  { "a <close>d array as the source of set", "ValueError", match = "closed", setup = closed,
    misuse = function(t) return t.a:set(t.x) end },
}

for _, b in ipairs(H.backends) do
  describe("bad input", function()
    for _, case in ipairs(both) do
      b.it(case[1] .. " raises " .. case[2], function()
        run_case({ kind = case[2], match = case.match, setup = case.setup, misuse = case.misuse,
                   check = case.check }, b.xp)
      end)
    end
  end)
end

-------------------------------------------------------------------------------------------------
-- Checked before any device is touched: the same error on every machine.

local host = {
  { "Stream with a number", "TypeError", match = "options table",
    misuse = function() return cuarr.Stream(5) end },
  { "Stream with a string", "TypeError", match = "options table",
    misuse = function() return cuarr.Stream("fast") end },
  { "Stream{non_blocking = 'yes'}", "TypeError", match = "non_blocking",
    misuse = function() return cuarr.Stream { non_blocking = "yes" } end },
  { "Stream{priority = 'high'}", "TypeError", match = "priority",
    misuse = function() return cuarr.Stream { priority = "high" } end },
  { "Stream{priority = 1.5}", "TypeError", match = "priority",
    misuse = function() return cuarr.Stream { priority = 1.5 } end },
  { "Event with a number", "TypeError", match = "options table",
    misuse = function() return cuarr.Event(5) end },
  { "Event{timing = 'no'}", "TypeError", match = "timing",
    misuse = function() return cuarr.Event { timing = "no" } end },
  { "Event{blocking = 1}", "TypeError", match = "blocking",
    misuse = function() return cuarr.Event { blocking = 1 } end },
  { "get_elapsed_time of numbers", "TypeError", match = "Event",
    misuse = function() return cuarr.get_elapsed_time(1, 2) end },
  { "get_elapsed_time of nothing", "TypeError", match = "Event",
    misuse = function() return cuarr.get_elapsed_time() end },
  { "to_device with a number as the stream", "TypeError", match = "Stream",
    setup = function() return { h = cuarr.cpu.arange(4) } end,
    misuse = function(t) return cuarr.to_device(t.h, 5) end },
  { "to_device of a string", "TypeError", match = "array",
    misuse = function() return cuarr.to_device("1 2 3") end },
  { "to_device of a table holding a string", "TypeError", match = "string",
    misuse = function() return cuarr.to_device({ 1, "x" }) end },
  { "Device with a string id", "TypeError", match = "device id",
    misuse = function() return cuarr.Device("0") end },
  { "Device with a table id", "TypeError", match = "device id",
    misuse = function() return cuarr.Device({}) end },
  { "Device(1.5)", "TypeError", match = "1.5",
    misuse = function() return cuarr.Device(1.5) end },
  { "set_default_dtype to an integer dtype", "ValueError", match = "int32",
    check = function() return cuarr.get_default_dtype() end,
    misuse = function() return cuarr.set_default_dtype("int32") end },
  { "set_default_dtype to an unknown dtype", "TypeError", match = "float128",
    check = function() return cuarr.get_default_dtype() end,
    misuse = function() return cuarr.cpu.set_default_dtype("float128") end },
  { "set_default_dtype to a number", "TypeError", match = "dtype",
    check = function() return cuarr.get_default_dtype() end,
    misuse = function() return cuarr.set_default_dtype(32) end },
  { "cpu.reshape of a table", "TypeError", match = "array",
    misuse = function() return cuarr.cpu.reshape({ 1, 2, 3, 4 }, 2, 2) end },
}

describe("bad input, checked before any device is used", function()
  for _, case in ipairs(host) do
    it(case[1] .. " raises " .. case[2], function()
      run_case({ kind = case[2], match = case.match, setup = case.setup, misuse = case.misuse,
                 check = case.check }, cuarr.cpu)
    end)
  end

  it("with_device with a string raises TypeError", function()
    H.raises("TypeError", cuarr.with_device, "x", function() end)
  end)
  it("with_stream with a number raises TypeError", function()
    H.raises("TypeError", cuarr.with_stream, 5, function() end)
  end)
end)

-------------------------------------------------------------------------------------------------
-- Device ids that do not exist: ValueError with a GPU, NotAvailable without a driver.

local missing = H.has_gpu and "ValueError" or "NotAvailable"
local missing_match = H.has_gpu and "does not exist" or "CUDA"
local per_machine = {
  { "Device(99)", function() return cuarr.Device(99) end },
  { "Device(-1)", function() return cuarr.Device(-1) end },
  { "Device(2^40): an id beyond int", function() return cuarr.Device(2 ^ 40) end },
  { "Device(2^32): an id that would wrap round to 0", function() return cuarr.Device(1 << 32) end },
  { "with_device(99, fn)", function() return cuarr.with_device(99, function() end) end },
}

describe("bad input: devices that do not exist", function()
  for _, case in ipairs(per_machine) do
    it(case[1] .. " raises " .. missing, function()
      run_case({ kind = missing, match = missing_match,
                 setup = function() return { h = cuarr.cpu.arange(3) } end,
                 misuse = case[2] }, cuarr.cpu)
    end)
  end
end)

-------------------------------------------------------------------------------------------------
-- Device work without a GPU: NotAvailable, naming what is missing.

local no_gpu = {
  { "cuarr.zeros", function() return cuarr.zeros(3) end },
  { "cuarr.arange", function() return cuarr.arange(3) end },
  { "cuarr.empty_like of a host array", function(t) return cuarr.empty_like(t.h) end },
  { "cuarr.asarray of a host array", function(t) return cuarr.asarray(t.h) end },
  { "cuarr.to_device", function(t) return cuarr.to_device(t.h) end },
  { "cuarr.Stream", function() return cuarr.Stream() end },
  { "cuarr.Event", function() return cuarr.Event() end },
  { "cuarr.Device(0)", function() return cuarr.Device(0) end },
  { "cuarr.get_default_memory_pool", function() return cuarr.get_default_memory_pool() end },
  { "cuarr.get_default_pinned_memory_pool",
    function() return cuarr.get_default_pinned_memory_pool() end },
  { "a pinned host array", function() return cuarr.cpu.zeros(3, nil, { pinned = true }) end },
  { "cuarr.pinned_array", function() return cuarr.pinned_array(3) end },
  { "cuarr.synchronize", function() return cuarr.synchronize() end },
  { "cuarr.null_stream", function() return cuarr.null_stream() end },
  { "cuarr.get_current_stream", function() return cuarr.get_current_stream() end },
}

if not H.has_gpu then
  describe("bad input: device work without a GPU", function()
    for _, case in ipairs(no_gpu) do
      it(case[1] .. " raises NotAvailable", function()
        run_case({ kind = "NotAvailable", match = "CUDA",
                   setup = function() return { h = cuarr.cpu.arange(6):reshape(2, 3) } end,
                   misuse = case[2] }, cuarr.cpu)
      end)
    end
  end)
end

-------------------------------------------------------------------------------------------------
-- Device only: streams, events, pools, device objects.

local function pool_case(get_pool)
  return function()
    return { pool = get_pool(), d = cuarr.arange(4) }
  end
end
local device_pool = pool_case(function() return cuarr.get_default_memory_pool() end)
local pinned_pool = pool_case(function() return cuarr.get_default_pinned_memory_pool() end)
local function limit(t) return t.pool:get_limit() end
local function with_stream(xp) return { s = cuarr.Stream(), d = xp.arange(4) } end
local function with_events() return { e0 = cuarr.Event(), e1 = cuarr.Event(), d = cuarr.arange(4) } end

local gpu = {
  { "a pinned device array", "ValueError", match = "pinned",
    misuse = function() return cuarr.zeros(3, "float32", { pinned = true }) end },
  { "copy_to_host into a device array", "ValueError", match = "host array",
    setup = function() return { d = cuarr.arange(3), d2 = cuarr.zeros(3, "int64") } end,
    misuse = function(t) return t.d:copy_to_host(t.d2) end },
  { "get with an Event as the stream", "TypeError", match = "Stream",
    setup = function() return { d = cuarr.arange(3), e = cuarr.Event() } end,
    misuse = function(t) return t.d:get(t.e) end },
  { "to_device with an Event as the stream", "TypeError", match = "Stream",
    setup = function() return { h = cuarr.cpu.arange(3), e = cuarr.Event() } end,
    misuse = function(t) return cuarr.to_device(t.h, t.e) end },
  { "Stream{priority = 100}: out of the device's range", "ValueError", match = "priority",
    misuse = function() return cuarr.Stream { priority = 100 } end },
  { "Stream{priority = -100}: out of the device's range", "ValueError", match = "priority",
    misuse = function() return cuarr.Stream { priority = -100 } end },
  { "Stream{priority = 2^40}: beyond int", "ValueError", match = "priority",
    misuse = function() return cuarr.Stream { priority = 2 ^ 40 } end },
  { "wait_event with a number", "TypeError", match = "Event", setup = with_stream,
    misuse = function(t) return t.s:wait_event(5) end },
  { "wait_event with a Stream", "TypeError", match = "Event", setup = with_stream,
    misuse = function(t) return t.s:wait_event(cuarr.Stream()) end },
  { "wait_event with nothing", "TypeError", match = "Event", setup = with_stream,
    misuse = function(t) return t.s:wait_event() end },
  { "Stream:record with a number", "TypeError", match = "Event", setup = with_stream,
    misuse = function(t) return t.s:record(5) end },
  { "Event:record with a number", "TypeError", match = "Stream", setup = with_events,
    misuse = function(t) return t.e0:record(5) end },
  { "get_elapsed_time of unrecorded events", "ValueError", match = "recorded",
    setup = with_events, misuse = function(t) return cuarr.get_elapsed_time(t.e0, t.e1) end },
  { "get_elapsed_time with a timing-disabled event", "ValueError", match = "timing",
    setup = function()
      local e0, e1 = cuarr.Event { timing = false }, cuarr.Event()
      e0:record()
      e1:record()
      e1:synchronize()
      return { e0 = e0, e1 = e1 }
    end,
    misuse = function(t) return cuarr.get_elapsed_time(t.e0, t.e1) end },
  { "a Stream method called on a number", "TypeError", match = "Stream", setup = with_stream,
    misuse = function(t) return t.s.synchronize(5) end },
  { "a Stream indexed by a number", "TypeError", match = "number", setup = with_stream,
    misuse = function(t) return t.s[1] end },
  { "an unknown Stream field", "IndexError", match = "foo", setup = with_stream,
    misuse = function(t) return t.s.foo end },
  { "an unknown Event field", "IndexError", match = "foo", setup = with_events,
    misuse = function(t) return t.e0.foo end },
  { "an Event indexed by a boolean", "TypeError", match = "boolean", setup = with_events,
    misuse = function(t) return t.e0[true] end },
  { "an unknown Device field", "IndexError", match = "foo",
    misuse = function() return cuarr.Device(0).foo end },
  { "a Device indexed by a number", "TypeError", match = "number",
    misuse = function() return cuarr.Device(0)[1] end },
  { "a Device method called on a number", "TypeError", match = "Device",
    misuse = function() return cuarr.Device(0).use(5) end },
  { "can_access_peer with a device that does not exist", "ValueError", match = "99",
    misuse = function() return cuarr.Device(0):can_access_peer(99) end },
  { "pool set_limit{size = -1}", "ValueError", match = "size", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { size = -1 } end },
  { "pool set_limit{fraction = 2}", "ValueError", match = "fraction", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { fraction = 2 } end },
  { "pool set_limit with both size and fraction", "ValueError", match = "not both",
    setup = device_pool, check = limit,
    misuse = function(t) return t.pool:set_limit { size = 1 << 20, fraction = 0.5 } end },
  { "pool set_limit with a number", "TypeError", match = "table", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit(1 << 20) end },
  { "pool set_limit{size = 'big'}", "TypeError", match = "size", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { size = "big" } end },
  { "pool set_limit{size = 1.5}", "TypeError", match = "size", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { size = 1.5 } end },
  { "pool set_limit{fraction = NaN}", "ValueError", match = "fraction", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { fraction = 0 / 0 } end },
  { "pool set_limit{fraction = 'half'}", "TypeError", match = "fraction", setup = device_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { fraction = "half" } end },
  { "pinned pool set_limit{fraction = -0.5}", "ValueError", match = "fraction",
    setup = pinned_pool, check = limit,
    misuse = function(t) return t.pool:set_limit { fraction = -0.5 } end },
  { "pinned pool set_limit{size = -1}", "ValueError", match = "size", setup = pinned_pool,
    check = limit, misuse = function(t) return t.pool:set_limit { size = -1 } end },
  { "a pool method called on a number", "TypeError", match = "MemoryPool", setup = device_pool,
    check = limit, misuse = function(t) return t.pool.used_bytes(5) end },
}

describe("bad input on the device", function()
  for _, case in ipairs(gpu) do
    H.gpu_it(case[1] .. " raises " .. case[2], function()
      run_case({ kind = case[2], match = case.match, setup = case.setup, misuse = case.misuse,
                 check = case.check }, cuarr)
    end)
  end
end)

-------------------------------------------------------------------------------------------------
-- Two devices: arrays, streams and events of the other one.

-- a0 on device 0 (current), a1 on device 1, a host array h, streams and events of each.
local function two_devices()
  local t = { a0 = cuarr.arange(6):reshape(2, 3), h = cuarr.cpu.ones({ 2, 3 }, "int64") }
  cuarr.with_device(1, function()
    t.a1 = cuarr.arange(10, 16):reshape(2, 3)
    t.s1 = cuarr.Stream()
    t.e1 = cuarr.Event()
  end)
  t.e0 = cuarr.Event()
  return t
end
local function on_device_1(fn)
  return function(t) return cuarr.with_device(1, fn, t) end
end

local multigpu = {
  { "assigning into a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) t.a0[1] = 5 end) },
  { "filling a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) return t.a0:fill(5) end) },
  { "copying a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) return t.a0:copy() end) },
  { "astype of a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) return t.a0:astype("float32") end) },
  { "flatten of a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) return t.a0:flatten() end) },
  { "a copying reshape of a device-0 array under device 1", "ValueError", match = "device 0",
    misuse = on_device_1(function(t) return t.a0.T:reshape(6) end) },
  { "assigning a device-1 array into a device-0 array", "ValueError", match = "device 1",
    misuse = function(t) t.a0[1] = t.a1[1] end },
  { "get with a stream of another device", "ValueError", match = "stream",
    misuse = function(t) return t.a0:get(t.s1) end },
  { "set with a stream of another device", "ValueError", match = "stream",
    misuse = function(t) return t.a0:set(t.h, t.s1) end },
  { "copy_to_host with a stream of another device", "ValueError", match = "stream",
    misuse = function(t) return t.a0:copy_to_host(t.h, t.s1) end },
  { "recording an event on a stream of another device", "ValueError", match = "device",
    misuse = function(t) return t.e0:record(t.s1) end },
  { "get_elapsed_time of events of two devices", "ValueError", match = "different devices",
    misuse = function(t)
      t.e0:record()
      t.e1:record()
      t.e0:synchronize()
      t.e1:synchronize()
      return cuarr.get_elapsed_time(t.e0, t.e1)
    end },
}

describe("bad input across two devices", function()
  for _, case in ipairs(multigpu) do
    H.multigpu_it(case[1] .. " raises " .. case[2], function()
      run_case({ kind = case[2], match = case.match, setup = two_devices, misuse = case.misuse,
                 check = function() return cuarr.get_device_id() end }, cuarr)
    end)
  end
end)
