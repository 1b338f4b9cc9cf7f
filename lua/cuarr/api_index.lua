-- cuarr.api_index -- the public API in one table: every function of cuarr and its namespaces,
-- every method and field of the classes, each with its signature and one line saying what it
-- does.  tools/api_index.lua writes docs/api.md from it (`make docs`), and spec/api_index_spec.lua
-- fails when a public function (enumerated from the loaded module and the classes' metatables)
-- is missing here, when this names something that does not exist, or when docs/api.md is stale:
-- a function added to cuarr gets its line here in the same change.
--
-- Each section is { title =, module = "cuarr" | "cuarr.linalg" | ... | class = "Stream", intro =,
-- entries = { { name, signature, description, where }, ... } }.  `where` says where else the
-- name exists: "h" in the host namespace too (cuarr.cpu, cuarr.cpu.linalg, cuarr.cpu.random),
-- "m" also as an ndarray method (`a:name(...)`, the array as first argument), "hm" both; absent,
-- only where the section says.  Sections with `fields = true` list fields, not functions.
-- Optional arguments are in brackets; `opts` is an options table (unknown keys are ValueErrors).
local S = {}

local function section(t) S[#S + 1] = t end

section { title = "Creating arrays", module = "cuarr", entries = {
  { "array", "array(data[, dtype][, {order =, copy =}])", "an array of a nested table, number, or array", "h" },
  { "asarray", "asarray(data[, dtype][, {order =}])", "as `array`, without copying an array already of that dtype and place", "h" },
  { "empty", "empty(shape[, dtype][, {order =, pinned =}])", "an uninitialised array", "h" },
  { "zeros", "zeros(shape[, dtype][, opts])", "an array of zeros", "h" },
  { "ones", "ones(shape[, dtype][, opts])", "an array of ones", "h" },
  { "full", "full(shape, value[, dtype][, opts])", "an array filled with `value`", "h" },
  { "empty_like", "empty_like(a[, dtype][, {order =, shape =}])", "an uninitialised array of `a`'s shape and dtype", "h" },
  { "zeros_like", "zeros_like(a[, dtype][, opts])", "zeros of `a`'s shape and dtype", "h" },
  { "ones_like", "ones_like(a[, dtype][, opts])", "ones of `a`'s shape and dtype", "h" },
  { "full_like", "full_like(a, value[, dtype][, opts])", "`value` in `a`'s shape and dtype", "h" },
  { "arange", "arange([start,] stop[, step][, dtype])", "evenly spaced values in [start, stop), NumPy's", "h" },
  { "linspace", "linspace(start, stop[, num = 50][, dtype][, {endpoint =}])", "`num` evenly spaced values from start to stop", "h" },
  { "eye", "eye(n[, m[, k]][, dtype])", "an n x m array with ones on diagonal k", "h" },
  { "identity", "identity(n[, dtype])", "the n x n identity", "h" },
  { "diag", "diag(v[, k])", "the diagonal of a 2-D array, or a 2-D array with `v` on diagonal k", "h" },
  { "diagflat", "diagflat(v[, k])", "a 2-D array with flattened `v` on diagonal k", "h" },
  { "tril", "tril(a[, k])", "the lower triangle (below diagonal k zeroed above)", "h" },
  { "triu", "triu(a[, k])", "the upper triangle", "h" },
  { "indices", "indices(dimensions[, dtype])", "a grid of 0-based indices, one array per axis", "h" },
  { "meshgrid", "meshgrid(x1, x2, ...[, {indexing =, sparse =, copy =}])", "coordinate arrays from coordinate vectors", "h" },
  { "device_array", "device_array(shape[, dtype][, {order =, stream =}])", "Numba's name: an uninitialised device array" },
  { "device_array_like", "device_array_like(a)", "Numba's name: an uninitialised device array like `a`" },
  { "pinned_array", "pinned_array(shape[, dtype])", "a host array in page-locked memory" },
} }

section { title = "Transfers, conversion and dtypes", module = "cuarr", entries = {
  { "to_device", "to_device(h[, stream])", "a device copy of a host array or nested table" },
  { "asnumpy", "asnumpy(d[, stream])", "a host copy of an array" },
  { "astype", "astype(a, dtype[, {order =, copy =}])", "a copy converted to `dtype` (float to integer saturates)", "hm" },
  { "copy", "copy(a[, {order =}])", "a copy of `a`", "hm" },
  { "ascontiguousarray", "ascontiguousarray(a[, dtype])", "`a`, or a C-contiguous copy of it", "hm" },
  { "fill", "fill(a, value)", "fills `a` with `value` in place", "m" },
  { "result_type", "result_type(...)", "the dtype NumPy 2 gives the arrays, dtypes and Lua numbers together", "h" },
  { "get_array_module", "get_array_module(a, ...)", "`cuarr` for device arrays, `cuarr.cpu` otherwise", "h" },
  { "get_default_dtype", "get_default_dtype()", "the dtype Lua floats make (float64 unless changed)", "h" },
  { "set_default_dtype", "set_default_dtype(dtype)", "sets the dtype Lua floats make", "h" },
  { "may_share_memory", "may_share_memory(a, b)", "whether the byte ranges of two arrays overlap", "h" },
  { "as_cuda_array", "as_cuda_array(obj)", "a device array viewing an object's `__cuda_array_interface__` memory" },
  { "is_cuda_array", "is_cuda_array(obj)", "whether `obj` exports a CUDA array interface" },
  { "is_error", "is_error(e[, kind])", "whether `e` is a cuarr error (of that kind)" },
} }

section { title = "Shapes and views", module = "cuarr", entries = {
  { "reshape", "reshape(a, shape | d1, d2, ...[, {order =}])", "a view (or copy) of a new shape; -1 is inferred", "hm" },
  { "ravel", "ravel(a[, {order =}])", "a 1-D view (or copy)", "hm" },
  { "flatten", "flatten(a[, {order =}])", "a 1-D copy", "hm" },
  { "transpose", "transpose(a[, axes | ax1, ax2, ...])", "a view with axes permuted (reversed by default)", "hm" },
  { "swapaxes", "swapaxes(a, axis1, axis2)", "a view with two axes exchanged", "hm" },
  { "moveaxis", "moveaxis(a, source, destination)", "a view with axes moved", "h" },
  { "rollaxis", "rollaxis(a, axis[, start])", "a view with `axis` rolled to `start`", "h" },
  { "squeeze", "squeeze(a[, axis])", "a view without axes of extent 1", "hm" },
  { "expand_dims", "expand_dims(a, axis)", "a view with a new axis of extent 1", "hm" },
  { "atleast_1d", "atleast_1d(a, ...)", "views of at least one dimension", "h" },
  { "atleast_2d", "atleast_2d(a, ...)", "views of at least two dimensions", "h" },
  { "atleast_3d", "atleast_3d(a, ...)", "views of at least three dimensions", "h" },
  { "broadcast_to", "broadcast_to(a, shape)", "a read-only broadcast view of `a`", "h" },
  { "broadcast_arrays", "broadcast_arrays(a, b, ...)", "views of the arrays broadcast against each other", "h" },
  { "diagonal", "diagonal(a[, offset[, axis1[, axis2]]])", "a view of a diagonal", "hm" },
} }

section { title = "Joining and splitting", module = "cuarr", entries = {
  { "concatenate", "concatenate(arrays[, axis = 1][, {out =, dtype =}])", "joins arrays along an existing axis", "h" },
  { "stack", "stack(arrays[, axis = 1][, {out =, dtype =}])", "joins arrays along a new axis", "h" },
  { "hstack", "hstack(arrays)", "joins along the second axis (first for 1-D)", "h" },
  { "vstack", "vstack(arrays)", "joins along the first axis, 1-D arrays as rows", "h" },
  { "dstack", "dstack(arrays)", "joins along the third axis", "h" },
  { "column_stack", "column_stack(arrays)", "joins 1-D arrays as columns", "h" },
  { "split", "split(a, sections | indices[, axis])", "splits into equal sections or at 1-based indices", "h" },
  { "array_split", "array_split(a, sections | indices[, axis])", "as `split`, sections may be unequal", "h" },
  { "hsplit", "hsplit(a, sections | indices)", "splits along the second axis", "h" },
  { "vsplit", "vsplit(a, sections | indices)", "splits along the first axis", "h" },
  { "dsplit", "dsplit(a, sections | indices)", "splits along the third axis", "h" },
} }

section { title = "Rearranging", module = "cuarr", entries = {
  { "tile", "tile(a, reps)", "`a` repeated `reps` times along each axis", "h" },
  { "repeat", "repeat(a, repeats[, axis])", "each element repeated (`repeat_` is the same: `repeat` is a Lua keyword)", "hm" },
  { "repeat_", "repeat_(a, repeats[, axis])", "`repeat` under a name Lua code can write as `xp.repeat_`", "hm" },
  { "flip", "flip(a[, axis])", "a view with the order reversed along axes", "h" },
  { "fliplr", "fliplr(a)", "a view flipped along the second axis", "h" },
  { "flipud", "flipud(a)", "a view flipped along the first axis", "h" },
  { "roll", "roll(a, shift[, axis])", "elements rolled along axes", "h" },
  { "rot90", "rot90(a[, k[, axes]])", "rotated by 90 degrees k times", "h" },
  { "pad", "pad(a, pad_width[, mode][, {constant_values =, ...}])", "a padded copy (NumPy's modes)", "h" },
  { "kron", "kron(a, b)", "the Kronecker product", "h" },
} }

section { title = "Indexing with arrays and masks", module = "cuarr", entries = {
  { "take", "take(a, indices[, axis[, {out =, mode =}]])", "elements at 1-based indices", "hm" },
  { "take_along_axis", "take_along_axis(a, indices, axis)", "elements picked along an axis", "h" },
  { "put", "put(a, indices, values[, {mode =}])", "writes values at flat 1-based indices", "hm" },
  { "put_along_axis", "put_along_axis(a, indices, values, axis)", "writes values along an axis", "h" },
  { "place", "place(a, mask, values)", "writes values, cycled, where mask is true", "h" },
  { "putmask", "putmask(a, mask, values)", "writes values where mask is true, values broadcast by position", "h" },
  { "choose", "choose(a, choices[, {out =, mode =}])", "picks from `choices` by 1-based index arrays", "h" },
  { "compress", "compress(condition, a[, axis[, {out =}]])", "the slices where condition is true", "h" },
  { "extract", "extract(condition, a)", "the elements where condition is true, flattened", "h" },
  { "select", "select(condlist, choicelist[, default])", "per element, the first choice whose condition holds", "h" },
  { "where", "where(condition[, x, y])", "x where condition else y; with one argument, `nonzero`", "hm" },
  { "nonzero", "nonzero(a)", "the 1-based indices of nonzero elements, one array per axis", "hm" },
  { "flatnonzero", "flatnonzero(a)", "the 1-based flat indices of nonzero elements", "h" },
  { "argwhere", "argwhere(a)", "the 1-based indices of nonzero elements, one row each", "h" },
} }

-- The ufuncs: (name, description) for those of one argument, then of two.
local unary = {
  { "negative", "-x" }, { "positive", "+x" }, { "absolute", "|x|" }, { "abs", "|x| (absolute)" },
  { "sign", "the sign of x" }, { "exp", "e^x" }, { "exp2", "2^x" }, { "expm1", "e^x - 1" },
  { "log", "the natural logarithm" }, { "log2", "the base-2 logarithm" },
  { "log10", "the base-10 logarithm" }, { "log1p", "log(1 + x)" }, { "sqrt", "the square root" },
  { "cbrt", "the cube root" }, { "square", "x * x" }, { "reciprocal", "1 / x" },
  { "sin", "the sine" }, { "cos", "the cosine" }, { "tan", "the tangent" },
  { "arcsin", "the inverse sine" }, { "asin", "the inverse sine (arcsin)" },
  { "arccos", "the inverse cosine" }, { "acos", "the inverse cosine (arccos)" },
  { "arctan", "the inverse tangent" }, { "atan", "the inverse tangent (arctan)" },
  { "sinh", "the hyperbolic sine" }, { "cosh", "the hyperbolic cosine" },
  { "tanh", "the hyperbolic tangent" }, { "arcsinh", "the inverse hyperbolic sine" },
  { "asinh", "the inverse hyperbolic sine (arcsinh)" },
  { "arccosh", "the inverse hyperbolic cosine" }, { "acosh", "the inverse hyperbolic cosine (arccosh)" },
  { "arctanh", "the inverse hyperbolic tangent" }, { "atanh", "the inverse hyperbolic tangent (arctanh)" },
  { "floor", "rounded down" }, { "ceil", "rounded up" }, { "trunc", "rounded toward zero" },
  { "rint", "rounded to the nearest integer, ties to even" },
  { "isnan", "whether x is NaN" }, { "isinf", "whether x is infinite" },
  { "isfinite", "whether x is finite" }, { "logical_not", "not x" },
  { "invert", "~x, bitwise (not for bool)" }, { "bitwise_not", "~x (invert)" },
  { "bitwise_invert", "~x (invert)" },
}
local binary = {
  { "add", "x1 + x2" }, { "subtract", "x1 - x2" }, { "multiply", "x1 * x2" },
  { "divide", "x1 / x2, true division" }, { "true_divide", "x1 / x2 (divide)" },
  { "floor_divide", "x1 // x2, rounded down" }, { "remainder", "x1 % x2, the sign of x2" },
  { "mod", "x1 % x2 (remainder)" }, { "power", "x1 ^ x2" }, { "pow", "x1 ^ x2 (power)" },
  { "arctan2", "the angle of (x2, x1)" }, { "atan2", "the angle of (x2, x1) (arctan2)" },
  { "hypot", "sqrt(x1^2 + x2^2)" }, { "maximum", "the larger, NaN propagating" },
  { "minimum", "the smaller, NaN propagating" }, { "fmax", "the larger, NaN skipped" },
  { "fmin", "the smaller, NaN skipped" }, { "copysign", "x1 with the sign of x2" },
  { "equal", "x1 == x2" }, { "not_equal", "x1 ~= x2" }, { "less", "x1 < x2" },
  { "less_equal", "x1 <= x2" }, { "greater", "x1 > x2" }, { "greater_equal", "x1 >= x2" },
  { "logical_and", "x1 and x2" }, { "logical_or", "x1 or x2" }, { "logical_xor", "x1 xor x2" },
  { "bitwise_and", "x1 & x2" }, { "bitwise_or", "x1 | x2" }, { "bitwise_xor", "x1 ~ x2 (xor)" },
  { "left_shift", "x1 << x2" }, { "bitwise_left_shift", "x1 << x2 (left_shift)" },
  { "right_shift", "x1 >> x2" }, { "bitwise_right_shift", "x1 >> x2 (right_shift)" },
}
local ufuncs = {}
for _, u in ipairs(unary) do
  ufuncs[#ufuncs + 1] = { u[1], u[1] .. "(x[, out])", "elementwise: " .. u[2], "hm" }
end
for _, u in ipairs(binary) do
  ufuncs[#ufuncs + 1] = { u[1], u[1] .. "(x1, x2[, out])", "elementwise, broadcasting: " .. u[2], "hm" }
end
ufuncs[#ufuncs + 1] = { "clip", "clip(a, a_min, a_max[, out])", "elementwise: `a` limited to [a_min, a_max]", "hm" }
section { title = "Elementwise operations (ufuncs)", module = "cuarr", intro =
  "Lua numbers are accepted for any operand (weak scalars); `out` is an array to write, which may alias an input. Operators call the same: `+ - * / // % ^`, unary `-`, `& | ~ << >>`.",
  entries = ufuncs }

section { title = "Reductions and scans", module = "cuarr", intro =
  "`axis` is a 1-based axis or a table of them (nil: all); `opts` takes `axis`, `keepdims`, `dtype`, `out` (and `ddof` for var and std).",
  entries = {
  { "sum", "sum(a[, axis][, opts])", "the sum (bool and integers widen to int64)", "hm" },
  { "prod", "prod(a[, axis][, opts])", "the product", "hm" },
  { "min", "min(a[, axis][, opts])", "the smallest element, NaN propagating", "hm" },
  { "max", "max(a[, axis][, opts])", "the largest element, NaN propagating", "hm" },
  { "amin", "amin(a[, axis][, opts])", "`min`", "hm" },
  { "amax", "amax(a[, axis][, opts])", "`max`", "hm" },
  { "argmin", "argmin(a[, axis][, opts])", "the 1-based index of the smallest element", "hm" },
  { "argmax", "argmax(a[, axis][, opts])", "the 1-based index of the largest element", "hm" },
  { "all", "all(a[, axis][, opts])", "whether every element is true", "hm" },
  { "any", "any(a[, axis][, opts])", "whether some element is true", "hm" },
  { "count_nonzero", "count_nonzero(a[, axis][, opts])", "the number of nonzero elements", "hm" },
  { "nansum", "nansum(a[, axis][, opts])", "the sum, NaN counted as 0", "hm" },
  { "nanprod", "nanprod(a[, axis][, opts])", "the product, NaN counted as 1", "hm" },
  { "nanmin", "nanmin(a[, axis][, opts])", "the smallest element, NaN skipped", "hm" },
  { "nanmax", "nanmax(a[, axis][, opts])", "the largest element, NaN skipped", "hm" },
  { "mean", "mean(a[, axis][, opts])", "the arithmetic mean", "hm" },
  { "nanmean", "nanmean(a[, axis][, opts])", "the mean of the non-NaN elements", "hm" },
  { "var", "var(a[, axis][, opts])", "the variance (`ddof`)", "hm" },
  { "std", "std(a[, axis][, opts])", "the standard deviation (`ddof`)", "hm" },
  { "ptp", "ptp(a[, axis][, opts])", "max - min", "hm" },
  { "cumsum", "cumsum(a[, axis][, {dtype =, out =}])", "the cumulative sum", "hm" },
  { "cumprod", "cumprod(a[, axis][, {dtype =, out =}])", "the cumulative product", "hm" },
  { "trace", "trace(a[, offset[, axis1[, axis2]]][, {dtype =, out =}])", "the sum along a diagonal", "hm" },
} }

section { title = "Matrix products", module = "cuarr", entries = {
  { "matmul", "matmul(a, b[, {out =, dtype =}])", "the matrix product, stacked and broadcast (NumPy's `@`)", "hm" },
  { "dot", "dot(a, b[, out])", "NumPy's dot product", "hm" },
  { "vdot", "vdot(a, b)", "the dot product of two arrays flattened", "h" },
  { "inner", "inner(a, b)", "the inner product over the last axes", "h" },
  { "outer", "outer(a, b[, out])", "the outer product of two arrays flattened", "h" },
  { "tensordot", "tensordot(a, b[, axes = 2])", "the sum of products over the given axes", "h" },
  { "get_matmul_precision", "get_matmul_precision()", "how float32 products may compute (\"highest\", \"high\", \"medium\")", "h" },
  { "set_matmul_precision", "set_matmul_precision(precision)", "sets it (\"high\" allows TF32)", "h" },
} }

section { title = "Sorting and searching", module = "cuarr", entries = {
  { "sort", "sort(a[, axis = -1][, {kind =, stable =}])", "a sorted copy, NaN last", "hm" },
  { "argsort", "argsort(a[, axis = -1][, {kind =, stable =}])", "the 1-based indices that sort `a`", "hm" },
  { "lexsort", "lexsort(keys[, axis])", "the indices that sort by several keys, the last primary", "h" },
  { "partition", "partition(a, kth[, axis])", "a copy with element kth in its sorted place", "hm" },
  { "argpartition", "argpartition(a, kth[, axis])", "the indices that partition `a`", "hm" },
  { "searchsorted", "searchsorted(sorted, v[, side | {side =, sorter =}])", "the 1-based insertion points of `v`", "hm" },
} }

section { title = "Counting and sets", module = "cuarr", entries = {
  { "bincount", "bincount(x[, {weights =, minlength =}])", "the count of each non-negative integer", "h" },
  { "histogram", "histogram(a[, bins = 10][, {range =, weights =, density =}])", "counts and bin edges", "h" },
  { "histogram_bin_edges", "histogram_bin_edges(a[, bins = 10][, {range =, weights =}])", "the bin edges `histogram` would use", "h" },
  { "digitize", "digitize(x, bins[, right = false])", "the 1-based bin each element falls in", "h" },
  { "unique", "unique(a[, {return_index =, return_inverse =, return_counts =, equal_nan =}])", "the sorted unique elements", "h" },
  { "isin", "isin(a, test[, {invert =}])", "whether each element is in `test`", "h" },
  { "in1d", "in1d(a, test[, {invert =}])", "`isin` of `a` flattened", "h" },
  { "intersect1d", "intersect1d(a, b[, {assume_unique =, return_indices =}])", "the sorted common elements", "h" },
  { "union1d", "union1d(a, b)", "the sorted elements of either", "h" },
  { "setdiff1d", "setdiff1d(a, b[, {assume_unique =}])", "the sorted elements of `a` not in `b`", "h" },
  { "setxor1d", "setxor1d(a, b[, {assume_unique =}])", "the sorted elements in exactly one", "h" },
} }

section { title = "Devices, streams and events", module = "cuarr", entries = {
  { "is_available", "is_available()", "whether a CUDA device is usable" },
  { "runtime_info", "runtime_info()", "a table of driver, NVRTC, cuBLAS, NCCL versions and the device count" },
  { "Device", "Device([id])", "a device handle (0-based id; the current one by default), with fields `id`, `properties`, `compute_capability`" },
  { "get_device_id", "get_device_id()", "the current device's id" },
  { "with_device", "with_device(device, fn, ...)", "calls fn with `device` current" },
  { "synchronize", "synchronize()", "waits for all work of the current device" },
  { "Stream", "Stream([{non_blocking =, priority =}])", "a new stream" },
  { "null_stream", "null_stream()", "the legacy default stream" },
  { "get_current_stream", "get_current_stream()", "the stream operations are queued on" },
  { "with_stream", "with_stream(stream, fn, ...)", "calls fn with `stream` current" },
  { "Event", "Event([{timing =, blocking =}])", "a new event" },
  { "get_elapsed_time", "get_elapsed_time(start, stop)", "milliseconds between two recorded events" },
  { "perf_counter", "perf_counter()", "a monotonic clock in seconds, for timing" },
} }

section { title = "Memory", module = "cuarr", entries = {
  { "get_default_memory_pool", "get_default_memory_pool()", "the device memory pool of the current device" },
  { "get_default_pinned_memory_pool", "get_default_pinned_memory_pool()", "the page-locked host memory pool" },
  { "defer_cleanup", "defer_cleanup()", "a `<close>` guard that holds frees until its scope ends (Numba's)" },
  { "pinned", "pinned(h1, h2, ...)", "a `<close>` scope that page-locks existing host arrays (Numba's)" },
  { "with_pinned", "with_pinned({h1, h2, ...}, fn, ...)", "calls fn with the host arrays page-locked" },
} }

section { title = "Kernels of your own, graphs, profiling", module = "cuarr", entries = {
  { "ElementwiseKernel", "ElementwiseKernel(in_params, out_params, operation, name[, opts])", "an elementwise kernel of CUDA C (CuPy's)" },
  { "ReductionKernel", "ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name[, opts])", "a reduction kernel of CUDA C (CuPy's)" },
  { "RawModule", "RawModule{code = | path =, options =, name_expressions =}", "a module of CUDA C compiled with NVRTC" },
  { "RawKernel", "RawKernel(code, name[, {options =, dependent_launch =}])", "a kernel of CUDA C, compiled on first use" },
  { "vectorize", "vectorize(signatures, fn)", "a ufunc of a scalar Lua function (Numba's @vectorize)" },
  { "fuse", "fuse(fn[, {kernel_name =}])", "one kernel of an array-level Lua function (CuPy's fuse)" },
  { "graph", "graph(fn, ...)", "captures fn's work on a stream into a CUDA graph; returns the Graph and fn's results" },
} }

section { title = "cuarr.linalg", module = "cuarr.linalg", intro =
  "Device arrays through cuBLAS and cuSOLVER; `cuarr.cpu.linalg` has the same on host arrays (LAPACK).",
  entries = {
  { "norm", "norm(x[, ord[, axis]][, {keepdims =}])", "a vector or matrix norm", "h" },
  { "det", "det(a)", "the determinant", "h" },
  { "slogdet", "slogdet(a)", "the sign and log of the absolute value of the determinant", "h" },
  { "inv", "inv(a)", "the inverse", "h" },
  { "pinv", "pinv(a[, rcond])", "the pseudo-inverse", "h" },
  { "solve", "solve(a, b)", "x with a x = b", "h" },
  { "lstsq", "lstsq(a, b[, rcond])", "the least-squares solution, residuals, rank and singular values", "h" },
  { "cholesky", "cholesky(a)", "the lower Cholesky factor", "h" },
  { "qr", "qr(a[, mode])", "the QR decomposition (\"reduced\", \"complete\" or \"r\")", "h" },
  { "svd", "svd(a[, {full_matrices =, compute_uv =}])", "the singular value decomposition", "h" },
  { "eigh", "eigh(a[, UPLO])", "the eigenvalues and eigenvectors of a symmetric matrix", "h" },
  { "eigvalsh", "eigvalsh(a[, UPLO])", "the eigenvalues of a symmetric matrix", "h" },
  { "matrix_power", "matrix_power(a, n)", "a raised to the integer n", "h" },
  { "matrix_rank", "matrix_rank(a[, tol])", "the rank by SVD", "h" },
} }

section { title = "cuarr.random", module = "cuarr.random", intro =
  "Draws into device arrays; `cuarr.cpu.random` the same into host arrays. `size` is a shape (nil: one 0-d draw); `opts` takes `dtype` and `out`.",
  entries = {
  { "seed", "seed([s])", "reseeds the global generator", "h" },
  { "default_rng", "default_rng([seed])", "a new Generator (its methods are the functions below)", "h" },
  { "random", "random([size][, dtype][, opts])", "uniform floats in [0, 1)", "h" },
  { "random_sample", "random_sample([size][, opts])", "`random`", "h" },
  { "ranf", "ranf([size][, opts])", "`random`", "h" },
  { "sample", "sample([size][, opts])", "`random`", "h" },
  { "rand", "rand(d1, d2, ...)", "uniform floats in [0, 1) of that shape", "h" },
  { "randn", "randn(d1, d2, ...)", "standard normal floats of that shape", "h" },
  { "uniform", "uniform([low = 0[, high = 1[, size]]][, opts])", "uniform floats in [low, high)", "h" },
  { "normal", "normal([loc = 0[, scale = 1[, size]]][, opts])", "normal floats", "h" },
  { "standard_normal", "standard_normal([size][, dtype][, opts])", "standard normal floats", "h" },
  { "exponential", "exponential([scale = 1[, size]][, opts])", "exponential floats", "h" },
  { "integers", "integers(low[, high[, size[, dtype]]][, {endpoint =, out =}])", "integers in [low, high), without modulo bias", "h" },
  { "randint", "randint(low[, high[, size[, dtype]]])", "integers in [low, high)", "h" },
  { "choice", "choice(a[, size[, replace = true[, p]]])", "a random sample of `a` (or of arange(a))", "h" },
  { "permutation", "permutation(x)", "a shuffled copy of `x` (or of arange(x))", "h" },
  { "shuffle", "shuffle(a)", "shuffles `a` in place along its first axis", "h" },
} }

section { title = "cuarr.jit", module = "cuarr.jit", intro =
  "Kernels written in Lua (CuPy's jit.rawkernel, Numba's cuda.jit); the functions below other than `rawkernel` and `device` are for use inside them, with `jit.threadIdx`, `jit.blockIdx`, `jit.blockDim`, `jit.gridDim` (`.x .y .z`, 0-based) and `jit.warpsize`.",
  entries = {
  { "rawkernel", "rawkernel(fn[, {options =}])", "a kernel of a Lua function, launched as `k(grid, block, args)`" },
  { "device", "device(fn)", "a device function a kernel may call" },
  { "grid", "grid(n)", "the thread's 1-based global index along 1 to n axes (`local i, j = jit.grid(2)`)" },
  { "gridsize", "gridsize(n)", "the grid's stride along 1 to n axes" },
  { "syncthreads", "syncthreads()", "the block's barrier" },
  { "syncwarp", "syncwarp([mask])", "the warp's barrier" },
  { "shared_array", "shared_array(dtype, n)", "an array in the block's shared memory" },
  { "local_array", "local_array(dtype, n)", "an array in the thread's local memory" },
  { "atomic_add", "atomic_add(array, index, value)", "adds atomically, returning the old value" },
  { "atomic_sub", "atomic_sub(array, index, value)", "subtracts atomically, returning the old value" },
  { "atomic_exch", "atomic_exch(array, index, value)", "exchanges atomically, returning the old value" },
  { "atomic_min", "atomic_min(array, index, value)", "the minimum, atomically" },
  { "atomic_max", "atomic_max(array, index, value)", "the maximum, atomically" },
  { "atomic_and", "atomic_and(array, index, value)", "bitwise and, atomically" },
  { "atomic_or", "atomic_or(array, index, value)", "bitwise or, atomically" },
  { "atomic_xor", "atomic_xor(array, index, value)", "bitwise xor, atomically" },
  { "atomic_cas", "atomic_cas(array, index, old, new)", "writes `new` where the element is `old`, atomically; returns the old value" },
  { "int8", "int8(x)", "a cast to int8 inside a kernel" },
  { "int16", "int16(x)", "a cast to int16 inside a kernel" },
  { "int32", "int32(x)", "a cast to int32 inside a kernel" },
  { "int64", "int64(x)", "a cast to int64 inside a kernel" },
  { "uint8", "uint8(x)", "a cast to uint8 inside a kernel" },
  { "uint16", "uint16(x)", "a cast to uint16 inside a kernel" },
  { "uint32", "uint32(x)", "a cast to uint32 inside a kernel" },
  { "uint64", "uint64(x)", "a cast to uint64 inside a kernel" },
  { "float32", "float32(x)", "a cast to float32 inside a kernel" },
  { "float64", "float64(x)", "a cast to float64 inside a kernel" },
} }

section { title = "cuarr.distributed", module = "cuarr.distributed", entries = {
  { "is_available", "is_available()", "whether NCCL loads and a device is usable" },
  { "init", "init{devices = | rank =, world_size =, ..., verify =, timeout =}", "a Communicator over the given devices or launched ranks" },
} }

section { title = "cuarr.profiler", module = "cuarr.profiler", entries = {
  { "benchmark", "benchmark(fn, args[, {n_repeat =, n_warmup =, max_duration =, name =}])", "times fn on the CPU and the GPU (CuPy's)" },
} }

section { title = "Constants and tables", module = "cuarr", fields = true, entries = {
  { "bool", "cuarr.bool", "the dtype name \"bool\" (and so on for every dtype)" },
  { "int8", "cuarr.int8", "\"int8\"" }, { "int16", "cuarr.int16", "\"int16\"" },
  { "int32", "cuarr.int32", "\"int32\"" }, { "int64", "cuarr.int64", "\"int64\"" },
  { "uint8", "cuarr.uint8", "\"uint8\"" }, { "uint16", "cuarr.uint16", "\"uint16\"" },
  { "uint32", "cuarr.uint32", "\"uint32\"" }, { "uint64", "cuarr.uint64", "\"uint64\"" },
  { "float16", "cuarr.float16", "\"float16\"" }, { "float32", "cuarr.float32", "\"float32\"" },
  { "float64", "cuarr.float64", "\"float64\"" },
  { "newaxis", "cuarr.newaxis", "a new axis of extent 1 in an index" },
  { "runtime", "cuarr.runtime", "driver_version, nvrtc_version, cublas_version, nccl_version (-1 without NCCL), device_count, driver_missing, host_blas" },
  { "ndarray", "cuarr.ndarray", "the array class's metatable (`getmetatable(a) == cuarr.ndarray`)" },
  { "cpu", "cuarr.cpu", "the host namespace: the functions marked host, on host arrays" },
  { "__version__", "cuarr.__version__", "the version string" },
} }

section { title = "ndarray methods", class = "ndarray", intro =
  "Besides these, every function marked \"a:\" above is a method with the array as first argument (`a:sum(2)` is `cuarr.sum(a, 2)`).",
  entries = {
  { "get", "a:get([stream])", "a host copy" },
  { "set", "a:set(h[, stream])", "copies a host array or nested table in" },
  { "copy_to_host", "a:copy_to_host([h][, stream])", "a host copy, into `h` when given (Numba's)" },
  { "totable", "a:totable()", "nested Lua tables of the elements" },
  { "item", "a:item()", "the Lua number (or boolean) of a one-element array" },
  { "iter", "a:iter()", "an iterator over the first axis: i, a[i]" },
  { "free", "a:free()", "frees the memory now (the array is then unusable)" },
  { "str", "a:str()", "NumPy's str of the array" },
  { "repr", "a:repr()", "NumPy's repr of the array" },
  { "is_c_contiguous", "a:is_c_contiguous()", "whether the layout is C-contiguous" },
  { "is_f_contiguous", "a:is_f_contiguous()", "whether the layout is Fortran-contiguous" },
  { "setflags", "a:setflags{write = bool}", "makes the array read-only, or writable again where its memory allows" },
  { "lt", "a:lt(b)", "a < b elementwise, a bool array" },
  { "le", "a:le(b)", "a <= b elementwise" },
  { "gt", "a:gt(b)", "a > b elementwise" },
  { "ge", "a:ge(b)", "a >= b elementwise" },
  { "eq", "a:eq(b)", "a == b elementwise" },
  { "ne", "a:ne(b)", "a ~= b elementwise" },
} }

section { title = "ndarray fields", class = "ndarray", fields = true, entries = {
  { "dtype", "a.dtype", "the dtype name" },
  { "shape", "a.shape", "the extents, a sequence that prints as a tuple" },
  { "strides", "a.strides", "the strides in bytes" },
  { "ndim", "a.ndim", "the number of axes" },
  { "size", "a.size", "the number of elements" },
  { "nbytes", "a.nbytes", "size * itemsize" },
  { "itemsize", "a.itemsize", "the bytes of one element" },
  { "device", "a.device", "a `Device`, or \"cpu\" for a host array" },
  { "flags", "a.flags", "c_contiguous, f_contiguous, owndata, writeable" },
  { "base", "a.base", "the array a view looks into (nil for an owner)" },
  { "T", "a.T", "the transposed view" },
  { "data", "a.data", "the memory's address (a light userdata)" },
  { "is_pinned", "a.is_pinned", "whether a host array is page-locked" },
} }

section { title = "Stream", class = "Stream", entries = {
  { "synchronize", "s:synchronize()", "waits for the stream's work" },
  { "query", "s:query()", "whether the stream's work is done" },
  { "record", "s:record([event])", "records an event (a new one unless given) and returns it" },
  { "wait_event", "s:wait_event(event)", "makes later work wait for the event" },
  { "use", "s:use()", "makes the stream current" },
  { "enter", "s:enter()", "a `<close>` scope with the stream current" },
  { "begin_capture", "s:begin_capture([mode])", "starts capturing the stream's work into a graph" },
  { "end_capture", "s:end_capture()", "ends the capture, returning the Graph" },
  { "is_capturing", "s:is_capturing()", "whether the stream is capturing" },
  { "auto_synchronize", "s:auto_synchronize()", "a `<close>` scope that waits for the stream when it ends (Numba's)" },
} }

section { title = "AutoSynchronize", class = "AutoSynchronize", entries = {
  { "close", "scope:close()", "waits for the stream (what `<close>` does); a second close does nothing" },
} }

section { title = "Event", class = "Event", entries = {
  { "record", "e:record([stream])", "records the event on a stream (the current one)" },
  { "synchronize", "e:synchronize()", "waits for the event" },
  { "query", "e:query()", "whether the event has completed" },
} }

section { title = "Device", class = "Device", entries = {
  { "use", "dev:use()", "makes the device current" },
  { "enter", "dev:enter()", "a `<close>` scope with the device current" },
  { "synchronize", "dev:synchronize()", "waits for all the device's work" },
  { "mem_info", "dev:mem_info()", "free and total bytes of device memory" },
  { "can_access_peer", "dev:can_access_peer(other)", "whether this device can read another's memory" },
} }

section { title = "MemoryPool", class = "MemoryPool", entries = {
  { "used_bytes", "pool:used_bytes()", "bytes in arrays now" },
  { "free_bytes", "pool:free_bytes()", "bytes held for reuse" },
  { "total_bytes", "pool:total_bytes()", "used + free" },
  { "held_bytes", "pool:held_bytes()", "bytes the pool holds from the driver" },
  { "n_free_blocks", "pool:n_free_blocks()", "the number of blocks held for reuse" },
  { "free_all_blocks", "pool:free_all_blocks()", "returns the free blocks to the driver" },
  { "set_limit", "pool:set_limit{size = | fraction =}", "bounds the pool" },
  { "get_limit", "pool:get_limit()", "the bound in bytes (0: none)" },
} }

section { title = "PinnedScope", class = "PinnedScope", entries = {
  { "close", "scope:close()", "ends the scope `cuarr.pinned` opened (what `<close>` does)" },
} }
section { title = "DeferCleanup", class = "DeferCleanup", entries = {
  { "close", "guard:close()", "ends the deferral (what `<close>` does)" },
} }

section { title = "RawModule", class = "RawModule", entries = {
  { "get_function", "mod:get_function(name)", "a RawKernel of the module" },
  { "get_global", "mod:get_global(name[, dtype[, shape]])", "a device array viewing a global variable" },
  { "compile", "mod:compile()", "compiles now instead of on first use" },
  { "free", "mod:free()", "unloads the module" },
} }

section { title = "RawKernel", class = "RawKernel", intro =
  "Called as `k(grid, block, args[, {shared_mem =, stream =}])`; fields `attributes`, `max_dynamic_shared_size_bytes`.",
  entries = {
  { "compile", "k:compile()", "compiles for the current device now, without launching; returns the kernel" },
  { "free", "k:free()", "unloads the kernel" },
} }

section { title = "Graph", class = "Graph", entries = {
  { "launch", "g:launch([stream])", "replays the graph" },
  { "free", "g:free()", "frees the graph" },
} }

section { title = "Communicator", class = "Communicator", intro =
  "`parts` has one array per local rank; `op` is \"sum\", \"prod\", \"max\", \"min\" or \"avg\"; ranks are 0-based.",
  entries = {
  { "all_reduce", "comm:all_reduce(parts, op[, {out =, streams =}])", "every rank gets `op` over all parts" },
  { "reduce", "comm:reduce(parts, op, root[, {out =, streams =}])", "rank `root` gets it" },
  { "broadcast", "comm:broadcast(parts, root[, {out =, streams =}])", "every rank gets root's part" },
  { "all_gather", "comm:all_gather(parts[, {out =, streams =}])", "every rank gets all parts, joined" },
  { "reduce_scatter", "comm:reduce_scatter(parts, op[, {out =, streams =}])", "each rank gets its share of the reduction" },
  { "all_to_all", "comm:all_to_all(parts[, {out =, streams =}])", "each rank sends a share to every rank" },
  { "send", "comm:send(parts, peer[, {streams =}])", "sends to rank `peer`" },
  { "recv", "comm:recv(parts, peer[, {streams =}])", "receives from rank `peer`" },
  { "send_recv", "comm:send_recv(sends, peer_to, recvs, peer_from[, {streams =}])", "sends and receives at once" },
  { "barrier", "comm:barrier([{streams =}])", "waits until every rank gets here" },
  { "destroy", "comm:destroy()", "frees the communicator" },
} }

section { title = "Generator", class = "Generator", intro =
  "What `random.default_rng(seed)` returns; each method draws as the function of `cuarr.random` of the same name.",
  entries = {
  { "random", "g:random([size][, dtype][, opts])", "uniform floats in [0, 1)" },
  { "uniform", "g:uniform([low = 0[, high = 1[, size]]][, opts])", "uniform floats in [low, high)" },
  { "normal", "g:normal([loc = 0[, scale = 1[, size]]][, opts])", "normal floats" },
  { "standard_normal", "g:standard_normal([size][, dtype][, opts])", "standard normal floats" },
  { "exponential", "g:exponential([scale = 1[, size]][, opts])", "exponential floats" },
  { "integers", "g:integers(low[, high[, size[, dtype]]][, {endpoint =, out =}])", "integers without modulo bias" },
  { "choice", "g:choice(a[, size[, replace = true[, p]]])", "a random sample of `a`" },
  { "permutation", "g:permutation(x)", "a shuffled copy" },
  { "shuffle", "g:shuffle(a)", "shuffles in place along the first axis" },
} }

section { title = "Fused functions", class = "fuse", intro =
  "What `cuarr.fuse(fn)` returns: called as `f(args...)` on device or host arrays and Lua numbers.",
  entries = {
  { "source_for", "f:source_for(args...)", "the generated CUDA C for arguments like these" },
} }

section { title = "Error", class = "Error", fields = true, intro =
  "What cuarr raises: `tostring(e)` is `cuarr.Kind: message`; `cuarr.is_error(e, kind)` tests one.",
  entries = {
  { "kind", "e.kind", "\"ValueError\", \"TypeError\", \"IndexError\", \"OutOfMemoryError\", \"NotAvailable\", ..." },
  { "message", "e.message", "the message, without the kind" },
} }

return S
