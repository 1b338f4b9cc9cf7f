-- cuarr in a few lines: arrays on the GPU when there is one, on the host otherwise.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
if on_gpu then
  print(("running on the GPU: %s (driver %d, NVRTC %d)"):format(
    cuarr.Device(0).properties.name, cuarr.runtime.driver_version, cuarr.runtime.nvrtc_version))
else
  print("no usable GPU (" .. cuarr.runtime.driver_missing .. "): running on host arrays")
end

local a = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "float32")
print(a)
print("shape", a.shape[1], a.shape[2], "ndim", a.ndim, "dtype", a.dtype, "device", a.device)

local v = a[{ {}, { 2, 3 } }]        -- a view: columns 2..3
v[{ 1, 1 }] = 10                     -- writes through to a
print("after v[{1, 1}] = 10:")
print(a)

local h = a:get()                    -- a host copy
print("as Lua tables:", h:totable()[1][2], h:totable()[2][3])

local r = xp.arange(10):reshape(2, 5).T
print("arange(10):reshape(2, 5).T =")
print(r)

print("linspace:", xp.linspace(0, 1, 5))
print("eye:", xp.eye(3, nil, 1, "int32"))
print("astype:", xp.array({ -1.5, 300.7, 0 / 0 }):astype("uint8"))   -- saturates; NaN -> 0

if on_gpu then
  local pool = cuarr.get_default_memory_pool()
  print(("pool: %d bytes used, %d held"):format(pool:used_bytes(), pool:total_bytes()))
  do
    local t <close> = cuarr.empty(1e8, "float32")  -- released at the end of this block
    print(("with a 400 MB array: %d bytes used"):format(pool:used_bytes()))
  end
  print(("after its scope: %d bytes used"):format(pool:used_bytes()))
  local s = cuarr.Stream { non_blocking = true }
  local d = cuarr.to_device(cuarr.cpu.ones(1e6, "float32", { pinned = true }), s)
  s:synchronize()
  print("uploaded on a stream:", d.size, "elements, last =", d[d.size])
end
