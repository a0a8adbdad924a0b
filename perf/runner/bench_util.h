/* Device-buffer helpers for the setup and verify ops of benchmark cases
 * (CUDA runtime; part of the runner library). Each returns 0, or non-zero with
 * the failing CUDA call and its error in err, leaving nothing allocated. */
#ifndef PERF_RUNNER_BENCH_UTIL_H
#define PERF_RUNNER_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tests/support/host_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Typed device arrays (host_check.h: elem_type): every element type of the kernels' inputs and outputs.
 * n elements of type t drawn by rng_fill(t, ..., lo, hi, rng) (floats in [lo, hi), integers in
 * [lo, hi] with both ends), on the device (*dev) and kept on the host (*host, for the reference;
 * free() it). */
int bench_random_elems(elem_type t, size_t n, double lo, double hi, test_rng *rng, void **dev, void **host, char *err,
                       size_t errlen);
/* n elements of type t on the device with every bit set (host_check.h: poison), so an element the
 * kernel never wrote fails the self-check (an integer: wherever the reference is not all ones). */
int bench_poisoned_elems(elem_type t, size_t n, void **dev, char *err, size_t errlen);
/* Copies n host elements of type t to dev (restores an input that runs overwrite, in a reuse op). */
int bench_upload_elems(elem_type t, void *dev, const void *host, size_t n, char *err, size_t errlen);
/* Copies n device elements of type t into a new host array (*host; free() it). */
int bench_download_elems(elem_type t, const void *dev, size_t n, void **host, char *err, size_t errlen);

/* The float ones: the calls above with ELEM_F32. */
int bench_random_device(size_t n, float lo, float hi, test_rng *rng, float **dev, float **host, char *err,
                        size_t errlen);
int bench_poisoned_device(size_t n, float **dev, char *err, size_t errlen);
int bench_upload(float *dev, const float *host, size_t n, char *err, size_t errlen);
int bench_download(const float *dev, size_t n, float **host, char *err, size_t errlen);

/* Sets every bit of `bytes` bytes at dev: poisons a buffer again (a reuse op, bench.h), any type. */
int bench_poison(void *dev, size_t bytes, char *err, size_t errlen);

/* The current device's SM count (reductions whose summation order depends on it). */
int bench_sm_count(size_t *sms, char *err, size_t errlen);

/* Downloads the one float at dev_value and checks |got - want| <= tol (NaN,
 * infinity and the poison never pass). 0, or -1 with "<what>: ..." in err. */
int bench_verify_scalar(const char *what, const float *dev_value, double want, double tol, char *err, size_t errlen);

/* A case whose result is one float reduced from one or two input arrays of n floats (a sum, a dot
 * product): the inputs uniform in [0.5, 1) (non-zero and of one sign, so the rounding bound stays a
 * small fraction of the result), a poisoned result, a device workspace, and the fp64 reference. */
typedef struct {
  size_t n, sms;         /* elements per input; the device's SM count (summation orders use it) */
  int ninputs;           /* 1: want = sum of in[0]; 2: want = sum of in[0][i] * in[1][i] */
  float *in[2], *result; /* device */
  void *work;            /* device workspace of the bytes given, allocated outside the timing */
  size_t work_bytes;
  double want, abs_sum; /* fp64 reference and the sum of the magnitudes of its terms */
} bench_scalar_case;

/* Fills s (zeroed by the caller) for n elements and ninputs (1 or 2) arrays drawn from seed, with a
 * workspace of work_bytes (named by work_what in an error). 0, or -1 with err and nothing kept. */
int bench_scalar_setup(bench_scalar_case *s, size_t n, int ninputs, size_t work_bytes, const char *work_what,
                       uint64_t seed, char *err, size_t errlen);
void bench_scalar_free(bench_scalar_case *s);
/* Poisons the result and the workspace again, for the next variant of the same inputs (a reuse op). */
int bench_scalar_reuse(bench_scalar_case *s, char *err, size_t errlen);
/* Checks the result against the reference within sum_error_bound(depth) of the variant's summation
 * order plus the fp64 reference's own error; the message names the variant and the tolerance. */
int bench_scalar_verify(const bench_scalar_case *s, const char *variant, size_t depth, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
