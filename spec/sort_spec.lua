-- sort, argsort, partition, argpartition, lexsort, searchsorted, unique and the methods (src/lua/sort.c,
-- lua/cuarr/sort.lua, src/core/sort/) against references computed in Lua: every dtype, 1-D to
-- 3-D along every axis (negative ones too) and flattened (axis false), non-contiguous views,
-- 0-d and empty arrays, sizes off the block size, NaNs of both signs and -0.0, stability on
-- ties, the extremes of every integer dtype.  #gpu: the same on device arrays (CUB's radix sorts
-- in libcuarr_sort.so), each device path (one row, a few long rows, many short rows), and a sort
-- of 2^28 float64 (2 GiB) checked on the device.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local A = require "spec.support.arrays"
local cpu = cuarr.cpu

local T, count, at, each_index = A.tensor, A.count, A.at, A.each_index
local same_value = A.same_value
local ult = math.ult
local fmt = string.format

-- ---------------------------------------------------------------- references

-- NumPy's strict order of two values of dtype (NaN last; uint64 read as unsigned bits).
local function less(x, y, dtype)
  if dtype == "uint64" then return ult(x, y) end
  if y ~= y then return x == x end
  if x ~= x then return false end
  return x < y
end

-- The stable argsort (1-based) of a list of values.
local function ref_argsort(vals, dtype)
  local idx = {}
  for i = 1, #vals do idx[i] = i end
  table.sort(idx, function(i, j)
    local a, b = vals[i], vals[j]
    if less(a, b, dtype) then return true end
    if less(b, a, dtype) then return false end
    return i < j
  end)
  return idx
end

-- The values of an array as a flat list (bools as 0/1, uint64 as its int64 bits).
local function values(a)
  local h = a.device == "cpu" and a or a:get()
  if h.dtype == "uint64" then h = h:astype("int64") end
  local t = h.ndim == 0 and { h:item() } or H.flat(h:totable())
  for i, v in ipairs(t) do
    if type(v) == "boolean" then t[i] = v and 1 or 0 end
  end
  return t
end

-- The reference sort and argsort of tensor t (shape, data) along ax (1-based, positive; nil:
-- flattened), as flat lists in C order of the result.
local function ref_sort(t, ax, dtype)
  if ax == nil then
    local idx = ref_argsort(t.data, dtype)
    local s = {}
    for i, j in ipairs(idx) do s[i] = t.data[j] end
    return s, idx
  end
  local shape = t.shape
  local s, ix = {}, {}
  local outer = {}
  for d = 1, #shape do outer[d] = d == ax and 1 or shape[d] end
  if count(shape) == 0 then return s, ix end
  each_index(outer, function(base)
    local row, pos = {}, {}
    for k = 0, shape[ax] - 1 do
      local i = {}
      for d = 1, #shape do i[d] = base[d] end
      i[ax] = k
      pos[k + 1] = at(shape, i)
      row[k + 1] = t.data[pos[k + 1]]
    end
    local order = ref_argsort(row, dtype)
    for k = 1, #order do
      s[pos[k]] = row[order[k]]
      ix[pos[k]] = order[k]
    end
  end)
  return s, ix
end

local function check_list(got, want, what)
  assert.are.equal(#want, #got, what .. ": length")
  for i = 1, #want do
    if not same_value(got[i], want[i]) and got[i] ~= want[i] then
      error(fmt("%s: element %d: got %s, expected %s", what, i, tostring(got[i]),
        tostring(want[i])), 2)
    end
  end
end

-- ---------------------------------------------------------------- inputs

-- A host array of shape and dtype with many ties (values in 0..span-1, span small), floats
-- with NaNs of both signs, infinities and -0.0 among them when `specials`.
local function make(shape, dtype, seed, specials)
  local n = count(shape)
  local rng = H.rng(seed)
  local span = dtype == "bool" and 2 or 13
  local vals = {}
  for i = 1, n do vals[i] = rng.int(0, span - 1) - (dtype:find("^u") and 0 or 6) end
  local h
  if dtype == "bool" then
    for i = 1, n do vals[i] = vals[i] > 0 end
    h = cpu.array(#vals > 0 and vals or {}, "bool")
  elseif A.is_float(dtype) then
    for i = 1, n do vals[i] = vals[i] / 2 end
    if specials then
      local extra = { 0 / 0, -(0 / 0), 1 / 0, -1 / 0, -0.0, 0.0 }
      for k, v in ipairs(extra) do
        if k <= n then vals[(k * 7919) % n + 1] = v end
      end
    end
    h = cpu.array(vals, "float64"):astype(dtype)
  else
    h = cpu.array(vals, "int64"):astype(dtype)
  end
  if n == 0 then h = cpu.zeros({ 0 }, dtype) end
  return h:reshape(shape)
end

local to = A.to

-- Non-contiguous views of the values of make(shape, ...): transposed, stepped, reversed; the
-- base made by make and moved by place (to the device, or left on the host) first.
local function strided(shape, dtype, seed, kind, place)
  if kind == "T" then
    local rev = {}
    for i = 1, #shape do rev[#shape + 1 - i] = shape[i] end
    return place(make(rev, dtype, seed, true)).T
  elseif kind == "step" then
    local big = {}
    for i, n in ipairs(shape) do big[i] = n end
    big[#big] = 2 * big[#big]
    local index = {}
    for d = 1, #shape do index[d] = {} end
    index[#shape] = { 1, -1, 2 }
    return place(make(big, dtype, seed, true))[index]
  end
  local index = {}
  for d = 1, #shape do index[d] = {} end
  index[1] = { -1, 1, -1 }
  return place(make(shape, dtype, seed, true))[index]
end

-- Sort and argsort of x along axis (as given to cuarr; ax the positive one, nil: flattened),
-- checked against the reference of the host copy h.
local function check_sorts(xp, x, h, axis, ax, what)
  local t = { shape = T(h).shape, data = values(h) }
  local want_s, want_i = ref_sort(t, ax, h.dtype)
  local s = xp.sort(x, axis)
  local i = xp.argsort(x, axis)
  assert.are.equal(h.dtype, s.dtype, what)
  assert.are.equal("int64", i.dtype, what)
  assert.is_true(s.flags.c_contiguous and i.flags.c_contiguous, what)
  local shape = ax == nil and { count(t.shape) } or t.shape
  assert.are.same(shape, T(s).shape, what)
  assert.are.same(shape, T(i).shape, what)
  check_list(values(s), want_s, what .. ": sort")
  check_list(values(i), want_i, what .. ": argsort")
end

-- ---------------------------------------------------------------- specs

local layouts = {
  { shape = { 1 } }, { shape = { 7 } }, { shape = { 255 } }, { shape = { 1000 } },
  { shape = { 3, 5 } }, { shape = { 4, 33 } }, { shape = { 2, 3, 4 } }, { shape = { 3, 1, 6 } },
}

for _, b in ipairs(H.backends) do
  local xp = b.xp
  describe("sort and argsort [" .. b.name .. "]", function()
    for _, L in ipairs(layouts) do
      local nd = #L.shape
      b.it(fmt("of every dtype, shape (%s), along every axis and flattened, match the reference",
        table.concat(L.shape, ",")), function()
        for k, dt in ipairs(H.dtypes) do
          local h = make(L.shape, dt, 10 + k, true)
          local x = to(b, h)
          for ax = 1, nd do
            check_sorts(xp, x, h, ax, ax, dt .. " axis " .. ax)
            check_sorts(xp, x, h, ax - nd - 1, ax, dt .. " axis " .. (ax - nd - 1))
            check_sorts(xp, x, h, { axis = ax }, ax, dt .. " {axis=" .. ax .. "}")
          end
          check_sorts(xp, x, h, nil, nd, dt .. " default axis")
          check_sorts(xp, x, h, false, nil, dt .. " flattened")
          check_sorts(xp, x, h, { axis = false, kind = "stable" }, nil, dt .. " {axis=false}")
        end
      end)
    end

    b.it("of non-contiguous views (transposed, stepped, reversed) match the reference", function()
      for _, dt in ipairs { "bool", "int8", "uint16", "int32", "uint64", "float16", "float32",
                            "float64" } do
        for _, kind in ipairs { "T", "step", "rev" } do
          for _, shape in ipairs { { 5, 6 }, { 3, 4, 5 } } do
            local h = strided(shape, dt, 3, kind, function(y) return y end):copy()
            local x = strided(shape, dt, 3, kind, function(y) return to(b, y) end)
            assert.is_false(x.flags.c_contiguous)
            for ax = 1, #shape do
              check_sorts(xp, x, h, ax, ax, dt .. " " .. kind .. " axis " .. ax)
            end
            check_sorts(xp, x, h, false, nil, dt .. " " .. kind .. " flattened")
          end
        end
      end
    end)

    b.it("places NaNs of both signs last and keeps -0.0 and +0.0 as ties for argsort", function()
      for _, dt in ipairs { "float16", "float32", "float64" } do
        local h = cpu.array({ 0 / 0, 1, -(0 / 0), -1 / 0, -0.0, 0.0, 1 / 0, -2, 0 / 0, -0.0 },
          "float64"):astype(dt)
        local x = to(b, h)
        local s = values(xp.sort(x))
        check_list({ s[1], s[2], s[3], s[4], s[5], s[6], s[7] },
          { -1 / 0, -2, -0.0, -0.0, 0.0, 1, 1 / 0 }, dt)
        for k = 8, 10 do assert.is_true(s[k] ~= s[k], dt .. " NaN last") end
        check_list(values(xp.argsort(x)), { 4, 8, 5, 6, 10, 2, 7, 1, 3, 9 }, dt .. " argsort")
        -- the sorted values keep their bits (two negative zeros, one positive); -0.0 and +0.0
        -- are equal, so their order among themselves is not specified (CUB's sort of floats on
        -- the device keeps them in their input order, the host's radix sort puts -0.0 first)
        local negative = 0
        for k = 3, 5 do negative = negative + (1 / s[k] < 0 and 1 or 0) end
        assert.are.equal(2, negative, dt .. " zeros' signs")
      end
    end)

    b.it("argsort is stable on ties, and sorts each integer dtype's extremes", function()
      local n = 3000
      local vals = {}
      for i = 1, n do vals[i] = (i * 37) % 3 end
      for _, dt in ipairs(H.numeric_dtypes) do
        local x = to(b, cpu.array(vals, "int64"):astype(dt))
        local idx = values(xp.argsort(x))
        local want = ref_argsort(vals, "int64")
        check_list(idx, want, dt .. " ties")
      end
      local extremes = {
        int8 = { 127, -128, 0, -1, 1 }, int16 = { 32767, -32768, 0, -1 },
        int32 = { 2147483647, -2147483648, 0, -1 },
        int64 = { math.maxinteger, math.mininteger, 0, -1, 1 },
        uint8 = { 255, 0, 128, 127 }, uint16 = { 65535, 0, 32768 },
        uint32 = { 4294967295, 0, 2147483648 }, uint64 = { -1, 0, math.mininteger, 1 },
      }
      for dt, list in pairs(extremes) do
        local h = dt == "uint64" and cpu.array(list, "int64"):astype("uint64")
          or cpu.array(list, "int64"):astype(dt)
        local x = to(b, h)
        local want_i = ref_argsort(list, dt)
        local want_s = {}
        for i, j in ipairs(want_i) do want_s[i] = list[j] end
        check_list(values(xp.argsort(x)), want_i, dt .. " extremes argsort")
        check_list(values(xp.sort(x)), want_s, dt .. " extremes sort")
      end
    end)

    b.it("sorts 0-d arrays flattened only, and empty arrays along any axis", function()
      local z = to(b, cpu.array(3.5, "float32"))
      H.raises("IndexError", xp.sort, z)
      H.raises("IndexError", xp.argsort, z, 1)
      assert.are.same({ 1 }, T(xp.sort(z, false)).shape)
      check_list(values(xp.sort(z, false)), { 3.5 }, "0-d")
      check_list(values(xp.argsort(z, false)), { 1 }, "0-d argsort")
      for _, shape in ipairs { { 0 }, { 3, 0 }, { 0, 4 }, { 2, 0, 3 } } do
        for _, dt in ipairs { "bool", "int32", "float64" } do
          local x = to(b, cpu.zeros(shape, dt))
          for ax = 1, #shape do
            local s, i = xp.sort(x, ax), xp.argsort(x, -ax)
            assert.are.same(shape, T(s).shape)
            assert.are.same(shape, T(i).shape)
            assert.are.equal("int64", i.dtype)
          end
          assert.are.same({ 0 }, T(xp.argsort(x, false)).shape)
        end
      end
    end)

    b.it("a:sort(axis) sorts in place, views included; a:argsort() is argsort", function()
      for _, dt in ipairs { "int16", "float32", "uint8", "bool" } do
        local h = make({ 4, 6 }, dt, 5, true)
        local t = { shape = { 4, 6 }, data = values(h) }
        for _, ax in ipairs { 1, 2, -1 } do
          local x = to(b, h:copy())
          local r = table.pack(x:sort(ax))
          assert.are.equal(0, r.n)
          local want = ref_sort(t, ax < 0 and 2 or ax, dt)
          check_list(values(x), want, dt .. " in place axis " .. ax)
        end
        local x = to(b, h:copy())
        x:sort()
        check_list(values(x), (ref_sort(t, 2, dt)), dt .. " in place default")
        -- one row in place (on the device CUB's SortKeys reads a copy of it)
        local row = to(b, h:reshape({ 24 }):copy())
        row:sort()
        check_list(values(row), (ref_sort(t, nil, dt)), dt .. " one row in place")
        -- a transposed view sorted in place changes its base
        local base = to(b, h:copy())
        base.T:sort(2)
        check_list(values(base), (ref_sort(t, 1, dt)), dt .. " in place through .T")
        check_list(values(to(b, h):argsort({ axis = 1 })), select(2, ref_sort(t, 1, dt)),
          dt .. " method argsort")
      end
    end)

    b.it("partition and argpartition satisfy NumPy's contract (kth 1-based)", function()
      local h = make({ 3, 40 }, "float32", 9, true)
      local x = to(b, h)
      local t = { shape = { 3, 40 }, data = values(h) }
      for _, kth in ipairs { 1, 17, 40, -1, -40, { 2, 30 } } do
        local p = xp.partition(x, kth)
        local want_s, want_i = ref_sort(t, 2, "float32")
        check_list(values(p), want_s, "partition " .. tostring(kth))
        check_list(values(xp.argpartition(x, kth)), want_i, "argpartition")
      end
      local want_s = ref_sort(t, 1, "float32")
      check_list(values(xp.partition(x, 2, 1)), want_s, "partition along axis 1")
      check_list(values(xp.partition(x, 2, { axis = -2, kind = "introselect" })), want_s,
        "partition options")
      check_list(values(xp.partition(x, 120, false)), (ref_sort(t, nil, "float32")),
        "partition flattened")
      local y = to(b, h:copy())
      y:partition(5)
      check_list(values(y), (ref_sort(t, 2, "float32")), "partition in place")
    end)

    b.it("lexsort sorts by the last key first, stably, over keys of mixed dtypes", function()
      local n = 300
      local k1, k2, k3 = {}, {}, {}
      for i = 1, n do
        k1[i] = (i * 7) % 5
        k2[i] = (i * 11) % 3
        k3[i] = ((i * 13) % 4) / 2
      end
      local keys = { to(b, cpu.array(k1, "int8")), to(b, cpu.array(k2, "uint16")),
                     to(b, cpu.array(k3, "float32")) }
      local idx = {}
      for i = 1, n do idx[i] = i end
      table.sort(idx, function(i, j)
        if k3[i] ~= k3[j] then return k3[i] < k3[j] end
        if k2[i] ~= k2[j] then return k2[i] < k2[j] end
        if k1[i] ~= k1[j] then return k1[i] < k1[j] end
        return i < j
      end)
      check_list(values(xp.lexsort(keys)), idx, "lexsort of three keys")
      -- a 2-D array: its rows are the keys
      local m = to(b, cpu.array({ k2, k3 }, "float64"))
      local idx2 = {}
      for i = 1, n do idx2[i] = i end
      table.sort(idx2, function(i, j)
        if k3[i] ~= k3[j] then return k3[i] < k3[j] end
        if k2[i] ~= k2[j] then return k2[i] < k2[j] end
        return i < j
      end)
      check_list(values(xp.lexsort(m)), idx2, "lexsort of a 2-D array")
      -- one key is argsort; keys of two axes along the first
      check_list(values(xp.lexsort({ keys[1] })), ref_argsort(k1, "int8"), "one key")
      local a2 = to(b, cpu.array({ { 3, 1 }, { 1, 2 }, { 3, 0 } }, "int32"))
      local b2 = to(b, cpu.array({ { 1, 1 }, { 2, 1 }, { 1, 1 } }, "int32"))
      check_list(values(xp.lexsort({ a2, b2 }, 1)), { 1, 3, 3, 1, 2, 2 }, "lexsort axis 1")
      check_list(values(xp.lexsort({ a2, b2 }, { axis = -1 })), { 2, 1, 2, 1, 2, 1 },
        "lexsort last axis")
    end)

    b.it("searchsorted: left and right, 1-based, promoted dtypes, NaNs, sorter", function()
      local sorted = to(b, cpu.array({ 1, 2, 2, 3, 5 }, "int32"))
      local v = to(b, cpu.array({ 0, 1, 2, 2.5, 5, 6 }, "float64"))
      check_list(values(xp.searchsorted(sorted, v)), { 1, 1, 2, 4, 5, 6 }, "left")
      check_list(values(xp.searchsorted(sorted, v, "right")), { 1, 2, 4, 4, 6, 6 }, "right")
      check_list(values(xp.searchsorted(sorted, v, { side = "right" })), { 1, 2, 4, 4, 6, 6 },
        "right option")
      local r = xp.searchsorted(sorted, 2)
      assert.are.equal(0, r.ndim)
      assert.are.equal(2, r:item())
      check_list(values(xp.searchsorted(sorted, { 2, 4 }, "right")), { 4, 5 }, "a table")
      local m = xp.searchsorted(sorted, to(b, cpu.array({ { 0, 3 }, { 9, 2 } }, "int8")))
      assert.are.same({ 2, 2 }, T(m).shape)
      check_list(values(m), { 1, 4, 6, 2 }, "2-D values")
      -- floats with NaN, in the sort's order
      local f = to(b, cpu.array({ -1 / 0, -1, 0, 2, 1 / 0, 0 / 0, 0 / 0 }, "float32"))
      check_list(values(xp.searchsorted(f, to(b, cpu.array({ 0 / 0, 1 / 0, -0.0, 3 },
        "float32")))), { 6, 5, 3, 5 }, "NaN left")
      check_list(values(xp.searchsorted(f, to(b, cpu.array({ 0 / 0, 1 / 0, -0.0 }, "float32")),
        "right")), { 8, 6, 4 }, "NaN right")
      -- sorter: an unsorted array read through its argsort
      local u = to(b, cpu.array({ 5, 1, 3, 2, 2 }, "uint8"))
      local order = xp.argsort(u)
      check_list(values(xp.searchsorted(u, to(b, cpu.array({ 0, 2, 4, 9 }, "uint8")),
        { sorter = order })), { 1, 2, 5, 6 }, "sorter")
      check_list(values(xp.searchsorted(u, 2, { side = "right", sorter = order:astype("int32") })
        ), { 4 }, "sorter int32 right")
      -- every dtype against a reference binary search
      for k, dt in ipairs(H.dtypes) do
        local s = xp.sort(to(b, make({ 50 }, dt, 20 + k, true)))
        local q = to(b, make({ 30 }, dt, 40 + k, true))
        local sv, qv = values(s), values(q)
        for _, side in ipairs { "left", "right" } do
          local want = {}
          for j, x in ipairs(qv) do
            local p = 1
            for _, y in ipairs(sv) do
              if less(y, x, dt) or (side == "right" and not less(x, y, dt)) then p = p + 1 end
            end
            want[j] = p
          end
          check_list(values(xp.searchsorted(s, q, side)), want, dt .. " " .. side)
        end
      end
      -- an empty sorted array puts everything at 1
      check_list(values(xp.searchsorted(to(b, cpu.zeros({ 0 }, "float32")),
        to(b, cpu.array({ 1, 2 }, "float32")))), { 1, 1 }, "empty")
    end)

    b.it("unique of every dtype (flattened) with its index, inverse and counts", function()
      for k, dt in ipairs(H.dtypes) do
        for _, shape in ipairs { { 40 }, { 3, 7 }, { 1 }, { 0 } } do
          local h = make(shape, dt, 60 + k, true)
          local vals = values(h)
          local order = ref_argsort(vals, dt)
          -- the reference: groups of equal values (NaNs equal) in sorted order
          local u, first, counts, id = {}, {}, {}, {}
          for p, j in ipairs(order) do
            local v = vals[j]
            local prev = p > 1 and vals[order[p - 1]] or nil
            local same = p > 1 and (v == prev or (v ~= v and prev ~= prev))
            if not same then
              u[#u + 1] = v
              first[#first + 1] = j
              counts[#counts + 1] = 0
            end
            counts[#counts] = counts[#counts] + 1
            id[j] = #u
          end
          local x = to(b, h)
          local gu, gi, gv, gc = xp.unique(x, { return_index = true, return_inverse = true,
                                                return_counts = true })
          local what = dt .. " (" .. table.concat(shape, ",") .. ")"
          assert.are.equal(dt, gu.dtype, what)
          check_list(values(gu), u, what .. " values")
          check_list(values(gi), first, what .. " index")
          check_list(values(gv), id, what .. " inverse")
          assert.are.same(shape, T(gv).shape, what .. " inverse shape")
          check_list(values(gc), counts, what .. " counts")
          check_list(values(xp.unique(x)), u, what .. " values alone")
        end
      end
      -- NaNs kept apart with equal_nan = false; a 0-d array; a non-contiguous view
      local f = to(b, cpu.array({ 0 / 0, 1, 0 / 0, 1 }, "float32"))
      assert.are.equal(2, xp.unique(f).size)
      assert.are.equal(3, xp.unique(f, { equal_nan = false }).size)
      check_list(values(xp.unique(to(b, cpu.array(7, "int16")))), { 7 }, "0-d")
      local v = to(b, cpu.array({ { 3, 1 }, { 1, 2 }, { 3, 3 } }, "uint8")).T
      local gu, gc = xp.unique(v, { return_counts = true })
      check_list(values(gu), { 1, 2, 3 }, "view")
      check_list(values(gc), { 2, 1, 3 }, "view counts")
    end)
  end)
end

-- ---------------------------------------------------------------- device paths

describe("device sort paths", function()
  H.gpu_it("many short rows, a few long rows and one long row agree with the host", function()
    for _, case in ipairs {
      { shape = { 1 << 17, 8 }, dt = "int32" }, { shape = { 3, (1 << 20) + 5 }, dt = "float32" },
      { shape = { 2, 1000 }, dt = "int64" }, { shape = { 1, (1 << 21) + 3 }, dt = "uint16" },
      { shape = { 4, 1 << 16 }, dt = "float16" }, { shape = { 1 << 12, 300 }, dt = "int8" },
      { shape = { 65, (1 << 20) + 1 }, dt = "uint8" }, { shape = { 5000 }, dt = "bool" },
    } do
      local n = count(case.shape)
      local h = (cpu.arange(n, "int64") * 7919 % 1001 - 500):astype(case.dt):reshape(case.shape)
      local d = cuarr.asarray(h)
      for _, axis in ipairs { -1, 1 } do
        local what = case.dt .. " axis " .. axis
        assert.is_true(cuarr.sort(d, axis):get():eq(cpu.sort(h, axis)):all(), what)
        assert.is_true(cuarr.argsort(d, axis):get():eq(cpu.argsort(h, axis)):all(), what)
      end
    end
  end)

  H.gpu_it("sorts 2^28 float64 (2 GiB): a permutation of 0..n-1 sorts to arange(n)", function()
    local n = 1 << 28
    local mult = 7919
    local a = (cuarr.arange(n, "int64") * mult % n):astype("float64")
    do
      local s <close> = cuarr.sort(a)
      assert.is_true(s:eq(cuarr.arange(n, "float64")):all())
    end
    -- argsort + 1 is the inverse permutation: value k sits at position k * mult^-1 mod n
    local inv = 1 -- Newton's iteration for the inverse of an odd number modulo 2^28
    for _ = 1, 6 do inv = (inv * (2 - mult * inv)) % n end
    assert.are.equal(1, (mult * inv) % n)
    local idx <close> = cuarr.argsort(a)
    a:free()
    assert.is_true((idx - 1):eq(cuarr.arange(n, "int64") * inv % n):all())
  end)
end)
