-- tools/fuzz/entries.lua -- every entry point of cuarr that a script can reach, enumerated (not
-- listed by hand): the functions of the `cuarr` table and its sub-tables (cuarr.cpu,
-- cuarr.linalg, ...) and of the C module cuarr.core, and every function of every class's
-- metatable (its metamethods and its `methods` table), the classes found in the registry
-- (`cuarr.*` metatables) and as the metatables of sample objects.
--
-- Each entry is { name = "cuarr.cpu.zeros", fn = function, class = "ndarray" or nil }: `class`
-- names the class whose object the function expects first (a method or a metamethod).  The
-- list is sorted by name, so that a seed picks the same calls in every process.

local M = {}

-- The functions under t (tables walked once each, through string keys), named from prefix.
-- A function reached under two names (cuarr.add is cuarr.core.add) is one entry, named by the
-- first walk that meets it; within a walk the lexically first name wins.
local function walk(t, prefix, out, seen, class)
  if seen[t] then return end
  seen[t] = true
  local keys = {}
  for k in pairs(t) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v, name = rawget(t, k), prefix .. "." .. k
    if type(v) == "function" then
      if not seen[v] then
        seen[v] = true
        out[name] = { name = name, fn = v, class = class }
      end
    elseif type(v) == "table" and getmetatable(v) == nil then
      walk(v, name, out, seen, class)
    end
  end
end

-- classes: name -> metatable, for the classes of the sample objects (see values.lua).
function M.enumerate(cuarr, core, classes)
  local out, seen = {}, {}
  -- The classes first: their functions are named by class, and the walk of cuarr must not
  -- take them as plain functions (cuarr.ndarray is the array class's metatable).
  local class_names = {}
  for name in pairs(classes) do class_names[#class_names + 1] = name end
  table.sort(class_names)
  for _, name in ipairs(class_names) do
    walk(classes[name], "class." .. name, out, seen, name)
  end
  walk(cuarr, "cuarr", out, seen)
  walk(core, "cuarr.core", out, seen)
  local list = {}
  for _, e in pairs(out) do list[#list + 1] = e end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- The class metatables in the registry: its string keys "cuarr.X" whose value is a table
-- with a __name (the userdata classes; other cuarr.* entries are the binding's own state).
function M.registry_classes()
  local found = {}
  for k, v in pairs(debug.getregistry()) do
    if type(k) == "string" and k:match("^cuarr%.") and type(v) == "table" and
        rawget(v, "__name") then
      found[k:gsub("^cuarr%.", "")] = v
    end
  end
  return found
end

return M
