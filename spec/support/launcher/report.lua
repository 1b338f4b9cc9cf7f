-- A rank for spec/launcher_spec.lua: writes what it was given (the launcher's environment
-- variables, its arguments, a line of stdin, whether the id file's directory exists while it
-- runs) to <dir>/rank<CUARR_RANK>.lua as a Lua table, and prints a line on stdout and one on
-- stderr.  Usage: report.lua dir [args...]; SPEC_TAIL=1 adds a last stdout line without "\n".
local dir = arg[1]
local rank = os.getenv("CUARR_RANK") or "none"
local names = { "CUARR_RANK", "CUARR_WORLD_SIZE", "CUARR_LOCAL_RANK", "CUARR_LOCAL_WORLD_SIZE",
                "CUARR_NCCL_ID_FILE", "MASTER_ADDR", "MASTER_PORT", "CUARR_DEVICE",
                "CUARR_DISTRIBUTED_TIMEOUT" }

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local parts = { "return {\n  env = {\n" }
for _, name in ipairs(names) do
  local v = os.getenv(name)
  if v then parts[#parts + 1] = ("    %s = %q,\n"):format(name, v) end
end
parts[#parts + 1] = "  },\n  args = {\n"
for i = 2, #arg do parts[#parts + 1] = ("    %q,\n"):format(arg[i]) end
parts[#parts + 1] = "  },\n"
local id_file = os.getenv("CUARR_NCCL_ID_FILE")
if id_file then
  local id_dir = id_file:match("^(.*)/[^/]*$") or "."
  parts[#parts + 1] = ("  id_dir = %q,\n  id_dir_existed = %s,\n")
    :format(id_dir, tostring(os.execute("test -d " .. q(id_dir)) == true))
end
local line = io.read("l")
if line then parts[#parts + 1] = ("  stdin = %q,\n"):format(line) end
parts[#parts + 1] = "}\n"

local f = assert(io.open(dir .. "/rank" .. rank .. ".lua", "w"))
f:write(table.concat(parts))
f:close()

io.stdout:write("out from ", rank, "\n")
io.stderr:write("err from ", rank, "\n")
if os.getenv("SPEC_TAIL") == "1" then io.stdout:write("tail from ", rank) end
