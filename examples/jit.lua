-- Kernels written in Lua with cuarr.jit.rawkernel: the seed notebooks' elementwise_square (a
-- 1-based grid-stride loop), checked y == x * x, and a histogram through shared memory,
-- syncthreads and atomics, checked against a count in plain Lua.  The kernels are translated
-- and compiled on their first launch; without a GPU, k:compile translates them for the
-- arguments' typing and compiles them with NVRTC, and the launches are skipped.
local cuarr = require "cuarr"
local jit = cuarr.jit

local square = jit.rawkernel(function(x, y, size)
  local tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x  -- CUDA's 0-based thread number
  local ntid = jit.gridDim.x * jit.blockDim.x
  for i = tid + 1, size, ntid do y[i] = x[i] * x[i] end           -- arrays are 1-based, as in all Lua
end)

local NBINS = 16                                                   -- an upvalue: a constant
local histogram = jit.rawkernel(function(data, bins)
  local counts = jit.shared_array("int32", NBINS)                  -- one per block
  local t = jit.threadIdx.x + 1
  if t <= NBINS then counts[t] = 0 end
  jit.syncthreads()
  local start, stride = jit.grid(1), jit.gridsize(1)
  for i = start, #data, stride do jit.atomic_add(counts, data[i] % NBINS + 1, 1) end
  jit.syncthreads()
  if t <= NBINS then jit.atomic_add(bins, t, counts[t]) end
end)

if not cuarr.is_available() then
  local x = cuarr.cpu.arange(1 << 22, "float32")
  square:compile({x, x, #x})
  histogram:compile({cuarr.cpu.zeros(8, "int32"), cuarr.cpu.zeros(NBINS, "int32")})
  print(square.source == nil and "no usable GPU: elementwise_square and histogram translated "
    .. "and compiled with NVRTC; their launches are skipped")
  return
end

local function check(ok, what)
  if not ok then error(what .. ": wrong result", 2) end
  print(what .. ": ok")
end

-- elementwise_square over 2^22 float32, in both call styles.
local size = 1 << 22
local x = cuarr.arange(size, "float32")
local y = cuarr.empty(size, "float32")
square({128}, {1024}, {x, y, size})
check(y:eq(x * x):all(), "elementwise_square k(grid, block, {...})")
y:fill(0)
square[{128, 1024}](x, y, size)
check(y:eq(x * x):all(), "elementwise_square k[{grid, block}](...)")
print(square.source:match("// translated from [^\n]*"))

-- The histogram of pseudo-random values, against the same count in Lua.
local n, values, want = 100000, {}, {}
for b = 1, NBINS do want[b] = 0 end
local state = 12345
for i = 1, n do
  state = (state * 1103515245 + 12345) % 2147483648
  values[i] = state % 1000
  local b = values[i] % NBINS + 1
  want[b] = want[b] + 1
end
local bins = cuarr.zeros(NBINS, "int32")
histogram(64, 256, {cuarr.array(values, "int32"), bins})
local got = bins:get():totable()
local same = true
for b = 1, NBINS do same = same and got[b] == want[b] end
check(same, "histogram with shared memory, syncthreads and atomic_add")
