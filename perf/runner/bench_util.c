#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static int cuda_fail(const char *call, cudaError_t e, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
  return -1;
}

int bench_upload_elems(elem_type t, void *dev, const void *host, size_t n, char *err, size_t errlen) {
  cudaError_t e = cudaMemcpy(dev, host, n * elem_size(t), cudaMemcpyHostToDevice);
  return e == cudaSuccess ? 0 : cuda_fail("cudaMemcpy host to device", e, err, errlen);
}

int bench_random_elems(elem_type t, size_t n, double lo, double hi, test_rng *rng, void **dev, void **host, char *err,
                       size_t errlen) {
  size_t bytes = (n ? n : 1) * elem_size(t);
  *dev = NULL;
  *host = malloc(bytes);
  if (!*host) {
    snprintf(err, errlen, "out of host memory for %zu elements of %s", n, elem_name(t));
    return -1;
  }
  rng_fill(t, *host, n, lo, hi, rng);
  cudaError_t e = cudaMalloc(dev, bytes);
  if (e != cudaSuccess) {
    free(*host);
    *host = NULL;
    *dev = NULL;
    return cuda_fail("cudaMalloc", e, err, errlen);
  }
  if (bench_upload_elems(t, *dev, *host, n, err, errlen)) {
    cudaFree(*dev);
    free(*host);
    *dev = NULL;
    *host = NULL;
    return -1;
  }
  return 0;
}

int bench_poison(void *dev, size_t bytes, char *err, size_t errlen) {
  cudaError_t e = cudaMemset(dev, 0xFF, bytes);
  return e == cudaSuccess ? 0 : cuda_fail("cudaMemset (poison)", e, err, errlen);
}

int bench_poisoned_elems(elem_type t, size_t n, void **dev, char *err, size_t errlen) {
  cudaError_t e = cudaMalloc(dev, (n ? n : 1) * elem_size(t));
  if (e != cudaSuccess) {
    *dev = NULL;
    return cuda_fail("cudaMalloc", e, err, errlen);
  }
  if (bench_poison(*dev, n * elem_size(t), err, errlen)) {
    cudaFree(*dev);
    *dev = NULL;
    return -1;
  }
  return 0;
}

/* First touch of fresh host memory on several threads: the copy of a download into untouched
 * pages took its page faults on one thread. */
enum { TOUCH_CHUNK = 4 << 20 }; /* bytes */

typedef struct {
  unsigned char *x;
  size_t bytes;
} touch_job;

static void touch_chunk(void *arg, size_t c, size_t thread) {
  const touch_job *j = arg;
  (void)thread;
  size_t end = (c + 1) * TOUCH_CHUNK < j->bytes ? (c + 1) * TOUCH_CHUNK : j->bytes;
  memset(j->x + c * TOUCH_CHUNK, 0, end - c * TOUCH_CHUNK);
}

int bench_download_elems(elem_type t, const void *dev, size_t n, void **host, char *err, size_t errlen) {
  size_t bytes = n * elem_size(t);
  *host = malloc(bytes ? bytes : 1);
  if (!*host) {
    snprintf(err, errlen, "out of host memory for %zu elements of %s", n, elem_name(t));
    return -1;
  }
  touch_job touch = {*host, bytes};
  for_each_chunk((bytes + TOUCH_CHUNK - 1) / TOUCH_CHUNK, touch_chunk, &touch);
  cudaError_t e = cudaMemcpy(*host, dev, bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    free(*host);
    *host = NULL;
    return cuda_fail("cudaMemcpy device to host", e, err, errlen);
  }
  return 0;
}

/* The float ones, on the typed ones. */
int bench_random_device(size_t n, float lo, float hi, test_rng *rng, float **dev, float **host, char *err,
                        size_t errlen) {
  void *d, *h;
  int rc = bench_random_elems(ELEM_F32, n, lo, hi, rng, &d, &h, err, errlen);
  *dev = d;
  *host = h;
  return rc;
}

int bench_poisoned_device(size_t n, float **dev, char *err, size_t errlen) {
  void *d;
  int rc = bench_poisoned_elems(ELEM_F32, n, &d, err, errlen);
  *dev = d;
  return rc;
}

int bench_upload(float *dev, const float *host, size_t n, char *err, size_t errlen) {
  return bench_upload_elems(ELEM_F32, dev, host, n, err, errlen);
}

int bench_download(const float *dev, size_t n, float **host, char *err, size_t errlen) {
  void *h;
  int rc = bench_download_elems(ELEM_F32, dev, n, &h, err, errlen);
  *host = h;
  return rc;
}

int bench_sm_count(size_t *sms, char *err, size_t errlen) {
  int dev = 0, count = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) return cuda_fail("SM count (cudaDeviceGetAttribute)", e, err, errlen);
  *sms = (size_t)count;
  return 0;
}

static void scalar_ref(const void *ctx, size_t begin, size_t count, double *want, double *scale) {
  (void)begin;
  (void)count;
  (void)scale;
  want[0] = *(const double *)ctx;
}

int bench_verify_scalar(const char *what, const float *dev_value, double want, double tol, char *err, size_t errlen) {
  float *got;
  if (bench_download(dev_value, 1, &got, err, errlen)) return -1;
  int rc = verify_f32(what, got, 1, scalar_ref, &want, (tolerance){.abs = tol}, err, errlen);
  free(got);
  return rc;
}

void bench_scalar_free(bench_scalar_case *s) {
  for (int i = 0; i < 2; i++) cudaFree(s->in[i]);
  cudaFree(s->result);
  cudaFree(s->work);
  s->in[0] = s->in[1] = s->result = NULL;
  s->work = NULL;
}

/* The fp64 reference of a scalar case in chunks on several threads: one thread took 0.6-1.1 s for
 * 2^28 elements, per variant. Each chunk's partial sums are added in chunk order, so the result
 * does not depend on the thread count (its own rounding is within the bound bench_scalar_verify
 * allows the reference, whatever the order). */
enum { SCALAR_CHUNK = 1 << 20 };

typedef struct {
  const float *const *in;
  int ninputs;
  size_t n;
  double *want, *abs_sum; /* per chunk */
} scalar_ref_job;

static void scalar_ref_chunk(void *arg, size_t c, size_t thread) {
  const scalar_ref_job *j = arg;
  (void)thread;
  size_t end = (c + 1) * SCALAR_CHUNK < j->n ? (c + 1) * SCALAR_CHUNK : j->n;
  double want = 0.0, abs_sum = 0.0;
  for (size_t i = c * SCALAR_CHUNK; i < end; i++) {
    double term = j->ninputs == 2 ? (double)j->in[0][i] * j->in[1][i] : j->in[0][i]; /* products exact in double */
    want += term;
    abs_sum += fabs(term);
  }
  j->want[c] = want;
  j->abs_sum[c] = abs_sum;
}

static int scalar_reference(bench_scalar_case *s, const float *const *host, char *err, size_t errlen) {
  size_t chunks = (s->n + SCALAR_CHUNK - 1) / SCALAR_CHUNK;
  scalar_ref_job j = {host, s->ninputs, s->n, calloc(chunks + 1, sizeof(double)), calloc(chunks + 1, sizeof(double))};
  if (!j.want || !j.abs_sum) {
    free(j.want);
    free(j.abs_sum);
    snprintf(err, errlen, "out of host memory for the reference of %zu elements", s->n);
    return -1;
  }
  for_each_chunk(chunks, scalar_ref_chunk, &j);
  s->want = s->abs_sum = 0.0;
  for (size_t c = 0; c < chunks; c++) {
    s->want += j.want[c];
    s->abs_sum += j.abs_sum[c];
  }
  free(j.want);
  free(j.abs_sum);
  return 0;
}

int bench_scalar_setup(bench_scalar_case *s, size_t n, int ninputs, size_t work_bytes, const char *work_what,
                       uint64_t seed, char *err, size_t errlen) {
  s->n = n;
  s->ninputs = ninputs;
  test_rng rng;
  rng_seed(&rng, seed);
  float *host[2] = {NULL, NULL};
  int rc = bench_sm_count(&s->sms, err, errlen);
  for (int i = 0; i < ninputs && !rc; i++)
    rc = bench_random_device(n, 0.5f, 1.0f, &rng, &s->in[i], &host[i], err, errlen);
  if (!rc) rc = bench_poisoned_device(1, &s->result, err, errlen);
  /* The reference is two numbers: computed now, so the host copies (up to 2 GiB) go. */
  if (!rc) rc = scalar_reference(s, (const float *const *)host, err, errlen);
  if (!rc) {
    cudaError_t e = cudaMalloc(&s->work, work_bytes);
    if (e != cudaSuccess) {
      s->work = NULL;
      snprintf(err, errlen, "workspace of %s = %zu bytes: %s", work_what, work_bytes, cudaGetErrorString(e));
      rc = -1;
    }
    s->work_bytes = work_bytes;
    /* Poisoned as bench_scalar_reuse does: a variant must not count on what the allocation held. */
    if (!rc && work_bytes) rc = bench_poison(s->work, work_bytes, err, errlen);
  }
  free(host[0]);
  free(host[1]);
  if (rc) bench_scalar_free(s);
  return rc;
}

int bench_scalar_reuse(bench_scalar_case *s, char *err, size_t errlen) {
  if (bench_poison(s->result, sizeof(float), err, errlen)) return -1;
  return s->work_bytes ? bench_poison(s->work, s->work_bytes, err, errlen) : 0;
}

int bench_scalar_verify(const bench_scalar_case *s, const char *variant, size_t depth, char *err, size_t errlen) {
  /* The fp64 reference's own error: n additions, each <= 2^-53 of the running sum <= abs_sum. */
  double tol = sum_error_bound(depth, s->abs_sum) + (double)s->n * 0x1p-53 * s->abs_sum;
  char what[128];
  snprintf(what, sizeof what, "%s (tolerance %.3g)", variant, tol);
  return bench_verify_scalar(what, s->result, s->want, tol, err, errlen);
}
