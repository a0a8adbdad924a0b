/* gate history: appends a row per benchmark of an accepted run to <history_dir>/<gpu-slug>.csv. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/gate_cli.h"
#include "perf/gate/iso_date.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The within-run spread of one benchmark's samples: their interquartile range over the run's time. The history's
 * column noise keeps its historical name and holds it. */
static double relative_iqr(const gate_measure *m) {
  double *s = malloc(m->nsamples * sizeof *s);
  memcpy(s, m->samples_ns, m->nsamples * sizeof *s);
  qsort(s, m->nsamples, sizeof *s, cmp_double);
  double r = (s[(3 * (m->nsamples - 1)) / 4] - s[(m->nsamples - 1) / 4]) / m->time_ns;
  free(s);
  return r;
}

/* One field of the verdicts file that must equal the run's: 0 when it does. */
static int same_as_run(const char *vpath, const char *rpath, json_t *v, const char *obj, const char *key,
                       const char *want) {
  const char *got = json_string_value(json_object_get(json_object_get(v, obj), key));
  if (!got) {
    fprintf(stderr,
            "gate: %s: field %s.%s: missing: this verdicts file does not say which run it judged (made "
            "before gate check wrote it); re-run gate check to make the verdicts of %s\n",
            vpath, obj, key, rpath);
    return 1;
  }
  if (strcmp(got, want) != 0) {
    fprintf(stderr,
            "gate: %s is not the verdicts of %s: field %s.%s is '%s' there and '%s' in the run; give the "
            "verdicts.json that gate check wrote beside this run JSON\n",
            vpath, rpath, obj, key, got, want);
    return 1;
  }
  return 0;
}

/* Exits 2 on a verdict's field that is not what gate check writes: read as absent, a name of 5 or a verdict of null
 * made an "unknown" row, and "fails": "true" an accepted run. */
static void bad_verdict(const char *vpath, size_t i, const char *key, const char *want) {
  fprintf(stderr,
          "gate: %s: field verdicts[%zu]%s%s: expected %s: give the verdicts.json that gate check wrote for this run; "
          "nothing was appended\n",
          vpath, i, *key ? "." : "", key, want);
  exit(EXIT_BAD_INPUT);
}

/* The verdicts file of this run, or exits 2: another run's verdicts would be recorded as
 * this run's. Returns its "verdicts" array (owned by *root). */
static json_t *load_verdicts(const char *vpath, const char *rpath, const gate_figures *run, json_t **root) {
  char err[1024];
  json_t *v = load_json_object(vpath, err, sizeof err);
  if (!v) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  json_t *list = json_object_get(v, "verdicts");
  if (!json_is_array(list)) {
    fprintf(stderr, "gate: %s: field verdicts: expected the array gate check writes%s\n", vpath,
            list ? "" : ", missing");
    exit(EXIT_BAD_INPUT);
  }
  if (same_as_run(vpath, rpath, v, "gpu", "name", run->gpu.name) ||
      same_as_run(vpath, rpath, v, "run", "date", run->runs[0].date) ||
      same_as_run(vpath, rpath, v, "run", "host", run->runs[0].host))
    exit(EXIT_BAD_INPUT);
  /* The history holds accepted runs: a gate check that failed, against the baseline or A/B, adds no row (#56 D18: a
   * failed A/B check's verdicts could be appended). */
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *e = json_array_get(list, i), *fails = json_object_get(e, "fails"), *t = json_object_get(e, "threshold");
    if (!json_is_object(e)) bad_verdict(vpath, i, "", "an object");
    if (!json_is_string(json_object_get(e, "name"))) bad_verdict(vpath, i, "name", "the benchmark's name, a string");
    if (!json_is_string(json_object_get(e, "verdict"))) bad_verdict(vpath, i, "verdict", "a string");
    if (fails && !json_is_boolean(fails)) bad_verdict(vpath, i, "fails", "true or false");
    if (t && !(json_is_number(t) && json_number_value(t) >= 0 && isfinite(json_number_value(t))))
      bad_verdict(vpath, i, "threshold", "a number >= 0");
    if (json_is_true(fails)) {
      fprintf(stderr,
              "gate: %s: verdicts[%zu] (%s) fails the gate: the history holds accepted runs only; nothing "
              "was appended\n",
              vpath, i, json_string_value(json_object_get(e, "name")));
      exit(EXIT_BAD_INPUT);
    }
  }
  *root = v;
  return list;
}

/* History rows are plain CSV, not quoted (plots/ reads them so), and the file is only ever
 * appended to: a comma, double quote, line break or other control character in a field, or
 * a number that is not finite, would break every later render. Exits 2 naming the field. */
static void csv_text(const char *file, const char *field, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p == ',' || *p == '"' || *p < 0x20 || *p == 0x7f) {
      fprintf(stderr,
              "gate: %s: field %s: '%s' holds a comma, double quote, line break or control character, which "
              "would break the history's CSV rows; fix the field and re-run\n",
              file, field, s);
      exit(EXIT_BAD_INPUT);
    }
}

static void csv_number(const char *file, const char *bench, const char *field, double x) {
  if (isfinite(x)) return;
  fprintf(stderr,
          "gate: %s: %s: field %s: %g is not a finite number, which the history cannot plot; re-run the "
          "benchmark\n",
          file, bench, field, x);
  exit(EXIT_BAD_INPUT);
}

/* The threshold the gate applied to one benchmark, as verdicts.json has it ("" for a new or missing one):
 * the history and its charts read it, never recompute it. */
static void threshold_of(json_t *list, const char *bench, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t j = 0; j < json_array_size(list); j++) {
    json_t *e = json_array_get(list, j);
    const char *name = json_string_value(json_object_get(e, "name"));
    json_t *t = json_object_get(e, "threshold");
    if (name && strcmp(name, bench) == 0 && json_is_number(t) && isfinite(json_number_value(t)))
      snprintf(buf, len, "%.9g", json_number_value(t)); /* as verdicts.json has it: the chart's band is it */
  }
}

/* The verdict of one benchmark in the verdicts file (load_verdicts checked its fields); exits 2 when it has none or
 * two: gate check writes one per benchmark of the run, so those are not this run's verdicts. */
static const char *verdict_of(const char *vpath, const char *rpath, json_t *list, const char *bench) {
  const char *verdict = NULL;
  for (size_t j = 0; j < json_array_size(list); j++) {
    json_t *e = json_array_get(list, j);
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *said = json_string_value(json_object_get(e, "verdict"));
    if (strcmp(name, bench) != 0) continue;
    if (verdict) {
      fprintf(stderr,
              "gate: %s: field verdicts[%zu].name: a second verdict of %s; give the verdicts.json that gate "
              "check wrote for this run; nothing was appended\n",
              vpath, j, bench);
      exit(EXIT_BAD_INPUT);
    }
    char field[64];
    snprintf(field, sizeof field, "verdicts[%zu].verdict", j);
    csv_text(vpath, field, said);
    /* The renderer (plots/) refuses a whole history file over one verdict it does not know. */
    static const char *const kWords[] = {"faster", "same", "slower", "new", "missing", "unchanged"};
    size_t w = 0;
    while (w < sizeof kWords / sizeof *kWords && strcmp(said, kWords[w]) != 0) w++;
    if (w == sizeof kWords / sizeof *kWords) {
      fprintf(stderr,
              "gate: %s: field %s: '%s' is not a verdict (faster, same, slower, new, missing or unchanged), and the "
              "history's renderer would refuse the whole file over it; give the verdicts.json that gate check "
              "wrote for this run\n",
              vpath, field, said);
      exit(EXIT_BAD_INPUT);
    }
    verdict = said;
  }
  if (!verdict) {
    fprintf(stderr,
            "gate: %s: field verdicts: no verdict of %s, a benchmark of %s: not the verdicts gate check wrote for "
            "this run? Give those; nothing was appended\n",
            vpath, bench, rpath);
    exit(EXIT_BAD_INPUT);
  }
  return verdict;
}

/* A stream writing into a growing text (open_memstream); out of memory ends the command. */
static FILE *text_buffer(char **text, size_t *len) {
  FILE *mem = open_memstream(text, len);
  if (!mem) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  return mem;
}

/* A row per benchmark: date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,threshold,
 * testbed. */
static char *csv_rows(const gate_figures *run, const char *rpath, json_t *list, const char *vpath, size_t *len) {
  const gate_run_info *info = &run->runs[0];
  csv_text(rpath, "context.date", info->date);
  csv_text(rpath, "context.commit", info->commit);
  csv_text(rpath, "context.testbed", info->testbed);
  char *rows = NULL;
  FILE *mem = text_buffer(&rows, len);
  for (size_t i = 0; i < run->n; i++) {
    const gate_bench *b = &run->b[i];
    csv_text(rpath, "benchmarks[].name", b->name);
    double spread = relative_iqr(&b->runs[0]); /* the column noise */
    /* The column median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
    csv_number(rpath, b->name, "median_ns", b->runs[0].time_ns);
    csv_number(rpath, b->name, "bytes_per_second", b->bytes_per_second);
    csv_number(rpath, b->name, "noise (interquartile range / median)", spread);
    char threshold[32];
    threshold_of(list, b->name, threshold, sizeof threshold);
    fprintf(mem, "%s,%s,%s,%s,%.6g,%.6g,%.4g,%s,%s,%s,%s\n", info->date, info->commit, run->gpu.slug, b->name,
            b->runs[0].time_ns, b->bytes_per_second, spread, verdict_of(vpath, rpath, list, b->name), info->l2_flush,
            threshold, info->testbed);
  }
  if (fclose(mem) != 0) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  return rows;
}

/* A file begun before the l2_flush field keeps its 8-field header; the renderer reads its
 * 8-field rows as the memset ("write") flush and the 9-field ones as said. */
static const char kHeader8[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict\n";
static const char kHeader9[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n";
/* Since testbeds: the threshold each verdict applied and the run's testbed. A file of 8 or 9 fields gains
 * them at its next append, its old rows with both empty (and an 8-field row its "write" flush). */
static const char kHeader11[] =
    "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,threshold,testbed\n";

/* An existing history file must start with a known header (else it is not a history file) and
 * hold only whole rows of as many fields as the renderer (plots/) wants: 9 under the 9-field
 * header, 8 or 9 under the 8-field one. A last row without its line break, or a row of the wrong
 * field count, is a cut or hand-edited row: appending after it would keep it, and the renderer
 * refuses the whole file. Lines may end in CRLF (the renderer reads both); *crlf says whether the
 * header does, so that new rows match it. 1 when fine, else 0 after saying why and what to do. */
static int appendable(const char *path, const char *text, size_t len, int *crlf, int *fields) {
  if (text[len - 1] != '\n') {
    fprintf(stderr,
            "gate: %s does not end in a line break (a cut last row?): appending would join rows; complete or "
            "remove its last line by hand (the rows before it are kept), then re-run\n",
            path);
    return 0;
  }
  const char *eol = memchr(text, '\n', len);
  size_t head = (size_t)(eol - text);
  *crlf = head > 0 && text[head - 1] == '\r';
  head -= (size_t)*crlf;
  int v2 = head == strlen(kHeader9) - 1 && !strncmp(text, kHeader9, head);
  int v3 = head == strlen(kHeader11) - 1 && !strncmp(text, kHeader11, head);
  *fields = v3 ? 11 : v2 ? 9 : 8;
  if (!v2 && !v3 && !(head == strlen(kHeader8) - 1 && !strncmp(text, kHeader8, head))) {
    fprintf(stderr,
            "gate: %s: its first line is not a history header (want '%.*s' with or without ',l2_flush'): "
            "not a history file? Move it away or fix its first line\n",
            path, (int)strlen(kHeader8) - 1, kHeader8);
    return 0;
  }
  size_t lineno = 1;
  for (const char *line = eol + 1; line < text + len; line = eol + 1) {
    eol = memchr(line, '\n', (size_t)(text + len - line));
    lineno++;
    size_t n = (size_t)(eol - line), commas = 0;
    if (n > 0 && line[n - 1] == '\r') n--;
    if (n == 0) continue; /* the renderer skips empty lines */
    for (size_t k = 0; k < n; k++) commas += line[k] == ',';
    if (v3 ? commas != 10 : (commas != 8 && (v2 || commas != 7))) {
      fprintf(stderr,
              "gate: %s: line %zu has %zu fields where the header wants %s (a cut or hand-edited row?): the "
              "renderer would refuse the file; remove or complete that line by hand, then re-run\n",
              path, lineno, commas + 1,
              v3       ? "11"
                  : v2 ? "9"
                       : "8 or 9");
      return 0;
    }
  }
  return 1;
}

/* A run is appended once: a row of the file with a new row's date, commit, GPU and benchmark is that run's, and a
 * second copy would count it twice in every trend (#56 D16: a re-run job appended 60 rows again). 1 after saying
 * so, else 0. */
static int already_there(const char *path, const char *old, size_t old_len, const char *rows, size_t len) {
  for (const char *row = rows; row < rows + len;) {
    const char *eol = memchr(row, '\n', (size_t)(rows + len - row));
    const char *key_end = row;
    for (int commas = 0; commas < 4 && key_end < eol; key_end++) commas += *key_end == ',';
    size_t key = (size_t)(key_end - row);
    for (const char *at = old; (at = memmem(at, (size_t)(old + old_len - at), row, key)) != NULL; at++)
      if (at == old || at[-1] == '\n') {
        fprintf(stderr,
                "gate: %s already holds this run's rows (%.*s...): a run is appended once; nothing was "
                "appended\n",
                path, (int)key, row);
        return 1;
      }
    row = eol + 1;
  }
  return 0;
}

/* An 8- or 9-field history (appendable) as an 11-field one: the new header, and each row with empty
 * threshold and testbed fields (an 8-field row first gains its "write" flush), in its own line ends. */
static void upgrade(char **text, size_t *len, int fields) {
  char *out = NULL;
  size_t out_len = 0;
  FILE *mem = text_buffer(&out, &out_len);
  const char *end = *text + *len, *line = *text;
  for (int first = 1; line < end; first = 0) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    size_t n = (size_t)(eol - line), commas = 0;
    int cr = n > 0 && line[n - 1] == '\r';
    n -= (size_t)cr;
    for (size_t k = 0; k < n; k++) commas += line[k] == ',';
    if (first)
      fwrite(kHeader11, 1, strlen(kHeader11) - 1, mem);
    else
      fwrite(line, 1, n, mem);
    if (!first && n > 0) fputs(fields == 8 && commas == 7 ? ",write,," : ",,", mem);
    fputs(cr ? "\r\n" : "\n", mem);
    line = eol + 1;
  }
  if (fclose(mem) != 0) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  free(*text);
  *text = out;
  *len = out_len;
}

static int write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The whole of path in *text (NUL-terminated) and its mode; 0, or -1 with errno. A missing
 * file reads as empty. */
static int read_whole(const char *path, char **text, size_t *len, mode_t *mode) {
  *text = NULL;
  *len = 0;
  *mode = 0644;
  FILE *mem = open_memstream(text, len);
  if (!mem) return -1;
  FILE *f = fopen(path, "re");
  int e = f || errno == ENOENT ? 0 : errno;
  struct stat st;
  if (f && fstat(fileno(f), &st) == 0) {
    *mode = st.st_mode & 0777;
    if (S_ISDIR(st.st_mode)) e = EISDIR; /* fopen opens a folder; its read then failed, said as EIO */
  }
  char chunk[65536];
  size_t got;
  while (f && !e && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (fwrite(chunk, 1, got, mem) != got) e = ENOMEM;
  if (f && ferror(f)) e = EIO;
  if (f) fclose(f);
  if (fclose(mem) != 0 && !e) e = ENOMEM;
  if (e) {
    free(*text);
    errno = e;
    return -1;
  }
  return 0;
}

/* Appends rows all or nothing: under an exclusive flock of the history folder (concurrent appends
 * take turns, neither is lost), the old file and the new rows go to a temporary file in the same
 * folder, which is flushed to disk, checked for size and renamed over the old one. A failed write
 * (a full disk) leaves the old file as it was and no temporary file. 0, or 1 after saying why. */
static int append_rows(const char *dir, const char *path, const char *rows, size_t len) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    fprintf(stderr, "gate: cannot open the history folder %s: %s\n", dir, strerror(errno));
    return 1;
  }
  while (flock(dfd, LOCK_EX) != 0)
    if (errno != EINTR) {
      fprintf(stderr, "gate: cannot lock the history folder %s: %s\n", dir, strerror(errno));
      close(dfd);
      return 1;
    }
  char *old;
  size_t old_len;
  mode_t mode;
  int crlf = 0;
  if (read_whole(path, &old, &old_len, &mode) != 0) {
    if (errno == EISDIR)
      fprintf(stderr, "gate: %s: a folder, not a history file: move it away, then re-run\n", path);
    else
      fprintf(stderr, "gate: cannot read %s: %s; fix its permissions or move it away, then re-run\n", path,
              strerror(errno));
    close(dfd);
    return 1;
  }
  int fields = 11;
  if (old_len > 0 && !appendable(path, old, old_len, &crlf, &fields)) {
    free(old);
    close(dfd);
    return 1;
  }
  if (old_len > 0 && already_there(path, old, old_len, rows, len)) {
    free(old);
    close(dfd);
    return 1;
  }
  if (old_len > 0 && fields != 11) upgrade(&old, &old_len, fields);
  /* The new file's text after the old: the header when there was none, the rows in the old file's line ends. */
  char *add = NULL;
  size_t add_len = 0;
  FILE *mem = text_buffer(&add, &add_len);
  if (old_len == 0) fputs(kHeader11, mem);
  for (size_t i = 0; i < len; i++) {
    if (crlf && rows[i] == '\n') fputc('\r', mem);
    fputc(rows[i], mem);
  }
  if (fclose(mem) != 0) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  char tmp[4400];
  format_path(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int e = 0, fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  struct stat st;
  if (fd < 0) e = errno;
  if (!e && (write_all(fd, old, old_len) != 0 || write_all(fd, add, add_len) != 0)) e = errno;
  if (!e && fsync(fd) != 0) e = errno;
  if (!e && fstat(fd, &st) != 0) e = errno;
  if (!e && (size_t)st.st_size != old_len + add_len) e = EIO;
  if (fd >= 0 && close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) {
    if (fd >= 0) unlink(tmp);
    fprintf(stderr,
            "gate: appending to %s failed (writing %s: %s): nothing was appended, the file is as it was; "
            "free disk space or fix the folder's permissions, then re-run\n",
            path, tmp, strerror(e));
  } else {
    fsync(dfd); /* the rename itself on disk */
  }
  free(old);
  free(add);
  close(dfd);
  return e != 0;
}

int cmd_history(options *o) {
  if (!o->history_dir || !o->verdicts || o->nrest != 1)
    usage("history needs --history_dir, --verdicts and one RUN.json");
  if (!*o->history_dir) usage("--history_dir= is empty: give the folder of the history files (baselines/history)");
  if (!*o->verdicts) usage("--verdicts= is empty: give the verdicts.json gate check wrote for RUN.json");
  char b1[4096], b2[4096], b3[4096], path[4300];
  gate_figures run;
  const char *run_path = user_path(o->rest[0], b1, sizeof b1);
  load_or_die(run_path, &run, 0);
  /* The history's readers refuse a row whose date is not one (it orders the rows): never write one. */
  time_t when;
  if (iso_date_time(run.runs[0].date, &when) != 0) {
    fprintf(stderr,
            "gate: %s: field context.date: '%s' is not a date as the runner writes it (ISO 8601, such as "
            "2026-11-25T16:52:12+00:00): a hand-edited run file? Re-run the benchmark; nothing was appended\n",
            run_path, run.runs[0].date);
    return EXIT_BAD_INPUT;
  }
  json_t *v;
  json_t *list = load_verdicts(user_path(o->verdicts, b2, sizeof b2), run_path, &run, &v);
  const char *dir = user_path(o->history_dir, b3, sizeof b3);
  char link[4300], err[1024];
  format_path(link, sizeof link, "%s/%s.csv", dir, run.gpu.slug);
  if (write_target(link, path, sizeof path, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  size_t len;
  char *rows = csv_rows(&run, run_path, list, o->verdicts, &len);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "gate: cannot create the history folder %s: %s\n", dir, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  if (append_rows(dir, path, rows, len)) return EXIT_BAD_INPUT;
  printf("Appended %zu rows to %s\n", run.n, path);
  free(rows);
  json_decref(v);
  free_figures(&run);
  return EXIT_PASS;
}
