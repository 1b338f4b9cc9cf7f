-- The state of one translation of one Lua function: its scopes of locals (each with a unique C
-- name), the locals' types (kept across the passes that widen them), its free names resolved
-- through the function's upvalues, and the C lines emitted so far.
local Ty = require "cuarr.jit.types"

local fmt = string.format

local Fn = {}
Fn.__index = Fn

function Fn:fail(node, msg, kind)
  self.ctx.raise(kind or "CompileError", fmt("%s:%s: %s", self.chunk,
    tostring(node and node.line or self.line), msg))
end

function Fn:emit(line) self.out[#self.out + 1] = string.rep("  ", self.depth) .. line end

function Fn:tmp(base)
  self.ntmp = self.ntmp + 1
  return fmt("cuarr_%s%d", base, self.ntmp)
end

function Fn:lookup(name)
  for i = #self.scopes, 1, -1 do
    local v = self.scopes[i][name]
    if v then return v end
  end
  return nil
end

function Fn:declare(name, t, lit)
  self.nvar = self.nvar + 1
  local cname = fmt("%s_%d", name, self.nvar)
  local var = { name = name, cname = cname }
  if t then self:settype(var, t, lit) end
  self.scopes[#self.scopes][name] = var
  return var
end

function Fn:settype(var, t, lit, node)
  local known = self.vartypes[var.cname]
  if var.fixed then
    if known ~= t and Ty.unify(known, t, lit) ~= known then
      self:fail(node, fmt("type clash: %s is a %s; it cannot be assigned a %s", var.name,
        known, t))
    end
    return known
  end
  local u = Ty.unify(known, t, lit)
  if u == nil then
    self:fail(node, fmt("type clash: %s is a %s and is assigned a %s", var.name,
      known == "bool" and "boolean" or "number", t == "bool" and "boolean" or "number"))
  end
  if u ~= known then
    self.vartypes[var.cname] = u
    self.changed = true
  end
  return u
end

-- The value of a free name, read at translation time.
function Fn:free(node, name)
  for _, v in ipairs(self.upvalues) do
    if v.name == name then return v.value, true end
  end
  local env = self.env
  if env ~= nil then
    local ok, v = pcall(function() return env[name] end)
    if ok and v ~= nil then return v, true end
  end
  self:fail(node, fmt("unknown name '%s'", name))
end

return Fn
