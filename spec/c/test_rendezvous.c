/*
 * test_rendezvous.c -- the hand-over of rank 0's NCCL unique id (src/core/comm/rendezvous.h),
 * over TCP and through files, with fork()ed processes as the ranks.
 *
 * Each child calls the rendezvous as its rank and sends back through a pipe its status, its
 * message, how long it took and whether its buffer then held rank 0's id; the parent plays one
 * rank itself.  The ids are random-looking with zero bytes in them.  Timeouts are short (0.4 to
 * 1.5 s) and elapsed times are checked loosely (a failure must come about at the timeout, or at
 * once where rank 0 knows better, never much later), so the test is quick and not flaky.  Ports
 * come from binding port 0 and reading it back: tests running beside this one do not collide.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm/rendezvous.h"
#include "ctest.h"

#define ID_BYTES CUARR_RENDEZVOUS_ID_BYTES

enum { TCP, FILES };

/* One rank's call. */
typedef struct call {
  int kind;
  const char *where; /* host (TCP) or path (files) */
  int port;
  int rank, world;
  double timeout, delay;   /* delay: seconds to wait before calling */
  const unsigned char *id; /* rank 0's id: what rank 0 serves and every rank must end with */
} call;

/* What came of it. */
typedef struct outcome {
  cuarr_status status;
  bool id_ok;   /* the buffer holds rank 0's id afterwards */
  bool id_kept; /* the buffer is as it was before the call */
  int fds_left; /* descriptors open after the call that were not before */
  double elapsed;
  char msg[700];
} outcome;

typedef struct child {
  pid_t pid;
  int fd;
} child;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pause_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

static void make_id(unsigned char *id, unsigned seed) {
  uint32_t x = 2463534242u ^ seed * 2654435761u;
  for (int i = 0; i < ID_BYTES; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    id[i] = (unsigned char)(x >> 11);
  }
  id[0] = id[17] = id[64] = id[127] = 0; /* a string copy would stop at these */
}

/* Open descriptors of this process (the directory's own included: the same both times). */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  while (d && readdir(d))
    n++;
  if (d)
    closedir(d);
  return n;
}

/* Descriptors the calls of this process and its children left open, summed (run_call and
 * finish add to it). */
static int fds_leaked;

static outcome run_call(const call *c) {
  unsigned char buf[ID_BYTES];
  if (c->rank == 0 && c->id)
    memcpy(buf, c->id, ID_BYTES);
  else
    memset(buf, 0xEE, ID_BYTES);
  unsigned char before[ID_BYTES];
  memcpy(before, buf, ID_BYTES);
  if (c->delay > 0)
    pause_s(c->delay);
  int fds_before = open_fds();
  double t0 = now();
  cuarr_status st =
      c->kind == TCP ? cuarr_rendezvous_tcp(c->where, c->port, c->rank, c->world, c->timeout, buf)
                     : cuarr_rendezvous_file(c->where, c->rank, c->world, c->timeout, buf);
  outcome o;
  memset(&o, 0, sizeof o); /* all of it crosses the pipe, padding too */
  o.status = st;
  o.elapsed = now() - t0;
  o.fds_left = open_fds() - fds_before;
  fds_leaked += o.fds_left;
  o.id_ok = c->id && memcmp(buf, c->id, ID_BYTES) == 0;
  o.id_kept = memcmp(buf, before, ID_BYTES) == 0;
  if (st != CUARR_OK)
    snprintf(o.msg, sizeof o.msg, "%s", cuarr_last_error());
  return o;
}

static child start(call c) {
  int p[2];
  if (pipe(p) != 0) {
    perror("pipe");
    exit(2);
  }
  fflush(stdout); /* else the child's exit could print the parent's buffered lines again */
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid == 0) {
    close(p[0]);
    outcome o = run_call(&c);
    ssize_t w = write(p[1], &o, sizeof o);
    _exit(w == (ssize_t)sizeof o ? 0 : 3);
  }
  close(p[1]);
  return (child){pid, p[0]};
}

static outcome finish(child ch) {
  outcome o;
  size_t got = 0;
  while (got < sizeof o) {
    ssize_t k = read(ch.fd, (char *)&o + got, sizeof o - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  close(ch.fd);
  int ws = 0;
  waitpid(ch.pid, &ws, 0);
  if (got != sizeof o || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    memset(&o, 0, sizeof o);
    o.status = (cuarr_status)-1;
    snprintf(o.msg, sizeof o.msg, "the child died (wait status %d)", ws);
  }
  fds_leaked += o.fds_left;
  return o;
}

static bool has(const outcome *o, const char *text) { return strstr(o->msg, text) != NULL; }

static void show(const char *who, const outcome *o) {
  if (o->status != CUARR_OK)
    printf("#   %s: %s: %s (%.2f s)\n", who, cuarr_status_name(o->status), o->msg, o->elapsed);
}

/* ------------------------------------------------------------------------------------------ */
/* Ports and addresses */

static int loopback_socket(int family, int port) {
  int fd = socket(family, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len;
  if (family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *a;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    a->sin6_addr = in6addr_loopback;
    len = sizeof *a;
  }
  if (bind(fd, (struct sockaddr *)&ss, len) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A port free now on the loopback of that family (the kernel's pick for port 0). */
static int free_port(int family) {
  int fd = loopback_socket(family, 0);
  if (fd < 0) {
    perror("free_port");
    exit(2);
  }
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  getsockname(fd, (struct sockaddr *)&ss, &len);
  int port = family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                               : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
  close(fd);
  return port;
}

static bool has_ipv6(void) {
  int fd = loopback_socket(AF_INET6, 0);
  if (fd < 0)
    return false;
  close(fd);
  return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Whole worlds that must succeed */

/* Every rank of a world at rank 0's where/port, rank 0 at server_where (NULL: the same), the
 * parent as parent_rank, rank 0 starting after server_delay seconds; all must get the id. */
static bool world_ok(int kind, const char *server_where, const char *where, int port, int world,
                     int parent_rank, double server_delay, unsigned seed) {
  unsigned char id[ID_BYTES];
  make_id(id, seed);
  child kids[8];
  int rank_of[8], n = 0;
  for (int r = 0; r < world; r++) {
    if (r == parent_rank)
      continue;
    call c = {kind,
              r == 0 && server_where ? server_where : where,
              port,
              r,
              world,
              5.0,
              r == 0 ? server_delay : 0,
              id};
    rank_of[n] = r;
    kids[n++] = start(c);
  }
  call mine = {kind,
               parent_rank == 0 && server_where ? server_where : where,
               port,
               parent_rank,
               world,
               5.0,
               parent_rank == 0 ? server_delay : 0,
               id};
  outcome o = run_call(&mine);
  bool ok = o.status == CUARR_OK && o.id_ok;
  if (!ok)
    show("parent", &o);
  for (int i = 0; i < n; i++) {
    outcome k = finish(kids[i]);
    if (k.status != CUARR_OK || !k.id_ok) {
      printf("#   rank %d: id %s\n", rank_of[i], k.id_ok ? "right" : "wrong");
      show("child", &k);
      ok = false;
    }
  }
  return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* TCP */

static void tcp_worlds(void) {
  CHECK(world_ok(TCP, NULL, "127.0.0.1", free_port(AF_INET), 2, 0, 0, 1),
        "tcp: world 2, 127.0.0.1");
  CHECK(world_ok(TCP, NULL, "127.0.0.1", free_port(AF_INET), 3, 0, 0, 2),
        "tcp: world 3, 127.0.0.1");
  CHECK(world_ok(TCP, NULL, "127.0.0.1", free_port(AF_INET), 5, 0, 0, 3),
        "tcp: world 5, 127.0.0.1");
  CHECK(world_ok(TCP, NULL, "localhost", free_port(AF_INET), 3, 0, 0, 4),
        "tcp: world 3, localhost");
  CHECK(world_ok(TCP, NULL, "localhost", free_port(AF_INET), 3, 2, 0, 5),
        "tcp: world 3, localhost, the parent as rank 2");
  CHECK(world_ok(TCP, "", "127.0.0.1", free_port(AF_INET), 3, 0, 0, 6),
        "tcp: rank 0 on all interfaces, the others at 127.0.0.1");
  CHECK(world_ok(TCP, NULL, "127.0.0.1", free_port(AF_INET), 3, 0, 0.3, 7),
        "tcp: the others start before rank 0 listens, and retry");
  CHECK(world_ok(TCP, NULL, "127.0.0.1", free_port(AF_INET), 3, 1, 0.3, 8),
        "tcp: the parent as rank 1 waits for a late rank 0");
  if (has_ipv6()) {
    CHECK(world_ok(TCP, NULL, "::1", free_port(AF_INET6), 3, 0, 0, 9), "tcp: world 3, ::1");
    CHECK(world_ok(TCP, NULL, "::1", free_port(AF_INET6), 5, 4, 0.2, 10),
          "tcp: world 5, ::1, the parent as rank 4");
    CHECK(world_ok(TCP, "", "::1", free_port(AF_INET6), 2, 0, 0, 11),
          "tcp: rank 0 on all interfaces, the others at ::1");
  } else {
    printf("ok - # SKIP tcp over ::1: no IPv6 loopback here\n");
  }
}

static void tcp_missing(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 20);
  int port = free_port(AF_INET);
  child k1 = start((call){TCP, "127.0.0.1", port, 1, 4, 5.0, 0, id});
  child k2 = start((call){TCP, "127.0.0.1", port, 2, 4, 5.0, 0, id});
  outcome o = run_call(&(call){TCP, "127.0.0.1", port, 0, 4, 1.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR,
        "tcp: a missing rank: rank 0 fails (DistributedError)");
  char want[128];
  snprintf(want, sizeof want, "rendezvous at 127.0.0.1:%d: rank 3 of 4 did not join within 1 s",
           port);
  CHECK(has(&o, want), "tcp: a missing rank: rank 0 names it");
  CHECK(o.elapsed > 0.9 && o.elapsed < 3.0, "tcp: a missing rank: rank 0 fails at its timeout");
  for (int i = 0; i < 2; i++) {
    outcome k = finish(i ? k2 : k1);
    show("waiting rank", &k);
    CHECK(k.status == CUARR_DISTRIBUTED_ERROR && has(&k, "failed at rank 0") &&
              has(&k, "rank 3 of 4 did not join") && k.id_kept,
          "tcp: a missing rank: the waiting ranks fail with rank 0's reason");
    CHECK(k.elapsed < 4.0, "tcp: a missing rank: the waiting ranks fail with rank 0, not at "
                           "their own timeout");
  }

  port = free_port(AF_INET);
  k1 = start((call){TCP, "127.0.0.1", port, 1, 4, 5.0, 0, id});
  o = run_call(&(call){TCP, "127.0.0.1", port, 0, 4, 0.5, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "ranks 2, 3 of 4 did not join within 0.5 s"),
        "tcp: two missing ranks are both named");
  outcome k = finish(k1);
  CHECK(k.status == CUARR_DISTRIBUTED_ERROR && has(&k, "ranks 2, 3 of 4"),
        "tcp: two missing ranks: the waiting rank says which");
}

static void tcp_bad_joins(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 30);
  /* A rank that believes in a world of 4, in a world of 3. */
  int port = free_port(AF_INET);
  child good = start((call){TCP, "127.0.0.1", port, 1, 3, 3.0, 0, id});
  child bad = start((call){TCP, "127.0.0.1", port, 2, 4, 3.0, 0.5, id});
  outcome o = run_call(&(call){TCP, "127.0.0.1", port, 0, 3, 5.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR &&
            has(&o, "rank 2 says the world has 4 ranks, rank 0 has 3"),
        "tcp: a world mismatch fails rank 0, naming both sizes");
  CHECK(o.elapsed < 2.5, "tcp: a world mismatch fails rank 0 at once, not at its timeout");
  outcome b = finish(bad), g = finish(good);
  show("bad rank", &b);
  show("good rank", &g);
  CHECK(b.status == CUARR_DISTRIBUTED_ERROR && has(&b, "says the world has 4 ranks, rank 0 has 3"),
        "tcp: a world mismatch: the mismatched rank gets rank 0's reason");
  CHECK(b.elapsed < 2.5, "tcp: a world mismatch: the mismatched rank fails at once");
  CHECK(g.status == CUARR_DISTRIBUTED_ERROR && has(&g, "failed at rank 0") && g.id_kept,
        "tcp: a world mismatch: the other ranks fail too");

  /* Rank 1 twice. */
  port = free_port(AF_INET);
  child first = start((call){TCP, "127.0.0.1", port, 1, 3, 3.0, 0, id});
  child second = start((call){TCP, "127.0.0.1", port, 1, 3, 3.0, 0.5, id});
  o = run_call(&(call){TCP, "127.0.0.1", port, 0, 3, 5.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "rank 1 joined twice") && o.elapsed < 2.5,
        "tcp: a rank joining twice fails rank 0 at once");
  outcome f = finish(first), s = finish(second);
  CHECK(f.status == CUARR_DISTRIBUTED_ERROR && has(&f, "rank 1 joined twice") &&
            s.status == CUARR_DISTRIBUTED_ERROR && has(&s, "rank 1 joined twice"),
        "tcp: a rank joining twice: both processes fail with the reason");
}

/* A process that, after delay seconds, connects to port, sends n bytes, then (want_answer) reads
 * the answer's head and reports through its exit status whether it was an error record (0) or not
 * (1), or closes at once (!want_answer, exit 0). */
static pid_t raw_client(int port, const void *bytes, size_t n, bool want_answer, double delay) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  pause_s(delay);
  double until = now() + 3.0;
  int fd = -1;
  while (now() < until) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      break;
    close(fd);
    fd = -1;
    pause_s(0.02);
  }
  if (fd < 0)
    _exit(2);
  if (send(fd, bytes, n, MSG_NOSIGNAL) != (ssize_t)n)
    _exit(2);
  if (!want_answer) {
    close(fd);
    _exit(0);
  }
  unsigned char head[9];
  size_t got = 0;
  while (got < sizeof head) {
    ssize_t k = recv(fd, head + got, sizeof head - got, 0);
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  close(fd);
  _exit(got == sizeof head && memcmp(head, "CUARRRV1", 8) == 0 && head[8] == 1 ? 0 : 1);
}

static int exit_code(pid_t pid) {
  int ws = 0;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 100;
}

static void header(unsigned char h[16], uint32_t world, uint32_t rank) {
  memcpy(h, "CUARRRV1", 8);
  uint32_t w = htonl(world), r = htonl(rank);
  memcpy(h + 8, &w, 4);
  memcpy(h + 12, &r, 4);
}

static void tcp_peers(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 40);
  /* Rank 1 checks in, then goes away: rank 0 fails, and says so to rank 2.  (Rank 3 never
   * comes, so that rank 0 is still waiting when rank 1 leaves.) */
  int port = free_port(AF_INET);
  unsigned char h[16];
  header(h, 4, 1);
  pid_t quitter = raw_client(port, h, sizeof h, false, 0.5);
  child waiting = start((call){TCP, "127.0.0.1", port, 2, 4, 3.0, 0, id});
  outcome o = run_call(&(call){TCP, "127.0.0.1", port, 0, 4, 5.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR &&
            has(&o, "rank 1 closed its connection before all ranks joined") && o.elapsed < 2.5,
        "tcp: a rank closing mid-way fails rank 0 at once");
  outcome w = finish(waiting);
  show("waiting rank", &w);
  CHECK(w.status == CUARR_DISTRIBUTED_ERROR && has(&w, "rank 1 closed its connection"),
        "tcp: a rank closing mid-way: the others get rank 0's reason");
  CHECK(exit_code(quitter) == 0, "tcp: (the quitting stub ran)");

  /* Headers no cuarr rank sends (its arguments are checked): a second rank 0, a rank past the
   * world.  Both fail rank 0 at once; the sender gets an error record. */
  struct {
    uint32_t rank;
    const char *why;
  } wrong[] = {{0, "a second process says it is rank 0"},
               {7, "a process says it is rank 7, outside 0..2"}};
  for (int i = 0; i < 2; i++) {
    port = free_port(AF_INET);
    header(h, 3, wrong[i].rank);
    pid_t sender = raw_client(port, h, sizeof h, true, 0);
    o = run_call(&(call){TCP, "127.0.0.1", port, 0, 3, 5.0, 0, id});
    show("rank 0", &o);
    char name[96];
    snprintf(name, sizeof name, "tcp: a header saying rank %u fails rank 0 at once", wrong[i].rank);
    CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, wrong[i].why) && o.elapsed < 2.5, name);
    CHECK(exit_code(sender) == 0, "tcp: ... and its sender gets an error record");
  }

  /* Something that is not a rank knocks: it is answered with an error, the world still joins. */
  port = free_port(AF_INET);
  pid_t stranger = raw_client(port, "HELLO-NOT-CUARR!", 16, true, 0);
  child rank1 = start((call){TCP, "127.0.0.1", port, 1, 2, 5.0, 0.3, id});
  o = run_call(&(call){TCP, "127.0.0.1", port, 0, 2, 5.0, 0, id});
  show("rank 0", &o);
  outcome r1 = finish(rank1);
  CHECK(o.status == CUARR_OK && r1.status == CUARR_OK && r1.id_ok,
        "tcp: a stray connection without the magic does not stop the world");
  CHECK(exit_code(stranger) == 0, "tcp: a stray connection is answered with an error record");

  /* A stray that connects and closes without a word does not stop it either. */
  port = free_port(AF_INET);
  pid_t mute = raw_client(port, "", 0, false, 0);
  rank1 = start((call){TCP, "127.0.0.1", port, 1, 2, 5.0, 0.3, id});
  o = run_call(&(call){TCP, "127.0.0.1", port, 0, 2, 5.0, 0, id});
  r1 = finish(rank1);
  CHECK(o.status == CUARR_OK && r1.status == CUARR_OK && r1.id_ok && exit_code(mute) == 0,
        "tcp: a connection closed before its header is not a rank");
}

/* A fake rank 0 that accepts one connection, reads the header and answers with `answer` (n
 * bytes; 0: closes at once). */
static outcome against_fake_server(const void *answer, size_t n) {
  int lfd = loopback_socket(AF_INET, 0);
  listen(lfd, 4);
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  getsockname(lfd, (struct sockaddr *)&a, &len);
  unsigned char id[ID_BYTES];
  make_id(id, 50);
  child c = start((call){TCP, "127.0.0.1", ntohs(a.sin_port), 1, 2, 2.0, 0, id});
  int fd = accept(lfd, NULL, NULL);
  unsigned char h[16];
  size_t got = 0;
  while (fd >= 0 && got < sizeof h) {
    ssize_t k = recv(fd, h + got, sizeof h - got, 0);
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  if (n)
    send(fd, answer, n, MSG_NOSIGNAL);
  close(fd);
  outcome o = finish(c);
  close(lfd);
  unsigned char want[16];
  header(want, 2, 1);
  if (got != sizeof h || memcmp(h, want, sizeof h) != 0) {
    o.status = (cuarr_status)-1;
    snprintf(o.msg, sizeof o.msg, "the header was not CUARRRV1, world 2, rank 1");
  }
  return o;
}

static void tcp_fake_servers(void) {
  unsigned char rec[9 + 2 + 17];
  memcpy(rec, "CUARRRV1", 8);
  rec[8] = 1;
  rec[9] = 0;
  rec[10] = 17;
  memcpy(rec + 11, "a reason to quote", 17);
  outcome o = against_fake_server(rec, sizeof rec);
  show("rank 1", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "a reason to quote") && o.id_kept,
        "tcp: rank 0's error record is quoted (and the header sent was right)");
  o = against_fake_server(NULL, 0);
  show("rank 1", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "closed the connection") && o.id_kept,
        "tcp: rank 0 closing without an answer is a DistributedError");
  o = against_fake_server("HTTP/1.0 400 Bad\r\n\r\n", 20);
  show("rank 1", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "not a cuarr rank 0"),
        "tcp: a server that is not cuarr's is told apart");
}

static void tcp_no_server(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 60);
  int port = free_port(AF_INET);
  outcome o = run_call(&(call){TCP, "127.0.0.1", port, 1, 2, 0.5, 0, id});
  show("rank 1", &o);
  char want[96];
  snprintf(want, sizeof want, "rank 0 did not answer at 127.0.0.1:%d within 0.5 s", port);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, want) && o.id_kept,
        "tcp: no rank 0: DistributedError naming host:port and the timeout");
  CHECK(o.elapsed > 0.45 && o.elapsed < 2.5, "tcp: no rank 0: it gives up at the timeout");
}

static void tcp_addresses(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 70);
  /* The port is held by another socket. */
  int taken = loopback_socket(AF_INET, 0);
  listen(taken, 1);
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  getsockname(taken, (struct sockaddr *)&a, &len);
  int port = ntohs(a.sin_port);
  double t0 = now();
  outcome o = run_call(&(call){TCP, "127.0.0.1", port, 0, 2, 1.0, 0, id});
  show("rank 0", &o);
  char want[96];
  snprintf(want, sizeof want, "cannot listen on 127.0.0.1 port %d: Address already in use", port);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, want) && now() - t0 < 0.5,
        "tcp: a port in use: rank 0 says so at once (ValueError)");
  o = run_call(&(call){TCP, NULL, port, 0, 2, 1.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "Address already in use"),
        "tcp: a port in use on the loopback: rank 0 on all interfaces says so");
  /* world 1 needs no socket: the port in use does not matter. */
  o = run_call(&(call){TCP, "127.0.0.1", port, 0, 1, 1.0, 0, id});
  CHECK(o.status == CUARR_OK && o.id_ok && o.elapsed < 0.05, "tcp: world 1 returns at once");
  close(taken);

  o = run_call(&(call){TCP, "no-such-host.invalid", port, 1, 2, 1.0, 0, id});
  show("rank 1", &o);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "no-such-host.invalid") &&
            has(&o, "does not resolve"),
        "tcp: a host that does not resolve is a ValueError (rank 1)");
  o = run_call(&(call){TCP, "no-such-host.invalid", port, 0, 2, 1.0, 0, id});
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "does not resolve"),
        "tcp: a host that does not resolve is a ValueError (rank 0)");
  o = run_call(&(call){TCP, "192.0.2.1", free_port(AF_INET), 0, 2, 1.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "cannot listen on 192.0.2.1"),
        "tcp: an address not of this machine cannot be listened on (ValueError)");
}

/* ------------------------------------------------------------------------------------------ */
/* Bad arguments, both kinds */

static void bad_arguments(void) {
  unsigned char id[ID_BYTES];
  make_id(id, 80);
  struct {
    int rank, world, port;
    double timeout;
    const char *what;
  } cases[] = {
      {0, 0, 1234, 1.0, "world 0"},
      {0, -3, 1234, 1.0, "world -3"},
      {-1, 2, 1234, 1.0, "rank -1"},
      {2, 2, 1234, 1.0, "rank == world"},
      {0, 2, 0, 1.0, "port 0"},
      {0, 2, 65536, 1.0, "port 65536"},
      {1, 2, -5, 1.0, "port -5"},
      {0, 2, 1234, 0.0, "timeout 0"},
      {1, 2, 1234, -1.0, "timeout -1"},
      {0, 2, 1234, NAN, "timeout NaN"},
      {0, 2, 1234, INFINITY, "timeout inf"},
      {0, 1, 0, 1.0, "port 0 with world 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[96];
    double t0 = now();
    unsigned char buf[ID_BYTES];
    memcpy(buf, id, ID_BYTES);
    cuarr_status st = cuarr_rendezvous_tcp("127.0.0.1", cases[i].port, cases[i].rank,
                                           cases[i].world, cases[i].timeout, buf);
    snprintf(name, sizeof name, "tcp: %s is a ValueError, at once", cases[i].what);
    CHECK(st == CUARR_VALUE_ERROR && now() - t0 < 0.05 && !memcmp(buf, id, ID_BYTES), name);
    if (cases[i].port < 1 || cases[i].port > 65535)
      continue; /* the file rendezvous has no port */
    st = cuarr_rendezvous_file("/tmp/x", cases[i].rank, cases[i].world, cases[i].timeout, buf);
    snprintf(name, sizeof name, "file: %s is a ValueError", cases[i].what);
    CHECK(st == CUARR_VALUE_ERROR, name);
  }
  CHECK(cuarr_rendezvous_tcp("127.0.0.1", 1234, 0, 2, 1.0, NULL) == CUARR_VALUE_ERROR,
        "tcp: no id buffer is a ValueError");
  CHECK(cuarr_rendezvous_file("/tmp/x", 0, 2, 1.0, NULL) == CUARR_VALUE_ERROR,
        "file: no id buffer is a ValueError");
  CHECK(cuarr_rendezvous_file(NULL, 0, 2, 1.0, id) == CUARR_VALUE_ERROR &&
            cuarr_rendezvous_file("", 1, 2, 1.0, id) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "path is empty"),
        "file: no path, or an empty one, is a ValueError");
  CHECK(cuarr_rendezvous_tcp("127.0.0.1", 1234, 3, 2, 1.0, id) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "rank 3 is outside 0..1"),
        "tcp: the message of a bad rank names the range");
}

/* ------------------------------------------------------------------------------------------ */
/* Files */

/* Names in dir other than keep (NULL: none). */
static int others_in(const char *dir, const char *keep) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!keep || strcmp(e->d_name, keep))) {
      printf("#   left in %s: %s\n", dir, e->d_name);
      n++;
    }
  if (d)
    closedir(d);
  return n;
}

static void empty_dir(const char *dir) {
  DIR *d = opendir(dir);
  char p[512];
  for (struct dirent *e; d && (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
  if (d)
    closedir(d);
}

static void file_worlds(const char *dir) {
  char path[512];
  int worlds[] = {2, 3, 5};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/id", dir);
    char name[96];
    snprintf(name, sizeof name, "file: world %d", worlds[i]);
    CHECK(world_ok(FILES, NULL, path, 0, worlds[i], 0, 0, 100u + (unsigned)i), name);
    snprintf(name, sizeof name, "file: world %d leaves only the id file (markers removed)",
             worlds[i]);
    CHECK(others_in(dir, "id") == 0, name);
    empty_dir(dir);
  }
  snprintf(path, sizeof path, "%s/id", dir);
  CHECK(world_ok(FILES, NULL, path, 0, 3, 2, 0, 110), "file: world 3, the parent as rank 2");
  empty_dir(dir);
  CHECK(world_ok(FILES, NULL, path, 0, 4, 0, 0.3, 111),
        "file: the others start before rank 0, and wait");
  empty_dir(dir);

  /* An earlier job's id file is there; this job's rank 1 starts before its rank 0. */
  unsigned char old_id[ID_BYTES], new_id[ID_BYTES];
  make_id(old_id, 120);
  make_id(new_id, 121);
  child r1 = start((call){FILES, path, 0, 1, 2, 3.0, 0, old_id});
  outcome o = run_call(&(call){FILES, path, 0, 0, 2, 3.0, 0, old_id});
  outcome k = finish(r1);
  CHECK(o.status == CUARR_OK && k.status == CUARR_OK && k.id_ok, "file: the earlier job ran");
  r1 = start((call){FILES, path, 0, 1, 2, 3.0, 0, new_id});
  o = run_call(&(call){FILES, path, 0, 0, 2, 3.0, 0.4, new_id});
  k = finish(r1);
  show("rank 1", &k);
  CHECK(o.status == CUARR_OK && k.status == CUARR_OK && k.id_ok,
        "file: a stale id file is never served: the rank waits for this job's id");
  /* The earlier id alone, no rank 0: the rank must time out, not take it. */
  o = run_call(&(call){FILES, path, 0, 1, 2, 0.4, 0, new_id});
  show("rank 1", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && o.id_kept && has(&o, "not for this job"),
        "file: a stale id file alone: the rank times out and says what it saw");
  CHECK(others_in(dir, "id") == 0, "file: a rank that gave up removes its marker");
  empty_dir(dir);

  /* world 1: no file at all. */
  o = run_call(&(call){FILES, path, 0, 0, 1, 1.0, 0, new_id});
  CHECK(o.status == CUARR_OK && o.id_ok && o.elapsed < 0.05 && others_in(dir, NULL) == 0,
        "file: world 1 returns at once and writes nothing");
}

static void file_failures(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/id", dir);
  unsigned char id[ID_BYTES];
  make_id(id, 130);

  child k1 = start((call){FILES, path, 0, 1, 4, 5.0, 0, id});
  child k2 = start((call){FILES, path, 0, 2, 4, 5.0, 0, id});
  outcome o = run_call(&(call){FILES, path, 0, 0, 4, 1.0, 0, id});
  show("rank 0", &o);
  char want[600];
  snprintf(want, sizeof want, "rendezvous at %s: rank 3 of 4 did not join within 1 s", path);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, want),
        "file: a missing rank: rank 0 fails naming it");
  CHECK(o.elapsed > 0.9 && o.elapsed < 3.0, "file: a missing rank: rank 0 fails at its timeout");
  for (int i = 0; i < 2; i++) {
    outcome k = finish(i ? k2 : k1);
    show("waiting rank", &k);
    CHECK(k.status == CUARR_DISTRIBUTED_ERROR && has(&k, "rank 3 of 4 did not join") &&
              k.elapsed < 4.0 && k.id_kept,
          "file: a missing rank: the waiting ranks fail with rank 0's reason, at once");
  }
  CHECK(others_in(dir, "id") == 0, "file: a missing rank: no marker is left");
  empty_dir(dir);

  /* Mismatched worlds: rank 2 and rank 3 of a world of 4 in a world of 3. */
  int bad_ranks[] = {2, 3};
  for (int i = 0; i < 2; i++) {
    child good = start((call){FILES, path, 0, 1, 3, 3.0, 0, id});
    child bad = start((call){FILES, path, 0, bad_ranks[i], 4, 3.0, 0, id});
    pause_s(0.5); /* both markers are there before rank 0 looks */
    o = run_call(&(call){FILES, path, 0, 0, 3, 5.0, 0, id});
    show("rank 0", &o);
    snprintf(want, sizeof want, "rank %d says the world has 4 ranks, rank 0 has 3", bad_ranks[i]);
    char name[96];
    snprintf(name, sizeof name, "file: rank %d of a world of 4 fails rank 0 of 3 at once",
             bad_ranks[i]);
    CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, want) && o.elapsed < 2.5, name);
    outcome b = finish(bad), g = finish(good);
    show("bad rank", &b);
    show("good rank", &g);
    snprintf(name, sizeof name, "file: rank %d of a world of 4: every rank fails at once",
             bad_ranks[i]);
    CHECK(b.status == CUARR_DISTRIBUTED_ERROR && has(&b, want) && b.elapsed < 2.5 &&
              g.status == CUARR_DISTRIBUTED_ERROR && has(&g, want) && g.elapsed < 2.5,
          name);
    CHECK(others_in(dir, "id") == 0, "file: a world mismatch: no marker is left");
    empty_dir(dir);
  }

  /* Markers no cuarr rank writes: one past the world with the world's size, and junk. */
  struct {
    int rank;
    const char *bytes, *why;
  } odd[] = {{2, "CUARRRV1\0\0\0\2\0\0\0\2\1\2\3\4\5\6\7\x08", "says it is rank 2 of a world of 2"},
             {1, "not a marker, twenty-four bytes", "is not a marker of a cuarr rendezvous"}};
  for (int i = 0; i < 2; i++) {
    char marker[600];
    snprintf(marker, sizeof marker, "%s.rank%d", path, odd[i].rank);
    FILE *f = fopen(marker, "wb");
    fwrite(odd[i].bytes, 1, 24, f);
    fclose(f);
    o = run_call(&(call){FILES, path, 0, 0, 2, 3.0, 0, id});
    show("rank 0", &o);
    CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, odd[i].why) && o.elapsed < 0.5,
          i ? "file: a marker that is junk fails rank 0 at once"
            : "file: a marker past the world fails rank 0 at once");
    empty_dir(dir);
  }

  /* Rank 1 twice: the second fails at once, the first joins rank 0. */
  child first = start((call){FILES, path, 0, 1, 2, 3.0, 0, id});
  pause_s(0.5); /* its marker is there */
  o = run_call(&(call){FILES, path, 0, 1, 2, 3.0, 0, id});
  show("second rank 1", &o);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, "rank 1 joined twice") && o.elapsed < 0.5 &&
            o.id_kept,
        "file: a rank joining twice fails at once");
  o = run_call(&(call){FILES, path, 0, 0, 2, 3.0, 0, id});
  outcome f = finish(first);
  CHECK(o.status == CUARR_OK && f.status == CUARR_OK && f.id_ok,
        "file: a rank joining twice: the first one still joins");
  empty_dir(dir);

  /* No rank 0. */
  o = run_call(&(call){FILES, path, 0, 1, 2, 0.5, 0, id});
  show("rank 1", &o);
  snprintf(want, sizeof want, "rank 0 did not answer at %s within 0.5 s", path);
  CHECK(o.status == CUARR_DISTRIBUTED_ERROR && has(&o, want) && o.id_kept,
        "file: no rank 0: DistributedError naming the path and the timeout");
  CHECK(o.elapsed > 0.45 && o.elapsed < 2.5, "file: no rank 0: it gives up at the timeout");
  CHECK(others_in(dir, NULL) == 0, "file: no rank 0: the marker is removed");

  /* A directory that is not there. */
  snprintf(path, sizeof path, "%s/not-there/id", dir);
  o = run_call(&(call){FILES, path, 0, 0, 2, 1.0, 0, id});
  show("rank 0", &o);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "cannot create files in") && o.elapsed < 0.5,
        "file: rank 0 in a missing directory: ValueError at once");
  o = run_call(&(call){FILES, path, 0, 1, 2, 1.0, 0, id});
  show("rank 1", &o);
  CHECK(o.status == CUARR_VALUE_ERROR && has(&o, "cannot create its marker") && o.elapsed < 0.5,
        "file: rank 1 in a missing directory: ValueError at once");
}

/* ------------------------------------------------------------------------------------------ */
/* Two ranks as threads of one process: no state is shared between calls */

typedef struct thread_rank {
  call c;
  cuarr_status status;
  unsigned char buf[ID_BYTES];
} thread_rank;

static void *thread_main(void *arg) {
  thread_rank *t = arg;
  memset(t->buf, 0xEE, ID_BYTES);
  t->status =
      t->c.kind == TCP
          ? cuarr_rendezvous_tcp(t->c.where, t->c.port, t->c.rank, t->c.world, t->c.timeout, t->buf)
          : cuarr_rendezvous_file(t->c.where, t->c.rank, t->c.world, t->c.timeout, t->buf);
  return NULL;
}

static void threads(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/threads", dir);
  for (int kind = TCP; kind <= FILES; kind++) {
    unsigned char id[ID_BYTES];
    make_id(id, 140u + (unsigned)kind);
    int port = free_port(AF_INET);
    const char *where = kind == TCP ? "127.0.0.1" : path;
    thread_rank t[2] = {{.c = {kind, where, port, 1, 3, 5.0, 0, id}},
                        {.c = {kind, where, port, 2, 3, 5.0, 0, id}}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
      pthread_create(&th[i], NULL, thread_main, &t[i]);
    unsigned char mine[ID_BYTES];
    memcpy(mine, id, ID_BYTES);
    cuarr_status st = kind == TCP ? cuarr_rendezvous_tcp(where, port, 0, 3, 5.0, mine)
                                  : cuarr_rendezvous_file(where, 0, 3, 5.0, mine);
    for (int i = 0; i < 2; i++)
      pthread_join(th[i], NULL);
    CHECK(st == CUARR_OK && t[0].status == CUARR_OK && t[1].status == CUARR_OK &&
              !memcmp(t[0].buf, id, ID_BYTES) && !memcmp(t[1].buf, id, ID_BYTES),
          kind == TCP ? "tcp: three ranks as threads of one process"
                      : "file: three ranks as threads of one process");
  }
  unlink(path);
}

int main(void) {
  double t0 = now();
  bad_arguments();
  tcp_worlds();
  tcp_missing();
  tcp_bad_joins();
  tcp_peers();
  tcp_fake_servers();
  tcp_no_server();
  tcp_addresses();
  char dir[] = "/tmp/cuarr_rendezvous_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }
  file_worlds(dir);
  file_failures(dir);
  threads(dir);
  empty_dir(dir);
  CHECK(rmdir(dir) == 0, "file: the test's directory is empty at the end");
  CHECK(fds_leaked == 0, "no call, of any rank, left a descriptor open");
  printf("# %.1f s\n", now() - t0);
  return ctest_done();
}
