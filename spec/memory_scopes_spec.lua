-- Numba's memory scopes and the CUDA array interface.
--
-- cuarr.pinned(...): the registrations are counted on the stand-in driver (tools/fake_cuda,
-- FAKE_CUDA_COUNT=1 prints the calls per entry point when the child exits, and the stand-in
-- refuses a range registered twice or unregistered without a registration), in a child
-- process.  The CUDA array interface's round trips run there too: the stand-in's device memory
-- is host memory that copies really move, so writing through one array and reading through the
-- other proves that the two share it.  On a device (#gpu) the same with kernels.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local child = require "spec.support.child"

local fake_libcuda = child.fake_libcuda

-- Run code on the stand-in driver with the calls counted; returns its output lines and the
-- counts of cuMemHostRegister and cuMemHostUnregister.
local function on_stand_in(code)
  local ok, out, err = child.run("local cuarr = require 'cuarr'\n" .. code,
    { CUARR_LIBCUDA = fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1", FAKE_CUDA_COUNT = "1" })
  assert(ok, "child failed:\n" .. out .. err)
  local function count(name)
    return tonumber(err:match("(%d+) " .. name .. "\n") or "0")
  end
  return out, count("cuMemHostRegister"), count("cuMemHostUnregister")
end

describe("cuarr.pinned on the stand-in driver", function()
  it("registers each buffer once, marks it pinned inside the scope and restores it after",
    function()
      local out, reg, unreg = on_stand_in [[
        local h1, h2 = cuarr.cpu.arange(1000, "float32"), cuarr.cpu.ones({ 4, 4 }, "int64")
        local view = h1[{ { 11, 20 } }]
        print(h1.is_pinned, h2.is_pinned)
        do
          local g <close> = cuarr.pinned(h1, h2, view)
          print(h1.is_pinned, h2.is_pinned, view.is_pinned, g.n_registered)
          local d = cuarr.asarray(h1)            -- the asynchronous path, data intact
          print(d:get()[1000], d:get()[11])
        end
        print(h1.is_pinned, h2.is_pinned)
      ]]
      assert.are.equal("false\tfalse\ntrue\ttrue\ttrue\t2\n999.0\t10.0\nfalse\tfalse\n", out)
      assert.are.equal(2, reg)
      assert.are.equal(2, unreg)
    end)

  it("unregisters when the scope is left by an error", function()
    local out, reg, unreg = on_stand_in [[
      local h = cuarr.cpu.zeros(100)
      local ok, err = pcall(function()
        local _ <close> = cuarr.pinned(h)
        assert(h.is_pinned)
        error("leaving by error")
      end)
      print(ok, tostring(err):match("leaving by error"), h.is_pinned)
    ]]
    assert.are.equal("false\tleaving by error\tfalse\n", out)
    assert.are.equal(1, reg)
    assert.are.equal(1, unreg)
  end)

  it("leaves an outer scope's registration to the outer scope", function()
    local out, reg, unreg = on_stand_in [[
      local h, h2 = cuarr.cpu.zeros(100), cuarr.cpu.zeros(50)
      do
        local outer <close> = cuarr.pinned(h)
        do
          local inner <close> = cuarr.pinned(h, h2)
          print(inner.n_registered, h.is_pinned, h2.is_pinned)
        end
        print(h.is_pinned, h2.is_pinned)
      end
      print(h.is_pinned, h2.is_pinned)
    ]]
    assert.are.equal("1\ttrue\ttrue\ntrue\tfalse\nfalse\tfalse\n", out)
    assert.are.equal(2, reg)
    assert.are.equal(2, unreg)
  end)

  it("leaves arrays of the pinned pool alone", function()
    local out, reg, unreg = on_stand_in [[
      local p = cuarr.pinned_array({ 64 }, "float32")
      do
        local g <close> = cuarr.pinned(p)
        print(g.n_registered, p.is_pinned)
      end
      print(p.is_pinned)
    ]]
    assert.are.equal("0\ttrue\ntrue\n", out)
    assert.are.equal(0, reg)
    assert.are.equal(0, unreg)
  end)

  it("does nothing on a second close; a guard never closed is undone when collected", function()
    local out, reg, unreg = on_stand_in [[
      local h = cuarr.cpu.zeros(10)
      local g = cuarr.pinned(h)
      g:close()
      g:close()
      print(g.closed, h.is_pinned)
      local h2 = cuarr.cpu.zeros(20)
      cuarr.pinned(h2)                        -- dropped at once
      print(h2.is_pinned)
      collectgarbage()
      collectgarbage()
      print(h2.is_pinned)
    ]]
    assert.are.equal("true\tfalse\ntrue\nfalse\n", out)
    assert.are.equal(2, reg)
    assert.are.equal(2, unreg)
  end)

  it("keeps a registration sound when its array is collected or freed inside the scope",
    function()
      local out, reg, unreg = on_stand_in [[
        do
          local g <close> = cuarr.pinned(cuarr.cpu.zeros(1000), cuarr.cpu.zeros(10))
          collectgarbage()
          collectgarbage()                       -- the arrays are gone, their buffers held
          print(g.n_registered)
        end
        local h = cuarr.cpu.zeros(300)
        do
          local g <close> = cuarr.pinned(h)
          h:free()                               -- unregistered by its address at the close
        end
        print("done")
      ]]
      assert.are.equal("2\ndone\n", out)
      assert.are.equal(3, reg)
      assert.are.equal(3, unreg)
    end)

  it("with_pinned runs fn with the arrays pinned and unpins them, on an error too", function()
    local out, reg, unreg = on_stand_in [[
      local h1, h2 = cuarr.cpu.zeros(10), cuarr.cpu.zeros(20)
      print(cuarr.with_pinned({ h1, h2 }, function(a, b)
        return h1.is_pinned and h2.is_pinned, a + b
      end, 2, 3))
      print(h1.is_pinned, h2.is_pinned)
      local ok = pcall(cuarr.with_pinned, { h1 }, function() error("inside") end)
      print(ok, h1.is_pinned)
    ]]
    assert.are.equal("true\t5\nfalse\tfalse\nfalse\tfalse\n", out)
    assert.are.equal(3, reg)
    assert.are.equal(3, unreg)
  end)

  it("registers nothing when one argument is bad", function()
    local out, reg, unreg = on_stand_in [[
      local h, d = cuarr.cpu.zeros(10), cuarr.zeros(10)
      local ok, err = pcall(cuarr.pinned, h, d)
      print(ok, err.kind, h.is_pinned)
    ]]
    assert.are.equal("false\tTypeError\tfalse\n", out)
    assert.are.equal(0, reg)
    assert.are.equal(0, unreg)
  end)
end)

if not H.has_gpu then
  describe("cuarr.pinned without a device", function()
    it("is NotAvailable and leaves the array pageable", function()
      local h = cuarr.cpu.zeros(10)
      H.raises("NotAvailable", cuarr.pinned, h)
      assert.is_false(h.is_pinned)
    end)
  end)
end

describe("the CUDA array interface on the stand-in driver", function()
  it("describes a device array: shape, typestr, pointer, strides, version, stream", function()
    local out = on_stand_in [[
      local d = cuarr.zeros({ 3, 4 }, "float32")
      local c = d.__cuda_array_interface__
      print(table.concat(c.shape, ","), c.typestr, c.data[1] == d.data, c.data[2], c.strides,
            c.version, c.stream)
      local t = d.T.__cuda_array_interface__
      print(table.concat(t.shape, ","), table.concat(t.strides, ","), t.data[1] == d.data)
      local names = {}
      for _, dt in ipairs { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                            "uint32", "uint64", "float16", "float32", "float64" } do
        names[#names + 1] = cuarr.zeros(2, dt).__cuda_array_interface__.typestr
      end
      print(table.concat(names, " "))
      local s = cuarr.Stream { non_blocking = true }
      do
        local _ <close> = s:enter()
        print(d.__cuda_array_interface__.stream == s.ptr)
      end
      print(cuarr.cpu.zeros(3).__cuda_array_interface__)
    ]]
    assert.are.equal("3,4\t<f4\ttrue\tfalse\tnil\t3\t1\n"
      .. "4,3\t4,16\ttrue\n"
      .. "|b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 <f2 <f4 <f8\n"
      .. "true\nnil\n", out)
  end)

  it("round-trips without copying: a write through either array is read through the other",
    function()
      local out = on_stand_in [[
        local d = cuarr.asarray(cuarr.cpu.arange(12, "float64")):reshape(3, 4)
        local obj = { __cuda_array_interface__ = d.__cuda_array_interface__ }
        assert(cuarr.is_cuda_array(obj) and cuarr.is_cuda_array(d))
        local v = cuarr.as_cuda_array(obj)
        print(v.shape, v.dtype, v.data == d.data, v.base == obj, v.device.id)
        v:set(cuarr.cpu.full({ 3, 4 }, 7.5))          -- written through the view
        print(d:get()[2][3])
        d:set((cuarr.cpu.arange(12, "float64") * -1):reshape(3, 4)) -- through the original
        print(v:get()[3][4])
        obj = nil
        collectgarbage()
        print(v.base.__cuda_array_interface__.version, v:get()[1][2])  -- kept alive by v
        local e = cuarr.as_cuda_array({ __cuda_array_interface__ = {
          shape = { 0, 5 }, typestr = "<i4", data = { 0, false }, version = 3 } })
        print(e.shape, e.dtype, e.device ~= "cpu")
        print(cuarr.as_cuda_array(d) == d)
      ]]
      assert.are.equal("(3, 4)\tfloat64\ttrue\ttrue\t0\n7.5\n-11.0\n3\t-1.0\n"
        .. "(0, 5)\tint32\ttrue\ntrue\n", out)
    end)

  it("takes strides in bytes, negative ones included, and an offset into the allocation",
    function()
      local out = on_stand_in [[
        local d = cuarr.asarray(cuarr.cpu.arange(20, "int32"))
        local base = d.data
        -- elements 19, 17, ..., 1 as a reversed, strided view: its pointer is the last one
        local v = cuarr.as_cuda_array({ __cuda_array_interface__ = {
          shape = { 10 }, strides = { -8 }, typestr = "<i4", data = { base + 19 * 4, false },
          version = 3 } })
        print(v.shape, v.strides, v.data == base + 76, v.flags.c_contiguous)
        local w = cuarr.as_cuda_array({ __cuda_array_interface__ = {
          shape = { 2, 3 }, typestr = "<i4", data = { base + 8, false }, version = 2 } })
        print(w:get()[1][1], w:get()[2][3])
      ]]
      assert.are.equal("(10,)\t(-8,)\ttrue\tfalse\n2\t7\n", out)
    end)

  it("refuses memory the driver does not know and layouts past the allocation's end", function()
    local out = on_stand_in [[
      local d = cuarr.zeros(16, "float32")
      local function try(cai)
        local ok, err = pcall(cuarr.as_cuda_array, { __cuda_array_interface__ = cai })
        return ok and "ok" or err.kind
      end
      local h = cuarr.cpu.zeros(16, "float32")
      print(try { shape = { 16 }, typestr = "<f4", data = { h.data, false }, version = 3 },
            try { shape = { 4 }, typestr = "<f4", data = { 4096, false }, version = 3 },
            try { shape = { 1 << 40 }, typestr = "<f4", data = { d.data, false }, version = 3 },
            try { shape = { 16 }, typestr = "<f4", data = { d.data, false }, version = 3 })
    ]]
    assert.are.equal("ValueError\tValueError\tValueError\tok\n", out)
  end)
end)

describe("CUDA array interface and pinned scopes on a device", function()
  H.gpu_it("a pinned scope's transfers are correct both ways", function()
    local h = cuarr.cpu.arange(1 << 20, "float32")
    local back = cuarr.cpu.zeros(1 << 20, "float32")
    do
      local _ <close> = cuarr.pinned(h, back)
      assert.is_true(h.is_pinned and back.is_pinned)
      local doubled = cuarr.asarray(h) * 2
      doubled:copy_to_host(back) -- into pinned memory: the close waits for the copy
    end
    assert.is_false(h.is_pinned or back.is_pinned)
    for _, i in ipairs { 1, 2, 1000, 1 << 20 } do assert.are.equal(2 * (i - 1), back[i]) end
  end)

  H.gpu_it("a pinned scope left by an error unregisters, and the array can be pinned again",
    function()
      local h = cuarr.cpu.ones(4096, "float64")
      local ok = pcall(function()
        local _ <close> = cuarr.pinned(h)
        local _ = cuarr.asarray(h)
        error("out")
      end)
      assert.is_false(ok)
      assert.is_false(h.is_pinned)
      do
        local _ <close> = cuarr.pinned(h) -- registering again works: the first was undone
        assert.are.equal(4096, cuarr.asarray(h):sum():item())
      end
    end)

  H.gpu_it("as_cuda_array shares memory with a kernel's writes both ways", function()
    local d = cuarr.arange(12, "float32"):reshape(3, 4)
    local v = cuarr.as_cuda_array({ __cuda_array_interface__ = d.__cuda_array_interface__ })
    v:multiply(2, v)                       -- a kernel writes through the view
    assert.are.equal(22, d[3][4])
    d:add(1, d)                            -- and through the original
    assert.are.equal(23, v[3][4])
    local t = cuarr.as_cuda_array({ __cuda_array_interface__ = d.T.__cuda_array_interface__ })
    assert.are.same({ 4, 3 }, { t.shape[1], t.shape[2] })
    assert.are.equal(d[2][3], t[3][2])
    assert.are.equal((d * 1):sum():item(), t:sum():item())
  end)

  H.gpu_it("as_cuda_array waits for the interface's stream", function()
    local s = cuarr.Stream { non_blocking = true }
    local big = cuarr.zeros(1 << 20, "float32")
    cuarr.synchronize()
    local cai
    do
      local _ <close> = s:enter()
      for _ = 1, 40 do big:add(1, big) end      -- queued on s
      cai = big.__cuda_array_interface__
    end
    assert.are.equal(s.ptr, cai.stream)
    local v = cuarr.as_cuda_array({ __cuda_array_interface__ = cai })
    -- summed on the current stream after s's work (every partial sum is exact in float32)
    assert.are.equal(40 * (1 << 20), v:sum():item())
  end)
end)
