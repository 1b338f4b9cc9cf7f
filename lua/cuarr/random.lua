-- cuarr.random and cuarr.cpu.random: NumPy's legacy functions on a module-level state and
-- Generator objects (default_rng), drawing from a Philox4x32-10 stream.
--
-- The values come from kernels/include/philox.cuh, compiled into the host loops
-- (core.random_fill_host) and into the device program (core.random_program, launched here as a
-- RawModule), so one seed gives the same numbers on the host and the device.  A state is a seed
-- and a 64-bit counter; a draw of n values uses the Philox blocks from the counter on and
-- advances it by ceil(n / per_block), the same on both sides.  A permutation (permutation,
-- shuffle, choice without replacement) is the stable argsort of int64 keys drawn from the
-- stream, as CuPy permutes: made where it is used, the same on both sides.  choice with p draws
-- uniforms and searches the cumulative probabilities on the host.

local BLOCK_THREADS = 256
local BLOCKS_PER_SM = 8
local MAX_SEED_FLOAT = 2.0 ^ 63
-- A permutation's keys are drawn in [0, 2^62): a power of two, so no draw is retried, and two
-- of n keys agree with chance about n^2 / 2^63 (the stable sort then keeps their order).
local PERMUTATION_KEY_SPAN = 1 << 62

local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

local float_dtypes = { float32 = "float32", f = "float32", float64 = "float64", d = "float64" }
local int_dtypes = {
  int8 = "int8", b = "int8", int16 = "int16", h = "int16", int32 = "int32", i = "int32",
  int64 = "int64", l = "int64", q = "int64", uint8 = "uint8", B = "uint8", uint16 = "uint16",
  H = "uint16", uint32 = "uint32", I = "uint32", uint64 = "uint64", L = "uint64", Q = "uint64",
}
-- Each integer dtype's range (uint64's upper half is beyond Lua's integers: not reachable).
local int_limits = {
  int8 = { -128, 127 }, int16 = { -32768, 32767 }, int32 = { -2147483648, 2147483647 },
  int64 = { math.mininteger, math.maxinteger }, uint8 = { 0, 255 }, uint16 = { 0, 65535 },
  uint32 = { 0, 4294967295 }, uint64 = { 0, math.maxinteger },
}
local int_width = { int8 = 1, uint8 = 1, int16 = 2, uint16 = 2, int32 = 4, uint32 = 4, int64 = 8,
                    uint64 = 8 }

-- The device kernel of each (distribution, dtype).
local kernel_names = { integers = {} }
for _, dist in ipairs { "uniform", "normal", "exponential" } do
  kernel_names[dist] = {}
  for _, dtype in ipairs { "float32", "float64" } do
    kernel_names[dist][dtype] = "cuarr_random_" .. dist .. "_" .. dtype
  end
end
for dtype, width in pairs(int_width) do
  kernel_names.integers[dtype] = "cuarr_random_integers_" .. width
end

return function(M, cpu, core)
  local raise = core.raise
  local ndarray = core.metatables.ndarray

  local function is_array(x) return getmetatable(x) == ndarray end

  -- A seed: an integer in [0, 2^63) (a float with such an integral value too); nil draws one
  -- from the clock and an address.
  local function check_seed(s, fn)
    if s == nil then
      local address = tonumber(tostring({}):match("0x(%x+)") or "0", 16) or 0
      return (os.time() * 1000003 ~ address ~ math.floor(os.clock() * 1e6)) & math.maxinteger
    end
    if type(s) ~= "number" then
      raise("TypeError", fn .. ": the seed must be an integer, got " .. type(s))
    end
    if math.type(s) == "float" then
      if s ~= s or s == math.huge or s == -math.huge or s ~= math.floor(s) then
        raise("TypeError", fn .. ": the seed must be an integer, got " .. tostring(s))
      end
      if s < 0 or s >= MAX_SEED_FLOAT then
        raise("ValueError", fn .. ": the seed must be in [0, 2^63), got " .. tostring(s))
      end
      s = math.tointeger(s)
    end
    if s < 0 then
      raise("ValueError", fn .. ": the seed must be non-negative, got " .. tostring(s))
    end
    return s
  end

  -- A shape from a size argument: nil (a scalar), a count or a table of counts.
  local function check_size(size, fn)
    if size == nil then return nil end
    local shape
    if type(size) == "number" then
      shape = { size }
    elseif type(size) == "table" and not is_array(size) then
      -- read raw: a size is a plain sequence, and a hostile __len or __index cannot run
      shape = {}
      for i = 1, list_len(size) do shape[i] = list_get(size, i) end
    else
      raise("TypeError", fn .. ": size must be a number or a table of numbers, got " .. type(size))
    end
    for i, d in ipairs(shape) do
      if type(d) ~= "number" or math.tointeger(d) == nil then
        raise("TypeError", fn .. ": size entries must be integers, got "
          .. (type(d) == "number" and tostring(d) or type(d)) .. " at position " .. i)
      end
      if d < 0 then
        raise("ValueError", fn .. ": negative dimensions are not allowed (" .. tostring(d)
          .. " at position " .. i .. ")")
      end
      shape[i] = math.tointeger(d)
    end
    return shape
  end

  local function check_dtype(dtype, table_, default, fn, what)
    if dtype == nil then return default end
    if type(dtype) ~= "string" then
      raise("TypeError", fn .. ": dtype must be a string, got " .. type(dtype))
    end
    local d = table_[dtype]
    if not d then
      raise("TypeError", fn .. ": unsupported dtype '" .. dtype .. "' (" .. what .. ")")
    end
    return d
  end

  local function check_number(x, default, fn, name)
    if x == nil then return default end
    if type(x) ~= "number" then
      raise("TypeError", fn .. ": " .. name .. " must be a number, got " .. type(x))
    end
    if x ~= x or x == math.huge or x == -math.huge then
      raise("ValueError", fn .. ": " .. name .. " must be finite, got " .. tostring(x))
    end
    return x + 0.0
  end

  local function check_integer(x, fn, name)
    if type(x) ~= "number" then
      raise("TypeError", fn .. ": " .. name .. " must be an integer, got " .. type(x))
    end
    local i = math.tointeger(x)
    if i == nil then
      raise("TypeError", fn .. ": " .. name .. " must be an integer, got " .. tostring(x))
    end
    return i
  end

  local function check_opts(opts, fn)
    if opts == nil then return nil end
    if type(opts) ~= "table" or is_array(opts) then
      raise("TypeError", fn .. ": options must be a table, got " .. type(opts))
    end
    core.check_options(opts, fn, { "out" })
    return list_get(opts, "out")
  end

  -- One namespace: on_device = true for cuarr.random (device arrays), false for cuarr.cpu.random.
  local function namespace(xp, on_device)
    local R = {}

    -- The device program, compiled once per device, its kernels looked up once (a lookup reads
    -- the kernel's parameters), and each device's grid limit.
    local modules, kernels, grid_limit = {}, {}, {}
    local function kernel(name)
      local dev = M.get_device_id()
      local mod = modules[dev]
      if not mod then
        mod = M.RawModule { code = core.random_program(), options = { "-fmad=false" } }
        modules[dev] = mod
        kernels[dev] = {}
        grid_limit[dev] = M.Device(dev).properties.multiprocessors * BLOCKS_PER_SM
      end
      local k = kernels[dev][name]
      if not k then
        k = mod:get_function(name)
        kernels[dev][name] = k
      end
      return k, grid_limit[dev]
    end

    local function check_out(out, fn, dtypes, what)
      if not is_array(out) then
        raise("TypeError", fn .. ": out must be an array, got " .. type(out))
      end
      if (out.device ~= "cpu") ~= on_device then
        raise("TypeError", fn .. ": out must be a " .. (on_device and "device" or "host")
          .. " array")
      end
      local dtype = out.dtype
      if not dtypes[dtype] then
        raise("TypeError", fn .. ": out's dtype " .. dtype .. " is not " .. what)
      end
      return dtype
    end

    -- Fill `target` (a device or host array) with the draw and advance the state.
    local function fill(state, target, dist, a, b, low, m)
      core.check_writeable(target) -- the device draw is a kernel of its own: no core check
      local n, dtype = target.size, target.dtype
      local per = core.random_per_block(dist, dtype, m)
      local blocks = (n + per - 1) // per
      if n > 0 then
        local on_host = target.device == "cpu"
        local dense = target
        if not target:is_c_contiguous() then
          dense = (on_host and cpu or M).empty(target.shape, dtype)
        end
        if not on_host then
          local k, limit = kernel(kernel_names[dist][dtype])
          local grid = math.max(1, math.min(limit, (blocks + BLOCK_THREADS - 1) // BLOCK_THREADS))
          if dist == "integers" then
            k(grid, BLOCK_THREADS, { dense, n, state.seed, state.counter, low, m })
          else
            k(grid, BLOCK_THREADS, { dense, n, state.seed, state.counter, a, b })
          end
        else
          core.random_fill_host(dense, dist, state.seed, state.counter, a, b, low, m)
        end
        if dense ~= target then target[{}] = dense end
      end
      state.counter = state.counter + blocks
      return target
    end

    -- A draw of the given size (nil: a scalar) or into out.
    local function draw(state, fn, size, dtype, out, dtypes, default, what, dist, a, b, low, m)
      local shape = check_size(size, fn)
      dtype = check_dtype(dtype, dtypes, nil, fn, what)
      if out ~= nil then
        local out_dtype = check_out(out, fn, dtypes, what)
        if dtype and dtype ~= out_dtype then
          raise("TypeError", fn .. ": out's dtype " .. out_dtype .. " is not " .. dtype)
        end
        if shape then
          local same = #shape == out.ndim
          for i = 1, #shape do same = same and shape[i] == out.shape[i] end
          if not same then raise("ValueError", fn .. ": size does not match out's shape") end
        end
        return fill(state, out, dist, a, b, low, m)
      end
      dtype = dtype or default
      local result = fill(state, xp.empty(shape or {}, dtype), dist, a, b, low, m)
      if shape == nil and not on_device then return result:item() end
      return result
    end

    local floats_what = "float32 or float64"
    local function floats(state, fn, size, dtype, opts, dist, a, b)
      return draw(state, fn, size, dtype, check_opts(opts, fn), float_dtypes, "float64",
        floats_what, dist, a, b, 0, 0)
    end

    -- integers in [low, high) (or [low, high] with endpoint) of dtype.
    local function integers(state, fn, low, high, size, dtype, endpoint)
      if low == nil then raise("TypeError", fn .. ": low is required") end
      low = check_integer(low, fn, "low")
      if high == nil then
        low, high = 0, low
      else
        high = check_integer(high, fn, "high")
      end
      if endpoint ~= nil and type(endpoint) ~= "boolean" then
        raise("TypeError", fn .. ": endpoint must be a boolean, got " .. type(endpoint))
      end
      dtype = check_dtype(dtype, int_dtypes, "int64", fn, "an integer dtype")
      local hi = high
      if not endpoint then
        if low >= high then
          raise("ValueError", fn .. ": low >= high (" .. low .. " >= " .. high .. ")")
        end
        hi = high - 1
      elseif low > high then
        raise("ValueError", fn .. ": low > high (" .. low .. " > " .. high .. ")")
      end
      local limits = int_limits[dtype]
      if low < limits[1] or hi > limits[2] then
        raise("ValueError", fn .. ": [" .. low .. ", " .. hi .. "] is out of bounds for "
          .. dtype)
      end
      return draw(state, fn, size, dtype, nil, int_dtypes, dtype, "an integer dtype", "integers",
        0, 0, low, hi - low)
    end

    -- A permutation of 1 .. n (an int64 array of this namespace's side) from the state's
    -- stream: the stable argsort of n keys.
    local function permutation_of(state, n)
      local keys = xp.empty(n, "int64")
      fill(state, keys, "integers", 0, 0, 0, PERMUTATION_KEY_SPAN - 1)
      local ok, perm = pcall(xp.argsort, keys)
      if ok then return perm end
      -- a build without the device sort library (no nvcc): the host sorts the same keys alike
      if not (on_device and M.is_error(perm, "NotAvailable")) then error(perm, 0) end
      return M.to_device(cpu.argsort(keys:get()))
    end

    -- The rows of x in the order of perm (0-based host int64), as a new array of x's kind.
    local function take_rows(x, rows)
      local src = x.device == "cpu" and x or x:get()
      src = cpu.ascontiguousarray(src)
      local shape = {}
      for i = 1, src.ndim do shape[i] = src.shape[i] end
      shape[1] = rows.size
      local dst = cpu.empty(shape, src.dtype)
      core.random_take_rows_host(dst, src, rows)
      if x.device == "cpu" then return dst end
      return M.to_device(dst)
    end

    local function check_sequence(x, fn)
      if not is_array(x) then
        raise("TypeError", fn .. ": argument must be an integer or an array, got " .. type(x))
      end
      if (x.device ~= "cpu") ~= on_device then
        raise("TypeError", fn .. ": the array must be a " .. (on_device and "device" or "host")
          .. " array")
      end
      if x.ndim < 1 then raise("ValueError", fn .. ": x must be at least 1-D") end
    end

    -- The methods, on a state (the module's, or a Generator's).
    local methods = {}

    function methods.random(state, size, dtype, opts)
      return floats(state, "random", size, dtype, opts, "uniform", 0.0, 1.0)
    end

    function methods.uniform(state, low, high, size, dtype, opts)
      low = check_number(low, 0.0, "uniform", "low")
      high = check_number(high, 1.0, "uniform", "high")
      if high - low == math.huge or high - low == -math.huge then
        raise("ValueError", "uniform: high - low overflows")
      end
      return floats(state, "uniform", size, dtype, opts, "uniform", low, high - low)
    end

    function methods.standard_normal(state, size, dtype, opts)
      return floats(state, "standard_normal", size, dtype, opts, "normal", 0.0, 1.0)
    end

    function methods.normal(state, loc, scale, size, dtype, opts)
      loc = check_number(loc, 0.0, "normal", "loc")
      scale = check_number(scale, 1.0, "normal", "scale")
      if scale < 0 then raise("ValueError", "normal: scale < 0") end
      return floats(state, "normal", size, dtype, opts, "normal", loc, scale)
    end

    function methods.exponential(state, scale, size, dtype, opts)
      scale = check_number(scale, 1.0, "exponential", "scale")
      if scale < 0 then raise("ValueError", "exponential: scale < 0") end
      return floats(state, "exponential", size, dtype, opts, "exponential", scale, 0.0)
    end

    function methods.integers(state, low, high, size, dtype, endpoint)
      return integers(state, "integers", low, high, size, dtype, endpoint)
    end

    function methods.permutation(state, x)
      if type(x) == "number" then
        local n = check_integer(x, "permutation", "x")
        if n < 0 then raise("ValueError", "permutation: x must be non-negative") end
        return permutation_of(state, n) - 1
      end
      check_sequence(x, "permutation")
      return xp.take(x, permutation_of(state, x.shape[1]), 1)
    end

    function methods.shuffle(state, x)
      check_sequence(x, "shuffle")
      x[{}] = xp.take(x, permutation_of(state, x.shape[1]), 1)
    end

    -- choice(a, size, replace, p): a is a count n (choose from 0 .. n-1) or a 1-D array.
    function methods.choice(state, a, size, replace, p)
      local n
      if type(a) == "number" then
        n = check_integer(a, "choice", "a")
        if n < 0 then raise("ValueError", "choice: a must be non-negative") end
      else
        check_sequence(a, "choice")
        if a.ndim ~= 1 then raise("ValueError", "choice: a must be 1-D") end
        n = a.size
      end
      if replace == nil then replace = true end
      if type(replace) ~= "boolean" then
        raise("TypeError", "choice: replace must be a boolean, got " .. type(replace))
      end
      local shape = check_size(size, "choice") or {}
      local count = 1
      for _, d in ipairs(shape) do count = count * d end
      if n == 0 and count > 0 then
        raise("ValueError", "choice: a cannot be empty unless no samples are taken")
      end
      local rows
      if p ~= nil then
        local probs = p
        if is_array(p) then probs = (p.device == "cpu" and p or p:get()):totable() end
        if type(probs) ~= "table" or list_len(probs) ~= n then
          raise("ValueError", "choice: p must be a sequence of " .. n .. " probabilities")
        end
        local cdf, total = {}, 0.0
        for i = 1, n do
          local q = list_get(probs, i)
          if type(q) ~= "number" or q ~= q or q < 0 then
            raise("ValueError", "choice: probabilities must be non-negative numbers")
          end
          total = total + q
          cdf[i] = total
        end
        if math.abs(total - 1.0) > 1e-8 then
          raise("ValueError", "choice: probabilities do not sum to 1")
        end
        if not replace then
          raise("ValueError", "choice: p without replacement is not supported")
        end
        -- Inverse CDF of uniforms drawn on the host (the same stream on both sides).
        local u = cpu.empty(count, "float64")
        fill(state, u, "uniform", 0.0, 1.0, 0, 0)
        local ut = u:totable()
        local picks = {}
        for i = 1, count do
          local x, lo, hi = ut[i] * total, 1, n
          while lo < hi do
            local mid = (lo + hi) // 2
            if cdf[mid] > x then hi = mid else lo = mid + 1 end
          end
          while list_get(probs, lo) == 0 and lo > 1 do lo = lo - 1 end
          picks[i] = lo - 1
        end
        rows = cpu.asarray(picks, "int64")
        if count == 0 then rows = cpu.empty(0, "int64") end
      elseif replace then
        rows = cpu.empty(count, "int64")
        if count > 0 then
          fill(state, rows, "integers", 0, 0, 0, n - 1)
        end
      else
        if count > n then
          raise("ValueError", "choice: cannot take a larger sample than the population when "
            .. "replace is false")
        end
        local perm = permutation_of(state, n)[{ { 1, count } }] - 1
        rows = cpu.ascontiguousarray(on_device and perm:get() or perm)
        if count == 0 then rows = cpu.empty(0, "int64") end
      end
      local result
      if type(a) == "number" then
        result = rows
        if on_device then result = M.to_device(rows) end
      else
        result = take_rows(a, rows)
      end
      if size == nil then
        local value = result:reshape({})
        if on_device then return value end
        return value:item()
      end
      return result:reshape(shape)
    end

    -- The Generator class: a state of its own and the methods above.
    local Generator = { __name = "cuarr.random.Generator" }
    Generator.__index = {}
    local function check_generator(g)
      if getmetatable(g) ~= Generator then
        raise("TypeError", "argument #1 must be a Generator, got " .. type(g))
      end
    end
    -- How many arguments each method takes after its state: more are a TypeError, as for
    -- every cuarr function, not silently ignored.
    local ARITY = { random = 3, uniform = 5, standard_normal = 3, normal = 5, exponential = 4,
                    integers = 5, permutation = 1, shuffle = 1, choice = 4 }
    local function check_arity(name, ...)
      local n = select("#", ...)
      if n > ARITY[name] then
        raise("TypeError", name .. " takes at most " .. ARITY[name] .. " arguments, got " .. n)
      end
    end
    for name, fn in pairs(methods) do
      Generator.__index[name] = function(g, ...)
        check_generator(g)
        check_arity(name, ...)
        return fn(g, ...)
      end
    end
    Generator.__tostring = function(g)
      check_generator(g)
      return "Generator(Philox4x32-10, seed=" .. g.seed .. ")"
    end

    function R.default_rng(seed, ...)
      if select("#", ...) > 0 then raise("TypeError", "default_rng takes at most 1 argument") end
      if getmetatable(seed) == Generator then return seed end
      return setmetatable({ seed = check_seed(seed, "default_rng"), counter = 0 }, Generator)
    end

    -- The legacy functions, on the module's state.
    local legacy = { seed = check_seed(nil, "seed"), counter = 0 }
    function R.seed(s, ...)
      if select("#", ...) > 0 then raise("TypeError", "seed takes at most 1 argument") end
      legacy.seed = check_seed(s, "seed")
      legacy.counter = 0
    end
    for name, fn in pairs(methods) do
      R[name] = function(...)
        check_arity(name, ...)
        return fn(legacy, ...)
      end
    end
    R.random_sample = R.random
    R.ranf = R.random
    R.sample = R.random
    local function dims(fn, ...)
      local shape = {}
      for i = 1, select("#", ...) do shape[i] = select(i, ...) end
      if #shape == 0 then return nil end
      check_size(shape, fn)
      return shape
    end
    function R.rand(...) return methods.random(legacy, dims("rand", ...)) end
    function R.randn(...) return methods.standard_normal(legacy, dims("randn", ...)) end
    function R.randint(low, high, size, dtype, ...)
      if select("#", ...) > 0 then raise("TypeError", "randint takes at most 4 arguments") end
      return integers(legacy, "randint", low, high, size, dtype, false)
    end
    R.Generator = Generator
    return R
  end

  M.random = namespace(M, true)
  cpu.random = namespace(cpu, false)
end
