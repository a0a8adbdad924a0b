/* Benchmark registration API.
 *
 * One benchmark binary per kernel family. Its main() registers cases and hands
 * over to the runner:
 *
 *   static void add_cost(bench_case *c) { c->bytes = 12.0 * c->params[0].value; c->flops = c->params[0].value; }
 *
 *   int main(int argc, char **argv) {
 *     static const long long sizes[] = {1 << 20, 1 << 24, 1 << 28};
 *     bench_register_grid(&(bench_grid){.family = "elementwise", .ops = &add_ops,
 *                                       BENCH_VARIANTS(add_variants, add_nvariants),
 *                                       .param_names = {"N"}, .sizes = sizes, .nsizes = 3,
 *                                       .cost = add_cost});
 *     return bench_main(argc, argv);
 *   }
 *
 * (bench_register_grid registers each variant at each size; bench_register registers one case.)
 *
 * A case is named the Google Benchmark way, family/variant/param:value/...,
 * e.g. "elementwise/add_float4/N:33554432" or "transpose/tiled/nx:8192/ny:8192".
 *
 * For every selected case the runner calls, in this order:
 *   setup     once: allocate, fill inputs with non-zero random data from `seed`,
 *             poison outputs. The state it returns is passed to the other ops.
 *             It may use synchronous or default-stream calls: the runner
 *             synchronises the device before the first run.
 *             With a reuse op, the cases of one ops table and one size share a
 *             set-up: the first of them that runs sets up, each later one
 *             gets the same state through reuse (same calls and rules), and
 *             the last one tears it down. Set-up (random inputs of up to
 *             2 GiB, their upload) was a fifth of a perf test's time.
 *   run       once, then verify: the one-time correctness self-check. A case
 *             whose verify fails is reported as an error (exit status 1), never
 *             timed.
 *   run       many times, each one a timed sample: CUDA events on `stream`
 *             bracket exactly this call (an L2 flush precedes it, untimed).
 *             run must be re-runnable and may include host work (it is timed
 *             too). It launches on `stream` and returns the launch's error.
 *   teardown  once, also after a failure of verify or run (not after a failed
 *             setup, which must clean up after itself).
 *
 * Registering a case touches no CUDA API, so --benchmark_list_tests works on a
 * machine without a GPU.
 */
#ifndef PERF_RUNNER_BENCH_H
#define PERF_RUNNER_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_PARAMS 4

/* A named integer parameter, printed "name:value". Unused slots have name NULL. */
typedef struct {
  const char *name;
  long long value;
} bench_param;

typedef struct bench_case bench_case;

typedef struct {
  /* Returns 0, or non-zero with a message in err (then nothing is left allocated). */
  int (*setup)(const bench_case *c, uint64_t seed, void **state, char *err, size_t errlen);
  cudaError_t (*run)(void *state, cudaStream_t stream);
  /* Checks the output of setup + one run against an fp64 CPU reference.
   * Returns 0, or non-zero with a message in err. */
  int (*verify)(void *state, char *err, size_t errlen);
  void (*teardown)(void *state);
  /* Optional (NULL: every case sets up its own state). Readies a state that setup made for another
   * case of these ops with the same params (bench_same_inputs) for case c: c's variant, every buffer
   * a variant writes poisoned again (outputs and workspace, so a variant that writes nothing fails
   * its check even after one that wrote the right answer), inputs that runs overwrite restored.
   * Returns 0, or non-zero with a message in err (the runner then tears the state down). */
  int (*reuse)(void *state, const bench_case *c, char *err, size_t errlen);
} bench_ops;

struct bench_case {
  const char *family;  /* "elementwise", "copy", "reduce", ... */
  const char *variant; /* "add_float4", "memcpy", ... */
  bench_param params[BENCH_MAX_PARAMS];
  double bytes;        /* bytes read + written by one run (GB/s is computed from it) */
  double flops;        /* floating-point operations of one run; 0: not reported */
  int reference;       /* a library baseline (cudaMemcpy, cuBLAS, CUB): reported, marked
                          "reference", never the code under test */
  int host_round_trip; /* its timed region waits on the host (a host finish): how long that takes is
                          set by the host, not by the GPU, and the gate judges it so (compare.h) */
  const bench_ops *ops;
  const void *arg; /* the variant's own data (e.g. which kernel), for the ops */
};

/* Copies *c into the registry (strings must outlive the program: literals).
 * Exits 2 with a message on a malformed case (no ops, a name that is not a non-empty
 * string of letters, digits, '_', '-' and '.', too long a name, a duplicate name): a
 * registration bug, found before anything runs. */
void bench_register(const bench_case *c);

/* Every variant of a family's table at every size, in one call: the cases nested loops over
 * variants, then sizes, would register. Each case has the grid's family and ops, the entry's
 * name as its variant (every entry of a variant table starts with `const char *name`), the entry
 * itself as arg, the entry's int at reference_at as its reference flag (0: none of the table is a
 * reference) and the one at host_round_trip_at as its host_round_trip flag (0: none), the size's
 * row of values under param_names as params; then cost sets its bytes and flops from those params.
 * A table whose entry does not start with a name (its first member a launcher, a number, NULL) exits 2
 * naming the entry and what its first member holds. */
typedef struct {
  const char *family;
  const bench_ops *ops;
  const void *table; /* set these three with BENCH_VARIANTS(table, count) */
  size_t nvariants, entry_size;
  size_t reference_at;                       /* offsetof(entry type, reference), or 0 */
  size_t host_round_trip_at;                 /* offsetof(entry type, host_round_trip), or 0 */
  const char *param_names[BENCH_MAX_PARAMS]; /* e.g. {"N"} or {"nx", "ny"} */
  const long long *sizes;                    /* nsizes rows of one value per parameter name */
  size_t nsizes;
  void (*cost)(bench_case *c); /* sets c->bytes and c->flops from c->params (and c->arg) */
} bench_grid;

#define BENCH_VARIANTS(table_, count_) .table = (table_), .nvariants = (count_), .entry_size = sizeof *(table_)

void bench_register_grid(const bench_grid *g);

size_t bench_count(void);
const bench_case *bench_get(size_t i);
/* Google Benchmark's family_index (one per family/variant, in registration
 * order) and per_family_instance_index (order of the case within it). */
int bench_family_index(size_t i);
int bench_instance_index(size_t i);

/* Writes "family/variant/p:v/..." into buf. Returns the length, or -1 if it
 * does not fit. */
int bench_case_name(const bench_case *c, char *buf, size_t len);

/* 1 when registered cases i and j can share a set-up: one ops table, which has reuse, and the same
 * params (names and values); they differ in the variant only. */
int bench_same_inputs(size_t i, size_t j);

/* Who sets up and who tears down, for registered cases run in the order cases[0..n): leader[p] is
 * the first position whose case has the same inputs as cases[p] (p itself: p sets up; else p reuses
 * leader[p]'s state), and last[p] is 1 when no later position has p's leader (the state is torn
 * down after p). */
void bench_plan_inputs(const size_t *cases, size_t n, size_t *leader, unsigned char *last);

/* Forgets every registered case (for tests). */
void bench_registry_clear(void);

/* The runner: parses the flags, runs the selected cases, reports. Returns the
 * process exit status: 0 ok, 1 a benchmark failed (self-check or CUDA error), 2 usage error or no usable GPU. */
int bench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
