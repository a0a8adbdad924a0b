/* The regression gate's view of benchmark results: a run of the runner
 * (Google Benchmark JSON) or a stored baseline, reduced to what a comparison
 * needs. Loaders validate their input and report errors as
 * "FILE: field F: what was expected (fix: ...)". */
#ifndef PERF_GATE_FIGURES_H
#define PERF_GATE_FIGURES_H

#include <stddef.h>

/* 3: what the gate needs and no more: per measure its context medians (contexts_ns), its time and how
 * many samples it took, not the samples (64 quantiles per measure were 3/4 of the file, and nothing read
 * them); runs carry their testbed. 2 (the same with samples_ns) is read, and written as 3 by any save
 * (`gate migrate`). Version 1 baselines were measured in one context per run and are refused (re-bless). */
#define BASELINE_SCHEMA_VERSION 3
#define BASELINE_OLDEST_SCHEMA_VERSION 2

/* The hardware a figure belongs to; a baseline only compares with the same. */
typedef struct {
  char name[256]; /* "NVIDIA H100 80GB HBM3" */
  char slug[256]; /* "nvidia-h100-80gb-hbm3": names the baseline file */
  int sm_count;
  double mem_clock_mhz;
  int bus_width_bits;
  int ecc;
  char driver[64], runtime[32];
} gate_gpu;

/* One run's measurement of a benchmark. The unit of evidence is the CUDA context: every
 * sample of a context shares its offset (perf/runner/contexts.h), so the statistics work on one
 * median per context. A long benchmark is measured in one context, a short one in K. */
typedef struct {
  size_t run;          /* index into gate_figures.runs: where, when, and the copy speed then */
  double time_ns;      /* the run's time: the mean of its context medians (contexts_ns; one context: its median) */
  double *contexts_ns; /* the median of each context */
  size_t ncontexts;
  double *samples_ns; /* all samples (a baseline keeps quantiles of them), for charts */
  size_t nsamples;
  size_t samples_taken; /* how many samples the run took (a baseline stores at most 64 of them) */
} gate_measure;

typedef struct {
  char *name;              /* family/variant/params */
  double bytes_per_second; /* at the run's time (a baseline: at the median of its runs' times) */
  int host_round_trip;     /* its timed region waits on the host ("host_round_trip": true in the run's
                             entries and the baseline's benchmark; perf/gate/compare.h) */
  int library_reference;   /* a library's kernel the others are measured against (label "reference" in
                             the run's entries): it never fails a merge alone (perf/gate/compare.h) */
  gate_measure *runs;      /* one per run that measured it (a run file has one) */
  size_t nruns;
} gate_bench;

/* Where and when each run was made. */
typedef struct {
  char date[64], commit[64], host[256];
  double copy_bytes_per_second; /* device-to-device copy probe of that run */
  char l2_flush[16];            /* how samples were taken: "read", "write" (memset) or "hot" */
  char gpu_uuid[64];            /* which GPU of the model ("" in files made before the field) */
  /* The runner's class of host (perf/runner/testbed.h): a run is compared only with runs of its
   * own testbed (perf/gate/compare.h). "" in files made before the field. */
  char testbed[256];
  int contexts;            /* --contexts: short benchmarks were measured in this many contexts */
  double contexts_below_s; /* ... "short": a median under this */
  int long_contexts;       /* --long_contexts: the long ones in the first this many (0: the first alone) */
  /* Seconds of warm-up per benchmark and context (--benchmark_min_warmup_time; 0: one warm-up run, and
   * runs made before the field): compute-bound kernels measure up to ~2 % apart with and without. */
  double warmup_s;
  /* The runner's launch probe (an empty kernel timed like a sample; perf/runner/results.h): its median
   * in the first CUDA context, and the mean of its medians in the --contexts ones. 0: not
   * measured (runs before the probe). The gate shows its difference and compares times as measured (compare.h). */
  double launch_first_ns, launch_contexts_ns;
} gate_run_info;

typedef struct {
  gate_gpu gpu;
  gate_run_info *runs;
  size_t nruns;
  gate_bench *b;
  size_t n;
} gate_figures;

/* Reads a JSON file whose top level is an object. NULL and a message that tells a missing
 * file, an unreadable one and one that is not JSON apart. Free with json_decref. */
struct json_t *load_json_object(const char *path, char *err, size_t errlen);
/* Reads one output file of a benchmark binary (--benchmark_out, JSON). A benchmark the run
 * reports as failed (its self-check or a CUDA call: "error_occurred") makes it an error. */
int load_run(const char *path, gate_figures *out, char *err, size_t errlen);

/* A benchmark the run reports as failed, with the runner's message. */
typedef struct {
  char name[256], message[512];
} run_failure;

/* What the report needs of a run beyond the gate's figures. */
typedef struct {
  run_failure *failed; /* left out of the figures, in file order */
  size_t nfailed;
  double peak_gbps; /* context.gpu.peak_GBps; 0 when absent */
  char compute_capability[16], executable[256];
  int *library_reference; /* per benchmark of the figures (same index): label "reference", a library reference */
  double *flops_per_call; /* per benchmark: flops_per_second x real_time of its first entry; 0: none */
} run_extras;

/* load_run for the report: failed benchmarks are kept in x->failed instead of failing the
 * load (an error still when every benchmark failed). Free with free_run_extras. */
int load_run_with_extras(const char *path, gate_figures *out, run_extras *x, char *err, size_t errlen);
void free_run_extras(run_extras *x);
/* Reads baselines/<slug>.json and checks it names the GPU its file name says. */
int load_baseline(const char *path, gate_figures *out, char *err, size_t errlen);
/* Writes text to path through a temporary file beside it (written, fsynced, renamed over path): a reader sees
 * the old file or the new one, never a part; a link is written through. 0, or 1 and a message. */
int write_file_atomically(const char *path, const char *text, char *err, size_t errlen);
/* Writes a baseline atomically (temp file, fsync, rename). */
int save_baseline(const char *path, const gate_figures *f, char *err, size_t errlen);
/* Into out, the file a write to `path` replaces: path, or the file its symbolic link points to (a temporary
 * renamed over a link would replace the link, and its target never get the text: #56 D08). 0, or 1 with a
 * reason (a link to nothing). */
int write_target(const char *path, char *out, size_t len, char *err, size_t errlen);
/* Merges runs of one GPU model into one set (every run keeps its own measures). */
int merge_runs(gate_figures *runs, size_t n, gate_figures *out, char *err, size_t errlen);
/* A baseline holds every family; a bless replaces only the families it measured.
 * Returns into *out the benchmarks of `old` whose family `fresh` does not
 * measure, then all of `fresh` (runs re-indexed, unused runs dropped). With by_name, only the
 * benchmarks `fresh` has are replaced (bless --only): the rest of their families keep their runs.
 * REBLESS_TESTBEDS: a benchmark `fresh` has keeps its runs of the testbeds none of fresh's runs was made on:
 * re-blessing a family on one host replaced its runs of every testbed, and the others' runs then passed a
 * +50 % run as "new" (#56 W03). */
int replace_families(const gate_figures *old, const gate_figures *fresh, int by_name, gate_figures *out, char *err,
                     size_t errlen);
/* A baseline that gains runs: every benchmark of `old` keeps its runs and gets `fresh`'s of the
 * same name; benchmarks only `fresh` has come with its runs alone (bless --add, to bring another
 * runner into the baseline). Where `fresh` measured long benchmarks in more contexts
 * (--long_contexts) than an old run, that run's measures of the long benchmarks `fresh` measured
 * are left out, counted in *superseded. A run already in `old` (same date, host and GPU uuid) joins
 * that entry with the benchmarks `old` has no measure of from it (a run re-blessed in part with
 * --only gains its others); one that measured a benchmark `old` holds of it, other hardware, or runs
 * made with another L2 flush, number of contexts or warm-up than the old runs of their families are errors. */
int add_runs(const gate_figures *old, const gate_figures *fresh, gate_figures *out, size_t *superseded, char *err,
             size_t errlen);
/* A shallow view of `base` limited to the families `run` measured (a family's
 * perf test compares only its own benchmarks). Free with free(view->b) only. */
void families_of(const gate_figures *base, const gate_figures *run, gate_figures *view);
/* The same, limited to the benchmarks `run` has (by name). */
void benchmarks_of(const gate_figures *base, const gate_figures *run, gate_figures *view);
void free_figures(gate_figures *f);
void free_bench(gate_bench *b);

/* "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3". */
void gpu_slug(const char *name, char *slug, size_t len);
/* 1 when x and y are one run: the same date, host and GPU uuid (one process of one machine). */
int same_run(const gate_run_info *x, const gate_run_info *y);
/* Run indices 0..n) ordered by date, host and GPU uuid, then index: the copies of one run (same_run) side by
 * side, each run's first copy first. NULL when out of memory; free it. */
size_t *runs_by_identity(const gate_run_info *runs, size_t n);
/* 0 when `run` is the same hardware as `base`; else 1 and a message naming the field. */
int same_hardware(const gate_gpu *base, const gate_gpu *run, char *err, size_t errlen);

/* 0 when every run that `base` (or a view of it) draws its measures from was
 * taken with run's L2 flush, run's contexts and run's warm-up; else 1 and a message naming the
 * field. Figures taken differently do not compare. */
int same_method(const gate_figures *base, const gate_figures *run, char *err, size_t errlen);

const gate_bench *find_bench(const gate_figures *f, const char *name);

#endif
