/* gate trends: change points and creep over the history (baselines/history/<gpu>.csv).
 *
 *   gate trends [--tolerance=F] [--alpha=P] [--min_step=F] [--window=N] [--since=DATE] HISTORY.csv...
 *
 * Per benchmark (and L2 flush method, and testbed where the file has one: rows of different
 * methods do not compare), in file order: every change point, with its step in %, the commits on
 * both sides and its p-value; and a benchmark that crept beyond the tolerance, the median of its
 * last N rows against that of its first N. Trends are warnings: exit 0; 2 for bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/gate_cli.h"
#include "perf/gate/history_csv.h"
#include "perf/gate/trend.h"

typedef struct {
  trend_params params;
  double tolerance;
  size_t window;
  const char *since;
} trends_options;

static void trends_usage(FILE *out) {
  fprintf(out,
          "usage: gate trends [--tolerance=F (0.03)] [--alpha=P (0.01)] [--min_step=F (0.006)] [--window=N (5)]\n"
          "                   [--since=DATE] HISTORY.csv...\n"
          "  per benchmark of each history (baselines/history/<gpu>.csv): its change points (E-Divisive means;\n"
          "  a step of at least --min_step, p <= --alpha), and a warning when the median of its last N rows is\n"
          "  more than --tolerance (for a noisy benchmark: 3 standard errors) slower than that of its first N\n"
          "  (creep over several merges).\n"
          "  --since=DATE: only change points from DATE on (ISO 8601, as the history's date column)\n"
          "Exit status: 0 (trends are warnings), 2 bad input or usage.\n");
}

static _Noreturn void trends_fail(const char *msg) {
  fprintf(stderr, "gate trends: %s\n", msg);
  trends_usage(stderr);
  exit(EXIT_BAD_INPUT);
}

static double number_arg(const char *flag, const char *v, double lo, double hi) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !(x > lo && x < hi)) {
    char msg[256];
    snprintf(msg, sizeof msg, "--%s=%.40s: want a number in (%g, %g)", flag, v, lo, hi);
    trends_fail(msg);
  }
  return x;
}

/* --since is compared with the history's dates as text, so it must be one: YYYY-MM-DD, optionally followed by
 * THH:MM[:SS...]. Anything else ("yesterday") compared after every date and hid every change point (#56). */
static const char *since_arg(const char *v) {
  int y, mo, d, n = 0;
  int ok = strlen(v) >= 10 && sscanf(v, "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 && n == 10 && mo >= 1 && mo <= 12 &&
      d >= 1 && d <= 31 && (v[10] == '\0' || v[10] == 'T');
  for (int i = 0; i < 10 && ok; i++) ok = i == 4 || i == 7 ? v[i] == '-' : v[i] >= '0' && v[i] <= '9';
  if (!ok) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "--since=%.40s: want a date as the history writes it, YYYY-MM-DD (e.g. 2026-11-28), "
             "optionally with THH:MM:SS",
             v);
    trends_fail(msg);
  }
  return v;
}

static trends_options parse_trends(int argc, char **argv, int *first) {
  trends_options o = {.params = trend_defaults(), .tolerance = 0.03, .window = 5, .since = NULL};
  static const struct option opts[] = {{"tolerance", required_argument, 0, 't'},
                                       {"alpha", required_argument, 0, 'a'},
                                       {"min_step", required_argument, 0, 's'},
                                       {"window", required_argument, 0, 'w'},
                                       {"since", required_argument, 0, 'S'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  optind = 2;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 't': o.tolerance = number_arg("tolerance", optarg, 0, 1); break;
      case 'a': o.params.alpha = number_arg("alpha", optarg, 0, 1); break;
      case 's': o.params.min_step = number_arg("min_step", optarg, 0, 1); break;
      case 'w':
        o.window = (size_t)number_arg("window", optarg, 0.5, 1000.5);
        if ((double)o.window != strtod(optarg, NULL)) trends_fail("--window=N: want a whole number of rows, 1 to 1000");
        break;
      case 'S': o.since = since_arg(optarg); break;
      case 'h': trends_usage(stdout); exit(EXIT_PASS);
      default: trends_fail("unknown flag");
    }
  }
  if (optind >= argc) trends_fail("give one history CSV or more (baselines/history/<gpu>.csv)");
  *first = optind;
  return o;
}

/* Rows of one series sort together, in file order. */
static const history_entry *sort_rows;

static int series_order(const void *a, const void *b) {
  const history_entry *x = &sort_rows[*(const size_t *)a], *y = &sort_rows[*(const size_t *)b];
  int c = strcmp(x->bench, y->bench);
  if (!c) c = strcmp(x->l2_flush, y->l2_flush);
  if (!c) c = strcmp(x->testbed, y->testbed);
  if (!c) c = (x->line > y->line) - (x->line < y->line);
  return c;
}

static int same_series(const history_entry *x, const history_entry *y) {
  return !strcmp(x->bench, y->bench) && !strcmp(x->l2_flush, y->l2_flush) && !strcmp(x->testbed, y->testbed);
}

typedef struct {
  size_t series, rows, changes, changed_series, crept;
} trend_counts;

/* One series: rows[0..n) of the table, in file order. */
static void report_series(const trends_options *o, const history_entry *const *rows, size_t n, int show_flush,
                          trend_counts *count) {
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++) x[i] = rows[i]->median_ns;
  char name[600];
  snprintf(name, sizeof name, "%s%s%s%s%s%s", rows[0]->bench, show_flush ? " [l2_flush " : "",
           show_flush ? rows[0]->l2_flush : "", show_flush ? "]" : "", rows[0]->testbed[0] ? " @" : "",
           rows[0]->testbed);
  change_point *c;
  size_t k = find_change_points(x, n, &o->params, &c), shown = 0;
  for (size_t i = 0; i < k; i++) {
    const history_entry *before = rows[c[i].index - 1], *after = rows[c[i].index];
    if (o->since && strcmp(after->date, o->since) < 0) continue;
    printf("CHANGE %s: %+.2f %% from row %zu of %zu (line %zu): %.12s (%.10s) -> %.12s (%.10s), p = %.3f\n", name,
           100 * c[i].step, c[i].index + 1, n, after->line, before->commit, before->date, after->commit, after->date,
           c[i].p);
    shown++;
  }
  double level, tolerance;
  if (creep_beyond(x, n, 0, o->window, o->tolerance, 0, &level, &tolerance)) {
    printf(
        "CREPT %s: %+.2f %% (median of the last %zu rows against the first %zu), beyond %s%.1f %%, over %zu "
        "change point%s\n",
        name, 100 * level, o->window, o->window, tolerance > o->tolerance ? "its noise: " : "the tolerance, ",
        100 * tolerance, k, k == 1 ? "" : "s");
    count->crept++;
  }
  count->changes += shown;
  count->changed_series += shown > 0;
  count->series++;
  count->rows += n;
  free(c);
  free(x);
}

static void report_file(const trends_options *o, const history_table *t, trend_counts *count) {
  size_t *order = malloc(t->n * sizeof *order);
  for (size_t i = 0; i < t->n; i++) order[i] = i;
  sort_rows = t->r;
  qsort(order, t->n, sizeof *order, series_order);
  const history_entry **rows = malloc(t->n * sizeof *rows);
  for (size_t i = 0; i < t->n;) {
    size_t n = 0, j = i;
    while (j < t->n && same_series(&t->r[order[j]], &t->r[order[i]])) rows[n++] = &t->r[order[j++]];
    /* The flush method is named where a benchmark has rows of more than one. */
    int show_flush = (i > 0 && !strcmp(t->r[order[i - 1]].bench, rows[0]->bench)) ||
        (j < t->n && !strcmp(t->r[order[j]].bench, rows[0]->bench));
    report_series(o, rows, n, show_flush, count);
    i = j;
  }
  free(rows);
  free(order);
}

int cmd_trends(int argc, char **argv) {
  int first;
  trends_options o = parse_trends(argc, argv, &first);
  for (int a = first; a < argc; a++) {
    char buf[4096], err[2048];
    const char *path = user_path(argv[a], buf, sizeof buf);
    history_table t;
    if (history_table_load(path, NULL, &t, err, sizeof err)) {
      fprintf(stderr, "gate trends: %s\n", err);
      return EXIT_BAD_INPUT;
    }
    trend_counts count = {0};
    printf("Trends in %s%s%s (alpha %.3g, min step %.2g %%, tolerance %.3g %%):\n", argv[a], o.since ? " since " : "",
           o.since ? o.since : "", o.params.alpha, 100 * o.params.min_step, 100 * o.tolerance);
    report_file(&o, &t, &count);
    printf("gate trends: %s: %zu change point%s in %zu of %zu series (%zu rows); %zu crept beyond %.3g %%\n", argv[a],
           count.changes, count.changes == 1 ? "" : "s", count.changed_series, count.series, count.rows, count.crept,
           100 * o.tolerance);
    history_table_free(&t);
  }
  return EXIT_PASS;
}
