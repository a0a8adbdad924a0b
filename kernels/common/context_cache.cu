// What belongs to one CUDA context (context_cache.h): its cuBLAS handle, pinned host scratch and
// device workspace per stream; and the one cuBLAS status -> CUDA error mapping.
#include <pthread.h>
#include <string.h>

#include <cudaTypedefs.h> // PFN_cuCtxGetCurrent_v4000, PFN_cuCtxGetId_v12000 (and cuda.h's types)

#include "kernels/common/context_cache.h"

// The runner's contexts come and go one after another (--contexts is at most 256, plus the first).
#define MAX_CONTEXTS 1024

// Keyed by cuCtxGetId, unique for the life of the process: a destroyed context's CUcontext pointer can be
// reused by a new context, its ID cannot. The entry of a destroyed context is therefore never matched
// again, and what it holds is deliberately not released here: cublasDestroy needs the context alive, and
// the driver frees a context's page-locked memory with the context.
typedef struct {
  unsigned long long ctx_id;
  cublasHandle_t handle;
} context_handle;

// Scratch is per context and thread: a thread holds it from its copy to its host sum. A thread's ID
// may be reused after it exits, and so may its scratch: its first owner is gone.
typedef struct {
  unsigned long long ctx_id;
  pthread_t thread;
  void *host;
} context_scratch;

// Device workspace per context and stream (stream_workspace_for_current_context). Like the handles,
// the entry of a destroyed context or stream is never matched again (both IDs are unique for the life
// of the process); a destroyed context's memory goes with it.
typedef struct {
  unsigned long long ctx_id, stream_id;
  void *memory;
  size_t bytes;
} stream_workspace;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static context_handle g_handles[MAX_CONTEXTS];
static int g_count;
static context_scratch g_scratch[MAX_CONTEXTS];
static int g_scratch_count;
static stream_workspace g_workspaces[MAX_CONTEXTS];
static int g_workspace_count;

// Driver entry points found through the runtime, so that nothing links libcuda; looked up once.
static PFN_cuCtxGetCurrent_v4000 g_ctx_get_current;
static PFN_cuCtxGetId_v12000 g_ctx_get_id;

static cudaError_t driver_entry_point(const char *symbol, void **fn) {
  enum cudaDriverEntryPointQueryResult found;
  cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, fn, 13000, cudaEnableDefault, &found);
  if (err == cudaSuccess && found != cudaDriverEntryPointSuccess) err = cudaErrorSymbolNotFound;
  return err;
}

static cudaError_t from_driver(CUresult r) {
  if (r == CUDA_SUCCESS) return cudaSuccess;
  return r == CUDA_ERROR_CONTEXT_IS_DESTROYED ? cudaErrorContextIsDestroyed : cudaErrorDeviceUninitialized;
}

// The ID of the calling thread's current context. Called with g_lock held (the entry points are set once).
static cudaError_t current_context_id(unsigned long long *id) {
  cudaError_t err;
  if (!g_ctx_get_id) {
    void *get_current, *get_id;
    if ((err = driver_entry_point("cuCtxGetCurrent", &get_current)) != cudaSuccess ||
        (err = driver_entry_point("cuCtxGetId", &get_id)) != cudaSuccess)
      return err;
    g_ctx_get_current = (PFN_cuCtxGetCurrent_v4000)get_current;
    g_ctx_get_id = (PFN_cuCtxGetId_v12000)get_id;
  }
  CUcontext ctx = NULL;
  if ((err = from_driver(g_ctx_get_current(&ctx))) != cudaSuccess) return err;
  if (!ctx) {
    // No context yet (nothing has touched the runtime): cudaFree(0) makes the primary context current.
    if ((err = cudaFree(0)) != cudaSuccess) return err;
    if ((err = from_driver(g_ctx_get_current(&ctx))) != cudaSuccess) return err;
    if (!ctx) return cudaErrorDeviceUninitialized;
  }
  return from_driver(g_ctx_get_id(ctx, id));
}

// The handle of the current context, created here on first use (cublasCreate binds it to that context).
static cudaError_t handle_locked(cublasHandle_t *handle) {
  unsigned long long id;
  cudaError_t err = current_context_id(&id);
  if (err != cudaSuccess) return err;
  for (int i = 0; i < g_count; i++) {
    if (g_handles[i].ctx_id == id) {
      *handle = g_handles[i].handle;
      return cudaSuccess;
    }
  }
  if (g_count == MAX_CONTEXTS) return cudaErrorMemoryAllocation;
  cublasHandle_t created;
  if ((err = cublas_error(cublasCreate(&created))) != cudaSuccess) return err;
  g_handles[g_count].ctx_id = id;
  g_handles[g_count].handle = created;
  g_count++;
  *handle = created;
  return cudaSuccess;
}

extern "C" cudaError_t cublas_for_current_context(cudaStream_t stream, cublasPointerMode_t pointer_mode,
                                                  cublasMath_t math_mode, cublasHandle_t *handle) {
  if (!handle) return cudaErrorInvalidValue;
  pthread_mutex_lock(&g_lock);
  cublasHandle_t h = NULL;
  cudaError_t err = handle_locked(&h);
  pthread_mutex_unlock(&g_lock);
  if (err != cudaSuccess) return err;
  // Set on every call: the stream and modes are the caller's, the handle is everybody's in this context.
  if ((err = cublas_error(cublasSetStream(h, stream))) != cudaSuccess ||
      (err = cublas_error(cublasSetPointerMode(h, pointer_mode))) != cudaSuccess ||
      (err = cublas_error(cublasSetMathMode(h, math_mode))) != cudaSuccess)
    return err;
  *handle = h;
  return cudaSuccess;
}

// The scratch of the current context and calling thread, allocated here on first use.
static cudaError_t scratch_locked(void **host) {
  unsigned long long id;
  cudaError_t err = current_context_id(&id);
  if (err != cudaSuccess) return err;
  pthread_t self = pthread_self();
  for (int i = 0; i < g_scratch_count; i++) {
    if (g_scratch[i].ctx_id == id && pthread_equal(g_scratch[i].thread, self)) {
      *host = g_scratch[i].host;
      return cudaSuccess;
    }
  }
  if (g_scratch_count == MAX_CONTEXTS) return cudaErrorMemoryAllocation;
  void *made;
  if ((err = cudaHostAlloc(&made, CONTEXT_SCRATCH_BYTES, cudaHostAllocMapped)) != cudaSuccess) return err;
  memset(made, 0, CONTEXT_SCRATCH_BYTES); // what a caller finds before it writes anything: never stale data
  g_scratch[g_scratch_count].ctx_id = id;
  g_scratch[g_scratch_count].thread = self;
  g_scratch[g_scratch_count].host = made;
  g_scratch_count++;
  *host = made;
  return cudaSuccess;
}

extern "C" cudaError_t pinned_scratch_for_current_context(size_t bytes, void **host) {
  if (!host || bytes > CONTEXT_SCRATCH_BYTES) return cudaErrorInvalidValue;
  pthread_mutex_lock(&g_lock);
  cudaError_t err = scratch_locked(host);
  pthread_mutex_unlock(&g_lock);
  return err;
}

// The workspace of the current context and `stream`, made or grown here. Called with g_lock held.
static cudaError_t workspace_locked(cudaStream_t stream, size_t bytes, void **workspace) {
  unsigned long long ctx_id, stream_id;
  cudaError_t err = current_context_id(&ctx_id);
  if (err == cudaSuccess) err = cudaStreamGetId(stream, &stream_id);
  if (err != cudaSuccess) return err;
  stream_workspace *w = NULL;
  for (int i = 0; i < g_workspace_count && !w; i++)
    if (g_workspaces[i].ctx_id == ctx_id && g_workspaces[i].stream_id == stream_id) w = &g_workspaces[i];
  if (!w) {
    if (g_workspace_count == MAX_CONTEXTS) return cudaErrorMemoryAllocation;
    w = &g_workspaces[g_workspace_count++];
    memset(w, 0, sizeof *w);
    w->ctx_id = ctx_id;
    w->stream_id = stream_id;
  }
  if (bytes > w->bytes) {
    // Every earlier user of this memory was launched on `stream`: once it has drained, none is left.
    if ((err = cudaStreamSynchronize(stream)) != cudaSuccess) return err;
    if (w->memory && (err = cudaFree(w->memory)) != cudaSuccess) return err;
    w->memory = NULL, w->bytes = 0; // a failure below leaves the entry empty: the next call allocates
    if ((err = cudaMalloc(&w->memory, bytes)) != cudaSuccess) return err;
    w->bytes = bytes;
  }
  *workspace = w->memory;
  return cudaSuccess;
}

extern "C" cudaError_t stream_workspace_for_current_context(cudaStream_t stream, size_t bytes, void **workspace) {
  if (!workspace) return cudaErrorInvalidValue;
  pthread_mutex_lock(&g_lock);
  cudaError_t err = workspace_locked(stream, bytes, workspace);
  pthread_mutex_unlock(&g_lock);
  return err;
}

extern "C" cudaError_t cublas_error(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNoKernelImageForDevice;
    default: {
      cudaError_t err = cudaGetLastError(); // a failed launch inside cuBLAS says more than its status
      if (err != cudaSuccess) return err;
      return status == CUBLAS_STATUS_EXECUTION_FAILED ? cudaErrorLaunchFailure : cudaErrorUnknown;
    }
  }
}
