/* What the gate's commands share (gate_cli.h): the usage, paths given by the user, loading inputs or
 * exiting 2, counting verdicts. gate_main.c parses the options and dispatches to the commands
 * (check.c, ab.c, compare_cmd.c, bless.c, history.c, testbeds.c, trends_cmd.c), which call these. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/gate_cli.h"

void print_usage(FILE *out) {
  fprintf(out,
          "usage:\n"
          "  gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N (1..1000)]\n"
          "               [--contexts=K (16)] [--long_contexts=L (4)] [--warmup=S (0)] [--out_dir=DIR]\n"
          "               [--no_recheck] [--against_bench=BASE_BIN [--against=REV] [--pairs=N (2)]]\n"
          "               [-- BENCHMARK FLAGS]\n"
          "      run BIN, compare with DIR/<gpu>.json, re-measure what looks slower; writes the run JSON,\n"
          "      summary.md and verdicts.json to --out_dir (made if missing), JUnit XML to $XML_OUTPUT_FILE.\n"
          "      The gate sets --benchmark_out and --benchmark_out_format: do not give them after --\n"
          "      --warmup=S: S seconds (0..60) of warm-up per benchmark and context (the benchmark's\n"
          "      --benchmark_min_warmup_time: not after --); a family whose kernels' clock settles under\n"
          "      load uses it, and its baseline must be made the same way\n"
          "      --against_bench: A/B instead of a baseline: BASE_BIN (the base revision REV's build of the same\n"
          "      benchmark; or $PERF_AB_BASE/BIN, $PERF_AB_AGAINST naming REV) and BIN measured in turn on this\n"
          "      GPU, N pairs of processes; an identical binary is reported unchanged and not measured\n"
          "  gate migrate [--per_family] BASELINE.json...\n"
          "      rewrite baselines in the current format (their runs and figures unchanged)\n"
          "  gate testbeds --uncovered=TESTBED BASELINE.json BENCH_BIN...\n"
          "      list the benchmarks of the binaries that the baseline has no run of TESTBED of\n"
          "  gate testbeds --has_runs=TESTBED BASELINE.json\n"
          "      exit 0 when the baseline has a run of TESTBED, 1 when it has none\n"
          "  gate testbeds [--label=TESTBED] BASELINE.json\n"
          "      list the testbeds (runner host classes) the baseline has runs of; --label names the testbed\n"
          "      of its runs that have none (a migration of baselines made before testbeds)\n"
          "  gate compare (--baseline=FILE | --baselines=DIR) [POLICY] [--strict] [--recheck=FILE] [--out_dir=DIR]\n"
          "               RUN.json\n"
          "      judge a run already measured (DIR: the baseline of its GPU); --recheck: the re-measure gate\n"
          "      check wrote beside it (<bench>.recheck.json) confirms slower verdicts (without it they stand,\n"
          "      noted unconfirmed); --out_dir: write summary.md and verdicts.json there (made if missing);\n"
          "      --strict: fail when none of the run's benchmarks is in the baseline, as gate check does\n"
          "  gate bless   --baselines=DIR [--add [--accept-slower]] [--only=REGEX] RUN.json...\n"
          "      adopt runs (separate processes, each given once) as DIR/<gpu>.json; only their families\n"
          "      (--add: the runs join the baseline's runs of those families instead of replacing them;\n"
          "      --only: only the benchmarks whose name matches REGEX, the rest keep their runs; --add refuses\n"
          "      a run the gate judges slower than the baseline unless --accept-slower)\n"
          "  gate history --history_dir=DIR --verdicts=FILE RUN.json\n"
          "      append a row per benchmark to DIR/<gpu>.csv; FILE is the verdicts.json of RUN.json\n"
          "  gate failing VERDICTS.json...\n"
          "      print NAME: VERDICT for each verdict that fails the gate; exit 2 for a file that is not a\n"
          "      verdicts.json of gate check (missing, cut short, not JSON)\n"
          "  gate trends [--since=DATE] [...] HISTORY.csv...\n"
          "      change points and creep over the history (gate trends --help)\n"
          "  gate --help\n"
          "POLICY: --tolerance=FRACTION (0.03) --own_tolerance=FRACTION (0.02: against this GPU's own runs)\n"
          "        --family_tolerance=FAMILY=FRACTION --k_noise=K (3)\n"
          "        --alpha=P (0.01) --min_delta_us=US (0.25) --metric=time|copy_ratio (time)\n"
          "Exit status: 0 pass, 1 confirmed regression or failed benchmark, 2 bad input or usage.\n");
}

void usage(const char *msg) {
  if (msg) fprintf(stderr, "gate: %s\n", msg);
  print_usage(stderr);
  exit(EXIT_BAD_INPUT);
}

void format_path(char *buf, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= len) {
    fprintf(stderr, "gate: a path is too long (%d characters, at most %zu): '%.80s...'; use a shorter folder\n", n,
            len - 1, buf);
    exit(EXIT_BAD_INPUT);
  }
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  return s;
}

const char *user_path(const char *p, char *buf, size_t len) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (p[0] == '/' || !wd) return p;
  format_path(buf, len, "%s/%s", wd, p);
  return buf;
}

void make_out_dir_or_die(const char *dir) {
  if (!*dir) usage("--out_dir= needs a folder");
  char buf[4096];
  format_path(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1;; p++) {
    if (*p && *p != '/') continue;
    char c = *p;
    *p = '\0';
    struct stat st;
    int err = mkdir(buf, 0755) != 0 && errno != EEXIST ? errno : 0;
    if (!err && stat(buf, &st) != 0) err = errno;
    if (err || !S_ISDIR(st.st_mode)) {
      fprintf(stderr, "gate: --out_dir=%s: cannot make the folder: %s: %s; give a folder the gate can write in\n", dir,
              buf, err ? strerror(err) : "not a folder");
      exit(EXIT_BAD_INPUT);
    }
    if (!c) return;
    *p = c;
  }
}

void check_baselines_folder(const char *dir) {
  struct stat st;
  if (!*dir) {
    fprintf(stderr, "gate: --baselines= is empty: give the folder that holds the baselines, <gpu-slug>.json\n");
    exit(EXIT_BAD_INPUT);
  }
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT)
      fprintf(stderr,
              "gate: --baselines=%s: no such folder (a typo? nothing would be compared); give the folder "
              "that holds the baselines, <gpu-slug>.json\n",
              dir);
    else
      fprintf(stderr, "gate: --baselines=%s: cannot read it: %s\n", dir, strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "gate: --baselines=%s: not a folder: give the folder that holds the baselines, "
            "<gpu-slug>.json\n",
            dir);
    exit(EXIT_BAD_INPUT);
  }
}

void load_or_die(const char *path, gate_figures *f, int baseline) {
  char err[1024];
  if ((baseline ? load_baseline : load_run)(path, f, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
}

int file_exists(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0) return 1;
  if (errno == ENOENT) return 0;
  fprintf(stderr, "gate: cannot tell whether %s exists: %s; fix or remove it\n", path, strerror(errno));
  exit(EXIT_BAD_INPUT);
}

int find_baseline_or_die(const char *dir, const char *slug, baseline_place *pl) {
  char err[10000];
  int found = baseline_find(dir, slug, pl, err, sizeof err);
  if (found >= 0) return found;
  fprintf(stderr, "gate: %s\n", err);
  exit(EXIT_BAD_INPUT);
}

size_t count_verdicts(const comparison *c, size_t n, verdict v) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += c[i].v == v;
  return k;
}
