/*
 * peer.c -- peer access between two devices' primary contexts, enabled once per ordered pair.
 *
 * cuMemcpyPeerAsync works without it, but then the driver may stage the bytes through host
 * memory; with it the copy engines move them over NVLink or PCIe directly, and a kernel on one
 * device may read the other's memory.  Enabling is best effort: where the driver says the pair
 * cannot (cuDeviceCanAccessPeer), or refuses (too many peers), copies take the driver's
 * staged path as before.  Another library sharing the primary contexts (NCCL's runtime, an
 * engine's) may have enabled it first: CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED counts as done.
 */
#include <pthread.h>

#include "internal.h"

enum { UNTRIED, ENABLED, UNAVAILABLE };
static unsigned char state[CUARR_MAX_DEVICES][CUARR_MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool try_enable(int device, int peer) {
  bool can = false;
  if (cuarr_device_can_access_peer(device, peer, &can) != CUARR_OK || !can)
    return false;
  CUcontext peer_ctx = NULL, saved = NULL;
  if (cuarr_device_context(peer, &peer_ctx) != CUARR_OK)
    return false;
  if (cuarr_device_context_push(device, &saved) != CUARR_OK)
    return false;
  CUresult r = cuarr_cu.cuCtxEnablePeerAccess(peer_ctx, 0);
  cuarr_device_context_pop(saved);
  return r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}

bool cuarr_peer_enable(int device, int peer) {
  if (device == peer || device < 0 || peer < 0 || device >= CUARR_MAX_DEVICES ||
      peer >= CUARR_MAX_DEVICES)
    return false;
  pthread_mutex_lock(&lock);
  if (state[device][peer] == UNTRIED)
    state[device][peer] = try_enable(device, peer) ? ENABLED : UNAVAILABLE;
  bool on = state[device][peer] == ENABLED;
  pthread_mutex_unlock(&lock);
  return on;
}
