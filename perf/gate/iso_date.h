/* The run date as the runner writes it (ISO 8601: 2026-11-25T16:52:12+00:00), read by one parser wherever a date
 * orders something: bless (a run's context.date), a baseline's runs[].date, a history's date column. */
#ifndef PERF_GATE_ISO_DATE_H
#define PERF_GATE_ISO_DATE_H

#include <time.h>

/* The UTC time of date into *t: YYYY-MM-DDTHH:MM:SS, optional fractions of a second, then +HH:MM, -HH:MM, Z or
 * nothing (the runner's fallback, read as UTC), on a real calendar day. 0 when it reads so, else 1 ("2026-11-25
 * 16:52:12", "+05", "yesterday", 30 February, trailing text). */
int iso_date_time(const char *date, time_t *t);

#endif
