#define _GNU_SOURCE
#include "plots/inputs.h"
#include "perf/common/fail.h"

#include "perf/gate/baseline_store.h"
#include "perf/gate/history_csv.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- benchmark names ---------- */

void format_size(long long v, char *buf, size_t len) {
  static const char *kUnit[] = {"", "Ki", "Mi", "Gi", "Ti"};
  int k = 0;
  /* Small sizes read best as they are; large powers of two in binary units. */
  if (v >= 65536)
    while (k < 4 && v % 1024 == 0) {
      v /= 1024;
      k++;
    }
  snprintf(buf, len, "%lld%s", v, kUnit[k]);
}

int parse_bench_name(const char *name, bench_name *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  char copy[512];
  if (strlen(name) >= sizeof copy) return fail(err, errlen, "benchmark name '%.80s...' is too long", name);
  snprintf(copy, sizeof copy, "%s", name);
  char *save = NULL, *family = strtok_r(copy, "/", &save), *variant = strtok_r(NULL, "/", &save);
  if (!family || !variant || strlen(family) >= sizeof out->family || strlen(variant) >= sizeof out->variant)
    return fail(err, errlen, "benchmark name '%s': expected family/variant[/param:value...]", name);
  snprintf(out->family, sizeof out->family, "%s", family);
  snprintf(out->variant, sizeof out->variant, "%s", variant);
  const char *rest = name + strlen(family) + 1 + strlen(variant);
  snprintf(out->params, sizeof out->params, "%s", *rest == '/' ? rest + 1 : "");
  out->size = 1;
  size_t nparams = 0;
  for (char *p = strtok_r(NULL, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
    char *colon = strchr(p, ':'), *end = NULL;
    long long v = colon ? strtoll(colon + 1, &end, 10) : 0;
    if (!colon || colon == p || !end || end == colon + 1 || *end || v < 1)
      return fail(err, errlen, "benchmark name '%s': parameter '%s' is not NAME:POSITIVE_INTEGER", name, p);
    *colon = '\0';
    char value[32];
    format_size(v, value, sizeof value);
    const char *sep = nparams ? "×" : "";
    size_t a = strlen(out->size_label), b = strlen(out->size_axis);
    snprintf(out->size_label + a, sizeof out->size_label - a, "%s%s", sep, value);
    snprintf(out->size_axis + b, sizeof out->size_axis - b, "%s%s", sep, p);
    out->size *= (double)v;
    nparams++;
  }
  if (nparams == 0) snprintf(out->size_label, sizeof out->size_label, "(one size)");
  return 0;
}

/* ---------- run JSON ---------- */

/* Through the gate's reader: the times the gate compares and the history records, and what
 * the report adds (failed benchmarks, shown instead of charted; peak; labels; FLOPs). */
int load_run_file(const char *path, run_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s", path);
  gate_figures f;
  run_extras x;
  if (load_run_with_extras(path, &f, &x, err, errlen)) return 1;
  out->gpu = f.gpu;
  out->peak_gbps = x.peak_gbps;
  out->copy_gbps = f.runs[0].copy_bytes_per_second / 1e9;
  snprintf(out->compute_capability, sizeof out->compute_capability, "%s", x.compute_capability);
  snprintf(out->date, sizeof out->date, "%s", f.runs[0].date);
  snprintf(out->host, sizeof out->host, "%s", f.runs[0].host);
  snprintf(out->commit, sizeof out->commit, "%s", f.runs[0].commit);
  snprintf(out->executable, sizeof out->executable, "%s", x.executable);
  out->failed = calloc(x.nfailed + 1, sizeof *out->failed);
  out->nfailed = x.nfailed;
  for (size_t i = 0; i < x.nfailed; i++) {
    snprintf(out->failed[i].name, sizeof out->failed[i].name, "%s", x.failed[i].name);
    snprintf(out->failed[i].message, sizeof out->failed[i].message, "%s", x.failed[i].message);
  }
  out->b = calloc(f.n + 1, sizeof *out->b);
  out->n = f.n;
  int rc = 0;
  for (size_t i = 0; i < f.n && !rc; i++) {
    run_bench *b = &out->b[i];
    snprintf(b->name, sizeof b->name, "%s", f.b[i].name);
    b->time_ns = f.b[i].runs[0].time_ns;
    b->bytes_per_second = f.b[i].bytes_per_second;
    b->order = (int)i; /* load_run keeps the order of first appearance */
    b->library_reference = x.library_reference[i];
    b->flops_per_call = x.flops_per_call[i];
    if (parse_bench_name(b->name, &b->id, err, errlen)) {
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      rc = fail(err, errlen, "%s: field benchmarks[].name: %s", path, why);
    }
  }
  free_run_extras(&x);
  free_figures(&f);
  if (rc) {
    free(out->b);
    free(out->failed);
    out->b = NULL;
    out->failed = NULL;
  }
  return rc;
}

/* ---------- verdicts.json ---------- */

static const char *kVerdicts[] = {"faster", "same", "slower", "new", "missing", "unchanged", "unknown"};

static int known_verdict(const char *v, int allow_unknown) {
  for (size_t i = 0; i < sizeof kVerdicts / sizeof *kVerdicts - (allow_unknown ? 0 : 1); i++)
    if (!strcmp(v, kVerdicts[i])) return 1;
  return 0;
}

static int number_field(const char *path, json_t *e, size_t i, const char *key, double *out, char *err, size_t errlen) {
  json_t *v = json_object_get(e, key);
  if (!json_is_number(v) || !isfinite(json_number_value(v)))
    return fail(err, errlen, "%s: field verdicts[%zu].%s: expected a number%s", path, i, key, v ? "" : ", missing");
  *out = json_number_value(v);
  return 0;
}

int load_verdicts_file(const char *path, verdicts_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s", path);
  json_error_t je;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!root) return fail(err, errlen, "%s: not valid JSON (line %d: %s)", path, je.line, je.text);
  json_t *metric = json_object_get(root, "metric"), *list = json_object_get(root, "verdicts");
  int rc = 0;
  if (!json_is_string(metric) ||
      (strcmp(json_string_value(metric), "time") && strcmp(json_string_value(metric), "copy_ratio")))
    rc = fail(err, errlen, "%s: field metric: expected \"time\" or \"copy_ratio\" (written by gate check)", path);
  else if (!json_is_array(list))
    rc = fail(err, errlen, "%s: field verdicts: expected an array%s", path, list ? "" : ", missing");
  else if (json_array_size(list) == 0)
    rc = fail(err, errlen, "%s: field verdicts: empty; the gate compared nothing", path);
  if (rc) {
    json_decref(root);
    return rc;
  }
  snprintf(out->metric, sizeof out->metric, "%s", json_string_value(metric));
  /* Which GPU the verdicts belong to (gate check writes it; older files name none). */
  json_t *gpu = json_object_get(root, "gpu");
  if (gpu) {
    json_t *name = json_object_get(gpu, "name");
    if (json_is_string(name)) {
      snprintf(out->gpu_name, sizeof out->gpu_name, "%s", json_string_value(name));
      gpu_slug(out->gpu_name, out->gpu_slug, sizeof out->gpu_slug);
    }
    if (!out->gpu_slug[0]) {
      json_decref(root);
      return fail(err, errlen,
                  "%s: field gpu.name: expected the name of the GPU the gate ran on (e.g. \"NVIDIA H100 "
                  "80GB HBM3\"): re-run gate check",
                  path);
    }
  }
  out->n = json_array_size(list);
  out->v = calloc(out->n, sizeof *out->v);
  for (size_t i = 0; i < out->n && !rc; i++) {
    json_t *e = json_array_get(list, i);
    verdict_row *r = &out->v[i];
    r->baseline_ns = r->run_ns = r->delta = r->threshold = r->noise = r->p_slower = NAN;
    json_t *name = json_object_get(e, "name"), *v = json_object_get(e, "verdict");
    if (!json_is_string(name) || !json_string_length(name) || json_string_length(name) >= sizeof r->name) {
      rc = fail(err, errlen, "%s: field verdicts[%zu].name: expected a benchmark name", path, i);
      break;
    }
    snprintf(r->name, sizeof r->name, "%s", json_string_value(name));
    if (!json_is_string(v) || !known_verdict(json_string_value(v), 0)) {
      rc = fail(err, errlen,
                "%s: field verdicts[%zu].verdict: expected faster, same, slower, new, missing or unchanged", path, i);
      break;
    }
    snprintf(r->verdict, sizeof r->verdict, "%s", json_string_value(v));
    json_t *fails = json_object_get(e, "fails");
    r->fails =
        json_is_boolean(fails) ? json_is_true(fails) : !strcmp(r->verdict, "slower") || !strcmp(r->verdict, "missing");
    json_t *why;
    size_t w;
    json_array_foreach(json_object_get(e, "reasons"), w, why) {
      r->other_gpus |= json_is_string(why) && !strcmp(json_string_value(why), "other_gpus");
    }
    /* unchanged (A/B, not measured): like new, no baseline side, and a run time only when a run measured it */
    int is_unchanged = !strcmp(r->verdict, "unchanged");
    int is_new = !strcmp(r->verdict, "new") || is_unchanged, is_missing = !strcmp(r->verdict, "missing");
    if (!is_new) rc = number_field(path, e, i, "baseline_ns", &r->baseline_ns, err, errlen);
    if (!rc && !is_missing && (!is_new || json_object_get(e, "run_ns")))
      rc = number_field(path, e, i, "run_ns", &r->run_ns, err, errlen);
    if (!rc && !is_new && !is_missing) {
      rc = number_field(path, e, i, "delta", &r->delta, err, errlen) ||
          number_field(path, e, i, "threshold", &r->threshold, err, errlen) ||
          number_field(path, e, i, "baseline_noise", &r->noise, err, errlen) ||
          number_field(path, e, i, "p_slower", &r->p_slower, err, errlen);
    }
  }
  json_decref(root);
  if (rc) {
    free(out->v);
    out->v = NULL;
  }
  return rc;
}

/* ---------- history CSV ---------- */

/* Read by the names in the header (perf/gate/history_csv.h): columns added later break nothing.
 * Files begun before the l2_flush field have 8-field rows taken with the memset flush and,
 * appended since, 9-field rows that name their flush. */
/* The column median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
static const char *const kHistoryColumns[] = {"date",  "commit",  "gpu", "benchmark", "median_ns", "bytes_per_second",
                                              "noise", "verdict", NULL};

static int copy_field(const char *path, size_t line, const char *field, const char *value, char *dst, size_t cap,
                      char *err, size_t errlen) {
  size_t len = strlen(value);
  if (len >= cap)
    return fail(err, errlen,
                "%s: line %zu: field %s: expected a value shorter than %zu characters; fix or remove "
                "that row",
                path, line, field, cap);
  memcpy(dst, value, len + 1);
  return 0;
}

/* A history names the same benchmarks run after run: each name is split once (by its hash; a
 * name that meets another in the table is split again). */
typedef struct {
  char name[256];
  bench_name id;
} parsed_name;

static int parse_name_cached(parsed_name *cache, size_t slots, const char *name, bench_name *out, char *err,
                             size_t errlen) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
  parsed_name *c = &cache[h % slots];
  if (strcmp(c->name, name) != 0) {
    if (parse_bench_name(name, &c->id, err, errlen)) {
      c->name[0] = '\0';
      return 1;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
  }
  *out = c->id;
  return 0;
}

/* The file's copy of testbed: rows of one testbed share it. */
static const char *shared_testbed(history_file *h, const char *testbed) {
  if (!testbed[0]) return "";
  for (size_t i = h->ntestbeds; i-- > 0;)
    if (!strcmp(h->testbeds[i], testbed)) return h->testbeds[i];
  char **grown = realloc(h->testbeds, (h->ntestbeds + 1) * sizeof *grown);
  char *copy = strdup(testbed);
  if (!grown || !copy) {
    fprintf(stderr, "render: out of memory\n");
    exit(2);
  }
  h->testbeds = grown;
  return h->testbeds[h->ntestbeds++] = copy;
}

static int history_row_of(const char *path, const history_entry *e, parsed_name *cache, size_t slots, history_file *h,
                          history_row *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  if (copy_field(path, e->line, "date", e->date, r->date, sizeof r->date, err, errlen) ||
      copy_field(path, e->line, "commit", e->commit, r->commit, sizeof r->commit, err, errlen) ||
      copy_field(path, e->line, "gpu", e->gpu, r->gpu, sizeof r->gpu, err, errlen) ||
      copy_field(path, e->line, "benchmark", e->bench, r->bench, sizeof r->bench, err, errlen))
    return 1;
  r->testbed = shared_testbed(h, e->testbed);
  char why[512];
  if (parse_name_cached(cache, slots, r->bench, &r->id, why, sizeof why))
    return fail(err, errlen, "%s: line %zu: field benchmark: %s", path, e->line, why);
  r->line = e->line;
  r->time_ns = e->time_ns;
  r->bytes_per_second = e->bytes_per_second;
  r->spread = e->spread;
  r->threshold = e->threshold;
  if (!known_verdict(e->verdict, 1))
    return fail(err, errlen,
                "%s: line %zu: field verdict: expected faster, same, slower, new, missing or unknown, "
                "got '%s'",
                path, e->line, e->verdict);
  snprintf(r->verdict, sizeof r->verdict, "%s", e->verdict);
  if (strcmp(e->l2_flush, "read") && strcmp(e->l2_flush, "write") && strcmp(e->l2_flush, "hot"))
    return fail(err, errlen, "%s: line %zu: field l2_flush: expected read, write or hot, got '%s'", path, e->line,
                e->l2_flush);
  snprintf(r->l2_flush, sizeof r->l2_flush, "%s", e->l2_flush);
  return 0;
}

int load_history_file(const char *path, history_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s", path);
  history_table t;
  if (history_table_load_to_cut(path, kHistoryColumns, &t, err, errlen)) return 1;
  if (t.skipped[0]) fprintf(stderr, "render: %s\n", t.skipped);
  out->r = malloc(t.n * sizeof *out->r);
  size_t slots = 1024;
  parsed_name *cache = calloc(slots, sizeof *cache);
  int rc = 0;
  for (size_t i = 0; i < t.n && !rc; i++)
    rc = history_row_of(path, &t.r[i], cache, slots, out, &out->r[i], err, errlen);
  free(cache);
  out->n = rc ? 0 : t.n;
  history_table_free(&t);
  if (rc) free_history_file(out);
  return rc;
}

void free_history_file(history_file *h) {
  for (size_t i = 0; i < h->ntestbeds; i++) free(h->testbeds[i]);
  free(h->testbeds);
  free(h->r);
  h->testbeds = NULL, h->ntestbeds = 0, h->r = NULL, h->n = 0;
}

/* ---------- baselines ---------- */

int load_baseline_file(const char *path, baseline_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s", path);
  baseline_place pl;
  baseline_place_of(path, &pl); /* a file, or a folder of families (baseline_store.h) */
  return baseline_load(&pl, NULL, &out->fig, err, errlen);
}

/* ---------- dispatch ---------- */

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

#define GROW(arr, n) ((arr) = realloc((arr), ((n) + 1) * sizeof *(arr)), &(arr)[(n)++])

static int load_file(render_inputs *in, const char *path, char *err, size_t errlen) {
  int rc;
  if (ends_with(path, ".csv")) {
    history_file h;
    if ((rc = load_history_file(path, &h, err, errlen)) == 0) *GROW(in->hist, in->nhist) = h;
  } else if (ends_with(path, ".json")) {
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
      return fail(err, errlen, "%s: not valid JSON (line %d, column %d: %s): a truncated file?", path, je.line,
                  je.column, je.text);
    int is_run = json_object_get(root, "context") != NULL, is_verdicts = json_object_get(root, "verdicts") != NULL,
        is_base = json_object_get(root, "schema_version") != NULL,
        is_trends = json_object_get(root, "trends_version") != NULL;
    json_decref(root);
    if (is_run) {
      run_file r;
      if ((rc = load_run_file(path, &r, err, errlen)) == 0) *GROW(in->runs, in->nruns) = r;
    } else if (is_verdicts) {
      verdicts_file v;
      if ((rc = load_verdicts_file(path, &v, err, errlen)) == 0) *GROW(in->verdicts, in->nverdicts) = v;
    } else if (is_trends) {
      trend_history *h;
      size_t n;
      if ((rc = trends_read(path, &h, &n, err, errlen)) == 0) {
        in->trends = realloc(in->trends, (in->ntrends + n + 1) * sizeof *in->trends);
        memcpy(in->trends + in->ntrends, h, n * sizeof *h);
        in->ntrends += n;
        free(h);
      }
    } else if (is_base) {
      baseline_file b;
      if ((rc = load_baseline_file(path, &b, err, errlen)) == 0) *GROW(in->bases, in->nbases) = b;
    } else {
      return fail(err, errlen,
                  "%s: not a run of the benchmark runner (no field context), a verdicts file (no field "
                  "verdicts), a baseline (no field schema_version) or trends (no field trends_version)",
                  path);
    }
  } else {
    return fail(err, errlen,
                "%s: unknown kind of input: want a run or verdicts or baseline .json, a history .csv or "
                "a directory of them",
                path);
  }
  if (rc == 0) snprintf(*GROW(in->given, in->ngiven), PATH_LEN, "%s", path);
  return rc;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .json and .csv files directly in `dir`, sorted; returns how many were loaded, -1 on error. */
static int load_dir(render_inputs *in, const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) {
    fail(err, errlen, "%s: cannot read the directory: %s", dir, strerror(errno));
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!(ends_with(e->d_name, ".json") || ends_with(e->d_name, ".csv"))) continue;
    if (ends_with(e->d_name, ".candidate.json")) {
      fprintf(stderr, "render: skipping %s/%s (a candidate baseline, not adopted)\n", dir, e->d_name);
      continue;
    }
    *GROW(names, n) = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (!rc && load_file(in, path, err, errlen)) rc = -1;
    free(names[i]);
  }
  free(names);
  return rc ? -1 : (int)n;
}

/* 1 when dir is a baseline's folder of families (baseline_store.h): named after the GPU (its slug) of the
 * baseline a .json in it is (the folder of baselines holds <slug>.json files instead). */
static int is_baseline_folder(const char *given) {
  char dir[PATH_LEN];
  snprintf(dir, sizeof dir, "%s", given);
  for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--) dir[len - 1] = '\0';
  const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int yes = 0;
  while (!yes && (e = readdir(d)) != NULL) {
    if (!ends_with(e->d_name, ".json")) continue;
    char path[PATH_LEN + 300];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    json_t *root = json_load_file(path, 0, NULL);
    const char *gpu = json_string_value(json_object_get(json_object_get(root, "gpu"), "name"));
    char slug[256] = "";
    if (gpu) gpu_slug(gpu, slug, sizeof slug);
    yes = root && json_object_get(root, "schema_version") && slug[0] && strcmp(slug, name) == 0;
    json_decref(root);
    break;
  }
  closedir(d);
  return yes;
}

static int load_baseline_folder(render_inputs *in, const char *dir, char *err, size_t errlen) {
  baseline_file b;
  if (load_baseline_file(dir, &b, err, errlen)) return 1;
  *GROW(in->bases, in->nbases) = b;
  snprintf(*GROW(in->given, in->ngiven), PATH_LEN, "%s", dir);
  return 0;
}

/* The baselines' folders of families directly in dir (baselines/<gpu>/), in name order; how many, -1 on error. */
static int load_baseline_folders(render_inputs *in, const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "history")) continue;
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && is_baseline_folder(path)) *GROW(names, n) = strdup(path);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rc && load_baseline_folder(in, names[i], err, errlen)) rc = -1;
    free(names[i]);
  }
  free(names);
  return rc ? -1 : (int)n;
}

int load_input(render_inputs *in, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) != 0) return fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return load_file(in, path, err, errlen);
  if (is_baseline_folder(path)) return load_baseline_folder(in, path, err, errlen);
  int n = load_dir(in, path, err, errlen);
  if (n < 0) return 1;
  int folders = load_baseline_folders(in, path, err, errlen);
  if (folders < 0) return 1;
  n += folders;
  char sub[PATH_LEN];
  snprintf(sub, sizeof sub, "%s/history", path);
  if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
    int m = load_dir(in, sub, err, errlen);
    if (m < 0) return 1;
    n += m;
  }
  if (n == 0) return fail(err, errlen, "%s: a directory with no .json or .csv file in it (nor in %s)", path, sub);
  return 0;
}

void free_inputs(render_inputs *in) {
  for (size_t i = 0; i < in->nruns; i++) {
    free(in->runs[i].b);
    free(in->runs[i].failed);
  }
  for (size_t i = 0; i < in->nverdicts; i++) free(in->verdicts[i].v);
  for (size_t i = 0; i < in->nhist; i++) free_history_file(&in->hist[i]);
  for (size_t i = 0; i < in->nbases; i++) free_figures(&in->bases[i].fig);
  trends_free(in->trends, in->ntrends);
  free(in->runs);
  free(in->verdicts);
  free(in->hist);
  free(in->bases);
  free(in->given);
  memset(in, 0, sizeof *in);
}
