/* CPU tests of which of the baseline's runs a run is judged against: a runner's own GPU, GPUs of its GPU kind, every
 * host for a host round trip, its own testbed; and how the threshold follows the slowest run, slower runs only. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/report.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* A run of add (16 contexts around add_ns) and saxpy (one context, its samples all at saxpy_ns)
 * on the GPU `uuid`. */
static void gpu_run(const char *file, unsigned seed, const char *uuid, double add_ns, double saxpy_ns) {
  probed_run(file, seed, add_ns, saxpy_ns, 0);
  json_t *samples = json_array();
  for (int i = 0; i < 5; i++) json_array_append_new(samples, json_real(saxpy_ns));
  set_bench(file, 1, "samples", samples);
  set_gpu_uuid(file, uuid);
}

/* GPUs of one model differ by a few percent in some long kernels (3.8 % between H200 hosts),
 * which a baseline of several GPUs must allow (3 x its spread); a GPU's own runs agree to a few
 * tenths of a percent. A runner whose GPU has runs in the baseline is compared with those, so a
 * 3 % slowdown is caught on it, while a GPU outside the baseline still gets the fleet's
 * allowance. */
START_TEST(a_runner_in_the_baseline_is_held_to_its_own_runs) {
  /* GPU A 3 runs, B 3 runs 3 % slower (a slower host), C 2 runs 3 % faster, E one run. */
  const struct {
    const char *uuid;
    double scale;
    int runs;
  } gpus[] = {{"GPU-A", 1.0, 3}, {"GPU-B", 1.03, 3}, {"GPU-C", 0.97, 2}, {"GPU-E", 1.0, 1}};
  gate_figures runs[9], base, run;
  char err[1024], name[64];
  size_t k = 0;
  for (size_t g = 0; g < 4; g++)
    for (int r = 0; r < gpus[g].runs; r++, k++) {
      double jitter = 1 + 0.001 * (r - 1); /* a GPU's runs: -0.1, 0, +0.1 % */
      FORMAT(name, "own_base%zu.json", k);
      gpu_run(name, 100 + (unsigned)k, gpus[g].uuid, 7000 * gpus[g].scale * jitter, 300000 * gpus[g].scale * jitter);
      runs[k] = load_ok(name);
    }
  ck_assert_msg(merge_runs(runs, k, &base, err, sizeof err) == 0, "%s", err);
  for (size_t i = 0; i < k; i++) free_figures(&runs[i]);
  gate_policy p = default_policy();
  comparison *c;
  char evidence[192];
  static const struct {
    const char *uuid;
    double add_ns, saxpy_ns;
    verdict add, saxpy;
    int own; /* saxpy against its GPU's own runs */
    size_t runs;
  } cases[] = {
      {"GPU-A", 7000 * 1.06, 300000 * 1.03, VERDICT_SLOWER, VERDICT_SLOWER, 1, 3}, /* A against A's runs */
      {"GPU-A", 7000 * 1.01, 300000 * 1.015, VERDICT_SAME, VERDICT_SAME, 1, 3},    /* under 2 % */
      {"GPU-B", 7000 * 1.03, 300000 * 1.03, VERDICT_SAME, VERDICT_SAME, 1, 3},     /* B as B always runs */
      {"GPU-C", 7000 * 0.97 * 1.06, 300000 * 0.97 * 1.03, VERDICT_SLOWER, VERDICT_SLOWER, 1, 2},
      {"GPU-D", 7000 * 1.03, 300000 * 1.03, VERDICT_SAME, VERDICT_SAME, 0, 9}, /* not in the baseline */
      {"GPU-E", 7000 * 1.03, 300000 * 1.03, VERDICT_SAME, VERDICT_SAME, 0, 9}, /* one run is not enough */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gpu_run("own_run.json", 200 + (unsigned)i, cases[i].uuid, cases[i].add_ns, cases[i].saxpy_ns);
    run = load_ok("own_run.json");
    size_t n = compare_figures(&base, &run, &p, &c);
    ck_assert_msg(verdict_of(c, n, "elementwise/add/N:1") == cases[i].add,
                  "case %zu: add %s, delta %.4f, allowed "
                  "%.4f, p %g",
                  i, verdict_name(c[0].v), c[0].delta, c[0].threshold, c[0].p_slower);
    ck_assert_msg(verdict_of(c, n, "elementwise/saxpy/N:1") == cases[i].saxpy,
                  "case %zu: saxpy %s, delta %.4f, "
                  "allowed %.4f, p %g",
                  i, verdict_name(c[1].v), c[1].delta, c[1].threshold, c[1].p_slower);
    for (int b = 0; b < 2; b++) { /* add: 16 contexts, Welch; saxpy: one, the pooled spread */
      ck_assert_int_eq(c[b].own_gpu, cases[i].own);
      ck_assert_uint_eq(c[b].base_runs, cases[i].runs);
      ck_assert_uint_eq(c[b].base_gpus, cases[i].own ? 1 : 4);
      /* Against its own runs the allowance is own_tolerance (2 %: a GPU's runs spread by 0.1 %),
       * against all of them, 3 x the fleet's 3 %. */
      if (cases[i].own)
        ck_assert_double_eq_tol(c[b].threshold, 0.02, 1e-9);
      else
        ck_assert_double_gt(c[b].threshold, 0.08);
    }
    if (cases[i].saxpy == VERDICT_SLOWER) ck_assert_double_lt(c[1].p_slower, 1e-4);
    evidence_text(&c[1], evidence, sizeof evidence);
    ck_assert_msg(strstr(evidence, cases[i].own ? "this GPU's" : "9 runs of 4 GPUs") != NULL, "%s", evidence);
    free(c);
    free_figures(&run);
  }
  free_figures(&base);
}
END_TEST

/* gpu_run with the copy probe of its GPU kind. */
static void kind_run(const char *file, unsigned seed, const char *uuid, double copy_gbps, double add_ns,
                     double saxpy_ns) {
  gpu_run(file, seed, uuid, add_ns, saxpy_ns);
  set_context(file, "copy_bandwidth_GBps", json_real(copy_gbps));
}

/* GPUs of one model come in GPU kinds whose copy probes differ by about 0.5 % and whose kernels differ
 * by up to 3.5 % (three GPU kinds of H200). A GPU outside the baseline is compared with the GPUs of
 * its GPU kind, so a 4 % slowdown is caught on it; judged on all of them it would pass, the spread
 * between GPU kinds being allowed 3 times. A run whose probe matches no GPU kind is judged on all. */
START_TEST(a_gpu_outside_the_baseline_is_compared_with_its_kind) {
  /* GPU kind 1: copy 3000 GB/s, two GPUs; kind 2: copy 3015 (+0.5 %), two GPUs, 3.5 % slower. */
  const struct {
    const char *uuid;
    double copy, scale;
  } gpus[] = {{"GPU-K1a", 3000, 1.0}, {"GPU-K1b", 3001, 1.0}, {"GPU-K2a", 3015, 1.035}, {"GPU-K2b", 3016, 1.035}};
  gate_figures runs[8], base, run;
  char err[1024], name[64], evidence[192];
  size_t k = 0;
  for (size_t g = 0; g < 4; g++)
    for (int r = 0; r < 2; r++, k++) {
      double jitter = 1 + 0.001 * (2 * r - 1); /* a GPU's runs: -0.1, +0.1 % */
      FORMAT(name, "kind_base%zu.json", k);
      kind_run(name, 300 + (unsigned)k, gpus[g].uuid, gpus[g].copy, 7000 * gpus[g].scale * jitter,
               300000 * gpus[g].scale * jitter);
      runs[k] = load_ok(name);
    }
  ck_assert_msg(merge_runs(runs, k, &base, err, sizeof err) == 0, "%s", err);
  for (size_t i = 0; i < k; i++) free_figures(&runs[i]);
  gate_policy p = default_policy();
  comparison *c;
  static const struct {
    double copy, scale;
    verdict v;
    int same_kind;
  } cases[] = {
      {3002, 1.04, VERDICT_SLOWER, 1},  /* kind 1, 4 % slower than kind 1 */
      {3002, 1.01, VERDICT_SAME, 1},    /* kind 1, within 3 % */
      {3014, 1.035, VERDICT_SAME, 1},   /* kind 2 as kind 2 runs */
      {3014, 1.075, VERDICT_SLOWER, 1}, /* kind 2, 4 % slower than kind 2 */
      {3100, 1.04, VERDICT_SAME, 0},    /* no kind: all GPUs, whose spread is 1.7 % x 3 */
      {3100, 1.10, VERDICT_SLOWER, 0},  /* no kind, 10 % slower: the message says how to bless it in */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kind_run("kind_run.json", 400 + (unsigned)i, "GPU-new", cases[i].copy, 7000 * cases[i].scale,
             300000 * cases[i].scale);
    run = load_ok("kind_run.json");
    size_t n = compare_figures(&base, &run, &p, &c);
    for (size_t b = 0; b < n; b++) { /* add: 16 contexts, Welch; saxpy: one context per run */
      ck_assert_msg(c[b].v == cases[i].v, "case %zu %s: %s, delta %.4f, allowed %.4f, p %g", i, c[b].name,
                    verdict_name(c[b].v), c[b].delta, c[b].threshold, c[b].p_slower);
      ck_assert_int_eq(c[b].same_kind, cases[i].same_kind);
      ck_assert_int_eq(c[b].own_gpu, 0);
      ck_assert_uint_eq(c[b].base_gpus, cases[i].same_kind ? 2 : 4);
      ck_assert_uint_eq(c[b].base_runs, cases[i].same_kind ? 4 : 8);
      evidence_text(&c[b], evidence, sizeof evidence);
      ck_assert_msg(
          strstr(evidence, cases[i].same_kind ? "4 runs of 2 GPUs of its kind" : "8 runs of 4 GPUs, 0 of its kind"),
          "%s", evidence);
      ck_assert_uint_eq(c[b].kind_gpus, cases[i].same_kind ? 2 : 0);
      if (c[b].v == VERDICT_SLOWER) {
        char msg[1024];
        failure_message(&c[b], msg, sizeof msg);
        ck_assert_msg((strstr(msg, "ci/bless.sh --add") != NULL) == !cases[i].same_kind, "case %zu: %s", i, msg);
      }
    }
    free(c);
    free_figures(&run);
  }
  free_figures(&base);
}
END_TEST

/* TESTBED: a run is judged against its own testbed's runs only. Testbed B is a host class 10 %
 * slower in add (a 2-GPU host whose launches cost more); pooled with A, its spread would allow 30 %.
 * Judged against A alone, a run at B's speed on A is slower; on B it is the same; on a testbed the
 * baseline has no run of, every benchmark is new ("no run of this testbed"), never judged against
 * another testbed; a run that names none (a file from before the field) is judged against all and
 * says so. A library reference (label "reference") beyond its threshold is slower but does not fail: the
 * environment changed (against this GPU's own runs), or their difference (against other GPUs). */
START_TEST(a_run_is_judged_against_its_own_testbed) {
  gate_figures runs[6], base, run;
  char err[1024], name[64], evidence[192], msg[1024];
  for (unsigned k = 0; k < 6; k++) {
    double scale = k < 3 ? 1.0 : 1.10, jitter = 1 + 0.001 * (double)(k % 3);
    FORMAT(name, "tb_base%u.json", k);
    gpu_run(name, 900 + k, k < 3 ? "GPU-A" : "GPU-B", 7000 * scale * jitter, 300000 * jitter);
    set_context(name, "testbed", json_string(k < 3 ? "H100 x1" : "H100 x2 NVLink"));
    runs[k] = load_ok(name);
  }
  ck_assert_msg(merge_runs(runs, 6, &base, err, sizeof err) == 0, "%s", err);
  for (size_t j = 0; j < 6; j++) free_figures(&runs[j]);
  /* Saved and loaded, each run keeps its testbed. */
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(base.runs[0].testbed, "H100 x1");
  ck_assert_str_eq(base.runs[5].testbed, "H100 x2 NVLink");
  static const struct {
    const char *testbed; /* NULL: the run names none */
    const char *uuid;
    double scale;
    verdict v;
    int reference_label; /* the run's add is a library reference */
  } cases[] = {
      {"H100 x1", "GPU-new", 1.10, VERDICT_SLOWER, 0},        /* B's speed on A: slower */
      {"H100 x2 NVLink", "GPU-new", 1.10, VERDICT_SAME, 0},   /* on B: its own testbed */
      {"H100 x2 NVLink", "GPU-new", 1.25, VERDICT_SLOWER, 0}, /* a real slowdown on B */
      {"H100 x4 NVLink", "GPU-new", 1.00, VERDICT_NEW, 0},    /* no run of it: new, not judged by another */
      {NULL, "GPU-new", 1.10, VERDICT_SAME, 0},               /* no testbed: all runs, said so */
      {"H100 x1", "GPU-A", 1.10, VERDICT_SLOWER, 1},          /* a library reference: slower, not failing */
      {"H100 x1", "GPU-new", 1.10, VERDICT_SLOWER, 1},        /* ... read against other GPUs */
  };
  gate_policy p = default_policy();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gpu_run("tb_run.json", 950 + (unsigned)i, cases[i].uuid, 7000 * cases[i].scale, 300000);
    if (cases[i].testbed) set_context("tb_run.json", "testbed", json_string(cases[i].testbed));
    if (cases[i].reference_label) set_bench("tb_run.json", 0, "label", json_string("reference"));
    run = load_ok("tb_run.json");
    comparison *c;
    size_t n = compare_figures(&base, &run, &p, &c);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(c[0].name, "elementwise/add/N:1");
    ck_assert_msg(c[0].v == cases[i].v, "case %zu: %s, delta %.4f, allowed %.4f", i, verdict_name(c[0].v), c[0].delta,
                  c[0].threshold);
    evidence_text(&c[0], evidence, sizeof evidence);
    if (cases[i].v == VERDICT_NEW) {
      ck_assert(c[0].no_testbed_runs && (c[0].reasons & REASON_NO_TESTBED_RUNS));
      ck_assert_msg(strstr(evidence, "no run of this testbed") != NULL, "%s", evidence);
    } else if (cases[i].testbed) {
      ck_assert_uint_eq(c[0].base_runs, 3); /* its testbed's three runs, never the other's */
      ck_assert_str_eq(c[0].testbed, cases[i].testbed);
    } else {
      ck_assert_uint_eq(c[0].base_runs, 6);
      ck_assert(c[0].reasons & REASON_NO_TESTBED);
      ck_assert_msg(strstr(evidence, "every testbed") != NULL, "%s", evidence);
    }
    ck_assert_int_eq(c[0].library_reference, cases[i].reference_label);
    ck_assert_int_eq(verdict_fails(&c[0]), cases[i].v == VERDICT_SLOWER && !cases[i].reference_label);
    if (cases[i].v == VERDICT_SLOWER) {
      unsigned all = REASON_BEYOND_THRESHOLD | REASON_SIGNIFICANT | REASON_ABOVE_FLOOR;
      ck_assert_uint_eq(c[0].reasons & all, all);
      ck_assert_int_eq((c[0].reasons & REASON_LIBRARY_REFERENCE) != 0, cases[i].reference_label);
      failure_message(&c[0], msg, sizeof msg);
      /* The environment changed only when it was read against this GPU's own runs (GPU-A has 3); against other
       * GPUs (GPU-new) it may be their difference. */
      int other_gpus = cases[i].reference_label && strcmp(cases[i].uuid, "GPU-A") != 0;
      ck_assert_int_eq((c[0].reasons & REASON_OTHER_GPUS) != 0, other_gpus);
      ck_assert_msg((strstr(msg, "the environment changed") != NULL) == (cases[i].reference_label && !other_gpus), "%s",
                    msg);
      ck_assert_msg((strstr(msg, "than the baseline's other GPUs") != NULL) == other_gpus, "%s", msg);
      ck_assert_str_eq(failure_label(&c[0]),
                       !cases[i].reference_label ? "REGRESSION"
                           : other_gpus          ? "GPU OR ENVIRONMENT"
                                                 : "ENVIRONMENT CHANGED");
    }
    free(c);
    free_figures(&run);
  }
  free_figures(&base);
}
END_TEST

/* A GPU kind is told by the GPU's copy speed, but a host round trip takes what the host gives it
 * (dot/tree_host_finish: 19.0 us on two H200s of the 4229 kind, 22.4 us on a third). A benchmark whose
 * run or baseline says "host_round_trip" is compared with every GPU of the model; the same figures
 * without it are compared with the run's GPU kind, whose two GPUs happen to agree. */
START_TEST(a_host_round_trip_is_judged_against_every_host) {
  /* GPU kind 1 (copy 3000): two hosts that agree; kind 2 (3015): a host 10 % slower in add. */
  const struct {
    const char *uuid;
    double copy, scale;
  } gpus[] = {{"GPU-K1a", 3000, 1.0}, {"GPU-K1b", 3001, 1.0}, {"GPU-K2a", 3015, 1.0}, {"GPU-K2b", 3016, 1.10}};
  char err[1024], name[64], evidence[192], msg[1024];
  gate_policy p = default_policy();
  comparison *c;
  /* in_base / in_run: where the flag is; the run is on GPU uuid, K1a being blessed in with own_runs runs
   * (the other GPUs with 2 each). */
  static const struct {
    int in_base, in_run;
    const char *uuid;
    int own_runs;
    double scale;
    verdict v;
    gate_reference ref;
  } cases[] = {
      {0, 0, "GPU-new", 2, 1.08, VERDICT_SLOWER, REF_ITS_KIND},   /* by GPU kind: kind 1 allows 3 % */
      {1, 1, "GPU-new", 2, 1.08, VERDICT_SAME, REF_EVERY_HOST},   /* every host: 3 x 10 % */
      {0, 1, "GPU-new", 2, 1.08, VERDICT_SAME, REF_EVERY_HOST},   /* a baseline from before the flag */
      {1, 0, "GPU-new", 2, 1.08, VERDICT_SAME, REF_EVERY_HOST},   /* a run from before it */
      {1, 1, "GPU-new", 2, 1.40, VERDICT_SLOWER, REF_EVERY_HOST}, /* a real slowdown still fails */
      /* A runner blessed in with two runs, under HOST_ROUND_TRIP_MIN_RUNS: against them it could never fail, so it is
       * compared with every host, and a real slowdown fails (under policy 5 it was "same") */
      {1, 1, "GPU-K1a", 2, 1.08, VERDICT_SAME, REF_EVERY_HOST},
      {1, 1, "GPU-K1a", 2, 1.40, VERDICT_SLOWER, REF_EVERY_HOST},
      /* with six runs of its own, its own runs: there 8 % is beyond the 2 % allowed */
      {1, 1, "GPU-K1a", 6, 1.08, VERDICT_SLOWER, REF_OWN_GPU},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gate_figures runs[12], base, run;
    size_t k = 0;
    for (size_t g = 0; g < 4; g++)
      for (int r = 0; r < (g == 0 ? cases[i].own_runs : 2); r++, k++) {
        double jitter = 1 + 0.001 * (2 * (r % 2) - 1);
        FORMAT(name, "host_base%zu.json", k);
        kind_run(name, 700 + (unsigned)k, gpus[g].uuid, gpus[g].copy, 7000 * gpus[g].scale * jitter, 300000 * jitter);
        if (cases[i].in_base) set_bench(name, 0, "host_round_trip", json_true());
        runs[k] = load_ok(name);
        ck_assert_int_eq(runs[k].b[0].host_round_trip, cases[i].in_base);
      }
    ck_assert_msg(merge_runs(runs, k, &base, err, sizeof err) == 0, "%s", err);
    for (size_t j = 0; j < k; j++) free_figures(&runs[j]);
    /* Blessed, the flag is kept in the baseline's file. */
    ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
    free_figures(&base);
    ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(base.b[0].host_round_trip, cases[i].in_base);
    ck_assert_int_eq(base.b[1].host_round_trip, 0);
    kind_run("host_run.json", 800 + (unsigned)i, cases[i].uuid, 3000.5, 7000 * cases[i].scale, 300000);
    if (cases[i].in_run) set_bench("host_run.json", 0, "host_round_trip", json_true());
    run = load_ok("host_run.json");
    size_t n = compare_figures(&base, &run, &p, &c);
    ck_assert_str_eq(c[0].name, "elementwise/add/N:1");
    ck_assert_msg(c[0].v == cases[i].v, "case %zu: %s, delta %.4f, allowed %.4f, p %g", i, verdict_name(c[0].v),
                  c[0].delta, c[0].threshold, c[0].p_slower);
    ck_assert_int_eq(reference_of(&c[0]), cases[i].ref);
    /* Every side here has 6 runs or more (every host: 8 or 12), so none is under HOST_ROUND_TRIP_MIN_RUNS. */
    ck_assert_int_eq(c[0].reasons & REASON_FEW_HOST_RUNS, 0);
    /* saxpy, no host round trip: its own runs from 2 */
    ck_assert_int_eq(reference_of(&c[1]), strcmp(cases[i].uuid, "GPU-K1a") == 0 ? REF_OWN_GPU : REF_ITS_KIND);
    evidence_text(&c[0], evidence, sizeof evidence);
    if (cases[i].ref == REF_EVERY_HOST) {
      ck_assert_uint_eq(c[0].base_gpus, 4);
      ck_assert_msg(strstr(evidence, "8 runs of 4 GPUs, a host round trip") != NULL, "%s", evidence);
    }
    if (c[0].v == VERDICT_SLOWER && cases[i].ref == REF_EVERY_HOST) {
      failure_message(&c[0], msg, sizeof msg);
      ck_assert_msg(strstr(msg, "host round trip, which differs from host to host") != NULL, "%s", msg);
    }
    free(c);
    free_figures(&run);
    free_figures(&base);
    (void)n;
  }
  /* Anything but true or false is refused, naming the field. */
  gate_figures f;
  kind_run("host_bad.json", 900, "GPU-x", 3000, 7000, 300000);
  set_bench("host_bad.json", 0, "host_round_trip", json_string("yes"));
  expect_error(load_run(at("host_bad.json"), &f, err, sizeof err), err, "host_round_trip: expected true or false");
}
END_TEST

/* Only a run slower than the baseline's median says how slow an unchanged run can be; a GPU that
 * runs faster says nothing of that, and taken as noise it would allow 3 x its lead. */
START_TEST(only_slower_runs_widen_the_threshold) {
  const struct {
    const char *uuid;
    double scale;
  } gpus[] = {{"GPU-A", 1.0}, {"GPU-B", 1.002}, {"GPU-C", 1.001}, {"GPU-F", 0.94}}; /* F runs 6 % faster */
  gate_figures runs[4], base, run;
  char err[1024], name[64];
  for (size_t g = 0; g < 4; g++) {
    FORMAT(name, "fast_base%zu.json", g);
    gpu_run(name, 500 + (unsigned)g, gpus[g].uuid, 7000 * gpus[g].scale, 300000 * gpus[g].scale);
    runs[g] = load_ok(name);
  }
  ck_assert_msg(merge_runs(runs, 4, &base, err, sizeof err) == 0, "%s", err);
  for (size_t i = 0; i < 4; i++) free_figures(&runs[i]);
  gpu_run("fast_run.json", 510, "GPU-new", 7000 * 1.045, 300000 * 1.045);
  run = load_ok("fast_run.json");
  gate_policy p = default_policy();
  comparison *c;
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_uint_eq(n, 2);
  for (size_t b = 0; b < n; b++) { /* the slowest run is well under 1 % over the median: 3 % allowed */
    ck_assert_msg(c[b].noise < 0.01, "%s: noise %.4f", c[b].name, c[b].noise);
    ck_assert_double_eq_tol(c[b].threshold, 0.03, 1e-9);
  }
  ck_assert_msg(c[0].v == VERDICT_SLOWER, "add: %s, delta %.4f, allowed %.4f, p %g", verdict_name(c[0].v), c[0].delta,
                c[0].threshold, c[0].p_slower);
  free(c);
  free_figures(&run);
  free_figures(&base);
}
END_TEST

/* A GPU outside the baseline is allowed 3 x the most one run of the baseline was slow
 * (GATE_RUN_NOISE): its own run is one process, with a GPU's offset and a process's. Taken per GPU
 * (each GPU's runs' median), one slow process no longer widened the threshold, and an unchanged
 * H100 outside the baseline was confirmed slower (dot/tree_host_finish 2^24, +3.69 % vs 3.0 %). */
START_TEST(a_gpu_outside_the_baseline_is_allowed_the_slowest_run) {
  /* Three GPUs, three runs each, within 0.1 %; 4 % slower: one run of GPU-B (mode 0), all three
   * (mode 1), none (mode 2). */
  gate_figures runs[9], base, run;
  char err[1024], name[64];
  for (int mode = 0; mode < 3; mode++) {
    const char *uuids[] = {"GPU-A", "GPU-B", "GPU-C"};
    size_t k = 0;
    for (size_t g = 0; g < 3; g++)
      for (int r = 0; r < 3; r++, k++) {
        int slow = g == 1 && (mode == 1 || (mode == 0 && r == 2));
        double scale = (1 + 0.001 * (r - 1)) * (slow ? 1.04 : 1.0);
        FORMAT(name, "gpus_base%d_%zu.json", mode, k);
        gpu_run(name, 600 + (unsigned)(10 * mode + k), uuids[g], 7000 * scale, 300000 * scale);
        runs[k] = load_ok(name);
      }
    ck_assert_msg(merge_runs(runs, k, &base, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < k; i++) free_figures(&runs[i]);
    static const double slowdowns[] = {1.025, 1.06};
    for (size_t s = 0; s < 2; s++) {
      FORMAT(name, "gpus_run%d_%zu.json", mode, s);
      gpu_run(name, 700 + (unsigned)(10 * mode + s), "GPU-new", 7000 * slowdowns[s], 300000 * slowdowns[s]);
      run = load_ok(name);
      gate_policy p = default_policy();
      comparison *c;
      size_t n = compare_figures(&base, &run, &p, &c);
      /* A slow run, one process or a whole GPU: noise 4 %, threshold 12 %, neither flagged.
       * None: noise 0.1 %, threshold 3 %: 6 % caught, 2.5 % not. */
      verdict want = mode == 2 && s == 1 ? VERDICT_SLOWER : VERDICT_SAME;
      for (size_t b = 0; b < n; b++) {
        ck_assert_msg(c[b].v == want, "mode %d, %+.1f %%: %s %s, delta %.4f, allowed %.4f (noise %.4f), p %g", mode,
                      100 * (slowdowns[s] - 1), c[b].name, verdict_name(c[b].v), c[b].delta, c[b].threshold, c[b].noise,
                      c[b].p_slower);
        ck_assert_int_eq(c[b].own_gpu, 0);
        if (mode == 2)
          ck_assert_double_eq_tol(c[b].threshold, 0.03, 1e-9);
        else
          ck_assert_double_gt(c[b].threshold, 0.11);
      }
      free(c);
      free_figures(&run);
    }
    free_figures(&base);
  }
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_reference");
  TCase *tc = tcase_create("reference");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, a_runner_in_the_baseline_is_held_to_its_own_runs);
  tcase_add_test(tc, a_gpu_outside_the_baseline_is_compared_with_its_kind);
  tcase_add_test(tc, a_host_round_trip_is_judged_against_every_host);
  tcase_add_test(tc, only_slower_runs_widen_the_threshold);
  tcase_add_test(tc, a_gpu_outside_the_baseline_is_allowed_the_slowest_run);
  tcase_add_test(tc, a_run_is_judged_against_its_own_testbed);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
