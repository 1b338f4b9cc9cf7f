/*
 * rendezvous_common.c -- the pieces both rendezvous share (rendezvous_common.h): the clock and
 * its deadlines, the argument checks, the list of missing ranks, strerror, random numbers and
 * big-endian integers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rendezvous_common.h"

double cuarr_rv_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cuarr_rv_ms_left(double deadline) {
  double left = deadline - cuarr_rv_now();
  if (left <= 0)
    return 0;
  double ms = ceil(left * 1000.0);
  return ms >= (double)INT_MAX ? INT_MAX : (int)ms;
}

void cuarr_rv_sleep(double deadline, double seconds) {
  double left = deadline - cuarr_rv_now();
  if (left < seconds)
    seconds = left;
  if (seconds <= 0)
    return;
  struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  /* nanosleep leaves the time still to sleep in t when a signal interrupts it. */
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

cuarr_status cuarr_rv_check_args(const char *what, int rank, int world, double timeout_s,
                                 const unsigned char *id) {
  if (world < 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the world needs at least 1 rank, got %d", what,
                      world);
  if (rank < 0 || rank >= world)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: rank %d is outside 0..%d (a world of %d ranks)", what,
                      rank, world - 1, world);
  /* !(t > 0) also refuses NaN. */
  if (!(timeout_s > 0) || isinf(timeout_s))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: the timeout must be a positive number of seconds, "
                      "got %g",
                      what, timeout_s);
  if (!id)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: no buffer for the id", what);
  return CUARR_OK;
}

void cuarr_rv_missing(const bool *joined, int world, char *buf, size_t size) {
  enum { LISTED = 16 };
  int missing = 0;
  for (int r = 1; r < world; r++)
    missing += !joined[r];
  size_t at = (size_t)snprintf(buf, size, "%s", missing == 1 ? "rank" : "ranks");
  int listed = 0;
  for (int r = 1; r < world && listed < LISTED && at < size; r++) {
    if (joined[r])
      continue;
    at += (size_t)snprintf(buf + at, size - at, "%s %d", listed ? "," : "", r);
    listed++;
  }
  if (missing > listed && at < size)
    snprintf(buf + at, size - at, " and %d more", missing - listed);
}

const char *cuarr_rv_strerror(int err, char *buf, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, size); /* the GNU variant: may return a static string */
#else
  return strerror_r(err, buf, size) == 0 ? buf : "unknown error";
#endif
}

/* splitmix64's finaliser: spreads the bits of the fallback's inputs. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t cuarr_rv_nonce(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    struct timespec a, b;
    clock_gettime(CLOCK_REALTIME, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    v = mix((uint64_t)a.tv_sec * 1000000000ULL + (uint64_t)a.tv_nsec) ^
        mix((uint64_t)b.tv_nsec + ((uint64_t)getpid() << 32)) ^ mix((uint64_t)(uintptr_t)&v);
  }
  return v ? v : 1;
}

void cuarr_rv_put16(unsigned char *p, uint16_t v) {
  p[0] = (unsigned char)(v >> 8);
  p[1] = (unsigned char)v;
}

void cuarr_rv_put32(unsigned char *p, uint32_t v) {
  cuarr_rv_put16(p, (uint16_t)(v >> 16));
  cuarr_rv_put16(p + 2, (uint16_t)v);
}

void cuarr_rv_put64(unsigned char *p, uint64_t v) {
  cuarr_rv_put32(p, (uint32_t)(v >> 32));
  cuarr_rv_put32(p + 4, (uint32_t)v);
}

uint16_t cuarr_rv_get16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }

uint32_t cuarr_rv_get32(const unsigned char *p) {
  return (uint32_t)cuarr_rv_get16(p) << 16 | cuarr_rv_get16(p + 2);
}

uint64_t cuarr_rv_get64(const unsigned char *p) {
  return (uint64_t)cuarr_rv_get32(p) << 32 | cuarr_rv_get32(p + 4);
}
