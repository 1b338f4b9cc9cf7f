-- Misuse of the graph and defer_cleanup APIs (issue 15): each case raises the documented kind,
-- and no array changes.  The cases that need a device run in a child Lua on the stand-in driver
-- of tools/fake_cuda; the rest need nothing.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local child = require "spec.support.child"

local fake_libcuda = child.fake_libcuda

-- In every child: raises(kind, text, fn, ...), and two arrays whose values must never change
-- (checked by unchanged() after each case).
local PRELUDE = [[
local cuarr = require "cuarr"
local function raises(kind, text, fn, ...)
  local ok, e = pcall(fn, ...)
  assert(not ok, "expected a " .. kind .. ", the call succeeded")
  assert(cuarr.is_error(e, kind), "expected a " .. kind .. ", got " .. tostring(e))
  assert(e.message:find(text, 1, true), "message lacks '" .. text .. "': " .. e.message)
end
local a = cuarr.asarray({1, 2, 3, 4}, "float32")
local b = cuarr.asarray({5, 6, 7, 8}, "float32")
local function unchanged()
  local x, y = a:totable(), b:totable()
  for i = 1, 4 do
    assert(x[i] == i and y[i] == i + 4, "an array changed")
  end
end
]]

local function on_stand_in(code)
  local ok, out, err = child.run(PRELUDE .. code .. '\nunchanged()\nprint("ok")\n',
    { CUARR_LIBCUDA = fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
  assert(ok and out == "ok\n", "child failed: " .. out .. err)
end

describe("graph misuse (stand-in driver)", function()
  it("begin_capture on the null stream is a ValueError", function()
    on_stand_in [[
      raises("ValueError", "null stream cannot be captured",
             function() cuarr.null_stream():begin_capture() end)
      raises("ValueError", "null stream cannot be captured",
             function() cuarr.get_current_stream():begin_capture() end)
    ]]
  end)

  it("begin_capture twice on one stream is a ValueError, the first capture going on", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      s:begin_capture()
      raises("ValueError", "already capturing", s.begin_capture, s)
      cuarr.with_stream(s, function() b:set(a) end)
      local g = s:end_capture()
      assert(g.n_nodes == 1)
      g:free()
      b:set({5, 6, 7, 8})
    ]]
  end)

  it("end_capture without begin_capture, or twice, is a ValueError", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      raises("ValueError", "no graph capture is open", s.end_capture, s)
      s:begin_capture()
      s:end_capture():free()
      raises("ValueError", "no graph capture is open", s.end_capture, s)
    ]]
  end)

  it("an unknown capture mode, or one that is not a string, is refused", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      raises("ValueError", "unknown capture mode 'sloppy'", s.begin_capture, s, "sloppy")
      raises("TypeError", "capture mode", s.begin_capture, s, 3)
      assert(not s:is_capturing())
      s:begin_capture("relaxed")
      s:end_capture():free()
    ]]
  end)

  it("capturing on a destroyed stream is a ValueError", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      getmetatable(s).__gc(s)
      raises("ValueError", "destroyed", s.begin_capture, s)
      raises("ValueError", "destroyed", s.end_capture, s)
    ]]
  end)

  it("launching a freed graph is a ValueError, and tostring says it is freed", function()
    on_stand_in [[
      local g = cuarr.graph(function() b:set(a) end)
      g:free()
      raises("ValueError", "the graph has been freed", g.launch, g)
      assert(tostring(g):find("freed", 1, true))
      assert(g.n_nodes == 0 and g.freed)
      b:set({5, 6, 7, 8})
    ]]
  end)

  it("launch on something that is not a Stream is a TypeError, and launches nothing", function()
    on_stand_in [[
      local g = cuarr.graph(function() b:set(a) end)
      raises("TypeError", "Stream", g.launch, g, "stream")
      raises("TypeError", "Stream", g.launch, g, cuarr.Event())
      g:free()
    ]]
  end)

  it("graph methods on something that is not a Graph are TypeErrors", function()
    on_stand_in [[
      local g = cuarr.graph(function() end)
      raises("TypeError", "Graph", g.launch, a)
      raises("TypeError", "Graph", g.free, {})
      raises("TypeError", "Graph", g.launch, cuarr.Stream())
      g:free()
    ]]
  end)

  it("cuarr.graph with no function is a TypeError, and begins no capture", function()
    on_stand_in [[
      raises("TypeError", "must be a function", cuarr.graph, nil)
      raises("TypeError", "must be a function", cuarr.graph, a)
      raises("TypeError", "must be a function", cuarr.graph, "b:set(a)")
      cuarr.synchronize()   -- nothing left capturing on this thread
    ]]
  end)

  it("a synchronisation inside cuarr.graph raises its ValueError out of cuarr.graph", function()
    on_stand_in [[
      raises("ValueError", "cannot run during graph capture", cuarr.graph, function()
        b:set(a)
        cuarr.synchronize()
      end)
      raises("ValueError", "cannot run during graph capture", cuarr.graph, function()
        return a[{2}]
      end)
      cuarr.synchronize()
      assert(cuarr.get_default_memory_pool():held_bytes() == 0)
    ]]
  end)

  it("a host-to-device copy from pageable memory during a capture is a ValueError", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      s:begin_capture()
      cuarr.with_stream(s, function()
        raises("ValueError", "pageable host memory", a.set, a, {0, 0, 0, 0})
        raises("ValueError", "pageable host memory", a.set, a, cuarr.cpu.zeros(4, "float32"))
        raises("ValueError", "cannot run during graph capture", cuarr.asarray, {0, 0})
      end)
      local g = s:end_capture()
      assert(g.n_nodes == 0, "nodes: " .. g.n_nodes)
      g:free()
    ]]
  end)

  it("stream and event synchronisation during a capture are ValueErrors, the capture going on", function()
    on_stand_in [[
      local s = cuarr.Stream{non_blocking = true}
      s:begin_capture()
      raises("ValueError", "cannot run during graph capture", s.synchronize, s)
      raises("ValueError", "cannot run during graph capture", cuarr.Event().synchronize,
             cuarr.Event())
      s:end_capture():free()
      s:synchronize()
    ]]
  end)

  it("defer_cleanup with a non-function is a TypeError, and opens no scope", function()
    on_stand_in [[
      local pool = cuarr.get_default_memory_pool()
      raises("TypeError", "must be a function", cuarr.defer_cleanup, 42)
      raises("TypeError", "must be a function", cuarr.defer_cleanup, a)
      local t = cuarr.empty(8); t:free()
      assert(pool:held_bytes() == 0, "no scope was left open")
    ]]
  end)

  it("closing something that is not a defer_cleanup guard is a TypeError", function()
    on_stand_in [[
      local guard = cuarr.defer_cleanup()
      raises("TypeError", "DeferCleanup", guard.close, a)
      raises("TypeError", "DeferCleanup", guard.close, {})
      guard:close()
    ]]
  end)
end)

describe("graph misuse without a device", function()
  it("cuarr.graph's argument is checked before any device is touched", function()
    H.raises("TypeError", cuarr.graph, 42)
    H.raises("TypeError", cuarr.graph, nil)
  end)

  it("defer_cleanup's argument is checked before any device is touched", function()
    H.raises("TypeError", cuarr.defer_cleanup, "fn")
    H.raises("TypeError", cuarr.defer_cleanup, true)
  end)
end)
