/* Significance tests on per-context values. The CUDA context is the unit of evidence: samples inside one
 * context share its launch offset, so they are not independent; each context contributes one value (its
 * median time), and the tests below treat those values as the sample. */
#ifndef PERF_GATE_CONTEXT_STATS_H
#define PERF_GATE_CONTEXT_STATS_H

#include <stddef.h>

/* Student's t distribution: P(T > t) for df > 0 degrees of freedom (non-integer df allowed). Relative error
 * below ~1e-10 up to df = 1e6 (the gate's df stay below a few hundred); beyond, rounding in the long continued
 * fraction costs digits (~1e-7 near 1e10). df > 1e10 (inf included): the normal tail. t = +-inf gives 0 or 1;
 * NaN t, NaN df or df <= 0 give NaN. */
double student_t_sf(double t, double df);

typedef struct {
  double mean_x, mean_y; /* means of the per-context values (0 for an empty side) */
  double t, df;          /* the statistic and its degrees of freedom (0 when no test was possible) */
  double p;              /* one-sided p-value for "x is larger than y"; 1.0 when no test is possible */
} context_test;

/* One-sided test that the values x (e.g. run contexts) are larger than y (baseline contexts).
 * Both sides with >= 2 values: Welch's unequal-variance t test (Welch-Satterthwaite df).
 * One side with a single value: the prediction test against the other side,
 *   t = (x - mean_y) / (s_y * sqrt(1 + 1/n_y)), df = n_y - 1 (and mirrored when y has one value),
 *   which is the pooled t test with all the variance estimated from the side that has it.
 * No test (t = df = 0, p = 1): both sides with one value, an empty side, or no spread to estimate the noise
 *   from (zero variance on both sides, or on the only side that has several values). That holds even when the
 *   means differ: without a noise estimate the data cannot say how surprising the difference is, so the gate's
 *   effect-size threshold has to decide; a p of 0 from 0/0 never comes out.
 * Non-finite input values, or finite ones whose differences overflow: no test, p = 1 and df = 0 (the means are
 *   still computed and show the NaN/inf). */
context_test context_test_greater(const double *x, size_t nx, const double *y, size_t ny);

/* The same one-sided test when the spread of single values is known from elsewhere: a standard deviation s
 * estimated with df degrees of freedom (the gate pools it over the runs of each GPU of a baseline, whose GPUs
 * differ from one another by more than a GPU's runs do):
 *   t = (mean_x - mean_y) / (s * sqrt(1/nx + 1/ny)), p = P(T_df > t).
 * No test (t = df = 0, p = 1): an empty side, s not positive and finite, df < 1, or non-finite values. */
context_test context_test_greater_known_spread(const double *x, size_t nx, const double *y, size_t ny, double s,
                                               double df);

/* One-sided tail test that some of the values x lie above all of y: with k of the nx values of x above the
 * largest of the ny values of y, p = C(nx, k) / C(nx + ny, k), the chance that the k largest of the pooled values
 * all fall to x when all are exchangeable. It sees a change that slows some contexts and not others, which
 * Welch's test on four contexts misses (#56 W02: 2 of 4 contexts at +50 %, p 0.09 there; here 6/C(104,2) =
 * 0.0011 against 100). k = 0, an empty side, or non-finite values: p = 1. */
double context_tail_p_greater(const double *x, size_t nx, const double *y, size_t ny);

/* The smallest slowdown, as a fraction of y's mean, that a run of nx contexts with y's spread around
 * mean_y * (1 + d) would make significant (context_test_greater p < alpha) against the baseline values y.
 * It says whether a baseline can back the gate's tolerance at all: a long benchmark has four contexts per run
 * (one before --long_contexts), and a few runs that differ leave the test too little to go on. INFINITY when no shift up to 100 % would do
 * (fewer than 2 values in y, or no spread in them). */
double context_test_detectable(const double *y, size_t ny, size_t nx, double alpha);

#endif
