/*
 * rendezvous.h -- handing rank 0's NCCL unique id to every other rank of a job of one process
 * per GPU, before they all call ncclCommInitRank.
 *
 * The id is 128 opaque bytes; nothing here knows NCCL or CUDA.  Two ways, both bounded by a
 * timeout and both ending with every rank knowing the whole world joined:
 *
 *  - TCP (rendezvous_tcp.c): rank 0 listens at host:port; each other rank connects, says who it
 *    is, and is answered with the id once all have checked in.  Nothing is left behind.
 *  - Files (rendezvous_file.c): through a path on a file system all ranks see.  The path must be
 *    one no earlier job used (a launcher makes a fresh temporary directory per job): a stale id
 *    file is never taken (each rank checks that the file names it), but a stale marker makes that
 *    rank fail as a duplicate.  The id file itself stays behind for the launcher to remove: rank 0
 *    cannot know when the last rank has read it.
 *
 * Errors (cuarr_last_error() has the words): CUARR_VALUE_ERROR for bad arguments and for an
 * address that does not resolve, a port that cannot be bound, a directory that cannot be
 * written; CUARR_DISTRIBUTED_ERROR for a job that does not come together: a timeout (naming the
 * ranks that did not join), a mismatch of world sizes, a rank that joined twice, a peer that went
 * away, and, on the other ranks, rank 0's own failure (its reason quoted).  Both functions are
 * thread-safe (no shared state) and release every socket, file and allocation on every path.
 */
#ifndef CUARR_COMM_RENDEZVOUS_H
#define CUARR_COMM_RENDEZVOUS_H

#include "cuarr.h"

#define CUARR_RENDEZVOUS_ID_BYTES 128

/* Rank 0 (which made id) serves it at host:port (binding that address; host NULL or "" = all
 * interfaces, IPv4 and IPv6) until all world-1 other ranks have connected and checked in; every
 * other rank connects to host:port (host NULL or "" = this machine's loopback), retrying while
 * refused, until the deadline, and receives id.  On return every rank has joined: rank 0 knows
 * all others checked in, the others know rank 0 saw all.  world == 1 returns at once, once the
 * arguments are checked, without a socket.  Name resolution (getaddrinfo) is the one step the
 * timeout does not bound: the resolver's own limits (resolv.conf) apply to it.
 *
 * Fatal for rank 0 (it answers every connected rank with the reason, then fails): a rank whose
 * world size differs, a rank outside 1..world-1, a rank joining twice, a rank that checked in and
 * then closed its connection or sent more than its header, too many open files.  Not fatal
 * (answered and dropped, rank 0 keeps waiting): a connection that closes before it has sent a
 * whole header, or whose header does not begin with the protocol's magic: not a cuarr rank. */
cuarr_status cuarr_rendezvous_tcp(const char *host, int port, int rank, int world, double timeout_s,
                                  unsigned char id[CUARR_RENDEZVOUS_ID_BYTES]);

/* The same through files on a shared path (several hosts with a shared file system, or one host):
 * every rank > 0 creates a marker `<path>.rank<r>` (exclusively: a second process as rank r
 * fails) holding its world size and a random number of its own; rank 0 removes a stale <path>,
 * waits for all markers, then writes id with every rank's number to <path> atomically (a
 * temporary, renamed) and removes the markers; the others wait for a <path> that carries their
 * number.  On a world mismatch or a timeout rank 0 writes an error record to <path> instead, so
 * that the waiting ranks fail with its reason rather than at their own timeout.  Polls every
 * 15 ms. */
cuarr_status cuarr_rendezvous_file(const char *path, int rank, int world, double timeout_s,
                                   unsigned char id[CUARR_RENDEZVOUS_ID_BYTES]);

#endif
