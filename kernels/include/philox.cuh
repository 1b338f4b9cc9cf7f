/*
 * philox.cuh -- cuarr.random's generator and distributions, written once in the common subset of
 * C11 and CUDA C++ so that one seed gives the same numbers, bit for bit, on the host and the
 * device.
 *
 * The file is compiled twice:
 *  - into the host library through src/core/random/random.h (which includes <stdint.h> first),
 *    with CUARR_RNG_FN = static inline;
 *  - pasted before kernels/templates/random.cu into the device program (tools/embed.sh embeds it
 *    as cuarr_kernel_source_philox_cuh), compiled with -fmad=false so that NVRTC contracts no
 *    a * b + c into an fma the host would not do (C11 in ISO mode does not contract either).
 *
 * The stream: Philox4x32-10 (Salmon et al., Random123) keyed by the seed's two 32-bit halves.
 * A draw of n values from a state whose counter is c uses the blocks c, c + 1, ...: value i comes
 * from block c + i / per_block, word i % per_block, where per_block is CUARR_RNG_PER_BLOCK_*
 * (4 for 32-bit draws, 2 for 64-bit ones), and the draw advances the counter by
 * ceil(n / per_block).  A block's counter words are (low and high halves of c + b, round, 0):
 * round is 0 except for an integer draw's retries, so each value depends only on (seed, counter,
 * index), never on how the work is split between threads.
 *
 * Transcendental steps (log, sin, cos) are fdlibm's algorithms in + - * / and sqrt, which IEEE
 * rounds the same on both sides; libm's and CUDA's own functions differ in the last bits.
 * float32 draws use the float versions on 24-bit uniforms, float64 draws the double ones on
 * 53-bit uniforms; the affine step (loc + scale * z, scale * e) is done in double.
 */
#ifndef CUARR_PHILOX_CUH
#define CUARR_PHILOX_CUH

#if defined(__CUDACC__)
#define CUARR_RNG_FN static __device__ __forceinline__
typedef unsigned int cuarr_rng_u32;
typedef unsigned long long cuarr_rng_u64;
CUARR_RNG_FN cuarr_rng_u64 cuarr_rng_double_bits(double x) {
  return (cuarr_rng_u64)__double_as_longlong(x);
}
CUARR_RNG_FN double cuarr_rng_bits_double(cuarr_rng_u64 u) {
  return __longlong_as_double((long long)u);
}
CUARR_RNG_FN double cuarr_rng_sqrt(double x) { return __dsqrt_rn(x); }
CUARR_RNG_FN cuarr_rng_u32 cuarr_rng_float_bits(float x) { return __float_as_uint(x); }
CUARR_RNG_FN float cuarr_rng_bits_float(cuarr_rng_u32 u) { return __uint_as_float(u); }
CUARR_RNG_FN float cuarr_rng_sqrtf(float x) { return __fsqrt_rn(x); }
CUARR_RNG_FN float cuarr_rng_divf(float a, float b) { return __fdiv_rn(a, b); }
#else
#ifndef CUARR_RANDOM_H
#error "include src/core/random/random.h, not philox.cuh, from C"
#endif
#define CUARR_RNG_FN static inline
typedef uint32_t cuarr_rng_u32;
typedef uint64_t cuarr_rng_u64;
CUARR_RNG_FN cuarr_rng_u64 cuarr_rng_double_bits(double x) {
  cuarr_rng_u64 u;
  memcpy(&u, &x, sizeof u);
  return u;
}
CUARR_RNG_FN double cuarr_rng_bits_double(cuarr_rng_u64 u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}
CUARR_RNG_FN double cuarr_rng_sqrt(double x) { return sqrt(x); }
CUARR_RNG_FN cuarr_rng_u32 cuarr_rng_float_bits(float x) {
  cuarr_rng_u32 u;
  memcpy(&u, &x, sizeof u);
  return u;
}
CUARR_RNG_FN float cuarr_rng_bits_float(cuarr_rng_u32 u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}
CUARR_RNG_FN float cuarr_rng_sqrtf(float x) { return sqrtf(x); }
CUARR_RNG_FN float cuarr_rng_divf(float a, float b) { return a / b; }
#endif

/* Values per Philox block: one per 32-bit word, or one per two words. */
#define CUARR_RNG_PER_BLOCK_32 4
#define CUARR_RNG_PER_BLOCK_64 2
/* An integer draw's retries (each rejection has probability below 1/2). */
#define CUARR_RNG_MAX_ROUNDS 64

/* ---------------------------------------------------------------- Philox4x32-10 */

CUARR_RNG_FN void cuarr_philox4x32_10(cuarr_rng_u32 ctr[4], cuarr_rng_u32 k0, cuarr_rng_u32 k1) {
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    cuarr_rng_u64 p0 = (cuarr_rng_u64)0xD2511F53u * ctr[0];
    cuarr_rng_u64 p1 = (cuarr_rng_u64)0xCD9E8D57u * ctr[2];
    cuarr_rng_u32 hi0 = (cuarr_rng_u32)(p0 >> 32), lo0 = (cuarr_rng_u32)p0;
    cuarr_rng_u32 hi1 = (cuarr_rng_u32)(p1 >> 32), lo1 = (cuarr_rng_u32)p1;
    cuarr_rng_u32 c1 = ctr[1], c3 = ctr[3];
    ctr[0] = hi1 ^ c1 ^ k0;
    ctr[1] = lo1;
    ctr[2] = hi0 ^ c3 ^ k1;
    ctr[3] = lo0;
  }
}

/* The four words of block b of a draw from counter ctr, at the given round. */
CUARR_RNG_FN void cuarr_rng_block(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                  cuarr_rng_u32 round, cuarr_rng_u32 w[4]) {
  cuarr_rng_u64 c = ctr + b;
  w[0] = (cuarr_rng_u32)c;
  w[1] = (cuarr_rng_u32)(c >> 32);
  w[2] = round;
  w[3] = 0;
  cuarr_philox4x32_10(w, (cuarr_rng_u32)seed, (cuarr_rng_u32)(seed >> 32));
}

/* ---------------------------------------------------------------- uniforms */

/* [0, 1) from the top 24 bits of a word (exact in float). */
CUARR_RNG_FN float cuarr_rng_unit_f32(cuarr_rng_u32 w) {
  return (float)(w >> 8) * 5.9604644775390625e-08f;
}
/* [0, 1) from 53 bits of two words (NumPy's construction). */
CUARR_RNG_FN double cuarr_rng_unit_f64(cuarr_rng_u32 a, cuarr_rng_u32 b) {
  return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16;
}
/* (0, 1]: for log. */
CUARR_RNG_FN double cuarr_rng_open_unit_64(cuarr_rng_u32 a, cuarr_rng_u32 b) {
  return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6) + 1.0) * 1.1102230246251565e-16;
}

/* ---------------------------------------------------------------- log, sin, cos */

/* Natural log of x in (0, 1] (normal numbers), fdlibm's e_log.c. */
CUARR_RNG_FN double cuarr_rng_log(double x) {
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
               Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
               Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
               Lg7 = 1.479819860511658591e-01;
  cuarr_rng_u64 bits = cuarr_rng_double_bits(x);
  int hx = (int)(bits >> 32);
  int k = (hx >> 20) - 1023;
  hx &= 0x000fffff;
  int i = (hx + 0x95f64) & 0x100000;
  /* x scaled into [sqrt(2)/2, sqrt(2)) */
  bits = ((cuarr_rng_u64)(cuarr_rng_u32)(hx | (i ^ 0x3ff00000)) << 32) | (bits & 0xffffffffu);
  x = cuarr_rng_bits_double(bits);
  k += i >> 20;
  double f = x - 1.0;
  double dk = (double)k;
  if ((0x000fffff & (2 + hx)) < 3) { /* -2^-20 <= f < 2^-20 */
    if (f == 0.0)
      return dk * ln2_hi + dk * ln2_lo;
    double R = f * f * (0.5 - 0.33333333333333333 * f);
    return dk * ln2_hi - ((R - dk * ln2_lo) - f);
  }
  double s = f / (2.0 + f);
  double z = s * s;
  i = hx - 0x6147a;
  double w = z * z;
  int j = 0x6b851 - hx;
  double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  i |= j;
  double R = t2 + t1;
  if (i > 0) {
    double hfsq = 0.5 * f * f;
    return dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
  }
  return dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f);
}

/* sin and cos of x in [-pi/4, pi/4], fdlibm's k_sin.c and k_cos.c (no tail). */
CUARR_RNG_FN double cuarr_rng_ksin(double x) {
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  double z = x * x;
  double v = z * x;
  double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  return x + v * (S1 + z * r);
}
CUARR_RNG_FN double cuarr_rng_kcos(double x) {
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  double z = x * x;
  double w = z * z;
  double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
  double hz = 0.5 * z;
  w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + z * r);
}
/* sin and cos of 2*pi*u for u in [0, 1): the quadrant comes from u exactly (u - n/4 is exact),
 * so only an angle within pi/4 is rounded. */
CUARR_RNG_FN void cuarr_rng_sincos_2pi(double u, double *s, double *c) {
  const double two_pi_hi = 6.28318530717958623200e+00, two_pi_lo = 2.44929359829470635445e-16;
  int n = (int)(u * 4.0 + 0.5);
  double r = u - (double)n * 0.25;
  double x = r * two_pi_hi + r * two_pi_lo;
  double sx = cuarr_rng_ksin(x), cx = cuarr_rng_kcos(x);
  switch (n & 3) {
  case 0:
    *s = sx;
    *c = cx;
    break;
  case 1:
    *s = cx;
    *c = -sx;
    break;
  case 2:
    *s = -sx;
    *c = -cx;
    break;
  default:
    *s = -cx;
    *c = sx;
    break;
  }
}

/* The same in float (fdlibm's e_logf.c, k_sinf.c and k_cosf.c), for float32 draws: half the
 * work of double on the device. */
CUARR_RNG_FN float cuarr_rng_logf(float x) {
  const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f;
  const float Lg1 = 6.6666668653e-01f, Lg2 = 4.0000000596e-01f, Lg3 = 2.8571429849e-01f,
              Lg4 = 2.2222198546e-01f, Lg5 = 1.8183572590e-01f, Lg6 = 1.5313838422e-01f,
              Lg7 = 1.4798198640e-01f;
  int ix = (int)cuarr_rng_float_bits(x);
  int k = (ix >> 23) - 127;
  ix &= 0x007fffff;
  int i = (ix + (0x95f64 << 3)) & 0x800000;
  /* x scaled into [sqrt(2)/2, sqrt(2)) */
  x = cuarr_rng_bits_float((cuarr_rng_u32)(ix | (i ^ 0x3f800000)));
  k += i >> 23;
  float f = x - 1.0f;
  float dk = (float)k;
  if ((0x007fffff & (15 + ix)) < 16) { /* -2^-9 <= f < 2^-9 */
    if (f == 0.0f)
      return dk * ln2_hi + dk * ln2_lo;
    float R = f * f * (0.5f - 0.33333333333333333f * f);
    return dk * ln2_hi - ((R - dk * ln2_lo) - f);
  }
  float s = cuarr_rng_divf(f, 2.0f + f);
  float z = s * s;
  i = ix - (0x6147a << 3);
  float w = z * z;
  int j = (0x6b851 << 3) - ix;
  float t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  float t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  i |= j;
  float R = t2 + t1;
  if (i > 0) {
    float hfsq = 0.5f * f * f;
    return dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
  }
  return dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f);
}
/* sin and cos of 2*pi*u for u in [0, 1), as cuarr_rng_sincos_2pi. */
CUARR_RNG_FN void cuarr_rng_sincos_2pi_f(float u, float *s, float *c) {
  const float S1 = -1.6666667163e-01f, S2 = 8.3333337680e-03f, S3 = -1.9841270114e-04f,
              S4 = 2.7557314297e-06f, S5 = -2.5050759689e-08f, S6 = 1.5896910177e-10f;
  const float C1 = 4.1666667908e-02f, C2 = -1.3888889225e-03f, C3 = 2.4801587642e-05f,
              C4 = -2.7557314297e-07f, C5 = 2.0875723372e-09f, C6 = -1.1359647598e-11f;
  const float two_pi_hi = 6.28318548e+00f, two_pi_lo = -1.74845553e-07f;
  int n = (int)(u * 4.0f + 0.5f);
  float r = u - (float)n * 0.25f;
  float x = r * two_pi_hi + r * two_pi_lo;
  float z = x * x;
  float sx = x + z * x * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
  float rc = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  float hz = 0.5f * z;
  float w = 1.0f - hz;
  float cx = w + (((1.0f - w) - hz) + z * rc);
  switch (n & 3) {
  case 0:
    *s = sx;
    *c = cx;
    break;
  case 1:
    *s = cx;
    *c = -sx;
    break;
  case 2:
    *s = -sx;
    *c = -cx;
    break;
  default:
    *s = -cx;
    *c = sx;
    break;
  }
}
/* (0, 1] from the top 24 bits of a word, exact in float. */
CUARR_RNG_FN float cuarr_rng_open_unit_f32(cuarr_rng_u32 w) {
  return (float)((w >> 8) + 1u) * 5.9604644775390625e-08f;
}

/* Box-Muller: two standard normals from u1 in (0, 1] and u2 in [0, 1). */
CUARR_RNG_FN void cuarr_rng_box_muller(double u1, double u2, double *z0, double *z1) {
  double radius = cuarr_rng_sqrt(-2.0 * cuarr_rng_log(u1));
  double s, c;
  cuarr_rng_sincos_2pi(u2, &s, &c);
  *z0 = radius * c;
  *z1 = radius * s;
}

/* ---------------------------------------------------------------- the draws, one block each */
/* Each fills the values of block b (4 for float32, 2 for float64); a and b_ are the
 * distribution's parameters: uniform (low, high - low), normal (loc, scale),
 * exponential (scale, unused). */

CUARR_RNG_FN void cuarr_rng_uniform_f32(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                        double low, double span, float out[4]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  for (int k = 0; k < 4; k++)
    out[k] = (float)(low + span * (double)cuarr_rng_unit_f32(w[k]));
}
CUARR_RNG_FN void cuarr_rng_uniform_f64(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                        double low, double span, double out[2]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  out[0] = low + span * cuarr_rng_unit_f64(w[0], w[1]);
  out[1] = low + span * cuarr_rng_unit_f64(w[2], w[3]);
}
CUARR_RNG_FN void cuarr_rng_normal_f32(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                       double loc, double scale, float out[4]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  float z[4];
  for (int p = 0; p < 4; p += 2) {
    float radius = cuarr_rng_sqrtf(-2.0f * cuarr_rng_logf(cuarr_rng_open_unit_f32(w[p])));
    float sn, cs;
    cuarr_rng_sincos_2pi_f(cuarr_rng_unit_f32(w[p + 1]), &sn, &cs);
    z[p] = radius * cs;
    z[p + 1] = radius * sn;
  }
  for (int k = 0; k < 4; k++)
    out[k] = (float)(loc + scale * (double)z[k]);
}
CUARR_RNG_FN void cuarr_rng_normal_f64(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                       double loc, double scale, double out[2]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  double z0, z1;
  cuarr_rng_box_muller(cuarr_rng_open_unit_64(w[0], w[1]), cuarr_rng_unit_f64(w[2], w[3]), &z0,
                       &z1);
  out[0] = loc + scale * z0;
  out[1] = loc + scale * z1;
}
CUARR_RNG_FN void cuarr_rng_exponential_f32(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                            double scale, double unused, float out[4]) {
  (void)unused;
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  for (int k = 0; k < 4; k++)
    out[k] = (float)((double)(0.0f - cuarr_rng_logf(cuarr_rng_open_unit_f32(w[k]))) * scale);
}
CUARR_RNG_FN void cuarr_rng_exponential_f64(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                            double scale, double unused, double out[2]) {
  (void)unused;
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  out[0] = (0.0 - cuarr_rng_log(cuarr_rng_open_unit_64(w[0], w[1]))) * scale;
  out[1] = (0.0 - cuarr_rng_log(cuarr_rng_open_unit_64(w[2], w[3]))) * scale;
}

/* ---------------------------------------------------------------- bounded integers */
/* low + a value in [0, m] without modulo bias (Lemire's method: a multiply, and a retry when
 * the low half falls below 2^w mod (m + 1)).  A rejected value is drawn again from the same
 * word of its block at the next round, so it depends on its index alone. */

CUARR_RNG_FN cuarr_rng_u64 cuarr_rng_mulhi64(cuarr_rng_u64 a, cuarr_rng_u64 b, cuarr_rng_u64 *lo) {
  cuarr_rng_u64 a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  cuarr_rng_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  cuarr_rng_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* 4 values of block b for m < 2^32. */
CUARR_RNG_FN void cuarr_rng_integers_32(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                        cuarr_rng_u64 low, cuarr_rng_u64 m, cuarr_rng_u64 out[4]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  if (m == 0xffffffffu) {
    for (int k = 0; k < 4; k++)
      out[k] = low + w[k];
    return;
  }
  cuarr_rng_u32 range = (cuarr_rng_u32)m + 1u;
  cuarr_rng_u32 threshold = (0u - range) % range;
  for (int k = 0; k < 4; k++) {
    cuarr_rng_u64 p = (cuarr_rng_u64)w[k] * range;
    for (cuarr_rng_u32 round = 1; (cuarr_rng_u32)p < threshold && round < CUARR_RNG_MAX_ROUNDS;
         round++) {
      cuarr_rng_u32 again[4];
      cuarr_rng_block(seed, ctr, b, round, again);
      p = (cuarr_rng_u64)again[k] * range;
    }
    out[k] = low + (p >> 32);
  }
}

/* 2 values of block b for m >= 2^32. */
CUARR_RNG_FN void cuarr_rng_integers_64(cuarr_rng_u64 seed, cuarr_rng_u64 ctr, cuarr_rng_u64 b,
                                        cuarr_rng_u64 low, cuarr_rng_u64 m, cuarr_rng_u64 out[2]) {
  cuarr_rng_u32 w[4];
  cuarr_rng_block(seed, ctr, b, 0, w);
  for (int k = 0; k < 2; k++) {
    cuarr_rng_u64 x = ((cuarr_rng_u64)w[2 * k + 1] << 32) | w[2 * k];
    if (m == ~(cuarr_rng_u64)0) {
      out[k] = low + x;
      continue;
    }
    cuarr_rng_u64 range = m + 1, threshold = (0 - range) % range, lo;
    cuarr_rng_u64 hi = cuarr_rng_mulhi64(x, range, &lo);
    for (cuarr_rng_u32 round = 1; lo < threshold && round < CUARR_RNG_MAX_ROUNDS; round++) {
      cuarr_rng_u32 again[4];
      cuarr_rng_block(seed, ctr, b, round, again);
      x = ((cuarr_rng_u64)again[2 * k + 1] << 32) | again[2 * k];
      hi = cuarr_rng_mulhi64(x, range, &lo);
    }
    out[k] = low + hi;
  }
}

#endif
