#define _POSIX_C_SOURCE 200809L
#include "perf/gate/fingerprint.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "perf/common/fail.h"

#define FP_VERSION 1

void fp_free(fp_file *f) {
  for (size_t i = 0; i < f->n; i++) {
    for (size_t k = 0; k < f->b[i].nwork; k++) free(f->b[i].work[k]);
    free(f->b[i].work);
    free(f->b[i].name);
  }
  free(f->b);
  free(f->runner);
  memset(f, 0, sizeof *f);
}

static int load_bench(const char *path, size_t i, json_t *e, fp_bench *b, char *err, size_t errlen) {
  json_t *name = json_object_get(e, "name"), *hrt = json_object_get(e, "host_round_trip"),
         *complete = json_object_get(e, "complete"), *work = json_object_get(e, "work");
  if (!json_is_string(name) || !json_string_length(name))
    return fail(err, errlen,
                "%s: field benchmarks[%zu].name: expected a benchmark name; re-run the benchmark with "
                "--fingerprint_out",
                path, i);
  if (!json_is_boolean(hrt) || !json_is_boolean(complete))
    return fail(err, errlen, "%s: field benchmarks[%zu].%s: expected true or false", path, i,
                json_is_boolean(hrt) ? "complete" : "host_round_trip");
  if (!json_is_array(work))
    return fail(err, errlen, "%s: field benchmarks[%zu].work: expected a list of operations", path, i);
  b->name = strdup(json_string_value(name));
  b->host_round_trip = json_is_true(hrt);
  b->complete = json_is_true(complete);
  b->nwork = json_array_size(work);
  b->work = calloc(b->nwork + 1, sizeof *b->work);
  if (!b->name || !b->work) return fail(err, errlen, "%s: out of memory", path);
  for (size_t k = 0; k < b->nwork; k++) {
    json_t *w = json_array_get(work, k);
    if (!json_is_string(w))
      return fail(err, errlen, "%s: field benchmarks[%zu].work[%zu]: expected a line of text", path, i, k);
    if (!(b->work[k] = strdup(json_string_value(w)))) return fail(err, errlen, "%s: out of memory", path);
  }
  return 0;
}

int fp_load(const char *path, fp_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root) return fail(err, errlen, "%s: not a fingerprint file: %s (line %d)", path, je.text, je.line);
  json_t *version = json_object_get(root, "fingerprint_version"), *runner = json_object_get(root, "runner"),
         *list = json_object_get(root, "benchmarks");
  int rc = 0;
  if (!json_is_integer(version) || json_integer_value(version) != FP_VERSION)
    rc = fail(err, errlen,
              "%s: field fingerprint_version: expected %d; both sides must be fingerprinted by a runner "
              "of this version",
              path, FP_VERSION);
  else if (!json_is_string(runner) || !json_string_length(runner))
    rc = fail(err, errlen, "%s: field runner: expected the runner's identity", path);
  else if (!json_is_array(list))
    rc = fail(err, errlen, "%s: field benchmarks: expected a list", path);
  if (!rc) {
    out->runner = strdup(json_string_value(runner));
    out->n = json_array_size(list);
    out->b = calloc(out->n + 1, sizeof *out->b);
    if (!out->runner || !out->b) rc = fail(err, errlen, "%s: out of memory", path);
    for (size_t i = 0; !rc && i < out->n; i++) {
      rc = load_bench(path, i, json_array_get(list, i), &out->b[i], err, errlen);
      for (size_t j = 0; !rc && j < i; j++)
        if (strcmp(out->b[j].name, out->b[i].name) == 0)
          rc = fail(err, errlen, "%s: field benchmarks[%zu].name: '%s' is listed twice", path, i, out->b[i].name);
    }
  }
  json_decref(root);
  if (rc) fp_free(out);
  return rc;
}

const fp_bench *fp_find(const fp_file *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->b[i].name, name) == 0) return &f->b[i];
  return NULL;
}

/* The n-th space-separated word of line into buf ("" when there is none). */
static void word(const char *line, size_t n, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t k = 0; *line; k++) {
    while (*line == ' ') line++;
    size_t w = strcspn(line, " ");
    if (k == n) {
      snprintf(buf, len, "%.*s", (int)w, line);
      return;
    }
    line += w;
  }
}

/* Why two operations differ: "kernel NAME: its machine code", "kernel NAME: grid=1,1,1 -> grid=2,1,1",
 * else both lines. */
static void line_change(const char *a, const char *b, char *why, size_t len) {
  char op_a[64], op_b[64], name_a[512], name_b[512];
  word(a, 0, op_a, sizeof op_a);
  word(b, 0, op_b, sizeof op_b);
  word(a, 1, name_a, sizeof name_a);
  word(b, 1, name_b, sizeof name_b);
  if (strcmp(op_a, "kernel") != 0 || strcmp(op_b, "kernel") != 0 || strcmp(name_a, name_b) != 0) {
    snprintf(why, len, "'%s' -> '%s'", a, b);
    return;
  }
  size_t used = (size_t)snprintf(why, len, "kernel %s:", name_a);
  for (size_t k = 2;; k++) {
    char wa[128], wb[128];
    word(a, k, wa, sizeof wa);
    word(b, k, wb, sizeof wb);
    if (!wa[0] && !wb[0]) break;
    if (strcmp(wa, wb) == 0 || used >= len) continue;
    if (strncmp(wa, "sass=", 5) == 0 && strncmp(wb, "sass=", 5) == 0)
      used += (size_t)snprintf(why + used, len - used, " its machine code;");
    else
      used += (size_t)snprintf(why + used, len - used, " %s -> %s;", wa, wb);
  }
  if (used > 0 && used < len && why[used - 1] == ';') why[used - 1] = '\0';
}

fp_class fp_classify(const fp_file *base, const fp_file *change, const char *name, char *why, size_t len) {
  const fp_bench *a = fp_find(base, name), *b = fp_find(change, name);
  why[0] = '\0';
  if (!a && !b) return FP_NEW; /* in neither: nothing to compare (the caller asked for a name of neither) */
  if (!a) return FP_NEW;
  if (!b) return FP_REMOVED;
  if (strcmp(base->runner, change->runner) != 0) {
    snprintf(why, len, "the runner changed (%s -> %s)", base->runner, change->runner);
    return FP_CHANGED;
  }
  if (a->host_round_trip || b->host_round_trip) {
    snprintf(why, len, "a host round trip: its timed region runs host code, which cannot be shown unchanged");
    return FP_CHANGED;
  }
  if (!a->complete || !b->complete) {
    snprintf(why, len, "its timed work was not fully recorded on the %s side", !a->complete ? "base" : "change");
    return FP_CHANGED;
  }
  size_t n = a->nwork < b->nwork ? a->nwork : b->nwork;
  for (size_t k = 0; k < n; k++)
    if (strcmp(a->work[k], b->work[k]) != 0) {
      line_change(a->work[k], b->work[k], why, len);
      return FP_CHANGED;
    }
  if (a->nwork != b->nwork) {
    snprintf(why, len, "%zu operations -> %zu (%s '%s')", a->nwork, b->nwork, a->nwork < b->nwork ? "added" : "removed",
             a->nwork < b->nwork ? b->work[n] : a->work[n]);
    return FP_CHANGED;
  }
  return FP_UNCHANGED;
}
