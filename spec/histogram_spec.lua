-- bincount, histogram, histogram_bin_edges and digitize against Lua references: every dtype,
-- empty and 0-d inputs, non-contiguous views, NaN, weights, bins of 1, values exactly on the
-- edges, edges given (repeated ones too), density; host arrays and device arrays (#gpu), and
-- on the device counts past the shared-memory bins (global atomics) and 2^26 values (#gpu).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local INTEGER_X = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32" }

local function values(a)
  local h = a.device == "cpu" and a or a:get()
  local t = h:totable()
  if type(t) ~= "table" then t = { t } end
  return H.flat(t)
end

local function num(v)
  if type(v) == "boolean" then return v and 1 or 0 end
  return v
end

-- Random small non-negative integers (bools for bool) as a Lua list.
local function small_ints(rng, n, dtype, top)
  local t = {}
  for i = 1, n do
    if dtype == "bool" then t[i] = rng.int(0, 1) == 1 else t[i] = rng.int(0, top) end
  end
  return t
end

local function ref_bincount(list, minlength, weights)
  local n = minlength or 0
  for _, v in ipairs(list) do n = math.max(n, num(v) + 1) end
  local out = {}
  for k = 1, n do out[k] = weights and 0.0 or 0 end
  for i, v in ipairs(list) do
    local k = num(v) + 1
    out[k] = out[k] + (weights and weights[i] or 1)
  end
  return out
end

-- Counts of x (a Lua list) in the bins the edges make, NumPy's rule: edges[i] <= x <
-- edges[i + 1], the last bin closed; NaN and values outside dropped.
local function ref_counts(list, edges, weights)
  local n = #edges - 1
  local out = {}
  for k = 1, n do out[k] = weights and 0.0 or 0 end
  for i, v in ipairs(list) do
    v = num(v)
    if v == v and v >= edges[1] and v <= edges[n + 1] then
      local b
      if v == edges[n + 1] then
        b = n
      else
        b = 1
        while b < n and edges[b + 1] <= v do b = b + 1 end
      end
      out[b] = out[b] + (weights and weights[i] or 1)
    end
  end
  return out
end

local function assert_list(expected, got, tol)
  assert.are.equal(#expected, #got)
  for i = 1, #expected do
    if tol then
      assert.is_true(math.abs(expected[i] - got[i]) <= tol * math.max(1, math.abs(expected[i])),
        ("element %d: %s vs %s"):format(i, tostring(expected[i]), tostring(got[i])))
    else
      assert.are.equal(expected[i], got[i], "element " .. i)
    end
  end
end

-- NumPy's linspace in float64: k * step + start, the last edge the stop itself.
local function linspace(lo, hi, n)
  local step, e = (hi - lo) / n, {}
  for k = 0, n do e[k + 1] = k * step + lo end
  e[n + 1] = hi
  return e
end

describe("bincount", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, dtype in ipairs(INTEGER_X) do
      b.it("counts each value of " .. dtype, function()
        local rng = H.rng(17)
        for _, n in ipairs({ 1, 5, 257, 1000 }) do
          local list = small_ints(rng, n, dtype, 40)
          local x = xp.array(list, dtype)
          local c = xp.bincount(x)
          assert.are.equal("int64", c.dtype)
          assert_list(ref_bincount(list), values(c))
        end
      end)
    end

    b.it("takes minlength, and the longer of it and max + 1", function()
      local x = xp.array({ 2, 0, 2 }, "int16")
      assert_list({ 1, 0, 2, 0, 0, 0 }, values(xp.bincount(x, { minlength = 6 })))
      assert_list({ 1, 0, 2 }, values(xp.bincount(x, { minlength = 2 })))
      assert_list({ 1, 0, 2 }, values(xp.bincount(x, { minlength = 0 })))
    end)

    b.it("of an empty array is minlength zeros", function()
      local c = xp.bincount(xp.zeros({ 0 }, "int32"))
      assert.are.equal(0, c.size)
      assert.are.equal("int64", c.dtype)
      assert_list({ 0, 0, 0 }, values(xp.bincount(xp.zeros({ 0 }, "uint8"), { minlength = 3 })))
    end)

    for _, wd in ipairs({ "float64", "float32", "float16", "int32", "bool", "uint8" }) do
      b.it("sums weights of " .. wd .. " in float64", function()
        local rng = H.rng(5)
        local list = small_ints(rng, 300, "int32", 12)
        local w = {}
        for i = 1, #list do
          if wd == "bool" then
            w[i] = i % 3 == 0
          elseif wd:find("float") then
            w[i] = (i % 7) * 0.25
          else
            w[i] = i % 5
          end
        end
        local wa = xp.array(w, wd)
        local wn = {}
        for i, v in ipairs(values(wa)) do wn[i] = num(v) end
        local c = xp.bincount(xp.array(list, "int32"), { weights = wa })
        assert.are.equal("float64", c.dtype)
        assert_list(ref_bincount(list, 0, wn), values(c), 1e-12)
      end)
    end

    b.it("reads a strided view as its elements", function()
      local base = xp.array({ 1, 9, 2, 9, 2, 9, 5, 9 }, "uint16")
      local v = base[{ { 1, 8, 2 } }]
      assert.is_false(v.flags.c_contiguous)
      assert_list({ 0, 1, 2, 0, 0, 1 }, values(xp.bincount(v)))
      local w = xp.array({ 1, 0, 2, 0, 3, 0, 4, 0 }, "float64")[{ { 1, 8, 2 } }]
      assert_list({ 0, 1, 5, 0, 0, 4 }, values(xp.bincount(v, { weights = w })))
    end)

    b.it("counts a value past the shared-memory bins (global atomics)", function()
      local list = { 0, 9000, 9000, 4095, 4096, 12345 }
      local c = xp.bincount(xp.array(list, "int32"))
      assert_list(ref_bincount(list), values(c))
    end)

    b.it("element k counts the value k - 1", function()
      local c = xp.bincount(xp.array({ 3, 3, 1 }))
      assert.are.equal(0, c[1]) -- value 0
      assert.are.equal(1, c[2]) -- value 1
      assert.are.equal(2, c[4]) -- value 3
    end)
  end
end)

describe("histogram", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, dtype in ipairs(H.dtypes) do
      b.it("counts " .. dtype .. " values in uniform bins", function()
        local rng = H.rng(23)
        for _, nb in ipairs({ 1, 7, 10 }) do
          local list = {}
          for i = 1, 513 do
            if dtype == "bool" then
              list[i] = rng.int(0, 1) == 1
            elseif dtype:find("float") then
              list[i] = (rng.int(0, 400) - 100) / 8
            else
              list[i] = rng.int(0, 100)
            end
          end
          local a = xp.array(list, dtype)
          local counts, edges = xp.histogram(a, nb)
          assert.are.equal("int64", counts.dtype)
          assert.are.equal(dtype:find("float") and dtype or "float64", edges.dtype)
          assert.are.equal(nb + 1, edges.size)
          local av = values(a)
          local lo, hi = math.huge, -math.huge
          for i, v in ipairs(av) do
            av[i] = num(v)
            lo, hi = math.min(lo, av[i]), math.max(hi, av[i])
          end
          local e = values(edges)
          assert.are.equal(lo, e[1])
          assert.are.equal(hi, e[nb + 1])
          if edges.dtype == "float64" then assert_list(linspace(lo, hi, nb), e) end
          local c = values(counts)
          assert_list(ref_counts(av, e), c)
          local total = 0
          for _, v in ipairs(c) do total = total + v end
          assert.are.equal(#list, total)
        end
      end)
    end

    b.it("puts values exactly on the edges in the bin they open, the last edge in the last bin",
      function()
        local a = xp.arange(11):astype("float64")
        local c, e = xp.histogram(a, 10, { range = { 0, 10 } })
        assert_list({ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, values(e))
        assert_list({ 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 }, values(c))
        -- edges that are not exact in binary: 0.1 steps
        local list = {}
        for k = 0, 20 do list[#list + 1] = k / 10 end
        local x = xp.array(list)
        local c2, e2 = xp.histogram(x, 7, { range = { 0, 2 } })
        assert_list(ref_counts(list, values(e2)), values(c2))
        for _, dt in ipairs({ "float32", "float16" }) do
          local y = x:astype(dt)
          local c3, e3 = xp.histogram(y, 7, { range = { 0, 2 } })
          assert.are.equal(dt, e3.dtype)
          assert_list(ref_counts(values(y), values(e3)), values(c3))
        end
      end)

    b.it("drops NaN and values outside the range", function()
      local nan = 0 / 0
      local c = xp.histogram(xp.array({ nan, -1, 0, 0.5, 1, 2, nan }), 2, { range = { 0, 1 } })
      assert_list({ 1, 2 }, values(c))
    end)

    b.it("widens an equal minimum and maximum by 0.5, and of an empty array takes [0, 1]",
      function()
        local c, e = xp.histogram(xp.array({ 3, 3, 3 }, "int8"), 4)
        assert_list({ 2.5, 2.75, 3.0, 3.25, 3.5 }, values(e))
        assert_list({ 0, 0, 3, 0 }, values(c))
        local c0, e0 = xp.histogram(xp.zeros({ 0 }, "float32"), 5)
        assert_list({ 0, 0, 0, 0, 0 }, values(c0))
        assert_list({ 0, 0.2, 0.4, 0.6, 0.8, 1 }, values(e0), 1e-7)
      end)

    b.it("flattens a 0-d and a 2-D (transposed) array", function()
      local c, e = xp.histogram(xp.array(3.0))
      assert.are.equal(10, c.size)
      assert.are.equal(2.5, e[1])
      assert_list({ 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 }, values(c))
      local m = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32").T
      assert.is_false(m.flags.c_contiguous)
      assert_list({ 2, 1, 1, 2 }, values((xp.histogram(m, 4, { range = { 1, 6 } }))))
    end)

    b.it("counts into given edges (repeated ones too) with the last bin closed", function()
      local c, e = xp.histogram(xp.arange(5), xp.array({ 0, 1, 1, 2, 4 }))
      assert_list({ 1, 0, 1, 3 }, values(c))
      assert.are.equal("int64", e.dtype)
      local list = { -1, 0, 0.25, 0.5, 0.99, 1, 1.5, 3, 3.01 }
      local edges = { 0, 0.5, 1, 3 }
      for _, dt in ipairs({ "float64", "float32" }) do
        local cc = xp.histogram(xp.array(list, dt), xp.array(edges))
        assert_list(ref_counts(values(xp.array(list, dt)), edges), values(cc))
      end
      local c1 = xp.histogram(xp.array({ 1, 2 }), { 0, 5 })
      assert_list({ 2 }, values(c1))
      local cz = xp.histogram(xp.array({ 1, 2 }), { 3 })
      assert.are.equal(0, cz.size)
    end)

    b.it("sums weights in their dtype", function()
      local a = xp.array({ 0.1, 0.4, 0.6, 0.9, 0.95 })
      local c = xp.histogram(a, 2, { range = { 0, 1 }, weights = xp.array({ 1, 2, 3, 4, 5 },
        "float32") })
      assert.are.equal("float32", c.dtype)
      assert_list({ 3, 12 }, values(c))
      local ci = xp.histogram(a, 2, { range = { 0, 1 }, weights = xp.array({ 1, -2, 3, 4, 5 },
        "int16") })
      assert.are.equal("int16", ci.dtype)
      assert_list({ -1, 12 }, values(ci))
    end)

    b.it("with density gives a probability density", function()
      local a = xp.array({ 0.5, 1.5, 1.6, 3.5 })
      local c, e = xp.histogram(a, xp.array({ 0, 1, 2, 4 }), { density = true })
      assert.are.equal("float64", c.dtype)
      assert_list({ 0.25, 0.5, 0.125 }, values(c), 1e-15)
      assert.are.equal(4, e.size)
    end)

    b.it("histogram_bin_edges gives histogram's edges", function()
      local a = xp.array({ 1, 5, 2 }, "float32")
      assert_list(values(select(2, xp.histogram(a, 3))), values(xp.histogram_bin_edges(a, 3)))
      assert_list({ 0, 1, 2 }, values(xp.histogram_bin_edges(a, 2, { range = { 0, 2 } })))
    end)
  end

  -- n values 0..n-1 into 10 uniform bins (shared-memory bins) and, modulo 10^5, into 10^5
  -- (global atomics), counted exactly in Lua.
  local function many(xp, n)
    local x = xp.arange(n, "int32")
    local c, e = xp.histogram(x, 10, { range = { 0, n } })
    local ev = values(e)
    local cv = values(c)
    for i = 1, 10 do
      local lo = math.ceil(ev[i])
      local hi = i == 10 and n - 1 or math.ceil(ev[i + 1]) - 1
      assert.are.equal(hi - lo + 1, cv[i], "bin " .. i)
    end
    local m = 100000
    local bc = values(xp.bincount(x % m, { minlength = m }))
    assert.are.equal(m, #bc)
    for _, k in ipairs({ 1, 2, 54, 54465, 54466, 99999, 100000 }) do
      -- value k - 1 occurs floor((n - 1 - (k - 1)) / m) + 1 times (0 when k - 1 >= n)
      assert.are.equal(k - 1 < n and (n - k) // m + 1 or 0, bc[k], "value " .. (k - 1))
    end
    local w = values(xp.bincount(x % 10, { weights = xp.ones({ n }, "float32") }))
    for k = 1, 10 do assert.are.equal(((n - k) // 10 + 1) + 0.0, w[k]) end
  end

  it("counts 2^16 values into 10 bins and into 10^5 [cpu]", function() many(cuarr.cpu, 1 << 16) end)
  H.gpu_it("counts 2^26 values into 10 shared bins and into 10^5 global ones", function()
    many(cuarr, 1 << 26)
  end)

  H.gpu_it("gives the host's answer on random float32 data", function()
    local h = cuarr.cpu.random.default_rng(3):standard_normal({ 100003 }):astype("float32")
    local d = cuarr.asarray(h)
    for _, nb in ipairs({ 1, 10, 5000, 70000 }) do
      local ch, eh = cuarr.cpu.histogram(h, nb)
      local cd, ed = cuarr.histogram(d, nb)
      assert_list(values(eh), values(ed))
      assert_list(values(ch), values(cd))
    end
  end)
end)

describe("digitize", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    -- NumPy's digitize + 1.  Increasing bins: i with bins[i-1] <= x < bins[i] (right: <, <=),
    -- the count of edges <= x (right: < x); decreasing: bins[i-1] > x >= bins[i] (right: >=, >),
    -- the count of edges > x (right: >= x).  NaN: past every increasing edge, before every
    -- decreasing one.
    local function ref(list, bins, right, decreasing)
      local out = {}
      for i, v in ipairs(list) do
        local k = 0
        for _, e in ipairs(bins) do
          local counted
          if decreasing then
            if right then counted = e >= v else counted = e > v end
          else
            if right then counted = e < v else counted = e <= v end
          end
          if counted then k = k + 1 end
        end
        if v ~= v then k = decreasing and 0 or #bins end
        out[i] = k + 1
      end
      return out
    end
    for _, dtype in ipairs({ "int8", "int32", "uint16", "int64", "float32", "float64" }) do
      b.it("places " .. dtype .. " values among increasing and decreasing bins", function()
        local list = { 0, 1, 2, 3, 5, 7, 9, 10, 11 }
        local bins = { 1, 3, 3, 7, 10 }
        local x = xp.array(list, dtype)
        for _, right in ipairs({ false, true }) do
          local got = xp.digitize(x, xp.array(bins, dtype), right)
          assert.are.equal("int64", got.dtype)
          assert_list(ref(list, bins, right, false), values(got))
          local rbins = { 10, 7, 3, 3, 1 }
          assert_list(ref(list, rbins, right, true),
            values(xp.digitize(x, xp.array(rbins, dtype), { right = right })))
        end
      end)
    end

    b.it("keeps x's shape, puts NaN last, and agrees with searchsorted(bins, x, 'right')",
      function()
        local x = xp.array({ { 0.5, 0 / 0 }, { 2.5, 4 } })
        local bins = xp.array({ 1.0, 2.0, 3.0 })
        local d = xp.digitize(x, bins)
        assert.are.same({ 2, 2 }, { d.shape[1], d.shape[2] })
        assert_list({ 1, 4, 3, 4 }, values(d))
        assert_list(values(xp.searchsorted(bins, x:ravel(), "right")), values(d:ravel()))
        local s = xp.digitize(xp.array(2.0), bins)
        assert.are.equal(0, s.ndim)
        assert.are.equal(3, s:item())
        assert_list({ 1, 1 }, values(xp.digitize(xp.array({ 1, 5 }), xp.zeros({ 0 }))))
      end)
  end
end)
