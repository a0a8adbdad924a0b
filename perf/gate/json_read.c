/* The JSON field readers of run and baseline files, with messages that name the file and field
 * (figures_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "perf/gate/figures_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const gpu_fields kBaselineGpu = {"gpu", "mem_clock_mhz", "driver", "runtime"};

const gpu_fields kRunGpu = {"context.gpu", "mem_clock_max_mhz", "driver_version", "runtime_version"};

/* "a string", "an integer", "null", ...: what a JSON value is, for messages. */
const char *jr_type_name(const json_t *v) {
  static const char *names[] = {"an object", "an array", "a string", "an integer", "a number", "true", "false", "null"};
  return v ? names[json_typeof(v)] : "nothing";
}

json_t *jr_field(ctx *c, json_t *obj, const char *where, const char *key, int type) {
  if (c->failed) return NULL;
  json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
  static const char *names[] = {"an object", "an array", "a string", "an integer", "a number", "true", "false", "null"};
  int ok = v &&
      ((int)json_typeof(v) == type || (type == JSON_REAL && json_is_number(v)) ||
       (type == JSON_TRUE && json_is_boolean(v)));
  if (!ok) {
    c->failed = fail(c->err, c->errlen, "%s: field %s%s%s: expected %s%s", c->path, where, *where ? "." : "", key,
                     type == JSON_TRUE ? "a boolean" : names[type], v ? "" : ", missing");
    return NULL;
  }
  return v;
}

double jr_positive(ctx *c, json_t *obj, const char *where, const char *key) {
  json_t *v = jr_field(c, obj, where, key, JSON_REAL);
  if (!v) return NAN;
  double x = json_number_value(v);
  if (!(x > 0) || !isfinite(x)) {
    c->failed =
        fail(c->err, c->errlen, "%s: field %s.%s: expected a positive finite number, got %g%s", c->path, where, key, x,
             c->baseline ? ": an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git" : "");
    return NAN;
  }
  return x;
}

/* Copies a string field; one too long for its buffer is an error, never cut short. */
void jr_store_str(ctx *c, const char *where, const char *key, const char *s, char *dst, size_t len) {
  if (c->failed) return;
  size_t n = strlen(s);
  if (n >= len) {
    c->failed = fail(c->err, c->errlen,
                     "%s: field %s%s%s: %zu characters, at most %zu are kept ('%.40s...'): "
                     "shorten it",
                     c->path, where, *where ? "." : "", key, n, len - 1, s);
    return;
  }
  memcpy(dst, s, n + 1);
}

/* 0 when x (ns) is a physical time; else 1 and a message naming where.key[index] (index < 0: none). */
int jr_physical_ns(ctx *c, double x, const char *where, const char *key, long index) {
  if (c->failed) return 1;
  if (x >= MIN_PHYSICAL_NS && x <= MAX_PHYSICAL_NS) return 0;
  char idx[32] = "";
  if (index >= 0) snprintf(idx, sizeof idx, "[%ld]", index);
  c->failed = fail(c->err, c->errlen,
                   "%s: field %s.%s%s: %g ns is not a physical time (want a time from %g ns to "
                   "%g s): %s",
                   c->path, where, key, idx, x, MIN_PHYSICAL_NS, MAX_PHYSICAL_NS / 1e9,
                   c->baseline ? "an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git"
                               : "a broken timer or time_unit? Re-run the benchmark");
  return 1;
}

/* Appends the numbers of the JSON array a, times scale, to *x (which holds *n), each a physical
 * time named by key and index in an error; keeps one spare slot. 0, or 1 with c->failed. */
int jr_append_ns(ctx *c, const json_t *a, double scale, const char *where, const char *key, double **x, size_t *n) {
  size_t add = json_array_size(a);
  *x = realloc(*x, (*n + add + 1) * sizeof **x);
  for (size_t k = 0; k < add; k++) {
    const json_t *v = json_array_get(a, k);
    double t = json_is_number(v) ? json_number_value(v) * scale : NAN;
    if (jr_physical_ns(c, t, where, key, (long)k)) return 1;
    (*x)[(*n)++] = t;
  }
  return 0;
}

void jr_copy_str(ctx *c, json_t *obj, const char *where, const char *key, char *dst, size_t len) {
  json_t *v = jr_field(c, obj, where, key, JSON_STRING);
  if (v) jr_store_str(c, where, key, json_string_value(v), dst, len);
}

json_t *load_json_object(const char *path, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT)
      fail(err, errlen, "%s: no such file: check the path (and that the step that writes it ran)", path);
    else
      fail(err, errlen, "%s: cannot read it: %s", path, strerror(e));
    return NULL;
  }
  struct stat st;
  int have_st = fstat(fd, &st) == 0;
  if (have_st && S_ISDIR(st.st_mode)) {
    close(fd);
    fail(err, errlen, "%s: a folder, not a file: give the JSON file in it", path);
    return NULL;
  }
  /* The whole file in one buffer, then parsed: jansson's json_loadfd reads one byte per read()
   * (2.3 M system calls for a 2.3 MB baseline). */
  size_t cap = (have_st && st.st_size > 0 ? (size_t)st.st_size : 0) + 4096, len = 0;
  char *text = malloc(cap);
  ssize_t got = 0;
  while (text && (got = read(fd, text + len, cap - len)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    len += (size_t)got;
    if (len == cap) { /* the file grew since fstat, or fstat failed */
      char *more = realloc(text, cap *= 2);
      if (!more) free(text);
      text = more;
    }
  }
  int read_errno = got < 0 ? errno : 0;
  close(fd);
  if (!text || read_errno) {
    fail(err, errlen, "%s: cannot read it: %s", path, text ? strerror(read_errno) : "out of memory");
    free(text);
    return NULL;
  }
  json_error_t e;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  free(text);
  if (!root) {
    if (strstr(e.text, "too big integer")) /* valid JSON, beyond the reader's 64-bit integers */
      fail(err, errlen,
           "%s: line %d, column %d: %s: a number beyond a 64-bit integer (2^63 - 1), which no field "
           "can hold: a broken counter? Re-run the benchmark",
           path, e.line, e.column, e.text);
    else
      fail(err, errlen, "%s: not valid JSON (line %d, column %d: %s): a truncated or hand-edited file? Re-create it",
           path, e.line, e.column, e.text);
    return NULL;
  }
  if (!json_is_object(root)) {
    json_decref(root);
    fail(err, errlen, "%s: expected a JSON object at the top level", path);
    return NULL;
  }
  return root;
}

int jr_read_measure(ctx *c, json_t *m, const char *where, size_t nruns, gate_measure *out) {
  json_t *run = jr_field(c, m, where, "run", JSON_INTEGER);
  if (run && (json_integer_value(run) < 0 || (size_t)json_integer_value(run) >= nruns))
    return c->failed = fail(c->err, c->errlen, "%s: field %s.run: %lld is not an index into runs (%zu runs)", c->path,
                            where, (long long)json_integer_value(run), nruns);
  out->run = run ? (size_t)json_integer_value(run) : 0;
  /* The field median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
  out->time_ns = jr_positive(c, m, where, "median_ns");
  json_t *cs = jr_field(c, m, where, "contexts_ns", JSON_ARRAY);
  /* Version 2 kept quantiles of the samples; they are read (and not written again). */
  json_t *s = json_object_get(m, "samples_ns");
  if (s && !json_is_array(s))
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.samples_ns: expected an array (a version 2 baseline's "
                            "samples) or none: re-bless",
                            c->path, where);
  if (!cs || jr_physical_ns(c, out->time_ns, where, "median_ns", -1)) return 1;
  if (json_array_size(cs) == 0)
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.contexts_ns: empty; a measure needs the median of each "
                            "context it was measured in (the gate's test compares contexts): re-bless",
                            c->path, where);
  if (jr_append_ns(c, cs, 1.0, where, "contexts_ns", &out->contexts_ns, &out->ncontexts)) return 1;
  double mean = mean_of(out->contexts_ns, out->ncontexts);
  if (fabs(mean - out->time_ns) > 1e-6 * mean)
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.median_ns: %.10g is not the mean of contexts_ns (%.10g): "
                            "an edited baseline? Re-bless",
                            c->path, where, out->time_ns, mean);
  /* Version 2 kept at least one sample per measure (its writer refused none): [] is an edited file, and would be
   * migrated to samples_taken 0, which version 3 refuses. */
  if (s && json_array_size(s) == 0)
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.samples_ns: empty, where a version 2 baseline keeps its measure's "
                            "samples: an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git",
                            c->path, where);
  if (s && jr_append_ns(c, s, 1.0, where, "samples_ns", &out->samples_ns, &out->nsamples)) return 1;
  json_t *taken = json_object_get(m, "samples_taken");
  if (!s && !(json_is_integer(taken) && json_integer_value(taken) > 0))
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.samples_taken: expected how many samples the measure took "
                            "(a whole number above 0): an edited baseline? Re-bless",
                            c->path, where);
  out->samples_taken = json_is_integer(taken) && json_integer_value(taken) >= (json_int_t)out->nsamples
      ? (size_t)json_integer_value(taken)
      : out->nsamples;
  return c->failed;
}

/* "read", "write" or "hot"; a missing value is "write": files made before
 * the field existed were measured with the memset flush, the only one then. */
void jr_read_flush_method(ctx *c, json_t *o, const char *where, const char *key, char *dst, size_t len) {
  json_t *v = json_object_get(o, key);
  if (!v) {
    snprintf(dst, len, "write");
    return;
  }
  const char *s = json_string_value(v);
  if (!s || (strcmp(s, "read") != 0 && strcmp(s, "write") != 0 && strcmp(s, "hot") != 0)) {
    c->failed =
        fail(c->err, c->errlen, "%s: field %s.%s: expected \"read\", \"write\" or \"hot\"", c->path, where, key);
    return;
  }
  snprintf(dst, len, "%s", s);
}

/* An optional string; `otherwise` when missing. One of another type (null too: no writer writes one) is an
 * error: read as `otherwise`, a testbed of 5 was "" and matched runs of every testbed. */
void jr_optional_str(ctx *c, json_t *o, const char *where, const char *key, const char *otherwise, char *dst,
                     size_t len) {
  json_t *v = json_object_get(o, key);
  if (v && !json_is_string(v) && !c->failed) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.%s: expected a string or no field, got %s: %s", c->path, where,
                     key, jr_type_name(v),
                     c->baseline ? "an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git"
                                 : "a hand-edited run file? Re-run the benchmark");
    return;
  }
  jr_store_str(c, where, key, v ? json_string_value(v) : otherwise, dst, len);
}

/* A run's testbed: "" when missing (a file from before the field, compared with every run). A present "" would
 * read as that and match runs of every testbed; no runner or bless writes one. */
void jr_read_testbed(ctx *c, json_t *o, const char *where, char *dst, size_t len) {
  jr_optional_str(c, o, where, "testbed", "", dst, len);
  if (!c->failed && json_object_get(o, "testbed") && !dst[0])
    c->failed = fail(c->err, c->errlen,
                     "%s: field %s.testbed: empty; a run names its testbed (1 to 200 printable characters) or has "
                     "no such field: %s",
                     c->path, where,
                     c->baseline ? "an edited baseline? Re-bless it (ci/bless.sh) or restore it from git"
                                 : "a hand-edited run file? Re-run the benchmark");
}

/* The GPU's name and its slug, which names the baseline and history files: a name
 * without a letter or digit would name them ".json" and ".csv". */
void jr_read_gpu_name(ctx *c, json_t *g, const char *where, gate_gpu *gpu) {
  jr_copy_str(c, g, where, "name", gpu->name, sizeof gpu->name);
  gpu_slug(gpu->name, gpu->slug, sizeof gpu->slug);
  if (!c->failed && gpu->slug[0] == '\0')
    c->failed = fail(c->err, c->errlen,
                     "%s: field %s.name: '%s' has no letter or digit, so it cannot name a baseline "
                     "or history file: give the GPU's model name (as nvidia-smi prints it)",
                     c->path, where, gpu->name);
}

/* Where a file keeps its GPU, and the names of the fields that differ: a baseline's "gpu"
 * is the gate's own; a run's "context.gpu" is the runner's. */

/* The integer v (field where.key) when it lies from lo to hi; else 0 and an error. Checked before the cast to int:
 * an sm_count of 2^32 + 132 was read as 132. v NULL (missing, said already): 0. */
int jr_int_in(ctx *c, json_t *v, const char *where, const char *key, int lo, int hi) {
  if (!v || c->failed) return 0;
  if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi)
    return (int)json_integer_value(v);
  char got[32];
  snprintf(got, sizeof got, "%lld", (long long)json_integer_value(v));
  c->failed = fail(c->err, c->errlen, "%s: field %s.%s: expected an integer from %d to %d, got %s: %s", c->path, where,
                   key, lo, hi, json_is_integer(v) ? got : jr_type_name(v),
                   c->baseline ? "an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git"
                               : "a hand-edited run file? Re-run the benchmark");
  return 0;
}

void jr_read_gpu(ctx *c, json_t *g, const gpu_fields *k, gate_gpu *gpu) {
  jr_read_gpu_name(c, g, k->where, gpu);
  /* Both are positive (the runner's schema); 65536 is far above any GPU's. */
  gpu->sm_count = jr_int_in(c, jr_field(c, g, k->where, "sm_count", JSON_INTEGER), k->where, "sm_count", 1, 65536);
  gpu->mem_clock_mhz = jr_positive(c, g, k->where, k->mem_clock);
  gpu->bus_width_bits =
      jr_int_in(c, jr_field(c, g, k->where, "bus_width_bits", JSON_INTEGER), k->where, "bus_width_bits", 1, 65536);
  json_t *v = jr_field(c, g, k->where, "ecc", JSON_TRUE);
  gpu->ecc = v ? json_is_true(v) : 0;
  jr_copy_str(c, g, k->where, k->driver, gpu->driver, sizeof gpu->driver);
  jr_copy_str(c, g, k->where, k->runtime, gpu->runtime, sizeof gpu->runtime);
}

/* How many contexts measured the short benchmarks, what "short" meant, and in how many of them the
 * long ones were measured (--long_contexts). A baseline must say the first two (required); a run
 * file without them was measured in one context. Without long_contexts (runs before it), the
 * long benchmarks were measured in the first context alone: 0. */
void jr_read_contexts_method(ctx *c, json_t *o, const char *where, gate_run_info *info, int required) {
  json_t *k = required ? jr_field(c, o, where, "contexts", JSON_INTEGER) : json_object_get(o, "contexts");
  json_t *below =
      required ? jr_field(c, o, where, "contexts_below_s", JSON_REAL) : json_object_get(o, "contexts_below_s");
  json_t *l = json_object_get(o, "long_contexts");
  if (c->failed) return;
  /* Present ones are checked, never read as their default ("16" as 1 context). */
  info->contexts = k ? jr_int_in(c, k, where, "contexts", 1, 256) : 1;
  info->long_contexts = l ? jr_int_in(c, l, where, "long_contexts", 0, info->contexts) : 0;
  info->contexts_below_s = json_is_number(below) ? json_number_value(below) : 0;
  if (!c->failed && below &&
      !(json_is_number(below) && info->contexts_below_s >= 0 && isfinite(info->contexts_below_s)))
    c->failed = fail(c->err, c->errlen, "%s: field %s.contexts_below_s: expected a number >= 0", c->path, where);
}

/* An optional number >= 0 of object o (absent: 0, as in files made before the field); else the
 * error "field where.key: expected <what>; <fix>". */
double jr_optional_nonnegative(ctx *c, json_t *o, const char *where, const char *key, const char *what,
                               const char *fix) {
  json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
  if (!v || c->failed) return 0;
  double x = json_is_number(v) ? json_number_value(v) : -1;
  if (!(x >= 0) || !isfinite(x)) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.%s: expected %s; %s", c->path, where, key, what, fix);
    return 0;
  }
  return x;
}

/* A launch probe of a baseline's run: 0 in runs made before the probe. */
double jr_optional_probe(ctx *c, json_t *o, const char *where, const char *name) {
  return jr_optional_nonnegative(c, o, where, name, "a time in ns >= 0 (0: not measured)", "re-bless");
}

/* Seconds of warm-up of a run: a baseline's runs[i].warmup_s, or a run file's
 * context.timing.min_warmup_time_s. Absent is 0 (one warm-up run): baselines and runs made
 * before the field were measured so. */
double jr_optional_warmup(ctx *c, json_t *o, const char *where, const char *key, const char *fix) {
  return jr_optional_nonnegative(c, o, where, key, "seconds of warm-up, a finite number >= 0 (0: one warm-up run)",
                                 fix);
}

/* A run file's context.launch_ns: the probe's median in the first context, then in each of
 * --contexts. Absent in runs made before the probe: both 0. */
void jr_read_launch_probe(ctx *c, json_t *cx, gate_run_info *info) {
  json_t *a = json_object_get(cx, "launch_ns");
  if (!a || c->failed) return;
  size_t n = json_is_array(a) ? json_array_size(a) : 0;
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(a, i);
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!(x >= 0) || !isfinite(x))
      n = 0;
    else if (i > 0)
      sum += x;
  }
  if (n == 0) {
    c->failed = fail(c->err, c->errlen,
                     "%s: field context.launch_ns: expected a list of times in ns >= 0 (the "
                     "runner's launch probe, first context first); re-run the benchmark",
                     c->path);
    return;
  }
  info->launch_first_ns = json_number_value(json_array_get(a, 0));
  info->launch_contexts_ns = n > 1 ? sum / (double)(n - 1) : 0;
}

/* An optional true/false field: 0 when absent; anything but a boolean is an error. */
int jr_optional_flag(ctx *c, json_t *o, const char *where, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!v || c->failed) return 0;
  if (!json_is_boolean(v)) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.%s: expected true or false", c->path, where, key);
    return 0;
  }
  return json_is_true(v);
}
