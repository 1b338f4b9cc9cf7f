-- cuarr.vectorize(signatures, fn[, opts]): Numba's @vectorize for Lua.  Each signature's kernel
-- is an ElementwiseKernel whose preamble is the translated function (broadcasting, out and
-- caching come from it); the first signature the arguments cast to safely is used.  Host arrays
-- go to the device and back when there is one, and through the Lua function itself when not.
local X = require "cuarr.jit.translate"
local Ty = require "cuarr.jit.types"
local host = require "cuarr.jit.host"

local fmt, concat = string.format, table.concat

-- NumPy's safe casts between the dtypes signatures name.
local KIND = { bool = "b", int8 = "i", int16 = "i", int32 = "i", int64 = "i", uint8 = "u",
               uint16 = "u", uint32 = "u", uint64 = "u", float16 = "f", float32 = "f",
               float64 = "f" }
local BITS = { bool = 1, int8 = 8, int16 = 16, int32 = 32, int64 = 64, uint8 = 8, uint16 = 16,
               uint32 = 32, uint64 = 64, float16 = 16, float32 = 32, float64 = 64 }
local function can_cast(from, to)
  if from == to or from == "bool" then return true end
  local kf, kt, bf, bt = KIND[from], KIND[to], BITS[from], BITS[to]
  if kt == "b" then return false end
  if kf == "f" then return kt == "f" and bt >= bf end
  if kt == "f" then return bf < bt or (bt == 64 and bf <= 32) end
  if kf == kt then return bt >= bf end
  if kf == "u" and kt == "i" then return bt > bf end
  return false
end

local function parse_signature(s, raise)
  if type(s) ~= "string" then
    raise("TypeError", "vectorize: a signature must be a string like "
      .. "\"float32(float32, float32)\", got " .. type(s))
  end
  local out, ins = s:match("^%s*([%w_]+)%s*%((.*)%)%s*$")
  if not out then
    raise("ValueError", fmt("vectorize: cannot read the signature %q: expected "
      .. "\"float32(float32, float32)\"", s))
  end
  local function dtype(name)
    local d = Ty.canonical(name)
    if not d then
      raise("ValueError", fmt("vectorize: unknown type %q in the signature %q", name, s))
    end
    return d
  end
  local sig = { out = dtype(out), ins = {}, text = s }
  if ins:match("%S") then
    for item in (ins .. ","):gmatch("([^,]*),") do
      local name = item:match("^%s*([%w_]+)%s*$")
      if not name then raise("ValueError", fmt("vectorize: cannot read the signature %q", s)) end
      sig.ins[#sig.ins + 1] = dtype(name)
    end
  end
  if #sig.ins == 0 then raise("ValueError", fmt("vectorize: the signature %q has no inputs", s)) end
  return sig
end

return function(M, core, jit)
  local raise = core.raise
  local ndarray = core.metatables.ndarray

  local Ufunc = { __name = "cuarr.vectorize" }
  Ufunc.__index = Ufunc

  local function is_array(v) return getmetatable(v) == ndarray end

  -- The first signature the arguments cast to safely.
  local function choose(self, args)
    for _, sig in ipairs(self.signatures) do
      local ok = true
      for i, a in ipairs(args) do
        local want = sig.ins[i]
        if is_array(a) then
          ok = can_cast(a.dtype, want)
        elseif math.type(a) == "float" then
          ok = KIND[want] == "f"
        else
          ok = want ~= "bool"
        end
        if not ok then break end
      end
      if ok then return sig end
    end
    local names = {}
    for i, a in ipairs(args) do names[i] = is_array(a) and a.dtype or math.type(a) end
    raise("TypeError", fmt("vectorize: no signature takes (%s)", concat(names, ", ")))
  end

  -- For cuarr.fuse, which calls a vectorized function's translation inside its own kernel: the
  -- signature a call would use, from each argument's dtype ("int" or "float" for a Lua
  -- number); nil when none takes them.  A metatable field, out of the way of users.
  function Ufunc.__signature_for(self, kinds)
    for _, sig in ipairs(self.signatures) do
      local ok = #kinds == #sig.ins
      for i, kind in ipairs(kinds) do
        local want = sig.ins[i]
        if kind == "float" then ok = Ty.is_float(want)
        elseif kind == "int" then ok = Ty.is_number(want)
        else ok = can_cast(kind, want) end
        if not ok then break end
      end
      if ok then return sig end
    end
    return nil
  end

  local function kernel(sig)
    if sig.kernel then return sig.kernel end
    local params, names = {}, {}
    for i, t in ipairs(sig.ins) do
      params[i] = fmt("%s x%d", t, i)
      names[i] = "x" .. i
    end
    sig.kernel = M.ElementwiseKernel(concat(params, ", "), sig.out .. " y",
      fmt("y = %s(%s)", sig.cname, concat(names, ", ")), "cuarr_vectorize", {
        preamble = sig.source })
    return sig.kernel
  end

  local function broadcast_shape(shapes)
    local nd = 0
    for _, s in ipairs(shapes) do nd = math.max(nd, #s) end
    local out = {}
    for k = 1, nd do
      local n = 1
      for _, s in ipairs(shapes) do
        local d = s[#s - nd + k] or 1
        if d ~= 1 then
          if n ~= 1 and n ~= d then
            raise("ValueError", "vectorize: the arguments' shapes do not broadcast")
          end
          n = d
        end
      end
      out[k] = n
    end
    return out
  end

  -- Without a GPU: the Lua function on every element, the inputs cast to the signature's types.
  local function on_host(self, sig, args)
    local shapes, flats, strides = {}, {}, {}
    for i, a in ipairs(args) do
      if is_array(a) then
        local s = a.shape
        shapes[#shapes + 1] = { table.unpack(s) }
        flats[i] = a:ravel():totable()
      end
    end
    local shape = broadcast_shape(shapes)
    local nd, total = #shape, 1
    for _, n in ipairs(shape) do total = total * n end
    for i, a in ipairs(args) do
      if is_array(a) then
        local s, st, acc = a.shape, {}, 1
        for k = #s, 1, -1 do
          st[nd - #s + k] = s[k] == 1 and 0 or acc
          acc = acc * s[k]
        end
        for k = 1, nd - #s do st[k] = 0 end
        strides[i] = st
      end
    end
    local cast_in, cast_out = {}, host.casts[sig.out]
    for i, t in ipairs(sig.ins) do cast_in[i] = host.casts[t] end
    local out, idx, vals = {}, {}, {}
    for k = 1, nd do idx[k] = 0 end
    local fn, nargs = self.fn, #args
    -- One host.run for the whole loop: device functions may be called inside it.
    host.run(function()
      for e = 1, total do
        for i, a in ipairs(args) do
          if flats[i] then
            local off, st = 1, strides[i]
            for k = 1, nd do off = off + idx[k] * st[k] end
            vals[i] = cast_in[i](flats[i][off])
          else
            vals[i] = cast_in[i](a)
          end
        end
        local r = fn(table.unpack(vals, 1, nargs))
        if type(r) ~= "number" and not (type(r) == "boolean" and sig.out == "bool") then
          raise("TypeError", "vectorize: the function returned a " .. type(r) .. ", not a number")
        end
        out[e] = cast_out(r)
        for k = nd, 1, -1 do
          idx[k] = idx[k] + 1
          if idx[k] < shape[k] then break end
          idx[k] = 0
        end
      end
    end)
    local result = core.cpu.array(out, sig.out)
    if nd == 0 then return result end
    return core.reshape(result, shape)
  end

  function Ufunc.__call(self, ...)
    local n = select("#", ...)
    local args = { ... }
    local opts
    if n > 0 and type(args[n]) == "table" and not is_array(args[n]) then
      opts = args[n]
      args[n] = nil
      n = n - 1
      core.check_options(opts, "vectorize", { "out" })
    end
    if n ~= self.nin then
      raise("TypeError", fmt("vectorize: the function takes %d argument%s, got %d", self.nin,
        self.nin == 1 and "" or "s", n))
    end
    local any_device, any_array = false, false
    for i = 1, n do
      local a = args[i]
      if is_array(a) then
        any_array = true
        if a.device ~= "cpu" then any_device = true end
      elseif type(a) ~= "number" then
        raise("TypeError", fmt("vectorize: argument #%d must be an array or a number, got %s",
          i, type(a)))
      end
    end
    local out = opts and opts.out
    if out ~= nil and not is_array(out) then
      raise("TypeError", "vectorize: out must be an array, got " .. type(out))
    end
    local sig = choose(self, args)
    if not any_array then
      -- Lua numbers alone give a one-element 1-D host array, as Numba's ufunc does for scalars:
      -- the first becomes that array, in its signature's type (chosen with it as a number).
      args[1] = core.cpu.array({ args[1] }, sig.ins[1])
    end
    if out ~= nil and out.dtype ~= sig.out then
      raise("TypeError", fmt("vectorize: out is %s; the signature %q gives %s", out.dtype,
        sig.text, sig.out))
    end
    if not any_device and (out == nil or out.device == "cpu") and not M.is_available() then
      local r = on_host(self, sig, args)
      if out == nil then return r end
      return out:set(r)
    end
    local back = not any_device
    local dargs = {}
    for i = 1, n do
      local a = args[i]
      if is_array(a) then
        if a.device == "cpu" then a = M.asarray(a) end
        if a.dtype ~= sig.ins[i] then a = a:astype(sig.ins[i]) end
      end
      dargs[i] = a
    end
    local k = kernel(sig)
    if out ~= nil and out.device ~= "cpu" then
      dargs[n + 1] = out
      return k(table.unpack(dargs, 1, n + 1))
    end
    if out ~= nil then
      -- A host out: computed on the device, copied into it (Numba's copy back).
      return k(table.unpack(dargs, 1, n)):copy_to_host(out)
    end
    local r = k(table.unpack(dargs, 1, n))
    if back then return r:get() end
    return r
  end

  Ufunc.__tostring = function(self) return "cuarr.vectorize " .. self.where end

  return function(signatures, fn, opts)
    if type(signatures) == "string" then signatures = { signatures } end
    if type(signatures) ~= "table" or #signatures == 0 then
      raise("TypeError", "vectorize: argument #1 must be a list of signatures")
    end
    if type(fn) ~= "function" and type(fn) ~= "string" then
      raise("TypeError", "vectorize: argument #2 must be a Lua function or its source, got "
        .. type(fn))
    end
    if opts ~= nil then
      if type(opts) ~= "table" then raise("TypeError", "vectorize: options must be a table") end
      core.check_options(opts, "vectorize", {})
    end
    local self = setmetatable({ signatures = {} }, Ufunc)
    local sources = {}
    for i, s in ipairs(signatures) do
      local sig = parse_signature(s, raise)
      if self.nin and #sig.ins ~= self.nin then
        raise("ValueError", "vectorize: the signatures have different numbers of inputs")
      end
      self.nin = #sig.ins
      sig.cname = "cuarr_vectorized_" .. i
      local ins = {}
      for k, d in ipairs(sig.ins) do ins[k] = Ty.compute(d) end
      local t = X.translate(fn, ins, sig.cname, raise, { Ty.compute(sig.out) })
      sig.source = t.source
      self.where = t.spec.chunk .. ":" .. t.spec.line
      sources[i] = t.source
      self.signatures[i] = sig
    end
    self.fn = type(fn) == "function" and fn or load("return " .. fn, "=source", "t",
      { math = math })()
    self.source = concat(sources, "\n")
    self.sources = sources
    return self
  end
end
