/* `gate trends` on hand-made histories: what it prints for a step and for creep, columns found
 * by name (in any order, with columns added later), and bad input refused with exit 2 naming
 * the file, the line and the field. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/decide.h"
#include "perf/gate/trends_file.h"
#include "tests/support/check_run.h"

static const char *gate;

#define STR_(x) #x
#define STR(x) STR_(x)

/* Runs `gate trends ARGS` (stderr joined to stdout) into out; returns its exit status. */
static int run_trends(const char *args, char *out, size_t len) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' trends %s 2>&1", gate, args);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t n = fread(out, 1, len - 1, p);
  out[n] = '\0';
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *tmp_path(const char *name) {
  const char *dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  char *path;
  ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
  return path;
}

/* 40 runs of one benchmark at 1000 ns, from row `at` on `after` ns; a ±0.1 % wobble. Columns in
 * an order of their own, with a testbed and a threshold column. */
static char *step_history(const char *name, int at, double after) {
  char *path = tmp_path(name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "benchmark,median_ns,date,commit,gpu,bytes_per_second,noise,verdict,l2_flush,testbed,threshold\n");
  for (int i = 0; i < 40; i++)
    fprintf(f, "elementwise/add/N:1024,%g,2026-12-%02dT10:00:00+00:00,c%011d,test-gpu,1e9,0.001,same,read,rack1,0.03\n",
            (i < at ? 1000 : after) + (i % 2 ? 1 : -1), 1 + i % 28, i);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

START_TEST(a_step_is_printed_with_its_commits_and_p) {
  char *path = step_history("step.csv", 20, 1020), out[8192];
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "CHANGE elementwise/add/N:1024 @rack1: +2.00 % from row 21 of 40") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "c00000000019 (2026-12-20) -> c00000000020 (2026-12-21), p = 0.002") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "CREPT") == NULL, "+2 %% is within the tolerance: %s", out);
  ck_assert_msg(strstr(out, "1 change point in 1 of 1 series (40 rows); 0 crept") != NULL, "%s", out);
  free(path);
}
END_TEST

START_TEST(creep_beyond_the_tolerance_is_flagged) {
  char *path = step_history("creep.csv", 30, 1040), out[8192];
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0); /* a warning, not a failure */
  ck_assert_msg(strstr(out, "CREPT elementwise/add/N:1024 @rack1: +4.20 %") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "1 crept beyond 3 %") != NULL, "%s", out);
  free(path);
}
END_TEST

/* Rows from before the testbed column join the series of the benchmark's one testbed: a +6 % step where rows
 * gained a testbed is found (#56 W09: the series split there, 0 change points, 0 creep). */
START_TEST(rows_before_the_testbed_join_its_series) {
  char *path = tmp_path("joined.csv"), out[8192];
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,threshold,testbed\n");
  for (int i = 0; i < 40; i++)
    fprintf(f, "2026-12-%02dT10:00:00+00:00,c%011d,test-gpu,elementwise/add/N:1024,%g,1e9,0.001,same,read,0.03,%s\n",
            1 + i % 28, i, (i < 20 ? 1000.0 : 1060.0) + (i % 2 ? 1 : -1), i < 20 ? "" : "rack1");
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "CHANGE elementwise/add/N:1024 @rack1: +6.00 % from row 21 of 40") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "in 1 of 1 series (40 rows); 1 crept") != NULL, "%s", out);
  free(path);
}
END_TEST

START_TEST(since_leaves_out_older_change_points) {
  char *path = step_history("since.csv", 20, 1020), out[8192], args[4200];
  snprintf(args, sizeof args, "--since=2026-12-22 '%s'", path);
  ck_assert_int_eq(run_trends(args, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "CHANGE") == NULL, "%s", out);
  /* A --since that is not a date (#56: it hid every change point with exit 0). */
  const char *bad[] = {"yesterday", "28/11/2026", "2026-13-01", "2026-11-2", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(args, sizeof args, "--since='%s' '%s'", bad[i], path);
    ck_assert_int_eq(run_trends(args, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "want a date as the history writes it") != NULL, "%s", out);
  }
  snprintf(args, sizeof args, "--since=2026-12-22T00:00:00+00:00 '%s'", path);
  ck_assert_int_eq(run_trends(args, out, sizeof out), 0);
  free(path);
}
END_TEST

/* --json writes what the text says, as the report reads it (trends_read): the step at line 22 (row 21), each row's
 * threshold as recorded, the reference level (no baseline: the first 5 rows), the change point since any bless. A row
 * without a recorded threshold gets the gate's rule, max(tolerance, k x its noise), marked not recorded. */
START_TEST(json_holds_what_was_decided) {
  char *path = step_history("json.csv", 20, 1020), *json = tmp_path("json.trends.json"), out[8192], args[4200];
  FILE *f = fopen(path, "a");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "elementwise/add/N:1024,1021,2026-12-28T10:00:00+00:00,c00000000040,test-gpu,1e9,0.02,same,read,rack1,\n");
  ck_assert_int_eq(fclose(f), 0);
  snprintf(args, sizeof args, "--json='%s' --family_tolerance=elementwise=0.05 '%s'", json, path);
  ck_assert_int_eq(run_trends(args, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "CHANGE elementwise/add/N:1024 @rack1: +2.00 % from row 21 of 41 (line 22)") != NULL, "%s",
                out);
  trend_history *h;
  size_t n;
  char err[1024];
  ck_assert_msg(trends_read(json, &h, &n, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(h[0].gpu, "test-gpu");
  ck_assert_ptr_null(h[0].baseline);
  ck_assert_uint_eq(h[0].window, 5);
  ck_assert_uint_eq(h[0].n, 1);
  const trend_series *s = &h[0].s[0];
  ck_assert_str_eq(s->bench, "elementwise/add/N:1024");
  ck_assert_str_eq(s->testbed, "rack1");
  ck_assert_int_eq(s->against_baseline, 0);
  ck_assert_double_eq_tol(s->reference_ns, 1000 - 1, 1e-9); /* the median of rows 1-5: 999, 1001, 999, 1001, 999 */
  ck_assert_uint_eq(s->nrows, 41);
  ck_assert_uint_eq(s->rows[0].line, 2);
  ck_assert_double_eq_tol(s->rows[0].threshold, 0.03, 1e-12);
  ck_assert_int_eq(s->rows[0].recorded, 1);
  ck_assert_int_eq(s->rows[40].recorded, 0);
  ck_assert_double_eq_tol(s->rows[40].threshold, 0.06, 1e-12); /* max(its family's 5 %, 3 x 0.02) */
  ck_assert_uint_eq(s->nchanges, 1);
  ck_assert_uint_eq(s->changes[0].line, 22);
  ck_assert_double_eq_tol(s->changes[0].step, 0.02, 1e-3);
  ck_assert_int_eq(s->changes[0].since_bless, 1);
  trends_free(h, n);
  /* A file the report cannot use is refused naming the field. */
  f = fopen(json, "w");
  fputs(
      "{\"trends_version\": 1, \"policy_version\": " STR(GATE_POLICY_VERSION) ", \"histories\": [{\"history\": "
      "\"h.csv\", \"gpu\": \"g\", \"window\": 5, "
      "\"baseline\": null, \"series\": [{\"benchmark\": \"a/b/N:1\", \"l2_flush\": \"read\", \"testbed\": \"\"}]}]}\n",
      f);
  fclose(f);
  ck_assert_int_ne(trends_read(json, &h, &n, err, sizeof err), 0);
  ck_assert_msg(strstr(err, "histories[0].series[0].reference: expected an object") != NULL, "%s", err);
  free(path);
  free(json);
}
END_TEST

/* trends.json as gate trends wrote it for step.csv (a change point at line 22), edited by `edit`, then read: refused
 * naming the file and `says`. */
static void expect_trends_refused(void (*edit)(json_t *root), const char *says) {
  char *path = step_history("edited.csv", 20, 1020), *json = tmp_path("edited.trends.json"), out[8192], args[4200];
  snprintf(args, sizeof args, "--json='%s' '%s'", json, path);
  ck_assert_int_eq(run_trends(args, out, sizeof out), 0);
  json_error_t jerr;
  json_t *root = json_load_file(json, 0, &jerr);
  ck_assert_ptr_nonnull(root);
  edit(root);
  ck_assert_int_eq(json_dump_file(root, json, 0), 0);
  json_decref(root);
  trend_history *h;
  size_t n;
  char err[1024];
  ck_assert_int_ne(trends_read(json, &h, &n, err, sizeof err), 0);
  ck_assert_msg(strstr(err, json) && strstr(err, says) && strstr(err, "`gate trends --json`"), "%s", err);
  free(path);
  free(json);
}

static json_t *series0(json_t *root) {
  return json_array_get(json_object_get(json_array_get(json_object_get(root, "histories"), 0), "series"), 0);
}

static json_t *change0(json_t *root) { return json_array_get(json_object_get(series0(root), "change_points"), 0); }

static void older_policy(json_t *root) { json_object_set_new(root, "policy_version", json_integer(5)); }
static void no_policy(json_t *root) { json_object_del(root, "policy_version"); }
static void negative_p(json_t *root) { json_object_set_new(change0(root), "p", json_real(-0.5)); }
static void p_above_1(json_t *root) { json_object_set_new(change0(root), "p", json_real(1.5)); }
static void change_past_the_rows(json_t *root) { json_object_set_new(change0(root), "line", json_integer(99)); }
static void change_at_the_first_row(json_t *root) { json_object_set_new(change0(root), "line", json_integer(2)); }
static void change_between_rows(json_t *root) {
  json_array_remove(json_object_get(series0(root), "rows"), 20); /* line 22 */
}
static void rows_out_of_order(json_t *root) {
  json_t *rows = json_object_get(series0(root), "rows");
  json_array_insert_new(rows, 0, json_deep_copy(json_array_get(rows, 1)));
}

/* The report draws trends.json as decided: one of another policy (other thresholds for rows from before the column),
 * a p-value below 0, or a change point at no row of its series (or at its first, with no row before it) was read and
 * drawn as this gate's, or dropped from the chart without a word. */
START_TEST(trends_file_must_fit_its_policy_and_rows) {
  expect_trends_refused(older_policy, "field policy_version: 5, where this gate decides under policy");
  expect_trends_refused(no_policy, "field policy_version: missing");
  expect_trends_refused(negative_p, "histories[0].series[0].change_points[0].p: -0.5 is not a p-value (0 to 1)");
  expect_trends_refused(p_above_1, "change_points[0].p: 1.5 is not a p-value");
  expect_trends_refused(change_past_the_rows, "change_points[0].line: 99 is none of the series' rows (lines 2 to 41)");
  expect_trends_refused(change_at_the_first_row, "change_points[0].line: 2 is the first of the series' rows");
  expect_trends_refused(change_between_rows, "change_points[0].line: 22 is none of the series' rows");
  expect_trends_refused(rows_out_of_order, "histories[0].series[0].rows[1]: line 2 after line 3");
}
END_TEST

/* A file begun before the l2_flush column: 8 names in its header, rows with a 9th field. */
START_TEST(legacy_header_with_a_flush_field) {
  char *path = tmp_path("legacy.csv"), out[8192];
  FILE *f = fopen(path, "w");
  fprintf(f, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict\n");
  for (int i = 0; i < 12; i++)
    fprintf(f, "2026-11-%02dT00:00:00+00:00,c%d,g,copy/memcpy/N:4,%d,1e9,0.01,same%s\n", i + 1, i, 500 + i % 2,
            i < 6 ? "" : ",read");
  fclose(f);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0);
  /* Two series (write, then read flush) of 6 rows: too short for a change point, none mixed. */
  ck_assert_msg(strstr(out, "0 change points in 0 of 2 series (12 rows)") != NULL, "%s", out);
  free(path);
}
END_TEST

static void expect_refused(const char *name, const char *text, const char *says) {
  char *path = tmp_path(name), out[8192];
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 2);
  ck_assert_msg(strstr(out, path) != NULL, "message does not name %s: %s", path, out);
  ck_assert_msg(strstr(out, says) != NULL, "message does not say '%s': %s", says, out);
  free(path);
}

START_TEST(bad_input_is_refused_naming_file_line_and_field) {
  static const char kHeader[] = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n";
  char text[1024];
  snprintf(text, sizeof text,
           "%s2026-11-01T00:00:00+00:00,a,g,f/v,100,1e9,0.01,same,read\n"
           "2026-11-02T00:00:00+00:00,b,g,f/v,fast,1e9,0.01,same,read\n",
           kHeader);
  expect_refused("bad_number.csv", text, "line 3: field median_ns: expected a positive number, got 'fast'; fix");
  snprintf(text, sizeof text, "%s2026-11-01T00:00:00+00:00,a,g,f/v,100,1e9\n", kHeader);
  expect_refused("short_row.csv", text, "line 2: expected 9 comma-separated fields");
  expect_refused("no_median.csv", "date,commit,benchmark\n2026,a,f/v\n", "line 1: expected the header");
  expect_refused("no_median.csv", "date,commit,benchmark\n2026,a,f/v\n", "no column 'median_ns'");
  expect_refused("empty.csv", "", "empty file");
  char out[4096];
  ck_assert_int_eq(run_trends("", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "give one history CSV or more") != NULL, "%s", out);
  ck_assert_int_eq(run_trends("--window=2.5 x.csv", out, sizeof out), 2);
  ck_assert_int_eq(run_trends("/no/such/history.csv", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "/no/such/history.csv: cannot open") != NULL, "%s", out);
}
END_TEST

/* Rows gate history could not have written: a run's row of a benchmark twice (counted twice in every trend), a date
 * that is not one (it orders the rows), a time beyond what the gate measures (1e300 ns flattened the chart). Each was
 * read without a word; the rows gate history writes are read as before. */
START_TEST(rows_gate_history_never_writes_are_refused) {
  static const char kHeader[] =
      "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,threshold,testbed\n";
  static const char kRow[] =
      "2026-11-%02dT10:00:00+00:00,c%d,test-gpu,elementwise/add/N:1024,%s,1e9,0.001,same,read,"
      "0.03,rack1\n";
  char text[2048], row[256], out[8192];
  size_t n = (size_t)snprintf(text, sizeof text, "%s", kHeader);
  for (int i = 1; i <= 12; i++) {
    snprintf(row, sizeof row, kRow, i, i, i % 2 ? "1000" : "1001");
    n += (size_t)snprintf(text + n, sizeof text - n, "%s", row);
  }
  char *path = tmp_path("fine.csv");
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0);
  free(path);
  /* The row of line 3 again, at line 14 (as a job re-run that appended again). */
  char dup[4096];
  snprintf(row, sizeof row, kRow, 2, 2, "1001");
  snprintf(dup, sizeof dup, "%s%s", text, row);
  expect_refused("dup.csv", dup,
                 "line 14: the row of line 3 again (date 2026-11-02T10:00:00+00:00, commit c2, gpu test-gpu, benchmark "
                 "elementwise/add/N:1024): one run counted twice; remove one of the two lines");
  /* Another benchmark, GPU or commit of that date is another row. */
  snprintf(dup, sizeof dup, "%s%s", text,
           "2026-11-02T10:00:00+00:00,c2,test-gpu,elementwise/add/N:2048,1001,1e9,0.001,"
           "same,read,0.03,rack1\n");
  path = tmp_path("other.csv");
  f = fopen(path, "w");
  fputs(dup, f);
  fclose(f);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 0);
  free(path);
  const char *dates[] = {"junk", "2026-11-13", "2026-11-31T10:00:00+00:00", "2026-11-13 10:00:00+00:00"};
  for (size_t i = 0; i < sizeof dates / sizeof *dates; i++) {
    char bad[4096], says[200];
    snprintf(bad, sizeof bad, "%s%s,c13,test-gpu,elementwise/add/N:1024,1000,1e9,0.001,same,read,0.03,rack1\n", text,
             dates[i]);
    snprintf(says, sizeof says, "line 14: field date: '%s' is not a date as gate history writes it", dates[i]);
    expect_refused("date.csv", bad, says);
  }
  const char *times[] = {"1e300", "2e12", "0.5"};
  for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
    char bad[4096], says[200];
    snprintf(row, sizeof row, kRow, 13, 13, times[i]);
    snprintf(bad, sizeof bad, "%s%s", text, row);
    snprintf(says, sizeof says, "line 14: field median_ns: %g ns is not a time the gate measures (1 ns to 1000 s",
             strtod(times[i], NULL));
    expect_refused("time.csv", bad, says);
  }
}
END_TEST

/* Runs `gate trends path` with its address space limited to `bytes` (RLIMIT_AS), output in out; its exit status, or
 * 128 + the signal that ended it. */
static int trends_with_memory_limit(rlim_t bytes, const char *path, char *out, size_t len) {
  char *log = tmp_path("limited.out");
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    struct rlimit rl = {bytes, bytes};
    if (!freopen(log, "w", stdout) || dup2(fileno(stdout), 2) < 0 || setrlimit(RLIMIT_AS, &rl) != 0) _exit(126);
    execl(gate, gate, "trends", path, (char *)NULL);
    _exit(127);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  FILE *f = fopen(log, "r");
  ck_assert_ptr_nonnull(f);
  out[fread(out, 1, len - 1, f)] = '\0';
  fclose(f);
  free(log);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A history is read whole or refused: a NUL byte ended the text there and 35 of 40 rows were dropped without a
 * word; a line no row has, a device (/dev/zero, read forever) and memory running out are errors, not a crash. */
START_TEST(damaged_and_endless_files_are_refused) {
  char *path = step_history("nul.csv", 20, 1020), out[8192];
  FILE *f = fopen(path, "r+");
  ck_assert_ptr_nonnull(f);
  for (int lines = 0; lines < 5;) lines += fgetc(f) == '\n';
  ck_assert_int_eq(fseek(f, 10, SEEK_CUR), 0);
  ck_assert_int_eq(fputc('\0', f), 0);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(run_trends(path, out, sizeof out), 2);
  ck_assert_msg(strstr(out, "nul.csv: line 6: a NUL byte") != NULL, "%s", out);
  free(path);

  static char text[80000];
  int n = snprintf(text, sizeof text, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n");
  memset(text + n, 'x', 70000);
  snprintf(text + n + 70000, sizeof text - (size_t)n - 70000, ",a,g,f/v,100,1e9,0.01,same,read\n");
  expect_refused("long.csv", text, "long.csv: line 2: 70031 characters, more than a history row has");

  ck_assert_int_eq(run_trends("/dev/zero", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "/dev/zero: not a regular file (a device, pipe or socket)") != NULL, "%s", out);
  char *folder = tmp_path("");
  ck_assert_int_eq(run_trends(folder, out, sizeof out), 2);
  ck_assert_msg(strstr(out, "not a regular file (a folder)") != NULL, "%s", out);
  free(folder);

  /* 512 MiB (sparse: no disk) read in 128 MiB of address space: out of memory, said. */
  path = tmp_path("huge.csv");
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), (off_t)512 << 20), 0);
  ck_assert_int_eq(fclose(f), 0);
  int rc = trends_with_memory_limit((rlim_t)128 << 20, path, out, sizeof out);
  ck_assert_msg(rc == 2, "gate trends exited %d, expected 2: %s", rc, out);
  ck_assert_msg(strstr(out, "huge.csv: out of memory after") != NULL, "%s", out);
  unlink(path);
  free(path);
}
END_TEST

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH_TO_GATE\n", argv[0]);
    return 2;
  }
  gate = argv[1];
  Suite *s = suite_create("trends_cmd");
  TCase *tc = tcase_create("trends_cmd");
  tcase_set_timeout(tc, 0); /* no wall-clock limit */
  tcase_add_test(tc, a_step_is_printed_with_its_commits_and_p);
  tcase_add_test(tc, creep_beyond_the_tolerance_is_flagged);
  tcase_add_test(tc, since_leaves_out_older_change_points);
  tcase_add_test(tc, rows_before_the_testbed_join_its_series);
  tcase_add_test(tc, legacy_header_with_a_flush_field);
  tcase_add_test(tc, json_holds_what_was_decided);
  tcase_add_test(tc, trends_file_must_fit_its_policy_and_rows);
  tcase_add_test(tc, bad_input_is_refused_naming_file_line_and_field);
  tcase_add_test(tc, rows_gate_history_never_writes_are_refused);
  tcase_add_test(tc, damaged_and_endless_files_are_refused);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
