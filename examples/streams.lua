-- Two kernels on two streams, the second waiting for the first through an event: y = 2x + 1
-- is computed on s1, z = y * y on s2 once the event recorded after the first kernel has
-- completed; meanwhile s1 goes on with independent work.  The result is checked on the host.
local cuarr = require "cuarr"

if not cuarr.is_available() then
  print("streams and events need a device: no usable GPU here, nothing to show")
  return
end

local n = 1 << 20
local affine = cuarr.ElementwiseKernel("float32 x", "float32 y", "y = 2.0f * x + 1.0f",
  "affine_example")
local square = cuarr.ElementwiseKernel("float32 y", "float32 z", "z = y * y", "square_example")

local s1 = cuarr.Stream { non_blocking = true }
local s2 = cuarr.Stream { non_blocking = true }
local x = cuarr.arange(n, "float32") / n -- on the current stream
cuarr.synchronize() -- x is ready before the other streams read it

local y_ready = cuarr.Event { timing = false }
local y, z, w
cuarr.with_stream(s1, function()
  y = affine(x)
  y_ready:record() -- on s1, after the first kernel
  w = affine(affine(x)) -- more work on s1, independent of s2's
end)
cuarr.with_stream(s2, function()
  s2:wait_event(y_ready) -- s2's next kernel starts only once y is written
  z = square(y)
end)
s1:synchronize()
s2:synchronize()

-- The same on the host.
local xh = cuarr.cpu.arange(n, "float32") / n
local yh = xh * 2 + 1
local zh = yh * yh
local err = cuarr.cpu.abs(z:get() - zh):max():item()
local err_w = cuarr.cpu.abs(w:get() - (yh * 2 + 1)):max():item()
print(string.format("z = (2x + 1)^2 on s2 after s1's event: max error %.3g", err))
print(string.format("w = 2(2x + 1) + 1 on s1 meanwhile:      max error %.3g", err_w))
assert(err <= 1e-5 * 9, "z matches the host's result")
assert(err_w <= 1e-5 * 5, "w matches the host's result")
