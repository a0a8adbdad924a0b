/* Host-only helpers for the correctness checks, shared by the Check tests (tests/support) and the
 * benchmarks' self-checks (perf/runner): seeded random inputs, poisoning, and comparison of results
 * against an fp64 (or, for integers, exact) reference, for every element type below. No CUDA here,
 * so these helpers are themselves tested on the CPU machine (host_check_test). */
#ifndef KERNELS_COMMON_HOST_CHECK_H
#define KERNELS_COMMON_HOST_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* The element types of kernels' inputs and outputs. Halves live on the host as their IEEE binary16
 * bits in a uint16_t (no cuda_fp16.h in C): half_from_float and half_to_float convert. */
typedef enum { ELEM_F32, ELEM_F16, ELEM_I32, ELEM_U8 } elem_type;
#define ELEM_NTYPES 4

/* Bytes per element: 4, 2, 4, 1. */
size_t elem_size(elem_type t);
/* "f32", "f16", "i32", "u8" (for messages). */
const char *elem_name(elem_type t);
/* Element i of x, as a double (exact for every type). */
double elem_get(elem_type t, const void *x, size_t i);

/* float -> binary16, rounded to nearest, ties to even (as __float2half_rn): beyond 65504 (from
 * 65520 on) infinity; NaN stays NaN with its payload's top bits. */
uint16_t half_from_float(float f);
/* binary16 -> float: exact. */
float half_to_float(uint16_t h);

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

/* Fills x[0..n) of type t with random values; large n on several threads. The values depend only
 * on the generator's state (never on the thread count); the generator advances by one step.
 *   ELEM_F32: uniform in [lo, hi);  ELEM_F16: those floats rounded to the nearest half (hi itself
 *   may come out; keep |lo|, |hi| <= 65504);  ELEM_I32, ELEM_U8: uniform over the integers in
 *   [lo, hi], both ends included (e.g. 0, 255: every byte), lo and hi clamped to the type's range. */
void rng_fill(elem_type t, void *x, size_t n, double lo, double hi, test_rng *rng);
/* rng_fill(ELEM_F32, ...). */
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

/* The poison is every bit set (a 0xFF byte fill, as cudaMemset(p, 0xFF, bytes) writes on the
 * device), for every type. For F32 and F16 it is a NaN no correct kernel produces from finite
 * inputs. For I32 (-1) and U8 (255) it is a value like any other: it shows an element that was never
 * written wherever the fp64 (or exact) reference differs from it (a count is never -1). */
void poison_elems(elem_type t, void *x, size_t n);
/* 1 when element i of x has every bit set. */
int is_poison_elem(elem_type t, const void *x, size_t i);
/* The float ones: poison_value() is the poison as a float. */
float poison_value(void);
void fill_poison(float *x, size_t n);
int is_poison(float v);

/* What a result may differ from its fp64 reference by: element i passes when
 *   |got[i] - want[i]| <= abs + rel * scale_i + ulps * ulp(want[i])
 * where scale_i is |want[i]|, or the fp64 reference's own scale[i] with rel_to_scale (e.g. the sum of
 * |terms| of a result that cancels), and ulp(w) is the spacing of the result type at w (F32:
 * 2^(e-23) for |w| in [2^e, 2^(e+1)), F16: 2^(e-10), integers: 1). NaN and infinity never pass.
 * Name the fields: (tolerance){.rel = EW_ADD_RTOL}, (tolerance){.abs = tol}, (tolerance){.ulps = 1};
 * all zero (TOL_EXACT) is an exact check, the one for integer results. */
typedef struct {
  double abs, rel, ulps;
  int rel_to_scale;
} tolerance;
#define TOL_EXACT ((tolerance){0})

/* Result of comparing results with an fp64 (or exact) reference. */
typedef struct {
  elem_type type;     /* of the results */
  size_t n;           /* elements compared */
  size_t bad;         /* elements outside tolerance, NaN or inf */
  size_t first_bad;   /* index of the first bad element (n if none) */
  double first_got;   /* value at first_bad */
  int first_poison;   /* 1 when that value is the poison (every bit set) */
  double first_want;  /* fp64 reference at first_bad */
  double max_abs_err; /* over all elements */
  double max_rel_err; /* |got - want| / |want|, over elements with want != 0 */
} compare_report;

/* Compares got[0..n) of type t with want[0..n) within tol; scale[] is read only with
 * tol.rel_to_scale (NULL there: |want|). Exact for integers with TOL_EXACT: want holds their values
 * exactly (up to 2^53). */
compare_report compare_elems(elem_type t, const void *got, const double *want, const double *scale, size_t n,
                             tolerance tol);
/* compare_elems(ELEM_F32, ...). */
compare_report compare_f32(const float *got, const double *want, const double *scale, size_t n, tolerance tol);

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
