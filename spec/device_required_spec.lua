-- `make test-gpu` must fail when no device is usable: this is the spec that says so.
local H = require("spec.helper").bind(_ENV)

describe("the GPU", function()
  H.gpu_it("is usable", function()
    assert.is_true(H.cuarr.is_available(), "no usable CUDA device: " .. tostring(H.cuarr.runtime.driver_missing))
    assert.is_true(H.cuarr.runtime.device_count >= 1)
  end)
end)
