/* CPU tests of //plots:render's model of a report (plots/testdata, "Test Fixture GPU"): inputs grouped by GPU and
 * family, a baseline kept as a folder of families, verdicts placed with the GPU they name (or refused when they
 * cannot be), other GPUs' baselines and histories left out, and a family's own verdict over another's "missing". */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/gate/baseline_store.h"
#include "plots/inputs.h"
#include "plots/model.h"
#include "plots/render_testutil.h"
#include "tests/support/check_run.h"

/* A baseline kept as a folder of a file per family (baselines/<gpu>/<family>.json) is read as one baseline, alone
 * or in the baselines folder beside the history; the folder of baselines itself is not taken for one. */
START_TEST(a_baseline_folder_of_families_is_one_baseline) {
  gate_figures f;
  char err[2048], dir[1200], cmd[2600];
  ck_assert_msg(load_baseline(FIX "/baselines/test-fixture-gpu.json", &f, err, sizeof err) == 0, "%s", err);
  snprintf(dir, sizeof dir, "%s/per_family/baselines", tmp);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r " FIX "/baselines/history '%s/'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  baseline_place pl = {.per_family = 1};
  snprintf(pl.path, sizeof pl.path, "%s/test-fixture-gpu", dir);
  ck_assert_msg(baseline_save(&pl, &f, err, sizeof err) == 0, "%s", err);
  for (int alone = 0; alone < 2; alone++) {
    render_inputs in = {0};
    ck_assert_msg(load_input(&in, alone ? pl.path : dir, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(in.nbases, 1);
    ck_assert_uint_eq(in.bases[0].fig.n, f.n);
    ck_assert_uint_eq(in.bases[0].fig.nruns, f.nruns);
    ck_assert_uint_eq(in.nhist, alone ? 0 : 1);
    free_inputs(&in);
  }
  free_figures(&f);
  /* The file the folder was made from, left beside it: two baselines of one GPU, of which the later was drawn. */
  snprintf(cmd, sizeof cmd, "cp " FIX "/baselines/test-fixture-gpu.json '%s/'", dir);
  ck_assert_int_eq(system(cmd), 0);
  render_inputs in = {0};
  ck_assert_msg(load_input(&in, dir, err, sizeof err) == 0, "%s", err);
  report_model m;
  ck_assert_int_ne(build_model(&in, &m, err, sizeof err), 0);
  ck_assert_msg(strstr(err, "/test-fixture-gpu.json and ") &&
                    strstr(err,
                           "/test-fixture-gpu are both baselines of "
                           "test-fixture-gpu: give one"),
                "%s", err);
  free_inputs(&in);
}
END_TEST

START_TEST(model_groups_by_gpu_and_family) {
  render_inputs in = {0};
  char err[2048];
  ck_assert_msg(load_input(&in, FIX "/runs", err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_input(&in, FIX "/baselines", err, sizeof err) == 0, "%s", err);
  trends_ok("model", FIX "/baselines/" SLUG ".json", FIX "/baselines/history/" SLUG ".csv");
  ck_assert_msg(load_input(&in, trends_file("model"), err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(in.nruns, 3);
  ck_assert_uint_eq(in.nhist, 1);
  ck_assert_uint_eq(in.nbases, 1);
  report_model m;
  ck_assert_msg(build_model(&in, &m, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(m.ng, 1);
  ck_assert_str_eq(m.g[0].name, "Test Fixture GPU");
  ck_assert_ptr_nonnull(m.g[0].base);
  ck_assert_uint_eq(m.g[0].nf, 3);
  for (size_t k = 0; k < 3; k++) {
    const family_view *f = &m.g[0].f[k];
    ck_assert_str_eq(f->name, kFamilies[k]);
    /* add does 1 FLOP per 12 bytes: charted in GB/s; matmul in FLOP/s. */
    ck_assert_int_eq(f->flops, !strcmp(f->name, "matmul"));
  }
  ck_assert_str_eq(m.g[0].f[0].v[1].name, "add_float4");
  ck_assert_uint_eq(m.g[0].f[0].nh, 72);
  free_model(&m);
  free_inputs(&in);
}
END_TEST

/* FIX/<src> with every "Test Fixture GPU" renamed "Mock Fixture GPU" (and, with drop_gpu, the
 * verdicts' "gpu" object left out, as files written before the field), saved as tmp/<dst>. */
static void mock_copy(const char *src, const char *dst, int drop_gpu, char *path, size_t len) {
  char from[512];
  snprintf(from, sizeof from, FIX "/%s", src);
  char *text = slurp(from, NULL), *at;
  while ((at = strstr(text, "Test Fixture GPU")) != NULL) memcpy(at, "Mock Fixture GPU", 16);
  while ((at = strstr(text, "test-fixture-gpu")) != NULL) memcpy(at, "mock-fixture-gpu", 16);
  if (drop_gpu) {
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    ck_assert_msg(root != NULL, "%s: %s", from, je.text);
    json_object_del(root, "gpu");
    free(text);
    text = json_dumps(root, JSON_INDENT(1));
    json_decref(root);
  }
  snprintf(path, len, "%s/%s", tmp, dst);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  ck_assert_int_eq(system(cmd), 0);
  *slash = '/';
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  free(text);
}

/* verdicts.json names its GPU: with runs of two GPUs its verdicts go to that GPU's section. */
START_TEST(verdicts_go_to_the_gpu_they_name) {
  char other[1200];
  mock_copy("runs/elementwise.json", "two/other_gpu.json", 0, other, sizeof other);
  render_inputs in = {0};
  char err[2048];
  ck_assert_msg(load_input(&in, FIX "/runs/elementwise.json", err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_input(&in, other, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_input(&in, FIX "/verdicts.json", err, sizeof err) == 0, "%s", err);
  report_model m;
  ck_assert_msg(build_model(&in, &m, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(m.ng, 2);
  for (size_t i = 0; i < 2; i++) ck_assert_uint_eq(m.g[i].nverdicts, strcmp(m.g[i].slug, SLUG) == 0 ? 1 : 0);
  free_model(&m);
  free_inputs(&in);
}
END_TEST

/* A verdicts file from before the field names no GPU: with runs of two GPUs it cannot be placed;
 * one that names a GPU no run or history is of cannot be either. */
START_TEST(verdicts_that_cannot_be_placed_are_refused) {
  char other[1200], old[1200], mock_verdicts[1200];
  mock_copy("runs/elementwise.json", "two/other_gpu.json", 0, other, sizeof other);
  mock_copy("verdicts.json", "two/old_verdicts.json", 1, old, sizeof old);
  mock_copy("verdicts.json", "two/mock_verdicts.json", 0, mock_verdicts, sizeof mock_verdicts);
  char args[4096], errfile[1200], out[1200];
  snprintf(errfile, sizeof errfile, "%s/two_gpus.err", tmp);
  snprintf(out, sizeof out, "%s/two_gpus_out", tmp);
  snprintf(args, sizeof args, FIX "/runs/elementwise.json '%s' '%s' '%s'", other, old, out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  char *msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "names no GPU") && strstr(msg, "old_verdicts.json"), "%s", msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
  snprintf(args, sizeof args, FIX "/runs/elementwise.json '%s' '%s'", mock_verdicts, out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "mock_verdicts.json: field gpu.name") && strstr(msg, "Mock Fixture GPU"), "%s", msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* As the main job renders: this run, its verdicts and the whole baselines/ folder, which holds
 * another GPU too. The report is of the run's GPU; the other's baseline and history are left
 * out, and the report says so. */
START_TEST(other_gpus_baselines_are_left_out) {
  char base[1200], hist[1200];
  mock_copy("baselines/" SLUG ".json", "allbases/mock-fixture-gpu.json", 0, base, sizeof base);
  mock_copy("baselines/history/" SLUG ".csv", "allbases/history/mock-fixture-gpu.csv", 0, hist, sizeof hist);
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cp " FIX "/baselines/" SLUG ".json '%s/allbases/' && cp " FIX "/baselines/history/" SLUG
           ".csv '%s/allbases/history/'",
           tmp, tmp);
  ck_assert_int_eq(system(cmd), 0);
  char args[4096], errfile[1200], out[1200];
  snprintf(errfile, sizeof errfile, "%s/allbases.err", tmp);
  snprintf(out, sizeof out, "%s/allbases_out", tmp);
  snprintf(args, sizeof args, FIX "/runs " FIX "/verdicts.json '%s/allbases' %s '%s'", tmp,
           trends_ok("allbases", FIX "/baselines/" SLUG ".json", FIX "/baselines/history/" SLUG ".csv"), out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  ck_assert_int_eq(count_files(out, ".png"), 9);
  ck_assert_int_eq(count_files(out, "-history.png"), 3);
  char path[1400];
  snprintf(path, sizeof path, "%s/mock-fixture-gpu-elementwise-history.png", out);
  ck_assert_int_ne(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  ck_assert_msg(strstr(html, "Not in this report: mock-fixture-gpu") != NULL, "no note of the GPU left out");
  ck_assert_msg(strstr(html, "gate FAILED") != NULL, "the verdicts are not shown");
  free(html);
}
END_TEST

/* Each family's gate run calls the other families' benchmarks missing; their own verdict wins. */
START_TEST(missing_yields_to_a_real_verdict) {
  char path[1200], args[4096], errfile[1200], out[1200], index[1400];
  snprintf(path, sizeof path, "%s/other_family_verdicts.json", tmp);
  FILE *f = fopen(path, "w");
  fputs(
      "{\"metric\": \"time\", \"verdicts\": [{\"name\": \"elementwise/saxpy/N:268435456\", "
      "\"verdict\": \"missing\", \"baseline_ns\": 1220160.0}]}\n",
      f);
  fclose(f);
  snprintf(errfile, sizeof errfile, "%s/mixed.err", tmp);
  snprintf(out, sizeof out, "%s/mixed_out", tmp);
  snprintf(args, sizeof args, FIX "/runs/elementwise.json " FIX "/verdicts.json '%s' '%s'", path, out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(index, sizeof index, "%s/index.html", out);
  char *html = slurp(index, NULL);
  ck_assert(strstr(html, "<tr class=\"slower\"><td class=\"l name\">elementwise/saxpy/N:268435456") != NULL);
  ck_assert(strstr(html, "1 slower, 1 missing") != NULL);
  free(html);
}
END_TEST

int main(int argc, char **argv) {
  if (render_test_setup(argc, argv) != 0) return 2;
  Suite *s = suite_create("render_model");
  TCase *tc = tcase_create("render_model");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, a_baseline_folder_of_families_is_one_baseline);
  tcase_add_test(tc, model_groups_by_gpu_and_family);
  tcase_add_test(tc, verdicts_go_to_the_gpu_they_name);
  tcase_add_test(tc, verdicts_that_cannot_be_placed_are_refused);
  tcase_add_test(tc, other_gpus_baselines_are_left_out);
  tcase_add_test(tc, missing_yields_to_a_real_verdict);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
