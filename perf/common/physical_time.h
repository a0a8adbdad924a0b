/* The range of a time the gate takes as measured, in ns: the run reader holds every sample, real_time and context
 * median to it, so a baseline's and a history row's time (a mean of context medians) lie in it too. */
#ifndef PERF_COMMON_PHYSICAL_TIME_H
#define PERF_COMMON_PHYSICAL_TIME_H

/* A kernel call takes at least this long: a shorter or non-finite time is a broken timer or
 * time_unit, and would make a "faster -100 %" and an infinite bandwidth. */
#define MIN_PHYSICAL_NS 1.0
/* ... and at most this long (1000 s: the runner stops sampling a repetition after seconds): a context
 * median of 1e308 ns was set aside as an interruption and the run judged "same" (#56). */
#define MAX_PHYSICAL_NS 1e12

#endif
