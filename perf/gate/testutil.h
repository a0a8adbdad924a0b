/* Fixtures shared by the gate's tests: run files shaped like the runner's JSON,
 * a baseline made of three of them, and running the gate binary. */
#ifndef PERF_GATE_TESTUTIL_H
#define PERF_GATE_TESTUTIL_H

#include <check.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"

/* snprintf into an array, failing the test when the text does not fit (a cut path or
 * command would test something else). */
#define FORMAT(buf, ...) \
  ck_assert_msg((size_t)snprintf((buf), sizeof(buf), __VA_ARGS__) < sizeof(buf), "too long for " #buf)

extern char dir[512];        /* this test's scratch folder */
extern const char *gate_bin; /* the gate binary (the test's first argument) */
extern const char *H100;     /* "NVIDIA H100 80GB HBM3" */

typedef struct {
  const char *name;
  double time_ns; /* the run's time: its samples are spread +-1% around it */
} fake_bench;

extern const fake_bench base_set[3];

/* A runner-style JSON file in dir: context with gpu + copy bandwidth, one iteration entry per benchmark.
 * The seed draws the samples and sets the run's date and GPU (uuid GPU-fixture-<seed>): another seed,
 * another run on another GPU (set_context "gpu" to put runs on one GPU). */
void write_run(const char *file, const char *gpu, int sms, double copy_gbps, const fake_bench *b, size_t n,
               unsigned seed);
/* Three runs of b[0..n) as prefix/r0.json .. r2.json (seeds seed .. seed + 2: three GPUs of the model) blessed
 * into the baselines folder bl. */
void bless_three_runs(const char *bl, const char *prefix, const fake_bench *b, size_t n, unsigned seed);
/* dir/file (one of four rotating buffers). */
const char *at(const char *file);
void write_text(const char *file, const char *text);
/* Baseline from three runs (separate "processes") with slightly different medians. */
void make_baseline(gate_figures *base);
/* Sets context.<key> of a run file written by write_run. */
void set_context(const char *file, const char *key, json_t *value);
/* Sets context.gpu.uuid of a run file written by write_run (a run on another GPU of the model). */
void set_gpu_uuid(const char *file, const char *uuid);
/* Sets benchmarks[index].<key> of a run file written by write_run. */
void set_bench(const char *file, size_t index, const char *key, json_t *value);
/* Makes benchmarks[index] of a run file written by write_run a benchmark measured in k CUDA
 * contexts: their medians, ten samples per context near its median, real_time their mean,
 * and context.timing saying k contexts. */
void set_contexts(const char *file, size_t index, const double *medians, size_t k);
/* Loads the run file dir/file, failing the test if it cannot. */
gate_figures load_ok(const char *file);
/* The verdict of the comparison named `name` among c[0..n); fails the test when there is none. */
verdict verdict_of(const comparison *c, size_t n, const char *name);
/* Sixteen context medians of a 7 us kernel around `mean`: offsets spread like an H100's
 * (about 2.5 % standard deviation), drawn from a low-discrepancy sequence started at `phase`. */
void contexts_around(double mean, double phase, double *out, size_t k);
/* context.launch_ns of a run file: `first` in the first context, `each` in the 16 others. */
void set_launch(const char *file, double first, double each);
/* A run of add (16 contexts, around `add_ns`) and saxpy (one context) whose launch probe took
 * `launch` (first context) and `launch - 100` (the others); launch 0: no probe. */
void probed_run(const char *file, unsigned seed, double add_ns, double saxpy_ns, double launch);
/* n runs of base_set on H100s, dir/<name>0.json ... (seeds seed, seed + 1, ...: one GPU each). */
void write_base_runs(const char *dir, const char *name, unsigned n, unsigned seed);
void expect_error(int rc, const char *err, const char *needle);
int file_has(const char *path, const char *needle);
/* The whole text of path (up to 64 KiB), in a buffer the next call reuses; fails the test when it cannot be read. */
const char *file_text(const char *path);
/* Runs `gate ARGS` with its output discarded; returns its exit status. */
int run_gate(const char *args);
/* Runs `gate ARGS` (a printf format) with stdout and stderr kept in gate_output; returns its exit status. */
int gate(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char gate_output[65536];
/* Reads the file the gate's output went to into gate_output. */
void read_gate_output(const char *path);
/* Runs `gate ARGS` and fails the test, showing its output, unless it exits with `want`. */
void expect_gate(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails the test unless gate_output contains needle. */
void expect_output(const char *needle);
/* Runs `gate ARGS` with its files limited to `bytes` (RLIMIT_FSIZE; SIGXFSZ ignored, so that a
 * write past it fails with EFBIG, as on a full disk), output in gate_output; its exit status. */
int gate_with_file_limit(rlim_t bytes, const char *args);
/* mkdir -p dir/rel; returns dir/rel (a copy of its own). */
const char *make_dir(const char *rel);
/* An executable shell script dir/rel: BENCH_ARGS then body; returns dir/rel (a copy of its own). */
const char *make_bench(const char *rel, const char *body);
/* Sets $out, $filter, $again (1 in a re-measurement: its output is <bench>.recheck.json) and $args
 * from the gate's flags. --benchmark_list_tests prints <bench>.names (default: base_set's names);
 * --fingerprint_out copies <bench>.fingerprint (none: exit 1, as a runner without CUPTI) and notes the
 * filter in <bench>.calls. A re-measurement measures only the suspects: one without a filter is an
 * error (exit 2). */
#define BENCH_ARGS                                                                                          \
  "out=; filter=; again=; list=; fp=; args=\"$*\"\nfor a; do case $a in --benchmark_out=*) "                \
  "out=${a#--benchmark_out=};; "                                                                            \
  "--benchmark_filter=*) filter=${a#--benchmark_filter=};; --benchmark_list_tests) list=1;; "               \
  "--fingerprint_out=*) fp=${a#--fingerprint_out=};; esac; done\n"                                          \
  "case $out in *.recheck.json) again=1;; esac\n"                                                           \
  "if [ -n \"$list\" ]; then if [ -f \"$0.names\" ]; then cat \"$0.names\"; else printf "                   \
  "'elementwise/add/N:1\\nelementwise/add_float4/N:1\\nelementwise/saxpy/N:1\\n'; fi; exit 0; fi\n"         \
  "if [ -n \"$fp\" ]; then [ -f \"$0.fingerprint\" ] || { echo 'stand-in: no fingerprint' >&2; exit 1; }; " \
  "cp \"$0.fingerprint\" \"$fp\"; echo \"fingerprint $filter\" >> \"$0.calls\"; exit 0; fi\n"               \
  "if [ -n \"$again\" ] && [ -z \"$filter\" ]; then echo \"stand-in: an unfiltered re-measure\" >&2; exit 2; fi\n"

/* A stand-in benchmark dir/rel that keeps its command line in "$out.args" and writes the prepared
 * run file `run` (the first run and the re-measure alike). */
const char *args_bench(const char *rel, const char *run);
/* A stand-in benchmark binary dir/rel that writes the prepared run file `run`, or `recheck`
 * when the gate re-measures (BENCH_ARGS: $again). */
const char *copy_bench(const char *rel, const char *run, const char *recheck);
/* A baseline of base_set in dir/rel/nvidia-h100-80gb-hbm3.json; returns dir/rel. */
const char *baseline_dir(const char *rel);
/* Starts `gate ARGS...` once go[1] is closed (so that both of a pair start together), output discarded. */
pid_t start_gate(const int go[2], char *const *args);
/* Waits for pid; its exit status, or 128 + the signal that ended it. */
int exit_status(pid_t pid);

/* Sets up dir and gate_bin from main's arguments; 0 when fine. */
int test_setup(int argc, char **argv);

#endif
