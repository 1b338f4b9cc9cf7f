-- The translator: a Lua function's syntax tree -> a CUDA C __device__ function.  Free names are
-- resolved through the function's upvalues at translation time, locals are typed at their
-- first assignment and widened (int -> float) by later ones until the types settle, and the
-- result is rendered with Lua 5.4's semantics (see prelude.lua).  The files: source.lua (reading
-- and parsing; why luacheck's parser), scope.lua (locals, types, free names), expr.lua,
-- calls.lua, statements.lua (rendering), ir.lua (typed values), types.lua; this one puts a
-- function together, its device functions first.
local Ty = require "cuarr.jit.types"
local source = require "cuarr.jit.source"

local X = {}
local fmt, concat = string.format, table.concat
local ir = require "cuarr.jit.ir"
local Fn = require "cuarr.jit.scope"
require("cuarr.jit.expr")(Fn)
require("cuarr.jit.calls")(Fn)
require("cuarr.jit.statements")(Fn)
local RL = require "cuarr.jit.rawkernel_arrays"
RL.install(Fn)

-- jit.device objects are recognised by this metatable; casts by this table (cuarr.jit sets both).
X.DEVICE_MT = ir.DEVICE_MT
X.CASTS = ir.CASTS

-- Whether a block always ends in a return.
local function returns(block)
  local last = block[#block]
  if not last then return false end
  if last.tag == "Return" then return true end
  if last.tag == "Do" then return returns(last) end
  if last.tag == "If" and #last % 2 == 1 then
    for i = 2, #last - 1, 2 do if not returns(last[i]) then return false end end
    return returns(last[#last])
  end
  return false
end

-- Translates spec ({node, chunk, line, fn}) for parameter types; returns the rendered function.
local function render(ctx, spec, types, fixed_rets)
  local self = setmetatable({ ctx = ctx, chunk = spec.chunk, line = spec.line, vartypes = {},
                              rettypes = {}, kernel = ctx.kernel == spec }, Fn)
  self.upvalues = {}
  if spec.fn then
    for i = 1, math.huge do
      local name, value = debug.getupvalue(spec.fn, i)
      if not name then break end
      if name == "_ENV" then self.env = value else
        self.upvalues[#self.upvalues + 1] = { name = name, value = value }
      end
    end
  else
    self.env = spec.env or { math = math }
  end
  local params, body = spec.node[1], spec.node[2]
  for _, p in ipairs(params) do
    if p.tag == "Dots" then self:fail(p, "varargs (...) are not in the subset translated "
      .. "functions use") end
  end
  if #params ~= #types then
    self:fail(spec.node, fmt("the function takes %d parameter%s and is given %d", #params,
      #params == 1 and "" or "s", #types), "TypeError")
  end
  for pass = 1, 20 do
    self.changed, self.out, self.depth, self.ntmp, self.nvar = false, {}, 1, 0, 0
    self.scopes, self.pending, self.returns, self.nret = { {} }, {}, {}, nil
    local cparams = {}
    for i, p in ipairs(params) do
      local var = self:declare(p[1])
      var.fixed = true
      if type(types[i]) == "table" then  -- an array of jit.rawkernel
        local a = RL.param(types[i], var.cname)
        self.vartypes[var.cname], cparams[i] = a, a.cparams
      else
        self.vartypes[var.cname] = types[i]
        cparams[i] = Ty.C[types[i]] .. " " .. var.cname
      end
    end
    self:block(body)
    if not self.changed or pass == 20 then
      self.nret = self.nret or 0
      if fixed_rets then
        if #fixed_rets ~= self.nret then
          self:fail(spec.node, fmt("returns %d value%s; %d expected", self.nret,
            self.nret == 1 and "" or "s", #fixed_rets), "TypeError")
        end
        for i, t in ipairs(fixed_rets) do
          if (t == "bool") ~= (self.rettypes[i] == "bool") then
            self:fail(spec.node, fmt("returns a %s; the signature says %s",
              self.rettypes[i] == "bool" and "boolean" or "number", t), "TypeError")
          end
        end
        self.rettypes = fixed_rets
      end
      if self.nret > 0 and not returns(body) then
        self:fail(spec.node, "may end without returning a value (Lua would return nil, which "
          .. "translated functions do not have)")
      end
      for _, var in ipairs(self.pending) do
        if not self.vartypes[var.cname] then
          self:fail(spec.node, fmt("local '%s' is never assigned", var.name))
        end
      end
      return self, cparams
    end
  end
end

-- The C text of a translated function (declared `__device__`), named cname.
local function finish(self, cname, cparams, spec)
  local rets = self.rettypes
  local struct, rt
  if #rets == 0 then rt = "void"
  elseif #rets == 1 then rt = Ty.C[rets[1]]
  else
    struct = cname .. "_results"
    rt = struct
  end
  local lines = { fmt("// translated from the Lua function at %s:%d", spec.chunk, spec.line) }
  if struct then
    local fields = {}
    for i, t in ipairs(rets) do fields[i] = fmt("%s r%d;", Ty.C[t], i - 1) end
    lines[#lines + 1] = fmt("struct %s { %s };", struct, concat(fields, " "))
  end
  lines[#lines + 1] = fmt("__device__ %s %s(%s) {", rt, cname, concat(cparams, ", "))
  local at = {}
  for _, r in ipairs(self.returns) do at[r.at] = r end
  for i, line in ipairs(self.out) do
    local r = at[i]
    if r then
      local pad = string.rep("  ", r.depth)
      if #rets == 0 then line = pad .. "return;"
      elseif #rets == 1 then line = pad .. "return " .. ir.as(r.es[1], rets[1]) .. ";"
      else
        local vals = {}
        for k, e in ipairs(r.es) do vals[k] = ir.as(e, rets[k]) end
        line = fmt("%sreturn %s{%s};", pad, struct, concat(vals, ", "))
      end
    end
    line = line:gsub("@([%w_]+)", function(v) return Ty.C[self.vartypes[v]] end)
    lines[#lines + 1] = line
  end
  lines[#lines + 1] = "}"
  return concat(lines, "\n") .. "\n", rt, struct
end

local function sanitize(name) return (tostring(name):gsub("[^%w_]", "_")) end

-- A device function (a jit.device object) for argument types, emitted into ctx once.
function X.device_function(ctx, dev, types, name, node, caller)
  local key = dev.id .. "(" .. concat(types, ",") .. ")"
  local done = ctx.functions[key]
  if done then
    if done == true then
      caller:fail(node, fmt("'%s' calls itself: recursion is not translated", name))
    end
    return done
  end
  ctx.functions[key] = true
  local spec = dev.spec(ctx.raise)
  local cname = fmt("%s_%d", sanitize(name), #ctx.order + 1)
  local self, cparams = render(ctx, spec, types)
  local text, _, struct = finish(self, cname, cparams, spec)
  local fn = { cname = cname, rets = self.rettypes, struct = struct, text = text }
  ctx.functions[key] = fn
  ctx.order[#ctx.order + 1] = text
  return fn
end

function X.context(raise)
  return { raise = raise, functions = {}, order = {}, device_function = X.device_function }
end

-- Translates f (a function, its source string, or what source.load read) for parameter
-- types; rets: the result types (converted to them), or nil to infer; kernel: f is a kernel
-- (no results; types may hold arrays).  Returns { source = prelude + every device function
-- + this one, name = cname, rets = result types, ctx = the translation's context }.
function X.translate(f, types, cname, raise, rets, kernel)
  local spec = type(f) == "table" and f or source.load(f, raise)
  local ctx = X.context(raise)
  if kernel then ctx.kernel = spec end
  local self, cparams = render(ctx, spec, types, rets)
  local text = finish(self, cname, cparams, spec)
  ctx.order[#ctx.order + 1] = text
  return { source = require("cuarr.jit.prelude") .. concat(ctx.order, "\n"), name = cname,
           rets = self.rettypes, spec = spec, ctx = ctx }
end

X.source = source
return X
