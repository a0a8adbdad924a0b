/* testbed: prints this host's testbed (perf/runner/testbed.h) on one line, and with --facts what it
 * was made of. It calls testbed_of_host, as the runner does, so the two cannot disagree
 * (testbed_tool_test); when NVML cannot be read both name the GPU's part unknown, and this says why on
 * stderr. Exit 2 when PERF_TESTBED is set to something that is not a name. */
#include <stdio.h>
#include <string.h>

#include "perf/runner/testbed.h"

int main(int argc, char **argv) {
  int facts = argc == 2 && strcmp(argv[1], "--facts") == 0;
  if (argc > 2 || (argc == 2 && !facts)) {
    fprintf(stderr, "usage: testbed [--facts]\n");
    return 2;
  }
  testbed_facts f;
  char name[TESTBED_MAX], err[512];
  const char *source = "";
  if (testbed_of_host(&f, name, sizeof name, &source, err, sizeof err) != 0) {
    fprintf(stderr, "testbed: %s\n", err);
    return 2;
  }
  if (f.nvml_error[0] && strcmp(source, "detected") == 0)
    fprintf(stderr, "testbed: NVML unavailable (%s): the GPU model, count, NVLink and driver read unknown\n",
            f.nvml_error);
  printf("%s\n", name);
  if (facts)
    printf("source: %s\ngpu: %s\ngpus: %d\nnvlinks: %d\ncpu: %s\ndriver: %s\n", source, f.gpu_name, f.gpus, f.nvlinks,
           f.cpu_model, f.driver);
  return 0;
}
