-- Misuses of cuarr.linalg's det, slogdet, inv, solve and cholesky: each raises an
-- error object of its kind, with a message that says what was wrong, and leaves every array
-- involved as it was.
--
--   fewer than two dimensions, non-square matrices      LinAlgError
--   a singular matrix (inv, solve)                      LinAlgError "singular"
--   a matrix that is not positive definite (cholesky)   LinAlgError "positive definite"
--   float16                                             TypeError
--   a non-array operand, extra arguments                TypeError
--   b of the wrong rows, batches that do not broadcast  ValueError
--   an unknown cholesky option                          ValueError
--   options that are not a table, a non-boolean upper   TypeError
--   freed or closed arrays, host and device mixed       ValueError
--
-- The cases are a table as in matmul_bad_input_spec.lua:
--   { name, kind, match = text the message must contain,
--     setup = function(xp) return { named arrays and other objects } end,   (optional)
--     misuse = function(t, xp) ... end }
-- `both` runs on host arrays (cuarr.cpu.linalg) and device arrays (cuarr.linalg, #gpu); `gpu`
-- mixes host and device arrays (#gpu); `multigpu` needs two devices.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"


local function state(t) return misuse.state({}, t) end
local function run_case(case, xp) misuse.run(H, case, xp) end

-- Arrays with distinct values, so that a stray write would show.
local function arr(xp, shape, dtype)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return xp.arange(1, n + 1):astype(dtype or "float64"):reshape(shape)
end

-- A well-conditioned n x n (or stack) in xp's place: I + arange / (n^3).
local function good(xp, shape, dtype)
  local n = shape[#shape]
  return (arr(xp, shape) / (n * n * n * #shape * 10) + xp.eye(n)):astype(dtype or "float64")
end

-- A (3,3) a and a (3,) b.
local function ab(xp) return { a = good(xp, { 3, 3 }), b = arr(xp, { 3 }) } end
-- One array of shape and dtype, as t.a, and a good b beside it.
local function one(shape, dtype)
  return function(xp) return { a = arr(xp, shape, dtype), b = arr(xp, { 3 }) } end
end
-- a and b of the given shapes (a well-conditioned).
local function pair(sa, sb, da, db)
  return function(xp) return { a = good(xp, sa, da), b = arr(xp, sb, db) } end
end
-- A freed array, a view of it taken before the free, and live arrays beside them.
local function freed(xp)
  local f = good(xp, { 3, 3 })
  local v = f[{ { 1, 3 } }]
  f:free()
  return { f = f, v = v, a = good(xp, { 3, 3 }), b = arr(xp, { 3 }) }
end
local function closed(xp)
  local x
  do
    local y <close> = good(xp, { 3, 3 })
    x = y
  end
  return { x = x, a = good(xp, { 3, 3 }), b = arr(xp, { 3 }) }
end
-- Singular matrices: zeros, a zero row, a zero column, integer ones, bool all true, and a stack
-- with one singular matrix among regular ones.
local function singular(xp)
  local stack = good(xp, { 4, 3, 3 })
  stack[{ 3, 2 }] = 0
  local row = good(xp, { 4, 4 })
  row[2] = 0
  local col = good(xp, { 4, 4 })
  col[{ {}, 3 }] = 0
  return { z = xp.zeros({ 3, 3 }), row = row, col = col, ones = xp.ones({ 3, 3 }, "int64"),
           bools = xp.ones({ 2, 2 }, "bool"), stack = stack, b = arr(xp, { 3 }),
           b4 = arr(xp, { 4, 2 }), bs = arr(xp, { 2, 1, 3, 2 }) }
end
-- Matrices that are not positive definite (none singular for LU's sake).
local function not_pd(xp)
  local stack = (good(xp, { 3, 4, 4 }) + good(xp, { 3, 4, 4 }):swapaxes(2, 3)) * 2
  stack[{ 2, 3, 3 }] = -1
  return { indefinite = xp.full({ 2, 2 }, 2.0) - xp.eye(2), -- {{1, 2}, {2, 1}}
           negative = xp.full({ 1, 1 }, -4.0), z = xp.zeros({ 3, 3 }),
           psd = xp.ones({ 3, 3 }), stack = stack,
           -- {{3, 99}, {2, 3}}: positive definite read from its lower triangle, not its upper
           lower_only = xp.eye(2) * 3 + xp.eye(2, 2, 1) * 99 + xp.eye(2, 2, -1) * 2,
           -- {{1, 0}, {5, 1}}: its lower triangle read as {{1, 5}, {5, 1}}, indefinite
           tri = xp.eye(2) + xp.eye(2, 2, -1) * 5 }
end

local L = function(xp) return xp.linalg end

local both = {
  -- fewer than two dimensions
  { "det of a 1-D array", "LinAlgError", match = "1-dimensional", setup = one({ 3 }),
    misuse = function(t, xp) return L(xp).det(t.a) end },
  { "det of a 0-d array", "LinAlgError", match = "0-dimensional",
    setup = function(xp) return { a = xp.full({}, 2.0) } end,
    misuse = function(t, xp) return L(xp).det(t.a) end },
  { "slogdet of a 1-D array", "LinAlgError", match = "two-dimensional", setup = one({ 4 }),
    misuse = function(t, xp) return L(xp).slogdet(t.a) end },
  { "inv of a 1-D array", "LinAlgError", match = "two-dimensional", setup = one({ 1 }),
    misuse = function(t, xp) return L(xp).inv(t.a) end },
  { "inv of an empty 1-D array", "LinAlgError", match = "two-dimensional", setup = one({ 0 }),
    misuse = function(t, xp) return L(xp).inv(t.a) end },
  { "cholesky of a 1-D array", "LinAlgError", match = "two-dimensional", setup = one({ 3 }),
    misuse = function(t, xp) return L(xp).cholesky(t.a) end },
  { "solve with a 1-D a", "LinAlgError", match = "two-dimensional", setup = one({ 3 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  -- non-square matrices
  { "det of a (2,3) matrix", "LinAlgError", match = "square", setup = one({ 2, 3 }),
    misuse = function(t, xp) return L(xp).det(t.a) end },
  { "slogdet of a (4,2,3) stack", "LinAlgError", match = "(4,2,3)", setup = one({ 4, 2, 3 }),
    misuse = function(t, xp) return L(xp).slogdet(t.a) end },
  { "inv of a (3,2) matrix", "LinAlgError", match = "square", setup = one({ 3, 2 }),
    misuse = function(t, xp) return L(xp).inv(t.a) end },
  { "cholesky of a (2,3) matrix", "LinAlgError", match = "square", setup = one({ 2, 3 }),
    misuse = function(t, xp) return L(xp).cholesky(t.a) end },
  { "solve with a (3,2) a", "LinAlgError", match = "square", setup = one({ 3, 2 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "det of an empty non-square (3,0)", "LinAlgError", match = "square", setup = one({ 3, 0 }),
    misuse = function(t, xp) return L(xp).det(t.a) end },
  { "inv of a non-square empty batch (0,2,3)", "LinAlgError", match = "square",
    setup = one({ 0, 2, 3 }), misuse = function(t, xp) return L(xp).inv(t.a) end },
  { "det of a transposed (2,3), (3,2)", "LinAlgError", match = "(3,2)",
    setup = one({ 2, 3 }), misuse = function(t, xp) return L(xp).det(t.a.T) end },
  -- float16
  { "det of float16", "TypeError", match = "float16", setup = one({ 2, 2 }, "float16"),
    misuse = function(t, xp) return L(xp).det(t.a) end },
  { "slogdet of float16", "TypeError", match = "float16", setup = one({ 2, 2 }, "float16"),
    misuse = function(t, xp) return L(xp).slogdet(t.a) end },
  { "inv of float16", "TypeError", match = "float16", setup = one({ 3, 3 }, "float16"),
    misuse = function(t, xp) return L(xp).inv(t.a) end },
  { "cholesky of float16", "TypeError", match = "float16", setup = one({ 1, 1 }, "float16"),
    misuse = function(t, xp) return L(xp).cholesky(t.a) end },
  { "solve with a float16 a", "TypeError", match = "float16",
    setup = pair({ 3, 3 }, { 3 }, "float16"),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve with a float16 b", "TypeError", match = "float16",
    setup = pair({ 3, 3 }, { 3 }, "float64", "float16"),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "det of an empty float16 stack", "TypeError", match = "float16",
    setup = one({ 0, 2, 2 }, "float16"), misuse = function(t, xp) return L(xp).det(t.a) end },
  -- b of the wrong shape
  { "solve (3,3) with a (4,) b", "ValueError", match = "4 rows", setup = pair({ 3, 3 }, { 4 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (3,3) with a (4,2) b", "ValueError", match = "rows", setup = pair({ 3, 3 }, { 4, 2 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (3,3) with a (2,3) b: a forgotten transpose", "ValueError", match = "2 rows",
    setup = pair({ 3, 3 }, { 2, 3 }), misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (2,3,3) with (2,3): NumPy 1's stack of vectors, not NumPy 2's", "ValueError",
    match = "rows", setup = pair({ 2, 3, 3 }, { 2, 3 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve with a 0-d b", "ValueError", match = "b",
    setup = function(xp) return { a = good(xp, { 3, 3 }), b = xp.full({}, 1.0) } end,
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (0,0) with a (1,) b", "ValueError", match = "rows", setup = pair({ 0, 0 }, { 1 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  -- batch axes that do not broadcast
  { "solve (2,3,3) with (3,3,1)", "ValueError", match = "broadcast",
    setup = pair({ 2, 3, 3 }, { 3, 3, 1 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (2,1,3,3) with (3,4,3,2)", "ValueError", match = "broadcast",
    setup = pair({ 2, 1, 3, 3 }, { 3, 4, 3, 2 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  { "solve (0,3,3) with (2,3,1): an empty batch against 2", "ValueError", match = "broadcast",
    setup = pair({ 0, 3, 3 }, { 2, 3, 1 }),
    misuse = function(t, xp) return L(xp).solve(t.a, t.b) end },
  -- operands that are not arrays
  { "det of a Lua number", "TypeError", match = "argument #1", setup = ab,
    misuse = function(_, xp) return L(xp).det(5) end },
  { "det of a nested Lua table", "TypeError", match = "table", setup = ab,
    misuse = function(_, xp) return L(xp).det({ { 1, 2 }, { 3, 4 } }) end },
  { "det of a string", "TypeError", match = "string", setup = ab,
    misuse = function(_, xp) return L(xp).det("[[1, 2], [3, 4]]") end },
  { "det of nil", "TypeError", match = "argument #1", setup = ab,
    misuse = function(_, xp) return L(xp).det(nil) end },
  { "det of nothing", "TypeError", match = "no value", setup = ab,
    misuse = function(_, xp) return L(xp).det() end },
  { "inv of a boolean", "TypeError", match = "boolean", setup = ab,
    misuse = function(_, xp) return L(xp).inv(true) end },
  { "slogdet of a userdata that is not an array", "TypeError", match = "userdata", setup = ab,
    misuse = function(_, xp) return L(xp).slogdet(io.stdout) end },
  { "cholesky of a Lua table", "TypeError", match = "argument #1", setup = ab,
    misuse = function(_, xp) return L(xp).cholesky({ { 4, 2 }, { 2, 3 } }) end },
  { "cholesky of the options table alone", "TypeError", match = "argument #1", setup = ab,
    misuse = function(_, xp) return L(xp).cholesky({ upper = true }) end },
  { "solve with a number a", "TypeError", match = "argument #1", setup = ab,
    misuse = function(t, xp) return L(xp).solve(2, t.b) end },
  { "solve with a number b", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return L(xp).solve(t.a, 2) end },
  { "solve with no b", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return L(xp).solve(t.a) end },
  { "solve with a nil b", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return L(xp).solve(t.a, nil) end },
  { "solve with a Lua table b", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return L(xp).solve(t.a, { 1, 2, 3 }) end },
  { "solve with a Lua table holding a as a", "TypeError", match = "argument #1",
    setup = ab, misuse = function(t, xp) return L(xp).solve({ t.a }, t.b) end },
  -- extra arguments
  { "det with a second argument", "TypeError", match = "at most 1", setup = ab,
    misuse = function(t, xp) return L(xp).det(t.a, 1) end },
  { "slogdet of two arrays", "TypeError", match = "at most 1", setup = ab,
    misuse = function(t, xp) return L(xp).slogdet(t.a, t.a) end },
  { "inv with an options table", "TypeError", match = "at most 1", setup = ab,
    misuse = function(t, xp) return L(xp).inv(t.a, {}) end },
  { "solve with a third array (an out it does not take)", "TypeError", match = "at most 2",
    setup = ab, misuse = function(t, xp) return L(xp).solve(t.a, t.b, t.b) end },
  { "cholesky with options and a third argument", "TypeError", match = "at most 2", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, {}, true) end },
  { "det with an extra array of the wrong kind", "TypeError", match = "at most 1", setup = ab,
    misuse = function(t, xp) return L(xp).det(t.a, t.b) end },
  -- cholesky's options
  { "cholesky {uper = true}", "ValueError", match = "unknown option 'uper'", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { uper = true }) end },
  { "cholesky {lower = true} (NumPy says upper)", "ValueError", match = "lower", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { lower = true }) end },
  { "cholesky {Upper = true} (names are lower case)", "ValueError", match = "Upper",
    setup = ab, misuse = function(t, xp) return L(xp).cholesky(t.a, { Upper = true }) end },
  { "cholesky {upper = true, lower = false}", "ValueError", match = "lower", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { upper = true, lower = false }) end },
  { "cholesky {upper = 'yes'}", "TypeError", match = "boolean", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { upper = "yes" }) end },
  { "cholesky {upper = 1}", "TypeError", match = "boolean", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { upper = 1 }) end },
  { "cholesky {true}: a positional option", "TypeError", match = "named", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, { true }) end },
  { "cholesky with 'upper' as a string", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, "upper") end },
  { "cholesky with true for the options", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, true) end },
  { "cholesky with false for the options", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, false) end },
  { "cholesky with a number for the options", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, 1) end },
  { "cholesky with an array for the options", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return L(xp).cholesky(t.a, t.b) end },
  -- singular matrices (inv, solve)
  { "inv of zeros", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.z) end },
  { "inv of a matrix with a zero row", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.row) end },
  { "inv of a matrix with a zero column", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.col) end },
  { "inv of a transposed zero-row matrix", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.row.T) end },
  { "inv of int64 ones", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.ones) end },
  { "inv of bool all true", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).inv(t.bools) end },
  { "inv of a stack with one singular matrix", "LinAlgError", match = "singular",
    setup = singular, misuse = function(t, xp) return L(xp).inv(t.stack) end },
  { "solve with a zero a", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).solve(t.z, t.b) end },
  { "solve with a zero-column a", "LinAlgError", match = "singular", setup = singular,
    misuse = function(t, xp) return L(xp).solve(t.col, t.b4) end },
  { "solve with one singular matrix in a broadcast stack", "LinAlgError", match = "singular",
    setup = singular, misuse = function(t, xp) return L(xp).solve(t.stack, t.bs) end },
  -- not positive definite (cholesky)
  { "cholesky of an indefinite matrix", "LinAlgError", match = "positive definite",
    setup = not_pd, misuse = function(t, xp) return L(xp).cholesky(t.indefinite) end },
  { "cholesky of a negative 1x1", "LinAlgError", match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.negative, { upper = true }) end },
  { "cholesky of zeros", "LinAlgError", match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.z) end },
  { "cholesky of a singular semi-definite matrix (ones)", "LinAlgError",
    match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.psd) end },
  { "cholesky of a stack with one matrix not positive definite", "LinAlgError",
    match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.stack) end },
  { "cholesky upper of a matrix PD only in its lower triangle", "LinAlgError",
    match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.lower_only, { upper = true }) end },
  { "cholesky lower of a triangular matrix whose lower triangle is indefinite", "LinAlgError",
    match = "positive definite", setup = not_pd,
    misuse = function(t, xp) return L(xp).cholesky(t.tri) end },
  -- freed and closed arrays
  { "det of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return L(xp).det(t.f) end },
  { "inv of a view of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return L(xp).inv(t.v) end },
  { "slogdet of a closed array", "ValueError", match = "closed", setup = closed,
    misuse = function(t, xp) return L(xp).slogdet(t.x) end },
  { "cholesky of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return L(xp).cholesky(t.f, { upper = true }) end },
  { "solve with a freed a", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return L(xp).solve(t.f, t.b) end },
  { "solve with a freed b", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return L(xp).solve(t.a, t.f) end },
  { "solve with a closed b", "ValueError", match = "closed", setup = closed,
    misuse = function(t, xp) return L(xp).solve(t.a, t.x) end },
}

describe("cuarr.linalg refuses", function()
  for _, b in ipairs(H.backends) do
    for _, case in ipairs(both) do
      b.it(case[1] .. " (" .. case[2] .. ")", function()
        run_case({ kind = case[2], match = case.match, setup = case.setup,
                   misuse = case.misuse }, b.xp)
      end)
    end
  end
end)

describe("a refused linalg call changes nothing", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("inputs keep their values after each kind of failure; good calls work after", function()
      local t = singular(xp)
      local p = not_pd(xp)
      local before, before_p = state(t), state(p)
      for _, name in ipairs { "z", "row", "col", "ones", "bools", "stack" } do
        H.raises("LinAlgError", xp.linalg.inv, t[name])
      end
      H.raises("LinAlgError", xp.linalg.solve, t.stack, t.bs)
      H.raises("ValueError", xp.linalg.solve, t.row, t.b)
      for _, name in ipairs { "indefinite", "negative", "z", "psd", "stack", "tri" } do
        H.raises("LinAlgError", xp.linalg.cholesky, p[name])
        if name ~= "tri" then -- (its upper triangle is I's)
          H.raises("LinAlgError", xp.linalg.cholesky, p[name], { upper = true })
        end
      end
      H.raises("LinAlgError", xp.linalg.cholesky, p.lower_only, { upper = true })
      assert.are.same(before, state(t))
      assert.are.same(before_p, state(p))
      -- singular inputs still have determinants, and their regular neighbours still invert
      assert.are.equal(0.0, xp.linalg.det(t.row):item())
      assert.are.same({ 2, 3, 3 }, { table.unpack(xp.linalg.inv(t.stack[{ { 1, 2 } }]).shape) })
      local l = xp.linalg.cholesky(p.lower_only)
      local lh = l.device == "cpu" and l or l:get()
      local want = { math.sqrt(3), 0, 2 / math.sqrt(3), math.sqrt(3 - 4 / 3) }
      for i, v in ipairs(H.flat(lh:totable())) do
        assert.is_true(math.abs(v - want[i]) < 1e-14, "L of lower_only, element " .. i)
      end
    end)

    b.it("a failure in one call leaves no state behind for the next", function()
      local a = good(xp, { 5, 4, 4 })
      local z = xp.zeros({ 5, 4, 4 })
      for _ = 1, 3 do
        H.raises("LinAlgError", xp.linalg.inv, z)
        H.raises("LinAlgError", xp.linalg.cholesky, z)
        H.raises("ValueError", xp.linalg.solve, a, xp.ones({ 5 }))
        local x = xp.linalg.inv(a)
        local r = xp.matmul(a, x) - xp.eye(4)
        local h = r.device == "cpu" and r or r:get()
        assert.is_true(h:abs():max():item() < 1e-12)
      end
    end)
  end
end)

-- ---------------------------------------------------------------- host and device mixed

-- Device a and b, host a and b of the same values.
local function mixed()
  local c = cuarr.cpu
  return { da = good(cuarr, { 3, 3 }), db = arr(cuarr, { 3, 2 }), ha = good(c, { 3, 3 }),
           hb = arr(c, { 3, 2 }), hv = arr(c, { 3 }) }
end

local gpu = {
  { "solve with a device a and a host b", "ValueError", match = "different devices",
    misuse = function(t) return cuarr.linalg.solve(t.da, t.hb) end },
  { "solve with a host a and a device b", "ValueError", match = "different devices",
    misuse = function(t) return cuarr.linalg.solve(t.ha, t.db) end },
  { "solve with a device a and a host 1-D b", "ValueError", match = "different devices",
    misuse = function(t) return cuarr.linalg.solve(t.da, t.hv) end },
  { "cuarr.cpu.linalg.solve with a host a and a device b", "ValueError",
    match = "different devices",
    misuse = function(t) return cuarr.cpu.linalg.solve(t.ha, t.db) end },
  { "solve with a device float16 a and a host b", "ValueError", match = "different devices",
    misuse = function(t) return cuarr.linalg.solve(t.da:astype("float16"), t.hb) end },
  { "inv of a singular device matrix (cuSOLVER)", "LinAlgError", match = "singular",
    misuse = function() return cuarr.linalg.inv(cuarr.zeros({ 40, 40 })) end },
  { "inv of a device batch with one singular matrix (batched)", "LinAlgError",
    match = "singular", misuse = function()
      local s = good(cuarr, { 100, 8, 8 })
      s[{ 50, 3 }] = 0
      return cuarr.linalg.inv(s)
    end },
  { "solve with a singular device batch (batched)", "LinAlgError", match = "singular",
    misuse = function(t)
      local s = good(cuarr, { 10, 3, 3 })
      s[{ 10, {}, 1 }] = 0
      return cuarr.linalg.solve(s, t.db)
    end },
  { "cholesky of a device batch with one matrix not positive definite", "LinAlgError",
    match = "positive definite", misuse = function()
      local s = good(cuarr, { 100, 8, 8 }) + good(cuarr, { 100, 8, 8 }):swapaxes(2, 3)
      s[{ 7, 8, 8 }] = -1
      return cuarr.linalg.cholesky(s)
    end },
  { "cholesky of a 40x40 device matrix not positive definite", "LinAlgError",
    match = "positive definite", misuse = function()
      return cuarr.linalg.cholesky(cuarr.eye(40) - cuarr.eye(40, 40, 1) * 2 - cuarr.eye(40, 40, -1)
        * 2, { upper = true })
    end },
}

describe("cuarr.linalg refuses host and device arrays together, and device failures", function()
  misuse.on_device(H, gpu, mixed)
end)

-- ---------------------------------------------------------------- two devices

local function two_devices()
  local t = { a0 = good(cuarr, { 3, 3 }), b0 = arr(cuarr, { 3 }) }
  cuarr.with_device(1, function()
    t.a1 = good(cuarr, { 3, 3 })
    t.b1 = arr(cuarr, { 3 })
  end)
  return t
end

local multigpu = {
  { "det of an array on device 1 under device 0", "ValueError", match = "device",
    misuse = function(t) return cuarr.linalg.det(t.a1) end },
  { "solve with a on device 0 and b on device 1", "ValueError", match = "device",
    misuse = function(t) return cuarr.linalg.solve(t.a0, t.b1) end },
}

describe("cuarr.linalg across two devices", function()
  for _, case in ipairs(multigpu) do
    H.multigpu_it(case[1] .. " (" .. case[2] .. ")", function()
      run_case({ kind = case[2], match = case.match, setup = two_devices,
                 misuse = case.misuse }, cuarr)
    end)
  end
end)

-- LAPACK's eigensolver and SVD refuse a matrix whose norm is not finite through XERBLA, which
-- prints and may end the process: host arrays holding NaN or infinity are a LinAlgError (as
-- NumPy's "did not converge") before LAPACK sees them, and nothing else in the stack changes.
describe("cuarr.cpu.linalg with NaN and infinity", function()
  local cpu = cuarr.cpu
  local bad = {
    { "NaN", cpu.array({ { 1, 0 / 0 }, { 2, 3 } }) },
    { "infinity", cpu.array({ { 1, math.huge }, { math.huge, 3 } }, "float32") },
    { "-infinity in a stack",
      cpu.array({ { { 2, 1 }, { 1, 2 } }, { { -math.huge, 0 }, { 0, 1 } } }) },
  }
  for _, case in ipairs(bad) do
    it("svd, eigh and eigvalsh of a matrix holding " .. case[1] .. " raise LinAlgError", function()
      local a = case[2]
      local before = tostring(a) -- NaN is not equal to itself: compare the printed values
      H.raises("LinAlgError", cpu.linalg.svd, a)
      H.raises("LinAlgError", cpu.linalg.svd, a, { compute_uv = false })
      H.raises("LinAlgError", cpu.linalg.eigh, a)
      H.raises("LinAlgError", cpu.linalg.eigvalsh, a)
      assert.are.equal(before, tostring(a))
    end)
  end
end)
