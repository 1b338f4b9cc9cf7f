-- tile, repeat, flip, fliplr, flipud, roll, rot90, moveaxis, rollaxis, broadcast_to,
-- broadcast_arrays, atleast_1d/2d/3d, pad, diag, diagflat, tril, triu, meshgrid and indices
-- (lua/cuarr/rearrange.lua, lua/cuarr/pad.lua, src/lua/rearrange.c) against plain-Lua
-- references: every dtype (uint64 with its high bit set), 0-d, empty and non-contiguous inputs
-- (transposed, stepped, reversed), negative axes, every pad mode with widths past the axis;
-- views where NumPy gives views.  #gpu: the same on device arrays, compared with the reference.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local cpu = cuarr.cpu

local count, at, each_index = A.count, A.at, A.each_index

-- ---------------------------------------------------------------- references

-- x as { shape, data }: the data flat in C order, uint64 as its 64 bits (A.values), so that
-- values past 2^53 compare exactly.
local function T(x)
  local h = x.device == "cpu" and x or x:get()
  local shape = {}
  for i, n in ipairs(h.shape) do shape[i] = n end
  return { shape = shape, data = A.values(h) }
end

-- The tensor of `shape` whose element at a 0-based index idx is t's at from(idx), or the
-- value from(idx) returns second when the first is nil.
local function gather(t, shape, from)
  local data = {}
  each_index(shape, function(idx)
    local src, value = from(idx)
    if src then
      data[#data + 1] = t.data[at(t.shape, src)]
    else
      data[#data + 1] = value
    end
  end)
  return { shape = shape, data = data }
end

local function same(got, want, what)
  local g = T(got)
  assert.are.same(want.shape, g.shape, what)
  assert.are.same(want.data, g.data, what)
end

local function copy_list(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  return c
end

-- ---------------------------------------------------------------- inputs

local FLOATS = { float16 = true, float32 = true, float64 = true }

-- A host array of shape and dtype, distinct-ish values from `seed`: small integers (halves for
-- floats), bool alternating runs, uint64 with its high bit set on some.
local function make(shape, dtype, seed)
  local n = count(shape)
  local values = {}
  for i = 1, n do values[i] = (seed + 7 * i) % 61 - 30 end
  local h = cpu.array(n > 0 and values or {}, "int64")
  if dtype == "bool" then
    h = h:gt(0)
  elseif dtype == "uint64" then
    h = h:astype("uint64") -- negatives wrap to 2^64 - k
  elseif FLOATS[dtype] then
    h = h:astype("float64"):multiply(0.5):astype(dtype)
  else
    h = h:astype(dtype)
  end
  return h:reshape(shape)
end

local function on(b, h)
  if b.name == "cpu" then return h end
  return cuarr.asarray(h)
end

-- An array of `shape` on backend b laid out as `kind` ("C", "T": a transpose, "step": every
-- other element of the last axis, "rev": the first axis reversed), and its reference.
local function layout(b, shape, dtype, seed, kind)
  local nd = #shape
  local arr
  if kind == "T" and nd >= 2 then
    local rev = {}
    for i = 1, nd do rev[nd + 1 - i] = shape[i] end
    arr = on(b, make(rev, dtype, seed)).T
  elseif kind == "step" and nd >= 1 then
    local big = copy_list(shape)
    big[nd] = 2 * big[nd]
    local index = {}
    for d = 1, nd do index[d] = {} end
    index[nd] = big[nd] > 0 and { 1, -1, 2 } or {}
    arr = on(b, make(big, dtype, seed))[index]
  elseif kind == "rev" and nd >= 1 and shape[1] > 0 then
    local index = {}
    for d = 1, nd do index[d] = {} end
    index[1] = { -1, 1, -1 }
    arr = on(b, make(shape, dtype, seed))[index]
  else
    arr = on(b, make(shape, dtype, seed))
  end
  return arr, T(arr)
end

local KINDS = { "C", "T", "step", "rev" }
local SAMPLE_DTYPES = { "bool", "int8", "uint64", "float16", "float64" }

-- ---------------------------------------------------------------- reference functions

local function ref_flip(t, axes)
  local flip = {}
  for _, ax in ipairs(axes) do flip[ax] = true end
  return gather(t, t.shape, function(idx)
    local src = {}
    for d = 1, #idx do src[d] = flip[d] and t.shape[d] - 1 - idx[d] or idx[d] end
    return src
  end)
end

local function ref_tile(t, reps)
  local nd = math.max(#t.shape, #reps)
  local s, r = {}, {}
  for d = 1, nd do
    s[d] = t.shape[d - (nd - #t.shape)] or 1
    r[d] = reps[d - (nd - #reps)] or 1
  end
  local shape = {}
  for d = 1, nd do shape[d] = s[d] * r[d] end
  return gather(t, shape, function(idx)
    local src = {}
    for d = nd - #t.shape + 1, nd do src[#src + 1] = idx[d] % s[d] end
    return src
  end)
end

-- repeat along ax (1-based) with counts (one per element, or one for all).
local function ref_repeat(t, counts, ax)
  local n = t.shape[ax]
  local map = {}
  for i = 1, n do
    for _ = 1, counts[#counts == 1 and 1 or i] do map[#map + 1] = i - 1 end
  end
  local shape = copy_list(t.shape)
  shape[ax] = #map
  return gather(t, shape, function(idx)
    local src = copy_list(idx)
    src[ax] = map[idx[ax] + 1]
    return src
  end)
end

local function ref_roll(t, shifts) -- shifts[d]: the shift of axis d
  return gather(t, t.shape, function(idx)
    local src = {}
    for d = 1, #idx do src[d] = (idx[d] - (shifts[d] or 0)) % t.shape[d] end
    return src
  end)
end

local function ref_permute(t, perm) -- out axis d is in axis perm[d]
  local shape = {}
  for d = 1, #perm do shape[d] = t.shape[perm[d]] end
  return gather(t, shape, function(idx)
    local src = {}
    for d = 1, #perm do src[perm[d]] = idx[d] end
    return src
  end)
end

local function ref_rot90(t, k, a0, a1)
  k = k % 4
  local shape = copy_list(t.shape)
  if k % 2 == 1 then shape[a0], shape[a1] = shape[a1], shape[a0] end
  local n0, n1 = t.shape[a0], t.shape[a1]
  return gather(t, shape, function(idx)
    local src = copy_list(idx)
    if k == 1 then
      src[a0], src[a1] = idx[a1], n1 - 1 - idx[a0]
    elseif k == 2 then
      src[a0], src[a1] = n0 - 1 - idx[a0], n1 - 1 - idx[a1]
    elseif k == 3 then
      src[a0], src[a1] = n0 - 1 - idx[a1], idx[a0]
    end
    return src
  end)
end

local function ref_broadcast(t, shape)
  local off = #shape - #t.shape
  return gather(t, shape, function(idx)
    local src = {}
    for d = 1, #t.shape do src[d] = t.shape[d] == 1 and 0 or idx[d + off] end
    return src
  end)
end

-- pad: widths[d] = {before, after}; mode's index map per axis, NumPy's corners for constants.
local function pad_index(mode, i, b, n)
  local m = i - b
  if mode == "edge" then return math.min(math.max(m, 0), n - 1) end
  if mode == "wrap" then return m % n end
  if mode == "reflect" then
    if n == 1 then return 0 end
    local p = m % (2 * (n - 1))
    return p < n and p or 2 * (n - 1) - p
  end
  local p = m % (2 * n) -- symmetric
  return p < n and p or 2 * n - 1 - p
end

local function ref_pad(t, widths, mode, values)
  local shape = {}
  for d, n in ipairs(t.shape) do shape[d] = widths[d][1] + n + widths[d][2] end
  return gather(t, shape, function(idx)
    local src, last, side = {}, nil, nil
    for d = 1, #idx do
      local m = idx[d] - widths[d][1]
      if m < 0 or m >= t.shape[d] then last, side = d, m < 0 and 1 or 2 end
      src[d] = mode ~= "constant" and pad_index(mode, idx[d], widths[d][1], t.shape[d]) or m
    end
    if mode == "constant" and last then return nil, values[last][side] end
    return src
  end)
end

local function ref_tri(t, k, lower, zero)
  local nd = #t.shape
  local shape = copy_list(t.shape)
  if nd == 1 then shape = { t.shape[1], t.shape[1] } end
  return gather(t, shape, function(idx)
    local i, j = idx[#idx - 1], idx[#idx]
    local keep = lower and j - i <= k or (not lower and j - i >= k)
    if not keep then return nil, zero end
    if nd == 1 then return { j } end
    return idx
  end)
end

-- ---------------------------------------------------------------- the specs

local SHAPES = { { 37 }, { 3, 5 }, { 2, 3, 4 } }

for _, b in ipairs(H.backends) do
  local xp = b.xp

  describe("flips and rotations [" .. b.name .. "]", function()
    b.it("flip of every dtype and layout along every axis and all: views, as the reference",
      function()
        for _, dt in ipairs(H.dtypes) do
          for _, shape in ipairs(SHAPES) do
            for _, kind in ipairs(KINDS) do
              local a, t = layout(b, shape, dt, 3, kind)
              local what = dt .. " " .. kind .. " " .. #shape .. "-D"
              local all = {}
              for d = 1, #shape do all[d] = d end
              local r = xp.flip(a)
              same(r, ref_flip(t, all), what)
              assert.is_true(cuarr.may_share_memory(r, a), what)
              for ax = 1, #shape do
                same(xp.flip(a, ax), ref_flip(t, { ax }), what .. " axis " .. ax)
                same(xp.flip(a, ax - #shape - 1), ref_flip(t, { ax }), what .. " negative")
              end
              if #shape == 3 then
                same(xp.flip(a, { 1, -1 }), ref_flip(t, { 1, 3 }), what .. " axes {1, -1}")
              end
            end
          end
        end
      end)

    -- On the device a whole reversed run is copied 16 bytes at a time when both ends line up
    -- (lengths that are multiples of 16 bytes), element by element otherwise.
    b.it("flip copies are C-contiguous and exact, sizes and offsets off the vector size",
      function()
        for _, dt in ipairs(H.dtypes) do
          for _, n in ipairs { 1, 2, 15, 16, 17, 255, 257, 4096, 4099, 65536 } do
            local a, t = layout(b, { n }, dt, 5, "C")
            local c = xp.flip(a):copy()
            assert.is_true(c.flags.c_contiguous)
            same(c, ref_flip(t, { 1 }), dt .. " " .. n)
            same(xp.ascontiguousarray(xp.flip(a)), ref_flip(t, { 1 }), dt .. " " .. n)
            -- views starting 1 and 3 elements in, and a reversed run written into a slice
            for _, skip in ipairs { 1, 3 } do
              if n > skip then
                local v = a[{ { skip + 1, -1 } }]
                same(xp.flip(v):copy(), ref_flip(T(v), { 1 }), dt .. " " .. n .. " skip " .. skip)
                local out = xp.zeros({ n + 5 }, dt)
                out[{ { skip + 1, skip + n } }] = xp.flip(a)
                same(out[{ { skip + 1, skip + n } }], ref_flip(t, { 1 }), dt .. " into a slice")
              end
            end
          end
        end
        local m, tm = layout(b, { 64, 48 }, "float32", 2, "C")
        same(xp.flip(m):copy(), ref_flip(tm, { 1, 2 }), "a matrix flipped whole")
      end)

    b.it("flip writes through to the array it views", function()
      local a = on(b, make({ 4 }, "int32", 1))
      local before = T(a)
      xp.flip(a)[1] = 99
      local after = T(a)
      assert.are.equal(99, after.data[4])
      assert.are.same({ before.data[1], before.data[2], before.data[3] },
        { after.data[1], after.data[2], after.data[3] })
    end)

    b.it("flip of 0-d and empty arrays; fliplr and flipud", function()
      local s = on(b, make({}, "float32", 2))
      same(xp.flip(s), T(s))
      local e = on(b, make({ 0, 3 }, "int8", 1))
      same(xp.flip(e), { shape = { 0, 3 }, data = {} })
      same(xp.flip(e, 2), { shape = { 0, 3 }, data = {} })
      for _, kind in ipairs(KINDS) do
        local a, t = layout(b, { 3, 5 }, "int16", 4, kind)
        same(xp.fliplr(a), ref_flip(t, { 2 }), kind)
        same(xp.flipud(a), ref_flip(t, { 1 }), kind)
      end
      local v, tv = layout(b, { 6 }, "uint8", 1, "C")
      same(xp.flipud(v), ref_flip(tv, { 1 }))
    end)

    b.it("rot90 for k from -5 to 5 over several axis pairs, as views", function()
      for _, dt in ipairs(SAMPLE_DTYPES) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 2, 3, 4 }, dt, 6, kind)
          for k = -5, 5 do
            for _, axes in ipairs { { 1, 2 }, { 2, 1 }, { 3, 1 }, { -1, -2 } } do
              local a0 = axes[1] < 0 and axes[1] + 4 or axes[1]
              local a1 = axes[2] < 0 and axes[2] + 4 or axes[2]
              local r = xp.rot90(a, k, axes)
              same(r, ref_rot90(t, k, a0, a1), dt .. " " .. kind .. " k " .. k)
              assert.is_true(cuarr.may_share_memory(r, a))
            end
          end
          local m, tm = layout(b, { 3, 5 }, dt, 7, kind)
          same(xp.rot90(m), ref_rot90(tm, 1, 1, 2), dt .. " default k")
        end
      end
    end)
  end)

  describe("axes moved [" .. b.name .. "]", function()
    b.it("moveaxis with numbers and tables, negative axes, as transposed views", function()
      local cases = {
        { 1, -1, { 2, 3, 4, 1 } },
        { -1, 1, { 4, 1, 2, 3 } },
        { 2, 3, { 1, 3, 2, 4 } },
        { { 1, 2 }, { -1, -2 }, { 3, 4, 2, 1 } },
        { { 1, 4 }, { 2, 3 }, { 2, 1, 4, 3 } },
        { {}, {}, { 1, 2, 3, 4 } },
      }
      for _, dt in ipairs(SAMPLE_DTYPES) do
        local a, t = layout(b, { 2, 3, 4, 5 }, dt, 8, "step")
        for i, c in ipairs(cases) do
          local r = xp.moveaxis(a, c[1], c[2])
          same(r, ref_permute(t, c[3]), dt .. " case " .. i)
          assert.is_true(cuarr.may_share_memory(r, a))
        end
      end
    end)

    b.it("rollaxis as NumPy's, start 1-based (negative from the end)", function()
      local a, t = layout(b, { 2, 3, 4, 5 }, "float32", 9, "T")
      -- {axis, start, permutation}: NumPy's rollaxis(a, axis - 1, start - 1)
      local cases = {
        { 4, nil, { 4, 1, 2, 3 } }, { 4, 1, { 4, 1, 2, 3 } }, { 3, 2, { 1, 3, 2, 4 } },
        { 1, 5, { 2, 3, 4, 1 } }, { 1, 4, { 2, 3, 1, 4 } }, { 2, 2, { 1, 2, 3, 4 } },
        { 2, 3, { 1, 2, 3, 4 } }, { -1, -2, { 1, 2, 4, 3 } }, { 1, -1, { 2, 3, 1, 4 } },
        { 1, -4, { 1, 2, 3, 4 } },
      }
      for i, c in ipairs(cases) do
        same(xp.rollaxis(a, c[1], c[2]), ref_permute(t, c[3]), "case " .. i)
      end
    end)
  end)

  describe("broadcasting [" .. b.name .. "]", function()
    b.it("broadcast_to: stride-0 views of every dtype and layout", function()
      for _, dt in ipairs(H.dtypes) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 3, 1 }, dt, 10, kind)
          local r = xp.broadcast_to(a, { 2, 3, 4 })
          same(r, ref_broadcast(t, { 2, 3, 4 }), dt .. " " .. kind)
          assert.are.equal(0, r.strides[1])
          assert.are.equal(0, r.strides[3])
          assert.is_true(cuarr.may_share_memory(r, a))
          same(r:copy(), ref_broadcast(t, { 2, 3, 4 }), dt .. " " .. kind .. " copy")
        end
      end
      local s = on(b, make({}, "int64", 1))
      same(xp.broadcast_to(s, 5), ref_broadcast(T(s), { 5 }))
      same(xp.broadcast_to(s, {}), T(s))
      local e = on(b, make({ 0 }, "int8", 1))
      same(xp.broadcast_to(e, { 3, 0 }), { shape = { 3, 0 }, data = {} })
      same(xp.broadcast_to(on(b, make({ 1 }, "int8", 1)), { 0 }), { shape = { 0 }, data = {} })
    end)

    b.it("a broadcast view is read-only, as NumPy's: writing it is a ValueError", function()
      local a = on(b, make({ 3 }, "int32", 1))
      local before = T(a).data
      local v = xp.broadcast_to(a, { 4, 3 })
      H.raises("ValueError", function() v[{ 3, 2 }] = 42 end)
      assert.are.same(before, T(a).data)
      a[2] = 42 -- the base stays writeable, and the view shows the write
      assert.are.same({ 42, 42, 42, 42 }, T(v[{ {}, 2 }]).data)
    end)

    b.it("broadcast_arrays returns views of the common shape", function()
      local x, tx = layout(b, { 3 }, "float16", 1, "rev")
      local y, ty = layout(b, { 2, 1 }, "uint64", 2, "C")
      local z, tz = layout(b, {}, "bool", 3, "C")
      local rx, ry, rz = xp.broadcast_arrays(x, y, z)
      same(rx, ref_broadcast(tx, { 2, 3 }))
      same(ry, ref_broadcast(ty, { 2, 3 }))
      same(rz, ref_broadcast(tz, { 2, 3 }))
      assert.is_true(cuarr.may_share_memory(rx, x))
      assert.are.equal(0, select("#", xp.broadcast_arrays()))
      local only = xp.broadcast_arrays(y)
      same(only, ty)
    end)

    b.it("atleast_1d, atleast_2d, atleast_3d: NumPy's shapes, views, several arrays", function()
      local cases = {
        { {}, { 1 }, { 1, 1 }, { 1, 1, 1 } },
        { { 4 }, { 4 }, { 1, 4 }, { 1, 4, 1 } },
        { { 2, 3 }, { 2, 3 }, { 2, 3 }, { 2, 3, 1 } },
        { { 2, 3, 4 }, { 2, 3, 4 }, { 2, 3, 4 }, { 2, 3, 4 } },
        { { 0, 2 }, { 0, 2 }, { 0, 2 }, { 0, 2, 1 } },
      }
      for _, c in ipairs(cases) do
        for _, dt in ipairs(SAMPLE_DTYPES) do
          local a, t = layout(b, c[1], dt, 4, "C")
          for k, fn in ipairs { xp.atleast_1d, xp.atleast_2d, xp.atleast_3d } do
            local r = fn(a)
            same(r, { shape = c[k + 1], data = t.data }, dt .. " " .. k)
            if a.size > 0 then assert.is_true(cuarr.may_share_memory(r, a)) end
          end
        end
      end
      local p, q = xp.atleast_2d(on(b, make({}, "int8", 1)), on(b, make({ 3 }, "int8", 1)))
      assert.are.same({ 1, 1 }, T(p).shape)
      assert.are.same({ 1, 3 }, T(q).shape)
      assert.are.equal(0, select("#", xp.atleast_1d()))
    end)
  end)

  describe("tile and repeat [" .. b.name .. "]", function()
    b.it("tile of every dtype and layout, reps shorter and longer than ndim", function()
      local reps_list = { 2, { 3 }, { 2, 1 }, { 1, 2, 3 }, { 2, 0 }, { 1 }, { 2, 2, 1, 2 } }
      for _, dt in ipairs(H.dtypes) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 2, 3 }, dt, 11, kind)
          for _, reps in ipairs(reps_list) do
            local r = xp.tile(a, reps)
            local list = type(reps) == "table" and reps or { reps }
            same(r, ref_tile(t, list), dt .. " " .. kind)
            assert.is_true(r.flags.c_contiguous)
            assert.is_false(cuarr.may_share_memory(r, a))
          end
        end
      end
      local s, ts = layout(b, {}, "float32", 1, "C")
      same(xp.tile(s, 3), ref_tile(ts, { 3 }))
      same(xp.tile(s, {}), ts)
      local e, te = layout(b, { 0, 2 }, "int8", 1, "C")
      same(xp.tile(e, { 2, 3 }), ref_tile(te, { 2, 3 }))
      local v, tv = layout(b, { 300 }, "uint64", 1, "step")
      same(xp.tile(v, { 3, 2 }), ref_tile(tv, { 3, 2 }))
    end)

    -- The broadcast view has an extra axis per repeated one: at 32 axes there is no room, and
    -- the repeated axes are done in several copies (or joined copies).
    b.it("tile of arrays with many axes (20 and 32) and many repeated axes", function()
      for _, nd in ipairs { 20, 32 } do
        local shape = {}
        for d = 1, nd do shape[d] = 1 end
        shape[nd - 1], shape[nd] = 2, 3
        local a, t = layout(b, shape, "int16", 2, "rev")
        for _, pattern in ipairs { { 1, nd }, { 1, 2, 3, nd - 1, nd }, { nd - 1 } } do
          local reps = {}
          for d = 1, nd do reps[d] = 1 end
          for i, d in ipairs(pattern) do reps[d] = i % 2 == 0 and 3 or 2 end
          same(xp.tile(a, reps), ref_tile(t, reps), nd .. "-D, " .. #pattern .. " repeated")
        end
        -- 13 axes repeated: 33 axes for a 20-D array, 45 for a 32-D one (several copies)
        local reps = {}
        for d = 1, nd do reps[d] = d > nd - 13 and 2 or 1 end
        same(xp.tile(a, reps), ref_tile(t, reps), nd .. "-D, 13 axes repeated")
        reps[nd] = 0
        same(xp.tile(a, reps), ref_tile(t, reps), nd .. "-D, an axis repeated 0 times")
      end
    end)

    b.it("repeat by a number along each axis and flattened; repeat_ and the methods", function()
      for _, dt in ipairs(H.dtypes) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 2, 3, 4 }, dt, 12, kind)
          for _, c in ipairs { 0, 1, 3 } do
            for ax = 1, 3 do
              local r = xp["repeat"](a, c, ax)
              same(r, ref_repeat(t, { c }, ax), dt .. " " .. kind .. " axis " .. ax)
              same(xp.repeat_(a, c, ax - 4), ref_repeat(t, { c }, ax), dt .. " negative axis")
            end
            local flat = { shape = { count(t.shape) }, data = t.data }
            same(xp.repeat_(a, c), ref_repeat(flat, { c }, 1), dt .. " flattened")
            same(a:repeat_(c), ref_repeat(flat, { c }, 1), dt .. " method")
            same(a["repeat"](a, { c }, 2), ref_repeat(t, { c }, 2), dt .. " method, {c}")
          end
        end
      end
      local s, ts = layout(b, {}, "int32", 1, "C")
      same(xp.repeat_(s, 4), { shape = { 4 }, data = { ts.data[1], ts.data[1], ts.data[1],
                                                       ts.data[1] } })
    end)

    -- With counts per element repeat uses take when there is one, else a concatenate of views;
    -- both are run here (the second with take hidden).
    b.it("repeat with a count per element (a table or an array), with and without take",
      function()
        local take = xp.take
        local ways = take and { "take", "no take" } or { "no take" }
        for _, way in ipairs(ways) do
          xp.take = way == "take" and take or nil
          local ok, err = pcall(function()
            for _, dt in ipairs(SAMPLE_DTYPES) do
              for _, kind in ipairs(KINDS) do
                local a, t = layout(b, { 3, 4 }, dt, 13, kind)
                local c1, c2 = { 2, 0, 3 }, { 1, 1, 0, 4 }
                same(xp.repeat_(a, c1, 1), ref_repeat(t, c1, 1), way .. " " .. dt .. " " .. kind)
                same(xp.repeat_(a, c2, -1), ref_repeat(t, c2, 2), way .. " " .. dt .. " " .. kind)
                same(xp.repeat_(a, on(b, cpu.array(c2, "int32")), 2), ref_repeat(t, c2, 2),
                  way .. " counts as an array")
                same(xp.repeat_(a, { 0, 0, 0 }, 1), ref_repeat(t, { 0, 0, 0 }, 1), way)
                local flat = { shape = { 12 }, data = t.data }
                local many = {}
                for i = 1, 12 do many[i] = i % 3 end
                same(xp.repeat_(a, many), ref_repeat(flat, many, 1), way .. " flattened")
              end
            end
            -- more distinct counts than one concatenate launch takes (64)
            local v, tv = layout(b, { 150 }, "float32", 1, "C")
            local counts = {}
            for i = 1, 150 do counts[i] = (i * 7) % 4 end
            same(xp.repeat_(v, counts), ref_repeat(tv, counts, 1), way .. " 150 counts")
          end)
          xp.take = take
          if not ok then error(err, 0) end
        end
      end)
  end)

  describe("roll [" .. b.name .. "]", function()
    b.it("roll along axes, flattened, several axes at once, shifts past the length", function()
      for _, dt in ipairs(H.dtypes) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 3, 5 }, dt, 14, kind)
          for _, s in ipairs { 0, 1, -2, 7, -16 } do
            same(xp.roll(a, s, 1), ref_roll(t, { s }), dt .. " " .. kind .. " axis 1")
            same(xp.roll(a, s, -1), ref_roll(t, { 0, s }), dt .. " " .. kind .. " axis -1")
            local flat = { shape = { 15 }, data = t.data }
            local r = xp.roll(a, s)
            assert.are.same({ 3, 5 }, T(r).shape)
            same(r:reshape(15), ref_roll(flat, { s }), dt .. " flattened " .. s)
            assert.is_false(cuarr.may_share_memory(r, a))
          end
          same(xp.roll(a, { 1, 2 }, { 1, 2 }), ref_roll(t, { 1, 2 }), dt .. " both axes")
          same(xp.roll(a, { 1, 2 }, 2), ref_roll(t, { 0, 3 }), dt .. " summed on one axis")
          same(xp.roll(a, 2, { 1, -1 }), ref_roll(t, { 2, 2 }), dt .. " one shift, two axes")
        end
      end
      local s = on(b, make({}, "int8", 3))
      same(xp.roll(s, 5), T(s))
      same(xp.roll(on(b, make({ 0, 4 }, "int8", 1)), 3, 1), { shape = { 0, 4 }, data = {} })
      local v, tv = layout(b, { 1000 }, "float64", 3, "rev")
      same(xp.roll(v, 333), ref_roll(tv, { 333 }))
    end)
  end)

  describe("pad [" .. b.name .. "]", function()
    local MODES = { "constant", "edge", "reflect", "symmetric", "wrap" }

    local function widths_for(pw, nd)
      local out = {}
      for d = 1, nd do
        if type(pw) == "number" then
          out[d] = { pw, pw }
        elseif type(pw[1]) == "number" then
          out[d] = { pw[1], pw[2] or pw[1] }
        else
          local p = pw[#pw == 1 and 1 or d]
          out[d] = { p[1], p[2] or p[1] }
        end
      end
      return out
    end

    b.it("every mode, dtype and layout, widths within and past the axis", function()
      local widths = { 2, { 1, 3 }, { { 0, 1 }, { 2, 0 } }, { { 4 } }, { { 7, 9 }, { 11, 5 } } }
      for _, dt in ipairs(H.dtypes) do
        for _, kind in ipairs(KINDS) do
          local a, t = layout(b, { 3, 4 }, dt, 15, kind)
          for _, mode in ipairs(MODES) do
            for i, pw in ipairs(widths) do
              local w = widths_for(pw, 2)
              local zero = 0
              if dt == "bool" then zero = false end
              local r = mode == "constant" and xp.pad(a, pw) or xp.pad(a, pw, { mode = mode })
              same(r, ref_pad(t, w, mode, { { zero, zero }, { zero, zero } }),
                dt .. " " .. kind .. " " .. mode .. " widths " .. i)
              assert.is_true(r.flags.c_contiguous)
            end
          end
        end
      end
    end)

    b.it("1-D and 3-D, axes of length 1 and 2, the mode as a string", function()
      for _, mode in ipairs(MODES) do
        for _, n in ipairs { 1, 2, 5 } do
          for _, w in ipairs { { 0, 0 }, { 1, 0 }, { 3, 12 }, { 13, 2 } } do
            local a, t = layout(b, { n }, "int16", 16, "C")
            same(xp.pad(a, { w }, mode), ref_pad(t, { w }, mode, { { 0, 0 } }),
              mode .. " n " .. n .. " widths " .. w[1] .. "," .. w[2])
          end
        end
        local a, t = layout(b, { 2, 3, 2 }, "float32", 17, "T")
        local w = { { 1, 2 }, { 3, 0 }, { 2, 5 } }
        same(xp.pad(a, w, mode), ref_pad(t, w, mode, { { 0, 0 }, { 0, 0 }, { 0, 0 } }), mode)
      end
    end)

    b.it("constant_values: one, a pair, per axis (NumPy's corners), cast to the dtype", function()
      for _, dt in ipairs(SAMPLE_DTYPES) do
        local a, t = layout(b, { 2, 3 }, dt, 18, "rev")
        local function cv(x)
          if dt == "bool" then return x ~= 0 end
          return x
        end
        local function as_ref(x)
          local h = cpu.array({ cv(x) }):astype(dt)
          return A.values(h)[1]
        end
        local r = xp.pad(a, 2, { constant_values = cv(5) })
        same(r, ref_pad(t, { { 2, 2 }, { 2, 2 } }, "constant",
          { { as_ref(5), as_ref(5) }, { as_ref(5), as_ref(5) } }), dt .. " one")
        r = xp.pad(a, { 1, 2 }, { mode = "constant", constant_values = { cv(1), cv(2) } })
        same(r, ref_pad(t, { { 1, 2 }, { 1, 2 } }, "constant",
          { { as_ref(1), as_ref(2) }, { as_ref(1), as_ref(2) } }), dt .. " pair")
        r = xp.pad(a, { { 1, 2 }, { 2, 1 } },
          { constant_values = { { cv(1), cv(2) }, { cv(3), cv(0) } } })
        same(r, ref_pad(t, { { 1, 2 }, { 2, 1 } }, "constant",
          { { as_ref(1), as_ref(2) }, { as_ref(3), as_ref(0) } }), dt .. " per axis")
      end
    end)

    b.it("0-d and empty arrays", function()
      local s, ts = layout(b, {}, "float64", 1, "C")
      for _, mode in ipairs(MODES) do
        local r = xp.pad(s, 3, mode)
        same(r, ts, mode)
        assert.is_false(cuarr.may_share_memory(r, s))
      end
      local e = on(b, make({ 0, 3 }, "int32", 1))
      same(xp.pad(e, 1, { constant_values = 7 }),
        { shape = { 2, 5 }, data = { 7, 7, 7, 7, 7, 7, 7, 7, 7, 7 } })
      for _, mode in ipairs { "edge", "reflect", "symmetric", "wrap" } do
        same(xp.pad(e, { { 0, 0 }, { 1, 2 } }, mode), { shape = { 0, 6 }, data = {} }, mode)
      end
    end)
  end)

  describe("diagonals and triangles [" .. b.name .. "]", function()
    b.it("diag of a vector builds the matrix; of a matrix is the diagonal view", function()
      for _, dt in ipairs(H.dtypes) do
        local v, tv = layout(b, { 4 }, dt, 19, "rev")
        local zero = A.values(cpu.zeros(1, dt))[1]
        for _, k in ipairs { 0, 1, -2, 5 } do
          local n = 4 + math.abs(k)
          local want = gather(tv, { n, n }, function(idx)
            if idx[2] - idx[1] ~= k then return nil, zero end
            return { math.min(idx[1], idx[2]) }
          end)
          same(xp.diag(v, k), want, dt .. " k " .. k)
        end
        local m, tm = layout(b, { 3, 5 }, dt, 20, "T")
        for _, k in ipairs { 0, 2, -1, 4, 5, -3, -7 } do
          local len = math.max(0, math.min(3 + math.min(k, 0), 5 - math.max(k, 0)))
          local want = gather(tm, { len }, function(idx)
            return { idx[1] + math.max(0, -k), idx[1] + math.max(0, k) }
          end)
          local r = xp.diag(m, k)
          same(r, want, dt .. " matrix k " .. k)
          if len > 0 then assert.is_true(cuarr.may_share_memory(r, m)) end
        end
        local d = on(b, make({ 2, 2 }, dt, 21))
        local td = T(d)
        local flat = { shape = { 4 }, data = td.data }
        same(xp.diagflat(d), gather(flat, { 4, 4 }, function(idx)
          if idx[1] ~= idx[2] then return nil, zero end
          return { idx[1] }
        end), dt .. " diagflat")
        same(xp.diagflat(d, -1), gather(flat, { 5, 5 }, function(idx)
          if idx[1] - idx[2] ~= 1 then return nil, zero end
          return { idx[2] }
        end), dt .. " diagflat k -1")
      end
      same(xp.diag(on(b, make({ 0 }, "int8", 1))), { shape = { 0, 0 }, data = {} })
      local s, ts = layout(b, {}, "float32", 2, "C")
      same(xp.diagflat(s), { shape = { 1, 1 }, data = ts.data })
    end)

    b.it("tril and triu of every dtype, stacks, 1-D, k past the corners", function()
      for _, dt in ipairs(H.dtypes) do
        local zero = A.values(cpu.zeros(1, dt))[1]
        for _, kind in ipairs(KINDS) do
          for _, shape in ipairs { { 3, 5 }, { 2, 4, 3 }, { 5 } } do
            local a, t = layout(b, shape, dt, 22, kind)
            for _, k in ipairs { 0, 1, -1, 6, -6 } do
              local lo, up = xp.tril(a, k), xp.triu(a, k)
              assert.are.equal(dt, lo.dtype)
              assert.are.equal(dt, up.dtype)
              same(lo, ref_tri(t, k, true, zero), dt .. " " .. kind .. " tril k " .. k)
              same(up, ref_tri(t, k, false, zero), dt .. " " .. kind .. " triu k " .. k)
            end
            same(xp.tril(a), ref_tri(t, 0, true, zero), dt .. " default k")
          end
        end
      end
      local e = on(b, make({ 0, 3 }, "float32", 1))
      same(xp.tril(e), { shape = { 0, 3 }, data = {} })
      same(xp.triu(e), { shape = { 0, 3 }, data = {} })
    end)
  end)

  describe("grids [" .. b.name .. "]", function()
    b.it("meshgrid: xy and ij, sparse, copy, any dtype, non-contiguous inputs", function()
      for _, dt in ipairs(SAMPLE_DTYPES) do
        local x, tx = layout(b, { 3 }, dt, 23, "rev")
        local y, ty = layout(b, { 4 }, dt, 24, "step")
        local z, tz = layout(b, { 2 }, dt, 25, "C")
        local ts = { tx, ty, tz }
        for _, indexing in ipairs { "xy", "ij" } do
          for _, sparse in ipairs { false, true } do
            local outs = { xp.meshgrid(x, y, z, { indexing = indexing, sparse = sparse }) }
            assert.are.equal(3, #outs)
            local full = indexing == "xy" and { 4, 3, 2 } or { 3, 4, 2 }
            for i, r in ipairs(outs) do
              local at_ = i
              if indexing == "xy" and i <= 2 then at_ = 3 - i end
              local shape = full
              if sparse then
                shape = { 1, 1, 1 }
                shape[at_] = full[at_]
              end
              same(r, gather(ts[i], shape, function(idx) return { idx[at_] } end),
                dt .. " " .. indexing .. (sparse and " sparse" or "") .. " output " .. i)
              assert.is_true(r.flags.c_contiguous)
            end
          end
        end
        local gx, gy = xp.meshgrid(x, y)
        same(gx, gather(tx, { 4, 3 }, function(idx) return { idx[2] } end), dt .. " default")
        same(gy, gather(ty, { 4, 3 }, function(idx) return { idx[1] } end), dt .. " default")
        local vx = xp.meshgrid(x, y, { copy = false })
        assert.is_true(cuarr.may_share_memory(vx, x))
        assert.are.equal(0, vx.strides[1])
        local one = xp.meshgrid(x)
        same(one, tx)
      end
      assert.are.equal(0, select("#", xp.meshgrid()))
      local m = on(b, make({ 2, 2 }, "int8", 1))
      local g1 = xp.meshgrid(m, on(b, make({ 3 }, "int8", 1)), { indexing = "ij" })
      assert.are.same({ 4, 3 }, T(g1).shape)
    end)

    b.it("indices: 1-based grids, dense and sparse, dtypes, empty", function()
      local function want(dims, axis, shape)
        local data = {}
        each_index(shape, function(idx) data[#data + 1] = idx[axis] + 1 end)
        return { shape = shape, data = data }
      end
      for _, dims in ipairs { { 2, 3 }, { 4 }, { 2, 1, 3 }, { 0, 2 } } do
        local r = xp.indices(dims)
        assert.are.equal("int64", r.dtype)
        local shape = { #dims }
        for i, n in ipairs(dims) do shape[i + 1] = n end
        local data = {}
        for i = 1, #dims do
          for _, v in ipairs(want(dims, i, dims).data) do data[#data + 1] = v end
        end
        same(r, { shape = shape, data = data })
        local sp = { xp.indices(dims, { sparse = true }) }
        assert.are.equal(#dims, #sp)
        for i = 1, #dims do
          local s = {}
          for d = 1, #dims do s[d] = d == i and dims[d] or 1 end
          same(sp[i], want(dims, i, s), "sparse " .. i)
        end
      end
      for _, dt in ipairs { "int8", "uint16", "float32", "float16" } do
        local r = xp.indices({ 2, 2 }, dt)
        assert.are.equal(dt, r.dtype)
        same(r:astype("int64"), { shape = { 2, 2, 2 }, data = { 1, 1, 2, 2, 1, 2, 1, 2 } })
        assert.are.equal(dt, xp.indices({ 3 }, { dtype = dt }).dtype)
      end
      same(xp.indices({}), { shape = { 0 }, data = {} })
      assert.are.equal(0, select("#", xp.indices({}, { sparse = true })))
    end)
  end)
end

describe("large flips on the device", function()
  -- Many grid-stride rounds of the reversed-run copy, compared with the host's flip (C loops).
  H.gpu_it("flip copies of 2^22 (+ 0, 5 and 9) elements match the host's", function()
    for _, dt in ipairs { "bool", "int8", "float16", "float32", "uint64" } do
      for _, extra in ipairs { 0, 5, 9 } do
        local n = (1 << 22) + extra
        -- values that differ from their neighbours in every dtype (float16 holds them exactly)
        local h = cpu.arange(n):remainder(dt == "bool" and 3 or 2039):astype(dt)
        local d = cuarr.asarray(h)
        local want = cuarr.asarray(cpu.flip(h):copy())
        local got = cuarr.flip(d):copy()
        assert.is_true(got:equal(want):all(), dt .. " " .. n)
        local view = d[{ { 2, -1 } }] -- one element in: the vectors no longer line up
        local want_view = cuarr.asarray(cpu.flip(h[{ { 2, -1 } }]):copy())
        assert.is_true(cuarr.flip(view):copy():equal(want_view):all(), dt .. " view")
      end
    end
  end)
end)

describe("rearranging functions on device arrays stay on the device", function()
  H.gpu_it("results are device arrays; host results host arrays", function()
    local d = cuarr.arange(12):reshape(3, 4)
    for _, r in ipairs { cuarr.flip(d), cuarr.tile(d, 2), cuarr.repeat_(d, 2), cuarr.roll(d, 1),
                         cuarr.pad(d, 1), cuarr.tril(d), cuarr.diag(d), cuarr.indices({ 2 }),
                         (cuarr.meshgrid(cuarr.arange(3))) } do
      assert.are_not.equal("cpu", r.device)
    end
    assert.are.equal("cpu", cpu.pad(cpu.arange(3), 1).device)
  end)
end)
