-- isin, in1d, intersect1d, union1d, setdiff1d and setxor1d against Lua references: every dtype,
-- empty and 0-d operands, non-contiguous views, NaN (never a member; one NaN kept by union1d, as
-- NumPy 2's unique), mixed dtypes promoted, 1-based indices of intersect1d; host arrays and
-- device arrays (#gpu).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr -- for the device-only case at the end

local function values(a)
  local h = a.device == "cpu" and a or a:get()
  local t = h:totable()
  if type(t) ~= "table" then t = { t } end
  return H.flat(t)
end

-- Lua sets over numbers (bools as 0/1, NaN never equal to anything).
local function num(v)
  if type(v) == "boolean" then return v and 1 or 0 end
  return v
end
local function member(v, list)
  for _, w in ipairs(list) do
    if num(w) == num(v) then return true end
  end
  return false
end
-- Sorted distinct values, NaNs last and collapsed into one (NumPy 2's unique).
local function unique(list)
  local out, seen, nan = {}, {}, false
  for _, v in ipairs(list) do
    v = num(v)
    if v ~= v then
      nan = true
    elseif not seen[v] then
      seen[v] = true
      out[#out + 1] = v
    end
  end
  table.sort(out)
  if nan then out[#out + 1] = 0 / 0 end
  return out
end

local function same_values(expected, got)
  assert.are.equal(#expected, #got, "lengths")
  for i = 1, #expected do
    local e, g = num(expected[i]), num(got[i])
    if e ~= e then
      assert.is_true(g ~= g, "element " .. i .. " should be NaN")
    else
      assert.are.equal(e, g, "element " .. i)
    end
  end
end

local function random_list(rng, n, dtype)
  local t = {}
  for i = 1, n do
    if dtype == "bool" then
      t[i] = rng.int(0, 1) == 1
    elseif dtype:find("float") then
      t[i] = (rng.int(0, 30) - 10) / 4
    elseif dtype:find("uint") then
      t[i] = rng.int(0, 25)
    else
      t[i] = rng.int(0, 25) - 8
    end
  end
  return t
end

describe("set functions", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, dtype in ipairs(H.dtypes) do
      b.it("of " .. dtype .. " agree with the Lua sets", function()
        local rng = H.rng(41)
        for _, sizes in ipairs({ { 1, 1 }, { 9, 4 }, { 300, 77 }, { 0, 5 }, { 6, 0 } }) do
          local l1, l2 = random_list(rng, sizes[1], dtype), random_list(rng, sizes[2], dtype)
          local a, c = xp.array(l1, dtype), xp.array(l2, dtype)
          if sizes[1] == 0 then a = xp.zeros({ 0 }, dtype) end
          if sizes[2] == 0 then c = xp.zeros({ 0 }, dtype) end
          l1, l2 = values(a), values(c)
          local isin = xp.isin(a, c)
          assert.are.equal("bool", isin.dtype)
          local want, notwant = {}, {}
          for i, v in ipairs(l1) do
            want[i] = member(v, l2)
            notwant[i] = not want[i]
          end
          same_values(want, values(isin))
          same_values(notwant, values(xp.isin(a, c, { invert = true })))
          same_values(want, values(xp.in1d(a, c)))
          local u1, u2 = unique(l1), unique(l2)
          local inter, diff, xor = {}, {}, {}
          for _, v in ipairs(u1) do
            if member(v, u2) then inter[#inter + 1] = v else diff[#diff + 1] = v end
          end
          for _, v in ipairs(u1) do
            if not member(v, u2) then xor[#xor + 1] = v end
          end
          for _, v in ipairs(u2) do
            if not member(v, u1) then xor[#xor + 1] = v end
          end
          table.sort(xor)
          local both = {}
          for _, v in ipairs(l1) do both[#both + 1] = v end
          for _, v in ipairs(l2) do both[#both + 1] = v end
          local i1 = xp.intersect1d(a, c)
          assert.are.equal(dtype, i1.dtype)
          same_values(inter, values(i1))
          same_values(unique(both), values(xp.union1d(a, c)))
          same_values(diff, values(xp.setdiff1d(a, c)))
          same_values(xor, values(xp.setxor1d(a, c)))
        end
      end)
    end

    b.it("intersect1d gives the 1-based positions of the first occurrences", function()
      local a = xp.array({ 1, 1, 2, 3, 4 }, "int16")
      local c = xp.array({ 2, 1, 4, 6 }, "int16")
      local v, ia, ic = xp.intersect1d(a, c, { return_indices = true })
      same_values({ 1, 2, 4 }, values(v))
      same_values({ 1, 3, 5 }, values(ia))
      same_values({ 2, 1, 3 }, values(ic))
      local v2, ja, jc = xp.intersect1d(xp.array({ 5, 3, 1 }), xp.array({ 3, 1, 2 }),
        { assume_unique = true, return_indices = true })
      same_values({ 1, 3 }, values(v2))
      same_values({ 3, 2 }, values(ja))
      same_values({ 2, 1 }, values(jc))
    end)

    b.it("treat NaN as NumPy: never a member, one kept by union1d, both kept by setxor1d",
      function()
        local nan = 0 / 0
        for _, dt in ipairs({ "float16", "float32", "float64" }) do
          local a, c = xp.array({ 1, nan, 2 }, dt), xp.array({ nan, 2 }, dt)
          same_values({ false, false, true }, values(xp.isin(a, c)))
          same_values({ 2 }, values(xp.intersect1d(a, c)))
          same_values({ 1, 2, nan }, values(xp.union1d(a, c)))
          same_values({ 1, nan }, values(xp.setdiff1d(a, c)))
          same_values({ 1, nan, nan }, values(xp.setxor1d(a, c)))
        end
      end)

    b.it("keep isin's shape (0-d too) and flatten for in1d", function()
      local m = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32")
      local r = xp.isin(m, { 2, 6 })
      assert.are.same({ 2, 3 }, { r.shape[1], r.shape[2] })
      same_values({ false, true, false, false, false, true }, values(r))
      local s = xp.isin(xp.array(5), xp.array({ 5 }))
      assert.are.equal(0, s.ndim)
      assert.is_true(s:item())
      local f = xp.in1d(m, { 4 })
      assert.are.equal(1, f.ndim)
      same_values({ false, false, false, true, false, false }, values(f))
    end)

    b.it("read non-contiguous views and promote mixed dtypes", function()
      local m = xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int8").T
      local v = xp.arange(10, "int64")[{ { 1, 10, 3 } }] -- 0, 3, 6, 9
      assert.is_false(m.flags.c_contiguous)
      same_values({ false, false, false, false, true, true }, values(xp.isin(m, v)))
      same_values({ 3, 6 }, values(xp.intersect1d(m, v)))
      local i = xp.intersect1d(xp.array({ 1, 2 }, "int8"), xp.array({ 2.0, 2.5 }, "float32"))
      assert.are.equal("float32", i.dtype)
      same_values({ 2 }, values(i))
      same_values({ 0, 1, 2, 3, 4, 5, 6, 9 }, values(xp.union1d(m, v)))
      same_values({ 1, 2, 4, 5 }, values(xp.setdiff1d(m, v)))
    end)

    b.it("take tables and numbers as operands", function()
      same_values({ true, false }, values(xp.isin({ 1, 2 }, 1)))
      same_values({ 1, 2, 3 }, values(xp.union1d({ 3, 1 }, { 2 })))
    end)
  end

  H.gpu_it("give the host's answers on 2^20 random int32 values", function()
    local g = cuarr.cpu.random.default_rng(9)
    local h1 = g:integers(0, 50000, { 1 << 20 }):astype("int32")
    local h2 = g:integers(0, 50000, { 30000 }):astype("int32")
    local d1, d2 = cuarr.asarray(h1), cuarr.asarray(h2)
    same_values(values(cuarr.cpu.isin(h1, h2)), values(cuarr.isin(d1, d2)))
    same_values(values(cuarr.cpu.intersect1d(h1, h2)), values(cuarr.intersect1d(d1, d2)))
    same_values(values(cuarr.cpu.setxor1d(h1, h2)), values(cuarr.setxor1d(d1, d2)))
    same_values(values(cuarr.cpu.setdiff1d(h2, h1)), values(cuarr.setdiff1d(d2, d1)))
    same_values(values(cuarr.cpu.union1d(h1, h2)), values(cuarr.union1d(d1, d2)))
  end)
end)
