-- A busted output handler for `make test` (`busted -o tools/busted_summary.lua`): a dot per
-- test while the specs run, then every failure and error in full, the pending specs that are
-- not device specs one by one, busted's count line ("N successes / N failures / N errors /
-- N pending : T seconds", which .ci/run reads), and the #gpu specs that had no device counted
-- in one line instead of one paragraph each.  When CUARR_BUSTED_COUNTS names a file, the count
-- lines are written there too, for the summary `make test` prints last.
local pretty = require "pl.pretty"

local io_write, io_flush, fmt = io.write, io.flush, string.format

local DOTS_PER_LINE = 100

local function message_of(element)
  local text = element.randomseed and ("Random seed: " .. element.randomseed .. "\n") or ""
  if type(element.message) == "string" then
    return text .. element.message
  elseif element.message == nil then
    return text .. "Nil error"
  end
  return text .. pretty.write(element.message)
end

local function where(element)
  local trace = element.element and element.element.trace or element.trace
  if trace and trace.short_src then
    return trace.short_src .. " @ " .. tostring(trace.currentline)
  end
  return "?"
end

-- A device spec registered by spec/helper.lua's gpu_it without a usable device.
local function is_gpu_pending(pending)
  return pending.name:find("#gpu", 1, true) ~= nil
    or pending.name:find("#multigpu", 1, true) ~= nil
end

return function(options)
  local busted = require "busted"
  local handler = require("busted.outputHandlers.base")()
  local dots = 0

  local function dot(mark)
    io_write(mark)
    dots = dots + 1
    if dots % DOTS_PER_LINE == 0 then io_write("\n") end
    io_flush()
  end

  handler.testEnd = function(_, _, status)
    dot(({ success = ".", pending = "-", failure = "F", error = "E" })[status] or "?")
    return nil, true
  end

  handler.fileError = function()
    dot("E")
    return nil, true
  end

  handler.suiteEnd = function()
    if dots % DOTS_PER_LINE ~= 0 then io_write("\n") end
    local gpu_skipped, other_pending = 0, {}
    for _, pending in ipairs(handler.pendings) do
      if is_gpu_pending(pending) then
        gpu_skipped = gpu_skipped + 1
      else
        other_pending[#other_pending + 1] = pending
      end
    end
    for _, pending in ipairs(other_pending) do
      io_write(fmt("\nPending -> %s\n%s\n", where(pending), pending.name))
      if type(pending.message) == "string" then io_write(pending.message, "\n") end
    end
    for _, failure in ipairs(handler.failures) do
      io_write(fmt("\nFailure -> %s\n%s\n%s\n", where(failure), failure.name, message_of(failure)))
      if options.verbose and failure.trace and failure.trace.traceback then
        io_write(failure.trace.traceback, "\n")
      end
    end
    for _, err in ipairs(handler.errors) do
      io_write(fmt("\nError -> %s\n%s\n%s\n", where(err), err.name or "", message_of(err)))
      if options.verbose and err.trace and err.trace.traceback then
        io_write(err.trace.traceback, "\n")
      end
    end
    local counts = fmt("%d successes / %d failures / %d errors / %d pending : %.2f seconds\n",
      handler.successesCount, handler.failuresCount, handler.errorsCount,
      handler.pendingsCount, handler.getDuration())
    if gpu_skipped > 0 then
      counts = counts .. fmt("%d GPU specs skipped: no GPU\n", gpu_skipped)
    end
    io_write("\n", counts)
    io_flush()
    local counts_file = os.getenv("CUARR_BUSTED_COUNTS")
    if counts_file and counts_file ~= "" then
      local f = io.open(counts_file, "w")
      if f then
        f:write(counts)
        f:close()
      end
    end
    return nil, true
  end

  busted.subscribe({ "test", "end" }, handler.testEnd, { predicate = handler.cancelOnPending })
  busted.subscribe({ "suite", "end" }, handler.suiteEnd)
  busted.subscribe({ "error", "file" }, handler.fileError)
  busted.subscribe({ "failure", "file" }, handler.fileError)
  busted.subscribe({ "error", "describe" }, handler.fileError)
  busted.subscribe({ "failure", "describe" }, handler.fileError)
  return handler
end
