/*
 * rendezvous_socket.c -- TCP sockets whose every wait has a deadline (rendezvous_socket.h).
 *
 * Everything is non-blocking and waits in poll() with the milliseconds left, so a peer that
 * stops answering costs at most the timeout; EINTR restarts the call (a signal meant for the
 * program must not end a rendezvous).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rendezvous_socket.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* where it is missing (macOS), SO_NOSIGPIPE is set on the socket */
#endif

int cuarr_rv_prepare(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
    return -1;
#ifdef SO_NOSIGPIPE
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one) < 0)
    return -1;
#endif
  return 0;
}

int cuarr_rv_socket(int family) {
  int fd = socket(family, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  if (cuarr_rv_prepare(fd) < 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* Wait for `events` on fd until the deadline: 1 ready, 0 timed out, -1 failed (errno). */
static int wait_for(int fd, short events, double deadline) {
  for (;;) {
    struct pollfd p = {fd, events, 0};
    int n = poll(&p, 1, cuarr_rv_ms_left(deadline));
    if (n >= 0)
      return n > 0 ? 1 : 0;
    if (errno != EINTR)
      return -1;
  }
}

cuarr_rv_io cuarr_rv_send_all(int fd, const void *buf, size_t n, double deadline, int *err) {
  const unsigned char *p = buf;
  while (n > 0) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return CUARR_RV_IO_FAILED;
    }
    int w = wait_for(fd, POLLOUT, deadline);
    if (w == 0)
      return CUARR_RV_IO_TIMEOUT;
    if (w < 0) {
      *err = errno;
      return CUARR_RV_IO_FAILED;
    }
  }
  return CUARR_RV_IO_DONE;
}

cuarr_rv_io cuarr_rv_recv_all(int fd, void *buf, size_t n, double deadline, int *err) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t k = recv(fd, p, n, 0);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k == 0)
      return CUARR_RV_IO_CLOSED;
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return CUARR_RV_IO_FAILED;
    }
    int w = wait_for(fd, POLLIN, deadline);
    if (w == 0)
      return CUARR_RV_IO_TIMEOUT;
    if (w < 0) {
      *err = errno;
      return CUARR_RV_IO_FAILED;
    }
  }
  return CUARR_RV_IO_DONE;
}

/* Linux lets a connect to a port of this machine with nobody listening pick that very port as
 * its own and connect the socket to itself (TCP's simultaneous open): likely enough over many
 * retries to a port in the ephemeral range, and the rank would then read back its own header. */
static bool connected_to_itself(int fd) {
  struct sockaddr_storage mine, theirs;
  socklen_t m = sizeof mine, t = sizeof theirs;
  return getsockname(fd, (struct sockaddr *)&mine, &m) == 0 &&
         getpeername(fd, (struct sockaddr *)&theirs, &t) == 0 && m == t &&
         !memcmp(&mine, &theirs, m);
}

int cuarr_rv_connect(const struct addrinfo *a, double deadline, double wait_cap, int *err) {
  int fd = cuarr_rv_socket(a->ai_family);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  /* A connect interrupted by a signal goes on in the background, as one in progress does. */
  int w = 1, so_error = 0;
  if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) {
      *err = errno;
      close(fd);
      return -1;
    }
    double until = cuarr_rv_now() + wait_cap;
    w = wait_for(fd, POLLOUT, until < deadline ? until : deadline);
    socklen_t len = sizeof so_error;
    if (w == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0)
      so_error = errno;
  }
  if (w == 1 && so_error == 0 && !connected_to_itself(fd))
    return fd;
  *err = w == 0 ? ETIMEDOUT : w < 0 ? errno : so_error ? so_error : ECONNREFUSED;
  close(fd);
  return -1;
}

cuarr_status cuarr_rv_resolve(const char *host, int port, bool passive, const char *where,
                              struct addrinfo **out) {
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  *out = NULL;
  int rc = getaddrinfo(host && *host ? host : NULL, service, &hints, out);
  if (rc == 0 && *out)
    return CUARR_OK;
  if (rc == 0) {
    freeaddrinfo(*out);
    *out = NULL;
  }
  char buf[128];
  const char *why = rc == 0            ? "no address"
                    : rc == EAI_SYSTEM ? cuarr_rv_strerror(errno, buf, sizeof buf)
                                       : gai_strerror(rc);
  return cuarr_fail(CUARR_VALUE_ERROR, "%s: the address %s does not resolve: %s", where,
                    host && *host ? host : "(none)", why);
}

void cuarr_rv_label(const char *host, int port, const char *empty, char *buf, size_t size) {
  if (!host || !*host)
    snprintf(buf, size, "%s:%d", empty, port);
  else if (strchr(host, ':'))
    snprintf(buf, size, "[%s]:%d", host, port);
  else
    snprintf(buf, size, "%s:%d", host, port);
}

void cuarr_rv_numeric(const struct addrinfo *a, char *buf, size_t size) {
  if (getnameinfo(a->ai_addr, a->ai_addrlen, buf, (socklen_t)size, NULL, 0, NI_NUMERICHOST) != 0)
    snprintf(buf, size, "?");
}
