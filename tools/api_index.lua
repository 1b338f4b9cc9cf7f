-- tools/api_index.lua -- writes docs/api.md from lua/cuarr/api_index.lua (`make docs`):
--   lua5.4 tools/api_index.lua [out.md]     (default docs/api.md; "-" writes stdout)
-- spec/api_index_spec.lua checks that the file is what this writes.
local index = require "cuarr.api_index"

local M = {}

local function cell(s) return (s:gsub("|", "\\|")) end

-- Where an entry of a module section can be called: its module, the host namespace, a method.
local function places(module, where)
  local out = { "`" .. module .. "`" }
  where = where or ""
  if where:find("h", 1, true) then out[#out + 1] = "`" .. module:gsub("^cuarr", "cuarr.cpu") .. "`" end
  if where:find("m", 1, true) then out[#out + 1] = "`a:`" end
  return table.concat(out, " ")
end

local function anchor(title)
  return (title:lower():gsub("[^%w%s%-]", ""):gsub("%s", "-"))
end

-- The Markdown text of the index.
function M.render()
  local lines = {
    "# cuarr API index",
    "",
    "<!-- Written by tools/api_index.lua from lua/cuarr/api_index.lua (`make docs`); edit that table, not this file. -->",
    "",
    "Every public function of `cuarr`, its namespaces and its classes, with its signature and what it does.",
    "The README says more about each group. \"In\" says where a function is: `cuarr.cpu` has it for host arrays,",
    "`a:` means it is also a method of arrays (the array as first argument).",
    "",
  }
  for _, s in ipairs(index) do
    lines[#lines + 1] = ("- [%s](#%s)"):format(s.title, anchor(s.title))
  end
  for _, s in ipairs(index) do
    lines[#lines + 1] = ""
    lines[#lines + 1] = "## " .. s.title
    lines[#lines + 1] = ""
    if s.intro then
      lines[#lines + 1] = s.intro
      lines[#lines + 1] = ""
    end
    if s.module and not s.fields then
      lines[#lines + 1] = "| Signature | In | Description |"
      lines[#lines + 1] = "|---|---|---|"
      for _, e in ipairs(s.entries) do
        lines[#lines + 1] = ("| `%s` | %s | %s |"):format(cell(e[2]), places(s.module, e[4]), cell(e[3]))
      end
    else
      lines[#lines + 1] = "| Signature | Description |"
      lines[#lines + 1] = "|---|---|"
      for _, e in ipairs(s.entries) do
        lines[#lines + 1] = ("| `%s` | %s |"):format(cell(e[2]), cell(e[3]))
      end
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

if arg and arg[0] and arg[0]:match("api_index%.lua$") and not package.loaded["tools.api_index"] then
  local path = arg[1] or "docs/api.md"
  local text = M.render()
  if path == "-" then
    io.write(text)
  else
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
  end
end

return M
