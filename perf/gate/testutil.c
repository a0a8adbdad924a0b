#define _GNU_SOURCE
#include "perf/gate/testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"

char dir[512];
const char *gate_bin;
const char *H100 = "NVIDIA H100 80GB HBM3";

void write_run(const char *file, const char *gpu, int sms, double copy_gbps, const fake_bench *b, size_t n,
               unsigned seed) {
  json_t *bs = json_array();
  srand(seed);
  for (size_t i = 0; i < n; i++) {
    json_t *s = json_array();
    for (int k = 0; k < 25; k++)
      json_array_append_new(s, json_real(b[i].time_ns * (0.99 + 0.02 * rand() / (double)RAND_MAX)));
    json_array_append_new(bs,
                          json_pack("{s:s, s:s, s:s, s:i, s:f, s:s, s:f, s:o}", "name", b[i].name, "run_name",
                                    b[i].name, "run_type", "iteration", "iterations", 25, "real_time", b[i].time_ns,
                                    "time_unit", "ns", "bytes_per_second", 1e9 * 1e9 / b[i].time_ns, "samples", s));
  }
  char date[64], uuid[64]; /* one run, one time, one GPU: each seed makes another run, on another GPU */
  FORMAT(date, "2026-11-22T%02u:%02u:%02u+00:00", seed / 3600 % 24, seed / 60 % 60, seed % 60);
  FORMAT(uuid, "GPU-fixture-%04u", seed);
  json_t *root =
      json_pack("{s:{s:i, s:s, s:s, s:f, s:{s:s, s:s, s:i, s:f, s:i, s:b, s:s, s:s}}, s:o}", "context",
                "json_schema_version", 1, "date", date, "host_name", "gpu-host-1", "copy_bandwidth_GBps", copy_gbps,
                "gpu", "name", gpu, "uuid", uuid, "sm_count", sms, "mem_clock_max_mhz", 2619.0, "bus_width_bits", 5120,
                "ecc", 1, "driver_version", "580.159.04", "runtime_version", "13.0", "benchmarks", bs);
  char path[1024];
  FORMAT(path, "%s/%s", dir, file);
  ck_assert_int_eq(json_dump_file(root, path, 0), 0);
  json_decref(root);
}

const char *at(const char *file) {
  static char path[4][1024];
  static int k;
  k = (k + 1) % 4;
  ck_assert((size_t)snprintf(path[k], sizeof path[k], "%s/%s", dir, file) < sizeof path[k]);
  return path[k];
}

void write_text(const char *file, const char *text) {
  FILE *f = fopen(at(file), "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

const fake_bench base_set[3] = {
    {"elementwise/add/N:1", 1000}, {"elementwise/add_float4/N:1", 2000}, {"elementwise/saxpy/N:1", 3000}};

void bless_three_runs(const char *bl, const char *prefix, const fake_bench *b, size_t n, unsigned seed) {
  char args[2048] = "", name[256];
  for (unsigned k = 0; k < 3; k++) {
    FORMAT(name, "%s/r%u.json", prefix, k);
    write_run(name, H100, 132, 3000.0, b, n, seed + k);
    size_t used = strlen(args);
    snprintf(args + used, sizeof args - used, " %s", at(name));
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
}

void make_baseline(gate_figures *base) {
  gate_figures runs[3];
  char err[1024];
  for (int r = 0; r < 3; r++) {
    fake_bench b[3];
    memcpy(b, base_set, sizeof b);
    for (int i = 0; i < 3; i++) b[i].time_ns *= 1.0 + 0.005 * (r - 1); /* +-0.5% between runs */
    char name[64];
    FORMAT(name, "base%d.json", r);
    write_run(name, H100, 132, 3000.0, b, 3, 10 + r);
    ck_assert_msg(load_run(at(name), &runs[r], err, sizeof err) == 0, "%s", err);
  }
  ck_assert_msg(merge_runs(runs, 3, base, err, sizeof err) == 0, "%s", err);
  for (int r = 0; r < 3; r++) free_figures(&runs[r]);
}

void set_bench(const char *file, size_t index, const char *key, json_t *value) {
  json_error_t jerr;
  json_t *root = json_load_file(at(file), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_t *b = json_array_get(json_object_get(root, "benchmarks"), index);
  ck_assert_ptr_nonnull(b);
  json_object_set_new(b, key, value);
  ck_assert_int_eq(json_dump_file(root, at(file), 0), 0);
  json_decref(root);
}

void set_contexts(const char *file, size_t index, const double *medians, size_t k) {
  json_error_t jerr;
  json_t *root = json_load_file(at(file), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_t *b = json_array_get(json_object_get(root, "benchmarks"), index);
  ck_assert_ptr_nonnull(b);
  json_t *meds = json_array(), *samples = json_array();
  double sum = 0;
  for (size_t i = 0; i < k; i++) {
    json_array_append_new(meds, json_real(medians[i]));
    sum += medians[i];
    /* Ten samples that share the context's offset, within +-0.2 % of it. */
    for (int j = 0; j < 10; j++) json_array_append_new(samples, json_real(medians[i] * (1 + 0.0004 * (j - 4.5))));
  }
  json_object_set_new(b, "context_medians", meds);
  json_object_set_new(b, "contexts", json_integer((json_int_t)k));
  json_object_set_new(b, "samples", samples);
  json_object_set_new(b, "iterations", json_integer((json_int_t)(10 * k)));
  json_object_set_new(b, "real_time", json_real(sum / (double)k));
  json_object_set_new(json_object_get(root, "context"), "timing",
                      json_pack("{s:i, s:f}", "contexts", (int)k, "contexts_below_s", 50e-6));
  ck_assert_int_eq(json_dump_file(root, at(file), 0), 0);
  json_decref(root);
}

void expect_error(int rc, const char *err, const char *needle) {
  ck_assert_int_ne(rc, 0);
  ck_assert_msg(strstr(err, needle) != NULL, "error '%s' should mention '%s'", err, needle);
}

void set_context(const char *file, const char *key, json_t *value) {
  json_error_t jerr;
  json_t *root = json_load_file(at(file), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_object_set_new(json_object_get(root, "context"), key, value);
  ck_assert_int_eq(json_dump_file(root, at(file), 0), 0);
  json_decref(root);
}

void set_gpu_uuid(const char *file, const char *uuid) {
  json_error_t jerr;
  json_t *root = json_load_file(at(file), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_object_set_new(json_object_get(json_object_get(root, "context"), "gpu"), "uuid", json_string(uuid));
  ck_assert_int_eq(json_dump_file(root, at(file), 0), 0);
  json_decref(root);
}

int file_has(const char *path, const char *needle) {
  char cmd[2048];
  FORMAT(cmd, "grep -q -- '%s' '%s'", needle, path);
  return system(cmd) == 0;
}

const char *file_text(const char *path) {
  static char text[65536];
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  return text;
}

int run_gate(const char *args) {
  char cmd[4096];
  FORMAT(cmd, "%s %s >/dev/null 2>&1", gate_bin, args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char gate_output[65536];

static int vgate(const char *fmt, va_list ap) {
  char args[8192], cmd[9000], out[1024];
  int n = vsnprintf(args, sizeof args, fmt, ap);
  ck_assert_msg(n >= 0 && (size_t)n < sizeof args, "gate arguments too long");
  FORMAT(out, "%s/gate.out", dir);
  FORMAT(cmd, "%s %s >'%s' 2>&1", gate_bin, args, out);
  int st = system(cmd);
  read_gate_output(out);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void read_gate_output(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t got = fread(gate_output, 1, sizeof gate_output - 1, f);
  gate_output[got] = '\0';
  fclose(f);
}

int gate(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vgate(fmt, ap);
  va_end(ap);
  return rc;
}

void expect_gate(int want, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vgate(fmt, ap);
  va_end(ap);
  ck_assert_msg(rc == want, "gate exited %d, expected %d; its output:\n%s", rc, want, gate_output);
}

void expect_output(const char *needle) {
  ck_assert_msg(strstr(gate_output, needle) != NULL, "the gate's output should mention '%s'; it was:\n%s", needle,
                gate_output);
}

const char *make_dir(const char *rel) {
  char cmd[1200];
  FORMAT(cmd, "mkdir -p '%s/%s'", dir, rel);
  ck_assert_int_eq(system(cmd), 0);
  return strdup(at(rel));
}

const char *make_bench(const char *rel, const char *body) {
  const char *path = at(rel);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\n%s%s", BENCH_ARGS, body);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(chmod(path, 0755), 0);
  return strdup(path);
}

verdict verdict_of(const comparison *c, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(c[i].name, name)) return c[i].v;
  ck_abort_msg("no comparison for %s", name);
  return VERDICT_SAME;
}

void contexts_around(double mean, double phase, double *out, size_t k) {
  for (size_t i = 0; i < k; i++) {
    double u = fmod(phase + 0.6180339887 * (double)i, 1.0); /* in [0, 1) */
    out[i] = mean * (1 + 0.085 * (u - 0.5));
  }
}

void set_launch(const char *file, double first, double each) {
  json_t *a = json_array();
  json_array_append_new(a, json_real(first));
  for (int i = 0; i < 16; i++) json_array_append_new(a, json_real(each + (i % 2 ? 40 : -40)));
  set_context(file, "launch_ns", a);
}

void probed_run(const char *file, unsigned seed, double add_ns, double saxpy_ns, double launch) {
  double med[16];
  contexts_around(add_ns, 0.05 * seed, med, 16);
  const fake_bench b[2] = {{"elementwise/add/N:1", add_ns}, {"elementwise/saxpy/N:1", saxpy_ns}};
  write_run(file, H100, 132, 3000.0, b, 2, seed);
  set_contexts(file, 0, med, 16);
  if (launch > 0) set_launch(file, launch, launch - 100);
}

gate_figures load_ok(const char *file) {
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_run(at(file), &f, err, sizeof err) == 0, "%s", err);
  return f;
}

const char *args_bench(const char *rel, const char *run) {
  char body[4096];
  FORMAT(body, "echo \"$args\" > \"$out.args\"; cp '%s' \"$out\"\n", run);
  return make_bench(rel, body);
}

void write_base_runs(const char *dir, const char *name, unsigned n, unsigned seed) {
  for (unsigned r = 0; r < n; r++) {
    char file[128];
    FORMAT(file, "%s/%s%u.json", dir, name, r);
    write_run(file, H100, 132, 3000.0, base_set, 3, seed + r);
  }
}

pid_t start_gate(const int go[2], char *const *args) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char c;
    close(go[1]);
    while (read(go[0], &c, 1) > 0) {
    }
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    char *argv[16] = {(char *)gate_bin};
    for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
    execv(gate_bin, argv);
    _exit(127);
  }
  return pid;
}

int exit_status(pid_t pid) {
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const char *copy_bench(const char *rel, const char *run, const char *recheck) {
  char body[4096];
  FORMAT(body, "if [ -n \"$again\" ]; then cp '%s' \"$out\"; else cp '%s' \"$out\"; fi\n", recheck, run);
  return make_bench(rel, body);
}

const char *baseline_dir(const char *rel) {
  const char *bl = make_dir(rel);
  gate_figures base;
  char err[1024], path[1200];
  make_baseline(&base);
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);
  ck_assert_msg(save_baseline(path, &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  return bl;
}

int test_setup(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s GATE_BINARY\n", argv[0]);
    return 1;
  }
  gate_bin = argv[1];
  /* Bazel's own JUnit file: a gate check run by a test must not write its JUnit there. */
  unsetenv("XML_OUTPUT_FILE");
  const char *tmp = getenv("TEST_TMPDIR");
  int n = snprintf(dir, sizeof dir, "%s/gate_test_XXXXXX", tmp ? tmp : "/tmp");
  return n < 0 || (size_t)n >= sizeof dir || mkdtemp(dir) == NULL;
}

int gate_with_file_limit(rlim_t bytes, const char *args) {
  char cmd[8192];
  FORMAT(cmd, "exec %s %s 2>&1", gate_bin, args);
  return run_with_file_limit(cmd, (unsigned long long)bytes, gate_output, sizeof gate_output);
}
