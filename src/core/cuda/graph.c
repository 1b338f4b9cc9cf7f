/*
 * graph.c -- CUDA graphs captured from a stream: begin and end a capture, instantiate, launch,
 * free; the memory the graph uses is kept by an owning pool hold (pool.c) until the free.
 *
 * A thread-local count of the captures open on this thread lets every synchronising call refuse
 * at the cost of one load, before the driver sees it (the driver would invalidate the capture,
 * or fail with a less helpful error).  Thread-local because that is how far CUDA's default
 * capture mode reaches: another thread's synchronisation does not touch this thread's capture.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

_Thread_local int cuarr_captures_open;

struct cuarr_graph {
  CUstream stream; /* the capturing stream */
  int device;
  bool capturing;
  CUgraph graph;
  CUgraphExec exec;
  size_t nodes;
  CUevent last_launch; /* recorded after each launch, waited for by the free */
  bool launched;
  cuarr_hold *hold;
  cuarr_graph *next_pending; /* freed during a capture: on the pending list */
};

#define CHECKED(fn, ...) CUARR_TRY(cuarr_cu_check(cuarr_cu.fn(__VA_ARGS__), #fn))

cuarr_status cuarr_capture_refused(const char *what) {
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "%s cannot run during graph capture (it would wait for work that is only "
                    "being recorded); end the capture first",
                    what);
}

bool cuarr_capturing(void) { return cuarr_captures_open > 0; }

cuarr_capture_mode_saved cuarr_capture_relax(void) {
  cuarr_capture_mode_saved saved = {false, CU_STREAM_CAPTURE_MODE_RELAXED};
  if (cuarr_captures_open &&
      cuarr_cu.cuThreadExchangeStreamCaptureMode(&saved.mode) == CUDA_SUCCESS)
    saved.switched = true;
  return saved;
}

void cuarr_capture_restore(cuarr_capture_mode_saved saved) {
  if (saved.switched)
    cuarr_cu.cuThreadExchangeStreamCaptureMode(&saved.mode);
}

/* Graphs freed while their thread captured: destroyed at the next free outside a capture. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static cuarr_graph *pending;
static void destroy_pending(void);

static cuarr_status capture_mode(cuarr_capture_mode mode, CUstreamCaptureMode *out) {
  switch (mode) {
  case CUARR_CAPTURE_GLOBAL: *out = CU_STREAM_CAPTURE_MODE_GLOBAL; return CUARR_OK;
  case CUARR_CAPTURE_THREAD_LOCAL: *out = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL; return CUARR_OK;
  case CUARR_CAPTURE_RELAXED: *out = CU_STREAM_CAPTURE_MODE_RELAXED; return CUARR_OK;
  }
  return cuarr_fail(CUARR_VALUE_ERROR, "unknown capture mode %d", (int)mode);
}

cuarr_status cuarr_graph_begin_capture(const cuarr_stream *s, cuarr_capture_mode mode,
                                       cuarr_graph **out) {
  CUstreamCaptureMode cu_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  CUARR_TRY(capture_mode(mode, &cu_mode));
  if (!s || !s->handle)
    return cuarr_fail(CUARR_VALUE_ERROR, "the null stream cannot be captured (the legacy default "
                                         "stream synchronises with every other): capture on a "
                                         "cuarr.Stream{non_blocking = true}");
  CUARR_TRY(cuarr_device_activate(s->device));
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CHECKED(cuStreamIsCapturing, (CUstream)s->handle, &status);
  if (status != CU_STREAM_CAPTURE_STATUS_NONE)
    return cuarr_fail(CUARR_VALUE_ERROR, "the stream is already capturing a graph");
  cuarr_pool *pool = cuarr_device_pool(s->device);
  if (!pool)
    return CUARR_OUT_OF_MEMORY; /* the error is set */
  cuarr_graph *g = calloc(1, sizeof *g);
  if (!g)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory beginning a graph capture");
  g->stream = (CUstream)s->handle;
  g->device = s->device;
  cuarr_status st = cuarr_cu_check(cuarr_cu.cuEventCreate(&g->last_launch, CU_EVENT_DISABLE_TIMING),
                                   "cuEventCreate");
  if (st == CUARR_OK)
    st = cuarr_hold_begin(pool, true, s->handle, &g->hold);
  if (st == CUARR_OK)
    st = cuarr_cu_check(cuarr_cu.cuStreamBeginCapture(g->stream, cu_mode), "cuStreamBeginCapture");
  if (st != CUARR_OK) {
    cuarr_hold_release(g->hold);
    if (g->last_launch)
      cuarr_cu.cuEventDestroy(g->last_launch);
    free(g);
    return st;
  }
  g->capturing = true;
  cuarr_captures_open++;
  *out = g;
  return CUARR_OK;
}

cuarr_status cuarr_graph_end_capture(cuarr_graph *g) {
  if (!g || !g->capturing)
    return cuarr_fail(CUARR_VALUE_ERROR, "no graph capture is open on this stream");
  CUARR_TRY(cuarr_device_activate(g->device));
  CUgraph graph = NULL;
  CUresult r = cuarr_cu.cuStreamEndCapture(g->stream, &graph);
  /* The capture is over whatever the driver said: the stream is usable again. */
  g->capturing = false;
  cuarr_captures_open--;
  cuarr_hold_end(g->hold);
  if (!cuarr_captures_open)
    destroy_pending();
  if (r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
    if (graph)
      cuarr_cu.cuGraphDestroy(graph);
    return cuarr_fail(CUARR_CUDA_ERROR,
                      "the graph capture was invalidated by the driver "
                      "(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED): an operation that cannot be "
                      "captured ran while it was open (a synchronisation, work on the legacy "
                      "null stream, or a call another thread made in the global capture mode)");
  }
  if (r != CUDA_SUCCESS) {
    if (graph)
      cuarr_cu.cuGraphDestroy(graph);
    return cuarr_cu_check(r, "cuStreamEndCapture");
  }
  g->graph = graph;
  size_t n = 0;
  CHECKED(cuGraphGetNodes, graph, NULL, &n);
  g->nodes = n;
  CHECKED(cuGraphInstantiateWithFlags, &g->exec, graph, 0);
  return CUARR_OK;
}

cuarr_status cuarr_graph_launch(cuarr_graph *g, const cuarr_stream *s) {
  if (!g)
    return cuarr_fail(CUARR_VALUE_ERROR, "no graph given");
  if (g->capturing)
    return cuarr_fail(CUARR_VALUE_ERROR, "the graph is still being captured: end the capture "
                                         "before launching it");
  if (!g->exec)
    return cuarr_fail(CUARR_VALUE_ERROR, "the graph's capture failed: there is nothing to launch");
  if (s && s->device != g->device)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "a graph captured on device %d cannot be launched on a stream of device %d",
                      g->device, s->device);
  CUARR_TRY(cuarr_device_activate(g->device));
  CUstream stream = s ? (CUstream)s->handle : NULL;
  CHECKED(cuGraphLaunch, g->exec, stream);
  CHECKED(cuEventRecord, g->last_launch, stream);
  g->launched = true;
  return CUARR_OK;
}

/* Wait for the last launch, destroy the driver's objects, give back the memory. */
static void destroy(cuarr_graph *g) {
  if (cuarr_device_activate(g->device) == CUARR_OK) {
    if (g->launched)
      cuarr_cu.cuEventSynchronize(g->last_launch);
    if (g->exec)
      cuarr_cu.cuGraphExecDestroy(g->exec);
    if (g->graph)
      cuarr_cu.cuGraphDestroy(g->graph);
    cuarr_cu.cuEventDestroy(g->last_launch);
  }
  cuarr_hold_release(g->hold);
  free(g);
}

static void destroy_pending(void) {
  pthread_mutex_lock(&pending_lock);
  cuarr_graph *list = pending;
  pending = NULL;
  pthread_mutex_unlock(&pending_lock);
  while (list) {
    cuarr_graph *next = list->next_pending;
    destroy(list);
    list = next;
  }
}

cuarr_status cuarr_graph_free(cuarr_graph *g) {
  if (!g)
    return CUARR_OK;
  if (g->capturing) { /* abandoned mid-capture: end it and drop what was recorded */
    CUgraph graph = NULL;
    if (cuarr_device_activate(g->device) == CUARR_OK &&
        cuarr_cu.cuStreamEndCapture(g->stream, &graph) == CUDA_SUCCESS && graph)
      cuarr_cu.cuGraphDestroy(graph);
    g->capturing = false;
    cuarr_captures_open--;
  }
  if (cuarr_captures_open) {
    /* Waiting for the last launch would break this thread's capture; the graph's memory is
     * safe meanwhile (the open capture's hold takes anything released). */
    pthread_mutex_lock(&pending_lock);
    g->next_pending = pending;
    pending = g;
    pthread_mutex_unlock(&pending_lock);
    return CUARR_OK;
  }
  destroy(g);
  destroy_pending();
  return CUARR_OK;
}

bool cuarr_graph_capturing(const cuarr_graph *g) { return g && g->capturing; }

size_t cuarr_graph_node_count(const cuarr_graph *g) { return g ? g->nodes : 0; }

void *cuarr_graph_stream(const cuarr_graph *g) { return g ? (void *)g->stream : NULL; }
