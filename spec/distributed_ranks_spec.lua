-- cuarr.distributed with one process per rank, on this machine's CPUs: the ranks are child
-- processes on the stand-in driver and NCCL (tools/fake_cuda), which meet only when every rank
-- was handed rank 0's id, and whose NCCL reports a rank that died.  So these specs check
-- init{} from the environment, both rendezvous, the argument checks, a dead or missing rank
-- turning into a DistributedError instead of a hang, and the calls' paths; the collectives'
-- results need GPUs (distributed_spec's #multigpu specs run spec/support/ranks on them).
require("spec.helper").bind(_ENV)
local child = require "spec.support.child"
local fmt, concat = string.format, table.concat
local sh_quote = child.sh_quote
local LUA = os.getenv("LUA") or "lua5.4"

local function stand_in_nccl()
  return (child.fake_libcuda():gsub("libcuda%.so%.1$", "libnccl_stand_in.so"))
end

-- A free TCP port of this machine (bound by nobody now: the kernel's next ephemeral one is
-- not reused at once).
local function free_port()
  local ok, out = child.shell(LUA .. [[ -e "math.randomseed(os.time()) print(20000 + math.random(0, 20000))"]])
  assert(ok, out)
  return tonumber(out)
end

-- Run `script` (a file under spec/support/ranks) as ranks 0..n-1 (or those of `ranks`), each
-- with env plus CUARR_RANK and CUARR_WORLD_SIZE, on the stand-in driver and NCCL; returns
-- each rank's {ok, output} and the seconds the job took.
local function run_job(script, n, env, ranks)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. sh_quote(dir)))
  local all = {
    CUARR_LIBCUDA = child.fake_libcuda(), CUARR_LIBNCCL = stand_in_nccl(), CUARR_DEVICE = "0",
    CUARR_CACHE_IN_MEMORY = "1", TMPDIR = dir, CUARR_WORLD_SIZE = tostring(n),
  }
  for k, v in pairs(env or {}) do all[k] = v end
  local common = child.env_words(all)
  local jobs = {}
  ranks = ranks or {}
  if #ranks == 0 then for r = 0, n - 1 do ranks[#ranks + 1] = r end end
  for _, r in ipairs(ranks) do
    local out, code = fmt("%s/out%d", dir, r), fmt("%s/code%d", dir, r)
    jobs[#jobs + 1] = fmt("(env %s CUARR_RANK=%d %s spec/support/ranks/%s > %s 2>&1; echo $? > %s) &",
      common, r, LUA, script, sh_quote(out), sh_quote(code))
  end
  local t0 = os.time()
  assert(os.execute("{ " .. concat(jobs, " ") .. " wait; }"))
  local seconds = os.time() - t0
  local results = {}
  for _, r in ipairs(ranks) do
    local out = assert(io.open(fmt("%s/out%d", dir, r))):read("a")
    local code = tonumber(assert(io.open(fmt("%s/code%d", dir, r))):read("a"))
    results[r] = { ok = code == 0, code = code, out = out }
  end
  os.execute("rm -rf " .. sh_quote(dir))
  return results, seconds
end

-- env with the variables of a rendezvous by "TCP" (a free port of this machine) or "id file" (a
-- path nothing is at yet).
local function rendezvous(way, env)
  if way == "TCP" then
    env.MASTER_ADDR, env.MASTER_PORT = "127.0.0.1", tostring(free_port())
  else
    env.CUARR_NCCL_ID_FILE = os.tmpname()
    os.remove(env.CUARR_NCCL_ID_FILE)
  end
  return env
end

describe("distributed: one process per rank (stand-in driver and NCCL)", function()
  for _, way in ipairs { "id file", "TCP" } do
    for _, n in ipairs { 1, 2, 3 } do
      it(fmt("%d ranks meet through the %s and run every collective", n, way), function()
        local env = rendezvous(way, {})
        local results = run_job("collectives.lua", n, env)
        if env.CUARR_NCCL_ID_FILE then os.remove(env.CUARR_NCCL_ID_FILE) end
        for r = 0, n - 1 do
          local res = results[r]
          assert(res.ok, fmt("rank %d: %s", r, res.out))
          local want = fmt("rank %d size %d device 0 <cuarr.Communicator rank %d of %d on device 0>",
            r, n, r, n)
          assert.are.equal(want .. "\ndone\n", res.out)
        end
      end)
    end
  end

  it("3 ranks run every collective with verify on", function()
    local file = os.tmpname()
    os.remove(file)
    local results = run_job("collectives.lua", 3, { CUARR_NCCL_ID_FILE = file,
                                                    CUARR_DISTRIBUTED_VERIFY = "1" })
    os.remove(file)
    for r = 0, 2 do assert(results[r].ok and results[r].out:find("done", 1, true), results[r].out) end
  end)

  it("a rank that dies makes the others fail with a DistributedError, not hang", function()
    local file = os.tmpname()
    os.remove(file)
    local results, seconds = run_job("dies.lua", 3, {
      CUARR_NCCL_ID_FILE = file, CUARR_DIES = "1", CUARR_DISTRIBUTED_TIMEOUT = "20" })
    os.remove(file)
    assert.are.equal(3, results[1].code, results[1].out)
    for _, r in ipairs { 0, 2 } do
      local out = results[r].out
      assert(results[r].ok, out)
      assert(out:match("^DistributedError: [^\n]*another rank has probably died"), out)
      assert(out:find("\nDistributedError\ndestroyed\n", 1, true), out)
    end
    assert(seconds < 20, "the survivors took " .. seconds .. " s")
  end)

  for _, way in ipairs { "id file", "TCP" } do
    it(fmt("a rank whose peers never come fails within the timeout (%s)", way), function()
      local env = rendezvous(way, { CUARR_DISTRIBUTED_TIMEOUT = "1" })
      for _, r in ipairs { 0, 2 } do -- rank 0 waits for the others; rank 2 for rank 0
        local results = run_job("alone.lua", 3, env, { r })
        local out = results[r].out
        assert(out:match("^DistributedError: "), out)
        assert(out:find(r == 0 and "did not join" or "rank 0", 1, true), out)
        assert(tonumber(out:match("seconds (%d+)")) <= 4, out)
      end
      if env.CUARR_NCCL_ID_FILE then os.remove(env.CUARR_NCCL_ID_FILE) end
    end)
  end
end)

describe("distributed.init's options and the environment", function()
  -- `code` run in a child on the stand-in driver and NCCL with env; its stdout.
  local function run(code, env)
    local e = { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_LIBNCCL = stand_in_nccl(),
                CUARR_CACHE_IN_MEMORY = "1" }
    for k, v in pairs(env or {}) do e[k] = v end
    local ok, out, err = child.run([[
      local cuarr = require "cuarr"
      local function try(f, ...)
        local ok, e = pcall(f, ...)
        print(ok and "ok" or e.kind .. ": " .. e.message)
      end
      ]] .. code, e)
    assert(ok, err)
    return out
  end

  -- out's lines match patterns, one each, in order.
  local function expect_lines(out, patterns)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    for k, pattern in ipairs(patterns) do
      assert(lines[k] and lines[k]:match(pattern), ("line %d: want %s in\n%s"):format(k, pattern, out))
    end
  end

  it("says how to start ranks when neither devices nor a rank are given", function()
    local out = run("try(cuarr.distributed.init, {})")
    assert(out:match("^ValueError: .*bin/cuarr%-run"), out)
    out = run("try(cuarr.distributed.init)")
    assert(out:match("^ValueError: .*CUARR_RANK"), out)
    out = run("try(cuarr.distributed.init, {}, 2)")
    assert(out:match("^TypeError: .*at most 1"), out)
  end)

  local cases = {
    { "CUARR_RANK=x", { CUARR_RANK = "x", CUARR_WORLD_SIZE = "2" }, "ValueError: .*CUARR_RANK" },
    { "a rank without a size", { CUARR_RANK = "0" }, "ValueError: .*world size is missing" },
    { "rank past the size", { CUARR_RANK = "2", CUARR_WORLD_SIZE = "2" },
      "ValueError: .*rank 2 is not one of 0 to 1" },
    { "two ranks without a rendezvous", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "2" },
      "ValueError: .*need a rendezvous" },
    { "an address without a port", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "2",
      MASTER_ADDR = "127.0.0.1" }, "ValueError: .*needs a port" },
    { "a port out of range", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "2",
      MASTER_ADDR = "127.0.0.1", MASTER_PORT = "70000" }, "ValueError: .*port" },
    { "a timeout that is not a number", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "1",
      CUARR_DISTRIBUTED_TIMEOUT = "soon" }, "ValueError: .*CUARR_DISTRIBUTED_TIMEOUT" },
    { "a negative timeout", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "1",
      CUARR_DISTRIBUTED_TIMEOUT = "-1" }, "ValueError: .*timeout" },
    { "a device that does not exist", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "1",
      CUARR_DEVICE = "5" }, "ValueError: .*device 5" },
    { "CUARR_DISTRIBUTED_VERIFY=yes", { CUARR_RANK = "0", CUARR_WORLD_SIZE = "1",
      CUARR_DISTRIBUTED_VERIFY = "yes" }, "ValueError: .*CUARR_DISTRIBUTED_VERIFY must be 0 or 1" },
  }
  for _, case in ipairs(cases) do
    it("refuses " .. case[1], function()
      local out = run("try(cuarr.distributed.init, {})", case[2])
      assert(out:match("^" .. case[3]), out)
    end)
  end

  it("refuses options of both ways, unknown ones, and ill-typed ones", function()
    local out = run([[
      try(cuarr.distributed.init, {devices = {0}, rank = 0})
      try(cuarr.distributed.init, {rank = 0, size = 1, device = 0, timeout = 5, color = 1})
      try(cuarr.distributed.init, {rank = 0.5, size = 1})
      try(cuarr.distributed.init, {rank = 0, size = 2, id_file = 7})
      try(cuarr.distributed.init, {rank = 0, size = 2, id_file = "/tmp/x", address = "h", port = 1})
      try(cuarr.distributed.init, {rank = 0, size = 1}, 5)
      try(cuarr.distributed.init, {rank = 0, size = 1, verify = "yes"})
      try(cuarr.distributed.init, {devices = {0}, verify = true})
    ]])
    expect_lines(out, {
      "^ValueError: .*do not go together",
      "^ValueError: .*color",
      "^ValueError: .*rank must be an integer",
      "^TypeError: .*id_file must be a string",
      "^ValueError: .*not both",
      "^TypeError: .*at most 1",
      "^TypeError: .*verify must be a boolean",
      "^ValueError: .*devices .* and verify .* do not go together",
    })
  end)

  it("makes a rank of one from options, with torchrun's variable names too", function()
    local out = run([[
      local comm = cuarr.distributed.init {rank = 0, size = 1, device = cuarr.Device(0)}
      print(comm.rank, comm.size, comm.device.id, #comm.devices)
      comm:destroy()
      comm = cuarr.distributed.init {}
      print(comm.rank, comm.size)
      local x = cuarr.arange(6, "int32")
      try(comm.all_reduce, comm, x, "sum", {stream = cuarr.Stream()})
      try(comm.all_reduce, comm, {x}, "sum")
      try(comm.all_gather, comm, x, cuarr.empty(6, "int32"))
      try(comm.broadcast, comm, x, 1)
      try(comm.send, comm, x, 0)
      try(comm.recv, comm, {x}, 0)
      try(comm.all_reduce, comm, x, "sum", {stream = cuarr.Stream(), streams = {cuarr.Stream()}})
      try(comm.all_reduce, comm, x, "sum", {stream = 3})
      try(comm.all_reduce, comm, cuarr.cpu.arange(6), "sum")
      comm:barrier()
      comm:destroy()
      try(comm.all_reduce, comm, x, "sum")
    ]], { RANK = "0", WORLD_SIZE = "1", LOCAL_RANK = "0" })
    expect_lines(out, {
      "^0\t1\t0\t1$",
      "^0\t1$",
      "^ok$",
      "^ok$",
      "^ok$",
      "^ValueError: .*root 1 is not a rank",
      "^ValueError: .*peer 0 is not another rank",
      "^TypeError: .*must be an array",
      "^ValueError: .*stream or streams",
      "^TypeError: .*stream must be a Stream",
      "^TypeError: .*host array",
      "^ValueError: .*destroyed",
    })
  end)

  it("a communicator of one process over several devices keeps send_recv for sends", function()
    local out = run([[
      local comm = cuarr.distributed.init {devices = {0}}
      print(comm.rank, comm.device, comm.size)
      try(comm.send, comm, cuarr.ones(2), 0)
      try(comm.all_reduce, comm, cuarr.ones(2), "sum")
      try(comm.all_reduce, comm, cuarr.ones(2), "sum", {stream = cuarr.Stream()})
      comm:destroy()
    ]])
    expect_lines(out, {
      "^nil\tnil\t1$",
      "^ValueError: .*send_recv",
      "^ok$",
      "^ok$",
    })
  end)
end)
