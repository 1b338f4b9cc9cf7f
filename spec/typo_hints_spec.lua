-- Typos get an answer a newcomer can act on: a misspelled method or field of any class says
-- what was meant (the near-miss rule of the options' "did you mean"), a spread shape
-- (`zeros(2, 3)`) names the function and the one-argument shape, and a user kernel called on a
-- host array says that user kernels take device arrays, before it looks for a driver.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local child = require "spec.support.child"

local function message(kind, fn, ...) return H.raises(kind, fn, ...).message end

describe("a misspelled method or field", function()
  for _, b in ipairs(H.backends) do
    b.it("of an array says what was meant", function()
      for _, dtype in ipairs { "float32", "int64", "bool" } do
        local a = b.xp.ones({ 2, 3 }, dtype)
        for _, x in ipairs { a, a.T, a[{ {}, { 2, 3 } }], b.xp.zeros({}, dtype), b.xp.zeros(0, dtype) } do
          assert.are.equal("arrays have no field or method 'summ' (did you mean 'sum'?)",
            message("IndexError", function() return x:summ() end))
          assert.are.equal("arrays have no field or method 'shap' (did you mean 'shape'?)",
            message("IndexError", function() return x.shap end))
          assert.are.equal("arrays have no field or method 'resahpe' (did you mean 'reshape'?)",
            message("IndexError", function() return x:resahpe(6) end))
          -- a method the front end adds is suggested too
          assert.are.equal("arrays have no field or method 'totabel' (did you mean 'totable'?)",
            message("IndexError", function() return x:totabel() end))
          -- nothing near: no suggestion
          assert.are.equal("arrays have no field or method 'xyzzyq'",
            message("IndexError", function() return x.xyzzyq end))
        end
      end
    end)
  end

  it("of a user kernel says what was meant", function()
    local ek = cuarr.ElementwiseKernel("T x", "T y", "y = x", "copy_k")
    assert.matches("^ElementwiseKernel has no field 'noutt' %(did you mean 'nout'%?%)$",
      message("IndexError", function() return ek.noutt end))
    local rk = cuarr.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum_k")
    assert.matches("^ReductionKernel has no field 'ninn' %(did you mean 'nin'%?%)$",
      message("IndexError", function() return rk.ninn end))
  end)

  it("of a Stream, Event, Device, MemoryPool and Graph says what was meant, on the stand-in "
    .. "driver", function()
    local ok, out, err = child.run([[
local cuarr = require "cuarr"
local function msg(f) local ok, e = pcall(f); assert(not ok); assert(e.kind == "IndexError", tostring(e)); print(e.message) end
local s = cuarr.Stream()
msg(function() return s:synchronise() end)
msg(function() return cuarr.Event():recrod() end)
msg(function() return cuarr.Device(0):synchronze() end)
msg(function() return cuarr.get_default_memory_pool():used_byte() end)
msg(function() return cuarr.get_default_pinned_memory_pool():free_all_block() end)
msg(function() return cuarr.defer_cleanup():clse() end)
]], { CUARR_LIBCUDA = child.fake_libcuda() })
    assert.is_true(ok, out .. err)
    assert.are.equal(table.concat({
      "Stream has no field or method 'synchronise' (did you mean 'synchronize'?)",
      "Event has no field or method 'recrod' (did you mean 'record'?)",
      "Device has no field or method 'synchronze' (did you mean 'synchronize'?)",
      "MemoryPool has no field or method 'used_byte' (did you mean 'used_bytes'?)",
      "MemoryPool has no field or method 'free_all_block' (did you mean 'free_all_blocks'?)",
      "DeferCleanup has no field or method 'clse' (did you mean 'close'?)",
    }, "\n") .. "\n", out)
  end)

  it("of a module stays nil, so that `if cuarr.fft then` works", function()
    assert.is_nil(cuarr.fft)
    assert.is_nil(cuarr.cpu.fft)
    assert.is_nil(cuarr.linalg.svdd)
    assert.is_nil(cuarr.random.normall)
  end)
end)

describe("a shape spread over arguments", function()
  for _, b in ipairs(H.backends) do
    b.it("names the function and the one-argument shape", function()
      for _, fn in ipairs { "zeros", "ones", "empty" } do
        assert.are.equal(fn .. ": argument #2 must be a dtype or an options table, got number "
          .. "(the shape is one argument: " .. fn .. "({2, 3}))",
          message("TypeError", b.xp[fn], 2, 3))
        assert.are.equal(fn .. ": argument #2 must be a dtype or an options table, got number "
          .. "(the shape is one argument: " .. fn .. "({2, 3, 4}))",
          message("TypeError", b.xp[fn], 2, 3, 4))
      end
      -- the function's name in the other creations' message
      assert.matches("^zeros_like: argument #2 must be a dtype or an options table, got boolean$",
        message("TypeError", b.xp.zeros_like, b.xp.ones(2), true))
    end)
  end
end)

describe("a user kernel called on a host array", function()
  local h = cuarr.cpu.ones(4, "float32")
  local function host_message(name, n)
    return name .. ": user kernels take device arrays, got a host array (argument #" .. n .. ")"
  end

  it("says so instead of 'no CUDA driver' (ElementwiseKernel, ReductionKernel, RawKernel)",
    function()
    local ek = cuarr.ElementwiseKernel("T x, T z", "T y", "y = x + z", "add_k")
    assert.are.equal(host_message("ElementwiseKernel", 1), message("TypeError", ek, h, 1))
    assert.are.equal(host_message("ElementwiseKernel", 2), message("TypeError", ek, 1, h))
    assert.are.equal(host_message("ElementwiseKernel", 3),
      message("TypeError", ek, 1, 2, cuarr.cpu.empty(4, "float64")))
    local rk = cuarr.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "rsum_k")
    assert.are.equal(host_message("ReductionKernel", 1), message("TypeError", rk, h))
    assert.are.equal(host_message("ReductionKernel", 1),
      message("TypeError", rk, h:reshape(2, 2)[{ {}, 1 }], { axis = 1 }))
    local raw = cuarr.RawKernel('extern "C" __global__ void f(float* x, int n) {}', "f")
    assert.are.equal(host_message("f", 1), message("TypeError", raw, { 1 }, { 1 }, { h, 4 }))
    assert.are.equal(host_message("f", 1), message("TypeError", raw[{ 1, 1 }], h, 4))
  end)

  it("says so for a jit.rawkernel", function()
    local k = cuarr.jit.rawkernel(function(x) x[1] = 1 end)
    assert.matches("^jit%.rawkernel .*: user kernels take device arrays, got a host array "
      .. "%(argument #1%)$", message("TypeError", k, 1, 1, { h }))
  end)

  it("vectorize'd and fused functions take host arrays: they run on the host", function()
    local v = cuarr.vectorize({ "float32(float32)" }, function(x) return x * 2 end)
    assert.are.same({ 2, 2, 2, 2 }, v(h):totable())
    local f = cuarr.fuse(function(x) return x * 2 end)
    assert.are.same({ 2, 2, 2, 2 }, f(h):totable())
  end)
end)

describe("a misspelled field of a jit.rawkernel", function()
  it("says what was meant", function()
    local k = cuarr.jit.rawkernel(function(x) x[1] = 1 end)
    assert.matches("has no field sorce %(did you mean 'source'%?%)",
      message("IndexError", function() return k.sorce end))
    assert.matches("has no field compil %(did you mean 'compile'%?%)",
      message("IndexError", function() return k:compil() end))
    assert.matches("has no field xyzzyq %(it has", message("IndexError", function() return k.xyzzyq end))
  end)
end)
