-- tools/fuzz/bystanders.lua -- arrays that no fuzzed call is given, and the check that they
-- stay as they were: dtype, shape, strides and every element (read back from the device).
--
-- A call that writes through a stale pointer, a wrong offset or a freed buffer that was handed
-- out again changes one of them; so does one that frees or closes an array it was not given.

local M = {}

local function flat(t, out)
  if type(t) ~= "table" then
    out[#out + 1] = t ~= t and "nan" or tostring(t)
    return
  end
  for i = 1, #t do flat(t[i], out) end
end

local function fingerprint(a)
  local host = a.device == "cpu" and a or a:get()
  local out = { a.dtype, table.concat(a.shape, "x"), table.concat(a.strides, ",") }
  local t = host:totable()
  flat(t, out)
  return table.concat(out, " ")
end

function M.new(cuarr)
  local arrays = {
    cuarr.cpu.arange(7, "float64"),
    cuarr.cpu.array({ { 1, -2, 3 }, { 4, 5, -6 } }):astype("int8"),
    cuarr.cpu.array(3.5):astype("float16"),
    cuarr.cpu.array({ 0 / 0, math.huge, -1 }):astype("float32"),
    cuarr.cpu.array({ true, false, true }),
    cuarr.cpu.arange(12, "uint64"):reshape(3, 4):transpose(),
  }
  if cuarr.is_available() then
    arrays[#arrays + 1] = cuarr.arange(9, "int32")
    arrays[#arrays + 1] = cuarr.asarray(cuarr.cpu.arange(6, "float32")):reshape(2, 3)
  end
  local prints = {}
  for i, a in ipairs(arrays) do prints[i] = fingerprint(a) end

  local self = {}
  -- nil when every bystander is as it was, else a description of the first that is not.
  function self.changed()
    for i, a in ipairs(arrays) do
      local ok, now = pcall(fingerprint, a)
      if not ok then return "bystander " .. i .. " cannot be read: " .. tostring(now) end
      if now ~= prints[i] then
        return "bystander " .. i .. " was " .. prints[i] .. ", is " .. now
      end
    end
    return nil
  end
  return self
end

return M
