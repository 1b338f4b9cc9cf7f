-- Misuses of cuarr.jit.rawkernel (issue 16), each raising its documented kind with its message:
-- constructs a kernel cannot use are CompileErrors at the Lua line (found when a call types
-- the kernel, so the ones on arrays run on the stand-in driver, in one child process), bad
-- calls and configurations TypeError/ValueError, intrinsics used from plain Lua TypeError.
local H = require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local cuarr = H.cuarr
local jit = cuarr.jit

-- Each case: a kernel, the line offset of the error from the kernel's first line, the
-- arguments it is called with (made in the child), the kind and a pattern of the message.
local CASES = [=[
local A1 = function() return cuarr.zeros(8, "float32") end
local ident = jit.device(function(x) return x end)
local CASES = {
  {"a subscript with too many indices", 1, "CompileError",
   "1%-dimensional array takes 1 index, got 2",
   function(a)
     a[{1, 2}] = 0
   end, A1},
  {"too few indices on a 2-D array", 1, "CompileError", "takes 2 indices, got 1",
   function(a)
     a[1] = 0
   end, function() return cuarr.zeros({2, 2}, "float32") end},
  {"a float index", 1, "CompileError", "index must be an integer, got a float",
   function(a)
     a[1.5] = 0
   end, A1},
  {"a boolean index", 1, "CompileError", "index must be an integer, got a boolean",
   function(a)
     a[true] = 0
   end, A1},
  {"a subscript of a scalar", 1, "CompileError", "'n' is a number, not an array",
   function(a, n)
     a[1] = n[1]
   end, function() return cuarr.zeros(8, "float32"), 3 end},
  {"an array copied into a local", 1, "CompileError", "an array cannot be used as a value",
   function(a)
     local b = a
     b[1] = 0
   end, A1},
  {"an array assigned to another", 1, "CompileError", "'a' is an array: it cannot be assigned",
   function(a, b)
     a = b
   end, function() return cuarr.zeros(2, "int32"), cuarr.zeros(2, "int32") end},
  {"a number assigned to an array", 1, "CompileError", "'a' is an array: it cannot be assigned",
   function(a)
     a = 1
   end, A1},
  {"an array passed to a device function", 1, "CompileError", "an array cannot be used as a value",
   function(a)
     a[1] = ident(a)
   end, A1},
  {"a number stored in a bool array", 1, "CompileError", "a number stored in a bool array",
   function(b)
     b[1] = 1
   end, function() return cuarr.zeros(2, "bool") end},
  {"a boolean stored in a number array", 1, "CompileError", "a boolean stored in a float32 array",
   function(a)
     a[1] = true
   end, A1},
  {"a return with values", 2, "CompileError", "a kernel returns no values",
   function(a)
     a[1] = 1
     return a[1]
   end, A1},
  {"a.shape past the rank", 1, "CompileError", "a%.shape%[3%] of a 2%-dimensional array",
   function(a)
     a[{1, 1}] = a.shape[3]
   end, function() return cuarr.zeros({2, 2}, "float64") end},
  {"a.shape as a whole", 1, "CompileError", "one extent at a time",
   function(a)
     local s = a.shape
   end, A1},
  {"an unknown array field", 1, "CompileError", "no field 'strides'",
   function(a)
     a[1] = a.strides
   end, A1},
  {"the length of a number", 1, "CompileError", "length operator %(#%) takes an array",
   function(a, n)
     a[1] = #n
   end, function() return cuarr.zeros(8, "float32"), 3 end},
  {"shared_array with a size that is not constant", 1, "CompileError", "size must be a constant",
   function(a, n)
     local s = jit.shared_array("float32", n)
   end, function() return cuarr.zeros(8, "float32"), 3 end},
  {"shared_array of an unknown dtype", 1, "CompileError", "unknown dtype \"float128\"",
   function(a)
     local s = jit.shared_array("float128", 4)
   end, A1},
  {"local_array with a dtype that is not a string constant", 1, "CompileError",
   "dtype must be a string constant",
   function(a)
     local s = jit.local_array(a, 4)
   end, A1},
  {"shared_array with a size of zero", 1, "CompileError", "size must be 1 to 2%^31%-1, got 0",
   function(a)
     local s = jit.shared_array("int32", {4, 0})
   end, A1},
  {"shared_array outside a local's value", 1, "CompileError", "is the value of a local",
   function(a)
     a[1] = jit.shared_array("float32", 4)
   end, A1},
  {"atomic_max on float32 (CUDA has none)", 1, "CompileError",
   "jit%.atomic_max: CUDA has no such atomic for float32 arrays",
   function(a)
     jit.atomic_max(a, 1, 2.0)
   end, A1},
  {"atomic_add on int8 (CUDA has none)", 1, "CompileError", "no such atomic for int8 arrays",
   function(a)
     jit.atomic_add(a, 1, 1)
   end, function() return cuarr.zeros(4, "int8") end},
  {"an atomic without its value", 1, "CompileError", "takes an array, an index and a value",
   function(a)
     jit.atomic_add(a, 1)
   end, A1},
  {"an atomic on a number", 1, "CompileError", "argument #1 must be an array",
   function(a, n)
     jit.atomic_add(n, 1, 1)
   end, function() return cuarr.zeros(8, "float32"), 3 end},
  {"jit.grid(4)", 1, "CompileError", "jit%.grid takes a constant 1, 2 or 3",
   function(a)
     local i = jit.grid(4)
   end, A1},
  {"syncthreads with an argument", 1, "CompileError", "jit%.syncthreads takes no arguments",
   function(a)
     jit.syncthreads(1)
   end, A1},
  {"a coordinate called", 1, "CompileError", "threadIdx%.x is read, not called",
   function(a)
     local t = jit.threadIdx.x()
   end, A1},
  {"an intrinsic read as a value", 1, "CompileError", "jit%.syncthreads is called, not read",
   function(a)
     local t = jit.syncthreads
   end, A1},
}
for _, case in ipairs(CASES) do
  local name, offset, fn, args = case[1], case[2], case[5], case[6]
  local line = debug.getinfo(fn, "S").linedefined + offset
  local k = jit.rawkernel(fn)
  local ok, e = pcall(k, 1, 32, {args()})
  print(name, ok and "-" or cuarr.is_error(e) and e.kind or "plain", tostring(ok or e.message),
    tostring(not ok and e.message:find(":" .. line .. ": ", 1, true) ~= nil), case[3], case[4])
end
]=]

describe("constructs a kernel cannot use: CompileErrors at the Lua line", function()
  local results
  local function result(name)
    if not results then
      results = {}
      local ok, out, err = child.run("local cuarr = require 'cuarr'\nlocal jit = cuarr.jit\n"
        .. CASES, { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
      assert(ok, out .. err)
      for line in out:gmatch("[^\n]+") do
        local n, kind, msg, at_line, want_kind, pattern = line:match(
          "^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
        assert(n, "unreadable line: " .. line)
        results[n] = { kind = kind, msg = msg, at_line = at_line == "true", want = want_kind,
                       pattern = pattern }
      end
    end
    return assert(results[name], "no result for " .. name)
  end
  for _, name in ipairs {
    "a subscript with too many indices", "too few indices on a 2-D array", "a float index",
    "a boolean index", "a subscript of a scalar", "an array copied into a local",
    "an array assigned to another", "a number assigned to an array",
    "an array passed to a device function",
    "a number stored in a bool array", "a boolean stored in a number array",
    "a return with values", "a.shape past the rank", "a.shape as a whole",
    "an unknown array field", "the length of a number",
    "shared_array with a size that is not constant", "shared_array of an unknown dtype",
    "local_array with a dtype that is not a string constant", "shared_array with a size of zero",
    "shared_array outside a local's value", "atomic_max on float32 (CUDA has none)",
    "atomic_add on int8 (CUDA has none)", "an atomic without its value", "an atomic on a number",
    "jit.grid(4)", "syncthreads with an argument", "a coordinate called",
    "an intrinsic read as a value" } do
    it(name, function()
      local r = result(name)
      assert.are.equal(r.want, r.kind, r.msg)
      assert.matches(r.pattern, r.msg)
      assert.is_true(r.at_line, r.msg)
    end)
  end
end)

describe("bad calls", function()
  local k = jit.rawkernel(function(x, n)
    local i = jit.grid(1)
    if i <= n then x[i] = i end
  end)

  it("a wrong argument count, in both call styles", function()
    local e = H.raises("TypeError", k, 1, 32, { 1 })
    assert.matches("jit%.rawkernel .*jit_rawkernel_bad_input_spec%.lua:%d+ takes 2 arguments, "
      .. "got 1", e.message)
    e = H.raises("TypeError", k[{ 1, 32 }], 1, 2, 3)
    assert.matches("takes 2 arguments, got 3", e.message)
  end)
  it("a host array", function()
    local e = H.raises("TypeError", k, 1, 32, { cuarr.cpu.zeros(4, "float32"), 4 })
    assert.matches("^jit%.rawkernel .*: user kernels take device arrays, got a host array "
      .. "%(argument #1%)$", e.message)
  end)
  it("a table, a string, nil or a function as an argument", function()
    for _, bad in ipairs { { {}, "table" }, { "x", "string" }, { print, "function" } } do
      local e = H.raises("TypeError", k, 1, 32, { bad[1], 4 })
      assert.matches("argument 1 of jit%.rawkernel .* must be a device array, a number or a "
        .. "boolean, got " .. bad[2], e.message)
    end
    local e = H.raises("TypeError", k[{ 1, 32 }], 4, nil)
    assert.matches("argument 2 .* got nil", e.message)
  end)
  it("args that are not a table", function()
    local e = H.raises("TypeError", k, 1, 32, 5)
    assert.matches("argument #3 %(args%) of jit%.rawkernel .* must be a table, got number",
      e.message)
  end)
  it("a configuration that is not {grid, block[, stream[, shared_mem]]}", function()
    local e = H.raises("ValueError", function() return k[{ 1 }] end)
    assert.matches("the configuration of jit%.rawkernel .* is {grid, block", e.message)
    e = H.raises("ValueError", function() return k[{ 1, 2, 3, 4, 5 }] end)
    assert.matches("is {grid, block", e.message)
  end)
  it("fields it does not have", function()
    local e = H.raises("IndexError", function() return k.sourcee end)
    assert.matches("has no field sourcee", e.message)
    e = H.raises("IndexError", function() k.source = "x" end)
    assert.matches("has no settable field source", e.message)
  end)
  it("jit.rawkernel of something that is not a function, or with bad options", function()
    local e = H.raises("TypeError", jit.rawkernel, 42)
    assert.matches("must be a Lua function or its source, got number", e.message)
    e = H.raises("ValueError", jit.rawkernel, function(x) x[1] = 1 end, { stream = 1 })
    assert.matches("stream", e.message)
    e = H.raises("TypeError", jit.rawkernel, function(x) x[1] = 1 end, 7)
    assert.matches("argument #2 %(opts%) must be a table", e.message)
    e = H.raises("CompileError", jit.rawkernel, "function(x) x[1] = end")
    assert.matches("^source:1:", e.message)
  end)
end)

describe("intrinsics used from plain Lua", function()
  it("calling jit.syncthreads, grid, shared_array or an atomic is a TypeError", function()
    for _, name in ipairs { "syncthreads", "syncwarp", "grid", "gridsize", "shared_array",
                            "local_array", "atomic_add", "atomic_cas", "atomic_xor" } do
      local e = H.raises("TypeError", jit[name], 1)
      assert.matches("jit%." .. name .. " is usable only inside a jit%.rawkernel kernel",
        e.message)
    end
  end)
  it("computing with a coordinate is a TypeError", function()
    local e = H.raises("TypeError", function() return jit.threadIdx.x + 1 end)
    assert.matches("jit%.threadIdx%.x is usable only inside", e.message)
    e = H.raises("TypeError", function() return jit.blockDim.y * 2 end)
    assert.matches("jit%.blockDim%.y", e.message)
    e = H.raises("TypeError", function() return jit.gridDim.z() end)
    assert.matches("jit%.gridDim%.z", e.message)
    assert.are.equal(32, jit.warpsize)
  end)
end)

describe("bad launches on the stand-in driver", function()
  it("bad grids and blocks, a bad stream, a freed array, a 0-d array", function()
    local ok, out, err = child.run([[
local cuarr = require "cuarr"
local jit = cuarr.jit
local k = jit.rawkernel(function(x, n)
  local i = jit.grid(1)
  if i <= n then x[i] = i end
end)
local x = cuarr.zeros(4, "float32")
local function expect(kind, pattern, f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok and cuarr.is_error(e, kind), tostring(e))
  assert(e.message:find(pattern), e.message)
end
expect("ValueError", "grid of jit%.rawkernel [^ ]*: extent 1 must be 1 to 2%^31%-1, got 0",
  k, 0, 32, {x, 4})
expect("ValueError", "block of jit%.rawkernel [^ ]* must have 1 to 3 extents, got 4",
  k, 1, {1, 1, 1, 1}, {x, 4})
expect("TypeError", "grid of jit%.rawkernel [^ ]* must be a positive integer", k, "1", 32, {x, 4})
expect("CUDAError", "the device's block is at most 1024 along x", k, 1, 2048, {x, 4})
expect("TypeError", "the stream of a launch of jit%.rawkernel [^ ]* must be a Stream",
  k, 1, 32, {x, 4}, {stream = 3})
expect("ValueError", "unknown option", k, 1, 32, {x, 4}, {sharedmem = 3})
expect("TypeError", "must be a Stream", function() return k[{1, 32, 3}] end)
local f = cuarr.zeros(4, "float32")
f:free()
local ok, e = pcall(k, 1, 32, {f, 4})
assert(not ok and cuarr.is_error(e), tostring(e))
expect("TypeError", "is a 0%-d array", k, 1, 32, {cuarr.zeros({}, "float32"), 4})
print("ok")
]], { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
    assert(ok and out == "ok\n", out .. err)
  end)
end)
