/*
 * rendezvous_socket.h -- TCP sockets for the rendezvous (rendezvous_tcp.c) where every wait has a
 * deadline: non-blocking sockets that never raise SIGPIPE, whole sends and receives that poll
 * with the time left and go on after partial transfers and signals, connecting, and resolving
 * names (IPv4 and IPv6 alike, through getaddrinfo).
 */
#ifndef CUARR_COMM_RENDEZVOUS_SOCKET_H
#define CUARR_COMM_RENDEZVOUS_SOCKET_H

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "rendezvous_common.h"

/* How a whole send or receive ended; on CUARR_RV_IO_FAILED *err has the errno. */
typedef enum {
  CUARR_RV_IO_DONE,
  CUARR_RV_IO_CLOSED, /* the peer closed before all bytes came */
  CUARR_RV_IO_TIMEOUT,
  CUARR_RV_IO_FAILED,
} cuarr_rv_io;

/* A TCP socket of that family, non-blocking, closed on exec, that never raises SIGPIPE; -1 with
 * errno set on failure. */
int cuarr_rv_socket(int family);
/* Make an accepted socket the same; 0, or -1 with errno set. */
int cuarr_rv_prepare(int fd);

/* Send or receive all n bytes by the deadline. */
cuarr_rv_io cuarr_rv_send_all(int fd, const void *buf, size_t n, double deadline, int *err);
cuarr_rv_io cuarr_rv_recv_all(int fd, void *buf, size_t n, double deadline, int *err);

/* Connect to one address, waiting for the handshake until the deadline but no more than
 * wait_cap seconds (a host that drops packets must not hold up the other addresses).  The
 * connected socket, or -1 with *err the reason (ETIMEDOUT when the wait ran out). */
int cuarr_rv_connect(const struct addrinfo *a, double deadline, double wait_cap, int *err);

/* getaddrinfo for TCP at host:port (passive: to listen on; host NULL or "" is then every
 * interface, else the loopback).  A failure is CUARR_VALUE_ERROR naming `where`. */
cuarr_status cuarr_rv_resolve(const char *host, int port, bool passive, const char *where,
                              struct addrinfo **out);

/* "host:port", "[v6::addr]:port", or "<empty>:port" where host is NULL or "". */
void cuarr_rv_label(const char *host, int port, const char *empty, char *buf, size_t size);
/* The numeric address of a resolved one, for messages. */
void cuarr_rv_numeric(const struct addrinfo *a, char *buf, size_t size);

#endif
