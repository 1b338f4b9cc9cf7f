-- take, put, take_along_axis, put_along_axis, choose, select and a:take, a:put
-- (lua/cuarr/take.lua on src/lua/take.c) against Lua references: every dtype, axes nil, positive
-- and negative, the three modes (raise, wrap, clip), indices as arrays, tables and integers,
-- out, non-contiguous arrays, NumPy's cycling of put's values.  H.backends: host and device.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local cpu = cuarr.cpu

local T, count, at, each_index = A.tensor, A.count, A.at, A.each_index

local function make(shape, dtype, seed)
  local n = count(shape)
  local values = {}
  for i = 1, n do values[i] = (seed + 5 * i) % 37 end
  local h = cpu.array(values, "int64")
  if dtype == "bool" then h = h:gt(18) else h = h:astype(dtype) end
  return h:reshape(shape)
end

local to = A.to

local function same(got, want, what)
  local g = T(got)
  assert.are.same(want.shape, g.shape, what)
  assert.are.same(want.data, g.data, what)
end

-- A 1-based index value v along n positions under mode, as a 0-based position.
local function position(v, n, mode)
  if mode == "clip" then
    local q = v - 1
    return q < 0 and 0 or (q >= n and n - 1 or q)
  end
  local q = v < 0 and v + n or v - 1
  if mode == "wrap" then return q % n end
  assert(q >= 0 and q < n, "the reference got a bad index")
  return q
end

-- take's reference: t along axis ax (1-based; nil: flattened) at the index tensor it.
local function ref_take(t, it, ax, mode)
  if ax == nil then t, ax = { shape = { #t.data }, data = t.data }, 1 end
  local shape = {}
  for d = 1, ax - 1 do shape[#shape + 1] = t.shape[d] end
  for _, e in ipairs(it.shape) do shape[#shape + 1] = e end
  for d = ax + 1, #t.shape do shape[#shape + 1] = t.shape[d] end
  local data = {}
  each_index(shape, function(ix)
    local sidx = {}
    for d = 1, ax - 1 do sidx[d] = ix[d] end
    local iix = {}
    for j = 1, #it.shape do iix[j] = ix[ax - 1 + j] end
    sidx[ax] = position(it.data[at(it.shape, iix)], t.shape[ax], mode)
    for d = ax + 1, #t.shape do sidx[d] = ix[d + #it.shape - 1] end
    data[#data + 1] = t.data[at(t.shape, sidx)]
  end)
  return { shape = shape, data = data }
end

for _, b in ipairs(H.backends) do
  local xp = b.xp

  b.it("take of every dtype along every axis and flattened, in each mode", function()
    for _, dt in ipairs(H.dtypes) do
      local h = make({ 3, 4, 5 }, dt, 2)
      local a = to(b, h)
      for _, mode in ipairs({ "raise", "wrap", "clip" }) do
        local vals = mode == "raise" and { 2, -1, 1, 2 } or { 0, 7, -9, 3, 21 }
        local ih = cpu.array(vals, "int32")
        for _, axis in ipairs({ 1, 2, 3, -1, -3 }) do
          local ax = axis < 0 and axis + 4 or axis
          same(xp.take(a, to(b, ih), axis, { mode = mode }), ref_take(T(h), T(ih), ax, mode),
            dt .. " axis " .. axis .. " " .. mode)
        end
        same(xp.take(a, to(b, ih), nil, { mode = mode }), ref_take(T(h), T(ih), nil, mode),
          dt .. " flat " .. mode)
      end
    end
  end)

  b.it("take with tables, integers, 2-D and empty indices, out and a:take", function()
    local h = make({ 4, 6 }, "float32", 1)
    local a = to(b, h)
    same(xp.take(a, { 3, 1, -1 }, 2), ref_take(T(h), { shape = { 3 }, data = { 3, 1, -1 } }, 2),
      "table")
    same(xp.take(a, -2, 1), ref_take(T(h), { shape = {}, data = { -2 } }, 1), "integer")
    local i2 = cpu.array({ { 1, 2 }, { 4, 4 } }, "uint8")
    same(a:take(to(b, i2), 1), ref_take(T(h), T(i2), 1), "2-D indices, method")
    same(a:take(cpu.zeros({ 0 }, "int64"), 2), ref_take(T(h), { shape = { 0 }, data = {} }, 2),
      "empty")
    local out = xp.zeros({ 4, 2 }, "float64")
    local r = xp.take(a, to(b, cpu.array({ 6, 1 })), 2, { out = out })
    assert.are.equal(out, r)
    same(out, ref_take(T(h), { shape = { 2 }, data = { 6, 1 } }, 2), "out")
    -- a transposed and a stepped source
    same(xp.take(a.T, { 2, 2 }, 1), ref_take(T(h.T), { shape = { 2 }, data = { 2, 2 } }, 1), "T")
    local st = h[{ {}, { 6, 1, -2 } }]
    same(xp.take(to(b, st), { 3, 1 }, -1), ref_take(T(st), { shape = { 2 }, data = { 3, 1 } }, 2),
      "stepped")
  end)

  b.it("put writes the flat positions, cycling the values, in each mode", function()
    for _, dt in ipairs(H.dtypes) do
      local h = make({ 2, 5 }, dt, 3)
      local function ref(idx, vals, mode)
        local t = T(h)
        for i, v in ipairs(idx) do
          t.data[position(v, 10, mode) + 1] = vals[(i - 1) % #vals + 1]
        end
        return t
      end
      local a = to(b, h)
      local vals = T(make({ 2 }, dt, 9)).data
      xp.put(a, { 1, -1, 4 }, to(b, make({ 2 }, dt, 9)))
      same(a, ref({ 1, -1, 4 }, vals), dt .. " cycled")
      a = to(b, h)
      a:put(to(b, cpu.array({ 0, 11, -13 })), to(b, make({ 3 }, dt, 9)), "wrap")
      same(a, ref({ 0, 11, -13 }, T(make({ 3 }, dt, 9)).data, "wrap"), dt .. " wrap")
      a = to(b, h)
      xp.put(a, { 0, 99 }, to(b, make({ 1 }, dt, 4)), "clip")
      same(a, ref({ 0, 99 }, T(make({ 1 }, dt, 4)).data, "clip"), dt .. " clip")
    end
  end)

  b.it("put into a non-contiguous array writes through to it", function()
    local base = to(b, make({ 4, 4 }, "int32", 1))
    local v = base.T
    xp.put(v, { 2, 5 }, { -1, -2 })
    local want = T(make({ 4, 4 }, "int32", 1).T)
    want.data[2], want.data[5] = -1, -2
    same(v, want, "through the transpose")
  end)

  b.it("take_along_axis and put_along_axis against the reference", function()
    local h = make({ 3, 4 }, "float64", 6)
    local t = T(h)
    local a = to(b, h)
    local ih = cpu.array({ { 4, 1 }, { 2, 2 }, { -1, 3 } })
    local got = xp.take_along_axis(a, to(b, ih), 2)
    local it = T(ih)
    local want = { shape = { 3, 2 }, data = {} }
    each_index({ 3, 2 }, function(ix)
      local v = it.data[at({ 3, 2 }, ix)]
      want.data[#want.data + 1] = t.data[at({ 3, 4 }, { ix[1], position(v, 4) })]
    end)
    same(got, want, "axis 2")
    local i1 = cpu.array({ { 3, 1, 1, 2 } })
    local got1 = xp.take_along_axis(a, to(b, i1), -2)
    local w1 = { shape = { 1, 4 }, data = {} }
    for j = 0, 3 do w1.data[j + 1] = t.data[at({ 3, 4 }, { position(T(i1).data[j + 1], 3), j })] end
    same(got1, w1, "axis -2")
    same(xp.take_along_axis(a, to(b, cpu.array({ 12, 1 })), nil),
      { shape = { 2 }, data = { t.data[12], t.data[1] } }, "flattened")
    local p = to(b, h)
    xp.put_along_axis(p, to(b, cpu.array({ { 2 }, { 4 }, { 1 } })), -5, 2)
    local wp = T(h)
    wp.data[at({ 3, 4 }, { 0, 1 })] = -5
    wp.data[at({ 3, 4 }, { 1, 3 })] = -5
    wp.data[at({ 3, 4 }, { 2, 0 })] = -5
    same(p, wp, "put_along_axis")
    local f = to(b, h)
    xp.put_along_axis(f, to(b, cpu.array({ 1, 12 })), to(b, cpu.array({ 7.5, 8.5 })), nil)
    local wf = T(h)
    wf.data[1], wf.data[12] = 7.5, 8.5
    same(f, wf, "put_along_axis flattened")
  end)

  b.it("choose picks from the choices (numbered from 1), broadcast, in each mode", function()
    local c1 = to(b, cpu.array({ 1, 2, 3, 4 }, "int32"))
    local c2 = to(b, cpu.array({ { 10 }, { 20 } }, "int32"))
    local c3 = to(b, cpu.array({ 100, 200, 300, 400 }, "int32"))
    local ia = to(b, cpu.array({ { 1, 2, 3, 1 }, { 3, 3, 2, 1 } }))
    same(xp.choose(ia, { c1, c2, c3 }),
      { shape = { 2, 4 }, data = { 1, 10, 300, 4, 100, 200, 20, 4 } }, "raise")
    local iw = to(b, cpu.array({ 0, 4, -1, 5 }))
    same(xp.choose(iw, { c1, c3, c1 }, { mode = "wrap" }),
      { shape = { 4 }, data = { 1, 2, 3, 400 } }, "wrap")
    same(xp.choose(iw, { c1, c3 }, { mode = "clip" }), { shape = { 4 }, data = { 1, 200, 3, 400 } },
      "clip")
    local stacked = to(b, cpu.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "float32"))
    same(xp.choose(to(b, cpu.array({ 2, 1, 2 })), stacked), { shape = { 3 }, data = { 4, 2, 6 } },
      "an array of choices")
  end)

  b.it("select takes the first true condition's choice, the default elsewhere", function()
    local x = to(b, cpu.arange(6))
    local r = xp.select({ x:lt(2), x:gt(3), x:gt(0) }, { x, x:multiply(10), 100 }, -1)
    same(r, { shape = { 6 }, data = { 0, 1, 100, 100, 40, 50 } }, "select")
    same(xp.select({ x:gt(4) }, { x }), { shape = { 6 }, data = { 0, 0, 0, 0, 0, 5 } }, "default 0")
  end)
end
