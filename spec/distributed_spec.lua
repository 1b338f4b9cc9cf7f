-- cuarr.distributed: NCCL's collectives over the devices one process drives.  Host-side specs
-- (NCCL's version, init's argument checks) run anywhere; a communicator over one device runs on
-- any GPU machine (#gpu); every collective over several devices needs two or more (#multigpu),
-- checked against answers computed here in Lua.
local H = require("spec.helper").bind(_ENV)
local misuse = require "spec.support.misuse"
local cuarr = H.cuarr
local D = cuarr.distributed

local function on(d, fn, ...) return cuarr.with_device(d, fn, ...) end

-- The dtypes NCCL reduces, and those it only moves.
local reducible = { "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32",
                    "float64" }
local moved_only = { "bool", "int16", "uint16" }

local function is_float(dt) return dt:sub(1, 5) == "float" end
local function is_unsigned(dt) return dt:sub(1, 4) == "uint" end

-- v wrapped to dtype dt's range as the device's integers wrap (floats and bool as they are).
local bits = { int8 = 8, uint8 = 8, int16 = 16, uint16 = 16, int32 = 32, uint32 = 32 }
local function wrap(v, dt)
  local b = bits[dt]
  if not b then return v end
  local m = 1 << b
  v = v % m
  if not is_unsigned(dt) and v >= m // 2 then v = v - m end
  return v
end

-- Rank r's value at element i (0-based), small enough that sums and products stay exact.
local function value(dt, r, i, for_prod)
  if dt == "bool" then return (r + i) % 3 == 0 end
  local v = for_prod and ((r + i) % 3 + 1) or ((r * 7 + i * 3) % 11)
  if not for_prod and not is_unsigned(dt) then v = v - 5 end
  if is_float(dt) then v = v + 0.0 end
  return v
end

local function values(dt, r, n, for_prod)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = value(dt, r, i, for_prod) end
  return t
end

-- op over the list of Lua values, as NCCL computes it in dtype dt over n ranks.
local function combine(op, dt, list)
  local acc = list[1]
  for k = 2, #list do
    local v = list[k]
    if op == "sum" or op == "avg" then acc = acc + v
    elseif op == "prod" then acc = acc * v
    elseif op == "max" then
      if dt == "bool" then acc = acc or v elseif v > acc then acc = v end
    elseif op == "min" then
      if dt == "bool" then acc = acc and v elseif v < acc then acc = v end
    end
  end
  if op == "avg" then
    if is_float(dt) then
      acc = acc / #list
    else -- NCCL divides the integer sum, truncating as C does
      local q = math.abs(acc) // #list
      acc = acc < 0 and -q or q
    end
  end
  if dt ~= "bool" and not is_float(dt) then acc = wrap(math.tointeger(acc), dt) end
  return acc
end

local function close_to(dt, want, got, what)
  if not is_float(dt) then
    assert.are.same(want, got, what)
    return
  end
  local tol = dt == "float16" and 2e-2 or dt == "float32" and 1e-5 or 1e-12
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    if math.abs(want[i] - got[i]) > tol * math.max(1, math.abs(want[i])) then
      error(string.format("%s: element %d is %s, want %s", what, i, tostring(got[i]),
                          tostring(want[i])))
    end
  end
end

local function flat(a) return H.flat(a:totable()) end

describe("cuarr.distributed", function()
  it("loads NCCL and reports its version", function()
    local v = cuarr.runtime.nccl_version
    assert.is_number(v)
    assert.are.equal(v >= 0 and cuarr.is_available(), D.is_available())
    if v >= 0 then assert.is_true(v >= 21000, "NCCL 2.10 or newer: " .. v) end
    H.raises("TypeError", D.is_available, 1)
  end)

  it("is not available with NCCL but no driver, and examples/distributed.lua says so", function()
    local child = require "spec.support.child"
    local stand_in = child.fake_libcuda():gsub("libcuda%.so%.1$", "libnccl_stand_in.so")
    local env = { CUARR_LIBNCCL = stand_in, CUARR_LIBCUDA = "/nonexistent/libcuda.so.1" }
    local ok, out, err = child.run([[
      local cuarr = require "cuarr"
      print(cuarr.runtime.nccl_version >= 0, cuarr.is_available(), cuarr.distributed.is_available())
    ]], env)
    assert.is_true(ok, err)
    assert.are.equal("true\tfalse\tfalse", out:match("^%s*(.-)%s*$"))
    local ran
    ran, out = child.shell("env " .. child.env_words(env) .. " lua5.4 examples/distributed.lua 1000")
    assert.is_true(ran, out)
    assert.matches("needs NCCL and a GPU: no usable GPU here", out, 1, true)
    ran, out = child.shell("env " .. child.env_words({ CUARR_LIBNCCL = "/nonexistent/libnccl.so",
      CUARR_LIBCUDA = "/nonexistent/libcuda.so.1" }) .. " lua5.4 examples/distributed.lua 1000")
    assert.is_true(ran, out)
    assert.matches("needs NCCL and a GPU: no NCCL here", out, 1, true)
  end)

  describe("init refuses", function()
    local cases = {
      { "TypeError", match = "options table", misuse = function() return D.init(3) end },
      { "TypeError", match = "at most 1",
        misuse = function() return D.init({ devices = { 0 } }, 2) end },
      { "ValueError", match = "devicez",
        misuse = function() return D.init { devicez = { 0 } } end },
      { "TypeError", match = "sequence of device ids",
        misuse = function() return D.init { devices = 0 } end },
      { "TypeError", match = "sequence of device ids",
        misuse = function() return D.init { devices = "0,1" } end },
      { "ValueError", match = "1 to 64 devices",
        misuse = function() return D.init { devices = {} } end },
      { "ValueError", match = "1 to 64 devices", misuse = function()
          local t = {}
          for i = 1, 65 do t[i] = i - 1 end
          return D.init { devices = t }
        end },
      { "TypeError", match = "devices[2]",
        misuse = function() return D.init { devices = { 0, "1" } } end },
      { "TypeError", match = "device id",
        misuse = function() return D.init { devices = { 0.5 } } end },
      { "ValueError", match = "listed twice",
        misuse = function() return D.init { devices = { 0, 0 } } end },
      { "ValueError", match = "listed twice",
        misuse = function() return D.init { devices = { 1, 0, 1 } } end },
      -- without CUARR_RANK in this process's environment
      { "ValueError", match = "bin/cuarr-run", misuse = function() return D.init {} end },
      { "ValueError", match = "bin/cuarr-run", misuse = function() return D.init() end },
    }
    for _, case in ipairs(cases) do
      it(case[1] .. ": " .. case.match, function()
        misuse.run(H, { kind = case[1], match = case.match, misuse = case.misuse })
      end)
    end

    if not H.run_gpu then
      it("with NotAvailable when there is no driver", function()
        H.raises("NotAvailable", D.init, { devices = { 0 } })
      end)
    end
  end)

  it("methods refuse what is not a Communicator", function()
    local methods = D.Communicator.methods
    for _, name in ipairs { "all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter",
                            "all_to_all", "send_recv", "send", "recv", "destroy", "barrier" } do
      local err = H.raises("TypeError", methods[name], {}, {}, "sum")
      assert.matches("Communicator", err.message)
    end
  end)
end)

describe("a communicator over one device", function()
  H.gpu_it("describes itself and is closed by <close>, destroy and the GC", function()
    local comm = D.init { devices = { 0 } }
    assert.are.equal(1, comm.size)
    assert.are.same({ cuarr.Device(0) }, comm.devices)
    assert.is_false(comm.destroyed)
    assert.matches("Communicator 1 rank on devices 0", tostring(comm))
    comm:destroy()
    assert.is_true(comm.destroyed)
    comm:destroy() -- idempotent
    assert.matches("destroyed", tostring(comm))
    H.raises("ValueError", comm.all_reduce, comm, { cuarr.zeros(2) }, "sum")
    H.raises("IndexError", function() return comm.nonsense end)
    do
      local c2 <close> = D.init { devices = { cuarr.Device(0) } }
      assert.are.equal(1, c2.size)
    end
    D.init { devices = { 0 } } -- dropped: the GC destroys it
    collectgarbage()
    collectgarbage()
  end)

  H.gpu_it("all_reduce is the identity for every dtype and op, in place and into out", function()
    local comm <close> = D.init { devices = { 0 } }
    for _, dt in ipairs(reducible) do
      for _, op in ipairs { "sum", "prod", "max", "min", "avg" } do
        local want = values(dt, 0, 37, op == "prod")
        local a = cuarr.array(want, dt)
        comm:all_reduce({ a }, op)
        close_to(dt, want, flat(a), dt .. " " .. op)
        local out = cuarr.zeros(37, dt)
        comm:all_reduce({ a }, op, { out = { out } })
        close_to(dt, want, flat(out), dt .. " " .. op .. " out")
      end
    end
    local b = cuarr.array({ true, false, true }, "bool")
    comm:all_reduce({ b }, "max")
    comm:all_reduce({ b }, "min")
    assert.are.same({ true, false, true }, b:totable())
  end)

  H.gpu_it("go through a temporary for strided views, leaving the rest alone", function()
    local comm <close> = D.init { devices = { 0 } }
    local base = cuarr.arange(24, "float32"):reshape(4, 6)
    local view = base[{ {}, { 1, -1, 2 } }]
    comm:all_reduce({ view }, "sum")
    assert.are.same(cuarr.arange(24, "float32"):reshape(4, 6):totable(), base:totable())
    local t = base.T
    local out = cuarr.zeros({ 4, 6 }, "float32").T -- F-ordered, of t's shape (6, 4)
    comm:all_reduce({ t }, "max", { out = { out } })
    assert.are.same(t:totable(), out:totable())
    local outs = cuarr.zeros({ 1, 4, 3 }, "float32")
    comm:all_gather({ view }, { outs })
    assert.are.same({ view:totable() }, outs:totable())
  end)

  H.gpu_it("broadcast, reduce, all_gather, reduce_scatter, all_to_all with one rank", function()
    local comm <close> = D.init { devices = { 0 } }
    for _, dt in ipairs(H.dtypes) do
      local want = values(dt, 0, 10)
      local a = cuarr.array(want, dt)
      comm:broadcast({ a }, 0)
      assert.are.same(want, flat(a), dt)
      local out = cuarr.zeros(10, dt)
      comm:broadcast({ a }, 0, { out = { out } })
      assert.are.same(want, flat(out), dt)
      local g = cuarr.zeros({ 1, 10 }, dt)
      comm:all_gather({ a }, { g })
      assert.are.same({ want }, g:totable(), dt)
      local t = cuarr.zeros(10, dt)
      comm:all_to_all({ a }, { t })
      assert.are.same(want, flat(t), dt)
    end
    for _, dt in ipairs(reducible) do
      local want = values(dt, 0, 10)
      local a = cuarr.array(want, dt)
      local out = cuarr.zeros(10, dt)
      comm:reduce({ a }, "sum", 0, { out = { out } })
      assert.are.same(want, flat(out), dt)
      local rs = cuarr.zeros(10, dt)
      comm:reduce_scatter({ a }, { rs }, "max")
      assert.are.same(want, flat(rs), dt)
    end
  end)

  H.gpu_it("do nothing with empty arrays and 0-d ones move", function()
    local comm <close> = D.init { devices = { 0 } }
    local e = cuarr.zeros({ 0, 3 }, "float32")
    comm:all_reduce({ e }, "sum")
    comm:all_gather({ e }, { cuarr.zeros(0, "float32") })
    local z = cuarr.array(7.5, "float64")
    comm:all_reduce({ z }, "sum")
    assert.are.equal(7.5, z:item())
  end)

  H.gpu_it("run on given streams and barrier", function()
    local comm <close> = D.init { devices = { 0 } }
    local s = cuarr.Stream { non_blocking = true }
    local a = cuarr.with_stream(s, cuarr.arange, 1000, "float32")
    comm:all_reduce({ a }, "sum", { streams = { s } })
    s:synchronize()
    assert.are.same(cuarr.arange(1000, "float32"):totable(), a:totable())
    comm:barrier()
    comm:barrier { streams = { s } }
    H.raises("TypeError", comm.barrier, comm, {}, 1)
    -- one rank here: one stream, and its array itself rather than a sequence of one
    comm:barrier { stream = s }
    H.raises("ValueError", comm.barrier, comm, { stream = s, streams = { s } })
    local b = cuarr.arange(5, "int64")
    comm:all_reduce(b, "max", { stream = s })
    s:synchronize()
    assert.are.same({ 0, 1, 2, 3, 4 }, b:totable())
  end)

  H.gpu_it("barrier reads its streams raw: a hostile table is a cuarr error or its entries",
    function()
      local comm <close> = D.init { devices = { 0 } }
      local s = cuarr.Stream { non_blocking = true }
      -- an __index that answers a Stream once, then a number (the fuzzer's finding: the wait
      -- read the table again and called a method of the number: a plain Lua error)
      local reads = 0
      local changing = setmetatable({}, {
        __len = function() return 1 end,
        __index = function()
          reads = reads + 1
          return reads == 1 and s or 5
        end,
      })
      H.raises("ValueError", comm.barrier, comm, { streams = changing })
      -- a __len that answers a string: the entries themselves count
      local odd = setmetatable({ s }, { __len = function() return "x" end })
      comm:barrier { streams = odd }
    end)

  local function comm1() return D.init { devices = { 0 } } end
  local cases = {
    { "ValueError", "2 parts for 1 ranks", function(c, a) c:all_reduce({ a, a }, "sum") end },
    { "ValueError", "0 parts", function(c) c:all_reduce({}, "sum") end },
    { "TypeError", "sequence of arrays", function(c) c:all_reduce(5, "sum") end },
    { "TypeError", "parts[1] must be an array", function(c) c:all_reduce({ 1 }, "sum") end },
    { "TypeError", "host array", function(c) c:all_reduce({ cuarr.cpu.zeros(3) }, "sum") end },
    { "ValueError", "unknown reduction 'mean'", function(c, a) c:all_reduce({ a }, "mean") end },
    { "TypeError", "must be a string", function(c, a) c:all_reduce({ a }, 1) end },
    { "ValueError", "unknown option 'outs'",
      function(c, a) c:all_reduce({ a }, "sum", { outs = {} }) end },
    { "TypeError", "options table", function(c, a) c:all_reduce({ a }, "sum", 5) end },
    { "TypeError", "at most", function(c, a) c:all_reduce({ a }, "sum", nil, 1) end },
    { "TypeError", "NCCL cannot sum bool",
      function(c) c:all_reduce({ cuarr.zeros(3, "bool") }, "sum") end },
    { "TypeError", "NCCL cannot reduce int16",
      function(c) c:all_reduce({ cuarr.zeros(3, "int16") }, "max") end },
    { "TypeError", "NCCL cannot reduce uint16",
      function(c)
        c:reduce_scatter({ cuarr.zeros(3, "uint16") }, { cuarr.zeros(3, "uint16") }, "sum")
      end },
    { "TypeError", "NCCL does not convert",
      function(c, a) c:all_reduce({ a }, "sum", { out = { cuarr.zeros(3, "float64") } }) end },
    { "ValueError", "shape",
      function(c, a) c:all_reduce({ a }, "sum", { out = { cuarr.zeros(4, "float32") } }) end },
    { "ValueError", "root 1 is not a rank", function(c, a) c:broadcast({ a }, 1) end },
    { "ValueError", "root -1 is not a rank", function(c, a) c:reduce({ a }, "sum", -1) end },
    { "TypeError", "root", function(c, a) c:reduce({ a }, "sum", 0.5) end },
    { "ValueError", "elements",
      function(c, a) c:all_gather({ a }, { cuarr.zeros(2, "float32") }) end },
    { "ValueError", "2 outs for 1 ranks", function(c, a) c:all_gather({ a }, { a, a }) end },
    { "ValueError", "2 streams for 1 ranks",
      function(c, a)
        c:all_reduce({ a }, "sum", { streams = { cuarr.Stream(), cuarr.Stream() } })
      end },
    { "TypeError", "streams[1] must be a Stream",
      function(c, a) c:all_reduce({ a }, "sum", { streams = { 0 } }) end },
    { "TypeError", "sequence of Streams",
      function(c, a) c:all_reduce({ a }, "sum", { streams = cuarr.Stream() }) end },
    { "ValueError", "both on device 0", function(c, a) c:send_recv { { a, cuarr.zeros(3) } } end },
    { "TypeError", "pairs[1] must be", function(c, a) c:send_recv { a } end },
    { "ValueError", "two arrays", function(c, a) c:send_recv { { a } } end },
    { "ValueError", "send_recv", function(c, a) c:send(a, 0) end },
    { "ValueError", "send_recv", function(c, a) c:recv(a, 0) end },
    { "ValueError", "freed", function(c)
        local x = cuarr.zeros(3)
        x:free()
        c:all_reduce({ x }, "sum")
      end },
  }
  for _, case in ipairs(cases) do
    H.gpu_it("refuse with " .. case[1] .. ": " .. case[2], function()
      local comm <close> = comm1()
      misuse.run(H, {
        kind = case[1], match = case[2],
        setup = function() return { a = cuarr.arange(3, "float32") } end,
        misuse = function(t) case[3](comm, t.a) end,
      })
    end)
  end
  H.gpu_it("refuse device ids that do not exist", function()
    H.raises("ValueError", D.init, { devices = { -1 } })
    H.raises("ValueError", D.init, { devices = { cuarr.runtime.device_count } })
  end)
end)

-- Several devices: every collective against answers computed in Lua.
local function all_devices()
  local t = {}
  for d = 0, math.min(cuarr.runtime.device_count, 8) - 1 do t[#t + 1] = d end
  return t
end

local function parts_of(devs, dt, size, for_prod, shape)
  local parts, host = {}, {}
  for r, d in ipairs(devs) do
    host[r] = values(dt, r - 1, size, for_prod)
    parts[r] = on(d, function()
      local a = cuarr.array(host[r], dt)
      return shape and a:reshape(shape) or a
    end)
  end
  return parts, host
end

local function zeros_on(devs, shape, dt)
  local outs = {}
  for r, d in ipairs(devs) do outs[r] = on(d, cuarr.zeros, shape, dt) end
  return outs
end

describe("collectives over several devices", function()
  H.multigpu_it("all_reduce and reduce: every op and dtype, in place and into out", function()
    local devs = all_devices()
    local n = #devs
    local comm <close> = D.init { devices = devs }
    assert.are.equal(n, comm.size)
    for _, size in ipairs { 1, 1027 } do
      for _, dt in ipairs(reducible) do
        for _, op in ipairs { "sum", "prod", "max", "min", "avg" } do
          local what = string.format("%s %s %d", dt, op, size)
          local parts, host = parts_of(devs, dt, size, op == "prod")
          local want = {}
          for i = 1, size do
            local col = {}
            for r = 1, n do col[r] = host[r][i] end
            want[i] = combine(op, dt, col)
          end
          local outs = zeros_on(devs, size, dt)
          comm:all_reduce(parts, op, { out = outs })
          for r = 1, n do close_to(dt, want, flat(outs[r]), what .. " out rank " .. (r - 1)) end
          for r = 1, n do close_to(dt, host[r], flat(parts[r]), what .. " input kept") end
          local root = n - 1
          local routs = zeros_on(devs, size, dt)
          comm:reduce(parts, op, root, { out = routs })
          close_to(dt, want, flat(routs[root + 1]), what .. " reduce")
          for r = 1, n - 1 do
            assert.are.same(flat(on(devs[r], cuarr.zeros, size, dt)), flat(routs[r]))
          end
          comm:all_reduce(parts, op)
          for r = 1, n do
            close_to(dt, want, flat(parts[r]), what .. " in place rank " .. (r - 1))
          end
        end
      end
    end
    local b = parts_of(devs, "bool", 9)
    local want_or, want_and = {}, {}
    for i = 0, 8 do
      local any, all = false, true
      for r = 0, n - 1 do
        any = any or value("bool", r, i)
        all = all and value("bool", r, i)
      end
      want_or[i + 1], want_and[i + 1] = any, all
    end
    local o = zeros_on(devs, 9, "bool")
    comm:all_reduce(b, "max", { out = o })
    assert.are.same(want_or, o[1]:totable())
    comm:all_reduce(b, "min")
    assert.are.same(want_and, b[n]:totable())
  end)

  H.multigpu_it("a large float32 all_reduce, and strided parts and outs", function()
    local devs = all_devices()
    local n = #devs
    local comm <close> = D.init { devices = devs }
    local size = (1 << 20) + 3
    local parts = {}
    for r, d in ipairs(devs) do parts[r] = on(d, cuarr.full, size, r, "float32") end
    comm:all_reduce(parts, "sum")
    local total = n * (n + 1) // 2
    for r = 1, n do
      local h = on(devs[r], function() return parts[r]:get() end)
      assert.are.equal(total, h[1])
      assert.are.equal(total, h[size])
      assert.is_true(on(devs[r], function() return parts[r]:eq(total):all() end))
    end
    -- strided views in place: the other columns untouched
    local bases, views = {}, {}
    for r, d in ipairs(devs) do
      bases[r] = on(d, function() return cuarr.full({ 5, 8 }, r, "int32") end)
      views[r] = on(d, function() return bases[r][{ {}, { 2, -1, 3 } }] end)
    end
    comm:all_reduce(views, "sum")
    for r = 1, n do
      local h = bases[r]:totable()
      for i = 1, 5 do
        for j = 1, 8 do
          local want = (j % 3 == 2) and total or r
          assert.are.equal(want, h[i][j])
        end
      end
    end
    -- a transposed out
    local outs = {}
    for r, d in ipairs(devs) do outs[r] = on(d, cuarr.zeros, { 3, 5 }, "int32").T end
    comm:all_reduce(views, "max", { out = outs })
    assert.are.same(views[1]:totable(), outs[n]:totable())
  end)

  H.multigpu_it("broadcast from every root, every dtype", function()
    local devs = all_devices()
    local n = #devs
    local comm <close> = D.init { devices = devs }
    for _, dt in ipairs(H.dtypes) do
      for root = 0, n - 1 do
        local parts, host = parts_of(devs, dt, 33)
        local outs = zeros_on(devs, 33, dt)
        comm:broadcast(parts, root, { out = outs })
        for r = 1, n do assert.are.same(host[root + 1], flat(outs[r]), dt .. " out") end
        comm:broadcast(parts, root)
        for r = 1, n do assert.are.same(host[root + 1], flat(parts[r]), dt .. " in place") end
      end
    end
  end)

  H.multigpu_it("all_gather, reduce_scatter and all_to_all, every dtype", function()
    local devs = all_devices()
    local n = #devs
    local comm <close> = D.init { devices = devs }
    local m = 6
    for _, dt in ipairs(H.dtypes) do
      -- all_gather: rank r's part at out[r + 1]
      local parts, host = parts_of(devs, dt, m, false, { 2, 3 })
      local outs = zeros_on(devs, { n, 2, 3 }, dt)
      comm:all_gather(parts, outs)
      local want = {}
      for r = 1, n do for _, v in ipairs(host[r]) do want[#want + 1] = v end end
      for r = 1, n do assert.are.same(want, flat(outs[r]), dt .. " all_gather") end
      -- ... or concatenated along the first axis
      local cat = zeros_on(devs, { 2 * n, 3 }, dt)
      comm:all_gather(parts, cat)
      assert.are.same(want, flat(cat[n]), dt .. " all_gather concatenated")
      -- all_to_all: chunk p of rank r to chunk r of rank p
      local big, bhost = parts_of(devs, dt, n * m)
      local a2a = zeros_on(devs, n * m, dt)
      comm:all_to_all(big, a2a)
      for p = 1, n do
        local w = {}
        for r = 1, n do
          for k = 1, m do w[#w + 1] = bhost[r][(p - 1) * m + k] end
        end
        assert.are.same(w, flat(a2a[p]), dt .. " all_to_all rank " .. (p - 1))
      end
    end
    for _, dt in ipairs(reducible) do
      for _, op in ipairs { "sum", "max", "min", "prod", "avg" } do
        local parts, host = parts_of(devs, dt, n * m, op == "prod")
        local outs = zeros_on(devs, m, dt)
        comm:reduce_scatter(parts, outs, op)
        for p = 1, n do
          local w = {}
          for k = 1, m do
            local col = {}
            for r = 1, n do col[r] = host[r][(p - 1) * m + k] end
            w[k] = combine(op, dt, col)
          end
          close_to(dt, w, flat(outs[p]), dt .. " " .. op .. " reduce_scatter rank " .. (p - 1))
        end
      end
    end
    for _, dt in ipairs(moved_only) do
      if dt ~= "bool" then
        local parts = parts_of(devs, dt, n)
        H.raises("TypeError", comm.reduce_scatter, comm, parts, zeros_on(devs, 1, dt), "sum")
      end
    end
  end)

  H.multigpu_it("send_recv pairs, a ring, on given streams", function()
    local devs = all_devices()
    local n = #devs
    local comm <close> = D.init { devices = devs }
    for _, dt in ipairs(H.dtypes) do
      local parts, host = parts_of(devs, dt, 50)
      local outs = zeros_on(devs, 50, dt)
      local pairs_ = {}
      for r = 1, n do pairs_[r] = { parts[r], outs[r % n + 1] } end -- rank r-1 to rank r
      comm:send_recv(pairs_)
      for r = 1, n do assert.are.same(host[r], flat(outs[r % n + 1]), dt) end
    end
    local streams = {}
    for r, d in ipairs(devs) do streams[r] = on(d, cuarr.Stream, { non_blocking = true }) end
    local src = on(devs[1], function() return cuarr.arange(20, "float64"):reshape(4, 5).T end)
    local dst = on(devs[2], cuarr.zeros, { 5, 4 }, "float64")
    comm:send_recv({ { src, dst } }, { streams = streams })
    for _, s in ipairs(streams) do s:synchronize() end
    assert.are.same(src:totable(), dst:totable())
    comm:barrier { streams = streams }
    comm:barrier()
  end)

  H.multigpu_it("name both devices when a part is on the wrong one", function()
    local comm <close> = D.init { devices = { 0, 1 } }
    local a0 = on(0, cuarr.zeros, 3)
    local a1 = on(1, cuarr.zeros, 3)
    local err = H.raises("ValueError", comm.all_reduce, comm, { a1, a0 }, "sum")
    assert.matches("device 1", err.message)
    assert.matches("device 0", err.message)
    H.raises("TypeError", comm.all_reduce, comm, { a0, on(1, cuarr.zeros, 3, "float32") }, "sum")
    H.raises("ValueError", comm.all_reduce, comm, { a0, on(1, cuarr.zeros, 4) }, "sum")
    local s0 = on(0, cuarr.Stream)
    err = H.raises("ValueError", comm.all_reduce, comm, { a0, a1 }, "sum", { streams = { s0, s0 } })
    assert.matches("device 0", err.message)
    err = H.raises("ValueError", comm.all_to_all, comm, { a0, a1 }, { a0, a1 })
    assert.matches("equal chunks", err.message)
  end)
end)

-- Peer copies (cuarr.asarray under another device): peer access enabled once per pair where
-- the driver allows it, the bytes exact, strided views and conversions too.
describe("copies between devices", function()
  H.multigpu_it("are exact for every dtype, large, strided and converting", function()
    for _, dt in ipairs(H.dtypes) do
      local host = values(dt, 1, 1000)
      local a = on(0, cuarr.array, host, dt)
      local b = on(1, cuarr.asarray, a)
      assert.are.equal(cuarr.Device(1), b.device)
      assert.are.same(host, flat(b), dt)
    end
    local big = on(0, cuarr.arange, (1 << 24) + 5, "float32")
    local copy = on(1, cuarr.asarray, big)
    local same = on(1, function()
      return copy:eq(cuarr.arange((1 << 24) + 5, "float32")):all()
    end)
    assert.is_true(same)
    local m = on(0, function() return cuarr.arange(60, "int32"):reshape(6, 10) end)
    local view = m[{ { 2, -1, 2 }, { 10, 1, -3 } }]
    local there = on(1, cuarr.asarray, view)
    assert.are.same(view:totable(), there:totable())
    local converted = on(1, cuarr.asarray, view, "float64")
    assert.are.equal("float64", converted.dtype)
    assert.are.same(view:astype("float64"):totable(), converted:totable())
    local half = on(1, cuarr.asarray, m.T, "float16") -- a transpose, converting
    assert.are.same(m.T:astype("float16"):totable(), half:totable())
    -- and back, after peer access was enabled both ways
    local back = on(0, cuarr.asarray, there)
    assert.are.same(view:totable(), back:totable())
  end)
end)

-- One process per GPU through bin/cuarr-run: spec/support/ranks/check_gpu.lua checks every
-- collective's values on each rank; dies.lua has rank 1 exit right after init, and the others
-- must end with a DistributedError within the timeout rather than hang.
describe("one process per GPU (bin/cuarr-run)", function()
  local child = require "spec.support.child"
  local function launch(args, env)
    local t0 = cuarr.perf_counter()
    local ok, out = child.shell("env " .. child.env_words(env) .. " bin/cuarr-run --tag " .. args)
    return ok, out, cuarr.perf_counter() - t0
  end

  H.multigpu_it("every collective over all the GPUs, through the id file and TCP", function()
    local count = cuarr.runtime.device_count
    -- every GPU, and an odd number of ranks where there are more than three
    for _, n in ipairs(count > 3 and { count, 3 } or { count }) do
      local ok, out = launch("-n " .. n .. " spec/support/ranks/check_gpu.lua")
      assert(ok, out)
      for r = 0, n - 1 do assert(out:find(("[%d] rank %d ok"):format(r, r), 1, true), out) end
    end
    local ok, out = launch("-n 2 --master-addr 127.0.0.1 --master-port 29517 "
      .. "spec/support/ranks/check_gpu.lua")
    assert(ok, out)
    assert(out:find("[1] rank 1 ok", 1, true), out)
  end)

  H.multigpu_it("with verify, ranks that disagree all fail alike, and go on", function()
    local ok, out = launch("-n 2 spec/support/ranks/mismatch.lua")
    assert(ok, out)
    for r = 0, 1 do
      local mine = {}
      for line in out:gmatch("%[" .. r .. "%] ([^\n]*)") do mine[#mine + 1] = line end
      assert(mine[1]:match("^TypeError: all_reduce: the ranks disagree"), out)
      assert(mine[2]:match("^ValueError: all_reduce: the ranks disagree"), out)
      assert(mine[3]:match("^DistributedError: [%w_]+: the ranks disagree"), out)
      assert.are.equal(("rank %d ok"):format(r), mine[4])
    end
  end)

  H.multigpu_it("a rank that dies makes the others fail within the timeout", function()
    local n = math.min(cuarr.runtime.device_count, 3)
    local ok, out, seconds = launch("-n " .. n .. " --grace 60 --timeout 10 "
      .. "spec/support/ranks/dies.lua", { CUARR_DIES = "1" })
    assert(not ok, out)
    assert(out:find("rank 1 exited with status 3", 1, true), out)
    assert(out:find("[0] DistributedError: ", 1, true), out)
    assert(out:find("[0] destroyed", 1, true), out)
    assert(seconds < 40, ("the job took %.1f s"):format(seconds))
  end)
end)
