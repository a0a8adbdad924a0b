#include "perf/runner/testbed.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/nvml.h"

void testbed_name(const testbed_facts *f, char *out, size_t len) {
  char count[16] = "x?";
  if (f->gpus > 0) snprintf(count, sizeof count, "x%d", f->gpus);
  const char *link = f->nvlinks > 0 ? "NVLink" : f->nvlinks == 0 ? "no NVLink" : "NVLink unknown";
  snprintf(out, len, "%s %s %s | %s | driver %s", f->gpu_name[0] ? f->gpu_name : "unknown GPU", count, link,
           f->cpu_model[0] ? f->cpu_model : "unknown CPU", f->driver[0] ? f->driver : "unknown");
}

/* Copies s into out with its blanks squeezed to one space and trimmed. */
static void squeeze(const char *s, char *out, size_t len) {
  size_t k = 0;
  int blank = 1;
  for (; *s && k + 1 < len; s++) {
    if (isspace((unsigned char)*s)) {
      blank = 1;
      continue;
    }
    if (blank && k > 0) out[k++] = ' ';
    if (k + 1 < len) out[k++] = *s;
    blank = 0;
  }
  out[k] = '\0';
}

int testbed_cpu_model(const char *cpuinfo_path, char *out, size_t len) {
  if (len) out[0] = '\0';
  FILE *f = fopen(cpuinfo_path, "r");
  if (!f) return -1;
  char line[512];
  int found = -1;
  while (found < 0 && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *colon = strchr(line, ':');
    if (!colon) continue;
    squeeze(colon + 1, out, len);
    found = out[0] ? 0 : -1;
  }
  fclose(f);
  return found;
}

int testbed_valid_name(const char *s, char *why, size_t len) {
  size_t n = strlen(s), printable = 0;
  if (n == 0 || n > 200) {
    snprintf(why, len, "it is %zu characters long; give 1 to 200", n);
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == ',' || c == '"') {
      snprintf(why, len, "character %zu is a comma or double quote, which the history's CSV rows cannot hold", i + 1);
      return 1;
    }
    if (c < 0x20 || c > 0x7e) {
      snprintf(why, len, "character %zu is not printable ASCII (0x%02x); use letters, digits, spaces and punctuation",
               i + 1, c);
      return 1;
    }
    printable += c != ' ';
  }
  if (!printable) {
    snprintf(why, len, "it is all blanks");
    return 1;
  }
  return 0;
}

int testbed_detect(const char *nvml_lib, testbed_facts *f, char *name, size_t len, const char **source, char *err,
                   size_t errlen) {
  memset(f, 0, sizeof *f);
  f->nvlinks = -1;
  nvml_host_facts h;
  if (nvml_host(nvml_lib, &h, f->nvml_error, sizeof f->nvml_error) == 0) {
    snprintf(f->gpu_name, sizeof f->gpu_name, "%s", h.gpu_name);
    f->gpus = h.gpus;
    f->nvlinks = h.nvlinks;
    snprintf(f->driver, sizeof f->driver, "%s", h.driver);
    f->nvml_error[0] = '\0';
  }
  testbed_cpu_model("/proc/cpuinfo", f->cpu_model, sizeof f->cpu_model);
  const char *given = getenv("PERF_TESTBED");
  if (given && *given) {
    char why[256];
    if (testbed_valid_name(given, why, sizeof why)) {
      snprintf(err, errlen,
               "PERF_TESTBED='%s' is not a testbed name: %s (it names the runner's class of host; "
               "unset it to use the detected one)",
               given, why);
      return 2;
    }
    snprintf(name, len, "%s", given);
    *source = "PERF_TESTBED";
    return 0;
  }
  testbed_name(f, name, len);
  *source = "detected";
  return 0;
}

int testbed_of_host(testbed_facts *f, char *name, size_t len, const char **source, char *err, size_t errlen) {
  /* As the runner's own NVML (runner_device.c) reads it. */
  return testbed_detect(getenv("BENCH_NVML_LIBRARY"), f, name, len, source, err, errlen);
}
