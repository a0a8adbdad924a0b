/* Device-buffer helpers for the setup and verify ops of benchmark cases
 * (CUDA runtime; part of the runner library). Each returns 0, or non-zero with
 * the failing CUDA call and its error in err, leaving nothing allocated. */
#ifndef PERF_RUNNER_BENCH_UTIL_H
#define PERF_RUNNER_BENCH_UTIL_H

#include <stddef.h>

#include "kernels/common/host_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n floats uniform in [lo, hi) from rng, on the device (*dev) and kept on the
 * host (*host, for the reference; free() it). */
int bench_random_device(size_t n, float lo, float hi, test_rng *rng, float **dev, float **host, char *err,
                        size_t errlen);

/* n floats on the device with every bit set (a NaN no kernel writes), so an
 * element the kernel never wrote fails the self-check. */
int bench_poisoned_device(size_t n, float **dev, char *err, size_t errlen);

/* Copies n device floats into a new host array (*host; free() it). */
int bench_download(const float *dev, size_t n, float **host, char *err, size_t errlen);

/* The current device's SM count (reductions whose summation order depends on it). */
int bench_sm_count(size_t *sms, char *err, size_t errlen);

/* Downloads the one float at dev_value and checks |got - want| <= tol (NaN,
 * infinity and the poison never pass). 0, or -1 with "<what>: ..." in err. */
int bench_verify_scalar(const char *what, const float *dev_value, double want, double tol, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
