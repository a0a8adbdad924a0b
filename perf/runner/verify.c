#include "perf/runner/verify.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/support/host_check.h"

/* Small enough that a 1024 x 1024 output is 16 chunks, one per thread: its matmul reference
 * (10^9 multiply-adds) took 1.2-1.8 s per variant as one chunk of 2^20 on one thread. */
enum { CHUNK = 1 << 16 };

/* One thread's share of a check: its reference buffers and what it found. */
typedef struct {
  double *want, *scale;
  compare_report r;
  int out_of_memory;
} verify_part;

typedef struct {
  elem_type t;
  const void *got;
  size_t n;
  verify_ref_fn ref;
  const void *ctx;
  tolerance tol;
  verify_part part[CHUNK_MAX_THREADS];
} verify_job;

/* Chunk c against the reference: the reference of a 2^28-element output (a 1024^3 matmul's in
 * particular) takes seconds on one core, so chunks run on several threads (for_each_chunk). */
static void verify_chunk(void *arg, size_t c, size_t thread) {
  verify_job *j = arg;
  verify_part *p = &j->part[thread];
  if (!p->want) {
    p->want = malloc(CHUNK * sizeof *p->want);
    p->scale = j->tol.rel_to_scale ? malloc(CHUNK * sizeof *p->scale) : NULL;
    if (!p->want || (j->tol.rel_to_scale && !p->scale)) p->out_of_memory = 1;
  }
  if (p->out_of_memory) return;
  size_t begin = c * CHUNK, count = j->n - begin < CHUNK ? j->n - begin : CHUNK;
  j->ref(j->ctx, begin, count, p->want, p->scale);
  const void *got = (const char *)j->got + begin * elem_size(j->t);
  compare_report r = compare_elems(j->t, got, p->want, p->scale, count, j->tol);
  /* The first bad element overall is the smallest index any chunk reports. */
  if (r.bad && (p->r.bad == 0 || begin + r.first_bad < p->r.first_bad)) {
    p->r.first_bad = begin + r.first_bad;
    p->r.first_got = r.first_got;
    p->r.first_poison = r.first_poison;
    p->r.first_want = r.first_want;
  }
  p->r.bad += r.bad;
  if (r.max_abs_err > p->r.max_abs_err) p->r.max_abs_err = r.max_abs_err;
  if (r.max_rel_err > p->r.max_rel_err) p->r.max_rel_err = r.max_rel_err;
}

int verify_elems(const char *what, elem_type t, const void *got, size_t n, verify_ref_fn ref, const void *ctx,
                 tolerance tol, char *err, size_t errlen) {
  verify_job *j = calloc(1, sizeof *j);
  if (!j) {
    snprintf(err, errlen, "%s: out of host memory for the reference", what);
    return -1;
  }
  *j = (verify_job){.t = t, .got = got, .n = n, .ref = ref, .ctx = ctx, .tol = tol};
  for_each_chunk((n + CHUNK - 1) / CHUNK, verify_chunk, j);
  compare_report all = {.type = t, .n = n, .bad = 0, .first_bad = n, .max_abs_err = 0, .max_rel_err = 0};
  int out_of_memory = 0;
  for (size_t t = 0; t < CHUNK_MAX_THREADS; t++) {
    const verify_part *p = &j->part[t];
    out_of_memory |= p->out_of_memory;
    if (p->r.bad && p->r.first_bad < all.first_bad) {
      all.first_bad = p->r.first_bad;
      all.first_got = p->r.first_got;
      all.first_poison = p->r.first_poison;
      all.first_want = p->r.first_want;
    }
    all.bad += p->r.bad;
    if (p->r.max_abs_err > all.max_abs_err) all.max_abs_err = p->r.max_abs_err;
    if (p->r.max_rel_err > all.max_rel_err) all.max_rel_err = p->r.max_rel_err;
    free(p->want);
    free(p->scale);
  }
  free(j);
  if (out_of_memory) {
    snprintf(err, errlen, "%s: out of host memory for the reference", what);
    return -1;
  }
  if (all.bad == 0) return 0;
  char line[256];
  format_report(&all, line, sizeof line);
  snprintf(err, errlen, "%s: %s", what, line);
  return -1;
}

int verify_f32(const char *what, const float *got, size_t n, verify_ref_fn ref, const void *ctx, tolerance tol,
               char *err, size_t errlen) {
  return verify_elems(what, ELEM_F32, got, n, ref, ctx, tol, err, errlen);
}
