/*
 * rendezvous_file.c -- rank 0 hands its NCCL unique id to the other ranks through files on a
 * path they all see (rendezvous.h, cuarr_rendezvous_file).
 *
 * The files (integers big-endian):
 *   <path>.rank<r>  rank r's marker: "CUARRRV1", uint32 world, uint32 rank, uint64 nonce
 *   <path>          rank 0's record: "CUARRRV1", uint32 world, uint8 status, uint32 count,
 *                   count times (uint32 rank, uint64 nonce), then
 *                     status 0 (OK):    the 128 id bytes
 *                     status 1 (error): uint16 length, that many bytes of reason
 *
 * A marker is created exclusively (O_EXCL) and read only once whole (a shorter one is still
 * being written); the record is written to a temporary and renamed, so a reader sees all of it
 * or nothing.  The nonce, a random number each rank draws, ties the record to this job: a rank
 * takes a record only if it lists its own (rank, nonce), so an id file an earlier job left at the
 * path (rank 0 removes it first, but a rank may look before rank 0 starts) is never taken.  The
 * error record lists every marker rank 0 read, the mismatched ones too, so those ranks fail with
 * its reason as well.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rendezvous_common.h"

#define MARKER_BYTES (CUARR_RV_MAGIC_BYTES + 16)
#define RECORD_HEAD (CUARR_RV_MAGIC_BYTES + 5) /* magic, world, status; then the count */
#define ENTRY_BYTES 12
#define POLL_S 0.015
#define RECORD_MAX (64u << 20) /* a larger <path> is not one of ours */

/* ------------------------------------------------------------------------------------------ */
/* Files */

/* "<path>.rank<r>" */
static char *marker_name(const char *path, int rank) {
  size_t n = strlen(path) + 32;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s.rank%d", path, rank);
  return s;
}

/* Write all n bytes to fd: 0, or an errno. */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return k < 0 ? errno : EIO;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

/* Read a whole file of at most max bytes into a new buffer: 0, ENOENT while it is not there,
 * EFBIG when larger, or another errno. */
static int read_file(const char *name, size_t max, unsigned char **out, size_t *len) {
  int fd = open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  struct stat st;
  int err = fstat(fd, &st) < 0 ? errno : st.st_size < 0 || (uint64_t)st.st_size > max ? EFBIG : 0;
  size_t size = err ? 0 : (size_t)st.st_size;
  unsigned char *buf = err ? NULL : malloc(size ? size : 1);
  if (!err && !buf)
    err = ENOMEM;
  size_t got = 0;
  while (!err && got < size) {
    ssize_t k = read(fd, buf + got, size - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      err = errno;
    else if (k == 0)
      break; /* shrank under us: what is there is what there is */
    got += (size_t)(k > 0 ? k : 0);
  }
  close(fd);
  if (err) {
    free(buf);
    return err;
  }
  *out = buf;
  *len = got;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Rank 0 */

typedef struct entry {
  uint32_t rank;
  uint64_t nonce;
} entry;

typedef struct gathering {
  const char *path;
  int world;
  bool *joined;   /* [world + 1] */
  entry *entries; /* every marker read: the ranks that joined, then the one that failed it */
  int n_entries;
  char reason[CUARR_RV_REASON_MAX + 1];
  bool failed;
} gathering;

/* Look at rank r's marker; r == world looks for a rank of a larger world.  A marker that is
 * there and whole either joins or fails the rendezvous, and is listed in entries (which has room
 * for world + 1: every rank once, and the one that fails it). */
static void look(gathering *g, int r) {
  char *name = marker_name(g->path, r);
  unsigned char *m = NULL;
  size_t len = 0;
  int err = name ? read_file(name, 4096, &m, &len) : ENOMEM;
  char buf[128];
  if (err == ENOENT || (!err && len < MARKER_BYTES)) {
    /* not there yet, or still being written */
  } else if (err) {
    g->failed = true;
    snprintf(g->reason, sizeof g->reason, "cannot read the marker %s: %s", name,
             cuarr_rv_strerror(err, buf, sizeof buf));
  } else if (len != MARKER_BYTES || memcmp(m, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES) != 0 ||
             cuarr_rv_get32(m + CUARR_RV_MAGIC_BYTES + 4) != (uint32_t)r) {
    g->failed = true;
    snprintf(g->reason, sizeof g->reason, "%s is not a marker of a cuarr rendezvous of rank %d",
             name, r);
  } else {
    uint32_t world = cuarr_rv_get32(m + CUARR_RV_MAGIC_BYTES);
    g->entries[g->n_entries++] = (entry){(uint32_t)r, cuarr_rv_get64(m + CUARR_RV_MAGIC_BYTES + 8)};
    if (world != (uint32_t)g->world) {
      g->failed = true;
      snprintf(g->reason, sizeof g->reason, "rank %d says the world has %u ranks, rank 0 has %d", r,
               world, g->world);
    } else if (r == g->world) {
      /* No cuarr rank writes this (its rank is checked against its world): always fatal, so
       * that it is listed once. */
      g->failed = true;
      snprintf(g->reason, sizeof g->reason, "%s says it is rank %d of a world of %d", name, r,
               g->world);
    } else {
      g->joined[r] = true;
    }
  }
  free(m);
  free(name);
}

/* Write rank 0's record to path through a temporary: 0 or an errno. */
static int write_record(const gathering *g, const unsigned char *id) {
  size_t reason_len = g->failed ? strlen(g->reason) : 0;
  size_t n = RECORD_HEAD + 4 + (size_t)g->n_entries * ENTRY_BYTES +
             (g->failed ? 2 + reason_len : CUARR_RENDEZVOUS_ID_BYTES);
  unsigned char *rec = malloc(n);
  size_t tmp_n = strlen(g->path) + 32;
  char *tmp = malloc(tmp_n);
  if (!rec || !tmp) {
    free(rec);
    free(tmp);
    return ENOMEM;
  }
  /* A random name: another host's rank 0 of a misconfigured job cannot collide with it. */
  snprintf(tmp, tmp_n, "%s.tmp%016" PRIx64, g->path, cuarr_rv_nonce());
  memcpy(rec, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES);
  cuarr_rv_put32(rec + CUARR_RV_MAGIC_BYTES, (uint32_t)g->world);
  rec[CUARR_RV_MAGIC_BYTES + 4] = g->failed ? CUARR_RV_ERROR : CUARR_RV_OK;
  cuarr_rv_put32(rec + RECORD_HEAD, (uint32_t)g->n_entries);
  unsigned char *p = rec + RECORD_HEAD + 4;
  for (int i = 0; i < g->n_entries; i++, p += ENTRY_BYTES) {
    cuarr_rv_put32(p, g->entries[i].rank);
    cuarr_rv_put64(p + 4, g->entries[i].nonce);
  }
  if (g->failed) {
    cuarr_rv_put16(p, (uint16_t)reason_len);
    memcpy(p + 2, g->reason, reason_len);
  } else {
    memcpy(p, id, CUARR_RENDEZVOUS_ID_BYTES);
  }
  int err = 0, fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    err = errno;
  else {
    err = write_all(fd, rec, n);
    /* close reports the write-back errors of network file systems. */
    if (close(fd) < 0 && !err)
      err = errno;
    if (!err && rename(tmp, g->path) < 0)
      err = errno;
    if (err)
      unlink(tmp);
  }
  free(tmp);
  free(rec);
  return err;
}

/* The directory of path exists and rank 0 may create files in it: else the ranks would wait for
 * a record that can never be written. */
static cuarr_status check_directory(const char *path, const char *where) {
  const char *slash = strrchr(path, '/');
  char *dir = !slash          ? strdup(".")
              : slash == path ? strdup("/")
                              : strndup(path, (size_t)(slash - path));
  if (!dir)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no memory", where);
  int err = access(dir, W_OK | X_OK) < 0 ? errno : 0;
  cuarr_status st = CUARR_OK;
  if (err) {
    char buf[128];
    st = cuarr_fail(CUARR_VALUE_ERROR, "%s: rank 0 cannot create files in %s: %s", where, dir,
                    cuarr_rv_strerror(err, buf, sizeof buf));
  }
  free(dir);
  return st;
}

static cuarr_status lead(const char *path, int world, double timeout_s, const char *where,
                         const unsigned char *id) {
  double deadline = cuarr_rv_now() + timeout_s;
  /* An id an earlier job left must go before any rank could mistake it for this job's (the
   * nonces guard that too; removing it also frees the name for this job's record). */
  if (unlink(path) < 0 && errno != ENOENT) {
    char buf[128];
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: cannot remove the earlier id file: %s", where,
                      cuarr_rv_strerror(errno, buf, sizeof buf));
  }
  CUARR_RV_TRY(check_directory(path, where));
  gathering g = {.path = path, .world = world};
  g.joined = calloc((size_t)world + 1, sizeof *g.joined);
  g.entries = calloc((size_t)world + 1, sizeof *g.entries);
  if (!g.joined || !g.entries) {
    free(g.joined);
    free(g.entries);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no memory for a world of %d ranks", where, world);
  }
  int joined = 0;
  for (;;) {
    for (int r = 1; r < world && !g.failed; r++)
      if (!g.joined[r]) {
        look(&g, r);
        joined += g.joined[r];
      }
    if (g.failed || joined == world - 1)
      break;
    look(&g, world); /* a marker past the last rank: someone's world is larger */
    if (g.failed)
      break;
    if (cuarr_rv_ms_left(deadline) == 0) {
      char missing[256];
      cuarr_rv_missing(g.joined, world, missing, sizeof missing);
      g.failed = true;
      snprintf(g.reason, sizeof g.reason, "%s of %d did not join within %g s", missing, world,
               timeout_s);
      break;
    }
    cuarr_rv_sleep(deadline, POLL_S);
  }
  int err = write_record(&g, id);
  /* The record is out (or cannot be): the markers read have served, and go. */
  for (int i = 0; i < g.n_entries; i++) {
    char *name = marker_name(path, (int)g.entries[i].rank);
    if (name)
      unlink(name);
    free(name);
  }
  bool failed = g.failed;
  free(g.joined);
  free(g.entries);
  char buf[128];
  if (failed)
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR, "%s: %s", where, g.reason);
  if (err)
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR, "%s: rank 0 cannot write the id file: %s", where,
                      cuarr_rv_strerror(err, buf, sizeof buf));
  return CUARR_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The other ranks */

typedef enum { NOT_YET, NOT_OURS, OURS_OK, OURS_FAILED } reading;

/* Look at <path>: is it rank 0's record for this rank (rank, nonce)? */
static reading read_record(const char *path, int rank, uint64_t nonce, unsigned char *id,
                           char *reason, size_t reason_size, uint32_t *world) {
  unsigned char *rec = NULL;
  size_t len = 0;
  if (read_file(path, RECORD_MAX, &rec, &len) != 0)
    return NOT_YET; /* not there, or unreadable for now: rank 0 may yet write it */
  reading r = NOT_OURS;
  size_t count = len >= RECORD_HEAD + 4 ? cuarr_rv_get32(rec + RECORD_HEAD) : 0;
  size_t body = RECORD_HEAD + 4 + count * ENTRY_BYTES;
  if (len < RECORD_HEAD + 4 || memcmp(rec, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES) != 0 ||
      count > (len - RECORD_HEAD - 4) / ENTRY_BYTES)
    goto done;
  bool listed = false;
  for (size_t i = 0; i < count && !listed; i++) {
    const unsigned char *e = rec + RECORD_HEAD + 4 + i * ENTRY_BYTES;
    listed = cuarr_rv_get32(e) == (uint32_t)rank && cuarr_rv_get64(e + 4) == nonce;
  }
  if (!listed)
    goto done;
  *world = cuarr_rv_get32(rec + CUARR_RV_MAGIC_BYTES);
  unsigned char status = rec[CUARR_RV_MAGIC_BYTES + 4];
  if (status == CUARR_RV_OK && len - body == CUARR_RENDEZVOUS_ID_BYTES) {
    memcpy(id, rec + body, CUARR_RENDEZVOUS_ID_BYTES);
    r = OURS_OK;
  } else if (status == CUARR_RV_ERROR && len - body >= 2 &&
             len - body - 2 == cuarr_rv_get16(rec + body)) {
    size_t n = len - body - 2;
    if (n >= reason_size)
      n = reason_size - 1;
    memcpy(reason, rec + body + 2, n);
    reason[n] = 0;
    r = OURS_FAILED;
  } else {
    snprintf(reason, reason_size, "rank 0's record in %s is malformed", path);
    r = OURS_FAILED;
  }
done:
  free(rec);
  return r;
}

/* Remove this rank's marker if it is still its own (a failed rank must not look joined to a
 * rank 0 that comes later). */
static void withdraw(const char *marker, uint64_t nonce) {
  unsigned char *m = NULL;
  size_t len = 0;
  if (read_file(marker, 4096, &m, &len) == 0 && len == MARKER_BYTES &&
      cuarr_rv_get64(m + CUARR_RV_MAGIC_BYTES + 8) == nonce)
    unlink(marker);
  free(m);
}

static cuarr_status follow(const char *path, int rank, int world, double timeout_s,
                           const char *where, unsigned char *id) {
  double deadline = cuarr_rv_now() + timeout_s;
  uint64_t nonce = cuarr_rv_nonce();
  char *marker = marker_name(path, rank);
  if (!marker)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no memory", where);
  unsigned char m[MARKER_BYTES];
  memcpy(m, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES);
  cuarr_rv_put32(m + CUARR_RV_MAGIC_BYTES, (uint32_t)world);
  cuarr_rv_put32(m + CUARR_RV_MAGIC_BYTES + 4, (uint32_t)rank);
  cuarr_rv_put64(m + CUARR_RV_MAGIC_BYTES + 8, nonce);
  char buf[128];
  int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    cuarr_status st =
        e == EEXIST
            ? cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                         "%s: rank %d joined twice: its marker %s is there already (another "
                         "process is rank %d, or an earlier job used this path)",
                         where, rank, marker, rank)
            : cuarr_fail(CUARR_VALUE_ERROR, "%s: rank %d cannot create its marker %s: %s", where,
                         rank, marker, cuarr_rv_strerror(e, buf, sizeof buf));
    free(marker);
    return st;
  }
  int err = write_all(fd, m, sizeof m);
  if (close(fd) < 0 && !err)
    err = errno;
  if (err) {
    unlink(marker);
    free(marker);
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR, "%s: rank %d cannot write its marker: %s", where,
                      rank, cuarr_rv_strerror(err, buf, sizeof buf));
  }
  unsigned char got[CUARR_RENDEZVOUS_ID_BYTES];
  char reason[CUARR_RV_REASON_MAX + 1];
  uint32_t their_world = 0;
  bool saw_other = false;
  reading r;
  for (;;) {
    r = read_record(path, rank, nonce, got, reason, sizeof reason, &their_world);
    saw_other |= r == NOT_OURS;
    if (r == OURS_OK || r == OURS_FAILED || cuarr_rv_ms_left(deadline) == 0)
      break;
    cuarr_rv_sleep(deadline, POLL_S);
  }
  cuarr_status st = CUARR_OK;
  if (r == OURS_OK && their_world != (uint32_t)world)
    st = cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                    "%s: rank %d says the world has %d ranks, rank 0 has %u", where, rank, world,
                    their_world);
  else if (r == OURS_OK)
    memcpy(id, got, sizeof got);
  else if (r == OURS_FAILED)
    st = cuarr_fail(CUARR_DISTRIBUTED_ERROR, "%s failed at rank 0 (this is rank %d of %d): %s",
                    where, rank, world, reason);
  else
    st = cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                    "rendezvous: rank 0 did not answer at %s within %g s (this is rank %d of "
                    "%d%s)",
                    path, timeout_s, rank, world,
                    saw_other ? "; the id file there is not for this job: from an earlier one?"
                              : "");
  if (st != CUARR_OK)
    withdraw(marker, nonce);
  free(marker);
  return st;
}

cuarr_status cuarr_rendezvous_file(const char *path, int rank, int world, double timeout_s,
                                   unsigned char id[CUARR_RENDEZVOUS_ID_BYTES]) {
  CUARR_RV_TRY(cuarr_rv_check_args("cuarr_rendezvous_file", rank, world, timeout_s, id));
  if (!path || !*path)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_rendezvous_file: the path is empty");
  if (world == 1)
    return CUARR_OK; /* rank 0 alone: nobody to hand the id to */
  size_t n = strlen(path) + 32;
  char *where = malloc(n);
  if (!where)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "cuarr_rendezvous_file: no memory");
  snprintf(where, n, "rendezvous at %s", path);
  cuarr_status st = rank == 0 ? lead(path, world, timeout_s, where, id)
                              : follow(path, rank, world, timeout_s, where, id);
  free(where);
  return st;
}
