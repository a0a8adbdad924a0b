/* Views and merges of figures (figures.h): runs merged into one set, a family's part of a baseline, a bless's
 * families replaced or runs added. */
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
      m->time_ns = rb->runs[0].time_ns;
      m->nsamples = rb->runs[0].nsamples;
      m->samples_taken = rb->runs[0].samples_taken;
      m->samples_ns = copy_doubles(rb->runs[0].samples_ns, m->nsamples);
      m->ncontexts = rb->runs[0].ncontexts;
      m->contexts_ns = copy_doubles(rb->runs[0].contexts_ns, m->ncontexts);
      /* Bytes/s at the median of the runs' times is settled below; keep bytes per run here. */
      b->bytes_per_second += rb->bytes_per_second * rb->runs[0].time_ns;
    }
  }
  for (size_t i = 0; i < out->n; i++) {
    gate_bench *b = &out->b[i];
    double bytes = b->bytes_per_second / (double)b->nruns;
    double *meds = malloc(b->nruns * sizeof *meds);
    for (size_t r = 0; r < b->nruns; r++) meds[r] = b->runs[r].time_ns;
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

static void copy_measures(gate_bench *dst, const gate_bench *src, const size_t *run_map) {
  copy_bench_with(dst, src, run_map, NULL, NULL, NULL, NULL);
}

int same_run(const gate_run_info *x, const gate_run_info *y) {
  return !strcmp(x->date, y->date) && !strcmp(x->host, y->host) && !strcmp(x->gpu_uuid, y->gpu_uuid);
}

static const gate_run_info *identity_runs; /* what by_identity orders the indices of */

static int by_identity(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  const gate_run_info *x = &identity_runs[i], *y = &identity_runs[j];
  int c = strcmp(x->date, y->date);
  if (!c) c = strcmp(x->host, y->host);
  if (!c) c = strcmp(x->gpu_uuid, y->gpu_uuid);
  return c ? c : (i > j) - (i < j);
}

size_t *runs_by_identity(const gate_run_info *runs, size_t n) {
  size_t *order = malloc((n + 1) * sizeof *order);
  if (!order) return NULL;
  for (size_t i = 0; i < n; i++) order[i] = i;
  identity_runs = runs;
  qsort(order, n, sizeof *order, by_identity);
  return order;
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
    if (!find_bench(old, fresh->b[i].name)) copy_measures(&out->b[out->n++], &fresh->b[i], fresh_map);
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
    if (kept[i]) copy_measures(&out->b[out->n++], &old->b[i], old_map);
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
