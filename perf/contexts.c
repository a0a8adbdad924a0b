#define _GNU_SOURCE /* environ */
#include "perf/processes.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "perf/stats.h"

extern char **environ;

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---------- which benchmarks are short ---------- */

int processes_is_short(const bench_result *r, double below_ns) {
  if (r->failed || r->nreps < 1) return 0;
  for (int i = 0; i < r->nreps; i++) {
    const rep_result *rep = &r->reps[i];
    if (rep->n == 0 || !(stats_median(rep->gpu_ns, rep->n) < below_ns)) return 0;
  }
  return 1;
}

int processes_short_filter(const bench_result *res, size_t n, double below_ns, char *buf, size_t len) {
  size_t k = 0;
  int count = 0;
#define PUT(ch)                  \
  do {                           \
    if (k + 1 >= len) return -1; \
    buf[k++] = (ch);             \
  } while (0)
  PUT('^');
  PUT('(');
  for (size_t i = 0; i < n; i++) {
    if (!processes_is_short(&res[i], below_ns)) continue;
    if (count++) PUT('|');
    for (const char *c = res[i].name; *c; c++) {
      if (strchr(".[]()*+?{}|^$\\", *c)) PUT('\\');
      PUT(*c);
    }
  }
  PUT(')');
  PUT('$');
#undef PUT
  buf[k] = '\0';
  return count;
}

/* ---------- the child's file ---------- */

static json_t *numbers(const double *x, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(x[i]));
  return a;
}

int processes_write(const char *path, const bench_result *res, size_t n, char *err, size_t errlen) {
  json_t *list = json_array();
  for (size_t i = 0; i < n; i++) {
    const bench_result *r = &res[i];
    if (r->failed) continue; /* the child's exit status says so, and its messages why */
    json_t *reps = json_array();
    for (int k = 0; k < r->nreps; k++) {
      const rep_result *rep = &r->reps[k];
      json_array_append_new(
          reps, json_pack("{s:o, s:o, s:I, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "gpu_ns",
                          numbers(rep->gpu_ns, rep->n), "host_ns", numbers(rep->host_ns, rep->n), "discarded",
                          (json_int_t)rep->discarded, "timed_out", rep->timed_out, "clocks_valid", rep->clocks_valid,
                          "sm_mhz_min", (json_int_t)rep->sm_mhz_min, "sm_mhz_max", (json_int_t)rep->sm_mhz_max,
                          "mem_mhz_min", (json_int_t)rep->mem_mhz_min, "mem_mhz_max", (json_int_t)rep->mem_mhz_max,
                          "temp_c_max", (json_int_t)rep->temp_c_max, "throttle", (json_int_t)rep->throttle));
    }
    json_array_append_new(list, json_pack("{s:s, s:o}", "name", r->name, "reps", reps));
  }
  json_t *doc = json_pack("{s:o}", "benchmarks", list);
  int rc = json_dump_file(doc, path, JSON_COMPACT);
  json_decref(doc);
  if (rc != 0) return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
  return 0;
}

/* Appends the numbers of a JSON array to *x (n values already there). */
static int append_numbers(const json_t *a, double **x, size_t n, size_t add) {
  double *g = realloc(*x, (n + add ? n + add : 1) * sizeof *g);
  if (!g) return -1;
  *x = g;
  for (size_t i = 0; i < add; i++) {
    const json_t *v = json_array_get(a, i);
    if (!json_is_number(v)) return -1;
    g[n + i] = json_number_value(v);
  }
  return 0;
}

static int push_process(rep_result *rep, double median_ns) {
  double *p = realloc(rep->process_ns, (rep->nprocess + 1) * sizeof *p);
  if (!p) return -1;
  rep->process_ns = p;
  rep->process_ns[rep->nprocess++] = median_ns;
  return 0;
}

/* The noise of a pooled repetition: between processes, not between samples. */
static void process_noise(rep_result *rep) {
  stats_summary s;
  if (rep->nprocess < 2 || stats_summarize(rep->process_ns, rep->nprocess, &s) != 0 || s.mean <= 0) return;
  rep->noise = s.stddev / sqrt((double)rep->nprocess) / s.mean;
}

static int merge_rep(rep_result *rep, const json_t *j) {
  const json_t *gpu = json_object_get(j, "gpu_ns"), *host = json_object_get(j, "host_ns");
  json_int_t discarded, sm_min, sm_max, mem_min, mem_max, temp, throttle;
  int timed_out, clocks_valid;
  if (!json_is_array(gpu) || !json_is_array(host) || json_array_size(gpu) != json_array_size(host) ||
      json_array_size(gpu) == 0)
    return -1;
  if (json_unpack((json_t *)j, "{s:I, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "discarded", &discarded, "timed_out",
                  &timed_out, "clocks_valid", &clocks_valid, "sm_mhz_min", &sm_min, "sm_mhz_max", &sm_max,
                  "mem_mhz_min", &mem_min, "mem_mhz_max", &mem_max, "temp_c_max", &temp, "throttle", &throttle) != 0)
    return -1;
  size_t add = json_array_size(gpu);
  double *child = malloc(add * sizeof *child);
  if (!child) return -1;
  for (size_t i = 0; i < add; i++) {
    const json_t *v = json_array_get(gpu, i);
    if (!json_is_number(v)) {
      free(child);
      return -1;
    }
    child[i] = json_number_value(v);
  }
  double child_median = stats_median(child, add);
  free(child);
  if (rep->nprocess == 0) {
    /* The first child replaces this process's own measurement: every process
     * pooled then ran the same way (fresh, short benchmarks only, no copy
     * probe). The parent, after the probe and the long benchmarks, measured
     * 100-300 ns slower on the H100 (perf/RESULTS.md). */
    rep->n = 0;
    rep->discarded = 0;
    rep->timed_out = 0;
    rep->throttle = 0;
    rep->clocks_valid = 0;
    rep->temp_c_max = 0;
    rep->noise = 0;
  }
  if (append_numbers(gpu, &rep->gpu_ns, rep->n, add) != 0 || append_numbers(host, &rep->host_ns, rep->n, add) != 0 ||
      push_process(rep, child_median) != 0)
    return -1;
  rep->n += add;
  rep->discarded += (size_t)discarded;
  rep->timed_out |= timed_out;
  rep->throttle |= (unsigned long long)throttle;
  if (clocks_valid) {
    int first = !rep->clocks_valid;
    if (first || (unsigned)sm_min < rep->sm_mhz_min) rep->sm_mhz_min = (unsigned)sm_min;
    if (first || (unsigned)sm_max > rep->sm_mhz_max) rep->sm_mhz_max = (unsigned)sm_max;
    if (first || (unsigned)mem_min < rep->mem_mhz_min) rep->mem_mhz_min = (unsigned)mem_min;
    if (first || (unsigned)mem_max > rep->mem_mhz_max) rep->mem_mhz_max = (unsigned)mem_max;
    if ((unsigned)temp > rep->temp_c_max) rep->temp_c_max = (unsigned)temp;
    rep->clocks_valid = 1;
  }
  process_noise(rep);
  return 0;
}

int processes_merge(const char *path, bench_result *res, size_t n, char *err, size_t errlen) {
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  if (!doc) return fail(err, errlen, "%s: not readable JSON (line %d: %s)", path, je.line, je.text);
  const json_t *list = json_object_get(doc, "benchmarks");
  int pooled = 0, rc = 0;
  if (!json_is_array(list)) {
    rc = fail(err, errlen, "%s: no \"benchmarks\" array", path);
    goto done;
  }
  for (size_t i = 0; i < json_array_size(list); i++) {
    const json_t *b = json_array_get(list, i);
    const char *name = json_string_value(json_object_get(b, "name"));
    const json_t *reps = json_object_get(b, "reps");
    bench_result *r = NULL;
    for (size_t k = 0; name && k < n; k++)
      if (strcmp(res[k].name, name) == 0) r = &res[k];
    if (!name || !json_is_array(reps)) {
      rc = fail(err, errlen, "%s: benchmarks[%zu] has no \"name\" or no \"reps\" array", path, i);
      goto done;
    }
    if (!r || r->failed) {
      rc = fail(err, errlen, "%s: benchmark %s is not among this process's measured benchmarks", path, name);
      goto done;
    }
    if ((int)json_array_size(reps) != r->nreps) {
      rc = fail(err, errlen, "%s: %s has %zu repetitions, this process %d", path, name, json_array_size(reps),
                r->nreps);
      goto done;
    }
    for (int k = 0; k < r->nreps; k++) {
      if (merge_rep(&r->reps[k], json_array_get(reps, (size_t)k)) != 0) {
        rc = fail(err, errlen, "%s: %s repetition %d: samples or readings missing or malformed (or out of memory)",
                  path, name, k);
        goto done;
      }
    }
    pooled++;
  }
done:
  json_decref(doc);
  return rc ? rc : pooled;
}

/* ---------- running a child ---------- */

int processes_run_child(const char *path, char *const argv[], const char *samples_path, uint64_t seed, char *err, size_t errlen) {
  size_t nenv = 0;
  while (environ[nenv]) nenv++;
  char **env = calloc(nenv + 3, sizeof *env);
  char samples_var[4200], seed_var[64];
  if (!env) return fail(err, errlen, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < nenv; i++) /* ours replace any inherited ones */
    if (strncmp(environ[i], PROCESSES_SAMPLES_ENV "=", sizeof PROCESSES_SAMPLES_ENV) != 0 &&
        strncmp(environ[i], "BENCH_SEED=", 11) != 0)
      env[k++] = environ[i];
  snprintf(samples_var, sizeof samples_var, "%s=%s", PROCESSES_SAMPLES_ENV, samples_path);
  snprintf(seed_var, sizeof seed_var, "BENCH_SEED=%llu", (unsigned long long)seed);
  env[k++] = samples_var;
  env[k++] = seed_var;
  env[k] = NULL;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int e = posix_spawn(&pid, path, &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  if (e != 0) return fail(err, errlen, "cannot start %s: %s", path, strerror(e));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return fail(err, errlen, "waiting for %s: %s", path, strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
