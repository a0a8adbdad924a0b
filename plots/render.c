/* render: charts (PNG and SVG, drawn by gnuplot) and a static index.html from
 * benchmark runs, the gate's verdicts, baselines and history.
 *
 *   bazel run //plots:render -- [FLAGS] INPUT... OUTDIR
 *
 * INPUT: a run JSON of the benchmark runner, verdicts.json of `gate check`, a
 * baseline (baselines/<gpu>.json), a history CSV (baselines/history/<gpu>.csv),
 * or a directory of them (baselines/ gives its baselines and history).
 * Everything is read and checked before anything is drawn.
 * Exit status: 0 done (or --help, the usage on stdout), 1 drawing failed (gnuplot missing or failing, OUTDIR
 * unwritable or full: nothing of this report is left in OUTDIR, and what was there stays), 2 bad input or usage
 * (nothing is written).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/common/fail.h"
#include "plots/charts.h"
#include "plots/html.h"
#include "plots/inputs.h"
#include "plots/model.h"

static void print_usage(FILE *out) {
  fprintf(out,
          "usage: render [FLAGS] INPUT... OUTDIR\n"
          "  INPUT  run JSON (benchmark runner), verdicts.json (gate check), baseline JSON (baselines/<gpu>.json),\n"
          "         history CSV (baselines/history/<gpu>.csv) with the trends `gate trends --json` wrote of it\n"
          "         (trends.json: the band, change points and creep are the gate's), or a directory of them\n"
          "  OUTDIR created if needed; gets <gpu>-<family>-{history,ladder,size}.{png,svg}, data/ and index.html\n"
          "FLAGS:\n"
          "  --title=TEXT          title of index.html\n"
          "  --scripts=DIR         where ladder.gp, size.gp, history.gp are (default: the runfiles, then ./plots)\n"
          "  --gnuplot=PROGRAM     (default: $GNUPLOT, else gnuplot on PATH)\n"
          "  --help                this text, on stdout (exit 0)\n");
}

/* A usage error: msg and the usage on stderr, exit 2. */
static void usage(const char *msg) {
  fprintf(stderr, "render: %s\n", msg);
  print_usage(stderr);
  exit(RENDER_BAD_INPUT);
}

/* Paths given to `bazel run` are relative to where the user ran it. */
static const char *user_path(const char *p, char *buf, size_t len) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (p[0] == '/' || !wd) return p;
  snprintf(buf, len, "%s/%s", wd, p);
  return buf;
}

static int has_scripts(const char *dir) {
  static const char *kScripts[] = {"style.gp", "ladder.gp", "size.gp", "history.gp"};
  for (size_t i = 0; i < sizeof kScripts / sizeof *kScripts; i++) {
    char p[PATH_LEN];
    snprintf(p, sizeof p, "%s/%s", dir, kScripts[i]);
    if (access(p, R_OK) != 0) return 0;
  }
  return 1;
}

/* The scripts are a data dependency: under `bazel run` and `bazel test` they are
 * in the runfiles tree; run from the source tree, in ./plots. */
static int find_scripts(const char *argv0, char *out, size_t len) {
  char exe[PATH_LEN] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char *roots[] = {getenv("RUNFILES_DIR"), getenv("TEST_SRCDIR")};
  for (size_t i = 0; i < 2; i++) {
    if (!roots[i]) continue;
    snprintf(out, len, "%s/cuda_perf/plots", roots[i]);
    if (has_scripts(out)) return 0;
  }
  const char *bins[] = {argv0, exe};
  for (size_t i = 0; i < 2; i++) {
    if (!bins[i][0]) continue;
    snprintf(out, len, "%s.runfiles/cuda_perf/plots", bins[i]);
    if (has_scripts(out)) return 0;
  }
  snprintf(out, len, "plots");
  return has_scripts(out) ? 0 : 1;
}

static int make_dirs(const char *path) {
  char buf[PATH_LEN];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* The report is drawn into OUTDIR/.render.<pid>/ and moved into OUTDIR once every file of it is whole: a full disk
 * or a failed chart left cut SVGs and empty data files beside whole ones (and over the last report's). */

/* Removes the files of dir (and of dir/data) and the folders: a folder this render made and alone wrote to. */
static void discard(const char *dir) {
  char data[2 * PATH_LEN];
  snprintf(data, sizeof data, "%s/data", dir);
  const char *folders[] = {data, dir};
  for (int i = 0; i < 2; i++) {
    DIR *d = opendir(folders[i]);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(dirfd(d), e->d_name, 0);
      closedir(d);
    }
    rmdir(folders[i]);
  }
}

/* Renames every file of from/sub into to/sub (sub: "data", then "" with index.html last, so that the page never
 * names a chart not there yet). 0, or 1 and a message naming the file and errno. */
static int move_files(const char *from, const char *to, const char *sub, char *err, size_t errlen) {
  char src[2 * PATH_LEN], dst[2 * PATH_LEN];
  snprintf(src, sizeof src, "%s%s%s", from, *sub ? "/" : "", sub);
  snprintf(dst, sizeof dst, "%s%s%s", to, *sub ? "/" : "", sub);
  if (*sub && mkdir(dst, 0755) != 0 && errno != EEXIST)
    return fail(err, errlen, "cannot create %s: %s", dst, strerror(errno));
  DIR *d = opendir(src);
  if (!d) return fail(err, errlen, "cannot read %s: %s", src, strerror(errno));
  struct dirent *e;
  int rc = 0;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    rewinddir(d);
    while (!rc && (e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (!*sub && !strcmp(e->d_name, "data")) ||
          (pass == 0) == !strcmp(e->d_name, "index.html"))
        continue;
      char a[3 * PATH_LEN], b[3 * PATH_LEN];
      snprintf(a, sizeof a, "%s/%s", src, e->d_name);
      snprintf(b, sizeof b, "%s/%s", dst, e->d_name);
      if (rename(a, b) != 0) rc = fail(err, errlen, "cannot move %s to %s: %s", a, b, strerror(errno));
    }
  }
  closedir(d);
  return rc;
}

typedef struct {
  const char *title, *scripts, *gnuplot;
} render_options;

/* The flags; returns the index of the first INPUT (the last argument is OUTDIR). */
static int parse_flags(int argc, char **argv, render_options *o) {
  o->title = "CUDA kernel performance report";
  o->scripts = NULL;
  o->gnuplot = getenv("GNUPLOT") ? getenv("GNUPLOT") : "gnuplot";
  static const struct option opts[] = {{"title", required_argument, 0, 'T'},
                                       {"scripts", required_argument, 0, 's'},
                                       {"gnuplot", required_argument, 0, 'g'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'T': o->title = optarg; break;
      case 's': o->scripts = optarg; break;
      case 'g': o->gnuplot = optarg; break;
      case 'h': print_usage(stdout); exit(RENDER_OK);
      default: usage("unknown flag");
    }
  }
  if (argc - optind < 2) usage("want at least one INPUT and the OUTDIR");
  if (argv[argc - 1][0] == '\0') usage("OUTDIR is empty: name the folder to write the report to");
  return optind;
}

/* The gnuplot scripts' folder, absolute (gnuplot is started from here): --scripts, else found
 * next to the program. RENDER_OK, or an exit status after a message. */
static int script_folder(const char *scripts, const char *argv0, char *dir, size_t len) {
  char buf[PATH_LEN];
  if (scripts) {
    snprintf(dir, len, "%s", user_path(scripts, buf, sizeof buf));
    if (!has_scripts(dir)) {
      fprintf(stderr, "render: --scripts=%s: no style.gp, ladder.gp, size.gp and history.gp there\n", scripts);
      return RENDER_BAD_INPUT;
    }
  } else if (find_scripts(argv0, dir, len)) {
    fprintf(stderr,
            "render: cannot find the gnuplot scripts (plots/*.gp) in the runfiles or ./plots: run it with "
            "`bazel run //plots:render`, or pass --scripts=DIR\n");
    return RENDER_FAILED;
  }
  char resolved[PATH_MAX];
  if (realpath(dir, resolved)) snprintf(dir, len, "%s", resolved);
  return RENDER_OK;
}

int main(int argc, char **argv) {
  render_options o;
  int first = parse_flags(argc, argv, &o);
  char err[2048], buf[PATH_LEN];
  render_inputs in = {0};
  for (int i = first; i < argc - 1; i++) {
    if (load_input(&in, user_path(argv[i], buf, sizeof buf), err, sizeof err)) {
      fprintf(stderr, "render: %s\n", err);
      return RENDER_BAD_INPUT;
    }
  }
  if (in.nruns + in.nhist == 0) {
    fprintf(stderr,
            "render: nothing to chart: the inputs hold %zu verdicts file(s) and %zu baseline(s) but no run "
            "JSON and no history CSV\n",
            in.nverdicts, in.nbases);
    return RENDER_BAD_INPUT;
  }
  report_model m;
  if (build_model(&in, &m, err, sizeof err)) {
    fprintf(stderr, "render: %s\n", err);
    return RENDER_BAD_INPUT;
  }
  char script_dir[PATH_LEN], outdir[PATH_LEN];
  int rc = script_folder(o.scripts, argv[0], script_dir, sizeof script_dir);
  if (rc != RENDER_OK) return rc;
  snprintf(outdir, sizeof outdir, "%s", user_path(argv[argc - 1], buf, sizeof buf));
  if (make_dirs(outdir) != 0) {
    fprintf(stderr, "render: cannot create %s: %s\n", outdir, strerror(errno));
    return RENDER_FAILED;
  }
  char staged[PATH_LEN + 32];
  snprintf(staged, sizeof staged, "%s/.render.%ld", outdir, (long)getpid());
  if (mkdir(staged, 0755) != 0) {
    fprintf(stderr, "render: cannot write in %s (making %s): %s\n", outdir, staged, strerror(errno));
    return RENDER_FAILED;
  }
  render_env env = {o.gnuplot, script_dir, staged};
  rc = render_charts(&env, &in, &m, err, sizeof err);
  if (rc == RENDER_OK) rc = write_html(staged, outdir, o.title, &in, &m, err, sizeof err);
  if (rc == RENDER_OK) rc = write_trends_text(staged, outdir, &m, err, sizeof err);
  /* Renames, on one file system: once they start, only a name taken by a folder stops them (said, every file moved
   * whole). */
  int drawn = rc == RENDER_OK;
  if (drawn && (move_files(staged, outdir, "data", err, sizeof err) || move_files(staged, outdir, "", err, sizeof err)))
    rc = RENDER_FAILED;
  discard(staged);
  if (rc != RENDER_OK) {
    fprintf(stderr, "render: %s; %s\n", err,
            drawn ? "the files moved before it are whole, the rest were removed" : "nothing of this report was left");
    return RENDER_FAILED;
  }
  size_t charts = 0;
  for (size_t i = 0; i < m.ng; i++)
    for (size_t k = 0; k < m.g[i].nf; k++) charts += m.g[i].f[k].ncharts;
  printf("render: %zu charts (PNG and SVG) and %s/index.html\n", charts, outdir);
  if (m.left_out[0]) printf("render: left out (baselines or history given, but no run of them): %s\n", m.left_out);
  free_model(&m);
  free_inputs(&in);
  return RENDER_OK;
}
