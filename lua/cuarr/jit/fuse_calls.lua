-- cuarr.fuse: the calls a fused function makes -- ufuncs, `math` on constants, other fused
-- functions (inlined), cuarr.vectorize functions (their translation, in a namespace) -- and the
-- reduction it may end with, whose axis and options are constants read now.
local ir = require "cuarr.jit.ir"

local fmt, concat = string.format, table.concat

return function(Frame, E)
-- A translation-time constant argument of a reduction (axis, options): numbers, strings,
-- booleans, tables of them, names holding them.
function Frame:constant(node)
  local tag = node.tag
  if tag == "Nil" then return nil end
  if tag == "String" then return node[1] end
  if tag == "Table" then
    local t = {}
    for _, item in ipairs(node) do
      if item.tag == "Pair" then
        local k = self:constant(item[1])
        t[k] = self:constant(item[2])
      else
        t[#t + 1] = self:constant(item)
      end
    end
    return t
  end
  if tag == "Id" and not self:lookup(node[1]) then return self:free(node, node[1]) end
  if tag == "Index" and node[2].tag == "String" then return self:path(node) end
  local v = self:expr(node)
  if v.kind ~= "const" then
    self:fail(node, "a reduction's axis and options must be known when the function is fused")
  end
  return v.value
end

-- The callee of a Call or Invoke node: {kind = "ufunc" | "reduction" | "fused" | "math", ...}.
function Frame:callee(node)
  local name, v
  if node.tag == "Invoke" then
    name = node[2][1]
    if E.REDUCTIONS[name] then
      return { kind = "reduction", op = E.REDUCTIONS[name], name = name }
    end
    v = self.ctx.module[name]
    if not self.ctx.core.ufunc_info(v) then
      self:fail(node, fmt("the method '%s' is not a ufunc or a reduction a fused function "
        .. "translates", name))
    end
  else
    local f = node[1]
    name = f.tag == "Index" and f[2].tag == "String" and f[2][1] or f.tag == "Id" and f[1]
      or "?"
    v = self:path(f)
  end
  local uname = self.ctx.core.ufunc_info(v)
  if uname then return { kind = "ufunc", ufunc = v, name = uname } end
  local red = self.ctx.reductions[v]
  if red then return { kind = "reduction", op = red, name = name } end
  if self.ctx.is_fused(v) then return { kind = "fused", fused = v, name = name } end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__name == "cuarr.vectorize" and mt.__signature_for then
    return { kind = "vectorize", vectorized = v, name = name }
  end
  if self.ctx.is_math(v) then return { kind = "math", fn = v, name = name } end
  if type(v) == "function" then
    self:fail(node, fmt("'%s' is a plain Lua function: a fused function calls ufuncs "
      .. "(cuarr.sin ...), reductions at its end and other fused functions", name))
  end
  self:fail(node, fmt("'%s' is %s, not a function a fused function can call", name,
    ir.describe(v)))
end

-- A call's results.
function Frame:call(node)
  local callee = self:callee(node)
  local argnodes = {}
  if node.tag == "Invoke" then
    argnodes[1] = node[1]
    for i = 3, #node do argnodes[#argnodes + 1] = node[i] end
  else
    for i = 2, #node do argnodes[#argnodes + 1] = node[i] end
  end
  if callee.kind == "reduction" then
    self:fail(node, fmt("%s reduces: only the function's result may be a reduction "
      .. "(`return cuarr.sum(x * x)`)", callee.name))
  end
  local values = self:explist(argnodes)
  if callee.kind == "math" then
    for _, v in ipairs(values) do
      if v.kind ~= "const" then
        self:fail(node, fmt("math.%s takes Lua numbers known when the function is fused; on "
          .. "arrays use the ufunc (cuarr.%s)", callee.name, callee.name))
      end
    end
    local args = {}
    for i, v in ipairs(values) do args[i] = v.value end
    local ok, r = pcall(callee.fn, table.unpack(args, 1, #values))
    if not ok or (type(r) ~= "number" and type(r) ~= "boolean") then
      self:fail(node, fmt("math.%s on these constants: %s", callee.name, tostring(r)))
    end
    return { { kind = "const", value = r } }
  elseif callee.kind == "fused" then
    return self.ctx.inline(self, node, callee.fused, values)
  elseif callee.kind == "vectorize" then
    return { self:vectorized(node, callee, values) }
  end
  local nin = select(2, self.ctx.core.ufunc_info(callee.ufunc))
  if #values ~= nin then
    self:fail(node, fmt("cuarr.%s takes %d argument%s in a fused function (no out), got %d",
      callee.name, nin, nin == 1 and "" or "s", #values), "TypeError")
  end
  return { self:apply(node, callee.ufunc, callee.name, values) }
end

-- A cuarr.vectorize function called on values: its translation for the signature the call
-- would choose, in a namespace of its own (two vectorized functions may name their device
-- functions alike), the arguments converted to the signature's types as the call converts them.
function Frame:vectorized(node, callee, values)
  local v = callee.vectorized
  local kinds, any_array = {}, false
  for i, x in ipairs(values) do
    if x.kind == "array" then
      kinds[i] = x.dtype
      any_array = true
    elseif x.kind == "arg" then
      kinds[i] = x.num
    elseif type(x.value) == "number" then
      kinds[i] = math.type(x.value) == "integer" and "int" or "float"
    else
      self:fail(node, fmt("%s: argument #%d is a boolean, not an array or a number",
        callee.name, i), "TypeError")
    end
  end
  if #values ~= v.nin then
    self:fail(node, fmt("%s takes %d argument%s, got %d", callee.name, v.nin,
      v.nin == 1 and "" or "s", #values), "TypeError")
  end
  if not any_array then
    self:fail(node, fmt("%s: at least one argument must be an array", callee.name), "TypeError")
  end
  local sig = getmetatable(v).__signature_for(v, kinds)
  if not sig then
    self:fail(node, fmt("%s: no signature takes (%s)", callee.name, concat(kinds, ", ")),
      "TypeError")
  end
  local prog = self.prog
  local ns = prog.namespaces[sig]
  if not ns then
    ns = "cuarr_v" .. (#prog.vectorized + 1)
    prog.namespaces[sig] = ns
    prog.vectorized[#prog.vectorized + 1] = fmt("namespace %s {\n%s\n}  // namespace %s\n", ns,
      sig.source, ns)
  end
  local args = {}
  for i, x in ipairs(values) do
    local want = E.ctype(sig.ins[i])
    if x.kind == "array" and x.dtype == sig.ins[i] then args[i] = x.c
    elseif x.kind == "const" then
      args[i] = fmt("cuarr_cast<%s>(%s)", want, ir.number_literal(x.value))
    else args[i] = fmt("cuarr_cast<%s>(%s)", want, x.c) end
  end
  prog.ntmp = prog.ntmp + 1
  local t = "t" .. prog.ntmp
  local inputs = {}
  for _, x in ipairs(values) do inputs[#inputs + 1] = x end
  prog.lines[#prog.lines + 1] = {
    text = fmt("const %s %s = %s::%s(%s);  // %s:%d: %s", E.ctype(sig.out), t, ns, sig.cname,
      concat(args, ", "), self.chunk, node.line or self.line, callee.name),
    inputs = inputs }
  return { kind = "array", dtype = sig.out, c = t, line = #prog.lines }
end

-- A reduction call as the function's result: {op =, value = the reduced expression, axis =,
-- keepdims =, dtype =}.
function Frame:reduction(node)
  local callee = self:callee(node)
  if callee.kind ~= "reduction" then return nil end
  local argnodes = {}
  if node.tag == "Invoke" then
    argnodes[1] = node[1]
    for i = 3, #node do argnodes[#argnodes + 1] = node[i] end
  else
    for i = 2, #node do argnodes[#argnodes + 1] = node[i] end
  end
  if #argnodes < 1 or #argnodes > 3 then
    self:fail(node, fmt("%s takes (a[, axis][, opts]), got %d arguments", callee.name,
      #argnodes), "TypeError")
  end
  local value = self:expr(argnodes[1])
  if value.kind ~= "array" then
    self:fail(node, fmt("%s of a Lua number: a fused reduction reduces an array", callee.name),
      "TypeError")
  end
  local axis, opts = nil, nil
  if argnodes[2] then
    local a = self:constant(argnodes[2])
    if type(a) == "table" and #argnodes == 2 and (a.axis or a.keepdims or a.dtype) ~= nil
      or type(a) == "table" and next(a) ~= nil and #a == 0 then
      opts = a
    else
      axis = a
    end
  end
  if argnodes[3] then opts = self:constant(argnodes[3]) end
  if opts ~= nil and type(opts) ~= "table" then
    self:fail(node, fmt("%s: options must be a table", callee.name), "TypeError")
  end
  opts = opts or {}
  local ok, e = pcall(self.ctx.core.check_options, opts, callee.name,
    { "axis", "keepdims", "dtype" })
  if not ok then self:fail(node, e.message or tostring(e), e.kind or "ValueError") end
  if opts.axis ~= nil then
    if axis ~= nil then
      self:fail(node, fmt("%s: axis given twice", callee.name), "TypeError")
    end
    axis = opts.axis
  end
  return { op = callee.op, name = callee.name, value = value, axis = axis,
           keepdims = opts.keepdims, dtype = opts.dtype }
end
end
