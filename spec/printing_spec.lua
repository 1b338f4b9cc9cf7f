-- Specs for cuarr.printing. Expected strings were produced by NumPy 2.4 (repr(a) / str(a) with
-- default print options) on the same values; arrays are mocks (spec/support/mock_array.lua), so
-- these run without the C binding.

local printing = require "cuarr.printing"
local mock = require "spec.support.mock_array"

local function arr(flat, shape, dtype, opts)
  return mock.new(flat, shape, dtype, opts)
end

-- {f(0), ..., f(n-1)}, or {0, ..., n-1}.
local function range(n, f)
  local t = {}
  for i = 0, n - 1 do t[#t + 1] = f and f(i) or i end
  return t
end

-- The float32 nearest to x, as a Lua float.
local function f32(x)
  return (string.unpack("<f", string.pack("<f", x)))
end

local nan, inf = 0 / 0, math.huge

local function check(a, want_repr, want_str)
  assert.are.equal(want_repr, printing.repr(a))
  if want_str then assert.are.equal(want_str, printing.str(a)) end
end

describe("cuarr.printing", function()
  describe("dtypes", function()
    it("bool", function()
      check(arr({ true, false }, { 2 }, "bool"), "array([ True, False])", "[ True False]")
      -- NumPy pads True even when no False is present.
      check(arr({ true, true }, { 2 }, "bool"), "array([ True,  True])", "[ True  True]")
      check(arr({ true, false, true, false, false, true }, { 2, 3 }, "bool"),
        "array([[ True, False,  True],\n       [False, False,  True]])",
        "[[ True False  True]\n [False False  True]]")
    end)

    it("signed integers", function()
      check(arr({ 1, 2 }, { 2 }, "int8"), "array([1, 2], dtype=int8)", "[1 2]")
      check(arr({ -128, 127 }, { 2 }, "int8"), "array([-128,  127], dtype=int8)", "[-128  127]")
      check(arr({ -300, 7 }, { 2 }, "int16"), "array([-300,    7], dtype=int16)", "[-300    7]")
      check(arr({ 1, 2, 3 }, { 3 }, "int32"), "array([1, 2, 3], dtype=int32)", "[1 2 3]")
      check(arr(range(5), { 5 }, "int64"), "array([0, 1, 2, 3, 4])", "[0 1 2 3 4]")
      check(arr({ -1, 10, -100 }, { 3 }, "int64"), "array([  -1,   10, -100])", "[  -1   10 -100]")
    end)

    it("unsigned integers", function()
      check(arr({ 0, 255 }, { 2 }, "uint8"), "array([  0, 255], dtype=uint8)", "[  0 255]")
      check(arr({ 0, 65535 }, { 2 }, "uint16"), "array([    0, 65535], dtype=uint16)",
        "[    0 65535]")
      check(arr({ 0, 4294967295 }, { 2 }, "uint32"),
        "array([         0, 4294967295], dtype=uint32)", "[         0 4294967295]")
    end)

    it("uint64 beyond int64, given as floats or as wrapped integers", function()
      local want_repr = "array([                   0, 18446744073709551615,  9223372036854775808],\n"
        .. "      dtype=uint64)"
      local want_str = "[                   0 18446744073709551615  9223372036854775808]"
      check(arr({ 0, 2.0 ^ 64, 2.0 ^ 63 }, { 3 }, "uint64"), want_repr, want_str)
      check(arr({ 0, -1, math.mininteger }, { 3 }, "uint64"), want_repr, want_str)
    end)

    it("floats", function()
      check(arr({ 1.0, 2.0 }, { 2 }, "float16"), "array([1., 2.], dtype=float16)", "[1. 2.]")
      check(arr({ 1.0, 2.0, 3.0, 4.0, 5.0, 6.0 }, { 2, 3 }, "float32"),
        "array([[1., 2., 3.],\n       [4., 5., 6.]], dtype=float32)",
        "[[1. 2. 3.]\n [4. 5. 6.]]")
      -- Right padding lines up the points.
      check(arr({ 0.1, 1.0 }, { 2 }, "float64"), "array([0.1, 1. ])", "[0.1 1. ]")
      check(arr({ 1.23456789012, 2.0 }, { 2 }, "float64"), "array([1.23456789, 2.        ])",
        "[1.23456789 2.        ]")
    end)
  end)

  describe("shortest digits per dtype", function()
    it("float32 0.1 prints 0.1, not float64's expansion", function()
      check(arr({ f32(0.1), f32(1 / 3) }, { 2 }, "float32"),
        "array([0.1       , 0.33333334], dtype=float32)", "[0.1        0.33333334]")
      check(arr({ 0.1, 1 / 3 }, { 2 }, "float64"), "array([0.1       , 0.33333333])")
    end)

    it("float16", function()
      -- 0.0999755859375 and 0.333251953125 are the float16 values nearest 0.1 and 1/3.
      check(arr({ 0.0999755859375, 0.333251953125 }, { 2 }, "float16"),
        "array([0.1   , 0.3333], dtype=float16)", "[0.1    0.3333]")
      -- 4990 is the exact tie between 4988 and 4992: it identifies 4992 (even mantissa).
      check(arr({ 4992.0 }, { 1 }, "float16"), "array([4.99e+03], dtype=float16)")
    end)

    it("extreme values (subnormals, maxima) with padded digits", function()
      check(arr({ 5e-324, 2.2250738585072014e-308, 1.7976931348623157e+308 }, { 3 }, "float64"),
        "array([4.94065646e-324, 2.22507386e-308, 1.79769313e+308])")
      check(arr({ 1.401298464324817e-45, 1.1754943508222875e-38, 3.4028234663852886e+38 }, { 3 },
        "float32"), "array([1.4012985e-45, 1.1754944e-38, 3.4028235e+38], dtype=float32)")
      check(arr({ 5.960464477539063e-08, 6.103515625e-05, 65504.0 }, { 3 }, "float16"),
        "array([5.960e-08, 6.104e-05, 6.550e+04], dtype=float16)")
    end)
  end)

  describe("scientific notation", function()
    it("is used for small values and wide ranges", function()
      check(arr({ 1e-5, 1.0 }, { 2 }, "float64"), "array([1.e-05, 1.e+00])", "[1.e-05 1.e+00]")
      check(arr({ 1.5e-5, 1.0, 100.0 }, { 3 }, "float64"),
        "array([1.5e-05, 1.0e+00, 1.0e+02])", "[1.5e-05 1.0e+00 1.0e+02]")
    end)

    it("is used from 1e8 for float64, 1e6 for float32, 1e3 for float16", function()
      check(arr({ 1e8, 1.0 }, { 2 }, "float64"), "array([1.e+08, 1.e+00])")
      check(arr({ 1.2e8, 2.5e8 }, { 2 }, "float64"), "array([1.2e+08, 2.5e+08])")
      check(arr({ 1e6, 2e6 }, { 2 }, "float32"), "array([1.e+06, 2.e+06], dtype=float32)")
      check(arr({ 1e5, 2e5 }, { 2 }, "float32"), "array([100000., 200000.], dtype=float32)")
      check(arr({ 1000.0, 2000.0 }, { 2 }, "float16"), "array([1.e+03, 2.e+03], dtype=float16)")
    end)

    it("compares with 1e-4 in the array's dtype", function()
      -- float32(1e-4) is below 1e-4 as a double, but not below float32(1e-4).
      check(arr({ f32(1e-4) }, { 1 }, "float32"), "array([0.0001], dtype=float32)")
      check(arr({ f32(1e-4), f32(0.1) }, { 2 }, "float32"),
        "array([1.e-04, 1.e-01], dtype=float32)")
    end)
  end)

  describe("signs and non-finite values", function()
    it("negative numbers", function()
      check(arr({ -1.5, 2.25, -3.0 }, { 3 }, "float64"), "array([-1.5 ,  2.25, -3.  ])",
        "[-1.5   2.25 -3.  ]")
      check(arr({ -0.0, 1.0 }, { 2 }, "float64"), "array([-0.,  1.])", "[-0.  1.]")
    end)

    it("nan and inf", function()
      check(arr({ nan, inf, -inf }, { 3 }, "float64"), "array([ nan,  inf, -inf])",
        "[ nan  inf -inf]")
      check(arr({ 1.5, nan, -inf }, { 3 }, "float64"), "array([ 1.5,  nan, -inf])")
      check(arr({ 1e-5, nan }, { 2 }, "float64"), "array([1.e-05,    nan])", "[1.e-05    nan]")
    end)
  end)

  describe("0-d arrays", function()
    it("repr shows the formatted value", function()
      check(arr({ 3.0 }, {}, "float32"), "array(3., dtype=float32)", "3.0")
      check(arr({ 5 }, {}, "int64"), "array(5)", "5")
      check(arr({ -7 }, {}, "int8"), "array(-7, dtype=int8)", "-7")
      check(arr({ true }, {}, "bool"), "array(True)", "True")
      check(arr({ nan }, {}, "float64"), "array(nan)", "nan")
      check(arr({ -inf }, {}, "float32"), "array(-inf, dtype=float32)", "-inf")
    end)

    it("str is the NumPy scalar's str", function()
      check(arr({ 1e16 }, {}, "float64"), "array(1.e+16)", "1e+16")
      check(arr({ 1e15 }, {}, "float64"), "array(1.e+15)", "1000000000000000.0")
      check(arr({ 1e6 }, {}, "float32"), "array(1.e+06, dtype=float32)", "1e+06")
      check(arr({ 1000.0 }, {}, "float16"), "array(1.e+03, dtype=float16)", "1e+03")
      check(arr({ -0.0 }, {}, "float64"), "array(-0.)", "-0.0")
      check(arr({ f32(0.1) }, {}, "float32"), "array(0.1, dtype=float32)", "0.1")
      check(arr({ 1.5e-5 }, {}, "float64"), "array(1.5e-05)", "1.5e-05")
      check(arr({ -1 }, {}, "uint64"), "array(18446744073709551615, dtype=uint64)",
        "18446744073709551615")
    end)
  end)

  describe("empty arrays", function()
    it("print [] with dtype, and shape unless (0,)", function()
      check(arr({}, { 0 }, "float32"), "array([], dtype=float32)", "[]")
      check(arr({}, { 0 }, "int64"), "array([], dtype=int64)", "[]")
      check(arr({}, { 0, 3 }, "float64"), "array([], shape=(0, 3), dtype=float64)", "[]")
      check(arr({}, { 2, 0 }, "float64"), "array([], shape=(2, 0), dtype=float64)", "[]")
    end)
  end)

  describe("layout", function()
    it("3-d blocks are separated by blank lines", function()
      check(arr(range(24), { 2, 3, 4 }, "int64"), [==[
array([[[ 0,  1,  2,  3],
        [ 4,  5,  6,  7],
        [ 8,  9, 10, 11]],

       [[12, 13, 14, 15],
        [16, 17, 18, 19],
        [20, 21, 22, 23]]])]==], [==[
[[[ 0  1  2  3]
  [ 4  5  6  7]
  [ 8  9 10 11]]

 [[12 13 14 15]
  [16 17 18 19]
  [20 21 22 23]]]]==])
      check(arr(range(8, function(i) return i + 0.0 end), { 2, 2, 2 }, "float64"), [==[
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])]==])
    end)

    it("wraps lines at 75 characters under the first element", function()
      local values = range(29, function(i) return i * (1 / 29) end)
      values[30] = 1.0
      check(arr(values, { 30 }, "float64"), [==[
array([0.        , 0.03448276, 0.06896552, 0.10344828, 0.13793103,
       0.17241379, 0.20689655, 0.24137931, 0.27586207, 0.31034483,
       0.34482759, 0.37931034, 0.4137931 , 0.44827586, 0.48275862,
       0.51724138, 0.55172414, 0.5862069 , 0.62068966, 0.65517241,
       0.68965517, 0.72413793, 0.75862069, 0.79310345, 0.82758621,
       0.86206897, 0.89655172, 0.93103448, 0.96551724, 1.        ])]==], [==[
[0.         0.03448276 0.06896552 0.10344828 0.13793103 0.17241379
 0.20689655 0.24137931 0.27586207 0.31034483 0.34482759 0.37931034
 0.4137931  0.44827586 0.48275862 0.51724138 0.55172414 0.5862069
 0.62068966 0.65517241 0.68965517 0.72413793 0.75862069 0.79310345
 0.82758621 0.86206897 0.89655172 0.93103448 0.96551724 1.        ]]==])
    end)

    it("puts dtype on its own line when it would not fit", function()
      local values = range(11, function(i) return f32(i / 11) end)
      values[12] = 1.0
      check(arr(values, { 12 }, "float32"), [==[
array([0.        , 0.09090909, 0.18181819, 0.27272728, 0.36363637,
       0.45454547, 0.54545456, 0.6363636 , 0.72727275, 0.8181818 ,
       0.90909094, 1.        ], dtype=float32)]==])
    end)
  end)

  describe("summarisation past 1000 elements", function()
    before_each(mock.reset_stats)

    it("1-d", function()
      check(arr(range(2000), { 2000 }, "int64"),
        "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))",
        "[   0    1    2 ... 1997 1998 1999]")
      check(arr(range(2000, function(i) return i * 1e-3 + 1e-6 end), { 2000 }, "float64"), [==[
array([1.000000e-06, 1.001000e-03, 2.001000e-03, ..., 1.997001e+00,
       1.998001e+00, 1.999001e+00], shape=(2000,))]==], [==[
[1.000000e-06 1.001000e-03 2.001000e-03 ... 1.997001e+00 1.998001e+00
 1.999001e+00]]==])
      check(arr(range(1001, function(i) return f32(i / 7) end), { 1001 }, "float32"), [==[
array([  0.        ,   0.14285715,   0.2857143 , ..., 142.57143   ,
       142.71428   , 142.85715   ], shape=(1001,), dtype=float32)]==])
    end)

    it("2-d (2000x3 and 50x50)", function()
      check(arr(range(6000, function(i) return i + 0.0 end), { 2000, 3 }, "float64"), [==[
array([[0.000e+00, 1.000e+00, 2.000e+00],
       [3.000e+00, 4.000e+00, 5.000e+00],
       [6.000e+00, 7.000e+00, 8.000e+00],
       ...,
       [5.991e+03, 5.992e+03, 5.993e+03],
       [5.994e+03, 5.995e+03, 5.996e+03],
       [5.997e+03, 5.998e+03, 5.999e+03]], shape=(2000, 3))]==], [==[
[[0.000e+00 1.000e+00 2.000e+00]
 [3.000e+00 4.000e+00 5.000e+00]
 [6.000e+00 7.000e+00 8.000e+00]
 ...
 [5.991e+03 5.992e+03 5.993e+03]
 [5.994e+03 5.995e+03 5.996e+03]
 [5.997e+03 5.998e+03 5.999e+03]]]==])
      check(arr(range(2500), { 50, 50 }, "int64"), [==[
array([[   0,    1,    2, ...,   47,   48,   49],
       [  50,   51,   52, ...,   97,   98,   99],
       [ 100,  101,  102, ...,  147,  148,  149],
       ...,
       [2350, 2351, 2352, ..., 2397, 2398, 2399],
       [2400, 2401, 2402, ..., 2447, 2448, 2449],
       [2450, 2451, 2452, ..., 2497, 2498, 2499]], shape=(50, 50))]==], [==[
[[   0    1    2 ...   47   48   49]
 [  50   51   52 ...   97   98   99]
 [ 100  101  102 ...  147  148  149]
 ...
 [2350 2351 2352 ... 2397 2398 2399]
 [2400 2401 2402 ... 2447 2448 2449]
 [2450 2451 2452 ... 2497 2498 2499]]]==])
    end)

    it("3-d", function()
      local want = [==[
array([[[   0,    1,    2, ...,    8,    9,   10],
        [  11,   12,   13, ...,   19,   20,   21],
        [  22,   23,   24, ...,   30,   31,   32],
        ...,
        [  77,   78,   79, ...,   85,   86,   87],
        [  88,   89,   90, ...,   96,   97,   98],
        [  99,  100,  101, ...,  107,  108,  109]],

       [[ 110,  111,  112, ...,  118,  119,  120],
        [ 121,  122,  123, ...,  129,  130,  131],
        [ 132,  133,  134, ...,  140,  141,  142],
        ...,
        [ 187,  188,  189, ...,  195,  196,  197],
        [ 198,  199,  200, ...,  206,  207,  208],
        [ 209,  210,  211, ...,  217,  218,  219]],

       [[ 220,  221,  222, ...,  228,  229,  230],
        [ 231,  232,  233, ...,  239,  240,  241],
        [ 242,  243,  244, ...,  250,  251,  252],
        ...,
        [ 297,  298,  299, ...,  305,  306,  307],
        [ 308,  309,  310, ...,  316,  317,  318],
        [ 319,  320,  321, ...,  327,  328,  329]],

       ...,

       [[ 770,  771,  772, ...,  778,  779,  780],
        [ 781,  782,  783, ...,  789,  790,  791],
        [ 792,  793,  794, ...,  800,  801,  802],
        ...,
        [ 847,  848,  849, ...,  855,  856,  857],
        [ 858,  859,  860, ...,  866,  867,  868],
        [ 869,  870,  871, ...,  877,  878,  879]],

       [[ 880,  881,  882, ...,  888,  889,  890],
        [ 891,  892,  893, ...,  899,  900,  901],
        [ 902,  903,  904, ...,  910,  911,  912],
        ...,
        [ 957,  958,  959, ...,  965,  966,  967],
        [ 968,  969,  970, ...,  976,  977,  978],
        [ 979,  980,  981, ...,  987,  988,  989]],

       [[ 990,  991,  992, ...,  998,  999, 1000],
        [1001, 1002, 1003, ..., 1009, 1010, 1011],
        [1012, 1013, 1014, ..., 1020, 1021, 1022],
        ...,
        [1067, 1068, 1069, ..., 1075, 1076, 1077],
        [1078, 1079, 1080, ..., 1086, 1087, 1088],
        [1089, 1090, 1091, ..., 1097, 1098, 1099]]], shape=(10, 10, 11))]==]
      check(arr(range(1100), { 10, 10, 11 }, "int64"), want)
    end)

    it("copies only the corners of a device array", function()
      local a = arr(range(6000, function(i) return i + 0.0 end), { 2000, 3 }, "float64",
        { device = true })
      printing.repr(a)
      assert.is_true(mock.stats.copied <= 2 * 3 * 3)
      mock.reset_stats()
      printing.str(arr(range(2500), { 50, 50 }, "int64", { device = true }))
      assert.is_true(mock.stats.copied <= 4 * 3 * 3)
      mock.reset_stats()
      printing.repr(arr(range(1100), { 10, 10, 11 }, "int64", { device = true }))
      assert.is_true(mock.stats.copied <= 6 * 6 * 6)
    end)
  end)

  it("gets device arrays to the host before totable()", function()
    check(arr({ 1.5, 2.5 }, { 2 }, "float32", { device = true }),
      "array([1.5, 2.5], dtype=float32)", "[1.5 2.5]")
    check(arr({ 2.5 }, {}, "float64", { device = true }), "array(2.5)", "2.5")
  end)
end)
