#define _GNU_SOURCE
#include "perf/gate/history_csv.h"
#include "perf/common/fail.h"
#include "perf/common/physical_time.h"
#include "perf/gate/iso_date.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The column median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
const char *const kHistoryNeeds[] = {"date", "commit", "benchmark", "median_ns", NULL};

static const char kWritten[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush";

#define MAX_COLUMNS 64

/* The header's column names, cut in place; how many, or 0 when there are too many. */
static size_t split(char *line, char **field, size_t max) {
  size_t n = 0;
  char *cursor = line;
  while (cursor) {
    if (n == max) return max + 1;
    field[n++] = strsep(&cursor, ",");
  }
  return n;
}

static int column_of(char **names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return (int)i;
  return -1;
}

/* A number field: positive (or non-negative), or "" for NAN where empty is allowed. */
static int number(const char *path, size_t line, const char *name, const char *s, int positive, int empty_ok,
                  double *out, char *err, size_t errlen) {
  if (!*s && empty_ok) {
    *out = NAN;
    return 0;
  }
  char *end = NULL;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(x) || (positive ? !(x > 0) : x < 0))
    return fail(err, errlen, "%s: line %zu: field %s: expected a %s number, got '%s'; fix or remove that row", path,
                line, name, positive ? "positive" : "non-negative", s);
  *out = x;
  return 0;
}

typedef struct {
  int date, commit, gpu, bench, time_ns, bps, spread, verdict, flush, testbed, threshold;
  size_t ncolumns;
  int legacy; /* an 8-name header (no l2_flush): a row may carry l2_flush as one more field */
} layout;

static int parse_row(const char *path, size_t line, char *text, const layout *c, history_entry *r, char *err,
                     size_t errlen) {
  char *f[MAX_COLUMNS + 2];
  size_t n = split(text, f, MAX_COLUMNS + 1);
  if (n != c->ncolumns && !(c->legacy && n == c->ncolumns + 1))
    return fail(err, errlen,
                "%s: line %zu: expected %s%zu comma-separated fields (as its header: %s), got %zu; fix "
                "or remove that row (a cut last row? a comma in a name?)",
                path, line, c->legacy ? "8 or " : "", c->ncolumns + c->legacy, kWritten, n);
  const char *none = "";
  *r = (history_entry){.line = line,
                       .date = none,
                       .commit = none,
                       .gpu = none,
                       .bench = none,
                       .verdict = none,
                       .l2_flush = "write",
                       .testbed = none,
                       .time_ns = NAN,
                       .bytes_per_second = NAN,
                       .spread = NAN,
                       .threshold = NAN};
  struct {
    int col;
    const char *name, **dst;
  } text_fields[] = {
      {c->date, "date", &r->date},         {c->commit, "commit", &r->commit},    {c->gpu, "gpu", &r->gpu},
      {c->bench, "benchmark", &r->bench},  {c->verdict, "verdict", &r->verdict}, {c->flush, "l2_flush", &r->l2_flush},
      {c->testbed, "testbed", &r->testbed}};
  for (size_t k = 0; k < sizeof text_fields / sizeof *text_fields; k++) {
    int col = text_fields[k].col;
    if (col < 0) continue;
    if (!*f[col] && strcmp(text_fields[k].name, "testbed"))
      return fail(err, errlen, "%s: line %zu: field %s: empty; fix or remove that row", path, line,
                  text_fields[k].name);
    *text_fields[k].dst = f[col];
  }
  if (c->legacy && n == c->ncolumns + 1) r->l2_flush = f[n - 1];
  if ((c->time_ns >= 0 && number(path, line, "median_ns", f[c->time_ns], 1, 0, &r->time_ns, err, errlen)) ||
      (c->bps >= 0 && number(path, line, "bytes_per_second", f[c->bps], 1, 0, &r->bytes_per_second, err, errlen)) ||
      (c->spread >= 0 && number(path, line, "noise", f[c->spread], 0, 0, &r->spread, err, errlen)) ||
      (c->threshold >= 0 && number(path, line, "threshold", f[c->threshold], 0, 1, &r->threshold, err, errlen)))
    return 1;
  /* A row's time is a run's, which the gate read within these bounds: 1e300 ns would flatten every chart and
   * trend of its series. */
  if (c->time_ns >= 0 && !(r->time_ns >= MIN_PHYSICAL_NS && r->time_ns <= MAX_PHYSICAL_NS))
    return fail(err, errlen,
                "%s: line %zu: field median_ns: %g ns is not a time the gate measures (%g ns to %g s, as in the run "
                "files it comes from); fix or remove that row",
                path, line, r->time_ns, MIN_PHYSICAL_NS, MAX_PHYSICAL_NS / 1e9);
  return 0;
}

/* The longest line a history holds: a row is some 200 characters, a header of MAX_COLUMNS names far less. */
#define MAX_LINE 65536

/* The whole file, NUL-terminated. A NUL byte in it (where the line parser would stop and drop every later row), a
 * line longer than MAX_LINE, something other than a regular file (/dev/zero, read forever) and running out of memory
 * are errors, never a crash or a file read in part. */
static int read_all(const char *path, char **text, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
    fclose(f);
    return fail(err, errlen, "%s: not a regular file (%s): give a history CSV (baselines/history/<gpu>.csv)", path,
                S_ISDIR(st.st_mode) ? "a folder" : "a device, pipe or socket");
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len - 1 == 0) {
      char *more = realloc(buf, cap *= 2);
      if (!more) free(buf);
      buf = more;
    }
  }
  int bad = ferror(f), e = errno;
  fclose(f);
  if (!buf) return fail(err, errlen, "%s: out of memory after %zu bytes of it: is it a history file?", path, len);
  if (bad) {
    free(buf);
    return fail(err, errlen, "%s: cannot read: %s", path, strerror(e));
  }
  buf[len] = '\0';
  size_t line = 1, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && buf[i] == '\0') {
      free(buf);
      return fail(err, errlen,
                  "%s: line %zu: a NUL byte (at offset %zu of the file), which no history row holds: a damaged file? "
                  "Restore it from git, or fix or remove that row",
                  path, line, i);
    }
    if (i < len && buf[i] != '\n') continue;
    if (i - start > MAX_LINE) {
      free(buf);
      return fail(err, errlen,
                  "%s: line %zu: %zu characters, more than a history row has (at most %d): is it a history file?", path,
                  line, i - start, MAX_LINE);
    }
    line++;
    start = i + 1;
  }
  *text = buf;
  return 0;
}

/* Orders row indices by date, commit, GPU and benchmark, then line, for the duplicate check below. */
static const history_entry *key_rows;

static int by_key(const void *a, const void *b) {
  const history_entry *x = &key_rows[*(const size_t *)a], *y = &key_rows[*(const size_t *)b];
  int c = strcmp(x->date, y->date);
  if (!c) c = strcmp(x->commit, y->commit);
  if (!c) c = strcmp(x->gpu, y->gpu);
  if (!c) c = strcmp(x->bench, y->bench);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A run's row of a benchmark once: gate history appends a run once (the same date, commit, GPU and benchmark), and a
 * second copy counted that run twice in every trend. 0; 1 after naming both lines; -1 out of memory. */
static int rows_distinct(const char *path, const history_table *t, char *err, size_t errlen) {
  size_t *order = malloc((t->n + 1) * sizeof *order);
  if (!order) return -1;
  for (size_t i = 0; i < t->n; i++) order[i] = i;
  key_rows = t->r;
  qsort(order, t->n, sizeof *order, by_key);
  int rc = 0;
  for (size_t k = 1; k < t->n && !rc; k++) {
    const history_entry *x = &t->r[order[k - 1]], *y = &t->r[order[k]];
    if (!strcmp(x->date, y->date) && !strcmp(x->commit, y->commit) && !strcmp(x->gpu, y->gpu) &&
        !strcmp(x->bench, y->bench))
      rc = fail(err, errlen,
                "%s: line %zu: the row of line %zu again (date %s, commit %s, gpu %s, benchmark %s): one run counted "
                "twice; remove one of the two lines",
                path, y->line, x->line, y->date, y->commit, y->gpu, y->bench);
  }
  free(order);
  return rc;
}

/* 1 when s holds nothing but line ends: the line before it was the file's last. */
static int only_line_ends(const char *s) { return s[strspn(s, "\r\n")] == '\0'; }

/* TESTBED_BEFORE_THE_FIELD: rows written before the testbed column (or with it empty) join the series of the one
 * testbed their benchmark and L2 flush method have in the file: they were measured there, before it was named. A
 * series split at the boundary hid a +6 % step made there, 0 change points and 0 creep (#56 W09). With rows of
 * several testbeds no one can tell which: they stay a series of their own. */
static const history_entry *adopt_rows;

static int by_bench_and_flush(const void *a, const void *b) {
  const history_entry *x = &adopt_rows[*(const size_t *)a], *y = &adopt_rows[*(const size_t *)b];
  int c = strcmp(x->bench, y->bench);
  return c ? c : strcmp(x->l2_flush, y->l2_flush);
}

static int adopt_testbeds(history_table *t) {
  size_t *order = malloc((t->n + 1) * sizeof *order);
  if (!order) return 1;
  for (size_t i = 0; i < t->n; i++) order[i] = i;
  adopt_rows = t->r;
  qsort(order, t->n, sizeof *order, by_bench_and_flush);
  for (size_t i = 0, j; i < t->n; i = j) {
    const char *only = NULL;
    int several = 0, unnamed = 0;
    for (j = i; j < t->n && by_bench_and_flush(&order[i], &order[j]) == 0; j++) {
      const char *tb = t->r[order[j]].testbed;
      if (!tb[0])
        unnamed = 1;
      else if (!only)
        only = tb;
      else
        several |= strcmp(only, tb) != 0;
    }
    for (size_t k = i; k < j && only && unnamed && !several; k++)
      if (!t->r[order[k]].testbed[0]) t->r[order[k]].testbed = only;
  }
  free(order);
  return 0;
}

static int load_table(const char *path, const char *const *needs, int to_cut, history_table *t, char *err,
                      size_t errlen) {
  memset(t, 0, sizeof *t);
  if (!needs) needs = kHistoryNeeds;
  if (read_all(path, &t->text, err, errlen)) return 1;
  char *cursor = t->text, *line = strsep(&cursor, "\n");
  size_t len = strlen(line);
  if (len && line[len - 1] == '\r') line[len - 1] = '\0';
  if (!*line && !cursor) {
    history_table_free(t);
    return fail(err, errlen,
                "%s: empty file; expected the header '%s' and one row per benchmark and run (appended "
                "by `gate history`)",
                path, kWritten);
  }
  char shown[160];
  snprintf(shown, sizeof shown, "%s", line);
  char *names[MAX_COLUMNS + 1];
  size_t ncol = split(line, names, MAX_COLUMNS);
  layout c = {.ncolumns = ncol};
  int *slot[] = {&c.date,   &c.commit,  &c.gpu,   &c.bench,   &c.time_ns,  &c.bps,
                 &c.spread, &c.verdict, &c.flush, &c.testbed, &c.threshold};
  static const char *kNames[] = {"date",  "commit",  "gpu",      "benchmark", "median_ns", "bytes_per_second",
                                 "noise", "verdict", "l2_flush", "testbed",   "threshold"};
  for (size_t k = 0; k < sizeof kNames / sizeof *kNames; k++)
    *slot[k] = ncol <= MAX_COLUMNS ? column_of(names, ncol, kNames[k]) : -1;
  for (size_t k = 0; needs[k]; k++)
    if (ncol > MAX_COLUMNS || column_of(names, ncol, needs[k]) < 0) {
      history_table_free(t);
      return fail(err, errlen,
                  "%s: line 1: expected the header '%s' (written by gate history; more columns may "
                  "follow), got '%s': no column '%s'. Is this a history file?",
                  path, kWritten, shown, needs[k]);
    }
  c.legacy = c.flush < 0;
  t->has_threshold = c.threshold >= 0;
  t->has_spread = c.spread >= 0;
  t->has_testbed = c.testbed >= 0;
  size_t alloc = 0, lineno = 1;
  while (cursor) {
    line = strsep(&cursor, "\n");
    lineno++;
    len = strlen(line);
    if (len && line[len - 1] == '\r') line[--len] = '\0';
    if (!len) continue;
    if (t->n == alloc) {
      history_entry *more = realloc(t->r, (alloc = alloc ? 2 * alloc : 256) * sizeof *t->r);
      if (!more) {
        history_table_free(t);
        return fail(err, errlen, "%s: line %zu: out of memory for its rows", path, lineno);
      }
      t->r = more;
    }
    int last = !cursor || only_line_ends(cursor), no_newline = !cursor;
    if (to_cut && last && t->n) {
      /* A cut last row: no newline after it (gate history ends every row with one), or too few or many
       * fields. Counted before parse_row cuts the line apart. */
      size_t fields = 1;
      for (const char *p = line; *p; p++) fields += *p == ',';
      int wrong = fields != c.ncolumns && !(c.legacy && fields == c.ncolumns + 1);
      if (no_newline || wrong) {
        snprintf(t->skipped, sizeof t->skipped,
                 "%s: line %zu: left out, a cut last row (%s; a write stopped "
                 "short?): the %zu rows before it are read; complete or remove that row (gate history will not "
                 "append after it)",
                 path, lineno, no_newline ? "no newline at its end" : "a wrong number of fields", t->n);
        break;
      }
    }
    if (parse_row(path, lineno, line, &c, &t->r[t->n], err, errlen)) {
      history_table_free(t);
      return 1;
    }
    /* Dates order the rows (--since, "since the last bless"): gate history writes the run's, which the runner
     * writes as ISO 8601. A run's rows share its date: read once. */
    const char *date = t->r[t->n].date;
    time_t when;
    if (c.date >= 0 && (t->n == 0 || strcmp(date, t->r[t->n - 1].date) != 0) && iso_date_time(date, &when) != 0) {
      fail(err, errlen,
           "%s: line %zu: field date: '%s' is not a date as gate history writes it (the run's ISO 8601 date, such "
           "as 2026-11-25T16:52:12+00:00); fix or remove that row",
           path, lineno, date);
      history_table_free(t);
      return 1;
    }
    t->n++;
  }
  if (!t->n) {
    history_table_free(t);
    return fail(err, errlen, "%s: no rows after the header: no run was recorded yet", path);
  }
  int distinct = rows_distinct(path, t, err, errlen);
  if (distinct) {
    size_t n = t->n;
    history_table_free(t);
    return distinct < 0 ? fail(err, errlen, "%s: out of memory checking its %zu rows", path, n) : 1;
  }
  if (adopt_testbeds(t)) {
    size_t n = t->n;
    history_table_free(t);
    return fail(err, errlen, "%s: out of memory for the series of its %zu rows", path, n);
  }
  return 0;
}

int history_table_load(const char *path, const char *const *needs, history_table *t, char *err, size_t errlen) {
  return load_table(path, needs, 0, t, err, errlen);
}

int history_table_load_to_cut(const char *path, const char *const *needs, history_table *t, char *err, size_t errlen) {
  return load_table(path, needs, 1, t, err, errlen);
}

void history_table_free(history_table *t) {
  free(t->text);
  free(t->r);
  memset(t, 0, sizeof *t);
}

size_t history_read_series(const history_table *t, size_t i, char *done, double *x) {
  if (done[i] || strcmp(t->r[i].l2_flush, "read") != 0) return 0;
  size_t n = 0;
  for (size_t j = i; j < t->n; j++)
    if (!done[j] && !strcmp(t->r[j].bench, t->r[i].bench) && !strcmp(t->r[j].l2_flush, "read")) {
      done[j] = 1;
      x[n++] = t->r[j].time_ns;
    }
  return n;
}
