/* The helpers of render_testutil.h. */
#define _GNU_SOURCE
#include "plots/render_testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"

const char *render_bin, *gate_bin;
char tmp[1024], full_out[1200], full_err[1200];
int full_rc;

const char *kFamilies[3] = {"elementwise", "matmul", "transpose"};

int render_test_setup(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s RENDER_BINARY GATE_BINARY (run from the workspace root: fixtures in " FIX ")\n",
            argv[0]);
    return 2;
  }
  render_bin = argv[1];
  gate_bin = argv[2];
  const char *t = getenv("TEST_TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/render_test_XXXXXX", t ? t : "/tmp");
  if (!mkdtemp(tmp)) return 2;
  return 0;
}

void full_render(void) {
  snprintf(full_out, sizeof full_out, "%s/full", tmp);
  snprintf(full_err, sizeof full_err, "%s/full.err", tmp);
  char args[4096];
  const char *trends = trends_of("full", FIX "/baselines/" SLUG ".json", FIX "/baselines/history/" SLUG ".csv");
  snprintf(args, sizeof args, FIX "/runs " FIX "/verdicts.json " FIX "/baselines %s '%s'", trends ? trends : "",
           full_out);
  full_rc = trends ? run_render(args, full_err) : -1;
}

/* Runs render with ARGS (already quoted where needed); stderr goes to ERRFILE. */
int run_render(const char *args, const char *errfile) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s'", render_bin, args, errfile);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int run_render_with_file_limit(long bytes, const char *args, const char *errfile) {
  char cmd[8192];
  static char err[1 << 16];
  snprintf(cmd, sizeof cmd, "exec '%s' %s 2>&1 >/dev/null", render_bin, args);
  int st = run_with_file_limit(cmd, (unsigned long long)bytes, err, sizeof err);
  FILE *f = fopen(errfile, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_ge(fputs(err, f), 0);
  ck_assert_int_eq(fclose(f), 0);
  return st;
}

/* `gate trends --json` of a history (with its baseline, or NULL), as ci/report.sh runs it before the renderer: what
 * the over-time chart draws. The trends file's path, quoted for a command line; NULL when the gate failed. */
const char *trends_of(const char *name, const char *baseline, const char *history) {
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
const char *trends_file(const char *name) {
  static char path[1300];
  snprintf(path, sizeof path, "%s/%s.trends.json", tmp, name);
  return path;
}

const char *trends_ok(const char *name, const char *baseline, const char *history) {
  const char *t = trends_of(name, baseline, history);
  ck_assert_msg(t != NULL, "gate trends failed on %s", history);
  return t;
}

char *slurp(const char *path, size_t *len) {
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

size_t count_lines(const char *path) {
  size_t n = 0, lines = 0;
  char *text = slurp(path, &n);
  for (size_t i = 0; i < n; i++) lines += text[i] == '\n';
  free(text);
  return lines;
}

int count_files(const char *dir, const char *suffix) {
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
void check_png(const char *path, unsigned *w, unsigned *h) {
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

void check_svg(const char *path) {
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

char *data_file(const char *family, const char *what) {
  static char path[1400];
  snprintf(path, sizeof path, "%s/data/" SLUG "-%s.%s.dat", full_out, family, what);
  return path;
}
