/*
 * rendezvous_common.h -- what the two rendezvous (rendezvous_tcp.c, rendezvous_file.c) share:
 * the protocol's magic, deadlines on the monotonic clock, the argument checks, the list of ranks
 * that did not join, big-endian integers and random numbers.  Internal to src/core/comm/.
 */
#ifndef CUARR_COMM_RENDEZVOUS_COMMON_H
#define CUARR_COMM_RENDEZVOUS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rendezvous.h"

/* The first bytes of every header, answer, marker and id file: what is not a cuarr rendezvous
 * of this version is told apart at once.  Bump the digit when the layout changes. */
#define CUARR_RV_MAGIC "CUARRRV1"
#define CUARR_RV_MAGIC_BYTES 8

/* Record statuses of the answers (TCP) and the id file. */
#define CUARR_RV_OK 0
#define CUARR_RV_ERROR 1

/* The longest reason rank 0 sends the others; a longer one is cut. */
#define CUARR_RV_REASON_MAX 1000

/* Return a failed status at once (CUARR_TRY lives in cuda/driver.h, which this code does not
 * need). */
#define CUARR_RV_TRY(expr)                                                                         \
  do {                                                                                             \
    cuarr_status rv_status_ = (expr);                                                              \
    if (rv_status_ != CUARR_OK)                                                                    \
      return rv_status_;                                                                           \
  } while (0)

/* Seconds on CLOCK_MONOTONIC (a wall-clock step cannot shorten or stretch a timeout). */
double cuarr_rv_now(void);
/* Milliseconds until deadline for poll(): rounded up (a wait never ends just before the
 * deadline and spins), 0 once it has passed. */
int cuarr_rv_ms_left(double deadline);
/* Sleep `seconds`, or until the deadline if that comes first; a signal does not cut it short. */
void cuarr_rv_sleep(double deadline, double seconds);

/* The checks both rendezvous make of rank, world, timeout and id (CUARR_VALUE_ERROR, with `what`
 * naming the function in the message). */
cuarr_status cuarr_rv_check_args(const char *what, int rank, int world, double timeout_s,
                                 const unsigned char *id);

/* "rank 3" or "ranks 2, 3" (the first 16, then "and N more") of the ranks 1..world-1 whose
 * joined[r] is false, into buf (always terminated).  The caller adds "of W did not join". */
void cuarr_rv_missing(const bool *joined, int world, char *buf, size_t size);

/* strerror, thread-safe. */
const char *cuarr_rv_strerror(int err, char *buf, size_t size);

/* A random 64-bit number, never 0: from getrandom, or from the clocks and the process id where
 * that fails (it needs only to differ from the numbers of other processes and earlier jobs). */
uint64_t cuarr_rv_nonce(void);

/* Big-endian (network order) integers in byte buffers. */
void cuarr_rv_put16(unsigned char *p, uint16_t v);
void cuarr_rv_put32(unsigned char *p, uint32_t v);
void cuarr_rv_put64(unsigned char *p, uint64_t v);
uint16_t cuarr_rv_get16(const unsigned char *p);
uint32_t cuarr_rv_get32(const unsigned char *p);
uint64_t cuarr_rv_get64(const unsigned char *p);

#endif
