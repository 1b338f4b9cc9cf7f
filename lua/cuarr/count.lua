-- cuarr.count: the count of a table of arguments that is about to be unpacked -- its n, else
-- its # -- checked first, so that a fractional, negative or huge count is a cuarr error rather
-- than table.unpack's own.  count(raise, t, what, max) -> n.
local math_type = math.type

return function(raise, t, what, max)
  local n = t.n
  if n == nil then n = #t end
  if math_type(n) ~= "integer" then
    raise("TypeError", what .. ": the count of the table (its n, or #) must be an integer, got "
      .. tostring(n))
  end
  if n < 0 or n > max then
    raise("ValueError", what .. ": the count of the table must be 0 to " .. max .. ", got " .. n)
  end
  return n
end
