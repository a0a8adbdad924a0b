/* The fingerprint file of --fingerprint_out (pure C, jansson): per benchmark, the GPU operations
 * one run of its timed region executed, one line of text each, in start order.
 *
 *   {"fingerprint_version": 1, "runner": "<bench_runner_id>", "gpu": "<device name>",
 *    "benchmarks": [{"name": "family/variant/P:V", "host_round_trip": false, "complete": true,
 *                    "work": ["kernel NAME sass=HEX16 grid=X,Y,Z block=X,Y,Z cluster=X,Y,Z
 *                              smem=STATIC+DYNAMIC regs=R local=L",
 *                             "memset bytes=N value=V kind=K", "memcpy kind=K bytes=N"]}]}
 *
 * A benchmark is complete when every kernel's machine code is known (else sass=unknown) and it
 * ran at least one operation (none: its work was invisible to CUPTI, e.g. host work). The
 * regression gate skips a benchmark only when both sides' entries are complete and equal. */
#ifndef PERF_RUNNER_FINGERPRINT_H
#define PERF_RUNNER_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define FINGERPRINT_VERSION 1

/* One operation: its line, and where it sorts (start time, then correlation id). */
typedef struct {
  uint64_t start;
  uint32_t correlation;
  int unknown; /* a kernel whose machine code is not known */
  char *line;
} fp_op;

typedef struct {
  fp_op *op;
  size_t n, cap;
} fp_ops;

typedef struct {
  const char *name; /* mangled, as CUPTI reports it */
  int sass_known;
  uint64_t sass;
  int32_t grid[3], block[3];
  uint32_t cluster[3];
  int32_t smem_static, smem_dynamic;
  uint32_t regs, local;
} fp_kernel;

/* Each returns 0, or -1 when out of memory (nothing added). */
int fp_add_kernel(fp_ops *ops, uint64_t start, uint32_t correlation, const fp_kernel *k);
int fp_add_memset(fp_ops *ops, uint64_t start, uint32_t correlation, uint64_t bytes, uint32_t value, unsigned kind);
int fp_add_memcpy(fp_ops *ops, uint64_t start, uint32_t correlation, unsigned kind, uint64_t bytes);
/* Records arrive in completion order: start order, ties by correlation id. */
void fp_ops_sort(fp_ops *ops);
void fp_ops_clear(fp_ops *ops);

/* The document; NULL when out of memory. */
json_t *fp_doc_new(const char *runner_id, const char *gpu);
/* Appends a benchmark with ops in their current order. Returns 0, or -1 when out of memory. */
int fp_doc_add(json_t *doc, const char *name, int host_round_trip, const fp_ops *ops);
/* Writes doc to path atomically (a temporary file beside it, then rename): the file is whole or
 * untouched. Returns 0, or -1 with the reason in err. */
int fp_doc_write(const json_t *doc, const char *path, char *err, size_t errlen);

#endif
