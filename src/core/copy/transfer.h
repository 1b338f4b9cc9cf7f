/* transfer.h -- what the host<->device transfer files of copy/ share: deferred releases of
 * staging buffers and byte copies. */
#ifndef CUARR_TRANSFER_H
#define CUARR_TRANSFER_H

#include "internal.h"

/* Keep b referenced until the work queued so far on stream (of device) has completed. */
cuarr_status cuarr_defer_release(cuarr_buffer *b, CUstream stream);
/* Drop the references whose work has completed.  Cheap when nothing is pending. */
void cuarr_defer_poll(void);

/* Byte copies between host and device memory of one device, on stream.  Pageable host memory
 * is staged through the pinned pool in chunks, with the memcpy of one chunk overlapping the
 * DMA of the next; those calls have completed on return.  Pinned host memory is copied
 * asynchronously. */
cuarr_status cuarr_upload(int device, CUstream stream, void *dst, const void *src, size_t n,
                          bool src_pinned);
cuarr_status cuarr_download(int device, CUstream stream, void *dst, const void *src, size_t n,
                            bool dst_pinned);

/* At most CUARR_READ_BACK_MAX bytes from device memory at src into dst, after the work queued
 * on stream, through a kernel writing mapped pinned memory (read_back.c); done on return.
 * CUARR_NOT_AVAILABLE when that path is closed (the caller then copies with the DMA engine). */
#define CUARR_READ_BACK_MAX 256
cuarr_status cuarr_read_back(int device, CUstream stream, void *dst, const void *src, size_t n);

#endif
