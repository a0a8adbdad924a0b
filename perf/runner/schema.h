/* Validation of a benchmark JSON document against the rules our writer
 * follows and Google Benchmark's tools/compare.py relies on (pure C).
 *
 * compare.py (tools/gbench/util.py and report.py) reads: context
 * .json_schema_version (must be 1), and per benchmark name, run_name,
 * run_type, repetition_index, family_index, per_family_instance_index (for
 * sorting), real_time, cpu_time and time_unit (ns/us/ms/s; times of iteration
 * entries > 0 for its geometric mean), aggregate_name. On top of that we require
 * the GPU context, the per-repetition "samples" and their consistency with
 * real_time, and the order: a benchmark's iteration entries, then its aggregates.
 * Which fields there are, and their types, is the run JSON's one schema
 * (perf/schema/run_schema.h, every field the runner writes); the rules on values
 * and order are here.
 */
#ifndef PERF_RUNNER_SCHEMA_H
#define PERF_RUNNER_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* Returns 0 if doc follows the rules, else -1 with the first violation
 * (JSON path and rule) in err. */
int schema_validate(const json_t *doc, char *err, size_t errlen);

#endif
