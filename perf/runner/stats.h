/* Statistics over timing samples (pure C, no CUDA). */
#ifndef PERF_RUNNER_STATS_H
#define PERF_RUNNER_STATS_H

#include <stddef.h>

typedef struct {
  size_t n;
  double median; /* middle value; mean of the two middle values for even n */
  double mean;
  double stddev; /* sample standard deviation (n - 1 denominator); 0 for n < 2 */
  double cv;     /* stddev / mean; 0 when mean is 0 */
  double min, max;
} stats_summary;

/* Summarises x[0..n) (x is not modified). Returns 0, or -1 if n == 0 or a
 * scratch copy cannot be allocated (then *out is all zeros). */
int stats_summarize(const double *x, size_t n, stats_summary *out);

/* Median of x[0..n) (x is not modified); 0 for n == 0 or on allocation failure. */
double stats_median(const double *x, size_t n);

/* Running mean and variance (Welford), so the stopping rule of the timing loop
 * costs O(1) per sample. */
typedef struct {
  size_t n;
  double mean, m2, sum;
} stats_running;

void stats_running_push(stats_running *r, double x);
double stats_running_stddev(const stats_running *r); /* sample stddev; 0 for n < 2 */

/* Relative standard error of the mean, stddev / (mean * sqrt(n)): how far the
 * estimate is likely off, as a fraction. Infinite for n < 2 or mean <= 0. */
double stats_running_rel_stderr(const stats_running *r);

#endif
