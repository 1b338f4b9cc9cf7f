-- A rank for spec/launcher_spec.lua's failure and signal cases.  Usage:
--   job.lua dir bad how others
-- Every rank writes its pid to <dir>/pid<rank> and CUARR_NCCL_ID_FILE to <dir>/id<rank>.  Rank
-- `bad` (-1: none) then waits until every other rank has started its child (<dir>/child<rank>
-- exists) and ends as `how` says: "exit:N" (os.exit(N)) or "signal:NAME" (kills itself).  The
-- others do as `others` says: "sleep" runs `sleep 60` in a child process, whose pid goes to
-- <dir>/child<rank>, then writes how the child ended to <dir>/ended<rank>; "finish" waits
-- 0.5 s, writes <dir>/done<rank> and exits 0; "orphan" leaves a `sleep 60` that ignores SIGTERM
-- running in the background (its pid in <dir>/child<rank>) and exits 0.
local dir, bad, how, others = arg[1], tonumber(arg[2]), arg[3], arg[4]
local rank = tonumber(os.getenv("CUARR_RANK"))
local world = tonumber(os.getenv("CUARR_WORLD_SIZE"))

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function put(name, text)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write(text, "\n")
  f:close()
end
local function exists(name)
  local f = io.open(dir .. "/" .. name)
  if f then f:close() end
  return f ~= nil
end

local pid = io.popen("echo $PPID"):read("l") -- the shell's parent: this process
put("pid" .. rank, pid)
put("id" .. rank, os.getenv("CUARR_NCCL_ID_FILE") or "")

if rank == bad then
  if others == "sleep" then
    for _ = 1, 200 do -- at most 10 s
      local all = true
      for r = 0, world - 1 do
        if r ~= bad and not exists("child" .. r) then all = false end
      end
      if all then break end
      os.execute("sleep 0.05")
    end
  end
  local kind, value = how:match("^(%a+):(%w+)$")
  if kind == "signal" then os.execute("kill -s " .. value .. " " .. pid) end
  os.exit(tonumber(value))
elseif others == "orphan" then
  os.execute("(trap '' TERM; exec sleep 60) & echo $! > " .. q(dir .. "/child" .. rank))
elseif others == "finish" then
  os.execute("sleep 0.5")
  put("done" .. rank, "done")
else
  local _, why, code = os.execute("echo $$ > " .. q(dir .. "/child" .. rank) .. "; exec sleep 60")
  put("ended" .. rank, tostring(why) .. " " .. tostring(code))
end
