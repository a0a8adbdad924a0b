#include "perf/runner/driver_contexts.h"

#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

typedef CUresult (*ctx_create_fn)(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);
typedef CUresult (*ctx_fn)(CUcontext);
typedef CUresult (*ctx_get_fn)(CUcontext *);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*error_name_fn)(CUresult, const char **);

/* The driver functions of CUDA 13's ABI; looked up once. */
static struct {
  int loaded;
  ctx_create_fn create;
  ctx_fn set_current, destroy;
  ctx_get_fn get_current;
  device_get_fn device_get;
  error_name_fn error_name;
} drv;

static int lookup(const char *name, void **fn, char *err, size_t errlen) {
  enum cudaDriverEntryPointQueryResult found;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 13000, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !*fn) {
    snprintf(err, errlen, "the CUDA driver has no %s (%s, query result %d): a driver for CUDA 13 or newer is needed",
             name, e != cudaSuccess ? cudaGetErrorString(e) : "found nothing", (int)found);
    return -1;
  }
  return 0;
}

static int load(char *err, size_t errlen) {
  if (drv.loaded) return 0;
  if (lookup("cuCtxCreate", (void **)&drv.create, err, errlen) ||
      lookup("cuCtxSetCurrent", (void **)&drv.set_current, err, errlen) ||
      lookup("cuCtxDestroy", (void **)&drv.destroy, err, errlen) ||
      lookup("cuCtxGetCurrent", (void **)&drv.get_current, err, errlen) ||
      lookup("cuDeviceGet", (void **)&drv.device_get, err, errlen) ||
      lookup("cuGetErrorName", (void **)&drv.error_name, err, errlen))
    return -1;
  drv.loaded = 1;
  return 0;
}

static int driver_fail(const char *call, CUresult r, char *err, size_t errlen) {
  const char *name = NULL;
  if (drv.error_name(r, &name) != CUDA_SUCCESS || !name) name = "unknown error";
  snprintf(err, errlen, "%s: %s (CUresult %d)", call, name, (int)r);
  return -1;
}

int driver_context_current(driver_context *ctx, char *err, size_t errlen) {
  if (load(err, errlen)) return -1;
  CUcontext c = NULL;
  CUresult r = drv.get_current(&c);
  if (r != CUDA_SUCCESS) return driver_fail("cuCtxGetCurrent", r, err, errlen);
  if (!c) {
    snprintf(err, errlen, "cuCtxGetCurrent: no context is current (the runtime is not initialised yet)");
    return -1;
  }
  *ctx = c;
  return 0;
}

int driver_context_create(int device, driver_context *ctx, char *err, size_t errlen) {
  if (load(err, errlen)) return -1;
  CUdevice dev;
  CUresult r = drv.device_get(&dev, device);
  if (r != CUDA_SUCCESS) return driver_fail("cuDeviceGet", r, err, errlen);
  CUctxCreateParams params;
  memset(&params, 0, sizeof params);
  CUcontext c = NULL;
  if ((r = drv.create(&c, &params, 0, dev)) != CUDA_SUCCESS) return driver_fail("cuCtxCreate", r, err, errlen);
  *ctx = c;
  return 0;
}

int driver_context_set_current(driver_context ctx, char *err, size_t errlen) {
  if (load(err, errlen)) return -1;
  CUresult r = drv.set_current((CUcontext)ctx);
  return r == CUDA_SUCCESS ? 0 : driver_fail("cuCtxSetCurrent", r, err, errlen);
}

int driver_context_destroy(driver_context ctx, char *err, size_t errlen) {
  if (load(err, errlen)) return -1;
  CUresult r = drv.destroy((CUcontext)ctx);
  return r == CUDA_SUCCESS ? 0 : driver_fail("cuCtxDestroy", r, err, errlen);
}
