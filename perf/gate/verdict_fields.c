/* The table of verdict fields (verdict_fields.h): summary.md's columns and what its legend and the HTML
 * report's legend say about them. */
#include "perf/gate/verdict_fields.h"

#include <stdio.h>
#include <string.h>

#include "perf/gate/reference.h"

const verdict_field verdict_fields[FIELD_COUNT] = {
    [FIELD_BENCHMARK] = {"name", "Benchmark", 0, NULL, 0},
    [FIELD_BASELINE] = {"baseline_ns", "Baseline (us)", 1, NULL, 0},
    [FIELD_NEW] = {"run_ns", "New (us)", 1, NULL, 0},
    [FIELD_DELTA] = {"delta", "Delta", 1,
                     "positive is slower; the run's mean of context medians against the median of the baseline's "
                     "runs: of this GPU's own runs when the baseline holds two or more (\"this GPU's N runs\"), else "
                     "of its GPUs whose copy probe is within %.1f %% of this run's, when there are two or more (\"N "
                     "runs of M GPUs of its kind\"), else of all its GPUs (\"N runs of M GPUs, K of its kind\": too "
                     "few of its kind have run it, so a difference of kinds can look like a change; bless this "
                     "runner in), or of all its GPUs for a benchmark whose time includes a host round trip (\"N runs "
                     "of M GPUs, a host round trip\": set by the host, not the GPU's kind)",
                     100 * KIND_COPY_WINDOW},
    [FIELD_ALLOWED] = {"threshold", "Allowed", 1, "the gate's threshold for that benchmark", 0},
    [FIELD_P] = {"p", "p", 1,
                 "one-sided test on the contexts' medians (slower for a positive delta, faster for a negative one)", 0},
    [FIELD_GBPS] = {"gbps", "GB/s", 1, NULL, 0},
    [FIELD_OF_COPY] = {"copy_fraction", "of copy", 1, NULL, 0},
    [FIELD_EVIDENCE] = {"evidence", "Evidence", 0,
                        "contexts/samples, baseline vs new; \"launch probe\": how much longer this run's empty kernel "
                        "took than the baseline's, for reading only",
                        0},
    [FIELD_VERDICT] = {"verdict", "Verdict", 0, NULL, 0},
    [FIELD_TIMES] = {"times", NULL, 0, "Times are as measured", 0},
};

void field_legend(const field_id *ids, size_t n, char *buf, size_t len) {
  size_t used = 0;
  if (len) buf[0] = '\0';
  for (size_t i = 0; i < n && used < len; i++) {
    const verdict_field *f = &verdict_fields[ids[i]];
    if (!f->description) continue;
    char text[2048];
    snprintf(text, sizeof text, f->description, f->value);
    snprintf(buf + used, len - used, "%s%s%s%s.", used ? " " : "", f->header ? f->header : "", f->header ? ": " : "",
             text);
    used += strlen(buf + used);
  }
}
