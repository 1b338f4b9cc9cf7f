-- Arrays as views of reference-counted buffers: the fields (dtype shape strides ndim size
-- nbytes itemsize device flags base), and the shape operations that make views or copies
-- (reshape, ravel, flatten, transpose, T, swapaxes, squeeze, expand_dims, copy,
-- ascontiguousarray), on the host (cuarr.cpu) and on the device (cuarr).  Whether a result
-- shares memory is checked by writing through it and reading the other array.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local ITEMSIZE = A.ITEMSIZE
local check_equal, build, sample = A.check_equal, A.build, A.sample

local function at(t, idx)
  for _, i in ipairs(idx) do t = t[i] end
  return t
end

-- The C-order flattening of a nested table.
local function flat(t) return H.flat(t) end

-- All permutations of {1..n}.
local function permutations(n)
  local out, cur, used = {}, {}, {}
  local function rec(k)
    if k > n then
      out[#out + 1] = { table.unpack(cur) }
      return
    end
    for i = 1, n do
      if not used[i] then
        used[i] = true
        cur[k] = i
        rec(k + 1)
        used[i] = false
      end
    end
  end
  rec(1)
  return out
end

-- Reference transpose of nested table t (shape `shape`) by a 1-based permutation.
local function ref_transpose(t, shape, perm)
  local nshape = {}
  for i, p in ipairs(perm) do nshape[i] = shape[p] end
  return build(nshape, function(...)
    local idx, old = { ... }, {}
    for i, p in ipairs(perm) do old[p] = idx[i] end
    return at(t, old)
  end)
end

-- C-order reshape of a nested table.
local function ref_reshape(t, shape)
  local f, k = flat(t), 0
  return build(shape, function()
    k = k + 1
    return f[k]
  end)
end

local function c_strides(shape, itemsize)
  local s, out = itemsize, {}
  for i = #shape, 1, -1 do
    out[i] = s
    s = s * math.max(shape[i], 1)
  end
  return out
end

local function on_backend(b, a)
  if b.name == "cpu" then return a.device == "cpu" end
  return a.device ~= "cpu" and a.device == cuarr.Device()
end

describe("views", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    describe("fields", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("of a new " .. dt .. " array", function()
          local a = xp.zeros({ 2, 3, 4 }, dt)
          local is = ITEMSIZE[dt]
          assert.are.equal(dt, a.dtype)
          check_equal(a.shape, { 2, 3, 4 })
          check_equal(a.strides, { 12 * is, 4 * is, is })
          assert.are.equal(3, a.ndim)
          assert.are.equal(24, a.size)
          assert.are.equal(is, a.itemsize)
          assert.are.equal(24 * is, a.nbytes)
          assert.is_true(on_backend(b, a))
          assert.is_true(a.flags.c_contiguous)
          assert.is_false(a.flags.f_contiguous)
          assert.is_true(a.flags.owndata)
          assert.is_nil(a.base)
          -- a view: every field describes the view, base is the owner
          local v = a[{ 2, { 1, -1, 2 }, { -1, 1, -1 } }]
          assert.are.equal(dt, v.dtype)
          check_equal(v.shape, { 2, 4 })
          check_equal(v.strides, { 8 * is, -is })
          assert.are.equal(2, v.ndim)
          assert.are.equal(8, v.size)
          assert.are.equal(8 * is, v.nbytes)
          assert.are.equal(is, v.itemsize)
          assert.is_true(on_backend(b, v))
          assert.is_false(v.flags.c_contiguous)
          assert.is_false(v.flags.f_contiguous)
          assert.is_false(v.flags.owndata)
          assert.are.equal(a, v.base)
          -- shape and strides refuse writes: the array keeps its own
          local s = a.shape
          assert.is_false(pcall(function() s[1] = 99 end))
          check_equal(a.shape, { 2, 3, 4 })
        end)
      end

      b.it("of 0-d, 1-d and empty arrays", function()
        local z = xp.zeros({}, "float32")
        check_equal(z.shape, {})
        check_equal(z.strides, {})
        assert.are.equal(0, z.ndim)
        assert.are.equal(1, z.size)
        assert.are.equal(4, z.nbytes)
        assert.is_true(z.flags.c_contiguous and z.flags.f_contiguous)
        local o = xp.zeros(5, "int16")
        check_equal(o.strides, { 2 })
        assert.is_true(o.flags.c_contiguous and o.flags.f_contiguous)
        local e = xp.zeros({ 0, 3 }, "float64")
        check_equal(e.shape, { 0, 3 })
        assert.are.equal(0, e.size)
        assert.are.equal(0, e.nbytes)
        assert.are.equal(8, e.itemsize)
        assert.is_true(e.flags.c_contiguous and e.flags.f_contiguous)
        local t = xp.zeros({ 3, 4 }, "int8").T
        check_equal(t.strides, { 1, 4 })
        assert.is_false(t.flags.c_contiguous)
        assert.is_true(t.flags.f_contiguous)
        -- extent-1 axes do not break contiguity whatever their stride
        local r = xp.zeros({ 4, 5 }, "int32")[{ { 2 }, {} }]
        check_equal(r.shape, { 1, 5 })
        assert.is_true(r.flags.c_contiguous)
      end)

      b.it("cannot be assigned, and unknown ones are errors", function()
        local a = xp.zeros(3)
        H.raises("TypeError", function() a.shape = { 3 } end)
        H.raises("TypeError", function() a.dtype = "int8" end)
        H.raises("IndexError", function() return a.no_such_field end)
        check_equal(a.shape, { 3 })
      end)
    end)

    describe("sharing", function()
      b.it("views share memory with their base in both directions", function()
        local a = xp.zeros({ 3, 4 }, "int32")
        local row = a[2]
        local col = a[{ {}, 3 }]
        assert.are.equal(a, row.base)
        assert.are.equal(a, col.base)
        row[{ 1 }] = 5
        col[{ 3 }] = 7
        check_equal(a:totable(), { { 0, 0, 0, 0 }, { 5, 0, 0, 0 }, { 0, 0, 7, 0 } })
        a[{ 2, 3 }] = 9
        check_equal(row:totable(), { 5, 0, 9, 0 })
        check_equal(col:totable(), { 0, 9, 7 })
        -- a view of a view has the owner as its base
        local sub = row[{ { 2, 4 } }]
        assert.are.equal(a, sub.base)
        sub[{ 1 }] = -1
        check_equal(a[{ 2, 2 }], -1)
      end)

      b.it("keep their base alive after the base is collected", function()
        local v
        do
          local owner = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "float32")
          v = owner[{ { -1, 1, -1 }, { 2, 3 } }]
        end
        collectgarbage()
        collectgarbage()
        -- allocate something of the same size, which must not land on the live buffer
        local other = xp.full({ 2, 3 }, 99.0, "float32")
        check_equal(v:totable(), { { 5.0, 6.0 }, { 2.0, 3.0 } })
        check_equal(v.base:totable(), { { 1.0, 2.0, 3.0 }, { 4.0, 5.0, 6.0 } })
        check_equal(other[{ 1, 1 }], 99.0)
      end)
    end)

    describe("reshape", function()
      b.it("is a view of a contiguous array, -1 anywhere", function()
        local a, ref = sample(xp, { 2, 3, 4 })
        local cases = { { { 6, 4 }, { 6, 4 } }, { { 4, -1 }, { 4, 6 } }, { { -1, 2, 3 }, { 4, 2, 3 } },
                        { { 24 }, { 24 } }, { { -1 }, { 24 } }, { { 2, 2, -1, 3 }, { 2, 2, 2, 3 } },
                        { { 1, 24, 1 }, { 1, 24, 1 } } }
        for _, c in ipairs(cases) do
          local r = a:reshape(table.unpack(c[1]))
          check_equal(r.shape, c[2], "shape")
          check_equal(r.strides, c_strides(c[2], 4), "strides")
          assert.are.equal(a, r.base)
          check_equal(r:totable(), ref_reshape(ref, c[2]))
          local rt = a:reshape(c[1]) -- the shape as a table
          check_equal(rt.shape, c[2])
          local rf = xp.reshape(a, c[1]) -- the function form
          check_equal(rf.shape, c[2])
        end
        -- writing through the reshaped view changes the original
        local r = a:reshape(4, -1)
        r[{ 4, 6 }] = -7
        r[{ 1, 1 }] = -8
        check_equal(a[{ 2, 3, 4 }], -7)
        check_equal(a[{ 1, 1, 1 }], -8)
      end)

      b.it("copies when the strides forbid a view", function()
        local a, ref = sample(xp, { 3, 4 })
        local t = a.T
        local r = t:reshape(-1)
        check_equal(r.shape, { 12 })
        check_equal(r:totable(), flat(ref_transpose(ref, { 3, 4 }, { 2, 1 })))
        assert.are_not.equal(a, r.base)
        r[{ 1 }] = 0
        r[{ 2 }] = 0
        check_equal(a:totable(), ref) -- the original is untouched
        local s = a[{ {}, { 1, 3 } }]:reshape(9) -- rows of 3 out of 4: no single stride
        check_equal(s:totable(), { 11, 12, 13, 21, 22, 23, 31, 32, 33 })
        s:fill(0)
        check_equal(a:totable(), ref)
      end)

      b.it("is still a view of a strided array when the axes it merges are contiguous", function()
        local a, ref = sample(xp, { 4, 3, 2 })
        local v = a[{ { 1, -1, 2 } }] -- rows 1 and 3: shape 2x3x2, outer stride doubled
        local r = v:reshape(2, 6)
        assert.are.equal(a, r.base)
        check_equal(r.strides, { 48, 4 })
        -- every other column of a 3x4 int32 array is one stride of 8 bytes: a view too
        local b2 = sample(xp, { 3, 4 })
        local s = b2[{ {}, { 1, -1, 2 } }]:reshape(6)
        assert.are.equal(b2, s.base)
        check_equal(s.strides, { 8 })
        check_equal(s:totable(), { 11, 13, 21, 23, 31, 33 })
        s[{ 6 }] = 0
        check_equal(b2[{ 3, 3 }], 0)
        check_equal(r:totable(), { flat(ref[1]), flat(ref[3]) })
        r[{ 2, 6 }] = 0
        check_equal(a[{ 3, 3, 2 }], 0)
        -- splitting an axis of a reversed view keeps the negative stride
        local rev = a[{ {}, 1, 1 }][{ { -1, 1, -1 } }] -- 411, 311, 211, 111
        local sp = rev:reshape(2, 2)
        check_equal(sp:totable(), { { 411, 311 }, { 211, 111 } })
        assert.are.equal(a, sp.base)
      end)

      b.it("handles 0-d and empty arrays", function()
        local one = xp.array({ { 5 } }, "int16")
        local z = one:reshape({})
        check_equal(z.shape, {})
        check_equal(z:item(), 5)
        check_equal(z:reshape(1, 1, 1).shape, { 1, 1, 1 })
        check_equal(xp.array(3):reshape(-1):totable(), { 3 })
        local e = xp.zeros({ 0, 4 })
        check_equal(e:reshape(4, 0).shape, { 4, 0 })
        check_equal(e:reshape(-1).shape, { 0 })
        check_equal(e:reshape(2, 2, 0).shape, { 2, 2, 0 })
        H.raises("ValueError", e.reshape, e, 0, -1) -- ambiguous, as in NumPy
      end)

      b.it("refuses impossible shapes and leaves the array intact", function()
        local a, ref = sample(xp, { 2, 3 })
        H.raises("ValueError", a.reshape, a, 4)
        H.raises("ValueError", a.reshape, a, 4, -1)
        H.raises("ValueError", a.reshape, a, -1, -1)
        H.raises("ValueError", a.reshape, a, 3, -2)
        H.raises("ValueError", a.reshape, a, { 2, 2, 2 })
        H.raises("TypeError", a.reshape, a, "x")
        check_equal(a.shape, { 2, 3 })
        check_equal(a:totable(), ref)
      end)
    end)

    describe("ravel and flatten", function()
      b.it("ravel is a view of a contiguous array and a copy otherwise", function()
        local a, ref = sample(xp, { 2, 3 })
        local r = a:ravel()
        check_equal(r.shape, { 6 })
        assert.are.equal(a, r.base)
        check_equal(r:totable(), flat(ref))
        r[{ 6 }] = 0
        check_equal(a[{ 2, 3 }], 0)
        local b2, ref2 = sample(xp, { 2, 3 })
        local rt = b2.T:ravel()
        check_equal(rt:totable(), { 11, 21, 12, 22, 13, 23 })
        rt[{ 1 }] = 0
        check_equal(b2:totable(), ref2)
        check_equal(xp.ravel(b2):totable(), flat(ref2))
        check_equal(xp.array(4):ravel().shape, { 1 })
      end)

      b.it("flatten always copies, in C order", function()
        local a, ref = sample(xp, { 2, 2, 2 })
        local f = a:flatten()
        check_equal(f.shape, { 8 })
        assert.is_true(f.flags.c_contiguous)
        check_equal(f:totable(), flat(ref))
        f:fill(0)
        check_equal(a:totable(), ref)
        local ft = xp.flatten(a:transpose(3, 1, 2))
        check_equal(ft:totable(), flat(ref_transpose(ref, { 2, 2, 2 }, { 3, 1, 2 })))
        check_equal(xp.zeros({ 3, 0 }):flatten().shape, { 0 })
        check_equal(xp.array(2.5):flatten():totable(), { 2.5 })
      end)
    end)

    describe("transpose", function()
      b.it("takes every permutation of 3 and 4 axes (1-based)", function()
        for _, shape in ipairs({ { 2, 3, 4 }, { 2, 1, 3, 2 } }) do
          local a, ref = sample(xp, shape)
          for _, perm in ipairs(permutations(#shape)) do
            local t = a:transpose(table.unpack(perm))
            local want, nshape = ref_transpose(ref, shape, perm), {}
            for i, p in ipairs(perm) do nshape[i] = shape[p] end
            local what = "transpose(" .. table.concat(perm, ", ") .. ")"
            check_equal(t.shape, nshape, what .. " shape")
            for i, p in ipairs(perm) do assert.are.equal(a.strides[p], t.strides[i]) end
            assert.are.equal(a, t.base)
            check_equal(t:totable(), want, what)
            check_equal(a:transpose(perm):totable(), want, what .. " as a table")
            check_equal(t:copy():totable(), want, what .. " copied")
          end
        end
      end)

      b.it("takes negative axes, reverses by default, and is a view", function()
        local a, ref = sample(xp, { 2, 3, 4 })
        check_equal(a:transpose(-1, 1, -2).shape, { 4, 2, 3 })
        check_equal(a:transpose(-1, 1, -2):totable(), ref_transpose(ref, { 2, 3, 4 }, { 3, 1, 2 }))
        check_equal(a:transpose():totable(), ref_transpose(ref, { 2, 3, 4 }, { 3, 2, 1 }))
        check_equal(xp.transpose(a):totable(), ref_transpose(ref, { 2, 3, 4 }, { 3, 2, 1 }))
        local t = a:transpose(2, 3, 1)
        t[{ 3, 4, 2 }] = 0
        check_equal(a[{ 2, 3, 4 }], 0)
      end)

      b.it("a.T reverses the axes of 0-d, 1-d, 2-d and 3-d arrays", function()
        local m, ref = sample(xp, { 2, 3 })
        local t = m.T
        check_equal(t.shape, { 3, 2 })
        check_equal(t.strides, { 4, 12 })
        assert.is_true(t.flags.f_contiguous)
        check_equal(t:totable(), ref_transpose(ref, { 2, 3 }, { 2, 1 }))
        assert.are.equal(m, t.base)
        check_equal(t.T:totable(), ref)
        local v = xp.arange(4)
        check_equal(v.T:totable(), { 0, 1, 2, 3 })
        local z = xp.array(1.5)
        check_equal(z.T.shape, {})
        check_equal(z.T:item(), 1.5)
        local c, cref = sample(xp, { 2, 3, 4 })
        check_equal(c.T:totable(), ref_transpose(cref, { 2, 3, 4 }, { 3, 2, 1 }))
      end)

      b.it("refuses axes that are not a permutation", function()
        local a, ref = sample(xp, { 2, 3 })
        H.raises("ValueError", a.transpose, a, 1, 1)
        H.raises("ValueError", a.transpose, a, 1)
        H.raises("ValueError", a.transpose, a, 1, 2, 3)
        H.raises("IndexError", a.transpose, a, 1, 3)
        H.raises("IndexError", a.transpose, a, 0, 1)
        H.raises("IndexError", a.transpose, a, -3, 1)
        check_equal(a:totable(), ref)
      end)
    end)

    describe("swapaxes, squeeze, expand_dims", function()
      b.it("swapaxes exchanges two axes (1-based or negative) as a view", function()
        local a, ref = sample(xp, { 2, 3, 4 })
        local s = a:swapaxes(1, 3)
        check_equal(s.shape, { 4, 3, 2 })
        check_equal(s.strides, { 4, 16, 48 })
        check_equal(s:totable(), ref_transpose(ref, { 2, 3, 4 }, { 3, 2, 1 }))
        check_equal(a:swapaxes(-1, 2):totable(), ref_transpose(ref, { 2, 3, 4 }, { 1, 3, 2 }))
        check_equal(xp.swapaxes(a, 2, 2):totable(), ref)
        s[{ 4, 1, 2 }] = 0
        check_equal(a[{ 2, 1, 4 }], 0)
        H.raises("IndexError", a.swapaxes, a, 1, 4)
        H.raises("IndexError", a.swapaxes, a, 0, 1)
      end)

      b.it("squeeze drops extent-1 axes, all or the one named", function()
        local a, ref = sample(xp, { 1, 3, 1, 2 })
        check_equal(a:squeeze().shape, { 3, 2 })
        check_equal(a:squeeze():totable(), { { 1111, 1112 }, { 1211, 1212 }, { 1311, 1312 } })
        check_equal(a:squeeze(1).shape, { 3, 1, 2 })
        check_equal(a:squeeze(3).shape, { 1, 3, 2 })
        check_equal(a:squeeze(-2).shape, { 1, 3, 2 })
        check_equal(xp.squeeze(a, 1):totable(), ref[1])
        local s = a:squeeze()
        assert.are.equal(a, s.base)
        s[{ 3, 2 }] = 0
        check_equal(a[{ 1, 3, 1, 2 }], 0)
        local one = xp.ones({ 1, 1 }, "int8")
        check_equal(one:squeeze().shape, {})
        check_equal(one:squeeze():item(), 1)
        check_equal(xp.zeros(3):squeeze().shape, { 3 })
        H.raises("ValueError", a.squeeze, a, 2)
        H.raises("IndexError", a.squeeze, a, 5)
        H.raises("IndexError", a.squeeze, a, 0)
      end)

      b.it("expand_dims inserts an extent-1 axis at any of the ndim+1 positions", function()
        local a, ref = sample(xp, { 2, 3 })
        local want = { [1] = { 1, 2, 3 }, [2] = { 2, 1, 3 }, [3] = { 2, 3, 1 },
                       [-1] = { 2, 3, 1 }, [-2] = { 2, 1, 3 }, [-3] = { 1, 2, 3 } }
        for ax, shape in pairs(want) do
          local e = a:expand_dims(ax)
          check_equal(e.shape, shape, "expand_dims(" .. ax .. ")")
          check_equal(flat(e:totable()), flat(ref))
          assert.are.equal(a, e.base)
        end
        check_equal(a:expand_dims(1):totable(), { ref })
        local e = xp.expand_dims(a, 2)
        e[{ 2, 1, 3 }] = 0
        check_equal(a[{ 2, 3 }], 0)
        check_equal(xp.array(7):expand_dims(1):totable(), { 7 })
        H.raises("IndexError", a.expand_dims, a, 4)
        H.raises("IndexError", a.expand_dims, a, -4)
        H.raises("IndexError", a.expand_dims, a, 0)
      end)
    end)

    describe("copy and ascontiguousarray", function()
      for _, dt in ipairs(H.dtypes) do
        b.it("copy of a strided " .. dt .. " view is a C-contiguous owner", function()
          local src = build({ 3, 4 }, function(i, j)
            if dt == "bool" then return (i + j) % 3 == 0 end
            return 4 * i + j
          end)
          local a = xp.array(src, dt)
          local v = a[{ { -1, 1, -1 }, { 1, -1, 2 } }].T -- shape 2x3, strides negative and odd
          local want = build({ 2, 3 }, function(i, j) return a[{ 4 - j, 2 * i - 1 }] end)
          local c = v:copy()
          assert.are.equal(dt, c.dtype)
          check_equal(c.shape, { 2, 3 })
          check_equal(c.strides, c_strides({ 2, 3 }, ITEMSIZE[dt]))
          assert.is_true(c.flags.c_contiguous and c.flags.owndata)
          assert.is_nil(c.base)
          assert.is_true(on_backend(b, c))
          check_equal(c:totable(), want)
          check_equal(v:totable(), want)
          check_equal(xp.copy(v):totable(), want)
          c:fill(dt == "bool" and false or 0)
          check_equal(a:totable(), xp.array(src, dt):totable()) -- independent of the original
        end)
      end

      b.it("ascontiguousarray gives a contiguous array itself and copies the others", function()
        local a, ref = sample(xp, { 3, 2 })
        assert.are.equal(a, xp.ascontiguousarray(a))
        assert.are.equal(a, a:ascontiguousarray())
        local t = a.T
        local c = xp.ascontiguousarray(t)
        assert.are_not.equal(t, c)
        assert.is_true(c.flags.c_contiguous)
        check_equal(c:totable(), ref_transpose(ref, { 3, 2 }, { 2, 1 }))
        c[{ 1, 1 }] = 0
        check_equal(a[{ 1, 1 }], 11)
        local f = xp.ascontiguousarray(a, "float64")
        assert.are.equal("float64", f.dtype)
        check_equal(f[{ 3, 2 }], 32.0)
        local row = a[{ { 2 }, {} }] -- extent-1 axis: still contiguous
        assert.are.equal(row, xp.ascontiguousarray(row))
      end)

      b.it("may_share_memory compares the byte ranges the arrays span", function()
        local w = xp.arange(40, "float64")
        assert.is_true(xp.may_share_memory(w, w))
        assert.is_true(xp.may_share_memory(w, w[{ { 5, 9 } }]))
        assert.is_true(xp.may_share_memory(w[{ { 1, 21 } }], w[{ { 20, 40 } }]))
        assert.is_false(xp.may_share_memory(w[{ { 1, 20 } }], w[{ { 21, 40 } }]))
        assert.is_true(xp.may_share_memory(w[{ { 1, 40, 2 } }], w[{ { 2, 40, 2 } }])) -- interleaved
        assert.is_true(xp.may_share_memory(w:reshape(5, 8).T, w[{ { 33, 40 } }]))
        assert.is_false(xp.may_share_memory(w, w:copy()))
        assert.is_false(xp.may_share_memory(w, xp.empty(0)))
        H.raises("TypeError", xp.may_share_memory, w, 3)
      end)
    end)
  end
end)
