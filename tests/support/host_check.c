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
  float *x;
  size_t n;
  float lo, hi;
  uint64_t base;
} fill_job;

static void fill_chunk(void *arg, size_t c, size_t thread) {
  const fill_job *j = arg;
  (void)thread;
  test_rng r;
  rng_seed(&r, j->base ^ (0xD1B54A32D192ED03ull * (c + 1)));
  size_t end = (c + 1) * FILL_CHUNK < j->n ? (c + 1) * FILL_CHUNK : j->n;
  for (size_t i = c * FILL_CHUNK; i < end; i++) j->x[i] = (float)(j->lo + (j->hi - j->lo) * rng_uniform(&r));
}

void fill_uniform(float *x, size_t n, float lo, float hi, test_rng *rng) {
  fill_job job = {x, n, lo, hi, rng_next(rng)};
  for_each_chunk((n + FILL_CHUNK - 1) / FILL_CHUNK, fill_chunk, &job);
}

void fill_int_uniform(float *x, size_t n, int max_abs, test_rng *rng) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng_next(rng); /* top 53 bits: magnitude 1..max_abs; bit 0: sign */
    int k = 1 + (int)((double)(r >> 11) * 0x1.0p-53 * max_abs);
    x[i] = (float)((r & 1) ? k : -k);
  }
}

float poison_value(void) {
  uint32_t bits = 0xFFFFFFFFu;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

void fill_poison(float *x, size_t n) { memset(x, 0xFF, n * sizeof *x); }

int is_poison(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

compare_report compare_f32(const float *got, const double *want, const double *scale, size_t n, double rtol,
                           double atol) {
  compare_report r = {.n = n, .bad = 0, .first_bad = n, .max_abs_err = 0, .max_rel_err = 0};
  for (size_t i = 0; i < n; i++) {
    double g = got[i], w = want[i];
    double err = fabs(g - w);
    double allowed = atol + rtol * (scale ? scale[i] : fabs(w));
    int ok = isfinite(g) && err <= allowed;
    if (isfinite(g)) {
      if (err > r.max_abs_err) r.max_abs_err = err;
      if (w != 0 && err / fabs(w) > r.max_rel_err) r.max_rel_err = err / fabs(w);
    }
    if (!ok) {
      if (r.bad == 0) {
        r.first_bad = i;
        r.first_got = got[i];
        r.first_want = w;
      }
      r.bad++;
    }
  }
  return r;
}

void format_report(const compare_report *r, char *buf, size_t len) {
  int k = snprintf(buf, len, "n=%zu bad=%zu max_abs_err=%.3g max_rel_err=%.3g", r->n, r->bad, r->max_abs_err,
                   r->max_rel_err);
  if (r->bad && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, " first_bad=[%zu] got=%.9g%s want=%.17g", r->first_bad, r->first_got,
             is_poison(r->first_got) ? " (poison: never written)" : "", r->first_want);
}

double sum_error_bound(size_t depth, double abs_sum) {
  double du = (double)depth * FLOAT_UNIT_ROUNDOFF;
  if (du >= 1.0) return INFINITY;
  return du / (1.0 - du) * abs_sum;
}
