/*
 * rendezvous_tcp.c -- rank 0 hands its NCCL unique id to the other ranks over TCP
 * (rendezvous.h, cuarr_rendezvous_tcp).
 *
 * The protocol (integers big-endian):
 *   rank r -> rank 0   header: "CUARRRV1", uint32 world, uint32 rank              (16 bytes)
 *   rank 0 -> rank r   "CUARRRV1", uint8 status, then
 *                        status 0 (OK):    the 128 id bytes
 *                        status 1 (error): uint16 length, that many bytes of reason (<= 1000)
 * Rank 0 answers nobody until every rank 1..world-1 has checked in (so an OK tells a rank that
 * the whole world is there), then answers all and closes.  When it fails (a timeout, a bad join,
 * see rendezvous.h for which are fatal), it answers every rank that has checked in with the
 * reason, so they fail at once with it instead of at their own timeout.
 *
 * Rank 0 serves in one thread with poll() over its listeners (one per address the host resolves
 * to, each IPv6 one IPv6-only so that it can sit beside the IPv4 one on the same port) and the
 * connections; a header may come in pieces.  The other ranks retry a refused connect every
 * 25 ms until the deadline: they may well start before rank 0 listens.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rendezvous_socket.h"

#define HEADER_BYTES (CUARR_RV_MAGIC_BYTES + 8)
#define ANSWER_HEAD (CUARR_RV_MAGIC_BYTES + 1)
#define MAX_LISTENERS 8   /* addresses a host may resolve to that rank 0 listens on */
#define STRAYS 64         /* connections not (yet) a rank that rank 0 keeps at once */
#define RETRY_S 0.025     /* between rounds of refused connects */
#define CONNECT_WAIT_S 2. /* the longest wait for one handshake */
#define ANSWER_GRACE_S 1. /* once all joined, the answers get at least this long */

/* ------------------------------------------------------------------------------------------ */
/* Rank 0 */

typedef struct conn {
  int fd;
  int got;     /* header bytes received */
  int rank;    /* once checked in (1..world-1), else 0 */
  bool answer; /* owed an answer: checked in, or the one whose header made rank 0 fail */
  unsigned char header[HEADER_BYTES];
} conn;

typedef struct server {
  const char *where; /* "rendezvous at HOST:PORT", for messages */
  int world;
  int listeners[MAX_LISTENERS];
  int n_listeners;
  conn *conns;
  int n_conns, cap;
  bool *joined; /* [world] */
  int n_joined;
  char reason[CUARR_RV_REASON_MAX + 1]; /* set when rank 0 fails */
  cuarr_status failed;                  /* CUARR_OK while it has not */
} server;

static void stop(server *s, cuarr_status kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void stop(server *s, cuarr_status kind, const char *fmt, ...) {
  if (s->failed != CUARR_OK)
    return; /* the first reason is the one that matters */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->reason, sizeof s->reason, fmt, ap);
  va_end(ap);
  s->failed = kind;
}

/* An error answer, best effort: the rank may be gone already, and rank 0 fails anyway. */
static void answer_error(int fd, const char *reason) {
  size_t len = strlen(reason);
  if (len > CUARR_RV_REASON_MAX)
    len = CUARR_RV_REASON_MAX;
  unsigned char rec[ANSWER_HEAD + 2 + CUARR_RV_REASON_MAX];
  memcpy(rec, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES);
  rec[CUARR_RV_MAGIC_BYTES] = CUARR_RV_ERROR;
  cuarr_rv_put16(rec + ANSWER_HEAD, (uint16_t)len);
  memcpy(rec + ANSWER_HEAD + 2, reason, len);
  int err;
  cuarr_rv_send_all(fd, rec, ANSWER_HEAD + 2 + len, cuarr_rv_now() + 0.2, &err);
}

/* Listen on every address host:port resolves to.  An address of a family this machine lacks
 * (IPv6 off) is passed over if another one works; anything else (the port taken, no permission)
 * fails at once: a rank connecting to that address would never reach rank 0. */
static cuarr_status open_listeners(server *s, const struct addrinfo *ai, int port) {
  int skipped = 0; /* the errno of the first address passed over */
  char skipped_addr[64] = "";
  for (const struct addrinfo *a = ai; a && s->n_listeners < MAX_LISTENERS; a = a->ai_next) {
    bool seen = false; /* /etc/hosts may list an address twice: the second bind would fail */
    for (const struct addrinfo *b = ai; b != a && !seen; b = b->ai_next)
      seen = b->ai_addrlen == a->ai_addrlen && !memcmp(b->ai_addr, a->ai_addr, a->ai_addrlen);
    if (seen)
      continue;
    char addr[64];
    cuarr_rv_numeric(a, addr, sizeof addr);
    int one = 1, fd = cuarr_rv_socket(a->ai_family);
    int ok = fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
             (a->ai_family != AF_INET6 ||
              setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) == 0) &&
             bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0;
    if (ok) {
      s->listeners[s->n_listeners++] = fd;
      continue;
    }
    int e = errno;
    if (fd >= 0)
      close(fd);
    if (e == EAFNOSUPPORT || e == EPROTONOSUPPORT || e == EADDRNOTAVAIL) {
      if (!skipped) {
        skipped = e;
        snprintf(skipped_addr, sizeof skipped_addr, "%s", addr);
      }
      continue;
    }
    char buf[128];
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: cannot listen on %s port %d: %s", s->where, addr,
                      port, cuarr_rv_strerror(e, buf, sizeof buf));
  }
  if (s->n_listeners > 0)
    return CUARR_OK;
  char buf[128];
  return cuarr_fail(CUARR_VALUE_ERROR, "%s: cannot listen on %s port %d: %s", s->where,
                    skipped_addr, port, cuarr_rv_strerror(skipped, buf, sizeof buf));
}

static void accept_all(server *s, int listener) {
  while (s->n_conns < s->cap) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) {
      int e = errno;
      /* Out of descriptors or memory: the world cannot join through this process. */
      if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
        char buf[128];
        stop(s, CUARR_DISTRIBUTED_ERROR,
             "rank 0 cannot accept more connections (%d of %d ranks "
             "in): %s",
             s->n_joined + 1, s->world, cuarr_rv_strerror(e, buf, sizeof buf));
      }
      return; /* EAGAIN: none left; ECONNABORTED and the like: that one is gone */
    }
    if (cuarr_rv_prepare(fd) < 0) {
      close(fd);
      continue;
    }
    s->conns[s->n_conns++] = (conn){.fd = fd};
  }
}

/* A whole header came: check it in, or say why not. */
static void check_in(server *s, conn *c) {
  if (memcmp(c->header, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES) != 0) {
    /* Something else knocked on the port (a scanner, a health check): not a rank. */
    answer_error(c->fd, "not a cuarr rendezvous header (it must begin with " CUARR_RV_MAGIC ")");
    close(c->fd);
    c->fd = -1;
    return;
  }
  uint32_t world = cuarr_rv_get32(c->header + CUARR_RV_MAGIC_BYTES);
  uint32_t rank = cuarr_rv_get32(c->header + CUARR_RV_MAGIC_BYTES + 4);
  c->answer = true;
  if (world != (uint32_t)s->world)
    stop(s, CUARR_DISTRIBUTED_ERROR, "rank %u says the world has %u ranks, rank 0 has %d", rank,
         world, s->world);
  else if (rank == 0)
    stop(s, CUARR_DISTRIBUTED_ERROR, "a second process says it is rank 0");
  else if (rank >= world)
    stop(s, CUARR_DISTRIBUTED_ERROR, "a process says it is rank %u, outside 0..%d", rank,
         s->world - 1);
  else if (s->joined[rank])
    stop(s, CUARR_DISTRIBUTED_ERROR, "rank %u joined twice", rank);
  else {
    c->rank = (int)rank;
    s->joined[rank] = true;
    s->n_joined++;
  }
}

/* The connection has something: more of its header, or, from a rank checked in, its end. */
static void readable(server *s, conn *c) {
  if (c->rank == 0) {
    ssize_t k = recv(c->fd, c->header + c->got, (size_t)(HEADER_BYTES - c->got), 0);
    if (k > 0 && (c->got += (int)k) == HEADER_BYTES)
      check_in(s, c);
    else if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      close(c->fd); /* went away before it said who it is: not a rank */
      c->fd = -1;
    }
    return;
  }
  unsigned char extra;
  ssize_t k = recv(c->fd, &extra, 1, 0);
  if (k > 0)
    stop(s, CUARR_DISTRIBUTED_ERROR, "rank %d sent more than its header", c->rank);
  else if (k == 0)
    stop(s, CUARR_DISTRIBUTED_ERROR, "rank %d closed its connection before all ranks joined",
         c->rank);
  else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    char buf[128];
    stop(s, CUARR_DISTRIBUTED_ERROR, "rank %d's connection failed before all ranks joined: %s",
         c->rank, cuarr_rv_strerror(errno, buf, sizeof buf));
  }
}

/* Wait until all ranks checked in, rank 0 fails, or the deadline. */
static void gather(server *s, double deadline, double timeout_s, struct pollfd *pfds) {
  while (s->failed == CUARR_OK && s->n_joined < s->world - 1) {
    int ms = cuarr_rv_ms_left(deadline);
    if (ms == 0) {
      char missing[256];
      cuarr_rv_missing(s->joined, s->world, missing, sizeof missing);
      stop(s, CUARR_DISTRIBUTED_ERROR, "%s of %d did not join within %g s", missing, s->world,
           timeout_s);
      return;
    }
    /* Listeners are left out while the table is full: the rest wait in the backlog. */
    int n = 0, nl = s->n_conns < s->cap ? s->n_listeners : 0;
    for (int i = 0; i < nl; i++)
      pfds[n++] = (struct pollfd){s->listeners[i], POLLIN, 0};
    for (int i = 0; i < s->n_conns; i++)
      pfds[n++] = (struct pollfd){s->conns[i].fd, POLLIN, 0};
    int ready = poll(pfds, (nfds_t)n, ms);
    if (ready < 0 && errno != EINTR) {
      char buf[128];
      stop(s, CUARR_DISTRIBUTED_ERROR, "rank 0 cannot wait for the others: %s",
           cuarr_rv_strerror(errno, buf, sizeof buf));
      return;
    }
    if (ready <= 0)
      continue;
    int polled = s->n_conns; /* accepting adds after these */
    for (int i = 0; i < polled && s->failed == CUARR_OK; i++)
      if (pfds[nl + i].revents)
        readable(s, &s->conns[i]);
    for (int i = 0; i < nl && s->failed == CUARR_OK; i++)
      if (pfds[i].revents)
        accept_all(s, pfds[i].fd);
    int kept = 0; /* drop the closed ones */
    for (int i = 0; i < s->n_conns; i++)
      if (s->conns[i].fd >= 0)
        s->conns[kept++] = s->conns[i];
    s->n_conns = kept;
  }
}

/* Everyone is in: the id to each rank.  A rank that cannot be reached now fails rank 0 (the
 * others have their id already; NCCL's own initialisation will miss that rank too). */
static void hand_out(server *s, const unsigned char *id, double deadline, struct pollfd *pfds) {
  /* A rank whose end came in the same breath as the last header is caught here, not after it
   * was told the world is complete. */
  for (int i = 0; i < s->n_conns; i++)
    pfds[i] = (struct pollfd){s->conns[i].fd, POLLIN, 0};
  if (poll(pfds, (nfds_t)s->n_conns, 0) > 0)
    for (int i = 0; i < s->n_conns && s->failed == CUARR_OK; i++)
      if (pfds[i].revents && s->conns[i].rank != 0)
        readable(s, &s->conns[i]);
  if (s->failed != CUARR_OK)
    return;
  unsigned char rec[ANSWER_HEAD + CUARR_RENDEZVOUS_ID_BYTES];
  memcpy(rec, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES);
  rec[CUARR_RV_MAGIC_BYTES] = CUARR_RV_OK;
  memcpy(rec + ANSWER_HEAD, id, CUARR_RENDEZVOUS_ID_BYTES);
  double until = cuarr_rv_now() + ANSWER_GRACE_S;
  if (until < deadline)
    until = deadline;
  for (int i = 0; i < s->n_conns; i++) {
    conn *c = &s->conns[i];
    if (c->rank == 0)
      continue;
    int err = 0;
    cuarr_rv_io io = cuarr_rv_send_all(c->fd, rec, sizeof rec, until, &err);
    char buf[128];
    if (io != CUARR_RV_IO_DONE)
      stop(s, CUARR_DISTRIBUTED_ERROR, "the id did not reach rank %d: %s", c->rank,
           io == CUARR_RV_IO_TIMEOUT ? "timed out" : cuarr_rv_strerror(err, buf, sizeof buf));
  }
}

static cuarr_status serve(const char *host, int port, int world, double timeout_s,
                          const unsigned char *id) {
  double deadline = cuarr_rv_now() + timeout_s;
  char label[300], where[320];
  cuarr_rv_label(host, port, "*", label, sizeof label);
  snprintf(where, sizeof where, "rendezvous at %s", label);
  struct addrinfo *ai = NULL;
  CUARR_RV_TRY(cuarr_rv_resolve(host, port, true, where, &ai));
  server s = {.where = where, .world = world, .failed = CUARR_OK};
  s.cap = world - 1 + STRAYS;
  s.conns = calloc((size_t)s.cap, sizeof *s.conns);
  s.joined = calloc((size_t)world, sizeof *s.joined);
  struct pollfd *pfds = calloc((size_t)(s.cap + MAX_LISTENERS), sizeof *pfds);
  cuarr_status st = CUARR_OK;
  if (!s.conns || !s.joined || !pfds)
    st = cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no memory for a world of %d ranks", where, world);
  if (st == CUARR_OK)
    st = open_listeners(&s, ai, port);
  freeaddrinfo(ai);
  if (st == CUARR_OK) {
    gather(&s, deadline, timeout_s, pfds);
    /* No one else may join now: the backlog's connections are refused, not left waiting. */
    for (int i = 0; i < s.n_listeners; i++)
      close(s.listeners[i]);
    s.n_listeners = 0;
    if (s.failed == CUARR_OK)
      hand_out(&s, id, deadline, pfds);
    if (s.failed != CUARR_OK)
      for (int i = 0; i < s.n_conns; i++)
        if (s.conns[i].answer)
          answer_error(s.conns[i].fd, s.reason);
    if (s.failed != CUARR_OK)
      st = cuarr_fail(s.failed, "%s: %s", where, s.reason);
  }
  for (int i = 0; i < s.n_listeners; i++)
    close(s.listeners[i]);
  for (int i = 0; i < s.n_conns; i++)
    close(s.conns[i].fd);
  free(pfds);
  free(s.joined);
  free(s.conns);
  return st;
}

/* ------------------------------------------------------------------------------------------ */
/* The other ranks */

/* Connect to any address of host:port, retrying while refused (rank 0 may not listen yet). */
static cuarr_status reach(const char *host, int port, int rank, int world, double timeout_s,
                          double deadline, const char *label, int *out) {
  char where[320];
  snprintf(where, sizeof where, "rendezvous at %s", label);
  struct addrinfo *ai = NULL;
  CUARR_RV_TRY(cuarr_rv_resolve(host, port, false, where, &ai));
  int fd = -1, err = ECONNREFUSED;
  for (;;) {
    for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next)
      fd = cuarr_rv_connect(a, deadline, CONNECT_WAIT_S, &err);
    if (fd >= 0 || cuarr_rv_ms_left(deadline) == 0)
      break;
    cuarr_rv_sleep(deadline, RETRY_S);
  }
  freeaddrinfo(ai);
  if (fd < 0) {
    char buf[128];
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                      "rendezvous: rank 0 did not answer at %s within %g s (this is rank %d of "
                      "%d; last error: %s)",
                      label, timeout_s, rank, world, cuarr_rv_strerror(err, buf, sizeof buf));
  }
  *out = fd;
  return CUARR_OK;
}

/* What went wrong with a transfer to or from rank 0, as an error. */
static cuarr_status lost(cuarr_rv_io io, int err, const char *label, const char *doing, int rank,
                         int world, double timeout_s) {
  char buf[128];
  if (io == CUARR_RV_IO_TIMEOUT)
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                      "rendezvous at %s: rank 0 did not hand out the id within %g s (rank %d of "
                      "%d checked in; did every rank start?)",
                      label, timeout_s, rank, world);
  if (io == CUARR_RV_IO_CLOSED)
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                      "rendezvous at %s: rank 0 closed the connection while %s (rank %d of %d)",
                      label, doing, rank, world);
  return cuarr_fail(CUARR_DISTRIBUTED_ERROR, "rendezvous at %s: %s failed (rank %d of %d): %s",
                    label, doing, rank, world, cuarr_rv_strerror(err, buf, sizeof buf));
}

/* Check in with rank 0 on fd and read its answer. */
static cuarr_status join(int fd, int rank, int world, double timeout_s, double deadline,
                         const char *label, unsigned char *id) {
  unsigned char header[HEADER_BYTES];
  memcpy(header, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES);
  cuarr_rv_put32(header + CUARR_RV_MAGIC_BYTES, (uint32_t)world);
  cuarr_rv_put32(header + CUARR_RV_MAGIC_BYTES + 4, (uint32_t)rank);
  int err = 0;
  cuarr_rv_io io = cuarr_rv_send_all(fd, header, sizeof header, deadline, &err);
  if (io != CUARR_RV_IO_DONE)
    return lost(io, err, label, "sending this rank's header", rank, world, timeout_s);
  unsigned char head[ANSWER_HEAD];
  io = cuarr_rv_recv_all(fd, head, sizeof head, deadline, &err);
  if (io != CUARR_RV_IO_DONE)
    return lost(io, err, label, "waiting for the id", rank, world, timeout_s);
  if (memcmp(head, CUARR_RV_MAGIC, CUARR_RV_MAGIC_BYTES) != 0 ||
      (head[CUARR_RV_MAGIC_BYTES] != CUARR_RV_OK && head[CUARR_RV_MAGIC_BYTES] != CUARR_RV_ERROR))
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                      "rendezvous at %s: what answers there is not a cuarr rank 0 (its answer "
                      "does not begin with " CUARR_RV_MAGIC ")",
                      label);
  if (head[CUARR_RV_MAGIC_BYTES] == CUARR_RV_OK) {
    unsigned char got[CUARR_RENDEZVOUS_ID_BYTES];
    io = cuarr_rv_recv_all(fd, got, sizeof got, deadline, &err);
    if (io != CUARR_RV_IO_DONE)
      return lost(io, err, label, "receiving the id", rank, world, timeout_s);
    memcpy(id, got, sizeof got); /* only now: a failure leaves the caller's buffer as it was */
    return CUARR_OK;
  }
  unsigned char len_bytes[2];
  char reason[CUARR_RV_REASON_MAX + 1];
  io = cuarr_rv_recv_all(fd, len_bytes, sizeof len_bytes, deadline, &err);
  size_t len = io == CUARR_RV_IO_DONE ? cuarr_rv_get16(len_bytes) : 0;
  if (len > CUARR_RV_REASON_MAX)
    return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                      "rendezvous at %s: rank 0 refused rank %d with a malformed answer", label,
                      rank);
  if (io == CUARR_RV_IO_DONE)
    io = cuarr_rv_recv_all(fd, reason, len, deadline, &err);
  if (io != CUARR_RV_IO_DONE)
    return lost(io, err, label, "receiving rank 0's error", rank, world, timeout_s);
  reason[len] = 0;
  return cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                    "rendezvous at %s failed at rank 0 (this is rank %d "
                    "of %d): %s",
                    label, rank, world, reason);
}

cuarr_status cuarr_rendezvous_tcp(const char *host, int port, int rank, int world, double timeout_s,
                                  unsigned char id[CUARR_RENDEZVOUS_ID_BYTES]) {
  CUARR_RV_TRY(cuarr_rv_check_args("cuarr_rendezvous_tcp", rank, world, timeout_s, id));
  if (port < 1 || port > 65535)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_rendezvous_tcp: port %d is outside 1..65535", port);
  if (world == 1)
    return CUARR_OK; /* rank 0 alone: nobody to hand the id to */
  if (rank == 0)
    return serve(host, port, world, timeout_s, id);
  double deadline = cuarr_rv_now() + timeout_s;
  char label[300];
  cuarr_rv_label(host, port, "localhost", label, sizeof label);
  int fd = -1;
  CUARR_RV_TRY(reach(host, port, rank, world, timeout_s, deadline, label, &fd));
  cuarr_status st = join(fd, rank, world, timeout_s, deadline, label, id);
  close(fd);
  return st;
}
