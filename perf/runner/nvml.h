/* GPU clocks, temperature and throttle reasons through NVML, loaded at run
 * time with dlopen (the toolkit here ships no nvml.h, and a machine without
 * the NVIDIA driver must still run --benchmark_list_tests and report cleanly).
 * Pure C plus libdl: every failure is a message, never a crash. */
#ifndef PERF_RUNNER_NVML_H
#define PERF_RUNNER_NVML_H

#include <stddef.h>

typedef struct gpu_nvml gpu_nvml;

typedef struct {
  unsigned sm_mhz, mem_mhz, temp_c;
  unsigned long long reasons; /* NVML clock event (throttle) reason bits */
} nvml_reading;

/* Loads `lib` (NULL: "libnvidia-ml.so.1"), initialises NVML and finds the
 * device by PCI bus id ("0000:17:00.0"), or else by UUID ("GPU-..."). NULL with
 * the reason in err if any step fails. */
gpu_nvml *nvml_open(const char *lib, const char *pci_bus_id, const char *uuid, char *err, size_t errlen);

/* Current SM and memory clock, GPU temperature, clock event reasons. Returns 0,
 * or -1 if any of them could not be read. */
int nvml_read(gpu_nvml *g, nvml_reading *r);

/* Maximum SM and memory clocks (MHz). Returns 0 or -1. */
int nvml_max_clocks(gpu_nvml *g, unsigned *sm_mhz, unsigned *mem_mhz);
/* Current ECC mode: 1 on, 0 off; -1 if unsupported. */
int nvml_ecc_enabled(gpu_nvml *g);
/* The driver version string ("580.65.06"); "" if unknown. */
void nvml_driver_version(gpu_nvml *g, char *buf, size_t len);

void nvml_close(gpu_nvml *g);

/* What the host adds to a GPU, for the testbed (perf/runner/testbed.h): the name of NVML's device 0,
 * how many GPUs NVML sees on the host (CUDA_VISIBLE_DEVICES does not hide them), how many NVLink
 * links of device 0 are active, and the driver version. Loads `lib` (NULL: "libnvidia-ml.so.1") on
 * its own. 0, or -1 with the reason in err. */
typedef struct {
  char gpu_name[96];
  int gpus, nvlinks;
  char driver[64];
} nvml_host_facts;
int nvml_host(const char *lib, nvml_host_facts *h, char *err, size_t errlen);

#endif
