/* What every chart shares: gnuplot's -e variables, the chart's file names and data files, and running gnuplot on
 * a script (gnuplot_files.h). */
#define _GNU_SOURCE
#include "plots/gnuplot_files.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/common/fail.h"

/* fail (perf/common/fail.h) returns 1, RENDER_FAILED: a chart that cannot be drawn. */

void chart_note(family_view *f, const char *fmt, ...) {
  size_t k = strlen(f->notes);
  va_list ap;
  va_start(ap, fmt);
  if (k + 2 < sizeof f->notes) {
    if (k) f->notes[k++] = '\n';
    vsnprintf(f->notes + k, sizeof f->notes - k, fmt, ap);
  }
  va_end(ap);
}

/* ---------- gnuplot variables (-e) ---------- */

static void var_printf(vars *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (v->len < sizeof v->s) {
    int n = vsnprintf(v->s + v->len, sizeof v->s - v->len, fmt, ap);
    if (n > 0) v->len += (size_t)n;
  }
  va_end(ap);
}

/* key='value'; gnuplot's single quotes take '' for a quote and nothing else is special. */
void chart_var_str(vars *v, const char *key, const char *value) {
  var_printf(v, "%s='", key);
  for (const char *p = value; *p; p++) var_printf(v, *p == '\'' ? "''" : "%c", *p);
  var_printf(v, "'; ");
}

void chart_var_num(vars *v, const char *key, double x) { var_printf(v, "%s=%.10g; ", key, x); }

/* A label for a data file: double-quoted, so no double quotes inside. */
void chart_data_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

/* ---------- files ---------- */

/* File names from GPU and family: letters, digits, '-', '_' and '.'. */
void chart_stem_of(const gpu_view *g, const family_view *f, const char *kind, char *buf, size_t len) {
  snprintf(buf, len, "%s-%s-%s", g->slug, f->name, kind);
  for (char *p = buf; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') *p = '_';
}

FILE *chart_open_data(const render_env *env, const char *stem, const char *what, char *path, size_t len, char *err,
                      size_t errlen) {
  snprintf(path, len, "%s/data/%s.%s.dat", env->outdir, stem, what);
  FILE *f = fopen(path, "w");
  if (!f) fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
  return f;
}

int chart_close_data(FILE *f, const char *path, char *err, size_t errlen) {
  if (ferror(f) | fclose(f)) return fail(err, errlen, "writing %s failed: %s", path, strerror(errno));
  return 0;
}

/* Prints what gnuplot wrote on stderr (warnings too: a warning usually means a chart that misleads). */
static void relay_log(const char *log, const char *what) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  char line[1024];
  int first = 1;
  while (fgets(line, sizeof line, f)) {
    if (first) fprintf(stderr, "render: gnuplot said, drawing %s:\n", what);
    first = 0;
    fprintf(stderr, "  %s", line);
  }
  fclose(f);
}

/* 1 when the chart at path ends as a whole file of its kind does: a PNG with its IEND chunk, an SVG with </svg>.
 * gnuplot does not check its writes: on a full disk it exited 0 and left a cut chart. */
static int chart_is_whole(const char *path, int svg) {
  static const unsigned char kIend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char tail[64];
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  size_t want = size > (long)sizeof tail ? sizeof tail : size > 0 ? (size_t)size : 0;
  int ok = want > 0 && fseek(f, -(long)want, SEEK_END) == 0 && fread(tail, 1, want, f) == want;
  fclose(f);
  if (!ok) return 0;
  if (!svg) return want >= sizeof kIend && memcmp(tail + want - sizeof kIend, kIend, sizeof kIend) == 0;
  while (want > 0 && isspace(tail[want - 1])) want--;
  return want >= 6 && memcmp(tail + want - 6, "</svg>", 6) == 0;
}

/* Runs one script for PNG and SVG into OUTDIR/STEM.png/.svg. */
int chart_run_gnuplot(const render_env *env, const char *script, const vars *v, const char *stem, chart *c, char *err,
                      size_t errlen) {
  static const char *kTerms[] = {"png", "svg"};
  char script_path[PATH_LEN];
  snprintf(script_path, sizeof script_path, "%s/%s", env->scripts, script);
  snprintf(c->png, sizeof c->png, "%s.png", stem);
  snprintf(c->svg, sizeof c->svg, "%s.svg", stem);
  for (int t = 0; t < 2; t++) {
    char out[PATH_LEN], log[PATH_LEN];
    snprintf(out, sizeof out, "%s/%s.%s", env->outdir, stem, kTerms[t]);
    snprintf(log, sizeof log, "%s/data/%s.%s.log", env->outdir, stem, kTerms[t]);
    vars all = {.len = 0};
    chart_var_str(&all, "scriptdir", env->scripts);
    chart_var_str(&all, "term", kTerms[t]);
    chart_var_str(&all, "outfile", out);
    chart_var_num(&all, "width", c->width);
    chart_var_num(&all, "height", c->height);
    var_printf(&all, "%s", v->s);
    if (all.len >= sizeof all.s) return fail(err, errlen, "%s: too many gnuplot variables", stem);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) dup2(fd, 2);
      /* Labels are UTF-8 (×, ±); under a C locale (bazel test) gnuplot would warn and mangle them. */
      setenv("LC_ALL", "C.UTF-8", 1);
      execlp(env->gnuplot, env->gnuplot, "-e", all.s, script_path, (char *)NULL);
      fprintf(stderr, "cannot run %s: %s (install gnuplot: Debian package gnuplot-nox)\n", env->gnuplot,
              strerror(errno));
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return fail(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    relay_log(log, out);
    struct stat st;
    int ran = WIFEXITED(status) && WEXITSTATUS(status) == 0, made = ran && stat(out, &st) == 0 && st.st_size > 0;
    if (!made || !chart_is_whole(out, t == 1)) {
      unlink(out); /* never leave a blank or half-written chart behind */
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return fail(err, errlen, "could not run '%s' for %s: is gnuplot installed (Debian: gnuplot-nox)?", env->gnuplot,
                    out);
      if (made)
        return fail(err, errlen,
                    "gnuplot %s wrote %s cut short (%lld bytes, not a whole %s; gnuplot does not check its writes): a "
                    "full disk or a file size limit? Free space, then render again",
                    script_path, out, (long long)st.st_size, kTerms[t]);
      if (ran)
        return fail(err, errlen, "gnuplot %s exited 0 but wrote no %s (%s)", script_path, out,
                    stat(out, &st) == 0 ? "an empty file" : strerror(errno));
      return fail(err, errlen, "gnuplot %s failed (%s %d) drawing %s; its messages are above", script_path,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out);
    }
  }
  return 0;
}
