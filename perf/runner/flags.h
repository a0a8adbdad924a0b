/* Command-line flags of the benchmark binaries (pure C, getopt_long).
 *
 * Google Benchmark's flags, spelled as it spells them (--flag=value), plus the
 * GPU flags. Parsing never exits: a bad flag or value is reported through the
 * return value and a message naming what is accepted, and the caller exits 2.
 */
#ifndef PERF_RUNNER_FLAGS_H
#define PERF_RUNNER_FLAGS_H

#include <stddef.h>
#include <stdio.h>

typedef enum { FORMAT_CONSOLE, FORMAT_JSON, FORMAT_CSV } out_format;

#define MAX_CONTEXT 32

typedef struct {
  char key[64];
  char value[256];
} context_kv;

typedef struct {
  const char *filter;              /* --benchmark_filter (default ".": all) */
  int list_tests;                  /* --benchmark_list_tests */
  int repetitions;                 /* --benchmark_repetitions (>= 1) */
  double min_time_s;               /* --benchmark_min_time: kept GPU time per repetition */
  double min_warmup_s;             /* --benchmark_min_warmup_time */
  out_format format;               /* --benchmark_format (stdout) */
  const char *out_path;            /* --benchmark_out (NULL: none) */
  out_format out_format;           /* --benchmark_out_format (default json) */
  context_kv context[MAX_CONTEXT]; /* --benchmark_context=k=v[,k=v...] (repeatable) */
  int n_context;
  int report_aggregates_only;  /* --benchmark_report_aggregates_only */
  int display_aggregates_only; /* --benchmark_display_aggregates_only */
  /* GPU flags */
  int device;                  /* --device (CUDA ordinal) */
  int hot;                     /* --hot: no L2 flush before samples */
  int l2_flush_write;          /* --l2_flush=write: memset flush (default: read flush) */
  double max_noise_pct;        /* --max_noise: target relative standard error, % */
  double timeout_s;            /* --timeout: sampling time limit per repetition */
  long min_samples;            /* --min_samples */
  double min_clock_ratio;      /* --min_clock_ratio: discard samples below this x max SM clock */
  int contexts;                /* --contexts: measure short benchmarks again in this many CUDA contexts */
  double contexts_below_s;     /* --contexts_below: a benchmark is short below this median */
  int long_contexts;           /* --long_contexts: the first this many of them measure the long ones too */
  const char *fingerprint_out; /* --fingerprint_out: record what each timed region runs, time nothing */
} bench_options;

typedef enum { FLAGS_OK = 0, FLAGS_HELP = 1, FLAGS_ERROR = 2 } flags_status;

/* Defaults for every field. */
void flags_defaults(bench_options *o);

/* Parses argv[1..argc). FLAGS_ERROR leaves a one-line reason in err (what was
 * given and what is accepted). argv strings must outlive *o (filter and
 * out_path point into them). */
flags_status flags_parse(int argc, char **argv, bench_options *o, char *err, size_t errlen);

/* The --help text. */
void flags_usage(FILE *f, const char *prog);

const char *format_name(out_format f);

#endif
