/* Running a benchmark binary for the gate's commands (check.c, ab.c): its command line, the process tied
 * to the gate (signals forwarded, it dies with the gate), listing its benchmarks, the filters that pick
 * some of them, and measuring into a run JSON or exiting. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/gate_cli.h"

/* The benchmark's command line: the gate's flags, then every flag given after --. */
static char **bench_argv(const options *o, const char *json_out) {
  char **argv = calloc((size_t)o->nrest + 10, sizeof *argv);
  int k = 0;
  argv[k++] = xasprintf("%s", o->bench);
  argv[k++] = xasprintf("--benchmark_out=%s", json_out);
  argv[k++] = xasprintf("--benchmark_out_format=json");
  argv[k++] = xasprintf("--benchmark_repetitions=%d", o->repetitions);
  /* Short benchmarks in K contexts, long ones in the first L: the context is the gate's unit of evidence
   * (perf/runner/contexts.h). */
  argv[k++] = xasprintf("--contexts=%d", o->contexts);
  argv[k++] = xasprintf("--long_contexts=%d", o->long_contexts);
  /* --warmup: given to the first run and the re-measure alike, as the baseline's runs were made (a
   * run without the flag records 0, as old runs do). 15 digits keep the value within the gate's
   * 1e-9 s comparison. */
  if (o->warmup_s > 0) argv[k++] = xasprintf("--benchmark_min_warmup_time=%.15g", o->warmup_s);
  /* The commit under test, for the baseline and history rows (CI sets PERF_COMMIT). */
  const char *sha = getenv("PERF_COMMIT");
  if (sha && *sha) argv[k++] = xasprintf("--benchmark_context=commit=%s", sha);
  for (int i = 0; i < o->nrest; i++) argv[k++] = xasprintf("%s", o->rest[i]);
  /* Last: only these benchmarks (A/B's changed ones, the suspects a confirmation re-measures). */
  if (o->filter) argv[k++] = xasprintf("--benchmark_filter=%s", o->filter);
  argv[k] = NULL;
  return argv;
}

static void free_argv(char **argv) {
  for (char **a = argv; *a; a++) free(*a);
  free(argv);
}

/* The benchmark holds the GPU, so it must not outlive the gate: SIGTERM and SIGINT sent to
 * the gate are forwarded to it, and it gets SIGTERM when the gate dies in any way (SIGKILL
 * included, through PR_SET_PDEATHSIG). */
static volatile sig_atomic_t bench_pid, got_signal;

static void forward_signal(int sig) {
  got_signal = sig;
  if (bench_pid > 0) kill((pid_t)bench_pid, sig);
}

/* Forwards sig while the benchmark runs (unless the gate was started with it ignored). */
static void catch_signal(int sig, struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, NULL, old);
  if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, NULL);
}

/* In the forked child, before exec: die with the gate, and take the gate's own signal
 * dispositions and mask back. */
static void become_benchmark(pid_t gate, const sigset_t *mask, const struct sigaction *term,
                             const struct sigaction *intr) {
  sigaction(SIGTERM, term, NULL);
  sigaction(SIGINT, intr, NULL);
  sigprocmask(SIG_SETMASK, mask, NULL);
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
    fprintf(stderr, "gate: cannot tie the benchmark to the gate (prctl): %s\n", strerror(errno));
    _exit(127);
  }
  if (getppid() != gate) _exit(127); /* the gate died before prctl took effect */
}

/* Runs the benchmark binary; returns its exit status (or -1 if it could not start). A
 * gate stopped by SIGTERM or SIGINT waits for the benchmark to end, then dies of the signal. */
static int run_bench_process(const options *o, const char *json_out) {
  char **argv = bench_argv(o, json_out);
  int rc = run_child(o->bench, argv);
  free_argv(argv);
  return rc;
}

int run_child(const char *bin, char **argv) {
  sigset_t block, mask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &mask); /* until bench_pid is known */
  struct sigaction old_term, old_int;
  catch_signal(SIGTERM, &old_term);
  catch_signal(SIGINT, &old_int);
  pid_t gate = getpid();
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    become_benchmark(gate, &mask, &old_term, &old_int);
    execv(bin, argv);
    fprintf(stderr, "gate: cannot run %s: %s\n", bin, strerror(errno));
    _exit(127);
  }
  bench_pid = pid;
  sigprocmask(SIG_SETMASK, &mask, NULL); /* a signal that came meanwhile is forwarded now */
  int status = 0;
  pid_t w = -1;
  while (pid > 0 && (w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  bench_pid = 0;
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGINT, &old_int, NULL);
  if (got_signal) {
    fprintf(stderr, "gate: stopped by signal %d (%s); the benchmark was stopped too\n", (int)got_signal,
            strsignal(got_signal));
    raise(got_signal);
    exit(128 + got_signal);
  }
  if (pid < 0 || w < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char **list_benchmarks(const char *bin, size_t *n) {
  int fd[2];
  if (pipe(fd) != 0) {
    fprintf(stderr, "gate: pipe: %s\n", strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl(bin, bin, "--benchmark_list_tests", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  char **names = NULL, line[1024];
  *n = 0;
  while (in && fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0]) continue;
    names = realloc(names, (*n + 2) * sizeof *names);
    names[(*n)++] = xasprintf("%s", line);
  }
  if (in) fclose(in);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "gate: %s --benchmark_list_tests failed (exit %d): cannot tell which benchmarks it has\n", bin,
            pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    exit(EXIT_BAD_INPUT);
  }
  return names;
}

char *suspects_filter(const comparison *c, size_t n) {
  char **suspects = calloc(n + 1, sizeof *suspects);
  size_t ns = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER) suspects[ns++] = (char *)c[i].name;
  char *filter = exact_names_filter(suspects, ns);
  free(suspects);
  return filter;
}

char *exact_names_filter(char *const *names, size_t n) {
  size_t cap = 8;
  for (size_t i = 0; i < n; i++) cap += 2 * strlen(names[i]) + 1;
  char *f = malloc(cap), *p = f;
  if (!f) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  p += sprintf(p, "^(");
  for (size_t i = 0; i < n; i++) {
    if (i) *p++ = '|';
    for (const char *c = names[i]; *c; c++) {
      if (strchr(".[]()*+?{}|^$\\", *c)) *p++ = '\\';
      *p++ = *c;
    }
  }
  sprintf(p, ")$");
  return f;
}

/* An earlier gate check's file in the out_dir is removed before the benchmark runs: a benchmark
 * that writes no run JSON must not be judged by the last one's. */
void remove_stale(const char *dir, const char *name) {
  char path[4200];
  format_path(path, sizeof path, "%s/%s", dir, name);
  if (unlink(path) != 0 && errno != ENOENT) {
    fprintf(stderr, "gate: cannot remove %s of an earlier check: %s; remove it, or give another --out_dir\n", path,
            strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
}

static void measure(const options *o, const char *json_out, int again);

void measure_bench(const options *o, const char *bench, const char *json_out, int again) {
  options with = *o;
  if (bench) with.bench = bench;
  measure(&with, json_out, again);
}

/* Runs the benchmark into json_out; exits unless it ran and wrote its run JSON. */
static void measure(const options *o, const char *json_out, int again) {
  int rc = run_bench_process(o, json_out);
  if (rc != 0) {
    fprintf(stderr,
            "gate: %s%s exited with status %d: %s (its output above says why; the run JSON, if any, is kept "
            "at %s)\n",
            o->bench, again ? " (re-measuring)" : "", rc,
            rc == 2 ? "bad flags or no usable GPU" : "a benchmark failed its self-check, or a CUDA error", json_out);
    exit(rc == 2 ? EXIT_BAD_INPUT : EXIT_REGRESSION);
  }
  if (access(json_out, F_OK) != 0) {
    fprintf(stderr,
            "gate: %s exited 0 but wrote no run JSON at %s: did the flags after -- ask for no run (e.g. "
            "--benchmark_list_tests)? Nothing was compared\n",
            o->bench, json_out);
    exit(EXIT_BAD_INPUT);
  }
}
