-- cuarr.RawModule and cuarr.RawKernel (issue 15): CUDA C written by the user, compiled by NVRTC
-- for the device's own architecture through the kernel cache, launched as written with every
-- argument checked against the kernel's parameter list.
--
-- Host side: NVRTC compiles here, and the device paths run in a child Lua on the stand-in
-- driver of tools/fake_cuda (device memory is host memory, kernels never run): compiling, name
-- expressions, the lowered names kept in the disk cache, the parameter types, the argument and
-- configuration checks, attributes, globals, binary modules.  #gpu: the kernels' results.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local child = require "spec.support.child"

local fmt = string.format

local fake_libcuda = child.fake_libcuda

-- Run code in a child on the stand-in driver; env adds to (or replaces) the defaults.  The
-- child must print "ok" last.
local function on_standin(code, env)
  local vars = { CUARR_LIBCUDA = fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" }
  for k, v in pairs(env or {}) do vars[k] = v end
  local ok, out, err = child.run("local cuarr = require 'cuarr'\n" .. code .. "\nprint('ok')",
                                 vars)
  assert(ok and out:find("ok\n$"), out .. err)
  return out
end

local function temp_dir()
  local path = os.tmpname()
  os.remove(path)
  assert(child.shell("mkdir -p " .. child.sh_quote(path)))
  return path
end

-- The issue's module: a __constant__ table, an extern "C" kernel and a template.
local SOURCE = [[
__constant__ float lut[256];
extern "C" __global__ void mulReg(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) { double t = 1.; for (int z = 0; z < Z; z++) t *= in[z*Y*X + y*X + x]; out[y*X + x] = t; }
}
extern "C" __global__ void mul(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) { out[y*X + x] = 1.; for (int z = 0; z < Z; z++) out[y*X + x] *= in[z*Y*X + y*X + x]; }
}
extern "C" __global__ void from_lut(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.f * lut[i];
}
template<typename T> __global__ void scale(T* x, T a, int n) { int i = blockIdx.x*blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }
]]

-- The source as a Lua literal for child scripts.
local SOURCE_LITERAL = fmt("%q", SOURCE)

describe("RawModule and RawKernel on the host", function()
  it("are made without a device: nothing compiles until a kernel is asked for", function()
    local mod = cuarr.RawModule { code = "this is not CUDA", options = { "--std=c++17" } }
    assert.matches("RawModule", tostring(mod))
    local k = cuarr.RawKernel("neither is this", "k")
    assert.matches("RawKernel k", tostring(k))
    assert.are.equal("k", k.name)
    mod:free()
    H.raises("ValueError", function() mod:compile() end)
    k:free()
    assert.matches("closed", tostring(k))
  end)
end)

describe("RawModule on the stand-in driver", function()
  it("compiles, finds extern \"C\" kernels and name expressions, and reads their parameter types",
     function()
    on_standin("local SOURCE = " .. SOURCE_LITERAL .. [[

local mod = cuarr.RawModule{code = SOURCE, name_expressions = {"scale<float>", "scale<double>"}}
assert(mod:compile() == mod)
local function types(k) return table.concat(k.param_types, ", ") end
assert(types(mod:get_function("mulReg")) == "const double*, double*, int, int, int")
assert(types(mod:get_function("scale<float>")) == "float*, float, int")
assert(types(mod:get_function("scale<double>")) == "double*, double, int")
assert(mod:get_function("scale<float>").name == "scale<float>")
-- A template named by RawKernel is its own name expression.
local k = cuarr.RawKernel(SOURCE, "scale<double>")
assert(types(k) == "double*, double, int", types(k))
-- Typedefs and macros resolved by the compiler.
local t = cuarr.RawKernel([==[
  typedef unsigned short u16;
  #define REAL double
  extern "C" __global__ void t(u16 a, REAL b, const bool* c, void* d, char* e, long long f) {}
]==], "t")
assert(types(t) == "unsigned short, double, const bool*, void*, char*, long long", types(t))
]])
  end)

  it("accepts arguments of each parameter type at their limits", function()
    on_standin([[
local k = cuarr.RawKernel([==[
  struct __half { unsigned short bits; };
  extern "C" __global__ void store_limits(signed char a, short b, int c, long long d, unsigned char e,
      unsigned short f, unsigned int g, unsigned long long h, float i, double j, bool k, __half l,
      double* out, void* any) {}
]==], "store_limits")
local out, any = cuarr.zeros(4, "float64"), cuarr.zeros(4, "int16")
k(1, 1, {-128, -32768, -2147483648, math.mininteger, 0, 0, 0, 0, -3.4028234663852886e38,
         -math.huge, false, -65504, out, any})
k(1, 1, {127, 32767, 2147483647, math.maxinteger, 255, 65535, 4294967295, math.maxinteger,
         3.4028234663852886e38, 1.7976931348623157e308, true, 65504, out, out})
k[{1, 1}](1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1, 2, true, 0.5, out, any)  -- integral floats
local function fails(kind, ...)
  local ok, e = pcall(k, 1, 1, {...})
  assert(not ok and e.kind == kind, tostring(e))
end
fails("ValueError", 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, -32769, 0, 0, 0, 0, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 2147483648, 0, 0, 0, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 2^63, 0, 0, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, 0, 65536, 0, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, 0, 0, 4294967296, 0, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, 0, 0, 0, 0, 3.5e38, 0, true, 0, out, any)
fails("ValueError", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, true, 65520, out, any)
fails("TypeError", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, out, any)
fails("TypeError", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, true, 0, any, any)
-- NaN and infinities are floats' own values.
k(1, 1, {0, 0, 0, 0, 0, 0, 0, 0, 0/0, math.huge, true, -math.huge, out, any})
]])
  end)

  it("puts the toolkit's headers on the search path of a source that includes them", function()
    on_standin([==[
local SOURCE = [[
#include <cuda_fp16.h>
extern "C" __global__ void shift(__half* x, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __hadd(x[i], a);
}
]]
local k = cuarr.RawKernel(SOURCE, "shift")
assert(table.concat(k.param_types, ", ") == "__half*, __half, int", table.concat(k.param_types, ", "))
k(1, 4, {cuarr.zeros(4, "float16"), 1.5, 4})
local ok, e = pcall(k, 1, 4, {cuarr.zeros(4, "float32"), 1.5, 4})
assert(not ok and e.kind == "TypeError", tostring(e))
-- A source that names its own include directory is compiled with that alone.
local own = cuarr.RawKernel(SOURCE, "shift", {options = {"-I/nonexistent"}})
local ok2, e2 = pcall(own, 1, 4, {cuarr.zeros(4, "float16"), 1.5, 4})
assert(not ok2 and e2.kind == "CompileError" and e2.message:find("cuda_fp16.h", 1, true), tostring(e2))
]==])
  end)

  it("keeps name expressions' lowered names with the cubin in the disk cache", function()
    local dir = temp_dir()
    local code = "local SOURCE = " .. SOURCE_LITERAL .. [[

local mod = cuarr.RawModule{code = SOURCE, name_expressions = {"scale<float>"}}
local k = mod:get_function("scale<float>")
assert(table.concat(k.param_types, ", ") == "float*, float, int")
k({1}, {4}, {cuarr.zeros(4, "float32"), 2.5, 4})
local maps = io.open("/proc/self/maps"):read("a")
print(maps:find("libnvrtc", 1, true) and "nvrtc loaded" or "nvrtc not loaded")
]]
    local env = { CUARR_CACHE_IN_MEMORY = "0", CUARR_CACHE_DIR = dir }
    local first = on_standin(code, env)
    assert.matches("nvrtc loaded", first, 1, true)
    -- The entry holds the lowered name of scale<float> beside the cubin.
    local ok, listing = child.shell("grep -rl _Z5scaleIfEvPT_S0_i " .. child.sh_quote(dir))
    assert.is_true(ok, listing)
    -- A fresh process finds everything on disk: NVRTC is never loaded.
    local second = on_standin(code, env)
    assert.matches("nvrtc not loaded", second, 1, true)
    child.shell("rm -rf " .. child.sh_quote(dir))
  end)

  it("raises CompileError with the user's own line numbers", function()
    on_standin([[
local ok, e = pcall(function()
  cuarr.RawModule{code = 'extern "C" __global__ void k(int* x) {\n  x[0] = undefined_name;\n}'}:compile()
end)
assert(not ok and e.kind == "CompileError", tostring(e))
assert(e.message:find("raw_module.cu(2)", 1, true), e.message)
assert(e.message:find("undefined_name", 1, true), e.message)
-- RawKernel compiles on first use: the error comes then.
local k = cuarr.RawKernel("not CUDA", "k")
local ok2, e2 = pcall(k, 1, 1, {})
assert(not ok2 and e2.kind == "CompileError", tostring(e2))
]])
  end)

  it("reports attributes, and max_dynamic_shared_size_bytes widens the launch check", function()
    on_standin("local SOURCE = " .. SOURCE_LITERAL .. [[

local mod = cuarr.RawModule{code = SOURCE}
local k = mod:get_function("mulReg")
local a = k.attributes
for _, key in ipairs{"num_regs", "max_threads_per_block", "shared_size_bytes", "const_size_bytes",
                     "local_size_bytes", "ptx_version", "binary_version",
                     "max_dynamic_shared_size_bytes"} do
  assert(math.type(a[key]) == "integer", key)
end
assert(a.max_threads_per_block > 0 and a.num_regs > 0)
local inp, out = cuarr.zeros({2, 2, 2}, "float64"), cuarr.zeros({2, 2}, "float64")
local big = a.max_dynamic_shared_size_bytes + 1024
local ok, e = pcall(k, 1, 1, {inp, out, 2, 2, 2}, {shared_mem = big})
assert(not ok and e.kind == "CUDAError" and e.message:find("mulReg", 1, true), tostring(e))
k.max_dynamic_shared_size_bytes = big
k(1, 1, {inp, out, 2, 2, 2}, {shared_mem = big})
k[{1, 1, nil, big}](inp, out, 2, 2, 2)
]])
  end)

  it("views globals as device arrays with set and get", function()
    on_standin("local SOURCE = " .. SOURCE_LITERAL .. [[

local mod = cuarr.RawModule{code = SOURCE}
local bytes = mod:get_global("lut")
assert(bytes.dtype == "uint8" and bytes.ndim == 1)
local n = bytes.shape[1] // 4
local lut = mod:get_global("lut", "float32")
assert(lut.shape[1] == n and lut.device.id == 0)
lut:set(cuarr.cpu.arange(n, {dtype = "float32"}))
assert(lut:get():totable()[n] == n - 1)
local two = mod:get_global("lut", "float32", {2, n // 2})
assert(two.shape[1] == 2 and two.shape[2] == n // 2)
assert(two:get():totable()[2][1] == n // 2)
local ok, e = pcall(mod.get_global, mod, "lut", "float64", {n})
assert(not ok and e.kind == "ValueError", tostring(e))
]])
  end)

  it("launches in both styles on a given stream", function()
    on_standin("local SOURCE = " .. SOURCE_LITERAL .. [[

local mod = cuarr.RawModule{code = SOURCE, name_expressions = {"scale<float>"}}
local k = mod:get_function("scale<float>")
local x = cuarr.zeros(1000, "float32")
local s = cuarr.Stream{non_blocking = true}
k({4}, {256}, {x, 2.5, 1000}, {stream = s, shared_mem = 0})
k[{4, 256, s}](x, 2.5, 1000)
k[{ {4, 1, 1}, {256, 1, 1}, s, 0 }](x, 2.5, 1000)
s:synchronize()
-- A Numba-style launcher is reusable.
local launch = k[{4, 256}]
for _ = 1, 3 do launch(x, 2.5, 1000) end
]])
  end)

  it("is captured into a graph by cuarr.graph, in both call styles", function()
    on_standin([[
local k = cuarr.RawKernel('extern "C" __global__ void f(float* x, int n) {}', "f")
local x = cuarr.zeros(16, "float32")
local g = cuarr.graph(function() k(1, 16, {x, 16}); k[{1, 16}](x, 16) end)
assert(tostring(g):find("2 nodes", 1, true), tostring(g))
for _ = 1, 3 do g:launch() end
-- Argument checks still come first: nothing is captured from a bad call.
local ok, e = pcall(cuarr.graph, function() k(1, 16, {x, 2.5}) end)
assert(not ok and e.kind == "TypeError", tostring(e))
]])
  end)

  it("loads .cu, .cubin and .ptx files; binary modules have sizes only", function()
    local nvcc = (os.getenv("CUDA_HOME") or "/usr/local/cuda") .. "/bin/nvcc"
    if not io.open(nvcc) then
      pending("no nvcc at " .. nvcc)
      return
    end
    local dir = temp_dir()
    local cu = dir .. "/k.cu"
    local f = assert(io.open(cu, "w"))
    f:write('extern "C" __global__ void fill(float* x, int n, float v) {'
            .. ' int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v; }\n')
    f:close()
    for _, kind in ipairs { "cubin", "ptx" } do
      local ok, out = child.shell(fmt("%s -arch=sm_90 -%s -o %s/k.%s %s", nvcc, kind, dir, kind, cu))
      assert(ok, out)
    end
    on_standin(fmt("local dir = %q", dir) .. [[

local src = cuarr.RawModule{path = dir .. "/k.cu"}:get_function("fill")
assert(table.concat(src.param_types, ", ") == "float*, int, float")
src(1, 32, {cuarr.zeros(32, "float32"), 32, 1.5})
for _, ext in ipairs{"cubin", "ptx"} do
  local k = cuarr.RawModule{path = dir .. "/k." .. ext}:get_function("fill")
  local types = k.param_types
  local x = cuarr.zeros(32, "float32")
  if types == nil then
    -- The driver cannot tell the parameter list: launches are refused, never guessed.
    local ok, e = pcall(k, 1, 32, {x, 32, 1.5})
    assert(not ok and e.kind == "NotAvailable", tostring(e))
  else
    assert(table.concat(types, ", ") == "a 8-byte parameter, a 4-byte parameter, a 4-byte parameter",
           table.concat(types, ", "))
    -- Sizes alone: an integer fills 4 bytes, a float cannot be told from an int.
    local ok, e = pcall(k, 1, 32, {x, 32, 1.5})
    assert(not ok and e.kind == "TypeError" and e.message:find("declare the kernel", 1, true),
           tostring(e))
  end
  local ok, e = pcall(cuarr.RawModule, {path = dir .. "/k." .. ext, options = {"-O3"}})
  assert(not ok and e.kind == "ValueError", tostring(e))
end
]])
    child.shell("rm -rf " .. child.sh_quote(dir))
  end)
end)

-- ---------------------------------------------------------------- on a device

describe("RawKernel on the device", function()
  local function host_values(a)
    local t = a:get():totable()
    return type(t) == "table" and t or { t }
  end

  H.gpu_it("round-trips every scalar parameter type at its limits", function()
    local k = cuarr.RawKernel([[
      struct __half { unsigned short bits; };
      extern "C" __global__ void store(signed char a, short b, int c, long long d,
          unsigned char e, unsigned short f, unsigned int g, unsigned long long h, float i,
          double j, bool k, __half l,
          signed char* pa, short* pb, int* pc, long long* pd, unsigned char* pe,
          unsigned short* pf, unsigned int* pg, unsigned long long* ph, float* pi, double* pj,
          bool* pk, __half* pl) {
        *pa = a; *pb = b; *pc = c; *pd = d; *pe = e; *pf = f; *pg = g; *ph = h; *pi = i;
        *pj = j; *pk = k; *pl = l;
      }
    ]], "store")
    local dtypes = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "float32", "float64", "bool", "float16" }
    local outs = {}
    for i, dt in ipairs(dtypes) do outs[i] = cuarr.zeros(1, dt) end
    local lows = { -128, -32768, -2147483648, math.mininteger, 0, 0, 0, 0,
                   -3.4028234663852886e38, -1.7976931348623157e308, false, -65504 }
    local highs = { 127, 32767, 2147483647, math.maxinteger, 255, 65535, 4294967295,
                    math.maxinteger, 3.4028234663852886e38, 1.7976931348623157e308, true, 65504 }
    for _, values in ipairs { lows, highs } do
      local args = {}
      for i = 1, 12 do args[i] = values[i] end
      for i = 1, 12 do args[12 + i] = outs[i] end
      k(1, 1, args)
      for i, dt in ipairs(dtypes) do
        assert.are.equal(values[i], host_values(outs[i])[1], dt)
      end
    end
  end)

  H.gpu_it("runs cuda_fp16.h's __half arithmetic from an #include", function()
    local k = cuarr.RawKernel([[
      #include <cuda_fp16.h>
      extern "C" __global__ void shift(__half* x, __half a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] = __hadd(x[i], a);
      }
    ]], "shift")
    local x = cuarr.arange(5, "float16")
    k(1, 32, { x, 1.5, 5 })
    assert.are.same({ 1.5, 2.5, 3.5, 4.5, 5.5 }, host_values(x))
  end)

  H.gpu_it("covers a 3-D grid of 3-D blocks", function()
    local k = cuarr.RawKernel([[
      extern "C" __global__ void where(int* out, int nx, int ny) {
        int x = blockIdx.x * blockDim.x + threadIdx.x;
        int y = blockIdx.y * blockDim.y + threadIdx.y;
        int z = blockIdx.z * blockDim.z + threadIdx.z;
        out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
      }
    ]], "where")
    local nx, ny, nz = 2 * 4, 3 * 2, 4 * 2
    local out = cuarr.full(nx * ny * nz, -1, "int32")
    k({2, 3, 4}, {4, 2, 2}, {out, nx, ny})
    local t = host_values(out)
    for z = 0, nz - 1 do
      for y = 0, ny - 1 do
        for x = 0, nx - 1 do
          assert.are.equal(x + 100 * y + 10000 * z, t[(z * ny + y) * nx + x + 1])
        end
      end
    end
  end)

  H.gpu_it("uses dynamic shared memory, beyond 48 KiB once allowed", function()
    local k = cuarr.RawKernel([[
      extern "C" __global__ void reverse(float* x, int n) {
        extern __shared__ float buf[];
        int i = threadIdx.x;
        buf[i] = x[i];
        __syncthreads();
        x[i] = buf[n - 1 - i];
      }
    ]], "reverse")
    local n = 256
    local x = cuarr.arange(n, { dtype = "float32" })
    k(1, n, { x, n }, { shared_mem = n * 4 })
    local t = host_values(x)
    for i = 1, n do assert.are.equal(n - i, t[i]) end
    local big = 96 * 1024
    H.raises("CUDAError", function() k(1, n, { x, n }, { shared_mem = big }) end)
    k.max_dynamic_shared_size_bytes = big
    assert.are.equal(big, k.max_dynamic_shared_size_bytes)
    k[{ 1, n, nil, big }](x, n)
    t = host_values(x)
    for i = 1, n do assert.are.equal(i - 1, t[i]) end
  end)

  H.gpu_it("instantiates templates through name expressions", function()
    local mod = cuarr.RawModule { code = SOURCE, name_expressions = { "scale<float>", "scale<double>" } }
    local xf = cuarr.arange(1000, { dtype = "float32" })
    local xd = cuarr.arange(1000, { dtype = "float64" })
    mod:get_function("scale<float>")({ 4 }, { 256 }, { xf, 2.5, 1000 })
    mod:get_function("scale<double>")[{ 4, 256 }](xd, -0.5, 1000)
    local tf, td = host_values(xf), host_values(xd)
    for i = 1, 1000 do
      assert.are.equal((i - 1) * 2.5, tf[i])
      assert.are.equal((i - 1) * -0.5, td[i])
    end
  end)

  H.gpu_it("reads constant memory written through get_global", function()
    local mod = cuarr.RawModule { code = SOURCE }
    local lut = mod:get_global("lut", "float32")
    assert.are.equal(256, lut.shape[1])
    lut:set(cuarr.cpu.arange(256, { dtype = "float32" }))
    local out = cuarr.zeros(256, "float32")
    mod:get_function("from_lut")(1, 256, { out, 256 })
    local t = host_values(out)
    for i = 1, 256 do assert.are.equal(2 * (i - 1), t[i]) end
    assert.are.equal(255, host_values(lut)[256])
  end)

  H.gpu_it("computes mul and mulReg as the host does, in both call styles", function()
    local mod = cuarr.RawModule { code = SOURCE }
    local Z, Y, X = 6, 20, 24
    local values = {}
    for z = 1, Z do
      values[z] = {}
      for y = 1, Y do
        values[z][y] = {}
        for x = 1, X do values[z][y][x] = 0.5 + ((x * 7 + y * 3 + z * 5) % 11) / 8 end
      end
    end
    local inp = cuarr.asarray(cuarr.cpu.asarray(values, "float64"))
    for _, name in ipairs { "mul", "mulReg" } do
      local k = mod:get_function(name)
      local out1, out2 = cuarr.zeros({ Y, X }, "float64"), cuarr.zeros({ Y, X }, "float64")
      k({ 2, 2 }, { 16, 16 }, { inp, out1, Z, Y, X })
      k[{ { 2, 2 }, { 16, 16 } }](inp, out2, Z, Y, X)
      local t1, t2 = out1:get():totable(), out2:get():totable()
      for y = 1, Y do
        for x = 1, X do
          local p = 1.0
          for z = 1, Z do p = p * values[z][y][x] end
          assert.are.equal(p, t1[y][x], name)
          assert.are.equal(p, t2[y][x], name)
        end
      end
    end
  end)

  H.gpu_it("launches a dependent_launch kernel after the work it waits for", function()
    local k = cuarr.RawKernel([[
extern "C" __global__ void after(const float* x, float* y, int n) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}]], "after", { dependent_launch = true })
    -- Each launch reads what the reduction and the copy just before it wrote.
    local n = 1 << 20
    local y = cuarr.zeros(n, "float32")
    for r = 1, 20 do
      local x = cuarr.full(n, r, "float32") + y:sum() * 0
      k({ n // 256 }, { 256 }, { x, y, n })
    end
    local t = host_values(y)
    assert.are.equal(21, t[1])
    assert.are.equal(21, t[n])
  end)

  H.gpu_it("runs on the stream it is given", function()
    local mod = cuarr.RawModule { code = SOURCE, name_expressions = { "scale<float>" } }
    local k = mod:get_function("scale<float>")
    local s = cuarr.Stream { non_blocking = true }
    local x = cuarr.ones(4096, "float32")
    for _ = 1, 10 do k({ 16 }, { 256 }, { x, 2, 4096 }, { stream = s }) end
    s:synchronize()
    local t = host_values(x)
    assert.are.equal(1024, t[1])
    assert.are.equal(1024, t[4096])
  end)

  H.gpu_it("names a kernel or global the module lacks, and says how to declare it", function()
    local mod = cuarr.RawModule { code = SOURCE, name_expressions = { "scale<float>" } }
    local e = H.raises("ValueError", function() mod:get_function("scale") end)
    assert.matches("'scale'", e.message, 1, true)
    assert.matches("extern \"C\"", e.message, 1, true)
    assert.matches("name_expressions", e.message, 1, true)
    H.raises("ValueError", function() mod:get_function("scale<double>") end)
    e = H.raises("ValueError", function() mod:get_global("no_such_table") end)
    assert.matches("no_such_table", e.message, 1, true)
  end)

  H.gpu_it("turns a PTX file the JIT refuses into a CompileError with its log", function()
    local path = os.tmpname() .. ".ptx"
    local f = assert(io.open(path, "w"))
    f:write(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n")
    f:close()
    local mod = cuarr.RawModule { path = path }
    H.raises("CompileError", function() mod:compile() end)
    os.remove(path)
  end)
end)
