-- cuarr.graph(fn, ...): what fn(...) enqueues, captured once into a CUDA graph to replay with
-- g:launch().  fn runs with a private non-blocking stream current (the legacy null stream
-- cannot be captured, and a blocking stream's capture would be invalidated by work on it); the
-- capture ends even when fn raises, and fn's error is raised again.  Returns the Graph, then
-- what fn returned: arrays fn made are the graph's static outputs, kept alive by it and
-- rewritten by each replay (torch.cuda.graph's static outputs).
local pack, unpack, getmetatable, type, rawget = table.pack, table.unpack, getmetatable, type,
  rawget

-- (M, raise): the device namespace, core.raise.
return function(M, raise)
  function M.graph(fn, ...)
    local m = getmetatable(fn)
    if type(fn) ~= "function" and not (type(m) == "table" and rawget(m, "__call")) then
      raise("TypeError", "graph: argument #1 must be a function, got " .. type(fn))
    end
    local s = M.Stream { non_blocking = true }
    s:begin_capture()
    local results = pack(pcall(M.with_stream, s, fn, ...))
    local ended, graph = pcall(s.end_capture, s)
    if not results[1] then
      if ended then graph:free() end
      error(results[2], 0)
    end
    if not ended then error(graph, 0) end
    return graph, unpack(results, 2, results.n)
  end
end
