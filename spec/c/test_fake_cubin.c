/*
 * test_fake_cubin.c -- the stand-in driver (tools/fake_cuda) reads real module images as the
 * real driver does: kernels found by name, parameter offsets and sizes, attributes, globals with
 * their sizes and initial contents, launches refused past a kernel's limits.
 *
 * The kernels are compiled here with NVRTC for sm_90; the expected figures were read from the
 * same source compiled with `nvcc -cubin -arch=sm_90 -Xptxas -v` (registers, shared memory,
 * stack frame) and from the sources' parameter lists.  The PTX case is hand-written text.
 */
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuda/driver.h"
#include "internal.h"

static const char source[] =
    "struct S16 { double a; int b; int c; };\n"
    "__constant__ float lut[256];\n"
    "__constant__ int primes[4] = {2, 3, 5, 7};\n"
    "__device__ int counter = 7;\n"
    "__device__ double zeros[10];\n"
    "extern \"C\" __global__ void params(char c, short s, int i, double d, float* p, S16 st) {\n"
    "  if (i) p[0] = c + s + d + st.a + st.b + lut[i] + counter + zeros[i] + primes[i & 3];\n"
    "}\n"
    "extern \"C\" __global__ void __launch_bounds__(256) bounded(float* p, int n) {\n"
    "  __shared__ float buf[300]; int t = threadIdx.x; buf[t] = p[t]; __syncthreads();\n"
    "  if (t < n) p[t] = buf[255 - t];\n"
    "}\n"
    "extern \"C\" __global__ void heavy(float* p, int n) {\n"
    "  float a[64]; for (int k = 0; k < 64; k++) a[k] = p[k*n]; p[0] = a[n & 63];\n"
    "}\n"
    "extern \"C\" __global__ void many(int a0,int a1,int a2,int a3,int a4,int a5,int a6,int a7,\n"
    "  int a8,int a9,int a10,int a11,int a12,int a13,int a14,int a15,int a16,int a17,int a18,\n"
    "  int a19,int a20,int a21,int a22,int a23,int a24,int a25,int a26,int a27,int a28,int a29,\n"
    "  int a30,int a31,int a32,int a33,int a34,int a35,int a36,int a37,int a38, long long* out)\n"
    "  { *out = a0 + a38 + a20; }\n"
    "extern \"C\" __global__ void stacked(float* p, int n) {\n"
    "  float a[256]; for (int k = 0; k < 256; k++) a[k] = p[k*n]; p[0] = a[n & 255];\n"
    "}\n"
    "extern \"C\" __global__ void noparams() {}\n";

static const char ptx[] = "//\n"
                          ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".const .align 4 .b8 lut[1024];\n"
                          ".global .align 4 .u32 counter = 7;\n"
                          ".global .align 4 .u32 primes[4] = {2, 3, 5, 7};\n"
                          ".global .align 8 .f64 scale = 0d3FF8000000000000;\n"
                          ".const .align 4 .f32 half[2] = {0f3F000000, 0f3F000000};\n"
                          ".global .align 2 .s16 minus = -2;\n"
                          ".global .align 8 .b8 zeros[80];\n"
                          ".visible .entry params(\n"
                          "\t.param .u8 params_param_0,\n"
                          "\t.param .u16 params_param_1,\n"
                          "\t.param .u32 params_param_2,\n"
                          "\t.param .f64 params_param_3,\n"
                          "\t.param .u64 .ptr .align 1 params_param_4,\n"
                          "\t.param .align 8 .b8 params_param_5[16]\n"
                          ")\n{\n\tret;\n}\n";

#define DRIVER(f) static __typeof__(&f) p_##f;
DRIVER(cuInit)
DRIVER(cuDevicePrimaryCtxRetain)
DRIVER(cuCtxSetCurrent)
DRIVER(cuModuleLoadData)
DRIVER(cuModuleLoadDataEx)
DRIVER(cuModuleUnload)
DRIVER(cuModuleGetFunction)
DRIVER(cuModuleGetGlobal)
DRIVER(cuFuncGetAttribute)
DRIVER(cuFuncSetAttribute)
DRIVER(cuFuncGetParamInfo)
DRIVER(cuLaunchKernel)

static bool bind(void *lib) {
#define BIND(f, name) (p_##f = (__typeof__(p_##f))dlsym(lib, name)) != NULL
  return BIND(cuInit, "cuInit") && BIND(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         BIND(cuCtxSetCurrent, "cuCtxSetCurrent") && BIND(cuModuleLoadData, "cuModuleLoadData") &&
         BIND(cuModuleLoadDataEx, "cuModuleLoadDataEx") && BIND(cuModuleUnload, "cuModuleUnload") &&
         BIND(cuModuleGetFunction, "cuModuleGetFunction") &&
         BIND(cuModuleGetGlobal, "cuModuleGetGlobal_v2") &&
         BIND(cuFuncGetAttribute, "cuFuncGetAttribute") &&
         BIND(cuFuncSetAttribute, "cuFuncSetAttribute") &&
         BIND(cuFuncGetParamInfo, "cuFuncGetParamInfo") && BIND(cuLaunchKernel, "cuLaunchKernel");
#undef BIND
}

static int attribute(CUfunction f, CUfunction_attribute a) {
  int v = -1;
  if (p_cuFuncGetAttribute(&v, a, f) != CUDA_SUCCESS)
    return -2;
  return v;
}

/* Every parameter's offset and size match, and the one past the last is refused. */
static bool params_are(CUfunction f, const size_t *offsets, const size_t *sizes, size_t n) {
  for (size_t i = 0; i < n; i++) {
    size_t off = 999, size = 999;
    if (p_cuFuncGetParamInfo(f, i, &off, &size) != CUDA_SUCCESS || off != offsets[i] ||
        size != sizes[i]) {
      printf("# parameter %zu: offset %zu size %zu, expected %zu %zu\n", i, off, size, offsets[i],
             sizes[i]);
      return false;
    }
  }
  size_t off, size;
  return p_cuFuncGetParamInfo(f, n, &off, &size) == CUDA_ERROR_INVALID_VALUE;
}

static const size_t params_offsets[] = {0, 2, 4, 8, 16, 24}, params_sizes[] = {1, 2, 4, 8, 8, 16};

static void check_cubin(const char *image, size_t image_size) {
  CUmodule m;
  CHECK(p_cuModuleLoadData(&m, image) == CUDA_SUCCESS, "a cubin loads");
  CUfunction params, bounded, heavy, many, noparams, stacked, missing;
  CHECK(p_cuModuleGetFunction(&params, m, "params") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&bounded, m, "bounded") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&heavy, m, "heavy") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&many, m, "many") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&noparams, m, "noparams") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&stacked, m, "stacked") == CUDA_SUCCESS,
        "every kernel of the cubin is found");
  CHECK(p_cuModuleGetFunction(&missing, m, "nope") == CUDA_ERROR_NOT_FOUND &&
            p_cuModuleGetFunction(&missing, m, "lut") == CUDA_ERROR_NOT_FOUND &&
            p_cuModuleGetFunction(&missing, m, "param") == CUDA_ERROR_NOT_FOUND,
        "a name that is no kernel (unknown, a variable, a prefix) is not found");

  CHECK(params_are(params, params_offsets, params_sizes, 6),
        "char, short, int, double, pointer, 16-byte struct: offsets and sizes");
  size_t many_offsets[40], many_sizes[40];
  for (int i = 0; i < 39; i++) {
    many_offsets[i] = 4 * (size_t)i;
    many_sizes[i] = 4;
  }
  many_offsets[39] = 160;
  many_sizes[39] = 8;
  CHECK(params_are(many, many_offsets, many_sizes, 40), "40 parameters, the last one aligned");
  CHECK(params_are(noparams, NULL, NULL, 0), "a kernel without parameters has none");
  size_t off;
  off = 999;
  CHECK(p_cuFuncGetParamInfo(params, 0, NULL, NULL) == CUDA_ERROR_INVALID_VALUE &&
            p_cuFuncGetParamInfo(NULL, 0, &off, NULL) == CUDA_ERROR_INVALID_HANDLE && off == 999,
        "parameter info without an offset to write or a function is refused");
  CHECK(p_cuFuncGetParamInfo(params, 3, &off, NULL) == CUDA_SUCCESS && off == 8,
        "parameter info without a size to write (it is optional) gives the offset");

  /* ptxas -v of the same source for sm_90: 14, 10, 72, 8 and 4 registers; 40 and a 1024-byte
   * stack frame for stacked (the others 0). */
  int regs[5] = {
      attribute(params, CU_FUNC_ATTRIBUTE_NUM_REGS), attribute(bounded, CU_FUNC_ATTRIBUTE_NUM_REGS),
      attribute(heavy, CU_FUNC_ATTRIBUTE_NUM_REGS), attribute(many, CU_FUNC_ATTRIBUTE_NUM_REGS),
      attribute(noparams, CU_FUNC_ATTRIBUTE_NUM_REGS)};
  printf("# registers %d %d %d %d %d\n", regs[0], regs[1], regs[2], regs[3], regs[4]);
  CHECK(regs[0] == 14 && regs[1] == 10 && regs[2] == 72 && regs[3] == 8 && regs[4] == 4,
        "registers per kernel, as ptxas -v reports them");
  CHECK(attribute(bounded, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 1200 &&
            attribute(params, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 0,
        "static shared memory: 300 floats, and none");
  CHECK(attribute(params, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES) == 1024 + 16,
        "constant memory: the module's __constant__ variables");
  CHECK(attribute(stacked, CU_FUNC_ATTRIBUTE_NUM_REGS) == 40 &&
            attribute(stacked, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 1024 &&
            attribute(heavy, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 0 &&
            attribute(params, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 0,
        "local memory: ptxas -v's stack frames (1024 bytes, and none)");
  /* 72 registers: 2304 per warp, 28 warps in 64K registers. */
  CHECK(attribute(bounded, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 256 &&
            attribute(params, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024 &&
            attribute(heavy, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 896,
        "max threads per block: launch bounds, the default, and limited by registers");
  CHECK(attribute(params, CU_FUNC_ATTRIBUTE_BINARY_VERSION) == 90 &&
            attribute(params, CU_FUNC_ATTRIBUTE_PTX_VERSION) == 90,
        "binary and PTX versions of an sm_90 cubin");

  CHECK(attribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 48 << 10,
        "dynamic shared memory: 48 KiB until set");
  CHECK(p_cuLaunchKernel(params, 1, 1, 1, 32, 1, 1, 49 << 10, NULL, NULL, NULL) ==
                CUDA_ERROR_INVALID_VALUE &&
            p_cuLaunchKernel(params, 1, 1, 1, 32, 1, 1, 48 << 10, NULL, NULL, NULL) == CUDA_SUCCESS,
        "a launch past the dynamic shared limit is refused, one at it runs");
  CHECK(p_cuFuncSetAttribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 << 10) ==
                CUDA_SUCCESS &&
            attribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 100 << 10 &&
            p_cuLaunchKernel(params, 1, 1, 1, 32, 1, 1, 99 << 10, NULL, NULL, NULL) == CUDA_SUCCESS,
        "the dynamic shared limit, once raised, is remembered and allows launches");
  CHECK(p_cuFuncSetAttribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 << 10) ==
                CUDA_ERROR_INVALID_VALUE &&
            p_cuFuncSetAttribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, -1) ==
                CUDA_ERROR_INVALID_VALUE &&
            attribute(params, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 100 << 10,
        "a dynamic shared size over the 227 KiB opt-in limit is refused and changes nothing");
  CHECK(p_cuLaunchKernel(bounded, 1, 1, 1, 257, 1, 1, 0, NULL, NULL, NULL) ==
                CUDA_ERROR_INVALID_VALUE &&
            p_cuLaunchKernel(bounded, 1, 1, 1, 16, 16, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS &&
            p_cuLaunchKernel(heavy, 1, 1, 1, 1024, 1, 1, 0, NULL, NULL, NULL) ==
                CUDA_ERROR_INVALID_VALUE &&
            p_cuLaunchKernel(heavy, 1, 1, 1, 896, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS,
        "a block over the kernel's max threads is refused, one at it runs");

  CUdeviceptr lut, lut2, counter, zeros, primes;
  size_t lut_bytes = 0, counter_bytes = 0, zeros_bytes = 0, primes_bytes = 0, b2 = 0;
  CHECK(p_cuModuleGetGlobal(&lut, &lut_bytes, m, "lut") == CUDA_SUCCESS && lut_bytes == 1024 &&
            p_cuModuleGetGlobal(&counter, &counter_bytes, m, "counter") == CUDA_SUCCESS &&
            counter_bytes == 4 &&
            p_cuModuleGetGlobal(&zeros, &zeros_bytes, m, "zeros") == CUDA_SUCCESS &&
            zeros_bytes == 80 &&
            p_cuModuleGetGlobal(&primes, &primes_bytes, m, "primes") == CUDA_SUCCESS &&
            primes_bytes == 16,
        "globals have their declared sizes (__constant__, __device__ initialised and not)");
  int counter_value = 0, primes_value[4] = {0};
  double zeros_value[10];
  memset(zeros_value, 0xff, sizeof zeros_value);
  memcpy(&counter_value, (void *)(uintptr_t)counter, 4);
  memcpy(primes_value, (void *)(uintptr_t)primes, 16);
  memcpy(zeros_value, (void *)(uintptr_t)zeros, 80);
  CHECK(counter_value == 7 && primes_value[0] == 2 && primes_value[3] == 7 && zeros_value[0] == 0 &&
            zeros_value[9] == 0,
        "globals start with their initial contents, or zeros");
  CHECK(p_cuModuleGetGlobal(&lut2, &b2, m, "lut") == CUDA_SUCCESS && lut2 == lut && b2 == 1024,
        "a global looked up twice is the same memory");
  CHECK(p_cuModuleGetGlobal(&lut2, &b2, m, "params") == CUDA_ERROR_NOT_FOUND &&
            p_cuModuleGetGlobal(&lut2, &b2, m, "nothing") == CUDA_ERROR_NOT_FOUND,
        "a name that is no global (a kernel, unknown) is not found");
  CHECK(p_cuModuleUnload(m) == CUDA_SUCCESS, "the cubin unloads");

  /* The image is copied: a module outlives the caller's buffer. */
  char *copy = malloc(image_size);
  memcpy(copy, image, image_size);
  CUmodule m2;
  CHECK(p_cuModuleLoadDataEx(&m2, copy, 0, NULL, NULL) == CUDA_SUCCESS,
        "cuModuleLoadDataEx loads a cubin");
  memset(copy, 0, image_size);
  free(copy);
  CUfunction f;
  size_t size = 0;
  CHECK(p_cuModuleGetFunction(&f, m2, "many") == CUDA_SUCCESS &&
            p_cuFuncGetParamInfo(f, 39, &off, &size) == CUDA_SUCCESS && off == 160 && size == 8,
        "a module keeps its own copy of the image");
  p_cuModuleUnload(m2);
}

static void check_ptx(void) {
  CUmodule m;
  CHECK(p_cuModuleLoadData(&m, ptx) == CUDA_SUCCESS, "a PTX text loads");
  CUfunction f, missing;
  CHECK(p_cuModuleGetFunction(&f, m, "params") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&missing, m, "param") == CUDA_ERROR_NOT_FOUND &&
            p_cuModuleGetFunction(&missing, m, "lut") == CUDA_ERROR_NOT_FOUND,
        "PTX: the entry is found, other names are not");
  CHECK(params_are(f, params_offsets, params_sizes, 6),
        "PTX: .param list offsets and sizes (scalars, a qualified pointer, an aligned struct)");
  CUdeviceptr a, b;
  size_t n = 0, n2 = 0, n3 = 0;
  CHECK(p_cuModuleGetGlobal(&a, &n, m, "lut") == CUDA_SUCCESS && n == 1024 &&
            p_cuModuleGetGlobal(&b, &n2, m, "counter") == CUDA_SUCCESS && n2 == 4 &&
            p_cuModuleGetGlobal(&b, &n3, m, "zeros") == CUDA_SUCCESS && n3 == 80 &&
            p_cuModuleGetGlobal(&b, &n, m, "lu") == CUDA_ERROR_NOT_FOUND,
        "PTX: .const and .global variables with their sizes");
  CUdeviceptr p_counter = 0, p_primes = 0, p_scale = 0, p_half = 0, p_minus = 0;
  CHECK(p_cuModuleGetGlobal(&p_counter, &n, m, "counter") == CUDA_SUCCESS &&
            p_cuModuleGetGlobal(&p_primes, &n, m, "primes") == CUDA_SUCCESS && n == 16 &&
            p_cuModuleGetGlobal(&p_scale, &n, m, "scale") == CUDA_SUCCESS && n == 8 &&
            p_cuModuleGetGlobal(&p_half, &n, m, "half") == CUDA_SUCCESS && n == 8 &&
            p_cuModuleGetGlobal(&p_minus, &n, m, "minus") == CUDA_SUCCESS && n == 2,
        "PTX: initialised variables with their sizes");
  if (p_counter && p_primes && p_scale && p_half && p_minus) {
    uint32_t counter, primes[4];
    double scale;
    float half[2];
    int16_t minus;
    memcpy(&counter, (void *)(uintptr_t)p_counter, 4);
    memcpy(primes, (void *)(uintptr_t)p_primes, 16);
    memcpy(&scale, (void *)(uintptr_t)p_scale, 8);
    memcpy(half, (void *)(uintptr_t)p_half, 8);
    memcpy(&minus, (void *)(uintptr_t)p_minus, 2);
    CHECK(counter == 7 && primes[0] == 2 && primes[1] == 3 && primes[3] == 7 && scale == 1.5 &&
              half[0] == 0.5f && half[1] == 0.5f && minus == -2,
          "PTX: initialisers (integers, arrays, hex floats, negatives) are the starting contents");
  }
  p_cuModuleUnload(m);
}

static void check_bad_images(const char *cubin, size_t size) {
  CUmodule m;
  CHECK(p_cuModuleLoadData(&m, "garbage") == CUDA_ERROR_INVALID_IMAGE &&
            p_cuModuleLoadData(&m, "") == CUDA_ERROR_INVALID_IMAGE,
        "an image that is no cubin, PTX or fatbin is refused");
  char *elf = malloc(size);
  memcpy(elf, cubin, size);
  elf[EI_CLASS] = ELFCLASS32;
  CUresult r1 = p_cuModuleLoadData(&m, elf);
  elf[EI_CLASS] = ELFCLASS64;
  elf[18] = 62; /* e_machine: x86-64 */
  CUresult r2 = p_cuModuleLoadData(&m, elf);
  CHECK(r1 == CUDA_ERROR_INVALID_IMAGE && r2 == CUDA_ERROR_INVALID_IMAGE,
        "an ELF of another class or machine is refused");
  free(elf);

  /* A fatbin: its header, then a cubin inside. */
  size_t header = 16, fat = header + 64 + size;
  unsigned char *fatbin = calloc(1, fat);
  uint32_t magic = 0xBA55ED50;
  uint16_t version = 1, header_size = (uint16_t)header;
  uint64_t rest = fat - header;
  memcpy(fatbin, &magic, 4);
  memcpy(fatbin + 4, &version, 2);
  memcpy(fatbin + 6, &header_size, 2);
  memcpy(fatbin + 8, &rest, 8);
  memcpy(fatbin + header + 64, cubin, size);
  CUfunction f;
  size_t off, psize;
  CHECK(p_cuModuleLoadData(&m, fatbin) == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&f, m, "params") == CUDA_SUCCESS &&
            p_cuModuleGetFunction(&f, m, "nope") == CUDA_ERROR_NOT_FOUND &&
            p_cuModuleGetFunction(&f, m, "params") == CUDA_SUCCESS &&
            p_cuFuncGetParamInfo(f, 5, &off, &psize) == CUDA_SUCCESS && off == 24 && psize == 16,
        "a fatbin: the cubin inside it is indexed");
  p_cuModuleUnload(m);
  free(fatbin);
}

int main(void) {
  void *lib = dlopen(CUARR_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
  CHECK(lib && bind(lib), "the stand-in driver loads");
  if (!lib)
    return ctest_done();
  CUcontext ctx;
  CHECK(p_cuInit(0) == CUDA_SUCCESS && p_cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS &&
            p_cuCtxSetCurrent(ctx) == CUDA_SUCCESS,
        "a context");
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# no NVRTC (%s): skipping the cubin cases\n", cuarr_last_error());
    check_ptx();
    return ctest_done();
  }
  char *cubin = NULL;
  size_t size = 0;
  CHECK(cuarr_nvrtc_compile(source, "fake_cubin.cu", NULL, 0, 90, &cubin, &size) == CUARR_OK,
        "NVRTC compiles the kernels");
  if (cubin) {
    check_cubin(cubin, size);
    check_bad_images(cubin, size);
  }
  check_ptx();
  free(cubin);
  return ctest_done();
}
