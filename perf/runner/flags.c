#define _GNU_SOURCE
#include "perf/runner/flags.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
  OPT_FILTER = 256,
  OPT_LIST,
  OPT_REPS,
  OPT_MIN_TIME,
  OPT_WARMUP,
  OPT_FORMAT,
  OPT_OUT,
  OPT_OUT_FORMAT,
  OPT_CONTEXT,
  OPT_REPORT_AGG,
  OPT_DISPLAY_AGG,
  OPT_DEVICE,
  OPT_HOT,
  OPT_L2_FLUSH,
  OPT_MAX_NOISE,
  OPT_TIMEOUT,
  OPT_MIN_SAMPLES,
  OPT_MIN_CLOCK,
  OPT_CONTEXTS,
  OPT_CONTEXTS_BELOW,
  OPT_LONG_CONTEXTS,
  OPT_FINGERPRINT_OUT,
  OPT_HELP,
};

static const struct option kOptions[] = {
    {"benchmark_filter", required_argument, NULL, OPT_FILTER},
    {"benchmark_list_tests", optional_argument, NULL, OPT_LIST},
    {"benchmark_repetitions", required_argument, NULL, OPT_REPS},
    {"benchmark_min_time", required_argument, NULL, OPT_MIN_TIME},
    {"benchmark_min_warmup_time", required_argument, NULL, OPT_WARMUP},
    {"benchmark_format", required_argument, NULL, OPT_FORMAT},
    {"benchmark_out", required_argument, NULL, OPT_OUT},
    {"benchmark_out_format", required_argument, NULL, OPT_OUT_FORMAT},
    {"benchmark_context", required_argument, NULL, OPT_CONTEXT},
    {"benchmark_report_aggregates_only", optional_argument, NULL, OPT_REPORT_AGG},
    {"benchmark_display_aggregates_only", optional_argument, NULL, OPT_DISPLAY_AGG},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"hot", optional_argument, NULL, OPT_HOT},
    {"l2_flush", required_argument, NULL, OPT_L2_FLUSH},
    {"max_noise", required_argument, NULL, OPT_MAX_NOISE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"min_samples", required_argument, NULL, OPT_MIN_SAMPLES},
    {"min_clock_ratio", required_argument, NULL, OPT_MIN_CLOCK},
    {"contexts", required_argument, NULL, OPT_CONTEXTS},
    {"contexts_below", required_argument, NULL, OPT_CONTEXTS_BELOW},
    {"long_contexts", required_argument, NULL, OPT_LONG_CONTEXTS},
    {"fingerprint_out", required_argument, NULL, OPT_FINGERPRINT_OUT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

void flags_defaults(bench_options *o) {
  memset(o, 0, sizeof *o);
  o->filter = ".";
  o->repetitions = 1;
  o->min_time_s = 0.1;
  o->min_warmup_s = 0;
  o->format = FORMAT_CONSOLE;
  o->out_format = FORMAT_JSON;
  o->device = 0;
  o->max_noise_pct = 0.3;
  o->timeout_s = 10;
  o->min_samples = 10;
  o->min_clock_ratio = 0.7;
  o->contexts = 1;
  o->contexts_below_s = 50e-6;
}

const char *format_name(out_format f) {
  switch (f) {
    case FORMAT_JSON: return "json";
    case FORMAT_CSV: return "csv";
    default: return "console";
  }
}

void flags_usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: %s [flags]\n"
          "Google Benchmark flags:\n"
          "  --benchmark_filter=<regex>          run benchmarks whose name matches (POSIX ERE);\n"
          "                                      a leading '-' runs those that do not; default: all\n"
          "  --benchmark_list_tests[=true|false] print the benchmark names and exit (no GPU needed)\n"
          "  --benchmark_repetitions=<n>         repetitions per benchmark, n >= 1 (default 1); with n > 1\n"
          "                                      mean/median/stddev/cv aggregates follow\n"
          "  --benchmark_min_time=<t>s           minimum kept GPU time per repetition (default 0.1s)\n"
          "  --benchmark_min_warmup_time=<t>     seconds of warm-up runs before sampling (default 0; one\n"
          "                                      warm-up run always happens); under --contexts, in each\n"
          "                                      context that measures the benchmark for the results\n"
          "  --benchmark_format=console|json|csv format on stdout (default console)\n"
          "  --benchmark_out=<file>              also write the results to <file>\n"
          "  --benchmark_out_format=console|json|csv  format of <file> (default json)\n"
          "  --benchmark_context=<key>=<value>[,<key>=<value>...]  extra context entries (repeatable)\n"
          "  --benchmark_report_aggregates_only[=true|false]   only aggregates, on stdout and in <file>\n"
          "  --benchmark_display_aggregates_only[=true|false]  only aggregates on stdout\n"
          "GPU flags:\n"
          "  --device=<n>                        CUDA device ordinal (default 0)\n"
          "  --hot[=true|false]                  skip the L2 flush before each sample (default: flush)\n"
          "  --l2_flush=read|write               how the flush evicts the L2: read a zeroed buffer, leaving\n"
          "                                      clean lines (default), or memset one, leaving dirty lines\n"
          "                                      that the timed kernel then writes back\n"
          "  --max_noise=<percent>               sample until the relative standard error of the mean\n"
          "                                      is at most this (default 0.3)\n"
          "  --timeout=<t>[s]                    stop sampling a repetition after t seconds even if the\n"
          "                                      noise target is not met (default 10)\n"
          "  --min_samples=<n>                   minimum kept samples per repetition (default 10)\n"
          "  --min_clock_ratio=<r>               discard a sample when the SM clock read right after it is\n"
          "                                      below r x the maximum SM clock; 0 disables (default 0.7)\n"
          "  --contexts=<k>                      measure each short benchmark (see --contexts_below) again\n"
          "                                      in k fresh CUDA contexts of this process, one after another,\n"
          "                                      each with min_time/k (at most 200 samples) and no --max_noise\n"
          "                                      target; its time is\n"
          "                                      the mean of their medians\n"
          "                                      (default 1: the first context alone). Every context has its\n"
          "                                      own offset, which shifts a 7 us kernel by up to 5%%\n"
          "                                      (docs/RESULTS.md)\n"
          "  --contexts_below=<t>us              short: a median under t microseconds (default 50us)\n"
          "  --long_contexts=<l>                 with --contexts=k, measure the other (long) benchmarks in\n"
          "                                      the first l of those k contexts too, after the short ones,\n"
          "                                      each with min_time/l (at most 200 samples) and no\n"
          "                                      --max_noise target; l <= k (default 0: the first context\n"
          "                                      alone, with the noise target)\n"
          "  --fingerprint_out=<file>            time nothing: run each selected benchmark's timed region\n"
          "                                      once under CUPTI and write to <file> (JSON) what it ran on\n"
          "                                      the GPU: kernels with a hash of their machine code, launch\n"
          "                                      shapes, memcpys and memsets (needs libcupti; CUPTI_LIBRARY\n"
          "                                      names it)\n"
          "  --help                              this text\n"
          "Environment: BENCH_SEED=<n> fixes the random inputs (default: drawn from the clock; the seed is\n"
          "  in the JSON context); BENCH_NVML_LIBRARY=<path> loads NVML from <path> instead of libnvidia-ml.so.1.\n"
          "Exit status: 0 success, 1 a benchmark failed (self-check or CUDA error), 2 usage error (a\n"
          "--benchmark_filter that matches nothing too) or no usable GPU.\n",
          prog);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Whole-string number parses: trailing junk, empty strings, inf and nan fail. */
static int parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int parse_long(const char *s, long *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* A number followed by an optional unit suffix (e.g. "0.5s"). */
static int parse_with_suffix(const char *s, char suffix, double *out) {
  char buf[64];
  size_t len = s ? strlen(s) : 0;
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, s, len + 1);
  if (buf[len - 1] == suffix) buf[len - 1] = '\0';
  return parse_double(buf, out);
}

/* Google Benchmark's boolean spellings; a bare flag means true. */
static int parse_bool(const char *s, int *out) {
  static const char *yes[] = {"true", "1", "yes", "on", "t", "y"}, *no[] = {"false", "0", "no", "off", "f", "n"};
  if (!s) {
    *out = 1;
    return 0;
  }
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = 1, 0;
    if (strcasecmp(s, no[i]) == 0) return *out = 0, 0;
  }
  return -1;
}

static int parse_format(const char *s, out_format *out) {
  if (strcmp(s, "console") == 0)
    *out = FORMAT_CONSOLE;
  else if (strcmp(s, "json") == 0)
    *out = FORMAT_JSON;
  else if (strcmp(s, "csv") == 0)
    *out = FORMAT_CSV;
  else
    return -1;
  return 0;
}

/* "k=v,k2=v2": appends each pair to o->context. */
static int parse_context(const char *s, bench_options *o, char *err, size_t errlen) {
  const char *p = s;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p) {
      set_err(err, errlen, "--benchmark_context=%s: each entry must be <key>=<value> with a non-empty key", s);
      return -1;
    }
    size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
    if (o->n_context >= MAX_CONTEXT || klen >= sizeof o->context[0].key || vlen >= sizeof o->context[0].value) {
      set_err(err, errlen, "--benchmark_context=%s: at most %d entries, keys < %zu and values < %zu characters", s,
              MAX_CONTEXT, sizeof o->context[0].key, sizeof o->context[0].value);
      return -1;
    }
    context_kv *kv = &o->context[o->n_context++];
    memcpy(kv->key, p, klen);
    kv->key[klen] = '\0';
    memcpy(kv->value, eq + 1, vlen);
    kv->value[vlen] = '\0';
    if (!end) return 0;
    p = end + 1;
  }
}

/* getopt_long accepts unambiguous abbreviations (--benchmark_rep=3); Google
 * Benchmark does not, and a typo must not silently select another flag. */
static int check_exact_names(int argc, char **argv, char *err, size_t errlen) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) return 0;
    if (strncmp(a, "--", 2) != 0) continue;
    size_t len = strcspn(a + 2, "=");
    int known = 0;
    for (const struct option *opt = kOptions; opt->name; opt++)
      if (strlen(opt->name) == len && strncmp(opt->name, a + 2, len) == 0) known = 1;
    if (!known) {
      set_err(err, errlen, "unknown flag '%.*s' (see --help for the accepted flags)", (int)len + 2, a);
      return -1;
    }
  }
  return 0;
}

/* An integer from lo to hi; else an error that says what was wanted (`want`, or the range). */
static int int_flag(const char *name, const char *v, long lo, long hi, const char *want, long *out, char *err,
                    size_t errlen) {
  if (parse_long(v, out) == 0 && *out >= lo && *out <= hi) return 0;
  if (want)
    set_err(err, errlen, "--%s=%s: expected %s", name, v, want);
  else
    set_err(err, errlen, "--%s=%s: expected an integer from %ld to %ld", name, v, lo, hi);
  return -1;
}

/* Seconds with an optional "s": positive, or >= 0 with zero_ok. */
static int seconds_flag(const char *name, const char *v, int zero_ok, const char *example, double *out, char *err,
                        size_t errlen) {
  if (parse_with_suffix(v, 's', out) == 0 && (*out > 0 || (zero_ok && *out == 0))) return 0;
  set_err(err, errlen, "--%s=%s: expected %s", name, v, example);
  return -1;
}

/* A positive number of microseconds written with "us" ("50us"). */
static int microseconds_flag(const char *name, const char *v, double *out_s, char *err, size_t errlen) {
  size_t len = strlen(v);
  char num[64];
  double d;
  if (len >= 3 && len - 2 < sizeof num && strcmp(v + len - 2, "us") == 0) {
    memcpy(num, v, len - 2);
    num[len - 2] = '\0';
    if (parse_double(num, &d) == 0 && d > 0) {
      *out_s = d * 1e-6;
      return 0;
    }
  }
  set_err(err, errlen, "--%s=%s: expected a positive time in microseconds like 50us", name, v);
  return -1;
}

static int bool_flag(const char *name, const char *v, int *out, char *err, size_t errlen) {
  if (parse_bool(v, out) == 0) return 0;
  set_err(err, errlen, "--%s=%s: expected true or false (also 1/0, yes/no, on/off)", name, v);
  return -1;
}

static int min_time_flag(const char *name, const char *v, double *out, char *err, size_t errlen) {
  size_t len = strlen(v);
  if (len && v[len - 1] == 'x') {
    set_err(err, errlen,
            "--%s=%s: fixed iteration counts (<n>x) are not supported; give a time like 0.5s, and "
            "--min_samples=<n> for a minimum sample count",
            name, v);
    return -1;
  }
  return seconds_flag(name, v, 0, "a positive time in seconds like 0.5s", out, err, errlen);
}

enum { FLAG_SET = 0, FLAG_BAD = -1, FLAG_NOT_MINE = 1 };

/* Google Benchmark's flags. */
static int set_benchmark_flag(int c, const char *name, const char *v, bench_options *o, char *err, size_t errlen) {
  long l;
  switch (c) {
    case OPT_FILTER: o->filter = v; return FLAG_SET;
    case OPT_LIST: return bool_flag(name, v, &o->list_tests, err, errlen);
    case OPT_REPS:
      if (int_flag(name, v, 1, 100000, NULL, &l, err, errlen)) return FLAG_BAD;
      o->repetitions = (int)l;
      return FLAG_SET;
    case OPT_MIN_TIME: return min_time_flag(name, v, &o->min_time_s, err, errlen);
    case OPT_WARMUP:
      return seconds_flag(name, v, 1, "a time in seconds >= 0, like 0.2 or 0.2s", &o->min_warmup_s, err, errlen);
    case OPT_FORMAT:
    case OPT_OUT_FORMAT:
      if (parse_format(v, c == OPT_FORMAT ? &o->format : &o->out_format) == 0) return FLAG_SET;
      set_err(err, errlen, "--%s=%s: expected console, json or csv", name, v);
      return FLAG_BAD;
    case OPT_OUT:
      if (!*v) {
        set_err(err, errlen, "--%s: expected a file name", name);
        return FLAG_BAD;
      }
      o->out_path = v;
      return FLAG_SET;
    case OPT_CONTEXT: return parse_context(v, o, err, errlen) ? FLAG_BAD : FLAG_SET;
    case OPT_REPORT_AGG: return bool_flag(name, v, &o->report_aggregates_only, err, errlen);
    case OPT_DISPLAY_AGG: return bool_flag(name, v, &o->display_aggregates_only, err, errlen);
    default: return FLAG_NOT_MINE;
  }
}

/* The GPU flags. */
static int set_gpu_flag(int c, const char *name, const char *v, bench_options *o, char *err, size_t errlen) {
  long l;
  double d;
  switch (c) {
    case OPT_DEVICE:
      if (int_flag(name, v, 0, 1023, "a CUDA device ordinal (an integer >= 0)", &l, err, errlen)) return FLAG_BAD;
      o->device = (int)l;
      return FLAG_SET;
    case OPT_HOT: return bool_flag(name, v, &o->hot, err, errlen);
    case OPT_L2_FLUSH:
      if (strcmp(v, "read") != 0 && strcmp(v, "write") != 0) {
        set_err(err, errlen, "--%s=%s: expected read or write", name, v);
        return FLAG_BAD;
      }
      o->l2_flush_write = strcmp(v, "write") == 0;
      return FLAG_SET;
    case OPT_MAX_NOISE:
      if (parse_with_suffix(v, '%', &d) || d <= 0 || d > 100) {
        set_err(err, errlen, "--%s=%s: expected a percentage above 0 and at most 100, like 0.3", name, v);
        return FLAG_BAD;
      }
      o->max_noise_pct = d;
      return FLAG_SET;
    case OPT_TIMEOUT:
      return seconds_flag(name, v, 0, "a positive time in seconds like 10 or 10s", &o->timeout_s, err, errlen);
    case OPT_MIN_SAMPLES: return int_flag(name, v, 1, 1000000, NULL, &o->min_samples, err, errlen);
    case OPT_MIN_CLOCK:
      if (parse_double(v, &d) || d < 0 || d > 1) {
        set_err(err, errlen, "--%s=%s: expected a ratio from 0 (no filtering) to 1, like 0.7", name, v);
        return FLAG_BAD;
      }
      o->min_clock_ratio = d;
      return FLAG_SET;
    case OPT_CONTEXTS:
      if (int_flag(name, v, 1, 256, NULL, &l, err, errlen)) return FLAG_BAD;
      o->contexts = (int)l;
      return FLAG_SET;
    case OPT_CONTEXTS_BELOW: return microseconds_flag(name, v, &o->contexts_below_s, err, errlen);
    case OPT_LONG_CONTEXTS:
      if (int_flag(name, v, 0, 256, NULL, &l, err, errlen)) return FLAG_BAD;
      o->long_contexts = (int)l;
      return FLAG_SET;
    case OPT_FINGERPRINT_OUT:
      if (!*v) {
        set_err(err, errlen, "--%s: expected a file name", name);
        return FLAG_BAD;
      }
      o->fingerprint_out = v;
      return FLAG_SET;
    default: return FLAG_NOT_MINE;
  }
}

flags_status flags_parse(int argc, char **argv, bench_options *o, char *err, size_t errlen) {
  flags_defaults(o);
  if (errlen) err[0] = '\0';
  if (check_exact_names(argc, argv, err, errlen)) return FLAGS_ERROR;
  optind = 0; /* GNU: full re-initialisation, so tests can parse repeatedly */
  opterr = 0;
  int c, idx = -1;
  while ((c = getopt_long(argc, argv, "+:h", kOptions, &idx)) != -1) {
    const char *name = idx >= 0 ? kOptions[idx].name : "";
    idx = -1;
    if (c == OPT_HELP || c == 'h') return FLAGS_HELP;
    if (c == ':') {
      set_err(err, errlen, "%s: expected a value (--flag=value)", argv[optind - 1]);
      return FLAGS_ERROR;
    }
    int r = set_benchmark_flag(c, name, optarg, o, err, errlen);
    if (r == FLAG_NOT_MINE) r = set_gpu_flag(c, name, optarg, o, err, errlen);
    if (r == FLAG_BAD) return FLAGS_ERROR;
    if (r == FLAG_NOT_MINE) {
      if (optopt > 0 && optopt < 256)
        set_err(err, errlen, "unknown flag '-%c' (see --help for the accepted flags)", optopt);
      else
        set_err(err, errlen, "unknown flag '%s' (see --help for the accepted flags)", argv[optind - 1]);
      return FLAGS_ERROR;
    }
  }
  if (optind < argc) {
    set_err(err, errlen, "unexpected argument '%s' (flags are written --flag=value)", argv[optind]);
    return FLAGS_ERROR;
  }
  /* The long benchmarks' contexts are among the --contexts ones. */
  if (o->long_contexts > 0 && (o->contexts < 2 || o->long_contexts > o->contexts)) {
    set_err(err, errlen,
            "--long_contexts=%d: needs --contexts=k with k >= 2 and k >= %d (it picks the first %d of "
            "those k contexts; --contexts is %d)",
            o->long_contexts, o->long_contexts, o->long_contexts, o->contexts);
    return FLAGS_ERROR;
  }
  /* The fingerprint run times nothing: there are no results to write or list beside it. */
  if (o->fingerprint_out && (o->out_path || o->list_tests)) {
    set_err(err, errlen, "--fingerprint_out=%s cannot be combined with %s: a fingerprint run measures nothing",
            o->fingerprint_out, o->out_path ? "--benchmark_out" : "--benchmark_list_tests");
    return FLAGS_ERROR;
  }
  return FLAGS_OK;
}
