/* Where a GPU model's baseline lives in a baselines folder, and reading and writing it there.
 *
 * Two layouts:
 *   - DIR/<gpu-slug>.json: one file (every baseline before 2026-11-28, and a new one);
 *   - DIR/<gpu-slug>/<family>.json: a file per family, each a whole baseline document of that family's
 *     benchmarks and the runs they hold. A family's perf test reads its own file, and a bless reads and writes
 *     the families it blesses and no other. At 100 x today's runs (72 MB in one file) a perf test read the whole
 *     file in 1.6 s and a bless --add took 3.7 s (docs/RESULTS.md, #56 scale).
 * `gate migrate --per_family DIR/<gpu-slug>.json` turns the first into the second (all or nothing); every reader
 * takes both, and refuses a DIR holding both of one GPU. */
#ifndef PERF_GATE_BASELINE_STORE_H
#define PERF_GATE_BASELINE_STORE_H

#include <stddef.h>

#include "perf/gate/figures.h"

typedef struct {
  char path[4096]; /* DIR/<slug>.json, or the folder DIR/<slug> */
  int per_family;  /* the folder layout */
} baseline_place;

/* 1 when DIR holds a baseline of slug (either layout) and *pl says where; 0 when it holds none, *pl then where a
 * new one goes (one file); -1 with a message when that cannot be told (a link loop, no permission) or DIR holds
 * both layouts (which one is the baseline, only the user knows). */
int baseline_find(const char *dir, const char *slug, baseline_place *pl, char *err, size_t errlen);

/* A baseline named by its path: a file, or a folder of a file per family. */
void baseline_place_of(const char *path, baseline_place *pl);

/* The baseline at pl into *out: in the folder layout with `families` given (a run: its benchmarks' families),
 * only those families' files (none of them there: no benchmark, families' GPU), else all. 0, or 1 with a reason
 * naming the file. */
int baseline_load(const baseline_place *pl, const gate_figures *families, gate_figures *out, char *err, size_t errlen);

/* f saved at pl: one file, or in the folder layout a file per family of f (each atomically; the folder's other
 * families' files are left as they are). 0, or 1 with a reason. */
int baseline_save(const baseline_place *pl, const gate_figures *f, char *err, size_t errlen);

/* The family of benchmark `name` ("reduce" of "reduce/v7_shuffle_vec4/N:1048576") into buf. */
void family_name(const char *name, char *buf, size_t len);

#endif
