-- The README tells the truth: every ```lua block of README.md runs as it is, each in a fresh Lua
-- process with nothing required for it (a block pasted alone into a file runs), and what its `print` lines say they print (a `--> text` comment, continued
-- by comment-only `--> text` lines below it) is what they print.  A block whose first line is
-- `-- needs a GPU` runs only where a device is usable (#gpu); every other block runs everywhere,
-- so the README's first steps hold on a machine without a GPU.  The statements a block cannot
-- show are checked against the code here: the staging threshold of pageable uploads, and the
-- functions the README says do not exist yet.
local H = require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local cuarr = H.cuarr

local function read(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("a")
  f:close()
  return text
end

local README = "README.md"

-- The ```lua blocks of text: { code =, line = (the README line of the code's first line) }.
local function lua_blocks(text)
  local blocks, current, n = {}, nil, 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if current then
      if line:match("^```%s*$") then
        blocks[#blocks + 1] = current
        current = nil
      else
        current.lines[#current.lines + 1] = line
      end
    elseif line:match("^```lua%s*$") then
      current = { line = n + 1, lines = {} }
    end
  end
  assert(current == nil, "README.md: a ```lua block is not closed")
  for _, b in ipairs(blocks) do b.code = table.concat(b.lines, "\n") end
  return blocks
end

-- The program a child runs for a block: the block's lines keep their README line numbers, so an
-- error or a wrong print names the README's line.
local HARNESS = [==[
local code, first_line = %q, %d
local function squash(s) return (s:gsub("%%s+", " "):gsub("^ ", ""):gsub(" $", "")) end
-- line -> the text its print must give
local expected, last = {}, nil
local n = first_line - 1
for line in (code .. "\n"):gmatch("(.-)\n") do
  n = n + 1
  local before, text = line:match("^(.-)%%-%%->%%s?(.*)$")
  if before and before:match("^%%s*$") and last then
    expected[last] = expected[last] .. " " .. text
  elseif before then
    last = n
    expected[n] = text
  else
    last = nil
  end
end
local checked = {}
local env = setmetatable({}, { __index = _G })
env.print = function(...)
  local parts = table.pack(...)
  for i = 1, parts.n do parts[i] = tostring(parts[i]) end
  local out = table.concat(parts, "\t", 1, parts.n)
  io.write(out, "\n")
  local line = debug.getinfo(2, "l").currentline
  if expected[line] then
    checked[line] = true
    if squash(out) ~= squash(expected[line]) then
      error(("README.md:%%d: printed\n  %%s\nbut the README says\n  %%s"):format(line,
        squash(out), squash(expected[line])), 0)
    end
  end
end
local fn = assert(load(("\n"):rep(first_line - 1) .. code, "@README.md", "t", env))
-- An error object (a cuarr error) gets the README line it came from, as a string error does.
assert(xpcall(fn, function(e) return debug.traceback(tostring(e), 2) end))
for line in pairs(expected) do
  if not checked[line] then
    error(("README.md:%%d: this line says what it prints, but it printed nothing"):format(line), 0)
  end
end
]==]

local function run_block(b)
  local ok, out, err = child.run(HARNESS:format(b.code, b.line))
  assert(ok, ("the block at README.md:%d failed:\n%s%s"):format(b.line, out, err))
end

describe("README.md", function()
  local text = read(README)
  local blocks = lua_blocks(text)

  it("has Lua blocks, and some run without a GPU", function()
    local host = 0
    for _, b in ipairs(blocks) do
      if not b.code:match("^%-%- needs a GPU") then host = host + 1 end
    end
    assert.is_true(host >= 1, "no ```lua block of README.md runs without a GPU")
  end)

  for _, b in ipairs(blocks) do
    local name = ("the block at README.md:%d runs and prints what it says"):format(b.line)
    if b.code:match("^%-%- needs a GPU") then
      H.gpu_it(name, function() run_block(b) end)
    else
      it(name, function() run_block(b) end)
    end
  end

  it("opens with a contents list linking every ## heading and docs/api.md", function()
    local contents = text:match("\nContents:(.-)\n\n")
    assert.is_not_nil(contents, "README.md has no Contents: paragraph")
    assert.is_truthy(contents:find("(docs/api.md)", 1, true), "the contents do not link docs/api.md")
    assert.is_true(text:find("\nContents:", 1, true) < text:find("\n## ", 1, true),
      "the contents list comes after the first heading")
    for title in text:gmatch("\n## ([^\n]+)") do
      local anchor = title:lower():gsub("[^%w%s%-]", ""):gsub("%s", "-")
      assert.is_truthy(contents:find(("[%s](#%s)"):format(title, anchor), 1, true),
        "the contents list does not link ## " .. title)
    end
  end)

  it("gives the staging threshold of src/core/copy/staging.c", function()
    local shift = read("src/core/copy/staging.c"):match("STAGE_THRESHOLD%s*=%s*1%s*<<%s*(%d+)")
    assert.is_not_nil(shift, "STAGE_THRESHOLD is no longer `1 << n` in staging.c")
    local bytes = 1 << tonumber(shift)
    local size = bytes >= 1 << 20 and ("%d MiB"):format(bytes >> 20)
      or ("%d KiB"):format(bytes >> 10)
    local flat = text:gsub("%s+", " ")
    local sentence = flat:match("[^.]*staged through[^.]*pinned[^.]*%.")
    assert.is_not_nil(sentence, "README.md does not say when uploads are staged")
    assert.is_truthy(sentence:find(size, 1, true),
      ("README.md's staging sentence does not name %s: %s"):format(size, sentence))
  end)

  it("lists as missing only functions that are nil", function()
    local flat = text:gsub("%s+", " ")
    local list = flat:match("%*%*Not in cuarr yet%*%*(.-)%.%s")
    assert.is_not_nil(list, "README.md has no **Not in cuarr yet** paragraph")
    local names = 0
    for name in list:gmatch("`cuarr%.([%w_%.]+)`") do
      local value = cuarr
      for part in name:gmatch("[^.]+") do
        value = type(value) == "table" and value[part] or nil
      end
      assert.is_nil(value, "README.md says cuarr." .. name .. " does not exist, but it does")
      names = names + 1
    end
    assert.is_true(names >= 5, "the **Not in cuarr yet** paragraph names too few functions")
  end)
end)
