-- Every example script runs to the end (on the GPU when the machine has one, on host arrays
-- otherwise: each example picks for itself).
local H = require("spec.helper").bind(_ENV)
local _ = H

describe("examples", function()
  for _, name in ipairs { "quickstart", "elementwise", "reductions", "streams", "memory",
                          "vectorize", "jit", "random", "fuse", "linalg", "indexing" } do
    it(name .. ".lua runs", function()
      local p = assert(io.popen("lua5.4 examples/" .. name .. ".lua 2>&1"))
      local out = p:read("a")
      local ok = p:close()
      assert.is_true(ok, out)
      assert.is_true(#out > 0)
    end)
  end

  -- The distributed example on a small array: over every GPU here with NCCL; else it says what
  -- it needs and exits 0, as the other device examples do.
  it("distributed.lua runs, or says what it needs", function()
    local p = assert(io.popen("lua5.4 examples/distributed.lua 100000 2>&1"))
    local out = p:read("a")
    local ok = p:close()
    assert.is_true(ok, out)
    if require("cuarr").distributed.is_available() then
      assert.matches("they agree", out, 1, true)
    else
      assert.matches("cuarr.distributed needs NCCL and a GPU", out, 1, true)
    end
  end)

  -- The raw kernels' example on its small stack (the full one is 8 GB of float64); without a
  -- GPU it says so and exits.
  it("raw_kernels.lua runs on its small stack", function()
    local p = assert(io.popen("lua5.4 examples/raw_kernels.lua small 2>&1"))
    local out = p:read("a")
    local ok = p:close()
    assert.is_true(ok, out)
    if H.has_gpu then
      assert.matches("mulReg *: %d+ elements match the host product", out)
    else
      assert.matches("needs a GPU", out)
    end
  end)
end)
