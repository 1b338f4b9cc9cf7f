/*
 * test_elementwise_key.c -- the elementwise engine's dispatch key (elementwise_private.h) is
 * made of defined bytes only: a launch finds, and files, its kernel under the same key whatever
 * the stack held before it.  A byte left unset (the `whole` flag of a strided layout was) makes
 * keys that differ from call to call: duplicate entries and compiles.
 *
 * Against the fake driver of tools/fake_cuda (the Makefile passes its path as
 * CUARR_FAKE_LIBCUDA): the kernel is compiled with NVRTC and "launched" without a GPU.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "elementwise/elementwise_private.h"
#include "fake_arrays.h"

static cuarr_buffer dev0 = {
    .refs = 1, .ptr = (void *)(uintptr_t)0x10000000, .nbytes = 1 << 20, .device = 0};

/* Leave `byte` in the stack below this frame, where the launch's frames will be. */
__attribute__((noinline)) static void scribble_stack(int byte) {
  volatile unsigned char junk[64 * 1024];
  memset((void *)junk, byte, sizeof junk);
  __asm__ volatile("" : : "r"(junk) : "memory");
}

/* y = 2 * x over a (4, 6) float32 output from every other column of a (4, 12) input: the rows
 * collapse into one strided axis, element by element (the input's stride is 2). */
static cuarr_status launch_strided(cuarr_ew_program *program) {
  const int64_t wide[2] = {4, 12}, shape[2] = {4, 6};
  cuarr_array x = array_of(&dev0, CUARR_FLOAT32, 2, wide, 0);
  x.shape[1] = 6;
  x.strides[1] = 8;
  cuarr_array y = array_of(&dev0, CUARR_FLOAT32, 2, shape, 4096);
  cuarr_ew_operand ops[2] = {
      {.array = &x, .var_dtype = CUARR_FLOAT32, .name = "x"},
      {.array = &y, .var_dtype = CUARR_FLOAT32, .name = "y", .output = true},
  };
  return cuarr_ew_launch(NULL, 0, program, 2, ops, -1);
}

/* The key that launch must file its kernel under, every byte set here. */
static void expected_key(cuarr_ew_key *key) {
  memset(key, 0, sizeof *key);
  key->device = 0;
  key->n = 2;
  key->layout = 1; /* strided, one axis */
  key->wide = 0;
  key->vec = 1;
  key->whole = 0;
  const uint8_t in[4] = {CUARR_FLOAT32, CUARR_FLOAT32, CUARR_EW_ARRAY, 0};
  const uint8_t out[4] = {CUARR_FLOAT32, CUARR_FLOAT32, CUARR_EW_ARRAY | CUARR_EW_OUTPUT, 0};
  memcpy(key->op[0], in, 4);
  memcpy(key->op[1], out, 4);
}

int main(void) {
  /* Before the first driver call: the loader reads it then. */
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);

  static cuarr_ew_program program = {.name = "twice", .operation = "y = x * 2;"};
  cuarr_ew_cache *cache = NULL;
  CHECK(cuarr_ew_cache_of(&program, &cache) == CUARR_OK, "the program's cache");
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# no NVRTC (%s): skipping the launches\n", cuarr_last_error());
    return ctest_done();
  }
  cuarr_ew_key key;
  expected_key(&key);
  uint64_t hash = cuarr_ew_key_hash(&key);

  const int bytes[] = {0xa5, 0xff, 0x01, 0x00};
  for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
    scribble_stack(bytes[i]);
    cuarr_status s = launch_strided(&program);
    if (s != CUARR_OK)
      printf("# %s\n", cuarr_last_error());
    char name[120];
    snprintf(name, sizeof name,
             "a strided launch after 0x%02x in the stack finds its kernel under "
             "the fully defined key",
             bytes[i]);
    CHECK(s == CUARR_OK && cuarr_ew_cache_find(cache, &key, hash) != NULL, name);
  }
  cuarr_ew_program_release(&program);
  return ctest_done();
}
