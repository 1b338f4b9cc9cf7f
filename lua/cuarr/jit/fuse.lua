-- cuarr.fuse(fn[, {kernel_name=}]): CuPy's @fuse for Lua.  An array-level function of ufuncs,
-- operators and Lua numbers becomes one ElementwiseKernel (or, ending in a reduction, one
-- ReductionKernel whose map is the fused expression) per typing of its arguments: their dtypes
-- and which are Lua integers or floats.  Broadcasting, layouts and caching are the kernels'.
-- A call computes its typing as one integer (core.fuse_key, in C), finds the kernel built for
-- it and launches: nothing else runs per call.  Calls that see no device array (host arrays,
-- Lua numbers) run the Lua function itself, as do calls mixing host and device arrays (which
-- then fail as the unfused calls do) and Lua integer arguments out of an integer loop's range.
local source = require "cuarr.jit.source"
local support = require "cuarr.support"
local E = require "cuarr.jit.fuse_expr"
local B = require "cuarr.jit.fuse_body"

local fmt, concat = string.format, table.concat

local MAX_PARAMS = 15 -- core.fuse_key packs four bits per argument into a Lua integer

-- Reduction launchers: k(args..., opts) for n arguments, without packing them in a table.
local launchers = {}
local function launcher(n)
  if not launchers[n] then
    local names = {}
    for i = 1, n do names[i] = "a" .. i end
    local list = concat(names, ", ")
    launchers[n] = load(fmt("return function(k, o, %s) return k(%s%so) end", list, list,
      n > 0 and ", " or ""), "=fuse launcher")()
  end
  return launchers[n]
end

-- The dtypes cuarr.sum and the like give (reduce.c's cuarr_reduce_resolve): sums and products
-- of bool and integers widen to int64 (uint64 for unsigned) unless dtype says; float16
-- accumulates in float32; max and min keep the dtype and take none.
local UNSIGNED = { uint8 = true, uint16 = true, uint32 = true, uint64 = true }
local FLOAT = { float16 = true, float32 = true, float64 = true }
local function reduction_dtypes(red, fail)
  local d = red.value.dtype
  if red.op == "sum" or red.op == "prod" then
    local out = red.dtype or (UNSIGNED[d] and "uint64" or FLOAT[d] and d or "int64")
    return out == "float16" and "float32" or out, out
  end
  if red.dtype ~= nil then fail(fmt("%s takes no dtype", red.op), "TypeError") end
  -- float16 max/min fold in float32, exactly: each value converts there and back unchanged.
  return d == "float16" and "float32" or d, d
end

local REDUCE_EXPR = { sum = "a + b", prod = "a * b", max = "cuarr_red_max(a, b)",
                      min = "cuarr_red_min(a, b)" }
local IDENTITY = { sum = "0", prod = "1" }

-- The vectorized functions a program calls: the translator's prelude once, at file scope
-- (each translation's copy inside its namespace is then skipped by its include guard), and each
-- one's translation in its namespace.
local function vectorized(prog)
  if #prog.vectorized == 0 then return "" end
  return "\n" .. require("cuarr.jit.prelude") .. concat(prog.vectorized, "\n")
end

return function(M, core)
  local raise = core.raise
  local fuse_key = core.fuse_key

  local Fused = { __name = "cuarr.fuse" }
  Fused.__index = Fused

  local math_functions = {}
  for _, f in pairs(math) do
    if type(f) == "function" then math_functions[f] = true end
  end

  local ctx = {
    raise = raise, core = core, module = M,
    ufunc = function(name) return M[name] end,
    is_fused = function(v) return getmetatable(v) == Fused end,
    is_math = function(v) return math_functions[v] == true end,
    inline = B.inline,
  }
  local function reductions()
    if not ctx.reductions then
      ctx.reductions = {}
      for name, op in pairs(E.REDUCTIONS) do
        if M[name] then ctx.reductions[M[name]] = op end
        if M.cpu and M.cpu[name] then ctx.reductions[M.cpu[name]] = op end
      end
    end
  end

  -- The kernel's parameter list: arrays the results read as typed inputs, the others raw (so
  -- that they take no part in the broadcast, as in the unfused calls), Lua numbers as int64 or
  -- float64 scalars.
  local function params(types, used)
    local list, cparams, cargs, any = {}, {}, {}, false
    for i, t in ipairs(types) do
      local name = "a" .. i
      local dtype = t.kind == "array" and t.dtype or (t.num == "int" and "int64" or "float64")
      if t.kind == "array" and used[i] then any = true end
      list[i] = fmt("%s%s %s", t.kind == "array" and not used[i] and "raw " or "", dtype, name)
      if t.kind ~= "array" or used[i] then
        cparams[#cparams + 1] = fmt("%s %s", t.kind == "array" and E.ctype(dtype)
          or (t.num == "int" and "long long" or "double"), name)
        cargs[#cargs + 1] = name
      end
    end
    return concat(list, ", "), any, concat(cparams, ", "), concat(cargs, ", ")
  end

  -- Translates self for the arguments' types; returns the entry that launches it.
  local function build(self, types)
    reductions()
    local spec = self.spec
    local nparams = #spec.node[1]
    if #types ~= nparams then
      raise("TypeError", fmt("fused function %s takes %d argument%s, got %d", self.where,
        nparams, nparams == 1 and "" or "s", #types))
    end
    local prog = E.program(ctx)
    local frame = E.frame(prog, spec)
    for i, p in ipairs(spec.node[1]) do
      if p.tag == "Dots" then frame:fail(p, "varargs (...) are not in what a fused function "
        .. "translates") end
      local t = types[i]
      frame.scopes[1][p[1]] = t.kind == "array"
        and { kind = "array", dtype = t.dtype, c = "a" .. i, param = i }
        or { kind = "arg", num = t.num, index = i, indices = { i }, c = "a" .. i }
    end
    local result = B.walk(frame, spec.node[2])
    local function fail(msg, kind) frame:fail(spec.node, msg, kind) end
    local values = result.values or { result.reduction.value }
    for k, v in ipairs(values) do
      if v.kind ~= "array" then
        fail(fmt("result %d is a Lua number, not an array: a fused function returns arrays", k),
          "TypeError")
      end
    end
    local lines, used = E.live(prog, values)
    local in_params, any_array, cparams, cargs = params(types, used)
    if not any_array then
      fail("the result does not depend on any array argument")
    end
    local header = fmt("// fused from the Lua function at %s (cuarr.fuse)\n", self.where)
    local name = self.kernel_name
    local entry = { checks = #prog.checks > 0 and prog.checks or nil }
    if result.values then
      local outs, body = {}, {}
      for _, l in ipairs(lines) do body[#body + 1] = l end
      for k, v in ipairs(values) do
        outs[k] = fmt("%s y%d", v.dtype, k)
        body[#body + 1] = fmt("y%d = %s;", k, v.c)
      end
      local operation = concat(body, "\n")
      local preamble = header .. core.ufunc_math_source .. vectorized(prog)
      entry.kernel = M.ElementwiseKernel(in_params, concat(outs, ", "), operation, name,
        { preamble = preamble })
      entry.source = preamble .. fmt("\n// in: %s\n// out: %s\n// operation:\n%s\n", in_params,
        concat(outs, ", "), operation)
      return entry
    end
    local red = result.reduction
    local acc, out = reduction_dtypes(red, fail)
    local v = red.value
    local map = { header, core.ufunc_math_source, core.reduction_ops_source, vectorized(prog),
      fmt("__device__ __forceinline__ %s cuarr_fused_map(%s) {", E.ctype(v.dtype), cparams) }
    for _, l in ipairs(lines) do map[#map + 1] = "  " .. l end
    map[#map + 1] = fmt("  return %s;\n}\n", v.c)
    local preamble = concat(map, "\n")
    local map_expr = fmt("cuarr_cast<%s>(cuarr_fused_map(%s))", E.ctype(acc), cargs)
    local post = fmt("y = cuarr_cast<%s>(a)", E.ctype(out))
    entry.kernel = M.ReductionKernel(in_params, out .. " y", map_expr, REDUCE_EXPR[red.op], post,
      IDENTITY[red.op], name, { reduce_type = acc, preamble = preamble })
    if red.axis ~= nil or red.keepdims ~= nil then
      entry.opts = { axis = red.axis, keepdims = red.keepdims }
      entry.launch = launcher(#types)
    end
    entry.source = preamble .. fmt("\n// in: %s\n// out: %s y\n// map: %s\n// reduce: %s\n"
      .. "// post: %s\n", in_params, out, map_expr, REDUCE_EXPR[red.op], post)
    return entry
  end

  local function typing(...)
    local types = {}
    for i = 1, select("#", ...) do
      local a = select(i, ...)
      if type(a) == "number" then
        types[i] = { kind = "num", num = math.type(a) == "integer" and "int" or "float" }
      else
        types[i] = { kind = "array", dtype = a.dtype }
      end
    end
    return types
  end

  local function bad_argument(index, ...)
    raise("TypeError", fmt("fused function: argument #%d must be an array or a number, got %s",
      index, type((select(index, ...)))))
  end

  local function entry_for(self, key, ...)
    local entry = self.entries[key]
    if not entry then
      if select("#", ...) > MAX_PARAMS then
        raise("TypeError", fmt("a fused function takes at most %d arguments", MAX_PARAMS))
      end
      entry = build(self, typing(...))
      self.entries[key] = entry
    end
    self.source = entry.source
    return entry
  end

  -- Everything but a repeated call of the last typing.
  local function slow_call(self, key, bad, ...)
    if key == nil then
      if bad < 0 then
        raise("TypeError", fmt("a fused function takes at most %d arguments", MAX_PARAMS))
      end
      bad_argument(bad, ...)
    end
    -- No device array, or host and device arrays mixed: the Lua function as written.
    if key & 3 ~= 2 then return self.fn(...) end
    local entry = entry_for(self, key, ...)
    local checks = entry.checks
    if checks then
      for _, c in ipairs(checks) do
        local v = select(c.index, ...)
        -- The unfused calls decide (uint8 + 300 raises, uint8 < 300 is true everywhere).
        if v < c.lo or v > c.hi then return self.fn(...) end
      end
    end
    local launch = entry.launch
    if launch then return launch(entry.kernel, entry.opts, ...) end
    -- A plain launch (no opts, no checks) is the one the next call takes straight away when
    -- typed the same.
    if not checks then self.last_key, self.last_kernel = key, entry.kernel end
    return entry.kernel(...)
  end

  -- The per-call path: the typing (one C call), and the kernel when it is the last one's.
  function Fused.__call(self, ...)
    local key, bad = fuse_key(...)
    if key == self.last_key then return self.last_kernel(...) end
    return slow_call(self, key, bad, ...)
  end

  -- The generated CUDA C for arguments like these (arrays, host or device, and numbers).
  function Fused.source_for(self, ...)
    if getmetatable(self) ~= Fused then
      raise("TypeError", "source_for: call it as f:source_for(...)")
    end
    local key, bad = fuse_key(...)
    if key == nil then
      if bad < 0 then
        raise("TypeError", fmt("a fused function takes at most %d arguments", MAX_PARAMS))
      end
      bad_argument(bad, ...)
    end
    if key & 3 == 0 then
      raise("TypeError", "source_for: give at least one array (its dtype types the kernel)")
    end
    return entry_for(self, key, ...).source
  end

  Fused.__tostring = function(self) return "cuarr.fuse " .. self.where end

  return function(fn, opts)
    if type(fn) ~= "function" and type(fn) ~= "string" then
      raise("TypeError", "fuse: argument #1 must be a Lua function or its source, got "
        .. type(fn))
    end
    local kernel_name, name = "cuarr_fused", nil
    if opts ~= nil then
      if type(opts) ~= "table" then
        raise("TypeError", "fuse: options must be a table, got " .. type(opts))
      end
      core.check_options(opts, "fuse", { "kernel_name" })
      if opts.kernel_name ~= nil then
        local k = opts.kernel_name
        if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
          raise("ValueError", fmt("fuse: kernel_name must be a C identifier, got %s",
            type(k) == "string" and fmt("%q", k) or type(k)))
        end
        kernel_name, name = k, k
      end
    end
    local spec = source.load(fn, raise)
    local host = fn
    if type(fn) == "string" then
      -- A source string sees math and cuarr, and runs on the host as the function it spells.
      spec.env = { math = math, cuarr = M }
      host = load("return " .. fn, "=fused", "t", spec.env)()
    end
    local where = spec.chunk .. ":" .. spec.line
    -- CuPy's Fusion.name: the kernel_name given, else the Lua function's name, else where it is.
    name = name or support.function_name(fn, "fuse") or where
    return setmetatable({ fn = host, spec = spec, entries = {}, kernel_name = kernel_name,
                          name = name, where = where, last_key = false }, Fused)
  end
end
