-- `make install PREFIX=...` puts a module that loads from any directory (the rockspec's
-- build.type "make" runs the same rule); so does `luarocks --lua-version 5.4 make --tree T`, and
-- the rockspec names the project's repository, not a path on one machine.  Without luarocks the
-- luarocks case is pending, unless CUARR_REQUIRE_LUAROCKS=1 (.ci/run sets it and installs
-- luarocks).
local H = require("spec.helper").bind(_ENV)
local _ = H
local C = require "spec.support.child"
local run = C.shell

describe("make install", function()
  it("installs a module that `require` finds from another directory", function()
    local prefix = os.tmpname()
    os.remove(prefix)
    local ok, out = run("make --no-print-directory install PREFIX=" .. prefix)
    assert.is_true(ok, out)
    -- the lines it prints for the prefix are what a shell then needs: with them alone (no
    -- LUA_PATH of the checkout), `require` finds cuarr and PATH finds cuarr-run
    local exports = {}
    for line in out:gmatch("[^\n]+") do
      if line:match("^%s*export ") then exports[#exports + 1] = line:match("^%s*(.-)%s*#.*$") or line end
    end
    assert.are.equal(3, #exports, out)
    local printed = table.concat(exports, "\n")
    assert.matches(prefix .. "/share/lua/5.4/?.lua", printed, 1, true)
    assert.matches(prefix .. "/lib/lua/5.4/?.so", printed, 1, true)
    assert.matches(prefix .. "/bin", printed, 1, true)
    local launcher = io.open(prefix .. "/bin/cuarr-run", "rb")
    assert.is_not_nil(launcher, "cuarr-run not installed in PREFIX/bin")
    launcher:close()
    local script = "cd / && unset LUA_PATH LUA_CPATH && " .. table.concat(exports, " && ") ..
      " && cuarr-run -h >/dev/null && [ \"$(command -v cuarr-run)\" = " .. C.sh_quote(prefix .. "/bin/cuarr-run") ..
      " ] && lua5.4 -e 'local c = require \"cuarr\"; print(c.cpu.arange(3):totable()[3])'"
    ok, out = run("env -i PATH=/usr/bin:/bin HOME=/tmp sh -c " .. C.sh_quote(script))
    -- the device sort library (built where nvcc is) goes beside core.so, where cuarr looks
    local built = io.open("build/cuarr/libcuarr_sort.so", "rb")
    local installed = io.open(prefix .. "/lib/lua/5.4/cuarr/libcuarr_sort.so", "rb")
    if built then built:close() end
    if installed then installed:close() end
    run("rm -rf " .. prefix)
    assert.are.equal(built ~= nil, installed ~= nil, "libcuarr_sort.so installed beside core.so")
    assert.is_true(ok, out)
    assert.are.equal("2", out:match("^%s*(.-)%s*$"))
  end)
end)


describe("the rockspec", function()
  it("names the project's git repository as its source, not a path on one machine", function()
    local fields = {}
    local chunk = assert(loadfile("cuarr-scm-1.rockspec", "t", fields))
    chunk()
    local url = fields.source and fields.source.url
    assert.is_string(url)
    assert.are.equal("git+https://github.com/cuarr/cuarr.git", url)
  end)
end)

describe("luarocks --lua-version 5.4 make", function()
  local has_luarocks = run("command -v luarocks")
  local name = "installs a module that `require` finds from another directory"
  if not has_luarocks and os.getenv("CUARR_REQUIRE_LUAROCKS") ~= "1" then
    pending(name .. " (luarocks is not installed here; .ci/run installs it and runs this)")
    return
  end
  it(name, function()
    local tree = os.tmpname()
    os.remove(tree)
    -- Debian's luarocks defaults to Lua 5.1 ("Rock lua 5.1-1 is already provided") without
    -- --lua-version; the spec's own make must not join the job server of a `make -j test`.
    -- Under `make sanitize` PATH starts with tools/sanitize/bin, whose lua5.4 wrapper would make
    -- luarocks look for Lua's headers beside it: luarocks runs with the system's Lua, as a user's.
    local path = (os.getenv("PATH") or ""):gsub("[^:]*/tools/sanitize/bin:?", "")
    local env = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=" .. C.sh_quote(path) .. " "
    local ok, out = run(env .. "luarocks --lua-version 5.4 make --tree " .. tree)
    assert.is_true(ok, out)
    local check = ("cd / && eval \"$(luarocks --lua-version 5.4 --tree %s path)\" && lua5.4 -e " ..
                   "'local c = require \"cuarr\"; print(c.cpu.arange(3):totable()[3], " ..
                   "package.searchpath(\"cuarr.core\", package.cpath))'"):format(tree)
    ok, out = run(env .. "sh -c " .. C.sh_quote(check))
    run("rm -rf " .. tree)
    assert.is_true(ok, out)
    local value, core = out:match("^%s*(%S+)%s+(%S+)%s*$")
    assert.are.equal("2", value, out)
    assert.are.equal(tree .. "/", core:sub(1, #tree + 1), out)
  end)
end)
