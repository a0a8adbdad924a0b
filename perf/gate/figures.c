/* The gate's data model (figures.h): GPUs, runs and their measures, compared and freed. Reading and writing
 * them: run_reader.c, baseline_file.c (one file), baseline_store.c (where); views and merges: figures_merge.c. */
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

void gpu_slug(const char *name, char *slug, size_t len) {
  size_t k = 0;
  int dash = 0;
  for (const char *p = name; *p && k + 1 < len; p++) {
    if (isalnum((unsigned char)*p)) {
      if (dash && k > 0 && k + 2 < len) slug[k++] = '-';
      slug[k++] = (char)tolower((unsigned char)*p);
      dash = 0;
    } else {
      dash = 1;
    }
  }
  slug[k] = '\0';
}

int same_hardware(const gate_gpu *base, const gate_gpu *run, char *err, size_t errlen) {
  if (strcmp(base->slug, run->slug) != 0)
    return fail(err, errlen, "GPU model differs: baseline '%s', this GPU '%s'", base->name, run->name);
  if (base->sm_count != run->sm_count)
    return fail(err, errlen,
                "field gpu.sm_count differs: baseline %d SMs, this %s has %d (a different SKU or MIG slice)",
                base->sm_count, run->name, run->sm_count);
  if (fabs(base->mem_clock_mhz - run->mem_clock_mhz) > 0.5)
    return fail(err, errlen, "field gpu.mem_clock_mhz differs: baseline %.0f MHz, this GPU %.0f MHz",
                base->mem_clock_mhz, run->mem_clock_mhz);
  if (base->bus_width_bits != run->bus_width_bits)
    return fail(err, errlen, "field gpu.bus_width_bits differs: baseline %d, this GPU %d", base->bus_width_bits,
                run->bus_width_bits);
  if (base->ecc != run->ecc)
    return fail(err, errlen, "field gpu.ecc differs: baseline ECC %s, this GPU ECC %s (ECC costs bandwidth)",
                base->ecc ? "on" : "off", run->ecc ? "on" : "off");
  return 0;
}

int same_method(const gate_figures *base, const gate_figures *run, char *err, size_t errlen) {
  if (run->nruns == 0) return fail(err, errlen, "the run has no run information");
  const gate_run_info *want = &run->runs[0];
  for (size_t i = 0; i < base->n; i++)
    for (size_t r = 0; r < base->b[i].nruns; r++) {
      size_t k = base->b[i].runs[r].run;
      if (k >= base->nruns) continue;
      const gate_run_info *have = &base->runs[k];
      if (strcmp(have->l2_flush, want->l2_flush) != 0)
        return fail(err, errlen,
                    "field runs[%zu].l2_flush differs: %s was measured with the '%s' L2 flush, this run "
                    "with '%s'; figures taken differently do not compare (re-bless with runs made like this one)",
                    k, base->b[i].name, have->l2_flush, want->l2_flush);
      if (have->contexts != want->contexts || fabs(have->contexts_below_s - want->contexts_below_s) > 1e-12) {
        char b1[128], b2[128];
        return fail(err, errlen,
                    "field runs[%zu].contexts differs: %s was measured %s, this run %s; figures taken "
                    "differently do not compare (re-bless with runs made like this one)",
                    k, base->b[i].name, contexts_method(have, b1, sizeof b1), contexts_method(want, b2, sizeof b2));
      }
      /* A long benchmark's figure is the mean of its contexts' medians either way; a run measured in
       * more contexts than the baseline's runs only spreads less than the baseline's noise allows
       * for, but one measured in fewer would be held to a steadier baseline's thresholds. */
      if (have->long_contexts > want->long_contexts)
        return fail(err, errlen,
                    "field runs[%zu].long_contexts differs: %s was measured with long benchmarks in %d "
                    "CUDA contexts, this run in %d; a run must measure them in at least as many contexts as the "
                    "baseline (gate check --long_contexts=%d, the default, or re-bless with runs made like this one)",
                    k, base->b[i].name, have->long_contexts, want->long_contexts, have->long_contexts);
      /* Compute-bound kernels measure up to ~2 % apart with and without a warm-up: a gap the
       * thresholds would read as a change. */
      if (warmups_differ(have->warmup_s, want->warmup_s))
        return fail(err, errlen,
                    "field runs[%zu].warmup_s differs: %s was measured with %g s of warm-up per benchmark "
                    "and context in the baseline, %g s in this run; figures taken differently do not compare (give "
                    "the perf test the baseline's --warmup=%g, or re-bless with runs made like this one)",
                    k, base->b[i].name, have->warmup_s, want->warmup_s, have->warmup_s);
    }
  return 0;
}

const gate_bench *find_bench(const gate_figures *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->b[i].name, name) == 0) return &f->b[i];
  return NULL;
}

void free_bench(gate_bench *b) {
  for (size_t r = 0; r < b->nruns; r++) {
    free(b->runs[r].samples_ns);
    free(b->runs[r].contexts_ns);
  }
  free(b->runs);
  free(b->name);
  memset(b, 0, sizeof *b);
}

void free_figures(gate_figures *f) {
  for (size_t i = 0; i < f->n; i++) free_bench(&f->b[i]);
  free(f->b);
  free(f->runs);
  memset(f, 0, sizeof *f);
}
