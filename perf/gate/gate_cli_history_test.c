/* CPU tests of gate history end to end: it takes its own run's verdicts and accepted runs only, keeps its CSV rows
 * parseable, and appends all or nothing (a failed write, two appends at once, a row of the wrong field count). */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* gate history takes the verdicts of its own run only: another run's verdicts would be
 * written as this run's, and an old verdicts file does not say whose it is. */
START_TEST(history_takes_its_own_runs_verdicts) {
  const char *bl = baseline_dir("own/bl");
  write_run("own/run.json", H100, 132, 3000.0, base_set, 3, 5);
  const char *bench = copy_bench("own/fake_bench", at("own/run.json"), at("own/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, at("own"));
  const char *hist = make_dir("own/hist");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/run.json"));
  /* The same run again (a re-run job): refused, nothing appended (#56 D16). */
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/run.json"));
  expect_output("already holds this run's rows");
  /* Another run: another date, host or GPU. */
  write_run("own/later.json", H100, 132, 3000.0, base_set, 3, 6);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/later.json"));
  expect_output("own/verdicts.json");
  expect_output("own/later.json");
  expect_output("run.date");
  write_run("own/elsewhere.json", H100, 132, 3000.0, base_set, 3, 5);
  set_context("own/elsewhere.json", "host_name", json_string("gpu-host-2"));
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/elsewhere.json"));
  expect_output("run.host");
  write_run("own/h200.json", "NVIDIA H200", 132, 3000.0, base_set, 3, 5);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/h200.json"));
  expect_output("gpu.name");
  /* A verdicts file from before gpu and run were written. */
  write_text("own/old_verdicts.json",
             "{\"metric\": \"time\", \"verdicts\": [{\"name\": \"elementwise/add/N:1\", "
             "\"verdict\": \"same\"}]}");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/old_verdicts.json"), at("own/run.json"));
  expect_output("own/old_verdicts.json: field gpu.name");
  expect_output("re-run gate check");
  /* Nothing was appended by the refused ones: a header and three rows. */
  char cmd[1200];
  FORMAT(cmd, "test $(wc -l < '%s/nvidia-h100-80gb-hbm3.csv') -eq 4", hist);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* dir/rel_out: verdicts of the run file dir/rel_run as gate check writes them, every
 * benchmark judged `verdict`. */
static void verdicts_for(const char *rel_run, const char *rel_out, const char *verdict) {
  json_error_t jerr;
  json_t *run = json_load_file(at(rel_run), 0, &jerr);
  ck_assert_ptr_nonnull(run);
  json_t *cx = json_object_get(run, "context"), *list = json_array();
  json_t *bs = json_object_get(run, "benchmarks");
  for (size_t i = 0; i < json_array_size(bs); i++)
    json_array_append_new(
        list, json_pack("{s:O, s:s}", "name", json_object_get(json_array_get(bs, i), "name"), "verdict", verdict));
  json_t *v =
      json_pack("{s:s, s:{s:O, s:s}, s:{s:O, s:O, s:s}, s:o}", "metric", "time", "gpu", "name",
                json_object_get(json_object_get(cx, "gpu"), "name"), "uuid", "", "run", "date",
                json_object_get(cx, "date"), "host", json_object_get(cx, "host_name"), "commit", "x", "verdicts", list);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(json_dump_file(v, at(rel_out), 0), 0);
  json_decref(v);
  json_decref(run);
}

/* The history holds accepted runs: verdicts of a gate check that failed (against the baseline or A/B) add no row
 * (#56 D18). */
START_TEST(history_takes_accepted_runs_only) {
  const char *hist = make_dir("acc/hist");
  char csv[1200];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  write_run("acc/run.json", H100, 132, 3000.0, base_set, 3, 11);
  verdicts_for("acc/run.json", "acc/verdicts.json", "slower");
  json_error_t jerr;
  json_t *v = json_load_file(at("acc/verdicts.json"), 0, &jerr);
  ck_assert_ptr_nonnull(v);
  json_object_set_new(json_array_get(json_object_get(v, "verdicts"), 1), "fails", json_true());
  json_object_set_new(json_array_get(json_object_get(v, "verdicts"), 1), "compared_with", json_string("revision r1"));
  ck_assert_int_eq(json_dump_file(v, at("acc/verdicts.json"), 0), 0);
  json_decref(v);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("acc/verdicts.json"), at("acc/run.json"));
  expect_output("verdicts[1] (elementwise/add_float4/N:1) fails the gate: the history holds accepted runs only");
  ck_assert_int_ne(access(csv, F_OK), 0);
  verdicts_for("acc/run.json", "acc/verdicts.json", "same");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("acc/verdicts.json"), at("acc/run.json"));
  ck_assert(file_has(csv, "elementwise/add_float4/N:1"));
}
END_TEST

/* Bad places are named: an empty --history_dir= or --verdicts=, and a folder where the history file goes. */
START_TEST(history_names_bad_places) {
  make_dir("place");
  write_run("place/run.json", H100, 132, 3000.0, base_set, 3, 12);
  verdicts_for("place/run.json", "place/verdicts.json", "same");
  expect_gate(2, "history --history_dir= --verdicts=%s %s", at("place/verdicts.json"), at("place/run.json"));
  expect_output("--history_dir= is empty");
  expect_gate(2, "history --history_dir=%s --verdicts= %s", at("place/hist"), at("place/run.json"));
  expect_output("--verdicts= is empty");
  make_dir("place/hist/nvidia-h100-80gb-hbm3.csv");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", at("place/hist"), at("place/verdicts.json"),
              at("place/run.json"));
  expect_output("nvidia-h100-80gb-hbm3.csv: a folder, not a history file");
}
END_TEST

/* A verdicts file that lacks a verdict of a run's benchmark, or has one gate check does not write (a name of 5, a
 * verdict of null, "fails": "true"), is refused and nothing is appended: such rows were appended as "unknown", and
 * "true" read as an accepted run. */
START_TEST(history_refuses_verdicts_it_cannot_read) {
  const char *hist = make_dir("vbad/hist");
  char csv[1200];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  write_run("vbad/run.json", H100, 132, 3000.0, base_set, 3, 12);
  struct {
    const char *key;
    json_t *value;
    const char *message;
  } bad[] = {
      {NULL, NULL, "field verdicts: no verdict of elementwise/add_float4/N:1, a benchmark of "},
      {"name", json_integer(5), "field verdicts[1].name: expected the benchmark's name, a string"},
      {"name", json_string("elementwise/add/N:1"), "field verdicts[1].name: a second verdict of elementwise/add/N:1"},
      {"verdict", json_null(), "field verdicts[1].verdict: expected a string"},
      {"fails", json_string("true"), "field verdicts[1].fails: expected true or false"},
      {"threshold", json_string("0.03"), "field verdicts[1].threshold: expected a number >= 0"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    verdicts_for("vbad/run.json", "vbad/verdicts.json", "same");
    json_error_t jerr;
    json_t *v = json_load_file(at("vbad/verdicts.json"), 0, &jerr);
    ck_assert_ptr_nonnull(v);
    json_t *list = json_object_get(v, "verdicts");
    if (bad[i].key)
      json_object_set_new(json_array_get(list, 1), bad[i].key, bad[i].value);
    else
      json_array_remove(list, 1);
    ck_assert_int_eq(json_dump_file(v, at("vbad/verdicts.json"), 0), 0);
    json_decref(v);
    expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("vbad/verdicts.json"), at("vbad/run.json"));
    expect_output(bad[i].message);
    expect_output("nothing was appended");
    ck_assert_int_ne(access(csv, F_OK), 0);
  }
  verdicts_for("vbad/run.json", "vbad/verdicts.json", "same");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("vbad/verdicts.json"), at("vbad/run.json"));
  char cmd[1400];
  FORMAT(cmd, "test $(grep -c ',same,write,,$' '%s') -eq 3", csv);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* History rows are plain CSV, appended forever: a field that would break a row, or a file
 * whose last row is cut or that is not a history file, is refused and nothing is appended. */
/* Trends read a series against the baseline's runs of its own testbed and flush method. Testbed "tb B" runs 4 %
 * faster than "tb A"; its history creeps from its level (96 us) to 100.3 us, +4.5 %, beyond the 3 % tolerance.
 * Against every run of the baseline (the median, 98 us: +2.3 %), or one GPU of tb A, it did not creep. */
START_TEST(trends_read_each_testbed_against_its_own_runs) {
  const char *bl = make_dir("tbtr/bl");
  const fake_bench slow[] = {{"elementwise/add/N:1", 100000}}, fast[] = {{"elementwise/add/N:1", 96000}};
  char args[2048] = "", name[64];
  for (unsigned k = 0; k < 6; k++) {
    FORMAT(name, "tbtr/r%u.json", k);
    write_run(name, H100, 132, 3000.0, k < 3 ? slow : fast, 1, 90 + k);
    set_context(name, "testbed", json_string(k < 3 ? "tb A" : "tb B"));
    size_t used = strlen(args);
    snprintf(args + used, sizeof args - used, " %s", at(name));
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  FILE *f = fopen(at("tbtr/nvidia-h100-80gb-hbm3.csv"), "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,threshold,testbed\n");
  for (int i = 0; i < 20; i++) /* after the bless (2026-11-22), measured as the baseline was: the memset flush */
    fprintf(f, "2030-01-%02dT10:00:00+00:00,c%011d,%s,elementwise/add/N:1,%g,1e9,0.001,same,write,0.03,tb B\n", 1 + i,
            i, "nvidia-h100-80gb-hbm3", (i < 10 ? 96000.0 : 100300.0) + (i % 2 ? 10 : -10));
  ck_assert_int_eq(fclose(f), 0);
  char base[1200];
  FORMAT(base, "%s/nvidia-h100-80gb-hbm3.json", bl);
  expect_gate(0, "trends --baseline=%s %s", base, at("tbtr/nvidia-h100-80gb-hbm3.csv"));
  expect_output("CREPT elementwise/add/N:1 @tb B: +4.4");
  expect_output("1 crept");
}
END_TEST

START_TEST(history_rows_stay_parseable) {
  const char *hist = make_dir("csv/hist");
  char csv[1200];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  struct {
    const char *key, *value, *field;
  } bad[] = {{"commit", "abc\"def", "context.commit"},
             {"commit", "abc,def", "context.commit"},
             {"date", "2026-11-22\n05:00", "context.date"},
             {"commit", "abc\tdef", "context.commit"},
             {"date", "2026-11-22\r", "context.date"},
             /* no CSV trouble, but the history's readers refuse a date that is not one */
             {"date", "yesterday", "field context.date: 'yesterday' is not a date as the runner writes it"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
    set_context("csv/run.json", bad[i].key, json_string(bad[i].value));
    verdicts_for("csv/run.json", "csv/verdicts.json", "same");
    expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
    expect_output(bad[i].field);
    ck_assert_int_ne(access(csv, F_OK), 0);
  }
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  set_bench("csv/run.json", 1, "name", json_string("elementwise/a,b/N:1"));
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("elementwise/a,b/N:1");
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  verdicts_for("csv/run.json", "csv/verdicts.json", "same,\"odd\"");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("verdicts[0].verdict");
  ck_assert_int_ne(access(csv, F_OK), 0);
  /* A verdict word the renderer does not know would make it refuse the whole file. */
  verdicts_for("csv/run.json", "csv/verdicts.json", "bogus");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("field verdicts[0].verdict: 'bogus' is not a verdict");
  ck_assert_int_ne(access(csv, F_OK), 0);

  /* The file as found: a cut last row, or not a history file, is left alone. */
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  const char *cut = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n2026-11-22T0";
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", cut);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("nvidia-h100-80gb-hbm3.csv does not end in a line break");
  char cmd[2400];
  FORMAT(cmd, "printf '%%s' '%s' | cmp -s - '%s'", cut, csv);
  ck_assert_int_eq(system(cmd), 0);
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", "name,value\nx,1\n");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("not a history header");
  ck_assert(file_has(csv, "^x,1$"));
  /* An empty file gets the header, with the threshold each verdict applied and the run's testbed. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", "");
  set_context("csv/run.json", "testbed", json_string("H100 x2 NVLink | CPU | driver 1"));
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd,
         "head -1 '%s' | grep -qx 'date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,"
         "threshold,testbed' && test $(wc -l < '%s') -eq 4 && "
         "test $(grep -c ',same,write,,H100 x2 NVLink | CPU | driver 1$' '%s') -eq 3",
         csv, csv, csv);
  ck_assert_int_eq(system(cmd), 0);
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  /* One begun before l2_flush gains the new fields, its old rows with both empty and their "write" flush. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv",
             "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict\n"
             "2026-11-20T00:00:00+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same\n");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd,
         "head -1 '%s' | grep -q ',l2_flush,threshold,testbed$' && test $(wc -l < '%s') -eq 5 && "
         "test $(grep -c ',same,write,,$' '%s') -eq 4",
         csv, csv, csv);
  ck_assert_int_eq(system(cmd), 0);
  /* A file with CRLF line ends (a checkout that converted them), which the renderer reads too:
   * appended to, its new rows in CRLF as well. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv",
             "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\r\n"
             "2026-11-21T00:00:00+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same,read\r\n");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd, "test $(wc -l < '%s') -eq 5 && test $(tr -cd '\\r' < '%s' | wc -c) -eq 5", csv, csv);
  ck_assert_msg(system(cmd) == 0, "CRLF history: not 5 rows all ending in CRLF");
}
END_TEST

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* gate history appends all or nothing: a write that fails part way (a full disk, here a file size
 * limit) leaves the old file as it was, no temporary file, and exit 2; two appends at once both
 * land; a row of the wrong field count already there is refused, naming its line. */
START_TEST(history_appends_all_or_nothing) {
  const char *hist = make_dir("all/hist");
  char csv[1200], kept[1200], cmd[4096], args[4096];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  FORMAT(kept, "%s/kept.csv", at("all"));
  write_run("all/run.json", H100, 132, 3000.0, base_set, 3, 9);
  verdicts_for("all/run.json", "all/verdicts.json", "same");
  FILE *f = fopen(csv, "w");
  ck_assert_ptr_nonnull(f);
  fputs("date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n", f);
  for (int i = 0; i < 40; i++)
    fprintf(f, "2026-11-21T00:00:%02d+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same,read\n",
            i);
  ck_assert_int_eq(fclose(f), 0);
  FORMAT(cmd, "cp '%s' '%s'", csv, kept);
  ck_assert_int_eq(system(cmd), 0);
  FORMAT(args, "history --history_dir=%s --verdicts=%s %s", hist, at("all/verdicts.json"), at("all/run.json"));
  /* Room for the old rows and a few bytes more: the new rows do not fit. */
  int rc = gate_with_file_limit((rlim_t)file_size(csv) + 40, args);
  ck_assert_msg(rc == 2, "gate exited %d, expected 2; its output:\n%s", rc, gate_output);
  expect_output("nvidia-h100-80gb-hbm3.csv");
  expect_output("nothing was appended");
  FORMAT(cmd, "cmp -s '%s' '%s'", csv, kept);
  ck_assert_msg(system(cmd) == 0, "the history file changed on a failed append");
  FORMAT(cmd, "test -z \"$(ls '%s' | grep -v '^nvidia-h100-80gb-hbm3.csv$')\"", hist);
  ck_assert_msg(system(cmd) == 0, "a temporary file was left in %s", hist);
  /* With room, the rows are appended after the old ones. */
  expect_gate(0, "%s", args);
  /* (the old rows as they were, with the two fields a 9-field file gains, empty) */
  FORMAT(cmd,
         "test $(wc -l < '%s') -eq 44 && tail -n +2 '%s' > '%s.rows' && sed -n '2,41s/,,$//p' '%s' | cmp -s - "
         "'%s.rows'",
         csv, kept, kept, csv, kept);
  ck_assert_int_eq(system(cmd), 0);

  /* Two appends at once, of two other runs each round: both land (they take turns on the folder's lock). */
  char v1[1200], r1[1200], v2[1200], r2[1200], d[1200];
  FORMAT(d, "--history_dir=%s", hist);
  for (int round = 0; round < 5; round++) {
    char a[64], b[64], va[64], vb[64];
    FORMAT(a, "all/one%d.json", round);
    FORMAT(b, "all/other%d.json", round);
    FORMAT(va, "all/one%d_verdicts.json", round);
    FORMAT(vb, "all/other%d_verdicts.json", round);
    write_run(a, H100, 132, 3000.0, base_set, 3, 20 + 2 * (unsigned)round);
    write_run(b, H100, 132, 3000.0, base_set, 3, 21 + 2 * (unsigned)round);
    verdicts_for(a, va, "same");
    verdicts_for(b, vb, "same");
    FORMAT(v1, "--verdicts=%s", at(va));
    FORMAT(r1, "%s", at(a));
    FORMAT(v2, "--verdicts=%s", at(vb));
    FORMAT(r2, "%s", at(b));
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    char *a1[] = {"history", d, v1, r1, NULL}, *a2[] = {"history", d, v2, r2, NULL};
    pid_t p1 = start_gate(go, a1), p2 = start_gate(go, a2);
    close(go[0]);
    close(go[1]);
    ck_assert_int_eq(exit_status(p1), 0);
    ck_assert_int_eq(exit_status(p2), 0);
  }
  FORMAT(cmd, "test $(wc -l < '%s') -eq 74", csv);
  ck_assert_msg(system(cmd) == 0, "rows were lost by appends at once");

  /* A row of the wrong field count (a cut row that ends in a line break, or a hand edit). */
  FORMAT(cmd, "printf '2026-11-22T0,abc\\n' >> '%s' && cp '%s' '%s'", csv, csv, kept);
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "%s", args);
  expect_output("nvidia-h100-80gb-hbm3.csv: line 75 has 2 fields");
  expect_output("remove or complete that line");
  FORMAT(cmd, "cmp -s '%s' '%s'", csv, kept);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli_history");
  TCase *tc = tcase_create("cli_history");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, history_takes_its_own_runs_verdicts);
  tcase_add_test(tc, history_takes_accepted_runs_only);
  tcase_add_test(tc, history_names_bad_places);
  tcase_add_test(tc, history_refuses_verdicts_it_cannot_read);
  tcase_add_test(tc, trends_read_each_testbed_against_its_own_runs);
  tcase_add_test(tc, history_rows_stay_parseable);
  tcase_add_test(tc, history_appends_all_or_nothing);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
