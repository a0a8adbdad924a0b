/* The testbed: the class of host a run was measured on, which is the runner's identity for the
 * gate. It is the GPU model plus what the host adds: how many GPUs it has and whether they are
 * joined by NVLink, its CPU model and the NVIDIA driver. On hosts of one GPU model these differ in
 * what a launch costs (an empty kernel 1.6-1.75 us slower on 2- and 4-GPU H100 hosts than on the
 * one-GPU hosts, docs/RESULTS.md), so a run is compared only with runs of its own testbed.
 * CI may name it outright with PERF_TESTBED (e.g. "h100-pool-a"). Pure C. */
#ifndef PERF_RUNNER_TESTBED_H
#define PERF_RUNNER_TESTBED_H

#include <stddef.h>

typedef struct {
  char gpu_name[96]; /* "NVIDIA H100 80GB HBM3" */
  int gpus;          /* on the host, as NVML sees them; 0: unknown */
  int nvlinks;       /* active NVLink links of the host's first GPU; -1: unknown */
  char cpu_model[128];
  char driver[64];
  char nvml_error[256]; /* why NVML could not be read ("" when it was): the GPU's facts are unknown then */
} testbed_facts;

#define TESTBED_MAX 256

/* "NVIDIA H100 80GB HBM3 x2 NVLink | AMD EPYC 9654 96-Core Processor | driver 580.159.04". */
void testbed_name(const testbed_facts *f, char *out, size_t len);

/* The "model name" of the first processor in a /proc/cpuinfo-format file; 0, or -1 ("unknown CPU"). */
int testbed_cpu_model(const char *cpuinfo_path, char *out, size_t len);

/* A name given by PERF_TESTBED: 1 to 200 printable ASCII characters, not all blanks, no comma or double
 * quote (history rows are plain CSV). 0 ok; else 1
 * and why in `why`. */
int testbed_valid_name(const char *s, char *why, size_t len);

/* The facts of this host and the testbed's name: NVML through `nvml_lib` (NULL: libnvidia-ml.so.1) for
 * the GPU model (device 0), count, NVLink and driver, /proc/cpuinfo for the CPU; the name is
 * PERF_TESTBED when it is set (source "PERF_TESTBED"), else made of the facts (source "detected").
 * Only host-wide facts go in, nothing of the calling process (its CUDA device): when NVML cannot be read
 * the GPU's part is unknown ("unknown GPU x? NVLink unknown | <cpu> | driver unknown") and
 * f->nvml_error says why. Returns 0, or 2 when PERF_TESTBED is set but not a valid name (the message
 * in err). */
int testbed_detect(const char *nvml_lib, testbed_facts *f, char *name, size_t len, const char **source, char *err,
                   size_t errlen);

/* This host's testbed: testbed_detect with BENCH_NVML_LIBRARY (the runner's NVML) when set. The one
 * function that the runner (its run JSON's context.testbed) and //perf/tools:testbed (which ci/gate.sh
 * asks) both call, so that the two cannot disagree (//perf/tools:testbed_tool_test). */
int testbed_of_host(testbed_facts *f, char *name, size_t len, const char **source, char *err, size_t errlen);

#endif
