/* gate testbeds: which testbeds a baseline holds runs of (ci/gate.sh asks whether this runner's is
 * among them), and --label, which names the testbed of runs made before the field (a migration). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/gate_cli.h"

static int by_testbed_then_gpu(const void *a, const void *b) {
  const gate_run_info *x = *(const gate_run_info *const *)a, *y = *(const gate_run_info *const *)b;
  int c = strcmp(x->testbed, y->testbed);
  return c ? c : strcmp(x->gpu_uuid, y->gpu_uuid);
}

/* Prints "RUNS<TAB>GPUS<TAB>TESTBED" per testbed, in order of first appearance ("" as "(none)"). The runs
 * counted in one sort: comparing each run with every earlier one took 3.6 s at 100 x today's runs (#56). */
static void list(const gate_figures *f) {
  const gate_run_info **sorted = malloc((f->nruns + 1) * sizeof *sorted);
  for (size_t i = 0; i < f->nruns; i++) sorted[i] = &f->runs[i];
  qsort(sorted, f->nruns, sizeof *sorted, by_testbed_then_gpu);
  const char **shown = malloc((f->nruns + 1) * sizeof *shown); /* the testbeds printed: few */
  size_t nshown = 0;
  for (size_t i = 0; i < f->nruns; i++) {
    const char *tb = f->runs[i].testbed;
    int seen = 0;
    for (size_t s = 0; s < nshown && !seen; s++) seen = strcmp(shown[s], tb) == 0;
    if (seen) continue;
    shown[nshown++] = tb;
    size_t runs = 0, gpus = 0;
    for (size_t j = 0; j < f->nruns; j++) { /* its runs lie together in the sorted order */
      if (strcmp(sorted[j]->testbed, tb) != 0) continue;
      runs++;
      gpus += runs == 1 || strcmp(sorted[j]->gpu_uuid, sorted[j - 1]->gpu_uuid) != 0;
    }
    printf("%zu\t%zu\t%s\n", runs, gpus, tb[0] ? tb : "(none)");
  }
  free(shown);
  free(sorted);
}

/* The benchmarks of bins[0..n) that f has no run of testbed t of, one per line. */
static void uncovered(const gate_figures *f, const char *t, char **bins, int n) {
  for (int k = 0; k < n; k++) {
    size_t count;
    char **names = list_benchmarks(bins[k], &count);
    for (size_t i = 0; i < count; i++) {
      if (!has_testbed_runs(f, t, names[i])) printf("%s\n", names[i]);
      free(names[i]);
    }
    free(names);
  }
}

/* The baseline at pl read whole; exits 2 saying why. */
static void load_place_or_die(const baseline_place *pl, gate_figures *f) {
  char err[1024];
  if (baseline_load(pl, NULL, f, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
}

int cmd_testbeds(options *o) {
  if (!!o->uncovered_testbed + !!o->has_runs_testbed + !!o->label_testbed > 1) /* else all but one were ignored */
    usage("testbeds takes one of --uncovered, --has_runs and --label: each is a question of its own");
  if (o->uncovered_testbed) {
    /* No binaries would list nothing, read as "every benchmark has runs of TESTBED". */
    if (o->nrest < 2) usage("testbeds --uncovered=TESTBED needs BASELINE.json and one or more benchmark binaries");
    gate_figures f;
    baseline_place pl;
    baseline_place_of(o->rest[0], &pl);
    load_place_or_die(&pl, &f);
    uncovered(&f, o->uncovered_testbed, o->rest + 1, o->nrest - 1);
    free_figures(&f);
    return EXIT_PASS;
  }
  if (o->nrest != 1) usage("testbeds needs one BASELINE.json");
  const char *path = o->rest[0];
  baseline_place pl;
  baseline_place_of(path, &pl);
  if (o->has_runs_testbed) { /* ci/gate.sh: whether to A/B every benchmark (has_testbed_runs decides, as in check) */
    gate_figures f;
    load_place_or_die(&pl, &f);
    int has = has_testbed_runs(&f, o->has_runs_testbed, NULL);
    free_figures(&f);
    return has ? EXIT_PASS : 1;
  }
  if (!o->label_testbed) {
    gate_figures f;
    load_place_or_die(&pl, &f);
    list(&f);
    free_figures(&f);
    return EXIT_PASS;
  }
  char err[1024];
  char *copy = strdup(path);
  int lock = lock_folder(dirname(copy));
  free(copy);
  if (lock < 0) return EXIT_BAD_INPUT;
  gate_figures f;
  load_place_or_die(&pl, &f);
  size_t labelled = 0;
  for (size_t i = 0; i < f.nruns; i++) {
    if (f.runs[i].testbed[0]) continue;
    if (strlen(o->label_testbed) >= sizeof f.runs[i].testbed) {
      fprintf(stderr, "gate: --label=%s: longer than %zu characters\n", o->label_testbed, sizeof f.runs[i].testbed - 1);
      return EXIT_BAD_INPUT;
    }
    snprintf(f.runs[i].testbed, sizeof f.runs[i].testbed, "%s", o->label_testbed);
    labelled++;
  }
  if (labelled && baseline_save(&pl, &f, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  printf("%s: %zu run(s) without a testbed labelled '%s'\n", path, labelled, o->label_testbed);
  list(&f);
  free_figures(&f);
  close(lock);
  return EXIT_PASS;
}

/* Removes the folder path and the files in it: a folder of a file per family this migrate wrote (nothing else is
 * in it). */
static void remove_written(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  rmdir(path);
}

/* DIR/<slug>.json as the folder DIR/<slug>/, all or nothing: the families' files go to DIR/.<slug>.migrate.<pid>/,
 * which is renamed to DIR/<slug>/ once every one is written, and the file is removed last (a failure to remove it
 * takes the folder back). A full disk left a part of the families in DIR/<slug>/ beside the file, and the gate then
 * read the file alone. 0, or 1 after saying why, DIR as it was. */
static int split_per_family(const baseline_place *file, const baseline_place *to, const gate_figures *f) {
  struct stat st;
  if (lstat(to->path, &st) == 0) {
    fprintf(stderr,
            "gate: %s: %s exists already; a baseline is one file or one folder: move it away or remove it (a "
            "migrate that was stopped?), then re-run\n",
            file->path, to->path);
    return 1;
  }
  const char *name = strrchr(to->path, '/') ? strrchr(to->path, '/') + 1 : to->path;
  baseline_place staged = {.per_family = 1};
  int len = snprintf(staged.path, sizeof staged.path, "%.*s.%s.migrate.%ld", (int)(name - to->path), to->path, name,
                     (long)getpid());
  if (len < 0 || (size_t)len >= sizeof staged.path) {
    fprintf(stderr, "gate: %s: the path is too long\n", to->path);
    return 1;
  }
  char err[10000];
  int failed = baseline_save(&staged, f, err, sizeof err), e = 0;
  if (!failed && rename(staged.path, to->path) != 0) {
    e = errno;
    snprintf(err, sizeof err, "%s: cannot rename %s to it: %s", to->path, staged.path, strerror(e));
    failed = 1;
  }
  if (failed) {
    remove_written(staged.path);
    fprintf(stderr, "gate: %s; nothing was changed: %s is as it was, and no %s/ was made\n", err, file->path, to->path);
    return 1;
  }
  if (unlink(file->path) != 0) {
    e = errno;
    remove_written(to->path);
    fprintf(stderr,
            "gate: %s: written as %s/, but the file cannot be removed: %s; the folder was removed again, nothing "
            "was changed (fix the folder's permissions, then re-run)\n",
            file->path, to->path, strerror(e));
    return 1;
  }
  return 0;
}

/* gate migrate: rewrites baselines in the current format (BASELINE_SCHEMA_VERSION), under their folder's
 * lock and atomically; their runs and figures are unchanged. --per_family: DIR/<slug>.json becomes the folder
 * DIR/<slug>/ of a file per family (baseline_store.h), all or nothing (split_per_family). */
int cmd_migrate(options *o) {
  if (o->nrest < 1) usage("migrate needs one or more BASELINE.json");
  for (int i = 0; i < o->nrest; i++) {
    char err[1024], *copy = strdup(o->rest[i]);
    int lock = lock_folder(dirname(copy));
    free(copy);
    if (lock < 0) return EXIT_BAD_INPUT;
    baseline_place pl, to;
    baseline_place_of(o->rest[i], &pl);
    gate_figures f;
    load_place_or_die(&pl, &f);
    to = pl;
    if (o->per_family && !pl.per_family) { /* DIR/<slug>.json -> DIR/<slug>/ */
      size_t len = strlen(pl.path);
      if (len < 5 || strcmp(pl.path + len - 5, ".json") != 0) usage("migrate --per_family needs DIR/<gpu>.json");
      snprintf(to.path, sizeof to.path, "%.*s", (int)(len - 5), pl.path);
      to.per_family = 1;
      if (split_per_family(&pl, &to, &f)) return EXIT_BAD_INPUT;
    } else if (baseline_save(&to, &f, err, sizeof err)) {
      fprintf(stderr, "gate: %s\n", err);
      return EXIT_BAD_INPUT;
    }
    printf("%s: written in baseline format %d%s (%zu runs, %zu benchmarks)\n", to.path, BASELINE_SCHEMA_VERSION,
           to.per_family ? ", a file per family" : "", f.nruns, f.n);
    free_figures(&f);
    close(lock);
  }
  return EXIT_PASS;
}
