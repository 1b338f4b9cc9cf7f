-- bin/cuarr-run, the one-host launcher (one Lua process per GPU): the environment each rank
-- gets (rank, world size, local rank, the rendezvous, devices, timeout), arguments passed
-- through verbatim, stdin to rank 0, --tag's prefixes, a failing rank's status propagated and
-- the other ranks ended after the grace period (SIGTERM, then SIGKILL), signals to the launcher
-- forwarded, usage errors, and no process or temporary directory left behind on any path.
-- Host only: the ranks are the small scripts of spec/support/launcher/, which need no cuarr.
local C = require "spec.support.child"

local q = C.sh_quote
local concat, fmt = table.concat, string.format
local LAUNCHER = "bin/cuarr-run"
local SUPPORT = "spec/support/launcher/"

-- What the environment of `make test` may hold that would change what the launcher does.
local CLEAN_ENV = "env -u MASTER_ADDR -u MASTER_PORT -u CUARR_NCCL_ID_FILE -u CUARR_DEVICE " ..
                  "-u CUARR_DISTRIBUTED_TIMEOUT -u CUARR_LUA -u SPEC_TAIL"

local scratch_dirs = {}
local function scratch() -- a fresh directory, removed after the spec
  local p = assert(io.popen("mktemp -d"))
  local dir = p:read("l")
  p:close()
  assert(dir and dir ~= "", "mktemp -d failed")
  scratch_dirs[#scratch_dirs + 1] = dir
  return dir
end
teardown(function()
  for _, dir in ipairs(scratch_dirs) do os.execute("rm -rf " .. q(dir)) end
end)

local function read_file(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function exists(path)
  return os.execute("test -e " .. q(path)) == true
end

-- Whether process `pid` still runs: a zombie (dead, waiting for whoever reaps orphans here)
-- does not count.
local function running(pid)
  local stat = read_file("/proc/" .. pid .. "/stat")
  if not stat then return false end
  local state = stat:match(".*%) (%a)")
  return state ~= "Z" and state ~= "X"
end

-- The pid a rank wrote to dir/name.
local function pid_in(dir, name)
  local s = read_file(dir .. "/" .. name)
  assert.is_truthy(s, "no " .. name .. " in " .. dir)
  return assert(s:match("^%d+\n$") and s:match("%d+"), name .. ": " .. s)
end

-- The pids written to dir/<prefix>N, N = 0 .. n-1.
local function pids(dir, prefix, n)
  local out = {}
  for r = 0, n - 1 do out[#out + 1] = pid_in(dir, prefix .. r) end
  return out
end

local function assert_gone(list)
  for _, pid in ipairs(list) do
    assert.is_false(running(pid), "process " .. pid .. " of the job is still running")
  end
end

-- Under `make sanitize` lua5.4 preloads ASan; its LeakSanitizer tracer crashes at random in
-- short children (see spec/support/child.lua): the ranks run without leak checks.
local function child_env()
  local asan = os.getenv("ASAN_OPTIONS")
  if asan and asan:find("detect_leaks=1", 1, true) then
    return "ASAN_OPTIONS=" .. q(asan .. ":detect_leaks=0")
  end
  return ""
end

-- Run the launcher with `words` (quoted here) and o.env (name -> value) added to a clean
-- environment, stdin o.stdin (text) or /dev/null; `timeout` keeps a broken launcher from
-- hanging the specs.  Returns status, stdout, stderr and the elapsed milliseconds.
local function launch(words, o)
  o = o or {}
  local dir = scratch()
  local quoted = {}
  for i, w in ipairs(words) do quoted[i] = q(w) end
  local vars = { child_env() }
  for k, v in pairs(o.env or {}) do vars[#vars + 1] = k .. "=" .. q(v) end
  local stdin = "/dev/null"
  if o.stdin then
    stdin = dir .. "/stdin"
    local f = assert(io.open(stdin, "w"))
    f:write(o.stdin)
    f:close()
  end
  local cmd = fmt("%s %s timeout -k 5 60 %s %s >%s 2>%s <%s", CLEAN_ENV, concat(vars, " "),
    o.launcher or LAUNCHER, concat(quoted, " "), q(dir .. "/out"), q(dir .. "/err"), q(stdin))
  local p = assert(io.popen("s=$(date +%s%N); " .. cmd ..
    "; st=$?; e=$(date +%s%N); echo $st $(((e - s) / 1000000))"))
  local line = p:read("a")
  p:close()
  local status, ms = line:match("^(%d+) (%d+)")
  assert(status, "no status from: " .. cmd .. "\n" .. line)
  return tonumber(status), read_file(dir .. "/out"), read_file(dir .. "/err"), tonumber(ms)
end

-- What each rank of report.lua wrote: reports[r + 1] for rank r.
local function reports(dir, n)
  local out = {}
  for r = 0, n - 1 do
    local path = dir .. "/rank" .. r .. ".lua"
    assert.is_true(exists(path), "rank " .. r .. " wrote no report")
    out[r + 1] = dofile(path)
  end
  assert.is_false(exists(dir .. "/rank" .. n .. ".lua"), "a rank " .. n .. " ran")
  assert.is_false(exists(dir .. "/ranknone.lua"), "a rank without CUARR_RANK ran")
  return out
end

describe("cuarr-run", function()
  describe("each rank's environment", function()
    for _, n in ipairs({ 1, 3, 5 }) do
      it("with -n " .. n .. ": its own rank, the same world and id file", function()
        local dir = scratch()
        local status, out, err = launch({ "-n", tostring(n), SUPPORT .. "report.lua", dir })
        assert.are.equal(0, status, err)
        local rs = reports(dir, n)
        local id_file = rs[1].env.CUARR_NCCL_ID_FILE
        assert.is_truthy(id_file)
        assert.is_truthy(id_file:match("/nccl_id$"), id_file)
        for r = 0, n - 1 do
          local e = rs[r + 1].env
          assert.are.equal(tostring(r), e.CUARR_RANK)
          assert.are.equal(tostring(n), e.CUARR_WORLD_SIZE)
          assert.are.equal(tostring(r), e.CUARR_LOCAL_RANK)
          assert.are.equal(tostring(n), e.CUARR_LOCAL_WORLD_SIZE)
          assert.are.equal(id_file, e.CUARR_NCCL_ID_FILE)
          assert.is_nil(e.MASTER_ADDR)
          assert.is_nil(e.MASTER_PORT)
          assert.is_nil(e.CUARR_DEVICE)
          assert.is_nil(e.CUARR_DISTRIBUTED_TIMEOUT)
          assert.is_true(rs[r + 1].id_dir_existed, "the id file's directory was missing")
          -- unprefixed output without --tag
          assert.is_truthy(out:find("out from " .. r .. "\n", 1, true), out)
          assert.is_truthy(err:find("err from " .. r .. "\n", 1, true), err)
        end
        assert.is_nil(out:find("[", 1, true), out)
        assert.is_false(exists(rs[1].id_dir), "the temporary directory outlived the launcher")
      end)
    end

    it("each job gets a fresh id file", function()
      local d1, d2 = scratch(), scratch()
      assert.are.equal(0, (launch({ "-n", "1", SUPPORT .. "report.lua", d1 })))
      assert.are.equal(0, (launch({ "-n", "1", SUPPORT .. "report.lua", d2 })))
      assert.are_not.equal(reports(d1, 1)[1].env.CUARR_NCCL_ID_FILE,
                           reports(d2, 1)[1].env.CUARR_NCCL_ID_FILE)
    end)

    it("passes the script's arguments through verbatim", function()
      local dir = scratch()
      local args = { "plain", "with  two spaces", "", "it's", 'say "hi"', "$HOME", "*", "-n",
                     "--tag", "--", "line\nbreak", "\\back\\slash", " lead and trail " }
      local words = { "-n", "2", SUPPORT .. "report.lua", dir }
      for _, a in ipairs(args) do words[#words + 1] = a end
      local status, _, err = launch(words)
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do assert.are.same(args, rep.args) end
    end)

    it("takes -nN, --nprocs N and --nprocs=N; after -- or the script, words are the script's",
      function()
        for _, form in ipairs({ { "-n3" }, { "--nprocs", "3" }, { "--nprocs=3" } }) do
          local dir = scratch()
          local words = { form[1], form[2] }
          for _, w in ipairs({ "--", SUPPORT .. "report.lua", dir, "-n", "1", "--tag" }) do
            words[#words + 1] = w
          end
          local status, out, err = launch(words)
          assert.are.equal(0, status, err)
          assert.are.same({ "-n", "1", "--tag" }, reports(dir, 3)[3].args)
          assert.is_nil(out:find("[", 1, true), out)
        end
      end)

    it("gives stdin to rank 0 and /dev/null to the others", function()
      local dir = scratch()
      local status, _, err = launch({ "-n", "3", SUPPORT .. "report.lua", dir },
        { stdin = "the first line\nthe second\n" })
      assert.are.equal(0, status, err)
      local rs = reports(dir, 3)
      assert.are.equal("the first line", rs[1].stdin)
      assert.is_nil(rs[2].stdin)
      assert.is_nil(rs[3].stdin)
    end)

    it("passes --master-addr and --master-port instead of an id file", function()
      local dir = scratch()
      local status, _, err = launch({ "--master-addr", "node7.example", "--master-port=29500",
        "-n", "2", SUPPORT .. "report.lua", dir }, { env = { CUARR_NCCL_ID_FILE = "/stale" } })
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do
        assert.are.equal("node7.example", rep.env.MASTER_ADDR)
        assert.are.equal("29500", rep.env.MASTER_PORT)
        assert.is_nil(rep.env.CUARR_NCCL_ID_FILE)
      end
    end)

    it("uses MASTER_ADDR and MASTER_PORT from its environment, options first", function()
      local dir = scratch()
      local status, _, err = launch({ "-n", "2", SUPPORT .. "report.lua", dir },
        { env = { MASTER_ADDR = "10.0.0.1", MASTER_PORT = "1234" } })
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do
        assert.are.equal("10.0.0.1", rep.env.MASTER_ADDR)
        assert.are.equal("1234", rep.env.MASTER_PORT)
        assert.is_nil(rep.env.CUARR_NCCL_ID_FILE)
      end
      dir = scratch()
      status, _, err = launch({ "--master-port", "4321", "-n", "1", SUPPORT .. "report.lua", dir },
        { env = { MASTER_ADDR = "10.0.0.1", MASTER_PORT = "1234" } })
      assert.are.equal(0, status, err)
      assert.are.equal("10.0.0.1", reports(dir, 1)[1].env.MASTER_ADDR)
      assert.are.equal("4321", reports(dir, 1)[1].env.MASTER_PORT)
    end)

    it("passes --id-file's path (and not MASTER_ADDR/MASTER_PORT from its environment)", function()
      local dir = scratch()
      local id_file = scratch() .. "/job id"
      local status, _, err = launch({ "--id-file", id_file, "-n", "2", SUPPORT .. "report.lua",
        dir }, { env = { MASTER_ADDR = "10.0.0.1", MASTER_PORT = "1234" } })
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do
        assert.are.equal(id_file, rep.env.CUARR_NCCL_ID_FILE)
        assert.is_nil(rep.env.MASTER_ADDR)
        assert.is_nil(rep.env.MASTER_PORT)
      end
    end)

    it("gives rank i the i-th of --devices as CUARR_DEVICE, and none without it", function()
      local dir = scratch()
      local status, _, err = launch({ "--devices", "3,0,7", "-n", "3", SUPPORT .. "report.lua",
        dir }, { env = { CUARR_DEVICE = "5" } })
      assert.are.equal(0, status, err)
      local rs = reports(dir, 3)
      assert.are.equal("3", rs[1].env.CUARR_DEVICE)
      assert.are.equal("0", rs[2].env.CUARR_DEVICE)
      assert.are.equal("7", rs[3].env.CUARR_DEVICE)
      -- an inherited CUARR_DEVICE would put every rank on one device
      dir = scratch()
      status, _, err = launch({ "-n", "2", SUPPORT .. "report.lua", dir },
        { env = { CUARR_DEVICE = "5" } })
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do assert.is_nil(rep.env.CUARR_DEVICE) end
    end)

    it("exports --timeout as CUARR_DISTRIBUTED_TIMEOUT", function()
      local dir = scratch()
      local status, _, err = launch({ "--timeout", "7.5", "-n", "2", SUPPORT .. "report.lua",
        dir })
      assert.are.equal(0, status, err)
      for _, rep in ipairs(reports(dir, 2)) do
        assert.are.equal("7.5", rep.env.CUARR_DISTRIBUTED_TIMEOUT)
      end
    end)

    it("runs ${CUARR_LUA}, else lua5.4, else lua", function()
      -- a PATH with the tools the launcher needs, `lua` and no lua5.4
      local bin = scratch()
      local p = assert(io.popen("command -v lua5.4"))
      local lua54 = p:read("l")
      p:close()
      local links = { "lua=" .. lua54 }
      for _, tool in ipairs({ "bash", "setsid", "mktemp", "mkfifo", "rm", "timeout" }) do
        p = assert(io.popen("command -v " .. tool))
        links[#links + 1] = tool .. "=" .. assert(p:read("l"), tool)
        p:close()
      end
      for _, l in ipairs(links) do
        local name, target = l:match("^([^=]+)=(.*)$")
        assert(os.execute(fmt("ln -s %s %s", q(target), q(bin .. "/" .. name))))
      end
      local dir = scratch()
      local status, _, err = launch({ "-n", "2", SUPPORT .. "report.lua", dir },
        { env = { PATH = bin } })
      assert.are.equal(0, status, err)
      assert.are.equal("1", reports(dir, 2)[2].env.CUARR_RANK)
      -- no interpreter at all
      os.remove(bin .. "/lua")
      status, _, err = launch({ "-n", "2", SUPPORT .. "report.lua", scratch() },
        { env = { PATH = bin } })
      assert.are.equal(127, status, err)
      assert.is_truthy(err:find("^cuarr%-run: no Lua interpreter"), err)
      -- CUARR_LUA, split into words
      dir = scratch()
      status, _, err = launch({ "-n", "1", SUPPORT .. "report.lua", dir },
        { env = { CUARR_LUA = lua54 .. " -W" } })
      assert.are.equal(0, status, err)
      assert.are.equal("0", reports(dir, 1)[1].env.CUARR_RANK)
    end)
  end)

  describe("--tag", function()
    it("prefixes each line of rank i with [i], on stdout and stderr", function()
      local dir = scratch()
      local status, out, err = launch({ "--tag", "-n", "3", SUPPORT .. "report.lua", dir },
        { env = { SPEC_TAIL = "1" } })
      assert.are.equal(0, status, err)
      reports(dir, 3)
      local out_lines, err_lines = {}, {}
      for l in out:gmatch("[^\n]+") do out_lines[l] = true end
      for l in err:gmatch("[^\n]+") do err_lines[l] = true end
      for r = 0, 2 do
        assert.is_true(out_lines[fmt("[%d] out from %d", r, r)], out)
        -- a last line without "\n" gets one, so that it does not run into another rank's
        assert.is_true(out_lines[fmt("[%d] tail from %d", r, r)], out)
        assert.is_true(err_lines[fmt("[%d] err from %d", r, r)], err)
      end
      assert.are.equal(6, select(2, out:gsub("\n", "")), out)
      assert.are.equal(3, select(2, err:gsub("\n", "")), err)
    end)
  end)

  -- The pids a job.lua job wrote (its ranks' and the children of the ranks in `children`) are
  -- all gone, and so is the launcher's temporary directory.
  local function assert_job_gone(dir, n, children)
    assert_gone(pids(dir, "pid", n))
    for _, r in ipairs(children) do assert_gone({ pid_in(dir, "child" .. r) }) end
    local id_file = read_file(dir .. "/id0")
    assert.is_truthy(id_file and id_file:match("/nccl_id\n$"), id_file)
    assert.is_false(exists(id_file:match("^(.*)/")), "the temporary directory outlived the job")
  end

  describe("a failing rank", function()
    it("ends the job with its status; the others are terminated after the 5 s grace", function()
      local dir = scratch()
      local status, _, err, ms = launch({ "-n", "3", SUPPORT .. "job.lua", dir, "1", "exit:3",
                                          "sleep" })
      assert.are.equal(3, status, err)
      assert.is_truthy(err:find("cuarr-run: rank 1 exited with status 3\n", 1, true), err)
      assert.is_truthy(err:find("cuarr-run: terminating rank(s) 0 2 after the 5 s grace period",
        1, true), err)
      assert.is_true(ms >= 5000, "the others were stopped before the grace period: " .. ms)
      assert.is_true(ms < 15000, "the job took " .. ms .. " ms")
      assert_job_gone(dir, 3, { 0, 2 })
    end)

    it("lets the others finish within --grace on their own", function()
      local dir = scratch()
      local status, _, err, ms = launch({ "--grace", "4", "-n", "3", SUPPORT .. "job.lua", dir,
                                          "1", "exit:4", "finish" })
      assert.are.equal(4, status, err)
      assert.is_truthy(err:find("cuarr-run: rank 1 exited with status 4\n", 1, true), err)
      assert.is_nil(err:find("terminating", 1, true), err)
      assert.is_true(exists(dir .. "/done0"))
      assert.is_true(exists(dir .. "/done2"))
      assert.is_true(ms < 3500, "waited for the grace period to end: " .. ms .. " ms")
      assert_job_gone(dir, 3, {})
    end)

    it("killed by a signal: 128 + its number, and the signal named", function()
      local dir = scratch()
      local status, _, err, ms = launch({ "--grace", "0.5", "-n", "3", SUPPORT .. "job.lua",
                                          dir, "2", "signal:KILL", "sleep" })
      assert.are.equal(128 + 9, status, err)
      assert.is_truthy(err:find("cuarr-run: rank 2 was killed by signal SIGKILL\n", 1, true),
        err)
      assert.is_true(ms < 15000, "the job took " .. ms .. " ms")
      assert_job_gone(dir, 3, { 0, 1 })
    end)

    it("ranks that ignore SIGTERM get SIGKILL 2 s later", function()
      local dir = scratch()
      local status, _, err, ms = launch({ "--grace", "0.5", "-n", "3",
                                          SUPPORT .. "ignore_term.sh", dir },
                                        { env = { CUARR_LUA = "sh" } })
      assert.are.equal(5, status, err)
      assert.is_truthy(err:find("cuarr-run: rank 1 exited with status 5\n", 1, true), err)
      assert.is_truthy(err:find("still running 2 s after SIGTERM: sending SIGKILL", 1, true),
        err)
      assert.is_true(ms >= 2500 and ms < 15000, "the job took " .. ms .. " ms")
      assert_gone(pids(dir, "pid", 3))
      assert_gone({ pid_in(dir, "child0"), pid_in(dir, "child2") })
    end)

    it("an interpreter that fails in every rank: one report, its status", function()
      local status, _, err = launch({ "--grace", "0", "-n", "2", SUPPORT .. "report.lua",
                                      scratch() }, { env = { CUARR_LUA = "false" } })
      assert.are.equal(1, status, err)
      assert.is_truthy(err:find("^cuarr%-run: rank %d exited with status 1\n$"), err)
    end)
  end)

  describe("a job whose ranks all succeed", function()
    it("still ends what they left running (SIGTERM, then SIGKILL 2 s later)", function()
      local dir = scratch()
      local status, _, err, ms = launch({ "-n", "2", SUPPORT .. "job.lua", dir, "-1", "none",
                                          "orphan" })
      assert.are.equal(0, status, err)
      assert.are.equal("", err)
      assert.is_true(ms >= 2000 and ms < 15000, "the job took " .. ms .. " ms")
      assert_job_gone(dir, 2, { 0, 1 })
    end)
  end)

  describe("a signal to the launcher", function()
    -- Start a job of three sleeping ranks in the background, wait until each has started its
    -- child, send SIG`sig` to the launcher; returns its status and stderr.  The shell is bash
    -- with job control, so that the launcher does not start with SIGINT ignored (as a
    -- background job of a shell without it would).
    local function signal_job(sig, dir)
      local script = fmt([[
set -m
%s %s %s -n 3 %s %s -1 none sleep 2>%s &
p=$!
for r in 0 1 2; do
  n=0
  while [ ! -s %s/child$r ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
done
kill -s %s $p
wait $p
echo "status=$?"
]], CLEAN_ENV, child_env(), LAUNCHER, q(SUPPORT .. "job.lua"), q(dir), q(dir .. "/err"), q(dir),
        sig)
      local ok, out = C.shell("timeout -k 5 60 bash -c " .. q(script))
      assert.is_true(ok, out)
      return tonumber(out:match("status=(%d+)")), read_file(dir .. "/err")
    end

    for _, case in ipairs({ { "INT", 130, "signal 2" }, { "TERM", 143 } }) do
      local sig, expected, ended = case[1], case[2], case[3]
      it("SIG" .. sig .. " goes to every rank; the launcher exits " .. expected, function()
        local dir = scratch()
        local status, err = signal_job(sig, dir)
        assert.are.equal(expected, status, err)
        assert_job_gone(dir, 3, { 0, 1, 2 })
        if ended then
          -- SIGINT reached each rank's child (Lua's os.execute ignores it while it waits)
          for r = 0, 2 do
            assert.are.equal(ended .. "\n", read_file(dir .. "/ended" .. r))
          end
        end
      end)
    end
  end)

  describe("usage errors: a message and status 2", function()
    local script = SUPPORT .. "report.lua"
    local cases = {
      { {}, "-n N is required" },
      { { script }, "-n N is required" },
      { { "-n" }, "option -n needs a value" },
      { { "-n", "0", script }, "-n must be a whole number from 1 to 64, got '0'" },
      { { "-n", "65", script }, "from 1 to 64, got '65'" },
      { { "-n", "3x", script }, "got '3x'" },
      { { "-n", "-1", script }, "got '-1'" },
      { { "-n", "03", script }, "got '03'" },
      { { "-n", "2" }, "no script given" },
      { { "-n", "2", "--" }, "no script given" },
      { { "-n", "2", "does/not/exist.lua" }, "does/not/exist.lua: no such readable file" },
      { { "-n", "2", SUPPORT }, "no such readable file" },
      { { "--frobnicate", "-n", "2", script }, "unknown option --frobnicate" },
      { { "-x", "-n", "2", script }, "unknown option -x" },
      { { "--tag=yes", "-n", "2", script }, "option --tag takes no value" },
      { { "-n", "2", "--grace", "soon", script }, "--grace must be a number of seconds" },
      { { "-n", "2", "--grace" }, "option --grace needs a value" },
      { { "-n", "2", "--timeout", "0", script }, "--timeout must be a positive number" },
      { { "-n", "2", "--timeout", "-3", script }, "--timeout must be a positive number" },
      { { "-n", "2", "--devices", "0", script }, "--devices lists 1 device(s) for 2" },
      { { "-n", "2", "--devices", "0,1,2", script }, "--devices lists 3 device(s) for 2" },
      { { "-n", "2", "--devices", "0,0", script }, "--devices lists device 0 twice" },
      { { "-n", "2", "--devices", "0,a", script }, "--devices: 'a' is not a device id" },
      { { "-n", "2", "--devices", "0,", script }, "is not a device id" },
      { { "-n", "2", "--master-addr", "h", script }, "a master address without a port" },
      { { "-n", "2", "--master-port", "99", script }, "a master port without an address" },
      { { "-n", "2", "--master-addr", "h", "--master-port", "70000", script },
        "the master port must be a number from 1 to 65535" },
      { { "-n", "2", "--id-file", "/tmp/x", "--master-addr", "h", script },
        "--id-file and --master-addr/--master-port exclude each other" },
      { { "-n", "2", "--id-file", script, script }, "exists already" },
      { { "-n", "2", "--id-file", "/does/not/exist/id", script },
        "directory /does/not/exist does not exist" },
    }
    for _, case in ipairs(cases) do
      local words, message = case[1], case[2]
      it(concat(words, " ") .. " -> " .. message, function()
        local status, out, err = launch(words)
        assert.are.equal(2, status, err)
        assert.is_truthy(err:find("^cuarr%-run: "), err)
        assert.is_truthy(err:find(message, 1, true), err)
        assert.are.equal("", out)
      end)
    end

    it("MASTER_PORT alone in the environment is refused too", function()
      local status, _, err = launch({ "-n", "2", script }, { env = { MASTER_PORT = "1" } })
      assert.are.equal(2, status, err)
      assert.is_truthy(err:find("a master port without an address", 1, true), err)
    end)

    it("-h prints the usage on stdout and exits 0", function()
      for _, flag in ipairs({ "-h", "--help" }) do
        local status, out, err = launch({ flag })
        assert.are.equal(0, status, err)
        assert.is_truthy(out:find("^usage: cuarr%-run %[options%] %-n N script%.lua"), out)
        assert.are.equal("", err)
      end
    end)
  end)
end)
