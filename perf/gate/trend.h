/* Trends over a benchmark's history: change points and creep. Pure functions, no I/O.
 *
 * Change points: E-Divisive means (Matteson & James 2014, the method of MongoDB's
 * signal-processing-algorithms), by binary segmentation. A segment is split where the
 * energy statistic Q (between-sides distance against within-side distances, alpha = 1) is
 * largest; the split stands when a permutation test gives p <= alpha and its two sides differ
 * by at least min_step (the median of the differences between them, over the median before). Q is computed for every split of a segment of
 * m values in O(m log m) (running sums of |xi - xk| over a Fenwick tree of ranks), so
 * a test with R permutations costs O(R m log m) instead of the textbook O(R m^2).
 *
 * Values are times (ns): a positive step is slower. */
#ifndef PERF_GATE_TREND_H
#define PERF_GATE_TREND_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  double alpha;       /* permutation test: a split stands at p <= alpha */
  int permutations;   /* R: p = (1 + #{permuted Q >= Q}) / (R + 1) */
  double min_step;    /* |step| (change_point.step) below this is not a change */
  double min_z;       /* ... nor below min_z standard errors of that difference, from the series' noise */
  size_t min_segment; /* fewest rows on either side of a split (>= 2) */
  uint64_t seed;      /* the permutations' generator: the same input gives the same answer */
} trend_params;

/* alpha 0.01, 499 permutations, min_step 0.006, min_z 3, min_segment 5, a fixed seed: on the H100
 * history's noise, +1 % steps 7 rows apart are found and 200 rows of noise give none (trend_test;
 * docs/report.md has the rates). */
trend_params trend_defaults(void);

typedef struct {
  size_t index; /* the first row of the new level */
  double step;  /* median of the differences (after - before) between the rows from index to the next change
                 * and those since the previous one (at most 100 of each, next to index), over the median
                 * before: the Hodges-Lehmann shift, relative */
  double p;     /* the permutation test's p-value when the split was made */
} change_point;

/* The change points of x[0..n), by index; *out is malloc'd (free it; NULL when none). */
size_t find_change_points(const double *x, size_t n, const trend_params *params, change_point **out);

/* The detector's last stage on change points c[0..k) (by index, p as found): measures each step
 * (change_point.step) and drops the weakest short of min_step or min_z standard errors until every
 * step stands; how many remain. Given the true rows of a synthetic history, it tells the most any
 * placement of the change points could find (trend_synth --score). */
size_t trend_keep_steps(const double *x, size_t n, change_point *c, size_t k, const trend_params *p);

/* Creep: how far the level now (median of the last `window` rows) is from the reference level `reference`
 * (a baseline's time; <= 0: the median of the first `window` rows), as a fraction (+ slower).
 * NAN when there are too few rows: fewer than window with a baseline's time, 2 x window without. */
double creep_level(const double *x, size_t n, double reference, size_t window);

/* E-Divisive's statistic Q at its largest over the splits of x[0..m) with at least min_segment
 * (>= 2) values on either side; *tau: that split (the first value of the right side). */
double trend_best_split(const double *x, size_t m, size_t min_segment, size_t *tau);

/* The least creep that stands out of the series' noise: the tolerance, or 3 standard errors of
 * the difference of two medians of `window` rows where the series is noisier (a few-µs kernel
 * with 3 % run-to-run noise: 7 %). */
double creep_threshold(const double *x, size_t n, size_t window, double tolerance);

/* Whether a series crept (the one rule of `gate trends` and the report): its level (creep_level
 * against the reference level `reference`) is beyond the least creep that stands out, the larger of creep_threshold
 * (tolerance, or the series' noise) and `floor` (a baseline's wider threshold: a host round trip at
 * +20 % within it did not creep); and, against a baseline (reference > 0), beyond it against the
 * series' first rows too (a benchmark always off its baseline did not creep), so a series creeps from 2 x window
 * rows only, with a baseline too. *level, *allowed: the level and that least creep, for the message. */
int creep_beyond(const double *x, size_t n, double reference, size_t window, double tolerance, double floor,
                 double *level, double *allowed);

/* The permutations' generator (splitmix64): the next of *state's sequence. */
uint64_t trend_random(uint64_t *state);

/* The median of x[0..n) (n > 0); x is not changed. */
double trend_median(const double *x, size_t n);

#endif
