#define _POSIX_C_SOURCE 200809L
#include "perf/runner/fingerprint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add(fp_ops *ops, uint64_t start, uint32_t correlation, int unknown, const char *fmt, ...) {
  if (ops->n == ops->cap) {
    size_t cap = ops->cap ? 2 * ops->cap : 16;
    fp_op *op = realloc(ops->op, cap * sizeof *op);
    if (!op) return -1;
    ops->op = op;
    ops->cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (!line) return -1;
  va_start(ap, fmt);
  vsnprintf(line, (size_t)len + 1, fmt, ap);
  va_end(ap);
  ops->op[ops->n++] = (fp_op){start, correlation, unknown, line};
  return 0;
}

int fp_add_kernel(fp_ops *ops, uint64_t start, uint32_t correlation, const fp_kernel *k) {
  char sass[17] = "unknown";
  if (k->sass_known) snprintf(sass, sizeof sass, "%016llx", (unsigned long long)k->sass);
  return add(ops, start, correlation, !k->sass_known,
             "kernel %s sass=%s grid=%d,%d,%d block=%d,%d,%d cluster=%u,%u,%u smem=%d+%d regs=%u local=%u",
             k->name ? k->name : "?", sass, (int)k->grid[0], (int)k->grid[1], (int)k->grid[2], (int)k->block[0],
             (int)k->block[1], (int)k->block[2], (unsigned)k->cluster[0], (unsigned)k->cluster[1],
             (unsigned)k->cluster[2], (int)k->smem_static, (int)k->smem_dynamic, (unsigned)k->regs, (unsigned)k->local);
}

int fp_add_memset(fp_ops *ops, uint64_t start, uint32_t correlation, uint64_t bytes, uint32_t value, unsigned kind) {
  return add(ops, start, correlation, 0, "memset bytes=%llu value=%u kind=%u", (unsigned long long)bytes,
             (unsigned)value, kind);
}

int fp_add_memcpy(fp_ops *ops, uint64_t start, uint32_t correlation, unsigned kind, uint64_t bytes) {
  return add(ops, start, correlation, 0, "memcpy kind=%u bytes=%llu", kind, (unsigned long long)bytes);
}

static int by_start(const void *a, const void *b) {
  const fp_op *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

void fp_ops_sort(fp_ops *ops) {
  if (ops->n > 1) qsort(ops->op, ops->n, sizeof *ops->op, by_start);
}

void fp_ops_clear(fp_ops *ops) {
  for (size_t i = 0; i < ops->n; i++) free(ops->op[i].line);
  free(ops->op);
  memset(ops, 0, sizeof *ops);
}

json_t *fp_doc_new(const char *runner_id, const char *gpu) {
  json_t *doc = json_object(), *list = json_array();
  if (!doc || !list || json_object_set_new(doc, "fingerprint_version", json_integer(FINGERPRINT_VERSION)) ||
      json_object_set_new(doc, "runner", json_string(runner_id)) || json_object_set_new(doc, "gpu", json_string(gpu))) {
    json_decref(doc);
    json_decref(list);
    return NULL;
  }
  if (json_object_set_new(doc, "benchmarks", list)) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

/* (jansson's *_set_new and *_append_new take the value's reference even when they fail.) */
int fp_doc_add(json_t *doc, const char *name, int host_round_trip, const fp_ops *ops) {
  json_t *work = json_array(), *b = json_object();
  int complete = ops->n > 0;
  if (!work || !b) goto fail;
  for (size_t i = 0; i < ops->n; i++) {
    complete &= !ops->op[i].unknown;
    if (json_array_append_new(work, json_string(ops->op[i].line))) goto fail;
  }
  if (json_object_set_new(b, "name", json_string(name)) ||
      json_object_set_new(b, "host_round_trip", json_boolean(host_round_trip)) ||
      json_object_set_new(b, "complete", json_boolean(complete)))
    goto fail;
  int bad = json_object_set_new(b, "work", work);
  work = NULL;
  if (bad) goto fail;
  return json_array_append_new(json_object_get(doc, "benchmarks"), b) ? -1 : 0;
fail:
  json_decref(work);
  json_decref(b);
  return -1;
}

int fp_doc_write(const json_t *doc, const char *path, char *err, size_t errlen) {
  size_t len = strlen(path) + 32;
  char *tmp = malloc(len);
  if (!tmp) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  int bad = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', f) == EOF;
  bad |= fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
  int e = errno;
  bad |= fclose(f) != 0;
  if (bad) {
    snprintf(err, errlen, "writing %s failed: %s", tmp, strerror(e ? e : errno));
  } else if (rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    bad = 1;
  }
  if (bad) unlink(tmp);
  free(tmp);
  return bad ? -1 : 0;
}
