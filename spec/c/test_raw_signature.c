/*
 * test_raw_signature.c -- kernels' parameter types read back from NVRTC's lowered names of the
 * signature probes (src/core/user/raw_signature.c), and the kernel names found in sources.
 *
 * Compiles real programs with NVRTC (which runs without a GPU) so that the decoder is held to
 * the compiler's own mangling, substitutions included.
 */
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuda/driver.h"
#include "user/raw_signature.h"

/* The lowered name of the probe of each kernel in kernels[0, n), compiled with the prelude;
 * false (with a note) when NVRTC fails. */
static bool lower(const char *source, const char *const *kernels, int n, char lowered[][512]) {
  size_t size = strlen(source) + strlen(cuarr_signature_prelude()) + 1;
  char *program = malloc(size);
  snprintf(program, size, "%s%s", source, cuarr_signature_prelude());
  nvrtcProgram prog = NULL;
  bool ok =
      cuarr_nvrtc.nvrtcCreateProgram(&prog, program, "probe.cu", 0, NULL, NULL) == NVRTC_SUCCESS;
  char expr[16][256];
  for (int i = 0; ok && i < n; i++) {
    ok = cuarr_signature_expression(kernels[i], expr[i], sizeof expr[i]) &&
         cuarr_nvrtc.nvrtcAddNameExpression(prog, expr[i]) == NVRTC_SUCCESS;
  }
  const char *options[] = {"--gpu-architecture=sm_90", "--std=c++17"};
  if (ok && cuarr_nvrtc.nvrtcCompileProgram(prog, 2, options) != NVRTC_SUCCESS) {
    size_t log_size = 0;
    cuarr_nvrtc.nvrtcGetProgramLogSize(prog, &log_size);
    char *log = malloc(log_size + 1);
    cuarr_nvrtc.nvrtcGetProgramLog(prog, log);
    printf("# %s\n", log);
    free(log);
    ok = false;
  }
  for (int i = 0; ok && i < n; i++) {
    const char *name = NULL;
    ok = cuarr_nvrtc.nvrtcGetLoweredName(prog, expr[i], &name) == NVRTC_SUCCESS;
    if (ok)
      snprintf(lowered[i], 512, "%s", name);
  }
  if (prog)
    cuarr_nvrtc.nvrtcDestroyProgram(&prog);
  free(program);
  return ok;
}

/* One expected parameter: kind, size, pointee dtype (-1: any), const pointee, spelling. */
typedef struct expected {
  cuarr_param_kind kind;
  int size, pointee;
  bool is_const;
  const char *spelled;
} expected;

static bool matches(const char *lowered, const expected *want, int n_want) {
  cuarr_param_type got[CUARR_SIGNATURE_MAX];
  int n = -1;
  if (cuarr_signature_decode(lowered, got, CUARR_SIGNATURE_MAX, &n) != CUARR_OK) {
    printf("# decode %s: %s\n", lowered, cuarr_last_error());
    return false;
  }
  if (n != n_want) {
    printf("# %s: %d parameters, expected %d\n", lowered, n, n_want);
    return false;
  }
  for (int i = 0; i < n; i++) {
    const cuarr_param_type *g = &got[i];
    const expected *w = &want[i];
    if (g->kind != w->kind || g->size != w->size || g->pointee != w->pointee ||
        (w->kind == CUARR_PARAM_POINTER && g->pointee_const != w->is_const) ||
        (w->spelled && strcmp(g->spelled, w->spelled) != 0)) {
      printf("# %s parameter %d: kind %d size %d pointee %d const %d '%s'\n", lowered, i + 1,
             g->kind, g->size, g->pointee, g->pointee_const, g->spelled);
      return false;
    }
  }
  return true;
}

#define P_(dtype, c, s)                                                                            \
  { CUARR_PARAM_POINTER, 8, dtype, c, s }
#define SCALAR_(kind, size, s)                                                                     \
  { kind, size, -1, false, s }
#define OTHER_(s)                                                                                  \
  { CUARR_PARAM_OTHER, 0, -1, false, s }

static const char *const source =
    "struct __half { unsigned short x; };\n"
    "struct S { int a; double b; };\n"
    "enum E { A };\n"
    "typedef unsigned long long u64;\n"
    "template <class T> struct cplx { T re, im; };\n"
    "extern \"C\" __global__ void mulReg(const double* in, double* out, int Z, int Y, int X) {}\n"
    "template<typename T> __global__ void scale(T* x, T a, int n) {}\n"
    "extern \"C\" __global__ void every(bool b, char c, signed char sc, unsigned char uc,\n"
    "  short s, unsigned short us, int i, unsigned u, long l, unsigned long ul, long long ll,\n"
    "  u64 ull, float f, double d, __half h, const __half* ph, void* v, const void* cv, S st,\n"
    "  S* ps, float* __restrict__ r, int* const* pp, double* d2, const double* cd2, size_t sz,\n"
    "  int arr[], S st2, S* ps2, volatile int* vi, int& ri, E e, float (*fa)[4]) {}\n"
    "namespace ns { struct S2 {};\n"
    "  template<int N, typename T> __global__ void k(T (*a)[N], T* b, ns::S2* c, ns::S2* d,\n"
    "                                                T* e) {} }\n"
    "__global__ void none() {}\n"
    "__global__ void complexes(cplx<float> c, cplx<float>* pc, cplx<double>* pd,\n"
    "                          const cplx<float>* qc, bool* pb, unsigned short* pu) {}\n"
    "__global__ void many(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,\n"
    "  int a8, int a9, float* b0, float* b1, float* b2, float* b3, float* b4, float* b5,\n"
    "  float* b6, float* b7, float* b8, float* b9, float* b10, float* b11, float* b12,\n"
    "  double* c0, const double* c1, double* c2, const double* c3) {}\n";

static void test_decode_kernels(void) {
  const char *const kernels[] = {"mulReg", "scale<float>", "every", "ns::k<3, short>",
                                 "none",   "complexes",    "many"};
  char lowered[7][512];
  bool compiled = lower(source, kernels, 7, lowered);
  CHECK(compiled, "NVRTC lowers the probes of seven kernels");
  if (!compiled)
    return;

  const expected mul_reg[] = {
      P_(CUARR_FLOAT64, true, "const double*"), P_(CUARR_FLOAT64, false, "double*"),
      SCALAR_(CUARR_PARAM_SIGNED, 4, "int"), SCALAR_(CUARR_PARAM_SIGNED, 4, "int"),
      SCALAR_(CUARR_PARAM_SIGNED, 4, "int")};
  CHECK(matches(lowered[0], mul_reg, 5), "an extern \"C\" kernel: pointers to const and not, ints");

  const expected scale[] = {P_(CUARR_FLOAT32, false, "float*"),
                            SCALAR_(CUARR_PARAM_FLOAT, 4, "float"),
                            SCALAR_(CUARR_PARAM_SIGNED, 4, "int")};
  CHECK(matches(lowered[1], scale, 3), "a template through its name expression: T is float");

  const expected every[] = {
      SCALAR_(CUARR_PARAM_BOOL, 1, "bool"),
      SCALAR_(CUARR_PARAM_SIGNED, 1, "char"),
      SCALAR_(CUARR_PARAM_SIGNED, 1, "signed char"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 1, "unsigned char"),
      SCALAR_(CUARR_PARAM_SIGNED, 2, "short"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 2, "unsigned short"),
      SCALAR_(CUARR_PARAM_SIGNED, 4, "int"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 4, "unsigned int"),
      SCALAR_(CUARR_PARAM_SIGNED, 8, "long"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 8, "unsigned long"),
      SCALAR_(CUARR_PARAM_SIGNED, 8, "long long"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 8, "unsigned long long"),
      SCALAR_(CUARR_PARAM_FLOAT, 4, "float"),
      SCALAR_(CUARR_PARAM_FLOAT, 8, "double"),
      SCALAR_(CUARR_PARAM_FLOAT, 2, "__half"),
      P_(CUARR_FLOAT16, true, "const __half*"),
      P_(-1, false, "void*"),
      P_(-1, true, "const void*"),
      OTHER_("S"),
      P_(-1, false, "S*"),
      P_(CUARR_FLOAT32, false, "float*"), /* __restrict__ on the parameter itself is dropped */
      P_(-1, true, "const int**"),        /* a pointer to pointers: any array */
      P_(CUARR_FLOAT64, false, "double*"),
      P_(CUARR_FLOAT64, true, "const double*"),
      SCALAR_(CUARR_PARAM_UNSIGNED, 8, "unsigned long"), /* size_t */
      P_(CUARR_INT32, false, "int*"),                    /* int arr[], through a substitution */
      OTHER_("S"),
      P_(-1, false, "S*"),
      P_(CUARR_INT32, false, "int*"), /* volatile int* */
      OTHER_("int&"),
      OTHER_("E"),
      P_(-1, false, "float[]*"),
  };
  CHECK(matches(lowered[2], every, (int)(sizeof every / sizeof every[0])),
        "every builtin, __half, classes, enums, references, arrays and substitutions");

  const expected k[] = {P_(-1, false, "short[]*"), P_(CUARR_INT16, false, "short*"),
                        P_(-1, false, "S2*"), P_(-1, false, "S2*"),
                        P_(CUARR_INT16, false, "short*")};
  CHECK(matches(lowered[3], k, 5), "a namespaced template: nested names and their substitutions");

  CHECK(matches(lowered[4], NULL, 0), "a kernel without parameters");

  const expected complexes[] = {OTHER_("cplx"),
                                P_(-1, false, "cplx*"),
                                P_(-1, false, "cplx*"),
                                P_(-1, true, "const cplx*"),
                                P_(CUARR_BOOL, false, "bool*"),
                                P_(CUARR_UINT16, false, "unsigned short*")};
  CHECK(matches(lowered[5], complexes, 6), "class templates as values and pointees");

  expected many[27];
  for (int i = 0; i < 10; i++)
    many[i] = (expected)SCALAR_(CUARR_PARAM_SIGNED, 4, "int");
  for (int i = 10; i < 23; i++)
    many[i] = (expected)P_(CUARR_FLOAT32, false, "float*");
  many[23] = (expected)P_(CUARR_FLOAT64, false, "double*");
  many[24] = (expected)P_(CUARR_FLOAT64, true, "const double*");
  many[25] = many[23];
  many[26] = many[24];
  CHECK(matches(lowered[6], many, 27), "27 parameters with repeated types (substitutions)");
}

static void test_decode_rejects(void) {
  cuarr_param_type got[4];
  int n = 0;
  CHECK(cuarr_signature_decode("_Z5scaleIfEvPT_S0_i", got, 4, &n) == CUARR_VALUE_ERROR,
        "a kernel's own lowered name is not a probe");
  CHECK(cuarr_signature_decode(NULL, got, 4, &n) == CUARR_VALUE_ERROR, "no name");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFvPKdPdii", got, 4, &n) == CUARR_VALUE_ERROR,
        "a cut name");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFviiiiiEE", got, 4, &n) == CUARR_VALUE_ERROR,
        "more parameters than room");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFvS7_EE", got, 4, &n) == CUARR_VALUE_ERROR,
        "a substitution that refers to nothing");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFvPFviEEE", got, 4, &n) == CUARR_VALUE_ERROR,
        "a function pointer is not read");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFv99xEE", got, 4, &n) == CUARR_VALUE_ERROR,
        "a name longer than the text");
  CHECK(cuarr_signature_decode("_Z16cuarr_signature_IFviiEE", got, 4, &n) == CUARR_OK && n == 2,
        "two ints fit");
}

/* The names found, joined with spaces. */
static const char *found(const char *src) {
  static char names[1024], joined[1024];
  int n = cuarr_signature_kernel_names(src, names, sizeof names, 16);
  joined[0] = '\0';
  const char *p = names;
  for (int i = 0; i < n; i++, p += strlen(p) + 1) {
    strcat(joined, i ? " " : "");
    strcat(joined, p);
  }
  return joined;
}

static void test_kernel_names(void) {
  CHECK(strcmp(found(source), "mulReg every none complexes many") == 0,
        "the non-template kernels at file scope are found; templates and namespaces are not");
  CHECK(strcmp(found("// __global__ void a(int x) {}\n"
                     "/* __global__ void b(int x) {} */\n"
                     "const char *s = \"__global__ void c(int)\";\n"
                     "extern \"C\" {\n"
                     "  __global__ void __launch_bounds__(256, 2) d(float *x) {}\n"
                     "}\n"
                     "namespace { __global__ void e() {} }\n"
                     "#if 0\n"
                     "__global__ void f(int) {}\n"
                     "#endif\n"
                     "#define K __global__ void g(int)\n"
                     "struct T { void h() {} };\n"
                     "static __global__ void i(int n) { if (n) { } }\n"),
               "d e i") == 0,
        "comments, strings, directives and #if 0 are skipped; extern \"C\" and unnamed "
        "namespace blocks are file scope");
  CHECK(strcmp(found("__global__ void o(int) {}\n__global__ void o(float) {}\n"
                     "__global__ void p() {}\n"),
               "p") == 0,
        "overloaded kernels are left out");
  CHECK(strcmp(found("__device__ int __global__x;\n__global__ int\n"), "") == 0,
        "__global__ inside an identifier, or not followed by a declaration, names nothing");
  char small[8];
  CHECK(cuarr_signature_kernel_names("__global__ void long_name_kernel() {}", small, sizeof small,
                                     4) == 0,
        "a name that does not fit is left out");
}

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("ok - # SKIP no NVRTC: %s\n", cuarr_last_error());
    return ctest_done();
  }
  test_decode_kernels();
  test_decode_rejects();
  test_kernel_names();
  return ctest_done();
}
