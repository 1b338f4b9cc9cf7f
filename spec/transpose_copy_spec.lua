-- Device copies through the tiled transpose kernel (kernels/templates/transpose.cu): layouts where dst
-- and src are contiguous along different axes and both tile axes are at least 8 long, which
-- the random layouts spec (extents up to 6) never reaches.  Each device result is compared
-- with the same operations on the host (host_copy.c, an independent implementation), at sizes
-- that are and are not multiples of the 64-element tile, with every dtype, with conversions,
-- batch axes, reversed axes, strided destinations, and a matrix with more tiles than the grid
-- has blocks (each block then loops over several tiles).
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

local check_equal = A.check_equal

-- A nested table of `shape` with values of dtype dt that read back exactly (every bit pattern
-- matters: a misplaced element must show).
local function random_table(rng, dt, shape)
  local function value()
    if dt == "bool" then return rng.int(0, 1) == 1 end
    if dt == "float16" then return rng.int(-2048, 2048) / 4 end
    if dt == "float32" then return rng.int(-(1 << 20), 1 << 20) / 8 end
    if dt == "float64" then return rng.int(-(1 << 30), 1 << 30) / 64 end
    local size = A.ITEMSIZE[dt]
    if dt:sub(1, 1) == "u" then
      return size >= 4 and rng.int(0, 0x7fffffff) or rng.int(0, (1 << (8 * size)) - 1)
    end
    local half = size >= 4 and 0x3fffffff or (1 << (8 * size - 1)) - 1
    return rng.int(-half, half)
  end
  return A.build(shape, value)
end

-- The same data on the host and on the device.
local function pair(rng, dt, shape)
  local t = random_table(rng, dt, shape)
  return cuarr.cpu.array(t, dt), cuarr.array(t, dt)
end

local EDGE_SHAPES = { { 8, 8 }, { 64, 64 }, { 70, 130 }, { 65, 9 }, { 9, 200 }, { 129, 257 } }

describe("transposed device copies", function()
  H.gpu_it(".T:copy() and .T:get() of every dtype match the host, tile edges included", function()
    local rng = H.rng(20261122)
    for _, dt in ipairs(H.dtypes) do
      for _, shape in ipairs(EDGE_SHAPES) do
        local h, d = pair(rng, dt, shape)
        local what = ("%s {%d, %d}"):format(dt, shape[1], shape[2])
        local want = h.T:copy():totable()
        check_equal(d.T:copy():totable(), want, what .. " .T:copy()")
        check_equal(d.T:get():totable(), want, what .. " .T:get()")
      end
    end
  end)

  H.gpu_it("conversions of transposed views match the host's", function()
    local rng = H.rng(7)
    local pairs_ = { { "float32", "float16" }, { "float64", "int32" }, { "uint8", "float16" },
                     { "bool", "int8" }, { "float16", "uint64" }, { "int64", "float32" },
                     { "float32", "bool" }, { "int16", "float64" } }
    for _, p in ipairs(pairs_) do
      local h, d = pair(rng, p[1], { 70, 130 })
      check_equal(d.T:astype(p[2]):totable(), h.T:astype(p[2]):totable(),
        p[1] .. " -> " .. p[2] .. " of a transposed view")
    end
  end)

  H.gpu_it("every permutation of a 3-D array: batches of 2-D transposes", function()
    local rng = H.rng(99)
    local perms = { { 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 } }
    for _, dt in ipairs({ "uint16", "float64" }) do
      local h, d = pair(rng, dt, { 9, 33, 70 })
      for _, perm in ipairs(perms) do
        local what = ("%s transpose(%s)"):format(dt, table.concat(perm, ", "))
        check_equal(d:transpose(table.unpack(perm)):copy():totable(),
          h:transpose(table.unpack(perm)):copy():totable(), what)
      end
      check_equal(d:swapaxes(2, 3):astype("float32"):totable(),
        h:swapaxes(2, 3):astype("float32"):totable(), dt .. " swapaxes(2, 3) to float32")
    end
  end)

  H.gpu_it("reversed and strided views, and writes through a transposed view", function()
    local rng = H.rng(5)
    local h, d = pair(rng, "int32", { 100, 90 })
    local keys = { { { -1, 1, -1 }, {} }, { {}, { -1, 1, -1 } }, { { 1, -1, 2 }, { -1, 1, -3 } } }
    for _, key in ipairs(keys) do
      check_equal(d[key].T:copy():totable(), h[key].T:copy():totable(), "a sliced view's .T")
    end
    -- dst strided: a transposed view of a larger array, from a contiguous device array
    local hb, db = pair(rng, "float32", { 90, 200 })
    local ht, dt_ = pair(rng, "float32", { 100, 90 })
    local hv, dv = hb[{ {}, { 1, -1, 2 } }].T, db[{ {}, { 1, -1, 2 } }].T
    hv[{}] = ht
    dv[{}] = dt_
    check_equal(db:totable(), hb:totable(), "writing through a transposed strided view")
  end)

  H.gpu_it("a matrix with more tiles than the grid has blocks", function()
    -- 9000^2 int32 (324 MB): 141^2 = 19881 tiles, over the 128 blocks per multiprocessor of
    -- the grid on a 132-multiprocessor device, so some blocks do two tiles.  Values are the
    -- flat index, so c[i][j] = m[j][i] = j * 9000 + i (0-based) names its source exactly.
    local n = 9000
    local m = cuarr.arange(n * n, "int32"):reshape(n, n)
    local c = m.T:copy()
    local rows = { 1, 2, 64, 65, 4500, 8999, 9000 }
    for k = 1, 8 do rows[#rows + 1] = 1 + (k * 1117) % n end
    for _, i in ipairs(rows) do
      local want = {}
      for j = 1, n do want[j] = (j - 1) * n + (i - 1) end
      A.check_list(c[{ i }]:totable(), want, "row " .. i)
      local col = {}
      for j = 1, n do col[j] = (i - 1) * n + (j - 1) end
      A.check_list(c[{ {}, i }]:totable(), col, "column " .. i)
    end
    c:free()
    m:free()
  end)
end)
