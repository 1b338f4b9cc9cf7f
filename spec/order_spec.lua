-- NumPy's order= ('C', 'F', 'A', 'K') wherever NumPy takes it: the creations and their *_like,
-- device_array, reshape, ravel, flatten, copy, astype, array and asarray; flags.c_contiguous /
-- f_contiguous and a:is_c_contiguous() / a:is_f_contiguous(); transfers that keep the layout;
-- F-order operands in ufuncs, reductions and kernels.  Each case runs on host arrays ([cpu]) and
-- device arrays ([gpu], #gpu), and checks shape, strides, flags and the values in index order.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local ORDERS = { "C", "F", "A", "K" }

local function seq(t) return { table.unpack(t) } end

-- Strides of a contiguous layout (extents of 0 count as 1, as NumPy's).
local function c_strides(shape, itemsize)
  local st, s = {}, itemsize
  for i = #shape, 1, -1 do
    st[i] = s
    s = s * math.max(shape[i], 1)
  end
  return st
end

local function f_strides(shape, itemsize)
  local st, s = {}, itemsize
  for i = 1, #shape do
    st[i] = s
    s = s * math.max(shape[i], 1)
  end
  return st
end

-- The elements of nested table t (shape) in C or F index order.
local function flat_in(t, shape, order)
  local out, idx = {}, {}
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  for k = 0, n - 1 do
    local r = k
    if order == "C" then
      for i = #shape, 1, -1 do idx[i] = r % shape[i] + 1; r = r // shape[i] end
    else
      for i = 1, #shape do idx[i] = r % shape[i] + 1; r = r // shape[i] end
    end
    local v = t
    for i = 1, #shape do v = v[idx[i]] end
    out[#out + 1] = v
  end
  return out
end

-- A nested table of shape filled from list in C or F index order.
local function build_in(list, shape, order)
  local function at_index(idx)
    local k, m = 0, 1
    if order == "C" then
      for i = #shape, 1, -1 do k = k + (idx[i] - 1) * m; m = m * shape[i] end
    else
      for i = 1, #shape do k = k + (idx[i] - 1) * m; m = m * shape[i] end
    end
    return list[k + 1]
  end
  local function rec(d, idx)
    if d > #shape then return at_index(idx) end
    local t = {}
    for i = 1, shape[d] do
      idx[d] = i
      t[i] = rec(d + 1, idx)
    end
    return t
  end
  if #shape == 0 then return list[1] end
  return rec(1, {})
end

-- 1..24 as a 2x3x4 table, and the prototypes of every layout made from it: C-contiguous,
-- F-contiguous, transposed (F-contiguous without being made so) and stepped (neither).
local T234 = build_in((function()
  local l = {}
  for i = 1, 24 do l[i] = i end
  return l
end)(), { 2, 3, 4 }, "C")

local function prototypes(xp)
  local c = xp.array(T234, "int32")
  local f = xp.array(T234, "int32", { order = "F" })
  return {
    { name = "C", a = c, layout = "C" },
    { name = "F", a = f, layout = "F" },
    { name = "transposed", a = c.T, layout = "F" },
    { name = "stepped", a = c[{ {}, {}, { 1, -1, 2 } }], layout = "none" },
    { name = "reversed", a = c[{ {}, { -1, 1, -1 } }], layout = "none" },
    { name = "permuted", a = c:transpose(2, 1, 3), layout = "213" },
  }
end

-- The strides order `order` gives a copy of a prototype of `layout`: "C", "F", "none" (gaps or
-- reversed axes: K gives C) or "213" (axes 2, 1, 3 of a C-contiguous array: K keeps that
-- memory order, axis 3 fastest, then axis 1, then axis 2).
local function expected_strides(order, layout, shape, itemsize)
  if order == "K" and layout == "213" then
    return { shape[3] * itemsize, shape[1] * shape[3] * itemsize, itemsize }
  end
  local f = order == "F" or (order == "A" and layout == "F") or (order == "K" and layout == "F")
  return f and f_strides(shape, itemsize) or c_strides(shape, itemsize)
end

local function check_layout(a, shape, strides, what)
  assert.are.same(shape, seq(a.shape), what .. ": shape")
  assert.are.same(strides, seq(a.strides), what .. ": strides")
end

describe("order= in creations", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, fname in ipairs({ "empty", "zeros", "ones", "full" }) do
      b.it(fname .. " lays out C and F order, 0-d and empty arrays included", function()
        local function make(shape, order)
          if fname == "full" then return xp.full(shape, 7, "float32", { order = order }) end
          return xp[fname](shape, "float32", { order = order })
        end
        for _, shape in ipairs({ { 2, 3, 4 }, { 5 }, {}, { 0, 3 }, { 3, 0, 2 } }) do
          for _, order in ipairs({ "C", "F" }) do
            local a = make(shape, order)
            local what = fname .. " " .. order .. " (" .. table.concat(shape, ",") .. ")"
            local st = order == "C" and c_strides(shape, 4) or f_strides(shape, 4)
            check_layout(a, shape, st, what)
            local multi = #shape >= 2 and a.size > 0
            assert.are.equal(order == "C" or not multi, a.flags.c_contiguous, what)
            assert.are.equal(order == "F" or not multi, a.flags.f_contiguous, what)
            assert.are.equal(a.flags.c_contiguous, a:is_c_contiguous(), what)
            assert.are.equal(a.flags.f_contiguous, a:is_f_contiguous(), what)
            if fname ~= "empty" and #shape > 0 then
              local want = ({ zeros = 0.0, ones = 1.0, full = 7.0 })[fname]
              for _, v in ipairs(flat_in(a:totable(), shape, "C")) do
                assert.are.equal(want, v, what)
              end
            end
          end
        end
        -- the default is C
        check_layout(make({ 2, 3 }), { 2, 3 }, { 12, 4 }, fname .. " default")
      end)

      b.it(fname .. ": A and K need a prototype, other strings and types are refused", function()
        local function make(order)
          if fname == "full" then return xp.full({ 2, 3 }, 7, "float32", { order = order }) end
          return xp[fname]({ 2, 3 }, "float32", { order = order })
        end
        for _, order in ipairs({ "A", "K" }) do
          local err = H.raises("ValueError", make, order)
          assert.truthy(err.message:find("'C' or 'F'", 1, true), err.message)
        end
        for _, order in ipairs({ "X", "c", "f", "CF", "" }) do
          local err = H.raises("ValueError", make, order)
          assert.truthy(err.message:find("order must be one of 'C', 'F', 'A', 'K'", 1, true),
                        err.message)
        end
        for _, order in ipairs({ 1, true, {} }) do H.raises("TypeError", make, order) end
      end)
    end

    if b.name == "gpu" then
      b.it("device_array, device_array_like and pinned host arrays take order too", function()
        local a = cuarr.device_array({ 3, 4 }, "float32", { order = "F" })
        check_layout(a, { 3, 4 }, { 4, 12 }, "device_array F")
        assert.is_true(a:is_f_contiguous())
        assert.is_false(a:is_c_contiguous())
        local l = cuarr.device_array_like(a)
        check_layout(l, { 3, 4 }, { 4, 12 }, "device_array_like keeps F")
        H.raises("ValueError", cuarr.device_array, { 3, 4 }, "float32", { order = "Z" })
        local p = cuarr.cpu.empty({ 3, 4 }, "float32", { order = "F", pinned = true })
        check_layout(p, { 3, 4 }, { 4, 12 }, "pinned F")
      end)
    end
  end
end)

describe("order= in *_like", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, fname in ipairs({ "empty_like", "zeros_like", "ones_like", "full_like" }) do
      b.it(fname .. ": every order on every layout of prototype (default K)", function()
        for _, p in ipairs(prototypes(xp)) do
          for _, order in ipairs({ false, "C", "F", "A", "K" }) do
            local opts = order and { order = order } or nil
            local a
            if fname == "full_like" then
              a = xp.full_like(p.a, 5, nil, opts)
            else
              a = xp[fname](p.a, nil, opts)
            end
            local shape = seq(p.a.shape)
            local what = fname .. " " .. tostring(order) .. " of " .. p.name
            check_layout(a, shape, expected_strides(order or "K", p.layout, shape, 4), what)
            assert.are.equal("int32", a.dtype, what)
            if fname ~= "empty_like" then
              local want = ({ zeros_like = 0, ones_like = 1, full_like = 5 })[fname]
              for _, v in ipairs(flat_in(a:totable(), shape, "C")) do
                assert.are.equal(want, v, what)
              end
            end
          end
        end
      end)
    end

    b.it("*_like of 0-d and empty prototypes, and a bad order", function()
      local z = xp.zeros({}, "float64")
      check_layout(xp.zeros_like(z, nil, { order = "F" }), {}, {}, "0-d")
      local e = xp.zeros({ 0, 3 }, "float32", { order = "F" })
      -- an empty array is C- and F-contiguous at once: K then gives C order, as NumPy
      check_layout(xp.empty_like(e), { 0, 3 }, { 12, 4 }, "empty K")
      check_layout(xp.empty_like(e, nil, { order = "F" }), { 0, 3 }, { 4, 4 }, "empty F")
      check_layout(xp.empty_like(e, nil, { order = "C" }), { 0, 3 }, { 12, 4 }, "empty C")
      H.raises("ValueError", xp.empty_like, z, nil, { order = "B" })
      H.raises("TypeError", xp.empty_like, z, nil, { order = 2 })
    end)
  end
end)

describe("order= in reshape, ravel and flatten", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("reshape in C, F and A index order from every layout", function()
      for _, p in ipairs(prototypes(xp)) do
        local src_shape = seq(p.a.shape)
        local t = p.a:totable()
        local n = p.a.size
        for _, order in ipairs({ "C", "F", "A" }) do
          for _, shape in ipairs({ { n }, { n // 2, 2 }, { 2, -1, 1 } }) do
            local r = p.a:reshape(shape, { order = order })
            local want_shape = seq(shape)
            for i, e in ipairs(want_shape) do
              if e == -1 then want_shape[i] = n // 2 end
            end
            local io = (order == "F" or (order == "A" and p.layout == "F")) and "F" or "C"
            local what = "reshape " .. order .. " of " .. p.name
            assert.are.same(want_shape, seq(r.shape), what)
            local want = build_in(flat_in(t, src_shape, io), want_shape, io)
            assert.are.same(want, r:totable(), what)
          end
        end
        -- also as varargs, and as the module function
        local r = xp.reshape(p.a, 2, n // 2, { order = "F" })
        assert.are.same(build_in(flat_in(t, src_shape, "F"), { 2, n // 2 }, "F"), r:totable())
      end
    end)

    b.it("reshape in F order of an F-contiguous array is a view, F-contiguous", function()
      local f = xp.array(T234, "int32", { order = "F" })
      local r = f:reshape({ 6, 4 }, { order = "F" })
      assert.is_true(r.flags.f_contiguous)
      r[{ 1, 1 }] = 100
      assert.are.equal(100, f[{ 1, 1, 1 }])
      H.raises("ValueError", f.reshape, f, { 24 }, { order = "K" })
      H.raises("ValueError", f.reshape, f, { 24 }, { order = "Q" })
      H.raises("TypeError", f.reshape, f, { 24 }, { order = false })
    end)

    for _, fname in ipairs({ "ravel", "flatten" }) do
      b.it(fname .. " in every order from every layout", function()
        for _, p in ipairs(prototypes(xp)) do
          local src_shape = seq(p.a.shape)
          local t = p.a:totable()
          for _, order in ipairs({ false, "C", "F", "A", "K" }) do
            local o = order or "C"
            local io = o
            if o == "A" then io = p.layout == "F" and "F" or "C" end
            if o == "K" then -- memory order; reversed axes are read in index order, as NumPy
              io = p.layout == "F" and "F" or "C"
            end
            local want = flat_in(t, src_shape, io)
            if o == "K" and p.layout == "213" then want = flat_in(T234, { 2, 3, 4 }, "C") end
            local what = fname .. " " .. tostring(order) .. " of " .. p.name
            for _, form in ipairs({ "string", "table" }) do
              local arg = order and (form == "string" and order or { order = order }) or nil
              local r = p.a[fname](p.a, arg)
              assert.are.same({ p.a.size }, seq(r.shape), what)
              assert.are.same(want, r:totable(), what)
            end
          end
        end
      end)
    end

    b.it("ravel is a view when the array is contiguous in that order; flatten never", function()
      local f = xp.array(T234, "int32", { order = "F" })
      local v = f:ravel("F")
      v[1] = -1
      assert.are.equal(-1, f[{ 1, 1, 1 }])
      local k = f:ravel("K")
      k[2] = -2
      assert.are.equal(-2, f[{ 2, 1, 1 }])
      local c = f:flatten("F")
      c[1] = 99
      assert.are.equal(-1, f[{ 1, 1, 1 }])
      -- 0-d and empty arrays
      local z = xp.full({}, 3, "int32")
      assert.are.same({ 3 }, z:ravel("F"):totable())
      assert.are.same({ 3 }, z:flatten("K"):totable())
      local e = xp.zeros({ 0, 3 }, "int32", { order = "F" })
      assert.are.same({ 0 }, seq(e:ravel("K").shape))
      H.raises("ValueError", f.ravel, f, "Z")
      H.raises("TypeError", f.flatten, f, 3)
    end)
  end
end)

describe("order= in copy and astype", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, fname in ipairs({ "copy", "astype" }) do
      b.it(fname .. " in every order from every layout (default K keeps the layout)", function()
        for _, p in ipairs(prototypes(xp)) do
          local shape = seq(p.a.shape)
          for _, order in ipairs({ false, "C", "F", "A", "K" }) do
            local r, default = nil, fname == "copy" and "C" or "K" -- ndarray.copy's is C
            if fname == "copy" then
              r = p.a:copy(order or nil)
            else
              r = p.a:astype("float64", order and { order = order } or nil)
            end
            local size = fname == "copy" and 4 or 8
            local what = fname .. " " .. tostring(order) .. " of " .. p.name
            check_layout(r, shape, expected_strides(order or default, p.layout, shape, size), what)
            local want = p.a:totable()
            if fname == "astype" then
              want = build_in((function()
                local l = flat_in(want, shape, "C")
                for i, v in ipairs(l) do l[i] = v + 0.0 end
                return l
              end)(), shape, "C")
            end
            assert.are.same(want, r:totable(), what)
          end
        end
      end)
    end

    b.it("copy and astype: the module functions, a table of options, and errors", function()
      local c = xp.array(T234, "int32")
      check_layout(xp.copy(c, { order = "F" }), { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 4), "cuarr.copy")
      check_layout(xp.astype(c, "int16", { order = "F" }), { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 2),
                   "cuarr.astype")
      H.raises("ValueError", c.copy, c, "N")
      H.raises("TypeError", c.astype, c, "int32", { order = 1 })
    end)

    b.it("astype with copy=false copies only when the order asks for another layout", function()
      local f = xp.array(T234, "int32", { order = "F" })
      assert.are.equal(f, f:astype("int32", { copy = false }))
      assert.are.equal(f, f:astype("int32", { copy = false, order = "F" }))
      assert.are.equal(f, f:astype("int32", { copy = false, order = "A" }))
      local c = f:astype("int32", { copy = false, order = "C" })
      assert.are_not.equal(f, c)
      assert.is_true(c:is_c_contiguous())
      assert.are.same(f:totable(), c:totable())
    end)
  end
end)

describe("order= in array and asarray", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("array and asarray from a table in every order", function()
      for _, fname in ipairs({ "array", "asarray" }) do
        for _, order in ipairs(ORDERS) do
          local a = xp[fname](T234, "int32", { order = order })
          local what = fname .. " " .. order
          check_layout(a, { 2, 3, 4 }, expected_strides(order, "C", { 2, 3, 4 }, 4), what)
          assert.are.same(T234, a:totable(), what)
        end
        check_layout(xp[fname]({ 1, 2, 3 }, nil, { order = "F" }), { 3 }, { 8 }, "1-D")
        check_layout(xp[fname](5, nil, { order = "F" }), {}, {}, "0-d")
      end
    end)

    b.it("array copies keeping the layout (K); asarray returns the array when its order fits",
         function()
      for _, p in ipairs(prototypes(xp)) do
        local shape = seq(p.a.shape)
        for _, order in ipairs(ORDERS) do
          local what = order .. " of " .. p.name
          local a = xp.array(p.a, nil, { order = order })
          check_layout(a, shape, expected_strides(order, p.layout, shape, 4), "array " .. what)
          assert.are.same(p.a:totable(), a:totable(), what)
          local s = xp.asarray(p.a, nil, { order = order })
          local fits = order == "A" or order == "K" or (order == "C" and p.layout == "C") or
                           (order == "F" and p.layout == "F")
          assert.are.equal(fits, rawequal(s, p.a), "asarray " .. what)
          if not fits then
            check_layout(s, shape, expected_strides(order, p.layout, shape, 4), "asarray " .. what)
          end
          assert.are.same(p.a:totable(), s:totable(), what)
        end
      end
      H.raises("ValueError", xp.asarray, T234, nil, { order = "W" })
      H.raises("TypeError", xp.array, T234, nil, { order = {} })
    end)
  end
end)

describe("flags and is_c_contiguous / is_f_contiguous", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("as NumPy says: 1-D, 0-d and empty arrays are both", function()
      local cases = {
        { xp.zeros({ 4 }), true, true, "1-D" },
        { xp.zeros({}), true, true, "0-d" },
        { xp.zeros({ 0, 3 }), true, true, "empty" },
        { xp.zeros({ 0, 3 }, nil, { order = "F" }), true, true, "empty F" },
        { xp.zeros({ 1, 3 }, nil, { order = "F" }), true, true, "extent 1" },
        { xp.zeros({ 2, 3 }), true, false, "C" },
        { xp.zeros({ 2, 3 }, nil, { order = "F" }), false, true, "F" },
        { xp.zeros({ 2, 3 }).T, false, true, "transposed" },
        { xp.zeros({ 2, 6 })[{ {}, { 1, -1, 2 } }], false, false, "stepped" },
        { xp.zeros({ 6 })[{ { 1, -1, 2 } }], false, false, "stepped 1-D" },
      }
      for _, c in ipairs(cases) do
        local a, cc, fc, what = table.unpack(c)
        assert.are.equal(cc, a.flags.c_contiguous, what)
        assert.are.equal(fc, a.flags.f_contiguous, what)
        assert.are.equal(cc, a:is_c_contiguous(), what)
        assert.are.equal(fc, a:is_f_contiguous(), what)
      end
    end)
  end
end)

describe("F-order operands", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("in ufuncs and reductions give the C case's results", function()
      local c = xp.array(T234, "float32")
      local f = xp.array(T234, "float32", { order = "F" })
      assert.is_true(f:is_f_contiguous() and not f:is_c_contiguous())
      assert.are.same((c + c):totable(), (f + f):totable())
      assert.are.same((c * 2 - c):totable(), (f * 2 - c):totable())
      assert.are.same(c:sum(2):totable(), f:sum(2):totable())
      assert.are.same(c:max(1):totable(), f:max(1):totable())
      assert.are.equal(c:sum():item(), f:sum():item())
      assert.are.same(c:cumsum(3):totable(), f:cumsum(3):totable())
      local t = f.T
      assert.are.same((c.T + 1):totable(), (t + 1):totable())
    end)
  end

  H.gpu_it("in an ElementwiseKernel give the C case's results [gpu]", function()
    local k = cuarr.ElementwiseKernel("T x, T y", "T z", "z = x * 2 + y", "order_spec_k")
    local c = cuarr.array(T234, "float32")
    local f = cuarr.array(T234, "float32", { order = "F" })
    assert.is_true(f:is_f_contiguous() and not f:is_c_contiguous())
    assert.are.same(k(c, c):totable(), k(f, f):totable())
    assert.are.same(k(c, c):totable(), k(f, c):totable())
    local out = cuarr.empty({ 2, 3, 4 }, "float32", { order = "F" })
    k(c, f, out)
    assert.are.same(k(c, c):totable(), out:totable())
  end)
end)

describe("transfers keep the layout", function()
  H.gpu_it("to_device of an F-order host array is F-order; get() of one too [gpu]", function()
    local h = cuarr.cpu.array(T234, "float64", { order = "F" })
    local d = cuarr.to_device(h)
    check_layout(d, { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 8), "to_device")
    assert.are.same(T234, d:totable())
    local back = d:get()
    check_layout(back, { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 8), "get")
    assert.are.same(T234, back:totable())
    check_layout(d:copy_to_host(), { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 8), "copy_to_host")
    check_layout(cuarr.asnumpy(d), { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 8), "asnumpy")
    -- a transposed view arrives F-contiguous; a stepped one C-contiguous
    local c = cuarr.array(T234, "float64")
    check_layout(c.T:get(), { 4, 3, 2 }, f_strides({ 4, 3, 2 }, 8), "get of a transpose")
    assert.are.same(cuarr.cpu.array(T234, "float64").T:totable(), c.T:get():totable())
    local s = c[{ {}, {}, { 1, -1, 2 } }]
    check_layout(s:get(), { 2, 3, 2 }, c_strides({ 2, 3, 2 }, 8), "get of a stepped view")
    -- into an existing host array of the other order: converted
    local hc = cuarr.cpu.zeros({ 2, 3, 4 }, "float64")
    d:copy_to_host(hc)
    assert.are.same(T234, hc:totable())
    -- pinned, both ways
    local p = cuarr.cpu.array(T234, "float64", { order = "F", pinned = true })
    local dp = cuarr.to_device(p)
    assert.is_true(dp:is_f_contiguous())
    assert.are.same(T234, dp:totable())
    local back_p = cuarr.cpu.zeros({ 2, 3, 4 }, "float64", { order = "F", pinned = true })
    d:copy_to_host(back_p)
    assert.are.same(T234, back_p:totable())
    -- set() from an F-order host array into a C-order device array
    local dc = cuarr.zeros({ 2, 3, 4 }, "float64")
    dc:set(h)
    assert.are.same(T234, dc:totable())
  end)

  -- On the stand-in driver (tools/fake_cuda: device memory is host memory, kernels never run)
  -- the values only come back right if the bytes crossed as they are, with no conversion kernel
  -- on the device: what a transfer between layouts of the same order must be.
  it("F-order arrays and transposed views cross as their bytes, keeping the layout [cpu]",
     function()
    local core = assert(package.searchpath("cuarr.core", package.cpath), "cuarr.core not found")
    local fake = core:gsub("cuarr/core%.so$", "fake_cuda/libcuda.so.1")
    assert(io.open(fake), "no stand-in driver at " .. fake .. ": `make " .. fake .. "`"):close()
    local ok, out, err = require("spec.support.child").run([[
local cuarr = require "cuarr"
local function s(t) return table.concat({ table.unpack(t) }, ",") end
local t = { { 1, 2, 3 }, { 4, 5, 6 } }
local h = cuarr.cpu.array(t, "float64", { order = "F" })
local d = cuarr.to_device(h)
print(s(d.strides), s(d:get().strides), s(d:get():ravel("K"):totable()))
local c = cuarr.to_device(cuarr.cpu.array(t, "float64"))
print(s(c.T:get().strides), s(c.T:get():ravel("K"):totable()))
local p = cuarr.cpu.array(t, "float64", { order = "F", pinned = true })
print(s(cuarr.to_device(p):get():totable()[2]))
print(s(cuarr.device_array({ 3, 4 }, "float32", { order = "F" }).strides))
]], { CUARR_LIBCUDA = fake, CUARR_CACHE_IN_MEMORY = "1" })
    assert(ok, err)
    assert.are.equal(table.concat({ "8,16", "8,16", "1.0,4.0,2.0,5.0,3.0,6.0" }, "\t") .. "\n" ..
                     table.concat({ "8,24", "1.0,2.0,3.0,4.0,5.0,6.0" }, "\t") .. "\n" ..
                     "4.0,5.0,6.0\n4,12\n", out)
  end)

  it("to_device / get of F-order arrays through the host paths [cpu]", function()
    -- a host array's get() is itself, and cuarr.cpu.array keeps F order
    local h = cuarr.cpu.array(T234, "float64", { order = "F" })
    assert.are.equal(h, h:get())
    check_layout(cuarr.cpu.array(h), { 2, 3, 4 }, f_strides({ 2, 3, 4 }, 8), "cpu.array")
  end)
end)
