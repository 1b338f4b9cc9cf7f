-- Moving data: get, set, totable, item on both placements; to_device, copy_to_host,
-- device_array, device_array_like and pinned_array on the device, each with and without a
-- stream (cuarr.Stream{non_blocking = true}, then s:synchronize()).  Any layout transfers:
-- strided views go both ways.  Large transfers cover the staged path (over 1 MiB) and several
-- staging chunks (over 8 MiB), with sizes that are not multiples of the block size.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local check_equal, check_list, build = A.check_equal, A.check_list, A.build

-- Distinct small values of dtype dt for position (i, j, ...): exact in every dtype.
local function values(dt, shape, salt)
  salt = salt or 0
  return build(shape, function(...)
    local v = salt
    for _, i in ipairs({ ... }) do v = 7 * v + i end
    v = v % 97
    if dt == "bool" then return v % 3 == 0 end
    if dt:sub(1, 5) == "float" then return v + 0.5 end
    return v
  end)
end

describe("transfers", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    describe("get, totable, item, set", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("round-trip " .. dt .. " arrays", function()
          local src = values(dt, { 3, 4 })
          local a = xp.array(src, dt)
          local h = a:get()
          assert.are.equal("cpu", h.device)
          assert.are.equal(dt, h.dtype)
          check_equal(h.shape, { 3, 4 })
          assert.is_true(h.flags.c_contiguous)
          check_equal(h:totable(), src)
          check_equal(a:totable(), src)
          if b.name == "cpu" then
            assert.are.equal(a, h) -- a host array gets itself
          else
            assert.are_not.equal(a, h)
            assert.are.equal(a, cuarr.asarray(a))
          end
          -- set from a host array and from a table
          local src2 = values(dt, { 3, 4 }, 5)
          assert.are.equal(a, a:set(cuarr.cpu.array(src2, dt)))
          check_equal(a:totable(), src2)
          a:set(src)
          check_equal(a:totable(), src)
          -- set converts the dtype of its source
          local ints = build({ 3, 4 }, function(i, j) return (i * 4 + j) % 2 end)
          a:set(cuarr.cpu.array(ints, "int64"))
          check_equal(a:totable(), build({ 3, 4 }, function(i, j)
            local v = ints[i][j]
            if dt == "bool" then return v ~= 0 end
            if dt:sub(1, 5) == "float" then return v + 0.0 end
            return v
          end))
        end)
      end

      b.it("item reads arrays of one element, of any number of axes", function()
        check_equal(xp.array(3.25):item(), 3.25)
        check_equal(xp.array({ { -7 } }, "int8"):item(), -7)
        check_equal(xp.array({ { { true } } }):item(), true)
        check_equal(xp.arange(10)[{ { 4 } }]:item(), 3)
        check_equal(xp.array({ -1 }, "uint64"):item(), -1) -- 2^64 - 1, as its bits
        check_equal(xp.array({ 2 ^ 62 | 0 }, "uint64"):item(), 2 ^ 62 | 0)
        check_equal(xp.array({ 0.1 }, "float16"):item(), 0.0999755859375)
        H.raises("ValueError", function() return xp.zeros(2):item() end)
        H.raises("ValueError", function() return xp.zeros({ 0 }):item() end)
      end)

      b.it("totable of 0-d and empty arrays", function()
        check_equal(xp.array(5, "int16"):totable(), 5)
        check_equal(xp.zeros({ 0 }):totable(), {})
        check_equal(xp.zeros({ 2, 0, 3 }):totable(), { {}, {} })
        check_equal(xp.zeros({ 0, 2 }):get().shape, { 0, 2 })
        local e = xp.zeros({ 2, 0 })
        e:set(cuarr.cpu.zeros({ 2, 0 }))
        check_equal(e.shape, { 2, 0 })
      end)

      b.it("strided views get and set correctly", function()
        local src = values("int32", { 4, 6 })
        local a = xp.array(src, "int32")
        local v = a[{ {}, { 1, -1, 2 } }]
        check_equal(v:get():totable(), build({ 4, 3 }, function(i, j) return src[i][2 * j - 1] end))
        local r = a[{ { -1, 1, -2 }, { 6, 1, -1 } }] -- rows 4 and 2, columns reversed
        local want = build({ 2, 6 }, function(i, j) return src[6 - 2 * i][7 - j] end)
        check_equal(r:get():totable(), want)
        check_equal(r:totable(), want)
        check_equal(r.T:get():totable(), build({ 6, 2 }, function(i, j) return want[j][i] end))
        -- set through views: only the view's elements change
        local new = build({ 2, 6 }, function(i, j) return -(10 * i + j) end)
        r:set(cuarr.cpu.array(new, "int32"))
        local after = build({ 4, 6 }, function(i, j)
          if i == 4 or i == 2 then return new[(6 - i) // 2][7 - j] end
          return src[i][j]
        end)
        check_equal(a:totable(), after)
        -- a strided host source into a strided view
        local hs = cuarr.cpu.array(build({ 3, 4 }, function(i, j) return 100 * i + j end), "int32")
        local hv = hs[{ { 3, 1, -1 }, { 1, -1, 3 } }].T -- 2x3, transposed and reversed
        local col = a[{ { 1, 2 }, { 1, -1, 2 } }]
        col:set(hv)
        check_equal(col:totable(), { { 301, 201, 101 }, { 304, 204, 104 } })
        check_equal(a[{ 3, 1 }], after[3][1])
        check_equal(a[{ 2, 2 }], after[2][2])
        -- a 0-d view
        local z = a[{ 4, { 6 } }] -- a one-element range keeps its axis
        check_equal(z.shape, { 1 })
        check_equal(z:get():totable(), { after[4][6] })
        local zv = a[4][{ { 6 } }]:reshape({}) -- a 0-d view of a[4][6]
        check_equal(zv.shape, {})
        zv:set(cuarr.cpu.array(-99, "int32"))
        check_equal(a[{ 4, 6 }], -99)
        check_equal(zv:get():item(), -99)
      end)

      b.it("set refuses other shapes and keeps the array", function()
        local a = xp.zeros({ 2, 3 }, "float32")
        H.raises("ValueError", a.set, a, cuarr.cpu.zeros({ 3, 2 }, "float32"))
        H.raises("ValueError", a.set, a, cuarr.cpu.zeros({ 1, 3 }, "float32"))
        H.raises("ValueError", a.set, a, { 1, 2, 3 })
        H.raises("ValueError", a.set, a, { { 1, 2 }, { 3 } })
        H.raises("TypeError", a.set, a, "x")
        check_equal(a:totable(), { { 0.0, 0.0, 0.0 }, { 0.0, 0.0, 0.0 } })
      end)

      b.it("copy_to_host makes a host array or fills one", function()
        local a = xp.array({ { 1, 2 }, { 3, 4 } }, "int16")
        local h = a:copy_to_host()
        assert.are.equal("cpu", h.device)
        assert.are_not.equal(a, h)
        check_equal(h:totable(), { { 1, 2 }, { 3, 4 } })
        local dst = cuarr.cpu.zeros({ 2, 2 }, "int16")
        assert.are.equal(dst, a:copy_to_host(dst))
        check_equal(dst:totable(), { { 1, 2 }, { 3, 4 } })
        -- into a strided host view, converting the dtype
        local big = cuarr.cpu.zeros({ 4, 4 }, "float64")
        a:copy_to_host(big[{ { 1, -1, 2 }, { -1, 1, -2 } }])
        check_equal(big:totable(), { { 0.0, 2.0, 0.0, 1.0 }, { 0.0, 0.0, 0.0, 0.0 },
                                     { 0.0, 4.0, 0.0, 3.0 }, { 0.0, 0.0, 0.0, 0.0 } })
        H.raises("ValueError", a.copy_to_host, a, cuarr.cpu.zeros({ 4 }, "int16"))
        H.raises("TypeError", a.copy_to_host, a, 5)
      end)
    end)
  end

  -- ---------------------------------------------------------------- the device side

  describe("to the device", function()
    for _, dt in ipairs(H.dtypes) do
      H.gpu_it("to_device, device_array, device_array_like of " .. dt, function()
        local src = values(dt, { 5, 3 })
        local h = cuarr.cpu.array(src, dt)
        local d = cuarr.to_device(h)
        assert.are_not.equal("cpu", d.device)
        assert.are.equal(cuarr.Device(), d.device)
        assert.are.equal(dt, d.dtype)
        check_equal(d.shape, { 5, 3 })
        check_equal(d:copy_to_host():totable(), src)
        -- a Lua table goes up with the dtype its values make
        local dt_of_table = cuarr.to_device(src)
        assert.are.equal(dt == "bool" and "bool" or dt:sub(1, 5) == "float" and "float64" or "int64",
          dt_of_table.dtype)
        check_equal(dt_of_table:totable(), src)
        -- a strided host view goes up as its values
        local hv = h[{ { -1, 1, -2 }, { 3, 1, -2 } }]
        check_equal(cuarr.to_device(hv):totable(), hv:totable())
        local e = cuarr.device_array({ 2, 7 }, dt)
        assert.are_not.equal("cpu", e.device)
        assert.are.equal(dt, e.dtype)
        check_equal(e.shape, { 2, 7 })
        local l = cuarr.device_array_like(h)
        assert.are_not.equal("cpu", l.device)
        assert.are.equal(dt, l.dtype)
        check_equal(l.shape, { 5, 3 })
        l:set(h)
        check_equal(l:totable(), src)
        local l2 = cuarr.device_array_like(hv)
        check_equal(l2.shape, hv.shape)
      end)
    end

    H.gpu_it("with a non-blocking stream, every transfer", function()
      local s = cuarr.Stream { non_blocking = true }
      assert.is_true(s.non_blocking)
      local src = values("float32", { 64, 33 })
      local h = cuarr.cpu.array(src, "float32")
      local d = cuarr.to_device(h, s)
      s:synchronize()
      check_equal(d:get(s):totable(), src)
      s:synchronize()
      -- get and set of a strided view on the stream
      local v = d[{ { 2, -1, 3 }, { -1, 1, -4 } }]
      local vh = v:get(s)
      s:synchronize()
      check_equal(vh:totable(), build(vh.shape, function(i, j) return src[2 + 3 * (i - 1)][33 - 4 * (j - 1)] end))
      local zeros = cuarr.cpu.zeros(v.shape, "float32")
      v:set(zeros, s)
      s:synchronize()
      check_equal(v:get():totable(), zeros:totable())
      d:set(h, { stream = s }) -- the options-table form
      s:synchronize()
      check_equal(d:totable(), src)
      -- into pinned memory: asynchronous until the stream is synchronised
      local p = cuarr.pinned_array({ 64, 33 }, "float32")
      assert.is_true(p.is_pinned)
      assert.are.equal("cpu", p.device)
      assert.are.equal(p, d:copy_to_host(p, s))
      s:synchronize()
      check_equal(p:totable(), src)
      local q = d:copy_to_host(s)
      s:synchronize()
      check_equal(q:totable(), src)
      local q2 = d:copy_to_host({ stream = s })
      s:synchronize()
      check_equal(q2:totable(), src)
      -- up from pinned memory on the stream
      p[{ 1, 1 }] = -1.5
      local d2 = cuarr.to_device(p, s)
      s:synchronize()
      check_equal(d2[{ 1, 1 }], -1.5)
      check_equal(d2[{ 64, 33 }], src[64][33])
      local d3 = cuarr.to_device(src, { stream = s })
      s:synchronize()
      check_equal(d3:totable(), src)
    end)

    H.gpu_it("pinned arrays: pinned_array and cpu.empty{pinned = true}", function()
      for _, dt in ipairs({ "bool", "int8", "uint16", "int64", "float16", "float64" }) do
        local p = cuarr.pinned_array({ 3, 5 }, dt)
        assert.is_true(p.is_pinned)
        assert.are.equal(dt, p.dtype)
        check_equal(p.shape, { 3, 5 })
        local src = values(dt, { 3, 5 })
        p:set(src)
        local d = cuarr.to_device(p)
        check_equal(d:totable(), src)
        local back = cuarr.cpu.empty({ 3, 5 }, dt, { pinned = true })
        assert.is_true(back.is_pinned)
        d:copy_to_host(back)
        cuarr.synchronize()
        check_equal(back:totable(), src)
      end
      assert.is_false(cuarr.cpu.zeros(3).is_pinned)
      H.raises("ValueError", cuarr.zeros, 3, "float32", { pinned = true })
    end)

    H.gpu_it("large transfers: 1000003 elements, staged and in several chunks", function()
      for _, case in ipairs({ { 1000003, "int8" }, { 1000003, "float32" }, { 2100001, "float64" } }) do
        local n, dt = case[1], case[2]
        local h = cuarr.cpu.arange(n, dt)
        local d = cuarr.to_device(h)
        local want = h:totable()
        check_list(d:get():totable(), want, dt .. " round trip")
        -- a strided device view down, and a strided host view up
        local dv = d[{ { -1, 1, -3 } }]
        local got = dv:get():totable()
        assert.are.equal((n + 2) // 3, #got)
        for k = 1, #got do
          if got[k] ~= want[n - 3 * (k - 1)] then
            error(("%s reversed view: element %d is %s, expected %s"):format(dt, k, tostring(got[k]),
              tostring(want[n - 3 * (k - 1)])))
          end
        end
        local hv = h[{ { 2, -1, 2 } }]
        local up = cuarr.to_device(hv):totable()
        for k = 1, #up do
          if up[k] ~= want[2 * k] then
            error(("%s strided upload: element %d is %s"):format(dt, k, tostring(up[k])))
          end
        end
        -- with a stream, into pinned memory
        local s = cuarr.Stream { non_blocking = true }
        local p = cuarr.pinned_array(n, dt)
        d:copy_to_host(p, s)
        s:synchronize()
        check_list(p:totable(), want, dt .. " into pinned memory")
        -- set of a large view from the host
        d[{ { 1, -1, 2 } }]:set(cuarr.cpu.zeros((n + 1) // 2, dt))
        local after = d:get():totable()
        for k = 1, n do
          local w = k % 2 == 1 and 0 or want[k]
          if after[k] ~= w then
            error(("%s after set: element %d is %s, expected %s"):format(dt, k, tostring(after[k]), tostring(w)))
          end
        end
      end
    end)

    H.gpu_it("element reads and writes of device arrays", function()
      local d = cuarr.arange(1000003, "int32")
      assert.are.equal(0, d[1])
      assert.are.equal(1000002, d[-1])
      assert.are.equal(500001, d[500002])
      d[1000003] = -5
      assert.are.equal(-5, d[-1])
      local m = d[{ { 1, 12 } }]:reshape(3, 4)
      assert.are.equal(6, m[{ 2, 3 }])
      m[{ 3, 4 }] = 77
      assert.are.equal(77, d[12])
    end)
  end)
end)

describe("small reads", function()
  -- Up to 256 bytes come back through a kernel writing pinned memory and a flag: every size
  -- around that bound, at odd offsets, right after queued work that changes the bytes, on the
  -- current stream and on another one.
  H.gpu_it("of 1 to 300 bytes at odd offsets, after queued work", function()
    local s = cuarr.Stream { non_blocking = true }
    for _, n in ipairs { 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 256, 257, 300 } do
      for _, offset in ipairs { 0, 1, 5 } do
        local d = cuarr.arange(n + offset, "uint8")
        d = d + 3 -- queued: the read must wait for it
        local view = d[{ { 1 + offset, -1 } }]
        local want = {}
        for i = 1, n do want[i] = (offset + i - 1 + 3) % 256 end
        check_equal(view:get():totable(), want)
        assert.are.equal(want[n], view[n])
        -- on another stream: the read waits for that stream's work
        s:synchronize()
        local e = cuarr.empty(n, "uint8")
        e:set(cuarr.cpu.full(n, 9, "uint8"), s)
        check_equal(e:get(s):totable(), (function()
          local w = {}
          for i = 1, n do w[i] = 9 end
          return w
        end)())
      end
    end
    -- item() of every itemsize, after a reduction queued just before it
    for _, dt in ipairs { "bool", "int8", "int16", "float16", "int32", "float32", "int64", "float64" } do
      local a = cuarr.ones(1000, dt)
      local want = dt == "bool" and true or 1000
      if dt == "bool" or dt == "int8" or dt == "int16" then
        assert.are.equal(dt == "bool" and true or 1, a:max():item())
      else
        assert.are.equal(want, a:sum({ dtype = dt }):item())
      end
    end
  end)
end)

describe("staged transfers", function()
  -- Sizes just past a multiple of the staging threads' share: every byte must arrive.
  for _, n in ipairs { (1 << 20) + 3, (1 << 23) + 1, 3 * (1 << 22) + 5 } do
    H.gpu_it("move every byte of " .. n .. " uint8 elements both ways", function()
      local h = cuarr.cpu.empty(n, "uint8")
      h:fill(7)
      h[n] = 200
      h[n - 1] = 199
      local d = cuarr.to_device(h)
      assert.are.equal(200, d[n])
      assert.are.equal(199, d[n - 1])
      d[n] = 201
      local back = d:get()
      assert.are.equal(201, back[n])
      assert.are.equal(199, back[n - 1])
      assert.are.equal(7, back[n - 2])
    end)
  end
end)
