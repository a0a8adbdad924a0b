/* How the gate would judge a GPU outside a baseline, from the baseline alone: each GPU in turn is
 * left out, and each of its runs is judged by the gate (compare_figures, default policy) against
 * the baseline's other runs. Prints per GPU how many thresholds exceed the goal (5 % under 50 us,
 * 3 % at 50 us and more) and how many verdicts were "slower" (a false alarm: nothing changed), and
 * the totals. Those runs were measured like the baseline's own, so a fresh GPU can do worse.
 *
 *   bazel run //perf/tools:leave_one_gpu_out -- [--list] [--own] [--k_noise=K] \
 *       $PWD/baselines/nvidia-h100-80gb-hbm3.json
 *
 * --list also prints every threshold over the goal and every verdict within 80 % of its threshold,
 * with what it was judged against: its GPU kind, all GPUs (too few of its kind), or other GPU kinds alone (none
 * of its kind left: column "no kind", a gap in the baseline's GPU kinds rather than noise).
 * --own leaves out one run at a time instead, of each GPU with three runs or more, and judges it against the
 * others: the GPU keeps two runs or more, so the gate compares it with its own runs, as it does a runner
 * blessed in (ci/soak.sh 2, ci/bless.sh --add). A benchmark of which that GPU has only two runs (blessed
 * apart with --only) is left with one, and so judged as on a GPU outside.
 * --k_noise=K judges with the gate's threshold max(3 %, K x noise) for another K than the default (3),
 * to see what a change of it would cost in false alarms before changing the gate.
 * Exit 0; 1 when a GPU left out got a "slower" verdict (a false alarm: review before committing the
 * baseline); 2 on bad usage or an unreadable baseline. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"

#define LONG_NS 50000.0 /* the goal: 5 % under 50 us, 3 % at 50 us and more */

/* The runs of f for which keep[run] is set, with the measures' run indexes renumbered. A shallow
 * view: free with free_view. */
static gate_figures view(const gate_figures *f, const int *keep) {
  gate_figures v = {.gpu = f->gpu};
  size_t *renumber = malloc((f->nruns + 1) * sizeof *renumber);
  v.runs = malloc((f->nruns + 1) * sizeof *v.runs);
  v.b = malloc((f->n + 1) * sizeof *v.b);
  for (size_t r = 0; r < f->nruns; r++) {
    renumber[r] = v.nruns;
    if (keep[r]) v.runs[v.nruns++] = f->runs[r];
  }
  for (size_t i = 0; i < f->n; i++) {
    gate_bench b = f->b[i];
    b.runs = malloc((f->b[i].nruns + 1) * sizeof *b.runs);
    b.nruns = 0;
    for (size_t m = 0; m < f->b[i].nruns; m++) {
      gate_measure x = f->b[i].runs[m];
      if (!keep[x.run]) continue;
      x.run = renumber[x.run];
      b.runs[b.nruns++] = x;
    }
    if (b.nruns)
      v.b[v.n++] = b;
    else
      free(b.runs);
  }
  free(renumber);
  return v;
}

static void free_view(gate_figures *v) {
  for (size_t i = 0; i < v->n; i++) free(v->b[i].runs);
  free(v->b);
  free(v->runs);
}

typedef struct {
  size_t runs, verdicts, over_goal, slower, faster;
  size_t slower_no_kind; /* of the slower: no GPU of the run's kind was left (judged against other kinds) */
} tally;

static void add(tally *t, const tally *u) {
  t->runs += u->runs;
  t->verdicts += u->verdicts;
  t->over_goal += u->over_goal;
  t->slower += u->slower;
  t->slower_no_kind += u->slower_no_kind;
  t->faster += u->faster;
}

static const char *const kReference[] = {"own GPU", "its kind", "all GPUs", "other kinds",
                                         "every host"}; /* gate_reference */

/* Judges run r of f against `base` under policy p, adding to t. */
static void judge_run(const gate_figures *f, size_t r, const gate_figures *base, const gate_policy *p, int list,
                      tally *t) {
  int *only = calloc(f->nruns, sizeof *only);
  only[r] = 1;
  gate_figures run = view(f, only);
  comparison *c;
  size_t n = compare_figures(base, &run, p, &c);
  for (size_t i = 0; i < n; i++) {
    if (c[i].v == VERDICT_NEW || c[i].v == VERDICT_MISSING) continue;
    t->verdicts++;
    int over = c[i].threshold > (c[i].base_ns < LONG_NS ? 0.05 : 0.03) + 1e-12;
    t->over_goal += over;
    t->slower += c[i].v == VERDICT_SLOWER;
    t->slower_no_kind += c[i].v == VERDICT_SLOWER && reference_of(&c[i]) == REF_OTHER_KINDS;
    t->faster += c[i].v == VERDICT_FASTER;
    if (list && (over || c[i].delta > 0.8 * c[i].threshold))
      printf("  %-8s %s run %zu: %+.2f %%, allowed %.2f %% (noise %.2f %%, %s), p %.2g\n", verdict_name(c[i].v),
             c[i].name, r, 100 * c[i].delta, 100 * c[i].threshold, 100 * c[i].noise, kReference[reference_of(&c[i])],
             c[i].p_slower);
  }
  free(c);
  free_view(&run);
  free(only);
}

int main(int argc, char **argv) {
  static const struct option opts[] = {{"list", no_argument, 0, 'l'},
                                       {"own", no_argument, 0, 'o'},
                                       {"k_noise", required_argument, 0, 'k'},
                                       {0, 0, 0, 0}};
  static const char usage[] = "usage: leave_one_gpu_out [--list] [--own] [--k_noise=K] BASELINE.json\n";
  gate_policy policy = default_policy();
  int list = 0, own = 0, o;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (o) {
      case 'l': list = 1; break;
      case 'o': own = 1; break;
      case 'k': { /* as the gate's --k_noise (POLICY_FLAGS, decide.h) */
        char err[256];
        if (policy_flag(&policy, "k_noise", optarg, err, sizeof err)) {
          fprintf(stderr, "leave_one_gpu_out: %s (the gate's is 3)\n", err);
          return 2;
        }
        break;
      }
      default: fputs(usage, stderr); return 2;
    }
  }
  if (optind != argc - 1) {
    fputs(usage, stderr);
    return 2;
  }
  gate_figures f;
  char err[1024];
  if (load_baseline(argv[optind], &f, err, sizeof err)) {
    fprintf(stderr, "leave_one_gpu_out: %s\n", err);
    return 2;
  }
  int *keep = malloc((f.nruns + 1) * sizeof *keep);
  tally total = {0};
  size_t gpus = 0;
  if (policy.k_noise != default_policy().k_noise)
    printf("thresholds max(%.0f %%, %g x noise): not the gate's k_noise (%g)\n", 100 * policy.tolerance, policy.k_noise,
           default_policy().k_noise);
  printf("%-42s %5s %8s %9s %6s %7s %6s\n", own ? "GPU (one run left out at a time)" : "GPU left out", "runs",
         "verdicts", "over goal", "slower", "no kind", "faster");
  for (size_t g = 0; g < f.nruns; g++) {
    const char *uuid = f.runs[g].gpu_uuid;
    int seen = 0;
    size_t of_gpu = 0;
    for (size_t q = 0; q < g; q++) seen |= strcmp(f.runs[q].gpu_uuid, uuid) == 0;
    if (seen) continue; /* that GPU was done at its first run */
    for (size_t r = 0; r < f.nruns; r++) of_gpu += strcmp(f.runs[r].gpu_uuid, uuid) == 0;
    if (own && of_gpu < 3) continue; /* left with one run, it would be judged as a GPU outside */
    gpus++;
    tally t = {0};
    if (own) {
      for (size_t out = 0; out < f.nruns; out++) {
        if (strcmp(f.runs[out].gpu_uuid, uuid) != 0) continue;
        for (size_t r = 0; r < f.nruns; r++) keep[r] = r != out;
        gate_figures base = view(&f, keep);
        t.runs++;
        judge_run(&f, out, &base, &policy, list, &t);
        free_view(&base);
      }
    } else {
      for (size_t r = 0; r < f.nruns; r++) keep[r] = strcmp(f.runs[r].gpu_uuid, uuid) != 0;
      gate_figures base = view(&f, keep);
      for (size_t r = 0; r < f.nruns; r++)
        if (!keep[r]) {
          t.runs++;
          judge_run(&f, r, &base, &policy, list, &t);
        }
      free_view(&base);
    }
    printf("%-42s %5zu %8zu %9zu %6zu %7zu %6zu\n", uuid[0] ? uuid : "(no uuid)", t.runs, t.verdicts, t.over_goal,
           t.slower, t.slower_no_kind, t.faster);
    add(&total, &t);
  }
  printf("%zu GPUs, %zu runs: %zu verdicts, %zu thresholds over the goal (%.1f %%), %zu slower, %zu faster\n", gpus,
         total.runs, total.verdicts, total.over_goal, total.verdicts ? 100.0 * total.over_goal / total.verdicts : 0.0,
         total.slower, total.faster);
  if (total.slower_no_kind)
    printf(
        "%zu of the slower were judged against other kinds alone (no GPU of the left-out GPU's kind was left): a "
        "kind the baseline has too few GPUs of, which a runner of that kind blessed in settles\n",
        total.slower_no_kind);
  free(keep);
  free_figures(&f);
  return total.slower ? 1 : 0;
}
