/*
 * warnings.c -- per-thread queue of warnings for the embedder to pick up.
 *
 * The core never prints: a condition worth telling the user about (a kernel cache directory
 * that cannot be written, ...) is queued here, and the binding passes it on (lua_warning) when
 * it next returns to its caller.  Per thread, like the last error message, so that no lock is
 * needed and a thread sees only what its own calls caused.  The queue is a small ring: a thread
 * that never takes its warnings loses the oldest, it does not grow without bound.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuarr.h"

#define RING_SIZE 8
#define MESSAGE_SIZE 512

static _Thread_local char ring[RING_SIZE][MESSAGE_SIZE];
static _Thread_local unsigned ring_first, ring_count;
/* What cuarr_take_warning returned last: a copy, so that a cuarr_warn before the caller is done
 * with it cannot overwrite it through the ring. */
static _Thread_local char taken[MESSAGE_SIZE];

void cuarr_warn(const char *fmt, ...) {
  if (ring_count == RING_SIZE) { /* full: drop the oldest */
    ring_first = (ring_first + 1) % RING_SIZE;
    ring_count--;
  }
  char *slot = ring[(ring_first + ring_count) % RING_SIZE];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(slot, MESSAGE_SIZE, fmt, ap);
  va_end(ap);
  if (n < 0)
    snprintf(slot, MESSAGE_SIZE, "cuarr: (a warning could not be formatted)");
  ring_count++;
}

const char *cuarr_take_warning(void) {
  if (ring_count == 0)
    return NULL;
  memcpy(taken, ring[ring_first], MESSAGE_SIZE);
  ring_first = (ring_first + 1) % RING_SIZE;
  ring_count--;
  return taken;
}
