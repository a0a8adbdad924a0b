/* CPU tests of what //plots:render writes (plots/testdata, "Test Fixture GPU"): the ladder's bars in % of peak,
 * valid PNG (magic, IHDR size) and SVG files, index.html and its table, a failed benchmark listed but not charted,
 * a slower library reference that is not a failure, and no chart at all when gnuplot fails. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plots/inputs.h"
#include "plots/render_testutil.h"
#include "tests/support/check_run.h"

static const char *kKinds[] = {"history", "ladder", "size"};

/* ---------- what reaches gnuplot ---------- */

/* Bars of the elementwise ladder in % of the fixture GPU's 3000 GB/s peak:
 * add_float4 moves 12 x 256Mi bytes at 2700 GB/s = 90%. */
START_TEST(ladder_bars_are_percent_of_peak) {
  ck_assert_int_eq(full_rc, 0);
  FILE *f = fopen(data_file("elementwise-ladder", "bars"), "r");
  ck_assert_ptr_nonnull(f);
  char name[64];
  double y;
  const char *order[] = {"add", "add_float4", "saxpy"};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(fscanf(f, " \"%63[^\"]\" %lf \"%*[^\"]\"", name, &y), 2);
    ck_assert_str_eq(name, order[i]); /* registration order */
    if (i == 1) ck_assert_double_eq_tol(y, 90.0, 0.01);
  }
  fclose(f);
  /* matmul in TFLOP/s: regblock 35 at 4096^3 in the fixture, cublas a line, not a bar. */
  f = fopen(data_file("matmul-ladder", "bars"), "r");
  int bars = 0, seen = 0;
  while (fscanf(f, " \"%63[^\"]\" %lf \"%*[^\"]\"", name, &y) == 2) {
    bars++;
    ck_assert_str_ne(name, "cublas");
    if (!strcmp(name, "regblock")) {
      seen = 1;
      ck_assert_double_eq_tol(y, 35.0, 0.01);
    }
  }
  fclose(f);
  ck_assert_int_eq(bars, 3);
  ck_assert(seen);
}
END_TEST

/* A benchmark that failed its self-check is listed as failed, and the rest of the run is still charted. */
START_TEST(failed_benchmark_is_reported_not_charted) {
  run_file r;
  char err[1024];
  ck_assert_msg(load_run_file(FIX "/failed_run.json", &r, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(r.n, 3);
  ck_assert_uint_eq(r.nfailed, 1);
  ck_assert_str_eq(r.failed[0].name, "transpose/tiled/nx:8192/ny:8192");
  ck_assert(strstr(r.failed[0].message, "12 of 67108864 elements wrong") != NULL);
  free(r.b);
  free(r.failed);

  char args[4096], errfile[1200], out[1200], path[1400];
  snprintf(errfile, sizeof errfile, "%s/failed.err", tmp);
  snprintf(out, sizeof out, "%s/failed_out", tmp);
  snprintf(args, sizeof args, FIX "/failed_run.json '%s'", out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  ck_assert(strstr(html, "1 benchmark FAILED in the run") != NULL);
  ck_assert(strstr(html,
                   "transpose/tiled/nx:8192/ny:8192</td><td class=\"l verdict\" colspan=\"4\">FAILED in the "
                   "run: self-check failed") != NULL);
  free(html);
  snprintf(path, sizeof path, "%s/data/" SLUG "-transpose-ladder.bars.dat", out);
  char *bars = slurp(path, NULL);
  ck_assert(strstr(bars, "\"tiled\"") == NULL && strstr(bars, "\"tiled_padded\"") != NULL);
  free(bars);

  /* Nothing left to chart when every benchmark failed: refused, saying so. */
  json_t *root = json_load_file(FIX "/failed_run.json", 0, NULL), *bs = json_object_get(root, "benchmarks");
  for (size_t i = json_array_size(bs); i-- > 0;)
    if (!json_is_true(json_object_get(json_array_get(bs, i), "error_occurred"))) json_array_remove(bs, i);
  snprintf(path, sizeof path, "%s/all_failed.json", tmp);
  ck_assert_int_eq(json_dump_file(root, path, 0), 0);
  json_decref(root);
  ck_assert(load_run_file(path, &r, err, sizeof err) != 0);
  ck_assert_msg(strstr(err, path) && strstr(err, "every benchmark failed in the run"), "%s", err);
}
END_TEST

/* A family with two library references (matmul: cublas in fp32, cublas_tf32 with TF32 tensor cores): the tf32_*
 * steps are labelled against cublas_tf32, the others against cublas, and the right axis reads cublas. */
START_TEST(tf32_steps_read_against_their_own_reference) {
  json_t *root = json_load_file(FIX "/runs/matmul.json", 0, NULL), *bs = json_object_get(root, "benchmarks");
  ck_assert_ptr_nonnull(bs);
  json_t *regblock = NULL, *cublas = NULL;
  for (size_t i = 0; i < json_array_size(bs); i++) {
    const char *n = json_string_value(json_object_get(json_array_get(bs, i), "name"));
    if (!strcmp(n, "matmul/regblock/M:4096/N:4096/K:4096")) regblock = json_array_get(bs, i);
    if (!strcmp(n, "matmul/cublas/M:4096/N:4096/K:4096")) cublas = json_array_get(bs, i);
  }
  ck_assert(regblock && cublas);
  struct {
    json_t *from;
    const char *name;
    double flops;
  } add[] = {{regblock, "matmul/tf32_mma/M:4096/N:4096/K:4096", 175e12},
             {cublas, "matmul/cublas_tf32/M:4096/N:4096/K:4096", 350e12}};
  for (int i = 0; i < 2; i++) {
    json_t *b = json_deep_copy(add[i].from);
    json_object_set_new(b, "name", json_string(add[i].name));
    json_object_set_new(b, "run_name", json_string(add[i].name));
    json_object_set_new(b, "flops_per_second", json_real(add[i].flops));
    json_array_append_new(bs, b);
  }
  char run[1200], out[1200], errfile[1200], args[4096];
  snprintf(run, sizeof run, "%s/tf32_run.json", tmp);
  ck_assert_int_eq(json_dump_file(root, run, 0), 0);
  json_decref(root);
  snprintf(out, sizeof out, "%s/tf32_out", tmp);
  snprintf(errfile, sizeof errfile, "%s/tf32.err", tmp);
  snprintf(args, sizeof args, "'%s' '%s'", run, out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  char path[1400];
  snprintf(path, sizeof path, "%s/data/" SLUG "-matmul-ladder.bars.dat", out);
  char *bars = slurp(path, NULL);
  ck_assert_msg(strstr(bars, "\"35.0 TFLOP/s\\n82% of cublas\"") != NULL, "%s", bars); /* 35 / 42.67 */
  ck_assert_msg(strstr(bars, "\"175.0 TFLOP/s\\n50% of cublas_tf32\"") != NULL, "%s", bars);
  ck_assert(strstr(bars, "cublas_tf32\" ") == NULL); /* a reference is a line, not a bar */
  free(bars);
}
END_TEST

/* ---------- the binary, end to end ---------- */

START_TEST(charts_are_valid_png_and_svg) {
  char *errs = slurp(full_err, NULL);
  ck_assert_msg(full_rc == 0, "render exited %d: %.800s", full_rc, errs);
  /* gnuplot warnings are relayed; the fixtures must draw without any. */
  ck_assert_msg(strstr(errs, "gnuplot said") == NULL, "%.800s", errs);
  free(errs);
  char index[1400];
  snprintf(index, sizeof index, "%s/index.html", full_out);
  char *html = slurp(index, NULL);
  for (size_t k = 0; k < 3; k++)
    for (size_t c = 0; c < 3; c++) {
      char png[1400], svg[1400], tag[600];
      snprintf(png, sizeof png, "%s/" SLUG "-%s-%s.png", full_out, kFamilies[k], kKinds[c]);
      snprintf(svg, sizeof svg, "%s/" SLUG "-%s-%s.svg", full_out, kFamilies[k], kKinds[c]);
      unsigned w, h;
      check_png(png, &w, &h);
      check_svg(svg);
      /* The page states each image's size, so it must be the real one. */
      snprintf(tag, sizeof tag, "<img src=\"" SLUG "-%s-%s.png\" width=\"%u\" height=\"%u\"", kFamilies[k], kKinds[c],
               w, h);
      ck_assert_msg(strstr(html, tag) != NULL, "index.html lacks %s", tag);
      snprintf(tag, sizeof tag, "<a href=\"" SLUG "-%s-%s.svg\">", kFamilies[k], kKinds[c]);
      ck_assert_msg(strstr(html, tag) != NULL, "index.html lacks %s", tag);
      if (c == 1) ck_assert(w == 960 && h == 560);
    }
  free(html);
  ck_assert_int_eq(count_files(full_out, ".png"), 9);
  ck_assert_int_eq(count_files(full_out, ".svg"), 9);
}
END_TEST

START_TEST(html_has_the_table_and_no_script) {
  ck_assert_int_eq(full_rc, 0);
  char index[1400];
  snprintf(index, sizeof index, "%s/index.html", full_out);
  char *html = slurp(index, NULL);
  ck_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
  ck_assert(strstr(html, "<script") == NULL);
  ck_assert(strstr(html, "gate FAILED") != NULL);
  ck_assert(strstr(html, "1 slower, 1 missing") != NULL);
  ck_assert(strstr(html, "<tr class=\"slower\"><td class=\"l name\">elementwise/saxpy/N:268435456") != NULL);
  ck_assert(strstr(html, "<tr class=\"missing\"><td class=\"l name\">elementwise/add_vec8/N:268435456") != NULL);
  ck_assert(strstr(html, "+11.00%") != NULL);
  /* The legend of the verdict's columns is the gate's table of fields (perf/gate/verdict_fields.c), as
   * summary.md's. */
  ck_assert(strstr(html, "(metric: time). Delta: positive is slower; the run's mean of context medians against") !=
            NULL);
  ck_assert(
      strstr(html, "within 0.2 % of this run's, when there are two or more (&quot;N runs of M GPUs of its kind") !=
      NULL);
  ck_assert(strstr(html, "not the GPU's kind). Allowed: the gate's threshold for that benchmark.</p>") != NULL);
  ck_assert(strstr(html, "Test Fixture GPU (compute capability 9.0, 100 SMs)") != NULL);
  /* transpose was measured at one size and once: said in words, not only drawn. */
  ck_assert(strstr(html, "Only one problem size was measured") != NULL);
  ck_assert(strstr(html, "One run recorded in the history so far") != NULL);
  ck_assert(strstr(html, "</html>") != NULL);
  free(html);
}
END_TEST

/* A slower library reference ("fails": false in verdicts.json) does not fail the gate: the page says "passed" and
 * that the environment changed (#56 M12: "gate FAILED, 1 slower" on a run that passed); judged against other GPUs
 * than this one (reason other_gpus), it says that instead. */
START_TEST(a_slower_library_reference_is_not_a_failure) {
  static const char *const kSays[] = {
      "environment changed: 1 library reference slower (not a failure)",
      "1 library reference slower than other GPUs: their difference or the environment (not a failure)"};
  for (int other_gpus = 0; other_gpus < 2; other_gpus++) {
    json_error_t jerr;
    json_t *v = json_load_file(FIX "/verdicts.json", 0, &jerr);
    ck_assert_msg(v != NULL, "%s", jerr.text);
    json_t *list = json_object_get(v, "verdicts");
    for (size_t i = json_array_size(list); i-- > 0;) {
      json_t *e = json_array_get(list, i);
      const char *verdict = json_string_value(json_object_get(e, "verdict"));
      if (!strcmp(verdict, "missing")) {
        json_array_remove(list, i);
        continue;
      }
      json_object_set_new(e, "fails", json_false()); /* the slower one: a library reference */
      if (other_gpus && !strcmp(verdict, "slower"))
        json_object_set_new(e, "reasons", json_pack("[s, s]", "library_reference", "other_gpus"));
    }
    char dir[1200], path[1400], args[4096], errfile[1200], out[1200], index[1400];
    snprintf(dir, sizeof dir, "%s/libref%d", tmp, other_gpus);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/verdicts.json", dir);
    ck_assert_int_eq(json_dump_file(v, path, 0), 0);
    json_decref(v);
    snprintf(errfile, sizeof errfile, "%s/libref%d.err", tmp, other_gpus);
    snprintf(out, sizeof out, "%s/libref%d_out", tmp, other_gpus);
    snprintf(args, sizeof args, FIX "/runs '%s' '%s'", path, out);
    ck_assert_int_eq(run_render(args, errfile), 0);
    snprintf(index, sizeof index, "%s/index.html", out);
    char *html = slurp(index, NULL);
    ck_assert_msg(strstr(html, "gate passed</span> 0 slower, 0 missing") != NULL, "%.2000s", strstr(html, "status"));
    ck_assert_msg(strstr(html, kSays[other_gpus]) != NULL, "%.2000s", strstr(html, "status"));
    ck_assert(strstr(html, kSays[!other_gpus]) == NULL);
    free(html);
  }
}
END_TEST

/* gnuplot's exit status is checked: a failing or missing gnuplot leaves no chart. */
START_TEST(gnuplot_failure_leaves_no_chart) {
  const char *progs[] = {"/bin/false", "/no/such/gnuplot"};
  const char *says[] = {"failed (exit status 1)", "is gnuplot installed"};
  for (int i = 0; i < 2; i++) {
    char args[4096], errfile[1200], out[1200];
    snprintf(errfile, sizeof errfile, "%s/gp%d.err", tmp, i);
    snprintf(out, sizeof out, "%s/gp%d_out", tmp, i);
    snprintf(args, sizeof args, "--gnuplot=%s " FIX "/runs/elementwise.json '%s'", progs[i], out);
    ck_assert_int_eq(run_render(args, errfile), 1);
    char *msg = slurp(errfile, NULL);
    ck_assert_msg(strstr(msg, says[i]) != NULL, "%s", msg);
    free(msg);
    ck_assert_int_eq(count_files(out, ".png") + count_files(out, ".svg"), 0);
    char index[1400];
    snprintf(index, sizeof index, "%s/index.html", out);
    ck_assert_int_ne(access(index, F_OK), 0);
  }
}
END_TEST

/* A report that cannot be written whole (a full disk: every file limited in size) fails, exit 1, naming the file
 * and errno, and leaves nothing of itself in OUTDIR: the cut SVG, PNG and empty data files that were left among whole
 * ones (and over the last report's), which looked complete, are gone, and the last report is as it was. */
START_TEST(a_full_disk_leaves_no_cut_report) {
  char args[4096], errfile[1200], out[1200], cmd[4096];
  snprintf(errfile, sizeof errfile, "%s/full_disk.err", tmp);
  snprintf(out, sizeof out, "%s/full_disk_out", tmp);
  snprintf(args, sizeof args, FIX "/runs '%s'", out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f | sort | xargs md5sum > '%s.sums'", out, out);
  ck_assert_int_eq(system(cmd), 0);
  /* 100 bytes: the first data file fails; 12000: data files fit, the first chart is cut (gnuplot exits 0). */
  const long limits[] = {100, 12000};
  const char *says[] = {"File too large", "cut short"};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(run_render_with_file_limit(limits[i], args, errfile), 1);
    snprintf(cmd, sizeof cmd, "cd '%s' && find . | grep -q '/[.]render' || md5sum --quiet -c '%s.sums'", out, out);
    ck_assert_msg(system(cmd) == 0, "limit %ld: the last report in %s was changed or a staging folder left", limits[i],
                  out);
    snprintf(cmd, sizeof cmd, "cd '%s' && [ \"$(find . -type f | wc -l)\" -eq \"$(wc -l < '%s.sums')\" ]", out, out);
    ck_assert_msg(system(cmd) == 0, "limit %ld: files added to %s", limits[i], out);
    char *msg = slurp(errfile, NULL);
    ck_assert_msg(strstr(msg, says[i]) && strstr(msg, "nothing of this report was left"), "%s", msg);
    free(msg);
    /* Into a new folder: it stays empty. */
    char fresh[1300], fresh_args[4096];
    snprintf(fresh, sizeof fresh, "%s/full_disk_new%d", tmp, i);
    snprintf(fresh_args, sizeof fresh_args, FIX "/runs '%s'", fresh);
    ck_assert_int_eq(run_render_with_file_limit(limits[i], fresh_args, errfile), 1);
    snprintf(cmd, sizeof cmd, "[ -z \"$(ls -A '%s')\" ]", fresh);
    ck_assert_msg(system(cmd) == 0, "limit %ld: files left in %s", limits[i], fresh);
  }
}
END_TEST

/* A 2-parameter family's shapes of nearly one element count (4093x8191 and 8191x4099, within 0.2 %) each have a
 * place of their own on the size chart's x, in order of size: on a log axis of element counts they sat at one x
 * and their labels overlapped (#58). */
START_TEST(shapes_of_one_size_have_places_of_their_own) {
  json_t *root = json_load_file(FIX "/runs/transpose.json", 0, NULL);
  ck_assert_ptr_nonnull(root);
  json_t *bs = json_object_get(root, "benchmarks");
  size_t n = json_array_size(bs);
  static const char *kShapes[] = {"nx:4093/ny:8191", "nx:8191/ny:4099"};
  for (size_t i = 0; i < n; i++) {
    const char *name = json_string_value(json_object_get(json_array_get(bs, i), "name"));
    const char *at = name ? strstr(name, "nx:8192/ny:8192") : NULL;
    for (size_t k = 0; at && k < 2; k++) {
      json_t *copy = json_deep_copy(json_array_get(bs, i));
      char renamed[256];
      snprintf(renamed, sizeof renamed, "%.*s%s%s", (int)(at - name), name, kShapes[k], at + strlen("nx:8192/ny:8192"));
      json_object_set_new(copy, "name", json_string(renamed));
      if (json_object_get(copy, "run_name")) json_object_set_new(copy, "run_name", json_string(renamed));
      json_array_append_new(bs, copy);
    }
  }
  char dir[1200], path[1400], args[4096], errfile[1300], out[1300];
  snprintf(dir, sizeof dir, "%s/shapes", tmp);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/transpose.json", dir);
  ck_assert_int_eq(json_dump_file(root, path, JSON_INDENT(1)), 0);
  json_decref(root);
  snprintf(out, sizeof out, "%s/shapes_out", tmp);
  snprintf(errfile, sizeof errfile, "%s/shapes.err", tmp);
  snprintf(args, sizeof args, "'%s' '%s'", path, out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(path, sizeof path, "%s/data/" SLUG "-transpose-size.series.dat", out);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char line[512], labels[8][64] = {{0}};
  int places[8], nlabels = 0, rows = 0;
  while (fgets(line, sizeof line, f)) {
    int x;
    double y;
    char label[64];
    if (sscanf(line, "%d %lf \"%63[^\"]\"", &x, &y, label) != 3) continue;
    rows++;
    int k = 0;
    while (k < nlabels && strcmp(labels[k], label)) k++;
    if (k == nlabels) {
      ck_assert_int_lt(nlabels, 8);
      snprintf(labels[nlabels], sizeof labels[0], "%s", label);
      places[nlabels++] = x;
    }
    ck_assert_msg(places[k] == x, "%s at x %d and %d", label, places[k], x);
  }
  fclose(f);
  ck_assert_int_eq(nlabels, 3);
  ck_assert_int_gt(rows, 3);
  /* Evenly spaced places 1, 2, 3 in order of element count: 4093x8191 < 8191x4099 < 8192x8192. */
  static const char *kOrder[] = {"4093×8191", "8191×4099", "8192×8192"};
  for (int k = 0; k < 3; k++) {
    int a = 0;
    while (a < nlabels && strcmp(labels[a], kOrder[k])) a++;
    ck_assert_msg(a < nlabels, "no point labelled %s", kOrder[k]);
    ck_assert_msg(places[a] == k + 1, "%s at x %d, expected %d", kOrder[k], places[a], k + 1);
  }
}
END_TEST

int main(int argc, char **argv) {
  if (render_test_setup(argc, argv) != 0) return 2;
  full_render(); /* the render of everything that several tests check */
  Suite *s = suite_create("render_output");
  TCase *tc = tcase_create("render_output");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, a_slower_library_reference_is_not_a_failure);
  tcase_add_test(tc, ladder_bars_are_percent_of_peak);
  tcase_add_test(tc, failed_benchmark_is_reported_not_charted);
  tcase_add_test(tc, tf32_steps_read_against_their_own_reference);
  tcase_add_test(tc, charts_are_valid_png_and_svg);
  tcase_add_test(tc, html_has_the_table_and_no_script);
  tcase_add_test(tc, gnuplot_failure_leaves_no_chart);
  tcase_add_test(tc, a_full_disk_leaves_no_cut_report);
  tcase_add_test(tc, shapes_of_one_size_have_places_of_their_own);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
