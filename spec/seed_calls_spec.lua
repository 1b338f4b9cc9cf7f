-- Issue 28's calls from the seed notebooks and the 0-d results a Lua `if` meets:
-- any()/all() over every element as Lua booleans, RawKernel:compile(), stream:auto_synchronize(),
-- vectorize on Lua numbers alone, and profiler.benchmark's names (kernel_name, function names).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local NAN = 0 / 0

describe("any() and all() over every element", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("give Lua booleans, as functions and methods, for every dtype", function()
      for _, dt in ipairs(H.dtypes) do
        local some = xp.array({ 0, 1, 0 }, dt)
        local none = xp.zeros({ 2, 3 }, dt)
        local every = xp.ones({ 2, 2 }, dt)
        assert.are.equal(true, some:any(), dt)
        assert.are.equal(false, some:all(), dt)
        assert.are.equal(true, xp.any(some), dt)
        assert.are.equal(false, xp.all(some), dt)
        assert.are.equal(false, none:any(), dt)
        assert.are.equal(false, xp.all(none), dt)
        assert.are.equal(true, every:all(), dt)
        assert.are.equal(true, xp.any(every), dt)
      end
    end)

    b.it("take the branch they mean in an if: isnan(x):any() of a NaN-free array", function()
      for _, dt in ipairs({ "float16", "float32", "float64" }) do
        local clean = xp.array({ 1.5, -2, 0 }, dt)
        local taken = false
        if xp.isnan(clean):any() then taken = true end
        assert.is_false(taken, dt)
        local dirty = xp.array({ 1.5, NAN, 0 }, dt)
        assert.are.equal(true, xp.isnan(dirty):any(), dt)
        assert.are.equal(false, xp.isnan(dirty):all(), dt)
        -- NaN is nonzero: true for any and all, as NumPy's
        assert.are.equal(true, xp.array({ NAN, NAN }, dt):all(), dt)
      end
    end)

    b.it("of empty arrays: any is false, all is true", function()
      for _, dt in ipairs({ "bool", "int32", "float32", "uint8" }) do
        assert.are.equal(false, xp.zeros(0, dt):any(), dt)
        assert.are.equal(true, xp.zeros(0, dt):all(), dt)
        assert.are.equal(false, xp.any(xp.zeros({ 3, 0 }, dt)), dt)
        assert.are.equal(true, xp.all(xp.zeros({ 0, 4 }, dt)), dt)
      end
    end)

    b.it("of 0-d arrays and of views (strided, transposed, broadcast)", function()
      assert.are.equal(true, xp.array(true, "bool"):all())
      assert.are.equal(false, xp.array(0, "int16"):any())
      local m = xp.array({ { 1, 0, 3 }, { 4, 5, 6 } }, "int32")
      assert.are.equal(true, m[{ {}, { 1, 3, 2 } }]:all()) -- columns 1 and 3
      assert.are.equal(true, m[{ {}, { 2, 2 } }]:any()) -- column 2: 0 and 5
      assert.are.equal(false, m[{ {}, { 2, 2 } }]:all())
      assert.are.equal(false, m[{ { 1, 1 }, { 2, 2 } }]:any()) -- the one zero
      assert.are.equal(true, m[{ {}, { 3, 1, -2 } }]:all()) -- columns 3 and 1, reversed
      assert.are.equal(false, m.T:all())
      assert.are.equal(true, m[2]:all())
      assert.are.equal(false, xp.broadcast_to(xp.zeros(1, "float32"), { 4, 5 }):any())
      assert.are.equal(true, m:reshape(3, 2)[{ { 2, 3 } }]:any())
    end)

    b.it("stay arrays with an axis, keepdims, dtype or out", function()
      local m = xp.array({ { true, false }, { true, true } }, "bool")
      local by_col = m:all(1)
      assert.are.same({ true, false }, by_col:totable())
      assert.are.same({ true, true }, xp.any(m, 2):totable())
      assert.are.equal(0, m:any({ 1, 2 }).ndim) -- every axis, named: an array
      assert.are.equal(true, m:any({ 1, 2 }):item())
      assert.are.same({ false, true }, m:all{ axis = -1 }:totable())
      local kept = m:all(nil, { keepdims = true })
      assert.are.same({ 1, 1 }, { kept.shape[1], kept.shape[2] })
      assert.are.same({ { false } }, kept:totable())
      local typed = m:any(nil, { dtype = "int32" })
      assert.are.equal(0, typed.ndim)
      assert.are.equal(1, typed:item())
      local out = xp.zeros({}, "bool")
      local r = xp.all(m, nil, { out = out })
      assert.are.equal(out, r)
      assert.are.equal(false, out:item())
    end)

    b.it("still refuse bad input with error objects", function()
      H.raises("TypeError", xp.any, 5)
      H.raises("ValueError", function() return xp.ones(3):all(nil, { keepdim = true }) end)
    end)
  end
end)

describe("the library's own any()/all() callers", function()
  for _, b in ipairs(H.backends) do
    b.it("histogram and digitize still check their edges' order", function()
      local xp = b.xp
      H.raises("ValueError", xp.histogram, xp.array({ 1, 2 }), xp.array({ 0, 2, 1 }))
      local d = xp.digitize(xp.array({ 0.5, 2.5 }), xp.array({ 3, 2, 1, 0 }))
      assert.are.same({ 4, 2 }, d:get():totable())
    end)
  end
end)

describe("RawKernel:compile()", function()
  local code = [[extern "C" __global__ void twice(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
  }]]

  H.gpu_it("compiles for the current device without launching, and returns the kernel", function()
    local k = cuarr.RawKernel(code, "twice")
    local x = cuarr.arange(4, "float32")
    assert.are.equal(k, k:compile())
    assert.are.equal(k, k:compile()) -- a second time: the loaded kernel
    assert.are.same({ 0, 1, 2, 3 }, x:get():totable()) -- nothing ran
    assert.is_true(k.attributes.num_regs > 0)
    k({ 1 }, { 32 }, { x, 4 })
    assert.are.same({ 0, 2, 4, 6 }, x:get():totable())
  end)

  H.gpu_it("of a template-id, and a NVRTC or name error raised by compile itself", function()
    local t = cuarr.RawKernel([[template<typename T> __global__ void fill(T* x) { x[0] = 1; }]],
      "fill<double>")
    assert.are.equal(t, t:compile())
    H.raises("ValueError", function() return cuarr.RawKernel(code, "thrice"):compile() end)
    H.raises("CompileError", function()
      return cuarr.RawKernel("extern \"C\" __global__ void k() { nope; }", "k"):compile()
    end)
    local closed = cuarr.RawKernel(code, "twice")
    closed:free()
    H.raises("ValueError", function() return closed:compile() end)
    H.raises("TypeError", function() return cuarr.RawKernel(code, "twice").compile(5) end)
  end)
end)

describe("stream:auto_synchronize()", function()
  local slow = [[extern "C" __global__ void spin(float* x, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    x[0] = 42;
  }]]

  H.gpu_it("gives a <close> scope that waits for the stream", function()
    local k = cuarr.RawKernel(slow, "spin")
    for _, s in ipairs({ cuarr.Stream(), cuarr.Stream{ non_blocking = true }, cuarr.null_stream(),
                         cuarr.get_current_stream() }) do
      local x = cuarr.zeros(1, "float32")
      do
        local _ <close> = s:auto_synchronize()
        k({ 1 }, { 1 }, { x, 20000000 }, { stream = s })
      end
      assert.is_true(s:query(), tostring(s))
      local h = cuarr.cpu.empty(1, "float32")
      x:copy_to_host(h, s)
      s:synchronize()
      assert.are.equal(42, h[1])
    end
  end)

  H.gpu_it("closes once, waits when the scope ends by an error, and keeps that error", function()
    local s = cuarr.Stream()
    local scope = s:auto_synchronize()
    assert.truthy(tostring(scope):find("open"))
    scope:close()
    scope:close()
    assert.truthy(tostring(scope):find("closed"))
    local ok, err = pcall(function()
      local _ <close> = s:auto_synchronize()
      error("inside")
    end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("inside"))
    H.raises("TypeError", function() return cuarr.Stream().auto_synchronize(7) end)
    H.raises("TypeError", scope.close, {})
    H.raises("TypeError", scope.close, s)
  end)
end)

describe("a vectorized function on Lua numbers alone", function()
  local gaussian_pdf = cuarr.vectorize({ "float32(float32, float32, float32)" },
    function(x, mean, sigma)
      return math.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * math.sqrt(2 * math.pi))
    end)
  local twice = cuarr.vectorize({ "int32(int32)", "float64(float64)" }, function(x)
    return x * 2
  end)

  local function check()
    local r = gaussian_pdf(2.5, 0.0, 1.0)
    assert.are.equal("cpu", r.device)
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 1, 1 }, { r.shape[1], r.ndim })
    assert.is_true(math.abs(r[1] - 0.017528300) < 1e-6, tostring(r))
    local i = twice(21)
    assert.are.equal("int32", i.dtype)
    assert.are.same({ 42 }, i:totable())
    local f = twice(1.25)
    assert.are.equal("float64", f.dtype)
    assert.are.same({ 2.5 }, f:totable())
    local out = cuarr.cpu.zeros(1, "int32")
    assert.are.same({ 8 }, twice(4, { out = out }):totable())
    assert.are.same({ 8 }, out:totable())
    H.raises("TypeError", twice, "4")
    H.raises("TypeError", twice, 1, 2)
  end

  if H.has_gpu then
    H.gpu_it("returns a one-element 1-D host array, as Numba's (on the device)", check)
  else
    it("returns a one-element 1-D host array, as Numba's (on the host)", check)
  end
end)

describe("profiler.benchmark's names", function()
  local benchmark = cuarr.profiler.benchmark
  local squared_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end,
    { kernel_name = "squared_diff" })
  local unnamed_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end)
  local function step(x) return x end
  local inc = function(x) return x + 1 end
  local Stepper = {}
  function Stepper.advance(x) return x end

  for _, b in ipairs(H.backends) do
    b.it("a fused function by its kernel_name, else its Lua function's name", function()
      local x = b.xp.arange(8, "float32")
      local r = benchmark(squared_diff, { x, x }, { n_repeat = 2, n_warmup = 1 })
      assert.are.equal("squared_diff", r.name)
      assert.truthy(tostring(r):find("^squared_diff%s+:%s+CPU:"), tostring(r))
      assert.are.equal("unnamed_diff", benchmark(unnamed_diff, { x, x }, { n_repeat = 1 }).name)
      assert.are.equal("mine", benchmark(squared_diff, { x, x }, { n_repeat = 1, name = "mine" })
        .name)
      assert.are.equal("squared_diff", squared_diff.name)
      assert.are.equal("unnamed_diff", unnamed_diff.name)
    end)
  end

  it("a Lua function by the name it is defined under, else where it is", function()
    assert.are.equal("step", benchmark(step, { 1 }, { n_repeat = 1 }).name)
    assert.are.equal("advance", benchmark(Stepper.advance, { 1 }, { n_repeat = 1 }).name)
    assert.are.equal("inc", benchmark(inc, { 1 }, { n_repeat = 1 }).name)
    local anonymous = benchmark(function() end, {}, { n_repeat = 1 }).name -- not "anonymous"
    assert.truthy(anonymous:find("seed_calls_spec.lua:%d+$"), anonymous)
    local loaded = benchmark(load("return function() end")(), {}, { n_repeat = 1 }).name
    assert.truthy(loaded:find(":%d+$"), loaded)
    assert.are.equal("function", benchmark(print, { n = 0 }, { n_repeat = 1 }).name)
  end)

  it("a fused function given as source is named where it is", function()
    local f = cuarr.fuse("function(x) return x + 1 end")
    assert.are.equal("string", type(f.name))
    assert.are.equal(f.name, benchmark(f, { cuarr.cpu.ones(2) }, { n_repeat = 1 }).name)
  end)
end)
