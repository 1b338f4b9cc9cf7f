-- cuarr.profiler.benchmark: CuPy's timing helper.  The line a result prints is computed from
-- its fields alone, so known times give a known line; the options are checked; with no usable
-- device only the CPU is timed; on a device every timed device has a row of positive times.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local benchmark = cuarr.profiler.benchmark

local function noop() end

-- A result whose times are set by hand (one device, 0, unless devices says otherwise).
local function result_with(cpu, gpu_rows, devices)
  local r = benchmark(noop, {}, { n_repeat = 1, n_warmup = 0, name = "x" })
  r.cpu_times = cuarr.cpu.array(cpu, "float64")
  r.devices = devices or {}
  if #r.devices > 0 then r.gpu_times = cuarr.cpu.array(gpu_rows, "float64") end
  return r
end

describe("profiler.benchmark's printed line", function()
  it("is CuPy's layout: name padded to 20, mean, std, min and max in microseconds", function()
    local r = result_with({ 1e-6, 2e-6, 3e-6 }, nil, {})
    r.name = "add"
    assert.are.equal(
      "add                 :    CPU:    2.000 us   +/- 0.816 (min:    1.000 / max:    3.000) us",
      tostring(r))
  end)

  it("has one part per timed device, labelled GPU-<id>", function()
    local r = result_with({ 10e-6, 14e-6 }, { { 5e-6, 7e-6 }, { 1.5e-3, 2.5e-3 } }, { 0, 3 })
    r.name = "two devices"
    assert.are.equal("two devices         :    CPU:   12.000 us   +/- 2.000 (min:   10.000 / max:"
      .. "   14.000) us     GPU-0:    6.000 us   +/- 1.000 (min:    5.000 / max:    7.000) us"
      .. "     GPU-3: 2000.000 us   +/-500.000 (min: 1500.000 / max: 2500.000) us", tostring(r))
  end)

  it("shows the mean alone for a single run, and a long name in full", function()
    local r = result_with({ 0.25 }, { { 1e-6 } }, { 0 })
    r.name = "a name longer than twenty"
    assert.are.equal("a name longer than twenty:    CPU:250000.000 us     GPU-0:    1.000 us",
      tostring(r))
  end)
end)

describe("profiler.benchmark", function()
  it("calls fn with args unpacked, n_warmup + n_repeat times", function()
    local calls, seen = 0, {}
    local r = benchmark(function(a, b, c)
      calls = calls + 1
      seen = { a, b, c }
    end, { 1, "two", 3 }, { n_repeat = 7, n_warmup = 2 })
    assert.are.equal(9, calls)
    assert.are.same({ 1, "two", 3 }, seen)
    assert.are.equal(7, r.cpu_times.size)
    assert.are.equal("float64", r.cpu_times.dtype)
    assert.are.equal("cpu", r.cpu_times.device)
  end)

  it("passes nil arguments through when args.n says how many", function()
    local got
    benchmark(function(...) got = select("#", ...) end, { n = 3, 1, nil, 3 },
      { n_repeat = 1, n_warmup = 0 })
    assert.are.equal(3, got)
  end)

  it("times the call on the host clock: a 2 ms busy loop reads about 2 ms", function()
    local r = benchmark(function()
      local t = cuarr.perf_counter()
      while cuarr.perf_counter() - t < 2e-3 do end
    end, {}, { n_repeat = 5, n_warmup = 1 })
    for i = 1, 5 do
      local t = r.cpu_times[i]
      assert.is_true(t >= 2e-3 and t < 0.5, tostring(t))
    end
  end)

  it("stops early after max_duration seconds", function()
    local r = benchmark(function()
      local t = cuarr.perf_counter()
      while cuarr.perf_counter() - t < 5e-3 do end
    end, {}, { n_repeat = 1000, n_warmup = 0, max_duration = 0.02 })
    local n = r.cpu_times.size -- each run takes 5 ms at least: 20 ms are over after 5 runs
    assert.is_true(n >= 1 and n <= 5, "runs: " .. n)
    assert.are.equal(n, r.gpu_times.shape[2])
  end)

  it("names the result after the option, else fn's name, else where fn is defined", function()
    assert.are.equal("mine", benchmark(noop, {}, { n_repeat = 1, name = "mine" }).name)
    assert.are.equal("noop", benchmark(noop, {}, { n_repeat = 1 }).name)
    local r = benchmark(function() end, {}, { n_repeat = 1 })
    assert.truthy(r.name:find("profiler_spec.lua:%d+$"), r.name)
  end)

  it("times a callable object, named after what it prints as", function()
    local calls = 0
    local callable = setmetatable({}, {
      __call = function() calls = calls + 1 end,
      __tostring = function() return "<a callable>" end,
    })
    local r = benchmark(callable, {}, { n_repeat = 3, n_warmup = 1 })
    assert.are.equal("<a callable>", r.name)
    assert.are.equal(4, calls)
    local k = cuarr.ElementwiseKernel("float64 x", "float64 y", "y = x", "named_copy")
    local e = assert.has_error(function() benchmark(k, { 1 }, { n_repeat = 1 }) end)
    assert.is_not_nil(e.kind, "an error object, not a plain string")
  end)

  it("raises what fn raises, after which a new call works", function()
    local ok, err = pcall(benchmark, function() error("boom") end, {}, { n_repeat = 2 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("boom"))
    assert.are.equal(3, benchmark(noop, {}, { n_repeat = 3 }).cpu_times.size)
  end)

  it("checks its arguments and options", function()
    H.raises("TypeError", benchmark, 42, {})
    H.raises("TypeError", benchmark, noop, "args")
    H.raises("TypeError", benchmark, noop, {}, "opts")
    H.raises("ValueError", benchmark, noop, {}, { n_repeats = 3 })
    H.raises("ValueError", benchmark, noop, {}, { n_repeat = 0 })
    H.raises("ValueError", benchmark, noop, {}, { n_repeat = -5 })
    H.raises("TypeError", benchmark, noop, {}, { n_repeat = 2.5 })
    H.raises("TypeError", benchmark, noop, {}, { n_repeat = "10" })
    H.raises("ValueError", benchmark, noop, {}, { n_warmup = -1 })
    H.raises("TypeError", benchmark, noop, {}, { max_duration = "1s" })
    H.raises("ValueError", benchmark, noop, {}, { max_duration = -1 })
    H.raises("ValueError", benchmark, noop, {}, { max_duration = 0 / 0 })
    H.raises("TypeError", benchmark, noop, {}, { name = 7 })
    H.raises("TypeError", benchmark, noop, { n = 1.5 }, { n_repeat = 1 })
    H.raises("ValueError", benchmark, noop, { n = -1 }, { n_repeat = 1 })
    H.raises("ValueError", benchmark, noop, setmetatable({}, { __len = function() return 1 << 40 end }),
      { n_repeat = 1 })
    H.raises("TypeError", benchmark, noop, {}, { devices = 0 })
    H.raises("TypeError", benchmark, noop, {}, { devices = { "0" } })
    assert.are.equal(2, benchmark(noop, {}, { n_repeat = 2.0 }).cpu_times.size)
  end)

  if not H.has_gpu then
    it("without a usable device times the CPU only: no GPU rows, no GPU part", function()
      local r = benchmark(noop, {}, { n_repeat = 4 })
      assert.are.same({}, r.devices)
      assert.are.equal(0, r.gpu_times.shape[1])
      assert.are.equal(4, r.gpu_times.shape[2])
      assert.is_nil(tostring(r):find("GPU"))
    end)
  end

  H.gpu_it("times the device with events: positive GPU times, one row per device", function()
    local a = cuarr.arange(1 << 22, "float32")
    local r = benchmark(function(x) return x * 2 + 1 end, { a }, { n_repeat = 20 })
    assert.are.same({ cuarr.get_device_id() }, r.devices)
    assert.are.same({ 1, 20 }, { r.gpu_times.shape[1], r.gpu_times.shape[2] })
    for i = 1, 20 do
      assert.is_true(r.gpu_times[1][i] > 0 and r.gpu_times[1][i] < 1)
      assert.is_true(r.cpu_times[i] > 0)
    end
    assert.truthy(tostring(r):find("GPU%-" .. cuarr.get_device_id() .. ":"))
  end)

  H.gpu_it("GPU time follows the work queued: 16 MiB copied 16 times takes longer than once",
    function()
      local a = cuarr.zeros(1 << 22, "float32")
      local function copies(k) for _ = 1, k do a:copy() end end
      local one = benchmark(copies, { 1 }, { n_repeat = 30 })
      local sixteen = benchmark(copies, { 16 }, { n_repeat = 30 })
      local function median(row)
        local t = {}
        for i = 1, row.size do t[i] = row[i] end
        table.sort(t)
        return t[(#t + 1) // 2]
      end
      assert.is_true(median(sixteen.gpu_times[1]) > 4 * median(one.gpu_times[1]))
    end)

  H.gpu_it("times each device asked for", function()
    local n = cuarr.runtime.device_count
    local ids = {}
    for d = 0, n - 1 do ids[#ids + 1] = d end
    local r = benchmark(noop, {}, { n_repeat = 3, devices = ids })
    assert.are.equal(n, r.gpu_times.shape[1])
    H.raises("ValueError", benchmark, noop, {}, { devices = { n + 5 } })
    H.raises("ValueError", benchmark, noop, {}, { devices = {} })
  end)
end)
