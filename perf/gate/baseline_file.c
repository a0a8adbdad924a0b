/* A baseline file read and written (figures.h: load_baseline, save_baseline, write_target). */
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

#include "perf/gate/iso_date.h"

#define EDITED "an edited or damaged baseline? Re-bless it (ci/bless.sh) or restore it from git"

/* Each run once: two entries of one process (same date, host and GPU uuid; bless refuses to make them) would count
 * its measures as two runs' and hide the spread between runs that the noise is. Sorted, not pairwise: at 100 x
 * today's runs a file holds some 30,000. 0, or 1 after saying which two. */
static int runs_distinct(ctx *c, const gate_figures *f) {
  if (c->failed || f->nruns < 2) return c->failed;
  size_t *order = runs_by_identity(f->runs, f->nruns);
  if (!order) return c->failed = fail(c->err, c->errlen, "%s: out of memory checking its runs", c->path);
  for (size_t k = 1; k < f->nruns && !c->failed; k++) {
    const gate_run_info *x = &f->runs[order[k - 1]];
    if (same_run(x, &f->runs[order[k]]))
      c->failed = fail(c->err, c->errlen,
                       "%s: field runs[%zu]: the same run as runs[%zu] (date %s, host %s, gpu_uuid '%s'): one run "
                       "counted twice; %s",
                       c->path, order[k], order[k - 1], x->date, x->host, x->gpu_uuid, EDITED);
  }
  free(order);
  return c->failed;
}

/* How many context medians a measure of run r can hold. The runner gives a benchmark under contexts_below_s one
 * median per context of --contexts (K), a longer one one per context of --long_contexts (L >= 2), or, measured in
 * one context (K <= 1, or L <= 1 for a long one), its one median; a run of N repetitions pools N times as many.
 * Which benchmarks were short, and N, are not in the baseline, so: 1 where one context is possible, else a whole
 * multiple of K or of L. 0 when n is such a number, else 1 after saying what it should be. */
static int contexts_fit(ctx *c, const char *where, size_t n, const gate_run_info *r, size_t run) {
  size_t k = r->contexts > 1 ? (size_t)r->contexts : 1, l = (size_t)r->long_contexts;
  int fits = k == 1 ? n == 1 : (n == 1 && l <= 1) || n % k == 0 || (l >= 2 && n % l == 0);
  if (fits || c->failed) return c->failed;
  char want[200];
  if (k == 1)
    snprintf(want, sizeof want, "1: runs[%zu] was measured in one context (its field contexts)", run);
  else if (l >= 2)
    snprintf(want, sizeof want,
             "%zu or %zu per repetition (runs[%zu].contexts for a short benchmark, long_contexts for "
             "a long one)",
             k, l, run);
  else
    snprintf(want, sizeof want, "%zu per repetition (runs[%zu].contexts), or 1 for a long benchmark", k, run);
  return c->failed = fail(c->err, c->errlen, "%s: field %s.contexts_ns: %zu median%s, expected %s; %s", c->path, where,
                          n, n == 1 ? "" : "s", want, EDITED);
}

int load_baseline(const char *path, gate_figures *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  json_t *root = load_json_object(path, err, errlen);
  if (!root) return 1;
  ctx c = {path, err, errlen, 0, 1, NULL};
  json_t *ver = jr_field(&c, root, "", "schema_version", JSON_INTEGER);
  if (ver &&
      (json_integer_value(ver) < BASELINE_OLDEST_SCHEMA_VERSION || json_integer_value(ver) > BASELINE_SCHEMA_VERSION))
    c.failed = fail(err, errlen,
                    "%s: field schema_version: %lld is not supported (this gate reads versions %d to %d): "
                    "%s",
                    path, (long long)json_integer_value(ver), BASELINE_OLDEST_SCHEMA_VERSION, BASELINE_SCHEMA_VERSION,
                    json_integer_value(ver) > BASELINE_SCHEMA_VERSION
                        ? "a newer gate wrote it; run that gate (update this checkout), do not re-bless with this one"
                        : "an older format this gate no longer reads; re-bless it from runs (ci/bless.sh)");
  json_t *g = jr_field(&c, root, "", "gpu", JSON_OBJECT);
  if (g) jr_read_gpu(&c, g, &kBaselineGpu, &out->gpu);
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
  json_t *runs = jr_field(&c, root, "", "runs", JSON_ARRAY);
  if (runs) {
    out->nruns = json_array_size(runs);
    if (out->nruns == 0) c.failed = fail(err, errlen, "%s: field runs: empty; a baseline needs at least one run", path);
    out->runs = calloc(out->nruns + 1, sizeof *out->runs);
    for (size_t i = 0; i < out->nruns && !c.failed; i++) {
      json_t *r = json_array_get(runs, i);
      char where[32];
      snprintf(where, sizeof where, "runs[%zu]", i);
      jr_copy_str(&c, r, where, "date", out->runs[i].date, sizeof out->runs[i].date);
      time_t t;
      /* Dates order the runs and the history ("since the last bless"): one that does not read orders nothing. */
      if (!c.failed && iso_date_time(out->runs[i].date, &t) != 0)
        c.failed = fail(err, errlen,
                        "%s: field %s.date: '%s' is not a date as the runner writes it (ISO 8601, such as "
                        "2026-11-25T16:52:12+00:00); %s",
                        path, where, out->runs[i].date, EDITED);
      jr_copy_str(&c, r, where, "commit", out->runs[i].commit, sizeof out->runs[i].commit);
      jr_copy_str(&c, r, where, "host", out->runs[i].host, sizeof out->runs[i].host);
      out->runs[i].copy_bytes_per_second = jr_positive(&c, r, where, "copy_bytes_per_second");
      jr_read_flush_method(&c, r, where, "l2_flush", out->runs[i].l2_flush, sizeof out->runs[i].l2_flush);
      jr_optional_str(&c, r, where, "gpu_uuid", "", out->runs[i].gpu_uuid, sizeof out->runs[i].gpu_uuid);
      jr_read_testbed(&c, r, where, out->runs[i].testbed, sizeof out->runs[i].testbed);
      jr_read_contexts_method(&c, r, where, &out->runs[i], 1);
      out->runs[i].launch_first_ns = jr_optional_probe(&c, r, where, "launch_first_ns");
      out->runs[i].launch_contexts_ns = jr_optional_probe(&c, r, where, "launch_contexts_ns");
      out->runs[i].warmup_s = jr_optional_warmup(&c, r, where, "warmup_s", "re-bless");
    }
    runs_distinct(&c, out);
  }
  json_t *bs = jr_field(&c, root, "", "benchmarks", JSON_ARRAY);
  if (bs) {
    out->n = json_array_size(bs);
    if (out->n == 0)
      c.failed = fail(err, errlen, "%s: field benchmarks: empty; re-bless from a run with benchmarks", path);
    out->b = calloc(out->n + 1, sizeof *out->b);
    for (size_t i = 0; i < out->n && !c.failed; i++) {
      json_t *b = json_array_get(bs, i);
      char where[64];
      snprintf(where, sizeof where, "benchmarks[%zu]", i);
      json_t *name = jr_field(&c, b, where, "name", JSON_STRING);
      if (!name) break;
      int seen = 0;
      for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(out->b[k].name, json_string_value(name));
      if (seen) {
        c.failed =
            fail(err, errlen, "%s: field %s.name: '%s' appears twice: re-bless", path, where, json_string_value(name));
        break;
      }
      out->b[i].name = strdup(json_string_value(name));
      out->b[i].bytes_per_second = jr_positive(&c, b, where, "bytes_per_second");
      out->b[i].host_round_trip = jr_optional_flag(&c, b, where, "host_round_trip");
      json_t *m = jr_field(&c, b, where, "runs", JSON_ARRAY);
      if (!m) break;
      out->b[i].nruns = json_array_size(m);
      if (out->b[i].nruns == 0) {
        c.failed = fail(err, errlen, "%s: field %s.runs: empty; every benchmark needs a measure", path, where);
        break;
      }
      out->b[i].runs = calloc(out->b[i].nruns + 1, sizeof *out->b[i].runs);
      /* A run measures a benchmark once: a second measure of it would count that run twice. */
      size_t *measure_of = malloc((out->nruns + 1) * sizeof *measure_of);
      for (size_t r = 0; r < out->nruns; r++) measure_of[r] = (size_t)-1;
      for (size_t r = 0; r < out->b[i].nruns && !c.failed; r++) {
        char w2[96];
        snprintf(w2, sizeof w2, "%s.runs[%zu]", where, r);
        gate_measure *me = &out->b[i].runs[r];
        if (jr_read_measure(&c, json_array_get(m, r), w2, out->nruns, me)) break;
        if (measure_of[me->run] != (size_t)-1) {
          c.failed = fail(err, errlen,
                          "%s: field %s.run: %zu again (%s.runs[%zu] is a measure of runs[%zu] too): one run "
                          "counted twice; %s",
                          path, w2, me->run, where, measure_of[me->run], me->run, EDITED);
          break;
        }
        measure_of[me->run] = r;
        contexts_fit(&c, w2, me->ncontexts, &out->runs[me->run], me->run);
      }
      free(measure_of);
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
  /* The field median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
  snprintf(key, sizeof key, "runs[%zu].median_ns", r);
  if (finite_field(c, name, key, m->time_ns)) return NULL;
  snprintf(key, sizeof key, "runs[%zu].contexts_ns", r);
  json_t *cs = json_array();
  for (size_t i = 0; i < m->ncontexts; i++)
    if (!finite_field(c, name, key, m->contexts_ns[i])) append(c, cs, json_real(m->contexts_ns[i]), name, key);
  if (c->failed) {
    json_decref(cs);
    return NULL;
  }
  return json_pack("{s:I, s:f, s:o, s:I}", "run", (json_int_t)m->run, "median_ns", m->time_ns, "contexts_ns", cs,
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
int write_file_atomically(const char *link, const char *text, char *err, size_t errlen) {
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
  int rc = write_file_atomically(path, text, err, errlen);
  free(text);
  return rc;
}
