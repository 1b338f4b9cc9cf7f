-- docs/api.md, the API index, is complete and current: every public function of cuarr, of its
-- namespaces (cuarr.cpu, cuarr.linalg, cuarr.random, cuarr.jit, ...) and every method of the
-- classes (their metatables' `methods`, the classes found in the registry as tools/fuzz
-- enumerates them) has its entry in lua/cuarr/api_index.lua, every entry there names something
-- that exists, and docs/api.md is what tools/api_index.lua writes from it.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local index = require "cuarr.api_index"
local generator = require "tools.api_index"
local entries = require "tools.fuzz.entries"

local classes = entries.registry_classes()

-- The classes made in Lua (no registry entry): a sample object of each, whose metatable's
-- __index table holds the methods.
local lua_samples = {
  Generator = function() return cuarr.cpu.random.default_rng(1) end,
  fuse = function() return cuarr.fuse(function(x) return x end) end,
}
local lua_classes = {}
for name, make in pairs(lua_samples) do
  local mt = getmetatable(make())
  lua_classes[name] = { methods = rawget(mt, "__index"), __name = rawget(mt, "__name") }
end
local all_classes = {}
for name, mt in pairs(classes) do all_classes[name] = mt end
for name, mt in pairs(lua_classes) do all_classes[name] = mt end

-- A sample object of each class whose fields the index lists.
local field_samples = {
  ndarray = function() return cuarr.cpu.zeros({ 2, 3 }, "float32")[{ {}, { 2, 3 } }] end,
  Error = function() return select(2, pcall(cuarr.cpu.zeros, "not a shape")) end,
}

-- Whether t is a class's metatable (cuarr.ndarray, cuarr.distributed.Communicator).
local function is_class(t)
  for _, mt in pairs(classes) do if mt == t then return true end end
  return false
end

-- The public functions under t, as "prefix.name" -> true: string keys not starting with "_",
-- sub-tables walked (not cuarr.core, not the host namespace, not classes).
local function public_functions(t, prefix, out, skip)
  for k, v in pairs(t) do
    if type(k) == "string" and k:sub(1, 1) ~= "_" then
      local name = prefix .. "." .. k
      if type(v) == "function" then
        out[name] = true
      elseif type(v) == "table" and not skip[v] and not is_class(v) and getmetatable(v) == nil then
        skip[v] = true
        public_functions(v, name, out, skip)
      end
    end
  end
  return out
end

local function host_name(module) return (module:gsub("^cuarr", "cuarr.cpu")) end

local function lookup(path)
  local v = _G
  for part in path:gmatch("[^.]+") do
    if type(v) ~= "table" then return nil end
    v = part == "cuarr" and v == _G and cuarr or v[part]
  end
  return v
end

-- The problems of an index against the loaded module: a list of strings, empty when it is right.
local function problems(idx)
  local found = {}
  local listed, methods_listed, class_listed = {}, {}, {}
  local out = {}
  for _, s in ipairs(idx) do
    for _, e in ipairs(s.entries) do
      local name, where = e[1], e[4] or ""
      if not (type(e[2]) == "string" and type(e[3]) == "string" and #e[3] > 0) then
        out[#out + 1] = ("%s: an entry without a signature and description"):format(name)
      end
      if s.module then
        local full = s.module .. "." .. name
        local v = lookup(full)
        if s.fields then
          if v == nil then out[#out + 1] = full .. " is indexed but does not exist" end
        else
          listed[full] = true
          if type(v) ~= "function" then out[#out + 1] = full .. " is indexed but is no function" end
          if where:find("h", 1, true) then
            local h = host_name(s.module) .. "." .. name
            listed[h] = true
            if type(lookup(h)) ~= "function" then out[#out + 1] = h .. " is indexed but is no function" end
          end
          if where:find("m", 1, true) then methods_listed[name] = true end
        end
      elseif s.class and s.fields then
        local make = field_samples[s.class]
        if not make then
          out[#out + 1] = "no sample object of class " .. s.class .. " for its fields"
        elseif make()[name] == nil then
          out[#out + 1] = ("%s field %s does not exist"):format(s.class, name)
        end
      elseif s.class then
        class_listed[s.class] = class_listed[s.class] or {}
        class_listed[s.class][name] = true
        if s.class == "ndarray" then methods_listed[name] = true end
      end
    end
  end
  public_functions(cuarr, "cuarr", found, { [cuarr.cpu] = true, [cuarr.core or false] = true })
  public_functions(cuarr.cpu, "cuarr.cpu", found, { [cuarr.core or false] = true })
  for name in pairs(found) do
    if not listed[name] then out[#out + 1] = name .. " is public but missing from the index" end
  end
  for name in pairs(listed) do
    if not found[name] then out[#out + 1] = name .. " is indexed but not public" end
  end
  for cname, mt in pairs(all_classes) do
    local methods = rawget(mt, "methods")
    if type(methods) == "table" then
      local want = cname == "ndarray" and methods_listed or (class_listed[cname] or {})
      for k, v in pairs(methods) do
        if type(k) == "string" and k:sub(1, 1) ~= "_" and type(v) == "function" and not want[k] then
          out[#out + 1] = ("%s:%s is public but missing from the index"):format(cname, k)
        end
      end
      for k in pairs(want) do
        if type(methods[k]) ~= "function" then
          out[#out + 1] = ("%s:%s is indexed but no method"):format(cname, k)
        end
      end
    end
  end
  for cname in pairs(class_listed) do
    if not all_classes[cname] then out[#out + 1] = "class " .. cname .. " is indexed but not found" end
  end
  table.sort(out)
  return out
end

local function read(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("a")
  f:close()
  return text
end

describe("the API index", function()
  it("lists every public function and method, and nothing that does not exist", function()
    local list = problems(index)
    assert.are.equal("", table.concat(list, "\n"))
  end)

  it("covers the namespaces and classes the README names", function()
    local modules, cls, n = {}, {}, 0
    for _, s in ipairs(index) do
      if s.module then modules[s.module] = true end
      if s.class then cls[s.class] = true end
      n = n + #s.entries
    end
    for _, m in ipairs { "cuarr", "cuarr.linalg", "cuarr.random", "cuarr.jit" } do
      assert.is_true(modules[m], m)
    end
    for _, c in ipairs { "ndarray", "Stream", "Event", "Device", "MemoryPool", "RawModule",
                         "RawKernel", "Graph", "Communicator" } do
      assert.is_true(cls[c], c)
    end
    assert.is_true(n >= 300, "only " .. n .. " entries")
  end)

  it("notices a function missing from it and an entry for nothing", function()
    local copy = {}
    for i, s in ipairs(index) do
      local t = {}
      for k, v in pairs(s) do t[k] = v end
      copy[i] = t
    end
    -- drop cuarr.zeros (and cuarr.cpu.zeros) and name a function that does not exist
    local first = copy[1]
    local kept = {}
    for _, e in ipairs(first.entries) do if e[1] ~= "zeros" then kept[#kept + 1] = e end end
    kept[#kept + 1] = { "no_such_function", "no_such_function()", "nothing", "h" }
    first.entries = kept
    local text = table.concat(problems(copy), "\n")
    assert.matches("cuarr.zeros is public but missing", text, 1, true)
    assert.matches("cuarr.cpu.zeros is public but missing", text, 1, true)
    assert.matches("cuarr.no_such_function is indexed but is no function", text, 1, true)
    assert.matches("cuarr.cpu.no_such_function is indexed but is no function", text, 1, true)
  end)

  it("is what docs/api.md says (make docs writes it)", function()
    assert.are.equal(generator.render(), read("docs/api.md"),
      "docs/api.md is stale: run `make docs`")
  end)
end)
