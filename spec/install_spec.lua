-- `make install PREFIX=...` puts a module that loads from any directory (the rockspec's
-- build.type "make" runs the same rule).
local H = require("spec.helper").bind(_ENV)
local _ = H

describe("make install", function()
  it("installs a module that `require` finds from another directory", function()
    local prefix = os.tmpname()
    os.remove(prefix)
    local function run(cmd)
      local p = assert(io.popen(cmd .. " 2>&1"))
      local out = p:read("a")
      local ok = p:close()
      return ok, out
    end
    local ok, out = run("make --no-print-directory install PREFIX=" .. prefix)
    assert.is_true(ok, out)
    ok, out = run(("cd / && LUA_PATH='%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua' " ..
                   "LUA_CPATH='%s/lib/lua/5.4/?.so' lua5.4 -e " ..
                   "'local c = require \"cuarr\"; print(c.cpu.arange(3):totable()[3])'")
                  :format(prefix, prefix, prefix))
    run("rm -rf " .. prefix)
    assert.is_true(ok, out)
    assert.are.equal("2", out:match("^%s*(.-)%s*$"))
  end)
end)
