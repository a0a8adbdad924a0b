/* A stand-in for libnvidia-ml.so.1 with the few functions the testbed reads (perf/runner/nvml.c,
 * nvml_host): a host of 4 "Fake GPU 80GB" joined by 2 active NVLink links, driver 999.99.99. Loaded
 * through BENCH_NVML_LIBRARY by testbed_tool_test, so the testbed's NVML path runs without a GPU. */
#include <stdio.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) {
  *n = 4;
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *dev) {
  *dev = (nvmlDevice_t)(size_t)(i + 1);
  return i < 4 ? 0 : 2; /* NVML_ERROR_INVALID_ARGUMENT */
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int len) {
  (void)dev;
  snprintf(name, len, "Fake GPU 80GB");
  return 0;
}

/* Links 0 and 1 active; the rest answer NVML_ERROR_NOT_SUPPORTED, as absent links do. */
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t dev, unsigned int link, int *active) {
  (void)dev;
  *active = 1;
  return link < 2 ? 0 : 3;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int len) {
  snprintf(version, len, "999.99.99");
  return 0;
}
