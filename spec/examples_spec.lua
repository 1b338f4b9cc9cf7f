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
