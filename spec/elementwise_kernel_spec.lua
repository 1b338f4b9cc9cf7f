-- cuarr.ElementwiseKernel(in_params, out_params, operation[, name][, opts]) with CuPy's
-- semantics: parameters `[raw] type name` with dtype names or one-letter type placeholders
-- bound from the arguments, raw parameters indexed by the operation, `i` and `_ind.size()`,
-- `{size = n}` when every parameter is raw, preamble / loop_prep / after_loop / compile
-- options, given outputs, broadcasting, and the errors: bad declarations (checked when the
-- kernel is made: no GPU needed), mismatched placeholder bindings, wrong argument counts, host
-- arrays, wrong output shapes, compile errors.
--
-- Device kernels: one or two per kernel object below (about 25).
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

local ipairs, type = ipairs, type
local fmt = string.format
local EK = cuarr.ElementwiseKernel
local build = A.build

local function flat(a)
  local t = a:totable()
  if type(t) ~= "table" then return { t } end
  return H.flat(t)
end

-- ---------------------------------------------------------------- declarations (host)

describe("ElementwiseKernel declarations", function()
  it("read CuPy's parameter lists", function()
    local k = EK("float32 x, T y, raw T z", "T w", "w = x + y + z[i];", "k")
    assert.are.equal(3, k.nin)
    assert.are.equal(1, k.nout)
    k = EK("T x", "T y, float64 z", "y = x; z = x;")
    assert.are.equal(1, k.nin)
    assert.are.equal(2, k.nout)
    k = EK("", "raw int32 y", "y[i] = (int)i;", "iota")
    assert.are.equal(0, k.nin)
    k = EK("  _non_const   float32   x  ", " float32 y ", "y = x;", { name = "spaced" })
    assert.are.equal(1, k.nin)
    k = EK("uint64 a, bool b, float16 c, int8 d", "U e", "e = a;", "all_names", {})
    assert.are.equal(4, k.nin)
  end)

  it("bad parameter lists are ValueErrors saying what is wrong", function()
    local cases = {
      { "float x", "float32 y", "unknown type" }, -- C names are not dtypes (as CuPy)
      { "float32", "float32 y", "syntax error" },
      { "float32 x,", "float32 y", "syntax error" },
      { "float32 x", "", nil }, -- no outputs: allowed
      { "TT x", "float32 y", "unknown type" },
      { "const float32 x", "float32 y", "unknown keyword" },
      { "float32 2x", "float32 y", "invalid name" },
      { "float32 i", "float32 y", "reserved" },
      { "float32 _ind", "float32 y", "reserved" },
      { "float32 cuarr_x", "float32 y", "reserved" },
      { "float32 x, float32 x", "float32 y", "duplicate" },
      { "float32 x", "float32 x", "duplicate" },
      { "float32 x y z w v u t s r", "float32 y", "syntax error" },
    }
    for _, c in ipairs(cases) do
      if c[3] then
        local err = H.raises("ValueError", EK, c[1], c[2], "y = x;")
        assert(err.message:find(c[3], 1, true),
          fmt("%q / %q: %s (expected %q)", c[1], c[2], err.message, c[3]))
      else
        EK(c[1], c[2], ";")
      end
    end
  end)

  it("bad names, options and argument types are errors", function()
    H.raises("ValueError", EK, "float32 x", "float32 y", "y = x;", "bad name")
    H.raises("ValueError", EK, "float32 x", "float32 y", "y = x;", { name = "3k" })
    H.raises("TypeError", EK, "float32 x", "float32 y", "y = x;", 5)
    H.raises("TypeError", EK, 1, "float32 y", "y = 1;")
    H.raises("TypeError", EK, "float32 x", nil, "y = x;")
    H.raises("TypeError", EK, "float32 x", "float32 y")
    H.raises("TypeError", EK, "float32 x", "float32 y", "y = x;", "k", { preamble = 5 })
    H.raises("TypeError", EK, "float32 x", "float32 y", "y = x;", "k", { loop_prep = true })
    H.raises("TypeError", EK, "float32 x", "float32 y", "y = x;", "k", { options = "-DX=1" })
    local many = {}
    for j = 1, 33 do many[j] = "-DX" .. j end
    H.raises("ValueError", EK, "float32 x", "float32 y", "y = x;", "k", { options = many })
    local k = EK("float32 x", "float32 y", "y = x;")
    H.raises("IndexError", function() return k.no_such_field end)
  end)

  it("fields are named by strings: any other key is a TypeError", function()
    local k = EK("float32 x", "float32 y", "y = x;")
    for _, key in ipairs({ {}, 1, 2.5, true }) do
      local err = H.raises("TypeError", function() return k[key] end)
      assert(err.message:find("ElementwiseKernel fields are named by strings", 1, true),
        err.message)
    end
  end)

  it("each kernel class knows its own objects: another's is a TypeError", function()
    local ek = EK("float32 x", "float32 y", "y = x;")
    local rk = cuarr.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0")
    local a = cuarr.cpu.arange(3)
    for _, case in ipairs({ { ek, rk }, { rk, ek }, { ek, a }, { rk, a }, { ek, 1 } }) do
      local mt, other = getmetatable(case[1]), case[2]
      H.raises("TypeError", mt.__call, other, 1)
      H.raises("TypeError", mt.__index, other, "nin")
    end
  end)

  it("up to 32 compile options; more is a ValueError naming the limit, never a cut", function()
    local options = {}
    for j = 1, 32 do options[j] = "-DX" .. j end
    local k = EK("float32 x", "float32 y", "y = x;", "k", { options = options })
    assert.are.equal(1, k.nin)
    options[33] = "-DX33"
    local err = H.raises("ValueError", EK, "float32 x", "float32 y", "y = x;", "k",
      { options = options })
    assert(err.message:find("32", 1, true), err.message)
  end)
  it("a light userdata given a kernel's metatable is no kernel: a TypeError", function()
    local function is_light(v) -- debug.setuservalue refuses a light userdata by name
      local ok, err = pcall(debug.setuservalue, v, true, 1)
      return not ok and tostring(err):find("light userdata", 1, true) ~= nil
    end
    local lud -- a light userdata: the array metatable's __index closure holds one
    local index = getmetatable(cuarr.cpu.zeros(1)).__index
    for i = 1, 8 do
      local _, v = debug.getupvalue(index, i)
      if type(v) == "userdata" and is_light(v) then lud = v break end
    end
    assert(lud, "no light userdata found to test with")
    local old = debug.getmetatable(lud)
    debug.setmetatable(lud, getmetatable(EK("float32 x", "float32 y", "y = x;")))
    local ok, err = pcall(function() return lud(cuarr.cpu.zeros(1)) end)
    debug.setmetatable(lud, old) -- every light userdata shares that metatable
    assert.is_false(ok)
    assert.are.equal("TypeError", err.kind)
  end)
end)

-- ---------------------------------------------------------------- calls (device)

describe("ElementwiseKernel calls", function()
  H.gpu_it("one kernel on counts that are whole vectors and counts that are not, in turn", function()
    -- A count that is a whole number of 16-byte vectors gets a kernel without the tail (its
    -- own variant); the same kernel object then meets counts with a tail, and views off a
    -- 16-byte boundary (no vectors).
    local k = EK("T x, T y", "T z", "z = x * 3 + y", "whole_or_tail")
    for _, dt in ipairs({ "float32", "int8", "float64" }) do
      local base = (cuarr.arange(300) % 30):astype(dt) -- 4 * 29 fits int8
      for _, n in ipairs({ 256, 255, 3, 16, 17, 1, 256, 64, 250 }) do
        for _, off in ipairs({ 0, 1 }) do
          local x = base[{ { off + 1, off + n } }]
          local z = k(x, x)
          local got, want = flat(z), {}
          for j = 1, n do
            local v = ((off + j - 1) % 30) * 4
            want[j] = dt == "int8" and v or v + 0.0
          end
          A.check_equal(got, want, fmt("%s n=%d offset %d", dt, n, off))
        end
      end
    end
  end)

  H.gpu_it("binds type placeholders from the arrays and converts scalars to them", function()
    local k = EK("T x, T y", "T z", "z = x * y + (T)1;", "muladd")
    for _, dt in ipairs({ "float32", "int32", "float64" }) do
      local x = cuarr.array({ 1, 2, 3, -4, 5 }, dt)
      local y = cuarr.array({ 2, 2, -3, 4, 0 }, dt)
      local z = k(x, y)
      assert.are.equal(dt, z.dtype)
      local want = { 3, 5, -8, -15, 1 }
      if dt ~= "int32" then for j, v in ipairs(want) do want[j] = v + 0.0 end end
      A.check_equal(flat(z), want, "muladd on " .. dt)
    end
    local z = k(cuarr.array({ 1.5, 2.0 }, "float32"), 2) -- the scalar is a float32 2
    assert.are.equal("float32", z.dtype)
    A.check_equal(flat(z), { 4.0, 5.0 }, "with a scalar")
  end)

  H.gpu_it("float16 and bool parameters", function()
    local k = EK("T x", "T y, bool p", "y = x * 2.0f; p = x > (T)0;", "half_ops")
    local y, p = k(cuarr.array({ 0.5, -1.5, 1000.0, 0.0 }, "float16"))
    assert.are.equal("float16", y.dtype)
    assert.are.equal("bool", p.dtype)
    A.check_equal(flat(y), { 1.0, -3.0, 2000.0, 0.0 }, "y")
    A.check_equal(flat(p), { true, false, true, false }, "p")
  end)

  H.gpu_it("placeholders bound inconsistently, and fixed dtypes, are TypeErrors", function()
    local k = EK("T x, T y", "T z", "z = x + y;", "same_t")
    local f32, f64 = cuarr.zeros(3, "float32"), cuarr.zeros(3, "float64")
    local err = H.raises("TypeError", k, f32, f64)
    assert.truthy(err.message:find("type mismatch", 1, true), err.message)
    H.raises("TypeError", k, f32, f32, cuarr.zeros(3, "int32")) -- the output binds T first
    local fixed = EK("float32 x", "float32 y", "y = x;", "fixed")
    H.raises("TypeError", fixed, f64)
    H.raises("TypeError", fixed, f32, f64)
    local unbound = EK("T x", "U y", "y = x;", "unbound")
    err = H.raises("TypeError", unbound, f32)
    assert.truthy(err.message:find("U", 1, true), err.message)
  end)

  H.gpu_it("wrong argument counts are ValueErrors", function()
    local k = EK("float32 x, float32 y", "float32 z", "z = x - y;", "two_in")
    local a = cuarr.zeros(2, "float32")
    local err = H.raises("ValueError", k, a)
    assert.truthy(err.message:find("2 inputs", 1, true), err.message)
    H.raises("ValueError", k, a, a, a, a)
    H.raises("ValueError", k)
    H.raises("TypeError", k, a, "b")
  end)

  H.gpu_it("host arrays are ValueErrors: kernels run on the device", function()
    local k = EK("float32 x", "float32 y", "y = x;", "dev_only")
    local h = cuarr.cpu.zeros(3, "float32")
    local err = H.raises("ValueError", k, h)
    assert.truthy(err.message:find("host", 1, true), err.message)
    H.raises("ValueError", k, cuarr.zeros(3, "float32"), h)
  end)

  H.gpu_it("given outputs are filled and returned; a wrong shape is a ValueError", function()
    local k = EK("T x", "T y", "y = -x;", "neg")
    local x = cuarr.array({ 1.0, 2.0, 3.0 }, "float64")
    local out = cuarr.zeros(3, "float64")
    local r = k(x, out)
    assert.is_true(rawequal(r, out))
    A.check_equal(flat(out), { -1.0, -2.0, -3.0 }, "given output")
    k(x, x) -- in place
    A.check_equal(flat(x), { -1.0, -2.0, -3.0 }, "in place")
    H.raises("ValueError", k, x, cuarr.zeros(4, "float64"))
    H.raises("ValueError", k, x, cuarr.zeros({ 3, 1 }, "float64"))
    H.raises("TypeError", k, x, cuarr.zeros(3, "float32"))
  end)

  H.gpu_it("inputs broadcast against each other and against given outputs", function()
    local k = EK("T x, T y", "T z", "z = x * (T)10 + y;", "bcast")
    local col = cuarr.array({ { 1 }, { 2 }, { 3 } }, "int32")
    local row = cuarr.array({ 1, 2, 3, 4 }, "int32")
    local z = k(col, row)
    A.check_equal(z.shape, { 3, 4 }, "shape")
    A.check_equal(z:totable(), build({ 3, 4 }, function(i, j) return 10 * i + j end), "values")
    local out = cuarr.zeros({ 2, 3, 4 }, "int32")
    k(col, row, out)
    A.check_equal(out:totable(), build({ 2, 3, 4 }, function(_, i, j) return 10 * i + j end),
      "into a larger output")
    H.raises("ValueError", k, col, cuarr.zeros({ 2, 4 }, "int32"))
  end)

  H.gpu_it("several outputs come back in order", function()
    local k = EK("T x", "T lo, T hi, float64 mid", "lo = x - 1; hi = x + 1; mid = x / 2.0;",
      "three_out")
    local lo, hi, mid = k(cuarr.array({ 4, 10 }, "int16"))
    assert.are.equal("int16", lo.dtype)
    assert.are.equal("int16", hi.dtype)
    assert.are.equal("float64", mid.dtype)
    A.check_equal(flat(lo), { 3, 9 }, "lo")
    A.check_equal(flat(hi), { 5, 11 }, "hi")
    A.check_equal(flat(mid), { 2.0, 5.0 }, "mid")
  end)

  H.gpu_it("i is the flat C-order index of the loop, even over a transposed input", function()
    local k = EK("T x", "int64 y", "y = i;", "index_of")
    local base = cuarr.array(build({ 4, 3 }, function(i, j) return i * 10 + j end), "float32")
    local y = k(base:transpose()) -- shape (3, 4)
    A.check_equal(y:totable(), build({ 3, 4 }, function(i, j) return (i - 1) * 4 + (j - 1) end),
      "i over a transposed input")
    local s = EK("T x", "int64 n", "n = _ind.size();", "size_of")
    A.check_equal(flat(s(cuarr.zeros({ 2, 5 }, "uint8"))), { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 },
      "_ind.size()")
  end)

  H.gpu_it("raw parameters are indexed by the operation, by flat C-order index", function()
    local rev = EK("raw T x", "T y", "y = x[_ind.size() - i - 1];", "reverse")
    local x = cuarr.array({ 1.5, 2.5, 3.5, 4.5, 5.5 }, "float64")
    local into = cuarr.zeros(5, "float64")
    local r = rev(x, into) -- the loop's size from the given output
    assert.is_true(rawequal(r, into))
    A.check_equal(flat(into), { 5.5, 4.5, 3.5, 2.5, 1.5 }, "reversed into a given output")
    -- a raw 2-D view that is not contiguous: x[j] walks it in C order
    local base = cuarr.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32")
    local copy = EK("raw T x", "raw T y", "y[i] = x[i];", "raw_copy")
    local y = copy(base:transpose(), { size = 6 })
    A.check_equal(y.shape, { 6 }, "a raw output made with shape (size,)")
    A.check_equal(flat(y), { 1, 4, 2, 5, 3, 6 }, "raw .T read in C order")
    -- a raw table beside a non-raw index array
    local gather = EK("int32 idx, raw T src", "T y", "y = src[idx];", "gather")
    local src = cuarr.array({ 10, 20, 30, 40 }, "int64")
    A.check_equal(flat(gather(cuarr.array({ 3, 0, 0, 2, 1 }, "int32"), src)),
      { 40, 10, 10, 30, 20 }, "gather")
  end)

  H.gpu_it("size = n when every parameter is raw, and only then", function()
    local dbl = EK("raw T x", "raw T y", "y[i] = x[i] * (T)2;", "double_raw")
    local x = cuarr.array({ 1, 2, 3, 4, 5, 6, 7 }, "int64")
    local y = cuarr.zeros(7, "int64")
    local r = dbl(x, y, { size = 4 }) -- only the first four
    assert.is_true(rawequal(r, y))
    A.check_equal(flat(y), { 2, 4, 6, 8, 0, 0, 0 }, "size 4")
    local fresh = dbl(x, { size = 3 }) -- a raw output made with shape (size,)
    A.check_equal(fresh.shape, { 3 }, "made output")
    A.check_equal(flat(fresh), { 2, 4, 6 }, "made output values")
    local err = H.raises("ValueError", dbl, x, y)
    assert.truthy(err.message:find("size", 1, true), err.message)
    local mixed = EK("raw T x", "T y", "y = x[i];", "mixed")
    err = H.raises("ValueError", mixed, x, cuarr.zeros(7, "int64"), { size = 7 })
    assert.truthy(err.message:find("raw", 1, true), err.message)
    H.raises("ValueError", dbl, x, y, { size = -1 })
    local iota = EK("", "raw int32 y", "y[i] = (int)i * 3;", "iota3")
    A.check_equal(flat(iota({ size = 5 })), { 0, 3, 6, 9, 12 }, "no inputs at all")
  end)

  -- CuPy allows size when every *array argument* is raw, allocating a non-raw output it is not
  -- given with shape (size,) (CuPy's test_all_raws: ('raw x0, raw x1') -> ('y0'), size=2).
  H.gpu_it("size with raw inputs allocates a non-raw output of shape (size,), as CuPy", function()
    local rev = EK("raw T x", "T y", "y = x[_ind.size() - i - 1];", "reverse_sized")
    local y = rev(cuarr.array({ 1.5, 2.5, 3.5, 4.5, 5.5 }, "float64"), { size = 5 })
    A.check_equal(y.shape, { 5 }, "shape from size")
    A.check_equal(flat(y), { 5.5, 4.5, 3.5, 2.5, 1.5 }, "reversed")
  end)

  H.gpu_it("scalars bind placeholders that no array binds", function()
    local k = EK("T a", "float64 y", "y = a * 2;", "scalar_t")
    local out = cuarr.zeros(3, "float64")
    k(3, out) -- T = int64
    A.check_equal(flat(out), { 6.0, 6.0, 6.0 }, "from a Lua integer")
    k(1.25, out) -- T = float64 (the default float dtype)
    A.check_equal(flat(out), { 2.5, 2.5, 2.5 }, "from a Lua float")
    local sum = EK("T a, T b", "T c", "c = a + b;", "scalar_sum")
    local o = cuarr.zeros(4, "int16") -- the output binds T
    sum(2, 3, o)
    A.check_equal(flat(o), { 5, 5, 5, 5 }, "bound by the output")
    H.raises("ValueError", sum, 2, 3) -- no array: the loop's size is undecided
  end)

  H.gpu_it("preamble, loop_prep, after_loop and compile options", function()
    local sq = EK("T x", "T y", "y = square_it(x);", "with_preamble",
      { preamble = "template <typename V> __device__ V square_it(V v) { return v * v; }" })
    A.check_equal(flat(sq(cuarr.array({ 1.5, -3.0 }, "float32"))), { 2.25, 9.0 }, "preamble")
    local acc = EK("int32 x", "int32 y, raw int32 total", "acc += x; y = x * 2;", "accumulate",
      { loop_prep = "int acc = 0;", after_loop = "atomicAdd(&total[0], acc);" })
    local n = 1000
    local x = cuarr.arange(1, n + 1):astype("int32")
    local y, total = cuarr.zeros(n, "int32"), cuarr.zeros(1, "int32")
    acc(x, y, total)
    assert.are.equal(n * (n + 1) // 2, flat(total)[1], "after_loop summed what loop_prep began")
    assert.are.equal(2 * n, flat(y)[n])
    local scaled = EK("T x", "T y", "y = x * SCALE;", "with_options", { options = { "-DSCALE=3" } })
    A.check_equal(flat(scaled(cuarr.array({ 1, 2 }, "int32"))), { 3, 6 }, "-DSCALE=3")
  end)

  H.gpu_it("options read through __index stay alive while the kernel is made", function()
    -- Each read makes a new string and collects garbage: the binding must keep what it read.
    local opts = setmetatable({}, { __index = function(_, key)
      collectgarbage()
      if key == "preamble" then return "#define ADD_" .. "ONE(v) ((v) + 1)" end
      if key == "options" then
        return setmetatable({}, { __len = function() return 2 end, __index = function(_, i)
          collectgarbage()
          return i == 1 and "-DTWO=" .. "2" or "-DTHREE=" .. "3"
        end })
      end
    end })
    local k = EK("int32 x", "int32 y", "y = ADD_ONE(x) * TWO + THREE;", "through_index", opts)
    A.check_equal(flat(k(cuarr.array({ 1, 2 }, "int32"))), { 7, 9 }, "preamble and -D options")
  end)

  H.gpu_it("a compile error is a CompileError carrying NVRTC's log", function()
    local k = EK("float32 x", "float32 y", "y = x +;", "broken")
    local err = H.raises("CompileError", k, cuarr.zeros(2, "float32"))
    assert.truthy(err.message:find("error", 1, true), err.message)
    assert.truthy(err.message:find("failed", 1, true), err.message)
    local undeclared = EK("float32 x", "float32 y", "y = nowhere;", "undeclared")
    H.raises("CompileError", undeclared, cuarr.zeros(2, "float32"))
  end)
end)
