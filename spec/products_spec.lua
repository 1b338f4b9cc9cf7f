-- dot, vdot, inner, outer, tensordot, kron and trace (lua/cuarr/products.lua).
--
-- Host side: each function against a plain-Lua reference computed from the operands' values,
-- over dtypes, 0-d to 3-D operands, Lua numbers, transposed and stepped views, empty arrays,
-- tensordot's axes forms and trace's offsets and axes; out arguments, methods, and misuses
-- with their error kinds.  #gpu: the same cases on device arrays, against the reference and
-- the host's results.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local Arrays = require "spec.support.arrays"
local cpu = cuarr.cpu

-- ---------------------------------------------------------------- references

local T, count, at, each_index = Arrays.tensor, Arrays.count, Arrays.at, Arrays.each_index

local function set_of(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

-- Sums of products over axes ca of A paired with axes cb of B (1-based, normalized).
local function ref_contract(A, B, ca, cb)
  local in_a, in_b = set_of(ca), set_of(cb)
  local free_a, free_b, shape, summed = {}, {}, {}, {}
  for ax = 1, #A.shape do
    if not in_a[ax] then free_a[#free_a + 1], shape[#shape + 1] = ax, A.shape[ax] end
  end
  for ax = 1, #B.shape do
    if not in_b[ax] then free_b[#free_b + 1], shape[#shape + 1] = ax, B.shape[ax] end
  end
  for i, ax in ipairs(ca) do summed[i] = A.shape[ax] end
  local data = {}
  each_index(shape, function(r)
    local ia, ib, s = {}, {}, 0
    for i, ax in ipairs(free_a) do ia[ax] = r[i] end
    for i, ax in ipairs(free_b) do ib[ax] = r[#free_a + i] end
    each_index(summed, function(c)
      for i = 1, #ca do ia[ca[i]], ib[cb[i]] = c[i], c[i] end
      s = s + A.data[at(A.shape, ia)] * B.data[at(B.shape, ib)]
    end)
    data[#data + 1] = s
  end)
  return { shape = shape, data = data }
end

local function flat(A) return { shape = { #A.data }, data = A.data } end

local R = {}

function R.dot(A, B)
  local na, nb = #A.shape, #B.shape
  if na == 0 or nb == 0 then return ref_contract(A, B, {}, {}) end
  return ref_contract(A, B, { na }, { nb == 1 and 1 or nb - 1 })
end

function R.vdot(A, B) return ref_contract(flat(A), flat(B), { 1 }, { 1 }) end

function R.inner(A, B)
  local na, nb = #A.shape, #B.shape
  if na == 0 or nb == 0 then return ref_contract(A, B, {}, {}) end
  return ref_contract(A, B, { na }, { nb })
end

function R.outer(A, B) return ref_contract(flat(A), flat(B), {}, {}) end

function R.tensordot(A, B, axes)
  local na, nb = #A.shape, #B.shape
  if axes == nil then axes = 2 end
  local ca, cb = {}, {}
  if type(axes) == "number" then
    for i = 1, axes do ca[i], cb[i] = na - axes + i, i end
  else
    local function side(s, nd)
      local list = type(s) == "number" and { s } or s
      local out = {}
      for i, ax in ipairs(list) do out[i] = ax < 0 and nd + 1 + ax or ax end
      return out
    end
    ca, cb = side(axes[1], na), side(axes[2], nb)
  end
  return ref_contract(A, B, ca, cb)
end

function R.kron(A, B)
  local nd = math.max(#A.shape, #B.shape)
  local sa, sb, shape = {}, {}, {}
  for i = 1, nd do
    sa[i] = A.shape[i - (nd - #A.shape)] or 1
    sb[i] = B.shape[i - (nd - #B.shape)] or 1
    shape[i] = sa[i] * sb[i]
  end
  local data, r = {}, {}
  each_index(sa, function(ia)
    each_index(sb, function(ib)
      for i = 1, nd do r[i] = ia[i] * sb[i] + ib[i] end
      data[at(shape, r)] = A.data[at(sa, ia)] * B.data[at(sb, ib)]
    end)
  end)
  return { shape = shape, data = data }
end

function R.trace(A, offset, axis1, axis2)
  local nd = #A.shape
  offset, axis1, axis2 = offset or 0, axis1 or 1, axis2 or 2
  axis1 = axis1 < 0 and nd + 1 + axis1 or axis1
  axis2 = axis2 < 0 and nd + 1 + axis2 or axis2
  local rest, shape = {}, {}
  for ax = 1, nd do
    if ax ~= axis1 and ax ~= axis2 then rest[#rest + 1], shape[#shape + 1] = ax, A.shape[ax] end
  end
  local data = {}
  each_index(shape, function(r)
    local idx, s = {}, 0
    for i, ax in ipairs(rest) do idx[ax] = r[i] end
    local i, j = math.max(0, -offset), math.max(0, offset)
    while i < A.shape[axis1] and j < A.shape[axis2] do
      idx[axis1], idx[axis2] = i, j
      s = s + A.data[at(A.shape, idx)]
      i, j = i + 1, j + 1
    end
    data[#data + 1] = s
  end)
  return { shape = shape, data = data }
end

-- ---------------------------------------------------------------- operands

-- Small values (exact in every dtype and in every sum here), different for each seed.
local function values(n, dtype, seed)
  local t = {}
  for i = 1, n do
    local v = (i * 7 + seed * 3) % 11 - 5
    if dtype == "bool" then
      v = v > 0
    elseif dtype:match("^uint") then
      v = v + 5
    end
    t[i] = v
  end
  return t
end

-- Operand makers: each is function(xp, dtype, seed) -> an array (or a Lua number), with a label.
local function plain(shape)
  return { label = "(" .. table.concat(shape, ",") .. ")", make = function(xp, dt, seed)
    return xp.array(values(count(shape), dt, seed), dt):reshape(shape)
  end }
end

-- A transposed view of the given shape.
local function transposed(shape)
  local reversed = {}
  for i = 1, #shape do reversed[i] = shape[#shape + 1 - i] end
  return { label = "(" .. table.concat(shape, ",") .. ") transposed", make = function(xp, dt, seed)
    return xp.array(values(count(shape), dt, seed), dt):reshape(reversed).T
  end }
end

-- A view of the given shape taking every other element of the last axis.
local function stepped(shape)
  local wide, index = {}, {}
  for i = 1, #shape do wide[i], index[i] = shape[i], {} end
  wide[#shape] = 2 * shape[#shape]
  index[#shape] = { 1, wide[#shape], 2 }
  return { label = "(" .. table.concat(shape, ",") .. ") stepped", make = function(xp, dt, seed)
    return xp.array(values(count(wide), dt, seed), dt):reshape(wide)[index]
  end }
end

local function number(v)
  return { label = "the number " .. v, make = function() return v end }
end

-- ---------------------------------------------------------------- cases

-- Each case: name, a function(xp, dt) -> result, reference tensor, expected dtype, and the
-- dtypes it runs over.
local cases = {}
local ALL = { "int32", "int64", "float32", "float64", "bool" }
local NUMERIC = { "int32", "int64", "float32", "float64" }

-- A table's short text, for case names.
local function dump(v)
  if type(v) ~= "table" then return tostring(v) end
  local parts = {}
  for i, x in ipairs(v) do parts[i] = dump(x) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- fn(a, b[, extra]) against R[fn] for operands of dtype dt.
local function binary(fn, a, b, extra, dtypes)
  local name = fn .. " of " .. a.label .. " and " .. b.label
  if extra ~= nil then name = name .. ", axes " .. dump(extra) end
  cases[#cases + 1] = { name = name, dtypes = dtypes or ALL, run = function(xp, dt)
    local x, y = a.make(xp, dt, 1), b.make(xp, dt, 2)
    return xp[fn](x, y, extra), R[fn](T(x), T(y), extra), dt
  end }
end

-- Mixed dtypes: the result's dtype is the promotion of the two.
local function mixed(fn, a, da, b, db, want, extra)
  cases[#cases + 1] = { name = fn .. " of " .. da .. " and " .. db, dtypes = { want },
    run = function(xp)
      local x, y = a.make(xp, da, 1), b.make(xp, db, 2)
      return xp[fn](x, y, extra), R[fn](T(x), T(y), extra), want
    end }
end

local SUM_DTYPE = { bool = "int64", int32 = "int64", int64 = "int64", uint8 = "uint64",
                    float32 = "float32", float64 = "float64" }

local function trace_case(a, offset, axis1, axis2, dtype, dtypes)
  local name = string.format("trace of %s, offset %s, axes %s %s, dtype %s", a.label,
    tostring(offset), tostring(axis1), tostring(axis2), tostring(dtype))
  cases[#cases + 1] = { name = name, dtypes = dtypes or ALL, run = function(xp, dt)
    local x = a.make(xp, dt, 3)
    return xp.trace(x, offset, axis1, axis2, dtype), R.trace(T(x), offset, axis1, axis2),
      dtype or SUM_DTYPE[dt]
  end }
end

-- dot: each of NumPy's cases, views, empties, scalars.
binary("dot", plain { 5 }, plain { 5 })
binary("dot", plain { 3, 4 }, plain { 4, 2 })
binary("dot", plain { 3, 4 }, plain { 4 })
binary("dot", plain { 4 }, plain { 4, 3 })
binary("dot", plain { 2, 3, 4 }, plain { 4 })
binary("dot", plain { 4 }, plain { 2, 4, 3 })
binary("dot", plain { 2, 3, 4 }, plain { 4, 2 })
binary("dot", plain { 3, 4 }, plain { 2, 4, 3 })
binary("dot", plain { 2, 3, 4 }, plain { 3, 4, 2 })
binary("dot", transposed { 3, 4 }, plain { 4, 2 })
binary("dot", plain { 3, 4 }, stepped { 4, 3 })
binary("dot", stepped { 2, 3, 4 }, transposed { 2, 4, 3 })
binary("dot", plain {}, plain { 2, 3 })
binary("dot", plain { 3 }, plain {})
binary("dot", number(3), plain { 2, 3 }, nil, NUMERIC)
binary("dot", plain { 0, 3 }, plain { 3, 2 })
binary("dot", plain { 2, 0 }, plain { 0, 3 })
binary("dot", plain { 0 }, plain { 0 })
binary("dot", plain { 2, 3, 0 }, plain { 2, 0, 4 })
mixed("dot", plain { 2, 3 }, "int32", plain { 3 }, "float32", "float64")
mixed("dot", plain { 2, 3 }, "bool", plain { 3, 2 }, "int32", "int32")
mixed("dot", plain { 2, 3, 4 }, "int32", plain { 2, 4, 3 }, "int64", "int64")

-- vdot: flattened operands of any shape with as many elements.
binary("vdot", plain { 6 }, plain { 6 })
binary("vdot", plain { 2, 3 }, plain { 3, 2 })
binary("vdot", transposed { 3, 4 }, stepped { 2, 2, 3 })
binary("vdot", plain {}, plain { 1 })
binary("vdot", plain { 0 }, plain { 2, 0 })
mixed("vdot", plain { 4 }, "float32", plain { 2, 2 }, "float64", "float64")

-- inner: over the last axes.
binary("inner", plain { 5 }, plain { 5 })
binary("inner", plain { 2, 4 }, plain { 3, 4 })
binary("inner", plain { 2, 3, 4 }, plain { 4 })
binary("inner", plain { 2, 3, 4 }, plain { 2, 4 })
binary("inner", transposed { 3, 4 }, stepped { 2, 4 })
binary("inner", plain {}, plain { 2, 3 })
binary("inner", plain { 2, 3 }, number(2), nil, NUMERIC)
binary("inner", plain { 2, 0 }, plain { 3, 0 })

-- outer: flattened, every pair.
binary("outer", plain { 3 }, plain { 4 })
binary("outer", plain { 2, 3 }, plain { 2 })
binary("outer", transposed { 2, 3 }, stepped { 2, 2 })
binary("outer", plain {}, plain { 3 })
binary("outer", plain { 0 }, plain { 3 })
binary("outer", plain { 3 }, number(-2), nil, NUMERIC)
mixed("outer", plain { 3 }, "int32", plain { 2 }, "float32", "float64")

-- tensordot: the default, counts, pairs of tables, single numbers, negative axes.
binary("tensordot", plain { 2, 3, 4 }, plain { 3, 4, 5 })
binary("tensordot", plain { 3, 4 }, plain { 3, 4 }, 2)
binary("tensordot", plain { 2, 3 }, plain { 3, 4 }, 1)
binary("tensordot", plain { 2, 3 }, plain { 4 }, 0)
binary("tensordot", plain {}, plain { 2, 2 }, 0)
binary("tensordot", plain { 2, 3, 4 }, plain { 4, 3, 5 }, { { 2, 3 }, { 2, 1 } })
binary("tensordot", plain { 3, 4, 2 }, plain { 2, 3 }, { 3, 1 })
binary("tensordot", plain { 2, 3, 4 }, plain { 5, 4 }, { { -1 }, { -1 } })
binary("tensordot", plain { 2, 3 }, plain { 3, 2 }, { {}, {} })
binary("tensordot", plain { 3, 4, 2 }, plain { 2, 4, 3 }, { { 3, 1, 2 }, { 1, 3, 2 } })
binary("tensordot", transposed { 3, 4 }, stepped { 4, 3 }, 1)
binary("tensordot", stepped { 2, 3, 2 }, transposed { 3, 2, 2 }, { { 2, -1 }, { 1, 2 } })
binary("tensordot", plain { 2, 0, 3 }, plain { 0, 3, 4 }, 2)
binary("tensordot", plain { 0, 3 }, plain { 3, 2 }, 1)
mixed("tensordot", plain { 2, 3 }, "bool", plain { 3, 2 }, "float32", "float32", 1)

-- kron: equal ranks, padded ranks, scalars, empties.
binary("kron", plain { 3 }, plain { 2 })
binary("kron", plain { 2, 2 }, plain { 2, 3 })
binary("kron", plain { 3 }, plain { 2, 2 })
binary("kron", plain { 2, 3 }, plain { 2, 1, 2 })
binary("kron", plain {}, plain { 2, 3 })
binary("kron", number(3), plain { 2, 2 }, nil, NUMERIC)
binary("kron", transposed { 2, 3 }, stepped { 2, 2 })
binary("kron", plain { 0, 2 }, plain { 2, 2 })
mixed("kron", plain { 2 }, "int32", plain { 2 }, "int64", "int64")

-- trace: offsets on both sides and past the edges, axes, dtype, views, 3-D.
for _, offset in ipairs { 0, 1, -1, 2, -2, 7, -7 } do
  trace_case(plain { 3, 4 }, offset)
end
trace_case(plain { 3, 3 })
trace_case(plain { 4, 2 }, -1, 2, 1)
trace_case(plain { 2, 3, 4 })
trace_case(plain { 2, 3, 4 }, 1, 2, 3)
trace_case(plain { 2, 3, 4 }, -1, 1, 3)
trace_case(plain { 2, 3, 4 }, 0, -1, 1)
trace_case(plain { 2, 3, 4 }, 1, 3, 2)
trace_case(transposed { 3, 4 }, 1)
trace_case(stepped { 2, 3, 3 }, 0, 2, 3)
trace_case(plain { 0, 0 })
trace_case(plain { 2, 0, 3 }, 0, 1, 3)
trace_case(plain { 3, 3 }, 0, 1, 2, "float64", NUMERIC)
trace_case(plain { 3, 3 }, 0, 1, 2, "float32", { "int32", "bool" })
trace_case(plain { 3, 3 }, nil, nil, nil, nil, { "uint8" })

-- ---------------------------------------------------------------- comparison

local function close(x, y)
  if type(x) == "boolean" or type(y) == "boolean" then return x == y end
  return x == y or math.abs(x - y) <= 1e-5 * math.max(1.0, math.abs(y))
end

-- got (an array) against want (a tensor) and its dtype; bool results hold "any product".
local function check(got, want, dtype, where)
  assert(getmetatable(got) == cuarr.ndarray, where .. ": not an array: " .. tostring(got))
  assert.are.equal(dtype, got.dtype, where .. ": dtype")
  assert.are.same(want.shape, T(got).shape, where .. ": shape")
  local elements = H.flat(got:totable())
  assert.are.equal(#want.data, #elements, where .. ": element count")
  for i, v in ipairs(want.data) do
    local w = v
    if dtype == "bool" then w = v ~= 0 end
    if not close(elements[i], w) then
      error(string.format("%s: element %d is %s, want %s", where, i, tostring(elements[i]),
        tostring(w)))
    end
  end
end

local function device_place(x)
  return x.device == "cpu" and "cpu" or "device"
end

describe("products on host arrays match the reference", function()
  for _, case in ipairs(cases) do
    it(case.name, function()
      for _, dt in ipairs(case.dtypes) do
        local got, want, dtype = case.run(cpu, dt)
        check(got, want, dtype, case.name .. " [" .. dt .. "]")
        assert.are.equal("cpu", device_place(got))
      end
    end)
  end
end)

describe("products on device arrays match the reference and the host", function()
  for _, case in ipairs(cases) do
    H.gpu_it(case.name, function()
      for _, dt in ipairs(case.dtypes) do
        local where = case.name .. " [" .. dt .. "]"
        local got, want, dtype = case.run(cuarr, dt)
        assert.are.equal("device", device_place(got), where)
        check(got, want, dtype, where)
        local host = case.run(cpu, dt)
        check(got, T(host), host.dtype, where .. " vs host")
      end
    end)
  end
end)

-- ---------------------------------------------------------------- out, methods, namespaces

describe("products", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("dot fills out, on each of its paths, and returns it", function()
      local a, v = xp.arange(6, "int32"):reshape({ 2, 3 }), xp.arange(3, "int32")
      local out = xp.zeros(2, "float64")
      assert.is_true(rawequal(out, xp.dot(a, v, out)))
      assert.are.same({ 5, 14 }, out:totable())
      local s = xp.arange(12, "int32"):reshape({ 2, 3, 2 })
      local out3 = xp.zeros({ 2, 2, 2 }, "int64")
      assert.is_true(rawequal(out3, xp.dot(a, s, out3)))
      check(out3, R.dot(T(a), T(s)), "int64", "dot into out")
      local out0 = xp.zeros({ 2, 3 }, "float32")
      assert.is_true(rawequal(out0, xp.dot(2, a, out0)))
      assert.are.same({ { 0, 2, 4 }, { 6, 8, 10 } }, out0:totable())
    end)

    b.it("outer fills out and returns it", function()
      local out = xp.zeros({ 2, 3 }, "float64")
      assert.is_true(rawequal(out, xp.outer(xp.arange(2), xp.arange(3), out)))
      assert.are.same({ { 0, 0, 0 }, { 0, 1, 2 } }, out:totable())
    end)

    b.it("a refused out is left as it was", function()
      local a, s = xp.ones({ 2, 3 }), xp.ones({ 2, 3, 2 })
      local out = xp.full({ 2, 2 }, 7.0)
      H.raises("ValueError", xp.dot, a, s, out)
      H.raises("TypeError", xp.dot, a, s, xp.zeros({ 2, 2, 2 }, "int32"))
      assert.are.same({ { 7, 7 }, { 7, 7 } }, out:totable())
    end)

    b.it("dot and trace as methods", function()
      local a = xp.arange(9, "int32"):reshape({ 3, 3 })
      check(a:dot(a), R.dot(T(a), T(a)), "int32", "a:dot(a)")
      assert.are.equal(12, a:trace():item())
      assert.are.equal(6, a:trace(1):item())
      assert.are.equal(10, a.T:trace(-1, 2, 1, "int32"):item())
      assert.are.equal("int32", a:trace(0, 1, 2, "int32").dtype)
      local out = xp.zeros(3, "int32")
      assert.is_true(rawequal(out, a:dot(xp.ones(3, "int32"), out)))
      assert.are.same({ 3, 12, 21 }, out:totable())
    end)

    b.it("the inputs are left as they were", function()
      local a = xp.arange(6):reshape({ 2, 3 })
      local before = a:totable()
      xp.dot(a, a.T)
      xp.tensordot(a, a, { { 1 }, { 1 } })
      xp.kron(a, a)
      xp.outer(a, a)
      assert.are.same(before, a:totable())
    end)
  end

  it("Lua numbers alone give a host array in cuarr.cpu", function()
    check(cpu.dot(2, 3), { shape = {}, data = { 6 } }, "int64", "dot")
    check(cpu.inner(2, 1.5), { shape = {}, data = { 3 } }, "float64", "inner")
    check(cpu.outer(2, 3), { shape = { 1, 1 }, data = { 6 } }, "int64", "outer")
    check(cpu.kron(2, 3), { shape = {}, data = { 6 } }, "int64", "kron")
    check(cpu.vdot(2, cpu.array({ 4 }, "int32")), { shape = {}, data = { 8 } }, "int32", "vdot")
    check(cpu.tensordot(2, 3, 0), { shape = {}, data = { 6 } }, "int64", "tensordot")
  end)

  it("a Lua number is a weak scalar, as in the ufuncs", function()
    assert.are.equal("float32", cpu.dot(cpu.ones(3, "float32"), 2.5).dtype)
    assert.are.equal("int8", cpu.kron(cpu.ones(2, "int8"), 3).dtype)
    assert.are.equal("float32", cpu.outer(1.5, cpu.ones(2, "float32")).dtype)
  end)

  it("is in both namespaces, and dot and trace are methods", function()
    for _, name in ipairs { "dot", "vdot", "inner", "outer", "tensordot", "kron", "trace" } do
      assert.is_function(cuarr[name], name)
      assert.is_function(cpu[name], "cpu." .. name)
    end
    local a = cpu.ones({ 2, 2 })
    assert.is_function(a.dot)
    assert.is_function(a.trace)
  end)

  H.gpu_it("Lua numbers alone give a device array in cuarr", function()
    local r = cuarr.dot(2, 3)
    assert.are_not.equal("cpu", r.device)
    assert.are.equal(6, r:item())
  end)

  H.gpu_it("mixing host and device arrays is a ValueError", function()
    local h, d = cpu.ones({ 2, 2 }), cuarr.ones({ 2, 2 })
    H.raises("ValueError", cuarr.dot, h, d)
    H.raises("ValueError", cpu.dot, d, h)
    H.raises("ValueError", cuarr.dot, h, cuarr.ones({ 2, 2, 2 }))
    H.raises("ValueError", cuarr.vdot, h, d)
    H.raises("ValueError", cuarr.inner, d, h)
    H.raises("ValueError", cuarr.outer, h, d)
    H.raises("ValueError", cuarr.tensordot, d, h)
    H.raises("ValueError", cuarr.kron, h, d)
    H.raises("ValueError", cuarr.dot, d, d, cpu.zeros({ 2, 2 }))
    H.raises("ValueError", cuarr.dot, d, cuarr.ones({ 2, 2, 2 }), cpu.zeros({ 2, 2, 2 }))
  end)
end)

-- ---------------------------------------------------------------- misuse

describe("products refuse", function()
  local m23, m32, v3, v4 = cpu.ones({ 2, 3 }), cpu.ones({ 3, 2 }), cpu.ones(3), cpu.ones(4)
  local s3, s43 = cpu.ones({ 2, 3, 4 }), cpu.ones({ 2, 4, 3 })
  local misuses = {
    { "dot of vectors of different lengths", "ValueError", cpu.dot, v3, v4 },
    { "dot of unaligned matrices", "ValueError", cpu.dot, m23, m23 },
    { "dot of a matrix and a stack that do not align", "ValueError", cpu.dot, m23, s43 },
    { "dot of a string", "TypeError", cpu.dot, "1", v3 },
    { "dot of a table", "TypeError", cpu.dot, v3, { 1, 2, 3 } },
    { "dot into an out that is not an array", "TypeError", cpu.dot, m23, m32, {} },
    { "dot into an out of the wrong shape", "ValueError", cpu.dot, m23, m32, cpu.zeros(4) },
    { "dot into an integer out for a float result", "TypeError", cpu.dot, m23, m32,
      cpu.zeros({ 2, 2 }, "int32") },
    { "the dot method on something else", "TypeError", cuarr.ndarray.methods.dot, 5, v3 },
    { "vdot of different sizes", "ValueError", cpu.vdot, m23, v4 },
    { "vdot of a number and a longer array", "ValueError", cpu.vdot, 2, v3 },
    { "vdot of nil", "TypeError", cpu.vdot, v3, nil },
    { "inner with different last axes", "ValueError", cpu.inner, m23, m32 },
    { "inner of a function", "TypeError", cpu.inner, print, v3 },
    { "outer into an out of the wrong shape", "ValueError", cpu.outer, v3, v4, cpu.zeros(3) },
    { "outer into an out that is a number", "TypeError", cpu.outer, v3, v4, 3 },
    { "outer of a string", "TypeError", cpu.outer, v3, "x" },
    { "tensordot with a negative count", "ValueError", cpu.tensordot, m23, m32, -1 },
    { "tensordot with a count beyond the dimensions", "ValueError", cpu.tensordot, m23, m32, 3 },
    { "tensordot with a fractional count", "TypeError", cpu.tensordot, m23, m32, 1.5 },
    { "tensordot with mismatched extents", "ValueError", cpu.tensordot, m23, m23, 1 },
    { "tensordot with an axis out of range", "IndexError", cpu.tensordot, m23, m32,
      { { 3 }, { 1 } } },
    { "tensordot with axis 0", "IndexError", cpu.tensordot, m23, m32, { 0, 1 } },
    { "tensordot with a negative axis out of range", "IndexError", cpu.tensordot, m23, m32,
      { { 1 }, { -3 } } },
    { "tensordot with a repeated axis", "ValueError", cpu.tensordot, m23, cpu.ones({ 3, 3 }),
      { { 2, 2 }, { 1, 2 } } },
    { "tensordot with a repeated negative axis", "ValueError", cpu.tensordot, m23, m32,
      { { 2, -1 }, { 1, 1 } } },
    { "tensordot with as many axes on neither side", "ValueError", cpu.tensordot, s3, s3,
      { { 1, 2 }, { 1 } } },
    { "tensordot with a fractional axis", "TypeError", cpu.tensordot, m23, m32,
      { { 1.5 }, { 1 } } },
    { "tensordot with a string axis", "TypeError", cpu.tensordot, m23, m32, { { "1" }, { 1 } } },
    { "tensordot with axes that are a string", "TypeError", cpu.tensordot, m23, m32, "2" },
    { "tensordot with axes that are an array", "TypeError", cpu.tensordot, m23, m32, v3 },
    { "tensordot with three sides of axes", "ValueError", cpu.tensordot, m23, m32,
      { { 1 }, { 1 }, { 1 } } },
    { "tensordot with a side that is a string", "TypeError", cpu.tensordot, m23, m32,
      { "a", { 1 } } },
    { "tensordot of a number over an axis", "IndexError", cpu.tensordot, 2, v3, { { 1 }, { 1 } } },
    { "tensordot of a number with the default axes", "ValueError", cpu.tensordot, 2, v3 },
    { "kron of a string", "TypeError", cpu.kron, "2", v3 },
    { "trace of a vector", "ValueError", cpu.trace, v3 },
    { "trace of a 0-d array", "ValueError", cpu.trace, cpu.array(1) },
    { "trace of a number", "TypeError", cpu.trace, 5 },
    { "trace over one axis twice", "ValueError", cpu.trace, m23, 0, 2, 2 },
    { "trace over an axis out of range", "IndexError", cpu.trace, m23, 0, 1, 3 },
    { "trace with a fractional offset", "TypeError", cpu.trace, m23, 0.5 },
    { "trace with an unknown dtype", "TypeError", cpu.trace, m23, 0, 1, 2, "float128" },
    { "trace with a dtype that is not a string", "TypeError", cpu.trace, m23, 0, 1, 2, 64 },
    { "the trace method on something else", "TypeError", cuarr.ndarray.methods.trace, {} },
  }
  for _, case in ipairs(misuses) do
    it(case[1] .. " (" .. case[2] .. ")", function()
      local out = case[6]
      local before = H.flat(m23:totable())
      local out_before = getmetatable(out) == cuarr.ndarray and out:totable()
      H.raises(case[2], case[3], table.unpack(case, 4, #case))
      assert.are.same(before, H.flat(m23:totable()))
      if out_before then assert.are.same(out_before, out:totable()) end
    end)
  end
end)
