-- RawModule / RawKernel misuse (issue 15): every case raises a cuarr error of the documented
-- kind, and no array it was given changes.
--
-- The cases run in one child Lua on the stand-in driver of tools/fake_cuda (device memory is
-- host memory, kernels never run), with NVRTC compiling for real: the argument checks read the
-- parameter types NVRTC gives the kernel's signature probe.  The same script runs on a device
-- under #gpu, where a launch that slipped through would change the arrays.
local H = require("spec.helper").bind(_ENV)
local _ = H.cuarr

local child = require "spec.support.child"

local fmt = string.format

local fake_libcuda = child.fake_libcuda

-- The child: makes arrays of known contents, runs each case, and prints one line per case:
-- name, the error's kind (or "none"), whether every array kept its contents, the message.
local CASES = [==[
local cuarr = require "cuarr"
local SRC = [[
  __constant__ float lut[16];
  extern "C" __global__ void mulReg(const double* in, double* out, int Z, int Y, int X) {
    int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
    if (x < X && y < Y) { double t = 1.; for (int z = 0; z < Z; z++) t *= in[z*Y*X + y*X + x]; out[y*X + x] = t; }
  }
  extern "C" __global__ void small(unsigned char c, short s, unsigned int u, float f, bool b, double* out) {
    out[0] = c + s + u + f + b;
  }
  extern "C" __global__ void anyptr(void* p, char* q, double* out) { out[0] = p == q; }
  struct pair { int a, b; };
  extern "C" __global__ void by_value(pair p, double* out) { out[0] = p.a; }
  template<typename T> __global__ void scale(T* x, T a, int n) { int i = blockIdx.x*blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }
]]
local mod = cuarr.RawModule{code = SRC, name_expressions = {"scale<float>"}}
local mulReg = mod:get_function("mulReg")
local small = mod:get_function("small")
local anyptr = mod:get_function("anyptr")
local by_value = mod:get_function("by_value")
local scale = mod:get_function("scale<float>")

local inp = cuarr.asarray({{{1.5, 2}, {3, 4}}, {{5, 6}, {7, 8}}}, "float64")
local out = cuarr.asarray({{-1, -2}, {-3, -4}}, "float64")
local f32 = cuarr.asarray({1, 2, 3, 4}, "float32")
local host = cuarr.cpu.asarray({1, 2, 3, 4}, "float64")
local freed = cuarr.asarray({9, 9}, "float64")
freed:free()
local arrays = {inp, out, f32}
local before = {}
for i, a in ipairs(arrays) do before[i] = a:get():totable() end
local function flat(t, o)
  o = o or {}
  if type(t) ~= "table" then o[#o + 1] = t return o end
  for _, v in ipairs(t) do flat(v, o) end
  return o
end
local function unchanged()
  for i, a in ipairs(arrays) do
    local now, was = flat(a:get():totable()), flat(before[i])
    for j = 1, #was do if now[j] ~= was[j] then return false end end
  end
  return host:totable()[1] == 1
end
local stream_other = nil
local cases = {
  {"non-integral number for int", function() mulReg({1, 1}, {2, 2}, {inp, out, 2.5, 2, 2}) end},
  {"int out of range", function() mulReg({1, 1}, {2, 2}, {inp, out, 2^31, 2, 2}) end},
  {"negative int out of range", function() mulReg({1, 1}, {2, 2}, {inp, out, math.mininteger, 2, 2}) end},
  {"too few arguments", function() mulReg({1, 1}, {2, 2}, {inp, out, 2, 2}) end},
  {"too many arguments", function() mulReg({1, 1}, {2, 2}, {inp, out, 2, 2, 2, 2}) end},
  {"array where a scalar is declared", function() mulReg({1, 1}, {2, 2}, {inp, out, out, 2, 2}) end},
  {"number where a pointer is declared", function() mulReg({1, 1}, {2, 2}, {inp, 7, 2, 2, 2}) end},
  {"array of another dtype", function() mulReg({1, 1}, {2, 2}, {f32, out, 2, 2, 2}) end},
  {"host array", function() mulReg({1, 1}, {2, 2}, {host, out, 2, 2, 2}) end},
  {"freed array", function() mulReg({1, 1}, {2, 2}, {inp, freed, 2, 2, 2}) end},
  {"string argument", function() mulReg({1, 1}, {2, 2}, {inp, out, "2", 2, 2}) end},
  {"table argument", function() mulReg({1, 1}, {2, 2}, {inp, out, {2}, 2, 2}) end},
  {"nil hole in args", function() mulReg({1, 1}, {2, 2}, {inp, out, nil, 2, 2}) end},
  {"unsigned char out of range", function() small(1, 1, {256, 1, 1, 1.5, true, out}) end},
  {"negative for unsigned", function() small(1, 1, {1, 1, -1, 1.5, true, out}) end},
  {"short out of range", function() small(1, 1, {1, 40000, 1, 1.5, true, out}) end},
  {"float out of range", function() small(1, 1, {1, 1, 1, 1e300, true, out}) end},
  {"number for bool", function() small(1, 1, {1, 1, 1, 1.5, 1, out}) end},
  {"bool for int", function() small(1, 1, {true, 1, 1, 1.5, true, out}) end},
  {"class by value", function() by_value(1, 1, {1, out}) end},
  {"number for void*", function() anyptr(1, 1, {0, f32, out}) end},
  {"template: float for int n", function() scale({1}, {4}, {f32, 2.5, 4.5}) end},
  {"template: float64 array for float*", function() scale({1}, {4}, {inp, 2.5, 4}) end},
  {"block too large", function() mulReg({1, 1}, {64, 64}, {inp, out, 2, 2, 2}) end},
  {"block z too large", function() mulReg({1, 1, 1}, {1, 1, 65}, {inp, out, 2, 2, 2}) end},
  {"grid y too large", function() mulReg({1, 70000}, {1, 1}, {inp, out, 2, 2, 2}) end},
  {"shared_mem over the kernel's max", function() mulReg(1, 1, {inp, out, 2, 2, 2}, {shared_mem = 1 << 30}) end},
  {"zero grid extent", function() mulReg({0, 1}, {2, 2}, {inp, out, 2, 2, 2}) end},
  {"four grid extents", function() mulReg({1, 1, 1, 1}, {2, 2}, {inp, out, 2, 2, 2}) end},
  {"non-integral block", function() mulReg(1, 2.5, {inp, out, 2, 2, 2}) end},
  {"grid a string", function() mulReg("1", 2, {inp, out, 2, 2, 2}) end},
  {"args not a table", function() mulReg(1, 2, inp) end},
  {"unknown launch option", function() mulReg(1, 2, {inp, out, 2, 2, 2}, {shared = 0}) end},
  {"stream not a Stream", function() mulReg(1, 2, {inp, out, 2, 2, 2}, {stream = 3}) end},
  {"negative shared_mem", function() mulReg(1, 2, {inp, out, 2, 2, 2}, {shared_mem = -1}) end},
  {"numba config too short", function() return mulReg[{ {1, 1} }] end},
  {"numba config not a table", function() return mulReg[3] end},
  {"numba bad argument", function() mulReg[{ {1, 1}, {2, 2} }](inp, out, 2.5, 2, 2) end},
  {"numba config bad stream", function() return mulReg[{ 1, 1, "s" }] end},
  {"RawModule not a table", function() cuarr.RawModule("code") end},
  {"RawModule code and path", function() cuarr.RawModule{code = SRC, path = "x.cu"} end},
  {"RawModule neither code nor path", function() cuarr.RawModule{options = {}} end},
  {"RawModule unknown key", function() cuarr.RawModule{code = SRC, name_expression = {}} end},
  {"RawModule option not a string", function() cuarr.RawModule{code = SRC, options = {1}} end},
  {"RawModule NUL in code", function() cuarr.RawModule{code = "a\0b"} end},
  {"RawModule name_expressions a string", function() cuarr.RawModule{code = SRC, name_expressions = "scale<float>"} end},
  {"RawModule empty name expression", function() cuarr.RawModule{code = SRC, name_expressions = {""}} end},
  {"RawModule missing file", function() cuarr.RawModule{path = "/nonexistent/k.cubin"} end},
  {"RawModule unknown extension", function() cuarr.RawModule{path = "/tmp/k.txt"} end},
  {"compile error", function() cuarr.RawModule{code = "extern \"C\" __global__ void k() { nope; }"}:compile() end},
  {"RawKernel without a name", function() cuarr.RawKernel(SRC) end},
  {"RawKernel unknown option", function() cuarr.RawKernel(SRC, "mulReg", {backend = "nvcc"}) end},
  {"RawKernel dependent_launch not a boolean", function() cuarr.RawKernel(SRC, "mulReg", {dependent_launch = 1}) end},
  {"get_global too large a shape", function() mod:get_global("lut", "float32", {100000}) end},
  {"get_global unknown dtype", function() mod:get_global("lut", "float33") end},
  {"max_dynamic_shared negative", function() mulReg.max_dynamic_shared_size_bytes = -1 end},
  {"max_dynamic_shared too large", function() mulReg.max_dynamic_shared_size_bytes = 1 << 30 end},
  {"set another field", function() mulReg.attributes = {} end},
  {"unknown field", function() return mulReg.nothing end},
  {"kernel not found", function() mod:get_function("nothere") end},
  {"template not among name_expressions", function() mod:get_function("scale<double>") end},
  {"global not found", function() mod:get_global("nolut") end},
  {"closed kernel", function() local k = mod:get_function("mulReg") k:free() k(1, 1, {inp, out, 2, 2, 2}) end},
  {"launcher of a closed kernel", function() local k = mod:get_function("mulReg") local l = k[{1, 1}] k:free() l(inp, out, 2, 2, 2) end},
  {"closed module", function() local m = cuarr.RawModule{code = SRC} m:free() m:get_function("mulReg") end},
}
for _, c in ipairs(cases) do
  local ok, err = pcall(c[2])
  local kind = ok and "none" or (cuarr.is_error(err) and err.kind or "plain:" .. tostring(err))
  local message = ok and "" or tostring(err):gsub("[\t\n]", " ")
  print(c[1] .. "\t" .. kind .. "\t" .. tostring(unchanged()) .. "\t" .. message)
end
print("done")
]==]

-- The kind each case must raise.
local EXPECTED = {
  ["non-integral number for int"] = "TypeError",
  ["int out of range"] = "ValueError",
  ["negative int out of range"] = "ValueError",
  ["too few arguments"] = "ValueError",
  ["too many arguments"] = "ValueError",
  ["array where a scalar is declared"] = "TypeError",
  ["number where a pointer is declared"] = "TypeError",
  ["array of another dtype"] = "TypeError",
  ["host array"] = "TypeError",
  ["freed array"] = "ValueError",
  ["string argument"] = "TypeError",
  ["table argument"] = "TypeError",
  ["nil hole in args"] = "TypeError",
  ["unsigned char out of range"] = "ValueError",
  ["negative for unsigned"] = "ValueError",
  ["short out of range"] = "ValueError",
  ["float out of range"] = "ValueError",
  ["number for bool"] = "TypeError",
  ["bool for int"] = "TypeError",
  ["class by value"] = "TypeError",
  ["number for void*"] = "TypeError",
  ["template: float for int n"] = "TypeError",
  ["template: float64 array for float*"] = "TypeError",
  ["block too large"] = "CUDAError",
  ["block z too large"] = "CUDAError",
  ["grid y too large"] = "CUDAError",
  ["shared_mem over the kernel's max"] = "CUDAError",
  ["zero grid extent"] = "ValueError",
  ["four grid extents"] = "ValueError",
  ["non-integral block"] = "TypeError",
  ["grid a string"] = "TypeError",
  ["args not a table"] = "TypeError",
  ["unknown launch option"] = "ValueError",
  ["stream not a Stream"] = "TypeError",
  ["negative shared_mem"] = "ValueError",
  ["numba config too short"] = "ValueError",
  ["numba config not a table"] = "TypeError",
  ["numba bad argument"] = "TypeError",
  ["numba config bad stream"] = "TypeError",
  ["RawModule not a table"] = "TypeError",
  ["RawModule code and path"] = "ValueError",
  ["RawModule neither code nor path"] = "ValueError",
  ["RawModule unknown key"] = "ValueError",
  ["RawModule option not a string"] = "TypeError",
  ["RawModule NUL in code"] = "ValueError",
  ["RawModule name_expressions a string"] = "TypeError",
  ["RawModule empty name expression"] = "ValueError",
  ["RawModule missing file"] = "ValueError",
  ["RawModule unknown extension"] = "ValueError",
  ["compile error"] = "CompileError",
  ["RawKernel without a name"] = "TypeError",
  ["RawKernel unknown option"] = "ValueError",
  ["RawKernel dependent_launch not a boolean"] = "TypeError",
  ["get_global too large a shape"] = "ValueError",
  ["get_global unknown dtype"] = "TypeError",
  ["max_dynamic_shared negative"] = "ValueError",
  ["max_dynamic_shared too large"] = "ValueError",
  ["set another field"] = "IndexError",
  ["unknown field"] = "IndexError",
  ["kernel not found"] = "ValueError",
  ["template not among name_expressions"] = "ValueError",
  ["global not found"] = "ValueError",
  ["closed kernel"] = "ValueError",
  ["launcher of a closed kernel"] = "ValueError",
  ["closed module"] = "ValueError",
}

-- Words each message must hold: the kernel, the argument and both types, where there are.
local MESSAGE = {
  ["non-integral number for int"] = "argument 3 of mulReg is int, got 2.5",
  ["array of another dtype"] = "argument 1 of mulReg is const double*, got a float32 array",
  ["host array"] = "mulReg: user kernels take device arrays, got a host array (argument #1)",
  ["number where a pointer is declared"] = "argument 2 of mulReg is double*, got 7",
  ["array where a scalar is declared"] = "argument 3 of mulReg is int, got a float64 array",
  ["unsigned char out of range"] = "argument 1 of small is unsigned char, got 256",
  ["too few arguments"] = "mulReg takes 5 arguments, got 4",
  ["block too large"] = "mulReg",
  ["template: float for int n"] = "argument 3 of scale<float> is int, got 4.5",
  ["compile error"] = "nope",
  ["kernel not found"] = "RawModule has no kernel 'nothere' (declare it extern \"C\"",
  ["global not found"] = "no global 'nolut'",
}

local function parse(out)
  local results = {}
  for line in out:gmatch("[^\n]+") do
    local name, kind, unchanged, message = line:match("^(.-)\t(.-)\t(.-)\t(.*)$")
    if name then results[name] = { kind = kind, unchanged = unchanged == "true", message = message } end
  end
  return results
end

-- Every case's failures, one line each, so that one run shows them all.
local function check_all(results, out)
  local failures = {}
  local function fail(...) failures[#failures + 1] = fmt(...) end
  for name, kind in pairs(EXPECTED) do
    local r = results[name]
    if not r then
      fail("case '%s' did not run", name)
    elseif r.kind ~= kind then
      fail("case '%s': expected %s, got %s (%s)", name, kind, r.kind, r.message)
    elseif not r.unchanged then
      fail("case '%s' changed an array", name)
    elseif MESSAGE[name] and not r.message:find(MESSAGE[name], 1, true) then
      fail("case '%s': message lacks '%s': %s", name, MESSAGE[name], r.message)
    end
  end
  for name in pairs(results) do
    if not EXPECTED[name] then fail("case '%s' has no expected kind", name) end
  end
  assert(#failures == 0, table.concat(failures, "\n") .. "\n" .. out)
end

describe("RawKernel bad input", function()
  it("has at least 30 distinct cases", function()
    local n = 0
    for _ in pairs(EXPECTED) do n = n + 1 end
    assert.is_true(n >= 30)
  end)

  it("each case raises its kind and changes no array, on the stand-in driver", function()
    local ok, out, err = child.run(CASES, { CUARR_LIBCUDA = fake_libcuda(),
                                            CUARR_CACHE_IN_MEMORY = "1" })
    assert(ok, out .. err)
    assert(out:find("done\n", 1, true), out .. err)
    check_all(parse(out), out)
  end)

  H.gpu_it("each case raises its kind and changes no array, on the device", function()
    local ok, out, err = child.run(CASES, {})
    assert(ok, out .. err)
    check_all(parse(out), out)
  end)
end)
