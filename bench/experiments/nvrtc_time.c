/* nvrtc_time.c -- NVRTC's time for one source, compiled five times in one process, each time
 * with every occurrence of TOKEN replaced by a new number.  The numbers matter: NVRTC 13.0.88
 * (the GPU leases') serves a source that differs only in comments from an in-process cache.
 * The first compile also loads NVRTC's builtins.  Not part of the build:
 *   cc -O2 -o nvrtc_time nvrtc_time.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 \
 *      -lnvrtc -Wl,-rpath,/usr/local/cuda/lib64
 *   ./nvrtc_time kernel.cu 859249 --gpu-architecture=sm_90 --std=c++17 --minimal
 * (a kernel's source as cuarr generates it, with a constant of its own as TOKEN). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *replace_all(const char *s, const char *token, const char *with) {
  size_t tl = strlen(token), wl = strlen(with), count = 0;
  for (const char *p = s; (p = strstr(p, token)); p += tl)
    count++;
  char *out = malloc(strlen(s) + count * wl + 1), *o = out;
  if (!out)
    exit(1);
  const char *p = s, *q;
  while ((q = strstr(p, token))) {
    memcpy(o, p, (size_t)(q - p));
    o += q - p;
    memcpy(o, with, wl);
    o += wl;
    p = q + tl;
  }
  strcpy(o, p);
  return out;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: nvrtc_time FILE TOKEN [NVRTC options...]\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f)
    return 1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
    return 1;
  s[n] = 0;
  fclose(f);
  srand((unsigned)time(NULL) ^ (unsigned)clock());
  printf("%s:", argv[1]);
  for (int rep = 0; rep < 5; rep++) {
    char number[32];
    snprintf(number, sizeof number, "%d", 100000 + rand() % 800000);
    char *source = replace_all(s, argv[2], number);
    nvrtcProgram p;
    nvrtcCreateProgram(&p, source, "k.cu", 0, NULL, NULL);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    nvrtcResult r = nvrtcCompileProgram(p, argc - 3, (const char *const *)argv + 3);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf(" %.1f%s", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
           r == NVRTC_SUCCESS ? "" : "(failed)");
    nvrtcDestroyProgram(&p);
    free(source);
  }
  printf(" ms\n");
  free(s);
  return 0;
}
