-- One rank of a job of one process per GPU on real GPUs and NCCL (distributed_spec's #multigpu
-- specs start it with bin/cuarr-run): every collective, on several dtypes, contiguous and
-- strided, checked against the answer computed here in Lua from what each rank sent.  Prints
-- "rank r ok" or raises (a non-zero exit).
local cuarr = require "cuarr"
local comm = cuarr.distributed.init {}
local me, n = comm.rank, comm.size
local fmt = string.format

-- Rank r's element i (0-based), small enough that sums stay exact in every dtype.
local function value(r, i) return (r * 7 + i * 3) % 11 end

local function expect(what, got, want)
  for i = 1, #want do
    if got[i] ~= want[i] then
      error(fmt("rank %d: %s: element %d is %s, want %s", me, what, i, tostring(got[i]),
        tostring(want[i])), 0)
    end
  end
  if #got ~= #want then error(fmt("rank %d: %s: %d elements, want %d", me, what, #got, #want), 0) end
end

local function mine(count, dt, r)
  local t = {}
  for i = 0, count - 1 do t[i + 1] = value(r or me, i) end
  return cuarr.asarray(t, dt)
end

local count = 6 * n
for _, dt in ipairs { "float32", "float64", "int32", "int64", "uint8", "float16" } do
  -- all_reduce sum and max, in place and into out
  local x = mine(count, dt)
  comm:all_reduce(x, "sum")
  local want, wmax = {}, {}
  for i = 0, count - 1 do
    local s, m = 0, -1
    for r = 0, n - 1 do
      s = s + value(r, i)
      m = math.max(m, value(r, i))
    end
    want[i + 1], wmax[i + 1] = s, m
  end
  expect(dt .. " all_reduce sum", x:totable(), want)
  local out = cuarr.empty(count, dt)
  comm:all_reduce(mine(count, dt), "max", { out = out })
  expect(dt .. " all_reduce max", out:totable(), wmax)
  -- reduce to the last rank: only it changes
  x = mine(count, dt)
  comm:reduce(x, "sum", n - 1)
  local own = {}
  for i = 0, count - 1 do own[i + 1] = value(me, i) end
  expect(dt .. " reduce", x:totable(), me == n - 1 and want or own)
  -- broadcast from rank 0, on a stream of our own
  x = mine(count, dt)
  local s = cuarr.Stream()
  comm:broadcast(x, 0, { stream = s })
  s:synchronize()
  local zero = {}
  for i = 0, count - 1 do zero[i + 1] = value(0, i) end
  expect(dt .. " broadcast", x:totable(), zero)
  -- all_gather of a strided view: rank r's part lands at r * 3
  local big = mine(2 * 3, dt)
  local g = cuarr.empty(3 * n, dt)
  comm:all_gather(big[{ { 1, 6, 2 } }], g)
  local wg = {}
  for r = 0, n - 1 do
    for k = 0, 2 do wg[r * 3 + k + 1] = value(r, 2 * k) end
  end
  expect(dt .. " all_gather", g:totable(), wg)
  -- reduce_scatter min: rank r gets chunk r
  local rs = cuarr.empty(6, dt)
  comm:reduce_scatter(mine(count, dt), rs, "min")
  local wrs = {}
  for k = 0, 5 do
    local m = math.huge
    for r = 0, n - 1 do m = math.min(m, value(r, me * 6 + k)) end
    wrs[k + 1] = m
  end
  expect(dt .. " reduce_scatter", rs:totable(), wrs)
  -- all_to_all: chunk p of rank r goes to chunk r of rank p
  local a2a = cuarr.empty(count, dt)
  comm:all_to_all(mine(count, dt), a2a)
  local wa = {}
  for r = 0, n - 1 do
    for k = 0, 5 do wa[r * 6 + k + 1] = value(r, me * 6 + k) end
  end
  expect(dt .. " all_to_all", a2a:totable(), wa)
end

-- bool max and min (`or`, `and`)
local b = cuarr.asarray({ me == 0, false, true }, "bool")
comm:all_reduce(b, "max")
expect("bool max", b:totable(), { true, false, true })

-- send and recv around the ring, an int16 array (moved as bytes) into a strided view
if n > 1 then
  local right, left = (me + 1) % n, (me - 1) % n
  local buf = cuarr.zeros(8, "int16")
  if me % 2 == 0 then
    comm:send(mine(4, "int16"), right)
    comm:recv(buf[{ { 1, 8, 2 } }], left)
  else
    comm:recv(buf[{ { 1, 8, 2 } }], left)
    comm:send(mine(4, "int16"), right)
  end
  local wb = {}
  for k = 0, 3 do wb[2 * k + 1], wb[2 * k + 2] = value(left, k), 0 end
  expect("send/recv", buf:totable(), wb)
end

-- a barrier waits for every rank: the last one comes 1.5 s late
if comm.rank == n - 1 then os.execute("sleep 1.5") end
local t0 = cuarr.perf_counter()
comm:barrier()
local waited = cuarr.perf_counter() - t0
if n > 1 and me == 0 and waited < 1.0 then
  error(fmt("rank 0: the barrier returned after %.2f s, before the last rank came", waited), 0)
end
comm:destroy()
print(fmt("rank %d ok", me))
