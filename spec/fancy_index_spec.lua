-- Indexing with integer and boolean arrays (src/lua/array_index.c, src/core/index/gather*.c,
-- scatter.c): a[idx], a[mask] and a[{...}] mixing index arrays, integers, ranges and newaxis, and
-- assignment through them, against a Lua reference of NumPy's advanced indexing (1-based): every
-- dtype of the array and every integer dtype of the index, negative indices, repeats, broadcast
-- index arrays, both placements of the index axes, 0-d and empty index arrays, non-contiguous
-- arrays and index views, boolean arrays inside table keys.  H.backends: host and device (#gpu,
-- one kernel launch per gather), compared with the same reference.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local cpu = cuarr.cpu

local T, count, at, each_index = A.tensor, A.count, A.at, A.each_index

-- ---------------------------------------------------------------- the reference

-- Entries of a key: { "i", v } an integer, { "r", start, stop, step } a range (nil bounds: the
-- defaults), { "n" } newaxis, { "a", values, shape, dtype } an integer index array,
-- { "b", values (0/1), shape } a boolean one.  The reference works on tensors (A.tensor).

local function range_positions(n, start, stop, step)
  step = step or 1
  start = start or (step > 0 and 1 or -1)
  stop = stop or (step > 0 and -1 or 1)
  local function pos(i) return i > 0 and i or n + 1 + i end
  local s, e = pos(start), pos(stop)
  local out = {}
  if step > 0 then
    for i = math.max(s, 1), math.min(e, n), step do out[#out + 1] = i end
  else
    for i = math.min(s, n), math.max(e, 1), step do out[#out + 1] = i end
  end
  return out
end

local function broadcast(shapes)
  local nb = 0
  for _, s in ipairs(shapes) do nb = math.max(nb, #s) end
  local out = {}
  for i = 1, nb do out[i] = 1 end
  for _, s in ipairs(shapes) do
    for j = 1, #s do
      local i = nb - #s + j
      if s[j] ~= 1 then out[i] = s[j] end
    end
  end
  return out
end

-- The element of tensor-like {shape, data} at the broadcast 0-based index bix (of B's ndim).
local function pick(t, bix)
  local sub = {}
  for j = 1, #t.shape do sub[j] = t.shape[j] == 1 and 0 or bix[#bix - #t.shape + j] end
  return t.data[at(t.shape, sub)]
end

-- The result's shape and, for each of its elements in C order, the flat 1-based position in
-- the source (of shape `shape`) it comes from.
local function ref_positions(shape, entries)
  local ents = {}
  for _, e in ipairs(entries) do
    if e[1] == "b" then
      local idxs = {}
      for d = 1, #e[3] do idxs[d] = {} end
      each_index(e[3], function(ix)
        if e[2][at(e[3], ix)] ~= 0 then
          for d = 1, #ix do idxs[d][#idxs[d] + 1] = ix[d] + 1 end
        end
      end)
      for d = 1, #e[3] do ents[#ents + 1] = { "a", idxs[d], { #idxs[d] } } end
    elseif e[1] == "i" then
      ents[#ents + 1] = { "a", { e[2] }, {} }
    else
      ents[#ents + 1] = e
    end
  end
  local slots, adv, src = {}, {}, 0
  local first, last, split
  for k, e in ipairs(ents) do
    if e[1] == "r" then
      src = src + 1
      slots[#slots + 1] = { src = src, pos = range_positions(shape[src], e[2], e[3], e[4]) }
    elseif e[1] == "n" then
      slots[#slots + 1] = { pos = { 0 } }
    else
      src = src + 1
      adv[#adv + 1] = { src = src, t = { shape = e[3], data = e[2] } }
      if not first then first = #slots elseif last ~= k - 1 then split = true end
      last = k
    end
  end
  for d = src + 1, #shape do
    slots[#slots + 1] = { src = d, pos = range_positions(shape[d], 1, -1, 1) }
  end
  local bshapes = {}
  for i, x in ipairs(adv) do bshapes[i] = x.t.shape end
  local B = broadcast(bshapes)
  local place = split and 0 or first
  local rshape, layout = {}, {}
  local function put_b()
    for _, e in ipairs(B) do
      rshape[#rshape + 1] = e
      layout[#layout + 1] = "b"
    end
  end
  for i, s in ipairs(slots) do
    if i - 1 == place then put_b() end
    rshape[#rshape + 1] = #s.pos
    layout[#layout + 1] = s
  end
  if place == #slots then put_b() end
  local positions = {}
  each_index(rshape, function(ix)
    local sidx, bix = {}, {}
    for d, l in ipairs(layout) do
      if l == "b" then
        bix[#bix + 1] = ix[d]
      elseif l.src then
        sidx[l.src] = l.pos[ix[d] + 1] - 1
      end
    end
    for _, x in ipairs(adv) do
      local v = pick(x.t, bix)
      local n = shape[x.src]
      sidx[x.src] = v < 0 and v + n or v - 1
    end
    positions[#positions + 1] = at(shape, sidx)
  end)
  return rshape, positions
end

local function ref_get(t, entries)
  local shape, positions = ref_positions(t.shape, entries)
  local data = {}
  for i, p in ipairs(positions) do data[i] = t.data[p] end
  return { shape = shape, data = data }
end

-- t with values (a tensor, broadcast to the selection) written through the key, in C order.
local function ref_set(t, entries, v)
  local shape, positions = ref_positions(t.shape, entries)
  local data = {}
  for i, x in ipairs(t.data) do data[i] = x end
  local i = 0
  each_index(shape, function(ix)
    i = i + 1
    data[positions[i]] = pick(v, ix)
  end)
  return { shape = t.shape, data = data }
end

-- ---------------------------------------------------------------- inputs

-- A host array of shape and dtype holding small integers (exact in every dtype).
local function make(shape, dtype, seed)
  local n = count(shape)
  local values = {}
  for i = 1, n do values[i] = (seed + 7 * i) % 61 end
  local h = cpu.array(values, "int64")
  if dtype == "bool" then h = h:gt(30) else h = h:astype(dtype) end
  return h:reshape(shape)
end

local to = A.to

-- The key of the entries for backend b: index arrays made there (dtype as given).
local function key_of(b, entries)
  local key = {}
  for i, e in ipairs(entries) do
    if e[1] == "i" then
      key[i] = e[2]
    elseif e[1] == "r" then
      key[i] = { e[2], e[3], e[4] }
      if e[2] == nil and e[3] == nil and e[4] == nil then key[i] = {} end
    elseif e[1] == "n" then
      key[i] = cuarr.newaxis
    elseif e[1] == "a" then
      local x = #e[2] > 0 and cpu.array(e[2], "int64") or cpu.zeros({ 0 }, "int64")
      key[i] = to(b, x:astype(e[4] or "int64"):reshape(e[3]))
    else
      key[i] = to(b, cpu.array(e[2], "int64"):reshape(e[3]):astype("bool"))
    end
  end
  return key
end

local function same(got, want, what)
  local g = T(got)
  assert.are.same(want.shape, g.shape, what)
  assert.are.same(want.data, g.data, what)
end

-- ---------------------------------------------------------------- cases

local SIGNED = { "int8", "int16", "int32", "int64" }
local UNSIGNED = { "uint8", "uint16", "uint32", "uint64" }

-- Keys on a (4, 5, 6) array: each a list of entries.
local keys3 = {
  { "one index array", { { "a", { 3, 1, 4, 1 }, { 4 } } } },
  { "negative indices and repeats", { { "a", { -1, 2, -4, 2, -1 }, { 5 } } } },
  { "a 2-D index array", { { "a", { 1, 2, 3, 4, 4, 1 }, { 2, 3 } } } },
  { "a 0-d index array", { { "a", { -2 }, {} } } },
  { "an empty index array", { { "a", {}, { 0 } } } },
  { "an index array on the second axis", { { "r" }, { "a", { 5, 1, -1 }, { 3 } } } },
  { "an index array on the last axis", { { "r" }, { "r" }, { "a", { 6, 1, 2, 2 }, { 4 } } } },
  { "two adjacent index arrays (in place)",
    { { "r" }, { "a", { 1, 5, 2 }, { 3 } }, { "a", { 6, 1, -1 }, { 3 } } } },
  { "two separated index arrays (first)",
    { { "a", { 1, 4, 2 }, { 3 } }, { "r" }, { "a", { 6, 1, -1 }, { 3 } } } },
  { "broadcast index arrays",
    { { "a", { 1, 4, 2 }, { 3, 1 } }, { "a", { 2, 5 }, { 2 } } } },
  { "an integer beside an index array (adjacent)",
    { { "r" }, { "i", 2 }, { "a", { 6, 1 }, { 2 } } } },
  { "an integer and an index array split by a range",
    { { "i", -1 }, { "r" }, { "a", { 6, 1 }, { 2 } } } },
  { "three index arrays", { { "a", { 1, 4 }, { 2 } }, { "a", { 5, 1 }, { 2 } },
    { "a", { 6, -6 }, { 2 } } } },
  { "ranges with steps around an index array",
    { { "r", -1, 1, -2 }, { "a", { 2, 4 }, { 2 } }, { "r", 2, 6, 3 } } },
  { "newaxis before an index array", { { "n" }, { "a", { 3, 1 }, { 2 } } } },
  { "newaxis between index arrays (first)",
    { { "a", { 3, 1 }, { 2 } }, { "n" }, { "a", { 5, 2 }, { 2 } } } },
  { "a boolean array inside a table",
    { { "r" }, { "b", { 1, 0, 1, 1, 0 }, { 5 } } } },
  { "a 2-D boolean array inside a table with an index array",
    { { "b", { 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1 }, { 4, 5 } },
      { "a", { 2 }, { 1 } } } },
}

for _, b in ipairs(H.backends) do
  local xp = b.xp

  b.it("a[idx] for every dtype of the array and of the index", function()
    for _, dt in ipairs(H.dtypes) do
      local h = make({ 5, 3 }, dt, 11)
      local a = to(b, h)
      for _, it in ipairs(SIGNED) do
        local e = { { "a", { 3, -1, 1, 3, -5 }, { 5 }, it } }
        same(a[key_of(b, e)[1]], ref_get(T(h), e), dt .. " by " .. it)
      end
      for _, it in ipairs(UNSIGNED) do
        local e = { { "a", { 3, 5, 1, 3 }, { 4 }, it } }
        same(a[key_of(b, e)[1]], ref_get(T(h), e), dt .. " by " .. it)
        assert.are.equal(dt, a[key_of(b, e)[1]].dtype)
      end
      -- 1-D: the flat take on the device (vectors of four indices, then the rest one by one)
      local h1 = make({ 7 }, dt, 4)
      for _, it in ipairs({ "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64" }) do
        local vals = { 7, 1, 2, 2, 6, 3, 1, 5, 4 }
        if it:sub(1, 1) == "i" then vals[2], vals[7] = -7, -1 end
        local e = { { "a", vals, { 9 }, it } }
        same(to(b, h1)[key_of(b, e)[1]], ref_get(T(h1), e), dt .. " 1-D by " .. it)
      end
    end
  end)

  for _, case in ipairs(keys3) do
    b.it("a[{...}]: " .. case[1] .. " matches the reference", function()
      for _, dt in ipairs({ "float32", "int16", "bool", "float64" }) do
        local h = make({ 4, 5, 6 }, dt, 3)
        local got = to(b, h)[key_of(b, case[2])]
        same(got, ref_get(T(h), case[2]), case[1] .. " " .. dt)
        assert.are.equal(b.name == "cpu" and "cpu" or "gpu", got.device == "cpu" and "cpu" or "gpu")
      end
    end)
  end

  b.it("non-contiguous arrays and index views", function()
    local h = make({ 6, 8 }, "float32", 5)
    local views = {
      { "transposed", h.T },
      { "stepped", h[{ { 1, -1, 2 }, { 8, 1, -3 } }] },
      { "reversed", h[{ { -1, 1, -1 } }] },
    }
    local ih = cpu.array({ 1, 3, 2, -1, 2, 1 }, "int32")
    local iviews = {
      { "stepped index", ih[{ { 1, -1, 2 } }] },
      { "reversed index", ih[{ { -1, 1, -1 } }] },
      { "transposed index", ih:reshape({ 2, 3 }).T },
    }
    for _, v in ipairs(views) do
      local a = to(b, v[2])
      for _, iv in ipairs(iviews) do
        local it = T(iv[2])
        local e = { { "r" }, { "a", it.data, it.shape } }
        local key = { {}, to(b, iv[2]) }
        same(a[key], ref_get(T(v[2]), e), v[1] .. " by " .. iv[1])
        local e2 = { { "a", it.data, it.shape } }
        same(a[to(b, iv[2])], ref_get(T(v[2]), e2), v[1] .. " rows by " .. iv[1])
      end
    end
  end)

  b.it("a[mask] with a boolean array of a's shape or leading extents", function()
    local h = make({ 3, 4 }, "int32", 2)
    local a = to(b, h)
    local mh = h:gt(30)
    local m = T(mh)
    same(a[to(b, mh)], ref_get(T(h), { { "b", m.data, m.shape } }), "full mask")
    local rows = cpu.array({ true, false, true })
    same(a[to(b, rows)], ref_get(T(h), { { "b", { 1, 0, 1 }, { 3 } } }), "row mask")
    same(a[{ to(b, rows) }], ref_get(T(h), { { "b", { 1, 0, 1 }, { 3 } } }), "row mask in a table")
  end)

  b.it("assignment of scalars, arrays (broadcast) and tables through every kind of key", function()
    for _, case in ipairs(keys3) do
      for _, dt in ipairs({ "float32", "uint8", "int64" }) do
        local h = make({ 4, 5, 6 }, dt, 9)
        local shape = ref_positions(h.shape, case[2])
        -- unique positions only: repeated ones are tested on their own below
        local _, pos = ref_positions(h.shape, case[2])
        local seen, unique = {}, true
        for _, p in ipairs(pos) do
          if seen[p] then unique = false end
          seen[p] = true
        end
        if unique then
          local a = to(b, h)
          a[key_of(b, case[2])] = 42
          same(a, ref_set(T(h), case[2], { shape = {}, data = { 42 } }), case[1] .. " scalar")
          -- an array of the selection's last extent, broadcast
          local last = #shape > 0 and shape[#shape] or 1
          local vals = {}
          for i = 1, last do vals[i] = 50 + i end
          local v = cpu.array(vals, "int64"):astype(dt)
          if #shape == 0 then v = v:reshape({}) end
          a = to(b, h)
          a[key_of(b, case[2])] = to(b, v)
          same(a, ref_set(T(h), case[2], T(v)), case[1] .. " array")
          if #shape > 0 then
            a = to(b, h)
            a[key_of(b, case[2])] = vals
            same(a, ref_set(T(h), case[2], T(v)), case[1] .. " table")
          end
        end
      end
    end
  end)

  b.it("assignment through a mask and a mask inside a table", function()
    local h = make({ 3, 4 }, "float64", 4)
    local a = to(b, h)
    local mh = h:gt(30)
    a[to(b, mh)] = -1
    same(a, ref_set(T(h), { { "b", T(mh).data, h.shape } }, { shape = {}, data = { -1 } }), "mask")
    a = to(b, h)
    a[{ {}, to(b, cpu.array({ false, true, true, false })) }] = to(b, cpu.array({ 7, 8 }))
    same(a, ref_set(T(h), { { "r" }, { "b", { 0, 1, 1, 0 }, { 4 } } },
      { shape = { 2 }, data = { 7, 8 } }), "mask in a table")
  end)

  b.it("repeated indices in an assignment: one of the values is written", function()
    local a = xp.zeros({ 4 }, "int32")
    a[to(b, cpu.array({ 2, 2, 2, 4 }))] = to(b, cpu.array({ 5, 6, 7, 8 }))
    local t = a:totable()
    assert.are.equal(0, t[1])
    assert.are.equal(0, t[3])
    assert.are.equal(8, t[4])
    assert.is_true(t[2] == 5 or t[2] == 6 or t[2] == 7)
    if b.name == "cpu" then assert.are.equal(7, t[2]) end -- the host: the last, as NumPy
  end)

  b.it("values of another dtype are converted, values overlapping the array are read first",
    function()
      local a = to(b, cpu.array({ 1, 2, 3, 4, 5 }, "int16"))
      a[to(b, cpu.array({ 1, 5 }))] = to(b, cpu.array({ 2.75, -1.5 }, "float64"))
      assert.are.same({ 2, 2, 3, 4, -1 }, a:totable())
      local c = to(b, cpu.arange(6))
      c[to(b, cpu.array({ 2, 3, 4, 5, 6 }))] = c[{ { 1, 5 } }]
      assert.are.same({ 0, 0, 1, 2, 3, 4 }, c:totable())
      local d = to(b, cpu.array({ 3, 1, 2 }))
      d[d] = to(b, cpu.array({ 10, 20, 30 }))
      assert.are.same({ 20, 30, 10 }, d:totable())
    end)

  b.it("results are copies, C-contiguous, of the array's dtype", function()
    local h = make({ 4, 3 }, "float16", 1)
    local a = to(b, h)
    local r = a[to(b, cpu.array({ 2, 2 }))]
    assert.is_true(r.flags.c_contiguous)
    assert.are.equal("float16", r.dtype)
    r[{ 1, 1 }] = 99
    same(a, T(h), "the source is unchanged")
  end)

  b.it("a 0-d index array on a 1-D array gives a 0-d array", function()
    local a = to(b, cpu.array({ 4.5, 5.5, 6.5 }))
    local r = a[to(b, cpu.array(-1, "int8"))]
    assert.are.same({}, T(r).shape)
    assert.are.equal(6.5, r:item())
  end)

  b.it("an empty selection along another axis still checks its indices", function()
    local a = xp.zeros({ 3, 0 })
    assert.are.same({ 2, 0 }, T(a[to(b, cpu.array({ 1, 3 }))]).shape)
    H.raises("IndexError", function() return a[to(b, cpu.array({ 4 }))] end)
  end)
end

H.gpu_it("host index arrays (and masks) index device arrays: they are copied over", function()
  local h = make({ 5, 3 }, "int32", 8)
  local a = cuarr.asarray(h)
  local idx = cpu.array({ 5, 1, -2 })
  same(a[idx], ref_get(T(h), { { "a", { 5, 1, -2 }, { 3 } } }), "host index")
  assert.is_true(a[idx].device ~= "cpu")
  same(a[{ {}, cpu.array({ 3, 3 }) }], ref_get(T(h), { { "r" }, { "a", { 3, 3 }, { 2 } } }),
    "host index in a table")
  a[cpu.array({ 2 })] = 0
  same(a, ref_set(T(h), { { "a", { 2 }, { 1 } } }, { shape = {}, data = { 0 } }), "assignment")
end)

H.gpu_it("a large gather off the block size matches the host (random indices)", function()
  local n = 1000003
  local rng = H.rng(12345)
  local vals = {}
  for i = 1, n do vals[i] = rng.int(-n, n) end
  for i = 1, n do if vals[i] == 0 then vals[i] = 1 end end
  local ih = cpu.array(vals, "int64")
  local ah = cpu.arange(n):astype("float32")
  local want = ah[ih]
  local got = cuarr.asarray(ah)[cuarr.asarray(ih)]
  assert.are.same(want:totable(), got:get():totable())
  -- and scattered back: a permutation
  local perm = cuarr.asarray(cpu.arange(n):add(1)[{ { -1, 1, -1 } }])
  local d = cuarr.zeros({ n }, "float32")
  d[perm] = cuarr.asarray(ah)
  assert.are.same(ah[{ { -1, 1, -1 } }]:totable(), d:get():totable())
end)

H.gpu_it("a gather of more than eight collapsed axes walks in pieces", function()
  local shape = { 2, 3, 2, 3, 2, 3, 2, 3, 2, 2 }
  local h = make(shape, "int32", 1)
  -- transposed: no two axes merge
  local hv = h.T
  local e = { { "r", -1, 1, -1 }, { "a", { 2, 1, 2 }, { 3 } } }
  local got = cuarr.asarray(hv)[key_of({ name = "gpu" }, e)]
  same(got, ref_get(T(hv), e), "ten axes")
end)
