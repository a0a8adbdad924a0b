#define _POSIX_C_SOURCE 200809L
#include "tests/support/host_check.h"

#include <inttypes.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

size_t elem_size(elem_type t) {
  static const size_t size[ELEM_NTYPES] = {4, 2, 4, 1};
  return size[t];
}

const char *elem_name(elem_type t) {
  static const char *const name[ELEM_NTYPES] = {"f32", "f16", "i32", "u8"};
  return name[t];
}

double elem_get(elem_type t, const void *x, size_t i) {
  switch (t) {
    case ELEM_F32: return ((const float *)x)[i];
    case ELEM_F16: return half_to_float(((const uint16_t *)x)[i]);
    case ELEM_I32: return ((const int32_t *)x)[i];
    case ELEM_U8: return ((const uint8_t *)x)[i];
  }
  return NAN;
}

uint16_t half_from_float(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) { /* NaN: the payload's top 10 bits, never 0 (that would be infinity) */
    uint16_t payload = (uint16_t)((ax >> 13) & 0x3FFu);
    return sign | 0x7C00u | (payload ? payload : 0x200u);
  }
  if (ax >= 0x477FF000u) return sign | 0x7C00u; /* 65520 (halfway to 2^16) and up, infinity too */
  if (ax < 0x38800000u) {                       /* below 2^-14: a subnormal half in units of 2^-24 */
    float units = fabsf(f) * 0x1p24f;           /* exact: a power-of-two scaling */
    return sign | (uint16_t)lrintf(units);      /* nearest, ties to even; 1024 is 2^-14, correctly */
  }
  uint32_t mant = ax & 0x7FFFFFu, h = (((ax >> 23) - 127 + 15) << 10) | (mant >> 13), rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++; /* a carry moves into the exponent, as it must */
  return sign | (uint16_t)h;
}

float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, bits;
  if (e == 0) { /* zero and subnormals: m units of 2^-24 */
    float v = (float)m * 0x1p-24f;
    return sign ? -v : v;
  }
  bits = sign | (e == 31 ? 0x7F800000u : (e - 15 + 127) << 23) | (m << 13);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void rng_seed(test_rng *rng, uint64_t seed) {
  for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

uint64_t rng_next(test_rng *rng) {
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double rng_uniform(test_rng *rng) { return (double)(rng_next(rng) >> 11) * 0x1.0p-53; }

uint64_t test_seed(void) {
  static int have = 0;
  static uint64_t seed;
  if (!have) {
    const char *env = getenv("TEST_SEED");
    if (env && *env) {
      seed = strtoull(env, NULL, 0);
    } else {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
      seed = splitmix64(&x);
    }
    have = 1;
    printf("seed: %" PRIu64 " (rerun with TEST_SEED=%" PRIu64 ")\n", seed, seed);
    fflush(stdout);
  }
  return seed;
}

typedef struct {
  void (*work)(void *arg, size_t chunk, size_t thread);
  void *arg;
  size_t chunks, first, step;
} chunk_job;

static void *chunk_worker(void *p) {
  const chunk_job *j = p;
  for (size_t c = j->first; c < j->chunks; c += j->step) j->work(j->arg, c, j->first);
  return NULL;
}

void for_each_chunk(size_t chunks, void (*work)(void *arg, size_t chunk, size_t thread), void *arg) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t threads = cpus > 1 ? (size_t)cpus : 1;
  if (threads > CHUNK_MAX_THREADS) threads = CHUNK_MAX_THREADS;
  if (threads > chunks) threads = chunks;
  pthread_t tid[CHUNK_MAX_THREADS];
  chunk_job jobs[CHUNK_MAX_THREADS];
  size_t started = 0;
  for (size_t t = 1; t < threads; t++) {
    jobs[t] = (chunk_job){work, arg, chunks, t, threads};
    if (pthread_create(&tid[t], NULL, chunk_worker, &jobs[t]) != 0) break;
    started = t;
  }
  /* This thread takes thread 0's chunks and, where a thread could not start, its chunks. */
  for (size_t c = 0; c < chunks; c++)
    if (c % threads == 0 || c % threads > started) work(arg, c, 0);
  for (size_t t = 1; t <= started; t++) pthread_join(tid[t], NULL);
}

/* Large fills (the benchmarks' 1 GiB inputs took seconds on one core, most of
 * it first-touch page faults) run on several threads. Chunk c of FILL_CHUNK
 * values has its own generator seeded from (base, c), so the values depend on
 * the seed only, never on the thread count. */
#define FILL_CHUNK ((size_t)1 << 20)

typedef struct {
  elem_type t;
  void *x;
  size_t n;
  double lo, hi;
  uint64_t base;
} fill_job;

/* Integers in [lo, hi]: lo + floor(u * span) with u uniform in [0, 1) of 53 bits (span <= 2^32). */
static double fill_int(double lo, double hi, test_rng *r) { return lo + floor(rng_uniform(r) * (hi - lo + 1)); }

static void fill_chunk(void *arg, size_t c, size_t thread) {
  const fill_job *j = arg;
  (void)thread;
  test_rng r;
  rng_seed(&r, j->base ^ (0xD1B54A32D192ED03ull * (c + 1)));
  size_t end = (c + 1) * FILL_CHUNK < j->n ? (c + 1) * FILL_CHUNK : j->n;
  /* Floats as lo + (hi - lo) u in float bounds, so F32 fills are what they were before the types came. */
  float lo = (float)j->lo, hi = (float)j->hi;
  for (size_t i = c * FILL_CHUNK; i < end; i++) {
    switch (j->t) {
      case ELEM_F32: ((float *)j->x)[i] = (float)(lo + (hi - lo) * rng_uniform(&r)); break;
      case ELEM_F16: ((uint16_t *)j->x)[i] = half_from_float((float)(lo + (hi - lo) * rng_uniform(&r))); break;
      case ELEM_I32: ((int32_t *)j->x)[i] = (int32_t)fill_int(j->lo, j->hi, &r); break;
      case ELEM_U8: ((uint8_t *)j->x)[i] = (uint8_t)fill_int(j->lo, j->hi, &r); break;
    }
  }
}

void rng_fill(elem_type t, void *x, size_t n, double lo, double hi, test_rng *rng) {
  fill_job job = {t, x, n, lo, hi, rng_next(rng)};
  if (t == ELEM_I32 || t == ELEM_U8) { /* whole numbers the type holds */
    double min = t == ELEM_U8 ? 0 : INT32_MIN, max = t == ELEM_U8 ? UINT8_MAX : INT32_MAX;
    job.lo = fmin(fmax(ceil(lo), min), max);
    job.hi = fmax(fmin(floor(hi), max), job.lo);
  }
  for_each_chunk((n + FILL_CHUNK - 1) / FILL_CHUNK, fill_chunk, &job);
}

void fill_uniform(float *x, size_t n, float lo, float hi, test_rng *rng) { rng_fill(ELEM_F32, x, n, lo, hi, rng); }

void fill_int_uniform(float *x, size_t n, int max_abs, test_rng *rng) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng_next(rng); /* top 53 bits: magnitude 1..max_abs; bit 0: sign */
    int k = 1 + (int)((double)(r >> 11) * 0x1.0p-53 * max_abs);
    x[i] = (float)((r & 1) ? k : -k);
  }
}

void poison_elems(elem_type t, void *x, size_t n) { memset(x, 0xFF, n * elem_size(t)); }

int is_poison_elem(elem_type t, const void *x, size_t i) {
  const unsigned char *p = (const unsigned char *)x + i * elem_size(t);
  for (size_t b = 0; b < elem_size(t); b++)
    if (p[b] != 0xFF) return 0;
  return 1;
}

float poison_value(void) {
  float f;
  poison_elems(ELEM_F32, &f, 1);
  return f;
}

void fill_poison(float *x, size_t n) { poison_elems(ELEM_F32, x, n); }

int is_poison(float v) { return is_poison_elem(ELEM_F32, &v, 0); }

/* The spacing of t's values at w (see tolerance). */
static double elem_ulp(elem_type t, double w) {
  if (t == ELEM_I32 || t == ELEM_U8) return 1.0;
  int min_exp = t == ELEM_F32 ? -126 : -14, mant_bits = t == ELEM_F32 ? 23 : 10, e = 0;
  if (w != 0) frexp(w, &e); /* |w| in [2^(e-1), 2^e) */
  /* Below the smallest normal (and at 0) the spacing is that of the subnormals. */
  return ldexp(1.0, (w != 0 && e - 1 > min_exp ? e - 1 : min_exp) - mant_bits);
}

compare_report compare_elems(elem_type t, const void *got, const double *want, const double *scale, size_t n,
                             tolerance tol) {
  compare_report r = {.type = t, .n = n, .bad = 0, .first_bad = n, .max_abs_err = 0, .max_rel_err = 0};
  int use_scale = tol.rel_to_scale && scale;
  for (size_t i = 0; i < n; i++) {
    double g = elem_get(t, got, i), w = want[i];
    double err = fabs(g - w);
    double allowed = tol.abs + tol.rel * (use_scale ? scale[i] : fabs(w)) + (tol.ulps ? tol.ulps * elem_ulp(t, w) : 0);
    int ok = isfinite(g) && err <= allowed;
    if (isfinite(g)) {
      if (err > r.max_abs_err) r.max_abs_err = err;
      if (w != 0 && err / fabs(w) > r.max_rel_err) r.max_rel_err = err / fabs(w);
    }
    if (!ok) {
      if (r.bad == 0) {
        r.first_bad = i;
        r.first_got = g;
        r.first_poison = is_poison_elem(t, got, i);
        r.first_want = w;
      }
      r.bad++;
    }
  }
  return r;
}

compare_report compare_f32(const float *got, const double *want, const double *scale, size_t n, tolerance tol) {
  return compare_elems(ELEM_F32, got, want, scale, n, tol);
}

void format_report(const compare_report *r, char *buf, size_t len) {
  int k = snprintf(buf, len, "n=%zu bad=%zu max_abs_err=%.3g max_rel_err=%.3g", r->n, r->bad, r->max_abs_err,
                   r->max_rel_err);
  if (!r->bad || k < 0 || (size_t)k >= len) return;
  /* Enough digits to tell the value apart from its neighbours in its type. */
  int digits = r->type == ELEM_F32 ? 9 : r->type == ELEM_F16 ? 5 : 17;
  const char *poison = "";
  if (r->first_poison)
    poison = r->type == ELEM_F32 || r->type == ELEM_F16 ? " (poison: never written)"
                                                        : " (all bits set, the poison: never written?)";
  snprintf(buf + k, len - (size_t)k, " first_bad=[%zu] got=%.*g%s want=%.17g", r->first_bad, digits, r->first_got,
           poison, r->first_want);
}

double sum_error_bound(size_t depth, double abs_sum) {
  double du = (double)depth * FLOAT_UNIT_ROUNDOFF;
  if (du >= 1.0) return INFINITY;
  return du / (1.0 - du) * abs_sum;
}
