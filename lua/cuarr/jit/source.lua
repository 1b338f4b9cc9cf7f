-- The syntax tree of a Lua function for the translator: its source read from its file (through
-- debug.getinfo) or given as a string, parsed by luacheck's parser.
--
-- Why luacheck's parser (Debian's lua-check): it is a well-kept, complete parser of Lua 5.4's
-- syntax (integer division, bitwise operators, attribs, goto) written in plain Lua, loads
-- unchanged under lua5.4 from Debian's 5.1 tree, and gives every node its line, so errors point
-- at the user's Lua line.  A parser of our own would have to match Lua's grammar to the letter
-- (precedence, long strings, numerals) and be kept so; none of the alternatives (lua-parser,
-- metalua) is packaged for Debian.  Without it, the translating APIs raise NotAvailable naming
-- the package; nothing else needs it.
local S = {}

-- Where luacheck is looked for when `require` does not find it: Debian's tree for Lua 5.1, or
-- CUARR_LUACHECK_PATH (a package.path template) for a luacheck installed elsewhere.
local SEARCH_PATH = os.getenv("CUARR_LUACHECK_PATH")
  or "/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua;/usr/local/share/lua/5.1/?.lua"

local parser, decoder
local function load_parser(raise)
  if parser then return parser, decoder end
  local function find(name)
    local ok, m = pcall(require, name)
    if ok then return m end
    local path = package.searchpath(name, SEARCH_PATH)
    if not path then return nil end
    -- luacheck's modules require one another by name: make its tree reachable for them.
    if not package.path:find(SEARCH_PATH, 1, true) then
      package.path = package.path .. ";" .. SEARCH_PATH
    end
    local ok2, m2 = pcall(require, name)
    return ok2 and m2 or nil
  end
  parser, decoder = find("luacheck.parser"), find("luacheck.decoder")
  if not (parser and decoder) then
    parser, decoder = nil, nil
    raise("NotAvailable", "kernels written in Lua need a Lua parser: install Debian's "
      .. "lua-check package (`make deps` does)")
  end
  return parser, decoder
end

-- luacheck's parser reads Lua 5.4's attribs (`local x <const> = ...`) and drops them.  `<const>`
-- changes nothing in a function that loaded; `<close>` on a number is an error when Lua runs the
-- function, so it is refused here too: the tokens of text are scanned for a local's `<close>`.
local function refuse_close(text, chunkname, raise)
  local lexer = require "luacheck.lexer"
  local state = lexer.new_state(decoder.decode(text))
  local ok, window = true, {}
  while ok do
    local token, value, line
    ok, token, value, line = pcall(lexer.next_token, state)
    if not ok or token == "eof" then break end
    window[#window + 1] = { token = token, value = value, line = line }
    if #window > 5 then table.remove(window, 1) end
    -- local|, name < close >
    local w = window
    if #w == 5 and (w[1].token == "local" or w[1].token == ",") and w[2].token == "name"
      and w[3].token == "<" and w[4].token == "name" and w[4].value == "close"
      and w[5].token == ">" then
      raise("CompileError", ("%s:%d: to-be-closed locals (<close>) are not in the subset "
        .. "translated functions use"):format(chunkname, w[4].line))
    end
  end
end

-- Parses text (a chunk); a syntax error is a CompileError at chunkname:line.
local function parse(text, chunkname, raise)
  local p, d = load_parser(raise)
  local ok, ast = pcall(p.parse, d.decode(text))
  if not ok then
    local line = type(ast) == "table" and ast.line or "?"
    local msg = type(ast) == "table" and ast.msg or tostring(ast)
    raise("CompileError", ("%s:%s: %s"):format(chunkname, tostring(line), msg))
  end
  return ast
end

-- The Function node of the function defined from line first to line last of text (its lines),
-- with nparams parameters: each `function` keyword on the first line tried against each `end`
-- on the last (the text around them may be anything: a call's parentheses, or not Lua at all,
-- as in a README whose blocks are loaded under its name).  Only the function's own text is
-- parsed, with its lines where they are in the file.
local function find_function(lines, first, last, nparams, raise)
  local p, d = load_parser(raise)
  local head, tail = lines[first], lines[last]
  local middle = table.concat(lines, "\n", first + 1, last - 1)
  local starts, ends = {}, {}
  for pos in head:gmatch("()function") do starts[#starts + 1] = pos end
  for pos in tail:gmatch("()end") do table.insert(ends, 1, pos + 2) end
  local prefix = ("\n"):rep(first - 1)
  local found = {}
  for _, i in ipairs(starts) do
    -- `function name(` and `local function name(` become a function expression.
    local fhead = head:sub(i):gsub("^function%s+[%w_.]+%s*%(", "function(")
    for _, j in ipairs(ends) do
      local text
      if first == last then
        if j > i then text = fhead:sub(1, #fhead - (#head - j)) end
      else
        text = fhead .. "\n" .. (middle ~= "" and middle .. "\n" or "") .. tail:sub(1, j)
      end
      if text then
        local ok, ast = pcall(p.parse, d.decode(prefix .. "return " .. text))
        local ret = ok and ast[1]
        if ret and #ast == 1 and ret.tag == "Return" and #ret == 1 and ret[1].tag == "Function"
          and #ret[1][1] == nparams then
          found[#found + 1] = ret[1]
        end
      end
    end
  end
  -- Two functions that fit (on one line, with as many parameters): which one is unknowable.
  return #found == 1 and found[1] or nil
end

-- S.load(fn_or_source, raise) -> { node = Function node, chunk = "file.lua", line = first line,
-- fn = the Lua function (nil for a source string) }.
function S.load(f, raise)
  if type(f) == "string" then
    local ast = parse("return " .. f, "source", raise)
    local ret = ast[1]
    if #ast ~= 1 or ret.tag ~= "Return" or #ret ~= 1 or ret[1].tag ~= "Function" then
      raise("ValueError", "a kernel's source string must be one function expression, "
        .. "`function(x, y) ... end`")
    end
    refuse_close(f, "source", raise)
    return { node = ret[1], chunk = "source", line = ret[1].line }
  end
  if type(f) ~= "function" then
    raise("TypeError", "expected a Lua function or its source as a string, got " .. type(f))
  end
  local info = debug.getinfo(f, "Su")
  if info.what == "C" then
    raise("TypeError", "a C function has no Lua source to translate")
  end
  local chunk = info.short_src
  local text
  if info.source:sub(1, 1) == "@" then
    local file = io.open(info.source:sub(2), "r")
    if not file then
      raise("ValueError", ("cannot read the source of the function at %s:%d; pass its source "
        .. "as a string"):format(chunk, info.linedefined))
    end
    text = file:read("a")
    file:close()
  elseif info.source:sub(1, 1) == "=" then
    raise("ValueError", ("the function at %s:%d has no source text (typed at the REPL?); pass "
      .. "its source as a string"):format(chunk, info.linedefined))
  else
    text = info.source
  end
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = line end
  local node = info.linedefined >= 1 and info.lastlinedefined <= #lines
    and find_function(lines, info.linedefined, info.lastlinedefined,
      info.nparams + (info.isvararg and 1 or 0), raise)
  if not node then
    raise("ValueError", ("cannot find the source of the function at %s:%d (two functions on "
      .. "its first line?); pass its source as a string"):format(chunk, info.linedefined))
  end
  refuse_close(("\n"):rep(info.linedefined - 1)
    .. table.concat(lines, "\n", info.linedefined, info.lastlinedefined), chunk, raise)
  return { node = node, chunk = chunk, line = info.linedefined, fn = f }
end

return S
