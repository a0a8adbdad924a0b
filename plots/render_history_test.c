/* CPU tests of //plots:render's over-time chart (plots/testdata, "Test Fixture GPU", and histories written here):
 * the band is the threshold applied, regressions and the trends of `gate trends --json` are marked and listed,
 * testbeds are series of their own, a long history is thinned, a history alone draws history only and needs its
 * trends, rows of another L2 flush method are left out, and a cut last row is left out. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/runner/testbed.h"
#include "plots/inputs.h"
#include "plots/render_testutil.h"
#include "tests/support/check_run.h"

/* add and add_float4 at N=1Mi, worked out here: the line is the row's time against the
 * baseline's (the median of the baseline's three run medians), in %; the band is the threshold
 * applied to the row, max(tolerance 3 %, 3 x the row's noise), the fixture history having no
 * threshold column: per run, the tightest and the widest of the panel's variants. */
START_TEST(band_is_the_threshold_applied) {
  ck_assert_int_eq(full_rc, 0);
  json_t *root = json_load_file(FIX "/baselines/" SLUG ".json", 0, NULL);
  ck_assert_ptr_nonnull(root);
  json_t *bs = json_object_get(root, "benchmarks"), *runs = NULL;
  for (size_t i = 0; i < json_array_size(bs); i++)
    if (!strcmp(json_string_value(json_object_get(json_array_get(bs, i), "name")), "elementwise/add/N:1048576"))
      runs = json_object_get(json_array_get(bs, i), "runs");
  ck_assert_uint_eq(json_array_size(runs), 3);
  double m[3];
  for (int r = 0; r < 3; r++) m[r] = json_number_value(json_object_get(json_array_get(runs, r), "median_ns"));
  json_decref(root);
  double lo = fmin(m[0], fmin(m[1], m[2])), hi = fmax(m[0], fmax(m[1], m[2]));
  double med = m[0] + m[1] + m[2] - lo - hi;

  /* The fixture's first row of add at 1Mi: 7312.42 ns, noise 0.002838 (under 1 %: 3 % applies). */
  FILE *f = fopen(data_file("elementwise-history", "series"), "r");
  ck_assert_ptr_nonnull(f);
  int x, slower, lt;
  double delta;
  ck_assert_int_eq(fscanf(f, "%d %lf %d %d", &x, &delta, &slower, &lt), 4);
  fclose(f);
  ck_assert_int_eq(x, 1);
  ck_assert_int_eq(lt, 1);
  ck_assert_double_eq_tol(delta, 100 * (7312.42 / med - 1), 1e-4);

  /* The panel's band at run 1: the tightest threshold (add, saxpy: 3 %) and the widest (add_float4:
   * noise 0.01669, 3 x noise = 5.007 %). */
  f = fopen(data_file("elementwise-history", "band"), "r");
  ck_assert_ptr_nonnull(f);
  double tightest, widest;
  ck_assert_int_eq(fscanf(f, "%d %lf %lf", &x, &tightest, &widest), 3);
  fclose(f);
  ck_assert_int_eq(x, 1);
  ck_assert_double_eq_tol(tightest, 3.0, 1e-9);
  ck_assert_double_eq_tol(widest, 5.007, 1e-9);
}
END_TEST

/* A history of its own for a test: tmp/NAME/SLUG.csv, open for writing; its path in path. */
static FILE *new_history(const char *name, char path[1400]) {
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/%s", tmp, name);
  mkdir(dir, 0755);
  snprintf(path, 1400, "%s/" SLUG ".csv", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  return f;
}

/* Renders the history at path alone into tmp/NAME_out (its folder in out); fails unless it exits 0. */
static void render_history(const char *name, const char *path, char out[1300]) {
  char errfile[1300], args[4096];
  snprintf(out, 1300, "%s/%s_out", tmp, name);
  snprintf(errfile, sizeof errfile, "%s/%s.err", tmp, name);
  snprintf(args, sizeof args, "'%s' %s '%s'", path, trends_ok(name, NULL, path), out);
  ck_assert_int_eq(run_render(args, errfile), 0);
}

/* A history of its own: columns in another order, a testbed and a threshold column (used as
 * recorded), a +2 % step at run 16 of 30 in one benchmark and +4 % at run 21 in another. The
 * change points are marked on the chart, listed in the report's Trends section and trends.md,
 * and the +4 % step (against the first rows: no baseline) is creep beyond 3 %. */
START_TEST(trends_are_marked_and_listed) {
  char path[1400], out[1300];
  FILE *f = new_history("trend_hist", path);
  fprintf(f, "testbed,benchmark,median_ns,date,commit,gpu,bytes_per_second,noise,verdict,l2_flush,threshold\n");
  for (int i = 0; i < 30; i++) {
    double wobble = i % 3 - 1; /* medians of whole segments stay exact */
    fprintf(f, "rack1,elementwise/add/N:1048576,%g,2026-12-01T%02d:00:00+00:00,%07dabc,%s,1e12,0.001,same,read,0.04\n",
            (i < 15 ? 1000 : 1020) + wobble, i % 24, 1000000 + i, SLUG);
    fprintf(f,
            "rack1,elementwise/add_float4/N:1048576,%g,2026-12-01T%02d:00:00+00:00,%07dabc,%s,1e12,0.001,same,read,"
            "0.04\n",
            (i < 20 ? 900 : 936) + wobble, i % 24, 1000000 + i, SLUG);
  }
  ck_assert_int_eq(fclose(f), 0);
  render_history("trend", path, out);

  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.marks.dat", out);
  char *marks = slurp(path, NULL);
  ck_assert_msg(strstr(marks, "16 2 1 1 \"+2.0%\"") != NULL, "%s", marks);
  ck_assert_msg(strstr(marks, "21 4 2 1 \"+4.0%\"") != NULL, "%s", marks);
  free(marks);
  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.band.dat", out);
  char *band = slurp(path, NULL);
  ck_assert_msg(strncmp(band, "1 4 4\n", 6) == 0, "the recorded threshold is not the band: %.200s", band);
  free(band);

  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  ck_assert(strstr(html, ">Trends</h3>") != NULL);
  ck_assert(strstr(html, "-trends\">Trends</a>: 2 change points since the last bless, 1 benchmark crept") != NULL);
  ck_assert_msg(
      strstr(
          html,
          "elementwise/add/N:1048576 <small>@rack1</small></td><td>+2.00%</td><td class=\"l\"><code>1000014abc</code> "
          "2026-12-01T14:00:00+00:00</td><td class=\"l\"><code>1000015abc</code>") != NULL,
      "no change point row in the Trends section");
  ck_assert(strstr(html,
                   "<b>Crept:</b> <code>elementwise/add_float4/N:1048576</code> is +4.00% against its first "
                   "rows") != NULL);
  ck_assert(strstr(html, "<code>elementwise/add/N:1048576</code> is") == NULL); /* +2 %: within 3 % */
  free(html);
  snprintf(path, sizeof path, "%s/trends.md", out);
  char *text = slurp(path, NULL);
  ck_assert_msg(strstr(text, "2 change points since the last bless, 1 crept beyond the tolerance") != NULL, "%s", text);
  ck_assert_msg(strstr(text,
                       "- change: elementwise/add/N:1048576 @rack1 +2.00 % from 1000014abc (2026-12-01) to "
                       "1000015abc (2026-12-01), p = 0.002") != NULL,
                "%s", text);
  free(text);
}
END_TEST

/* Rows of two testbeds are two series: a benchmark measured on one host and then, 3 % slower, on
 * another has no change point and did not creep. The names are as long as `gate history` writes
 * them: a detected name (an H200 host's, 74 characters, once made the report refuse the history)
 * and the longest a testbed can have (TESTBED_MAX - 1). */
START_TEST(testbeds_are_series_of_their_own) {
  char path[1400], out[1300], longest[TESTBED_MAX];
  const char *detected = "NVIDIA H100 80GB HBM3 x1 no NVLink | Intel(R) Xeon(R) Platinum 8480+ | driver 580.159.04";
  memset(longest, 'h', sizeof longest - 1);
  longest[sizeof longest - 1] = '\0';
  FILE *f = new_history("testbed_hist", path);
  fprintf(f, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,testbed\n");
  for (int i = 0; i < 40; i++)
    fprintf(f, "2026-12-02T%02d:%02d:00+00:00,%07dabc,%s,elementwise/add/N:1048576,%d,1e12,0.001,same,read,%s\n",
            i / 60, i % 60, 2000000 + i, SLUG, (i < 20 ? 1000 : 1040) + i % 3 - 1, i < 20 ? detected : longest);
  ck_assert_int_eq(fclose(f), 0);
  render_history("testbed", path, out);
  snprintf(path, sizeof path, "%s/trends.md", out);
  char *text = slurp(path, NULL);
  ck_assert_msg(strstr(text, "0 change points since the last bless, 0 crept") != NULL, "%s", text);
  free(text);
}
END_TEST

/* 2000 runs: every row is in the data, the lines drawn are thinned, the SVG stays small, the x
 * axis keeps at most 10 labels, and runs are told apart by date and commit alone. */
START_TEST(long_history_is_thinned) {
  char path[1400], out[1300];
  FILE *f = new_history("long_hist", path);
  fprintf(f, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n");
  const char *variants[] = {"add", "add_float4", "saxpy"};
  for (int i = 0; i < 2000; i++)
    for (int v = 0; v < 3; v++)
      fprintf(f, "2026-12-%02dT%02d:%02d:00+00:00,c%05d,%s,elementwise/%s/N:1048576,%d,1e12,0.001,%s,read\n",
              1 + i / 1440, i / 60 % 24, i % 60, i, SLUG, variants[v], 1000 + (i * 7919 + v * 31) % 13,
              i == 1234 ? "slower" : "same");
  ck_assert_int_eq(fclose(f), 0);
  render_history("long", path, out);
  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.series.dat", out);
  size_t lines = count_lines(path);
  ck_assert_msg(lines > 3 * 150 && lines <= 3 * 300 + 2 + 3, "%zu lines drawn of 6000 rows", lines);
  char *series = slurp(path, NULL);
  ck_assert_msg(strstr(series, "\n1235 ") != NULL, "the slower row was thinned away");
  free(series);
  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.labels.dat", out);
  ck_assert_uint_eq(count_lines(path), 10);
  snprintf(path, sizeof path, "%s/" SLUG "-elementwise-history.svg", out);
  check_svg(path);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_lt(st.st_size, 300 * 1000);
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  ck_assert(strstr(html, "over the 2000 runs in the history") != NULL);
  ck_assert(strstr(html, "Drawn thinned") != NULL);
  free(html);
}
END_TEST

/* Rows marked as regressions are exactly the history's "slower" rows. */
START_TEST(regressions_are_marked) {
  ck_assert_int_eq(full_rc, 0);
  const char *fam[] = {"elementwise", "matmul", "transpose"};
  int want[] = {2, 1, 0};
  for (int k = 0; k < 3; k++) {
    char name[64];
    snprintf(name, sizeof name, "%s-history", fam[k]);
    FILE *f = fopen(data_file(name, "series"), "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    int marked = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
      int x, slow;
      double y;
      if (sscanf(line, "%d %lf %d", &x, &y, &slow) == 3) {
        rows++;
        marked += slow;
      }
    }
    fclose(f);
    ck_assert_int_eq(marked, want[k]);
    ck_assert_int_eq(rows, k == 0 ? 72 : k == 1 ? 40 : 4);
  }
}
END_TEST

START_TEST(history_alone_draws_history_only) {
  char args[4096], errfile[1200], out[1200];
  snprintf(errfile, sizeof errfile, "%s/hist.err", tmp);
  snprintf(out, sizeof out, "%s/hist_out", tmp);
  snprintf(args, sizeof args, FIX "/baselines/history/" SLUG ".csv %s '%s'",
           trends_ok("hist", NULL, FIX "/baselines/history/" SLUG ".csv"), out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  ck_assert_int_eq(count_files(out, "-history.png"), 3);
  ck_assert_int_eq(count_files(out, "-ladder.png"), 0);
  char index[1400];
  snprintf(index, sizeof index, "%s/index.html", out);
  char *html = slurp(index, NULL);
  ck_assert(strstr(html, "the ladder and size charts need one") != NULL);
  ck_assert(strstr(html, "against the median of its first 5 rows") != NULL); /* no baseline */
  /* Without a run JSON the FLOPs per call are unknown: matmul is charted in GB/s. */
  ck_assert(strstr(html, "matmul <small>(GB/s)</small>") != NULL);
  free(html);
}
END_TEST

/* The renderer decides nothing about a history: without the trends `gate trends --json` wrote of it, or with trends
 * written from another history (rows appended since), it refuses the input, naming the fix, and draws nothing. */
START_TEST(history_needs_the_gates_trends) {
  char args[4096], errfile[1200], out[1200], dir[1200], path[1400], cmd[8192];
  snprintf(errfile, sizeof errfile, "%s/notrends.err", tmp);
  snprintf(out, sizeof out, "%s/notrends_out", tmp);
  snprintf(args, sizeof args, FIX "/baselines/history/" SLUG ".csv '%s'", out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  char *msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "history rows of " SLUG " are given, but not its trends: run `gate trends --json") != NULL,
                "%s", msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
  /* Trends of the fixture, then a row appended to the history: they no longer hold every row. */
  const char *trends = trends_ok("stale", NULL, FIX "/baselines/history/" SLUG ".csv");
  snprintf(dir, sizeof dir, "%s/stale", tmp);
  snprintf(path, sizeof path, "%s/" SLUG ".csv", dir);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp " FIX "/baselines/history/" SLUG
           ".csv '%s' && tail -n 1 '%s' | "
           "sed 's/^2026-11-[0-9]*T/2026-12-01T/' >> '%s'",
           dir, path, path, path);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(args, sizeof args, "'%s' %s '%s'", path, trends, out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "at line 118 of the history: they were written from another history") != NULL, "%s", msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
  /* The other way: trends of the longer history, drawn over the fixture's, hold a row it lacks (a change point
   * there was dropped from the chart and counted all the same). */
  snprintf(args, sizeof args, FIX "/baselines/history/" SLUG ".csv %s '%s'", trends_ok("longer", NULL, path), out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  msg = slurp(errfile, NULL);
  ck_assert_msg(
      strstr(msg, "at line 118, a row the history given lacks: they were written from another history") != NULL, "%s",
      msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
  /* Trends of another policy are refused, naming the fix. */
  char policy[1400];
  snprintf(policy, sizeof policy, "%s/policy5.trends.json", tmp);
  snprintf(cmd, sizeof cmd, "sed 's/\"policy_version\":[0-9]*/\"policy_version\":5/' %s > '%s'",
           trends_ok("policy", NULL, FIX "/baselines/history/" SLUG ".csv"), policy);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(args, sizeof args, FIX "/baselines/history/" SLUG ".csv '%s' '%s'", policy, out);
  ck_assert_int_eq(run_render(args, errfile), 2);
  msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "policy5.trends.json: field policy_version: 5") &&
                    strstr(msg, "write the file again with this `gate trends --json`"),
                "%s", msg);
  free(msg);
  ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* A history begun before the l2_flush field (8-field rows: the memset flush) goes on with
 * 9-field rows; the over-time chart keeps only the rows taken like the baseline. */
START_TEST(history_methods_do_not_mix) {
  char dir[1200], path[1400], cmd[4096];
  snprintf(dir, sizeof dir, "%s/mixed/history", tmp);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp " FIX "/baselines/history/" SLUG
           ".csv '%s/' && "
           "grep ',elementwise/' " FIX "/baselines/history/" SLUG
           ".csv | head -9 | "
           "sed -e 's/^2026-11-01T03:11:00+00:00,[0-9a-f]*,/2026-11-23T09:00:00+00:00,0123456789ab,/' -e 's/$/,read/' "
           ">> '%s/" SLUG ".csv'",
           dir, dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/" SLUG ".csv", dir);
  history_file h;
  char err[1024];
  ck_assert_msg(load_history_file(path, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 72 + 40 + 4 + 9);
  ck_assert_str_eq(h.r[0].l2_flush, "write");
  ck_assert_str_eq(h.r[h.n - 1].l2_flush, "read");
  free_history_file(&h);

  char args[4096], errfile[1200], out[1200];
  snprintf(errfile, sizeof errfile, "%s/method.err", tmp);
  snprintf(out, sizeof out, "%s/method_out", tmp);
  snprintf(args, sizeof args, FIX "/baselines/" SLUG ".json '%s' %s '%s'", path,
           trends_ok("method", FIX "/baselines/" SLUG ".json", path), out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  ck_assert_msg(strstr(html,
                       "9 history rows measured with another L2 flush than the 'write' one of the "
                       "baseline left out") != NULL,
                "no note on the rows left out");
  free(html);
  /* The read run is not on the chart: 8 runs, as in the fixture alone. */
  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.labels.dat", out);
  ck_assert_uint_eq(count_lines(path), 8);

  /* A baseline whose elementwise family was re-blessed with the read flush while its other
   * families (and its runs[0]) are of the write flush: the elementwise chart keeps the read run. */
  json_error_t jerr;
  json_t *base = json_load_file(FIX "/baselines/" SLUG ".json", 0, &jerr);
  ck_assert_ptr_nonnull(base);
  json_t *runs = json_object_get(base, "runs");
  size_t nold = json_array_size(runs);
  for (size_t k = 0; k < nold; k++) {
    json_t *r = json_deep_copy(json_array_get(runs, k));
    json_object_set_new(r, "l2_flush", json_string("read"));
    json_object_set_new(r, "host", json_string("fixture-host-read")); /* other runs: each run is in a baseline once */
    json_array_append_new(runs, r);
  }
  json_t *b;
  size_t i;
  json_array_foreach(json_object_get(base, "benchmarks"), i, b) {
    if (strncmp(json_string_value(json_object_get(b, "name")), "elementwise/", 12) != 0) continue;
    json_t *m;
    size_t j;
    json_array_foreach(json_object_get(b, "runs"), j, m)
        json_object_set_new(m, "run", json_integer(json_integer_value(json_object_get(m, "run")) + (json_int_t)nold));
  }
  char base_dir[1300], base_path[1400];
  snprintf(base_dir, sizeof base_dir, "%s/mixed_base", tmp);
  mkdir(base_dir, 0755);
  snprintf(base_path, sizeof base_path, "%s/" SLUG ".json", base_dir);
  ck_assert_int_eq(json_dump_file(base, base_path, JSON_INDENT(1)), 0);
  json_decref(base);
  snprintf(out, sizeof out, "%s/mixed_out2", tmp);
  snprintf(path, sizeof path, "%s/" SLUG ".csv", dir);
  snprintf(args, sizeof args, "'%s' '%s' %s '%s'", base_path, path, trends_ok("method2", base_path, path), out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(path, sizeof path, "%s/data/" SLUG "-elementwise-history.labels.dat", out);
  ck_assert_uint_eq(count_lines(path), 1);
  snprintf(path, sizeof path, "%s/data/" SLUG "-matmul-history.labels.dat", out);
  ck_assert_uint_eq(count_lines(path), 5); /* matmul's runs stay of the write flush */
}
END_TEST

/* A history whose last row was cut (a gate history append stopped by a full disk: no newline at its
 * end, or too few fields) still renders from the rows before it, and says on stderr which line it
 * left out and why; a bad row anywhere else still refuses the file. */
START_TEST(cut_last_row_is_left_out) {
  static const struct {
    const char *name, *tail, *says;
  } kCut[] = {
      {"no_newline",
       "2026-11-09T03:40:00+00:00,0cb1e29c658c,test-fixture-gpu,transpose/cublas_geam/nx:8192/ny:8192,2033",
       "line 118: left out, a cut last row (no newline at its end"},
      {"complete_no_newline",
       "2026-11-09T03:40:00+00:00,0cb1e29c658c,test-fixture-gpu,transpose/cublas_geam/nx:8192/ny:8192,203370,"
       "2.63987e+12,0.01157,same",
       "line 118: left out, a cut last row (no newline at its end"},
      {"few_fields", "2026-11-09T03:40:00+00:00,0cb1e29c658c,test-fixture-gpu,transpose/cublas_geam/nx:8192\n",
       "line 118: left out, a cut last row (a wrong number of fields"},
  };
  for (size_t i = 0; i < sizeof kCut / sizeof *kCut; i++) {
    char dir[1200], path[1400], cmd[8192], args[4096], errfile[1200], out[1200];
    snprintf(dir, sizeof dir, "%s/cut_%s", tmp, kCut[i].name);
    snprintf(path, sizeof path, "%s/" SLUG ".csv", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp " FIX "/baselines/history/" SLUG ".csv '%s' && printf '%s' >> '%s'",
             dir, path, kCut[i].tail, path);
    ck_assert_int_eq(system(cmd), 0);
    history_file h;
    char err[1024];
    ck_assert_msg(load_history_file(path, &h, err, sizeof err) == 0, "%s: %s", kCut[i].name, err);
    ck_assert_uint_eq(h.n, 72 + 40 + 4); /* the fixture's rows, none lost */
    free_history_file(&h);
    snprintf(errfile, sizeof errfile, "%s/cut_%s.err", tmp, kCut[i].name);
    snprintf(out, sizeof out, "%s/cut_%s_out", tmp, kCut[i].name);
    snprintf(args, sizeof args, "'%s' %s '%s'", path, trends_ok(kCut[i].name, NULL, path), out);
    ck_assert_int_eq(run_render(args, errfile), 0);
    char *msg = slurp(errfile, NULL);
    ck_assert_msg(strstr(msg, path) && strstr(msg, kCut[i].says) && strstr(msg, "the 116 rows before it are read"),
                  "%s: %s", kCut[i].name, msg);
    free(msg);
    ck_assert_int_eq(count_files(out, "-history.png"), 3);
  }
  /* The same short row followed by a good one is not a cut last row: the file is refused. */
  char dir[1200], path[1400], cmd[8192];
  snprintf(dir, sizeof dir, "%s/cut_middle", tmp);
  snprintf(path, sizeof path, "%s/" SLUG ".csv", dir);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp " FIX "/baselines/history/" SLUG
           ".csv '%s' && printf '%s' >> '%s' && "
           "tail -n 1 " FIX "/baselines/history/" SLUG ".csv >> '%s'",
           dir, path, kCut[2].tail, path, path);
  ck_assert_int_eq(system(cmd), 0);
  history_file h;
  char err[1024];
  ck_assert_int_ne(load_history_file(path, &h, err, sizeof err), 0);
  ck_assert_msg(strstr(err, "line 118: expected 8 or 9 comma-separated fields") != NULL, "%s", err);
}
END_TEST

int main(int argc, char **argv) {
  if (render_test_setup(argc, argv) != 0) return 2;
  full_render(); /* the render of everything that several tests check */
  Suite *s = suite_create("render_history");
  TCase *tc = tcase_create("render_history");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, band_is_the_threshold_applied);
  tcase_add_test(tc, trends_are_marked_and_listed);
  tcase_add_test(tc, testbeds_are_series_of_their_own);
  tcase_add_test(tc, long_history_is_thinned);
  tcase_add_test(tc, regressions_are_marked);
  tcase_add_test(tc, history_alone_draws_history_only);
  tcase_add_test(tc, history_needs_the_gates_trends);
  tcase_add_test(tc, cut_last_row_is_left_out);
  tcase_add_test(tc, history_methods_do_not_mix);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
