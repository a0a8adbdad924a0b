/* Where a GPU model's baseline lives, and reading and writing it there (baseline_store.h). */
#define _GNU_SOURCE
#include "perf/gate/baseline_store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/common/fail.h"

void family_name(const char *name, char *buf, size_t len) {
  size_t n = strcspn(name, "/");
  snprintf(buf, len, "%.*s", (int)n, name);
}

int baseline_find(const char *dir, const char *slug, baseline_place *pl, char *err, size_t errlen) {
  struct stat st;
  char file[sizeof pl->path], folder[sizeof pl->path];
  snprintf(file, sizeof file, "%s/%s.json", dir, slug);
  snprintf(folder, sizeof folder, "%s/%s", dir, slug);
  snprintf(pl->path, sizeof pl->path, "%s", file);
  pl->per_family = 0;
  int has_file = stat(file, &st) == 0;
  if (!has_file && errno != ENOENT)
    return -fail(err, errlen, "cannot tell whether %s exists: %s; fix or remove it", file, strerror(errno));
  int folder_rc = stat(folder, &st);
  if (folder_rc != 0 && errno != ENOENT)
    return -fail(err, errlen, "cannot tell whether %s exists: %s; fix or remove it", folder, strerror(errno));
  int has_folder = folder_rc == 0 && S_ISDIR(st.st_mode);
  /* Both: each command would read one and never the other (the file won), so a bless into the folder, or runs
   * left in the file, went unjudged. Which is the baseline only the user knows. */
  if (has_file && has_folder)
    return -fail(err, errlen,
                 "%s and %s/ both hold a baseline of %s (one file, and a file per family): keep one. If `gate "
                 "migrate --per_family %s` wrote the folder, remove the file (git rm %s); else remove the folder",
                 file, folder, slug, file, file);
  if (has_folder) {
    snprintf(pl->path, sizeof pl->path, "%s", folder);
    pl->per_family = 1;
  }
  return has_file || has_folder;
}

void baseline_place_of(const char *path, baseline_place *pl) {
  struct stat st;
  snprintf(pl->path, sizeof pl->path, "%s", path);
  pl->per_family = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* 1 when f has a benchmark of family fam. */
static int has_family_named(const gate_figures *f, const char *fam) {
  char buf[256];
  for (size_t i = 0; i < f->n; i++) {
    family_name(f->b[i].name, buf, sizeof buf);
    if (strcmp(buf, fam) == 0) return 1;
  }
  return 0;
}

/* part's runs and benchmarks moved to the end of out (run indices shifted); part's arrays freed. */
static void append_figures(gate_figures *out, gate_figures *part) {
  size_t offset = out->nruns;
  out->runs = realloc(out->runs, (out->nruns + part->nruns + 1) * sizeof *out->runs);
  memcpy(out->runs + out->nruns, part->runs, part->nruns * sizeof *part->runs);
  out->nruns += part->nruns;
  out->b = realloc(out->b, (out->n + part->n + 1) * sizeof *out->b);
  for (size_t i = 0; i < part->n; i++) {
    for (size_t r = 0; r < part->b[i].nruns; r++) part->b[i].runs[r].run += offset;
    out->b[out->n++] = part->b[i];
  }
  free(part->runs);
  free(part->b);
  memset(part, 0, sizeof *part);
}

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A run that measured several families is in each of their files: once in the baseline read back (same_run:
 * date, host, GPU), in one sort (runs_by_identity). */
static void dedupe_runs(gate_figures *f) {
  size_t *order = runs_by_identity(f->runs, f->nruns), *first = malloc((f->nruns + 1) * sizeof *first);
  size_t *map = malloc((f->nruns + 1) * sizeof *map);
  for (size_t k = 0; k < f->nruns; k++) /* each run's first copy, in file order */
    first[order[k]] = k > 0 && same_run(&f->runs[order[k]], &f->runs[order[k - 1]]) ? first[order[k - 1]] : order[k];
  size_t kept = 0;
  for (size_t r = 0; r < f->nruns; r++) {
    if (first[r] == r) {
      map[r] = kept;
      f->runs[kept++] = f->runs[r];
    } else {
      map[r] = map[first[r]];
    }
  }
  f->nruns = kept;
  for (size_t i = 0; i < f->n; i++)
    for (size_t m = 0; m < f->b[i].nruns; m++) f->b[i].runs[m].run = map[f->b[i].runs[m].run];
  free(order);
  free(first);
  free(map);
}

int baseline_load(const baseline_place *pl, const gate_figures *families, gate_figures *out, char *err, size_t errlen) {
  if (!pl->per_family) return load_baseline(pl->path, out, err, errlen);
  memset(out, 0, sizeof *out);
  DIR *d = opendir(pl->path);
  if (!d) return fail(err, errlen, "%s: cannot read the baseline's folder: %s", pl->path, strerror(errno));
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
      names = realloc(names, (n + 1) * sizeof *names);
      names[n++] = strdup(e->d_name);
    }
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_string); /* the same order on every host */
  int rc = 0, loaded = 0;
  for (size_t i = 0; i < n; i++) {
    char fam[256], path[sizeof pl->path + 300];
    snprintf(fam, sizeof fam, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
    if (rc || (families && !has_family_named(families, fam))) continue;
    snprintf(path, sizeof path, "%s/%s", pl->path, names[i]);
    gate_figures part;
    if (load_baseline(path, &part, err, errlen)) {
      rc = 1;
      continue;
    }
    for (size_t b = 0; b < part.n && !rc; b++) { /* a family's file holds that family alone */
      char own[256];
      family_name(part.b[b].name, own, sizeof own);
      if (strcmp(own, fam) != 0)
        rc = fail(err, errlen,
                  "%s: benchmark %s is of family %s, not %s: each file of %s holds its family alone; "
                  "move the benchmark to %s.json or re-bless",
                  path, part.b[b].name, own, fam, pl->path, own);
    }
    if (!rc && loaded && same_hardware(&out->gpu, &part.gpu, err, errlen)) {
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      rc = fail(err, errlen, "%s: another GPU than the folder's other families: %s", path, why);
    }
    if (rc) {
      free_figures(&part);
      continue;
    }
    if (!loaded++) out->gpu = part.gpu;
    append_figures(out, &part);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (!rc && loaded > 1) dedupe_runs(out);
  if (!rc && !loaded && !families)
    rc = fail(err, errlen, "%s: a baseline folder with no <family>.json in it; bless runs into it", pl->path);
  if (!rc && !loaded) out->gpu = families->gpu; /* none of these families yet: the folder is this model's */
  if (rc) free_figures(out);
  return rc;
}

/* The benchmarks of f of family fam and the runs they hold, re-indexed: a shallow view whose runs and
 * benchmark arrays (and each benchmark's measures array) are its own; free with free_part. */
static void family_part(const gate_figures *f, const char *fam, gate_figures *part) {
  memset(part, 0, sizeof *part);
  part->gpu = f->gpu;
  size_t *map = malloc((f->nruns + 1) * sizeof *map);
  for (size_t r = 0; r < f->nruns; r++) map[r] = (size_t)-1;
  part->runs = calloc(f->nruns + 1, sizeof *part->runs);
  part->b = calloc(f->n + 1, sizeof *part->b);
  char own[256];
  for (size_t i = 0; i < f->n; i++) {
    family_name(f->b[i].name, own, sizeof own);
    if (strcmp(own, fam) != 0) continue;
    gate_bench *b = &part->b[part->n++];
    *b = f->b[i];
    b->runs = malloc((f->b[i].nruns + 1) * sizeof *b->runs);
    for (size_t m = 0; m < f->b[i].nruns; m++) {
      size_t r = f->b[i].runs[m].run;
      if (map[r] == (size_t)-1) {
        map[r] = part->nruns;
        part->runs[part->nruns++] = f->runs[r];
      }
      b->runs[m] = f->b[i].runs[m];
      b->runs[m].run = map[r];
    }
  }
  free(map);
}

static void free_part(gate_figures *part) {
  for (size_t i = 0; i < part->n; i++) free(part->b[i].runs);
  free(part->b);
  free(part->runs);
}

int baseline_save(const baseline_place *pl, const gate_figures *f, char *err, size_t errlen) {
  if (!pl->per_family) return save_baseline(pl->path, f, err, errlen);
  if (mkdir(pl->path, 0755) != 0 && errno != EEXIST)
    return fail(err, errlen, "%s: cannot create the baseline's folder: %s", pl->path, strerror(errno));
  char fam[256], seen[256] = "";
  for (size_t i = 0; i < f->n; i++) {
    family_name(f->b[i].name, fam, sizeof fam);
    int done = 0; /* a family once: earlier benchmarks of it wrote its file */
    for (size_t j = 0; j < i && !done; j++) {
      family_name(f->b[j].name, seen, sizeof seen);
      done = strcmp(seen, fam) == 0;
    }
    if (done) continue;
    gate_figures part;
    family_part(f, fam, &part);
    char path[sizeof pl->path + 300];
    snprintf(path, sizeof path, "%s/%s.json", pl->path, fam);
    int rc = save_baseline(path, &part, err, errlen);
    free_part(&part);
    if (rc) return 1;
  }
  return 0;
}
