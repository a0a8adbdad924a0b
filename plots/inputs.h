/* What the charts are drawn from: runs of the benchmark runner (JSON), the
 * gate's verdicts.json, its history CSV and its baselines. Every loader checks
 * its input and reports the first problem as "FILE: field/line ...: what was
 * expected", so that nothing is drawn from a file that was misread. */
#ifndef PLOTS_INPUTS_H
#define PLOTS_INPUTS_H

#include <stddef.h>

#include "perf/gate/figures.h"
#include "perf/gate/trends_file.h"

enum { RENDER_OK = 0, RENDER_FAILED = 1, RENDER_BAD_INPUT = 2 };

#define PATH_LEN 4096

/* "family/variant/p:v/p:v" split up. */
typedef struct {
  char family[64], variant[128], params[128];
  double size;         /* product of the parameter values: orders problem sizes */
  char size_label[96]; /* "256Mi", "8192×8192" */
  char size_axis[96];  /* the parameter names: "N", "nx×ny" */
} bench_name;

/* Splits a benchmark name; 0 ok, else a message naming the name. */
int parse_bench_name(const char *name, bench_name *out, char *err, size_t errlen);
/* 268435456 -> "256Mi", 8192 -> "8192", 1000000000 -> "1e+09". */
void format_size(long long v, char *buf, size_t len);

/* One benchmark of a run, with the gate's time (the mean of its context medians; repetitions pooled). */
typedef struct {
  char name[256];
  bench_name id;
  int library_reference; /* label "reference": a library reference (cuBLAS, CUB, cudaMemcpy) */
  int order;             /* registration order in its run */
  double time_ns;        /* the run's time: the mean of its context medians (one context: its median) */
  double bytes_per_second;
  double flops_per_call; /* 0: the runner reported no FLOPs */
  size_t run;            /* index of its run in render_inputs.runs */
} run_bench;

/* A benchmark whose self-check or CUDA call failed: the runner wrote an error entry. */
typedef struct {
  char name[256], message[512];
} failed_bench;

typedef struct {
  char path[PATH_LEN];
  gate_gpu gpu;
  double peak_gbps; /* 0: unknown */
  double copy_gbps; /* copy probe of the same run */
  char compute_capability[16], date[64], host[256], commit[64], executable[256];
  run_bench *b;
  size_t n;
  failed_bench *failed; /* shown in the report, left out of the charts */
  size_t nfailed;
} run_file;

typedef struct {
  char name[256];
  char verdict[16];
  int fails;      /* the gate's "fails": a slower library reference does not (files without it: slower or missing) */
  int other_gpus; /* reason "other_gpus": a slower library reference judged against other GPUs than this one */
  double baseline_ns, run_ns, delta, threshold, noise, p_slower; /* NAN where the gate wrote none */
} verdict_row;

typedef struct {
  char path[PATH_LEN];
  char metric[16];
  char gpu_name[256], gpu_slug[256]; /* the GPU the gate ran on; "" in files written before the field */
  verdict_row *v;
  size_t n;
} verdicts_file;

typedef struct {
  size_t line; /* in the history file (from 1: the header): the trends name rows by it */
  char date[64], commit[64], gpu[256], bench[256];
  bench_name id;
  double time_ns; /* the run's time: the mean of its context medians (the column median_ns) */
  double bytes_per_second;
  double spread;    /* the within-run spread (column noise): the samples' interquartile range over the run's time */
  double threshold; /* the threshold the gate applied to this row; NAN in files without the column */
  char verdict[16];
  char l2_flush[8];    /* "read", "write" or "hot"; rows from before the field: "write" */
  const char *testbed; /* the machine a row was measured on, where the history records it; else "". As long
                        * as the gate wrote it (a detected name runs to 80 characters and more); owned by the
                        * history_file, which holds each testbed once: a history names few of them */
} history_row;

typedef struct {
  char path[PATH_LEN];
  history_row *r;
  size_t n;
  char **testbeds; /* the distinct testbeds the rows point to */
  size_t ntestbeds;
} history_file;

/* A baseline: the report names it and charts each family's rows of its L2 flush method (what the gate
 * allows of each benchmark is in the trends, decided by `gate trends`). */
typedef struct {
  char path[PATH_LEN];
  gate_figures fig;
} baseline_file;

typedef struct {
  run_file *runs;
  size_t nruns;
  verdicts_file *verdicts;
  size_t nverdicts;
  history_file *hist;
  size_t nhist;
  baseline_file *bases;
  size_t nbases;
  trend_history *trends; /* what `gate trends --json` decided of each history: the over-time charts draw it */
  size_t ntrends;
  char (*given)[PATH_LEN]; /* every file read, for the report */
  size_t ngiven;
} render_inputs;

int load_run_file(const char *path, run_file *out, char *err, size_t errlen);
int load_verdicts_file(const char *path, verdicts_file *out, char *err, size_t errlen);
/* A cut last row (no newline at its end, or a wrong number of fields: a write stopped short) is left
 * out, said on stderr, and the rows before it are read (history_table_load_to_cut). */
int load_history_file(const char *path, history_file *out, char *err, size_t errlen);
void free_history_file(history_file *h);
int load_baseline_file(const char *path, baseline_file *out, char *err, size_t errlen);

/* Reads one input: a .csv is a history; a .json is told apart by its fields
 * (context: run, verdicts: verdicts, schema_version: baseline, trends_version: the
 * trends of `gate trends --json`); a directory
 * gives its *.json and *.csv and those in its history/ (*.candidate.json,
 * written by the gate for a missing baseline, is skipped). */
int load_input(render_inputs *in, const char *path, char *err, size_t errlen);
void free_inputs(render_inputs *in);

#endif
