-- Issue 28, 7a-7c: NumPy's writeable flag (broadcast views and read-only imports refuse every
-- write, at once, whatever their size), bool bytes other than 0/1 read as True everywhere, and
-- totable of a table that cannot be made.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

-- A broadcast view of 10^15 elements over one: a loop over it would never end.
local function huge(xp, dtype) return xp.broadcast_to(xp.zeros(1, dtype), { 10 ^ 6, 10 ^ 9 }) end

local function refuses(fn, ...)
  local err = H.raises("ValueError", fn, ...)
  assert.truthy(tostring(err):find("assignment destination is read-only", 1, true), tostring(err))
end

describe("the writeable flag", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("is true for new arrays and their views, false for broadcast views", function()
      for _, dtype in ipairs { "bool", "int8", "uint64", "float16", "float64" } do
        local a = xp.zeros({ 2, 3 }, dtype)
        assert.is_true(a.flags.writeable)
        assert.is_true(a[{ {}, { 1, 2 } }].flags.writeable)
        assert.is_true(a.T.flags.writeable)
        local v = xp.broadcast_to(a, { 4, 2, 3 })
        assert.is_false(v.flags.writeable)
        for _, w in ipairs { v[1], v.T, v[1]:reshape({ 3, 2 }), v[{ {}, 1 }], v:swapaxes(1, 3) } do
          assert.is_false(w.flags.writeable)
        end
        assert.is_true(v:copy().flags.writeable)
        assert.is_true(a.flags.writeable) -- the base stays writeable
      end
      local x, y = xp.broadcast_arrays(xp.zeros(3), xp.zeros({ 2, 1 }))
      assert.is_false(x.flags.writeable)
      assert.is_false(y.flags.writeable)
      assert.is_false(xp.broadcast_to(xp.zeros(0), { 2, 0 }).flags.writeable)
      assert.is_false(xp.broadcast_to(xp.array(5), {}).flags.writeable) -- 0-d
    end)

    b.it("makes every write into a huge broadcast view an immediate ValueError", function()
      local out = huge(xp)
      refuses(xp.exp2, 256, out)
      refuses(xp.add, xp.ones(1), 2, out)
      refuses(function() out:fill(1) end)
      refuses(function() out[{}] = 2 end)
      refuses(function() out[1] = 2 end)
      refuses(function() out[{ 1, 1 }] = 2 end)
      refuses(function() out[{ {}, { 1, 5 } }] = xp.ones(4) end)
      assert.are.equal(0, out[{ 1, 1 }])
    end)

    b.it("is checked by ufuncs, reductions, scans, matmul, sort, masks and fancy indices",
      function()
        for _, dtype in ipairs { "int32", "float32", "float64" } do
          local base = xp.zeros({ 1 }, dtype)
          local ro3 = xp.broadcast_to(base, { 3 })
          local ro22 = xp.broadcast_to(base, { 2, 2 })
          refuses(xp.negative, xp.ones(3, dtype), ro3)
          refuses(xp.multiply, xp.ones(3, dtype), xp.ones(3, dtype), { out = ro3 })
          refuses(xp.sum, xp.ones({ 2, 3 }, dtype), { axis = 1, out = ro3 })
          refuses(xp.max, xp.ones({ 2, 3 }, dtype), { axis = 1, out = ro3 })
          refuses(xp.cumsum, xp.ones(3, dtype), { out = ro3 })
          refuses(xp.matmul, xp.ones({ 2, 2 }, dtype), xp.ones({ 2, 2 }, dtype), ro22)
          refuses(function() ro3:sort() end)
          refuses(function() ro3[xp.array { true, false, true }] = 1 end)
          refuses(function() ro3[{ xp.array { 1, 2 } }] = 1 end)
          refuses(function() ro3[{ { 1, 2 } }] = xp.ones(2, dtype) end)
          refuses(function() ro3:set(cpu.ones(3, dtype)) end)
          refuses(xp.place, ro3, { true, false, true }, { 1 })
          refuses(xp.putmask, ro3, { true, false, true }, { 1, 2 })
          refuses(xp.place, huge(xp), xp.zeros(1, "bool"), { 1 })
          assert.are.equal(0, base[1])
        end
      end)

    b.it("is checked by random draws into out", function()
      local out = xp.broadcast_to(xp.zeros(1), { 4 })
      local rng = xp.random.default_rng(1)
      refuses(function() rng:random(nil, "float64", { out = out }) end)
      assert.are.equal(0, out[1])
    end)

    b.it("setflags{write = false} makes an array and its later views read-only", function()
      for _, dtype in ipairs { "bool", "int64", "float32" } do
        local a = xp.zeros({ 2, 2 }, dtype)
        local before = a[1] -- a view made while writeable stays writeable, as NumPy's
        a:setflags { write = false }
        assert.is_false(a.flags.writeable)
        assert.is_true(before.flags.writeable)
        refuses(function() a[1] = 1 end)
        refuses(function() a:fill(1) end)
        refuses(xp.add, a, 1, a)
        assert.is_false(a[1].flags.writeable)
        H.raises("ValueError", function() a[1]:setflags { write = true } end) -- its base is not
        a:setflags { write = true }
        a[{ 1, 1 }] = 1
        assert.are.equal(1, a:astype("int64"):sum():item())
      end
    end)

    b.it("setflags refuses to make a broadcast view writeable and checks its options", function()
      local v = xp.broadcast_to(xp.zeros(1), { 3 })
      H.raises("ValueError", function() v:setflags { write = true } end)
      assert.is_false(v.flags.writeable)
      v:setflags { write = false }
      local a = xp.zeros(2)
      H.raises("ValueError", function() a:setflags { writ = false } end)
      H.raises("TypeError", function() a:setflags { write = 1 } end)
      H.raises("TypeError", function() a:setflags(false) end)
      assert.is_true(a.flags.writeable)
    end)

    b.it("leaves broadcasting inputs alone: read-only arrays are read as before", function()
      local v = xp.broadcast_to(xp.arange(3), { 2, 3 })
      assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, (v + 1):totable())
      assert.is_true(v:reshape({ 6 }).flags.writeable) -- a reshape that copies, as NumPy's
      assert.are.same({ 3, 3 }, xp.sum(v, { axis = 2 }):totable())
      local c = xp.zeros({ 2, 3 })
      c[{}] = v
      assert.are.same({ { 0, 1, 2 }, { 0, 1, 2 } }, c:totable())
    end)
  end

  H.gpu_it("is checked by ElementwiseKernel and ReductionKernel outputs", function()
    local k = cuarr.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "twice")
    local out = cuarr.broadcast_to(cuarr.zeros(1, "float32"), { 3 })
    refuses(k, cuarr.ones(3, "float32"), out)
    local r = cuarr.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")
    refuses(r, cuarr.ones({ 3, 2 }, "float32"), { axis = 2, out = out })
    assert.are.equal(0, out[1])
  end)

  H.gpu_it("follows __cuda_array_interface__'s read-only flag both ways", function()
    local d = cuarr.arange(4, "float32")
    local function view(readonly)
      return cuarr.as_cuda_array { __cuda_array_interface__ = {
        shape = { 4 }, typestr = "<f4", data = { d.data, readonly }, version = 3 } }
    end
    local ro = view(true)
    assert.is_false(ro.flags.writeable)
    refuses(function() ro[1] = 7 end)
    H.raises("ValueError", function() ro:setflags { write = true } end)
    assert.is_true(view(false).flags.writeable)
    assert.is_true(ro.__cuda_array_interface__.data[2])
    assert.is_false(d.__cuda_array_interface__.data[2])
    assert.are.equal(0, d[1])
    -- The producer (a plain table) is the base: collecting it with its views crashed once.
    for _ = 1, 50 do view(false):get() end
    collectgarbage()
    collectgarbage()
    assert.are.equal(0, d[1])
  end)
end)

-- Bool arrays whose bytes are 2..255: a uint8 device array seen as bool through the interface
-- (the host copy keeps the bytes).  spec/c/test_bool_bytes.c does the host without a GPU.
local function bool_bytes(bytes, shape)
  local u = cuarr.array(bytes, "uint8")
  return cuarr.as_cuda_array { __cuda_array_interface__ = {
    shape = shape, typestr = "|b1", data = { u.data, false }, version = 3 } }, u
end

describe("bool bytes other than 0 and 1", function()
  H.gpu_it("are True in matmul, dot and vdot as in any and sum, on both backends", function()
    local bytes = { 0, 2, 0, 255, 7, 0, 128, 0, 0, 3, 0, 0 }
    local m, keep = bool_bytes(bytes, { 3, 4 })
    local ones_dev = cuarr.ones({ 4, 2 }, "bool")
    for _, x in ipairs { m, m:get() } do
      local xp = x.device == "cpu" and cpu or cuarr
      local ones = x.device == "cpu" and ones_dev:get() or ones_dev
      local want = xp.any(x, { axis = 2 }):totable()
      local got = xp.matmul(x, ones):totable()
      for i = 1, 3 do
        assert.are.equal(want[i], got[i][1])
        assert.are.equal(want[i], got[i][2])
      end
      assert.are.equal(5, xp.sum(x):item())
      local row = x[1]
      assert.are.equal(xp.any(row):item(), xp.dot(row, row):item())
      assert.are.equal(xp.any(row):item(), xp.vdot(row, row):item())
      assert.are.same(xp.logical_not(xp.logical_not(x)):totable(), x:astype("bool"):totable())
      assert.are.same(x:astype("int8"):totable(), (x:astype("int8") ~= 0):astype("int8"):totable())
    end
    assert.truthy(keep)
  end)
end)

describe("totable", function()
  for _, b in ipairs(H.backends) do
    b.it("of a table too big to make is an OutOfMemoryError, at once", function()
      for _, dtype in ipairs { "bool", "float64" } do
        H.raises("OutOfMemoryError", function() return huge(b.xp, dtype):totable() end)
      end
      H.raises("OutOfMemoryError", function()
        return b.xp.broadcast_to(b.xp.zeros(1), { 2 ^ 31 + 1 }):totable()
      end)
      H.raises("OutOfMemoryError", function() return b.xp.zeros({ 10 ^ 9, 10 ^ 9, 0 }):totable() end)
      assert.are.same({ {}, {} }, b.xp.zeros({ 2, 0 }):totable())
      assert.are.same({ 0, 0 }, b.xp.broadcast_to(b.xp.zeros(1), { 2 }):totable())
    end)
  end
end)

describe("cuarr.runtime's metatable", function()
  it("gives a TypeError when its __index is called on anything but cuarr.runtime", function()
    local index = getmetatable(cuarr.runtime).__index
    for _, bad in ipairs { 5, "s", true, {} } do
      H.raises("TypeError", index, bad, "device_count")
    end
    assert.are.equal("number", type(cuarr.runtime.device_count))
  end)
end)
