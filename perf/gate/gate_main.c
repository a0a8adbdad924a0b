/* gate: the regression gate over benchmark runs and per-GPU baselines.
 *
 *   gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N] [--contexts=K]
 *                [--long_contexts=L] [--warmup=S] [--out_dir=DIR] [--no_recheck] [-- BENCH FLAGS]
 *       Runs a family's benchmark binary (short benchmarks in K = 16 CUDA contexts, --contexts, long
 *       ones in the first L = 4 of them, --long_contexts),
 *       compares with the baseline of the GPU it ran on
 *       (DIR/<gpu-slug>.json), re-measures anything slower (the whole family again, in a fresh
 *       process, as it was measured first), and fails only on
 *       a confirmed regression. BIN and DIR must exist (else exit 2, before anything runs); a DIR
 *       without this GPU's file passes with a loud warning and writes a candidate baseline
 *       (--strict fails instead). First removes an earlier check's outputs from --out_dir
 *       (default $TEST_UNDECLARED_OUTPUTS_DIR, else .); then writes there the run JSON
 *       (<bench>.json, kept when the gate fails), <bench>.recheck.json, summary.md and
 *       verdicts.json, and JUnit XML to $XML_OUTPUT_FILE when set. A benchmark that exits 0
 *       without writing its run JSON, or a report that cannot be written, is exit 2. The gate
 *       sets --benchmark_out, --benchmark_out_format and --benchmark_min_warmup_time (from --warmup),
 *       so BENCH FLAGS may not. The benchmark dies with the gate: SIGTERM and SIGINT are forwarded to
 *       it, PR_SET_PDEATHSIG covers the rest.
 *       --warmup=S: S seconds of warm-up per benchmark and context (the benchmark's
 *       --benchmark_min_warmup_time); a family whose kernels' clock settles under load uses it, and its
 *       baseline must be made the same way. 0 to 60; default 0, the benchmark's one warm-up run.
 *       A/B (--against_bench=BASE_BIN, or PERF_AB_BASE=DIR for DIR/BIN; ci/gate.sh --against=REV): the
 *       base revision's build of the benchmark and BIN are measured in turn on this GPU (--pairs=N
 *       pairs of processes, ABBA order) and judged as a runner against its own runs, with the same
 *       confirmation; identical binaries are "unchanged", not measured (perf/gate/ab.c).
 *   gate compare (--baseline=FILE | --baselines=DIR) [POLICY] [--recheck=FILE] [--out_dir=DIR] RUN.json
 *       Judges a run already measured, as gate check did or would now: against FILE, or the
 *       baseline of its GPU in DIR; --recheck gives the re-measure gate check wrote beside it
 *       (<bench>.recheck.json), which must confirm a slower verdict as in gate check (without it a
 *       slower verdict stands, noted "not re-measured: unconfirmed"); --out_dir
 *       writes summary.md and verdicts.json there. Re-judges soak rounds offline (ci/soak.sh
 *       --rejudge) after a change to the gate or a baseline.
 *   gate bless   --baselines=DIR [--add] [--only=REGEX] RUN.json...
 *       Adopts runs (separate processes: one file or run given twice is refused) as the baseline
 *       of their GPU, replacing only the families they measured; with --add the runs join the
 *       baseline's runs of their families (a runner brought into the baseline: it is then
 *       compared with its own runs, compare.h; a run already there joins with the benchmarks it
 *       has none of there, a run counts once per benchmark); with --only, only the benchmarks whose name
 *       matches REGEX (POSIX extended, anywhere in the name) are replaced or joined, and the rest
 *       of their families keep their runs (a variant changed on purpose). Reads, merges and replaces
 *       DIR/<gpu-slug>.json atomically under an exclusive flock of DIR.
 *   gate history --history_dir=DIR --verdicts=FILE RUN.json
 *       Appends one CSV row per benchmark to DIR/<gpu-slug>.csv, all or nothing (flock of DIR, a temporary
 *       file renamed over the old one); rows carry the threshold each verdict applied and the run's testbed,
 *       and a file of the 8- or 9-field format gains those two fields (empty in its old rows).
 *       FILE must be the verdicts.json gate check wrote for RUN.json (same gpu.name, run.date,
 *       run.host); fields that would break an unquoted CSV row, and a file that does not end in
 *       a line break or start with a history header, are refused.
 *   gate migrate BASELINE.json...
 *       Rewrites baselines in the current format (figures.h BASELINE_SCHEMA_VERSION), atomically under the
 *       folder's lock; runs and figures unchanged.
 *   gate testbeds [--label=TESTBED] BASELINE.json
 *       Lists the testbeds the baseline has runs of (runs, GPUs, testbed per line; "(none)" for runs
 *       made before the field); --label names the testbed of those runs (a migration), under the
 *       folder's lock, and saves the baseline atomically.
 *   gate --help, gate COMMAND --help
 *
 * verdicts.json: {"metric": "time" | "copy_ratio", "gpu": {"name", "uuid"},
 *                 "run": {"date", "host", "commit"}, "verdicts": [{"name", "verdict", ...}]}
 * POLICY: --tolerance=0.03 --own_tolerance=0.02 (against the GPU's own runs in the baseline)
 *         --family_tolerance=FAMILY=F (repeatable; either comparison) --k_noise=3 --alpha=0.01 --min_delta_us=0.25
 *         --metric=time|copy_ratio
 * Exit status: 0 pass, 1 confirmed regression (or a benchmark missing / failing), 2 bad input or
 * usage (a missing, unreadable or invalid file, a failed write). Messages name the file, the
 * field and the fix.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/gate_cli.h"
#include "perf/gate/report.h"

static void print_usage(FILE *out) {
  fprintf(out,
          "usage:\n"
          "  gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N (1..1000)]\n"
          "               [--contexts=K (16)] [--long_contexts=L (4)] [--warmup=S (0)] [--out_dir=DIR]\n"
          "               [--no_recheck] [--against_bench=BASE_BIN [--against=REV] [--pairs=N (2)]]\n"
          "               [-- BENCHMARK FLAGS]\n"
          "      run BIN, compare with DIR/<gpu>.json, re-measure what looks slower; writes the run JSON,\n"
          "      summary.md and verdicts.json to --out_dir, JUnit XML to $XML_OUTPUT_FILE. The gate sets\n"
          "      --benchmark_out and --benchmark_out_format: do not give them after --\n"
          "      --warmup=S: S seconds (0..60) of warm-up per benchmark and context (the benchmark's\n"
          "      --benchmark_min_warmup_time: not after --); a family whose kernels' clock settles under\n"
          "      load uses it, and its baseline must be made the same way\n"
          "      --against_bench: A/B instead of a baseline: BASE_BIN (the base revision REV's build of the same\n"
          "      benchmark; or $PERF_AB_BASE/BIN, $PERF_AB_AGAINST naming REV) and BIN measured in turn on this\n"
          "      GPU, N pairs of processes; an identical binary is reported unchanged and not measured\n"
          "  gate migrate BASELINE.json...\n"
          "      rewrite baselines in the current format (their runs and figures unchanged)\n"
          "  gate testbeds [--label=TESTBED] BASELINE.json\n"
          "      list the testbeds (runner host classes) the baseline has runs of; --label names the testbed\n"
          "      of its runs that have none (a migration of baselines made before testbeds)\n"
          "  gate compare (--baseline=FILE | --baselines=DIR) [POLICY] [--recheck=FILE] [--out_dir=DIR] RUN.json\n"
          "      judge a run already measured (DIR: the baseline of its GPU); --recheck: the re-measure gate\n"
          "      check wrote beside it (<bench>.recheck.json) confirms slower verdicts (without it they stand,\n"
          "      noted unconfirmed); --out_dir: write summary.md and verdicts.json there\n"
          "  gate bless   --baselines=DIR [--add [--accept-slower]] [--only=REGEX] RUN.json...\n"
          "      adopt runs (separate processes, each given once) as DIR/<gpu>.json; only their families\n"
          "      (--add: the runs join the baseline's runs of those families instead of replacing them;\n"
          "      --only: only the benchmarks whose name matches REGEX, the rest keep their runs; --add refuses\n"
          "      a run the gate judges slower than the baseline unless --accept-slower)\n"
          "  gate history --history_dir=DIR --verdicts=FILE RUN.json\n"
          "      append a row per benchmark to DIR/<gpu>.csv; FILE is the verdicts.json of RUN.json\n"
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

static double fraction_arg(const char *flag, const char *v, double lo, double hi) {
  double x;
  if (policy_number(v, lo, hi, &x)) {
    char msg[256];
    snprintf(msg, sizeof msg, "--%s=%s: want a number in (%g, %g)", flag, v, lo, hi);
    usage(msg);
  }
  return x;
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

/* Seconds from 0 to hi: "-1", "abc", "0.2s", "inf" or "nan" are refused. */
static double seconds_arg(const char *flag, const char *v, double hi) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !(x >= 0 && x <= hi)) {
    char msg[256];
    snprintf(msg, sizeof msg, "--%s=%.40s: want seconds from 0 to %g, like 0.2", flag, v, hi);
    usage(msg);
  }
  return x;
}

/* A whole number in [lo, hi]: "0.5", "2x" or "" are refused, not rounded. */
static int integer_arg(const char *flag, const char *v, long lo, long hi) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (end == v || *end || errno || x < lo || x > hi) {
    char msg[256];
    snprintf(msg, sizeof msg, "--%s=%.40s: want a whole number from %ld to %ld", flag, v, lo, hi);
    usage(msg);
  }
  return (int)x;
}

const char *user_path(const char *p, char *buf, size_t len) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (p[0] == '/' || !wd) return p;
  format_path(buf, len, "%s/%s", wd, p);
  return buf;
}

static options parse(int argc, char **argv) {
  options o = {.policy = default_policy(), .repetitions = 1, .recheck = 1, .contexts = GATE_CONTEXTS,
               .long_contexts = GATE_LONG_CONTEXTS};
  static const struct option opts[] = {
      {"tolerance", required_argument, 0, 't'},  {"family_tolerance", required_argument, 0, 'f'},
      {"own_tolerance", required_argument, 0, 'T'},
      {"k_noise", required_argument, 0, 'k'},    {"alpha", required_argument, 0, 'a'},
      {"metric", required_argument, 0, 'm'},     {"bench", required_argument, 0, 'b'},
      {"baselines", required_argument, 0, 'B'},  {"baseline", required_argument, 0, 'F'},
      {"out_dir", required_argument, 0, 'o'},    {"history_dir", required_argument, 0, 'H'},
      {"verdicts", required_argument, 0, 'v'},   {"strict", no_argument, 0, 's'},
      {"repetitions", required_argument, 0, 'r'}, {"no_recheck", no_argument, 0, 'n'},
      {"min_delta_us", required_argument, 0, 'd'}, {"contexts", required_argument, 0, 'c'},
      {"add", no_argument, 0, 'A'},              {"help", no_argument, 0, 'h'},
      {"recheck", required_argument, 0, 'R'},    {"long_contexts", required_argument, 0, 'L'},
      {"only", required_argument, 0, 'O'},       {"warmup", required_argument, 0, 'W'},
      {"against_bench", required_argument, 0, 'X'}, {"against", required_argument, 0, 'Y'},
      {"pairs", required_argument, 0, 'P'},     {"label", required_argument, 0, 'l'},
      {"accept-slower", no_argument, 0, 'S'},
      {0, 0, 0, 0}};
  int c;
  char err[512];
  optind = 2;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 't': o.policy.tolerance = fraction_arg("tolerance", optarg, 0, 1); break;
      case 'T': o.policy.own_tolerance = fraction_arg("own_tolerance", optarg, 0, 1); break;
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
      case 'r': o.repetitions = integer_arg("repetitions", optarg, 1, 1000); break;
      case 'n': o.recheck = 0; break;
      case 'R': o.recheck_file = optarg; break;
      case 'A': o.add = 1; break;
      case 'S': o.accept_slower = 1; break;
      case 'O': o.only = optarg; break;
      case 'c': o.contexts = integer_arg("contexts", optarg, 1, 256); break;
      case 'L': o.long_contexts = integer_arg("long_contexts", optarg, 0, 256); break;
      case 'W': o.warmup_s = seconds_arg("warmup", optarg, 60); break;
      case 'X': o.against_bench = optarg; break;
      case 'Y': o.against = optarg; break;
      case 'l': o.label_testbed = optarg; break;
      case 'P': o.pairs = integer_arg("pairs", optarg, 1, 20); break;
      case 'd': o.policy.min_delta_ns = 1e3 * fraction_arg("min_delta_us", optarg, -1e-9, 1e9); break;
      case 'h': print_usage(stdout); exit(EXIT_PASS);
      default: usage("unknown flag");
    }
  }
  if (o.long_contexts > 0 && (o.contexts < 2 || o.long_contexts > o.contexts))
    usage("--long_contexts=L: the long benchmarks are measured in the first L of the --contexts=K ones, so L must be "
          "0, or at most K with K >= 2 (defaults: K = 16, L = 4)");
  o.rest = argv + optind;
  o.nrest = argc - optind;
  return o;
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

size_t count_verdicts(const comparison *c, size_t n, verdict v) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += c[i].v == v;
  return k;
}

/* RUN.json's name without its folder and ".json": the benchmark's, as gate check names it. */
static char *bench_name_of(const char *run_path) {
  const char *base = strrchr(run_path, '/') ? strrchr(run_path, '/') + 1 : run_path;
  size_t len = strlen(base);
  if (len > 5 && !strcmp(base + len - 5, ".json")) len -= 5;
  return xasprintf("%.*s", (int)len, base);
}

static int cmd_compare(options *o) {
  if ((!o->baseline == !o->baselines) || o->nrest != 1)
    usage("compare needs --baseline=FILE or --baselines=DIR, and one RUN.json");
  char b1[4096], b2[4096], b3[4096], b4[4096], err[1024] = "";
  gate_figures base, run, again;
  int have_again = 0;
  load_or_die(user_path(o->rest[0], b2, sizeof b2), &run, 0);
  const char *base_path = o->baseline;
  if (o->baselines) { /* the baseline of the GPU the run was measured on, as gate check picks it */
    format_path(b4, sizeof b4, "%s/%s.json", o->baselines, run.gpu.slug);
    base_path = b4;
  }
  load_or_die(user_path(base_path, b1, sizeof b1), &base, 1);
  if (same_hardware(&base.gpu, &run.gpu, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], base_path, err);
    return EXIT_BAD_INPUT;
  }
  gate_figures family_base;
  families_of(&base, &run, &family_base);
  if (same_method(&family_base, &run, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], base_path, err);
    return EXIT_BAD_INPUT;
  }
  comparison *c;
  size_t n = compare_figures(&family_base, &run, &o->policy, &c);
  char **notes = calloc(n + 1, sizeof *notes);
  if (o->recheck_file) {
    load_or_die(user_path(o->recheck_file, b3, sizeof b3), &again, 0);
    have_again = 1;
    if (same_hardware(&run.gpu, &again.gpu, err, sizeof err) || strcmp(run.runs[0].gpu_uuid, again.runs[0].gpu_uuid)) {
      fprintf(stderr, "gate: %s is not a re-measure of %s: %s; give the <bench>.recheck.json written beside it\n",
              o->recheck_file, o->rest[0], err[0] ? err : "measured on another GPU");
      return EXIT_BAD_INPUT;
    }
    confirm_slower(&family_base, &again, &o->policy, c, n, notes); /* c may point into again */
  } else {
    /* gate check would have re-measured it (ci/soak.sh --rejudge of a round that saw nothing slower). */
    for (size_t i = 0; i < n; i++)
      if (c[i].v == VERDICT_SLOWER) notes[i] = xasprintf("(not re-measured: unconfirmed)");
  }
  print_table(stdout, c, n, (const char *const *)notes, o->policy.metric);
  int unwritten = 0;
  if (o->out_dir) {
    char *bench_name = bench_name_of(o->rest[0]);
    unwritten = write_reports(o, user_path(o->out_dir, b3, sizeof b3), bench_name, &run, c, n,
                              (const char *const *)notes);
    free(bench_name);
  }
  free(family_base.b);
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER || c[i].v == VERDICT_MISSING) {
      char msg[1024];
      failure_message(&c[i], msg, sizeof msg);
      printf("%s %s\n", verdict_fails(&c[i]) ? "REGRESSION" : "ENVIRONMENT CHANGED", msg);
      bad |= verdict_fails(&c[i]);
    }
  for (size_t i = 0; i < n; i++) free(notes[i]);
  free(notes);
  free(c);
  free_figures(&base);
  free_figures(&run);
  if (have_again) free_figures(&again);
  if (unwritten) {
    fprintf(stderr, "gate: %d report(s) could not be written in %s (see above)\n", unwritten, o->out_dir);
    return EXIT_BAD_INPUT;
  }
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}

int main(int argc, char **argv) {
  if (argc < 2) usage("a command is needed");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_usage(stdout);
    return EXIT_PASS;
  }
  if (!strcmp(argv[1], "trends")) return cmd_trends(argc, argv); /* its own flags: trends_cmd.c */
  options o = parse(argc, argv);
  if (!strcmp(argv[1], "check")) return cmd_check(&o);
  if (!strcmp(argv[1], "compare")) return cmd_compare(&o);
  if (!strcmp(argv[1], "bless")) return cmd_bless(&o);
  if (!strcmp(argv[1], "history")) return cmd_history(&o);
  if (!strcmp(argv[1], "testbeds")) return cmd_testbeds(&o);
  if (!strcmp(argv[1], "migrate")) return cmd_migrate(&o);
  usage("unknown command (want check, compare, bless, history, migrate, testbeds or trends)");
  return EXIT_BAD_INPUT;
}
