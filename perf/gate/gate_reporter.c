/* A gate report to a file (gate_reporter.h): composed in memory, then written whole. */
#define _POSIX_C_SOURCE 200809L
#include "perf/gate/gate_reporter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/figures.h"

/* A device or a pipe cannot be renamed over (nor should it: /dev/stdout), so it is written in place. */
static int write_in_place(const char *path, const char *text, char *err, size_t errlen) {
  size_t len = strlen(text);
  FILE *f = fopen(path, "w");
  int e = f ? 0 : errno;
  if (f && fwrite(text, 1, len, f) != len) e = errno ? errno : EIO; /* the errno of the write that failed */
  if (f && fflush(f) != 0 && !e) e = errno ? errno : EIO;
  if (f && fclose(f) != 0 && !e) e = errno ? errno : EIO;
  if (e) snprintf(err, errlen, "%s: writing it failed: %s", path, strerror(e));
  return e != 0;
}

int write_report_text(const char *path, const char *text, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return write_in_place(path, text, err, errlen);
  /* A temporary file renamed over path: a full disk leaves no part of a report, and the errno of the step that
   * failed is the one named. */
  return write_file_atomically(path, text, err, errlen);
}

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
  failed = write_report_text(path, text, err, errlen);
  free(text);
  return failed;
}
