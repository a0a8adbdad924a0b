/* The one main of the Check test binaries: runs a suite, prints each test's result, and turns
 * the outcome into the binary's exit status. */
#ifndef TESTS_SUPPORT_CHECK_RUN_H
#define TESTS_SUPPORT_CHECK_RUN_H

#include <check.h>

/* Runs every test of s (each in a fork of its own, Check's default) and returns EXIT_SUCCESS when all
 * passed, else EXIT_FAILURE. Frees the runner, which frees s. */
int run_suite(Suite *s);

/* The same with every test in this process: a CUDA context does not survive fork. */
int run_suite_in_process(Suite *s);

#endif
