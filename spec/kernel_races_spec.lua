-- One case for each shape of the kernels whose threads share memory or whose blocks hand results
-- to each other: the reductions (one block, several blocks joined by counters, rows, columns,
-- middle axes, argmin/argmax pairs), the scans (one pass with a look-back over tiles, a thread
-- per row, rows cut into chunks joined by a look-back), norms, the user kernels and the counting
-- kernel (bincount, histogram).  Sizes are off every block size yet small: `make
-- test-gpu-sanitize` runs this file under compute-sanitizer's racecheck and synccheck, which run
-- each kernel many times slower.  Every device result is compared with the host engine's
-- (separate code), so a race that changes a result fails here even without the sanitizer.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local abs, max, fmt = math.abs, math.max, string.format

-- Small integers, so that float sums are exact whatever the order of the additions.
local function values(n, seed)
  local t = {}
  for i = 1, n do t[i] = (i * 37 + seed) % 11 - 5 end
  return t
end

local function host_array(shape, dtype, seed)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return cuarr.cpu.array(values(n, seed), dtype):reshape(table.unpack(shape))
end

local function check_same(got, want, what, tol)
  assert.are.same(want.shape, got.shape, what .. ": shape")
  assert.are.equal(want.dtype, got.dtype, what .. ": dtype")
  local g, w = got:ravel():totable(), want:ravel():totable()
  for i = 1, #w do
    local a, b = g[i], w[i]
    if type(b) == "number" and tol then
      assert(abs(a - b) <= tol * max(1, abs(b)), fmt("%s: element %d is %s, want %s", what, i,
        tostring(a), tostring(b)))
    else
      assert(a == b, fmt("%s: element %d is %s, want %s", what, i, tostring(a), tostring(b)))
    end
  end
end

-- Shapes that reach each reduction path: a whole array in one block and in many, long and short
-- rows, columns, and a middle axis.
local reduce_cases = {
  { shape = { 1000 }, axis = nil },
  { shape = { 300001 }, axis = nil },
  { shape = { 37, 1029 }, axis = 2 },
  { shape = { 3000, 5 }, axis = 2 },
  { shape = { 1029, 37 }, axis = 1 },
  { shape = { 5, 70001 }, axis = 1 },
  { shape = { 9, 257, 13 }, axis = 2 },
}

describe("kernels that share memory give the host's results", function()
  for _, op in ipairs({ "sum", "max", "argmin", "all", "nanmax" }) do
    for _, dtype in ipairs({ "float32", "float64", "int32", "float16", "bool" }) do
      H.gpu_it(fmt("%s of %s over every reduction path", op, dtype), function()
        for i, case in ipairs(reduce_cases) do
          local h = host_array(case.shape, dtype, i)
          local want = cuarr.cpu[op](h, case.axis)
          local got = cuarr[op](cuarr.to_device(h), case.axis):get()
          check_same(got, want, fmt("%s(%s, axis %s)", op, table.concat(case.shape, "x"),
            tostring(case.axis)), dtype == "float16" and 1e-2 or nil)
        end
      end)
    end
  end

  for _, op in ipairs({ "cumsum", "cumprod" }) do
    for _, dtype in ipairs({ "float32", "int64", "int8" }) do
      H.gpu_it(fmt("%s of %s along the fastest axis, a slow one, and few long rows", op, dtype),
        function()
          local cases = {
            { shape = { 100003 }, axis = 1 },
            { shape = { 7, 5003 }, axis = 2 },
            { shape = { 3001, 40 }, axis = 1 },
            { shape = { 20001, 3 }, axis = 1 },
          }
          for i, case in ipairs(cases) do
            local h = host_array(case.shape, dtype, i)
            if op == "cumprod" then h = cuarr.cpu.sign(h) end -- products stay in range
            local want = cuarr.cpu[op](h, case.axis)
            local got = cuarr[op](cuarr.to_device(h), case.axis):get()
            check_same(got, want, fmt("%s(%s, axis %d)", op, table.concat(case.shape, "x"),
              case.axis))
          end
        end)
    end
  end

  H.gpu_it("a ReductionKernel over rows and the whole array, and an ElementwiseKernel", function()
    local sumsq = cuarr.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0",
      "races_sumsq")
    local h = host_array({ 129, 1031 }, "float64", 3)
    local hsq = cuarr.cpu.multiply(h, h)
    check_same(sumsq(cuarr.to_device(h), { axis = 2 }):get(), cuarr.cpu.sum(hsq, 2), "rows")
    check_same(sumsq(cuarr.to_device(h)):get(), cuarr.cpu.sum(hsq), "whole")
    local axpy = cuarr.ElementwiseKernel("T x, T y, T a", "T z", "z = a * x + y", "races_axpy")
    local x, y = host_array({ 70001 }, "float32", 1), host_array({ 70001 }, "float32", 2)
    local got = axpy(cuarr.to_device(x), cuarr.to_device(y), 2):get()
    check_same(got, cuarr.cpu.add(cuarr.cpu.multiply(x, 2), y), "axpy")
  end)

  H.gpu_it("norms of vectors and matrices", function()
    local h = host_array({ 513, 67 }, "float64", 5)
    local d = cuarr.to_device(h)
    check_same(cuarr.linalg.norm(d):get(), cuarr.cpu.linalg.norm(h), "frobenius", 1e-12)
    check_same(cuarr.linalg.norm(d, 1, 1):get(), cuarr.cpu.linalg.norm(h, 1, 1), "1-norms",
      1e-12)
  end)

  -- The counting kernel's bins in shared memory (a copy per warp, summed at the end) and
  -- straight in global memory (more bins than fit).
  H.gpu_it("bincount and histogram, shared and global bins", function()
    local h = host_array({ 5003 }, "int32", 9) + 5
    local d = cuarr.to_device(h)
    check_same(cuarr.bincount(d):get(), cuarr.cpu.bincount(h), "bincount, shared bins")
    check_same(cuarr.bincount(d, { minlength = 9000 }):get(),
      cuarr.cpu.bincount(h, { minlength = 9000 }), "bincount, global bins")
    local w = host_array({ 5003 }, "float64", 4)
    check_same(cuarr.bincount(d, { weights = cuarr.to_device(w) }):get(),
      cuarr.cpu.bincount(h, { weights = w }), "weighted bincount")
    check_same((cuarr.histogram(d, 7)):get(), (cuarr.cpu.histogram(h, 7)), "histogram")
  end)
end)
