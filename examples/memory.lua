-- The memory pools, step by step: what an allocation, a release and free_all_blocks do to the
-- device pool's figures, and a limit that turns an allocation into an OutOfMemoryError.
local cuarr = require "cuarr"

if not cuarr.is_available() then
  print("the pools hold device and pinned memory: no usable GPU here, nothing to show")
  return
end

local pool = cuarr.get_default_memory_pool()
local MiB = 1024 * 1024
local function show(when)
  print(string.format("%-34s used %8.3f MiB  total %8.3f MiB  free blocks %d", when,
    pool:used_bytes() / MiB, pool:total_bytes() / MiB, pool:n_free_blocks()))
end

pool:free_all_blocks()
local used0, total0 = pool:used_bytes(), pool:total_bytes()
show("at the start")

-- 4 MiB of float32: the pool takes it from the driver and hands it out.
local a = cuarr.zeros(MiB, "float32")
show("after a 4 MiB array")
assert(pool:used_bytes() - used0 == 4 * MiB, "the array's bytes are in use")
assert(pool:total_bytes() >= pool:used_bytes(), "the pool holds at least what is in use")

-- Released, the block stays in the pool for the next allocation: nothing goes to the driver.
a:free()
show("after a:free()")
assert(pool:used_bytes() == used0, "the bytes are no longer in use")
assert(pool:total_bytes() > total0, "the pool keeps the memory")
assert(pool:n_free_blocks() >= 1, "as a free block")

local b = cuarr.zeros(MiB, "float32") -- the same block again
show("after a second 4 MiB array")
local total_with_b = pool:total_bytes()
b:free()

-- free_all_blocks gives the free memory back to the driver.
pool:free_all_blocks()
show("after free_all_blocks()")
assert(pool:total_bytes() < total_with_b, "the free block went back to the driver")

-- A limit: allocations past it fail (after the pool has given back what it could).
pool:set_limit { size = used0 + 8 * MiB }
print(string.format("limit: %.3f MiB", pool:get_limit() / MiB))
assert(pool:get_limit() == used0 + 8 * MiB)
local fits = cuarr.empty(MiB, "float32") -- 4 MiB: under the limit
local ok, err = pcall(cuarr.empty, 2 * MiB, "float32") -- 8 MiB more: over it
assert(not ok and cuarr.is_error(err, "OutOfMemoryError"), tostring(err))
print("an 8 MiB array over the limit:", err.kind)
fits:free()
pool:set_limit { size = 0 } -- no limit
assert(pool:get_limit() == 0)
show("at the end")
