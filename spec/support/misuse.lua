-- The bad-input specs' harness: a misuse raises an error object of its kind whose
-- message says what was wrong, and leaves every array involved, and whatever else the case's
-- check returns, as it was.  A case is
--   { kind, match = text the message must contain,
--     setup = function(xp) return { named arrays and other objects } end,   (optional)
--     misuse = function(t, xp) ... end,
--     check = function(t) return some state that must not change end }     (optional)
local cuarr = require "cuarr"
local assert = require "luassert"

local M = {}

local function is_array(v) return getmetatable(v) == cuarr.ndarray end

-- What an array is now: its shape, dtype and values; for a freed or closed array, the error
-- that touching it raises.
function M.snapshot(a)
  local ok, r = pcall(function()
    local h = a.device == "cpu" and a or a:get()
    return { shape = a.shape, dtype = a.dtype, values = h:totable() }
  end)
  if ok then return r end
  return { dead = cuarr.is_error(r) and (r.kind .. ": " .. r.message)
    or ("not an error object: " .. tostring(r)) }
end

-- Every array of t (and the case's check) as it is now.
function M.state(case, t)
  local s = { arrays = {} }
  for k, v in pairs(t) do
    if is_array(v) then s.arrays[k] = M.snapshot(v) end
  end
  if case.check then s.extra = case.check(t) end
  return s
end

-- Run the case on xp (cuarr or cuarr.cpu); H is the spec's helper (H.raises).
function M.run(H, case, xp)
  local t = case.setup and case.setup(xp) or {}
  local before = M.state(case, t)
  local err = H.raises(case.kind, case.misuse, t, xp)
  assert.is_string(err.message)
  assert.is_true(#err.message > 0, "the message is empty")
  assert.are.equal(err.where .. "cuarr." .. case.kind .. ": " .. err.message, tostring(err))
  -- the place is the caller's line, never one of cuarr's own Lua files
  assert.is_falsy(err.where:find("lua/cuarr/", 1, true), "the place is cuarr's: " .. err.where)
  if case.match then
    assert.is_truthy(err.message:find(case.match, 1, true),
      "the message should mention '" .. case.match .. "': " .. err.message)
  end
  assert.are.same(before, M.state(case, t))
end

-- The case of a table entry { name, kind, match =, setup =, misuse =, check = }, its setup
-- defaulting to `setup`.
local function case_of(c, setup)
  return { kind = c[2], match = c.match, setup = c.setup or setup, misuse = c.misuse,
           check = c.check }
end

local function title(c) return c[1] .. " (" .. c[2] .. ")" end

-- Every entry of `cases` as a test on each backend of H.backends (host and device).
function M.on_backends(H, cases, setup)
  for _, b in ipairs(H.backends) do
    for _, c in ipairs(cases) do
      b.it(title(c), function() M.run(H, case_of(c, setup), b.xp) end)
    end
  end
end

-- Every entry of `cases` as a device test (#gpu), run with cuarr.
function M.on_device(H, cases, setup)
  for _, c in ipairs(cases) do
    H.gpu_it(title(c), function() M.run(H, case_of(c, setup), cuarr) end)
  end
end

return M
