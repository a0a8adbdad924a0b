/* trends.json: what `gate trends --json` decided (trend_series.h), in one file the report reads and
 * draws without computing anything (the band, the reference level's line, change points, creep).
 *
 *   {"trends_version": 1, "policy_version": 6, "max_rows": 1000,
 *    "histories": [{"history": PATH, "gpu": SLUG, "baseline": PATH or null, "window": 5,
 *      "series": [{"benchmark", "l2_flush", "testbed",
 *                  "reference": {"against": "baseline" or "first_rows", "ns", "threshold"}, (the reference level)
 *                  "rows": [[LINE, THRESHOLD, RECORDED 0/1], ...],
 *                  "change_points": [{"line", "step", "p", "level", "since_bless"}],
 *                  "creep": null or {"level", "allowed"}}]}]}
 *
 * Fractions throughout (0.03 is 3 %); a row is named by its line in the history file. */
#ifndef PERF_GATE_TRENDS_FILE_H
#define PERF_GATE_TRENDS_FILE_H

#include <stddef.h>

#include "perf/gate/trend_series.h"

#define TRENDS_VERSION 1

/* Writes h[0..n) to path atomically. 0, or 1 and a message. */
int trends_write(const char *path, const trend_history *h, size_t n, char *err, size_t errlen);
/* Reads path into *out (n histories; free with trends_free). 0, or 1 and a message naming the file and the
 * field. */
int trends_read(const char *path, trend_history **out, size_t *n, char *err, size_t errlen);
void trends_free(trend_history *h, size_t n);

#endif
