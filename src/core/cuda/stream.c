/*
 * stream.c -- streams and events.
 *
 * Every call first makes the object's device current: the null stream (handle NULL) means the
 * current context's, and the driver wants the owning context current for most stream and event
 * work anyway.
 */
#include "internal.h"

/* A driver call whose failure names the function alone, not its argument expressions. */
#define CHECKED(fn, ...) CUARR_TRY(cuarr_cu_check(cuarr_cu.fn(__VA_ARGS__), #fn))

static cuarr_status need_stream(const cuarr_stream *s) {
  if (!s)
    return cuarr_fail(CUARR_VALUE_ERROR, "no stream given");
  return CUARR_OK;
}

/* A destroyed event has handle NULL; using it is a caller's mistake, not the driver's. */
static cuarr_status need_event(const cuarr_event *e) {
  if (!e)
    return cuarr_fail(CUARR_VALUE_ERROR, "no event given");
  if (!e->handle)
    return cuarr_fail(CUARR_VALUE_ERROR, "the event has been destroyed");
  return CUARR_OK;
}

/* The answer of a query (cuStreamQuery, cuEventQuery) named fn: CUDA_ERROR_NOT_READY is "not
 * done yet", not a failure. */
static cuarr_status query_done(CUresult r, const char *fn, bool *done) {
  if (r == CUDA_ERROR_NOT_READY) {
    *done = false;
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_cu_check(r, fn));
  *done = true;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- streams */

cuarr_status cuarr_stream_priority_range(int device, int *least, int *greatest) {
  CUARR_TRY(cuarr_device_activate(device));
  int lo = 0, hi = 0;
  CHECKED(cuCtxGetStreamPriorityRange, &lo, &hi);
  *least = lo;
  *greatest = hi;
  return CUARR_OK;
}

cuarr_status cuarr_stream_create(int device, bool non_blocking, int priority, cuarr_stream *out) {
  int least = 0, greatest = 0;
  CUARR_TRY(cuarr_stream_priority_range(device, &least, &greatest));
  /* Lower numbers are greater priorities: the range runs from greatest (e.g. -5) to least (0).
   * Reject rather than let the driver clamp silently. */
  if (priority < greatest || priority > least)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "stream priority %d is outside device %d's range %d (greatest) to %d (least)",
                      priority, device, greatest, least);
  CUstream h = NULL;
  unsigned flags = non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
  CHECKED(cuStreamCreateWithPriority, &h, flags, priority);
  out->handle = h;
  out->device = device;
  out->priority = priority;
  out->non_blocking = non_blocking;
  return CUARR_OK;
}

cuarr_status cuarr_stream_destroy(cuarr_stream *s) {
  if (!s || !s->handle)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(s->device));
  CUstream h = (CUstream)s->handle;
  /* Forget the handle even if the driver complains: it is no use afterwards, and a second
   * destroy must not reach the driver again. */
  s->handle = NULL;
  CHECKED(cuStreamDestroy, h);
  return CUARR_OK;
}

cuarr_status cuarr_stream_synchronize(const cuarr_stream *s) {
  CUARR_REFUSE_IN_CAPTURE("stream synchronize");
  CUARR_TRY(need_stream(s));
  CUARR_TRY(cuarr_device_activate(s->device));
  CHECKED(cuStreamSynchronize, (CUstream)s->handle);
  return cuarr_comm_failure_check();
}

cuarr_status cuarr_stream_query(const cuarr_stream *s, bool *done) {
  CUARR_TRY(need_stream(s));
  CUARR_TRY(cuarr_device_activate(s->device));
  return query_done(cuarr_cu.cuStreamQuery((CUstream)s->handle), "cuStreamQuery", done);
}

/* The event may belong to another device: CUDA lets a stream wait on any context's event. */
cuarr_status cuarr_stream_wait_event(const cuarr_stream *s, const cuarr_event *e) {
  CUARR_TRY(need_stream(s));
  CUARR_TRY(need_event(e));
  CUARR_TRY(cuarr_device_activate(s->device));
  CHECKED(cuStreamWaitEvent, (CUstream)s->handle, (CUevent)e->handle, 0);
  return CUARR_OK;
}

/* ---------------------------------------------------------------- events */

cuarr_status cuarr_event_create(int device, bool timing, bool blocking, cuarr_event *out) {
  CUARR_TRY(cuarr_device_activate(device));
  unsigned flags = CU_EVENT_DEFAULT;
  if (!timing)
    flags |= CU_EVENT_DISABLE_TIMING;
  if (blocking)
    flags |= CU_EVENT_BLOCKING_SYNC;
  CUevent h = NULL;
  CHECKED(cuEventCreate, &h, flags);
  out->handle = h;
  out->device = device;
  out->timing = timing;
  out->blocking = blocking;
  return CUARR_OK;
}

cuarr_status cuarr_event_destroy(cuarr_event *e) {
  if (!e || !e->handle)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(e->device));
  CUevent h = (CUevent)e->handle;
  e->handle = NULL; /* as in cuarr_stream_destroy */
  CHECKED(cuEventDestroy, h);
  return CUARR_OK;
}

/* s NULL: the null stream of the event's device. */
cuarr_status cuarr_event_record(const cuarr_event *e, const cuarr_stream *s) {
  CUARR_TRY(need_event(e));
  if (s && s->device != e->device)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "an event of device %d cannot be recorded on a stream of device %d",
                      e->device, s->device);
  CUARR_TRY(cuarr_device_activate(e->device));
  CHECKED(cuEventRecord, (CUevent)e->handle, s ? (CUstream)s->handle : NULL);
  return CUARR_OK;
}

cuarr_status cuarr_event_synchronize(const cuarr_event *e) {
  CUARR_REFUSE_IN_CAPTURE("event synchronize");
  CUARR_TRY(need_event(e));
  CUARR_TRY(cuarr_device_activate(e->device));
  CHECKED(cuEventSynchronize, (CUevent)e->handle);
  return cuarr_comm_failure_check();
}

cuarr_status cuarr_event_query(const cuarr_event *e, bool *done) {
  CUARR_TRY(need_event(e));
  CUARR_TRY(cuarr_device_activate(e->device));
  return query_done(cuarr_cu.cuEventQuery((CUevent)e->handle), "cuEventQuery", done);
}

/* An event not yet recorded, or not yet reached, is the driver's error (CUDAError), as in
 * CuPy. */
cuarr_status cuarr_event_elapsed_ms(const cuarr_event *start, const cuarr_event *end, float *ms) {
  CUARR_TRY(need_event(start));
  CUARR_TRY(need_event(end));
  if (!start->timing || !end->timing)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "elapsed time needs two timing events (the %s event "
                      "was created with timing disabled)",
                      !start->timing ? "start" : "end");
  CUARR_TRY(cuarr_device_activate(start->device));
  float t = 0;
  CHECKED(cuEventElapsedTime, &t, (CUevent)start->handle, (CUevent)end->handle);
  *ms = t;
  return CUARR_OK;
}
