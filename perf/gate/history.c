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

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Interquartile range over median: the within-run spread of one benchmark's samples. */
static double relative_iqr(const gate_measure *m) {
  double *s = malloc(m->nsamples * sizeof *s);
  memcpy(s, m->samples_ns, m->nsamples * sizeof *s);
  qsort(s, m->nsamples, sizeof *s, cmp_double);
  double r = (s[(3 * (m->nsamples - 1)) / 4] - s[(m->nsamples - 1) / 4]) / m->median_ns;
  free(s);
  return r;
}

/* One field of the verdicts file that must equal the run's: 0 when it does. */
static int same_as_run(const char *vpath, const char *rpath, json_t *v, const char *obj, const char *key,
                       const char *want) {
  const char *got = json_string_value(json_object_get(json_object_get(v, obj), key));
  if (!got) {
    fprintf(stderr, "gate: %s: field %s.%s: missing: this verdicts file does not say which run it judged (made "
            "before gate check wrote it); re-run gate check to make the verdicts of %s\n", vpath, obj, key, rpath);
    return 1;
  }
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "gate: %s is not the verdicts of %s: field %s.%s is '%s' there and '%s' in the run; give the "
            "verdicts.json that gate check wrote beside this run JSON\n", vpath, rpath, obj, key, got, want);
    return 1;
  }
  return 0;
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
  *root = v;
  return list;
}

int cmd_history(options *o) {
  if (!o->history_dir || !o->verdicts || o->nrest != 1) usage("history needs --history_dir, --verdicts and one RUN.json");
  char b1[4096], b2[4096], b3[4096], path[4300];
  gate_figures run;
  const char *run_path = user_path(o->rest[0], b1, sizeof b1);
  load_or_die(run_path, &run, 0);
  json_t *v;
  json_t *list = load_verdicts(user_path(o->verdicts, b2, sizeof b2), run_path, &run, &v);
  const char *dir = user_path(o->history_dir, b3, sizeof b3);
  format_path(path, sizeof path, "%s/%s.csv", dir, run.gpu.slug);
  char *rows = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&rows, &len);
  if (!mem) {
    fprintf(stderr, "gate: out of memory\n");
    return EXIT_BAD_INPUT;
  }
  for (size_t i = 0; i < run.n; i++) {
    const char *verdict = "unknown";
    for (size_t j = 0; j < json_array_size(list); j++) {
      json_t *e = json_array_get(list, j);
      const char *name = json_string_value(json_object_get(e, "name"));
      const char *said = json_string_value(json_object_get(e, "verdict"));
      if (name && said && !strcmp(name, run.b[i].name)) verdict = said;
    }
    fprintf(mem, "%s,%s,%s,%s,%.6g,%.6g,%.4g,%s,%s\n", run.runs[0].date, run.runs[0].commit, run.gpu.slug,
            run.b[i].name, run.b[i].runs[0].median_ns, run.b[i].bytes_per_second, relative_iqr(&run.b[i].runs[0]),
            verdict, run.runs[0].l2_flush);
  }
  fclose(mem);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "gate: cannot create the history folder %s: %s\n", dir, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  /* One locked O_APPEND write: earlier rows are never touched, concurrent writers never interleave. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    fprintf(stderr, "gate: cannot open %s for appending: %s\n", path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  struct stat st;
  /* A file begun before the l2_flush field keeps its 8-field header; the renderer
   * reads its 8-field rows as the memset ("write") flush and the 9-field ones as said. */
  static const char header[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n";
  int ok = fstat(fd, &st) == 0;
  if (ok && st.st_size == 0) ok = write(fd, header, sizeof header - 1) == (ssize_t)(sizeof header - 1);
  ok = ok && write(fd, rows, len) == (ssize_t)len && fsync(fd) == 0;
  flock(fd, LOCK_UN);
  close(fd);
  if (!ok) {
    fprintf(stderr, "gate: appending to %s failed: %s\n", path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  printf("Appended %zu rows to %s\n", run.n, path);
  free(rows);
  json_decref(v);
  free_figures(&run);
  return EXIT_PASS;
}
