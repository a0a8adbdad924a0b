#include "perf/gate/mann_whitney.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  double v;
  int from_x;
} tagged;

static int by_value(const void *a, const void *b) {
  double x = ((const tagged *)a)->v, y = ((const tagged *)b)->v;
  return (x > y) - (x < y);
}

/* Sum of the (average, 1-based) ranks of x's values in the pooled sample; also
 * the tie term sum(t^3 - t) over groups of equal values. */
static double rank_sum_x(const double *x, size_t nx, const double *y, size_t ny, double *ties) {
  size_t n = nx + ny;
  tagged *all = malloc(n * sizeof *all);
  if (!all) return NAN;
  for (size_t i = 0; i < nx; i++) all[i] = (tagged){x[i], 1};
  for (size_t j = 0; j < ny; j++) all[nx + j] = (tagged){y[j], 0};
  qsort(all, n, sizeof *all, by_value);
  double sum = 0;
  *ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].v == all[i].v) j++;
    double rank = (double)(i + 1 + j) / 2.0; /* average of ranks i+1..j */
    for (size_t k = i; k < j; k++)
      if (all[k].from_x) sum += rank;
    double t = (double)(j - i);
    *ties += t * t * t - t;
    i = j;
  }
  free(all);
  return sum;
}

double mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny) {
  double ties;
  return rank_sum_x(x, nx, y, ny, &ties) - (double)nx * (nx + 1) / 2.0;
}

double mann_whitney_p_greater(const double *x, size_t nx, const double *y, size_t ny) {
  if (nx == 0 || ny == 0) return 1.0;
  double ties;
  double u = rank_sum_x(x, nx, y, ny, &ties) - (double)nx * (nx + 1) / 2.0;
  double n = (double)(nx + ny);
  double mean = (double)nx * ny / 2.0;
  double var = (double)nx * ny / 12.0 * ((n + 1) - ties / (n * (n - 1)));
  if (!(var > 0)) return 1.0; /* every value equal: no evidence either way */
  double z = (u - mean - 0.5) / sqrt(var);
  return 0.5 * erfc(z / sqrt(2.0));
}
