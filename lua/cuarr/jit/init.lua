-- cuarr.jit: the translated-kernel namespace.  jit.device(fn) marks a Lua function as callable
-- from translated functions (as a __device__ function, with several results); jit.float32 ...
-- are casts, usable from translated functions and, with the same results, from plain Lua.
local X = require "cuarr.jit.translate"
local host = require "cuarr.jit.host"

return function(M, core)
  local raise = core.raise
  local jit = {}

  local function wrap(bits, signed)
    return function(x)
      local v = math.tointeger(x >= 0 and math.floor(x) or math.ceil(x))
      if v == nil then raise("ValueError", "cast of a value out of the integer range") end
      if bits == 64 then return v end
      v = v & ((1 << bits) - 1)
      if signed and v >= (1 << (bits - 1)) then v = v - (1 << bits) end
      return v
    end
  end
  local casts = {
    float64 = function(x) return math.type(x) == "float" and x or x + 0.0 end,
    float32 = function(x) return (string.unpack("f", string.pack("f", x))) end,
    int8 = wrap(8, true), int16 = wrap(16, true), int32 = wrap(32, true), int64 = wrap(64, true),
    uint8 = wrap(8), uint16 = wrap(16), uint32 = wrap(32), uint64 = wrap(64),
  }
  -- bool: C's conversion (nonzero is true); a boolean stays itself.  Host-side only: in
  -- translated code a comparison already is a bool.
  local function to_bool(x)
    if type(x) == "boolean" then return x end
    return x ~= 0
  end
  for dtype, fn in pairs(casts) do
    local f = function(x)
      if type(x) ~= "number" then
        raise("TypeError", "jit." .. dtype .. ": argument #1 must be a number, got " .. type(x))
      end
      return fn(x)
    end
    jit[dtype] = f
    X.CASTS[f] = dtype
  end
  host.casts = setmetatable({ bool = to_bool, float16 = host.float16 }, { __index = casts })

  -- Device functions are called from plain Lua only where a translated function runs on the
  -- host (vectorize without a GPU: host.run).
  X.DEVICE_MT.__call = function(self, ...)
    if not host.running() then
      raise("TypeError", "a jit.device function is callable only from translated functions "
        .. "(cuarr.vectorize ...), not from plain Lua")
    end
    return self.fn(...)
  end
  X.DEVICE_MT.__tostring = function(self) return "cuarr.jit.device " .. self.where end

  local next_id = 0
  function jit.device(fn)
    if type(fn) ~= "function" and type(fn) ~= "string" then
      raise("TypeError", "jit.device: argument #1 must be a Lua function or its source, got "
        .. type(fn))
    end
    local spec = X.source.load(fn, raise)
    next_id = next_id + 1
    -- A source string runs on the host as the function it spells, seeing math alone.
    local host = fn
    if type(fn) == "string" then
      host = load("return " .. fn, "=source", "t", { math = math })()
    end
    return setmetatable({ id = next_id, fn = host,
                          where = spec.chunk .. ":" .. spec.line,
                          spec = function() return spec end }, X.DEVICE_MT)
  end

  M.jit = jit
  M.vectorize = require("cuarr.jit.vectorize")(M, core, jit)
  require("cuarr.jit.rawkernel")(M, core, jit)
  M.fuse = require("cuarr.jit.fuse")(M, core)
end
