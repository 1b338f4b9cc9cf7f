-- cuarr.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
-- name, opts) with CuPy's semantics: placeholders bound from the arguments, several inputs
-- broadcast together, scalars, raw inputs indexed by the map, reduce_type, preamble, no
-- identity (the first value seeds), `_i` / `_j`, and calls with {axis=, keepdims=, out=}.
-- Declarations are checked when the kernel is made (no GPU needed); the rest runs on the
-- device and is compared with Lua references.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local ipairs, type, math = ipairs, type, math
local fmt = string.format
local RK = cuarr.ReductionKernel

local function flat(a)
  local t = a:get():totable()
  if type(t) ~= "table" then return { t } end
  return H.flat(t)
end

local function close(got, want, rel)
  for i = 1, #want do
    local g, w = got[i], want[i]
    assert(math.abs(g - w) <= rel * math.max(1, math.abs(w)),
      fmt("element %d: got %.17g, want %.17g", i, g, w))
  end
  assert.are.equal(#want, #got)
end

describe("ReductionKernel declarations", function()
  it("read CuPy's parameter lists", function()
    local k = RK("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    assert.are.equal(1, k.nin)
    assert.are.equal(1, k.nout)
    k = RK("T x, raw float32 w, float64 alpha", "float64 y", "x * w[_j] * alpha", "a + b",
           "y = a", 0, "weighted", { reduce_type = "float64" })
    assert.are.equal(3, k.nin)
  end)

  it("bad declarations are ValueErrors", function()
    local cases = {
      { "float x", "float32 y", "unknown type" },
      { "float32 x", "float32 y, float32 z", "exactly one output" },
      { "float32 x", "", "exactly one output" },
      { "float32 x", "raw float32 y", "cannot be raw" },
      { "float32 a", "float32 y", "reserved" },
      { "float32 _j", "float32 y", "reserved" },
      { "float32 x, float32 x", "float32 y", "duplicate" },
    }
    for _, c in ipairs(cases) do
      local err = H.raises("ValueError", RK, c[1], c[2], "x", "a + b", "y = a", "0", "k")
      assert(err.message:find(c[3], 1, true),
        fmt("%q / %q: %s (expected %q)", c[1], c[2], err.message, c[3]))
    end
    H.raises("ValueError", RK, "T x", "T y", "x", "a + b", "y = a", "0", "bad name")
    H.raises("ValueError", RK, "T x", "T y", "x", "a + b", "y = a", "0", "k",
             { reduce_type = "float" })
    H.raises("TypeError", RK, "T x", "T y", "x", "a + b", "y = a", {}, "k")
    H.raises("TypeError", RK, "T x", "T y", "x", "a + b")
    H.raises("TypeError", RK, "T x", "T y", "x", "a + b", "y = a", "0", "k", { preamble = 1 })
  end)

  it("fields are nin and nout, named by strings: other keys are errors", function()
    local k = RK("T x", "T y", "x", "a + b", "y = a", "0", "k")
    assert.are.equal(1, k.nin)
    assert.are.equal(1, k.nout)
    H.raises("IndexError", function() return k.no_such_field end)
    for _, key in ipairs({ {}, 1, 2.5, true }) do
      local err = H.raises("TypeError", function() return k[key] end)
      assert(err.message:find("ReductionKernel fields are named by strings", 1, true),
        err.message)
    end
  end)

  it("up to 32 compile options; more is a ValueError naming the limit, never a cut", function()
    local options = {}
    for j = 1, 32 do options[j] = "-DX" .. j end
    local k = RK("T x", "T y", "x", "a + b", "y = a", "0", "k", { options = options })
    assert.are.equal(1, k.nin)
    options[33] = "-DX33"
    local err = H.raises("ValueError", RK, "T x", "T y", "x", "a + b", "y = a", "0", "k",
      { options = options })
    assert(err.message:find("32", 1, true), err.message)
  end)

  it("a closed kernel is a ValueError to call or read", function()
    local k = RK("T x", "T y", "x", "a + b", "y = a", "0", "k")
    getmetatable(k).__close(k)
    H.raises("ValueError", function() return k.nin end)
    H.raises("ValueError", k, 1)
  end)
end)

describe("ReductionKernel calls", function()
  H.gpu_it("an L2 norm over every axis, over one, with keepdims and into out", function()
    local l2 = RK("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm_spec")
    local x = cuarr.arange(1000, "float64")
    local want = 0
    for i = 0, 999 do want = want + i * i end
    local r = l2(x)
    assert.are.equal(0, r.ndim)
    assert.are.equal("float64", r.dtype)
    close({ r:item() }, { math.sqrt(want) }, 1e-12)
    local m = cuarr.arange(12, "float32"):reshape(3, 4)
    local rows = {}
    for i = 0, 2 do
      local s = 0
      for j = 0, 3 do s = s + (4 * i + j) ^ 2 end
      rows[#rows + 1] = math.sqrt(s)
    end
    close(flat(l2(m, { axis = 2 })), rows, 1e-6)
    close(flat(l2(m, { axis = -1 })), rows, 1e-6)
    local kd = l2(m, { axis = 2, keepdims = true })
    assert.are.same({ 3, 1 }, kd.shape)
    local cols = {}
    for j = 0, 3 do
      local s = 0
      for i = 0, 2 do s = s + (4 * i + j) ^ 2 end
      cols[#cols + 1] = math.sqrt(s)
    end
    close(flat(l2(m.T, { axis = 2 })), cols, 1e-6) -- a transposed view
    local out = cuarr.full(4, -1, "float32")
    local same = l2(m, { axis = 1, out = out })
    assert.are.equal(out, same)
    close(flat(out), cols, 1e-6)
    H.raises("ValueError", l2, m, { axis = 1, out = cuarr.zeros(3, "float32") })
    H.raises("TypeError", l2, m, { axis = 1, out = cuarr.zeros(4, "float64") })
    H.raises("IndexError", l2, m, { axis = 3 })
    H.raises("ValueError", l2, m, { axis = { 1, 1 } })
    close(flat(out), cols, 1e-6) -- untouched by the failed calls
  end)

  H.gpu_it("every dtype binds T; sizes that are not multiples of the block", function()
    local sum = RK("T x", "T y", "x", "a + b", "y = a", "0", "plain_sum_spec")
    for _, dt in ipairs { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                          "uint64", "float16", "float32", "float64" } do
      for _, n in ipairs { 1, 7, 255, 257, 4097 } do
        local x = (cuarr.arange(n, "int64") % 3):astype(dt)
        local want = 0
        for i = 0, n - 1 do want = want + i % 3 end
        if dt == "int8" or dt == "uint8" then want = want % 256 end
        if dt == "int8" and want > 127 then want = want - 256 end
        local r = sum(x)
        assert.are.equal(dt, r.dtype)
        if dt == "float16" and want > 2048 then
          assert(math.abs(r:item() - want) <= 0.01 * want, fmt("%s n=%d", dt, n))
        else
          assert.are.equal(want, r:item(), fmt("%s n=%d", dt, n))
        end
      end
    end
  end)

  H.gpu_it("two inputs broadcast together, scalars and reduce_type", function()
    local dot = RK("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot_spec")
    local x = cuarr.arange(100, "float32")
    local want = 0
    for i = 0, 99 do want = want + i * i end
    close({ dot(x, x):item() }, { want }, 1e-6)
    -- (4, 1) against (1, 5): reduced over the second axis of the broadcast (4, 5)
    local a, b = cuarr.arange(4, "float64"):reshape(4, 1), cuarr.arange(5, "float64"):reshape(1, 5)
    local r = dot(a, b, { axis = 2 })
    close(flat(r), { 0, 10, 20, 30 }, 1e-12)
    local scaled = RK("T x, T alpha", "T y", "x * alpha", "a + b", "y = a", "0", "scaled_spec")
    close({ scaled(x, 0.5):item() }, { 4950 * 0.5 }, 1e-6)
    -- int8 values summed in a wider reduce type: no wrap
    local wide = RK("int8 x", "int64 y", "x", "a + b", "y = a", "0", "wide_spec",
                    { reduce_type = "int64" })
    assert.are.equal(127 * 1000, wide(cuarr.full(1000, 127, "int8")):item())
  end)

  H.gpu_it("no identity: the first value seeds; an empty reduction is an error", function()
    local mx = RK("T x", "T y", "x", "a > b ? a : b", "y = a", nil, "max_noid_spec")
    assert.are.equal(49, mx(cuarr.arange(-50, 50, 1, "int32")):item())
    assert.are.equal(-3, mx(cuarr.full(5000, -3, "int64")):item())
    H.raises("ValueError", mx, cuarr.zeros({ 3, 0 }, "int32"), { axis = 2 })
    local sum = RK("T x", "T y", "x", "a + b", "y = a", "0", "sum_empty_spec")
    assert.are.same({ 0, 0, 0 }, flat(sum(cuarr.zeros({ 3, 0 }, "int32"), { axis = 2 })))
  end)

  H.gpu_it("raw inputs, _j and a preamble", function()
    local k = RK("T x, raw T w", "T y", "x * w[_j]", "a + b", "y = a + offset()", "0",
                 "raw_spec", { preamble = "__device__ double offset() { return 0.25; }" })
    local x = cuarr.ones({ 3, 4 }, "float64")
    local w = cuarr.arange(4, "float64")
    close(flat(k(x, w, { axis = 2 })), { 6.25, 6.25, 6.25 }, 1e-12)
  end)

  H.gpu_it("bad calls are errors and leave arrays as they were", function()
    local sum = RK("float32 x", "float32 y", "x", "a + b", "y = a", "0", "sum_typed_spec")
    H.raises("TypeError", sum, cuarr.zeros(3, "float64"))
    H.raises("ValueError", sum, cuarr.zeros(3, "float32"), cuarr.zeros(3, "float32"))
    H.raises("ValueError", sum, cuarr.cpu.zeros(3, "float32"))
    local broken = RK("T x", "T y", "x +* 1", "a + b", "y = a", "0", "broken_spec")
    local err = H.raises("CompileError", broken, cuarr.zeros(3, "float32"))
    assert(err.message:find("x +* 1", 1, true), err.message)
  end)
end)

describe("reductions on a second device", function()
  H.multigpu_it("run where their array lives, refuse another current device, item() reads across", function()
    local a = cuarr.with_device(1, function()
      local x = cuarr.arange(100000, "float32")
      assert.are.equal(cuarr.Device(1), x:sum().device)
      assert.are.equal(4999950000, x:sum(nil, { dtype = "float64" }):item())
      assert.are.same(x.shape, x:sum({}, { dtype = "float64" }).shape) -- no axis: nothing reduced
      assert.are.equal(99999, x:max():item())
      assert.are.equal(100000, x:argmax():item())
      local c = cuarr.cumsum(x:astype("int64"))
      assert.are.equal(4999950000, c[100000])
      local l2 = RK("T x", "T y", "x * x", "a + b", "y = a", "0", "sq_sum_dev1")
      assert.are.equal(2870, l2(cuarr.arange(1, 21, 1, "int64")):item())
      return x
    end)
    -- device 0 is current again: the array of device 1 is refused, its results read fine
    local err = H.raises("ValueError", function() return a:sum() end)
    assert.matches("device 1", err.message)
    H.raises("ValueError", cuarr.cumsum, a)
    local s = cuarr.with_device(1, function() return a:sum(nil, { dtype = "float64" }) end)
    assert.are.equal(4999950000, s:item())
  end)
end)
