/* gate trends: change points and creep over the history (baselines/history/<gpu>.csv), decided once
 * (trend_series.h) for the text below and for the report (--json: trends.json, which the renderer draws).
 *
 *   gate trends [--baseline=PATH]... [--json=FILE] [--tolerance=F] [--family_tolerance=FAMILY=F] [--k_noise=K]
 *               [--alpha=P] [--min_step=F] [--window=N] [--since=DATE] HISTORY.csv...
 *
 * Per benchmark (and L2 flush method, and testbed where the file has one: rows of different
 * methods do not compare), in file order: every change point, with its step in %, the commits on
 * both sides and its p-value; and a benchmark that crept beyond its tolerance, the median of its
 * last N rows against its baseline's time (--baseline of its GPU), or that of its first N rows.
 * Trends are warnings: exit 0; 2 for bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/gate_cli.h"
#include "perf/gate/history_csv.h"
#include "perf/gate/trend_series.h"
#include "perf/gate/trends_file.h"

typedef struct {
  trend_params params;
  gate_policy policy; /* the gate's: thresholds of rows from before the column, the baseline's, creep's tolerance */
  size_t window;
  const char *since;
  const char *json;       /* --json: where trends.json goes, or NULL */
  const char **baselines; /* --baseline, each matched to the history of its GPU */
  size_t nbaselines;
} trends_options;

static void trends_usage(FILE *out) {
  gate_policy d = default_policy();
  fprintf(out,
          "usage: gate trends [--baseline=PATH]... [--json=FILE] [--tolerance=F (%g)] [--family_tolerance=FAMILY=F]\n"
          "                   [--k_noise=K (%g)] [--alpha=P (0.01)] [--min_step=F (0.006)] [--window=N (5)]\n"
          "                   [--since=DATE] HISTORY.csv...\n"
          "  per benchmark of each history (baselines/history/<gpu>.csv): its change points (E-Divisive means;\n"
          "  a step of at least --min_step, p <= --alpha), and a warning when the median of its last N rows is\n"
          "  beyond its tolerance (for a noisy benchmark: 3 standard errors) against its baseline's time, or\n"
          "  against the median of its first N rows (creep over several merges).\n"
          "  --baseline=PATH: the baseline of a history's GPU (a file, or a folder of a file per family):\n"
          "    the reference of each benchmark it has, and the date of each family's last bless\n"
          "  --json=FILE: also write everything decided (each row's threshold, each series' reference, change\n"
          "    points, creep) to FILE, the input of the report (//plots:render)\n"
          "  --tolerance, --family_tolerance, --k_noise: the gate's policy, as given to gate check\n"
          "  --since=DATE: only change points from DATE on (ISO 8601, as the history's date column)\n"
          "Exit status: 0 (trends are warnings), 2 bad input or usage.\n",
          d.tolerance, d.k_noise);
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
  trends_options o = {.params = trend_defaults(), .policy = default_policy(), .window = TREND_WINDOW};
  int c;
  const char *name = NULL;
  optind = 2;
  while ((c = next_flag(argc, argv, CMD_TRENDS, &name)) != -1) { /* the gate's flags (cli.c): trends' alone */
    char msg[512];
    switch (c) {
      case 't':
      case 'f':
      case 'k': /* the gate's policy */
        if (policy_flag(&o.policy, name, optarg, msg, sizeof msg)) trends_fail(msg);
        break;
      case 'a': o.params.alpha = number_arg("alpha", optarg, 0, 1); break;
      case 'p': o.params.min_step = number_arg("min_step", optarg, 0, 1); break;
      case 'w':
        o.window = (size_t)number_arg("window", optarg, 0.5, 1000.5);
        if ((double)o.window != strtod(optarg, NULL)) trends_fail("--window=N: want a whole number of rows, 1 to 1000");
        break;
      case 'i': o.since = since_arg(optarg); break;
      case 'F':
        o.baselines = realloc(o.baselines, (o.nbaselines + 1) * sizeof *o.baselines);
        o.baselines[o.nbaselines++] = optarg;
        break;
      case 'j': o.json = optarg; break;
      case 'h': trends_usage(stdout); exit(EXIT_PASS);
      default: trends_fail("unknown flag");
    }
  }
  if (optind >= argc) trends_fail("give one history CSV or more (baselines/history/<gpu>.csv)");
  *first = optind;
  return o;
}

typedef struct {
  size_t series, rows, changes, changed_series, crept;
} trend_counts;

/* The table's row at `line` (rows are in file order, one per line from 2 on; a search all the same). */
static const history_entry *row_at(const history_table *t, size_t line) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->r[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->n && t->r[lo].line == line ? &t->r[lo] : NULL;
}

/* One series, as decided: its change points (from --since) and whether it crept. */
static void print_series(const trends_options *o, const history_table *t, const trend_series *s, int show_flush,
                         trend_counts *count) {
  char name[600];
  snprintf(name, sizeof name, "%s%s%s%s%s%s", s->bench, show_flush ? " [l2_flush " : "", show_flush ? s->l2_flush : "",
           show_flush ? "]" : "", s->testbed[0] ? " @" : "", s->testbed);
  size_t shown = 0;
  for (size_t i = 0; i < s->nchanges; i++) {
    const trend_change *c = &s->changes[i];
    size_t at = 0;
    while (at < s->nrows && s->rows[at].line != c->line) at++;
    const history_entry *before = at ? row_at(t, s->rows[at - 1].line) : NULL, *after = row_at(t, c->line);
    if (!before || !after || (o->since && strcmp(after->date, o->since) < 0)) continue;
    printf("CHANGE %s: %+.2f %% from row %zu of %zu (line %zu): %.12s (%.10s) -> %.12s (%.10s), p = %.3f\n", name,
           100 * c->step, at + 1, s->nrows, after->line, before->commit, before->date, after->commit, after->date,
           c->p);
    shown++;
  }
  if (s->crept) {
    char against[64];
    snprintf(against, sizeof against, s->against_baseline ? "its baseline" : "the first %zu", o->window);
    printf(
        "CREPT %s: %+.2f %% (median of the last %zu rows against %s), beyond %s%.1f %%, over %zu "
        "change point%s\n",
        name, 100 * s->creep_level, o->window, against,
        s->creep_allowed > tolerance_for(&o->policy, s->bench, 0) ? "its noise: " : "the tolerance, ",
        100 * s->creep_allowed, s->nchanges, s->nchanges == 1 ? "" : "s");
    count->crept++;
  }
  count->changes += shown;
  count->changed_series += shown > 0;
  count->series++;
  count->rows += s->nrows;
}

static void print_history(const trends_options *o, const history_table *t, const trend_history *h,
                          trend_counts *count) {
  for (size_t i = 0; i < h->n; i++) {
    /* The flush method is named where a benchmark has rows of more than one. */
    int show_flush = (i > 0 && !strcmp(h->s[i - 1].bench, h->s[i].bench)) ||
        (i + 1 < h->n && !strcmp(h->s[i + 1].bench, h->s[i].bench));
    print_series(o, t, &h->s[i], show_flush, count);
  }
}

/* The baselines given, loaded; each history takes the one of its GPU. */
typedef struct {
  const char *path;
  gate_figures fig;
  int used;
} given_baseline;

static given_baseline *load_baselines(const trends_options *o) {
  given_baseline *b = calloc(o->nbaselines + 1, sizeof *b);
  for (size_t i = 0; i < o->nbaselines; i++) {
    char buf[4096], err[2048];
    baseline_place pl;
    b[i].path = o->baselines[i];
    baseline_place_of(user_path(o->baselines[i], buf, sizeof buf), &pl);
    if (baseline_load(&pl, NULL, &b[i].fig, err, sizeof err)) {
      fprintf(stderr, "gate trends: --baseline=%s: %s\n", o->baselines[i], err);
      exit(EXIT_BAD_INPUT);
    }
    for (size_t k = 0; k < i; k++)
      if (!strcmp(b[k].fig.gpu.slug, b[i].fig.gpu.slug)) {
        fprintf(stderr, "gate trends: --baseline=%s and --baseline=%s are both of %s: give one per GPU\n", b[k].path,
                b[i].path, b[i].fig.gpu.slug);
        exit(EXIT_BAD_INPUT);
      }
  }
  return b;
}

int cmd_trends(int argc, char **argv) {
  int first;
  trends_options o = parse_trends(argc, argv, &first);
  given_baseline *bases = load_baselines(&o);
  size_t nh = (size_t)(argc - first);
  trend_history *all = calloc(nh + 1, sizeof *all);
  for (int a = first; a < argc; a++) {
    char buf[4096], err[2048];
    const char *path = user_path(argv[a], buf, sizeof buf);
    history_table t;
    /* As the report reads it: a cut last row (a write stopped by a full disk) is left out, and said. */
    if (history_table_load_to_cut(path, NULL, &t, err, sizeof err)) {
      fprintf(stderr, "gate trends: %s\n", err);
      return EXIT_BAD_INPUT;
    }
    if (t.skipped[0]) fprintf(stderr, "gate trends: %s\n", t.skipped);
    given_baseline *base = NULL;
    for (size_t i = 0; i < o.nbaselines && t.n; i++)
      if (!strcmp(bases[i].fig.gpu.slug, t.r[0].gpu)) base = &bases[i];
    trend_history *h = &all[a - first];
    if (trends_of_history(argv[a], &t, base ? base->path : NULL, base ? &base->fig : NULL, &o.policy, &o.params,
                          o.window, h, err, sizeof err)) {
      fprintf(stderr, "gate trends: %s\n", err);
      return EXIT_BAD_INPUT;
    }
    if (base) base->used = 1;
    trend_counts count = {0};
    printf("Trends in %s%s%s against %s (alpha %.3g, min step %.2g %%, tolerance %.3g %%):\n", argv[a],
           o.since ? " since " : "", o.since ? o.since : "", base ? base->path : "each benchmark's first rows",
           o.params.alpha, 100 * o.params.min_step, 100 * o.policy.tolerance);
    print_history(&o, &t, h, &count);
    printf("gate trends: %s: %zu change point%s in %zu of %zu series (%zu rows); %zu crept beyond %.3g %%\n", argv[a],
           count.changes, count.changes == 1 ? "" : "s", count.changed_series, count.series, count.rows, count.crept,
           100 * o.policy.tolerance);
    history_table_free(&t);
  }
  for (size_t i = 0; i < o.nbaselines; i++)
    if (!bases[i].used)
      fprintf(stderr, "gate trends: --baseline=%s: no history of its GPU (%s) given: not used\n", bases[i].path,
              bases[i].fig.gpu.slug);
  int rc = EXIT_PASS;
  if (o.json) {
    char buf[4096], err[2048];
    if (trends_write(user_path(o.json, buf, sizeof buf), all, nh, err, sizeof err)) {
      fprintf(stderr, "gate trends: --json=%s: %s\n", o.json, err);
      rc = EXIT_BAD_INPUT;
    } else {
      printf("gate trends: wrote %s\n", o.json);
    }
  }
  trends_free(all, nh);
  for (size_t i = 0; i < o.nbaselines; i++) free_figures(&bases[i].fig);
  free(bases);
  free(o.baselines);
  return rc;
}
