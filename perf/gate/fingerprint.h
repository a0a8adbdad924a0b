/* What a benchmark's timed region runs, as the runner recorded it (BENCH --fingerprint_out=FILE,
 * perf/runner/fingerprint.h): per benchmark, each kernel launch (its name, a hash of its machine
 * code, grid, block, cluster, shared memory, registers), memset and copy, in order, and the
 * runner's own identity. A/B (ab.c) measures only the benchmarks whose timed work differs between
 * the base and the change. Pure C: no I/O beyond reading the file. */
#ifndef PERF_GATE_FINGERPRINT_H
#define PERF_GATE_FINGERPRINT_H

#include <stddef.h>

typedef struct {
  char *name;
  int host_round_trip; /* its timed region runs host code, which CUPTI does not see */
  int complete;        /* every operation was recorded with its machine code */
  char **work;         /* one line per operation, in order */
  size_t nwork;
} fp_bench;

typedef struct {
  char *runner; /* the runner's identity (a hash of its sources) */
  fp_bench *b;
  size_t n;
} fp_file;

/* Reads a fingerprint file; 0, or 1 with a message naming the file and field in err. */
int fp_load(const char *path, fp_file *out, char *err, size_t errlen);
void fp_free(fp_file *f);
const fp_bench *fp_find(const fp_file *f, const char *name);

typedef enum {
  FP_UNCHANGED, /* the same timed work on both sides: not measured */
  FP_CHANGED,   /* measured A/B */
  FP_NEW,       /* the change has it, the base does not */
  FP_REMOVED,   /* the base has it, the change does not */
} fp_class;

/* How `name` differs between base and change; for FP_CHANGED, why in words into why (e.g. "kernel
 * _Z3addPfi: its machine code", "the runner changed", "grid 128,1,1 -> 256,1,1 of kernel ..."). A
 * host round trip or an incomplete record is always FP_CHANGED: what it runs cannot be shown equal. */
fp_class fp_classify(const fp_file *base, const fp_file *change, const char *name, char *why, size_t len);

#endif
