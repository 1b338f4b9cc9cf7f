-- Recognising arrays: every function that takes an array tells an array userdata from any
-- other value, however recently it saw the array, across collections, finalizers that revive
-- collected arrays, and a second load of the module.  (The binding remembers the last few
-- arrays it recognised by address; these are the cases where a stale memory would show.)
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

for _, b in ipairs(H.backends) do
  local xp = b.xp

  describe("recognising arrays [" .. b.name .. "]", function()
    b.it("takes no other userdata for an array, right after arrays were used", function()
      local a, c = xp.arange(5, "float32"), xp.zeros(5, "float32")
      for _ = 1, 3 do xp.add(a, a, c) end -- a and c are now among the remembered arrays
      for _, other in ipairs { io.stdout, io.stderr, newproxy and newproxy() or io.stdin } do
        H.raises("TypeError", xp.add, other, a)
        H.raises("TypeError", xp.add, a, other)
        H.raises("TypeError", xp.add, a, a, other)
      end
      assert.are.same({ 0, 2, 4, 6, 8 }, c:totable())
    end)

    b.it("stays right while arrays are made, used and collected in turn", function()
      local keep = xp.full(3, 2, "int32")
      local total = 0
      for i = 1, 300 do
        local t = xp.full(3, i, "int32")
        local r = xp.add(t, keep)
        total = total + r[1]
        if i % 50 == 0 then collectgarbage() end
      end
      assert.are.equal(300 * 301 // 2 + 2 * 300, total)
      H.raises("TypeError", xp.add, io.stdout, keep)
    end)

    b.it("finds a collected array that a finalizer revives closed", function()
      local seen
      do
        -- Lua calls finalizers in the reverse order of their marking: the holder's, marked
        -- before the array's, runs after the array's own and revives it.
        local holder = setmetatable({}, { __gc = function(h) seen = h.a end })
        local a = xp.arange(4, "float64")
        holder.a = a
        xp.multiply(a, 2) -- remembered
      end
      collectgarbage()
      collectgarbage()
      assert.are.equal(cuarr.ndarray, getmetatable(seen))
      local err = H.raises("ValueError", xp.add, seen, 1)
      assert.matches("closed", tostring(err))
      err = H.raises("ValueError", xp.add, seen, 1) -- and again: not remembered as live
      assert.matches("closed", tostring(err))
      seen = nil
      collectgarbage()
    end)

    b.it("runs __gc twice without harm and rejects what is not an array", function()
      local a = xp.arange(3, "int64")
      xp.add(a, a) -- remembered
      local gc = getmetatable(a).__gc
      gc(a)
      local err = H.raises("ValueError", xp.add, a, a)
      assert.matches("closed", tostring(err))
      gc(a)
      H.raises("TypeError", gc, io.stdout)
      H.raises("TypeError", gc, {})
    end)

    b.it("recognises arrays of either load after the module is loaded again", function()
      local first = xp.arange(4, "int32")
      xp.add(first, 1) -- remembered by the first load
      local saved = {}
      for k, v in pairs(package.loaded) do
        if k == "cuarr" or k:match("^cuarr%.") then saved[k] = v; package.loaded[k] = nil end
      end
      local ok, err = pcall(function()
        local again = require "cuarr"
        local xp2 = b.name == "cpu" and again.cpu or again
        local second = xp2.arange(4, "int32")
        assert.are.same({ 0, 2, 4, 6 }, xp2.add(first, second):totable())
        assert.are.same({ 0, 2, 4, 6 }, xp.add(second, first):totable())
        for _ = 1, 3 do
          collectgarbage()
          local t = xp2.ones(4, "int32")
          assert.are.same({ 2, 2, 2, 2 }, xp.add(t, t):totable())
        end
        H.raises("TypeError", xp2.add, io.stdout, second)
      end)
      for k in pairs(package.loaded) do
        if k == "cuarr" or k:match("^cuarr%.") then package.loaded[k] = nil end
      end
      for k, v in pairs(saved) do package.loaded[k] = v end
      assert(ok, err)
    end)
  end)
end
