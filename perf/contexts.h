/* Short benchmarks measured in several processes (--processes=K).
 *
 * A 7 us kernel's median moves by 100-400 ns from one process to the next:
 * every CUDA context has its own offset, the same for all samples in it
 * (perf/RESULTS.md, "Run-to-run spread at small sizes"). No number of samples
 * in one context averages it out; only more contexts do. So the runner, after
 * measuring everything itself, runs itself K more times on the short
 * benchmarks only, each child a fresh process with the same seed and
 * min_time/K. A child writes its samples to the file named by
 * BENCH_SAMPLES_OUT; the parent replaces its own samples of those benchmarks
 * by the children's, keeps each child's median, and reports their mean. Its
 * own measurement only decided which benchmarks are short: it ran after the
 * copy probe and among the long benchmarks, and so not like the children.
 *
 * Pure C (POSIX spawn, jansson): tested on the CPU with made-up results and
 * a stand-in child. */
#ifndef PERF_PROCESSES_H
#define PERF_PROCESSES_H

#include <stddef.h>
#include <stdint.h>

#include "perf/results.h"

/* The environment variable that makes a benchmark binary a child. */
#define PROCESSES_SAMPLES_ENV "BENCH_SAMPLES_OUT"

/* 1 when r did not fail and every repetition has a median under below_ns. */
int processes_is_short(const bench_result *r, double below_ns);

/* Writes "^(name1|name2)$" (regex characters escaped) for the benchmarks that
 * did not fail and whose every repetition has a median under below_ns.
 * Returns how many, 0 for none, -1 if buf is too small. */
int processes_short_filter(const bench_result *res, size_t n, double below_ns, char *buf, size_t len);

/* Child side: the samples and readings of res[0..n) as JSON at path.
 * Returns 0, or -1 with a message. */
int processes_write(const char *path, const bench_result *res, size_t n, char *err, size_t errlen);

/* Parent side: pools the file a child wrote into res by benchmark name and
 * repetition index (the first child's replaces res's own samples and
 * readings); every pooled repetition gets the child's median in
 * process_ns, and with two or more its noise becomes
 * the standard error of the mean of those medians, relative to it. A
 * benchmark of the file that res lacks, or a repetition count that differs,
 * is an error.
 * Returns how many benchmarks were pooled, or -1 with a message naming the
 * file and what is wrong. */
int processes_merge(const char *path, bench_result *res, size_t n, char *err, size_t errlen);

/* Runs the program at path with argv to completion, with
 * BENCH_SAMPLES_OUT=samples_path and BENCH_SEED=seed added to the
 * environment and stdout sent to /dev/null (stderr is kept). Returns the exit
 * status (128 + signal if killed), or -1 with a message if it cannot start. */
int processes_run_child(const char *path, char *const argv[], const char *samples_path, uint64_t seed, char *err, size_t errlen);

#endif
