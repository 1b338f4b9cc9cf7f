/*
 * test_codegen.c -- the code generator's tools (src/core/compile/codegen.h): the growing text,
 * templates with named slots and the programming errors they catch, the pieces programs share,
 * and which compile options leave NVRTC's fast-compile mode to the program.
 */
#include <stdlib.h>
#include <string.h>

#include "compile/codegen.h"
#include "ctest.h"
#include "internal.h"

#include "kernel_sources.h"

static void test_text(void) {
  cuarr_text t = {0};
  cuarr_text_put(&t, "a");
  cuarr_text_printf(&t, "%d-%s", 42, "b");
  for (int i = 0; i < 2000; i++) /* past the first allocation */
    cuarr_text_put(&t, "xyz");
  char *s = cuarr_text_finish(&t);
  CHECK(s && strncmp(s, "a42-bxyz", 8) == 0 && strlen(s) == 5 + 3 * 2000,
        "the text grows: put, printf, many appends");
  free(s);
  cuarr_text empty = {0};
  s = cuarr_text_finish(&empty);
  CHECK(s && *s == '\0', "a text nothing was written to finishes empty");
  free(s);
}

static void test_fill(void) {
  cuarr_text t = {0};
  FILL(&t, "for (${I} k = ${first}; k < ${n}; k += ${step}) { x[k] = ${first}; }\n",
       SLOT("I", "unsigned int"), SLOT("first", "threadIdx.x"), INT_SLOT("n", 1024),
       SLOT("step", "blockDim.x"));
  cuarr_text_fill(&t, "no slots\n", NULL, 0);
  char *s = cuarr_text_finish(&t);
  CHECK(s && strcmp(s, "for (unsigned int k = threadIdx.x; k < 1024; k += blockDim.x) "
                       "{ x[k] = threadIdx.x; }\nno slots\n") == 0,
        "named slots: text and numbers, a slot used twice, a template with none");
  free(s);

  cuarr_text in = {0};
  cuarr_text_put_at(&in, "  ", "/* a */\n/* b */\n");
  FILL_AT(&in, "    ", "{\n  ${x} = ${expr};\n#pragma unroll\n\n}\n", SLOT("x", "y"),
          SLOT("expr", "a\n+ b"));
  s = cuarr_text_finish(&in);
  CHECK(s && strcmp(s, "  /* a */\n  /* b */\n"
                       "    {\n      y = a\n+ b;\n#pragma unroll\n\n    }\n") == 0,
        "an indented template: its lines indented, not `#` lines, empty lines or a value's own");
  free(s);

  cuarr_text u = {0};
  FILL(&u, "${a} + ${b}", SLOT("a", "1"));
  cuarr_text_put(&u, "more text after the error");
  s = cuarr_text_finish(&u);
  CHECK(!s && strstr(cuarr_last_error(), "code generator") && strstr(cuarr_last_error(), "${b}") &&
            strstr(cuarr_last_error(), "no value"),
        "a slot the table lacks is an error naming it");

  cuarr_text v = {0};
  FILL(&v, "${a} + 1", SLOT("a", "1"), SLOT("misspelt", "2"));
  s = cuarr_text_finish(&v);
  CHECK(!s && strstr(cuarr_last_error(), "${misspelt}") &&
            strstr(cuarr_last_error(), "not in the template"),
        "a table entry the template never names is an error naming it");

  cuarr_text w = {0};
  FILL(&w, "${a + 1", SLOT("a", "1"));
  s = cuarr_text_finish(&w);
  CHECK(!s && strstr(cuarr_last_error(), "not closed"), "an unclosed ${ is an error");

  cuarr_text x = {0};
  FILL(&x, "${ab}", SLOT("a", "1"), SLOT("abc", "2"));
  s = cuarr_text_finish(&x);
  CHECK(!s && strstr(cuarr_last_error(), "${ab} has no value"),
        "slot names match whole, not by prefix");
}

static void test_pieces(void) {
  cuarr_text t = {0};
  const char *names[] = {"T", NULL, "U", "T", "U"};
  const char *types[] = {"float", "int", "double", "long long", "float16"};
  cuarr_codegen_put_typedefs(&t, 5, names, types);
  char *s = cuarr_text_finish(&t);
  CHECK(s && strcmp(s, "typedef float T;\ntypedef double U;\n") == 0,
        "placeholder typedefs: each name once, the first type winning");
  free(s);

  cuarr_text p = {0};
  cuarr_codegen_put_launch_prologue(&p, true);
  cuarr_codegen_put_launch_prologue(&p, false);
  s = cuarr_text_finish(&p);
  CHECK(s && strstr(s, "griddepcontrol.wait;") &&
            strstr(s, "griddepcontrol.launch_dependents;") ==
                strstr(s + 1, "griddepcontrol.launch_dependents;") &&
            strstr(strstr(s, "#endif") + 1, "griddepcontrol.wait;") &&
            !strstr(strstr(s, "#endif") + 1, "launch_dependents"),
        "the launch prologue waits, and lets the next kernel in only when asked");
  free(s);

  cuarr_text h = {0};
  cuarr_codegen_put_headers(&h, CUARR_HEADER_HALF | CUARR_HEADER_COMMON);
  s = cuarr_text_finish(&h);
  CHECK(s && strstr(s, "#define CUARR_COMMON_CUH") && strstr(s, "struct float16") &&
            strstr(s, "#define CUARR_COMMON_CUH") < strstr(s, "struct float16") &&
            !strstr(s, "CUARR_ELEMENTWISE_CU"),
        "headers: those asked for, common.cuh before half.cuh");
  free(s);

  cuarr_text k = {0};
  cuarr_codegen_put_kernel_head(&k, 256, "add_contig");
  s = cuarr_text_finish(&k);
  CHECK(s && strcmp(s, "\nextern \"C\" __global__ void __launch_bounds__(256)\nadd_contig(") == 0,
        "a kernel's opening, up to its parameters");
  free(s);

  const char *plain[] = {"a + b", NULL, "x * 2"}, *helper[] = {NULL, "CUARR_NAN(x)"},
             *half[] = {"(__half_t)x"};
  CHECK(!cuarr_codegen_mentions_cuarr(plain, 3) && cuarr_codegen_mentions_cuarr(helper, 2) &&
            cuarr_codegen_mentions_cuarr(half, 1),
        "a program's texts name cuarr's code (cuarr..., CUARR..., __half...) or not");

  CHECK(strcmp(cuarr_codegen_var_ctype(CUARR_FLOAT16), "float16") == 0 &&
            strcmp(cuarr_codegen_var_ctype(CUARR_FLOAT32), "float") == 0 &&
            strcmp(cuarr_codegen_dtype_code(CUARR_UINT16), "u2") == 0 &&
            strcmp(cuarr_codegen_index_ctype(true), "unsigned long long") == 0 &&
            strcmp(cuarr_codegen_offset_ctype(false), "int") == 0,
        "dtype and index names of generated code");
}

static void put_numbered(cuarr_text *t, const void *names, int i) {
  FILL(t, "extern \"C\" __global__ void ${name}() {}\n",
       SLOT("name", ((const char *const *)names)[i]));
}

static void test_program(void) {
  const char *names[] = {"k0", "k1"};
  static const char tail[] = "/* the family's template */\n"
                             "extern \"C\" __global__ void k0() {}\n"
                             "extern \"C\" __global__ void k1() {}\n";
  char *s = cuarr_codegen_program("/* the family's template */", 2, put_numbered, names);
  CHECK(s &&
            strncmp(s, cuarr_kernel_source_common_cuh, strlen(cuarr_kernel_source_common_cuh)) ==
                0 &&
            strlen(s) > strlen(tail) && strcmp(s + strlen(s) - strlen(tail), tail) == 0,
        "a program of n kernels: common.cuh, the template, one kernel each, in order");
  free(s);
}

/* The options a generated kernel compiles with, as a list of n strings joined by spaces. */
static bool options_are(const char *const *own, int n, const char *expected) {
  const char *out[8];
  int count = cuarr_codegen_compile_options(own, n, out);
  char joined[256] = "";
  for (int i = 0; i < count; i++)
    snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? " " : "", out[i]);
  if (strcmp(joined, expected) != 0)
    printf("# options: \"%s\", expected \"%s\"\n", joined, expected);
  return strcmp(joined, expected) == 0;
}

static void test_fast_compile_mode(void) {
  const char *none[] = {"-std=c++17", "--use_fast_math"};
  const char *long_form[] = {"-std=c++17", "--Ofast-compile=0"};
  const char *short_form[] = {"-Ofc=max"};
  const char *lookalike[] = {"-DOfc=1", "--Ofast"};
  CHECK(options_are(none, 2, "-std=c++17 --use_fast_math " CUARR_FAST_COMPILE_OPTION) &&
            options_are(NULL, 0, CUARR_FAST_COMPILE_OPTION) &&
            options_are(lookalike, 2, "-DOfc=1 --Ofast " CUARR_FAST_COMPILE_OPTION),
        "options that choose no fast-compile mode get cuarr's, after them");
  CHECK(options_are(long_form, 2, "-std=c++17 --Ofast-compile=0") &&
            options_are(short_form, 1, "-Ofc=max"),
        "a program's --Ofast-compile=0 or -Ofc=max stands alone: ElementwiseKernel and "
        "ReductionKernel leave cuarr's out");
}

int main(void) {
  test_text();
  test_fill();
  test_pieces();
  test_program();
  test_fast_compile_mode();
  return ctest_done();
}
