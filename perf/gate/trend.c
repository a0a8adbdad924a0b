#define _GNU_SOURCE /* M_PI */
#include "perf/gate/trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

trend_params trend_defaults(void) {
  return (trend_params){.alpha = 0.01,
                        .permutations = 499,
                        .min_step = 0.006,
                        .min_z = 3,
                        .min_segment = 5,
                        .seed = 0x5eedc0ffee123457ull};
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double trend_median(const double *x, size_t n) {
  double *s = malloc(n * sizeof *s);
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

/* ---------- the energy statistic of every split, in O(m log m) ---------- */

/* A Fenwick tree over ranks 1..m holding how many values of each rank were added, and their sum. */
typedef struct {
  size_t m;
  double *count, *sum;
} fenwick;

static void fenwick_clear(fenwick *f) {
  memset(f->count, 0, (f->m + 1) * sizeof *f->count);
  memset(f->sum, 0, (f->m + 1) * sizeof *f->sum);
}

static void fenwick_add(fenwick *f, size_t rank, double v) {
  for (size_t i = rank; i <= f->m; i += i & -i) {
    f->count[i] += 1;
    f->sum[i] += v;
  }
}

/* How many values of rank <= rank were added, and their sum. */
static void fenwick_prefix(const fenwick *f, size_t rank, double *count, double *sum) {
  *count = *sum = 0;
  for (size_t i = rank; i > 0; i -= i & -i) {
    *count += f->count[i];
    *sum += f->sum[i];
  }
}

/* Sum of |v - y| over the values y added so far (total: their count and sum). */
static double distance_to_added(const fenwick *f, size_t rank, double v, double total_count, double total_sum) {
  double below, below_sum;
  fenwick_prefix(f, rank, &below, &below_sum);
  return (v * below - below_sum) + ((total_sum - below_sum) - v * (total_count - below));
}

/* Work space for one segment of m values. */
typedef struct {
  size_t m;
  double *v;     /* the values in the order tested (the segment, or a permutation of it) */
  size_t *rank;  /* rank of v[i] among the segment's values, 1..m */
  double *left;  /* left[t]: sum of |v[i] - v[k]| over i < k < t */
  double *right; /* right[t]: the same over t <= i < k < m */
  fenwick tree;
} scan_space;

/* The split tau (min_seg <= tau <= m - min_seg) with the largest Q; returns Q. */
static double best_split(scan_space *s, size_t min_seg, size_t *tau_out) {
  size_t m = s->m;
  fenwick_clear(&s->tree);
  double count = 0, sum = 0;
  s->left[0] = 0;
  for (size_t t = 0; t < m; t++) {
    s->left[t + 1] = s->left[t] + distance_to_added(&s->tree, s->rank[t], s->v[t], count, sum);
    fenwick_add(&s->tree, s->rank[t], s->v[t]);
    count += 1;
    sum += s->v[t];
  }
  fenwick_clear(&s->tree);
  count = sum = 0;
  s->right[m] = 0;
  for (size_t t = m; t-- > 0;) {
    s->right[t] = s->right[t + 1] + distance_to_added(&s->tree, s->rank[t], s->v[t], count, sum);
    fenwick_add(&s->tree, s->rank[t], s->v[t]);
    count += 1;
    sum += s->v[t];
  }
  double total = s->left[m], best = -INFINITY;
  for (size_t tau = min_seg; tau + min_seg <= m; tau++) {
    double a = (double)tau, b = (double)(m - tau);
    double between = total - s->left[tau] - s->right[tau];
    double e = 2 * between / (a * b) - s->left[tau] / (a * (a - 1) / 2) - s->right[tau] / (b * (b - 1) / 2);
    double q = a * b / (a + b) * e;
    if (q > best) {
      best = q;
      *tau_out = tau;
    }
  }
  return best;
}

/* ---------- the permutation test ---------- */

uint64_t trend_random(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct {
  const double *x;
  const trend_params *params;
  scan_space space;
  double *sorted;
  change_point *found;
  size_t nfound;
} search;

/* Work space for segments of up to n values. */
static void alloc_space(search *s, size_t n) {
  s->space.v = malloc(n * sizeof *s->space.v);
  s->space.rank = malloc(n * sizeof *s->space.rank);
  s->space.left = malloc((n + 1) * sizeof *s->space.left);
  s->space.right = malloc((n + 1) * sizeof *s->space.right);
  s->space.tree.count = malloc((n + 1) * sizeof(double));
  s->space.tree.sum = malloc((n + 1) * sizeof(double));
  s->sorted = malloc(n * sizeof *s->sorted);
}

static void free_space(search *s) {
  free(s->space.v);
  free(s->space.rank);
  free(s->space.left);
  free(s->space.right);
  free(s->space.tree.count);
  free(s->space.tree.sum);
  free(s->sorted);
}

/* Loads x[start..end) into the work space, each value with its rank. */
static void load_segment(search *s, size_t start, size_t end) {
  size_t m = end - start;
  scan_space *sp = &s->space;
  sp->m = m;
  sp->tree.m = m;
  memcpy(s->sorted, s->x + start, m * sizeof *s->sorted);
  qsort(s->sorted, m, sizeof *s->sorted, cmp_double);
  for (size_t i = 0; i < m; i++) {
    sp->v[i] = s->x[start + i];
    /* Equal values may share a rank: |v - y| = 0 between them either way. */
    size_t lo = 0, hi = m;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (s->sorted[mid] < sp->v[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    sp->rank[i] = lo + 1;
  }
}

/* Segments of this many rows or more take the fewest permutations that can reach alpha. */
#define LONG_SEGMENT 100

/* Binary segmentation of x[start..end): splits where the test says so, then each side. */
static void segment(search *s, size_t start, size_t end) {
  const trend_params *p = s->params;
  if (end - start < 2 * p->min_segment) return;
  load_segment(s, start, end);
  scan_space *sp = &s->space;
  size_t tau = 0, unused;
  double q = best_split(sp, p->min_segment, &tau);
  /* Permute the segment (values with their ranks); stop as soon as p > alpha is certain. A long
   * segment, where each permutation costs most, takes the fewest permutations that can reach
   * alpha (99 for 0.01: significant when no permutation is as large): still a valid test at
   * alpha, its p-value only coarser. */
  uint64_t state = p->seed ^ (0x9e3779b97f4a7c15ull * (start + 1)) ^ end;
  int permutations = p->permutations, fewest = (int)ceil(1 / p->alpha - 1e-9) - 1;
  if (sp->m >= LONG_SEGMENT && fewest < permutations) permutations = fewest;
  int as_large = 0, limit = (int)floor(p->alpha * (permutations + 1) + 1e-9) - 1;
  for (int r = 0; r < permutations && as_large <= limit; r++) {
    for (size_t i = sp->m; i > 1; i--) {
      size_t j = (size_t)(trend_random(&state) % i);
      double tv = sp->v[i - 1];
      size_t tr = sp->rank[i - 1];
      sp->v[i - 1] = sp->v[j], sp->rank[i - 1] = sp->rank[j];
      sp->v[j] = tv, sp->rank[j] = tr;
    }
    /* Ties count as as large (rounding must not make a permutation as large as the data smaller). */
    if (best_split(sp, p->min_segment, &unused) >= q * (1 - 1e-12)) as_large++;
  }
  if (as_large > limit) return;
  double pvalue = (1.0 + as_large) / (permutations + 1.0);
  s->found[s->nfound++] = (change_point){.index = start + tau, .step = 0, .p = pvalue};
  segment(s, start, start + tau);
  segment(s, start + tau, end);
}

double trend_best_split(const double *x, size_t m, size_t min_segment, size_t *tau) {
  search s = {.x = x};
  alloc_space(&s, m);
  load_segment(&s, 0, m);
  double q = best_split(&s.space, min_segment < 2 ? 2 : min_segment, tau);
  free_space(&s);
  return q;
}

static int by_index(const void *a, const void *b) {
  size_t x = ((const change_point *)a)->index, y = ((const change_point *)b)->index;
  return (x > y) - (x < y);
}

/* The series' run-to-run noise as a fraction of its level, blind to steps: from the differences
 * of neighbouring rows, sd = mean |x[i] - x[i-1]| x sqrt(pi) / 2 (exact for normal noise). The mean,
 * not the median: timings come in few distinct values, and a median of differences is then often
 * 0 where the noise is not. A step adds one large difference among n. */
static double relative_noise(const double *x, size_t n) {
  if (n < 3) return 0;
  double sum = 0;
  for (size_t i = 1; i < n; i++) sum += fabs(x[i] - x[i - 1]);
  return sum / (double)(n - 1) * sqrt(M_PI) / 2 / trend_median(x, n);
}

/* The same within the segments between change points c[0..k): the differences across a change
 * point are the step's, not the noise's (five +1 % steps among 40 rows of 0.4 % noise made it read
 * 0.47 %). */
static double noise_within(const double *x, size_t n, const change_point *c, size_t k) {
  double sum = 0;
  size_t m = 0, j = 0;
  for (size_t i = 1; i < n; i++) {
    while (j < k && c[j].index < i) j++;
    if (j < k && c[j].index == i) continue; /* x[i] starts a new level */
    sum += fabs(x[i] - x[i - 1]);
    m++;
  }
  return m < 2 ? relative_noise(x, n) : sum / (double)m * sqrt(M_PI) / 2 / trend_median(x, n);
}

/* Rows of each side next to a change point that measure its step: a level's rows near the change
 * say most about it, and a*b differences stay at most 10^4 on histories of 10^4 rows. */
#define STEP_ROWS 100

/* The step between x[0..a) and y[0..b): the median of the a b differences y[j] - x[i] (the
 * Hodges-Lehmann shift). Timings come in few distinct values, and a difference of two medians then
 * jumps between them: five +1 % steps drawn from the H100 history's residuals read as +0.57 % at
 * one step (dropped under min_step) and +1.6 % at its neighbour. The pairwise median uses every row. */
static double shift_between(const double *x, size_t a, const double *y, size_t b) {
  double *d = malloc(a * b * sizeof *d);
  for (size_t i = 0; i < a; i++)
    for (size_t j = 0; j < b; j++) d[i * b + j] = y[j] - x[i];
  double m = trend_median(d, a * b);
  free(d);
  return m;
}

/* Steps between the segments on either side (at most STEP_ROWS rows of each, next to the change),
 * relative to the median before. A step must be at least min_step, and at least min_z standard
 * errors of the shift (1.0233 sd sqrt(1/a + 1/b) for normal noise: sqrt(pi / 3)); the weakest step
 * short of that is dropped (its two segments become one) until every step stands. */
size_t trend_keep_steps(const double *x, size_t n, change_point *c, size_t k, const trend_params *p) {
  for (;;) {
    double sd = noise_within(x, n, c, k);
    size_t weakest = k;
    double weakest_ratio = 1;
    for (size_t i = 0; i < k; i++) {
      size_t from = i ? c[i - 1].index : 0, to = i + 1 < k ? c[i + 1].index : n;
      size_t a = c[i].index - from, b = to - c[i].index;
      if (a > STEP_ROWS) a = STEP_ROWS;
      if (b > STEP_ROWS) b = STEP_ROWS;
      const double *before = x + c[i].index - a;
      c[i].step = shift_between(before, a, x + c[i].index, b) / trend_median(before, a);
      double need = fmax(p->min_step, p->min_z * 1.0233 * sd * sqrt(1.0 / (double)a + 1.0 / (double)b));
      double ratio = fabs(c[i].step) / need;
      if (ratio < weakest_ratio) weakest = i, weakest_ratio = ratio;
    }
    if (weakest == k) return k;
    memmove(&c[weakest], &c[weakest + 1], (k - weakest - 1) * sizeof *c);
    k--;
  }
}

size_t find_change_points(const double *x, size_t n, const trend_params *params, change_point **out) {
  *out = NULL;
  trend_params p = *params;
  if (p.min_segment < 2) p.min_segment = 2; /* a side of one value has no within-side distance */
  if (n < 2 * p.min_segment) return 0;
  search s = {.x = x, .params = &p};
  alloc_space(&s, n);
  s.found = malloc((n / p.min_segment + 1) * sizeof *s.found);
  segment(&s, 0, n);
  free_space(&s);
  qsort(s.found, s.nfound, sizeof *s.found, by_index);
  size_t k = trend_keep_steps(x, n, s.found, s.nfound, &p);
  if (!k) {
    free(s.found);
    return 0;
  }
  *out = s.found;
  return k;
}

double creep_threshold(const double *x, size_t n, size_t window, double tolerance) {
  if (window == 0) return tolerance;
  return fmax(tolerance, 3 * 1.2533 * relative_noise(x, n) * sqrt(2.0 / (double)window));
}

double creep_level(const double *x, size_t n, double reference, size_t window) {
  if (window == 0 || n < (reference > 0 ? window : 2 * window)) return NAN;
  double ref = reference > 0 ? reference : trend_median(x, window);
  return trend_median(x + n - window, window) / ref - 1;
}

int creep_beyond(const double *x, size_t n, double reference, size_t window, double tolerance, double floor,
                 double *level, double *allowed) {
  *allowed = fmax(creep_threshold(x, n, window, tolerance), floor);
  *level = creep_level(x, n, reference, window);
  double rise = reference > 0 ? creep_level(x, n, 0, window) : *level;
  return *level > *allowed && rise > *allowed;
}
