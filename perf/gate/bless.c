/* gate bless: adopts runs (separate processes) as the baseline of their GPU. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/context_stats.h"
#include "perf/gate/gate_cli.h"
#include "perf/gate/gate_reporter.h"
#include "perf/gate/iso_date.h"
#include "perf/gate/report.h"

/* Each run must be a separate process: the same file twice, another path to it, or a copy
 * of one run (same date, host and GPU) would count one process as several and hide the
 * spread between runs that the baseline's noise is. 0 when all differ; else says which. */
static int distinct_runs(char **paths, const gate_figures *runs, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      struct stat a, b;
      if (stat(paths[i], &a) == 0 && stat(paths[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        fprintf(stderr, "gate: %s and %s are the same file: give each run once\n", paths[i], paths[j]);
        return 1;
      }
      const gate_run_info *x = &runs[i].runs[0], *y = &runs[j].runs[0];
      if (same_run(x, y)) {
        fprintf(stderr,
                "gate: %s and %s are the same run (context.date %s, context.host_name %s, context.gpu.uuid "
                "'%s'): a baseline's noise is the spread between separate runs, so give each run once\n",
                paths[i], paths[j], x->date, x->host, x->gpu_uuid);
        return 1;
      }
    }
  return 0;
}

/* FUTURE_DATES: a run dated more than a day after this machine's clock is refused. Its date orders the
 * baseline's runs and the history ("since the last bless"): one run dated 2099 put every later change point
 * before the last bless, and none was shown (#56 W08). A runner with a wrong clock: fix it, re-run. A date that
 * does not read is refused too, else it would pass unchecked. */
static int no_future_runs(char **paths, const gate_figures *runs, int n) {
  time_t now = time(NULL), t;
  for (int i = 0; i < n; i++) {
    if (iso_date_time(runs[i].runs[0].date, &t) != 0) {
      fprintf(stderr,
              "gate: %s: field context.date: '%s' is not a date as the runner writes it (ISO 8601, such as "
              "2026-11-25T16:52:12+00:00): a hand-edited run file? Re-run the benchmark (its date orders the "
              "baseline and the history)\n",
              paths[i], runs[i].runs[0].date);
      return 1;
    }
    if (t > now + 86400) {
      char today[32];
      strftime(today, sizeof today, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
      fprintf(stderr,
              "gate: %s: field context.date: %s lies in the future (this machine's clock reads %s): the "
              "runner's clock is wrong; set it right and re-run the benchmark (its date orders the history)\n",
              paths[i], runs[i].runs[0].date, today);
      return 1;
    }
  }
  return 0;
}

/* Blesses into one folder take turns on an exclusive flock of the folder: each reads the old
 * baseline, merges and replaces it while holding the lock, so two families blessed at once
 * both stay (without it, the later rename dropped the family of the earlier). Returns the
 * descriptor that holds the lock (closing it lets go), or -1 after saying why. */
int lock_folder(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "gate: cannot open the baselines folder %s: %s (create it, or fix --baselines)\n", dir,
            strerror(errno));
    return -1;
  }
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      fprintf(stderr, "gate: cannot lock the baselines folder %s: %s\n", dir, strerror(errno));
      close(fd);
      return -1;
    }
  return fd;
}

/* save_baseline writes <path>.tmp.<pid> and renames it over path, under the folder's lock. One
 * found while holding that lock was left by a bless that was killed: removed, said. */
static void remove_stale_temp(const baseline_place *pl) {
  char *pattern = xasprintf(pl->per_family ? "%s/*.json.tmp.*" : "%s.tmp.*", pl->path);
  glob_t g;
  if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; i++)
      if (unlink(g.gl_pathv[i]) == 0) printf("Removed %s, left by a bless that was stopped\n", g.gl_pathv[i]);
    globfree(&g);
  }
  free(pattern);
}

/* bless --only: keeps in each run the benchmarks whose name matches `pattern` (POSIX extended,
 * anywhere in the name, as --benchmark_filter), and leaves out, saying so, the runs where none does
 * (other families: ci/bless.sh gives every run of a gate job). *n becomes the runs kept. 0 when one
 * or more are kept; else says why not, or why the pattern is refused. */
static int keep_matching(const char *pattern, gate_figures *runs, char **paths, int *n) {
  regex_t re;
  int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc) {
    char why[256];
    regerror(rc, &re, why, sizeof why);
    fprintf(stderr, "gate: --only=%s: not a POSIX extended regular expression (%s)\n", pattern, why);
    return 1;
  }
  int runs_kept = 0;
  for (int i = 0; i < *n; i++) {
    gate_figures *f = &runs[i];
    size_t kept = 0;
    for (size_t b = 0; b < f->n; b++) {
      if (regexec(&re, f->b[b].name, 0, NULL, 0) == 0)
        f->b[kept++] = f->b[b];
      else
        free_bench(&f->b[b]);
    }
    f->n = kept;
    if (!kept) {
      printf("Left out: %s (no benchmark matches --only=%s)\n", paths[i], pattern);
      free_figures(f);
      continue;
    }
    runs[runs_kept] = *f;
    paths[runs_kept++] = paths[i];
  }
  regfree(&re);
  *n = runs_kept;
  if (!runs_kept)
    fprintf(stderr,
            "gate: --only=%s matches no benchmark of the runs given; give a pattern that names the "
            "benchmarks to re-bless (e.g. --only='^dot/tree_host_finish/')\n",
            pattern);
  return runs_kept == 0;
}

/* The old baseline (read from path) with the families of `fresh` replaced (add: with fresh's runs added to
 * theirs; by_name: only the benchmarks fresh has), into *result; prints the changes. 0 when fine;
 * else says why. */
static int merge_into_old(const char *path, const gate_figures *old, const gate_figures *fresh, gate_figures *result,
                          int add, int by_name) {
  char err[1024];
  gate_figures old_view;
  size_t superseded = 0;
  if (add ? add_runs(old, fresh, result, &superseded, err, sizeof err)
          : replace_families(old, fresh, by_name, result, err, sizeof err)) {
    fprintf(stderr, "gate: %s: %s\n", path, err);
    return 1;
  }
  if (superseded)
    printf(
        "Left out of the old baseline: %zu measure(s) of long benchmarks taken in fewer contexts than the runs "
        "given take them in (--long_contexts=%d)\n",
        superseded, fresh->runs[0].long_contexts);
  (by_name ? benchmarks_of : families_of)(old, fresh, &old_view);
  gate_policy p = default_policy();
  comparison *c;
  size_t n = compare_figures(&old_view, fresh, &p, &c);
  printf("The runs given against the old baseline %s (%s):\n", path,
         add           ? "their runs join the old ones"
             : by_name ? "they replace the benchmarks they measured, on their testbeds"
                       : "they replace the families they measured, on their testbeds");
  gate_report report = {.c = c, .n = n, .policy = &p};
  console_table_reporter.write(stdout, &report, NULL, 0);
  if (!add)
    printf("Kept from the old baseline: %zu benchmarks %s\n", result->n - fresh->n,
           by_name ? "not matching --only" : "of other families");
  free(c);
  free(old_view.b);
  return 0;
}

/* Warns about the benchmarks whose baseline could not back the gate: with these runs, not even
 * a slowdown of the tolerance would reach p < alpha in the test on contexts (a long benchmark has
 * four contexts per run, one in runs from before --long_contexts, so a few runs that differ leave the test
 * little to go on). The contexts are
 * those the test takes: interrupted ones set aside (kept_contexts). */
static void warn_undetectable(const gate_figures *merged, const gate_policy *p) {
  size_t weak = 0, shown = 0;
  for (size_t i = 0; i < merged->n; i++) {
    const gate_bench *b = &merged->b[i];
    size_t ny = 0, nx = 1;
    for (size_t r = 0; r < b->nruns; r++) {
      ny += b->runs[r].ncontexts;
      if (b->runs[r].ncontexts > nx) nx = b->runs[r].ncontexts; /* what a run of it brings */
    }
    double *y = malloc((ny + 1) * sizeof *y);
    if (!y) return;
    ny = 0;
    for (size_t r = 0; r < b->nruns; r++) ny += kept_contexts(b->runs[r].contexts_ns, b->runs[r].ncontexts, y + ny);
    double need = context_test_detectable(y, ny, nx, p->alpha), tol = tolerance_for(p, b->name, 0);
    free(y);
    if (need <= tol) continue;
    if (weak++ == 0)
      fprintf(stderr,
              "gate: warning: with these runs a slowdown of the tolerance could not reach p < %g in the test "
              "on contexts for these benchmarks; give more runs (6 or more, from more than one machine):\n",
              p->alpha);
    if (shown++ < 8)
      fprintf(stderr, "gate:   %s: tolerance %.1f %%, needs %s%.1f %%\n", b->name, 100 * tol,
              isinf(need) ? "more than " : "+", isinf(need) ? 100.0 : 100 * need);
  }
  if (weak > shown) fprintf(stderr, "gate:   ... and %zu more\n", weak - shown);
}

/* GPUs of one model come in GPU kinds (reference.h, KIND_COPY_WINDOW), and a GPU outside the baseline
 * is judged against its GPU kind, or against all GPUs when fewer than two of its kind ran the
 * benchmark: a benchmark blessed on one GPU kind alone then reads another GPU kind's difference as a
 * change (an H200 of the 4225 GB/s GPU kind had transpose/unroll4_row 4093x8191 confirmed 3.3 %
 * slower in five rounds out of five, its runs being of the 4250 kind). Names, per GPU kind in the
 * baseline, the benchmarks that no GPU of that kind ran. */
static void warn_uncovered_kinds(const gate_figures *f) {
  /* Each run's GPU's copy probe in one sort, and the GPU kinds met so far: asking gpu_copy run by run, for
   * every earlier run too, took 29 s of a bless --add at 100 x the runs (#56, scale). */
  double *copies = gpu_copies(f), *kinds = malloc((f->nruns + 1) * sizeof *kinds);
  size_t nkinds = 0;
  for (size_t g = 0; g < f->nruns; g++) {
    double copy = copies[g];
    int seen = !(copy > 0);
    for (size_t h = 0; h < nkinds && !seen; h++) /* one line per GPU kind: at its first GPU */
      seen = fabs(kinds[h] / copy - 1) <= KIND_COPY_WINDOW;
    if (seen) continue;
    kinds[nkinds++] = copy;
    size_t missing = 0;
    const char *first = NULL;
    for (size_t i = 0; i < f->n; i++) {
      gate_bench of_kind = kind_runs(f, &f->b[i], copy, copies);
      if (gpus_of(f, &of_kind) == 0 && missing++ == 0) first = f->b[i].name;
      free(of_kind.runs);
    }
    if (missing)
      fprintf(stderr,
              "gate: warning: %zu benchmark(s) (e.g. %s) have no run from a GPU of the kind of %s (copy "
              "probe %.0f GB/s): a GPU of that kind outside the baseline is judged against other kinds there, "
              "which can differ by a few %%; bless runs of those families from a GPU of that kind (--add)\n",
              missing, first, f->runs[g].gpu_uuid, copy / 1e9);
  }
  free(copies);
  free(kinds);
}

/* bless --add: a run that its own gate judges slower than the current baseline would, blessed in,
 * make that slowdown the baseline's noise and widen every GPU's threshold for the benchmark (a
 * +10 % run took one from 3 % to 30 %, and a later +25 % run passed). Each run is judged as
 * `gate compare` would (no re-measure: bless has none) against the old baseline at path; a slower
 * benchmark is refused unless --accept-slower. 0 when none is slower or all are accepted; else 1
 * after naming them and the flag. */
static int refuse_slower(const char *path, const gate_figures *old, const gate_figures *runs, char **paths, int n,
                         const options *o) {
  size_t slower = 0;
  for (int i = 0; i < n; i++) {
    gate_figures view;
    char err[1024], msg[2048];
    (o->only ? benchmarks_of : families_of)(old, &runs[i], &view);
    if (view.n == 0 || same_method(&view, &runs[i], err, sizeof err)) { /* nothing to judge, or add_runs says why */
      free(view.b);
      continue;
    }
    comparison *c;
    size_t nc = compare_figures(&view, &runs[i], &o->policy, &c);
    for (size_t k = 0; k < nc; k++) {
      if (!verdict_fails(&c[k]) || c[k].v != VERDICT_SLOWER)
        continue; /* a library reference only flags the environment */
      slower++;
      failure_message(&c[k], msg, sizeof msg);
      fprintf(stderr, "gate: %s%s: %s\n",
              o->accept_slower ? "warning: blessed in though slower (--accept-slower): " : "", paths[i], msg);
    }
    free(c);
    free(view.b);
  }
  if (slower && !o->accept_slower) {
    fprintf(stderr,
            "gate: refused: %zu benchmark(s) above are slower than %s as the gate judges them: blessed in, "
            "a slowdown becomes the baseline's noise and widens the threshold of every GPU for them. Find out why "
            "(re-run the round, or leave that run out), or give --accept-slower (ci/bless.sh --accept-slower) to "
            "bless them in anyway\n",
            slower, path);
    return 1;
  }
  return 0;
}

/* A benchmark whose runs all come from one GPU: every other GPU of the model is judged against
 * that GPU's offsets (other H100s then failed tree_host_finish 2^20 by +4.4 % and +5.6 %). Says so
 * in the summary, naming the first few. Runs that name no GPU (files made before the field) are
 * left out. */
static void warn_one_gpu(const gate_figures *blessed) {
  size_t one = 0, shown = 0;
  for (size_t i = 0; i < blessed->n; i++) {
    const gate_bench *b = &blessed->b[i];
    const char *uuid = b->nruns ? blessed->runs[b->runs[0].run].gpu_uuid : "";
    if (!uuid[0] || gpus_of(blessed, b) != 1) continue;
    if (one++ == 0)
      fprintf(stderr,
              "gate: warning: the baseline of these benchmarks comes from one GPU only: other GPUs of the "
              "model are judged against that GPU's own offsets; bless runs from more GPUs too (ci/bless.sh --add):\n");
    if (shown++ < 8) fprintf(stderr, "gate:   %s: %zu run(s), all on %s\n", b->name, b->nruns, uuid);
  }
  if (one > shown) fprintf(stderr, "gate:   ... and %zu more\n", one - shown);
}

int cmd_bless(options *o) {
  if (!o->baselines || o->nrest < 1) usage("bless needs --baselines=DIR and at least one RUN.json");
  if (o->accept_slower && !o->add) /* it would be ignored: only --add judges the runs against the baseline */
    usage(
        "bless --accept-slower goes with --add: without --add the runs replace their families' runs and none is "
        "judged slower; give --add, or leave --accept-slower out");
  char buf[4096], err[1024];
  gate_figures *runs = calloc((size_t)o->nrest, sizeof *runs);
  char **paths = calloc((size_t)o->nrest, sizeof *paths);
  for (int i = 0; i < o->nrest; i++) {
    paths[i] = xasprintf("%s", user_path(o->rest[i], buf, sizeof buf));
    load_or_die(paths[i], &runs[i], 0);
  }
  if (distinct_runs(paths, runs, o->nrest) || no_future_runs(paths, runs, o->nrest)) return EXIT_BAD_INPUT;
  int nruns = o->nrest;
  if (o->only && keep_matching(o->only, runs, paths, &nruns)) return EXIT_BAD_INPUT;
  gate_figures merged;
  if (merge_runs(runs, (size_t)nruns, &merged, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    for (int i = 0; i < nruns; i++) fprintf(stderr, "gate:   run %d is %s\n", i + 1, paths[i]);
    return EXIT_BAD_INPUT;
  }
  char dir[4096];
  format_path(dir, sizeof dir, "%s", user_path(o->baselines, buf, sizeof buf));
  int lock = lock_folder(dir);
  if (lock < 0) return EXIT_BAD_INPUT;
  baseline_place place;
  int found = find_baseline_or_die(dir, merged.gpu.slug, &place);
  const char *path = place.path;
  remove_stale_temp(&place);
  gate_figures result = merged;
  if (!found) {
    printf("No baseline yet for %s: creating %s\n", merged.gpu.name, path);
  } else { /* read once (a baseline of 100 x today's runs is 72 MB of JSON); in a folder of families, theirs */
    gate_figures old;
    if (baseline_load(&place, &merged, &old, err, sizeof err)) {
      fprintf(stderr, "gate: %s\n", err);
      return EXIT_BAD_INPUT;
    }
    int refused = (o->add && refuse_slower(path, &old, runs, paths, nruns, o)) ||
        merge_into_old(path, &old, &merged, &result, o->add, o->only != NULL);
    free_figures(&old);
    if (refused) return EXIT_BAD_INPUT;
  }
  /* What the blessed families will hold (with --add, the old runs too). The test compares
   * contexts: with one context on the baseline's side and one on the run's, nothing could ever
   * be significant, and a long benchmark is four contexts per run (one before --long_contexts). */
  gate_figures blessed = result;
  (o->only ? benchmarks_of : families_of)(&result, &merged, &blessed);
  for (size_t i = 0; i < blessed.n; i++) {
    size_t contexts = 0;
    for (size_t r = 0; r < blessed.b[i].nruns; r++) contexts += blessed.b[i].runs[r].ncontexts;
    if (contexts < 2) {
      fprintf(stderr,
              "gate: %s was measured in %zu CUDA context(s) over the runs given: the gate could never find "
              "it slower. Give at least 2 runs of each family (3 or more, from more than one machine, is better)\n",
              blessed.b[i].name, contexts);
      return EXIT_BAD_INPUT;
    }
  }
  warn_undetectable(&blessed, &o->policy);
  warn_uncovered_kinds(&result);
  warn_one_gpu(&blessed);
  for (size_t i = 0; i < blessed.n; i++)
    if (blessed.b[i].nruns < 3) {
      fprintf(stderr,
              "gate: warning: %s has %zu run(s); a baseline's noise is the spread between runs, so give "
              "at least 3 runs (separate processes) of each family\n",
              blessed.b[i].name, blessed.b[i].nruns);
      break;
    }
  free(blessed.b);
  if (baseline_save(&place, &result, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  close(lock);
  printf("Blessed %zu benchmarks from %d run(s) into %s\n", merged.n, nruns, path);
  return EXIT_PASS;
}
