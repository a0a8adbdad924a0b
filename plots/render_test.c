/* CPU tests of //plots:render on the fixtures of plots/testdata (invented
 * numbers, "Test Fixture GPU"): the readers and their error messages, the
 * numbers that reach gnuplot (band, regressions, ladder), and the binary end to
 * end: valid PNG (magic, IHDR size) and SVG files, index.html, exit codes, and
 * no chart at all when an input is empty or malformed or gnuplot fails. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/baseline_store.h"
#include "plots/inputs.h"
#include "plots/model.h"
#include "perf/runner/testbed.h"
#include "tests/support/check_run.h"

#define FIX "plots/testdata"
#define SLUG "test-fixture-gpu"

static const char *render_bin, *gate_bin;
static char tmp[1024], full_out[1200], full_err[1200];
static int full_rc;

static const char *kFamilies[] = {"elementwise", "matmul", "transpose"};
static const char *kKinds[] = {"history", "ladder", "size"};

/* Runs render with ARGS (already quoted where needed); stderr goes to ERRFILE. */
static int run_render(const char *args, const char *errfile) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s'", render_bin, args, errfile);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `gate trends --json` of a history (with its baseline, or NULL), as ci/report.sh runs it before the renderer: what
 * the over-time chart draws. The trends file's path, quoted for a command line; NULL when the gate failed. */
static const char *trends_of(const char *name, const char *baseline, const char *history) {
  static char quoted[4][1400];
  static int next;
  char path[1300], cmd[8192];
  snprintf(path, sizeof path, "%s/%s.trends.json", tmp, name);
  snprintf(cmd, sizeof cmd, "'%s' trends --json='%s' %s%s%s '%s' >/dev/null", gate_bin, path,
           baseline ? "--baseline='" : "", baseline ? baseline : "", baseline ? "'" : "", history);
  if (system(cmd) != 0) return NULL;
  char *q = quoted[next++ % 4];
  snprintf(q, 1400, "'%s'", path);
  return q;
}

/* Where trends_of(name, ...) wrote its file. */
static const char *trends_file(const char *name) {
  static char path[1300];
  snprintf(path, sizeof path, "%s/%s.trends.json", tmp, name);
  return path;
}

static const char *trends_ok(const char *name, const char *baseline, const char *history) {
  const char *t = trends_of(name, baseline, history);
  ck_assert_msg(t != NULL, "gate trends failed on %s", history);
  return t;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  if (len) *len = (size_t)n;
  return s;
}

static size_t count_lines(const char *path) {
  size_t n = 0, lines = 0;
  char *text = slurp(path, &n);
  for (size_t i = 0; i < n; i++) lines += text[i] == '\n';
  free(text);
  return lines;
}

static int count_files(const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t a = strlen(e->d_name), b = strlen(suffix);
    n += a > b && strcmp(e->d_name + a - b, suffix) == 0;
  }
  closedir(d);
  return n;
}

static unsigned be32(const unsigned char *p) {
  return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

/* PNG signature, IHDR first, its size; and more than a blank canvas would take. */
static void check_png(const char *path, unsigned *w, unsigned *h) {
  size_t n;
  unsigned char *p = (unsigned char *)slurp(path, &n);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  ck_assert_msg(n > 24 && memcmp(p, sig, 8) == 0, "%s: no PNG signature", path);
  ck_assert_msg(memcmp(p + 12, "IHDR", 4) == 0, "%s: first chunk is not IHDR", path);
  *w = be32(p + 16);
  *h = be32(p + 20);
  /* A white 960x540 PNG is about 3 KB; a chart with axes, text and data is several times that. */
  ck_assert_msg(n > 15000, "%s: only %zu bytes: a blank chart?", path, n);
  free(p);
}

static void check_svg(const char *path) {
  size_t n;
  char *s = slurp(path, &n);
  ck_assert_msg(strncmp(s, "<?xml", 5) == 0, "%s: no XML declaration", path);
  ck_assert_msg(strstr(s, "<svg") != NULL, "%s: no <svg> element", path);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = '\0';
  ck_assert_msg(n > 6 && strcmp(s + n - 6, "</svg>") == 0, "%s: does not end with </svg> (cut short?)", path);
  int paths = 0;
  for (const char *p = s; (p = strstr(p, "<path")) != NULL; p++) paths++;
  ck_assert_msg(n > 8000 && paths > 10, "%s: %zu bytes, %d paths: too little drawn", path, n, paths);
  free(s);
}

/* ---------- names ---------- */

START_TEST(names_split_into_family_variant_and_size) {
  bench_name b;
  char err[512];
  ck_assert_int_eq(parse_bench_name("elementwise/add_float4/N:268435456", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.family, "elementwise");
  ck_assert_str_eq(b.variant, "add_float4");
  ck_assert_str_eq(b.params, "N:268435456");
  ck_assert_str_eq(b.size_label, "256Mi");
  ck_assert_str_eq(b.size_axis, "N");
  ck_assert_double_eq(b.size, 268435456.0);
  ck_assert_int_eq(parse_bench_name("transpose/tiled/nx:8192/ny:4097", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.params, "nx:8192/ny:4097");
  ck_assert_str_eq(b.size_label, "8192×4097");
  ck_assert_str_eq(b.size_axis, "nx×ny");
  ck_assert_double_eq(b.size, 8192.0 * 4097.0);
  ck_assert_int_eq(parse_bench_name("copy/memcpy", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.params, "");
  ck_assert_double_eq(b.size, 1.0);
  const char *bad[] = {"elementwise", "a/b/N", "a/b/N:x", "a/b/N:0", "a/b/:5", "a/b/N:12abc", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(parse_bench_name(bad[i], &b, err, sizeof err) != 0, "'%s' accepted", bad[i]);
    ck_assert_msg(strstr(err, bad[i]) != NULL, "message '%s' does not name '%s'", err, bad[i]);
  }
}
END_TEST

START_TEST(sizes_are_short_and_exact) {
  char b[32];
  long long v[] = {1, 4097, 8192, 65536, 1 << 20, 3ll << 30, 1000000, 65537};
  const char *want[] = {"1", "4097", "8192", "64Ki", "1Mi", "3Gi", "1000000", "65537"};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    format_size(v[i], b, sizeof b);
    ck_assert_str_eq(b, want[i]);
  }
}
END_TEST

/* ---------- readers ---------- */

START_TEST(history_fixture_is_read) {
  history_file h;
  char err[1024];
  ck_assert_msg(load_history_file(FIX "/baselines/history/" SLUG ".csv", &h, err, sizeof err) == 0, "%s", err);
  /* 8 runs x 9 elementwise + 5 x 8 matmul + 1 x 4 transpose */
  ck_assert_uint_eq(h.n, 72 + 40 + 4);
  ck_assert_str_eq(h.r[0].gpu, SLUG);
  ck_assert_str_eq(h.r[0].bench, "elementwise/add/N:1048576");
  ck_assert_str_eq(h.r[0].id.family, "elementwise");
  ck_assert_double_eq_tol(h.r[0].median_ns, 7312.42, 1e-6);
  size_t slower = 0;
  for (size_t i = 0; i < h.n; i++) slower += !strcmp(h.r[i].verdict, "slower");
  ck_assert_uint_eq(slower, 3);
  free_history_file(&h);
}
END_TEST

typedef struct {
  const char *file, *says;
} bad_input;

static const bad_input kBad[] = {
    {"empty.csv", "empty file"},
    {"header_only.csv", "no rows after the header"},
    {"wrong_header.csv", "line 1: expected the header"},
    {"bad_number.csv", "line 3: field median_ns: expected a positive number, got 'fast'"},
    {"short_row.csv", "line 2: expected 8 or 9 comma-separated fields"},
    {"v2_short_row.csv", "line 2: expected 9 comma-separated fields"},
    {"bad_flush_method.csv", "line 2: field l2_flush: expected read, write or hot, got 'sideways'"},
    {"truncated.json", "not valid JSON"},
    {"no_benchmarks.json", "no iteration entries"},
    {"no_gpu_name.json", "field context.gpu.name"},
    {"verdicts_no_delta.json", "field verdicts[0].delta"},
    {"verdicts_bad_gpu.json", "field gpu.name"},
    {"unknown_kind.json", "not a run of the benchmark runner"},
};

START_TEST(bad_inputs_are_refused_by_name) {
  for (size_t i = 0; i < sizeof kBad / sizeof *kBad; i++) {
    render_inputs in = {0};
    char path[512], err[2048];
    snprintf(path, sizeof path, FIX "/bad/%s", kBad[i].file);
    ck_assert_msg(load_input(&in, path, err, sizeof err) != 0, "%s accepted", path);
    ck_assert_msg(strstr(err, path) != NULL, "message '%s' does not name %s", err, path);
    ck_assert_msg(strstr(err, kBad[i].says) != NULL, "message '%s' does not say '%s'", err, kBad[i].says);
    ck_assert_uint_eq(in.nruns + in.nhist + in.nverdicts + in.nbases, 0);
    free_inputs(&in);
  }
}
END_TEST

START_TEST(run_fixture_gives_references_and_flops) {
  run_file r;
  char err[1024];
  ck_assert_msg(load_run_file(FIX "/runs/matmul.json", &r, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(r.gpu.name, "Test Fixture GPU");
  ck_assert_double_eq(r.peak_gbps, 3000.0);
  ck_assert_double_eq(r.copy_gbps, 2700.0);
  ck_assert_str_eq(r.executable, "matmul_bench");
  ck_assert_uint_eq(r.n, 8);
  for (size_t i = 0; i < r.n; i++) {
    ck_assert_int_eq(r.b[i].order, (int)i);
    ck_assert_int_eq(r.b[i].reference, !strcmp(r.b[i].id.variant, "cublas"));
    double m = r.b[i].id.size == 4096.0 * 4096 * 4096 ? 4096 : 1024;
    ck_assert_double_eq_tol(r.b[i].flops_per_call / (2 * m * m * m), 1.0, 1e-6);
  }
  free(r.b);
}
END_TEST

START_TEST(verdicts_fixture_is_read) {
  verdicts_file v;
  char err[1024];
  ck_assert_msg(load_verdicts_file(FIX "/verdicts.json", &v, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(v.metric, "time");
  ck_assert_str_eq(v.gpu_name, "Test Fixture GPU");
  ck_assert_str_eq(v.gpu_slug, SLUG);
  ck_assert_uint_eq(v.n, 10);
  ck_assert_str_eq(v.v[8].name, "elementwise/saxpy/N:268435456");
  ck_assert_str_eq(v.v[8].verdict, "slower");
  ck_assert_double_eq_tol(v.v[8].delta, 0.11, 1e-4);
  ck_assert_str_eq(v.v[9].verdict, "missing");
  ck_assert(isnan(v.v[9].run_ns));
  free(v.v);
}
END_TEST

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

/* ---------- what reaches gnuplot ---------- */

static char *data_file(const char *family, const char *what) {
  static char path[1400];
  snprintf(path, sizeof path, "%s/data/" SLUG "-%s.%s.dat", full_out, family, what);
  return path;
}

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
  ck_assert(strstr(html, "Test Fixture GPU (compute capability 9.0, 100 SMs)") != NULL);
  /* transpose was measured at one size and once: said in words, not only drawn. */
  ck_assert(strstr(html, "Only one problem size was measured") != NULL);
  ck_assert(strstr(html, "One run recorded in the history so far") != NULL);
  ck_assert(strstr(html, "</html>") != NULL);
  free(html);
}
END_TEST

/* A slower library reference ("fails": false in verdicts.json) does not fail the gate: the page says "passed" and
 * that the environment changed (#56 M12: "gate FAILED, 1 slower" on a run that passed). */
START_TEST(a_slower_library_reference_is_not_a_failure) {
  json_error_t jerr;
  json_t *v = json_load_file(FIX "/verdicts.json", 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  json_t *list = json_object_get(v, "verdicts");
  for (size_t i = json_array_size(list); i-- > 0;) {
    json_t *e = json_array_get(list, i);
    const char *verdict = json_string_value(json_object_get(e, "verdict"));
    if (!strcmp(verdict, "missing"))
      json_array_remove(list, i);
    else
      json_object_set_new(e, "fails", json_false()); /* the slower one: a library reference */
  }
  char dir[1200], path[1400], args[4096], errfile[1200], out[1200], index[1400];
  snprintf(dir, sizeof dir, "%s/libref", tmp);
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  snprintf(path, sizeof path, "%s/verdicts.json", dir);
  ck_assert_int_eq(json_dump_file(v, path, 0), 0);
  json_decref(v);
  snprintf(errfile, sizeof errfile, "%s/libref.err", tmp);
  snprintf(out, sizeof out, "%s/libref_out", tmp);
  snprintf(args, sizeof args, FIX "/runs '%s' '%s'", path, out);
  ck_assert_int_eq(run_render(args, errfile), 0);
  snprintf(index, sizeof index, "%s/index.html", out);
  char *html = slurp(index, NULL);
  ck_assert_msg(strstr(html, "gate passed</span> 0 slower, 0 missing") != NULL, "%.2000s", strstr(html, "status"));
  ck_assert(strstr(html, "environment changed: 1 library reference slower (not a failure)") != NULL);
  free(html);
}
END_TEST

/* A compute_capability that is not MAJOR.MINOR is refused, never cut short or put on the page (#56 S01). */
START_TEST(a_hostile_compute_capability_is_refused) {
  char dir[1200], cmd[4096], args[4096], errfile[1200], out[1200], index[1400];
  snprintf(dir, sizeof dir, "%s/hostile", tmp);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && sed 's|\"compute_capability\": \"9.0\"|\"compute_capability\": "
           "\"9.0</td><script>alert(1)</script>\"|' " FIX "/runs/elementwise.json > '%s/elementwise.json'",
           dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(errfile, sizeof errfile, "%s/hostile.err", tmp);
  snprintf(out, sizeof out, "%s/hostile_out", tmp);
  snprintf(args, sizeof args, "'%s/elementwise.json' '%s'", dir, out);
  ck_assert_int_eq(run_render(args, errfile), 2); /* not the runner's: refused, naming the field */
  char *err = slurp(errfile, NULL);
  ck_assert_msg(strstr(err, "field context.gpu.compute_capability: expected MAJOR.MINOR") != NULL, "%s", err);
  free(err);
  snprintf(index, sizeof index, "%s/index.html", out);
  ck_assert_int_ne(access(index, F_OK), 0);
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

START_TEST(bad_input_writes_nothing) {
  for (size_t i = 0; i < sizeof kBad / sizeof *kBad; i++) {
    char args[4096], errfile[1200], out[1200];
    snprintf(errfile, sizeof errfile, "%s/bad%zu.err", tmp, i);
    snprintf(out, sizeof out, "%s/bad%zu_out", tmp, i);
    /* A good run alongside: one bad input is enough to stop everything. */
    snprintf(args, sizeof args, FIX "/runs/elementwise.json " FIX "/bad/%s '%s'", kBad[i].file, out);
    ck_assert_int_eq(run_render(args, errfile), 2);
    char *msg = slurp(errfile, NULL);
    ck_assert_msg(strstr(msg, kBad[i].file) && strstr(msg, kBad[i].says), "%s: %s", kBad[i].file, msg);
    free(msg);
    ck_assert_msg(access(out, F_OK) != 0, "%s: output directory created for a bad input", kBad[i].file);
  }
  char errfile[1200], args[2048];
  snprintf(errfile, sizeof errfile, "%s/usage.err", tmp);
  ck_assert_int_eq(run_render(FIX "/runs/elementwise.json", errfile), 2); /* no OUTDIR */
  snprintf(args, sizeof args, FIX "/verdicts.json '%s/v_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2); /* nothing to chart */
  snprintf(args, sizeof args, "/no/such/file.json '%s/n_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2);
  snprintf(args, sizeof args, "--tolerance=3 " FIX "/runs/elementwise.json '%s/t_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2);
  ck_assert_int_eq(run_render(FIX "/runs/elementwise.json ''", errfile), 2); /* empty OUTDIR */
  char *msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "OUTDIR is empty") != NULL, "%s", msg);
  free(msg);
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

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr,
            "usage: render_test RENDER_BINARY GATE_BINARY (run from the workspace root: fixtures in " FIX ")\n");
    return 2;
  }
  render_bin = argv[1];
  gate_bin = argv[2];
  const char *t = getenv("TEST_TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/render_test_XXXXXX", t ? t : "/tmp");
  if (!mkdtemp(tmp)) return 2;
  /* Everything at once, as CI will: runs, verdicts, and baselines/ (baseline + history). */
  snprintf(full_out, sizeof full_out, "%s/full", tmp);
  snprintf(full_err, sizeof full_err, "%s/full.err", tmp);
  char args[4096];
  const char *trends = trends_of("full", FIX "/baselines/" SLUG ".json", FIX "/baselines/history/" SLUG ".csv");
  snprintf(args, sizeof args, FIX "/runs " FIX "/verdicts.json " FIX "/baselines %s '%s'", trends ? trends : "",
           full_out);
  full_rc = trends ? run_render(args, full_err) : -1;

  Suite *s = suite_create("render");
  TCase *tc = tcase_create("render");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, names_split_into_family_variant_and_size);
  tcase_add_test(tc, a_hostile_compute_capability_is_refused);
  tcase_add_test(tc, a_baseline_folder_of_families_is_one_baseline);
  tcase_add_test(tc, a_slower_library_reference_is_not_a_failure);
  tcase_add_test(tc, sizes_are_short_and_exact);
  tcase_add_test(tc, history_fixture_is_read);
  tcase_add_test(tc, bad_inputs_are_refused_by_name);
  tcase_add_test(tc, run_fixture_gives_references_and_flops);
  tcase_add_test(tc, verdicts_fixture_is_read);
  tcase_add_test(tc, model_groups_by_gpu_and_family);
  tcase_add_test(tc, verdicts_go_to_the_gpu_they_name);
  tcase_add_test(tc, verdicts_that_cannot_be_placed_are_refused);
  tcase_add_test(tc, other_gpus_baselines_are_left_out);
  tcase_add_test(tc, band_is_the_threshold_applied);
  tcase_add_test(tc, trends_are_marked_and_listed);
  tcase_add_test(tc, testbeds_are_series_of_their_own);
  tcase_add_test(tc, long_history_is_thinned);
  tcase_add_test(tc, regressions_are_marked);
  tcase_add_test(tc, ladder_bars_are_percent_of_peak);
  tcase_add_test(tc, failed_benchmark_is_reported_not_charted);
  tcase_add_test(tc, missing_yields_to_a_real_verdict);
  tcase_add_test(tc, charts_are_valid_png_and_svg);
  tcase_add_test(tc, html_has_the_table_and_no_script);
  tcase_add_test(tc, history_alone_draws_history_only);
  tcase_add_test(tc, history_needs_the_gates_trends);
  tcase_add_test(tc, bad_input_writes_nothing);
  tcase_add_test(tc, cut_last_row_is_left_out);
  tcase_add_test(tc, history_methods_do_not_mix);
  tcase_add_test(tc, gnuplot_failure_leaves_no_chart);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
