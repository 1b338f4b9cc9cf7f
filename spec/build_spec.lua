-- The build's own promises (Makefile, tools/): `make repl` starts a prompt with cuarr loaded;
-- `make test`'s output handler prints failures in full and counts the #gpu specs that had no
-- device in one line; the compile-all C tests' stamps depend on the kernel generators and not on
-- the Lua binding.
local H = require("spec.helper").bind(_ENV)
local _ = H
local C = require "spec.support.child"

local run = C.shell

-- make, without the job server of a `make -j test` that may be running these specs.
local MAKE = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "

describe("make repl", function()
  it("starts Lua with the checkout's paths and cuarr loaded as a global", function()
    local ok, out = run("echo 'print(\"sum=\" .. cuarr.cpu.arange(4):sum():item())' | " ..
                        MAKE .. "-s repl")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("sum=6", 1, true), out)
  end)
end)

describe("make test's output handler (tools/busted_summary.lua)", function()
  local dir, out, ok
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. C.sh_quote(dir)))
    local f = assert(io.open(dir .. "/fixture_spec.lua", "w"))
    f:write([[
describe("fixture", function()
  it("passes", function() assert.are.equal(1, 1) end)
  it("fails", function() assert.are.equal("expected words", "other words") end)
  it("errors", function() error("the error's own message") end)
  pending("a device case #gpu (no GPU here)")
  pending("another device case #gpu (no GPU here)")
  pending("a case skipped for its own reason")
end)
]])
    f:close()
    local busted = os.getenv("BUSTED") or "busted"
    local checkout = io.popen("pwd"):read("l")
    ok, out = run(("cd %s && %s --lua=lua5.4 -o %s/tools/busted_summary.lua fixture_spec.lua")
                  :format(C.sh_quote(dir), busted, C.sh_quote(checkout)))
  end)
  teardown(function() os.execute("rm -rf " .. C.sh_quote(dir)) end)

  it("fails when a spec fails", function()
    assert.is_falsy(ok, out)
  end)
  it("prints each failure and error in full, with its message", function()
    assert.is_truthy(out:find("fixture fails", 1, true), out)
    assert.is_truthy(out:find("expected words", 1, true), out)
    assert.is_truthy(out:find("fixture errors", 1, true), out)
    assert.is_truthy(out:find("the error's own message", 1, true), out)
  end)
  it("counts the #gpu specs in one line and lists the other pending ones", function()
    assert.is_truthy(out:find("\n2 GPU specs skipped: no GPU\n", 1, true), out)
    assert.is_nil(out:find("a device case", 1, true), out)
    assert.is_truthy(out:find("a case skipped for its own reason", 1, true), out)
  end)
  it("ends with busted's count line, which .ci/run reads", function()
    assert.is_truthy(out:find("1 successes / 1 failures / 1 errors / 3 pending", 1, true), out)
  end)
end)

describe("the compile-all C tests' stamps", function()
  local stamp = "build/ctest/test_scan_compile.passed"
  it("are out of date when a kernel generator changes", function()
    local ok, out = run(MAKE .. "-n -W src/core/scan/scan_source.c " .. stamp)
    assert.is_true(ok, out)
    assert.is_truthy(out:find("build/ctest/test_scan_compile && touch " .. stamp, 1, true), out)
  end)
  it("are out of date when the embedded kernels/ change", function()
    -- kernels/ reaches the objects through the embedded sources (tools/embed.sh), which make -n
    -- does not follow past the embedding rule's grouped targets: ask from the embedded file.
    local ok, out = run(MAKE .. "-n -W build/gen/kernels_embedded.c " .. stamp)
    assert.is_true(ok, out)
    assert.is_truthy(out:find("touch " .. stamp, 1, true), out)
    ok, out = run(MAKE .. "-n -W kernels/templates/scan.cu build/gen/kernels_embedded.c")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("tools/embed.sh", 1, true), out)
  end)
  it("stay up to date when only the Lua binding changes", function()
    local ok, unchanged = run(MAKE .. "-n " .. stamp)
    assert.is_true(ok, unchanged)
    local out
    ok, out = run(MAKE .. "-n -W src/lua/ndarray.c -W lua/cuarr/init.lua " .. stamp)
    assert.is_true(ok, out)
    assert.are.equal(unchanged, out)
  end)
end)
