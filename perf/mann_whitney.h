/* Mann-Whitney U test: do the values of one sample tend to be larger than
 * those of another? Used by the regression gate to ask whether a run's sample
 * times are significantly longer than the baseline's. Distribution-free: GPU
 * timings are skewed (clock dips, interference), so no normality is assumed. */
#ifndef PERF_MANN_WHITNEY_H
#define PERF_MANN_WHITNEY_H

#include <stddef.h>

/* One-sided p-value for "x tends to be larger than y" (normal approximation
 * with tie and continuity corrections; fine from about 8 values per side).
 * Returns 1.0 when either sample is empty. */
double mann_whitney_p_greater(const double *x, size_t nx, const double *y, size_t ny);

/* U statistic of x: the number of (x_i, y_j) pairs with x_i > y_j, ties counting 1/2. */
double mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny);

#endif
