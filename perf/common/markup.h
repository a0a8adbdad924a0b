/* markup_escaped: text written into XML or HTML (element text and double-quoted attributes), with <, >, & and "
 * escaped: the gate's JUnit XML and the renderer's HTML report. Header only. */
#ifndef PERF_COMMON_MARKUP_H
#define PERF_COMMON_MARKUP_H

#include <stdio.h>

static inline void markup_escaped(FILE *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '&': fputs("&amp;", out); break;
      case '"': fputs("&quot;", out); break;
      default: fputc(*s, out);
    }
  }
}

#endif
