/* Self-check helpers for benchmark cases (pure C): compare a kernel's output
 * with an fp64 CPU reference, chunk by chunk, so that checking 2^28 elements
 * needs no 2 GiB reference array. */
#ifndef PERF_RUNNER_VERIFY_H
#define PERF_RUNNER_VERIFY_H

#include <stddef.h>

#include "tests/support/host_check.h"

/* Fills want[0..count) with the reference for elements begin..begin+count-1,
 * and scale[] likewise when the tolerance is relative to a scale (rel_to_scale;
 * else scale is NULL and |want| is the scale). */
typedef void (*verify_ref_fn)(const void *ctx, size_t begin, size_t count, double *want, double *scale);

/* got[0..n) of type t against ref(ctx, ...) within tol (host_check.h: tolerance; TOL_EXACT for
 * integer results). Returns 0 if every element passes, else -1 with
 * "<what>: n=.. bad=.. first_bad=[i] got=.. want=.." in err. */
int verify_elems(const char *what, elem_type t, const void *got, size_t n, verify_ref_fn ref, const void *ctx,
                 tolerance tol, char *err, size_t errlen);
/* verify_elems(what, ELEM_F32, ...). */
int verify_f32(const char *what, const float *got, size_t n, verify_ref_fn ref, const void *ctx, tolerance tol,
               char *err, size_t errlen);

#endif
