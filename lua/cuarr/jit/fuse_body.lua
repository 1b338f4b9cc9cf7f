-- cuarr.fuse: the statements of a fused function (and of those inlined into it).  Locals name
-- values (arrays computed so far, Lua numbers); the function ends in one `return` of arrays, or
-- of a reduction of one.  Anything else is a CompileError at its Lua line.
local E = require "cuarr.jit.fuse_expr"
local ir = require "cuarr.jit.ir"

local fmt = string.format

local B = {}

local function check_count(frame, node, nt, nv)
  if nv < nt then
    frame:fail(node, fmt("%d names and %d values: the rest would be nil, which a fused function "
      .. "does not compute", nt, nv))
  end
end

local STATEMENT = {
  Fornum = "loops", Forin = "loops", While = "loops", Repeat = "loops", If = "`if`",
  Goto = "goto", Label = "labels (::name::)", Break = "break", Localrec = "nested functions",
  Call = "calls whose results are dropped", Invoke = "calls whose results are dropped",
  Do = "do ... end blocks",
}

-- Walks body (a Block) in frame; returns {values = the results} or {reduction = ...}.
-- inlined: results must be arrays or numbers (a reduction only ends the outer function).
function B.walk(frame, body, inlined)
  for i, node in ipairs(body) do
    local tag = node.tag
    if tag == "Local" then
      local names, values = node[1], node[2]
      if node.attribs then
        for _, a in pairs(node.attribs) do
          if a ~= "const" then frame:fail(node, "local attribs other than <const>") end
        end
      end
      if not values then
        frame:fail(node, "a local without a value is nil, which a fused function does not "
          .. "compute")
      end
      local vs = frame:explist(values)
      check_count(frame, node, #names, #vs)
      local scope = frame.scopes[#frame.scopes]
      for k, id in ipairs(names) do scope[id[1]] = vs[k] end
    elseif tag == "Set" then
      local vs = frame:explist(node[2])
      check_count(frame, node, #node[1], #vs)
      for k, lhs in ipairs(node[1]) do
        if lhs.tag ~= "Id" or not frame:lookup(lhs[1]) then
          frame:fail(lhs, "a fused function assigns its own locals only (not upvalues, "
            .. "globals or subscripts)")
        end
        for s = #frame.scopes, 1, -1 do
          if frame.scopes[s][lhs[1]] then
            frame.scopes[s][lhs[1]] = vs[k]
            break
          end
        end
      end
    elseif tag == "Return" then
      if i ~= #body then frame:fail(node, "code after return") end
      if #node == 0 then frame:fail(node, "the function returns nothing") end
      local last = node[#node]
      if not inlined and #node == 1 and (last.tag == "Call" or last.tag == "Invoke") then
        local red = frame:reduction(last)
        if red then return { reduction = red } end
      end
      return { values = frame:explist({ table.unpack(node) }) }
    else
      frame:fail(node, fmt("%s are not in what a fused function translates",
        STATEMENT[tag] or ir.UNSUPPORTED_NODE[tag] or tag))
    end
  end
  frame:fail(body[#body] or nil, "the function ends without returning a value")
end

-- The values a fused function called from another gives, its body walked with its parameters
-- bound to the caller's values (ctx.inline).
function B.inline(caller, node, fused, values)
  local spec = fused.spec
  local params = spec.node[1]
  if #values ~= #params then
    caller:fail(node, fmt("the fused function '%s' takes %d argument%s, got %d",
      fused.where, #params, #params == 1 and "" or "s", #values), "TypeError")
  end
  local depth = (caller.depth or 0) + 1
  if depth > 50 then caller:fail(node, "fused functions call one another too deeply") end
  local frame = E.frame(caller.prog, spec)
  frame.depth = depth
  for k, p in ipairs(params) do frame.scopes[1][p[1]] = values[k] end
  return B.walk(frame, spec.node[2], true).values
end

return B
