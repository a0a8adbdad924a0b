#define _GNU_SOURCE
#include "perf/runner/cupti_trace.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "perf/runner/cubin_hash.h"

/* Types from the real headers; every call goes through these pointers. */
typedef CUptiResult(CUPTIAPI *fn_version)(uint32_t *);
typedef CUptiResult(CUPTIAPI *fn_result_string)(CUptiResult, const char **);
typedef CUptiResult(CUPTIAPI *fn_subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
typedef CUptiResult(CUPTIAPI *fn_unsubscribe)(CUpti_SubscriberHandle);
typedef CUptiResult(CUPTIAPI *fn_enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                                  CUpti_CallbackId);
typedef CUptiResult(CUPTIAPI *fn_register)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult(CUPTIAPI *fn_kind)(CUpti_ActivityKind);
typedef CUptiResult(CUPTIAPI *fn_flush_all)(uint32_t);
typedef CUptiResult(CUPTIAPI *fn_next_record)(uint8_t *, size_t, CUpti_Activity **);
typedef CUptiResult(CUPTIAPI *fn_dropped)(CUcontext, uint32_t, size_t *);

#define LOAD(lib, type, name) ((type)(size_t)dlsym(lib, name))

/* 8 MiB per buffer: one run's records fit in one, so none is dropped while CUPTI waits. */
#define BUFFER_BYTES (8u << 20)

static const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                            CUPTI_ACTIVITY_KIND_MEMSET};
enum { NKINDS = sizeof kKinds / sizeof *kKinds };

/* CUPTI's callbacks take no user pointer (the buffer ones), so the state is the process's. Module
 * loads and buffer completions may come from other threads: everything below `lock` is under it. */
static struct {
  void *lib;
  char path[CUPTI_TRACE_PATH_LEN];
  fn_result_string result_string;
  fn_subscribe subscribe;
  fn_unsubscribe unsubscribe;
  fn_enable_callback enable_callback;
  fn_register register_callbacks;
  fn_kind enable, disable;
  fn_flush_all flush_all;
  fn_next_record next_record;
  fn_dropped dropped_records;
  CUpti_SubscriberHandle subscriber;
  pthread_mutex_t lock;
  cubin_table *table;
  unsigned unreadable; /* modules whose cubin did not parse: no kernel's code is then known */
  char unreadable_why[256];
  fp_ops pending; /* records since cupti_trace_begin */
  size_t dropped;
  int failed; /* a record could not be kept (out of memory, a bad buffer) */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const char *cupti_str(CUptiResult r) {
  const char *s = NULL;
  if (!g.result_string || g.result_string(r, &s) != CUPTI_SUCCESS || !s) return "unknown CUPTI error";
  return s;
}

static int cupti_fail(const char *call, CUptiResult r, char *err, size_t errlen) {
  set_err(err, errlen, "%s (CUPTI from %s): %s (%d)", call, g.path, cupti_str(r), (int)r);
  return -1;
}

size_t cupti_trace_candidates(const char *cupti_library, const char *cuda_path,
                              char out[CUPTI_TRACE_MAX_CANDIDATES][CUPTI_TRACE_PATH_LEN]) {
  static const char *const sub[] = {"lib64/libcupti.so", "targets/x86_64-linux/lib/libcupti.so",
                                    "extras/CUPTI/lib64/libcupti.so"};
  size_t n = 0;
  if (cupti_library && *cupti_library) snprintf(out[n++], CUPTI_TRACE_PATH_LEN, "%s", cupti_library);
  snprintf(out[n++], CUPTI_TRACE_PATH_LEN, "libcupti.so.13");
  snprintf(out[n++], CUPTI_TRACE_PATH_LEN, "libcupti.so");
  const char *roots[] = {cuda_path && *cuda_path ? cuda_path : "/usr/local/cuda", "/usr/local/cuda"};
  for (int r = 0; r < 2; r++) {
    if (r == 1 && strcmp(roots[0], roots[1]) == 0) break; /* the same root once */
    for (int s = 0; s < 3; s++) snprintf(out[n++], CUPTI_TRACE_PATH_LEN, "%s/%s", roots[r], sub[s]);
  }
  return n;
}

/* Loads one candidate into g; -1 with why (appended to err) when it is not usable. */
static int load(const char *path, char *why, size_t len) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, len, "%s", e ? e : "dlopen failed");
    return -1;
  }
  fn_version version = LOAD(lib, fn_version, "cuptiGetVersion");
  g.result_string = LOAD(lib, fn_result_string, "cuptiGetResultString");
  g.subscribe = LOAD(lib, fn_subscribe, "cuptiSubscribe");
  g.unsubscribe = LOAD(lib, fn_unsubscribe, "cuptiUnsubscribe");
  g.enable_callback = LOAD(lib, fn_enable_callback, "cuptiEnableCallback");
  g.register_callbacks = LOAD(lib, fn_register, "cuptiActivityRegisterCallbacks");
  g.enable = LOAD(lib, fn_kind, "cuptiActivityEnable");
  g.disable = LOAD(lib, fn_kind, "cuptiActivityDisable");
  g.flush_all = LOAD(lib, fn_flush_all, "cuptiActivityFlushAll");
  g.next_record = LOAD(lib, fn_next_record, "cuptiActivityGetNextRecord");
  g.dropped_records = LOAD(lib, fn_dropped, "cuptiActivityGetNumDroppedRecords");
  uint32_t v = 0;
  if (!version || !g.result_string || !g.subscribe || !g.unsubscribe || !g.enable_callback || !g.register_callbacks ||
      !g.enable || !g.disable || !g.flush_all || !g.next_record || !g.dropped_records) {
    snprintf(why, len, "lacks a needed CUPTI function");
  } else if (version(&v) != CUPTI_SUCCESS || v / 100 != CUPTI_API_VERSION / 100) {
    /* The activity records' layout is the one of the headers built against (major.minor). */
    snprintf(why, len, "CUPTI API version %u, built against %u", (unsigned)v, (unsigned)CUPTI_API_VERSION);
  } else {
    g.lib = lib;
    snprintf(g.path, sizeof g.path, "%s", path);
    return 0;
  }
  dlclose(lib);
  g.result_string = NULL;
  return -1;
}

static void CUPTIAPI on_module(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
  (void)user;
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || !data) return;
  const CUpti_ResourceData *rd = data;
  const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
  char why[200] = "no module data";
  pthread_mutex_lock(&g.lock);
  if (g.table && (!m || cubin_table_add(g.table, m->pCubin, m->cubinSize, why, sizeof why) < 0)) {
    /* A kernel of it could share a name with one of another module: no hash is trusted now. */
    if (!g.unreadable++)
      snprintf(g.unreadable_why, sizeof g.unreadable_why, "module %u: %s", m ? (unsigned)m->moduleId : 0u, why);
  }
  pthread_mutex_unlock(&g.lock);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0; /* none: CUPTI drops records, and says so */
  *max_records = 0;
}

/* Under g.lock. */
static void keep_record(const CUpti_Activity *r) {
  int bad = 0;
  if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
    fp_kernel f = {
        .name = k->name,
        .grid = {k->gridX, k->gridY, k->gridZ},
        .block = {k->blockX, k->blockY, k->blockZ},
        .cluster = {k->clusterX, k->clusterY, k->clusterZ},
        .smem_static = k->staticSharedMemory,
        .smem_dynamic = k->dynamicSharedMemory,
        .regs = k->registersPerThread,
        .local = k->localMemoryPerThread,
    };
    f.sass_known = !g.unreadable && g.table && k->name && cubin_table_find(g.table, k->name, &f.sass) == 0;
    bad = fp_add_kernel(&g.pending, k->start, k->correlationId, &f);
  } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)r;
    bad = fp_add_memcpy(&g.pending, c->start, c->correlationId, c->copyKind, c->bytes);
  } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *s = (const CUpti_ActivityMemset4 *)r;
    bad = fp_add_memset(&g.pending, s->start, s->correlationId, s->bytes, s->value, s->memoryKind);
  }
  if (bad) g.failed = 1;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)size;
  pthread_mutex_lock(&g.lock);
  CUpti_Activity *r = NULL;
  CUptiResult st = CUPTI_ERROR_MAX_LIMIT_REACHED;
  if (buffer && valid > 0)
    while ((st = g.next_record(buffer, valid, &r)) == CUPTI_SUCCESS) keep_record(r);
  if (st != CUPTI_ERROR_MAX_LIMIT_REACHED) g.failed = 1;
  size_t dropped = 0;
  if (g.dropped_records(ctx, stream, &dropped) == CUPTI_SUCCESS) g.dropped += dropped;
  pthread_mutex_unlock(&g.lock);
  free(buffer);
}

int cupti_trace_open_from(const char *const *paths, size_t n, char *err, size_t errlen) {
  size_t k = 0;
  k += (size_t)snprintf(err, errlen, "cannot load CUPTI; tried");
  for (size_t i = 0; i < n; i++) {
    char why[512];
    if (load(paths[i], why, sizeof why) == 0) break;
    if (k < errlen) k += (size_t)snprintf(err + k, errlen - k, "%s %s (%s)", i ? ";" : "", paths[i], why);
  }
  if (!g.lib) {
    if (k < errlen) snprintf(err + k, errlen - k, ". Set CUPTI_LIBRARY to its path.");
    return -1;
  }
  err[0] = '\0';
  if (!(g.table = cubin_table_new())) {
    set_err(err, errlen, "out of memory");
    cupti_trace_close();
    return -1;
  }
  CUptiResult r = g.subscribe(&g.subscriber, on_module, NULL);
  if (r != CUPTI_SUCCESS) {
    g.subscriber = NULL;
    cupti_fail("cuptiSubscribe", r, err, errlen);
  } else if ((r = g.enable_callback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED)) !=
             CUPTI_SUCCESS) {
    cupti_fail("cuptiEnableCallback(RESOURCE_MODULE_LOADED)", r, err, errlen);
  } else if ((r = g.register_callbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
    cupti_fail("cuptiActivityRegisterCallbacks", r, err, errlen);
  } else {
    return 0;
  }
  cupti_trace_close();
  return -1;
}

int cupti_trace_open(char *err, size_t errlen) {
  char paths[CUPTI_TRACE_MAX_CANDIDATES][CUPTI_TRACE_PATH_LEN];
  const char *p[CUPTI_TRACE_MAX_CANDIDATES];
  size_t n = cupti_trace_candidates(getenv("CUPTI_LIBRARY"), getenv("CUDA_PATH"), paths);
  for (size_t i = 0; i < n; i++) p[i] = paths[i];
  return cupti_trace_open_from(p, n, err, errlen);
}

int cupti_trace_begin(char *err, size_t errlen) {
  pthread_mutex_lock(&g.lock);
  fp_ops_clear(&g.pending);
  g.dropped = 0;
  g.failed = 0;
  pthread_mutex_unlock(&g.lock);
  for (int i = 0; i < NKINDS; i++) {
    CUptiResult r = g.enable(kKinds[i]);
    if (r != CUPTI_SUCCESS) {
      while (i-- > 0) g.disable(kKinds[i]);
      return cupti_fail("cuptiActivityEnable", r, err, errlen);
    }
  }
  return 0;
}

int cupti_trace_end(fp_ops *ops, char *err, size_t errlen) {
  CUptiResult r = g.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), d = CUPTI_SUCCESS;
  for (int i = 0; i < NKINDS; i++) {
    CUptiResult e = g.disable(kKinds[i]);
    if (d == CUPTI_SUCCESS) d = e;
  }
  pthread_mutex_lock(&g.lock);
  fp_ops got = g.pending;
  memset(&g.pending, 0, sizeof g.pending);
  size_t dropped = g.dropped;
  int failed = g.failed;
  unsigned unreadable = g.unreadable;
  pthread_mutex_unlock(&g.lock);
  int rc = -1;
  if (r != CUPTI_SUCCESS)
    cupti_fail("cuptiActivityFlushAll", r, err, errlen);
  else if (d != CUPTI_SUCCESS)
    cupti_fail("cuptiActivityDisable", d, err, errlen);
  else if (dropped)
    set_err(err, errlen, "CUPTI dropped %zu activity record(s)", dropped);
  else if (failed)
    set_err(err, errlen, "an activity record could not be read or kept (out of memory?)");
  else
    rc = 0;
  if (rc == 0 && unreadable) {
    /* Said once: every kernel reads sass=unknown from here on. */
    static int said;
    if (!said++)
      fprintf(stderr, "warning: --fingerprint_out: %u module(s) unreadable (%s); kernels' machine code unknown\n",
              unreadable, g.unreadable_why);
  }
  fp_ops_sort(&got);
  fp_ops_clear(ops);
  if (rc == 0)
    *ops = got;
  else
    fp_ops_clear(&got);
  return rc;
}

void cupti_trace_close(void) {
  if (g.subscriber) g.unsubscribe(g.subscriber);
  g.subscriber = NULL;
  /* The library stays loaded: CUPTI may still call back into this process's buffers. */
  pthread_mutex_lock(&g.lock);
  cubin_table_free(g.table);
  g.table = NULL;
  fp_ops_clear(&g.pending);
  pthread_mutex_unlock(&g.lock);
}
