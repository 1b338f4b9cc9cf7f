/* ctest.h -- the smallest test harness: CHECK(cond, name) prints `ok - name` or
 * `not ok - name (file:line)`; ctest_done() returns the exit status. */
#ifndef CUARR_CTEST_H
#define CUARR_CTEST_H
#include <stdio.h>

static int ctest_failed_;
#define CHECK(cond, name)                                                                          \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok - %s\n", name);                                                                   \
    } else {                                                                                       \
      printf("not ok - %s (%s:%d)\n", name, __FILE__, __LINE__);                                   \
      ctest_failed_++;                                                                             \
    }                                                                                              \
  } while (0)
static inline int ctest_done(void) {
  fflush(stdout);
  return ctest_failed_ ? 1 : 0;
}
#endif
