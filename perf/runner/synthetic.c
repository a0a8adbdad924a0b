#include "perf/runner/synthetic.h"

#include <stdio.h>
#include <string.h>

static double g_gpu[3][5], g_host[3][5], g_mem_gpu[7], g_mem_host[7], g_sax_gpu[2][4], g_sax_host[2][4];
static rep_result g_add_reps[3], g_mem_rep, g_sax_reps[2];
static const context_entry g_user[] = {{"commit", "abc123"}, {"purpose", "unit test"}};

/* A context as the runner fills it: the host, an H100-like GPU, the probes and the flags. */
static void synthetic_context(run_context *ctx) {
  memset(ctx, 0, sizeof *ctx);
  ctx->executable = "./synthetic_bench";
  snprintf(ctx->date, sizeof ctx->date, "2025-01-02T03:04:05+00:00");
  snprintf(ctx->host_name, sizeof ctx->host_name, "cpu-test-host");
  ctx->num_cpus = 2;
  ctx->load_avg[0] = 0.5;
  ctx->build_type = "debug";
  ctx->seed = 18446744073709551557ull; /* > INT64_MAX: must survive as a string */
  ctx->user = g_user;
  ctx->n_user = 2;
  gpu_info *g = &ctx->gpu;
  snprintf(g->name, sizeof g->name, "Synthetic GPU (test data)");
  snprintf(g->uuid, sizeof g->uuid, "GPU-00000000-0000-0000-0000-000000000000");
  snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:00:00.0");
  snprintf(g->compute_capability, sizeof g->compute_capability, "9.0");
  g->sm_count = 132;
  g->sm_clock_max_mhz = 1980;
  g->mem_clock_max_mhz = 2619;
  g->bus_width_bits = 5120;
  g->peak_gbps = 2.0 * 2619e6 * 5120 / 8 / 1e9;
  g->l2_bytes = 52428800;
  g->global_mem_bytes = 85899345920ll;
  g->ecc = 1;
  snprintf(g->driver_version, sizeof g->driver_version, "000.00");
  snprintf(g->cuda_driver_version, sizeof g->cuda_driver_version, "13.0");
  snprintf(g->runtime_version, sizeof g->runtime_version, "13.0");
  ctx->copy_gbps = 3000;
  ctx->copy_probe_bytes = 1073741824.0;
  ctx->n_launch = 3;
  ctx->launch_ns[0] = 3904;
  ctx->launch_ns[1] = 3968;
  ctx->launch_ns[2] = 4032;
  snprintf(ctx->nvml, sizeof ctx->nvml, "ok");
  ctx->clock_filter = 1;
  ctx->min_clock_ratio = 0.7;
  ctx->l2_flush = 1;
  ctx->l2_flush_bytes = 104857600;
  ctx->repetitions = 3;
  ctx->min_time_s = 0.1;
  ctx->max_noise_pct = 0.3;
  ctx->timeout_s = 10;
  ctx->min_samples = 5;
}

/* Four results: a plain one (3 repetitions), a timed-out reference, a failed one, and one with
 * discarded samples, clock throttling, FLOPs and a host round trip. */
void synthetic_results(run_context *ctx, bench_result res[SYN_RESULTS]) {
  static const double base[5] = {1000, 1010, 990, 1005, 995};
  synthetic_context(ctx);
  memset(res, 0, SYN_RESULTS * sizeof *res);
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < 5; i++) {
      g_gpu[r][i] = base[i] + 10 * r;
      g_host[r][i] = 5 + i; /* host medians: 7 ns */
    }
    g_add_reps[r] = (rep_result){.gpu_ns = g_gpu[r],
                                 .host_ns = g_host[r],
                                 .n = 5,
                                 .noise = 0.002,
                                 .clocks_valid = 1,
                                 .sm_mhz_min = 1900,
                                 .sm_mhz_max = 1980,
                                 .mem_mhz_min = 2619,
                                 .mem_mhz_max = 2619,
                                 .temp_c_max = 60};
  }
  res[0] = (bench_result){.family_index = 0,
                          .instance_index = 0,
                          .bytes = 12.0 * 1048576,
                          .flops = 1048576,
                          .reps = g_add_reps,
                          .nreps = 3};
  snprintf(res[0].name, sizeof res[0].name, "elementwise/add_float4/N:1048576");

  for (int i = 0; i < 7; i++) {
    g_mem_gpu[i] = 700 + i; /* median 703 */
    g_mem_host[i] = 3;
  }
  g_mem_rep = (rep_result){.gpu_ns = g_mem_gpu, .host_ns = g_mem_host, .n = 7, .timed_out = 1, .noise = 0.004};
  res[1] = (bench_result){
      .family_index = 1, .instance_index = 0, .reference = 1, .bytes = 8.0 * 1048576, .reps = &g_mem_rep, .nreps = 1};
  snprintf(res[1].name, sizeof res[1].name, "copy/memcpy/N:1048576");

  res[2] = (bench_result){.family_index = 2, .instance_index = 0, .bytes = 12.0 * 16, .failed = 1};
  snprintf(res[2].name, sizeof res[2].name, "elementwise/broken/N:16");
  snprintf(res[2].error, sizeof res[2].error, "self-check failed, not timed: broken: n=16 bad=16 \"quoted\"");

  for (int r = 0; r < 2; r++) {
    for (int i = 0; i < 4; i++) {
      g_sax_gpu[r][i] = 2000 + 100 * i + 50 * r; /* medians 2150, 2200 */
      g_sax_host[r][i] = 4;
    }
    g_sax_reps[r] = (rep_result){.gpu_ns = g_sax_gpu[r],
                                 .host_ns = g_sax_host[r],
                                 .n = 4,
                                 .discarded = 3,
                                 .noise = 0.001,
                                 .clocks_valid = 1,
                                 .sm_mhz_min = 1400,
                                 .sm_mhz_max = 1980,
                                 .mem_mhz_min = 2619,
                                 .mem_mhz_max = 2619,
                                 .temp_c_max = 71,
                                 .throttle = 0x4 | 0x20};
  }
  res[3] = (bench_result){.family_index = 3,
                          .instance_index = 1,
                          .bytes = 12.0 * 16777216,
                          .flops = 2.0 * 16777216,
                          .host_round_trip = 1,
                          .reps = g_sax_reps,
                          .nreps = 2};
  snprintf(res[3].name, sizeof res[3].name, "elementwise/saxpy/N:16777216");
}
