/* What the gate's commands (check.c, ab.c, compare_cmd.c, bless.c, failing_cmd.c, history.c, testbeds.c,
 * trends_cmd.c) share: exit codes, options, paths given by the user, loading inputs or exiting 2
 * (cli.c); running a benchmark binary (bench_process.c) and a gate check's confirmation and outputs
 * (check_outputs.c), which check.c and ab.c both use. gate_main.c parses the options (each command's own: cli.c's
 * table of flags) and dispatches to cmd_*. */
#ifndef PERF_GATE_GATE_CLI_H
#define PERF_GATE_GATE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/gate_reporter.h"

enum { EXIT_PASS = 0, EXIT_REGRESSION = 1, EXIT_BAD_INPUT = 2 };

typedef struct {
  gate_policy policy;
  const char *bench, *baselines, *baseline, *out_dir, *history_dir, *verdicts;
  const char *recheck_file; /* compare: the re-measure `gate check` wrote beside the run (<bench>.recheck.json) */
  int strict, repetitions, recheck;
  int add;           /* bless: the runs join the baseline's runs of their families instead of replacing them */
  int accept_slower; /* bless --add: bless in runs that the gate judges slower than the baseline */
  const char *only;  /* bless: only the benchmarks whose name matches this (POSIX extended regex) */
  int contexts;      /* check: the benchmark measures short benchmarks in this many CUDA contexts */
  int long_contexts; /* check: ... and long ones in the first this many of them */
  double warmup_s;   /* check: seconds of warm-up per benchmark and context (0: the benchmark's one warm-up run) */
  /* check, A/B: the base revision's benchmark binary, measured interleaved with --bench on this GPU
   * instead of comparing with a baseline (perf/gate/ab.c), and what that revision is called */
  const char *against_bench, *against;
  int against_uncovered;     /* check: with against_bench, A/B only what the baseline has no run of this testbed of */
  const char *label_testbed; /* testbeds --label: the testbed of the runs made before the field */
  const char *uncovered_testbed; /* testbeds --uncovered: list the benchmarks of BINs with no run of it */
  const char *has_runs_testbed;  /* testbeds --has_runs: exit 0 when the baseline has a run of it, 1 when none */
  int per_family;                /* migrate --per_family: a file per family (baseline_store.h) */
  int pairs;                     /* check, A/B: how many base/change pairs of processes (ABBA order) */
  const char *summary_note;      /* check: a warning written at the top of summary.md (NULL: none) */
  const char *filter;            /* check: measure only the benchmarks this --benchmark_filter selects (NULL: all) */
  char **rest;                   /* positional arguments, or benchmark flags after -- for check */
  int nrest;
} options;

/* The commands, as bits of a set of them (cli.c names them). */
enum {
  CMD_CHECK = 1u << 0,
  CMD_COMPARE = 1u << 1,
  CMD_BLESS = 1u << 2,
  CMD_HISTORY = 1u << 3,
  CMD_TESTBEDS = 1u << 4,
  CMD_MIGRATE = 1u << 5,
  CMD_FAILING = 1u << 6,
  CMD_TRENDS = 1u << 7,
  ALL_COMMANDS = (1u << 8) - 1
};
/* The command called name (CMD_*), or 0 when there is none. */
unsigned command_of(const char *name);
/* The next flag of argv for command cmd (optind = 2 before the first), as getopt_long returns it over every flag of
 * the gate: its val (optarg set) and *name its long name; -1 after the last; '?' for one that getopt_long has said
 * is none. A flag of another command is exit 2, naming the flag, cmd and the commands that take it (cli.c's table
 * of flags says which); so is an abbreviated flag (--tol for --tolerance), naming it in full. */
int next_flag(int argc, char **argv, unsigned cmd, const char **name);
/* The usage of the commands cmds (ALL_COMMANDS: every one), to out. */
void print_usage(FILE *out, unsigned cmds);
/* Prints msg (if any) and the usage to stderr and exits 2. */
_Noreturn void usage(const char *msg);
/* Paths given to `bazel run` are relative to where the user ran it. */
const char *user_path(const char *p, char *buf, size_t len);
/* snprintf into a path buffer; a path that does not fit is an error (exit 2), never cut short. */
void format_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* asprintf, or exit 2 when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --out_dir: makes the folder dir and its parents when missing (mkdir -p), or exits 2 naming the flag and
 * the part of the path that is not a folder or cannot be made; before anything is measured or judged. */
void make_out_dir_or_die(const char *dir);
/* --baselines=DIR: exits 2 naming the flag unless DIR is a folder. A typo would otherwise pass with nothing
 * compared (gate check: before the benchmark runs), or be told as a missing <gpu-slug>.json. */
void check_baselines_folder(const char *dir);
/* Loads a run (baseline == 0) or a baseline, or prints why not and exits 2. */
void load_or_die(const char *path, gate_figures *f, int baseline);
/* 1 when path exists, 0 when it does not (ENOENT); any other failure to look (a symlink
 * loop, EACCES) exits 2 naming it: an unreadable baseline is not a missing one. */
int file_exists(const char *path);
/* baseline_find (baseline_store.h): 1 found, 0 none; exits 2 when it cannot be told (as file_exists). */
int find_baseline_or_die(const char *dir, const char *slug, baseline_place *pl);
size_t count_verdicts(const comparison *c, size_t n, verdict v);

/* A slower verdict of c stands only if the re-measure `again` is slower too (then c takes its
 * figures), else it becomes "same"; notes[i] says which. One that `again` did not measure stays
 * slower, noted as unconfirmed. */
void confirm_slower(const gate_figures *family_base, const gate_figures *again, const gate_policy *policy,
                    comparison *c, size_t n, char **notes);
/* The report of a check or compare (gate_reporter.h): c[0..n) and their notes, judged by o's policy (against
 * o->against when set; o->summary_note above summary.md's title), of the run `run` of bench_name. */
gate_report report_of(const options *o, const char *bench_name, const gate_figures *run, const comparison *c, size_t n,
                      const char *const *notes);
/* r's verdicts.json and summary.md in out_dir, then its JUnit XML to $XML_OUTPUT_FILE when set, each written whole
 * or not at all; the number that could not be written (each said on stderr), after which none of the rest is
 * written and out_dir's summary.md and verdicts.json are removed. r->run NULL (nothing was measured): no
 * verdicts.json. */
int write_reports(const char *out_dir, const gate_report *r);

/* When none of the run's benchmarks is in the baseline (every verdict "new", and not for want of runs of
 * this testbed: no_testbed_runs says that), nothing was compared: a family renamed, or never
 * blessed. The warning (malloc'ed; in markdown for summary.md when md), or NULL when something was compared;
 * gate check and gate compare both say it and, with --strict, fail. */
char *nothing_in_baseline(const comparison *c, size_t n, const char *base_path, const char *bench_name, int md,
                          int strict);
/* out_dir/summary.md holding one note (a family NOT JUDGED, and why), or exit 2: a failed write fails the command and
 * leaves no part of the file (write_report_text). */
void write_summary_note(const char *out_dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when the baseline of the run's family has runs but none of the run's testbed (another testbed never stands in,
 * compare.h TESTBED); a family never blessed has no benchmark there, and is "new" instead. */
int no_runs_of_testbed(const gate_figures *family_base, const gate_figures *run);
/* no_runs_of_testbed, and no base revision to A/B against: nothing is compared. Says NOT JUDGED and what to do on
 * stderr and, when out_dir is not NULL, as out_dir/summary.md (its verdicts.json removed); gate check and gate compare
 * both. The exit status: 1 with --strict, else 0. */
int no_testbed_runs(const options *o, const char *base_path, const gate_figures *run, const char *out_dir,
                    const char *bench_name);
/* Warns of each --family_tolerance of p that names a family which neither the run nor the GPU's baseline at pl (base,
 * or in the folder layout its families' files) has: it applies to nothing. Not refused: ci/gate.sh gives every perf
 * test, whose run is one family, every family's tolerance, and a family can be new to this GPU. */
void warn_unknown_families(const gate_policy *p, const gate_figures *run, const gate_figures *base,
                           const baseline_place *pl);
/* Prints each slower or missing verdict (REGRESSION, or ENVIRONMENT CHANGED for a library
 * reference); 1 when one of them fails the gate (verdict_fails). */
int report_failures(const comparison *c, size_t n);
/* Runs o->bench (or `bench` when not NULL) into json_out; exits unless it ran and wrote its run JSON. */
void measure_bench(const options *o, const char *bench, const char *json_out, int again);
/* Removes an earlier gate check's file `name` from dir, or exits 2. */
void remove_stale(const char *dir, const char *name);
/* gate check in A/B mode (o->against_bench): perf/gate/ab.c. */
int cmd_check_ab(options *o, const char *out_dir, const char *bench_name);

/* Runs bin with argv (argv[0] included, NULL-terminated) as the benchmark is run: tied to the gate,
 * signals forwarded. Returns its exit status, or -1 when it could not start. */
int run_child(const char *bin, char **argv);
/* The names `bin --benchmark_list_tests` prints (malloc'ed, *n of them), or exits 2 saying why. */
char **list_benchmarks(const char *bin, size_t *n);
/* A --benchmark_filter that selects exactly these names: ^(a|b|...)$, each name's specials escaped. */
char *exact_names_filter(char *const *names, size_t n);
/* The filter of the slower verdicts of c: what a confirmation measures again. */
char *suspects_filter(const comparison *c, size_t n);

/* What ab_judge found: a verdict per name (unchanged and new ones unmeasured), a note per verdict (why it
 * was measured, whether a slower one was confirmed), the benchmarks the change removed (only when
 * judging a whole family) and the change's merged measurements (NULL when nothing was measured). */
typedef struct {
  comparison *c;
  char **notes;
  size_t n;
  char **removed;
  size_t nremoved;
  gate_figures *run;
} ab_result;
/* Judges `only` (nonly names; NULL: every benchmark of o->bench) A/B against o->against_bench: the same
 * binary or the same timed work (fingerprint.h) is unchanged, a name the base lacks is new, the rest are
 * measured alone in pairs of processes and a slower one confirmed by the suspects alone (ab.c). The
 * `suspects` (nsuspects names of `only`) are measured unless the binaries are identical. */
void ab_judge(options *o, const char *out_dir, const char *bench_name, char **only, size_t nonly, char **suspects,
              size_t nsuspects, ab_result *res);

/* An exclusive flock of a baselines folder (bless.c): the descriptor that holds it, or -1 after saying why. */
int lock_folder(const char *dir);

int cmd_check(options *o);
int cmd_compare(options *o); /* compare_cmd.c */
int cmd_failing(options *o); /* failing_cmd.c */
int cmd_testbeds(options *o);
int cmd_migrate(options *o);
int cmd_bless(options *o);
int cmd_history(options *o);
int cmd_trends(int argc, char **argv); /* parses its own flags (trends_cmd.c) */

#endif
