#include "perf/runner/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few declarations of NVIDIA's nvml.h this needs (same types and values). */
typedef int nvmlReturn_t; /* enum; NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { NVML_SUCCESS = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };               /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU = 0 };                            /* nvmlTemperatureSensors_t */
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 }; /* nvmlEnableState_t */
/* nvmlClocksEventReasonGpuIdle: set whenever nothing runs, as when we read
 * right after a sample completes; it says nothing about the sample. */
#define NVML_REASON_GPU_IDLE 0x1ull

typedef nvmlReturn_t (*fn_void)(void);
typedef const char *(*fn_error_string)(nvmlReturn_t);
typedef nvmlReturn_t (*fn_handle_by_str)(const char *, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_clock)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*fn_temperature)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*fn_reasons)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*fn_ecc)(nvmlDevice_t, int *, int *);
typedef nvmlReturn_t (*fn_version)(char *, unsigned int);

struct gpu_nvml {
  void *lib;
  nvmlDevice_t dev;
  fn_void shutdown;
  fn_error_string error_string;
  fn_clock clock_info, max_clock_info;
  fn_temperature temperature;
  fn_reasons reasons;
  fn_ecc ecc;
  fn_version driver_version;
};

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
#define LOAD(lib, type, name) ((type)(size_t)dlsym(lib, name))

static const char *nvml_err(gpu_nvml *g, nvmlReturn_t rc) {
  const char *s = g->error_string ? g->error_string(rc) : NULL;
  return s ? s : "unknown NVML error";
}

gpu_nvml *nvml_open(const char *lib, const char *pci_bus_id, const char *uuid, char *err, size_t errlen) {
  const char *path = lib ? lib : "libnvidia-ml.so.1";
  gpu_nvml *g = calloc(1, sizeof *g);
  if (!g) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  g->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!g->lib) {
    const char *why = dlerror();
    snprintf(err, errlen, "cannot load %s (%s)", path, why ? why : "dlopen failed");
    free(g);
    return NULL;
  }
  fn_void init = LOAD(g->lib, fn_void, "nvmlInit_v2");
  g->shutdown = LOAD(g->lib, fn_void, "nvmlShutdown");
  g->error_string = LOAD(g->lib, fn_error_string, "nvmlErrorString");
  fn_handle_by_str by_pci = LOAD(g->lib, fn_handle_by_str, "nvmlDeviceGetHandleByPciBusId_v2");
  fn_handle_by_str by_uuid = LOAD(g->lib, fn_handle_by_str, "nvmlDeviceGetHandleByUUID");
  g->clock_info = LOAD(g->lib, fn_clock, "nvmlDeviceGetClockInfo");
  g->max_clock_info = LOAD(g->lib, fn_clock, "nvmlDeviceGetMaxClockInfo");
  g->temperature = LOAD(g->lib, fn_temperature, "nvmlDeviceGetTemperature");
  /* Renamed in newer drivers; the old name is kept as an alias. */
  g->reasons = LOAD(g->lib, fn_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!g->reasons) g->reasons = LOAD(g->lib, fn_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  g->ecc = LOAD(g->lib, fn_ecc, "nvmlDeviceGetEccMode");
  g->driver_version = LOAD(g->lib, fn_version, "nvmlSystemGetDriverVersion");
  if (!init || !g->shutdown || !(by_pci || by_uuid) || !g->clock_info || !g->max_clock_info || !g->temperature ||
      !g->reasons) {
    snprintf(err, errlen, "%s lacks a needed NVML function", path);
    dlclose(g->lib);
    free(g);
    return NULL;
  }
  nvmlReturn_t rc = init();
  if (rc != NVML_SUCCESS) {
    snprintf(err, errlen, "nvmlInit_v2: %s", nvml_err(g, rc));
    dlclose(g->lib);
    free(g);
    return NULL;
  }
  rc = -1;
  if (by_pci && pci_bus_id && *pci_bus_id) rc = by_pci(pci_bus_id, &g->dev);
  if (rc != NVML_SUCCESS && by_uuid && uuid && *uuid) rc = by_uuid(uuid, &g->dev);
  if (rc != NVML_SUCCESS) {
    snprintf(err, errlen, "no NVML device for PCI bus id '%s' or UUID '%s'%s%s", pci_bus_id ? pci_bus_id : "",
             uuid ? uuid : "", rc == -1 ? "" : ": ", rc == -1 ? "" : nvml_err(g, rc));
    g->shutdown();
    dlclose(g->lib);
    free(g);
    return NULL;
  }
  return g;
}

int nvml_read(gpu_nvml *g, nvml_reading *r) {
  memset(r, 0, sizeof *r);
  if (!g) return -1;
  int ok = g->clock_info(g->dev, NVML_CLOCK_SM, &r->sm_mhz) == NVML_SUCCESS;
  ok &= g->clock_info(g->dev, NVML_CLOCK_MEM, &r->mem_mhz) == NVML_SUCCESS;
  ok &= g->temperature(g->dev, NVML_TEMPERATURE_GPU, &r->temp_c) == NVML_SUCCESS;
  ok &= g->reasons(g->dev, &r->reasons) == NVML_SUCCESS;
  r->reasons &= ~NVML_REASON_GPU_IDLE;
  return ok ? 0 : -1;
}

int nvml_max_clocks(gpu_nvml *g, unsigned *sm_mhz, unsigned *mem_mhz) {
  if (!g) return -1;
  int ok = g->max_clock_info(g->dev, NVML_CLOCK_SM, sm_mhz) == NVML_SUCCESS;
  ok &= g->max_clock_info(g->dev, NVML_CLOCK_MEM, mem_mhz) == NVML_SUCCESS;
  return ok && *sm_mhz > 0 ? 0 : -1;
}

int nvml_ecc_enabled(gpu_nvml *g) {
  int current = 0, pending = 0;
  if (!g || !g->ecc || g->ecc(g->dev, &current, &pending) != NVML_SUCCESS) return -1;
  return current == NVML_FEATURE_ENABLED;
}

void nvml_driver_version(gpu_nvml *g, char *buf, size_t len) {
  if (len) buf[0] = '\0';
  if (!g || !g->driver_version || len == 0) return;
  char v[96] = "";
  if (g->driver_version(v, sizeof v) == NVML_SUCCESS) snprintf(buf, len, "%s", v);
}

void nvml_close(gpu_nvml *g) {
  if (!g) return;
  g->shutdown();
  dlclose(g->lib);
  free(g);
}

/* The NVLink links a GPU can have (NVML_NVLINK_MAX_LINKS of nvml.h). */
#define NVLINK_MAX_LINKS 18

typedef nvmlReturn_t (*fn_count)(unsigned int *);
typedef nvmlReturn_t (*fn_by_index)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_name)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_link_state)(nvmlDevice_t, unsigned int, int *);

int nvml_host(const char *lib, nvml_host_facts *h, char *err, size_t errlen) {
  const char *path = lib ? lib : "libnvidia-ml.so.1";
  memset(h, 0, sizeof *h);
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    const char *why = dlerror();
    snprintf(err, errlen, "cannot load %s (%s)", path, why ? why : "dlopen failed");
    return -1;
  }
  fn_void init = LOAD(dl, fn_void, "nvmlInit_v2"), shutdown = LOAD(dl, fn_void, "nvmlShutdown");
  fn_count count = LOAD(dl, fn_count, "nvmlDeviceGetCount_v2");
  fn_by_index by_index = LOAD(dl, fn_by_index, "nvmlDeviceGetHandleByIndex_v2");
  fn_name name = LOAD(dl, fn_name, "nvmlDeviceGetName");
  fn_link_state link_state = LOAD(dl, fn_link_state, "nvmlDeviceGetNvLinkState");
  fn_version driver = LOAD(dl, fn_version, "nvmlSystemGetDriverVersion");
  if (!init || !shutdown || !count || !by_index || !name || !driver) {
    snprintf(err, errlen, "%s lacks a needed NVML function", path);
    dlclose(dl);
    return -1;
  }
  if (init() != NVML_SUCCESS) {
    snprintf(err, errlen, "nvmlInit_v2 failed");
    dlclose(dl);
    return -1;
  }
  unsigned n = 0;
  nvmlDevice_t dev;
  int ok = count(&n) == NVML_SUCCESS && n > 0 && by_index(0, &dev) == NVML_SUCCESS &&
      name(dev, h->gpu_name, sizeof h->gpu_name) == NVML_SUCCESS && driver(h->driver, sizeof h->driver) == NVML_SUCCESS;
  if (ok) {
    h->gpus = (int)n;
    /* A link that is not there answers an error: it counts as inactive. */
    for (unsigned l = 0; link_state && l < NVLINK_MAX_LINKS; l++) {
      int active = 0;
      if (link_state(dev, l, &active) == NVML_SUCCESS && active == NVML_FEATURE_ENABLED) h->nvlinks++;
    }
  } else {
    snprintf(err, errlen, "NVML lists no GPU, or cannot name device 0 or the driver");
  }
  shutdown();
  dlclose(dl);
  return ok ? 0 : -1;
}
