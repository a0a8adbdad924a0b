#include "perf/gate/context_stats.h"

#include <math.h>
#include <stdlib.h>

/* Beyond this the t tail equals the normal one to ~1e-11 and the continued fraction would need O(sqrt(df))
 * terms. */
#define NORMAL_DF 1e10
#define CF_MAX_TERMS 1000000
#define CF_EPS 1e-15
#define CF_TINY 1e-300

/* lgamma(z) minus its Stirling approximation (z - 1/2) ln z - z + ln(2 pi)/2, for z >= 100. */
static double stirling_tail(double z) {
  double r = 1.0 / z, r2 = r * r;
  return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 / 1680)));
}

/* ln B(a, b). For a large argument lgamma(a) - lgamma(a + b) cancels to a small number and would lose
 * ~log10(a ln a) digits; Stirling's series for the difference keeps full precision. */
static double log_beta(double a, double b) {
  double big = fmax(a, b), small = fmin(a, b);
  if (big < 100) return lgamma(a) + lgamma(b) - lgamma(a + b);
  double ratio = -(big - 0.5) * log1p(small / big) - small * log(big + small) + small + stirling_tail(big) -
      stirling_tail(big + small); /* lgamma(big) - lgamma(big + small) */
  return lgamma(small) + ratio;
}

/* The continued fraction of I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...))) with
 *   d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),   d(2m) = m(b-m) x / ((a+2m-1)(a+2m)),
 * evaluated by the modified Lentz method. Converges quickly for x < (a+1)/(a+b+2). */
static double beta_cf(double a, double b, double x) {
  double f = CF_TINY, c = f, d = 0;
  for (long j = 1; j <= CF_MAX_TERMS; j++) {
    double num = 1.0; /* the first partial numerator; then d(j-1) */
    long k = j - 1;
    if (k > 0) {
      double m = (double)(k / 2);
      num = (k % 2) ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                    : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    }
    d = 1.0 + num * d;
    if (fabs(d) < CF_TINY) d = CF_TINY;
    c = 1.0 + num / c;
    if (fabs(c) < CF_TINY) c = CF_TINY;
    d = 1.0 / d;
    double delta = c * d;
    f *= delta;
    if (fabs(delta - 1.0) < CF_EPS) break;
  }
  return f;
}

/* I_x(a,b) from the fraction, x on its fast side; y = 1 - x is passed exactly (not recomputed) because the
 * callers know it without cancellation. */
static double ibeta_cf_side(double a, double b, double x, double y) {
  double log_x = x < 0.5 ? log(x) : log1p(-y);
  double log_y = y < 0.5 ? log(y) : log1p(-x);
  return exp(a * log_x + b * log_y - log_beta(a, b)) / a * beta_cf(a, b, x);
}

/* Regularized incomplete beta I_x(a,b), y = 1 - x. */
static double ibeta(double a, double b, double x, double y) {
  if (x <= 0) return 0.0;
  if (y <= 0) return 1.0;
  if (x > (a + 1) / (a + b + 2)) return 1.0 - ibeta_cf_side(b, a, y, x);
  return ibeta_cf_side(a, b, x, y);
}

double student_t_sf(double t, double df) {
  if (isnan(t) || isnan(df) || df <= 0) return NAN;
  if (isinf(t)) return t > 0 ? 0.0 : 1.0;
  if (df > NORMAL_DF) return 0.5 * erfc(t / sqrt(2.0));
  double q = t * t / df; /* x = df/(df+t^2) = 1/(1+q), 1-x = q/(1+q) without cancellation */
  double upper = isinf(q) ? 0.0 : 0.5 * ibeta(0.5 * df, 0.5, 1.0 / (1.0 + q), q / (1.0 + q));
  return t >= 0 ? upper : 1.0 - upper;
}

/* Mean and sample variance (0 for fewer than two values), accumulated relative to the first value so that
 * constant data give exactly zero variance and an exact mean. Returns whether every value is finite. */
static int summarize(const double *v, size_t n, double *mean, double *var) {
  *mean = 0;
  *var = 0;
  if (n == 0) return 1;
  int finite = 1;
  double shift = v[0], sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i])) finite = 0;
    sum += v[i] - shift;
  }
  double md = sum / (double)n, ss = 0;
  for (size_t i = 0; i < n; i++) ss += (v[i] - shift - md) * (v[i] - shift - md);
  *mean = shift + md;
  if (n > 1) *var = ss / (double)(n - 1);
  return finite;
}

context_test context_test_greater(const double *x, size_t nx, const double *y, size_t ny) {
  context_test r = {.p = 1.0};
  double var_x, var_y;
  int finite = summarize(x, nx, &r.mean_x, &var_x) & summarize(y, ny, &r.mean_y, &var_y);
  if (!finite || nx == 0 || ny == 0 || (nx == 1 && ny == 1)) return r;

  double se, df;
  if (nx >= 2 && ny >= 2) {
    double a = var_x / (double)nx, b = var_y / (double)ny;
    if (!(a + b > 0)) return r;
    /* Welch-Satterthwaite in shares of the total so that tiny variances cannot underflow into 0/0. */
    double fa = a / (a + b), fb = b / (a + b);
    se = sqrt(a + b);
    df = 1.0 / (fa * fa / (double)(nx - 1) + fb * fb / (double)(ny - 1));
  } else if (nx == 1) {
    se = sqrt(var_y * (1.0 + 1.0 / (double)ny));
    df = (double)(ny - 1);
  } else {
    se = sqrt(var_x * (1.0 + 1.0 / (double)nx));
    df = (double)(nx - 1);
  }
  if (!(se > 0)) return r;
  double t = (r.mean_x - r.mean_y) / se;
  double p = student_t_sf(t, df);
  if (!isfinite(t) || !isfinite(p)) return r; /* overflowing differences: no usable statistic */
  r.t = t;
  r.df = df;
  r.p = p;
  return r;
}

context_test context_test_greater_known_spread(const double *x, size_t nx, const double *y, size_t ny, double s,
                                               double df) {
  context_test r = {.p = 1.0};
  double var_x, var_y;
  int finite = summarize(x, nx, &r.mean_x, &var_x) & summarize(y, ny, &r.mean_y, &var_y);
  if (!finite || nx == 0 || ny == 0 || !(s > 0) || !isfinite(s) || !(df >= 1)) return r;
  double t = (r.mean_x - r.mean_y) / (s * sqrt(1.0 / (double)nx + 1.0 / (double)ny));
  double p = student_t_sf(t, df);
  if (!isfinite(t) || !isfinite(p)) return r;
  r.t = t;
  r.df = df;
  r.p = p;
  return r;
}

/* nx points with mean 0 and sample standard deviation 1: +-a in pairs, and 0 when nx is odd. */
static void unit_spread(double *z, size_t nx) {
  double a = nx % 2 ? 1.0 : sqrt((double)(nx - 1) / (double)nx);
  for (size_t i = 0; i + 1 < nx; i += 2) {
    z[i] = a;
    z[i + 1] = -a;
  }
  if (nx % 2) z[nx - 1] = 0;
}

/* Would nx contexts spread like z * sd around mean * (1 + d) be significantly above y? */
static int significant_at(double d, double mean, double sd, const double *z, double *x, size_t nx, const double *y,
                          size_t ny, double alpha) {
  for (size_t i = 0; i < nx; i++) x[i] = mean * (1 + d) + sd * z[i];
  return context_test_greater(x, nx, y, ny).p < alpha;
}

double context_test_detectable(const double *y, size_t ny, size_t nx, double alpha) {
  if (ny < 2 || nx < 1) return INFINITY;
  double mean = 0, var = 0;
  for (size_t i = 0; i < ny; i++) mean += y[i] / (double)ny;
  for (size_t i = 0; i < ny; i++) var += (y[i] - mean) * (y[i] - mean) / (double)(ny - 1);
  if (!(var > 0) || !(mean > 0) || !isfinite(var)) return INFINITY;
  double *z = malloc(nx * sizeof *z), *x = malloc(nx * sizeof *x), found = INFINITY;
  if (z && x) {
    unit_spread(z, nx);
    double sd = sqrt(var), lo = 0, hi = 1;
    if (significant_at(hi, mean, sd, z, x, nx, y, ny, alpha)) {
      while (hi - lo > 1e-7) { /* p falls as the shift grows */
        double mid = 0.5 * (lo + hi);
        if (significant_at(mid, mean, sd, z, x, nx, y, ny, alpha))
          hi = mid;
        else
          lo = mid;
      }
      found = hi;
    }
  }
  free(z);
  free(x);
  return found;
}

double context_tail_p_greater(const double *x, size_t nx, const double *y, size_t ny) {
  if (nx == 0 || ny == 0) return 1.0;
  double top = -INFINITY;
  for (size_t i = 0; i < ny; i++) {
    if (!isfinite(y[i])) return 1.0;
    if (y[i] > top) top = y[i];
  }
  size_t k = 0;
  for (size_t i = 0; i < nx; i++) {
    if (!isfinite(x[i])) return 1.0;
    k += x[i] > top;
  }
  double p = 1.0; /* C(nx, k) / C(nx + ny, k) = prod over j < k of (nx - j) / (nx + ny - j) */
  for (size_t j = 0; j < k; j++) p *= (double)(nx - j) / (double)(nx + ny - j);
  return p;
}
