-- Misuses of cuarr.fuse (issue 16), each raising its documented kind: constructs outside what
-- a fused function translates as CompileError at the Lua line, ufunc typing errors with the
-- unfused call's kind at the Lua line, bad options and calls as TypeError/ValueError.  The
-- translation runs on the host (f:source_for types a kernel from host arrays), so none of
-- this needs a GPU.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local F32 = cuarr.cpu.array({ 1, 2, 3 }, "float32")
local SOME_TABLE = { 1, 2 }
local lua_helper = function(x) return x end
local NAME = "not a number"

-- Translating fn for (args...) raises kind at fn's line (+ offset), matching pattern.
local function fails_at(kind, fn, pattern, offset, ...)
  local line = debug.getinfo(fn, "S").linedefined + (offset or 0)
  local f = cuarr.fuse(fn)
  local args = table.pack(...)
  if args.n == 0 then args = { F32, n = 1 } end
  local err = H.raises(kind, f.source_for, f, table.unpack(args, 1, args.n))
  assert.matches("fuse_bad_input_spec%.lua:" .. line .. ":", err.message)
  assert.matches(pattern, err.message)
  return err
end

describe("constructs a fused function does not translate", function()
  it("loops", function()
    fails_at("CompileError", function(x)
      for _ = 1, 3 do x = x + 1 end
      return x
    end, "loops", 1)
    fails_at("CompileError", function(x)
      while true do x = x + 1 end
    end, "loops", 1)
  end)
  it("ifs on arrays", function()
    fails_at("CompileError", function(x)
      if x then return x end
      return x
    end, "`if`", 1)
  end)
  it("subscripts", function()
    fails_at("CompileError", function(x) return x[1] + 1 end, "subscripts")
  end)
  it("tables and strings", function()
    fails_at("CompileError", function(x) return cuarr.add(x, {}) end, "tables")
    fails_at("CompileError", function(x) return cuarr.add(x, "a") end, "strings")
  end)
  it("closures and varargs", function()
    fails_at("CompileError", function(x) local g = function() return 1 end return x end,
      "nested functions")
    fails_at("CompileError", function(...) return ... end, "varargs")
  end)
  it("and/or and comparison operators on arrays", function()
    fails_at("CompileError", function(x) return x and x end, "logical_and")
    fails_at("CompileError", function(x) return x < 2 end, "cuarr.less")
    fails_at("CompileError", function(x) return not x end, "logical_not")
  end)
  it("assignments to upvalues", function()
    fails_at("CompileError", function(x) NAME = x return x end, "its own locals")
  end)
  it("code after return, a missing return, calls whose results are dropped", function()
    fails_at("CompileError", function(x) cuarr.sin(x) return x end, "dropped")
    fails_at("CompileError", function(x) local y = x + 1 end, "without returning")
  end)
  it("integer arithmetic on Lua number arguments alone", function()
    fails_at("CompileError", function(x, n) return x * (n + 1) end, "Lua number arguments alone",
      0, F32, 2)
  end)
  it("a reduction before the end", function()
    fails_at("CompileError", function(x) return cuarr.sum(x) * 2 end, "only the function's result")
    fails_at("CompileError", function(x) local s = cuarr.max(x) return s end, "only the function")
  end)
end)

describe("names a fused function cannot use", function()
  it("unknown names", function()
    local g = cuarr.fuse("function(x)\n  return no_such_name(x)\nend")
    local e = H.raises("CompileError", g.source_for, g, F32)
    assert.matches("^source:2: unknown name 'no_such_name'", e.message)
    fails_at("CompileError", function(x) return cuarr.no_such_ufunc(x) end,
      "unknown name 'no_such_ufunc'")
  end)
  it("a plain Lua function called", function()
    fails_at("CompileError", function(x) return lua_helper(x) end, "plain Lua function")
  end)
  it("a table or a string as a value", function()
    fails_at("CompileError", function(x) return x + SOME_TABLE end, "'SOME_TABLE' is a table")
    fails_at("CompileError", function(x) return x + NAME end, "'NAME' is a string")
  end)
  it("math functions on arrays", function()
    fails_at("CompileError", function(x) return math.sin(x) end, "cuarr.sin")
  end)
  it("a method that is not a ufunc", function()
    fails_at("CompileError", function(x) return x:reshape(3) end, "'reshape'")
  end)
end)

describe("typing errors, as the unfused calls raise them, at the Lua line", function()
  it("dtypes a ufunc has no loop for", function()
    local err = fails_at("TypeError", function(x) return cuarr.bitwise_and(x, x) end,
      "bitwise_and: ufunc 'bitwise_and' not supported for the input types %(float32, float32%)")
    assert.are.equal("TypeError", err.kind)
    fails_at("TypeError", function(x) return x - x end, "boolean subtract", 0,
      cuarr.cpu.array({ true }, "bool"))
  end)
  it("a weak integer constant out of range", function()
    fails_at("ValueError", function(x) return x + 300 end, "integer 300 out of bounds for uint8",
      0, cuarr.cpu.array({ 1 }, "uint8"))
  end)
  it("a ufunc called with the wrong number of arguments", function()
    fails_at("TypeError", function(x) return cuarr.add(x) end, "cuarr.add takes 2 arguments")
  end)
  it("a result that is a Lua number", function()
    fails_at("TypeError", function(x) return 2 end, "a Lua number, not an array")
  end)
  it("a result that depends on no array", function()
    fails_at("CompileError", function(x) return cuarr.sin(2.0) end, "does not depend on any array")
  end)
  it("a reduction's dtype where it takes none, and unknown options", function()
    fails_at("TypeError", function(x) return cuarr.max(x, nil, { dtype = "float64" }) end,
      "max takes no dtype")
    fails_at("ValueError", function(x) return cuarr.sum(x, nil, { bogus = 1 }) end, "bogus")
  end)
  it("a vectorized function with no signature for the dtypes, or no array", function()
    local v = cuarr.vectorize({ "f4(f4)" }, function(a) return a * 2 end)
    fails_at("TypeError", function(x) return v(x) end, "no signature takes %(float64%)", 0,
      cuarr.cpu.array({ 1 }, "float64"))
    fails_at("TypeError", function(x) return v(2) + x end, "at least one argument must be an array")
    fails_at("TypeError", function(x) return v(x, x) end, "takes 1 argument, got 2")
  end)
  it("a fused function called inside another with the wrong number of arguments", function()
    local inner = cuarr.fuse(function(a, b) return a + b end)
    fails_at("TypeError", function(x) return inner(x) end, "takes 2 arguments, got 1")
  end)
end)

describe("bad calls and options", function()
  it("fuse's own arguments", function()
    H.raises("TypeError", cuarr.fuse, 42)
    H.raises("TypeError", cuarr.fuse, function(x) return x end, "opts")
    local e = H.raises("ValueError", cuarr.fuse, function(x) return x end, { kernel = "k" })
    assert.matches("kernel", e.message)
  end)
  it("kernel_name must be a C identifier", function()
    for _, bad in ipairs { "1abc", "has space", "", "a-b", 7 } do
      local e = H.raises("ValueError", cuarr.fuse, function(x) return x end, { kernel_name = bad })
      assert.matches("kernel_name must be a C identifier", e.message)
    end
  end)
  it("wrong argument counts", function()
    local f = cuarr.fuse(function(x, y) return x + y end)
    local e = H.raises("TypeError", f.source_for, f, F32)
    assert.matches("takes 2 arguments, got 1", e.message)
    H.raises("TypeError", f.source_for, f, F32, F32, F32)
    local many = {}
    for i = 1, 16 do many[i] = F32 end
    e = H.raises("TypeError", f, table.unpack(many))
    assert.matches("at most 15 arguments", e.message)
  end)
  it("arguments that are neither arrays nor numbers", function()
    local f = cuarr.fuse(function(x, y) return x + y end)
    for _, bad in ipairs { "s", true, {}, function() end } do
      local e = H.raises("TypeError", f, F32, bad)
      assert.matches("argument #2 must be an array or a number, got " .. type(bad), e.message)
    end
    H.raises("TypeError", f.source_for, f, 1, 2)
    H.raises("TypeError", f.source_for, {}, F32)
  end)
  it("a source string that is not one function", function()
    H.raises("ValueError", cuarr.fuse, "x + 1")
    H.raises("CompileError", cuarr.fuse, "function(x) return x +* 1 end")
  end)
  it("a source string fuses and runs on host arrays", function()
    local f = cuarr.fuse("function(x) return cuarr.sqrt(x) * 2 end")
    assert.are.same({ 2, 4 }, f(cuarr.cpu.array({ 1, 4 }, "float32")):totable())
    assert.matches("cuarr_uf_sqrt_float32", f:source_for(F32))
    local g = cuarr.fuse("function(x) return undefined_thing(x) end")
    local e = H.raises("CompileError", g.source_for, g, F32)
    assert.matches("^source:1: unknown name 'undefined_thing'", e.message)
  end)
end)
