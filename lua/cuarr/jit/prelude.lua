-- The CUDA C helpers every translated program starts with: Lua 5.4's integer arithmetic (wrapping,
-- floor division and modulo with the divisor's sign), its float modulo and floor division,
-- math.max/min's comparisons, and math.floor/ceil's integers (saturated at int64's range, 0 for
-- NaN, where Lua would return the float).  Integer division or modulo by zero, an error in Lua,
-- gives 0.
return [[
#ifndef CUARR_JIT_PRELUDE
#define CUARR_JIT_PRELUDE
typedef unsigned long long cuarr_u64;
__device__ __forceinline__ long long cuarr_iadd(long long a, long long b) {
  return (long long)((cuarr_u64)a + (cuarr_u64)b);
}
__device__ __forceinline__ long long cuarr_isub(long long a, long long b) {
  return (long long)((cuarr_u64)a - (cuarr_u64)b);
}
__device__ __forceinline__ long long cuarr_imul(long long a, long long b) {
  return (long long)((cuarr_u64)a * (cuarr_u64)b);
}
__device__ __forceinline__ long long cuarr_ineg(long long a) {
  return (long long)(0ULL - (cuarr_u64)a);
}
__device__ __forceinline__ long long cuarr_iabs(long long a) { return a < 0 ? cuarr_ineg(a) : a; }
__device__ __forceinline__ long long cuarr_idiv(long long m, long long n) {
  if ((cuarr_u64)n + 1u <= 1u) return n == 0 ? 0 : cuarr_ineg(m);
  long long q = m / n;
  if ((m ^ n) < 0 && m % n != 0) q -= 1;
  return q;
}
__device__ __forceinline__ long long cuarr_imod(long long m, long long n) {
  if ((cuarr_u64)n + 1u <= 1u) return 0;
  long long r = m % n;
  if (r != 0 && (r ^ n) < 0) r += n;
  return r;
}
__device__ __forceinline__ long long cuarr_ifmod(long long m, long long n) {
  if ((cuarr_u64)n + 1u <= 1u) return 0;
  return m % n;
}
__device__ __forceinline__ double cuarr_fmod(double a, double b) {
  double m = fmod(a, b);
  if ((m > 0) ? b < 0 : (m < 0 && b > 0)) m += b;
  return m;
}
__device__ __forceinline__ float cuarr_fmod(float a, float b) {
  float m = fmodf(a, b);
  if ((m > 0) ? b < 0 : (m < 0 && b > 0)) m += b;
  return m;
}
__device__ __forceinline__ double cuarr_fidiv(double a, double b) { return floor(a / b); }
__device__ __forceinline__ float cuarr_fidiv(float a, float b) { return floorf(a / b); }
template <typename T> __device__ __forceinline__ T cuarr_max(T a, T b) { return a < b ? b : a; }
template <typename T> __device__ __forceinline__ T cuarr_min(T a, T b) { return b < a ? b : a; }
__device__ __forceinline__ long long cuarr_toint(double f) {
  if (f != f) return 0;
  if (f >= 9223372036854775808.0) return 9223372036854775807LL;
  if (f < -9223372036854775808.0) return -9223372036854775807LL - 1;
  return (long long)f;
}
__device__ __forceinline__ bool cuarr_forlimit(double l, long long step, long long *out) {
  if (l != l) return false;
  double f = step > 0 ? floor(l) : ceil(l);
  if (f >= 9223372036854775808.0) *out = 9223372036854775807LL;
  else if (f < -9223372036854775808.0) *out = -9223372036854775807LL - 1;
  else *out = (long long)f;
  return true;
}
#endif
]]
