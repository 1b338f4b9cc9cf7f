-- Options tables (issue 14, scope 1): every function that takes one checks its keys.  An
-- unknown key is a ValueError naming the function, the key and the accepted keys, with "did you
-- mean" for a near miss; each accepted key still works.  Before, a misspelled option was
-- ignored and the result computed without it, wrong with no error.
--
-- CASES walks every function that takes options, each with how to call it with an options
-- table and, per accepted key, a value that works.  Host arrays run everywhere; the device
-- paths (#gpu) run on a GPU.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

local function out_of(shape, dtype)
  return function(xp) return xp.zeros(shape, dtype or "float64") end
end

-- The built-in reductions, their options and values that work for each.
local REDUCTIONS = {
  { "sum", dtype = "float64" }, { "prod", dtype = "float64" }, { "nansum", dtype = "float64" },
  { "nanprod", dtype = "float64" }, { "max" }, { "min" }, { "amax", fn = "max" }, { "amin", fn = "min" },
  { "nanmax" }, { "nanmin" }, { "argmax", out_dtype = "int64" },
  { "argmin", out_dtype = "int64" }, { "all", out_dtype = "bool" },
  { "any", out_dtype = "bool" }, { "count_nonzero", out_dtype = "int64" },
}

-- { name, call(xp, opts), works = { key = value or function(xp) giving one }, device_only,
-- device_works (the values are device objects), fn (the name the errors give, when not the
-- name's first word) }.  `call` gets the namespace (cuarr.cpu or cuarr) and the options.
local CASES = {}
local function case(c) CASES[#CASES + 1] = c end

local SHAPED = { dtype = "float32", pinned = false, order = "C" }
local RANGED = { dtype = "float32", pinned = false }
local function shaped(name, call) case { name, call, works = SHAPED } end
shaped("empty", function(xp, o) return xp.empty({ 3, 4 }, o) end)
shaped("empty with a dtype", function(xp, o) return xp.empty({ 3, 4 }, "float32", o) end)
shaped("zeros", function(xp, o) return xp.zeros({ 3, 4 }, o) end)
shaped("ones", function(xp, o) return xp.ones({ 3, 4 }, o) end)
shaped("full", function(xp, o) return xp.full({ 3, 4 }, 7, o) end)
shaped("empty_like", function(xp, o) return xp.empty_like(xp.ones(3), o) end)
shaped("zeros_like", function(xp, o) return xp.zeros_like(xp.ones(3), o) end)
shaped("ones_like", function(xp, o) return xp.ones_like(xp.ones(3), o) end)
shaped("full_like", function(xp, o) return xp.full_like(xp.ones(3), 7, o) end)
shaped("array", function(xp, o) return xp.array({ 1, 2, 3 }, o) end)
shaped("asarray", function(xp, o) return xp.asarray({ 1, 2, 3 }, o) end)
case { "arange", function(xp, o) return xp.arange(5, o) end, works = RANGED }
case { "eye", function(xp, o) return xp.eye(3, o) end, works = RANGED }
case { "identity", function(xp, o) return xp.identity(3, o) end, works = RANGED }
case { "linspace", function(xp, o) return xp.linspace(0, 1, 5, o) end,
       works = { dtype = "float32", pinned = false, endpoint = false } }
case { "device_array", function(_, o) return cuarr.device_array({ 3, 4 }, o) end,
       works = SHAPED, device_only = true, fn = "empty" }
case { "device_array_like",
       function(_, o) return cuarr.device_array_like(cuarr.ones(3), o) end,
       works = SHAPED, device_only = true, fn = "empty_like" }

for _, r in ipairs(REDUCTIONS) do
  case { r[1], function(xp, o) return xp.ones({ 2, 3 })[r[1]](xp.ones({ 2, 3 }), o) end,
         works = { axis = 1, keepdims = true, dtype = r.dtype,
                   out = out_of({}, r.out_dtype) }, fn = r.fn }
  case { r[1] .. " with an axis",
         function(xp, o) return xp[r[1]](xp.ones({ 2, 3 }), 2, o) end,
         works = { keepdims = true, dtype = r.dtype, out = out_of({ 2 }, r.out_dtype) },
         fn = r.fn }
end
for _, name in ipairs { "cumsum", "cumprod" } do
  case { name, function(xp, o) return xp[name](xp.ones({ 2, 3 }), o) end,
         works = { axis = 1, keepdims = false, dtype = "float64", out = out_of({ 6 }) } }
end
for _, name in ipairs { "mean", "nanmean" } do
  case { name, function(xp, o) return xp[name](xp.ones({ 2, 3 }), o) end,
         works = { axis = 1, keepdims = true, dtype = "float32", out = out_of({}) } }
end
for _, name in ipairs { "var", "std" } do
  case { name, function(xp, o) return xp[name](xp.ones({ 2, 3 }), o) end,
         works = { axis = 1, keepdims = true, dtype = "float32", out = out_of({}), ddof = 1 } }
  case { name .. " with an axis", function(xp, o) return xp[name](xp.ones({ 2, 3 }), 2, o) end,
         works = { keepdims = true, ddof = 1 } }
end
case { "ptp", function(xp, o) return xp.ptp(xp.ones({ 2, 3 }), o) end,
       works = { axis = 1, keepdims = true, out = out_of({}) } }
case { "linalg.norm", function(xp, o) return xp.linalg.norm(xp.ones({ 2, 3 }), o) end,
       works = { ord = "fro", axis = 2, keepdims = true } }
case { "linalg.norm with ord and axis",
       function(xp, o) return xp.linalg.norm(xp.ones({ 2, 3 }), 2, 2, o) end,
       works = { keepdims = true } }
case { "astype", function(xp, o) return xp.ones(3):astype("float32", o) end,
       works = { copy = false, order = "C" } }
local ORDER = { order = "C" }
case { "reshape", function(xp, o) return xp.ones(6):reshape({ 2, 3 }, o) end, works = ORDER }
case { "ravel", function(xp, o) return xp.ones({ 2, 3 }):ravel(o) end, works = ORDER }
case { "flatten", function(xp, o) return xp.ones({ 2, 3 }):flatten(o) end, works = ORDER }
case { "copy", function(xp, o) return xp.ones({ 2, 3 }):copy(o) end, works = ORDER }
case { "pinned_array", function(_, o) return cuarr.pinned_array({ 2, 3 }, "float32", o) end,
       works = ORDER, device_only = true }
case { "clip", function(xp, o) return xp.clip(xp.ones(3), 0, 1, o) end,
       works = { out = out_of({ 3 }) } }
case { "where", function(xp, o) local a = xp.ones(3); return xp.where(a:gt(0), a, a, o) end,
       works = { out = out_of({ 3 }) } }
case { "add", function(xp, o) local a = xp.ones(3); return xp.add(a, a, o) end,
       works = { out = out_of({ 3 }) } }
case { "negative", function(xp, o) return xp.negative(xp.ones(3), o) end,
       works = { out = out_of({ 3 }) } }
local function stream_of() return cuarr.get_current_stream() end
case { "get", function(xp, o) return xp.ones(3):get(o) end, works = { stream = stream_of },
       device_works = true }
case { "set", function(xp, o) return xp.ones(3):set({ 1, 2, 3 }, o) end,
       works = { stream = stream_of }, device_works = true }
case { "copy_to_host", function(xp, o) return xp.ones(3):copy_to_host(o) end,
       works = { stream = stream_of }, device_works = true }
case { "copy_to_host into an array",
       function(xp, o) return xp.ones(3):copy_to_host(cpu.zeros(3), o) end,
       works = { stream = stream_of }, device_works = true }
case { "to_device", function(_, o) return cuarr.to_device({ 1, 2 }, o) end,
       works = { stream = stream_of }, device_only = true }
case { "Stream", function(_, o) return cuarr.Stream(o) end,
       works = { non_blocking = true, priority = 0 }, device_only = true }
case { "Event", function(_, o) return cuarr.Event(o) end,
       works = { timing = false, blocking = true }, device_only = true }
case { "set_limit", function(_, o) return cuarr.get_default_memory_pool():set_limit(o) end,
       works = { size = 0, fraction = 0 }, device_only = true }
case { "ElementwiseKernel",
       function(_, o) return cuarr.ElementwiseKernel("float32 x", "float32 y", "y = x;", o) end,
       works = { name = "copy_x", preamble = "", loop_prep = "", after_loop = "",
                 options = { "-DX=1" } } }
case { "ReductionKernel",
       function(_, o)
         return cuarr.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", o)
       end,
       works = { name = "sum_x", reduce_type = "float32", preamble = "", options = { "-DX=1" } } }
case { "an ElementwiseKernel's call",
       function(_, o)
         local k = cuarr.ElementwiseKernel("raw float32 x", "raw float32 y", "y[i] = x[i];")
         return k(cuarr.ones(3, "float32"), cuarr.zeros(3, "float32"), o)
       end,
       works = { size = 3 }, device_only = true, fn = "ElementwiseKernel call" }
case { "a ReductionKernel's call",
       function(_, o)
         local k = cuarr.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0")
         return k(cuarr.ones({ 2, 3 }, "float32"), o)
       end,
       works = { axis = 1, keepdims = true,
                 out = function() return cuarr.zeros({}, "float32") end },
       device_only = true, fn = "ReductionKernel call" }

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- The keys the error names as accepted: those after "the options are: ".
local function accepted_in(message)
  local list = assert(message:match("the options are: (.*)$"), message)
  local set = {}
  for k in list:gmatch("[%w_]+") do set[k] = true end
  return set
end

-- The it for a case: on the host (cuarr.cpu) and, for the device paths, on a GPU.
local function places(c)
  local list = {}
  if not c.device_only then
    list[#list + 1] = { tag = "[cpu]", xp = cpu, it = function(n, f) it(n, f) end }
  end
  list[#list + 1] = { tag = "[gpu]", xp = cuarr, it = H.gpu_it }
  return list
end

describe("options tables", function()
  for _, c in ipairs(CASES) do
    local name, call = c[1], c[2]
    for _, p in ipairs(places(c)) do
      local where = name .. " " .. p.tag
      p.it(where .. ": an unknown key is a ValueError naming it and the accepted keys", function()
        local err = H.raises("ValueError", call, p.xp, { no_such_option = 1 })
        local fn = c.fn or name:match("^[%w_.]+"):match("[%w_]+$")
        assert.truthy(err.message:find("unknown option 'no_such_option'", 1, true), err.message)
        assert.truthy(err.message:find(fn, 1, true), err.message)
        assert.falsy(err.message:find("did you mean", 1, true), err.message)
        local named = accepted_in(err.message)
        for _, key in ipairs(sorted_keys(c.works)) do
          assert.truthy(named[key], key .. " missing from: " .. err.message)
        end
      end)
      p.it(where .. ": a near miss gets 'did you mean'", function()
        for _, key in ipairs(sorted_keys(c.works)) do
          local typo = key:sub(1, -2)
          local err = H.raises("ValueError", call, p.xp, { [typo] = 1 })
          assert.truthy(err.message:find("did you mean '" .. key .. "'", 1, true), err.message)
        end
      end)
      -- Device-placed values (a stream) are made on the device: host arrays take them too.
      local run_works = p.tag == "[gpu]" or not c.device_works
      if run_works then
        p.it(where .. ": each accepted key still works", function()
          for _, key in ipairs(sorted_keys(c.works)) do
            local value = c.works[key]
            if type(value) == "function" then value = value(p.xp) end
            local ok, err = pcall(call, p.xp, { [key] = value })
            assert(ok, key .. ": " .. tostring(err))
          end
        end)
      end
    end
  end

  it("a key that is not a name is a TypeError", function()
    H.raises("TypeError", cpu.zeros, 3, { [1] = "float32" })
    H.raises("TypeError", cpu.zeros, 3, { dtype = "float32", [true] = 1 })
    H.raises("TypeError", cpu.ones(3).astype, cpu.ones(3), "float32", { [2.5] = 1 })
  end)

  it("a prefix is a near miss however much is missing", function()
    local err = H.raises("ValueError", cpu.ones(3).sum, cpu.ones(3), { keep = true })
    assert.truthy(err.message:find("did you mean 'keepdims'", 1, true), err.message)
  end)

  it("a value of the wrong type is still a TypeError", function()
    H.raises("TypeError", cpu.ones(3).sum, cpu.ones(3), { keepdims = "yes" })
    H.raises("TypeError", cpu.linspace, 0, 1, 5, { endpoint = 0 })
    H.raises("TypeError", cpu.mean, cpu.ones(3), { keepdims = 1 })
  end)

  it("options given twice to a reduction are a TypeError, not one set ignored", function()
    local a = cpu.ones({ 2, 3 })
    H.raises("TypeError", a.sum, a, { axis = 1 }, { keepdims = true })
    H.raises("TypeError", cpu.mean, a, { axis = 1 }, { keepdims = true })
  end)

  it("axes given as a sequence are still axes", function()
    local a = cpu.ones({ 2, 3 })
    assert.same({}, a:sum({ 1, 2 }).shape)
    assert.same({ 2 }, a:mean({ 2 }).shape)
    assert.same({ 2, 3 }, a:sum({}).shape)
  end)

  describe("the issue's repros", function()
    it("a:sum(1, {keepdim = true}) names keepdims", function()
      local a = cpu.ones({ 3, 4 })
      local err = H.raises("ValueError", a.sum, a, 1, { keepdim = true })
      assert.truthy(err.message:find("did you mean 'keepdims'", 1, true), err.message)
      assert.same({ 1, 4 }, a:sum(1, { keepdims = true }).shape)
    end)
    it("{order = 'F'} is accepted by empty (the order part reads it)", function()
      assert.same({ 3, 4 }, cpu.empty({ 3, 4 }, "float32", { order = "F" }).shape)
    end)
    it("{dtyp = ...} names dtype", function()
      local err = H.raises("ValueError", cpu.zeros, 3, { dtyp = "int32" })
      assert.truthy(err.message:find("did you mean 'dtype'", 1, true), err.message)
    end)
    it("linspace(..., {endpont = false}) names endpoint", function()
      local err = H.raises("ValueError", cpu.linspace, 0, 1, 5, { endpont = false })
      assert.truthy(err.message:find("did you mean 'endpoint'", 1, true), err.message)
      local a = cpu.linspace(0, 1, 5, { endpoint = false })
      assert.near(0.8, a[5], 1e-12)
    end)
  end)
end)
