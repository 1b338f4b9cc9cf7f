-- CUDA graphs (issue 15, scope 4) and cuarr.defer_cleanup (scope 6).
--
-- The host cases run in a child Lua on the stand-in driver of tools/fake_cuda, which records a
-- capture's copies and memsets as graph nodes and replays them at each launch (kernels never
-- run there): they check the capture bookkeeping, the memory the graph keeps, the calls refused
-- during a capture and defer_cleanup's scopes.  The #gpu cases check real results.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local child = require "spec.support.child"

-- ---------------------------------------------------------------- a child on the stand-in

local fake_libcuda = child.fake_libcuda

-- Helpers every child has: raises(kind, text, fn, ...) and same(array, list).
local PRELUDE = [[
local cuarr = require "cuarr"
local pool = cuarr.get_default_memory_pool()
local function raises(kind, text, fn, ...)
  local ok, e = pcall(fn, ...)
  assert(not ok, "expected a " .. kind .. ", the call succeeded")
  assert(cuarr.is_error(e, kind), "expected a " .. kind .. ", got " .. tostring(e))
  assert(e.message:find(text, 1, true), "message lacks '" .. text .. "': " .. e.message)
  return e
end
local function same(a, list)
  local got = a:totable()
  assert(#got == #list, "lengths differ")
  for i = 1, #list do
    assert(got[i] == list[i], ("element %d: %s, expected %s"):format(i, got[i], list[i]))
  end
end
]]

-- Run the case's code after the prelude on the stand-in; it must print "ok" and nothing else.
local function on_stand_in(code)
  local ok, out, err = child.run(PRELUDE .. code .. '\nprint("ok")\n',
    { CUARR_LIBCUDA = fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
  assert(ok and out == "ok\n", "child failed: " .. out .. err)
end

describe("stream capture (stand-in driver)", function()
  it("records copies and memsets as nodes that run only when the graph is launched", function()
    on_stand_in [[
      local a = cuarr.asarray({1, 2, 3, 4}, "float32")
      local b = cuarr.zeros(4, "float32")
      local c = cuarr.asarray({9, 9, 9, 9}, "float32")
      local s = cuarr.Stream{non_blocking = true}
      assert(not s:is_capturing())
      s:begin_capture()
      assert(s:is_capturing())
      cuarr.with_stream(s, function()
        b:set(a)        -- a copy node
        c:fill(0)       -- a memset node
      end)
      local g = s:end_capture()
      assert(not s:is_capturing())
      assert(g.n_nodes == 2, "nodes: " .. g.n_nodes)
      assert(tostring(g):find("2 nodes", 1, true), tostring(g))
      same(b, {0, 0, 0, 0})        -- nothing ran at capture time
      same(c, {9, 9, 9, 9})
      g:launch()
      same(b, {1, 2, 3, 4})
      same(c, {0, 0, 0, 0})
      a:set({5, 6, 7, 8})          -- each replay reads the arrays as they are then
      c:set({1, 1, 1, 1})
      g:launch(s)
      same(b, {5, 6, 7, 8})
      same(c, {0, 0, 0, 0})
      g:free()
      assert(g.freed and tostring(g):find("freed", 1, true))
      g:free()                     -- twice is fine
    ]]
  end)

  it("cuarr.graph returns the graph and fn's results, static outputs each replay rewrites", function()
    on_stand_in [[
      local a = cuarr.asarray({1, 2, 3}, "float64")
      local previous = cuarr.get_current_stream()
      local seen
      local g, out, n, text = cuarr.graph(function(x, k)
        seen = cuarr.get_current_stream()
        return x:copy(), k, "text"
      end, a, 42)
      assert(seen ~= previous and seen.non_blocking, "fn ran on a private non-blocking stream")
      assert(cuarr.get_current_stream() == previous, "the current stream is restored")
      assert(n == 42 and text == "text")
      assert(g.n_nodes == 1, "nodes: " .. g.n_nodes)
      g:launch()
      same(out, {1, 2, 3})
      a:set({4, 5, 6})
      same(out, {1, 2, 3})
      g:launch()
      same(out, {4, 5, 6})
      collectgarbage(); collectgarbage()
      a:set({7, 8, 9})
      g:launch()
      same(out, {7, 8, 9})
      g:free()
    ]]
  end)

  it("cuarr.graph ends the capture when fn raises and raises fn's error again", function()
    on_stand_in [[
      local previous = cuarr.get_current_stream()
      local a = cuarr.asarray({1, 1, 1})    -- from the host: the stand-in runs no kernels
      local ok, e = pcall(cuarr.graph, function() local t = a:copy(); error({tag = "mine"}) end)
      assert(not ok and type(e) == "table" and e.tag == "mine", "fn's own error object")
      assert(cuarr.get_current_stream() == previous)
      cuarr.synchronize()          -- no capture left open on this thread
      same(a, {1, 1, 1})
      assert(pool:held_bytes() == 0, "the failed graph's memory went back")
      local e2 = raises("ValueError", "cannot run during graph capture",
                        cuarr.graph, function() a:totable() end)
      cuarr.synchronize()
    ]]
  end)

  it("keeps memory released during a capture out of eager hands until the graph is freed", function()
    on_stand_in [[
      local a = cuarr.arange(1024, "float64")  -- 8 KiB blocks
      local s = cuarr.Stream{non_blocking = true}
      local used0, held0 = pool:used_bytes(), pool:held_bytes()
      assert(held0 == 0)
      s:begin_capture()
      local freed_at
      cuarr.with_stream(s, function()
        local t = a:copy()          -- a temporary of the graph
        freed_at = t.data
        t:free()
      end)
      local g = s:end_capture()
      assert(pool:held_bytes() == 8192, "held: " .. pool:held_bytes())
      assert(pool:used_bytes() == used0 + 8192, "held blocks count as used")
      -- eager work on the same stream does not get the graph's temporary
      local u = cuarr.with_stream(s, function() return cuarr.empty(1024, "float64") end)
      assert(u.data ~= freed_at, "a block held by the graph was handed out again")
      u:free()
      g:launch(s)
      g:free()
      assert(pool:held_bytes() == 0)
      assert(pool:used_bytes() == used0, "used after the free: " .. pool:used_bytes())
      -- once freed, the block is the stream's to reuse again
      local v = cuarr.with_stream(s, function() return cuarr.empty(1024, "float64") end)
      assert(v.data == freed_at or v.data == u.data, "the released block is reused")
    ]]
  end)

  it("owns the arrays allocated during capture: freeing one later is held, not reused", function()
    on_stand_in [[
      local values = {}
      for i = 1, 512 do values[i] = i - 1 end
      local a = cuarr.asarray(values, "float64")   -- 4 KiB, from the host (kernels never run)
      local s = cuarr.Stream{non_blocking = true}
      local used0 = pool:used_bytes()
      s:begin_capture()
      local out = cuarr.with_stream(s, function() return a:copy() end)
      local g = s:end_capture()
      local at = out.data
      out:free()                                -- explicit free while the graph lives
      assert(pool:held_bytes() == 4096, "held: " .. pool:held_bytes())
      local u = cuarr.with_stream(s, function() return cuarr.empty(512, "float64") end)
      assert(u.data ~= at, "the graph's output was handed out again")
      u:free()
      g:free()
      assert(pool:held_bytes() == 0 and pool:used_bytes() == used0)
      -- an array of the graph that outlives it becomes an ordinary one
      local g2, kept = cuarr.graph(function() return a:copy() end)
      g2:launch()
      g2:free()
      same(kept[{ {1, 2} }], {0, 1})
      kept:free()
      assert(pool:held_bytes() == 0 and pool:used_bytes() == used0)
    ]]
  end)

  it("holds what Lua's collector releases during a capture", function()
    on_stand_in [[
      local a = cuarr.arange(256, "float64")    -- 2 KiB
      local before = pool:held_bytes()
      local g = cuarr.graph(function()
        for _ = 1, 3 do local t = a:copy() end  -- three temporaries, dropped
        collectgarbage(); collectgarbage()
      end)
      assert(pool:held_bytes() - before == 3 * 2048, "held: " .. pool:held_bytes())
      assert(g.n_nodes == 3)
      g:free()
      assert(pool:held_bytes() == before)
    ]]
  end)

  it("refuses synchronising calls during a capture before the driver sees them", function()
    on_stand_in [[
      local a = cuarr.asarray({1, 2, 3}, "float32")
      local b = cuarr.zeros(3, "float32")
      local e = cuarr.Event()
      local s = cuarr.Stream{non_blocking = true}
      s:begin_capture()
      local text = "cannot run during graph capture"
      cuarr.with_stream(s, function()
        b:set(a)
        raises("ValueError", text, s.synchronize, s)
        raises("ValueError", text, cuarr.synchronize)
        raises("ValueError", text, function() cuarr.Device(0):synchronize() end)
        raises("ValueError", text, e.synchronize, e)
        raises("ValueError", text, a.get, a)
        raises("ValueError", text, a.totable, a)
        raises("ValueError", text, tostring, a)
        raises("ValueError", text, function() return a[1] end)
        raises("ValueError", text, cuarr.asarray, {1, 2, 3})
        raises("ValueError", text, b.set, b, {7, 8, 9})
        raises("ValueError", text, cuarr.asnumpy, a)
      end)
      local g = s:end_capture()     -- not invalidated: the driver never saw those calls
      assert(g.n_nodes == 1, "nodes: " .. g.n_nodes)
      g:launch()
      same(b, {1, 2, 3})
      s:synchronize()
      same(a, {1, 2, 3})
      g:free()
    ]]
  end)

  it("reports a capture the driver invalidated, and leaves the stream usable", function()
    on_stand_in [[
      local a = cuarr.asarray({1, 2}, "float32")
      local b = cuarr.zeros(2, "float32")
      local s = cuarr.Stream{non_blocking = true}
      local used0 = pool:used_bytes()
      s:begin_capture()
      cuarr.with_stream(s, function() local t = a:copy(); t:free() end)
      raises("CUDAError", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", s.query, s)
      raises("CUDAError", "capture was invalidated", s.end_capture, s)
      assert(not s:is_capturing())
      assert(pool:held_bytes() == 0 and pool:used_bytes() == used0)
      s:synchronize()
      s:begin_capture()              -- capturing again works
      cuarr.with_stream(s, function() b:set(a) end)
      local g = s:end_capture()
      g:launch()
      same(b, {1, 2})
      g:free()
    ]]
  end)

  it("closes a graph with <close> and frees it on collection", function()
    on_stand_in [[
      local a = cuarr.arange(64, "float64")
      local held
      do
        local g <close> = cuarr.graph(function() local t = a:copy(); t:free() end)
        held = pool:held_bytes()
        assert(held == 512, "held: " .. held)
        g:launch()
      end
      assert(pool:held_bytes() == 0)
      local g = cuarr.graph(function() local t = a:copy(); t:free() end)
      assert(pool:held_bytes() == 512)
      g = nil
      collectgarbage(); collectgarbage()
      assert(pool:held_bytes() == 0)
    ]]
  end)
end)

describe("defer_cleanup (stand-in driver)", function()
  it("holds releases until the outermost scope ends, then releases them", function()
    on_stand_in [[
      local a = cuarr.arange(128, "float64")      -- 1 KiB
      local used0, free0 = pool:used_bytes(), pool:n_free_blocks()
      local at
      do
        local outer <close> = cuarr.defer_cleanup()
        do
          local inner <close> = cuarr.defer_cleanup()
          local t = a:copy(); at = t.data; t:free()
          assert(pool:held_bytes() == 1024)
        end
        assert(pool:held_bytes() == 1024, "the inner scope's end releases nothing")
        local u = cuarr.empty(128, "float64")
        assert(u.data ~= at, "a held block was handed out")
        u:free()
        assert(pool:held_bytes() == 2048)
        assert(tostring(outer):find("open", 1, true))
      end
      assert(pool:held_bytes() == 0)
      assert(pool:used_bytes() == used0, "used: " .. pool:used_bytes())
      assert(pool:n_free_blocks() >= free0)
      local v = cuarr.empty(128, "float64")
      assert(v.data == at or pool:n_free_blocks() > 0, "released blocks are free again")
    ]]
  end)

  it("releases on error, and the function form returns fn's results", function()
    on_stand_in [[
      local a = cuarr.arange(128, "float64")
      local ok, e = pcall(function()
        local _ <close> = cuarr.defer_cleanup()
        local t = a:copy(); t:free()
        assert(pool:held_bytes() == 1024)
        error("boom")
      end)
      assert(not ok and tostring(e):find("boom", 1, true))
      assert(pool:held_bytes() == 0)
      local x, y = cuarr.defer_cleanup(function(p, q)
        local t = a:copy(); t:free()
        assert(pool:held_bytes() == 1024)
        return p + q, "y"
      end, 1, 2)
      assert(x == 3 and y == "y" and pool:held_bytes() == 0)
      local ok2, e2 = pcall(cuarr.defer_cleanup, function()
        local t = a:copy(); t:free()
        error({tag = "fn's"})
      end)
      assert(not ok2 and e2.tag == "fn's" and pool:held_bytes() == 0)
      local g = cuarr.defer_cleanup()
      g:close(); g:close()           -- closing twice is fine
      assert(pool:held_bytes() == 0)
    ]]
  end)

  it("a graph freed inside a defer_cleanup scope hands its blocks to that scope", function()
    on_stand_in [[
      local a = cuarr.arange(64, "float64")
      local g = cuarr.graph(function() local t = a:copy(); t:free() end)
      do
        local _ <close> = cuarr.defer_cleanup()
        g:free()
        assert(pool:held_bytes() == 512, "held by the scope now: " .. pool:held_bytes())
      end
      assert(pool:held_bytes() == 0)
    ]]
  end)
end)

-- ---------------------------------------------------------------- on a device

describe("graphs on a device", function()
  -- 100 in-place ops over three arrays, mixing ufuncs; bounded so 1000 rounds stay finite.
  -- Each case runs its work once eagerly before capturing it, so that no kernel is compiled or
  -- loaded during a capture.
  local function hundred_ops(x, y, z)
    for _ = 1, 25 do
      x:multiply(0.5, x)
      cuarr.add(x, y, x)
      cuarr.sin(z, y)
      cuarr.maximum(z, x, z)
    end
  end

  H.gpu_it("a graph of 100 ops replayed 1000 times matches the same ops run eagerly", function()
    local n = 1000
    local function start()
      return cuarr.linspace(0, 1, n), cuarr.linspace(-1, 1, n), cuarr.linspace(2, 3, n)
    end
    local x1, y1, z1 = start()
    for _ = 1, 1000 do hundred_ops(x1, y1, z1) end
    local x2, y2, z2 = start()
    local g = cuarr.graph(hundred_ops, x2, y2, z2)
    assert.are.equal(100, g.n_nodes)
    for _ = 1, 1000 do g:launch() end
    cuarr.synchronize()
    for _, pair in ipairs { { x1, x2 }, { y1, y2 }, { z1, z2 } } do
      local e, r = pair[1]:totable(), pair[2]:totable()
      for i = 1, n do assert.are.equal(e[i], r[i]) end
    end
    g:free()
  end)

  H.gpu_it("cuarr.graph with temporaries inside gives static outputs each replay refreshes", function()
    local a = cuarr.arange(1000, "float32")
    local b = cuarr.ones(1000, "float32")
    local function step() return (a + b) * 2 - a end
    step()
    local g, out = cuarr.graph(step)
    for round = 1, 3 do
      a:set(cuarr.arange(1000, "float32") * round)
      g:launch()
      local r = out:totable()
      for i = 1, 1000 do assert.are.equal((i - 1) * round + 2, r[i]) end
    end
    g:free()
  end)

  H.gpu_it("a graph launched on another stream, ordered after eager work by an event", function()
    local n = 1 << 20
    local a = cuarr.zeros(n, "float64")
    a:add(1, a)
    cuarr.synchronize()      -- the fill below, on a non-blocking stream, must come after this
    local g = cuarr.graph(function() a:add(1, a) end)
    local s1, s2 = cuarr.Stream{ non_blocking = true }, cuarr.Stream{ non_blocking = true }
    cuarr.with_stream(s1, function() a:fill(41) end)
    local e = s1:record()
    s2:wait_event(e)
    g:launch(s2)
    s2:synchronize()
    assert.are.equal(42 * n, a:sum():item())
    g:free()
  end)

  H.gpu_it("ElementwiseKernel and ReductionKernel calls inside a graph", function()
    local axpy = cuarr.ElementwiseKernel("T x, T y, T a", "T z", "z = a * x + y", "graph_axpy")
    local sumsq = cuarr.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0",
      "graph_sumsq")
    local x = cuarr.arange(100, "float64")
    local y = cuarr.ones(100, "float64")
    local function step()
      local z = axpy(x, y, 2.0)
      return z, sumsq(z)
    end
    step()
    local g, z, s = cuarr.graph(step)
    g:launch()
    local expected = 0
    for i = 0, 99 do expected = expected + (2 * i + 1) ^ 2 end
    assert.are.equal(expected, s:item())
    assert.are.equal(199, z:totable()[100])
    y:fill(2)
    g:launch()
    assert.are.equal(200, z:totable()[100])
    g:free()
  end)

  H.gpu_it("arrays allocated during capture stay valid after a full collection", function()
    local a = cuarr.arange(4096, "float32")
    local function step()
      local t = a * 3
      local u = t + 1
      return u - a
    end
    step()
    local g, out = cuarr.graph(step)
    collectgarbage(); collectgarbage()
    local pool = cuarr.get_default_memory_pool()
    assert.is_true(pool:held_bytes() > 0)
    local noise = {}
    for i = 1, 20 do noise[i] = cuarr.full(4096, -1, "float32") end
    g:launch()
    local r = out:totable()
    for i = 1, 4096 do assert.are.equal(2 * (i - 1) + 1, r[i]) end
    g:free()
  end)
end)
