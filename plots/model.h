/* The inputs arranged the way the report shows them: per GPU, per kernel
 * family, the latest figure of every benchmark and the history rows. */
#ifndef PLOTS_MODEL_H
#define PLOTS_MODEL_H

#include "plots/inputs.h"

#define MAX_CHARTS 3

typedef struct {
  char png[512], svg[512]; /* file names inside the output directory */
  const char *kind;        /* "history", "ladder", "size" */
  int width, height;
  char caption[1024];
} chart;

/* The latest measurement of one benchmark on one GPU. */
typedef struct {
  const run_bench *b;
  const run_file *run;
} entry;

typedef struct {
  char name[128];
  int library_reference; /* label "reference": a library's kernel (cuBLAS, CUB, cudaMemcpy) */
} variant_info;

/* A change point in one benchmark's history (decided by `gate trends`: trend_series.h). */
typedef struct {
  const history_row *before, *after; /* the rows on either side of the step */
  double step, p;                    /* time after / time before - 1, and the permutation test's p */
  int since_bless;                   /* after the newest baseline run of its family (all: no baseline) */
} trend_mark;

/* A benchmark whose level now (median of its last rows) is beyond its tolerance. */
typedef struct {
  const history_row *last;
  double level; /* against its baseline, or its first rows without one (fraction, + slower) */
  double tolerance;
  size_t nchanges; /* change points in its history */
  int against_baseline;
} creep_mark;

typedef struct {
  char name[64];
  int flops; /* charted in TFLOP/s (arithmetic intensity >= 1 FLOP/byte), else GB/s */
  entry *e;  /* latest figures, in registration order */
  size_t ne;
  variant_info *v; /* every variant seen (runs first, then history): fixes each one's colour */
  size_t nv;
  const history_row **h; /* history of this family on this GPU, in file order */
  size_t nh;
  chart charts[MAX_CHARTS];
  size_t ncharts;
  char notes[2048]; /* why a chart is missing or thin, for the report */
  trend_mark *cp;   /* change points of its benchmarks, in the order of the chart */
  size_t ncp;
  creep_mark *creep;
  size_t ncreep;
} family_view;

typedef struct {
  char slug[256], name[256];
  const run_file *run;         /* the latest run on this GPU (context for the report), or NULL */
  const baseline_file *base;   /* its baseline, or NULL */
  const trend_history *trends; /* what `gate trends` decided of its history; NULL when it has none */
  family_view *f;
  size_t nf;
  const verdicts_file **verdicts; /* the gate's verdicts for this GPU's latest runs */
  size_t nverdicts;
} gpu_view;

typedef struct {
  gpu_view *g;
  size_t ng;
  char left_out[1024]; /* GPUs whose baseline or history was given but left out (no run of them), "a, b" */
} report_model;

/* A history row's entry in the trends (its threshold) and its series (*series, when given); NULL when the trends
 * do not hold it (build_model refuses such inputs, so the charts always find it). */
const trend_row *trend_row_of(const trend_history *h, const history_row *r, const trend_series **series);
/* 0 ok; else a message (e.g. verdicts that cannot be tied to one GPU, history without its trends). */
int build_model(const render_inputs *in, report_model *m, char *err, size_t errlen);
void free_model(report_model *m);

/* What a figure means in the family's unit: GB/s, or TFLOP/s for FLOP-bound families. */
double entry_value(const family_view *f, const entry *e);
const entry *find_entry(const family_view *f, const char *bench);
const char *unit_of(const family_view *f);
int variant_index(const family_view *f, const char *variant); /* 1-based colour index */

#endif
