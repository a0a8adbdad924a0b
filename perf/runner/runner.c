/* The benchmark runner: flags, device discovery, the timing loop, reports.
 *
 * One sample, all queued on one stream without host synchronisation:
 *   L2 flush (or, with --hot, a short spin kernel) -> start event -> run() ->
 *   stop event; then wait for the stop event and read NVML.
 * The GPU time (real_time) is the event interval. The host time (cpu_time) is
 * the wall time of the run() call on the host: launch cost and any host step. */
#define _GNU_SOURCE
#include "perf/runner/run_state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const kPrepStep[PREP_STEPS] = {"set-up", "first run", "check", "teardown",
                                                  "contexts made and freed"};

static double prep_total(const prep_account *a) {
  double t = 0;
  for (int i = 0; i < PREP_STEPS; i++) t += a->s[i];
  return t;
}

/* "set-up 5.1 s, first run 0.2 s, ...; slowest elementwise/add/N:268435456 1.2 s" */
static void prep_describe(const prep_account *a, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < PREP_STEPS && k < len; i++) {
    if (i == PREP_CONTEXT && a->s[i] == 0) continue;
    k += (size_t)snprintf(buf + k, len - k, "%s%s %.1f s", i ? ", " : "", kPrepStep[i], a->s[i]);
  }
  if (k < len && a->slowest[0]) snprintf(buf + k, len - k, "; slowest %s %.2f s", a->slowest, a->slowest_s);
}

/* ---------- main ---------- */

static int usage_error(const char *prog, const char *msg) {
  fprintf(stderr, "%s: %s\n", prog, msg);
  fprintf(stderr,
          "usage: %s [--benchmark_filter=<regex>] [--benchmark_format=console|json|csv] ... (--help lists "
          "every flag)\n",
          prog);
  return 2;
}

/* `bazel run` starts the binary in its runfiles tree; a relative
 * --benchmark_out means the directory the user ran bazel from. */
static const char *resolve_out_path(const char *path, char *buf, size_t len) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (!path || path[0] == '/' || !wd || !*wd) return path;
  snprintf(buf, len, "%s/%s", wd, path);
  return buf;
}

/* The reporter of a format (reporter.h). */
static void make_reporter(reporter *r, out_format fmt, FILE *f, int aggregates_only, int name_width) {
  if (fmt == FORMAT_JSON)
    json_reporter(r, f, aggregates_only);
  else if (fmt == FORMAT_CSV)
    csv_reporter(r, f, aggregates_only);
  else
    console_reporter(r, f, aggregates_only, name_width);
}

static uint64_t pick_seed(void) {
  const char *env = getenv("BENCH_SEED");
  if (env && *env) return strtoull(env, NULL, 0);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

/* The registered cases whose names pass the filter: indices and names. */
typedef struct {
  size_t n, *index;
  char (*names)[256];
  const char **name_ptrs;
} selection;

/* The cases one pass runs (the first context: all; another context: the short ones), in order,
 * and who of them sets up, reuses and tears down (bench_plan_inputs). */
typedef struct {
  size_t n;
  size_t *pos;    /* positions in the selection */
  size_t *cases;  /* their registry indices */
  size_t *leader; /* bench_plan_inputs */
  unsigned char *last;
  void **state; /* the live state of each leader, NULL when none */
} input_plan;

static void plan_free(input_plan *p) {
  free(p->pos);
  free(p->cases);
  free(p->leader);
  free(p->last);
  free(p->state);
  memset(p, 0, sizeof *p);
}

/* The positions of sel where take is non-zero (take NULL: all). Returns -1 when out of memory. */
static int plan_make(input_plan *p, const selection *sel, const int *take) {
  memset(p, 0, sizeof *p);
  size_t m = sel->n + 1;
  p->pos = malloc(m * sizeof *p->pos);
  p->cases = malloc(m * sizeof *p->cases);
  p->leader = malloc(m * sizeof *p->leader);
  p->last = malloc(m);
  p->state = calloc(m, sizeof *p->state);
  if (!p->pos || !p->cases || !p->leader || !p->last || !p->state) {
    plan_free(p);
    return -1;
  }
  for (size_t i = 0; i < sel->n; i++)
    if (!take || take[i]) {
      p->pos[p->n] = i;
      p->cases[p->n++] = sel->index[i];
    }
  bench_plan_inputs(p->cases, p->n, p->leader, p->last);
  return 0;
}

/* Tears down what a pass left set up (a pass cut short), then frees the plan. */
static void plan_close(input_plan *p) {
  for (size_t k = 0; k < p->n; k++)
    if (p->state[k]) bench_get(p->cases[k])->ops->teardown(p->state[k]);
  plan_free(p);
}

static int select_cases(const char *spec, selection *sel, char *err, size_t errlen) {
  bench_filter filter;
  if (filter_compile(&filter, spec, err, errlen) != 0) return -1;
  size_t total = bench_count() + 1;
  sel->n = 0;
  sel->index = malloc(total * sizeof *sel->index);
  sel->names = malloc(total * sizeof *sel->names);
  sel->name_ptrs = malloc(total * sizeof *sel->name_ptrs);
  if (!sel->index || !sel->names || !sel->name_ptrs) {
    filter_free(&filter);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < bench_count(); i++) {
    char *name = sel->names[sel->n];
    bench_case_name(bench_get(i), name, sizeof sel->names[0]);
    if (filter_match(&filter, name)) {
      sel->name_ptrs[sel->n] = name;
      sel->index[sel->n++] = i;
    }
  }
  filter_free(&filter);
  return 0;
}

static void fill_context(run_context *ctx, const bench_options *o, const char *prog, context_entry *user) {
  gather_host(ctx, prog);
  ctx->seed = pick_seed();
  for (int i = 0; i < o->n_context; i++) user[i] = (context_entry){o->context[i].key, o->context[i].value};
  ctx->user = user;
  ctx->n_user = (size_t)o->n_context;
  ctx->min_clock_ratio = o->min_clock_ratio;
  ctx->repetitions = o->repetitions;
  ctx->contexts = o->contexts;
  ctx->contexts_below_s = o->contexts_below_s;
  ctx->long_contexts = o->long_contexts;
  ctx->min_time_s = o->min_time_s;
  ctx->min_warmup_s = o->min_warmup_s;
  ctx->max_noise_pct = o->max_noise_pct;
  ctx->timeout_s = o->timeout_s;
  ctx->min_samples = o->min_samples;
}

/* The stream, events and L2 flush buffer of the timing loop, made in the
 * current CUDA context (each context of --contexts has its own). */
static int open_sampling(runner *R, char *err, size_t errlen) {
  TRY(cudaStreamCreateWithFlags(&R->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  TRY(cudaEventCreate(&R->start), "cudaEventCreate");
  TRY(cudaEventCreate(&R->stop), "cudaEventCreate");
  if (!R->opt.hot) {
    /* Twice the L2, so no line of a benchmark's data survives the flush. */
    long long l2 = R->ctx.gpu.l2_bytes > 0 ? R->ctx.gpu.l2_bytes : 64ll << 20;
    R->flush_bytes = 2 * (size_t)l2;
    TRY(cudaMalloc(&R->flush, R->flush_bytes), "cudaMalloc of the L2 flush buffer");
    /* The read flush needs zeros (see perf/runner/untimed.h); written once, here. */
    TRY(cudaMemset(R->flush, 0, R->flush_bytes), "cudaMemset of the L2 flush buffer");
    TRY(cudaDeviceSynchronize(), "cudaMemset of the L2 flush buffer");
  }
  return 0;
}

static void close_sampling(runner *R) {
  if (R->flush) cudaFree(R->flush);
  if (R->start) cudaEventDestroy(R->start);
  if (R->stop) cudaEventDestroy(R->stop);
  if (R->stream) cudaStreamDestroy(R->stream);
  R->flush = NULL;
  R->start = R->stop = NULL;
  R->stream = NULL;
}

/* Device description, NVML, and the sampling resources of the first context. */
static int setup_device(runner *R, char *err, size_t errlen) {
  const bench_options *o = &R->opt;
  TRY(cudaSetDevice(o->device), "cudaSetDevice");
  if (gather_gpu(R, o->device, err, errlen) != 0) return -1;
  /* The host's class, as //perf/tools:testbed tells ci/gate.sh: nothing of this process (its device) goes in. */
  if (testbed_of_host(&R->ctx.testbed_facts, R->ctx.testbed, sizeof R->ctx.testbed, &R->ctx.testbed_source, err,
                      errlen) != 0)
    return -1;
  if (open_sampling(R, err, errlen) != 0) return -1;
  if (!o->hot) {
    R->ctx.l2_flush = 1;
    R->ctx.l2_flush_write = o->l2_flush_write;
    R->ctx.l2_flush_bytes = (double)R->flush_bytes;
  }
  return 0;
}

static void release_device(runner *R) {
  nvml_close(R->nvml);
  close_sampling(R);
}

/* Measures the benchmarks that `take` marks once more in the current CUDA context, each with cfg,
 * and pools each repetition into res (context k of --contexts). A benchmark that fails there
 * fails in res. Returns how many failed, or -1 with a message. */
static int measure_taken(runner *R, const selection *sel, const int *take, const measure_cfg *cfg, bench_result *res,
                         int k, char *err, size_t errlen) {
  input_plan plan = {0};
  if (plan_make(&plan, sel, take) != 0) {
    snprintf(err, errlen, "out of host memory");
    return -1;
  }
  int failed = 0;
  for (size_t q = 0; q < plan.n; q++) {
    size_t i = plan.pos[q];
    bench_result one;
    memset(&one, 0, sizeof one);
    /* The first context checked this case's output from the same inputs: here only the
     * timing is new, and a check of a 2^24-element output costs more than its samples. */
    run_case(R, plan.cases[q], cfg, NULL, 0, &plan.state[plan.leader[q]], plan.last[q], &one);
    for (int r = 0; !one.failed && r < one.nreps; r++)
      if (contexts_pool(&res[i].reps[r], &one.reps[r]) != 0) {
        one.failed = 1;
        snprintf(one.error, sizeof one.error, "out of host memory");
      }
    if (one.failed) {
      res[i].failed = 1;
      failed++;
      snprintf(res[i].error, sizeof res[i].error, "--contexts: in context %d of %d: %.400s", k + 1, R->opt.contexts,
               one.error);
      fprintf(stderr, "%s: ERROR OCCURRED: '%s'\n", res[i].name, res[i].error);
    }
    for (int r = 0; r < one.nreps; r++) free_rep(&one.reps[r]);
    free(one.reps);
  }
  plan_close(&plan);
  return failed;
}

/* Where a benchmark is measured again under --contexts. */
typedef enum { IN_FIRST_ONLY, IN_EVERY_CONTEXT, IN_FIRST_L_CONTEXTS } context_plan;

/* Context k of --contexts: a new CUDA context, made current for the time, measures the short
 * benchmarks (IN_EVERY_CONTEXT), then the launch probe, then, in the first --long_contexts
 * contexts, the long ones (IN_FIRST_L_CONTEXTS); each is pooled into res. Returns how many
 * benchmarks failed, or -1 with a message when the context itself could not be made, used or
 * destroyed. */
static int measure_in_one_context(runner *R, const selection *sel, const context_plan *where,
                                  const measure_cfg *each_short, const measure_cfg *each_long, bench_result *res, int k,
                                  char *err, size_t errlen) {
  const bench_options *o = &R->opt;
  driver_context first, made;
  double t0 = now_s();
  if (driver_context_current(&first, err, errlen) || driver_context_create(o->device, &made, err, errlen)) return -1;
  int failed = 0, rc = open_sampling(R, err, errlen);
  R->prep.s[PREP_CONTEXT] += now_s() - t0;
  int *take = calloc(sel->n + 1, sizeof *take);
  if (rc == 0 && !take) {
    snprintf(err, errlen, "out of host memory");
    rc = -1;
  }
  for (int pass = 0; rc == 0 && pass < 2; pass++) {
    /* Pass 0: the short ones; pass 1, in the first --long_contexts contexts only: the long ones. */
    int any = 0;
    for (size_t i = 0; i < sel->n; i++) {
      int want = pass == 0 ? where[i] == IN_EVERY_CONTEXT : where[i] == IN_FIRST_L_CONTEXTS && k < o->long_contexts;
      any |= take[i] = want && !res[i].failed;
    }
    int n = any ? measure_taken(R, sel, take, pass == 0 ? each_short : each_long, res, k, err, errlen) : 0;
    if (n < 0) rc = -1;
    failed += n > 0 ? n : 0;
    /* The probe goes right after the short ones: timed before them, it made the 3-launch reduce
     * v0..v5 that follow it 0.9 us slower in every context (docs/RESULTS.md, an A/B on one H100);
     * the long ones come after it, so the short ones and the probe are measured as in every
     * other context. */
    if (rc == 0 && pass == 0) launch_probe(R);
  }
  free(take);
  t0 = now_s();
  close_sampling(R);
  char why[256];
  if (driver_context_set_current(first, why, sizeof why) || driver_context_destroy(made, why, sizeof why)) {
    if (rc == 0) snprintf(err, errlen, "%s", why);
    rc = -1;
  }
  R->prep.s[PREP_CONTEXT] += now_s() - t0;
  return rc == 0 ? failed : -1;
}

/* --contexts=K: the short benchmarks again in K more CUDA contexts of this process, one after
 * another, and with --long_contexts=L the long ones in the first L of them, pooled into res in
 * place of the first context's samples (see perf/runner/contexts.h). Returns the number of
 * benchmarks that failed. */
static int measure_in_contexts(runner *R, const selection *sel, const measure_cfg *cfg, bench_result *res) {
  const bench_options *o = &R->opt;
  const char *prog = R->ctx.executable;
  context_plan *where = calloc(sel->n + 1, sizeof *where);
  int nshort = 0, nlong = 0, failed = 0;
  if (!where) {
    fprintf(stderr, "%s: error: out of memory\n", prog);
    return 1;
  }
  for (size_t i = 0; i < sel->n; i++) {
    if (contexts_is_short(&res[i], o->contexts_below_s * 1e9))
      where[i] = IN_EVERY_CONTEXT, nshort++;
    else if (o->long_contexts > 0 && !res[i].failed && res[i].nreps > 0)
      where[i] = IN_FIRST_L_CONTEXTS, nlong++;
  }
  if (nshort + nlong == 0) {
    free(where);
    return 0;
  }
  /* Without short benchmarks, the contexts after the first L would measure nothing. */
  int made = nshort > 0 ? o->contexts : o->long_contexts;
  measure_cfg each_short = measure_cfg_context(cfg, o->contexts),
              each_long = measure_cfg_context(cfg, o->long_contexts);
  /* The first context's flush buffer and stream stay; each new context gets its own. */
  runner saved = *R;
  fprintf(stderr, "%s: measuring %d benchmark(s) under %g us in %d more CUDA contexts", prog, nshort,
          o->contexts_below_s * 1e6, o->contexts);
  if (nlong) fprintf(stderr, ", and %d longer one(s) in the first %d of them", nlong, o->long_contexts);
  fprintf(stderr, "\n");
  double t0 = now_s();
  memset(&R->prep, 0, sizeof R->prep); /* the first context's was reported */
  char err[512] = "";
  for (int k = 0; k < made && !err[0]; k++) {
    int n = measure_in_one_context(R, sel, where, &each_short, &each_long, res, k, err, sizeof err);
    if (n > 0) failed += n;
    if (n < 0 && !err[0]) snprintf(err, sizeof err, "unknown error");
    if (n < 0) fprintf(stderr, "%s: error: --contexts: context %d of %d: %s\n", prog, k + 1, o->contexts, err);
  }
  R->stream = saved.stream;
  R->start = saved.start;
  R->stop = saved.stop;
  R->flush = saved.flush;
  char prep[512];
  prep_describe(&R->prep, prep, sizeof prep);
  fprintf(stderr, "%s: the %d contexts took %.1f s (outside sampling %.1f s: %s)\n", prog, made, now_s() - t0,
          prep_total(&R->prep), prep);
  /* A context that could not be made leaves benchmarks measured in fewer contexts than planned: they fail. */
  for (size_t i = 0; i < sel->n; i++) {
    if (where[i] == IN_FIRST_ONLY || res[i].failed) continue;
    int want = where[i] == IN_EVERY_CONTEXT ? o->contexts : o->long_contexts;
    for (int r = 0; r < res[i].nreps; r++) {
      if (res[i].reps[r].ncontext == (size_t)want) continue;
      res[i].failed = 1;
      failed++;
      snprintf(res[i].error, sizeof res[i].error, "--contexts=%d: measured in %zu of %d contexts: %.400s", o->contexts,
               res[i].reps[r].ncontext, want, err[0] ? err : "see above");
      fprintf(stderr, "%s: ERROR OCCURRED: '%s'\n", res[i].name, res[i].error);
      break;
    }
  }
  free(where);
  return failed;
}

/* Parses the flags. Returns -1 to go on, else the exit status (0 after --help, 2 for a bad flag). */
static int parse_flags(int argc, char **argv, const char *prog, bench_options *o) {
  char err[512];
  flags_status fs = flags_parse(argc, argv, o, err, sizeof err);
  if (fs == FLAGS_HELP) {
    flags_usage(stdout, prog);
    return 0;
  }
  if (fs == FLAGS_ERROR) return usage_error(prog, err);
  for (int i = 0; i < o->n_context; i++) {
    if (report_context_key_reserved(o->context[i].key)) {
      snprintf(err, sizeof err, "--benchmark_context: '%s' is a key the runner writes itself; choose another",
               o->context[i].key);
      return usage_error(prog, err);
    }
  }
  return -1;
}

/* A GPU, and the one --device names: -1 if there is, else the exit status after a message. No GPU is exit 2, as a
 * bad flag: the machine, not a benchmark, is wrong (1 is a failed self-check, which the gate calls a regression). */
static int check_device(const char *prog, const bench_options *o) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr,
            "%s: error: no usable CUDA device (cudaGetDeviceCount: %s): no CUDA device is visible. The benchmarks "
            "need an NVIDIA GPU with its driver: check CUDA_VISIBLE_DEVICES and nvidia-smi, or run the tests with "
            "--config=cpu (GPU tests left out); --benchmark_list_tests and --help work without one.\n",
            prog, e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
    return 2;
  }
  if (o->device >= count) {
    char err[256];
    snprintf(err, sizeof err, "--device=%d: this machine has %d CUDA device(s), ordinals 0..%d", o->device, count,
             count - 1);
    return usage_error(prog, err);
  }
  return -1;
}

/* Measures the selected cases into res (the first context, then --contexts) and reports them on
 * stdout and to `out`, which it closes: each result once it is final, as soon as the first context
 * measured it, or with --contexts after every context has. Returns the exit status: 1 if a case
 * failed or `out` could not be written. */
static int measure_and_report(runner *R, const selection *sel, bench_result *res, FILE *out, const char *out_path) {
  const bench_options *o = &R->opt;
  const char *prog = R->ctx.executable;
  int rc = 0;
  measure_cfg cfg = {o->min_samples, o->min_time_s, o->max_noise_pct / 100, o->timeout_s, o->min_warmup_s, 0};
  int contexts = o->contexts > 1; /* results are reported once every context has measured */
  /* The warm-up goes only where a measurement is kept (perf/runner/measure_cfg.h). */
  measure_cfg quick = measure_cfg_quick(&cfg, o->contexts), probe_cfg = measure_cfg_copy_probe(&cfg);
  double t_probes = now_s();
  copy_probe(R, &probe_cfg);
  launch_probe(R);

  /* Two reporters: the display on stdout (--benchmark_format) and the file (--benchmark_out). */
  int width = console_name_width(sel->name_ptrs, sel->n, o->repetitions);
  reporter display, file;
  make_reporter(&display, o->format, stdout, o->report_aggregates_only || o->display_aggregates_only, width);
  make_reporter(&file, o->out_format, out, o->report_aggregates_only, width);
  double t_first = now_s();
  input_plan plan;
  if (plan_make(&plan, sel, NULL) != 0) {
    fprintf(stderr, "%s: error: out of memory\n", prog);
    return 1;
  }
  int display_rc = display.begin(&display, &R->ctx), file_rc = out ? file.begin(&file, &R->ctx) : 0;
  for (size_t i = 0; i < sel->n; i++) {
    run_case(R, sel->index[i], &cfg, contexts ? &quick : NULL, 1, &plan.state[plan.leader[i]], plan.last[i], &res[i]);
    if (res[i].failed) {
      rc = 1;
      if (o->format != FORMAT_CONSOLE) fprintf(stderr, "%s: ERROR OCCURRED: '%s'\n", res[i].name, res[i].error);
    }
    if (!contexts) {
      display_rc |= display.result(&display, &res[i]);
      if (out) file_rc |= file.result(&file, &res[i]);
    }
  }
  plan_close(&plan);
  char prep[512];
  prep_describe(&R->prep, prep, sizeof prep);
  fprintf(stderr,
          "%s: start-up %.1f s (device, NVML and the first context %.1f s; copy and launch probes %.1f s); %zu "
          "benchmark(s) in the first CUDA context took %.1f s (outside sampling %.1f s: %s)\n",
          prog, R->device_s + t_first - t_probes, R->device_s, t_first - t_probes, sel->n, now_s() - t_first,
          prep_total(&R->prep), prep);
  if (contexts && measure_in_contexts(R, sel, &cfg, res) > 0) rc = 1;
  for (size_t i = 0; contexts && i < sel->n; i++) {
    display_rc |= display.result(&display, &res[i]);
    if (out) file_rc |= file.result(&file, &res[i]);
  }
  if ((display.end(&display) | display_rc) != 0)
    fprintf(stderr, "%s: error: writing the %s report to stdout failed\n", prog, format_name(o->format));
  if (out) {
    file_rc |= file.end(&file);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed || file_rc) {
      fprintf(stderr, "%s: error: writing --benchmark_out=%s failed\n", prog, out_path);
      rc = 1;
    }
  }
  fflush(stdout);
  return rc;
}

static void free_results(bench_result *res, size_t n) {
  for (size_t i = 0; res && i < n; i++) {
    for (int k = 0; k < res[i].nreps; k++) free_rep(&res[i].reps[k]);
    free(res[i].reps);
  }
  free(res);
}

/* ---------- --fingerprint_out ---------- */

/* Generated by BUILD from the runner's own sources: a changed runner never reads as unchanged. */
extern const char bench_runner_id[];

/* One traced run of a set-up case's timed region: warmed by an untraced run, after the L2 flush
 * the timed loop queues before a sample. The flush is waited for, so that it is not traced. */
static int trace_run(runner *R, const bench_case *c, void *state, fp_ops *ops, char *err, size_t errlen) {
  /* setup's copies and memsets ran on the legacy default stream (see run_case). */
  TRY(cudaDeviceSynchronize(), "set-up (execution)");
  TRY(c->ops->run(state, R->stream), "untraced run");
  TRY(cudaStreamSynchronize(R->stream), "untraced run (execution)");
  if (queue_flush(R, 0, err, errlen) != 0) return -1;
  TRY(cudaStreamSynchronize(R->stream), "L2 flush (execution)");
  if (cupti_trace_begin(err, errlen) != 0) return -1;
  cudaError_t e = c->ops->run(state, R->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(R->stream);
  int rc = cupti_trace_end(ops, err, errlen); /* always: it stops the recording */
  if (e != cudaSuccess) return cuda_fail("traced run", e, err, errlen);
  return rc;
}

/* Sets up (or reuses *shared, as run_case does), traces one run into ops, and tears down when
 * this case is the last of its inputs or failed. Returns 0, or -1 with a message. */
static int fingerprint_case(runner *R, size_t idx, void **shared, int last, fp_ops *ops, char *err, size_t errlen) {
  const bench_case *c = bench_get(idx);
  char why[400] = "";
  void *state = *shared;
  *shared = NULL;
  if (state && c->ops->reuse(state, c, why, sizeof why) != 0) {
    snprintf(err, errlen, "reuse of the set-up of the same inputs: %s", why);
    c->ops->teardown(state);
    return -1;
  }
  if (!state && c->ops->setup(c, R->ctx.seed + 0x9E3779B97F4A7C15ull * (idx + 1), &state, why, sizeof why) != 0) {
    snprintf(err, errlen, "setup: %s", why);
    return -1;
  }
  int rc = trace_run(R, c, state, ops, err, errlen);
  if (last || rc != 0)
    c->ops->teardown(state);
  else
    *shared = state;
  return rc;
}

/* --fingerprint_out: what each selected case's timed region runs, in the order and with the
 * set-up sharing of a measured run; nothing is timed or checked. Returns the exit status. */
static int fingerprint_selection(runner *R, const selection *sel, const char *prog) {
  const bench_options *o = &R->opt;
  char err[1024];
  /* CUPTI sees a module's cubin only if it subscribed before the module loaded: first of all. */
  if (cupti_trace_open(err, sizeof err) != 0) {
    fprintf(stderr, "%s: error: --fingerprint_out: %s\n", prog, err);
    return 1;
  }
  int rc = check_device(prog, o);
  if (rc >= 0) {
    cupti_trace_close();
    return rc;
  }
  context_entry user[MAX_CONTEXT];
  fill_context(&R->ctx, o, prog, user);
  input_plan plan = {0};
  json_t *doc = NULL;
  rc = 1;
  if (setup_device(R, err, sizeof err) != 0) {
    fprintf(stderr, "%s: error on CUDA device %d: %s\n", prog, o->device, err);
  } else if (!(doc = fp_doc_new(bench_runner_id, R->ctx.gpu.name)) || plan_make(&plan, sel, NULL) != 0) {
    fprintf(stderr, "%s: error: out of memory\n", prog);
  } else {
    rc = 0;
    for (size_t i = 0; rc == 0 && i < sel->n; i++) {
      fp_ops ops = {0};
      const bench_case *c = bench_get(sel->index[i]);
      if (fingerprint_case(R, sel->index[i], &plan.state[plan.leader[i]], plan.last[i], &ops, err, sizeof err) != 0) {
        fprintf(stderr, "%s: error: --fingerprint_out: %s: %s\n", prog, sel->name_ptrs[i], err);
        rc = 1;
      } else if (fp_doc_add(doc, sel->name_ptrs[i], c->host_round_trip, &ops) != 0) {
        fprintf(stderr, "%s: error: out of memory\n", prog);
        rc = 1;
      }
      fp_ops_clear(&ops);
    }
  }
  plan_close(&plan);
  char path_buf[4096];
  const char *path = resolve_out_path(o->fingerprint_out, path_buf, sizeof path_buf);
  if (rc == 0 && fp_doc_write(doc, path, err, sizeof err) != 0) {
    fprintf(stderr, "%s: error: writing --fingerprint_out=%s: %s\n", prog, path, err);
    rc = 1;
  }
  if (rc == 0) fprintf(stderr, "%s: wrote the fingerprint of %zu benchmark(s) to %s\n", prog, sel->n, path);
  json_decref(doc);
  cupti_trace_close();
  return rc;
}

/* Lists or measures the selected cases. Returns the exit status. */
static int run_selection(runner *R, const selection *sel, const char *prog) {
  const bench_options *o = &R->opt;
  if (sel->n == 0) {
    fprintf(stderr, "%s: no benchmark matches --benchmark_filter=%s (--benchmark_list_tests lists them)\n", prog,
            o->filter);
    return 2;
  }
  if (o->list_tests) {
    for (size_t i = 0; i < sel->n; i++) printf("%s\n", sel->name_ptrs[i]);
    return 0;
  }
  if (o->fingerprint_out) return fingerprint_selection(R, sel, prog);
  double t0 = now_s();            /* the runtime starts in check_device */
  int rc = check_device(prog, o); /* everything from here needs the GPU */
  if (rc >= 0) return rc;
  /* Opened before the run, so a bad path fails in seconds, not after it. */
  char out_buf[4096];
  const char *out_path = resolve_out_path(o->out_path, out_buf, sizeof out_buf);
  FILE *out = NULL;
  if (out_path && !(out = fopen(out_path, "w"))) {
    fprintf(stderr, "%s: error: cannot open --benchmark_out=%s: %s\n", prog, out_path, strerror(errno));
    return 1;
  }
  context_entry user[MAX_CONTEXT]; /* R->ctx points into it until the report is written */
  fill_context(&R->ctx, o, prog, user);
  char err[512];
  bench_result *res = NULL;
  rc = 1;
  int device_failed = setup_device(R, err, sizeof err) != 0;
  R->device_s = now_s() - t0;
  if (device_failed) {
    fprintf(stderr, "%s: error on CUDA device %d: %s\n", prog, o->device, err);
  } else if (!(res = calloc(sel->n, sizeof *res))) {
    fprintf(stderr, "%s: error: out of memory\n", prog);
  } else {
    rc = measure_and_report(R, sel, res, out, out_path);
    out = NULL; /* closed there */
  }
  if (out) fclose(out);
  free_results(res, sel->n);
  return rc;
}

int bench_main(int argc, char **argv) {
  const char *prog = argc > 0 && argv[0] ? argv[0] : "bench";
  runner R;
  memset(&R, 0, sizeof R);
  int rc = parse_flags(argc, argv, prog, &R.opt);
  if (rc >= 0) return rc;
  char err[512];
  selection sel = {0};
  if (select_cases(R.opt.filter, &sel, err, sizeof err) != 0) return usage_error(prog, err);
  rc = run_selection(&R, &sel, prog);
  free(sel.index);
  free(sel.names);
  free(sel.name_ptrs);
  release_device(&R);
  return rc;
}
