-- Raw kernels: the `mul` vs `mulReg` comparison of the seed notebooks.  Both multiply a stack
-- of Z matrices (Y x X, float64) elementwise into one; `mul` accumulates in global memory,
-- `mulReg` in a register.  Each is timed, and their results are checked against the product
-- computed on the host.
--
--   lua5.4 examples/raw_kernels.lua            -- the notebooks' 4096 x 512 x 512 stack
--   lua5.4 examples/raw_kernels.lua small      -- 64 x 128 x 128 (or CUARR_EXAMPLE_SMALL=1)
local cuarr = require "cuarr"

if not cuarr.is_available() then
  print("raw_kernels.lua needs a GPU: nothing to run here")
  return
end

local small = arg[1] == "small" or os.getenv("CUARR_EXAMPLE_SMALL") == "1"
local Z, Y, X = 4096, 512, 512
if small then Z, Y, X = 64, 128, 128 end

local mod = cuarr.RawModule { code = [[
extern "C" __global__ void mul(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) {
    out[y * X + x] = 1.;
    for (int z = 0; z < Z; z++) out[y * X + x] *= in[(size_t)z * Y * X + y * X + x];
  }
}
extern "C" __global__ void mulReg(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) {
    double t = 1.;
    for (int z = 0; z < Z; z++) t *= in[(size_t)z * Y * X + y * X + x];
    out[y * X + x] = t;
  }
}
]] }

-- Values near 1, so that a product of thousands stays finite: element i of the stack (0-based,
-- C order) is 1 + ((i % 1021) - 510) / 2^20, exact in float64 up to the final sum, so the host
-- computes the very same numbers without copying the stack back.
local function value(i) return 1 + ((i % 1021) - 510) / 1048576 end
local inp = ((cuarr.arange(Z * Y * X, { dtype = "float64" }) % 1021 - 510) / 1048576 + 1)
    :reshape(Z, Y, X)
local block = { 32, 8 }
local grid = { (X + block[1] - 1) // block[1], (Y + block[2] - 1) // block[2] }

-- Time fn on the GPU: with the benchmark tool where there is one, else with events.
local function time_gpu(name, fn)
  if cuarr.profiler and cuarr.profiler.benchmark then
    print(cuarr.profiler.benchmark(fn, {}, { n_repeat = 20, name = name }))
    return
  end
  fn() -- warm-up (and compile)
  local start, stop = cuarr.Event(), cuarr.Event()
  local n = 20
  start:record()
  for _ = 1, n do fn() end
  stop:record()
  stop:synchronize()
  local ms = cuarr.get_elapsed_time(start, stop) / n
  print(string.format("%-8s: GPU %.3f ms per call (%d calls, events)", name, ms, n))
end

-- The host's product of column (y, x) (1-based).
local function host_product(y, x)
  local p = 1.0
  for z = 0, Z - 1 do p = p * value(z * Y * X + (y - 1) * X + (x - 1)) end
  return p
end

for _, name in ipairs { "mul", "mulReg" } do
  local k = mod:get_function(name)
  local out = cuarr.zeros({ Y, X }, "float64")
  time_gpu(name, function() k(grid, block, { inp, out, Z, Y, X }) end)
  local got = out:get():totable()
  local step = small and 1 or 61
  local checked = 0
  for y = 1, Y, step do
    for x = 1, X, step do
      local want = host_product(y, x)
      assert(math.abs(got[y][x] - want) <= 1e-12 * math.abs(want),
             string.format("%s: out[%d][%d] = %.17g, host %.17g", name, y, x, got[y][x], want))
      checked = checked + 1
    end
  end
  print(string.format("%-8s: %d elements match the host product (registers %d)", name, checked,
                      k.attributes.num_regs))
end
