/* Self-check helpers for benchmark cases (pure C): compare a kernel's output
 * with an fp64 CPU reference, chunk by chunk, so that checking 2^28 elements
 * needs no 2 GiB reference array. */
#ifndef PERF_RUNNER_VERIFY_H
#define PERF_RUNNER_VERIFY_H

#include <stddef.h>

/* Fills want[0..count) with the reference for elements begin..begin+count-1,
 * and scale[] likewise when the check is relative to a scale (else scale is
 * NULL and |want| is the scale). */
typedef void (*verify_ref_fn)(const void *ctx, size_t begin, size_t count, double *want, double *scale);

/* Element i passes when |got[i] - want[i]| <= atol + rtol * scale_i (NaN and
 * infinity never pass). Returns 0 if every element passes, else -1 with
 * "<what>: n=.. bad=.. first_bad=[i] got=.. want=.." in err. */
int verify_f32(const char *what, const float *got, size_t n, verify_ref_fn ref, const void *ctx, int use_scale,
               double rtol, double atol, char *err, size_t errlen);

#endif
