/* gate: the regression gate over benchmark runs and per-GPU baselines.
 *
 *   gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N] [--contexts=K]
 *                [--long_contexts=L] [--warmup=S] [--out_dir=DIR] [--no_recheck] [-- BENCH FLAGS]
 *       Runs a family's benchmark binary (short benchmarks in K = 16 CUDA contexts, --contexts, long
 *       ones in the first L = 4 of them, --long_contexts),
 *       compares with the baseline of the GPU it ran on
 *       (DIR/<gpu-slug>.json), re-measures anything slower (the suspects alone, in a fresh
 *       process, as they were measured first), and fails only on
 *       a confirmed regression. BIN and DIR must exist (else exit 2, before anything runs); a DIR
 *       without this GPU's file passes with a loud warning and writes a candidate baseline
 *       (--strict fails instead). First makes --out_dir if it is missing (mkdir -p; a path that
 *       cannot be made is exit 2, before anything runs; default $TEST_UNDECLARED_OUTPUTS_DIR, else .)
 *       and removes an earlier gate check's outputs from it; then writes there the run JSON
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
 *       confirmation; identical binaries, or benchmarks whose timed work is the same on both sides
 *       (BENCH --fingerprint_out), are "unchanged", not measured (perf/gate/ab.c). --against_uncovered
 *       (PERF_AB_BASE without PERF_AB_ALL=1): judge against the baseline, and A/B only the benchmarks
 *       it has no run of this testbed of.
 *   gate compare (--baseline=FILE | --baselines=DIR) [POLICY] [--strict] [--recheck=FILE] [--out_dir=DIR] RUN.json
 *       Judges a run already measured, as gate check did or would now: against FILE, or the
 *       baseline of its GPU in DIR; --recheck gives the re-measure gate check wrote beside it
 *       (<bench>.recheck.json), which must confirm a slower verdict as in gate check (without it a
 *       slower verdict stands, noted "not re-measured: unconfirmed"); --out_dir
 *       writes summary.md and verdicts.json there, made first if missing, as in gate check. A run none of
 *       whose benchmarks is in the baseline is warned of, and one of a testbed the baseline has no run of is NOT
 *       JUDGED (summary.md says so, no verdicts.json), as in gate check (--strict: exit 1). Re-judges
 *       soak rounds offline (ci/soak.sh --rejudge) after a change to the gate or a baseline.
 *   gate bless   --baselines=DIR [POLICY] [--add [--accept-slower]] [--only=REGEX] RUN.json...
 *       Adopts runs (separate processes: one file or run given twice is refused) as the baseline
 *       of their GPU, replacing only the families they measured; with --add the runs join the
 *       baseline's runs of their families (a runner brought into the baseline: it is then
 *       compared with its own runs, compare.h; a run already there joins with the benchmarks it
 *       has none of there, a run counts once per benchmark); with --only, only the benchmarks whose name
 *       matches REGEX (POSIX extended, anywhere in the name) are replaced or joined, and the rest
 *       of their families keep their runs (a variant changed on purpose). Reads, merges and replaces
 *       DIR/<gpu-slug>.json atomically under an exclusive flock of DIR. --add judges each run as gate compare
 *       would (POLICY) and refuses one slower than the baseline unless --accept-slower (only with --add).
 *   gate history --history_dir=DIR --verdicts=FILE RUN.json
 *       Appends one CSV row per benchmark to DIR/<gpu-slug>.csv, all or nothing (flock of DIR, a temporary
 *       file renamed over the old one); rows carry the threshold each verdict applied and the run's testbed,
 *       and a file of the 8- or 9-field format gains those two fields (empty in its old rows).
 *       FILE must be the verdicts.json gate check wrote for RUN.json (same gpu.name, run.date,
 *       run.host); fields that would break an unquoted CSV row, and a file that does not end in
 *       a line break or start with a history header, are refused.
 *   gate migrate [--per_family] BASELINE.json...
 *       Rewrites baselines in the current format (figures.h BASELINE_SCHEMA_VERSION), atomically under the
 *       folder's lock; runs and figures unchanged.
 *   gate testbeds --uncovered=TESTBED BASELINE.json BENCH_BIN...
 *       Lists the benchmarks of the binaries that BASELINE.json has no run of TESTBED of: those a gate check
 *       against it would A/B against the merge base (ci/gate.sh builds the base only when there are any).
 *   gate testbeds --has_runs=TESTBED BASELINE.json
 *       Exit 0 when BASELINE.json has a run of TESTBED, 1 when it has none (ci/gate.sh: else every benchmark
 *       A/B); has_testbed_runs (reference.h) decides, as gate check does.
 *   gate testbeds [--label=TESTBED] BASELINE.json
 *       Lists the testbeds the baseline has runs of (runs, GPUs, testbed per line; "(none)" for runs
 *       made before the field); --label names the testbed of those runs (a migration), under the
 *       folder's lock, and saves the baseline atomically.
 *   gate failing VERDICTS.json...
 *       Prints "NAME: VERDICT" for each verdict that fails the gate ("fails": true; in files from before that field,
 *       slower or missing); exit 2 when a file is missing or not the verdicts.json gate check writes (ci/bless.sh).
 *   gate --help, gate COMMAND --help
 *       The usage of every command, or of COMMAND: the flags it takes. A flag of another command is exit 2 naming
 *       the commands that take it (cli.c's table of flags), never ignored; so is giving testbeds more than one of
 *       --uncovered, --has_runs and --label. Flags are written in full: an abbreviation (--tol) is exit 2.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/gate_cli.h"

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

/* The flags of command cmd (CMD_*, gate_cli.h): one it does not take is refused (next_flag). */
static options parse(int argc, char **argv, unsigned cmd) {
  options o = {.policy = default_policy(),
               .repetitions = 1,
               .recheck = 1,
               .contexts = GATE_CONTEXTS,
               .long_contexts = GATE_LONG_CONTEXTS};
  int c;
  const char *name = NULL;
  char err[512];
  optind = 2;
  while ((c = next_flag(argc, argv, cmd, &name)) != -1) {
    switch (c) {
      case 't':
      case 'T':
      case 'f':
      case 'k':
      case 'a':
      case 'd': /* the decision rule's flags (POLICY_FLAGS, decide.h) */
        if (policy_flag(&o.policy, name, optarg, err, sizeof err)) usage(err);
        break;
      case 'm':
        if (!strcmp(optarg, "time"))
          o.policy.metric = METRIC_TIME;
        else if (!strcmp(optarg, "copy_ratio"))
          o.policy.metric = METRIC_COPY_RATIO;
        else
          usage("--metric: want time or copy_ratio");
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
      case 'V': o.uncovered_testbed = optarg; break;
      case 'G': o.has_runs_testbed = optarg; break;
      case 'Q': o.per_family = 1; break;
      case 'P': o.pairs = integer_arg("pairs", optarg, 1, 20); break;
      case 'U': o.against_uncovered = 1; break;
      case 'h': print_usage(stdout, cmd); exit(EXIT_PASS);
      default: usage("unknown flag");
    }
  }
  if (o.long_contexts > 0 && (o.contexts < 2 || o.long_contexts > o.contexts))
    usage(
        "--long_contexts=L: the long benchmarks are measured in the first L of the --contexts=K ones, so L must be "
        "0, or at most K with K >= 2 (defaults: K = 16, L = 4)");
  o.rest = argv + optind;
  o.nrest = argc - optind;
  return o;
}

int main(int argc, char **argv) {
  if (argc < 2) usage("a command is needed");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_usage(stdout, ALL_COMMANDS);
    return EXIT_PASS;
  }
  unsigned cmd = command_of(argv[1]);
  if (!cmd) usage("unknown command (want check, compare, bless, history, migrate, testbeds, trends or failing)");
  if (cmd == CMD_TRENDS) return cmd_trends(argc, argv); /* its own options: trends_cmd.c */
  options o = parse(argc, argv, cmd);
  switch (cmd) {
    case CMD_CHECK: return cmd_check(&o);
    case CMD_COMPARE: return cmd_compare(&o);
    case CMD_BLESS: return cmd_bless(&o);
    case CMD_HISTORY: return cmd_history(&o);
    case CMD_TESTBEDS: return cmd_testbeds(&o);
    case CMD_MIGRATE: return cmd_migrate(&o);
    default: return cmd_failing(&o); /* CMD_FAILING: trends and unknown commands are above */
  }
}
