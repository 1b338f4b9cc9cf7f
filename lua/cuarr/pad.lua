-- cuarr.pad and cuarr.cpu.pad: NumPy's pad, modes constant, edge, reflect, symmetric and wrap.
--
-- pad(a, pad_width[, mode | {mode = , constant_values = }]).  pad_width as NumPy's: n, {n},
-- {before, after}, {{before, after}} or one {before, after} (or {n}) per axis; constant_values
-- likewise (default 0).  The result is allocated once (filled with the constant when there is
-- one constant), a copied into its middle, and the pads written axis by axis from views of
-- what is already there, as NumPy does: each axis's pads span the earlier axes' pads, so the
-- corners come from the last padded axis.  Reflect, symmetric and wrap pads wider than the axis
-- are written in chunks that double each round (NumPy's order, NumPy's values).
local type, getmetatable, tostring = type, getmetatable, tostring
local fmt, min = string.format, math.min
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

return function(M, cpu, core)
  local raise = core.raise
  local ndarray = core.metatables.ndarray
  local integer = support.integer

  local function is_array(x) return getmetatable(x) == ndarray end
  local function is_list(x) return type(x) == "table" and not is_array(x) end

  local MODES = { constant = true, edge = true, reflect = true, symmetric = true, wrap = true }

  -- v broadcast to ndim pairs, NumPy's (ndim, 2) broadcast of pad_width or constant_values;
  -- read(name, what, x) checks each entry.  The tables are data: read raw (a hostile __len or
  -- __index must not decide their counts or entries).
  local function pairs_of(v, ndim, what, read)
    local function pair(p, where)
      if not is_list(p) then
        local x = read(where, p)
        return { x, x }
      end
      if list_len(p) == 1 then
        local x = read(where .. "[1]", list_get(p, 1))
        return { x, x }
      end
      if list_len(p) ~= 2 then
        raise("ValueError", fmt("pad: %s%s must hold 1 or 2 values (before, after), got %d",
          what, where, list_len(p)))
      end
      return { read(where .. "[1]", list_get(p, 1)), read(where .. "[2]", list_get(p, 2)) }
    end
    local out = {}
    if not is_list(v) or (list_len(v) >= 1 and not is_list(list_get(v, 1))) then
      -- a number, {n} or {before, after}: the same for every axis
      if is_list(v) and list_len(v) > 2 then
        raise("ValueError", fmt("pad: %s of %d numbers does not broadcast to (%d, 2)", what,
          list_len(v), ndim))
      end
      local p = pair(v, "")
      for d = 1, ndim do out[d] = p end
      return out
    end
    local n = list_len(v)
    if n ~= 1 and n ~= ndim then
      raise("ValueError", fmt("pad: %s has %d pairs for an array of %d dimensions", what, n,
        ndim))
    end
    for d = 1, ndim do
      local entry = list_get(v, n == 1 and 1 or d)
      if not is_list(entry) then
        raise("TypeError", fmt("pad: %s[%d] must be a table, got %s", what, d, type(entry)))
      end
      out[d] = pair(entry, "[" .. d .. "]")
    end
    return out
  end

  local function width_of(where, x)
    local w = integer("pad", "pad_width" .. where, x)
    if w < 0 then
      raise("ValueError", fmt("pad: pad_width%s must not be negative, got %d", where, w))
    end
    return w
  end

  local function value_of(where, x)
    if type(x) ~= "number" and type(x) ~= "boolean" then
      raise("TypeError", fmt("pad: constant_values%s must be a number or a boolean, got %s",
        where, type(x)))
    end
    return x
  end

  local whole, span = support.whole_index, support.range_index
  -- the reverse of span(lo, hi)
  local function span_reversed(lo, hi)
    if hi <= lo then return { 2, 1 } end
    return { hi, lo + 1, -1 }
  end

  -- NumPy's region of interest for axis ax: every element of the axes before it and of ax,
  -- the original area of the axes after it.
  local function roi_index(ndim, ax, shape, widths)
    local index = whole(ndim)
    for d = ax + 1, ndim do index[d] = span(widths[d][1], widths[d][1] + shape[d]) end
    return index
  end

  -- out[roi with axis ax at dst] = out[roi with axis ax at src]
  local function move(out, roi, ax, dst, src)
    local di, si = {}, {}
    for d = 1, #roi do di[d], si[d] = roi[d], roi[d] end
    di[ax], si[ax] = dst, src
    out[di] = out[si]
  end

  local function set(out, roi, ax, dst, value)
    local di = {}
    for d = 1, #roi do di[d] = roi[d] end
    di[ax] = dst
    out[di] = value
  end

  -- Edge: each pad is the edge element of the region, broadcast.
  local function pad_edge(out, roi, ax, left, right, len)
    if left > 0 then move(out, roi, ax, span(0, left), span(left, left + 1)) end
    if right > 0 then
      move(out, roi, ax, span(left + len, left + len + right),
        span(left + len - 1, left + len))
    end
  end

  -- Reflect (symmetric: the edge included), NumPy's _set_reflect_both until filled.
  local function pad_reflect(out, roi, ax, left, right, period, symmetric)
    local total = out.shape[ax]
    while left > 0 or right > 0 do
      local old = total - left - right
      local edge
      if symmetric then
        old, edge = old // period * period, 1
      else
        old, edge = (old - 1) // (period - 1) * (period - 1), 0
      end
      if left > 0 then
        local chunk = min(old, left)
        local stop = left - edge           -- the source runs from stop + chunk down to stop + 1
        move(out, roi, ax, span(left - chunk, left), span_reversed(stop + 1, stop + chunk + 1))
        left = left - chunk
      end
      if right > 0 then
        local chunk = min(old, right)
        -- NumPy's slice(start, start - chunk, -1) with start = -right + edge - 2
        local start = total - right + edge - 2
        move(out, roi, ax, span(total - right, total - right + chunk),
          span_reversed(start - chunk + 1, start + 1))
        right = right - chunk
      end
    end
  end

  -- Wrap, NumPy's _set_wrap_both until filled.
  local function pad_wrap(out, roi, ax, left, right, len)
    local total = out.shape[ax]
    local original = total - right - left
    original = original - original % len
    while left > 0 or right > 0 do
      local period = (total - right - left) // original * original
      local new_left, new_right = 0, 0
      if left > 0 then
        local stop = left + period
        local start = stop - min(period, left)
        if left > period then
          move(out, roi, ax, span(left - period, left), span(start, stop))
          new_left = left - period
        else
          move(out, roi, ax, span(0, left), span(start, stop))
        end
      end
      if right > 0 then
        local start = total - right - period
        local stop = start + min(period, right)
        if right > period then
          move(out, roi, ax, span(total - right, total - right + period), span(start, stop))
          new_right = right - period
        else
          move(out, roi, ax, span(total - right, total), span(start, stop))
        end
      end
      left, right = new_left, new_right
    end
  end

  local function pad(a, pad_width, opts, ...)
    local extra = select("#", ...)
    if extra > 0 then
      raise("TypeError", fmt("pad takes at most 3 arguments, got %d", 3 + extra))
    end
    if not is_array(a) then
      raise("TypeError", "pad: argument #1 must be an array, got " .. type(a))
    end
    local mode, constants = "constant", nil
    if type(opts) == "string" then
      mode = opts
    elseif is_list(opts) then
      core.check_options(opts, "pad", { "mode", "constant_values" })
      if opts.mode ~= nil then
        if type(opts.mode) ~= "string" then
          raise("TypeError", "pad: mode must be a string, got " .. type(opts.mode))
        end
        mode = opts.mode
      end
      constants = opts.constant_values
    elseif opts ~= nil then
      raise("TypeError", "pad: argument #3 must be a mode or an options table, got "
        .. type(opts))
    end
    if not MODES[mode] then
      raise("ValueError", fmt("pad: mode '%s' is not supported (constant, edge, reflect, "
        .. "symmetric or wrap)", tostring(mode)))
    end
    if constants ~= nil and mode ~= "constant" then
      raise("ValueError", fmt("pad: constant_values is for mode 'constant', not '%s'", mode))
    end
    if pad_width == nil or (type(pad_width) ~= "number" and not is_list(pad_width)) then
      raise("TypeError", "pad: pad_width must be an integer or a table of integers, got "
        .. (is_array(pad_width) and "an array" or type(pad_width)))
    end
    local nd = a.ndim
    local widths = pairs_of(pad_width, nd, "pad_width", width_of)
    local values = mode == "constant" and pairs_of(constants == nil and 0 or constants, nd,
      "constant_values", value_of)
    local xp = a.device == "cpu" and cpu or M
    local shape, center = {}, {}
    for d = 1, nd do
      if widths[d][1] > math.maxinteger - a.shape[d] - widths[d][2] then
        raise("ValueError", fmt("pad: the padded axis %d would be too long", d))
      end
      shape[d] = widths[d][1] + a.shape[d] + widths[d][2]
      center[d] = span(widths[d][1], widths[d][1] + a.shape[d])
    end
    if mode ~= "constant" then
      for d = 1, nd do
        if a.shape[d] == 0 and (widths[d][1] > 0 or widths[d][2] > 0) then
          raise("ValueError", fmt("pad: can't extend the empty axis %d with mode '%s' (only "
            .. "'constant' can)", d, mode))
        end
      end
    end
    local one = mode == "constant"
    if one then
      local v = values[1] and values[1][1]
      for d = 1, nd do
        one = one and values[d][1] == v and values[d][2] == v
      end
    end
    local out = one and xp.full(shape, values[1] and values[1][1] or 0, a.dtype)
      or xp.empty(shape, a.dtype)
    if nd == 0 then
      out[{}] = a
      return out
    end
    if a.size > 0 then out[center] = a end
    if out.size == 0 or one then return out end
    for ax = 1, nd do
      local left, right = widths[ax][1], widths[ax][2]
      if left > 0 or right > 0 then
        local roi = roi_index(nd, ax, a.shape, widths)
        local len = a.shape[ax]
        if mode == "constant" then
          if left > 0 then set(out, roi, ax, span(0, left), values[ax][1]) end
          if right > 0 then set(out, roi, ax, span(left + len, shape[ax]), values[ax][2]) end
        elseif mode == "edge" or (len == 1 and mode ~= "wrap") then
          pad_edge(out, roi, ax, left, right, len)
        elseif mode == "wrap" then
          pad_wrap(out, roi, ax, left, right, len)
        else
          pad_reflect(out, roi, ax, left, right, len, mode == "symmetric")
        end
      end
    end
    return out
  end

  M.pad = pad
  cpu.pad = pad
end
