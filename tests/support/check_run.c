#include "tests/support/check_run.h"

#include <stdlib.h>

static int run(Suite *s, int in_process) {
  SRunner *sr = srunner_create(s);
  if (in_process) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_VERBOSE);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int run_suite(Suite *s) { return run(s, 0); }

int run_suite_in_process(Suite *s) { return run(s, 1); }
