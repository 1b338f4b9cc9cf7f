-- Random shapes, strides and views from a seeded generator (H.rng), over all dtypes, on the
-- host (cuarr.cpu) and on the device (cuarr).  Each case makes an array, applies a random
-- chain of view operations (indexing with integers, ranges with positive and negative steps,
-- {} and {i}; transpose; swapaxes; expand_dims; squeeze; T) and checks the view against a
-- reference kept in Lua (shape, strides, contiguity flags, values), then copies, transfers,
-- converts and writes through it.  Device cases are also checked against the same operations
-- on a host array, so both paths must agree element for element.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

local N_CASES = 120

-- Conversions exercised on strided device views: each (pair, layout class) is one kernel to
-- compile on the device, so the device run keeps to a few; the host converts any pair.
local DEVICE_ASTYPE = { int16 = "float32", float64 = "int32", uint8 = "float16", bool = "int8",
                        float16 = "uint64" }

-- ---------------------------------------------------------------- comparisons

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local ITEMSIZE = A.ITEMSIZE
local same_value, show, check_equal = A.same_value, A.show, A.check_equal
local range_positions = A.range_positions

-- ---------------------------------------------------------------- random values

-- A random element of dtype dt: the Lua value to store and the value it reads back as.
local function random_value(rng, dt)
  if dt == "bool" then
    local v = rng.int(0, 1) == 1
    return v, v
  elseif dt == "float16" or dt == "float32" or dt == "float64" then
    local r = rng.int(1, 40)
    if r == 1 then return 0 / 0, 0 / 0 end
    if r == 2 then return -math.huge, -math.huge end
    if r == 3 then return -0.0, -0.0 end
    local v
    if dt == "float16" then v = rng.int(-256, 256) / 4
    elseif dt == "float32" then v = rng.int(-(1 << 20), 1 << 20) / 8
    else v = (rng.float() - 0.5) * 2000 end
    return v, v
  end
  local bits = { int8 = 8, int16 = 16, int32 = 32, uint8 = 8, uint16 = 16, uint32 = 32 }
  local b = bits[dt]
  if b then
    local signed = dt:sub(1, 1) == "i"
    local lo = signed and -(1 << (b - 1)) or 0
    local hi = signed and (1 << (b - 1)) - 1 or (1 << b) - 1
    local v = rng.int(lo, hi)
    return v, v
  end
  local v = (rng.int(0, 0xffffffff) << 32) | rng.int(0, 0xffffffff)
  if rng.int(1, 4) == 1 then v = rng.int(-1000, 1000) end
  return v, v
end

-- ---------------------------------------------------------------- the reference

-- A reference view: shape, strides and offset in elements over a flat C-order list of values.
local function ref_new(shape)
  local strides, s = {}, 1
  for i = #shape, 1, -1 do
    strides[i] = s
    s = s * math.max(shape[i], 1)
  end
  return { shape = { table.unpack(shape) }, strides = strides, offset = 0 }
end

local function ref_copy(r)
  return { shape = { table.unpack(r.shape) }, strides = { table.unpack(r.strides) }, offset = r.offset }
end

local function ref_size(r)
  local n = 1
  for _, e in ipairs(r.shape) do n = n * e end
  return n
end

-- Flat positions (1-based) of the view's elements in C order.
local function ref_positions(r)
  local out = {}
  local nd = #r.shape
  if ref_size(r) == 0 then return out end
  local idx = {}
  for i = 1, nd do idx[i] = 0 end
  while true do
    local p = r.offset
    for i = 1, nd do p = p + idx[i] * r.strides[i] end
    out[#out + 1] = p + 1
    local d = nd
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] < r.shape[d] then break end
      idx[d] = 0
      d = d - 1
    end
    if d < 1 then break end
  end
  return out
end

-- The nested table (or the single value of a 0-d view) the view holds.
local function ref_values(r, data)
  local pos = ref_positions(r)
  if #r.shape == 0 then return data[pos[1]] end
  local k = 0
  local function level(d)
    local t = {}
    for i = 1, r.shape[d] do
      if d == #r.shape then
        k = k + 1
        t[i] = data[pos[k]]
      else
        t[i] = level(d + 1)
      end
    end
    return t
  end
  return level(1)
end

local function ref_contiguous(r, c_order)
  for _, e in ipairs(r.shape) do
    if e == 0 then return true end
  end
  local expected, nd = 1, #r.shape
  for k = 1, nd do
    local i = c_order and nd + 1 - k or k
    if r.shape[i] ~= 1 then
      if r.strides[i] ~= expected then return false end
      expected = expected * r.shape[i]
    end
  end
  return true
end

local function ref_select(r, axis, pos) -- pos 1-based
  r.offset = r.offset + (pos - 1) * r.strides[axis]
  table.remove(r.shape, axis)
  table.remove(r.strides, axis)
end

local function ref_range(r, axis, start, stop, step)
  local p = range_positions(r.shape[axis], start, stop, step)
  if #p > 0 then r.offset = r.offset + (p[1] - 1) * r.strides[axis] end
  r.shape[axis] = #p
  r.strides[axis] = r.strides[axis] * step
end

local function ref_transpose(r, perm)
  local shape, strides = {}, {}
  for i, p in ipairs(perm) do
    shape[i] = r.shape[p]
    strides[i] = r.strides[p]
  end
  r.shape, r.strides = shape, strides
end

-- ---------------------------------------------------------------- random view operations

local function random_index(rng, n) -- a valid 1-based or negative index into an extent n > 0
  local i = rng.int(1, n)
  if rng.int(0, 1) == 1 then i = i - n - 1 end
  return i
end

local function random_bound(rng, n)
  local r = rng.int(1, 10)
  if r == 1 then return n + rng.int(1, 3) end -- past the end: clamped
  if r == 2 then return -n - rng.int(1, 3) end -- before the start: clamped
  return random_index(rng, math.max(n, 1))
end

-- Apply one random operation to the views v (and w, a host mirror, when given) and to the
-- reference r.  Returns the new views and a description.
local function random_op(rng, v, w, r)
  local nd = #r.shape
  local choice = rng.int(1, 10)
  if nd == 0 then choice = 8 end -- only expand_dims applies to a 0-d view
  if choice <= 5 then
    -- a key: integers, ranges, {} and {i}, for some of the leading axes
    local key, desc = {}, {}
    local nkey = rng.int(1, nd)
    local axis = 1
    for k = 1, nkey do
      local n = r.shape[axis]
      local kind = rng.int(1, 20)
      if n == 0 and kind <= 5 then kind = 6 end -- nothing to select on an empty axis
      if kind <= 5 then
        local i = random_index(rng, n)
        key[k] = i
        desc[k] = tostring(i)
        ref_select(r, axis, i > 0 and i or n + 1 + i)
      elseif kind <= 8 then
        key[k] = {}
        desc[k] = "{}"
        axis = axis + 1
      elseif kind <= 10 and n > 0 then
        local i = random_index(rng, n)
        key[k] = { i }
        desc[k] = "{" .. i .. "}"
        ref_range(r, axis, i, i, 1)
        axis = axis + 1
      else
        local step = rng.int(1, 3) * (rng.int(0, 1) == 1 and -1 or 1)
        local start, stop = random_bound(rng, n), random_bound(rng, n)
        key[k] = { start, stop, step }
        desc[k] = ("{%d, %d, %d}"):format(start, stop, step)
        ref_range(r, axis, start, stop, step)
        axis = axis + 1
      end
    end
    if nkey == nd and #r.shape == 0 then
      -- every axis selected by an integer: the result is the element's Lua value
      local d = "[{" .. table.concat(desc, ", ") .. "}]"
      local want = r.data[ref_positions(r)[1]]
      local got = v[key]
      if not same_value(got, want) then
        error(("element %s: got %s, expected %s"):format(d, show(got), show(want)))
      end
      -- go on with the 0-d view of that element: the last index as a range, squeezed
      key[nkey] = { key[nkey] }
      return v[key]:squeeze(), w and w[key]:squeeze(), d .. " (element), as a 0-d view"
    end
    local v2, w2 = v[key], w and w[key]
    return v2, w2, "[{" .. table.concat(desc, ", ") .. "}]"
  elseif choice == 6 then
    local perm, left = {}, {}
    for i = 1, nd do left[i] = i end
    for i = 1, nd do perm[i] = table.remove(left, rng.int(1, #left)) end
    local args = {}
    for i, p in ipairs(perm) do args[i] = rng.int(0, 1) == 1 and p - nd - 1 or p end
    ref_transpose(r, perm)
    if rng.int(0, 1) == 1 then
      return v:transpose(args), w and w:transpose(args), ":transpose({" .. table.concat(args, ", ") .. "})"
    end
    return v:transpose(table.unpack(args)), w and w:transpose(table.unpack(args)),
      ":transpose(" .. table.concat(args, ", ") .. ")"
  elseif choice == 7 then
    local a1, a2 = rng.int(1, nd), rng.int(1, nd)
    local perm = {}
    for i = 1, nd do perm[i] = i end
    perm[a1], perm[a2] = a2, a1
    ref_transpose(r, perm)
    local b1 = rng.int(0, 1) == 1 and a1 - nd - 1 or a1
    return v:swapaxes(b1, a2), w and w:swapaxes(b1, a2), (":swapaxes(%d, %d)"):format(b1, a2)
  elseif choice == 8 then
    if nd >= 6 then return v, w, "" end
    local pos = rng.int(1, nd + 1)
    local arg = rng.int(0, 1) == 1 and pos - nd - 2 or pos
    table.insert(r.shape, pos, 1)
    table.insert(r.strides, pos, 1)
    return v:expand_dims(arg), w and w:expand_dims(arg), (":expand_dims(%d)"):format(arg)
  elseif choice == 9 then
    local ones = {}
    for i = 1, nd do
      if r.shape[i] == 1 then ones[#ones + 1] = i end
    end
    if #ones == 0 or rng.int(0, 1) == 1 then
      for i = nd, 1, -1 do
        if r.shape[i] == 1 then
          table.remove(r.shape, i)
          table.remove(r.strides, i)
        end
      end
      return v:squeeze(), w and w:squeeze(), ":squeeze()"
    end
    local ax = ones[rng.int(1, #ones)]
    table.remove(r.shape, ax)
    table.remove(r.strides, ax)
    return v:squeeze(ax), w and w:squeeze(ax), (":squeeze(%d)"):format(ax)
  else
    local perm = {}
    for i = 1, nd do perm[i] = nd + 1 - i end
    ref_transpose(r, perm)
    return v.T, w and w.T, ".T"
  end
end

-- ---------------------------------------------------------------- one random case

local function random_shape(rng)
  local nd = rng.int(0, 5)
  local shape = {}
  for i = 1, nd do
    local r = rng.int(1, 12)
    shape[i] = r == 1 and 0 or r <= 3 and 1 or rng.int(2, nd >= 4 and 4 or 6)
  end
  return shape
end

local function random_table(rng, dt, shape)
  -- returns the nested table to store and the flat list of values it reads back as
  local flat_read = {}
  local function level(d)
    if d > #shape then
      local store, read = random_value(rng, dt)
      flat_read[#flat_read + 1] = read
      return store
    end
    local t = {}
    for i = 1, shape[d] do t[i] = level(d + 1) end
    return t
  end
  return level(1), flat_read
end

local function strides_in_bytes_match(v, r, itemsize)
  for i, e in ipairs(r.shape) do
    if e > 1 and v.strides[i] ~= r.strides[i] * itemsize then return false end
  end
  return true
end

local function run_case(b, rng, case)
  local xp = b.xp
  local on_device = b.name == "gpu"
  local dt = H.dtypes[rng.int(1, #H.dtypes)]
  local shape = random_shape(rng)
  local tbl, data = random_table(rng, dt, shape)
  local empty = #data == 0 and #shape > 0 -- nested tables cannot say {2, 0, 3}
  local a = empty and xp.zeros(shape, dt) or xp.array(tbl, dt)
  local host = on_device and (empty and cuarr.cpu.zeros(shape, dt) or cuarr.cpu.array(tbl, dt)) or nil
  local base_ref = ref_new(shape)
  local r = ref_copy(base_ref)
  r.data = data
  local v, w, what = a, host, ("case %d: %s array of shape {%s}"):format(case, dt, table.concat(shape, ", "))
  check_equal(a:totable(), ref_values(base_ref, data), what)

  for _ = 1, rng.int(1, 4) do
    local d
    v, w, d = random_op(rng, v, w, r)
    what = what .. " " .. d
    check_equal(v.shape, r.shape, what .. ": shape")
  end

  -- the view's description
  check_equal(v.shape, r.shape, what .. ": shape")
  assert.are.equal(#r.shape, v.ndim, what .. ": ndim")
  assert.are.equal(ref_size(r), v.size, what .. ": size")
  assert.are.equal(ref_size(r) * ITEMSIZE[dt], v.nbytes, what .. ": nbytes")
  assert.are.equal(dt, v.dtype, what .. ": dtype")
  assert.is_true(strides_in_bytes_match(v, r, ITEMSIZE[dt]),
    what .. ": strides {" .. table.concat(v.strides, ", ") .. "}")
  assert.are.equal(ref_contiguous(r, true), v.flags.c_contiguous, what .. ": c_contiguous")
  assert.are.equal(ref_contiguous(r, false), v.flags.f_contiguous, what .. ": f_contiguous")
  if v ~= a then
    assert.are.equal(a, v.base, what .. ": base")
    assert.is_false(v.flags.owndata, what .. ": owndata")
  end

  -- its values, read directly, copied, moved to the host, raveled
  local want = ref_values(r, data)
  check_equal(v:totable(), want, what)
  local c = v:copy()
  assert.is_true(c.flags.c_contiguous, what .. ": copy is contiguous")
  check_equal(c:totable(), want, what .. ":copy()")
  check_equal(v:get():totable(), want, what .. ":get()")
  if w then check_equal(w:totable(), want, what .. " on the host") end
  if #r.shape > 0 then
    local flat = H.flat(want)
    local rv = v:reshape(-1)
    check_equal(rv:totable(), flat, what .. ":reshape(-1)")
    if v.flags.c_contiguous then assert.are.equal(a, rv.base, what .. ":reshape(-1) is a view") end
  end

  -- conversion of the view
  local dst = H.dtypes[rng.int(1, #H.dtypes)]
  if not on_device then
    local conv = v:astype(dst)
    check_equal(conv:totable(), c:astype(dst):totable(), what .. ":astype(" .. dst .. ")")
  elseif DEVICE_ASTYPE[dt] then
    dst = DEVICE_ASTYPE[dt]
    local conv = v:astype(dst)
    check_equal(conv:totable(), w:astype(dst):totable(), what .. ":astype(" .. dst .. ") vs host")
  end

  -- writes through the view reach the base, and nothing else
  local mode = rng.int(1, 3)
  local pos = ref_positions(r)
  if ref_size(r) == 0 then
    -- nested tables cannot say {0, 3}: an empty host array of the view's shape
    local src = cuarr.cpu.zeros(r.shape, dt)
    v:set(src)
    if w then w:set(src) end
    v[{}] = dt == "bool" and true or 1 -- a fill of nothing
    what = what .. " :set(empty)"
  elseif mode == 1 then
    local new_tbl, new_read = random_table(rng, dt, r.shape)
    local src = cuarr.cpu.array(new_tbl, dt)
    v:set(src)
    if w then w:set(src) end
    for k, p in ipairs(pos) do data[p] = new_read[k] end
    what = what .. " :set(...)"
  elseif mode == 2 then
    local new_tbl, new_read = random_table(rng, dt, r.shape)
    v[{}] = new_tbl -- a 0-d view takes a plain value
    if w then w[{}] = new_tbl end
    for k, p in ipairs(pos) do data[p] = new_read[k] end
    what = what .. " [{}] = table"
  else
    local store, read = random_value(rng, dt)
    v:fill(store)
    if w then w:fill(store) end
    for _, p in ipairs(pos) do data[p] = read end
    what = what .. " :fill(" .. tostring(store) .. ")"
  end
  check_equal(v:totable(), ref_values(r, data), what .. ": the view")
  check_equal(a:totable(), ref_values(base_ref, data), what .. ": the base")
  if host then check_equal(host:totable(), ref_values(base_ref, data), what .. ": the host base") end
end

-- ---------------------------------------------------------------- specs

describe("random layouts", function()
  for _, b in ipairs(H.backends) do
    b.it(N_CASES .. " random arrays and views of every dtype", function()
      local rng = H.rng(20240611)
      for case = 1, N_CASES do
        run_case(b, rng, case)
      end
      -- the generator is deterministic: the same seed gives the same first values
      local r1, r2 = H.rng(7), H.rng(7)
      for _ = 1, 5 do assert.are.equal(r1.int(0, 1000), r2.int(0, 1000)) end
    end)
  end

  H.gpu_it("views of an array of 1000003 elements, against the host", function()
    local n = 1000003 -- a prime: no block size divides it
    local h = cuarr.cpu.arange(n, "int32")
    local d = cuarr.to_device(h)
    local h2, d2 = h[{ { 5, -5 } }]:reshape(5, -1), d[{ { 5, -5 } }]:reshape(5, -1) -- 5 x 199999
    local cases = {
      { d[{ { 1, -1, 2 } }], h[{ { 1, -1, 2 } }] },
      { d[{ { -1, 1, -3 } }], h[{ { -1, 1, -3 } }] },
      { d2[{ { -1, 1, -2 }, { 7, -2, 3 } }], h2[{ { -1, 1, -2 }, { 7, -2, 3 } }] },
      { d2.T[{ { 1, -1, 5 } }], h2.T[{ { 1, -1, 5 } }] },
      { d2[{ {}, { 199990 } }], h2[{ {}, { 199990 } }] },
    }
    for k, c in ipairs(cases) do
      local dv, hv = c[1], c[2]
      check_equal(dv.shape, hv.shape, "case " .. k .. " shape")
      check_equal(dv.strides, hv.strides, "case " .. k .. " strides")
      check_equal(dv:totable(), hv:totable(), "case " .. k)
      check_equal(dv:copy():get():totable(), hv:copy():totable(), "case " .. k .. " copy")
      check_equal(dv:astype("float64"):totable(), hv:astype("float64"):totable(), "case " .. k .. " astype")
    end
    -- a large strided write, then the whole array against the host doing the same
    local dv, hv = d2[{ { 4, 1, -3 }, { 2, -1, 3 } }], h2[{ { 4, 1, -3 }, { 2, -1, 3 } }]
    local src = cuarr.cpu.arange(dv.size, "int32"):reshape(dv.shape)
    dv:set(src)
    hv:set(src)
    d[{ { -1, 1, -7 } }] = -1
    h[{ { -1, 1, -7 } }] = -1
    check_equal(d:get():totable(), h:totable(), "after the writes")
  end)
end)
