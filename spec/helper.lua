-- Shared by the specs: backends (host and device), GPU tagging, error assertions.
--
-- Device specs are registered with gpu_it / gpu_describe and tagged #gpu.  Without a usable
-- device they are reported as pending (skipped) by `make test`; `make test-gpu` sets
-- CUARR_REQUIRE_GPU=1, which runs them regardless, so that they fail when no device works.
local cuarr = require "cuarr"

local H = {}
H.cuarr = cuarr

-- busted's it/describe/pending live in each spec file's environment, not in _G: a spec starts
-- with `local H = require("spec.helper").bind(_ENV)` so the helpers below can register tests.
local env = _G
function H.bind(spec_env)
  env = spec_env
  return H
end
H.has_gpu = cuarr.is_available()
H.require_gpu = os.getenv("CUARR_REQUIRE_GPU") == "1"
H.run_gpu = H.has_gpu or H.require_gpu
H.multi_gpu = H.has_gpu and cuarr.runtime.device_count >= 2

H.dtypes = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64" }
H.numeric_dtypes = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "float16", "float32", "float64" }

function H.gpu_it(name, fn)
  if H.run_gpu then
    env.it(name .. " #gpu", fn)
  else
    env.pending(name .. " #gpu (no GPU here)")
  end
end

-- Two-GPU tests (#multigpu): pending unless the machine has two devices.
function H.multigpu_it(name, fn)
  if H.multi_gpu then
    env.it(name .. " #gpu #multigpu", fn)
  else
    env.pending(name .. " #multigpu (needs two GPUs)")
  end
end

-- The places arrays live, each with its namespace and the `it` that registers its tests:
-- `for _, b in ipairs(H.backends) do b.it("...", function() local a = b.xp.zeros(3) ... end) end`
H.backends = {
  { name = "cpu", xp = cuarr.cpu, it = function(name, fn) env.it(name .. " [cpu]", fn) end },
  { name = "gpu", xp = cuarr, it = function(name, fn) H.gpu_it(name .. " [gpu]", fn) end },
}

-- Call fn(...), which must raise a cuarr error object of `kind`; returns the error.
function H.raises(kind, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected a " .. kind .. " error, but the call succeeded")
  assert(cuarr.is_error(err), "expected a cuarr error object, got: " .. tostring(err))
  assert(err.kind == kind, "expected " .. kind .. ", got " .. tostring(err))
  return err
end

-- A seeded generator of integers and floats, so random cases are repeatable.
function H.rng(seed)
  local state = seed
  local function next_u32()
    -- xorshift32
    state = state ~ ((state << 13) & 0xffffffff)
    state = state ~ (state >> 17)
    state = state ~ ((state << 5) & 0xffffffff)
    return state
  end
  return {
    int = function(lo, hi) return lo + next_u32() % (hi - lo + 1) end,
    float = function() return next_u32() / 4294967296.0 end,
  }
end

-- Flatten nested tables (C order).
function H.flat(t, out)
  out = out or {}
  if type(t) ~= "table" then
    out[#out + 1] = t
    return out
  end
  for _, v in ipairs(t) do H.flat(v, out) end
  return out
end

return H
