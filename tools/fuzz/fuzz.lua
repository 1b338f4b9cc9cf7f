-- tools/fuzz/fuzz.lua -- cuarr's random-call fuzzer (`make fuzz`; CONTRIBUTING.md tells its options).
--
--   lua tools/fuzz/fuzz.lua [--seed S] [--calls N] [--seconds T] [--first I] [--trace]
--                           [--call-seconds C]
--
-- It enumerates every entry point a script can reach (entries.lua) and calls them with
-- hostile arguments (values.lua, objects.lua).  After each call it checks: an error is a cuarr
-- error object (a plain string, or any other value, is a finding); the bystander arrays, which
-- no call is given, are unchanged; the call ended within CALL_SECONDS.  A crash or a sanitizer
-- report ends the process.  Call i is made from math.randomseed(S, i) alone, so
-- `--first i --calls 1` replays it; a finding prints that line.  After a crash, `--trace`
-- from the last progress line prints each call before it is made.  Exits 1 on a finding.
--
-- Run it through the stand-in driver (CUARR_LIBCUDA=build/.../fake_cuda/libcuda.so.1) so that the
-- device paths are reached: there kernels never run, but every check before and after a launch
-- does, and copies move bytes.  `make fuzz-gpu` runs it against the real driver under
-- compute-sanitizer (tools/fuzz/gpu_fuzz.sh), where the kernels run too.
--
-- Besides hostile values it makes what found issue 28's 7a-7c: read-only broadcast views, small
-- ones anywhere and ones of 10^15 elements where a call writes (an `out`, a writing method's
-- self) or makes a Lua table (totable); bool arrays whose bytes are not 0/1.  A write into such a
-- view that is not refused at once never returns, and the count hook cannot stop a C loop: the
-- run then stops at its time bound, and --trace names the call.

local cuarr = require "cuarr"
local core = require "cuarr.core"
local values = require "tools.fuzz.values"
local entries = require "tools.fuzz.entries"
local bystanders = require "tools.fuzz.bystanders"

local PROGRESS_EVERY = 10000
local SHOW_PER_FINDING = 2 -- repro lines printed per distinct finding

local opts = { seed = 1, calls = 100000, seconds = 0, first = 1, trace = false, call_seconds = 5 }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--trace" then
      opts.trace = true
    elseif a:match("^%-%-") and opts[a:sub(3):gsub("%-", "_")] ~= nil and arg[i + 1] then
      opts[a:sub(3):gsub("%-", "_")] =
        assert(math.tointeger(tonumber(arg[i + 1])), a .. " takes an integer")
      i = i + 1
    else
      error("unknown argument " .. a)
    end
    i = i + 1
  end
end

local CALL_SECONDS = opts.call_seconds -- longer under compute-sanitizer (make fuzz-gpu)
-- The make target a finding's repro line names (tools/fuzz/gpu_fuzz.sh sets fuzz-gpu).
local REPRO_TARGET = os.getenv("FUZZ_REPRO_TARGET") or "fuzz"

math.randomseed(opts.seed, 0)
values.cuarr = cuarr -- the option tables' `out` may be a huge read-only view
local objects = require("tools.fuzz.objects")(cuarr)
local classes = entries.registry_classes()
for name, mt in pairs(objects.classes) do classes[name] = classes[name] or mt end
-- Registry names are "ndarray", "Stream", ...; a class found both ways is one class.
local by_mt, unique = {}, {}
local class_names = {}
for name in pairs(classes) do class_names[#class_names + 1] = name end
table.sort(class_names)
for _, name in ipairs(class_names) do
  local mt = classes[name]
  if not by_mt[mt] then by_mt[mt] = name; unique[name] = mt end
end
local list = entries.enumerate(cuarr, core, unique)
local watched = bystanders.new(cuarr)

-- The per-call time bound: a count hook that raises HANG once the call has run too long (it
-- fires only while Lua code runs: in a hostile metamethod, or in the front end).
local HANG = setmetatable({}, { __tostring = function() return "call ran too long" end })
local call_started = nil
local function hook()
  if call_started and os.clock() - call_started > CALL_SECONDS then
    call_started = nil
    error(HANG)
  end
end
debug.sethook(hook, "", 100000)

local stats = { calls = 0, ok = 0, hostile = 0, kinds = {}, findings = 0 }
local reached, passed = {}, {}
local finding_seen = {}

local function describe_call(e, args)
  local parts = {}
  for i = 1, args.n do parts[i] = values.describe(args[i]) end
  return e.name .. "(" .. table.concat(parts, ", ") .. ")"
end

local function report(kind, i, e, args, detail, in_coroutine)
  stats.findings = stats.findings + 1
  -- One line per distinct finding: messages differ in their numbers and addresses.
  local key = kind .. "|" .. e.name .. "|" .. tostring(detail):gsub("0x%x+", "@"):gsub("%d+", "#")
  local n = (finding_seen[key] or 0) + 1
  finding_seen[key] = n
  if n > SHOW_PER_FINDING then return end
  print(string.format("FINDING %s in %s: %s", kind, e.name, tostring(detail)))
  print("  call:  " .. describe_call(e, args) .. (in_coroutine and " (in a coroutine)" or ""))
  print(string.format("  repro: make %s FUZZ_SEED=%d FUZZ_FIRST=%d FUZZ_CALLS=1", REPRO_TARGET,
                      opts.seed, i))
end

-- The array methods that write into self or make a Lua table of it: their self may be a huge
-- read-only view (7a, 7c).
local WRITES_SELF = { fill = true, set = true, sort = true, totable = true, tolist = true,
                      __newindex = true, setflags = true }

-- A huge read-only view where the call writes: the output after a ufunc's inputs (its
-- positional out), or a writing method's self.
local function give_huge_views(e, args)
  local method = e.class == "ndarray" and e.name:match("([%w_]+)$")
  if method and WRITES_SELF[method] and math.random() < 0.3 then
    args[1] = values.huge_view(cuarr)
    args.n = math.max(args.n, 1)
    return
  end
  local _, nin = core.ufunc_info(e.fn)
  if nin and math.random() < 0.1 then
    for k = args.n + 1, nin do args[k] = values.array(cuarr) end
    args[nin + 1] = values.huge_view(cuarr)
    args.n = math.max(args.n, nin + 1)
  end
end

local function make_args(e)
  local args = { n = 0 }
  local n
  local r = math.random()
  if r < 0.04 then n = math.random(5, 50) else n = math.random(0, 4) end
  for k = 1, n do
    if k == 1 and e.class and math.random() < 0.75 then
      args[k] = objects.of(e.class)
    else
      args[k] = values.value(cuarr, objects)
    end
  end
  args.n = n
  if e.class and n == 0 and math.random() < 0.75 then args[1] = objects.of(e.class); args.n = 1 end
  give_huge_views(e, args)
  return args
end

-- Calls that leave state in which the next calls would rightly fail (a stream capture refuses
-- every synchronisation until it ends; a defer_cleanup scope holds memory until it closes),
-- and how to end it: given the call's arguments and its first result, after every call.
local UNDO = {
  ["class.Stream.methods.begin_capture"] = function(args)
    local s = args[1]
    if pcall(function() return s:is_capturing() end) and s:is_capturing() then
      local ok, g = pcall(s.end_capture, s)
      if ok then g:free() end
    end
  end,
  ["cuarr.defer_cleanup"] = function(_, guard)
    if cuarr.is_error(guard) or type(guard) ~= "userdata" then return end
    pcall(function() guard:close() end)
  end,
}

local function call_in_coroutine(fn, args)
  local co = coroutine.create(function() return fn(table.unpack(args, 1, args.n)) end)
  debug.sethook(co, hook, "", 100000)
  return coroutine.resume(co)
end

local function one_call(i)
  math.randomseed(opts.seed, i)
  local e = list[math.random(#list)]
  local args = make_args(e)
  local in_coroutine = math.random() < 0.15
  if opts.trace then
    io.stdout:write("call ", i, ": ", describe_call(e, args), "\n")
    io.stdout:flush()
  end
  reached[e.name] = true
  call_started = os.clock()
  local ok, err
  if in_coroutine then
    ok, err = call_in_coroutine(e.fn, args)
  else
    ok, err = pcall(e.fn, table.unpack(args, 1, args.n))
  end
  call_started = nil
  if UNDO[e.name] then UNDO[e.name](args, ok and err or nil) end
  stats.calls = stats.calls + 1
  if ok then
    stats.ok = stats.ok + 1
    passed[e.name] = true
  elseif cuarr.is_error(err) then
    local kind = rawget(err, "kind")
    kind = type(kind) == "string" and kind or "?"
    stats.kinds[kind] = (stats.kinds[kind] or 0) + 1
  elseif err == values.HOSTILE then
    stats.hostile = stats.hostile + 1
  elseif err == HANG then
    report("hang", i, e, args, "no result after " .. CALL_SECONDS .. " s", in_coroutine)
  elseif type(err) == "string" then
    stats.plain = (stats.plain or 0) + 1
    report("plain-string-error", i, e, args, err, in_coroutine)
  else
    report("non-error-object", i, e, args, values.describe(err), in_coroutine)
  end
  local changed = watched.changed()
  if changed then
    report("bystander-changed", i, e, args, changed, in_coroutine)
    watched = bystanders.new(cuarr) -- fresh ones, so that one change is not reported forever
  end
end

print(string.format("fuzz: seed %d, calls %d..%d, %s, %d entry points enumerated, %s", opts.seed,
                    opts.first, opts.first + opts.calls - 1,
                    opts.seconds > 0 and ("at most " .. opts.seconds .. " s") or "no time bound",
                    #list, cuarr.is_available() and "device paths reachable" or "no device"))
local started = os.time()
local clock0 = os.clock()
for i = opts.first, opts.first + opts.calls - 1 do
  one_call(i)
  if i % 100 == 0 and opts.seconds > 0 and os.time() - started >= opts.seconds then break end
  if i % PROGRESS_EVERY == 0 then
    print(string.format("... %d calls, %d s, %d findings (last call %d)", stats.calls,
                        os.time() - started, stats.findings, i))
    io.stdout:flush()
    collectgarbage()
  end
end
-- Pending finalizers run now, inside the fuzzer's run, where a sanitizer still sees them.
collectgarbage()
collectgarbage()

local n_reached, n_passed = 0, 0
for _ in pairs(reached) do n_reached = n_reached + 1 end
for _ in pairs(passed) do n_passed = n_passed + 1 end
local kinds = {}
for k, n in pairs(stats.kinds) do kinds[#kinds + 1] = k .. " " .. n end
table.sort(kinds)
print(string.format("calls: %d in %d s (%.0f s CPU)", stats.calls, os.time() - started,
                    os.clock() - clock0))
print(string.format("entry points: %d reached of %d enumerated, %d returned normally at least once",
                    n_reached, #list, n_passed))
print(string.format("returned: %d; cuarr errors by kind: %s; raised by the hostile values: %d",
                    stats.ok, #kinds > 0 and table.concat(kinds, ", ") or "none", stats.hostile))
print(string.format("plain-string errors: %d", stats.plain or 0))
local distinct = 0
for _ in pairs(finding_seen) do distinct = distinct + 1 end
print(string.format("findings: %d (%d distinct)", stats.findings, distinct))
os.exit(stats.findings == 0 and 0 or 1, true)
