-- examples/distributed.lua -- data-parallel mean and variance of one large array split over the
-- GPUs with cuarr.distributed (NCCL), checked against the answer of one GPU holding it whole.
--
--   lua5.4 examples/distributed.lua [n]              one process driving every GPU here
--   bin/cuarr-run -n 2 examples/distributed.lua [n]  one process per GPU
--
-- Each rank makes its own slice of x (element i is sin(i / 1000) * 3 + 1, in float64), sums it,
-- and one all_reduce gives every rank the total, hence the mean; a second pass sums the squared
-- deviations from that mean and a second all_reduce gives the variance.  Two passes, as NumPy's
-- var, so the answer does not lose digits to cancellation.
local cuarr = require "cuarr"
local D = cuarr.distributed

if not D.is_available() then
  print(("cuarr.distributed needs NCCL and a GPU: %s here, nothing to show"):format(
    cuarr.runtime.nccl_version < 0 and "no NCCL" or "no usable GPU"))
  return
end

local n = math.tointeger(tonumber(arg and arg[1] or "") or 100000000)
assert(n and n > 0, "usage: distributed.lua [n], n a positive integer")

-- The ranks this process drives: {rank, device} pairs, and the communicator.
local comm, mine
if os.getenv("CUARR_WORLD_SIZE") then
  comm = D.init {}
  mine = { { rank = comm.rank, device = comm.device.id } }
else
  local devices = {}
  for d = 0, cuarr.runtime.device_count - 1 do devices[#devices + 1] = d end
  comm = D.init { devices = devices }
  mine = {}
  for r, d in ipairs(devices) do mine[r] = { rank = r - 1, device = d } end
end
local size = comm.size

-- Elements lo .. hi-1 of x, on the current device.
local function slice(lo, hi)
  return cuarr.sin(cuarr.arange(lo, hi, 1, "float64") / 1000) * 3 + 1
end

-- One float64 element per local rank, on its device, made by fn(rank's slice).
local function per_rank(xs, fn)
  local parts = {}
  for k, m in ipairs(mine) do
    parts[k] = cuarr.with_device(m.device, function() return fn(xs[k]):reshape(1) end)
  end
  return parts
end

local t0 = cuarr.perf_counter()
local xs = {}
for k, m in ipairs(mine) do
  local lo, hi = n * m.rank // size, n * (m.rank + 1) // size
  xs[k] = cuarr.with_device(m.device, slice, lo, hi)
end
local sums = per_rank(xs, function(x) return x:sum() end)
comm:all_reduce(sums, "sum")
local mean = sums[1]:item() / n
local squares = per_rank(xs, function(x) return ((x - mean) ^ 2):sum() end)
comm:all_reduce(squares, "sum")
local var = squares[1]:item() / n
local seconds = cuarr.perf_counter() - t0

if mine[1].rank == 0 then
  local whole = cuarr.with_device(mine[1].device, slice, 0, n)
  local want_mean, want_var = whole:mean():item(), whole:var():item()
  print(string.format("%d elements over %d GPU rank%s: mean %.12f, variance %.12f (%.1f ms)", n,
    size, size == 1 and "" or "s", mean, var, seconds * 1e3))
  print(string.format("one GPU, whole array:          mean %.12f, variance %.12f", want_mean,
    want_var))
  local ok = math.abs(mean - want_mean) <= 1e-9 * math.abs(want_mean) + 1e-12
    and math.abs(var - want_var) <= 1e-9 * want_var
  print(ok and "they agree" or "THEY DIFFER")
  if not ok then os.exit(1) end
end
comm:destroy()
