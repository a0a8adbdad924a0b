/* What a benchmark run produced, as plain data (no CUDA types), so that the
 * writers in report.h are tested on the CPU with synthetic results. */
#ifndef PERF_RUNNER_RESULTS_H
#define PERF_RUNNER_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "perf/runner/testbed.h"

typedef struct {
  char name[256];
  char uuid[64]; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
  char pci_bus_id[32];
  char compute_capability[16]; /* "9.0" */
  int sm_count;
  double sm_clock_max_mhz; /* 0: unknown */
  double mem_clock_max_mhz;
  int bus_width_bits;
  double peak_gbps; /* 2 x memory clock x bus width / 8; 0: unknown */
  long long l2_bytes;
  long long global_mem_bytes;
  int ecc;                      /* 1 on, 0 off */
  char driver_version[64];      /* NVML's driver version ("580.65.06"), else "" */
  char cuda_driver_version[16]; /* cudaDriverGetVersion, "13.0" */
  char runtime_version[16];     /* cudaRuntimeGetVersion, "13.0" */
} gpu_info;

typedef struct {
  const char *key, *value;
} context_entry;

/* Samples a context takes at most. A short benchmark's time rests on the spread between
 * contexts (about 1 % at 7 us); the median of 200 samples of one context is within 0.1-0.2 %
 * (docs/RESULTS.md, "How many samples a context needs"), which adds about 2 % to the variance
 * of a context median, where the 900 samples of min_time/16 of a 7 us kernel cost 4.5 x the time. */
#define CONTEXTS_MAX_SAMPLES 200
#define CONTEXTS_MAX 256 /* the most --contexts takes (perf/runner/flags.c) */

typedef struct {
  const char *executable;
  char date[64]; /* ISO 8601 local time with offset */
  char host_name[256];
  int num_cpus;
  double load_avg[3];
  const char *build_type;    /* "release" / "debug" */
  uint64_t seed;             /* of the random inputs */
  const context_entry *user; /* --benchmark_context entries */
  size_t n_user;
  gpu_info gpu;
  /* The testbed (perf/runner/testbed.h): the runner's class of host, which the gate compares
   * like with like; the facts it was made of, and whether PERF_TESTBED named it. */
  char testbed[256];
  testbed_facts testbed_facts;
  const char *testbed_source; /* "detected" or "PERF_TESTBED" */
  double copy_gbps;           /* device-to-device cudaMemcpy probe; 0: not measured */
  double copy_probe_bytes;    /* bytes moved (read + written) by one probe copy */
  char nvml[256];             /* "ok" or why NVML is unavailable */
  int clock_filter;           /* samples at low SM clock are discarded */
  double min_clock_ratio;
  int l2_flush;       /* 0 with --hot */
  int l2_flush_write; /* 1: memset flush (dirty lines); 0: read flush (clean lines) */
  double l2_flush_bytes;
  int repetitions;
  int contexts;            /* --contexts: K more CUDA contexts measure the short benchmarks */
  double contexts_below_s; /* --contexts_below: what "short" means (median in seconds) */
  int long_contexts;       /* --long_contexts: the first this many of them measure the long ones */
  /* The launch probe: median time of an empty kernel, timed like a sample (flush, start, kernel,
   * stop), in the first CUDA context and then in each of --contexts; 0 where not measured. It is
   * recorded, not used by the gate: it shows how much of a short benchmark's time, and of the
   * offset between contexts and machines, is the launch's. */
  double launch_ns[CONTEXTS_MAX + 1];
  int n_launch;
  double min_time_s, min_warmup_s, max_noise_pct, timeout_s;
  long min_samples;
} run_context;

/* One repetition: the kept samples and what NVML saw. */
typedef struct {
  double *gpu_ns;   /* CUDA event time of each kept sample */
  double *host_ns;  /* host wall time of the run() call of the same sample */
  size_t n;         /* kept samples */
  size_t discarded; /* dropped: SM clock below min_clock_ratio x max */
  int timed_out;    /* --timeout ended sampling before the noise target was met */
  double noise;     /* final relative standard error of the mean (fraction) */
  int clocks_valid; /* the NVML fields below were read */
  unsigned sm_mhz_min, sm_mhz_max, mem_mhz_min, mem_mhz_max, temp_c_max;
  unsigned long long throttle; /* OR of NVML clock event reasons seen, GPU-idle bit excluded */
  /* With --contexts=K: the median GPU time in each CUDA context that
   * measured this repetition; their mean is the reported time. The samples
   * above are then those of all of them. ncontext 0: the first context alone. */
  double *context_ns;
  size_t ncontext;
} rep_result;

typedef struct {
  char name[256];
  int family_index, instance_index;
  int reference;
  int host_round_trip; /* bench_case.host_round_trip */
  double bytes, flops; /* per run */
  rep_result *reps;
  int nreps;
  int failed; /* self-check or CUDA error: message in error */
  char error[512];
} bench_result;

#endif
