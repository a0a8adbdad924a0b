/* The device's and the host's facts for the run JSON, and the copy and launch probes (run_state.h). */
#define _GNU_SOURCE
#include "perf/runner/run_state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------- device information ---------- */

static void version_string(int v, char *buf, size_t len) { snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10); }

int gather_gpu(runner *R, int dev, char *err, size_t errlen) {
  gpu_info *g = &R->ctx.gpu;
  struct cudaDeviceProp p;
  TRY(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  snprintf(g->name, sizeof g->name, "%s", p.name);
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  snprintf(g->uuid, sizeof g->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
           u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  TRY(cudaDeviceGetPCIBusId(g->pci_bus_id, (int)sizeof g->pci_bus_id, dev), "cudaDeviceGetPCIBusId");
  snprintf(g->compute_capability, sizeof g->compute_capability, "%d.%d", p.major, p.minor);
  g->sm_count = p.multiProcessorCount;
  g->l2_bytes = p.l2CacheSize;
  g->global_mem_bytes = (long long)p.totalGlobalMem;
  g->ecc = p.ECCEnabled != 0;
  int mem_khz = 0, bus = 0, sm_khz = 0, v = 0;
  /* CUDA 13 dropped these from cudaDeviceProp; the attributes remain. */
  TRY(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev), "cudaDeviceGetAttribute(bus width)");
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess) mem_khz = 0;
  if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) != cudaSuccess) sm_khz = 0;
  cudaGetLastError(); /* an unsupported attribute is not a sticky error; clear it */
  g->bus_width_bits = bus;
  g->mem_clock_max_mhz = mem_khz / 1000.0;
  g->sm_clock_max_mhz = sm_khz / 1000.0;
  TRY(cudaDriverGetVersion(&v), "cudaDriverGetVersion");
  version_string(v, g->cuda_driver_version, sizeof g->cuda_driver_version);
  TRY(cudaRuntimeGetVersion(&v), "cudaRuntimeGetVersion");
  version_string(v, g->runtime_version, sizeof g->runtime_version);

  char why[200] = "";
  R->nvml = nvml_open(getenv("BENCH_NVML_LIBRARY"), g->pci_bus_id, g->uuid, why, sizeof why);
  unsigned sm = 0, mem = 0;
  nvml_reading rd;
  if (!R->nvml) {
    snprintf(R->ctx.nvml, sizeof R->ctx.nvml, "unavailable: %s; clock filtering disabled", why);
  } else if (nvml_max_clocks(R->nvml, &sm, &mem) != 0 || nvml_read(R->nvml, &rd) != 0) {
    snprintf(R->ctx.nvml, sizeof R->ctx.nvml,
             "loaded, but clocks/temperature/throttle reasons are unreadable; clock filtering disabled");
  } else {
    R->nvml_ok = 1;
    g->sm_clock_max_mhz = sm; /* the filter compares NVML's clock with NVML's maximum */
    if (g->mem_clock_max_mhz <= 0) g->mem_clock_max_mhz = mem;
    /* What a reading costs decides how often the timing loop reads. */
    double t0 = now_s();
    for (int i = 0; i < 10; i++) nvml_read(R->nvml, &rd);
    double cost = (now_s() - t0) / 10;
    R->nvml_interval_s = 10 * cost;
    snprintf(R->ctx.nvml, sizeof R->ctx.nvml, "ok: a reading takes %.0f us, read at most every %.0f us", cost * 1e6,
             R->nvml_interval_s * 1e6);
  }
  if (R->nvml) {
    int ecc = nvml_ecc_enabled(R->nvml);
    if (ecc >= 0) g->ecc = ecc;
    nvml_driver_version(R->nvml, g->driver_version, sizeof g->driver_version);
  }
  /* Double data rate: two transfers per memory clock (the 2 x clock x bus width / 8). */
  g->peak_gbps = 2.0 * g->mem_clock_max_mhz * 1e6 * g->bus_width_bits / 8 / 1e9;
  R->ctx.clock_filter = R->nvml_ok && R->opt.min_clock_ratio > 0;
  return 0;
}

void gather_host(run_context *c, const char *argv0) {
  c->executable = argv0;
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  char zone[8];
  strftime(c->date, sizeof c->date, "%Y-%m-%dT%H:%M:%S", &tm);
  strftime(zone, sizeof zone, "%z", &tm); /* +hhmm -> +hh:mm, as Google Benchmark writes it */
  size_t k = strlen(c->date);
  if (strlen(zone) == 5) snprintf(c->date + k, sizeof c->date - k, "%.3s:%s", zone, zone + 3);
  if (gethostname(c->host_name, sizeof c->host_name) != 0) snprintf(c->host_name, sizeof c->host_name, "unknown");
  c->host_name[sizeof c->host_name - 1] = '\0';
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  c->num_cpus = n > 0 ? (int)n : 0;
  if (getloadavg(c->load_avg, 3) != 3) c->load_avg[0] = c->load_avg[1] = c->load_avg[2] = 0;
#ifdef NDEBUG
  c->build_type = "release";
#else
  c->build_type = "debug";
#endif
}

/* ---------- copy probe ---------- */

typedef struct {
  void *src, *dst;
  size_t bytes;
} probe_state;

static cudaError_t probe_run(void *state, cudaStream_t s) {
  probe_state *p = state;
  return cudaMemcpyAsync(p->dst, p->src, p->bytes, cudaMemcpyDeviceToDevice, s);
}

/* Device-to-device cudaMemcpy bandwidth, median over samples: the practical
 * limit every memory-bound benchmark is compared with. A failure is reported
 * in the context (no %copy), not fatal. */
void copy_probe(runner *R, const measure_cfg *cfg) {
  probe_state p = {NULL, NULL, PROBE_BYTES / 2};
  while (p.bytes >= (64u << 20)) {
    if (cudaMalloc(&p.src, p.bytes) == cudaSuccess && cudaMalloc(&p.dst, p.bytes) == cudaSuccess) break;
    cudaFree(p.src);
    p.src = p.dst = NULL;
    cudaGetLastError();
    p.bytes /= 2;
  }
  char err[256] = "";
  rep_result rep = {0};
  if (!p.src) {
    fprintf(stderr, "warning: copy probe: cannot allocate two 64 MiB buffers; %%copy left out\n");
  } else if (cudaMemset(p.src, 0x3C, p.bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    /* (0x3C: never copy zeros; the sync: the memset ran on the legacy stream) */
    fprintf(stderr, "warning: copy probe: cudaMemset failed; %%copy left out\n");
  } else if (measure(R, probe_run, &p, cfg, &rep, err, sizeof err) != 0) {
    fprintf(stderr, "warning: copy probe: %s; %%copy left out\n", err);
  } else {
    double median_ns = stats_median(rep.gpu_ns, rep.n);
    R->ctx.copy_probe_bytes = 2.0 * (double)p.bytes;
    R->ctx.copy_gbps = R->ctx.copy_probe_bytes / median_ns;
  }
  free_rep(&rep);
  cudaFree(p.src);
  cudaFree(p.dst);
  cudaGetLastError();
}

/* ---------- the launch probe ---------- */

static cudaError_t run_empty(void *state, cudaStream_t stream) {
  (void)state;
  return bench_empty_kernel(stream);
}

/* Times an empty kernel like a benchmark, in the current context, and appends its median to
 * the run's launch_ns (results.h). Only recorded: a failure is reported and leaves 0. */
void launch_probe(runner *R) {
  if (R->ctx.n_launch > CONTEXTS_MAX) return;
  measure_cfg cfg = measure_cfg_launch_probe();
  rep_result rep;
  char err[256];
  double median = 0;
  if (measure(R, run_empty, NULL, &cfg, &rep, err, sizeof err) == 0 && rep.n > 0)
    median = stats_median(rep.gpu_ns, rep.n);
  else
    fprintf(stderr, "%s: launch probe: %s\n", R->ctx.executable, err);
  free_rep(&rep);
  R->ctx.launch_ns[R->ctx.n_launch++] = median;
}
