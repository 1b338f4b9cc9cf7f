-- Misuses of cuarr.matmul, cuarr.diagonal and the matmul precision: each raises an
-- error object of its kind, with a message that says what was wrong, and leaves every array
-- involved as it was (an out keeps its values after a shape or dtype error, an operand given as
-- out keeps its own) and the precision as it was.
--
-- The cases are a table as in bad_input_spec.lua:
--   { name, kind, match = text the message must contain,
--     setup = function(xp) return { named arrays and other objects } end,   (optional)
--     misuse = function(t, xp) ... end }
-- `both` runs on host arrays (cuarr.cpu) and device arrays (cuarr, #gpu); `host` needs no
-- device; `gpu` mixes host and device arrays (#gpu); `multigpu` needs two devices.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local misuse = require "spec.support.misuse"


-- Every case also leaves the matmul precision as it was.
local function precision() return cuarr.get_matmul_precision() end
local function run_case(case, xp)
  case.check = precision
  misuse.run(H, case, xp)
end

-- Operands with distinct values, so that a stray write would show.
local function arr(xp, shape, dtype)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return xp.arange(1, n + 1):astype(dtype or "float64"):reshape(shape)
end

-- a (2,3) and b (3,4): their product is (2,4).
local function ab(xp) return { a = arr(xp, { 2, 3 }), b = arr(xp, { 3, 4 }) } end
local function ab_out(shape, dtype, adtype, bdtype)
  return function(xp)
    return { a = arr(xp, { 2, 3 }, adtype), b = arr(xp, { 3, 4 }, bdtype),
             out = xp.full(shape, 7, dtype or "float64") }
  end
end
local function pair(sa, sb)
  return function(xp)
    return { a = arr(xp, sa), b = arr(xp, sb), out = xp.full({ 2, 2 }, 7, "float64") }
  end
end
-- A freed array, a view of it taken before the free, and live arrays beside them.
local function freed(xp)
  local f = arr(xp, { 3, 3 })
  local v = f[{ { 1, 2 } }]
  f:free()
  return { f = f, v = v, a = arr(xp, { 3, 3 }), out = xp.full({ 3, 3 }, 7, "float64") }
end
local function closed(xp)
  local x
  do
    local y <close> = arr(xp, { 3, 3 })
    x = y
  end
  return { x = x, a = arr(xp, { 3, 3 }) }
end
local function m34(xp) return { m = arr(xp, { 3, 4 }) } end

local both = {
  -- inner extents that do not match
  { "(2,3) @ (4,5)", "ValueError", match = "do not match", setup = pair({ 2, 3 }, { 4, 5 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(3,) @ (4,)", "ValueError", match = "(3,) and (4,)", setup = pair({ 3 }, { 4 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(3,) @ (4,2)", "ValueError", match = "do not match", setup = pair({ 3 }, { 4, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(2,3) @ (4,)", "ValueError", match = "do not match", setup = pair({ 2, 3 }, { 4 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(3,2) @ (3,2): a forgotten transpose", "ValueError", match = "(3,2) and (3,2)",
    setup = pair({ 3, 2 }, { 3, 2 }), misuse = function(t) return t.a:matmul(t.b) end },
  { "(2,3,4) @ (5,2)", "ValueError", match = "do not match", setup = pair({ 2, 3, 4 }, { 5, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(5,) @ (2,4,3)", "ValueError", match = "do not match", setup = pair({ 5 }, { 2, 4, 3 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "mismatched inner extents with out given", "ValueError", match = "do not match",
    setup = pair({ 2, 3 }, { 2, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "(0,3) @ (2,0): empty operands that still do not match", "ValueError", match = "do not match",
    setup = pair({ 0, 3 }, { 2, 0 }), misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  -- batch axes that do not broadcast
  { "(2,2,3) @ (3,3,2)", "ValueError", match = "do not broadcast",
    setup = pair({ 2, 2, 3 }, { 3, 3, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(2,1,2,3) @ (3,4,3,2)", "ValueError", match = "do not broadcast",
    setup = pair({ 2, 1, 2, 3 }, { 3, 4, 3, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b) end },
  { "(4,2,3) @ (2,3,2) with out given", "ValueError", match = "do not broadcast",
    setup = pair({ 4, 2, 3 }, { 2, 3, 2 }),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  -- 0-d operands
  { "a 0-d first operand", "ValueError", match = "0-d",
    setup = function(xp) return { z = xp.full({}, 2.0), m = arr(xp, { 2, 2 }) } end,
    misuse = function(t, xp) return xp.matmul(t.z, t.m) end },
  { "a 0-d second operand", "ValueError", match = "0-d",
    setup = function(xp) return { z = xp.full({}, 2.0), m = arr(xp, { 2, 2 }) } end,
    misuse = function(t) return t.m:matmul(t.z) end },
  { "two 0-d operands", "ValueError", match = "0-d",
    setup = function(xp) return { z = xp.full({}, 2.0), w = xp.full({}, 3, "int32") } end,
    misuse = function(t, xp) return xp.matmul(t.z, t.w) end },
  -- operands that are not arrays
  { "a Lua number first", "TypeError", match = "argument #1", setup = ab,
    misuse = function(t, xp) return xp.matmul(2, t.b) end },
  { "a Lua number second", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, 2.5) end },
  { "a string operand", "TypeError", match = "string", setup = ab,
    misuse = function(t, xp) return xp.matmul("a", t.b) end },
  { "a nested Lua table operand", "TypeError", match = "table", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, { { 1, 2 }, { 3, 4 }, { 5, 6 } }) end },
  { "nil first", "TypeError", match = "argument #1", setup = ab,
    misuse = function(t, xp) return xp.matmul(nil, t.b) end },
  { "no second operand", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a) end },
  { "a boolean operand", "TypeError", match = "boolean", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, true) end },
  { "a userdata that is not an array", "TypeError", match = "userdata", setup = ab,
    misuse = function(t, xp) return xp.matmul(io.stdout, t.b) end },
  { "the method with a number", "TypeError", match = "argument #2", setup = ab,
    misuse = function(t) return t.a:matmul(3) end },
  { "the method called with '.' on a number", "TypeError", match = "argument #1", setup = ab,
    misuse = function(t) return t.a.matmul(3, t.b) end },
  -- outs of the wrong shape (none is written)
  { "an out of shape (3,3) for (2,4)", "ValueError", match = "out has shape (3,3)",
    setup = ab_out({ 3, 3 }), misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an out transposed, (4,2) for (2,4)", "ValueError", match = "(2,4)",
    setup = ab_out({ 4, 2 }), misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an out of the right size, (8,) for (2,4)", "ValueError", match = "out has shape",
    setup = ab_out({ 8 }), misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an out with an extra axis, (1,2,4) for (2,4)", "ValueError", match = "out has shape",
    setup = ab_out({ 1, 2, 4 }), misuse = function(t) return t.a:matmul(t.b, t.out) end },
  { "an out without the batch axis", "ValueError", match = "out has shape",
    setup = function(xp)
      return { a = arr(xp, { 3, 2, 2 }), b = arr(xp, { 2, 2 }), out = xp.full({ 2, 2 }, 7.0) }
    end, misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an out of shape (1,) for a 0-d result", "ValueError", match = "out has shape (1,)",
    setup = function(xp) return { v = arr(xp, { 3 }), out = xp.full({ 1 }, 7.0) } end,
    misuse = function(t, xp) return xp.matmul(t.v, t.v, t.out) end },
  { "a 0-d out for a (2,) result", "ValueError", match = "out has shape",
    setup = function(xp)
      return { v = arr(xp, { 3 }), m = arr(xp, { 3, 2 }), out = xp.full({}, 7.0) }
    end, misuse = function(t, xp) return xp.matmul(t.v, t.m, t.out) end },
  { "an operand as out, of the wrong shape", "ValueError", match = "out has shape", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.a) end },
  -- outs of a dtype the result does not cast to under 'same_kind'
  { "a float64 result into an int32 out", "TypeError", match = "same_kind",
    setup = ab_out({ 2, 4 }, "int32"),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an int8 result into a bool out", "TypeError", match = "bool",
    setup = ab_out({ 2, 4 }, "bool", "int8", "int8"),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "a float16 result into an int64 out", "TypeError", match = "float16",
    setup = ab_out({ 2, 4 }, "int64", "float16", "float16"),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "a float32 result into a bool out", "TypeError", match = "same_kind",
    setup = ab_out({ 2, 4 }, "bool", "float32", "float32"),
    misuse = function(t) return t.a:matmul(t.b, t.out) end },
  { "int8 @ float32 (float32) into an int8 out", "TypeError", match = "float32",
    setup = ab_out({ 2, 4 }, "int8", "int8", "float32"),
    misuse = function(t, xp) return xp.matmul(t.a, t.b, t.out) end },
  { "an int32 result into an operand of dtype bool", "TypeError", match = "same_kind",
    setup = function(xp)
      return { a = arr(xp, { 2, 2 }, "int32"), m = xp.ones({ 2, 2 }, "bool") }
    end, misuse = function(t, xp) return xp.matmul(t.a, t.m, t.m) end },
  -- outs that are not arrays
  { "an out that is a table", "TypeError", match = "argument #3", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, t.b, {}) end },
  { "an out that is a number", "TypeError", match = "argument #3", setup = ab,
    misuse = function(t, xp) return xp.matmul(t.a, t.b, 0) end },
  { "an out that is a string", "TypeError", match = "argument #3", setup = ab,
    misuse = function(t) return t.a:matmul(t.b, "out") end },
  -- freed and closed arrays
  { "a freed out", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.matmul(t.a, t.a, t.f) end },
  { "a view of a freed array as out", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.matmul(t.a[{ { 1, 2 } }], t.a, t.v) end },
  { "a freed first operand", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.matmul(t.f, t.a, t.out) end },
  { "a freed second operand", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.matmul(t.a, t.f) end },
  { "a view of a freed array as an operand", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.matmul(t.v, t.a) end },
  { "the method of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t) return t.f:matmul(t.a) end },
  { "a closed operand", "ValueError", match = "closed", setup = closed,
    misuse = function(t, xp) return xp.matmul(t.a, t.x) end },
  -- diagonal
  { "diagonal of a 1-D array", "ValueError", match = "two dimensions",
    setup = function(xp) return { v = arr(xp, { 4 }) } end,
    misuse = function(t, xp) return xp.diagonal(t.v) end },
  { "diagonal of a 0-d array", "ValueError", match = "two dimensions",
    setup = function(xp) return { z = xp.full({}, 1.0) } end,
    misuse = function(t) return t.z:diagonal() end },
  { "diagonal with axis1 == axis2", "ValueError", match = "same", setup = m34,
    misuse = function(t, xp) return xp.diagonal(t.m, 0, 2, 2) end },
  { "diagonal with axes 1 and -2 of a 2-D array: the same axis", "ValueError", match = "same",
    setup = m34, misuse = function(t) return t.m:diagonal(0, 1, -2) end },
  { "diagonal with axis1 = 2 and axis2 left at 2", "ValueError", match = "same", setup = m34,
    misuse = function(t) return t.m:diagonal(1, 2) end },
  { "diagonal with axis 3 of a 2-D array", "IndexError", match = "out of bounds", setup = m34,
    misuse = function(t, xp) return xp.diagonal(t.m, 0, 1, 3) end },
  { "diagonal with axis -3 of a 2-D array", "IndexError", match = "-3", setup = m34,
    misuse = function(t) return t.m:diagonal(0, -3, 2) end },
  { "diagonal with axis 0 (axes are 1-based)", "IndexError", match = "1-based", setup = m34,
    misuse = function(t) return t.m:diagonal(0, 0, 1) end },
  { "diagonal with axis 4 of a 3-D array", "IndexError", match = "out of bounds",
    setup = function(xp) return { c = arr(xp, { 2, 3, 4 }) } end,
    misuse = function(t) return t.c:diagonal(0, 4, 1) end },
  { "diagonal with a fractional offset", "TypeError", match = "offset", setup = m34,
    misuse = function(t) return t.m:diagonal(0.5) end },
  { "diagonal with a string offset", "TypeError", match = "offset", setup = m34,
    misuse = function(t, xp) return xp.diagonal(t.m, "1") end },
  { "diagonal with an infinite offset", "TypeError", match = "offset", setup = m34,
    misuse = function(t) return t.m:diagonal(math.huge) end },
  { "diagonal with a fractional axis", "TypeError", match = "1.5", setup = m34,
    misuse = function(t) return t.m:diagonal(0, 1.5, 2) end },
  { "diagonal of a number", "TypeError", match = "array", setup = m34,
    misuse = function(_, xp) return xp.diagonal(5) end },
  { "diagonal of a Lua table", "TypeError", match = "array", setup = m34,
    misuse = function(_, xp) return xp.diagonal({ { 1, 2 }, { 3, 4 } }) end },
  { "diagonal of a freed array", "ValueError", match = "freed", setup = freed,
    misuse = function(t, xp) return xp.diagonal(t.f) end },
  { "diagonal of a closed array", "ValueError", match = "closed", setup = closed,
    misuse = function(t) return t.x:diagonal() end },
}

describe("matmul and diagonal refuse", function()
  for _, b in ipairs(H.backends) do
    for _, case in ipairs(both) do
      b.it(case[1] .. " (" .. case[2] .. ")", function()
        run_case({ kind = case[2], match = case.match, setup = case.setup,
                   misuse = case.misuse }, b.xp)
      end)
    end
  end
end)

-- ---------------------------------------------------------------- the precision

local function precision_case(ns, name, kind, match, ...)
  local args = table.pack(...)
  return { name, kind, match = match, misuse = function()
    return ns.set_matmul_precision(table.unpack(args, 1, args.n))
  end }
end

local host = {
  precision_case(cuarr, "the precision 'high'", "ValueError", "high", "high"),
  precision_case(cuarr, "the precision 'HIGHEST' (names are lower case)", "ValueError",
    "HIGHEST", "HIGHEST"),
  precision_case(cuarr, "the precision ''", "ValueError", "unknown precision", ""),
  precision_case(cuarr, "the precision 'medium'", "ValueError", "tf32", "medium"),
  precision_case(cuarr, "the precision 'float32'", "ValueError", "highest", "float32"),
  precision_case(cuarr.cpu, "cpu.set_matmul_precision('fp16')", "ValueError", "fp16", "fp16"),
  precision_case(cuarr, "a number as the precision", "TypeError", "string", 1),
  precision_case(cuarr, "no precision", "TypeError", "string"),
  precision_case(cuarr, "nil as the precision", "TypeError", "string", nil),
  precision_case(cuarr, "a table as the precision", "TypeError", "string", { "tf32" }),
  precision_case(cuarr, "a boolean as the precision", "TypeError", "string", true),
}

describe("set_matmul_precision refuses, and the precision stays", function()
  for _, case in ipairs(host) do
    it(case[1] .. " (" .. case[2] .. ")", function()
      finally(function() cuarr.set_matmul_precision("highest") end)
      for _, start in ipairs { "highest", "tf32" } do
        cuarr.set_matmul_precision(start)
        run_case({ kind = case[2], match = case.match, misuse = case.misuse }, cuarr.cpu)
        assert.are.equal(start, cuarr.get_matmul_precision())
      end
    end)
  end

  it("a refused matmul leaves the precision as it was", function()
    finally(function() cuarr.set_matmul_precision("highest") end)
    cuarr.set_matmul_precision("tf32")
    H.raises("ValueError", cuarr.cpu.matmul, cuarr.cpu.ones({ 2, 3 }), cuarr.cpu.ones({ 2, 3 }))
    assert.are.equal("tf32", cuarr.get_matmul_precision())
  end)
end)

describe("a refused call changes nothing", function()
  it("an out keeps its values after shape, dtype and operand errors [cpu]", function()
    local cpu = cuarr.cpu
    local a = cpu.arange(6):astype("float32"):reshape({ 2, 3 })
    local b = cpu.ones({ 3, 2 }, "float32")
    local out = cpu.arange(4):astype("int32"):reshape({ 2, 2 })
    H.raises("TypeError", cpu.matmul, a, b, out)
    local wide = cpu.full({ 2, 3 }, 5.0)
    H.raises("ValueError", cpu.matmul, a, b, wide)
    H.raises("ValueError", cpu.matmul, a, a, out:astype("float64"))
    assert.are.same({ { 0, 1 }, { 2, 3 } }, out:totable())
    assert.are.same({ { 5, 5, 5 }, { 5, 5, 5 } }, wide:totable())
    assert.are.same({ { 0, 1, 2 }, { 3, 4, 5 } }, a:totable())
    -- and a good call afterwards works
    local good = cpu.zeros({ 2, 2 }, "float64")
    assert.are.equal(good, cpu.matmul(a, b, good))
    assert.are.same({ { 3, 3 }, { 12, 12 } }, good:totable())
  end)
end)

-- ---------------------------------------------------------------- host and device mixed

-- d: device (2,3) and (3,2), h: host ones of the same shapes, outs of each place.
local function mixed()
  local c = cuarr.cpu
  return { da = cuarr.arange(6):astype("float64"):reshape({ 2, 3 }),
           db = cuarr.ones({ 3, 2 }, "float64"),
           ha = c.arange(6):astype("float64"):reshape({ 2, 3 }),
           hb = c.ones({ 3, 2 }, "float64"),
           dout = cuarr.full({ 2, 2 }, 7.0), hout = c.full({ 2, 2 }, 7.0) }
end

local gpu = {
  { "a device operand @ a host operand", "ValueError", match = "host",
    misuse = function(t) return cuarr.matmul(t.da, t.hb) end },
  { "a host operand @ a device operand", "ValueError", match = "host",
    misuse = function(t) return cuarr.matmul(t.ha, t.db) end },
  { "the method of a device array with a host operand", "ValueError", match = "host",
    misuse = function(t) return t.da:matmul(t.hb, t.dout) end },
  { "a host out for device operands", "ValueError", match = "out",
    misuse = function(t) return cuarr.matmul(t.da, t.db, t.hout) end },
  { "a device out for host operands", "ValueError", match = "out",
    misuse = function(t) return cuarr.cpu.matmul(t.ha, t.hb, t.dout) end },
  { "a device out of the wrong shape", "ValueError", match = "out has shape",
    misuse = function(t) return cuarr.matmul(t.db, t.da, t.dout) end },
  { "a freed device out", "ValueError", match = "freed",
    misuse = function(t)
      local o = cuarr.zeros({ 2, 2 })
      o:free()
      return cuarr.matmul(t.da, t.db, o)
    end },
  { "a host out for device operands under tf32", "ValueError", match = "out",
    misuse = function(t)
      cuarr.set_matmul_precision("tf32")
      local ok, err = pcall(cuarr.matmul, t.da:astype("float32"), t.db:astype("float32"), t.hout)
      cuarr.set_matmul_precision("highest")
      if not ok then error(err, 0) end
    end },
}

describe("matmul refuses host and device arrays together", function()
  for _, case in ipairs(gpu) do
    H.gpu_it(case[1] .. " (" .. case[2] .. ")", function()
      run_case({ kind = case[2], match = case.match, setup = mixed, misuse = case.misuse },
        cuarr)
    end)
  end
end)

-- ---------------------------------------------------------------- two devices

local function two_devices()
  local t = { a0 = cuarr.ones({ 2, 2 }), out0 = cuarr.full({ 2, 2 }, 7.0) }
  cuarr.with_device(1, function()
    t.a1 = cuarr.ones({ 2, 2 })
    t.out1 = cuarr.full({ 2, 2 }, 7.0)
  end)
  return t
end

local multigpu = {
  { "an operand on device 1 under device 0", "ValueError", match = "device",
    misuse = function(t) return cuarr.matmul(t.a0, t.a1) end },
  { "an out on device 1 for device-0 operands", "ValueError", match = "device",
    misuse = function(t) return cuarr.matmul(t.a0, t.a0, t.out1) end },
}

describe("matmul across two devices", function()
  for _, case in ipairs(multigpu) do
    H.multigpu_it(case[1] .. " (" .. case[2] .. ")", function()
      run_case({ kind = case[2], match = case.match, setup = two_devices,
                 misuse = case.misuse }, cuarr)
    end)
  end
end)
