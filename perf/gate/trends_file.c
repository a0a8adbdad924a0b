/* trends.json written and read (trends_file.h): the format is defined here alone. */
#define _GNU_SOURCE
#include "perf/gate/trends_file.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/decide.h"
#include "perf/common/fail.h"
#include "perf/gate/figures.h"

static json_t *series_json(const trend_series *s) {
  json_t *rows = json_array(), *cps = json_array();
  for (size_t i = 0; i < s->nrows; i++)
    json_array_append_new(rows,
                          json_pack("[I f i]", (json_int_t)s->rows[i].line, s->rows[i].threshold, s->rows[i].recorded));
  for (size_t i = 0; i < s->nchanges; i++) {
    const trend_change *c = &s->changes[i];
    json_array_append_new(cps,
                          json_pack("{s:I s:f s:f s:f s:b}", "line", (json_int_t)c->line, "step", c->step, "p", c->p,
                                    "level", c->level, "since_bless", c->since_bless));
  }
  json_t *creep = s->crept ? json_pack("{s:f s:f}", "level", s->creep_level, "allowed", s->creep_allowed) : json_null();
  return json_pack("{s:s s:s s:s s:{s:s s:f s:f} s:o s:o s:o}", "benchmark", s->bench, "l2_flush", s->l2_flush,
                   "testbed", s->testbed, "reference", "against", s->against_baseline ? "baseline" : "first_rows", "ns",
                   s->reference_ns, "threshold", s->reference_threshold, "rows", rows, "change_points", cps, "creep",
                   creep);
}

int trends_write(const char *path, const trend_history *h, size_t n, char *err, size_t errlen) {
  json_t *hs = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *series = json_array();
    for (size_t k = 0; k < h[i].n; k++) json_array_append_new(series, series_json(&h[i].s[k]));
    json_array_append_new(hs,
                          json_pack("{s:s s:s s:o s:I s:o}", "history", h[i].history, "gpu", h[i].gpu, "baseline",
                                    h[i].baseline ? json_string(h[i].baseline) : json_null(), "window",
                                    (json_int_t)h[i].window, "series", series));
  }
  json_t *root = json_pack("{s:i s:i s:I s:o}", "trends_version", TRENDS_VERSION, "policy_version", GATE_POLICY_VERSION,
                           "max_rows", (json_int_t)TREND_MAX_ROWS, "histories", hs);
  char *text = root ? json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
  json_decref(root);
  if (!text) return fail(err, errlen, "%s: out of memory writing the trends", path);
  size_t len = strlen(text);
  char *line = realloc(text, len + 2);
  if (!line) {
    free(text);
    return fail(err, errlen, "%s: out of memory writing the trends", path);
  }
  memcpy(line + len, "\n", 2);
  int rc = write_file_atomically(path, line, err, errlen);
  free(line);
  return rc;
}

/* ---------- reading: every field checked, named in the message ---------- */

typedef struct {
  const char *path;
  char *err;
  size_t errlen;
} reader;

static json_t *field(const reader *r, json_t *obj, const char *where, const char *name, json_type type) {
  json_t *v = json_object_get(obj, name);
  static const char *kType[] = {[JSON_OBJECT] = "an object",
                                [JSON_ARRAY] = "an array",
                                [JSON_STRING] = "a string",
                                [JSON_INTEGER] = "a number",
                                [JSON_REAL] = "a number"};
  int ok = v &&
      (json_typeof(v) == type || (type == JSON_REAL && json_is_number(v)) ||
       (type == JSON_INTEGER && json_is_integer(v)));
  if (!ok) {
    fail(r->err, r->errlen, "%s: %s%s: expected %s; write the file again with `gate trends --json`", r->path, where,
         name, kType[type]);
    return NULL;
  }
  return v;
}

static char *string_field(const reader *r, json_t *obj, const char *where, const char *name) {
  json_t *v = field(r, obj, where, name, JSON_STRING);
  return v ? strdup(json_string_value(v)) : NULL;
}

static int number_field(const reader *r, json_t *obj, const char *where, const char *name, double *out) {
  json_t *v = field(r, obj, where, name, JSON_REAL);
  if (!v) return 1;
  *out = json_number_value(v);
  if (!isfinite(*out)) return fail(r->err, r->errlen, "%s: %s%s: expected a finite number", r->path, where, name);
  return 0;
}

static int read_rows(const reader *r, json_t *a, const char *where, trend_series *s) {
  s->nrows = json_array_size(a);
  s->rows = calloc(s->nrows + 1, sizeof *s->rows);
  for (size_t i = 0; i < s->nrows; i++) {
    json_int_t line;
    double thr;
    int recorded;
    if (json_unpack(json_array_get(a, i), "[I F i]", &line, &thr, &recorded) || line < 1 || !isfinite(thr))
      return fail(r->err, r->errlen, "%s: %srows[%zu]: expected [line >= 1, threshold, recorded 0 or 1]", r->path,
                  where, i);
    /* In file order, as gate trends writes them: the report finds a row's by a binary search. */
    if (i > 0 && (size_t)line <= s->rows[i - 1].line)
      return fail(r->err, r->errlen,
                  "%s: %srows[%zu]: line %lld after line %zu: rows are in the history's order, each once; write "
                  "the file again with `gate trends --json`",
                  r->path, where, i, (long long)line, s->rows[i - 1].line);
    s->rows[i] = (trend_row){(size_t)line, thr, recorded != 0};
  }
  return 0;
}

/* The row at line in s->rows: its index, or s->nrows when none. */
static size_t row_index(const trend_series *s, size_t line) {
  size_t lo = 0, hi = s->nrows;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->rows[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->nrows && s->rows[lo].line == line ? lo : s->nrows;
}

static int read_changes(const reader *r, json_t *a, const char *where, trend_series *s) {
  s->nchanges = json_array_size(a);
  s->changes = calloc(s->nchanges + 1, sizeof *s->changes);
  for (size_t i = 0; i < s->nchanges; i++) {
    json_int_t line;
    trend_change *c = &s->changes[i];
    if (json_unpack(json_array_get(a, i), "{s:I s:F s:F s:F s:b}", "line", &line, "step", &c->step, "p", &c->p, "level",
                    &c->level, "since_bless", &c->since_bless) ||
        line < 1)
      return fail(r->err, r->errlen, "%s: %schange_points[%zu]: expected line, step, p, level and since_bless", r->path,
                  where, i);
    c->line = (size_t)line;
    /* A p-value is a probability; a change point is the first row of a new level, so a row of the series after its
     * first. Else the report drew nothing for it and counted it all the same. */
    if (!(c->p >= 0 && c->p <= 1))
      return fail(r->err, r->errlen,
                  "%s: %schange_points[%zu].p: %g is not a p-value (0 to 1); write the file again with `gate trends "
                  "--json`",
                  r->path, where, i, c->p);
    size_t at = row_index(s, c->line);
    if (at == 0 || at == s->nrows)
      return fail(r->err, r->errlen,
                  "%s: %schange_points[%zu].line: %zu is %s of the series' rows (lines %zu to %zu); write the file "
                  "again with `gate trends --json`",
                  r->path, where, i, c->line, at == 0 ? "the first" : "none", s->nrows ? s->rows[0].line : 0,
                  s->nrows ? s->rows[s->nrows - 1].line : 0);
  }
  return 0;
}

static int read_series(const reader *r, json_t *o, const char *where, trend_series *s) {
  json_t *ref, *rows, *cps, *creep;
  if (!(s->bench = string_field(r, o, where, "benchmark")) || !(s->l2_flush = string_field(r, o, where, "l2_flush")) ||
      !(s->testbed = string_field(r, o, where, "testbed")) || !(ref = field(r, o, where, "reference", JSON_OBJECT)) ||
      !(rows = field(r, o, where, "rows", JSON_ARRAY)) || !(cps = field(r, o, where, "change_points", JSON_ARRAY)))
    return 1;
  char sub[300];
  snprintf(sub, sizeof sub, "%sreference.", where);
  json_t *against = field(r, ref, sub, "against", JSON_STRING);
  if (!against || number_field(r, ref, sub, "ns", &s->reference_ns) ||
      number_field(r, ref, sub, "threshold", &s->reference_threshold))
    return 1;
  s->against_baseline = !strcmp(json_string_value(against), "baseline");
  if (!s->against_baseline && strcmp(json_string_value(against), "first_rows"))
    return fail(r->err, r->errlen, "%s: %sagainst: expected \"baseline\" or \"first_rows\"", r->path, sub);
  if (!(s->reference_ns > 0)) return fail(r->err, r->errlen, "%s: %sns: expected a time above 0", r->path, sub);
  if (read_rows(r, rows, where, s) || read_changes(r, cps, where, s)) return 1;
  creep = json_object_get(o, "creep");
  if (creep && !json_is_null(creep)) {
    snprintf(sub, sizeof sub, "%screep.", where);
    if (number_field(r, creep, sub, "level", &s->creep_level) ||
        number_field(r, creep, sub, "allowed", &s->creep_allowed))
      return 1;
    s->crept = 1;
  } else if (!creep) {
    return fail(r->err, r->errlen, "%s: %screep: expected null or an object", r->path, where);
  }
  return 0;
}

static int read_history(const reader *r, json_t *o, size_t i, trend_history *h) {
  char where[96];
  snprintf(where, sizeof where, "histories[%zu].", i);
  json_t *series, *window, *base = json_object_get(o, "baseline");
  if (!(h->history = string_field(r, o, where, "history")) || !(h->gpu = string_field(r, o, where, "gpu")) ||
      !(window = field(r, o, where, "window", JSON_INTEGER)) || !(series = field(r, o, where, "series", JSON_ARRAY)))
    return 1;
  if (json_integer_value(window) < 1)
    return fail(r->err, r->errlen, "%s: %swindow: expected 1 or more", r->path, where);
  h->window = (size_t)json_integer_value(window);
  if (base && json_is_string(base))
    h->baseline = strdup(json_string_value(base));
  else if (!base || !json_is_null(base))
    return fail(r->err, r->errlen, "%s: %sbaseline: expected a path or null", r->path, where);
  h->n = json_array_size(series);
  h->s = calloc(h->n + 1, sizeof *h->s);
  for (size_t k = 0; k < h->n; k++) {
    char sw[160];
    snprintf(sw, sizeof sw, "%sseries[%zu].", where, k);
    if (read_series(r, json_array_get(series, k), sw, &h->s[k])) return 1;
  }
  return 0;
}

int trends_read(const char *path, trend_history **out, size_t *n, char *err, size_t errlen) {
  *out = NULL, *n = 0;
  json_t *root = load_json_object(path, err, errlen);
  if (!root) return 1;
  reader r = {path, err, errlen};
  json_t *version = json_object_get(root, "trends_version"), *hs;
  int rc = 0;
  /* The thresholds of rows from before the column, and the references, are the policy's: another policy's trends
   * would be drawn as this gate's. */
  json_t *policy = json_object_get(root, "policy_version");
  if (!json_is_integer(version) || json_integer_value(version) != TRENDS_VERSION) {
    rc = fail(err, errlen, "%s: field trends_version: expected %d; write the file again with this `gate trends --json`",
              path, TRENDS_VERSION);
  } else if (!json_is_integer(policy) || json_integer_value(policy) != GATE_POLICY_VERSION) {
    char got[32] = "missing";
    if (json_is_integer(policy)) snprintf(got, sizeof got, "%lld", (long long)json_integer_value(policy));
    rc = fail(err, errlen,
              "%s: field policy_version: %s, where this gate decides under policy %d: the trends were decided by "
              "another gate's rule; write the file again with this `gate trends --json` (ci/report.sh does)",
              path, got, GATE_POLICY_VERSION);
  } else if (!(hs = field(&r, root, "", "histories", JSON_ARRAY))) {
    rc = 1;
  } else {
    *n = json_array_size(hs);
    *out = calloc(*n + 1, sizeof **out);
    for (size_t i = 0; i < *n && !rc; i++) rc = read_history(&r, json_array_get(hs, i), i, &(*out)[i]);
  }
  json_decref(root);
  if (rc) {
    trends_free(*out, *n);
    *out = NULL, *n = 0;
  }
  return rc;
}

void trends_free(trend_history *h, size_t n) {
  for (size_t i = 0; h && i < n; i++) trend_history_free(&h[i]);
  free(h);
}
