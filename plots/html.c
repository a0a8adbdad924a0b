#define _POSIX_C_SOURCE 200809L
#include "plots/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/common/markup.h"
#include "perf/gate/verdict_fields.h"

/* A path as the reader knows it: relative to the folder that holds the report (the job's
 * artifacts), else to where render was started (`bazel run` passes absolute paths under
 * BUILD_WORKING_DIRECTORY), so that the report shows no machine's folders. */
static char report_parent[PATH_LEN];

static const char *shown(const char *path) {
  const char *roots[] = {report_parent, getenv("BUILD_WORKING_DIRECTORY"), getenv("PWD")};
  for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
    size_t n = roots[i] ? strlen(roots[i]) : 0;
    if (n > 1 && !strncmp(path, roots[i], n) && path[n] == '/') return path + n + 1;
  }
  return path;
}

/* Anchors: the slug is already [a-z0-9-]; families are tokens without spaces or '/'. */
static void anchor(FILE *o, const gpu_view *g, const family_view *f) {
  fputs(g->slug, o);
  if (f) {
    fputc('-', o);
    for (const char *p = f->name; *p; p++) fputc((*p == '"' || *p == '<' || *p == '>' || *p == '&') ? '_' : *p, o);
  }
}

static const char kStyle[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;max-width:1200px;"
    "margin:1.5em auto;padding:0 1em;line-height:1.4}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:2px solid #0072B2;padding-bottom:.2em}\n"
    "h3{margin-top:1.6em}table{border-collapse:collapse;font-size:13px;margin:.6em 0}\n"
    "th,td{padding:3px 7px;border-bottom:1px solid #e2e2e2;text-align:right;white-space:nowrap}\n"
    "th{background:#f3f5f7;position:sticky;top:0}td.l,th.l{text-align:left}td.name{font-family:monospace}\n"
    "table.ctx td,table.ctx th{text-align:left}\n"
    "tr.slower td,tr.missing td{background:#fde2df}tr.faster td{background:#e4f5e4}tr.new td{background:#e8f0fb}\n"
    ".verdict{font-weight:600}tr.slower .verdict,tr.missing .verdict{color:#b3140c}\n"
    ".status{display:inline-block;padding:.25em .7em;border-radius:4px;font-weight:600}\n"
    ".pass{background:#e4f5e4;color:#1d6b1d}.fail{background:#fde2df;color:#b3140c}.none{background:#eee}\n"
    "figure{margin:1em 0 2em}figure img{max-width:100%;height:auto;border:1px solid #e5e5e5}\n"
    "figcaption{font-size:13px;color:#555;margin-top:.3em}.note{color:#8a5300;font-size:14px;margin:.3em 0}\n"
    "nav ul{columns:2;font-size:14px}code{font-size:90%}.wide{overflow-x:auto}\n";

/* The verdict of one benchmark: the last verdicts file that has it. Each perf
 * test compares one family's run with the GPU's whole baseline, so its file may
 * call the other families' benchmarks missing: their own file's verdict wins. */
static const verdict_row *verdict_of(const gpu_view *g, const char *name) {
  const verdict_row *found = NULL;
  for (size_t i = 0; i < g->nverdicts; i++)
    for (size_t k = 0; k < g->verdicts[i]->n; k++) {
      const verdict_row *v = &g->verdicts[i]->v[k];
      if (strcmp(v->name, name) != 0) continue;
      if (!found || strcmp(v->verdict, "missing") != 0 || !strcmp(found->verdict, "missing")) found = v;
    }
  return found;
}

static void num_cell(FILE *o, const char *fmt, double v) {
  if (isfinite(v)) {
    fputs("<td>", o);
    fprintf(o, fmt, v);
    fputs("</td>", o);
  } else {
    fputs("<td>-</td>", o);
  }
}

static void verdict_cells(FILE *o, const verdict_row *v) {
  num_cell(o, "%.3f", v ? v->baseline_ns / 1e3 : NAN);
  num_cell(o, "%+.2f%%", v ? 100 * v->delta : NAN);
  num_cell(o, "%.1f%%", v ? 100 * v->threshold : NAN);
  fprintf(o, "<td class=\"l verdict\">%s</td>", v ? v->verdict : "-");
}

static void comparison_table(FILE *o, const gpu_view *g, const render_inputs *in) {
  int any_flops = 0;
  for (size_t k = 0; k < g->nf; k++) any_flops |= g->f[k].flops && g->f[k].ne;
  int verdicts = g->nverdicts > 0;
  if (verdicts) {
    fprintf(o, "<p>Verdicts from ");
    for (size_t i = 0; i < g->nverdicts; i++) {
      fprintf(o, "%s<code>", i ? ", " : "");
      markup_escaped(o, shown(g->verdicts[i]->path));
      fprintf(o, "</code> (metric: %s)", g->verdicts[i]->metric);
    }
    /* What the verdict's columns mean, from the gate's table of fields: summary.md's legend says the same. */
    static const field_id kLegend[] = {FIELD_DELTA, FIELD_ALLOWED};
    char legend[4096];
    field_legend(kLegend, sizeof kLegend / sizeof *kLegend, legend, sizeof legend);
    fputs(". ", o);
    markup_escaped(o, legend);
    fputs("</p>\n", o);
  } else {
    fprintf(o,
            "<p>From the run JSON alone: no verdicts.json was given, so there is no baseline comparison "
            "(<code>gate check</code> writes one).</p>\n");
  }
  fprintf(o,
          "<div class=\"wide\"><table>\n<tr><th class=\"l\">Benchmark</th><th>Time (µs)</th><th>GB/s</th><th>%% of "
          "peak</th>"
          "<th>%% of copy</th>%s",
          any_flops ? "<th>TFLOP/s</th>" : "");
  if (verdicts) fprintf(o, "<th>Baseline (µs)</th><th>Delta</th><th>Allowed</th><th class=\"l\">Verdict</th>");
  fprintf(o, "</tr>\n");
  size_t rows = 0;
  for (size_t k = 0; k < g->nf; k++) {
    const family_view *f = &g->f[k];
    for (size_t i = 0; i < f->ne; i++) {
      const entry *e = &f->e[i];
      const verdict_row *v = verdicts ? verdict_of(g, e->b->name) : NULL;
      double gbps = e->b->bytes_per_second / 1e9;
      fprintf(o, "<tr class=\"%s\"><td class=\"l name\">", v ? v->verdict : "");
      markup_escaped(o, e->b->name);
      if (e->b->library_reference) fputs(" <small>(reference)</small>", o);
      fputs("</td>", o);
      num_cell(o, "%.3f", e->b->time_ns / 1e3);
      num_cell(o, "%.1f", gbps);
      num_cell(o, "%.1f%%", e->run->peak_gbps > 0 ? 100 * gbps / e->run->peak_gbps : NAN);
      num_cell(o, "%.1f%%", 100 * gbps / e->run->copy_gbps);
      if (any_flops) num_cell(o, "%.2f", f->flops ? entry_value(f, e) : NAN);
      if (verdicts) verdict_cells(o, v);
      fputs("</tr>\n", o);
      rows++;
    }
  }
  /* What the gate compared but no run given here measured (missing benchmarks, or no run JSON at all). */
  for (size_t i = 0; i < g->nverdicts; i++)
    for (size_t k = 0; k < g->verdicts[i]->n; k++) {
      const verdict_row *v = &g->verdicts[i]->v[k];
      int shown = 0;
      for (size_t j = 0; j < g->nf && !shown; j++) shown = find_entry(&g->f[j], v->name) != NULL;
      if (shown || verdict_of(g, v->name) != v) continue;
      fprintf(o, "<tr class=\"%s\"><td class=\"l name\">", v->verdict);
      markup_escaped(o, v->name);
      fputs("</td>", o);
      num_cell(o, "%.3f", v->run_ns / 1e3);
      fputs("<td>-</td><td>-</td><td>-</td>", o);
      if (any_flops) fputs("<td>-</td>", o);
      verdict_cells(o, v);
      fputs("</tr>\n", o);
      rows++;
    }
  /* Benchmarks that failed in a run (self-check or CUDA error): not timed, so not charted. */
  int cols = 5 + any_flops + (verdicts ? 4 : 0);
  for (size_t r = 0; r < in->nruns; r++) {
    if (strcmp(in->runs[r].gpu.slug, g->slug) != 0) continue;
    for (size_t k = 0; k < in->runs[r].nfailed; k++) {
      const failed_bench *fb = &in->runs[r].failed[k];
      fprintf(o, "<tr class=\"missing\"><td class=\"l name\">");
      markup_escaped(o, fb->name);
      fprintf(o, "</td><td class=\"l verdict\" colspan=\"%d\">FAILED in the run: ", cols - 1);
      markup_escaped(o, fb->message);
      fprintf(o, "</td></tr>\n");
      rows++;
    }
  }
  fprintf(o, "</table></div>\n");
  if (!rows) fprintf(o, "<p class=\"note\">No run JSON or verdicts for this GPU among the inputs: no table.</p>\n");
}

static void context_table(FILE *o, const gpu_view *g, const render_inputs *in) {
  const run_file *r = g->run;
  fprintf(o, "<table class=\"ctx\">\n");
  if (r) {
    const gate_gpu *gpu = &r->gpu;
    fprintf(o, "<tr><th>GPU</th><td>");
    markup_escaped(o, gpu->name);
    fputs(" (compute capability ", o);
    markup_escaped(o, r->compute_capability); /* the run file's words, as every string of it (#56 S01) */
    fprintf(o, ", %d SMs)</td></tr>\n", gpu->sm_count);
    fprintf(o, "<tr><th>Memory</th><td>%.0f MHz × %d-bit, ECC %s; theoretical peak ", gpu->mem_clock_mhz,
            gpu->bus_width_bits, gpu->ecc ? "on" : "off");
    if (r->peak_gbps > 0)
      fprintf(o, "%.1f GB/s", r->peak_gbps);
    else
      fputs("unknown", o);
    fprintf(o, "</td></tr>\n<tr><th>Driver, runtime</th><td>");
    markup_escaped(o, gpu->driver);
    fputs(", CUDA runtime ", o);
    markup_escaped(o, gpu->runtime);
    fputs("</td></tr>\n", o);
  } else {
    fprintf(o, "<tr><th>GPU</th><td>");
    markup_escaped(o, g->name);
    fprintf(o, " (no run JSON given: only the history)</td></tr>\n");
  }
  /* Every run of this GPU: which binary, when, at which commit, and its copy probe. */
  for (size_t i = 0; i < in->nruns; i++) {
    const run_file *x = &in->runs[i];
    if (strcmp(x->gpu.slug, g->slug) != 0) continue;
    fprintf(o, "<tr><th>Run</th><td><code>");
    markup_escaped(o, x->executable);
    fprintf(o, "</code> on ");
    markup_escaped(o, x->host);
    fprintf(o, ", ");
    markup_escaped(o, x->date);
    fprintf(o, ", commit <code>");
    markup_escaped(o, x->commit);
    fprintf(o, "</code>; copy probe %.1f GB/s</td></tr>\n", x->copy_gbps);
  }
  if (g->base) {
    fprintf(o, "<tr><th>Baseline</th><td><code>");
    markup_escaped(o, shown(g->base->path));
    fprintf(o, "</code>: %zu benchmarks from %zu runs</td></tr>\n", g->base->fig.n, g->base->fig.nruns);
  }
  fprintf(o, "</table>\n");
}

/* The rows `gate history` recorded as slower, newest first. */
static void history_regressions(FILE *o, const gpu_view *g) {
  size_t n = 0, total = 0;
  for (size_t k = 0; k < g->nf; k++) total += g->f[k].nh;
  if (!total) return;
  fprintf(o, "<h3>Regressions recorded in the history</h3>\n");
  for (size_t k = g->nf; k-- > 0;)
    for (size_t i = g->f[k].nh; i-- > 0;) {
      const history_row *h = g->f[k].h[i];
      if (strcmp(h->verdict, "slower") != 0) continue;
      if (n == 0)
        fprintf(o,
                "<table>\n<tr><th class=\"l\">Date</th><th class=\"l\">Commit</th>"
                "<th class=\"l\">Benchmark</th><th>Time (µs)</th><th>GB/s</th></tr>\n");
      if (n++ >= 30) continue;
      fprintf(o, "<tr class=\"slower\"><td class=\"l\">");
      markup_escaped(o, h->date);
      fprintf(o, "</td><td class=\"l\"><code>");
      markup_escaped(o, h->commit);
      fprintf(o, "</code></td><td class=\"l name\">");
      markup_escaped(o, h->bench);
      fprintf(o, "</td><td>%.3f</td><td>%.1f</td></tr>\n", h->time_ns / 1e3, h->bytes_per_second / 1e9);
    }
  if (n)
    fprintf(o, "</table>\n%s", n > 30 ? "<p class=\"note\">(only the 30 newest shown)</p>\n" : "");
  else
    fprintf(o, "<p>None: no row of the history has the verdict slower.</p>\n");
}

/* Change points of the family's benchmarks since the last bless, and creep, newest first. */
static size_t count_since_bless(const gpu_view *g) {
  size_t n = 0;
  for (size_t k = 0; k < g->nf; k++)
    for (size_t i = 0; i < g->f[k].ncp; i++) n += g->f[k].cp[i].since_bless;
  return n;
}

/* A commit cut to 12 characters, escaped like every text of the inputs. */
static void short_commit(FILE *o, const char *commit) {
  char cut[13];
  snprintf(cut, sizeof cut, "%.12s", commit);
  markup_escaped(o, cut);
}

static void commit_cell(FILE *o, const history_row *h) {
  fputs("<td class=\"l\"><code>", o);
  short_commit(o, h->commit);
  fputs("</code> ", o);
  markup_escaped(o, h->date);
  fputs("</td>", o);
}

/* "Trends": the change points found in the history since the last bless (the newest baseline run
 * of each family), and the benchmarks that crept beyond their tolerance over several merges. */
static void trends(FILE *o, const gpu_view *g) {
  size_t nh = 0, ncreep = 0, shown = 0;
  for (size_t k = 0; k < g->nf; k++) nh += g->f[k].nh, ncreep += g->f[k].ncreep;
  if (!nh) return;
  size_t since = count_since_bless(g);
  fprintf(o, "<h3 id=\"");
  anchor(o, g, NULL);
  fprintf(o,
          "-trends\">Trends</h3>\n<p>Change points in each benchmark's history %s (E-Divisive means over its "
          "newest 1000 rows, 10 rows at least; step: the median of the differences between the rows after and "
          "before it, against the median before; p: the permutation test). A step too small for the gate to stop, "
          "repeated over merges, shows here first. Crept: the "
          "median of a benchmark's last 5 rows is beyond the gate's threshold for it against %s, and has risen "
          "by as much since its first rows (the threshold: the gate's for that benchmark, or 3 standard errors "
          "of a median of 5 of its rows where it is noisier).</p>\n",
          g->base ? "since the last bless (the newest baseline run of its family)" : "(no baseline given: all of them)",
          g->base ? "the baseline" : "its first 5 rows");
  if (since) {
    fprintf(o,
            "<table>\n<tr><th class=\"l\">Benchmark</th><th>Step</th><th class=\"l\">Before</th>"
            "<th class=\"l\">From</th><th>p</th></tr>\n");
    for (size_t k = 0; k < g->nf; k++)
      for (size_t i = 0; i < g->f[k].ncp; i++) {
        const trend_mark *c = &g->f[k].cp[i];
        if (!c->since_bless || shown++ >= 50) continue;
        fprintf(o, "<tr class=\"%s\"><td class=\"l name\">", c->step > 0 ? "slower" : "faster");
        markup_escaped(o, c->after->bench);
        if (c->after->testbed[0]) {
          fputs(" <small>@", o);
          markup_escaped(o, c->after->testbed);
          fputs("</small>", o);
        }
        fprintf(o, "</td><td>%+.2f%%</td>", 100 * c->step);
        commit_cell(o, c->before);
        commit_cell(o, c->after);
        fprintf(o, "<td>%.3f</td></tr>\n", c->p);
      }
    fprintf(o, "</table>\n%s", shown > 50 ? "<p class=\"note\">(only the first 50 shown)</p>\n" : "");
  } else {
    fprintf(o, "<p>No change point since the last bless.</p>\n");
  }
  size_t listed = 0;
  for (size_t k = 0; k < g->nf; k++)
    for (size_t i = 0; i < g->f[k].ncreep; i++) {
      const creep_mark *c = &g->f[k].creep[i];
      if (listed++ >= 30) continue;
      fprintf(o, "<p class=\"note\"><b>Crept:</b> <code>");
      markup_escaped(o, c->last->bench);
      fprintf(o, "</code> is %+.2f%% against its %s (median of its last 5 rows, up to <code>", 100 * c->level,
              c->against_baseline ? "baseline" : "first rows");
      short_commit(o, c->last->commit);
      fprintf(o, "</code>), beyond its %.1f%% threshold, over %zu change point%s.</p>\n", 100 * c->tolerance,
              c->nchanges, c->nchanges == 1 ? "" : "s");
    }
  if (!ncreep)
    fprintf(o, "<p>No benchmark crept beyond its tolerance.</p>\n");
  else if (ncreep > 30)
    fprintf(o, "<p class=\"note\">(only the first 30 of %zu shown; all in trends.md)</p>\n", ncreep);
}

/* One line at the top per GPU with a history: its trends in numbers, linked to its section. */
static void trends_line(FILE *o, const report_model *m) {
  for (size_t i = 0; i < m->ng; i++) {
    const gpu_view *g = &m->g[i];
    size_t nh = 0, ncreep = 0, since = count_since_bless(g);
    for (size_t k = 0; k < g->nf; k++) nh += g->f[k].nh, ncreep += g->f[k].ncreep;
    if (!nh) continue;
    fprintf(o, "<p><a href=\"#");
    anchor(o, g, NULL);
    fprintf(o, "-trends\">Trends</a>");
    if (m->ng > 1) {
      fputs(" on ", o);
      markup_escaped(o, g->name);
    }
    fprintf(o, ": %zu change point%s since the last bless, %zu benchmark%s crept beyond the tolerance</p>\n", since,
            since == 1 ? "" : "s", ncreep, ncreep == 1 ? "" : "s");
  }
}

int write_trends_text(const char *dir, const char *outdir, const report_model *m, char *err, size_t errlen) {
  char path[PATH_LEN], shown_path[PATH_LEN];
  snprintf(path, sizeof path, "%s/trends.md", dir);
  snprintf(shown_path, sizeof shown_path, "%s/trends.md", outdir);
  FILE *o = fopen(path, "w");
  if (!o) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return RENDER_FAILED;
  }
  for (size_t i = 0; i < m->ng; i++) {
    const gpu_view *g = &m->g[i];
    size_t since = count_since_bless(g), ncreep = 0;
    for (size_t k = 0; k < g->nf; k++) ncreep += g->f[k].ncreep;
    fprintf(o, "## Trends on %s: %zu change point%s since the last bless, %zu crept beyond the tolerance\n\n", g->name,
            since, since == 1 ? "" : "s", ncreep);
    printf("render: trends on %s: %zu change point%s since the last bless, %zu crept beyond the tolerance (%s)\n",
           g->name, since, since == 1 ? "" : "s", ncreep, shown_path);
    for (size_t k = 0; k < g->nf; k++) {
      for (size_t j = 0; j < g->f[k].ncp; j++) {
        const trend_mark *c = &g->f[k].cp[j];
        if (c->since_bless)
          fprintf(o, "- change: %s%s%s %+.2f %% from %.12s (%.10s) to %.12s (%.10s), p = %.3f\n", c->after->bench,
                  c->after->testbed[0] ? " @" : "", c->after->testbed, 100 * c->step, c->before->commit,
                  c->before->date, c->after->commit, c->after->date, c->p);
      }
      for (size_t j = 0; j < g->f[k].ncreep; j++) {
        const creep_mark *c = &g->f[k].creep[j];
        fprintf(o, "- crept: %s %+.2f %% against its %s, beyond its %.1f %% threshold, over %zu change points\n",
                c->last->bench, 100 * c->level, c->against_baseline ? "baseline" : "first rows", 100 * c->tolerance,
                c->nchanges);
      }
    }
    fputc('\n', o);
  }
  if (ferror(o) | fclose(o)) {
    snprintf(err, errlen, "writing %s failed: %s", path, strerror(errno));
    return RENDER_FAILED;
  }
  return RENDER_OK;
}

static void figure(FILE *o, const chart *c) {
  fprintf(o, "<figure>\n<a href=\"");
  markup_escaped(o, c->svg);
  fprintf(o, "\"><img src=\"");
  markup_escaped(o, c->png);
  fprintf(o, "\" width=\"%d\" height=\"%d\" alt=\"", c->width, c->height);
  markup_escaped(o, c->caption);
  fprintf(o, "\"></a>\n<figcaption>");
  markup_escaped(o, c->caption);
  fprintf(o, " <a href=\"");
  markup_escaped(o, c->svg);
  fprintf(o, "\">SVG</a></figcaption>\n</figure>\n");
}

static void summary(FILE *o, const report_model *m, const render_inputs *in) {
  size_t count[6] = {0}, any = 0, failed_runs = 0, environment = 0, other_gpus = 0, failing = 0;
  for (size_t r = 0; r < in->nruns; r++) failed_runs += in->runs[r].nfailed;
  if (failed_runs)
    fprintf(o,
            "<p><span class=\"status fail\">%zu benchmark%s FAILED in the run</span> (self-check or CUDA error: "
            "see the tables)</p>\n",
            failed_runs, failed_runs == 1 ? "" : "s");
  static const char *kNames[] = {"slower", "missing", "faster", "same", "new", "unchanged"};
  for (size_t i = 0; i < m->ng; i++)
    for (size_t v = 0; v < m->g[i].nverdicts; v++)
      for (size_t k = 0; k < m->g[i].verdicts[v]->n; k++) {
        const verdict_row *r = &m->g[i].verdicts[v]->v[k];
        if (verdict_of(&m->g[i], r->name) != r) continue; /* counted once, as its last verdict */
        any = 1;
        if (!strcmp(r->verdict, "slower") && !r->fails) { /* a library reference: the environment changed */
          if (r->other_gpus)
            other_gpus++; /* ... or, judged against other GPUs, their difference */
          else
            environment++;
          continue;
        }
        failing += r->fails;
        for (int j = 0; j < 6; j++) count[j] += !strcmp(r->verdict, kNames[j]);
      }
  if (!any) {
    fprintf(o,
            "<p><span class=\"status none\">no verdicts</span> Charts and figures only; give the gate's "
            "verdicts.json for the comparison with the baseline.</p>\n");
    return;
  }
  int failed = failing > 0;
  fprintf(o, "<p><span class=\"status %s\">gate %s</span> ", failed ? "fail" : "pass", failed ? "FAILED" : "passed");
  for (int j = 0; j < 5; j++) fprintf(o, "%s%zu %s", j ? ", " : "", count[j], kNames[j]);
  if (count[5]) fprintf(o, ", %zu %s (A/B: the same timed work, not measured)", count[5], kNames[5]);
  if (environment)
    fprintf(o, "; environment changed: %zu library reference%s slower (not a failure)", environment,
            environment == 1 ? "" : "s");
  if (other_gpus)
    fprintf(o, "; %zu library reference%s slower than other GPUs: their difference or the environment (not a failure)",
            other_gpus, other_gpus == 1 ? "" : "s");
  fprintf(o, "</p>\n");
}

int write_html(const char *dir, const char *outdir, const char *title, const render_inputs *in, const report_model *m,
               char *err, size_t errlen) {
  char path[PATH_LEN], tmp[PATH_LEN + 16];
  snprintf(report_parent, sizeof report_parent, "%s", outdir);
  char *slash = strrchr(report_parent, '/');
  if (slash)
    *slash = '\0';
  else
    report_parent[0] = '\0';
  snprintf(path, sizeof path, "%s/index.html", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *o = fopen(tmp, "w");
  if (!o) {
    snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return RENDER_FAILED;
  }
  char now[64];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  fprintf(o,
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
  markup_escaped(o, title);
  fprintf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", kStyle);
  markup_escaped(o, title);
  fprintf(o, "</h1>\n<p>Generated %s by <code>plots/render</code> from %zu input file%s.</p>\n", now, in->ngiven,
          in->ngiven == 1 ? "" : "s");
  summary(o, m, in);
  trends_line(o, m);
  if (m->left_out[0]) {
    fprintf(o, "<p class=\"note\">Not in this report: ");
    markup_escaped(o, m->left_out);
    fprintf(o, " (their baselines or history were given, but no run of those GPUs).</p>\n");
  }
  fprintf(o, "<nav><ul>\n");
  for (size_t i = 0; i < m->ng; i++) {
    const gpu_view *g = &m->g[i];
    fprintf(o, "<li><a href=\"#");
    anchor(o, g, NULL);
    fprintf(o, "\">");
    markup_escaped(o, g->name);
    fprintf(o, "</a>: ");
    for (size_t k = 0; k < g->nf; k++) {
      fprintf(o, "%s<a href=\"#", k ? ", " : "");
      anchor(o, g, &g->f[k]);
      fprintf(o, "\">");
      markup_escaped(o, g->f[k].name);
      fprintf(o, "</a>");
    }
    fprintf(o, "</li>\n");
  }
  fprintf(o, "</ul></nav>\n");
  for (size_t i = 0; i < m->ng; i++) {
    const gpu_view *g = &m->g[i];
    fprintf(o, "<section id=\"");
    anchor(o, g, NULL);
    fprintf(o, "\">\n<h2>");
    markup_escaped(o, g->name);
    fprintf(o, "</h2>\n");
    context_table(o, g, in);
    fprintf(o, "<h3>Latest comparison</h3>\n");
    comparison_table(o, g, in);
    history_regressions(o, g);
    trends(o, g);
    for (size_t k = 0; k < g->nf; k++) {
      const family_view *f = &g->f[k];
      fprintf(o, "<h3 id=\"");
      anchor(o, g, f);
      fprintf(o, "\">");
      markup_escaped(o, f->name);
      fprintf(o, " <small>(%s)</small></h3>\n", unit_of(f));
      if (f->notes[0]) {
        /* One paragraph per note. */
        char copy[sizeof f->notes];
        snprintf(copy, sizeof copy, "%s", f->notes);
        char *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
          fprintf(o, "<p class=\"note\">");
          markup_escaped(o, line);
          fprintf(o, "</p>\n");
        }
      }
      for (size_t c = 0; c < f->ncharts; c++) figure(o, &f->charts[c]);
    }
    fprintf(o, "</section>\n");
  }
  fprintf(o, "<h2>Inputs</h2>\n<ul>\n");
  for (size_t i = 0; i < in->ngiven; i++) {
    fprintf(o, "<li><code>");
    markup_escaped(o, shown(in->given[i]));
    fprintf(o, "</code></li>\n");
  }
  fprintf(o, "</ul>\n</body>\n</html>\n");
  if (ferror(o) | fclose(o) || rename(tmp, path) != 0) {
    snprintf(err, errlen, "writing %s failed: %s", path, strerror(errno));
    remove(tmp);
    return RENDER_FAILED;
  }
  return RENDER_OK;
}
