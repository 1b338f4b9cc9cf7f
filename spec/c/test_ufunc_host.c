/*
 * test_ufunc_host.c -- the built-in ufuncs on host arrays (no GPU): NumPy 2's promotion and
 * type resolution with weak scalars, every ufunc on every dtype it has a loop for, edge cases,
 * broadcasting, outputs (given, aliased, cast) and the errors.
 *
 * The expected dtypes and values were printed by NumPy 2.4.6 and are embedded here:
 *  - promote_table: np.promote_types(a, b);
 *  - resolutions: getattr(np, name).resolve_dtypes((np.dtype(a), np.dtype(b), None)) for the
 *    loop's first input and output ('x' where it raises), and with `int` / `float` (NumPy's
 *    weak Python scalars) as the second dtype;
 *  - value_cases: the ufunc applied to np.array(values, dtype) (np.core.umath.clip for clip),
 *    values written as str(np.dtype(dt).type(x)), which round-trips in the dtype.
 * The inputs avoid what cuarr decides differently from NumPy (integer reciprocal of 0, which
 * NumPy leaves undefined; integers to negative powers, which NumPy refuses; max/min of +0 and
 * -0, which NumPy's vectorised loops answer differently per dtype): those cases are
 * hand-computed in the edge-case tests below.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

static const char dtype_codes[] = "?bhilBHILefd"; /* NumPy's char codes, in cuarr_dtype order */

/* np.promote_types(a, b), a by row, b by column, in cuarr_dtype order */
static const char promote_table[] = "?bhilBHILefd"
                                    "bbhilhildefd"
                                    "hhhilhildffd"
                                    "iiiiliildddd"
                                    "lllllllldddd"
                                    "BhhilBHILefd"
                                    "HiiilHHILffd"
                                    "IllllIIILddd"
                                    "LddddLLLLddd"
                                    "eefddefddefd"
                                    "fffddffddffd"
                                    "dddddddddddd";
/* u.resolve_dtypes(...): the loop's first input and its output for every dtype (pair), x for
 * a TypeError; then with a weak int and a weak float as the second input. */
static const struct resolution {
  const char *name, *in, *out, *weak_int_in, *weak_int_out, *weak_float_in, *weak_float_out;
} resolutions[] = {
    {"add",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"subtract",
     "xbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "xbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"multiply",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"divide",
     "dddddddddefd"
     "dddddddddefd"
     "dddddddddffd"
     "dddddddddddd"
     "dddddddddddd"
     "dddddddddefd"
     "dddddddddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "dddddddddefd"
     "dddddddddefd"
     "dddddddddffd"
     "dddddddddddd"
     "dddddddddddd"
     "dddddddddefd"
     "dddddddddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "dddddddddefd", "dddddddddefd", "dddddddddefd", "dddddddddefd"},
    {"floor_divide",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"remainder",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"power",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "bbhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"negative", "xbhilBHILefd", "xbhilBHILefd", NULL, NULL, NULL, NULL},
    {"positive", "xbhilBHILefd", "xbhilBHILefd", NULL, NULL, NULL, NULL},
    {"absolute", "?bhilBHILefd", "?bhilBHILefd", NULL, NULL, NULL, NULL},
    {"sign", "xbhilBHILefd", "xbhilBHILefd", NULL, NULL, NULL, NULL},
    {"equal",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"not_equal",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"less",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"less_equal",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"greater",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"greater_equal",
     "?bhilBHILefd"
     "bbhilhillefd"
     "hhhilhillffd"
     "iiiiliillddd"
     "lllllllllddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LLLLLLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "lbhilBHILefd", "????????????", "dddddddddefd", "????????????"},
    {"logical_and",
     "????????????"
     "?b??????????"
     "??h?????????"
     "???i????????"
     "????l???????"
     "?????B??????"
     "??????H?????"
     "???????I????"
     "????????L???"
     "?????????e??"
     "??????????f?"
     "???????????d",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "????????????", "????????????", "????????????", "????????????"},
    {"logical_or",
     "????????????"
     "?b??????????"
     "??h?????????"
     "???i????????"
     "????l???????"
     "?????B??????"
     "??????H?????"
     "???????I????"
     "????????L???"
     "?????????e??"
     "??????????f?"
     "???????????d",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "????????????", "????????????", "????????????", "????????????"},
    {"logical_xor",
     "????????????"
     "?b??????????"
     "??h?????????"
     "???i????????"
     "????l???????"
     "?????B??????"
     "??????H?????"
     "???????I????"
     "????????L???"
     "?????????e??"
     "??????????f?"
     "???????????d",
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????"
     "????????????",
     "????????????", "????????????", "????????????", "????????????"},
    {"logical_not", "?bhilBHILefd", "????????????", NULL, NULL, NULL, NULL},
    {"bitwise_and",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "lbhilBHILxxx", "lbhilBHILxxx", "xxxxxxxxxxxx", "xxxxxxxxxxxx"},
    {"bitwise_or",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "lbhilBHILxxx", "lbhilBHILxxx", "xxxxxxxxxxxx", "xxxxxxxxxxxx"},
    {"bitwise_xor",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "?bhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "lbhilBHILxxx", "lbhilBHILxxx", "xxxxxxxxxxxx", "xxxxxxxxxxxx"},
    {"invert", "?bhilBHILxxx", "?bhilBHILxxx", NULL, NULL, NULL, NULL},
    {"left_shift",
     "bbhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "bbhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "lbhilBHILxxx", "lbhilBHILxxx", "xxxxxxxxxxxx", "xxxxxxxxxxxx"},
    {"right_shift",
     "bbhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "bbhilBHILxxx"
     "bbhilhilxxxx"
     "hhhilhilxxxx"
     "iiiiliilxxxx"
     "llllllllxxxx"
     "BhhilBHILxxx"
     "HiiilHHILxxx"
     "IllllIIILxxx"
     "LxxxxLLLLxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx"
     "xxxxxxxxxxxx",
     "lbhilBHILxxx", "lbhilBHILxxx", "xxxxxxxxxxxx", "xxxxxxxxxxxx"},
    {"exp", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"exp2", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"expm1", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"log", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"log2", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"log10", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"log1p", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"sqrt", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"cbrt", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"square", "bbhilBHILefd", "bbhilBHILefd", NULL, NULL, NULL, NULL},
    {"reciprocal", "bbhilBHILefd", "bbhilBHILefd", NULL, NULL, NULL, NULL},
    {"sin", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"cos", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"tan", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arcsin", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arccos", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arctan", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arctan2",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "defddefddefd", "defddefddefd", "dddddddddefd", "dddddddddefd"},
    {"sinh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"cosh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"tanh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arcsinh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arccosh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"arctanh", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"floor", "?bhilBHILefd", "?bhilBHILefd", NULL, NULL, NULL, NULL},
    {"ceil", "?bhilBHILefd", "?bhilBHILefd", NULL, NULL, NULL, NULL},
    {"trunc", "?bhilBHILefd", "?bhilBHILefd", NULL, NULL, NULL, NULL},
    {"rint", "eefddefddefd", "eefddefddefd", NULL, NULL, NULL, NULL},
    {"hypot",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "defddefddefd", "defddefddefd", "dddddddddefd", "dddddddddefd"},
    {"maximum",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"minimum",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"fmax",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"fmin",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "?bhilBHILefd"
     "bbhilhildefd"
     "hhhilhildffd"
     "iiiiliildddd"
     "lllllllldddd"
     "BhhilBHILefd"
     "HiiilHHILffd"
     "IllllIIILddd"
     "LddddLLLLddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "lbhilBHILefd", "lbhilBHILefd", "dddddddddefd", "dddddddddefd"},
    {"copysign",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "eefddefddefd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd"
     "dddddddddddd"
     "eefddefddefd"
     "fffddffddffd"
     "dddddddddddd",
     "defddefddefd", "defddefddefd", "dddddddddefd", "dddddddddefd"},
    {"isnan", "?bhilBHILefd", "????????????", NULL, NULL, NULL, NULL},
    {"isinf", "?bhilBHILefd", "????????????", NULL, NULL, NULL, NULL},
    {"isfinite", "?bhilBHILefd", "????????????", NULL, NULL, NULL, NULL},
};

/* Each ufunc on each dtype it has a loop for: inputs of `dtype` (where: a bool condition),
 * NumPy's output dtype and values. */
static const struct value_case {
  const char *name, *dtype, *out, *in0, *in1, *in2, *expected;
} value_cases[] = {
    {"add", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 1 1"},
    {"add", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 -3 9 -5 126 127 5 -10"},
    {"add", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 -3 9 -5 32766 32767 5 -10"},
    {"add", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 -3 9 -5 2147483646 2147483647 5 -10"},
    {"add", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "3 -3 9 -5 9223372036854775806 9223372036854775807 5 -10"},
    {"add", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "3 1 9 203 0 2 9 10"},
    {"add", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "3 1 9 203 0 2 9 10"},
    {"add", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "3 1 9 203 0 2 9 10"},
    {"add", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "3 1 9 203 0 2 9 10"},
    {"add", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "2 -0.5 0.5 5 -7 inf -inf nan -2.75 inf"},
    {"add", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "2 -0.5 0.5 5 -7 inf -inf nan -2.75 inf"},
    {"add", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "2 -0.5 0.5 5 -7 inf -inf nan -2.75 inf"},
    {"subtract", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "-1 1 5 -9 -128 -127 5 -2"},
    {"subtract", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "-1 1 5 -9 -32768 -32767 5 -2"},
    {"subtract", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "-1 1 5 -9 -2147483648 -2147483647 5 -2"},
    {"subtract", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "-1 1 5 -9 -9223372036854775808 -9223372036854775807 5 -2"},
    {"subtract", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "255 253 5 197 254 4 9 2"},
    {"subtract", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "65535 65533 5 197 65534 4 9 2"},
    {"subtract", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "4294967295 4294967293 5 197 4294967294 4 9 2"},
    {"subtract", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "18446744073709551615 18446744073709551613 5 197 18446744073709551614 4 9 2"},
    {"subtract", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-2 3.5 -3.5 9 -7 inf -inf nan -3.75 -inf"},
    {"subtract", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-2 3.5 -3.5 9 -7 inf -inf nan -3.75 -inf"},
    {"subtract", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-2 3.5 -3.5 9 -7 inf -inf nan -3.75 -inf"},
    {"multiply", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 1 0"},
    {"multiply", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 2 14 -14 -127 -128 0 24"},
    {"multiply", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 2 14 -14 -32767 -32768 0 24"},
    {"multiply", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "2 2 14 -14 -2147483647 -2147483648 0 24"},
    {"multiply", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "2 2 14 -14 -9223372036854775807 -9223372036854775808 0 24"},
    {"multiply", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "2 254 14 88 255 253 0 24"},
    {"multiply", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "2 65534 14 600 65535 65533 0 24"},
    {"multiply", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "2 4294967294 14 600 4294967295 4294967293 0 24"},
    {"multiply", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "2 18446744073709551614 14 600 18446744073709551615 18446744073709551613 0 24"},
    {"multiply", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -3 -3 -14 -0 inf -inf nan -1.625 inf"},
    {"multiply", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -3 -3 -14 -0 inf -inf nan -1.625 inf"},
    {"multiply", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -3 -3 -14 -0 inf -inf nan -1.625 inf"},
    {"divide", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -0.75 -0.75 -3.5 -inf inf -inf nan -6.5 0"},
    {"divide", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -0.75 -0.75 -3.5 -inf inf -inf nan -6.5 0"},
    {"divide", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -0.75 -0.75 -3.5 -inf inf -inf nan -6.5 0"},
    {"divide", "int16", "float64", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0.5 0.5 3.5 -3.5 -32767 32768 inf 1.5"},
    {"divide", "uint8", "float64", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0.5 127.5 3.5 66.66666666666667 255 0.011764705882352941 inf 1.5"},
    {"floor_divide", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 0 3 -4 -127 -128 0 1"},
    {"floor_divide", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 0 3 -4 -32767 -32768 0 1"},
    {"floor_divide", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 0 3 -4 -2147483647 -2147483648 0 1"},
    {"floor_divide", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 0 3 -4 -9223372036854775807 -9223372036854775808 0 1"},
    {"floor_divide", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0 127 3 66 255 0 0 1"},
    {"floor_divide", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "0 32767 3 66 65535 0 0 1"},
    {"floor_divide", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "0 2147483647 3 66 4294967295 0 0 1"},
    {"floor_divide", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "0 9223372036854775807 3 66 18446744073709551615 0 0 1"},
    {"floor_divide", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -1 -1 -4 -inf nan nan nan -7 0"},
    {"floor_divide", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -1 -1 -4 -inf nan nan nan -7 0"},
    {"floor_divide", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 -1 -1 -4 -inf nan nan nan -7 0"},
    {"remainder", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -1 1 1 0 0 0 -2"},
    {"remainder", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -1 1 1 0 0 0 -2"},
    {"remainder", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "1 -1 1 1 0 0 0 -2"},
    {"remainder", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 -1 1 1 0 0 0 -2"},
    {"remainder", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 1 1 2 0 3 0 2"},
    {"remainder", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 1 1 2 0 3 0 2"},
    {"remainder", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "1 1 1 2 0 3 0 2"},
    {"remainder", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 1 1 2 0 3 0 2"},
    {"remainder", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -0.5 0.5 -1 nan nan nan nan 0.25 0.001"},
    {"remainder", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -0.5 0.5 -1 nan nan nan nan 0.25 0.001"},
    {"remainder", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -0.5 0.5 -1 nan nan nan nan 0.25 0.001"},
    {"power", "int8", "int8", "0 1 2 -3 -1 127 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 -128 -27 -1 1 1 5"},
    {"power", "int16", "int16", "0 1 2 -3 -1 32767 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 -27 -1 1 1 5"},
    {"power", "int32", "int32", "0 1 2 -3 -1 2147483647 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 -27 -1 1 1 5"},
    {"power", "int64", "int64", "0 1 2 -3 -1 9223372036854775807 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 -27 -1 1 1 5"},
    {"power", "uint8", "uint8", "0 1 2 3 255 255 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 27 255 1 1 5"},
    {"power", "uint16", "uint16", "0 1 2 3 65535 65535 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 27 65535 1 1 5"},
    {"power", "uint32", "uint32", "0 1 2 3 4294967295 4294967295 2 5", "0 5 7 3 3 2 0 1", NULL,
     "1 1 128 27 4294967295 1 1 5"},
    {"power", "uint64", "uint64", "0 1 2 3 18446744073709551615 18446744073709551615 2 5",
     "0 5 7 3 3 2 0 1", NULL, "1 1 128 27 18446744073709551615 1 1 5"},
    {"power", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 0.4443 2.25 0.0204 1 inf -inf nan nan 0"},
    {"power", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 0.44444445 2.25 0.020408165 1 inf -inf nan nan 0"},
    {"power", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL,
     "0 0.4444444444444444 2.25 0.02040816326530612 1 inf -inf nan nan 0"},
    {"negative", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "-1 1 -7 7 -127 -128 -5 6"},
    {"negative", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "-1 1 -7 7 -32767 -32768 -5 6"},
    {"negative", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "-1 1 -7 7 -2147483647 -2147483648 -5 6"},
    {"negative", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "-1 1 -7 7 -9223372036854775807 -9223372036854775808 -5 6"},
    {"negative", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL,
     "255 1 249 56 1 253 247 250"},
    {"negative", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "65535 1 65529 65336 1 65533 65527 65530"},
    {"negative", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "4294967295 1 4294967289 4294967096 1 4294967293 4294967287 4294967290"},
    {"negative", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     NULL, NULL,
     "18446744073709551615 1 18446744073709551609 18446744073709551416 1 18446744073709551613 "
     "18446744073709551607 18446744073709551610"},
    {"negative", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 -1.5 1.5 -7 7 -inf inf nan 3.25 -0.001"},
    {"negative", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 -1.5 1.5 -7 7 -inf inf nan 3.25 -0.001"},
    {"negative", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 -1.5 1.5 -7 7 -inf inf nan 3.25 -0.001"},
    {"positive", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 7 -7 127 -128 5 -6"},
    {"positive", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 -1 7 -7 32767 -32768 5 -6"},
    {"positive", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 7 -7 2147483647 -2147483648 5 -6"},
    {"positive", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6"},
    {"positive", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"positive", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 65535 7 200 65535 3 9 6"},
    {"positive", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 4294967295 7 200 4294967295 3 9 6"},
    {"positive", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     NULL, NULL, "1 18446744073709551615 7 200 18446744073709551615 3 9 6"},
    {"positive", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001"},
    {"positive", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001"},
    {"positive", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001"},
    {"absolute", "bool", "bool", "0 1 1 0", NULL, NULL, "0 1 1 0"},
    {"absolute", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 1 7 7 127 -128 5 6"},
    {"absolute", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 1 7 7 32767 -32768 5 6"},
    {"absolute", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 1 7 7 2147483647 -2147483648 5 6"},
    {"absolute", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 1 7 7 9223372036854775807 -9223372036854775808 5 6"},
    {"absolute", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"absolute", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 65535 7 200 65535 3 9 6"},
    {"absolute", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 4294967295 7 200 4294967295 3 9 6"},
    {"absolute", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     NULL, NULL, "1 18446744073709551615 7 200 18446744073709551615 3 9 6"},
    {"absolute", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1.5 1.5 7 7 inf inf nan 3.25 0.001"},
    {"absolute", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1.5 1.5 7 7 inf inf nan 3.25 0.001"},
    {"absolute", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1.5 1.5 7 7 inf inf nan 3.25 0.001"},
    {"sign", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 1 -1 1 -1 1 -1"},
    {"sign", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "1 -1 1 -1 1 -1 1 -1"},
    {"sign", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 1 -1 1 -1 1 -1"},
    {"sign", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 -1 1 -1 1 -1 1 -1"},
    {"sign", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"sign", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"sign", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 1 1 1 1 1 1 1"},
    {"sign", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 1 1 1 1 1 1 1"},
    {"sign", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1 -1 1 -1 1 -1 nan -1 1"},
    {"sign", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1 -1 1 -1 1 -1 nan -1 1"},
    {"sign", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 1 -1 1 -1 1 -1 nan -1 1"},
    {"equal", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "1 0 1 0"},
    {"equal", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 0 0 0 0 0 0 0"},
    {"equal", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 0 0 0 0 0 0 0"},
    {"equal", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 0 0 0 0 0 0 0"},
    {"equal", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 0 0 0 0 0 0 0"},
    {"equal", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0 0 0 0 0 0 0 0"},
    {"equal", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "0 0 0 0 0 0 0 0"},
    {"equal", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "0 0 0 0 0 0 0 0"},
    {"equal", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "0 0 0 0 0 0 0 0"},
    {"equal", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 0 0 0 0 0 0 0 0 0"},
    {"equal", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 0 0 0 0 0 0 0 0 0"},
    {"equal", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 0 0 0 0 0 0 0 0 0"},
    {"not_equal", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 0 1"},
    {"not_equal", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 1 1 1 1 1 1 1"},
    {"not_equal", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 1 1 1 1 1 1 1"},
    {"not_equal", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "1 1 1 1 1 1 1 1"},
    {"not_equal", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 1 1 1 1 1 1 1"},
    {"not_equal", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 1 1 1 1 1 1 1"},
    {"not_equal", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 1 1 1 1 1 1 1"},
    {"not_equal", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "1 1 1 1 1 1 1 1"},
    {"not_equal", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 1 1 1 1 1 1 1"},
    {"not_equal", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 1 1 1 1 1 1 1 1 1"},
    {"not_equal", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 1 1 1 1 1 1 1 1 1"},
    {"not_equal", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 1 1 1 1 1 1 1 1 1"},
    {"less", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 0 1"},
    {"less", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 0 0 1 0 1 0 1"},
    {"less", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 0 0 1 0 1 0 1"},
    {"less", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 0 0 1 0 1 0 1"},
    {"less", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 0 0 1 0 1 0 1"},
    {"less", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 0 0 0 0 1 0 0"},
    {"less", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 0 0 0 0 1 0 0"},
    {"less", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "1 0 0 0 0 1 0 0"},
    {"less", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 0 0 0 0 1 0 0"},
    {"less", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"less", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"less", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"less_equal", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "1 0 1 1"},
    {"less_equal", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 0 0 1 0 1 0 1"},
    {"less_equal", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 0 0 1 0 1 0 1"},
    {"less_equal", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "1 0 0 1 0 1 0 1"},
    {"less_equal", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 0 0 1 0 1 0 1"},
    {"less_equal", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 0 0 0 0 1 0 0"},
    {"less_equal", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 0 0 0 0 1 0 0"},
    {"less_equal", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "1 0 0 0 0 1 0 0"},
    {"less_equal", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 0 0 0 0 1 0 0"},
    {"less_equal", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"less_equal", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"less_equal", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 1 0 1 0 1 0 1 1"},
    {"greater", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 0 0"},
    {"greater", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 1 1 0 1 0 1 0"},
    {"greater", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 1 1 0 1 0 1 0"},
    {"greater", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "0 1 1 0 1 0 1 0"},
    {"greater", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 1 1 0 1 0 1 0"},
    {"greater", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0 1 1 1 1 0 1 1"},
    {"greater", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "0 1 1 1 1 0 1 1"},
    {"greater", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "0 1 1 1 1 0 1 1"},
    {"greater", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "0 1 1 1 1 0 1 1"},
    {"greater", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"greater", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"greater", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"greater_equal", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "1 1 1 0"},
    {"greater_equal", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 1 1 0 1 0 1 0"},
    {"greater_equal", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 1 1 0 1 0 1 0"},
    {"greater_equal", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 1 1 0 1 0 1 0"},
    {"greater_equal", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 1 1 0 1 0 1 0"},
    {"greater_equal", "uint8", "bool", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0 1 1 1 1 0 1 1"},
    {"greater_equal", "uint16", "bool", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "0 1 1 1 1 0 1 1"},
    {"greater_equal", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "0 1 1 1 1 0 1 1"},
    {"greater_equal", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "0 1 1 1 1 0 1 1"},
    {"greater_equal", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"greater_equal", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"greater_equal", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 0 1 0 1 0 0 0 0"},
    {"logical_and", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 1 0"},
    {"logical_and", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 1 1 1 0 1 1 1 1 1"},
    {"logical_or", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 1 1"},
    {"logical_or", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 1 1 1 1 1 1 1 1 1"},
    {"logical_xor", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 0 1"},
    {"logical_xor", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "1 0 0 0 1 0 0 0 0 0"},
    {"logical_not", "bool", "bool", "0 1 1 0", NULL, NULL, "1 0 0 1"},
    {"logical_not", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "1 0 0 0 0 0 0 0 0 0"},
    {"bitwise_and", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 1 0"},
    {"bitwise_and", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 -2 2 0 127 -128 0 -8"},
    {"bitwise_and", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0 -2 2 0 32767 -32768 0 -8"},
    {"bitwise_and", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 -2 2 0 2147483647 -2147483648 0 -8"},
    {"bitwise_and", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "0 -2 2 0 9223372036854775807 -9223372036854775808 0 -8"},
    {"bitwise_and", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0 2 2 0 1 3 0 4"},
    {"bitwise_and", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "0 2 2 0 1 3 0 4"},
    {"bitwise_and", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "0 2 2 0 1 3 0 4"},
    {"bitwise_and", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "0 2 2 0 1 3 0 4"},
    {"bitwise_or", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 1 1"},
    {"bitwise_or", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 -1 7 -5 -1 -1 5 -2"},
    {"bitwise_or", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 -1 7 -5 -1 -1 5 -2"},
    {"bitwise_or", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "3 -1 7 -5 -1 -1 5 -2"},
    {"bitwise_or", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "3 -1 7 -5 -1 -1 5 -2"},
    {"bitwise_or", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "3 255 7 203 255 255 9 6"},
    {"bitwise_or", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "3 65535 7 203 65535 65535 9 6"},
    {"bitwise_or", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "3 4294967295 7 203 4294967295 4294967295 9 6"},
    {"bitwise_or", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "3 18446744073709551615 7 203 18446744073709551615 18446744073709551615 9 6"},
    {"bitwise_xor", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 0 1"},
    {"bitwise_xor", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 1 5 -5 -128 127 5 6"},
    {"bitwise_xor", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "3 1 5 -5 -32768 32767 5 6"},
    {"bitwise_xor", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "3 1 5 -5 -2147483648 2147483647 5 6"},
    {"bitwise_xor", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "3 1 5 -5 -9223372036854775808 9223372036854775807 5 6"},
    {"bitwise_xor", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "3 253 5 203 254 252 9 2"},
    {"bitwise_xor", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "3 65533 5 203 65534 65532 9 2"},
    {"bitwise_xor", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "3 4294967293 5 203 4294967294 4294967292 9 2"},
    {"bitwise_xor", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "3 18446744073709551613 5 203 18446744073709551614 18446744073709551612 9 2"},
    {"invert", "bool", "bool", "0 1 1 0", NULL, NULL, "1 0 0 1"},
    {"invert", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "-2 0 -8 6 -128 127 -6 5"},
    {"invert", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "-2 0 -8 6 -32768 32767 -6 5"},
    {"invert", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "-2 0 -8 6 -2147483648 2147483647 -6 5"},
    {"invert", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "-2 0 -8 6 -9223372036854775808 9223372036854775807 -6 5"},
    {"invert", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "254 0 248 55 0 252 246 249"},
    {"invert", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "65534 0 65528 65335 0 65532 65526 65529"},
    {"invert", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "4294967294 0 4294967288 4294967095 0 4294967292 4294967286 4294967289"},
    {"invert", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL,
     "18446744073709551614 0 18446744073709551608 18446744073709551415 0 18446744073709551612 "
     "18446744073709551606 18446744073709551609"},
    {"left_shift", "int8", "int8", "1 5 127 -128 7 1 127 -128", "0 1 7 1 8 9 -1 7", NULL,
     "1 10 -128 0 0 0 0 0"},
    {"left_shift", "int16", "int16", "1 5 32767 -32768 7 1 32767 -32768", "0 1 15 1 16 17 -1 15",
     NULL, "1 10 -32768 0 0 0 0 0"},
    {"left_shift", "int32", "int32", "1 5 2147483647 -2147483648 7 1 2147483647 -2147483648",
     "0 1 31 1 32 33 -1 31", NULL, "1 10 -2147483648 0 0 0 0 0"},
    {"left_shift", "int64", "int64",
     "1 5 9223372036854775807 -9223372036854775808 7 1 9223372036854775807 -9223372036854775808",
     "0 1 63 1 64 65 -1 63", NULL, "1 10 -9223372036854775808 0 0 0 0 0"},
    {"left_shift", "uint8", "uint8", "1 5 255 200 7 1 255 3", "0 1 7 1 8 9 3 7", NULL,
     "1 10 128 144 0 0 248 128"},
    {"left_shift", "uint16", "uint16", "1 5 65535 200 7 1 65535 3", "0 1 15 1 16 17 3 15", NULL,
     "1 10 32768 400 0 0 65528 32768"},
    {"left_shift", "uint32", "uint32", "1 5 4294967295 200 7 1 4294967295 3", "0 1 31 1 32 33 3 31",
     NULL, "1 10 2147483648 400 0 0 4294967288 2147483648"},
    {"left_shift", "uint64", "uint64", "1 5 18446744073709551615 200 7 1 18446744073709551615 3",
     "0 1 63 1 64 65 3 63", NULL,
     "1 10 9223372036854775808 400 0 0 18446744073709551608 9223372036854775808"},
    {"right_shift", "int8", "int8", "1 5 127 -128 7 1 127 -128", "0 1 7 1 8 9 -1 7", NULL,
     "1 2 0 -64 0 0 0 -1"},
    {"right_shift", "int16", "int16", "1 5 32767 -32768 7 1 32767 -32768", "0 1 15 1 16 17 -1 15",
     NULL, "1 2 0 -16384 0 0 0 -1"},
    {"right_shift", "int32", "int32", "1 5 2147483647 -2147483648 7 1 2147483647 -2147483648",
     "0 1 31 1 32 33 -1 31", NULL, "1 2 0 -1073741824 0 0 0 -1"},
    {"right_shift", "int64", "int64",
     "1 5 9223372036854775807 -9223372036854775808 7 1 9223372036854775807 -9223372036854775808",
     "0 1 63 1 64 65 -1 63", NULL, "1 2 0 -4611686018427387904 0 0 0 -1"},
    {"right_shift", "uint8", "uint8", "1 5 255 200 7 1 255 3", "0 1 7 1 8 9 3 7", NULL,
     "1 2 1 100 0 0 31 0"},
    {"right_shift", "uint16", "uint16", "1 5 65535 200 7 1 65535 3", "0 1 15 1 16 17 3 15", NULL,
     "1 2 1 100 0 0 8191 0"},
    {"right_shift", "uint32", "uint32", "1 5 4294967295 200 7 1 4294967295 3",
     "0 1 31 1 32 33 3 31", NULL, "1 2 1 100 0 0 536870911 0"},
    {"right_shift", "uint64", "uint64", "1 5 18446744073709551615 200 7 1 18446744073709551615 3",
     "0 1 63 1 64 65 3 63", NULL, "1 2 1 100 0 0 2305843009213693951 0"},
    {"exp", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.648 0.2231 20.08 0.0009117 inf 0 nan inf 1.001"},
    {"exp", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.6487212 0.22313015 20.085537 0.0009118819 inf 0 nan inf 1.0010005"},
    {"exp", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.6487212707001282 0.22313016014842982 20.085536923187668 0.0009118819655545162 inf 0 nan "
     "2.6881171418161356e+43 1.0010005001667084"},
    {"exp", "int16", "float32", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "2.718282 0.36787942 1096.6332 0.0009118819 inf 0 148.41316 0.002478752"},
    {"exp", "uint8", "float16", "1 255 7 200 255 3 9 6", NULL, NULL,
     "2.719 inf 1.097e+03 inf inf 20.08 8.104e+03 403.5"},
    {"exp2", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.414 0.3535 8 0.007812 inf 0 nan inf 1.001"},
    {"exp2", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.4142135 0.35355338 8 0.0078125 inf 0 nan 1.2676506e+30 1.0006934"},
    {"exp2", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.4142135623730951 0.3535533905932738 8 0.0078125 inf 0 nan 1.2676506002282294e+30 "
     "1.0006933874625805"},
    {"expm1", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.649 -0.777 19.08 -0.999 inf -1 nan inf 0.001001"},
    {"expm1", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.6487213 -0.77686983 19.085537 -0.9990881 inf -1 nan inf 0.0010005003"},
    {"expm1", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.6487212707001282 -0.7768698398515702 19.085536923187668 -0.9990881180344455 inf -1 nan "
     "2.6881171418161356e+43 0.0010005001667083417"},
    {"log", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.4055 2.303 -0.6934 nan inf nan"},
    {"log", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.4054651 2.3025851 -0.6931472 nan inf nan"},
    {"log", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.4054651081081644 2.302585092994046 -0.6931471805599453 nan inf nan"},
    {"log2", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.585 3.322 -1 nan inf nan"},
    {"log2", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.5849625 3.321928 -1 nan inf nan"},
    {"log2", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.5849625007211562 3.321928094887362 -1 nan inf nan"},
    {"log10", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.1761 1 -0.301 nan inf nan"},
    {"log10", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.17609127 1 -0.30103 nan inf nan"},
    {"log10", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "-inf 0 0.17609125905568124 1 -0.3010299956639812 nan inf nan"},
    {"log1p", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 0.6934 0.9165 2.398 0.4055 -inf inf nan"},
    {"log1p", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 0.6931472 0.91629076 2.3978953 0.40546513 -inf inf nan"},
    {"log1p", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 0.6931471805599453 0.9162907318741551 2.3978952727983707 0.4054651081081644 -inf inf nan"},
    {"sqrt", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 1 1.225 3.162 0.707 nan inf nan"},
    {"sqrt", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 1 1.2247449 3.1622777 0.70710677 nan inf nan"},
    {"sqrt", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "0 1 1.224744871391589 3.1622776601683795 0.7071067811865476 nan inf nan"},
    {"sqrt", "int16", "float32", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 nan 2.6457512 nan 181.01657 nan 2.236068 nan"},
    {"sqrt", "uint8", "float16", "1 255 7 200 255 3 9 6", NULL, NULL,
     "1 15.97 2.646 14.14 15.97 1.732 3 2.45"},
    {"cbrt", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.7935 -1.145 1.442 -1.913 inf -inf nan 4.64 0.10004"},
    {"cbrt", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.7937005 -1.1447142 1.4422497 -1.9129312 inf -inf nan 4.6415887 0.1"},
    {"cbrt", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.7937005259840998 -1.1447142425533319 1.4422495703074083 -1.9129311827723892 inf -inf "
     "nan 4.641588833612779 0.1"},
    {"square", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 1 49 49 1 0 25 36"},
    {"square", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "1 1 49 49 1 0 25 36"},
    {"square", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 1 49 49 1 0 25 36"},
    {"square", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 1 49 49 1 0 25 36"},
    {"square", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 1 49 64 1 9 81 36"},
    {"square", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 1 49 40000 1 9 81 36"},
    {"square", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 1 49 40000 1 9 81 36"},
    {"square", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 1 49 40000 1 9 81 36"},
    {"square", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 2.25 2.25 49 49 inf inf nan 10.56 1e-06"},
    {"square", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 2.25 2.25 49 49 inf inf nan 10.5625 1.0000001e-06"},
    {"square", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 2.25 2.25 49 49 inf inf nan 10.5625 1e-06"},
    {"reciprocal", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 0 0 0 0 0 0"},
    {"reciprocal", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "1 -1 0 0 0 0 0 0"},
    {"reciprocal", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 0 0 0 0 0 0"},
    {"reciprocal", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     NULL, NULL, "1 -1 0 0 0 0 0 0"},
    {"reciprocal", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 0 0 0 0 0 0 0"},
    {"reciprocal", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL, "1 0 0 0 0 0 0 0"},
    {"reciprocal", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 0 0 0 0 0 0 0"},
    {"reciprocal", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     NULL, NULL, "1 0 0 0 0 0 0 0"},
    {"reciprocal", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-inf 0.6665 -0.6665 0.1428 -0.1428 0 -0 nan -0.3076 999.5"},
    {"reciprocal", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-inf 0.6666667 -0.6666667 0.14285715 -0.14285715 0 -0 nan -0.30769232 999.99994"},
    {"reciprocal", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-inf 0.6666666666666666 -0.6666666666666666 0.14285714285714285 -0.14285714285714285 0 -0 "
     "nan -0.3076923076923077 1000"},
    {"sin", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4795 -0.9976 0.1411 -0.657 nan nan nan -0.5063 0.001"},
    {"sin", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.47942555 -0.997495 0.14112 -0.6569866 nan nan nan -0.50636566 0.0009999999"},
    {"sin", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.479425538604203 -0.9974949866040544 0.1411200080598672 -0.6569865987187891 nan nan nan "
     "-0.5063656411097588 0.0009999998333333417"},
    {"cos", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 0.8774 0.07074 -0.99 0.754 nan nan nan 0.8623 1"},
    {"cos", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 0.87758255 0.0707372 -0.9899925 0.75390226 nan nan nan 0.8623189 0.9999995"},
    {"cos", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 0.8775825618903728 0.0707372016677029 -0.9899924966004454 0.7539022543433046 nan nan nan "
     "0.8623188722876839 0.9999995000000417"},
    {"tan", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.5464 -14.1 -0.1426 -0.8716 nan nan nan -0.5874 0.001"},
    {"tan", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.5463025 -14.10142 -0.14254653 -0.871448 nan nan nan -0.58721393 0.0010000004"},
    {"tan", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.5463024898437905 -14.101419947171719 -0.1425465430742778 -0.8714479827243188 nan nan "
     "nan -0.5872139151569291 0.0010000003333334668"},
    {"arcsin", "float16", "float16", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.5234 -0.5234 1.57 -1.57 nan nan -0.848"},
    {"arcsin", "float32", "float32", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.5235988 -0.5235988 1.5707964 -1.5707964 nan nan -0.84806216"},
    {"arcsin", "float64", "float64", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.5235987755982989 -0.5235987755982989 1.5707963267948966 -1.5707963267948966 nan nan "
     "-0.848062078981481"},
    {"arccos", "float16", "float16", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "1.57 1.047 2.094 0 3.14 nan nan 2.418"},
    {"arccos", "float32", "float32", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "1.5707964 1.0471976 2.0943952 0 3.1415927 nan nan 2.4188585"},
    {"arccos", "float64", "float64", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "1.5707963267948966 1.0471975511965976 2.0943951023931957 0 3.141592653589793 nan nan "
     "2.4188584057763776"},
    {"arctan", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4636 -0.983 1.249 -1.429 1.57 -1.57 nan 1.561 0.001"},
    {"arctan", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4636476 -0.98279375 1.2490457 -1.4288993 1.5707964 -1.5707964 nan 1.5607967 "
     "0.0009999997"},
    {"arctan", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4636476090008061 -0.982793723247329 1.2490457723982544 -1.4288992721907328 "
     "1.5707963267948966 -1.5707963267948966 nan 1.5607966601082315 0.0009999996666668668"},
    {"arctan2", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "-0 2.896 -0.6436 2.158 -1.57 1.57 -1.57 nan 1.565 0"},
    {"arctan2", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL,
     "-0 2.896614 -0.64350116 2.158799 -1.5707964 1.5707964 -1.5707964 nan 1.5657964 0"},
    {"arctan2", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL,
     "-0 2.896613990462929 -0.6435011087932844 2.1587989303424644 -1.5707963267948966 "
     "1.5707963267948966 -1.5707963267948966 nan 1.5657963684609384 0"},
    {"arctan2", "int16", "float32", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "0.46364763 -2.6779451 1.2924967 -1.2924967 1.5708269 -1.5708269 1.5707964 -2.158799"},
    {"arctan2", "uint8", "float16", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "0.4636 1.5625 1.293 1.556 1.566 0.011765 1.57 0.983"},
    {"sinh", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.521 -2.129 10.016 -548.5 inf -inf nan inf 0.001"},
    {"sinh", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.5210953 -2.1292794 10.017875 -548.3161 inf -inf nan inf 0.0010000002"},
    {"sinh", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.5210953054937474 -2.1292794550948173 10.017874927409903 -548.3161232732465 inf -inf nan "
     "1.3440585709080678e+43 0.001000000166666675"},
    {"cosh", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.128 2.352 10.07 548.5 inf inf nan inf 1"},
    {"cosh", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.1276261 2.3524096 10.067661 548.317 inf inf nan inf 1.0000005"},
    {"cosh", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "1 1.1276259652063807 2.352409615243247 10.067661995777765 548.3170351552121 inf inf nan "
     "1.3440585709080678e+43 1.0000005000000418"},
    {"tanh", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4622 -0.9053 0.995 -1 1 -1 nan 1 0.001"},
    {"tanh", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4621172 -0.9051482 0.9950548 -0.99999833 1 -1 nan 1 0.0009999997"},
    {"tanh", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.46211715726000974 -0.9051482536448665 0.9950547536867305 -0.9999983369439447 1 -1 nan 1 "
     "0.0009999996666668"},
    {"arcsinh", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4812 -1.194 1.818 -2.645 inf -inf nan 5.297 0.001"},
    {"arcsinh", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.4812118 -1.1947632 1.8184465 -2.6441207 inf -inf nan 5.298342 0.0009999999"},
    {"arcsinh", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001", NULL, NULL,
     "-0 0.48121182505960347 -1.1947632172871092 1.8184464592320668 -2.644120761058629 inf -inf "
     "nan 5.298342365610589 0.0009999998333334083"},
    {"arccosh", "float16", "float16", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "nan 0 0.9624 2.994 nan nan inf nan"},
    {"arccosh", "float32", "float32", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "nan 0 0.9624236 2.993223 nan nan inf nan"},
    {"arccosh", "float64", "float64", "0 1 1.5 10 0.5 -1 inf nan", NULL, NULL,
     "nan 0 0.9624236501192069 2.993222846126381 nan nan inf nan"},
    {"arctanh", "float16", "float16", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.5493 -0.5493 inf -inf nan nan -0.973"},
    {"arctanh", "float32", "float32", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.54930615 -0.54930615 inf -inf nan nan -0.97295505"},
    {"arctanh", "float64", "float64", "-0 0.5 -0.5 1 -1 2 nan -0.75", NULL, NULL,
     "-0 0.5493061443340549 -0.5493061443340549 inf -inf nan nan -0.9729550745276566"},
    {"floor", "bool", "bool", "0 1 1 0", NULL, NULL, "0 1 1 0"},
    {"floor", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 7 -7 127 -128 5 -6"},
    {"floor", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 -1 7 -7 32767 -32768 5 -6"},
    {"floor", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 7 -7 2147483647 -2147483648 5 -6"},
    {"floor", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6"},
    {"floor", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"floor", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 65535 7 200 65535 3 9 6"},
    {"floor", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 4294967295 7 200 4294967295 3 9 6"},
    {"floor", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 18446744073709551615 7 200 18446744073709551615 3 9 6"},
    {"floor", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -2 7 -7 inf -inf nan -4 0"},
    {"floor", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -2 7 -7 inf -inf nan -4 0"},
    {"floor", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -2 7 -7 inf -inf nan -4 0"},
    {"ceil", "bool", "bool", "0 1 1 0", NULL, NULL, "0 1 1 0"},
    {"ceil", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 7 -7 127 -128 5 -6"},
    {"ceil", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 -1 7 -7 32767 -32768 5 -6"},
    {"ceil", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 7 -7 2147483647 -2147483648 5 -6"},
    {"ceil", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6"},
    {"ceil", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"ceil", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 65535 7 200 65535 3 9 6"},
    {"ceil", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 4294967295 7 200 4294967295 3 9 6"},
    {"ceil", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 18446744073709551615 7 200 18446744073709551615 3 9 6"},
    {"ceil", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -1 7 -7 inf -inf nan -3 1"},
    {"ceil", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -1 7 -7 inf -inf nan -3 1"},
    {"ceil", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -1 7 -7 inf -inf nan -3 1"},
    {"trunc", "bool", "bool", "0 1 1 0", NULL, NULL, "0 1 1 0"},
    {"trunc", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 -1 7 -7 127 -128 5 -6"},
    {"trunc", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 -1 7 -7 32767 -32768 5 -6"},
    {"trunc", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 -1 7 -7 2147483647 -2147483648 5 -6"},
    {"trunc", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6"},
    {"trunc", "uint8", "uint8", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"trunc", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", NULL, NULL,
     "1 65535 7 200 65535 3 9 6"},
    {"trunc", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 4294967295 7 200 4294967295 3 9 6"},
    {"trunc", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 18446744073709551615 7 200 18446744073709551615 3 9 6"},
    {"trunc", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -1 7 -7 inf -inf nan -3 0"},
    {"trunc", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -1 7 -7 inf -inf nan -3 0"},
    {"trunc", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 1 -1 7 -7 inf -inf nan -3 0"},
    {"rint", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -2 7 -7 inf -inf nan -3 0"},
    {"rint", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -2 7 -7 inf -inf nan -3 0"},
    {"rint", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "-0 2 -2 7 -7 inf -inf nan -3 0"},
    {"rint", "int16", "float32", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL,
     "1 -1 7 -7 32767 -32768 5 -6"},
    {"rint", "uint8", "float16", "1 255 7 200 255 3 9 6", NULL, NULL, "1 255 7 200 255 3 9 6"},
    {"hypot", "float16", "float16", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "2 2.062 2.5 3.605 7 inf inf nan 100 inf"},
    {"hypot", "float32", "float32", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "2 2.0615528 2.5 3.6055512 7 inf inf nan 100.00125 inf"},
    {"hypot", "float64", "float64", "-0 0.5 -1.5 3 -7 inf -inf nan 100 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL,
     "2 2.0615528128088303 2.5 3.605551275463989 7 inf inf nan 100.0012499921876 inf"},
    {"maximum", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 1 1"},
    {"maximum", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 -1 7 2 127 -1 5 -4"},
    {"maximum", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 -1 7 2 32767 -1 5 -4"},
    {"maximum", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "2 -1 7 2 2147483647 -1 5 -4"},
    {"maximum", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "2 -1 7 2 9223372036854775807 -1 5 -4"},
    {"maximum", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "2 255 7 200 255 255 9 6"},
    {"maximum", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "2 65535 7 200 65535 65535 9 6"},
    {"maximum", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "2 4294967295 7 200 4294967295 4294967295 9 6"},
    {"maximum", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "2 18446744073709551615 7 200 18446744073709551615 18446744073709551615 9 6"},
    {"maximum", "float16", "float16", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 nan nan nan inf"},
    {"maximum", "float32", "float32", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 nan nan nan inf"},
    {"maximum", "float64", "float64", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 nan nan nan inf"},
    {"minimum", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 1 0"},
    {"minimum", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -2 2 -7 -1 -128 0 -6"},
    {"minimum", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -2 2 -7 -1 -32768 0 -6"},
    {"minimum", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     NULL, "1 -2 2 -7 -1 -2147483648 0 -6"},
    {"minimum", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 -2 2 -7 -1 -9223372036854775808 0 -6"},
    {"minimum", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 2 2 3 1 3 0 4"},
    {"minimum", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 2 2 3 1 3 0 4"},
    {"minimum", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6",
     "2 2 2 3 1 4294967295 0 4", NULL, "1 2 2 3 1 3 0 4"},
    {"minimum", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 2 2 3 1 3 0 4"},
    {"minimum", "float16", "float16", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf nan nan nan 0.001"},
    {"minimum", "float32", "float32", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf nan nan nan 0.001"},
    {"minimum", "float64", "float64", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf nan nan nan 0.001"},
    {"fmax", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 1 1 1"},
    {"fmax", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 -1 7 2 127 -1 5 -4"},
    {"fmax", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 -1 7 2 32767 -1 5 -4"},
    {"fmax", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "2 -1 7 2 2147483647 -1 5 -4"},
    {"fmax", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "2 -1 7 2 9223372036854775807 -1 5 -4"},
    {"fmax", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "2 255 7 200 255 255 9 6"},
    {"fmax", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "2 65535 7 200 65535 65535 9 6"},
    {"fmax", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "2 4294967295 7 200 4294967295 4294967295 9 6"},
    {"fmax", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL,
     "2 18446744073709551615 7 200 18446744073709551615 18446744073709551615 9 6"},
    {"fmax", "float16", "float16", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 1 2.5 nan inf"},
    {"fmax", "float32", "float32", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 1 2.5 nan inf"},
    {"fmax", "float64", "float64", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "1 1.5 2 0 inf 3 1 2.5 nan inf"},
    {"fmin", "bool", "bool", "0 1 1 0", "0 0 1 1", NULL, "0 0 1 0"},
    {"fmin", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -2 2 -7 -1 -128 0 -6"},
    {"fmin", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -2 2 -7 -1 -32768 0 -6"},
    {"fmin", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4", NULL,
     "1 -2 2 -7 -1 -2147483648 0 -6"},
    {"fmin", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", NULL, "1 -2 2 -7 -1 -9223372036854775808 0 -6"},
    {"fmin", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", NULL,
     "1 2 2 3 1 3 0 4"},
    {"fmin", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4", NULL,
     "1 2 2 3 1 3 0 4"},
    {"fmin", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     NULL, "1 2 2 3 1 3 0 4"},
    {"fmin", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", NULL, "1 2 2 3 1 3 0 4"},
    {"fmin", "float16", "float16", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf 1 2.5 nan 0.001"},
    {"fmin", "float32", "float32", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf 1 2.5 nan 0.001"},
    {"fmin", "float64", "float64", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", NULL, "0.5 -2 -1.5 -7 2 -inf 1 2.5 nan 0.001"},
    {"copysign", "float16", "float16", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -1.5 1.5 -7 7 inf inf nan 3.25 0.001"},
    {"copysign", "float32", "float32", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -1.5 1.5 -7 7 inf inf nan 3.25 0.001"},
    {"copysign", "float64", "float64", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001",
     "2 -2 2 -2 0 2 3 1 0.5 inf", NULL, "0 -1.5 1.5 -7 7 inf inf nan 3.25 0.001"},
    {"isnan", "bool", "bool", "0 1 1 0", NULL, NULL, "0 0 0 0"},
    {"isnan", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "0 0 0 0 0 0 0 0"},
    {"isnan", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "uint8", "bool", "1 255 7 200 255 3 9 6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "uint16", "bool", "1 65535 7 200 65535 3 9 6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "0 0 0 0 0 0 0 0"},
    {"isnan", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "0 0 0 0 0 0 0 0"},
    {"isnan", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 0 0 1 0 0"},
    {"isnan", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 0 0 1 0 0"},
    {"isnan", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 0 0 1 0 0"},
    {"isinf", "bool", "bool", "0 1 1 0", NULL, NULL, "0 0 0 0"},
    {"isinf", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "0 0 0 0 0 0 0 0"},
    {"isinf", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "uint8", "bool", "1 255 7 200 255 3 9 6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "uint16", "bool", "1 65535 7 200 65535 3 9 6", NULL, NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "0 0 0 0 0 0 0 0"},
    {"isinf", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "0 0 0 0 0 0 0 0"},
    {"isinf", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 1 1 0 0 0"},
    {"isinf", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 1 1 0 0 0"},
    {"isinf", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "0 0 0 0 0 1 1 0 0 0"},
    {"isfinite", "bool", "bool", "0 1 1 0", NULL, NULL, "1 1 1 1"},
    {"isfinite", "int8", "bool", "1 -1 7 -7 127 -128 5 -6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "int16", "bool", "1 -1 7 -7 32767 -32768 5 -6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "int32", "bool", "1 -1 7 -7 2147483647 -2147483648 5 -6", NULL, NULL,
     "1 1 1 1 1 1 1 1"},
    {"isfinite", "int64", "bool", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6", NULL,
     NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "uint8", "bool", "1 255 7 200 255 3 9 6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "uint16", "bool", "1 65535 7 200 65535 3 9 6", NULL, NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "uint32", "bool", "1 4294967295 7 200 4294967295 3 9 6", NULL, NULL,
     "1 1 1 1 1 1 1 1"},
    {"isfinite", "uint64", "bool", "1 18446744073709551615 7 200 18446744073709551615 3 9 6", NULL,
     NULL, "1 1 1 1 1 1 1 1"},
    {"isfinite", "float16", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "1 1 1 1 1 0 0 0 1 1"},
    {"isfinite", "float32", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "1 1 1 1 1 0 0 0 1 1"},
    {"isfinite", "float64", "bool", "-0 1.5 -1.5 7 -7 inf -inf nan -3.25 0.001", NULL, NULL,
     "1 1 1 1 1 0 0 0 1 1"},
    {"clip", "bool", "bool", "0 1 1 0", "0 0 1 1", "1 0 1 0", "0 0 1 0"},
    {"clip", "int8", "int8", "1 -1 7 -7 127 -128 5 -6", "2 -2 2 2 -1 -1 0 -4",
     "3 0 5 6 100 -9 3 -3", "2 -1 5 2 100 -9 3 -4"},
    {"clip", "int16", "int16", "1 -1 7 -7 32767 -32768 5 -6", "2 -2 2 2 -1 -1 0 -4",
     "3 0 5 6 100 -9 3 -3", "2 -1 5 2 100 -9 3 -4"},
    {"clip", "int32", "int32", "1 -1 7 -7 2147483647 -2147483648 5 -6", "2 -2 2 2 -1 -1 0 -4",
     "3 0 5 6 100 -9 3 -3", "2 -1 5 2 100 -9 3 -4"},
    {"clip", "int64", "int64", "1 -1 7 -7 9223372036854775807 -9223372036854775808 5 -6",
     "2 -2 2 2 -1 -1 0 -4", "3 0 5 6 100 -9 3 -3", "2 -1 5 2 100 -9 3 -4"},
    {"clip", "uint8", "uint8", "1 255 7 200 255 3 9 6", "2 2 2 3 1 255 0 4", "3 7 1 100 2 4 6 5",
     "2 7 1 100 2 4 6 5"},
    {"clip", "uint16", "uint16", "1 65535 7 200 65535 3 9 6", "2 2 2 3 1 65535 0 4",
     "3 7 1 100 2 4 6 5", "2 7 1 100 2 4 6 5"},
    {"clip", "uint32", "uint32", "1 4294967295 7 200 4294967295 3 9 6", "2 2 2 3 1 4294967295 0 4",
     "3 7 1 100 2 4 6 5", "2 7 1 100 2 4 6 5"},
    {"clip", "uint64", "uint64", "1 18446744073709551615 7 200 18446744073709551615 3 9 6",
     "2 2 2 3 1 18446744073709551615 0 4", "3 7 1 100 2 4 6 5", "2 7 1 100 2 4 6 5"},
    {"clip", "float16", "float16", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", "-1 1 3 1 -1 5 0 4 -2 1", "-1 1 2 0 -1 3 nan nan nan 1"},
    {"clip", "float32", "float32", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", "-1 1 3 1 -1 5 0 4 -2 1", "-1 1 2 0 -1 3 nan nan nan 1"},
    {"clip", "float64", "float64", "0.5 1.5 -1.5 -7 inf -inf nan 2.5 nan 0.001",
     "1 -2 2 0 2 3 1 nan nan inf", "-1 1 3 1 -1 5 0 4 -2 1", "-1 1 2 0 -1 3 nan nan nan 1"},
    {"where", "bool", "bool", "0 1 1 0", "0 0 1 1", "1 0 1 0", "1 0 1 0"},
    {"where", "int8", "int8", "1 1 1 1 1 1 1 1", "2 -2 2 2 -1 -1 0 -4", "3 0 5 6 100 -9 3 -3",
     "2 -2 2 2 -1 -1 0 -4"},
    {"where", "int16", "int16", "1 1 1 1 1 1 1 1", "2 -2 2 2 -1 -1 0 -4", "3 0 5 6 100 -9 3 -3",
     "2 -2 2 2 -1 -1 0 -4"},
    {"where", "int32", "int32", "1 1 1 1 1 1 1 1", "2 -2 2 2 -1 -1 0 -4", "3 0 5 6 100 -9 3 -3",
     "2 -2 2 2 -1 -1 0 -4"},
    {"where", "int64", "int64", "1 1 1 1 1 1 1 1", "2 -2 2 2 -1 -1 0 -4", "3 0 5 6 100 -9 3 -3",
     "2 -2 2 2 -1 -1 0 -4"},
    {"where", "uint8", "uint8", "1 1 1 1 1 1 1 1", "2 2 2 3 1 255 0 4", "3 7 1 100 2 4 6 5",
     "2 2 2 3 1 255 0 4"},
    {"where", "uint16", "uint16", "1 1 1 1 1 1 1 1", "2 2 2 3 1 65535 0 4", "3 7 1 100 2 4 6 5",
     "2 2 2 3 1 65535 0 4"},
    {"where", "uint32", "uint32", "1 1 1 1 1 1 1 1", "2 2 2 3 1 4294967295 0 4",
     "3 7 1 100 2 4 6 5", "2 2 2 3 1 4294967295 0 4"},
    {"where", "uint64", "uint64", "1 1 1 1 1 1 1 1", "2 2 2 3 1 18446744073709551615 0 4",
     "3 7 1 100 2 4 6 5", "2 2 2 3 1 18446744073709551615 0 4"},
    {"where", "float16", "float16", "0 1 1 1 1 1 1 1 1 1", "2 -2 2 -2 0 2 3 1 0.5 inf",
     "-1 1 3 1 -1 5 0 4 -2 1", "-1 -2 2 -2 0 2 3 1 0.5 inf"},
    {"where", "float32", "float32", "0 1 1 1 1 1 1 1 1 1", "2 -2 2 -2 0 2 3 1 0.5 inf",
     "-1 1 3 1 -1 5 0 4 -2 1", "-1 -2 2 -2 0 2 3 1 0.5 inf"},
    {"where", "float64", "float64", "0 1 1 1 1 1 1 1 1 1", "2 -2 2 -2 0 2 3 1 0.5 inf",
     "-1 1 3 1 -1 5 0 4 -2 1", "-1 -2 2 -2 0 2 3 1 0.5 inf"},
};

/* ---------------------------------------------------------------- helpers */

static cuarr_context ctx; /* host work needs no stream */

static cuarr_operand arr(const cuarr_array *a) { return (cuarr_operand){.array = a}; }
static cuarr_operand weak_int(int64_t v) {
  return (cuarr_operand){.scalar = {.dtype = CUARR_INT64, .v.i = v}, .weak = true};
}
static cuarr_operand weak_float(double v) {
  return (cuarr_operand){.scalar = {.dtype = CUARR_FLOAT64, .v.f = v}, .weak = true};
}
static cuarr_operand weak_bool(bool v) {
  return (cuarr_operand){.scalar = {.dtype = CUARR_BOOL, .v.b = v}, .weak = true};
}
static cuarr_operand strong(cuarr_dtype d, double v) {
  cuarr_scalar s = {.dtype = CUARR_FLOAT64, .v.f = v};
  uint64_t bits = 0;
  cuarr_scalar_store(s, d, &bits);
  return (cuarr_operand){.scalar = cuarr_scalar_load(&bits, d)};
}

/* One token of a value list as a scalar of dtype d. */
static cuarr_scalar parse(const char **p, cuarr_dtype d) {
  char *end;
  cuarr_scalar s = {.dtype = d};
  if (cuarr_dtype_is_float(d)) {
    s.v.f = strtod(*p, &end);
  } else if (cuarr_dtype_is_unsigned(d)) {
    s.v.u = strtoull(*p, &end, 10);
  } else {
    s.v.i = strtoll(*p, &end, 10);
    if (d == CUARR_BOOL)
      s.v.b = s.v.i != 0;
  }
  *p = end;
  return s;
}

static int count_tokens(const char *s) {
  int n = 0;
  for (const char *p = s; *p;) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    n++;
    while (*p && *p != ' ')
      p++;
  }
  return n;
}

/* A 1-D host array of dtype d holding the values of a list ("1 -2 nan"). */
static cuarr_array host_from(cuarr_dtype d, const char *values) {
  int64_t n = count_tokens(values);
  cuarr_array a = {0};
  if (cuarr_array_empty(CUARR_HOST, d, 1, &n, false, NULL, ctx.reclaim, &a) != CUARR_OK)
    return a;
  const char *p = values;
  size_t size = cuarr_dtype_size(d);
  for (int64_t k = 0; k < n; k++)
    cuarr_scalar_store(parse(&p, d), d, (char *)cuarr_array_data(&a) + k * size);
  return a;
}

/* A C-contiguous host array of any shape filled with 0, 1, 2, ... */
static cuarr_array host_iota(cuarr_dtype d, int ndim, const int64_t *shape) {
  cuarr_array a = {0};
  if (cuarr_array_empty(CUARR_HOST, d, ndim, shape, false, NULL, ctx.reclaim, &a) != CUARR_OK)
    return a;
  size_t size = cuarr_dtype_size(d);
  for (int64_t k = 0; k < cuarr_array_size(&a); k++) {
    cuarr_scalar s = {.dtype = CUARR_INT64, .v.i = k};
    cuarr_scalar_store(s, d, (char *)cuarr_array_data(&a) + k * size);
  }
  return a;
}

/* Element k (C order) of any array, as a double. */
static double elem(const cuarr_array *a, int64_t k) {
  int64_t off = 0;
  for (int d = a->ndim - 1; d >= 0; d--) {
    off += (k % a->shape[d]) * a->strides[d];
    k /= a->shape[d];
  }
  cuarr_scalar s = cuarr_scalar_load((const char *)cuarr_array_data(a) + off, a->dtype);
  return s.dtype == CUARR_BOOL              ? (double)s.v.b
         : cuarr_dtype_is_signed(s.dtype)   ? (double)s.v.i
         : cuarr_dtype_is_unsigned(s.dtype) ? (double)s.v.u
                                            : s.v.f;
}

/* Element k of a 1-D array as a scalar. */
static cuarr_scalar elem_scalar(const cuarr_array *a, int64_t k) {
  return cuarr_scalar_load((const char *)cuarr_array_data(a) + k * a->strides[0], a->dtype);
}

static const cuarr_ufunc *uf(const char *name) { return cuarr_ufunc_find(name); }

/* out = u(args...) on the host with the default float dtype float64. */
static cuarr_status call(const char *name, cuarr_array *out, cuarr_operand a0, cuarr_operand a1,
                         cuarr_operand a2) {
  cuarr_operand in[3] = {a0, a1, a2};
  return cuarr_ufunc_call(&ctx, uf(name), CUARR_HOST, in, CUARR_FLOAT64, out);
}

static cuarr_dtype resolve_out(const char *name, cuarr_operand a0, cuarr_operand a1,
                               cuarr_dtype weak_float, cuarr_status *st) {
  cuarr_operand in[3] = {a0, a1, a1};
  cuarr_dtype compute = CUARR_NDTYPES, out = CUARR_NDTYPES;
  *st = cuarr_ufunc_resolve(uf(name), in, weak_float, &compute, &out);
  return out;
}

/* An array of dtype d standing for its dtype in type resolution (never read). */
static cuarr_array typed(cuarr_dtype d) {
  cuarr_array a = {.dtype = d, .ndim = 0};
  return a;
}

/* ---------------------------------------------------------------- the registry */

static void test_registry(void) {
  CHECK(cuarr_ufunc_count() == 66, "66 built-in ufuncs");
  bool named = true, distinct = true;
  for (int i = 0; i < cuarr_ufunc_count(); i++) {
    const cuarr_ufunc *u = cuarr_ufunc_at(i);
    named = named && u && cuarr_ufunc_find(cuarr_ufunc_name(u)) == u && cuarr_ufunc_nout(u) == 1;
    for (int j = 0; j < i; j++)
      distinct = distinct && strcmp(cuarr_ufunc_name(u), cuarr_ufunc_name(cuarr_ufunc_at(j)));
  }
  CHECK(named, "every ufunc is found by its name and has one output");
  CHECK(distinct, "ufunc names are distinct");
  CHECK(cuarr_ufunc_at(66) == NULL && cuarr_ufunc_at(-1) == NULL,
        "cuarr_ufunc_at checks its index");
  CHECK(uf("true_divide") == uf("divide") && uf("divide") != NULL, "true_divide is divide");
  CHECK(strcmp(cuarr_ufunc_name(uf("true_divide")), "divide") == 0, "divide's name");
  CHECK(uf("abs") == uf("absolute") && uf("mod") == uf("remainder") && uf("pow") == uf("power") &&
            uf("bitwise_not") == uf("invert") && uf("acos") == uf("arccos"),
        "NumPy's aliases");
  CHECK(uf("no_such_ufunc") == NULL && uf(NULL) == NULL, "unknown names give NULL");
  CHECK(cuarr_ufunc_nin(uf("add")) == 2 && cuarr_ufunc_nin(uf("exp")) == 1 &&
            cuarr_ufunc_nin(uf("clip")) == 3 && cuarr_ufunc_nin(uf("where")) == 3,
        "nin");
}

/* ---------------------------------------------------------------- promotion */

static void test_promote_table(void) {
  int bad = 0;
  for (int a = 0; a < CUARR_NDTYPES; a++) {
    for (int b = 0; b < CUARR_NDTYPES; b++) {
      cuarr_dtype out;
      cuarr_status s = cuarr_promote(a, false, b, false, CUARR_FLOAT64, &out);
      if (s != CUARR_OK || dtype_codes[out] != promote_table[a * 12 + b]) {
        if (bad++ < 5)
          printf("# promote(%s, %s) = %s\n", cuarr_dtype_name(a), cuarr_dtype_name(b),
                 cuarr_dtype_name(out));
      }
    }
  }
  CHECK(bad == 0, "cuarr_promote matches np.promote_types on all 144 pairs");
}

static cuarr_dtype promote(cuarr_dtype a, bool aw, cuarr_dtype b, bool bw, cuarr_dtype wf) {
  cuarr_dtype out = CUARR_NDTYPES;
  cuarr_promote(a, aw, b, bw, wf, &out);
  return out;
}

static void test_promote_weak(void) {
  CHECK(promote(CUARR_INT8, false, CUARR_INT64, true, CUARR_FLOAT64) == CUARR_INT8,
        "int8 + weak int -> int8");
  CHECK(promote(CUARR_INT64, true, CUARR_UINT16, false, CUARR_FLOAT64) == CUARR_UINT16,
        "weak int + uint16 -> uint16");
  CHECK(promote(CUARR_FLOAT16, false, CUARR_INT64, true, CUARR_FLOAT64) == CUARR_FLOAT16,
        "float16 + weak int -> float16");
  CHECK(promote(CUARR_BOOL, false, CUARR_INT64, true, CUARR_FLOAT64) == CUARR_INT64,
        "bool + weak int -> int64");
  CHECK(promote(CUARR_INT32, false, CUARR_FLOAT64, true, CUARR_FLOAT64) == CUARR_FLOAT64,
        "int32 + weak float -> float64");
  CHECK(promote(CUARR_INT32, false, CUARR_FLOAT64, true, CUARR_FLOAT32) == CUARR_FLOAT32,
        "int32 + weak float -> the default float dtype");
  CHECK(promote(CUARR_FLOAT32, false, CUARR_FLOAT64, true, CUARR_FLOAT64) == CUARR_FLOAT32,
        "float32 + weak float -> float32");
  CHECK(promote(CUARR_FLOAT16, false, CUARR_FLOAT64, true, CUARR_FLOAT64) == CUARR_FLOAT16,
        "float16 + weak float -> float16");
  CHECK(promote(CUARR_UINT8, false, CUARR_BOOL, true, CUARR_FLOAT64) == CUARR_UINT8 &&
            promote(CUARR_BOOL, true, CUARR_FLOAT32, false, CUARR_FLOAT64) == CUARR_FLOAT32,
        "a weak bool gives way");
  CHECK(promote(CUARR_INT64, true, CUARR_INT64, true, CUARR_FLOAT64) == CUARR_INT64 &&
            promote(CUARR_INT64, true, CUARR_FLOAT64, true, CUARR_FLOAT32) == CUARR_FLOAT32 &&
            promote(CUARR_BOOL, true, CUARR_BOOL, true, CUARR_FLOAT64) == CUARR_BOOL &&
            promote(CUARR_BOOL, true, CUARR_INT64, true, CUARR_FLOAT64) == CUARR_INT64,
        "two weak operands: int64, the default float, bool by kind");
  cuarr_dtype out;
  CHECK(cuarr_promote(CUARR_NDTYPES, false, CUARR_INT8, false, CUARR_FLOAT64, &out) ==
                CUARR_VALUE_ERROR &&
            cuarr_promote(CUARR_INT8, false, CUARR_INT8, true, CUARR_INT32, &out) ==
                CUARR_VALUE_ERROR,
        "invalid dtypes are a ValueError");
}

static cuarr_dtype result3(cuarr_dtype a, cuarr_dtype b, cuarr_dtype c) {
  const cuarr_dtype d[3] = {a, b, c};
  cuarr_dtype out = CUARR_NDTYPES;
  cuarr_result_type(3, d, NULL, CUARR_FLOAT64, &out);
  return out;
}

/* result_type of many operands is NumPy's, all at once: not a pairwise fold, so the same in
 * every order (spec/numpy_numerics_spec.lua checks it against NumPy's recorded answers). */
static void test_result_type(void) {
  CHECK(result3(CUARR_UINT8, CUARR_INT8, CUARR_FLOAT16) == CUARR_FLOAT16 &&
            result3(CUARR_INT8, CUARR_FLOAT16, CUARR_UINT8) == CUARR_FLOAT16,
        "uint8, int8, float16 -> float16 in any order");
  CHECK(result3(CUARR_UINT16, CUARR_INT8, CUARR_FLOAT16) == CUARR_FLOAT32,
        "uint16, int8, float16 -> float32");
  CHECK(result3(CUARR_UINT8, CUARR_INT8, CUARR_UINT16) == CUARR_INT32,
        "integers alone fold pairwise");
  int bad = 0;
  for (int a = 0; a < CUARR_NDTYPES; a++)
    for (int b = 0; b < CUARR_NDTYPES; b++)
      for (int c = 0; c < CUARR_NDTYPES; c++) {
        cuarr_dtype r = result3(a, b, c);
        bad += r != result3(b, c, a) || r != result3(c, a, b) || r != result3(b, a, c);
        cuarr_dtype pair = promote(a, false, b, false, CUARR_FLOAT64);
        bad += result3(a, b, b) != pair; /* two distinct operands: promote_types */
      }
  CHECK(bad == 0, "result_type is order-free over all 1728 triples and promote_types on pairs");
  const cuarr_dtype d[3] = {CUARR_INT8, CUARR_INT64, CUARR_FLOAT64};
  const bool weak[3] = {false, true, true};
  cuarr_dtype out;
  CHECK(cuarr_result_type(3, d, weak, CUARR_FLOAT32, &out) == CUARR_OK && out == CUARR_FLOAT32,
        "weak operands: int8 array, Lua integer and float -> the default float");
  CHECK(cuarr_result_type(0, d, NULL, CUARR_FLOAT64, &out) == CUARR_VALUE_ERROR,
        "no operands is a ValueError");
}

/* ---------------------------------------------------------------- type resolution */

static void test_resolution_tables(void) {
  int bad = 0, checked = 0;
  for (size_t r = 0; r < sizeof resolutions / sizeof resolutions[0]; r++) {
    const struct resolution *e = &resolutions[r];
    const cuarr_ufunc *u = uf(e->name);
    if (!u) {
      bad++;
      printf("# no ufunc %s\n", e->name);
      continue;
    }
    bool logical = strncmp(e->name, "logical_", 8) == 0; /* cuarr computes these in bool */
    int n = cuarr_ufunc_nin(u) == 1 ? 12 : 144;
    for (int k = 0; k < n; k++) {
      cuarr_array a = typed(n == 12 ? (cuarr_dtype)k : (cuarr_dtype)(k / 12));
      cuarr_array b = typed((cuarr_dtype)(k % 12));
      cuarr_operand in[3] = {arr(&a), arr(&b), arr(&b)};
      cuarr_dtype compute = CUARR_NDTYPES, out = CUARR_NDTYPES;
      cuarr_status s = cuarr_ufunc_resolve(u, in, CUARR_FLOAT64, &compute, &out);
      bool ok = e->out[k] == 'x' ? s == CUARR_TYPE_ERROR
                                 : s == CUARR_OK && dtype_codes[out] == e->out[k] &&
                                       (logical || dtype_codes[compute] == e->in[k]);
      checked++;
      if (!ok && bad++ < 10)
        printf("# %s(%s%s%s): got %s %s, NumPy %c %c\n", e->name, cuarr_dtype_name(a.dtype),
               n == 12 ? "" : ", ", n == 12 ? "" : cuarr_dtype_name(b.dtype),
               s == CUARR_OK ? cuarr_dtype_name(compute) : cuarr_status_name(s),
               s == CUARR_OK ? cuarr_dtype_name(out) : "", e->in[k], e->out[k]);
    }
    for (int k = 0; e->weak_int_out && k < 12; k++) {
      cuarr_array a = typed((cuarr_dtype)k);
      for (int w = 0; w < 2; w++) {
        cuarr_operand in[3] = {arr(&a), w ? weak_float(0.5) : weak_int(1), weak_int(1)};
        cuarr_dtype compute = CUARR_NDTYPES, out = CUARR_NDTYPES;
        cuarr_status s = cuarr_ufunc_resolve(u, in, CUARR_FLOAT64, &compute, &out);
        char want_out = (w ? e->weak_float_out : e->weak_int_out)[k];
        char want_in = (w ? e->weak_float_in : e->weak_int_in)[k];
        bool ok = want_out == 'x' ? s == CUARR_TYPE_ERROR
                                  : s == CUARR_OK && dtype_codes[out] == want_out &&
                                        (logical || dtype_codes[compute] == want_in);
        checked++;
        if (!ok && bad++ < 10)
          printf("# %s(%s, weak %s): got %s %s, NumPy %c %c\n", e->name, cuarr_dtype_name(a.dtype),
                 w ? "float" : "int",
                 s == CUARR_OK ? cuarr_dtype_name(compute) : cuarr_status_name(s),
                 s == CUARR_OK ? cuarr_dtype_name(out) : "", want_in, want_out);
      }
    }
  }
  printf("# %d resolutions compared with NumPy's\n", checked);
  CHECK(bad == 0, "type resolution matches NumPy 2 for every ufunc and dtype (pair)");
}

static void test_weak_scalars(void) {
  cuarr_status s;
  cuarr_array i8 = typed(CUARR_INT8), i32 = typed(CUARR_INT32), f32 = typed(CUARR_FLOAT32),
              u64 = typed(CUARR_UINT64), i64 = typed(CUARR_INT64), f16 = typed(CUARR_FLOAT16),
              u8 = typed(CUARR_UINT8), b = typed(CUARR_BOOL);
  CHECK(resolve_out("add", arr(&i8), weak_int(3), CUARR_FLOAT64, &s) == CUARR_INT8,
        "int8 + 3 -> int8");
  CHECK(resolve_out("add", weak_int(3), arr(&i8), CUARR_FLOAT64, &s) == CUARR_INT8,
        "3 + int8 -> int8");
  CHECK(resolve_out("add", arr(&i32), weak_float(2.5), CUARR_FLOAT64, &s) == CUARR_FLOAT64,
        "int32 + 2.5 -> float64");
  CHECK(resolve_out("add", arr(&i32), weak_float(2.5), CUARR_FLOAT32, &s) == CUARR_FLOAT32,
        "int32 + 2.5 -> float32 when that is the default float dtype");
  CHECK(resolve_out("multiply", arr(&f32), weak_float(2.5), CUARR_FLOAT64, &s) == CUARR_FLOAT32,
        "float32 * 2.5 -> float32");
  CHECK(resolve_out("add", arr(&u64), arr(&i64), CUARR_FLOAT64, &s) == CUARR_FLOAT64,
        "uint64 + int64 -> float64");
  CHECK(resolve_out("add", arr(&f16), weak_float(1.5), CUARR_FLOAT64, &s) == CUARR_FLOAT16,
        "float16 + 1.5 -> float16");
  CHECK(resolve_out("add", arr(&b), weak_int(1), CUARR_FLOAT64, &s) == CUARR_INT64,
        "bool + 1 -> int64");
  CHECK(resolve_out("add", arr(&u8), weak_bool(true), CUARR_FLOAT64, &s) == CUARR_UINT8,
        "uint8 + true -> uint8");
  CHECK(resolve_out("add", weak_int(1), weak_int(2), CUARR_FLOAT64, &s) == CUARR_INT64 &&
            resolve_out("add", weak_int(1), weak_float(2), CUARR_FLOAT32, &s) == CUARR_FLOAT32,
        "scalars only: int64, or the default float dtype");
  CHECK(resolve_out("exp", weak_int(1), weak_int(1), CUARR_FLOAT64, &s) == CUARR_FLOAT64,
        "exp of a weak int: float64");
  CHECK(resolve_out("add", arr(&i8), strong(CUARR_INT16, 1), CUARR_FLOAT64, &s) == CUARR_INT16,
        "a strong scalar promotes as an array");
  resolve_out("add", arr(&u8), weak_int(300), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_VALUE_ERROR && strstr(cuarr_last_error(), "300 out of bounds for uint8"),
        "uint8 + 300 is a ValueError");
  resolve_out("add", arr(&u8), weak_int(-1), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_VALUE_ERROR, "uint8 + -1 is a ValueError");
  resolve_out("maximum", arr(&i8), weak_int(128), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_VALUE_ERROR, "maximum(int8, 128) is a ValueError");
  resolve_out("add", arr(&i8), weak_int(-128), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_OK, "int8 + -128 is fine");
  CHECK(resolve_out("add", arr(&u8), weak_float(300.5), CUARR_FLOAT64, &s) == CUARR_FLOAT64 &&
            s == CUARR_OK,
        "uint8 + 300.5 is float64");
  CHECK(resolve_out("less", arr(&u8), weak_int(300), CUARR_FLOAT64, &s) == CUARR_BOOL &&
            s == CUARR_OK,
        "uint8 < 300 resolves (comparisons take any integer)");
  CHECK(resolve_out("logical_and", arr(&u8), weak_int(300), CUARR_FLOAT64, &s) == CUARR_BOOL &&
            s == CUARR_OK,
        "logical_and(uint8, 300) resolves (the logical ufuncs compute in bool)");
  CHECK(resolve_out("divide", arr(&u8), weak_int(300), CUARR_FLOAT64, &s) == CUARR_FLOAT64 &&
            s == CUARR_OK,
        "uint8 / 300 resolves (float64)");
  CHECK(resolve_out("left_shift", arr(&f32), weak_int(1), CUARR_FLOAT64, &s) == CUARR_NDTYPES &&
            s == CUARR_TYPE_ERROR && strstr(cuarr_last_error(), "left_shift"),
        "left_shift of float32 is a TypeError naming the ufunc");
  CHECK(resolve_out("bitwise_and", arr(&i32), weak_float(1), CUARR_FLOAT64, &s) == CUARR_NDTYPES &&
            s == CUARR_TYPE_ERROR,
        "int32 & 1.0 is a TypeError");
  resolve_out("negative", arr(&b), arr(&b), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_TYPE_ERROR, "negative of bool is a TypeError");
  resolve_out("subtract", arr(&b), weak_bool(true), CUARR_FLOAT64, &s);
  CHECK(s == CUARR_TYPE_ERROR, "bool - true is a TypeError");
  CHECK(resolve_out("subtract", arr(&b), weak_int(1), CUARR_FLOAT64, &s) == CUARR_INT64,
        "bool - 1 is int64");
  cuarr_dtype compute, out;
  cuarr_operand in3[3] = {arr(&b), arr(&i8), arr(&u8)};
  CHECK(cuarr_ufunc_resolve(uf("where"), in3, CUARR_FLOAT64, &compute, &out) == CUARR_OK &&
            compute == CUARR_INT16 && out == CUARR_INT16,
        "where(bool, int8, uint8) -> int16");
  cuarr_operand in4[3] = {arr(&f32), arr(&i8), arr(&u8)};
  CHECK(cuarr_ufunc_resolve(uf("where"), in4, CUARR_FLOAT64, &compute, &out) == CUARR_OK &&
            out == CUARR_INT16,
        "where's condition may be any dtype");
  cuarr_operand in5[3] = {arr(&i8), weak_int(0), weak_float(1.5)};
  CHECK(cuarr_ufunc_resolve(uf("clip"), in5, CUARR_FLOAT64, &compute, &out) == CUARR_OK &&
            out == CUARR_FLOAT64,
        "clip(int8, 0, 1.5) -> float64");
  cuarr_operand in6[3] = {arr(&i8), strong(CUARR_INT16, 0), weak_int(5)};
  CHECK(cuarr_ufunc_resolve(uf("clip"), in6, CUARR_FLOAT64, &compute, &out) == CUARR_OK &&
            out == CUARR_INT16,
        "clip(int8, int16 scalar, 5) -> int16");
  cuarr_operand in7[3] = {arr(&i64), arr(&u64), arr(&u64)};
  CHECK(cuarr_ufunc_resolve(uf("less"), in7, CUARR_FLOAT64, &compute, &out) == CUARR_OK &&
            compute == CUARR_INT64 && out == CUARR_BOOL,
        "int64 < uint64 compares by value (NumPy 2's mixed loop)");
}

/* ---------------------------------------------------------------- every ufunc, every loop */

/* Results that may differ from NumPy's in the last bits: library math (glibc's and NumPy's
 * own vectorised functions round differently). */
static bool is_approximate(const char *name) {
  static const char *const names[] = {"exp",     "exp2",    "expm1",   "log",   "log2", "log10",
                                      "log1p",   "cbrt",    "sin",     "cos",   "tan",  "arcsin",
                                      "arccos",  "arctan",  "sinh",    "cosh",  "tanh", "arcsinh",
                                      "arccosh", "arctanh", "arctan2", "hypot", "power"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i], name) == 0)
      return true;
  return false;
}

static bool same_value(cuarr_scalar got, cuarr_scalar want, bool approx) {
  cuarr_dtype d = want.dtype;
  if (d == CUARR_BOOL)
    return got.v.b == want.v.b;
  if (cuarr_dtype_is_signed(d))
    return got.v.i == want.v.i;
  if (cuarr_dtype_is_unsigned(d))
    return got.v.u == want.v.u;
  double g = got.v.f, w = want.v.f;
  if (isnan(w))
    return isnan(g);
  if (!approx || isinf(w) || w == 0)
    return g == w && (w != 0 || approx || signbit(g) == signbit(w));
  double tol = d == CUARR_FLOAT16 ? 2e-3 : d == CUARR_FLOAT32 ? 1e-6 : 1e-14;
  return fabs(g - w) <= tol * fabs(w);
}

static void test_values(void) {
  int bad = 0, n_elements = 0;
  for (size_t c = 0; c < sizeof value_cases / sizeof value_cases[0]; c++) {
    const struct value_case *vc = &value_cases[c];
    const cuarr_ufunc *u = uf(vc->name);
    cuarr_dtype d, od;
    if (!u || !cuarr_dtype_from_name(vc->dtype, &d) || !cuarr_dtype_from_name(vc->out, &od)) {
      bad++;
      continue;
    }
    const char *lists[3] = {vc->in0, vc->in1, vc->in2};
    cuarr_array in[3] = {{0}};
    cuarr_operand args[3];
    int nin = cuarr_ufunc_nin(u);
    for (int i = 0; i < nin; i++) {
      bool cond = i == 0 && strcmp(vc->name, "where") == 0;
      in[i] = host_from(cond ? CUARR_BOOL : d, lists[i]);
      args[i] = arr(&in[i]);
    }
    cuarr_array out = {0};
    cuarr_status s = cuarr_ufunc_call(&ctx, u, CUARR_HOST, args, CUARR_FLOAT64, &out);
    int n = count_tokens(vc->expected), wrong = -1;
    if (s == CUARR_OK && out.dtype == od && cuarr_array_size(&out) == n) {
      const char *p = vc->expected;
      for (int k = 0; k < n && wrong < 0; k++) {
        uint64_t bits = 0;
        cuarr_scalar_store(parse(&p, od), od, &bits); /* rounded to the output's dtype */
        cuarr_scalar want = cuarr_scalar_load(&bits, od);
        if (!same_value(elem_scalar(&out, k), want, is_approximate(vc->name)))
          wrong = k;
        n_elements++;
      }
    }
    if (s != CUARR_OK || out.dtype != od || wrong >= 0) {
      if (bad++ < 10)
        printf("# %s on %s: %s, dtype %s, element %d is %.17g (NumPy: %s)\n", vc->name, vc->dtype,
               s == CUARR_OK ? "ok" : cuarr_last_error(), cuarr_dtype_name(out.dtype), wrong,
               wrong >= 0 ? elem(&out, wrong) : 0.0, vc->expected);
    }
    cuarr_array_release(&out);
    for (int i = 0; i < nin; i++)
      cuarr_array_release(&in[i]);
  }
  printf("# %zu ufunc loops, %d elements compared with NumPy's results\n",
         sizeof value_cases / sizeof value_cases[0], n_elements);
  CHECK(bad == 0, "every ufunc on every dtype gives NumPy's values on the host");
}

/* ---------------------------------------------------------------- edge cases by hand */

/* out = name(a, b) for two value lists of dtype d; true when it equals `want` (dtype wd). */
static bool gives(const char *name, cuarr_dtype d, const char *a, const char *b, cuarr_dtype wd,
                  const char *want) {
  cuarr_array x = host_from(d, a), y = b ? host_from(d, b) : (cuarr_array){0}, out = {0};
  cuarr_status s = call(name, &out, arr(&x), b ? arr(&y) : arr(&x), arr(&x));
  bool ok = s == CUARR_OK && out.dtype == wd && cuarr_array_size(&out) == count_tokens(want);
  const char *p = want;
  for (int64_t k = 0; ok && k < cuarr_array_size(&out); k++) {
    uint64_t bits = 0;
    cuarr_scalar_store(parse(&p, wd), wd, &bits);
    ok = same_value(elem_scalar(&out, k), cuarr_scalar_load(&bits, wd), false);
  }
  if (!ok)
    printf("# %s(%s; %s) = %s\n", name, a, b ? b : "", s == CUARR_OK ? "" : cuarr_last_error());
  cuarr_array_release(&out);
  cuarr_array_release(&x);
  if (b)
    cuarr_array_release(&y);
  return ok;
}

/* power(a, b) on host arrays of dtype d must fail with NumPy's ValueError. */
static bool negative_power_fails(cuarr_dtype d, const char *a, const char *b) {
  cuarr_array x = host_from(d, a), y = host_from(d, b), out = {0};
  cuarr_status s = call("power", &out, arr(&x), arr(&y), arr(&x));
  bool ok = s == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "Integers to negative integer powers") != NULL;
  cuarr_array_release(&out);
  cuarr_array_release(&x);
  cuarr_array_release(&y);
  return ok;
}

/* Same with the second operand a weak integer. */
static bool gives_weak(const char *name, cuarr_dtype d, const char *a, int64_t w, bool left,
                       const char *want) {
  cuarr_array x = host_from(d, a), out = {0};
  cuarr_status s = left ? call(name, &out, weak_int(w), arr(&x), arr(&x))
                        : call(name, &out, arr(&x), weak_int(w), arr(&x));
  bool ok = s == CUARR_OK && cuarr_array_size(&out) == count_tokens(want);
  const char *p = want;
  for (int64_t k = 0; ok && k < cuarr_array_size(&out); k++)
    ok = elem(&out, k) == (double)parse(&p, CUARR_INT64).v.i;
  cuarr_array_release(&out);
  cuarr_array_release(&x);
  return ok;
}

static void test_integer_edges(void) {
  CHECK(gives("floor_divide", CUARR_INT32, "5 -5 0 7", "0 0 0 -2", CUARR_INT32, "0 0 0 -4"),
        "integer floor_divide by 0 is 0");
  CHECK(gives("remainder", CUARR_INT32, "5 -5 0 7", "0 0 0 -2", CUARR_INT32, "0 0 0 -1"),
        "integer remainder by 0 is 0");
  CHECK(gives("floor_divide", CUARR_UINT16, "5 0 65535", "0 0 2", CUARR_UINT16, "0 0 32767") &&
            gives("remainder", CUARR_UINT64, "5 7", "0 4", CUARR_UINT64, "0 3"),
        "unsigned division by 0 is 0");
  CHECK(gives("reciprocal", CUARR_INT16, "0 1 -1 2 -2", NULL, CUARR_INT16, "0 1 -1 0 0"),
        "integer reciprocal: 1/0 is 0, truncating");
  CHECK(gives("floor_divide", CUARR_INT32, "-2147483648 -2147483648", "-1 1", CUARR_INT32,
              "-2147483648 -2147483648") &&
            gives("floor_divide", CUARR_INT64, "-9223372036854775808", "-1", CUARR_INT64,
                  "-9223372036854775808") &&
            gives("remainder", CUARR_INT64, "-9223372036854775808 -7", "-1 -1", CUARR_INT64, "0 0"),
        "INT_MIN // -1 wraps to INT_MIN, INT_MIN % -1 is 0");
  CHECK(gives("power", CUARR_INT32, "2 1 -1 -1 0 -3 2", "0 5 3 2 1 2 31", CUARR_INT32,
              "1 1 -1 1 0 9 -2147483648"),
        "integer power: overflow wraps");
  CHECK(negative_power_fails(CUARR_INT32, "2 1 -1", "1 -1 2") &&
            negative_power_fails(CUARR_INT8, "2 3", "-1 -1") &&
            negative_power_fails(CUARR_INT64, "-9223372036854775808", "-9223372036854775808"),
        "integer power of a host array with a negative exponent: NumPy's ValueError");
  CHECK(gives("power", CUARR_UINT8, "2 3 0", "8 5 0", CUARR_UINT8, "0 243 1"),
        "uint8 power wraps; 0**0 is 1");
  CHECK(gives("remainder", CUARR_INT8, "-7 7 -7 7", "2 2 -2 -2", CUARR_INT8, "1 1 -1 -1") &&
            gives("floor_divide", CUARR_INT8, "-7 7 -7 7", "2 2 -2 -2", CUARR_INT8, "-4 3 3 -4"),
        "integer remainder takes the divisor's sign, floor_divide floors");
  CHECK(gives("remainder", CUARR_FLOAT64, "-7 7 -7 7 -0 1 -1", "2 2 -2 -2 3 inf inf", CUARR_FLOAT64,
              "1 1 -1 -1 0 1 inf") &&
            gives("floor_divide", CUARR_FLOAT64, "-7 7 -7 7 1 -1 -1", "2 2 -2 -2 0 0 inf",
                  CUARR_FLOAT64, "-4 3 3 -4 inf -inf -1"),
        "float remainder and floor_divide are Python's (NumPy's npy_divmod)");
  CHECK(gives("left_shift", CUARR_INT32, "1 1 1 -1 3", "31 32 40 -1 1", CUARR_INT32,
              "-2147483648 0 0 0 6") &&
            gives("right_shift", CUARR_INT32, "-8 8 -8 8 -1", "40 40 1 1 -1", CUARR_INT32,
                  "-1 0 -4 4 -1") &&
            gives("left_shift", CUARR_UINT64, "1 1", "63 64", CUARR_UINT64,
                  "9223372036854775808 0") &&
            gives("right_shift", CUARR_UINT8, "200 200", "7 8", CUARR_UINT8, "1 0"),
        "shifts by the width or more give 0 (-1 for negative values shifted right)");
  CHECK(gives("absolute", CUARR_INT8, "-128 -5 5", NULL, CUARR_INT8, "-128 5 5") &&
            gives("negative", CUARR_INT32, "-2147483648", NULL, CUARR_INT32, "-2147483648") &&
            gives("negative", CUARR_UINT8, "1 0", NULL, CUARR_UINT8, "255 0") &&
            gives("absolute", CUARR_UINT16, "65535", NULL, CUARR_UINT16, "65535"),
        "absolute and negative wrap; absolute of unsigned is the identity");
  CHECK(gives("add", CUARR_INT8, "127 -128", "1 -1", CUARR_INT8, "-128 127") &&
            gives("subtract", CUARR_UINT8, "0", "1", CUARR_UINT8, "255") &&
            gives("multiply", CUARR_INT32, "65536", "65536", CUARR_INT32, "0") &&
            gives("multiply", CUARR_UINT16, "65535", "65535", CUARR_UINT16, "1") &&
            gives("square", CUARR_UINT8, "200", NULL, CUARR_UINT8, "64"),
        "integer overflow wraps");
  CHECK(gives("sign", CUARR_INT16, "-5 0 7", NULL, CUARR_INT16, "-1 0 1") &&
            gives("sign", CUARR_UINT32, "0 9", NULL, CUARR_UINT32, "0 1"),
        "sign of integers");
  CHECK(gives("isnan", CUARR_INT32, "1", NULL, CUARR_BOOL, "0") &&
            gives("isfinite", CUARR_UINT8, "255", NULL, CUARR_BOOL, "1") &&
            gives("floor", CUARR_INT16, "-3", NULL, CUARR_INT16, "-3") &&
            gives("floor", CUARR_BOOL, "1", NULL, CUARR_BOOL, "1"),
        "isnan/isfinite/floor of integers");
  CHECK(gives("add", CUARR_BOOL, "0 1 1", "0 0 1", CUARR_BOOL, "0 1 1") &&
            gives("multiply", CUARR_BOOL, "0 1 1", "0 0 1", CUARR_BOOL, "0 0 1") &&
            gives("invert", CUARR_BOOL, "0 1", NULL, CUARR_BOOL, "1 0") &&
            gives("floor_divide", CUARR_BOOL, "1 1", "1 0", CUARR_INT8, "1 0"),
        "bool: + is or, * is and, ~ is not, // runs in int8");
}

static void test_float_edges(void) {
  CHECK(gives("maximum", CUARR_FLOAT64, "nan 1 nan", "1 nan nan", CUARR_FLOAT64, "nan nan nan") &&
            gives("minimum", CUARR_FLOAT32, "nan 1", "1 nan", CUARR_FLOAT32, "nan nan"),
        "maximum and minimum propagate NaN");
  CHECK(gives("fmax", CUARR_FLOAT64, "nan 1 nan", "1 nan nan", CUARR_FLOAT64, "1 1 nan") &&
            gives("fmin", CUARR_FLOAT16, "nan 1 nan", "1 nan nan", CUARR_FLOAT16, "1 1 nan"),
        "fmax and fmin ignore NaN");
  CHECK(gives("sign", CUARR_FLOAT64, "nan -0 -2 3", NULL, CUARR_FLOAT64, "nan 0 -1 1"),
        "sign of floats: NaN stays NaN, -0 gives 0");
  CHECK(gives("rint", CUARR_FLOAT64, "0.5 1.5 2.5 -0.5", NULL, CUARR_FLOAT64, "0 2 2 -0"),
        "rint rounds half to even");
  CHECK(gives("isinf", CUARR_FLOAT16, "inf -inf nan 65504", NULL, CUARR_BOOL, "1 1 0 0") &&
            gives("isfinite", CUARR_FLOAT32, "inf nan 3.4028235e38", NULL, CUARR_BOOL, "0 0 1"),
        "isinf and isfinite at the ends of the range");
  CHECK(gives("logical_and", CUARR_FLOAT64, "nan 0 2", "1 1 0", CUARR_BOOL, "1 0 0") &&
            gives("logical_not", CUARR_FLOAT32, "nan 0", NULL, CUARR_BOOL, "0 1"),
        "the logical ufuncs take NaN as true");
  uint16_t h1 = cuarr_float_to_half(0.1f), h2 = cuarr_float_to_half(0.2f);
  cuarr_array a = host_from(CUARR_FLOAT16, "0.1"), b = host_from(CUARR_FLOAT16, "0.2"), c = {0};
  call("add", &c, arr(&a), arr(&b), arr(&a));
  uint16_t got = 0;
  if (c.buf)
    memcpy(&got, cuarr_array_data(&c), 2);
  CHECK(got == 13516 &&
            got == cuarr_float_to_half(cuarr_half_to_float(h1) + cuarr_half_to_float(h2)),
        "float16 + float16 is computed in float and rounded once (NumPy: 0.2998)");
  cuarr_array_release(&a);
  cuarr_array_release(&b);
  cuarr_array_release(&c);
}

static void test_comparison_ranges(void) {
  const char *u8 = "0 255";
  CHECK(gives_weak("less", CUARR_UINT8, u8, 300, false, "1 1"), "uint8 < 300 is true");
  CHECK(gives_weak("less_equal", CUARR_UINT8, u8, -1, false, "0 0"), "uint8 <= -1 is false");
  CHECK(gives_weak("greater", CUARR_UINT8, u8, -1, false, "1 1"), "uint8 > -1 is true");
  CHECK(gives_weak("greater_equal", CUARR_UINT8, u8, 300, false, "0 0"), "uint8 >= 300 is false");
  CHECK(gives_weak("equal", CUARR_UINT8, u8, 256, false, "0 0") &&
            gives_weak("equal", CUARR_UINT8, u8, -1, false, "0 0"),
        "uint8 == 256 and == -1 are false");
  CHECK(gives_weak("not_equal", CUARR_UINT8, u8, -1, false, "1 1") &&
            gives_weak("not_equal", CUARR_UINT8, u8, 300, false, "1 1"),
        "uint8 != -1 and != 300 are true");
  CHECK(gives_weak("greater", CUARR_UINT8, u8, 300, true, "1 1") &&
            gives_weak("less", CUARR_UINT8, u8, -1, true, "1 1") &&
            gives_weak("greater_equal", CUARR_UINT8, u8, -1, true, "0 0"),
        "the integer on the left: 300 > uint8, -1 < uint8 true; -1 >= uint8 false");
  CHECK(gives_weak("less", CUARR_INT8, "-128 127", 128, false, "1 1") &&
            gives_weak("greater", CUARR_INT8, "-128 127", -129, false, "1 1") &&
            gives_weak("less", CUARR_INT8, "-128 127", 127, false, "1 0"),
        "int8 against 128, -129 and 127");
  CHECK(gives_weak("greater", CUARR_UINT64, "0 18446744073709551615", -1, false, "1 1") &&
            gives_weak("equal", CUARR_UINT64, "0 18446744073709551615", -1, false, "0 0"),
        "uint64 against -1");
  cuarr_array a = host_from(CUARR_INT64, "-1 5 9223372036854775807 -9223372036854775808"),
              b = host_from(CUARR_UINT64, "9223372036854775808 5 9223372036854775807 0"), c = {0},
              d = {0};
  bool ok = call("less", &c, arr(&a), arr(&b), arr(&a)) == CUARR_OK &&
            call("equal", &d, arr(&b), arr(&a), arr(&a)) == CUARR_OK;
  ok = ok && elem(&c, 0) == 1 && elem(&c, 1) == 0 && elem(&c, 2) == 0 && elem(&c, 3) == 1 &&
       elem(&d, 0) == 0 && elem(&d, 1) == 1 && elem(&d, 2) == 1 && elem(&d, 3) == 0;
  CHECK(ok, "int64 and uint64 arrays compare by value");
  cuarr_array_release(&a);
  cuarr_array_release(&b);
  cuarr_array_release(&c);
  cuarr_array_release(&d);
}

static void test_clip_where(void) {
  cuarr_array a = host_from(CUARR_UINT8, "1 200"), out = {0};
  CHECK(call("clip", &out, arr(&a), weak_int(0), weak_int(300)) == CUARR_OK &&
            out.dtype == CUARR_UINT8 && elem(&out, 0) == 1 && elem(&out, 1) == 200,
        "clip(uint8, 0, 300): a bound past the range is no bound");
  cuarr_array_release(&out);
  CHECK(call("clip", &out, arr(&a), weak_int(-5), weak_int(100)) == CUARR_OK &&
            elem(&out, 0) == 1 && elem(&out, 1) == 100,
        "clip(uint8, -5, 100)");
  cuarr_array_release(&out);
  CHECK(call("clip", &out, arr(&a), weak_int(300), weak_int(400)) == CUARR_VALUE_ERROR &&
            out.buf == NULL,
        "clip(uint8, 300, 400) is a ValueError (its result is not representable)");
  cuarr_array f = host_from(CUARR_FLOAT64, "nan 0.5 5");
  CHECK(call("clip", &out, arr(&f), weak_int(0), weak_int(1)) == CUARR_OK && isnan(elem(&out, 0)) &&
            elem(&out, 1) == 0.5 && elem(&out, 2) == 1,
        "clip of floats: NaN stays");
  cuarr_array_release(&out);
  CHECK(call("clip", &out, arr(&f), weak_float(NAN), weak_int(1)) == CUARR_OK &&
            isnan(elem(&out, 1)),
        "clip with a NaN bound gives NaN");
  cuarr_array_release(&out);
  CHECK(call("clip", &out, arr(&f), weak_int(3), weak_int(1)) == CUARR_OK && elem(&out, 2) == 1,
        "clip with lo > hi gives hi");
  cuarr_array_release(&out);
  cuarr_array cond = host_from(CUARR_INT32, "0 2 -1"), x = host_from(CUARR_FLOAT32, "1 2 3");
  CHECK(call("where", &out, arr(&cond), arr(&x), weak_float(2.5)) == CUARR_OK &&
            out.dtype == CUARR_FLOAT32 && elem(&out, 0) == 2.5 && elem(&out, 1) == 2 &&
            elem(&out, 2) == 3,
        "where(int32 cond, float32, 2.5) -> float32");
  cuarr_array_release(&out);
  cuarr_array i8 = host_from(CUARR_INT8, "1");
  CHECK(call("where", &out, arr(&cond), arr(&i8), weak_int(300)) == CUARR_VALUE_ERROR,
        "where(cond, int8, 300) is a ValueError (NumPy wraps it silently)");
  cuarr_array_release(&i8);
  cuarr_array_release(&cond);
  cuarr_array_release(&x);
  cuarr_array_release(&f);
  cuarr_array_release(&a);
}

/* ---------------------------------------------------------------- layouts and broadcasting */

static void test_broadcasting(void) {
  int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1}, s13[2] = {1, 3}, s4[1] = {4};
  cuarr_array a = host_iota(CUARR_INT32, 2, s23), b = host_iota(CUARR_INT32, 1, s3), out = {0};
  bool ok = call("add", &out, arr(&a), arr(&b), arr(&a)) == CUARR_OK && out.ndim == 2 &&
            out.shape[0] == 2 && out.shape[1] == 3;
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&out, k) == k + k % 3;
  CHECK(ok, "(2,3) + (3,) broadcasts");
  cuarr_array_release(&out);

  cuarr_array c = host_iota(CUARR_INT16, 2, s21), d = host_iota(CUARR_FLOAT32, 2, s13);
  ok = call("multiply", &out, arr(&c), arr(&d), arr(&c)) == CUARR_OK &&
       out.dtype == CUARR_FLOAT32 && out.shape[0] == 2 && out.shape[1] == 3;
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&out, k) == (k / 3) * (k % 3);
  CHECK(ok, "(2,1) * (1,3) broadcasts to (2,3), int16 * float32 -> float32");
  cuarr_array_release(&out);

  cuarr_array e = host_iota(CUARR_INT32, 1, s4);
  CHECK(call("add", &out, arr(&a), arr(&e), arr(&a)) == CUARR_VALUE_ERROR && out.buf == NULL &&
            strcmp(cuarr_last_error(),
                   "operands could not be broadcast together with shapes (2,3) (4,)") == 0,
        "(2,3) + (4,) is a ValueError with NumPy's message");

  /* a transposed view, and one read backwards */
  cuarr_array t = {0}, r = {0};
  cuarr_view_transpose(&a, NULL, &t); /* (3,2): t[i][j] = j*3 + i */
  ok = call("subtract", &out, arr(&t), weak_int(1), arr(&t)) == CUARR_OK && out.shape[0] == 3;
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&out, k) == (k % 2) * 3 + k / 2 - 1;
  CHECK(ok, "a transposed input");
  cuarr_array_release(&out);
  cuarr_view_slice(&b, 0, 2, 3, -1, &r); /* 2 1 0 */
  ok = call("subtract", &out, arr(&b), arr(&r), arr(&b)) == CUARR_OK && elem(&out, 0) == -2 &&
       elem(&out, 1) == 0 && elem(&out, 2) == 2;
  CHECK(ok, "an input with a negative stride");
  cuarr_array_release(&out);
  cuarr_array_release(&t);
  cuarr_array_release(&r);

  /* 0-d and empty */
  cuarr_array z = host_iota(CUARR_FLOAT64, 0, NULL);
  ok = call("add", &out, arr(&z), weak_float(1.5), arr(&z)) == CUARR_OK && out.ndim == 0 &&
       elem(&out, 0) == 1.5;
  CHECK(ok, "a 0-d array");
  cuarr_array_release(&out);
  ok = call("add", &out, weak_int(2), weak_int(3), arr(&z)) == CUARR_OK && out.ndim == 0 &&
       out.dtype == CUARR_INT64 && elem(&out, 0) == 5;
  CHECK(ok, "scalars only give a 0-d int64 array");
  cuarr_array_release(&out);
  int64_t s03[2] = {0, 3};
  cuarr_array empty = host_iota(CUARR_INT32, 2, s03);
  ok = call("add", &out, arr(&empty), arr(&b), arr(&b)) == CUARR_OK && out.buf != NULL &&
       out.shape[0] == 0 && out.shape[1] == 3;
  CHECK(ok, "an empty result is allocated with its shape");
  cuarr_array_release(&out);
  cuarr_array_release(&empty);
  cuarr_array_release(&z);
  cuarr_array_release(&a);
  cuarr_array_release(&b);
  cuarr_array_release(&c);
  cuarr_array_release(&d);
  cuarr_array_release(&e);
}

/* Longer than the host loops' conversion blocks, with conversions in and out, strided. */
static void test_conversions(void) {
  int64_t n = 1000, n2 = 2000;
  cuarr_array a = host_iota(CUARR_INT8, 1, &n), b = host_iota(CUARR_FLOAT32, 1, &n), out = {0};
  bool ok = call("add", &out, arr(&a), arr(&b), arr(&a)) == CUARR_OK && out.dtype == CUARR_FLOAT32;
  for (int k = 0; ok && k < n; k++)
    ok = elem(&out, k) == (double)(int8_t)k + k;
  CHECK(ok, "int8 + float32 over 1000 elements");
  cuarr_array_release(&out);

  cuarr_array w = host_iota(CUARR_INT16, 1, &n2), v = {0};
  cuarr_view_slice(&w, 0, 1, n, 2, &v); /* 1 3 5 ... */
  cuarr_array o64 = {0};
  cuarr_array_empty(CUARR_HOST, CUARR_FLOAT64, 1, &n, false, NULL, ctx.reclaim, &o64);
  ok = call("sqrt", &o64, arr(&v), arr(&v), arr(&v)) == CUARR_OK; /* float32 loop, into float64 */
  for (int k = 0; ok && k < n; k++)
    ok = elem(&o64, k) == (double)sqrtf((float)(2 * k + 1));
  CHECK(ok, "sqrt of a strided int16 view computes in float32 and stores float64");
  cuarr_array_release(&o64);
  cuarr_array_release(&v);
  cuarr_array_release(&w);
  cuarr_array_release(&a);
  cuarr_array_release(&b);
}

/* ---------------------------------------------------------------- outputs */

static void test_outputs(void) {
  int64_t s6 = 6, s23[2] = {2, 3}, s3 = 3;
  cuarr_array x = host_iota(CUARR_INT32, 1, &s6);
  cuarr_array out = x; /* in place: the same layout */
  bool ok = call("add", &out, arr(&x), weak_int(1), arr(&x)) == CUARR_OK && out.buf == x.buf;
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&x, k) == k + 1;
  CHECK(ok, "x = x + 1 in place");

  cuarr_array rev = {0};
  cuarr_view_slice(&x, 0, 5, 6, -1, &rev);
  ok = call("add", &rev, arr(&x), weak_int(10), arr(&x)) == CUARR_OK; /* reads 1..6 first */
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&x, k) == 16 - k;
  CHECK(ok, "an output overlapping an input in another layout reads the input first");
  cuarr_array_release(&rev);

  cuarr_array big = {0}, small = host_iota(CUARR_FLOAT32, 1, &s3);
  cuarr_array_empty(CUARR_HOST, CUARR_FLOAT64, 2, s23, false, NULL, ctx.reclaim, &big);
  ok = call("add", &big, arr(&small), weak_int(1), arr(&small)) == CUARR_OK;
  for (int k = 0; ok && k < 6; k++)
    ok = elem(&big, k) == k % 3 + 1;
  CHECK(ok, "inputs broadcast to a larger given output (float32 result into float64)");

  cuarr_array a23 = host_iota(CUARR_FLOAT32, 2, s23), wrong = {0};
  cuarr_array_empty(CUARR_HOST, CUARR_FLOAT32, 1, &s3, false, NULL, ctx.reclaim, &wrong);
  cuarr_array keep = wrong;
  CHECK(call("add", &wrong, arr(&a23), weak_int(1), arr(&a23)) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "non-broadcastable output operand with shape (3,)") &&
            wrong.buf == keep.buf,
        "an output of the wrong shape is a ValueError");

  cuarr_array i64 = {0};
  cuarr_array_empty(CUARR_HOST, CUARR_INT64, 2, s23, false, NULL, ctx.reclaim, &i64);
  CHECK(call("add", &i64, arr(&a23), weak_float(0.5), arr(&a23)) == CUARR_TYPE_ERROR &&
            strcmp(cuarr_last_error(), "Cannot cast ufunc 'add' output from float32 to int64 "
                                       "with casting rule 'same_kind'") == 0,
        "a float result into an int64 output is a TypeError");
  cuarr_array i8 = {0}, h = host_from(CUARR_INT64, "100 1");
  cuarr_array_empty(CUARR_HOST, CUARR_INT8, 1, (int64_t[]){2}, false, NULL, ctx.reclaim, &i8);
  CHECK(call("add", &i8, arr(&h), arr(&h), arr(&h)) == CUARR_OK && elem(&i8, 0) == -56 &&
            elem(&i8, 1) == 2,
        "an int64 result into an int8 output (same kind) wraps");
  cuarr_array f32 = {0}, h8 = host_from(CUARR_INT8, "100");
  cuarr_array_empty(CUARR_HOST, CUARR_FLOAT32, 1, (int64_t[]){1}, false, NULL, ctx.reclaim, &f32);
  CHECK(call("add", &f32, arr(&h8), arr(&h8), arr(&h8)) == CUARR_OK && elem(&f32, 0) == -56,
        "int8 + int8 into float32 computes in int8 (as NumPy)");

  cuarr_array_release(&f32);
  cuarr_array_release(&h8);
  cuarr_array_release(&i8);
  cuarr_array_release(&h);
  cuarr_array_release(&i64);
  cuarr_array_release(&wrong);
  cuarr_array_release(&a23);
  cuarr_array_release(&big);
  cuarr_array_release(&small);
  cuarr_array_release(&x);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void) {
  int64_t n = 4;
  cuarr_array a = host_iota(CUARR_FLOAT32, 1, &n), out = {0};
  /* memory that says it is on device 0 (never touched: the check comes first) */
  static float fake[4];
  cuarr_buffer *buf = NULL;
  cuarr_buffer_wrap(fake, sizeof fake, 0, false, NULL, NULL, &buf);
  cuarr_array dev = a;
  dev.buf = buf;
  dev.offset = 0;
  CHECK(call("add", &out, arr(&a), arr(&dev), arr(&a)) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "device 0") && strstr(cuarr_last_error(), "the host") &&
            out.buf == NULL,
        "a device array in a host call is a ValueError naming both places");
  cuarr_buffer_release(buf);

  cuarr_array b = host_iota(CUARR_FLOAT32, 1, &n);
  cuarr_buffer_free(b.buf);
  CHECK(call("exp", &out, arr(&b), arr(&b), arr(&b)) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "freed") && out.buf == NULL,
        "a freed input is a ValueError");
  CHECK(call("add", &b, arr(&a), arr(&a), arr(&a)) == CUARR_VALUE_ERROR,
        "a freed output is a ValueError");
  cuarr_array_release(&b);
  CHECK(call("invert", &out, arr(&a), arr(&a), arr(&a)) == CUARR_TYPE_ERROR && out.buf == NULL,
        "invert of float32 is a TypeError");
  cuarr_operand in[3] = {arr(&a), arr(&a), arr(&a)};
  CHECK(cuarr_ufunc_call(&ctx, NULL, CUARR_HOST, in, CUARR_FLOAT64, &out) == CUARR_VALUE_ERROR,
        "no ufunc is a ValueError");
  CHECK(cuarr_ufunc_call(&ctx, uf("add"), CUARR_HOST, in, CUARR_INT32, &out) == CUARR_VALUE_ERROR,
        "a non-float default float dtype is a ValueError");
  cuarr_array_release(&a);
}

int main(void) {
  test_registry();
  test_promote_table();
  test_promote_weak();
  test_result_type();
  test_resolution_tables();
  test_weak_scalars();
  test_values();
  test_integer_edges();
  test_float_edges();
  test_comparison_ranges();
  test_clip_where();
  test_broadcasting();
  test_conversions();
  test_outputs();
  test_errors();
  return ctest_done();
}
