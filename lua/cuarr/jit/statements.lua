-- Statements: locals, (multiple) assignment, if/elseif/else, numeric for with Lua's rules,
-- while, repeat (its condition inside the body's scope), break, return; anything else is a
-- CompileError at its line.
local Ty = require "cuarr.jit.types"
local ir = require "cuarr.jit.ir"

local fmt = string.format

return function(Fn)
function Fn:block(stmts, scope)
  self.scopes[#self.scopes + 1] = scope or {}
  for _, s in ipairs(stmts) do self:stmt(s) end
  self.scopes[#self.scopes] = nil
end

function Fn:body(stmts)
  self.depth = self.depth + 1
  self:block(stmts)
  self.depth = self.depth - 1
end

function Fn:assign_values(node, targets, values)
  -- Lua evaluates every value before assigning any: temporaries when there are several.
  if #targets > 1 then
    local tmps = {}
    for i = 1, #targets do
      local e = values[i]
      local t = self:tmp("v")
      self:emit(fmt("%s %s = %s;", Ty.C[e.t], t, e.c))
      tmps[i] = { c = t, t = e.t, lit = e.lit }
    end
    values = tmps
  end
  for i, var in ipairs(targets) do
    local e = values[i]
    if var.element then self:rk_store(var, e) else
      local t = self:settype(var, e.t, e.lit, node)
      self:emit(fmt("%s = %s;", var.cname, ir.as(e, t)))
    end
  end
end

function Fn:check_count(node, nt, nv)
  if nv < nt then
    self:fail(node, fmt("%d names and %d values: the rest would be nil, which translated "
      .. "functions do not have", nt, nv))
  end
end

function Fn:stmt(node)
  local tag = node.tag
  if tag == "Local" then
    if self:rk_local(node) then return end
    local names, values = node[1], node[2]
    if not values then
      for _, id in ipairs(names) do
        local var = self:declare(id[1])
        self.pending[#self.pending + 1] = var
        local t = self.vartypes[var.cname]
        self:emit(fmt("%s %s;", t and Ty.C[t] or "@" .. var.cname, var.cname))
      end
      return
    end
    local es = self:explist(values)
    self:check_count(node, #names, #es)
    local vars = {}
    for i, id in ipairs(names) do
      local e = es[i]
      vars[i] = self:declare(id[1])
      local t = self:settype(vars[i], e.t, e.lit, node)
      self:emit(fmt("%s %s = %s;", Ty.C[t], vars[i].cname, ir.as(e, t)))
    end
  elseif tag == "Set" then
    local targets = {}
    for i, lhs in ipairs(node[1]) do
      local var = self:rk_target(lhs)
      if not var and lhs.tag ~= "Id" then
        self:fail(lhs, "tables and array subscripts are not in the subset translated functions use")
      end
      var = var or self:lookup(lhs[1])
      if not var then
        self:fail(lhs, fmt("'%s' is not a local: a translated function cannot assign upvalues "
          .. "or globals", lhs[1]))
      end
      targets[i] = var
    end
    local es = self:explist(node[2])
    self:check_count(node, #targets, #es)
    self:assign_values(node, targets, es)
  elseif tag == "Call" then
    local rs = self:call(node)
    if rs[1] and not rs[1].c:find("^cuarr_r%d+%.") then self:emit(rs[1].c .. ";") end
  elseif tag == "Do" then
    self:emit("{")
    self:body(node)
    self:emit("}")
  elseif tag == "While" then
    self:emit("while (1) {")
    self.depth = self.depth + 1
    self:emit(fmt("if (!(%s)) break;", self:cond(node[1])))
    self:block(node[2])
    self.depth = self.depth - 1
    self:emit("}")
  elseif tag == "Repeat" then
    -- The condition sees the body's locals: it is tested inside the body's block.
    self:emit("while (1) {")
    self.depth = self.depth + 1
    self.scopes[#self.scopes + 1] = {}
    for _, s in ipairs(node[1]) do self:stmt(s) end
    self:emit(fmt("if (%s) break;", self:cond(node[2])))
    self.scopes[#self.scopes] = nil
    self.depth = self.depth - 1
    self:emit("}")
  elseif tag == "If" then
    -- An elseif is an if inside the else: what its condition computes first (a device
    -- function's results) must happen only when the branches above were not taken.
    local n, opened = #node, 0
    for i = 1, n - 1, 2 do
      if i > 1 then
        self:emit("} else {")
        self.depth = self.depth + 1
        opened = opened + 1
      end
      self:emit(fmt("if (%s) {", self:cond(node[i])))
      self:body(node[i + 1])
    end
    if n % 2 == 1 then
      self:emit("} else {")
      self:body(node[n])
    end
    self:emit("}")
    for _ = 1, opened do
      self.depth = self.depth - 1
      self:emit("}")
    end
  elseif tag == "Fornum" then
    self:fornum(node)
  elseif tag == "Break" then
    self:emit("break;")
  elseif tag == "Return" then
    self:ret(node)
  else
    self:fail(node, fmt("%s are not in the subset translated functions use",
      ir.UNSUPPORTED_NODE[tag] or tostring(tag)))
  end
end

function Fn:fornum(node)
  local id, body = node[1], node[#node]
  local start = self:number(node[2], "a for loop's start")
  local limit = self:number(node[3], "a for loop's limit")
  local step = #node == 5 and self:number(node[4], "a for loop's step") or ir.constant(1)
  local s, l, st, n = self:tmp("start"), self:tmp("limit"), self:tmp("step"), self:tmp("count")
  local i = self:tmp("i")
  self:emit("{")
  self.depth = self.depth + 1
  if Ty.is_int(start.t) and Ty.is_int(step.t) then
    -- Lua's integer loop: the iteration count computed once, so nothing overflows.
    self:emit(fmt("long long %s = %s, %s = %s, %s;", s, ir.as(start, "int64"), st,
      ir.as(step, "int64"), l))
    local ok = "true"
    if Ty.is_float(limit.t) then
      ok = fmt("cuarr_forlimit(%s, %s, &%s)", ir.as(limit, "float64"), st, l)
    else
      self:emit(fmt("%s = %s;", l, ir.as(limit, "int64")))
    end
    self:emit(fmt("if (%s && %s != 0 && (%s > 0 ? %s <= %s : %s >= %s)) {", ok, st, st, s, l, s, l))
    self.depth = self.depth + 1
    self:emit(fmt("cuarr_u64 %s = %s > 0 ? ((cuarr_u64)%s - (cuarr_u64)%s) / (cuarr_u64)%s : "
      .. "((cuarr_u64)%s - (cuarr_u64)%s) / ((cuarr_u64)(-(%s + 1)) + 1u);", n, st, l, s, st, s, l,
      st))
    self:emit(fmt("for (long long %s = %s;; %s = cuarr_iadd(%s, %s)) {", i, s, i, i, st))
    self.depth = self.depth + 1
    local scope = {}
    self.scopes[#self.scopes + 1] = scope
    local var = self:declare(id[1], "int64")
    self:emit(fmt("long long %s = %s;", var.cname, i))
    self:block(body)
    self.scopes[#self.scopes] = nil
    self:emit(fmt("if (%s-- == 0) break;", n))
    self.depth = self.depth - 1
    self:emit("}")
    self.depth = self.depth - 1
    self:emit("}")
  else
    local t = Ty.float_arith(Ty.float_arith(start, limit) == "float32" and { t = "float32" }
      or { t = "float64" }, step)
    if Ty.is_float(start.t) and Ty.is_float(limit.t) and Ty.is_float(step.t) then
      t = Ty.arith({ t = Ty.arith(start, limit), lit = start.lit and limit.lit }, step)
    end
    local ct = Ty.C[t]
    self:emit(fmt("%s %s = %s, %s = %s, %s = %s;", ct, s, ir.as(start, t), l, ir.as(limit, t), st,
      ir.as(step, t)))
    self:emit(fmt("if (%s != 0) for (%s %s = %s; %s > 0 ? %s <= %s : %s >= %s; %s += %s) {", st,
      ct, i, s, st, i, l, i, l, i, st))
    self.depth = self.depth + 1
    self.scopes[#self.scopes + 1] = {}
    local var = self:declare(id[1], t)
    self:emit(fmt("%s %s = %s;", ct, var.cname, i))
    self:block(body)
    self.scopes[#self.scopes] = nil
    self.depth = self.depth - 1
    self:emit("}")
  end
  self.depth = self.depth - 1
  self:emit("}")
end

function Fn:ret(node)
  if self.kernel and #node > 0 then
    self:fail(node, "a kernel returns no values (it writes its results into arrays)")
  end
  local es = self:explist(node)
  if self.nret == nil then self.nret = #es end
  if self.nret ~= #es then
    self:fail(node, fmt("returns %d value%s here and %d elsewhere: translated functions return "
      .. "the same number of values everywhere", #es, #es == 1 and "" or "s", self.nret))
  end
  for i, e in ipairs(es) do
    local old = self.rettypes[i]
    local u = Ty.unify(old, e.t, e.lit)
    if u == nil then
      self:fail(node, fmt("result %d is a boolean here and a number elsewhere", i))
    end
    if u ~= old then
      self.rettypes[i] = u
      self.changed = true
    end
  end
  self.returns[#self.returns + 1] = { es = es, at = #self.out + 1, depth = self.depth }
  self:emit("@return")
end
end
