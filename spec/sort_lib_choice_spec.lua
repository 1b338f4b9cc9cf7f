-- What `make demo`, `make all` (make test, make install, CI) and the rockspec's build decide about
-- the device sort library (minutes of nvcc): the demo and the rockspec build it only where a CUDA
-- driver is found, `all` wherever nvcc is; CUARR_SORT_LIB=1 forces it, =0 skips it.  Read from
-- `make -n` (nvcc's command, or the library up to date, against the message of the skip) with the
-- driver's presence set (HAVE_DRIVER), so that nothing is built and the answer does not depend on
-- this machine.
local H = require("spec.helper").bind(_ENV)
local _ = H
local C = require "spec.support.child"

local function nvcc_would_run(args)
  local ok, out = C.shell("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CUARR_SORT_LIB make -n " ..
    "--no-print-directory -W src/core/sort/cub/radix_sort.cu NVCC=/bin/true " .. args)
  assert(ok, out)
  local skipped = out:find("not built; device sorts will raise NotAvailable", 1, true) ~= nil
  local built = out:find("-shared -cudart static", 1, true) ~= nil or
    out:find("libcuarr_sort.so' is up to date", 1, true) ~= nil
  assert(skipped ~= built, out)
  return built
end

describe("the device sort library's build", function()
  local cases = {
    { "demo HAVE_DRIVER=", false },
    { "demo HAVE_DRIVER=yes", true },
    { "demo HAVE_DRIVER= CUARR_SORT_LIB=1", true },
    { "demo HAVE_DRIVER=yes CUARR_SORT_LIB=0", false },
    { "all HAVE_DRIVER=", true },
    { "all HAVE_DRIVER= CUARR_SORT_LIB=0", false },
    { "all HAVE_DRIVER= CUARR_SORT_LIB_AUTO=driver", false },
    { "all HAVE_DRIVER=yes CUARR_SORT_LIB_AUTO=driver", true },
    { "all HAVE_DRIVER= CUARR_SORT_LIB_AUTO=driver CUARR_SORT_LIB=1", true },
  }
  for _, c in ipairs(cases) do
    it(("make %s %s nvcc"):format(c[1], c[2] and "runs" or "skips"), function()
      assert.are.equal(c[2], nvcc_would_run(c[1]))
    end)
  end

  it("is skipped by the rockspec unless a driver is found", function()
    local fields = {}
    assert(loadfile("cuarr-scm-1.rockspec", "t", fields))()
    assert.are.equal("driver", fields.build.build_variables.CUARR_SORT_LIB_AUTO)
    assert.are.equal("driver", fields.build.install_variables.CUARR_SORT_LIB_AUTO)
  end)

  it("is skipped by the demo with a message saying how to force it", function()
    local ok, out = C.shell("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory " ..
      "sort-lib-skipped HAVE_DRIVER= HAVE_NVCC=yes")
    assert.is_true(ok, out)
    assert.matches("no CUDA driver here (CUARR_SORT_LIB=1 builds it anyway)", out, 1, true)
  end)
end)
