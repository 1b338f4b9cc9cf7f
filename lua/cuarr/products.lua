-- dot, vdot, inner, outer, tensordot, kron and trace: NumPy's products, composed from matmul,
-- multiply, sum, diagonal and views, so that they take host and device arrays alike (the
-- arrays' own module does the work, and mixing the two is the underlying operation's error).
--
-- Axes are 1-based, negative from the end.  A Lua number (or boolean) operand is a weak scalar,
-- as in the ufuncs: where NumPy would multiply a 0-d operand, it goes to multiply.  A given
-- `out` gets the result under matmul's rules (same shape, 'same_kind' cast), or multiply's where
-- multiply makes the result; where the result is computed aside first, an error leaves `out` as
-- it was.
local type, getmetatable, ipairs = type, getmetatable, ipairs
local max = math.max
local fmt, unpack = string.format, table.unpack
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local ndarray = core.metatables.ndarray
  local get_array_module = M.get_array_module

  local function is_array(x) return getmetatable(x) == ndarray end
  local function is_scalar(x) return type(x) == "number" or type(x) == "boolean" end
  local function ndim(x) return is_array(x) and x.ndim or 0 end

  -- A plain copy of x's shape ({} for a scalar), free to be changed.
  local function shape_of(x)
    local s = {}
    if is_array(x) then
      for i, n in ipairs(x.shape) do s[i] = n end
    end
    return s
  end

  local function check_operand(name, x, i)
    if not is_array(x) and not is_scalar(x) then
      raise("TypeError", fmt("%s: argument #%d must be an array or a number, got %s", name, i,
        type(x)))
    end
  end

  local function check_out(name, out)
    if out ~= nil and not is_array(out) then
      raise("TypeError", fmt("%s: out must be an array, got %s", name, type(out)))
    end
  end

  -- The module of the arrays among the operands; `home` when there are none, so that
  -- cuarr.cpu.dot(2, 3) is a host array and cuarr.dot(2, 3) a device one.
  local function module_for(home, a, b)
    if is_array(a) or is_array(b) then return get_array_module(a, b) end
    return home
  end

  local fit_out, deliver, integer = support.check_out, support.deliver, support.integer
  local shape_str = support.shape_str

  local function axis_index(name, v, nd)
    local ax = integer(name, "an axis", v)
    local i = ax < 0 and nd + 1 + ax or ax
    if i < 1 or i > nd then
      raise("IndexError", fmt("%s: axis %d is out of bounds for an array of %d dimensions "
        .. "(axes are 1-based)", name, ax, nd))
    end
    return i
  end

  -- x * y over every pair of their elements: the shape of x followed by the shape of y.
  local function outer_nd(xp, x, y)
    if is_array(x) and ndim(y) > 0 then
      local s = shape_of(x)
      for _ = 1, y.ndim do s[#s + 1] = 1 end
      x = xp.reshape(x, s)
    end
    return xp.multiply(x, y)
  end

  -- The sum of products over axes ca of a paired with axes cb of b (checked, distinct): the free
  -- axes of a then those of b.  Free and summed axes are gathered into one matrix product.
  local function contract(name, xp, a, b, ca, cb)
    local sa, sb = shape_of(a), shape_of(b)
    for i = 1, #ca do
      if sa[ca[i]] ~= sb[cb[i]] then
        raise("ValueError", fmt("%s: shape mismatch for sum: %s (axis %d) and %s (axis %d)",
          name, shape_str(sa), ca[i], shape_str(sb), cb[i]))
      end
    end
    if #ca == 0 then return outer_nd(xp, a, b) end
    local summed_a, summed_b = {}, {}
    for i = 1, #ca do summed_a[ca[i]], summed_b[cb[i]] = true, true end
    local perm_a, perm_b, shape = {}, {}, {}
    local m, k, n = 1, 1, 1
    for ax = 1, #sa do
      if not summed_a[ax] then
        perm_a[#perm_a + 1], shape[#shape + 1], m = ax, sa[ax], m * sa[ax]
      end
    end
    for i = 1, #ca do
      perm_a[#perm_a + 1], perm_b[i], k = ca[i], cb[i], k * sa[ca[i]]
    end
    for ax = 1, #sb do
      if not summed_b[ax] then
        perm_b[#perm_b + 1], shape[#shape + 1], n = ax, sb[ax], n * sb[ax]
      end
    end
    local a2 = xp.reshape(xp.transpose(a, perm_a), { m, k })
    local b2 = xp.reshape(xp.transpose(b, perm_b), { k, n })
    return xp.reshape(xp.matmul(a2, b2), shape)
  end

  local function dot(home, a, b, out)
    check_operand("dot", a, 1)
    check_operand("dot", b, 2)
    check_out("dot", out)
    local xp = module_for(home, a, b)
    if ndim(a) == 0 or ndim(b) == 0 then return xp.multiply(a, b, out) end
    local sa, sb = shape_of(a), shape_of(b)
    local kb = #sb == 1 and 1 or #sb - 1
    if sa[#sa] ~= sb[kb] then
      raise("ValueError", fmt("dot: shapes %s and %s not aligned: %d (axis %d) ~= %d (axis %d)",
        shape_str(sa), shape_str(sb), sa[#sa], #sa, sb[kb], kb))
    end
    -- matmul agrees with dot unless b is a stack of matrices, which matmul would broadcast
    -- against a's where dot pairs every one with every row of a.
    if #sa == 1 or #sb <= 2 then return xp.matmul(a, b, out) end
    if out ~= nil then
      local shape = { unpack(sa, 1, #sa - 1) }
      for i = 1, #sb do
        if i ~= kb then shape[#shape + 1] = sb[i] end
      end
      fit_out("dot", out, a.device, shape)
    end
    return deliver("dot", contract("dot", xp, a, b, { #sa }, { kb }), out)
  end

  local function vdot(home, a, b)
    check_operand("vdot", a, 1)
    check_operand("vdot", b, 2)
    local na, nb = is_array(a) and a.size or 1, is_array(b) and b.size or 1
    if na ~= nb then
      raise("ValueError", fmt("vdot: the operands must have as many elements, got %d and %d",
        na, nb))
    end
    local xp = module_for(home, a, b)
    if is_array(a) and is_array(b) then return xp.matmul(xp.ravel(a), xp.ravel(b)) end
    -- a scalar: the other operand has one element
    if is_array(a) then a = xp.reshape(a, {}) end
    if is_array(b) then b = xp.reshape(b, {}) end
    return xp.multiply(a, b)
  end

  local function inner(home, a, b)
    check_operand("inner", a, 1)
    check_operand("inner", b, 2)
    local xp = module_for(home, a, b)
    if ndim(a) == 0 or ndim(b) == 0 then return xp.multiply(a, b) end
    return contract("inner", xp, a, b, { a.ndim }, { b.ndim })
  end

  local function outer(home, a, b, out)
    check_operand("outer", a, 1)
    check_operand("outer", b, 2)
    check_out("outer", out)
    local xp = module_for(home, a, b)
    if not is_array(a) and not is_array(b) then
      return deliver("outer", xp.reshape(xp.multiply(a, b), { 1, 1 }), out)
    end
    local column = is_array(a) and xp.reshape(a, { a.size, 1 }) or a
    local row = is_array(b) and xp.reshape(b, { 1, b.size }) or b
    return xp.multiply(column, row, out)
  end

  -- One side of tensordot's axes: an axis or a sequence of them (read raw: a hostile __len or
  -- __index cannot run), each in range, none twice.
  local function read_side(spec, nd, side)
    local list = {}
    if type(spec) == "number" then
      list[1] = spec
    elseif type(spec) == "table" and not is_array(spec) then
      for i = 1, list_len(spec) do list[i] = list_get(spec, i) end
    else
      raise("TypeError", fmt("tensordot: the axes of %s must be an integer or a table of them, "
        .. "got %s", side, type(spec)))
    end
    local seen = {}
    for i = 1, #list do
      local ax = axis_index("tensordot", list[i], nd)
      if seen[ax] then
        raise("ValueError", fmt("tensordot: axis %d of %s is repeated", ax, side))
      end
      seen[ax], list[i] = true, ax
    end
    return list
  end

  -- axes: a count n (the last n axes of a with the first n of b) or {axes of a, axes of b}.
  local function read_axes(axes, nda, ndb)
    if axes == nil then axes = 2 end
    if type(axes) == "number" then
      local n = integer("tensordot", "axes", axes)
      if n < 0 or n > nda or n > ndb then
        raise("ValueError", fmt("tensordot: axes = %d must be 0 to the dimensions of the "
          .. "operands (%d and %d)", n, nda, ndb))
      end
      local ca, cb = {}, {}
      for i = 1, n do ca[i], cb[i] = nda - n + i, i end
      return ca, cb
    end
    if type(axes) ~= "table" or is_array(axes) then
      raise("TypeError", "tensordot: axes must be an integer or a table {axes of a, axes of b}, "
        .. "got " .. type(axes))
    end
    if list_len(axes) ~= 2 then
      raise("ValueError", "tensordot: axes must be a pair {axes of a, axes of b}, got "
        .. list_len(axes) .. " entries")
    end
    local ca, cb = read_side(list_get(axes, 1), nda, "a"), read_side(list_get(axes, 2), ndb, "b")
    if #ca ~= #cb then
      raise("ValueError", fmt("tensordot: %d axes of a but %d of b", #ca, #cb))
    end
    return ca, cb
  end

  local function tensordot(home, a, b, axes)
    check_operand("tensordot", a, 1)
    check_operand("tensordot", b, 2)
    local ca, cb = read_axes(axes, ndim(a), ndim(b))
    return contract("tensordot", module_for(home, a, b), a, b, ca, cb)
  end

  -- Each element of a times the whole of b, in a's place: a's shape and b's interleaved (the
  -- shorter one padded with leading ones), multiplied by broadcasting, then merged pairwise.
  local function kron(home, a, b)
    check_operand("kron", a, 1)
    check_operand("kron", b, 2)
    local xp = module_for(home, a, b)
    local sa, sb = shape_of(a), shape_of(b)
    local nd = max(#sa, #sb)
    local pa, pb = nd - #sa, nd - #sb
    local spread_a, spread_b, shape = {}, {}, {}
    for i = 1, nd do
      local ea, eb = sa[i - pa] or 1, sb[i - pb] or 1
      spread_a[2 * i - 1], spread_a[2 * i] = ea, 1
      spread_b[2 * i - 1], spread_b[2 * i] = 1, eb
      shape[i] = ea * eb
    end
    if is_array(a) then a = xp.reshape(a, spread_a) end
    if is_array(b) then b = xp.reshape(b, spread_b) end
    return xp.reshape(xp.multiply(a, b), shape)
  end

  local function trace(a, offset, axis1, axis2, dtype)
    if not is_array(a) then
      raise("TypeError", "trace: argument #1 must be an array, got " .. type(a))
    end
    if dtype ~= nil and type(dtype) ~= "string" then
      raise("TypeError", "trace: dtype must be a string, got " .. type(dtype))
    end
    local xp = get_array_module(a)
    return xp.sum(xp.diagonal(a, offset, axis1, axis2), -1, { dtype = dtype })
  end

  -- ---------------------------------------------------------------- wiring

  for _, home in ipairs { M, cpu } do
    home.dot = function(a, b, out) return dot(home, a, b, out) end
    home.vdot = function(a, b) return vdot(home, a, b) end
    home.inner = function(a, b) return inner(home, a, b) end
    home.outer = function(a, b, out) return outer(home, a, b, out) end
    home.tensordot = function(a, b, axes) return tensordot(home, a, b, axes) end
    home.kron = function(a, b) return kron(home, a, b) end
    home.trace = trace
  end

  local methods = ndarray.methods
  function methods.dot(a, b, out)
    if not is_array(a) then
      raise("TypeError", "dot: argument #1 must be an array, got " .. type(a))
    end
    return dot(cpu, a, b, out)
  end
  methods.trace = trace
end
