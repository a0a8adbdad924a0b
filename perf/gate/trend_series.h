/* Trends of a history, decided once: each series' reference level, the threshold of each row (the band
 * of the over-time chart), its change points and creep. `gate trends` prints them and writes them
 * (trends_file.h); the report draws what it reads there and computes nothing of its own.
 *
 * A series is one benchmark measured with one L2 flush method on one testbed, in file order (rows
 * from before the testbed column join their benchmark's one testbed: history_csv.h). */
#ifndef PERF_GATE_TREND_SERIES_H
#define PERF_GATE_TREND_SERIES_H

#include <stddef.h>

#include "perf/gate/decide.h"
#include "perf/gate/figures.h"
#include "perf/gate/history_csv.h"
#include "perf/gate/trend.h"

/* Rows, by default: the level of creep, and the reference level of a benchmark the baseline lacks. */
#define TREND_WINDOW 5
#define TREND_MAX_ROWS 1000 /* change points are looked for in each series' newest rows (bounded cost) */

typedef struct {
  size_t line;      /* the row's line in the history file (from 1: the header) */
  double threshold; /* the threshold it was judged with, as a fraction */
  int recorded;     /* 1: the history records it; 0: a row from before the column, max(tolerance,
                       k x its within-run spread) */
} trend_row;

typedef struct {
  size_t line;     /* the first row of the new level */
  double step;     /* change_point.step: the shift, relative to the level before */
  double p;        /* the permutation test's p-value */
  double level;    /* the median of the new level against the series' reference level, as a fraction (+ slower) */
  int since_bless; /* after the newest baseline run of the benchmark's family (every one: no baseline) */
} trend_change;

typedef struct {
  char *bench, *l2_flush, *testbed;
  int against_baseline;       /* the reference level is the baseline's time; else the median of the first rows */
  double reference_ns;        /* the reference level: what the chart's 0 % line is drawn against */
  double reference_threshold; /* the gate's threshold against the baseline (0 without one) */
  trend_row *rows;
  size_t nrows;
  trend_change *changes;
  size_t nchanges;
  int crept;                         /* creep_beyond held */
  double creep_level, creep_allowed; /* its level now and the least creep that stands out */
} trend_series;

typedef struct {
  char *history;  /* the history's path, as given */
  char *gpu;      /* the GPU slug its rows name */
  char *baseline; /* the baseline's path, or NULL */
  size_t window;  /* rows: the reference level of a series the baseline lacks, and the level of creep */
  trend_series *s;
  size_t n;
} trend_history;

/* The trends of history t (path: as given) with its GPU's baseline (NULL: none; then each series
 * against its first `window` rows) under policy p (thresholds of rows from before the column, the
 * baseline's, the tolerance of creep) and the detector's params; creep is the median of the last
 * `window` rows. 0, or 1 and a message. */
int trends_of_history(const char *path, const history_table *t, const char *baseline_path, const gate_figures *base,
                      const gate_policy *p, const trend_params *params, size_t window, trend_history *out, char *err,
                      size_t errlen);
void trend_history_free(trend_history *h);

#endif
