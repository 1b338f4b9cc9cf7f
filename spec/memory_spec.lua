-- Device and pinned memory pools: statistics, limits, out-of-memory recovery,
-- GC stepping, deterministic release, per-stream free lists.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local MiB, GiB = 1 << 20, 1 << 30

-- Run fn with the pool limited to `limit` bytes, restoring "no limit" afterwards.
local function with_limit(pool, limit, fn)
  pool:free_all_blocks()
  pool:set_limit { size = limit }
  local ok, err = pcall(fn)
  pool:set_limit { size = 0 }
  if not ok then error(err, 0) end
end

describe("the device memory pool", function()
  H.gpu_it("is the same pool for every call on a device", function()
    local pool = cuarr.get_default_memory_pool()
    local before = pool:used_bytes()
    local a = cuarr.empty(1000, "float32")
    assert.are.equal(before + 4096, cuarr.get_default_memory_pool():used_bytes())
    a:free()
    assert.are.equal(before, pool:used_bytes())
  end)

  H.gpu_it("keeps exact statistics over a known sequence", function()
    local pool = cuarr.get_default_memory_pool()
    -- A fresh stream has no free chunks of its own, so every figure below is exact.
    local s = cuarr.Stream { non_blocking = true }
    local _ <close> = s:enter()
    collectgarbage()
    pool:free_all_blocks()
    local used0, total0, nfree0 = pool:used_bytes(), pool:total_bytes(), pool:n_free_blocks()
    local a = cuarr.empty(250, "float32")            -- 1000 bytes -> 1024
    assert.are.equal(used0 + 1024, pool:used_bytes())
    assert.are.equal(total0 + 1024, pool:total_bytes())
    local b = cuarr.empty(MiB // 8, "float64")       -- 1 MiB exactly
    assert.are.equal(used0 + 1024 + MiB, pool:used_bytes())
    assert.are.equal(total0 + 1024 + MiB, pool:total_bytes())
    a:free()
    assert.are.equal(used0 + MiB, pool:used_bytes())
    assert.are.equal(total0 + 1024 + MiB, pool:total_bytes())
    assert.are.equal(nfree0 + 1, pool:n_free_blocks())
    local c = cuarr.empty(128, "float32")            -- 512 bytes: splits the free 1024 chunk
    assert.are.equal(used0 + MiB + 512, pool:used_bytes())
    assert.are.equal(total0 + 1024 + MiB, pool:total_bytes())
    assert.are.equal(nfree0 + 1, pool:n_free_blocks())
    assert.are.equal(pool:total_bytes() - pool:used_bytes(), pool:free_bytes())
    b:free()
    pool:free_all_blocks()                            -- b's segment is wholly free: released
    assert.are.equal(total0 + 1024, pool:total_bytes())
    c:free()
    pool:free_all_blocks()
    assert.are.equal(total0, pool:total_bytes())
    assert.are.equal(used0, pool:used_bytes())
    s:synchronize()
  end)

  H.gpu_it("keeps a freed chunk for its own stream", function()
    local pool = cuarr.get_default_memory_pool()
    local s1, s2 = cuarr.Stream { non_blocking = true }, cuarr.Stream { non_blocking = true }
    local n = 3 * MiB // 4
    cuarr.with_stream(s1, function() cuarr.empty(n, "float32"):free() end)
    local total = pool:total_bytes()
    cuarr.with_stream(s2, function()
      local x = cuarr.empty(n, "float32")          -- not s1's chunk: a new segment
      assert.are.equal(total + 3 * MiB, pool:total_bytes())
      x:free()
    end)
    total = pool:total_bytes()
    cuarr.with_stream(s1, function()
      local y = cuarr.empty(n, "float32")          -- s1's own chunk again
      assert.are.equal(total, pool:total_bytes())
      y:free()
    end)
    s1:synchronize(); s2:synchronize()
    pool:free_all_blocks()
  end)

  H.gpu_it("raises OutOfMemoryError on the allocation that crosses a 256 MiB limit, then recovers", function()
    local pool = cuarr.get_default_memory_pool()
    collectgarbage()
    local base = pool:used_bytes()
    with_limit(pool, 256 * MiB + base, function()
      local a = cuarr.empty(100 * MiB, "uint8")
      local b = cuarr.empty(100 * MiB, "uint8")
      local err = H.raises("OutOfMemoryError", cuarr.empty, 100 * MiB, "uint8")
      assert.matches("104857600", err.message)      -- the size asked for
      assert.matches("limit", err.message)
      assert.are.equal(200 * MiB + base, pool:used_bytes())
      a:free()
      pool:free_all_blocks()
      local c = cuarr.empty(100 * MiB, "uint8")     -- fits again
      assert.are.equal(200 * MiB + base, pool:used_bytes())
      b:free(); c:free()
    end)
    assert.are.equal(0, pool:get_limit())
  end)

  H.gpu_it("takes a limit as a fraction of the device's memory", function()
    local pool = cuarr.get_default_memory_pool()
    local total = cuarr.Device(0).properties.total_memory
    pool:set_limit { fraction = 0.5 }
    local limit = pool:get_limit()
    pool:set_limit { size = 0 }
    assert.is_true(math.abs(limit - total / 2) <= 512)
  end)

  H.gpu_it("runs 200 allocations of 1 GiB dropped in a loop without running out", function()
    for _ = 1, 200 do
      local a = cuarr.empty(GiB, "uint8")
      a[1] = 1                                       -- touch it, so it is really used
    end
    cuarr.synchronize()
  end)

  H.gpu_it("steps the GC by device bytes, so dropped arrays are reused before the pool grows", function()
    local pool = cuarr.get_default_memory_pool()
    collectgarbage()
    pool:free_all_blocks()
    local total0 = pool:total_bytes()
    for _ = 1, 64 do
      local _ = cuarr.empty(256 * MiB, "uint8")     -- 16 GiB in all, never collected by hand
    end
    -- Without stepping the pool would hold all 16 GiB; it must hold far less.
    assert.is_true(pool:total_bytes() - total0 <= 4 * GiB,
      "pool grew by " .. (pool:total_bytes() - total0) .. " bytes")
    collectgarbage()
    pool:free_all_blocks()
  end)

  H.gpu_it("reads CUARR_GPU_MEMORY_LIMIT as bytes or a percentage", function()
    local function limit_with(value)
      local cmd = string.format(
        "CUARR_GPU_MEMORY_LIMIT='%s' lua5.4 -e 'print(require(\"cuarr\").get_default_memory_pool():get_limit())'",
        value)
      local p = assert(io.popen(cmd))
      local out = p:read("a")
      p:close()
      return math.tointeger(tonumber(out))
    end
    assert.are.equal(268435456, limit_with("268435456"))
    local total = cuarr.Device(0).properties.total_memory
    assert.is_true(math.abs(limit_with("50%") - total // 2) <= 512)
    assert.are.equal(0, limit_with("nonsense"))
  end)
end)

describe("deterministic release", function()
  H.gpu_it("gives memory back at the end of a <close> scope", function()
    local pool = cuarr.get_default_memory_pool()
    local before = pool:used_bytes()
    do
      local t <close> = cuarr.empty(1e8, "float32")
      assert.are.equal(before + 4e8, pool:used_bytes())
    end
    assert.are.equal(before, pool:used_bytes())
  end)

  H.gpu_it("free() releases at once, and use afterwards is an error, views included", function()
    local pool = cuarr.get_default_memory_pool()
    local before = pool:used_bytes()
    local x = cuarr.arange(1000, "float32")
    local v = x[{ { 10, 20 } }]
    x:free()
    assert.are.equal(before, pool:used_bytes())
    H.raises("ValueError", function() return x:get() end)
    H.raises("ValueError", function() return v:totable() end)
    H.raises("ValueError", function() return x.shape end)
    x:free()                                          -- idempotent
  end)

  for _, b in ipairs(H.backends) do
    b.it("a closed array raises on use", function()
      local y
      do
        local t <close> = b.xp.ones(10)
        y = t
      end
      H.raises("ValueError", function() return y:totable() end)
    end)
  end
end)

describe("the pinned memory pool", function()
  H.gpu_it("backs pinned host arrays and keeps statistics", function()
    local pool = cuarr.get_default_pinned_memory_pool()
    local before = pool:used_bytes()
    local h = cuarr.cpu.empty(1000, "float64", { pinned = true })
    assert.is_true(h.is_pinned)
    assert.are.equal("cpu", h.device)
    assert.are.equal(before + 8192, pool:used_bytes())
    local p = cuarr.pinned_array({ 10, 10 }, "float32")
    assert.is_true(p.is_pinned)
    h:free()
    p:free()
    assert.are.equal(before, pool:used_bytes())
  end)

  H.gpu_it("keeps a pinned array's memory until an asynchronous upload has read it", function()
    local s = cuarr.Stream { non_blocking = true }
    local n = 1 << 24
    local h = cuarr.cpu.full(n, 3.0, "float32", { pinned = true })
    local d = cuarr.to_device(h, s)
    h:free()                                          -- the upload may still be running
    local h2 = cuarr.cpu.full(n, 7.0, "float32", { pinned = true })  -- must not reuse h's memory yet
    s:synchronize()
    local back = d:get()
    assert.are.equal(3.0, back[1])
    assert.are.equal(3.0, back[n])
    assert.are.equal(7.0, h2[n])
  end)
end)
