-- Runs a translated function's CUDA C on the host: the source compiled by the host's C++
-- compiler (with __device__ and CUDA's bit casts defined away) into a program that calls it on
-- every row of arguments and prints the results exactly (hex floats), so that specs compare
-- the generated code with Lua itself on machines without a GPU.
local child = require "spec.support.child"

local M = {}
local fmt, concat = string.format, table.concat

local CXX = os.getenv("CXX") or "c++"

M.available = child.shell("command -v " .. CXX .. " >/dev/null")

local HEADER = [[
#include <math.h>
#include <stdio.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
]]

local function literal(v, t)
  if t == "int64" or t == "int32" then
    if v == math.mininteger then return "(-9223372036854775807LL - 1)" end
    return fmt("%dLL", v)
  end
  if v ~= v then return "NAN" end
  if v == math.huge then return "INFINITY" end
  if v == -math.huge then return "(-INFINITY)" end
  return fmt("%a", v)
end

-- Results of cname(row...) for every row, as Lua numbers; ret: the result's dtype.
function M.run(source, cname, argtypes, ret, rows)
  local calls = {}
  for _, row in ipairs(rows) do
    local args = {}
    for i, v in ipairs(row) do args[i] = literal(v, argtypes[i]) end
    local call = fmt("%s(%s)", cname, concat(args, ", "))
    if ret == "int64" or ret == "int32" then
      calls[#calls + 1] = fmt('  printf("%%lld\\n", (long long)%s);', call)
    else
      calls[#calls + 1] = fmt('  print_float((double)%s);', call)
    end
  end
  local program = HEADER .. source .. [[
static void print_float(double x) {
  if (isnan(x)) printf("nan\n");
  else if (isinf(x)) printf(x > 0 ? "inf\n" : "-inf\n");
  else printf("%a\n", x);
}
int main(void) {
]] .. concat(calls, "\n") .. "\n  return 0;\n}\n"
  local src, exe = os.tmpname() .. ".cpp", os.tmpname()
  local f = assert(io.open(src, "w"))
  f:write(program)
  f:close()
  local ok, out = child.shell(fmt("%s -O1 -fno-fast-math -o %s %s && %s", CXX, exe, src, exe))
  os.remove(src)
  os.remove(exe)
  assert(ok, out .. "\n" .. program)
  local results = {}
  for line in out:gmatch("[^\n]+") do
    if line == "nan" then results[#results + 1] = 0 / 0
    elseif line == "inf" then results[#results + 1] = math.huge
    elseif line == "-inf" then results[#results + 1] = -math.huge
    else results[#results + 1] = assert(tonumber(line), line) end
  end
  assert(#results == #rows, out)
  return results
end

return M
