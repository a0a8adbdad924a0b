/* fail: the error-reporting idiom of the readers (the runner's schema check, the gate's and the renderer's): formats a message naming
 * the file, field and fix into err and returns 1, so that `return fail(err, errlen, ...)` ends a
 * reader on bad input. Header only. */
#ifndef PERF_COMMON_FAIL_H
#define PERF_COMMON_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4))) static inline int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return 1;
}

#endif
