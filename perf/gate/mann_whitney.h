/* Mann-Whitney U test: do the values of one sample tend to be larger than
 * those of another? The regression gate used it on pooled samples until it
 * compared CUDA contexts instead (perf/gate/context_stats.h): samples of one
 * context share its offset and are not independent. Kept for the test that
 * shows the difference. */
#ifndef PERF_GATE_MANN_WHITNEY_H
#define PERF_GATE_MANN_WHITNEY_H

#include <stddef.h>

/* One-sided p-value for "x tends to be larger than y" (normal approximation
 * with tie and continuity corrections; fine from about 8 values per side).
 * Returns 1.0 when either sample is empty. */
double mann_whitney_p_greater(const double *x, size_t nx, const double *y, size_t ny);

/* U statistic of x: the number of (x_i, y_j) pairs with x_i > y_j, ties counting 1/2. */
double mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny);

#endif
