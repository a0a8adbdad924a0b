/* A gate report to a file (gate_reporter.h): composed in memory, then written and closed. */
#define _POSIX_C_SOURCE 200809L
#include "perf/gate/gate_reporter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/report.h"

int write_report_file(const gate_reporter *rep, const gate_report *r, const char *path, char *err, size_t errlen) {
  char *text = NULL, why[1024] = "";
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) {
    snprintf(err, errlen, "%s: not written: %s", path, strerror(errno));
    return 1;
  }
  int failed = rep->write(mem, r, why, sizeof why);
  if (fclose(mem) != 0 && !failed) { /* the stream's last flush: out of memory */
    failed = 1;
    snprintf(why, sizeof why, "%s", strerror(errno));
  }
  if (failed) {
    snprintf(err, errlen, "%s: not written: %s", path, why);
    free(text);
    return 1;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    free(text);
    return 1;
  }
  fwrite(text, 1, len, f);
  free(text);
  return close_report(f, path, err, errlen);
}
