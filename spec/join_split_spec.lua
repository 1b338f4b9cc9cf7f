-- concatenate, stack, vstack, hstack, dstack, column_stack, split, array_split, hsplit, vsplit
-- and dsplit (src/lua/join.c, lua/cuarr/join.lua) against plain-Lua references: every dtype,
-- mixed dtypes (NumPy's promotion), non-contiguous inputs (transposed, stepped, reversed),
-- empty pieces, negative axes, 1-D to 3-D, a given out, many pieces.  #gpu: the same on device
-- arrays (one kernel launch per concatenate), compared with the reference and the host.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local cpu = cuarr.cpu

-- ---------------------------------------------------------------- references

local T, count, at, each_index = A.tensor, A.count, A.at, A.each_index

-- The reference concatenate of tensors along ax (1-based, positive).
local function ref_concat(ts, ax)
  local shape = {}
  for i, n in ipairs(ts[1].shape) do shape[i] = n end
  shape[ax] = 0
  for _, t in ipairs(ts) do shape[ax] = shape[ax] + t.shape[ax] end
  local data = {}
  each_index(shape, function(idx)
    local p, k = idx[ax], 1
    while p >= ts[k].shape[ax] do
      p = p - ts[k].shape[ax]
      k = k + 1
    end
    local sub = {}
    for d = 1, #idx do sub[d] = idx[d] end
    sub[ax] = p
    data[#data + 1] = ts[k].data[at(ts[k].shape, sub)]
  end)
  return { shape = shape, data = data }
end

local function same(got, want, what)
  local g = T(got)
  assert.are.same(want.shape, g.shape, what)
  assert.are.same(want.data, g.data, what)
end

-- ---------------------------------------------------------------- inputs

-- A host array of shape and dtype holding small integers (exact in every dtype), starting at
-- `seed`; bool arrays alternate.
local function make(shape, dtype, seed)
  local n = count(shape)
  local values = {}
  for i = 1, n do values[i] = (seed + 3 * i) % 50 end
  local h = cpu.array(values, "int64")
  if dtype == "bool" then h = h:gt(20) else h = h:astype(dtype) end
  return h:reshape(shape)
end

-- Non-contiguous variants of an array of that shape: transposed, stepped and reversed views.
local function strided(shape, dtype, seed, kind)
  if kind == "T" then -- the transpose of an array of the reversed shape
    local rev = {}
    for i = 1, #shape do rev[#shape + 1 - i] = shape[i] end
    return make(rev, dtype, seed).T
  elseif kind == "step" then -- every other element along the last axis
    local big = {}
    for i, n in ipairs(shape) do big[i] = n end
    big[#big] = 2 * big[#big]
    local index = {}
    for d = 1, #shape do index[d] = {} end
    index[#shape] = { 1, -1, 2 }
    return make(big, dtype, seed)[index]
  else -- reversed along the first axis
    local index = {}
    for d = 1, #shape do index[d] = {} end
    index[1] = { -1, 1, -1 }
    return make(shape, dtype, seed)[index]
  end
end

local to = A.to

local function piece_shapes(shape, ax, extents)
  local out = {}
  for i, e in ipairs(extents) do
    local s = {}
    for d, n in ipairs(shape) do s[d] = n end
    s[ax] = e
    out[i] = s
  end
  return out
end

-- ---------------------------------------------------------------- concatenate

local layouts = {
  { shape = { 7 }, ax = 1, extents = { 3, 0, 5, 1 } },
  { shape = { 2, 3 }, ax = 1, extents = { 2, 3, 1 } },
  { shape = { 2, 3 }, ax = 2, extents = { 3, 1, 4 } },
  { shape = { 3, 2, 4 }, ax = 1, extents = { 1, 2 } },
  { shape = { 3, 2, 4 }, ax = 2, extents = { 2, 0, 3 } },
  { shape = { 3, 2, 4 }, ax = 3, extents = { 4, 1, 2 } },
}

local promotions = {
  { { "bool", "int8" }, "int8" },
  { { "int8", "uint8" }, "int16" },
  { { "int64", "uint64" }, "float64" },
  { { "int32", "float16" }, "float64" },
  { { "uint8", "float16" }, "float16" },
  { { "float16", "float32" }, "float32" },
  { { "bool", "float16", "float16" }, "float16" },
  { { "int8", "int16", "int32", "int64" }, "int64" },
  { { "float32", "float64", "float32" }, "float64" },
}

local function concat_cases(b)
  local xp = b.xp
  for _, L in ipairs(layouts) do
    local name = string.format("%d-D along axis %d", #L.shape, L.ax)
    b.it("concatenate of every dtype, " .. name .. ", matches the reference", function()
      for _, dt in ipairs(H.dtypes) do
        local hs, ts, ds = {}, {}, {}
        for i, s in ipairs(piece_shapes(L.shape, L.ax, L.extents)) do
          hs[i] = make(s, dt, i)
          ts[i] = T(hs[i])
          ds[i] = to(b, hs[i])
        end
        for _, axis in ipairs { L.ax, L.ax - #L.shape - 1 } do
          local r = xp.concatenate(ds, axis)
          assert.are.equal(dt, r.dtype)
          assert.is_true(r.flags.c_contiguous)
          same(r, ref_concat(ts, L.ax), dt .. " axis " .. axis)
        end
      end
    end)
    b.it("concatenate of non-contiguous views, " .. name .. ", matches the reference", function()
      for _, dt in ipairs { "bool", "int8", "float16", "float32", "float64", "uint64" } do
        local ds, ts = {}, {}
        for i, s in ipairs(piece_shapes(L.shape, L.ax, L.extents)) do
          local h = strided(s, dt, i, ({ "T", "step", "rev" })[(i - 1) % 3 + 1])
          ts[i] = T(h)
          ds[i] = to(b, b.name == "cpu" and h or h:copy())
          if b.name ~= "cpu" then -- the same views on the device
            local kind = ({ "T", "step", "rev" })[(i - 1) % 3 + 1]
            local dh = strided(s, dt, i, kind)
            if kind == "T" then
              ds[i] = cuarr.asarray(dh.T:copy()).T
            elseif kind == "step" then
              local big = {}
              for d, n in ipairs(s) do big[d] = n end
              big[#big] = 2 * big[#big]
              local index = {}
              for d = 1, #s do index[d] = {} end
              index[#s] = { 1, -1, 2 }
              ds[i] = cuarr.asarray(make(big, dt, i))[index]
            else
              local index = {}
              for d = 1, #s do index[d] = {} end
              index[1] = { -1, 1, -1 }
              ds[i] = cuarr.asarray(make(s, dt, i))[index]
            end
          end
        end
        same(xp.concatenate(ds, L.ax), ref_concat(ts, L.ax), dt)
      end
    end)
  end

  b.it("concatenate promotes mixed dtypes as NumPy", function()
    for _, case in ipairs(promotions) do
      local ds, ts = {}, {}
      for i, dt in ipairs(case[1]) do
        local h = make({ 2, i }, dt, i)
        ds[i], ts[i] = to(b, h), T(h)
      end
      for _, ax in ipairs { 2, -1 } do
        local r = xp.concatenate(ds, ax)
        assert.are.equal(case[2], r.dtype, table.concat(case[1], "+"))
        same(r, ref_concat(ts, 2), table.concat(case[1], "+"))
      end
    end
  end)

  b.it("concatenate of mixed dtypes along the first axis, strided", function()
    local hs = { make({ 2, 3 }, "int8", 1), strided({ 3, 3 }, "float32", 2, "T"),
                 strided({ 1, 3 }, "uint16", 3, "rev"), make({ 2, 3 }, "bool", 4) }
    local ds = {}
    for i, h in ipairs(hs) do
      ds[i] = b.name == "cpu" and h or cuarr.asarray(h:copy())
    end
    if b.name ~= "cpu" then ds[2] = cuarr.asarray(hs[2].T:copy()).T end
    local r = xp.concatenate(ds)
    assert.are.equal("float32", r.dtype)
    local ts = {}
    for i, h in ipairs(hs) do ts[i] = T(h) end
    same(r, ref_concat(ts, 1))
  end)

  b.it("concatenate of one array is a copy", function()
    local h = make({ 2, 3 }, "int32", 5)
    local a = to(b, h)
    local r = xp.concatenate({ a })
    same(r, T(h))
    assert.is_false(cuarr.may_share_memory(r, a))
  end)

  b.it("concatenate of pieces all empty along the axis, and of empty arrays", function()
    local r = xp.concatenate({ to(b, make({ 0, 3 }, "float32", 1)),
                               to(b, make({ 0, 3 }, "float32", 2)) })
    assert.are.same({ 0, 3 }, T(r).shape)
    r = xp.concatenate({ to(b, make({ 2, 0 }, "int8", 1)), to(b, make({ 3, 0 }, "int8", 1)) })
    assert.are.same({ 5, 0 }, T(r).shape)
  end)

  b.it("concatenate of many pieces (70: beyond one launch's 64)", function()
    for _, n in ipairs { 9, 64, 70 } do
      local ds, ts = {}, {}
      for i = 1, n do
        local h = make({ (i % 3), 2 }, i % 2 == 0 and "int16" or "int32", i)
        ds[i], ts[i] = to(b, h), T(h)
      end
      local r = xp.concatenate(ds)
      assert.are.equal("int32", r.dtype)
      same(r, ref_concat(ts, 1), n .. " pieces")
    end
  end)

  -- One dtype, contiguous pieces: the device copies 16-byte words, byte by byte across the
  -- pieces' seams and where a piece's address is not aligned like its place in the output.
  b.it("concatenate of contiguous pieces of one dtype, odd lengths and offsets", function()
    for _, dt in ipairs(H.dtypes) do
      for _, lens in ipairs { { 1, 5, 17, 3, 33 }, { 64, 1 }, { 7 }, { 4, 0, 12, 200 } } do
        local ds, ts = {}, {}
        for i, n in ipairs(lens) do
          local h = make({ n }, dt, i)
          ds[i], ts[i] = to(b, h), T(h)
        end
        same(xp.concatenate(ds), ref_concat(ts, 1), dt .. " lengths " .. #lens)
      end
      -- Pieces starting one element into their buffers: misaligned against the output.
      local hs, ds, ts = {}, {}, {}
      for i, n in ipairs { 9, 30, 2 } do
        hs[i] = make({ n + 1 }, dt, i)
        ds[i] = to(b, hs[i])[{ { 2, -1 } }]
        ts[i] = T(hs[i][{ { 2, -1 } }])
      end
      same(xp.concatenate(ds), ref_concat(ts, 1), dt .. " offset pieces")
      local m1, m2 = make({ 3, 5 }, dt, 1), make({ 4, 5 }, dt, 2)
      same(xp.vstack({ to(b, m1), to(b, m2) }), ref_concat({ T(m1), T(m2) }, 1), dt .. " vstack")
    end
    local ds, ts = {}, {}
    for i = 1, 70 do
      local h = make({ i % 5 + 1 }, "int8", i)
      ds[i], ts[i] = to(b, h), T(h)
    end
    same(xp.concatenate(ds), ref_concat(ts, 1), "70 int8 pieces")
  end)

  b.it("concatenate writes a given out, converting to its dtype, strided too", function()
    local h1, h2 = make({ 2, 3 }, "int64", 1), make({ 1, 3 }, "int64", 2)
    local out = xp.zeros({ 3, 3 }, "float32")
    local r = xp.concatenate({ to(b, h1), to(b, h2) }, 1, out)
    assert.are.equal(out, r)
    same(out, ref_concat({ T(h1), T(h2) }, 1))
    local big = xp.zeros({ 3, 6 }, "int32")
    local view = big[{ {}, { 1, -1, 2 } }]
    xp.concatenate({ to(b, h1), to(b, h2) }, 1, view)
    same(view, ref_concat({ T(h1), T(h2) }, 1))
    assert.are.same({ 0, 0, 0 }, T(big[{ {}, { 2, -1, 2 } }]:sum(2)).data)
  end)

  b.it("concatenate into an out that overlaps an input", function()
    local h = make({ 4 }, "float64", 1)
    local a = to(b, cpu.concatenate({ h, h }))
    local first = a[{ { 1, 4 } }]
    local want = ref_concat({ T(first), T(first) }, 1)
    local copy_of = xp.concatenate({ first }):copy()
    local r = xp.concatenate({ copy_of, first }, 1, a)
    same(r, want)
  end)
end

-- ---------------------------------------------------------------- stack and the others

local function stack_cases(b)
  local xp = b.xp
  b.it("stack along every axis, negative ones too", function()
    for _, dt in ipairs { "bool", "int8", "float16", "float64" } do
      local hs = { make({ 2, 3 }, dt, 1), make({ 2, 3 }, dt, 2), make({ 2, 3 }, dt, 3) }
      local ds = {}
      for i, h in ipairs(hs) do ds[i] = to(b, h) end
      for ax = 1, 3 do
        -- the reference: each array with a new axis at ax, concatenated
        local tsx = {}
        for i, h in ipairs(hs) do tsx[i] = T(cpu.expand_dims(h, ax)) end
        same(xp.stack(ds, ax), ref_concat(tsx, ax), dt .. " axis " .. ax)
        same(xp.stack(ds, ax - 4), ref_concat(tsx, ax), dt .. " axis " .. (ax - 4))
      end
      assert.are.same({ 3, 2, 3 }, T(xp.stack(ds)).shape)
    end
  end)

  b.it("stack of 0-d arrays and of 1-D ones", function()
    local r = xp.stack({ to(b, cpu.array(1)), to(b, cpu.array(2)), to(b, cpu.array(3)) })
    assert.are.same({ shape = { 3 }, data = { 1, 2, 3 } }, T(r))
    r = xp.stack({ to(b, cpu.array({ 1, 2 })), to(b, cpu.array({ 3, 4 })) }, 2)
    assert.are.same({ shape = { 2, 2 }, data = { 1, 3, 2, 4 } }, T(r))
  end)

  b.it("vstack, hstack, dstack and column_stack follow NumPy's shapes", function()
    local v1, v2 = to(b, cpu.array({ 1, 2, 3 })), to(b, cpu.array({ 4, 5, 6 }))
    local m = to(b, cpu.array({ { 1, 2 }, { 3, 4 } }))
    local s = to(b, cpu.array(7))
    assert.are.same({ shape = { 2, 3 }, data = { 1, 2, 3, 4, 5, 6 } }, T(xp.vstack({ v1, v2 })))
    assert.are.same({ shape = { 3, 2 }, data = { 1, 2, 3, 4, 1, 2 } },
      T(xp.vstack({ m, m[1] })))
    assert.are.same({ shape = { 6 }, data = { 1, 2, 3, 4, 5, 6 } }, T(xp.hstack({ v1, v2 })))
    assert.are.same({ shape = { 4 }, data = { 7, 1, 2, 3 } }, T(xp.hstack({ s, v1 })))
    assert.are.same({ shape = { 2, 4 }, data = { 1, 2, 1, 2, 3, 4, 3, 4 } },
      T(xp.hstack({ m, m })))
    assert.are.same({ shape = { 1, 3, 2 }, data = { 1, 4, 2, 5, 3, 6 } },
      T(xp.dstack({ v1, v2 })))
    assert.are.same({ shape = { 2, 2, 2 }, data = { 1, 1, 2, 2, 3, 3, 4, 4 } },
      T(xp.dstack({ m, m })))
    assert.are.same({ shape = { 1, 1, 2 }, data = { 7, 7 } }, T(xp.dstack({ s, s })))
    assert.are.same({ shape = { 3, 2 }, data = { 1, 4, 2, 5, 3, 6 } },
      T(xp.column_stack({ v1, v2 })))
    assert.are.same({ shape = { 2, 3 }, data = { 1, 2, 1, 3, 4, 2 } },
      T(xp.column_stack({ m, to(b, cpu.array({ 1, 2 })) })))
    assert.are.same({ shape = { 2, 2 }, data = { 1, 2, 1, 2 } }, T(xp.vstack({ xp.concatenate(
      { to(b, cpu.array({ 1 })), to(b, cpu.array({ 2 })) }), to(b, cpu.array({ 1, 2 })) })))
  end)

  b.it("the stacks promote mixed dtypes and take strided inputs", function()
    local a = to(b, make({ 3, 2 }, "int8", 1))
    local f = to(b, make({ 2, 3 }, "float32", 2))
    local r = xp.vstack({ a.T, f })
    assert.are.equal("float32", r.dtype)
    same(r, ref_concat({ T(a.T), T(f) }, 1))
    r = xp.hstack({ a.T, f, a.T })
    assert.are.equal("float32", r.dtype)
    same(r, ref_concat({ T(a.T), T(f), T(a.T) }, 2))
  end)
end

-- ---------------------------------------------------------------- splits

local function ref_pieces(h, ax, bounds)
  local out = {}
  for i = 1, #bounds - 1 do
    local index = {}
    for d = 1, h.ndim do index[d] = {} end
    local lo, hi = bounds[i], math.max(bounds[i], bounds[i + 1])
    index[ax] = hi == 0 and { 2, 1 } or { lo + 1, hi }
    out[i] = T(h[index])
  end
  return out
end

local function check_pieces(got, want, base, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    same(got[i], want[i], (what or "") .. " piece " .. i)
    if got[i].size > 0 then
      assert.is_true(cuarr.may_share_memory(got[i], base), "piece " .. i .. " is a view")
      assert.is_false(got[i].flags.owndata)
    end
  end
end

local function split_cases(b)
  local xp = b.xp
  b.it("split into equal sections along each axis, negative axes too", function()
    for _, dt in ipairs { "bool", "int8", "float16", "float64" } do
      local h = make({ 4, 6, 2 }, dt, 1)
      local a = to(b, h)
      check_pieces(xp.split(a, 2), ref_pieces(h, 1, { 0, 2, 4 }), a, dt)
      check_pieces(xp.split(a, 3, 2), ref_pieces(h, 2, { 0, 2, 4, 6 }), a, dt)
      check_pieces(xp.split(a, 2, -1), ref_pieces(h, 3, { 0, 1, 2 }), a, dt)
      check_pieces(xp.split(a, 1, -2), ref_pieces(h, 2, { 0, 6 }), a, dt)
    end
  end)

  b.it("split at 1-based positions: each starts a piece (NumPy's indices plus one)", function()
    local h = cpu.arange(10)
    local a = to(b, h)
    local got = xp.split(a, { 4, 6 })
    assert.are.same({ 0, 1, 2 }, got[1]:totable())
    assert.are.same({ 3, 4 }, got[2]:totable())
    assert.are.same({ 5, 6, 7, 8, 9 }, got[3]:totable())
    check_pieces(xp.split(a, { 4, 6 }), ref_pieces(h, 1, { 0, 3, 5, 10 }), a)
    -- negative positions count from the end, as NumPy's: -2 starts the last two
    check_pieces(xp.split(a, { -2 }), ref_pieces(h, 1, { 0, 8, 10 }), a)
    -- 1 makes an empty first piece, n + 1 an empty last one; past the ends clamp
    check_pieces(xp.split(a, { 1, 11 }), ref_pieces(h, 1, { 0, 0, 10, 10 }), a)
    check_pieces(xp.split(a, { 20, -30 }), ref_pieces(h, 1, { 0, 10, 0, 10 }), a)
    -- points out of order give empty pieces, as NumPy's slices do
    local p = xp.split(a, { 7, 3 })
    assert.are.same({ 6, 0, 8 }, { p[1].size, p[2].size, p[3].size })
    -- no points: the whole axis
    check_pieces(xp.split(a, {}), ref_pieces(h, 1, { 0, 10 }), a)
  end)

  b.it("split of a non-contiguous array gives views of it", function()
    local h = make({ 6, 4 }, "float32", 3).T
    local a = b.name == "cpu" and h or cuarr.asarray(h.T:copy()).T
    check_pieces(xp.split(a, { 2, 4 }, 2), ref_pieces(h, 2, { 0, 1, 3, 6 }), a)
    check_pieces(xp.array_split(a, 3), ref_pieces(h, 1, { 0, 2, 3, 4 }), a)
  end)

  b.it("array_split allows unequal sections, the first ones one longer", function()
    local h = cpu.arange(10):astype("int16")
    local a = to(b, h)
    check_pieces(xp.array_split(a, 3), ref_pieces(h, 1, { 0, 4, 7, 10 }), a)
    check_pieces(xp.array_split(a, 4), ref_pieces(h, 1, { 0, 3, 6, 8, 10 }), a)
    local p = xp.array_split(a, 12)
    assert.are.equal(12, #p)
    assert.are.same({ 1, 0 }, { p[10].size, p[11].size })
    check_pieces(xp.array_split(a, { 3 }), ref_pieces(h, 1, { 0, 2, 10 }), a)
    local m = make({ 3, 5 }, "uint8", 1)
    local dm = to(b, m)
    check_pieces(xp.array_split(dm, 2, -1), ref_pieces(m, 2, { 0, 3, 5 }), dm)
  end)

  b.it("hsplit, vsplit and dsplit split along NumPy's axes", function()
    local h3 = make({ 2, 4, 6 }, "int32", 2)
    local a3 = to(b, h3)
    check_pieces(xp.hsplit(a3, 2), ref_pieces(h3, 2, { 0, 2, 4 }), a3)
    check_pieces(xp.vsplit(a3, 2), ref_pieces(h3, 1, { 0, 1, 2 }), a3)
    check_pieces(xp.dsplit(a3, { 3, 5 }), ref_pieces(h3, 3, { 0, 2, 4, 6 }), a3)
    local h1 = make({ 6 }, "float16", 1)
    local a1 = to(b, h1)
    check_pieces(xp.hsplit(a1, 3), ref_pieces(h1, 1, { 0, 2, 4, 6 }), a1)
    local h2 = make({ 4, 2 }, "bool", 1)
    local a2 = to(b, h2)
    check_pieces(xp.vsplit(a2, { 2 }), ref_pieces(h2, 1, { 0, 1, 4 }), a2)
    check_pieces(xp.hsplit(a2, 2), ref_pieces(h2, 2, { 0, 1, 2 }), a2)
  end)

  b.it("split then concatenate gives the array back", function()
    local h = make({ 5, 4, 3 }, "float64", 7)
    local a = to(b, h)
    for ax = 1, 3 do
      same(xp.concatenate(xp.array_split(a, 2, ax), ax), T(h))
    end
    same(xp.vstack(xp.vsplit(a, { 2, 4 })), T(h))
    same(xp.dstack(xp.dsplit(a, 3)), T(h))
  end)
end

describe("joining and splitting host arrays", function()
  local b = H.backends[1]
  concat_cases(b)
  stack_cases(b)
  split_cases(b)
  it("every function is in both namespaces", function()
    for _, name in ipairs { "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack",
                            "split", "array_split", "hsplit", "vsplit", "dsplit" } do
      assert.are.equal("function", type(cuarr[name]), name)
      assert.are.equal("function", type(cpu[name]), name)
    end
  end)
  it("the inputs are left as they were", function()
    local h = make({ 2, 3 }, "int8", 1)
    local before = T(h)
    cpu.vstack({ h, h })
    cpu.split(h, 3, 2)
    assert.are.same(before, T(h))
  end)
end)

describe("joining and splitting device arrays", function()
  local b = H.backends[2]
  concat_cases(b)
  stack_cases(b)
  split_cases(b)

  H.gpu_it("device and host results agree, dtype for dtype", function()
    for _, case in ipairs(promotions) do
      local hs, ds = {}, {}
      for i, dt in ipairs(case[1]) do
        hs[i] = make({ 3, i + 1 }, dt, i)
        ds[i] = cuarr.asarray(hs[i])
      end
      local want = cpu.concatenate(hs, 2)
      local got = cuarr.concatenate(ds, 2)
      assert.are.equal(want.dtype, got.dtype)
      assert.are.same(want:totable(), got:get():totable())
    end
  end)

  H.gpu_it("float conversions on the device match the host's (rounding, saturation)", function()
    local f = cpu.array({ 1.5, -2.75, 1e10, -1e10, 0.1, 65519.0, 70000.0 })
    local i = cpu.array({ 1, 2, 3, 4, 5, 6, 7 }, "int16")
    for _, dt in ipairs { "int8", "uint8", "float16", "float32", "bool" } do
      local out_h = cpu.empty({ 14 }, dt)
      local out_d = cuarr.empty({ 14 }, dt)
      local ok_h = pcall(cpu.concatenate, { f, i }, 1, out_h)
      local ok_d = pcall(cuarr.concatenate, { cuarr.asarray(f), cuarr.asarray(i) }, 1, out_d)
      assert.are.equal(ok_h, ok_d, dt)
      if ok_h then assert.are.same(out_h:totable(), out_d:get():totable(), dt) end
    end
  end)

  H.gpu_it("a large concatenate matches the host", function()
    local h1 = cpu.arange(1000000):astype("float32"):reshape({ 1000, 1000 })
    local h2 = cpu.arange(500000):astype("int32"):reshape({ 1000, 500 })
    local d = cuarr.concatenate({ cuarr.asarray(h1), cuarr.asarray(h2), cuarr.asarray(h1).T }, 2)
    local h = cpu.concatenate({ h1, h2, h1.T }, 2)
    assert.are.equal(0, (d:get() - h):abs():max():item())
  end)
end)
