/* The runner's ISO 8601 dates read (iso_date.h). */
#define _GNU_SOURCE
#include "perf/gate/iso_date.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 1 when s starts with pattern, where D is a digit and any other character itself. */
static int shaped(const char *s, const char *pattern) {
  for (; *pattern; s++, pattern++)
    if (*pattern == 'D' ? !isdigit((unsigned char)*s) : *s != *pattern) return 0;
  return 1;
}

int iso_date_time(const char *date, time_t *t) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  if (!shaped(date, "DDDD-DD-DDTDD:DD:DD")) return 1;
  const char *rest = strptime(date, "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest != date + 19) return 1;
  if (rest[0] == '.' && isdigit((unsigned char)rest[1])) rest += 1 + strspn(rest + 1, "0123456789");
  long offset = 0;
  if ((rest[0] == '+' || rest[0] == '-') && shaped(rest + 1, "DD:DD") && rest[6] == '\0') {
    int hh = atoi(rest + 1), mm = atoi(rest + 4);
    if (hh > 23 || mm > 59) return 1;
    offset = (rest[0] == '+' ? 1 : -1) * (hh * 3600L + mm * 60L);
  } else if (strcmp(rest, "Z") != 0 && rest[0] != '\0') {
    return 1;
  }
  int day = tm.tm_mday;
  *t = timegm(&tm) - offset;
  return tm.tm_mday != day; /* timegm moved 30 February to March */
}
