/* The JUnit XML reporter (gate_reporter.h): a test case per benchmark, failed when its verdict fails the gate
 * (failure_message says why), else its verdict and delta; Bazel reads it from $XML_OUTPUT_FILE. */
#include <stdio.h>

#include "perf/common/markup.h"
#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

static int write_junit(FILE *out, const gate_report *r, char *err, size_t errlen) {
  (void)err, (void)errlen;
  const char *suite = r->bench_name;
  const comparison *c = r->c;
  const char *const *notes = r->notes;
  size_t n = r->n;
  size_t failures = 0;
  for (size_t i = 0; i < n; i++) failures += verdict_fails(&c[i]);
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  fprintf(out, "  <testsuite name=\"");
  markup_escaped(out, suite);
  fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", n, failures);
  for (size_t i = 0; i < n; i++) {
    fprintf(out, "    <testcase classname=\"");
    markup_escaped(out, suite);
    fprintf(out, "\" name=\"");
    markup_escaped(out, c[i].name);
    fprintf(out, "\" time=\"%.9f\">", c[i].run_ns / 1e9);
    char msg[1024];
    failure_message(&c[i], msg, sizeof msg);
    if (verdict_fails(&c[i])) {
      fprintf(out, "<failure message=\"");
      markup_escaped(out, msg);
      fprintf(out, "\"/>");
    } else {
      fprintf(out, "<system-out>");
      markup_escaped(out, verdict_name(c[i].v));
      if (has_delta(&c[i])) fprintf(out, " %+.2f%%", 100 * c[i].delta);
      if (notes && notes[i]) {
        fputc(' ', out);
        markup_escaped(out, notes[i]);
      }
      fprintf(out, "</system-out>");
    }
    fprintf(out, "</testcase>\n");
  }
  fprintf(out, "  </testsuite>\n</testsuites>\n");
  return 0;
}

const gate_reporter junit_reporter = {"JUnit XML", write_junit};
