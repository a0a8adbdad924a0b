/* The runner's files read into figures (figures.h: load_run, load_run_with_extras). */
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

#include "perf/schema/run_schema.h"

static double unit_ns(const char *unit) {
  if (!strcmp(unit, "ns")) return 1;
  if (!strcmp(unit, "us")) return 1e3;
  if (!strcmp(unit, "ms")) return 1e6;
  if (!strcmp(unit, "s")) return 1e9;
  return 0;
}

static void read_run_info(ctx *c, json_t *cx, gate_run_info *info) {
  jr_copy_str(c, cx, "context", "date", info->date, sizeof info->date);
  jr_copy_str(c, cx, "context", "host_name", info->host, sizeof info->host);
  /* from --benchmark_context=commit=... */
  jr_optional_str(c, cx, "context", "commit", "unknown", info->commit, sizeof info->commit);
  /* 0 when the runner's copy probe failed: only --metric=copy_ratio needs it. */
  json_t *copy = jr_field(c, cx, "context", "copy_bandwidth_GBps", JSON_REAL);
  double gbps = copy ? json_number_value(copy) : 0;
  if (copy && !(gbps >= 0 && isfinite(gbps)))
    c->failed =
        fail(c->err, c->errlen, "%s: field context.copy_bandwidth_GBps: expected a number >= 0, got %g", c->path, gbps);
  info->copy_bytes_per_second = gbps * 1e9;
  if (json_is_false(json_object_get(cx, "l2_flush")))
    snprintf(info->l2_flush, sizeof info->l2_flush, "hot");
  else
    jr_read_flush_method(c, cx, "context", "l2_flush_method", info->l2_flush, sizeof info->l2_flush);
  json_t *gpu_cx = json_object_get(cx, "gpu");
  if (json_is_object(gpu_cx))
    jr_optional_str(c, gpu_cx, "context.gpu", "uuid", "", info->gpu_uuid, sizeof info->gpu_uuid);
  jr_read_testbed(c, cx, "context", info->testbed, sizeof info->testbed);
  json_t *timing = json_object_get(cx, "timing");
  jr_read_contexts_method(c, json_is_object(timing) ? timing : cx, "context.timing", info, 0);
  info->warmup_s = jr_optional_warmup(c, timing, "context.timing", "min_warmup_time_s", "re-run the benchmark");
  jr_read_launch_probe(c, cx, info);
}

/* Entries of one name are pooled only as repetitions of it: each with its own repetition_index. Two
 * entries of one repetition (a file concatenated or edited) would be counted twice (#56 W04). A missing index is
 * 0: Google Benchmark leaves it out when there is one repetition. 0, or 1 after saying why. */
static int distinct_repetition(ctx *c, json_t *e, const char *where, const char *name) {
  json_t *index = json_object_get(e, "repetition_index"), *seen = json_object_get(c->repetitions, name);
  if (index && !(json_is_integer(index) && json_integer_value(index) >= 0)) {
    char got[32];
    snprintf(got, sizeof got, "%lld", (long long)json_integer_value(index));
    c->failed = fail(c->err, c->errlen,
                     "%s: field %s.repetition_index: expected an integer >= 0 (which repetition, from 0) or no "
                     "field, got %s: a hand-edited run file? Re-run the benchmark",
                     c->path, where, json_is_integer(index) ? got : jr_type_name(index));
    return 1;
  }
  json_int_t rep = index ? json_integer_value(index) : 0;
  if (seen) {
    size_t i;
    json_t *v;
    json_array_foreach(seen, i, v) {
      if (json_integer_value(v) == rep) {
        c->failed = fail(c->err, c->errlen,
                         "%s: field %s: a second entry of '%s' for the same repetition (repetition_index %lld%s): "
                         "one run file holds each repetition once; re-run the benchmark rather than join files",
                         c->path, where, name, (long long)rep, index ? "" : ", none read as 0");
        return 1;
      }
    }
  } else {
    seen = json_array();
    json_object_set_new(c->repetitions, name, seen);
  }
  json_array_append_new(seen, json_integer(rep));
  return 0;
}

#define HAND_EDITED "a hand-edited or joined run file? Re-run the benchmark"

/* How many context medians an entry holds: with --contexts=K (K >= 2) a benchmark under contexts_below_s has one per
 * context, K, and a longer one one per context of --long_contexts=L, L, or none when L <= 1 (it was measured in one
 * context); without --contexts, none. Which benchmarks were short the runner decided on the first context's samples,
 * which the file does not keep: so K, or L, or none where L <= 1. A missing or short list read as one context (the
 * median of the samples) or as fewer contexts than were measured. 0, or 1 after saying what was expected. */
static int medians_fit(ctx *c, const json_t *cm, const char *where, const gate_run_info *info) {
  size_t n = json_array_size(cm), k = info->contexts > 1 ? (size_t)info->contexts : 1, l = (size_t)info->long_contexts;
  if (k == 1 ? !cm : cm ? n == k || (l >= 2 && n == l) : l <= 1) return 0;
  char want[160];
  if (k == 1)
    snprintf(want, sizeof want, "none: the run was measured in one context (context.timing.contexts 1)");
  else if (l >= 2)
    snprintf(want, sizeof want, "%zu (context.timing.contexts, a short benchmark) or %zu (long_contexts, a long one)",
             k, l);
  else
    snprintf(want, sizeof want, "%zu (context.timing.contexts), or none for a long benchmark (long_contexts %zu)", k,
             l);
  if (cm)
    c->failed = fail(c->err, c->errlen, "%s: field %s.context_medians: %zu medians, expected %s; %s", c->path, where, n,
                     want, HAND_EDITED);
  else
    c->failed = fail(c->err, c->errlen, "%s: field %s.context_medians: missing, expected %s; %s", c->path, where, want,
                     HAND_EDITED);
  return 1;
}

/* context.launch_ns: the first context's probe, then one per context --contexts made: K when some benchmark was
 * short (its K medians show it), else L (the long ones alone), else none (K <= 1, or every benchmark long and
 * L = 0). One value where 17 were measured read as "not measured" in the other contexts. A context that could not be
 * made cuts the list short and fails its benchmarks: a run with failed entries is not checked. */
static void launch_probes_fit(ctx *c, json_t *cx, json_t *bs, const gate_run_info *info, size_t nfailed) {
  json_t *a = json_object_get(cx, "launch_ns");
  if (c->failed || !a || nfailed) return;
  size_t k = info->contexts > 1 ? (size_t)info->contexts : 1, l = (size_t)info->long_contexts, made = 0;
  int some_short = 0;
  size_t i;
  json_t *e;
  json_array_foreach(bs, i, e) some_short |= json_array_size(json_object_get(e, "context_medians")) == k;
  if (k > 1) made = some_short ? k : l;
  if (json_array_size(a) == made + 1) return;
  c->failed = fail(c->err, c->errlen,
                   "%s: field context.launch_ns: %zu value%s, expected %zu: the first context's probe and one per "
                   "CUDA context --contexts made (context.timing.contexts %zu, long_contexts %zu%s); %s",
                   c->path, json_array_size(a), json_array_size(a) == 1 ? "" : "s", made + 1, k, l,
                   k > 1 ? (some_short ? ", short benchmarks" : ", long benchmarks alone") : "", HAND_EDITED);
}

/* One "iteration" entry: its samples join those of earlier repetitions of the same benchmark. */
static void read_iteration(ctx *c, json_t *e, const char *where, const char *name, gate_figures *out) {
  char unit[16] = "";
  jr_copy_str(c, e, where, "time_unit", unit, sizeof unit);
  double scale = unit_ns(unit);
  if (!c->failed && scale == 0) {
    c->failed = fail(c->err, c->errlen, "%s: field %s.time_unit: '%s' is not ns, us, ms or s", c->path, where, unit);
    return;
  }
  double real = jr_positive(c, e, where, "real_time") * scale;
  double bps = jr_positive(c, e, where, "bytes_per_second");
  json_t *s = jr_field(c, e, where, "samples", JSON_ARRAY);
  if (c->failed || jr_physical_ns(c, real, where, "real_time", -1) || distinct_repetition(c, e, where, name)) return;
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
    b->bytes_per_second = bps * real; /* bytes per run, until the run's time is known */
  }
  b->host_round_trip |= jr_optional_flag(c, e, where, "host_round_trip");
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
  if (medians_fit(c, cm, where, &out->runs[0])) return;
  /* With no context_medians (json_array_size(NULL) is 0) this still makes the spare slot that
   * run_times fills with the one context's median. */
  if (jr_append_ns(c, cm, scale, where, "context_medians", &m->contexts_ns, &m->ncontexts)) return;
  jr_append_ns(c, s, scale, where, "samples", &m->samples_ns, &m->nsamples);
}

/* Each benchmark's time, and its bytes per second at that time. Measured in several contexts:
 * the mean of their medians. In one: the median of its pooled samples, its one context. */
static void run_times(ctx *c, gate_figures *out) {
  for (size_t i = 0; i < out->n && !c->failed; i++) {
    gate_measure *m = &out->b[i].runs[0];
    if (m->ncontexts > 0) {
      m->time_ns = mean_of(m->contexts_ns, m->ncontexts);
    } else {
      double *sorted = copy_doubles(m->samples_ns, m->nsamples);
      qsort(sorted, m->nsamples, sizeof *sorted, cmp_double);
      size_t h = m->nsamples / 2;
      m->time_ns = m->nsamples % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
      free(sorted);
      m->contexts_ns[m->ncontexts++] = m->time_ns;
    }
    out->b[i].bytes_per_second /= m->time_ns; /* bytes per run / the run's time */
    if (!(out->b[i].bytes_per_second > 0) || !isfinite(out->b[i].bytes_per_second))
      c->failed = fail(c->err, c->errlen,
                       "%s: %s: field bytes_per_second: %g at the median of %g ns: expected a "
                       "positive finite number",
                       c->path, out->b[i].name, out->b[i].bytes_per_second, m->time_ns);
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
  x->library_reference = calloc(f->n + 1, sizeof *x->library_reference);
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
      x->library_reference[k] = json_is_string(label) && !strcmp(json_string_value(label), "reference");
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
  /* What every run file has, from the one schema (perf/schema/run_schema.h), before anything is read:
   * the first field missing or of another type named as jr_field names it. */
  run_schema_problem p;
  if (!c.failed && run_schema_check(root, RS_CHECK_REQUIRED, &p)) {
    char field[128];
    run_schema_path(&p, field, sizeof field);
    c.failed = fail(err, errlen, "%s: field %s: expected %s%s", path, field, run_schema_type_name(p.field->type),
                    p.present ? "" : ", missing");
  }
  json_t *cx = jr_field(&c, root, "", "context", JSON_OBJECT);
  json_t *ver = jr_field(&c, cx, "context", "json_schema_version", JSON_INTEGER);
  if (ver && json_integer_value(ver) != 1)
    c.failed = fail(err, errlen, "%s: field context.json_schema_version: %lld is not supported (want 1)", path,
                    (long long)json_integer_value(ver));
  json_t *g = jr_field(&c, cx, "context", "gpu", JSON_OBJECT);
  if (g && !c.failed) jr_read_gpu(&c, g, &kRunGpu, &out->gpu);
  out->nruns = 1;
  out->runs = calloc(2, sizeof *out->runs);
  read_run_info(&c, cx, &out->runs[0]);

  json_t *bs = jr_field(&c, root, "", "benchmarks", JSON_ARRAY);
  size_t nb = bs ? json_array_size(bs) : 0;
  out->b = calloc(nb + 1, sizeof *out->b);
  for (size_t i = 0; i < nb && !c.failed; i++) {
    json_t *e = json_array_get(bs, i);
    char where[64];
    snprintf(where, sizeof where, "benchmarks[%zu]", i);
    json_t *name = jr_field(&c, e, where, "name", JSON_STRING);
    json_t *type = jr_field(&c, e, where, "run_type", JSON_STRING);
    if (!name || !type) break;
    /* Anything but a boolean ("true", a string) would let a failed entry be judged as measured. */
    int failed = jr_optional_flag(&c, e, where, "error_occurred");
    if (c.failed) break;
    if (failed) {
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
  launch_probes_fit(&c, cx, bs, &out->runs[0], x ? x->nfailed : 0);
  run_times(&c, out);
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
  free(x->library_reference);
  free(x->flops_per_call);
  memset(x, 0, sizeof *x);
}
