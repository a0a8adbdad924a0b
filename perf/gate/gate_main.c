/* gate: the regression gate over benchmark runs and per-GPU baselines.
 *
 *   gate check   --bench=BIN --baselines=DIR [policy] [--strict] [--repetitions=N] [--out_dir=DIR] [-- BENCH FLAGS]
 *       Runs a family's benchmark binary, compares with the baseline of the GPU it ran on,
 *       re-measures anything slower, and fails only on a confirmed regression. Writes the run
 *       JSON, summary.md and verdicts.json to --out_dir (default $TEST_UNDECLARED_OUTPUTS_DIR)
 *       and JUnit XML to $XML_OUTPUT_FILE when set. The run JSON is kept when the gate fails.
 *   gate compare --baseline=FILE [policy] RUN.json
 *   gate bless   --baselines=DIR RUN.json...      adopt runs (separate processes) as the baseline
 *   gate history --history_dir=DIR --verdicts=FILE RUN.json     append one row per benchmark
 *
 * policy: --tolerance=0.03 --family_tolerance=FAMILY=F (repeatable) --k_noise=3 --alpha=0.01 --min_delta_us=3
 *         --metric=time|copy_ratio
 * Exit status: 0 pass, 1 confirmed regression (or a benchmark missing / failing), 2 bad input or usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/report.h"

enum { EXIT_PASS = 0, EXIT_REGRESSION = 1, EXIT_BAD_INPUT = 2 };

static void usage(const char *msg) {
  if (msg) fprintf(stderr, "gate: %s\n", msg);
  fprintf(stderr,
          "usage:\n"
          "  gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N] [--out_dir=DIR]\n"
          "               [--no_recheck] [-- BENCHMARK FLAGS]\n"
          "  gate compare --baseline=FILE [POLICY] RUN.json\n"
          "  gate bless   --baselines=DIR RUN.json...\n"
          "  gate history --history_dir=DIR --verdicts=FILE RUN.json\n"
          "POLICY: --tolerance=FRACTION (0.03) --family_tolerance=FAMILY=FRACTION --k_noise=K (3)\n"
          "        --alpha=P (0.01) --min_delta_us=US (3) --metric=time|copy_ratio (time)\n");
  exit(EXIT_BAD_INPUT);
}

static double fraction_arg(const char *flag, const char *v, double lo, double hi) {
  char *end;
  double x = strtod(v, &end);
  if (end == v || *end || !(x > lo && x < hi)) {
    char msg[256];
    snprintf(msg, sizeof msg, "--%s=%s: want a number in (%g, %g)", flag, v, lo, hi);
    usage(msg);
  }
  return x;
}

/* Paths given to `bazel run` are relative to where the user ran it. */
static const char *user_path(const char *p, char *buf, size_t len) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (p[0] == '/' || !wd) return p;
  snprintf(buf, len, "%s/%s", wd, p);
  return buf;
}

typedef struct {
  gate_policy policy;
  const char *bench, *baselines, *baseline, *out_dir, *history_dir, *verdicts;
  int strict, repetitions, recheck;
  char **rest; /* positional arguments, or benchmark flags after -- for check */
  int nrest;
} options;

static options parse(int argc, char **argv) {
  options o = {.policy = default_policy(), .repetitions = 1, .recheck = 1};
  static const struct option opts[] = {
      {"tolerance", required_argument, 0, 't'},  {"family_tolerance", required_argument, 0, 'f'},
      {"k_noise", required_argument, 0, 'k'},    {"alpha", required_argument, 0, 'a'},
      {"metric", required_argument, 0, 'm'},     {"bench", required_argument, 0, 'b'},
      {"baselines", required_argument, 0, 'B'},  {"baseline", required_argument, 0, 'F'},
      {"out_dir", required_argument, 0, 'o'},    {"history_dir", required_argument, 0, 'H'},
      {"verdicts", required_argument, 0, 'v'},   {"strict", no_argument, 0, 's'},
      {"repetitions", required_argument, 0, 'r'}, {"no_recheck", no_argument, 0, 'n'},
      {"min_delta_us", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
  int c;
  char err[512];
  optind = 2;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 't': o.policy.tolerance = fraction_arg("tolerance", optarg, 0, 1); break;
      case 'f':
        if (add_family_tolerance(&o.policy, optarg, err, sizeof err)) usage(err);
        break;
      case 'k': o.policy.k_noise = fraction_arg("k_noise", optarg, 0, 100); break;
      case 'a': o.policy.alpha = fraction_arg("alpha", optarg, 0, 1); break;
      case 'm':
        if (!strcmp(optarg, "time")) o.policy.metric = METRIC_TIME;
        else if (!strcmp(optarg, "copy_ratio")) o.policy.metric = METRIC_COPY_RATIO;
        else usage("--metric: want time or copy_ratio");
        break;
      case 'b': o.bench = optarg; break;
      case 'B': o.baselines = optarg; break;
      case 'F': o.baseline = optarg; break;
      case 'o': o.out_dir = optarg; break;
      case 'H': o.history_dir = optarg; break;
      case 'v': o.verdicts = optarg; break;
      case 's': o.strict = 1; break;
      case 'r': o.repetitions = (int)fraction_arg("repetitions", optarg, 0, 1000); break;
      case 'n': o.recheck = 0; break;
      case 'd': o.policy.min_delta_ns = 1e3 * fraction_arg("min_delta_us", optarg, -1e-9, 1e9); break;
      case 'h': usage(NULL); break;
      default: usage("unknown flag");
    }
  }
  o.rest = argv + optind;
  o.nrest = argc - optind;
  return o;
}

static int load_or_die(const char *path, gate_figures *f, int baseline) {
  char err[1024];
  if ((baseline ? load_baseline : load_run)(path, f, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  return 0;
}

static size_t count(const comparison *c, size_t n, verdict v) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += c[i].v == v;
  return k;
}

static int cmd_compare(options *o) {
  if (!o->baseline || o->nrest != 1) usage("compare needs --baseline=FILE and one RUN.json");
  char b1[4096], b2[4096], err[1024];
  gate_figures base, run;
  load_or_die(user_path(o->baseline, b1, sizeof b1), &base, 1);
  load_or_die(user_path(o->rest[0], b2, sizeof b2), &run, 0);
  if (same_hardware(&base.gpu, &run.gpu, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], o->baseline, err);
    return EXIT_BAD_INPUT;
  }
  gate_figures family_base;
  families_of(&base, &run, &family_base);
  if (same_method(&family_base, &run, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], o->baseline, err);
    return EXIT_BAD_INPUT;
  }
  comparison *c;
  size_t n = compare_figures(&family_base, &run, &o->policy, &c);
  free(family_base.b);
  print_table(stdout, c, n, NULL, o->policy.metric);
  int bad = count(c, n, VERDICT_SLOWER) + count(c, n, VERDICT_MISSING) > 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER || c[i].v == VERDICT_MISSING) {
      char msg[1024];
      failure_message(&c[i], msg, sizeof msg);
      printf("REGRESSION %s\n", msg);
    }
  free(c);
  free_figures(&base);
  free_figures(&run);
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}

/* Runs the benchmark binary; returns its exit status (or -1 if it could not start). */
static int run_bench(const options *o, const char *json_out, const char *filter) {
  char out_flag[4200], filter_flag[8192], reps[64];
  snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s", json_out);
  snprintf(reps, sizeof reps, "--benchmark_repetitions=%d", o->repetitions);
  const char *argv[64];
  int k = 0;
  argv[k++] = o->bench;
  argv[k++] = out_flag;
  argv[k++] = "--benchmark_out_format=json";
  argv[k++] = reps;
  if (filter) {
    snprintf(filter_flag, sizeof filter_flag, "--benchmark_filter=%s", filter);
    argv[k++] = filter_flag;
  }
  /* The commit under test, for the baseline and history rows (CI sets PERF_COMMIT). */
  char commit[128];
  const char *sha = getenv("PERF_COMMIT");
  if (sha && *sha) {
    snprintf(commit, sizeof commit, "--benchmark_context=commit=%s", sha);
    argv[k++] = commit;
  }
  for (int i = 0; i < o->nrest && k < 63; i++) argv[k++] = o->rest[i];
  argv[k] = NULL;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execv(o->bench, (char *const *)argv);
    fprintf(stderr, "gate: cannot run %s: %s\n", o->bench, strerror(errno));
    _exit(127);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t len) {
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "gate: cannot write %s: %s\n", path, strerror(errno));
  return f;
}

static int cmd_check(options *o) {
  if (!o->bench || !o->baselines) usage("check needs --bench=BIN and --baselines=DIR");
  const char *out_dir = o->out_dir ? o->out_dir : getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (!out_dir) out_dir = ".";
  const char *bench_name = strrchr(o->bench, '/') ? strrchr(o->bench, '/') + 1 : o->bench;
  char run_path[4096], recheck_path[4096], path[4096], err[1024];
  snprintf(run_path, sizeof run_path, "%s/%s.json", out_dir, bench_name);
  int rc = run_bench(o, run_path, NULL);
  if (rc != 0) {
    fprintf(stderr, "gate: %s exited with status %d: %s (its output above says why; the run JSON, if any, is kept at %s)\n",
            o->bench, rc, rc == 2 ? "bad flags" : "a benchmark failed its self-check, or no usable GPU", run_path);
    return rc == 2 ? EXIT_BAD_INPUT : EXIT_REGRESSION;
  }
  gate_figures run, base;
  load_or_die(run_path, &run, 0);
  char base_path[4096];
  snprintf(base_path, sizeof base_path, "%s/%s.json", o->baselines, run.gpu.slug);
  if (access(base_path, F_OK) != 0) {
    char cand[4096];
    snprintf(cand, sizeof cand, "%s/%s.candidate.json", out_dir, run.gpu.slug);
    if (save_baseline(cand, &run, err, sizeof err)) fprintf(stderr, "gate: %s\n", err);
    fprintf(stderr,
            "\n*** WARNING: no baseline for %s (%s): nothing was compared. ***\n"
            "*** Candidate written to %s; adopt it (better: several runs) with:\n"
            "***   bazel run //perf/gate:bless -- --baselines=baselines RUN.json [RUN.json...]\n\n",
            run.gpu.name, base_path, cand);
    free_figures(&run);
    return o->strict ? EXIT_REGRESSION : EXIT_PASS;
  }
  load_or_die(base_path, &base, 1);
  if (same_hardware(&base.gpu, &run.gpu, err, sizeof err)) {
    fprintf(stderr, "gate: this GPU does not match the baseline %s: %s\n", base_path, err);
    return EXIT_BAD_INPUT;
  }
  gate_figures family_base; /* this family's part of the GPU's baseline */
  families_of(&base, &run, &family_base);
  if (same_method(&family_base, &run, err, sizeof err)) {
    fprintf(stderr, "gate: baseline %s: %s\n", base_path, err);
    fprintf(stderr, "gate: this run's JSON (%s.json) is kept with the test's outputs (bazel-testlogs/<package>/<test>/"
            "test.outputs/, or artifacts/perf/<test>/ after ci/gate.sh); to re-bless, adopt three or more such runs:\n"
            "  bazel run //perf/gate:bless -- --baselines=baselines RUN.json [RUN.json...]   (or ci/bless.sh)\n",
            bench_name);
    return EXIT_BAD_INPUT;
  }
  comparison *c;
  size_t n = compare_figures(&family_base, &run, &o->policy, &c);
  char **notes = calloc(n + 1, sizeof *notes);

  /* Re-measure what looks slower in a fresh process before calling it a regression. */
  size_t nslow = count(c, n, VERDICT_SLOWER);
  gate_figures again = {0};
  if (nslow && o->recheck) {
    size_t flen = 8;
    for (size_t i = 0; i < n; i++)
      if (c[i].v == VERDICT_SLOWER) flen += strlen(c[i].name) + 1;
    char *filter = malloc(flen), *p = filter;
    p += sprintf(p, "^(");
    for (size_t i = 0, first = 1; i < n; i++)
      if (c[i].v == VERDICT_SLOWER) {
        p += sprintf(p, "%s%s", first ? "" : "|", c[i].name);
        first = 0;
      }
    sprintf(p, ")$");
    printf("\n%zu benchmark(s) look slower; re-measuring them in a fresh process: %s\n", nslow, filter);
    snprintf(recheck_path, sizeof recheck_path, "%s/%s.recheck.json", out_dir, bench_name);
    rc = run_bench(o, recheck_path, filter);
    free(filter);
    if (rc != 0) {
      fprintf(stderr, "gate: re-measurement failed (status %d)\n", rc);
      return EXIT_REGRESSION;
    }
    load_or_die(recheck_path, &again, 0);
    comparison *c2;
    size_t n2 = compare_figures(&family_base, &again, &o->policy, &c2);
    for (size_t i = 0; i < n; i++) {
      if (c[i].v != VERDICT_SLOWER) continue;
      for (size_t j = 0; j < n2; j++) {
        if (strcmp(c2[j].name, c[i].name) != 0 || c2[j].v == VERDICT_MISSING) continue;
        notes[i] = malloc(160);
        if (c2[j].v == VERDICT_SLOWER) {
          snprintf(notes[i], 160, "(confirmed: first %+.2f%%, re-measured %+.2f%%)", 100 * c[i].delta, 100 * c2[j].delta);
          c[i] = c2[j]; /* report the re-measured figures */
        } else {
          snprintf(notes[i], 160, "(first %+.2f%%, not confirmed: re-measured %+.2f%%)", 100 * c[i].delta,
                   100 * c2[j].delta);
          c[i].v = VERDICT_SAME;
        }
        c[i].name = strdup(c[i].name);
      }
    }
  }

  printf("\n");
  print_table(stdout, c, n, (const char *const *)notes, o->policy.metric);
  FILE *md = open_out(out_dir, "summary.md", path, sizeof path);
  if (md) {
    char title[512];
    snprintf(title, sizeof title, "%s on %s", bench_name, run.gpu.name);
    write_markdown(md, title, c, n, (const char *const *)notes, o->policy.metric);
    fclose(md);
  }
  snprintf(path, sizeof path, "%s/verdicts.json", out_dir);
  write_verdicts_json(path, c, n, o->policy.metric);
  const char *xml = getenv("XML_OUTPUT_FILE");
  FILE *jx = xml ? fopen(xml, "w") : NULL;
  if (jx) {
    write_junit(jx, bench_name, c, n, (const char *const *)notes);
    fclose(jx);
  }
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER || c[i].v == VERDICT_MISSING) {
      char msg[1024];
      failure_message(&c[i], msg, sizeof msg);
      fprintf(stderr, "REGRESSION %s\n", msg);
      bad = 1;
    }
  printf("\n%s: %zu compared, %zu slower, %zu faster, %zu new, %zu missing. Run JSON: %s\n",
         bad ? "FAIL" : "PASS", n, count(c, n, VERDICT_SLOWER), count(c, n, VERDICT_FASTER), count(c, n, VERDICT_NEW),
         count(c, n, VERDICT_MISSING), run_path);
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}

static int cmd_bless(options *o) {
  if (!o->baselines || o->nrest < 1) usage("bless needs --baselines=DIR and at least one RUN.json");
  char buf[4096], err[1024];
  gate_figures *runs = calloc((size_t)o->nrest, sizeof *runs);
  for (int i = 0; i < o->nrest; i++) load_or_die(user_path(o->rest[i], buf, sizeof buf), &runs[i], 0);
  gate_figures merged;
  if (merge_runs(runs, (size_t)o->nrest, &merged, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", user_path(o->baselines, buf, sizeof buf));
  snprintf(path, sizeof path, "%s/%s.json", dir, merged.gpu.slug);
  for (size_t i = 0; i < merged.n; i++)
    if (merged.b[i].nruns < 3) {
      fprintf(stderr, "gate: warning: %s has %zu run(s); a baseline's noise is the spread between runs, so give "
              "at least 3 runs (separate processes) of each family\n", merged.b[i].name, merged.b[i].nruns);
      break;
    }
  gate_figures result = merged;
  if (access(path, F_OK) == 0) {
    gate_figures old, old_view;
    load_or_die(path, &old, 1);
    if (replace_families(&old, &merged, &result, err, sizeof err)) {
      fprintf(stderr, "gate: %s holds a baseline of other hardware: %s\n", path, err);
      return EXIT_BAD_INPUT;
    }
    families_of(&old, &merged, &old_view);
    gate_policy p = default_policy();
    comparison *c;
    size_t n = compare_figures(&old_view, &merged, &p, &c);
    printf("Changes against the old baseline %s (families re-measured: the new runs are 'New'):\n", path);
    print_table(stdout, c, n, NULL, p.metric);
    printf("Kept from the old baseline: %zu benchmarks of other families\n", result.n - merged.n);
    free(c);
    free(old_view.b);
    free_figures(&old);
  } else {
    printf("No baseline yet for %s: creating %s\n", merged.gpu.name, path);
  }
  if (save_baseline(path, &result, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  printf("Blessed %zu benchmarks from %d run(s) into %s\n", merged.n, o->nrest, path);
  return EXIT_PASS;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Interquartile range over median: the within-run spread of one benchmark's samples. */
static double relative_iqr(const gate_measure *m) {
  double *s = malloc(m->nsamples * sizeof *s);
  memcpy(s, m->samples_ns, m->nsamples * sizeof *s);
  qsort(s, m->nsamples, sizeof *s, cmp_double);
  double r = (s[(3 * (m->nsamples - 1)) / 4] - s[(m->nsamples - 1) / 4]) / m->median_ns;
  free(s);
  return r;
}

static int cmd_history(options *o) {
  if (!o->history_dir || !o->verdicts || o->nrest != 1) usage("history needs --history_dir, --verdicts and one RUN.json");
  char b1[4096], b2[4096], b3[4096], path[4300];
  gate_figures run;
  load_or_die(user_path(o->rest[0], b1, sizeof b1), &run, 0);
  json_error_t je;
  json_t *v = json_load_file(user_path(o->verdicts, b2, sizeof b2), 0, &je);
  json_t *list = v ? json_object_get(v, "verdicts") : NULL;
  if (!json_is_array(list)) {
    fprintf(stderr, "gate: %s: field verdicts: expected the array gate check writes (%s)\n", o->verdicts,
            v ? "missing" : je.text);
    return EXIT_BAD_INPUT;
  }
  const char *dir = user_path(o->history_dir, b3, sizeof b3);
  snprintf(path, sizeof path, "%s/%s.csv", dir, run.gpu.slug);
  char *rows = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&rows, &len);
  if (!mem) {
    fprintf(stderr, "gate: out of memory\n");
    return EXIT_BAD_INPUT;
  }
  for (size_t i = 0; i < run.n; i++) {
    const char *verdict = "unknown";
    for (size_t j = 0; j < json_array_size(list); j++) {
      json_t *e = json_array_get(list, j);
      const char *name = json_string_value(json_object_get(e, "name"));
      const char *said = json_string_value(json_object_get(e, "verdict"));
      if (name && said && !strcmp(name, run.b[i].name)) verdict = said;
    }
    fprintf(mem, "%s,%s,%s,%s,%.6g,%.6g,%.4g,%s,%s\n", run.runs[0].date, run.runs[0].commit, run.gpu.slug,
            run.b[i].name, run.b[i].runs[0].median_ns, run.b[i].bytes_per_second, relative_iqr(&run.b[i].runs[0]),
            verdict, run.runs[0].l2_flush);
  }
  fclose(mem);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "gate: cannot create the history folder %s: %s\n", dir, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  /* One locked O_APPEND write: earlier rows are never touched, concurrent writers never interleave. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    fprintf(stderr, "gate: cannot open %s for appending: %s\n", path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  struct stat st;
  /* A file begun before the l2_flush field keeps its 8-field header; the renderer
   * reads its 8-field rows as the memset ("write") flush and the 9-field ones as said. */
  static const char header[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n";
  int ok = fstat(fd, &st) == 0;
  if (ok && st.st_size == 0) ok = write(fd, header, sizeof header - 1) == (ssize_t)(sizeof header - 1);
  ok = ok && write(fd, rows, len) == (ssize_t)len && fsync(fd) == 0;
  flock(fd, LOCK_UN);
  close(fd);
  if (!ok) {
    fprintf(stderr, "gate: appending to %s failed: %s\n", path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  printf("Appended %zu rows to %s\n", run.n, path);
  free(rows);
  json_decref(v);
  free_figures(&run);
  return EXIT_PASS;
}

int main(int argc, char **argv) {
  if (argc < 2) usage("a command is needed");
  options o = parse(argc, argv);
  if (!strcmp(argv[1], "check")) return cmd_check(&o);
  if (!strcmp(argv[1], "compare")) return cmd_compare(&o);
  if (!strcmp(argv[1], "bless")) return cmd_bless(&o);
  if (!strcmp(argv[1], "history")) return cmd_history(&o);
  usage("unknown command (want check, compare, bless or history)");
  return EXIT_BAD_INPUT;
}
