/* Host-only helpers for the correctness checks, shared by the Check tests (tests/support) and the
 * benchmarks' self-checks (perf/runner): seeded random inputs, poisoning, and comparison of float
 * results against an fp64 reference. No CUDA here, so these helpers are themselves tested on the
 * CPU machine (host_check_test). */
#ifndef KERNELS_COMMON_HOST_CHECK_H
#define KERNELS_COMMON_HOST_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** generator: fast, good quality, reproducible from one seed. */
typedef struct {
  uint64_t s[4];
} test_rng;

void rng_seed(test_rng *rng, uint64_t seed);
uint64_t rng_next(test_rng *rng);
/* Uniform double in [0, 1). */
double rng_uniform(test_rng *rng);

/* The run's seed: $TEST_SEED if set (to reproduce a failure), else drawn fresh
 * from the clock and pid. Printed once, as "seed: N (rerun with TEST_SEED=N)". */
uint64_t test_seed(void);

/* Fills x[0..n) with uniform floats in [lo, hi); large n on several threads.
 * The values depend only on the generator's state (never on the thread count);
 * the generator advances by one step. */
void fill_uniform(float *x, size_t n, float lo, float hi, test_rng *rng);

/* At most this many threads in for_each_chunk. */
#define CHUNK_MAX_THREADS 16
/* Calls work(arg, c, t) for every chunk c in [0, chunks) on up to CHUNK_MAX_THREADS threads (one per
 * CPU): thread t in [0, T) takes chunks t, t + T, t + 2T, ... in order, and t is what work may index
 * per-thread state with. Returns when all are done. */
void for_each_chunk(size_t chunks, void (*work)(void *arg, size_t chunk, size_t thread), void *arg);

/* Fills x[0..n) with integers drawn uniformly from [-max_abs, max_abs] without
 * 0 (1 <= max_abs < 2^24). Sums of such values are exact in float while every
 * partial sum stays below 2^24 in magnitude, so any summation order must give
 * the exact total: a dropped or doubled element (never 0) always shows. */
void fill_int_uniform(float *x, size_t n, int max_abs, test_rng *rng);

/* A float that no correct kernel produces from finite inputs: a quiet NaN with
 * a recognisable payload (all bits set, the same as a 0xFF byte fill). */
float poison_value(void);
void fill_poison(float *x, size_t n);
int is_poison(float v);

/* Result of comparing float results with an fp64 reference. */
typedef struct {
  size_t n;           /* elements compared */
  size_t bad;         /* elements outside tolerance, NaN or inf */
  size_t first_bad;   /* index of the first bad element (n if none) */
  float first_got;    /* value at first_bad */
  double first_want;  /* reference at first_bad */
  double max_abs_err; /* over all elements */
  double max_rel_err; /* |got - want| / |want|, over elements with want != 0 */
} compare_report;

/* Element i passes when |got[i] - want[i]| <= atol + rtol * scale_i, where
 * scale_i is scale[i] if `scale` is given (e.g. sum of |terms|, for results
 * that cancel) and |want[i]| otherwise. NaN and infinity never pass. */
compare_report compare_f32(const float *got, const double *want, const double *scale, size_t n, double rtol,
                           double atol);

/* One line for test logs: "n=... bad=... max_abs=... max_rel=... [first bad ...]". */
void format_report(const compare_report *r, char *buf, size_t len);

/* Unit roundoff of float (2^-24): the relative error of one correctly rounded op. */
#define FLOAT_UNIT_ROUNDOFF 5.9604644775390625e-08

/* Rounding-error bound of a float sum (Higham, Accuracy and Stability, 4.2):
 * if no term passes through more than `depth` roundings on its way to the
 * result (additions in a sequential chain or tree levels, a product counts
 * one), |computed - exact| <= gamma(depth) * abs_sum, where abs_sum is the sum
 * of the terms' magnitudes and gamma(d) = d u / (1 - d u), u = 2^-24.
 * Infinite when depth * u >= 1 (no bound). */
double sum_error_bound(size_t depth, double abs_sum);

#endif
