-- Boolean masks (src/core/index/, src/lua/mask.c, lua/cuarr/mask.lua) against plain-Lua
-- references: nonzero (and where with one argument, a:nonzero()), flatnonzero, argwhere, the
-- core's mask selection and assignment (what a[mask] and a[mask] = v call), extract, compress,
-- place and putmask.  Masks of every dtype (a float NaN is true, -0.0 false), arrays of every
-- dtype, 0-d and empty arrays, all-true and all-false masks, non-contiguous views (transposed,
-- stepped, reversed), masks over the leading axes of 3-D arrays, sizes off the device's tile of
-- 4096 elements and its 16 per thread.  Every case runs on host arrays and, #gpu, on device
-- arrays (where a wrong count, scan or scatter pass shows as a wrong value or length).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local core = require "cuarr.core"
local cpu = cuarr.cpu

local T, count, at, each_index = A.tensor, A.count, A.at, A.each_index
local mask_select, mask_assign = core.mask_select, core.mask_assign

-- ---------------------------------------------------------------- inputs

-- Truth values for n elements: `kind` "all", "none", or a density pattern from a seed.
local function truths(n, kind, seed)
  local t, rng = {}, H.rng(seed or 7)
  for i = 1, n do
    if kind == "all" then
      t[i] = true
    elseif kind == "none" then
      t[i] = false
    else
      t[i] = rng.int(0, 99) < 45
    end
  end
  return t
end

-- A host mask of dtype holding the truths: true as varied nonzero values (NaN, negative and
-- fractional ones for floats, the top bit for integers), false as 0 (-0.0 for floats).
local TOPS = { int8 = -128, int16 = -32768, int32 = -2147483648, int64 = math.mininteger,
               uint8 = 128, uint16 = 32768, uint32 = 2147483648, uint64 = math.mininteger }
local function mask_of(tr, dtype, shape)
  local values = {}
  for i, v in ipairs(tr) do
    if dtype == "bool" then
      values[i] = v
    elseif A.is_float(dtype) then
      local k = i % 4
      values[i] = not v and (k == 0 and -0.0 or 0.0) or
        (k == 0 and 0 / 0 or k == 1 and -2.5 or k == 2 and 0.5 or 3.0)
    else
      values[i] = not v and 0 or (i % 3 == 0 and TOPS[dtype] or 1 + i % 5)
    end
  end
  if #values == 0 then return cpu.zeros(shape, dtype) end
  local h
  if dtype == "uint64" then -- the top bit through int64's bits
    h = cpu.array(values, "int64"):astype("uint64")
  else
    h = cpu.array(values, dtype)
  end
  return h:reshape(shape)
end

-- A host array of shape and dtype holding small distinct-ish integers from seed.
local function make(shape, dtype, seed)
  local n = count(shape)
  local values = {}
  for i = 1, n do values[i] = (seed + 7 * i) % 100 end
  local h = n > 0 and cpu.array(values, "int64") or cpu.zeros({ 0 }, "int64")
  h = dtype == "bool" and h:gt(50) or h:astype(dtype)
  return h:reshape(shape)
end

local to = A.to

-- Non-contiguous views of host array h's values in b's placement: transposed, stepped,
-- reversed; each returns (view, host copy of its values).
local function views(b, h)
  local out = {}
  if h.ndim >= 2 then -- a transposed view holding h's values
    local base = to(b, h.T:copy())
    out[#out + 1] = { "transposed", base.T }
  end
  if h.ndim >= 1 then
    -- every other element along the last axis of a twice-as-long array
    local shape = {}
    for i, n in ipairs(h.shape) do shape[i] = n end
    shape[#shape] = 2 * shape[#shape]
    local big = cpu.zeros(shape, h.dtype)
    local index = {}
    for d = 1, h.ndim do index[d] = {} end
    index[h.ndim] = { 1, -1, 2 }
    if h.size > 0 then big[index] = h end
    out[#out + 1] = { "stepped", to(b, big)[index] }
    -- reversed along the first axis
    local rindex = {}
    for d = 1, h.ndim do rindex[d] = {} end
    rindex[1] = { -1, 1, -1 }
    local rev = h[rindex]:copy()
    if h.shape[1] > 0 then out[#out + 1] = { "reversed", to(b, rev)[rindex] } end
  end
  return out
end

-- ---------------------------------------------------------------- references

-- The 0-based multi-indices of the true elements of truths tr over shape, in C order.
local function ref_positions(tr, shape)
  local out, k = {}, 0
  each_index(shape, function(idx)
    k = k + 1
    if tr[k] then
      local c = {}
      for d = 1, #idx do c[d] = idx[d] end
      out[#out + 1] = c
    end
  end)
  return out
end

-- The values of t's rows (over its leading `lead` axes) where tr holds, and the result shape.
local function ref_select(t, tr, lead)
  local rows = 1
  for d = lead + 1, #t.shape do rows = rows * t.shape[d] end
  local data, n = {}, 0
  for i, v in ipairs(tr) do
    if v then
      n = n + 1
      for r = 1, rows do data[#data + 1] = t.data[(i - 1) * rows + r] end
    end
  end
  local shape = { n }
  for d = lead + 1, #t.shape do shape[#shape + 1] = t.shape[d] end
  return { shape = shape, data = data }
end

-- A reference tensor's data as one axis.
local function flat(t) return { shape = { #t.data }, data = t.data } end

local function same(got, want, what)
  local g = T(got)
  assert.are.same(want.shape, g.shape, what)
  assert.are.same(want.data, g.data, what)
end

-- The rows returned by nonzero against the positions.
local function check_rows(rows, pos, ndim, what)
  assert.are.equal(ndim, #rows, what .. ": one array per axis")
  for d = 1, ndim do
    local r = rows[d]
    assert.are.equal("int64", r.dtype, what)
    assert.are.equal(1, r.ndim, what)
    local want = {}
    for j, p in ipairs(pos) do want[j] = p[d] + 1 end
    assert.are.same(want, A.values(r), what .. " axis " .. d)
  end
end

local function truths_of_shape(shape, kind, seed) return truths(count(shape), kind, seed) end

local MASK_SHAPES = { { 1 }, { 16 }, { 17 }, { 255 }, { 257 }, { 4096 }, { 4097 }, { 3, 5 },
                      { 2, 3, 4 }, { 3, 1, 2, 5 }, { 2, 1, 3, 2, 2 }, { 0 }, { 3, 0 } }
local KINDS = { "mixed", "all", "none" }

-- ---------------------------------------------------------------- the cases

local function cases(b)
  local xp = b.xp

  b.it("nonzero of every mask dtype and shape (all, none, mixed) matches the reference",
    function()
      for _, dt in ipairs(H.dtypes) do
        for _, shape in ipairs(MASK_SHAPES) do
          for _, kind in ipairs(KINDS) do
            local tr = truths_of_shape(shape, kind, #shape + shape[1])
            local m = to(b, mask_of(tr, dt, shape))
            local what = dt .. " " .. table.concat(shape, "x") .. " " .. kind
            local pos = ref_positions(tr, shape)
            check_rows({ xp.nonzero(m) }, pos, #shape, what)
            check_rows({ m:nonzero() }, pos, #shape, what .. " (method)")
            check_rows({ xp.where(m) }, pos, #shape, what .. " (where)")
          end
        end
      end
    end)

  b.it("nonzero of non-contiguous masks", function()
    for _, dt in ipairs { "bool", "int8", "float16", "float32", "uint64", "float64" } do
      for _, shape in ipairs { { 5 }, { 4097 }, { 3, 7 }, { 2, 3, 4 } } do
        local tr = truths_of_shape(shape, "mixed", 11)
        local h = mask_of(tr, dt, shape)
        for _, v in ipairs(views(b, h)) do
          local what = dt .. " " .. table.concat(shape, "x") .. " " .. v[1]
          check_rows({ xp.nonzero(v[2]) }, ref_positions(tr, shape), #shape, what)
        end
      end
    end
  end)

  b.it("nonzero of a million and three elements (bool and float32)", function()
    local n = 1000003
    local tr = truths(n, "mixed", 3)
    for _, dt in ipairs { "bool", "float32" } do
      local m = to(b, mask_of(tr, dt, { n }))
      local r = xp.nonzero(m)
      local want, j = {}, 0
      for i = 1, n do
        if tr[i] then
          j = j + 1
          want[j] = i
        end
      end
      assert.are.equal(j, r.size, dt)
      assert.are.same(want, r:totable(), dt)
      assert.are.same(want, xp.flatnonzero(m):totable(), dt)
      local sel = xp.extract(m, xp.arange(1, n + 1))
      assert.are.same(want, sel:totable(), dt .. " extract")
    end
  end)

  b.it("flatnonzero and argwhere", function()
    local tr = truths_of_shape({ 3, 4 }, "mixed", 5)
    local m = to(b, mask_of(tr, "int16", { 3, 4 }))
    local flat_want, w = {}, {}
    for i, v in ipairs(tr) do
      if v then
        flat_want[#flat_want + 1] = i
        w[#w + 1] = { (i - 1) // 4 + 1, (i - 1) % 4 + 1 }
      end
    end
    assert.are.same(flat_want, xp.flatnonzero(m):totable())
    local aw = xp.argwhere(m)
    assert.are.equal("int64", aw.dtype)
    assert.are.same({ #w, 2 }, { aw.shape[1], aw.shape[2] })
    assert.are.same(w, aw:totable())
    -- 0-d: (1, 0) when true, (0, 0) when false; flatnonzero of a 0-d array works
    local t0, f0 = xp.argwhere(xp.array(2.5)), xp.argwhere(xp.array(0))
    assert.are.same({ 1, 0 }, { t0.shape[1], t0.shape[2] })
    assert.are.same({ 0, 0 }, { f0.shape[1], f0.shape[2] })
    assert.are.same({ 1 }, xp.flatnonzero(xp.array(true)):totable())
    assert.are.equal(0, xp.flatnonzero(xp.array(false)).size)
    -- empty
    assert.are.same({ 0, 3 }, { xp.argwhere(xp.zeros({ 0, 2, 5 })).shape[1],
                                xp.argwhere(xp.zeros({ 0, 2, 5 })).shape[2] })
  end)

  b.it("where with three arguments is still the ufunc", function()
    local c = to(b, cpu.array({ true, false, true }))
    local r = xp.where(c, to(b, cpu.array({ 1, 2, 3 })), 0)
    assert.are.same({ 1, 0, 3 }, r:totable())
    local out = to(b, cpu.zeros({ 3 }, "int64"))
    xp.where(c, 5, 6, out)
    assert.are.same({ 5, 6, 5 }, out:totable())
  end)

  b.it("mask selection of every dtype over the leading axes of a 3-D array", function()
    local shape = { 3, 4, 5 }
    for _, dt in ipairs(H.dtypes) do
      local h = make(shape, dt, 3)
      local a, t = to(b, h), T(h)
      for lead = 0, 3 do
        local mshape = {}
        for d = 1, lead do mshape[d] = shape[d] end
        for _, kind in ipairs(KINDS) do
          for _, mdt in ipairs { "bool", dt } do
            local tr = truths_of_shape(mshape, kind, lead + 1)
            local m = to(b, mask_of(tr, mdt, mshape))
            local r = mask_select(a, m)
            assert.are.equal(dt, r.dtype)
            assert.is_true(r.flags.c_contiguous)
            same(r, ref_select(t, tr, lead), dt .. " lead " .. lead .. " " .. kind .. " " .. mdt)
          end
        end
      end
    end
  end)

  b.it("mask selection sizes off the tile: 1, 255, 257, 4097 and 1e6+3 elements", function()
    for _, n in ipairs { 1, 15, 16, 17, 255, 257, 4095, 4096, 4097, 12289, 1000003 } do
      for _, dt in ipairs { "int8", "float16", "float32", "float64" } do
        if n < 100000 or dt == "float32" then
          local h = cpu.arange(n):astype(dt == "int8" and "int64" or dt)
          if dt == "int8" then h = (h % 100):astype("int8") end
          local tr = truths(n, "mixed", n)
          local r = mask_select(to(b, h), to(b, mask_of(tr, "bool", { n })))
          same(r, ref_select(T(h), tr, 1), dt .. " n=" .. n)
        end
      end
    end
  end)

  b.it("mask selection of 0-d arrays and with 0-d masks", function()
    local s = to(b, cpu.array(7.5, "float32"))
    same(mask_select(s, to(b, cpu.array(true))), { shape = { 1 }, data = { 7.5 } })
    same(mask_select(s, to(b, cpu.array(0, "int32"))), { shape = { 0 }, data = {} })
    local h = make({ 2, 3 }, "int16", 1)
    local r = mask_select(to(b, h), to(b, cpu.array(1.0)))
    same(r, { shape = { 1, 2, 3 }, data = T(h).data })
    same(mask_select(to(b, h), to(b, cpu.array(false))), { shape = { 0, 2, 3 }, data = {} })
  end)

  b.it("mask selection of empty arrays", function()
    local a = to(b, cpu.zeros({ 0, 3 }, "float32"))
    same(mask_select(a, to(b, cpu.zeros({ 0 }, "bool"))), { shape = { 0, 3 }, data = {} })
    local z = to(b, cpu.zeros({ 4, 0 }, "int32"))
    local r = mask_select(z, to(b, cpu.array({ true, false, true, true })))
    same(r, { shape = { 3, 0 }, data = {} })
  end)

  b.it("mask selection of non-contiguous arrays with non-contiguous masks", function()
    for _, dt in ipairs { "bool", "uint8", "int32", "float16", "float64" } do
      for _, shape in ipairs { { 6 }, { 3, 5 }, { 2, 3, 4 } } do
        local h = make(shape, dt, 9)
        local tr = truths_of_shape(shape, "mixed", 2)
        local hm = mask_of(tr, "float32", shape)
        local mv = views(b, hm)
        for i, v in ipairs(views(b, h)) do
          local mview = mv[(i % #mv) + 1][2]
          local what = dt .. " " .. table.concat(shape, "x") .. " " .. v[1]
          same(mask_select(v[2], mview), ref_select(T(h), tr, #shape), what)
          same(mask_select(v[2], to(b, hm)), ref_select(T(h), tr, #shape), what)
        end
      end
    end
  end)

  -- ------------------------------------------------------------ assignment

  -- The reference of t[mask over `lead` axes] = values given per selected element (fn(j, r)).
  local function ref_assign(t, tr, lead, fn)
    local rows = 1
    for d = lead + 1, #t.shape do rows = rows * t.shape[d] end
    local data, j = {}, 0
    for i = 1, #t.data do data[i] = t.data[i] end
    for i, v in ipairs(tr) do
      if v then
        j = j + 1
        for r = 1, rows do data[(i - 1) * rows + r] = fn(j, r) end
      end
    end
    return { shape = t.shape, data = data }
  end

  b.it("mask assignment of every dtype: a 0-d value, one per element, whole rows, a row",
    function()
      local shape = { 3, 4, 2 }
      for _, dt in ipairs(H.dtypes) do
        for lead = 0, 3 do
          local mshape = {}
          for d = 1, lead do mshape[d] = shape[d] end
          for _, kind in ipairs(KINDS) do
            local h = make(shape, dt, 5)
            local tr = truths_of_shape(mshape, kind, 3 + lead)
            local m = to(b, mask_of(tr, "bool", mshape))
            local what = dt .. " lead " .. lead .. " " .. kind
            local rows = 1
            for d = lead + 1, 3 do rows = rows * shape[d] end
            local n = 0
            for _, v in ipairs(tr) do n = n + (v and 1 or 0) end
            local one = dt == "bool" and 1 or 42
            -- a 0-d value fills
            local a = to(b, h:copy())
            mask_assign(a, m, to(b, cpu.array(one == 1 and true or 42):astype(dt)))
            same(a, ref_assign(T(h), tr, lead, function() return one end), what .. " 0-d")
            -- a value per selected element and row position
            local vshape = { n }
            for d = lead + 1, 3 do vshape[#vshape + 1] = shape[d] end
            local vh = make(vshape, dt, 61)
            local vt = T(vh)
            a = to(b, h:copy())
            mask_assign(a, m, to(b, vh))
            local function per_element(j, r) return vt.data[(j - 1) * rows + r] end
            same(a, ref_assign(T(h), tr, lead, per_element), what .. " full")
            if lead < 3 then -- one row, broadcast over the selected elements
              local rshape = {}
              for d = lead + 1, 3 do rshape[#rshape + 1] = shape[d] end
              local rh = make(rshape, dt, 17)
              local rt = T(rh)
              a = to(b, h:copy())
              mask_assign(a, m, to(b, rh))
              same(a, ref_assign(T(h), tr, lead, function(_, r) return rt.data[r] end),
                what .. " row")
            end
          end
        end
      end
    end)

  b.it("mask assignment drops the values' leading axes of extent 1, as assignment does",
    function()
      local a = to(b, cpu.arange(6):astype("float32"))
      mask_assign(a, a:gt(2.5), to(b, cpu.array({ { { 7, 8, 9 } } })))
      assert.are.same({ 0, 1, 2, 7, 8, 9 }, A.values(a:astype("int64")))
      local m = to(b, cpu.zeros({ 2, 3 }))
      mask_assign(m, to(b, cpu.array({ false, true })), to(b, cpu.ones({ 1, 1, 3 })))
      assert.are.same({ { 0.0, 0.0, 0.0 }, { 1.0, 1.0, 1.0 } }, m:totable())
    end)

  b.it("mask assignment converts the values to a's dtype as assignment does", function()
    local h = cpu.arange(6):astype("int32")
    local a = to(b, h:copy())
    local m = to(b, cpu.array({ true, false, true, false, true, false }))
    mask_assign(a, m, to(b, cpu.array({ 2.75, -3.5, 1e10 })))
    assert.are.same({ 2, 1, -3, 3, 2147483647, 5 }, a:totable())
    local f = to(b, cpu.zeros({ 4 }, "float16"))
    mask_assign(f, to(b, cpu.array({ 0, 1, 1, 0 }, "uint8")), to(b, cpu.array({ 3, 70000 })))
    assert.are.same({ 0, 3, math.huge, 0 }, f:totable())
    local bb = to(b, cpu.zeros({ 3 }, "bool"))
    mask_assign(bb, to(b, cpu.array({ 1.0, 0.0, 0 / 0 })), to(b, cpu.array({ 0.5, 0.0 })))
    assert.are.same({ true, false, false }, bb:totable())
  end)

  b.it("mask assignment into non-contiguous views writes through to the base", function()
    for _, dt in ipairs { "int8", "float32", "float64", "uint16" } do
      for _, shape in ipairs { { 7 }, { 3, 5 }, { 2, 3, 4 } } do
        local h = make(shape, dt, 4)
        local tr = truths_of_shape(shape, "mixed", 8)
        for _, v in ipairs(views(b, h)) do
          mask_assign(v[2], to(b, mask_of(tr, "int32", shape)), to(b, cpu.array(9):astype(dt)))
          same(v[2], ref_assign(T(h), tr, #shape, function() return 9 end), dt .. " " .. v[1])
        end
      end
      -- the untouched elements of the base stay
      local base = to(b, cpu.arange(8):astype(dt))
      local view = base[{ { 1, -1, 2 } }]
      mask_assign(view, to(b, cpu.array({ true, true, false, true })),
        to(b, cpu.array({ 50, 60, 70 }):astype(dt)))
      assert.are.same({ 50, 1, 60, 3, 4, 5, 70, 7 }, A.values(base:astype("int64")))
    end
  end)

  b.it("mask assignment of sizes off the tile", function()
    for _, n in ipairs { 1, 255, 257, 4097, 1000003 } do
      local dt = n > 100000 and "float32" or "int64"
      local h = cpu.arange(n):astype(dt)
      local tr = truths(n, "mixed", n + 1)
      local k = 0
      for _, v in ipairs(tr) do k = k + (v and 1 or 0) end
      local a = to(b, h:copy())
      mask_assign(a, to(b, mask_of(tr, "bool", { n })), to(b, (cpu.arange(k) + n):astype(dt)))
      local want = ref_assign(T(h), tr, 1, function(j) return (j - 1 + n) end)
      if dt == "float32" then
        for i, v in ipairs(want.data) do want.data[i] = v + 0.0 end
      end
      same(a, want, "n=" .. n)
    end
  end)

  b.it("mask assignment from values overlapping a, and with a mask that is a", function()
    local h = cpu.arange(10):astype("float64")
    local a = to(b, h:copy())
    local rev = a[{ { -1, 1, -1 } }]
    mask_assign(a, to(b, cpu.ones({ 10 }, "bool")), rev) -- a = a reversed, through a copy
    assert.are.same({ 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0 }, a:totable())
    local bb = to(b, cpu.array({ true, false, true, true, false, true }))
    mask_assign(bb, bb, to(b, cpu.array(false))) -- a[a] = false
    assert.are.same({ false, false, false, false, false, false }, bb:totable())
    local c = to(b, cpu.array({ true, false, false, false, true, false }))
    mask_assign(c, c[{ { -1, 1, -1 } }], to(b, cpu.array(true))) -- a[a reversed] = true
    assert.are.same({ true, true, false, false, true, true }, c:totable())
  end)

  -- ------------------------------------------------------------ the NumPy functions

  b.it("extract over every dtype, conditions shorter and longer than the array", function()
    for _, dt in ipairs(H.dtypes) do
      local h = make({ 3, 4 }, dt, 2)
      local tr = truths(12, "mixed", 4)
      local cond = to(b, mask_of(tr, "int8", { 4, 3 })) -- any shape: both are flattened
      same(xp.extract(cond, to(b, h)), ref_select(flat(T(h)), tr, 1), dt)
    end
    local a = to(b, cpu.arange(5))
    assert.are.same({ 0, 2 }, xp.extract(to(b, cpu.array({ true, false, true })), a):totable())
    assert.are.same({ 1, 4 }, xp.extract(to(b, cpu.array({ 0, 1, 0, 0, 1, 0, 0 })), a):totable())
    assert.are.same({ 1, 3 }, xp.extract({ false, true, false, true }, a):totable())
    assert.are.equal(0, xp.extract(to(b, cpu.zeros({ 0 }, "bool")), a).size)
  end)

  b.it("extract and compress of empty arrays, with conditions longer than them", function()
    local e = xp.compress({ false }, to(b, cpu.zeros({ 0, 3 })), 1)
    assert.are.same({ 0, 3 }, { e.shape[1], e.shape[2] })
    e = xp.compress({ false, false }, to(b, cpu.zeros({ 2, 0 }, "int8")), 2)
    assert.are.same({ 2, 0 }, { e.shape[1], e.shape[2] })
    assert.are.equal("int8", e.dtype)
    assert.are.equal(0, xp.extract({ false, false }, to(b, cpu.zeros({ 0 }))).size)
    assert.are.equal(0, xp.extract({}, to(b, cpu.zeros({ 3 }))).size)
    assert.are.equal(0, xp.compress({}, to(b, cpu.zeros({ 0 }))).size)
    assert.are.same({ 5.0 }, xp.extract({ 0, 1, 0 }, to(b, cpu.array({ 4.0, 5.0 }))):totable())
  end)

  b.it("compress along each axis and flattened", function()
    local shape = { 3, 4, 2 }
    for _, dt in ipairs { "bool", "int16", "uint32", "float16", "float64" } do
      local h = make(shape, dt, 6)
      local t = T(h)
      local a = to(b, h)
      for axis = 1, 3 do
        local tr = truths(shape[axis], "mixed", axis)
        local cond = to(b, mask_of(tr, "bool", { shape[axis] }))
        -- the reference: keep the positions along axis where tr holds
        local keep = {}
        for i, v in ipairs(tr) do if v then keep[#keep + 1] = i - 1 end end
        local rshape = { shape[1], shape[2], shape[3] }
        rshape[axis] = #keep
        local data = {}
        each_index(rshape, function(idx)
          local src = { idx[1], idx[2], idx[3] }
          src[axis] = keep[idx[axis] + 1]
          data[#data + 1] = t.data[at(shape, src)]
        end)
        for _, ax in ipairs { axis, axis - 4 } do
          local r = xp.compress(cond, a, ax)
          same(r, { shape = rshape, data = data }, dt .. " axis " .. ax)
          assert.is_true(r.flags.c_contiguous)
        end
      end
      local tr = truths(24, "mixed", 9)
      same(xp.compress(to(b, mask_of(tr, "bool", { 24 })), a), flat(ref_select(t, tr, 3)),
        dt .. " flattened")
    end
    -- shorter and longer conditions, tables
    local a = to(b, cpu.arange(6):reshape({ 2, 3 }))
    assert.are.same({ { 1 }, { 4 } }, xp.compress({ false, true }, a, 2):totable())
    assert.are.same({ { 3, 4, 5 } }, xp.compress({ false, true, false, false }, a, 1):totable())
    assert.are.same({ 0, 2 }, xp.compress({ 1, 0, 1 }, a):totable())
    local e = xp.compress(to(b, cpu.zeros({ 0 }, "bool")), a, 2)
    assert.are.same({ 2, 0 }, { e.shape[1], e.shape[2] })
  end)

  b.it("place repeats vals over the selected elements; putmask over the whole array", function()
    for _, dt in ipairs(H.dtypes) do
      local h = make({ 2, 5 }, dt, 1)
      local tr = truths(10, "mixed", 12)
      local vals = make({ 3 }, dt, 40)
      local vt = T(vals)
      local a = to(b, h:copy())
      xp.place(a, to(b, mask_of(tr, "bool", { 10 })), to(b, vals)) -- mask of a's size, 1-D
      local placed = ref_assign(flat(T(h)), tr, 1, function(j) return vt.data[(j - 1) % 3 + 1] end)
      same(a, { shape = { 2, 5 }, data = placed.data }, dt .. " place")
      a = to(b, h:copy())
      xp.putmask(a, to(b, mask_of(tr, "float32", { 2, 5 })), to(b, vals))
      local want = T(h)
      for i, v in ipairs(tr) do
        if v then want.data[i] = vt.data[(i - 1) % 3 + 1] end
      end
      same(a, want, dt .. " putmask")
    end
    local a = to(b, cpu.arange(5))
    xp.place(a, a:gt(1), 9)
    assert.are.same({ 0, 1, 9, 9, 9 }, a:totable())
    xp.putmask(a, a:gt(8), { 7, 8 })
    assert.are.same({ 0, 1, 7, 8, 7 }, a:totable())
    xp.place(a, a:gt(100), cpu.zeros({ 0 }))
    assert.are.same({ 0, 1, 7, 8, 7 }, a:totable())
    local s = to(b, cpu.array(3.0))
    xp.putmask(s, to(b, cpu.array(true)), 5)
    assert.are.equal(5.0, s:item())
  end)
end

describe("masks", function()
  for _, b in ipairs(H.backends) do cases(b) end

  -- Past 2^31 elements, the counts, prefixes and indices are 64-bit (2 GB masks, 16 GB of
  -- positions: device only).
  H.gpu_it("nonzero, selection and assignment past 2^31 elements", function()
    local big = 1 << 31
    local n = big + 5000
    do
      local m, a = cuarr.zeros({ n }, "bool"), cuarr.zeros({ n }, "int8")
      local set = { 1, 4097, big - 1, big, big + 1, big + 4097, n }
      for k, i in ipairs(set) do
        m[{ i }] = true
        a[{ i }] = k
      end
      assert.are.same(set, cuarr.nonzero(m):totable())
      assert.are.same({ 1, 2, 3, 4, 5, 6, 7 }, mask_select(a, m):totable())
      mask_assign(a, m, cuarr.arange(10, 17):astype("int8"))
      for k, i in ipairs(set) do assert.are.equal(9 + k, a[{ i }]) end
      assert.are.equal(7, cuarr.count_nonzero(a):item())
    end
    collectgarbage()
    do -- every element selected: a count past 2^31
      local idx = cuarr.nonzero(cuarr.ones({ n }, "bool"))
      assert.are.equal(n, idx.size)
      assert.are.equal(1, idx[{ 1 }])
      assert.are.equal(n, idx[{ n }])
      assert.are.equal(n * (n + 1) // 2, idx:sum():item())
    end
    collectgarbage()
  end)
end)
