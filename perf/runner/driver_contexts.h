/* Extra CUDA contexts on one device, made with the driver API (cuCtxCreate) and
 * reached through the runtime's entry points, so nothing links against libcuda.
 * The runtime launches into whichever context is current on the calling thread;
 * memory, streams, events and modules belong to the context they were made in. */
#ifndef PERF_RUNNER_DRIVER_CONTEXTS_H
#define PERF_RUNNER_DRIVER_CONTEXTS_H

#include <stddef.h>

/* An opaque CUcontext. */
typedef void *driver_context;

/* The context current on this thread (the runtime's primary context once the
 * runtime is initialised); 0, or -1 with a message. */
int driver_context_current(driver_context *ctx, char *err, size_t errlen);
/* A new context on CUDA device `device` (a runtime ordinal), current from now on. */
int driver_context_create(int device, driver_context *ctx, char *err, size_t errlen);
int driver_context_set_current(driver_context ctx, char *err, size_t errlen);
/* Destroys a context made by driver_context_create; what was made in it goes with it. */
int driver_context_destroy(driver_context ctx, char *err, size_t errlen);

#endif
