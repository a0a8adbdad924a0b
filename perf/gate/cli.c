/* What the gate's commands share (gate_cli.h): their flags and usage, paths given by the user, loading inputs or
 * exiting 2, counting verdicts. gate_main.c parses the options and dispatches to the commands
 * (check.c, ab.c, compare_cmd.c, bless.c, history.c, testbeds.c, trends_cmd.c), which call these. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/gate_cli.h"

/* The commands, bit i of a command set (CMD_*, gate_cli.h) named commands[i]. */
static const char *const commands[] = {"check",    "compare", "bless",   "history",
                                       "testbeds", "migrate", "failing", "trends"};
enum { NCOMMANDS = sizeof commands / sizeof *commands };
_Static_assert(ALL_COMMANDS == (1u << NCOMMANDS) - 1, "a name for each command's bit");

/* Every flag of the gate and the commands that take it: those whose code reads it, and whose --help lists it. A
 * command refuses the rest (next_flag): ignored, a flag given to the wrong command read as if it took effect. */
#define POLICY_COMMANDS (CMD_CHECK | CMD_COMPARE | CMD_BLESS) /* bless --add judges runs as gate compare would */
static const struct {
  struct option opt;
  unsigned commands;
} gate_flags[] = {
    {{"tolerance", required_argument, 0, 't'}, POLICY_COMMANDS | CMD_TRENDS},
    {{"family_tolerance", required_argument, 0, 'f'}, POLICY_COMMANDS | CMD_TRENDS},
    {{"own_tolerance", required_argument, 0, 'T'}, POLICY_COMMANDS},
    {{"k_noise", required_argument, 0, 'k'}, POLICY_COMMANDS | CMD_TRENDS},
    {{"alpha", required_argument, 0, 'a'}, POLICY_COMMANDS | CMD_TRENDS}, /* trends: its change points' */
    {{"min_delta_us", required_argument, 0, 'd'}, POLICY_COMMANDS},
    {{"metric", required_argument, 0, 'm'}, POLICY_COMMANDS},
    {{"bench", required_argument, 0, 'b'}, CMD_CHECK},
    {{"baselines", required_argument, 0, 'B'}, CMD_CHECK | CMD_COMPARE | CMD_BLESS},
    {{"baseline", required_argument, 0, 'F'}, CMD_COMPARE | CMD_TRENDS},
    {{"out_dir", required_argument, 0, 'o'}, CMD_CHECK | CMD_COMPARE},
    {{"strict", no_argument, 0, 's'}, CMD_CHECK | CMD_COMPARE},
    {{"repetitions", required_argument, 0, 'r'}, CMD_CHECK},
    {{"no_recheck", no_argument, 0, 'n'}, CMD_CHECK},
    {{"contexts", required_argument, 0, 'c'}, CMD_CHECK},
    {{"long_contexts", required_argument, 0, 'L'}, CMD_CHECK},
    {{"warmup", required_argument, 0, 'W'}, CMD_CHECK},
    {{"against_bench", required_argument, 0, 'X'}, CMD_CHECK},
    {{"against", required_argument, 0, 'Y'}, CMD_CHECK},
    {{"pairs", required_argument, 0, 'P'}, CMD_CHECK},
    {{"against_uncovered", no_argument, 0, 'U'}, CMD_CHECK},
    {{"recheck", required_argument, 0, 'R'}, CMD_COMPARE},
    {{"add", no_argument, 0, 'A'}, CMD_BLESS},
    {{"accept-slower", no_argument, 0, 'S'}, CMD_BLESS},
    {{"only", required_argument, 0, 'O'}, CMD_BLESS},
    {{"history_dir", required_argument, 0, 'H'}, CMD_HISTORY},
    {{"verdicts", required_argument, 0, 'v'}, CMD_HISTORY},
    {{"label", required_argument, 0, 'l'}, CMD_TESTBEDS},
    {{"uncovered", required_argument, 0, 'V'}, CMD_TESTBEDS},
    {{"has_runs", required_argument, 0, 'G'}, CMD_TESTBEDS},
    {{"per_family", no_argument, 0, 'Q'}, CMD_MIGRATE},
    {{"json", required_argument, 0, 'j'}, CMD_TRENDS},
    {{"since", required_argument, 0, 'i'}, CMD_TRENDS},
    {{"window", required_argument, 0, 'w'}, CMD_TRENDS},
    {{"min_step", required_argument, 0, 'p'}, CMD_TRENDS},
    {{"help", no_argument, 0, 'h'}, ALL_COMMANDS},
};
enum { NFLAGS = sizeof gate_flags / sizeof *gate_flags };

unsigned command_of(const char *name) {
  for (int i = 0; i < NCOMMANDS; i++)
    if (!strcmp(name, commands[i])) return 1u << i;
  return 0;
}

/* The name of command cmd (one bit). */
static const char *command_name(unsigned cmd) {
  for (int i = 0; i < NCOMMANDS; i++)
    if (cmd == 1u << i) return commands[i];
  return "?";
}

int next_flag(int argc, char **argv, unsigned cmd, const char **name) {
  static struct option opts[NFLAGS + 1]; /* getopt_long's table: gate_flags' options, then zeros */
  if (!opts[0].name)
    for (int i = 0; i < NFLAGS; i++) opts[i] = gate_flags[i].opt;
  int index = -1, c = getopt_long(argc, argv, "", opts, &index);
  if (c == -1 || index < 0) return c; /* the end, or a flag getopt_long has said is not one ('?') */
  *name = opts[index].name;
  const char *cmd_name = command_name(cmd);
  /* getopt_long takes a unique prefix (--tol for --tolerance): refused, since a flag added later can make it another
   * flag's, or ambiguous, and change what a script's flags mean. The flag is before its value when that is apart. */
  const char *given = optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
  size_t len = strcspn(given + 2, "=");
  if (len != strlen(*name)) {
    fprintf(stderr, "gate %s: --%.*s: write the flag in full, --%s (an abbreviation can come to mean another flag)\n",
            cmd_name, (int)len, given + 2, *name);
    exit(EXIT_BAD_INPUT);
  }
  if (gate_flags[index].commands & cmd) return c;
  char where[256] = "";
  size_t used = 0;
  for (int i = 0; i < NCOMMANDS; i++)
    if (gate_flags[index].commands & 1u << i)
      used += (size_t)snprintf(where + used, sizeof where - used, "%s%s", used ? ", " : "", commands[i]);
  fprintf(stderr, "gate %s: --%s is not a flag of %s (it is one of %s); gate %s --help lists its flags\n", cmd_name,
          *name, cmd_name, where, cmd_name);
  exit(EXIT_BAD_INPUT);
}

/* Each command's usage; the POLICY flags follow those that take them. */
static const struct {
  unsigned cmd;
  const char *text;
} usages[] = {
    {CMD_CHECK,
     "  gate check   --bench=BIN --baselines=DIR [POLICY] [--strict] [--repetitions=N (1..1000)]\n"
     "               [--contexts=K (16)] [--long_contexts=L (4)] [--warmup=S (0)] [--out_dir=DIR]\n"
     "               [--no_recheck] [--against_bench=BASE_BIN [--against=REV] [--pairs=N (2)]\n"
     "               [--against_uncovered]] [-- BENCHMARK FLAGS]\n"
     "      run BIN, compare with DIR/<gpu>.json, re-measure what looks slower; writes the run JSON,\n"
     "      summary.md and verdicts.json to --out_dir (made if missing), JUnit XML to $XML_OUTPUT_FILE.\n"
     "      The gate sets --benchmark_out and --benchmark_out_format: do not give them after --\n"
     "      --warmup=S: S seconds (0..60) of warm-up per benchmark and context (the benchmark's\n"
     "      --benchmark_min_warmup_time: not after --); a family whose kernels' clock settles under\n"
     "      load uses it, and its baseline must be made the same way\n"
     "      --against_bench: A/B instead of a baseline: BASE_BIN (the base revision REV's build of the same\n"
     "      benchmark; or $PERF_AB_BASE/BIN, $PERF_AB_AGAINST naming REV) and BIN measured in turn on this\n"
     "      GPU, N pairs of processes; an identical binary is reported unchanged and not measured;\n"
     "      --against_uncovered: judge against the baseline, and A/B only what it has no run of this testbed of\n"},
    {CMD_MIGRATE,
     "  gate migrate [--per_family] BASELINE.json...\n"
     "      rewrite baselines in the current format (their runs and figures unchanged)\n"},
    {CMD_TESTBEDS,
     "  gate testbeds --uncovered=TESTBED BASELINE.json BENCH_BIN...\n"
     "      list the benchmarks of the binaries that the baseline has no run of TESTBED of\n"
     "  gate testbeds --has_runs=TESTBED BASELINE.json\n"
     "      exit 0 when the baseline has a run of TESTBED, 1 when it has none\n"
     "  gate testbeds [--label=TESTBED] BASELINE.json\n"
     "      list the testbeds (runner host classes) the baseline has runs of; --label names the testbed\n"
     "      of its runs that have none (a migration of baselines made before testbeds)\n"},
    {CMD_COMPARE,
     "  gate compare (--baseline=FILE | --baselines=DIR) [POLICY] [--strict] [--recheck=FILE] [--out_dir=DIR]\n"
     "               RUN.json\n"
     "      judge a run already measured (DIR: the baseline of its GPU); --recheck: the re-measure gate\n"
     "      check wrote beside it (<bench>.recheck.json) confirms slower verdicts (without it they stand,\n"
     "      noted unconfirmed); --out_dir: write summary.md and verdicts.json there (made if missing);\n"
     "      --strict: fail when none of the run's benchmarks is in the baseline, or it has no run of the run's\n"
     "      testbed (NOT JUDGED), as gate check does\n"},
    {CMD_BLESS,
     "  gate bless   --baselines=DIR [POLICY] [--add [--accept-slower]] [--only=REGEX] RUN.json...\n"
     "      adopt runs (separate processes, each given once) as DIR/<gpu>.json; only their families\n"
     "      (--add: the runs join the baseline's runs of those families instead of replacing them;\n"
     "      --only: only the benchmarks whose name matches REGEX, the rest keep their runs; --add refuses\n"
     "      a run the gate judges slower than the baseline, by POLICY, unless --accept-slower)\n"},
    {CMD_HISTORY,
     "  gate history --history_dir=DIR --verdicts=FILE RUN.json\n"
     "      append a row per benchmark to DIR/<gpu>.csv; FILE is the verdicts.json of RUN.json\n"},
    {CMD_FAILING,
     "  gate failing VERDICTS.json...\n"
     "      print NAME: VERDICT for each verdict that fails the gate; exit 2 for a file that is not a\n"
     "      verdicts.json of gate check (missing, cut short, not JSON)\n"},
    {CMD_TRENDS,
     "  gate trends [--since=DATE] [...] HISTORY.csv...\n"
     "      change points and creep over the history (gate trends --help)\n"},
};

void print_usage(FILE *out, unsigned cmds) {
  fprintf(out, "usage:\n");
  for (size_t i = 0; i < sizeof usages / sizeof *usages; i++)
    if (usages[i].cmd & cmds) fputs(usages[i].text, out);
  if (cmds == ALL_COMMANDS) fprintf(out, "  gate --help, gate COMMAND --help\n");
  if (cmds & POLICY_COMMANDS)
    fprintf(out,
            "POLICY: --tolerance=FRACTION (0.03) --own_tolerance=FRACTION (0.02: against this GPU's own runs)\n"
            "        --family_tolerance=FAMILY=FRACTION --k_noise=K (3)\n"
            "        --alpha=P (0.01) --min_delta_us=US (0.25) --metric=time|copy_ratio (time)\n");
  fprintf(out, "Exit status: 0 pass, 1 confirmed regression or failed benchmark, 2 bad input or usage.\n");
}

void usage(const char *msg) {
  if (msg) fprintf(stderr, "gate: %s\n", msg);
  print_usage(stderr, ALL_COMMANDS);
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
