#define _POSIX_C_SOURCE 200809L
#include "perf/gate/figures.h"
#include "perf/gate/fail.h"

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

static double *copy_doubles(const double *x, size_t n) {
  double *y = malloc((n + 1) * sizeof *y);
  if (y && n) memcpy(y, x, n * sizeof *y);
  return y;
}

static double mean_of(const double *x, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += x[i];
  return n ? sum / (double)n : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void gpu_slug(const char *name, char *slug, size_t len) {
  size_t k = 0;
  int dash = 0;
  for (const char *p = name; *p && k + 1 < len; p++) {
    if (isalnum((unsigned char)*p)) {
      if (dash && k > 0 && k + 2 < len) slug[k++] = '-';
      slug[k++] = (char)tolower((unsigned char)*p);
      dash = 0;
    } else {
      dash = 1;
    }
  }
  slug[k] = '\0';
}

int same_hardware(const gate_gpu *base, const gate_gpu *run, char *err, size_t errlen) {
  if (strcmp(base->slug, run->slug) != 0)
    return fail(err, errlen, "GPU model differs: baseline '%s', this GPU '%s'", base->name, run->name);
  if (base->sm_count != run->sm_count)
    return fail(err, errlen,
                "field gpu.sm_count differs: baseline %d SMs, this %s has %d (a different SKU or MIG slice)",
                base->sm_count, run->name, run->sm_count);
  if (fabs(base->mem_clock_mhz - run->mem_clock_mhz) > 0.5)
    return fail(err, errlen, "field gpu.mem_clock_mhz differs: baseline %.0f MHz, this GPU %.0f MHz",
                base->mem_clock_mhz, run->mem_clock_mhz);
  if (base->bus_width_bits != run->bus_width_bits)
    return fail(err, errlen, "field gpu.bus_width_bits differs: baseline %d, this GPU %d", base->bus_width_bits,
                run->bus_width_bits);
  if (base->ecc != run->ecc)
    return fail(err, errlen, "field gpu.ecc differs: baseline ECC %s, this GPU ECC %s (ECC costs bandwidth)",
                base->ecc ? "on" : "off", run->ecc ? "on" : "off");
  return 0;
}

/* Whether two runs' warm-ups differ: closer than 1e-9 s they are one (a number that went through
 * JSON and back). */
static int warmups_differ(double a_s, double b_s) { return fabs(a_s - b_s) > 1e-9; }

/* How a run's short benchmarks were measured, for messages: a run file without contexts_below_s (made
 * before --contexts) reads as one context and 0 us, which "under 0 us in 1 CUDA contexts" would say. */
static const char *contexts_method(const gate_run_info *r, char *buf, size_t len) {
  if (r->contexts_below_s <= 0 && r->contexts <= 1)
    snprintf(buf, len, "in one context per run (a run made before --contexts)");
  else
    snprintf(buf, len, "with short benchmarks (under %g us) in %d CUDA context%s", r->contexts_below_s * 1e6,
             r->contexts, r->contexts == 1 ? "" : "s");
  return buf;
}

int same_method(const gate_figures *base, const gate_figures *run, char *err, size_t errlen) {
  if (run->nruns == 0) return fail(err, errlen, "the run has no run information");
  const gate_run_info *want = &run->runs[0];
  for (size_t i = 0; i < base->n; i++)
    for (size_t r = 0; r < base->b[i].nruns; r++) {
      size_t k = base->b[i].runs[r].run;
      if (k >= base->nruns) continue;
      const gate_run_info *have = &base->runs[k];
      if (strcmp(have->l2_flush, want->l2_flush) != 0)
        return fail(err, errlen,
                    "field runs[%zu].l2_flush differs: %s was measured with the '%s' L2 flush, this run "
                    "with '%s'; figures taken differently do not compare (re-bless with runs made like this one)",
                    k, base->b[i].name, have->l2_flush, want->l2_flush);
      if (have->contexts != want->contexts || fabs(have->contexts_below_s - want->contexts_below_s) > 1e-12) {
        char b1[128], b2[128];
        return fail(err, errlen,
                    "field runs[%zu].contexts differs: %s was measured %s, this run %s; figures taken "
                    "differently do not compare (re-bless with runs made like this one)",
                    k, base->b[i].name, contexts_method(have, b1, sizeof b1), contexts_method(want, b2, sizeof b2));
      }
      /* A long benchmark's figure is the mean of its contexts' medians either way; a run measured in
       * more contexts than the baseline's runs only spreads less than the baseline's noise allows
       * for, but one measured in fewer would be held to a steadier baseline's thresholds. */
      if (have->long_contexts > want->long_contexts)
        return fail(err, errlen,
                    "field runs[%zu].long_contexts differs: %s was measured with long benchmarks in %d "
                    "CUDA contexts, this run in %d; a run must measure them in at least as many contexts as the "
                    "baseline (gate check --long_contexts=%d, the default, or re-bless with runs made like this one)",
                    k, base->b[i].name, have->long_contexts, want->long_contexts, have->long_contexts);
      /* Compute-bound kernels measure up to ~2 % apart with and without a warm-up: a gap the
       * thresholds would read as a change. */
      if (warmups_differ(have->warmup_s, want->warmup_s))
        return fail(err, errlen,
                    "field runs[%zu].warmup_s differs: %s was measured with %g s of warm-up per benchmark "
                    "and context in the baseline, %g s in this run; figures taken differently do not compare (give "
                    "the perf test the baseline's --warmup=%g, or re-bless with runs made like this one)",
                    k, base->b[i].name, have->warmup_s, want->warmup_s, have->warmup_s);
    }
  return 0;
}

const gate_bench *find_bench(const gate_figures *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->b[i].name, name) == 0) return &f->b[i];
  return NULL;
}

void free_bench(gate_bench *b) {
  for (size_t r = 0; r < b->nruns; r++) {
    free(b->runs[r].samples_ns);
    free(b->runs[r].contexts_ns);
  }
  free(b->runs);
  free(b->name);
  memset(b, 0, sizeof *b);
}

void free_figures(gate_figures *f) {
  for (size_t i = 0; i < f->n; i++) free_bench(&f->b[i]);
  free(f->b);
  free(f->runs);
  memset(f, 0, sizeof *f);
}

/* ---- JSON field access with messages that name the file and field ---- */

typedef struct {
  const char *path;
  char *err;
  size_t errlen;
  int failed;
  int baseline;        /* a baseline, not a run file: a bad figure there is fixed by re-blessing it */
  json_t *repetitions; /* a run file: name -> the repetition_index values of its iteration entries read so far */
} ctx;

static json_t *field(ctx *c, json_t *obj, const char *where, const char *key, int type) {
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

static double positive(ctx *c, json_t *obj, const char *where, const char *key) {
  json_t *v = field(c, obj, where, key, JSON_REAL);
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
static void store_str(ctx *c, const char *where, const char *key, const char *s, char *dst, size_t len) {
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

/* A kernel call takes at least this long: a shorter or non-finite time is a broken timer or
 * time_unit, and would make a "faster -100 %" and an infinite bandwidth. */
#define MIN_PHYSICAL_NS 1.0
/* ... and at most this long (1000 s: the runner stops sampling a repetition after seconds): a context
 * median of 1e308 ns was set aside as an interruption and the run judged "same" (#56). */
#define MAX_PHYSICAL_NS 1e12

/* 0 when x (ns) is a physical time; else 1 and a message naming where.key[index] (index < 0: none). */
static int physical_ns(ctx *c, double x, const char *where, const char *key, long index) {
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
static int append_ns(ctx *c, const json_t *a, double scale, const char *where, const char *key, double **x, size_t *n) {
  size_t add = json_array_size(a);
  *x = realloc(*x, (*n + add + 1) * sizeof **x);
  for (size_t k = 0; k < add; k++) {
    const json_t *v = json_array_get(a, k);
    double t = json_is_number(v) ? json_number_value(v) * scale : NAN;
    if (physical_ns(c, t, where, key, (long)k)) return 1;
    (*x)[(*n)++] = t;
  }
  return 0;
}

static void copy_str(ctx *c, json_t *obj, const char *where, const char *key, char *dst, size_t len) {
  json_t *v = field(c, obj, where, key, JSON_STRING);
  if (v) store_str(c, where, key, json_string_value(v), dst, len);
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

static int read_measure(ctx *c, json_t *m, const char *where, size_t nruns, gate_measure *out) {
  json_t *run = field(c, m, where, "run", JSON_INTEGER);
  if (run && (json_integer_value(run) < 0 || (size_t)json_integer_value(run) >= nruns))
    return c->failed = fail(c->err, c->errlen, "%s: field %s.run: %lld is not an index into runs (%zu runs)", c->path,
                            where, (long long)json_integer_value(run), nruns);
  out->run = run ? (size_t)json_integer_value(run) : 0;
  out->median_ns = positive(c, m, where, "median_ns");
  json_t *cs = field(c, m, where, "contexts_ns", JSON_ARRAY);
  /* Version 2 kept quantiles of the samples; they are read (and not written again). */
  json_t *s = json_object_get(m, "samples_ns");
  if (s && !json_is_array(s))
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.samples_ns: expected an array (a version 2 baseline's "
                            "samples) or none: re-bless",
                            c->path, where);
  if (!cs || physical_ns(c, out->median_ns, where, "median_ns", -1)) return 1;
  if (json_array_size(cs) == 0)
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.contexts_ns: empty; a measure needs the median of each "
                            "context it was measured in (the gate's test compares contexts): re-bless",
                            c->path, where);
  if (append_ns(c, cs, 1.0, where, "contexts_ns", &out->contexts_ns, &out->ncontexts)) return 1;
  double mean = mean_of(out->contexts_ns, out->ncontexts);
  if (fabs(mean - out->median_ns) > 1e-6 * mean)
    return c->failed = fail(c->err, c->errlen,
                            "%s: field %s.median_ns: %.10g is not the mean of contexts_ns (%.10g): "
                            "an edited baseline? Re-bless",
                            c->path, where, out->median_ns, mean);
  if (s && append_ns(c, s, 1.0, where, "samples_ns", &out->samples_ns, &out->nsamples)) return 1;
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
static void read_flush_method(ctx *c, json_t *o, const char *where, const char *key, char *dst, size_t len) {
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

/* An optional string; `otherwise` when missing. */
static void optional_str(ctx *c, json_t *o, const char *where, const char *key, const char *otherwise, char *dst,
                         size_t len) {
  json_t *v = json_object_get(o, key);
  store_str(c, where, key, json_is_string(v) ? json_string_value(v) : otherwise, dst, len);
}

/* The GPU's name and its slug, which names the baseline and history files: a name
 * without a letter or digit would name them ".json" and ".csv". */
static void read_gpu_name(ctx *c, json_t *g, const char *where, gate_gpu *gpu) {
  copy_str(c, g, where, "name", gpu->name, sizeof gpu->name);
  gpu_slug(gpu->name, gpu->slug, sizeof gpu->slug);
  if (!c->failed && gpu->slug[0] == '\0')
    c->failed = fail(c->err, c->errlen,
                     "%s: field %s.name: '%s' has no letter or digit, so it cannot name a baseline "
                     "or history file: give the GPU's model name (as nvidia-smi prints it)",
                     c->path, where, gpu->name);
}

/* Where a file keeps its GPU, and the names of the fields that differ: a baseline's "gpu"
 * is the gate's own; a run's "context.gpu" is the runner's. */
typedef struct {
  const char *where, *mem_clock, *driver, *runtime;
} gpu_fields;
static const gpu_fields kBaselineGpu = {"gpu", "mem_clock_mhz", "driver", "runtime"};
static const gpu_fields kRunGpu = {"context.gpu", "mem_clock_max_mhz", "driver_version", "runtime_version"};

static void read_gpu(ctx *c, json_t *g, const gpu_fields *k, gate_gpu *gpu) {
  read_gpu_name(c, g, k->where, gpu);
  json_t *v = field(c, g, k->where, "sm_count", JSON_INTEGER);
  gpu->sm_count = v ? (int)json_integer_value(v) : 0;
  gpu->mem_clock_mhz = positive(c, g, k->where, k->mem_clock);
  v = field(c, g, k->where, "bus_width_bits", JSON_INTEGER);
  gpu->bus_width_bits = v ? (int)json_integer_value(v) : 0;
  v = field(c, g, k->where, "ecc", JSON_TRUE);
  gpu->ecc = v ? json_is_true(v) : 0;
  copy_str(c, g, k->where, k->driver, gpu->driver, sizeof gpu->driver);
  copy_str(c, g, k->where, k->runtime, gpu->runtime, sizeof gpu->runtime);
}

/* How many contexts measured the short benchmarks, what "short" meant, and in how many of them the
 * long ones were measured (--long_contexts). A baseline must say the first two (required); a run
 * file without them was measured in one context. Without long_contexts (runs before it), the
 * long benchmarks were measured in the first context alone: 0. */
static void read_contexts_method(ctx *c, json_t *o, const char *where, gate_run_info *info, int required) {
  json_t *k = required ? field(c, o, where, "contexts", JSON_INTEGER) : json_object_get(o, "contexts");
  json_t *below = required ? field(c, o, where, "contexts_below_s", JSON_REAL) : json_object_get(o, "contexts_below_s");
  info->contexts = json_is_integer(k) ? (int)json_integer_value(k) : 1;
  info->contexts_below_s = json_is_number(below) ? json_number_value(below) : 0;
  json_t *l = json_object_get(o, "long_contexts");
  info->long_contexts = json_is_integer(l) ? (int)json_integer_value(l) : 0;
  if (c->failed) return;
  if (l && (!json_is_integer(l) || info->long_contexts < 0 || info->long_contexts > info->contexts)) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.long_contexts: expected an integer from 0 to its contexts (%d)",
                     c->path, where, info->contexts);
    return;
  }
  if (info->contexts < 1 || info->contexts > 256)
    c->failed =
        fail(c->err, c->errlen, "%s: field %s.contexts: %d is not from 1 to 256", c->path, where, info->contexts);
  else if (!(info->contexts_below_s >= 0) || !isfinite(info->contexts_below_s))
    c->failed = fail(c->err, c->errlen, "%s: field %s.contexts_below_s: expected a number >= 0", c->path, where);
}

/* An optional number >= 0 of object o (absent: 0, as in files made before the field); else the
 * error "field where.key: expected <what>; <fix>". */
static double optional_nonnegative(ctx *c, json_t *o, const char *where, const char *key, const char *what,
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
static double optional_probe(ctx *c, json_t *o, const char *where, const char *name) {
  return optional_nonnegative(c, o, where, name, "a time in ns >= 0 (0: not measured)", "re-bless");
}

/* Seconds of warm-up of a run: a baseline's runs[i].warmup_s, or a run file's
 * context.timing.min_warmup_time_s. Absent is 0 (one warm-up run): baselines and runs made
 * before the field were measured so. */
static double optional_warmup(ctx *c, json_t *o, const char *where, const char *key, const char *fix) {
  return optional_nonnegative(c, o, where, key, "seconds of warm-up, a finite number >= 0 (0: one warm-up run)", fix);
}

/* A run file's context.launch_ns: the probe's median in the first context, then in each of
 * --contexts. Absent in runs made before the probe: both 0. */
static void read_launch_probe(ctx *c, json_t *cx, gate_run_info *info) {
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
static int optional_flag(ctx *c, json_t *o, const char *where, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!v || c->failed) return 0;
  if (!json_is_boolean(v)) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.%s: expected true or false", c->path, where, key);
    return 0;
  }
  return json_is_true(v);
}

int load_baseline(const char *path, gate_figures *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  json_t *root = load_json_object(path, err, errlen);
  if (!root) return 1;
  ctx c = {path, err, errlen, 0, 1, NULL};
  json_t *ver = field(&c, root, "", "schema_version", JSON_INTEGER);
  if (ver &&
      (json_integer_value(ver) < BASELINE_OLDEST_SCHEMA_VERSION || json_integer_value(ver) > BASELINE_SCHEMA_VERSION))
    c.failed = fail(err, errlen,
                    "%s: field schema_version: %lld is not supported (this gate reads versions %d to %d): "
                    "%s",
                    path, (long long)json_integer_value(ver), BASELINE_OLDEST_SCHEMA_VERSION, BASELINE_SCHEMA_VERSION,
                    json_integer_value(ver) > BASELINE_SCHEMA_VERSION
                        ? "a newer gate wrote it; run that gate (update this checkout), do not re-bless with this one"
                        : "an older format this gate no longer reads; re-bless it from runs (ci/bless.sh)");
  json_t *g = field(&c, root, "", "gpu", JSON_OBJECT);
  if (g) read_gpu(&c, g, &kBaselineGpu, &out->gpu);
  /* The file must be named after the GPU it was measured on: <slug>.json, or <family>.json in a folder named
   * <slug> (baseline_store.h). */
  if (!c.failed) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(out->gpu.slug), dir_len = (size_t)(base - path);
    const char *parent = path;
    for (const char *q = path; q + 1 < base; q++)
      if (*q == '/') parent = q + 1;
    int one_file = strncmp(base, out->gpu.slug, len) == 0 && strcmp(base + len, ".json") == 0;
    int in_folder = dir_len > len && (size_t)(base - 1 - parent) == len && strncmp(parent, out->gpu.slug, len) == 0 &&
        strlen(base) > 5 && strcmp(base + strlen(base) - 5, ".json") == 0;
    if (!one_file && !in_folder)
      c.failed = fail(err, errlen,
                      "%s: field gpu.name is '%s', so the file should be named %s.json (or %s/<family>.json): a "
                      "baseline copied from another GPU? Bless one on this GPU instead",
                      path, out->gpu.name, out->gpu.slug, out->gpu.slug);
  }
  json_t *runs = field(&c, root, "", "runs", JSON_ARRAY);
  if (runs) {
    out->nruns = json_array_size(runs);
    if (out->nruns == 0) c.failed = fail(err, errlen, "%s: field runs: empty; a baseline needs at least one run", path);
    out->runs = calloc(out->nruns + 1, sizeof *out->runs);
    for (size_t i = 0; i < out->nruns && !c.failed; i++) {
      json_t *r = json_array_get(runs, i);
      char where[32];
      snprintf(where, sizeof where, "runs[%zu]", i);
      copy_str(&c, r, where, "date", out->runs[i].date, sizeof out->runs[i].date);
      copy_str(&c, r, where, "commit", out->runs[i].commit, sizeof out->runs[i].commit);
      copy_str(&c, r, where, "host", out->runs[i].host, sizeof out->runs[i].host);
      out->runs[i].copy_bytes_per_second = positive(&c, r, where, "copy_bytes_per_second");
      read_flush_method(&c, r, where, "l2_flush", out->runs[i].l2_flush, sizeof out->runs[i].l2_flush);
      optional_str(&c, r, where, "gpu_uuid", "", out->runs[i].gpu_uuid, sizeof out->runs[i].gpu_uuid);
      optional_str(&c, r, where, "testbed", "", out->runs[i].testbed, sizeof out->runs[i].testbed);
      read_contexts_method(&c, r, where, &out->runs[i], 1);
      out->runs[i].launch_first_ns = optional_probe(&c, r, where, "launch_first_ns");
      out->runs[i].launch_contexts_ns = optional_probe(&c, r, where, "launch_contexts_ns");
      out->runs[i].warmup_s = optional_warmup(&c, r, where, "warmup_s", "re-bless");
    }
  }
  json_t *bs = field(&c, root, "", "benchmarks", JSON_ARRAY);
  if (bs) {
    out->n = json_array_size(bs);
    if (out->n == 0)
      c.failed = fail(err, errlen, "%s: field benchmarks: empty; re-bless from a run with benchmarks", path);
    out->b = calloc(out->n + 1, sizeof *out->b);
    for (size_t i = 0; i < out->n && !c.failed; i++) {
      json_t *b = json_array_get(bs, i);
      char where[64];
      snprintf(where, sizeof where, "benchmarks[%zu]", i);
      json_t *name = field(&c, b, where, "name", JSON_STRING);
      if (!name) break;
      int seen = 0;
      for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(out->b[k].name, json_string_value(name));
      if (seen) {
        c.failed =
            fail(err, errlen, "%s: field %s.name: '%s' appears twice: re-bless", path, where, json_string_value(name));
        break;
      }
      out->b[i].name = strdup(json_string_value(name));
      out->b[i].bytes_per_second = positive(&c, b, where, "bytes_per_second");
      out->b[i].host_round_trip = optional_flag(&c, b, where, "host_round_trip");
      json_t *m = field(&c, b, where, "runs", JSON_ARRAY);
      if (!m) break;
      out->b[i].nruns = json_array_size(m);
      if (out->b[i].nruns == 0) {
        c.failed = fail(err, errlen, "%s: field %s.runs: empty; every benchmark needs a measure", path, where);
        break;
      }
      out->b[i].runs = calloc(out->b[i].nruns + 1, sizeof *out->b[i].runs);
      for (size_t r = 0; r < out->b[i].nruns && !c.failed; r++) {
        char w2[96];
        snprintf(w2, sizeof w2, "%s.runs[%zu]", where, r);
        read_measure(&c, json_array_get(m, r), w2, out->nruns, &out->b[i].runs[r]);
      }
    }
  }
  json_decref(root);
  if (c.failed) free_figures(out);
  return c.failed;
}

/* Building a baseline's JSON: jansson refuses inf and nan (json_real gives NULL, and an
 * append of NULL fails), so every number is checked and every build step's result too;
 * a failure names the benchmark and field, and nothing is written. */
static int finite_field(ctx *c, const char *name, const char *key, double x) {
  if (c->failed || isfinite(x)) return c->failed;
  return c->failed =
             fail(c->err, c->errlen, "%s: not written: %s: field %s: %g is not a finite number", c->path, name, key, x);
}

static void append(ctx *c, json_t *array, json_t *v, const char *name, const char *key) {
  if (c->failed) {
    json_decref(v);
  } else if (!v || json_array_append_new(array, v) != 0) {
    c->failed = fail(c->err, c->errlen, "%s: not written: %s: field %s: could not build its JSON", c->path, name, key);
  }
}

static json_t *measure_json(ctx *c, const char *name, size_t r, const gate_measure *m) {
  char key[64];
  snprintf(key, sizeof key, "runs[%zu].median_ns", r);
  if (finite_field(c, name, key, m->median_ns)) return NULL;
  snprintf(key, sizeof key, "runs[%zu].contexts_ns", r);
  json_t *cs = json_array();
  for (size_t i = 0; i < m->ncontexts; i++)
    if (!finite_field(c, name, key, m->contexts_ns[i])) append(c, cs, json_real(m->contexts_ns[i]), name, key);
  if (c->failed) {
    json_decref(cs);
    return NULL;
  }
  return json_pack("{s:I, s:f, s:o, s:I}", "run", (json_int_t)m->run, "median_ns", m->median_ns, "contexts_ns", cs,
                   "samples_taken", (json_int_t)(m->samples_taken > m->nsamples ? m->samples_taken : m->nsamples));
}

static json_t *runs_json(ctx *c, const gate_figures *f) {
  json_t *runs = json_array();
  for (size_t i = 0; i < f->nruns && !c->failed; i++) {
    const gate_run_info *r = &f->runs[i];
    char where[32];
    snprintf(where, sizeof where, "runs[%zu]", i);
    if (finite_field(c, where, "copy_bytes_per_second", r->copy_bytes_per_second) ||
        finite_field(c, where, "warmup_s", r->warmup_s))
      break;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:i, s:f, s:i}", "date", r->date, "commit", r->commit, "host",
                          r->host, "gpu_uuid", r->gpu_uuid, "copy_bytes_per_second", r->copy_bytes_per_second,
                          "l2_flush", r->l2_flush, "contexts", r->contexts, "contexts_below_s", r->contexts_below_s,
                          "long_contexts", r->long_contexts);
    /* warmup_s only when there was one: absent reads as 0, so baselines of runs without a warm-up
     * (all of them before --warmup) load and save byte for byte as they were. */
    if (o &&
        ((r->warmup_s != 0 && json_object_set_new(o, "warmup_s", json_real(r->warmup_s)) != 0) ||
         (r->testbed[0] && json_object_set_new(o, "testbed", json_string(r->testbed)) != 0) ||
         json_object_set_new(o, "launch_first_ns", json_real(r->launch_first_ns)) != 0 ||
         json_object_set_new(o, "launch_contexts_ns", json_real(r->launch_contexts_ns)) != 0)) {
      json_decref(o);
      o = NULL;
    }
    append(c, runs, o, where, "(its fields)");
  }
  return runs;
}

static json_t *benchmarks_json(ctx *c, const gate_figures *f) {
  json_t *bs = json_array();
  for (size_t i = 0; i < f->n && !c->failed; i++) {
    const gate_bench *b = &f->b[i];
    if (finite_field(c, b->name, "bytes_per_second", b->bytes_per_second)) break;
    json_t *m = json_array();
    for (size_t r = 0; r < b->nruns && !c->failed; r++)
      append(c, m, measure_json(c, b->name, r, &b->runs[r]), b->name, "runs");
    if (c->failed) {
      json_decref(m);
      break;
    }
    /* o*: the flag is left out where it is not set, as in baselines made before it. */
    append(c, bs,
           json_pack("{s:s, s:f, s:o*, s:o}", "name", b->name, "bytes_per_second", b->bytes_per_second,
                     "host_round_trip", b->host_round_trip ? json_true() : NULL, "runs", m),
           b->name, "(its fields)");
  }
  return bs;
}

int write_target(const char *path, char *out, size_t len, char *err, size_t errlen) {
  struct stat st;
  const char *target = path;
  char resolved[PATH_MAX];
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    if (!realpath(path, resolved))
      return fail(err, errlen,
                  "%s: a symbolic link to a file that cannot be reached (%s): create that file, or "
                  "remove the link",
                  path, strerror(errno));
    target = resolved;
  }
  if (strlen(target) >= len) return fail(err, errlen, "%s: the path is too long", target);
  memcpy(out, target, strlen(target) + 1);
  return 0;
}

/* Writes text to path through a temporary file beside it (written, fsynced, renamed over
 * path): a reader sees the old file or the new one, never a part. A failure reports the
 * errno of the step that failed, not that of the cleanup after it. A link is written through
 * (write_target). */
static int write_atomically(const char *link, const char *text, char *err, size_t errlen) {
  char path[4000];
  if (write_target(link, path, sizeof path, err, errlen)) return 1;
  char tmp[4096];
  int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if (len < 0 || (size_t)len >= sizeof tmp)
    return fail(err, errlen, "%s: the path is too long (at most %zu characters with its temporary suffix)", path,
                sizeof tmp - 24);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(err, errlen, "%s: cannot create %s: %s", path, tmp, strerror(errno));
  size_t n = strlen(text), done = 0;
  int e = 0;
  while (done < n && !e) {
    ssize_t w = write(fd, text + done, n - done);
    if (w > 0)
      done += (size_t)w;
    else if (w == 0)
      e = EIO;
    else if (errno != EINTR)
      e = errno;
  }
  if (!e && fsync(fd) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  if (e) {
    unlink(tmp);
    return fail(err, errlen, "%s: cannot write %s: %s", path, tmp, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    e = errno;
    unlink(tmp);
    return fail(err, errlen, "%s: cannot replace it with %s: %s", path, tmp, strerror(e));
  }
  return 0;
}

/* The baseline's text: its GPU, then one line per run and one per measure of a benchmark. A bless's
 * diff then shows which runs came and went, and the file is about half the size of one value per line
 * (the source tree travels to GPU hosts, and every bless commits the file anew). Plain JSON all the same. */
static int put_json(FILE *o, json_t *v) {
  return json_dumpf(v, o, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(9)) != 0;
}

static int put_key(FILE *o, const char *key) {
  json_t *k = json_string(key);
  int rc = !k || put_json(o, k) || fputc(':', o) == EOF;
  json_decref(k);
  return rc;
}

/* Array a, one element per line indented by `indent` spaces, each written by put. */
static int put_lines(FILE *o, json_t *a, int indent, int (*put)(FILE *, json_t *, int)) {
  if (fputs("[\n", o) == EOF) return 1;
  size_t i;
  json_t *e;
  json_array_foreach(a, i, e) {
    if (fprintf(o, "%*s", indent, "") < 0 || put(o, e, indent) ||
        fputs(i + 1 < json_array_size(a) ? ",\n" : "\n", o) == EOF)
      return 1;
  }
  return fprintf(o, "%*s]", indent - 1, "") < 0;
}

static int put_line(FILE *o, json_t *v, int indent) {
  (void)indent;
  return put_json(o, v);
}

/* A benchmark: its fields on one line, its measures ("runs") one per line. */
static int put_bench(FILE *o, json_t *b, int indent) {
  const char *key;
  json_t *v;
  int first = 1;
  if (fputc('{', o) == EOF) return 1;
  json_object_foreach(b, key, v) {
    if ((!first && fputc(',', o) == EOF) || put_key(o, key)) return 1;
    first = 0;
    if (strcmp(key, "runs") == 0 && json_is_array(v) ? put_lines(o, v, indent + 1, put_line) : put_json(o, v)) return 1;
  }
  return fputc('}', o) == EOF;
}

static char *baseline_text(json_t *root) {
  char *text = NULL;
  size_t len = 0;
  FILE *o = open_memstream(&text, &len);
  if (!o) return NULL;
  const char *key;
  json_t *v;
  size_t left = json_object_size(root);
  int bad = fputs("{\n", o) == EOF;
  json_object_foreach(root, key, v) {
    if (bad) break;
    bad = fputc(' ', o) == EOF || put_key(o, key) ||
        (strcmp(key, "runs") == 0             ? put_lines(o, v, 2, put_line)
             : strcmp(key, "benchmarks") == 0 ? put_lines(o, v, 2, put_bench)
                                              : put_json(o, v)) ||
        fputs(--left ? ",\n" : "\n", o) == EOF;
  }
  bad = bad || fputs("}\n", o) == EOF;
  if (fclose(o) != 0 || bad) {
    free(text);
    return NULL;
  }
  return text;
}

int save_baseline(const char *path, const gate_figures *f, char *err, size_t errlen) {
  ctx c = {path, err, errlen, 0, 1, NULL};
  const gate_gpu *g = &f->gpu;
  finite_field(&c, "gpu", "mem_clock_mhz", g->mem_clock_mhz);
  json_t *runs = runs_json(&c, f), *bs = benchmarks_json(&c, f);
  if (c.failed) {
    json_decref(runs);
    json_decref(bs);
    return 1;
  }
  json_t *root = json_pack("{s:i, s:{s:s, s:i, s:f, s:i, s:b, s:s, s:s}, s:o, s:o}", "schema_version",
                           BASELINE_SCHEMA_VERSION, "gpu", "name", g->name, "sm_count", g->sm_count, "mem_clock_mhz",
                           g->mem_clock_mhz, "bus_width_bits", g->bus_width_bits, "ecc", g->ecc, "driver", g->driver,
                           "runtime", g->runtime, "runs", runs, "benchmarks", bs);
  if (!root) return fail(err, errlen, "%s: could not build the JSON document", path);
  char *text = baseline_text(root);
  json_decref(root);
  if (!text) return fail(err, errlen, "%s: could not build the JSON document (out of memory?)", path);
  int rc = write_atomically(path, text, err, errlen);
  free(text);
  return rc;
}

/* 1 when a and b measured a benchmark of the same name (runs of one family). */
static int share_a_benchmark(const gate_figures *a, const gate_figures *b) {
  for (size_t i = 0; i < b->n; i++)
    if (find_bench(a, b->b[i].name)) return 1;
  return 0;
}

int merge_runs(gate_figures *runs, size_t n, gate_figures *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (n == 0) return fail(err, errlen, "no runs to merge");
  out->gpu = runs[0].gpu;
  out->runs = calloc(n + 1, sizeof *out->runs);
  out->nruns = n;
  for (size_t r = 0; r < n; r++) {
    if (same_hardware(&runs[0].gpu, &runs[r].gpu, err, errlen)) {
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      free_figures(out);
      return fail(err, errlen, "run %zu is not from the same hardware as run 1: %s", r + 1, why);
    }
    if (strcmp(runs[r].runs[0].l2_flush, runs[0].runs[0].l2_flush) != 0) {
      free_figures(out);
      return fail(err, errlen,
                  "run %zu was measured with the '%s' L2 flush and run 1 with '%s': a baseline is made "
                  "from runs taken the same way",
                  r + 1, runs[r].runs[0].l2_flush, runs[0].runs[0].l2_flush);
    }
    const gate_run_info *a = &runs[0].runs[0], *b = &runs[r].runs[0];
    if (a->contexts != b->contexts || a->contexts_below_s != b->contexts_below_s) {
      char b1[128], b2[128];
      free_figures(out);
      return fail(err, errlen, "run %zu was measured %s and run 1 %s: a baseline is made from runs taken the same way",
                  r + 1, contexts_method(b, b1, sizeof b1), contexts_method(a, b2, sizeof b2));
    }
    if (a->long_contexts != b->long_contexts) {
      free_figures(out);
      return fail(err, errlen,
                  "run %zu measured long benchmarks in %d contexts and run 1 in %d (--long_contexts): a "
                  "baseline is made from runs taken the same way",
                  r + 1, b->long_contexts, a->long_contexts);
    }
    /* A warm-up is a family's (kernel_family's perf_args): runs of different families may differ in it. */
    for (size_t q = 0; q < r; q++)
      if (warmups_differ(runs[q].runs[0].warmup_s, b->warmup_s) && share_a_benchmark(&runs[q], &runs[r])) {
        free_figures(out);
        return fail(err, errlen,
                    "run %zu was measured with %g s of warm-up per benchmark and context and run %zu with "
                    "%g s (gate check --warmup): a baseline is made from runs taken the same way",
                    r + 1, b->warmup_s, q + 1, runs[q].runs[0].warmup_s);
      }
    out->runs[r] = runs[r].runs[0];
  }
  /* Every benchmark of any run, with one measure per run that measured it
   * (runs of different families are merged side by side). */
  size_t total = 0;
  for (size_t r = 0; r < n; r++) total += runs[r].n;
  out->b = calloc(total + 1, sizeof *out->b);
  for (size_t r = 0; r < n; r++) {
    for (size_t i = 0; i < runs[r].n; i++) {
      const gate_bench *rb = &runs[r].b[i];
      gate_bench *b = (gate_bench *)find_bench(out, rb->name);
      if (!b) {
        b = &out->b[out->n++];
        b->name = strdup(rb->name);
        b->runs = calloc(n + 1, sizeof *b->runs);
      }
      b->host_round_trip |= rb->host_round_trip;
      b->library_reference |= rb->library_reference;
      gate_measure *m = &b->runs[b->nruns++];
      m->run = r;
      m->median_ns = rb->runs[0].median_ns;
      m->nsamples = rb->runs[0].nsamples;
      m->samples_taken = rb->runs[0].samples_taken;
      m->samples_ns = copy_doubles(rb->runs[0].samples_ns, m->nsamples);
      m->ncontexts = rb->runs[0].ncontexts;
      m->contexts_ns = copy_doubles(rb->runs[0].contexts_ns, m->ncontexts);
      /* Bytes/s of the median of the run medians is settled below; keep bytes per run here. */
      b->bytes_per_second += rb->bytes_per_second * rb->runs[0].median_ns;
    }
  }
  for (size_t i = 0; i < out->n; i++) {
    gate_bench *b = &out->b[i];
    double bytes = b->bytes_per_second / (double)b->nruns;
    double *meds = malloc(b->nruns * sizeof *meds);
    for (size_t r = 0; r < b->nruns; r++) meds[r] = b->runs[r].median_ns;
    qsort(meds, b->nruns, sizeof *meds, cmp_double);
    double med = b->nruns % 2 ? meds[b->nruns / 2] : 0.5 * (meds[b->nruns / 2 - 1] + meds[b->nruns / 2]);
    b->bytes_per_second = bytes / med;
    free(meds);
    if (!(b->bytes_per_second > 0) || !isfinite(b->bytes_per_second)) {
      fail(err, errlen, "%s: field bytes_per_second: %g over the runs: expected a positive finite number", b->name,
           b->bytes_per_second);
      free_figures(out);
      return 1;
    }
  }
  return 0;
}

static double unit_ns(const char *unit) {
  if (!strcmp(unit, "ns")) return 1;
  if (!strcmp(unit, "us")) return 1e3;
  if (!strcmp(unit, "ms")) return 1e6;
  if (!strcmp(unit, "s")) return 1e9;
  return 0;
}

static void read_run_info(ctx *c, json_t *cx, gate_run_info *info) {
  copy_str(c, cx, "context", "date", info->date, sizeof info->date);
  copy_str(c, cx, "context", "host_name", info->host, sizeof info->host);
  /* from --benchmark_context=commit=... */
  optional_str(c, cx, "context", "commit", "unknown", info->commit, sizeof info->commit);
  /* 0 when the runner's copy probe failed: only --metric=copy_ratio needs it. */
  json_t *copy = field(c, cx, "context", "copy_bandwidth_GBps", JSON_REAL);
  double gbps = copy ? json_number_value(copy) : 0;
  if (copy && !(gbps >= 0 && isfinite(gbps)))
    c->failed =
        fail(c->err, c->errlen, "%s: field context.copy_bandwidth_GBps: expected a number >= 0, got %g", c->path, gbps);
  info->copy_bytes_per_second = gbps * 1e9;
  if (json_is_false(json_object_get(cx, "l2_flush")))
    snprintf(info->l2_flush, sizeof info->l2_flush, "hot");
  else
    read_flush_method(c, cx, "context", "l2_flush_method", info->l2_flush, sizeof info->l2_flush);
  json_t *gpu_cx = json_object_get(cx, "gpu");
  if (json_is_object(gpu_cx)) optional_str(c, gpu_cx, "context.gpu", "uuid", "", info->gpu_uuid, sizeof info->gpu_uuid);
  optional_str(c, cx, "context", "testbed", "", info->testbed, sizeof info->testbed);
  json_t *timing = json_object_get(cx, "timing");
  read_contexts_method(c, json_is_object(timing) ? timing : cx, "context.timing", info, 0);
  info->warmup_s = optional_warmup(c, timing, "context.timing", "min_warmup_time_s", "re-run the benchmark");
  read_launch_probe(c, cx, info);
}

/* Entries of one name are pooled only as repetitions of it: each with its own repetition_index. Two
 * entries of one repetition (a file concatenated or edited) would be counted twice (#56 W04). 0, or 1 after
 * saying why. */
static int distinct_repetition(ctx *c, json_t *e, const char *where, const char *name) {
  json_t *index = json_object_get(e, "repetition_index"), *seen = json_object_get(c->repetitions, name);
  if (seen) {
    size_t i;
    json_t *v;
    json_array_foreach(seen, i, v) {
      if (json_equal(v, index ? index : json_null())) {
        c->failed = fail(c->err, c->errlen,
                         "%s: field %s: a second entry of '%s' for the same repetition (%s): "
                         "one run file holds each repetition once; re-run the benchmark rather than join files",
                         c->path, where, name, index ? "its repetition_index repeats" : "no repetition_index");
        return 1;
      }
    }
  } else {
    seen = json_array();
    json_object_set_new(c->repetitions, name, seen);
  }
  json_array_append_new(seen, index ? json_deep_copy(index) : json_null());
  return 0;
}

/* One "iteration" entry: its samples join those of earlier repetitions of the same benchmark. */
static void read_iteration(ctx *c, json_t *e, const char *where, const char *name, gate_figures *out) {
  char unit[16] = "";
  copy_str(c, e, where, "time_unit", unit, sizeof unit);
  double scale = unit_ns(unit);
  if (!c->failed && scale == 0) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.time_unit: '%s' is not ns, us, ms or s", c->path, where, unit);
    return;
  }
  double real = positive(c, e, where, "real_time") * scale;
  double bps = positive(c, e, where, "bytes_per_second");
  json_t *s = field(c, e, where, "samples", JSON_ARRAY);
  if (c->failed || physical_ns(c, real, where, "real_time", -1) || distinct_repetition(c, e, where, name)) return;
  if (json_array_size(s) == 0) {
    c->failed =
        fail(c->err, c->errlen, "%s: field %s.samples: empty (every repetition keeps its samples)", c->path, where);
    return;
  }
  if (!isfinite(bps * real)) { /* bytes moved per call */
    c->failed = fail(c->err, c->errlen,
                     "%s: %s (%s): field bytes_per_second: %g B/s x real_time %g ns is not a "
                     "finite number of bytes: a broken byte count? Re-run the benchmark",
                     c->path, where, name, bps, real);
    return;
  }
  gate_bench *b = (gate_bench *)find_bench(out, name);
  if (!b) {
    b = &out->b[out->n++];
    b->name = strdup(name);
    b->runs = calloc(1, sizeof *b->runs);
    b->nruns = 1;
    b->bytes_per_second = bps * real; /* bytes per run, until the median is known */
  }
  b->host_round_trip |= optional_flag(c, e, where, "host_round_trip");
  json_t *label = json_object_get(e, "label");
  b->library_reference |= json_is_string(label) && strcmp(json_string_value(label), "reference") == 0;
  gate_measure *m = &b->runs[0];
  /* --contexts: the repetition's medians of each context (else, below, its one context). */
  json_t *cm = json_object_get(e, "context_medians");
  if (cm && (!json_is_array(cm) || json_array_size(cm) < 2)) {
    c->failed =
        fail(c->err, c->errlen, "%s: field %s.context_medians: expected an array of 2 or more medians", c->path, where);
    return;
  }
  /* With no context_medians (json_array_size(NULL) is 0) this still makes the spare slot that
   * run_medians fills with the one context's median. */
  if (append_ns(c, cm, scale, where, "context_medians", &m->contexts_ns, &m->ncontexts)) return;
  append_ns(c, s, scale, where, "samples", &m->samples_ns, &m->nsamples);
}

/* Each benchmark's time, and its bytes per second at that time. Measured in several contexts:
 * the mean of their medians. In one: the median of its pooled samples, its one context. */
static void run_medians(ctx *c, gate_figures *out) {
  for (size_t i = 0; i < out->n && !c->failed; i++) {
    gate_measure *m = &out->b[i].runs[0];
    if (m->ncontexts > 0) {
      m->median_ns = mean_of(m->contexts_ns, m->ncontexts);
    } else {
      double *sorted = copy_doubles(m->samples_ns, m->nsamples);
      qsort(sorted, m->nsamples, sizeof *sorted, cmp_double);
      size_t h = m->nsamples / 2;
      m->median_ns = m->nsamples % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
      free(sorted);
      m->contexts_ns[m->ncontexts++] = m->median_ns;
    }
    out->b[i].bytes_per_second /= m->median_ns; /* bytes per run / median time */
    if (!(out->b[i].bytes_per_second > 0) || !isfinite(out->b[i].bytes_per_second))
      c->failed = fail(c->err, c->errlen,
                       "%s: %s: field bytes_per_second: %g at the median of %g ns: expected a "
                       "positive finite number",
                       c->path, out->b[i].name, out->b[i].bytes_per_second, m->median_ns);
  }
}

/* A runner file: Google Benchmark JSON whose "iteration" entries carry their
 * kept samples ("samples", in time_unit) and, for benchmarks measured in several
 * CUDA contexts, each context's median ("context_medians"). Repetitions of one
 * benchmark are pooled into one measure: the gate's unit of evidence is the
 * context, and repetitions in one context share its offset. */
/* The report's extras of a loaded run: per benchmark (by name) the label and FLOPs of its first
 * iteration entry, and what the context says of the GPU and the program. */
static void read_extras(ctx *c, json_t *root, const gate_figures *f, run_extras *x) {
  json_t *cx = json_object_get(root, "context"), *g = json_object_get(cx, "gpu");
  json_t *peak = json_object_get(g, "peak_GBps");
  x->peak_gbps = json_is_number(peak) && json_number_value(peak) > 0 ? json_number_value(peak) : 0;
  json_t *cc = json_object_get(g, "compute_capability"), *exe = json_object_get(cx, "executable");
  /* MAJOR.MINOR or absent: anything else is not the runner's, and is refused rather than cut or shown. */
  const char *ccs = json_is_string(cc) ? json_string_value(cc) : NULL;
  int major = 0, minor = 0, used = 0;
  if (cc &&
      !(ccs && sscanf(ccs, "%3d.%3d%n", &major, &minor, &used) == 2 && ccs[used] == '\0' &&
        strspn(ccs, "0123456789.") == strlen(ccs))) {
    c->failed = fail(c->err, c->errlen,
                     "%s: field context.gpu.compute_capability: expected MAJOR.MINOR, such as "
                     "9.0; re-run the benchmark",
                     c->path);
    return;
  }
  snprintf(x->compute_capability, sizeof x->compute_capability, "%s", ccs ? ccs : "?");
  const char *e = json_is_string(exe) ? json_string_value(exe) : "?";
  snprintf(x->executable, sizeof x->executable, "%s", strrchr(e, '/') ? strrchr(e, '/') + 1 : e);
  x->reference = calloc(f->n + 1, sizeof *x->reference);
  x->flops_per_call = calloc(f->n + 1, sizeof *x->flops_per_call);
  char *seen = calloc(f->n + 1, 1);
  json_t *bs = json_object_get(root, "benchmarks");
  for (size_t i = 0; i < json_array_size(bs); i++) {
    json_t *b = json_array_get(bs, i), *type = json_object_get(b, "run_type"), *name = json_object_get(b, "name");
    if (!json_is_string(type) || strcmp(json_string_value(type), "iteration") || !json_is_string(name)) continue;
    for (size_t k = 0; k < f->n; k++) {
      if (seen[k] || strcmp(f->b[k].name, json_string_value(name)) != 0) continue;
      seen[k] = 1;
      json_t *label = json_object_get(b, "label"), *fl = json_object_get(b, "flops_per_second"),
             *unit = json_object_get(b, "time_unit");
      x->reference[k] = json_is_string(label) && !strcmp(json_string_value(label), "reference");
      double t = json_number_value(json_object_get(b, "real_time")) *
          unit_ns(json_is_string(unit) ? json_string_value(unit) : "");
      if (json_is_number(fl) && json_number_value(fl) > 0) x->flops_per_call[k] = json_number_value(fl) * t * 1e-9;
    }
  }
  free(seen);
}

/* Records a failed entry in x, or (x NULL) fails the load naming it. */
static void failed_entry(ctx *c, json_t *e, const char *where, const char *name, run_extras *x) {
  json_t *msg = json_object_get(e, "error_message");
  const char *why = json_is_string(msg) ? json_string_value(msg) : "no message";
  if (!x) {
    c->failed = fail(c->err, c->errlen, "%s: %s (%s) failed in the run: %s", c->path, where, name, why);
    return;
  }
  x->failed = realloc(x->failed, (x->nfailed + 1) * sizeof *x->failed);
  run_failure *f = &x->failed[x->nfailed++];
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->message, sizeof f->message, "%s", why);
}

/* A runner file: Google Benchmark JSON whose "iteration" entries carry their
 * kept samples ("samples", in time_unit) and, for benchmarks measured in several
 * CUDA contexts, each context's median ("context_medians"). Repetitions of one
 * benchmark are pooled into one measure: the gate's unit of evidence is the
 * context, and repetitions in one context share its offset. */
static int read_run(const char *path, gate_figures *out, run_extras *x, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  json_t *root = load_json_object(path, err, errlen);
  if (!root) return 1;
  ctx c = {path, err, errlen, 0, 0, json_object()};
  if (!json_object_get(root, "context") && json_object_get(root, "schema_version") && json_object_get(root, "runs"))
    c.failed = fail(err, errlen,
                    "%s: a baseline, not a run file: give the run JSON of a benchmark binary "
                    "(BENCH --benchmark_out=RUN.json, or a perf test's outputs), and the baseline as --baseline",
                    path);
  json_t *cx = field(&c, root, "", "context", JSON_OBJECT);
  json_t *ver = field(&c, cx, "context", "json_schema_version", JSON_INTEGER);
  if (ver && json_integer_value(ver) != 1)
    c.failed = fail(err, errlen, "%s: field context.json_schema_version: %lld is not supported (want 1)", path,
                    (long long)json_integer_value(ver));
  json_t *g = field(&c, cx, "context", "gpu", JSON_OBJECT);
  if (g && !c.failed) read_gpu(&c, g, &kRunGpu, &out->gpu);
  out->nruns = 1;
  out->runs = calloc(2, sizeof *out->runs);
  read_run_info(&c, cx, &out->runs[0]);

  json_t *bs = field(&c, root, "", "benchmarks", JSON_ARRAY);
  size_t nb = bs ? json_array_size(bs) : 0;
  out->b = calloc(nb + 1, sizeof *out->b);
  for (size_t i = 0; i < nb && !c.failed; i++) {
    json_t *e = json_array_get(bs, i);
    char where[64];
    snprintf(where, sizeof where, "benchmarks[%zu]", i);
    json_t *name = field(&c, e, where, "name", JSON_STRING);
    json_t *type = field(&c, e, where, "run_type", JSON_STRING);
    if (!name || !type) break;
    if (json_is_true(json_object_get(e, "error_occurred"))) {
      failed_entry(&c, e, where, json_string_value(name), x);
      continue;
    }
    if (strcmp(json_string_value(type), "iteration") != 0) continue; /* aggregates are recomputed */
    read_iteration(&c, e, where, json_string_value(name), out);
  }
  if (!c.failed && out->n == 0 && x && x->nfailed)
    c.failed = fail(err, errlen, "%s: every benchmark failed in the run (%s: %s)", path, x->failed[0].name,
                    x->failed[0].message);
  if (!c.failed && out->n == 0)
    c.failed = fail(err, errlen,
                    "%s: field benchmarks: no iteration entries: the run measured nothing (a filter "
                    "that matched no benchmark?)",
                    path);
  run_medians(&c, out);
  if (!c.failed && x) read_extras(&c, root, out, x);
  json_decref(c.repetitions);
  json_decref(root);
  if (c.failed) free_figures(out);
  return c.failed;
}

int load_run(const char *path, gate_figures *out, char *err, size_t errlen) {
  return read_run(path, out, NULL, err, errlen);
}

int load_run_with_extras(const char *path, gate_figures *out, run_extras *x, char *err, size_t errlen) {
  memset(x, 0, sizeof *x);
  int rc = read_run(path, out, x, err, errlen);
  if (rc) free_run_extras(x);
  return rc;
}

void free_run_extras(run_extras *x) {
  free(x->failed);
  free(x->reference);
  free(x->flops_per_call);
  memset(x, 0, sizeof *x);
}

static int same_family(const char *a, const char *b) {
  size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
  return la == lb && strncmp(a, b, la) == 0;
}

static int has_family(const gate_figures *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (same_family(f->b[i].name, name)) return 1;
  return 0;
}

/* Whether run measured the benchmark `name`: by name, or (else) its family. */
static int measured(const gate_figures *run, const char *name, int by_name) {
  return by_name ? find_bench(run, name) != NULL : has_family(run, name);
}

/* base's benchmarks that run measured (by family, or by name). */
static void view_of(const gate_figures *base, const gate_figures *run, int by_name, gate_figures *view) {
  *view = *base;
  view->b = calloc(base->n + 1, sizeof *view->b);
  view->n = 0;
  for (size_t i = 0; i < base->n; i++)
    if (measured(run, base->b[i].name, by_name)) view->b[view->n++] = base->b[i];
}

void families_of(const gate_figures *base, const gate_figures *run, gate_figures *view) { view_of(base, run, 0, view); }

void benchmarks_of(const gate_figures *base, const gate_figures *run, gate_figures *view) {
  view_of(base, run, 1, view);
}

/* Appends src's runs (those with keep[r], or all when keep is NULL) to out->runs, which has room;
 * map[r] gets each one's new index. */
static void append_runs(gate_figures *out, const gate_figures *src, const char *keep, size_t *map) {
  for (size_t r = 0; r < src->nruns; r++)
    if (!keep || keep[r]) {
      map[r] = out->nruns;
      out->runs[out->nruns++] = src->runs[r];
    }
}

/* dst: src's measures, then more's when `more` is not NULL (runs re-indexed through the maps); with
 * more, src's measures of run q with fewer contexts than drop_under[q] are left out (drop_under may
 * be NULL) and counted in *dropped. */
static void copy_bench_with(gate_bench *dst, const gate_bench *src, const size_t *run_map, const gate_bench *more,
                            const size_t *more_map, const size_t *drop_under, size_t *dropped) {
  size_t extra = more ? more->nruns : 0;
  dst->name = strdup(src->name);
  dst->bytes_per_second = more ? more->bytes_per_second : src->bytes_per_second; /* the newest figure */
  dst->host_round_trip = more ? more->host_round_trip : src->host_round_trip;    /* as the newest code is */
  dst->library_reference = more ? more->library_reference : src->library_reference;
  dst->nruns = 0;
  dst->runs = calloc(src->nruns + extra + 1, sizeof *dst->runs);
  for (size_t r = 0; r < src->nruns + extra; r++) {
    const gate_measure *from = r < src->nruns ? &src->runs[r] : &more->runs[r - src->nruns];
    if (more && drop_under && r < src->nruns && from->ncontexts < drop_under[from->run]) {
      (*dropped)++;
      continue;
    }
    gate_measure *m = &dst->runs[dst->nruns++];
    *m = *from;
    m->run = r < src->nruns ? run_map[from->run] : more_map[from->run];
    m->samples_ns = copy_doubles(from->samples_ns, m->nsamples);
    m->contexts_ns = copy_doubles(from->contexts_ns, m->ncontexts);
  }
}

static void copy_bench(gate_bench *dst, const gate_bench *src, const size_t *run_map) {
  copy_bench_with(dst, src, run_map, NULL, NULL, NULL, NULL);
}

int same_run(const gate_run_info *x, const gate_run_info *y) {
  return !strcmp(x->date, y->date) && !strcmp(x->host, y->host) && !strcmp(x->gpu_uuid, y->gpu_uuid);
}

/* The old run that x is (same_run): its index, or old->nruns when none. */
static size_t same_run_in(const gate_figures *old, const gate_run_info *x) {
  for (size_t q = 0; q < old->nruns; q++)
    if (same_run(x, &old->runs[q])) return q;
  return old->nruns;
}

/* A benchmark that fresh measured in its run r and old holds a measure of its run q of (the same
 * run, counted twice), or NULL. A run re-blessed in part (--only) may so gain its other benchmarks. */
static const char *measured_in_both(const gate_figures *old, size_t q, const gate_figures *fresh, size_t r) {
  for (size_t i = 0; i < fresh->n; i++) {
    const gate_bench *b = &fresh->b[i], *o = find_bench(old, b->name);
    for (size_t m = 0; o && m < b->nruns; m++)
      if (b->runs[m].run == r)
        for (size_t k = 0; k < o->nruns; k++)
          if (o->runs[k].run == q) return b->name;
  }
  return NULL;
}

int add_runs(const gate_figures *old, const gate_figures *fresh, gate_figures *out, size_t *superseded, char *err,
             size_t errlen) {
  memset(out, 0, sizeof *out);
  *superseded = 0;
  if (same_hardware(&old->gpu, &fresh->gpu, err, errlen)) return 1;
  size_t *in_old = calloc(fresh->nruns + 1, sizeof *in_old); /* the old run each fresh one is, or old->nruns */
  char *is_new = calloc(fresh->nruns + 1, 1);
  gate_bench *of_run = calloc(fresh->n + 1, sizeof *of_run);
  for (size_t r = 0; r < fresh->nruns; r++) {
    /* Run r against the old runs of its own families only: a warm-up is a family's, so another
     * family's old runs may have been taken with another. */
    gate_figures one = {.gpu = fresh->gpu, .runs = &fresh->runs[r], .nruns = 1, .b = of_run};
    for (size_t i = 0; i < fresh->n; i++)
      for (size_t m = 0; m < fresh->b[i].nruns; m++)
        if (fresh->b[i].runs[m].run == r) {
          of_run[one.n++] = fresh->b[i];
          break;
        }
    gate_figures view;
    families_of(old, &one, &view);
    int differs = same_method(&view, &one, err, errlen);
    free(view.b);
    in_old[r] = same_run_in(old, &fresh->runs[r]);
    is_new[r] = in_old[r] == old->nruns;
    const char *twice = is_new[r] || differs ? NULL : measured_in_both(old, in_old[r], fresh, r);
    if (twice) {
      const gate_run_info *x = &fresh->runs[r];
      differs = fail(err, errlen,
                     "the run of %s on %s (GPU '%s') is in the baseline already (runs[%zu]) with %s: "
                     "each run counts once",
                     x->date, x->host, x->gpu_uuid, in_old[r], twice);
    }
    if (differs) {
      free(of_run);
      free(in_old);
      free(is_new);
      return 1;
    }
  }
  free(of_run);
  out->gpu = old->gpu;
  size_t *old_map = calloc(old->nruns + 1, sizeof *old_map), *fresh_map = calloc(fresh->nruns + 1, sizeof *fresh_map);
  out->runs = calloc(old->nruns + fresh->nruns + 1, sizeof *out->runs);
  append_runs(out, old, NULL, old_map);
  append_runs(out, fresh, is_new, fresh_map);
  for (size_t r = 0; r < fresh->nruns; r++) /* a run there already: its new measures join that entry */
    if (!is_new[r]) fresh_map[r] = old_map[in_old[r]];
  free(in_old);
  free(is_new);
  out->b = calloc(old->n + fresh->n + 1, sizeof *out->b);
  /* A long benchmark of an old run measured in fewer contexts than the fresh runs measure long ones
   * in (--long_contexts) is left out where the fresh runs measured it: its spread is a single
   * context's, and kept it would keep the benchmark's noise, and so its threshold, as wide as before. */
  size_t *drop_under = calloc(old->nruns + 1, sizeof *drop_under);
  for (size_t q = 0; q < old->nruns; q++)
    if (fresh->nruns && old->runs[q].long_contexts < fresh->runs[0].long_contexts)
      drop_under[q] = (size_t)old->runs[q].contexts; /* its long ones: fewer contexts than its short ones */
  for (size_t i = 0; i < old->n; i++)
    copy_bench_with(&out->b[out->n++], &old->b[i], old_map, find_bench(fresh, old->b[i].name), fresh_map, drop_under,
                    superseded);
  free(drop_under);
  for (size_t i = 0; i < fresh->n; i++)
    if (!find_bench(old, fresh->b[i].name)) copy_bench(&out->b[out->n++], &fresh->b[i], fresh_map);
  free(old_map);
  free(fresh_map);
  return 0;
}

/* 1 when one of f's runs was made on testbed tb. */
static int has_testbed(const gate_figures *f, const char *tb) {
  for (size_t r = 0; r < f->nruns; r++)
    if (strcmp(f->runs[r].testbed, tb) == 0) return 1;
  return 0;
}

int replace_families(const gate_figures *old, const gate_figures *fresh, int by_name, gate_figures *out, char *err,
                     size_t errlen) {
  memset(out, 0, sizeof *out);
  if (same_hardware(&old->gpu, &fresh->gpu, err, errlen)) return 1;
  out->gpu = fresh->gpu;
  /* A re-blessed benchmark keeps its runs of the testbeds the fresh runs were not made on (REBLESS_TESTBEDS,
   * figures.h); the runs still referenced, then all fresh runs. */
  size_t *old_map = calloc(old->nruns + 1, sizeof *old_map), *fresh_map = calloc(fresh->nruns + 1, sizeof *fresh_map);
  char *used = calloc(old->nruns + 1, 1), *kept = calloc(old->n + 1, 1), *elsewhere = calloc(old->nruns + 1, 1);
  for (size_t r = 0; r < old->nruns; r++) elsewhere[r] = !has_testbed(fresh, old->runs[r].testbed);
  for (size_t i = 0; i < old->n; i++) {
    kept[i] = !measured(fresh, old->b[i].name, by_name);
    int stays = kept[i] || find_bench(fresh, old->b[i].name) != NULL;
    for (size_t r = 0; r < old->b[i].nruns && stays; r++)
      used[old->b[i].runs[r].run] |= kept[i] || elsewhere[old->b[i].runs[r].run];
  }
  out->runs = calloc(old->nruns + fresh->nruns + 1, sizeof *out->runs);
  append_runs(out, old, used, old_map);
  append_runs(out, fresh, NULL, fresh_map);
  out->b = calloc(old->n + fresh->n + 1, sizeof *out->b);
  for (size_t i = 0; i < old->n; i++)
    if (kept[i]) copy_bench(&out->b[out->n++], &old->b[i], old_map);
  for (size_t i = 0; i < fresh->n; i++) {
    const gate_bench *prior = find_bench(old, fresh->b[i].name);
    gate_bench others = {0};
    if (prior) { /* its runs of other testbeds, then the fresh ones */
      others = *prior;
      others.runs = calloc(prior->nruns + 1, sizeof *others.runs);
      others.nruns = 0;
      for (size_t r = 0; r < prior->nruns; r++)
        if (elsewhere[prior->runs[r].run]) others.runs[others.nruns++] = prior->runs[r];
    }
    copy_bench_with(&out->b[out->n++], prior ? &others : &fresh->b[i], prior ? old_map : fresh_map,
                    prior ? &fresh->b[i] : NULL, fresh_map, NULL, NULL);
    free(others.runs);
  }
  free(old_map);
  free(fresh_map);
  free(used);
  free(kept);
  free(elsewhere);
  return 0;
}
