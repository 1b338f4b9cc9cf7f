-- Devices, streams and events.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

describe("without a GPU", function()
  if H.run_gpu then return end
  it("loads, reports no device and keeps host arrays working", function()
    assert.is_false(cuarr.is_available())
    assert.are.equal(0, cuarr.runtime.device_count)
    assert.are.equal(-1, cuarr.runtime.driver_version)
    assert.is_true(#cuarr.runtime.driver_missing > 0)
    assert.are.same({ 0, 1, 2 }, cuarr.cpu.arange(3):totable())
  end)
  it("raises NotAvailable, naming what is missing, for device work", function()
    for _, fn in ipairs {
      function() return cuarr.empty(3) end,
      function() return cuarr.Device(0) end,
      function() return cuarr.Stream() end,
      function() return cuarr.Event() end,
      function() return cuarr.get_default_memory_pool() end,
      function() return cuarr.cpu.empty(3, "float32", { pinned = true }) end,
      function() return cuarr.to_device(cuarr.cpu.ones(3)) end,
    } do
      local err = H.raises("NotAvailable", fn)
      assert.matches("CUDA", err.message)
    end
  end)
end)

describe("devices", function()
  H.gpu_it("report the runtime's versions", function()
    local rt = cuarr.runtime
    assert.is_true(rt.driver_version >= 12000)
    assert.is_true(rt.nvrtc_version >= 12000)
    assert.is_true(rt.cublas_version > 0)
    assert.is_true(rt.device_count >= 1)
    assert.are.equal("", rt.driver_missing)
  end)

  H.gpu_it("have properties", function()
    local p = cuarr.Device(0).properties
    assert.is_string(p.name)
    assert.is_true(#p.name > 0)
    assert.is_true(p.major >= 7)
    assert.are.equal(p.major .. p.minor, p.compute_capability)
    assert.is_true(p.total_memory > 1 << 30)
    assert.is_true(p.multiprocessors > 0)
    assert.are.equal(32, p.warp_size)
    assert.are.equal("<CUDA Device 0>", tostring(cuarr.Device(0)))
    assert.are.equal(0, cuarr.Device(0).id)
  end)

  H.gpu_it("are what arrays remember", function()
    local a = cuarr.zeros(3)
    assert.are.equal(cuarr.Device(0), a.device)
    assert.are.equal(cuarr.Device(), a.device)
    assert.are.equal(0, cuarr.get_device_id())
  end)

  H.gpu_it("can be entered and used, and restore the previous one", function()
    local d = cuarr.Device(0)
    do
      local _ <close> = d:enter()
      assert.are.equal(0, cuarr.get_device_id())
    end
    assert.are.same({ 1, 2 }, { cuarr.with_device(0, function(x, y) return x, y end, 1, 2) })
    d:use()
    cuarr.synchronize()
    d:synchronize()
    local free, total = d:mem_info()
    assert.is_true(free > 0 and free <= total)
  end)

  H.multigpu_it("keep arrays to their device and copy across with asarray", function()
    local a = cuarr.arange(10, "float32")
    local b = cuarr.with_device(1, function()
      local err = H.raises("ValueError", function() a[1] = 5 end)
      assert.matches("device 0", err.message)
      assert.matches("device is 1", err.message)
      local c = cuarr.asarray(a)                     -- peer copy onto device 1
      assert.are.equal(cuarr.Device(1), c.device)
      local strided = cuarr.asarray(a[{ { 1, -1, 3 } }])
      assert.are.same({ 0, 3, 6, 9 }, strided:totable())
      return c
    end)
    assert.are.same(a:totable(), b:totable())
    assert.are.equal(cuarr.Device(0), a.device)
  end)

  H.multigpu_it("refuse a stream of another device", function()
    local s1 = cuarr.with_device(1, function() return cuarr.Stream() end)
    local a = cuarr.zeros(4)
    local err = H.raises("ValueError", function() return a:get(s1) end)
    assert.matches("device 1", err.message)
    assert.are.same({ 0, 0, 0, 0 }, a:totable())
  end)
end)

describe("streams", function()
  H.gpu_it("are created with options and report them", function()
    local s = cuarr.Stream { non_blocking = true }
    assert.is_true(s.non_blocking)
    assert.is_false(s.is_null)
    assert.are.equal(cuarr.Device(0), s.device)
    local t = cuarr.Stream()
    assert.is_false(t.non_blocking)
    assert.is_true(cuarr.null_stream().is_null)
  end)

  H.gpu_it("default to the null stream and can be entered", function()
    assert.is_true(cuarr.get_current_stream().is_null)
    local s = cuarr.Stream { non_blocking = true }
    do
      local _ <close> = s:enter()
      assert.are.equal(s.ptr, cuarr.get_current_stream().ptr)
      local a = cuarr.arange(1000003, "float32")    -- queued on s
      s:synchronize()
      assert.are.equal(1000002.0, a[1000003])
    end
    assert.is_true(cuarr.get_current_stream().is_null)
    local r = cuarr.with_stream(s, function() return cuarr.get_current_stream().ptr end)
    assert.are.equal(s.ptr, r)
    assert.is_true(cuarr.get_current_stream().is_null)
  end)

  H.gpu_it("restore the previous stream even when the body raises", function()
    local s = cuarr.Stream()
    assert.has_error(function() cuarr.with_stream(s, function() error("boom") end) end)
    assert.is_true(cuarr.get_current_stream().is_null)
  end)

  H.gpu_it("order work across streams with events", function()
    local s1, s2 = cuarr.Stream { non_blocking = true }, cuarr.Stream { non_blocking = true }
    local n = 1 << 24
    local src = cuarr.cpu.full(n, 2.5, "float32", { pinned = true })
    local d = cuarr.with_stream(s1, function() return cuarr.to_device(src, s1) end)
    local e = s1:record()
    s2:wait_event(e)
    local h = cuarr.cpu.empty(n, "float32", { pinned = true })
    d:copy_to_host(h, s2)                            -- ordered after the upload by the event
    s2:synchronize()
    assert.are.equal(2.5, h[1])
    assert.are.equal(2.5, h[n])
    assert.is_true(s1:query())
  end)

  H.gpu_it("time work with events", function()
    local e0, e1 = cuarr.Event(), cuarr.Event()
    e0:record()
    local a = cuarr.zeros(1 << 26, "float32")
    a:fill(1)
    e1:record()
    e1:synchronize()
    assert.is_true(e1:query())
    assert.is_true(e1.done)
    local ms = cuarr.get_elapsed_time(e0, e1)
    assert.is_true(ms > 0 and ms < 10000)
    local untimed = cuarr.Event { timing = false }
    untimed:record()
    untimed:synchronize()
    H.raises("ValueError", cuarr.get_elapsed_time, e0, untimed)
  end)
end)
